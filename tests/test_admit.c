/* test_admit.c — the read queue (util/admit.h) and the gate's use of it:
 * at most N at once, the rest in arrival order, a waiter's deadline and
 * stop, a long holder passed, a search that waits its turn, and the parallel
 * parts of one get_context taking one place. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inproc.h"
#include "request/gate.h"
#include "test.h"
#include "util/admit.h"
#include "util/clock.h"
#include "util/metrics.h"

static int64_t now_ms(void) { return (int64_t)mg_clock_ms(); }

static struct mg_admit_stats stats_of(struct mg_admit *a)
{
    struct mg_admit_stats s;
    mg_admit_stats(a, &s);
    return s;
}

/* Wait (up to 10 s) until the queue has `waiting` waiters. */
static void wait_waiting(struct mg_admit *a, unsigned waiting)
{
    for (int i = 0; i < 10000 && stats_of(a).waiting != waiting; i++) usleep(1000);
    ASSERT_EQ_INT(stats_of(a).waiting, waiting);
}

struct entrant {
    struct mg_admit *a;
    int id;
    int64_t deadline_ms;
    const volatile int *stop;
    int rc;
    int64_t returned_ms;
    /* shared: the order places were taken in, and the most running seen */
    pthread_mutex_t *mu;
    int *order, *norder;
    unsigned *most;
    int hold_ms;
};

static void *enter_main(void *arg)
{
    struct entrant *e = arg;
    struct mg_admit_ticket t;
    e->rc = mg_admit_enter(e->a, &t, e->deadline_ms, e->stop);
    e->returned_ms = now_ms();
    if (e->rc != 0) return NULL;
    if (e->mu) {
        pthread_mutex_lock(e->mu);
        e->order[(*e->norder)++] = e->id;
        unsigned r = stats_of(e->a).running;
        if (r > *e->most) *e->most = r;
        pthread_mutex_unlock(e->mu);
    }
    if (e->hold_ms) usleep((useconds_t)e->hold_ms * 1000);
    mg_admit_leave(e->a, &t);
    return NULL;
}

TEST(admit_lets_in_its_limit_and_queues_the_rest_in_arrival_order)
{
    struct mg_admit *a = mg_admit_new(2, 0);
    ASSERT(a);
    struct mg_admit_ticket h1, h2;
    ASSERT_EQ_INT(mg_admit_enter(a, &h1, 0, NULL), 0);
    ASSERT_EQ_INT(mg_admit_enter(a, &h2, 0, NULL), 0);
    ASSERT_EQ_INT(stats_of(a).running, 2);
    enum { N = 6 };
    pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    int order[N], norder = 0;
    unsigned most = 0;
    struct entrant e[N];
    pthread_t th[N];
    for (int i = 0; i < N; i++) { /* each queued before the next starts: the arrival order is 0..N-1 */
        e[i] = (struct entrant){.a = a, .id = i, .mu = &mu, .order = order, .norder = &norder, .most = &most,
                                .hold_ms = 5};
        ASSERT_EQ_INT(pthread_create(&th[i], NULL, enter_main, &e[i]), 0);
        wait_waiting(a, (unsigned)i + 1);
    }
    usleep(50 * 1000);
    ASSERT_EQ_INT(norder, 0); /* nobody passes the two holders */
    /* one place given back: the waiters pass it on one after another, in the order they came */
    mg_admit_leave(a, &h1);
    for (int i = 0; i < N; i++) pthread_join(th[i], NULL);
    ASSERT_EQ_INT(stats_of(a).running, 1);
    mg_admit_leave(a, &h2);
    ASSERT_EQ_INT(norder, N);
    for (int i = 0; i < N; i++) ASSERT_EQ_INT(order[i], i);
    ASSERT(most <= 2);
    struct mg_admit_stats s = stats_of(a);
    ASSERT_EQ_INT(s.running, 0);
    ASSERT_EQ_INT(s.waiting, 0);
    ASSERT_EQ_INT(s.queued, N);
    ASSERT_EQ_INT(s.gave_up, 0);
    mg_admit_free(a);
}

