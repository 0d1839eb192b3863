/* mcp.c — /mcp, MCP Streamable HTTP (http.h): sessions by Mcp-Session-Id,
 * POST answered as JSON or as an SSE stream run by a worker thread, GET
 * streams, DELETE. Messages go to mcp/rpc.c with the connection they came
 * on; this file runs no tool itself.
 *
 * Sections:
 *   1. the connection a message came on
 *   2. answers on a stream: workers
 *   3. POST, GET and DELETE
 */
#include "http/internal.h"
#include "mcp/conn.h"
#include "request/gate.h"
#include "util/json.h"

#include <ctype.h>
#include <errno.h>
#include <strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


/* ---- 1. the connection a message came on ------------------------------------------------------------------ */

static int json_out_send(struct mg_out *o, json_t *msg)
{
    (void)o;
    (void)msg;
    return -1; /* a plain JSON response carries nothing but the reply */
}
static struct mg_out json_out = {json_out_send, NULL};

static bool has_method(json_t *msg, const char *name)
{
    size_t n = json_is_array(msg) ? json_array_size(msg) : 1;
    for (size_t i = 0; i < n; i++) {
        json_t *m = json_is_array(msg) ? json_array_get(msg, i) : msg;
        const char *meth = json_string_value(json_object_get(m, "method"));
        if (meth && json_object_get(m, "id") && strcmp(meth, name) == 0) return true;
    }
    return false;
}

/* The session named by Mcp-Session-Id, with a reference; or NULL after an error response. */
static struct mg_session *mcp_session(struct mg_http *h, struct MHD_Connection *c, struct req *r,
                                      enum MHD_Result *rc)
{
    const char *sid = mg__header(c, "Mcp-Session-Id");
    if (!sid || !*sid) {
        *rc = mg__respond_error(c, r, 400, MG_E_SESSION_REQUIRED,
                            "bad request: the Mcp-Session-Id header is required; send initialize first to get one");
        return NULL;
    }
    enum mg_lookup how;
    struct mg_session *s = mg_sessions_get(h->srv->sessions, sid, &how);
    if (s && (mg_session_kind(s) != MG_SESSION_MCP || strcmp(mg_session_tenant(s), r->who.tenant) != 0)) {
        /* another tenant's session does not exist for this caller */
        mg_session_unref(&s);
        s = NULL;
        how = MG_SESSION_UNKNOWN;
    }
    if (s) return s;
    if (how == MG_SESSION_EXPIRED)
        *rc = mg__respond_error(c, r, 404, MG_E_SESSION_EXPIRED,
                            "session expired after idling longer than session_ttl; send initialize again to start a "
                            "new session");
    else
        *rc = mg__respond_error(c, r, 404, MG_E_SESSION_NOT_FOUND,
                            "session not found (it ended or never existed); send initialize again to start a new "
                            "session");
    return NULL;
}

/* The request's MCP-Protocol-Version and Mcp-* headers, names lowercased,
 * values without surrounding whitespace: what a 2026-07-28 request is
 * checked against (rpc.c), kept so a worker can check after the connection
 * moved on. */
static enum MHD_Result keep_header(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    (void)kind;
    if (strncasecmp(key, "mcp-", 4) != 0 || !value) return MHD_YES;
    char name[128];
    size_t n = strlen(key);
    if (n >= sizeof(name)) return MHD_YES;
    for (size_t i = 0; i <= n; i++) name[i] = (char)tolower((unsigned char)key[i]);
    while (*value == ' ' || *value == '\t') value++;
    size_t len = strlen(value);
    while (len && (value[len - 1] == ' ' || value[len - 1] == '\t')) len--;
    json_object_set_new(cls, name, json_stringn_nocheck(value, len));
    return MHD_YES;
}

static json_t *mcp_headers(struct MHD_Connection *c)
{
    json_t *o = json_object();
    MHD_get_connection_values(c, MHD_HEADER_KIND, keep_header, o);
    return o;
}

static const char *header_of(void *ctx, const char *name)
{
    char low[128];
    size_t n = strlen(name);
    if (n >= sizeof(low)) return NULL;
    for (size_t i = 0; i <= n; i++) low[i] = (char)tolower((unsigned char)name[i]);
    return json_string_value(json_object_get(ctx, low));
}

/* What an error answer's refusal event names, as mg__refused's: mcp/rpc.c
 * audits every answer it makes (so r's is not audited again here). */
static const char *rpc_from(struct req *r, char *buf, size_t cap, bool answered_there)
{
    snprintf(buf, cap, "%s from %s", r->label ? r->label : "?", r->from[0] ? r->from : "?");
    if (answered_there) r->audited = true;
    return buf;
}

