/* fuzz_rpc.c — JSON-RPC framing and MCP dispatch: any bytes given to the
 * parser and, when they parse, to the dispatcher of a fresh session must give
 * a well-formed answer (or none) without crashing or leaking. The session is
 * initialized first for half the inputs, so post-initialize paths are reached.
 * Tool calls run against an empty data directory (no repo): they fail with
 * tool errors, which is the point — argument checking is what is fuzzed.
 * With the first two bits of the first byte set, the connection is stateless (HTTP
 * without a session: 2026-07-28 only), its headers taken from the message's
 * own "fuzzHeaders" object, so the header checks (base64 names included)
 * are fuzzed too. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "code/code.h"
#include "mcp/conn.h"
#include "mcp/rpc.h"
#include "memory/memory.h"

static struct mg_server srv;

static int out_send(struct mg_out *o, json_t *msg)
{
    (void)o;
    (void)msg;
    return -1; /* a channel that carries nothing */
}

static const char *header(void *ctx, const char *name)
{
    char low[128];
    size_t i = 0;
    for (; name[i] && i < sizeof(low) - 1; i++) low[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] + 32 : name[i]);
    low[i] = 0;
    return json_string_value(json_object_get(ctx, low));
}

static void check_reply(json_t *r)
{
    if (!r) return;
    if (json_is_array(r)) {
        size_t i;
        json_t *e;
        json_array_foreach(r, i, e) check_reply(e);
        return;
    }
    if (!json_is_object(r) || !json_object_get(r, "id") ||
        (!json_object_get(r, "result") == !json_object_get(r, "error")))
        abort(); /* every answer has an id and exactly one of result / error */
}

MG_FUZZ_TARGET(rpc)
{
    if (!srv.sessions) {
        struct mg_config cfg;
        mg_config_defaults(&cfg);
        snprintf(cfg.home, sizeof(cfg.home), "/nonexistent/memgate-fuzz");
        struct mg_err e = {0};
        if (mg_server_open(&srv, &cfg, MG_SERVER_NO_TTL, &e) != 0) { /* no audit log there: without one */
            memset(&srv, 0, sizeof(srv));
            srv.cfg = cfg;
            srv.sessions = mg_sessions_new(0);
            mg_code_builtin_open(&srv.cfg, NULL, &srv.providers.code, &e);
            mg_memory_builtin_open(&srv.cfg, &srv.providers, &e);
        }
    }
    struct mg_err err = {0};
    struct mg_session *s = mg_sessions_create(srv.sessions, MG_SESSION_MCP, NULL, "fuzz", NULL, &err);
    if (s && !mg_mcp_conn_attach(s, &err)) abort();
    if (!s) abort();
    struct mg_out out = {.send = out_send};
    struct mg_rpc_conn x = {.srv = &srv, .session = s, .who = &mg_principal_local, .out = &out};
    json_t *reply = NULL;
    /* a first byte with bit 0 set is a prefix: bit 1 set, stateless; else initialize first */
    bool prefixed = size && (data[0] & 1), stateless = prefixed && (data[0] & 2);
    if (prefixed && !stateless) {
        static const char init[] = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
                                   "\"protocolVersion\":\"2025-03-26\",\"capabilities\":{\"roots\":{}}}}";
        json_t *m = mg_rpc_parse(init, sizeof(init) - 1, &reply);
        mg_rpc_handle(&x, m, &reply);
        json_decref(m);
        json_decref(reply);
    }
    if (prefixed) data++, size--;
    json_t *msg = mg_rpc_parse((const char *)data, size, &reply);
    if (msg) {
        struct mg_rpc_kind k;
        mg_rpc_classify(msg, &k);
        if (stateless) {
            x.session = NULL;
            x.stateless = true;
            x.header = header;
            x.header_ctx = json_object_get(msg, "fuzzHeaders");
        }
        mg_rpc_handle(&x, msg, &reply);
        if (reply && stateless) (void)mg_rpc_http_status(reply);
        check_reply(reply);
        json_decref(msg);
    } else if (!reply) {
        abort(); /* a parse failure always comes with its error */
    }
    json_decref(reply);
    mg_sessions_remove(srv.sessions, mg_session_id(s));
    mg_session_unref(&s);
    return 0;
}
