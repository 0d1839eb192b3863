/* gate.c — the SecurityGate (gate.h).
 *
 * Sections:
 *   1. binding: the client's roots and a bound root indexed on first use
 *   2. resolution: repos and the effective scope into the context
 *   3. the guardrail
 *   4. cleaning the items: redaction, sanitisation, flags, caps, attribution
 *   5. the inputs an operation stores
 *   6. running an operation
 *   7. audit
 */
#include "request/gate.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "request/ops.h"
#include "request/resolve.h"
#include "request/session.h"
#include "security/audit.h"
#include "security/sanitize.h"
#include "security/secrets.h"
#include "util/buf.h"
#include "util/metrics.h"
#include "util/utf8.h"

static void record_part(struct mg_ctx *x, const struct mg_op *op, const struct mg_items *out);

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

/* ---- 3. the guardrail ---------------------------------------------------------------------------------- */

static const struct mg_repo *find_repo(const struct mg_repo *v, size_t n, const char *id)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i].id, id) == 0) return &v[i];
    return NULL;
}

/* Is the item the request's? */
static bool owned(const struct mg_ctx *x, const struct mg_item *it, const struct mg_repo *repos, size_t nrepos,
                  bool check_repo, const struct mg_place *place)
{
    unsigned own = it->type->owner;
    if ((own & MG_OWN_TENANT) && strcmp(it->own.tenant, x->who.tenant) != 0) return false;
    if ((own & MG_OWN_REPO) && check_repo) {
        const struct mg_repo *r = find_repo(repos, nrepos, it->own.repo);
        if (!r) return false;
        if (it->own.fp[0] && strcmp(it->own.fp, r->fingerprint) != 0) return false;
    }
    if ((own & MG_OWN_PROJECT) && place && it->own.project != place->base.own.project) return false;
    return true;
}

static void drop(struct mg_ctx *x, const char *kind, size_t n)
{
    if (!n) return;
    mg_metrics_isolation_drop(kind, n);
    fprintf(stderr, "memgate: warning: dropped %zu %s rows from outside the request's scope (session %s)\n", n, kind,
            mg_session_id(x->session));
    /* its own durable security event, besides the request's */
    const char *flags[1] = {kind};
    struct mg_audit_event ev = {.tenant = x->who.tenant, .instance = x->instance, .session = mg_session_id(x->session),
                                .op = "isolation_drop", .results = (long long)n, .flags = flags, .nflags = 1,
                                .status = "ok", .durable = true,
                                .request_id = x->request_id[0] ? x->request_id : NULL};
    struct mg_err err = {0};
    if (x->srv->audit && mg_audit_emit(x->srv->audit, &ev, &err) != 0)
        fprintf(stderr, "memgate: warning: audit event 'isolation_drop' not written: %s\n", err.msg);
}

static void guardrail(struct mg_ctx *x, const struct mg_repo *repos, size_t nrepos, bool check_repo,
                      struct mg_items *out)
{
    if (out->place && !owned(x, &out->place->base, repos, nrepos, check_repo, NULL)) {
        /* the place is the provider's own account of the request: if it is not the request's, nothing is */
        drop(x, "place", 1);
        out->dropped += out->n;
        while (out->n) mg_items_remove(out, out->n - 1);
        return;
    }
    for (size_t i = 0; i < out->n;) {
        const struct mg_item *it = out->v[i];
        if (owned(x, it, repos, nrepos, check_repo, out->place)) {
            i++;
            continue;
        }
        drop(x, it->type->name, 1);
        out->dropped++;
        mg_items_remove(out, i);
    }
    if (out->foreign) {
        drop(x, out->foreign_kind ? out->foreign_kind : "other", out->foreign);
        out->dropped += out->foreign;
    }
}

/* ---- 4. cleaning ---------------------------------------------------------------------------------------- */

