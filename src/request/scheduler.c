/* scheduler.c — scheduled re-index (scheduler.h). */
#include "request/scheduler.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "request/gate.h"
#include "request/ops.h"
#include "store/repostate.h"
#include "store/settings.h"
#include "util/metrics.h"

/* When each scheduled repo runs next. */
struct plan {
    char id[MG_ID_MAX + 1];
    int64_t interval; /* the setting it was planned with, seconds */
    int64_t next_ms;  /* CLOCK_MONOTONIC */
};

struct mg_scheduler {
    struct mg_server *srv;
    struct mg_session *session; /* every run's: instance "scheduler", outside the registry */
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;          /* signalled to stop */
    bool stop;
    int64_t tick_ms;
    struct plan *plans;
    size_t nplans, cap;
    unsigned seed;
};

/* interval ± 10 %, in ms. */
static int64_t jittered_ms(struct mg_scheduler *s, int64_t interval)
{
    double f = 0.9 + 0.2 * ((double)rand_r(&s->seed) / RAND_MAX);
    return (int64_t)((double)interval * 1000 * f);
}

static struct plan *plan_of(struct mg_scheduler *s, const char *id)
{
    for (size_t i = 0; i < s->nplans; i++)
        if (strcmp(s->plans[i].id, id) == 0) return &s->plans[i];
    return NULL;
}

/* The first run of a repo newly scheduled (or whose interval changed): an
 * interval after its last index run, or now if that is past. */
static void plan_from_last_run(struct mg_scheduler *s, struct plan *p, const struct mg_repo *r, int64_t now_ms,
                               int64_t wall)
{
    int64_t wait = r->indexed_at * 1000 + jittered_ms(s, p->interval) - wall * 1000;
    p->next_ms = now_ms + (wait > 0 ? wait : 0);
}

/* Follow the catalog: plans for the repos with an interval, none for the
 * others (removed repos, interval back to 0). */
static void sync_plans(struct mg_scheduler *s, const struct mg_repo *v, size_t n, int64_t now_ms, int64_t wall)
{
    size_t k = 0;
    for (size_t i = 0; i < s->nplans; i++) {
        bool keep = false;
        for (size_t j = 0; j < n && !keep; j++) keep = !strcmp(v[j].id, s->plans[i].id) && v[j].reindex_interval > 0;
        if (keep) s->plans[k++] = s->plans[i];
    }
    s->nplans = k;
    for (size_t j = 0; j < n; j++) {
        if (v[j].reindex_interval <= 0) continue;
        struct plan *p = plan_of(s, v[j].id);
        if (p && p->interval == v[j].reindex_interval) continue;
        if (!p) {
            if (s->nplans == s->cap) {
                size_t nc = s->cap ? 2 * s->cap : 16;
                struct plan *np = realloc(s->plans, nc * sizeof(*np));
                if (!np) continue; /* out of memory: planned at a later tick */
                s->plans = np;
                s->cap = nc;
            }
            p = &s->plans[s->nplans++];
            snprintf(p->id, sizeof(p->id), "%s", v[j].id);
        }
        p->interval = v[j].reindex_interval;
        plan_from_last_run(s, p, &v[j], now_ms, wall);
    }
}

/* index_repo without a path, as the repo's tenant, through the gate (its
 * audit event included). */
static int reindex(struct mg_scheduler *s, const struct mg_repo *r, struct mg_items *items, struct mg_err *err)
{
    struct mg_principal who = {.level = MG_LEVEL_WRITE};
    snprintf(who.tenant, sizeof(who.tenant), "%s", r->tenant);
    struct mg_request_spec spec = {.srv = s->srv, .who = &who, .session = s->session, .op = "index_repo",
                                   .index_reason = "schedule"};
    struct mg_ctx x;
    mg_items_init(items);
    if (mg_request_init(&x, &spec, err) != 0) return -1;
    struct mg_index_query q = {0};
    struct mg_target t = {.repo = r->id};
    int rc = mg_gate_run(&x, &mg_op_code_reindex, &t, &q, items, err);
    mg_gate_finish(&x, rc, err);
    mg_request_release(&x);
    return rc;
}

/* Run one due repo; false when it was skipped (its lock is held: try again
 * at the next tick). */
