/* fixtures.h — the conformance suite's fixtures: the test tools, resources,
 * prompts and completions that @modelcontextprotocol/conformance's server
 * scenarios call, as an MCP extension (src/mcp/ext.h). Built into the test
 * program memgate-conformance (main.c here) and the C tests, never into the
 * shipped binary. They read no repo and no memory: MCP-level only.
 */
#ifndef MG_CONFORMANCE_FIXTURES_H
#define MG_CONFORMANCE_FIXTURES_H

#include <stddef.h>

#include <jansson.h>

#include "mcp/ext.h"

/* The extension: mg_mcp_extend(&mg_conformance_fixtures). */
extern const struct mg_mcp_ext mg_conformance_fixtures;

/* Its tools, its methods and its capabilities, as the extension calls them
 * (mg_mcp_ext's members; the C tests call them directly). */
const struct mg_mcp_ext_tool *mg_fixture_tools(size_t *n);
int mg_fixtures_handle(const char *method, json_t *params, json_t **result, struct mg_mcp_ext_error *error);
void mg_fixtures_capabilities(json_t *caps);

#endif
