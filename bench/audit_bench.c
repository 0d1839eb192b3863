/* audit_bench.c — audit appends per second (build/memgate-auditbench).
 *
 *   memgate-auditbench HOME [--storage URL] [--procs P] [--threads T]
 *                      [--events N] [--fsync writes|event|off] [--durable K]
 *
 * P processes (default 1) of T threads (default 1) each append N events
 * (default 2000) to the audit chain of data directory HOME (the files), or
 * of the PostgreSQL database at URL (storage = postgres://...): one handle
 * per process (mg_audit_open), as a daemon has. Every K-th event of a
 * thread (default 4; 0 none) is durable (a write or a security event: synced
 * under audit_fsync = writes), the rest are reads. Prints key-value lines:
 * events, seconds, appends_per_s, p50_us, p99_us (per append, over every
 * thread), and whether the chain verifies afterwards.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "security/audit.h"
#include "util/clock.h"
#include "util/config.h"

#define USAGE                                                                                                 \
    "usage: memgate-auditbench HOME [--storage URL] [--procs P] [--threads T] [--events N] "                 \
    "[--fsync writes|event|off] [--durable K]\n"

struct worker {
    struct mg_audit *a;
    int n, durable, id;
    float *lat_us; /* n of them */
    int failed;
};

static void *work(void *p)
{
    struct worker *w = p;
    char q[64];
    for (int i = 0; i < w->n; i++) {
        snprintf(q, sizeof(q), "bench query %d.%d", w->id, i);
        struct mg_audit_event ev = {.tenant = "bench", .instance = "bench", .session = "s", .repo = "r",
                                    .op = "search_code", .query = q, .results = 3,
                                    .durable = w->durable && i % w->durable == 0};
        struct mg_err err = {0};
        double t0 = mg_clock_s();
        if (mg_audit_emit(w->a, &ev, &err) != 0) {
            if (!w->failed++) fprintf(stderr, "emit: %s\n", err.msg);
        }
        w->lat_us[i] = (float)((mg_clock_s() - t0) * 1e6);
    }
    return NULL;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        fputs(USAGE, stdout);
        return 0;
    }
    if (argc < 2 || argv[1][0] == '-') {
        fputs(USAGE, stderr);
        return 2;
    }
    struct mg_config c;
    mg_config_defaults(&c);
    snprintf(c.home, sizeof(c.home), "%s", argv[1]);
    int procs = 1, threads = 1, events = 2000, durable = 4;
    for (int i = 2; i < argc; i += 2) {
        if (i + 1 == argc) {
            fprintf(stderr, "%s needs a value\n" USAGE, argv[i]);
            return 2;
        }
        if (!strcmp(argv[i], "--storage")) snprintf(c.storage, sizeof(c.storage), "%s", argv[i + 1]);
        else if (!strcmp(argv[i], "--procs")) procs = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--threads")) threads = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--events")) events = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--fsync")) snprintf(c.audit_fsync, sizeof(c.audit_fsync), "%s", argv[i + 1]);
        else if (!strcmp(argv[i], "--durable")) durable = atoi(argv[i + 1]);
        else {
            fprintf(stderr, "unknown option %s\n" USAGE, argv[i]);
            return 2;
        }
    }
    if (procs < 1 || threads < 1 || events < 1) {
        fputs("--procs, --threads and --events take a whole number of at least 1\n", stderr);
        return 2;
    }
    size_t total = (size_t)procs * (size_t)threads * (size_t)events;
    /* the latencies of every process, in memory they share */
    float *lat = mmap(NULL, total * sizeof(float), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (lat == MAP_FAILED) return 1;
    double t0 = mg_clock_s();
    pid_t *kids = calloc((size_t)procs, sizeof(pid_t));
    for (int p = 0; p < procs; p++) {
        kids[p] = fork();
        if (kids[p] != 0) continue;
        struct mg_audit *a;
        struct mg_err err = {0};
        if (mg_audit_open(&c, &a, &err) != 0) {
            fprintf(stderr, "open: %s\n", err.msg);
            _exit(1);
        }
        struct worker *w = calloc((size_t)threads, sizeof(*w));
        pthread_t *th = calloc((size_t)threads, sizeof(*th));
        int failed = 0;
        for (int t = 0; t < threads; t++) {
            w[t] = (struct worker){.a = a, .n = events, .durable = durable, .id = p * threads + t,
                                   .lat_us = lat + (size_t)(p * threads + t) * (size_t)events};
            pthread_create(&th[t], NULL, work, &w[t]);
        }
        for (int t = 0; t < threads; t++) {
            pthread_join(th[t], NULL);
            failed += w[t].failed;
        }
        mg_audit_close(a);
        _exit(failed ? 1 : 0);
    }
    int bad = 0;
    for (int p = 0; p < procs; p++) {
        int st;
        waitpid(kids[p], &st, 0);
        bad += !WIFEXITED(st) || WEXITSTATUS(st) != 0;
    }
    double secs = mg_clock_s() - t0;
    qsort(lat, total, sizeof(float), cmp_float);
    struct mg_audit_report r;
    struct mg_err err = {0};
    int vr = mg_audit_verify(&c, &r, &err);
    printf("storage %s\nprocs %d\nthreads %d\nevents %zu\nseconds %.3f\nappends_per_s %.0f\np50_us %.0f\np99_us %.0f\n"
           "verify %s\nchain_events %lld\nfailed_procs %d\n",
           c.storage, procs, threads, total, secs, (double)total / secs, lat[total / 2], lat[total * 99 / 100],
           vr == 0 ? "ok" : err.msg, r.events, bad);
    return bad || vr ? 1 : 0;
}
