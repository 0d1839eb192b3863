/* rpc.c — the MCP lifecycle and methods (rpc.h).
 *
 * Sections:
 *   1. versions
 *   2. methods of the handshake versions
 *   3. 2026-07-28: discovery, subscriptions, dispatch
 *   4. dispatch: one message, a batch
 * (tools/call is call.c's; the 2026-07-28 header checks are headers.c's.)
 */
#include "mcp/rpc_int.h"

#include <stdlib.h>
#include <string.h>

#include "mcp/conn.h"
#include "mcp/ext.h"
#include "mcp/listen.h"
#include "request/gate.h"
#include "tools/tools.h"
#include "util/version.h"

#define META_VERSION "io.modelcontextprotocol/protocolVersion"
#define META_CAPS "io.modelcontextprotocol/clientCapabilities"
#define META_LOG "io.modelcontextprotocol/logLevel"
#define META_SERVER "io.modelcontextprotocol/serverInfo"
#define META_TOOLS "memgate/tools" /* tools/list: the tool groups to show beside the core tools */

/* ---- 1. versions ----------------------------------------------------------------------------------- */

const char *const mg_mcp_versions[] = {"2025-11-25", "2025-06-18", "2025-03-26", NULL};

bool mg_mcp_version_supported(const char *v)
{
    for (int i = 0; v && mg_mcp_versions[i]; i++)
        if (strcmp(v, mg_mcp_versions[i]) == 0) return true;
    return false;
}

/* ---- 2. methods of the handshake versions ----------------------------------------------------------- */

/* The server's instructions: a short guide to every tool (a test checks that
 * each is named). */
#define MG_MCP_INSTRUCTIONS                                                                                        \
    "memgate: code search and memory for indexed repos. Start with get_context (one block, within a token "       \
    "budget, of the code, notes and memory a prompt needs) or repo_map (the central files and definitions of a "   \
    "repo you do not know). Code: search_code (lexical, regex, symbol, semantic or hybrid), search_symbols, "       \
    "outline (a file's definitions, no bodies), read_file, list_files. Before changing code: find_references, "    \
    "callers, callees, trace_path (how one function reaches another), impact (what a change touches, ranked; run " \
    "it before committing). list_repos shows the repos. "                                                          \
    "Your tool list holds these; the rest come in groups: call the tool `tools` with enable [\"memory\"] (or projects, "     \
    "repos, session, all) to add a group's tools to your list, or with describe true for their definitions "      \
    "(every tool can be called by name, listed or not). "                                                          \
    "Group repos: index_repo, index_status, get_repo_settings, set_repo_settings. Group session: set_scope "       \
    "narrows every later search of this session (get_scope, clear_scope); open_handle. Group memory: notes are "   \
    "durable facts about a repo (set_note, get_note, list_notes, search_notes, delete_note); episodes are what "   \
    "sessions did (remember, recall; extract_knowledge turns a session's into notes); entities are named things "  \
    "(add_entities, search_entities, retag_entities); an agent's preferences hold in every repo "                  \
    "(save_preference, get_profile). Group projects: episodes and entities are shared within a project "           \
    "(create_project, list_projects, join_project, leave_project, delete_project). Calls act on the repo this "   \
    "session is bound to (the client's roots, or the directory memgate mcp runs in); when several repos are "      \
    "indexed and none is bound, pass `repo` (list_repos shows the ids). Without a session (protocol 2026-07-28), " \
    "open_handle returns a handle: pass it as `handle` so the binding, scope and memory session carry over. "      \
    "A result with next_cursor has more: pass it as `cursor` with the same arguments."

