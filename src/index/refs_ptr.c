/* refs_ptr.c — the functions a C or C++ file stores into struct fields
 * (refs_ptr.h), found while refs.c lexes the file, and the C scanners
 * navigation shares.
 *
 * A scan first reads the file's braces once (skipping comments, strings and
 * preprocessor lines): each `{` with its `}`, the group around it and, at
 * file scope, where its item starts (a function's signature). Then the
 * lexer's identifiers arrive in order: a member `.F` or `->F` followed by
 * `= fn` is a store, its type the initializer's (the braces around it) or
 * the receiver's declared type; a member called (`o->F(`, or `OPS(F)(`
 * through a macro of the file) is a call through the field, typed alike.
 * At the end each initializer `= {` of a struct type gives its elements
 * that are lone names by their place.
 *
 * Sections:
 *   1. scanning C text
 *   2. the braces of a file
 *   3. the struct type of an initializer
 *   4. stores through members and calls through fields (per identifier)
 *   5. positional stores, the end of a scan
 */
#include "index/refs_ptr.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "index/lex.h"

#define NONE SIZE_MAX

/* ---- 1. scanning C text -------------------------------------------------------------------------------- */

static bool idc(char c) { return mg_lex_id_char((unsigned char)c); }
static bool blank(char c, bool nl) { return c == ' ' || c == '\t' || (nl && (c == '\n' || c == '\r')); }

size_t mg_cscan_skip_ws(const char *t, size_t n, size_t i)
{
    for (;;) {
        while (i < n && blank(t[i], true)) i++;
        if (i + 1 < n && t[i] == '/' && t[i + 1] == '*') {
            const char *e = memmem(t + i + 2, n - i - 2, "*/", 2);
            i = e ? (size_t)(e - t) + 2 : n;
        } else if (i + 1 < n && t[i] == '/' && t[i + 1] == '/') {
            while (i < n && t[i] != '\n') i++;
        } else {
            return i;
        }
    }
}

size_t mg_cscan_back(const char *t, size_t lo, size_t i, bool nl)
{
    while (i > lo && blank(t[i - 1], nl)) i--;
    return i;
}

size_t mg_cscan_ident(const char *t, size_t n, size_t i)
{
    if (i >= n || !idc(t[i]) || (t[i] >= '0' && t[i] <= '9')) return 0;
    size_t e = i;
    while (e < n && idc(t[e])) e++;
    return e - i;
}

/* Past a string or character literal starting at t[i] (a quote). */
static size_t skip_quoted(const char *t, size_t n, size_t i)
{
    char q = t[i++];
    while (i < n && t[i] != q && t[i] != '\n') i += t[i] == '\\' ? 2 : 1;
    return i < n ? i + 1 : n;
}

/* Past a string, character literal or comment at t[i]; i when none is there. */
static size_t skip_literal(const char *t, size_t n, size_t i)
{
    if (t[i] == '"' || t[i] == '\'') return skip_quoted(t, n, i);
    if (t[i] == '/' && i + 1 < n && (t[i + 1] == '*' || t[i + 1] == '/')) return mg_cscan_skip_ws(t, n, i);
    return i;
}

/* Past the bracketed group at t[i] (`{`, `(` or `[`), or n. */
static size_t group_end(const char *t, size_t n, size_t i)
{
    int depth = 0;
    while (i < n) {
        char c = t[i];
        size_t j = skip_literal(t, n, i);
        if (j != i) {
            i = j;
            continue;
        }
        if (c == '{' || c == '(' || c == '[') depth++;
        else if ((c == '}' || c == ')' || c == ']') && --depth == 0) return i + 1;
        i++;
    }
    return n;
}

