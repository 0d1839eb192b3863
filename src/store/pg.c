/* pg.c — see pg.h.
 *
 * Sections:
 *   1. URLs
 *   2. connections
 *   3. the pool (and the process's pools)
 *   4. the schema
 *   5. LISTEN/NOTIFY
 */
#include "store/pg.h"

#include <errno.h>
#include <libpq-fe.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/metrics.h"
#include "util/version.h"

/* ---- 1. URLs ------------------------------------------------------------------------------------ */

bool mg_pg_configured(const struct mg_config *c)
{
    return strncmp(c->storage, "postgres://", 11) == 0 || strncmp(c->storage, "postgresql://", 13) == 0;
}

void mg_pg_url_safe(const char *url, char *out, size_t cap)
{
    snprintf(out, cap, "%s", url);
    /* scheme://user:PASS@host */
    char *p = strstr(out, "://");
    if (p) {
        char *at = strchr(p + 3, '@'), *colon = strchr(p + 3, ':');
        char *slash = strchr(p + 3, '/');
        if (at && colon && colon < at && (!slash || at < slash)) {
            char rest[1024];
            snprintf(rest, sizeof(rest), "%s", at);
            snprintf(colon, cap - (size_t)(colon - out), ":***%s", rest);
        }
    }
    /* ?password=PASS&... */
    for (char *q = out; (q = strstr(q, "password=")) != NULL;) {
        if (q != out && q[-1] != '?' && q[-1] != '&') {
            q += 9;
            continue;
        }
        char *v = q + 9, *end = strchr(v, '&');
        char rest[1024];
        snprintf(rest, sizeof(rest), "%s", end ? end : "");
        snprintf(v, cap - (size_t)(v - out), "***%s", rest);
        q = v + 3;
    }
}

/* ---- 2. connections ---------------------------------------------------------------------------- */

struct mg_pg {
    char url[1024];
    char safe[1024];             /* for messages */
    int max, timeout_s, stmt_timeout_s;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct slot {
        struct mg_sql *c;        /* NULL: not open */
        bool busy;
        char tenant[65];         /* memgate.tenant as set on it */
    } *slots;
    int64_t failed_at_ms;        /* the last failed connect (MG_PG_BACKOFF_MS) */
    char failed_msg[300];
    bool migrated;
};

static void notice_quiet(void *arg, const char *message)
{
    (void)arg, (void)message; /* NOTICEs (e.g. "relation already exists, skipping") are not memgate's to print */
}

/* A new connection to p's database, or NULL with err. */
static struct mg_sql *connect_one(struct mg_pg *p, struct mg_err *err)
{
    char ct[16], opts[96];
    snprintf(ct, sizeof(ct), "%d", p->timeout_s);
    snprintf(opts, sizeof(opts), "-c statement_timeout=%d -c lock_timeout=%d", p->stmt_timeout_s * 1000,
             p->stmt_timeout_s * 1000);
    const char *const keys[] = {"dbname", "connect_timeout", "application_name", "options", NULL};
    const char *const vals[] = {p->url, ct, "memgate", opts, NULL};
    PGconn *pg = PQconnectdbParams(keys, vals, 1);
    if (!pg) {
        mg_err_set(err, MG_E_STORAGE_UNAVAILABLE, "cannot connect to PostgreSQL at %s: out of memory, or libpq is "
                   "not installed (apt-get install libpq5)", p->safe);
        return NULL;
    }
    if (PQstatus(pg) != CONNECTION_OK) {
        char msg[300];
        snprintf(msg, sizeof(msg), "%s", PQerrorMessage(pg));
        msg[strcspn(msg, "\n")] = 0;
        PQfinish(pg);
        mg_err_set(err, MG_E_STORAGE_UNAVAILABLE, "cannot connect to PostgreSQL at %s: %s; start it or check "
                   "storage (retry shortly)", p->safe, msg[0] ? msg : "no answer");
        return NULL;
    }
    PQsetNoticeProcessor(pg, notice_quiet, NULL);
    struct mg_sql *c = mg_sql_pg_wrap(pg, "the PostgreSQL database");
    if (!c) mg_err_oom(err);
    return c;
}