TEST(admit_a_waiter_gives_up_at_its_deadline_or_stop_holding_nothing)
{
    struct mg_admit *a = mg_admit_new(1, 0);
    struct mg_admit_ticket h;
    ASSERT_EQ_INT(mg_admit_enter(a, &h, 0, NULL), 0);
    /* the deadline: back after it, not long after, out of the queue */
    struct entrant late = {.a = a, .deadline_ms = now_ms() + 150};
    pthread_t th;
    int64_t t0 = now_ms();
    pthread_create(&th, NULL, enter_main, &late);
    pthread_join(th, NULL);
    ASSERT_EQ_INT(late.rc, -1);
    ASSERT(late.returned_ms - t0 >= 140);
    ASSERT(late.returned_ms - t0 < 2000);
    /* stop: set while it waits, it is back at its next look (once a second) */
    volatile int stop = 0;
    struct entrant stopped = {.a = a, .stop = &stop};
    pthread_create(&th, NULL, enter_main, &stopped);
    wait_waiting(a, 1);
    int64_t t1 = now_ms();
    stop = 1;
    pthread_join(th, NULL);
    ASSERT_EQ_INT(stopped.rc, -1);
    ASSERT(stopped.returned_ms - t1 < 2500);
    /* and at once when the queue is woken (the daemon stops: mg_admit_wake) */
    volatile int stop2 = 0;
    struct entrant woken = {.a = a, .stop = &stop2};
    pthread_create(&th, NULL, enter_main, &woken);
    wait_waiting(a, 1);
    usleep(20 * 1000); /* asleep in its wait */
    int64_t t2 = now_ms();
    stop2 = 1;
    mg_admit_wake(a);
    pthread_join(th, NULL);
    ASSERT_EQ_INT(woken.rc, -1);
    ASSERT(woken.returned_ms - t2 < 500);
    struct mg_admit_stats s = stats_of(a);
    ASSERT_EQ_INT(s.waiting, 0);
    ASSERT_EQ_INT(s.gave_up, 3);
    ASSERT_EQ_INT(s.running, 1);
    /* the place they never had is not given back for them: the next one enters when the holder leaves */
    mg_admit_leave(a, &h);
    ASSERT_EQ_INT(stats_of(a).running, 0);
    ASSERT_EQ_INT(mg_admit_enter(a, &h, now_ms() + 10, NULL), 0);
    mg_admit_leave(a, &h);
    mg_admit_free(a);
}

TEST(admit_a_holder_past_long_ms_no_longer_holds_up_the_queue)
{
    struct mg_admit *a = mg_admit_new(1, 80);
    struct mg_admit_ticket slow;
    ASSERT_EQ_INT(mg_admit_enter(a, &slow, 0, NULL), 0);
    int64_t t0 = now_ms();
    /* (deadlines: a queue whose timer never passes the holder fails here rather than hangs) */
    struct entrant next = {.a = a, .hold_ms = 0, .deadline_ms = t0 + 5000};
    struct entrant after = {.a = a, .hold_ms = 0, .deadline_ms = t0 + 5000};
    pthread_t th1, th2;
    pthread_create(&th1, NULL, enter_main, &next);
    wait_waiting(a, 1);
    pthread_create(&th2, NULL, enter_main, &after);
    /* the slow holder never leaves while they wait: both get in, the first after ~80 ms */
    pthread_join(th1, NULL);
    pthread_join(th2, NULL);
    ASSERT_EQ_INT(next.rc, 0);
    ASSERT_EQ_INT(after.rc, 0);
    ASSERT(next.returned_ms - t0 >= 75);
    ASSERT(next.returned_ms - t0 < 1000); /* the queue's timer passes it, not a waiter's next look */
    struct mg_admit_stats s = stats_of(a);
    ASSERT_EQ_INT(s.outlived, 1);
    ASSERT_EQ_INT(s.running, 0); /* the two counted ones left; the slow one counts no more */
    /* /metrics names the queue's own threshold */
    struct mg_buf m;
    mg_buf_init(&m, 1 << 20);
    struct mg_gauges g = {.reads = &s};
    ASSERT_EQ_INT(mg_metrics_render(&m, &g), 0);
    ASSERT_CONTAINS(m.p, "Reads that ran past 80 ms and let the next one start beside them.\n");
    ASSERT_CONTAINS(m.p, "memgate_read_queue_outlived_total 1\n");
    mg_buf_release(&m);
    mg_admit_leave(a, &slow);
    s = stats_of(a);
    ASSERT_EQ_INT(s.running, 0);
    /* and the place is whole: one enters, a second waits */
    struct mg_admit_ticket t;
    ASSERT_EQ_INT(mg_admit_enter(a, &t, 0, NULL), 0);
    struct entrant third = {.a = a, .deadline_ms = now_ms() + 30};
    pthread_create(&th1, NULL, enter_main, &third);
    pthread_join(th1, NULL);
    ASSERT_EQ_INT(third.rc, -1);
    mg_admit_leave(a, &t);
    mg_admit_free(a);
}

struct searcher {
    struct mg_t_srv *t;
    json_t *r;
    char code[64];
    int64_t returned_ms;
};

