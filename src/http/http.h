/* http.h — `memgate serve`: MCP Streamable HTTP at /mcp, the HTTP API under
 * /v1/, /healthz and /metrics, on GNU libmicrohttpd.
 *
 * /mcp      POST: one JSON-RPC message (or a 2025-03-26 batch); answered with
 *           application/json, or text/event-stream when the client accepts it
 *           and the request may send notifications or server requests before
 *           its response (tools/call). Notifications and responses alone: 202.
 *           GET: an SSE stream for server messages outside a request.
 *           DELETE: ends the session. `Mcp-Session-Id` is issued at initialize
 *           (libsodium random) and required after it: missing 400, unknown or
 *           expired 404. `MCP-Protocol-Version`: unsupported 400.
 * /v1/...   the tools as REST routes (api.c; docs/http.md).
 * Every route: Host and Origin are checked against DNS rebinding (403); bodies
 * over http_max_body get 413. Default bind 127.0.0.1 (config `listen`).
 */
#ifndef MG_HTTP_H
#define MG_HTTP_H

#include "request/server.h"
#include "util/err.h"

struct mg_http;

/* Start listening on addr ("HOST:PORT", "[::1]:PORT" or ":PORT"; port 0
 * picks a free one). Threads serve requests until mg_http_stop. */
struct mg_http *mg_http_start(struct mg_server *srv, const char *addr, struct mg_err *err);
/* The port actually bound. */
int mg_http_port(const struct mg_http *h);
/* SIGTERM's first step: /readyz answers 503 (stopping) and no new
 * connection is accepted (those open may still send requests). Returns how
 * many requests are under way (not counting GET /mcp and subscriptions/listen
 * streams, which only wait for the server's messages). */
int mg_http_quiesce(struct mg_http *h);
/* Then (quiescing first if not done yet) the requests under way get up to
 * grace_ms to finish; returns early when interrupted(ud) says so (a second
 * signal). *drained: how many of those under way at the start finished;
 * *left: how many are still running (mg_http_stop cuts them). */
void mg_http_drain(struct mg_http *h, int grace_ms, bool (*interrupted)(void *ud), void *ud, int *drained,
                   int *left);
void mg_http_stop(struct mg_http *h);

/* HTTP status for an error code (400, 404, 409, 413, 500, ...). */
int mg_err_http_status(const char *code);

#endif
