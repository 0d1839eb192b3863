/* mcpmap.c — see mcpmap.h.
 *
 * Sections:
 *   1. the mapping — parsing a spec, checking a template
 *   2. arguments — the template filled in
 *   3. hits — from a result: json:/POINTER, text:lines, text:grep
 */
#include "util/mcpmap.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEMPLATE_MAX 1024

/* ---- 1. the mapping ------------------------------------------------------ */

static int set_field(char *dst, const char *v, size_t n, const char *what, const char *opt, struct mg_err *err)
{
    if (n == 0 || n >= MG_MCPMAP_FIELD_MAX)
        return mg_err_set(err, MG_E_CONFIG, "%s: option %s needs a value of 1 to %d characters", what, opt,
                          MG_MCPMAP_FIELD_MAX - 1);
    memcpy(dst, v, n);
    dst[n] = 0;
    return 0;
}

int mg_mcpmap_parse(const char *spec, struct mg_mcpmap *m, const char *what, struct mg_err *err)
{
    memset(m, 0, sizeof(*m));
    snprintf(m->path, sizeof(m->path), "path");
    snprintf(m->start_line, sizeof(m->start_line), "start_line");
    snprintf(m->end_line, sizeof(m->end_line), "end_line");
    snprintf(m->line, sizeof(m->line), "line");
    snprintf(m->text, sizeof(m->text), "snippet");
    snprintf(m->score, sizeof(m->score), "score");
    size_t len = strlen(spec);
    if (len == 0 || len >= MG_MCPMAP_SPEC_MAX)
        return mg_err_set(err, MG_E_CONFIG, "%s: the result mapping must be 1 to %d characters", what,
                          MG_MCPMAP_SPEC_MAX - 1);
    const char *semi = strchr(spec, ';');
    size_t ml = semi ? (size_t)(semi - spec) : len;
    if (ml >= 5 && strncmp(spec, "json:", 5) == 0) {
        m->mode = MG_MCPMAP_JSON;
        size_t pl = ml - 5;
        if (pl >= sizeof(m->pointer) || (pl > 0 && spec[5] != '/'))
            return mg_err_set(err, MG_E_CONFIG, "%s: json:POINTER needs a JSON pointer such as /results (or nothing "
                              "for the root)", what);
        memcpy(m->pointer, spec + 5, pl);
        m->pointer[pl] = 0;
    } else if (ml == 10 && strncmp(spec, "text:lines", 10) == 0) {
        m->mode = MG_MCPMAP_LINES;
    } else if (ml == 9 && strncmp(spec, "text:grep", 9) == 0) {
        m->mode = MG_MCPMAP_GREP;
    } else {
        return mg_err_set(err, MG_E_CONFIG, "%s: the result mapping '%.*s' is not json:POINTER, text:lines or "
                          "text:grep (then ;OPTION=VALUE...; see docs/providers.md)", what, (int)ml, spec);
    }
    const char *p = semi;
    while (p && *p == ';') {
        p++;
        const char *e = strchr(p, ';');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        const char *eq = memchr(p, '=', n);
        if (!eq)
            return mg_err_set(err, MG_E_CONFIG, "%s: option '%.*s' of the result mapping is not OPTION=VALUE", what,
                              (int)n, p);
        size_t kl = (size_t)(eq - p), vl = n - kl - 1;
        const char *v = eq + 1;
        static const char *const names[] = {"path", "start_line", "end_line", "line", "text", "score", "strip"};
        char *dst[] = {m->path, m->start_line, m->end_line, m->line, m->text, m->score, m->strip};
        size_t i;
        for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
            if (strlen(names[i]) == kl && strncmp(p, names[i], kl) == 0) break;
        if (i == sizeof(names) / sizeof(names[0]))
            return mg_err_set(err, MG_E_CONFIG, "%s: unknown option '%.*s' of the result mapping (path, start_line, "
                              "end_line, line, text, score, strip)", what, (int)kl, p);
        if (i < 6 && m->mode != MG_MCPMAP_JSON)
            return mg_err_set(err, MG_E_CONFIG, "%s: option %s is for json: mappings only", what, names[i]);
        if (set_field(dst[i], v, vl, what, names[i], err) != 0) return -1;
        p = e;
    }
    return 0;
}

int mg_mcpmap_template_check(const char *tmpl, const char *what, struct mg_err *err)
{
    size_t n = strlen(tmpl);
    if (n > TEMPLATE_MAX)
        return mg_err_set(err, MG_E_CONFIG, "%s: the arguments template is over %d bytes", what, TEMPLATE_MAX);
    json_error_t je;
    json_t *j = json_loadb(tmpl, n, JSON_REJECT_DUPLICATES, &je);
    if (!j)
        return mg_err_set(err, MG_E_CONFIG, "%s: the arguments template is not JSON (%s at character %d); write "
                          "an object such as {\"query\": \"{query}\"}", what, je.text, je.position);
    bool obj = json_is_object(j);
    json_decref(j);
    if (!obj)
        return mg_err_set(err, MG_E_CONFIG, "%s: the arguments template must be a JSON object", what);
    return 0;
}

