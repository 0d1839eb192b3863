/* ratelimit.h — per-token rate limits: the HTTP transport takes one request
 * from a token's bucket before it serves it (token.h gives each token its
 * rate; ratelimit.c).
 *
 * A token bucket per key (a token id): it holds up to burst = max(rate/6, 10)
 * requests and refills at rate_per_min / 60 per second; a key seen for the
 * first time starts full. rate_per_min <= 0 means unlimited. Memory is
 * bounded: at most max_keys buckets; when full, buckets that have refilled
 * completely (indistinguishable from new ones) are dropped, then the longest
 * idle one. Thread-safe.
 *
 * With storage = postgres://... (mg_ratelimit_open) the buckets are the rows
 * of rate_buckets, shared by every daemon: one atomic statement per request
 * refills (by the database's clock) and takes; buckets full again are
 * deleted once a minute per process. The database failing refuses the
 * request (mg_rate_check -1: storage_unavailable), never lets it through
 * unlimited. */
#ifndef MG_RATELIMIT_H
#define MG_RATELIMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/config.h"
#include "util/err.h"

struct mg_ratelimit;
typedef int64_t (*mg_clock_ms_fn)(void *arg);
/* clock NULL: CLOCK_MONOTONIC. max_keys 0: 65536. NULL when out of memory. */
struct mg_ratelimit *mg_ratelimit_new(mg_clock_ms_fn clock, void *clock_arg, size_t max_keys);
void mg_ratelimit_free(struct mg_ratelimit *rl);
/* The server's limiter: shared buckets in PostgreSQL when c's storage is a
 * postgres:// URL, else this process's (mg_ratelimit_new's defaults). */
int mg_ratelimit_open(const struct mg_config *c, struct mg_ratelimit **out, struct mg_err *err);
/* 1: allowed (one request taken). 0: refused, *retry_after_s (may be NULL)
 * is the whole seconds until one request is available (>= 1). -1: the
 * shared store failed (err: storage_unavailable, ...): refuse the request. */
int mg_rate_check(struct mg_ratelimit *rl, const char *key, int rate_per_min, int *retry_after_s,
                  struct mg_err *err);
/* mg_rate_check as a yes/no: an error is a refusal (retry after 1 s). */
bool mg_rate_take(struct mg_ratelimit *rl, const char *key, int rate_per_min, int *retry_after_s);
size_t mg_ratelimit_size(struct mg_ratelimit *rl); /* buckets held in memory (tests) */
/* PostgreSQL: delete the buckets that are full again now (mg_rate_check
 * does it once a minute); *removed (may be NULL) gets how many. */
int mg_ratelimit_sweep(struct mg_ratelimit *rl, int64_t *removed, struct mg_err *err);

#endif
