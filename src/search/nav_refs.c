/* nav_refs.c — references: the files whose stored words hold a name
 * (store/indexdb.h's word index), lexed for the name's occurrences
 * outside comments and strings (nav_int.h).
 *
 * Sections:
 *   1. occurrences of a name in a file
 *   2. candidate files
 *   3. mg_nav_references
 */
#include "search/nav_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index/lex.h"
#include "store/indexdb.h"
#include "store/tokenize.h"
#include "util/buf.h"
#include "util/clock.h"

/* ---- 1. occurrences of a name in a file --------------------------------------------------------- */

/* In JavaScript and TypeScript a reserved word may name a property or a
 * method (`p.catch(f)`, `x.default`), so a method `catch` has uses; outside
 * a member access the word is the keyword (`try {} catch`, `default:`). The
 * contextual words are keywords when a name follows (`get size()`,
 * `static x`, `readonly y`). */
static bool js_reserved(const char *s, size_t n)
{
    return mg__nav_in_words(" break case catch class const continue debugger default delete do else enum export "
                            "extends false finally for function if import in instanceof new null return super switch "
                            "this throw true try typeof var void while with yield let static implements interface "
                            "package private protected public await ", s, n);
}

static bool js_contextual(const char *t, size_t len, size_t off, size_t n)
{
    if (!mg__nav_in_words(" get set static async readonly declare abstract override accessor ", t + off, n))
        return false;
    size_t i = off + n;
    while (i < len && (t[i] == ' ' || t[i] == '\t')) i++;
    return i < len && (mg_lex_id_char((unsigned char)t[i]) || t[i] == '[' || t[i] == '#' || t[i] == '*' ||
                       t[i] == '"' || t[i] == '\'');
}

