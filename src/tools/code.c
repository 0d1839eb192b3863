/* code.c — the code tools: search_code, search_symbols, read_file,
 * outline, list_files. */
#include "tools/family.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "request/ops.h"
#include "tools/args.h"
#include "tools/ext.h"
#include "tools/render.h"

#define READ_MAX_LINES 2000 /* read_file: most lines per call */
#define LIST_MAX 10000      /* list_files: most paths per call */
#define OUTLINE_MAX 2000    /* outline: most definitions per call */

/* {"results", "took_ms", "mode", "total_matches"?, "total_matches_capped"?, "semantic"?, "scope", "gate"} */
static int do_search(struct mg_ctx *x, json_t *args, bool symbols, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"query", "mode", "globs", "exclude_globs", "languages", "repo", "repo_id",
                                       "limit", "fixed", "ignore_case", "cursor", NULL};
    static const char *const skeys[] = {"query", "globs", "exclude_globs", "languages", "repo", "repo_id", "limit",
                                        "cursor", NULL};
    const char *tool = symbols ? "search_symbols" : "search_code";
    const struct mg_config *cfg = &x->srv->cfg;
    struct mg_code_query q = {0};
    long long limit, offset;
    if (mg_known_keys(args, symbols ? skeys : keys, err) != 0 || mg_arg_query(cfg, args, "query", true, &q.query, err) != 0 ||
        mg_arg_int(args, "limit", 1, cfg->search_max_limit, 0, &limit, err) != 0 ||
        mg_arg_page(args, tool, &offset, err) != 0)
        return -1;
    /* a page: the search ranks the first offset + limit hits (at most search_max_limit), the gate keeps the
     * page's; rankings are prefix-stable (search.h), so the page continues exactly where the last one ended.
     * (Not one more, to know whether there is more: the first page is the search of old, total_matches and
     * all; a full page has a next_cursor, which may find nothing.) */
    if (!limit) limit = cfg->search_limit;
    if (offset >= cfg->search_max_limit)
        return mg_err_set(err, MG_E_BAD_ARG, "a search pages through its best %d hits (search_max_limit); this "
                          "cursor is past them", cfg->search_max_limit);
    long long depth = offset + limit;
    if (depth > cfg->search_max_limit) depth = cfg->search_max_limit;
    q.limit = (int)depth;
    mg_page_window(x, offset, limit);
    if (!symbols && (mg_arg_str(args, "mode", false, &q.mode, err) != 0 ||
                     mg_arg_bool(args, "fixed", &q.fixed, err) != 0 ||
                     mg_arg_bool(args, "ignore_case", &q.ignore_case, err) != 0))
        return -1;
    struct mg_target_args ta;
    if (mg_arg_target(args, true, &ta, err) != 0) return -1;
    mg_gate_subject(x, q.query);
    /* external providers (tools/ext.h): the first page of search_code, beside memgate's own search */
    struct mg_ext_run ext = {0};
    bool with_ext = !symbols && offset == 0 && mg_ext_providers(x->srv) > 0;
    if (with_ext) {
        if (mg_gate_resolve(x, &ta.t, MG_REPOS_SCOPE, err) != 0) {
            mg_target_release(&ta);
            return -1;
        }
        struct mg_code_query eq = q;
        eq.limit = (int)limit;
        mg_ext_start(x, &eq, &ext);
    }
    struct mg_items items;
    int rc = mg_gate_run(x, symbols ? &mg_op_code_symbols : &mg_op_code_search, &ta.t, &q, &items, err);
    mg_target_release(&ta);
    mg_ext_join(&ext);
    if (rc != 0) {
        mg_ext_release(&ext);
        return -1;
    }
    mg_ext_fuse(&ext, &items, (size_t)limit);
    /* more: a full page short of search_max_limit, or items the gate left out for the cap (they come next) */
    bool more = (x->page.got >= (size_t)depth && depth < cfg->search_max_limit) || items.omitted > 0;
    *result = json_pack("{s:o, s:f, s:s, s:o, s:o}", "results", mg_render_items(&items), "took_ms",
                        (double)(long long)(items.took_ms * 1000 + 0.5) / 1000, "mode",
                        items.mode ? items.mode : "lexical", "scope", mg_render_scope(x, &x->scope), "gate",
                        mg_render_gate(&items));
    if (*result && items.total_matches >= 0) { /* regex and fixed-string search count every match */
        json_object_set_new(*result, "total_matches", json_integer((json_int_t)items.total_matches));
        if (items.total_matches_capped) json_object_set_new(*result, "total_matches_capped", json_true());
    }
    mg_render_semantic(*result, &items); /* hybrid answered by words: the vectors are still loading */
    json_t *providers = mg_ext_status(&ext);
    if (*result && providers) json_object_set_new(*result, "providers", providers);
    else json_decref(providers);
    mg_ext_release(&ext);
    rc = *result ? mg_page_end(x, tool, args, offset, items.n, more, *result, err) : 0;
    mg_items_release(&items);
    return rc;
}

