/* nav.c — references, callers, callees and call paths (see nav.h).
 *
 * Sections:
 *   1. The lexer          identifiers outside comments and strings, per family
 *   2. Files              a request's cache of stored texts and their definitions
 *   3. Definitions        by name, resolution of a called name
 *   4. References
 *   5. Call graph walks   callers, callees, trace
 */
#include "search/nav.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

#include "index/lex.h"
#include "search/navimport.h"
#include "search/nav_int.h"
#include "store/indexdb.h"
#include "store/tokenize.h"
#include "util/buf.h"
#include "util/clock.h"

#define MAX_FILE_TEXT (64u << 20)


static bool late(double deadline) { return deadline > 0 && mg_clock_ms() > deadline; }

/* ---- 1. The lexer (index/lex.h) ---------------------------------------------------------- */

bool mg_nav_lex(const char *lang, const char *text, size_t len, mg_nav_ident_cb cb, void *ud)
{
    return mg_lex(lang, text, len, cb, ud);
}

/* Whether s (n bytes) is one of the words of " a b c ". */
static bool in_words(const char *words, const char *s, size_t n)
{
    for (const char *at = words; (at = strchr(at, ' ')) && at[1]; at++) {
        const char *w = at + 1, *e = strchr(w, ' ');
        if ((size_t)(e - w) == n && memcmp(w, s, n) == 0) return true;
    }
    return false;
}

/* Words that look like calls and are not: `if (`, `sizeof(`, ... A word is
 * a keyword only in the languages that have it: `local(` is a C call and a
 * Lua keyword, `print(` a Python 3 call, `select(` a C call and a Go keyword. */
static bool keyword(const char *lang, const char *s, size_t n)
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
    if (in_words(all, s, n)) return true;
    for (size_t k = 0; lang && k < sizeof(per) / sizeof(per[0]); k++)
        if (in_words(per[k].langs, lang, strlen(lang)) && in_words(per[k].kw, s, n)) return true;
    return false;
}

/* A name right after `.`, `->` or `::`: a member or a qualified name, which
 * is never a keyword (`o->fn(x)`, `re.match(s)`). */
static bool member(const char *t, size_t off)
{
    size_t i = off;
    while (i > 0 && (t[i - 1] == ' ' || t[i - 1] == '\t')) i--;
    return i > 0 && (t[i - 1] == '.' || (i > 1 && t[i - 1] == '>' && t[i - 2] == '-') ||
                     (i > 1 && t[i - 1] == ':' && t[i - 2] == ':'));
}

/* ---- 2. Files ----------------------------------------------------------------------------- */

struct file {
    int64_t id;
    char *path, *lang;
    char *text;
    size_t len;
    int64_t sym_lo, sym_hi;
    struct mg_nav_def *defs; /* the file's definitions, by id; their strings owned here */
    size_t ndefs;
    bool allowed;            /* in the request's scope */
    bool loaded;             /* text read */
    bool defs_loaded;        /* defs read (file_defs) */
    struct imp { enum mg_nav_imp how; char *p; } *imps; /* what its imports name (file_imports) */
    size_t nimps, capimps;
    bool imps_loaded, imps_failed;
};

struct nav {
    struct mg_db *d;
    const struct mg_filter *f;
    double deadline;
    struct mg_err *err;
    struct file **files; /* open addressing by id */
    size_t nfiles, capfiles;
    struct resolved *names; /* open addressing by name */
    size_t nnames, capnames;
    const int64_t *only;    /* candidates: only these files (a file-local callee's); NULL: all */
    size_t nonly;
};

static void def_free(struct mg_nav_def *d)
{
    if (!d) return;
    free(d->path);
    free(d->name);
    free(d->kind);
    free(d->container);
}

static void file_free(struct file *fl)
{
    if (!fl) return;
    free(fl->path);
    free(fl->lang);
    free(fl->text);
    for (size_t i = 0; i < fl->ndefs; i++) {
        free(fl->defs[i].name);
        free(fl->defs[i].kind);
        free(fl->defs[i].container);
    }
    free(fl->defs);
    for (size_t i = 0; i < fl->nimps; i++) free(fl->imps[i].p);
    free(fl->imps);
    free(fl);
}

static size_t hash_id(int64_t id) { return (size_t)((uint64_t)id * 0x9E3779B97F4A7C15ull >> 17); }

static int nav_open(struct nav *v, struct mg_db *d, const struct mg_filter *f, double deadline, struct mg_err *err)
{
    memset(v, 0, sizeof(*v));
    v->d = d;
    v->f = f;
    v->deadline = deadline;
    v->err = err;
    return 0;
}

struct resolved {
    char *name;
    size_t *idx; /* definitions as (file slot, def index) pairs flattened: file ids and def indexes */
    int64_t *fid;
    size_t n;
};

static void nav_close(struct nav *v)
{
    for (size_t i = 0; i < v->capfiles; i++) file_free(v->files[i]);
    free(v->files);
    for (size_t i = 0; i < v->capnames; i++) {
        free(v->names[i].name);
        free(v->names[i].idx);
        free(v->names[i].fid);
    }
    free(v->names);
}

/* A file by id, its row read (path, lang, scope); text and definitions only
 * with load. NULL with err when reading fails; a file gone is not found
 * (NULL, err unset). */
static struct file *file_get(struct nav *v, int64_t id, bool load)
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
static int file_defs(struct nav *v, struct file *fl)
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

static bool function_like(const char *kind)
{
    return kind && (strcmp(kind, "function") == 0 || strcmp(kind, "method") == 0 ||
                    strcmp(kind, "constructor") == 0 || strcmp(kind, "macro") == 0);
}

/* The innermost definition around line (function-like ones only, when fn). */
static const struct mg_nav_def *enclosing(const struct file *fl, int line, bool fn)
{
    const struct mg_nav_def *best = NULL;
    for (size_t i = 0; i < fl->ndefs; i++) {
        const struct mg_nav_def *d = &fl->defs[i];
        if (d->start_line > line || d->end_line < line || (fn && !function_like(d->kind))) continue;
        if (!best || d->end_line - d->start_line < best->end_line - best->start_line) best = d;
    }
    return best;
}

