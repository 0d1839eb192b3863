/* search_bench.c — time the fixed benchmark queries inside one process.
 *
 *   memgate-bench QUERIES.tsv [--repo ID] [--runs N]
 *
 * For each query of QUERIES.tsv (mode <TAB> query <TAB> ...), one warm-up
 * search and then N timed ones (default 20) through the same code path as
 * `memgate search` (mg_search, a fresh database handle per search, as the CLI
 * does). Prints one line per query:
 *     mode <TAB> results <TAB> median_ms <TAB> max_ms <TAB> query
 * then per mode and overall: p50 and p99 over every timed run. Uses the data
 * directory of MEMGATE_HOME like the CLI.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "search/search.h"
#include "store/catalog.h"
#include "util/config.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double pct(double *v, size_t n, double p)
{
    if (n == 0) return 0;
    qsort(v, n, sizeof(double), cmp_double);
    size_t i = (size_t)(p * (double)(n - 1) + 0.5);
    return v[i < n ? i : n - 1];
}

struct series {
    double *v;
    size_t n, cap;
};

static void push(struct series *s, double x)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 256;
        s->v = realloc(s->v, s->cap * sizeof(double));
        if (!s->v) abort();
    }
    s->v[s->n++] = x;
}

int main(int argc, char **argv)
{
    const char *file = NULL, *repo = NULL;
    int runs = 20;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--repo") == 0 && i + 1 < argc) repo = argv[++i];
        else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) runs = atoi(argv[++i]);
        else if (argv[i][0] != '-') file = argv[i];
        else {
            fprintf(stderr, "usage: %s QUERIES.tsv [--repo ID] [--runs N]\n", argv[0]);
            return 2;
        }
    }
    if (!file || runs < 1) {
        fprintf(stderr, "usage: %s QUERIES.tsv [--repo ID] [--runs N]\n", argv[0]);
        return 2;
    }
    struct mg_config cfg;
    struct mg_err err = {0};
    if (mg_config_load(&cfg, &err) != 0) {
        mg_err_print(&err);
        return 1;
    }
    struct mg_repo *rv;
    size_t nr;
    const char *ids[1] = {repo};
    if (mg_catalog_resolve(&cfg, ids, repo ? 1 : 0, NULL, &rv, &nr, &err) != 0) {
        mg_err_print(&err);
        return 1;
    }
    FILE *f = fopen(file, "r");
    if (!f) {
        perror(file);
        return 1;
    }
    static const char *modes[] = {"lexical", "symbol", "regex"};
    struct series per[3] = {{0}}, all = {0};
    char line[8192];
    while (fgets(line, sizeof(line), f)) {
        if (line[0] == '#' || line[0] == '\n') continue;
        line[strcspn(line, "\n")] = 0;
        char *mode = line, *q = strchr(line, '\t');
        if (!q) continue;
        *q++ = 0;
        char *tab = strchr(q, '\t');
        if (tab) *tab = 0;
        struct mg_search_req req = {.query = q, .limit = 10};
        if (mg_mode_parse(mode, &req.mode, &err) != 0) {
            mg_err_print(&err);
            return 1;
        }
        int m = req.mode == MG_MODE_LEXICAL ? 0 : req.mode == MG_MODE_SYMBOL ? 1 : 2;
        struct mg_results res;
        if (mg_search(&cfg, rv, nr, &req, &res, &err) != 0) { /* warm-up */
            mg_err_print(&err);
            return 1;
        }
        size_t nres = res.n;
        mg_results_release(&res);
        struct series s = {0};
        for (int r = 0; r < runs; r++) {
            double t0 = now_ms();
            if (mg_search(&cfg, rv, nr, &req, &res, &err) != 0) {
                mg_err_print(&err);
                return 1;
            }
            double t = now_ms() - t0;
            mg_results_release(&res);
            push(&s, t);
            push(&per[m], t);
            push(&all, t);
        }
        double med = pct(s.v, s.n, 0.5), mx = pct(s.v, s.n, 1.0);
        printf("%s\t%zu\t%.2f\t%.2f\t%s\n", mode, nres, med, mx, q);
        free(s.v);
    }
    fclose(f);
    for (int m = 0; m < 3; m++)
        printf("# %-8s p50 %.2f ms  p99 %.2f ms  (%zu runs)\n", modes[m], pct(per[m].v, per[m].n, 0.5),
               pct(per[m].v, per[m].n, 0.99), per[m].n);
    struct series ls = {0};
    for (int m = 0; m < 2; m++)
        for (size_t i = 0; i < per[m].n; i++) push(&ls, per[m].v[i]);
    printf("# %-8s p50 %.2f ms  p99 %.2f ms  (lexical and symbol)\n", "lex+sym", pct(ls.v, ls.n, 0.5),
           pct(ls.v, ls.n, 0.99));
    printf("# %-8s p50 %.2f ms  p99 %.2f ms\n", "all", pct(all.v, all.n, 0.5), pct(all.v, all.n, 0.99));
    for (int m = 0; m < 3; m++) free(per[m].v);
    free(all.v);
    free(ls.v);
    free(rv);
    return 0;
}
