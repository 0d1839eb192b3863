/* filerank.c — the file-level ordering of one repo's ranked hits
 * (search_int.h's mg__rank_files): an agent with a bug report needs the
 * file, and chunks stay what is shown.
 *
 * Four signals, each switched off alone by config rank_off (the
 * benchmark's ablations, bench/bugloc.py):
 *   roles — a hit in a test, doc, example, generated, vendored or fixture
 *           file (index/role.h) counts half, unless the query names that
 *           role ("test", "docs", test_foo's "test", ...): a bug is fixed in
 *           source, and a source file and its test share every word.
 *   files — a file's chunks add up: its best chunk counts whole, each
 *           further one half the one before (best + 1/2 second + 1/4
 *           third ...). Many matching pieces of one file say more than one,
 *           yet no file scores over twice its best chunk, so a long file
 *           does not win by its length. The file's best chunk carries the
 *           file's score, its other chunks their own: files come in the
 *           order of their scores, and one file does not fill the list.
 *   whole — every file holding one of the query's rarer words scored as one
 *           document (BM25 over its chunks, filerank_whole.c): the files
 *           the pool of 50 chunks misses, as the plain whole-file baseline
 *           scores them. Lexical and hybrid search. The pool's files and
 *           these are fused by reciprocal rank (config hybrid_rrf_k; the
 *           list weighted by hybrid_weights' sixth number, 1 by default),
 *           and a file only the list has joins the pool by its best chunk
 *           when it ranks within the limit.
 *   counts — that list's best files scored again by their words' counts in
 *           their text, not the chunks holding them (filerank_whole.c).
 * The factors are halves by construction, the list's weight chosen on
 * docstring -> function retrieval in code (bench/fusion_tune.py), neither
 * fitted to any report set.
 *
 * Sections:
 *   1. roles and a file's chunks summed (the pool)
 *   2. the fusion
 *   3. mg__rank_files
 */
#include "search/filerank_int.h"

#include <stdlib.h>
#include <string.h>

#include "index/role.h"
#include "util/config.h"

#define FILE_DECAY 0.5 /* each further chunk of a file counts this much of the one before */

/* ---- 1. roles and a file's chunks summed (the pool) ------------------------------------------ */

/* A file's score over its chunks' scores, best first: the running sum
 * *sum after the nth (from 0) of them, s; *w the weight of the last one
 * (the best counts whole, each further one FILE_DECAY of the one before;
 * one that scores nothing adds nothing). */
static void file_add(double *sum, double *w, size_t nth, double s)
{
    if (nth == 0) {
        *sum = s;
        *w = 1;
        return;
    }
    *w *= FILE_DECAY;
    if (s > 0) *sum += *w * s;
}

/* by path, then score (best first), then lines: deterministic */
static int cmp_file(const void *a, const void *b)
{
    const struct mg_hit *x = *(const struct mg_hit *const *)a, *y = *(const struct mg_hit *const *)b;
    int k = strcmp(x->path, y->path);
    if (k) return k;
    if (x->score != y->score) return x->score > y->score ? -1 : 1;
    return x->start_line != y->start_line ? x->start_line - y->start_line : x->end_line - y->end_line;
}

/* The pool's hits by file (cmp_file) into *by (caller frees). */
static int by_file(struct mg_hit *v, size_t n, struct mg_hit ***by)
{
    *by = malloc(n * sizeof(**by));
    if (!*by) return -1;
    for (size_t i = 0; i < n; i++) (*by)[i] = &v[i];
    qsort(*by, n, sizeof(**by), cmp_file);
    return 0;
}

static int rank_pool(unsigned off, const char *query, struct mg_hit *v, size_t n)
{
    unsigned asked = mg_roles_asked(query);
    for (size_t i = 0; i < n; i++) v[i].score = mg__role_weigh(v[i].score, v[i].role, v[i].path, asked, off);
    if ((off & MG_RANK_FILES) || n < 2) return 0;
    struct mg_hit **by;
    if (by_file(v, n, &by) != 0) return -1;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        double sum = 0, w = 1;
        for (; j < n && strcmp(by[j]->path, by[i]->path) == 0; j++) file_add(&sum, &w, j - i, by[j]->score);
        if (by[i]->score > 0) by[i]->score = sum;
        i = j;
    }
    free(by);
    return 0;
}

/* ---- 2. the fusion ----------------------------------------------------------------------------- */

static int cmp_score_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

static int cmp_path(const void *a, const void *b)
{
    return strcmp(((const struct mg__rfile *)a)->path, ((const struct mg__rfile *)b)->path);
}

/* The pool's files (their best hits' scores) and the list's (the files
 * scored whole) fused by reciprocal rank (mg__rrf; the list weighted by
 * config hybrid_weights' sixth number, the pool by 1): each pool hit's
 * score becomes its file's fused score (its file's other hits, that times
 * their share of the best one's), and each file only the list has adds
 * its best chunk's hit. The pool is n hits at out->v[at]; new hits are
 * appended to out, those within limit. */
