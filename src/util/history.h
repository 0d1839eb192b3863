/* history.h — the recent past of a few counters and gauges, kept in memory
 * for the dashboard's charts (http/history.c samples them, /v1/dashboard/history
 * serves them).
 *
 * Two kinds of series, each owned by a tenant so a reader sees its own:
 *   - counters (calls, errors, seconds spent), added to from any thread by
 *     mg_history_count (tools/registry.c: one per tool call);
 *   - gauges (three numbers, e.g. files, chunks, bytes), given whole at each
 *     sample by the sampler.
 * mg_history_sample takes a snapshot of both into a ring of MG_HISTORY_SAMPLES
 * (the oldest is dropped); mg_history_json reads the ring back, keeping the
 * series a filter lets through. Everything is bounded: at most
 * MG_HISTORY_COUNTERS counter series and MG_HISTORY_GAUGES gauge series live
 * in a process (later ones are not charted: mg_history_json says how many
 * are counted in "left_out"), names cut at 64 bytes.
 */
#ifndef MG_HISTORY_H
#define MG_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#define MG_HISTORY_SAMPLES 360   /* an hour at the default 10 s */
#define MG_HISTORY_COUNTERS 256  /* (tenant, name) counter series */
#define MG_HISTORY_GAUGES 512    /* (tenant, name) gauge series */
#define MG_HISTORY_NAME_MAX 64

/* One call of name by tenant: ok or not, and how long it took. */
void mg_history_count(const char *tenant, const char *name, bool ok, double seconds);

/* A gauge series' values at a sample. */
struct mg_history_gauge {
    const char *tenant, *name;
    int64_t v[3];
};

/* A sample at t_ms (wall clock): the counters as they are now, and the
 * gauges given (n of them). 0, or -1 out of memory (the sample is skipped). */
int mg_history_sample(int64_t t_ms, const struct mg_history_gauge *g, size_t n);

/* Which series a reader sees: counters of `tenant` (NULL: every tenant's,
 * summed by name), gauges for which keep(tenant, name, ud) says true. */
struct mg_history_filter {
    const char *tenant;
    bool (*keep)(const char *tenant, const char *name, void *ud);
    void *ud;
};

/* {"samples":[{"t":ms, "counters":{name:[calls, errors, seconds]}, "gauges":{name:[a,b,c]}}],
 *  "capacity":N, "left_out":N}, oldest sample first ("left_out": calls and gauge values past
 * the caps, not kept); NULL out of memory. */
json_t *mg_history_json(const struct mg_history_filter *f);

/* Forget everything (tests). */
void mg_history_reset(void);

#endif
