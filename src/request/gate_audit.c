/* gate_audit.c — the gate's audit (gate.h, step 6 and mg_gate_finish):
 * each operation's part recorded in the request's audit record, the
 * request's one audit event, refusals folded into one event per kind and
 * minute, and the audit query of the audit tool.
 *
 * Sections:
 *   1. the request's audit event
 *   2. refusals
 *   3. the audit query
 */
#include "request/gate_int.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "security/audit.h"
#include "security/sanitize.h"
#include "util/metrics.h"
#include "util/utf8.h"

/* ---- 1. the request's audit event -------------------------------------------------------------------------------------------- */

static _Thread_local unsigned long thread_audits; /* events this thread handed to the log */

unsigned long mg_gate_thread_audits(void) { return thread_audits; }

void mg__gate_record_part(struct mg_ctx *x, const struct mg_op *op, const struct mg_items *out)
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
    thread_audits++;
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

/* ---- 2. refusals ---------------------------------------------------------------------------------------- */

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
    thread_audits++; /* written, folded or counted: audited either way */
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

void mg_gate_answered(struct mg_server *srv, unsigned long before, const char *tenant, const char *what,
                      const char *code)
{
    if (!code || !*code || thread_audits != before) return;
    mg_gate_refusal(srv, tenant, "request_refused", what, code);
}

static const char *rpc_error_code(json_t *j)
{
    json_t *e = json_object_get(j, "error"), *c = json_object_get(e, "code");
    json_t *d = json_object_get(json_object_get(e, "data"), "code");
    if (json_is_string(c)) return json_string_value(c);
    if (json_is_string(d)) return json_string_value(d);
    switch (json_is_integer(c) ? json_integer_value(c) : 0) {
    case -32700: return "rpc_parse_error";
    case -32600: return "rpc_invalid_request";
    case -32601: return "rpc_method_not_found";
    case -32602: return "rpc_invalid_params";
    default: return "rpc_error";
    }
}

void mg_gate_answer_error(json_t *j, char *out, size_t cap)
{
    out[0] = 0;
    if (!json_is_object(j)) return;
    if (json_object_get(j, "error")) {
        snprintf(out, cap, "%s", rpc_error_code(j));
        return;
    }
    json_t *res = json_object_get(j, "result");
    if (!json_is_true(json_object_get(res, "isError"))) return;
    const char *code = json_string_value(json_object_get(json_object_get(json_object_get(res, "_meta"),
                                                                         "memgate/error"), "code"));
    const char *text = json_string_value(json_object_get(json_array_get(json_object_get(res, "content"), 0), "text"));
    size_t n = text && strncmp(text, "error[", 6) == 0 ? strcspn(text + 6, "]") : 0;
    if (code) snprintf(out, cap, "%s", code);
    else if (n && text[6 + n] == ']') snprintf(out, cap, "%.*s", (int)n, text + 6);
    else snprintf(out, cap, "tool_error");
}

/* ---- 3. the audit query ---------------------------------------------------------------------------------- */

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