static int on_ident(void *ud, const char *t, size_t off, size_t len, int line, bool call)
{
    struct occs *o = ud;
    if (len != o->nlen || memcmp(t + off, o->name, len) != 0) return 0;
    bool kw = o->js_word && !mg__nav_member(t, off) &&
              (js_reserved(t + off, len) || js_contextual(t, o->tlen, off, len));
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
bool mg__nav_has_word(const char *t, size_t n, const char *w, size_t wl)
{
    for (const char *p = t; (p = memmem(p, n - (size_t)(p - t), w, wl)); p++) {
        bool before = p > t && mg_lex_id_char((unsigned char)p[-1]);
        bool after = (size_t)(p - t) + wl < n && mg_lex_id_char((unsigned char)p[wl]);
        if (!before && !after) return true;
    }
    return false;
}

int mg__nav_file_occs(struct nav *v, struct file *fl, const char *name, struct occs *o)
{
    o->name = name;
    o->nlen = strlen(name);
    o->tlen = fl->len;
    o->js_word = (strcmp(fl->lang, "javascript") == 0 || strcmp(fl->lang, "typescript") == 0) &&
                 (js_reserved(name, o->nlen) || mg__nav_in_words(" get set static async readonly declare abstract "
                                                                 "override accessor ", name, o->nlen));
    o->n = 0;
    o->failed = false;
    if (!mg__nav_has_word(fl->text, fl->len, name, o->nlen)) return 0; /* an FTS token of other case, or a part */
    mg_nav_lex(fl->lang, fl->text, fl->len, on_ident, o);
    if (o->failed) return mg_err_oom(v->err);
    if (o->n && mg__nav_file_defs(v, fl) != 0) return -1;
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

/* ---- 2. candidate files ------------------------------------------------------------------------- */

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
int mg__nav_candidates(struct nav *v, const char *name, const char *from_path,
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
        struct file *fl = mg__nav_file(v, ids[i], false);
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
        if (mg__nav_late(v->deadline)) {
            r = 1;
            break;
        }
        struct file *fl = mg__nav_file(v, fv[i]->id, true);
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

/* ---- 3. mg_nav_references ----------------------------------------------------------------------- */

static int add_defs(struct nav *v, const char *name, struct mg_nav_def **out, size_t *n)
{
    struct resolved *r = mg__nav_defs_of(v, name);
    if (!r) return -1;
    *out = r->n ? calloc(r->n, sizeof(**out)) : NULL;
    if (r->n && !*out) return mg_err_oom(v->err);
    *n = 0;
    for (size_t i = 0; i < r->n; i++) {
        struct file *fl;
        const struct mg_nav_def *d = mg__nav_resolved_def(v, r, i, &fl);
        if (!d) continue;
        struct mg_nav_def *c = mg__nav_def_copy(d, fl->path);
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
    bool methods_only;      /* every definition of the name is a method: bare uses are others' */
};

/* Whether every definition of name is a method (at least one). */
static int only_methods(struct nav *v, const char *name, bool *yes)
{
    struct resolved *r = mg__nav_defs_of(v, name);
    if (!r) return -1;
    *yes = r->n > 0;
    for (size_t i = 0; i < r->n && *yes; i++) {
        struct file *fl;
        const struct mg_nav_def *d = mg__nav_resolved_def(v, r, i, &fl);
        if (!d) {
            if (v->err->code) return -1;
            continue;
        }
        *yes = d->kind && strcmp(d->kind, "method") == 0;
    }
    return 0;
}

/* A use that cannot be the repo's name: bare where only methods are
 * defined (a local, a parameter, a builtin of that name; not in a Python
 * class body), through a module or a type of the standard library, a
 * bare Python name the file neither defines in sight nor imports, or a
 * module's name or an alias in a Python import (nav_stdlib.c). */
static bool not_ours(const struct refs_run *rr, struct file *fl, const struct occ *oc)
{
    return (rr->methods_only && mg__nav_bare_misses_methods(fl, oc->off, oc->line)) ||
           mg__nav_receiver_stdlib(fl, oc->off, oc->line) ||
           mg__nav_py_unbound(fl, oc->off, rr->o.nlen, oc->line) || mg__nav_py_import_module(fl, oc->off, rr->o.nlen);
}

static int refs_file(struct nav *v, struct file *fl, void *ud)
{
    struct refs_run *rr = ud;
    if (mg__nav_file_occs(v, fl, rr->o.name, &rr->o) != 0) return -1;
    size_t here = 0;
    bool cursor_file = rr->after_path && strcmp(fl->path, rr->after_path) == 0;
    for (size_t k = 0; k < rr->o.n; k++) {
        const struct occ *oc = &rr->o.v[k];
        if (oc->def || (cursor_file && oc->line <= rr->after_line) || not_ours(rr, fl, oc)) continue;
        bool miss; /* r.name of a type that has none of the name's */
        if (mg__nav_py_attr_misses(v, fl, oc->off, oc->line, rr->o.name, &miss, NULL, 0) != 0) return -1;
        if (miss) continue;
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
        const struct mg_nav_def *in = mg__nav_enclosing(fl, oc->line, false);
        if (in && !(s->in = mg__nav_def_copy(in, fl->path))) return mg_err_oom(v->err);
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
    if (mg__nav_plain_name(qname, name, sizeof(name), err) != 0) return -1;
    if (limit == 0) limit = 1;
    struct refs_run rr = {out, limit, {0}, NULL, 0, false};
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
    int rc = mg__nav_open(&v, d, f, deadline, err);
    if (rc == 0 && !cursor) rc = add_defs(&v, name, &out->defs, &out->ndefs);
    if (rc == 0) rc = only_methods(&v, name, &rr.methods_only);
    if (rc == 0) rc = mg__nav_candidates(&v, name, rr.after_path, refs_file, &rr, &out->candidate_files);
    if (rc == 1) out->truncated = true;
    out->complete = rc == 0 && !cursor;
    if (rc > 0) rc = 0;
    free(cpath);
    free(rr.o.v);
    mg__nav_close(&v);
    if (rc != 0) mg_nav_refs_release(out);
    return rc;
}

void mg_nav_refs_release(struct mg_nav_refs *r)
{
    for (size_t i = 0; i < r->ndefs; i++) mg__nav_def_free(&r->defs[i]);
    free(r->defs);
    for (size_t i = 0; i < r->n; i++) {
        free(r->v[i].path);
        free(r->v[i].text);
        mg__nav_def_free(r->v[i].in);
        free(r->v[i].in);
    }
    free(r->v);
    free(r->next_cursor);
    memset(r, 0, sizeof(*r));
}
