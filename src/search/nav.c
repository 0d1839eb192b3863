/* nav.c — a navigation request's state (nav.h, nav_int.h): the files it
 * reads and their definitions, the definitions of each name, and the words
 * the lexer must not take for calls. References are nav_refs.c's, call
 * graph walks nav_calls.c's.
 *
 * Sections:
 *   1. The lexer          identifiers outside comments and strings, per family
 *   2. Files              a request's cache of stored texts and their definitions
 *   3. Definitions        by name, resolution of a called name
 */
#include "search/nav_int.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

#include "index/lex.h"
#include "store/indexdb.h"
#include "store/tokenize.h"
#include "util/buf.h"
#include "util/clock.h"

bool mg__nav_late(double deadline) { return deadline > 0 && mg_clock_ms() > deadline; }

/* ---- 1. The lexer (index/lex.h) ---------------------------------------------------------- */

bool mg_nav_lex(const char *lang, const char *text, size_t len, mg_nav_ident_cb cb, void *ud)
{
    return mg_lex(lang, text, len, cb, ud);
}

/* Whether s (n bytes) is one of the words of " a b c ". */
bool mg__nav_in_words(const char *words, const char *s, size_t n)
{
    size_t wl = strlen(words);
    if (!n) return false;
    for (const char *p = words, *end = words + wl; (p = memmem(p, (size_t)(end - p), s, n)); p++)
        if (p > words && p[-1] == ' ' && p[n] == ' ') return true;
    return false;
}

/* Words that look like calls and are not: `if (`, `sizeof(`, ... A word is
 * a keyword only in the languages that have it: `local(` is a C call and a
 * Lua keyword, `print(` a Python 3 call, `select(` a C call and a Go keyword. */
bool mg__nav_keyword(const char *lang, const char *s, size_t n)
{
    static const char all[] = " if for while switch return do else case ";
    static const struct { const char *langs, *kw; } per[] = {
        {" c cpp objc ",
         " sizeof typeof __typeof__ __typeof alignof _Alignof __alignof__ defined __attribute__ __attribute "
         "asm __asm__ __asm volatile __volatile__ _Static_assert static_assert __builtin_expect likely "
         "unlikely void int char long short unsigned signed float double struct union enum const catch new "
         "delete throw typeid decltype noexcept operator requires typename template using this alignas "
         "_Alignas _Generic "},
        {" java csharp kotlin scala swift ",
         " catch new throw synchronized super this assert typeof sizeof using lock nameof when try "},
        {" go ",
         " func go defer select range chan map interface struct "},
        {" rust zig ",
         " fn match loop let in as move impl where unsafe dyn mut ref const await comptime "},
        {" javascript typescript php ",
         " function await yield typeof new catch throw super this delete in of void instanceof import "
         "constructor isset unset empty array list echo require include require_once include_once fn "
         "elseif foreach declare keyof satisfies as "},
        {" python ",
         " not and or in is elif lambda assert del with except raise def class import from yield await "
         "global nonlocal "},
        {" ruby shell perl r make cmake awk ",
         " until unless elsif then end local function not and or in my our sub defined elif fi done "},
        {" lua ",
         " local then end function until elseif not and or in repeat "},
    };
    if (mg__nav_in_words(all, s, n)) return true;
    for (size_t k = 0; lang && k < sizeof(per) / sizeof(per[0]); k++)
        if (mg__nav_in_words(per[k].langs, lang, strlen(lang)) && mg__nav_in_words(per[k].kw, s, n)) return true;
    return false;
}

/* A name right after `.`, `->` or `::`: a member or a qualified name, which
 * is never a keyword (`o->fn(x)`, `re.match(s)`). */
bool mg__nav_member(const char *t, size_t off)
{
    size_t i = off;
    while (i > 0 && (t[i - 1] == ' ' || t[i - 1] == '\t')) i--;
    return i > 0 && (t[i - 1] == '.' || (i > 1 && t[i - 1] == '>' && t[i - 2] == '-') ||
                     (i > 1 && t[i - 1] == ':' && t[i - 2] == ':'));
}

