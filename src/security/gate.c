/* gate.c — the SecurityGate (gate.h). */
#include "security/gate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "security/audit.h"
#include "security/sanitize.h"
#include "security/secrets.h"
#include "security/token.h"
#include "util/metrics.h"
#include "server/server.h"
#include "util/buf.h"
#include "util/utf8.h"

/* ---- repo access -------------------------------------------------------------------- */

bool mg_gate_repo_visible(const struct mg_ctx *x, const struct mg_repo *r) { return mg_access_visible(x->who, r); }

int mg_gate_repos(struct mg_ctx *x, struct mg_repo *v, size_t *n, bool explicit_repo, struct mg_err *err)
{
    return mg_access_repos(x->who, x->srv->cfg.cross_repo, v, n, explicit_repo, err);
}

void mg_gate_drop(struct mg_ctx *x, const char *kind, size_t n)
{
    if (!n) return;
    mg_metrics_isolation_drop(kind, n);
    fprintf(stderr, "memgate: warning: dropped %zu %s rows from outside the request's scope (session %s)\n", n,
            kind, x->session->id);
    mg_gate_audit_event(x, "isolation_drop", NULL, NULL, (long long)n, 0, kind, NULL);
}

/* ---- result filtering ---------------------------------------------------------------- */

/* String members that carry retrieved text. */
static const char *const content_fields[] = {"snippet", "text", "value", "summary", "block", NULL};

struct filt {
    struct mg_ctx *x;
    size_t left;     /* bytes of text the response may still carry */
    int redactions;
    unsigned flags;
    size_t omitted;  /* items dropped for the response cap */
    bool any;        /* the result carried text at all */
};

static const char *content_field(json_t *o)
{
    for (const char *const *f = content_fields; *f; f++)
        if (json_is_string(json_object_get(o, *f))) return *f;
    return NULL;
}

/* Filter the text member `field` of item o. */
static void filter_item(struct filt *F, json_t *o, const char *field)
{
    json_t *sv = json_object_get(o, field);
    const char *s = json_string_value(sv);
    size_t n = json_string_length(sv);
    F->any = true;
    /* redactions a provider made before cutting the item from a larger text (read_file: the whole file) */
    int nred = (int)json_integer_value(json_object_get(o, "redactions"));
    bool inj = mg_injection(s, n);
    struct mg_buf red, out;
    mg_buf_init(&red, (size_t)1 << 30);
    mg_buf_init(&out, (size_t)1 << 30);
    int here = 0;
    if (mg_gate_redact(F->x, s, n, &red, &here) != 0) { /* never serve text that could not be scanned */
        s = "";
        n = 0;
        F->flags |= MG_GATE_F_TRUNCATED;
    } else if (here) {
        s = red.p;
        n = red.len;
    }
    nred += here;
    F->redactions += nred;
    unsigned found = 0;
    if (mg_sanitize(s, n, &out, &found) != 0) {
        mg_buf_reset(&out); /* out of memory: serve nothing rather than unfiltered text */
        found = 0;
    }
    if (found & MG_SAN_HIDDEN) F->flags |= MG_GATE_F_HIDDEN;
    if (found & (MG_SAN_ESCAPES | MG_SAN_MARKERS)) F->flags |= MG_GATE_F_ESCAPES;
    /* a context block (get_context) is the whole response's text: it has the response's cap */
    size_t cap = strcmp(field, "block") == 0 ? F->x->srv->cfg.max_context_bytes : F->x->srv->cfg.max_chunk_bytes;
    if (cap > F->left) cap = F->left;
    size_t keep = out.len > cap ? mg_utf8_cut(out.p, out.len, cap) : out.len;
    if (keep < out.len) {
        F->flags |= MG_GATE_F_TRUNCATED;
        json_object_set_new(o, "truncated", json_true());
    }
    F->left -= keep;
    json_object_set_new(o, field, json_stringn(out.p ? out.p : "", keep));
    if (inj) {
        F->flags |= MG_GATE_F_INJECTION;
        json_t *fl = json_object_get(o, "flags");
        if (!json_is_array(fl)) json_object_set_new(o, "flags", fl = json_array());
        json_array_append_new(fl, json_string("prompt_injection"));
    }
    if (nred) json_object_set_new(o, "redactions", json_integer(nred));
    const char *path = json_string_value(json_object_get(o, "path"));
    if (path) { /* attribution: [source: path:line] */
        json_int_t line = json_integer_value(json_object_get(o, "line"));
        if (!line) line = json_integer_value(json_object_get(o, "start_line"));
        char src[4200];
        snprintf(src, sizeof(src), "%s:%lld", path, (long long)(line ? line : 1));
        json_object_set_new(o, "source", mg_json_text(src));
    }
    mg_buf_release(&red);
    mg_buf_release(&out);
}

