/* repomap.c — the repo_map tool: code.repomap through the gate (search/
 * repomap.h says how files and definitions are ranked). The map's text is
 * rendered here from the gated items, so every line shown was cleaned. */
#include "tools/family.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "request/ops.h"
#include "tools/args.h"
#include "tools/render.h"
#include "util/tokens.h"

#define BUDGET_MIN     64    /* the text content's header alone costs about 40 (search/repomap.h takes 32) */
#define BUDGET_MAX     65536 /* ... MG_REPOMAP_BUDGET_MAX */
#define BUDGET_DEFAULT 1024
#define FOCUS_MAX      64    /* ... MG_REPOMAP_FOCUS_MAX */

/* A list of at most FOCUS_MAX non-empty strings (a string: a list of one),
 * borrowed from args into v (FOCUS_MAX + 1 slots). */
static int focus_list(json_t *args, const char *key, const char **v, size_t *n, struct mg_err *err)
{
    *n = 0;
    json_t *a = json_object_get(args, key);
    if (!a || json_is_null(a)) return 0;
    if (json_is_string(a)) {
        v[(*n)++] = json_string_value(a);
        if (!*v[0] || strlen(v[0]) > 1024 || strlen(v[0]) != json_string_length(a))
            return mg_err_set(err, MG_E_BAD_ARG, "'%s' must be a non-empty string of at most 1024 bytes", key);
        return 0;
    }
    if (!json_is_array(a)) return mg_err_set(err, MG_E_BAD_ARG, "'%s' must be an array of strings", key);
    if (json_array_size(a) > FOCUS_MAX)
        return mg_err_set(err, MG_E_BAD_ARG, "'%s' has %zu items; the most is %d", key, json_array_size(a),
                          FOCUS_MAX);
    for (size_t i = 0; i < json_array_size(a); i++) {
        json_t *e = json_array_get(a, i);
        const char *s = json_string_value(e);
        if (!s || !*s || strlen(s) > 1024 || strlen(s) != json_string_length(e))
            return mg_err_set(err, MG_E_BAD_ARG, "'%s' item %zu must be a non-empty string of at most 1024 bytes",
                              key, i);
        v[(*n)++] = s;
    }
    return 0;
}

struct text {
    char *p;
    size_t n, cap;  /* cap: the buffer's bytes */
    size_t tokens;  /* what the lines cost, as the text content shows them (indented by 2) */
    size_t budget;  /* what they may cost */
};

/* Append a line when it fits the budget: false when it does not. */
static bool put_line(struct text *t, const char *line)
{
    size_t l = strlen(line), c = mg_tokens(line, l) + 1; /* + the indent before it */
    if (t->n + l > t->cap || t->tokens + c > t->budget) return false;
    memcpy(t->p + t->n, line, l);
    t->n += l;
    t->p[t->n] = 0;
    t->tokens += c;
    return true;
}

/* The map's last lines taken off until they held at least over tokens:
 * false when the map has none. */
static bool drop_lines(json_t *r, size_t over)
{
    const char *m = json_string_value(json_object_get(r, "map"));
    size_t e = m ? strlen(m) : 0, dropped = 0;
    if (e == 0) return false;
    while (e > 0 && dropped < over) {
        size_t b = e - 1; /* the line before e, from its start b */
        while (b > 0 && m[b - 1] != '\n') b--;
        dropped += mg_tokens(m + b, e - b) + 1;
        e = b;
    }
    while (e > 0) { /* nor a file's line without its definitions */
        size_t b = e - 1;
        while (b > 0 && m[b - 1] != '\n') b--;
        if (m[b] == ' ') break;
        e = b;
    }
    json_object_set_new(r, "map", json_stringn(m, e));
    return true;
}

/* The whole text content within budget tokens (each line was counted
 * alone, the header not at all; this counts the text): the map's last lines
 * off while it is over, then tokens says what the text costs. */
static void fit(json_t *r, size_t budget)
{
    const struct mg_tool *tool = &mg_tools_repomap[0];
    for (int round = 0; round < 16; round++) {
        size_t n = mg_tools_text_tokens(tool, r);
        if (n == (size_t)-1) return;
        if (n > budget && drop_lines(r, n - budget)) {
            json_object_set_new(r, "truncated", json_true());
            continue;
        }
        if (json_integer_value(json_object_get(r, "tokens")) == (json_int_t)n) return;
        json_object_set_new(r, "tokens", json_integer((json_int_t)n)); /* its digits count too: again */
    }
}