/* A copy the caller owns (path too). */
static struct mg_nav_def *def_copy(const struct mg_nav_def *d, const char *path)
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
        def_free(c);
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
static struct resolved *defs_of(struct nav *v, const char *name)
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
    struct mg_idx_cur st;
    struct mg_idx_row row;
    if (mg_idx_symbols_by_name(v->d, name, &st, v->err) != 0) return NULL;
    int rc;
    while ((rc = mg_idx_next(&st, &row)) > 0) {
        int64_t f = row.file_id, k = row.index;
        if (k < 0) continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 4;
            int64_t *nf = realloc(fid, cap * sizeof(*nf));
            if (nf) fid = nf;
            size_t *ni = realloc(idx, cap * sizeof(*ni));
            if (ni) idx = ni;
            if (!nf || !ni) {
                free(fid);
                free(idx);
                mg_idx_done(&st);
                return mg_err_oom(v->err), NULL;
            }
        }
        fid[n] = f;
        idx[n++] = (size_t)k;
    }
    mg_idx_done(&st);
    if (rc != 0) {
        free(fid);
        free(idx);
        return mg_db_error(v->d, "read symbols", v->err), NULL;
    }
    /* keep those in scope whose file is still there */
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        struct file *fl = file_get(v, fid[i], false); /* the definitions only: no text */
        if (!fl && v->err->code) {
            free(fid);
            free(idx);
            return NULL;
        }
        if (fl && fl->allowed && file_defs(v, fl) != 0) {
            free(fid);
            free(idx);
            return NULL;
        }
        if (!fl || !fl->allowed || idx[i] >= fl->ndefs) continue;
        fid[o] = fid[i];
        idx[o++] = idx[i];
    }
    r->name = strdup(name);
    if (!r->name) {
        free(fid);
        free(idx);
        return mg_err_oom(v->err), NULL;
    }
    r->fid = fid;
    r->idx = idx;
    r->n = o;
    v->nnames++;
    return r;
}

static const struct mg_nav_def *resolved_def(struct nav *v, const struct resolved *r, size_t i, struct file **fl)
{
    *fl = file_get(v, r->fid[i], false); /* defs_of read its definitions */
    return *fl && (*fl)->defs_loaded ? &(*fl)->defs[r->idx[i]] : NULL;
}

/* The last part of a qualified name, checked to be an identifier. */
static int plain_name(const char *q, char *out, size_t cap, struct mg_err *err)
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

/* ---- 4. References ------------------------------------------------------------------------ */

struct occ {
    size_t off;
    int line;
    bool call, def;
    bool keyword; /* the word as the language's keyword there (js_word), dropped unless a definition's name */
};

struct occs {
    const char *name;
    size_t nlen;
    bool js_word;   /* a JavaScript/TypeScript reserved or contextual word: a method may be named so */
    size_t tlen;    /* the text's length */
    struct occ *v;
    size_t n, cap;
    bool failed;
};

/* In JavaScript and TypeScript a reserved word may name a property or a
 * method (`p.catch(f)`, `x.default`), so a method `catch` has uses; outside
 * a member access the word is the keyword (`try {} catch`, `default:`). The
 * contextual words are keywords when a name follows (`get size()`,
 * `static x`, `readonly y`). */
static bool js_reserved(const char *s, size_t n)
{
    return in_words(" break case catch class const continue debugger default delete do else enum export extends "
                    "false finally for function if import in instanceof new null return super switch this throw "
                    "true try typeof var void while with yield let static implements interface package private "
                    "protected public await ", s, n);
}

static bool js_contextual(const char *t, size_t len, size_t off, size_t n)
{
    if (!in_words(" get set static async readonly declare abstract override accessor ", t + off, n)) return false;
    size_t i = off + n;
    while (i < len && (t[i] == ' ' || t[i] == '\t')) i++;
    return i < len && (mg_lex_id_char((unsigned char)t[i]) || t[i] == '[' || t[i] == '#' || t[i] == '*' ||
                       t[i] == '"' || t[i] == '\'');
}

static int on_ident(void *ud, const char *t, size_t off, size_t len, int line, bool call)
{
    struct occs *o = ud;
    if (len != o->nlen || memcmp(t + off, o->name, len) != 0) return 0;
    bool kw = o->js_word && !member(t, off) && (js_reserved(t + off, len) || js_contextual(t, o->tlen, off, len));
    struct occ *nv = mg_grow(o->v, o->n, &o->cap, sizeof(*nv));
    if (!nv) {
        o->failed = true;
        return 1;
    }
    o->v = nv;
    o->v[o->n++] = (struct occ){off, line, call, false, kw};
    return 0;
}

/* The occurrences of name in a loaded file; the first inside each of its
 * definitions named so is that definition's own name. */
static bool has_word(const char *t, size_t n, const char *w, size_t wl)
{
    for (const char *p = t; (p = memmem(p, n - (size_t)(p - t), w, wl)); p++) {
        bool before = p > t && mg_lex_id_char((unsigned char)p[-1]);
        bool after = (size_t)(p - t) + wl < n && mg_lex_id_char((unsigned char)p[wl]);
        if (!before && !after) return true;
    }
    return false;
}

static int file_occs(struct nav *v, struct file *fl, const char *name, struct occs *o)
{
    o->name = name;
    o->nlen = strlen(name);
    o->tlen = fl->len;
    o->js_word = (strcmp(fl->lang, "javascript") == 0 || strcmp(fl->lang, "typescript") == 0) &&
                 (js_reserved(name, o->nlen) ||
                  in_words(" get set static async readonly declare abstract override accessor ", name, o->nlen));
    o->n = 0;
    o->failed = false;
    if (!has_word(fl->text, fl->len, name, o->nlen)) return 0; /* an FTS token of other case, or a part */
    mg_nav_lex(fl->lang, fl->text, fl->len, on_ident, o);
    if (o->failed) return mg_err_oom(v->err);
    if (o->n && file_defs(v, fl) != 0) return -1;
    for (size_t i = 0; i < fl->ndefs; i++) {
        const struct mg_nav_def *d = &fl->defs[i];
        /* a prototype declares: its line is a use, as GNU Global counts it (it is among the definitions
         * too), and no call */
        if (!d->name || strcmp(d->name, name) != 0) continue;
        bool proto = d->kind && strcmp(d->kind, "prototype") == 0;
        for (size_t k = 0; k < o->n; k++)
            if (o->v[k].line >= d->start_line && o->v[k].line <= d->end_line) {
                if (proto) o->v[k].call = false;
                else o->v[k].def = true;
                break;
            }
    }
    size_t kept = 0;
    for (size_t k = 0; k < o->n; k++)
        if (!o->v[k].keyword || o->v[k].def) o->v[kept++] = o->v[k];
    o->n = kept;
    return 0;
}

