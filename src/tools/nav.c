/* nav.c — the navigation tools: find_references, callers, callees,
 * trace_path (code.nav through the gate; search/nav.h says what they find). */
#include "tools/family.h"

#include <stdlib.h>
#include <string.h>

#include "request/ops.h"
#include "tools/args.h"
#include "tools/render.h"

#define NAV_MAX_LIMIT 1000
#define NAV_DEPTH_MAX 8 /* search/nav.h's MG_NAV_DEPTH_MAX */

#define S_NSTR "{\"type\":[\"string\",\"null\"]}"
#define S_NINT "{\"type\":[\"integer\",\"null\"]}"
#define S_SYMBOL                                                                                                    \
    "\"symbol\":{\"type\":\"string\",\"description\":\"a function, method, macro, type or variable name; "         \
    "Class::method, obj.method and a->b look for the last part\"}"
#define S_TARGET                                                                                                    \
    "\"repo\":{\"type\":\"string\",\"description\":\"repo id (list_repos); default: the session's repo\"},"       \
    "\"globs\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"description\":\"only these paths; overrides " \
    "the session scope\"},\"exclude_globs\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},\"languages\":"   \
    "{\"type\":\"array\",\"items\":{\"type\":\"string\"}}"
#define S_DEF                                                                                                       \
    "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},\"line\":{\"type\":\"integer\"},"          \
    "\"end_line\":{\"type\":\"integer\"},\"name\":{\"type\":\"string\"},\"kind\":{\"type\":\"string\"},"            \
    "\"container\":" S_NSTR "},\"required\":[\"path\",\"line\",\"name\",\"kind\"]}"
#define S_CALL                                                                                                      \
    "{\"type\":\"object\",\"properties\":{\"depth\":{\"type\":\"integer\"},\"path\":{\"type\":\"string\"},"        \
    "\"line\":{\"type\":\"integer\"},\"from_name\":{\"type\":\"string\"},\"from_kind\":{\"type\":\"string\"},"      \
    "\"from_line\":{\"type\":\"integer\"},\"callee\":{\"type\":\"string\"},\"to_path\":" S_NSTR ",\"to_kind\":"     \
    S_NSTR ",\"to_line\":" S_NINT ",\"confidence\":{\"type\":\"string\",\"enum\":[\"file\",\"name\","              \
    "\"import\",\"ambiguous\",\"external\"]}},\"required\":[\"path\",\"line\",\"from_name\",\"callee\",\"confidence\"]}"

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

static int calls_tool(struct mg_ctx *x, json_t *args, const char *op, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"symbol", "depth", "limit", "repo", "repo_id", "globs", "exclude_globs",
                                       "languages", NULL};
    struct mg_nav_query q = {.op = op, .depth = 1};
    struct nav_run nr;
    if (nav_call(x, args, keys, &q, 100, &nr, err) != 0) return -1;
    json_t *o = json_pack("{s:o, s:o, s:i}", "definitions", nr.defs, "calls", nr.rest, "depth", q.depth);
    *result = nav_result(x, &nr, q.symbol, o);
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
    struct mg_nav_query q = {.op = "trace", .depth = 6};
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
        if (!(paths = calloc(json_array_size(pj), sizeof(*paths)))) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory");
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

#define OUT_COMMON                                                                                                  \
    "\"symbol\":{\"type\":\"string\"},\"repo\":" S_NSTR ",\"definitions\":{\"type\":\"array\",\"items\":" S_DEF  \
    "},\"total\":{\"type\":\"integer\"},\"complete\":{\"type\":\"boolean\"},\"truncated\":{\"type\":\"boolean\"}"

