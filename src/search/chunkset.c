/* chunkset.c — see chunkset.h.
 *
 * Sections:
 *   1. the caches: entries of an index run, named by database, run and key
 *   2. chunk sets
 *   3. the file map
 */
#include "search/chunkset.h"

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/indexdb.h"

/* ---- 1. the caches ---------------------------------------------------------------------------------- */

struct cache {
    struct mg_run_cached **slot;
    int n;
};

static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;
static unsigned long cache_clock;

static void cached_unref(struct mg_run_cached *e)
{
    if (!e) return;
    pthread_mutex_lock(&cache_mu);
    bool last = --e->refs == 0;
    pthread_mutex_unlock(&cache_mu);
    if (!last) return;
    free(e->db);
    free(e->gen);
    free(e->key);
    e->release(e);
}

/* e named by d's path, its index run and key (copied); one reference. 0, or -1 out of memory. */
static int cached_init(struct mg_run_cached *e, const char *db, const char *gen, const char *key,
                       void (*release)(struct mg_run_cached *))
{
    *e = (struct mg_run_cached){.db = strdup(db), .gen = strdup(gen), .key = strdup(key), .refs = 1,
                                .release = release};
    return e->db && e->gen && e->key ? 0 : -1;
}

static bool cached_is(const struct mg_run_cached *e, const char *db, const char *gen, const char *key)
{
    return e && strcmp(e->db, db) == 0 && strcmp(e->gen, gen) == 0 && strcmp(e->key, key) == 0;
}

/* The entry (db, gen, key) with a reference for the caller, or NULL. */
static struct mg_run_cached *cache_find(struct cache *c, const char *db, const char *gen, const char *key)
{
    struct mg_run_cached *e = NULL;
    pthread_mutex_lock(&cache_mu);
    for (int i = 0; i < c->n && !e; i++)
        if (cached_is(c->slot[i], db, gen, key)) {
            e = c->slot[i];
            e->refs++;
            e->used = ++cache_clock;
        }
    pthread_mutex_unlock(&cache_mu);
    return e;
}

/* Keep e (a reference of the cache's own) in the slot of its database and key (another thread's copy, or an
 * older run's), else of another key of an older run of its database, else a free one, else the least
 * recently used; what was there is dropped. */
static void cache_put(struct cache *c, struct mg_run_cached *e)
{
    pthread_mutex_lock(&cache_mu);
    int slot = -1;
    for (int i = 0; i < c->n && slot < 0; i++)
        if (c->slot[i] && strcmp(c->slot[i]->db, e->db) == 0 && strcmp(c->slot[i]->key, e->key) == 0) slot = i;
    for (int i = 0; i < c->n && slot < 0; i++)
        if (c->slot[i] && strcmp(c->slot[i]->db, e->db) == 0 && strcmp(c->slot[i]->gen, e->gen) != 0) slot = i;
    for (int i = 0; i < c->n && slot < 0; i++)
        if (!c->slot[i]) slot = i;
    if (slot < 0) {
        slot = 0;
        for (int i = 1; i < c->n; i++)
            if (c->slot[i]->used < c->slot[slot]->used) slot = i;
    }
    struct mg_run_cached *old = c->slot[slot];
    c->slot[slot] = e;
    e->refs++;
    e->used = ++cache_clock;
    pthread_mutex_unlock(&cache_mu);
    cached_unref(old);
}

static void cache_drop(struct cache *c)
{
    for (int i = 0; i < c->n; i++) {
        cached_unref(c->slot[i]);
        c->slot[i] = NULL;
    }
}

/* The range of r[0..n) (ascending, disjoint) that holds id, or -1. */
static long range_of(const struct mg_vrange *r, size_t n, int64_t id)
{
    size_t a = 0, b = n;
    while (a < b) { /* the first range ending at or after id */
        size_t m = (a + b) / 2;
        if (r[m].hi < id) a = m + 1;
        else b = m;
    }
    return a < n && r[a].lo <= id ? (long)a : -1;
}

/* the index run of d (meta index_gen, which every run commits with the files) */
static void run_of(struct mg_db *d, char gen[32])
{
    gen[0] = 0;
    mg_db_meta_get(d, "index_gen", gen, 32);
}

/* ---- 2. chunk sets ---------------------------------------------------------------------------------- */

static struct mg_run_cached *chunkset_slot[4];
static struct cache chunksets = {chunkset_slot, 4};

static void chunkset_release(struct mg_run_cached *e)
{
    struct mg_chunkset *s = (struct mg_chunkset *)(void *)((char *)e - offsetof(struct mg_chunkset, c));
    free(s->r);
    free(s);
}

void mg_chunkset_unref(struct mg_chunkset *s)
{
    if (s) cached_unref(&s->c);
}

bool mg_chunkset_has(const struct mg_chunkset *s, int64_t id) { return range_of(s->r, s->nr, id) >= 0; }

/* mg_in_idset's question, for lexical search's ranking (store/indexdb.h) */
static bool chunkset_has(const void *self, int64_t id) { return mg_chunkset_has(self, id); }

