/* vstore.c — the built-in vector store (see vstore.h).
 *
 * Sections:
 *   1. keys
 *   2. the process cache and the store vtable
 * The in-memory set (quantisation, the sealed blobs it is loaded from, exact
 * search) is in vset.c; the column file, a second form of the vectors for
 * one-query readers, in vcols.c.
 */
#include "vector/vstore.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "store/db.h"
#include "store/indexdb.h"
#include "vector/vext.h"

/* ---- 1. keys --------------------------------------------------------------------- */

static pthread_once_t sodium_once = PTHREAD_ONCE_INIT;
static int sodium_ok;
static void sodium_start(void) { sodium_ok = sodium_init() >= 0; }

static int hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int mg_vkey_load(const struct mg_config *c, const char *tenant, unsigned char key[MG_VKEY_BYTES],
                 struct mg_err *err)
{
    pthread_once(&sodium_once, sodium_start);
    if (!sodium_ok) return mg_err_set(err, MG_E_INTERNAL, "libsodium failed to start");
    const char *m = getenv("MEMGATE_MASTER_KEY");
    if (m && *m) {
        unsigned char master[32];
        if (strlen(m) != 64)
            return mg_err_set(err, MG_E_KEY, "MEMGATE_MASTER_KEY must be 64 hex digits (32 bytes), e.g. from "
                              "`openssl rand -hex 32`");
        for (int i = 0; i < 32; i++) {
            int hi = hexval(m[2 * i]), lo = hexval(m[2 * i + 1]);
            if (hi < 0 || lo < 0)
                return mg_err_set(err, MG_E_KEY, "MEMGATE_MASTER_KEY must be 64 hex digits (32 bytes)");
            master[i] = (unsigned char)(hi << 4 | lo);
        }
        char ctx[160];
        snprintf(ctx, sizeof(ctx), "memgate vectors v1 tenant=%s", tenant);
        crypto_generichash(key, MG_VKEY_BYTES, (const unsigned char *)ctx, strlen(ctx), master, sizeof(master));
        sodium_memzero(master, sizeof(master));
        return 0;
    }
    char dir[PATH_MAX], path[PATH_MAX + 128];
    snprintf(dir, sizeof(dir), "%s/keys", c->home);
    if (mkdir(c->home, 0700) != 0 && errno != EEXIST)
        return mg_err_set(err, MG_E_KEY, "cannot create '%s': %s", c->home, strerror(errno));
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return mg_err_set(err, MG_E_KEY, "cannot create '%s': %s", dir, strerror(errno));
    snprintf(path, sizeof(path), "%s/%s.key", dir, tenant);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0 && errno == ENOENT) {
        /* first use: a random key, written to a temporary file and linked in,
         * so a concurrent first use keeps exactly one key */
        unsigned char k[MG_VKEY_BYTES];
        randombytes_buf(k, sizeof(k));
        char tmp[PATH_MAX + 160];
        snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
        int w = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (w < 0) return mg_err_set(err, MG_E_KEY, "cannot create '%s': %s", tmp, strerror(errno));
        ssize_t wr = write(w, k, sizeof(k));
        int sy = fsync(w);
        close(w);
        sodium_memzero(k, sizeof(k));
        if (wr != (ssize_t)sizeof(k) || sy != 0) {
            unlink(tmp);
            return mg_err_set(err, MG_E_KEY, "cannot write '%s'", tmp);
        }
        if (link(tmp, path) != 0 && errno != EEXIST) {
            int e = errno;
            unlink(tmp);
            return mg_err_set(err, MG_E_KEY, "cannot create '%s': %s", path, strerror(e));
        }
        unlink(tmp);
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    }
    if (fd < 0) return mg_err_set(err, MG_E_KEY, "cannot open the vector key '%s': %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || (sb.st_mode & 077) || sb.st_size != MG_VKEY_BYTES) {
        close(fd);
        return mg_err_set(err, MG_E_KEY, "the vector key '%s' must be a %d-byte file only you can read (mode 0600)",
                          path, MG_VKEY_BYTES);
    }
    ssize_t r = read(fd, key, MG_VKEY_BYTES);
    close(fd);
    if (r != MG_VKEY_BYTES) return mg_err_set(err, MG_E_KEY, "cannot read the vector key '%s'", path);
    return 0;
}

