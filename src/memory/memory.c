/* memory.c — agent memory (memory.h, docs/memory.md). */
#include "memory/memory.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "security/common.h"
#include "security/gate.h"
#include "store/sqlite.h"
#include "store/tokenize.h"
#include "util/buf.h"
#include "util/utf8.h"

#define NOTE_KEY_MAX 256
#define NOTE_VALUE_MAX (64 << 10)
#define SUMMARY_MAX (16 << 10)
#define ENTITY_NOTES_MAX (16 << 10)
#define TAGS_MAX 16
#define ENTITIES_MAX 1000
#define SESSION_ID_MAX 128
#define RRF_K 60.0

/* ---- 1. the per-tenant database ------------------------------------------------------ */

struct mem {
    char home[PATH_MAX];
    char tenant[MG_TENANT_MAX + 1];
    sqlite3 *db;
    pthread_mutex_t mu; /* one statement sequence at a time */
};

/* Handles live until mg_memory_close_all: a handle is never freed while a
 * request may hold it. Each keeps a small page cache (1 MiB). */
static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;
static struct mem **cache;
static size_t ncache, capcache;

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

static int db_fail(sqlite3 *db, const char *what, struct mg_err *err)
{
    return mg_err_set(err, MG_E_DB, "memory database: %s: %s", what, db ? sqlite3_errmsg(db) : "cannot open");
}

static int mem_open(const char *home, const char *tenant, struct mem **out, struct mg_err *err)
{
    char dir[PATH_MAX], path[PATH_MAX + 80];
    snprintf(dir, sizeof(dir), "%s/memory", home);
    if (mg_mkdirs_0700(dir, err) != 0) return -1;
    snprintf(path, sizeof(path), "%s/%s.db", dir, tenant);
    struct mem *m = calloc(1, sizeof(*m));
    if (!m) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory");
    snprintf(m->home, sizeof(m->home), "%s", home);
    snprintf(m->tenant, sizeof(m->tenant), "%s", tenant);
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
    if (mg_sqlite_open(path, &spec, &m->db, err) != 0) goto fail;
    *out = m;
    return 0;
fail:
    sqlite3_close_v2(m->db);
    pthread_mutex_destroy(&m->mu);
    free(m);
    return -1;
}

/* The tenant's database for this request (opened once per process). */
static struct mem *mem_get(struct mg_ctx *x, struct mg_err *err)
{
    const char *home = x->srv->cfg.home, *tenant = x->who->tenant;
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
    for (size_t i = 0; i < ncache; i++) {
        sqlite3_close_v2(cache[i]->db);
        pthread_mutex_destroy(&cache[i]->mu);
        free(cache[i]);
    }
    free(cache);
    cache = NULL;
    ncache = capcache = 0;
    pthread_mutex_unlock(&cache_mu);
}

int mg_memory_forget_repo(const struct mg_config *c, const char *tenant, const char *repo_id, struct mg_err *err)
{
    char path[PATH_MAX + 80];
    snprintf(path, sizeof(path), "%s/memory/%s.db", c->home, tenant);
    if (access(path, F_OK) != 0) return 0;
    struct mem *m;
    if (mem_open(c->home, tenant, &m, err) != 0) return -1;
    static const char *const sql[] = {
        "DELETE FROM notes_fts WHERE rowid IN (SELECT id FROM notes WHERE repo = ?1)",
        "DELETE FROM episodes_fts WHERE rowid IN (SELECT id FROM episodes WHERE repo = ?1)",
        "DELETE FROM entities_fts WHERE rowid IN (SELECT id FROM entities WHERE repo = ?1)",
        "DELETE FROM notes WHERE repo = ?1",
        "DELETE FROM episodes WHERE repo = ?1",
        "DELETE FROM entities WHERE repo = ?1",
        "DELETE FROM sessions WHERE repo = ?1",
        "DELETE FROM projects WHERE repo = ?1",
    };
    int rc = sqlite3_exec(m->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK ? 0 : db_fail(m->db, "begin", err);
    for (size_t i = 0; rc == 0 && i < sizeof(sql) / sizeof(sql[0]); i++) {
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(m->db, sql[i], -1, &st, NULL) != SQLITE_OK) {
            rc = db_fail(m->db, "forget the repo", err);
            break;
        }
        sqlite3_bind_text(st, 1, repo_id, -1, SQLITE_STATIC);
        if (sqlite3_step(st) != SQLITE_DONE) rc = db_fail(m->db, "forget the repo", err);
        sqlite3_finalize(st);
    }
    if (rc == 0 && sqlite3_exec(m->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) rc = db_fail(m->db, "commit", err);
    if (rc != 0) sqlite3_exec(m->db, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_close_v2(m->db);
    pthread_mutex_destroy(&m->mu);
    free(m);
    return rc;
}

/* ---- 2. the request's scope ----------------------------------------------------------- */

struct scope {
    struct mem *m;
    struct mg_repo repo;
    char ext[SESSION_ID_MAX + 1]; /* the session's external id */
    int64_t sid;                  /* its row; 0 when not needed */
    int64_t project;              /* its project; 0 = none */
    char project_name[MG_ID_MAX + 1];
};

static int64_t now_s(void) { return (int64_t)time(NULL); }

static int prep(struct mem *m, const char *sql, sqlite3_stmt **st, struct mg_err *err)
{
    if (sqlite3_prepare_v2(m->db, sql, -1, st, NULL) != SQLITE_OK) return db_fail(m->db, "prepare", err);
    return 0;
}

static const char *col(sqlite3_stmt *st, int i)
{
    const char *s = (const char *)sqlite3_column_text(st, i);
    return s ? s : "";
}

/* The guardrail: a row is the request's only if its tenant and repo
 * fingerprint are the request's (the project is checked by callers where it
 * applies). */
static bool row_ok(const struct scope *s, struct mg_ctx *x, const char *tenant, const char *fp)
{
    return strcmp(tenant, x->who->tenant) == 0 && strcmp(fp, s->repo.fingerprint) == 0;
}

static bool valid_session_id(const char *s)
{
    size_t n = strlen(s);
    if (n < 1 || n > SESSION_ID_MAX) return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
              c == ':' || c == '-'))
            return false;
    }
    return true;
}

/* Resolve the repo (one), and with need_session the session row (made on
 * first use) and its current project. The caller holds s->m->mu after a
 * successful return and must call scope_end. */
static int scope_begin(struct mg_ctx *x, json_t *args, bool need_session, struct scope *s, struct mg_err *err)
{
    memset(s, 0, sizeof(*s));
    const char *repo, *repo2, *sess;
    if (mg_arg_str(args, "repo", false, &repo, err) != 0 || mg_arg_str(args, "repo_id", false, &repo2, err) != 0 ||
        mg_arg_str(args, "session_id", false, &sess, err) != 0)
        return -1;
    struct mg_repo *v = NULL;
    size_t n = 0;
    if (mg_resolve_repos(x, repo ? repo : repo2, &v, &n, err) != 0) return -1;
    if (n != 1) {
        free(v);
        return mg_err_set(err, MG_E_REPO_REQUIRED, "memory belongs to one repo and this request names %zu; pass "
                          "`repo`", n);
    }
    s->repo = v[0];
    free(v);
    if (sess && !valid_session_id(sess))
        return mg_err_set(err, MG_E_BAD_ARG, "'session_id' must be 1-%d characters of A-Z a-z 0-9 . _ : -",
                          SESSION_ID_MAX);
    snprintf(s->ext, sizeof(s->ext), "%s", sess ? sess : x->session ? x->session->id : "cli");
    if (!(s->m = mem_get(x, err))) return -1;
    pthread_mutex_lock(&s->m->mu);
    if (!need_session) return 0;
    sqlite3_stmt *st = NULL;
    if (prep(s->m, "INSERT INTO sessions(tenant, repo, repo_fp, external_id, created_at) VALUES(?,?,?,?,?) "
                   "ON CONFLICT(repo, external_id) DO NOTHING",
             &st, err) != 0)
        goto fail;
    sqlite3_bind_text(st, 1, x->who->tenant, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, s->repo.id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, s->repo.fingerprint, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, s->ext, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 5, now_s());
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        db_fail(s->m->db, "create the session", err);
        goto fail;
    }
    if (prep(s->m, "SELECT s.id, s.tenant, s.repo_fp, coalesce(s.project_id, 0), coalesce(p.name, '') "
                   "FROM sessions s LEFT JOIN projects p ON p.id = s.project_id WHERE s.repo = ? AND s.external_id = ?",
             &st, err) != 0)
        goto fail;
    sqlite3_bind_text(st, 1, s->repo.id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, s->ext, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW) {
        if (!row_ok(s, x, col(st, 1), col(st, 2))) {
            sqlite3_finalize(st);
            mg_gate_drop(x, "session", 1);
            mg_err_set(err, MG_E_SESSION_NOT_FOUND, "session '%s' of repo '%s' does not belong to this request; use "
                       "another session_id", s->ext, s->repo.id);
            goto fail;
        }
        s->sid = sqlite3_column_int64(st, 0);
        s->project = sqlite3_column_int64(st, 3);
        snprintf(s->project_name, sizeof(s->project_name), "%s", col(st, 4));
    }
    sqlite3_finalize(st);
    if (!s->sid) {
        db_fail(s->m->db, "read the session", err);
        goto fail;
    }
    return 0;
