/* rpc.h — JSON-RPC 2.0 and the MCP lifecycle, independent of transport.
 *
 * Protocol versions 2025-03-26, 2025-06-18 and 2025-11-25. `initialize`
 * answers the client's version when supported, else the newest. Batches
 * (JSON arrays) are accepted only when the session negotiated 2025-03-26.
 * Methods: initialize, ping, logging/setLevel, tools/list, tools/call, and
 * (with fixtures) what the conformance suite's scenarios need; anything else
 * is -32601. Before initialize every request but ping is refused (-32600,
 * "not initialized").
 *
 * Transports (stdio.c, http.c) parse a message with mg_rpc_parse, look at it
 * with mg_rpc_classify, and hand it to mg_rpc_handle with a context; the
 * reply (if any) is theirs to write.
 */
#ifndef MG_RPC_H
#define MG_RPC_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "server/server.h"

#define MG_RPC_PARSE_ERROR -32700
#define MG_RPC_INVALID_REQUEST -32600
#define MG_RPC_METHOD_NOT_FOUND -32601
#define MG_RPC_INVALID_PARAMS -32602
#define MG_RPC_INTERNAL_ERROR -32603

#define MG_RPC_MAX_DEPTH 64

/* A failed tools/call is a result with isError: true, the text block
 * "error[CODE]: sentence", and _meta[MG_MCP_ERROR_META] = {"code",
 * "message", "repos"?} for programs; never structuredContent, which clients
 * check against the tool's outputSchema. */
#define MG_MCP_ERROR_META "memgate/error"  /* deeper JSON is refused as a parse error */

extern const char *const mg_mcp_versions[]; /* newest first, NULL-terminated */
#define MG_MCP_LATEST "2025-11-25"
bool mg_mcp_version_supported(const char *v);

/* Parse one message (object or batch array). On failure *reply gets the
 * JSON-RPC error to send (-32700, id null) and NULL is returned. Refuses
 * nesting deeper than MG_RPC_MAX_DEPTH. */
json_t *mg_rpc_parse(const char *text, size_t len, json_t **reply);

struct mg_rpc_kind {
    bool batch;
    size_t requests;       /* messages with a method and an id */
    size_t notifications;  /* a method, no id */
    size_t responses;      /* result or error, no method */
    bool initialize;       /* one of the requests is `initialize` */
};
void mg_rpc_classify(json_t *msg, struct mg_rpc_kind *k);

/* Handle a parsed message. Requests are answered in *reply (an object, or
 * an array for a batch; NULL when nothing is to be answered). Responses to
 * server-to-client requests are delivered to the waiting mg_ctx_request. */
void mg_rpc_handle(struct mg_ctx *x, json_t *msg, json_t **reply);

/* A JSON-RPC error response (new reference); id may be NULL for null. */
json_t *mg_rpc_error(json_t *id, int code, const char *message, json_t *data);

/* stdio transport (stdio.c): newline-delimited JSON-RPC on in_fd/out_fd for
 * one client and one session until end of input. tools/call runs on worker
 * threads so the reader stays free for the client's answers to roots/list;
 * everything else is answered in order. Lines over MG_STDIO_MAX_LINE are
 * refused (-32700) and skipped. Returns 0 at end of input. */
#define MG_STDIO_MAX_LINE (4 << 20)
int mg_mcp_stdio(struct mg_server *srv, struct mg_session *s, int in_fd, int out_fd);

/* Wake every mg_ctx_request of the session with an error (session ending). */
void mg_rpc_cancel_pending(struct mg_session *s);

#endif
