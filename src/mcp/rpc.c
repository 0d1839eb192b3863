/* rpc.c — see rpc.h. */
#include "mcp/rpc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcp/fixtures.h"
#include "util/metrics.h"
#include "util/version.h"

const char *const mg_mcp_versions[] = {"2025-11-25", "2025-06-18", "2025-03-26", NULL};

bool mg_mcp_version_supported(const char *v)
{
    for (int i = 0; v && mg_mcp_versions[i]; i++)
        if (strcmp(v, mg_mcp_versions[i]) == 0) return true;
    return false;
}

/* syslog severities, as MCP names them; index = severity number */
static const char *const levels[] = {"emergency", "alert", "critical", "error",
                                     "warning",   "notice", "info",     "debug"};

static int level_index(const char *name)
{
    for (int i = 0; name && i < 8; i++)
        if (strcmp(levels[i], name) == 0) return i;
    return -1;
}

/* ---- messages ------------------------------------------------------------------------ */

json_t *mg_rpc_error(json_t *id, int code, const char *message, json_t *data)
{
    json_t *e = json_pack("{s:i, s:o}", "code", code, "message", mg_json_text(message));
    if (data) json_object_set_new(e, "data", data);
    return json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id ? id : json_null(), "error", e);
}

static json_t *result_msg(json_t *id, json_t *result)
{
    return json_pack("{s:s, s:O, s:O}", "jsonrpc", "2.0", "id", id, "result", result);
}

/* Nesting depth of JSON text, outside strings; stops early past max. */
static int too_deep(const char *t, size_t n, int max)
{
    int depth = 0;
    bool str = false;
    for (size_t i = 0; i < n; i++) {
        char c = t[i];
        if (str) {
            if (c == '\\') i++;
            else if (c == '"') str = false;
        } else if (c == '"') {
            str = true;
        } else if (c == '[' || c == '{') {
            if (++depth > max) return 1;
        } else if (c == ']' || c == '}') {
            depth--;
        }
    }
    return 0;
}

json_t *mg_rpc_parse(const char *text, size_t len, json_t **reply)
{
    *reply = NULL;
    if (too_deep(text, len, MG_RPC_MAX_DEPTH)) {
        char m[96];
        snprintf(m, sizeof(m), "parse error: JSON nested deeper than %d levels", MG_RPC_MAX_DEPTH);
        *reply = mg_rpc_error(NULL, MG_RPC_PARSE_ERROR, m, NULL);
        return NULL;
    }
    json_error_t je;
    json_t *j = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &je);
    if (!j) {
        char m[256];
        snprintf(m, sizeof(m), "parse error: %s at line %d column %d", je.text, je.line, je.column);
        *reply = mg_rpc_error(NULL, MG_RPC_PARSE_ERROR, m, NULL);
        return NULL;
    }
    return j;
}

static bool id_valid(json_t *id) { return json_is_string(id) || json_is_integer(id); }

void mg_rpc_classify(json_t *msg, struct mg_rpc_kind *k)
{
    memset(k, 0, sizeof(*k));
    k->batch = json_is_array(msg);
    size_t n = k->batch ? json_array_size(msg) : 1;
    for (size_t i = 0; i < n; i++) {
        json_t *m = k->batch ? json_array_get(msg, i) : msg;
        json_t *method = json_object_get(m, "method");
        json_t *id = json_object_get(m, "id");
        if (json_is_string(method)) {
            if (id) {
                k->requests++;
                if (strcmp(json_string_value(method), "initialize") == 0) k->initialize = true;
            } else {
                k->notifications++;
            }
        } else if (json_object_get(m, "result") || json_object_get(m, "error")) {
            k->responses++;
        } else {
            k->requests++; /* invalid: it will be answered with -32600 */
        }
    }
}

/* ---- server-to-client requests ------------------------------------------------------ */

struct mg_pending {
    int64_t id;
    json_t *result, *error;
    bool done;
    struct mg_pending *next;
};

