/* repomap.c — the repo map (see repomap.h): the best files of a repo by
 * PageRank over the names graph (repomap_graph.c; cached and saved by
 * repomap_saved.c), with their best definitions, rendered to fit a budget.
 *
 * Sections:
 *   1. Rendering     the best files and definitions that fit the budget
 *   2. The map       scope, focus, ranking and rendering of one request
 */
#include "search/repomap_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index/refs.h"
#include "store/indexdb.h"
#include "util/buf.h"

/* ---- 1. Rendering ----------------------------------------------------------------------------- */

struct cand {
    char *name, *kind;
    int line, end_line;
    double score;
};

static int cmp_score(const void *a, const void *b)
{
    const struct cand *x = a, *y = b;
    if (x->score != y->score) return x->score > y->score ? -1 : 1;
    return x->line - y->line;
}

static int cmp_line(const void *a, const void *b)
{
    return ((const struct mg_repomap_def *)a)->line - ((const struct mg_repomap_def *)b)->line;
}

/* Line `line` of text, trimmed, at most MG_REPOMAP_LINE_MAX bytes (cut at a
 * character boundary). */
static char *line_of(const char *text, size_t len, int line)
{
    size_t i = 0;
    for (int l = 1; l < line && i < len; i++)
        if (text[i] == '\n') l++;
    size_t e = i;
    while (e < len && text[e] != '\n') e++;
    while (i < e && (text[i] == ' ' || text[i] == '\t')) i++;
    while (e > i && (text[e - 1] == ' ' || text[e - 1] == '\t' || text[e - 1] == '\r')) e--;
    if (e - i > MG_REPOMAP_LINE_MAX) {
        e = i + MG_REPOMAP_LINE_MAX;
        while (e > i && ((unsigned char)text[e] & 0xC0) == 0x80) e--;
    }
    return strndup(text + i, e - i);
}

#define STORED_MAX 256 /* a file's stores into fields read for its definitions' scores at most */

/* The score a function of file s stored into a field gets from the field's
 * name (pointer_definers of repomap_graph.c), the best of its stores: 0 when
 * it is stored into none. */
static double stored_score(const struct graph *g, const double *nin, const uint32_t *st, size_t nst, uint32_t h)
{
    double best = 0;
    for (size_t i = 0; i + 1 < nst; i += 2) {
        if (st[i] != h) continue;
        int64_t k = mg__rmap_name_find(g, st[i + 1]);
        if (k >= 0 && nin[k] > best) best = nin[k];
    }
    return best;
}

/* File node s's best definitions into fo (scored by nin; a function
 * stored into a field by the field's name). */