/* ---- 2. arguments -------------------------------------------------------- */

/* s with the placeholders replaced (malloc'd), or NULL out of memory. */
static char *substitute(const char *s, const char *const *names, const char *const *values, size_t nv)
{
    size_t cap = strlen(s) + 1;
    for (size_t i = 0; i < nv; i++) {
        size_t count = 0;
        for (const char *p = strstr(s, names[i]); p; p = strstr(p + 1, names[i])) count++;
        cap += count * strlen(values[i]);
    }
    char *out = malloc(cap), *o = out;
    if (!out) return NULL;
    while (*s) {
        size_t i;
        for (i = 0; i < nv; i++) {
            size_t nl = strlen(names[i]);
            if (strncmp(s, names[i], nl) == 0) {
                size_t vl = strlen(values[i]);
                memcpy(o, values[i], vl);
                o += vl;
                s += nl;
                break;
            }
        }
        if (i == nv) *o++ = *s++;
    }
    *o = 0;
    return out;
}

static json_t *walk(json_t *v, const char *const *names, const char *const *values, size_t nv, long limit)
{
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        if (strcmp(s, "{limit}") == 0) return json_integer(limit);
        char *t = substitute(s, names, values, nv);
        json_t *r = t ? json_string(t) : NULL;
        free(t);
        return r;
    }
    if (json_is_array(v)) {
        json_t *a = json_array();
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e) {
            json_t *ne = walk(e, names, values, nv, limit);
            if (!ne || json_array_append_new(a, ne) != 0) {
                json_decref(a);
                return NULL;
            }
        }
        return a;
    }
    if (json_is_object(v)) {
        json_t *o = json_object();
        const char *k;
        json_t *e;
        json_object_foreach(v, k, e) {
            json_t *ne = walk(e, names, values, nv, limit);
            if (!ne || json_object_set_new(o, k, ne) != 0) {
                json_decref(o);
                return NULL;
            }
        }
        return o;
    }
    return json_incref(v);
}

json_t *mg_mcpmap_arguments(const char *tmpl, const char *query, long limit, const char *root, const char *repo)
{
    json_t *t = json_loads(tmpl, JSON_REJECT_DUPLICATES, NULL);
    if (!json_is_object(t)) {
        json_decref(t);
        return NULL;
    }
    char lim[24];
    snprintf(lim, sizeof(lim), "%ld", limit);
    const char *names[] = {"{query}", "{limit}", "{root}", "{repo}"};
    const char *values[] = {query ? query : "", lim, root ? root : "", repo ? repo : ""};
    json_t *r = walk(t, names, values, 4, limit);
    json_decref(t);
    return r;
}

/* ---- 3. hits ------------------------------------------------------------- */

/* RFC 6901: "/a/b/0" ("~1" is '/', "~0" is '~'). */
static json_t *pointer_get(json_t *root, const char *ptr)
{
    json_t *cur = root;
    if (!*ptr || strcmp(ptr, "/") == 0) return cur;
    const char *p = ptr;
    char tok[256];
    while (*p == '/' && cur) {
        p++;
        size_t n = 0;
        while (*p && *p != '/' && n + 1 < sizeof(tok)) {
            if (p[0] == '~' && p[1] == '1') tok[n++] = '/', p += 2;
            else if (p[0] == '~' && p[1] == '0') tok[n++] = '~', p += 2;
            else tok[n++] = *p++;
        }
        tok[n] = 0;
        if (json_is_object(cur)) {
            cur = json_object_get(cur, tok);
        } else if (json_is_array(cur)) {
            char *end;
            errno = 0;
            unsigned long i = strtoul(tok, &end, 10);
            cur = (n && !*end && !errno && isdigit((unsigned char)tok[0])) ? json_array_get(cur, i) : NULL;
        } else {
            cur = NULL;
        }
    }
    return cur;
}

static int64_t int_member(json_t *o, const char *name)
{
    json_t *v = json_object_get(o, name);
    if (json_is_integer(v)) {
        json_int_t i = json_integer_value(v);
        return i > 0 && i < (1LL << 31) ? (int64_t)i : 0;
    }
    if (json_is_real(v)) {
        double d = json_real_value(v);
        return d >= 1 && d < (double)(1LL << 31) ? (int64_t)d : 0;
    }
    return 0;
}

/* The concatenated text of the result's text content blocks (borrowed from
 * the first one when there is one only), or NULL. */
static const char *first_text(json_t *result, size_t *len)
{
    json_t *content = json_object_get(result, "content");
    size_t i;
    json_t *c;
    json_array_foreach(content, i, c) {
        if (json_is_object(c) && json_is_string(json_object_get(c, "type")) &&
            strcmp(json_string_value(json_object_get(c, "type")), "text") == 0 &&
            json_is_string(json_object_get(c, "text"))) {
            *len = json_string_length(json_object_get(c, "text"));
            return json_string_value(json_object_get(c, "text"));
        }
    }
    return NULL;
}