bool mg_cscan_receiver(const char *t, size_t lo, size_t end, char *name, size_t cap, size_t *at)
{
    size_t i = mg_cscan_back(t, lo, end, false);
    if (i > lo + 1 && t[i - 1] == '>' && t[i - 2] == '-') i -= 2;
    else if (i > lo && t[i - 1] == '.') i--;
    else return false;
    i = mg_cscan_back(t, lo, i, false);
    if (i > lo && t[i - 1] == ']') {
        int depth = 0;
        while (i > lo) {
            char c = t[--i];
            if (c == ']') depth++;
            else if (c == '[' && --depth == 0) break;
        }
    }
    size_t e = i;
    while (i > lo && idc(t[i - 1])) i--;
    if (e == i || e - i >= cap || (t[i] >= '0' && t[i] <= '9')) return false; /* (`298->a`: no variable) */
    size_t b = mg_cscan_back(t, lo, i, false); /* a plain variable, not a field of something */
    if (b > lo && (t[b - 1] == '.' || t[b - 1] == '>')) return false;
    memcpy(name, t + i, e - i);
    name[e - i] = 0;
    *at = i;
    return true;
}

size_t mg_cscan_declared(const char *t, size_t lo, size_t end, const char *name, size_t nl, char *out, size_t cap)
{
    for (const char *p = t + lo; end > lo && (p = memmem(p, (size_t)(t + end - p), name, nl)); p += nl) {
        size_t at = (size_t)(p - t);
        if ((at > lo && idc(t[at - 1])) || (at + nl < end && idc(t[at + nl]))) continue;
        size_t a = mg_cscan_skip_ws(t, end, at + nl);
        if (a >= end || !(t[a] == ';' || t[a] == ',' || t[a] == ')' || t[a] == '=' || t[a] == '[')) continue;
        size_t j = at;
        while (j > lo && (blank(t[j - 1], true) || t[j - 1] == '*')) j--;
        if (j > lo && t[j - 1] == '}' && nl < cap) { /* static struct { ... } name[] */
            memmove(out, name, nl);
            out[nl] = 0;
            return at;
        }
        size_t te = j;
        while (j > lo && idc(t[j - 1])) j--;
        /* a use (`return x;`, `9 q`: a number before it) */
        if (te == j || (te - j == 6 && memcmp(t + j, "return", 6) == 0) || (t[j] >= '0' && t[j] <= '9')) continue;
        if (te - j >= cap) return NONE;
        memmove(out, t + j, te - j);
        out[te - j] = 0;
        return at;
    }
    return NONE;
}

/* Where `#define NAME(` (len bytes) starts its name in t, or NONE (also
 * when the bytes read would pass *budget). */
static size_t macro_def(const char *t, size_t n, const char *name, size_t len, size_t *budget)
{
    for (const char *p = t, *from = t; p + len < t + n && (p = memmem(p, (size_t)(t + n - p), name, len));
         from = p += len) {
        size_t at = (size_t)(p - t), read = (size_t)(p - from) + len;
        if (budget) {
            if (*budget < read) return NONE;
            *budget -= read;
        }
        if ((at > 0 && idc(t[at - 1])) || at + len >= n || t[at + len] != '(') continue;
        size_t b = mg_cscan_back(t, 0, at, false);
        if (b < 6 || memcmp(t + b - 6, "define", 6) != 0 || b == at) continue;
        b = mg_cscan_back(t, 0, b - 6, false);
        if (b == 0 || t[b - 1] != '#') continue;
        b = mg_cscan_back(t, 0, b - 1, false);
        if (b == 0 || t[b - 1] == '\n') return at;
    }
    return NONE;
}

bool mg_cscan_macro_field(const char *t, size_t n, size_t off, size_t len, char *field, size_t cap, size_t *budget)
{
    if (len == 0) return false;
    size_t i = mg_cscan_skip_ws(t, n, off + len);
    if (i >= n || t[i] != '(') return false;
    size_t a = mg_cscan_skip_ws(t, n, i + 1), l = mg_cscan_ident(t, n, a);
    if (!l || l >= cap) return false;
    size_t c = mg_cscan_skip_ws(t, n, a + l);
    if (c >= n || t[c] != ')') return false;
    c = mg_cscan_skip_ws(t, n, c + 1);
    if (c >= n || t[c] != '(') return false;
    /* the definition's first line: `#define NAME(P) (... ->P)` */
    size_t nm = macro_def(t, n, t + off, len, budget);
    if (nm == NONE) return false;
    const char *nl = memchr(t + nm, '\n', n - nm);
    size_t e = nl ? (size_t)(nl - t) : n, ps = nm + len + 1, pl = mg_cscan_ident(t, e, ps);
    if (!pl || ps + pl >= e || t[ps + pl] != ')') return false;
    size_t q = e;
    while (q > ps && (t[q - 1] == ' ' || t[q - 1] == '\t' || t[q - 1] == ')' || t[q - 1] == '\r')) q--;
    if (q < ps + 2 * pl + 3 || memcmp(t + q - pl, t + ps, pl) != 0 || idc(t[q - pl - 1])) return false;
    size_t m = q - pl;
    if (!(t[m - 1] == '.' || (t[m - 1] == '>' && t[m - 2] == '-'))) return false;
    memcpy(field, t + a, l);
    field[l] = 0;
    return true;
}

