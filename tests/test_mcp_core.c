/* test_mcp_core.c — the session registry, scope rules and the MCP dispatcher,
 * in process (rpc.c, session.c, tools.c). Transports are tested through the
 * real binary elsewhere (test_http.c, tests/node/). */
#include <ctype.h>
#include <unistd.h>

#include "fixtures.h"
#include "mcp/conn.h"
#include "mcp/rpc.h"
#include "tools/args.h"
#include "util/metrics.h"
#include "util/progress.h"
#include "request/session.h"
#include "test.h"
#include "tools/tools.h"

/* ---- registry ------------------------------------------------------------------- */

TEST(session_ids_random_and_distinct)
{
    struct mg_sessions *r = mg_sessions_new(0);
    struct mg_err err = {0};
    struct mg_session *a = mg_sessions_create(r, MG_SESSION_MCP, NULL, NULL, NULL, &err);
    struct mg_session *b = mg_sessions_create(r, MG_SESSION_MCP, NULL, NULL, NULL, &err);
    ASSERT(a && b);
    ASSERT_EQ_INT(strlen(mg_session_id(a)), 32);
    ASSERT_EQ_INT(strspn(mg_session_id(a), "0123456789abcdef"), 32);
    ASSERT(strcmp(mg_session_id(a), mg_session_id(b)) != 0);
    ASSERT(strcmp(mg_session_instance(a), mg_session_instance(b)) != 0); /* each MCP session its own instance */
    ASSERT_EQ_INT(mg_sessions_count(r), 2);
    ASSERT_EQ_INT(mg_sessions_instances(r), 2);
    /* a named instance shared by two sessions counts once */
    struct mg_session *c = mg_sessions_create(r, MG_SESSION_API, "client-chosen-1", "inst-x", NULL, &err);
    struct mg_session *d = mg_sessions_create(r, MG_SESSION_API, "client-chosen-2", "inst-x", NULL, &err);
    ASSERT(c && d);
    ASSERT_EQ_INT(mg_sessions_instances(r), 3);
    ASSERT(!mg_sessions_create(r, MG_SESSION_API, "client-chosen-1", NULL, NULL, &err));
    ASSERT_EQ_STR(err.code, "session_exists");
    ASSERT(!mg_sessions_create(r, MG_SESSION_API, "bad id!", NULL, NULL, &err));
    ASSERT_EQ_STR(err.code, "invalid_argument");
    ASSERT(!mg_sessions_create(r, MG_SESSION_API, "short", NULL, NULL, &err));
    mg_session_unref(&a);
    mg_session_unref(&b);
    mg_session_unref(&c);
    mg_session_unref(&d);
    mg_sessions_free(&r);
}

/* The dashboard's counts (http/dash.c): sessions by tenant, kinds and
 * distinct instances per tenant, or one tenant's alone. */
TEST(sessions_by_tenant)
{
    struct mg_sessions *r = mg_sessions_new(0);
    struct mg_err err = {0};
    struct mg_session *s[5];
    s[0] = mg_sessions_create(r, MG_SESSION_MCP, NULL, "i1", "acme", &err);
    s[1] = mg_sessions_create(r, MG_SESSION_API, NULL, "i1", "acme", &err);
    s[2] = mg_sessions_create(r, MG_SESSION_API, NULL, "i2", "acme", &err);
    s[3] = mg_sessions_create(r, MG_SESSION_MCP, NULL, "i1", "globex", &err);
    s[4] = mg_sessions_create(r, MG_SESSION_CLI, NULL, "i9", "acme", &err);
    for (int i = 0; i < 5; i++) ASSERT(s[i]);
    struct mg_tenant_sessions *t = NULL;
    ASSERT_EQ_INT(mg_sessions_by_tenant(r, NULL, &t), 2);
    ASSERT_EQ_STR(t[0].tenant, "acme");
    ASSERT_EQ_INT(t[0].sessions, 4);
    ASSERT_EQ_INT(t[0].mcp, 1);
    ASSERT_EQ_INT(t[0].api, 2);
    ASSERT_EQ_INT(t[0].instances, 3); /* i1, i2, i9 */
    ASSERT_EQ_STR(t[1].tenant, "globex");
    ASSERT_EQ_INT(t[1].sessions, 1);
    ASSERT_EQ_INT(t[1].instances, 1);
    free(t);
    ASSERT_EQ_INT(mg_sessions_by_tenant(r, "globex", &t), 1);
    ASSERT_EQ_STR(t[0].tenant, "globex");
    free(t);
    ASSERT_EQ_INT(mg_sessions_by_tenant(r, "nobody", &t), 0);
    free(t);
    for (int i = 0; i < 5; i++) mg_session_unref(&s[i]);
    mg_sessions_free(&r);
}

/* The table of index runs under way (util/progress.h): a run's last report,
 * per tenant and repo, gone when it ends; full at MG_PROGRESS_LIVE_MAX. */
TEST(progress_live_table)
{
    struct mg_progress p = {.what = "repo-a", .phase = "index", .done = 3, .total = 10, .bytes = 30,
                            .total_bytes = 100, .seconds = 0.5};
    mg_progress_live_update("acme", &p);
    p.done = 7;
    mg_progress_live_update("acme", &p);
    p.what = "repo-a";
    mg_progress_live_update("globex", &p); /* another tenant's repo of the same id: its own run */
    struct mg_progress_live out[MG_PROGRESS_LIVE_MAX];
    ASSERT_EQ_INT(mg_progress_live_list(NULL, out, MG_PROGRESS_LIVE_MAX), 2);
    ASSERT_EQ_INT(mg_progress_live_list("acme", out, MG_PROGRESS_LIVE_MAX), 1);
    ASSERT_EQ_STR(out[0].what, "repo-a");
    ASSERT_EQ_STR(out[0].phase, "index");
    ASSERT_EQ_INT(out[0].done, 7);
    ASSERT_EQ_INT(out[0].total, 10);
    ASSERT(out[0].started_ms > 0);
    mg_progress_live_end("acme", "repo-a");
    ASSERT_EQ_INT(mg_progress_live_list("acme", out, MG_PROGRESS_LIVE_MAX), 0);
    mg_progress_live_end("globex", "repo-a");
    /* more runs than slots: the extra ones are not shown, nothing breaks */
    char names[MG_PROGRESS_LIVE_MAX + 4][16];
    for (int i = 0; i < MG_PROGRESS_LIVE_MAX + 4; i++) {
        snprintf(names[i], sizeof(names[i]), "r%d", i);
        p.what = names[i];
        mg_progress_live_update("t", &p);
    }
    ASSERT_EQ_INT(mg_progress_live_list(NULL, out, MG_PROGRESS_LIVE_MAX), MG_PROGRESS_LIVE_MAX);
    for (int i = 0; i < MG_PROGRESS_LIVE_MAX + 4; i++) mg_progress_live_end("t", names[i]);
    ASSERT_EQ_INT(mg_progress_live_list(NULL, out, MG_PROGRESS_LIVE_MAX), 0);
}

