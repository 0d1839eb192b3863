/* admit.h — at most N at once, first come first served.
 *
 * A daemon runs one thread per connection; with more searches under way than
 * cores, each runs time-sliced with all the others and every one of them
 * ends late (32 sessions on two cores: p99 ~7× the median). Admitting a few
 * at a time (the daemon: twice the cores) and queueing the rest in arrival
 * order keeps the same throughput and brings the slowest call near the
 * mean: a call waits instead of sharing.
 *
 * A long holder does not hold up the queue: once a holder has had its place
 * for `long_ms`, the first waiter takes a place beside it (the holder goes
 * on, no longer counted). So a slow search (a regex over a kernel) costs the
 * others what it did before, a share of the cores, not its whole length. The
 * queue's timer thread does the passing: while someone waits it sleeps until
 * the oldest holder's long_ms is up (with nobody waiting it sleeps untimed),
 * so no waiter wakes to watch the holders.
 *
 * A waiter sleeps on a condition variable of its own; a leaving holder hands
 * its place to the first waiter (no thundering herd, no overtaking). A
 * waiter gives up at its deadline or when *stop is set (it looks once a
 * second, and at once after mg_admit_wake); it is then out of the queue and
 * holds nothing.
 *
 * Threads: every function is thread-safe. The ticket lives with the caller
 * from enter to leave, and one thread enters with it: two threads entering
 * with one ticket link it in twice. A thread must not enter twice before
 * leaving (it could wait on itself); callers enter around work that never
 * waits for another holder.
 */
#ifndef MG_ADMIT_H
#define MG_ADMIT_H

#include <stdbool.h>
#include <stdint.h>

struct mg_admit;

/* One caller's place (its own storage; members are the queue's). */
struct mg_admit_ticket {
    int64_t since_ms; /* admitted at, CLOCK_MONOTONIC */
    bool counted;     /* holds one of the `limit` places */
    struct mg_admit_ticket *prev, *next;
};

/* A queue admitting `limit` (≥ 1) at once, a holder counted for at most
 * long_ms (0: always; else with a timer thread). NULL: no memory, or no thread. */
struct mg_admit *mg_admit_new(unsigned limit, unsigned long_ms);
void mg_admit_free(struct mg_admit *a);

/* Wait for a place. deadline_ms: CLOCK_MONOTONIC ms (0: none); stop: a
 * flag checked at least every second and after mg_admit_wake (may be
 * NULL). 0 admitted (call mg_admit_leave with the same ticket), -1 gave up
 * (deadline or stop; holds nothing). */
int mg_admit_enter(struct mg_admit *a, struct mg_admit_ticket *t, int64_t deadline_ms, const volatile int *stop);
void mg_admit_leave(struct mg_admit *a, struct mg_admit_ticket *t);
/* Every waiter looks at its stop flag now (the daemon stops). NULL: nothing. */
void mg_admit_wake(struct mg_admit *a);

/* The queue now, and since it was made: calls that waited, that gave up
 * waiting, and holders that outlived long_ms (for /metrics and tests). */
struct mg_admit_stats {
    unsigned limit, running, waiting, long_ms;
    uint64_t queued, gave_up, outlived;
};
void mg_admit_stats(struct mg_admit *a, struct mg_admit_stats *out);

#endif