/* Set memgate.tenant on c (row-level security), if it is not already. */
static int set_tenant(struct slot *s, const char *tenant, struct mg_err *err)
{
    if (strcmp(s->tenant, tenant) == 0) return 0;
    s->tenant[0] = 0;
    if (mg_sql_runf(s->c, NULL, err, "SELECT set_config('memgate.tenant', ?, false)", "s", tenant) != 0) return -1;
    snprintf(s->tenant, sizeof(s->tenant), "%s", tenant);
    return 0;
}

/* ---- 3. the pool ----------------------------------------------------------------------------------- */

static int migrate(struct mg_pg *p, struct mg_sql *c, struct mg_err *err);
static int check_role(struct mg_pg *p, struct mg_sql *c, struct mg_err *err);

static pthread_mutex_t pools_mu = PTHREAD_MUTEX_INITIALIZER;
static struct mg_pg **pools;
static size_t npools;

static void pool_free(struct mg_pg *p)
{
    for (int i = 0; i < p->max; i++) mg_sql_close(&p->slots[i].c);
    free(p->slots);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    free(p);
}

int mg_pg_pool(const struct mg_config *c, struct mg_pg **out, struct mg_err *err)
{
    *out = NULL;
    if (!mg_pg_configured(c))
        return mg_err_set(err, MG_E_CONFIG, "storage is '%s', not a postgres:// URL", c->storage);
    pthread_mutex_lock(&pools_mu);
    for (size_t i = 0; i < npools; i++)
        if (strcmp(pools[i]->url, c->storage) == 0) {
            *out = pools[i];
            break;
        }
    if (!*out) {
        struct mg_pg *p = calloc(1, sizeof(*p));
        struct mg_pg **v = realloc(pools, (npools + 1) * sizeof(*v));
        if (v) pools = v;
        if (p) p->slots = calloc((size_t)(c->storage_pool_max > 0 ? c->storage_pool_max : 8), sizeof(*p->slots));
        if (!p || !v || !p->slots) {
            if (p) free(p->slots);
            free(p);
            pthread_mutex_unlock(&pools_mu);
            return mg_err_oom(err);
        }
        snprintf(p->url, sizeof(p->url), "%s", c->storage);
        mg_pg_url_safe(c->storage, p->safe, sizeof(p->safe));
        p->max = c->storage_pool_max > 0 ? c->storage_pool_max : 8;
        p->timeout_s = c->storage_timeout > 0 ? c->storage_timeout : 5;
        p->stmt_timeout_s = c->storage_statement_timeout > 0 ? c->storage_statement_timeout : 30;
        pthread_mutex_init(&p->mu, NULL);
        pthread_cond_init(&p->cv, NULL);
        pools[npools++] = p;
        *out = p;
    }
    pthread_mutex_unlock(&pools_mu);
    /* the schema, once per pool: by the first caller that gets a connection */
    struct mg_pg *p = *out;
    pthread_mutex_lock(&p->mu);
    bool done = p->migrated;
    pthread_mutex_unlock(&p->mu);
    if (done) return 0;
    struct mg_sql *conn;
    if (mg_pg_acquire(p, NULL, &conn, err) != 0) return -1;
    int rc = check_role(p, conn, err) == 0 && migrate(p, conn, err) == 0 ? 0 : -1;
    mg_pg_put(p, &conn);
    if (rc == 0) {
        pthread_mutex_lock(&p->mu);
        p->migrated = true;
        pthread_mutex_unlock(&p->mu);
    }
    return rc;
}

static void deadline_ts(struct timespec *ts, int seconds)
{
    clock_gettime(CLOCK_REALTIME, ts);
    ts->tv_sec += seconds;
}

