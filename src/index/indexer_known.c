/* indexer_known.c — the files an index holds, loaded once per run: path ->
 * id, content hash, size and mtime, in an open-addressing map the workers
 * probe (indexer_int.h). */
#include "index/indexer_int.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "store/indexdb.h"

static size_t path_slot(const char *p, size_t mask) { return (size_t)XXH3_64bits(p, strlen(p)) & mask; }

static int cmp_known(const void *a, const void *b)
{
    return strcmp(((const struct known *)a)->path, ((const struct known *)b)->path);
}

/* Append the rows c yields (id, path, hash, size, mtime). 0, or -1 out of memory. */
static int known_rows(struct mg_idx_cur *c, struct known_map *m, size_t *cap)
{
    struct mg_idx_row row;
    while (mg_idx_next(c, &row) > 0) {
        if (m->n == *cap) {
            *cap = *cap ? *cap * 2 : 1024;
            struct known *v = realloc(m->v, *cap * sizeof(*v));
            if (!v) return -1;
            m->v = v;
        }
        struct known *k = &m->v[m->n];
        k->id = row.id;
        k->path = strdup(row.path);
        k->hash = row.hash;
        k->size = row.size;
        k->mtime = row.mtime;
        k->seen = 0;
        if (!k->path) return -1;
        m->n++;
    }
    return 0;
}

/* The indexed files: all of them, or (paths != NULL: an incremental run)
 * those among the paths and under them, each once. */
int mg__known_load(struct mg_db *d, const char *const *paths, size_t npaths, struct known_map *m,
                      struct mg_err *err)
{
    memset(m, 0, sizeof(*m));
    size_t cap = 0;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < (paths ? npaths : 1); i++) {
        struct mg_idx_cur c;
        if (mg_idx_files_known(d, paths ? paths[i] : NULL, &c, err) != 0) return -1;
        rc = known_rows(&c, m, &cap);
        mg_idx_done(&c);
    }
    if (rc != 0) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory reading the index");
    if (paths && m->n) { /* a file and its directory both in the batch: once */
        qsort(m->v, m->n, sizeof(*m->v), cmp_known);
        size_t k = 0;
        for (size_t i = 0; i < m->n; i++) {
            if (k && strcmp(m->v[k - 1].path, m->v[i].path) == 0) free(m->v[i].path);
            else m->v[k++] = m->v[i];
        }
        m->n = k;
    }
    m->nslots = 16;
    while (m->nslots < m->n * 2) m->nslots *= 2;
    m->slots = malloc(m->nslots * sizeof(int32_t));
    if (!m->slots) return mg_err_oom(err);
    memset(m->slots, 0xff, m->nslots * sizeof(int32_t));
    for (size_t i = 0; i < m->n; i++) {
        size_t j = path_slot(m->v[i].path, m->nslots - 1);
        while (m->slots[j] >= 0) j = (j + 1) & (m->nslots - 1);
        m->slots[j] = (int32_t)i;
    }
    return 0;
}

struct known *mg__known_find(const struct known_map *m, const char *path)
{
    if (!m->nslots) return NULL;
    size_t j = path_slot(path, m->nslots - 1);
    while (m->slots[j] >= 0) {
        struct known *k = &m->v[m->slots[j]];
        if (strcmp(k->path, path) == 0) return k;
        j = (j + 1) & (m->nslots - 1);
    }
    return NULL;
}

void mg__known_release(struct known_map *m)
{
    for (size_t i = 0; i < m->n; i++) free(m->v[i].path);
    free(m->v);
    free(m->slots);
    memset(m, 0, sizeof(*m));
}