static json_t *m_initialize(struct mg__call *c)
{
    struct mg_session *s = c->c->session;
    json_t *p = c->params;
    const char *want = json_string_value(json_object_get(p, "protocolVersion"));
    if (!want) return mg__rpc_fail(c, MG_RPC_INVALID_PARAMS, "initialize needs params.protocolVersion (a string)");
    const char *ver = mg_mcp_version_supported(want) ? want : MG_MCP_LATEST;
    json_t *caps = json_object_get(p, "capabilities");
    bool roots = json_is_object(json_object_get(caps, "roots"));
    bool sampling = json_is_object(json_object_get(caps, "sampling"));
    /* rootUri / rootPath: not in the MCP schema, but some clients send them */
    const char *root = json_string_value(json_object_get(p, "rootUri"));
    if (!root) root = json_string_value(json_object_get(p, "rootPath"));

    if (mg_mcp_conn_initialize(mg_mcp_conn_of(s), ver, sampling) != 0)
        return mg__rpc_fail(c, MG_RPC_INVALID_REQUEST, "the session is already initialized");
    char *path = root ? mg_uri_to_path(root) : NULL;
    mg_session_offer_root(s, path, roots); /* `memgate mcp --repo` binds before initialize and wins */
    free(path);

    json_t *scaps = json_pack("{s:{s:b}, s:{}}", "tools", "listChanged", 1, "logging"); /* `tools` */
    const struct mg_mcp_ext *ext = mg__mcp_ext();
    if (ext && ext->capabilities) ext->capabilities(scaps);
    return json_pack("{s:s, s:o, s:{s:s, s:s, s:s}, s:s}", "protocolVersion", ver, "capabilities", scaps,
                     "serverInfo", "name", "memgate", "title", "memgate code search", "version", MG_VERSION,
                     "instructions",
                     MG_MCP_INSTRUCTIONS);
}

static json_t *m_set_level(struct mg__call *c)
{
    int lv = mg_mcp_log_level_index(json_string_value(json_object_get(c->params, "level")));
    if (lv < 0)
        return mg__rpc_fail(c, MG_RPC_INVALID_PARAMS,
                    "params.level must be one of debug, info, notice, warning, error, critical, alert, emergency");
    mg_mcp_conn_set_log_level(mg_mcp_conn_of(c->c->session), lv);
    return json_object();
}

/* hints: MG_TOOL_* (tools/tools.h), or ~0u for none (an extension's tools) */
static json_t *tool_json(const char *name, const char *title, const char *description, const char *input,
                         const char *output, unsigned hints, enum mg_mcp_task_support tasks)
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
    if (tasks != MG_MCP_TASK_FORBIDDEN) /* the tasks extension (tasks.c) */
        json_object_set_new(o, "execution", json_pack("{s:s}", "taskSupport",
                                                      tasks == MG_MCP_TASK_REQUIRED ? "required" : "optional"));
    return o;
}

/* The groups a tools/list shows beside the core tools: a handshake
 * connection's (the `tools` tool), and those its _meta["memgate/tools"]
 * names (both eras: "all", a group or a list of them). */
static bool listed_groups(struct mg__call *c, unsigned *mask)
{
    struct mg_err err = {0};
    if (mg_tool_groups_parse(json_object_get(json_object_get(c->params, "_meta"), META_TOOLS), "_meta[\"" META_TOOLS "\"]",
                             mask, &err) != 0) {
        mg__rpc_fail(c, MG_RPC_INVALID_PARAMS, "%s", err.msg);
        return false;
    }
    struct mg_mcp_conn *k = c->modern ? NULL : mg_mcp_conn_of(c->c->session);
    if (k) *mask |= mg_mcp_conn_tool_groups(k, 0, 0, NULL);
    return true;
}

static json_t *m_tools_list(struct mg__call *c)
{
    unsigned groups;
    if (!listed_groups(c, &groups)) return NULL;
    size_t n;
    const struct mg_tool *t = mg_tools(&n);
    json_t *a = json_array();
    /* execution.taskSupport: on 2026-07-28 only, the era of the tasks extension (tasks.c) */
    enum mg_mcp_task_support tasks = c->modern ? MG_MCP_TASK_OPTIONAL : MG_MCP_TASK_FORBIDDEN;
    for (size_t i = 0; i < n; i++)
        if (!mg_tool_group(&t[i]) || (mg_tool_group(&t[i]) & groups))
            json_array_append_new(a, tool_json(t[i].name, t[i].title, t[i].description, t[i].input_schema,
                                               t[i].output_schema, t[i].hints,
                                               (t[i].hints & MG_TOOL_TASK) ? tasks : MG_MCP_TASK_FORBIDDEN));
    const struct mg_mcp_ext *ext = mg__mcp_ext();
    for (size_t i = 0; ext && i < ext->ntools; i++) {
        const struct mg_mcp_ext_tool *f = &ext->tools[i];
        json_array_append_new(a, tool_json(f->name, f->title, f->description, f->input_schema, f->output_schema, ~0u,
                                           c->modern ? f->task_support : MG_MCP_TASK_FORBIDDEN));
    }
    json_t *r = json_pack("{s:o}", "tools", a);
    /* the same for every caller that asks for the same groups, until the binary changes */
    if (c->modern) json_object_update_new(r, json_pack("{s:i, s:s}", "ttlMs", 3600000, "cacheScope", "public"));
    return r;
}