int mg_gate_redact(const struct mg_config *cfg, const char *s, size_t n, struct mg_buf *out, int *nred)
{
    struct mg_err err = {0};
    struct mg_secret_policy p;
    mg_secret_policy(cfg, &p);
    const struct mg_scanner *sc = mg_secrets_scanner(cfg, &err);
    *nred = 0;
    if (!sc || mg_secrets_apply(sc, &p, s, n, out, nred, NULL, NULL, &err) != 0) {
        fprintf(stderr, "memgate: warning: secret scan failed (error[%s]: %s); the text is withheld\n",
                err.code ? err.code : MG_E_INTERNAL, err.msg);
        return -1;
    }
    return 0;
}

struct clean {
    struct mg_ctx *x;
    size_t left;        /* bytes of text the response may still carry */
    bool scan;          /* run the secret scan field by field (the whole response had a finding) */
    bool inject;        /* check each field for injection (the whole response had a hit) */
};

/* Clean one string in place (*ps); cap is the most bytes it may keep. */
static void clean_string(struct clean *C, struct mg_item *it, char **ps, size_t cap, bool text)
{
    char *s = *ps;
    size_t n = strlen(s);
    struct mg_inj r;
    if (C->inject && mg_injection_check(s, n, &r) >= MG_INJ_FLAG) {
        it->flags |= MG_ITEM_INJECTION;
        mg_injinfo_add(&it->inj, &(struct mg_injinfo){r.score, r.reasons});
    }
    struct mg_buf red, out;
    mg_buf_init(&red, (size_t)1 << 30);
    mg_buf_init(&out, (size_t)1 << 30);
    const char *src = s;
    size_t srcn = n;
    if (C->scan) {
        int here = 0;
        if (mg_gate_redact(&C->x->srv->cfg, s, n, &red, &here) != 0) { /* never serve text that was not scanned */
            srcn = 0;
            it->flags |= MG_ITEM_TRUNCATED;
        } else if (here) {
            src = red.p;
            srcn = red.len;
            it->redactions += here;
        }
    }
    unsigned found = 0;
    if (mg_sanitize(src, srcn, &out, &found) != 0) { /* out of memory: serve nothing rather than unfiltered text */
        mg_buf_reset(&out);
        found = 0;
    }
    if (found & MG_SAN_HIDDEN) it->flags |= MG_ITEM_HIDDEN;
    if (found & (MG_SAN_ESCAPES | MG_SAN_MARKERS)) it->flags |= MG_ITEM_ESCAPES;
    if (text && cap > C->left) cap = C->left;
    size_t keep = out.len > cap ? mg_utf8_cut(out.p, out.len, cap) : out.len;
    if (keep < out.len) it->flags |= MG_ITEM_TRUNCATED;
    if (text) C->left -= keep;
    char *clean = malloc(keep + 1);
    if (clean) {
        memcpy(clean, out.p ? out.p : "", keep);
        clean[keep] = 0;
        free(s);
        *ps = clean;
    } else { /* no memory for the copy: cut the original in place (it is not clean: serve nothing) */
        s[0] = 0;
        it->flags |= MG_ITEM_TRUNCATED;
    }
    mg_buf_release(&red);
    mg_buf_release(&out);
}

static bool has_text(const struct mg_item_type *t)
{
    for (size_t i = 0; i < t->nfields; i++)
        if (t->fields[i].kind == MG_F_TEXT || t->fields[i].kind == MG_F_LINES) return true;
    return false;
}

/* "path:line", "note:KEY", "episode:42" */
static void attribute(struct mg_item *it)
{
    const struct mg_item_type *t = it->type;
    if (t->source_field < 0 || !has_text(t)) return;
    const struct mg_field *f = &t->fields[t->source_field];
    char buf[MG_LABEL_MAX + 96];
    char what[MG_LABEL_MAX + 32] = "";
    if (f->kind == MG_F_INT) snprintf(what, sizeof(what), "%lld", (long long)mg_item_int(it, f));
    else if (f->kind == MG_F_LABEL && *mg_item_text(it, f)) snprintf(what, sizeof(what), "%s", *mg_item_text(it, f));
    const char *origin = t == &mg_item_code_hit ? ((struct mg_code_hit *)it)->provider : NULL;
    if (t->source_prefix) {
        snprintf(buf, sizeof(buf), "%s:%s", t->source_prefix, what);
    } else {
        long long line = t->line_field >= 0 ? (long long)mg_item_int(it, &t->fields[t->line_field]) : 1;
        if (origin && *origin) snprintf(buf, sizeof(buf), "%.64s:%s:%lld", origin, what, line > 0 ? line : 1);
        else snprintf(buf, sizeof(buf), "%s:%lld", what, line > 0 ? line : 1);
    }
    free(it->source);
    it->source = strdup(buf);
}