static void *search_main(void *arg)
{
    struct searcher *s = arg;
    s->r = mg_t_call(s->t, "search_code", "{\"query\":\"turnstile_marker\"}", s->code);
    s->returned_ms = now_ms();
    mg_request_thread_done();
    return NULL;
}

/* repo indexed as `name` into home, and a server on home whose read queue has `places` places */
static void serve_indexed(struct mg_t_srv *t, char *home, char *repo, const char *name, unsigned places)
{
    struct mg_t_out o = MG_RUN(repo, home, "index", repo, "--name", name, "--quiet");
    ASSERT_EQ_INT(o.status, 0);
    mg_t_out_free(&o);
    mg_t_srv_open(t, home, "local", MG_LEVEL_ADMIN);
    ASSERT(t->srv.reads); /* twice the cores by default */
    mg_admit_free(t->srv.reads);
    t->srv.reads = mg_admit_new(places, MG_READ_LONG_MS);
}

/* A search waits while the server's read places are taken, and runs when one is given back;
 * the request's place is given back when it is released (the next one is let in). */
TEST(a_search_waits_its_turn_in_the_read_queue)
{
    setenv("MEMGATE_EMBEDDER", "none", 1);
    char *home = mg_t_tmpdir(), *repo = mg_t_tmpdir();
    mg_t_write_str(repo, "a.c", "int turnstile_marker(void) { return 1; }\n");
    struct mg_t_srv t;
    serve_indexed(&t, home, repo, "turn", 1);
    struct mg_admit_stats st;
    mg_admit_stats(t.srv.reads, &st);
    ASSERT_EQ_INT(st.limit, 1);
    struct mg_admit_ticket mine;
    ASSERT_EQ_INT(mg_admit_enter(t.srv.reads, &mine, 0, NULL), 0);
    struct searcher s = {.t = &t};
    pthread_t th;
    pthread_create(&th, NULL, search_main, &s);
    wait_waiting(t.srv.reads, 1); /* the search is queued behind the place taken here */
    int64_t given = now_ms();
    mg_admit_leave(t.srv.reads, &mine);
    pthread_join(th, NULL);
    ASSERT(s.r);
    ASSERT(s.returned_ms >= given);
    char *text = json_dumps(s.r, 0);
    json_decref(s.r);
    ASSERT_CONTAINS(text, "turnstile_marker");
    free(text);
    mg_admit_stats(t.srv.reads, &st);
    ASSERT_EQ_INT(st.running, 0); /* the search's place came back with its request */
    ASSERT_EQ_INT(st.queued, 1);
    mg_t_srv_close(&t);
    unsetenv("MEMGATE_EMBEDDER");
}

/* get_context runs its parts on threads of their own, several of them index reads of one request:
 * the request takes one place, once, whichever part comes first (two parts entering with the one
 * ticket linked it into the holders twice and left a place taken for good: CI, 2026-12-02). The
 * race is the threads' to win: 400 calls here lost it in 2 runs of 3 without the gate's read_mu. */
TEST(a_context_s_parallel_parts_take_one_read_place)
{
    setenv("MEMGATE_EMBEDDER", "none", 1);
    char *home = mg_t_tmpdir(), *repo = mg_t_tmpdir();
    mg_t_write_str(repo, "rotate.c", "int rotate_key_ring(int ring) { return ring + 1; }\n");
    mg_t_write_str(repo, "token.c", "int token_rotation_window(void) { return 30; }\n");
    struct mg_t_srv t;
    serve_indexed(&t, home, repo, "ctx", 4);
    for (int i = 0; i < 400; i++) {
        char code[64];
        json_t *r = mg_t_call(&t, "get_context", "{\"prompt\":\"rotation of the key ring token window\"}", code);
        ASSERT(r);
        json_decref(r);
        struct mg_admit_stats st = stats_of(t.srv.reads);
        ASSERT_EQ_INT(st.running, 0); /* every place came back with its request */
        ASSERT_EQ_INT(st.waiting, 0);
    }
    /* and the queue is whole: four places, no more */
    struct mg_admit_ticket k[4];
    for (int i = 0; i < 4; i++) ASSERT_EQ_INT(mg_admit_enter(t.srv.reads, &k[i], 0, NULL), 0);
    struct mg_admit_ticket fifth;
    ASSERT_EQ_INT(mg_admit_enter(t.srv.reads, &fifth, now_ms() + 20, NULL), -1);
    for (int i = 0; i < 4; i++) mg_admit_leave(t.srv.reads, &k[i]);
    ASSERT_EQ_INT(stats_of(t.srv.reads).running, 0);
    mg_t_srv_close(&t);
    unsetenv("MEMGATE_EMBEDDER");
}
