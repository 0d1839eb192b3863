/* defs_lines.c — definitions of the languages without a usable grammar,
 * found line by line (see defs.h, mg_defs_lines): Erlang, Nim, protobuf and
 * SQL (whose grammar's scanner leaks memory: tree-sitter-sql 0.3.11 frees
 * no dollar-quote tag it deserializes); and Kotlin's when its grammar's tree
 * has errors and finds fewer (tree-sitter-kotlin gives up on a whole file
 * after `class P(…) { fun f() = x * x }` on one line: chunker.c).
 *
 * Sections:
 *   1. Words      reading an identifier, a keyword at a line's start
 *   2. Languages  the line rules of each language
 *   3. Ranges     where each definition ends, its parent, the arena
 *
 * A definition starts on a line that matches one of its language's rules and
 * ends where the next definition at the same or a lesser indentation starts
 * (Erlang: the next one at column 0, or the clause's last line ending in
 * '.'); one nested deeper (a protobuf field or rpc, a Nim proc in a type
 * section's object) has the enclosing one as parent. No syntax tree, so no
 * error recovery is needed: every line is read once, and the output is
 * capped like mg_defs_extract's.
 */
#include "index/defs.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "index/lang.h"

#define MAX_LINE_DEFS 200000
#define NAME_MAX_LEN  256

struct found {
    uint32_t start, end, indent;
    uint32_t name, nlen; /* in the source */
    const char *kind;
    int parent;
};

/* ---- 1. Words ------------------------------------------------------------ */

static bool ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           (unsigned char)c >= 0x80;
}

/* The identifier at p (before e): its length, 0 if none. */
static uint32_t ident(const char *p, const char *e)
{
    const char *q = p;
    if (q < e && *q >= '0' && *q <= '9') return 0;
    while (q < e && ident_char(*q) && q - p < NAME_MAX_LEN) q++;
    return (uint32_t)(q - p);
}

/* If the line [p, e) starts with the word kw followed by a blank, the
 * position after the blanks; else NULL. */
static const char *after_word(const char *p, const char *e, const char *kw)
{
    size_t n = strlen(kw);
    if ((size_t)(e - p) <= n || memcmp(p, kw, n) != 0 || (p[n] != ' ' && p[n] != '\t')) return NULL;
    p += n;
    while (p < e && (*p == ' ' || *p == '\t')) p++;
    return p;
}

/* ---- 2. Languages -------------------------------------------------------- */

struct rule {
    const char *word; /* at the line's start, after indentation */
    const char *kind;
};

/* A definition on the line [p, e) (indentation already skipped, ls is the
 * line's start): its name and kind, or false. */
typedef bool (*line_fn)(const char *ls, const char *p, const char *e, uint32_t *name, uint32_t *nlen,
                        const char **kind);

static bool by_rules(const struct rule *r, const char *ls, const char *p, const char *e, uint32_t *name,
                     uint32_t *nlen, const char **kind)
{
    for (; r->word; r++) {
        const char *q = after_word(p, e, r->word);
        if (!q || !(*nlen = ident(q, e))) continue;
        *name = (uint32_t)(q - ls);
        *kind = r->kind;
        return true;
    }
    return false;
}

static bool proto_line(const char *ls, const char *p, const char *e, uint32_t *name, uint32_t *nlen,
                       const char **kind)
{
    static const struct rule rules[] = {
        {"message", MG_KIND_STRUCT}, {"enum", MG_KIND_ENUM}, {"service", MG_KIND_INTERFACE},
        {"rpc", MG_KIND_METHOD},     {"oneof", MG_KIND_FIELD}, {NULL, NULL},
    };
    return by_rules(rules, ls, p, e, name, nlen, kind);
}

