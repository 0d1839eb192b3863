/* pull.c — `git pull --ff-only` with libgit2 for pull_on_push (hook.h).
 * No shell and no git hooks run; the working copy is either moved to its
 * upstream's commit whole, or left as it was: every check that can refuse
 * comes before the first write, and the checkout is libgit2's safe one,
 * which computes its conflicts before it writes a file. */
#include "hook/hook.h"

#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "store/db.h"
#include "store/settings.h"
#include "util/gitrepo.h"

#define PULL_SPECS_MAX 16 /* fetch refspecs of the upstream remote read */

struct pull {
    git_repository *repo;
    git_config *cfg;   /* a snapshot: one consistent view of the config */
    git_reference *head;
    git_remote *remote;
    git_buf remote_name, merge, url; /* branch.<b>.remote, branch.<b>.merge, remote.<r>.url */
    git_buf upstream;  /* the remote-tracking ref branch.<b>.merge maps to */
    char *specs[PULL_SPECS_MAX]; /* remote.<r>.fetch */
    size_t nspecs;
    git_status_list *status;
    git_annotated_commit *theirs;
    git_commit *commit;
    git_reference *moved;
    const volatile int *stop;
    int cred_tries;
};

static const char *git_why(void)
{
    const git_error *e = git_error_last();
    return e && e->message ? e->message : "unknown libgit2 error";
}

static int refuse(struct mg_err *err, const char *root, const char *why)
{
    return mg_err_set(err, MG_E_PULL_REFUSED, "pull refused: %s; the working copy '%s' is unchanged and was not "
                      "re-indexed (pull_on_push)", why, root);
}

static int failed(struct mg_err *err, const char *root, const char *what)
{
    return mg_err_set(err, MG_E_PULL_FAILED, "pull failed: %s: %s; '%s' was not re-indexed (pull_on_push)", what,
                      git_why(), root);
}

/* One string of the config snapshot: the key is section.name.var. */
static int config_str(struct pull *p, const char *section, const char *name, const char *var, git_buf *out)
{
    char key[1024];
    if ((size_t)snprintf(key, sizeof(key), "%s.%s.%s", section, name, var) >= sizeof(key)) return -1;
    return git_config_get_string_buf(out, p->cfg, key);
}

static int add_spec(const git_config_entry *e, void *payload)
{
    struct pull *p = payload;
    if (p->nspecs < PULL_SPECS_MAX && (p->specs[p->nspecs] = strdup(e->value))) p->nspecs++;
    return 0;
}

/* The remote-tracking ref that branch.<b>.merge maps to by a fetch refspec
 * of the remote (refs/heads/main -> refs/remotes/origin/main). */
static int tracking_ref(struct pull *p)
{
    for (size_t i = 0; i < p->nspecs; i++) {
        git_refspec *rs = NULL;
        if (git_refspec_parse(&rs, p->specs[i], 1) != 0) continue;
        const char *dst = git_refspec_dst(rs);
        bool ok = git_refspec_src_matches(rs, p->merge.ptr) && dst && dst[0] &&
                  git_refspec_transform(&p->upstream, rs, p->merge.ptr) == 0;
        git_refspec_free(rs);
        if (ok) return 0;
    }
    return -1;
}

/* The branch's upstream as `git pull` finds it: branch.<b>.remote and
 * branch.<b>.merge, that remote's url and fetch refspecs. Read from the
 * config itself rather than with git_branch_upstream_name or
 * git_remote_lookup: in libgit2 1.5 those match config entries with
 * regexes, which leaks (see mg_hook_remote_urls in match.c). */
static int find_upstream(struct pull *p, const char *root, struct mg_err *err)
{
    const char *branch = git_reference_shorthand(p->head);
    if (git_repository_config_snapshot(&p->cfg, p->repo) != 0) return failed(err, root, "reading the config");
    if (config_str(p, "branch", branch, "remote", &p->remote_name) != 0 ||
        config_str(p, "branch", branch, "merge", &p->merge) != 0)
        return refuse(err, root, "its branch has no upstream (git branch --set-upstream-to)");
    if (strcmp(p->remote_name.ptr, ".") == 0) return refuse(err, root, "its upstream is a local branch");
    if (config_str(p, "remote", p->remote_name.ptr, "url", &p->url) != 0)
        return refuse(err, root, "its upstream remote has no url");
    char key[1024];
    snprintf(key, sizeof(key), "remote.%s.fetch", p->remote_name.ptr);
    git_config_get_multivar_foreach(p->cfg, key, NULL, add_spec, p);
    if (tracking_ref(p) != 0)
        return refuse(err, root, "no fetch refspec of its upstream remote maps its upstream branch to a "
                      "remote-tracking branch (remote.<name>.fetch)");
    return 0;
}

