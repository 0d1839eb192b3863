/* metrics.c — see metrics.h.
 *
 * Sections:
 *   1. label sets, histograms, counters
 *   2. counting — what the rest of memgate calls
 *   3. rendering — the Prometheus text format
 *   4. the process
 */
#include "util/metrics.h"

#include <ctype.h>
#include <dirent.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "git_commit.h"
#include "util/version.h"

/* ---- 1. label sets, histograms, counters --------------------------------- */

/* Label sets are fixed and small: a hostile client cannot grow them. */
static const char *const routes[] = {
    "/mcp",           "/v1/repos",      "/v1/search",   "/v1/symbols",  "/v1/files",     "/v1/file",
    "/v1/outline",    "/v1/scope",      "/v1/index",    "/v1/audit",    "/v1/references", "/v1/callers",
    "/v1/callees",    "/v1/trace",      "/v1/impact",   "/v1/repo_map", "/v1/notes",     "/v1/projects",
    "/v1/episodes",   "/v1/entities",   "/v1/profiles", "/v1/context",  "/v1/dashboard", "/v1/hooks/git",
    "/healthz",       "/readyz",        "/metrics",     "/",            "other"};
#define NROUTES (sizeof(routes) / sizeof(routes[0]))

/* Latency histograms: the upper bounds of the buckets, in seconds (+Inf last, implied). */
static const double bounds[] = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                0.1,    0.25,  0.5,    1,     2.5,  5,     10};
#define NBOUNDS (sizeof(bounds) / sizeof(bounds[0]))
struct hist {
    uint64_t bucket[NBOUNDS + 1]; /* not cumulative: [i] counts bounds[i-1] < v <= bounds[i]; last: > 10 s */
    uint64_t sum_ns, count;
};
static struct hist http_time[NROUTES];

static size_t route_index(const char *route)
{
    for (size_t i = 0; i < NROUTES; i++)
        if (route && strcmp(routes[i], route) == 0) return i;
    return NROUTES - 1;
}

static void hist_add(struct hist *h, double seconds)
{
    size_t b = 0;
    while (b < NBOUNDS && seconds > bounds[b]) b++;
    __atomic_add_fetch(&h->bucket[b], 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&h->sum_ns, (uint64_t)(seconds > 0 ? seconds * 1e9 : 0), __ATOMIC_RELAXED);
    __atomic_add_fetch(&h->count, 1, __ATOMIC_RELAXED);
}

static int hist_render(struct mg_buf *o, const char *name, const char *label, const char *value,
                       const struct hist *h)
{
    uint64_t n = __atomic_load_n(&h->count, __ATOMIC_RELAXED);
    if (!n) return 0;
    int rc = 0;
    uint64_t cum = 0;
    for (size_t b = 0; b <= NBOUNDS; b++) {
        cum += __atomic_load_n(&h->bucket[b], __ATOMIC_RELAXED);
        if (b < NBOUNDS)
            rc |= mg_buf_addf(o, "%s_bucket{%s=\"%s\",le=\"%g\"} %llu\n", name, label, value, bounds[b],
                              (unsigned long long)cum);
        else
            rc |= mg_buf_addf(o, "%s_bucket{%s=\"%s\",le=\"+Inf\"} %llu\n", name, label, value,
                              (unsigned long long)cum);
    }
    rc |= mg_buf_addf(o, "%s_sum{%s=\"%s\"} %.6f\n%s_count{%s=\"%s\"} %llu\n", name, label, value,
                      (double)__atomic_load_n(&h->sum_ns, __ATOMIC_RELAXED) / 1e9, name, label, value,
                      (unsigned long long)cum);
    return rc;
}
static const int statuses[] = {200, 201, 202, 204, 400, 401, 403, 404, 405, 406, 409, 413, 415, 429, 431, 500,
                                503};
#define NSTATUS (sizeof(statuses) / sizeof(statuses[0]))
static uint64_t http_count[NROUTES][NSTATUS + 1]; /* last column: any other status */

