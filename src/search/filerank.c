/* filerank.c — the file-level ordering of one repo's ranked hits
 * (search_int.h's mg__rank_files): an agent with a bug report needs the
 * file, and chunks stay what is shown.
 *
 * Two signals, each switched off alone by config rank_off (the benchmark's
 * ablations, bench/bugloc.py):
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
 * Both factors are halves by construction, not fitted to any report set.
 */
#include "search/search_int.h"

#include <stdlib.h>
#include <string.h>

#include "index/role.h"
#include "util/config.h"

#define ROLE_WEIGHT 0.5 /* a non-source file's hit, unless asked for */
#define FILE_DECAY 0.5  /* each further chunk of a file counts this much of the one before */

static double weigh(double score, double w) { return score >= 0 ? score * w : score / w; }

/* by path, then score (best first), then lines: deterministic */
static int cmp_file(const void *a, const void *b)
{
    const struct mg_hit *x = *(const struct mg_hit *const *)a, *y = *(const struct mg_hit *const *)b;
    int k = strcmp(x->path, y->path);
    if (k) return k;
    if (x->score != y->score) return x->score > y->score ? -1 : 1;
    return x->start_line != y->start_line ? x->start_line - y->start_line : x->end_line - y->end_line;
}

static int rank_pool(const struct mg_config *cfg, const char *query, struct mg_hit *v, size_t n);

int mg__rank_files(const struct mg_config *cfg, const char *query, struct mg_hit *v, size_t n,
                   int (*cmp)(const void *, const void *))
{
    /* the pool: the first MG__RANK_POOL hits, whatever the limit; those
     * after it keep their order below the pool's lowest score */
    if (n == 0) return 0; /* (v may be NULL then, which qsort may not take) */
    qsort(v, n, sizeof(*v), cmp);
    size_t all = n;
    if (n > MG__RANK_POOL) n = MG__RANK_POOL;
    int rc = rank_pool(cfg, query, v, n);
    if (rc != 0 || all == n) return rc;
    double low = v[0].score;
    for (size_t i = 1; i < n; i++)
        if (v[i].score < low) low = v[i].score;
    for (size_t i = n; i < all; i++) v[i].score = low - (double)(i - n + 1); /* after the pool, in order */
    return 0;
}

static int rank_pool(const struct mg_config *cfg, const char *query, struct mg_hit *v, size_t n)
{
    int off = mg_rank_off_parse(cfg->rank_off);
    if (off < 0) off = 0;
    if (!(off & MG_RANK_ROLES)) {
        unsigned asked = mg_roles_asked(query);
        for (size_t i = 0; i < n; i++) {
            int role = v[i].role ? v[i].role : (int)mg_file_role(v[i].path, NULL, 0);
            if (role != MG_ROLE_SOURCE && !(asked & 1u << role)) v[i].score = weigh(v[i].score, ROLE_WEIGHT);
        }
    }
    if ((off & MG_RANK_FILES) || n < 2) return 0;
    struct mg_hit **by = malloc(n * sizeof(*by));
    if (!by) return -1;
    for (size_t i = 0; i < n; i++) by[i] = &v[i];
    qsort(by, n, sizeof(*by), cmp_file);
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