/* ---- 2. answers on a stream: workers ---------------------------------------------------------------------- */

/* Run a POST stream's request and end its stream. */
static void sse_job(struct sse *s)
{
    struct mg_http *h = s->h;
    struct mg_rpc_conn conn = {.srv = h->srv, .session = s->session, .who = &s->who, .repo_header = s->repo_header,
                               .out = &s->out, .stateless = s->stateless, .from = s->what,
                               .header = s->stateless ? header_of : NULL, .header_ctx = s->headers};
    json_t *reply = NULL;
    mg_request_id_set(s->rid);
    mg_rpc_handle(&conn, s->msg, &reply);
    mg_request_id_set(NULL);
    char *text = NULL;
    if (reply) {
        pthread_mutex_lock(&s->mu);
        mg_gate_answer_error(reply, s->err, sizeof(s->err));
        pthread_mutex_unlock(&s->mu);
        text = mg_json_dumps(reply, JSON_COMPACT);
    }
    /* the answer and the stream's end in one step: the connection's thread wakes once, sends the
     * answer and ends the stream (woken by the answer first, it would wait again for the end) */
    pthread_mutex_lock(&s->mu);
    if (reply && (!text || mg__sse_push_locked(s, text, false) != 0)) {
        /* too big for the queue, or out of memory: say so rather than hang the client */
        json_t *id = json_is_object(reply) ? json_object_get(reply, "id") : NULL;
        json_t *e = mg_rpc_error(id, MG_RPC_INTERNAL_ERROR, "the response could not be sent", NULL);
        char *t2 = json_dumps(e, JSON_COMPACT);
        if (t2) mg__sse_push_locked(s, t2, false);
        free(t2);
        json_decref(e);
    }
    s->done = true;
    struct mg_session *sess = s->session;
    s->session = NULL;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    free(text);
    json_decref(reply);
    json_decref(s->msg);
    s->msg = NULL;
    mg_session_unref(&sess);
    mg__sse_unref(s);
}

#define MG_WORKER_IDLE_S 10 /* a worker thread with no job for this long ends */

static void *worker_main(void *arg)
{
    struct mg_http *h = arg;
    pthread_mutex_lock(&h->mu);
    for (;;) {
        bool timed_out = false;
        while (!h->jobs && !h->quit && !timed_out) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_sec += MG_WORKER_IDLE_S;
            h->idle++;
            timed_out = pthread_cond_timedwait(&h->work_cv, &h->mu, &ts) == ETIMEDOUT;
            h->idle--;
        }
        struct sse *s = h->jobs;
        if (!s) break; /* idle too long, or the server stops */
        h->jobs = s->next_job;
        if (!h->jobs) h->jobs_tail = NULL;
        h->njobs--;
        pthread_mutex_unlock(&h->mu);
        sse_job(s);
        pthread_mutex_lock(&h->mu);
        h->workers--;
        pthread_cond_broadcast(&h->cv);
    }
    h->threads--;
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
    return NULL;
}

/* Queue s's request for a worker: an idle one, else a new thread. 0, or the
 * error of pthread_create when there is no thread to run it. */
static int submit(struct mg_http *h, struct sse *s)
{
    pthread_mutex_lock(&h->mu);
    if (h->idle <= h->njobs) { /* every idle thread has a job already */
        pthread_attr_t a;
        pthread_attr_init(&a);
        pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
        pthread_t t;
        int e = pthread_create(&t, &a, worker_main, h);
        pthread_attr_destroy(&a);
        if (e == 0) h->threads++;
        else if (h->threads == 0) {
            pthread_mutex_unlock(&h->mu);
            return e;
        } /* else a running thread takes it when it is done */
    }
    s->next_job = NULL;
    if (h->jobs_tail) h->jobs_tail->next_job = s;
    else h->jobs = s;
    h->jobs_tail = s;
    h->njobs++;
    h->workers++;
    pthread_cond_signal(&h->work_cv);
    pthread_mutex_unlock(&h->mu);
    return 0;
}

/* ---- 3. POST, GET and DELETE ------------------------------------------------------------------------------ */

static bool wants_priming(struct mg_session *s)
{
    char version[16] = "";
    struct mg_mcp_conn *k = mg_mcp_conn_of(s);
    if (k) mg_mcp_conn_version(k, version);
    return strcmp(version, "2025-11-25") >= 0;
}

