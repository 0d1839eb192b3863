/* admit.c — a FIFO admission queue (admit.h). */
#include "util/admit.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "util/clock.h"

#define STOP_CHECK_MS 1000 /* a waiter looks at its stop flag at least this often (mg_admit_wake: at once) */

struct waiter {
    pthread_cond_t cv;
    bool admitted;
    struct mg_admit_ticket *ticket;
    struct waiter *next;
};

struct mg_admit {
    pthread_mutex_t mu;
    pthread_cond_t timer_cv; /* the timer's: it passes a holder that outlived long_ms */
    pthread_t timer;         /* (with long_ms only) */
    bool timer_idle, quit;   /* the timer waits with no time set (nobody waits); it ends */
    unsigned limit, long_ms;
    unsigned running, waiting;                /* counted holders; queued waiters */
    struct mg_admit_ticket *oldest, *newest;  /* the counted holders, in the order they were admitted */
    struct waiter *head, *tail;
    uint64_t queued, gave_up, outlived;
};

static void *timer_main(void *arg);

struct mg_admit *mg_admit_new(unsigned limit, unsigned long_ms)
{
    struct mg_admit *a = calloc(1, sizeof(*a));
    if (!a) return NULL;
    a->limit = limit ? limit : 1;
    a->long_ms = long_ms;
    pthread_mutex_init(&a->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&a->timer_cv, &ca);
    pthread_condattr_destroy(&ca);
    if (a->long_ms && pthread_create(&a->timer, NULL, timer_main, a) != 0) {
        pthread_cond_destroy(&a->timer_cv);
        pthread_mutex_destroy(&a->mu);
        free(a);
        return NULL;
    }
    return a;
}

void mg_admit_free(struct mg_admit *a)
{
    if (!a) return;
    if (a->long_ms) {
        pthread_mutex_lock(&a->mu);
        a->quit = true;
        pthread_cond_signal(&a->timer_cv);
        pthread_mutex_unlock(&a->mu);
        pthread_join(a->timer, NULL);
    }
    pthread_cond_destroy(&a->timer_cv);
    pthread_mutex_destroy(&a->mu);
    free(a);
}

static int64_t now_ms(void) { return (int64_t)mg_clock_ms(); }

/* t takes a counted place (a->mu held). */
static void hold(struct mg_admit *a, struct mg_admit_ticket *t, int64_t now)
{
    *t = (struct mg_admit_ticket){.since_ms = now, .counted = true, .prev = a->newest};
    if (a->newest) a->newest->next = t;
    else a->oldest = t;
    a->newest = t;
    a->running++;
}

/* t gives its counted place up (a->mu held). */
static void unhold(struct mg_admit *a, struct mg_admit_ticket *t)
{
    if (t->prev) t->prev->next = t->next;
    else a->oldest = t->next;
    if (t->next) t->next->prev = t->prev;
    else a->newest = t->prev;
    t->counted = false;
    t->prev = t->next = NULL;
    a->running--;
}

/* The first waiter leaves the queue admitted and is told (a->mu held). */
static void admit_head(struct mg_admit *a, int64_t now)
{
    struct waiter *w = a->head;
    a->head = w->next;
    if (!a->head) a->tail = NULL;
    a->waiting--;
    hold(a, w->ticket, now);
    w->admitted = true;
    pthread_cond_signal(&w->cv);
}

static void unqueue(struct mg_admit *a, struct waiter *w)
{
    struct waiter **p = &a->head, *prev = NULL;
    while (*p && *p != w) {
        prev = *p;
        p = &(*p)->next;
    }
    if (!*p) return;
    *p = w->next;
    if (a->tail == w) a->tail = prev;
    a->waiting--;
}

static struct timespec at_ms(int64_t ms)
{
    return (struct timespec){.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000};
}

/* The timer: while someone waits, it sleeps until the oldest counted holder
 * has had its place for long_ms, and then passes it (that holder goes on,
 * uncounted; the first waiter takes its place). Waiters never wake to
 * watch the holders: each sleeps until it is admitted, its deadline, or the
 * next look at its stop flag. Woken when someone queues while it sleeps
 * with no time set, so an idle queue costs nothing. */
static void *timer_main(void *arg)
{
    struct mg_admit *a = arg;
    pthread_mutex_lock(&a->mu);
    while (!a->quit) {
        if (!a->head || !a->oldest) {
            a->timer_idle = true;
            pthread_cond_wait(&a->timer_cv, &a->mu);
            a->timer_idle = false;
            continue;
        }
        int64_t now = now_ms(), until = a->oldest->since_ms + a->long_ms;
        if (now >= until) {
            unhold(a, a->oldest);
            a->outlived++;
            admit_head(a, now);
            continue;
        }
        struct timespec ts = at_ms(until);
        pthread_cond_timedwait(&a->timer_cv, &a->mu, &ts);
    }
    pthread_mutex_unlock(&a->mu);
    return NULL;
}

int mg_admit_enter(struct mg_admit *a, struct mg_admit_ticket *t, int64_t deadline_ms, const volatile int *stop)
{
    pthread_mutex_lock(&a->mu);
    if (a->running < a->limit && !a->head) {
        hold(a, t, now_ms());
        pthread_mutex_unlock(&a->mu);
        return 0;
    }
    struct waiter w = {.ticket = t};
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&w.cv, &ca);
    pthread_condattr_destroy(&ca);
    if (a->tail) a->tail->next = &w;
    else a->head = &w;
    a->tail = &w;
    a->waiting++;
    a->queued++;
    if (a->timer_idle && a->head == &w) pthread_cond_signal(&a->timer_cv);
    while (!w.admitted) {
        int64_t now = now_ms();
        if ((stop && *stop) || (deadline_ms && now >= deadline_ms)) break;
        int64_t until = now + STOP_CHECK_MS;
        if (deadline_ms && deadline_ms < until) until = deadline_ms;
        struct timespec ts = at_ms(until);
        pthread_cond_timedwait(&w.cv, &a->mu, &ts);
    }
    int rc = 0;
    if (!w.admitted) { /* still queued: leave the queue, holding nothing */
        unqueue(a, &w);
        a->gave_up++;
        rc = -1;
    }
    pthread_mutex_unlock(&a->mu);
    pthread_cond_destroy(&w.cv);
    return rc;
}

void mg_admit_wake(struct mg_admit *a)
{
    if (!a) return;
    pthread_mutex_lock(&a->mu);
    for (struct waiter *w = a->head; w; w = w->next) pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&a->mu);
}

void mg_admit_leave(struct mg_admit *a, struct mg_admit_ticket *t)
{
    pthread_mutex_lock(&a->mu);
    if (t->counted) {
        unhold(a, t);
        if (a->head) admit_head(a, now_ms());
    }
    pthread_mutex_unlock(&a->mu);
}

void mg_admit_stats(struct mg_admit *a, struct mg_admit_stats *out)
{
    pthread_mutex_lock(&a->mu);
    *out = (struct mg_admit_stats){a->limit, a->running, a->waiting, a->long_ms, a->queued, a->gave_up, a->outlived};
    pthread_mutex_unlock(&a->mu);
}
