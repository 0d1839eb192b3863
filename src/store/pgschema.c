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
    /* access tokens and the shared rate-limit buckets (security/token.c). System tables, without the
     * tenant policy: authentication reads them before it knows the tenant (connections with no tenant);
     * every statement names the row it wants by its id. tokens is tokens.db's table plus seq (insertion
     * order, SQLite's rowid); hash = BLAKE2b-256 keyed with token.pepper, a file that is never stored
     * here (memgate_meta's 'token_pepper' is only its fingerprint). rate_buckets: one row per token id
     * with a limit; level = requests available at `at` (unix seconds of the database's clock). Unlogged:
     * written on every request, it must not wait for a WAL flush each time; after a crash of PostgreSQL
     * (or on a promoted standby) it is empty, and every bucket starts full again. */
    {"0003_tokens",
     "CREATE TABLE IF NOT EXISTS tokens(id text PRIMARY KEY, hash bytea NOT NULL, tenant text NOT NULL,"
     "  repos text NOT NULL DEFAULT '', scope integer NOT NULL, name text NOT NULL DEFAULT '', rate integer,"
     "  created bigint NOT NULL, expires bigint NOT NULL DEFAULT 0, last_used bigint NOT NULL DEFAULT 0,"
     "  revoked bigint NOT NULL DEFAULT 0, seq bigint GENERATED ALWAYS AS IDENTITY);"
     "CREATE UNLOGGED TABLE IF NOT EXISTS rate_buckets(key text PRIMARY KEY, level double precision NOT NULL,"
     "  at double precision NOT NULL, rate integer NOT NULL, took integer NOT NULL DEFAULT 0);"},
    /* webhook delivery ids seen (hook/replay.c; hooks.db's deliveries): a system table, the forge's
     * delivery id names no tenant */
    {"0004_hooks",
     "CREATE TABLE IF NOT EXISTS webhook_deliveries(source text NOT NULL, id text NOT NULL,"
     "  seen_at bigint NOT NULL, PRIMARY KEY(source, id));"
     "CREATE INDEX IF NOT EXISTS webhook_deliveries_seen ON webhook_deliveries(seen_at);"},
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
    /* the repo catalog (store/catalog.h "The shared catalog"): every repo of
     * the installation, its owning tenant (authoritative), where its working
     * copy is, its index generation (bumped by every explicit index run) and
     * its settings (NULL: the default; the text store/settings.c checks). A
     * system table, read by the daemons for every tenant: no RLS, the
     * requests filter by tenant. A root belongs to one repo. */
    {"0006_catalog",
     "CREATE TABLE IF NOT EXISTS memgate_repos(id text PRIMARY KEY, tenant text NOT NULL, root text NOT NULL,"
     "  fingerprint text NOT NULL, generation bigint NOT NULL DEFAULT 0, created_at bigint NOT NULL,"
     "  indexed_at bigint NOT NULL DEFAULT 0, setting_watch text, setting_reindex_interval text,"
     "  setting_pull_on_push text);"
     "CREATE UNIQUE INDEX IF NOT EXISTS memgate_repos_root ON memgate_repos(root);"
     "CREATE INDEX IF NOT EXISTS memgate_repos_tenant ON memgate_repos(tenant);"},
};
const size_t mg_pg_nsteps = sizeof(mg_pg_steps) / sizeof(mg_pg_steps[0]);