static void clean_item(struct clean *C, struct mg_item *it)
{
    const struct mg_item_type *t = it->type;
    for (size_t i = 0; i < t->nfields; i++) {
        const struct mg_field *f = &t->fields[i];
        if (f->kind == MG_F_TEXT || f->kind == MG_F_LABEL) {
            char **ps = mg_item_text(it, f);
            if (*ps) clean_string(C, it, ps, f->kind == MG_F_TEXT ? C->x->srv->cfg.max_chunk_bytes : MG_LABEL_MAX,
                                  f->kind == MG_F_TEXT);
        } else if (f->kind == MG_F_TAGS) {
            size_t *n;
            char ***v = mg_item_tags(it, f, &n);
            for (size_t k = 0; k < *n; k++)
                if ((*v)[k]) clean_string(C, it, &(*v)[k], MG_LABEL_MAX, false);
        }
    }
    attribute(it);
    it->gated = true;
}

/* An item's lines (MG_F_LINES): cleaned as text, after every item's other
 * fields, so that they never crowd whole items out of the response; when
 * the response's cap is reached the rest of them are left out and counted. */
static void clean_lines(struct clean *C, struct mg_item *it)
{
    const struct mg_item_type *t = it->type;
    for (size_t i = 0; i < t->nfields; i++) {
        if (t->fields[i].kind != MG_F_LINES) continue;
        struct mg_lines *l = mg_item_lines(it, &t->fields[i]);
        for (size_t k = 0; k < l->n; k++) {
            if (C->left == 0) {
                l->omitted += (int64_t)(l->n - k);
                mg_lines_cut(l, k);
                it->flags |= MG_ITEM_TRUNCATED;
                break;
            }
            if (!l->v[k].text && !(l->v[k].text = strdup(""))) {
                l->omitted += (int64_t)(l->n - k);
                mg_lines_cut(l, k);
                break;
            }
            clean_string(C, it, &l->v[k].text, C->x->srv->cfg.max_chunk_bytes, true);
        }
    }
}

/* Append every string of the items to b, one per line (for the pre-scans). */
static void gather(struct mg_buf *b, struct mg_item *it)
{
    const struct mg_item_type *t = it->type;
    for (size_t i = 0; i < t->nfields; i++) {
        const struct mg_field *f = &t->fields[i];
        if ((f->kind == MG_F_TEXT || f->kind == MG_F_LABEL) && *mg_item_text(it, f)) {
            mg_buf_adds(b, *mg_item_text(it, f));
            mg_buf_adds(b, "\n\n");
        } else if (f->kind == MG_F_TAGS) {
            size_t *n;
            char ***v = mg_item_tags(it, f, &n);
            for (size_t k = 0; k < *n; k++) {
                if ((*v)[k]) mg_buf_adds(b, (*v)[k]);
                mg_buf_adds(b, "\n\n");
            }
        } else if (f->kind == MG_F_LINES) {
            struct mg_lines *l = mg_item_lines(it, f);
            for (size_t k = 0; k < l->n; k++) {
                if (l->v[k].text) mg_buf_adds(b, l->v[k].text);
                mg_buf_adds(b, "\n\n");
            }
        }
    }
}

/* Redaction and the injection check cost a scan each; one scan of all the
 * response's strings, one per line, says whether any field needs its own. */
