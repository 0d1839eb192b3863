/* nav_calls.c — call-graph walks: the callers of a definition and the
 * callees it calls (a called name resolved by the file's imports and paths,
 * a call through a C field by nav_ptr.c); nav_paths.c searches the paths
 * between two over callees (nav_int.h).
 *
 * Sections:
 *   1. the graph and resolution of a called name
 *   2. callers
 *   2b. callers through C macros and function values
 *   3. callees
 */
#include "search/nav_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index/lex.h"
#include "store/tokenize.h"
#include "util/buf.h"
#include "util/clock.h"

/* ---- 1. the graph and resolution of a called name -------------------------------------------------- */

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
    struct mg_nav_def *c = mg__nav_def_copy(d, path);
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
                    const char *callee, int line, const char *confidence, unsigned candidates)
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
    g->v[g->n++] = (struct mg_nav_edge){depth, from, to, c, line, confidence, candidates};
    return 0;
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

/* A definition a call may reach: function-like, and no method when the call
 * is bare where that cannot be one (mg__nav_bare_misses_methods). */
static bool callable(const struct mg_nav_def *d, bool no_methods)
{
    return mg__nav_function_like(d->kind) && !(no_methods && strcmp(d->kind, "method") == 0);
}

/* How a called name resolves from a file (nav.h's confidences): its own
 * definition there ("exact"), else the repo's by name in a language that can
 * call it, those in files the caller imports or includes first ("import" when
 * they are all in one file, else "name"); no method when no_methods. *to is
 * NULL when there is none. */
