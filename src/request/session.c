/* session.c — a session and the registry of sessions (session.h).
 *
 * Sections:
 *   1. the session: its struct, identity, references
 *   2. the binding: offered roots, bound repos, settling
 *   3. the scope and a request's snapshot
 *   4. the registry: create, look up, remove, prune, count
 *   5. shared sessions (PostgreSQL rows through session_pg.c)
 *   6. the pruner
 */
#include "request/session.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

#include "request/session_pg.h"
#include "security/common.h"
#include "util/config.h"
#include "util/metrics.h"

#define NBUCKETS 1024
#define EXPIRED_RING 4096

/* ---- 1. the session ------------------------------------------------------------------------------------- */

/* Roots state of a session (docs/binding.md). */
enum roots_state {
    ROOTS_NONE,     /* the client has no roots capability, or gave none */
    ROOTS_UNKNOWN,  /* the client has roots; not asked yet (or they changed) */
    ROOTS_KNOWN     /* asked (or stated); `root` holds the first usable one, if any */
};

struct mg_session {
    /* identity: set before the session is shared, never changed after */
    char id[MG_SID_MAX + 1];
    char instance[MG_INSTANCE_MAX + 1];
    enum mg_session_kind kind;
    char tenant[65];            /* the tenant that created it */
    bool implicit;              /* mg_sessions_implicit's */
    bool unlisted;              /* mg_sessions_private's: nobody else can name it */
    int64_t idle_ms;            /* its own idle limit; 0: the registry's ttl */
    bool shared;                /* read from PostgreSQL for this request: changes are written back */
    struct mg_sessions *reg;    /* its registry (whose lock guards the fields of the registry below) */

    /* the binding and the scope: guarded by mu */
    pthread_mutex_t mu;
    pthread_cond_t cv;          /* signalled when a settling ends */
    char repo[MG_ID_MAX + 1];   /* the bound repo id; "" when unbound */
    char *root;                 /* a root not bound yet (bound, indexed if need be, on first use), or NULL */
    enum roots_state roots;
    bool settling;              /* a call is settling the binding; others wait on cv */
    struct mg_scope scope;      /* set_scope's; the effective scope of a call starts from it */

    /* a transport's state (mg_session_attach) */
    void *state;
    void (*free_state)(void *);

    /* the registry's, under reg->mu */
    int refs;
    int64_t last_use_ms;
    bool removed;               /* not listed (removed, private or shared) */
    struct mg_session *next;
};

/* An idle session costs about 1 KB (session.h): the struct is most of it. */
_Static_assert(sizeof(struct mg_session) <= 1024, "an idle session must stay about 1 KB");

struct mg_sessions {
    pthread_mutex_t mu;
    struct mg_session *b[NBUCKETS];
    size_t n;
    int64_t ttl_ms;
    struct {
        uint64_t id, key; /* hashes of a recently expired id, and of its tenant and id */
    } expired[EXPIRED_RING];
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

const char *mg_session_id(const struct mg_session *s) { return s->id; }
const char *mg_session_instance(const struct mg_session *s) { return s->instance; }
const char *mg_session_tenant(const struct mg_session *s) { return s->tenant; }
enum mg_session_kind mg_session_kind(const struct mg_session *s) { return s->kind; }
bool mg_session_implicit(const struct mg_session *s) { return s->implicit; }
bool mg_session_transient(const struct mg_session *s) { return s->unlisted; }
bool mg_session_shared(const struct mg_session *s) { return s->shared; }

/* A new session, not listed: one reference (the caller's); NULL with err. */
static struct mg_session *session_new(struct mg_sessions *r, enum mg_session_kind kind, const char *instance,
                                      const char *tenant, struct mg_err *err)
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
    s->reg = r;
    s->kind = kind;
    snprintf(s->tenant, sizeof(s->tenant), "%s", tenant ? tenant : "local");
    s->refs = 1;
    s->removed = true;
    s->last_use_ms = mg_now_ms();
    if (instance) snprintf(s->instance, sizeof(s->instance), "%s", instance);
    else mg_random_id(s->instance);
    return s;
}