static int file_defs(struct mg_db *d, const struct graph *g, const double *nin, size_t s, struct mg_repomap_file *fo,
                     struct mg_err *err)
{
    struct mg_idx_cur st;
    struct mg_idx_row row;
    struct cand *c = NULL;
    size_t n = 0, cap = 0;
    char *text = NULL;
    size_t len = 0;
    int rc = -1;
    uint32_t stored[2 * STORED_MAX]; /* (hash of the function, hash of the field) pairs */
    size_t nst = 0;
    if (mg_idx_ptr_stores_in_file(d, g->fid[s], &st, err) != 0) return -1;
    int sr = 0;
    while (nst < 2 * STORED_MAX && (sr = mg_idx_next(&st, &row)) > 0)
        if (row.name && row.field) {
            stored[nst++] = mg_refs_hash(row.name, strlen(row.name));
            stored[nst++] = mg_refs_hash(row.field, strlen(row.field));
        }
    mg_idx_done(&st);
    if (sr < 0) return mg_db_error(d, "read pointer stores", err);
    if (mg_idx_file_defs(d, g->fid[s], &st, err) != 0) return -1;
    int r;
    while ((r = mg_idx_next(&st, &row)) > 0) {
        const char *name = row.name, *kind = row.kind;
        if (!text && row.size <= MAX_FILE_TEXT && mg_idx_text(&row, (size_t)row.size, &text, &len) != 0) text = NULL;
        if (!name || !kind || !mg_refs_definer(kind)) continue;
        uint32_t h = mg_refs_hash(name, strlen(name));
        int64_t k = mg__rmap_name_find(g, h);
        double sc = k >= 0 ? nin[k] : 0, ss = nst ? stored_score(g, nin, stored, nst, h) : 0;
        if (ss > sc) sc = ss;
        if (sc <= 0) continue;
        bool dup = false;
        for (size_t i = 0; i < n && !dup; i++) dup = strcmp(c[i].name, name) == 0;
        if (dup) continue;
        struct cand *p = mg_grow(c, n, &cap, sizeof(*c));
        if (!p) goto nomem;
        c = p;
        c[n] = (struct cand){strdup(name), strdup(kind), row.start_line, row.end_line, sc};
        if (!c[n].name || !c[n].kind) {
            n++;
            goto nomem;
        }
        n++;
    }
    if (r != 0) {
        mg_db_error(d, "read definitions", err);
        goto out;
    }
    if (n > 1) qsort(c, n, sizeof(*c), cmp_score);
    size_t keep = n < MG_REPOMAP_DEFS_PER_FILE ? n : MG_REPOMAP_DEFS_PER_FILE;
    fo->defs = calloc(keep + 1, sizeof(*fo->defs));
    if (!fo->defs) goto nomem;
    for (size_t i = 0; i < keep; i++) {
        struct mg_repomap_def *df = &fo->defs[fo->ndefs++];
        df->name = c[i].name;
        df->kind = c[i].kind;
        c[i].name = c[i].kind = NULL;
        df->line = c[i].line;
        df->end_line = c[i].end_line;
        df->score = c[i].score;
        df->text = text ? line_of(text, len, df->line) : NULL;
        if (text && !df->text) goto nomem;
    }
    qsort(fo->defs, fo->ndefs, sizeof(*fo->defs), cmp_line);
    rc = 0;
    goto out;
nomem:
    mg_err_oom(err);
out:
    for (size_t i = 0; i < n; i++) {
        free(c[i].name);
        free(c[i].kind);
    }
    free(c);
    free(text);
    mg_idx_done(&st);
    return rc;
}

static void file_release(struct mg_repomap_file *f)
{
    for (size_t i = 0; i < f->ndefs; i++) {
        free(f->defs[i].name);
        free(f->defs[i].kind);
        free(f->defs[i].text);
    }
    free(f->defs);
    free(f->path);
    free(f->lang);
    memset(f, 0, sizeof(*f));
}

/* The lines of fo that fit in room bytes appended to buf (a file with no
 * definition that fits is not rendered): bytes used, 0 when none fit. */
static size_t render_file(struct mg_repomap_file *fo, char *buf, size_t room)
{
    size_t used = (size_t)snprintf(buf, room, "%s\n", fo->path);
    if (used >= room) return 0;
    size_t kept = 0;
    for (size_t i = 0; i < fo->ndefs; i++) {
        const struct mg_repomap_def *df = &fo->defs[i];
        size_t w = df->text && *df->text ? (size_t)snprintf(buf + used, room - used, "  %d: %s\n", df->line, df->text)
                                         : (size_t)snprintf(buf + used, room - used, "  %d: %s %s\n", df->line,
                                                            df->kind, df->name);
        if (w >= room - used) break;
        used += w;
        kept++;
    }
    if (!kept) return 0;
    for (size_t i = kept; i < fo->ndefs; i++) { /* the definitions that did not fit go */
        free(fo->defs[i].name);
        free(fo->defs[i].kind);
        free(fo->defs[i].text);
    }
    fo->ndefs = kept;
    return used;
}

struct order {
    const double *rank;
    const struct graph *g;
};
static struct order sort_order; /* qsort has no context: under order_mu */
static pthread_mutex_t order_mu = PTHREAD_MUTEX_INITIALIZER;

static int cmp_rank(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    double rx = sort_order.rank[x], ry = sort_order.rank[y];
    if (rx != ry) return rx > ry ? -1 : 1;
    return strcmp(sort_order.g->fpath[x], sort_order.g->fpath[y]);
}

/* ---- 2. The map ----------------------------------------------------------------------------------- */