static bool nim_line(const char *ls, const char *p, const char *e, uint32_t *name, uint32_t *nlen,
                     const char **kind)
{
    static const struct rule rules[] = {
        {"proc", MG_KIND_FUNCTION},     {"func", MG_KIND_FUNCTION},  {"method", MG_KIND_METHOD},
        {"iterator", MG_KIND_FUNCTION}, {"converter", MG_KIND_FUNCTION}, {"template", MG_KIND_MACRO},
        {"macro", MG_KIND_MACRO},       {NULL, NULL},
    };
    if (by_rules(rules, ls, p, e, name, nlen, kind)) return true;
    /* in a type section: `Name* = object`, `Name = enum`, `Name = ref object` */
    if (p == ls || !(*nlen = ident(p, e))) return false;
    const char *q = p + *nlen;
    if (q < e && *q == '*') q++;
    while (q < e && *q == ' ') q++;
    if (q >= e || *q != '=') return false;
    q++;
    while (q < e && *q == ' ') q++;
    const char *r;
    if ((r = after_word(q, e, "ref")) || (r = after_word(q, e, "ptr"))) q = r;
    size_t rest = (size_t)(e - q);
    if (rest >= 6 && memcmp(q, "object", 6) == 0) *kind = MG_KIND_STRUCT;
    else if (rest >= 4 && memcmp(q, "enum", 4) == 0) *kind = MG_KIND_ENUM;
    else if ((rest >= 5 && memcmp(q, "tuple", 5) == 0) || (rest >= 8 && memcmp(q, "distinct", 8) == 0) ||
             (rest >= 7 && memcmp(q, "concept", 7) == 0))
        *kind = MG_KIND_TYPE;
    else return false;
    *name = (uint32_t)(p - ls);
    return true;
}

static bool erlang_line(const char *ls, const char *p, const char *e, uint32_t *name, uint32_t *nlen,
                        const char **kind)
{
    static const struct rule attrs[] = {
        {"-module(", MG_KIND_MODULE}, {"-record(", MG_KIND_STRUCT}, {"-type", MG_KIND_TYPE},
        {"-opaque", MG_KIND_TYPE},    {"-define(", MG_KIND_MACRO},  {NULL, NULL},
    };
    if (p != ls) return false; /* definitions start at column 0 */
    if (*p == '-') {
        for (const struct rule *r = attrs; r->word; r++) {
            size_t n = strlen(r->word);
            if ((size_t)(e - p) <= n || memcmp(p, r->word, n) != 0) continue;
            const char *q = p + n;
            while (q < e && (*q == ' ' || *q == '(')) q++;
            if (!(*nlen = ident(q, e))) return false;
            *name = (uint32_t)(q - ls);
            *kind = r->kind;
            return true;
        }
        return false;
    }
    /* a function clause: `name(` with a lower-case atom */
    if (*p < 'a' || *p > 'z' || !(*nlen = ident(p, e)) || p + *nlen >= e || p[*nlen] != '(') return false;
    *name = 0;
    *kind = MG_KIND_FUNCTION;
    return true;
}


/* CREATE [OR REPLACE] [TEMP|TEMPORARY|UNLOGGED|MATERIALIZED] TABLE|VIEW|
 * FUNCTION|PROCEDURE|TYPE|TRIGGER [IF NOT EXISTS] [schema.]name, any case */
static const char *after_word_ci(const char *p, const char *e, const char *kw)
{
    size_t n = strlen(kw);
    if ((size_t)(e - p) <= n || strncasecmp(p, kw, n) != 0 || (p[n] != ' ' && p[n] != '\t')) return NULL;
    p += n;
    while (p < e && (*p == ' ' || *p == '\t')) p++;
    return p;
}

