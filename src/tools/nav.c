/* nav.c — the navigation tools: find_references, callers, callees,
 * trace_path (code.nav through the gate; search/nav.h says what they find). */
#include "tools/family.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "request/ops.h"
#include "tools/args.h"
#include "tools/render.h"

#define NAV_MAX_LIMIT 1000
#define NAV_DEPTH_MAX 8 /* search/nav.h's MG_NAV_DEPTH_MAX */

/* The arguments every navigation takes, the gate run, and the items split
 * into definitions, the rest, and the summary. */
struct nav_run {
    struct mg_items items;
    json_t *defs, *rest;
    const struct mg_nav_summary *sum;
};

static int nav_call(struct mg_ctx *x, json_t *args, const char *const *keys, struct mg_nav_query *q, long long dlimit,
                    struct nav_run *nr, struct mg_err *err)
{
    long long limit = 0, depth = 0;
    bool impact = strcmp(q->op, "impact") == 0; /* the change, not a symbol, is its subject */
    if (mg_known_keys(args, keys, err) != 0 || (!impact && mg_arg_str(args, "symbol", true, &q->symbol, err) != 0) ||
        mg_arg_int(args, "limit", 1, NAV_MAX_LIMIT, dlimit, &limit, err) != 0)
        return -1;
    if (json_object_get(args, "depth") && mg_arg_int(args, "depth", 1, NAV_DEPTH_MAX, 1, &depth, err) != 0)
        return -1;
    q->limit = (int)limit;
    if (depth) q->depth = (int)depth;
    struct mg_target_args ta;
    if (mg_arg_target(args, true, &ta, err) != 0) return -1;
    mg_gate_subject(x, impact ? (q->revisions ? q->revisions : q->npaths ? q->paths[0] : "diff") : q->symbol);
    int rc = mg_gate_run(x, &mg_op_code_nav, &ta.t, q, &nr->items, err);
    mg_target_release(&ta);
    if (rc != 0) return -1;
    nr->defs = json_array();
    nr->rest = json_array();
    nr->sum = NULL;
    for (size_t i = 0; i < nr->items.n; i++) {
        const struct mg_item *it = nr->items.v[i];
        if (it->type == &mg_item_nav_summary) {
            nr->sum = (const struct mg_nav_summary *)it;
            continue;
        }
        json_t *o = mg_render_item(it);
        json_object_del(o, "repo");
        json_array_append_new(it->type == &mg_item_nav_def ? nr->defs : nr->rest, o);
    }
    return 0;
}

/* {symbol, repo, ...fields, gate}, the summary's numbers added */
static json_t *nav_result(struct mg_ctx *x, struct nav_run *nr, const char *symbol, json_t *o)
{
    const struct mg_nav_summary *s = nr->sum;
    if (symbol) json_object_set_new(o, "symbol", json_string(symbol));
    json_object_set_new(o, "repo", s ? json_string(s->repo) : json_null());
    json_object_set_new(o, "total", json_integer(s ? (json_int_t)s->total : 0));
    json_object_set_new(o, "complete", json_boolean(s && s->complete && !nr->items.omitted));
    json_object_set_new(o, "truncated", json_boolean(s && s->truncated));
    (void)x;
    json_t *r = mg_render_gated(o, &nr->items);
    mg_items_release(&nr->items);
    return r;
}

/* references grouped by file: [{path, references: [...]}] in path order */
static json_t *by_file(json_t *refs)
{
    json_t *files = json_array(), *cur = NULL;
    const char *cur_path = NULL;
    size_t i;
    json_t *r;
    json_array_foreach(refs, i, r) {
        const char *p = json_string_value(json_object_get(r, "path"));
        if (!p) continue;
        if (!cur_path || strcmp(cur_path, p) != 0) {
            json_t *f = json_pack("{s:s, s:[]}", "path", p, "references");
            json_array_append_new(files, f);
            cur = json_object_get(f, "references");
            cur_path = json_string_value(json_object_get(f, "path"));
        }
        json_t *c = json_deep_copy(r);
        json_object_del(c, "path");
        json_array_append_new(cur, c);
    }
    return files;
}

