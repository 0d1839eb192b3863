/* indexer_int.h — what the index pipeline's files share (index/indexer*.c).
 *
 * mg_index_run (indexer.c) loads the known files (indexer_known.c), starts
 * the workers (indexer_work.c), which read, chunk and compress the files
 * that changed and queue them, and writes them from the calling thread
 * (indexer_write.c) in batches. A file's word rows are token streams made
 * in one place (indexer_streams.c), by the workers to add them and by the
 * writer, from what the index holds, to delete them.
 */
#ifndef MG_INDEXER_INT_H
#define MG_INDEXER_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "index/chunk.h"
#include "index/indexer.h"
#include "index/refs.h"
#include "index/walk.h"
#include "security/secrets.h"
#include "store/db.h"
#include "store/tokenize.h"
#include "store/trigram.h"
#include "util/buf.h"

#define QUEUE_ITEMS    256
#define QUEUE_BYTES    (96u << 20) /* text held between workers and writer */
#define TRI_FLUSH_BYTES (192u << 20) /* trigram postings held by all parser threads */

#define ADD(field, v) __atomic_add_fetch(&(field), (v), __ATOMIC_RELAXED)

static inline bool stopped(const volatile int *stop) { return stop && *stop; }

/* CPU seconds of the calling thread. */
double mg__thread_cpu_s(void);

/* ---- the known-files map (indexer_known.c): path -> id, hash, loaded from the database ---- */

struct known {
    char *path;
    int64_t id;
    uint64_t hash;
    int64_t size, mtime; /* as indexed */
    uint8_t seen; /* set by a worker: present now (unchanged or being replaced) */
};

struct known_map {
    struct known *v;
    size_t n;
    int32_t *slots; /* open addressing: index into v, -1 empty */
    size_t nslots;
};

/* The indexed files: all of them, or (paths != NULL: an incremental run)
 * those among the paths and under them, each once. */
int mg__known_load(struct mg_db *d, const char *const *paths, size_t npaths, struct known_map *m, struct mg_err *err);
struct known *mg__known_find(const struct known_map *m, const char *path);
void mg__known_release(struct known_map *m);

/* ---- the token streams of a file's word rows (indexer_streams.c) ---- */

/* Token streams of a file's FTS rows into out/off (see struct result): the
 * path, then each chunk's symbol column and body. The symbol column holds the
 * chunk's definition and container, and every definition that starts within
 * the chunk's lines (so a window of macros or prototypes carries their names)
 * except members (fields, enumerators: mg_kind_member()). The writer
 * rebuilds the same streams to delete rows, so this is the one place they
 * are made, from data both sides have: chunk byte and line ranges, and
 * definitions with their start lines. */
struct stream_chunk {
    uint32_t start, end;            /* bytes */
    uint32_t line0, line1;          /* lines */
    const char *sym, *container;    /* the chunk's own definition, or NULL */
};

struct stream_def {
    uint32_t line;                  /* start line */
    const char *name;
};

struct stream_src {
    const char *path, *text;
    const struct stream_chunk *c;
    size_t n;
    const struct stream_def *defs;  /* ascending by line */
    size_t ndefs;
    bool marks;                     /* each symbol token followed by its mark (store/tokenize.h) */
};

int mg__build_streams(struct mg_token_set *ts, struct mg_buf *scratch, const struct stream_src *s, struct mg_buf *out,
                      uint32_t *off);
/* Definitions by start line, ties in their order. */
void mg__stream_defs_sort(struct stream_def *defs, size_t n);

/* ---- the result queue between workers and the writer (indexer_work.c) ---- */

/* One file ready to be written; or, with tri set, a parser thread's
 * trigram postings to flush (after the files they cover). */
struct result {
    struct mg_tri_builder *tri_batch;
    size_t idx;             /* the walk index of the file; of a trigram batch, the last file it covers */
    int64_t fid;            /* the file's id: the run's base id + walk index */
    const char *path;       /* borrowed from the walk */
    const char *lang;
    int64_t old_id;         /* row to replace, or 0 */
    uint64_t hash;
    int64_t mtime;
    int flags;
    char *text;             /* stored text (UTF-8) */
    size_t len;
    void *blob;             /* compressed text */
    size_t bloblen;
    struct mg_parsed parsed;
    char *fts;              /* FTS5 token streams: the path, then per chunk */
    uint32_t *fts_off;      /* its symbol column and its body; segment k is
                             * fts[fts_off[k] .. fts_off[k + 1]) */
    struct mg_refs_blobs refs; /* names defined and used (index/refs.h) */
    bool has_refs;          /* the language has a lexer: a refs row */
    struct result *next;
};

