/* fixtures.h — the conformance suite's fixtures (`memgate serve
 * --conformance-fixtures`): the test tools, resources, prompts and
 * completions that @modelcontextprotocol/conformance's server scenarios call.
 * Off by default; never part of a normal server. They read no repo and no
 * memory, so they are MCP-level only: rpc.c runs them itself, with the I/O
 * below, not through the gate.
 */
#ifndef MG_FIXTURES_H
#define MG_FIXTURES_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "util/err.h"

/* call()'s return for "answer with the JSON-RPC error in *result" (below). */
#define MG_FIXTURE_RPC_ERROR (-2)

/* What a fixture tool may send while it runs (rpc.c provides it). */
struct mg_fixture_io {
    void (*log)(struct mg_fixture_io *io, const char *level, const char *message);
    void (*progress)(struct mg_fixture_io *io, double done, double total, const char *message);
    /* a server-to-client request: its result (new reference), or NULL with err */
    json_t *(*request)(struct mg_fixture_io *io, const char *method, json_t *params, int timeout_ms,
                       struct mg_err *err);
    /* A 2026-07-28 (stateless) request: no server-to-client requests
     * (request() fails); a fixture that needs input from the client returns
     * an InputRequiredResult ({"resultType":"input_required",
     * "inputRequests"?, "requestState"?}), which rpc.c passes through
     * unchanged, and reads the retry's answers below. */
    bool modern;
    json_t *input_responses;   /* params.inputResponses (borrowed), or NULL */
    const char *request_state; /* params.requestState, or NULL */
    json_t *client_caps;       /* _meta io.modelcontextprotocol/clientCapabilities (borrowed), or NULL */
};

struct mg_fixture_tool {
    const char *name;
    const char *title;
    const char *description;
    const char *input_schema;  /* JSON Schema text */
    const char *output_schema; /* NULL: none */
    /* 0 and *result: a CallToolResult ({"content":[...]}, "isError" for a
     * tool error) or an InputRequiredResult; -1 with err: a tool error;
     * -2 and *result = {"code","message","data"?}: the JSON-RPC error to
     * answer with (e.g. -32021, MissingRequiredClientCapability). A fixture
     * may notify subscriptions/listen streams with mg_listen_broadcast (listen.h). */
    int (*call)(struct mg_fixture_io *io, json_t *args, json_t **result, struct mg_err *err);
};

const struct mg_fixture_tool *mg_fixture_tools(size_t *n);

/* Handle a fixture-only method (resources/..., prompts/..., completion/...).
 * params is the whole params object, _meta, inputResponses and requestState
 * included (a 2026-07-28 request may be answered with an InputRequiredResult,
 * as for tools above; rpc.c adds "resultType":"complete" to any result
 * without one and the caching fields where the method needs them).
 * Returns 1 when handled: *result (new reference) or, on failure, *error
 * for a JSON-RPC error (with data, a new reference or NULL: 2026-07-28
 * errors carry it, e.g. SEP-2164's resources/read of an unknown URI is
 * -32602 with data.uri). Returns 0 for a method it does not know. */
struct mg_fixture_error {
    int code;
    char message[256];
    json_t *data;
};
int mg_fixtures_handle(const char *method, json_t *params, json_t **result, struct mg_fixture_error *error);
/* Capabilities the fixtures add to initialize's result (resources, prompts,
 * completions), merged into caps. */
void mg_fixtures_capabilities(json_t *caps);

#endif
