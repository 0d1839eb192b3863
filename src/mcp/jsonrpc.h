/* jsonrpc.h — JSON-RPC 2.0 messages: parsing with a depth cap, classifying,
 * error responses. Nothing MCP-specific (rpc.h is the MCP lifecycle).
 */
#ifndef MG_JSONRPC_H
#define MG_JSONRPC_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#define MG_RPC_PARSE_ERROR -32700
#define MG_RPC_INVALID_REQUEST -32600
#define MG_RPC_METHOD_NOT_FOUND -32601
#define MG_RPC_INVALID_PARAMS -32602
#define MG_RPC_INTERNAL_ERROR -32603
/* MCP 2026-07-28's (-32020..-32099 is the specification's range) */
#define MG_RPC_HEADER_MISMATCH -32020
#define MG_RPC_MISSING_CAPABILITY -32021
#define MG_RPC_UNSUPPORTED_VERSION -32022

#define MG_RPC_MAX_DEPTH 64  /* deeper JSON is refused as a parse error */

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

/* Where the messages produced while serving one request go (besides its
 * response): notifications and server-to-client requests. */
struct mg_out {
    /* Send one message (borrowed). 0 sent; -1 this channel cannot carry it
     * (an HTTP request answered with plain JSON). */
    int (*send)(struct mg_out *o, json_t *msg);
    /* Block until the channel closes (the client went away, or the server
     * ends it); NULL for a channel that outlives the request (stdio). */
    void (*wait)(struct mg_out *o);
};

/* A JSON-RPC error response (new reference); id may be NULL for null. */
json_t *mg_rpc_error(json_t *id, int code, const char *message, json_t *data);

#endif