static void session_free(struct mg_session *s)
{
    if (s->free_state) s->free_state(s->state);
    mg_scope_release(&s->scope);
    free(s->root);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    free(s);
}

void mg_session_ref(struct mg_session *s)
{
    pthread_mutex_lock(&s->reg->mu);
    s->refs++;
    pthread_mutex_unlock(&s->reg->mu);
}

void mg_session_unref(struct mg_session **sp)
{
    struct mg_session *s = sp ? *sp : NULL;
    if (!s) return;
    *sp = NULL;
    pthread_mutex_lock(&s->reg->mu);
    s->last_use_ms = mg_now_ms();
    bool last = --s->refs == 0;
    pthread_mutex_unlock(&s->reg->mu);
    if (last) session_free(s);
}

void mg_session_attach(struct mg_session *s, void *state, void (*free_state)(void *))
{
    s->state = state;
    s->free_state = free_state;
}

void *mg_session_attached(const struct mg_session *s) { return s->state; }

/* ---- 2. the binding ---------------------------------------------------------------------------------------- */

static int save(struct mg_session *s, struct mg_err *err);

void mg_session_offer_root(struct mg_session *s, const char *root, bool client_roots)
{
    char *path = root ? strdup(root) : NULL; /* (out of memory: as if none was stated) */
    pthread_mutex_lock(&s->mu);
    if (!s->repo[0] && !s->root) {
        if (path) {
            s->root = path;
            path = NULL;
            s->roots = ROOTS_KNOWN;
        } else {
            s->roots = client_roots ? ROOTS_UNKNOWN : ROOTS_NONE;
        }
    }
    pthread_mutex_unlock(&s->mu);
    free(path);
}

void mg_session_roots_changed(struct mg_session *s)
{
    pthread_mutex_lock(&s->mu);
    if (s->roots != ROOTS_NONE || !s->repo[0]) s->roots = ROOTS_UNKNOWN;
    pthread_mutex_unlock(&s->mu);
}

int mg_session_bind_root(struct mg_session *s, const char *path, struct mg_err *err)
{
    char *root = strdup(path);
    if (!root) return mg_err_oom(err);
    pthread_mutex_lock(&s->mu);
    free(s->root);
    s->root = root;
    s->repo[0] = 0;
    s->roots = ROOTS_KNOWN;
    pthread_mutex_unlock(&s->mu);
    return 0;
}

int mg_session_bind_repo(struct mg_session *s, const char *id, struct mg_err *err)
{
    pthread_mutex_lock(&s->mu);
    snprintf(s->repo, sizeof(s->repo), "%s", id);
    free(s->root);
    s->root = NULL;
    s->roots = id[0] ? ROOTS_KNOWN : ROOTS_NONE;
    pthread_mutex_unlock(&s->mu);
    return save(s, err);
}

void mg_session_repo(struct mg_session *s, char out[MG_ID_MAX + 1])
{
    pthread_mutex_lock(&s->mu);
    memcpy(out, s->repo, sizeof(s->repo));
    pthread_mutex_unlock(&s->mu);
}

/* The client's answer to roots/list (rc, err as the binder's ask_roots):
 * the first root becomes the one to bind. Under s->mu. */
static void roots_answered_locked(struct mg_session *s, int rc, const struct mg_err *err, char **paths, size_t n)
{
    if (rc != 0) {
        /* a channel that cannot ask now (plain JSON over HTTP): try again on the next call */
        s->roots = err->code && strcmp(err->code, MG_E_UNSUPPORTED) == 0 ? ROOTS_UNKNOWN : ROOTS_NONE;
        return;
    }
    s->roots = ROOTS_KNOWN;
    if (n > 0) {
        free(s->root);
        s->root = paths[0];
        paths[0] = NULL;
        s->repo[0] = 0;
    }
}

