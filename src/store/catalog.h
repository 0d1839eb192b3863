/* catalog.h — the repos of a data directory, or of the shared catalog.
 *
 * <data dir>/repos/<id>.db is one repo's index; its meta table names the
 * repo (id, canonical root, fingerprint). There is no separate registry to
 * drift out of step: listing reads the databases themselves.
 *
 * The shared catalog (storage = postgres://..., store/pg.h). Several daemons
 * share one list of repos: the table memgate_repos (pgschema.c, step
 * 0006_catalog) holds each repo's id (unique in the installation), its
 * owning tenant, its root, its fingerprint, its index generation and its
 * settings. Each daemon's <id>.db files stay its own: a cache of the working
 * copy at root on its machine (same path everywhere). Then
 *
 *   - listing, getting and finding by root read the catalog, each entry
 *     joined with this daemon's local index of it when there is one: the
 *     catalog's tenant, root, fingerprint and settings win, whatever the
 *     local file says, and `copy` says how the local index stands
 *     (enum mg_repo_copy). A local index the catalog does not list is not
 *     listed (a repo indexed before storage pointed at PostgreSQL: index it
 *     again to register it);
 *   - an explicit index run that completes (`memgate index`, index_repo, a
 *     push webhook's run, a scheduled run) registers the repo on its first
 *     run and bumps its generation, in one transaction with a notification
 *     on channel MG_CATALOG_CHANNEL (mg_catalog_indexed); the local index
 *     records the generation it corresponds to (meta catalog.generation).
 *     The file watcher's incremental runs change nothing in the catalog;
 *   - a daemon that follows the catalog (http/follow.c) keeps it in memory
 *     (mg_catalog_follow, reloaded on every (re)connect, one row re-read per
 *     notification), so that a request costs no query; other processes (the
 *     command line, `memgate mcp`) read it from PostgreSQL at each listing.
 *
 * Payload of a notification: {"repo": ID, "generation": N, "reason": R} and,
 * for a push, "delivery": the webhook's delivery id. R is index (the tool, the
 * command line), push (a webhook's run), schedule (reindex_interval), remove
 * (repos rm: generation 0) or settings (repos set).
 *
 * Ids are short, stable and readable: the root's base name (lower-cased,
 * [a-z0-9._-], at most 24 chars) and 6 hex digits of a hash of the canonical
 * root path, e.g. "linux-3fa2c1"; `--name` may choose one instead. The
 * fingerprint is a 128-bit hash of the canonical root, used to tag memory.
 *
 * Ids are per tenant (issue 38, V9): a repo of tenant T other than "local"
 * is stored under the id "T~NAME" (the catalog's key, repos/T~NAME.db,
 * tokens' lists, bindings, memory rows, audit), NAME being what was chosen
 * or derived. A caller of tenant T names it NAME or T~NAME (mg_repo_qualify
 * turns the one into the other), so two tenants can each have `foo`, and
 * whether a name is free never depends on another tenant's repos. Ids made
 * before (a tenant's repo without the prefix) stay valid for their tenant.
 */
#ifndef MG_CATALOG_H
#define MG_CATALOG_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/settings.h"
#include "util/config.h"
#include "util/err.h"

#define MG_NAME_MAX 64                  /* a repo's name: [a-z0-9][a-z0-9._-]{0,63} */
#define MG_ID_MAX (64 + 1 + MG_NAME_MAX) /* an id: NAME, or TENANT~NAME (a tenant: at most 64) */
#define MG_ID_SEP '~'
#define MG_CATALOG_CHANNEL "memgate_repo"

/* How this daemon's index of a repo stands against the shared catalog. */
enum mg_repo_copy {
    MG_COPY_NONE = 0, /* no shared catalog: the local index is the repo */
    MG_COPY_CURRENT,  /* a local index at the catalog's generation */
    MG_COPY_BEHIND,   /* a local index of an older generation: answers say stale */
    MG_COPY_PENDING,  /* no local index yet; the root exists here: the follower builds it */
    MG_COPY_ABSENT,   /* no local index, and the root does not exist on this machine */
    MG_COPY_CONFLICT, /* the local file <id>.db is of another tenant or root: not served, rebuilt */
};

