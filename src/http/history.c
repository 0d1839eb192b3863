/* history.c — the dashboard's charts' data (docs/http.md "Dashboard"): a
 * thread of the daemon samples, every MG_HISTORY_INTERVAL_MS (a test may
 * shorten it: MEMGATE_TEST_HISTORY_MS), the tool calls counted by tenant
 * (util/history.h: calls, errors, seconds) and each repo's index size
 * (files, chunks, bytes, as the catalog holds them after each run) into the
 * in-memory ring; GET /v1/dashboard/history serves the ring back.
 *
 * Tenant-scoped like /v1/dashboard: a token's admin gets its own tenant's
 * tool calls and the repos its token sees; the local principal (loopback
 * without tokens) every tenant's calls and the repos it sees. Not audited,
 * as a /metrics scrape is not.
 */
#include "http/internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "security/common.h"
#include "util/history.h"
#include "util/json.h"

#define MG_HISTORY_INTERVAL_MS 10000

static void sample_now(struct mg_http *h)
{
    struct mg_repo *v = NULL;
    size_t n = 0;
    struct mg_err err = {0};
    if (mg_catalog_list(&h->srv->cfg, &v, &n, &err) != 0) n = 0; /* (the calls are still sampled) */
    struct mg_history_gauge *g = n ? calloc(n, sizeof(*g)) : NULL;
    if (!g) n = 0;
    for (size_t i = 0; i < n; i++)
        g[i] = (struct mg_history_gauge){.tenant = v[i].tenant, .name = v[i].id,
                                         .v = {v[i].files, v[i].chunks, v[i].bytes}};
    mg_history_sample(mg_wall_ms(), g, n);
    free(g);
    free(v);
}

static void *sampler(void *arg)
{
    struct mg_http *h = arg;
    pthread_mutex_lock(&h->mu);
    while (!h->hist_quit) {
        pthread_mutex_unlock(&h->mu);
        sample_now(h);
        pthread_mutex_lock(&h->mu);
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_sec += h->hist_interval_ms / 1000;
        until.tv_nsec += (long)(h->hist_interval_ms % 1000) * 1000000L;
        if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
        while (!h->hist_quit && pthread_cond_timedwait(&h->hist_cv, &h->mu, &until) != ETIMEDOUT) {
        }
    }
    pthread_mutex_unlock(&h->mu);
    return NULL;
}

int mg__history_start(struct mg_http *h, struct mg_err *err)
{
    const char *t = getenv("MEMGATE_TEST_HISTORY_MS");
    h->hist_interval_ms = t && atoi(t) >= 50 ? atoi(t) : MG_HISTORY_INTERVAL_MS;
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(&h->hist_cv, &a);
    pthread_condattr_destroy(&a);
    h->hist_quit = false;
    int e = pthread_create(&h->hist_thread, NULL, sampler, h);
    if (e != 0) {
        pthread_cond_destroy(&h->hist_cv);
        return mg_err_set(err, MG_E_INTERNAL, "cannot start the dashboard's sampler thread: %s", strerror(e));
    }
    h->hist_started = true;
    return 0;
}

void mg__history_stop(struct mg_http *h)
{
    if (!h->hist_started) return;
    pthread_mutex_lock(&h->mu);
    h->hist_quit = true;
    pthread_cond_broadcast(&h->hist_cv);
    pthread_mutex_unlock(&h->mu);
    pthread_join(h->hist_thread, NULL);
    pthread_cond_destroy(&h->hist_cv);
    h->hist_started = false;
}

struct seen {
    const struct mg_principal *who;
    struct mg_repo *r; /* a scratch repo: its tenant and id */
};

static bool visible(const char *tenant, const char *id, void *ud)
{
    struct seen *s = ud;
    snprintf(s->r->tenant, sizeof(s->r->tenant), "%s", tenant);
    snprintf(s->r->id, sizeof(s->r->id), "%s", id);
    return mg_access_visible(s->who, s->r);
}

enum MHD_Result mg__history_data(struct mg_http *h, struct MHD_Connection *c, struct req *r, const char *method)
{
    enum MHD_Result rc;
    if (mg__dash_admin_get(c, r, method, "/v1/dashboard/history", &rc) != 0) return rc;
    struct mg_repo *scratch = calloc(1, sizeof(*scratch));
    struct seen s = {.who = &r->who, .r = scratch};
    struct mg_history_filter f = {.tenant = r->who.token_id[0] ? r->who.tenant : NULL, .keep = visible, .ud = &s};
    json_t *o = scratch ? mg_history_json(&f) : NULL;
    free(scratch);
    if (!o || json_object_set_new(o, "interval_ms", json_integer(h->hist_interval_ms)) != 0 ||
        json_object_set_new(o, "now_ms", json_integer(mg_wall_ms())) != 0) {
        json_decref(o);
        return mg__respond_error(c, r, 500, MG_E_NO_MEMORY, "out of memory reading the dashboard's history");
    }
    return mg__respond_json_h(c, r, 200, o, "X-Content-Type-Options", "nosniff", NULL, NULL);
}
