/* rpc.c — the MCP lifecycle and methods (rpc.h).
 *
 * Sections:
 *   1. versions, log levels, root URIs
 *   2. server-to-client requests and notifications
 *   3. the channel a tool call gets (progress, log, roots) and the fixtures' I/O
 *   4. methods
 *   5. dispatch: one message, a batch
 */
#include "mcp/rpc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcp/fixtures.h"
#include "tools/tools.h"
#include "util/json.h"
#include "util/metrics.h"
#include "util/version.h"

#define ROOTS_TIMEOUT_MS 10000

/* ---- 1. versions, log levels, root URIs ----------------------------------------------------- */

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

static int hex(int c) { return c >= '0' && c <= '9' ? c - '0' : (c | 32) >= 'a' && (c | 32) <= 'f' ? (c | 32) - 'a' + 10 : -1; }

char *mg_uri_to_path(const char *uri)
{
    if (strncmp(uri, "file://", 7) == 0) {
        uri += 7;
        if (strncmp(uri, "localhost/", 10) == 0) uri += 9;
    }
    if (*uri != '/') return NULL;
    char *p = malloc(strlen(uri) + 1), *o = p;
    if (!p) return NULL;
    for (const char *s = uri; *s; s++) {
        if (*s == '%') {
            int h = hex(s[1]), l = h < 0 ? -1 : hex(s[2]);
            if (h < 0 || l < 0 || (h == 0 && l == 0)) {
                free(p);
                return NULL;
            }
            *o++ = (char)(h * 16 + l);
            s += 2;
        } else {
            *o++ = *s;
        }
    }
    *o = 0;
    return p;
}

/* ---- 2. server-to-client requests and notifications ------------------------------------------------ */

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

/* Send a request to the client and wait for its result (new reference), or
 * NULL with err: unsupported (the channel cannot carry it), timeout, or the
 * client's error. */