/* A method of the extension: true when it knows it, with *r the result, or
 * NULL after mg__rpc_fail(). */
static bool ext_method(struct mg__call *c, json_t **r)
{
    struct mg_mcp_ext_error fe;
    const struct mg_mcp_ext *ext = mg__mcp_ext();
    if (!ext || !ext->handle || !ext->handle(c->method, c->params, r, &fe)) return false;
    if (!*r) {
        c->data = fe.data;
        mg__rpc_fail(c, fe.code ? fe.code : MG_RPC_INTERNAL_ERROR, "%s", fe.message[0] ? fe.message : "extension failed");
    }
    return true;
}

static json_t *dispatch(struct mg__call *c)
{
    const char *m = c->method;
    if (strcmp(m, "ping") == 0) return json_object();
    if (strcmp(m, "initialize") == 0) return m_initialize(c);
    if (!mg_mcp_conn_initialized(mg_mcp_conn_of(c->c->session))) return mg__rpc_fail(c, MG_RPC_INVALID_REQUEST, "not initialized: send initialize first");
    if (strcmp(m, "logging/setLevel") == 0) return m_set_level(c);
    if (strcmp(m, "tools/list") == 0) return m_tools_list(c);
    if (strcmp(m, "tools/call") == 0) return mg__rpc_tools_call(c);
    json_t *r = NULL;
    if (ext_method(c, &r)) return r;
    return mg__rpc_fail(c, MG_RPC_METHOD_NOT_FOUND, "method '%s' not found", m);
}

/* ---- 3. 2026-07-28: discovery, subscriptions, dispatch ---------------------------------------------- */

/* Every version this server speaks: the modern one, then the legacy ones
 * (initialize). */
static json_t *all_versions(void)
{
    json_t *a = json_pack("[s]", MG_MCP_MODERN);
    for (int i = 0; mg_mcp_versions[i]; i++) json_array_append_new(a, json_string(mg_mcp_versions[i]));
    return a;
}

static json_t *server_caps(const struct mg__call *c)
{
    json_t *caps = json_pack("{s:{s:b}}", "tools", "listChanged", 0);
    if (!c->modern) json_object_set_new(caps, "logging", json_object());
    else json_object_set_new(caps, "extensions", json_pack("{s:{}}", MG__TASKS_EXT)); /* tasks.c */
    const struct mg_mcp_ext *ext = mg__mcp_ext();
    if (ext && ext->capabilities) ext->capabilities(caps);
    return caps;
}

static json_t *m_discover(struct mg__call *c)
{
    return json_pack("{s:o, s:o, s:s, s:i, s:s}", "supportedVersions", all_versions(), "capabilities",
                     server_caps(c), "instructions", MG_MCP_INSTRUCTIONS, "ttlMs", 3600000, "cacheScope",
                     "public");
}

static json_t *m_listen(struct mg__call *c)
{
    json_t *want = json_object_get(c->params, "notifications");
    if (want && !json_is_object(want))
        return mg__rpc_fail(c, MG_RPC_INVALID_PARAMS, "params.notifications must be an object");
    const struct mg_mcp_ext *ext = mg__mcp_ext();
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
    int rc = out ? mg_listen_open(out, c->id, kinds, c->c->who, m) : -1;
    json_decref(m);
    if (rc != 0)
        return mg__rpc_fail(c, MG_RPC_INVALID_REQUEST,
                    "subscriptions/listen needs a stream: accept text/event-stream (HTTP) or use stdio");
    if (!out->wait) { /* stdio: open until notifications/cancelled or the end of the process */
        c->no_reply = true;
        return NULL;
    }
    out->wait(out);
    mg_listen_close(out, c->id);
    return json_pack("{s:{s:O}}", "_meta", MG_LISTEN_SUB_META, c->id); /* a graceful end */
}