TEST(session_get_remove_and_refcount)
{
    struct mg_sessions *r = mg_sessions_new(0);
    struct mg_err err = {0};
    struct mg_session *a = mg_sessions_create(r, MG_SESSION_MCP, NULL, NULL, NULL, &err);
    char id[MG_SID_MAX + 1];
    snprintf(id, sizeof(id), "%s", mg_session_id(a));
    enum mg_lookup how;
    struct mg_session *g = mg_sessions_get(r, id, &how);
    ASSERT(g == a);
    ASSERT_EQ_INT(how, MG_SESSION_FOUND);
    ASSERT_EQ_INT(mg_sessions_remove(r, id), 0);
    ASSERT(!mg_sessions_get(r, id, &how));
    ASSERT_EQ_INT(how, MG_SESSION_UNKNOWN);
    ASSERT_EQ_INT(mg_sessions_remove(r, id), -1);
    /* the removed session stays valid for its holders */
    ASSERT_EQ_INT(mg_session_bind_repo(g, "still-usable", &err), 0);
    char bound[MG_ID_MAX + 1];
    mg_session_repo(a, bound);
    ASSERT_EQ_STR(bound, "still-usable");
    mg_session_unref(&g);
    mg_session_unref(&a); /* the last reference frees it (ASan checks) */
    ASSERT(!mg_sessions_get(r, "0123456789abcdef0123456789abcdef", &how));
    ASSERT_EQ_INT(how, MG_SESSION_UNKNOWN);
    mg_sessions_free(&r);
}

TEST(session_expiry_and_prune)
{
    /* 300 ms ttl: the touches below, 20 ms apart, stay well inside it even on a loaded machine */
    struct mg_sessions *r = mg_sessions_new(300);
    struct mg_err err = {0};
    struct mg_session *a = mg_sessions_create(r, MG_SESSION_MCP, NULL, NULL, NULL, &err);
    struct mg_session *b = mg_sessions_create(r, MG_SESSION_MCP, NULL, NULL, NULL, &err);
    struct mg_session *c = mg_sessions_create(r, MG_SESSION_MCP, NULL, NULL, NULL, &err);
    char ida[MG_SID_MAX + 1], idb[MG_SID_MAX + 1], idc[MG_SID_MAX + 1];
    snprintf(ida, sizeof(ida), "%s", mg_session_id(a));
    snprintf(idb, sizeof(idb), "%s", mg_session_id(b));
    snprintf(idc, sizeof(idc), "%s", mg_session_id(c));
    mg_session_unref(&a);
    mg_session_unref(&b);
    /* c stays in use: a session with a request in flight never expires */
    usleep(400 * 1000);
    enum mg_lookup how;
    ASSERT(!mg_sessions_get(r, ida, &how)); /* found idle past the ttl: expired on lookup */
    ASSERT_EQ_INT(how, MG_SESSION_EXPIRED);
    ASSERT_EQ_INT(mg_sessions_prune(r, mg_now_ms()), 1); /* b */
    ASSERT(!mg_sessions_get(r, idb, &how));
    ASSERT_EQ_INT(how, MG_SESSION_EXPIRED); /* remembered after pruning */
    struct mg_session *g = mg_sessions_get(r, idc, &how);
    ASSERT(g == c);
    ASSERT_EQ_INT(how, MG_SESSION_FOUND);
    mg_session_unref(&g);
    mg_session_unref(&c);
    ASSERT_EQ_INT(mg_sessions_count(r), 1);
    /* a touched session lives on */
    for (int i = 0; i < 4; i++) {
        usleep(20 * 1000);
        g = mg_sessions_get(r, idc, &how);
        ASSERT(g);
        mg_session_unref(&g);
    }
    /* the background pruner */
    struct mg_err e2 = {0};
    ASSERT_EQ_INT(mg_sessions_start_pruner(r, 20, &e2), 0);
    usleep(700 * 1000);
    ASSERT_EQ_INT(mg_sessions_count(r), 0);
    mg_sessions_free(&r);
}

TEST(scope_args_validation)
{
    struct mg_scope s;
    struct mg_err err = {0};
    json_t *j = json_pack("{s:[s,s], s:[s], s:[s]}", "globs", "src/**", "*.c", "exclude_globs", "**/test/**",
                          "languages", "c");
    ASSERT_EQ_INT(mg_arg_scope(j, &s, &err), 0);
    ASSERT_EQ_INT(s.nglobs, 2);
    ASSERT_EQ_INT(s.nexcludes, 1);
    ASSERT_EQ_INT(s.nlangs, 1);
    ASSERT_EQ_STR(s.globs[1], "*.c");
    struct mg_scope c;
    ASSERT_EQ_INT(mg_scope_copy(&c, &s), 0);
    ASSERT_EQ_STR(c.globs[1], "*.c");
    mg_scope_release(&c);
    mg_scope_release(&s);
    json_decref(j);

    static const char *const bad[][2] = {
        {"{\"globs\":[1]}", "invalid_argument"},         {"{\"globs\":[\"\"]}", "invalid_argument"},
        {"{\"languages\":[\"klingon\"]}", "invalid_language"}, {"{\"globs\":[\"src/[a\"]}", "invalid_glob"},
        {"{\"paths\":[\"x\"]}", "invalid_argument"},      {"[]", "invalid_argument"},
        {"{\"globs\":7}", "invalid_argument"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        json_t *b = json_loads(bad[i][0], 0, NULL);
        ASSERT(b);
        memset(&err, 0, sizeof(err));
        ASSERT_EQ_INT(mg_arg_scope(b, &s, &err), -1);
        ASSERT_EQ_STR(err.code, bad[i][1]);
        json_decref(b);
    }
}

/* ---- the dispatcher ------------------------------------------------------------- */

struct h {
    struct mg_server srv;
    struct mg_session *s;
    struct mg_rpc_conn c;
};

static void h_init(struct h *h, const char *home)
{
    memset(h, 0, sizeof(*h));
    struct mg_config cfg;
    mg_t_config_defaults(&cfg);
    snprintf(cfg.home, sizeof(cfg.home), "%s", home);
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_server_open(&h->srv, &cfg, MG_SERVER_NO_TTL, &err), 0);
    h->s = mg_sessions_create(h->srv.sessions, MG_SESSION_MCP, NULL, NULL, NULL, &err);
    ASSERT(h->s && mg_mcp_conn_attach(h->s, &err));
    h->c = (struct mg_rpc_conn){.srv = &h->srv, .session = h->s, .who = &mg_principal_local};
}

static void h_free(struct h *h)
{
    mg_session_unref(&h->s);
    mg_server_close(&h->srv);
}

/* Send text, return the reply (or NULL). */
static json_t *rpc(struct h *h, const char *text)
{
    json_t *reply = NULL;
    json_t *m = mg_rpc_parse(text, strlen(text), &reply);
    if (m) {
        mg_rpc_handle(&h->c, m, &reply);
        json_decref(m);
    }
    return reply;
}

static long long err_code(json_t *r) { return json_integer_value(json_object_get(json_object_get(r, "error"), "code")); }

static void initialize(struct h *h, const char *version, const char *extra)
{
    char buf[512];
    snprintf(buf, sizeof(buf),
             "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"%s\","
             "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}%s}}",
             version, extra ? extra : "");
    json_t *r = rpc(h, buf);
    ASSERT(json_object_get(r, "result"));
    json_decref(r);
}

/* tools/call name args -> the result object (isError or not) */
static json_t *call(struct h *h, const char *name, const char *args)
{
    char buf[2048];
    snprintf(buf, sizeof(buf),
             "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":\"%s\",\"arguments\":%s}}",
             name, args);
    json_t *r = rpc(h, buf);
    json_t *res = json_incref(json_object_get(r, "result"));
    if (!res) FAIL("tools/call %s: %s", name, json_dumps(r, JSON_COMPACT));
    json_decref(r);
    return res;
}