/* Answer msg on an SSE stream; takes msg and the session reference. */
static enum MHD_Result mcp_post_sse(struct mg_http *h, struct MHD_Connection *c, struct req *r,
                                    struct mg_session *sess, json_t *msg)
{
    struct sse *s = mg__sse_new(h, sess ? mg_session_id(sess) : "", false);
    if (!s) {
        json_decref(msg);
        mg_session_unref(&sess);
        return mg__respond_error(c, r, 500, MG_E_NO_MEMORY, "out of memory");
    }
    const char *rh = mg__header(c, "X-Memgate-Repo");
    s->repo_header = rh ? strdup(rh) : NULL;
    mg_principal_copy(&s->who, &r->who); /* on failure: level 0, which may do nothing */
    memcpy(s->rid, r->rid, sizeof(s->rid));
    rpc_from(r, s->what, sizeof(s->what), false);
    s->session = sess;
    s->msg = msg;
    const char *method = json_is_object(msg) ? json_string_value(json_object_get(msg, "method")) : NULL;
    pthread_mutex_lock(&s->mu); /* (a drain reads it) */
    s->waits = method && strcmp(method, "subscriptions/listen") == 0; /* lasts until the client or the server ends it */
    pthread_mutex_unlock(&s->mu);
    if (!sess) { /* 2026-07-28: no priming event, no resumption */
        s->stateless = true;
        s->headers = mcp_headers(c);
    }
    if (sess && wants_priming(sess)) {
        pthread_mutex_lock(&s->mu);
        mg__sse_push_locked(s, NULL, true);
        pthread_mutex_unlock(&s->mu);
    }
    /* the worker's reference */
    pthread_mutex_lock(&s->mu);
    s->refs++;
    pthread_mutex_unlock(&s->mu);
    int e = submit(h, s);
    if (e != 0) {
        pthread_mutex_lock(&s->mu);
        s->refs--;
        s->session = NULL;
        s->msg = NULL;
        pthread_mutex_unlock(&s->mu);
        json_decref(msg);
        mg_session_unref(&sess);
        mg__sse_unref(s); /* the creation reference: frees it */
        return mg__respond_error(c, r, 503, MG_E_SHUTTING_DOWN, "cannot start a thread for this request (%s); retry later",
                             strerror(e));
    }
    r->audited = true; /* the worker's answer is (rpc_from) */
    enum MHD_Result rc = mg__respond_sse(c, r, s);
    mg__sse_unref(s); /* the creation reference; the worker and the response hold theirs */
    return rc;
}

/* A POST without Mcp-Session-Id: a 2026-07-28 request, served on its own.
 * Answered on an SSE stream when there is something to stream (a
 * progressToken or a logLevel, or subscriptions/listen), else as JSON with
 * the status the specification gives its errors. Takes msg. */
static enum MHD_Result mcp_post_stateless(struct mg_http *h, struct MHD_Connection *c, struct req *r, json_t *msg,
                                          const struct mg_rpc_kind *k, bool sse_ok, bool json_ok)
{
    if (k->batch) {
        json_decref(msg);
        return mg__respond_json(c, r, 400,
                                mg_rpc_error(NULL, MG_RPC_INVALID_REQUEST,
                                             "invalid request: batches are not part of protocol version 2026-07-28 "
                                             "(and a 2025 client sends initialize first)",
                                             NULL));
    }
    if (k->requests == 0) { /* a notification (or a stray response): nothing to act on without a session */
        json_decref(msg);
        return mg__respond(c, r, 202, NULL, NULL, 0, NULL);
    }
    const char *method = json_string_value(json_object_get(msg, "method"));
    json_t *meta = json_object_get(json_object_get(msg, "params"), "_meta");
    bool listen = method && strcmp(method, "subscriptions/listen") == 0;
    /* a logLevel rpc.c will refuse is answered as JSON, with its 400 */
    bool lv_ok = mg_mcp_log_level_index(json_string_value(json_object_get(meta, "io.modelcontextprotocol/logLevel"))) >= 0;
    bool streams = listen || (method && strcmp(method, "tools/call") == 0 &&
                              (json_object_get(meta, "progressToken") || lv_ok));
    if (sse_ok && (streams || !json_ok)) {
        if (atomic_load(&h->stopping)) {
            json_decref(msg);
            return mg__respond_error(c, r, 503, MG_E_SHUTTING_DOWN, "the server is stopping; retry later");
        }
        return mcp_post_sse(h, c, r, NULL, msg);
    }
    json_t *headers = mcp_headers(c);
    char what[160];
    struct mg_rpc_conn conn = {.srv = h->srv, .who = &r->who, .repo_header = mg__header(c, "X-Memgate-Repo"),
                               .out = &json_out, .stateless = true, .header = header_of, .header_ctx = headers,
                               .from = rpc_from(r, what, sizeof(what), true)};
    json_t *reply = NULL;
    mg_rpc_handle(&conn, msg, &reply);
    json_decref(msg);
    json_decref(headers);
    if (!reply) return mg__respond(c, r, 202, NULL, NULL, 0, NULL);
    return mg__respond_json(c, r, mg_rpc_http_status(reply), reply);
}

