/* rpc.c — the MCP lifecycle and methods (rpc.h).
 *
 * Sections:
 *   1. versions, log levels, root URIs
 *   2. server-to-client requests and notifications
 *   3. the channel a tool call gets (progress, log, roots, sampling) and an extension's I/O
 *   4. methods
 *   5. 2026-07-28: discovery, subscriptions, header checks, dispatch
 *   6. dispatch: one message, a batch
 */
#include "mcp/rpc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

#include "mcp/conn.h"
#include "mcp/ext.h"
#include "mcp/listen.h"
#include "tools/tools.h"
#include "util/json.h"
#include "util/llm.h"
#include "util/metrics.h"
#include "util/version.h"

#define ROOTS_TIMEOUT_MS 10000

/* A program's extra tools and methods (ext.h); NULL in the shipped binary. */
static const struct mg_mcp_ext *ext;

void mg_mcp_extend(const struct mg_mcp_ext *e) { ext = e; }

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

bool mg_mcp_log_level_known(const char *name) { return level_index(name) >= 0; }

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
    int lv = level_index(level);
    struct mg_mcp_conn *k = c->stateless ? NULL : mg_mcp_conn_of(c->session);
    if (k) want = mg_mcp_conn_log_level(k);
    if (lv < 0 || lv > want) return;
    notify(c, "notifications/message",
           json_pack("{s:s, s:s, s:o}", "level", levels[lv], "logger", "memgate", "data", mg_json_text(message)));
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

/* ---- 4. methods ----------------------------------------------------------------------------------- */

struct call {
    const struct mg_rpc_conn *c;
    json_t *id, *params;
    const char *method;
    bool modern;         /* a 2026-07-28 request */
    json_t *caps;        /* its client capabilities (borrowed) */
    int log_level;       /* its _meta logLevel, -1 for none (then no log lines) */
    bool no_reply;       /* answered later, or never (a stdio subscriptions/listen) */
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
    "did (remember, recall; extract_knowledge turns a session's into notes), shared within a project "            \
    "(create_project, list_projects, join_project, leave_project, delete_project); entities are named things (add_entities, search_entities, retag_entities); "  \
    "an agent's preferences hold in every repo (save_preference, get_profile). Calls act on the repo this "        \
    "session is bound to (the client's roots, or the directory memgate mcp runs in); when several repos are "      \
    "indexed and none is bound, pass `repo` (list_repos shows the ids). Without a session (protocol 2026-07-28), " \
    "open_handle returns a handle: pass it as `handle` so the binding, scope and memory session carry over. "      \
    "A result with next_cursor has more: pass it as `cursor` with the same arguments."

static json_t *m_initialize(struct call *c)
{
    struct mg_session *s = c->c->session;
    json_t *p = c->params;
    const char *want = json_string_value(json_object_get(p, "protocolVersion"));
    if (!want) return fail(c, MG_RPC_INVALID_PARAMS, "initialize needs params.protocolVersion (a string)");
    const char *ver = mg_mcp_version_supported(want) ? want : MG_MCP_LATEST;
    json_t *caps = json_object_get(p, "capabilities");
    bool roots = json_is_object(json_object_get(caps, "roots"));
    bool sampling = json_is_object(json_object_get(caps, "sampling"));
    /* rootUri / rootPath: not in the MCP schema, but some clients send them */
    const char *root = json_string_value(json_object_get(p, "rootUri"));
    if (!root) root = json_string_value(json_object_get(p, "rootPath"));

    if (mg_mcp_conn_initialize(mg_mcp_conn_of(s), ver, sampling) != 0)
        return fail(c, MG_RPC_INVALID_REQUEST, "the session is already initialized");
    char *path = root ? mg_uri_to_path(root) : NULL;
    mg_session_offer_root(s, path, roots); /* `memgate mcp --repo` binds before initialize and wins */
    free(path);

    json_t *scaps = json_pack("{s:{s:b}, s:{}}", "tools", "listChanged", 0, "logging");
    if (ext && ext->capabilities) ext->capabilities(scaps);
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
    mg_mcp_conn_set_log_level(mg_mcp_conn_of(c->c->session), lv);
    return json_object();
}

/* hints: MG_TOOL_* (tools/tools.h), or ~0u for none (an extension's tools) */
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
        else if (!(hints & MG_TOOL_IDEMPOTENT)) /* all MCP's defaults: said once, so every tool states its writes */
            json_object_set_new(a, "destructiveHint", json_true());
        if (!(hints & MG_TOOL_READ_ONLY) && (hints & MG_TOOL_IDEMPOTENT))
            json_object_set_new(a, "idempotentHint", json_true());
        json_object_set_new(o, "annotations", a);
    }
    json_t *in = json_loads(input, 0, &je);
    if (!in) in = json_pack("{s:s}", "type", "object");
    if (hints != ~0u) { /* every memgate tool takes a handle (open_handle; rpc.c takes it off the arguments) */
        json_t *props = json_object_get(in, "properties");
        if (!json_is_object(props)) json_object_set_new(in, "properties", props = json_object());
        json_object_set_new(props, "handle", json_pack("{s:s}", "type", "string"));
    }
    json_object_set_new(o, "inputSchema", in);
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
    for (size_t i = 0; ext && i < ext->ntools; i++) {
        const struct mg_mcp_ext_tool *f = &ext->tools[i];
        json_array_append_new(a, tool_json(f->name, f->title, f->description, f->input_schema, f->output_schema, ~0u));
    }
    json_t *r = json_pack("{s:o}", "tools", a);
    /* the same for every caller, until the binary changes */
    if (c->modern) json_object_update_new(r, json_pack("{s:i, s:s}", "ttlMs", 3600000, "cacheScope", "public"));
    return r;
}

