/* gate.c — the SecurityGate (gate.h).
 *
 * Sections:
 *   1. binding: the client's roots and a bound root indexed on first use
 *   2. resolution: repos and the effective scope into the context
 *   3. the inputs an operation stores
 *   4. running an operation
 * (The guardrail and the cleaning of items are gate_clean.c's; the audit
 * event is gate_audit.c's.)
 */
#include "request/gate_int.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "request/ops.h"
#include "request/resolve.h"
#include "security/sanitize.h"

/* ---- 1. binding ----------------------------------------------------------------------------------- */

/* The binder's ask_roots: the request's channel asks the client. */
static int ask_roots(void *ctx, char ***paths, size_t *n, struct mg_err *err)
{
    struct mg_ctx *x = ctx;
    return x->channel->roots(x->channel, paths, n, err);
}

/* The binder's bind_root: the session's root as a repo the caller can see,
 * indexing it first when it is not indexed yet: 0 and its id, -1 with err. */
static int bind_root(void *ctx, const char *root, char id[MG_ID_MAX + 1], struct mg_err *err)
{
    struct mg_ctx *x = ctx;
    struct mg_repo repo;
    char canon[PATH_MAX];
    if (!realpath(root, canon))
        return mg_err_set(err, MG_E_PATH_NOT_FOUND, "the client's root '%s' does not exist here (%s); pass `repo` to "
                          "choose an indexed repo", root, strerror(errno));
    int in = mg_resolve_containing(x, canon, &repo, err);
    if (in < 0) return -1;
    if (in == 0) {
        if (x->who.level < MG_LEVEL_ADMIN)
            return mg_err_set(err, MG_E_SCOPE_FORBIDDEN, "the client's root '%s' is not indexed, and indexing a new "
                              "directory needs an admin token; pass `repo` to choose an indexed repo", canon);
        mg_request_log(x, "info", "indexing %s", canon);
        struct mg_index_query q = {.path = canon};
        struct mg_items items;
        struct mg_target none = {0};
        if (mg_gate_run(x, &mg_op_code_index, &none, &q, &items, err) != 0) return -1;
        int rc = -1;
        if (items.n == 1) {
            const struct mg_index_run *r = (const struct mg_index_run *)items.v[0];
            mg_request_log(x, "info", "indexed %s as %s: %lld files in %.1f s", canon, r->base.own.repo,
                           (long long)r->total_files, r->seconds);
            rc = mg_resolve_named(x, r->base.own.repo, &repo, err);
        } else {
            mg_err_set(err, MG_E_INTERNAL, "indexing '%s' answered no index run", canon);
        }
        mg_items_release(&items);
        if (rc != 0) return -1;
    }
    snprintf(id, MG_ID_MAX + 1, "%s", repo.id);
    return 0;
}

/* Settle the session's binding before resolving (request/session.h): ask
 * for roots when they are unknown and the channel can ask, and bind a root
 * not bound yet. */
static int settle(struct mg_ctx *x, struct mg_err *err)
{
    struct mg_binder b = {.ctx = x, .ask_roots = x->channel && x->channel->roots ? ask_roots : NULL,
                          .bind_root = bind_root};
    return mg_session_settle(x->session, &b, err);
}

/* ---- 2. resolution ----------------------------------------------------------------------------------- */

static int scope_list_copy(char ***dst, size_t *dn, char *const *src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (mg_scope_push(dst, dn, src[i]) != 0) return -1;
    return 0;
}

/* The effective scope: the session's lists (as the request's snapshot has
 * them), each replaced by the call's own when it gave one; the repos are
 * the resolved ones. */
static int effective_scope(struct mg_ctx *x, const struct mg_scope *session, const struct mg_target *t,
                           struct mg_err *err)
{
    const struct mg_scope sess = *session;
    struct mg_scope *e = &x->scope;
    const struct mg_scope *a = t ? t->scope : NULL;
    unsigned given = a ? t->given : 0;
    int rc = 0;
    rc |= given & MG_GIVEN_GLOBS ? scope_list_copy(&e->globs, &e->nglobs, a->globs, a->nglobs)
                                 : scope_list_copy(&e->globs, &e->nglobs, sess.globs, sess.nglobs);
    rc |= given & MG_GIVEN_EXCLUDES ? scope_list_copy(&e->excludes, &e->nexcludes, a->excludes, a->nexcludes)
                                    : scope_list_copy(&e->excludes, &e->nexcludes, sess.excludes, sess.nexcludes);
    rc |= given & MG_GIVEN_LANGS ? scope_list_copy(&e->langs, &e->nlangs, a->langs, a->nlangs)
                                 : scope_list_copy(&e->langs, &e->nlangs, sess.langs, sess.nlangs);
    for (size_t i = 0; i < x->nrepos; i++) rc |= mg_scope_push(&e->repos, &e->nrepos, x->repos[i].id);
    return rc ? mg_err_oom(err) : 0;
}