static json_t *request(const struct mg_rpc_conn *c, const char *method, json_t *params, int timeout_ms,
                       struct mg_err *err)
{
    struct mg_session *s = c->session;
    if (!c->out) {
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
    int sent = c->out->send(c->out, msg);
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

static void notify(const struct mg_rpc_conn *c, const char *method, json_t *params)
{
    if (!c->out) {
        json_decref(params);
        return;
    }
    json_t *m = json_pack("{s:s, s:s, s:o}", "jsonrpc", "2.0", "method", method, "params", params);
    c->out->send(c->out, m);
    json_decref(m);
}

static void progress(const struct mg_rpc_conn *c, json_t *token, double done, double total, const char *message)
{
    if (!token) return;
    json_t *p = json_pack("{s:O, s:f}", "progressToken", token, "progress", done);
    if (total > 0) json_object_set_new(p, "total", json_real(total));
    if (message) json_object_set_new(p, "message", json_string(message));
    notify(c, "notifications/progress", p);
}

static void log_line(const struct mg_rpc_conn *c, const char *level, const char *message)
{
    int lv = level_index(level);
    pthread_mutex_lock(&c->session->mu);
    int want = c->session->log_level;
    pthread_mutex_unlock(&c->session->mu);
    if (lv < 0 || lv > want) return;
    notify(c, "notifications/message",
           json_pack("{s:s, s:s, s:o}", "level", levels[lv], "logger", "memgate", "data", mg_json_text(message)));
}

/* ---- 3. the channel of a tool call, the fixtures' I/O ---------------------------------------------- */

struct channel {
    struct mg_channel ch;          /* first: the request's channel */
    struct mg_fixture_io io;       /* the fixtures' */
    const struct mg_rpc_conn *c;
    json_t *token;                 /* the call's _meta.progressToken, or NULL (borrowed) */
    double last;                   /* the last progress sent: each must be greater (MCP) */
    bool sent;
};

static struct channel *of_ch(struct mg_channel *ch) { return (struct channel *)ch; }
static struct channel *of_io(struct mg_fixture_io *io)
{
    return (struct channel *)((char *)io - offsetof(struct channel, io));
}

static void ch_progress(struct mg_channel *ch, double done, double total, const char *message)
{
    struct channel *c = of_ch(ch);
    if (c->sent && done <= c->last) return; /* progress must increase with each notification */
    c->sent = true;
    c->last = done;
    progress(c->c, c->token, done, total, message);
}

static void ch_log(struct mg_channel *ch, const char *level, const char *message)
{
    log_line(of_ch(ch)->c, level, message);
}

static int ch_roots(struct mg_channel *ch, char ***paths, size_t *n, struct mg_err *err)
{
    *paths = NULL;
    *n = 0;
    json_t *r = request(of_ch(ch)->c, "roots/list", NULL, ROOTS_TIMEOUT_MS, err);
    if (!r) return -1;
    json_t *roots = json_object_get(r, "roots"), *e;
    size_t i;
    char **v = calloc(json_array_size(roots) + 1, sizeof(char *));
    json_array_foreach(roots, i, e)
    {
        const char *uri = json_string_value(json_object_get(e, "uri"));
        char *p = uri && v ? mg_uri_to_path(uri) : NULL;
        if (p) v[(*n)++] = p;
    }
    json_decref(r);
    *paths = v;
    return v ? 0 : mg_err_set(err, MG_E_NO_MEMORY, "out of memory");
}

static void io_log(struct mg_fixture_io *io, const char *level, const char *message)
{
    log_line(of_io(io)->c, level, message);
}

static void io_progress(struct mg_fixture_io *io, double done, double total, const char *message)
{
    progress(of_io(io)->c, of_io(io)->token, done, total, message);
}

static json_t *io_request(struct mg_fixture_io *io, const char *method, json_t *params, int timeout_ms,
                          struct mg_err *err)
{
    return request(of_io(io)->c, method, params, timeout_ms, err);
}

/* ---- 4. methods ----------------------------------------------------------------------------------- */

struct call {
    const struct mg_rpc_conn *c;
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

/* The server's instructions: a short guide to every tool (a test checks that
 * each is named). */
#define MG_MCP_INSTRUCTIONS                                                                                        \
    "memgate: code search and memory for indexed repos. Start with get_context (one block, within a token "       \
    "budget, of the code, notes and memory a prompt needs) or repo_map (the central files and definitions of a "   \
    "repo you do not know). Code: search_code (lexical, regex, symbol, semantic or hybrid), search_symbols, "       \
    "outline (a file's definitions, no bodies), read_file, list_files. Before changing code: find_references, "    \
    "callers, callees, trace_path (how one function reaches another), impact (what a change touches, ranked; run " \
    "it before committing). Repos: list_repos, index_repo, index_status, get_repo_settings, set_repo_settings. "  \
    "set_scope narrows every later search of this session (get_scope, clear_scope). Memory: notes are durable "    \
    "facts about a repo (set_note, get_note, list_notes, search_notes, delete_note); episodes are what sessions "   \
    "did (remember, recall), shared within a project (create_project, list_projects, join_project, "              \
    "leave_project, delete_project); entities are named things (add_entities, search_entities, retag_entities); "  \
    "an agent's preferences hold in every repo (save_preference, get_profile). Calls act on the repo this "        \
    "session is bound to (the client's roots, or the directory memgate mcp runs in); when several repos are "      \
    "indexed and none is bound, pass `repo` (list_repos shows the ids)."

static json_t *m_initialize(struct call *c)
{
    struct mg_session *s = c->c->session;
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
    if (c->c->srv->fixtures) mg_fixtures_capabilities(scaps);
    return json_pack("{s:s, s:o, s:{s:s, s:s, s:s}, s:s}", "protocolVersion", ver, "capabilities", scaps,
                     "serverInfo", "name", "memgate", "title", "memgate code search", "version", MG_VERSION,
                     "instructions",
                     MG_MCP_INSTRUCTIONS);
}

static json_t *m_set_level(struct call *c)
{
    int lv = level_index(json_string_value(json_object_get(c->params, "level")));
    if (lv < 0)
        return fail(c, MG_RPC_INVALID_PARAMS,
                    "params.level must be one of debug, info, notice, warning, error, critical, alert, emergency");
    pthread_mutex_lock(&c->c->session->mu);
    c->c->session->log_level = lv;
    pthread_mutex_unlock(&c->c->session->mu);
    return json_object();
}

/* hints: MG_TOOL_* (tools/tools.h), or ~0u for none (the conformance fixtures') */
static json_t *tool_json(const char *name, const char *title, const char *description, const char *input,
                         const char *output, unsigned hints)
{
    json_error_t je;
    json_t *o = json_pack("{s:s, s:s}", "name", name, "description", description);
    if (title) json_object_set_new(o, "title", json_string(title));
    /* annotations: only what differs from MCP's defaults (read-write, destructive, not idempotent, open world) */
    if (hints != ~0u) {
        json_t *a = json_pack("{s:b}", "openWorldHint", 0);
        if (hints & MG_TOOL_READ_ONLY) json_object_set_new(a, "readOnlyHint", json_true());
        else if (!(hints & MG_TOOL_DESTRUCTIVE)) json_object_set_new(a, "destructiveHint", json_false());
        if (!(hints & MG_TOOL_READ_ONLY) && (hints & MG_TOOL_IDEMPOTENT))
            json_object_set_new(a, "idempotentHint", json_true());
        json_object_set_new(o, "annotations", a);
    }
    json_t *in = json_loads(input, 0, &je);
    json_object_set_new(o, "inputSchema", in ? in : json_pack("{s:s}", "type", "object"));
    if (output) {
        json_t *out = json_loads(output, 0, &je);
        if (out) json_object_set_new(o, "outputSchema", out);
    }
    return o;
}

static json_t *m_tools_list(struct call *c)
{
    size_t n;
    const struct mg_tool *t = mg_tools(&n);
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, tool_json(t[i].name, t[i].title, t[i].description, t[i].input_schema,
                                           t[i].output_schema, t[i].hints));
    if (c->c->srv->fixtures) {
        const struct mg_fixture_tool *f = mg_fixture_tools(&n);
        for (size_t i = 0; i < n; i++)
            json_array_append_new(a, tool_json(f[i].name, f[i].title, f[i].description, f[i].input_schema,
                                               f[i].output_schema, ~0u));
    }
    return json_pack("{s:o}", "tools", a);
}

static const struct mg_fixture_tool *fixture_find(const struct mg_server *srv, const char *name)
{
    if (!srv->fixtures) return NULL;
    size_t n;
    const struct mg_fixture_tool *f = mg_fixture_tools(&n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(f[i].name, name) == 0) return &f[i];
    return NULL;
}

static void add_meta(const struct mg_rpc_conn *c, json_t *res)
{
    if (!c->srv->verbose) return;
    struct mg_session *s = c->session;
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

/* The CallToolResult of a failed call: no structuredContent (see rpc.h). */
static json_t *error_result(const struct mg_err *err, json_t *data)
{
    char *text = NULL;
    if (asprintf(&text, "error[%s]: %s", err->code ? err->code : MG_E_INTERNAL, err->msg) < 0) text = NULL;
    json_t *res = json_pack("{s:[{s:s, s:o}], s:b}", "content", "type", "text", "text",
                            mg_json_text(text ? text : "error"), "isError", 1);
    free(text);
    if (data) json_object_set_new(res, "_meta", json_pack("{s:o}", MG_MCP_ERROR_META, data));
    return res;
}

static json_t *m_tools_call(struct call *c)
{
    const char *name = json_string_value(json_object_get(c->params, "name"));
    if (!name) return fail(c, MG_RPC_INVALID_PARAMS, "tools/call needs params.name (a string)");
    const struct mg_tool *t = mg_tool_find(name);
    const struct mg_fixture_tool *ft = t ? NULL : fixture_find(c->c->srv, name);
    if (!t && !ft) return fail(c, MG_RPC_INVALID_PARAMS, "unknown tool '%s'; tools/list shows the tools", name);
    json_t *args = json_object_get(c->params, "arguments");
    if (args && !json_is_object(args) && !json_is_null(args))
        return fail(c, MG_RPC_INVALID_PARAMS, "params.arguments must be an object");
    if (!json_is_object(args)) args = NULL;
    json_t *tok = json_object_get(json_object_get(c->params, "_meta"), "progressToken");
    struct channel ch = {
        .ch = {ch_progress, ch_log, ch_roots},
        .io = {io_log, io_progress, io_request},
        .c = c->c,
        .token = (json_is_string(tok) || json_is_integer(tok)) ? tok : NULL,
    };

    json_t *result = NULL, *res;
    struct mg_err err = {0};
    if (ft) { /* a conformance fixture: MCP-level, no repo, no memory */
        json_t *own = args ? json_incref(args) : json_object();
        int rc = ft->call(&ch.io, own, &result, &err);
        json_decref(own);
        mg_metrics_tool(name, rc == 0 && !json_is_true(json_object_get(result, "isError")));
        res = rc == 0 ? result : error_result(&err, NULL);
        if (rc != 0) json_decref(result);
        add_meta(c->c, res);
        return res;
    }
    struct mg_request_spec spec = {
        .srv = c->c->srv,
        .who = c->c->who,
        .session = c->c->session,
        .repo_header = c->c->repo_header,
        .cwd = c->c->cwd,
        .channel = &ch.ch,
        .op = t->name,
    };
    struct mg_ctx x;
    if (mg_request_init(&x, &spec, &err) != 0) {
        res = error_result(&err, NULL);
    } else if (mg_tools_call(&x, t, args, &result, &err) != 0) {
        res = error_result(&err, mg_tools_error_json(&x, &err));
    } else {
        /* the text is the result for an agent to read (mg_tools_text: compact,
         * numbers rounded); structuredContent keeps it exact */
        char *text = mg_tools_text(t, result);
        res = json_pack("{s:[{s:s, s:s}], s:O}", "content", "type", "text", "text", text ? text : "",
                        "structuredContent", result);
        free(text);
    }
    json_decref(result);
    if (x.srv) mg_request_release(&x);
    add_meta(c->c, res);
    return res;
}

static json_t *dispatch(struct call *c)
{
    struct mg_session *s = c->c->session;
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
    if (c->c->srv->fixtures) {
        json_t *r = NULL;
        int code = 0;
        const char *msg = NULL;
        if (mg_fixtures_handle(m, c->params, &r, &code, &msg)) {
            if (r) return r;
            return fail(c, code ? code : MG_RPC_INTERNAL_ERROR, "%s", msg ? msg : "fixture failed");
        }
    }
    return fail(c, MG_RPC_METHOD_NOT_FOUND, "method '%s' not found", m);
}

/* ---- 5. dispatch ------------------------------------------------------------------------------------ */

static void notification(const struct mg_rpc_conn *c, const char *m)
{
    struct mg_session *s = c->session;
    pthread_mutex_lock(&s->mu);
    if (strcmp(m, "notifications/initialized") == 0) {
        s->ready = true;
    } else if (strcmp(m, "notifications/roots/list_changed") == 0) {
        if (s->roots != MG_ROOTS_NONE || !s->repo[0]) s->roots = MG_ROOTS_UNKNOWN;
    }
    pthread_mutex_unlock(&s->mu);
    /* notifications/cancelled and others: nothing to do */
}

static bool id_valid(json_t *id) { return json_is_string(id) || json_is_integer(id); }

/* One message of a batch or alone. Returns the response, or NULL. */
static json_t *handle_one(const struct mg_rpc_conn *c, json_t *m)
{
    if (!json_is_object(m))
        return mg_rpc_error(NULL, MG_RPC_INVALID_REQUEST, "invalid request: a message must be a JSON object", NULL);
    json_t *id = json_object_get(m, "id");
    json_t *method = json_object_get(m, "method");
    const char *ver = json_string_value(json_object_get(m, "jsonrpc"));
    if (!method && (json_object_get(m, "result") || json_object_get(m, "error"))) {
        deliver(c->session, m);
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
        notification(c, json_string_value(method));
        return NULL;
    }
    if (!id_valid(id))
        return mg_rpc_error(NULL, MG_RPC_INVALID_REQUEST, "invalid request: \"id\" must be a string or an integer",
                            NULL);
    if (params && !json_is_object(params))
        return mg_rpc_error(id, MG_RPC_INVALID_PARAMS, "\"params\" must be an object", NULL);
    struct call call = {.c = c, .id = id, .params = params, .method = json_string_value(method)};
    json_t *empty = NULL;
    if (!call.params) call.params = empty = json_object();
    json_t *r = dispatch(&call);
    json_decref(empty);
    if (!r) return mg_rpc_error(id, call.code, call.message, call.data);
    json_t *resp = json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id, "result", r);
    return resp;
}

void mg_rpc_handle(const struct mg_rpc_conn *c, json_t *msg, json_t **reply)
{
    *reply = NULL;
    if (!json_is_array(msg)) {
        *reply = handle_one(c, msg);
        return;
    }
    if (json_array_size(msg) == 0) {
        *reply = mg_rpc_error(NULL, MG_RPC_INVALID_REQUEST, "invalid request: an empty batch", NULL);
        return;
    }
    pthread_mutex_lock(&c->session->mu);
    bool batches = strcmp(c->session->protocol, "2025-03-26") == 0;
    pthread_mutex_unlock(&c->session->mu);
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
        json_t *r = handle_one(c, m);
        if (r) json_array_append_new(out, r);
    }
    if (json_array_size(out) == 0) json_decref(out);
    else *reply = out;
}
