/* listen.h — subscriptions/listen (MCP 2026-07-28): the open notification
 * streams of the process, what each asked for, and sending to them.
 *
 * A stream is an mg_out (jsonrpc.h) and the JSON-RPC id of its listen
 * request, which is its subscription id: every notification on it carries
 * _meta[MG_LISTEN_SUB_META] = that id. Streams are process-wide (a daemon's
 * HTTP clients and a stdio client alike) and keep their caller's principal,
 * so a tenant hears only of its own repos, and a token limited to some repos
 * only of those (issue 38 V10).
 */
#ifndef MG_LISTEN_H
#define MG_LISTEN_H

#include <jansson.h>

#include "mcp/jsonrpc.h"

struct mg_principal;

#define MG_LISTEN_SUB_META "io.modelcontextprotocol/subscriptionId"

/* What a listener asked for. */
#define MG_LISTEN_TOOLS     1u  /* notifications/tools/list_changed */
#define MG_LISTEN_PROMPTS   2u  /* notifications/prompts/list_changed */
#define MG_LISTEN_RESOURCES 4u  /* notifications/resources/list_changed */
#define MG_LISTEN_INDEX     8u  /* notifications/memgate/index_changed ("memgate/indexChanged": true) */

/* Send ack (the acknowledgement, borrowed) on out and register the stream
 * of who (copied), both under the registry's lock, so no notification of the
 * subscription goes out before it. 0, or -1 when out cannot carry it or out
 * of memory (nothing kept). */
int mg_listen_open(struct mg_out *out, json_t *id, unsigned kinds, const struct mg_principal *who, json_t *ack);
/* Drop out's stream of subscription id (NULL: all of out's streams, its
 * transport is ending). */
void mg_listen_close(struct mg_out *out, json_t *id);
/* Send a notification to every stream that asked for kind and, when tenant
 * is given, belongs to that tenant and, when repo is given too, may see that
 * repo (its token's allowlist). params is stolen (NULL: {}). */
void mg_listen_broadcast(unsigned kind, const char *tenant, const char *repo, const char *method, json_t *params);
/* mg_server.on_indexed for MCP servers: notifications/memgate/index_changed
 * {"repo","files","changed"} to the streams that asked for it and may see
 * the repo. */
void mg_listen_index_changed(const char *tenant, const char *repo, long long files, long long changed);

#endif
