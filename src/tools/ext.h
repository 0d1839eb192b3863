/* ext.h — external code providers in search_code and get_context (tools/
 * only; docs/providers.md, "External MCP servers as code providers").
 *
 * Once the request is resolved, mg_ext_start runs, on a thread each, the
 * search of every external provider configured for one of the resolved
 * repos, each as its own operation through the gate (request/ops.h: part
 * "mcp.<name>" of the audit record), while the caller runs memgate's own
 * search. mg_ext_join waits for them (each is bounded by its timeout and
 * the request's deadline). A provider that fails leaves its list empty,
 * counts in memgate_provider_errors_total{provider}, writes a log line, and
 * says so in the answer's "providers": the request goes on.
 *
 * mg_ext_fuse fuses the lists into memgate's own by reciprocal rank fusion
 * (k = hybrid_rrf_k, every list weight 1; util/rrf.h, as hybrid search): a
 * provider's hit on the lines of one of memgate's hits adds to that hit's
 * rank, any other is a hit of its own, labelled with its provider's name.
 */
#ifndef MG_TOOLS_EXT_H
#define MG_TOOLS_EXT_H

#include <jansson.h>
#include <pthread.h>

#include "request/ctx.h"
#include "request/ops.h"

struct mg_ext_one {
    struct mg_ctx *x;
    struct mg_op op;
    struct mg_ext_search_args args;
    struct mg_code_query q;
    struct mg_target t;
    struct mg_items items;
    struct mg_err err;
    int rc;
    double took_ms;
    size_t got;            /* hits it served (before the fusion took them) */
    pthread_t th;
    bool started;
};

struct mg_ext_run {
    struct mg_ext_one one[MG_MCP_PROVIDERS_MAX];
    int n;
};

/* Start the providers that serve one of x's resolved repos (x resolved). */
void mg_ext_start(struct mg_ctx *x, const struct mg_code_query *q, struct mg_ext_run *r);
/* Wait for every provider started; count and log the failures. */
void mg_ext_join(struct mg_ext_run *r);
/* Fuse the providers' hits into own (cut to limit); their gate counts join own's. */
void mg_ext_fuse(struct mg_ext_run *r, struct mg_items *own, size_t limit);
/* [{"name", "status": ok | timeout | unavailable | bad_response | too_large | error, "results" (served),
 *   "answered" (hits its answers held, past max_items too), "dropped", "took_ms", "message"?}] (NULL when
 *   no provider ran). */
json_t *mg_ext_status(struct mg_ext_run *r);
void mg_ext_release(struct mg_ext_run *r);

#endif
