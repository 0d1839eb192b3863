/* rpc.h — the MCP lifecycle and methods, independent of transport.
 *
 * Two eras on one connection (docs/mcp.md):
 *   - legacy, 2025-03-26, 2025-06-18 and 2025-11-25: `initialize` answers
 *     the client's version when supported, else the newest. Batches (JSON
 *     arrays) are accepted only when the session negotiated 2025-03-26.
 *     Methods: initialize, ping, logging/setLevel, tools/list, tools/call.
 *     Before initialize every request but ping is refused (-32600).
 *   - modern, 2026-07-28: no handshake; every request carries its version
 *     and client capabilities in params._meta and is served on its own (a
 *     fresh session per request, or the one a `handle` argument names).
 *     Methods: server/discover, tools/list, tools/call, subscriptions/listen.
 *     A request is modern when its _meta names a protocol version or client
 *     capabilities, when its method exists only in that era, or when it came
 *     on a connection without a session (HTTP without Mcp-Session-Id).
 * With fixtures, both eras also get what the conformance scenarios need;
 * anything else is -32601.
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

extern const char *const mg_mcp_versions[]; /* the legacy ones, newest first, NULL-terminated */
#define MG_MCP_LATEST "2025-11-25"             /* the newest legacy version */
#define MG_MCP_MODERN "2026-07-28"
bool mg_mcp_version_supported(const char *v);  /* a legacy version initialize accepts */

/* Error codes of 2026-07-28 (-32020..-32099 is the specification's range). */
#define MG_RPC_HEADER_MISMATCH -32020
#define MG_RPC_MISSING_CAPABILITY -32021
#define MG_RPC_UNSUPPORTED_VERSION -32022

/* The _meta key of a 2026-07-28 request naming the client's workspace root
 * (an absolute path or a file:// URI), docs/binding.md. */
#define MG_MCP_ROOT_META "memgate/root"

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

/* One MCP connection as its transport hands it over, for one message. */
struct mg_rpc_conn {
    struct mg_server *srv;
    struct mg_session *session;      /* the transport holds a reference for the call */
    const struct mg_principal *who;  /* the caller */
    const char *repo_header;         /* X-Memgate-Repo, or NULL */
    const char *cwd;                 /* stdio: the directory `memgate mcp` runs in; NULL otherwise */
    struct mg_out *out;              /* may be NULL */
    /* HTTP without Mcp-Session-Id: session is NULL and only 2026-07-28
     * requests are served */
    bool stateless;
    /* HTTP: a request header's value (trimmed), or NULL; NULL on stdio. The
     * 2026-07-28 header checks (MCP-Protocol-Version, Mcp-Method, Mcp-Name,
     * Mcp-Param-*) run when it is set. */
    const char *(*header)(void *ctx, const char *name);
    void *header_ctx;
};

/* Handle a parsed message. Requests are answered in *reply (an object, or
 * an array for a batch; NULL when nothing is to be answered). Responses to
 * server-to-client requests are delivered to the request waiting for them. */
void mg_rpc_handle(const struct mg_rpc_conn *c, json_t *msg, json_t **reply);

/* The HTTP status of a reply to a stateless (2026-07-28) request: 404 for
 * -32601, 400 for malformed requests and the -320xx errors, else 200. */
int mg_rpc_http_status(json_t *reply);

/* subscriptions/listen: what a listener asked for. */
#define MG_LISTEN_TOOLS     1u  /* notifications/tools/list_changed */
#define MG_LISTEN_PROMPTS   2u  /* notifications/prompts/list_changed */
#define MG_LISTEN_RESOURCES 4u  /* notifications/resources/list_changed */
#define MG_LISTEN_INDEX     8u  /* notifications/memgate/index_changed ("memgate/indexChanged": true) */
/* Send a notification to every listener that asked for kind (and, when
 * tenant is given, belongs to that tenant). params is stolen. */
void mg_rpc_broadcast(unsigned kind, const char *tenant, const char *method, json_t *params);
/* mg_server.on_indexed for MCP servers: notifications/memgate/index_changed
 * {"repo","files","changed"} to the tenant's listeners that asked for it. */
void mg_rpc_index_changed(const char *tenant, const char *repo, long long files, long long changed);
/* Drop the listeners writing to o (its transport is ending). */
void mg_rpc_forget_out(struct mg_out *o);

/* Wake every server-to-client request of the session with an error (the
 * session is ending). */
void mg_rpc_cancel_pending(struct mg_session *s);

/* A root URI as a path: file:///a%20b -> "/a b" (malloc'd); a plain absolute
 * path is accepted as is. NULL for another scheme or a bad escape. */
char *mg_uri_to_path(const char *uri);

#endif
