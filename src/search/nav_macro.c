/* nav_macro.c — C preprocessor macros as the callers walk sees them
 * (nav_int.h): a function named in a macro's body, or one a macro builds by
 * pasting (`RM_ ## name`), is used wherever the macro is expanded, as the
 * compiler (and clangd) sees it after expansion.
 *
 * Text only: the macro's definition (`#define NAME(p1, p2) body`, its
 * lines joined by backslashes; the indexer makes it a definition of kind
 * macro spanning them) and an expansion site's arguments, each bounded.
 */
#include "search/nav_int.h"

#include <string.h>

#include "index/lex.h"

#define MACRO_TEXT_MAX 16384 /* a macro's definition, an expansion's arguments: read this far at most */

static bool idc(char c) { return mg_lex_id_char((unsigned char)c); }

/* nav_int.h */
bool mg__nav_c_family(const char *lang)
{
    return lang && (strcmp(lang, "c") == 0 || strcmp(lang, "cpp") == 0 || strcmp(lang, "objc") == 0);
}

/* Macro m's text in fl: [*lo, *hi) from `#define` to the end of its last
 * line; its parameters' list (after the name's `(`, none when the name is
 * not followed by one) at *po (0: none). False when m is no `#define`. */
static bool define_text(const struct file *fl, const struct mg_nav_def *m, size_t *lo, size_t *hi, size_t *po)
{
    const char *t = fl->text;
    size_t i = mg__nav_line_start(fl, m->start_line), lim = i + MACRO_TEXT_MAX < fl->len ? i + MACRO_TEXT_MAX : fl->len;
    while (i < lim && (t[i] == ' ' || t[i] == '\t')) i++;
    if (i >= lim || t[i] != '#') return false;
    i++;
    while (i < lim && (t[i] == ' ' || t[i] == '\t')) i++;
    size_t nl = strlen(m->name);
    if (i + 6 >= lim || memcmp(t + i, "define", 6) != 0 || idc(t[i + 6])) return false;
    i += 6;
    while (i < lim && (t[i] == ' ' || t[i] == '\t')) i++;
    if (i + nl > lim || memcmp(t + i, m->name, nl) != 0 || (i + nl < lim && idc(t[i + nl]))) return false;
    *lo = i;
    *po = i + nl < lim && t[i + nl] == '(' ? i + nl + 1 : 0;
    size_t e = i;
    for (; e < lim && t[e] != '\n'; e++) /* to the line's end, past backslash-newlines */
        if (t[e] == '\\' && e + 1 < lim && t[e + 1] == '\n') e++;
    *hi = e;
    return true;
}

#define MACRO_PARAMS_MAX 32 /* a macro's parameters read at most */

/* A macro's parameters: where each is in its text. */
struct params {
    size_t off[MACRO_PARAMS_MAX], len[MACRO_PARAMS_MAX];
    int n;
};

/* The parameter list at t[po...) up to its `)` (before hi), read once:
 * false when it is not closed or has more than MACRO_PARAMS_MAX. */
static bool read_params(const char *t, size_t hi, size_t po, struct params *ps)
{
    ps->n = 0;
    for (size_t i = po; i < hi;) {
        while (i < hi && (t[i] == ' ' || t[i] == '\t' || t[i] == '\\' || t[i] == '\n')) i++;
        size_t s = i;
        while (i < hi && idc(t[i])) i++;
        if (ps->n == MACRO_PARAMS_MAX) return false;
        ps->off[ps->n] = s;
        ps->len[ps->n++] = i - s;
        while (i < hi && t[i] != ',' && t[i] != ')') i++;
        if (i >= hi) return false;
        if (t[i++] == ')') return true;
    }
    return false;
}

/* The index of parameter p (pl bytes) among ps: -1 when it is none. */
static int param_index(const char *t, const struct params *ps, const char *p, size_t pl)
{
    for (int k = 0; k < ps->n; k++)
        if (ps->len[k] == pl && pl && memcmp(t + ps->off[k], p, pl) == 0) return k;
    return -1;
}