fail:
    pthread_mutex_unlock(&s->m->mu);
    s->m = NULL;
    return -1;
}

static void scope_end(struct scope *s)
{
    if (s->m) pthread_mutex_unlock(&s->m->mu);
    s->m = NULL;
}

static json_t *scope_json(const struct scope *s)
{
    return json_pack("{s:s, s:s, s:o}", "repo", s->repo.id, "session", s->ext, "project",
                     s->project ? json_string(s->project_name) : json_null());
}

/* Text stored in memory passes the same secret policy as the index. */
static int clean_text(struct mg_ctx *x, const char *in, struct mg_buf *out, int *nred, struct mg_err *err)
{
    if (mg_gate_redact(x, in, strlen(in), out, nred) != 0)
        return mg_err_set(err, MG_E_INTERNAL, "the secret scan failed; nothing was stored");
    if (!out->p && mg_buf_add(out, "", 0) != 0) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory");
    return 0;
}

/* The FTS token stream of the given texts joined by spaces. */
static char *fts_stream(const char *a, const char *b, const char *c)
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

static int fts_put(struct mem *m, const char *table, int64_t id, const char *stream, struct mg_err *err)
{
    char sql[128];
    snprintf(sql, sizeof(sql), "INSERT OR REPLACE INTO %s(rowid, body) VALUES(?, ?)", table);
    sqlite3_stmt *st;
    if (prep(m, sql, &st, err) != 0) return -1;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_text(st, 2, stream, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : db_fail(m->db, "index the text", err);
}

/* An FTS5 MATCH expression of the query's words (any may match); NULL when
 * it has none. */
static char *fts_match(const char *q)
{
    struct mg_buf b;
    mg_buf_init(&b, 1 << 20);
    if (mg_fts_query(q, strlen(q), MG_FTS_ANY, &b) == 0) {
        mg_buf_release(&b);
        return NULL;
    }
    return mg_buf_detach(&b, NULL);
}

static int begin(struct mem *m, struct mg_err *err)
{
    return sqlite3_exec(m->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK ? 0 : db_fail(m->db, "begin", err);
}

static int commit(struct mem *m, struct mg_err *err)
{
    if (sqlite3_exec(m->db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK) return 0;
    db_fail(m->db, "commit", err);
    sqlite3_exec(m->db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

static void rollback(struct mem *m) { sqlite3_exec(m->db, "ROLLBACK", NULL, NULL, NULL); }

/* ---- 3. notes ------------------------------------------------------------------------ */

static const char *const K_NOTE[] = {"key", "value", "source", "trust", "repo", "repo_id", "session_id", NULL};

static int check_key(const char *key, struct mg_err *err)
{
    size_t n = strlen(key);
    if (n < 1 || n > NOTE_KEY_MAX) return mg_err_set(err, MG_E_BAD_ARG, "'key' must be 1-%d bytes", NOTE_KEY_MAX);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)key[i] < 0x20 || key[i] == 0x7f)
            return mg_err_set(err, MG_E_BAD_ARG, "'key' must not contain control characters");
    return 0;
}

static json_t *note_json(sqlite3_stmt *st)
{
    /* columns: key, value, source, trust, session, created_at, updated_at, repo */
    return json_pack("{s:s, s:s, s:s, s:f, s:s, s:s, s:I, s:I}", "key", col(st, 0), "value", col(st, 1), "source",
                     col(st, 2), "trust", sqlite3_column_double(st, 3), "session", col(st, 4), "repo", col(st, 7),
                     "created_at", (json_int_t)sqlite3_column_int64(st, 5), "updated_at",
                     (json_int_t)sqlite3_column_int64(st, 6));
}

#define NOTE_COLS "key, value, source, trust, coalesce(session, ''), created_at, updated_at, repo, tenant, repo_fp"

static int t_set_note(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    const char *key, *value, *source;
    if (mg_known_keys(args, K_NOTE, err) != 0 || mg_arg_str(args, "key", true, &key, err) != 0 ||
        mg_arg_str(args, "value", true, &value, err) != 0 || mg_arg_str(args, "source", false, &source, err) != 0 ||
        check_key(key, err) != 0)
        return -1;
    if (strlen(value) > NOTE_VALUE_MAX)
        return mg_err_set(err, MG_E_BAD_ARG, "'value' is over %d bytes; store less", NOTE_VALUE_MAX);
    if (!source) source = "user_stated";
    double trust = strcmp(source, "user_stated") == 0 ? 1.0 : strcmp(source, "llm_extracted") == 0 ? 0.6 : 0.3;
    if (strcmp(source, "user_stated") && strcmp(source, "llm_extracted") && strcmp(source, "inferred"))
        return mg_err_set(err, MG_E_BAD_ARG, "'source' must be user_stated, llm_extracted or inferred");
    json_t *tv = json_object_get(args, "trust");
    if (tv && !json_is_null(tv)) {
        if (!json_is_number(tv) || json_number_value(tv) < 0 || json_number_value(tv) > 1)
            return mg_err_set(err, MG_E_BAD_ARG, "'trust' must be a number from 0 to 1");
        trust = json_number_value(tv);
    }
    struct scope s;
    if (scope_begin(x, args, false, &s, err) != 0) return -1;
    struct mg_buf v;
    mg_buf_init(&v, (size_t)1 << 26);
    int nred = 0, rc = -1;
    sqlite3_stmt *st = NULL;
    char *stream = NULL;
    if (clean_text(x, value, &v, &nred, err) != 0 || begin(s.m, err) != 0) goto out;
    bool created = true;
    if (prep(s.m, "SELECT 1 FROM notes WHERE repo = ? AND key = ?", &st, err) != 0) goto fail;
    sqlite3_bind_text(st, 1, s.repo.id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
    created = sqlite3_step(st) != SQLITE_ROW;
    sqlite3_finalize(st);
    int64_t t = now_s();
    if (prep(s.m, "INSERT INTO notes(tenant, repo, repo_fp, key, value, source, trust, session, created_at, updated_at)"
                  " VALUES(?,?,?,?,?,?,?,?,?,?) ON CONFLICT(repo, key) DO UPDATE SET tenant = excluded.tenant,"
                  " repo_fp = excluded.repo_fp, value = excluded.value, source = excluded.source,"
                  " trust = excluded.trust, session = excluded.session, updated_at = excluded.updated_at"
                  " RETURNING id",
             &st, err) != 0)
        goto fail;
    sqlite3_bind_text(st, 1, x->who->tenant, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, s.repo.id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, s.repo.fingerprint, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, key, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, v.p, (int)v.len, SQLITE_STATIC);
    sqlite3_bind_text(st, 6, source, -1, SQLITE_STATIC);
    sqlite3_bind_double(st, 7, trust);
    sqlite3_bind_text(st, 8, s.ext, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 9, t);
    sqlite3_bind_int64(st, 10, t);
    int64_t id = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    if (!id) {
        db_fail(s.m->db, "store the note", err);
        goto fail;
    }
    stream = fts_stream(key, v.p, NULL);
    if (fts_put(s.m, "notes_fts", id, stream, err) != 0 || commit(s.m, err) != 0) goto fail;
    json_t *note = json_pack("{s:s, s:s, s:s, s:f, s:s, s:s, s:I, s:I}", "key", key, "value", v.p, "source", source,
                             "trust", trust, "session", s.ext, "repo", s.repo.id, "created_at", (json_int_t)t,
                             "updated_at", (json_int_t)t);
    *result = json_pack("{s:o, s:b, s:i}", "note", note, "created", created, "redactions", nred);
    rc = 0;
    goto out;
fail:
    rollback(s.m);
out:
    free(stream);
    mg_buf_release(&v);
    scope_end(&s);
    return rc;
}

/* Run a notes query (bound by the caller) and collect the rows that pass the guardrail. */
static json_t *collect_notes(struct mg_ctx *x, struct scope *s, sqlite3_stmt *st)
{
    json_t *a = json_array();
    size_t dropped = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (!row_ok(s, x, col(st, 8), col(st, 9))) {
            dropped++;
            continue;
        }
        json_array_append_new(a, note_json(st));
    }
    mg_gate_drop(x, "note", dropped);
    return a;
}

static int t_get_note(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"key", "repo", "repo_id", "session_id", NULL};
    const char *key;
    if (mg_known_keys(args, keys, err) != 0 || mg_arg_str(args, "key", true, &key, err) != 0) return -1;
    struct scope s;
    if (scope_begin(x, args, false, &s, err) != 0) return -1;
    sqlite3_stmt *st;
    int rc = -1;
    if (prep(s.m, "SELECT " NOTE_COLS " FROM notes WHERE repo = ? AND key = ?", &st, err) == 0) {
        sqlite3_bind_text(st, 1, s.repo.id, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
        json_t *a = collect_notes(x, &s, st);
        sqlite3_finalize(st);
        if (json_array_size(a) == 0)
            mg_err_set(err, MG_E_NOTE_NOT_FOUND, "no note '%.200s' in repo '%s'; list_notes shows the keys", key,
                       s.repo.id);
        else
            *result = json_pack("{s:O}", "note", json_array_get(a, 0)), rc = 0;
        json_decref(a);
    }
    scope_end(&s);
    return rc;
}

static int t_list_notes(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"prefix", "limit", "repo", "repo_id", "session_id", NULL};
    const char *prefix;
    long long limit;
    if (mg_known_keys(args, keys, err) != 0 || mg_arg_str(args, "prefix", false, &prefix, err) != 0 ||
        mg_arg_int(args, "limit", 1, 10000, 100, &limit, err) != 0)
        return -1;
    struct scope s;
    if (scope_begin(x, args, false, &s, err) != 0) return -1;
    sqlite3_stmt *st;
    int rc = -1;
    if (prep(s.m, "SELECT " NOTE_COLS " FROM notes WHERE repo = ?1 AND substr(key, 1, length(?2)) = ?2 "
                  "ORDER BY updated_at DESC, id DESC LIMIT ?3",
             &st, err) == 0) {
        sqlite3_bind_text(st, 1, s.repo.id, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, prefix ? prefix : "", -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 3, limit);
        *result = json_pack("{s:o, s:s}", "notes", collect_notes(x, &s, st), "repo", s.repo.id);
        sqlite3_finalize(st);
        rc = 0;
    }
    scope_end(&s);
    return rc;
}

/* The repo's notes matching q, best first (none when q has no words). */
static json_t *notes_in(struct mg_ctx *x, struct scope *s, const char *q, long long limit, struct mg_err *err)
{
    char *match = fts_match(q);
    if (!match) return json_array();
    sqlite3_stmt *st;
    json_t *a = NULL;
    if (prep(s->m, "SELECT n.key, n.value, n.source, n.trust, coalesce(n.session, ''), n.created_at, n.updated_at,"
                   " n.repo, n.tenant, n.repo_fp FROM notes_fts JOIN notes n ON n.id = notes_fts.rowid"
                   " WHERE notes_fts MATCH ?1 AND n.repo = ?2 ORDER BY bm25(notes_fts) LIMIT ?3",
             &st, err) == 0) {
        sqlite3_bind_text(st, 1, match, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, s->repo.id, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 3, limit);
        a = collect_notes(x, s, st);
        sqlite3_finalize(st);
    }
    free(match);
    return a;
}

static int t_search_notes(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"query", "limit", "repo", "repo_id", "session_id", NULL};
    const char *q;
    long long limit;
    if (mg_known_keys(args, keys, err) != 0 || mg_arg_str(args, "query", true, &q, err) != 0 ||
        mg_arg_int(args, "limit", 1, 1000, 20, &limit, err) != 0)
        return -1;
    if (strlen(q) > x->srv->cfg.max_query_bytes)
        return mg_err_set(err, MG_E_QUERY_TOO_LONG, "the query is over max_query_bytes");
    struct scope s;
    if (scope_begin(x, args, false, &s, err) != 0) return -1;
    json_t *a = notes_in(x, &s, q, limit, err);
    if (a) *result = json_pack("{s:o, s:s}", "notes", a, "repo", s.repo.id);
    scope_end(&s);
    return a ? 0 : -1;
}

static int t_delete_note(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"key", "repo", "repo_id", "session_id", NULL};
    const char *key;
    if (mg_known_keys(args, keys, err) != 0 || mg_arg_str(args, "key", true, &key, err) != 0) return -1;
    struct scope s;
    if (scope_begin(x, args, false, &s, err) != 0) return -1;
    int rc = -1;
    sqlite3_stmt *st;
    if (begin(s.m, err) == 0) {
        if (prep(s.m, "DELETE FROM notes WHERE repo = ? AND key = ? AND tenant = ? AND repo_fp = ? RETURNING id", &st,
                 err) == 0) {
            sqlite3_bind_text(st, 1, s.repo.id, -1, SQLITE_STATIC);
            sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
            sqlite3_bind_text(st, 3, x->who->tenant, -1, SQLITE_STATIC);
            sqlite3_bind_text(st, 4, s.repo.fingerprint, -1, SQLITE_STATIC);
            int64_t id = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
            sqlite3_finalize(st);
            sqlite3_stmt *d;
            if (id && prep(s.m, "DELETE FROM notes_fts WHERE rowid = ?", &d, err) == 0) {
                sqlite3_bind_int64(d, 1, id);
                sqlite3_step(d);
                sqlite3_finalize(d);
            }
            if (commit(s.m, err) == 0) {
                *result = json_pack("{s:s, s:b}", "key", key, "deleted", id != 0);
                rc = 0;
            }
        } else {
            rollback(s.m);
        }
    }
    scope_end(&s);
    return rc;
}

