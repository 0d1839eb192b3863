/* replay.c — delivery ids seen lately, so a captured delivery cannot be
 * played again (hook.h). <home>/hooks.db, one row per id; kept durable
 * (synchronous=FULL) because a replay after a restart is still a replay. */
#include "hook/hook.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>

#include "security/common.h"
#include "store/sqlite.h"

static const char *const migrations[] = {
    /* 0 -> 1 */
    "CREATE TABLE deliveries("
    "  source TEXT NOT NULL,"   /* github | gitlab */
    "  id TEXT NOT NULL,"       /* X-GitHub-Delivery, X-Gitlab-Event-UUID or Idempotency-Key */
    "  seen_at INTEGER NOT NULL," /* unix ms */
    "  PRIMARY KEY(source, id)) WITHOUT ROWID;"
    "CREATE INDEX deliveries_seen ON deliveries(seen_at);",
};

struct mg_hook_replay {
    pthread_mutex_t mu; /* one handle, opened without SQLite's mutex: one thread at a time */
    sqlite3 *db;
    char path[PATH_MAX];
};

int mg_hook_replay_open(const struct mg_config *c, struct mg_hook_replay **out, struct mg_err *err)
{
    *out = NULL;
    if (mg_mkdirs_0700(c->home, err) != 0) return -1;
    struct mg_hook_replay *rp = calloc(1, sizeof(*rp));
    if (!rp) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory opening the webhook delivery store");
    pthread_mutex_init(&rp->mu, NULL);
    snprintf(rp->path, sizeof(rp->path), "%s/hooks.db", c->home);
    struct mg_sqlite_spec spec = {
        .what = "webhook delivery store",
        .create = true,
        .busy_ms = 5000,
        .pragmas = "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;",
        .migrations = migrations,
        .version = (int)(sizeof(migrations) / sizeof(migrations[0])),
    };
    if (mg_sqlite_open(rp->path, &spec, &rp->db, err) != 0) {
        mg_hook_replay_close(rp);
        return -1;
    }
    *out = rp;
    return 0;
}

void mg_hook_replay_close(struct mg_hook_replay *rp)
{
    if (!rp) return;
    if (rp->db) sqlite3_close_v2(rp->db);
    pthread_mutex_destroy(&rp->mu);
    free(rp);
}

/* Run one statement with up to one text and two integer parameters. */
static int step(struct mg_hook_replay *rp, const char *sql, const char *t1, const char *t2, int64_t i1,
                struct mg_err *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(rp->db, sql, -1, &st, NULL) != SQLITE_OK)
        return mg_sqlite_fail(rp->db, rp->path, "prepare", err);
    int k = 1;
    if (t1) sqlite3_bind_text(st, k++, t1, -1, SQLITE_STATIC);
    if (t2) sqlite3_bind_text(st, k++, t2, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, k, i1);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc == SQLITE_DONE) return 0;
    if ((rc & 0xff) == SQLITE_CONSTRAINT) return 1;
    return mg_sqlite_fail(rp->db, rp->path, "record a delivery", err);
}

/* Forget ids past their time, then the oldest beyond the row cap. */
static int forget_old(struct mg_hook_replay *rp, int64_t now_ms, struct mg_err *err)
{
    if (step(rp, "DELETE FROM deliveries WHERE seen_at < ?", NULL, NULL,
             now_ms - (int64_t)MG_HOOK_REPLAY_TTL_S * 1000, err) < 0)
        return -1;
    return step(rp,
                "DELETE FROM deliveries WHERE (source, id) IN (SELECT source, id FROM deliveries "
                "ORDER BY seen_at DESC LIMIT -1 OFFSET ?)",
                NULL, NULL, MG_HOOK_REPLAY_ROWS, err) < 0
               ? -1
               : 0;
}

int mg_hook_replay_record(struct mg_hook_replay *rp, const char *source, const char *id, int64_t now_ms,
                          struct mg_err *err)
{
    pthread_mutex_lock(&rp->mu);
    int rc = -1;
    if (sqlite3_exec(rp->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
        mg_sqlite_fail(rp->db, rp->path, "begin", err);
        goto out;
    }
    if (forget_old(rp, now_ms, err) != 0) goto rollback;
    int ins = step(rp, "INSERT INTO deliveries(source, id, seen_at) VALUES(?, ?, ?)", source, id, now_ms, err);
    if (ins < 0) goto rollback;
    if (sqlite3_exec(rp->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        mg_sqlite_fail(rp->db, rp->path, "commit", err);
        goto rollback;
    }
    rc = ins == 0 ? 1 : 0; /* a constraint violation: the id is there already */
    goto out;
rollback:
    sqlite3_exec(rp->db, "ROLLBACK", NULL, NULL, NULL);
out:
    pthread_mutex_unlock(&rp->mu);
    return rc;
}