#define NTOOLS 64
static struct {
    char name[48];
    uint64_t ok, error;
    struct hist time;
} tools[NTOOLS + 1]; /* the last slot: "other" */
static pthread_mutex_t tools_mu = PTHREAD_MUTEX_INITIALIZER;

static const char *const drop_kinds[] = {"code",    "note",    "episode", "entity",        "session",
                                         "project", "profile", "vector",  "memory_vector", "other"};
#define NDROPS (sizeof(drop_kinds) / sizeof(drop_kinds[0]))
static uint64_t drops[NDROPS];
static uint64_t sessions_created, sessions_pruned;
static const char *const sched_results[] = {"ok", "error", "skipped"};
#define NSCHED (sizeof(sched_results) / sizeof(sched_results[0]))
static uint64_t sched_runs[NSCHED];
static uint64_t redactions_served, injection_flags;
static const char *const storage_codes[] = {"storage_unavailable", "storage_conflict", "storage_retry",
                                            "schema_too_new", "db_error"};
#define NSTORAGE (sizeof(storage_codes) / sizeof(storage_codes[0]))
static uint64_t storage_errors[NSTORAGE];

/* External providers by configured name (a fixed number of slots, so a
 * config with many providers cannot grow the table; the rest count as "other"). */
#define NPROVIDERS 32
static struct {
    char name[48];
    uint64_t errors;
} providers[NPROVIDERS + 1];
static pthread_mutex_t providers_mu = PTHREAD_MUTEX_INITIALIZER;

/* ---- 2. counting --------------------------------------------------------- */

void mg_metrics_http(const char *route, int status)
{
    size_t r = route_index(route), c = NSTATUS;
    for (size_t i = 0; i < NSTATUS; i++)
        if (statuses[i] == status) c = i;
    __atomic_add_fetch(&http_count[r][c], 1, __ATOMIC_RELAXED);
}

void mg_metrics_http_time(const char *route, double seconds) { hist_add(&http_time[route_index(route)], seconds); }

/* The slot of tool (tools_mu held): its own, a free one taken for it, or
 * "other" once all are taken. */
static size_t tool_slot(const char *tool)
{
    size_t i = 0;
    for (; i < NTOOLS && tools[i].name[0]; i++)
        if (strcmp(tools[i].name, tool) == 0) break;
    if (i < NTOOLS && !tools[i].name[0]) snprintf(tools[i].name, sizeof(tools[i].name), "%s", tool);
    return i;
}

void mg_metrics_tool_time(const char *tool, double seconds)
{
    pthread_mutex_lock(&tools_mu);
    hist_add(&tools[tool_slot(tool)].time, seconds);
    pthread_mutex_unlock(&tools_mu);
}

void mg_metrics_tool(const char *tool, int ok)
{
    pthread_mutex_lock(&tools_mu);
    size_t i = tool_slot(tool);
    if (ok) tools[i].ok++;
    else tools[i].error++;
    pthread_mutex_unlock(&tools_mu);
}

void mg_metrics_session_created(void) { __atomic_add_fetch(&sessions_created, 1, __ATOMIC_RELAXED); }
void mg_metrics_sessions_pruned(size_t n) { __atomic_add_fetch(&sessions_pruned, n, __ATOMIC_RELAXED); }

void mg_metrics_storage_error(const char *code)
{
    size_t k = NSTORAGE - 1;
    for (size_t i = 0; i < NSTORAGE; i++)
        if (code && strcmp(storage_codes[i], code) == 0) k = i;
    __atomic_add_fetch(&storage_errors[k], 1, __ATOMIC_RELAXED);
}

uint64_t mg_metrics_storage_errors(const char *code)
{
    uint64_t v = 0;
    for (size_t i = 0; i < NSTORAGE; i++)
        if (!code || strcmp(storage_codes[i], code) == 0) v += __atomic_load_n(&storage_errors[i], __ATOMIC_RELAXED);
    return v;
}

