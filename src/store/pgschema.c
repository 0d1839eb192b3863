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
    /* the audit chain (security/audit_pg.c): not a tenant's, so no policy;
     * every event's line as written, the columns beside it copies of what
     * it says for filtering; the anchor row is the chain's end. Rows are
     * never changed: the triggers refuse it, so changing them takes
     * disabling the triggers first (and --verify tells). */
    {"0005_audit",
     "CREATE TABLE audit_events(seq bigint PRIMARY KEY, time_ms bigint NOT NULL, tenant text, op text NOT NULL,"
     "  repo text, line text NOT NULL, hash text NOT NULL);"
     "CREATE INDEX audit_events_tenant ON audit_events(tenant, seq);"
     "CREATE INDEX audit_events_op ON audit_events(op, seq);"
     "CREATE INDEX audit_events_time ON audit_events(time_ms);"
     "CREATE TABLE audit_anchor(id integer PRIMARY KEY CHECK (id = 1), seq bigint NOT NULL, hash text NOT NULL,"
     "  time_ms bigint NOT NULL);"
     "CREATE FUNCTION memgate_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN "
     "  RAISE EXCEPTION 'the audit chain is append-only: % on % refused', TG_OP, TG_TABLE_NAME; END$$;"
     "CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE ON audit_events"
     "  FOR EACH ROW EXECUTE FUNCTION memgate_audit_append_only();"
     "CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events"
     "  FOR EACH STATEMENT EXECUTE FUNCTION memgate_audit_append_only();"
     "CREATE TRIGGER audit_anchor_kept BEFORE DELETE OR TRUNCATE ON audit_anchor"
     "  FOR EACH STATEMENT EXECUTE FUNCTION memgate_audit_append_only();"},
};
const size_t mg_pg_nsteps = sizeof(mg_pg_steps) / sizeof(mg_pg_steps[0]);