static void deliver(struct mg_session *s, json_t *m)
{
    json_t *id = json_object_get(m, "id");
    if (!json_is_integer(id)) return;
    pthread_mutex_lock(&s->mu);
    for (struct mg_pending *p = s->pending; p; p = p->next)
        if (p->id == json_integer_value(id) && !p->done) {
            json_t *r = json_object_get(m, "result"), *e = json_object_get(m, "error");
            p->result = json_incref(r);
            p->error = r ? NULL : json_incref(e ? e : json_null());
            p->done = true;
            pthread_cond_broadcast(&s->cv);
            break;
        }
    pthread_mutex_unlock(&s->mu);
}

void mg_rpc_cancel_pending(struct mg_session *s)
{
    pthread_mutex_lock(&s->mu);
    for (struct mg_pending *p = s->pending; p; p = p->next)
        if (!p->done) {
            p->error = json_pack("{s:i, s:s}", "code", -32000, "message", "the session ended");
            p->done = true;
        }
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

json_t *mg_ctx_request(struct mg_ctx *x, const char *method, json_t *params, int timeout_ms, struct mg_err *err)
{
    struct mg_session *s = x->session;
    if (!x->out) {
        mg_err_set(err, MG_E_UNSUPPORTED, "this transport cannot send '%s' to the client", method);
        return NULL;
    }
    struct mg_pending p = {0};
    pthread_mutex_lock(&s->mu);
    p.id = s->next_request_id++;
    p.next = s->pending;
    s->pending = &p;
    pthread_mutex_unlock(&s->mu);

    json_t *msg = json_pack("{s:s, s:I, s:s}", "jsonrpc", "2.0", "id", (json_int_t)p.id, "method", method);
    if (params) json_object_set(msg, "params", params);
    int sent = x->out->send(x->out, msg);
    json_decref(msg);

    pthread_mutex_lock(&s->mu);
    if (sent == 0) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        int64_t ns = ts.tv_nsec + (int64_t)(timeout_ms % 1000) * 1000000;
        ts.tv_sec += timeout_ms / 1000 + ns / 1000000000;
        ts.tv_nsec = ns % 1000000000;
        while (!p.done)
            if (pthread_cond_timedwait(&s->cv, &s->mu, &ts) == ETIMEDOUT) break;
    }
    for (struct mg_pending **pp = &s->pending; *pp; pp = &(*pp)->next)
        if (*pp == &p) {
            *pp = p.next;
            break;
        }
    pthread_mutex_unlock(&s->mu);

    if (sent != 0) {
        mg_err_set(err, MG_E_UNSUPPORTED,
                   "cannot send '%s' to the client on this channel (an HTTP request answered with plain JSON; "
                   "accept text/event-stream to allow it)",
                   method);
        return NULL;
    }
    if (!p.done) {
        mg_err_set(err, MG_E_TIMEOUT, "the client did not answer '%s' within %d ms", method, timeout_ms);
        return NULL;
    }
    if (p.error) {
        const char *m = json_string_value(json_object_get(p.error, "message"));
        mg_err_set(err, MG_E_CLIENT_ERROR, "the client answered '%s' with an error: %s", method,
                   m ? m : "(no message)");
        json_decref(p.error);
        json_decref(p.result);
        return NULL;
    }
    return p.result;
}

static void notify(struct mg_ctx *x, const char *method, json_t *params)
{
    if (!x->out) {
        json_decref(params);
        return;
    }
    json_t *m = json_pack("{s:s, s:s, s:o}", "jsonrpc", "2.0", "method", method, "params", params);
    x->out->send(x->out, m);
    json_decref(m);
}

void mg_ctx_progress(struct mg_ctx *x, double progress, double total, const char *message)
{
    if (!x->progress_token) return;
    json_t *p = json_pack("{s:O, s:f}", "progressToken", x->progress_token, "progress", progress);
    if (total > 0) json_object_set_new(p, "total", json_real(total));
    if (message) json_object_set_new(p, "message", json_string(message));
    notify(x, "notifications/progress", p);
}

void mg_ctx_log(struct mg_ctx *x, const char *level, const char *fmt, ...)
{
    int lv = level_index(level);
    pthread_mutex_lock(&x->session->mu);
    int want = x->session->log_level;
    pthread_mutex_unlock(&x->session->mu);
    if (lv < 0 || lv > want) return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    notify(x, "notifications/message", json_pack("{s:s, s:s, s:s}", "level", levels[lv], "logger", "memgate",
                                                 "data", buf));
}

