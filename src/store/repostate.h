/* repostate.h — how a repo's index runs went and what watches it, for
 * stats (index_status, GET /v1/repos/{id}/stats, `memgate status`, /metrics).
 *
 * Everything comes from the repo database's meta table (one read of its few
 * rows, never a count over the big tables) and one probe of its lock file:
 *
 *   index.full_at, index.full_ms   the last complete run: when it ended (unix
 *                                  s) and how long it took (written by every
 *                                  run, index/indexer.c)
 *   index.incr_at, index.incr_ms   the same for the last incremental run (the
 *                                  watcher's); absent: never
 *   index.redactions               secrets redacted by runs so far
 *   index.last_error(_at)          "code: sentence" of the last failed run, ""
 *                                  once a run succeeds
 *   vectors                        vectors stored (vector/vindex.c)
 *   watch.state, watch.count,      the file watcher's account: watching |
 *   watch.pending, watch.pid,      polling | off, directories watched, changes
 *   watch.updated_at               not indexed yet, its process, when it last
 *                                  wrote (it does every 30 s while alive)
 *   setting.*                      the repo's settings (store/settings.h)
 *
 * A watcher state older than MG_WATCH_STALE_S whose process is gone reads
 * "off": a watcher killed without cleaning up leaves its rows behind.
 * Unknown numbers are -1 (callers show null), never a guess.
 */
#ifndef MG_REPOSTATE_H
#define MG_REPOSTATE_H

#include <stdbool.h>
#include <stdint.h>

#include "store/db.h"
#include "store/settings.h"

#define MG_WATCH_STALE_S 120

struct mg_repo_state {
    int64_t vectors;              /* -1: unknown (not counted yet) */
    int64_t full_at, full_ms;     /* -1: never (or not recorded) */
    int64_t incr_at, incr_ms;     /* -1: never */
    char watch_state[12];         /* "watching", "polling" or "off" */
    int64_t watch_count;          /* directories (or files) watched; 0 when off */
    int64_t pending;              /* changes seen, not indexed yet; -1: unknown (a watcher that died) */
    int64_t redactions;
    char last_error[640];         /* "" when the last run succeeded */
    int64_t last_error_at;        /* -1: none */
    bool busy;                    /* a run holds the repo's lock now */
    char vectors_warning[768];    /* what the last embedding pass could not do ("model_invalid: ..."), "" if nothing */
    struct mg_repo_settings settings;
};

/* Read d's state (dbpath names its lock file) as of now (unix s). 0, or -1
 * with err. */
int mg_repo_state_read(struct mg_db *d, const char *dbpath, int64_t now, struct mg_repo_state *st,
                       struct mg_err *err);

/* Everything unknown (-1), the watcher off, the settings the defaults: the
 * state of a repo with no local index. */
void mg_repo_state_unknown(struct mg_repo_state *st);

/* Does an index run hold the lock of the repo at dbpath? A non-blocking
 * shared flock on <dbpath>.lock, released at once. */
bool mg_repo_busy(const char *dbpath);

#endif
