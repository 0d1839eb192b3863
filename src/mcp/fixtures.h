/* fixtures.h — the conformance suite's fixtures (`memgate serve
 * --conformance-fixtures`): the test tools, resources, prompts and
 * completions that @modelcontextprotocol/conformance's server scenarios call.
 * Off by default; never part of a normal server.
 */
#ifndef MG_FIXTURES_H
#define MG_FIXTURES_H

#include <jansson.h>

#include "server/server.h"

/* Handle a fixture-only method (resources/..., prompts/..., completion/...).
 * Returns 1 when handled: *result (new reference) or, on failure, *code and
 * *message (static) for a JSON-RPC error. Returns 0 for a method it does not
 * know. */
int mg_fixtures_handle(struct mg_ctx *x, const char *method, json_t *params, json_t **result, int *code,
                       const char **message);
/* Capabilities the fixtures add to initialize's result (resources, prompts,
 * completions), merged into caps. */
void mg_fixtures_capabilities(json_t *caps);

#endif
