/* memory.c — the per-tenant memory database and what every memory provider
 * shares (internal.h).
 *
 * Sections:
 *   1. the database: schema, open, the per-process cache
 *   2. SQL helpers, stored text, FTS
 *   3. the place of a call: repo, conversation, project
 *   4. forgetting a repo
 *   5. the providers' set
 */
#include "memory/internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "security/common.h"
#include "store/pg.h"
#include "store/sqlite.h"
#include "store/tokenize.h"
#include "util/utf8.h"

/* ---- 1. the database ---------------------------------------------------------------------- */

static const char SCHEMA[] =
    "CREATE TABLE IF NOT EXISTS sessions(id INTEGER PRIMARY KEY, tenant TEXT NOT NULL, repo TEXT NOT NULL,"
    "  repo_fp TEXT NOT NULL, external_id TEXT NOT NULL, project_id INTEGER, created_at INTEGER NOT NULL,"
    "  UNIQUE(repo, external_id));"
    "CREATE INDEX IF NOT EXISTS sessions_project ON sessions(project_id);"
    "CREATE TABLE IF NOT EXISTS projects(id INTEGER PRIMARY KEY, tenant TEXT NOT NULL, repo TEXT NOT NULL,"
    "  repo_fp TEXT NOT NULL, name TEXT NOT NULL, isolated INTEGER NOT NULL DEFAULT 1 CHECK(isolated = 1),"
    "  created_at INTEGER NOT NULL, UNIQUE(repo, name));"
    "CREATE TABLE IF NOT EXISTS notes(id INTEGER PRIMARY KEY, tenant TEXT NOT NULL, repo TEXT NOT NULL,"
    "  repo_fp TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,"
    "  source TEXT NOT NULL CHECK(source IN ('user_stated','llm_extracted','inferred')), trust REAL NOT NULL,"
    "  session TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, UNIQUE(repo, key));"
    "CREATE TABLE IF NOT EXISTS episodes(id INTEGER PRIMARY KEY, tenant TEXT NOT NULL, repo TEXT NOT NULL,"
    "  repo_fp TEXT NOT NULL, session_id INTEGER NOT NULL, summary TEXT NOT NULL, tags TEXT NOT NULL,"
    "  created_at INTEGER NOT NULL);"
    "CREATE INDEX IF NOT EXISTS episodes_session ON episodes(session_id);"
    "CREATE TABLE IF NOT EXISTS entities(id INTEGER PRIMARY KEY, tenant TEXT NOT NULL, repo TEXT NOT NULL,"
    "  repo_fp TEXT NOT NULL, project_id INTEGER, session_id INTEGER, name TEXT NOT NULL, type TEXT NOT NULL,"
    "  notes TEXT NOT NULL, created_at INTEGER NOT NULL);"
    "CREATE INDEX IF NOT EXISTS entities_project ON entities(project_id);"
    "CREATE TABLE IF NOT EXISTS profiles(tenant TEXT NOT NULL, agent_id TEXT NOT NULL, key TEXT NOT NULL,"
    "  value TEXT NOT NULL, updated_at INTEGER NOT NULL, PRIMARY KEY(agent_id, key));"
    "CREATE VIRTUAL TABLE IF NOT EXISTS notes_fts USING fts5(body, detail=column, tokenize='mgcode');"
    "CREATE VIRTUAL TABLE IF NOT EXISTS episodes_fts USING fts5(body, detail=column, tokenize='mgcode');"
    "CREATE VIRTUAL TABLE IF NOT EXISTS entities_fts USING fts5(body, detail=column, tokenize='mgcode');";
/* Schema 2: the unique keys the statements' ON CONFLICT targets name, with
 * the tenant in them as in PostgreSQL (store/pgschema.c, 0002_memory), so
 * that one SQL text serves both. In a tenant's file every row is the
 * tenant's, so each holds wherever the key without the tenant held. */
static const char MIGRATE_2[] =
    "CREATE UNIQUE INDEX IF NOT EXISTS sessions_tenant_key ON sessions(tenant, repo, external_id);"
    "CREATE UNIQUE INDEX IF NOT EXISTS projects_tenant_key ON projects(tenant, repo, name);"
    "CREATE UNIQUE INDEX IF NOT EXISTS notes_tenant_key ON notes(tenant, repo, key);"
    "CREATE UNIQUE INDEX IF NOT EXISTS profiles_tenant_key ON profiles(tenant, agent_id, key);";