static void record_repos(struct mg_ctx *x)
{
    char *p = x->audit.repo;
    size_t cap = sizeof(x->audit.repo), len = 0;
    p[0] = 0;
    for (size_t i = 0; i < x->nrepos && len + 1 < cap; i++) {
        int w = snprintf(p + len, cap - len, "%s%s", i ? "," : "", x->repos[i].id);
        if (w < 0) break;
        len += (size_t)w;
    }
}

int mg_gate_resolve(struct mg_ctx *x, const struct mg_target *t, enum mg_op_repos want, struct mg_err *err)
{
    if (!x->resolved) {
        const char *repo = t ? t->repo : NULL;
        /* the session as it is now: settling changes its binding, so look again after */
        struct mg_session_snap snap;
        if (mg_session_snapshot(x->session, &snap, err) != 0) return -1;
        if (!repo && !x->repo_header && snap.scope.nrepos == 0) {
            mg_session_snap_release(&snap);
            if (settle(x, err) != 0 || mg_session_snapshot(x->session, &snap, err) != 0) return -1;
        }
        bool named;
        int rc = mg_resolve(x, &snap, repo, &x->repos, &x->nrepos, &named, err);
        /* the cross-repo policy (tenant and allowlist were applied while resolving) */
        if (rc == 0 && mg_access_repos(&x->who, x->srv->cfg.cross_repo, x->repos, &x->nrepos, named, err) != 0) {
            free(x->repos);
            x->repos = NULL;
            x->nrepos = 0;
            rc = -1;
        }
        if (rc == 0) rc = effective_scope(x, &snap.scope, t, err);
        mg_session_snap_release(&snap);
        if (rc != 0) return -1;
        x->resolved = true;
        record_repos(x);
    }
    if (want == MG_REPOS_ONE && x->nrepos != 1)
        return mg_err_set(err, MG_E_REPO_REQUIRED, "this needs one repo and the session scope names %zu; pass `repo`",
                          x->nrepos);
    return 0;
}

/* ---- 3. the inputs an operation stores ------------------------------------------------------------------- */

#define INPUTS_ITEMS_MAX 1024 /* per-item redaction counts kept (MG_ENTITIES_MAX fits) */

struct inputs {
    struct mg_ctx *x;
    struct mg_err *err;
    bool failed;
    struct {
        const char **slot;  /* an argument pointing to ... */
        const char *orig;   /* ... instead of this, during the call ... */
        char *copy;         /* ... this cleaned copy */
    } *owned;
    size_t nowned, capowned;
    int redactions;
    int per_item[INPUTS_ITEMS_MAX];
    unsigned flags;
    struct mg_injinfo inj;
};

/* An argument that reads like an instruction to the model: flagged, kept. */
static void input_injection(struct inputs *in, const char *s, size_t n)
{
    struct mg_inj r;
    if (mg_injection_check(s, n, &r) < MG_INJ_FLAG) return;
    in->flags |= MG_ITEM_INJECTION;
    mg_injinfo_add(&in->inj, &(struct mg_injinfo){r.score, r.reasons});
}

int mg_gate_identifier(const struct mg_config *cfg, const char *what, const char *s, struct mg_err *err)
{
    struct mg_buf red;
    mg_buf_init(&red, (size_t)1 << 30);
    int nred = 0;
    int rc = mg_gate_redact(cfg, s, strlen(s), &red, &nred);
    mg_buf_release(&red);
    if (rc != 0)
        return mg_err_set(err, MG_E_INTERNAL, "the secret scan of `%s` failed; nothing was stored (see the server log)",
                          what);
    if (nred)
        return mg_err_set(err, MG_E_SECRET_IN_IDENTIFIER, "`%s` holds what looks like a secret; memgate stores no "
                          "secrets, and an identifier is stored as given, so it cannot be redacted: choose one "
                          "without it", what);
    return 0;
}

