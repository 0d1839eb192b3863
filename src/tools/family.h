/* family.h — what the tool files share (tools/ only): each family's table,
 * and JSON Schema pieces used by several. registry.c assembles the tables
 * into the one list (tools.h). */
#ifndef MG_TOOLS_FAMILY_H
#define MG_TOOLS_FAMILY_H

#include <stddef.h>

#include "tools/tools.h"

/* JSON Schema pieces. tools/list goes into every agent's context, so the
 * schemas stay small: input schemas give types, bounds, enums and defaults,
 * with a description only where the name does not say enough; output
 * schemas are shallow: the top-level properties every result has, with
 * their types (a result may carry more). Every real result must still
 * validate against them: clients check structuredContent with them. */
#define MG_S_STR  "{\"type\":\"string\"}"
#define MG_S_INT  "{\"type\":\"integer\"}"
#define MG_S_NUM  "{\"type\":\"number\"}"
#define MG_S_BOOL "{\"type\":\"boolean\"}"
#define MG_S_ARR  "{\"type\":\"array\"}"
#define MG_S_OBJ  "{\"type\":\"object\"}"
#define MG_S_NSTR "{\"type\":[\"string\",\"null\"]}"
#define MG_S_NINT "{\"type\":[\"integer\",\"null\"]}"
#define MG_SCHEMA_STRS "{\"type\":\"array\",\"items\":{\"type\":\"string\"}}"
/* the repo argument: an id from list_repos, default the session's repo (the
 * server's instructions say so once) */
#define MG_S_REPO "\"repo\":" MG_S_STR
/* memory's session: the conversation's durable id */
#define MG_S_SESSION                                                                                                \
    "\"session_id\":{\"type\":\"string\",\"description\":\"durable conversation id (default: this session)\"}"
/* the path filters: they override the session scope field by field */
#define MG_S_FILTERS                                                                                                \
    "\"globs\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"description\":\"path globs (src/**/*.c); " \
    "override the session scope\"},\"exclude_globs\":" MG_SCHEMA_STRS ",\"languages\":" MG_SCHEMA_STRS
/* an input schema: its properties, then MG_S_REQ(...) or "" */
#define MG_S_IN(props, req) "{\"type\":\"object\",\"properties\":{" props "}" req "}"
#define MG_S_REQ(list) ",\"required\":[" list "]"
/* a shallow output schema: top-level properties, then MG_S_REQ(...) or "" */
#define MG_S_OUT(props, req) "{\"type\":\"object\",\"properties\":{" props "}" req "}"
#define MG_S_NOARGS "{\"type\":\"object\",\"properties\":{}}"
#define MG_SCHEMA_SCOPE_OUT "\"scope\":" MG_S_OBJ

extern const struct mg_tool mg_tools_code[];    /* code.c: search_code, search_symbols, read_file, outline,
                                                 * list_files */
extern const size_t mg_tools_code_n;
extern const struct mg_tool mg_tools_nav[];     /* nav.c: find_references, callers, callees, trace_path, impact */
extern const size_t mg_tools_nav_n;
extern const struct mg_tool mg_tools_repomap[]; /* repomap.c: repo_map */
extern const size_t mg_tools_repomap_n;
extern const struct mg_tool mg_tools_repos[];   /* repos.c: list_repos, index_repo, index_status, {get,set}_repo_settings */
extern const size_t mg_tools_repos_n;
extern const struct mg_tool mg_tools_scope[];   /* scope.c: set_scope, get_scope, clear_scope */
extern const size_t mg_tools_scope_n;
extern const struct mg_tool mg_tools_memory[];  /* memory.c: notes, projects, episodes, entities, profiles */
extern const size_t mg_tools_memory_n;
extern const struct mg_tool mg_tools_handle[];  /* handle.c: open_handle */
extern const size_t mg_tools_handle_n;
extern const struct mg_tool mg_tools_context[]; /* context.c: get_context */
extern const size_t mg_tools_context_n;
extern const struct mg_tool mg_tools_extract[]; /* extract.c: extract_knowledge */
extern const size_t mg_tools_extract_n;
extern const struct mg_tool mg_tools_groups[];  /* groups.c: tools (the tool groups) */
extern const size_t mg_tools_groups_n;

/* 0 when x's session keeps what a tool sets for later calls; else -1 with
 * session_required and how to keep it: the implicit /v1 session (send
 * X-Session-Id), a one-request session of a 2026-07-28 request without a
 * handle (call open_handle). what: "a scope", ... (scope.c) */
int mg__tools_keeps_state(const struct mg_ctx *x, const char *what, struct mg_err *err);

#endif
