/* follow.h — a daemon following the shared catalog (store/catalog.h) in
 * `memgate serve`: every daemon brings its own indexes up to the catalog.
 *
 * A LISTEN connection (store/pg.h mg_pg_listen) on MG_CATALOG_CHANNEL.
 * After each (re)connect the follower reads the whole catalog into memory
 * (from then on the process's listings read that copy, no query per
 * request) and reconciles every repo; after each notification it re-reads
 * that repo's row and reconciles it. Reconciling a repo:
 *
 *   current          the catalog's settings are written into the local
 *                    index where they differ (the watcher and the webhook
 *                    read them there); nothing else;
 *   behind, pending  a catch-up run is asked of the transport (catchup_fn):
 *                    the index_repo tool as the repo's tenant, which records
 *                    the generation it reached and bumps nothing; with the
 *                    repo's pull_on_push on, a fast-forward pull first (the
 *                    working copy follows its upstream: as the webhook does
 *                    on the daemon that received a push, and also after a
 *                    restart that missed it);
 *   conflict         the local file (another tenant's or root's, under the
 *                    same id) is dropped when the run starts, then as
 *                    pending;
 *   absent           the root is not on this machine: noted once on stderr;
 *                    searches of it here answer index_not_local;
 *   gone             (removed, reason remove, or missing at a resync) this
 *                    daemon's index of it is dropped, if the catalog had
 *                    given it a generation; an index the catalog never knew
 *                    (made before storage pointed at PostgreSQL) is left
 *                    alone, unlisted, and noted once.
 *
 * Notifications sent while the connection is down are lost; the reconcile
 * after the reconnect finds what they said. The catch-up runs are the
 * transport's (http/hook_run.c: one queue per repo, coalesced, at most two
 * at once): mg_follow_ready tells a run, as it starts, whether the repo
 * still needs it.
 */
#ifndef MG_FOLLOW_H
#define MG_FOLLOW_H

#include <stdbool.h>

#include "request/server.h"

struct mg_follower;

/* Ask for a catch-up run of repo r: pull first (its pull_on_push), the
 * delivery id of the push that caused it (NULL: none, or not a push). Runs
 * on the follower's thread: queue it and return. */
typedef void (*mg_catchup_fn)(void *ud, const struct mg_repo *r, bool pull, const char *delivery);

/* Is there a shared catalog to follow (storage is a PostgreSQL URL)? */
bool mg_follow_wanted(const struct mg_server *srv);
/* Start following (the LISTEN thread; it connects, and reconnects, by
 * itself, so PostgreSQL may be down now). 0, or -1 with err. */
int mg_follower_start(struct mg_server *srv, mg_catchup_fn fn, void *ud, struct mg_follower **out,
                      struct mg_err *err);
/* Stop it (no more catchup_fn calls after) and free it; *f becomes NULL. */
void mg_follower_stop(struct mg_follower **f);

/* As a catch-up run of repo id starts: 1 with *out (the repo as it stands,
 * a conflicting local file dropped) when it is still behind, pending or in
 * conflict; 0 when there is nothing to do (current, absent, gone); -1 with
 * err. */
int mg_follow_ready(struct mg_server *srv, const char *id, struct mg_repo *out, struct mg_err *err);

#endif