/* ---- 2. the braces of a file ---------------------------------------------------------------------------- */

struct brace {
    size_t open, close; /* offsets of `{` and `}` (close n: unclosed) */
    size_t parent;      /* the brace around it (NONE: file scope) */
    size_t item;        /* file scope: where its item starts (after the `;` or `}` before it) */
    char *type;         /* an initializer's struct type, once asked (see typed) */
    bool typed;
};

struct mg__ptr_scan {
    const char *t;
    size_t n;
    struct brace *b;
    size_t nb, capb;
    size_t *top; /* the file-scope braces, in order */
    size_t ntop;
    size_t *stk; /* the braces around the identifier last seen */
    size_t nstk, next;
    struct mg_refs_store *v; /* stores */
    size_t nv, capv;
    struct mg_refs_store *c; /* calls through fields */
    size_t nc, capc;
    size_t budget;   /* bytes the search for receivers' declarations may still read */
    size_t line_off; /* line_of's last answer */
    int line;
    bool oom;
};

static bool grow(void **v, size_t n, size_t *cap, size_t size)
{
    if (n < *cap) return true;
    size_t c = *cap ? *cap * 2 : 64;
    void *nv = realloc(*v, c * size);
    if (!nv) return false;
    *v = nv;
    *cap = c;
    return true;
}

/* Every brace of the text, in order of their `{`. */
static bool read_braces(struct mg__ptr_scan *s)
{
    const char *t = s->t;
    size_t n = s->n, item = 0, open = NONE, ntop = 0; /* open: the innermost brace not closed */
    bool line_start = true;
    for (size_t i = 0; i < n;) {
        char c = t[i];
        if (c == '\n') {
            line_start = true;
            i++;
            continue;
        }
        if (blank(c, false)) {
            i++;
            continue;
        }
        if (c == '#' && line_start) { /* a preprocessor line, with its continuations */
            while (i < n && t[i] != '\n') i += t[i] == '\\' && i + 1 < n ? 2 : 1;
            continue;
        }
        line_start = false;
        size_t j = skip_literal(t, n, i);
        if (j != i) {
            i = j;
            continue;
        }
        if (c == '{') {
            if (!grow((void **)&s->b, s->nb, &s->capb, sizeof(*s->b))) return false;
            s->b[s->nb] = (struct brace){i, n, open, open == NONE ? item : 0, NULL, false};
            ntop += open == NONE;
            open = s->nb++;
        } else if (c == '}' && open != NONE) {
            s->b[open].close = i;
            open = s->b[open].parent;
            if (open == NONE) item = i + 1;
        } else if (c == ';' && open == NONE) {
            item = i + 1;
        }
        i++;
    }
    s->top = malloc((ntop + 1) * sizeof(*s->top));
    s->stk = malloc((s->nb + 1) * sizeof(*s->stk));
    if (!s->top || !s->stk) return false;
    for (size_t k = 0; k < s->nb; k++)
        if (s->b[k].parent == NONE) s->top[s->ntop++] = k;
    return true;
}

/* Is t[off] at file scope (inside no brace)? */
static bool at_file_scope(const struct mg__ptr_scan *s, size_t off)
{
    size_t lo = 0, hi = s->ntop;
    while (lo < hi) { /* the last file-scope brace opened before off */
        size_t mid = (lo + hi) / 2;
        if (s->b[s->top[mid]].open < off) lo = mid + 1;
        else hi = mid;
    }
    return lo == 0 || s->b[s->top[lo - 1]].close < off;
}