/* nav_int.h */
size_t mg__nav_sp(const char *t, size_t n, size_t i)
{
    while (i < n && (t[i] == ' ' || t[i] == '\t')) i++;
    return i;
}

/* ---- 2. Files ----------------------------------------------------------------------------- */



void mg__nav_def_free(struct mg_nav_def *d)
{
    if (!d) return;
    free(d->path);
    free(d->name);
    free(d->kind);
    free(d->container);
}

void mg__nav_defs_free(struct mg_nav_def *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].name);
        free(v[i].kind);
        free(v[i].container);
    }
    free(v);
}

static void file_free(struct file *fl)
{
    if (!fl) return;
    free(fl->path);
    free(fl->lang);
    free(fl->text);
    mg__nav_defs_free(fl->defs, fl->ndefs);
    for (size_t i = 0; i < fl->nimps; i++) free(fl->imps[i].p);
    free(fl->imps);
    free(fl->py_name);
    free(fl->py_lname);
    free(fl->py_std);
    free(fl);
}

static size_t hash_id(int64_t id) { return (size_t)((uint64_t)id * 0x9E3779B97F4A7C15ull >> 17); }

int mg__nav_open(struct nav *v, struct mg_db *d, const struct mg_filter *f, double deadline, struct mg_err *err)
{
    memset(v, 0, sizeof(*v));
    v->d = d;
    v->f = f;
    v->deadline = deadline;
    v->err = err;
    return 0;
}

/* What a field's stores own (nav_ptr.c fills them). */
static void ptrs_free(struct ptrs *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->v[i].name);
        free(p->v[i].container);
    }
    free(p->v);
    for (size_t i = 0; i < p->nconts; i++) free(p->conts[i]);
    free(p->conts);
    free(p->field);
}

void mg__nav_close(struct nav *v)
{
    for (size_t i = 0; i < v->capfiles; i++) file_free(v->files[i]);
    free(v->files);
    for (size_t i = 0; i < v->capnames; i++) {
        free(v->names[i].name);
        free(v->names[i].idx);
        free(v->names[i].cls);
        free(v->names[i].fid);
    }
    free(v->names);
    for (size_t i = 0; i < v->nptrs; i++) ptrs_free(&v->ptrs[i]);
    free(v->ptrs);
    free(v->self_name);
}

/* A file by id, its row read (path, lang, scope); text and definitions only
 * with load. NULL with err when reading fails; a file gone is not found
 * (NULL, err unset). */
struct file *mg__nav_file(struct nav *v, int64_t id, bool load)
{
    if (v->nfiles * 2 >= v->capfiles) {
        size_t cap = v->capfiles ? v->capfiles * 2 : 256;
        struct file **t = calloc(cap, sizeof(*t));
        if (!t) return mg_err_oom(v->err), NULL;
        for (size_t i = 0; i < v->capfiles; i++) {
            if (!v->files[i]) continue;
            size_t j = hash_id(v->files[i]->id) & (cap - 1);
            while (t[j]) j = (j + 1) & (cap - 1);
            t[j] = v->files[i];
        }
        free(v->files);
        v->files = t;
        v->capfiles = cap;
    }
    size_t j = hash_id(id) & (v->capfiles - 1);
    while (v->files[j] && v->files[j]->id != id) j = (j + 1) & (v->capfiles - 1);
    struct file *fl = v->files[j];
    struct mg_idx_cur cur;
    struct mg_idx_row row;
    if (!fl) {
        if (mg_idx_file_by_id(v->d, id, 0, &cur, v->err) != 0) return NULL;
        if (mg_idx_next(&cur, &row) <= 0) {
            mg_idx_done(&cur);
            return NULL;
        }
        fl = calloc(1, sizeof(*fl));
        bool failed = !fl;
        if (fl) {
            fl->id = id;
            fl->path = row.path ? strdup(row.path) : NULL;
            fl->lang = row.lang ? strdup(row.lang) : NULL;
            failed = (row.path && !fl->path) || (row.lang && !fl->lang);
            fl->sym_lo = row.sym_lo;
            fl->sym_hi = row.sym_hi;
            fl->allowed = fl->path && mg_filter_allows(v->f, fl->path, strlen(fl->path), fl->lang);
        }
        mg_idx_done(&cur);
        if (failed) {
            file_free(fl);
            return mg_err_oom(v->err), NULL;
        }
        v->files[j] = fl;
        v->nfiles++;
    }
    if (!load || fl->loaded || !fl->allowed) return fl;
    if (mg_idx_file_by_id(v->d, id, MG_IDX_TEXT, &cur, v->err) != 0) return NULL;
    if (mg_idx_next(&cur, &row) <= 0) {
        mg_idx_done(&cur);
        return NULL;
    }
    int rc = mg_idx_text(&row, MAX_FILE_TEXT, &fl->text, &fl->len);
    mg_idx_done(&cur);
    if (rc != 0)
        return mg_err_set(v->err, MG_E_DB, "the stored text of '%s' is corrupt; index the repo again", fl->path), NULL;
    fl->loaded = true;
    return fl;
}

