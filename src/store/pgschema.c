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
};
const size_t mg_pg_nsteps = sizeof(mg_pg_steps) / sizeof(mg_pg_steps[0]);
