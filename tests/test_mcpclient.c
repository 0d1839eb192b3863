/* test_mcpclient.c — external MCP servers as code providers: the config
 * block (util/config.h), the result mapping and arguments template
 * (util/mcpmap.h), the client's framing and its stdio transport against
 * real processes (util/mcpc.h). The end-to-end tests with real servers are
 * tests/node/providers_mcp.test.mjs. */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "util/clock.h"
#include "util/config.h"
#include "util/mcpc.h"
#include "util/mcpmap.h"

static int parse_cfg(struct mg_config *c, const char *text, struct mg_err *err)
{
    mg_t_config_defaults(c);
    memset(err, 0, sizeof(*err));
    return mg_config_parse(c, text, strlen(text), "cfg", err);
}

TEST(mcpclient_config_block)
{
    struct mg_config c;
    struct mg_err err;
    const char *ok = "mcp_provider.fs.command = /usr/bin/node\n"
                     "mcp_provider.fs.args = [\"/srv/fs.js\", \"/src\"]\n"
                     "mcp_provider.fs.tool = search_files\n"
                     "mcp_provider.fs.arguments = {\"path\": \"{root}\", \"pattern\": \"**/*{query}*\"}\n"
                     "mcp_provider.fs.result = text:lines\n"
                     "mcp_provider.fs.repos = alpha, beta\n"
                     "mcp_provider.fs.timeout_ms = 2500\n"
                     "mcp_provider.web.url = https://mcp.example/mcp\n"
                     "mcp_provider.web.token_file = /etc/mg/tok\n"
                     "mcp_provider.web.tool = find\n"
                     "mcp_provider.web.result = json:/results;text=body;score=rank\n"
                     "mcp_provider.web.repos = alpha\n";
    ASSERT_EQ_INT(parse_cfg(&c, ok, &err), 0);
    ASSERT_EQ_INT(c.n_mcp_providers, 2);
    ASSERT_EQ_STR(c.mcp_providers[0].name, "fs");
    ASSERT_EQ_INT(c.mcp_providers[0].timeout_ms, 2500);
    ASSERT_EQ_INT(c.mcp_providers[1].timeout_ms, 5000);
    ASSERT_EQ_INT(c.mcp_providers[1].max_bytes, 1 << 20);
    ASSERT(mg_mcp_provider_serves(&c, 0, "alpha"));
    ASSERT(mg_mcp_provider_serves(&c, 0, "beta"));
    ASSERT(!mg_mcp_provider_serves(&c, 0, "alph"));
    ASSERT(!mg_mcp_provider_serves(&c, 1, "beta"));

    /* each broken block is refused, naming the provider and what to do */
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"mcp_provider.x.tool = t\nmcp_provider.x.result = text:lines\nmcp_provider.x.repos = a\n", "command"},
        {"mcp_provider.x.command = c\nmcp_provider.x.url = http://h/\nmcp_provider.x.tool = t\n"
         "mcp_provider.x.result = text:lines\nmcp_provider.x.repos = a\n", "either a command"},
        {"mcp_provider.x.command = c\nmcp_provider.x.tool = t\nmcp_provider.x.result = text:lines\n", "needs repos"},
        {"mcp_provider.x.command = c\nmcp_provider.x.repos = a\nmcp_provider.x.result = text:lines\n", "needs a tool"},
        {"mcp_provider.x.command = c\nmcp_provider.x.tool = t\nmcp_provider.x.repos = a\n", "result mapping"},
        {"mcp_provider.x.command = c\nmcp_provider.x.tool = t\nmcp_provider.x.repos = a\n"
         "mcp_provider.x.result = xml:/a\n", "not json:POINTER"},
        {"mcp_provider.x.command = c\nmcp_provider.x.tool = t\nmcp_provider.x.repos = a\n"
         "mcp_provider.x.result = text:lines;path=p\n", "json: mappings only"},
        {"mcp_provider.x.command = c\nmcp_provider.x.tool = t\nmcp_provider.x.repos = a\n"
         "mcp_provider.x.result = text:lines\nmcp_provider.x.args = \"/a\"\n", "JSON array"},
        {"mcp_provider.x.command = c\nmcp_provider.x.tool = t\nmcp_provider.x.repos = a\n"
         "mcp_provider.x.result = text:lines\nmcp_provider.x.arguments = {\"q\": \n", "not JSON"},
        {"mcp_provider.x.command = c\nmcp_provider.x.tool = t\nmcp_provider.x.repos = a\n"
         "mcp_provider.x.result = text:lines\nmcp_provider.x.arguments = [1]\n", "must be a JSON object"},
        {"mcp_provider.x.url = ftp://h/\nmcp_provider.x.tool = t\nmcp_provider.x.repos = a\n"
         "mcp_provider.x.result = text:lines\n", "http://"},
        {"mcp_provider.x.url = http://h/\nmcp_provider.x.token_file = tok\nmcp_provider.x.tool = t\n"
         "mcp_provider.x.repos = a\nmcp_provider.x.result = text:lines\n", "absolute"},
        {"mcp_provider.x.colour = red\n", "unknown key"},
        {"mcp_provider.X.tool = t\n", "not mcp_provider.NAME.KEY"},
        {"mcp_provider.x.timeout_ms = 5\n", "out of range"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ASSERT_EQ_INT(parse_cfg(&c, bad[i].text, &err), -1);
        ASSERT_EQ_STR(err.code, MG_E_CONFIG);
        ASSERT_CONTAINS(err.msg, bad[i].want);
    }
}