/* The branch checked out, with an upstream, and no operation under way. */
static int check_head(struct pull *p, const char *root, struct mg_err *err)
{
    if (git_repository_is_bare(p->repo)) return refuse(err, root, "it is a bare repository");
    if (git_repository_state(p->repo) != GIT_REPOSITORY_STATE_NONE)
        return refuse(err, root, "a merge, rebase, cherry-pick or similar is in progress");
    if (git_repository_head_unborn(p->repo) == 1) return refuse(err, root, "its branch has no commit yet");
    if (git_repository_head_detached(p->repo) == 1) return refuse(err, root, "HEAD is detached (no branch)");
    if (git_repository_head(&p->head, p->repo) != 0) return failed(err, root, "reading HEAD");
    return find_upstream(p, root, err);
}

/* Changes to tracked files, staged or not, are local work a pull must not
 * touch; untracked files are fine unless the checkout would overwrite one. */
static int check_clean(struct pull *p, const char *root, struct mg_err *err)
{
    git_status_options so;
    git_status_options_init(&so, GIT_STATUS_OPTIONS_VERSION);
    so.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
    so.flags = GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
    if (git_status_list_new(&p->status, p->repo, &so) != 0) return failed(err, root, "reading the status");
    size_t n = git_status_list_entrycount(p->status);
    if (n == 0) return 0;
    const git_status_entry *e = git_status_byindex(p->status, 0);
    const git_diff_delta *d = e ? (e->index_to_workdir ? e->index_to_workdir : e->head_to_index) : NULL;
    char why[PATH_MAX + 96];
    snprintf(why, sizeof(why), "the working tree has local changes to %zu tracked file%s (first: %s); commit or "
             "stash them", n, n == 1 ? "" : "s", d && d->new_file.path ? d->new_file.path : "?");
    return refuse(err, root, why);
}

static int on_transfer(const git_indexer_progress *stats, void *payload)
{
    (void)stats;
    struct pull *p = payload;
    return p->stop && *p->stop ? -1 : 0;
}

static int on_sideband(const char *str, int len, void *payload)
{
    (void)str;
    (void)len;
    return on_transfer(NULL, payload);
}

/* ssh remotes: the keys of a running ssh-agent, asked once (no prompt, no
 * key file read); anything else has no credentials to offer. */
static int on_credentials(git_credential **out, const char *url, const char *user, unsigned int allowed,
                          void *payload)
{
    (void)url;
    struct pull *p = payload;
    if (!(allowed & GIT_CREDENTIAL_SSH_KEY) || p->cred_tries++ > 0) return GIT_PASSTHROUGH;
    return git_credential_ssh_key_from_agent(out, user ? user : "git");
}

/* Fetch the upstream remote's refspecs, which moves its remote-tracking
 * branches as `git fetch` would. An anonymous remote on the configured url
 * (git_remote_lookup would apply url.*.insteadOf with a leaking regex). */
static int fetch(struct pull *p, const char *root, struct mg_err *err)
{
    git_remote_create_options ro;
    git_remote_create_options_init(&ro, GIT_REMOTE_CREATE_OPTIONS_VERSION);
    ro.repository = p->repo;
    ro.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF | GIT_REMOTE_CREATE_SKIP_DEFAULT_FETCHSPEC;
    if (git_remote_create_with_opts(&p->remote, p->url.ptr, &ro) != 0)
        return failed(err, root, "opening the upstream remote");
    git_strarray specs = {p->specs, p->nspecs};
    git_fetch_options fo;
    git_fetch_options_init(&fo, GIT_FETCH_OPTIONS_VERSION);
    fo.callbacks.transfer_progress = on_transfer;
    fo.callbacks.sideband_progress = on_sideband;
    fo.callbacks.credentials = on_credentials;
    fo.callbacks.payload = p;
    if (git_remote_fetch(p->remote, &specs, &fo, "memgate webhook: fetch") != 0) {
        if (p->stop && *p->stop)
            return mg_err_set(err, MG_E_INTERRUPTED, "pull stopped: the server is stopping; '%s' was not "
                              "re-indexed (pull_on_push)", root);
        return failed(err, root, "fetching the upstream");
    }
    return 0;
}