/* End a settling: wake the calls waiting for it. Under s->mu. */
static void settled_locked(struct mg_session *s)
{
    s->settling = false;
    pthread_cond_broadcast(&s->cv);
}

int mg_session_settle(struct mg_session *s, const struct mg_binder *b, struct mg_err *err)
{
    pthread_mutex_lock(&s->mu);
    while (s->settling) pthread_cond_wait(&s->cv, &s->mu);
    bool ask = s->roots == ROOTS_UNKNOWN && b->ask_roots;
    if (!ask && !s->root) {
        pthread_mutex_unlock(&s->mu);
        return 0;
    }
    s->settling = true;
    pthread_mutex_unlock(&s->mu);

    if (ask) { /* once per session, again after roots/list_changed */
        struct mg_err e = {0};
        char **paths = NULL;
        size_t n = 0;
        int rc = b->ask_roots(b->ctx, &paths, &n, &e);
        bool retry = rc != 0 && e.code && strcmp(e.code, MG_E_INPUT_REQUIRED) == 0;
        pthread_mutex_lock(&s->mu);
        if (!retry) roots_answered_locked(s, rc, &e, paths, n);
        if (retry) settled_locked(s);
        pthread_mutex_unlock(&s->mu);
        for (size_t i = 0; i < n; i++) free(paths[i]);
        free(paths);
        if (retry) { /* the roots come with the client's retry */
            *err = e;
            return -1;
        }
    }
    pthread_mutex_lock(&s->mu);
    char *root = s->root ? strdup(s->root) : NULL;
    pthread_mutex_unlock(&s->mu);
    int rc = 0;
    char id[MG_ID_MAX + 1] = "";
    if (root) rc = b->bind_root(b->ctx, root, id, err);
    pthread_mutex_lock(&s->mu);
    if (root && rc == 0) snprintf(s->repo, sizeof(s->repo), "%s", id);
    if (root) { /* bound, or unusable: either way the root is settled (a failure is reported once) */
        free(s->root);
        s->root = NULL;
    }
    settled_locked(s);
    pthread_mutex_unlock(&s->mu);
    /* a shared session (a handle, with storage = postgres://...): its binding, stored before the answer */
    if (root && rc == 0) rc = save(s, err);
    free(root);
    return rc;
}

/* ---- 3. the scope and a request's snapshot --------------------------------------------------------------------- */

int mg_session_scope(struct mg_session *s, struct mg_scope *out)
{
    pthread_mutex_lock(&s->mu);
    int rc = mg_scope_copy(out, &s->scope);
    pthread_mutex_unlock(&s->mu);
    return rc;
}

int mg_session_set_scope(struct mg_session *s, struct mg_scope *sc, struct mg_err *err)
{
    pthread_mutex_lock(&s->mu);
    mg_scope_release(&s->scope);
    if (sc) {
        s->scope = *sc;
        memset(sc, 0, sizeof(*sc));
    }
    pthread_mutex_unlock(&s->mu);
    return save(s, err);
}

int mg_session_snapshot(struct mg_session *s, struct mg_session_snap *out, struct mg_err *err)
{
    memset(out, 0, sizeof(*out));
    pthread_mutex_lock(&s->mu);
    memcpy(out->repo, s->repo, sizeof(out->repo));
    out->root_pending = s->root != NULL;
    int rc = mg_scope_copy(&out->scope, &s->scope);
    pthread_mutex_unlock(&s->mu);
    return rc != 0 ? mg_err_oom(err) : 0;
}

void mg_session_snap_release(struct mg_session_snap *snap) { mg_scope_release(&snap->scope); }

/* ---- 4. the registry ---------------------------------------------------------------------------------------------- */

static uint64_t hash_id(const char *s)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h ? h : 1;
}