/* ---- 4. projects ------------------------------------------------------------------------ */

/* The project of this repo named `name`: its id, or 0 with project_not_found. */
static int64_t project_id(struct mg_ctx *x, struct scope *s, const char *name, struct mg_err *err)
{
    sqlite3_stmt *st;
    if (prep(s->m, "SELECT id, tenant, repo_fp FROM projects WHERE repo = ? AND name = ?", &st, err) != 0) return 0;
    sqlite3_bind_text(st, 1, s->repo.id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
    int64_t id = 0;
    if (sqlite3_step(st) == SQLITE_ROW) {
        if (row_ok(s, x, col(st, 1), col(st, 2))) id = sqlite3_column_int64(st, 0);
        else mg_gate_drop(x, "project", 1);
    }
    sqlite3_finalize(st);
    if (!id)
        mg_err_set(err, MG_E_PROJECT_NOT_FOUND, "no project '%.64s' in repo '%s'; list_projects shows them", name,
                   s->repo.id);
    return id;
}

static int t_create_project(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"name", "repo", "repo_id", "session_id", NULL};
    const char *name;
    if (mg_known_keys(args, keys, err) != 0 || mg_arg_str(args, "name", true, &name, err) != 0) return -1;
    if (mg_repo_check_name(name, err) != 0) {
        mg_err_set(err, MG_E_NAME_INVALID, "project name '%.64s' is not valid: 1-64 characters of a-z 0-9 . _ - "
                   "starting with a letter or digit", name);
        return -1;
    }
    struct scope s;
    if (scope_begin(x, args, false, &s, err) != 0) return -1;
    sqlite3_stmt *st;
    int rc = -1;
    if (prep(s.m, "INSERT INTO projects(tenant, repo, repo_fp, name, isolated, created_at) VALUES(?,?,?,?,1,?) "
                  "ON CONFLICT(repo, name) DO NOTHING RETURNING id",
             &st, err) == 0) {
        sqlite3_bind_text(st, 1, x->who->tenant, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, s.repo.id, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, s.repo.fingerprint, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, name, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 5, now_s());
        int r = sqlite3_step(st);
        int64_t id = r == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
        sqlite3_finalize(st);
        if (r == SQLITE_ROW) {
            *result = json_pack("{s:{s:s, s:I, s:b, s:s}}", "project", "name", name, "id", (json_int_t)id,
                                "isolated", 1, "repo", s.repo.id);
            rc = 0;
        } else if (r == SQLITE_DONE) {
            mg_err_set(err, MG_E_PROJECT_EXISTS, "project '%s' already exists in repo '%s'", name, s.repo.id);
        } else {
            db_fail(s.m->db, "create the project", err);
        }
    }
    scope_end(&s);
    return rc;
}

