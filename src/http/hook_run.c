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
 *
 * The same queue takes the shared catalog's catch-up runs (request/follow.h):
 * a repo another daemon re-indexed. A catch-up is the index_repo tool too,
 * with cause catchup (it records the generation it reached and bumps none),
 * in a session of instance "catalog"; with the repo's pull_on_push on it
 * pulls first, and after a push it ends with a webhook_run event naming the
 * push's delivery id, as the run of the daemon that received it does. A
 * push run pending for a repo makes its catch-up needless (it bumps: the
 * index is then the catalog's newest). At most MAX_CATCHUPS run at once (a
 * daemon starting behind on many repos does not index them all together);
 * a catch-up that is no longer needed when it starts (mg_follow_ready) does
 * nothing. MEMGATE_TEST_CATCHUP_DELAY_MS (a test seam, docs/config.md)
 * delays each catch-up's start.
 *
 * Sections:
 *   1. jobs and the runner
 *   2. one run: index, audit
 *   3. a repo's job: its thread, its queue of one
 */
#include "http/internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hook/hook.h"
#include "request/follow.h"
#include "request/gate.h"
#include "security/audit.h"
#include "tools/tools.h"

#define BUSY_RETRY_MS 2000 /* a repo another run holds is tried again this often ... */
#define BUSY_WAIT_S 3600   /* ... for at most this long */
#define MAX_CATCHUPS 2     /* catch-up runs at once */
#define PULL_TRIES 3       /* a catch-up's pull that failed (a lock another process held) is tried this often */

/* ---- 1. jobs and the runner ------------------------------------------------------------------------------- */

struct job {
    struct mg_repo repo;
    char delivery[MG_HOOK_ID_MAX + 1]; /* the latest push's, under rn->mu */
    bool pending;                      /* one more run wanted, under rn->mu */
    /* a catch-up wanted (under rn->mu): pull first; the push's delivery id */
    bool catchup, catchup_pull;
    char catchup_delivery[MG_HOOK_ID_MAX + 1];
    struct job *next;
    struct mg_hook_runner *rn;
};

struct mg_hook_runner {
    struct mg_server *srv;
    pthread_mutex_t mu;
    pthread_cond_t cv; /* a thread ended, a catch-up ended, or the runner stops */
    struct job *jobs;  /* repos with a run pending or under way */
    int threads;
    int catchups;      /* catch-up runs under way */
    int catchup_delay_ms; /* MEMGATE_TEST_CATCHUP_DELAY_MS */
    volatile int stop; /* naps and fetches end; the index run itself stops with srv->stopping */
};