static int t_search_code(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    return do_search(x, args, false, result, err);
}

static int t_search_symbols(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    return do_search(x, args, true, result, err);
}

/* {repo, path, language, start_line, end_line, total_lines, truncated,
 * next_cursor, text, source, gate}. next_cursor (when truncated) is the
 * line to go on from, in decimal: opaque to clients, who pass it back as
 * `cursor`. */
static int t_read_file(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"path", "start_line", "end_line", "cursor", "repo", "repo_id", NULL};
    struct mg_read_query q = {.max_lines = READ_MAX_LINES, .max_bytes = x->srv->cfg.max_chunk_bytes};
    long long from, to;
    const char *cursor = NULL;
    if (mg_known_keys(args, keys, err) != 0 || mg_arg_str(args, "path", true, &q.path, err) != 0 ||
        mg_arg_int(args, "start_line", 1, 1LL << 31, 1, &from, err) != 0 ||
        mg_arg_int(args, "end_line", 1, 1LL << 31, 0, &to, err) != 0 ||
        mg_arg_str(args, "cursor", false, &cursor, err) != 0)
        return -1;
    if (cursor) {
        char *end;
        if (json_object_get(args, "start_line"))
            return mg_err_set(err, MG_E_BAD_ARG, "give 'cursor' or 'start_line', not both");
        from = strtoll(cursor, &end, 10);
        if (*cursor < '1' || *cursor > '9' || *end || from < 1 || from > (1LL << 31) || (to && to < from))
            return mg_err_set(err, MG_E_BAD_ARG, "'cursor' must be the next_cursor of an earlier read_file call of "
                              "this file (with an end_line, one at or after it)");
    }
    if (to && to < from)
        return mg_err_set(err, MG_E_BAD_ARG, "'end_line' (%lld) is before 'start_line' (%lld)", to, from);
    q.start_line = from;
    q.end_line = to;
    struct mg_target_args ta;
    if (mg_arg_target(args, false, &ta, err) != 0) return -1;
    mg_gate_subject(x, q.path);
    struct mg_items items;
    int rc = mg_gate_run(x, &mg_op_code_read, &ta.t, &q, &items, err);
    mg_target_release(&ta);
    if (rc != 0) return -1;
    if (items.n != 1) {
        mg_items_release(&items);
        return mg_err_set(err, MG_E_FILE_NOT_FOUND, "'%s' is not served (it did not pass the checks on its way out)",
                          q.path);
    }
    json_t *r = mg_render_item(items.v[0]);
    json_int_t end = json_integer_value(json_object_get(r, "end_line")),
               total = json_integer_value(json_object_get(r, "total_lines"));
    char next[32];
    snprintf(next, sizeof(next), "%lld", (long long)end + 1);
    /* more to read: the lines asked for (to the end without end_line) go on past what was served */
    bool more = json_is_true(json_object_get(r, "truncated")) && end < (to ? to : total);
    json_object_set_new(r, "next_cursor", more ? json_string(next) : json_null());
    *result = mg_render_gated(r, &items);
    mg_items_release(&items);
    return 0;
}

/* {repo, path, language, bytes, lines, symbols, total, next_cursor, gate}. The
 * cursor is the number of definitions already served, in decimal: opaque to
 * clients, who pass next_cursor back as given. */