static int t_list_projects(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"repo", "repo_id", "session_id", NULL};
    if (mg_known_keys(args, keys, err) != 0) return -1;
    struct scope s;
    if (scope_begin(x, args, false, &s, err) != 0) return -1;
    sqlite3_stmt *st;
    int rc = -1;
    if (prep(s.m, "SELECT p.name, p.id, p.created_at, p.tenant, p.repo_fp,"
                  " (SELECT count(*) FROM sessions WHERE project_id = p.id) FROM projects p WHERE p.repo = ?"
                  " ORDER BY p.name",
             &st, err) == 0) {
        sqlite3_bind_text(st, 1, s.repo.id, -1, SQLITE_STATIC);
        json_t *a = json_array();
        size_t dropped = 0;
        while (sqlite3_step(st) == SQLITE_ROW) {
            if (!row_ok(&s, x, col(st, 3), col(st, 4))) {
                dropped++;
                continue;
            }
            json_array_append_new(a, json_pack("{s:s, s:I, s:b, s:I, s:I}", "name", col(st, 0), "id",
                                               (json_int_t)sqlite3_column_int64(st, 1), "isolated", 1, "sessions",
                                               (json_int_t)sqlite3_column_int64(st, 5), "created_at",
                                               (json_int_t)sqlite3_column_int64(st, 2)));
        }
        sqlite3_finalize(st);
        mg_gate_drop(x, "project", dropped);
        *result = json_pack("{s:o, s:s}", "projects", a, "repo", s.repo.id);
        rc = 0;
    }
    scope_end(&s);
    return rc;
}

static int set_membership(struct mg_ctx *x, json_t *args, bool join, json_t **result, struct mg_err *err)
{
    static const char *const jkeys[] = {"project", "repo", "repo_id", "session_id", NULL};
    static const char *const lkeys[] = {"repo", "repo_id", "session_id", NULL};
    const char *name = NULL;
    if (mg_known_keys(args, join ? jkeys : lkeys, err) != 0 ||
        (join && mg_arg_str(args, "project", true, &name, err) != 0))
        return -1;
    struct scope s;
    if (scope_begin(x, args, true, &s, err) != 0) return -1;
    int rc = -1;
    int64_t pid = join ? project_id(x, &s, name, err) : 0;
    sqlite3_stmt *st;
    if ((!join || pid) && prep(s.m, "UPDATE sessions SET project_id = ? WHERE id = ?", &st, err) == 0) {
        if (pid) sqlite3_bind_int64(st, 1, pid);
        else sqlite3_bind_null(st, 1);
        sqlite3_bind_int64(st, 2, s.sid);
        if (sqlite3_step(st) == SQLITE_DONE) {
            *result = json_pack("{s:s, s:o, s:s}", "session", s.ext, "project", join ? json_string(name) : json_null(),
                                "repo", s.repo.id);
            rc = 0;
        } else {
            db_fail(s.m->db, "change the session's project", err);
        }
        sqlite3_finalize(st);
    }
    scope_end(&s);
    return rc;
}

static int t_join_project(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    return set_membership(x, args, true, result, err);
}

static int t_leave_project(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    return set_membership(x, args, false, result, err);
}

static int exec_count(struct mem *m, const char *sql, int64_t a, int64_t *count, struct mg_err *err)
{
    sqlite3_stmt *st;
    if (prep(m, sql, &st, err) != 0) return -1;
    sqlite3_bind_int64(st, 1, a);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return db_fail(m->db, "delete", err);
    if (count) *count = sqlite3_changes(m->db);
    return 0;
}

static int t_delete_project(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"project", "repo", "repo_id", "session_id", NULL};
    const char *name;
    if (mg_known_keys(args, keys, err) != 0 || mg_arg_str(args, "project", true, &name, err) != 0) return -1;
    struct scope s;
    if (scope_begin(x, args, false, &s, err) != 0) return -1;
    int rc = -1;
    int64_t pid = project_id(x, &s, name, err), ne = 0, nn = 0, ns = 0;
    /* the project's memory goes with it: never released into the shared pool */
    if (pid && begin(s.m, err) == 0) {
        if (exec_count(s.m, "DELETE FROM episodes_fts WHERE rowid IN (SELECT e.id FROM episodes e JOIN sessions s"
                            " ON s.id = e.session_id WHERE s.project_id = ?)", pid, NULL, err) == 0 &&
            exec_count(s.m, "DELETE FROM episodes WHERE session_id IN (SELECT id FROM sessions WHERE project_id = ?)",
                       pid, &ne, err) == 0 &&
            exec_count(s.m, "DELETE FROM entities_fts WHERE rowid IN (SELECT id FROM entities WHERE project_id = ?)",
                       pid, NULL, err) == 0 &&
            exec_count(s.m, "DELETE FROM entities WHERE project_id = ?", pid, &nn, err) == 0 &&
            exec_count(s.m, "UPDATE sessions SET project_id = NULL WHERE project_id = ?", pid, &ns, err) == 0 &&
            exec_count(s.m, "DELETE FROM projects WHERE id = ?", pid, NULL, err) == 0 && commit(s.m, err) == 0) {
            *result = json_pack("{s:s, s:b, s:I, s:I, s:I}", "project", name, "deleted", 1, "sessions",
                                (json_int_t)ns, "episodes", (json_int_t)ne, "entities", (json_int_t)nn);
            rc = 0;
        } else {
            rollback(s.m);
        }
    }
    scope_end(&s);
    return rc;
}

/* ---- 5. episodes ------------------------------------------------------------------------ */

static json_t *tags_json(const char *t)
{
    json_t *a = json_array();
    while (*t) {
        const char *c = strchr(t, ',');
        size_t n = c ? (size_t)(c - t) : strlen(t);
        json_array_append_new(a, json_stringn(t, n));
        t += n + (c ? 1 : 0);
    }
    return a;
}

