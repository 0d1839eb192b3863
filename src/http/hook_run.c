/* hook_run.c — the re-index runs push webhooks start, in the background
 * (internal.h, docs/webhooks.md "The run").
 *
 * A repo with work has one job and one thread. The job's `pending` flag is
 * the whole queue: a push while the repo's run is pending or under way only
 * sets it, so any number of pushes during a run cost one more run after it,
 * and that run sees every one of them (an index run reads the whole tree).
 * The thread ends when a run finishes with nothing pending.
 *
 * The index itself is the index_repo tool, run as POST /v1/index runs it:
 * in a request context of the repo's owning tenant, through the gate (its
 * access check, the repo resolved by id, the root policy, its own audit
 * event). A pull_on_push fast-forward comes first (hook/pull.c); a refused
 * or failed one leaves the index alone. Each run ends with one event of op
 * webhook_run saying why it ran and how it ended.
 */
#include "http/internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hook/hook.h"
#include "request/gate.h"
#include "security/audit.h"
#include "tools/tools.h"

#define BUSY_RETRY_MS 2000 /* a repo another run holds is tried again this often ... */
#define BUSY_WAIT_S 3600   /* ... for at most this long */

struct job {
    struct mg_repo repo;
    char delivery[MG_HOOK_ID_MAX + 1]; /* the latest push's, under rn->mu */
    bool pending;                      /* one more run wanted, under rn->mu */
    struct job *next;
    struct mg_hook_runner *rn;
};

struct mg_hook_runner {
    struct mg_server *srv;
    pthread_mutex_t mu;
    pthread_cond_t cv; /* a thread ended, or the runner stops */
    struct job *jobs;  /* repos with a run pending or under way */
    int threads;
    volatile int stop; /* naps and fetches end; the index run itself stops with srv->stopping */
};

int mg__hook_runner_new(struct mg_server *srv, struct mg_hook_runner **out, struct mg_err *err)
{
    struct mg_hook_runner *rn = calloc(1, sizeof(*rn));
    if (!rn) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory starting the webhook runner");
    rn->srv = srv;
    pthread_mutex_init(&rn->mu, NULL);
    pthread_cond_init(&rn->cv, NULL);
    *out = rn;
    return 0;
}

void mg__hook_runner_free(struct mg_hook_runner *rn)
{
    if (!rn) return;
    pthread_mutex_lock(&rn->mu);
    rn->stop = 1;
    pthread_cond_broadcast(&rn->cv);
    while (rn->threads > 0) pthread_cond_wait(&rn->cv, &rn->mu);
    pthread_mutex_unlock(&rn->mu);
    pthread_cond_destroy(&rn->cv);
    pthread_mutex_destroy(&rn->mu);
    free(rn);
}

/* Wait up to ms, or until the runner stops (rn->mu held). */
static void nap_locked(struct mg_hook_runner *rn, int ms)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += ms / 1000;
    until.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
    while (!rn->stop && pthread_cond_timedwait(&rn->cv, &rn->mu, &until) != ETIMEDOUT) {}
}

/* index_repo for r, as its owner re-indexing it: write level, the repo named
 * by id (as X-Memgate-Repo names it), in a session of its own (instance
 * "webhook"). The tool's result into *result. */
static int index_tool(struct mg_hook_runner *rn, const struct mg_repo *r, json_t **result, struct mg_err *err)
{
    const struct mg_tool *t = mg_tool_find("index_repo");
    if (!t) return mg_err_set(err, MG_E_INTERNAL, "tool 'index_repo' is missing from this build");
    struct mg_sessions *reg = rn->srv->sessions;
    struct mg_session *s = mg_sessions_create(reg, MG_SESSION_CLI, NULL, "webhook", err);
    if (!s) return -1;
    mg_sessions_remove(reg, s->id); /* one run, one session: never listed among the live ones */
    snprintf(s->tenant, sizeof(s->tenant), "%s", r->tenant);
    struct mg_principal who = {.level = MG_LEVEL_WRITE};
    snprintf(who.tenant, sizeof(who.tenant), "%s", r->tenant);
    struct mg_request_spec spec = {.srv = rn->srv, .who = &who, .session = s, .repo_header = r->id,
                                   .op = "index_repo"};
    struct mg_ctx x;
    json_t *args = json_object();
    int rc = -1;
    if (!args) mg_err_set(err, MG_E_NO_MEMORY, "out of memory re-indexing '%s'", r->id);
    else if (mg_request_init(&x, &spec, err) == 0) {
        rc = mg_tools_call(&x, t, args, result, err);
        mg_request_release(&x);
    }
    json_decref(args);
    mg_session_put(reg, s);
    return rc;
}

