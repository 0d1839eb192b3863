/* hook.h — what push webhooks from GitHub and GitLab need below the HTTP
 * layer (POST /v1/hooks/git, docs/webhooks.md): verifying a delivery,
 * remembering deliveries, finding the indexed working copies whose git
 * remote is the pushed repository, and fast-forwarding a working copy from
 * its upstream (pull_on_push).
 *
 *   url.c      remote URLs to one comparable form (untrusted input: fuzzed)
 *   verify.c   GitHub's HMAC-SHA256 signature, GitLab's token, delivery ids
 *   replay.c   deliveries (their body's digest) seen in the last 7 days (<home>/hooks.db)
 *   match.c    the payload's repository URLs; indexed repos by their remotes
 *   pull.c     `git pull --ff-only` with libgit2, for pull_on_push
 *
 * The route, the order of its checks and the background runs are the HTTP
 * layer's (http/hook.c, http/hook_run.c): this layer knows no request.
 */
#ifndef MG_HOOK_H
#define MG_HOOK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "store/catalog.h"
#include "util/config.h"
#include "util/err.h"

#define MG_HOOK_BODY_MAX (1u << 20)   /* a delivery's body: GitHub's pushes are a few KB (at most 20 commits
                                       * in GitLab's); also capped by http_max_body */
#define MG_HOOK_URL_MAX 2048          /* longest repository URL compared */
#define MG_HOOK_NORM_MAX (MG_HOOK_URL_MAX + 8)
#define MG_HOOK_ID_MAX 128            /* longest delivery id */
#define MG_HOOK_URLS_MAX 12           /* repository URLs read from one payload */
#define MG_HOOK_REMOTES_MAX 32        /* remote URLs read from one working copy */
#define MG_HOOK_REPLAY_TTL_S (7 * 86400) /* a delivery id is remembered this long ... */
#define MG_HOOK_REPLAY_ROWS 100000    /* ... and at most this many (the oldest go first) */

/* ---- url.c ---- */
/* Normalise a repository URL for comparison: `host[:port]/path` with the
 * scheme, `user@` and a default port (80, 443, 22, 9418) dropped and the host
 * lower-cased; `[user@]host:path` (scp form) is the same as
 * `ssh://[user@]host/path`; a local path or file:// URL is `/path`. The path
 * loses repeated and trailing slashes and a trailing `.git`; its case is kept.
 * A query or fragment is cut off. 0 with out (NUL-terminated), or -1 when s
 * is no repository URL (empty, longer than MG_HOOK_URL_MAX, spaces or control
 * bytes, an unknown scheme, a relative path, no host or no path) or out is
 * too small. */
int mg_hook_url_norm(const char *s, size_t len, char *out, size_t cap);

/* ---- verify.c ---- */
/* X-Hub-Signature-256 is `sha256=` and the hex HMAC-SHA256 of body keyed by
 * secret; compared in constant time. */
bool mg_hook_github_ok(const char *secret, const char *header, const void *body, size_t len);
/* X-Gitlab-Token equals secret; compared in constant time (both hashed to a
 * fixed length first, so the length does not leak either). */
bool mg_hook_gitlab_ok(const char *secret, const char *header);
/* A delivery id to remember: 1 to MG_HOOK_ID_MAX of A-Z a-z 0-9 . _ : - */
bool mg_hook_delivery_id_ok(const char *id);

/* ---- replay.c ---- */
struct mg_hook_replay;
/* Open (create 0600) <home>/hooks.db; or, with storage = postgres://...,
 * use the shared table webhook_deliveries (a system table: a delivery names
 * no tenant), so that a delivery seen by one daemon is a replay on every
 * other. */
int mg_hook_replay_open(const struct mg_config *c, struct mg_hook_replay **out, struct mg_err *err);
/* Remember the delivery of source ("github", "gitlab") whose verified body
 * is body[0..len) at now_ms (unix ms), forgetting those past
 * MG_HOOK_REPLAY_TTL_S and beyond MG_HOOK_REPLAY_ROWS. A delivery is known by
 * the BLAKE2b-256 digest of its body, the bytes the signature covers: the
 * same body again is a replay whatever its delivery id (a header outside
 * the signature, which a replayer may change or drop), and no delivery id
 * is kept. 1: first seen (now remembered, durably); 0: seen before (a
 * replay); -1 with err (PostgreSQL: storage_unavailable when it cannot be
 * reached). Thread-safe. */
int mg_hook_replay_record(struct mg_hook_replay *rp, const char *source, const char *body, size_t len,
                          int64_t now_ms, struct mg_err *err);
void mg_hook_replay_close(struct mg_hook_replay *rp);

/* ---- match.c ---- */
enum mg_hook_source { MG_HOOK_GITHUB, MG_HOOK_GITLAB };
/* The payload's repository URLs, normalised (GitHub: repository.clone_url,
 * ssh_url, git_url, html_url, url; GitLab: project.git_http_url, git_ssh_url,
 * web_url, http_url, ssh_url, repository.url, git_http_url, git_ssh_url,
 * homepage); those that do not normalise are skipped. Returns how many (at
 * most MG_HOOK_URLS_MAX). */
size_t mg_hook_payload_urls(json_t *payload, enum mg_hook_source src, char out[][MG_HOOK_NORM_MAX], size_t cap);
/* The remote URLs (fetch and push) of the git working copy at root,
 * normalised; 0 when it is no git repository or has no remote. */
size_t mg_hook_remote_urls(const char *root, char out[][MG_HOOK_NORM_MAX], size_t cap);
/* libgit2 initialised, once for the process. */
void mg_hook_git_ready(void);
/* The indexed repos (every tenant's) with a remote among urls[0..n): *out
 * malloc'd (NULL when none), *nout of them. */
int mg_hook_match(const struct mg_config *c, char urls[][MG_HOOK_NORM_MAX], size_t n, struct mg_repo **out,
                  size_t *nout, struct mg_err *err);

/* ---- pull.c ---- */
/* `git pull --ff-only` in the working copy at root, with libgit2: fetch the
 * current branch's upstream remote, then fast-forward the branch and check
 * out its tree (safe checkout: nothing local is overwritten). Refused with
 * pull_refused, the working copy untouched: a detached or unborn HEAD, no
 * upstream, a merge or rebase in progress, changes to tracked files (staged
 * or not), a branch that diverged from its upstream, untracked files the
 * checkout would overwrite. A failed fetch or checkout is pull_failed. stop
 * nonzero aborts the fetch. what receives what happened ("fast-forwarded
 * main 1a2b3c4..5d6e7f8", "already up to date"). 0, or -1 with err. */
int mg_hook_pull_ff(const char *root, const volatile int *stop, char *what, size_t cap, struct mg_err *err);
/* Does the repo ask for it: its setting pull_on_push is "on" (set by
 * `memgate repos set ID pull_on_push=on`; absent or anything else: off), as
 * the catalog listed it (its index's meta row setting.pull_on_push, or the
 * shared catalog's)? */
bool mg_hook_pull_wanted(const struct mg_repo *r);

#endif
