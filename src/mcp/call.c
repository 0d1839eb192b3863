/* call.c — tools/call: the session a call runs in, the channel its tool
 * gets (progress, log lines, roots, sampling; an extension's I/O), and its
 * result (rpc_int.h).
 *
 * Sections:
 *   1. a failed call, root URIs
 *   2. server-to-client requests and notifications
 *   3. the channel of a tool call, an extension's I/O
 *   4. the call: its session, its result
 */
#include "mcp/rpc_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcp/conn.h"
#include "mcp/ext.h"
#include "tools/tools.h"
#include "util/json.h"
#include "util/llm.h"
#include "util/metrics.h"

#define ROOTS_TIMEOUT_MS 10000

/* ---- 1. a failed call, root URIs -------------------------------------------------------------------- */

json_t *mg__rpc_fail(struct mg__call *c, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->message, sizeof(c->message), fmt, ap);
    va_end(ap);
    c->code = code;
    return NULL;
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

/* Send a request to the client and wait for its result (new reference), or
 * NULL with err: unsupported (the channel cannot carry it), timeout, or the
 * client's error. */
static json_t *request(const struct mg_rpc_conn *c, const char *method, json_t *params, int timeout_ms,
                       struct mg_err *err)
{
    struct mg_mcp_conn *k = c->stateless ? NULL : mg_mcp_conn_of(c->session);
    if (c->stateless) { /* 2026-07-28: input requests ride in an InputRequiredResult instead */
        mg_err_set(err, MG_E_UNSUPPORTED, "a 2026-07-28 request cannot send '%s' to the client", method);
        return NULL;
    }
    if (!c->out || !k) {
        mg_err_set(err, MG_E_UNSUPPORTED, "this transport cannot send '%s' to the client", method);
        return NULL;
    }
    return mg_mcp_conn_request(k, c->out, method, params, timeout_ms, err);
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

/* A log line at level, sent when the client asked for that level or a
 * lower one: on its connection (logging/setLevel, read at each line), or in
 * a 2026-07-28 request's _meta (want; -1: none). */
static void log_line(const struct mg_rpc_conn *c, int want, const char *level, const char *message)
{
    int lv = mg_mcp_log_level_index(level);
    struct mg_mcp_conn *k = c->stateless ? NULL : mg_mcp_conn_of(c->session);
    if (k) want = mg_mcp_conn_log_level(k);
    if (lv < 0 || lv > want) return;
    notify(c, "notifications/message",
           json_pack("{s:s, s:s, s:o}", "level", mg_mcp_log_level_name(lv), "logger", "memgate", "data", mg_json_text(message)));
}

/* ---- 3. the channel of a tool call, an extension's I/O ---------------------------------------------- */

struct channel {
    struct mg_channel ch;          /* first: the request's channel */
    struct mg_mcp_io io;           /* an extension's tools' */
    const struct mg_rpc_conn *c;
    json_t *token;                 /* the call's _meta.progressToken, or NULL (borrowed) */
    double last;                   /* the last progress sent: each must be greater (MCP) */
    bool sent;
    bool sampling;                 /* the client declared sampling (at initialize, or in the request's _meta) */
    int log_level;                 /* a 2026-07-28 request's _meta logLevel (-1: none) */
    /* 2026-07-28: the client's answers so far (params.inputResponses over
     * those carried in requestState, owned) and what the call still needs
     * (an InputRequiredResult's inputRequests, owned) */
    json_t *answers, *inputs;
};

static struct channel *of_ch(struct mg_channel *ch) { return (struct channel *)ch; }
static struct channel *of_io(struct mg_mcp_io *io)
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
    log_line(of_ch(ch)->c, of_ch(ch)->log_level, level, message);
}

/* The `tools` tool's groups: kept on a connection of the handshake era,
 * which hears notifications/tools/list_changed when they change. */
static int ch_tool_groups(struct mg_channel *ch, unsigned enable, unsigned disable, unsigned *now)
{
    const struct mg_rpc_conn *c = of_ch(ch)->c;
    struct mg_mcp_conn *k = c->stateless ? NULL : mg_mcp_conn_of(c->session);
    if (!k) return -1;
    unsigned before;
    *now = mg_mcp_conn_tool_groups(k, enable, disable, &before);
    if (*now != before) notify(c, "notifications/tools/list_changed", json_object());
    return 0;
}

