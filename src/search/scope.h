/* scope.h — the chunks a search scope allows, as id ranges, cached.
 *
 * A scope (globs, excludes, languages: struct mg_filter) allows the chunks of
 * the files it matches. Working that out is a pass over the files table with
 * mg_scope_ok (40 ms for Linux's 78,000 files); a session searches many times
 * in one scope, so the last few results are kept, named by the database, its
 * index run (meta index_gen, which every run commits with the files) and the
 * scope's text (mg_filter.key; a filter without a key is worked out every
 * time). Shared by threads, reference-counted.
 *
 * Semantic search scores only the vectors in the ranges; lexical search
 * ranks only the rows in them, with the SQL function
 *
 *   mg_in_scope(scope, rowid)   1 when rowid lies in one of the ranges; scope
 *                               is bound with sqlite3_bind_pointer(...,
 *                               "mg_scope", NULL)
 *
 * which mg_scope_get registers on the handle.
 */
#ifndef MG_SCOPE_H
#define MG_SCOPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/db.h"
#include "util/err.h"
#include "vector/vstore.h"

struct mg_scope {
    struct mg_vrange *r; /* ascending, disjoint */
    size_t nr;
    /* private */
    char *db, *gen, *key;
    int refs;
    unsigned long used;
};

/* The scope of f (which allows less than everything) in d's repo. 0, or -1
 * with err set. Release with mg_scope_put. */
int mg_scope_get(struct mg_db *d, const struct mg_filter *f, struct mg_scope **out, struct mg_err *err);
void mg_scope_put(struct mg_scope *s);
bool mg_scope_has(const struct mg_scope *s, int64_t chunk_id);

#endif