static int json_hits(const struct mg_mcpmap *m, json_t *result, size_t max, size_t *over,
                     void (*hit)(void *ud, const struct mg_mcpmap_hit *h), void *ud, struct mg_err *err)
{
    json_t *doc = json_object_get(result, "structuredContent"), *parsed = NULL;
    if (!doc) {
        size_t len;
        const char *t = first_text(result, &len);
        if (!t)
            return mg_err_set(err, MG_E_PROVIDER_BAD_RESPONSE, "the result has neither structuredContent nor text "
                              "content to read as JSON");
        json_error_t je;
        doc = parsed = json_loadb(t, len, JSON_REJECT_DUPLICATES, &je);
        if (!doc)
            return mg_err_set(err, MG_E_PROVIDER_BAD_RESPONSE, "the result's text is not JSON (%s at character %d)",
                              je.text, je.position);
    }
    json_t *arr = pointer_get(doc, m->pointer);
    if (!json_is_array(arr)) {
        json_decref(parsed);
        return mg_err_set(err, MG_E_PROVIDER_BAD_RESPONSE, "the result has no array at '%s'",
                          m->pointer[0] ? m->pointer : "/");
    }
    size_t i;
    json_t *o;
    json_array_foreach(arr, i, o) {
        if (!json_is_object(o)) continue;
        json_t *p = json_object_get(o, m->path);
        if (!json_is_string(p) || json_string_length(p) == 0) continue;
        struct mg_mcpmap_hit h = {0};
        h.path = json_string_value(p);
        h.path_len = json_string_length(p);
        h.start_line = int_member(o, m->start_line);
        h.end_line = int_member(o, m->end_line);
        h.line = int_member(o, m->line);
        json_t *t = json_object_get(o, m->text);
        if (json_is_string(t)) {
            h.text = json_string_value(t);
            h.text_len = json_string_length(t);
        }
        json_t *s = json_object_get(o, m->score);
        if (json_is_number(s) && isfinite(json_number_value(s))) {
            h.score = json_number_value(s);
            h.has_score = true;
        }
        if (max == 0) {
            (*over)++;
            continue;
        }
        max--;
        hit(ud, &h);
    }
    json_decref(parsed);
    return 0;
}

static int text_hits(const struct mg_mcpmap *m, json_t *result, size_t max, size_t *over,
                     void (*hit)(void *ud, const struct mg_mcpmap_hit *h), void *ud, struct mg_err *err)
{
    size_t len;
    const char *t = first_text(result, &len);
    if (!t) return mg_err_set(err, MG_E_PROVIDER_BAD_RESPONSE, "the result has no text content");
    const char *end = t + len;
    size_t sl = strlen(m->strip);
    while (t < end) {
        const char *nl = memchr(t, '\n', (size_t)(end - t));
        const char *le = nl ? nl : end;
        const char *s = t;
        t = nl ? nl + 1 : end;
        if (le > s && le[-1] == '\r') le--;
        if (sl && (size_t)(le - s) >= sl && memcmp(s, m->strip, sl) == 0) s += sl;
        while (s < le && (*s == ' ' || *s == '\t')) s++;
        if (le == s) continue;
        struct mg_mcpmap_hit h = {0};
        h.path = s;
        h.path_len = (size_t)(le - s);
        if (m->mode == MG_MCPMAP_GREP) {
            const char *c1 = memchr(s, ':', (size_t)(le - s));
            if (!c1) continue;
            const char *q = c1 + 1;
            int64_t line = 0;
            while (q < le && isdigit((unsigned char)*q) && line < (1LL << 31)) line = line * 10 + (*q++ - '0');
            if (q == c1 + 1 || q >= le || *q != ':' || line < 1 || line >= (1LL << 31)) continue;
            h.path_len = (size_t)(c1 - s);
            h.line = h.start_line = h.end_line = line;
            h.text = q + 1;
            h.text_len = (size_t)(le - q - 1);
        }
        if (h.path_len == 0) continue;
        if (max == 0) {
            (*over)++;
            continue;
        }
        max--;
        hit(ud, &h);
    }
    return 0;
}

int mg_mcpmap_hits(const struct mg_mcpmap *m, json_t *result, size_t max, size_t *over,
                   void (*hit)(void *ud, const struct mg_mcpmap_hit *h), void *ud, struct mg_err *err)
{
    *over = 0;
    if (!json_is_object(result)) return mg_err_set(err, MG_E_PROVIDER_BAD_RESPONSE, "the result is not an object");
    if (json_is_true(json_object_get(result, "isError"))) {
        /* its text is not quoted: it is the server's, and this sentence is served */
        return mg_err_set(err, MG_E_PROVIDER_BAD_RESPONSE, "the tool answered with an error (isError); check its "
                          "arguments template and the server's log");
    }
    return m->mode == MG_MCPMAP_JSON ? json_hits(m, result, max, over, hit, ud, err)
                                     : text_hits(m, result, max, over, hit, ud, err);
}