static int t_find_references(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"symbol", "limit", "cursor", "repo", "repo_id", "globs", "exclude_globs",
                                       "languages", NULL};
    struct mg_nav_query q = {.op = "references"};
    if (mg_known_keys(args, keys, err) != 0 || mg_arg_str(args, "cursor", false, &q.cursor, err) != 0) return -1;
    struct nav_run nr;
    if (nav_call(x, args, keys, &q, 50, &nr, err) != 0) return -1;
    const struct mg_nav_summary *s = nr.sum;
    json_t *next = s && s->next_cursor ? json_string(s->next_cursor) : json_null();
    if (nr.items.omitted) { /* the response's cap left references out: the next page starts after the last served */
        const struct mg_nav_ref_item *last = NULL;
        for (size_t i = 0; i < nr.items.n; i++)
            if (nr.items.v[i]->type == &mg_item_nav_ref) last = (const struct mg_nav_ref_item *)nr.items.v[i];
        if (last) {
            json_decref(next);
            next = json_sprintf("%s:%lld", last->path, (long long)last->line);
        }
    }
    json_t *o = json_pack("{s:o, s:o, s:I, s:o}", "definitions", nr.defs, "files", by_file(nr.rest),
                          "candidate_files", (json_int_t)(s ? s->candidate_files : 0), "next_cursor", next);
    json_decref(nr.rest);
    *result = nav_result(x, &nr, q.symbol, o);
    return 0;
}

#define NAV_PAGE_MAX 100000 /* callers, callees: the deepest page start */

/* callers, callees: a page of calls; next_cursor continues after the last
 * call served (the response's cap may serve fewer than limit: registry.c). */
static int calls_tool(struct mg_ctx *x, json_t *args, const char *op, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"symbol", "depth", "limit", "cursor", "repo", "repo_id", "globs",
                                       "exclude_globs", "languages", NULL};
    struct mg_nav_query q = {.op = op, .depth = 1};
    long long offset;
    char at[24];
    if (mg_known_keys(args, keys, err) != 0 || mg_arg_page(args, op, &offset, err) != 0) return -1;
    if (offset > NAV_PAGE_MAX)
        return mg_err_set(err, MG_E_BAD_ARG, "%s pages through the first %d calls; this cursor is past them", op,
                          NAV_PAGE_MAX);
    snprintf(at, sizeof(at), "%lld", offset);
    q.cursor = at;
    struct nav_run nr;
    if (nav_call(x, args, keys, &q, 100, &nr, err) != 0) return -1;
    size_t served = json_array_size(nr.rest);
    /* more: calls found past the page, or a walk that stopped at the page's end (which may find no more) */
    bool more = nr.sum && ((long long)nr.sum->total > offset + (long long)served ||
                           (nr.sum->truncated && served == (size_t)q.limit));
    json_t *o = json_pack("{s:o, s:o, s:i}", "definitions", nr.defs, "calls", nr.rest, "depth", q.depth);
    if (mg_page_end(x, op, args, offset, served, more, o, err) != 0) {
        json_decref(o);
        mg_items_release(&nr.items);
        return -1;
    }
    *result = nav_result(x, &nr, q.symbol, o);
    if (more) json_object_set_new(*result, "complete", json_false());
    return 0;
}

static int t_callers(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    return calls_tool(x, args, "callers", result, err);
}

static int t_callees(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    return calls_tool(x, args, "callees", result, err);
}

