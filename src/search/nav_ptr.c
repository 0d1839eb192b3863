/* nav_ptr.c — C and C++ function pointers (nav_int.h): the functions stored
 * into a struct's field, the callees of a call through that field.
 *
 * The indexer records each store (index/refs_ptr.h, table ptr_stores): a
 * designated initializer (`.F = fn`), an assignment (`o->F = fn;`) or a
 * positional initializer (`struct T x = {a, fn}`, tables of them, and an
 * anonymous struct's variable), the last by its place among T's fields. A
 * call `o->F(...)` or `s.F(...)` calls every function stored into F of o's
 * struct type (when o's declaration names one of the structs with F; else
 * of any), confidence "pointer": the stores named F, and the positional
 * ones at F's place in each struct that has F (the symbols table lists
 * fields with their struct as container, in order). `#define OPS(op)
 * (p->ops->op)` makes `OPS(read)(...)` a call through field read. Looked up
 * once per request and field. The calls through a field a function's
 * callers come from are the indexer's too (table ptr_calls, with the
 * receiver's declared type); a function's callees are read from its text.
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

#include "index/refs_ptr.h"
#include "store/indexdb.h"
#include "util/buf.h"

#define PTR_STORES_MAX 2000 /* a field with more stores is not followed (linux read: 2,779) */

/* ---- 1. scanning C text ------------------------------------------------------------------------------ */

static bool is_c(const char *lang) { return strcmp(lang, "c") == 0 || strcmp(lang, "cpp") == 0; }

/* Where line (1-based) starts in a loaded file. */
static size_t line_start(const struct file *fl, int line)
{
    size_t off = 0;
    for (int l = 1; l < line && off < fl->len; off++)
        if (fl->text[off] == '\n') l++;
    return off;
}

/* Where the function around line starts (0: none). */
static size_t function_start(const struct file *fl, int line)
{
    const struct mg_nav_def *fn = mg__nav_enclosing(fl, line, true);
    return fn ? line_start(fl, fn->start_line) : 0;
}

/* The declared type of the receiver ending at t[end) (the identifier before
 * `->` or `.`, past an index `[..]`): declared in the calling function
 * (t[lo, end)), else a variable of the file. */
static bool receiver_type(const struct file *fl, size_t lo, size_t end, char *out, size_t cap)
{
    char name[MG_REFS_TYPE_MAX];
    size_t at;
    if (!mg_cscan_receiver(fl->text, lo, end, name, sizeof(name), &at)) return false;
    size_t rl = strlen(name);
    if (mg_cscan_declared(fl->text, lo, at, name, rl, out, cap) != SIZE_MAX) return true;
    for (size_t k = 0; k < fl->ndefs; k++) {
        const struct mg_nav_def *d = &fl->defs[k];
        if (strcmp(d->kind, "variable") != 0 || strcmp(d->name, name) != 0) continue;
        size_t s = line_start(fl, d->start_line), e = line_start(fl, d->end_line + 1);
        return mg_cscan_declared(fl->text, s, e, name, rl, out, cap) != SIZE_MAX;
    }
    return false;
}

/* More than PTR_STORES_MAX stores into field (read, open: too generic to
 * follow)? -1 on error. */
static int too_common(struct nav *v, const char *field)
{
    int64_t n = mg_idx_ptr_stores_count(v->d, field, PTR_STORES_MAX);
    if (n < 0) return mg_db_error(v->d, "count pointer stores", v->err);
    return n > PTR_STORES_MAX;
}

/* ---- 2. the stores of a field ------------------------------------------------------------------------ */

static int add_store(struct nav *v, struct ptrs *p, const char *name, const char *container, int64_t fid)
{
    for (size_t i = 0; i < p->n; i++) /* once per name, container and file */
        if (p->v[i].fid == fid && strcmp(p->v[i].name, name) == 0 &&
            ((!container && !p->v[i].container) ||
             (container && p->v[i].container && strcmp(container, p->v[i].container) == 0)))
            return 0;
    struct ptr_store *nv = mg_grow(p->v, p->n, &p->cap, sizeof(*nv));
    if (nv) p->v = nv;
    char *nm = nv ? strdup(name) : NULL, *cont = nm && container ? strdup(container) : NULL;
    if (!nm || (container && !cont)) {
        free(nm);
        return mg_err_oom(v->err);
    }
    p->v[p->n++] = (struct ptr_store){nm, cont, fid};
    return 0;
}

/* The stores a cursor of ptr_stores reads (file_id, name, container), of
 * files in scope (only_fid: of that file only). */
