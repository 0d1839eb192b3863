/* rpc.h — the MCP lifecycle and methods, independent of transport.
 *
 * Protocol versions 2025-03-26, 2025-06-18 and 2025-11-25. `initialize`
 * answers the client's version when supported, else the newest. Batches
 * (JSON arrays) are accepted only when the session negotiated 2025-03-26.
 * Methods: initialize, ping, logging/setLevel, tools/list, tools/call, and
 * (with fixtures) what the conformance suite's scenarios need; anything else
 * is -32601. Before initialize every request but ping is refused (-32600,
 * "not initialized").
 *
 * tools/call builds the request context (request/ctx.h) from the
 * connection, with a channel for progress, log lines and roots/list, and
 * runs the tool through mg_tools_call (tools/tools.h): this file never
 * reaches the gate or a provider itself.
 *
 * Transports (stdio.c, http/mcp.c) parse a message with mg_rpc_parse,
 * look at it with mg_rpc_classify (jsonrpc.h), and hand it to mg_rpc_handle
 * with their connection; the reply (if any) is theirs to write.
 */
#ifndef MG_RPC_H
#define MG_RPC_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "mcp/jsonrpc.h"
#include "request/server.h"
#include "security/access.h"

/* A failed tools/call is a result with isError: true, the text block
 * "error[CODE]: sentence", and _meta[MG_MCP_ERROR_META] = {"code",
 * "message", "repos"?} for programs; never structuredContent, which clients
 * check against the tool's outputSchema. */
#define MG_MCP_ERROR_META "memgate/error"

extern const char *const mg_mcp_versions[]; /* newest first, NULL-terminated */
#define MG_MCP_LATEST "2025-11-25"
bool mg_mcp_version_supported(const char *v);

/* Where the messages produced while serving one request go (besides its
 * response): notifications and server-to-client requests. */
struct mg_out {
    /* Send one message (borrowed). 0 sent; -1 this channel cannot carry it
     * (an HTTP request answered with plain JSON). */
    int (*send)(struct mg_out *o, json_t *msg);
};

/* One MCP connection as its transport hands it over, for one message. */
struct mg_rpc_conn {
    struct mg_server *srv;
    struct mg_session *session;      /* the transport holds a reference for the call */
    const struct mg_principal *who;  /* the caller */
    const char *repo_header;         /* X-Memgate-Repo, or NULL */
    const char *cwd;                 /* stdio: the directory `memgate mcp` runs in; NULL otherwise */
    struct mg_out *out;              /* may be NULL */
};

/* Handle a parsed message. Requests are answered in *reply (an object, or
 * an array for a batch; NULL when nothing is to be answered). Responses to
 * server-to-client requests are delivered to the request waiting for them. */
void mg_rpc_handle(const struct mg_rpc_conn *c, json_t *msg, json_t **reply);

/* Wake every server-to-client request of the session with an error (the
 * session is ending). */
void mg_rpc_cancel_pending(struct mg_session *s);

/* A root URI as a path: file:///a%20b -> "/a b" (malloc'd); a plain absolute
 * path is accepted as is. NULL for another scheme or a bad escape. */
char *mg_uri_to_path(const char *uri);

#endif