/* Line `line`'s text (trimmed, capped) in a new string. */
static char *line_text(const struct file *fl, size_t off)
{
    size_t s = off, e = off;
    while (s > 0 && fl->text[s - 1] != '\n') s--;
    while (e < fl->len && fl->text[e] != '\n') e++;
    while (s < e && (fl->text[s] == ' ' || fl->text[s] == '\t')) s++;
    while (e > s && (fl->text[e - 1] == ' ' || fl->text[e - 1] == '\t' || fl->text[e - 1] == '\r')) e--;
    if (e - s > MG_NAV_LINE_MAX) {
        e = s + MG_NAV_LINE_MAX;
        while (e > s && ((unsigned char)fl->text[e] & 0xc0) == 0x80) e--; /* not inside a character */
    }
    char *r = malloc(e - s + 1);
    if (!r) return NULL;
    memcpy(r, fl->text + s, e - s);
    r[e - s] = 0;
    return r;
}

static int cmp_path(const void *a, const void *b)
{
    return strcmp((*(struct file *const *)a)->path, (*(struct file *const *)b)->path);
}

/* Files whose chunks hold the name's token (a superset: case-insensitive, and
 * parts of longer identifiers) in scope and with a lexer, by path from
 * from_path on (NULL: all); calls fn for each, loaded, until it returns
 * non-zero. 0 when all were seen, 1 past the deadline, 2 when fn stopped,
 * -1 on error; *ncand: how many files there are. */
static int candidates(struct nav *v, const char *name, const char *from_path,
                      int (*fn)(struct nav *, struct file *, void *), void *ud, size_t *ncand)
{
    if (ncand) *ncand = 0;
    char tok[MG_TOKEN_MAX + 1], q[MG_TOKEN_MAX + 3];
    size_t n = strlen(name), k = 0;
    for (size_t i = 0; i < n && k < MG_TOKEN_MAX; i++) {
        unsigned char c = (unsigned char)name[i];
        if (c == '$') continue; /* not part of a token */
        tok[k++] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
    }
    tok[k] = 0;
    if (k == 0) return 0;
    snprintf(q, sizeof(q), "\"%s\"", tok);
    struct mg_idx_cur st;
    struct mg_idx_row row;
    if (mg_idx_files_matching(v->d, q, &st, v->err) != 0) return -1;
    /* ids first: the callback reads other rows with other statements */
    int64_t *ids = NULL;
    size_t nids = 0, cap = 0;
    int rc;
    while ((rc = mg_idx_next(&st, &row)) > 0) {
        int64_t *ni = mg_grow(ids, nids, &cap, sizeof(*ni));
        if (!ni) {
            free(ids);
            mg_idx_done(&st);
            return mg_err_oom(v->err);
        }
        ids = ni;
        ids[nids++] = row.file_id;
    }
    mg_idx_done(&st);
    if (rc != 0) {
        free(ids);
        return mg_db_error(v->d, "read the word index", v->err);
    }
    struct file **fv = nids ? malloc(nids * sizeof(*fv)) : NULL;
    size_t nf = 0;
    int r = nids && !fv ? mg_err_oom(v->err) : 0;
    for (size_t i = 0; i < nids && r == 0; i++) {
        struct file *fl = file_get(v, ids[i], false);
        if (!fl) {
            if (v->err->code) r = -1;
            continue;
        }
        bool in = !v->only;
        for (size_t j = 0; j < v->nonly && !in; j++) in = v->only[j] == fl->id;
        if (in && fl->allowed && mg_lex_known(fl->lang)) fv[nf++] = fl;
    }
    free(ids);
    if (nf > 1) qsort(fv, nf, sizeof(*fv), cmp_path);
    if (ncand) *ncand = nf;
    for (size_t i = 0; i < nf && r == 0; i++) {
        if (from_path && strcmp(fv[i]->path, from_path) < 0) continue;
        if (late(v->deadline)) {
            r = 1;
            break;
        }
        struct file *fl = file_get(v, fv[i]->id, true);
        if (!fl) {
            r = v->err->code ? -1 : 0;
            continue;
        }
        r = fn(v, fl, ud);
        if (r > 0) r = 2;
    }
    free(fv);
    return r;
}

static int add_defs(struct nav *v, const char *name, struct mg_nav_def **out, size_t *n)
{
    struct resolved *r = defs_of(v, name);
    if (!r) return -1;
    *out = r->n ? calloc(r->n, sizeof(**out)) : NULL;
    if (r->n && !*out) return mg_err_oom(v->err);
    *n = 0;
    for (size_t i = 0; i < r->n; i++) {
        struct file *fl;
        const struct mg_nav_def *d = resolved_def(v, r, i, &fl);
        if (!d) continue;
        struct mg_nav_def *c = def_copy(d, fl->path);
        if (!c) return mg_err_oom(v->err);
        (*out)[(*n)++] = *c;
        free(c);
    }
    return 0;
}

struct refs_run {
    struct mg_nav_refs *out;
    size_t limit;
    struct occs o;
    const char *after_path; /* the cursor: references after this one */
    int after_line;
};

static int refs_file(struct nav *v, struct file *fl, void *ud)
{
    struct refs_run *rr = ud;
    if (file_occs(v, fl, rr->o.name, &rr->o) != 0) return -1;
    size_t here = 0;
    bool cursor_file = rr->after_path && strcmp(fl->path, rr->after_path) == 0;
    for (size_t k = 0; k < rr->o.n; k++) {
        const struct occ *oc = &rr->o.v[k];
        if (oc->def || (cursor_file && oc->line <= rr->after_line)) continue;
        struct mg_nav_refs *o = rr->out;
        if (o->n >= rr->limit) { /* a full page: the next starts after its last reference */
            const struct mg_nav_site *last = &o->v[o->n - 1];
            size_t cl = strlen(last->path) + 16;
            if (!(o->next_cursor = malloc(cl))) return mg_err_oom(v->err);
            snprintf(o->next_cursor, cl, "%s:%d", last->path, last->line);
            if (here) o->files++;
            return 1;
        }
        here++;
        o->total++;
        struct mg_nav_site *nv = mg_grow(o->v, o->n, &o->cap, sizeof(*nv));
        if (!nv) return mg_err_oom(v->err);
        o->v = nv;
        struct mg_nav_site *s = &o->v[o->n];
        memset(s, 0, sizeof(*s));
        s->path = strdup(fl->path);
        s->line = oc->line;
        s->text = line_text(fl, oc->off);
        s->call = oc->call;
        const struct mg_nav_def *in = enclosing(fl, oc->line, false);
        if (in && !(s->in = def_copy(in, fl->path))) return mg_err_oom(v->err);
        o->n++;
        if (!s->path || !s->text) return mg_err_oom(v->err);
    }
    if (here) rr->out->files++;
    return 0;
}

