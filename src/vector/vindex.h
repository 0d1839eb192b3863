/* vindex.h — the embedding pass of an index run.
 *
 * After the index pipeline has committed (indexer.c), mg_vec_index() gives
 * vectors to every file of the repo that has none, from the stored text
 * (so embeddings only ever see what the index stores, redacted as stored),
 * one vector per chunk: the file's path, a newline, the chunk's text.
 *
 * Vectors are stale, and all are made again, when the embedder, its model,
 * the vector key, or (builtin) the corpus statistics change: the repo's
 * meta keeps embed_sig and vec_key_id. Vectors of removed or changed files
 * are pruned. vec_gen (meta) grows whenever the repo's vectors change, which
 * tells readers' caches to reload.
 *
 * Failures never fail the index: the repo stays searchable by keywords and
 * the stats carry a warning (an unreachable endpoint, a bad key); files left
 * without vectors are embedded by the next run.
 */
#ifndef MG_VINDEX_H
#define MG_VINDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "util/config.h"
#include "util/progress.h"

struct mg_db;

struct mg_vec_stats {
    char embedder[160];    /* the embedder's signature, or "none" */
    uint64_t files;        /* files embedded by this run */
    uint64_t chunks;       /* vectors made by this run */
    uint64_t pending;      /* files still without vectors */
    bool reembedded;       /* the old vectors were stale and dropped */
    double seconds;
    char warning[768];     /* non-empty: what failed; search is keyword-only where vectors are missing */
};

/* stop: nonzero ends the pass after the batch in hand (NULL: never).
 * on_progress (may be NULL): files embedded of those to do, after each
 * batch (phase "embed"). */
void mg_vec_index(const struct mg_config *c, struct mg_db *d, const char *repo_id, mg_progress_fn on_progress,
                  void *progress_ud, const volatile int *stop, struct mg_vec_stats *st);

#endif
