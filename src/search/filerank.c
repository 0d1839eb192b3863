/* filerank.c — the file-level ordering of one repo's ranked hits
 * (search_int.h's mg__rank_files): an agent with a bug report needs the
 * file, and chunks stay what is shown.
 *
 * Three signals, each switched off alone by config rank_off (the
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
 *   wide  — the pool of 50 chunks holds too few files for a long query (a
 *           bug report), whose words are spread over the file to change.
 *           When lexical search (the mode; hybrid search has fused its
 *           lexical list already) comes to its any-word pass, it keeps the
 *           best MG__WIDE_ROWS rows it ranks anyway, with their files
 *           (scores and ids only: no text; r->wide); those rows summed per
 *           file the same way (and weighed by role) rank files of their
 *           own. The pool's files and these are fused by reciprocal rank
 *           (config hybrid_rrf_k, both lists weighted alike), and a file
 *           only the wide list has joins the pool by its best chunk when it
 *           ranks within the limit.
 * The factors are halves and equal weights by construction, not fitted to
 * any report set.
 *
 * Sections:
 *   1. roles and a file's chunks summed (the pool)
 *   2. the wide read: files by their chunks' evidence
 *   3. the fusion
 *   4. mg__rank_files
 */
#include "search/search_int.h"

#include <stdlib.h>
#include <string.h>

#include "index/role.h"
#include "util/config.h"

#define ROLE_WEIGHT 0.5 /* a non-source file's hit, unless asked for */
#define FILE_DECAY 0.5  /* each further chunk of a file counts this much of the one before */
#define WIDE_FILES MG__RANK_POOL /* files of the wide list fused */

static double weigh(double score, double w) { return score >= 0 ? score * w : score / w; }

/* ---- 1. roles and a file's chunks summed (the pool) ------------------------------------------ */

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
    if (!(off & MG_RANK_ROLES)) {
        unsigned asked = mg_roles_asked(query);
        for (size_t i = 0; i < n; i++) {
            int role = v[i].role ? v[i].role : (int)mg_file_role(v[i].path, NULL, 0);
            if (role != MG_ROLE_SOURCE && !(asked & 1u << role)) v[i].score = weigh(v[i].score, ROLE_WEIGHT);
        }
    }
    if ((off & MG_RANK_FILES) || n < 2) return 0;
    struct mg_hit **by;
    if (by_file(v, n, &by) != 0) return -1;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        double sum = by[i]->score, w = 1;
        for (; j < n && strcmp(by[j]->path, by[i]->path) == 0; j++) {
            w *= FILE_DECAY;
            if (by[j]->score > 0) sum += w * by[j]->score;
        }
        if (by[i]->score > 0) by[i]->score = sum;
        i = j;
    }
    free(by);
    return 0;
}

/* ---- 2. the wide read: files by their chunks' evidence ------------------------------------------ */

struct wfile {
    double score;
    int64_t best;       /* its best chunk */
    const char *path;   /* (r->wide's) */
    int rank_pool;      /* fuse(): the file's place in the pool's order (1-based) */
};

