/* scope.c — see scope.h. */
#include "search/scope.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCOPE_SLOTS 4

static struct mg_scope *scope_cache[SCOPE_SLOTS];
static unsigned long scope_clock;
static pthread_mutex_t scope_mu = PTHREAD_MUTEX_INITIALIZER;

void mg_scope_put(struct mg_scope *c)
{
    if (!c) return;
    pthread_mutex_lock(&scope_mu);
    bool last = --c->refs == 0;
    pthread_mutex_unlock(&scope_mu);
    if (!last) return;
    free(c->db);
    free(c->gen);
    free(c->key);
    free(c->r);
    free(c);
}

__attribute__((destructor)) static void scope_drop(void)
{
    for (int i = 0; i < SCOPE_SLOTS; i++) {
        mg_scope_put(scope_cache[i]);
        scope_cache[i] = NULL;
    }
}

bool mg_scope_has(const struct mg_scope *s, int64_t id)
{
    size_t a = 0, b = s->nr;
    while (a < b) { /* the first range ending at or after id */
        size_t m = (a + b) / 2;
        if (s->r[m].hi < id) a = m + 1;
        else b = m;
    }
    return a < s->nr && s->r[a].lo <= id;
}

static void fn_in_scope(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    const struct mg_scope *s = sqlite3_value_pointer(argv[0], "mg_scope");
    sqlite3_result_int(ctx, s && mg_scope_has(s, sqlite3_value_int64(argv[1])));
}

static int scope_load(struct mg_db *d, const struct mg_filter *f, struct mg_scope *c, struct mg_err *err)
{
    sqlite3_stmt *st;
    size_t cap = 0;
    if (mg_db_prepare(d, "SELECT chunk_lo, chunk_hi FROM files WHERE "
                         "chunk_lo <= chunk_hi AND mg_scope_ok(?1, path, lang) ORDER BY chunk_lo", &st, err) != 0)
        return -1;
    sqlite3_bind_pointer(st, 1, (void *)f, "mg_filter", NULL);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (c->nr == cap) {
            cap = cap ? cap * 2 : 256;
            struct mg_vrange *v = realloc(c->r, cap * sizeof(*v));
            if (!v) {
                sqlite3_finalize(st);
                return mg_err_set(err, MG_E_NO_MEMORY, "out of memory");
            }
            c->r = v;
        }
        c->r[c->nr++] = (struct mg_vrange){sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1)};
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : mg_db_error(d, "scope", err);
}

static bool scope_is(const struct mg_scope *c, const char *db, const char *gen, const char *key)
{
    return c && strcmp(c->db, db) == 0 && strcmp(c->gen, gen) == 0 && strcmp(c->key, key) == 0;
}

int mg_scope_get(struct mg_db *d, const struct mg_filter *f, struct mg_scope **out, struct mg_err *err)
{
    char gen[32] = "";
    mg_db_meta_get(d, "index_gen", gen, sizeof(gen));
    *out = NULL;
    if (sqlite3_create_function(d->db, "mg_in_scope", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, fn_in_scope, NULL,
                                NULL) != SQLITE_OK)
        return mg_db_error(d, "register mg_in_scope", err);
    if (f->key) {
        pthread_mutex_lock(&scope_mu);
        for (int i = 0; i < SCOPE_SLOTS && !*out; i++)
            if (scope_is(scope_cache[i], d->path, gen, f->key)) {
                *out = scope_cache[i];
                (*out)->refs++;
                (*out)->used = ++scope_clock;
            }
        pthread_mutex_unlock(&scope_mu);
        if (*out) return 0;
    }
    struct mg_scope *c = calloc(1, sizeof(*c));
    if (!c) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory");
    c->refs = 1;
    c->db = strdup(d->path);
    c->gen = strdup(gen);
    c->key = f->key ? strdup(f->key) : NULL;
    if (!c->db || !c->gen || (f->key && !c->key)) {
        mg_scope_put(c);
        return mg_err_set(err, MG_E_NO_MEMORY, "out of memory");
    }
    if (scope_load(d, f, c, err) != 0) {
        mg_scope_put(c);
        return -1;
    }
    if (c->key) {
        /* the slot: one of an older index run of this database, else a free one, else the least used */
        pthread_mutex_lock(&scope_mu);
        int slot = -1;
        for (int i = 0; i < SCOPE_SLOTS && slot < 0; i++)
            if (scope_is(scope_cache[i], c->db, gen, c->key)) slot = i; /* loaded by another thread meanwhile */
        for (int i = 0; i < SCOPE_SLOTS && slot < 0; i++)
            if (scope_cache[i] && strcmp(scope_cache[i]->db, c->db) == 0 && strcmp(scope_cache[i]->gen, gen) != 0) slot = i;
        for (int i = 0; i < SCOPE_SLOTS && slot < 0; i++)
            if (!scope_cache[i]) slot = i;
        if (slot < 0) {
            slot = 0;
            for (int i = 1; i < SCOPE_SLOTS; i++)
                if (scope_cache[i]->used < scope_cache[slot]->used) slot = i;
        }
        struct mg_scope *old = scope_cache[slot];
        scope_cache[slot] = c;
        c->refs++;
        c->used = ++scope_clock;
        pthread_mutex_unlock(&scope_mu);
        mg_scope_put(old);
    }
    *out = c;
    return 0;
}
