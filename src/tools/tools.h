/* tools.h — memgate's tools: what MCP's tools/list shows, what /v1 routes
 * and command line commands run.
 *
 * A tool turns JSON arguments into typed requests, runs them through the
 * gate (request/gate.h, operations in request/ops.h), and turns the gated
 * items into its JSON result (render.h). A tool never calls another tool
 * or a provider, and never writes to a transport; transports run tools
 * only through mg_tools_call, which writes the request's one audit event.
 *
 * Files: registry.c (the table, the dispatcher), args.c (arguments),
 * render.c (items and errors as JSON), text.c (results as text), groups.c (tool groups), code.c, repos.c, scope.c, memory.c,
 * context.c (get_context, the composition root).
 */
#ifndef MG_TOOLS_H
#define MG_TOOLS_H

#include <stddef.h>

#include <jansson.h>

#include "request/ctx.h"

struct mg_tool {
    const char *name;
    const char *title;
    const char *description;
    const char *input_schema;   /* JSON Schema text */
    const char *output_schema;  /* JSON Schema text */
    /* 0 and *result (a new reference), or -1 with err set */
    int (*call)(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err);
    unsigned hints; /* MG_TOOL_*: MCP's tool annotations */
};

/* What a tool does to the state it works on (MCP annotations readOnlyHint,
 * destructiveHint, idempotentHint; every tool works on memgate's own
 * indexes and memory only: openWorldHint false). A read-only tool is
 * idempotent and destroys nothing. DESTRUCTIVE: it deletes or replaces
 * stored data (delete_note, set_note over an existing key); IDEMPOTENT:
 * calling it again with the same arguments changes nothing more. */
#define MG_TOOL_READ_ONLY   1u
#define MG_TOOL_DESTRUCTIVE 2u
#define MG_TOOL_IDEMPOTENT  4u
/* Not an annotation: the result's long text (repo_map's map, get_context's
 * block) is its whole rendering, so its text content (mg_tools_text) shows
 * that text once and, of its lists, only the items the gate marked; the
 * lists stay whole in structuredContent. */
#define MG_TOOL_TEXT_BLOCK  8u
/* Not an annotation either: long work that runs as a task (MCP's tasks
 * extension, execution.taskSupport "optional") when the client declared
 * it; otherwise at once, as any tool. */
#define MG_TOOL_TASK        16u

/* Tool groups. MCP's tools/list shows the core tools (group 0) and the
 * groups a client enabled (the `tools` tool, or tools/list's
 * _meta["memgate/tools"]); every tool is callable by name whatever the list
 * shows. Bits of a mask; MG_TOOL_GROUPS_ALL is every group. */
#define MG_TOOL_GROUP_MEMORY   1u /* notes, episodes, entities, preferences, extract_knowledge */
#define MG_TOOL_GROUP_PROJECTS 2u /* projects: sessions sharing episodes and entities */
#define MG_TOOL_GROUP_REPOS    4u /* indexing and repo settings */
#define MG_TOOL_GROUP_SESSION  8u /* the session scope and open_handle */
#define MG_TOOL_GROUPS_ALL     15u

/* The group of a tool of mg_tools(): MG_TOOL_GROUP_*, 0 for a core tool. */
unsigned mg_tool_group(const struct mg_tool *t);
/* The mask named by v: a string ("all" or a group's name) or an array of
 * them; 0 and *mask, or -1 with err invalid_argument naming the bad name
 * (what: the argument's name, for the sentence). */
int mg_tool_groups_parse(json_t *v, const char *what, unsigned *mask, struct mg_err *err);

/* Every tool, in a stable order. */
const struct mg_tool *mg_tools(size_t *n);
/* By name; NULL when there is none. */
const struct mg_tool *mg_tool_find(const char *name);

/* Run tool t for request x: the one way transports run a tool. args is
 * borrowed (NULL: no arguments). On success *result is the tool's result (a
 * new reference); on failure err is set and its sentence cleaned. Writes
 * the audit event and counts the call in the metrics. */
int mg_tools_call(struct mg_ctx *x, const struct mg_tool *t, json_t *args, json_t **result, struct mg_err *err);

/* The result of tool t as compact text for an agent (MCP's content[0].text):
 * code hits as `path:line  symbol` with the snippet indented below, other
 * list items one line each, scalars as `key: value`, reals rounded; every
 * flag, redaction, truncation and omission the gate reported stays
 * visible. Generic over the result's shape (text.c). malloc'd; NULL when
 * memory runs out. */
char *mg_tools_text(const struct mg_tool *t, json_t *result);

/* The tokens of that text (util/tokens.h: counted from above), what a
 * budgeted tool holds to its budget_tokens; (size_t)-1 out of memory. */
size_t mg_tools_text_tokens(const struct mg_tool *t, json_t *result);

/* {"code","message"} for an error, plus "repos" (the ids the caller can
 * see) for repo_required and repo_not_found, so the client can choose. */
json_t *mg_tools_error_json(struct mg_ctx *x, const struct mg_err *err);

#endif
