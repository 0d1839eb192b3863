/* family.h — what the tool files share (tools/ only): each family's table,
 * and JSON Schema pieces used by several. registry.c assembles the tables
 * into the one list (tools.h). */
#ifndef MG_TOOLS_FAMILY_H
#define MG_TOOLS_FAMILY_H

#include <stddef.h>

#include "tools/tools.h"

#define MG_SCHEMA_STRS "{\"type\":\"array\",\"items\":{\"type\":\"string\"}}"
#define MG_SCHEMA_SCOPE_OUT                                                                                         \
    "\"scope\":{\"type\":\"object\",\"properties\":{\"globs\":" MG_SCHEMA_STRS ",\"exclude_globs\":"              \
    MG_SCHEMA_STRS ",\"languages\":" MG_SCHEMA_STRS ",\"repos\":" MG_SCHEMA_STRS "}}"

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

#endif