TEST(mcpclient_arguments_template_is_safe)
{
    /* a query with quotes, braces and a placeholder of its own cannot change the object */
    json_t *a = mg_mcpmap_arguments("{\"q\": \"find {query}\", \"n\": \"{limit}\", \"at\": [\"{root}\", {\"r\": \"{repo}\"}]}",
                                    "x\", \"evil\": true, \"{root}", 7, "/src/app", "alpha");
    ASSERT(a);
    ASSERT_EQ_INT(json_object_size(a), 3);
    ASSERT_EQ_STR(json_string_value(json_object_get(a, "q")), "find x\", \"evil\": true, \"{root}");
    ASSERT(json_is_integer(json_object_get(a, "n")));
    ASSERT_EQ_INT(json_integer_value(json_object_get(a, "n")), 7);
    ASSERT_EQ_STR(json_string_value(json_array_get(json_object_get(a, "at"), 0)), "/src/app");
    ASSERT_EQ_STR(json_string_value(json_object_get(json_array_get(json_object_get(a, "at"), 1), "r")), "alpha");
    json_decref(a);
    ASSERT(!mg_mcpmap_arguments("[1]", "q", 1, "/", "r"));
}

struct got {
    char path[64][128];
    char text[64][128];
    int64_t start[64], end[64];
    double score[64];
    size_t n;
};

static void on_hit(void *ud, const struct mg_mcpmap_hit *h)
{
    struct got *g = ud;
    snprintf(g->path[g->n], sizeof(g->path[0]), "%.*s", (int)h->path_len, h->path);
    snprintf(g->text[g->n], sizeof(g->text[0]), "%.*s", (int)h->text_len, h->text ? h->text : "");
    g->start[g->n] = h->start_line;
    g->end[g->n] = h->end_line;
    g->score[g->n] = h->has_score ? h->score : -1;
    g->n++;
}

static int hits_of(const char *spec, const char *result, size_t max, struct got *g, size_t *over, struct mg_err *err)
{
    struct mg_mcpmap m;
    ASSERT_EQ_INT(mg_mcpmap_parse(spec, &m, "t", err), 0);
    json_t *r = json_loads(result, 0, NULL);
    ASSERT(r);
    memset(g, 0, sizeof(*g));
    memset(err, 0, sizeof(*err));
    int rc = mg_mcpmap_hits(&m, r, max, over, on_hit, g, err);
    json_decref(r);
    return rc;
}

