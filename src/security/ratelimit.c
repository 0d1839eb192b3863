/* ratelimit.c — per-token rate limits (ratelimit.h): a token bucket per key,
 * in this process's memory, or with storage = postgres://... in the shared
 * table rate_buckets (pgschema.c, step 0003_tokens), one statement per
 * request.
 *
 * Sections:
 *   1. buckets
 *   2. in this process
 *   3. in PostgreSQL
 *   4. the check
 */
#include "security/ratelimit.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "store/pg.h"
#include "store/sql.h"
#include "util/clock.h"

/* ---- 1. buckets ------------------------------------------------------------------------- */

#define RL_SLOTS 4096

struct rl_bucket {
    struct rl_bucket *next;
    double tokens;
    int64_t last_ms;
    int rate;
    char key[];
};

struct mg_ratelimit {
    pthread_mutex_t mu;
    mg_clock_ms_fn clock;
    void *clock_arg;
    size_t max, n;
    struct rl_bucket *slot[RL_SLOTS];
    struct mg_config *cfg; /* PostgreSQL: the buckets are rate_buckets, shared by every daemon */
    int64_t swept_ms;      /* PostgreSQL: the last sweep (monotonic) */
};

static double burst_of(int rate)
{
    return rate / 6 > 10 ? (double)(rate / 6) : 10.0;
}

/* The bucket's level at now (not stored). */
static double level_at(const struct rl_bucket *b, int64_t now)
{
    int64_t dt = now > b->last_ms ? now - b->last_ms : 0;
    double v = b->tokens + (double)dt * b->rate / 60000.0;
    double cap = burst_of(b->rate);
    return v > cap ? cap : v;
}

/* The whole seconds until a bucket at level (< 1) has one request. */
static int wait_s(double level, int rate_per_min)
{
    double ms = (1.0 - level) * 60000.0 / rate_per_min;
    int s = (int)ceil(ms / 1000.0);
    return s < 1 ? 1 : s;
}

static int64_t mono_ms(void *arg)
{
    (void)arg;
    return (int64_t)mg_clock_ms();
}

struct mg_ratelimit *mg_ratelimit_new(mg_clock_ms_fn clock, void *clock_arg, size_t max_keys)
{
    struct mg_ratelimit *rl = calloc(1, sizeof(*rl));
    if (!rl) return NULL;
    pthread_mutex_init(&rl->mu, NULL);
    rl->clock = clock ? clock : mono_ms;
    rl->clock_arg = clock_arg;
    rl->max = max_keys ? max_keys : 65536;
    return rl;
}

void mg_ratelimit_free(struct mg_ratelimit *rl)
{
    if (!rl) return;
    for (size_t i = 0; i < RL_SLOTS; i++) {
        for (struct rl_bucket *b = rl->slot[i], *nx; b; b = nx) {
            nx = b->next;
            free(b);
        }
    }
    free(rl->cfg);
    pthread_mutex_destroy(&rl->mu);
    free(rl);
}

int mg_ratelimit_open(const struct mg_config *c, struct mg_ratelimit **out, struct mg_err *err)
{
    if (!(*out = mg_ratelimit_new(NULL, NULL, 0)))
        return mg_err_set(err, MG_E_NO_MEMORY, "out of memory creating the rate limiter");
    if (!mg_pg_configured(c)) return 0;
    if (!((*out)->cfg = malloc(sizeof(*c)))) {
        mg_ratelimit_free(*out);
        *out = NULL;
        return mg_err_set(err, MG_E_NO_MEMORY, "out of memory creating the rate limiter");
    }
    *(*out)->cfg = *c;
    return 0;
}

size_t mg_ratelimit_size(struct mg_ratelimit *rl)
{
    pthread_mutex_lock(&rl->mu);
    size_t n = rl->n;
    pthread_mutex_unlock(&rl->mu);
    return n;
}

/* ---- 2. in this process ----------------------------------------------------------------- */

