/* session.c — see session.h. */
#include "request/session.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>
#include <sodium.h>

#include "security/common.h"
#include "store/pg.h"
#include "util/config.h"
#include "util/metrics.h"

#define NBUCKETS 1024
#define EXPIRED_RING 4096

struct mg_sessions {
    pthread_mutex_t mu;
    struct mg_session *b[NBUCKETS];
    size_t n;
    int64_t ttl_ms;
    uint64_t expired[EXPIRED_RING]; /* hashes of recently expired ids */
    size_t expired_next;
    pthread_t pruner;
    bool pruning;
    int64_t prune_ms;
    pthread_cond_t stop_cv;
    bool stop;
    const struct mg_config *cfg;    /* shared: the PostgreSQL database of the API sessions and handles */
};

int64_t mg_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void mg_random_id(char out[MG_SID_LEN + 1])
{
    unsigned char r[MG_SID_LEN / 2];
    mg_sodium_ready();
    randombytes_buf(r, sizeof(r));
    sodium_bin2hex(out, MG_SID_LEN + 1, r, sizeof(r));
}

static uint64_t hash_id(const char *s)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h ? h : 1;
}

/* ---- registry ------------------------------------------------------------------- */

struct mg_sessions *mg_sessions_new(int64_t ttl_ms)
{
    struct mg_sessions *r = calloc(1, sizeof(*r));
    if (!r) return NULL;
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->stop_cv, NULL);
    r->ttl_ms = ttl_ms;
    return r;
}

static void session_free(struct mg_session *s)
{
    mg_scope_release(&s->scope);
    free(s->root);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    free(s);
}

static size_t bucket(const char *id) { return hash_id(id) % NBUCKETS; }

static bool id_ok(const char *id)
{
    size_t n = strlen(id);
    if (n < 8 || n > MG_SID_MAX) return false;
    for (const char *p = id; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '.' && *p != '_' && *p != ':' && *p != '-') return false;
    return true;
}

static struct mg_session *find_locked(struct mg_sessions *r, const char *id, struct mg_session ***link)
{
    struct mg_session **pp = &r->b[bucket(id)];
    for (; *pp; pp = &(*pp)->next)
        if (strcmp((*pp)->id, id) == 0) {
            if (link) *link = pp;
            return *pp;
        }
    return NULL;
}

/* A new session, not listed yet: one reference (the caller's); NULL with err. */
static struct mg_session *session_new(enum mg_session_kind kind, const char *instance, struct mg_err *err)
{
    if (instance && (!*instance || strlen(instance) > MG_INSTANCE_MAX)) {
        mg_err_set(err, MG_E_BAD_ARG, "instance id must be 1 to %d characters", MG_INSTANCE_MAX);
        return NULL;
    }
    struct mg_session *s = calloc(1, sizeof(*s));
    if (!s) {
        mg_err_oom(err);
        return NULL;
    }
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    s->kind = kind;
    snprintf(s->tenant, sizeof(s->tenant), "local");
    s->log_level = 6; /* info */
    s->next_request_id = 1;
    s->refs = 1;
    s->last_use_ms = mg_now_ms();
    if (instance) snprintf(s->instance, sizeof(s->instance), "%s", instance);
    else mg_random_id(s->instance);
    return s;
}

/* List s (under r->mu) and take the registry's reference. */
static void link_locked(struct mg_sessions *r, struct mg_session *s)
{
    size_t b = bucket(s->id);
    s->next = r->b[b];
    r->b[b] = s;
    r->n++;
    s->refs++;
}

static bool shared_kind(const struct mg_sessions *r, enum mg_session_kind kind)
{
    return r->cfg && (kind == MG_SESSION_API || kind == MG_SESSION_HANDLE);
}

static struct mg_session *shared_create(struct mg_sessions *r, struct mg_session *s, const char *id,
                                        struct mg_err *err);

struct mg_session *mg_sessions_create(struct mg_sessions *r, enum mg_session_kind kind, const char *id,
                                      const char *instance, struct mg_err *err)
{
    return mg_sessions_create_for(r, kind, id, instance, "local", err);
}