static const struct mg_mcp_ext_tool *ext_tool(const char *name)
{
    for (size_t i = 0; ext && i < ext->ntools; i++)
        if (strcmp(ext->tools[i].name, name) == 0) return &ext->tools[i];
    return NULL;
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
static int request_binding(struct call *c, struct mg_session *s, struct mg_err *err)
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
static struct mg_session *call_session(struct call *c, json_t **args, struct mg_err *err)
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

static json_t *m_tools_call(struct call *c)
{
    const char *name = json_string_value(json_object_get(c->params, "name"));
    if (!name) return fail(c, MG_RPC_INVALID_PARAMS, "tools/call needs params.name (a string)");
    const struct mg_tool *t = mg_tool_find(name);
    const struct mg_mcp_ext_tool *ft = t ? NULL : ext_tool(name);
    if (!t && !ft) return fail(c, MG_RPC_INVALID_PARAMS, "unknown tool '%s'; tools/list shows the tools", name);
    json_t *args = json_object_get(c->params, "arguments");
    if (args && !json_is_object(args) && !json_is_null(args))
        return fail(c, MG_RPC_INVALID_PARAMS, "params.arguments must be an object");
    if (!json_is_object(args)) args = NULL;
    json_t *tok = json_object_get(json_object_get(c->params, "_meta"), "progressToken");
    json_t *answers = json_object_get(c->params, "inputResponses");
    bool sampling = json_is_object(json_object_get(c->caps, "sampling"));
    if (!c->modern) sampling = mg_mcp_conn_sampling(mg_mcp_conn_of(c->c->session));
    struct channel ch = {
        .ch = {ch_progress, ch_log, ch_roots, ch_sample},
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
    if (ft) { /* an extension's tool: MCP-level, no repo, no memory */
        json_t *own = args ? json_incref(args) : json_object();
        int rc = ft->call(&ch.io, own, &result, &err);
        json_decref(own);
        json_decref(ch.answers);
        json_decref(ch.inputs);
        if (rc == MG_MCP_EXT_RPC_ERROR) { /* a JSON-RPC error the tool chose (ext.h) */
            mg_metrics_tool(name, false);
            json_t *code = json_object_get(result, "code");
            const char *msg = json_string_value(json_object_get(result, "message"));
            c->data = json_incref(json_object_get(result, "data"));
            fail(c, json_is_integer(code) ? (int)json_integer_value(code) : MG_RPC_INTERNAL_ERROR, "%s",
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
    if (mg_request_init(&x, &spec, &err) != 0) {
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
        res = json_pack("{s:[{s:s, s:s}], s:O}", "content", "type", "text", "text", text ? text : "",
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

/* A method of the extension: true when it knows it, with *r the result, or
 * NULL after fail(). */
static bool ext_method(struct call *c, json_t **r)
{
    struct mg_mcp_ext_error fe;
    if (!ext || !ext->handle || !ext->handle(c->method, c->params, r, &fe)) return false;
    if (!*r) {
        c->data = fe.data;
        fail(c, fe.code ? fe.code : MG_RPC_INTERNAL_ERROR, "%s", fe.message[0] ? fe.message : "extension failed");
    }
    return true;
}

static json_t *dispatch(struct call *c)
{
    const char *m = c->method;
    if (strcmp(m, "ping") == 0) return json_object();
    if (strcmp(m, "initialize") == 0) return m_initialize(c);
    if (!mg_mcp_conn_initialized(mg_mcp_conn_of(c->c->session))) return fail(c, MG_RPC_INVALID_REQUEST, "not initialized: send initialize first");
    if (strcmp(m, "logging/setLevel") == 0) return m_set_level(c);
    if (strcmp(m, "tools/list") == 0) return m_tools_list(c);
    if (strcmp(m, "tools/call") == 0) return m_tools_call(c);
    json_t *r = NULL;
    if (ext_method(c, &r)) return r;
    return fail(c, MG_RPC_METHOD_NOT_FOUND, "method '%s' not found", m);
}

/* ---- 5. 2026-07-28: discovery, subscriptions, header checks, dispatch -------------------------------- */

#define META_VERSION "io.modelcontextprotocol/protocolVersion"
#define META_CAPS "io.modelcontextprotocol/clientCapabilities"
#define META_LOG "io.modelcontextprotocol/logLevel"
#define META_SERVER "io.modelcontextprotocol/serverInfo"

/* Every version this server speaks: the modern one, then the legacy ones
 * (initialize). */
static json_t *all_versions(void)
{
    json_t *a = json_pack("[s]", MG_MCP_MODERN);
    for (int i = 0; mg_mcp_versions[i]; i++) json_array_append_new(a, json_string(mg_mcp_versions[i]));
    return a;
}

static json_t *server_caps(const struct call *c)
{
    json_t *caps = json_pack("{s:{s:b}}", "tools", "listChanged", 0);
    if (!c->modern) json_object_set_new(caps, "logging", json_object());
    if (ext && ext->capabilities) ext->capabilities(caps);
    return caps;
}

static json_t *m_discover(struct call *c)
{
    return json_pack("{s:o, s:o, s:s, s:i, s:s}", "supportedVersions", all_versions(), "capabilities",
                     server_caps(c), "instructions", MG_MCP_INSTRUCTIONS, "ttlMs", 3600000, "cacheScope",
                     "public");
}

static json_t *m_listen(struct call *c)
{
    json_t *want = json_object_get(c->params, "notifications");
    if (want && !json_is_object(want))
        return fail(c, MG_RPC_INVALID_PARAMS, "params.notifications must be an object");
    unsigned more = ext ? ext->listen : 0;
    json_t *ack = json_object();
    unsigned kinds = 0;
    if (json_is_true(json_object_get(want, "toolsListChanged"))) {
        kinds |= MG_LISTEN_TOOLS;
        json_object_set_new(ack, "toolsListChanged", json_true());
    }
    if ((more & MG_LISTEN_PROMPTS) && json_is_true(json_object_get(want, "promptsListChanged"))) {
        kinds |= MG_LISTEN_PROMPTS;
        json_object_set_new(ack, "promptsListChanged", json_true());
    }
    if ((more & MG_LISTEN_RESOURCES) && json_is_true(json_object_get(want, "resourcesListChanged"))) {
        kinds |= MG_LISTEN_RESOURCES;
        json_object_set_new(ack, "resourcesListChanged", json_true());
    }
    if (json_is_true(json_object_get(want, "memgate/indexChanged"))) {
        kinds |= MG_LISTEN_INDEX;
        json_object_set_new(ack, "memgate/indexChanged", json_true());
    }
    /* resourceSubscriptions: memgate's resources do not change; not acknowledged */
    struct mg_out *out = c->c->out;
    json_t *m = json_pack("{s:s, s:s, s:{s:{s:O}, s:o}}", "jsonrpc", "2.0", "method",
                          "notifications/subscriptions/acknowledged", "params", "_meta", MG_LISTEN_SUB_META, c->id,
                          "notifications", ack);
    int rc = out ? mg_listen_open(out, c->id, kinds, c->c->who->tenant, m) : -1;
    json_decref(m);
    if (rc != 0)
        return fail(c, MG_RPC_INVALID_REQUEST,
                    "subscriptions/listen needs a stream: accept text/event-stream (HTTP) or use stdio");
    if (!out->wait) { /* stdio: open until notifications/cancelled or the end of the process */
        c->no_reply = true;
        return NULL;
    }
    out->wait(out);
    mg_listen_close(out, c->id);
    return json_pack("{s:{s:O}}", "_meta", MG_LISTEN_SUB_META, c->id); /* a graceful end */
}

/* A header's value against the body's: equal, after decoding the
 * =?base64?...?= form. */
static bool header_matches(const char *h, const char *body)
{
    size_t n = strlen(h);
    if (n >= 11 && strncmp(h, "=?base64?", 9) == 0 && strcmp(h + n - 2, "?=") == 0) {
        unsigned char buf[1024];
        size_t len = 0;
        if (sodium_base642bin(buf, sizeof(buf) - 1, h + 9, n - 11, NULL, &len, NULL,
                              sodium_base64_VARIANT_ORIGINAL) != 0)
            return false;
        buf[len] = 0;
        return len == strlen(body) && memcmp(buf, body, len) == 0;
    }
    return strcmp(h, body) == 0;
}

static bool header_chars_ok(const char *h)
{
    for (const unsigned char *p = (const unsigned char *)h; *p; p++)
        if ((*p < 0x20 && *p != '\t') || *p > 0x7e) return false;
    return true;
}

/* An argument as its header form: strings as they are, integers in decimal,
 * booleans lowercase; other values have none. */
static bool header_form(json_t *v, char *out, size_t cap)
{
    if (json_is_string(v)) snprintf(out, cap, "%s", json_string_value(v));
    else if (json_is_integer(v)) snprintf(out, cap, "%lld", (long long)json_integer_value(v));
    else if (json_is_boolean(v)) snprintf(out, cap, "%s", json_is_true(v) ? "true" : "false");
    else if (json_is_real(v)) snprintf(out, cap, "%.17g", json_real_value(v));
    else return false;
    return true;
}

static bool numbers_equal(const char *a, const char *b)
{
    char *ea, *eb;
    double x = strtod(a, &ea), y = strtod(b, &eb);
    return *a && *b && !*ea && !*eb && x == y;
}

/* tools/call's Mcp-Param-{Name} headers against the arguments marked
 * x-mcp-header in the tool's input schema. 0, or -1 after fail(). */
static int check_param_headers(struct call *c)
{
    const char *name = json_string_value(json_object_get(c->params, "name"));
    const char *schema = NULL;
    const struct mg_tool *t = name ? mg_tool_find(name) : NULL;
    const struct mg_mcp_ext_tool *ft = name && !t ? ext_tool(name) : NULL;
    schema = t ? t->input_schema : ft ? ft->input_schema : NULL;
    if (!schema || !strstr(schema, "x-mcp-header")) return 0;
    json_t *sch = json_loads(schema, 0, NULL);
    json_t *args = json_object_get(c->params, "arguments");
    const char *prop;
    json_t *def;
    int rc = 0;
    json_object_foreach(json_object_get(sch, "properties"), prop, def)
    {
        const char *hn = json_string_value(json_object_get(def, "x-mcp-header"));
        if (!hn) continue;
        char key[160], want[1024];
        snprintf(key, sizeof(key), "Mcp-Param-%s", hn);
        const char *got = c->c->header(c->c->header_ctx, key);
        json_t *v = json_object_get(args, prop);
        if (got && !header_chars_ok(got)) {
            fail(c, MG_RPC_HEADER_MISMATCH, "Header mismatch: %s holds characters a header may not carry", key);
            rc = -1;
            break;
        }
        if (!v || json_is_null(v)) continue; /* no value: no header expected */
        if (!header_form(v, want, sizeof(want))) continue;
        if (!got) {
            fail(c, MG_RPC_HEADER_MISMATCH, "Header mismatch: %s is missing; argument '%s' is in the body", key, prop);
            rc = -1;
            break;
        }
        bool same = header_matches(got, want) || ((json_is_integer(v) || json_is_real(v)) && numbers_equal(got, want));
        if (!same) {
            fail(c, MG_RPC_HEADER_MISMATCH, "Header mismatch: %s does not match argument '%s'", key, prop);
            rc = -1;
            break;
        }
    }
    json_decref(sch);
    return rc;
}

/* The HTTP headers of a 2026-07-28 request against its body. 0, or -1
 * after fail(). */
static int check_headers(struct call *c, const char *version)
{
    const struct mg_rpc_conn *k = c->c;
    const char *pv = k->header(k->header_ctx, "MCP-Protocol-Version");
    if (!pv || strcmp(pv, version) != 0) {
        fail(c, MG_RPC_HEADER_MISMATCH, "Header mismatch: MCP-Protocol-Version %s%s%s does not match _meta's '%s'",
             pv ? "'" : "", pv ? pv : "is missing and", pv ? "'" : "", version);
        return -1;
    }
    const char *mh = k->header(k->header_ctx, "Mcp-Method");
    if (!mh || strcmp(mh, c->method) != 0) {
        fail(c, MG_RPC_HEADER_MISMATCH, "Header mismatch: Mcp-Method %s does not match the body's method '%s'",
             mh ? "value" : "is missing and", c->method);
        return -1;
    }
    const char *field = strcmp(c->method, "tools/call") == 0 || strcmp(c->method, "prompts/get") == 0 ? "name"
                        : strcmp(c->method, "resources/read") == 0                                    ? "uri"
                                                                                                      : NULL;
    if (field) {
        const char *body = json_string_value(json_object_get(c->params, field));
        const char *nh = k->header(k->header_ctx, "Mcp-Name");
        if (body && (!nh || !header_chars_ok(nh) || !header_matches(nh, body))) {
            fail(c, MG_RPC_HEADER_MISMATCH, "Header mismatch: Mcp-Name %s does not match params.%s",
                 nh ? "value" : "is missing and", field);
            return -1;
        }
    }
    if (strcmp(c->method, "tools/call") == 0) return check_param_headers(c);
    return 0;
}

static json_t *modern_dispatch(struct call *c)
{
    json_t *meta = json_object_get(c->params, "_meta");
    const char *version = json_string_value(json_object_get(meta, META_VERSION));
    c->caps = json_object_get(meta, META_CAPS);
    if (!json_is_object(meta) || !version || !json_is_object(c->caps))
        return fail(c, MG_RPC_INVALID_PARAMS,
                    "a 2026-07-28 request needs params._meta with \"" META_VERSION "\" (a string) and \"" META_CAPS
                    "\" (an object); a 2025 client sends initialize first");
    if (c->c->header && check_headers(c, version) != 0) return NULL;
    if (strcmp(version, MG_MCP_MODERN) != 0) {
        c->data = json_pack("{s:o, s:s}", "supported", all_versions(), "requested", version);
        return fail(c, MG_RPC_UNSUPPORTED_VERSION,
                    "Unsupported protocol version '%.32s': per-request _meta speaks " MG_MCP_MODERN
                    "; the 2025 versions need initialize",
                    version);
    }
    json_t *lv = json_object_get(meta, META_LOG);
    c->log_level = lv ? level_index(json_string_value(lv)) : -1;
    if (lv && c->log_level < 0)
        return fail(c, MG_RPC_INVALID_PARAMS,
                    "_meta[\"" META_LOG "\"] must be one of debug, info, notice, warning, error, critical, alert, "
                    "emergency");
    const char *m = c->method;
    if (strcmp(m, "server/discover") == 0) return m_discover(c);
    if (strcmp(m, "tools/list") == 0) return m_tools_list(c);
    if (strcmp(m, "tools/call") == 0) return m_tools_call(c);
    if (strcmp(m, "subscriptions/listen") == 0) return m_listen(c);
    json_t *r = NULL;
    if (ext_method(c, &r)) return r;
    return fail(c, MG_RPC_METHOD_NOT_FOUND, "method '%s' not found (in protocol version " MG_MCP_MODERN ")", m);
}

/* What every 2026-07-28 result carries: its type, the server's name, and
 * the caching fields of the cacheable ones. */
static void modern_result(const struct call *c, json_t *r)
{
    if (!json_object_get(r, "resultType")) json_object_set_new(r, "resultType", json_string("complete"));
    json_t *meta = json_object_get(r, "_meta");
    if (!json_is_object(meta)) json_object_set_new(r, "_meta", meta = json_object());
    json_object_set_new(meta, META_SERVER, json_pack("{s:s, s:s}", "name", "memgate", "version", MG_VERSION));
    static const char *const cacheable[] = {"prompts/list", "resources/list", "resources/read",
                                            "resources/templates/list", NULL};
    bool complete = strcmp(json_string_value(json_object_get(r, "resultType")), "complete") == 0;
    for (int i = 0; complete && cacheable[i]; i++)
        if (strcmp(c->method, cacheable[i]) == 0 && !json_object_get(r, "ttlMs"))
            json_object_update_new(r, json_pack("{s:i, s:s}", "ttlMs", 0, "cacheScope", "private"));
}

bool mg_rpc_modern(json_t *msg)
{
    const char *m = json_string_value(json_object_get(msg, "method"));
    if (m && (strcmp(m, "server/discover") == 0 || strcmp(m, "subscriptions/listen") == 0)) return true;
    json_t *meta = json_object_get(json_object_get(msg, "params"), "_meta");
    return json_object_get(meta, META_VERSION) || json_object_get(meta, META_CAPS);
}

int mg_rpc_http_status(json_t *reply)
{
    json_t *e = json_object_get(reply, "error");
    if (!e) return 200;
    json_int_t code = json_integer_value(json_object_get(e, "code"));
    if (code == MG_RPC_METHOD_NOT_FOUND) return 404;
    if (code == MG_RPC_PARSE_ERROR || code == MG_RPC_INVALID_REQUEST || code == MG_RPC_INVALID_PARAMS ||
        (code <= MG_RPC_HEADER_MISMATCH && code >= -32099))
        return 400;
    return 200;
}

/* ---- 6. dispatch ------------------------------------------------------------------------------------ */

static void notification(const struct mg_rpc_conn *c, const char *m, json_t *params)
{
    if (strcmp(m, "notifications/cancelled") == 0) { /* a stdio subscriptions/listen ends */
        json_t *id = json_object_get(params, "requestId");
        if (id && c->out) mg_listen_close(c->out, id);
        return;
    }
    struct mg_session *s = c->session;
    if (!s || c->stateless) return;
    if (strcmp(m, "notifications/initialized") == 0) mg_mcp_conn_set_ready(mg_mcp_conn_of(s));
    else if (strcmp(m, "notifications/roots/list_changed") == 0) mg_session_roots_changed(s);
    /* others: nothing to do */
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
        mg_mcp_conn_deliver(mg_mcp_conn_of(c->session), m);
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
        notification(c, json_string_value(method), json_is_object(params) ? params : NULL);
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
    call.modern = c->stateless || mg_rpc_modern(m);
    json_t *r = call.modern ? modern_dispatch(&call) : dispatch(&call);
    if (r && call.modern) modern_result(&call, r);
    json_decref(empty);
    if (!r && call.no_reply) return NULL;
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
    bool batches = false;
    struct mg_mcp_conn *k = c->stateless ? NULL : mg_mcp_conn_of(c->session);
    if (k) {
        char version[16];
        mg_mcp_conn_version(k, version);
        batches = strcmp(version, "2025-03-26") == 0;
    }
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
