/* watch.h — keep the indexes of a data directory up to date as files change.
 *
 * `memgate serve` and `memgate mcp` start one watcher. It follows every repo
 * of the catalog (new ones within WATCH_RESCAN_S seconds) whose watching is
 * on (repo setting `watch`, else config `watch`):
 *
 *   - inotify on every directory the walk enters (.gitignore'd, .git,
 *     submodule and, outside git, dependency and cache directories left out),
 *     new directories added as they appear;
 *   - the changed paths are collected per repo and indexed as one batch when
 *     the repo has been quiet for WATCH_QUIET_EDIT_MS while the batch holds
 *     at most WATCH_EDIT_PATHS paths (a save is a few events within a few
 *     milliseconds: write, or a temporary file and a rename), for
 *     WATCH_QUIET_MS once it holds more (a checkout, a build: a stream of
 *     events, where waiting makes one run of many), and at most
 *     WATCH_MAX_WAIT_MS after the first change (a `git checkout` of 5,000
 *     files is a few batches, not 5,000 runs), with everything indexing does
 *     (mg_index_run with paths);
 *   - a change to a .gitignore, an event queue overflow or a batch of more
 *     than WATCH_MAX_BATCH paths is one full run;
 *   - when a repo has been quiet for WATCH_TIDY_IDLE_MS after a run, the
 *     upkeep no edit should wait for (mg_index_tidy: merging the small
 *     trigram and word index segments its runs left), in slices of about
 *     MG_TIDY_BUDGET_MS, WATCH_TIDY_STEP_MS apart while it stays quiet;
 *   - when the kernel's watch limit (fs.inotify.max_user_watches) is
 *     reached, that repo falls back to a full run every watch_poll_interval
 *     seconds, and says so on stderr and in its state ("polling").
 *
 * Several processes on one data directory: a repo is watched by one of them,
 * the holder of the lease `<repo db>.watch` (flock); the others try for it
 * every few seconds, so another takes over when the holder exits. Index runs
 * take the repo lock (indexer.h), so a batch waits while `memgate index` runs.
 *
 * State for status (repo meta): watch.state (watching, polling or off),
 * watch.count (directories watched), watch.pending (paths waiting),
 * watch.pid (the lease holder) and watch.updated_at, refreshed every
 * WATCH_REFRESH_S seconds while the holder lives.
 */
#ifndef MG_WATCH_H
#define MG_WATCH_H

#include "util/config.h"
#include "util/err.h"

#define WATCH_QUIET_EDIT_MS 30
#define WATCH_EDIT_PATHS 4
#define WATCH_QUIET_MS 150
#define WATCH_MAX_WAIT_MS 2000
#define WATCH_MAX_BATCH 20000
#define WATCH_RESCAN_S 5
#define WATCH_REFRESH_S 30
#define WATCH_TIDY_IDLE_MS 2000
#define WATCH_TIDY_STEP_MS 50

struct mg_watcher;

/* Told after each of the watcher's index runs that succeeded (on the
 * watcher's thread): the repo's tenant and id, its files, and how many were
 * added, changed or removed. */
struct mg_watch_hook {
    void (*ran)(void *arg, const char *tenant, const char *repo, long long files, long long changed);
    void *arg;
};

/* Start the watcher thread (NULL and 0 when config watch = off and no repo
 * turns it on: it still starts, to pick up repos and settings later); hook
 * may be NULL. */
int mg_watcher_start(const struct mg_config *c, const struct mg_watch_hook *hook, struct mg_watcher **out,
                     struct mg_err *err);
/* Stop it and release its leases (NULL is fine). */
void mg_watcher_stop(struct mg_watcher *w);

#endif