static bool sql_line(const char *ls, const char *p, const char *e, uint32_t *name, uint32_t *nlen,
                     const char **kind)
{
    static const struct rule objs[] = {
        {"table", MG_KIND_STRUCT},  {"view", MG_KIND_TYPE},      {"function", MG_KIND_FUNCTION},
        {"procedure", MG_KIND_FUNCTION}, {"type", MG_KIND_TYPE}, {"trigger", MG_KIND_FUNCTION}, {NULL, NULL},
    };
    static const char *const mods[] = {"or replace", "temporary", "temp", "unlogged", "materialized", NULL};
    const char *q = after_word_ci(p, e, "create"), *r;
    if (!q) return false;
    for (int i = 0; mods[i]; i++)
        if ((r = after_word_ci(q, e, mods[i]))) q = r;
    for (const struct rule *o = objs; o->word; o++) {
        if (!(r = after_word_ci(q, e, o->word))) continue;
        if ((q = after_word_ci(r, e, "if not exists"))) r = q;
        const char *n = r;
        if (n < e && (*n == '"' || *n == '`')) n++;
        uint32_t l = ident(n, e);
        while (l && n + l < e && n[l] == '.') { /* schema.name: the name */
            uint32_t l2 = ident(n + l + 1, e);
            if (!l2) break;
            n += l + 1, l = l2;
        }
        if (!l) return false;
        *name = (uint32_t)(n - ls), *nlen = l, *kind = o->kind;
        return true;
    }
    return false;
}

/* Kotlin: [modifiers] class|interface|object|fun|typealias NAME; `fun <T>
 * Recv.name(`: the name after the receiver's last `.`. */
static bool kotlin_line(const char *ls, const char *p, const char *e, uint32_t *name, uint32_t *nlen,
                        const char **kind)
{
    static const char *const mods[] = {"public", "private", "internal", "protected", "open", "abstract", "final",
                                       "override", "data", "sealed", "inline", "value", "enum", "annotation",
                                       "inner", "suspend", "operator", "infix", "tailrec", "external", "expect",
                                       "actual", "companion", "fun", NULL}; /* (`fun interface`) */
    static const struct rule rules[] = {
        {"class", MG_KIND_CLASS}, {"interface", MG_KIND_INTERFACE}, {"object", MG_KIND_CLASS},
        {"typealias", MG_KIND_TYPE}, {"fun", MG_KIND_FUNCTION}, {NULL, NULL},
    };
    const char *q;
    for (int i = 0, more = 1; more && i < 8; i++) { /* the modifiers, at most 8 */
        more = 0;
        for (int m = 0; mods[m]; m++) {
            const char *r = after_word(p, e, mods[m]);
            if (r && !(strcmp(mods[m], "fun") == 0 && !after_word(r, e, "interface"))) {
                p = r;
                more = 1;
                break;
            }
        }
    }
    if (!(q = after_word(p, e, "fun"))) return by_rules(rules, ls, p, e, name, nlen, kind);
    if (q < e && *q == '<') { /* fun <T> … */
        int depth = 0;
        for (; q < e; q++) {
            if (*q == '<') depth++;
            else if (*q == '>' && --depth == 0) break;
        }
        if (q >= e) return false;
        for (q++; q < e && (*q == ' ' || *q == '\t');) q++;
    }
    uint32_t l = ident(q, e);
    while (l && q + l < e && (q[l] == '.' || q[l] == '<')) { /* Recv.name, Recv<T>.name */
        const char *r = q + l;
        if (*r == '<') {
            int depth = 0;
            for (; r < e; r++) {
                if (*r == '<') depth++;
                else if (*r == '>' && --depth == 0) break;
            }
            if (r >= e || r + 1 >= e || r[1] != '.') break;
            r++;
        }
        uint32_t l2 = ident(r + 1, e);
        if (!l2) break;
        q = r + 1, l = l2;
    }
    if (!l) return false;
    *name = (uint32_t)(q - ls), *nlen = l, *kind = MG_KIND_FUNCTION;
    return true;
}

static line_fn rules_for(const struct mg_lang *lang)
{
    if (strcmp(lang->name, "kotlin") == 0) return kotlin_line;
    if (strcmp(lang->name, "protobuf") == 0) return proto_line;
    if (strcmp(lang->name, "nim") == 0) return nim_line;
    if (strcmp(lang->name, "erlang") == 0) return erlang_line;
    if (strcmp(lang->name, "sql") == 0) return sql_line;
    return NULL;
}

bool mg_defs_lines_known(const struct mg_lang *lang) { return lang && rules_for(lang) != NULL; }