void mg_metrics_isolation_drop(const char *kind, size_t n)
{
    size_t k = NDROPS - 1;
    for (size_t i = 0; i < NDROPS; i++)
        if (kind && strcmp(drop_kinds[i], kind) == 0) k = i;
    __atomic_add_fetch(&drops[k], n, __ATOMIC_RELAXED);
}

void mg_metrics_scheduled_index(const char *result)
{
    for (size_t i = 0; i < NSCHED; i++)
        if (strcmp(sched_results[i], result) == 0) __atomic_add_fetch(&sched_runs[i], 1, __ATOMIC_RELAXED);
}

void mg_metrics_served(long long redactions, int injection)
{
    if (redactions > 0) __atomic_add_fetch(&redactions_served, (uint64_t)redactions, __ATOMIC_RELAXED);
    if (injection) __atomic_add_fetch(&injection_flags, 1, __ATOMIC_RELAXED);
}

/* slot name s (sanitised, cut) stands for provider p */
static bool name_is(const char *s, const char *p)
{
    size_t j = 0;
    for (; p[j] && j < 47; j++)
        if (s[j] != ((isalnum((unsigned char)p[j]) || strchr("_.:-", p[j])) ? p[j] : '_')) return false;
    return s[j] == 0;
}

void mg_metrics_provider_error(const char *provider)
{
    size_t k = NPROVIDERS;
    pthread_mutex_lock(&providers_mu);
    for (size_t i = 0; i < NPROVIDERS && provider && *provider; i++) {
        if (!providers[i].name[0]) {
            /* a label value: anything but [A-Za-z0-9_.:-] becomes '_' */
            size_t j = 0;
            for (; provider[j] && j < sizeof(providers[i].name) - 1; j++) {
                char c = provider[j];
                providers[i].name[j] = (isalnum((unsigned char)c) || strchr("_.:-", c)) ? c : '_';
            }
            providers[i].name[j] = 0;
            k = i;
            break;
        }
        if (name_is(providers[i].name, provider)) {
            k = i;
            break;
        }
    }
    if (k == NPROVIDERS) snprintf(providers[k].name, sizeof(providers[k].name), "other");
    providers[k].errors++;
    pthread_mutex_unlock(&providers_mu);
}

uint64_t mg_metrics_provider_errors(const char *provider)
{
    uint64_t v = 0;
    pthread_mutex_lock(&providers_mu);
    for (size_t i = 0; i <= NPROVIDERS; i++)
        if (providers[i].name[0] && (!provider || name_is(providers[i].name, provider))) v += providers[i].errors;
    pthread_mutex_unlock(&providers_mu);
    return v;
}

void mg_metrics_totals(struct mg_metric_totals *t)
{
    t->isolation_drops = mg_metrics_isolation_drops();
    t->redactions = __atomic_load_n(&redactions_served, __ATOMIC_RELAXED);
    t->injection_flags = __atomic_load_n(&injection_flags, __ATOMIC_RELAXED);
    t->sessions_created = __atomic_load_n(&sessions_created, __ATOMIC_RELAXED);
    t->sessions_pruned = __atomic_load_n(&sessions_pruned, __ATOMIC_RELAXED);
}

uint64_t mg_metrics_isolation_drops(void)
{
    uint64_t t = 0;
    for (size_t i = 0; i < NDROPS; i++) t += __atomic_load_n(&drops[i], __ATOMIC_RELAXED);
    return t;
}

/* ---- 3. rendering -------------------------------------------------------- */

/* A counter family with one label: its HELP and TYPE lines, then
 * name{label="values[i]"} counts[i] for each i. */
static int counters(struct mg_buf *o, const char *name, const char *help, const char *label,
                    const char *const *values, const uint64_t *counts, size_t n)
{
    int rc = mg_buf_addf(o, "# HELP %s %s\n# TYPE %s counter\n", name, help, name);
    for (size_t i = 0; i < n; i++)
        rc |= mg_buf_addf(o, "%s{%s=\"%s\"} %llu\n", name, label, values[i],
                          (unsigned long long)__atomic_load_n(&counts[i], __ATOMIC_RELAXED));
    return rc;
}