static int t_remember(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"summary", "tags", "repo", "repo_id", "session_id", NULL};
    const char *summary;
    if (mg_known_keys(args, keys, err) != 0 || mg_arg_str(args, "summary", true, &summary, err) != 0) return -1;
    if (!*summary || strlen(summary) > SUMMARY_MAX)
        return mg_err_set(err, MG_E_BAD_ARG, "'summary' must be 1 to %d bytes", SUMMARY_MAX);
    json_t *tags = json_object_get(args, "tags"), *tg;
    size_t i;
    struct mg_buf tb;
    mg_buf_init(&tb, 1 << 16);
    if (tags && !json_is_null(tags)) {
        if (!json_is_array(tags) || json_array_size(tags) > TAGS_MAX)
            return mg_err_set(err, MG_E_BAD_ARG, "'tags' must be an array of at most %d strings", TAGS_MAX);
        json_array_foreach(tags, i, tg)
        {
            if (!json_is_string(tg) || json_string_length(tg) == 0 || json_string_length(tg) > 64 ||
                strchr(json_string_value(tg), ',')) {
                mg_buf_release(&tb);
                return mg_err_set(err, MG_E_BAD_ARG, "each tag must be 1-64 bytes without ','");
            }
            mg_buf_addf(&tb, "%s%s", i ? "," : "", json_string_value(tg));
        }
    }
    struct scope s;
    if (scope_begin(x, args, true, &s, err) != 0) {
        mg_buf_release(&tb);
        return -1;
    }
    struct mg_buf v;
    mg_buf_init(&v, (size_t)1 << 26);
    int nred = 0, rc = -1;
    char *stream = NULL;
    sqlite3_stmt *st;
    const char *tagstr = tb.p ? tb.p : "";
    if (clean_text(x, summary, &v, &nred, err) == 0 && begin(s.m, err) == 0) {
        int64_t t = now_s(), id = 0;
        if (prep(s.m, "INSERT INTO episodes(tenant, repo, repo_fp, session_id, summary, tags, created_at) "
                      "VALUES(?,?,?,?,?,?,?) RETURNING id",
                 &st, err) == 0) {
            sqlite3_bind_text(st, 1, x->who->tenant, -1, SQLITE_STATIC);
            sqlite3_bind_text(st, 2, s.repo.id, -1, SQLITE_STATIC);
            sqlite3_bind_text(st, 3, s.repo.fingerprint, -1, SQLITE_STATIC);
            sqlite3_bind_int64(st, 4, s.sid);
            sqlite3_bind_text(st, 5, v.p, (int)v.len, SQLITE_STATIC);
            sqlite3_bind_text(st, 6, tagstr, -1, SQLITE_STATIC);
            sqlite3_bind_int64(st, 7, t);
            id = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
            sqlite3_finalize(st);
        }
        stream = id ? fts_stream(v.p, tagstr, NULL) : NULL;
        if (id && fts_put(s.m, "episodes_fts", id, stream, err) == 0 && commit(s.m, err) == 0) {
            *result = json_pack("{s:{s:I, s:s, s:s, s:o, s:I}, s:o, s:i}", "episode", "id", (json_int_t)id,
                                "session", s.ext, "summary", v.p, "tags", tags_json(tagstr), "created_at",
                                (json_int_t)t, "scope", scope_json(&s), "redactions", nred);
            rc = 0;
        } else {
            if (!id) db_fail(s.m->db, "store the episode", err);
            rollback(s.m);
        }
    }
    free(stream);
    mg_buf_release(&v);
    mg_buf_release(&tb);
    scope_end(&s);
    return rc;
}

/* The episodes in the session's scope matching q (all when q has no
 * words), best first. */
static json_t *recall_in(struct mg_ctx *x, struct scope *s, const char *q, long long limit, struct mg_err *err)
{
    char *match = q ? fts_match(q) : NULL;
    const char *sql_match =
        "SELECT e.id, e.summary, e.tags, e.created_at, s.external_id, e.tenant, e.repo_fp, coalesce(s.project_id, 0),"
        " -bm25(episodes_fts) FROM episodes_fts JOIN episodes e ON e.id = episodes_fts.rowid"
        " JOIN sessions s ON s.id = e.session_id"
        " WHERE episodes_fts MATCH ?1 AND e.repo = ?2 AND s.project_id IS ?3 ORDER BY bm25(episodes_fts) LIMIT ?4";
    const char *sql_all =
        "SELECT e.id, e.summary, e.tags, e.created_at, s.external_id, e.tenant, e.repo_fp, coalesce(s.project_id, 0),"
        " 0.0 FROM episodes e JOIN sessions s ON s.id = e.session_id"
        " WHERE ?1 IS NULL AND e.repo = ?2 AND s.project_id IS ?3 ORDER BY e.created_at DESC, e.id DESC LIMIT ?4";
    sqlite3_stmt *st;
    if (prep(s->m, match ? sql_match : sql_all, &st, err) != 0) {
        free(match);
        return NULL;
    }
    if (match) sqlite3_bind_text(st, 1, match, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, s->repo.id, -1, SQLITE_STATIC);
    if (s->project) sqlite3_bind_int64(st, 3, s->project);
    else sqlite3_bind_null(st, 3);
    sqlite3_bind_int64(st, 4, limit);
    json_t *a = json_array();
    size_t dropped = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (!row_ok(s, x, col(st, 5), col(st, 6)) || sqlite3_column_int64(st, 7) != s->project) {
            dropped++;
            continue;
        }
        json_array_append_new(a, json_pack("{s:I, s:s, s:s, s:o, s:I, s:f}", "id",
                                           (json_int_t)sqlite3_column_int64(st, 0), "session", col(st, 4), "summary",
                                           col(st, 1), "tags", tags_json(col(st, 2)), "created_at",
                                           (json_int_t)sqlite3_column_int64(st, 3), "score",
                                           sqlite3_column_double(st, 8)));
    }
    sqlite3_finalize(st);
    free(match);
    mg_gate_drop(x, "episode", dropped);
    return a;
}

/* recall and search_entities: an optional query searched in the session's scope. */
typedef json_t *(*scoped_fn)(struct mg_ctx *x, struct scope *s, const char *q, long long limit, struct mg_err *err);

static int scoped_search(struct mg_ctx *x, json_t *args, long long dflt, const char *field, scoped_fn fn,
                         json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"query", "limit", "repo", "repo_id", "session_id", NULL};
    const char *q;
    long long limit;
    if (mg_known_keys(args, keys, err) != 0 || mg_arg_str(args, "query", false, &q, err) != 0 ||
        mg_arg_int(args, "limit", 1, 1000, dflt, &limit, err) != 0)
        return -1;
    if (q && strlen(q) > x->srv->cfg.max_query_bytes)
        return mg_err_set(err, MG_E_QUERY_TOO_LONG, "the query is over max_query_bytes");
    struct scope s;
    if (scope_begin(x, args, true, &s, err) != 0) return -1;
    json_t *a = fn(x, &s, q, limit, err);
    if (a) *result = json_pack("{s:o, s:o}", field, a, "scope", scope_json(&s));
    scope_end(&s);
    return a ? 0 : -1;
}

static int t_recall(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    return scoped_search(x, args, 10, "episodes", recall_in, result, err);
}

/* ---- 6. entities ------------------------------------------------------------------------ */

