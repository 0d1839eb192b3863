/* scan_bench.c — secret-scanner throughput, one thread (build/memgate-scanbench).
 *
 *   memgate-scanbench DIR... [--runs N] [--findings FILE] [--rules FILE]
 *
 * Lists each DIR like `memgate scan` (the index walker, secret files included),
 * reads every text file of at most 1 MiB into memory, then scans them all
 * N times (default 5) on this one thread with the built-in rules,
 * confirmation included. Only the scanning is timed (not the walk, the reads
 * or the rules' compilation, which is reported apart). Prints key-value
 * lines: files, bytes, compile_ms, best_mbps, median_mbps, cpu_mbps (best run,
 * thread CPU time), findings. --findings writes "path<TAB>line<TAB>rule<TAB>start<TAB>end" of
 * each finding (paths relative to their DIR), for comparing with other scanners.
 * --rules FILE scans with that rules file instead of the built-in rules (an
 * older rule set beside the new one in the same run).
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "index/walk.h"
#include "security/scan.h"

static double clk(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct file {
    const char *path;
    char *buf;
    size_t len;
};

static FILE *out_findings;
static const char *cur_path;

static int on_finding(const struct mg_finding *f, void *ud)
{
    (void)ud;
    if (out_findings) fprintf(out_findings, "%s\t%u\t%s\t%zu\t%zu\n", cur_path, f->line, f->rule, f->start, f->end);
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#define MAX_DIRS 16

int main(int argc, char **argv)
{
    const char *dirs[MAX_DIRS], *fpath = NULL, *rpath = NULL;
    int ndirs = 0, runs = 5;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) runs = atoi(argv[++i]);
        else if (strcmp(argv[i], "--findings") == 0 && i + 1 < argc) fpath = argv[++i];
        else if (strcmp(argv[i], "--rules") == 0 && i + 1 < argc) rpath = argv[++i];
        else if (argv[i][0] != '-' && ndirs < MAX_DIRS) dirs[ndirs++] = argv[i];
        else {
            fprintf(stderr, "usage: memgate-scanbench DIR... [--runs N] [--findings FILE] [--rules FILE]\n");
            return 2;
        }
    }
    if (!ndirs || runs < 1 || runs > 1000) {
        fprintf(stderr, "usage: memgate-scanbench DIR... [--runs N] [--findings FILE] [--rules FILE]\n");
        return 2;
    }
    struct mg_err err = {0};
    struct mg_walk w[MAX_DIRS];
    struct file *fv = NULL;
    size_t nf = 0, bytes = 0;
    for (int d = 0; d < ndirs; d++) {
        char root[PATH_MAX];
        if (!realpath(dirs[d], root)) {
            perror(dirs[d]);
            return 1;
        }
        if (mg_walk_ex(root, 1 << 20, MG_WALK_SECRET_FILES, &w[d], &err) != 0) {
            mg_err_print(&err);
            return 1;
        }
        int rootfd = open(root, O_RDONLY | O_DIRECTORY);
        if (!(fv = realloc(fv, (nf + w[d].n + 1) * sizeof(*fv)))) return 1;
        for (size_t i = 0; i < w[d].n; i++) {
            char *buf;
            size_t len;
            int64_t mt;
            if (mg_read_beneath(rootfd, root, w[d].v[i].path, 1 << 20, &buf, &len, &mt, &err) != 0) continue;
            if (memchr(buf, 0, len < 8000 ? len : 8000)) { /* binary, as `memgate scan` skips it */
                free(buf);
                continue;
            }
            fv[nf++] = (struct file){w[d].v[i].path, buf, len};
            bytes += len;
        }
        close(rootfd);
    }

    double t0 = clk(CLOCK_MONOTONIC);
    struct mg_scanner *own = NULL;
    if (rpath && mg_scanner_load(rpath, &own, &err) != 0) {
        mg_err_print(&err);
        return 1;
    }
    const struct mg_scanner *s = rpath ? own : mg_scanner_default();
    double compile_ms = (clk(CLOCK_MONOTONIC) - t0) * 1000;
    if (!s) return 1;

    double *wall = calloc((size_t)runs, sizeof(double)), best_cpu = 1e18;
    long findings = 0;
    for (int r = 0; r < runs; r++) {
        out_findings = r == 0 && fpath ? fopen(fpath, "w") : NULL;
        double a = clk(CLOCK_MONOTONIC), c = clk(CLOCK_THREAD_CPUTIME_ID);
        long n = 0;
        for (size_t i = 0; i < nf; i++) {
            cur_path = fv[i].path;
            int k = mg_scan(s, fv[i].buf, fv[i].len, on_finding, NULL, &err);
            if (k < 0) {
                mg_err_print(&err);
                return 1;
            }
            n += k;
        }
        wall[r] = clk(CLOCK_MONOTONIC) - a;
        double cpu = clk(CLOCK_THREAD_CPUTIME_ID) - c;
        if (cpu < best_cpu) best_cpu = cpu;
        if (out_findings) fclose(out_findings);
        out_findings = NULL;
        findings = n;
    }
    qsort(wall, (size_t)runs, sizeof(double), cmp_double);
    printf("files %zu\nbytes %zu\nrules %zu\ncompile_ms %.0f\nruns %d\n", nf, bytes, mg_scanner_rule_count(s), compile_ms, runs);
    printf("best_mbps %.1f\nmedian_mbps %.1f\ncpu_mbps %.1f\nfindings %ld\n", bytes / wall[0] / 1e6,
           bytes / wall[runs / 2] / 1e6, bytes / best_cpu / 1e6, findings);
    for (size_t i = 0; i < nf; i++) free(fv[i].buf);
    free(fv);
    free(wall);
    mg_scanner_free(own);
    for (int d = 0; d < ndirs; d++) mg_walk_release(&w[d]);
    return 0;
}