int mg__hook_runner_new(struct mg_server *srv, struct mg_hook_runner **out, struct mg_err *err)
{
    struct mg_hook_runner *rn = calloc(1, sizeof(*rn));
    if (!rn) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory starting the webhook runner");
    rn->srv = srv;
    const char *delay = getenv("MEMGATE_TEST_CATCHUP_DELAY_MS");
    rn->catchup_delay_ms = delay ? atoi(delay) : 0;
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

/* ---- 2. one run: index, audit ----------------------------------------------------------------------------- */

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

/* Why a run runs: a push received here, or a catch-up with the catalog. */
struct cause {
    const char *reason;   /* the index run's cause: "push", "catchup" */
    const char *delivery; /* the push's delivery id, or NULL */
    const char *instance; /* of its session: "webhook", "catalog" */
};

/* index_repo for r, as its owner re-indexing it: write level, the repo named
 * by id (as X-Memgate-Repo names it), in a session of its own (instance
 * cause->instance). The tool's result into *result. */
static int index_tool(struct mg_hook_runner *rn, const struct mg_repo *r, const struct cause *why, json_t **result,
                      struct mg_err *err)
{
    const struct mg_tool *t = mg_tool_find("index_repo");
    if (!t) return mg_err_set(err, MG_E_INTERNAL, "tool 'index_repo' is missing from this build");
    struct mg_sessions *reg = rn->srv->sessions;
    /* one run, one session: never listed among the live ones */
    struct mg_session *s = mg_sessions_private(reg, MG_SESSION_CLI, why->instance, r->tenant, err);
    if (!s) return -1;
    struct mg_principal who = {.level = MG_LEVEL_WRITE};
    snprintf(who.tenant, sizeof(who.tenant), "%s", r->tenant);
    struct mg_request_spec spec = {.srv = rn->srv, .who = &who, .session = s, .repo_header = r->id,
                                   .op = "index_repo", .index_reason = why->reason,
                                   .index_delivery = why->delivery};
    struct mg_ctx x;
    json_t *args = json_object();
    int rc = -1;
    if (!args) mg_err_set(err, MG_E_NO_MEMORY, "out of memory re-indexing '%s'", r->id);
    else if (mg_request_init(&x, &spec, err) == 0) {
        rc = mg_tools_call(&x, t, args, result, err);
        mg_request_release(&x);
    }
    json_decref(args);
    mg_session_unref(&s);
    return rc;
}

/* While another run holds the repo (index_busy), wait for it. */
static int index_when_free(struct mg_hook_runner *rn, const struct mg_repo *r, const struct cause *why,
                           json_t **result, struct mg_err *err)
{
    for (int waited_ms = 0;; waited_ms += BUSY_RETRY_MS) {
        mg_err_clear(err);
        if (index_tool(rn, r, why, result, err) == 0) return 0;
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
    struct cause why = {"push", delivery[0] ? delivery : NULL, "webhook"};
    if (mg_hook_pull_wanted(r)) rc = mg_hook_pull_ff(r->root, &rn->stop, pulled, sizeof(pulled), &err);
    if (rc == 0) index_when_free(rn, r, &why, &result, &err);
    audit_run(rn, r, delivery, pulled, result, &err);
    json_decref(result);
}

/* The shared catalog's pull: several daemons of one machine may pull one working copy at once, and libgit2
 * then finds its lock files taken: a failed pull (not a refused one) is tried again a little later. */
static int pull_retrying(struct mg_hook_runner *rn, const char *root, char *pulled, size_t cap, struct mg_err *err)
{
    for (int i = 1;; i++) {
        mg_err_clear(err);
        if (mg_hook_pull_ff(root, &rn->stop, pulled, cap, err) == 0) return 0;
        if (i >= PULL_TRIES || !err->code || strcmp(err->code, MG_E_PULL_FAILED) != 0) return -1;
        pthread_mutex_lock(&rn->mu);
        nap_locked(rn, 300 + rand() % 700);
        bool stop = rn->stop;
        pthread_mutex_unlock(&rn->mu);
        if (stop) return -1;
    }
}

/* A catch-up with the catalog: after a delay (the test seam), if the repo still needs it, in a slot of
 * MAX_CATCHUPS: the pull when asked, then index_repo with cause catchup. */
static void catch_up(struct mg_hook_runner *rn, const char *id, bool pull, const char *delivery)
{
    pthread_mutex_lock(&rn->mu);
    if (rn->catchup_delay_ms > 0) nap_locked(rn, rn->catchup_delay_ms);
    while (!rn->stop && rn->catchups >= MAX_CATCHUPS) pthread_cond_wait(&rn->cv, &rn->mu);
    bool stop = rn->stop;
    if (!stop) rn->catchups++;
    pthread_mutex_unlock(&rn->mu);
    if (stop) return;
    struct mg_repo r;
    struct mg_err err = {0};
    json_t *result = NULL;
    char pulled[160] = "";
    int need = mg_follow_ready(rn->srv, id, &r, &err);
    if (need > 0) {
        struct cause why = {"catchup", delivery[0] ? delivery : NULL, "catalog"};
        int rc = pull ? pull_retrying(rn, r.root, pulled, sizeof(pulled), &err) : 0;
        if (rc == 0) rc = index_when_free(rn, &r, &why, &result, &err);
        if (pull && delivery[0]) audit_run(rn, &r, delivery, pulled, result, &err); /* this daemon's run of a push */
        else if (rc != 0)
            fprintf(stderr, "memgate: catalog: catching up %s failed: error[%s]: %s\n", id,
                    err.code ? err.code : MG_E_INTERNAL, err.msg);
    } else if (need < 0) {
        fprintf(stderr, "memgate: catalog: catching up %s failed: error[%s]: %s\n", id,
                err.code ? err.code : MG_E_INTERNAL, err.msg);
    }
    json_decref(result);
    pthread_mutex_lock(&rn->mu);
    rn->catchups--;
    pthread_cond_broadcast(&rn->cv);
    pthread_mutex_unlock(&rn->mu);
}

/* ---- 3. a repo's job: its thread, its queue of one -------------------------------------------------------- */

static void *job_main(void *arg)
{
    struct job *j = arg;
    struct mg_hook_runner *rn = j->rn;
    for (;;) {
        char delivery[sizeof(j->delivery)];
        pthread_mutex_lock(&rn->mu);
        if ((!j->pending && !j->catchup) || rn->stop) {
            struct job **pp = &rn->jobs;
            while (*pp != j) pp = &(*pp)->next;
            *pp = j->next;
            rn->threads--;
            pthread_cond_broadcast(&rn->cv);
            pthread_mutex_unlock(&rn->mu);
            free(j); /* (what its requests left on this thread is freed as it ends: ctx.h) */
            return NULL;
        }
        if (j->pending) { /* a push run: it bumps the generation, so it is also the catch-up */
            j->pending = j->catchup = j->catchup_pull = false;
            memcpy(delivery, j->delivery, sizeof(delivery));
            struct mg_repo repo = j->repo; /* (the latest push's: a push meanwhile may replace it) */
            pthread_mutex_unlock(&rn->mu);
            run_once(rn, &repo, delivery);
            continue;
        }
        bool pull = j->catchup_pull;
        j->catchup = j->catchup_pull = false;
        memcpy(delivery, j->catchup_delivery, sizeof(delivery));
        pthread_mutex_unlock(&rn->mu);
        catch_up(rn, j->repo.id, pull, delivery);
    }
}

/* A job for repo, its thread started (rn->mu held); the caller sets what it wants. */
static int start_job(struct mg_hook_runner *rn, const struct mg_repo *repo, struct job **out, struct mg_err *err)
{
    struct job *j = calloc(1, sizeof(*j));
    if (!j) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory queueing a re-index of '%s'", repo->id);
    j->rn = rn;
    j->repo = *repo;
    *out = j;
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

/* The job of repo (rn->mu held): the one pending or under way, or a new one (*fresh). */
static struct job *job_of(struct mg_hook_runner *rn, const struct mg_repo *repo, bool *fresh, struct mg_err *err)
{
    *fresh = false;
    struct job *j = rn->jobs;
    while (j && strcmp(j->repo.id, repo->id) != 0) j = j->next;
    if (j) return j;
    *fresh = true;
    return start_job(rn, repo, &j, err) == 0 ? j : NULL;
}

int mg__hook_runner_push(struct mg_hook_runner *rn, const struct mg_repo *repo, const char *delivery,
                         bool *coalesced, struct mg_err *err)
{
    *coalesced = false;
    if (!delivery) delivery = "";
    pthread_mutex_lock(&rn->mu);
    int rc = 0;
    bool fresh;
    struct job *j = NULL;
    if (rn->stop) rc = mg_err_set(err, MG_E_SHUTTING_DOWN, "the server is stopping; deliver the webhook again later");
    else if (!(j = job_of(rn, repo, &fresh, err))) rc = -1;
    if (j) {
        *coalesced = !fresh;
        j->pending = true;
        j->repo = *repo; /* as matched now (its settings: pull_on_push) */
        snprintf(j->delivery, sizeof(j->delivery), "%s", delivery);
    }
    pthread_mutex_unlock(&rn->mu);
    return rc;
}

void mg__hook_runner_catchup(struct mg_hook_runner *rn, const struct mg_repo *repo, bool pull, const char *delivery)
{
    pthread_mutex_lock(&rn->mu);
    bool fresh;
    struct mg_err err = {0};
    struct job *j = rn->stop ? NULL : job_of(rn, repo, &fresh, &err);
    if (j) {
        j->catchup = true;
        j->catchup_pull |= pull;
        if (pull || !j->catchup_delivery[0])
            snprintf(j->catchup_delivery, sizeof(j->catchup_delivery), "%s", delivery ? delivery : "");
    } else if (!rn->stop) {
        fprintf(stderr, "memgate: catalog: cannot queue a catch-up of %s: %s\n", repo->id, err.msg);
    }
    pthread_mutex_unlock(&rn->mu);
}