static int t_outline(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"path", "limit", "cursor", "repo", "repo_id", NULL};
    struct mg_outline_query q = {0};
    const char *cursor = NULL;
    long long limit;
    if (mg_known_keys(args, keys, err) != 0 || mg_arg_str(args, "path", true, &q.path, err) != 0 ||
        mg_arg_int(args, "limit", 1, OUTLINE_MAX, 200, &limit, err) != 0 ||
        mg_arg_str(args, "cursor", false, &cursor, err) != 0)
        return -1;
    q.limit = limit;
    if (cursor) {
        char *end;
        q.offset = strtoll(cursor, &end, 10);
        if (*cursor < '0' || *cursor > '9' || *end || q.offset < 0 || q.offset > (1LL << 40))
            return mg_err_set(err, MG_E_BAD_ARG, "'cursor' must be the next_cursor of an earlier outline call, "
                              "given back as it came");
    }
    struct mg_target_args ta;
    if (mg_arg_target(args, false, &ta, err) != 0) return -1;
    mg_gate_subject(x, q.path);
    struct mg_items items;
    int rc = mg_gate_run(x, &mg_op_code_outline, &ta.t, &q, &items, err);
    mg_target_release(&ta);
    if (rc != 0) return -1;
    if (items.n < 1 || items.v[0]->type != &mg_item_file_entry) {
        mg_items_release(&items);
        return mg_err_set(err, MG_E_FILE_NOT_FOUND, "'%s' is not served (it did not pass the checks on its way out)",
                          q.path);
    }
    /* the gate may have left definitions out for the response's cap: the next page starts at the first of them */
    int64_t next = q.offset + (int64_t)items.n - 1;
    char nc[24];
    snprintf(nc, sizeof(nc), "%lld", (long long)next);
    json_t *o = mg_render_item(items.v[0]), *defs = json_array();
    for (size_t i = 1; i < items.n; i++) json_array_append_new(defs, mg_render_item(items.v[i]));
    json_object_set_new(o, "symbols", defs);
    json_object_set_new(o, "total", json_integer((json_int_t)items.total));
    json_object_set_new(o, "next_cursor", next < items.total ? json_string(nc) : json_null());
    *result = mg_render_gated(o, &items);
    mg_items_release(&items);
    return 0;
}

static int t_list_files(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"globs", "exclude_globs", "languages", "repo", "repo_id", "limit", "offset",
                                       "cursor", NULL};
    long long limit, offset;
    if (mg_known_keys(args, keys, err) != 0 || mg_arg_int(args, "limit", 1, LIST_MAX, 200, &limit, err) != 0 ||
        mg_arg_int(args, "offset", 0, 1LL << 40, 0, &offset, err) != 0)
        return -1;
    if (json_object_get(args, "cursor")) {
        if (json_object_get(args, "offset")) return mg_err_set(err, MG_E_BAD_ARG, "give 'cursor' or 'offset', not both");
        if (mg_arg_page(args, "list_files", &offset, err) != 0) return -1;
    }
    struct mg_list_query q = {.limit = limit, .offset = offset};
    struct mg_target_args ta;
    if (mg_arg_target(args, true, &ta, err) != 0) return -1;
    struct mg_items items;
    int rc = mg_gate_run(x, &mg_op_code_list, &ta.t, &q, &items, err);
    mg_target_release(&ta);
    if (rc != 0) return -1;
    bool more = offset + (long long)items.n < items.total;
    *result = json_pack("{s:o, s:I, s:b, s:o}", "files", mg_render_items(&items), "total", (json_int_t)items.total,
                        "truncated", more, "scope", mg_render_scope(x, &x->scope));
    rc = *result ? mg_page_end(x, "list_files", args, offset, items.n, more, *result, err) : 0;
    mg_items_release(&items);
    return rc;
}

/* ---- schemas ---- */

#define S_LIMIT(max, def) "\"limit\":{\"type\":\"integer\",\"minimum\":1," max "\"default\":" def "}"
#define S_CURSOR "\"cursor\":" MG_S_STR
#define S_HITS                                                                                                      \
    MG_S_OUT("\"results\":" MG_S_ARR ",\"took_ms\":" MG_S_NUM "," MG_SCHEMA_SCOPE_OUT,                              \
             MG_S_REQ("\"results\",\"took_ms\",\"scope\""))