static size_t bucket(const char *id) { return hash_id(id) % NBUCKETS; }

/* The hash of a tenant's id: an id is a tenant's own (two tenants may each
 * have one of the same id), so what expired for one says nothing to another. */
static uint64_t hash_key(const char *tenant, const char *id)
{
    uint64_t h = hash_id(tenant);
    for (const char *s = "\n"; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    for (; *id; id++) h = (h ^ (unsigned char)*id) * 1099511628211ULL;
    return h ? h : 1;
}

struct mg_sessions *mg_sessions_new(int64_t ttl_ms)
{
    struct mg_sessions *r = calloc(1, sizeof(*r));
    if (!r) return NULL;
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->stop_cv, NULL);
    r->ttl_ms = ttl_ms;
    return r;
}

static bool id_ok(const char *id)
{
    size_t n = strlen(id);
    if (n < 8 || n > MG_SID_MAX) return false;
    for (const char *p = id; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '.' && *p != '_' && *p != ':' && *p != '-') return false;
    return true;
}

/* The listed session id names, of tenant (NULL: of any tenant; only ids
 * the registry drew itself are looked up so, being random). */
static struct mg_session *find_locked(struct mg_sessions *r, const char *id, const char *tenant,
                                      struct mg_session ***link)
{
    struct mg_session **pp = &r->b[bucket(id)];
    for (; *pp; pp = &(*pp)->next)
        if (strcmp((*pp)->id, id) == 0 && (!tenant || strcmp((*pp)->tenant, tenant) == 0)) {
            if (link) *link = pp;
            return *pp;
        }
    return NULL;
}