int mg_nav_references(struct mg_db *d, const struct mg_filter *f, const char *qname, const char *cursor, size_t limit,
                      double deadline, struct mg_nav_refs *out, struct mg_err *err)
{
    memset(out, 0, sizeof(*out));
    char name[MG_TOKEN_MAX * 4];
    if (plain_name(qname, name, sizeof(name), err) != 0) return -1;
    if (limit == 0) limit = 1;
    struct refs_run rr = {out, limit, {0}, NULL, 0};
    char *cpath = NULL;
    if (cursor && *cursor) { /* "path:line", as next_cursor gave it */
        const char *colon = strrchr(cursor, ':');
        char *end;
        long line = colon ? strtol(colon + 1, &end, 10) : -1;
        if (!colon || colon == cursor || line < 0 || *end || line > INT32_MAX || !(cpath = strndup(cursor, (size_t)(colon - cursor))))
            return mg_err_set(err, MG_E_BAD_ARG, "cursor '%.80s' is not one this server gave; pass next_cursor "
                              "from the previous page, or none for the first", cursor);
        rr.after_path = cpath;
        rr.after_line = (int)line;
    }
    rr.o.name = name;
    struct nav v;
    int rc = nav_open(&v, d, f, deadline, err);
    if (rc == 0 && !cursor) rc = add_defs(&v, name, &out->defs, &out->ndefs);
    if (rc == 0) rc = candidates(&v, name, rr.after_path, refs_file, &rr, &out->candidate_files);
    if (rc == 1) out->truncated = true;
    out->complete = rc == 0 && !cursor;
    if (rc > 0) rc = 0;
    free(cpath);
    free(rr.o.v);
    nav_close(&v);
    if (rc != 0) mg_nav_refs_release(out);
    return rc;
}

void mg_nav_refs_release(struct mg_nav_refs *r)
{
    for (size_t i = 0; i < r->ndefs; i++) def_free(&r->defs[i]);
    free(r->defs);
    for (size_t i = 0; i < r->n; i++) {
        free(r->v[i].path);
        free(r->v[i].text);
        def_free(r->v[i].in);
        free(r->v[i].in);
    }
    free(r->v);
    free(r->next_cursor);
    memset(r, 0, sizeof(*r));
}

/* ---- 5. Call graph walks ------------------------------------------------------------------ */

/* A definition of the graph's pool for a file's def (one copy per def). */
static struct mg_nav_def *pooled(struct mg_nav_graph *g, const struct mg_nav_def *d, const char *path)
{
    for (size_t i = g->npool; i-- > 0;) { /* recent first: walks revisit what they just added */
        struct mg_nav_def *p = g->pool[i];
        if (p->start_line == d->start_line && strcmp(p->path, path) == 0 && strcmp(p->name, d->name ? d->name : "") == 0)
            return p;
    }
    struct mg_nav_def **np = mg_grow(g->pool, g->npool, &g->cappool, sizeof(*np));
    if (!np) return NULL;
    g->pool = np;
    struct mg_nav_def *c = def_copy(d, path);
    if (c) g->pool[g->npool++] = c;
    return c;
}

/* The whole file as a definition: what top-level code belongs to. */
static const struct mg_nav_def *file_def(const struct file *fl, struct mg_nav_def *tmp)
{
    memset(tmp, 0, sizeof(*tmp));
    tmp->name = fl->path;
    tmp->kind = "file";
    tmp->file_id = fl->id;
    tmp->start_line = 1;
    tmp->end_line = 1;
    for (size_t i = 0; i < fl->len; i++) tmp->end_line += fl->text[i] == '\n';
    return tmp;
}

static int add_edge(struct mg_nav_graph *g, size_t limit, int depth, struct mg_nav_def *from, struct mg_nav_def *to,
                    const char *callee, int line, const char *confidence)
{
    g->total++;
    if (g->n >= limit) {
        g->truncated = true;
        return 0;
    }
    struct mg_nav_edge *nv = mg_grow(g->v, g->n, &g->cap, sizeof(*nv));
    if (!nv) return -1;
    g->v = nv;
    char *c = strdup(callee);
    if (!c) return -1;
    g->v[g->n++] = (struct mg_nav_edge){depth, from, to, c, line, confidence};
    return 0;
}

/* Languages whose functions call each other by name: C with C++ and
 * Objective-C, JavaScript with TypeScript; any other only itself (a Python
 * call of `norm` is no call of a Go function norm). */
static bool same_world(const char *a, const char *b)
{
    static const char *const worlds[] = {" c cpp objc ", " javascript typescript "};
    if (!a || !b || strcmp(a, b) == 0) return true;
    for (size_t i = 0; i < sizeof(worlds) / sizeof(worlds[0]); i++)
        if (in_words(worlds[i], a, strlen(a)) && in_words(worlds[i], b, strlen(b))) return true;
    return false;
}

static int on_import(void *ud, enum mg_nav_imp how, const char *p)
{
    struct file *fl = ud;
    struct imp *ni = mg_grow(fl->imps, fl->nimps, &fl->capimps, sizeof(*ni));
    char *c = ni ? strdup(p) : NULL;
    if (ni) fl->imps = ni;
    if (!c) {
        fl->imps_failed = true;
        return 1;
    }
    fl->imps[fl->nimps++] = (struct imp){how, c};
    return 0;
}

