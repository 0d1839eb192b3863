/* text.c — see tools.h (mg_tools_text): a tool's result as compact text.
 *
 * Generic over the result's shape, so every tool gets it:
 *   - a result that is itself a located thing (a "path": read_file, outline)
 *     is a header line like an item's, then the rest;
 *   - otherwise scalars are `key: value` lines;
 *   - an array of objects is a `key: N` line, then one line per item:
 *     its place (`path:line  symbol (kind)`, or its key / title / name / id)
 *     then its other short fields as `name=value`, then its long text
 *     (snippet, body, text ...) indented below, a snippet with line numbers;
 *   - a nested object is one `key: a=1 b=x` line with its empty parts left
 *     out (a scope with no globs, a gate that changed nothing: no line).
 * What the gate did is never left out: an item's flags, redactions and
 * truncation are `[...]` marks on its line, the list's are a `gate:` line.
 * Reals are rounded to 4 significant digits; structuredContent keeps them.
 * A tool with MG_TOOL_TEXT_BLOCK has its long text shown once: of its lists
 * only the items the gate marked (and their marked items) are shown.
 *
 * Sections:
 *   1. values, objects and blocks
 *   2. items and lists
 *   3. a tool's result
 */
#include "tools/tools.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/tokens.h"

#define TEXT_MAX ((size_t)64 << 20)
#define INLINE_MAX 160 /* a string longer than this (or with a newline) is a block of its own */

/* ---- 1. values, objects and blocks ------------------------------------------------------------------------ */

static bool is_long(json_t *v)
{
    if (!json_is_string(v)) return false;
    const char *s = json_string_value(v);
    return json_string_length(v) > INLINE_MAX || strchr(s, '\n');
}

/* Nothing worth a word: null, false, 0, "", [] or {} (nested parts only). */
static bool is_empty(json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_NULL:
    case JSON_FALSE: return true;
    case JSON_INTEGER: return json_integer_value(v) == 0;
    case JSON_REAL: return json_real_value(v) == 0;
    case JSON_STRING: return json_string_length(v) == 0;
    case JSON_ARRAY: return json_array_size(v) == 0;
    case JSON_OBJECT: {
        const char *k;
        json_t *x;
        json_object_foreach(v, k, x) if (!is_empty(x)) return false;
        return true;
    }
    default: return false;
    }
}

/* A string on one line: its newlines and tabs as spaces. */
static void add_inline(struct mg_buf *b, const char *s)
{
    for (; *s; s++) mg_buf_addc(b, *s == '\n' || *s == '\r' || *s == '\t' ? ' ' : *s);
}

static void add_value(struct mg_buf *b, json_t *v);

/* {a=1 b=x}, empty parts left out */
static void add_object(struct mg_buf *b, json_t *o)
{
    const char *k;
    json_t *x;
    bool first = true;
    json_object_foreach(o, k, x)
    {
        if (is_empty(x)) continue;
        mg_buf_addf(b, "%s%s=", first ? "" : " ", k);
        add_value(b, x);
        first = false;
    }
}

static void add_value(struct mg_buf *b, json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_NULL: mg_buf_adds(b, "-"); break;
    case JSON_TRUE: mg_buf_adds(b, "true"); break;
    case JSON_FALSE: mg_buf_adds(b, "false"); break;
    case JSON_INTEGER: mg_buf_addf(b, "%lld", (long long)json_integer_value(v)); break;
    case JSON_REAL: mg_buf_addf(b, "%.4g", json_real_value(v)); break;
    case JSON_STRING: add_inline(b, json_string_value(v)); break;
    case JSON_ARRAY: {
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x)
        {
            if (i) mg_buf_addc(b, ',');
            if (json_is_object(x)) {
                mg_buf_addc(b, '{');
                add_object(b, x);
                mg_buf_addc(b, '}');
            } else {
                add_value(b, x);
            }
        }
        break;
    }
    case JSON_OBJECT:
        mg_buf_addc(b, '{');
        add_object(b, v);
        mg_buf_addc(b, '}');
        break;
    }
}

static void indent(struct mg_buf *b, int n)
{
    for (int i = 0; i < n; i++) mg_buf_addc(b, ' ');
}