/* A loaded file's definitions, read once (most candidate files of a name
 * turn out not to use it: their definitions are never read). */
int mg__nav_file_defs(struct nav *v, struct file *fl)
{
    if (fl->defs_loaded) return 0;
    if (mg__nav_read_defs(v->d, fl->sym_lo, fl->sym_hi, fl->path, fl->id, &fl->defs, &fl->ndefs) != 0)
        return mg_err_oom(v->err);
    fl->defs_loaded = true;
    return 0;
}

int mg__nav_read_defs(struct mg_db *d, int64_t lo, int64_t hi, char *path, int64_t fid, struct mg_nav_def **defs,
                      size_t *ndefs)
{
    struct mg_idx_cur cur;
    struct mg_idx_row row;
    size_t cap = 0;
    bool failed = false;
    if (mg_idx_symbols(d, lo, hi, false, &cur, NULL) != 0) return 0; /* (a statement that cannot be prepared: none) */
    while (!failed && mg_idx_next(&cur, &row) > 0) {
        struct mg_nav_def *nd = mg_grow(*defs, *ndefs, &cap, sizeof(*nd));
        if (!nd) {
            failed = true;
            break;
        }
        *defs = nd;
        struct mg_nav_def *df = &nd[(*ndefs)++];
        *df = (struct mg_nav_def){.path = path, .file_id = fid, .start_line = row.start_line,
                                  .end_line = row.end_line};
        df->name = strdup(row.name);
        df->kind = strdup(row.kind);
        df->container = row.container ? strdup(row.container) : NULL;
        failed = !df->name || !df->kind || (row.container && !df->container);
    }
    mg_idx_done(&cur);
    return failed ? -1 : 0;
}

bool mg__nav_function_like(const char *kind)
{
    return kind && (strcmp(kind, "function") == 0 || strcmp(kind, "method") == 0 ||
                    strcmp(kind, "constructor") == 0 || strcmp(kind, "macro") == 0);
}

/* nav_int.h */
bool mg__nav_bare_misses_methods(const struct file *fl, size_t off, int line)
{
    if (!fl->lang || !mg__nav_in_words(" python go javascript typescript tsx rust php ", fl->lang, strlen(fl->lang)))
        return false;
    const char *t = fl->text;
    size_t b = off;
    while (b > 0 && (t[b - 1] == ' ' || t[b - 1] == '\t')) b--;
    if (b > 0 && (t[b - 1] == '.' || t[b - 1] == '$' || (b > 1 && t[b - 1] == '>' && t[b - 2] == '-') ||
                  (b > 1 && t[b - 1] == ':' && t[b - 2] == ':')))
        return false;
    if (strcmp(fl->lang, "python") != 0) return true;
    /* a Python class body names its methods bare (`source = property(getsource)`): a class around
     * the line with no function between */
    const struct mg_nav_def *fn = mg__nav_enclosing(fl, line, true), *cls = NULL;
    for (size_t i = 0; i < fl->ndefs; i++) {
        const struct mg_nav_def *d = &fl->defs[i];
        if (d->kind && strcmp(d->kind, "class") == 0 && d->start_line <= line && d->end_line >= line &&
            (!cls || d->end_line - d->start_line < cls->end_line - cls->start_line))
            cls = d;
    }
    return !(cls && (!fn || fn->end_line - fn->start_line > cls->end_line - cls->start_line));
}