static const char *tool_err(json_t *res)
{
    if (!json_is_true(json_object_get(res, "isError"))) return NULL;
    ASSERT(!json_object_get(res, "structuredContent")); /* clients check it against the outputSchema */
    return json_string_value(json_object_get(json_object_get(json_object_get(res, "_meta"), MG_MCP_ERROR_META),
                                             "code"));
}

TEST(rpc_lifecycle_and_versions)
{
    struct h h;
    h_init(&h, mg_t_tmpdir());
    json_t *r = rpc(&h, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
    ASSERT_EQ_INT(err_code(r), -32600); /* before initialize */
    ASSERT_CONTAINS(json_string_value(json_object_get(json_object_get(r, "error"), "message")), "not initialized");
    json_decref(r);
    r = rpc(&h, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"); /* ping is always allowed */
    ASSERT(json_is_object(json_object_get(r, "result")));
    json_decref(r);
    r = rpc(&h, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}");
    ASSERT_EQ_INT(err_code(r), -32602);
    json_decref(r);
    /* an unknown version is answered with the newest */
    r = rpc(&h, "{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                "\"2024-11-05\",\"capabilities\":{}}}");
    ASSERT_EQ_STR(json_string_value(json_object_get(json_object_get(r, "result"), "protocolVersion")), "2025-11-25");
    ASSERT_EQ_STR(json_string_value(json_object_get(r, "id")), "x");
    json_decref(r);
    r = rpc(&h, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                "\"2025-06-18\"}}");
    ASSERT_EQ_INT(err_code(r), -32600); /* already initialized */
    json_decref(r);
    ASSERT(!rpc(&h, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"));
    ASSERT(mg_mcp_conn_ready(mg_mcp_conn_of(h.s)));
    /* batches: not with 2025-11-25 */
    r = rpc(&h, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]");
    ASSERT_EQ_INT(err_code(r), -32600);
    json_decref(r);
    h_free(&h);

    for (int i = 0; i < 3; i++) { /* each supported version is kept */
        h_init(&h, mg_t_tmpdir());
        char buf[256];
        snprintf(buf, sizeof(buf), "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
                                   "\"protocolVersion\":\"%s\"}}", mg_mcp_versions[i]);
        r = rpc(&h, buf);
        ASSERT_EQ_STR(json_string_value(json_object_get(json_object_get(r, "result"), "protocolVersion")),
                      mg_mcp_versions[i]);
        json_decref(r);
        h_free(&h);
    }
}

TEST(rpc_batches_2025_03_26)
{
    struct h h;
    h_init(&h, mg_t_tmpdir());
    initialize(&h, "2025-03-26", NULL);
    json_t *r = rpc(&h, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},"
                        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"},"
                        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"nope\"}, 7]");
    ASSERT(json_is_array(r));
    ASSERT_EQ_INT(json_array_size(r), 3); /* the notification gets no answer */
    ASSERT(json_object_get(json_array_get(r, 0), "result"));
    ASSERT_EQ_INT(err_code(json_array_get(r, 1)), -32601);
    ASSERT_EQ_INT(err_code(json_array_get(r, 2)), -32600);
    json_decref(r);
    ASSERT(!rpc(&h, "[{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}]"));
    r = rpc(&h, "[]");
    ASSERT_EQ_INT(err_code(r), -32600);
    json_decref(r);
    h_free(&h);
}

TEST(rpc_protocol_errors)
{
    struct h h;
    h_init(&h, mg_t_tmpdir());
    initialize(&h, "2025-06-18", NULL);
    static const struct {
        const char *in;
        int code;
    } cases[] = {
        {"{", -32700},
        {"", -32700},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\",\"method\":\"b\"}", -32700}, /* duplicate key */
        {"{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}", -32600},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":5}", -32600},
        {"{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}", -32600},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":3}", -32600},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/list\"}", -32601},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{}}", -32602},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"nope\"}}", -32602},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"list_repos\","
         "\"arguments\":[1]}}", -32602},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"logging/setLevel\",\"params\":{\"level\":\"loud\"}}", -32602},
        {"\"just a string\"", -32600},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *r = rpc(&h, cases[i].in);
        if (!r || err_code(r) != cases[i].code)
            FAIL("case %zu (%s): got %s, expected code %d", i, cases[i].in, r ? json_dumps(r, 0) : "nothing",
                 cases[i].code);
        json_decref(r);
    }
    /* nesting deeper than the cap is a parse error, not a stack overflow */
    char deep[4096];
    size_t n = 0;
    for (int i = 0; i < 1000; i++) deep[n++] = '[';
    for (int i = 0; i < 1000; i++) deep[n++] = ']';
    deep[n] = 0;
    json_t *r = rpc(&h, deep);
    ASSERT_EQ_INT(err_code(r), -32700);
    json_decref(r);
    r = rpc(&h, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"logging/setLevel\",\"params\":{\"level\":\"error\"}}");
    ASSERT(json_object_get(r, "result"));
    ASSERT_EQ_INT(mg_mcp_conn_log_level(mg_mcp_conn_of(h.s)), 3);
    json_decref(r);
    h_free(&h);
}