struct mg_session *mg_sessions_create_for(struct mg_sessions *r, enum mg_session_kind kind, const char *id,
                                          const char *instance, const char *tenant, struct mg_err *err)
{
    if (id && !id_ok(id)) {
        mg_err_set(err, MG_E_BAD_ARG, "session id must be 8 to %d characters of [A-Za-z0-9._:-]", MG_SID_MAX);
        return NULL;
    }
    struct mg_session *s = session_new(kind, instance, err);
    if (!s) return NULL;
    snprintf(s->tenant, sizeof(s->tenant), "%s", tenant);
    if (shared_kind(r, kind)) return shared_create(r, s, id, err);
    pthread_mutex_lock(&r->mu);
    for (int tries = 0;; tries++) {
        if (id) snprintf(s->id, sizeof(s->id), "%s", id);
        else mg_random_id(s->id);
        if (!find_locked(r, s->id, NULL)) break;
        if (id || tries > 8) {
            pthread_mutex_unlock(&r->mu);
            session_free(s);
            mg_err_set(err, MG_E_SESSION_EXISTS, "session '%s' already exists", id ? id : "(random)");
            return NULL;
        }
    }
    link_locked(r, s);
    pthread_mutex_unlock(&r->mu);
    mg_metrics_session_created();
    return s;
}

/* Unlink s (under r->mu); drops the registry's reference. Returns true when
 * the caller must free it. */
static bool unlink_locked(struct mg_sessions *r, struct mg_session **link)
{
    struct mg_session *s = *link;
    *link = s->next;
    s->next = NULL;
    s->removed = true;
    r->n--;
    return --s->refs == 0;
}

static void remember_expired(struct mg_sessions *r, const char *id)
{
    r->expired[r->expired_next] = hash_id(id);
    r->expired_next = (r->expired_next + 1) % EXPIRED_RING;
}

static bool idle_past(const struct mg_sessions *r, const struct mg_session *s, int64_t now)
{
    int64_t ttl = s->idle_ms ? s->idle_ms : r->ttl_ms;
    return ttl > 0 && s->refs == 1 && now - s->last_use_ms > ttl;
}

struct mg_session *mg_sessions_get(struct mg_sessions *r, const char *id, enum mg_lookup *how)
{
    struct mg_session **link, *s, *dead = NULL;
    enum mg_lookup h = MG_SESSION_UNKNOWN;
    int64_t now = mg_now_ms();
    pthread_mutex_lock(&r->mu);
    s = find_locked(r, id, &link);
    if (s && idle_past(r, s, now)) {
        remember_expired(r, id);
        if (unlink_locked(r, link)) dead = s;
        s = NULL;
        h = MG_SESSION_EXPIRED;
    } else if (s) {
        s->refs++;
        s->last_use_ms = now;
        h = MG_SESSION_FOUND;
    } else {
        uint64_t hv = hash_id(id);
        for (size_t i = 0; i < EXPIRED_RING; i++)
            if (r->expired[i] == hv) {
                h = MG_SESSION_EXPIRED;
                break;
            }
    }
    pthread_mutex_unlock(&r->mu);
    if (dead) {
        session_free(dead);
        mg_metrics_sessions_pruned(1);
    }
    if (how) *how = h;
    return s;
}

/* The key of the implicit sessions' ids: random per process, so an id says
 * nothing about the client it belongs to. */
static unsigned char implicit_key[crypto_generichash_KEYBYTES];
static pthread_once_t implicit_once = PTHREAD_ONCE_INIT;
static void implicit_key_init(void)
{
    mg_sodium_ready();
    randombytes_buf(implicit_key, sizeof(implicit_key));
}

struct mg_session *mg_sessions_implicit(struct mg_sessions *r, const char *key, const char *tenant,
                                        const char *instance, int64_t idle_ms, struct mg_err *err)
{
    pthread_once(&implicit_once, implicit_key_init);
    unsigned char h[16];
    crypto_generichash(h, sizeof(h), (const unsigned char *)key, strlen(key), implicit_key, sizeof(implicit_key));
    char id[MG_SID_MAX + 1] = "implicit/";
    sodium_bin2hex(id + 9, sizeof(id) - 9, h, sizeof(h));
    struct mg_session *fresh = NULL, *dead = NULL, *s, **link;
    bool made = false;
    for (;;) {
        int64_t now = mg_now_ms();
        pthread_mutex_lock(&r->mu);
        s = find_locked(r, id, &link);
        if (s && idle_past(r, s, now)) { /* idled out: nothing was kept in it, so simply make another */
            if (unlink_locked(r, link)) dead = s;
            s = NULL;
        }
        if (s) {
            s->refs++;
            s->last_use_ms = now;
        } else if (fresh) {
            link_locked(r, fresh);
            s = fresh;
            fresh = NULL;
            made = true;
        }
        pthread_mutex_unlock(&r->mu);
        if (dead) {
            session_free(dead);
            mg_metrics_sessions_pruned(1);
            dead = NULL;
        }
        if (s) break;
        /* not there: make one outside the lock, then look again (another request may have made it) */
        if (!(fresh = session_new(MG_SESSION_API, instance, err))) return NULL;
        snprintf(fresh->id, sizeof(fresh->id), "%s", id);
        snprintf(fresh->tenant, sizeof(fresh->tenant), "%s", tenant);
        fresh->implicit = true;
        fresh->idle_ms = idle_ms;
    }
    if (fresh) session_free(fresh); /* another request made it first */
    else if (made) mg_metrics_session_created();
    return s;
}

