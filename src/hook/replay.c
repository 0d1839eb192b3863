/* replay.c — deliveries seen lately, so a captured delivery cannot be
 * played again (hook.h). A delivery is known by the digest of its body, the
 * bytes its signature covers, never by its delivery id: a header outside the
 * signature that a replayer may change or drop, and that may hold anything
 * (issue 38, V6 and V8). <home>/hooks.db, one row per digest; kept durable
 * (synchronous=FULL) because a replay after a restart is still a replay.
 * With storage = postgres://... the digests are the rows of
 * webhook_deliveries (pgschema.c, step 0004_hooks), shared by every daemon:
 * the primary key makes the first of two daemons receiving one delivery at
 * once win, the other sees a replay. */
#include "hook/hook.h"

#include <limits.h>
#include <pthread.h>
#include <sodium.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "security/common.h"
#include "store/pg.h"
#include "store/sql.h"
#include "store/sqlite.h"

static const char *const migrations[] = {
    /* 0 -> 1 */
    "CREATE TABLE deliveries("
    "  source TEXT NOT NULL,"   /* github | gitlab */
    "  id TEXT NOT NULL,"       /* X-GitHub-Delivery, X-Gitlab-Event-UUID or Idempotency-Key */
    "  seen_at INTEGER NOT NULL," /* unix ms */
    "  PRIMARY KEY(source, id)) WITHOUT ROWID;"
    "CREATE INDEX deliveries_seen ON deliveries(seen_at);",
    /* 1 -> 2: id holds the body's digest (mg_hook_replay_record); the delivery ids an older memgate kept go */
    "DELETE FROM deliveries;",
};

#define BODY_CONTEXT "memgate webhook body v1"

/* The rows an older memgate kept: delivery ids, not digests (PostgreSQL's
 * table is shared, so they are dropped when a daemon opens it). */
#define PG_FORGET_IDS "DELETE FROM webhook_deliveries WHERE id !~ '^[0-9a-f]{64}$'"

struct mg_hook_replay {
    pthread_mutex_t mu;    /* SQLite: one handle, opened without SQLite's mutex: one thread at a time */
    struct mg_sql *db;     /* SQLite: hooks.db; NULL on PostgreSQL */
    struct mg_config *cfg; /* PostgreSQL: a copy, for the pool */
};

/* The statements, per store: the table's name differs (hooks.db keeps its own), and so does "no limit". */
static const struct {
    const char *forget_old, *forget_over, *insert;
} SQL[2] = {
    [MG_SQL_SQLITE] = {
        "DELETE FROM deliveries WHERE seen_at < ?",
        "DELETE FROM deliveries WHERE (source, id) IN (SELECT source, id FROM deliveries "
        "ORDER BY seen_at DESC LIMIT -1 OFFSET ?)",
        "INSERT INTO deliveries(source, id, seen_at) VALUES(?, ?, ?) ON CONFLICT(source, id) DO NOTHING",
    },
    [MG_SQL_PG] = {
        "DELETE FROM webhook_deliveries WHERE seen_at < ?",
        "DELETE FROM webhook_deliveries WHERE (source, id) IN (SELECT source, id FROM webhook_deliveries "
        "ORDER BY seen_at DESC OFFSET ?)",
        "INSERT INTO webhook_deliveries(source, id, seen_at) VALUES(?, ?, ?) ON CONFLICT(source, id) DO NOTHING",
    },
};