TEST(mcpclient_result_mapping)
{
    struct got g;
    struct mg_err err;
    size_t over;
    /* json: structuredContent at a pointer, renamed fields */
    ASSERT_EQ_INT(hits_of("json:/data/hits;path=file;start_line=from;end_line=to;text=body;score=rank",
                          "{\"structuredContent\":{\"data\":{\"hits\":[{\"file\":\"a.c\",\"from\":3,\"to\":5,"
                          "\"body\":\"int a;\",\"rank\":0.75},{\"nofile\":1},{\"file\":\"b.c\"},{\"file\":\"c.c\"}]}}}",
                          2, &g, &over, &err),
                  0);
    ASSERT_EQ_INT(g.n, 2);
    ASSERT_EQ_INT(over, 1);
    ASSERT_EQ_STR(g.path[0], "a.c");
    ASSERT_EQ_INT(g.start[0], 3);
    ASSERT_EQ_INT(g.end[0], 5);
    ASSERT_EQ_STR(g.text[0], "int a;");
    ASSERT(g.score[0] == 0.75);
    ASSERT(g.score[1] == -1);
    /* json: without structuredContent, the text content parsed */
    ASSERT_EQ_INT(hits_of("json:/results", "{\"content\":[{\"type\":\"text\",\"text\":\"{\\\"results\\\":[{\\\"path\\\":"
                                           "\\\"x.py\\\",\\\"snippet\\\":\\\"def x\\\"}]}\"}]}",
                          10, &g, &over, &err),
                  0);
    ASSERT_EQ_INT(g.n, 1);
    ASSERT_EQ_STR(g.text[0], "def x");
    /* text:grep with a prefix to strip; lines that are not path:line:text are skipped */
    ASSERT_EQ_INT(hits_of("text:grep;strip=Echo:", "{\"content\":[{\"type\":\"text\",\"text\":"
                                                   "\"Echo: src/a.c:12:int a;\\nnot a hit\\nsrc/b.c:x:y\\r\\nsrc/c.c:7:\"}]}",
                          10, &g, &over, &err),
                  0);
    ASSERT_EQ_INT(g.n, 2);
    ASSERT_EQ_STR(g.path[0], "src/a.c");
    ASSERT_EQ_INT(g.start[0], 12);
    ASSERT_EQ_STR(g.text[0], "int a;");
    ASSERT_EQ_STR(g.path[1], "src/c.c");
    /* text:lines */
    ASSERT_EQ_INT(hits_of("text:lines", "{\"content\":[{\"type\":\"text\",\"text\":\"/r/a.c\\n\\n/r/b.c\\n\"}]}", 10, &g,
                          &over, &err),
                  0);
    ASSERT_EQ_INT(g.n, 2);
    ASSERT_EQ_STR(g.path[1], "/r/b.c");
    /* errors: a tool error (its text never quoted), the wrong shape */
    ASSERT_EQ_INT(hits_of("text:lines", "{\"isError\":true,\"content\":[{\"type\":\"text\",\"text\":\"secret-ish\"}]}",
                          10, &g, &over, &err),
                  -1);
    ASSERT_EQ_STR(err.code, MG_E_PROVIDER_BAD_RESPONSE);
    ASSERT_NOT_CONTAINS(err.msg, "secret-ish");
    ASSERT_EQ_INT(hits_of("json:/results", "{\"structuredContent\":{\"results\":{}}}", 10, &g, &over, &err), -1);
    ASSERT_CONTAINS(err.msg, "no array at '/results'");
    ASSERT_EQ_INT(hits_of("json:/results", "{\"content\":[{\"type\":\"text\",\"text\":\"nope\"}]}", 10, &g, &over, &err),
                  -1);
    ASSERT_CONTAINS(err.msg, "not JSON");
}