int mg_metrics_render(struct mg_buf *o, const struct mg_gauges *g)
{
    int rc = 0;
    rc |= mg_buf_adds(o, "# HELP memgate_http_requests_total HTTP requests by route and status.\n"
                         "# TYPE memgate_http_requests_total counter\n");
    for (size_t r = 0; r < NROUTES; r++)
        for (size_t c = 0; c <= NSTATUS; c++) {
            uint64_t v = __atomic_load_n(&http_count[r][c], __ATOMIC_RELAXED);
            if (!v) continue;
            if (c < NSTATUS)
                rc |= mg_buf_addf(o, "memgate_http_requests_total{route=\"%s\",status=\"%d\"} %llu\n", routes[r],
                                  statuses[c], (unsigned long long)v);
            else
                rc |= mg_buf_addf(o, "memgate_http_requests_total{route=\"%s\",status=\"other\"} %llu\n",
                                  routes[r], (unsigned long long)v);
        }
    rc |= mg_buf_adds(o, "# HELP memgate_tool_calls_total Tool calls (MCP and /v1) by tool and result.\n"
                         "# TYPE memgate_tool_calls_total counter\n");
    pthread_mutex_lock(&tools_mu);
    for (size_t i = 0; i <= NTOOLS; i++) {
        const char *name = i == NTOOLS ? "other" : tools[i].name;
        if (!*name) continue;
        if (tools[i].ok)
            rc |= mg_buf_addf(o, "memgate_tool_calls_total{tool=\"%s\",result=\"ok\"} %llu\n", name,
                              (unsigned long long)tools[i].ok);
        if (tools[i].error)
            rc |= mg_buf_addf(o, "memgate_tool_calls_total{tool=\"%s\",result=\"error\"} %llu\n", name,
                              (unsigned long long)tools[i].error);
    }
    rc |= mg_buf_adds(o, "# HELP memgate_tool_duration_seconds Time a tool call took (MCP over HTTP and stdio, "
                         "/v1), by tool.\n# TYPE memgate_tool_duration_seconds histogram\n");
    for (size_t i = 0; i <= NTOOLS; i++) {
        const char *name = i == NTOOLS ? "other" : tools[i].name;
        if (*name) rc |= hist_render(o, "memgate_tool_duration_seconds", "tool", name, &tools[i].time);
    }
    pthread_mutex_unlock(&tools_mu);
    rc |= mg_buf_adds(o, "# HELP memgate_http_request_duration_seconds Time from an HTTP request's first line to "
                         "its response's last byte, by route (GET /mcp streams left out).\n"
                         "# TYPE memgate_http_request_duration_seconds histogram\n");
    for (size_t r = 0; r < NROUTES; r++)
        rc |= hist_render(o, "memgate_http_request_duration_seconds", "route", routes[r], &http_time[r]);
    if (g) {
        rc |= mg_buf_addf(o,
                          "# HELP memgate_sessions_active Sessions alive now (MCP and HTTP API).\n"
                          "# TYPE memgate_sessions_active gauge\nmemgate_sessions_active %zu\n"
                          "# HELP memgate_instances_active Distinct client instances among live sessions.\n"
                          "# TYPE memgate_instances_active gauge\nmemgate_instances_active %zu\n",
                          g->sessions, g->instances);
        if (g->storage)
            rc |= mg_buf_addf(o,
                              "# HELP memgate_storage_up Whether the shared PostgreSQL database answered its last "
                              "ping (at most 1 s old).\n"
                              "# TYPE memgate_storage_up gauge\nmemgate_storage_up %d\n"
                              "# HELP memgate_storage_connections This daemon's PostgreSQL connections: open, in "
                              "use (busy), and the most it may open (max, storage_pool_max).\n"
                              "# TYPE memgate_storage_connections gauge\n"
                              "memgate_storage_connections{state=\"open\"} %d\n"
                              "memgate_storage_connections{state=\"busy\"} %d\n"
                              "memgate_storage_connections{state=\"max\"} %d\n",
                              g->storage_up ? 1 : 0, g->storage_open, g->storage_busy, g->storage_max);
        if (g->reads)
            rc |= mg_buf_addf(o,
                              "# HELP memgate_read_queue Index reads (searches, reads, navigation) running now, "
                              "waiting their turn, and the most that run at once (limit, search_concurrency).\n"
                              "# TYPE memgate_read_queue gauge\n"
                              "memgate_read_queue{state=\"running\"} %u\n"
                              "memgate_read_queue{state=\"waiting\"} %u\n"
                              "memgate_read_queue{state=\"limit\"} %u\n"
                              "# HELP memgate_read_queue_waits_total Requests that waited for their turn to read, "
                              "by outcome (gave_up: their deadline passed or the daemon stopped first).\n"
                              "# TYPE memgate_read_queue_waits_total counter\n"
                              "memgate_read_queue_waits_total{outcome=\"ran\"} %llu\n"
                              "memgate_read_queue_waits_total{outcome=\"gave_up\"} %llu\n"
                              "# HELP memgate_read_queue_outlived_total Reads that ran past %u ms and let the "
                              "next one start beside them.\n"
                              "# TYPE memgate_read_queue_outlived_total counter\n"
                              "memgate_read_queue_outlived_total %llu\n",
                              g->reads->running, g->reads->waiting, g->reads->limit,
                              (unsigned long long)(g->reads->queued - g->reads->gave_up - g->reads->waiting),
                              (unsigned long long)g->reads->gave_up, g->reads->long_ms,
                              (unsigned long long)g->reads->outlived);
    }
    if (g && g->storage) {
        rc |= counters(o, "memgate_storage_errors_total",
                       "Failed operations on the shared PostgreSQL database, by error code.", "code", storage_codes,
                       storage_errors, NSTORAGE);
    }
    rc |= mg_buf_addf(o,
                      "# HELP memgate_sessions_created_total Sessions created.\n"
                      "# TYPE memgate_sessions_created_total counter\nmemgate_sessions_created_total %llu\n"
                      "# HELP memgate_sessions_pruned_total Sessions expired after idling past session_ttl.\n"
                      "# TYPE memgate_sessions_pruned_total counter\nmemgate_sessions_pruned_total %llu\n",
                      (unsigned long long)__atomic_load_n(&sessions_created, __ATOMIC_RELAXED),
                      (unsigned long long)__atomic_load_n(&sessions_pruned, __ATOMIC_RELAXED));
    rc |= counters(o, "memgate_isolation_drops_total",
                   "Results dropped because they belonged to another repo, project or tenant than the request (a "
                   "bug elsewhere; should stay 0).", "kind", drop_kinds, drops, NDROPS);
    rc |= mg_buf_addf(o,
                      "# HELP memgate_redactions_total Secrets redacted from what requests served or stored.\n"
                      "# TYPE memgate_redactions_total counter\nmemgate_redactions_total %llu\n"
                      "# HELP memgate_injection_flags_total Requests whose answer the gate flagged as "
                      "prompt_injection.\n"
                      "# TYPE memgate_injection_flags_total counter\nmemgate_injection_flags_total %llu\n",
                      (unsigned long long)__atomic_load_n(&redactions_served, __ATOMIC_RELAXED),
                      (unsigned long long)__atomic_load_n(&injection_flags, __ATOMIC_RELAXED));
    rc |= counters(o, "memgate_scheduled_index_runs_total",
                   "Re-indexes run by the scheduler of `memgate serve` (setting reindex_interval), by result; "
                   "skipped: another run held the repo.", "result", sched_results, sched_runs, NSCHED);
    rc |= mg_buf_adds(o, "# HELP memgate_provider_errors_total Calls to an external provider (docs/providers.md) "
                         "that failed, timed out or answered badly; the request degraded to the rest.\n"
                         "# TYPE memgate_provider_errors_total counter\n");
    pthread_mutex_lock(&providers_mu);
    for (size_t i = 0; i <= NPROVIDERS; i++)
        if (providers[i].name[0])
            rc |= mg_buf_addf(o, "memgate_provider_errors_total{provider=\"%s\"} %llu\n", providers[i].name,
                              (unsigned long long)providers[i].errors);
    pthread_mutex_unlock(&providers_mu);
    rc |= mg_metrics_render_process(o);
    return rc ? -1 : 0;
}

