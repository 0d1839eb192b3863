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
 *     Methods: server/discover, tools/list, tools/call, subscriptions/listen,
 *     and the tasks extension's tasks/get, tasks/update, tasks/cancel (tasks.h).
 *     A request is modern when its _meta names a protocol version or client
 *     capabilities, when its method exists only in that era, or when it came
 *     on a connection without a session (HTTP without Mcp-Session-Id).
 * With an extension (ext.h: the conformance test program's fixtures), both
 * eras also get its tools and methods;
 * anything else is -32601.
 *
 * tools/call builds the request context (request/ctx.h) from the
 * connection, with a channel for progress, log lines, roots/list and
 * sampling/createMessage (on 2026-07-28: input requests, with the answers of
 * earlier rounds carried in requestState), and
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


/* The _meta key of a 2026-07-28 request naming the client's workspace root
 * (an absolute path or a file:// URI), docs/binding.md. */
#define MG_MCP_ROOT_META "memgate/root"

/* One MCP connection as its transport hands it over, for one message. */
struct mg_rpc_conn {
    struct mg_server *srv;
    struct mg_session *session;      /* the transport holds a reference for the call */
    const struct mg_principal *who;  /* the caller */
    const char *repo_header;         /* X-Memgate-Repo, or NULL */
    const char *cwd;                 /* stdio: the directory `memgate mcp` runs in; NULL otherwise */
    struct mg_out *out;              /* may be NULL */
    /* what an error answer's refusal event names, when nothing else audited
     * it (request/gate.h, mg_gate_answered): HTTP "/mcp from ADDRESS";
     * NULL: "stdio" */
    const char *from;
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

/* Is msg (one message) a 2026-07-28 request by itself: its _meta names a
 * protocol version or client capabilities, or its method exists only in
 * that version? (A connection without a session makes every request one.) */
bool mg_rpc_modern(json_t *msg);

/* The HTTP status of a reply to a stateless (2026-07-28) request: 404 for
 * -32601, 400 for malformed requests and the -320xx errors, else 200. */
int mg_rpc_http_status(json_t *reply);

/* A root URI as a path: file:///a%20b -> "/a b" (malloc'd); a plain absolute
 * path is accepted as is. NULL for another scheme or a bad escape. */
char *mg_uri_to_path(const char *uri);

#endif
