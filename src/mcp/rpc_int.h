/* rpc_int.h — what the files of the MCP dispatcher share: rpc.c (versions,
 * methods, dispatch), call.c (tools/call) and headers.c (the 2026-07-28
 * header checks). Not a contract for anyone else. */
#ifndef MG_RPC_INT_H
#define MG_RPC_INT_H

#include "mcp/rpc.h"

/* One request being answered. */
struct mg__call {
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

/* Fail the call with a JSON-RPC error (code and message); returns NULL. */
json_t *mg__rpc_fail(struct mg__call *c, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* tools/call: its result, or NULL after mg__rpc_fail (call.c). */
json_t *mg__rpc_tools_call(struct mg__call *c);

/* A 2026-07-28 request's HTTP headers against its body (c->c->header is
 * set): 0, or -1 after mg__rpc_fail (headers.c). */
int mg__rpc_check_headers(struct mg__call *c, const char *version);

#endif