/* List s (under r->mu) and take the registry's reference. */
static void link_locked(struct mg_sessions *r, struct mg_session *s)
{
    size_t b = bucket(s->id);
    s->next = r->b[b];
    r->b[b] = s;
    s->removed = false;
    r->n++;
    s->refs++;
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

static bool shared_kind(const struct mg_sessions *r, enum mg_session_kind kind)
{
    return r->cfg && (kind == MG_SESSION_API || kind == MG_SESSION_HANDLE);
}

static struct mg_session *shared_create(struct mg_sessions *r, struct mg_session *s, const char *id,
                                        struct mg_err *err);

struct mg_session *mg_sessions_create(struct mg_sessions *r, enum mg_session_kind kind, const char *id,
                                      const char *instance, const char *tenant, struct mg_err *err)
{
    if (id && !id_ok(id)) {
        mg_err_set(err, MG_E_BAD_ARG, "session id must be 8 to %d characters of [A-Za-z0-9._:-]", MG_SID_MAX);
        return NULL;
    }
    struct mg_session *s = session_new(r, kind, instance, tenant, err);
    if (!s) return NULL;
    if (shared_kind(r, kind)) return shared_create(r, s, id, err);
    pthread_mutex_lock(&r->mu);
    for (int tries = 0;; tries++) {
        if (id) snprintf(s->id, sizeof(s->id), "%s", id);
        else mg_random_id(s->id);
        if (!find_locked(r, s->id, id ? s->tenant : NULL, NULL)) break;
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

struct mg_session *mg_sessions_private(struct mg_sessions *r, enum mg_session_kind kind, const char *instance,
                                       const char *tenant, struct mg_err *err)
{
    struct mg_session *s = session_new(r, kind, instance, tenant, err);
    if (!s) return NULL;
    mg_random_id(s->id);
    s->unlisted = true;
    mg_metrics_session_created();
    return s;
}

static void remember_expired(struct mg_sessions *r, const struct mg_session *s)
{
    r->expired[r->expired_next].id = hash_id(s->id);
    r->expired[r->expired_next].key = hash_key(s->tenant, s->id);
    r->expired_next = (r->expired_next + 1) % EXPIRED_RING;
}

static bool idle_past(const struct mg_sessions *r, const struct mg_session *s, int64_t now)
{
    int64_t ttl = s->idle_ms ? s->idle_ms : r->ttl_ms;
    return ttl > 0 && s->refs == 1 && now - s->last_use_ms > ttl;
}

/* The listed session id with one more reference, touched; NULL when
 * absent, or idle past its ttl: then unlinked (*dead: the caller frees it
 * once unlocked, when that dropped the last reference) and *expired set.
 * Under r->mu. */
static struct mg_session *take_locked(struct mg_sessions *r, const char *id, const char *tenant,
                                      struct mg_session **dead, bool *expired)
{
    struct mg_session **link, *s = find_locked(r, id, tenant, &link);
    int64_t now = mg_now_ms();
    *expired = s && idle_past(r, s, now);
    if (*expired) {
        remember_expired(r, s);
        if (unlink_locked(r, link)) *dead = s;
        return NULL;
    }
    if (s) {
        s->refs++;
        s->last_use_ms = now;
    }
    return s;
}

/* Free a session take_locked unlinked, counted as pruned. */
static void bury(struct mg_session **dead)
{
    if (!*dead) return;
    session_free(*dead);
    *dead = NULL;
    mg_metrics_sessions_pruned(1);
}

/* mg_sessions_get, of tenant (NULL: any). */
static struct mg_session *get(struct mg_sessions *r, const char *id, const char *tenant, enum mg_lookup *how)
{
    struct mg_session *dead = NULL;
    bool expired;
    pthread_mutex_lock(&r->mu);
    struct mg_session *s = take_locked(r, id, tenant, &dead, &expired);
    enum mg_lookup h = s ? MG_SESSION_FOUND : expired ? MG_SESSION_EXPIRED : MG_SESSION_UNKNOWN;
    uint64_t hv = h != MG_SESSION_UNKNOWN ? 0 : tenant ? hash_key(tenant, id) : hash_id(id);
    for (size_t i = 0; hv && i < EXPIRED_RING; i++)
        if ((tenant ? r->expired[i].key : r->expired[i].id) == hv) {
            h = MG_SESSION_EXPIRED;
            break;
        }
    pthread_mutex_unlock(&r->mu);
    bury(&dead);
    if (how) *how = h;
    return s;
}

struct mg_session *mg_sessions_get(struct mg_sessions *r, const char *id, enum mg_lookup *how)
{
    return get(r, id, NULL, how);
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
    struct mg_session *fresh = NULL, *dead = NULL, *s;
    bool made = false, expired;
    for (;;) {
        pthread_mutex_lock(&r->mu);
        s = take_locked(r, id, tenant, &dead, &expired); /* idled out: nothing was kept in it, so simply make another */
        if (!s && fresh) {
            link_locked(r, fresh);
            s = fresh;
            fresh = NULL;
            made = true;
        }
        pthread_mutex_unlock(&r->mu);
        bury(&dead);
        if (s) break;
        /* not there: make one outside the lock, then look again (another request may have made it) */
        if (!(fresh = session_new(r, MG_SESSION_API, instance, tenant, err))) return NULL;
        snprintf(fresh->id, sizeof(fresh->id), "%s", id);
        fresh->implicit = true;
        fresh->idle_ms = idle_ms;
    }
    if (fresh) session_free(fresh); /* another request made it first */
    else if (made) mg_metrics_session_created();
    return s;
}

int mg_sessions_remove(struct mg_sessions *r, const char *id)
{
    struct mg_session **link, *s;
    bool dead = false;
    pthread_mutex_lock(&r->mu);
    s = find_locked(r, id, NULL, &link);
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
                remember_expired(r, s);
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

/* ---- 5. shared sessions ------------------------------------------------------------------------------------------ */

void mg_sessions_share(struct mg_sessions *r, const struct mg_config *cfg) { r->cfg = cfg; }

bool mg_sessions_shared(const struct mg_sessions *r) { return r->cfg != NULL; }

/* The ttl of the shared rows, in ms (0: never). */
static int64_t shared_ttl(const struct mg_sessions *r) { return (int64_t)r->cfg->session_ttl * 1000; }

static const char *kind_name(enum mg_session_kind k) { return k == MG_SESSION_HANDLE ? "handle" : "api"; }

static struct mg_session *shared_create(struct mg_sessions *r, struct mg_session *s, const char *id,
                                        struct mg_err *err)
{
    s->shared = true; /* never listed: the request's own object */
    int rc = -1;
    for (int tries = 0; tries < 8; tries++) {
        if (id) snprintf(s->id, sizeof(s->id), "%s", id);
        else mg_random_id(s->id);
        rc = mg__session_pg_insert(r->cfg, shared_ttl(r), s->id, s->tenant, kind_name(s->kind), s->instance, err);
        if (rc < 0) break;
        if (rc == 1) {
            rc = 0;
            break;
        }
        rc = mg_err_set(err, MG_E_SESSION_EXISTS, "session '%s' already exists", id ? id : "(random)");
        if (id) break; /* a random id: draw another */
    }
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
    struct mg__session_row row;
    enum mg__row_state state;
    if (mg__session_pg_read(r->cfg, shared_ttl(r), id, tenant, &row, &state, err) != 0) {
        *how = MG_SESSION_ERROR;
        return NULL;
    }
    if (state == MG__ROW_EXPIRED) *how = MG_SESSION_EXPIRED;
    if (state != MG__ROW_FOUND) return NULL;
    enum mg_session_kind kind = strcmp(row.kind, "handle") == 0 ? MG_SESSION_HANDLE : MG_SESSION_API;
    struct mg_session *s = session_new(r, kind, row.instance, row.tenant, err);
    if (!s) {
        mg_scope_release(&row.scope);
        *how = MG_SESSION_ERROR;
        return NULL;
    }
    snprintf(s->id, sizeof(s->id), "%s", id);
    snprintf(s->repo, sizeof(s->repo), "%s", row.repo);
    s->scope = row.scope;
    s->shared = true;
    *how = MG_SESSION_FOUND;
    return s;
}

struct mg_session *mg_sessions_lookup(struct mg_sessions *r, const char *id, const char *tenant, enum mg_lookup *how,
                                      struct mg_err *err)
{
    struct mg_session *s = get(r, id, tenant, how);
    if (s || *how == MG_SESSION_EXPIRED || !r->cfg) return s;
    return shared_lookup(r, id, tenant, how, err);
}

/* Write a shared session's binding and scope to PostgreSQL, touching its
 * last use; 0 at once for any other session. */
static int save(struct mg_session *s, struct mg_err *err)
{
    struct mg_sessions *r = s->reg;
    if (!s->shared || !r->cfg) return 0;
    char repo[MG_ID_MAX + 1];
    struct mg_scope sc;
    pthread_mutex_lock(&s->mu);
    memcpy(repo, s->repo, sizeof(repo));
    int cp = mg_scope_copy(&sc, &s->scope);
    pthread_mutex_unlock(&s->mu);
    if (cp != 0) return mg_err_oom(err);
    int rc = mg__session_pg_save(r->cfg, shared_ttl(r), s->id, s->tenant, repo, &sc, err);
    mg_scope_release(&sc);
    return rc;
}

long mg_sessions_purge_shared(struct mg_sessions *r, struct mg_err *err)
{
    if (!r->cfg) return 0;
    long n = mg__session_pg_purge(r->cfg, err);
    if (n > 0) mg_metrics_sessions_pruned((size_t)n);
    return n;
}

/* ---- 6. the pruner ------------------------------------------------------------------------------------------------- */

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

void mg_sessions_free(struct mg_sessions **rp)
{
    struct mg_sessions *r = rp ? *rp : NULL;
    if (!r) return;
    *rp = NULL;
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