void mg_session_put(struct mg_sessions *r, struct mg_session *s)
{
    if (!s) return;
    pthread_mutex_lock(&r->mu);
    s->last_use_ms = mg_now_ms();
    bool last = --s->refs == 0;
    pthread_mutex_unlock(&r->mu);
    if (last) session_free(s);
}

void mg_session_ref(struct mg_sessions *r, struct mg_session *s)
{
    pthread_mutex_lock(&r->mu);
    s->refs++;
    pthread_mutex_unlock(&r->mu);
}

int mg_sessions_remove(struct mg_sessions *r, const char *id)
{
    struct mg_session **link, *s;
    bool dead = false;
    pthread_mutex_lock(&r->mu);
    s = find_locked(r, id, &link);
    if (s) dead = unlink_locked(r, link);
    pthread_mutex_unlock(&r->mu);
    if (dead) session_free(s);
    return s ? 0 : -1;
}

size_t mg_sessions_prune(struct mg_sessions *r, int64_t now_ms)
{
    struct mg_session *dead = NULL;
    size_t n = 0;
    pthread_mutex_lock(&r->mu);
    for (size_t b = 0; b < NBUCKETS; b++) {
        struct mg_session **link = &r->b[b];
        while (*link) {
            struct mg_session *s = *link;
            if (idle_past(r, s, now_ms)) {
                remember_expired(r, s->id);
                if (unlink_locked(r, link)) {
                    s->next = dead;
                    dead = s;
                }
                n++;
            } else {
                link = &s->next;
            }
        }
    }
    pthread_mutex_unlock(&r->mu);
    while (dead) {
        struct mg_session *nx = dead->next;
        session_free(dead);
        dead = nx;
    }
    if (n) mg_metrics_sessions_pruned(n);
    return n;
}

size_t mg_sessions_count(struct mg_sessions *r)
{
    pthread_mutex_lock(&r->mu);
    size_t n = r->n;
    pthread_mutex_unlock(&r->mu);
    return n;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

size_t mg_sessions_instances(struct mg_sessions *r)
{
    size_t distinct = 0, n = 0;
    pthread_mutex_lock(&r->mu);
    const char **v = malloc((r->n ? r->n : 1) * sizeof(*v));
    if (v) {
        for (size_t b = 0; b < NBUCKETS; b++)
            for (struct mg_session *s = r->b[b]; s; s = s->next) v[n++] = s->instance;
        qsort(v, n, sizeof(*v), cmp_str);
        for (size_t i = 0; i < n; i++)
            if (i == 0 || strcmp(v[i], v[i - 1]) != 0) distinct++;
    }
    pthread_mutex_unlock(&r->mu);
    free(v);
    return distinct;
}

struct tenant_row {
    const char *tenant, *instance;
    enum mg_session_kind kind;
};

static int cmp_row(const void *a, const void *b)
{
    const struct tenant_row *x = a, *y = b;
    int c = strcmp(x->tenant, y->tenant);
    return c ? c : strcmp(x->instance, y->instance);
}

long mg_sessions_by_tenant(struct mg_sessions *r, const char *only, struct mg_tenant_sessions **out)
{
    *out = NULL;
    long ntenants = 0;
    pthread_mutex_lock(&r->mu);
    size_t n = 0;
    struct tenant_row *v = malloc((r->n ? r->n : 1) * sizeof(*v));
    struct mg_tenant_sessions *t = malloc((r->n ? r->n : 1) * sizeof(*t));
    if (!v || !t) {
        pthread_mutex_unlock(&r->mu);
        free(v);
        free(t);
        return -1;
    }
    for (size_t b = 0; b < NBUCKETS; b++)
        for (struct mg_session *s = r->b[b]; s; s = s->next)
            if (!only || strcmp(s->tenant, only) == 0) v[n++] = (struct tenant_row){s->tenant, s->instance, s->kind};
    qsort(v, n, sizeof(*v), cmp_row);
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || strcmp(v[i].tenant, v[i - 1].tenant) != 0) {
            t[ntenants] = (struct mg_tenant_sessions){0};
            snprintf(t[ntenants].tenant, sizeof(t[ntenants].tenant), "%s", v[i].tenant);
            ntenants++;
        }
        struct mg_tenant_sessions *c = &t[ntenants - 1];
        c->sessions++;
        c->mcp += v[i].kind == MG_SESSION_MCP;
        c->api += v[i].kind == MG_SESSION_API;
        if (c->sessions == 1 || strcmp(v[i].instance, v[i - 1].instance) != 0) c->instances++;
    }
    pthread_mutex_unlock(&r->mu);
    free(v);
    *out = t;
    return ntenants;
}

