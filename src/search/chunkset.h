/* chunkset.h — the chunks a filter allows, as chunk-id ranges, cached.
 *
 * A filter (path globs, excludes, languages: struct mg_filter, db.h) allows
 * the chunks of the files it matches. Working that out is a pass over the
 * files table with mg_filter_ok (40 ms for Linux's 78,000 files); a session
 * searches many times with one filter, so the last few chunk sets are kept,
 * named by the database, its index run (meta index_gen, which every run
 * commits with the files) and the filter's text (mg_filter.key; a filter
 * without a key is worked out every time). Shared by threads,
 * reference-counted.
 *
 * Semantic search scores only the vectors in the ranges; lexical search
 * ranks only the rows in them, passing `set` to the index's ranking query
 * (store/indexdb.h's mg_idx_rank).
 */
#ifndef MG_CHUNKSET_H
#define MG_CHUNKSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/indexdb.h"
#include "util/err.h"
#include "vector/vstore.h"

/* What chunkset.c's caches keep of an entry (private): its database, index
 * run and key, its references, when it was last used, and how it is freed. */
struct mg_run_cached {
    char *db, *gen, *key;
    int refs;
    unsigned long used;
    void (*release)(struct mg_run_cached *);
};

struct mg_chunkset {
    struct mg_vrange *r; /* ascending, disjoint */
    size_t nr;
    struct mg_idx_idset set; /* the ranges as a query's scope (store/indexdb.h) */
    struct mg_run_cached c;  /* private */
};

/* The chunks f allows (f allows less than everything) in d's repo. 0, or -1
 * with err set; a reference the caller drops with mg_chunkset_unref. */
int mg_chunkset_get(struct mg_db *d, const struct mg_filter *f, struct mg_chunkset **out, struct mg_err *err);
void mg_chunkset_unref(struct mg_chunkset *s); /* drops a reference; NULL: nothing */
bool mg_chunkset_has(const struct mg_chunkset *s, int64_t chunk_id);

/* Every file's chunk-id range with its id and flags, by chunk id: which file
 * a chunk belongs to, without a query per chunk (the whole-file ranking of a
 * word in 2,400 files looked each file up: 12 of a search's 23 ms). Read
 * from the index files_chunks (schema 6; 25 ms for Linux's 78,000 files), kept
 * per database and index run (meta index_gen) like the chunk sets, shared
 * by threads, reference-counted. */
struct mg_filemap {
    struct mg_vrange *r; /* each file's chunk-id range, ascending, as a chunk set's */
    int64_t *id;
    int *flags;
    size_t n;
    struct mg_run_cached c; /* private */
};

/* The map of d's index run: the cached one; else, once the lookups that callers
 * without a map did (`lookups`, this call's included) would have paid for
 * reading it, read now; else *out NULL (the caller looks files up one at a
 * time: a one-shot search of few files does not read the map). 0 or -1. */
int mg_filemap_get(struct mg_db *d, size_t lookups, struct mg_filemap **out, struct mg_err *err);
void mg_filemap_unref(struct mg_filemap *m); /* NULL: nothing */
/* The index in m of the file holding chunk id, or -1. */
long mg_filemap_find(const struct mg_filemap *m, int64_t id);
/* The same for an id at or after the chunks of m's file `from` (ids taken in
 * ascending order: a few steps from the last file found, not a search of all). */
long mg_filemap_find_from(const struct mg_filemap *m, int64_t id, size_t from);

#endif