static void prescan(struct clean *C, struct mg_items *l)
{
    struct mg_buf all;
    mg_buf_init(&all, (size_t)1 << 30);
    if (l->place) gather(&all, &l->place->base);
    for (size_t i = 0; i < l->n; i++) gather(&all, l->v[i]);
    C->scan = C->inject = true; /* when in doubt (out of memory), field by field */
    if (all.p) {
        struct mg_buf red;
        mg_buf_init(&red, (size_t)1 << 30);
        int n = 0;
        if (mg_gate_redact(&C->x->srv->cfg, all.p, all.len, &red, &n) == 0) C->scan = n > 0;
        mg_buf_release(&red);
        C->inject = mg_injection(all.p, all.len);
    }
    mg_buf_release(&all);
}

static void clean_items(struct mg_ctx *x, struct mg_items *l)
{
    struct clean C = {.x = x, .left = x->srv->cfg.max_context_bytes};
    prescan(&C, l);
    if (l->place) clean_item(&C, &l->place->base);
    for (size_t i = 0; i < l->n;) {
        struct mg_item *it = l->v[i];
        if (C.left == 0 && has_text(it->type)) { /* over the response's cap: the rest of the list goes */
            mg_items_remove(l, i);
            l->omitted++;
            l->flags |= MG_ITEM_TRUNCATED;
            continue;
        }
        clean_item(&C, it);
        i++;
    }
    for (size_t i = 0; i < l->n; i++) { /* the items' lines, with what budget is left */
        struct mg_item *it = l->v[i];
        clean_lines(&C, it);
        l->redactions += it->redactions;
        l->flags |= it->flags;
        mg_injinfo_add(&l->inj, &it->inj);
    }
}

void mg_gate_clean(struct mg_ctx *x, struct mg_items *items) { clean_items(x, items); }

/* ---- 5. the inputs an operation stores ------------------------------------------------------------------- */

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

/* ---- 6. running an operation ------------------------------------------------------------------------------ */

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
    int rc = in.failed ? -1 : op->run(&x->srv->providers, &pc, args, out, err);
    inputs_release(&in);
    if (rc != 0) {
        mg_items_release(out);
        free(visible);
        if (!err->code) mg_err_set(err, MG_E_INTERNAL, "%s failed without saying why", op->name);
        /* an external provider's failure does not fail the request: its part is in the audit event, empty */
        if (mg_op_unpaged(op)) record_part(x, op, out);
        return -1;
    }
    guardrail(x, repos, nrepos, op->repos != MG_REPOS_NONE, out);
    free(visible);
    /* a page of the list: the items before it and past it go before they are cleaned */
    if (!mg_op_unpaged(op)) { /* an external provider's part runs beside the paged search */
        x->page.got = out->n;
        for (size_t k = 0; k < x->page.skip && out->n > 0; k++) mg_items_remove(out, 0);
        x->page.more = x->page.keep > 0 && out->n > x->page.keep;
        while (x->page.keep > 0 && out->n > x->page.keep) mg_items_remove(out, out->n - 1);
        x->page.skip = x->page.keep = 0;
    }
    clean_items(x, out);
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
    record_part(x, op, out);
    return 0;
}

/* ---- 7. audit -------------------------------------------------------------------------------------------- */

static void record_part(struct mg_ctx *x, const struct mg_op *op, const struct mg_items *out)
{
    pthread_mutex_lock(&x->mu);
    struct mg_audit_rec *a = &x->audit;
    a->results += (long long)out->n;
    a->redactions += out->redactions;
    a->flags |= out->flags;
    mg_injinfo_add(&a->inj, &out->inj);
    a->dropped += out->dropped;
    a->write |= op->write;
    if (!a->repo[0] && out->n && out->v[0]->own.repo[0]) /* an index run: the repo it made */
        snprintf(a->repo, sizeof(a->repo), "%s", out->v[0]->own.repo);
    if (a->nparts < MG_AUDIT_PARTS_MAX) {
        a->parts[a->nparts].name = op->name;
        a->parts[a->nparts].results = (long long)out->n;
        a->nparts++;
    }
    pthread_mutex_unlock(&x->mu);
}

