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

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "security/common.h"
#include "store/sqlite.h"
#include "store/tokenize.h"

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
/* migrations[v]: schema version v -> v + 1 (store/sqlite.h) */
static const char *const MIGRATIONS[] = {SCHEMA};

/* Handles live until mg_memory_close_all: a handle is never freed while a
 * request may hold it. Each keeps a small page cache (1 MiB). */
static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;
static struct mem **cache;
static size_t ncache, capcache;

static void mem_free(struct mem *m)
{
    sqlite3_close_v2(m->db);
    pthread_mutex_destroy(&m->mu);
    free(m);
}

static int mem_open(const char *home, const char *tenant, struct mem **out, struct mg_err *err)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s/memory", home);
    if (mg_mkdirs_0700(dir, err) != 0) return -1;
    struct mem *m = calloc(1, sizeof(*m));
    if (!m) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory");
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
        .version = 1,
    };
    if (mg_sqlite_open(m->path, &spec, &m->db, err) != 0) {
        mem_free(m);
        return -1;
    }
    *out = m;
    return 0;
}

struct mem *mg_mem_get(const struct mg_config *cfg, const char *tenant, struct mg_err *err)
{
    const char *home = cfg->home;
    if (mg_tenant_check(tenant, err) != 0) return NULL;
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
            mg_err_set(err, MG_E_NO_MEMORY, "out of memory");
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
}

/* ---- 2. SQL helpers, stored text, FTS ---------------------------------------------------------- */

int mg_mem_fail(struct mem *m, const char *what, struct mg_err *err)
{
    return mg_sqlite_fail(m->db, m->path, what, err);
}

int mg_mem_prep(struct mem *m, const char *sql, sqlite3_stmt **st, struct mg_err *err)
{
    if (sqlite3_prepare_v2(m->db, sql, -1, st, NULL) != SQLITE_OK) return mg_mem_fail(m, "prepare", err);
    return 0;
}