int mg_pg_acquire(struct mg_pg *p, const char *tenant, struct mg_sql **out, struct mg_err *err)
{
    *out = NULL;
    if (!tenant) tenant = "";
    struct timespec until;
    deadline_ts(&until, p->timeout_s);
    pthread_mutex_lock(&p->mu);
    for (;;) {
        /* an idle open connection, one already set for this tenant first */
        int pick = -1, empty = -1;
        for (int i = 0; i < p->max; i++) {
            struct slot *s = &p->slots[i];
            if (s->busy) continue;
            if (!s->c) {
                if (empty < 0) empty = i;
                continue;
            }
            if (pick < 0 || strcmp(s->tenant, tenant) == 0) pick = i;
            if (strcmp(s->tenant, tenant) == 0) break;
        }
        if (pick >= 0) {
            struct slot *s = &p->slots[pick];
            s->busy = true;
            pthread_mutex_unlock(&p->mu);
            if (set_tenant(s, tenant, err) == 0) {
                *out = s->c;
                return 0;
            }
            pthread_mutex_lock(&p->mu);
            if (mg_sql_broken(s->c)) mg_sql_close(&s->c); /* lost while idle: open another */
            s->busy = false;
            pthread_cond_signal(&p->cv);
            if (err->code && strcmp(err->code, MG_E_STORAGE_UNAVAILABLE) != 0) break;
            continue;
        }
        if (empty >= 0) {
            int64_t now = (int64_t)mg_clock_ms();
            if (p->failed_at_ms && now - p->failed_at_ms < MG_PG_BACKOFF_MS) {
                mg_err_set(err, MG_E_STORAGE_UNAVAILABLE, "%s", p->failed_msg);
                mg_metrics_storage_error(err->code);
                break;
            }
            struct slot *s = &p->slots[empty];
            s->busy = true;
            pthread_mutex_unlock(&p->mu);
            struct mg_sql *c = connect_one(p, err);
            pthread_mutex_lock(&p->mu);
            if (!c) {
                mg_metrics_storage_error(err->code);
                s->busy = false;
                p->failed_at_ms = (int64_t)mg_clock_ms();
                snprintf(p->failed_msg, sizeof(p->failed_msg), "%s", err->msg);
                pthread_cond_signal(&p->cv);
                break;
            }
            p->failed_at_ms = 0;
            s->c = c;
            s->tenant[0] = 0;
            pthread_mutex_unlock(&p->mu);
            if (set_tenant(s, tenant, err) == 0) {
                *out = s->c;
                return 0;
            }
            pthread_mutex_lock(&p->mu);
            mg_sql_close(&s->c);
            s->busy = false;
            pthread_cond_signal(&p->cv);
            break;
        }
        if (pthread_cond_timedwait(&p->cv, &p->mu, &until) == ETIMEDOUT) {
            mg_err_set(err, MG_E_STORAGE_UNAVAILABLE, "no PostgreSQL connection came free in %d s (all %d of "
                       "storage_pool_max in use); retry, or raise storage_pool_max", p->timeout_s, p->max);
            mg_metrics_storage_error(err->code);
            break;
        }
    }
    pthread_mutex_unlock(&p->mu);
    return -1;
}

