/* ops.c — the operations of ops.h: thin calls into the providers' vtables,
 * and the one access rule that depends on an argument (indexing a new
 * directory needs admin). */
#include "request/ops.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "request/resolve.h"
#include "request/server.h"

#define P_CODE(op) (p->code.ops->op)
#define SELF(which) (p->which.self)

/* ---- code ---- */

static int r_search(const struct mg_providers *p, const struct mg_pcall *pc, const void *a, struct mg_items *out,
                    struct mg_err *err)
{
    return P_CODE(search)(SELF(code), pc, a, out, err);
}
static int r_symbols(const struct mg_providers *p, const struct mg_pcall *pc, const void *a, struct mg_items *out,
                     struct mg_err *err)
{
    return P_CODE(symbols)(SELF(code), pc, a, out, err);
}
static int r_read(const struct mg_providers *p, const struct mg_pcall *pc, const void *a, struct mg_items *out,
                  struct mg_err *err)
{
    return P_CODE(read)(SELF(code), pc, a, out, err);
}
static int r_outline(const struct mg_providers *p, const struct mg_pcall *pc, const void *a, struct mg_items *out,
                     struct mg_err *err)
{
    return P_CODE(outline)(SELF(code), pc, a, out, err);
}
static int r_nav(const struct mg_providers *p, const struct mg_pcall *pc, const void *a, struct mg_items *out,
                 struct mg_err *err)
{
    return P_CODE(nav)(SELF(code), pc, a, out, err);
}
static int r_repomap(const struct mg_providers *p, const struct mg_pcall *pc, const void *a, struct mg_items *out,
                     struct mg_err *err)
{
    return P_CODE(repomap)(SELF(code), pc, a, out, err);
}
static int r_list(const struct mg_providers *p, const struct mg_pcall *pc, const void *a, struct mg_items *out,
                  struct mg_err *err)
{
    return P_CODE(list)(SELF(code), pc, a, out, err);
}
static int r_repos(const struct mg_providers *p, const struct mg_pcall *pc, const void *a, struct mg_items *out,
                   struct mg_err *err)
{
    return P_CODE(repos)(SELF(code), pc, out, err);
}
static int r_index(const struct mg_providers *p, const struct mg_pcall *pc, const void *a, struct mg_items *out,
                   struct mg_err *err)
{
    return P_CODE(index)(SELF(code), pc, a, out, err);
}
static int r_remove(const struct mg_providers *p, const struct mg_pcall *pc, const void *a, struct mg_items *out,
                    struct mg_err *err)
{
    return P_CODE(remove)(SELF(code), pc, out, err);
}

static int r_stats(const struct mg_providers *p, const struct mg_pcall *pc, const void *a, struct mg_items *out,
                   struct mg_err *err)
{
    return P_CODE(stats)(SELF(code), pc, out, err);
}
static int r_settings(const struct mg_providers *p, const struct mg_pcall *pc, const void *a, struct mg_items *out,
                      struct mg_err *err)
{
    return P_CODE(settings)(SELF(code), pc, NULL, out, err);
}
static int r_configure(const struct mg_providers *p, const struct mg_pcall *pc, const void *a, struct mg_items *out,
                       struct mg_err *err)
{
    return P_CODE(settings)(SELF(code), pc, a, out, err);
}

/* Below admin, `index` may only re-index a repo the caller already has. */
static int allow_index(struct mg_ctx *x, const void *args, struct mg_err *err)
{
    const struct mg_index_query *q = args;
    if (x->who.level >= MG_LEVEL_ADMIN) return 0;
    char canon[PATH_MAX];
    struct mg_repo r;
    int in = realpath(q->path, canon) ? mg_resolve_containing(x, canon, &r, err) : 0;
    if (in < 0) return -1;
    if (!in || strcmp(r.root, canon) != 0)
        return mg_err_set(err, MG_E_SCOPE_FORBIDDEN, "'%s' is not one of your indexed repos; indexing a new "
                          "directory needs an admin token", q->path);
    return 0;
}

static int r_ext_search(const struct mg_providers *p, const struct mg_pcall *pc, const void *a, struct mg_items *out,
                        struct mg_err *err)
{
    const struct mg_ext_search_args *e = a;
    const struct mg_code_provider *cp = &p->ext_code[e->provider];
    return cp->ops->search(cp->self, pc, e->q, out, err);
}

int mg_ext_providers(const struct mg_server *srv)
{
    return srv->providers.next_code;
}

void mg_op_ext_search(const struct mg_server *srv, int i, struct mg_op *op)
{
    *op = (struct mg_op){srv->ext_op_names[i], MG_LEVEL_READ, MG_REPOS_SCOPE, false, NULL, r_ext_search, NULL,
                         false};
}

