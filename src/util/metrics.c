/* metrics.c — see metrics.h. */
#include "util/metrics.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>


/* Label sets are fixed and small: a hostile client cannot grow them. */
static const char *const routes[] = {"/mcp",         "/v1/repos",    "/v1/search",   "/v1/symbols",  "/v1/files",
                                     "/v1/file",     "/v1/outline",  "/v1/scope",    "/v1/index",    "/v1/audit",
                                     "/v1/notes",    "/v1/projects", "/v1/episodes", "/v1/entities", "/v1/profiles",
                                     "/v1/context",  "/v1/dashboard", "/healthz",    "/readyz",      "/metrics",
                                     "/",            "other"};
#define NROUTES (sizeof(routes) / sizeof(routes[0]))
static const int statuses[] = {200, 201, 202, 204, 400, 401, 403, 404, 405, 406, 409, 413, 415, 429, 431, 500,
                                503};
#define NSTATUS (sizeof(statuses) / sizeof(statuses[0]))
static uint64_t http_count[NROUTES][NSTATUS + 1]; /* last column: any other status */

#define NTOOLS 64
static struct {
    char name[48];
    uint64_t ok, error;
} tools[NTOOLS + 1]; /* the last slot: "other" */
static pthread_mutex_t tools_mu = PTHREAD_MUTEX_INITIALIZER;

static const char *const drop_kinds[] = {"code",    "note",    "episode", "entity",
                                         "session", "project", "profile", "other"};
#define NDROPS (sizeof(drop_kinds) / sizeof(drop_kinds[0]))
static uint64_t drops[NDROPS];
static uint64_t sessions_created, sessions_pruned;
static const char *const sched_results[] = {"ok", "error", "skipped"};
#define NSCHED (sizeof(sched_results) / sizeof(sched_results[0]))
static uint64_t sched_runs[NSCHED];
static uint64_t redactions_served, injection_flags;

void mg_metrics_http(const char *route, int status)
{
    size_t r = NROUTES - 1, c = NSTATUS;
    for (size_t i = 0; i < NROUTES; i++)
        if (route && strcmp(routes[i], route) == 0) r = i;
    for (size_t i = 0; i < NSTATUS; i++)
        if (statuses[i] == status) c = i;
    __atomic_add_fetch(&http_count[r][c], 1, __ATOMIC_RELAXED);
}

void mg_metrics_tool(const char *tool, int ok)
{
    pthread_mutex_lock(&tools_mu);
    size_t i = 0;
    for (; i < NTOOLS && tools[i].name[0]; i++)
        if (strcmp(tools[i].name, tool) == 0) break;
    if (i < NTOOLS && !tools[i].name[0]) snprintf(tools[i].name, sizeof(tools[i].name), "%s", tool);
    if (ok) tools[i].ok++;
    else tools[i].error++;
    pthread_mutex_unlock(&tools_mu);
}

void mg_metrics_session_created(void) { __atomic_add_fetch(&sessions_created, 1, __ATOMIC_RELAXED); }
void mg_metrics_sessions_pruned(size_t n) { __atomic_add_fetch(&sessions_pruned, n, __ATOMIC_RELAXED); }

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
    pthread_mutex_unlock(&tools_mu);
    if (g) {
        rc |= mg_buf_addf(o,
                          "# HELP memgate_sessions_active Sessions alive now (MCP and HTTP API).\n"
                          "# TYPE memgate_sessions_active gauge\nmemgate_sessions_active %zu\n"
                          "# HELP memgate_instances_active Distinct client instances among live sessions.\n"
                          "# TYPE memgate_instances_active gauge\nmemgate_instances_active %zu\n",
                          g->sessions, g->instances);
    }
    rc |= mg_buf_addf(o,
                      "# HELP memgate_sessions_created_total Sessions created.\n"
                      "# TYPE memgate_sessions_created_total counter\nmemgate_sessions_created_total %llu\n"
                      "# HELP memgate_sessions_pruned_total Sessions expired after idling past session_ttl.\n"
                      "# TYPE memgate_sessions_pruned_total counter\nmemgate_sessions_pruned_total %llu\n",
                      (unsigned long long)__atomic_load_n(&sessions_created, __ATOMIC_RELAXED),
                      (unsigned long long)__atomic_load_n(&sessions_pruned, __ATOMIC_RELAXED));
    rc |= mg_buf_adds(o, "# HELP memgate_isolation_drops_total Results dropped because they belonged to another "
                         "repo, project or tenant than the request (a bug elsewhere; should stay 0).\n"
                         "# TYPE memgate_isolation_drops_total counter\n");
    for (size_t i = 0; i < NDROPS; i++) {
        uint64_t v = __atomic_load_n(&drops[i], __ATOMIC_RELAXED);
        rc |= mg_buf_addf(o, "memgate_isolation_drops_total{kind=\"%s\"} %llu\n", drop_kinds[i],
                          (unsigned long long)v);
    }
    rc |= mg_buf_addf(o,
                      "# HELP memgate_redactions_total Secrets redacted from what requests served or stored.\n"
                      "# TYPE memgate_redactions_total counter\nmemgate_redactions_total %llu\n"
                      "# HELP memgate_injection_flags_total Requests whose answer the gate flagged as "
                      "prompt_injection.\n"
                      "# TYPE memgate_injection_flags_total counter\nmemgate_injection_flags_total %llu\n",
                      (unsigned long long)__atomic_load_n(&redactions_served, __ATOMIC_RELAXED),
                      (unsigned long long)__atomic_load_n(&injection_flags, __ATOMIC_RELAXED));
    rc |= mg_buf_adds(o, "# HELP memgate_scheduled_index_runs_total Re-indexes run by the scheduler of `memgate "
                         "serve` (setting reindex_interval), by result; skipped: another run held the repo.\n"
                         "# TYPE memgate_scheduled_index_runs_total counter\n");
    for (size_t i = 0; i < NSCHED; i++)
        rc |= mg_buf_addf(o, "memgate_scheduled_index_runs_total{result=\"%s\"} %llu\n", sched_results[i],
                          (unsigned long long)__atomic_load_n(&sched_runs[i], __ATOMIC_RELAXED));
    return rc ? -1 : 0;
}