/* s, each line indented; numbered from `line` when it is > 0 */
static void add_block(struct mg_buf *b, const char *s, int ind, long long line)
{
    while (*s) {
        const char *e = strchr(s, '\n');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        indent(b, ind);
        if (line > 0) mg_buf_addf(b, "%lld  ", line++);
        mg_buf_add(b, s, n);
        mg_buf_addc(b, '\n');
        s += n + (e ? 1 : 0);
    }
}

/* ---- 2. items and lists ----------------------------------------------------------------------------------- */

static bool is_array_of_objects(json_t *v)
{
    return json_is_array(v) && json_array_size(v) > 0 && json_is_object(json_array_get(v, 0));
}

/* The fields an item's header line or its marks already show. */
static const char *const placed[] = {"path", "line", "start_line", "end_line", "symbol", "kind", "snippet_line",
                                     "flags", "injection", "redactions", "truncated", "match_lines",
                                     "match_lines_omitted", NULL};
static const char *const names[] = {"key", "title", "name", "id", NULL};

static bool in(const char *k, const char *const *set)
{
    for (size_t i = 0; set[i]; i++)
        if (strcmp(k, set[i]) == 0) return true;
    return false;
}

static void add_list(struct mg_buf *b, const char *key, json_t *a, int ind, const char *repo);

/* An attribution that only repeats what the item's line shows ("note:KEY"
 * of note KEY, "path:line" of a hit at path): left out of the text. */
static bool repeats(json_t *o, const char *k, json_t *v)
{
    if (strcmp(k, "source") != 0 && strcmp(k, "attribution") != 0) return false;
    const char *s = json_string_value(v);
    if (!s) return false;
    json_t *path = json_object_get(o, "path");
    if (json_is_string(path)) return strstr(s, json_string_value(path)) != NULL;
    for (size_t i = 0; names[i]; i++) {
        const char *n = json_string_value(json_object_get(o, names[i]));
        if (n) {
            size_t ls = strlen(s), ln = strlen(n);
            return ls >= ln && strcmp(s + ls - ln, n) == 0;
        }
    }
    return false;
}

/* The marks of what the gate did to o: [flags: ...] [redactions: n] [truncated] */
static void add_marks(struct mg_buf *b, json_t *o)
{
    json_t *fl = json_object_get(o, "flags"), *inj = json_object_get(o, "injection");
    if (json_is_array(fl) && json_array_size(fl) > 0) {
        mg_buf_adds(b, "  [flags: ");
        add_value(b, fl);
        if (json_is_object(inj)) {
            mg_buf_adds(b, "; injection ");
            add_object(b, inj);
        }
        mg_buf_addc(b, ']');
    }
    json_int_t red = json_integer_value(json_object_get(o, "redactions"));
    if (red > 0) mg_buf_addf(b, "  [redactions: %lld]", (long long)red);
    if (json_is_true(json_object_get(o, "truncated"))) mg_buf_adds(b, "  [truncated]");
}

/* One object as an item: its header line, its short fields, then its
 * blocks and lists below, indented by ind + 2. repo: the list's one repo,
 * not repeated on each line (NULL: each shows its own). */