const struct mg_tool mg_tools_code[] = {
    {"search_code", "Search code",
     "Search the repo's indexed code. mode lexical: ranked words, identifiers match across spellings "
     "(parseHttpHeader, parse_http_header); regex: PCRE2 (fixed: literal); symbol: definitions by name; "
     "semantic: by embedding; hybrid: all fused. Default: hybrid for a plain-language question, else lexical. "
     "Results: file, lines, symbol, snippet, matching lines; regex counts total_matches.",
     MG_S_IN("\"query\":" MG_S_STR ",\"mode\":{\"type\":\"string\",\"enum\":[\"lexical\",\"regex\",\"symbol\","
             "\"semantic\",\"hybrid\"]},\"fixed\":" MG_S_BOOL ",\"ignore_case\":" MG_S_BOOL "," MG_S_FILTERS
             "," MG_S_REPO "," S_LIMIT("", "20") "," S_CURSOR,
             MG_S_REQ("\"query\"")),
     S_HITS, t_search_code, MG_TOOL_READ_ONLY},
    {"search_symbols", "Search symbols",
     "Find definitions (functions, types, macros, variables, fields...) by name: exact, any case, prefix, then "
     "sub-word (HttpHeader finds parseHttpHeader).",
     MG_S_IN("\"query\":" MG_S_STR "," MG_S_FILTERS "," MG_S_REPO "," S_LIMIT("", "20") "," S_CURSOR,
             MG_S_REQ("\"query\"")),
     S_HITS, t_search_symbols, MG_TOOL_READ_ONLY},
    {"read_file", "Read a file",
     "Read lines of an indexed file (path relative to the repo root; secret files refused). At most 2000 lines or "
     "max_chunk_bytes (8 KB) per call: when next_cursor is not null, pass it as cursor (with the same end_line) for "
     "the rest.",
     MG_S_IN("\"path\":" MG_S_STR ",\"start_line\":{\"type\":\"integer\",\"minimum\":1},\"end_line\":{\"type\":"
             "\"integer\",\"minimum\":1}," S_CURSOR "," MG_S_REPO,
             MG_S_REQ("\"path\"")),
     MG_S_OUT("\"repo\":" MG_S_STR ",\"path\":" MG_S_STR ",\"start_line\":" MG_S_INT ",\"end_line\":" MG_S_INT
              ",\"total_lines\":" MG_S_INT ",\"next_cursor\":" MG_S_NSTR ",\"text\":" MG_S_STR,
              MG_S_REQ("\"repo\",\"path\",\"start_line\",\"end_line\",\"total_lines\",\"next_cursor\",\"text\"")),
     t_read_file, MG_TOOL_READ_ONLY},
    {"outline", "Outline a file",
     "A file's definitions without bodies (name, kind, container, lines, signature): its shape before you "
     "read_file the lines you need. Paged.",
     MG_S_IN("\"path\":" MG_S_STR "," S_LIMIT("\"maximum\":2000,", "200") "," S_CURSOR "," MG_S_REPO,
             MG_S_REQ("\"path\"")),
     MG_S_OUT("\"repo\":" MG_S_STR ",\"path\":" MG_S_STR ",\"symbols\":" MG_S_ARR ",\"total\":" MG_S_INT
              ",\"next_cursor\":" MG_S_NSTR,
              MG_S_REQ("\"repo\",\"path\",\"symbols\",\"total\",\"next_cursor\"")),
     t_outline, MG_TOOL_READ_ONLY},
    {"list_files", "List files",
     "List the repo's indexed files, filtered by globs and languages (and the session scope), sorted by path.",
     MG_S_IN(MG_S_FILTERS "," MG_S_REPO "," S_LIMIT("\"maximum\":10000,", "200")
             ",\"offset\":{\"type\":\"integer\",\"minimum\":0}," S_CURSOR, ""),
     MG_S_OUT("\"files\":" MG_S_ARR ",\"total\":" MG_S_INT "," MG_SCHEMA_SCOPE_OUT,
              MG_S_REQ("\"files\",\"total\",\"scope\"")),
     t_list_files, MG_TOOL_READ_ONLY},
};
const size_t mg_tools_code_n = sizeof(mg_tools_code) / sizeof(mg_tools_code[0]);
