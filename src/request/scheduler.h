/* scheduler.h — scheduled re-index in `memgate serve`.
 *
 * A thread looks at the catalog every MG_SCHED_TICK_MS (the repos of every
 * tenant, and each one's setting reindex_interval, store/settings.h) and
 * re-indexes each repo whose interval is set, once per interval with a
 * random jitter of ±10 % so that repos set alike do not run together. A
 * run by anyone else (`memgate index`, index_repo) counts: a repo indexed
 * less than 90 % of its interval ago is planned again from that run.
 * Settings are re-read at every tick, so a change needs no restart.
 *
 * A run is what index_repo does without a path, through the gate, acting
 * as the repo's tenant at write level: the same root policy, the same
 * audit event (op index_repo, instance "scheduler"), the same meta rows for
 * stats (index.full_at, index.last_error, ...). Runs are one at a time on
 * this thread, and never beside another run of the repo: when the repo's
 * lock is held (another process or thread indexing it) the run is skipped,
 * not failed, and tried again at the next tick. A failed run is retried an
 * interval later. Each outcome is counted in
 * memgate_scheduled_index_runs_total{result} and written on stderr.
 *
 * The thread blocks no signal of its own (serve blocks SIGINT and SIGTERM
 * in every thread); a run under way stops at its next file once
 * srv->stopping is set, and mg_scheduler_stop wakes and joins the thread.
 */
#ifndef MG_SCHEDULER_H
#define MG_SCHEDULER_H

#include "request/server.h"

#define MG_SCHED_TICK_MS 10000 /* MEMGATE_TEST_MIN_REINDEX_INTERVAL makes it 1000 */

struct mg_scheduler;

/* Start the scheduler of srv (which must outlive it). 0, or -1 with err. */
int mg_scheduler_start(struct mg_server *srv, struct mg_scheduler **out, struct mg_err *err);
/* Stop it (a run under way ends at its next file when srv->stopping is
 * set) and free it; *s becomes NULL. */
void mg_scheduler_stop(struct mg_scheduler **s);

#endif