TEST(rpc_tools_list_schemas)
{
    struct h h;
    h_init(&h, mg_t_tmpdir());
    json_t *in = rpc(&h, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
                         "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{}}}");
    /* the instructions are a guide to every tool */
    const char *guide = json_string_value(json_object_get(json_object_get(in, "result"), "instructions"));
    ASSERT(guide);
    size_t ntools;
    const struct mg_tool *all = mg_tools(&ntools);
    for (size_t i = 0; i < ntools; i++) {
        char word[80];
        snprintf(word, sizeof(word), "%s", all[i].name);
        const char *at = guide;
        bool named = false;
        size_t wl = strlen(word);
        while (!named && (at = strstr(at, word))) { /* the whole name, not a part of a longer one */
            named = (at == guide || !(isalnum((unsigned char)at[-1]) || at[-1] == '_')) &&
                    !(isalnum((unsigned char)at[wl]) || at[wl] == '_');
            at += wl;
        }
        if (!named) FAIL("the server's instructions do not name %s", all[i].name);
    }
    json_decref(in);
    ASSERT(!rpc(&h, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"));
    /* by default the core tools and `tools`, within 14,000 bytes of compact JSON (issue 40: it was 27,022
     * for every tool; bench/tools_tokens.mjs counts its tokens) */
    json_t *r = rpc(&h, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
    json_t *tools = json_object_get(json_object_get(r, "result"), "tools");
    static const char *const core[] = {"search_code", "search_symbols", "read_file", "outline", "list_files",
                                       "find_references", "callers", "callees", "trace_path", "impact",
                                       "repo_map", "list_repos", "get_context", "tools"};
    ASSERT_EQ_INT(json_array_size(tools), sizeof(core) / sizeof(core[0]));
    for (size_t i = 0; i < sizeof(core) / sizeof(core[0]); i++)
        ASSERT_EQ_STR(json_string_value(json_object_get(json_array_get(tools, i), "name")), core[i]);
    char *list = json_dumps(json_object_get(r, "result"), JSON_COMPACT);
    ASSERT(list != NULL);
    if (strlen(list) > 14000) FAIL("tools/list is %zu bytes, over its budget of 14000", strlen(list));
    free(list);
    json_decref(r);
    /* every tool, with _meta["memgate/tools"]: "all" */
    r = rpc(&h, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"_meta\":{"
                "\"memgate/tools\":\"all\"}}}");
    tools = json_object_get(json_object_get(r, "result"), "tools");
    static const char *const want[] = {
        "search_code",    "search_symbols", "read_file",     "outline",         "list_files",   "find_references", "callers", "callees", "trace_path", "impact", "repo_map", "list_repos",   "index_repo",
        "index_status",   "get_repo_settings", "set_repo_settings", "set_scope",      "get_scope",     "clear_scope",     "open_handle",     "set_note",     "get_note",
        "list_notes",     "search_notes",   "delete_note",   "create_project",  "list_projects", "join_project",
        "leave_project",  "delete_project", "remember",      "recall",          "add_entities", "search_entities",
        "retag_entities", "save_preference", "get_profile",  "get_context", "extract_knowledge", "tools"};
    ASSERT_EQ_INT(json_array_size(tools), sizeof(want) / sizeof(want[0]));
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        json_t *t = json_array_get(tools, i);
        ASSERT_EQ_STR(json_string_value(json_object_get(t, "name")), want[i]);
        ASSERT_EQ_STR(json_string_value(json_object_get(json_object_get(t, "inputSchema"), "type")), "object");
        ASSERT_EQ_STR(json_string_value(json_object_get(json_object_get(t, "outputSchema"), "type")), "object");
        ASSERT(json_string_length(json_object_get(t, "description")) > 20);
        /* annotations on every tool: what it does to stored state */
        static const char *const writers = " index_repo set_repo_settings set_scope clear_scope open_handle set_note delete_note tools "
                                           "create_project join_project leave_project delete_project remember "
                                           "add_entities retag_entities save_preference extract_knowledge ";
        static const char *const destroyers = " set_note delete_note delete_project save_preference extract_knowledge ";
        static const char *const once = " open_handle create_project remember add_entities extract_knowledge "; /* not idempotent */
        char key[64];
        snprintf(key, sizeof(key), " %s ", want[i]);
        json_t *a = json_object_get(t, "annotations");
        if (!json_is_object(a)) FAIL("%s has no annotations", want[i]);
        /* as a client reads them: a hint left out has MCP's default (readOnly false, destructive true,
         * idempotent false, openWorld true); destructive and idempotent mean nothing for a read-only tool */
        json_t *ro = json_object_get(a, "readOnlyHint"), *de = json_object_get(a, "destructiveHint");
        json_t *id = json_object_get(a, "idempotentHint");
        bool read_only = ro ? json_is_true(ro) : false;
        ASSERT_EQ_INT(read_only, !strstr(writers, key));
        if (!read_only) {
            ASSERT_EQ_INT(de ? json_is_true(de) : true, strstr(destroyers, key) != NULL);
            ASSERT_EQ_INT(id ? json_is_true(id) : false, !strstr(once, key));
        }
        ASSERT(json_is_false(json_object_get(a, "openWorldHint")));
    }
    json_decref(r);
    r = rpc(&h, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"_meta\":{"
                "\"memgate/tools\":[\"memory\",\"nope\"]}}}");
    ASSERT_EQ_INT(err_code(r), -32602);
    ASSERT_CONTAINS(json_string_value(json_object_get(json_object_get(r, "error"), "message")), "'nope'");
    json_decref(r);
    h_free(&h);
}

/* names: the names of tools/list's tools, space-separated with one at each end */
static void listed(struct h *h, const char *params, char *names, size_t cap)
{
    char buf[512];
    snprintf(buf, sizeof(buf), "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"%s%s}",
             params ? ",\"params\":" : "", params ? params : "");
    json_t *r = rpc(h, buf), *tools = json_object_get(json_object_get(r, "result"), "tools"), *t;
    size_t i, at = snprintf(names, cap, " ");
    json_array_foreach(tools, i, t) at += snprintf(names + at, at < cap ? cap - at : 0, "%s ",
                                                   json_string_value(json_object_get(t, "name")));
    if (!tools) FAIL("tools/list: %s", json_dumps(r, JSON_COMPACT));
    json_decref(r);
}

TEST(rpc_tool_groups_enabled_per_connection)
{
    struct h h, other;
    char *home = mg_t_tmpdir();
    h_init(&h, home);
    initialize(&h, "2025-11-25", NULL);
    char names[4096];
    listed(&h, NULL, names, sizeof(names));
    ASSERT(strstr(names, " search_code ") && strstr(names, " tools ") && !strstr(names, " set_note "));
    /* a group's tools are callable by name before it is listed */
    json_t *res = call(&h, "get_scope", "{}");
    ASSERT(!tool_err(res));
    json_decref(res);
    res = call(&h, "tools", "{\"enable\":[\"memory\",\"session\"]}");
    ASSERT(!tool_err(res));
    json_t *sc = json_object_get(res, "structuredContent");
    ASSERT(json_is_true(json_object_get(sc, "listed")));
    ASSERT_EQ_INT(json_array_size(json_object_get(sc, "enabled")), 2);
    ASSERT(!json_object_get(sc, "definitions")); /* listed: the client reads them from tools/list */
    json_decref(res);
    listed(&h, NULL, names, sizeof(names));
    ASSERT(strstr(names, " set_note ") && strstr(names, " extract_knowledge ") && strstr(names, " open_handle "));
    ASSERT(!strstr(names, " create_project ") && !strstr(names, " index_repo "));
    /* another connection's list is its own */
    memset(&other, 0, sizeof(other));
    struct mg_err err = {0};
    other.s = mg_sessions_create(h.srv.sessions, MG_SESSION_MCP, NULL, NULL, NULL, &err);
    ASSERT(other.s && mg_mcp_conn_attach(other.s, &err));
    other.c = (struct mg_rpc_conn){.srv = &h.srv, .session = other.s, .who = &mg_principal_local};
    initialize(&other, "2025-11-25", NULL);
    listed(&other, NULL, names, sizeof(names));
    ASSERT(!strstr(names, " set_note "));
    mg_session_unref(&other.s);
    /* a stateless request neither sees nor changes it: it gets the definitions to call by name */
    static const char *const meta26 = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                                      "\"io.modelcontextprotocol/clientCapabilities\":{}}";
    char buf[512];
    snprintf(buf, sizeof(buf), "{%s}", meta26);
    listed(&h, buf, names, sizeof(names));
    ASSERT(!strstr(names, " set_note "));
    snprintf(buf, sizeof(buf), "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":"
             "\"tools\",\"arguments\":{\"enable\":\"projects\"},%s}}", meta26);
    json_t *r = rpc(&h, buf);
    sc = json_object_get(json_object_get(r, "result"), "structuredContent");
    ASSERT(json_is_false(json_object_get(sc, "listed")));
    ASSERT_EQ_INT(json_array_size(json_object_get(sc, "definitions")), 5);
    ASSERT_EQ_STR(json_string_value(json_object_get(json_array_get(json_object_get(sc, "definitions"), 0), "name")),
                  "create_project");
    json_decref(r);
    listed(&h, NULL, names, sizeof(names));
    ASSERT(!strstr(names, " create_project ") && strstr(names, " set_note "));
    /* disable takes a group off ("all": every one); a bad name is stdio.test.mjs's (an error compiles the
     * secret scanner that cleans its sentence: a minute under the sanitizers) */
    res = call(&h, "tools", "{\"disable\":\"all\"}");
    ASSERT(!tool_err(res));
    json_decref(res);
    listed(&h, NULL, names, sizeof(names));
    ASSERT(!strstr(names, " set_note "));
    h_free(&h);
}

static void two_repos(char **home, char **a, char **b)
{
    *home = mg_t_tmpdir();
    *a = mg_t_tmpdir();
    *b = mg_t_tmpdir();
    mg_t_write_str(*a, "src/alpha.c", "int alpha_canary(void) { return 1; }\n");
    mg_t_write_str(*a, "docs/alpha.md", "# alpha_canary notes\n");
    mg_t_write_str(*b, "lib/beta.py", "def beta_canary():\n    return 2\n");
    struct mg_t_out o = MG_RUN(*a, *home, "index", *a, "--name", "alpha", "--quiet");
    ASSERT_EQ_INT(o.status, 0);
    mg_t_out_free(&o);
}

static void index_b(const char *home, const char *b)
{
    struct mg_t_out o = MG_RUN(b, home, "index", b, "--name", "beta", "--quiet");
    ASSERT_EQ_INT(o.status, 0);
    mg_t_out_free(&o);
}

TEST(resolve_single_repo_then_repo_required)
{
    char *home, *a, *b;
    two_repos(&home, &a, &b);
    struct h h;
    h_init(&h, home);
    initialize(&h, "2025-06-18", NULL);
    /* one repo: it just works */
    json_t *res = call(&h, "search_code", "{\"query\":\"alpha_canary\"}");
    ASSERT(!tool_err(res));
    json_t *sc = json_object_get(res, "structuredContent");
    ASSERT_EQ_STR(json_string_value(json_object_get(json_array_get(json_object_get(sc, "results"), 0), "repo")),
                  "alpha");
    json_decref(res);
    /* the text is for an agent to read: not JSON, the hit as path:line, numbers
     * rounded (score=0.069, not 0.069000000000000006); the structured ones are
     * the values themselves */
    res = call(&h, "search_code", "{\"query\":\"alpha canary\",\"mode\":\"hybrid\"}");
    ASSERT(!tool_err(res));
    sc = json_object_get(res, "structuredContent");
    const char *txt = json_string_value(json_object_get(json_array_get(json_object_get(res, "content"), 0), "text"));
    ASSERT(txt && txt[0] != '{' && !strstr(txt, "\"results\":"));
    json_t *hit0 = json_array_get(json_object_get(sc, "results"), 0);
    char place[512];
    snprintf(place, sizeof(place), "\n  %s:%lld", json_string_value(json_object_get(hit0, "path")),
             (long long)json_integer_value(json_object_get(hit0, "line")));
    ASSERT_CONTAINS(txt, place);
    ASSERT_CONTAINS(txt, "results: ");
    for (const char *p = txt; *p; p++) {
        size_t digits = strspn(p, "0123456789");
        if (digits > 9) FAIL("a number of %zu digits in the text: %.40s", digits, p);
        p += digits ? digits - 1 : 0;
    }
    json_decref(res);
    /* two repos, no binding: repo_required, listing both */
    index_b(home, b);
    res = call(&h, "search_code", "{\"query\":\"alpha_canary\"}");
    ASSERT_EQ_STR(tool_err(res), "repo_required");
    json_t *repos = json_object_get(json_object_get(json_object_get(res, "_meta"), MG_MCP_ERROR_META), "repos");
    ASSERT_EQ_INT(json_array_size(repos), 2);
    ASSERT_EQ_STR(json_string_value(json_array_get(repos, 0)), "alpha");
    ASSERT_EQ_STR(json_string_value(json_array_get(repos, 1)), "beta");
    ASSERT_CONTAINS(json_string_value(json_object_get(json_array_get(json_object_get(res, "content"), 0), "text")),
                    "error[repo_required]");
    json_decref(res);
    /* explicit wins; X-Memgate-Repo too */
    res = call(&h, "search_code", "{\"query\":\"beta_canary\",\"repo\":\"beta\"}");
    ASSERT(!tool_err(res));
    json_decref(res);
    h.c.repo_header = "beta";
    res = call(&h, "search_code", "{\"query\":\"beta_canary\"}");
    ASSERT(!tool_err(res));
    json_decref(res);
    res = call(&h, "search_code", "{\"query\":\"x\",\"repo\":\"gamma\"}");
    ASSERT_EQ_STR(tool_err(res), "repo_not_found");
    json_decref(res);
    h_free(&h);

    /* rootUri at initialize binds the session, per session */
    struct h h2;
    h_init(&h2, home);
    char extra[1024];
    snprintf(extra, sizeof(extra), ",\"rootUri\":\"file://%s/src\"", a); /* a subdirectory of alpha */
    initialize(&h2, "2025-06-18", extra);
    res = call(&h2, "search_code", "{\"query\":\"alpha_canary\"}");
    ASSERT(!tool_err(res));
    json_decref(res);
    struct mg_session_snap snap;
    struct mg_err serr = {0};
    ASSERT_EQ_INT(mg_session_snapshot(h2.s, &snap, &serr), 0);
    ASSERT_EQ_STR(snap.repo, "alpha");
    mg_session_snap_release(&snap);
    res = call(&h2, "list_repos", "{}");
    ASSERT_EQ_STR(json_string_value(json_object_get(json_object_get(res, "structuredContent"), "bound")), "alpha");
    json_decref(res);
    h_free(&h2);
}

TEST(scope_merge_rules)
{
    char *home, *a, *b;
    two_repos(&home, &a, &b);
    struct h h;
    h_init(&h, home);
    initialize(&h, "2025-06-18", NULL);
    json_t *res = call(&h, "set_scope", "{\"globs\":[\"docs/**\"],\"languages\":[\"markdown\"]}");
    ASSERT(!tool_err(res));
    json_decref(res);
    /* the scope applies */
    res = call(&h, "search_code", "{\"query\":\"alpha_canary\"}");
    json_t *sc = json_object_get(res, "structuredContent");
    json_t *hits = json_object_get(sc, "results");
    ASSERT_EQ_INT(json_array_size(hits), 1);
    ASSERT_EQ_STR(json_string_value(json_object_get(json_array_get(hits, 0), "path")), "docs/alpha.md");
    char *echo = json_dumps(json_object_get(sc, "scope"), JSON_COMPACT | JSON_SORT_KEYS);
    ASSERT_EQ_STR(echo, "{\"exclude_globs\":[],\"globs\":[\"docs/**\"],\"languages\":[\"markdown\"],\"repos\":"
                        "[\"alpha\"]}");
    free(echo);
    json_decref(res);
    /* explicit arguments win field by field: globs replaced, languages kept */
    res = call(&h, "search_code", "{\"query\":\"alpha_canary\",\"globs\":[\"src/**\"]}");
    sc = json_object_get(res, "structuredContent");
    ASSERT_EQ_INT(json_array_size(json_object_get(sc, "results")), 0); /* src/ is C, scope says markdown */
    echo = json_dumps(json_object_get(sc, "scope"), JSON_COMPACT | JSON_SORT_KEYS);
    ASSERT_EQ_STR(echo, "{\"exclude_globs\":[],\"globs\":[\"src/**\"],\"languages\":[\"markdown\"],\"repos\":"
                        "[\"alpha\"]}");
    free(echo);
    json_decref(res);
    res = call(&h, "search_code", "{\"query\":\"alpha_canary\",\"globs\":[\"src/**\"],\"languages\":[]}");
    hits = json_object_get(json_object_get(res, "structuredContent"), "results");
    ASSERT_EQ_INT(json_array_size(hits), 1);
    ASSERT_EQ_STR(json_string_value(json_object_get(json_array_get(hits, 0), "path")), "src/alpha.c");
    json_decref(res);
    /* listing applies it too */
    res = call(&h, "list_files", "{}");
    json_t *files = json_object_get(json_object_get(res, "structuredContent"), "files");
    ASSERT_EQ_INT(json_array_size(files), 1);
    ASSERT_EQ_STR(json_string_value(json_object_get(json_array_get(files, 0), "path")), "docs/alpha.md");
    json_decref(res);
    /* scope repos select repos; an unknown one is refused */
    index_b(home, b);
    res = call(&h, "set_scope", "{\"repos\":[\"nope\"]}");
    ASSERT_EQ_STR(tool_err(res), "repo_not_found");
    json_decref(res);
    res = call(&h, "set_scope", "{\"repos\":[\"beta\"]}");
    json_decref(res);
    res = call(&h, "search_code", "{\"query\":\"beta_canary\"}");
    ASSERT(!tool_err(res));
    hits = json_object_get(json_object_get(res, "structuredContent"), "results");
    ASSERT_EQ_INT(json_array_size(hits), 1);
    json_decref(res);
    /* get / clear */
    res = call(&h, "clear_scope", "{}");
    echo = json_dumps(json_object_get(json_object_get(res, "structuredContent"), "scope"), JSON_COMPACT);
    ASSERT_EQ_STR(echo, "{\"globs\":[],\"exclude_globs\":[],\"languages\":[],\"repos\":[]}");
    free(echo);
    json_decref(res);
    res = call(&h, "search_code", "{\"query\":\"beta_canary\"}");
    ASSERT_EQ_STR(tool_err(res), "repo_required");
    json_decref(res);
    /* another session never sees this one's scope */
    struct h h2;
    h_init(&h2, home);
    initialize(&h2, "2025-06-18", NULL);
    res = call(&h, "set_scope", "{\"globs\":[\"docs/**\"]}");
    json_decref(res);
    res = call(&h2, "get_scope", "{}");
    echo = json_dumps(json_object_get(json_object_get(res, "structuredContent"), "scope"), JSON_COMPACT);
    ASSERT_EQ_STR(echo, "{\"globs\":[],\"exclude_globs\":[],\"languages\":[],\"repos\":[]}");
    free(echo);
    json_decref(res);
    h_free(&h2);
    h_free(&h);
}

TEST(read_file_confinement)
{
    char *home = mg_t_tmpdir(), *a = mg_t_tmpdir(), *outside = mg_t_tmpdir();
    mg_t_write_str(a, "src/main.c", "line1\nline2\nline3\n");
    mg_t_write_str(a, ".env", "TOKEN=abc\n");
    mg_t_write_str(outside, "secret.txt", "outside the root\n");
    mg_t_sh(a, "ln -s %s/secret.txt src/link.txt", outside);
    struct mg_t_out o = MG_RUN(a, home, "index", a, "--name", "alpha", "--quiet");
    ASSERT_EQ_INT(o.status, 0);
    mg_t_out_free(&o);
    struct h h;
    h_init(&h, home);
    initialize(&h, "2025-06-18", NULL);
    json_t *res = call(&h, "read_file", "{\"path\":\"src/main.c\",\"start_line\":2,\"end_line\":3}");
    json_t *sc = json_object_get(res, "structuredContent");
    ASSERT_EQ_STR(json_string_value(json_object_get(sc, "text")), "line2\nline3\n");
    ASSERT_EQ_INT(json_integer_value(json_object_get(sc, "total_lines")), 3);
    ASSERT_EQ_INT(json_integer_value(json_object_get(sc, "end_line")), 3);
    json_decref(res);
    static const char *const cases[][2] = {
        {"{\"path\":\"../outside\"}", "path_outside_repo"},
        {"{\"path\":\"src/../../x\"}", "path_outside_repo"},
        {"{\"path\":\"/etc/passwd\"}", "path_outside_repo"},
        {"{\"path\":\".env\"}", "secret_file"},
        {"{\"path\":\"src/link.txt\"}", "file_not_found"}, /* never indexed: a symlink out of the root */
        {"{\"path\":\"nope.c\"}", "file_not_found"},
        {"{\"path\":\"src/main.c\",\"start_line\":9}", "invalid_argument"},
        {"{\"path\":\"src/main.c\",\"start_line\":3,\"end_line\":2}", "invalid_argument"},
        {"{\"path\":7}", "invalid_argument"},
        {"{\"path\":\"src/main.c\",\"bogus\":1}", "invalid_argument"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        res = call(&h, "read_file", cases[i][0]);
        const char *code = tool_err(res);
        if (!code || strcmp(code, cases[i][1]) != 0)
            FAIL("read_file %s: got %s, expected %s", cases[i][0], code ? code : "success", cases[i][1]);
        json_decref(res);
    }
    /* a file replaced by a symlink out of the root after indexing */
    mg_t_sh(a, "rm src/main.c && ln -s %s/secret.txt src/main.c", outside);
    res = call(&h, "read_file", "{\"path\":\"src/main.c\"}");
    ASSERT_EQ_STR(tool_err(res), "path_outside_repo");
    json_decref(res);
    h_free(&h);
}

TEST(guardrail_metric_starts_at_zero)
{
    ASSERT_EQ_INT(mg_metrics_isolation_drops(), 0);
    struct mg_buf b;
    mg_buf_init(&b, 1 << 20);
    ASSERT_EQ_INT(mg_metrics_render(&b, NULL), 0);
    ASSERT_CONTAINS(b.p, "memgate_isolation_drops_total{kind=\"code\"} 0\n");
    mg_metrics_isolation_drop("code", 2);
    mg_buf_reset(&b);
    mg_metrics_render(&b, NULL);
    ASSERT_CONTAINS(b.p, "memgate_isolation_drops_total{kind=\"code\"} 2\n");
    mg_buf_release(&b);
}

TEST(root_uri_percent_decoded_and_indexed_on_first_use)
{
    char *home = mg_t_tmpdir(), *base = mg_t_tmpdir();
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s/my repo", base);
    mg_t_write_str(dir, "lib/gamma.go", "package lib\n\nfunc GammaCanary() int { return 3 }\n");
    char *u = mg_uri_to_path("file:///a%20b/c%2Fd");
    ASSERT_EQ_STR(u, "/a b/c/d");
    free(u);
    ASSERT(!mg_uri_to_path("https://example.com/x"));
    ASSERT(!mg_uri_to_path("file:///a%zz"));
    ASSERT(!mg_uri_to_path("file:///a%00b"));
    struct h h;
    h_init(&h, home);
    char extra[4200];
    snprintf(extra, sizeof(extra), ",\"rootUri\":\"file://%s/my%%20repo\"", base);
    initialize(&h, "2025-06-18", extra);
    /* nothing is indexed: the root is indexed by this first call, then bound */
    json_t *res = call(&h, "search_symbols", "{\"query\":\"GammaCanary\"}");
    if (tool_err(res)) FAIL("%s", json_dumps(res, 0));
    json_t *hits = json_object_get(json_object_get(res, "structuredContent"), "results");
    ASSERT_EQ_INT(json_array_size(hits), 1);
    ASSERT_EQ_STR(json_string_value(json_object_get(json_array_get(hits, 0), "path")), "lib/gamma.go");
    json_decref(res);
    struct mg_session_snap snap;
    struct mg_err serr = {0};
    ASSERT_EQ_INT(mg_session_snapshot(h.s, &snap, &serr), 0);
    ASSERT_EQ_INT(strncmp(snap.repo, "my-repo-", 8), 0); /* bound to the repo just indexed */
    ASSERT(!snap.root_pending);
    mg_session_snap_release(&snap);
    h_free(&h);
}

/* ---- 2026-07-28 ------------------------------------------------------------------ */

#define META26 "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
               "\"io.modelcontextprotocol/clientCapabilities\":{}}"

/* a stateless (HTTP) connection's headers: a JSON object, names lowercased */
static const char *hdr(void *ctx, const char *name)
{
    char low[128];
    size_t i = 0;
    for (; name[i] && i < sizeof(low) - 1; i++) low[i] = (char)tolower((unsigned char)name[i]);
    low[i] = 0;
    return json_string_value(json_object_get(ctx, low));
}

static json_t *err_data(json_t *r) { return json_object_get(json_object_get(r, "error"), "data"); }

TEST(rpc_2026_discover_meta_versions_methods)
{
    struct h h;
    h_init(&h, mg_t_tmpdir());
    /* no initialize: each request on its own */
    json_t *r = rpc(&h, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{" META26 "}}");
    json_t *res = json_object_get(r, "result");
    ASSERT_EQ_STR(json_string_value(json_object_get(res, "resultType")), "complete");
    ASSERT_EQ_STR(json_string_value(json_array_get(json_object_get(res, "supportedVersions"), 0)), "2026-07-28");
    ASSERT_EQ_INT(json_array_size(json_object_get(res, "supportedVersions")), 4);
    ASSERT(json_object_get(json_object_get(res, "capabilities"), "tools"));
    ASSERT_EQ_STR(json_string_value(json_object_get(json_object_get(json_object_get(res, "_meta"),
                                                                    "io.modelcontextprotocol/serverInfo"), "name")),
                  "memgate");
    ASSERT(json_integer_value(json_object_get(res, "ttlMs")) > 0);
    json_decref(r);
    /* _meta without its required fields: -32602 */
    r = rpc(&h, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"server/discover\",\"params\":{}}");
    ASSERT_EQ_INT(err_code(r), -32602);
    ASSERT_EQ_INT(mg_rpc_http_status(r), 400);
    json_decref(r);
    r = rpc(&h, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\",\"params\":{\"_meta\":{"
                "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}}");
    ASSERT_EQ_INT(err_code(r), -32602);
    json_decref(r);
    /* an unknown version: -32022 listing the versions, echoing the request's */
    r = rpc(&h, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\",\"params\":{\"_meta\":{"
                "\"io.modelcontextprotocol/protocolVersion\":\"v999\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}");
    ASSERT_EQ_INT(err_code(r), -32022);
    ASSERT_EQ_STR(json_string_value(json_object_get(err_data(r), "requested")), "v999");
    ASSERT_EQ_INT(json_array_size(json_object_get(err_data(r), "supported")), 4);
    ASSERT_EQ_INT(mg_rpc_http_status(r), 400);
    json_decref(r);
    /* methods of the handshake era: not found, 404 over HTTP */
    static const char *const gone[] = {"initialize", "ping", "logging/setLevel", "resources/subscribe", "nope/x"};
    for (size_t i = 0; i < sizeof(gone) / sizeof(gone[0]); i++) {
        char buf[512];
        snprintf(buf, sizeof(buf), "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"%s\",\"params\":{" META26 "}}", gone[i]);
        r = rpc(&h, buf);
        ASSERT_EQ_INT(err_code(r), -32601);
        ASSERT_EQ_INT(mg_rpc_http_status(r), 404);
        json_decref(r);
    }
    /* tools/list: cacheable, every tool takes a handle; the legacy session was never initialized */
    r = rpc(&h, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/list\",\"params\":{" META26 "}}");
    res = json_object_get(r, "result");
    ASSERT_EQ_STR(json_string_value(json_object_get(res, "cacheScope")), "public");
    ASSERT(json_integer_value(json_object_get(res, "ttlMs")) > 0);
    json_t *t0 = json_array_get(json_object_get(res, "tools"), 0);
    ASSERT(json_object_get(json_object_get(json_object_get(t0, "inputSchema"), "properties"), "handle"));
    ASSERT(!mg_mcp_conn_initialized(mg_mcp_conn_of(h.s)));
    json_decref(r);
    /* a legacy request on the same connection still needs initialize */
    r = rpc(&h, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\"}");
    ASSERT_EQ_INT(err_code(r), -32600);
    json_decref(r);
    h_free(&h);
}

TEST(rpc_2026_http_headers_checked)
{
    struct h h;
    h_init(&h, mg_t_tmpdir());
    h.c.session = NULL;
    h.c.stateless = true;
    h.c.header = hdr;
    static const struct {
        const char *headers, *method, *params;
        int code; /* 0: a result */
    } cases[] = {
        {"{\"mcp-protocol-version\":\"2026-07-28\",\"mcp-method\":\"tools/list\"}", "tools/list", "", 0},
        {"{\"mcp-method\":\"tools/list\"}", "tools/list", "", -32020},                   /* no version header */
        {"{\"mcp-protocol-version\":\"2025-11-25\",\"mcp-method\":\"tools/list\"}", "tools/list", "", -32020},
        {"{\"mcp-protocol-version\":\"2026-07-28\"}", "tools/list", "", -32020},        /* no Mcp-Method */
        {"{\"mcp-protocol-version\":\"2026-07-28\",\"mcp-method\":\"TOOLS/LIST\"}", "tools/list", "", -32020},
        {"{\"mcp-protocol-version\":\"2026-07-28\",\"mcp-method\":\"tools/call\"}", "tools/call",
         "\"name\":\"list_repos\",", -32020}, /* no Mcp-Name */
        {"{\"mcp-protocol-version\":\"2026-07-28\",\"mcp-method\":\"tools/call\",\"mcp-name\":\"list_files\"}",
         "tools/call", "\"name\":\"list_repos\",", -32020},
        {"{\"mcp-protocol-version\":\"2026-07-28\",\"mcp-method\":\"tools/call\",\"mcp-name\":\"list_repos\"}",
         "tools/call", "\"name\":\"list_repos\",", 0},
        /* the base64 form of the name */
        {"{\"mcp-protocol-version\":\"2026-07-28\",\"mcp-method\":\"tools/call\",\"mcp-name\":\"=?base64?"
         "bGlzdF9yZXBvcw==?=\"}", "tools/call", "\"name\":\"list_repos\",", 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *hs = json_loads(cases[i].headers, 0, NULL);
        ASSERT(hs);
        h.c.header_ctx = hs;
        char buf[1024];
        snprintf(buf, sizeof(buf), "{\"jsonrpc\":\"2.0\",\"id\":%zu,\"method\":\"%s\",\"params\":{%s" META26 "}}", i,
                 cases[i].method, cases[i].params);
        json_t *r = rpc(&h, buf);
        if (cases[i].code) {
            if (err_code(r) != cases[i].code) FAIL("case %zu: %s", i, json_dumps(r, JSON_COMPACT));
            ASSERT_EQ_INT(mg_rpc_http_status(r), 400);
        } else if (!json_object_get(r, "result")) {
            FAIL("case %zu: %s", i, json_dumps(r, JSON_COMPACT));
        }
        json_decref(r);
        json_decref(hs);
    }
    h_free(&h);
}

/* tools/call over a stateless connection with client capabilities caps and extra params */
static json_t *call26(struct h *h, const char *name, const char *args, const char *caps, const char *extra)
{
    char buf[2048];
    snprintf(buf, sizeof(buf),
             "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":\"%s\",\"arguments\":%s,%s"
             "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
             "\"io.modelcontextprotocol/clientCapabilities\":%s}}}",
             name, args, extra ? extra : "", caps);
    json_t *r = rpc(h, buf);
    json_t *res = json_incref(json_object_get(r, "result"));
    if (!res) FAIL("tools/call %s: %s", name, json_dumps(r, JSON_COMPACT));
    json_decref(r);
    return res;
}

static const char *first_repo(json_t *res)
{
    return json_string_value(json_object_get(
        json_array_get(json_object_get(json_object_get(res, "structuredContent"), "results"), 0), "repo"));
}

TEST(rpc_2026_binding_roots_root_meta_and_handles)
{
    char *home, *a, *b;
    two_repos(&home, &a, &b);
    index_b(home, b);
    struct h h;
    h_init(&h, home);
    h.c.session = NULL;
    h.c.stateless = true;
    /* no binding, no roots capability: repo_required listing both */
    json_t *res = call26(&h, "search_code", "{\"query\":\"canary\"}", "{}", NULL);
    ASSERT_EQ_STR(tool_err(res), "repo_required");
    json_decref(res);
    /* roots declared: an InputRequiredResult asking for roots/list, then the retry binds */
    res = call26(&h, "search_code", "{\"query\":\"canary\"}", "{\"roots\":{}}", NULL);
    ASSERT_EQ_STR(json_string_value(json_object_get(res, "resultType")), "input_required");
    ASSERT_EQ_STR(json_string_value(json_object_get(json_object_get(json_object_get(res, "inputRequests"), "roots"),
                                                    "method")), "roots/list");
    json_decref(res);
    char extra[600];
    snprintf(extra, sizeof(extra), "\"inputResponses\":{\"roots\":{\"roots\":[{\"uri\":\"file://%s\"}]}},", b);
    res = call26(&h, "search_code", "{\"query\":\"canary\"}", "{\"roots\":{}}", extra);
    ASSERT_EQ_STR(first_repo(res), "beta");
    json_decref(res);
    /* the next request remembers nothing: asked again */
    res = call26(&h, "search_code", "{\"query\":\"canary\"}", "{\"roots\":{}}", NULL);
    ASSERT_EQ_STR(json_string_value(json_object_get(res, "resultType")), "input_required");
    json_decref(res);
    /* _meta memgate/root, as a path */
    char buf[1200];
    snprintf(buf, sizeof(buf),
             "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":\"search_code\","
             "\"arguments\":{\"query\":\"canary\"},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
             "\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{\"roots\":{}},\"memgate/root\":\"%s/src\"}}}",
             a);
    json_t *r = rpc(&h, buf);
    ASSERT_EQ_STR(first_repo(json_object_get(r, "result")), "alpha");
    json_decref(r);
    /* a handle bound to beta, with a scope; a caller of another tenant cannot use it */
    res = call26(&h, "open_handle", "{\"repo\":\"beta\"}", "{}", NULL);
    const char *hd = json_string_value(json_object_get(json_object_get(res, "structuredContent"), "handle"));
    ASSERT(hd && strlen(hd) == 32);
    char args[256];
    snprintf(args, sizeof(args), "{\"query\":\"canary\",\"handle\":\"%s\"}", hd);
    json_t *res2 = call26(&h, "search_code", args, "{}", NULL);
    ASSERT_EQ_STR(first_repo(res2), "beta");
    json_decref(res2);
    snprintf(args, sizeof(args), "{\"languages\":[\"c\"],\"handle\":\"%s\"}", hd);
    res2 = call26(&h, "set_scope", args, "{}", NULL);
    ASSERT(!tool_err(res2));
    json_decref(res2);
    snprintf(args, sizeof(args), "{\"handle\":\"%s\"}", hd);
    res2 = call26(&h, "get_scope", args, "{}", NULL);
    ASSERT_EQ_STR(json_string_value(json_array_get(json_object_get(json_object_get(json_object_get(res2,
                  "structuredContent"), "scope"), "languages"), 0)), "c");
    json_decref(res2);
    struct mg_principal other = mg_principal_local;
    snprintf(other.tenant, sizeof(other.tenant), "tenant-b");
    h.c.who = &other;
    res2 = call26(&h, "get_scope", args, "{}", NULL);
    ASSERT_EQ_STR(tool_err(res2), "handle_invalid");
    json_decref(res2);
    h.c.who = &mg_principal_local;
    res2 = call26(&h, "get_scope", "{\"handle\":\"00000000000000000000000000000000\"}", "{}", NULL);
    ASSERT_EQ_STR(tool_err(res2), "handle_invalid");
    json_decref(res2);
    res2 = call26(&h, "get_scope", "{\"handle\":7}", "{}", NULL);
    ASSERT_EQ_STR(tool_err(res2), "invalid_argument");
    json_decref(res2);
    /* session state without a handle: an error that says to open one, never a success the next call forgot */
    static const char *const keeps[][2] = {{"set_scope", "{\"languages\":[\"c\"]}"},
                                           {"clear_scope", "{}"},
                                           {"join_project", "{\"repo\":\"beta\",\"project\":\"p26\"}"},
                                           {"leave_project", "{\"repo\":\"beta\"}"}};
    for (size_t i = 0; i < sizeof(keeps) / sizeof(keeps[0]); i++) {
        res2 = call26(&h, keeps[i][0], keeps[i][1], "{}", NULL);
        if (!tool_err(res2) || strcmp(tool_err(res2), "session_required") != 0)
            FAIL("%s without a handle: %s", keeps[i][0], json_dumps(res2, JSON_COMPACT));
        ASSERT_CONTAINS(json_string_value(json_object_get(json_array_get(json_object_get(res2, "content"), 0), "text")),
                        "call open_handle");
        json_decref(res2);
    }
    /* with a durable session_id, the membership is that session's: kept */
    res2 = call26(&h, "join_project", "{\"repo\":\"beta\",\"project\":\"p26\",\"session_id\":\"ext-26\"}", "{}", NULL);
    if (tool_err(res2) && strcmp(tool_err(res2), "session_required") == 0) FAIL("join_project with session_id refused");
    json_decref(res2);
    json_decref(res);
    h_free(&h);
}

TEST(provider_errors_counted_by_sanitised_name)
{
    uint64_t before = mg_metrics_provider_errors("ext\"one\n");
    mg_metrics_provider_error("ext\"one\n");
    mg_metrics_provider_error("ext\"one\n");
    ASSERT(mg_metrics_provider_errors("ext\"one\n") == before + 2);
    struct mg_buf b;
    mg_buf_init(&b, 1 << 20);
    ASSERT_EQ_INT(mg_metrics_render(&b, NULL), 0);
    ASSERT_CONTAINS(b.p, "# TYPE memgate_provider_errors_total counter");
    ASSERT_CONTAINS(b.p, "memgate_provider_errors_total{provider=\"ext_one_\"} ");
    ASSERT(!strstr(b.p, "ext\"one"));
    mg_buf_release(&b);
}
