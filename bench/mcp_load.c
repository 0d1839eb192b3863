/* mcp_load.c — load and session-memory benchmark for `memgate serve`.
 *
 *   memgate-mcpload URL QUERIES.tsv [--sessions N] [--seconds S] [--repo ID]
 *                   [--mode M] [--warmup W] [--calls C] [--idle N] [--pid PID]
 *
 * 1. N concurrent MCP sessions over Streamable HTTP (one thread and one
 *    keep-alive connection each) initialize, then call tools/call
 *    search_code (with mode M, else its default) with the lexical queries
 *    of QUERIES.tsv in turn for S
 *    seconds (after W seconds of the same load not counted: a fresh
 *    server's first calls read its index from disk and fill its caches).
 *    Prints requests/s, p50/p99 latency and errors (an HTTP status
 *    other than 200, a JSON-RPC error or an isError result); with --pid,
 *    the server's CPU time per call (from /proc/PID/stat) and its peak
 *    RSS so far (VmHWM of /proc/PID/status). With --calls C each session
 *    stops after C counted calls (the run ends when all have, or after S
 *    seconds): the same calls of the same queries on every run, for
 *    counting instructions (bench/instructions.py --serve).
 * 2. With --idle N and --pid PID: opens N more sessions (initialize only),
 *    and prints the server's RSS growth per session (from /proc/PID/status).
 *
 * Output: "key value" lines, for bench/run.sh to pick up.
 */
#include <curl/curl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *url, *repo = "linux", *mode; /* mode NULL: search_code's default (auto) */
static char **queries;
static size_t nqueries;
static double seconds = 20, warmup;
static size_t calls; /* counted calls a session makes; 0: until the time is up */
static int running;  /* sessions not done yet (atomic) */
static volatile int stop;
static volatile double t_measure = 1e300; /* calls started from then on count (set after the warm-up) */

struct buf {
    char *p;
    size_t n;
};

static size_t on_body(char *d, size_t sz, size_t nm, void *ud)
{
    struct buf *b = ud;
    size_t n = sz * nm;
    char *np = realloc(b->p, b->n + n + 1);
    if (!np) return 0;
    b->p = np;
    memcpy(b->p + b->n, d, n);
    b->n += n;
    b->p[b->n] = 0;
    return n;
}

struct hdr {
    char sid[160];
};

static size_t on_header(char *d, size_t sz, size_t nm, void *ud)
{
    struct hdr *h = ud;
    size_t n = sz * nm;
    if (n > 15 && strncasecmp(d, "mcp-session-id:", 15) == 0) {
        const char *v = d + 15;
        while (*v == ' ') v++;
        size_t l = strcspn(v, "\r\n");
        if (l < sizeof(h->sid)) {
            memcpy(h->sid, v, l);
            h->sid[l] = 0;
        }
    }
    return n;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* POST body; returns the HTTP status, fills out (caller frees). */
static long post(CURL *c, const char *sid, const char *body, struct buf *out, struct hdr *h)
{
    struct curl_slist *hs = NULL;
    char line[256];
    hs = curl_slist_append(hs, "Content-Type: application/json");
    hs = curl_slist_append(hs, "Accept: application/json, text/event-stream");
    hs = curl_slist_append(hs, "MCP-Protocol-Version: 2025-06-18");
    snprintf(line, sizeof(line), "X-Memgate-Repo: %s", repo);
    hs = curl_slist_append(hs, line);
    if (sid) {
        snprintf(line, sizeof(line), "Mcp-Session-Id: %s", sid);
        hs = curl_slist_append(hs, line);
    }
    out->p = NULL;
    out->n = 0;
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hs);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, h);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);
    long status = 0;
    if (curl_easy_perform(c) == CURLE_OK) curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(hs);
    return status;
}