/* by file, then score (best first), then id (a file's chunks in file order) */
static int cmp_wrow(const void *a, const void *b)
{
    const struct mg__wrow *x = a, *y = b;
    if (x->file != y->file) return x->file < y->file ? -1 : 1;
    if (x->score != y->score) return x->score > y->score ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

static int cmp_score_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

/* best first, ties by path: the same for any thread count */
static int cmp_wfile(const void *a, const void *b)
{
    const struct wfile *x = a, *y = b;
    if (x->score != y->score) return x->score > y->score ? -1 : 1;
    return strcmp(x->path, y->path);
}

/* The files of the wide read's best MG__WIDE_ROWS rows and those tied with
 * the last (a tie still open where the read stopped is left out whole:
 * chunk ids, which break ties, follow the writer's order), each scored as
 * the pool's files (its best row plus the others decayed, weighed by role),
 * best WIDE_FILES first into *out (*nout; caller frees). */
static int wide_files(struct mg__repo *r, unsigned off, const char *query, struct wfile **out, size_t *nout)
{
    struct mg__wide *w = &r->wide;
    *out = NULL;
    *nout = 0;
    size_t n = w->n;
    if (n == 0) return 0;
    /* the cut: rows are best first (score, then id) */
    double *sc = malloc(n * sizeof(*sc));
    if (!sc) return mg_err_oom(r->err);
    for (size_t i = 0; i < n; i++) sc[i] = w->v[i].score;
    qsort(sc, n, sizeof(*sc), cmp_score_desc);
    size_t keep = n < MG__WIDE_ROWS ? n : MG__WIDE_ROWS;
    while (keep < n && sc[keep] == sc[keep - 1]) keep++;
    if (w->full && keep == n) {
        while (keep > 0 && sc[keep - 1] == sc[n - 1]) keep--;
    }
    double cut = keep ? sc[keep - 1] : 0;
    free(sc);
    if (keep == 0) return 0;
    qsort(w->v, n, sizeof(*w->v), cmp_wrow);
    struct wfile *f = calloc(n, sizeof(*f));
    if (!f) return mg_err_oom(r->err);
    unsigned asked = mg_roles_asked(query);
    size_t nf = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && w->v[j].file == w->v[i].file && w->v[j].score < cut) j++; /* (rows past the cut) */
        if (j < n && w->v[j].file == w->v[i].file) {
            const struct mg__wrow *b = &w->v[j];
            double sum = b->score, dw = 1;
            for (j++; j < n && w->v[j].file == b->file; j++) {
                if (w->v[j].score < cut) continue;
                dw *= FILE_DECAY;
                if (!(off & MG_RANK_FILES) && w->v[j].score > 0) sum += dw * w->v[j].score;
            }
            int role = b->role ? b->role : (int)mg_file_role(b->path, NULL, 0);
            if (!(off & MG_RANK_ROLES) && role != MG_ROLE_SOURCE && !(asked & 1u << role))
                sum = weigh(sum, ROLE_WEIGHT);
            f[nf++] = (struct wfile){.score = sum, .best = b->id, .path = b->path};
        }
        while (j < n && w->v[j].file == w->v[i].file) j++;
        i = j;
    }
    qsort(f, nf, sizeof(*f), cmp_wfile);
    *out = f;
    *nout = nf < WIDE_FILES ? nf : WIDE_FILES;
    return 0;
}

/* ---- 3. the fusion ----------------------------------------------------------------------------- */

static int cmp_path(const void *a, const void *b)
{
    return strcmp(((const struct wfile *)a)->path, ((const struct wfile *)b)->path);
}

/* The pool's files (their best hits' scores) and the wide list fused by
 * reciprocal rank: each pool hit's score becomes its file's fused score
 * (its file's other hits, that times their share of the best one's), and
 * each file only the wide list has adds its best chunk's hit. v: the pool
 * (n hits) inside out; new hits are appended to out, those within limit. */