const struct mg_tool mg_tools_nav[] = {
    {"find_references", "Find references",
     "Every use of a name in the repo outside comments and strings, grouped by file, each with its line, the "
     "line's text, whether it is a call, and the definition it is in (`in`, `in_kind`, `in_line`); plus the "
     "name's definitions. Use it before changing or removing something, to see who depends on it. Matches the "
     "whole identifier, case-sensitively. Pages of `limit` (default 50): when next_cursor is not null, pass it as "
     "`cursor` for the next; `complete` says every reference is on this page; candidate_files bounds how many "
     "files can have one.",
     "{\"type\":\"object\",\"properties\":{" S_SYMBOL ",\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":"
     "1000},\"cursor\":{\"type\":\"string\",\"description\":\"next_cursor of the previous page\"}," S_TARGET "},"
     "\"required\":[\"symbol\"],\"additionalProperties\":false}",
     "{\"type\":\"object\",\"properties\":{" OUT_COMMON ",\"files\":{\"type\":\"array\",\"items\":{\"type\":"
     "\"object\",\"properties\":{\"path\":{\"type\":\"string\"},\"references\":{\"type\":\"array\",\"items\":{"
     "\"type\":\"object\",\"properties\":{\"line\":{\"type\":\"integer\"},\"text\":{\"type\":\"string\"},\"call\":"
     "{\"type\":\"boolean\"},\"in\":{\"type\":\"string\"},\"in_kind\":{\"type\":\"string\"},\"in_line\":{\"type\":"
     "\"integer\"}},\"required\":[\"line\",\"text\"]}}},\"required\":[\"path\",\"references\"]}},"
     "\"candidate_files\":{\"type\":\"integer\"},\"next_cursor\":" S_NSTR "},\"required\":[\"symbol\","
     "\"definitions\",\"files\",\"total\",\"complete\",\"next_cursor\"]}",
     t_find_references, MG_TOOL_READ_ONLY},
    {"callers", "Find callers",
     "Who calls a function: each call site with the calling definition (from_name, from_kind, from_line; kind "
     "\"file\" for top-level code) and the definition called (to_path, to_line; confidence \"file\" when it is "
     "in the caller's own file, \"name\" when the repo has one definition by that name, \"import\" for "
     "several of which the caller imports one, \"ambiguous\" for several). depth 2 or more adds the callers of the callers (at most 8). Use it to judge the impact of a "
     "change or to find how a function is reached.",
     "{\"type\":\"object\",\"properties\":{" S_SYMBOL ",\"depth\":{\"type\":\"integer\",\"minimum\":1,"
     "\"maximum\":8,\"description\":\"default 1\"},\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000,"
     "\"description\":\"most calls listed (default 100)\"}," S_TARGET "},\"required\":[\"symbol\"],"
     "\"additionalProperties\":false}",
     "{\"type\":\"object\",\"properties\":{" OUT_COMMON ",\"depth\":{\"type\":\"integer\"},\"calls\":{\"type\":"
     "\"array\",\"items\":" S_CALL "}},\"required\":[\"symbol\",\"definitions\",\"calls\",\"total\"]}",
     t_callers, MG_TOOL_READ_ONLY},
    {"callees", "Find callees",
     "What a function calls: each distinct call in its body, with where it is defined (to_path, to_line) and how "
     "sure that is (confidence: file, name, import, ambiguous, or external for a name the repo does not define, such as "
     "a library function). depth 2 or more follows the callees' own calls (at most 8).",
     "{\"type\":\"object\",\"properties\":{" S_SYMBOL ",\"depth\":{\"type\":\"integer\",\"minimum\":1,"
     "\"maximum\":8,\"description\":\"default 1\"},\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000,"
     "\"description\":\"most calls listed (default 100)\"}," S_TARGET "},\"required\":[\"symbol\"],"
     "\"additionalProperties\":false}",
     "{\"type\":\"object\",\"properties\":{" OUT_COMMON ",\"depth\":{\"type\":\"integer\"},\"calls\":{\"type\":"
     "\"array\",\"items\":" S_CALL "}},\"required\":[\"symbol\",\"definitions\",\"calls\",\"total\"]}",
     t_callees, MG_TOOL_READ_ONLY},
    {"trace_path", "Trace call paths",
     "The shortest call paths from one function (symbol) to another (to), each a list of calls in order, found "
     "by following callees breadth first (at most `depth` calls long, default 6; at most `limit` paths, default "
     "3; at most 10,000 functions visited). Use it to learn how an entry point reaches a function.",
     "{\"type\":\"object\",\"properties\":{" S_SYMBOL ",\"to\":{\"type\":\"string\",\"description\":\"the "
     "function the paths end at\"},\"depth\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":8},\"limit\":{\"type\":"
     "\"integer\",\"minimum\":1,\"maximum\":100}," S_TARGET "},\"required\":[\"symbol\",\"to\"],"
     "\"additionalProperties\":false}",
     "{\"type\":\"object\",\"properties\":{" OUT_COMMON ",\"to\":{\"type\":\"string\"},\"visited\":{\"type\":"
     "\"integer\"},\"paths\":{\"type\":\"array\",\"items\":{\"type\":\"array\",\"items\":" S_CALL "}}},"
     "\"required\":[\"symbol\",\"to\",\"paths\",\"total\"]}",
     t_trace_path, MG_TOOL_READ_ONLY},
    {"impact", "Change impact",
     "What a change touches: the definitions it modifies, adds or removes (`changed`, each with `change`), and "
     "their callers up to `depth` levels (default 2), ranked (`impacted`: score weighs nearer and surer calls "
     "more; `calls` is the changed or impacted name it calls, at call_line, with the call's confidence). Name the "
     "change with exactly one of: `revisions` (git: \"A..B\", \"A...B\", or \"A\" for A to the work tree, e.g. "
     "\"HEAD\" for uncommitted changes), `diff` (a unified diff as `git diff` or `diff -u` print it, new side as "
     "indexed), or `paths` (files changed as a whole). A removed or renamed definition's callers are the calls "
     "that still name it: they break. `skipped` lists files it could not read (not_indexed) or whose diff does "
     "not match the index (stale: index again). Use it before committing, or to review a change.",
     "{\"type\":\"object\",\"properties\":{\"revisions\":{\"type\":\"string\",\"description\":\"git revisions: "
     "A..B, A...B, or A (A to the work tree)\"},\"diff\":{\"type\":\"string\",\"description\":\"a unified "
     "diff\"},\"paths\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"description\":\"repo-relative "
     "files changed as a whole\"},\"depth\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":8,\"description\":"
     "\"caller levels, default 2\"},\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000,"
     "\"description\":\"most impacted definitions listed (default 50)\"}," S_TARGET "},"
     "\"additionalProperties\":false}",
     "{\"type\":\"object\",\"properties\":{\"repo\":" S_NSTR ",\"changed\":{\"type\":\"array\",\"items\":{"
     "\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},\"line\":{\"type\":\"integer\"},"
     "\"end_line\":{\"type\":\"integer\"},\"name\":{\"type\":\"string\"},\"kind\":{\"type\":\"string\"},"
     "\"container\":" S_NSTR ",\"change\":{\"type\":\"string\",\"enum\":[\"modified\",\"added\",\"removed\"]}},"
     "\"required\":[\"path\",\"line\",\"name\",\"kind\",\"change\"]}},\"impacted\":{\"type\":\"array\","
     "\"items\":{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},\"line\":{\"type\":"
     "\"integer\"},\"end_line\":{\"type\":\"integer\"},\"name\":{\"type\":\"string\"},\"kind\":{\"type\":"
     "\"string\"},\"container\":" S_NSTR ",\"depth\":{\"type\":\"integer\"},\"score\":{\"type\":\"number\"},"
     "\"calls\":{\"type\":\"string\"},\"call_line\":{\"type\":\"integer\"},\"confidence\":{\"type\":"
     "\"string\"}},\"required\":[\"path\",\"line\",\"name\",\"depth\",\"score\",\"calls\"]}},\"skipped\":{"
     "\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},"
     "\"reason\":{\"type\":\"string\",\"enum\":[\"not_indexed\",\"stale\"]}},\"required\":[\"path\","
     "\"reason\"]}},\"depth\":{\"type\":\"integer\"},\"total\":{\"type\":\"integer\"},\"complete\":{\"type\":"
     "\"boolean\"},\"truncated\":{\"type\":\"boolean\"}},\"required\":[\"changed\",\"impacted\",\"skipped\","
     "\"total\"]}",
     t_impact, MG_TOOL_READ_ONLY},
};
const size_t mg_tools_nav_n = sizeof(mg_tools_nav) / sizeof(mg_tools_nav[0]);
