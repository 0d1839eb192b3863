/* audit.c — the audit chain's front (audit.h): opened where the config says,
 * appended to through its backend (audit_int.h: the data directory's files,
 * audit_file.c, or PostgreSQL, audit_pg.c), each new end of the chain
 * shipped as its anchor where the settings say (the system journal or
 * syslog, audit_anchor_url).
 * Reading the chain is audit_query.c's, verifying it audit_verify.c's.
 *
 * Sections:
 *   1. where the chain is
 *   2. shipping the anchor
 *   3. open, emit, close
 */
#include "security/audit.h"
#include "security/audit_int.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "security/common.h"
#include "store/pg.h"
#include "util/buf.h"
#include "util/httpc.h"

struct ship; /* where the anchor goes: the machine's log, an HTTP hook (section 2) */

struct mg_audit {
    const struct mg__audit_backend *be; /* where the chain is */
    void *self;                         /* the backend's state */
    struct ship *ship;                  /* audit_anchor_syslog, audit_anchor_url */
};

/* ---- 1. where the chain is -------------------------------------------------------------- */

bool mg_audit_in_pg(const struct mg_config *c) { return mg_pg_configured(c); }

void mg_audit_path(const struct mg_config *c, int n, char *out, size_t cap)
{
    if (n == 0) snprintf(out, cap, "%s/audit/audit.log", c->home);
    else snprintf(out, cap, "%s/audit/audit.log.%d", c->home, n);
}

void mg_audit_anchor_path(const struct mg_config *c, char *out, size_t cap)
{
    snprintf(out, cap, "%s/audit/audit.anchor", c->home);
}

/* ---- 2. shipping the anchor ------------------------------------------------------------- */

#define LOG_INTERVAL_MS 1000 /* the machine's log gets at most one anchor a second (each covers those before) */

/* A thread sends the newest anchor: to the machine's log at most once a
 * LOG_INTERVAL_MS, to the HTTP hook as fast as it answers; older ones not
 * yet sent are skipped (each anchor covers all before it). Stopping sends
 * what is pending at once. */
struct ship {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char url[512];          /* "" none */
    enum mg__audit_log log; /* the journal, syslog or none */
    char pending[MG_AUDIT_ANCHOR_REC_MAX + 1], sending[MG_AUDIT_ANCHOR_REC_MAX + 1];
    long long pending_seq;  /* the newest anchor's seq handed in: an older one is skipped */
    int64_t logged_ms;      /* when the log last got one */
    bool for_url, for_log;  /* pending is still to go there */
    bool stop, failing;
};

static int64_t mono_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Wait on s->cv for at most ms (the lock held). */
static void wait_ms(struct ship *s, int64_t ms)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += ms / 1000;
    until.tv_nsec += (ms % 1000) * 1000000;
    if (until.tv_nsec >= 1000000000) until.tv_sec++, until.tv_nsec -= 1000000000;
    pthread_cond_timedwait(&s->cv, &s->mu, &until);
}

static void *ship_main(void *p)
{
    struct ship *s = p;
    struct mg_buf answer;
    mg_buf_init(&answer, 1 << 20);
    pthread_mutex_lock(&s->mu);
    for (;;) {
        while (!s->for_url && !s->for_log && !s->stop) pthread_cond_wait(&s->cv, &s->mu);
        if (!s->for_url && !s->for_log) break;
        if (s->for_url) {
            memcpy(s->sending, s->pending, sizeof(s->sending));
            s->for_url = false;
            pthread_mutex_unlock(&s->mu);
            long status = 0;
            char why[256] = "";
            struct mg_httpc_req q = {.method = "POST", .url = s->url, .body = s->sending, .timeout_s = 5,
                                     .max_body = 1 << 20};
            bool ok = mg_httpc_call(&q, &status, &answer, why, sizeof(why)) == 0 && status >= 200 && status < 300;
            pthread_mutex_lock(&s->mu);
            if (!ok && !s->failing)
                fprintf(stderr, "memgate: warning: cannot ship the audit anchor to audit_anchor_url: %s\n",
                        why[0] ? why : "the hook did not answer 2xx");
            s->failing = !ok;
            continue;
        }
        /* the log: wait out its interval unless stopping (a newer anchor may come in meanwhile) */
        int64_t wait = s->logged_ms + LOG_INTERVAL_MS - mono_ms();
        if (wait > 0 && !s->stop) {
            wait_ms(s, wait);
            continue;
        }
        memcpy(s->sending, s->pending, sizeof(s->sending));
        s->for_log = false;
        pthread_mutex_unlock(&s->mu);
        mg__audit_log_send(s->log, s->sending);
        pthread_mutex_lock(&s->mu);
        s->logged_ms = mono_ms();
    }
    pthread_mutex_unlock(&s->mu);
    mg_buf_release(&answer);
    return NULL;
}