struct mg_repo {
    char id[MG_ID_MAX + 1];
    char root[PATH_MAX];
    char fingerprint[33];
    char tenant[65];                       /* the owning tenant ("local" for repos indexed before tenants) */
    char dbpath[PATH_MAX];
    int64_t files, chunks, symbols, bytes; /* as of the last index run */
    int64_t created_at, indexed_at;        /* unix seconds; 0 = never finished */
    int64_t db_bytes;                      /* size of the database files on disk */
    int64_t reindex_interval;              /* its setting (store/settings.h): seconds, 0 = none */
    struct mg_repo_settings settings;      /* all its settings (reindex_interval is settings.reindex_interval) */
    /* the shared catalog (all 0 without one) */
    enum mg_repo_copy copy;
    int64_t generation;                    /* of the local index (meta catalog.generation; 0: none) */
    int64_t catalog_generation;            /* the repo's in the catalog */
};

/* "current", "behind", "pending", "absent", "conflict"; NULL for MG_COPY_NONE. */
const char *mg_repo_copy_name(enum mg_repo_copy c);
/* Is there a local index to read (no catalog, current or behind)? */
bool mg_repo_has_index(const struct mg_repo *r);

/* <home>/repos, created 0700 (and <home>) when create is set. */
int mg_catalog_dir(const struct mg_config *c, int create, char *out, size_t cap, struct mg_err *err);
void mg_repo_dbpath(const struct mg_config *c, const char *id, char *out, size_t cap);

/* All repos, sorted by id (*out malloc'd). Unreadable databases are skipped
 * with a warning on stderr. */
int mg_catalog_list(const struct mg_config *c, struct mg_repo **out, size_t *n, struct mg_err *err);
/* One repo by id; repo_not_found (listing the known ids) if absent. */
int mg_catalog_get(const struct mg_config *c, const char *id, struct mg_repo *out, struct mg_err *err);
/* The repo whose root is `root` (canonical): 1 found, 0 not, -1 error. */
int mg_catalog_find_root(const struct mg_config *c, const char *root, struct mg_repo *out, struct mg_err *err);
/* Delete a repo's database files. */
int mg_catalog_remove(const struct mg_config *c, const char *id, struct mg_err *err);

/* Choose the repos a command works on: the explicit ids if any (each must
 * exist), else the repo whose root contains cwd (the innermost), else the
 * only repo, else repo_required listing the ids. *out is malloc'd. */
int mg_catalog_resolve(const struct mg_config *c, const char *const *ids, size_t nids, const char *cwd,
                       struct mg_repo **out, size_t *n, struct mg_err *err);

/* The index of the repo with the innermost root containing path (a
 * canonical path; the root itself counts), or -1. */
int mg_catalog_containing(const struct mg_repo *v, size_t n, const char *path);
/* "a, b, c" (", ..." when cap runs out; "none" for n == 0) into buf. */
void mg_repo_id_list(const struct mg_repo *v, size_t n, char *buf, size_t cap);

void mg_repo_derive_id(const char *root, char *out, size_t cap);
/* A name a caller may choose (name_invalid otherwise). */
int mg_repo_check_name(const char *name, struct mg_err *err);
/* An id: a name, or TENANT~NAME with a valid tenant word. */
int mg_repo_check_id(const char *id, struct mg_err *err);
/* The id tenant's caller means by `name` (a name or an id): TENANT~NAME for
 * a name of a tenant other than "local" (NULL: "local"); anything else as
 * given. Always NUL-terminated; out of at least MG_ID_MAX + 1 bytes. */
void mg_repo_qualify(const char *tenant, const char *name, char *out, size_t cap);
/* The name part of an id (after the tenant's "~", or the whole id). */
const char *mg_repo_name_of(const char *id);
void mg_repo_fingerprint(const char *root, char out[33]);