bool mg_op_unpaged(const struct mg_op *op)
{
    return op->run == r_ext_search;
}

/* (the last member: reads_index, gate.h) */
const struct mg_op mg_op_code_search = {"code.search", MG_LEVEL_READ, MG_REPOS_SCOPE, false, NULL, r_search, NULL,
                                        true};
const struct mg_op mg_op_code_symbols = {"code.symbols", MG_LEVEL_READ, MG_REPOS_SCOPE, false, NULL, r_symbols, NULL,
                                         true};
const struct mg_op mg_op_code_read = {"code.read", MG_LEVEL_READ, MG_REPOS_ONE, false, NULL, r_read, NULL, true};
const struct mg_op mg_op_code_outline = {"code.outline", MG_LEVEL_READ, MG_REPOS_ONE, false, NULL, r_outline,
                                         NULL, true};
const struct mg_op mg_op_code_repomap = {"code.repomap", MG_LEVEL_READ, MG_REPOS_ONE, false, NULL, r_repomap,
                                         NULL, true};
const struct mg_op mg_op_code_nav = {"code.nav", MG_LEVEL_READ, MG_REPOS_ONE, false, NULL, r_nav, NULL, true};
const struct mg_op mg_op_code_list = {"code.list", MG_LEVEL_READ, MG_REPOS_SCOPE, false, NULL, r_list, NULL, true};
const struct mg_op mg_op_code_repos = {"code.repos", MG_LEVEL_READ, MG_REPOS_VISIBLE, false, NULL, r_repos, NULL,
                                       false};
const struct mg_op mg_op_code_status = {"code.status", MG_LEVEL_READ, MG_REPOS_SCOPE, false, NULL, r_stats, NULL,
                                        false};
const struct mg_op mg_op_code_status_all = {"code.status", MG_LEVEL_READ, MG_REPOS_VISIBLE, false, NULL, r_stats,
                                            NULL, false};
const struct mg_op mg_op_code_settings = {"code.settings", MG_LEVEL_READ, MG_REPOS_ONE, false, NULL, r_settings,
                                          NULL, false};
const struct mg_op mg_op_code_configure = {"code.configure", MG_LEVEL_ADMIN, MG_REPOS_ONE, true, NULL, r_configure,
                                           NULL, false};
const struct mg_op mg_op_code_index = {"code.index", MG_LEVEL_WRITE, MG_REPOS_NONE, true, allow_index, r_index, NULL,
                                       false};
const struct mg_op mg_op_code_reindex = {"code.index", MG_LEVEL_WRITE, MG_REPOS_ONE, true, NULL, r_index, NULL, false};
const struct mg_op mg_op_code_remove = {"code.remove", MG_LEVEL_ADMIN, MG_REPOS_ONE, true, NULL, r_remove, NULL,
                                        false};

/* ---- memory ---- */

#define A ((const struct mg_mem_args *)a)
#define RUN(fn, which, call)                                                                                         \
    static int fn(const struct mg_providers *p, const struct mg_pcall *pc, const void *a, struct mg_items *out,    \
                  struct mg_err *err)                                                                              \
    {                                                                                                              \
        return p->which.ops->call;                                                                                 \
    }

RUN(r_note_set, notes, set(SELF(notes), pc, A->note, out, err))
RUN(r_note_get, notes, get(SELF(notes), pc, A->key, out, err))
RUN(r_note_list, notes, list(SELF(notes), pc, A->prefix, A->limit, out, err))
RUN(r_note_search, notes, search(SELF(notes), pc, A->query, A->limit, out, err))
RUN(r_note_remove, notes, remove(SELF(notes), pc, A->key, out, err))
RUN(r_note_forget, notes, forget(SELF(notes), pc, out, err))
RUN(r_remember, sessions, remember(SELF(sessions), pc, A->session, A->summary, A->tags, A->ntags, out, err))
RUN(r_recall, sessions, recall(SELF(sessions), pc, A->session, A->query, A->limit, out, err))
RUN(r_project_create, sessions, project_create(SELF(sessions), pc, A->name, out, err))
RUN(r_project_list, sessions, project_list(SELF(sessions), pc, out, err))
RUN(r_project_join, sessions, project_join(SELF(sessions), pc, A->session, A->name, out, err))
RUN(r_project_delete, sessions, project_delete(SELF(sessions), pc, A->name, out, err))
RUN(r_sessions_forget, sessions, forget(SELF(sessions), pc, out, err))
RUN(r_entities_add, entities, add(SELF(entities), pc, A->session, A->entities, A->nentities, out, err))
RUN(r_entities_search, entities, search(SELF(entities), pc, A->session, A->query, A->limit, out, err))
RUN(r_entities_retag, entities, retag(SELF(entities), pc, A->ids, A->nids, A->name, out, err))
RUN(r_entities_forget, entities, forget(SELF(entities), pc, out, err))
RUN(r_profile_save, profiles, save(SELF(profiles), pc, A->agent, A->key, A->value, out, err))
RUN(r_profile_get, profiles, get(SELF(profiles), pc, A->agent, out, err))