static int t_add_entities(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"entities", "repo", "repo_id", "session_id", NULL};
    if (mg_known_keys(args, keys, err) != 0) return -1;
    json_t *ents = json_object_get(args, "entities"), *e;
    size_t i;
    if (!json_is_array(ents) || json_array_size(ents) == 0 || json_array_size(ents) > ENTITIES_MAX)
        return mg_err_set(err, MG_E_BAD_ARG, "'entities' must be an array of 1 to %d objects {name, type, notes}",
                          ENTITIES_MAX);
    json_array_foreach(ents, i, e)
    {
        json_t *n = json_object_get(e, "name"), *t = json_object_get(e, "type"), *o = json_object_get(e, "notes");
        if (!json_is_object(e) || !json_is_string(n) || json_string_length(n) == 0 || json_string_length(n) > 256 ||
            (t && !json_is_string(t)) || json_string_length(t) > 64 || (o && !json_is_string(o)) ||
            json_string_length(o) > ENTITY_NOTES_MAX || json_object_size(e) > 3)
            return mg_err_set(err, MG_E_BAD_ARG, "entity %zu must be {name (1-256 bytes), type (<= 64), notes "
                              "(<= %d)} and nothing else", i, ENTITY_NOTES_MAX);
    }
    struct scope s;
    if (scope_begin(x, args, true, &s, err) != 0) return -1;
    int rc = -1, nred = 0;
    json_t *out = json_array();
    if (begin(s.m, err) != 0) goto done;
    int64_t t = now_s();
    sqlite3_stmt *st;
    if (prep(s.m, "INSERT INTO entities(tenant, repo, repo_fp, project_id, session_id, name, type, notes, created_at)"
                  " VALUES(?,?,?,?,?,?,?,?,?) RETURNING id",
             &st, err) != 0) {
        rollback(s.m);
        goto done;
    }
    json_array_foreach(ents, i, e)
    {
        const char *type = json_string_value(json_object_get(e, "type")), *notes =
            json_string_value(json_object_get(e, "notes"));
        struct mg_buf nb;
        mg_buf_init(&nb, (size_t)1 << 26);
        int r1 = 0;
        if (clean_text(x, notes ? notes : "", &nb, &r1, err) != 0) {
            mg_buf_release(&nb);
            break;
        }
        nred += r1;
        sqlite3_reset(st);
        sqlite3_bind_text(st, 1, x->who->tenant, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, s.repo.id, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, s.repo.fingerprint, -1, SQLITE_STATIC);
        if (s.project) sqlite3_bind_int64(st, 4, s.project);
        else sqlite3_bind_null(st, 4);
        sqlite3_bind_int64(st, 5, s.sid);
        sqlite3_bind_text(st, 6, json_string_value(json_object_get(e, "name")), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 7, type ? type : "", -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 8, nb.p, (int)nb.len, SQLITE_TRANSIENT);
        sqlite3_bind_int64(st, 9, t);
        int64_t id = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
        char *stream = id ? fts_stream(json_string_value(json_object_get(e, "name")), type, nb.p) : NULL;
        int ok = id && fts_put(s.m, "entities_fts", id, stream, err) == 0;
        free(stream);
        if (ok)
            json_array_append_new(out, json_pack("{s:I, s:s, s:s, s:s, s:o}", "id", (json_int_t)id, "name",
                                                 json_string_value(json_object_get(e, "name")), "type",
                                                 type ? type : "", "notes", nb.p,
                                                 "project", s.project ? json_string(s.project_name) : json_null()));
        mg_buf_release(&nb);
        if (!ok) {
            if (!id) db_fail(s.m->db, "store the entity", err);
            break;
        }
    }
    sqlite3_finalize(st);
    if (json_array_size(out) == json_array_size(ents) && commit(s.m, err) == 0) {
        *result = json_pack("{s:O, s:o, s:i}", "entities", out, "scope", scope_json(&s), "redactions", nred);
        rc = 0;
    } else {
        rollback(s.m);
    }
done:
    json_decref(out);
    scope_end(&s);
    return rc;
}

static json_t *entities_in(struct mg_ctx *x, struct scope *s, const char *q, long long limit, struct mg_err *err)
{
    json_t *a = json_array();
    if (!s->project) return a; /* sessions in no project get no entity context */
    char *match = q ? fts_match(q) : NULL;
    const char *sql_match = "SELECT n.id, n.name, n.type, n.notes, n.created_at, n.tenant, n.repo_fp,"
                            " coalesce(n.project_id, 0), -bm25(entities_fts) FROM entities_fts"
                            " JOIN entities n ON n.id = entities_fts.rowid"
                            " WHERE entities_fts MATCH ?1 AND n.repo = ?2 AND n.project_id = ?3"
                            " ORDER BY bm25(entities_fts) LIMIT ?4";
    const char *sql_all = "SELECT n.id, n.name, n.type, n.notes, n.created_at, n.tenant, n.repo_fp,"
                          " coalesce(n.project_id, 0), 0.0 FROM entities n"
                          " WHERE ?1 IS NULL AND n.repo = ?2 AND n.project_id = ?3 ORDER BY n.id DESC LIMIT ?4";
    sqlite3_stmt *st;
    if (prep(s->m, match ? sql_match : sql_all, &st, err) != 0) {
        free(match);
        json_decref(a);
        return NULL;
    }
    if (match) sqlite3_bind_text(st, 1, match, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, s->repo.id, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, s->project);
    sqlite3_bind_int64(st, 4, limit);
    size_t dropped = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (!row_ok(s, x, col(st, 5), col(st, 6)) || sqlite3_column_int64(st, 7) != s->project) {
            dropped++;
            continue;
        }
        json_array_append_new(a, json_pack("{s:I, s:s, s:s, s:s, s:s, s:I, s:f}", "id",
                                           (json_int_t)sqlite3_column_int64(st, 0), "name", col(st, 1), "type",
                                           col(st, 2), "notes", col(st, 3), "project", s->project_name, "created_at",
                                           (json_int_t)sqlite3_column_int64(st, 4), "score",
                                           sqlite3_column_double(st, 8)));
    }
    sqlite3_finalize(st);
    free(match);
    mg_gate_drop(x, "entity", dropped);
    return a;
}

static int t_search_entities(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    return scoped_search(x, args, 20, "entities", entities_in, result, err);
}

static int t_retag_entities(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"ids", "project", "repo", "repo_id", "session_id", NULL};
    const char *name;
    if (mg_known_keys(args, keys, err) != 0 || mg_arg_str(args, "project", false, &name, err) != 0) return -1;
    json_t *ids = json_object_get(args, "ids"), *v;
    size_t i;
    if (!json_is_array(ids) || json_array_size(ids) == 0 || json_array_size(ids) > ENTITIES_MAX)
        return mg_err_set(err, MG_E_BAD_ARG, "'ids' must be an array of 1 to %d entity ids", ENTITIES_MAX);
    json_array_foreach(ids, i, v) if (!json_is_integer(v)) return mg_err_set(err, MG_E_BAD_ARG, "'ids' holds integers");
    struct scope s;
    if (scope_begin(x, args, false, &s, err) != 0) return -1;
    int rc = -1;
    int64_t pid = name ? project_id(x, &s, name, err) : 0;
    sqlite3_stmt *st;
    if ((!name || pid) && begin(s.m, err) == 0) {
        if (prep(s.m, "UPDATE entities SET project_id = ? WHERE id = ? AND repo = ? AND tenant = ? AND repo_fp = ?",
                 &st, err) == 0) {
            long long n = 0;
            json_array_foreach(ids, i, v)
            {
                sqlite3_reset(st);
                if (pid) sqlite3_bind_int64(st, 1, pid);
                else sqlite3_bind_null(st, 1);
                sqlite3_bind_int64(st, 2, json_integer_value(v));
                sqlite3_bind_text(st, 3, s.repo.id, -1, SQLITE_STATIC);
                sqlite3_bind_text(st, 4, x->who->tenant, -1, SQLITE_STATIC);
                sqlite3_bind_text(st, 5, s.repo.fingerprint, -1, SQLITE_STATIC);
                if (sqlite3_step(st) == SQLITE_DONE) n += sqlite3_changes(s.m->db);
            }
            sqlite3_finalize(st);
            if (commit(s.m, err) == 0) {
                *result = json_pack("{s:I, s:o}", "retagged", (json_int_t)n, "project",
                                    name ? json_string(name) : json_null());
                rc = 0;
            }
        } else {
            rollback(s.m);
        }
    }
    scope_end(&s);
    return rc;
}

/* ---- 7. profiles (global per agent_id by design) -------------------------------------- */

static int check_agent(const char *a, struct mg_err *err)
{
    if (!valid_session_id(a))
        return mg_err_set(err, MG_E_BAD_ARG, "'agent_id' must be 1-%d characters of A-Z a-z 0-9 . _ : -",
                          SESSION_ID_MAX);
    return 0;
}

static int t_save_preference(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"agent_id", "key", "value", NULL};
    const char *agent, *key, *value;
    if (mg_known_keys(args, keys, err) != 0 || mg_arg_str(args, "agent_id", true, &agent, err) != 0 ||
        mg_arg_str(args, "key", true, &key, err) != 0 || mg_arg_str(args, "value", true, &value, err) != 0 ||
        check_agent(agent, err) != 0 || check_key(key, err) != 0)
        return -1;
    if (strlen(value) > NOTE_VALUE_MAX) return mg_err_set(err, MG_E_BAD_ARG, "'value' is over %d bytes", NOTE_VALUE_MAX);
    struct mem *m = mem_get(x, err);
    if (!m) return -1;
    struct mg_buf v;
    mg_buf_init(&v, (size_t)1 << 26);
    int nred = 0, rc = -1;
    pthread_mutex_lock(&m->mu);
    sqlite3_stmt *st;
    if (clean_text(x, value, &v, &nred, err) == 0 &&
        prep(m, "INSERT INTO profiles(tenant, agent_id, key, value, updated_at) VALUES(?,?,?,?,?) "
                "ON CONFLICT(agent_id, key) DO UPDATE SET tenant = excluded.tenant, value = excluded.value,"
                " updated_at = excluded.updated_at",
             &st, err) == 0) {
        sqlite3_bind_text(st, 1, x->who->tenant, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, agent, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, key, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, v.p, (int)v.len, SQLITE_STATIC);
        sqlite3_bind_int64(st, 5, now_s());
        if (sqlite3_step(st) == SQLITE_DONE) {
            *result = json_pack("{s:s, s:s, s:s}", "agent_id", agent, "key", key, "value", v.p);
            rc = 0;
        } else {
            db_fail(m->db, "store the preference", err);
        }
        sqlite3_finalize(st);
    }
    pthread_mutex_unlock(&m->mu);
    mg_buf_release(&v);
    return rc;
}