/* A loaded file's imports (search/navimport.h), read once. */
static int file_imports(struct nav *v, struct file *fl)
{
    if (fl->imps_loaded || !fl->loaded) return 0;
    mg_nav_imports(fl->lang, fl->path, fl->text, fl->len, on_import, fl);
    if (fl->imps_failed) return mg_err_oom(v->err);
    fl->imps_loaded = true;
    return 0;
}

static bool imports(const struct file *from, const char *path)
{
    for (size_t i = 0; i < from->nimps; i++)
        if (mg_nav_import_matches(from->imps[i].how, from->imps[i].p, path)) return true;
    return false;
}

/* a/b.h and a/b.c: one path but for the extension. */
static bool same_stem(const char *a, const char *b)
{
    const char *da = strrchr(a, '.'), *db = strrchr(b, '.');
    if (!da || !db || strchr(da, '/') || strchr(db, '/')) return false;
    return da - a == db - b && memcmp(a, b, (size_t)(da - a)) == 0;
}

/* How a called name resolves from a file: its own definition there, else the
 * repo's by name in a language that can call it; of several, those in files
 * the caller imports come first. *to is NULL when there is none. */
static int resolve(struct nav *v, struct mg_nav_graph *g, struct file *from, const char *name,
                   struct mg_nav_def **to, const char **confidence)
{
    *to = NULL;
    *confidence = "external";
    for (size_t i = 0; i < from->ndefs; i++)
        if (function_like(from->defs[i].kind) && strcmp(from->defs[i].name, name) == 0) {
            *confidence = "file";
            return (*to = pooled(g, &from->defs[i], from->path)) ? 0 : mg_err_oom(v->err);
        }
    struct resolved *r = defs_of(v, name);
    if (!r) return -1;
    size_t nfn = 0;
    const struct mg_nav_def *first = NULL, *ifirst = NULL;
    struct file *ffirst = NULL, *fifirst = NULL;
    bool ifiles = false; /* imported definitions in several files */
    /* headers the caller includes that declare the name: their sources count as included (at most 8) */
    const struct file *hdr[8];
    size_t nhdr = 0;
    const struct file *last = NULL; /* definitions come by path: one look per file */
    bool last_in = false;
    for (int pass = 0; pass < 3; pass++) {
        if (pass == 1 && (nfn < 2 || file_imports(v, from) != 0)) break;
        for (size_t i = 0; i < r->n; i++) {
            struct file *fl;
            const struct mg_nav_def *d = resolved_def(v, r, i, &fl);
            if (!d || !same_world(from->lang, fl->lang)) continue;
            if (pass == 1) {
                if (nhdr < 8 && d->kind && strcmp(d->kind, "prototype") == 0 && (!nhdr || hdr[nhdr - 1] != fl) &&
                    imports(from, fl->path))
                    hdr[nhdr++] = fl;
                continue;
            }
            if (!function_like(d->kind)) continue;
            if (pass == 0) {
                if (!first) {
                    first = d;
                    ffirst = fl;
                }
                nfn++;
                continue;
            }
            if (fl != last) {
                last = fl;
                last_in = imports(from, fl->path);
                for (size_t h = 0; h < nhdr && !last_in; h++)
                    last_in = hdr[h] != fl && same_stem(hdr[h]->path, fl->path);
            }
            if (last_in) {
                if (!ifirst) {
                    ifirst = d;
                    fifirst = fl;
                } else if (fl != fifirst) {
                    ifiles = true;
                }
            }
        }
    }
    if (v->err->code) return -1;
    if (!first) return 0;
    *confidence = nfn == 1 ? "name" : ifirst && !ifiles ? "import" : "ambiguous";
    if (ifirst) {
        first = ifirst;
        ffirst = fifirst;
    }
    return (*to = pooled(g, first, ffirst->path)) ? 0 : mg_err_oom(v->err);
}

/* Can only its own file call d? A C or C++ function declared `static` in a
 * file that is not a header (a header's static inline is every includer's). */
static bool file_local(struct nav *v, const struct mg_nav_def *d)
{
    if (strcmp(d->kind, "function") != 0) return false;
    struct file *fl = file_get(v, d->file_id, true);
    if (!fl || !fl->text || (strcmp(fl->lang, "c") != 0 && strcmp(fl->lang, "cpp") != 0)) return false;
    const char *dot = strrchr(fl->path, '.');
    if (!dot || dot[1] == 'h' || strcmp(dot, ".inc") == 0 || strcmp(dot, ".def") == 0) return false;
    /* the declaration's text from its first line up to the name */
    size_t off = 0;
    for (int line = 1; line < d->start_line && off < fl->len; off++)
        if (fl->text[off] == '\n') line++;
    size_t nl = strlen(d->name), end = off;
    while (end < fl->len && end - off < 512 && !has_word(fl->text + off, end - off + 1, d->name, nl)) end++;
    for (size_t i = off; i + 6 <= end; i++)
        if (memcmp(fl->text + i, "static", 6) == 0 && (i == 0 || !mg_lex_id_char((unsigned char)fl->text[i - 1])) &&
            (i + 6 >= fl->len || !mg_lex_id_char((unsigned char)fl->text[i + 6])))
            return true;
    return false;
}

/* The function-like definitions of name (in path only, when given), pooled,
 * added to the walk's roots; *local (when local): all of them are file_local. */
static int roots(struct nav *v, struct mg_nav_graph *g, const char *name, const char *path, bool *local)
{
    struct resolved *r = defs_of(v, name);
    if (!r) return -1;
    size_t cap = g->ndefs, n = 0;
    bool all_local = true;
    for (size_t i = 0; i < r->n; i++) {
        struct file *fl;
        const struct mg_nav_def *d = resolved_def(v, r, i, &fl);
        if (!d || !function_like(d->kind) || (path && strcmp(fl->path, path) != 0)) continue;
        if (local && all_local && !file_local(v, d)) all_local = false;
        n++;
        struct mg_nav_def **nd = mg_grow(g->defs, g->ndefs, &cap, sizeof(*nd));
        if (!nd) return mg_err_oom(v->err);
        g->defs = nd;
        if (!(g->defs[g->ndefs++] = pooled(g, d, fl->path))) return mg_err_oom(v->err);
    }
    if (local) *local = n > 0 && all_local;
    return 0;
}

/* --- callers --- */

