/* conn.h — the state of one MCP connection (a stdio process, or one HTTP
 * Mcp-Session-Id) on the 2025 protocol versions: the negotiated version, the
 * lifecycle (initialize, notifications/initialized), the client's sampling
 * capability, the log level it asked for, and the server-to-client requests
 * waiting for the client's answer (roots/list, sampling/createMessage).
 *
 * It is attached to the connection's session (request/session.h,
 * mg_session_attach) when the transport makes the session, and freed with
 * it; the session's binding and scope are the session's, not this. A
 * 2026-07-28 request has no connection state: what it would keep travels in
 * its _meta.
 *
 * Thread-safety: every function may be called from any thread (one lock per
 * connection, never held while a message is sent).
 */
#ifndef MG_MCP_CONN_H
#define MG_MCP_CONN_H

#include <stdbool.h>

#include <jansson.h>

#include "mcp/jsonrpc.h"
#include "request/session.h"
#include "util/err.h"

/* Log levels: syslog severities as MCP names them, 0 "emergency" .. 7 "debug". */
#define MG_MCP_LOG_DEFAULT 6 /* "info" */
int mg_mcp_log_level_index(const char *name);  /* -1 for a name that is none of them (or NULL) */
const char *mg_mcp_log_level_name(int level);   /* level in 0..7 */

struct mg_mcp_conn;

/* A new connection state attached to s (the transport has just made s and
 * not shared it yet). NULL with err out of memory. */
struct mg_mcp_conn *mg_mcp_conn_attach(struct mg_session *s, struct mg_err *err);
/* The state attached to s, or NULL (s is not an MCP connection's session). */
struct mg_mcp_conn *mg_mcp_conn_of(const struct mg_session *s);

/* initialize: the version negotiated and whether the client can sample. 0,
 * or -1 when the connection was initialized already. */
int mg_mcp_conn_initialize(struct mg_mcp_conn *k, const char *version, bool sampling);
bool mg_mcp_conn_initialized(struct mg_mcp_conn *k);
/* notifications/initialized: the client is ready */
void mg_mcp_conn_set_ready(struct mg_mcp_conn *k);
bool mg_mcp_conn_ready(struct mg_mcp_conn *k);
/* The negotiated version into out ("" before initialize). */
void mg_mcp_conn_version(struct mg_mcp_conn *k, char out[16]);
bool mg_mcp_conn_sampling(struct mg_mcp_conn *k);
int mg_mcp_conn_log_level(struct mg_mcp_conn *k);
void mg_mcp_conn_set_log_level(struct mg_mcp_conn *k, int level);

/* The tool groups (tools/tools.h MG_TOOL_GROUP_*) tools/list shows this
 * client: enable, then disable, applied (0, 0 reads them); returns the
 * groups now, *before (may be NULL) those before. */
unsigned mg_mcp_conn_tool_groups(struct mg_mcp_conn *k, unsigned enable, unsigned disable, unsigned *before);

/* Send a request to the client on out and wait up to timeout_ms for its
 * result (a new reference), or NULL with err: unsupported (out could not
 * send it), timeout, client_error (the client's error), or the session
 * ended (mg_mcp_conn_cancel). params is borrowed. */
json_t *mg_mcp_conn_request(struct mg_mcp_conn *k, struct mg_out *out, const char *method, json_t *params,
                            int timeout_ms, struct mg_err *err);
/* A response (msg has "result" or "error") to the request waiting for it. */
void mg_mcp_conn_deliver(struct mg_mcp_conn *k, json_t *msg);
/* Wake every request waiting for the client with an error (the session is ending). */
void mg_mcp_conn_cancel(struct mg_mcp_conn *k);

#endif