static int open_session(CURL *c, char sid[160])
{
    struct buf b;
    struct hdr h = {{0}};
    long st = post(c, NULL,
                   "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                   "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"mcp_load\",\"version\":\"1\"}}}",
                   &b, &h);
    free(b.p);
    if (st != 200 || !h.sid[0]) return -1;
    snprintf(sid, 160, "%s", h.sid);
    st = post(c, sid, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", &b, &h);
    free(b.p);
    return st == 202 ? 0 : -1;
}

struct worker {
    pthread_t th;
    int idx;
    double *lat;
    size_t n, cap;
    size_t errors;
    char first_error[300];
};

static void *run(void *arg)
{
    struct worker *w = arg;
    CURL *c = curl_easy_init();
    char sid[160];
    if (!c || open_session(c, sid) != 0) {
        w->errors++;
        snprintf(w->first_error, sizeof(w->first_error), "initialize failed");
        if (c) curl_easy_cleanup(c);
        __atomic_sub_fetch(&running, 1, __ATOMIC_RELEASE);
        return NULL;
    }
    size_t qi = (size_t)w->idx;
    char body[1024];
    while (!stop) {
        const char *q = queries[qi++ % nqueries];
        snprintf(body, sizeof(body),
                 "{\"jsonrpc\":\"2.0\",\"id\":%zu,\"method\":\"tools/call\",\"params\":{\"name\":\"search_code\","
                 "\"arguments\":{\"query\":\"%s\",\"limit\":10%s%s%s}}}",
                 qi, q, mode ? ",\"mode\":\"" : "", mode ? mode : "", mode ? "\"" : "");
        struct buf b;
        struct hdr h = {{0}};
        double t0 = now();
        long st = post(c, sid, body, &b, &h);
        double dt = now() - t0;
        bool ok = st == 200 && b.p && strstr(b.p, "\"result\"") && !strstr(b.p, "\"isError\":true") &&
                  strstr(b.p, "\"results\"");
        if (!ok) {
            if (!w->errors)
                snprintf(w->first_error, sizeof(w->first_error), "status %ld: %.200s", st, b.p ? b.p : "");
            w->errors++;
        }
        free(b.p);
        if (stop) break; /* a request cut by the end of the run does not count */
        if (t0 < t_measure) continue; /* (the warm-up's) */
        if (w->n == w->cap) {
            w->cap = w->cap ? w->cap * 2 : 1024;
            w->lat = realloc(w->lat, w->cap * sizeof(double));
        }
        w->lat[w->n++] = dt;
        if (calls && w->n >= calls) break;
    }
    curl_easy_cleanup(c);
    __atomic_sub_fetch(&running, 1, __ATOMIC_RELEASE);
    return NULL;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* A field of /proc/PID/status in kB ("VmRSS:", "VmHWM:"); -1 when unread. */
static long status_kb(int pid, const char *key)
{
    char p[64], line[256];
    snprintf(p, sizeof(p), "/proc/%d/status", pid);
    FILE *f = fopen(p, "r");
    long kb = -1;
    size_t kl = strlen(key);
    while (f && fgets(line, sizeof(line), f))
        if (strncmp(line, key, kl) == 0) kb = atol(line + kl);
    if (f) fclose(f);
    return kb;
}

/* The CPU seconds (user + system) process pid has used. */
static double cpu_s(int pid)
{
    char p[64], line[1024];
    snprintf(p, sizeof(p), "/proc/%d/stat", pid);
    FILE *f = fopen(p, "r");
    double s = -1;
    if (f && fgets(line, sizeof(line), f)) {
        const char *q = strrchr(line, ')'); /* after the command name: state is field 3, utime 14, stime 15 */
        unsigned long ut = 0, st = 0;
        if (q && sscanf(q + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) == 2)
            s = (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
    }
    if (f) fclose(f);
    return s;
}

int main(int argc, char **argv)
{
    int nsess = 256, idle = 0, pid = 0;
    if (argc < 3) {
        fprintf(stderr, "usage: memgate-mcpload URL QUERIES.tsv [--sessions N] [--seconds S] [--repo ID] "
                        "[--mode M] [--warmup W] [--calls C] [--idle N --pid PID]\n");
        return 2;
    }
    url = argv[1];
    for (int i = 3; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--sessions")) nsess = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--seconds")) seconds = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--warmup")) warmup = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--repo")) repo = argv[i + 1];
        else if (!strcmp(argv[i], "--idle")) idle = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--pid")) pid = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--mode")) mode = argv[i + 1];
        else if (!strcmp(argv[i], "--calls")) calls = (size_t)atol(argv[i + 1]);
    }
    FILE *f = fopen(argv[2], "r");
    if (!f) {
        perror(argv[2]);
        return 1;
    }
    char line[1024];
    while (fgets(line, sizeof(line), f)) {
        if (strncmp(line, "lexical\t", 8) != 0) continue;
        char *q = line + 8;
        q[strcspn(q, "\t\n")] = 0;
        if (strchr(q, '"') || strchr(q, '\\')) continue;
        queries = realloc(queries, (nqueries + 1) * sizeof(*queries));
        queries[nqueries++] = strdup(q);
    }
    fclose(f);
    if (!nqueries) {
        fprintf(stderr, "no lexical queries in %s\n", argv[2]);
        return 1;
    }
    curl_global_init(CURL_GLOBAL_DEFAULT);

    if (nsess > 0) {
        struct worker *w = calloc((size_t)nsess, sizeof(*w));
        if (warmup <= 0) t_measure = 0;
        double cpu0 = pid > 0 ? cpu_s(pid) : -1;
        double t0 = now();
        running = nsess;
        for (int i = 0; i < nsess; i++) {
            w[i].idx = i;
            pthread_attr_t a;
            pthread_attr_init(&a);
            pthread_attr_setstacksize(&a, 256 * 1024);
            pthread_create(&w[i].th, &a, run, &w[i]);
            pthread_attr_destroy(&a);
        }
        if (warmup > 0) {
            while (now() - t0 < warmup) usleep(100 * 1000);
            cpu0 = pid > 0 ? cpu_s(pid) : -1;
            t0 = t_measure = now();
        }
        while (now() - t0 < seconds && __atomic_load_n(&running, __ATOMIC_ACQUIRE) > 0) usleep(10 * 1000);
        stop = 1;
        double el = now() - t0;
        double cpu1 = pid > 0 ? cpu_s(pid) : -1;
        size_t total = 0, errors = 0;
        for (int i = 0; i < nsess; i++) {
            pthread_join(w[i].th, NULL);
            total += w[i].n;
            errors += w[i].errors;
        }
        double *all = malloc((total ? total : 1) * sizeof(double));
        size_t k = 0;
        for (int i = 0; i < nsess; i++) {
            memcpy(all + k, w[i].lat, w[i].n * sizeof(double));
            k += w[i].n;
        }
        qsort(all, total, sizeof(double), cmp_d);
        printf("sessions %d\nseconds %.1f\nrequests %zu\nrps %.1f\np50_ms %.2f\np99_ms %.2f\nerrors %zu\n", nsess,
               el, total, total / el, total ? all[total / 2] * 1e3 : 0, total ? all[(size_t)(total * 0.99)] * 1e3 : 0,
               errors);
        if (cpu0 >= 0 && cpu1 >= 0 && total)
            printf("server_cpu_s %.2f\ncpu_ms_per_call %.2f\n", cpu1 - cpu0, (cpu1 - cpu0) * 1e3 / (double)total);
        if (pid > 0) printf("server_peak_rss_kb %ld\n", status_kb(pid, "VmHWM:"));
        for (int i = 0; i < nsess; i++)
            if (w[i].errors) {
                fprintf(stderr, "mcp_load: first error: %s\n", w[i].first_error);
                break;
            }
        free(all);
    }

    if (idle > 0 && pid > 0) {
        CURL *c = curl_easy_init();
        long before = status_kb(pid, "VmRSS:");
        int ok = 0;
        char sid[160];
        for (int i = 0; i < idle; i++) ok += open_session(c, sid) == 0;
        long after = status_kb(pid, "VmRSS:");
        curl_easy_cleanup(c);
        printf("idle_sessions %d\nidle_ok %d\nrss_before_kb %ld\nrss_after_kb %ld\nbytes_per_session %.0f\n", idle,
               ok, before, after, ok ? (after - before) * 1024.0 / ok : 0);
    }
    curl_global_cleanup();
    return 0;
}