/* The braces around off, innermost last (identifiers come in order). */
static void braces_to(struct mg__ptr_scan *s, size_t off)
{
    while (s->next < s->nb && s->b[s->next].open < off) {
        while (s->nstk && s->b[s->stk[s->nstk - 1]].close < s->b[s->next].open) s->nstk--;
        s->stk[s->nstk++] = s->next++;
    }
    while (s->nstk && s->b[s->stk[s->nstk - 1]].close < off) s->nstk--;
}

/* ---- 3. the struct type of an initializer --------------------------------------------------------------- */

static bool basic_type(const char *w, size_t l)
{
    static const char words[] = " int char short long void float double unsigned signed bool _Bool size_t ssize_t "
                                "u8 u16 u32 u64 s8 s16 s32 s64 uint8_t uint16_t uint32_t uint64_t int8_t int16_t "
                                "int32_t int64_t uintptr_t intptr_t struct union enum const static volatile ";
    for (const char *p = words; (p = memmem(p, sizeof(words) - 1 - (size_t)(p - words), w, l)); p++)
        if (p[-1] == ' ' && p[l] == ' ') return true;
    return false;
}

/* The type of the declaration `T x = {` whose `=` is at t[eq] (T, or x for
 * `struct { ... } x[] = {`); words that start with `__` after the
 * declarator are attributes (`__initconst`). NULL when none. */
static char *decl_type(const char *t, size_t eq)
{
    size_t j = eq;
    int words = 0;
    char decl[MG_REFS_TYPE_MAX];
    while (j > 0) {
        char c = t[j - 1];
        if (c == '}' && words == 1) return strdup(decl);
        if (strchr(";{}#),=.>(:", c)) return NULL;
        if (c == ']') {
            while (j > 0 && t[j - 1] != '[') j--;
            if (j) j--;
            continue;
        }
        if (!idc(c)) {
            j--;
            continue;
        }
        size_t e = j;
        while (j > 0 && idc(t[j - 1])) j--;
        if (e - j >= sizeof(decl) || (t[j] >= '0' && t[j] <= '9')) return NULL; /* (a number: no declaration) */
        if (words == 0 && e - j > 2 && t[j] == '_' && t[j + 1] == '_') continue;
        if (++words == 1) {
            memcpy(decl, t + j, e - j);
            decl[e - j] = 0;
        } else {
            return basic_type(t + j, e - j) ? NULL : strndup(t + j, e - j);
        }
    }
    return NULL;
}

/* Is brace k an initializer (`= {`)? Where its `=` is, or NONE. */
static size_t init_eq(const struct mg__ptr_scan *s, size_t k)
{
    size_t p = mg_cscan_back(s->t, 0, s->b[k].open, true);
    if (p < 2 || s->t[p - 1] != '=' || strchr("=!<>", s->t[p - 2])) return NONE;
    return p - 1;
}

/* The struct type of the initializer group brace k is, or is an element of
 * (a table's row: `{` after `{` or `,`, outward). NULL: unknown (cached
 * along the way: no brace is asked twice, however deep). */
static const char *init_type(struct mg__ptr_scan *s, size_t k)
{
    size_t j = k;
    while (!s->b[j].typed) {
        struct brace *b = &s->b[j];
        size_t eq = init_eq(s, j), p = mg_cscan_back(s->t, 0, b->open, true);
        if (eq != NONE || p == 0 || (s->t[p - 1] != '{' && s->t[p - 1] != ',') || b->parent == NONE) {
            b->type = eq != NONE ? decl_type(s->t, eq) : NULL;
            b->typed = true;
            break;
        }
        j = b->parent;
    }
    for (size_t i = k; i != j; i = s->b[i].parent) {
        const char *ty = s->b[j].type;
        s->b[i].type = ty ? strdup(ty) : NULL;
        s->b[i].typed = true;
        if (ty && !s->b[i].type) s->oom = true;
    }
    return s->b[k].type;
}

/* ---- 4. stores through members and calls through fields (per identifier) -------------------------------- */

/* A lone function name as an initializer's element or an assignment's right
 * side: `fn` or `&fn`, then `,`, `;` or `}` (a call or an expression is no
 * store). Its length (offset in *at), or 0. */