void mg_pg_put(struct mg_pg *p, struct mg_sql **pc)
{
    struct mg_sql *c = *pc;
    if (!c) return;
    *pc = NULL;
    if (!mg_sql_broken(c) && PQtransactionStatus(mg_sql_pg_conn(c)) != PQTRANS_IDLE) mg_sql_rollback(c);
    pthread_mutex_lock(&p->mu);
    for (int i = 0; i < p->max; i++) {
        struct slot *s = &p->slots[i];
        if (s->c != c) continue;
        if (mg_sql_broken(c) || PQstatus(mg_sql_pg_conn(c)) != CONNECTION_OK) mg_sql_close(&s->c);
        s->busy = false;
        break;
    }
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

int mg_pg_get(const struct mg_config *c, const char *tenant, struct mg_pg **pool, struct mg_sql **out,
              struct mg_err *err)
{
    *out = NULL;
    if (mg_pg_pool(c, pool, err) != 0) return -1;
    return mg_pg_acquire(*pool, tenant, out, err);
}

int mg_pg_ping(struct mg_pg *p, struct mg_err *err)
{
    struct mg_sql *c;
    if (mg_pg_acquire(p, NULL, &c, err) != 0) return -1;
    int rc = mg_sql_exec(c, "SELECT 1", err);
    mg_pg_put(p, &c);
    return rc;
}

void mg_pg_counts(struct mg_pg *p, int *open, int *busy)
{
    *open = *busy = 0;
    pthread_mutex_lock(&p->mu);
    for (int i = 0; i < p->max; i++) {
        if (p->slots[i].c) (*open)++;
        if (p->slots[i].c && p->slots[i].busy) (*busy)++;
    }
    pthread_mutex_unlock(&p->mu);
}

void mg_pg_close_all(void)
{
    pthread_mutex_lock(&pools_mu);
    for (size_t i = 0; i < npools; i++) pool_free(pools[i]);
    free(pools);
    pools = NULL;
    npools = 0;
    pthread_mutex_unlock(&pools_mu);
}

/* ---- 4. the schema ------------------------------------------------------------------------------- */

/* Row-level security only binds a role that is neither a superuser nor BYPASSRLS. */
static int check_role(struct mg_pg *p, struct mg_sql *c, struct mg_err *err)
{
    struct mg_sql_st *st;
    if (mg_sql_prepare(c, "SELECT rolsuper::int, rolbypassrls::int, current_user FROM pg_roles "
                          "WHERE rolname = current_user", &st, err) != 0)
        return -1;
    int rc = mg_sql_step(st, err);
    if (rc == 1 && (mg_sql_int(st, 0) || mg_sql_int(st, 1))) {
        mg_err_set(err, MG_E_CONFIG, "storage: PostgreSQL role '%.64s' is a superuser or has BYPASSRLS, so the "
                   "tenant policies would not bind it; connect as a plain role that owns the database "
                   "(docs/deploy.md: CREATE ROLE memgate LOGIN; CREATE DATABASE memgate OWNER memgate)",
                   mg_sql_text(st, 2));
        rc = -1;
    } else if (rc == 1) {
        rc = 0;
    } else if (rc == 0) {
        rc = mg_err_set(err, MG_E_DB, "storage: the current role is not in pg_roles");
    }
    mg_sql_finalize(&st);
    (void)p;
    return rc;
}

#define MIGRATE_LOCK "7160231953117201"  /* pg_advisory_xact_lock key: "memgate migrate" */

static int migrate(struct mg_pg *p, struct mg_sql *c, struct mg_err *err)
{
    if (mg_sql_begin(c, true, err) != 0) return -1;
    if (mg_sql_exec(c, "SELECT pg_advisory_xact_lock(" MIGRATE_LOCK ");"
                       "CREATE TABLE IF NOT EXISTS memgate_migrations(name text PRIMARY KEY,"
                       "  applied_at bigint NOT NULL, version text NOT NULL)", err) != 0)
        goto fail;
    /* what is there: every step must be one this memgate knows */
    struct mg_sql_st *st;
    if (mg_sql_prepare(c, "SELECT name FROM memgate_migrations ORDER BY name", &st, err) != 0) goto fail;
    size_t have = 0;
    int r;
    while ((r = mg_sql_step(st, err)) == 1) {
        const char *name = mg_sql_text(st, 0);
        bool known = false;
        for (size_t i = 0; i < mg_pg_nsteps && !known; i++) known = strcmp(mg_pg_steps[i].name, name) == 0;
        if (!known) {
            mg_err_set(err, MG_E_SCHEMA, "the PostgreSQL database at %s was migrated by a newer memgate (schema "
                       "step '%.64s' is unknown to this one); upgrade memgate on this machine", p->safe, name);
            mg_metrics_storage_error(err->code);
            mg_sql_finalize(&st);
            goto fail;
        }
        have++;
    }
    mg_sql_finalize(&st);
    if (r < 0) goto fail;
    for (size_t i = 0; i < mg_pg_nsteps; i++) {
        int64_t n = 0;
        if (mg_sql_prepare(c, "SELECT count(*) FROM memgate_migrations WHERE name = ?", &st, err) != 0) goto fail;
        mg_sql_bind_text(st, 1, mg_pg_steps[i].name);
        if ((r = mg_sql_step(st, err)) == 1) n = mg_sql_int(st, 0);
        mg_sql_finalize(&st);
        if (r < 0) goto fail;
        if (n) continue;
        if (mg_sql_exec(c, mg_pg_steps[i].sql, err) != 0 ||
            mg_sql_runf(c, NULL, err, "INSERT INTO memgate_migrations(name, applied_at, version) VALUES(?, ?, ?)",
                        "sis", mg_pg_steps[i].name, (int64_t)time(NULL), MG_VERSION) != 0) {
            char msg[sizeof(err->msg)];
            snprintf(msg, sizeof(msg), "%s", err->msg);
            mg_err_set(err, err->code, "migrating the PostgreSQL schema (step %s): %s", mg_pg_steps[i].name, msg);
            goto fail;
        }
    }
    return mg_sql_commit(c, err);
fail:
    mg_sql_rollback(c);
    return -1;
}

/* ---- 5. LISTEN/NOTIFY ----------------------------------------------------------------------------- */

struct mg_pg_listener {
    struct mg_pg *p;
    char channels[8][64];
    size_t n;
    void (*fn)(void *ud, const char *channel, const char *payload);
    void *ud;
    pthread_t th;
    int wake[2]; /* a byte here stops the thread */
    volatile int stop;
};

static bool channel_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 63) return false;
    return strspn(s, "abcdefghijklmnopqrstuvwxyz_") == n;
}