static bool run_one(struct mg_scheduler *s, const struct mg_repo *r)
{
    if (mg_repo_busy(r->dbpath)) {
        mg_metrics_scheduled_index("skipped");
        fprintf(stderr, "memgate: scheduled re-index of %s skipped: another index run holds it; trying again in "
                        "%lld s\n", r->id, (long long)(s->tick_ms / 1000));
        return false;
    }
    struct mg_items items;
    struct mg_err err = {0};
    int rc = reindex(s, r, &items, &err);
    if (rc != 0 && err.code && strcmp(err.code, MG_E_LOCKED) == 0) { /* it started between the probe and the run */
        mg_metrics_scheduled_index("skipped");
        fprintf(stderr, "memgate: scheduled re-index of %s skipped: another index run holds it\n", r->id);
        return false;
    }
    mg_metrics_scheduled_index(rc == 0 ? "ok" : "error");
    if (rc == 0 && items.n == 1) {
        const struct mg_index_run *run = (const struct mg_index_run *)items.v[0];
        fprintf(stderr, "memgate: scheduled re-index of %s: %lld files (%lld added, %lld changed, %lld removed) in "
                        "%.1f s\n", r->id, (long long)run->total_files, (long long)run->added,
                (long long)run->changed, (long long)run->removed, run->seconds);
    } else if (rc != 0) {
        fprintf(stderr, "memgate: scheduled re-index of %s failed: error[%s]: %s; next try in %lld s\n", r->id,
                err.code ? err.code : MG_E_INTERNAL, err.msg, (long long)r->reindex_interval);
    }
    mg_items_release(&items);
    return true;
}

static bool stopping(struct mg_scheduler *s)
{
    pthread_mutex_lock(&s->mu);
    bool stop = s->stop || s->srv->stopping;
    pthread_mutex_unlock(&s->mu);
    return stop;
}

static void tick(struct mg_scheduler *s)
{
    struct mg_repo *v = NULL;
    size_t n = 0;
    struct mg_err err = {0};
    if (mg_catalog_list(&s->srv->cfg, &v, &n, &err) != 0) {
        fprintf(stderr, "memgate: warning: the re-index scheduler cannot list the repos: error[%s]: %s\n",
                err.code ? err.code : MG_E_INTERNAL, err.msg);
        return;
    }
    /* shared catalog: only repos this daemon has an index of (it builds the others as it follows) */
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (mg_repo_has_index(&v[i])) v[k++] = v[i];
    n = k;
    sync_plans(s, v, n, mg_now_ms(), (int64_t)time(NULL));
    for (size_t i = 0; i < s->nplans && !stopping(s); i++) {
        struct plan *p = &s->plans[i];
        if (p->next_ms > mg_now_ms()) continue;
        const struct mg_repo *r = NULL;
        for (size_t j = 0; j < n && !r; j++)
            if (strcmp(v[j].id, p->id) == 0) r = &v[j];
        if (!r) continue;
        /* indexed by someone else since: an interval after that run */
        int64_t wall = (int64_t)time(NULL);
        if (r->indexed_at > 0 && (wall - r->indexed_at) * 10 < p->interval * 9) {
            plan_from_last_run(s, p, r, mg_now_ms(), wall);
            continue;
        }
        if (run_one(s, r)) p->next_ms = mg_now_ms() + jittered_ms(s, p->interval);
    }
    free(v);
}

static void *scheduler_main(void *arg)
{
    struct mg_scheduler *s = arg;
    while (!stopping(s)) {
        tick(s);
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        int64_t ns = ts.tv_nsec + (s->tick_ms % 1000) * 1000000;
        ts.tv_sec += s->tick_ms / 1000 + ns / 1000000000;
        ts.tv_nsec = ns % 1000000000;
        pthread_mutex_lock(&s->mu);
        while (!s->stop && pthread_cond_timedwait(&s->cv, &s->mu, &ts) == 0) {}
        pthread_mutex_unlock(&s->mu);
    }
    return NULL;
}

static void free_scheduler(struct mg_scheduler *s)
{
    mg_session_unref(&s->session);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    free(s->plans);
    free(s);
}

int mg_scheduler_start(struct mg_server *srv, struct mg_scheduler **out, struct mg_err *err)
{
    *out = NULL;
    struct mg_scheduler *s = calloc(1, sizeof(*s));
    if (!s) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory starting the re-index scheduler");
    s->srv = srv;
    s->tick_ms = getenv("MEMGATE_TEST_MIN_REINDEX_INTERVAL") ? 1000 : MG_SCHED_TICK_MS;
    s->seed = (unsigned)time(NULL) ^ (unsigned)getpid();
    pthread_mutex_init(&s->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->cv, &ca);
    pthread_condattr_destroy(&ca);
    s->session = mg_sessions_private(srv->sessions, MG_SESSION_CLI, "scheduler", NULL, err);
    if (!s->session) {
        free_scheduler(s);
        return -1;
    }
    if (pthread_create(&s->thread, NULL, scheduler_main, s) != 0) {
        free_scheduler(s);
        return mg_err_set(err, MG_E_INTERNAL, "cannot start the re-index scheduler thread");
    }
    *out = s;
    return 0;
}

void mg_scheduler_stop(struct mg_scheduler **ps)
{
    struct mg_scheduler *s = *ps;
    if (!s) return;
    pthread_mutex_lock(&s->mu);
    s->stop = true;
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->thread, NULL);
    free_scheduler(s);
    *ps = NULL;
}
