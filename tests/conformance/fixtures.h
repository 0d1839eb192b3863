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

/* The tasks extension's fixture tools (tasks.c), in mg_fixture_tools(). */
int mg_fixture_greet(struct mg_mcp_io *io, json_t *args, json_t **result, struct mg_err *err);
int mg_fixture_slow_compute(struct mg_mcp_io *io, json_t *args, json_t **result, struct mg_err *err);
int mg_fixture_failing_job(struct mg_mcp_io *io, json_t *args, json_t **result, struct mg_err *err);
int mg_fixture_protocol_error_job(struct mg_mcp_io *io, json_t *args, json_t **result, struct mg_err *err);
int mg_fixture_confirm_delete(struct mg_mcp_io *io, json_t *args, json_t **result, struct mg_err *err);
int mg_fixture_multi_input(struct mg_mcp_io *io, json_t *args, json_t **result, struct mg_err *err);
int mg_fixture_tool_with_task(struct mg_mcp_io *io, json_t *args, json_t **result, struct mg_err *err);

#endif