struct callers_run {
    struct mg_nav_graph *g;
    size_t limit;
    int depth;
    const char *name;
    struct mg_nav_def *to;       /* the callee at depth > 1; NULL: resolve the name from each caller */
    struct occs o;
    struct mg_nav_def **next;    /* callers found at this depth, for the next */
    size_t nnext, capnext;
    size_t visited;
};

static bool seen_def(struct mg_nav_graph *g, size_t upto, const struct mg_nav_def *d)
{
    for (size_t i = 0; i < upto; i++)
        if (g->v[i].from == d) return true;
    return false;
}

static int callers_file(struct nav *v, struct file *fl, void *ud)
{
    struct callers_run *cr = ud;
    if (file_occs(v, fl, cr->name, &cr->o) != 0) return -1;
    for (size_t k = 0; k < cr->o.n; k++) {
        const struct occ *oc = &cr->o.v[k];
        if (oc->def || !oc->call) continue;
        struct mg_nav_def tmp;
        const struct mg_nav_def *in = enclosing(fl, oc->line, true);
        if (!in) in = file_def(fl, &tmp);
        struct mg_nav_def *from = pooled(cr->g, in, fl->path);
        if (!from) return mg_err_oom(v->err);
        struct mg_nav_def *to;
        const char *conf;
        if (resolve(v, cr->g, fl, cr->name, &to, &conf) != 0) return -1;
        if (cr->to && to != cr->to) { /* a caller's caller by name: not when the call is surely another's */
            if (strcmp(conf, "file") == 0 || strcmp(conf, "import") == 0) continue;
            to = cr->to;
            conf = "ambiguous";
        }
        bool fresh = !seen_def(cr->g, cr->g->n, from);
        for (size_t r = 0; r < cr->g->ndefs && fresh; r++) fresh = cr->g->defs[r] != from; /* a root is walked */
        if (cr->g->n >= cr->limit) {
            cr->g->truncated = true;
            return 1;
        }
        if (add_edge(cr->g, cr->limit, cr->depth, from, to, cr->name, oc->line, conf) != 0) return mg_err_oom(v->err);
        if (fresh && strcmp(from->kind, "file") != 0) {
            struct mg_nav_def **nn = mg_grow(cr->next, cr->nnext, &cr->capnext, sizeof(*nn));
            if (!nn) return mg_err_oom(v->err);
            cr->next = nn;
            cr->next[cr->nnext++] = from;
        }
    }
    return 0;
}

static int clamp_depth(int depth, struct mg_err *err)
{
    if (depth < 1 || depth > MG_NAV_DEPTH_MAX)
        return mg_err_set(err, MG_E_BAD_ARG, "depth must be between 1 and %d", MG_NAV_DEPTH_MAX);
    return 0;
}

int mg_nav_callers(struct mg_db *d, const struct mg_filter *f, const char *qname, int depth, size_t limit,
                   double deadline, struct mg_nav_graph *out, struct mg_err *err)
{
    return mg_nav_callers_of(d, f, &qname, NULL, 1, depth, limit, deadline, out, err);
}

/* How many function-like definitions the repo has by name. */
static int defs_count(struct nav *v, const char *name, size_t *n)
{
    struct resolved *r = defs_of(v, name);
    if (!r) return -1;
    *n = 0;
    for (size_t i = 0; i < r->n; i++) {
        struct file *fl;
        const struct mg_nav_def *d = resolved_def(v, r, i, &fl);
        if (d && function_like(d->kind)) ++*n;
    }
    return 0;
}

/* Call fn on the files that may call callee name: those of the local
 * definitions when they are all file_local, else every candidate. */
static int callers_in(struct nav *v, const char *name, const struct mg_nav_def *const *local, size_t nlocal,
                      struct callers_run *cr)
{
    int64_t ids[64];
    if (nlocal > 0 && nlocal <= sizeof(ids) / sizeof(ids[0])) {
        for (size_t i = 0; i < nlocal; i++) ids[i] = local[i]->file_id;
        v->only = ids;
        v->nonly = nlocal;
    }
    int rc = candidates(v, name, NULL, callers_file, cr, NULL);
    v->only = NULL;
    v->nonly = 0;
    return rc;
}

int mg_nav_callers_of(struct mg_db *d, const struct mg_filter *f, const char *const *qnames,
                      const char *const *in_paths, size_t nnames, int depth, size_t limit, double deadline,
                      struct mg_nav_graph *out, struct mg_err *err)
{
    memset(out, 0, sizeof(*out));
    if (clamp_depth(depth, err) != 0) return -1;
    char(*names)[MG_TOKEN_MAX * 4] = nnames ? malloc(nnames * sizeof(*names)) : NULL;
    if (nnames && !names) return mg_err_oom(err);
    for (size_t i = 0; i < nnames; i++)
        if (plain_name(qnames[i], names[i], sizeof(names[i]), err) != 0) {
            free(names);
            return -1;
        }
    struct nav v;
    int rc = nav_open(&v, d, f, deadline, err);
    size_t *from = nnames ? calloc(nnames + 1, sizeof(*from)) : NULL; /* names[i]'s roots: from[i]..from[i+1] */
    bool *local = nnames ? calloc(nnames, sizeof(*local)) : NULL;
    if (nnames && (!from || !local)) rc = mg_err_oom(err);
    for (size_t i = 0; rc == 0 && i < nnames; i++) {
        from[i] = out->ndefs;
        rc = roots(&v, out, names[i], in_paths ? in_paths[i] : NULL, &local[i]);
        from[i + 1] = out->ndefs;
    }
    struct callers_run cr = {.g = out, .limit = limit, .depth = 1};
    struct mg_nav_def **frontier = NULL;
    size_t nfrontier = 0;
    for (int level = 1; rc == 0 && level <= depth; level++) {
        if (level == 1) {
            for (size_t i = 0; rc == 0 && i < nnames; i++) {
                cr.name = names[i];
                size_t ndefs = 0;
                if (in_paths && in_paths[i] && !local[i] && (rc = defs_count(&v, cr.name, &ndefs)) != 0) break;
                if (ndefs > MG_NAV_COMMON_NAME) { /* one main among many: its callers by name are anyone's */
                    out->truncated = true;
                    continue;
                }
                rc = callers_in(&v, cr.name, (const struct mg_nav_def *const *)out->defs + from[i],
                                local[i] ? from[i + 1] - from[i] : 0, &cr);
            }
        } else {
            for (size_t i = 0; rc == 0 && i < nfrontier; i++) {
                if (++cr.visited > MG_NAV_NODES_MAX || out->n >= limit) {
                    out->truncated = true;
                    break;
                }
                cr.name = frontier[i]->name;
                cr.to = frontier[i];
                const struct mg_nav_def *self = frontier[i];
                bool own = file_local(&v, self);
                size_t ndefs = 0;
                if (!own && (rc = defs_count(&v, cr.name, &ndefs)) != 0) break;
                if (ndefs > MG_NAV_COMMON_NAME) { /* main, probe, init: a call by name is anyone's */
                    out->truncated = true;
                    continue;
                }
                rc = callers_in(&v, cr.name, &self, own ? 1 : 0, &cr);
            }
        }
        free(frontier);
        frontier = cr.next;
        nfrontier = cr.nnext;
        cr.next = NULL;
        cr.nnext = cr.capnext = 0;
        cr.depth = level + 1;
        if (out->truncated) break;
    }
    free(frontier);
    free(cr.next);
    free(cr.o.v);
    free(names);
    free(from);
    free(local);
    if (rc > 0) {
        out->truncated = true;
        rc = 0;
    }
    nav_close(&v);
    if (rc != 0) mg_nav_graph_release(out);
    return rc;
}