static int check_in(const struct mg_repomap_in *in, struct mg_err *err)
{
    if (in->budget_tokens < MG_REPOMAP_BUDGET_MIN || in->budget_tokens > MG_REPOMAP_BUDGET_MAX)
        return mg_err_set(err, MG_E_BAD_ARG, "budget_tokens must be %d to %d, got %lld", MG_REPOMAP_BUDGET_MIN,
                          MG_REPOMAP_BUDGET_MAX, (long long)in->budget_tokens);
    if (in->nfocus_files > MG_REPOMAP_FOCUS_MAX || in->nfocus_symbols > MG_REPOMAP_FOCUS_MAX)
        return mg_err_set(err, MG_E_BAD_ARG, "at most %d focus files and %d focus symbols", MG_REPOMAP_FOCUS_MAX,
                          MG_REPOMAP_FOCUS_MAX);
    return 0;
}

/* The teleport and focus names of in's focus, within allowed: NULL when
 * there is no focus. */
static int focus(const struct graph *g, const uint8_t *allowed, const struct mg_repomap_in *in, double **tp_out,
                 uint8_t **fn_out, struct mg_err *err)
{
    *tp_out = NULL;
    *fn_out = NULL;
    if (!in->nfocus_files && !in->nfocus_symbols) return 0;
    double *tp = calloc(g->nf + 1, sizeof(double));
    uint8_t *fn = calloc(g->nn + 1, 1);
    if (!tp || !fn) {
        free(tp);
        free(fn);
        return mg_err_oom(err);
    }
    int rc = 0;
    for (size_t i = 0; i < in->nfocus_files && rc == 0; i++) {
        const char *p = in->focus_files[i];
        while (p[0] == '.' && p[1] == '/') p += 2;
        size_t s = 0;
        while (s < g->nf && (strcmp(g->fpath[s], p) != 0 || (allowed && !allowed[s]))) s++;
        if (s == g->nf)
            rc = mg_err_set(err, MG_E_FOCUS_NOT_FOUND, "focus file '%.300s' is not a source file of the repo's "
                            "index in scope; paths are relative to the repo root (list_files shows them)",
                            in->focus_files[i]);
        else tp[s] += 1;
    }
    for (size_t i = 0; i < in->nfocus_symbols && rc == 0; i++) {
        const char *name = in->focus_symbols[i];
        int64_t n = mg__rmap_name_find(g, mg_refs_hash(name, strlen(name)));
        size_t m = 0;
        for (uint32_t k = n >= 0 ? g->doff[n] : 0; n >= 0 && k < g->doff[n + 1]; k++)
            m += !allowed || allowed[g->dfile[k]];
        if (!m) {
            rc = mg_err_set(err, MG_E_FOCUS_NOT_FOUND, "focus symbol '%.300s' has no definition in scope that the "
                            "map knows (functions, types, macros, variables; search_symbols finds names)", name);
            break;
        }
        fn[n] = 1;
        for (uint32_t k = g->doff[n]; k < g->doff[n + 1]; k++)
            if (!allowed || allowed[g->dfile[k]]) tp[g->dfile[k]] += 1.0 / (double)m;
    }
    if (rc != 0) {
        free(tp);
        free(fn);
        return -1;
    }
    double sum = 0;
    for (size_t s = 0; s < g->nf; s++) sum += tp[s];
    for (size_t s = 0; s < g->nf; s++) tp[s] /= sum;
    *tp_out = tp;
    *fn_out = fn;
    return 0;
}

