/* trigram.h — the trigram index behind substring and regex search.
 *
 * For every file, the set of distinct byte trigrams of its stored text
 * (ASCII letters folded to lower case, every other byte as is) is recorded as
 * posting lists: trigrams(tri, seg, ids) holds, for trigram `tri`, the file
 * ids of segment `seg` as LEB128 varint deltas, ascending. Each index
 * thread of a run flushes segments of its own, so the ids of two segments
 * interleave; a trigram's list is the union of its segments. Ids of files
 * deleted since stay in old segments until compaction (mg_tri_compact) and
 * are dropped at query time by the join with `files`.
 *
 * A segment of few trigrams (a watcher's run of one edited file) goes to
 * tri_recent, a table of the same shape: inserted into the big table, its
 * rows would land one per leaf page (0.3 s for one file of Linux); the small
 * table stays in the page cache. Queries read both; mg_tri_tidy keeps
 * tri_recent to a few segments and compaction folds it into the big table.
 *
 * Files in tri_pending have no postings yet (an index run was interrupted
 * before its flush); queries treat them as candidates, and the next index
 * run adds them.
 *
 * Why not FTS5's trigram tokenizer: it indexed the Linux tree at 7.6 MB/s
 * (2 minutes for the kernel on one core); this builds in seconds and the
 * posting lists are about a tenth of the text's size.
 */
#ifndef MG_TRIGRAM_H
#define MG_TRIGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/rxlit.h"
#include "store/db.h"
#include "util/err.h"

/* Per-thread scratch for extraction: a 2^24-bit set (2 MiB). */
struct mg_tri_scratch {
    uint64_t *bits;
    uint32_t *keys;
    size_t cap;
};

int mg_tri_scratch_init(struct mg_tri_scratch *s);
void mg_tri_scratch_release(struct mg_tri_scratch *s);
/* Distinct trigram keys of text (unsorted), in s->keys; returns the count
 * or (size_t)-1 when memory runs out. */
size_t mg_tri_extract(struct mg_tri_scratch *s, const char *text, size_t len);
/* The key of the trigram at p[0..3). */
uint32_t mg_tri_key(const unsigned char *p);

/* A flush of at most this many distinct trigrams goes to tri_recent. */
#define MG_TRI_SMALL_KEYS 65536
#define MG_TRI_SEGS_MAX 16
#define MG_TRI_SEGS_BACKSTOP 256
/* tri_recent's segments: a full run merges them past MAX; an incremental
 * run (a watcher's edit, which someone waits for) only past BACKSTOP, the
 * watcher merging them past IDLE when the repo has been quiet (mg_index_tidy). */
#define MG_TRI_RECENT_SEGS_MAX 32
#define MG_TRI_RECENT_SEGS_BACKSTOP 128
#define MG_TRI_RECENT_SEGS_IDLE 8

/* In-memory postings for files being indexed, flushed as one segment. */
struct mg_tri_builder;
struct mg_tri_builder *mg_tri_builder_new(void);
/* Record that file `id` (ids must be added in ascending order) contains keys. */
int mg_tri_builder_add(struct mg_tri_builder *b, int64_t id, const uint32_t *keys, size_t n);
size_t mg_tri_builder_bytes(const struct mg_tri_builder *b);
size_t mg_tri_builder_files(const struct mg_tri_builder *b);
/* Write a new segment inside the caller's transaction, take its files off
 * tri_pending, and empty the builder. */
int mg_tri_builder_flush(struct mg_tri_builder *b, struct mg_db *d, struct mg_err *err);
void mg_tri_builder_free(struct mg_tri_builder **b);
/* Trigrams of files an earlier run stored but was killed before it flushed
 * their postings (tri_pending): rebuilt from the stored text, in segments of
 * at most about flush_bytes of postings, inside the caller's transaction. */
int mg_tri_add_pending(struct mg_db *d, size_t flush_bytes, struct mg_err *err);

/* A candidate set of file ids. */
struct mg_ids {
    bool all;      /* no constraint: every file is a candidate */
    int64_t *v;    /* ascending */
    size_t n, cap;
};
void mg_ids_release(struct mg_ids *ids);
bool mg_ids_contains(const struct mg_ids *ids, int64_t id);

/* Files that may satisfy the formula: postings for LITs, intersected for
 * AND, united for OR; plus every file in tri_pending. */
int mg_tri_candidates(struct mg_db *d, const struct mg_rx_node *f, struct mg_ids *out, struct mg_err *err);

/* Merge tri_recent into one segment when it has more than `above` segments
 * (*merged says whether it did), inside the caller's transaction: it rewrites
 * all of tri_recent, about 0.3 s after two checkouts of 1,000 Linux files. */
int mg_tri_merge_recent(struct mg_db *d, int64_t above, bool *merged, struct mg_err *err);
/* Merge all segments of both tables into one of trigrams and drop ids no
 * longer in `files`. */
int mg_tri_compact(struct mg_db *d, struct mg_err *err);
/* At the end of an index run, in its transaction: add the text it replaced
 * or removed (dead_bytes) to meta tri_dead_bytes, and compact when that
 * passes a quarter of total_bytes or the big table has more than
 * MG_TRI_SEGS_MAX segments (MG_TRI_SEGS_BACKSTOP after an incremental
 * run: compacting Linux takes seconds); else merge tri_recent into one
 * segment when it has more than MG_TRI_RECENT_SEGS_MAX (BACKSTOP after an
 * incremental run). */
int mg_tri_tidy(struct mg_db *d, uint64_t dead_bytes, uint64_t total_bytes, bool incremental, struct mg_err *err);

#endif