/* The writer takes the files in walk order, whatever order the workers
 * finish them in: chunk and symbol ids are handed out as files are written,
 * and ties in every ranking fall to the lower id, so the order makes an
 * index (and each search of it) the same at every thread count and run. A
 * queue past its bounds still takes the file the writer waits for, so it
 * never waits on a worker that waits on it. */
struct queue {
    pthread_mutex_t mu;
    pthread_cond_t not_empty, not_full;
    struct result *head, *tail;
    size_t items, bytes;
    int producers;          /* workers still running */
    size_t next;            /* the walk index the writer takes next */
    size_t n;               /* the walk's files */
    unsigned char *none;    /* [n]: 1 for a file that gave no result (unchanged, skipped, failed) */
};

void mg__queue_push(struct queue *q, struct result *r);
/* Walk index idx gave no result. */
void mg__queue_none(struct queue *q, size_t idx);
/* The next result in walk order (a trigram batch once the files it covers
 * are taken), or NULL when every worker is done and the queue is empty;
 * once every worker is done (an interrupted or failed run), what is left
 * in any order. Waits at most timeout_ms (returning NULL with *timed_out
 * set). */
struct result *mg__queue_pop(struct queue *q, int timeout_ms, bool *timed_out);
void mg__result_free(struct result *r);
/* The streams of a freshly chunked file (indexer_streams.c); marks: the index's
 * word rows carry symbol marks (meta fts.marks). */
int mg__result_streams(struct result *r, struct mg_token_set *ts, struct mg_buf *scratch, bool marks);

/* ---- the run, and its workers (indexer_work.c) ---- */

struct run {
    const struct mg_config *cfg;
    const char *root;
    int rootfd;
    bool trust_mtime;             /* files with their indexed size and mtime are not read (opts) */
    bool incremental;             /* a run of given paths (the watcher's) */
    bool marks;                   /* word rows with symbol marks (meta fts.marks) */
    struct mg_walk walk;
    struct known_map known;
    struct queue q;
    size_t next;                  /* next walk entry to take (atomic) */
    int64_t base_id;              /* walk entry i becomes file id base_id + i */
    size_t tri_batch_bytes;       /* a parser thread hands its postings over past this */
    struct mg_index_stats *st;    /* counters updated atomically */
    uint64_t bytes_done;          /* bytes read by workers (atomic) */
    uint64_t files_done;
    int failed;                   /* a worker hit a fatal error */
    struct mg_err worker_err;
    pthread_mutex_t err_mu;
    const struct mg_scanner *scanner; /* secrets: redacted or excluded before anything is stored */
    const volatile int *stop;     /* the caller's stop flag (mg_index_opts.stop), or NULL */
    struct mg_secret_policy policy;
};

/* A worker thread: takes walk entries until none is left (arg: the run). */
void *mg__worker_main(void *arg);

/* ---- the writer (indexer_write.c) ---- */

struct writer {
    struct mg_db *d;
    int64_t next_chunk, next_sym; /* chunk sequence and symbol id to give next: a
                                   * file's rows get one id range */
    uint64_t dead_bytes;          /* text of removed or replaced files (trigram garbage) */
    int64_t d_files, d_bytes, d_chunks, d_symbols; /* rows written minus rows deleted (incremental totals) */
    bool changed;                 /* a file written or deleted, or refs filled: the run bumps index_gen */
    struct mg_token_set *ts;      /* to rebuild the streams of rows being deleted */
    bool marks;                   /* the word rows carry symbol marks (meta fts.marks) */
    struct mg_buf tmp, streams;
};

void mg__writer_release(struct writer *w);
/* Remove one file and everything derived from it. */
int mg__delete_file(struct writer *w, int64_t id, struct mg_err *err);
int mg__write_result(struct writer *w, struct result *r, struct mg_index_stats *st, struct mg_err *err);
/* Rows of table refs for the files an index of schema 2 holds (store/db.c):
 * from their stored text and symbols, once; meta refs_ready says it is done. */
int mg__fill_refs(struct writer *w, struct mg_err *err);
/* The word rows of every file again, with symbol marks, for an index made
 * before them (meta fts.marks unset): once, by a full run. */
int mg__mark_words(struct writer *w, struct mg_err *err);

#endif