/* While another run holds the repo (index_busy), wait for it. */
static int index_when_free(struct mg_hook_runner *rn, const struct mg_repo *r, json_t **result, struct mg_err *err)
{
    for (int waited_ms = 0;; waited_ms += BUSY_RETRY_MS) {
        mg_err_clear(err);
        if (index_tool(rn, r, result, err) == 0) return 0;
        if (!err->code || strcmp(err->code, MG_E_LOCKED) != 0 || waited_ms >= BUSY_WAIT_S * 1000) return -1;
        pthread_mutex_lock(&rn->mu);
        nap_locked(rn, BUSY_RETRY_MS);
        bool stop = rn->stop || rn->srv->stopping;
        pthread_mutex_unlock(&rn->mu);
        if (stop) return mg_err_set(err, MG_E_INTERRUPTED, "the server stopped while '%s' was busy", r->id);
    }
}

static long long count_of(json_t *result, const char *key)
{
    json_t *v = json_object_get(result, key);
    return json_is_integer(v) ? (long long)json_integer_value(v) : 0;
}

static void audit_run(struct mg_hook_runner *rn, const struct mg_repo *r, const char *delivery, const char *pulled,
                      json_t *result, const struct mg_err *err)
{
    char status[256];
    if (err->code)
        snprintf(status, sizeof(status), "%s", err->msg);
    else
        snprintf(status, sizeof(status), "indexed: %lld added, %lld changed, %lld removed%s%s",
                 count_of(result, "added"), count_of(result, "changed"), count_of(result, "removed"),
                 pulled[0] ? "; " : "", pulled);
    struct mg_audit_event ev = {.tenant = r->tenant, .repo = r->id, .op = "webhook_run",
                                .query = delivery[0] ? delivery : NULL, .code = err->code, .status = status,
                                .durable = true};
    mg_gate_audit(rn->srv, &ev);
    if (err->code)
        fprintf(stderr, "memgate: webhook: re-indexing %s after a push failed: error[%s]: %s\n", r->id, err->code,
                err->msg);
}

/* One run: pull when the repo asks for it, then index, then its event. */
static void run_once(struct mg_hook_runner *rn, const struct mg_repo *r, const char *delivery)
{
    struct mg_err err = {0};
    json_t *result = NULL;
    char pulled[160] = "";
    int rc = 0;
    if (mg_hook_pull_wanted(r)) rc = mg_hook_pull_ff(r->root, &rn->stop, pulled, sizeof(pulled), &err);
    if (rc == 0) index_when_free(rn, r, &result, &err);
    audit_run(rn, r, delivery, pulled, result, &err);
    json_decref(result);
}

static void *job_main(void *arg)
{
    struct job *j = arg;
    struct mg_hook_runner *rn = j->rn;
    for (;;) {
        char delivery[sizeof(j->delivery)];
        pthread_mutex_lock(&rn->mu);
        if (!j->pending || rn->stop) {
            struct job **pp = &rn->jobs;
            while (*pp != j) pp = &(*pp)->next;
            *pp = j->next;
            rn->threads--;
            pthread_cond_broadcast(&rn->cv);
            pthread_mutex_unlock(&rn->mu);
            free(j); /* (what its requests left on this thread is freed as it ends: ctx.h) */
            return NULL;
        }
        j->pending = false;
        memcpy(delivery, j->delivery, sizeof(delivery));
        pthread_mutex_unlock(&rn->mu);
        run_once(rn, &j->repo, delivery);
    }
}

/* A job for repo, its thread started (rn->mu held). */
static int start_job(struct mg_hook_runner *rn, const struct mg_repo *repo, const char *delivery, struct mg_err *err)
{
    struct job *j = calloc(1, sizeof(*j));
    if (!j) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory queueing a re-index of '%s'", repo->id);
    j->rn = rn;
    j->repo = *repo;
    j->pending = true;
    snprintf(j->delivery, sizeof(j->delivery), "%s", delivery);
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int e = pthread_create(&t, &attr, job_main, j);
    pthread_attr_destroy(&attr);
    if (e != 0) {
        free(j);
        return mg_err_set(err, MG_E_SHUTTING_DOWN, "cannot start a thread to re-index '%s': %s; deliver the webhook "
                          "again later", repo->id, strerror(e));
    }
    j->next = rn->jobs;
    rn->jobs = j;
    rn->threads++;
    return 0;
}

int mg__hook_runner_push(struct mg_hook_runner *rn, const struct mg_repo *repo, const char *delivery,
                         bool *coalesced, struct mg_err *err)
{
    *coalesced = false;
    if (!delivery) delivery = "";
    pthread_mutex_lock(&rn->mu);
    int rc = 0;
    struct job *j = rn->jobs;
    while (j && strcmp(j->repo.id, repo->id) != 0) j = j->next;
    if (rn->stop) {
        rc = mg_err_set(err, MG_E_SHUTTING_DOWN, "the server is stopping; deliver the webhook again later");
    } else if (j) {
        j->pending = true;
        snprintf(j->delivery, sizeof(j->delivery), "%s", delivery);
        *coalesced = true;
    } else {
        rc = start_job(rn, repo, delivery, err);
    }
    pthread_mutex_unlock(&rn->mu);
    return rc;
}