static int render(struct mg_db *d, const struct graph *g, const uint8_t *allowed, const double *rank,
                  const double *nin, const struct mg_repomap_in *in, struct mg_repomap *out, struct mg_err *err)
{
    uint32_t *ord = malloc((g->nf + 1) * sizeof(uint32_t));
    uint8_t *has = calloc(g->nf + 1, 1); /* defines a name that rank flows into */
    size_t room = (size_t)in->budget_tokens * 4;
    char *buf = malloc(room + 1);
    int rc = -1;
    if (!ord || !has || !buf) goto nomem;
    for (size_t n = 0; n < g->nn; n++)
        if (nin[n] > 0)
            for (uint32_t k = g->doff[n]; k < g->doff[n + 1]; k++) has[g->dfile[k]] = 1;
    size_t m = 0;
    for (size_t s = 0; s < g->nf; s++)
        if (!allowed || allowed[s]) {
            out->considered++;
            if (has[s]) ord[m++] = (uint32_t)s;
        }
    pthread_mutex_lock(&order_mu);
    sort_order = (struct order){rank, g};
    qsort(ord, m, sizeof(uint32_t), cmp_rank);
    pthread_mutex_unlock(&order_mu);
    size_t used = 0, capf = 0;
    buf[0] = 0;
    for (size_t i = 0; i < m; i++) {
        if (room - used < 16) {
            out->truncated = true;
            break;
        }
        struct mg_repomap_file fo = {0};
        fo.path = strdup(g->fpath[ord[i]]);
        fo.lang = strdup(g->flang[ord[i]]);
        fo.rank = rank[ord[i]];
        if (!fo.path || !fo.lang) {
            file_release(&fo);
            goto nomem;
        }
        if (file_defs(d, g, nin, ord[i], &fo, err) != 0) {
            file_release(&fo);
            goto out;
        }
        size_t w = fo.ndefs ? render_file(&fo, buf + used, room + 1 - used) : 0;
        if (!w) {
            bool none = fo.ndefs == 0; /* nothing referenced after all: the next file may fit */
            file_release(&fo);
            if (none) continue;
            out->truncated = true;
            break;
        }
        struct mg_repomap_file *p = mg_grow(out->files, out->n, &capf, sizeof(*p));
        if (!p) {
            file_release(&fo);
            goto nomem;
        }
        out->files = p;
        out->files[out->n++] = fo;
        used += w;
    }
    buf[used] = 0;
    out->text = buf;
    out->len = used;
    out->tokens = (int64_t)((used + 3) / 4);
    buf = NULL;
    rc = 0;
    goto out;
nomem:
    mg_err_oom(err);
out:
    free(ord);
    free(has);
    free(buf);
    return rc;
}

int mg_repomap(struct mg_db *d, const struct mg_filter *f, const struct mg_repomap_in *in, struct mg_repomap *out,
               struct mg_err *err)
{
    memset(out, 0, sizeof(*out));
    if (check_in(in, err) != 0) return -1;
    /* one snapshot: the generation and the rows it names */
    if (mg_db_begin_read(d, err) != 0) return -1;
    struct graph *g = NULL;
    uint8_t *allowed = NULL, *fn = NULL;
    double *tp = NULL;
    struct rank_work *w = NULL;
    int rc = -1;
    if (!mg_db_meta_int(d, "refs_ready", 0)) {
        mg_err_set(err, MG_E_REPOMAP_UNAVAILABLE, "the index of this repo was made before memgate recorded which "
                   "names each file uses; run `memgate index` on the repo (or index_repo) once, then ask again");
        goto out;
    }
    int64_t gen, at;
    mg_idx_stamp(d, &gen, &at);
    if (mg__rmap_graph_get(d, gen, at, in->stale_ok, &g, &out->cached, &out->stale, err) != 0) goto out;
    if (!(allowed = malloc(g->nf + 1))) goto nomem;
    bool all = true;
    for (size_t s = 0; s < g->nf; s++) {
        allowed[s] = mg_filter_allows(f, g->fpath[s], strlen(g->fpath[s]), g->flang[s]);
        all = all && allowed[s];
    }
    if (all) {
        free(allowed);
        allowed = NULL;
    }
    if (focus(g, allowed, in, &tp, &fn, err) != 0) goto out;
    const double *r, *ni;
    if (!allowed && !tp) { /* the repo's own ranks: computed once per graph */
        pthread_mutex_lock(&g->mu);
        int prc = mg__rmap_rank_whole(g, err);
        pthread_mutex_unlock(&g->mu);
        if (prc != 0) goto out;
        r = g->rank0;
        ni = g->nin0;
    } else {
        if (!(w = mg__rmap_work_get(g, err))) goto out;
        mg__rmap_pagerank(g, &(struct rank_in){allowed, tp, fn}, w);
        r = w->r;
        ni = w->nin;
    }
    rc = render(d, g, allowed, r, ni, in, out, err);
    goto out;
nomem:
    mg_err_oom(err);
out:
    mg_db_commit(d, NULL);
    if (rc != 0) mg_repomap_release(out);
    if (w) mg__rmap_work_put(g, w);
    mg__rmap_graph_put(g);
    free(allowed);
    free(fn);
    free(tp);
    return rc;
}

void mg_repomap_release(struct mg_repomap *m)
{
    for (size_t i = 0; i < m->n; i++) file_release(&m->files[i]);
    free(m->files);
    free(m->text);
    memset(m, 0, sizeof(*m));
}
