/* indexer.h — index a repo into its database.
 *
 * mg_index_run() walks the repo (walk.h), and with index_threads workers
 * reads, hashes (xxh3), repairs, chunks (chunk.h), extracts trigrams and
 * compresses each file whose content hash changed, while one writer thread
 * stores them. A re-index with no change reads and hashes every file and
 * writes nothing but the meta row. Vanished files are removed.
 *
 * Crash safety: the writer commits every few seconds; each file's rows are
 * written together, so a kill leaves a consistent index that holds the files
 * committed so far, and the next run finishes the job. SIGINT/SIGTERM stop
 * the run at the next file and commit what is done (error `interrupted`):
 * the caller turns SIGINT/SIGTERM into its `stop` flag.
 * One index run per repo at a time: a run waits a little for another to
 * finish (lock_wait_ms), then fails with index_busy.
 */
#ifndef MG_INDEXER_H
#define MG_INDEXER_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "store/catalog.h"
#include "util/config.h"
#include "util/err.h"
#include "util/progress.h"
#include "vector/vindex.h"

struct mg_index_stats;

struct mg_index_opts {
    const char *path;  /* the directory to index, as given */
    const char *name;  /* --name, or NULL to derive the id from the path */
    /* re-indexing an existing repo: its stored root, which path must still resolve to (NULL: indexing a path) */
    const char *stored_root;
    bool token;         /* the caller holds an access token: tenant `local` is restricted like any other */
    const char *tenant; /* the owning tenant of a new repo, and the only one that may re-index it (NULL: "local") */
    /* Progress of the run, for whoever shows it (NULL: nobody): called from
     * the writer thread about five times a second, and at each phase's end. */
    mg_progress_fn on_progress;
    void *progress_ud;
    /* Read by the workers: nonzero stops the run at the next file, keeping
     * what is done (error `interrupted`). Set it from a signal handler or
     * another thread (NULL: never). */
    const volatile int *stop;
    /* An incremental run (a watcher's batch): only these root-relative paths
     * are looked at, each a file or a directory standing for everything
     * under it; those the walk rules admit are indexed, and indexed files
     * among them that are gone or no longer admitted are removed. NULL: the
     * whole tree. */
    const char *const *paths;
    size_t npaths;
    struct mg_walk_rules *rules; /* with paths: the caller's rules handle for the root (borrowed), or NULL */
    /* A file whose size and mtime are what the index holds is taken as
     * unchanged without reading it (a watcher catching up, polling); off, every
     * file is read and hashed. */
    bool trust_mtime;
    /* How long to wait for another run of the repo to finish before
     * index_busy: 0 is 5 s, negative is not at all. */
    int lock_wait_ms;
    /* Called with the run's stats once its changes are committed, on a
     * thread of its own beside what the run still does (the word index's
     * closing merge, vectors), and joined before the run's closing
     * checkpoint, which waits for no reader then (NULL: nothing). Not called
     * when the run fails or stops before that commit. */
    void (*after_commit)(void *ud, const struct mg_index_stats *st);
    void *after_commit_ud;
};

struct mg_index_stats {
    char id[MG_ID_MAX + 1];
    char root[PATH_MAX];
    bool git;               /* walked with git rules */
    bool created;           /* the repo was new */
    uint64_t files;         /* candidate files after the walk */
    uint64_t added, changed, unchanged, removed;
    uint64_t skipped_binary, skipped_too_large, skipped_secret, skipped_symlink;
    uint64_t skipped_special, skipped_bad_name, skipped_unreadable;
    uint64_t repaired_utf8; /* files with invalid UTF-8 replaced by U+FFFD */
    uint64_t parse_failed;  /* grammar files chunked in windows (parser gave up) */
    uint64_t secrets_redacted; /* secrets replaced by [REDACTED:rule] in added and changed files */
    uint64_t chunks_excluded;  /* chunks blanked because they held a secret to exclude */
    uint64_t bytes_read;    /* bytes of all candidate files read and hashed */
    uint64_t bytes_indexed; /* bytes of added and changed files */
    uint64_t chunks, symbols;   /* totals in the index after the run */
    uint64_t chunks_written, symbols_written;
    uint64_t total_files, total_bytes;  /* totals in the index after the run */
    double seconds;
    double merge_seconds;   /* merging the word index into one segment at the end (0: not done) */
    double cpu_workers;     /* CPU seconds spent by the parser threads ... */
    double cpu_writer;      /* ... and by the database writer */
    struct mg_vec_stats vec; /* the embedding pass (vector/vindex.h) */
};

int mg_index_run(const struct mg_config *c, const struct mg_index_opts *o, struct mg_index_stats *st,
                 struct mg_err *err);

/* Upkeep a watcher does when the repo has been quiet, so that no edit waits
 * for it: merge the small trigram segments of its runs (tri_recent, more than
 * MG_TRI_RECENT_SEGS_IDLE of them; an incremental run itself only merges them
 * past MG_TRI_RECENT_SEGS_BACKSTOP), then the word index's segments that its
 * runs left (mg_idx_words_merge), a step at a time for at most about
 * MG_TIDY_BUDGET_MS; *more is then true when merging is left to do. Each
 * step its own transaction, under the repo's lock: while another run holds
 * it, nothing is done (error index_busy). */
#define MG_TIDY_BUDGET_MS 200
int mg_index_tidy(const char *dbpath, bool *more, struct mg_err *err);

#endif