void mg_vkey_id(const unsigned char key[MG_VKEY_BYTES], char out[17])
{
    unsigned char h[8];
    crypto_generichash(h, sizeof(h), (const unsigned char *)"memgate key id", 14, key, MG_VKEY_BYTES);
    for (int i = 0; i < 8; i++) snprintf(out + 2 * i, 3, "%02x", h[i]);
}

/* ---- 2. the cache and the store -------------------------------------------------------------------- */

#define CACHE_SLOTS MG_VCACHE_REPOS

/* One repo's vectors at one generation: loaded (vs), being loaded, or
 * failed to load (err, for the callers that waited on it). A loading slot
 * is never taken for another repo. */
static struct cache_slot {
    char path[4096];
    char gen[64];
    struct mg_vset *vs;
    bool loading, failed;
    struct mg_vload progress;
    struct mg_err err;
    unsigned long used;
} cache[CACHE_SLOTS];
static unsigned long cache_clock;
static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cache_cv = PTHREAD_COND_INITIALIZER; /* a load ended */
/* One load at a time: two would share the CPUs and the disk and each end later. */
static pthread_mutex_t load_mu = PTHREAD_MUTEX_INITIALIZER;

/* What names a generation of d's vectors: vec_gen and the key's id. */
static void gen_of(struct mg_db *d, const unsigned char key[MG_VKEY_BYTES], char gen[64])
{
    char kid[17], g[32] = "0";
    mg_vkey_id(key, kid);
    mg_db_meta_get(d, "vec_gen", g, sizeof(g));
    snprintf(gen, 64, "%s:%s", g, kid);
}

/* Under cache_mu: the slot of (path, gen), or -1. */
static int slot_find(const char *path, const char *gen)
{
    for (int i = 0; i < CACHE_SLOTS; i++)
        if (cache[i].path[0] && strcmp(cache[i].path, path) == 0 && strcmp(cache[i].gen, gen) == 0) return i;
    return -1;
}

/* Under cache_mu: a slot to load (path, gen) into, marked loading: the
 * repo's older generation's (dropped now: it is stale), else an empty one,
 * else the least recently used; -1 when every slot is loading. */
static int slot_claim(const char *path, const char *gen)
{
    int slot = -1;
    for (int i = 0; i < CACHE_SLOTS && slot < 0; i++)
        if (!cache[i].loading && strcmp(cache[i].path, path) == 0) slot = i;
    for (int i = 0; i < CACHE_SLOTS && slot < 0; i++)
        if (!cache[i].path[0]) slot = i;
    bool lru = slot < 0; /* (no slot is empty then) */
    for (int i = 0; lru && i < CACHE_SLOTS; i++)
        if (!cache[i].loading && (slot < 0 || cache[i].used < cache[slot].used)) slot = i;
    if (slot < 0) return -1;
    struct cache_slot *c = &cache[slot];
    mg_vset_unref(&c->vs); /* (searches holding it keep their reference) */
    snprintf(c->path, sizeof(c->path), "%s", path);
    snprintf(c->gen, sizeof(c->gen), "%s", gen);
    c->loading = true;
    c->failed = false;
    c->progress = (struct mg_vload){0};
    c->err = (struct mg_err){0};
    c->used = ++cache_clock;
    return slot;
}

/* A process that loaded the whole set of generation gen writes the column
 * file when it holds another generation, so that the next one-query reader
 * (a CLI search) reads a few columns instead: at most every COLS_EVERY
 * seconds per repo, as a watcher's re-indexing may bring new generations
 * one after another (a full index run writes it at once: mg_vcols_update).
 * Best effort: a reader without it loads the blobs. */