/* A ListRootsResult's roots as paths (v malloc'd, NULL-terminated). */
static int roots_paths(json_t *r, char ***paths, size_t *n, struct mg_err *err)
{
    json_t *roots = json_object_get(r, "roots"), *e;
    size_t i;
    char **v = calloc(json_array_size(roots) + 1, sizeof(char *));
    json_array_foreach(roots, i, e)
    {
        const char *uri = json_string_value(json_object_get(e, "uri"));
        char *p = uri && v ? mg_uri_to_path(uri) : NULL;
        if (p) v[(*n)++] = p;
    }
    *paths = v;
    return v ? 0 : mg_err_oom(err);
}

static int ch_roots(struct mg_channel *ch, char ***paths, size_t *n, struct mg_err *err)
{
    *paths = NULL;
    *n = 0;
    struct channel *cc = of_ch(ch);
    if (cc->io.modern) { /* the roots come with the retry of an InputRequiredResult */
        json_t *r = json_object_get(cc->answers, "roots");
        if (!json_is_object(r)) {
            json_object_set_new(cc->inputs, "roots", json_pack("{s:s, s:{}}", "method", "roots/list", "params"));
            return mg_err_set(err, MG_E_INPUT_REQUIRED, "the call needs the client's workspace roots");
        }
        return roots_paths(r, paths, n, err);
    }
    json_t *r = request(cc->c, "roots/list", NULL, ROOTS_TIMEOUT_MS, err);
    if (!r) return -1;
    int rc = roots_paths(r, paths, n, err);
    json_decref(r);
    return rc;
}

/* The text of a CreateMessageResult: 0 with *text (malloc'd), or -1. */
static int sample_text(json_t *r, char **text, struct mg_err *err)
{
    json_t *content = json_object_get(r, "content"), *part = content;
    if (json_is_array(content)) { /* 2025-11-25: a list of blocks; the first text one */
        size_t i;
        part = NULL;
        json_t *b;
        json_array_foreach(content, i, b) if (json_is_string(json_object_get(b, "text")))
        {
            part = b;
            break;
        }
    }
    json_t *t = json_object_get(part, "text");
    if (!json_is_string(t) || json_string_length(t) == 0)
        return mg_err_set(err, MG_E_LLM_BAD_RESPONSE, "the client's model answered sampling/createMessage without "
                          "text");
    if (json_string_length(t) > MG_LLM_MAX_COMPLETION || strlen(json_string_value(t)) != json_string_length(t))
        return mg_err_set(err, MG_E_LLM_BAD_RESPONSE, "the client's model answered more than %u bytes (or a NUL)",
                          MG_LLM_MAX_COMPLETION);
    if (!(*text = strdup(json_string_value(t)))) return mg_err_oom(err);
    return 0;
}

static int ch_sample(struct mg_channel *ch, const char *system, const char *user, int max_tokens, int timeout_ms,
                     char **text, struct mg_err *err)
{
    *text = NULL;
    struct channel *cc = of_ch(ch);
    if (cc->io.modern) { /* the completion comes with the retry of an InputRequiredResult */
        json_t *r = json_object_get(cc->answers, "sampling");
        if (json_is_object(r)) return sample_text(r, text, err);
    }
    if (!cc->sampling)
        return mg_err_set(err, MG_E_UNSUPPORTED, "the client did not declare the sampling capability%s",
                          cc->io.modern ? " in _meta[\"io.modelcontextprotocol/clientCapabilities\"]" : " at initialize");
    json_t *params = json_pack("{s:[{s:s, s:{s:s, s:s}}], s:s, s:i, s:s, s:i}", "messages", "role", "user", "content",
                               "type", "text", "text", user, "systemPrompt", system, "maxTokens", max_tokens,
                               "includeContext", "none", "temperature", 0);
    if (!params) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory (or the prompt is not UTF-8)");
    if (cc->io.modern) {
        json_object_set_new(cc->inputs, "sampling",
                            json_pack("{s:s, s:o}", "method", "sampling/createMessage", "params", params));
        return mg_err_set(err, MG_E_INPUT_REQUIRED, "the call needs a completion from the client's model");
    }
    json_t *r = request(cc->c, "sampling/createMessage", params, timeout_ms, err);
    json_decref(params);
    if (!r) return -1;
    int rc = sample_text(r, text, err);
    json_decref(r);
    return rc;
}

/* 2026-07-28: the answers a call carries, params.inputResponses over those
 * of earlier rounds that its requestState holds (a new object). The SDKs
 * send only the last round's answers with a retry, so what a call needs
 * from several rounds (roots, then a completion) travels in requestState:
 * "mg1:" and the answers as JSON. It holds nothing the client could not
 * send as inputResponses itself, so it needs no seal; a state that is not
 * one is ignored (the call asks again). */
