/* session.c — see session.h. */
#include "request/session.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

#include "security/common.h"
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
        mg_err_set(err, MG_E_NO_MEMORY, "out of memory");
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

struct mg_session *mg_sessions_create(struct mg_sessions *r, enum mg_session_kind kind, const char *id,
                                      const char *instance, struct mg_err *err)
{
    if (id && !id_ok(id)) {
        mg_err_set(err, MG_E_BAD_ARG, "session id must be 8 to %d characters of [A-Za-z0-9._:-]", MG_SID_MAX);
        return NULL;
    }
    struct mg_session *s = session_new(kind, instance, err);
    if (!s) return NULL;
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