/* ---- shared sessions (PostgreSQL) ------------------------------------------------------------ */

void mg_sessions_share(struct mg_sessions *r, const struct mg_config *cfg) { r->cfg = cfg; }

bool mg_sessions_shared(const struct mg_sessions *r) { return r->cfg != NULL; }

/* The ttl of the shared rows, in ms (0: never). */
static int64_t shared_ttl(const struct mg_sessions *r) { return (int64_t)r->cfg->session_ttl * 1000; }

/* The database's clock in ms and the ttl, as the derived table p(now, ttl) of
 * the statements below: one clock for every daemon. */
#define P_NOW_TTL "(SELECT (extract(epoch from clock_timestamp()) * 1000)::bigint AS now, CAST(?2 AS bigint) AS ttl) AS p"

static const char *kind_name(enum mg_session_kind k) { return k == MG_SESSION_HANDLE ? "handle" : "api"; }

static const char *const scope_keys[] = {"globs", "exclude_globs", "languages", "repos"};

/* The scope as the JSON text of the scope column (malloc'd), or NULL out of memory. */
static char *scope_text(const struct mg_scope *sc)
{
    char *const *lists[4] = {sc->globs, sc->excludes, sc->langs, sc->repos};
    const size_t ns[4] = {sc->nglobs, sc->nexcludes, sc->nlangs, sc->nrepos};
    json_t *o = json_object();
    for (int i = 0; o && i < 4; i++) {
        if (!ns[i]) continue;
        json_t *a = json_array();
        for (size_t k = 0; a && k < ns[i]; k++) json_array_append_new(a, json_string(lists[i][k]));
        if (!a || json_object_set_new(o, scope_keys[i], a) != 0) {
            json_decref(o);
            return NULL;
        }
    }
    char *t = o ? json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(o);
    return t;
}

/* The scope column's text into sc (empty before); -1 when it is not what scope_text writes. */
static int scope_parse(const char *text, struct mg_scope *sc)
{
    json_t *o = json_loads(text, 0, NULL);
    int rc = json_is_object(o) ? 0 : -1;
    char ***const lists[4] = {&sc->globs, &sc->excludes, &sc->langs, &sc->repos};
    size_t *const ns[4] = {&sc->nglobs, &sc->nexcludes, &sc->nlangs, &sc->nrepos};
    for (int i = 0; rc == 0 && i < 4; i++) {
        json_t *a = json_object_get(o, scope_keys[i]), *e;
        size_t k;
        json_array_foreach(a, k, e)
        {
            if (!json_is_string(e) || mg_scope_push(lists[i], ns[i], json_string_value(e)) != 0) rc = -1;
        }
    }
    json_decref(o);
    if (rc != 0) mg_scope_release(sc);
    return rc;
}