static int t_repo_map(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"budget_tokens", "focus_files", "focus_symbols", "repo", "repo_id", "globs",
                                       "exclude_globs", "languages", NULL};
    const char *ff[FOCUS_MAX + 1], *fs[FOCUS_MAX + 1];
    long long budget;
    struct mg_repomap_query q = {0};
    if (mg_known_keys(args, keys, err) != 0 ||
        mg_arg_int(args, "budget_tokens", BUDGET_MIN, BUDGET_MAX, BUDGET_DEFAULT, &budget, err) != 0 ||
        focus_list(args, "focus_files", ff, &q.nfocus_files, err) != 0 ||
        focus_list(args, "focus_symbols", fs, &q.nfocus_symbols, err) != 0)
        return -1;
    q.budget_tokens = budget;
    q.focus_files = ff;
    q.focus_symbols = fs;
    struct mg_target_args ta;
    if (mg_arg_target(args, true, &ta, err) != 0) return -1;
    mg_gate_subject(x, q.nfocus_files ? ff[0] : q.nfocus_symbols ? fs[0] : "");
    struct mg_items items;
    int rc = mg_gate_run(x, &mg_op_code_repomap, &ta.t, &q, &items, err);
    mg_target_release(&ta);
    if (rc != 0) return -1;

    struct text t = {malloc((size_t)budget * 8 + 1), 0, (size_t)budget * 8, 0, (size_t)budget};
    if (!t.p) {
        mg_items_release(&items);
        return mg_err_oom(err);
    }
    t.p[0] = 0;
    json_t *files = json_array(), *cur = NULL;
    const struct mg_repomap_summary *s = NULL;
    bool fits = true, cut = false;
    char line[4096 + 64];
    for (size_t i = 0; i < items.n; i++) {
        const struct mg_item *it = items.v[i];
        if (it->type == &mg_item_repomap_summary) {
            s = (const struct mg_repomap_summary *)it;
            continue;
        }
        json_t *o = mg_render_item(it);
        json_object_del(o, "repo");
        if (it->type == &mg_item_repomap_file) {
            const struct mg_repomap_file_item *f = (const struct mg_repomap_file_item *)it;
            json_object_set_new(o, "definitions", json_array());
            cur = json_object_get(o, "definitions");
            json_array_append_new(files, o);
            snprintf(line, sizeof(line), "%s\n", f->path);
            fits = put_line(&t, line);
            cut = cut || !fits;
            continue;
        }
        const struct mg_repomap_def_item *d = (const struct mg_repomap_def_item *)it;
        json_object_del(o, "path");
        if (cur) json_array_append_new(cur, o);
        else json_decref(o);
        if (d->text && *d->text) snprintf(line, sizeof(line), "  %lld: %.200s\n", (long long)d->line, d->text);
        else snprintf(line, sizeof(line), "  %lld: %s %s\n", (long long)d->line, d->kind, d->name);
        if (fits && !put_line(&t, line)) cut = true; /* the gate made a line longer (a redaction) */
    }
    json_t *o = json_pack("{s:o, s:s, s:o, s:I, s:I, s:I, s:b, s:b, s:b}", "repo",
                          s ? json_string(s->repo) : json_null(), "map", t.p, "files", files, "budget_tokens",
                          (json_int_t)budget, "tokens", (json_int_t)0, "considered",
                          (json_int_t)(s ? s->considered : 0), "cached", s && s->cached, "stale", s && s->stale,
                          "truncated", (s && s->truncated) || cut || items.omitted);
    free(t.p);
    *result = mg_render_gated(o, &items);
    mg_items_release(&items);
    if (*result) fit(*result, (size_t)budget);
    return 0;
}

const struct mg_tool mg_tools_repomap[] = {
    {"repo_map", "Repo map",
     "The repo's most central files (PageRank over cross-file name use) and their most used definitions, within "
     "budget_tokens (the whole text counted). Use it first in an unfamiliar repo or before a change across files; "
     "focus_files and focus_symbols rank what relates to them first. stale: a newer map is being built.",
     MG_S_IN("\"budget_tokens\":{\"type\":\"integer\",\"minimum\":64,\"maximum\":65536,\"default\":1024},"
             "\"focus_files\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"maxItems\":64},\"focus_symbols\":"
             "{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"maxItems\":64}," MG_S_REPO "," MG_S_FILTERS, ""),
     MG_S_OUT("\"map\":" MG_S_STR ",\"files\":" MG_S_ARR ",\"tokens\":" MG_S_INT ",\"truncated\":" MG_S_BOOL,
              MG_S_REQ("\"map\",\"files\",\"tokens\",\"truncated\"")),
     t_repo_map, MG_TOOL_READ_ONLY | MG_TOOL_TEXT_BLOCK},
};
const size_t mg_tools_repomap_n = sizeof(mg_tools_repomap) / sizeof(mg_tools_repomap[0]);