static void short_id(const git_oid *id, char out[8])
{
    char hex[GIT_OID_HEXSZ + 1];
    git_oid_tostr(hex, sizeof(hex), id);
    snprintf(out, 8, "%.7s", hex);
}

/* Move the branch to theirs: check out its tree safely, then the ref. */
static int fast_forward(struct pull *p, const git_oid *to, const char *root, char *what, size_t cap,
                        struct mg_err *err)
{
    if (git_commit_lookup(&p->commit, p->repo, to) != 0) return failed(err, root, "reading the upstream commit");
    git_checkout_options co;
    git_checkout_options_init(&co, GIT_CHECKOUT_OPTIONS_VERSION);
    co.checkout_strategy = GIT_CHECKOUT_SAFE;
    int rc = git_checkout_tree(p->repo, (const git_object *)p->commit, &co);
    if (rc == GIT_ECONFLICT)
        return refuse(err, root, "the checkout would overwrite local files (untracked ones in the way)");
    if (rc != 0) return failed(err, root, "checking out the upstream commit");
    char from[8], dest[8];
    short_id(git_reference_target(p->head), from);
    short_id(to, dest);
    if (git_reference_set_target(&p->moved, p->head, to, "memgate webhook: fast-forward") != 0)
        return failed(err, root, "moving the branch");
    snprintf(what, cap, "fast-forwarded %s %s..%s", git_reference_shorthand(p->head), from, dest);
    return 0;
}

static int merge(struct pull *p, const char *root, char *what, size_t cap, struct mg_err *err)
{
    git_oid theirs;
    if (git_reference_name_to_id(&theirs, p->repo, p->upstream.ptr) != 0)
        return failed(err, root, "reading the upstream branch");
    if (git_annotated_commit_lookup(&p->theirs, p->repo, &theirs) != 0)
        return failed(err, root, "reading the upstream commit");
    git_merge_analysis_t a;
    git_merge_preference_t pref;
    const git_annotated_commit *heads[] = {p->theirs};
    if (git_merge_analysis_for_ref(&a, &pref, p->repo, p->head, heads, 1) != 0)
        return failed(err, root, "comparing the branch with its upstream");
    if (a & GIT_MERGE_ANALYSIS_UP_TO_DATE) {
        snprintf(what, cap, "already up to date");
        return 0;
    }
    if (!(a & GIT_MERGE_ANALYSIS_FASTFORWARD))
        return refuse(err, root, "not a fast-forward: the branch and its upstream have diverged (merge or rebase "
                      "by hand)");
    return fast_forward(p, &theirs, root, what, cap, err);
}

static void pull_release(struct pull *p)
{
    git_reference_free(p->moved);
    git_commit_free(p->commit);
    git_annotated_commit_free(p->theirs);
    git_status_list_free(p->status);
    git_remote_free(p->remote);
    for (size_t i = 0; i < p->nspecs; i++) free(p->specs[i]);
    git_buf_dispose(&p->remote_name);
    git_buf_dispose(&p->merge);
    git_buf_dispose(&p->url);
    git_buf_dispose(&p->upstream);
    git_reference_free(p->head);
    git_config_free(p->cfg);
    git_repository_free(p->repo);
}

int mg_hook_pull_ff(const char *root, const volatile int *stop, char *what, size_t cap, struct mg_err *err)
{
    mg_hook_git_ready();
    struct pull p = {.stop = stop};
    what[0] = 0;
    int rc = -1;
    char prefix[PATH_MAX];
    struct mg_err ge = {0};
    int g = mg_git_open(root, &p.repo, prefix, &ge);
    if (g == 0) refuse(err, root, "it is not a git working copy");
    else if (g < 0) refuse(err, root, "its git metadata lies outside it (a .git file, a commondir file or alternates)");
    else if (check_head(&p, root, err) == 0 && check_clean(&p, root, err) == 0 && fetch(&p, root, err) == 0)
        rc = merge(&p, root, what, cap, err);
    pull_release(&p);
    return rc;
}

bool mg_hook_pull_wanted(const struct mg_repo *r)
{
    return r->settings.pull_on_push; /* as the catalog listed it (store/catalog.h) */
}