static struct ship *ship_start(const char *url, enum mg__audit_log log)
{
    struct ship *s = calloc(1, sizeof(*s));
    if (!s) return NULL;
    snprintf(s->url, sizeof(s->url), "%s", url);
    s->log = log;
    s->logged_ms = mono_ms() - LOG_INTERVAL_MS;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    if (pthread_create(&s->th, NULL, ship_main, s) != 0) {
        free(s);
        return NULL;
    }
    return s;
}

/* Hand over an anchor (of seq) to send. Threads that append to PostgreSQL
 * at once may hand theirs over out of order: an older one than the newest
 * handed over is dropped, as it covers less. */
static void ship_post(struct ship *s, const char *json, long long seq)
{
    pthread_mutex_lock(&s->mu);
    if (seq >= s->pending_seq) {
        snprintf(s->pending, sizeof(s->pending), "%s", json);
        s->pending_seq = seq;
        s->for_url = s->url[0] != 0;
        s->for_log = s->log != MG__AUDIT_LOG_NONE;
        pthread_cond_broadcast(&s->cv);
    }
    pthread_mutex_unlock(&s->mu);
}

/* Send what is pending (the POST has its own 5 s timeout), then stop. */
static void ship_stop(struct ship *s)
{
    if (!s) return;
    pthread_mutex_lock(&s->mu);
    s->stop = true;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->th, NULL);
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

/* Ship an anchor record (its JSON) where the settings say: the backends'
 * mg__audit_publish_fn. */
static void publish(void *ud, const char *rec, long long seq)
{
    struct mg_audit *a = ud;
    ship_post(a->ship, rec, seq);
}

/* ---- 3. open, emit, close --------------------------------------------------------------- */

int mg_audit_open(const struct mg_config *c, struct mg_audit **out, struct mg_err *err)
{
    *out = NULL;
    mg_sodium_ready();
    struct mg_audit *a = calloc(1, sizeof(*a));
    if (!a) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory opening the audit log");
    enum mg__audit_log log = mg__audit_log_for(c->audit_anchor_syslog);
    if ((c->audit_anchor_url[0] || log) && !(a->ship = ship_start(c->audit_anchor_url, log))) {
        mg_err_set(err, MG_E_NO_MEMORY, "cannot start the thread shipping the audit anchor");
        goto fail;
    }
    a->be = mg_pg_configured(c) ? &mg__audit_pg : &mg__audit_files;
    if (a->be->open(c, a->ship ? publish : NULL, a, &a->self, err) != 0) goto fail;
    *out = a;
    return 0;
fail:
    mg_audit_close(a);
    return -1;
}

int mg_audit_emit(struct mg_audit *a, const struct mg_audit_event *ev, struct mg_err *err)
{
    if (!mg_audit_op_ok(ev->op))
        return mg_err_set(err, MG_E_BAD_ARG, "audit op '%.80s' is not valid: use 1-%d characters of a-z, 0-9, "
                          "'_', '.', '-'", ev->op ? ev->op : "", MG_AUDIT_OP_MAX);
    return a->be->emit(a->self, ev, err);
}

void mg_audit_close(struct mg_audit *a)
{
    if (!a) return;
    if (a->self) a->be->close(a->self);
    ship_stop(a->ship);
    free(a);
}
