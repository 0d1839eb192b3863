/* registry.c — the tools in one list, the dispatcher transports call, and
 * tool errors as JSON (tools.h). */
#include "tools/tools.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "request/gate.h"
#include "request/resolve.h"
#include "tools/args.h"
#include "tools/family.h"
#include "util/clock.h"
#include "util/history.h"
#include "util/json.h"
#include "util/metrics.h"

static struct mg_tool *all;
static unsigned *group_of; /* all[i]'s group */
static size_t nall;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void add_family(const struct mg_tool *v, size_t n)
{
    memcpy(all + nall, v, n * sizeof(*v));
    nall += n;
}

/* The tools outside the core set, by group (tools.h): tools/list shows
 * them to an MCP client that enables their group. */
static const struct {
    const char *name;
    unsigned group;
} grouped[] = {
    {"index_repo", MG_TOOL_GROUP_REPOS},         {"index_status", MG_TOOL_GROUP_REPOS},
    {"get_repo_settings", MG_TOOL_GROUP_REPOS},  {"set_repo_settings", MG_TOOL_GROUP_REPOS},
    {"set_scope", MG_TOOL_GROUP_SESSION},        {"get_scope", MG_TOOL_GROUP_SESSION},
    {"clear_scope", MG_TOOL_GROUP_SESSION},      {"open_handle", MG_TOOL_GROUP_SESSION},
    {"set_note", MG_TOOL_GROUP_MEMORY},          {"get_note", MG_TOOL_GROUP_MEMORY},
    {"list_notes", MG_TOOL_GROUP_MEMORY},        {"search_notes", MG_TOOL_GROUP_MEMORY},
    {"delete_note", MG_TOOL_GROUP_MEMORY},       {"remember", MG_TOOL_GROUP_MEMORY},
    {"recall", MG_TOOL_GROUP_MEMORY},            {"add_entities", MG_TOOL_GROUP_MEMORY},
    {"search_entities", MG_TOOL_GROUP_MEMORY},   {"retag_entities", MG_TOOL_GROUP_MEMORY},
    {"save_preference", MG_TOOL_GROUP_MEMORY},   {"get_profile", MG_TOOL_GROUP_MEMORY},
    {"extract_knowledge", MG_TOOL_GROUP_MEMORY}, {"create_project", MG_TOOL_GROUP_PROJECTS},
    {"list_projects", MG_TOOL_GROUP_PROJECTS},   {"join_project", MG_TOOL_GROUP_PROJECTS},
    {"leave_project", MG_TOOL_GROUP_PROJECTS},   {"delete_project", MG_TOOL_GROUP_PROJECTS},
};

static void build(void)
{
    size_t n = mg_tools_code_n + mg_tools_nav_n + mg_tools_repomap_n + mg_tools_repos_n + mg_tools_scope_n + mg_tools_handle_n + mg_tools_memory_n + mg_tools_context_n +
               mg_tools_extract_n + mg_tools_groups_n;
    /* at start-up: nothing to serve without them */
    if (!(all = malloc(n * sizeof(*all))) || !(group_of = calloc(n, sizeof(*group_of)))) abort();
    add_family(mg_tools_code, mg_tools_code_n);
    add_family(mg_tools_nav, mg_tools_nav_n);
    add_family(mg_tools_repomap, mg_tools_repomap_n);
    add_family(mg_tools_repos, mg_tools_repos_n);
    add_family(mg_tools_scope, mg_tools_scope_n);
    add_family(mg_tools_handle, mg_tools_handle_n);
    add_family(mg_tools_memory, mg_tools_memory_n);
    add_family(mg_tools_context, mg_tools_context_n);
    add_family(mg_tools_extract, mg_tools_extract_n); /* knowledge extraction (issue 21 part 5) */
    add_family(mg_tools_groups, mg_tools_groups_n);
    for (size_t i = 0; i < nall; i++)
        for (size_t g = 0; g < sizeof(grouped) / sizeof(grouped[0]); g++)
            if (strcmp(all[i].name, grouped[g].name) == 0) group_of[i] = grouped[g].group;
}

const struct mg_tool *mg_tools(size_t *n)
{
    pthread_once(&once, build);
    *n = nall;
    return all;
}

unsigned mg_tool_group(const struct mg_tool *t)
{
    size_t n;
    const struct mg_tool *v = mg_tools(&n);
    return t >= v && t < v + n ? group_of[t - v] : 0;
}

const struct mg_tool *mg_tool_find(const char *name)
{
    size_t n;
    const struct mg_tool *t = mg_tools(&n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(t[i].name, name) == 0) return &t[i];
    return NULL;
}

#define CAP_SLACK 160 /* room kept under the cap for "truncated", "omitted" and next_cursor */

/* The response's cap (max_response_bytes): a result whose JSON would pass it
 * loses the trailing items of its longest top-level list, whole, until it
 * fits (but for its first item, however large: every page goes on), and
 * says so: "truncated": true, "omitted": how many. next_cursor
 * then starts at the first item left out: a paged tool's (args.h), outline's
 * (the definitions served) and find_references' (its last reference). */