static int chunkset_load(struct mg_db *d, const struct mg_filter *f, struct mg_chunkset *c, struct mg_err *err)
{
    struct mg_idx_cur cur;
    struct mg_idx_row row;
    size_t cap = 0;
    if (mg_idx_scope_ranges(d, f, &cur, err) != 0) return -1;
    int rc;
    while ((rc = mg_idx_next(&cur, &row)) > 0) {
        if (c->nr == cap) {
            cap = cap ? cap * 2 : 256;
            struct mg_vrange *v = realloc(c->r, cap * sizeof(*v));
            if (!v) {
                mg_idx_done(&cur);
                return mg_err_oom(err);
            }
            c->r = v;
        }
        c->r[c->nr++] = (struct mg_vrange){row.chunk_lo, row.chunk_hi};
    }
    mg_idx_done(&cur);
    return rc == 0 ? 0 : mg_db_error(d, "chunk set", err);
}

int mg_chunkset_get(struct mg_db *d, const struct mg_filter *f, struct mg_chunkset **out, struct mg_err *err)
{
    char gen[32];
    run_of(d, gen);
    struct mg_run_cached *e = f->key ? cache_find(&chunksets, d->path, gen, f->key) : NULL;
    *out = e ? (struct mg_chunkset *)(void *)((char *)e - offsetof(struct mg_chunkset, c)) : NULL;
    if (*out) return 0;
    struct mg_chunkset *c = calloc(1, sizeof(*c));
    if (!c) return mg_err_oom(err);
    c->set = (struct mg_idx_idset){chunkset_has, c};
    if (cached_init(&c->c, d->path, gen, f->key ? f->key : "", chunkset_release) != 0) {
        mg_chunkset_unref(c);
        return mg_err_oom(err);
    }
    if (chunkset_load(d, f, c, err) != 0) {
        mg_chunkset_unref(c);
        return -1;
    }
    if (f->key) cache_put(&chunksets, &c->c); /* (a filter without a key is worked out every time) */
    *out = c;
    return 0;
}

/* ---- 3. the file map -------------------------------------------------------------------------------- */

static struct mg_run_cached *filemap_slot[2];
static struct cache filemaps = {filemap_slot, 2};

__attribute__((destructor)) static void caches_drop(void)
{
    cache_drop(&chunksets);
    cache_drop(&filemaps);
}

static void filemap_release(struct mg_run_cached *e)
{
    struct mg_filemap *m = (struct mg_filemap *)(void *)((char *)e - offsetof(struct mg_filemap, c));
    free(m->r);
    free(m->id);
    free(m->flags);
    free(m);
}

void mg_filemap_unref(struct mg_filemap *m)
{
    if (m) cached_unref(&m->c);
}

long mg_filemap_find(const struct mg_filemap *m, int64_t id) { return range_of(m->r, m->n, id); }

long mg_filemap_find_from(const struct mg_filemap *m, int64_t id, size_t from)
{
    if (from >= m->n || m->r[from].hi >= id) return from < m->n && m->r[from].lo <= id ? (long)from : -1;
    size_t step = 1; /* r[from].hi < id: gallop to a range ending at or after id, then halve */
    while (from + step < m->n && m->r[from + step].hi < id) step *= 2;
    size_t a = from + step / 2 + 1, b = from + step < m->n ? from + step + 1 : m->n;
    long k = range_of(m->r + a, b - a, id);
    return k < 0 ? -1 : (long)a + k;
}

static int filemap_load(struct mg_db *d, struct mg_filemap *m, struct mg_err *err)
{
    struct mg_idx_cur cur;
    struct mg_idx_row row;
    size_t cap = 0;
    if (mg_idx_file_map(d, &cur, err) != 0) return -1;
    int rc;
    while ((rc = mg_idx_next(&cur, &row)) > 0) {
        if (m->n == cap) {
            cap = cap ? cap * 2 : 1024;
            struct mg_vrange *r = realloc(m->r, cap * sizeof(*r));
            if (r) m->r = r;
            int64_t *id = r ? realloc(m->id, cap * sizeof(*id)) : NULL;
            if (id) m->id = id;
            int *fl = id ? realloc(m->flags, cap * sizeof(*fl)) : NULL;
            if (!fl) {
                mg_idx_done(&cur);
                return mg_err_oom(err);
            }
            m->flags = fl;
        }
        m->r[m->n] = (struct mg_vrange){row.chunk_lo, row.chunk_hi};
        m->id[m->n] = row.id;
        m->flags[m->n++] = row.flags;
    }
    mg_idx_done(&cur);
    return rc == 0 ? 0 : mg_db_error(d, "file map", err);
}

#define FILEMAP_WORTH 8192 /* file lookups (a seek each) that cost what reading Linux's map costs */
static size_t filemap_spent;

int mg_filemap_get(struct mg_db *d, size_t lookups, struct mg_filemap **out, struct mg_err *err)
{
    char gen[32];
    run_of(d, gen);
    struct mg_run_cached *e = cache_find(&filemaps, d->path, gen, "");
    *out = e ? (struct mg_filemap *)(void *)((char *)e - offsetof(struct mg_filemap, c)) : NULL;
    if (*out) return 0;
    pthread_mutex_lock(&cache_mu);
    bool load = (filemap_spent += lookups) >= FILEMAP_WORTH;
    if (load) filemap_spent = 0;
    pthread_mutex_unlock(&cache_mu);
    if (!load) return 0;
    struct mg_filemap *m = calloc(1, sizeof(*m));
    if (!m) return mg_err_oom(err);
    if (cached_init(&m->c, d->path, gen, "", filemap_release) != 0) {
        mg_filemap_unref(m);
        return mg_err_oom(err);
    }
    if (filemap_load(d, m, err) != 0) {
        mg_filemap_unref(m);
        return -1;
    }
    cache_put(&filemaps, &m->c);
    *out = m;
    return 0;
}
