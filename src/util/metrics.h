/* metrics.h — process-wide counters, rendered in Prometheus text format.
 *
 * Counters are atomics, safe from any thread. /metrics (http.c) renders:
 *   memgate_http_requests_total{route,status}
 *   memgate_tool_calls_total{tool,result}          result: ok | error
 *   memgate_sessions_active, memgate_instances_active (gauges, from the registry)
 *   memgate_sessions_created_total, memgate_sessions_pruned_total
 *   memgate_isolation_drops_total{kind}            kind: code, note, episode, entity, ...
 *   memgate_scheduled_index_runs_total{result}     result: ok | error | skipped
 *   memgate_redactions_total, memgate_injection_flags_total (what the gate's answers redacted and flagged)
 *   memgate_provider_errors_total{provider}       an external provider's failed calls (docs/providers.md)
 *   memgate_storage_up, memgate_storage_connections{state} (gauges: storage = postgres://... only)
 *   memgate_storage_errors_total{code}            failed PostgreSQL operations (store/sql.c, store/pg.c)
 *   memgate_http_request_duration_seconds{route}   histogram (GET /mcp streams left out)
 *   memgate_tool_duration_seconds{tool}            histogram
 *   memgate_build_info{version,commit}, process_* (from /proc/self)
 * (gauges are read by the caller, which owns the registries: struct mg_gauges;
 * the per-repo gauges memgate_repo_* are http/repometrics.c's)
 * A drop is a bug elsewhere: tests assert it stays 0.
 */
#ifndef MG_METRICS_H
#define MG_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "util/admit.h"
#include "util/buf.h"

/* Gauges the caller reads from its own registries (the session registry). */
struct mg_gauges {
    size_t sessions;  /* sessions alive now */
    size_t instances; /* distinct client instances among them */
    /* the shared database (storage = postgres://...; request/storage.h): rendered when storage is set */
    int storage;      /* 1: PostgreSQL */
    int storage_up;   /* its last ping answered */
    int storage_open, storage_busy, storage_max; /* the pool's connections */
    const struct mg_admit_stats *reads; /* the read queue (search_concurrency); NULL: none */
};

/* Route labels are a fixed set so a hostile client cannot grow the table:
 * an unknown path counts as "other". */
void mg_metrics_http(const char *route, int status);
void mg_metrics_tool(const char *tool, int ok);
/* Latency histograms: an HTTP request by its route label, a tool call by its tool. */
void mg_metrics_http_time(const char *route, double seconds);
void mg_metrics_tool_time(const char *tool, double seconds);
void mg_metrics_session_created(void);
void mg_metrics_sessions_pruned(size_t n);
void mg_metrics_isolation_drop(const char *kind, size_t n);
uint64_t mg_metrics_isolation_drops(void); /* all kinds */
/* A scheduled re-index (request/scheduler.h): "ok", "error" or "skipped" (another run held the repo). */
void mg_metrics_scheduled_index(const char *result);

/* What one finished request redacted (secrets) and whether the gate flagged
 * prompt injection in what it served (request/gate_audit.c, mg_gate_finish). */
void mg_metrics_served(long long redactions, int injection);

/* An external provider's call failed (timed out, died, answered badly);
 * provider: its configured name (other characters than [A-Za-z0-9_.:-]
 * become '_' in the label; 32 names, then "other"). mg_metrics_provider_errors:
 * the count of one name, or of all (NULL). */
void mg_metrics_provider_error(const char *provider);
uint64_t mg_metrics_provider_errors(const char *provider);

/* A PostgreSQL operation failed with code (storage_unavailable,
 * storage_conflict, storage_retry, schema_too_new, db_error; anything else
 * counts as db_error). */
void mg_metrics_storage_error(const char *code);
uint64_t mg_metrics_storage_errors(const char *code); /* NULL: all codes */

/* The process-wide totals the dashboard shows (http/dash.c). */
struct mg_metric_totals {
    uint64_t isolation_drops, redactions, injection_flags, sessions_created, sessions_pruned;
};
void mg_metrics_totals(struct mg_metric_totals *t);

/* Append the exposition text; g may be NULL (no gauges). 0, or -1 out of memory. */
int mg_metrics_render(struct mg_buf *out, const struct mg_gauges *g);
/* Only the process gauges (included by mg_metrics_render). 0, or nonzero out of memory. */
int mg_metrics_render_process(struct mg_buf *out);

#endif