void mg_gate_subject(struct mg_ctx *x, const char *subject)
{
    pthread_mutex_lock(&x->mu);
    free(x->audit.subject);
    x->audit.subject = subject ? strdup(subject) : NULL;
    pthread_mutex_unlock(&x->mu);
}

/* Successful reads: their events need not be synced to disk one by one
 * (audit_fsync = writes); every other event is a write or a security event.
 * 0, or -1 with failed (may be NULL) saying why it was not written. */
static int write_event(struct mg_server *srv, struct mg_audit_event *ev, struct mg_err *failed)
{
    if (!srv->audit) return 0;
    struct mg_buf red; /* a query may quote a secret: the log keeps it redacted */
    mg_buf_init(&red, 1 << 20);
    int nq = 0;
    if (ev->query && mg_gate_redact(&srv->cfg, ev->query, strlen(ev->query), &red, &nq) != 0) ev->query = "[unscanned]";
    else if (nq) ev->query = red.p;
    struct mg_err err = {0};
    int rc = mg_audit_emit(srv->audit, ev, &err);
    if (rc != 0) {
        fprintf(stderr, "memgate: warning: audit event '%s' not written: error[%s]: %s\n", ev->op,
                err.code ? err.code : MG_E_INTERNAL, err.msg);
        if (failed) *failed = err;
    }
    mg_buf_release(&red);
    return rc;
}

void mg_gate_audit(struct mg_server *srv, struct mg_audit_event *ev) { write_event(srv, ev, NULL); }

/* Clean an error's sentence like served text: it may quote the caller's input. */
static void clean_error(struct mg_ctx *x, struct mg_err *err)
{
    size_t n = strlen(err->msg);
    if (!n) return;
    struct mg_buf red, out;
    mg_buf_init(&red, sizeof(err->msg) * 4);
    mg_buf_init(&out, sizeof(err->msg) * 4);
    int nred = 0;
    const char *s = err->msg;
    size_t sn = n;
    if (mg_gate_redact(&x->srv->cfg, s, n, &red, &nred) != 0) {
        s = "(the error's text could not be scanned)";
        sn = strlen(s);
    } else if (nred) {
        s = red.p;
        sn = red.len;
    }
    if (mg_sanitize(s, sn, &out, NULL) == 0 && out.p) {
        size_t keep = mg_utf8_cut(out.p, out.len, sizeof(err->msg) - 1);
        memcpy(err->msg, out.p, keep);
        err->msg[keep] = 0;
    }
    mg_buf_release(&red);
    mg_buf_release(&out);
}

void mg_gate_finish(struct mg_ctx *x, int rc, struct mg_err *err)
{
    if (rc != 0 && err) {
        if (!err->code) err->code = MG_E_INTERNAL;
        clean_error(x, err);
    }
    pthread_mutex_lock(&x->mu);
    struct mg_audit_rec *a = &x->audit;
    if (a->done) {
        pthread_mutex_unlock(&x->mu);
        return;
    }
    a->done = true;
    const char *flags[6];
    size_t nf = 0;
    if (a->flag) flags[nf++] = a->flag;
    if (a->flags & MG_ITEM_INJECTION) flags[nf++] = "prompt_injection";
    if (a->flags & MG_ITEM_HIDDEN) flags[nf++] = "hidden_text";
    if (a->flags & MG_ITEM_ESCAPES) flags[nf++] = "control_sequences";
    if (a->flags & MG_ITEM_TRUNCATED) flags[nf++] = "truncated";
    if (a->dropped) flags[nf++] = "isolation_drop";
    const char *why[16];
    size_t nwhy = (a->flags & MG_ITEM_INJECTION) ? mg_inj_reason_names(a->inj.reasons, why, 16) : 0;
    struct mg_audit_part parts[MG_AUDIT_PARTS_MAX];
    for (size_t i = 0; i < a->nparts; i++) parts[i] = (struct mg_audit_part){a->parts[i].name, a->parts[i].results};
    const char *code = rc != 0 ? (err && err->code ? err->code : MG_E_INTERNAL) : NULL;
    struct mg_audit_event ev = {
        .tenant = x->who.tenant[0] ? x->who.tenant : NULL,
        .instance = x->instance,
        .session = mg_session_id(x->session),
        .repo = a->repo[0] ? a->repo : NULL,
        .op = a->op[0] ? a->op : "request",
        .query = a->subject,
        .results = a->results,
        .redactions = a->redactions,
        .flags = nf ? flags : NULL,
        .nflags = nf,
        .parts = a->nparts > 1 ? parts : NULL,
        .nparts = a->nparts > 1 ? a->nparts : 0,
        .code = code,
        .status = code ? "error" : "ok",
        .injection_score = (a->flags & MG_ITEM_INJECTION) ? a->inj.score : 0,
        .injection_reasons = why,
        .ninjection_reasons = nwhy,
        .durable = code || nf || a->redactions || a->write,
        .request_id = x->request_id[0] ? x->request_id : NULL,
    };
    mg_metrics_served(a->redactions, (a->flags & MG_ITEM_INJECTION) != 0);
    pthread_mutex_unlock(&x->mu);
    struct mg_err failed = {0};
    bool unwritten = write_event(x->srv, &ev, &failed) != 0;
    pthread_mutex_lock(&x->mu);
    a->unwritten = unwritten;
    a->failed = failed;
    pthread_mutex_unlock(&x->mu);
}