#define COLS_EVERY 600
static void cols_refresh(const char *dbpath, const char *repo_id, const char *gen,
                         const unsigned char key[MG_VKEY_BYTES], const struct mg_vset *s)
{
    char have[64];
    double age = 0;
    if (mg_vcols_gen(dbpath, have, &age) == 0 && (strcmp(have, gen) == 0 || age < COLS_EVERY)) return;
    struct mg_err ignored = {0};
    mg_vcols_write(dbpath, repo_id, gen, key, s, &ignored);
}

/* Load the claimed slot from d (on the calling thread); with out, the
 * caller gets a reference too. 0, or -1 with err set. */
static int slot_load(int slot, struct mg_db *d, const char *repo_id, const unsigned char key[MG_VKEY_BYTES],
                     struct mg_vset **out, struct mg_err *err)
{
    struct mg_vset *s = NULL;
    struct mg_err e = {0};
    pthread_mutex_lock(&load_mu);
    int rc = mg_vset_load(d, repo_id, key, &cache[slot].progress, &s, &e);
    pthread_mutex_unlock(&load_mu);
    pthread_mutex_lock(&cache_mu);
    struct cache_slot *c = &cache[slot];
    c->loading = false;
    if (rc == 0) {
        if (out) s->refs++; /* (not shared yet) */
        c->vs = s;
    } else {
        c->failed = true;
        c->err = e;
    }
    char gen[64];
    snprintf(gen, sizeof(gen), "%s", c->gen);
    pthread_cond_broadcast(&cache_cv);
    pthread_mutex_unlock(&cache_mu);
    if (rc == 0) cols_refresh(d->path, repo_id, gen, key, s);
    if (out) *out = s;
    if (rc != 0 && err) *err = e;
    return rc;
}

struct bg_load {
    char path[4096], gen[64], repo[128];
    unsigned char key[MG_VKEY_BYTES];
    int slot;
};

/* A background load, on a read-only connection of its own, in one read
 * transaction: the generation it loads is the one it was asked for, or it
 * fails (and the next search starts the new one's). */
static void *bg_main(void *arg)
{
    struct bg_load *j = arg;
#ifdef SYS_gettid
    /* searches answered meanwhile come first on a busy machine */
    setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10);
#endif
    struct mg_db *d = NULL;
    struct mg_err e = {0};
    char gen[64];
    if (mg_db_open(j->path, MG_DB_READONLY, &d, &e) != 0 || mg_db_begin_read(d, &e) != 0) {
        pthread_mutex_lock(&cache_mu);
        cache[j->slot].loading = false;
        cache[j->slot].failed = true;
        cache[j->slot].err = e;
        pthread_cond_broadcast(&cache_cv);
        pthread_mutex_unlock(&cache_mu);
    } else {
        gen_of(d, j->key, gen);
        if (strcmp(gen, j->gen) != 0) {
            pthread_mutex_lock(&cache_mu);
            cache[j->slot].loading = false;
            cache[j->slot].path[0] = 0; /* changed meanwhile: the next search loads the new generation */
            pthread_cond_broadcast(&cache_cv);
            pthread_mutex_unlock(&cache_mu);
        } else {
            slot_load(j->slot, d, j->repo, j->key, NULL, &e);
        }
        mg_db_commit(d, NULL);
    }
    mg_db_close(&d);
    sodium_memzero(j->key, sizeof(j->key));
    free(j);
    return NULL;
}

/* Start loading the claimed slot on a thread of its own; 0, or -1 when no
 * thread could start (the slot is left claimed). */
static int bg_start(int slot, const char *path, const char *gen, const char *repo_id,
                    const unsigned char key[MG_VKEY_BYTES])
{
    struct bg_load *j = calloc(1, sizeof(*j));
    if (!j) return -1;
    snprintf(j->path, sizeof(j->path), "%s", path);
    snprintf(j->gen, sizeof(j->gen), "%s", gen);
    snprintf(j->repo, sizeof(j->repo), "%s", repo_id);
    memcpy(j->key, key, MG_VKEY_BYTES);
    j->slot = slot;
    pthread_t t;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&t, &at, bg_main, j);
    pthread_attr_destroy(&at);
    if (rc != 0) {
        sodium_memzero(j->key, sizeof(j->key));
        free(j);
        return -1;
    }
    return 0;
}