static int t_trace_path(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"symbol", "to", "depth", "limit", "repo", "repo_id", "globs",
                                       "exclude_globs", "languages", NULL};
    struct mg_nav_query q = {.op = "trace", .depth = 8};
    if (mg_known_keys(args, keys, err) != 0 || mg_arg_str(args, "to", true, &q.to, err) != 0) return -1;
    struct nav_run nr;
    if (nav_call(x, args, keys, &q, 3, &nr, err) != 0) return -1;
    /* calls carry path_index (left out when 0) and depth: one array per path */
    json_t *paths = json_array();
    size_t i;
    json_t *c;
    json_array_foreach(nr.rest, i, c) {
        json_int_t k = json_integer_value(json_object_get(c, "path_index"));
        while ((json_int_t)json_array_size(paths) <= k) json_array_append_new(paths, json_array());
        json_t *cc = json_deep_copy(c);
        json_object_del(cc, "path_index");
        json_array_append_new(json_array_get(paths, (size_t)k), cc);
    }
    json_decref(nr.rest);
    json_t *o = json_pack("{s:o, s:s, s:o, s:I}", "definitions", nr.defs, "to", q.to, "paths", paths, "visited",
                          (json_int_t)(nr.sum ? nr.sum->visited : 0));
    *result = nav_result(x, &nr, q.symbol, o);
    return 0;
}

#define IMPACT_MAX_PATHS 1000

static int t_impact(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"paths", "diff", "revisions", "depth", "limit", "repo", "repo_id", "globs",
                                       "exclude_globs", "languages", NULL};
    struct mg_nav_query q = {.op = "impact", .depth = 2};
    if (mg_known_keys(args, keys, err) != 0 || mg_arg_str(args, "diff", false, &q.diff, err) != 0 ||
        mg_arg_str(args, "revisions", false, &q.revisions, err) != 0)
        return -1;
    json_t *pj = json_object_get(args, "paths");
    const char **paths = NULL;
    if (pj && !json_is_null(pj)) {
        if (!json_is_array(pj) || json_array_size(pj) == 0 || json_array_size(pj) > IMPACT_MAX_PATHS)
            return mg_err_set(err, MG_E_BAD_ARG, "paths must be a list of 1 to %d repo-relative paths",
                              IMPACT_MAX_PATHS);
        if (!(paths = calloc(json_array_size(pj), sizeof(*paths)))) return mg_err_oom(err);
        size_t i;
        json_t *v;
        json_array_foreach(pj, i, v) {
            if (!json_is_string(v) || json_string_length(v) == 0) {
                free(paths);
                return mg_err_set(err, MG_E_BAD_ARG, "paths[%zu] must be a non-empty string", i);
            }
            paths[i] = json_string_value(v);
        }
        q.paths = paths;
        q.npaths = json_array_size(pj);
    }
    struct nav_run nr;
    int rc = nav_call(x, args, keys, &q, 50, &nr, err);
    free(paths);
    if (rc != 0) return -1;
    json_t *impacted = json_array(), *skipped = json_array();
    size_t i;
    json_t *c;
    json_array_foreach(nr.rest, i, c) {
        json_array_append(json_object_get(c, "reason") ? skipped : impacted, c);
    }
    json_decref(nr.rest);
    json_t *o = json_pack("{s:o, s:o, s:o, s:i}", "changed", nr.defs, "impacted", impacted, "skipped", skipped,
                          "depth", q.depth);
    *result = nav_result(x, &nr, NULL, o);
    return 0;
}

#define S_SYMBOL "\"symbol\":{\"type\":\"string\",\"description\":\"a name; for A::b, a.b or a->b the last part\"}"
#define S_DEPTH(def) "\"depth\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":8,\"default\":" def "}"
#define S_LIMIT(max, def) "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":" max ",\"default\":" def "}"
#define S_TARGET MG_S_REPO "," MG_S_FILTERS
#define OUT_COMMON                                                                                                  \
    "\"symbol\":" MG_S_STR ",\"definitions\":" MG_S_ARR ",\"total\":" MG_S_INT