static struct mg_session *shared_create(struct mg_sessions *r, struct mg_session *s, const char *id,
                                        struct mg_err *err)
{
    s->shared = true;
    s->removed = true; /* never listed: the request's own object */
    struct mg_pg *pool;
    struct mg_sql *c;
    if (mg_pg_get(r->cfg, s->tenant, &pool, &c, err) != 0) {
        session_free(s);
        return NULL;
    }
    int rc = -1;
    for (int tries = 0; tries < 8; tries++) {
        if (id) snprintf(s->id, sizeof(s->id), "%s", id);
        else mg_random_id(s->id);
        int64_t n = 0;
        rc = mg_sql_runf(c, &n, err,
                         "INSERT INTO memgate_sessions(id, tenant, kind, instance, created_at, last_use_ms, "
                         "purge_after_ms) SELECT ?1, ?3, ?4, ?5, p.now / 1000, p.now, "
                         "CASE WHEN p.ttl > 0 THEN p.now + 2 * p.ttl END FROM " P_NOW_TTL " "
                         "ON CONFLICT (id) DO NOTHING",
                         "sisss", s->id, shared_ttl(r), s->tenant, kind_name(s->kind), s->instance);
        if (rc != 0 || n == 1) break;
        rc = mg_err_set(err, MG_E_SESSION_EXISTS, "session '%s' already exists", id ? id : "(random)");
        if (id) break; /* a random id: draw another */
    }
    mg_pg_release(pool, &c);
    if (rc != 0) {
        session_free(s);
        return NULL;
    }
    mg_metrics_session_created();
    return s;
}

static struct mg_session *shared_lookup(struct mg_sessions *r, const char *id, const char *tenant,
                                        enum mg_lookup *how, struct mg_err *err)
{
    *how = MG_SESSION_UNKNOWN;
    if (strlen(id) > MG_SID_MAX || !tenant) return NULL;
    struct mg_pg *pool;
    struct mg_sql *c;
    struct mg_sql_st *st = NULL;
    struct mg_session *s = NULL;
    if (mg_pg_get(r->cfg, tenant, &pool, &c, err) != 0) {
        *how = MG_SESSION_ERROR;
        return NULL;
    }
    /* read it and touch it in one statement; idle past the ttl it turns into a tombstone, untouched */
    const char *sql = "UPDATE memgate_sessions AS s SET "
                      "expired = CASE WHEN s.expired = 1 OR (p.ttl > 0 AND p.now - s.last_use_ms > p.ttl) "
                      "THEN 1 ELSE 0 END, "
                      "last_use_ms = CASE WHEN s.expired = 1 OR (p.ttl > 0 AND p.now - s.last_use_ms > p.ttl) "
                      "THEN s.last_use_ms ELSE p.now END, "
                      "purge_after_ms = CASE WHEN s.expired = 1 OR (p.ttl > 0 AND p.now - s.last_use_ms > p.ttl) "
                      "THEN s.purge_after_ms WHEN p.ttl > 0 THEN p.now + 2 * p.ttl END "
                      "FROM " P_NOW_TTL " WHERE s.id = ?1 AND s.tenant = ?3 "
                      "RETURNING s.kind, s.tenant, s.instance, s.repo, s.scope, s.expired";
    int rc = mg_sql_prepare(c, sql, &st, err);
    if (rc == 0) {
        mg_sql_bind_text(st, 1, id);
        mg_sql_bind_int(st, 2, shared_ttl(r));
        mg_sql_bind_text(st, 3, tenant);
        rc = mg_sql_step(st, err);
    }
    if (rc < 0) {
        *how = MG_SESSION_ERROR;
    } else if (rc == 1 && mg_sql_int(st, 5)) {
        *how = MG_SESSION_EXPIRED;
    } else if (rc == 1 && strcmp(mg_sql_text(st, 1), tenant) == 0) {
        enum mg_session_kind kind = strcmp(mg_sql_text(st, 0), "handle") == 0 ? MG_SESSION_HANDLE : MG_SESSION_API;
        struct mg_scope sc = {0};
        if (scope_parse(mg_sql_text(st, 4), &sc) != 0) {
            mg_err_set(err, MG_E_DB, "the PostgreSQL database: session '%.40s' has a malformed scope", id);
            *how = MG_SESSION_ERROR;
        } else if ((s = session_new(kind, mg_sql_text(st, 2), err)) == NULL) {
            mg_scope_release(&sc);
            *how = MG_SESSION_ERROR;
        } else {
            snprintf(s->id, sizeof(s->id), "%s", id);
            snprintf(s->tenant, sizeof(s->tenant), "%s", mg_sql_text(st, 1));
            snprintf(s->repo, sizeof(s->repo), "%s", mg_sql_text(st, 3));
            s->scope = sc;
            s->shared = true;
            s->removed = true;
            *how = MG_SESSION_FOUND;
        }
    }
    mg_sql_finalize(&st);
    mg_pg_release(pool, &c);
    return s;
}

struct mg_session *mg_sessions_lookup(struct mg_sessions *r, const char *id, const char *tenant, enum mg_lookup *how,
                                      struct mg_err *err)
{
    struct mg_session *s = mg_sessions_get(r, id, how);
    if (s || *how == MG_SESSION_EXPIRED || !r->cfg) return s;
    return shared_lookup(r, id, tenant, how, err);
}