/* nav_int.h; a Python call of `norm` is no call of a Go function norm */
bool mg__nav_same_world(const char *a, const char *b)
{
    static const char *const worlds[] = {" c cpp objc ", " javascript typescript "};
    if (!a || !b || strcmp(a, b) == 0) return true;
    for (size_t i = 0; i < sizeof(worlds) / sizeof(worlds[0]); i++)
        if (mg__nav_in_words(worlds[i], a, strlen(a)) && mg__nav_in_words(worlds[i], b, strlen(b))) return true;
    return false;
}

/* nav_int.h */
int mg__nav_whole(const char *lang, const char *text, size_t len, size_t off, const char *container,
                  struct mg_nav_def *fn, struct file *fl)
{
    int lines = 1, line = 1;
    for (size_t i = 0; i < len; i++)
        if (text[i] == '\n') {
            lines++;
            if (i < off) line++;
        }
    *fn = (struct mg_nav_def){.name = "f", .kind = "function", .container = (char *)container, .start_line = 1,
                              .end_line = lines};
    *fl = (struct file){.lang = (char *)lang, .text = (char *)text, .len = len, .defs = fn, .ndefs = 1};
    return line;
}

/* nav_int.h */
size_t mg__nav_line_start(const struct file *fl, int line)
{
    struct file *m = (struct file *)fl; /* (the last answer is kept: a cache, not the file's content) */
    int l = 1;
    size_t o = 0;
    if (m->ls_line > 1 && m->ls_line <= line) {
        l = m->ls_line;
        o = m->ls_off;
    }
    for (; l < line && o < fl->len; o++)
        if (fl->text[o] == '\n') l++;
    if (l == line) { /* (not past the text's end: o is where line starts) */
        m->ls_line = l;
        m->ls_off = o;
    }
    return o;
}

/* The innermost definition around line (function-like ones only, when fn). */
const struct mg_nav_def *mg__nav_enclosing(const struct file *fl, int line, bool fn)
{
    const struct mg_nav_def *best = NULL;
    for (size_t i = 0; i < fl->ndefs; i++) {
        const struct mg_nav_def *d = &fl->defs[i];
        if (d->start_line > line || d->end_line < line || (fn && !mg__nav_function_like(d->kind))) continue;
        if (!best || d->end_line - d->start_line < best->end_line - best->start_line) best = d;
    }
    return best;
}

/* A copy the caller owns (path too). */
struct mg_nav_def *mg__nav_def_copy(const struct mg_nav_def *d, const char *path)
{
    struct mg_nav_def *c = calloc(1, sizeof(*c));
    if (!c) return NULL;
    c->file_id = d->file_id;
    c->path = strdup(path);
    c->name = strdup(d->name ? d->name : "");
    c->kind = strdup(d->kind ? d->kind : "");
    c->container = d->container ? strdup(d->container) : NULL;
    c->start_line = d->start_line;
    c->end_line = d->end_line;
    if (!c->path || !c->name || !c->kind || (d->container && !c->container)) {
        mg__nav_def_free(c);
        free(c);
        return NULL;
    }
    return c;
}

/* ---- 3. Definitions ----------------------------------------------------------------------- */