const struct mg_tool mg_tools_nav[] = {
    {"find_references", "Find references",
     "Every use of a name outside comments and strings (whole identifier, case-sensitive), by file: line, text, "
     "whether a call, the enclosing definition; plus its definitions. Use it before changing or removing "
     "something. Paged.",
     MG_S_IN(S_SYMBOL "," S_LIMIT("1000", "50") ",\"cursor\":" MG_S_STR "," S_TARGET, MG_S_REQ("\"symbol\"")),
     MG_S_OUT(OUT_COMMON ",\"complete\":" MG_S_BOOL ",\"files\":" MG_S_ARR ",\"next_cursor\":" MG_S_NSTR,
              MG_S_REQ("\"symbol\",\"definitions\",\"files\",\"total\",\"complete\",\"next_cursor\"")),
     t_find_references, MG_TOOL_READ_ONLY},
    {"callers", "Find callers",
     "Who calls a function: each call site, its caller and the definition called, with a confidence "
     "(exact, import, type, pointer, macro, value, dispatch, name). depth 2+ adds callers of callers. Paged.",
     MG_S_IN(S_SYMBOL "," S_DEPTH("1") "," S_LIMIT("1000", "100") ",\"cursor\":" MG_S_STR "," S_TARGET,
             MG_S_REQ("\"symbol\"")),
     MG_S_OUT(OUT_COMMON ",\"calls\":" MG_S_ARR, MG_S_REQ("\"symbol\",\"definitions\",\"calls\",\"total\"")),
     t_callers, MG_TOOL_READ_ONLY},
    {"callees", "Find callees",
     "What a function calls: each distinct call and where it is defined, with a confidence (exact, import, "
     "type, pointer, dispatch, name, external). depth 2+ follows their calls.",
     MG_S_IN(S_SYMBOL "," S_DEPTH("1") "," S_LIMIT("1000", "100") ",\"cursor\":" MG_S_STR "," S_TARGET,
             MG_S_REQ("\"symbol\"")),
     MG_S_OUT(OUT_COMMON ",\"calls\":" MG_S_ARR, MG_S_REQ("\"symbol\",\"definitions\",\"calls\",\"total\"")),
     t_callees, MG_TOOL_READ_ONLY},
    {"trace_path", "Trace call paths",
     "The shortest call paths from function symbol to function to, each a list of calls in order: how an entry "
     "point reaches a function.",
     MG_S_IN(S_SYMBOL ",\"to\":" MG_S_STR "," S_DEPTH("8") "," S_LIMIT("100", "3") "," S_TARGET,
             MG_S_REQ("\"symbol\",\"to\"")),
     MG_S_OUT("\"symbol\":" MG_S_STR ",\"total\":" MG_S_INT ",\"to\":" MG_S_STR ",\"paths\":" MG_S_ARR,
              MG_S_REQ("\"symbol\",\"to\",\"paths\",\"total\"")),
     t_trace_path, MG_TOOL_READ_ONLY},
    {"impact", "Change impact",
     "What a change touches: the definitions it modifies, adds or removes (changed) and their callers, ranked "
     "(impacted; a removed name's callers break). Give one of revisions (git A..B, A...B, or A to the work tree: "
     "HEAD for uncommitted changes), diff (unified) or paths (whole files). Run it before committing.",
     MG_S_IN("\"revisions\":" MG_S_STR ",\"diff\":" MG_S_STR ",\"paths\":" MG_SCHEMA_STRS "," S_DEPTH("2") ","
             S_LIMIT("1000", "50") "," S_TARGET, ""),
     MG_S_OUT("\"changed\":" MG_S_ARR ",\"impacted\":" MG_S_ARR ",\"skipped\":" MG_S_ARR ",\"total\":" MG_S_INT,
              MG_S_REQ("\"changed\",\"impacted\",\"skipped\",\"total\"")),
     t_impact, MG_TOOL_READ_ONLY | MG_TOOL_TASK},
};
const size_t mg_tools_nav_n = sizeof(mg_tools_nav) / sizeof(mg_tools_nav[0]);
