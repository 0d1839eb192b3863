/* nav_ptr.c — C and C++ function pointers (nav_int.h): the functions stored
 * into a struct's field, the callees of a call through that field.
 *
 * A function is stored into field F by a designated initializer
 * (`.F = fn`, `.F = &fn`), an assignment (`o->F = fn;`, `s.F = fn;`) or a
 * positional initializer (`struct T x = {a, fn}`, arrays of them, and an
 * anonymous struct's variable) at F's place among T's fields (the symbols
 * table lists fields with their struct as container, in order). A call
 * `o->F(...)` or `s.F(...)` then calls every function stored into F of o's
 * struct type (when o's declaration names one of the structs with F; else
 * of any), confidence "pointer". `#define OPS(op) (p->ops->op)` makes
 * `OPS(read)(...)` a call through field read. Read from stored text at query
 * time, cached per request by field name.
 *
 * Sections:
 *   1. scanning C text
 *   2. the stores of a field
 *   3. a call through a field
 *   4. the calls through the fields a function is stored into
 */
#include "search/nav_int.h"

#include <stdlib.h>
#include <string.h>

#include "index/lex.h"
#include "store/tokenize.h"
#include "util/buf.h"

#define PTR_INIT_MAX (1u << 20) /* bytes of one initializer read at most */
#define PTR_FILES_MAX 2000 /* a field or struct named in more files is not followed (linux read: 9,000) */

/* ---- 1. scanning C text ------------------------------------------------------------------------------ */

