/* impact.c — what a change touches (see impact.h): the definitions a diff
 * (diff.c) changes, adds and removes, and their callers.
 *
 * Sections:
 *   1. One changed file   its changed lines on both sides, the old text, the
 *                         definitions changed, added and removed
 *   2. Callers            one walk for every changed name, kept where it
 *                         reaches the change, ranked
 */
#include "search/impact_int.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index/chunk.h"
#include "index/lang.h"
#include "index/walk.h"
#include "search/nav_int.h"
#include "store/indexdb.h"
#include "util/buf.h"


/* ---- 1. One changed file ------------------------------------------------------------------ */

struct run {
    struct mg_db *d;
    const struct mg_filter *f;
    struct mg_impact *out;
    struct mg_err *err;
    TSParser *parser;
};

/* A set of line numbers, as a sorted array after finish(). */
struct lines {
    int *v;
    size_t n, cap;
};

static int mark(struct lines *s, int line)
{
    int *v = mg_grow(s->v, s->n, &s->cap, sizeof(*v));
    if (!v) return -1;
    s->v = v;
    s->v[s->n++] = line;
    return 0;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

struct side {
    char *path, *lang;
    char *text;               /* the new side: stored; the old: rebuilt */
    size_t len;
    struct mg_nav_def *defs;  /* name, kind, container, lines */
    size_t ndefs;
    struct mg_parsed parsed;  /* the old side's parse (its names) */
    struct lines changed;     /* lines changed on this side */
    bool *touched;            /* per def */
};

static void side_free(struct side *s)
{
    free(s->path);
    free(s->lang);
    free(s->text);
    if (s->parsed.defs.n == 0) mg__nav_defs_free(s->defs, s->ndefs); /* else the parse's strings */
    else free(s->defs);
    mg_parsed_release(&s->parsed);
    free(s->changed.v);
    free(s->touched);
}

/* The indexed file at path (or at path without its first directory: diff -u
 * of two trees names them old/x and new/x), in scope: 1 found, 0 not, -1 error. */
static int load_new(struct run *R, const char *path, struct side *s)
{
    for (int attempt = 0; attempt < 2; attempt++) {
        const char *p = path;
        if (attempt == 1) {
            const char *slash = strchr(path, '/');
            if (!slash) return 0;
            p = slash + 1;
        }
        struct mg_idx_cur st;
        struct mg_idx_row row;
        if (mg_idx_file_by_path(R->d, p, MG_IDX_TEXT, &st, R->err) != 0) return -1;
        int rc = mg_idx_next(&st, &row);
        if (rc <= 0) {
            mg_idx_done(&st);
            if (rc < 0) return mg_db_error(R->d, "read a changed file", R->err);
            continue;
        }
        s->path = strdup(row.path);
        s->lang = strdup(row.lang);
        int64_t lo = row.sym_lo, hi = row.sym_hi;
        if (!s->path || !s->lang) {
            mg_idx_done(&st);
            return mg_err_oom(R->err);
        }
        if (!mg_filter_allows(R->f, s->path, strlen(s->path), s->lang)) {
            mg_idx_done(&st);
            return 0;
        }
        rc = mg_idx_text(&row, MAX_FILE_TEXT, &s->text, &s->len);
        mg_idx_done(&st);
        if (rc != 0)
            return mg_err_set(R->err, MG_E_DB, "the stored text of '%s' is corrupt; index the repo again", s->path);
        bool failed = mg__nav_read_defs(R->d, lo, hi, s->path, 0, &s->defs, &s->ndefs) != 0;
        return failed ? mg_err_oom(R->err) : 1;
    }
    return 0;
}

/* Lines of a text: starts, and the count (a last line without newline counts). */
struct text_lines {
    const char **s;
    size_t *n;
    size_t count;
};

static int split_lines(const char *t, size_t len, struct text_lines *L)
{
    size_t cap = 0;
    memset(L, 0, sizeof(*L));
    for (size_t pos = 0; pos < len;) {
        const char *e = memchr(t + pos, '\n', len - pos);
        size_t n = e ? (size_t)(e - (t + pos)) : len - pos;
        if (L->count >= cap) {
            size_t c = cap ? cap * 2 : 256;
            const char **s = realloc(L->s, c * sizeof(*s));
            if (!s) return -1;
            L->s = s;
            size_t *nn = realloc(L->n, c * sizeof(*nn));
            if (!nn) return -1;
            L->n = nn;
            cap = c;
        }
        L->s[L->count] = t + pos;
        L->n[L->count++] = n;
        pos += n + (e ? 1 : 0);
    }
    return 0;
}

static bool same_line(const char *a, size_t an, const char *b, size_t bn)
{
    if (an && a[an - 1] == '\r') an--;
    if (bn && b[bn - 1] == '\r') bn--;
    return an == bn && memcmp(a, b, an) == 0;
}

static int append(char **buf, size_t *n, size_t *cap, const char *s, size_t len)
{
    if (*n + len + 2 > *cap) {
        size_t c = *cap ? *cap : 4096;
        while (*n + len + 2 > c) c *= 2;
        char *b = realloc(*buf, c);
        if (!b) return -1;
        *buf = b;
        *cap = c;
    }
    memcpy(*buf + *n, s, len);
    *n += len;
    (*buf)[(*n)++] = '\n';
    (*buf)[*n] = 0;
    return 0;
}

/* Walk the hunks against the new text: mark changed lines on both sides and
 * rebuild the old text. *stale when a context or added line is not the
 * stored one (the old text is then not built). */
static int walk_hunks(const struct mg_diff *diff, const struct mg_diff_file *df, struct side *nw, struct side *old,
                      bool *stale)
{
    struct text_lines L;
    if (split_lines(nw->text ? nw->text : "", nw->len, &L) != 0) return -1;
    char *ob = NULL;
    size_t on = 0, ocap = 0, at = 0; /* next new line to copy (0-based) */
    int rc = 0;
    *stale = false;
    for (size_t k = 0; rc == 0 && k < df->nh; k++) {
        const struct mg_diff_hunk *h = &df->h[k];
        size_t before = (size_t)(h->new_len ? h->new_start - 1 : h->new_start);
        if (before < at || before > L.count) *stale = true;
        while (!*stale && at < before && rc == 0) rc = append(&ob, &on, &ocap, L.s[at], L.n[at]), at++;
        int nl = h->new_start ? h->new_start : 1, ol = h->old_start ? h->old_start : 1;
        if (!h->new_len) nl = h->new_start + 1;
        size_t pos = h->body, no = 0;
        struct line b;
        bool in_del = false;
        while (rc == 0 && pos < h->body + h->body_len &&
               mg__diff_line(diff->text, h->body + h->body_len, &pos, &no, &b)) {
            char c = b.n ? b.s[0] : ' ';
            const char *s = b.n ? b.s + 1 : b.s;
            size_t n = b.n ? b.n - 1 : 0;
            if (c == '\\') continue;
            if (c == '-') {
                if (mark(&old->changed, ol) != 0) rc = -1;
                /* a deletion changes what holds both its neighbours (nl - 1 and nl) */
                if (!in_del && mark(&nw->changed, -nl) != 0) rc = -1;
                in_del = true;
                if (!*stale && append(&ob, &on, &ocap, s, n) != 0) rc = -1;
                ol++;
                continue;
            }
            in_del = false;
            if (!*stale && (at >= L.count || !same_line(L.s[at], L.n[at], s, n))) *stale = true;
            if (c == '+') {
                if (mark(&nw->changed, nl) != 0) rc = -1;
            } else {
                if (!*stale && append(&ob, &on, &ocap, s, n) != 0) rc = -1;
                ol++;
            }
            nl++;
            at++;
        }
    }
    while (rc == 0 && !*stale && at < L.count) rc = append(&ob, &on, &ocap, L.s[at], L.n[at]), at++;
    free(L.s);
    free(L.n);
    if (rc == 0 && !*stale) {
        old->text = ob;
        old->len = on;
    } else {
        free(ob);
    }
    return rc;
}

/* The old side's definitions: parse the rebuilt text as the indexer would. */
static int parse_old(struct run *R, struct side *old)
{
    const struct mg_lang *lang = mg_lang_for_path(old->path);
    if (!old->text || !lang->grammar) return 0;
    if (!R->parser && !(R->parser = ts_parser_new())) return mg_err_oom(R->err);
    struct mg_chunk_opts co = {200, 1u << 20, 1000000 + (uint64_t)old->len * 4};
    if (mg_chunk_file(lang, old->text, old->len, &co, R->parser, &old->parsed) != 0) return mg_err_oom(R->err);
    const struct mg_defs *D = &old->parsed.defs;
    old->defs = D->n ? calloc(D->n, sizeof(*old->defs)) : NULL;
    if (D->n && !old->defs) return mg_err_oom(R->err);
    for (size_t i = 0; i < D->n; i++)
        old->defs[old->ndefs++] = (struct mg_nav_def){old->path, (char *)D->v[i].name, (char *)D->v[i].kind,
                                                      (char *)D->v[i].container, (int)old->parsed.def_lines[2 * i],
                                                      (int)old->parsed.def_lines[2 * i + 1], 0};
    return 0;
}

/* Mark the innermost definitions that hold a changed line (-n: a deletion
 * between lines n - 1 and n, which only what holds both contains). */
static int touch(struct side *s)
{
    if (s->ndefs == 0) return 0;
    if (!(s->touched = calloc(s->ndefs, sizeof(bool)))) return -1;
    if (s->changed.n) qsort(s->changed.v, s->changed.n, sizeof(int), cmp_int);
    for (size_t k = 0; k < s->changed.n; k++) {
        int ln = s->changed.v[k], lo = ln, hi = ln;
        if (ln < 0) lo = -ln - 1, hi = -ln;
        if (k && s->changed.v[k - 1] == ln) continue;
        size_t best = SIZE_MAX;
        for (size_t i = 0; i < s->ndefs; i++) {
            const struct mg_nav_def *d = &s->defs[i];
            if (d->start_line > lo || d->end_line < hi) continue;
            if (best == SIZE_MAX || d->end_line - d->start_line < s->defs[best].end_line - s->defs[best].start_line ||
                (d->end_line - d->start_line == s->defs[best].end_line - s->defs[best].start_line &&
                 d->start_line >= s->defs[best].start_line))
                best = i;
        }
        if (best != SIZE_MAX) s->touched[best] = true;
    }
    return 0;
}

static bool defines(const struct side *s, const char *name, const char *container)
{
    for (size_t i = 0; i < s->ndefs; i++)
        if (strcmp(s->defs[i].name, name) == 0 &&
            ((!container && !s->defs[i].container) ||
             (container && s->defs[i].container && strcmp(container, s->defs[i].container) == 0)))
            return true;
    return false;
}

static int add_changed(struct run *R, const struct mg_nav_def *d, const char *change)
{
    struct mg_impact *o = R->out;
    struct mg_impact_changed *v = mg_grow(o->changed, o->nchanged, &o->capchanged, sizeof(*v));
    if (!v) return mg_err_oom(R->err);
    o->changed = v;
    struct mg_impact_changed *c = &o->changed[o->nchanged];
    *c = (struct mg_impact_changed){.d = *d, .change = change};
    c->d.path = strdup(d->path);
    c->d.name = strdup(d->name);
    c->d.kind = strdup(d->kind);
    c->d.container = d->container ? strdup(d->container) : NULL;
    o->nchanged++;
    if (!c->d.path || !c->d.name || !c->d.kind || (d->container && !c->d.container)) return mg_err_oom(R->err);
    return 0;
}

static int add_skip(struct run *R, const char *path, const char *reason)
{
    struct mg_impact *o = R->out;
    struct mg_impact_skip *v = mg_grow(o->skipped, o->nskipped, &o->capskipped, sizeof(*v));
    if (!v) return mg_err_oom(R->err);
    o->skipped = v;
    if (!(o->skipped[o->nskipped].path = strdup(path))) return mg_err_oom(R->err);
    o->skipped[o->nskipped++].reason = reason;
    return 0;
}

static int one_file(struct run *R, const struct mg_diff *diff, const struct mg_diff_file *df)
{
    struct side nw = {0}, old = {0};
    int rc = 0, found = 0;
    /* a secret file is never read, not even from a diff; a deleted file out
     * of scope is not looked at either */
    const char *any = df->new_path ? df->new_path : df->old_path;
    if (mg_is_secret_name(mg_base_name(any)) || (df->old_path && mg_is_secret_name(mg_base_name(df->old_path))))
        return 0;
    if (!df->new_path && !mg_filter_allows(R->f, df->old_path, strlen(df->old_path),
                                           mg_lang_for_path(df->old_path)->name))
        return add_skip(R, df->old_path, "not_indexed");
    if (df->new_path && (found = load_new(R, df->new_path, &nw)) < 0) rc = -1;
    if (rc == 0 && df->new_path && !found) {
        rc = add_skip(R, df->new_path, "not_indexed");
        goto out;
    }
    bool stale = false;
    if (rc == 0 && df->whole) {
        for (size_t i = 0; rc == 0 && i < nw.ndefs; i++) rc = add_changed(R, &nw.defs[i], "modified");
        goto out;
    }
    /* the old side's definitions are reported at the file's path now (a deleted file's: its old one) */
    if (rc == 0 && df->old_path && !(old.path = strdup(df->new_path ? nw.path : df->old_path))) rc = mg_err_oom(R->err);
    if (rc == 0 && walk_hunks(diff, df, &nw, &old, &stale) != 0) rc = mg_err_oom(R->err);
    if (rc == 0 && stale) rc = add_skip(R, nw.path ? nw.path : df->old_path, "stale");
    if (rc == 0 && df->old_path && !stale) rc = parse_old(R, &old);
    if (rc == 0 && (touch(&nw) != 0 || touch(&old) != 0)) rc = mg_err_oom(R->err);
    /* new side: modified, or added when the old side did not define it */
    for (size_t i = 0; rc == 0 && i < nw.ndefs; i++) {
        if (!nw.touched || !nw.touched[i]) continue;
        bool added = !df->old_path || (!stale && !defines(&old, nw.defs[i].name, nw.defs[i].container));
        rc = add_changed(R, &nw.defs[i], added ? "added" : "modified");
    }
    /* old side: removed when the new file does not define it (the new file's path names it) */
    for (size_t i = 0; rc == 0 && i < old.ndefs; i++) {
        if (!old.touched || !old.touched[i] || defines(&nw, old.defs[i].name, old.defs[i].container)) continue;
        rc = add_changed(R, &old.defs[i], "removed");
    }
out:
    side_free(&nw);
    side_free(&old);
    return rc;
}

/* ---- 2. Callers --------------------------------------------------------------------------- */

static bool function_like(const char *kind)
{
    return strcmp(kind, "function") == 0 || strcmp(kind, "method") == 0 || strcmp(kind, "constructor") == 0 ||
           strcmp(kind, "macro") == 0 || strcmp(kind, "prototype") == 0;
}

static const struct mg_impact_changed *changed_def(const struct mg_impact *o, const struct mg_nav_def *to,
                                                   const char *callee)
{
    for (size_t i = 0; i < o->nchanged; i++) {
        const struct mg_impact_changed *c = &o->changed[i];
        if (strcmp(c->d.name, callee) != 0) continue;
        if (!to) return c; /* a call to a name defined nowhere now: a removed definition's caller */
        if (strcmp(c->change, "removed") != 0 && strcmp(c->d.path, to->path) == 0 &&
            c->d.start_line == to->start_line)
            return c;
    }
    return NULL;
}

static double weight(const struct mg_nav_edge *e)
{
    if (strcmp(e->confidence, "name") == 0) return e->candidates == 1 ? 0.9 : 0.5; /* maybe another one's */
    if (strcmp(e->confidence, "dispatch") == 0) return 0.5;                         /* one implementation of several */
    if (strcmp(e->confidence, "value") == 0) return 0.5;                            /* a pointer that may be called */
    return 1.0; /* exact, import, type, pointer, macro, external (a removed name still called) */
}

static int cmp_hit(const void *a, const void *b)
{
    const struct mg_impact_hit *x = a, *y = b;
    if (x->score != y->score) return x->score > y->score ? -1 : 1;
    if (x->depth != y->depth) return x->depth - y->depth;
    int c = strcmp(x->d.path, y->d.path);
    return c ? c : x->d.start_line - y->d.start_line;
}

static int cmp_changed(const void *a, const void *b)
{
    const struct mg_impact_changed *x = a, *y = b;
    int c = strcmp(x->d.path, y->d.path);
    if (c) return c;
    if (x->d.start_line != y->d.start_line) return x->d.start_line - y->d.start_line;
    return strcmp(x->change, y->change);
}

static bool is_changed(const struct mg_impact *o, const struct mg_nav_def *d)
{
    for (size_t i = 0; i < o->nchanged; i++)
        if (strcmp(o->changed[i].change, "removed") != 0 && strcmp(o->changed[i].d.path, d->path) == 0 &&
            o->changed[i].d.start_line == d->start_line && strcmp(o->changed[i].d.name, d->name) == 0)
            return true;
    return false;
}

static int callers(struct run *R, int depth, size_t limit, double deadline)
{
    struct mg_impact *o = R->out;
    /* each changed name once; its roots only in the changed definition's file,
     * unless it changed in several files or was removed (then all of them) */
    const char **names = o->nchanged ? calloc(o->nchanged, sizeof(*names)) : NULL;
    const char **paths = o->nchanged ? calloc(o->nchanged, sizeof(*paths)) : NULL;
    size_t nn = 0;
    if (o->nchanged && (!names || !paths)) {
        free(names);
        free(paths);
        return mg_err_oom(R->err);
    }
    for (size_t i = 0; i < o->nchanged; i++) {
        const struct mg_impact_changed *c = &o->changed[i];
        if (!function_like(c->d.kind)) continue;
        bool removed = strcmp(c->change, "removed") == 0;
        size_t k = 0;
        while (k < nn && strcmp(names[k], c->d.name) != 0) k++;
        if (k == nn) {
            names[nn] = c->d.name;
            paths[nn++] = removed ? NULL : c->d.path;
        } else if (removed || (paths[k] && strcmp(paths[k], c->d.path) != 0)) {
            paths[k] = NULL;
        }
    }
    struct mg_nav_graph g;
    int rc = nn ? mg_nav_callers_of(R->d, R->f, names, paths, nn, depth, MG_NAV_NODES_MAX, deadline, &g, R->err) : 0;
    free(names);
    free(paths);
    if (rc != 0 || nn == 0) return rc;
    o->truncated = g.truncated;
    /* keep an edge when it reaches the change: into a changed definition at
     * depth 1, into a kept caller after; a call by name ("name") may be either */
    bool *keep = calloc(g.n ? g.n : 1, sizeof(bool));
    struct mg_impact_hit *hits = calloc(g.n ? g.n : 1, sizeof(*hits));
    size_t nh = 0;
    if (!keep || !hits) rc = mg_err_oom(R->err);
    for (size_t i = 0; rc == 0 && i < g.n; i++) {
        const struct mg_nav_edge *e = &g.v[i];
        bool k = false;
        if (e->depth == 1) {
            k = changed_def(o, e->to, e->callee) != NULL;
            if (!k && e->to && strcmp(e->confidence, "name") == 0) k = changed_def(o, NULL, e->callee) != NULL;
        } else {
            for (size_t j = 0; j < i && !k; j++) k = keep[j] && g.v[j].from == e->to;
        }
        keep[i] = k;
        if (!k || is_changed(o, e->from)) continue;
        double w = weight(e) / (double)(e->depth * e->depth);
        size_t h = 0;
        while (h < nh && !(hits[h].d.start_line == e->from->start_line && strcmp(hits[h].d.path, e->from->path) == 0 &&
                           strcmp(hits[h].d.name, e->from->name) == 0))
            h++;
        if (h == nh) {
            hits[nh++] = (struct mg_impact_hit){.d = *e->from, .depth = e->depth, .calls = e->callee,
                                               .call_line = e->line, .confidence = e->confidence};
        } else if (e->depth < hits[h].depth) {
            hits[h].depth = e->depth;
            hits[h].calls = e->callee;
            hits[h].call_line = e->line;
            hits[h].confidence = e->confidence;
        }
        hits[h].score += w;
    }
    if (rc == 0) {
        for (size_t i = 0; i < nh; i++) hits[i].score = (double)(int64_t)(hits[i].score * 1000 + 0.5) / 1000;
        qsort(hits, nh, sizeof(*hits), cmp_hit);
        o->total = nh;
        size_t n = nh < limit ? nh : limit;
        o->v = n ? calloc(n, sizeof(*o->v)) : NULL;
        if (n && !o->v) rc = mg_err_oom(R->err);
        for (size_t i = 0; rc == 0 && i < n; i++) {
            struct mg_impact_hit *t = &o->v[o->n++];
            *t = hits[i];
            t->d.path = strdup(hits[i].d.path);
            t->d.name = strdup(hits[i].d.name);
            t->d.kind = strdup(hits[i].d.kind);
            t->d.container = hits[i].d.container ? strdup(hits[i].d.container) : NULL;
            t->calls = strdup(hits[i].calls);
            if (!t->d.path || !t->d.name || !t->d.kind || !t->calls || (hits[i].d.container && !t->d.container))
                rc = mg_err_oom(R->err);
        }
    }
    free(keep);
    free(hits);
    mg_nav_graph_release(&g);
    return rc;
}

int mg_nav_impact(struct mg_db *d, const struct mg_filter *f, const struct mg_diff *diff, int depth, size_t limit,
                  double deadline, struct mg_impact *out, struct mg_err *err)
{
    memset(out, 0, sizeof(*out));
    if (depth < 1 || depth > MG_NAV_DEPTH_MAX)
        return mg_err_set(err, MG_E_BAD_ARG, "depth must be between 1 and %d", MG_NAV_DEPTH_MAX);
    struct run R = {.d = d, .f = f, .out = out, .err = err};
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < diff->n; i++) rc = one_file(&R, diff, &diff->v[i]);
    if (R.parser) ts_parser_delete(R.parser);
    if (rc == 0 && out->nchanged > 1) qsort(out->changed, out->nchanged, sizeof(*out->changed), cmp_changed);
    if (rc == 0) rc = callers(&R, depth, limit, deadline);
    if (rc != 0) mg_impact_release(out);
    return rc;
}

void mg_impact_release(struct mg_impact *im)
{
    for (size_t i = 0; i < im->nchanged; i++) mg__nav_def_free(&im->changed[i].d);
    free(im->changed);
    for (size_t i = 0; i < im->n; i++) {
        mg__nav_def_free(&im->v[i].d);
        free(im->v[i].calls);
    }
    free(im->v);
    for (size_t i = 0; i < im->nskipped; i++) free(im->skipped[i].path);
    free(im->skipped);
    memset(im, 0, sizeof(*im));
}