static int t_get_profile(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"agent_id", NULL};
    const char *agent;
    if (mg_known_keys(args, keys, err) != 0 || mg_arg_str(args, "agent_id", true, &agent, err) != 0 ||
        check_agent(agent, err) != 0)
        return -1;
    struct mem *m = mem_get(x, err);
    if (!m) return -1;
    int rc = -1;
    pthread_mutex_lock(&m->mu);
    sqlite3_stmt *st;
    if (prep(m, "SELECT key, value, tenant FROM profiles WHERE agent_id = ? ORDER BY key", &st, err) == 0) {
        sqlite3_bind_text(st, 1, agent, -1, SQLITE_STATIC);
        json_t *p = json_object();
        size_t dropped = 0;
        while (sqlite3_step(st) == SQLITE_ROW) {
            if (strcmp(col(st, 2), x->who->tenant) != 0) {
                dropped++;
                continue;
            }
            json_object_set_new(p, col(st, 0), json_string(col(st, 1)));
        }
        sqlite3_finalize(st);
        mg_gate_drop(x, "profile", dropped);
        *result = json_pack("{s:s, s:o}", "agent_id", agent, "preferences", p);
        rc = 0;
    }
    pthread_mutex_unlock(&m->mu);
    return rc;
}

/* ---- 8. get_context ----------------------------------------------------------------------- */

struct piece {
    const char *kind;
    char *source;
    char *text;
    double rrf;
    int order; /* tie-break: code, note, episode, entity */
};

static int cmp_piece(const void *a, const void *b)
{
    const struct piece *x = a, *y = b;
    if (x->rrf != y->rrf) return x->rrf > y->rrf ? -1 : 1;
    return x->order - y->order;
}

static void add_piece(struct piece *v, size_t *n, const char *kind, int order, size_t rank, char *source, char *text)
{
    v[*n] = (struct piece){kind, source, text, 1.0 / (RRF_K + (double)rank + 1.0), order};
    (*n)++;
}

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    char *s = NULL;
    if (vasprintf(&s, f, ap) < 0) s = NULL;
    va_end(ap);
    return s ? s : strdup("");
}

static int t_get_context(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"prompt", "limit", "repo", "repo_id", "session_id", NULL};
    const char *prompt;
    long long limit;
    if (mg_known_keys(args, keys, err) != 0 || mg_arg_str(args, "prompt", true, &prompt, err) != 0 ||
        mg_arg_int(args, "limit", 1, 50, 8, &limit, err) != 0)
        return -1;
    if (!*prompt || strlen(prompt) > x->srv->cfg.max_query_bytes)
        return mg_err_set(err, MG_E_BAD_ARG, "'prompt' must be 1 byte to max_query_bytes");
    /* code: the search tool itself, on the same repo */
    struct scope s;
    if (scope_begin(x, args, true, &s, err) != 0) return -1;
    char repo_id[MG_ID_MAX + 1];
    snprintf(repo_id, sizeof(repo_id), "%s", s.repo.id);
    bool in_project = s.project != 0;
    json_t *eps = recall_in(x, &s, prompt, limit, err);
    json_t *ents = eps ? entities_in(x, &s, prompt, limit, err) : NULL;
    json_t *notes = ents ? notes_in(x, &s, prompt, limit, err) : NULL;
    json_t *scope = scope_json(&s);
    scope_end(&s); /* the code search below takes no memory lock */
    json_t *code = NULL;
    if (notes) {
        const struct mg_tool *search = mg_tool_find(x->srv, "search_code");
        json_t *sargs = json_pack("{s:s, s:s, s:I}", "query", prompt, "repo", repo_id, "limit", (json_int_t)limit);
        struct mg_err serr = {0};
        if (search && search->call(x, sargs, &code, &serr) != 0) code = NULL; /* no code context; memory still comes */
        json_decref(sargs);
    }
    int rc = -1;
    if (notes) {
        json_t *hits = json_object_get(code, "results");
        size_t cap = json_array_size(hits) + json_array_size(notes) + json_array_size(eps) + json_array_size(ents);
        struct piece *pv = calloc(cap + 1, sizeof(*pv));
        size_t np = 0, i;
        json_t *e;
        json_array_foreach(hits, i, e)
        {
            json_int_t line = json_integer_value(json_object_get(e, "line"));
            add_piece(pv, &np, "code", 0, i,
                      fmt("[source: %s:%lld]", json_string_value(json_object_get(e, "path")), (long long)line),
                      strdup(json_string_value(json_object_get(e, "snippet")) ?: ""));
        }
        json_array_foreach(notes, i, e)
            add_piece(pv, &np, "note", 1, i, fmt("[note: %s]", json_string_value(json_object_get(e, "key"))),
                      strdup(json_string_value(json_object_get(e, "value")) ?: ""));
        json_array_foreach(eps, i, e)
        {
            time_t t = (time_t)json_integer_value(json_object_get(e, "created_at"));
            struct tm tm;
            char day[16];
            gmtime_r(&t, &tm);
            strftime(day, sizeof(day), "%Y-%m-%d", &tm);
            add_piece(pv, &np, "episode", 2, i,
                      fmt("[episode: %s, %s]", json_string_value(json_object_get(e, "session")), day),
                      strdup(json_string_value(json_object_get(e, "summary")) ?: ""));
        }
        json_array_foreach(ents, i, e)
            add_piece(pv, &np, "entity", 3, i,
                      fmt("[entity: %s (%s)]", json_string_value(json_object_get(e, "name")),
                          json_string_value(json_object_get(e, "type"))),
                      strdup(json_string_value(json_object_get(e, "notes")) ?: ""));
        qsort(pv, np, sizeof(*pv), cmp_piece);
        /* each piece through the gate's filter (secrets, control sequences, the per-piece cap, flags) */
        json_t *pieces = json_array();
        for (i = 0; i < np; i++)
            json_array_append_new(pieces, json_pack("{s:s, s:s, s:s}", "kind", pv[i].kind, "attribution",
                                                    pv[i].source, "text", pv[i].text));
        json_t *wrap = json_pack("{s:o}", "pieces", pieces);
        mg_gate_filter(x, wrap, NULL, NULL);
        struct mg_buf block;
        mg_buf_init(&block, (size_t)1 << 26);
        json_t *parts = json_array();
        size_t budget = x->srv->cfg.max_context_bytes;
        for (i = 0; i < json_array_size(pieces); i++) {
            json_t *p = json_array_get(pieces, i);
            const char *att = json_string_value(json_object_get(p, "attribution"));
            const char *text = json_string_value(json_object_get(p, "text"));
            size_t need = strlen(att) + 1 + strlen(text) + 2;
            if (block.len + need > budget) break; /* whole pieces only */
            mg_buf_addf(&block, "%s\n%s%s\n", att, text, text[0] && text[strlen(text) - 1] == '\n' ? "" : "\n");
            json_t *part = json_pack("{s:s, s:s, s:f}", "kind", json_string_value(json_object_get(p, "kind")),
                                     "source", att, "score", pv[i].rrf);
            json_t *fl = json_object_get(p, "flags");
            if (fl) json_object_set(part, "flags", fl);
            json_array_append_new(parts, part);
        }
        *result = json_pack("{s:s, s:o, s:O, s:b}", "block", block.p ? block.p : "", "parts", parts, "scope", scope,
                            "in_project", in_project);
        mg_buf_release(&block);
        json_decref(wrap);
        for (i = 0; i < np; i++) {
            free(pv[i].source);
            free(pv[i].text);
        }
        free(pv);
        rc = 0;
    }
    json_decref(scope);
    json_decref(code);
    json_decref(notes);
    json_decref(eps);
    json_decref(ents);
    return rc;
}