static int read_stores(struct nav *v, struct ptrs *p, struct mg_idx_cur *c, int64_t only_fid)
{
    struct mg_idx_row r;
    int s = 0, rc = 0;
    while (rc == 0 && (s = mg_idx_next(c, &r)) > 0) {
        if (only_fid && r.file_id != only_fid) continue;
        struct file *fl = mg__nav_file(v, r.file_id, false);
        if (!fl) {
            rc = v->err->code ? -1 : 0;
            continue;
        }
        if (fl->allowed && is_c(fl->lang)) rc = add_store(v, p, r.name, r.container, r.file_id);
    }
    mg_idx_done(c);
    if (rc == 0 && s < 0) rc = mg_db_error(v->d, "read pointer stores", v->err);
    return rc;
}

/* The structs that have the field (their containers) and, for each, the
 * positional stores at the field's place (mg_idx_field_places: the field's
 * rows, not every symbol of the files defining the name). */
#define FIELD_STRUCTS_MAX 64 /* a field of more structs than this (count, ops, enable) is not followed */

static int field_structs(struct nav *v, struct ptrs *p)
{
    struct place { int64_t fid, ord; char *cont; bool anon; } *pl = NULL;
    size_t n = 0, cap = 0;
    struct mg_idx_cur c = {0};
    struct mg_idx_row r;
    /* first how many there are in scope, cheaply (linux's `enable` is a field of 639 structs) */
    int rv = mg_idx_field_files(v->d, p->field, 1000, &c, v->err), s = 0;
    while (rv == 0 && (s = mg_idx_next(&c, &r)) > 0) {
        struct file *fl = mg__nav_file(v, r.file_id, false);
        if (!fl) rv = v->err->code ? -1 : 0;
        else n += fl->allowed;
    }
    mg_idx_done(&c);
    if (rv == 0 && s < 0) rv = mg_db_error(v->d, "read struct fields", v->err);
    if (rv != 0 || n > FIELD_STRUCTS_MAX) return rv;
    n = 0;
    rv = mg_idx_field_places(v->d, p->field, &c, v->err);
    while (rv == 0 && (s = mg_idx_next(&c, &r)) > 0) {
        struct file *fl = mg__nav_file(v, r.file_id, false); /* (the row: scope and language) */
        if (!fl) {
            rv = v->err->code ? -1 : 0;
            continue;
        }
        if (!fl->allowed) continue;
        struct place *np = mg_grow(pl, n, &cap, sizeof(*pl));
        char *cont = np ? strdup(r.container) : NULL;
        if (np) pl = np;
        if (!cont) {
            rv = mg_err_oom(v->err);
            break;
        }
        /* an anonymous struct's variable: its own initializer only */
        bool anon = r.kind && strcmp(r.kind, "variable") == 0 && r.name && strcmp(r.name, cont) == 0;
        pl[n++] = (struct place){is_c(fl->lang) ? r.file_id : 0, r.ordinal, cont, anon};
    }
    mg_idx_done(&c);
    if (rv == 0 && s < 0) rv = mg_db_error(v->d, "read struct fields", v->err);
    for (size_t i = 0; i < n && rv == 0; i++) {
        if (!pl[i].fid) continue; /* (not C's) */
        char **nc = mg_grow(p->conts, p->nconts, &p->capconts, sizeof(*nc));
        if (!nc) {
            rv = mg_err_oom(v->err);
            break;
        }
        p->conts = nc;
        p->conts[p->nconts++] = pl[i].cont;
        pl[i].cont = NULL;
        rv = mg_idx_ptr_stores_at(v->d, p->conts[p->nconts - 1], pl[i].ord, &c, v->err);
        if (rv == 0) rv = read_stores(v, p, &c, pl[i].anon ? pl[i].fid : 0);
        else mg_idx_done(&c);
    }
    for (size_t i = 0; i < n; i++) free(pl[i].cont);
    free(pl);
    return rv;
}

/* The stores of field, looked up once per request. NULL with err on failure. */
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
    const int64_t *only = v->only; /* a callers walk's narrowing is not the stores' */
    size_t nonly = v->nonly;
    v->only = NULL;
    v->nonly = 0;
    int rc = too_common(v, p->field); /* a field named everywhere: resolved by name, as other calls */
    if (rc == 0) rc = field_structs(v, p);
    if (rc == 0 && p->nconts > 0) { /* else no struct has the field: nothing stores into it */
        struct mg_idx_cur c = {0};
        rc = mg_idx_ptr_stores_of_field(v->d, p->field, &c, v->err);
        if (rc == 0) rc = read_stores(v, p, &c, 0);
        else mg_idx_done(&c);
    }
    v->only = only;
    v->nonly = nonly;
    return rc >= 0 ? p : NULL;
}

/* Is type one of the structs p knows to have the field? */
static bool known_type(const struct ptrs *p, const char *type)
{
    for (size_t i = 0; type && i < p->nconts; i++)
        if (strcmp(p->conts[i], type) == 0) return true;
    return false;
}