int mg_session_save(struct mg_sessions *r, struct mg_session *s, struct mg_err *err)
{
    if (!s->shared || !r->cfg) return 0;
    char repo[MG_ID_MAX + 1];
    pthread_mutex_lock(&s->mu);
    snprintf(repo, sizeof(repo), "%s", s->repo);
    char *scope = scope_text(&s->scope);
    pthread_mutex_unlock(&s->mu);
    if (!scope) return mg_err_oom(err);
    struct mg_pg *pool;
    struct mg_sql *c;
    int64_t n = 0;
    int rc = mg_pg_get(r->cfg, s->tenant, &pool, &c, err);
    if (rc == 0) {
        rc = mg_sql_runf(c, &n, err,
                         "UPDATE memgate_sessions AS s SET repo = ?4, scope = ?5, last_use_ms = p.now, "
                         "purge_after_ms = CASE WHEN p.ttl > 0 THEN p.now + 2 * p.ttl END FROM " P_NOW_TTL " "
                         "WHERE s.id = ?1 AND s.tenant = ?3 AND s.expired = 0",
                         "sisss", s->id, shared_ttl(r), s->tenant, repo, scope);
        mg_pg_release(pool, &c);
    }
    free(scope);
    if (rc == 0 && n != 1)
        rc = mg_err_set(err, MG_E_SESSION_EXPIRED, "session '%.40s' expired (or was removed) while this call ran; "
                        "nothing was stored: start a new session", s->id);
    return rc;
}

long mg_sessions_purge_shared(struct mg_sessions *r, struct mg_err *err)
{
    if (!r->cfg) return 0;
    struct mg_pg *pool;
    struct mg_sql *c;
    if (mg_pg_get(r->cfg, NULL, &pool, &c, err) != 0) return -1;
    /* acting for no tenant, a DELETE that names no row reaches exactly the rows past their purge time
     * (pgschema.c, 0007_sessions); the condition keeps it from a connection that acts for a tenant */
    int64_t n = 0;
    int rc = mg_sql_runf(c, &n, err, "DELETE FROM memgate_sessions WHERE current_setting('memgate.tenant', true) = ''",
                         "");
    mg_pg_release(pool, &c);
    if (rc != 0) return -1;
    if (n > 0) mg_metrics_sessions_pruned((size_t)n);
    return (long)n;
}

static void *pruner_main(void *arg)
{
    struct mg_sessions *r = arg;
    pthread_mutex_lock(&r->mu);
    while (!r->stop) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        int64_t ns = ts.tv_nsec + (r->prune_ms % 1000) * 1000000;
        ts.tv_sec += r->prune_ms / 1000 + ns / 1000000000;
        ts.tv_nsec = ns % 1000000000;
        pthread_cond_timedwait(&r->stop_cv, &r->mu, &ts);
        if (r->stop) break;
        pthread_mutex_unlock(&r->mu);
        mg_sessions_prune(r, mg_now_ms());
        struct mg_err err = {0};
        if (r->cfg && mg_sessions_purge_shared(r, &err) < 0) /* PostgreSQL down: the next sweep does it */
            fprintf(stderr, "memgate: warning: expired shared sessions not purged: %s\n", err.msg);
        pthread_mutex_lock(&r->mu);
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

int mg_sessions_start_pruner(struct mg_sessions *r, int64_t interval_ms, struct mg_err *err)
{
    r->prune_ms = interval_ms > 0 ? interval_ms : 1000;
    if (pthread_create(&r->pruner, NULL, pruner_main, r) != 0)
        return mg_err_set(err, MG_E_INTERNAL, "cannot start the session pruner thread");
    r->pruning = true;
    return 0;
}

void mg_sessions_free(struct mg_sessions *r)
{
    if (!r) return;
    if (r->pruning) {
        pthread_mutex_lock(&r->mu);
        r->stop = true;
        pthread_cond_signal(&r->stop_cv);
        pthread_mutex_unlock(&r->mu);
        pthread_join(r->pruner, NULL);
    }
    for (size_t b = 0; b < NBUCKETS; b++) {
        struct mg_session *s = r->b[b];
        while (s) {
            struct mg_session *nx = s->next;
            session_free(s);
            s = nx;
        }
    }
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->stop_cv);
    free(r);
}