static void add_item(struct mg_buf *b, json_t *o, int ind, const char *repo)
{
    indent(b, ind);
    json_t *path = json_object_get(o, "path");
    bool located = json_is_string(path);
    bool wrote = false;
    if (located) {
        json_t *line = json_object_get(o, "line"), *sl = json_object_get(o, "start_line"),
               *el = json_object_get(o, "end_line");
        add_inline(b, json_string_value(path));
        if (json_is_integer(line) && json_integer_value(line) > 0) {
            mg_buf_addf(b, ":%lld", (long long)json_integer_value(line));
        } else if (json_is_integer(sl)) {
            mg_buf_addf(b, ":%lld", (long long)json_integer_value(sl));
            if (json_is_integer(el) && json_integer_value(el) != json_integer_value(sl))
                mg_buf_addf(b, "-%lld", (long long)json_integer_value(el));
        }
        wrote = true;
    } else {
        for (size_t i = 0; names[i] && !wrote; i++) {
            json_t *v = json_object_get(o, names[i]);
            if (json_is_string(v) || json_is_integer(v)) {
                add_value(b, v);
                wrote = true;
            }
        }
    }
    json_t *sym = json_object_get(o, "symbol"), *kind = json_object_get(o, "kind");
    if (json_is_string(sym)) {
        mg_buf_adds(b, wrote ? "  " : "");
        add_inline(b, json_string_value(sym));
        if (json_is_string(kind)) mg_buf_addf(b, " (%s)", json_string_value(kind));
        wrote = true;
    } else if (json_is_string(kind)) {
        mg_buf_addf(b, "%s(%s)", wrote ? "  " : "", json_string_value(kind));
        wrote = true;
    }
    const char *k;
    json_t *v;
    bool named = !located; /* the first name field found went in the header */
    json_object_foreach(o, k, v)
    {
        if (in(k, placed) || json_is_null(v) || is_long(v) || is_array_of_objects(v) || repeats(o, k, v)) continue;
        if (located && strcmp(k, "language") == 0) continue;
        if (strcmp(k, "repo") == 0 && repo && json_is_string(v) && strcmp(repo, json_string_value(v)) == 0) continue;
        if (named && in(k, names) && (json_is_string(v) || json_is_integer(v))) {
            named = false; /* (the one in the header) */
            continue;
        }
        if ((json_is_array(v) && json_array_size(v) == 0) || json_is_false(v)) continue;
        mg_buf_addf(b, "%s%s=", wrote ? "  " : "", k);
        add_value(b, v);
        wrote = true;
    }
    add_marks(b, o);
    mg_buf_addc(b, '\n');
    /* below: the snippet numbered, matching lines it does not show, other text, nested lists */
    json_t *snip = json_object_get(o, "snippet");
    long long s0 = json_integer_value(json_object_get(o, "snippet_line")), s1 = s0 - 1;
    if (json_is_string(snip)) {
        const char *s = json_string_value(snip);
        for (const char *p = s; *p; p++) s1 += *p == '\n';
        if (*s && s[strlen(s) - 1] != '\n') s1++;
        add_block(b, s, ind + 4, s0);
    }
    json_t *ml = json_object_get(o, "match_lines");
    size_t i;
    json_t *m;
    json_array_foreach(ml, i, m)
    {
        long long n = json_integer_value(json_object_get(m, "line"));
        if (s0 > 0 && n >= s0 && n <= s1) continue;
        indent(b, ind + 4);
        mg_buf_addf(b, "%lld: ", n);
        add_inline(b, json_string_value(json_object_get(m, "text")) ? json_string_value(json_object_get(m, "text")) : "");
        mg_buf_addc(b, '\n');
    }
    json_int_t more = json_integer_value(json_object_get(o, "match_lines_omitted"));
    if (more > 0) {
        indent(b, ind + 4);
        mg_buf_addf(b, "(%lld more matching lines)\n", (long long)more);
    }
    json_object_foreach(o, k, v)
    {
        if (strcmp(k, "snippet") == 0 || repeats(o, k, v)) continue;
        if (is_long(v)) {
            indent(b, ind + 2);
            mg_buf_addf(b, "%s:\n", k);
            add_block(b, json_string_value(v), ind + 4, 0);
        } else if (is_array_of_objects(v) && strcmp(k, "match_lines") != 0) {
            add_list(b, k, v, ind + 2, repo);
        }
    }
}

/* The one repo every item of a names, or NULL. */
static const char *one_repo(json_t *a)
{
    const char *r = NULL;
    size_t i;
    json_t *o;
    json_array_foreach(a, i, o)
    {
        const char *s = json_string_value(json_object_get(o, "repo"));
        if (!s) continue;
        if (r && strcmp(r, s) != 0) return NULL;
        r = s;
    }
    return r;
}