/* The repo's vectors of generation gen, the current one (gen_of; a
 * reference): from the cache, else loaded. With wait, the caller waits for a load under way or
 * loads them itself; without, a load is started in the background if none
 * is under way and 1 is returned (loading: its progress). 0, 1, or -1 with
 * err set. Vectors of another generation are never returned. */
static int vset_get(struct mg_db *d, const char *repo_id, const unsigned char key[MG_VKEY_BYTES], const char *gen,
                    bool wait, struct mg_vload *loading, struct mg_vset **out, struct mg_err *err)
{
    *out = NULL;
    pthread_mutex_lock(&cache_mu);
    int slot;
    for (;;) {
        int i = slot_find(d->path, gen);
        struct cache_slot *c = i >= 0 ? &cache[i] : NULL;
        if (c && c->vs) {
            c->used = ++cache_clock;
            __atomic_add_fetch(&c->vs->refs, 1, __ATOMIC_ACQ_REL);
            *out = c->vs;
            pthread_mutex_unlock(&cache_mu);
            return 0;
        }
        if (c && c->failed) {
            *err = c->err;
            /* a tampered blob stays so until the vectors change; another failure may pass: try again next time */
            if (!err->code || strcmp(err->code, MG_E_VECTOR_TAMPERED) != 0) c->path[0] = 0, c->failed = false;
            pthread_mutex_unlock(&cache_mu);
            return -1;
        }
        if (c && !c->loading) c = NULL; /* (neither loaded, failed nor loading: as good as absent) */
        if (!c && (slot = slot_claim(d->path, gen)) >= 0) break;
        if (!wait) { /* loading (or every slot is) */
            if (loading)
                *loading = c ? (struct mg_vload){__atomic_load_n(&c->progress.done, __ATOMIC_RELAXED),
                                                 __atomic_load_n(&c->progress.total, __ATOMIC_RELAXED), 0}
                             : (struct mg_vload){0};
            pthread_mutex_unlock(&cache_mu);
            return 1;
        }
        pthread_cond_wait(&cache_cv, &cache_mu);
    }
    pthread_mutex_unlock(&cache_mu);
    if (!wait && bg_start(slot, d->path, gen, repo_id, key) == 0) {
        if (loading) *loading = (struct mg_vload){0};
        return 1;
    }
    return slot_load(slot, d, repo_id, key, out, err);
}

int mg_vcache_state(const char *dbpath, struct mg_vload *progress)
{
    int state = 0, best = -1;
    pthread_mutex_lock(&cache_mu);
    for (int i = 0; i < CACHE_SLOTS; i++)
        if (cache[i].path[0] && strcmp(cache[i].path, dbpath) == 0 && (best < 0 || cache[i].used > cache[best].used))
            best = i;
    if (best >= 0) {
        struct cache_slot *c = &cache[best];
        state = c->vs ? 2 : c->loading ? 1 : -1;
        if (progress)
            *progress = (struct mg_vload){__atomic_load_n(&c->progress.done, __ATOMIC_RELAXED),
                                          __atomic_load_n(&c->progress.total, __ATOMIC_RELAXED), 0};
    }
    pthread_mutex_unlock(&cache_mu);
    return state;
}

/* The process is ending: loads under way stop at their next file. */
__attribute__((destructor)) static void cache_drop(void)
{
    pthread_mutex_lock(&cache_mu);
    for (int i = 0; i < CACHE_SLOTS; i++) {
        __atomic_store_n(&cache[i].progress.stop, 1, __ATOMIC_RELAXED);
        if (!cache[i].loading) mg_vset_unref(&cache[i].vs);
    }
    pthread_mutex_unlock(&cache_mu);
}

struct builtin_store {
    struct mg_db *d;
    char repo[128];
    unsigned char key[MG_VKEY_BYTES];
    struct mg_vset *pinned; /* the vectors search uses, once pinned */
};