static void filter_value(struct filt *F, json_t *v, int depth);

static void filter_array(struct filt *F, json_t *a, int depth)
{
    for (size_t i = 0; i < json_array_size(a);) {
        json_t *e = json_array_get(a, i);
        if (json_is_object(e) && content_field(e) && F->left == 0) {
            json_array_remove(a, i); /* over the response cap: the rest of the list goes */
            F->omitted++;
            F->flags |= MG_GATE_F_TRUNCATED;
            continue;
        }
        filter_value(F, e, depth + 1);
        i++;
    }
}

static void filter_value(struct filt *F, json_t *v, int depth)
{
    if (depth > 16) return;
    if (json_is_array(v)) {
        filter_array(F, v, depth);
        return;
    }
    if (!json_is_object(v)) return;
    const char *f = content_field(v);
    if (f) filter_item(F, v, f);
    const char *k;
    json_t *m;
    json_object_foreach(v, k, m)
    {
        if (json_is_array(m) || json_is_object(m)) filter_value(F, m, depth + 1);
    }
}

void mg_gate_filter(struct mg_ctx *x, json_t *result, int *redactions, unsigned *flags)
{
    struct filt F = {.x = x, .left = x->srv->cfg.max_context_bytes};
    filter_value(&F, result, 0);
    if (F.any && json_is_object(result)) {
        json_t *fl = json_array();
        if (F.flags & MG_GATE_F_INJECTION) json_array_append_new(fl, json_string("prompt_injection"));
        if (F.flags & MG_GATE_F_HIDDEN) json_array_append_new(fl, json_string("hidden_text"));
        if (F.flags & MG_GATE_F_ESCAPES) json_array_append_new(fl, json_string("control_sequences"));
        if (F.flags & MG_GATE_F_TRUNCATED) json_array_append_new(fl, json_string("truncated"));
        json_object_set_new(result, "gate", json_pack("{s:i, s:o, s:I}", "redactions", F.redactions, "flags", fl,
                                                      "omitted", (json_int_t)F.omitted));
    }
    if (redactions) *redactions += F.redactions;
    if (flags) *flags |= F.flags;
}

/* ---- the call ------------------------------------------------------------------------- */

/* The text an audit event quotes for a call: the query, else the path. */
static const char *call_subject(json_t *args)
{
    static const char *const keys[] = {"query", "prompt", "path", "key", NULL};
    for (const char *const *k = keys; *k; k++) {
        const char *s = json_string_value(json_object_get(args, *k));
        if (s) return s;
    }
    return NULL;
}

static long long result_count(json_t *r)
{
    static const char *const keys[] = {"results", "files", "repos", "notes", "episodes", "entities", "projects",
                                       "parts", NULL};
    for (const char *const *k = keys; *k; k++) {
        json_t *a = json_object_get(r, *k);
        if (json_is_array(a)) return (long long)json_array_size(a);
    }
    return json_is_string(json_object_get(r, "text")) ? 1 : 0;
}

int mg_gate_call(struct mg_ctx *x, const struct mg_tool *t, json_t *args, json_t **result, struct mg_err *err)
{
    *result = NULL;
    const char *repo = json_string_value(json_object_get(args, "repo"));
    if (!repo) repo = json_string_value(json_object_get(args, "repo_id"));
    if (!repo) repo = x->repo_header;
    int need = t->level ? t->level : MG_LEVEL_READ;
    if (mg_access_level(x->who, need, t->name, err) != 0) {
        mg_gate_audit_event(x, t->name, repo, call_subject(args), 0, 0, NULL, err->code);
        return -1;
    }
    int rc = t->call(x, args, result, err);
    if (rc != 0) {
        json_decref(*result);
        *result = NULL;
        mg_gate_audit_event(x, t->name, repo, call_subject(args), 0, 0, NULL, err->code ? err->code : MG_E_INTERNAL);
        return -1;
    }
    int nred = 0;
    unsigned flags = 0;
    if (*result && !json_is_array(json_object_get(*result, "content"))) /* content-block results are fixtures */
        mg_gate_filter(x, *result, &nred, &flags);
    /* the repo the call worked on: the result's, else the effective scope's (ids joined with ',') */
    char used[512] = "";
    const char *r_repo = json_string_value(json_object_get(*result, "repo"));
    json_t *sr = json_object_get(json_object_get(*result, "scope"), "repos"), *e;
    size_t i;
    json_array_foreach(sr, i, e)
    {
        size_t l = strlen(used);
        snprintf(used + l, sizeof(used) - l, "%s%s", l ? "," : "", json_string_value(e) ? json_string_value(e) : "");
    }
    mg_gate_audit_event(x, t->name, r_repo ? r_repo : used[0] ? used : repo, call_subject(args),
                        result_count(*result), nred, flags & MG_GATE_F_INJECTION ? "prompt_injection" : NULL, NULL);
    return 0;
}