int mg_gate_audited(struct mg_ctx *x, struct mg_err *err)
{
    pthread_mutex_lock(&x->mu);
    bool unwritten = x->audit.unwritten;
    struct mg_err why = x->audit.failed;
    pthread_mutex_unlock(&x->mu);
    if (!unwritten) return 0;
    return mg_err_set(err, why.code ? why.code : MG_E_INTERNAL, "the call ran, but its audit event could not be "
                      "written, so its answer is withheld (a write may have taken effect): %s; retry when the "
                      "audit log can be written again", why.msg);
}

struct refusal {
    int64_t start;  /* its interval began (monotonic ms); 0: the slot is free */
    int each;       /* refusals like it written one by one in the interval */
    long long more; /* ... and counted after those */
    char tenant[65], op[65], code[65], what[160];
    char request_id[MG_REQUEST_ID_MAX + 1]; /* the refused request's; a count of several names none */
};

struct mg_refusals {
    pthread_mutex_t mu;
    int64_t window;  /* the interval in which `written` counts */
    int written;     /* events written at once in it */
    struct refusal slot[MG_REFUSAL_SLOTS];
};

struct mg_refusals *mg_refusals_new(void)
{
    struct mg_refusals *t = calloc(1, sizeof(*t));
    if (t) pthread_mutex_init(&t->mu, NULL);
    return t;
}

static void refusal_write(struct mg_server *srv, const struct refusal *f, long long repeated)
{
    struct mg_audit_event ev = {.tenant = f->tenant[0] ? f->tenant : NULL, .op = f->op, .query = f->what,
                                .code = f->code, .status = "error", .durable = true, .repeated = repeated,
                                .request_id = !repeated && f->request_id[0] ? f->request_id : NULL};
    write_event(srv, &ev, NULL);
}

void mg_refusals_free(struct mg_server *srv)
{
    struct mg_refusals *t = srv->refusals;
    if (!t) return;
    for (size_t i = 0; i < MG_REFUSAL_SLOTS; i++)
        if (t->slot[i].start && t->slot[i].more) refusal_write(srv, &t->slot[i], t->slot[i].more);
    pthread_mutex_destroy(&t->mu);
    free(t);
    srv->refusals = NULL;
}

static bool refusal_is(const struct refusal *f, const char *tenant, const char *op, const char *what, const char *code)
{
    return f->start && strcmp(f->tenant, tenant) == 0 && strcmp(f->op, op) == 0 && strcmp(f->what, what) == 0 &&
           strcmp(f->code, code) == 0;
}

