/* chunkset.c — see chunkset.h. */
#include "search/chunkset.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/indexdb.h"

#define CHUNKSET_SLOTS 4

static struct mg_chunkset *chunkset_cache[CHUNKSET_SLOTS];
static unsigned long chunkset_clock;
static pthread_mutex_t chunkset_mu = PTHREAD_MUTEX_INITIALIZER;

void mg_chunkset_unref(struct mg_chunkset *c)
{
    if (!c) return;
    pthread_mutex_lock(&chunkset_mu);
    bool last = --c->refs == 0;
    pthread_mutex_unlock(&chunkset_mu);
    if (!last) return;
    free(c->db);
    free(c->gen);
    free(c->key);
    free(c->r);
    free(c);
}

__attribute__((destructor)) static void chunkset_drop(void)
{
    for (int i = 0; i < CHUNKSET_SLOTS; i++) {
        mg_chunkset_unref(chunkset_cache[i]);
        chunkset_cache[i] = NULL;
    }
}

bool mg_chunkset_has(const struct mg_chunkset *s, int64_t id)
{
    size_t a = 0, b = s->nr;
    while (a < b) { /* the first range ending at or after id */
        size_t m = (a + b) / 2;
        if (s->r[m].hi < id) a = m + 1;
        else b = m;
    }
    return a < s->nr && s->r[a].lo <= id;
}

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

static bool chunkset_is(const struct mg_chunkset *c, const char *db, const char *gen, const char *key)
{
    return c && strcmp(c->db, db) == 0 && strcmp(c->gen, gen) == 0 && strcmp(c->key, key) == 0;
}

int mg_chunkset_get(struct mg_db *d, const struct mg_filter *f, struct mg_chunkset **out, struct mg_err *err)
{
    char gen[32] = "";
    mg_db_meta_get(d, "index_gen", gen, sizeof(gen));
    *out = NULL;
    if (f->key) {
        pthread_mutex_lock(&chunkset_mu);
        for (int i = 0; i < CHUNKSET_SLOTS && !*out; i++)
            if (chunkset_is(chunkset_cache[i], d->path, gen, f->key)) {
                *out = chunkset_cache[i];
                (*out)->refs++;
                (*out)->used = ++chunkset_clock;
            }
        pthread_mutex_unlock(&chunkset_mu);
        if (*out) return 0;
    }
    struct mg_chunkset *c = calloc(1, sizeof(*c));
    if (!c) return mg_err_oom(err);
    c->refs = 1;
    c->set = (struct mg_idx_idset){chunkset_has, c};
    c->db = strdup(d->path);
    c->gen = strdup(gen);
    c->key = f->key ? strdup(f->key) : NULL;
    if (!c->db || !c->gen || (f->key && !c->key)) {
        mg_chunkset_unref(c);
        return mg_err_oom(err);
    }
    if (chunkset_load(d, f, c, err) != 0) {
        mg_chunkset_unref(c);
        return -1;
    }
    if (c->key) {
        /* the slot: one of an older index run of this database, else a free one, else the least used */
        pthread_mutex_lock(&chunkset_mu);
        int slot = -1;
        for (int i = 0; i < CHUNKSET_SLOTS && slot < 0; i++)
            if (chunkset_is(chunkset_cache[i], c->db, gen, c->key)) slot = i; /* loaded by another thread meanwhile */
        for (int i = 0; i < CHUNKSET_SLOTS && slot < 0; i++)
            if (chunkset_cache[i] && strcmp(chunkset_cache[i]->db, c->db) == 0 && strcmp(chunkset_cache[i]->gen, gen) != 0) slot = i;
        for (int i = 0; i < CHUNKSET_SLOTS && slot < 0; i++)
            if (!chunkset_cache[i]) slot = i;
        if (slot < 0) {
            slot = 0;
            for (int i = 1; i < CHUNKSET_SLOTS; i++)
                if (chunkset_cache[i]->used < chunkset_cache[slot]->used) slot = i;
        }
        struct mg_chunkset *old = chunkset_cache[slot];
        chunkset_cache[slot] = c;
        c->refs++;
        c->used = ++chunkset_clock;
        pthread_mutex_unlock(&chunkset_mu);
        mg_chunkset_unref(old);
    }
    *out = c;
    return 0;
}