static int bs_put(struct mg_vstore *vs, int64_t file_id, const int64_t *ids, const float *vecs, size_t n, int dim,
                  struct mg_err *err)
{
    struct builtin_store *s = vs->self;
    void *blob;
    size_t len;
    if (mg_vblob_seal(s->key, s->repo, file_id, dim, n, ids, vecs, &blob, &len, err) != 0) return -1;
    int rc = mg_idx_vectors_put(s->d, file_id, n, blob, len, err);
    free(blob);
    return rc;
}

static int bs_prune(struct mg_vstore *vs, int all, struct mg_err *err)
{
    struct builtin_store *s = vs->self;
    return mg_idx_vectors_prune(s->d, all, err);
}

/* Under no lock: the current generation's whole set if this process holds
 * it (a reference), else NULL. */
static struct mg_vset *vset_peek(struct mg_db *d, const unsigned char key[MG_VKEY_BYTES], char gen[64])
{
    gen_of(d, key, gen);
    struct mg_vset *v = NULL;
    pthread_mutex_lock(&cache_mu);
    int i = slot_find(d->path, gen);
    if (i >= 0 && cache[i].vs) {
        cache[i].used = ++cache_clock;
        v = cache[i].vs;
        __atomic_add_fetch(&v->refs, 1, __ATOMIC_ACQ_REL);
    }
    pthread_mutex_unlock(&cache_mu);
    return v;
}

/* Pin what a search for q needs: the whole set when this process holds it;
 * else, waiting, the query's columns from the column file; else the whole
 * set (loaded, or loading without wait). */
static int bs_pin(struct mg_vstore *vs, bool wait, const float *q, int dim, struct mg_vload *loading,
                  struct mg_err *err)
{
    struct builtin_store *s = vs->self;
    struct mg_vset *p = s->pinned;
    if (p && !p->have) return 0;
    if (p && q && p->dim == dim) { /* a partial set: has it q's columns? */
        bool all = true;
        for (int j = 0; j < dim && all; j++) all = q[j] == 0 || p->have[j];
        if (all) return 0;
    }
    char gen[64];
    struct mg_vset *whole = vset_peek(s->d, s->key, gen);
    if (whole) {
        mg_vset_unref(&s->pinned);
        s->pinned = whole;
        return 0;
    }
    if (q && wait) {
        int rc = mg_vcols_read(s->d->path, s->repo, gen, s->key, q, dim, &s->pinned, err);
        if (rc <= 0) return rc;
    }
    mg_vset_unref(&s->pinned);
    return vset_get(s->d, s->repo, s->key, gen, wait, loading, &s->pinned, err);
}

/* The vectors a search or scoring for q uses (a reference). */
static int store_set(struct mg_vstore *vs, const float *q, int dim, struct mg_vset **set, struct mg_err *err)
{
    struct builtin_store *s = vs->self;
    if (bs_pin(vs, true, q, dim, NULL, err) != 0) return -1;
    *set = s->pinned;
    __atomic_add_fetch(&(*set)->refs, 1, __ATOMIC_ACQ_REL);
    return 0;
}

static long bs_search(struct mg_vstore *vs, const float *q, int dim, const struct mg_vrange *r, size_t nr, int k,
                      struct mg_vmatch *out, struct mg_err *err)
{
    struct builtin_store *s = vs->self;
    struct mg_vset *set;
    if (store_set(vs, q, dim, &set, err) != 0) return -1;
    long n = 0;
    if (set->n && set->dim != dim)
        n = mg_err_set(err, MG_E_NO_EMBEDDINGS, "the vectors of repo '%s' have %d dimensions, the query %d; index "
                       "the repo again", s->repo, set->dim, dim);
    else if ((n = mg_vset_search(set, q, r, nr, k, out)) < 0)
        mg_err_oom(err);
    mg_vset_unref(&set);
    return n;
}

static int bs_score(struct mg_vstore *vs, const float *q, int dim, const int64_t *ids, size_t n, float *scores,
                    struct mg_err *err)
{
    struct builtin_store *s = vs->self;
    struct mg_vset *set;
    if (store_set(vs, q, dim, &set, err) != 0) return -1;
    int rc = 0;
    if (set->n && set->dim != dim)
        rc = mg_err_set(err, MG_E_NO_EMBEDDINGS, "the vectors of repo '%s' have %d dimensions, the query %d",
                        s->repo, set->dim, dim);
    else if (mg_vset_score(set, q, ids, n, scores) != 0)
        rc = mg_err_oom(err);
    mg_vset_unref(&set);
    return rc;
}