static size_t rl_hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return (size_t)(h % RL_SLOTS);
}

/* Drop every full bucket; if none was full, the longest idle one. */
static void rl_evict(struct mg_ratelimit *rl, int64_t now)
{
    for (size_t i = 0; i < RL_SLOTS; i++) {
        for (struct rl_bucket **pb = &rl->slot[i]; *pb;) {
            struct rl_bucket *b = *pb;
            if (level_at(b, now) >= burst_of(b->rate)) {
                *pb = b->next;
                free(b);
                rl->n--;
            } else {
                pb = &b->next;
            }
        }
    }
    if (rl->n < rl->max) return;
    struct rl_bucket **oldest = NULL;
    for (size_t i = 0; i < RL_SLOTS; i++)
        for (struct rl_bucket **pb = &rl->slot[i]; *pb; pb = &(*pb)->next)
            if (!oldest || (*pb)->last_ms < (*oldest)->last_ms) oldest = pb;
    if (oldest) {
        struct rl_bucket *b = *oldest;
        *oldest = b->next;
        free(b);
        rl->n--;
    }
}

/* This process's bucket of key. */
static bool mem_take(struct mg_ratelimit *rl, const char *key, int rate_per_min, int *retry_after_s)
{
    pthread_mutex_lock(&rl->mu);
    int64_t now = rl->clock(rl->clock_arg);
    size_t h = rl_hash(key);
    struct rl_bucket *b = rl->slot[h];
    while (b && strcmp(b->key, key) != 0) b = b->next;
    if (!b) {
        if (rl->n >= rl->max) rl_evict(rl, now);
        size_t kl = strlen(key);
        b = malloc(sizeof(*b) + kl + 1);
        if (!b) {
            /* out of memory: refuse rather than let an unlimited stream through */
            pthread_mutex_unlock(&rl->mu);
            if (retry_after_s) *retry_after_s = 1;
            return false;
        }
        memcpy(b->key, key, kl + 1);
        b->rate = rate_per_min;
        b->tokens = burst_of(rate_per_min);
        b->last_ms = now;
        b->next = rl->slot[h];
        rl->slot[h] = b;
        rl->n++;
    }
    if (b->rate != rate_per_min) { /* the token's rate changed: keep what is left, within the new burst */
        b->tokens = level_at(b, now);
        b->last_ms = now > b->last_ms ? now : b->last_ms;
        b->rate = rate_per_min;
        if (b->tokens > burst_of(b->rate)) b->tokens = burst_of(b->rate);
    }
    b->tokens = level_at(b, now);
    if (now > b->last_ms) b->last_ms = now;
    bool ok = b->tokens >= 1.0;
    if (ok) {
        b->tokens -= 1.0;
    } else if (retry_after_s) {
        *retry_after_s = wait_s(b->tokens, rate_per_min);
    }
    pthread_mutex_unlock(&rl->mu);
    return ok;
}

/* ---- 3. in PostgreSQL ------------------------------------------------------------------- */

/* PostgreSQL: the shared bucket of key, in one statement. The bucket is
 * refilled for the time since `at` at the rate it had (capped at its old
 * and its new burst), one request taken if one is there; a new key starts
 * full (burst - 1 after this request). Times are the database's clock
 * (clock_timestamp(): now, not the transaction's start), so the daemons'
 * clocks do not matter; greatest() keeps `at` from going back when two
 * statements cross. The row lock serialises concurrent takes of one key:
 * together they never take more than the bucket holds. */
#define RL_LEVEL                                                                                                     \
    "least(?3::float8, greatest(b.rate / 6, 10)::float8,"                                                            \
    "      b.level + greatest(0::float8, excluded.at - b.at) * b.rate::float8 / 60)"