static void mem_inputs(void *args, mg_input_fn visit, void *ud)
{
    struct mg_mem_args *m = args;
    visit(ud, &m->session, MG_IN_ID, "session_id", 0);
    visit(ud, &m->key, MG_IN_ID, "key", 0);
    visit(ud, &m->name, MG_IN_ID, "project", 0);
    visit(ud, &m->agent, MG_IN_ID, "agent_id", 0);
    visit(ud, &m->value, MG_IN_TEXT, "value", 0);
    visit(ud, &m->summary, MG_IN_TEXT, "summary", 0);
    for (size_t i = 0; i < m->ntags; i++) visit(ud, &m->tags[i], MG_IN_ID, "tags", 0);
    if (m->note) {
        visit(ud, &m->note->key, MG_IN_ID, "key", 0);
        visit(ud, &m->note->session, MG_IN_ID, "session_id", 0);
        visit(ud, &m->note->value, MG_IN_TEXT, "value", 0);
    }
    for (size_t i = 0; i < m->nentities; i++) {
        visit(ud, &m->entities[i].name, MG_IN_ID, "entities[].name", i);
        visit(ud, &m->entities[i].type, MG_IN_ID, "entities[].type", i);
        visit(ud, &m->entities[i].notes, MG_IN_TEXT, "entities[].notes", i);
    }
}

#define OP(var, name, level, repos, write, fn) \
    const struct mg_op var = {name, level, repos, write, NULL, fn, mem_inputs, false};
OP(mg_op_notes_set, "notes.set", MG_LEVEL_WRITE, MG_REPOS_ONE, true, r_note_set)
OP(mg_op_notes_get, "notes.get", MG_LEVEL_READ, MG_REPOS_ONE, false, r_note_get)
OP(mg_op_notes_list, "notes.list", MG_LEVEL_READ, MG_REPOS_ONE, false, r_note_list)
OP(mg_op_notes_search, "notes.search", MG_LEVEL_READ, MG_REPOS_ONE, false, r_note_search)
OP(mg_op_notes_remove, "notes.remove", MG_LEVEL_WRITE, MG_REPOS_ONE, true, r_note_remove)
OP(mg_op_notes_forget, "notes.forget", MG_LEVEL_ADMIN, MG_REPOS_ONE, true, r_note_forget)
OP(mg_op_sessions_remember, "sessions.remember", MG_LEVEL_WRITE, MG_REPOS_ONE, true, r_remember)
OP(mg_op_sessions_recall, "sessions.recall", MG_LEVEL_READ, MG_REPOS_ONE, false, r_recall)
OP(mg_op_sessions_project_create, "sessions.project_create", MG_LEVEL_WRITE, MG_REPOS_ONE, true, r_project_create)
OP(mg_op_sessions_project_list, "sessions.project_list", MG_LEVEL_READ, MG_REPOS_ONE, false, r_project_list)
OP(mg_op_sessions_project_join, "sessions.project_join", MG_LEVEL_WRITE, MG_REPOS_ONE, true, r_project_join)
OP(mg_op_sessions_project_delete, "sessions.project_delete", MG_LEVEL_WRITE, MG_REPOS_ONE, true, r_project_delete)
OP(mg_op_sessions_forget, "sessions.forget", MG_LEVEL_ADMIN, MG_REPOS_ONE, true, r_sessions_forget)
OP(mg_op_entities_add, "entities.add", MG_LEVEL_WRITE, MG_REPOS_ONE, true, r_entities_add)
OP(mg_op_entities_search, "entities.search", MG_LEVEL_READ, MG_REPOS_ONE, false, r_entities_search)
OP(mg_op_entities_retag, "entities.retag", MG_LEVEL_WRITE, MG_REPOS_ONE, true, r_entities_retag)
OP(mg_op_entities_forget, "entities.forget", MG_LEVEL_ADMIN, MG_REPOS_ONE, true, r_entities_forget)
OP(mg_op_profiles_save, "profiles.save", MG_LEVEL_WRITE, MG_REPOS_NONE, true, r_profile_save)
OP(mg_op_profiles_get, "profiles.get", MG_LEVEL_READ, MG_REPOS_NONE, false, r_profile_get)