/* ---- 4. the process ------------------------------------------------------ */

/* The seconds since the epoch at which the system booted (/proc/stat btime), or 0. */
static double boot_time(void)
{
    FILE *f = fopen("/proc/stat", "re");
    if (!f) return 0;
    char line[256];
    unsigned long long bt = 0;
    while (fgets(line, sizeof(line), f))
        if (sscanf(line, "btime %llu", &bt) == 1) break;
    fclose(f);
    return (double)bt;
}

int mg_metrics_render_process(struct mg_buf *o)
{
    int rc = 0;
    rc |= mg_buf_addf(o, "# HELP memgate_build_info The version and commit this binary was built from.\n"
                         "# TYPE memgate_build_info gauge\nmemgate_build_info{version=\"%s\",commit=\"%s\"} 1\n",
                      MG_VERSION, MG_GIT_COMMIT);
    /* /proc/self/stat: the fields after the command name (which may hold spaces and parentheses) */
    char st[1024] = "";
    FILE *f = fopen("/proc/self/stat", "re");
    if (f) {
        size_t n = fread(st, 1, sizeof(st) - 1, f);
        st[n] = 0;
        fclose(f);
    }
    const char *p = strrchr(st, ')');
    unsigned long long utime = 0, stime = 0, start = 0, vsize = 0;
    long long threads = 0, rss = 0;
    /* state(3) ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime(14) stime
     * cutime cstime priority nice num_threads(20) itrealvalue starttime(22) vsize rss(24) */
    bool ok = p && sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d %*d %*d %*d %lld "
                                 "%*d %llu %llu %lld", &utime, &stime, &threads, &start, &vsize, &rss) == 6;
    if (ok) {
        double tick = (double)sysconf(_SC_CLK_TCK);
        long page = sysconf(_SC_PAGESIZE);
        rc |= mg_buf_addf(o,
                          "# HELP process_cpu_seconds_total User and system CPU time spent, in seconds.\n"
                          "# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total %.2f\n"
                          "# HELP process_start_time_seconds Start time of the process since the epoch, in "
                          "seconds.\n# TYPE process_start_time_seconds gauge\nprocess_start_time_seconds %.2f\n"
                          "# HELP process_virtual_memory_bytes Virtual memory size in bytes.\n"
                          "# TYPE process_virtual_memory_bytes gauge\nprocess_virtual_memory_bytes %llu\n"
                          "# HELP process_resident_memory_bytes Resident memory size in bytes.\n"
                          "# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes %lld\n"
                          "# HELP process_threads Threads of the process.\n"
                          "# TYPE process_threads gauge\nprocess_threads %lld\n",
                          (double)(utime + stime) / tick, boot_time() + (double)start / tick, vsize,
                          rss * (long long)page, threads);
    }
    long fds = 0;
    DIR *d = opendir("/proc/self/fd");
    if (d) {
        for (struct dirent *e; (e = readdir(d));)
            if (e->d_name[0] != '.') fds++;
        closedir(d);
        fds--; /* the directory's own descriptor */
        rc |= mg_buf_addf(o, "# HELP process_open_fds Open file descriptors.\n# TYPE process_open_fds gauge\n"
                             "process_open_fds %ld\n", fds);
    }
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
        rc |= mg_buf_addf(o, "# HELP process_max_fds The most file descriptors the process may open.\n"
                             "# TYPE process_max_fds gauge\nprocess_max_fds %llu\n",
                          (unsigned long long)rl.rlim_cur);
    return rc;
}