static const char RL_TAKE[] =
    "INSERT INTO rate_buckets AS b(key, level, at, rate, took) "
    "VALUES(?1, ?3::float8 - 1, extract(epoch FROM clock_timestamp()), ?2::int, 1) "
    "ON CONFLICT(key) DO UPDATE SET "
    "  level = " RL_LEVEL " - CASE WHEN " RL_LEVEL " >= 1 THEN 1 ELSE 0 END,"
    "  took = CASE WHEN " RL_LEVEL " >= 1 THEN 1 ELSE 0 END,"
    "  at = greatest(b.at, excluded.at), rate = excluded.rate "
    "RETURNING took, level";

#define RL_SWEEP_MS 60000

int mg_ratelimit_sweep(struct mg_ratelimit *rl, int64_t *removed, struct mg_err *err)
{
    if (removed) *removed = 0;
    if (!rl->cfg) return 0;
    struct mg_pg *pool;
    struct mg_sql *c;
    if (mg_pg_get(rl->cfg, NULL, &pool, &c, err) != 0) return -1;
    /* a bucket idle long enough to be full again is the same as none (a new key starts full) */
    int rc = mg_sql_runf(c, removed, err,
                         "DELETE FROM rate_buckets WHERE at + greatest(rate / 6, 10)::float8 * 60 / greatest(rate, 1) "
                         "<= extract(epoch FROM clock_timestamp())", "");
    mg_pg_put(pool, &c);
    return rc;
}

static int pg_take(struct mg_ratelimit *rl, const char *key, int rate_per_min, int *retry_after_s,
                   struct mg_err *err)
{
    struct mg_pg *pool;
    struct mg_sql *c;
    if (mg_pg_get(rl->cfg, NULL, &pool, &c, err) != 0) return -1;
    struct mg_sql_st *st;
    int rc = mg_sql_prepare(c, RL_TAKE, &st, err);
    if (rc == 0) {
        mg_sql_bind_text(st, 1, key);
        mg_sql_bind_int(st, 2, rate_per_min);
        mg_sql_bind_double(st, 3, burst_of(rate_per_min));
        int s = mg_sql_step(st, err);
        if (s == 1) {
            rc = mg_sql_int(st, 0) ? 1 : 0;
            if (rc == 0 && retry_after_s) *retry_after_s = wait_s(mg_sql_double(st, 1), rate_per_min);
        } else {
            rc = s < 0 ? -1 : mg_err_set(err, MG_E_DB, "rate limit: the bucket statement returned no row");
        }
        mg_sql_finalize(&st);
    }
    mg_pg_put(pool, &c);
    /* now and then (once a minute per process), forget buckets that are full again */
    int64_t now = mono_ms(NULL);
    pthread_mutex_lock(&rl->mu);
    bool sweep = rc >= 0 && now - rl->swept_ms >= RL_SWEEP_MS;
    if (sweep) rl->swept_ms = now;
    pthread_mutex_unlock(&rl->mu);
    if (sweep) {
        struct mg_err ignored = {0};
        mg_ratelimit_sweep(rl, NULL, &ignored); /* best effort: the next sweep does it */
    }
    return rc;
}

/* ---- 4. the check ----------------------------------------------------------------------- */

int mg_rate_check(struct mg_ratelimit *rl, const char *key, int rate_per_min, int *retry_after_s,
                  struct mg_err *err)
{
    if (retry_after_s) *retry_after_s = 0;
    if (rate_per_min <= 0) return 1;
    if (rl->cfg) return pg_take(rl, key, rate_per_min, retry_after_s, err);
    return mem_take(rl, key, rate_per_min, retry_after_s) ? 1 : 0;
}

bool mg_rate_take(struct mg_ratelimit *rl, const char *key, int rate_per_min, int *retry_after_s)
{
    struct mg_err err = {0};
    int rc = mg_rate_check(rl, key, rate_per_min, retry_after_s, &err);
    if (rc < 0 && retry_after_s) *retry_after_s = 1; /* the store failed: refused, never unlimited */
    return rc == 1;
}