/* ---- setup ------------------------------------------------------------------------------ */

int mg_gate_open(struct mg_server *srv, bool with_tokens, struct mg_err *err)
{
    if (mg_audit_open(&srv->cfg, &srv->audit, err) != 0) return -1;
    if (!with_tokens) return 0;
    if (mg_tokens_open(&srv->cfg, &srv->tokens, err) != 0 ||
        !(srv->ratelimit = mg_ratelimit_new(NULL, NULL, 0))) {
        if (!err->code) mg_err_set(err, MG_E_NO_MEMORY, "out of memory creating the rate limiter");
        mg_gate_close(srv);
        return -1;
    }
    return 0;
}

void mg_gate_close(struct mg_server *srv)
{
    mg_ratelimit_free(srv->ratelimit);
    mg_tokens_close(srv->tokens);
    mg_audit_close(srv->audit);
    srv->ratelimit = NULL;
    srv->tokens = NULL;
    srv->audit = NULL;
}

/* ---- audit ------------------------------------------------------------------------------ */

/* Successful reads: their events need not be synced to disk one by one
 * (audit_fsync = writes); every other event is a write or a security event. */
static bool read_op(const char *op)
{
    static const char *const reads[] = {"search_code", "search_symbols", "read_file", "list_files", "list_repos",
                                        "index_status", "get_scope", "get_note", "list_notes", "search_notes",
                                        "list_projects", "recall", "search_entities", "get_profile", "get_context",
                                        "search", "audit_read", NULL};
    for (const char *const *r = reads; *r; r++)
        if (strcmp(*r, op) == 0) return true;
    return false;
}

void mg_gate_audit_event(struct mg_ctx *x, const char *op, const char *repo, const char *query, long long results,
                         int redactions, const char *flag, const char *code)
{
    if (!x->srv->audit) return;
    struct mg_buf red; /* a query may quote a secret: the log keeps it redacted */
    mg_buf_init(&red, 1 << 20);
    int nq = 0;
    if (query && mg_gate_redact(x, query, strlen(query), &red, &nq) != 0) query = "[unscanned]";
    else if (nq) query = red.p;
    const char *flags[1] = {flag};
    struct mg_audit_event ev = {
        .tenant = x->who && x->who->tenant[0] ? x->who->tenant : NULL,
        .instance = x->session ? x->session->instance : NULL,
        .session = x->session ? x->session->id : NULL,
        .repo = repo,
        .op = op,
        .query = query,
        .results = results,
        .redactions = redactions,
        .flags = flag ? flags : NULL,
        .nflags = flag ? 1 : 0,
        .code = code,
        .status = code ? "error" : "ok",
        .durable = code || flag || redactions || !read_op(op),
    };
    struct mg_err err = {0};
    if (mg_audit_emit(x->srv->audit, &ev, &err) != 0)
        fprintf(stderr, "memgate: warning: audit event '%s' not written: error[%s]: %s\n", op,
                err.code ? err.code : MG_E_INTERNAL, err.msg);
    mg_buf_release(&red);
}

int mg_gate_audit_query(struct mg_ctx *x, const struct mg_audit_filter *f, json_t **out, struct mg_err *err)
{
    if (x->who->level < MG_LEVEL_ADMIN) {
        mg_gate_audit_event(x, "audit_read", NULL, NULL, 0, 0, NULL, MG_E_SCOPE_FORBIDDEN);
        return mg_err_set(err, MG_E_SCOPE_FORBIDDEN, "reading the audit log needs an admin token");
    }
    struct mg_audit_filter g = *f;
    if (x->who->token_id[0]) g.tenant = x->who->tenant; /* a token's admin sees its own tenant only */
    if (mg_audit_query(&x->srv->cfg, &g, out, err) != 0) return -1;
    mg_gate_audit_event(x, "audit_read", NULL, g.op, (long long)json_array_size(*out), 0, NULL, NULL);
    return 0;
}

/* ---- redaction ------------------------------------------------------------------------- */

int mg_gate_redact(const struct mg_ctx *x, const char *s, size_t n, struct mg_buf *out, int *nred)
{
    struct mg_err err = {0};
    struct mg_secret_policy p;
    mg_secret_policy(&x->srv->cfg, &p);
    const struct mg_scanner *sc = mg_secrets_scanner(&x->srv->cfg, &err);
    *nred = 0;
    if (!sc || mg_secrets_apply(sc, &p, s, n, out, nred, NULL, NULL, &err) != 0) {
        fprintf(stderr, "memgate: warning: secret scan failed (error[%s]: %s); the text is withheld\n",
                err.code ? err.code : MG_E_INTERNAL, err.msg);
        return -1;
    }
    return 0;
}