static bool is_c(const char *lang) { return strcmp(lang, "c") == 0 || strcmp(lang, "cpp") == 0; }
static bool idc(char c) { return mg_lex_id_char((unsigned char)c); }
static size_t skip_ws(const char *t, size_t n, size_t i)
{
    for (;;) {
        while (i < n && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r')) i++;
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

/* Past a string or character literal starting at t[i] (a quote). */
static size_t skip_quoted(const char *t, size_t n, size_t i)
{
    char q = t[i++];
    while (i < n && t[i] != q && t[i] != '\n') i += t[i] == '\\' ? 2 : 1;
    return i < n ? i + 1 : n;
}

/* The identifier at t[i] (its length; 0: none). */
static size_t ident_at(const char *t, size_t n, size_t i)
{
    if (i >= n || !idc(t[i]) || (t[i] >= '0' && t[i] <= '9')) return 0;
    size_t e = i;
    while (e < n && idc(t[e])) e++;
    return e - i;
}

/* A lone function name as an initializer's element or an assignment's right
 * side: `fn` or `&fn`, then `,`, `;` or `}` (a call or an expression is no
 * store). Its offset and length, or 0. */
static size_t lone_name(const char *t, size_t n, size_t i, size_t end, size_t *at)
{
    i = skip_ws(t, end, i);
    if (i < end && t[i] == '&') i = skip_ws(t, end, i + 1);
    size_t l = ident_at(t, end, i);
    if (!l) return 0;
    size_t j = skip_ws(t, n, i + l);
    if (j >= end || t[j] == ',' || t[j] == ';' || t[j] == '}') {
        *at = i;
        return l;
    }
    return 0;
}

/* Past the bracketed group at t[i] (`{`, `(` or `[`), or n. */
static size_t group_end(const char *t, size_t n, size_t i)
{
    int depth = 0;
    size_t cap = i + PTR_INIT_MAX < n ? i + PTR_INIT_MAX : n;
    while (i < cap) {
        char c = t[i];
        if (c == '"' || c == '\'') {
            i = skip_quoted(t, cap, i);
            continue;
        }
        if (c == '/' && i + 1 < cap && (t[i + 1] == '*' || t[i + 1] == '/')) {
            i = skip_ws(t, cap, i);
            continue;
        }
        if (c == '{' || c == '(' || c == '[') depth++;
        else if ((c == '}' || c == ')' || c == ']') && --depth == 0) return i + 1;
        i++;
    }
    return n;
}

static bool receiver_type(const struct file *fl, size_t lo, size_t end, char *out, size_t cap);

/* More than PTR_FILES_MAX files hold word (seconds to read)? -1 on error. */
static int too_common(struct nav *v, const char *word)
{
    size_t n = 0;
    if (mg__nav_word_files(v, word, PTR_FILES_MAX, &n) != 0) return -1;
    return n > PTR_FILES_MAX;
}

/* ---- 2. the stores of a field ------------------------------------------------------------------------ */

struct store_scan {
    struct ptrs *p;
    const char *field;
    const char *container; /* positional: the struct whose initializers are read */
    size_t ordinal;        /* positional: the field's place among its struct's */
    bool failed;
};

static int add_store(struct store_scan *s, const char *t, size_t at, size_t l, const char *container, int64_t fid)
{
    struct ptr_store *nv = mg_grow(s->p->v, s->p->n, &s->p->cap, sizeof(*nv));
    char *name = nv ? strndup(t + at, l) : NULL;
    char *cont = name && container ? strdup(container) : NULL;
    if (nv) s->p->v = nv;
    if (!name || (container && !cont)) {
        free(name);
        s->failed = true;
        return -1;
    }
    for (size_t i = 0; i < s->p->n; i++) /* once per name, container and file */
        if (strcmp(s->p->v[i].name, name) == 0 && s->p->v[i].fid == fid &&
            ((!cont && !s->p->v[i].container) ||
             (cont && s->p->v[i].container && strcmp(cont, s->p->v[i].container) == 0))) {
            free(name);
            free(cont);
            return 0;
        }
    s->p->v[s->p->n++] = (struct ptr_store){name, cont, fid};
    return 0;
}

/* The struct type an initializer `= {` at t[brace] belongs to: the last type
 * word of the declaration before `=` (`static const struct T x[] = {` -> T),
 * through enclosing braces of an array or a nested initializer; an
 * anonymous struct's variable is its own type. NULL when none is found;
 * out holds the name. */
static const char *init_type(const char *t, size_t brace, char *out, size_t cap)
{
    size_t i = brace;
    int depth = 0;
    while (i > 0) { /* to the outermost `{` preceded by `=` */
        char c = t[--i];
        if (c == '}') depth++;
        else if (c == '{' && depth > 0) depth--;
        else if (c == '{') {
            size_t j = i;
            while (j > 0 && (t[j - 1] == ' ' || t[j - 1] == '\t' || t[j - 1] == '\n')) j--;
            if (j > 0 && t[j - 1] == '=') {
                brace = i;
                break;
            }
        } else if (c == ';' && depth == 0) {
            return NULL;
        }
    }
    size_t j = brace;
    while (j > 0 && t[j - 1] != '=') j--;
    if (j == 0) return NULL;
    j--;
    /* words back to the declaration's start: the declarator, then its type */
    int words = 0;
    while (j > 0) {
        char c = t[j - 1];
        if (c == '}' && words == 1) return out; /* `struct { ... } name[] = {`: the variable names it */
        if (c == ';' || c == '{' || c == '}' || c == '#' || c == ')') return NULL;
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
        if (++words == 1) {
            if (e - j >= cap) return NULL;
            memcpy(out, t + j, e - j);
            out[e - j] = 0;
        } else {
            if (e - j >= cap) return NULL;
            memcpy(out, t + j, e - j);
            out[e - j] = 0;
            return strcmp(out, "struct") && strcmp(out, "const") && strcmp(out, "static") ? out : NULL;
        }
    }
    return NULL;
}

/* Designated initializers and assignments of the field in one file. */
static int stores_designated(struct nav *v, struct file *fl, void *ud)
{
    struct store_scan *s = ud;
    if (!is_c(fl->lang)) return 0;
    struct occs o = {0};
    if (mg__nav_file_occs(v, fl, s->field, &o) != 0) {
        free(o.v);
        return -1;
    }
    const char *t = fl->text;
    size_t fl_len = fl->len, nl = strlen(s->field);
    for (size_t k = 0; k < o.n && !s->failed; k++) {
        size_t off = o.v[k].off, b = off;
        if (o.v[k].def || !mg__nav_member(t, off)) continue;
        while (b > 0 && (t[b - 1] == ' ' || t[b - 1] == '\t')) b--;
        bool designated = t[b - 1] == '.' && !(b > 1 && idc(t[b - 2])) && !(b > 1 && t[b - 2] == ']') &&
                          !(b > 1 && t[b - 2] == ')');
        if (t[b - 1] == ':') continue;
        size_t e = skip_ws(t, fl_len, off + nl);
        if (e >= fl_len || t[e] != '=' || (e + 1 < fl_len && t[e + 1] == '=')) continue;
        size_t at, l = lone_name(t, fl_len, e + 1, fl_len, &at);
        if (!l) continue;
        char ty[128];
        const char *cont = NULL;
        if (!designated) { /* an assignment: the receiver's declared type */
            const struct mg_nav_def *fn = mg__nav_enclosing(fl, o.v[k].line, true);
            size_t lo = 0;
            for (int line = 1; fn && line < fn->start_line && lo < fl_len; lo++)
                if (t[lo] == '\n') line++;
            if (receiver_type(fl, lo, b, ty, sizeof(ty))) cont = ty;
        } else { /* the initializer's struct type */
            size_t i = b - 1;
            int depth = 0;
            while (i > 0) {
                char c = t[--i];
                if (c == '}') depth++;
                else if (c == '{' && depth-- == 0) break;
            }
            if (t[i] == '{') cont = init_type(t, i, ty, sizeof(ty));
        }
        add_store(s, t, at, l, cont, fl->id);
    }
    free(o.v);
    return s->failed ? mg_err_oom(v->err) : 0;
}

/* The ordinal-th element of the initializer group t[lo, hi) (inside its
 * braces), when it is a lone name and no element is designated. */
static void positional_element(struct store_scan *s, const char *t, size_t lo, size_t hi, int64_t fid)
{
    size_t el = 0, start = lo;
    for (size_t i = lo; i <= hi && !s->failed;) {
        if (i < hi && (t[i] == '"' || t[i] == '\'')) {
            i = skip_quoted(t, hi, i);
            continue;
        }
        if (i < hi && (t[i] == '{' || t[i] == '(' || t[i] == '[')) {
            i = group_end(t, hi, i);
            continue;
        }
        if (i < hi && t[i] == '/' && i + 1 < hi && (t[i + 1] == '*' || t[i + 1] == '/')) {
            i = skip_ws(t, hi, i);
            continue;
        }
        if (i == hi || t[i] == ',') {
            size_t a = skip_ws(t, hi, start);
            if (a < hi && t[a] == '.') return; /* designated: read by stores_designated */
            if (el == s->ordinal) {
                size_t at, l = lone_name(t, i, a, i, &at);
                if (l) add_store(s, t, at, l, s->container, fid);
                return;
            }
            el++;
            start = i + 1;
        }
        i++;
    }
}

/* The initializer `{` at t[i]: one group, or an array of groups. */
static void positional_init(struct store_scan *s, const char *t, size_t n, size_t i, int64_t fid)
{
    size_t end = group_end(t, n, i);
    size_t a = skip_ws(t, end, i + 1);
    if (a < end && t[a] == '{') { /* an array: each element a group */
        for (size_t j = a; j < end && !s->failed;) {
            j = skip_ws(t, end, j);
            if (j >= end || t[j] != '{') {
                j++;
                continue;
            }
            size_t ge = group_end(t, end, j);
            positional_element(s, t, j + 1, ge - 1, fid);
            j = ge;
        }
    } else {
        positional_element(s, t, i + 1, end - 1, fid);
    }
}

/* After a type at t[i]: a declarator `x`, `x[N]`, then `= {`: the brace's offset, or 0. */
static size_t declarator_init(const char *t, size_t n, size_t i)
{
    i = skip_ws(t, n, i);
    size_t l = ident_at(t, n, i);
    if (!l) return 0;
    i = skip_ws(t, n, i + l);
    while (i < n && t[i] == '[') i = skip_ws(t, n, group_end(t, n, i));
    if (i >= n || t[i] != '=') return 0;
    i = skip_ws(t, n, i + 1);
    return i < n && t[i] == '{' ? i : 0;
}

/* Positional initializers of struct container in one file. */
static int stores_positional(struct nav *v, struct file *fl, void *ud)
{
    struct store_scan *s = ud;
    if (!is_c(fl->lang)) return 0;
    const char *t = fl->text;
    size_t cl = strlen(s->container);
    for (const char *p = t; !s->failed && (p = memmem(p, fl->len - (size_t)(p - t), s->container, cl)); p += cl) {
        size_t at = (size_t)(p - t);
        if ((at > 0 && idc(t[at - 1])) || (at + cl < fl->len && idc(t[at + cl]))) continue;
        size_t b = declarator_init(t, fl->len, at + cl);
        if (b) positional_init(s, t, fl->len, b, fl->id);
    }
    return s->failed ? mg_err_oom(v->err) : 0;
}

/* An anonymous struct's variable (`static const struct { ... } x[] = {`):
 * the initializer right after the struct's body. */
static void stores_anonymous(struct store_scan *s, struct file *fl, const struct mg_nav_def *var)
{
    const char *t = fl->text;
    size_t off = 0;
    for (int line = 1; line < var->start_line && off < fl->len; off++)
        if (t[off] == '\n') line++;
    const char *ob = memchr(t + off, '{', fl->len - off);
    if (!ob) return;
    size_t e = group_end(t, fl->len, (size_t)(ob - t));
    size_t b = declarator_init(t, fl->len, e);
    if (b) positional_init(s, t, fl->len, b, fl->id);
}

/* The structs that have field `field` (their containers) and, for each, its
 * positional initializers. */
static int field_structs(struct nav *v, struct store_scan *s)
{
    struct resolved *r = mg__nav_defs_of(v, s->field);
    if (!r) return -1;
    /* copy first: reading other names may move the cache */
    size_t n = r->n, nf = 0;
    for (size_t i = 0; i < n; i++) {
        struct file *fl;
        const struct mg_nav_def *d = mg__nav_resolved_def(v, r, i, &fl);
        nf += d && strcmp(d->kind, "field") == 0;
    }
    if (nf > 64) return 0; /* a field of that many structs (count, ops): not followed */
    int64_t *fid = n ? malloc(n * sizeof(*fid)) : NULL;
    size_t *idx = n ? malloc(n * sizeof(*idx)) : NULL;
    if (n && (!fid || !idx)) {
        free(fid);
        free(idx);
        return mg_err_oom(v->err);
    }
    if (n) {
        memcpy(fid, r->fid, n * sizeof(*fid));
        memcpy(idx, r->idx, n * sizeof(*idx));
    }
    struct resolved rc = {.fid = fid, .idx = idx, .n = n};
    int rv = 0;
    for (size_t i = 0; i < n && rv == 0; i++) {
        struct file *fl;
        const struct mg_nav_def *d = mg__nav_resolved_def(v, &rc, i, &fl);
        if (!d || !is_c(fl->lang) || strcmp(d->kind, "field") != 0 || !d->container) continue;
        if (!(fl = mg__nav_file(v, fl->id, true))) {
            rv = v->err->code ? -1 : 0;
            continue;
        }
        /* the field's place: fields of the same container before it, in the struct around it */
        const struct mg_nav_def *outer = NULL;
        size_t ord = 0;
        for (size_t k = 0; k < fl->ndefs; k++) {
            const struct mg_nav_def *o = &fl->defs[k];
            if (o->start_line <= d->start_line && o->end_line >= d->end_line && o != d && strcmp(o->kind, "field") &&
                (!outer || o->start_line >= outer->start_line))
                outer = o;
        }
        for (size_t k = 0; k < fl->ndefs; k++) {
            const struct mg_nav_def *o = &fl->defs[k];
            if (o != d && strcmp(o->kind, "field") == 0 && o->container && strcmp(o->container, d->container) == 0 &&
                (o->start_line < d->start_line || (o->start_line == d->start_line && k < (size_t)(d - fl->defs))) &&
                (!outer || o->start_line >= outer->start_line))
                ord++;
        }
        char **nc = mg_grow(s->p->conts, s->p->nconts, &s->p->capconts, sizeof(*nc));
        if (nc) s->p->conts = nc;
        if (!nc || !(s->p->conts[s->p->nconts] = strdup(d->container))) {
            rv = mg_err_oom(v->err);
            break;
        }
        s->p->nconts++;
        s->container = d->container;
        s->ordinal = ord;
        if (outer && strcmp(outer->kind, "variable") == 0 && outer->name && strcmp(outer->name, d->container) == 0) {
            stores_anonymous(s, fl, outer);
            if (s->failed) rv = mg_err_oom(v->err);
        } else {
            char *cont = strdup(d->container); /* the candidates' callbacks may read other files' defs */
            if (!cont) {
                rv = mg_err_oom(v->err);
                break;
            }
            s->container = cont;
            int c = too_common(v, cont);
            if (c == 0) c = mg__nav_candidates(v, cont, NULL, stores_positional, s, NULL);
            free(cont);
            if (c < 0) rv = -1;
        }
    }
    free(fid);
    free(idx);
    return rv;
}

/* The stores of field, read once per request. NULL with err on failure. */
static struct ptrs *field_stores(struct nav *v, const char *field)
{
    for (size_t i = 0; i < v->nptrs; i++)
        if (strcmp(v->ptrs[i].field, field) == 0) return &v->ptrs[i];
    struct ptrs *np = mg_grow(v->ptrs, v->nptrs, &v->capptrs, sizeof(*np));
    if (!np) return mg_err_oom(v->err), NULL;
    v->ptrs = np;
    struct ptrs *p = &v->ptrs[v->nptrs];
    memset(p, 0, sizeof(*p));
    if (!(p->field = strdup(field))) return mg_err_oom(v->err), NULL;
    v->nptrs++;
    size_t at = v->nptrs - 1;
    const int64_t *only = v->only; /* a callers walk's narrowing is not the stores' */
    size_t nonly = v->nonly;
    v->only = NULL;
    v->nonly = 0;
    struct store_scan s = {.p = p, .field = p->field};
    int rc = too_common(v, p->field);
    if (rc != 0) { /* a field named everywhere: resolved by name, as other calls */
        v->only = only;
        v->nonly = nonly;
        return rc > 0 ? &v->ptrs[at] : NULL;
    }
    rc = field_structs(v, &s);
    p = &v->ptrs[at]; /* unmoved: nothing above reads another field's stores */
    if (rc == 0 && p->nconts > 0) /* else no struct has the field: nothing stores into it */
        rc = mg__nav_candidates(v, p->field, NULL, stores_designated, &s, NULL) < 0 ? -1 : 0;
    v->only = only;
    v->nonly = nonly;
    return rc == 0 ? p : NULL;
}

/* ---- 3. a call through a field ----------------------------------------------------------------------- */

/* The first declaration of the identifier name (nl bytes) in t[lo, end):
 * the type word before it (`struct T *o` -> T) copied to out; `}` before it
 * (a variable of an anonymous struct): the name itself. */
static bool declared_type(const char *t, size_t lo, size_t end, const char *name, size_t nl, char *out, size_t cap)
{
    for (const char *p = t + lo; (p = memmem(p, (size_t)(t + end - p), name, nl)); p += nl) {
        size_t at = (size_t)(p - t);
        if ((at > lo && idc(t[at - 1])) || (at + nl < end && idc(t[at + nl]))) continue;
        size_t a = skip_ws(t, end, at + nl);
        if (a >= end || !(t[a] == ';' || t[a] == ',' || t[a] == ')' || t[a] == '=' || t[a] == '[')) continue;
        size_t j = at;
        while (j > lo && (t[j - 1] == ' ' || t[j - 1] == '\t' || t[j - 1] == '*' || t[j - 1] == '\n')) j--;
        if (j > lo && t[j - 1] == '}' && nl < cap) { /* static struct { ... } name[] */
            memmove(out, name, nl);
            out[nl] = 0;
            return true;
        }
        size_t te = j;
        while (j > lo && idc(t[j - 1])) j--;
        if (te == j || (te - j == 6 && memcmp(t + j, "return", 6) == 0)) continue; /* a use, `return x;` */
        if (te - j >= cap) return false;
        memmove(out, t + j, te - j);
        out[te - j] = 0;
        return true;
    }
    return false;
}

/* The declared type of the receiver ending at t[end) (the identifier before
 * `->` or `.`, past an index `[..]`): declared in the calling function
 * (t[lo, end)), else a variable of the file. */
static bool receiver_type(const struct file *fl, size_t lo, size_t end, char *out, size_t cap)
{
    const char *t = fl->text;
    size_t i = end;
    while (i > lo && (t[i - 1] == ' ' || t[i - 1] == '\t')) i--;
    if (i > lo && t[i - 1] == '>') i -= 2;
    else if (i > lo && t[i - 1] == '.') i--;
    else return false;
    while (i > lo && (t[i - 1] == ' ' || t[i - 1] == '\t')) i--;
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
    size_t rl = e - i;
    char name[128];
    if (!rl || rl >= sizeof(name)) return false;
    memcpy(name, t + i, rl);
    name[rl] = 0;
    /* the receiver must be a plain variable, not a field of something */
    size_t b = i;
    while (b > lo && (t[b - 1] == ' ' || t[b - 1] == '\t')) b--;
    if (b > lo && (t[b - 1] == '.' || t[b - 1] == '>')) return false;
    if (declared_type(t, lo, i, name, rl, out, cap)) return true;
    for (size_t k = 0; k < fl->ndefs; k++) {
        const struct mg_nav_def *d = &fl->defs[k];
        if (strcmp(d->kind, "variable") != 0 || strcmp(d->name, name) != 0) continue;
        size_t s = 0;
        for (int line = 1; line < d->start_line && s < fl->len; s++)
            if (t[s] == '\n') line++;
        size_t e2 = s;
        for (int line = d->start_line; line <= d->end_line && e2 < fl->len; e2++)
            if (t[e2] == '\n') line++;
        return declared_type(t, s, e2, name, rl, out, cap);
    }
    return false;
}

int mg__nav_field_call(struct nav *v, struct file *fl, size_t lo, size_t off, const char *field, struct ptrs **p,
                       char *type, size_t cap)
{
    *p = NULL;
    type[0] = 0;
    if (!is_c(fl->lang)) return 0;
    bool macro = off == SIZE_MAX;
    size_t b = off;
    if (!macro) {
        if (!mg__nav_member(fl->text, off)) return 0;
        while (b > 0 && (fl->text[b - 1] == ' ' || fl->text[b - 1] == '\t')) b--;
        if (fl->text[b - 1] == ':') return 0;
    }
    if (!(*p = field_stores(v, field))) return -1;
    if (macro || !receiver_type(fl, lo, b, type, cap)) type[0] = 0;
    bool known = false;
    for (size_t i = 0; i < (*p)->nconts && !known && type[0]; i++) known = strcmp((*p)->conts[i], type) == 0;
    if (!known) type[0] = 0;
    return 0;
}

int mg__nav_pointer_call(struct nav *v, struct file *fl, size_t off, int line, const char *field, bool *yes)
{
    *yes = false;
    if (!is_c(fl->lang) || !mg__nav_member(fl->text, off)) return 0;
    const struct mg_nav_def *fn = mg__nav_enclosing(fl, line, true);
    size_t lo = 0;
    for (int l = 1; fn && l < fn->start_line && lo < fl->len; lo++)
        if (fl->text[lo] == '\n') l++;
    struct ptrs *p;
    char type[128];
    if (mg__nav_field_call(v, fl, lo, off, field, &p, type, sizeof(type)) != 0) return -1;
    for (size_t i = 0; p && i < p->n && !*yes; i++)
        *yes = !type[0] || !p->v[i].container || strcmp(p->v[i].container, type) == 0;
    return 0;
}

bool mg__nav_macro_field(struct nav *v, const struct file *fl, size_t off, size_t len, char *field, size_t cap)
{
    if (!is_c(fl->lang)) return false;
    const char *t = fl->text;
    size_t i = skip_ws(t, fl->len, off + len);
    if (i >= fl->len || t[i] != '(') return false;
    size_t a = skip_ws(t, fl->len, i + 1), l = ident_at(t, fl->len, a);
    if (!l || l >= cap) return false;
    size_t c = skip_ws(t, fl->len, a + l);
    if (c >= fl->len || t[c] != ')') return false;
    c = skip_ws(t, fl->len, c + 1);
    if (c >= fl->len || t[c] != '(') return false;
    /* the macro's definition: `#define NAME(P) (... ->P)` in the caller's file */
    for (size_t k = 0; k < fl->ndefs; k++) {
        const struct mg_nav_def *d = &fl->defs[k];
        if (strcmp(d->kind, "macro") != 0 || strlen(d->name) != len || memcmp(d->name, t + off, len) != 0) continue;
        size_t s = 0;
        for (int line = 1; line < d->start_line && s < fl->len; s++)
            if (t[s] == '\n') line++;
        const char *nl = memchr(t + s, '\n', fl->len - s);
        size_t e = nl ? (size_t)(nl - t) : fl->len;
        const char *nm = memmem(t + s, e - s, d->name, len);
        if (!nm || nm[len] != '(') return false;
        size_t ps = (size_t)(nm - t) + len + 1, pl = ident_at(t, e, ps);
        if (!pl || ps + pl >= e || t[ps + pl] != ')') return false;
        size_t q = e;
        while (q > ps && (t[q - 1] == ' ' || t[q - 1] == '\t' || t[q - 1] == ')')) q--;
        if (q < pl || memcmp(t + q - pl, t + ps, pl) != 0 || idc(t[q - pl - 1])) return false;
        size_t m = q - pl;
        if (!(t[m - 1] == '.' || (t[m - 1] == '>' && t[m - 2] == '-'))) return false;
        memcpy(field, t + a, l);
        field[l] = 0;
        return true;
    }
    return false;
}

/* ---- 4. the calls through the fields a function is stored into --------------------------------------- */

struct site_scan {
    const char *name;     /* the function */
    char **fields;        /* fields it may be stored into, and with them the struct (NULL: any) */
    size_t nfields, capfields;
    const char *field;    /* the field whose calls are looked for */
    struct ptrs *p;
    struct ptr_site *v;
    size_t n, cap;
    bool failed;
};

static void add_field(struct site_scan *s, const char *t, size_t l)
{
    for (size_t i = 0; i < s->nfields; i++)
        if (strlen(s->fields[i]) == l && memcmp(s->fields[i], t, l) == 0) return;
    char **nf = mg_grow(s->fields, s->nfields, &s->capfields, sizeof(*nf));
    char *c = nf ? strndup(t, l) : NULL;
    if (nf) s->fields = nf;
    if (!c) {
        s->failed = true;
        return;
    }
    s->fields[s->nfields++] = c;
}

/* The fields of struct (or anonymous struct variable) cont, as candidates. */
static int fields_of(struct nav *v, struct site_scan *s, const char *cont)
{
    struct resolved *r = mg__nav_defs_of(v, cont);
    if (!r) return -1;
    for (size_t i = 0; i < r->n && !s->failed; i++) {
        struct file *fl;
        const struct mg_nav_def *d = mg__nav_resolved_def(v, r, i, &fl);
        if (!d || !is_c(fl->lang) || (strcmp(d->kind, "struct") != 0 && strcmp(d->kind, "variable") != 0)) continue;
        for (size_t k = 0; k < fl->ndefs; k++) {
            const struct mg_nav_def *f = &fl->defs[k];
            if (strcmp(f->kind, "field") == 0 && f->container && strcmp(f->container, cont) == 0 &&
                f->start_line >= d->start_line && f->end_line <= d->end_line)
                add_field(s, f->name, strlen(f->name));
        }
    }
    return s->failed ? mg_err_oom(v->err) : 0;
}

/* Where the function's name is stored in one file: the fields it may go to. */
static int stored_where(struct nav *v, struct file *fl, void *ud)
{
    struct site_scan *s = ud;
    if (!is_c(fl->lang)) return 0;
    struct occs o = {0};
    if (mg__nav_file_occs(v, fl, s->name, &o) != 0) {
        free(o.v);
        return -1;
    }
    const char *t = fl->text;
    int rc = 0;
    for (size_t k = 0; k < o.n && rc == 0 && !s->failed; k++) {
        if (o.v[k].def || o.v[k].call) continue;
        size_t b = o.v[k].off;
        while (b > 0 && (t[b - 1] == ' ' || t[b - 1] == '\t' || t[b - 1] == '\n')) b--;
        if (b > 0 && t[b - 1] == '&') b--;
        while (b > 0 && (t[b - 1] == ' ' || t[b - 1] == '\t' || t[b - 1] == '\n')) b--;
        if (b > 1 && t[b - 1] == '=' && !strchr("=!<>+-*/%&|^", t[b - 2])) { /* .F = fn, o->F = fn */
            b--;
            while (b > 0 && (t[b - 1] == ' ' || t[b - 1] == '\t')) b--;
            size_t e = b;
            while (b > 0 && idc(t[b - 1])) b--;
            if (e > b && mg__nav_member(t, b)) add_field(s, t + b, e - b);
            continue;
        }
        /* an element of an initializer: the fields of its struct */
        size_t i = o.v[k].off;
        int depth = 0;
        while (i > 0 && o.v[k].off - i < PTR_INIT_MAX) {
            char c = t[--i];
            if (c == ';' && depth == 0) break;
            if (c == '}') depth++;
            else if (c == '{' && depth-- == 0) break;
        }
        char ty[128];
        const char *cont = t[i] == '{' ? init_type(t, i, ty, sizeof(ty)) : NULL;
        if (cont) rc = fields_of(v, s, cont);
    }
    free(o.v);
    if (s->failed) return mg_err_oom(v->err);
    return rc;
}

static int add_site(struct site_scan *s, struct file *fl, int line, int64_t store_fid)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].fid == fl->id && s->v[i].line == line) return 0;
    struct ptr_site *nv = mg_grow(s->v, s->n, &s->cap, sizeof(*nv));
    if (!nv) return -1;
    s->v = nv;
    s->v[s->n++] = (struct ptr_site){fl->id, line, store_fid};
    return 0;
}