/* ---- 3. Ranges ----------------------------------------------------------- */

static int finish(const char *src, struct found *f, size_t n, size_t len, struct mg_defs *out)
{
    size_t alen = 1;
    for (size_t i = 0; i < n; i++) alen += f[i].nlen + 1;
    out->v = malloc((n ? n : 1) * sizeof(*out->v));
    out->arena = malloc(alen);
    int *open = malloc((n ? n : 1) * sizeof(*open));
    if (!out->v || !out->arena || !open) {
        free(open);
        mg_defs_release(out);
        return -1;
    }
    /* one pass with a stack of the definitions still open (indentation rising):
     * a definition closes the open ones at its indentation or deeper, and its
     * parent is the innermost one left */
    size_t sp = 0;
    for (size_t i = 0; i < n; i++) {
        while (sp > 0 && f[open[sp - 1]].indent >= f[i].indent) f[open[--sp]].end = f[i].start;
        f[i].parent = sp > 0 ? open[sp - 1] : -1;
        open[sp++] = (int)i;
    }
    while (sp > 0) f[open[--sp]].end = (uint32_t)len;
    free(open);
    size_t a = 0;
    for (size_t i = 0; i < n; i++) {
        memcpy(out->arena + a, src + f[i].name, f[i].nlen);
        out->arena[a + f[i].nlen] = 0;
        out->v[i] = (struct mg_def){f[i].start, f[i].end, out->arena + a, f[i].kind, NULL, f[i].parent, false};
        a += f[i].nlen + 1;
    }
    for (size_t i = 0; i < n; i++)
        if (out->v[i].parent >= 0) {
            const struct mg_def *pa = &out->v[out->v[i].parent];
            out->v[i].container = pa->name;
            out->v[out->v[i].parent].is_container = true;
            if (strcmp(out->v[i].kind, MG_KIND_FUNCTION) == 0 &&
                (strcmp(pa->kind, MG_KIND_CLASS) == 0 || strcmp(pa->kind, MG_KIND_INTERFACE) == 0))
                out->v[i].kind = MG_KIND_METHOD; /* (a function in a class: Kotlin's) */
        }
    out->n = out->cap = n;
    out->arena_len = out->arena_cap = alen;
    return 0;
}

int mg_defs_lines(const struct mg_lang *lang, const char *src, size_t len, struct mg_defs *out)
{
    memset(out, 0, sizeof(*out));
    line_fn fn = lang ? rules_for(lang) : NULL;
    if (!fn || !src) return 0;
    if (len > UINT32_MAX) len = UINT32_MAX;
    size_t n = 0, cap = 0;
    struct found *f = NULL;
    for (size_t at = 0; at < len && n < MAX_LINE_DEFS;) {
        const char *ls = src + at, *nl = memchr(ls, '\n', len - at), *e = nl ? nl : src + len;
        const char *p = ls;
        while (p < e && (*p == ' ' || *p == '\t')) p++;
        uint32_t name, nlen;
        const char *kind;
        if (p < e && fn(ls, p, e, &name, &nlen, &kind)) {
            bool again = fn == erlang_line && n > 0 && strcmp(kind, MG_KIND_FUNCTION) == 0 &&
                         strcmp(f[n - 1].kind, MG_KIND_FUNCTION) == 0 && f[n - 1].nlen == nlen &&
                         memcmp(src + f[n - 1].name, ls + name, nlen) == 0;
            if (!again) { /* Erlang: the next clause of the same function */
                if (n == cap) {
                    size_t nc = cap ? cap * 2 : 64;
                    struct found *g = realloc(f, nc * sizeof(*g));
                    if (!g) {
                        free(f);
                        return -1;
                    }
                    f = g, cap = nc;
                }
                f[n++] = (struct found){(uint32_t)at, 0, (uint32_t)(p - ls), (uint32_t)at + name, nlen, kind, -1};
            }
        }
        at = (size_t)(e - src) + 1;
    }
    int rc = finish(src, f, n, len, out);
    free(f);
    return rc;
}
