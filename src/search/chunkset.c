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