/* ---- the file map ----------------------------------------------------------------------------------- */

#define FILEMAP_SLOTS 2

static struct mg_filemap *filemap_cache[FILEMAP_SLOTS];

void mg_filemap_unref(struct mg_filemap *m)
{
    if (!m) return;
    pthread_mutex_lock(&chunkset_mu);
    bool last = --m->refs == 0;
    pthread_mutex_unlock(&chunkset_mu);
    if (!last) return;
    free(m->db);
    free(m->gen);
    free(m->lo);
    free(m->hi);
    free(m->id);
    free(m->flags);
    free(m);
}

__attribute__((destructor)) static void filemap_drop(void)
{
    for (int i = 0; i < FILEMAP_SLOTS; i++) {
        mg_filemap_unref(filemap_cache[i]);
        filemap_cache[i] = NULL;
    }
}

long mg_filemap_find(const struct mg_filemap *m, int64_t id)
{
    size_t a = 0, b = m->n;
    while (a < b) { /* the first file ending at or after id */
        size_t k = (a + b) / 2;
        if (m->hi[k] < id) a = k + 1;
        else b = k;
    }
    return a < m->n && m->lo[a] <= id ? (long)a : -1;
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
            int64_t *lo = realloc(m->lo, cap * sizeof(*lo));
            if (lo) m->lo = lo;
            int64_t *hi = lo ? realloc(m->hi, cap * sizeof(*hi)) : NULL;
            if (hi) m->hi = hi;
            int64_t *id = hi ? realloc(m->id, cap * sizeof(*id)) : NULL;
            if (id) m->id = id;
            int *fl = id ? realloc(m->flags, cap * sizeof(*fl)) : NULL;
            if (!fl) {
                mg_idx_done(&cur);
                return mg_err_oom(err);
            }
            m->flags = fl;
        }
        m->lo[m->n] = row.chunk_lo;
        m->hi[m->n] = row.chunk_hi;
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
    char gen[32] = "";
    mg_db_meta_get(d, "index_gen", gen, sizeof(gen));
    *out = NULL;
    pthread_mutex_lock(&chunkset_mu);
    for (int i = 0; i < FILEMAP_SLOTS && !*out; i++) {
        struct mg_filemap *m = filemap_cache[i];
        if (m && strcmp(m->db, d->path) == 0 && strcmp(m->gen, gen) == 0) {
            *out = m;
            m->refs++;
            m->used = ++chunkset_clock;
        }
    }
    bool load = !*out && (filemap_spent += lookups) >= FILEMAP_WORTH;
    if (load) filemap_spent = 0;
    pthread_mutex_unlock(&chunkset_mu);
    if (*out || !load) return 0;
    struct mg_filemap *m = calloc(1, sizeof(*m));
    if (!m) return mg_err_oom(err);
    m->refs = 1;
    m->db = strdup(d->path);
    m->gen = strdup(gen);
    if (!m->db || !m->gen || filemap_load(d, m, err) != 0) {
        if (!err->code) mg_err_oom(err);
        mg_filemap_unref(m);
        return -1;
    }
    /* the slot: this database's of another index run, else a free one, else the least used */
    pthread_mutex_lock(&chunkset_mu);
    int slot = -1;
    for (int i = 0; i < FILEMAP_SLOTS && slot < 0; i++)
        if (filemap_cache[i] && strcmp(filemap_cache[i]->db, m->db) == 0) slot = i;
    for (int i = 0; i < FILEMAP_SLOTS && slot < 0; i++)
        if (!filemap_cache[i]) slot = i;
    if (slot < 0) slot = filemap_cache[0]->used <= filemap_cache[1]->used ? 0 : 1;
    struct mg_filemap *old = filemap_cache[slot];
    filemap_cache[slot] = m;
    m->refs++;
    m->used = ++chunkset_clock;
    pthread_mutex_unlock(&chunkset_mu);
    mg_filemap_unref(old);
    *out = m;
    return 0;
}