/* nav_int.h */
bool mg__nav_macro_paste(const struct file *fl, const struct mg_nav_def *m, const char *name, int *param, char *rest,
                         size_t cap)
{
    size_t lo, hi, po;
    struct params ps;
    if (!fl->text || !define_text(fl, m, &lo, &hi, &po) || !po || !read_params(fl->text, hi, po, &ps)) return false;
    const char *t = fl->text;
    size_t nl = strlen(name);
    for (const char *p = t + lo; p + 2 <= t + hi && (p = memmem(p, (size_t)(t + hi - p), "##", 2)); p += 2) {
        size_t a = (size_t)(p - t), b = a + 2; /* the words either side of `##` */
        while (a > lo && (t[a - 1] == ' ' || t[a - 1] == '\t')) a--;
        size_t as = a;
        while (as > lo && idc(t[as - 1])) as--;
        while (b < hi && (t[b] == ' ' || t[b] == '\t')) b++;
        size_t be = b;
        while (be < hi && idc(t[be])) be++;
        if (as == a || be == b) continue;
        int k;
        /* P ## param: name is P then the argument; param ## P: the argument then P */
        if (a - as < nl && memcmp(t + as, name, a - as) == 0 && (k = param_index(t, &ps, t + b, be - b)) >= 0 &&
            nl - (a - as) < cap) {
            memcpy(rest, name + (a - as), nl - (a - as));
            rest[nl - (a - as)] = 0;
        } else if (be - b < nl && memcmp(t + b, name + nl - (be - b), be - b) == 0 &&
                   (k = param_index(t, &ps, t + as, a - as)) >= 0 && nl - (be - b) < cap) {
            memcpy(rest, name, nl - (be - b));
            rest[nl - (be - b)] = 0;
        } else continue;
        *param = k;
        return true;
    }
    return false;
}

/* nav.h: unclosed within a bound, or fewer arguments: false */
bool mg_nav_macro_arg(const char *t, size_t n, size_t off, int k, size_t *ao, size_t *al)
{
    size_t i = off, lim = off + MACRO_TEXT_MAX < n ? off + MACRO_TEXT_MAX : n;
    while (i < lim && (t[i] == ' ' || t[i] == '\t')) i++;
    if (i >= lim || t[i] != '(') return false;
    int depth = 0, at = 0;
    size_t s = i + 1;
    for (; i < lim; i++) {
        char c = t[i];
        if (c == '"' || c == '\'') { /* a string's commas and brackets are no arguments' */
            while (++i < lim && t[i] != c && t[i] != '\n') i += t[i] == '\\';
            continue;
        }
        if (c == '(' || c == '[' || c == '{') depth++;
        else if ((c == ')' || c == ']' || c == '}') && --depth > 0) continue;
        if ((c == ',' && depth == 1) || depth == 0) {
            if (at == k) {
                size_t e = i;
                while (s < e && (t[s] == ' ' || t[s] == '\t' || t[s] == '\n')) s++;
                while (e > s && (t[e - 1] == ' ' || t[e - 1] == '\t' || t[e - 1] == '\n')) e--;
                *ao = s;
                *al = e - s;
                return true;
            }
            if (depth == 0) return false;
            at++;
            s = i + 1;
        }
    }
    return false;
}

/* nav.h */
bool mg_nav_macro_paste_of(const char *text, size_t len, const char *macro, const char *name, int *param, char *rest,
                           size_t cap)
{
    int lines = 1;
    for (size_t i = 0; i < len; i++) lines += text[i] == '\n';
    struct mg_nav_def m = {.name = (char *)macro, .kind = "macro", .start_line = 1, .end_line = lines};
    struct file fl = {.lang = "c", .text = (char *)text, .len = len, .defs = &m, .ndefs = 1};
    return mg__nav_macro_paste(&fl, &m, name, param, rest, cap);
}