static void cap_result(struct mg_ctx *x, const struct mg_tool *t, json_t *result)
{
    size_t cap = x->srv->cfg.max_response_bytes, size = mg_json_size(result, MG_JSON_DUMP);
    if (!cap || size <= cap || !json_is_object(result)) return;
    const char *k;
    json_t *v, *list = NULL;
    size_t best = 0;
    json_object_foreach(result, k, v)
    {
        if (!json_is_array(v) || json_array_size(v) == 0) continue;
        size_t n = mg_json_size(v, MG_JSON_DUMP);
        if (n > best) best = n, list = v;
    }
    if (!list) return;
    size_t n = json_array_size(list), drop = 0;
    while (n > 1 && size + CAP_SLACK > cap) { /* (one item stays, however large: a page always goes on) */
        size -= mg_json_size(json_array_get(list, n - 1), MG_JSON_DUMP) + 1;
        json_array_remove(list, --n);
        drop++;
    }
    if (!drop) return;
    json_object_set_new(result, "truncated", json_true());
    json_object_set_new(result, "omitted",
                        json_integer(json_integer_value(json_object_get(result, "omitted")) + (json_int_t)drop));
    /* where the next page starts: the first item left out */
    char next[64];
    if (x->page.fp) {
        mg_page_cursor(x, x->page.offset + (long long)n, next, sizeof(next));
        json_object_set_new(result, "next_cursor", json_string(next));
    } else if (strcmp(t->name, "outline") == 0) { /* the definitions served so far, in decimal */
        const char *c = json_string_value(json_object_get(result, "next_cursor"));
        long long at = c ? strtoll(c, NULL, 10) : json_integer_value(json_object_get(result, "total"));
        snprintf(next, sizeof(next), "%lld", at - (long long)drop);
        json_object_set_new(result, "next_cursor", json_string(next));
    } else if (strcmp(t->name, "find_references") == 0) { /* "path:line" of the last reference served */
        json_t *f = json_array_get(list, n - 1), *refs = json_object_get(f, "references");
        json_t *last = json_array_get(refs, json_array_size(refs) - 1);
        const char *path = json_string_value(json_object_get(f, "path"));
        if (path && last) {
            char *c = NULL;
            if (asprintf(&c, "%s:%lld", path, (long long)json_integer_value(json_object_get(last, "line"))) > 0)
                json_object_set_new(result, "next_cursor", json_string(c));
            free(c);
        }
    }
}

/* The shared catalog (store/catalog.h): a result read from a local index
 * behind the catalog's generation says so at its top level,
 * "index_stale": true, with "index_stale_repos" [{repo, generation,
 * catalog_generation}] (docs/mcp.md "Tool results"). Not "stale": a hit's
 * `stale` says its file changed on disk, repo_map's that its graph is older
 * than the index. */
static void mark_stale(struct mg_ctx *x, json_t *result)
{
    pthread_mutex_lock(&x->mu);
    if (x->nstale && json_is_object(result)) {
        json_t *a = json_array();
        for (size_t i = 0; i < x->nstale; i++)
            json_array_append_new(a, json_pack("{s:s, s:I, s:I}", "repo", x->stale[i].id, "generation",
                                               (json_int_t)x->stale[i].generation, "catalog_generation",
                                               (json_int_t)x->stale[i].catalog_generation));
        json_object_set_new(result, "index_stale", json_true());
        json_object_set_new(result, "index_stale_repos", a);
    }
    pthread_mutex_unlock(&x->mu);
}

int mg_tools_call(struct mg_ctx *x, const struct mg_tool *t, json_t *args, json_t **result, struct mg_err *err)
{
    *result = NULL;
    if (!x->audit.op[0]) snprintf(x->audit.op, sizeof(x->audit.op), "%s", t->name);
    json_t *own = args && json_is_object(args) ? json_incref(args) : json_object(), *opened = NULL;
    json_t *asked = json_deep_copy(own); /* the arguments as the client gave them, for the next cursor's MAC */
    double t0 = mg_clock_s();
    int rc = asked ? mg_cursor_open(x, t->name, asked, &opened, err) /* checked before any tool reads it */
                   : mg_err_oom(err);
    if (rc == 0) rc = t->call(x, opened ? opened : own, result, err);
    json_decref(opened);
    json_decref(own);
    if (rc != 0) {
        json_decref(*result);
        *result = NULL;
    } else if (!*result) {
        rc = mg_err_set(err, MG_E_NO_MEMORY, "out of memory building the result of %s", t->name);
    } else {
        cap_result(x, t, *result);
        mark_stale(x, *result);
        rc = mg_cursor_seal(x, t->name, asked, *result, err);
        if (rc != 0) json_decref(*result), *result = NULL;
    }
    json_decref(asked);
    x->page.fp = 0;
    x->page.skip = x->page.keep = 0; /* (a tool that failed between setting its page and running it) */
    mg_gate_finish(x, rc, err);
    if (rc == 0 && mg_gate_audited(x, err) != 0) { /* not answered as if audited */
        json_decref(*result);
        *result = NULL;
        rc = -1;
    }
    double took = mg_clock_s() - t0;
    mg_metrics_tool(t->name, rc == 0);
    mg_metrics_tool_time(t->name, took);
    /* (the dashboard's charts: asking the client first is a step, not an error) */
    mg_history_count(x->who.tenant, t->name, rc == 0 || (err->code && !strcmp(err->code, MG_E_INPUT_REQUIRED)), took);
    return rc;
}

json_t *mg_tools_error_json(struct mg_ctx *x, const struct mg_err *err)
{
    json_t *e = json_pack("{s:s, s:o}", "code", err->code ? err->code : MG_E_INTERNAL, "message",
                          mg_json_text(err->msg));
    if (err->code && (!strcmp(err->code, MG_E_REPO_REQUIRED) || !strcmp(err->code, MG_E_REPO_NOT_FOUND))) {
        struct mg_repo *v;
        size_t n;
        struct mg_err e2 = {0};
        if (mg_resolve_visible(x, &v, &n, &e2) == 0) {
            json_t *a = json_array();
            for (size_t i = 0; i < n; i++) json_array_append_new(a, json_string(v[i].id));
            json_object_set_new(e, "repos", a);
            free(v);
        }
    }
    return e;
}