/* ---- methods ------------------------------------------------------------------------ */

struct call {
    struct mg_ctx *x;
    json_t *id, *params;
    const char *method;
    int code;            /* JSON-RPC error, when set */
    char message[512];
    json_t *data;
};

static json_t *fail(struct call *c, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static json_t *fail(struct call *c, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->message, sizeof(c->message), fmt, ap);
    va_end(ap);
    c->code = code;
    return NULL;
}

static json_t *m_initialize(struct call *c)
{
    struct mg_session *s = c->x->session;
    json_t *p = c->params;
    const char *want = json_string_value(json_object_get(p, "protocolVersion"));
    if (!want) return fail(c, MG_RPC_INVALID_PARAMS, "initialize needs params.protocolVersion (a string)");
    const char *ver = mg_mcp_version_supported(want) ? want : MG_MCP_LATEST;
    json_t *caps = json_object_get(p, "capabilities");
    bool roots = json_is_object(json_object_get(caps, "roots"));
    /* rootUri / rootPath: not in the MCP schema, but some clients send them */
    const char *root = json_string_value(json_object_get(p, "rootUri"));
    if (!root) root = json_string_value(json_object_get(p, "rootPath"));

    pthread_mutex_lock(&s->mu);
    if (s->initialized) {
        pthread_mutex_unlock(&s->mu);
        return fail(c, MG_RPC_INVALID_REQUEST, "the session is already initialized");
    }
    snprintf(s->protocol, sizeof(s->protocol), "%s", ver);
    s->initialized = true;
    if (!s->repo[0] && !s->root) { /* `memgate mcp --repo` binds before initialize and wins */
        char *path = root ? mg_uri_to_path(root) : NULL;
        if (path) {
            s->root = path;
            s->roots = MG_ROOTS_KNOWN;
        } else {
            s->roots = roots ? MG_ROOTS_UNKNOWN : MG_ROOTS_NONE;
        }
    }
    pthread_mutex_unlock(&s->mu);

    json_t *scaps = json_pack("{s:{s:b}, s:{}}", "tools", "listChanged", 0, "logging");
    if (c->x->srv->fixtures) mg_fixtures_capabilities(scaps);
    return json_pack("{s:s, s:o, s:{s:s, s:s, s:s}, s:s}", "protocolVersion", ver, "capabilities", scaps,
                     "serverInfo", "name", "memgate", "title", "memgate code search", "version", MG_VERSION,
                     "instructions",
                     "memgate searches the code of indexed repositories. Use search_code for text (lexical or "
                     "regex), search_symbols for definitions, read_file for a file's lines, list_files to browse. "
                     "Calls act on the repo this session is bound to (from the client's roots); when several "
                     "repos are indexed and none is bound, pass `repo` (list_repos shows the ids).");
}

static json_t *m_set_level(struct call *c)
{
    int lv = level_index(json_string_value(json_object_get(c->params, "level")));
    if (lv < 0)
        return fail(c, MG_RPC_INVALID_PARAMS,
                    "params.level must be one of debug, info, notice, warning, error, critical, alert, emergency");
    pthread_mutex_lock(&c->x->session->mu);
    c->x->session->log_level = lv;
    pthread_mutex_unlock(&c->x->session->mu);
    return json_object();
}

static json_t *tool_json(const struct mg_tool *t)
{
    json_error_t je;
    json_t *o = json_pack("{s:s, s:s}", "name", t->name, "description", t->description);
    if (t->title) json_object_set_new(o, "title", json_string(t->title));
    json_t *in = json_loads(t->input_schema, 0, &je);
    json_object_set_new(o, "inputSchema", in ? in : json_pack("{s:s}", "type", "object"));
    if (t->output_schema) {
        json_t *out = json_loads(t->output_schema, 0, &je);
        if (out) json_object_set_new(o, "outputSchema", out);
    }
    return o;
}

static json_t *m_tools_list(struct call *c)
{
    size_t n;
    const struct mg_tool *t = mg_tools(c->x->srv, &n);
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) json_array_append_new(a, tool_json(&t[i]));
    if (c->x->srv->fixtures) {
        const struct mg_tool *f = mg_fixture_tools(&n);
        for (size_t i = 0; i < n; i++) json_array_append_new(a, tool_json(&f[i]));
    }
    return json_pack("{s:o}", "tools", a);
}