static int fuse(struct mg__repo *r, struct mg_results *out, size_t at, size_t n, const struct mg__flist *list,
                int limit)
{
    struct mg_hit **by;
    if (by_file(out->v + at, n, &by) != 0) return mg_err_oom(r->err);
    /* the pool's files, best first (ties by path) */
    struct mg__rfile *pf = calloc(n ? n : 1, sizeof(*pf)), *ex = calloc(list->n ? list->n : 1, sizeof(*ex));
    double *fused = calloc(n ? n : 1, sizeof(*fused)), *all = malloc((n + list->n + 1) * sizeof(*all));
    size_t npf = 0, nex = 0;
    if (!pf || !ex || !fused || !all) {
        free(by), free(pf), free(ex), free(fused), free(all);
        return mg_err_oom(r->err);
    }
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && strcmp(by[j]->path, by[i]->path) == 0) j++;
        pf[npf++] = (struct mg__rfile){.score = by[i]->score, .path = by[i]->path, .best = (int64_t)i}; /* (by's) */
        i = j;
    }
    qsort(pf, npf, sizeof(*pf), mg__cmp_rfile);
    for (size_t i = 0; i < npf; i++) pf[i].rank_pool = (int)i + 1;
    /* each listed file's place in the pool's order */
    qsort(pf, npf, sizeof(*pf), cmp_path);
    for (size_t i = 0; i < npf; i++) fused[i] = mg__rrf(r->cfg, pf[i].rank_pool);
    for (size_t w = 0; w < list->n; w++) {
        const struct mg__rfile *f = &list->v[w];
        struct mg__rfile *p = bsearch(f, pf, npf, sizeof(*pf), cmp_path);
        double s = r->cfg->hybrid_weight[5] * mg__rrf(r->cfg, (double)(w + 1));
        if (p) fused[p - pf] += s;
        else ex[nex++] = (struct mg__rfile){.score = s, .best = f->best, .path = f->path};
    }
    /* the files only the list has (each once in it), by path */
    qsort(ex, nex, sizeof(*ex), cmp_path);
    /* the pool's hits: the file's best hit its fused score, the others their share of it */
    for (size_t i = 0; i < npf; i++) {
        size_t b = (size_t)pf[i].best;
        double best = by[b]->score;
        by[b]->score = fused[i];
        for (size_t j = b + 1; j < n && strcmp(by[j]->path, by[b]->path) == 0; j++)
            by[j]->score = fused[i] * (best > 0 && by[j]->score > 0 && by[j]->score <= best ? by[j]->score / best
                                                                                          : FILE_DECAY);
    }
    /* those that rank within the limit among the pool's hits and them (a hit
     * past it would be cut: its snippet costs its file's text); appended:
     * out->v may move */
    double floor = -1e300;
    size_t nall = 0;
    for (size_t i = 0; i < n; i++) all[nall++] = out->v[at + i].score;
    for (size_t i = 0; i < nex; i++) all[nall++] = ex[i].score;
    qsort(all, nall, sizeof(*all), cmp_score_desc);
    if (nall > (size_t)limit) floor = all[limit - 1];
    int rc = 0;
    struct mg_idx_cur c = {0};
    struct mg_idx_row row;
    for (size_t i = 0; i < nex && rc == 0; i++) {
        if (ex[i].score < floor) continue;
        if (mg_idx_chunk_hit(r->d, ex[i].best, &c, r->err) != 0) {
            rc = -1;
            break;
        }
        if (mg_idx_next(&c, &row) > 0) rc = mg__chunk_hit(r, out, &row, ex[i].score);
        mg_idx_done(&c);
    }
    free(by), free(pf), free(ex), free(fused), free(all);
    return rc;
}

/* ---- 3. mg__rank_files -------------------------------------------------------------------------- */

int mg__rank_files(struct mg__repo *r, struct mg_results *out, size_t base, int limit,
                   int (*cmp)(const void *, const void *))
{
    /* the pool: the first MG__RANK_POOL hits, whatever the limit; those
     * after it keep their order below the pool's lowest score */
    size_t all = out->n - base, n = all;
    if (n == 0) return 0; /* (v may be NULL then, which qsort may not take) */
    qsort(out->v + base, n, sizeof(*out->v), cmp);
    if (n > MG__RANK_POOL) n = MG__RANK_POOL;
    int off = mg_rank_off_parse(r->cfg->rank_off);
    if (off < 0) off = 0;
    if (!(r->cfg->hybrid_weight[5] > 0)) off |= MG_RANK_WHOLE; /* (weight 0: not read at all) */
    if (rank_pool((unsigned)off, r->q->query, out->v + base, n) != 0) return mg_err_oom(r->err);
    size_t end = out->n;
    struct mg__flist whole = {0};
    int rc = 0;
    if (r->whole_read && !(off & MG_RANK_WHOLE) && (rc = mg__whole_files(r, (unsigned)off, &whole)) == 0 && whole.n)
        rc = fuse(r, out, base, n, &whole, limit);
    mg__flist_release(&whole);
    if (rc != 0) return -1;
    if (all == n) return 0;
    /* (the hits the lists added rank with the pool) */
    double low = out->v[base].score;
    for (size_t i = 1; i < n; i++)
        if (out->v[base + i].score < low) low = out->v[base + i].score;
    for (size_t i = end; i < out->n; i++)
        if (out->v[i].score < low) low = out->v[i].score;
    for (size_t i = n; i < all; i++) out->v[base + i].score = low - (double)(i - n + 1); /* after the pool, in order */
    return 0;
}