static size_t hash_str(const char *s)
{
    size_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* The definitions of name in scope (every kind): (file id, def index) pairs,
 * cached per request. NULL with err on failure. */
struct resolved *mg__nav_defs_of(struct nav *v, const char *name)
{
    if (v->nnames * 2 >= v->capnames) {
        size_t cap = v->capnames ? v->capnames * 2 : 64;
        struct resolved *t = calloc(cap, sizeof(*t));
        if (!t) return mg_err_oom(v->err), NULL;
        for (size_t i = 0; i < v->capnames; i++) {
            if (!v->names[i].name) continue;
            size_t j = hash_str(v->names[i].name) & (cap - 1);
            while (t[j].name) j = (j + 1) & (cap - 1);
            t[j] = v->names[i];
        }
        free(v->names);
        v->names = t;
        v->capnames = cap;
    }
    size_t j = hash_str(name) & (v->capnames - 1);
    while (v->names[j].name && strcmp(v->names[j].name, name) != 0) j = (j + 1) & (v->capnames - 1);
    struct resolved *r = &v->names[j];
    if (r->name) return r;
    int64_t *fid = NULL;
    size_t *idx = NULL, n = 0, cap = 0;
    unsigned char *cls = NULL;
    struct mg_idx_cur st;
    struct mg_idx_row row;
    if (mg_idx_symbols_by_name(v->d, name, &st, v->err) != 0) return NULL;
    int rc;
    bool failed = false;
    while (!failed && (rc = mg_idx_next(&st, &row)) > 0) {
        int64_t k = row.index;
        if (k < 0) continue;
        /* in scope, and the file still there (its row only: no text, no definitions yet) */
        struct file *fl = mg__nav_file(v, row.file_id, false);
        if (!fl && v->err->code) failed = true;
        if (!fl || !fl->allowed) continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 4;
            int64_t *nf = realloc(fid, cap * sizeof(*nf));
            if (nf) fid = nf;
            size_t *ni = realloc(idx, cap * sizeof(*ni));
            if (ni) idx = ni;
            unsigned char *nc = realloc(cls, cap);
            if (nc) cls = nc;
            if (!nf || !ni || !nc) {
                failed = mg_err_oom(v->err) != 0;
                break;
            }
        }
        fid[n] = row.file_id;
        cls[n] = mg__nav_function_like(row.kind) ? RESOLVED_FN
                 : row.kind && strcmp(row.kind, "prototype") == 0 ? RESOLVED_PROTO : 0;
        idx[n++] = (size_t)k;
    }
    mg_idx_done(&st);
    if (!failed && rc < 0) failed = mg_db_error(v->d, "read symbols", v->err) != 0;
    if (!failed && !(r->name = strdup(name))) failed = mg_err_oom(v->err) != 0;
    if (failed) {
        free(fid);
        free(idx);
        free(cls);
        return NULL;
    }
    r->fid = fid;
    r->idx = idx;
    r->cls = cls;
    r->n = n;
    v->nnames++;
    return r;
}

const struct mg_nav_def *mg__nav_resolved_def(struct nav *v, const struct resolved *r, size_t i, struct file **fl)
{
    *fl = mg__nav_file(v, r->fid[i], false);
    if (!*fl || mg__nav_file_defs(v, *fl) != 0) return NULL;
    return r->idx[i] < (*fl)->ndefs ? &(*fl)->defs[r->idx[i]] : NULL;
}

/* The last part of a qualified name, checked to be an identifier. */
int mg__nav_plain_name(const char *q, char *out, size_t cap, struct mg_err *err)
{
    if (!q || !*q) return mg_err_set(err, MG_E_BAD_ARG, "give a symbol name, e.g. 'kmalloc' or 'Parser::parse'");
    const char *s = q;
    for (const char *p = q; *p; p++) {
        if (p[0] == ':' && p[1] == ':') s = p + 2;
        else if (p[0] == '-' && p[1] == '>') s = p + 2;
        else if (*p == '.' || *p == '#') s = p + 1;
    }
    size_t n = strlen(s);
    if (n == 0 || n >= cap)
        return mg_err_set(err, MG_E_BAD_ARG, "'%.80s' is not a symbol name; give an identifier such as 'kmalloc'", q);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!(mg_lex_id_char(c) || (i == 0 && c == '$')) || (i == 0 && c >= '0' && c <= '9'))
            return mg_err_set(err, MG_E_BAD_ARG, "'%.80s' is not a symbol name; give an identifier such as 'kmalloc'",
                              q);
    }
    memcpy(out, s, n + 1);
    return 0;
}
