/* mcpc.h — an MCP client for one external server (docs/providers.md,
 * "External MCP servers as code providers").
 *
 * Two transports:
 *   stdio            the configured command is started in a process group of
 *                    its own with the configured args; messages are lines of
 *                    JSON on its stdin and stdout; its stderr goes to a log
 *                    file capped at MG_MCPC_LOG_MAX (<home>/logs/mcp-NAME.log);
 *                    when it dies, or a call times out or floods, the group
 *                    is killed and the next call starts it again, after a
 *                    backoff (1 s, doubling to 60 s; a good call resets it)
 *   Streamable HTTP  POST to the url with Accept: application/json,
 *                    text/event-stream; a JSON or SSE answer; the
 *                    Mcp-Session-Id it gives is sent back; the bearer token
 *                    is read from token_file at each initialize and never
 *                    appears in a message or a log.
 * Each connection starts with initialize (offering protocol 2025-11-25; the
 * server's answer must be 2025-11-25 or 2025-06-18) and
 * notifications/initialized. Requests the server sends are answered with
 * "method not found"; notifications are read and ignored.
 *
 * Every call is bounded: by its deadline, and by max_bytes read (over it:
 * provider_too_large). Failures are provider_timeout, provider_unavailable,
 * provider_bad_response or provider_too_large, with a sentence that never
 * holds the token. Calls of one client are serialised (one at a time);
 * several clients run in parallel.
 */
#ifndef MG_MCPC_H
#define MG_MCPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "util/config.h"
#include "util/err.h"

#define MG_MCPC_LOG_MAX (1 << 20)
#define MG_MCPC_LINE_MAX (64u << 20) /* one message, whatever max_bytes says */

struct mg_mcpc;

/* A client for p (copied); log_dir: where its stderr log goes (NULL: discarded).
 * NULL when memory runs out. Nothing starts until the first call. */
struct mg_mcpc *mg_mcpc_new(const struct mg_mcp_provider_cfg *p, const char *log_dir);
/* tools/call tool with arguments (borrowed) before deadline_ms (monotonic
 * ms; the provider's timeout_ms from now when earlier): *result the
 * JSON-RPC result object (new reference). 0, or -1 with err. */
int mg_mcpc_call(struct mg_mcpc *c, const char *tool, json_t *arguments, int64_t deadline_ms, json_t **result,
                 struct mg_err *err);
/* Kill a running server (its process group) and free c. */
void mg_mcpc_free(struct mg_mcpc *c);
/* How deep this process is in a chain of stdio providers: every server
 * memgate starts gets MEMGATE_PROVIDER_DEPTH one higher than its own (0
 * when unset). A memgate whose depth is 1 or more opens no providers of its
 * own, so a config that names memgate as its own provider cannot loop. */
int mg_mcpc_depth(void);
/* The pid of the running stdio server, 0 when none (for tests). */
int mg_mcpc_pid(struct mg_mcpc *c);

/* The parsers of what a server sends (capped; fuzzed). */
enum mg_mcpc_msg { MG_MCPC_OTHER, MG_MCPC_REPLY, MG_MCPC_REQUEST };
/* One JSON-RPC message of len bytes: MG_MCPC_REPLY when it answers id
 * (*result: its result, new reference; or -1 with provider_bad_response
 * when it is an error), MG_MCPC_REQUEST when it is a request of the server
 * (*result: its id, new reference), MG_MCPC_OTHER for a notification or
 * another id's answer; -1 with provider_bad_response when it is not
 * JSON-RPC. */
int mg_mcpc_parse_message(const char *msg, size_t len, json_int_t id, json_t **result, struct mg_err *err);
/* An SSE body: the answer to id among its events' data (as above), or -1
 * with provider_bad_response when none is there. */
int mg_mcpc_parse_sse(const char *body, size_t len, json_int_t id, json_t **result, struct mg_err *err);

#endif