/* Schema 3: each row's vector, sealed (memvec.c); NULL until made. */
static const char MIGRATE_3[] =
    "ALTER TABLE notes ADD COLUMN vec BLOB;"
    "ALTER TABLE episodes ADD COLUMN vec BLOB;"
    "ALTER TABLE entities ADD COLUMN vec BLOB;";
/* migrations[v]: schema version v -> v + 1 (store/sqlite.h) */
static const char *const MIGRATIONS[] = {SCHEMA, MIGRATE_2, MIGRATE_3};

/* One tenant's file. Files live until mg_memory_close_all: a file is never
 * freed while a request may hold it. Each keeps a small page cache (1 MiB). */
struct mem {
    char home[PATH_MAX];
    char tenant[65];
    char path[PATH_MAX + 80];
    struct mg_sql *db;
    pthread_mutex_t mu; /* one statement sequence at a time (place_begin .. place_end) */
};

static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;
static struct mem **cache;
static size_t ncache, capcache;

static void mem_free(struct mem *m)
{
    mg_sql_close(&m->db);
    pthread_mutex_destroy(&m->mu);
    free(m);
}

static int mem_open(const char *home, const char *tenant, struct mem **out, struct mg_err *err)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s/memory", home);
    if (mg_mkdirs_0700(dir, err) != 0) return -1;
    struct mem *m = calloc(1, sizeof(*m));
    if (!m) return mg_err_oom(err);
    snprintf(m->home, sizeof(m->home), "%s", home);
    snprintf(m->tenant, sizeof(m->tenant), "%s", tenant);
    snprintf(m->path, sizeof(m->path), "%s/%s.db", dir, tenant);
    pthread_mutex_init(&m->mu, NULL);
    /* WAL + NORMAL: a committed transaction survives the process being
     * killed (it is in the WAL, in the OS's cache); only a power cut may
     * lose the last ones */
    struct mg_sqlite_spec spec = {
        .what = "memory database",
        .create = true,
        .pragmas = "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA cache_size=-1024;",
        .setup = mg_tokenizer_register,
        .migrations = MIGRATIONS,
        .version = 3,
    };
    sqlite3 *db;
    if (mg_sqlite_open(m->path, &spec, &db, err) != 0) {
        mem_free(m);
        return -1;
    }
    if (!(m->db = mg_sql_sqlite(db, m->path, "memory database"))) {
        mem_free(m);
        return mg_err_oom(err);
    }
    *out = m;
    return 0;
}

/* The tenant's file (opened on first use, then cached until
 * mg_memory_close_all). NULL with err set. */
static struct mem *mem_get(const struct mg_config *cfg, const char *tenant, struct mg_err *err)
{
    const char *home = cfg->home;
    pthread_mutex_lock(&cache_mu);
    for (size_t i = 0; i < ncache; i++)
        if (strcmp(cache[i]->tenant, tenant) == 0 && strcmp(cache[i]->home, home) == 0) {
            struct mem *m = cache[i];
            pthread_mutex_unlock(&cache_mu);
            return m;
        }
    struct mem *m = NULL;
    if (ncache == capcache) {
        size_t nc = capcache ? capcache * 2 : 16;
        struct mem **v = realloc(cache, nc * sizeof(*v));
        if (!v) {
            pthread_mutex_unlock(&cache_mu);
            mg_err_oom(err);
            return NULL;
        }
        cache = v;
        capcache = nc;
    }
    if (mem_open(home, tenant, &m, err) == 0) cache[ncache++] = m;
    pthread_mutex_unlock(&cache_mu);
    return m;
}

void mg_memory_close_all(void)
{
    pthread_mutex_lock(&cache_mu);
    for (size_t i = 0; i < ncache; i++) mem_free(cache[i]);
    free(cache);
    cache = NULL;
    ncache = capcache = 0;
    pthread_mutex_unlock(&cache_mu);
    mg__mvkept_clear();
}

/* ---- 2. SQL helpers, FTS ---------------------------------------------------------------------------- */