/* ---- 3. a call through a field ----------------------------------------------------------------------- */

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
        b = mg_cscan_back(fl->text, 0, off, false);
        if (fl->text[b - 1] == ':') return 0;
    }
    if (!(*p = field_stores(v, field))) return -1;
    if (macro || !receiver_type(fl, lo, b, type, cap)) type[0] = 0;
    if (!known_type(*p, type)) type[0] = 0;
    return 0;
}

int mg__nav_pointer_call(struct nav *v, struct file *fl, size_t off, int line, const char *field, bool *yes)
{
    *yes = false;
    if (!is_c(fl->lang) || !mg__nav_member(fl->text, off)) return 0;
    size_t lo = function_start(fl, line);
    struct ptrs *p;
    char type[128];
    if (mg__nav_field_call(v, fl, lo, off, field, &p, type, sizeof(type)) != 0) return -1;
    for (size_t i = 0; p && i < p->n && !*yes; i++)
        *yes = !type[0] || !p->v[i].container || strcmp(p->v[i].container, type) == 0;
    return 0;
}

bool mg__nav_macro_field(const struct file *fl, size_t off, size_t len, char *field, size_t cap)
{
    return is_c(fl->lang) && mg_cscan_macro_field(fl->text, fl->len, off, len, field, cap, NULL);
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

/* The fields the function is stored into (a positional store: every field
 * of its struct; field_stores tells which holds it). */
static int stored_where(struct nav *v, struct site_scan *s)
{
    struct mg_idx_cur c = {0};
    struct mg_idx_row r;
    char **conts = NULL;
    size_t nconts = 0, capconts = 0;
    int st = 0, rc = mg_idx_ptr_stores_of_fn(v->d, s->name, &c, v->err);
    while (rc == 0 && !s->failed && (st = mg_idx_next(&c, &r)) > 0) {
        struct file *fl = mg__nav_file(v, r.file_id, false);
        if (!fl) {
            rc = v->err->code ? -1 : 0;
            continue;
        }
        if (!fl->allowed || !is_c(fl->lang)) continue;
        if (r.field) {
            add_field(s, r.field, strlen(r.field));
        } else if (r.container) { /* read after the cursor: fields_of reads other rows */
            bool seen = false;
            for (size_t i = 0; i < nconts && !seen; i++) seen = strcmp(conts[i], r.container) == 0;
            char **nc = seen ? conts : mg_grow(conts, nconts, &capconts, sizeof(*nc));
            if (nc) conts = nc;
            if (!seen && (!nc || !(conts[nconts++] = strdup(r.container)))) s->failed = true;
        }
    }
    mg_idx_done(&c);
    if (rc == 0 && !s->failed && st < 0) rc = mg_db_error(v->d, "read pointer stores", v->err);
    for (size_t i = 0; i < nconts; i++) {
        if (rc == 0 && !s->failed) rc = fields_of(v, s, conts[i]);
        free(conts[i]);
    }
    free(conts);
    return rc == 0 && s->failed ? mg_err_oom(v->err) : rc;
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

/* The calls through s->field (table ptr_calls, recorded by the indexer with
 * the receiver's declared type) that reach a store of s->name: of a struct
 * with the field, the stores into that struct's field (or of unknown
 * struct); else any store. */
static int calls_through(struct nav *v, struct site_scan *s)
{
    struct mg_idx_cur c = {0};
    struct mg_idx_row r;
    int st = 0, rc = mg_idx_ptr_calls_of_field(v->d, s->field, &c, v->err);
    while (rc == 0 && (st = mg_idx_next(&c, &r)) > 0) {
        struct file *fl = mg__nav_file(v, r.file_id, false);
        if (!fl) {
            rc = v->err->code ? -1 : 0;
            continue;
        }
        bool in = !v->only;
        for (size_t j = 0; j < v->nonly && !in; j++) in = v->only[j] == fl->id;
        if (!in || !fl->allowed || !is_c(fl->lang)) continue;
        const char *type = known_type(s->p, r.container) ? r.container : NULL;
        for (size_t i = 0; i < s->p->n; i++) {
            const struct ptr_store *ps = &s->p->v[i];
            if (strcmp(ps->name, s->name) != 0 || (type && ps->container && strcmp(ps->container, type) != 0))
                continue;
            if (add_site(s, fl, (int)r.start_line, ps->fid) != 0) rc = mg_err_oom(v->err);
            break;
        }
    }
    mg_idx_done(&c);
    if (rc == 0 && st < 0) rc = mg_db_error(v->d, "read pointer calls", v->err);
    return rc;
}

int mg__nav_ptr_callers(struct nav *v, const char *name, struct ptr_site **out, size_t *nout)
{
    *out = NULL;
    *nout = 0;
    struct site_scan s = {.name = name};
    int rc = stored_where(v, &s);
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
        rc = calls_through(v, &s);
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