void mg_gate_refusal(struct mg_server *srv, const char *tenant, const char *op, const char *what, const char *code)
{
    struct mg_refusals *t = srv->refusals;
    struct refusal now_one = {0};
    snprintf(now_one.tenant, sizeof(now_one.tenant), "%s", tenant ? tenant : "");
    snprintf(now_one.op, sizeof(now_one.op), "%s", op);
    snprintf(now_one.code, sizeof(now_one.code), "%s", code ? code : MG_E_INTERNAL);
    snprintf(now_one.what, sizeof(now_one.what), "%s", what ? what : "");
    const char *rid = mg_request_id_current();
    snprintf(now_one.request_id, sizeof(now_one.request_id), "%s", rid ? rid : "");
    if (!t) {
        refusal_write(srv, &now_one, 0);
        return;
    }
    struct refusal *done = malloc(sizeof(t->slot)); /* intervals over: written outside the lock */
    size_t ndone = 0;
    bool write_now = false;
    pthread_mutex_lock(&t->mu);
    int64_t now = mg_now_ms();
    if (now - t->window >= MG_REFUSAL_WINDOW_MS) t->window = now, t->written = 0;
    struct refusal *hit = NULL, *free_slot = NULL, *oldest = NULL;
    for (size_t i = 0; i < MG_REFUSAL_SLOTS; i++) {
        struct refusal *f = &t->slot[i];
        if (f->start && now - f->start >= MG_REFUSAL_WINDOW_MS) {
            if (f->more && done) done[ndone++] = *f;
            f->start = 0;
        }
    }
    bool flood = t->written >= MG_REFUSAL_BURST;
    if (flood) snprintf(now_one.what, sizeof(now_one.what), "(more sources)"), now_one.tenant[0] = 0;
    for (size_t i = 0; i < MG_REFUSAL_SLOTS && !hit; i++) {
        struct refusal *f = &t->slot[i];
        if (refusal_is(f, now_one.tenant, now_one.op, now_one.what, now_one.code)) hit = f;
        else if (!f->start && !free_slot) free_slot = f;
        else if (f->start && (!oldest || f->start < oldest->start)) oldest = f;
    }
    if (hit && hit->each < MG_REFUSAL_EACH && !flood) {
        hit->each++;
        t->written++;
        write_now = true;
    } else if (hit) {
        hit->more++;
    } else {
        struct refusal *f = free_slot ? free_slot : oldest;
        if (f == oldest && f->more && done) done[ndone++] = *f; /* evicted: its count is written now */
        *f = now_one;
        f->start = now ? now : 1;
        f->more = flood; /* a flood's first is counted, not written at once */
        f->each = !flood;
        if (!flood) {
            t->written++;
            write_now = true;
        }
    }
    pthread_mutex_unlock(&t->mu);
    if (write_now) refusal_write(srv, &now_one, 0);
    for (size_t i = 0; i < ndone; i++) refusal_write(srv, &done[i], done[i].more);
    free(done);
}

int mg_gate_audit_query(struct mg_ctx *x, const struct mg_audit_filter *f, json_t **out, struct mg_err *err)
{
    snprintf(x->audit.op, sizeof(x->audit.op), "audit_read");
    if (mg_access_level(&x->who, MG_LEVEL_ADMIN, "reading the audit log", err) != 0) {
        mg_gate_finish(x, -1, err);
        return -1;
    }
    struct mg_audit_filter g = *f;
    if (x->who.token_id[0]) g.tenant = x->who.tenant; /* a token's admin sees its own tenant only */
    if (mg_audit_query(&x->srv->cfg, &g, out, err) != 0) {
        mg_gate_finish(x, -1, err);
        return -1;
    }
    mg_gate_subject(x, g.op);
    x->audit.results = (long long)json_array_size(*out);
    mg_gate_finish(x, 0, NULL);
    if (mg_gate_audited(x, err) != 0) { /* reading the log is an audited act too */
        json_decref(*out);
        *out = NULL;
        return -1;
    }
    return 0;
}

size_t mg_gate_injection_reasons(unsigned why, const char **names, size_t cap)
{
    return mg_inj_reason_names(why, names, cap);
}