int64_t mg__now_s(void) { return (int64_t)time(NULL); }

int mg__mem_run1(struct place *p, const char *sql, int64_t a, int64_t *count, struct mg_err *err)
{
    return mg_sql_runf(p->db, count, err, sql, "i", a);
}

char *mg__fts_stream(const char *a, const char *b, const char *c)
{
    struct mg_buf t, out;
    mg_buf_init(&t, (size_t)1 << 26);
    mg_buf_init(&out, (size_t)1 << 26);
    mg_buf_addf(&t, "%s %s %s", a ? a : "", b ? b : "", c ? c : "");
    struct mg_token_set *ts = mg_token_set_new();
    char *r = NULL;
    if (ts && t.p && mg_token_stream(ts, t.p, t.len, &out) == 0) r = mg_buf_detach(&out, NULL);
    if (!r) r = strdup("");
    mg_token_set_free(&ts);
    mg_buf_release(&t);
    mg_buf_release(&out);
    return r;
}

/* Text PostgreSQL takes: a token cut at MG_TOKEN_MAX may end inside a
 * character; each such byte becomes U+FFFD, the same in a row's stream and
 * in a query, so the token still matches itself. NULL out of memory. */
static char *pg_text(char *s)
{
    size_t n = strlen(s);
    if (mg_utf8_valid_prefix(s, n) == n) return s;
    char *r = NULL;
    size_t rn;
    if (mg_utf8_repair(s, n, &r, &rn) == (size_t)-1) r = NULL;
    free(s);
    return r;
}

int mg__fts_put(struct place *p, const char *table, int64_t id, const char *stream, struct mg_err *err)
{
    char sql[160];
    if (!mg__mem_pg(p)) {
        snprintf(sql, sizeof(sql), "INSERT OR REPLACE INTO %s_fts(rowid, body) VALUES(?, ?)", table);
        return mg_sql_runf(p->db, NULL, err, sql, "is", id, stream ? stream : "");
    }
    /* the tokens as lexemes, as they are: array_to_tsvector parses nothing */
    char *text = pg_text(strdup(stream ? stream : ""));
    if (!text) return mg_err_oom(err);
    snprintf(sql, sizeof(sql), "UPDATE %s SET body = array_to_tsvector(array_remove(string_to_array(?, ' '), ''))"
             " WHERE id = ?", table);
    int rc = mg_sql_runf(p->db, NULL, err, sql, "si", text, id);
    free(text);
    return rc;
}

char *mg__fts_match(bool pg, const char *q)
{
    struct mg_buf b;
    mg_buf_init(&b, 1 << 20);
    if (mg_fts_query(q, strlen(q), MG_FTS_ANY | (pg ? MG_FTS_TSQUERY : 0), &b) == 0) {
        mg_buf_release(&b);
        return NULL;
    }
    char *r = mg_buf_detach(&b, NULL);
    return pg && r ? pg_text(r) : r;
}

/* ---- 3. the place of a call --------------------------------------------------------------------- */

void mg__row_owner(struct mg_item *it, const char *tenant, const char *repo, const char *fp, int64_t project)
{
    snprintf(it->own.tenant, sizeof(it->own.tenant), "%s", tenant);
    snprintf(it->own.repo, sizeof(it->own.repo), "%s", repo);
    snprintf(it->own.fp, sizeof(it->own.fp), "%s", fp);
    it->own.project = project;
}

/* The tenant's memory database for a call: its file (mutex held) or a
 * pooled PostgreSQL connection acting for it. */
static int db_take(const struct mg_config *cfg, const char *tenant, struct place *p, struct mg_err *err)
{
    if (mg_tenant_check(tenant, err) != 0) return -1;
    if (mg_pg_configured(cfg)) return mg_pg_get(cfg, tenant, &p->pool, &p->db, err);
    if (!(p->file = mem_get(cfg, tenant, err))) return -1;
    pthread_mutex_lock(&p->file->mu);
    p->db = p->file->db;
    return 0;
}

void mg__place_end(struct place *p)
{
    if (p->pool) {
        mg_pg_put(p->pool, &p->db);
    } else if (p->file) {
        mg_sql_rollback(p->db); /* nothing is left open for the next call */
        pthread_mutex_unlock(&p->file->mu);
    }
    p->db = NULL;
    p->file = NULL;
    p->pool = NULL;
}