/* ---- the shared catalog (catalogpg.c) ---- */

/* Is the catalog shared (storage is a PostgreSQL URL)? */
bool mg_catalog_shared(const struct mg_config *c);

/* The local index files only, as an unshared catalog lists them (the
 * follower looks for local indexes the catalog no longer has). */
int mg_catalog_local_list(const struct mg_config *c, struct mg_repo **out, size_t *n, struct mg_err *err);

/* An explicit index run of repo id (tenant, canonical root) completed:
 * register the repo (its local settings with it) or check that it is the
 * catalog's (the same tenant and root: repo_exists or root_forbidden
 * otherwise), bump its generation, record it in the local index and notify
 * with reason ("index", "push", "schedule") and delivery (NULL: none), in
 * one transaction. *generation: the new one. */
int mg_catalog_indexed(const struct mg_config *c, const char *id, const char *tenant, const char *root,
                       const char *reason, const char *delivery, int64_t *generation, struct mg_err *err);
/* A local run caught the index of id up to generation (the follower's):
 * record it in the local index. Waiters (mg_catalog_wait_current) wake. */
int mg_catalog_caught_up(const struct mg_config *c, const char *id, int64_t generation, struct mg_err *err);
/* Apply settings changes to repo r: in the catalog (notified, reason
 * settings) when shared, and in its local index when it has one. All or
 * none (checked first: invalid_argument). */
int mg_catalog_settings_write(const struct mg_config *c, const struct mg_repo *r, const struct mg_setting_change *v,
                              size_t n, struct mg_err *err);
/* Write the catalog's settings of r into its local index where they differ
 * (a follower keeps the local meta rows, which the watcher and the webhook
 * read, in step). */
int mg_catalog_settings_sync(const struct mg_config *c, const struct mg_repo *r, struct mg_err *err);
/* A webhook delivery id a notification may carry: 1 to 128 of A-Z a-z 0-9
 * . _ : - (hook/hook.h's rule; anything else is left out, or ignored). */
bool mg_catalog_delivery_ok(const char *s);
/* Delete the local index files of id (whatever they hold). */
int mg_catalog_drop_local(const struct mg_config *c, const char *id, struct mg_err *err);

/* Following: the process keeps the catalog in memory from now on (live), or
 * reads it at each listing again (not live). */
void mg_catalog_follow(const struct mg_config *c, bool live);
/* Read the whole catalog again (after a (re)connect), or one repo's row
 * (after a notification; gone: dropped from memory). */
int mg_catalog_reload(const struct mg_config *c, struct mg_err *err);
int mg_catalog_refresh(const struct mg_config *c, const char *id, struct mg_err *err);
/* Wait until this daemon's index of id is at the catalog's generation (or
 * there is nothing to wait for: absent, gone), or until deadline_ms
 * (CLOCK_MONOTONIC); *out: the repo as it then stands. 0, or -1 with err. */
int mg_catalog_wait_current(const struct mg_config *c, const char *id, int64_t deadline_ms, struct mg_repo *out,
                            struct mg_err *err);

/* What the local index at dbpath says of itself (its meta, cached per
 * file), whatever a shared catalog says. */
int mg_catalog_read_local(const char *dbpath, struct mg_repo *r, struct mg_err *err);

/* ---- between catalog.c and catalogpg.c only ---- */
int mg__catalog_shared_list(const struct mg_config *c, struct mg_repo **out, size_t *n, struct mg_err *err);
/* 1 found (out filled), 0 not in the catalog, -1 error */
int mg__catalog_shared_get(const struct mg_config *c, const char *id, struct mg_repo *out, struct mg_err *err);
int mg__catalog_shared_remove(const struct mg_config *c, const struct mg_repo *r, struct mg_err *err);
/* Sleep until the shared copy or a recorded generation changes, until_ms
 * (CLOCK_MONOTONIC), or a short poll interval (a local index written by
 * another process wakes no one), whichever comes first. */
void mg__catalog_wait_change(int64_t until_ms);

#endif