static void check_input(void *ud, const char **slot, enum mg_input_kind kind, const char *what, size_t item)
{
    struct inputs *in = ud;
    const char *s = *slot;
    if (in->failed || !s) return;
    size_t n = strlen(s);
    if (kind == MG_IN_ID) {
        char named[96]; /* "entities[].name" of item 3 is entities[3].name */
        const char *br = strstr(what, "[]");
        if (br) snprintf(named, sizeof(named), "%.*s[%zu]%s", (int)(br - what), what, item, br + 2);
        if (mg_gate_identifier(&in->x->srv->cfg, br ? named : what, s, in->err) != 0) in->failed = true;
        else input_injection(in, s, n);
        return;
    }
    struct mg_buf red;
    mg_buf_init(&red, (size_t)1 << 30);
    int nred = 0;
    if (mg_gate_redact(&in->x->srv->cfg, s, n, &red, &nred) != 0) {
        in->failed = true;
        mg_err_set(in->err, MG_E_INTERNAL, "the secret scan of `%s` failed; nothing was stored (see the server log)",
                   what);
    } else if (nred) {
        char *copy = mg_buf_detach(&red, NULL);
        void *grown = in->nowned == in->capowned ? realloc(in->owned, (in->capowned * 2 + 8) * sizeof(*in->owned))
                                                 : in->owned;
        if (!copy || !grown) {
            free(copy);
            if (grown) in->owned = grown;
            in->failed = true;
            mg_err_set(in->err, MG_E_NO_MEMORY, "out of memory cleaning `%s`; nothing was stored", what);
        } else {
            if (grown != in->owned) {
                in->owned = grown;
                in->capowned = in->capowned * 2 + 8;
            }
            in->owned[in->nowned].slot = slot;
            in->owned[in->nowned].orig = s;
            in->owned[in->nowned++].copy = copy;
            *slot = copy;
            in->redactions += nred;
            if (item < INPUTS_ITEMS_MAX) in->per_item[item] += nred;
        }
    }
    if (!in->failed) input_injection(in, s, n);
    mg_buf_release(&red);
}

/* The arguments point to the caller's strings again. */
static void inputs_release(struct inputs *in)
{
    for (size_t i = in->nowned; i-- > 0;) {
        *in->owned[i].slot = in->owned[i].orig;
        free(in->owned[i].copy);
    }
    free(in->owned);
}

/* ---- 4. running an operation ------------------------------------------------------------------------------ */

/* The shared catalog (store/catalog.h): an operation that reads indexes
 * needs this daemon's index of each repo. One behind the catalog is read,
 * and the request says stale; with storage_stale = wait the gate first waits
 * (storage_stale_wait seconds at most, within the request's deadline) for
 * the follower's catch-up run, as it does for a first index being built. */
static int check_copies(struct mg_ctx *x, const struct mg_repo *repos, size_t n, struct mg_err *err)
{
    const struct mg_config *cfg = &x->srv->cfg;
    bool wait = strcmp(cfg->storage_stale, "wait") == 0 && cfg->storage_stale_wait > 0;
    for (size_t i = 0; i < n; i++) {
        struct mg_repo r = repos[i];
        if (wait && (r.copy == MG_COPY_BEHIND || r.copy == MG_COPY_PENDING || r.copy == MG_COPY_CONFLICT)) {
            int64_t until = mg_now_ms() + (int64_t)cfg->storage_stale_wait * 1000;
            if (x->deadline_ms && x->deadline_ms < until) until = x->deadline_ms;
            if (mg_catalog_wait_current(cfg, r.id, until, &r, err) != 0) return -1;
        }
        switch (r.copy) {
        case MG_COPY_PENDING:
            return mg_err_set(err, MG_E_INDEX_NOT_LOCAL, "repo '%s' is in the shared catalog and this daemon is "
                              "building its own index of it from '%s' now; retry in a few seconds", r.id, r.root);
        case MG_COPY_ABSENT:
            return mg_err_set(err, MG_E_INDEX_NOT_LOCAL, "repo '%s' is in the shared catalog, but its working copy "
                              "'%s' is not on this daemon's machine, so it has no index of it; give every daemon a "
                              "working copy at that path (docs/index.md, \"Several daemons\"), or ask one that "
                              "has it", r.id, r.root);
        case MG_COPY_CONFLICT:
            return mg_err_set(err, MG_E_INDEX_NOT_LOCAL, "this daemon's index file of '%s' is of another tenant or "
                              "root than the shared catalog says, so it is not served; it is rebuilt from '%s' "
                              "(retry in a few seconds)", r.id, r.root);
        case MG_COPY_BEHIND:
            pthread_mutex_lock(&x->mu);
            size_t k = 0;
            while (k < x->nstale && strcmp(x->stale[k].id, r.id) != 0) k++;
            if (k < MG_STALE_MAX) {
                snprintf(x->stale[k].id, sizeof(x->stale[k].id), "%s", r.id);
                x->stale[k].generation = r.generation;
                x->stale[k].catalog_generation = r.catalog_generation;
                if (k == x->nstale) x->nstale++;
            }
            pthread_mutex_unlock(&x->mu);
            break;
        default: break;
        }
    }
    return 0;
}

static void pc_progress(void *ud, double done, double total, const char *message)
{
    mg_request_progress(ud, done, total, message);
}

