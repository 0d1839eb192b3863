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