static size_t lone_name(const char *t, size_t n, size_t i, size_t end, size_t *at)
{
    i = mg_cscan_skip_ws(t, end, i);
    if (i < end && t[i] == '&') i = mg_cscan_skip_ws(t, end, i + 1);
    size_t l = mg_cscan_ident(t, end, i);
    if (!l || (l == 4 && memcmp(t + i, "NULL", 4) == 0)) return 0;
    size_t j = mg_cscan_skip_ws(t, n, i + l);
    if (j >= end || t[j] == ',' || t[j] == ';' || t[j] == '}') {
        *at = i;
        return l;
    }
    return 0;
}

static int line_of(struct mg__ptr_scan *s, size_t off)
{
    if (off < s->line_off) s->line_off = 0, s->line = 1;
    for (; s->line_off < off; s->line_off++) s->line += s->t[s->line_off] == '\n';
    return s->line;
}

static void add(struct mg__ptr_scan *s, size_t at, size_t l, const char *type, const char *field, size_t fl,
                int ordinal, int line)
{
    bool call = l == 0; /* (no function: a call through the field) */
    struct mg_refs_store **v = call ? &s->c : &s->v;
    size_t *n = call ? &s->nc : &s->nv, *cap = call ? &s->capc : &s->capv;
    if (s->oom || *n >= MG_REFS_STORES_MAX) return;
    if (!grow((void **)v, *n, cap, sizeof(**v))) {
        s->oom = true;
        return;
    }
    struct mg_refs_store *r = &(*v)[*n];
    *r = (struct mg_refs_store){call ? NULL : strndup(s->t + at, l), type ? strdup(type) : NULL,
                                field ? strndup(field, fl) : NULL, ordinal, line};
    if ((!call && !r->fn) || (type && !r->type) || (field && !r->field)) {
        free(r->fn);
        free(r->type);
        free(r->field);
        s->oom = true;
        return;
    }
    (*n)++;
}

/* The declared type of the receiver of `o->F` (F at off): in the function
 * around it, else at file scope. */
static bool receiver_type(struct mg__ptr_scan *s, size_t off, char *out, size_t cap)
{
    char name[MG_REFS_TYPE_MAX];
    size_t at;
    if (!mg_cscan_receiver(s->t, 0, off, name, sizeof(name), &at)) return false;
    size_t nl = strlen(name), lo = s->nstk ? s->b[s->stk[0]].item : 0;
    if (s->budget < at) return false; /* a hostile file of stores: the rest unknown */
    s->budget -= at;
    if (mg_cscan_declared(s->t, lo, at, name, nl, out, cap) != NONE) return true;
    for (size_t from = 0; from < lo;) {
        size_t d = mg_cscan_declared(s->t, from, lo, name, nl, out, cap);
        if (d == NONE) return false;
        if (at_file_scope(s, d)) return true;
        from = d + nl;
    }
    return false;
}

/* A call through field F: `o->F(` (F at off, the member's `.` or `->`
 * ending at b), or `OPS(F)(` of a macro of the file. */
static void through(struct mg__ptr_scan *s, size_t off, size_t len, size_t b, bool member, int line)
{
    const char *t = s->t;
    char ty[MG_REFS_TYPE_MAX];
    if (member) {
        braces_to(s, off);
        add(s, 0, 0, receiver_type(s, b, ty, sizeof(ty)) ? ty : NULL, t + off, len, -1, line);
        return;
    }
    size_t m = mg_cscan_back(t, 0, b - 1, false), me = m;
    while (m > 0 && idc(t[m - 1])) m--;
    char f[MG_REFS_TYPE_MAX];
    if (me > m && mg_cscan_macro_field(t, s->n, m, me - m, f, sizeof(f), &s->budget))
        add(s, 0, 0, NULL, t + off, len, -1, line);
}