/* --- callees --- */

struct callees_run {
    const char *lang;
    const char *self; /* the definition's own name: its first occurrence is no call */
    bool self_seen;
    int lo, hi;       /* the definition's lines */
    struct call { size_t off; int line; size_t len; } *v;
    size_t n, cap;
    bool failed;
};

static int on_call(void *ud, const char *t, size_t off, size_t len, int line, bool call)
{
    struct callees_run *cr = ud;
    if (line > cr->hi) return 1;
    if (line < cr->lo) return 0;
    if (!cr->self_seen && strlen(cr->self) == len && memcmp(t + off, cr->self, len) == 0) {
        cr->self_seen = true;
        return 0;
    }
    if (!call || (!member(t, off) && keyword(cr->lang, t + off, len))) return 0;
    struct call *nv = mg_grow(cr->v, cr->n, &cr->cap, sizeof(*nv));
    if (!nv) {
        cr->failed = true;
        return 1;
    }
    cr->v = nv;
    cr->v[cr->n++] = (struct call){off, line, len};
    return 0;
}

/* The distinct calls inside one definition, each with its first line, as
 * edges from it. */
static int calls_of(struct nav *v, struct mg_nav_graph *g, size_t limit, int depth, struct mg_nav_def *from,
                    struct mg_nav_def ***found, size_t *nfound, size_t *capfound)
{
    struct file *fl = file_get(v, from->file_id, true);
    if (!fl) return v->err->code ? -1 : 0;
    if (file_defs(v, fl) != 0) return -1;
    struct callees_run cr = {.lang = fl->lang, .self = from->name, .lo = from->start_line, .hi = from->end_line};
    /* lex from the definition's first line: a definition never starts inside a comment */
    size_t off = 0;
    for (int line = 1; line < from->start_line && off < fl->len; off++)
        if (fl->text[off] == '\n') line++;
    cr.lo = 1;
    cr.hi = from->end_line - from->start_line + 1;
    mg_nav_lex(fl->lang, fl->text + off, fl->len - off, on_call, &cr);
    if (cr.failed) {
        free(cr.v);
        return mg_err_oom(v->err);
    }
    int rc = 0;
    for (size_t i = 0; i < cr.n && rc == 0; i++) {
        char name[MG_TOKEN_MAX * 4];
        if (cr.v[i].len >= sizeof(name)) continue;
        memcpy(name, fl->text + off + cr.v[i].off, cr.v[i].len);
        name[cr.v[i].len] = 0;
        bool dup = false;
        for (size_t k = 0; k < i && !dup; k++)
            dup = cr.v[k].len == cr.v[i].len && memcmp(fl->text + off + cr.v[k].off, name, cr.v[i].len) == 0;
        if (dup) continue;
        struct mg_nav_def *to;
        const char *conf;
        if (resolve(v, g, fl, name, &to, &conf) != 0) {
            rc = -1;
            break;
        }
        if (add_edge(g, limit, depth, from, to, name, from->start_line + cr.v[i].line - 1, conf) != 0) {
            rc = mg_err_oom(v->err);
            break;
        }
        if (to && found) {
            bool known = false;
            for (size_t k = 0; k < *nfound && !known; k++) known = (*found)[k] == to;
            if (!known) {
                struct mg_nav_def **nf = mg_grow(*found, *nfound, capfound, sizeof(*nf));
                if (!nf) {
                    rc = mg_err_oom(v->err);
                    break;
                }
                *found = nf;
                (*found)[(*nfound)++] = to;
            }
        }
    }
    free(cr.v);
    return rc;
}

int mg_nav_callees(struct mg_db *d, const struct mg_filter *f, const char *qname, int depth, size_t limit,
                   double deadline, struct mg_nav_graph *out, struct mg_err *err)
{
    memset(out, 0, sizeof(*out));
    char name[MG_TOKEN_MAX * 4];
    if (plain_name(qname, name, sizeof(name), err) != 0 || clamp_depth(depth, err) != 0) return -1;
    struct nav v;
    int rc = nav_open(&v, d, f, deadline, err);
    if (rc == 0) rc = roots(&v, out, name, NULL, NULL);
    struct mg_nav_def **frontier = NULL, **next = NULL, **visited = NULL;
    size_t nfrontier = 0, nnext = 0, capnext = 0, nvisited = 0, capvisited = 0;
    if (rc == 0 && out->ndefs) {
        frontier = malloc(out->ndefs * sizeof(*frontier));
        if (!frontier) rc = mg_err_oom(err);
        else memcpy(frontier, out->defs, out->ndefs * sizeof(*frontier));
        nfrontier = out->ndefs;
    }
    for (int level = 1; rc == 0 && level <= depth && nfrontier; level++) {
        for (size_t i = 0; rc == 0 && i < nfrontier; i++) {
            if (late(deadline) || nvisited >= MG_NAV_NODES_MAX || out->n >= limit) {
                out->truncated = true;
                break;
            }
            bool known = false;
            for (size_t k = 0; k < nvisited && !known; k++) known = visited[k] == frontier[i];
            if (known) continue;
            struct mg_nav_def **nv = mg_grow(visited, nvisited, &capvisited, sizeof(*nv));
            if (!nv) {
                rc = mg_err_oom(err);
                break;
            }
            visited = nv;
            visited[nvisited++] = frontier[i];
            rc = calls_of(&v, out, limit, level, frontier[i], level < depth ? &next : NULL, &nnext, &capnext);
        }
        free(frontier);
        frontier = next;
        nfrontier = nnext;
        next = NULL;
        nnext = capnext = 0;
        if (out->truncated) break;
    }
    free(frontier);
    free(next);
    free(visited);
    nav_close(&v);
    if (rc != 0) mg_nav_graph_release(out);
    return rc;
}