static void add_list(struct mg_buf *b, const char *key, json_t *a, int ind, const char *repo)
{
    const char *one = one_repo(a);
    indent(b, ind);
    mg_buf_addf(b, "%s: %zu", key, json_array_size(a));
    if (one && (!repo || strcmp(one, repo) != 0)) mg_buf_addf(b, " (repo %s)", one);
    mg_buf_addc(b, '\n');
    size_t i;
    json_t *o;
    json_array_foreach(a, i, o)
    {
        if (json_is_object(o)) {
            add_item(b, o, ind + 2, one);
        } else {
            indent(b, ind + 2);
            add_value(b, o);
            mg_buf_addc(b, '\n');
        }
    }
}

/* ---- 3. a tool's result ----------------------------------------------------------------------------------- */

/* o or something in its lists carries a mark of the gate (add_marks). */
static bool marked(json_t *o)
{
    json_t *fl = json_object_get(o, "flags");
    if ((json_is_array(fl) && json_array_size(fl) > 0) || json_integer_value(json_object_get(o, "redactions")) > 0 ||
        json_is_true(json_object_get(o, "truncated")))
        return true;
    const char *k;
    json_t *v, *e;
    size_t i;
    json_object_foreach(o, k, v) if (is_array_of_objects(v)) json_array_foreach(v, i, e) if (marked(e)) return true;
    return false;
}

/* The marked items of a (a new array), each with its lists cut the same way. */
static json_t *only_marked(json_t *a)
{
    json_t *out = json_array(), *e, *v;
    size_t i;
    const char *k;
    json_array_foreach(a, i, e)
    {
        if (!json_is_object(e) || !marked(e)) continue;
        json_t *c = json_copy(e);
        json_object_foreach(e, k, v) if (is_array_of_objects(v)) json_object_set_new(c, k, only_marked(v));
        json_array_append_new(out, c);
    }
    return out;
}

char *mg_tools_text(const struct mg_tool *t, json_t *result)
{
    bool block = t && (t->hints & MG_TOOL_TEXT_BLOCK);
    struct mg_buf b;
    mg_buf_init(&b, TEXT_MAX);
    if (!json_is_object(result)) {
        add_value(&b, result);
        mg_buf_addc(&b, '\n');
        return mg_buf_detach(&b, NULL);
    }
    const char *k;
    json_t *v;
    bool item = json_is_string(json_object_get(result, "path"));
    if (item) { /* read_file, outline: the result is the file */
        json_t *copy = json_object();
        json_object_foreach(result, k, v) if (!is_array_of_objects(v) && !is_long(v) && strcmp(k, "gate") != 0)
            json_object_set(copy, k, v);
        add_item(&b, copy, 0, NULL);
        json_decref(copy);
    }
    /* scalars first, then objects (the gate's account, the scope ...), then lists and text */
    json_object_foreach(result, k, v)
    {
        if (item || json_is_null(v) || json_is_object(v) || is_long(v) || is_array_of_objects(v)) continue;
        mg_buf_addf(&b, "%s: ", k);
        if (json_is_array(v) && json_array_size(v) == 0) mg_buf_adds(&b, "none");
        else add_value(&b, v);
        mg_buf_addc(&b, '\n');
    }
    json_object_foreach(result, k, v)
    {
        if (!json_is_object(v) || is_empty(v)) continue;
        if (item && strcmp(k, "gate") != 0) continue;
        mg_buf_addf(&b, "%s: ", k);
        add_object(&b, v);
        mg_buf_addc(&b, '\n');
    }
    json_object_foreach(result, k, v)
    {
        if (is_array_of_objects(v) && block) {
            json_t *m = only_marked(v);
            if (json_array_size(m)) add_list(&b, k, m, 0, NULL);
            json_decref(m);
        } else if (is_array_of_objects(v)) add_list(&b, k, v, 0, NULL);
        else if (is_long(v)) {
            if (!item) mg_buf_addf(&b, "%s:\n", k);
            add_block(&b, json_string_value(v), item ? 0 : 2, 0);
        }
    }
    if (!b.p) mg_buf_adds(&b, "{}");
    return b.p ? mg_buf_detach(&b, NULL) : NULL;
}

size_t mg_tools_text_tokens(const struct mg_tool *t, json_t *result)
{
    char *text = mg_tools_text(t, result);
    size_t n = text ? mg_tokens_str(text) : (size_t)-1;
    free(text);
    return n;
}