int mg_gate_run(struct mg_ctx *x, const struct mg_op *op, const struct mg_target *t, void *args,
                struct mg_items *out, struct mg_err *err)
{
    mg_items_init(out);
    if (mg_access_level(&x->who, op->level, op->name, err) != 0) return -1;
    if (op->allow && op->allow(x, args, err) != 0) return -1;
    if (mg_request_expired(x))
        return mg_err_set(err, *x->stop ? MG_E_SHUTTING_DOWN : MG_E_TIMEOUT, "the request ran out of time before %s; "
                          "retry", op->name);
    static const struct mg_scope no_scope;
    struct mg_repo *visible = NULL;
    const struct mg_repo *repos = NULL;
    size_t nrepos = 0;
    switch (op->repos) {
    case MG_REPOS_NONE: break;
    case MG_REPOS_ONE:
    case MG_REPOS_SCOPE:
        if (mg_gate_resolve(x, t, op->repos, err) != 0) return -1;
        repos = x->repos;
        nrepos = x->nrepos;
        break;
    case MG_REPOS_VISIBLE:
        if (mg_resolve_visible(x, &visible, &nrepos, err) != 0) return -1;
        repos = visible;
        break;
    }
    if (op->reads_index && mg_catalog_shared(&x->srv->cfg) && check_copies(x, repos, nrepos, err) != 0) {
        free(visible);
        return -1;
    }
    struct mg_pcall pc = {
        .cfg = &x->srv->cfg,
        .tenant = x->who.tenant,
        .token = x->who.token_id[0] != 0,
        .repos = repos,
        .nrepos = nrepos,
        .scope = x->resolved ? &x->scope : &no_scope,
        .deadline_ms = x->deadline_ms,
        .stop = x->stop,
        .progress = x->channel && x->channel->progress ? pc_progress : NULL,
        .progress_ud = x,
        .index_reason = x->index_reason,
        .index_delivery = x->index_delivery[0] ? x->index_delivery : NULL,
    };
    struct inputs in = {.x = x, .err = err};
    if (op->inputs) op->inputs(args, check_input, &in);
    /* an index read waits its turn: search_concurrency requests read at once, the others queued in
     * arrival order; the request keeps its place until it is released, its answer written. Its parts
     * in parallel (get_context) wait for the first one's turn: one place, entered once. */
    if (!in.failed && op->reads_index && x->srv->reads) {
        pthread_mutex_lock(&x->read_mu);
        if (!x->reading && mg_admit_enter(x->srv->reads, &x->read_ticket, x->deadline_ms, x->stop) == 0)
            x->reading = true;
        if (!x->reading) {
            in.failed = true;
            mg_err_set(err, *x->stop ? MG_E_SHUTTING_DOWN : MG_E_TIMEOUT, "the request ran out of time waiting "
                       "for its turn to read the index (search_concurrency); retry");
        }
        pthread_mutex_unlock(&x->read_mu);
    }
    int rc = in.failed ? -1 : op->run(&x->srv->providers, &pc, args, out, err);
    inputs_release(&in);
    if (rc != 0) {
        mg_items_release(out);
        free(visible);
        if (!err->code) mg_err_set(err, MG_E_INTERNAL, "%s failed without saying why", op->name);
        /* an external provider's failure does not fail the request: its part is in the audit event, empty */
        if (mg_op_unpaged(op)) mg__gate_record_part(x, op, out);
        return -1;
    }
    mg__gate_guardrail(x, repos, nrepos, op->repos != MG_REPOS_NONE, out);
    free(visible);
    /* a page of the list: the items before it and past it go before they are cleaned */
    if (!mg_op_unpaged(op)) { /* an external provider's part runs beside the paged search */
        x->page.got = out->n;
        for (size_t k = 0; k < x->page.skip && out->n > 0; k++) mg_items_remove(out, 0);
        x->page.more = x->page.keep > 0 && out->n > x->page.keep;
        while (x->page.keep > 0 && out->n > x->page.keep) mg_items_remove(out, out->n - 1);
        x->page.skip = x->page.keep = 0;
    }
    mg_gate_clean(x, out);
    if (x->srv->on_indexed && (op == &mg_op_code_index || op == &mg_op_code_reindex))
        for (size_t i = 0; i < out->n; i++) {
            if (out->v[i]->type != &mg_item_index_run) continue;
            const struct mg_index_run *r = (const struct mg_index_run *)out->v[i];
            x->srv->on_indexed(r->base.own.tenant, r->repo, (long long)r->files,
                               (long long)(r->added + r->changed + r->removed));
        }
    /* what the inputs lost to redaction counts on the items they became */
    for (size_t i = 0; i < out->n && i < INPUTS_ITEMS_MAX; i++) out->v[i]->redactions += in.per_item[i];
    out->redactions += in.redactions;
    out->flags |= in.flags;
    mg_injinfo_add(&out->inj, &in.inj);
    mg__gate_record_part(x, op, out);
    return 0;
}