/* Wait up to ms for the stop byte; true when asked to stop. */
static bool nap(struct mg_pg_listener *l, int ms)
{
    struct pollfd f = {l->wake[0], POLLIN, 0};
    poll(&f, 1, ms);
    return l->stop;
}

static void *listen_main(void *arg)
{
    struct mg_pg_listener *l = arg;
    int backoff = 200;
    while (!l->stop) {
        struct mg_err e = {0};
        struct mg_sql *c = connect_one(l->p, &e);
        if (!c) {
            if (nap(l, backoff)) break;
            backoff = backoff * 2 > 2000 ? 2000 : backoff * 2;
            continue;
        }
        bool ok = true;
        for (size_t i = 0; ok && i < l->n; i++) {
            char sql[96];
            snprintf(sql, sizeof(sql), "LISTEN %s", l->channels[i]);
            ok = mg_sql_exec(c, sql, &e) == 0;
        }
        if (!ok) {
            mg_sql_close(&c);
            if (nap(l, backoff)) break;
            continue;
        }
        backoff = 200;
        l->fn(l->ud, NULL, NULL); /* (re)connected: whatever was sent meanwhile is lost */
        PGconn *pg = mg_sql_pg_conn(c);
        while (!l->stop) {
            struct pollfd f[2] = {{PQsocket(pg), POLLIN, 0}, {l->wake[0], POLLIN, 0}};
            int r = poll(f, 2, 1000);
            if (r < 0 && errno != EINTR) break;
            if (l->stop) break;
            if (r > 0 && (f[0].revents & (POLLIN | POLLERR | POLLHUP)) && !PQconsumeInput(pg)) break;
            PGnotify *n;
            while ((n = PQnotifies(pg)) != NULL) {
                l->fn(l->ud, n->relname, n->extra ? n->extra : "");
                PQfreemem(n);
            }
            if (PQstatus(pg) != CONNECTION_OK) break;
        }
        mg_sql_close(&c);
        if (!l->stop && nap(l, backoff)) break;
    }
    return NULL;
}

int mg_pg_listen(struct mg_pg *p, const char *const *channels, size_t n,
                 void (*fn)(void *ud, const char *channel, const char *payload), void *ud,
                 struct mg_pg_listener **out, struct mg_err *err)
{
    *out = NULL;
    if (n == 0 || n > 8) return mg_err_set(err, MG_E_BAD_ARG, "listen to 1 to 8 channels, not %zu", n);
    struct mg_pg_listener *l = calloc(1, sizeof(*l));
    if (!l) return mg_err_oom(err);
    for (size_t i = 0; i < n; i++) {
        if (!channel_ok(channels[i])) {
            free(l);
            return mg_err_set(err, MG_E_BAD_ARG, "a channel name is 1-63 of a-z and _");
        }
        snprintf(l->channels[i], sizeof(l->channels[i]), "%s", channels[i]);
    }
    l->n = n;
    l->p = p;
    l->fn = fn;
    l->ud = ud;
    if (pipe(l->wake) != 0) {
        free(l);
        return mg_err_set(err, MG_E_IO, "cannot make a pipe: %s", strerror(errno));
    }
    if (pthread_create(&l->th, NULL, listen_main, l) != 0) {
        close(l->wake[0]);
        close(l->wake[1]);
        free(l);
        return mg_err_set(err, MG_E_NO_MEMORY, "cannot start the listener thread");
    }
    *out = l;
    return 0;
}

void mg_pg_listen_stop(struct mg_pg_listener **pl)
{
    struct mg_pg_listener *l = *pl;
    if (!l) return;
    l->stop = 1;
    if (write(l->wake[1], "x", 1) < 0) {
        /* the thread sees stop at its next wake-up (at most 1 s) */
    }
    pthread_join(l->th, NULL);
    close(l->wake[0]);
    close(l->wake[1]);
    free(l);
    *pl = NULL;
}

int mg_pg_notify(struct mg_sql *c, const char *channel, const char *payload, struct mg_err *err)
{
    if (strlen(payload) > 7999) return mg_err_set(err, MG_E_BAD_ARG, "a notification's payload is at most 7999 bytes");
    return mg_sql_runf(c, NULL, err, "SELECT pg_notify(?, ?)", "ss", channel, payload);
}