#define STATE_PREFIX "mg1:"
#define STATE_MAX (256u << 10)
static json_t *call_answers(json_t *params)
{
    json_t *all = NULL;
    const char *st = json_string_value(json_object_get(params, "requestState"));
    if (st && strncmp(st, STATE_PREFIX, 4) == 0 && strlen(st) <= STATE_MAX) {
        all = json_loads(st + 4, JSON_REJECT_DUPLICATES, NULL);
        if (!json_is_object(all)) {
            json_decref(all);
            all = NULL;
        }
    }
    if (!all) all = json_object();
    json_t *in = json_object_get(params, "inputResponses");
    if (json_is_object(in)) json_object_update(all, in);
    return all;
}

/* The requestState carrying answers to the next round, or NULL (none, or too large). */
static char *state_out(json_t *answers)
{
    if (!answers || json_object_size(answers) == 0) return NULL;
    char *j = json_dumps(answers, JSON_COMPACT);
    char *s = NULL;
    if (j && strlen(j) + 4 <= STATE_MAX && asprintf(&s, STATE_PREFIX "%s", j) < 0) s = NULL;
    free(j);
    return s;
}

static void io_log(struct mg_mcp_io *io, const char *level, const char *message)
{
    log_line(of_io(io)->c, of_io(io)->log_level, level, message);
}

static void io_progress(struct mg_mcp_io *io, double done, double total, const char *message)
{
    progress(of_io(io)->c, of_io(io)->token, done, total, message);
}

static json_t *io_request(struct mg_mcp_io *io, const char *method, json_t *params, int timeout_ms,
                          struct mg_err *err)
{
    return request(of_io(io)->c, method, params, timeout_ms, err);
}

/* ---- 4. the call: its session, its result ------------------------------------------------------------ */

bool mg__rpc_tasks_declared(const struct mg__call *c)
{
    return c->modern && json_object_get(json_object_get(c->caps, "extensions"), MG__TASKS_EXT) != NULL;
}