static int fuse(struct mg__repo *r, struct mg_results *out, size_t at, size_t n, struct wfile *wf, size_t nwf,
                int limit)
{
    double k = r->cfg->hybrid_rrf_k > 0 ? r->cfg->hybrid_rrf_k : 60;
    struct mg_hit **by;
    if (by_file(out->v + at, n, &by) != 0) return mg_err_oom(r->err);
    /* the pool's files, best first (ties by path) */
    struct wfile *pf = calloc(n ? n : 1, sizeof(*pf));
    size_t npf = 0;
    if (!pf) {
        free(by);
        return mg_err_oom(r->err);
    }
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && strcmp(by[j]->path, by[i]->path) == 0) j++;
        pf[npf++] = (struct wfile){.score = by[i]->score, .path = by[i]->path, .best = (int64_t)i}; /* (by's) */
        i = j;
    }
    qsort(pf, npf, sizeof(*pf), cmp_wfile);
    for (size_t i = 0; i < npf; i++) pf[i].rank_pool = (int)i + 1;
    /* each wide file's place in the pool's order */
    qsort(pf, npf, sizeof(*pf), cmp_path);
    double *fused = calloc(npf ? npf : 1, sizeof(*fused));
    bool *inpool = calloc(nwf ? nwf : 1, sizeof(*inpool));
    if (!fused || !inpool) {
        free(by), free(pf), free(fused), free(inpool);
        return mg_err_oom(r->err);
    }
    for (size_t i = 0; i < npf; i++) fused[i] = 1.0 / (k + pf[i].rank_pool);
    for (size_t w = 0; w < nwf; w++) {
        struct wfile key = {.path = wf[w].path};
        struct wfile *p = bsearch(&key, pf, npf, sizeof(*pf), cmp_path);
        if (p) {
            fused[p - pf] += 1.0 / (k + (double)(w + 1));
            inpool[w] = true;
        }
    }
    /* the pool's hits: the file's best hit its fused score, the others their share of it */
    for (size_t i = 0; i < npf; i++) {
        size_t b = (size_t)pf[i].best;
        double best = by[b]->score;
        by[b]->score = fused[i];
        for (size_t j = b + 1; j < n && strcmp(by[j]->path, by[b]->path) == 0; j++)
            by[j]->score = fused[i] * (best > 0 && by[j]->score > 0 && by[j]->score <= best ? by[j]->score / best
                                                                                          : FILE_DECAY);
    }
    free(by), free(pf), free(fused);
    /* the files only the wide list has, by their best chunks (appended: out->v
     * may move), those that rank within the limit among the pool's hits and
     * them (a hit past it would be cut: its snippet costs its file's text) */
    double *all = malloc((n + nwf) * sizeof(*all)), floor = -1e300;
    size_t nall = 0;
    if (!all) {
        free(inpool);
        return mg_err_oom(r->err);
    }
    for (size_t i = 0; i < n; i++) all[nall++] = out->v[at + i].score;
    for (size_t w = 0; w < nwf; w++)
        if (!inpool[w]) all[nall++] = 1.0 / (k + (double)(w + 1));
    qsort(all, nall, sizeof(*all), cmp_score_desc);
    if (nall > (size_t)limit) floor = all[limit - 1];
    free(all);
    int rc = 0;
    struct mg_idx_cur c = {0};
    struct mg_idx_row row;
    for (size_t w = 0; w < nwf && rc == 0; w++) {
        if (inpool[w] || 1.0 / (k + (double)(w + 1)) < floor) continue;
        if (mg_idx_chunk_hit(r->d, wf[w].best, &c, r->err) != 0) {
            rc = -1;
            break;
        }
        if (mg_idx_next(&c, &row) > 0) rc = mg__chunk_hit(r, out, &row, 1.0 / (k + (double)(w + 1)));
        mg_idx_done(&c);
    }
    free(inpool);
    return rc;
}

/* ---- 4. mg__rank_files -------------------------------------------------------------------------- */

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
    const char *query = r->q->query;
    if (rank_pool((unsigned)off, query, out->v + base, n) != 0) return mg_err_oom(r->err);
    size_t end = out->n;
    if (r->wide.n && !(off & MG_RANK_WIDE)) {
        struct wfile *wf;
        size_t nwf;
        if (wide_files(r, (unsigned)off, query, &wf, &nwf) != 0) return -1;
        int rc = nwf ? fuse(r, out, base, n, wf, nwf, limit) : 0;
        free(wf);
        if (rc != 0) return -1;
    }
    if (all == n) return 0;
    /* (the hits the wide read added rank with the pool) */
    double low = out->v[base].score;
    for (size_t i = 1; i < n; i++)
        if (out->v[base + i].score < low) low = out->v[base + i].score;
    for (size_t i = end; i < out->n; i++)
        if (out->v[i].score < low) low = out->v[i].score;
    for (size_t i = n; i < all; i++) out->v[base + i].score = low - (double)(i - n + 1); /* after the pool, in order */
    return 0;
}
