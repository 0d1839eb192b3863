/* ext.h — extra MCP tools and methods a program adds to memgate's own.
 *
 * The shipped binary adds none. The conformance test program
 * (tests/conformance/, built as memgate-conformance) adds the test tools,
 * resources, prompts and completions the MCP conformance suite's server
 * scenarios call. An extension is MCP-level only: it reads no repo and no
 * memory, so rpc.c runs its tools itself with the I/O below, never through
 * the gate.
 */
#ifndef MG_MCP_EXT_H
#define MG_MCP_EXT_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "util/err.h"

/* A tool's call() return for "answer with the JSON-RPC error in *result". */
#define MG_MCP_EXT_RPC_ERROR (-2)
/* A tool's call() return, when io->tasks allowed it, for "run me as a task":
 * rpc.c answers with a CreateTaskResult and calls the tool again on the
 * task's thread (io->in_task) with the same arguments (tasks.c). */
#define MG_MCP_EXT_TASK (-3)

/* A tool's execution.taskSupport (the tasks extension, rpc_int.h). */
enum mg_mcp_task_support { MG_MCP_TASK_FORBIDDEN, MG_MCP_TASK_OPTIONAL, MG_MCP_TASK_REQUIRED };

/* What an extension's tool may send while it runs (rpc.c provides it). */
struct mg_mcp_io {
    void (*log)(struct mg_mcp_io *io, const char *level, const char *message);
    void (*progress)(struct mg_mcp_io *io, double done, double total, const char *message);
    /* a server-to-client request: its result (new reference), or NULL with err */
    json_t *(*request)(struct mg_mcp_io *io, const char *method, json_t *params, int timeout_ms, struct mg_err *err);
    /* A 2026-07-28 (stateless) request: no server-to-client requests
     * (request() fails); a tool that needs input from the client returns an
     * InputRequiredResult ({"resultType":"input_required", "inputRequests"?,
     * "requestState"?}), which rpc.c passes through unchanged, and reads the
     * retry's answers below. */
    bool modern;
    json_t *input_responses;   /* params.inputResponses (borrowed), or NULL */
    const char *request_state; /* params.requestState, or NULL */
    json_t *client_caps;       /* _meta io.modelcontextprotocol/clientCapabilities (borrowed), or NULL */
    /* The tasks extension: the tool may return MG_MCP_EXT_TASK (the client
     * declared the extension, the call is not a task yet); the call runs as
     * a task (its InputRequiredResult parks the task for tasks/update);
     * set when the task's work should end (tasks/cancel), or NULL. */
    bool tasks;
    bool in_task;
    const volatile int *stop;
};

struct mg_mcp_ext_tool {
    const char *name;
    const char *title;
    const char *description;
    const char *input_schema;  /* JSON Schema text */
    const char *output_schema; /* NULL: none */
    /* 0 and *result: a CallToolResult ({"content":[...]}, "isError" for a
     * tool error) or an InputRequiredResult; -1 with err: a tool error;
     * MG_MCP_EXT_RPC_ERROR and *result = {"code","message","data"?}: the
     * JSON-RPC error to answer with (e.g. -32021,
     * MissingRequiredClientCapability). A tool may notify
     * subscriptions/listen streams with mg_listen_broadcast (listen.h). */
    int (*call)(struct mg_mcp_io *io, json_t *args, json_t **result, struct mg_err *err);
    /* REQUIRED: a client that did not declare the tasks extension gets
     * -32021 before call() runs; tools/list shows it as execution.taskSupport */
    enum mg_mcp_task_support task_support;
};

/* A JSON-RPC error an extension's method answers with (data: a new reference or NULL). */
struct mg_mcp_ext_error {
    int code;
    char message[256];
    json_t *data;
};

struct mg_mcp_ext {
    const struct mg_mcp_ext_tool *tools;
    size_t ntools;
    /* Handle a method memgate does not have (resources/..., prompts/...,
     * completion/...). params is the whole params object, _meta,
     * inputResponses and requestState included (a 2026-07-28 request may be
     * answered with an InputRequiredResult, as for tools; rpc.c adds
     * "resultType":"complete" to any result without one and the caching
     * fields where the method needs them). 1 when handled: *result (new
     * reference) or, on failure, *error; 0 for a method it does not know. */
    int (*handle)(const char *method, json_t *params, json_t **result, struct mg_mcp_ext_error *error);
    /* Capabilities it adds to initialize's and server/discover's result. */
    void (*capabilities)(json_t *caps);
    /* The subscriptions/listen kinds it may notify beyond memgate's (MG_LISTEN_*, listen.h). */
    unsigned listen;
};

/* Add ext (static; NULL removes it) to every MCP server of the process.
 * Once, at start-up, before any server runs. */
void mg_mcp_extend(const struct mg_mcp_ext *ext);

/* For the dispatcher (rpc.c, call.c, headers.c): the extension, or NULL;
 * its tool of that name, or NULL. */
const struct mg_mcp_ext *mg__mcp_ext(void);
const struct mg_mcp_ext_tool *mg__mcp_ext_tool(const char *name);

#endif