/* MEMGATE_VERBOSE: the session a result was made in, in its _meta. */
static void add_meta(const struct mg_server *srv, struct mg_session *s, json_t *res)
{
    if (!srv->verbose || !s) return;
    char when[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
    json_t *meta = json_object_get(res, "_meta");
    if (!json_is_object(meta)) json_object_set_new(res, "_meta", meta = json_object());
    char repo[MG_ID_MAX + 1];
    mg_session_repo(s, repo);
    json_t *v = json_pack("{s:s, s:s, s:s, s:s}", "instance", mg_session_instance(s), "session", mg_session_id(s),
                          "repo", repo, "time", when);
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

/* A 2026-07-28 request's own say on an unbound session s (a fresh one, or
 * a handle not bound yet): the workspace root in _meta["memgate/root"],
 * else, when the client declared roots, roots to ask for (an
 * InputRequiredResult when the call needs them). A bound session keeps its
 * binding. 0, or -1 with err (a root that is neither a path nor a file URI). */
static int request_binding(struct mg__call *c, struct mg_session *s, struct mg_err *err)
{
    json_t *meta = json_object_get(c->params, "_meta");
    const char *root = json_string_value(json_object_get(meta, MG_MCP_ROOT_META));
    char *path = root ? mg_uri_to_path(root) : NULL;
    if (root && !path)
        return mg_err_set(err, MG_E_BAD_ARG, "_meta[\"%s\"] must be an absolute path or a file:// URI",
                          MG_MCP_ROOT_META);
    /* the gate binds it (indexing it first if it must) */
    mg_session_offer_root(s, path, json_is_object(json_object_get(c->caps, "roots")));
    free(path);
    return 0;
}

/* The session a tools/call runs in: the one its `handle` argument names
 * (then taken off *args), else for a 2026-07-28 request a fresh one of its
 * own, else the connection's. A reference held; NULL with err. */
static struct mg_session *call_session(struct mg__call *c, json_t **args, struct mg_err *err)
{
    struct mg_sessions *reg = c->c->srv->sessions;
    json_t *h = *args ? json_object_get(*args, "handle") : NULL;
    if (h) {
        const char *id = json_string_value(h);
        if (!id) {
            mg_err_set(err, MG_E_BAD_ARG, "argument 'handle' must be a string (open_handle returns one)");
            return NULL;
        }
        enum mg_lookup how = MG_SESSION_UNKNOWN;
        struct mg_session *s = mg_sessions_lookup(reg, id, c->c->who->tenant, &how, err);
        if (how == MG_SESSION_ERROR) return NULL; /* PostgreSQL: storage_unavailable */
        if (s && (mg_session_kind(s) != MG_SESSION_HANDLE || strcmp(mg_session_tenant(s), c->c->who->tenant) != 0))
            mg_session_unref(&s); /* another tenant's handle does not exist for this caller */
        if (!s) {
            mg_err_set(err, MG_E_HANDLE_INVALID, "handle '%.40s' is %s; call open_handle for a new one", id,
                       how == MG_SESSION_EXPIRED ? "expired" : "unknown");
            return NULL;
        }
        if (c->modern && request_binding(c, s, err) != 0) {
            mg_session_unref(&s);
            return NULL;
        }
        json_t *rest = json_copy(*args);
        json_object_del(rest, "handle");
        *args = rest; /* the caller drops it */
        return s;
    }
    if (*args) json_incref(*args);
    if (!c->modern) {
        mg_session_ref(c->c->session);
        return c->c->session;
    }
    const char *inst = getenv("MEMGATE_INSTANCE_ID");
    /* one request, one session: nobody else can name it */
    struct mg_session *s = mg_sessions_private(reg, MG_SESSION_CLI, inst && *inst ? inst : NULL, c->c->who->tenant, err);
    char bound[MG_ID_MAX + 1] = "";
    if (s && c->c->session) mg_session_repo(c->c->session, bound); /* stdio: `memgate mcp --repo` bound the process */
    if (!s || (bound[0] && mg_session_bind_repo(s, bound, err) != 0) || request_binding(c, s, err) != 0) {
        mg_session_unref(&s);
        json_decref(*args);
        return NULL;
    }
    return s;
}

json_t *mg__rpc_tools_call(struct mg__call *c)
{
    const char *name = json_string_value(json_object_get(c->params, "name"));
    if (!name) return mg__rpc_fail(c, MG_RPC_INVALID_PARAMS, "tools/call needs params.name (a string)");
    const struct mg_tool *t = mg_tool_find(name);
    const struct mg_mcp_ext_tool *ft = t ? NULL : mg__mcp_ext_tool(name);
    if (!t && !ft) return mg__rpc_fail(c, MG_RPC_INVALID_PARAMS, "unknown tool '%s'; tools/list shows the tools", name);
    json_t *args = json_object_get(c->params, "arguments");
    if (args && !json_is_object(args) && !json_is_null(args))
        return mg__rpc_fail(c, MG_RPC_INVALID_PARAMS, "params.arguments must be an object");
    if (!json_is_object(args)) args = NULL;
    json_t *tok = json_object_get(json_object_get(c->params, "_meta"), "progressToken");
    json_t *answers = json_object_get(c->params, "inputResponses");
    bool sampling = json_is_object(json_object_get(c->caps, "sampling"));
    if (!c->modern) sampling = mg_mcp_conn_sampling(mg_mcp_conn_of(c->c->session));
    struct channel ch = {
        .ch = {ch_progress, ch_log, ch_roots, ch_sample, ch_tool_groups},
        .sampling = sampling,
        .log_level = c->log_level,
        .answers = c->modern ? call_answers(c->params) : NULL,
        .inputs = json_object(),
        .io = {io_log, io_progress, io_request, .modern = c->modern,
               .input_responses = json_is_object(answers) ? answers : NULL,
               .request_state = json_string_value(json_object_get(c->params, "requestState")),
               .client_caps = c->caps},
        .c = c->c,
        .token = (json_is_string(tok) || json_is_integer(tok)) ? tok : NULL,
    };

    json_t *result = NULL, *res;
    struct mg_err err = {0};
    struct mg_rpc_conn conn = *c->c; /* the call's: stateless for a modern request */
    if (c->modern) conn.stateless = true;
    ch.c = &conn;
    /* the tasks extension: a tool that can run as a task does when the
     * client declared it; one that must is refused to a client that did not */
    bool declared = mg__rpc_tasks_declared(c);
    enum mg_mcp_task_support support = ft                        ? ft->task_support
                                       : (t->hints & MG_TOOL_TASK) ? MG_MCP_TASK_OPTIONAL
                                                                   : MG_MCP_TASK_FORBIDDEN;
    if (!c->task_stop && support == MG_MCP_TASK_REQUIRED && !declared) {
        json_decref(ch.answers);
        json_decref(ch.inputs);
        c->data = json_pack("{s:{s:{s:{}}}}", "requiredCapabilities", "extensions", MG__TASKS_EXT);
        return mg__rpc_fail(c, MG_RPC_MISSING_CAPABILITY,
                            "tool '%s' runs only as a task: declare the extension \"" MG__TASKS_EXT
                            "\" in _meta[\"io.modelcontextprotocol/clientCapabilities\"].extensions",
                            name);
    }
    if (!c->task_stop && t && support != MG_MCP_TASK_FORBIDDEN && declared) {
        json_decref(ch.answers);
        json_decref(ch.inputs);
        c->to_task = true; /* tasks.c starts it */
        return NULL;
    }
    ch.io.tasks = declared && !c->task_stop;
    ch.io.in_task = c->task_stop != NULL;
    ch.io.stop = c->task_stop;
    if (ft) { /* an extension's tool: MCP-level, no repo, no memory */
        json_t *own = args ? json_incref(args) : json_object();
        int rc = ft->call(&ch.io, own, &result, &err);
        json_decref(own);
        json_decref(ch.answers);
        json_decref(ch.inputs);
        if (rc == MG_MCP_EXT_TASK && ch.io.tasks) { /* the tool chose to run as a task (ext.h; tasks.c starts it) */
            json_decref(result);
            c->to_task = true;
            return NULL;
        }
        if (rc == MG_MCP_EXT_TASK) {
            rc = -1;
            mg_err_set(&err, MG_E_INTERNAL, "tool '%s' asked to run as a task where it cannot", name);
        }
        if (rc == MG_MCP_EXT_RPC_ERROR) { /* a JSON-RPC error the tool chose (ext.h) */
            mg_metrics_tool(name, false);
            json_t *code = json_object_get(result, "code");
            const char *msg = json_string_value(json_object_get(result, "message"));
            c->data = json_incref(json_object_get(result, "data"));
            mg__rpc_fail(c, json_is_integer(code) ? (int)json_integer_value(code) : MG_RPC_INTERNAL_ERROR, "%s",
                 msg ? msg : "extension error");
            json_decref(result);
            return NULL;
        }
        mg_metrics_tool(name, rc == 0 && !json_is_true(json_object_get(result, "isError")));
        res = rc == 0 ? result : error_result(&err, NULL);
        if (rc != 0) json_decref(result);
        add_meta(c->c->srv, c->c->session, res);
        return res;
    }
    struct mg_session *sess = call_session(c, &args, &err);
    if (!sess) {
        res = error_result(&err, json_pack("{s:s, s:s}", "code", err.code, "message", err.msg));
        add_meta(c->c->srv, c->c->session, res);
        json_decref(ch.answers);
        json_decref(ch.inputs);
        return res;
    }
    struct mg_request_spec spec = {
        .srv = c->c->srv,
        .who = c->c->who,
        .session = sess,
        .repo_header = c->c->repo_header,
        .cwd = c->c->cwd,
        .channel = &ch.ch,
        .op = t->name,
    };
    struct mg_ctx x;
    int rc = mg_request_init(&x, &spec, &err);
    if (rc == 0 && c->task_stop) x.stop = c->task_stop; /* tasks/cancel ends its work at its next step */
    if (rc != 0) {
        res = error_result(&err, NULL);
    } else if (mg_tools_call(&x, t, args, &result, &err) != 0) {
        if (c->modern && err.code && strcmp(err.code, MG_E_INPUT_REQUIRED) == 0) {
            /* roots only when the client declared them (call_session), a
             * completion only when it declared sampling (ch_sample) */
            if (json_object_size(ch.inputs) == 0)
                json_object_set_new(ch.inputs, "roots", json_pack("{s:s, s:{}}", "method", "roots/list", "params"));
            res = json_pack("{s:s, s:O}", "resultType", "input_required", "inputRequests", ch.inputs);
            char *st = state_out(ch.answers);
            if (st) json_object_set_new(res, "requestState", json_string(st));
            free(st);
        } else
            res = error_result(&err, mg_tools_error_json(&x, &err));
    } else {
        /* the text is the result for an agent to read (mg_tools_text: compact,
         * numbers rounded); structuredContent keeps it exact */
        char *text = mg_tools_text(t, result);
        res = json_pack("{s:[{s:s, s:o}], s:O}", "content", "type", "text", "text", mg_json_text(text ? text : ""),
                        "structuredContent", result);
        free(text);
    }
    json_decref(result);
    if (x.srv) mg_request_release(&x);
    add_meta(c->c->srv, sess, res);
    mg_session_unref(&sess);
    json_decref(args);
    json_decref(ch.answers);
    json_decref(ch.inputs);
    return res;
}