void mg__ptr_scan_ident(struct mg__ptr_scan *s, size_t off, size_t len, int line, bool call)
{
    const char *t = s->t;
    if (s->oom) return;
    size_t b = mg_cscan_back(t, 0, off, false);
    bool dot = b > 0 && t[b - 1] == '.', arrow = b > 1 && t[b - 1] == '>' && t[b - 2] == '-';
    if (call || (!dot && !arrow)) {
        if (call ? dot || arrow : b > 0 && t[b - 1] == '(') through(s, off, len, b, call, line);
        return;
    }
    size_t e = mg_cscan_skip_ws(t, s->n, off + len);
    if (e + 1 >= s->n || t[e] != '=' || t[e + 1] == '=') return;
    size_t at, l = lone_name(t, s->n, e + 1, s->n, &at);
    if (!l) return;
    braces_to(s, off);
    char ty[MG_REFS_TYPE_MAX];
    const char *type = NULL;
    if (dot && !(b > 1 && (idc(t[b - 2]) || t[b - 2] == ']' || t[b - 2] == ')'))) { /* designated */
        if (s->nstk) type = init_type(s, s->stk[s->nstk - 1]);
    } else if (receiver_type(s, b, ty, sizeof(ty))) {
        type = ty;
    }
    add(s, at, l, type, t + off, len, -1, line);
}

/* ---- 5. positional stores, the end of a scan ------------------------------------------------------------ */

/* The elements of group brace k of type ty that are lone names, by place,
 * up to a designated one. */
static void positional(struct mg__ptr_scan *s, size_t k, const char *ty)
{
    const char *t = s->t;
    size_t lo = s->b[k].open + 1, hi = s->b[k].close, el = 0, start = lo;
    for (size_t i = lo; i <= hi && !s->oom;) {
        size_t j = i < hi ? skip_literal(t, hi, i) : i;
        if (j == i && i < hi && (t[i] == '{' || t[i] == '(' || t[i] == '[')) j = group_end(t, hi, i);
        if (j != i) {
            i = j;
            continue;
        }
        if (i == hi || t[i] == ',') {
            size_t a = mg_cscan_skip_ws(t, hi, start);
            if (a < hi && (t[a] == '.' || t[a] == '[')) return; /* designated */
            size_t at, l = lone_name(t, i, a, i, &at);
            if (l) add(s, at, l, ty, NULL, 0, (int)el, line_of(s, at));
            el++;
            start = i + 1;
        }
        i++;
    }
}

struct mg__ptr_scan *mg__ptr_scan_new(const char *lang, const char *text, size_t len, bool *oom)
{
    *oom = false;
    if (strcmp(lang, "c") != 0 && strcmp(lang, "cpp") != 0) return NULL;
    struct mg__ptr_scan *s = calloc(1, sizeof(*s));
    if (!s) {
        *oom = true;
        return NULL;
    }
    s->t = text;
    s->n = len;
    s->line = 1;
    s->budget = MG_REFS_DECL_BUDGET;
    if (!read_braces(s)) {
        struct mg_refs_store *v, *c;
        size_t n, nc;
        s->oom = *oom = true;
        mg__ptr_scan_end(s, &v, &n, &c, &nc);
        return NULL;
    }
    return s;
}

int mg__ptr_scan_end(struct mg__ptr_scan *s, struct mg_refs_store **out, size_t *n, struct mg_refs_store **calls,
                     size_t *nc)
{
    *out = *calls = NULL;
    *n = *nc = 0;
    for (size_t k = 0; k < s->nb && !s->oom; k++) { /* each initializer `= {` of a struct type */
        if (s->b[k].close >= s->n || init_eq(s, k) == NONE) continue;
        const char *ty = init_type(s, k);
        if (!ty) continue;
        size_t a = mg_cscan_skip_ws(s->t, s->b[k].close, s->b[k].open + 1);
        if (a < s->b[k].close && s->t[a] == '{') { /* a table: each row a group */
            for (size_t r = k + 1; r < s->nb && s->b[r].open < s->b[k].close && !s->oom; r++)
                if (s->b[r].parent == k && s->b[r].close < s->n) positional(s, r, ty);
        } else {
            positional(s, k, ty);
        }
    }
    for (size_t k = 0; k < s->nb; k++) free(s->b[k].type);
    free(s->b);
    free(s->top);
    free(s->stk);
    int rc = s->oom ? -1 : 0;
    if (rc == 0) {
        *out = s->v;
        *n = s->nv;
        *calls = s->c;
        *nc = s->nc;
    } else {
        mg_refs_stores_free(s->v, s->nv);
        mg_refs_stores_free(s->c, s->nc);
    }
    free(s);
    return rc;
}

void mg_refs_stores_free(struct mg_refs_store *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].fn);
        free(v[i].type);
        free(v[i].field);
    }
    free(v);
}