int mg_hook_replay_open(const struct mg_config *c, struct mg_hook_replay **out, struct mg_err *err)
{
    *out = NULL;
    if (mg_mkdirs_0700(c->home, err) != 0) return -1;
    struct mg_hook_replay *rp = calloc(1, sizeof(*rp));
    if (!rp) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory opening the webhook delivery store");
    pthread_mutex_init(&rp->mu, NULL);
    if (mg_pg_configured(c)) { /* connections are taken per delivery */
        if (!(rp->cfg = malloc(sizeof(*c)))) {
            mg_hook_replay_close(rp);
            return mg_err_set(err, MG_E_NO_MEMORY, "out of memory opening the webhook delivery store");
        }
        *rp->cfg = *c;
        struct mg_pg *pool;
        struct mg_sql *conn;
        if (mg_pg_get(rp->cfg, NULL, &pool, &conn, err) != 0 || mg_sql_runf(conn, NULL, err, PG_FORGET_IDS, "") != 0) {
            if (conn) mg_pg_put(pool, &conn);
            mg_hook_replay_close(rp);
            return -1;
        }
        mg_pg_put(pool, &conn);
        *out = rp;
        return 0;
    }
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/hooks.db", c->home);
    struct mg_sqlite_spec spec = {
        .what = "webhook delivery store",
        .create = true,
        .busy_ms = 5000,
        .pragmas = "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;",
        .migrations = migrations,
        .version = (int)(sizeof(migrations) / sizeof(migrations[0])),
    };
    sqlite3 *db;
    if (mg_sqlite_open(path, &spec, &db, err) != 0) {
        mg_hook_replay_close(rp);
        return -1;
    }
    if (!(rp->db = mg_sql_sqlite(db, path, "webhook delivery store"))) {
        mg_hook_replay_close(rp);
        return mg_err_set(err, MG_E_NO_MEMORY, "out of memory opening the webhook delivery store");
    }
    *out = rp;
    return 0;
}

void mg_hook_replay_close(struct mg_hook_replay *rp)
{
    if (!rp) return;
    mg_sql_close(&rp->db);
    free(rp->cfg);
    pthread_mutex_destroy(&rp->mu);
    free(rp);
}

/* Forget digests past their time, then the oldest beyond the row cap;
 * remember this one. 1 new, 0 seen before, -1. */
static int record(struct mg_sql *c, const char *source, const char *id, int64_t now_ms, struct mg_err *err)
{
    enum mg_sql_dialect d = mg_sql_dialect(c);
    if (mg_sql_runf(c, NULL, err, SQL[d].forget_old, "i", now_ms - (int64_t)MG_HOOK_REPLAY_TTL_S * 1000) != 0 ||
        mg_sql_runf(c, NULL, err, SQL[d].forget_over, "i", (int64_t)MG_HOOK_REPLAY_ROWS) != 0)
        return -1;
    int64_t added = 0;
    if (mg_sql_runf(c, &added, err, SQL[d].insert, "ssi", source, id, now_ms) != 0) return -1;
    return added == 1 ? 1 : 0; /* nothing inserted: the digest is there already */
}

int mg_hook_replay_record(struct mg_hook_replay *rp, const char *source, const char *body, size_t len,
                          int64_t now_ms, struct mg_err *err)
{
    unsigned char h[32];
    crypto_generichash_state st;
    crypto_generichash_init(&st, NULL, 0, sizeof(h));
    crypto_generichash_update(&st, (const unsigned char *)BODY_CONTEXT, sizeof(BODY_CONTEXT));
    crypto_generichash_update(&st, (const unsigned char *)body, len);
    crypto_generichash_final(&st, h, sizeof(h));
    char id[2 * sizeof(h) + 1];
    sodium_bin2hex(id, sizeof(id), h, sizeof(h));
    int rc;
    if (rp->cfg) {
        /* PostgreSQL: each statement on its own (autocommit): the clean-up need not be atomic with the
         * insert, and two daemons' clean-ups in one transaction each could deadlock */
        struct mg_pg *pool;
        struct mg_sql *c;
        if (mg_pg_get(rp->cfg, NULL, &pool, &c, err) != 0) return -1;
        rc = record(c, source, id, now_ms, err);
        mg_pg_put(pool, &c);
        return rc;
    }
    pthread_mutex_lock(&rp->mu);
    /* SQLite: one transaction, one sync */
    if (mg_sql_begin(rp->db, true, err) != 0) {
        rc = -1;
    } else if ((rc = record(rp->db, source, id, now_ms, err)) < 0 || mg_sql_commit(rp->db, err) != 0) {
        mg_sql_rollback(rp->db);
        rc = -1;
    }
    pthread_mutex_unlock(&rp->mu);
    return rc;
}