static int resolve(struct nav *v, struct mg_nav_graph *g, struct file *from, const char *name, const char *rtype,
                   bool no_methods, struct mg_nav_def **to, const char **confidence, unsigned *ncand)
{
    *to = NULL;
    *ncand = 0;
    *confidence = "external";
    if (rtype) { /* a method of the receiver's declared type: the caller's file first, then the repo's */
        for (size_t i = 0; i < from->ndefs; i++)
            if (mg__nav_function_like(from->defs[i].kind) && strcmp(from->defs[i].name, name) == 0 &&
                from->defs[i].container && strcmp(from->defs[i].container, rtype) == 0) {
                *confidence = "type";
                return (*to = pooled(g, &from->defs[i], from->path)) ? 0 : mg_err_oom(v->err);
            }
        struct resolved *r = mg__nav_defs_of(v, name);
        if (!r) return -1;
        for (size_t i = 0; i < r->n; i++) {
            struct file *fl;
            const struct mg_nav_def *d = r->cls[i] == RESOLVED_FN ? mg__nav_resolved_def(v, r, i, &fl) : NULL;
            if (d && d->container && strcmp(d->container, rtype) == 0 &&
                mg__nav_same_world(from->lang, fl->lang)) {
                *confidence = "type";
                return (*to = pooled(g, d, fl->path)) ? 0 : mg_err_oom(v->err);
            }
        }
    }
    for (size_t i = 0; i < from->ndefs; i++)
        if (callable(&from->defs[i], no_methods) && strcmp(from->defs[i].name, name) == 0) {
            *confidence = "exact";
            return (*to = pooled(g, &from->defs[i], from->path)) ? 0 : mg_err_oom(v->err);
        }
    struct resolved *r = mg__nav_defs_of(v, name);
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
        if (pass == 1 && (nfn == 0 || file_imports(v, from) != 0)) break;
        for (size_t i = 0; i < r->n; i++) {
            if (r->cls[i] != (pass == 1 ? RESOLVED_PROTO : RESOLVED_FN)) continue; /* (the rest unread) */
            struct file *fl;
            const struct mg_nav_def *d = mg__nav_resolved_def(v, r, i, &fl);
            if (!d || !mg__nav_same_world(from->lang, fl->lang)) continue;
            if (pass == 1) {
                if (nhdr < 8 && d->kind && strcmp(d->kind, "prototype") == 0 && (!nhdr || hdr[nhdr - 1] != fl) &&
                    imports(from, fl->path))
                    hdr[nhdr++] = fl;
                continue;
            }
            if (!callable(d, no_methods)) continue;
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
    *confidence = ifirst && !ifiles ? "import" : "name";
    if (!(ifirst && !ifiles)) *ncand = nfn > 0xffff ? 0xffff : (unsigned)nfn;
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
    struct file *fl = mg__nav_file(v, d->file_id, true);
    if (!fl || !fl->text || (strcmp(fl->lang, "c") != 0 && strcmp(fl->lang, "cpp") != 0)) return false;
    const char *dot = strrchr(fl->path, '.');
    if (!dot || dot[1] == 'h' || strcmp(dot, ".inc") == 0 || strcmp(dot, ".def") == 0) return false;
    /* the declaration's text from its first line up to the name */
    size_t off = mg__nav_line_start(fl, d->start_line);
    size_t nl = strlen(d->name), end = off;
    while (end < fl->len && end - off < 512 && !mg__nav_has_word(fl->text + off, end - off + 1, d->name, nl)) end++;
    for (size_t i = off; i + 6 <= end; i++)
        if (memcmp(fl->text + i, "static", 6) == 0 && (i == 0 || !mg_lex_id_char((unsigned char)fl->text[i - 1])) &&
            (i + 6 >= fl->len || !mg_lex_id_char((unsigned char)fl->text[i + 6])))
            return true;
    return false;
}

/* The function-like definitions of name (in path only, when given), pooled,
 * added to the walk's roots; *local (when local): all of them are file_local. */
int mg__nav_roots(struct nav *v, struct mg_nav_graph *g, const char *name, const char *path, bool *local)
{
    struct resolved *r = mg__nav_defs_of(v, name);
    if (!r) return -1;
    size_t cap = g->ndefs, n = 0;
    bool all_local = true;
    for (size_t i = 0; i < r->n; i++) {
        struct file *fl;
        const struct mg_nav_def *d = r->cls[i] == RESOLVED_FN ? mg__nav_resolved_def(v, r, i, &fl) : NULL;
        if (!d || (path && strcmp(fl->path, path) != 0)) continue;
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

/* ---- 2. callers ------------------------------------------------------------------------------------ */

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
    bool prop;                   /* the callee is a Python property: `x.name` read is a call */
    /* C macros whose expansions use the callee (section 2b): named in their
     * body (param -1), or building its name from argument param (rest) */
    struct macro_use { char name[MG_TOKEN_MAX * 4], rest[MG_TOKEN_MAX * 4]; int param, level; int64_t fid; } mu[16];
    size_t nmu;
};

/* Whether every definition in d[0, n) is a Python property (one at least).
 * -1 with err. */
static int all_properties(struct nav *v, struct mg_nav_def *const *d, size_t n, bool *yes)
{
    *yes = n > 0;
    for (size_t i = 0; i < n && *yes; i++) {
        struct file *fl = mg__nav_file(v, d[i]->file_id, true);
        if (!fl) return v->err->code ? -1 : (*yes = false, 0);
        *yes = mg__nav_py_property(fl, d[i]);
    }
    return 0;
}

/* Whether every definition of name in the repo is a Python property (one
 * at least). -1 with err. */
static int named_property(struct nav *v, const char *name, bool *yes)
{
    *yes = false;
    struct resolved *rp = mg__nav_defs_of(v, name), rc;
    if (!rp) return -1;
    rc = *rp; /* (file reads below may reuse the lookup's memory) */
    for (size_t i = 0; i < rc.n; i++) {
        struct file *fl;
        const struct mg_nav_def *d = mg__nav_resolved_def(v, &rc, i, &fl);
        if (!d || !(fl = mg__nav_file(v, fl->id, true)) || !(d = mg__nav_resolved_def(v, &rc, i, &fl)) ||
            !mg__nav_py_property(fl, d))
            return (*yes = false, v->err->code ? -1 : 0);
        *yes = true;
    }
    return 0;
}

/* Whether the name at t[off] is read as an attribute, after `.` (`x.name`;
 * not after `->`, Python's return annotation). */
static bool attribute_read(const char *t, size_t off)
{
    size_t b = off;
    while (b > 0 && (t[b - 1] == ' ' || t[b - 1] == '\t')) b--;
    return b > 0 && t[b - 1] == '.';
}

/* Whether g has an edge from `from` at line (to `to`; NULL: to any): the same call found another way. */
static bool edge_at(const struct mg_nav_graph *g, const struct mg_nav_def *from, int line, const struct mg_nav_def *to)
{
    for (size_t e = 0; e < g->n; e++)
        if (g->v[e].from == from && g->v[e].line == line && (!to || g->v[e].to == to)) return true;
    return false;
}

static bool seen_def(struct mg_nav_graph *g, size_t upto, const struct mg_nav_def *d)
{
    for (size_t i = 0; i < upto; i++)
        if (g->v[i].from == d) return true;
    return false;
}

/* An edge of a callers walk, its caller kept for the next depth. 0, 1 at
 * the limit, -1 out of memory. */
static int caller_edge(struct callers_run *cr, struct mg_nav_def *from, struct mg_nav_def *to, int line,
                       const char *conf, unsigned ncand)
{
    bool fresh = !seen_def(cr->g, cr->g->n, from);
    for (size_t r = 0; r < cr->g->ndefs && fresh; r++) fresh = cr->g->defs[r] != from; /* a root is walked */
    if (cr->g->n >= cr->limit) {
        cr->g->truncated = true;
        return 1;
    }
    if (add_edge(cr->g, cr->limit, cr->depth, from, to, cr->name, line, conf, ncand) != 0) return -1;
    if (fresh && strcmp(from->kind, "file") != 0) {
        struct mg_nav_def **nn = mg_grow(cr->next, cr->nnext, &cr->capnext, sizeof(*nn));
        if (!nn) return -1;
        cr->next = nn;
        cr->next[cr->nnext++] = from;
    }
    return 0;
}

/* The walk's definitions a call through a receiver of declared type rt (in
 * fl) may reach by dispatch (nav_dispatch.c): the callee at depth > 1, else
 * the roots named cr->name; at most cap, in out. -1 on error. */
static int dispatch_roots(struct nav *v, struct callers_run *cr, struct file *fl, const char *rt,
                          struct mg_nav_def **out, size_t cap, size_t *n)
{
    *n = 0;
    size_t nc = cr->to ? 1 : cr->g->ndefs;
    for (size_t i = 0; i < nc && *n < cap; i++) {
        struct mg_nav_def *c = cr->to ? cr->to : cr->g->defs[i];
        bool yes;
        struct file *cf = strcmp(c->name, cr->name) == 0 ? mg__nav_file(v, c->file_id, false) : NULL;
        if (!cf || !mg__nav_same_world(fl->lang, cf->lang)) {
            if (v->err->code) return -1;
            continue;
        }
        if (mg__nav_overrides(v, fl->lang, rt, c, &yes) != 0) return -1;
        if (yes) out[(*n)++] = c;
    }
    return 0;
}

/* Whether the repo defines the name the callers are asked of (a root). */
static bool named_root(const struct callers_run *cr)
{
    for (size_t i = 0; i < cr->g->ndefs; i++)
        if (strcmp(cr->g->defs[i]->name, cr->name) == 0) return true;
    return false;
}

static void macro_use(struct callers_run *cr, const char *name, int param, const char *rest, int level, int64_t fid);

/* Whether the word of len bytes at t[off] (n in all) is no function value
 * (C): a member after `.` or `->`, or a declaration followed by `(`. */
static bool no_value(const char *t, size_t n, size_t off, size_t len)
{
    size_t b = off, e = off + len;
    while (b > 0 && (t[b - 1] == ' ' || t[b - 1] == '\t')) b--;
    while (e < n && (t[e] == ' ' || t[e] == '\t' || t[e] == '\n')) e++;
    return (b > 0 && (t[b - 1] == '.' || (b > 1 && t[b - 1] == '>' && t[b - 2] == '-'))) || (e < n && t[e] == '(');
}

static int callers_file(struct nav *v, struct file *fl, void *ud)
{
    struct callers_run *cr = ud;
    if (mg__nav_file_occs(v, fl, cr->name, &cr->o) != 0) return -1;
    bool cfam = mg__nav_c_family(fl->lang);
    for (size_t k = 0; k < cr->o.n; k++) {
        const struct occ *oc = &cr->o.v[k];
        if (oc->def) continue;
        struct mg_nav_def tmp;
        const struct mg_nav_def *in = mg__nav_enclosing(fl, oc->line, true);
        /* C: in a macro's body, the name is used where the macro is expanded (section 2b) */
        bool in_macro = cfam && in && strcmp(in->kind, "macro") == 0 && strcmp(in->name, cr->name) != 0;
        if (in_macro) macro_use(cr, in->name, -1, "", 1, fl->id);
        /* C: a function used as a value (passed, stored, compared) may be called from there: a "value" edge */
        bool value = !oc->call && cfam && !cr->prop && !in_macro &&
                     !no_value(fl->text, fl->len, oc->off, strlen(cr->name));
        if (!oc->call && !value && !(cr->prop && attribute_read(fl->text, oc->off) &&
                                     !mg__nav_py_import_module(fl, oc->off, strlen(cr->name))))
            continue;
        bool ptr = false; /* o->name(x) calls what was stored into the field name, not the function name */
        if (!value && mg__nav_pointer_call(v, fl, oc->off, oc->line, cr->name, &ptr) != 0) return -1;
        if (ptr) continue;
        if (!in) in = file_def(fl, &tmp);
        struct mg_nav_def *from = pooled(cr->g, in, fl->path);
        if (!from) return mg_err_oom(v->err);
        struct mg_nav_def *to;
        const char *conf;
        unsigned ncand;
        char rt[128], pt[128] = "";
        bool typed = mg__nav_receiver_type(fl, oc->off, oc->line, rt, sizeof(rt), NULL, NULL);
        /* the library's, or a Python local or builtin: no edge to the repo */
        bool stdlib = mg__nav_receiver_stdlib(fl, oc->off, oc->line) ||
                      mg__nav_py_unbound(fl, oc->off, strlen(cr->name), oc->line);
        if (!stdlib && mg__nav_py_attr_misses(v, fl, oc->off, oc->line, cr->name, &stdlib, pt, sizeof(pt)) != 0)
            return -1;
        if (pt[0]) typed = strcpy(rt, pt) != NULL; /* a Python value's class, known across files */
        bool no_methods = !typed && mg__nav_bare_misses_methods(fl, oc->off, oc->line);
        if (stdlib) {
            to = NULL;
            conf = "external";
            ncand = 0;
        } else if (resolve(v, cr->g, fl, cr->name, typed ? rt : NULL, no_methods, &to, &conf, &ncand) != 0) {
            return -1;
        }
        struct mg_nav_def *disp[16];
        size_t nd = 0; /* may call by dispatch: beside the type's own method, else instead of a guess by name */
        if (typed && !stdlib && dispatch_roots(v, cr, fl, rt, disp, sizeof(disp) / sizeof(disp[0]), &nd) != 0)
            return -1;
        for (size_t i = 0; i < nd; i++) {
            if (i == 0 && strcmp(conf, "type") == 0 && (!cr->to || to == cr->to)) {
                int rc = caller_edge(cr, from, to, oc->line, conf, ncand);
                if (rc != 0) return rc < 0 ? mg_err_oom(v->err) : 1;
            }
            int rc = caller_edge(cr, from, disp[i], oc->line, "dispatch", 0);
            if (rc != 0) return rc < 0 ? mg_err_oom(v->err) : 1;
        }
        if (nd) continue;
        /* a call the repo's definitions of the name cannot receive (another
         * language's, a builtin where only methods are defined): not theirs */
        if (!cr->to && !to && named_root(cr)) continue;
        if (cr->to && to != cr->to) { /* a caller's caller by name: not when the call is surely another's */
            if (strcmp(conf, "exact") == 0 || strcmp(conf, "import") == 0 || strcmp(conf, "type") == 0 ||
                stdlib || (no_methods && !callable(cr->to, true)))
                continue;
            to = cr->to; /* "name" (ncand its count) or "external" (none resolved from here) */
            conf = "name";
        }
        /* (a value of the name no function of the repo's receives: none, or a macro's use) */
        if (value && (!to || strcmp(to->kind, "macro") == 0)) continue;
        int rc = caller_edge(cr, from, to, oc->line, value ? "value" : conf, ncand);
        if (rc != 0) return rc < 0 ? mg_err_oom(v->err) : 1;
    }
    return 0;
}

/* The callers of cr->name through function pointers (nav_ptr.c): an edge
 * ("pointer") from each call through a field it is stored into to the root
 * in the store's file (else the first of roots). */
static int pointer_callers(struct nav *v, struct mg_nav_def *const *roots, size_t nroots, struct callers_run *cr)
{
    struct ptr_site *s;
    size_t n;
    if (nroots == 0) return 0;
    if (mg__nav_ptr_callers(v, cr->name, &s, &n) != 0) return -1;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        /* the site's definitions; its text only when no definition holds it (file_def counts its lines) */
        struct file *fl = mg__nav_file(v, s[i].fid, false);
        const struct mg_nav_def *in = NULL;
        bool ok = fl && mg__nav_file_defs(v, fl) == 0;
        if (ok && !(in = mg__nav_enclosing(fl, s[i].line, true)))
            ok = (fl = mg__nav_file(v, s[i].fid, true)) && fl->loaded;
        if (!ok) {
            rc = v->err->code ? -1 : 0;
            continue;
        }
        struct mg_nav_def tmp;
        struct mg_nav_def *from = pooled(cr->g, in ? in : file_def(fl, &tmp), fl->path), *to = roots[0];
        if (!from) {
            rc = mg_err_oom(v->err);
            break;
        }
        for (size_t r = 0; r < nroots; r++)
            if (roots[r]->file_id == s[i].store_fid) to = roots[r];
        if (!edge_at(cr->g, from, s[i].line, NULL) && /* (the same call found by name) */
            (rc = caller_edge(cr, from, to, s[i].line, "pointer", 0)) != 0)
            rc = rc < 0 ? mg_err_oom(v->err) : 1;
    }
    free(s);
    return rc;
}

/* ---- 2b. callers through C macros and function values --------------------------------------------- */

#define MACRO_LEVELS 3 /* macros followed through macros' bodies at most (createIntConfig -> embedCommon… -> f) */

/* Remember macro name (in file fid) as one whose expansions use the callee, once. */
static void macro_use(struct callers_run *cr, const char *name, int param, const char *rest, int level, int64_t fid)
{
    if (strlen(name) >= sizeof(cr->mu[0].name) || strlen(rest) >= sizeof(cr->mu[0].rest)) return;
    for (size_t i = 0; i < cr->nmu; i++)
        if (strcmp(cr->mu[i].name, name) == 0 && cr->mu[i].param == param) return;
    if (cr->nmu == sizeof(cr->mu) / sizeof(cr->mu[0])) return;
    struct macro_use *u = &cr->mu[cr->nmu++];
    *u = (struct macro_use){.param = param, .level = level, .fid = fid};
    strcpy(u->name, name);
    strcpy(u->rest, rest);
}

struct macro_run {
    struct callers_run *cr;
    const struct macro_use *u;
    struct mg_nav_def *to;
};

/* The expansions of one macro in fl: an edge ("macro") from where each is
 * to the callee; one in another macro's body makes that macro's expansions
 * count too (a level deeper). */
static int macro_file(struct nav *v, struct file *fl, void *ud)
{
    struct macro_run *mr = ud;
    struct callers_run *cr = mr->cr;
    const struct macro_use *u = mr->u;
    if (!mg__nav_c_family(fl->lang)) return 0;
    if (mg__nav_file_occs(v, fl, u->name, &cr->o) != 0) return -1;
    size_t nl = strlen(u->name);
    for (size_t k = 0; k < cr->o.n; k++) {
        const struct occ *oc = &cr->o.v[k];
        if (oc->def) continue;
        struct mg_nav_def tmp;
        const struct mg_nav_def *in = mg__nav_enclosing(fl, oc->line, true);
        size_t ao, al;
        if (u->param >= 0 && (!mg_nav_macro_arg(fl->text, fl->len, oc->off + nl, u->param, &ao, &al) ||
                              al != strlen(u->rest) || memcmp(fl->text + ao, u->rest, al) != 0))
            continue; /* (another name pasted) */
        if (in && strcmp(in->kind, "macro") == 0) {
            if (u->param < 0 && u->level < MACRO_LEVELS && strcmp(in->name, u->name) != 0)
                macro_use(cr, in->name, -1, "", u->level + 1, fl->id);
            continue;
        }
        struct mg_nav_def *from = pooled(cr->g, in ? in : file_def(fl, &tmp), fl->path);
        if (!from) return mg_err_oom(v->err);
        /* (the same line found already: a call, another macro) */
        int rc = edge_at(cr->g, from, oc->line, mr->to) ? 0 : caller_edge(cr, from, mr->to, oc->line, "macro", 0);
        if (rc != 0) return rc < 0 ? mg_err_oom(v->err) : 1;
    }
    return 0;
}

/* The callers of cr->name through the C macros section 2 found naming it
 * in their bodies, and those in the roots' own files that build the name
 * by pasting (`#define REGISTER(n) reg(#n, RM_ ## n)`): each expansion an
 * edge to the root in the macro's file (else the first of roots). A macro
 * defined in a .c file is expanded only there. */
static int macro_callers(struct nav *v, struct mg_nav_def *const *roots, size_t nroots, struct callers_run *cr)
{
    int rc = 0;
    for (size_t r = 0; r < nroots && rc == 0; r++) {
        struct file *fl = mg__nav_file(v, roots[r]->file_id, true);
        if (!fl || !mg__nav_c_family(fl->lang) || mg__nav_file_defs(v, fl) != 0) {
            rc = v->err->code ? -1 : 0;
            continue;
        }
        char rest[MG_TOKEN_MAX * 4];
        int param;
        for (size_t i = 0; i < fl->ndefs; i++)
            if (fl->defs[i].kind && strcmp(fl->defs[i].kind, "macro") == 0 &&
                mg__nav_macro_paste(fl, &fl->defs[i], cr->name, &param, rest, sizeof(rest)))
                macro_use(cr, fl->defs[i].name, param, rest, 1, fl->id);
    }
    for (size_t i = 0; i < cr->nmu && rc == 0; i++) { /* (macro_file may add more) */
        struct macro_use u = cr->mu[i];
        struct mg_nav_def *to = roots[0];
        for (size_t r = 0; r < nroots; r++)
            if (roots[r]->file_id == u.fid) to = roots[r];
        struct file *mf = mg__nav_file(v, u.fid, false);
        size_t pl = mf ? strlen(mf->path) : 0;
        int64_t only = u.fid;
        if (pl > 2 && (strcmp(mf->path + pl - 2, ".c") == 0 || strcmp(mf->path + pl - 3, ".cc") == 0 ||
                       (pl > 4 && strcmp(mf->path + pl - 4, ".cpp") == 0))) {
            v->only = &only;
            v->nonly = 1;
        }
        struct macro_run mr = {cr, &u, to};
        rc = mg__nav_candidates(v, u.name, NULL, macro_file, &mr, NULL);
        v->only = NULL;
        v->nonly = 0;
        if (rc == 2) rc = 1; /* (stopped at the limit) */
    }
    cr->nmu = 0;
    return rc;
}

int mg__nav_clamp_depth(int depth, struct mg_err *err)
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
    struct resolved *r = mg__nav_defs_of(v, name);
    if (!r) return -1;
    *n = 0;
    for (size_t i = 0; i < r->n; i++) {
        struct file *fl;
        const struct mg_nav_def *d = mg__nav_resolved_def(v, r, i, &fl);
        if (d && mg__nav_function_like(d->kind)) ++*n;
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
    int rc = mg__nav_candidates(v, name, NULL, callers_file, cr, NULL);
    v->only = NULL;
    v->nonly = 0;
    return rc;
}

int mg_nav_callers_of(struct mg_db *d, const struct mg_filter *f, const char *const *qnames,
                      const char *const *in_paths, size_t nnames, int depth, size_t limit, double deadline,
                      struct mg_nav_graph *out, struct mg_err *err)
{
    memset(out, 0, sizeof(*out));
    if (mg__nav_clamp_depth(depth, err) != 0) return -1;
    char(*names)[MG_TOKEN_MAX * 4] = nnames ? malloc(nnames * sizeof(*names)) : NULL;
    if (nnames && !names) return mg_err_oom(err);
    for (size_t i = 0; i < nnames; i++)
        if (mg__nav_plain_name(qnames[i], names[i], sizeof(names[i]), err) != 0) {
            free(names);
            return -1;
        }
    struct nav v;
    int rc = mg__nav_open(&v, d, f, deadline, err);
    size_t *from = nnames ? calloc(nnames + 1, sizeof(*from)) : NULL; /* names[i]'s roots: from[i]..from[i+1] */
    bool *local = nnames ? calloc(nnames, sizeof(*local)) : NULL;
    if (nnames && (!from || !local)) rc = mg_err_oom(err);
    for (size_t i = 0; rc == 0 && i < nnames; i++) {
        from[i] = out->ndefs;
        rc = mg__nav_roots(&v, out, names[i], in_paths ? in_paths[i] : NULL, &local[i]);
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
                rc = all_properties(&v, out->defs + from[i], from[i + 1] - from[i], &cr.prop);
                if (rc == 0)
                    rc = callers_in(&v, cr.name, (const struct mg_nav_def *const *)out->defs + from[i],
                                    local[i] ? from[i + 1] - from[i] : 0, &cr);
                if (rc == 0) rc = pointer_callers(&v, out->defs + from[i], from[i + 1] - from[i], &cr);
                if (rc == 0) rc = macro_callers(&v, out->defs + from[i], from[i + 1] - from[i], &cr);
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
                rc = all_properties(&v, &frontier[i], 1, &cr.prop);
                if (rc == 0) rc = callers_in(&v, cr.name, &self, own ? 1 : 0, &cr);
                if (rc == 0) rc = pointer_callers(&v, &frontier[i], 1, &cr);
                if (rc == 0) rc = macro_callers(&v, &frontier[i], 1, &cr);
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
    mg__nav_close(&v);
    if (rc != 0) mg_nav_graph_release(out);
    return rc;
}

/* ---- 3. callees ------------------------------------------------------------------------------------ */

struct callees_run {
    const char *lang;
    const char *self; /* the definition's own name: its first occurrence is no call */
    bool self_seen;
    int lo, hi;       /* the definition's lines */
    /* field, type: a call through it; bare: no receiver (mg__nav_bare_misses_methods); std: into the
     * standard library; read: a Python attribute read, a call when the name is a property's */
    struct call { size_t off; int line; size_t len; char *field, *type; bool bare, std, read; } *v;
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
    bool read = !call && strcmp(cr->lang, "python") == 0 && attribute_read(t, off);
    if ((!call && !read) || (!mg__nav_member(t, off) && mg__nav_keyword(cr->lang, t + off, len))) return 0;
    struct call *nv = mg_grow(cr->v, cr->n, &cr->cap, sizeof(*nv));
    if (!nv) {
        cr->failed = true;
        return 1;
    }
    cr->v = nv;
    cr->v[cr->n++] = (struct call){off, line, len, NULL, NULL, false, false, read};
    return 0;
}

static int add_found(struct mg_nav_def *to, struct mg_nav_def ***found, size_t *nfound, size_t *capfound)
{
    for (size_t k = 0; k < *nfound; k++)
        if ((*found)[k] == to) return 0;
    struct mg_nav_def **nf = mg_grow(*found, *nfound, capfound, sizeof(*nf));
    if (!nf) return -1;
    *found = nf;
    (*found)[(*nfound)++] = to;
    return 0;
}

/* The function a store into a field names: the one in the store's file,
 * else the first of the repo's in C or C++. NULL when none. */
static int stored_def(struct nav *v, struct mg_nav_graph *g, const struct ptr_store *st, struct mg_nav_def **to)
{
    *to = NULL;
    struct file *sf = mg__nav_file(v, st->fid, true);
    if (!sf) return v->err->code ? -1 : 0;
    if (mg__nav_file_defs(v, sf) != 0) return -1;
    for (size_t k = 0; k < sf->ndefs; k++)
        if (mg__nav_function_like(sf->defs[k].kind) && strcmp(sf->defs[k].name, st->name) == 0)
            return (*to = pooled(g, &sf->defs[k], sf->path)) ? 0 : mg_err_oom(v->err);
    struct resolved *r = mg__nav_defs_of(v, st->name);
    if (!r) return -1;
    for (size_t k = 0; k < r->n; k++) {
        struct file *fl;
        const struct mg_nav_def *d = mg__nav_resolved_def(v, r, k, &fl);
        if (d && mg__nav_function_like(d->kind) && mg__nav_same_world(sf->lang, fl->lang))
            return (*to = pooled(g, d, fl->path)) ? 0 : mg_err_oom(v->err);
    }
    return 0;
}

/* Call i of cr through a field (`o->read(`, `OPS(read)(`): an edge
 * ("pointer") to each function stored into that field of the receiver's
 * struct, once per field and struct. 1 when the call was one, 0 when not
 * (or no function is stored there), -1 on error. */
static int field_calls(struct nav *v, struct mg_nav_graph *g, size_t limit, int depth, struct mg_nav_def *from,
                       struct file *fl, size_t off, struct callees_run *cr, size_t i, const char *name,
                       struct mg_nav_def ***found, size_t *nfound, size_t *capfound)
{
    char field[MG_TOKEN_MAX * 4], type[128];
    size_t at = off + cr->v[i].off;
    struct ptrs *p = NULL;
    if (mg__nav_macro_field(fl, at, cr->v[i].len, field, sizeof(field))) {
        if (mg__nav_field_call(v, fl, off, SIZE_MAX, field, &p, type, sizeof(type)) != 0) return -1;
    } else {
        snprintf(field, sizeof(field), "%s", name);
        if (mg__nav_field_call(v, fl, off, at, field, &p, type, sizeof(type)) != 0) return -1;
    }
    if (!p || p->n == 0) return 0;
    size_t e0 = g->total;
    for (size_t k = 0; k < i; k++) /* the same field through the same struct: once */
        if (cr->v[k].field && strcmp(cr->v[k].field, field) == 0 && strcmp(cr->v[k].type, type) == 0) return 1;
    for (size_t k = 0; k < p->n; k++) {
        const struct ptr_store *st = &p->v[k];
        if (type[0] && st->container && strcmp(st->container, type) != 0) continue;
        struct mg_nav_def *to;
        if (stored_def(v, g, st, &to) != 0) return -1;
        if (!to) continue;
        if (add_edge(g, limit, depth, from, to, to->name, from->start_line + cr->v[i].line - 1, "pointer", 0) != 0 ||
            (found && add_found(to, found, nfound, capfound) != 0))
            return mg_err_oom(v->err);
    }
    if (g->total == e0) return 0; /* none stored into this struct's field: the call by name, as before */
    struct call *c = &cr->v[i];
    if (!(c->field = strdup(field)) || !(c->type = strdup(type))) return mg_err_oom(v->err);
    return 1;
}

/* The distinct calls inside one definition, each with its first line, as
 * edges from it. */
int mg__nav_calls_of(struct nav *v, struct mg_nav_graph *g, size_t limit, int depth, struct mg_nav_def *from,
                    struct mg_nav_def ***found, size_t *nfound, size_t *capfound)
{
    struct file *fl = mg__nav_file(v, from->file_id, true);
    if (!fl) return v->err->code ? -1 : 0;
    if (mg__nav_file_defs(v, fl) != 0) return -1;
    struct callees_run cr = {.lang = fl->lang, .self = from->name, .lo = from->start_line, .hi = from->end_line};
    /* lex from the definition's first line: a definition never starts inside a comment */
    size_t off = mg__nav_line_start(fl, from->start_line);
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
        if (cr.v[i].read) { /* x.name read: a call only of a property */
            bool prop = false, seen = false;
            for (size_t k = 0; k < i && !seen; k++)
                seen = cr.v[k].read && cr.v[k].len == cr.v[i].len &&
                       memcmp(fl->text + off + cr.v[k].off, name, cr.v[i].len) == 0;
            if (seen || mg__nav_py_import_module(fl, off + cr.v[i].off, cr.v[i].len)) continue;
            if (named_property(v, name, &prop) != 0) {
                rc = -1;
                break;
            }
            if (!prop) continue;
        }
        int fc = field_calls(v, g, limit, depth, from, fl, off, &cr, i, name, found, nfound, capfound);
        if (fc < 0) {
            rc = -1;
            break;
        }
        if (fc > 0) continue;
        char rt[128], pt[128] = "";
        int at_line = from->start_line + cr.v[i].line - 1;
        bool typed = mg__nav_receiver_type(fl, off + cr.v[i].off, at_line, rt, sizeof(rt), NULL, NULL);
        cr.v[i].std = mg__nav_receiver_stdlib(fl, off + cr.v[i].off, at_line) ||
                      mg__nav_py_unbound(fl, off + cr.v[i].off, cr.v[i].len, at_line);
        if (!cr.v[i].std &&
            mg__nav_py_attr_misses(v, fl, off + cr.v[i].off, at_line, name, &cr.v[i].std, pt, sizeof(pt)) != 0) {
            rc = -1;
            break;
        }
        if (pt[0]) typed = strcpy(rt, pt) != NULL; /* a Python value's class, known across files */
        if (typed && !(cr.v[i].type = strdup(rt))) {
            rc = mg_err_oom(v->err);
            break;
        }
        cr.v[i].bare = !typed && mg__nav_bare_misses_methods(fl, off + cr.v[i].off, at_line);
        bool dup = false; /* a name once, once per receiver type (and bare or not) */
        for (size_t k = 0; k < i && !dup; k++)
            dup = !cr.v[k].field && cr.v[k].len == cr.v[i].len &&
                  memcmp(fl->text + off + cr.v[k].off, name, cr.v[i].len) == 0 &&
                  (!cr.v[k].type == !typed) && (!typed || strcmp(cr.v[k].type, rt) == 0) &&
                  cr.v[k].bare == cr.v[i].bare && cr.v[k].std == cr.v[i].std;
        if (dup) continue;
        struct mg_nav_def *to;
        const char *conf;
        unsigned ncand;
        struct mg_nav_dispatch *ds = NULL; /* may call by dispatch: beside the type's method, else instead */
        size_t nds = 0;
        int line = from->start_line + cr.v[i].line - 1;
        if (cr.v[i].std) { /* the library's */
            to = NULL;
            conf = "external";
            ncand = 0;
        } else if (resolve(v, g, fl, name, typed ? rt : NULL, cr.v[i].bare, &to, &conf, &ncand) != 0 ||
                   (typed && mg__nav_dispatch_targets(v, fl, name, rt, &ds, &nds) != 0)) {
            rc = -1;
            break;
        }
        if (nds && strcmp(conf, "type") != 0) to = NULL;
        else if (add_edge(g, limit, depth, from, to, name, line, conf, ncand) != 0 ||
                 (to && found && add_found(to, found, nfound, capfound) != 0))
            rc = mg_err_oom(v->err);
        for (size_t k = 0; k < nds && rc == 0; k++) {
            struct mg_nav_def *dt = pooled(g, ds[k].d, ds[k].fl->path);
            if (!dt || add_edge(g, limit, depth, from, dt, name, line, "dispatch", 0) != 0 ||
                (found && add_found(dt, found, nfound, capfound) != 0))
                rc = mg_err_oom(v->err);
        }
        free(ds);
        if (rc != 0) break;
    }
    for (size_t i = 0; i < cr.n; i++) {
        free(cr.v[i].field);
        free(cr.v[i].type);
    }
    free(cr.v);
    return rc;
}

int mg_nav_callees(struct mg_db *d, const struct mg_filter *f, const char *qname, int depth, size_t limit,
                   double deadline, struct mg_nav_graph *out, struct mg_err *err)
{
    memset(out, 0, sizeof(*out));
    char name[MG_TOKEN_MAX * 4];
    if (mg__nav_plain_name(qname, name, sizeof(name), err) != 0 || mg__nav_clamp_depth(depth, err) != 0) return -1;
    struct nav v;
    int rc = mg__nav_open(&v, d, f, deadline, err);
    if (rc == 0) rc = mg__nav_roots(&v, out, name, NULL, NULL);
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
            if (mg__nav_late(deadline) || nvisited >= MG_NAV_NODES_MAX || out->n >= limit) {
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
            rc = mg__nav_calls_of(&v, out, limit, level, frontier[i], level < depth ? &next : NULL, &nnext, &capnext);
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
    mg__nav_close(&v);
    if (rc != 0) mg_nav_graph_release(out);
    return rc;
}

void mg_nav_graph_release(struct mg_nav_graph *g)
{
    for (size_t i = 0; i < g->n; i++) free(g->v[i].callee);
    free(g->v);
    for (size_t i = 0; i < g->npool; i++) {
        mg__nav_def_free(g->pool[i]);
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