/* --- trace --- */

int mg_nav_trace(struct mg_db *d, const struct mg_filter *f, const char *qfrom, const char *qto, int max_depth,
                 size_t max_paths, double deadline, struct mg_nav_paths *out, struct mg_err *err)
{
    memset(out, 0, sizeof(*out));
    char from[MG_TOKEN_MAX * 4], to[MG_TOKEN_MAX * 4];
    if (plain_name(qfrom, from, sizeof(from), err) != 0 || plain_name(qto, to, sizeof(to), err) != 0 ||
        clamp_depth(max_depth, err) != 0)
        return -1;
    if (max_paths == 0) max_paths = 1;
    struct nav v;
    struct mg_nav_graph *g = &out->g;
    int rc = nav_open(&v, d, f, deadline, err);
    if (rc == 0) rc = roots(&v, g, from, NULL, NULL);
    /* breadth first over definitions; parent[i]: the edge that reached visited[i] */
    struct mg_nav_def **visited = NULL;
    ssize_t *parent = NULL;
    size_t nvisited = 0, capvisited = 0, head = 0;
    int *level = NULL;
    for (size_t i = 0; rc == 0 && i < g->ndefs; i++) {
        if (nvisited == capvisited) {
            capvisited = capvisited ? capvisited * 2 : 64;
            visited = realloc(visited, capvisited * sizeof(*visited));
            parent = realloc(parent, capvisited * sizeof(*parent));
            level = realloc(level, capvisited * sizeof(*level));
            if (!visited || !parent || !level) rc = mg_err_oom(err);
        }
        if (rc == 0) {
            visited[nvisited] = g->defs[i];
            parent[nvisited] = -1;
            level[nvisited++] = 0;
        }
    }
    int found_at = -1;
    while (rc == 0 && head < nvisited) {
        if (found_at >= 0 && level[head] >= found_at) break; /* every shortest path is in */
        if (level[head] >= max_depth) break;
        if (late(deadline) || head >= MG_NAV_NODES_MAX) {
            out->truncated = true;
            break;
        }
        struct mg_nav_def *node = visited[head];
        size_t e0 = g->n;
        if (calls_of(&v, g, SIZE_MAX, level[head] + 1, node, NULL, NULL, NULL) != 0) {
            rc = -1;
            break;
        }
        out->visited++;
        for (size_t e = e0; e < g->n && rc == 0; e++) {
            struct mg_nav_def *t = g->v[e].to;
            if (!t) continue;
            bool known = false;
            for (size_t k = 0; k < nvisited && !known; k++) known = visited[k] == t;
            if (known && strcmp(t->name, to) != 0) continue;
            if (nvisited == capvisited) {
                capvisited *= 2;
                struct mg_nav_def **nv = realloc(visited, capvisited * sizeof(*nv));
                ssize_t *np = realloc(parent, capvisited * sizeof(*np));
                int *nl = realloc(level, capvisited * sizeof(*nl));
                if (nv) visited = nv;
                if (np) parent = np;
                if (nl) level = nl;
                if (!nv || !np || !nl) {
                    rc = mg_err_oom(err);
                    break;
                }
            }
            visited[nvisited] = t;
            parent[nvisited] = (ssize_t)e;
            level[nvisited] = level[head] + 1;
            if (strcmp(t->name, to) == 0 && out->n < max_paths) {
                if (found_at < 0) found_at = level[head] + 1;
                /* the path: edges back to a root */
                size_t len = 0;
                for (ssize_t p = (ssize_t)e; p >= 0;) {
                    len++;
                    struct mg_nav_def *fr = g->v[p].from;
                    ssize_t up = -1;
                    for (size_t k = 0; k < nvisited; k++)
                        if (visited[k] == fr) {
                            up = parent[k];
                            break;
                        }
                    p = up;
                }
                struct mg_nav_edge *path = calloc(len, sizeof(*path));
                size_t *nl = realloc(out->len, (out->n + 1) * sizeof(*nl));
                if (nl) out->len = nl;
                struct mg_nav_edge **np = realloc(out->paths, (out->n + 1) * sizeof(*np));
                if (np) out->paths = np;
                if (!path || !nl || !np) {
                    free(path);
                    rc = mg_err_oom(err);
                    break;
                }
                size_t i = len;
                for (ssize_t p = (ssize_t)e; p >= 0;) {
                    path[--i] = g->v[p]; /* a copy: g->v may still move; its strings stay g's */
                    struct mg_nav_def *fr = g->v[p].from;
                    ssize_t up = -1;
                    for (size_t k = 0; k < nvisited; k++)
                        if (visited[k] == fr) {
                            up = parent[k];
                            break;
                        }
                    p = up;
                }
                out->paths[out->n] = path;
                out->len[out->n++] = len;
            }
            nvisited++;
        }
        head++;
    }
    free(visited);
    free(parent);
    free(level);
    nav_close(&v);
    if (rc != 0) mg_nav_paths_release(out);
    return rc;
}

void mg_nav_graph_release(struct mg_nav_graph *g)
{
    for (size_t i = 0; i < g->n; i++) free(g->v[i].callee);
    free(g->v);
    for (size_t i = 0; i < g->npool; i++) {
        def_free(g->pool[i]);
        free(g->pool[i]);
    }
    free(g->pool);
    free(g->defs);
    memset(g, 0, sizeof(*g));
}

void mg_nav_paths_release(struct mg_nav_paths *p)
{
    for (size_t i = 0; i < p->n; i++) free(p->paths[i]);
    free(p->paths);
    free(p->len);
    mg_nav_graph_release(&p->g);
    memset(p, 0, sizeof(*p));
}