/* The calls through s->field in one file that reach a store of s->name. */
static int calls_through(struct nav *v, struct file *fl, void *ud)
{
    struct site_scan *s = ud;
    if (!is_c(fl->lang)) return 0;
    struct occs o = {0};
    if (mg__nav_file_occs(v, fl, s->field, &o) != 0) {
        free(o.v);
        return -1;
    }
    const char *t = fl->text;
    int rc = 0;
    for (size_t k = 0; k < o.n && rc == 0; k++) {
        if (o.v[k].def) continue;
        size_t off = o.v[k].off, nl = strlen(s->field);
        char type[128] = "";
        if (!o.v[k].call) { /* OPS(field)( */
            size_t b = off, a = skip_ws(t, fl->len, off + nl);
            while (b > 0 && (t[b - 1] == ' ' || t[b - 1] == '\t')) b--;
            if (b == 0 || t[b - 1] != '(' || a >= fl->len || t[a] != ')') continue;
            size_t m = b - 1;
            while (m > 0 && (t[m - 1] == ' ' || t[m - 1] == '\t')) m--;
            size_t me = m;
            while (m > 0 && idc(t[m - 1])) m--;
            char f[MG_TOKEN_MAX * 4];
            if (me == m || !mg__nav_macro_field(v, fl, m, me - m, f, sizeof(f)) || strcmp(f, s->field) != 0) continue;
        } else {
            const struct mg_nav_def *fn = mg__nav_enclosing(fl, o.v[k].line, true);
            size_t lo = 0;
            for (int line = 1; fn && line < fn->start_line && lo < fl->len; lo++)
                if (t[lo] == '\n') line++;
            struct ptrs *p;
            if (mg__nav_field_call(v, fl, lo, off, s->field, &p, type, sizeof(type)) != 0) {
                rc = -1;
                break;
            }
            if (!p) continue;
        }
        for (size_t i = 0; i < s->p->n; i++) {
            const struct ptr_store *st = &s->p->v[i];
            if (strcmp(st->name, s->name) != 0 || (type[0] && st->container && strcmp(st->container, type) != 0))
                continue;
            if (add_site(s, fl, o.v[k].line, st->fid) != 0) rc = mg_err_oom(v->err);
            break;
        }
    }
    free(o.v);
    return rc;
}

int mg__nav_ptr_callers(struct nav *v, const char *name, struct ptr_site **out, size_t *nout)
{
    *out = NULL;
    *nout = 0;
    struct site_scan s = {.name = name};
    int rc = mg__nav_candidates(v, name, NULL, stored_where, &s, NULL) < 0 ? -1 : 0;
    for (size_t i = 0; rc == 0 && i < s.nfields; i++) {
        struct ptrs *p = field_stores(v, s.fields[i]);
        if (!p) {
            rc = -1;
            break;
        }
        bool stored = false;
        for (size_t k = 0; k < p->n && !stored; k++) stored = strcmp(p->v[k].name, name) == 0;
        if (!stored) continue;
        /* field_stores may move v->ptrs (not a field's stores, read once): scan with a copy */
        struct ptrs copy = *p;
        s.field = s.fields[i];
        s.p = &copy;
        if (mg__nav_candidates(v, s.field, NULL, calls_through, &s, NULL) < 0) rc = -1;
    }
    for (size_t i = 0; i < s.nfields; i++) free(s.fields[i]);
    free(s.fields);
    if (rc != 0) {
        free(s.v);
        return -1;
    }
    *out = s.v;
    *nout = s.n;
    return 0;
}