int mg_mem_begin(struct mem *m, struct mg_err *err)
{
    return sqlite3_exec(m->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK ? 0 : mg_mem_fail(m, "begin", err);
}

int mg_mem_commit(struct mem *m, struct mg_err *err)
{
    if (sqlite3_exec(m->db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK) return 0;
    mg_mem_fail(m, "commit", err);
    sqlite3_exec(m->db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

void mg_mem_rollback(struct mem *m) { sqlite3_exec(m->db, "ROLLBACK", NULL, NULL, NULL); }

const char *mg_col(sqlite3_stmt *st, int i)
{
    const char *s = (const char *)sqlite3_column_text(st, i);
    return s ? s : "";
}

int64_t mg_now_s(void) { return (int64_t)time(NULL); }

char *mg_fts_stream(const char *a, const char *b, const char *c)
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

int mg_fts_put(struct mem *m, const char *table, int64_t id, const char *stream, struct mg_err *err)
{
    char sql[128];
    snprintf(sql, sizeof(sql), "INSERT OR REPLACE INTO %s(rowid, body) VALUES(?, ?)", table);
    sqlite3_stmt *st;
    if (mg_mem_prep(m, sql, &st, err) != 0) return -1;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_text(st, 2, stream ? stream : "", -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : mg_mem_fail(m, "index the text", err);
}

char *mg_fts_match(const char *q)
{
    struct mg_buf b;
    mg_buf_init(&b, 1 << 20);
    if (mg_fts_query(q, strlen(q), MG_FTS_ANY, &b) == 0) {
        mg_buf_release(&b);
        return NULL;
    }
    return mg_buf_detach(&b, NULL);
}

/* ---- 3. the place of a call --------------------------------------------------------------------- */

void mg_row_owner(struct mg_item *it, const char *tenant, const char *repo, const char *fp, int64_t project)
{
    snprintf(it->own.tenant, sizeof(it->own.tenant), "%s", tenant);
    snprintf(it->own.repo, sizeof(it->own.repo), "%s", repo);
    snprintf(it->own.fp, sizeof(it->own.fp), "%s", fp);
    it->own.project = project;
}

int mg_place_begin(const struct mg_pcall *pc, const char *session, struct place *p, struct mg_err *err)
{
    memset(p, 0, sizeof(*p));
    if (pc->nrepos != 1)
        return mg_err_set(err, MG_E_REPO_REQUIRED, "memory belongs to one repo and this request names %zu; pass "
                          "`repo`", pc->nrepos);
    p->repo = &pc->repos[0];
    p->tenant = pc->tenant;
    if (session) snprintf(p->ext, sizeof(p->ext), "%s", session);
    if (!(p->m = mg_mem_get(pc->cfg, pc->tenant, err))) return -1;
    pthread_mutex_lock(&p->m->mu);
    if (!session) return 0;
    sqlite3_stmt *st = NULL;
    if (mg_mem_prep(p->m, "INSERT INTO sessions(tenant, repo, repo_fp, external_id, created_at) VALUES(?,?,?,?,?) "
                          "ON CONFLICT(repo, external_id) DO NOTHING", &st, err) != 0)
        goto fail;
    sqlite3_bind_text(st, 1, pc->tenant, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, p->repo->id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, p->repo->fingerprint, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, p->ext, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 5, mg_now_s());
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        mg_mem_fail(p->m, "create the session", err);
        goto fail;
    }
    if (mg_mem_prep(p->m, "SELECT s.id, s.tenant, s.repo_fp, coalesce(s.project_id, 0), coalesce(p.name, '') "
                          "FROM sessions s LEFT JOIN projects p ON p.id = s.project_id "
                          "WHERE s.repo = ? AND s.external_id = ?", &st, err) != 0)
        goto fail;
    sqlite3_bind_text(st, 1, p->repo->id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, p->ext, -1, SQLITE_STATIC);
    bool foreign = false;
    if (sqlite3_step(st) == SQLITE_ROW) {
        if (strcmp(mg_col(st, 1), pc->tenant) != 0 || strcmp(mg_col(st, 2), p->repo->fingerprint) != 0) {
            foreign = true; /* a row of another tenant or an older repo under this id */
        } else {
            p->sid = sqlite3_column_int64(st, 0);
            p->project = sqlite3_column_int64(st, 3);
            snprintf(p->project_name, sizeof(p->project_name), "%s", mg_col(st, 4));
        }
    }
    sqlite3_finalize(st);
    if (foreign) {
        mg_err_set(err, MG_E_SESSION_NOT_FOUND, "session '%s' of repo '%s' does not belong to this request; use "
                   "another session_id", p->ext, p->repo->id);
        goto fail;
    }
    if (!p->sid) {
        mg_mem_fail(p->m, "read the session", err);
        goto fail;
    }
    return 0;
fail:
    pthread_mutex_unlock(&p->m->mu);
    p->m = NULL;
    return -1;
}

void mg_place_end(struct place *p)
{
    if (p->m) pthread_mutex_unlock(&p->m->mu);
    p->m = NULL;
}

int mg_place_report(const struct place *p, struct mg_items *out, struct mg_err *err)
{
    struct mg_place *pl = mg_items_place(out);
    if (!pl) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory");
    mg_row_owner(&pl->base, p->tenant, p->repo->id, p->repo->fingerprint, p->project);
    bool failed = false;
    pl->repo = mg_item_dup(p->repo->id, &failed);
    pl->session = mg_item_dup(p->ext, &failed);
    pl->project = p->project ? mg_item_dup(p->project_name, &failed) : NULL;
    return failed ? mg_err_set(err, MG_E_NO_MEMORY, "out of memory") : 0;
}

int64_t mg_project_id(struct place *p, const char *name, struct mg_err *err)
{
    sqlite3_stmt *st;
    if (mg_mem_prep(p->m, "SELECT id FROM projects WHERE repo = ? AND name = ? AND tenant = ? AND repo_fp = ?", &st,
                    err) != 0)
        return 0;
    sqlite3_bind_text(st, 1, p->repo->id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, p->tenant, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, p->repo->fingerprint, -1, SQLITE_STATIC);
    int64_t id = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    if (!id)
        mg_err_set(err, MG_E_PROJECT_NOT_FOUND, "no project '%.64s' in repo '%s'; list_projects shows them", name,
                   p->repo->id);
    return id;
}

/* ---- 4. forgetting a repo ------------------------------------------------------------------------- */

int mg_mem_forget(const struct mg_pcall *pc, const char *const *sql, struct mg_items *out, struct mg_err *err)
{
    int64_t rows = 0;
    char path[PATH_MAX + 80];
    snprintf(path, sizeof(path), "%s/memory/%s.db", pc->cfg->home, pc->tenant);
    if (access(path, F_OK) != 0) return 0; /* the tenant never stored anything */
    struct place p;
    if (mg_place_begin(pc, NULL, &p, err) != 0) return -1;
    int rc = mg_mem_begin(p.m, err);
    for (size_t i = 0; rc == 0 && sql[i]; i++) {
        sqlite3_stmt *st;
        if (mg_mem_prep(p.m, sql[i], &st, err) != 0) {
            rc = -1;
            break;
        }
        sqlite3_bind_text(st, 1, p.repo->id, -1, SQLITE_STATIC);
        if (sqlite3_step(st) != SQLITE_DONE) rc = mg_mem_fail(p.m, "forget the repo", err);
        else rows += sqlite3_changes(p.m->db);
        sqlite3_finalize(st);
    }
    if (rc == 0) rc = mg_mem_commit(p.m, err);
    else mg_mem_rollback(p.m);
    mg_place_end(&p);
    if (rc == 0) out->total = rows;
    return rc;
}

/* ---- 5. the providers' set ------------------------------------------------------------------------ */

void mg_mem_close(void *self)
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