enum MHD_Result mg__mcp_post(struct mg_http *h, struct MHD_Connection *c, struct req *r)
{
    char what[160];
    const char *accept = mg__header(c, MHD_HTTP_HEADER_ACCEPT);
    bool any = !accept || mg__accepts(accept, "*/*");
    bool json_ok = any || mg__accepts(accept, "application/json") || mg__accepts(accept, "application/*");
    bool sse_ok = mg__accepts(accept, "text/event-stream");
    if (!json_ok && !sse_ok)
        return mg__respond_error(c, r, 406, MG_E_NOT_ACCEPTABLE,
                             "not acceptable: the Accept header must allow application/json and text/event-stream");
    if (!mg__is_json_type(mg__header(c, MHD_HTTP_HEADER_CONTENT_TYPE)))
        return mg__respond_error(c, r, 415, MG_E_UNSUPPORTED_MEDIA,
                             "unsupported media type: send the JSON-RPC message with Content-Type: application/json");
    json_t *reply = NULL;
    json_t *msg = mg_rpc_parse(r->body.p ? r->body.p : "", r->body.len, &reply);
    if (!msg) return mg__respond_json(c, r, 400, reply);
    struct mg_rpc_kind k;
    mg_rpc_classify(msg, &k);
    if (has_method(msg, "tools/call") && json_is_object(msg)) {
        json_t *p = json_object_get(msg, "params");
        const char *repo = json_string_value(json_object_get(json_object_get(p, "arguments"), "repo"));
        mg__req_note(r, json_string_value(json_object_get(p, "name")),
                     repo ? repo : mg__header(c, "X-Memgate-Repo"));
    }
    enum MHD_Result rc = MHD_YES;
    struct mg_sessions *reg = h->srv->sessions;
    const char *rh = mg__header(c, "X-Memgate-Repo");

    /* 2026-07-28 (per-request _meta, a method only it has, or its version in the header): no session,
     * whatever Mcp-Session-Id says */
    const char *hv = mg__header(c, "MCP-Protocol-Version");
    bool modern = (hv && strcmp(hv, MG_MCP_MODERN) == 0) || mg_rpc_modern(msg);
    for (size_t i = 0; !modern && k.batch && i < json_array_size(msg); i++) modern = mg_rpc_modern(json_array_get(msg, i));
    if (modern) return mcp_post_stateless(h, c, r, msg, &k, sse_ok, json_ok);
    if (k.initialize) {
        if (k.batch) {
            json_decref(msg);
            return mg__respond_json(c, r, 400,
                                mg_rpc_error(NULL, MG_RPC_INVALID_REQUEST,
                                             "invalid request: initialize must be sent alone, not in a batch", NULL));
        }
        struct mg_err err = {0};
        const char *inst = getenv("MEMGATE_INSTANCE_ID");
        struct mg_session *s = mg_sessions_create(reg, MG_SESSION_MCP, NULL, inst && *inst ? inst : NULL,
                                                  r->who.tenant, &err);
        if (s && !mg_mcp_conn_attach(s, &err)) {
            mg_sessions_remove(reg, mg_session_id(s));
            mg_session_unref(&s);
        }
        if (!s) {
            json_decref(msg);
            return mg__respond_error(c, r, mg_err_http_status(err.code), err.code ? err.code : MG_E_INTERNAL, "%s",
                                 err.msg);
        }
        struct mg_rpc_conn conn = {.srv = h->srv, .session = s, .who = &r->who, .repo_header = rh, .out = &json_out,
                                   .from = rpc_from(r, what, sizeof(what), true)};
        mg_rpc_handle(&conn, msg, &reply);
        json_decref(msg);
        bool ok = reply && json_object_get(reply, "result");
        char sid[MG_SID_MAX + 1];
        snprintf(sid, sizeof(sid), "%s", mg_session_id(s));
        mg_session_unref(&s);
        if (!ok) mg_sessions_remove(reg, sid);
        if (!reply) return mg__respond(c, r, 202, NULL, NULL, 0, NULL);
        return mg__respond_json_h(c, r, 200, reply, "Mcp-Session-Id", ok ? sid : NULL, NULL, NULL);
    }