/* ---- 9. the table --------------------------------------------------------------------------- */

#define S_R "\"repo\":{\"type\":\"string\",\"description\":\"repo id; default: the session's repo\"}"
#define S_S "\"session_id\":{\"type\":\"string\",\"description\":\"the conversation's durable id (default: this MCP session)\"}"
#define S_LIMIT "\"limit\":{\"type\":\"integer\",\"minimum\":1}"
#define OBJ(props, req) "{\"type\":\"object\",\"properties\":{" props "}," req "\"additionalProperties\":false}"
#define REQ(list) "\"required\":[" list "],"
#define OUT(props) "{\"type\":\"object\",\"properties\":{" props "}}"

static const struct mg_tool tools[] = {
    {"set_note", "Set a note",
     "Store durable knowledge about the repo under a key (replaces the value). source: user_stated (default), "
     "llm_extracted or inferred; trust 0-1.",
     OBJ("\"key\":{\"type\":\"string\"},\"value\":{\"type\":\"string\"},\"source\":{\"type\":\"string\",\"enum\":"
         "[\"user_stated\",\"llm_extracted\",\"inferred\"]},\"trust\":{\"type\":\"number\",\"minimum\":0,"
         "\"maximum\":1}," S_R "," S_S,
         REQ("\"key\",\"value\"")),
     OUT("\"note\":{\"type\":\"object\"},\"created\":{\"type\":\"boolean\"}"), t_set_note, MG_LEVEL_WRITE},
    {"get_note", "Get a note", "Read one note of the repo by key.",
     OBJ("\"key\":{\"type\":\"string\"}," S_R "," S_S, REQ("\"key\"")), OUT("\"note\":{\"type\":\"object\"}"),
     t_get_note, MG_LEVEL_READ},
    {"list_notes", "List notes", "The repo's notes, newest first, optionally those whose key starts with prefix.",
     OBJ("\"prefix\":{\"type\":\"string\"}," S_LIMIT "," S_R "," S_S, ""), OUT("\"notes\":{\"type\":\"array\"}"),
     t_list_notes, MG_LEVEL_READ},
    {"search_notes", "Search notes", "Ranked search over the repo's notes (keys and values).",
     OBJ("\"query\":{\"type\":\"string\"}," S_LIMIT "," S_R "," S_S, REQ("\"query\"")),
     OUT("\"notes\":{\"type\":\"array\"}"), t_search_notes, MG_LEVEL_READ},
    {"delete_note", "Delete a note", "Delete a note of the repo by key.",
     OBJ("\"key\":{\"type\":\"string\"}," S_R "," S_S, REQ("\"key\"")), OUT("\"deleted\":{\"type\":\"boolean\"}"),
     t_delete_note, MG_LEVEL_WRITE},
    {"create_project", "Create a project",
     "Create a project of this repo: a named group of sessions that share episodes and entities, isolated from "
     "every other project and from sessions in no project.",
     OBJ("\"name\":{\"type\":\"string\"}," S_R "," S_S, REQ("\"name\"")), OUT("\"project\":{\"type\":\"object\"}"),
     t_create_project, MG_LEVEL_WRITE},
    {"list_projects", "List projects", "The repo's projects and how many sessions each has.", OBJ(S_R "," S_S, ""),
     OUT("\"projects\":{\"type\":\"array\"}"), t_list_projects, MG_LEVEL_READ},
    {"join_project", "Join a project",
     "Put this session in a project (leaving any other): from the next call its episodes are in the project's "
     "pool, earlier ones included.",
     OBJ("\"project\":{\"type\":\"string\"}," S_R "," S_S, REQ("\"project\"")),
     OUT("\"project\":{\"type\":[\"string\",\"null\"]}"), t_join_project, MG_LEVEL_WRITE},
    {"leave_project", "Leave the project",
     "Take this session out of its project: its episodes leave the project's pool at once.", OBJ(S_R "," S_S, ""),
     OUT("\"project\":{\"type\":[\"string\",\"null\"]}"), t_leave_project, MG_LEVEL_WRITE},
    {"delete_project", "Delete a project",
     "Delete a project with its entities and its sessions' episodes (they never join the shared pool).",
     OBJ("\"project\":{\"type\":\"string\"}," S_R "," S_S, REQ("\"project\"")),
     OUT("\"deleted\":{\"type\":\"boolean\"}"), t_delete_project, MG_LEVEL_WRITE},
    {"remember", "Remember an episode",
     "Store what this session did or learned (a summary, optional tags), for later sessions of its project (or of "
     "the shared pool when it is in none).",
     OBJ("\"summary\":{\"type\":\"string\"},\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}," S_R
         "," S_S,
         REQ("\"summary\"")),
     OUT("\"episode\":{\"type\":\"object\"}"), t_remember, MG_LEVEL_WRITE},
    {"recall", "Recall episodes",
     "Search earlier episodes in this session's scope: every session of its project, or the shared pool of "
     "sessions in no project. Without query: the newest.",
     OBJ("\"query\":{\"type\":\"string\"}," S_LIMIT "," S_R "," S_S, ""), OUT("\"episodes\":{\"type\":\"array\"}"),
     t_recall, MG_LEVEL_READ},
    {"add_entities", "Add entities",
     "Store named things (a service, a person, a component) with notes, tagged with this session's project.",
     OBJ("\"entities\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":"
         "\"string\"},\"type\":{\"type\":\"string\"},\"notes\":{\"type\":\"string\"}},\"required\":[\"name\"]}},"
         S_R "," S_S,
         REQ("\"entities\"")),
     OUT("\"entities\":{\"type\":\"array\"}"), t_add_entities, MG_LEVEL_WRITE},
    {"search_entities", "Search entities",
     "Search the entities of this session's project (none when it is in no project).",
     OBJ("\"query\":{\"type\":\"string\"}," S_LIMIT "," S_R "," S_S, ""), OUT("\"entities\":{\"type\":\"array\"}"),
     t_search_entities, MG_LEVEL_READ},
    {"retag_entities", "Retag entities",
     "Move entities to another project of the repo (or to none with project null). Tags never change otherwise.",
     OBJ("\"ids\":{\"type\":\"array\",\"items\":{\"type\":\"integer\"}},\"project\":{\"type\":[\"string\","
         "\"null\"]}," S_R "," S_S,
         REQ("\"ids\"")),
     OUT("\"retagged\":{\"type\":\"integer\"}"), t_retag_entities, MG_LEVEL_WRITE},
    {"save_preference", "Save a preference",
     "Store a preference of an agent (agent_id). Profiles are global by design: the same in every repo and project "
     "of the tenant.",
     OBJ("\"agent_id\":{\"type\":\"string\"},\"key\":{\"type\":\"string\"},\"value\":{\"type\":\"string\"}",
         REQ("\"agent_id\",\"key\",\"value\"")),
     OUT("\"agent_id\":{\"type\":\"string\"}"), t_save_preference, MG_LEVEL_WRITE},
    {"get_profile", "Get a profile", "An agent's preferences (global by design).",
     OBJ("\"agent_id\":{\"type\":\"string\"}", REQ("\"agent_id\"")), OUT("\"preferences\":{\"type\":\"object\"}"),
     t_get_profile, MG_LEVEL_READ},
    {"get_context", "Get context for a prompt",
     "One capped, attributed block for a prompt: the relevant code, the repo's notes, earlier episodes of this "
     "session's scope and its project's entities, fused by rank, secrets redacted, injection flagged.",
     OBJ("\"prompt\":{\"type\":\"string\"}," S_LIMIT "," S_R "," S_S, REQ("\"prompt\"")),
     OUT("\"block\":{\"type\":\"string\"},\"parts\":{\"type\":\"array\"}"), t_get_context, MG_LEVEL_READ},
};

const struct mg_tool *mg_memory_tools(size_t *n)
{
    *n = sizeof(tools) / sizeof(tools[0]);
    return tools;
}