static void bs_close(struct mg_vstore *vs)
{
    struct builtin_store *s = vs->self;
    mg_vset_unref(&s->pinned);
    sodium_memzero(s->key, sizeof(s->key));
    free(s);
}

static const struct mg_vstore_ops builtin_store_ops = {bs_put, bs_prune, bs_search, bs_score, bs_close, bs_pin};

static int builtin_open(struct mg_db *d, const char *repo_id, const unsigned char key[MG_VKEY_BYTES],
                        struct mg_vstore **out, struct mg_err *err)
{
    *out = NULL;
    struct mg_vstore *vs = calloc(1, sizeof(*vs));
    struct builtin_store *s = calloc(1, sizeof(*s));
    if (!vs || !s) {
        free(vs);
        free(s);
        return mg_err_oom(err);
    }
    s->d = d;
    snprintf(s->repo, sizeof(s->repo), "%s", repo_id);
    memcpy(s->key, key, MG_VKEY_BYTES);
    vs->ops = &builtin_store_ops;
    vs->self = s;
    *out = vs;
    return 0;
}

void mg_vstore_close(struct mg_vstore **ps)
{
    struct mg_vstore *s = *ps;
    if (!s) return;
    s->ops->close(s);
    free(s);
    *ps = NULL;
}

int mg_vstore_open(const struct mg_config *cfg, struct mg_db *d, const char *repo_id,
                   const unsigned char key[MG_VKEY_BYTES], struct mg_vstore **out, struct mg_err *err)
{
    const struct mg_vext_api *api = mg_vext_api_of(cfg); /* vector_store = chroma | qdrant (vext.h) */
    if (api) return mg_vext_open(cfg, api, d, repo_id, out, err);
    return builtin_open(d, repo_id, key, out, err);
}

int mg_vcols_update(const struct mg_config *c, const char *dbpath, const char *repo_id, struct mg_err *err)
{
    struct mg_db *d = NULL;
    unsigned char key[MG_VKEY_BYTES] = {0};
    char gen[64], have[64], sig[64] = "", path[4200], tenant[65];
    int rc = -1;
    if (mg_db_open(dbpath, MG_DB_READONLY, &d, err) != 0) return -1;
    if (mg_db_begin_read(d, err) != 0) goto out;
    mg_db_meta_get(d, "embed_sig", sig, sizeof(sig));
    if (!sig[0] || strcmp(sig, "none") == 0 || mg_db_meta_int(d, "vectors", 0) == 0 || mg_vext_api_of(c)) {
        /* (an external store's vectors are not here: no column file) */
        mg_vcols_path(dbpath, path, sizeof(path));
        rc = unlink(path) == 0 || errno == ENOENT ? 0 : mg_err_set(err, MG_E_IO, "cannot remove '%s': %s", path,
                                                                    strerror(errno));
        goto out;
    }
    /* the repo's owner: its vectors are sealed under that tenant's key (vindex.c) */
    if (mg_db_meta_get(d, "tenant", tenant, sizeof(tenant)) != 0) snprintf(tenant, sizeof(tenant), "local");
    if (mg_vkey_load(c, tenant, key, err) != 0) goto out;
    gen_of(d, key, gen);
    if (mg_vcols_gen(dbpath, have, NULL) == 0 && strcmp(have, gen) == 0) {
        rc = 0;
        goto out;
    }
    struct mg_vset *s = vset_peek(d, key, gen);
    if (!s && mg_vset_load(d, repo_id, key, NULL, &s, err) != 0) goto out;
    rc = mg_vcols_write(dbpath, repo_id, gen, key, s, err);
    mg_vset_unref(&s);
out:
    sodium_memzero(key, sizeof(key));
    if (d) mg_db_commit(d, NULL);
    mg_db_close(&d);
    return rc;
}