int mg__place_tenant(const struct mg_config *cfg, const char *tenant, struct place *p, struct mg_err *err)
{
    memset(p, 0, sizeof(*p));
    p->tenant = tenant;
    return db_take(cfg, tenant, p, err);
}

int mg__place_begin(const struct mg_pcall *pc, const char *session, struct place *p, struct mg_err *err)
{
    memset(p, 0, sizeof(*p));
    if (pc->nrepos != 1)
        return mg_err_set(err, MG_E_REPO_REQUIRED, "memory belongs to one repo and this request names %zu; pass "
                          "`repo`", pc->nrepos);
    p->repo = &pc->repos[0];
    p->tenant = pc->tenant;
    if (session) snprintf(p->ext, sizeof(p->ext), "%s", session);
    if (db_take(pc->cfg, pc->tenant, p, err) != 0) return -1;
    if (!session) return 0;
    /* the conversation's row: read, made when missing (ON CONFLICT: a
     * concurrent call may make it first), read again */
    bool foreign = false;
    int r = 0;
    for (int pass = 0; pass < 2 && r == 0; pass++) {
        if (pass && mg_sql_runf(p->db, NULL, err, "INSERT INTO sessions(tenant, repo, repo_fp, external_id, created_at) "
                                "VALUES(?,?,?,?,?) ON CONFLICT(tenant, repo, external_id) DO NOTHING", "ssssi",
                                pc->tenant, p->repo->id, p->repo->fingerprint, p->ext, mg__now_s()) != 0)
            goto fail;
        struct mg_sql_st *st;
        if (mg_sql_prepare(p->db, "SELECT s.id, s.tenant, s.repo_fp, coalesce(s.project_id, 0), coalesce(p.name, '') "
                                  "FROM sessions s LEFT JOIN projects p ON p.id = s.project_id "
                                  "WHERE s.repo = ? AND s.external_id = ?", &st, err) != 0)
            goto fail;
        mg_sql_bind_text(st, 1, p->repo->id);
        mg_sql_bind_text(st, 2, p->ext);
        if ((r = mg_sql_step(st, err)) == 1) {
            if (strcmp(mg_sql_text(st, 1), pc->tenant) != 0 || strcmp(mg_sql_text(st, 2), p->repo->fingerprint) != 0) {
                foreign = true; /* a row of another tenant or an older repo under this id */
            } else {
                p->sid = mg_sql_int(st, 0);
                p->project = mg_sql_int(st, 3);
                snprintf(p->project_name, sizeof(p->project_name), "%s", mg_sql_text(st, 4));
            }
        }
        mg_sql_finalize(&st);
    }
    if (r < 0) goto fail;
    if (foreign) {
        mg_err_set(err, MG_E_SESSION_NOT_FOUND, "session '%s' of repo '%s' does not belong to this request; use "
                   "another session_id", p->ext, p->repo->id);
        goto fail;
    }
    if (!p->sid) {
        mg_err_set(err, MG_E_DB, "memory database: the session '%s' of repo '%s' was not found after it was made; "
                   "retry", p->ext, p->repo->id);
        goto fail;
    }
    return 0;
fail:
    mg__place_end(p);
    return -1;
}

int mg__place_hold_session(struct place *p, struct mg_err *err)
{
    struct mg_sql_st *st;
    /* PostgreSQL: a share lock on the session's row until commit; a
     * project_delete (which updates the row first) waits for this call to
     * commit, or this read waits for it and sees the session out of the
     * project. SQLite: the write transaction already excludes the rest. */
    const char *sql = mg__mem_pg(p) ? "SELECT coalesce(s.project_id, 0), coalesce(p.name, '') FROM sessions s"
                                     " LEFT JOIN projects p ON p.id = s.project_id WHERE s.id = ? FOR SHARE OF s"
                                   : "SELECT coalesce(s.project_id, 0), coalesce(p.name, '') FROM sessions s"
                                     " LEFT JOIN projects p ON p.id = s.project_id WHERE s.id = ?";
    if (mg_sql_prepare(p->db, sql, &st, err) != 0) return -1;
    mg_sql_bind_int(st, 1, p->sid);
    int r = mg_sql_step(st, err);
    if (r == 1) {
        p->project = mg_sql_int(st, 0);
        snprintf(p->project_name, sizeof(p->project_name), "%s", mg_sql_text(st, 1));
    } else if (r == 0) {
        r = mg_err_set(err, MG_E_SESSION_NOT_FOUND, "session '%s' of repo '%s' is gone (its repo was removed "
                       "meanwhile); retry", p->ext, p->repo->id);
    }
    mg_sql_finalize(&st);
    return r < 0 ? -1 : 0;
}