TEST(mcpclient_framing)
{
    json_t *r;
    struct mg_err err = {0};
    const char *reply = "{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"ok\":1}}";
    ASSERT_EQ_INT(mg_mcpc_parse_message(reply, strlen(reply), 4, &r, &err), MG_MCPC_REPLY);
    ASSERT_EQ_INT(json_integer_value(json_object_get(r, "ok")), 1);
    json_decref(r);
    ASSERT_EQ_INT(mg_mcpc_parse_message(reply, strlen(reply), 5, &r, &err), MG_MCPC_OTHER); /* another call's */
    const char *req = "{\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"method\":\"roots/list\"}";
    ASSERT_EQ_INT(mg_mcpc_parse_message(req, strlen(req), 4, &r, &err), MG_MCPC_REQUEST);
    ASSERT_EQ_STR(json_string_value(r), "s1");
    json_decref(r);
    const char *note = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}";
    ASSERT_EQ_INT(mg_mcpc_parse_message(note, strlen(note), 4, &r, &err), MG_MCPC_OTHER);
    const char *e = "{\"jsonrpc\":\"2.0\",\"id\":4,\"error\":{\"code\":-32602,\"message\":\"bad\"}}";
    ASSERT_EQ_INT(mg_mcpc_parse_message(e, strlen(e), 4, &r, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_PROVIDER_BAD_RESPONSE);
    ASSERT_CONTAINS(err.msg, "-32602");
    ASSERT_EQ_INT(mg_mcpc_parse_message("{oops", 5, 4, &r, &err), -1);
    ASSERT_EQ_INT(mg_mcpc_parse_message("[1]", 3, 4, &r, &err), -1);
    /* SSE: the answer among other events, data over two lines, CRLF */
    const char *sse = "event: message\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\r\n\r\n"
                      ": a comment\n"
                      "id: 9\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\n"
                      "data: \"result\":{\"v\":2}}\n\n";
    ASSERT_EQ_INT(mg_mcpc_parse_sse(sse, strlen(sse), 7, &r, &err), 0);
    ASSERT_EQ_INT(json_integer_value(json_object_get(r, "v")), 2);
    json_decref(r);
    const char *cut = "data: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}"; /* no blank line at the end */
    ASSERT_EQ_INT(mg_mcpc_parse_sse(cut, strlen(cut), 7, &r, &err), 0);
    json_decref(r);
    const char *none = "data: {\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n\n";
    ASSERT_EQ_INT(mg_mcpc_parse_sse(none, strlen(none), 7, &r, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_PROVIDER_BAD_RESPONSE);
}

static struct mg_mcp_provider_cfg stdio_cfg(const char *command, const char *args, int timeout_ms)
{
    struct mg_mcp_provider_cfg p = {0};
    snprintf(p.name, sizeof(p.name), "t");
    snprintf(p.command, sizeof(p.command), "%s", command);
    snprintf(p.args, sizeof(p.args), "%s", args);
    snprintf(p.tool, sizeof(p.tool), "list_repos");
    p.timeout_ms = timeout_ms;
    p.max_items = 100;
    p.max_bytes = 1 << 20;
    return p;
}

TEST(mcpclient_stdio_against_memgate)
{
    const char *bin = getenv("MEMGATE_BIN");
    ASSERT(bin);
    char *home = mg_t_tmpdir();
    char args[4096];
    snprintf(args, sizeof(args), "[\"MEMGATE_HOME=%s\", \"%s\", \"mcp\"]", home, bin);
    struct mg_mcp_provider_cfg p = stdio_cfg("/usr/bin/env", args, 10000);
    struct mg_mcpc *c = mg_mcpc_new(&p, home);
    json_t *args0 = json_object(), *res = NULL;
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_mcpc_call(c, "list_repos", args0, 0, &res, &err), 0);
    ASSERT(json_is_object(json_object_get(res, "structuredContent")));
    json_decref(res);
    int pid = mg_mcpc_pid(c);
    ASSERT(pid > 0);
    /* a second call reuses the process */
    ASSERT_EQ_INT(mg_mcpc_call(c, "list_repos", args0, 0, &res, &err), 0);
    json_decref(res);
    ASSERT_EQ_INT(mg_mcpc_pid(c), pid);
    /* killed from outside: the next call says it died, then (after the backoff) it is started again */
    kill(pid, SIGKILL);
    usleep(100 * 1000);
    ASSERT_EQ_INT(mg_mcpc_call(c, "list_repos", args0, 0, &res, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_PROVIDER_UNAVAILABLE);
    ASSERT_EQ_INT(mg_mcpc_call(c, "list_repos", args0, 0, &res, &err), -1);
    ASSERT_CONTAINS(err.msg, "started again in");
    usleep(1100 * 1000);
    memset(&err, 0, sizeof(err));
    ASSERT_EQ_INT(mg_mcpc_call(c, "list_repos", args0, 0, &res, &err), 0);
    json_decref(res);
    ASSERT(mg_mcpc_pid(c) > 0 && mg_mcpc_pid(c) != pid);
    int last = mg_mcpc_pid(c);
    mg_mcpc_free(c);
    ASSERT(kill(last, 0) != 0); /* freed: the process group is gone */
    json_decref(args0);
}

TEST(mcpclient_stdio_silent_and_dead_servers)
{
    struct mg_err err = {0};
    json_t *a = json_object(), *res = NULL;
    /* a server that never answers: a timeout bounded by timeout_ms, and its group killed */
    struct mg_mcp_provider_cfg p = stdio_cfg("/bin/sh", "[\"-c\", \"sleep 30 & sleep 30\"]", 300);
    struct mg_mcpc *c = mg_mcpc_new(&p, NULL);
    double t0 = mg_clock_ms();
    ASSERT_EQ_INT(mg_mcpc_call(c, "x", a, 0, &res, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_PROVIDER_TIMEOUT);
    ASSERT(mg_clock_ms() - t0 < 2000);
    ASSERT_EQ_INT(mg_mcpc_pid(c), 0);
    mg_mcpc_free(c);
    /* a command that does not exist, one that exits at once, one that talks nonsense */
    p = stdio_cfg("/nonexistent/server", "", 2000);
    c = mg_mcpc_new(&p, NULL);
    ASSERT_EQ_INT(mg_mcpc_call(c, "x", a, 0, &res, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_PROVIDER_UNAVAILABLE);
    mg_mcpc_free(c);
    p = stdio_cfg("/bin/sh", "[\"-c\", \"echo '{this is not json'; sleep 5\"]", 2000);
    c = mg_mcpc_new(&p, NULL);
    ASSERT_EQ_INT(mg_mcpc_call(c, "x", a, 0, &res, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_PROVIDER_BAD_RESPONSE);
    mg_mcpc_free(c);
    /* a flood: more than max_bytes (64 KiB here) without an answer; a finite one, so without the cap it
     * would be a timeout */
    char *dir = mg_t_tmpdir(), script[4200], sargs[4300];
    const char *flood = "yes aaaaaaaaaaaaaaaa | head -c 1000000 | tr -d '\\n'\nsleep 5\n";
    mg_t_write(dir, "flood.sh", flood, strlen(flood));
    snprintf(script, sizeof(script), "%s/flood.sh", dir);
    snprintf(sargs, sizeof(sargs), "[\"%s\"]", script);
    p = stdio_cfg("/bin/sh", sargs, 3000);
    p.max_bytes = 64 << 10;
    c = mg_mcpc_new(&p, NULL);
    ASSERT_EQ_INT(mg_mcpc_call(c, "x", a, 0, &res, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_PROVIDER_TOO_LARGE);
    mg_mcpc_free(c);
    /* a server that answers initialize with a protocol version memgate does not speak */
    const char *old = "read line\necho '{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2024-11-05\","
                      "\"capabilities\":{},\"serverInfo\":{\"name\":\"old\",\"version\":\"1\"}}}'\nsleep 5\n";
    mg_t_write(dir, "old.sh", old, strlen(old));
    snprintf(sargs, sizeof(sargs), "[\"%s/old.sh\"]", dir);
    p = stdio_cfg("/bin/sh", sargs, 3000);
    c = mg_mcpc_new(&p, NULL);
    ASSERT_EQ_INT(mg_mcpc_call(c, "x", a, 0, &res, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_PROVIDER_BAD_RESPONSE);
    ASSERT_CONTAINS(err.msg, "2024-11-05");
    mg_mcpc_free(c);
    json_decref(a);
}

TEST(mcpclient_memgate_as_its_own_provider_does_not_loop)
{
    const char *bin = getenv("MEMGATE_BIN");
    ASSERT(bin);
    char *home = mg_t_tmpdir(), *repo = mg_t_tmpdir();
    const char *src = "int loop_guard_word(void) { return 1; }\n";
    mg_t_write(repo, "a.c", src, strlen(src));
    const char *idx[] = {"index", repo, "--name", "self", "--quiet", NULL};
    struct mg_t_out o = mg_t_run(repo, home, idx);
    ASSERT_EQ_INT(o.status, 0);
    mg_t_out_free(&o);
    /* the config names this very memgate (same home) as its provider */
    char cfg[8192];
    int n = snprintf(cfg, sizeof(cfg),
                     "mcp_provider.self.command = /usr/bin/env\n"
                     "mcp_provider.self.args = [\"MEMGATE_HOME=%s\", \"%s\", \"mcp\"]\n"
                     "mcp_provider.self.tool = search_code\n"
                     "mcp_provider.self.arguments = {\"query\": \"{query}\", \"repo\": \"self\"}\n"
                     "mcp_provider.self.result = json:/results\n"
                     "mcp_provider.self.repos = self\n",
                     home, bin);
    mg_t_write(home, "config", cfg, (size_t)n);
    char args[8192];
    snprintf(args, sizeof(args), "[\"MEMGATE_HOME=%s\", \"%s\", \"mcp\"]", home, bin);
    struct mg_mcp_provider_cfg p = stdio_cfg("/usr/bin/env", args, 8000);
    struct mg_mcpc *c = mg_mcpc_new(&p, NULL);
    json_t *a = json_pack("{s:s, s:s}", "query", "loop_guard_word", "repo", "self"), *res = NULL;
    struct mg_err err = {0};
    /* the memgate started here is a provider (depth 1): it answers from its own index and starts none */
    ASSERT_EQ_INT(mg_mcpc_call(c, "search_code", a, 0, &res, &err), 0);
    json_t *sc = json_object_get(res, "structuredContent");
    if (json_array_size(json_object_get(sc, "results")) < 1) FAIL("%s", json_dumps(res, 0));
    ASSERT(!json_object_get(sc, "providers"));
    json_decref(res);
    json_decref(a);
    mg_mcpc_free(c);
}
