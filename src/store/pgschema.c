/* pgschema.c — the PostgreSQL schema, as the steps pg.c applies in order
 * (pg.h: each once, recorded by name in memgate_migrations).
 *
 * Rules for a step: its name never changes once released; it never edits
 * an earlier step's objects in a way an older memgate cannot read (add
 * columns with defaults, add tables); tenant-owned tables get the policy
 *
 *   ALTER TABLE t ENABLE ROW LEVEL SECURITY; ALTER TABLE t FORCE ROW LEVEL SECURITY;
 *   CREATE POLICY t_tenant ON t USING (tenant = current_setting('memgate.tenant', true))
 *     WITH CHECK (tenant = current_setting('memgate.tenant', true));
 *
 * so that a statement that forgets its tenant filter sees, and may write,
 * only the rows of the tenant its connection acts for (pg.h). Booleans are
 * integers and times unix seconds (bigint), as in the SQLite schemas, so one
 * SQL text serves both (store/sql.h).
 */
#include "store/pg.h"

const struct mg_pg_step mg_pg_steps[] = {
    /* what the whole installation shares: a key/value table for small facts */
    {"0001_base", "CREATE TABLE IF NOT EXISTS memgate_meta(key text PRIMARY KEY, value text NOT NULL);"},
    /* X-Session-Id sessions of the HTTP API and handles (request/session.h), shared by every daemon.
     * Times in milliseconds of the database's clock (one clock for all daemons). An expired row stays as
     * a tombstone (expired = 1: its id answers "expired") until purge_after_ms; then any daemon's pruner
     * may delete it, acting for no tenant: the second policy lets a DELETE whose WHERE names no column,
     * on a connection with no tenant, remove such rows and nothing else (a DELETE whose WHERE reads the
     * rows needs the first policy too).
     * No index but the key: every request touches last_use_ms and purge_after_ms, which stays a HOT
     * update so; the purge scans the table once per session_prune_interval. */
    {"0007_sessions",
     "CREATE TABLE IF NOT EXISTS memgate_sessions(id text PRIMARY KEY, tenant text NOT NULL, kind text NOT NULL,"
     "  instance text NOT NULL, repo text NOT NULL DEFAULT '', scope text NOT NULL DEFAULT '{}',"
     "  created_at bigint NOT NULL, last_use_ms bigint NOT NULL, expired integer NOT NULL DEFAULT 0,"
     "  purge_after_ms bigint);"
     "ALTER TABLE memgate_sessions ENABLE ROW LEVEL SECURITY;"
     "ALTER TABLE memgate_sessions FORCE ROW LEVEL SECURITY;"
     "CREATE POLICY memgate_sessions_tenant ON memgate_sessions"
     "  USING (tenant = current_setting('memgate.tenant', true))"
     "  WITH CHECK (tenant = current_setting('memgate.tenant', true));"
     "CREATE POLICY memgate_sessions_purge ON memgate_sessions FOR DELETE"
     "  USING (purge_after_ms < (extract(epoch from clock_timestamp()) * 1000)::bigint);"},
};
const size_t mg_pg_nsteps = sizeof(mg_pg_steps) / sizeof(mg_pg_steps[0]);