int mg__place_report(const struct place *p, struct mg_items *out, struct mg_err *err)
{
    struct mg_place *pl = mg_items_place(out);
    if (!pl) return mg_err_oom(err);
    mg__row_owner(&pl->base, p->tenant, p->repo->id, p->repo->fingerprint, p->project);
    bool failed = false;
    pl->repo = mg_item_dup(p->repo->id, &failed);
    pl->session = mg_item_dup(p->ext, &failed);
    pl->project = p->project ? mg_item_dup(p->project_name, &failed) : NULL;
    return failed ? mg_err_oom(err) : 0;
}

int64_t mg__project_id(struct place *p, const char *name, struct mg_err *err)
{
    struct mg_sql_st *st;
    if (mg_sql_prepare(p->db, "SELECT id FROM projects WHERE repo = ? AND name = ? AND tenant = ? AND repo_fp = ?",
                       &st, err) != 0)
        return 0;
    mg_sql_bind_text(st, 1, p->repo->id);
    mg_sql_bind_text(st, 2, name);
    mg_sql_bind_text(st, 3, p->tenant);
    mg_sql_bind_text(st, 4, p->repo->fingerprint);
    int r = mg_sql_step(st, err);
    int64_t id = r == 1 ? mg_sql_int(st, 0) : 0;
    mg_sql_finalize(&st);
    if (r < 0) return 0;
    if (!id)
        mg_err_set(err, MG_E_PROJECT_NOT_FOUND, "no project '%.64s' in repo '%s'; list_projects shows them", name,
                   p->repo->id);
    return id;
}

/* ---- 4. forgetting a repo ------------------------------------------------------------------------- */

int mg__mem_forget(const struct mg_pcall *pc, const struct mg_forget_sql *sql, struct mg_items *out,
                  struct mg_err *err)
{
    int64_t rows = 0;
    if (!mg_pg_configured(pc->cfg)) {
        char path[PATH_MAX + 80];
        snprintf(path, sizeof(path), "%s/memory/%s.db", pc->cfg->home, pc->tenant);
        if (access(path, F_OK) != 0) return 0; /* the tenant never stored anything */
    }
    struct place p;
    if (mg__place_begin(pc, NULL, &p, err) != 0) return -1;
    bool pg = mg__mem_pg(&p);
    int rc = mg_sql_begin(p.db, true, err);
    for (size_t i = 0; rc == 0 && sql[i].sql; i++) {
        if (sql[i].fts && pg) continue;
        int64_t n = 0;
        rc = mg_sql_runf(p.db, &n, err, sql[i].sql, "s", p.repo->id);
        rows += n;
    }
    if (rc == 0) rc = mg_sql_commit(p.db, err);
    else mg_sql_rollback(p.db);
    mg__place_end(&p);
    if (rc == 0) out->total = rows;
    return rc;
}

/* ---- 5. the providers' set ------------------------------------------------------------------------ */

void mg__mem_close(void *self)
{
    (void)self;
    mg_memory_close_all();
}

int mg_memory_builtin_open(const struct mg_config *cfg, struct mg_providers *p, struct mg_err *err)
{
    (void)err;
    p->notes = (struct mg_notes_provider){&mg_notes_builtin_ops, (void *)cfg, "builtin"};
    p->sessions = (struct mg_sessions_provider){&mg_sessions_builtin_ops, (void *)cfg, "builtin"};
    p->entities = (struct mg_entities_provider){&mg_entities_builtin_ops, (void *)cfg, "builtin"};
    p->profiles = (struct mg_profiles_provider){&mg_profiles_builtin_ops, (void *)cfg, "builtin"};
    return 0;
}
