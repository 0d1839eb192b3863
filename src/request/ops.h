/* ops.h — the operations the gate runs on providers: for each, the access
 * level it needs, which repos it works on, whether it writes, and the
 * provider call (request/gate.h runs them). A tool names an operation and
 * its arguments; it never reaches a provider otherwise.
 *
 *   operation            level  repos    arguments
 *   code.search          read   scope    struct mg_code_query
 *   code.symbols         read   scope    struct mg_code_query
 *   code.read            read   one      struct mg_read_query
 *   code.outline         read   one      struct mg_outline_query
 *   code.nav             read   one      struct mg_nav_query
 *   code.repomap         read   one      struct mg_repomap_query
 *   code.list            read   scope    struct mg_list_query
 *   code.repos           read   visible  (none)
 *   code.status          read   scope    (none); also over every visible repo (status_all)
 *   code.settings        read   one      (none)
 *   code.configure       admin  one      struct mg_settings_query (a repo's settings)
 *   code.index           write  none     struct mg_index_query (path set; a new directory needs admin)
 *   code.reindex         write  one      struct mg_index_query (path NULL)
 *   code.remove          admin  one      (none)
 *   notes.*, sessions.*, entities.*      struct mg_mem_args (the fields each uses below)
 *   profiles.save, profiles.get          struct mg_mem_args; no repo (profiles are the tenant's)
 *
 * The operations that read a repo's index (search, symbols, read, outline,
 * nav, repomap, list) are marked reads_index: with a shared catalog they need
 * this daemon's index of the repo, and say stale when it is behind
 * (request/gate.h).
 *
 * The memory operations declare the strings of struct mg_mem_args to the
 * gate (request/gate.h, step 3): identifiers (session, key, project name,
 * agent id, a note's key and session) and content (value, summary, tags,
 * each entity's name, type and notes).
 */
#ifndef MG_OPS_H
#define MG_OPS_H

#include "request/gate.h"

extern const struct mg_op mg_op_code_nav, mg_op_code_repomap;
extern const struct mg_op mg_op_code_search, mg_op_code_symbols, mg_op_code_read, mg_op_code_outline, mg_op_code_list,
    mg_op_code_repos, mg_op_code_status, mg_op_code_status_all, mg_op_code_index, mg_op_code_reindex, mg_op_code_remove,
    mg_op_code_settings, mg_op_code_configure;

/* External code providers (code/mcpcode.h; issue 21, part mcpclient):
 * the search of srv's external provider i, an operation of its own (level
 * read, repos scope, unpaged) named "mcp.<name>" in the audit record. */
struct mg_server;
struct mg_ext_search_args {
    int provider;
    const struct mg_code_query *q;
};
int mg_ext_providers(const struct mg_server *srv);
void mg_op_ext_search(const struct mg_server *srv, int i, struct mg_op *op);
/* op never takes the request's page window (x->page): an external search */
bool mg_op_unpaged(const struct mg_op *op);

/* Arguments of the memory operations; each uses the fields named. */
struct mg_mem_args {
    const char *session;                /* the conversation's durable id: sessions.*, entities.add/search */
    const char *key;                    /* notes.get/remove, profiles.save */
    const char *query;                  /* notes.search, sessions.recall, entities.search (NULL: the newest) */
    const char *prefix;                 /* notes.list */
    const char *name;                   /* a project: sessions.project_*, entities.retag (NULL: none) */
    const char *agent;                  /* profiles.* */
    const char *value;                  /* profiles.save */
    const char *summary;                /* sessions.remember */
    const char **tags;                  /* sessions.remember */
    size_t ntags;
    struct mg_note_in *note;            /* notes.set */
    struct mg_entity_in *entities;      /* entities.add */
    size_t nentities;
    const int64_t *ids;                 /* entities.retag */
    size_t nids;
    int limit;
};

extern const struct mg_op mg_op_notes_set, mg_op_notes_get, mg_op_notes_list, mg_op_notes_search, mg_op_notes_remove,
    mg_op_notes_forget;
extern const struct mg_op mg_op_sessions_remember, mg_op_sessions_recall, mg_op_sessions_project_create,
    mg_op_sessions_project_list, mg_op_sessions_project_join, mg_op_sessions_project_delete, mg_op_sessions_forget;
extern const struct mg_op mg_op_entities_add, mg_op_entities_search, mg_op_entities_retag, mg_op_entities_forget;
extern const struct mg_op mg_op_profiles_save, mg_op_profiles_get;

#endif