    const char *pv = mg__header(c, "MCP-Protocol-Version");
    if (pv && !mg_mcp_version_supported(pv)) {
        json_decref(msg);
        return mg__respond_error(c, r, 400, MG_E_PROTOCOL_VERSION,
                             "bad request: unsupported MCP-Protocol-Version '%.64s'; supported: 2025-11-25, "
                             "2025-06-18, 2025-03-26",
                             pv);
    }
    struct mg_session *s = mcp_session(h, c, r, &rc);
    if (!s) {
        json_decref(msg);
        return rc;
    }
    if (k.requests == 0) {
        /* notifications and responses only */
        struct mg_rpc_conn conn = {.srv = h->srv, .session = s, .who = &r->who, .repo_header = rh, .out = &json_out,
                                   .from = rpc_from(r, what, sizeof(what), true)};
        mg_rpc_handle(&conn, msg, &reply);
        json_decref(msg);
        mg_session_unref(&s);
        if (reply) return mg__respond_json(c, r, 400, reply);
        return mg__respond(c, r, 202, NULL, NULL, 0, NULL);
    }
    if (sse_ok && (has_method(msg, "tools/call") || !json_ok)) {
        if (atomic_load(&h->stopping)) {
            json_decref(msg);
            mg_session_unref(&s);
            return mg__respond_error(c, r, 503, MG_E_SHUTTING_DOWN, "the server is stopping; retry later");
        }
        return mcp_post_sse(h, c, r, s, msg);
    }
    struct mg_rpc_conn conn = {.srv = h->srv, .session = s, .who = &r->who, .repo_header = rh, .out = &json_out,
                                   .from = rpc_from(r, what, sizeof(what), true)};
    mg_rpc_handle(&conn, msg, &reply);
    json_decref(msg);
    mg_session_unref(&s);
    if (!reply) return mg__respond(c, r, 202, NULL, NULL, 0, NULL);
    return mg__respond_json(c, r, 200, reply);
}

enum MHD_Result mg__mcp_get(struct mg_http *h, struct MHD_Connection *c, struct req *r)
{
    if (!mg__accepts(mg__header(c, MHD_HTTP_HEADER_ACCEPT), "text/event-stream"))
        return mg__respond_error(c, r, 405, MG_E_METHOD_NOT_ALLOWED,
                             "method not allowed: GET /mcp opens an SSE stream and needs Accept: text/event-stream; "
                             "send JSON-RPC messages with POST");
    const char *pv = mg__header(c, "MCP-Protocol-Version");
    if (pv && !mg_mcp_version_supported(pv))
        return mg__respond_error(c, r, 400, MG_E_PROTOCOL_VERSION,
                             "bad request: unsupported MCP-Protocol-Version '%.64s'; supported: 2025-11-25, "
                             "2025-06-18, 2025-03-26",
                             pv);
    enum MHD_Result rc = MHD_YES;
    struct mg_session *sess = mcp_session(h, c, r, &rc);
    if (!sess) return rc;
    if (atomic_load(&h->stopping)) {
        mg_session_unref(&sess);
        return mg__respond_error(c, r, 503, MG_E_SHUTTING_DOWN, "the server is stopping; retry later");
    }
    struct sse *s = mg__sse_new(h, mg_session_id(sess), true);
    bool prime = wants_priming(sess);
    mg_session_unref(&sess);
    if (!s) return mg__respond_error(c, r, 500, MG_E_NO_MEMORY, "out of memory");
    if (prime) {
        pthread_mutex_lock(&s->mu);
        mg__sse_push_locked(s, NULL, true);
        pthread_mutex_unlock(&s->mu);
    }
    rc = mg__respond_sse(c, r, s);
    mg__sse_unref(s);
    return rc;
}

enum MHD_Result mg__mcp_delete(struct mg_http *h, struct MHD_Connection *c, struct req *r)
{
    enum MHD_Result rc = MHD_YES;
    struct mg_session *s = mcp_session(h, c, r, &rc);
    if (!s) return rc;
    char sid[MG_SID_MAX + 1];
    snprintf(sid, sizeof(sid), "%s", mg_session_id(s));
    mg_mcp_conn_cancel(mg_mcp_conn_of(s));
    mg_session_unref(&s);
    mg_sessions_remove(h->srv->sessions, sid);
    mg__sse_end_all(h, sid);
    return mg__respond(c, r, 204, NULL, NULL, 0, NULL);
}