static void add_meta(struct mg_ctx *x, json_t *res)
{
    if (!x->srv->verbose) return;
    struct mg_session *s = x->session;
    char when[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
    json_t *meta = json_object_get(res, "_meta");
    if (!json_is_object(meta)) json_object_set_new(res, "_meta", meta = json_object());
    pthread_mutex_lock(&s->mu);
    json_t *v = json_pack("{s:s, s:s, s:s, s:s}", "instance", s->instance, "session", s->id, "repo", s->repo, "time",
                          when);
    pthread_mutex_unlock(&s->mu);
    json_object_update(meta, v);
    json_decref(v);
}

static json_t *m_tools_call(struct call *c)
{
    const char *name = json_string_value(json_object_get(c->params, "name"));
    if (!name) return fail(c, MG_RPC_INVALID_PARAMS, "tools/call needs params.name (a string)");
    const struct mg_tool *t = mg_tool_find(c->x->srv, name);
    if (!t) return fail(c, MG_RPC_INVALID_PARAMS, "unknown tool '%s'; tools/list shows the tools", name);
    json_t *args = json_object_get(c->params, "arguments");
    if (args && !json_is_object(args) && !json_is_null(args))
        return fail(c, MG_RPC_INVALID_PARAMS, "params.arguments must be an object");
    json_t *meta = json_object_get(c->params, "_meta");
    json_t *tok = json_object_get(meta, "progressToken");
    c->x->progress_token = (json_is_string(tok) || json_is_integer(tok)) ? tok : NULL;

    json_t *own = args && json_is_object(args) ? json_incref(args) : json_object();
    json_t *result = NULL;
    struct mg_err err = {0};
    int rc = mg_gate_call(c->x, t, own, &result, &err);
    json_decref(own);
    c->x->progress_token = NULL;
    mg_metrics_tool(name, rc == 0 && !json_is_true(json_object_get(result, "isError")));

    json_t *res;
    if (rc != 0) {
        /* No structuredContent: clients validate it against the tool's
         * outputSchema (the TypeScript SDK throws -32602 when it does not
         * match), so the agent would never see the error. The code and the
         * sentence are in the text; the same as data in _meta. */
        json_t *e = mg_err_to_json(c->x, &err);
        char *text = NULL;
        if (asprintf(&text, "error[%s]: %s", err.code ? err.code : MG_E_INTERNAL, err.msg) < 0) text = NULL;
        res = json_pack("{s:[{s:s, s:o}], s:b, s:{s:o}}", "content", "type", "text", "text",
                        mg_json_text(text ? text : "error"), "isError", 1, "_meta", MG_MCP_ERROR_META, e);
        free(text);
    } else if (json_is_array(json_object_get(result, "content"))) {
        res = json_incref(result); /* a result made of content blocks (fixtures) */
    } else {
        char *text = json_dumps(result, JSON_COMPACT);
        res = json_pack("{s:[{s:s, s:s}], s:O}", "content", "type", "text", "text", text ? text : "{}",
                        "structuredContent", result);
        free(text);
    }
    json_decref(result);
    add_meta(c->x, res);
    return res;
}

static json_t *dispatch(struct call *c)
{
    struct mg_session *s = c->x->session;
    const char *m = c->method;
    if (strcmp(m, "ping") == 0) return json_object();
    if (strcmp(m, "initialize") == 0) return m_initialize(c);
    pthread_mutex_lock(&s->mu);
    bool init = s->initialized;
    pthread_mutex_unlock(&s->mu);
    if (!init) return fail(c, MG_RPC_INVALID_REQUEST, "not initialized: send initialize first");
    if (strcmp(m, "logging/setLevel") == 0) return m_set_level(c);
    if (strcmp(m, "tools/list") == 0) return m_tools_list(c);
    if (strcmp(m, "tools/call") == 0) return m_tools_call(c);
    if (c->x->srv->fixtures) {
        json_t *r = NULL;
        int code = 0;
        const char *msg = NULL;
        if (mg_fixtures_handle(c->x, m, c->params, &r, &code, &msg)) {
            if (r) return r;
            return fail(c, code ? code : MG_RPC_INTERNAL_ERROR, "%s", msg ? msg : "fixture failed");
        }
    }
    return fail(c, MG_RPC_METHOD_NOT_FOUND, "method '%s' not found", m);
}

static void notification(struct mg_ctx *x, const char *m)
{
    struct mg_session *s = x->session;
    pthread_mutex_lock(&s->mu);
    if (strcmp(m, "notifications/initialized") == 0) {
        s->ready = true;
    } else if (strcmp(m, "notifications/roots/list_changed") == 0) {
        if (s->roots != MG_ROOTS_NONE || !s->repo[0]) s->roots = MG_ROOTS_UNKNOWN;
    }
    pthread_mutex_unlock(&s->mu);
    /* notifications/cancelled and others: nothing to do */
}

/* One message of a batch or alone. Returns the response, or NULL. */
static json_t *handle_one(struct mg_ctx *x, json_t *m)
{
    if (!json_is_object(m))
        return mg_rpc_error(NULL, MG_RPC_INVALID_REQUEST, "invalid request: a message must be a JSON object", NULL);
    json_t *id = json_object_get(m, "id");
    json_t *method = json_object_get(m, "method");
    const char *ver = json_string_value(json_object_get(m, "jsonrpc"));
    if (!method && (json_object_get(m, "result") || json_object_get(m, "error"))) {
        deliver(x->session, m);
        return NULL;
    }
    if (!ver || strcmp(ver, "2.0") != 0)
        return mg_rpc_error(id_valid(id) ? id : NULL, MG_RPC_INVALID_REQUEST,
                            "invalid request: \"jsonrpc\" must be \"2.0\"", NULL);
    if (!json_is_string(method))
        return mg_rpc_error(id_valid(id) ? id : NULL, MG_RPC_INVALID_REQUEST,
                            "invalid request: \"method\" must be a string", NULL);
    json_t *params = json_object_get(m, "params");
    if (params && !json_is_object(params) && !json_is_array(params))
        return mg_rpc_error(id_valid(id) ? id : NULL, MG_RPC_INVALID_REQUEST,
                            "invalid request: \"params\" must be an object", NULL);
    if (!id) {
        notification(x, json_string_value(method));
        return NULL;
    }
    if (!id_valid(id))
        return mg_rpc_error(NULL, MG_RPC_INVALID_REQUEST, "invalid request: \"id\" must be a string or an integer",
                            NULL);
    if (params && !json_is_object(params))
        return mg_rpc_error(id, MG_RPC_INVALID_PARAMS, "\"params\" must be an object", NULL);
    struct call c = {.x = x, .id = id, .params = params ? params : NULL, .method = json_string_value(method)};
    json_t *empty = NULL;
    if (!c.params) c.params = empty = json_object();
    json_t *r = dispatch(&c);
    json_decref(empty);
    if (!r) return mg_rpc_error(id, c.code, c.message, c.data);
    json_t *resp = result_msg(id, r);
    json_decref(r);
    return resp;
}

void mg_rpc_handle(struct mg_ctx *x, json_t *msg, json_t **reply)
{
    *reply = NULL;
    if (!json_is_array(msg)) {
        *reply = handle_one(x, msg);
        return;
    }
    if (json_array_size(msg) == 0) {
        *reply = mg_rpc_error(NULL, MG_RPC_INVALID_REQUEST, "invalid request: an empty batch", NULL);
        return;
    }
    pthread_mutex_lock(&x->session->mu);
    bool batches = strcmp(x->session->protocol, "2025-03-26") == 0;
    pthread_mutex_unlock(&x->session->mu);
    if (!batches) {
        *reply = mg_rpc_error(NULL, MG_RPC_INVALID_REQUEST,
                              "invalid request: batches are only allowed with protocol version 2025-03-26", NULL);
        return;
    }
    json_t *out = json_array();
    size_t i;
    json_t *m;
    json_array_foreach(msg, i, m)
    {
        json_t *r = handle_one(x, m);
        if (r) json_array_append_new(out, r);
    }
    if (json_array_size(out) == 0) json_decref(out);
    else *reply = out;
}