static json_t *modern_dispatch(struct mg__call *c)
{
    json_t *meta = json_object_get(c->params, "_meta");
    const char *version = json_string_value(json_object_get(meta, META_VERSION));
    c->caps = json_object_get(meta, META_CAPS);
    if (!json_is_object(meta) || !version || !json_is_object(c->caps))
        return mg__rpc_fail(c, MG_RPC_INVALID_PARAMS,
                    "a 2026-07-28 request needs params._meta with \"" META_VERSION "\" (a string) and \"" META_CAPS
                    "\" (an object); a 2025 client sends initialize first");
    if (c->c->header && mg__rpc_check_headers(c, version) != 0) return NULL;
    if (strcmp(version, MG_MCP_MODERN) != 0) {
        c->data = json_pack("{s:o, s:s}", "supported", all_versions(), "requested", version);
        return mg__rpc_fail(c, MG_RPC_UNSUPPORTED_VERSION,
                    "Unsupported protocol version '%.32s': per-request _meta speaks " MG_MCP_MODERN
                    "; the 2025 versions need initialize",
                    version);
    }
    json_t *lv = json_object_get(meta, META_LOG);
    c->log_level = lv ? mg_mcp_log_level_index(json_string_value(lv)) : -1;
    if (lv && c->log_level < 0)
        return mg__rpc_fail(c, MG_RPC_INVALID_PARAMS,
                    "_meta[\"" META_LOG "\"] must be one of debug, info, notice, warning, error, critical, alert, "
                    "emergency");
    const char *m = c->method;
    if (strcmp(m, "server/discover") == 0) return m_discover(c);
    if (strcmp(m, "tools/list") == 0) return m_tools_list(c);
    if (strcmp(m, "tools/call") == 0) return mg__rpc_tools_call_task(c); /* (or a task) */
    if (strcmp(m, "subscriptions/listen") == 0) return m_listen(c);
    if (mg__rpc_task_method(m)) return mg__rpc_tasks(c);
    json_t *r = NULL;
    if (ext_method(c, &r)) return r;
    return mg__rpc_fail(c, MG_RPC_METHOD_NOT_FOUND, "method '%s' not found (in protocol version " MG_MCP_MODERN ")", m);
}

/* What every 2026-07-28 result carries: its type, the server's name, and
 * the caching fields of the cacheable ones. */
static void modern_result(const struct mg__call *c, json_t *r)
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

/* ---- 4. dispatch ------------------------------------------------------------------------------------ */

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
static json_t *answer_one(const struct mg_rpc_conn *c, json_t *m)
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
    struct mg__call call = {.c = c, .id = id, .params = params, .method = json_string_value(method)};
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

/* answer_one, on every transport: an error answer that no request context
 * audited (a JSON-RPC error, a tool call refused before it ran: an invalid
 * handle, a bad workspace root) is a refusal, audited and folded like any. */
static json_t *audited(const struct mg_rpc_conn *c, unsigned long before, json_t *r)
{
    char code[48];
    mg_gate_answer_error(r, code, sizeof(code));
    mg_gate_answered(c->srv, before, c->who && c->who->tenant[0] ? c->who->tenant : NULL, c->from ? c->from : "stdio",
                     code);
    return r;
}

static json_t *handle_one(const struct mg_rpc_conn *c, json_t *m)
{
    return audited(c, mg_gate_thread_audits(), answer_one(c, m));
}

void mg_rpc_handle(const struct mg_rpc_conn *c, json_t *msg, json_t **reply)
{
    *reply = NULL;
    if (!json_is_array(msg)) {
        *reply = handle_one(c, msg);
        return;
    }
    if (json_array_size(msg) == 0) {
        *reply = audited(c, mg_gate_thread_audits(),
                         mg_rpc_error(NULL, MG_RPC_INVALID_REQUEST, "invalid request: an empty batch", NULL));
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
        *reply = audited(c, mg_gate_thread_audits(),
                         mg_rpc_error(NULL, MG_RPC_INVALID_REQUEST,
                                      "invalid request: batches are only allowed with protocol version 2025-03-26",
                                      NULL));
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
