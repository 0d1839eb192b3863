/* storage.c — see storage.h. */
#include "request/storage.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/pg.h"
#include "util/buf.h"
#include "util/clock.h"

struct mg_storage_probe {
    const struct mg_config *cfg;
    pthread_mutex_t mu;
    bool pinging;             /* a caller is pinging now */
    bool pinged;              /* at least once */
    double at_ms;             /* when the last ping ended (monotonic) */
    struct mg_storage_state last;
    struct mg_pg *pool;       /* once known */
};

struct mg_storage_probe *mg_storage_probe_new(const struct mg_config *cfg)
{
    if (!mg_pg_configured(cfg)) return NULL;
    struct mg_storage_probe *p = calloc(1, sizeof(*p));
    if (!p) return NULL;
    p->cfg = cfg;
    pthread_mutex_init(&p->mu, NULL);
    p->last.up = true; /* until the first ping says otherwise */
    p->last.max = cfg->storage_pool_max;
    return p;
}

void mg_storage_probe_free(struct mg_storage_probe *p)
{
    if (!p) return;
    pthread_mutex_destroy(&p->mu);
    free(p);
}

/* One ping: the pool (and the schema), then SELECT 1. */
static void ping(struct mg_storage_probe *p, struct mg_pg **pool, struct mg_storage_state *st)
{
    struct mg_err err = {0};
    int rc = mg_pg_pool(p->cfg, pool, &err);
    if (rc == 0) {
        int open, busy;
        mg_pg_counts(*pool, &open, &busy);
        if (!(open > 0 && busy >= p->cfg->storage_pool_max)) rc = mg_pg_ping(*pool, &err); /* all at work: up */
    }
    st->up = rc == 0;
    snprintf(st->code, sizeof(st->code), "%s", rc == 0 ? "" : err.code ? err.code : MG_E_STORAGE_UNAVAILABLE);
    snprintf(st->message, sizeof(st->message), "%s", rc == 0 ? "" : err.msg);
}

void mg_storage_check(struct mg_storage_probe *p, struct mg_storage_state *out)
{
    pthread_mutex_lock(&p->mu);
    double now = mg_clock_ms();
    bool mine = !p->pinging && (!p->pinged || now - p->at_ms >= MG_STORAGE_PING_MS);
    if (mine) p->pinging = true;
    struct mg_pg *pool = p->pool;
    pthread_mutex_unlock(&p->mu);
    struct mg_storage_state st = {0};
    if (mine) ping(p, &pool, &st);
    pthread_mutex_lock(&p->mu);
    if (mine) {
        bool was = p->last.up;
        p->last.up = st.up;
        snprintf(p->last.code, sizeof(p->last.code), "%s", st.code);
        snprintf(p->last.message, sizeof(p->last.message), "%s", st.message);
        p->at_ms = mg_clock_ms();
        p->pinged = true;
        p->pinging = false;
        if (pool) p->pool = pool;
        if (was && !st.up)
            fprintf(stderr, "memgate: storage: not ready: %s: %s\n", st.code, st.message);
        else if (!was && st.up)
            fprintf(stderr, "memgate: storage: PostgreSQL answers again; ready\n");
    }
    *out = p->last;
    if (p->pool) mg_pg_counts(p->pool, &out->open, &out->busy);
    out->max = p->cfg->storage_pool_max;
    pthread_mutex_unlock(&p->mu);
}

int mg_storage_steps(const struct mg_config *cfg, struct mg_storage_step **out, size_t *n, struct mg_err *err)
{
    *out = NULL;
    *n = 0;
    struct mg_pg *pool = NULL;
    struct mg_err perr = {0};
    /* a database a newer memgate migrated still lists its steps (the pool exists; its schema is refused) */
    if (mg_pg_pool(cfg, &pool, &perr) != 0 && (!pool || !perr.code || strcmp(perr.code, MG_E_SCHEMA) != 0)) {
        *err = perr;
        return -1;
    }
    struct mg_sql *c;
    if (mg_pg_acquire(pool, NULL, &c, err) != 0) return -1;
    struct mg_sql_st *st = NULL;
    int rc = mg_sql_prepare(c, "SELECT name, version, applied_at FROM memgate_migrations ORDER BY name", &st, err);
    size_t cap = 0;
    while (rc == 0) {
        int r = mg_sql_step(st, err);
        if (r <= 0) {
            rc = r;
            break;
        }
        struct mg_storage_step *v = mg_grow(*out, *n, &cap, sizeof(*v));
        if (!v) {
            rc = mg_err_oom(err);
            break;
        }
        *out = v;
        struct mg_storage_step *s = &(*out)[(*n)++];
        snprintf(s->name, sizeof(s->name), "%s", mg_sql_text(st, 0));
        snprintf(s->version, sizeof(s->version), "%s", mg_sql_text(st, 1));
        s->applied_at = mg_sql_int(st, 2);
        s->known = false;
        for (size_t i = 0; i < mg_pg_nsteps && !s->known; i++) s->known = strcmp(mg_pg_steps[i].name, s->name) == 0;
    }
    mg_sql_finalize(&st);
    mg_pg_put(pool, &c);
    if (rc != 0) {
        free(*out);
        *out = NULL;
        *n = 0;
        return -1;
    }
    return 0;
}

void mg_storage_url_safe(const struct mg_config *cfg, char *out, size_t cap)
{
    mg_pg_url_safe(cfg->storage, out, cap);
}
