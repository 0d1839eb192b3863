/* db.c — open a repo database and migrate its schema; the pool of read
 * handles; transactions and the meta rows (see db.h; the tables are
 * indexdb.h's).
 *
 * Sections:
 *   1. the schema's migrations
 *   2. open, close, SQL functions, transactions
 *   3. the pool of read-only handles
 *   4. meta rows
 */
#include "store/db.h"

#include <sqlite3.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "store/indexdb.h"
#include "store/rank.h"
#include "store/sqlite.h"
#include "store/tokenize.h"

/* ---- 1. the schema's migrations ------------------------------------------------------------------- */

/* migrations[i] takes the schema from version i to i + 1. Never edit a
 * released entry: add a new one and bump MG_SCHEMA_VERSION. */
static const char *const migrations[] = {
    /* 0 -> 1 */
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value) WITHOUT ROWID;"
    "CREATE TABLE files("
    "  id INTEGER PRIMARY KEY AUTOINCREMENT,"
    "  path TEXT NOT NULL UNIQUE,"
    "  lang TEXT NOT NULL,"
    "  size INTEGER NOT NULL,"     /* bytes of the stored text */
    "  hash INTEGER NOT NULL,"     /* xxh3-64 of the bytes on disk */
    "  mtime INTEGER NOT NULL,"    /* ns */
    "  lines INTEGER NOT NULL,"
    "  flags INTEGER NOT NULL DEFAULT 0,"
    "  chunk_lo INTEGER NOT NULL, chunk_hi INTEGER NOT NULL," /* the file's chunk ids: a contiguous range */
    "  sym_lo INTEGER NOT NULL, sym_hi INTEGER NOT NULL,"     /* its symbol ids, likewise (lo > hi: none) */
    "  content BLOB NOT NULL);"    /* zstd frame */
    "CREATE TABLE chunks("
    "  id INTEGER PRIMARY KEY,"
    "  file_id INTEGER NOT NULL,"
    "  start_line INTEGER NOT NULL, end_line INTEGER NOT NULL,"
    "  start_byte INTEGER NOT NULL, end_byte INTEGER NOT NULL,"
    "  symbol TEXT, kind TEXT, container TEXT);"
    "CREATE TABLE symbols("
    "  id INTEGER PRIMARY KEY,"
    "  file_id INTEGER NOT NULL,"
    "  name TEXT NOT NULL,"
    "  kind TEXT NOT NULL,"
    "  container TEXT,"
    "  start_line INTEGER NOT NULL, end_line INTEGER NOT NULL);"
    "CREATE INDEX symbols_by_name ON symbols(name COLLATE NOCASE);"
    /* detail=column: no positions. Queries never need phrases (identifier
     * parts are ANDed), and indexing runs ~1.6x faster than with detail=full */
    "CREATE VIRTUAL TABLE chunks_fts USING fts5(path, symbol, body,"
    "  content='', detail=column, columnsize=0, tokenize='mgcode');"
    /* flush FTS5's pending terms every 64 MiB rather than 1 MiB: 64x fewer
     * level-0 segments to merge during a large index run */
    "INSERT INTO chunks_fts(chunks_fts, rank) VALUES('hashsize', 67108864);"
    "CREATE TABLE trigrams(tri INTEGER NOT NULL, seg INTEGER NOT NULL, ids BLOB NOT NULL,"
    "  PRIMARY KEY(tri, seg)) WITHOUT ROWID;"
    "CREATE TABLE tri_pending(file_id INTEGER PRIMARY KEY);",
    /* 1 -> 2: small segments get a table of their own (store/trigram.h).
     * Compaction before this version dropped ids of interleaved segments:
     * the postings are rebuilt from the stored text by the next index run
     * (every file pending; pending files are candidates until then). */
    "CREATE TABLE tri_recent(tri INTEGER NOT NULL, seg INTEGER NOT NULL, ids BLOB NOT NULL,"
    "  PRIMARY KEY(tri, seg)) WITHOUT ROWID;"
    "DELETE FROM trigrams;"
    "DELETE FROM meta WHERE key IN ('tri_segs', 'tri_dead_bytes', 'tri_recent_segs', 'tri_seg_next');"
    "INSERT OR IGNORE INTO tri_pending(file_id) SELECT id FROM files;",
    /* 2 -> 3: the names each file defines and uses (index/refs.h), for the
     * repo map. Rows of files indexed before are added by the next full run
     * (meta refs_ready is unset until then; search/repomap.h refuses). */
    "CREATE TABLE IF NOT EXISTS refs(file_id INTEGER PRIMARY KEY, defs BLOB, uses BLOB);",
    /* 3 -> 4: the functions C and C++ files store into struct fields
     * (index/refs_ptr.h), written with a file's refs row. The refs rows of
     * C and C++ files go, so that the next full run writes both again from
     * the stored text (indexer's mg__fill_refs; until then navigation sees
     * no function pointers and the repo map waits, as after 2 -> 3). */
    "CREATE TABLE IF NOT EXISTS ptr_stores(file_id INTEGER NOT NULL, seq INTEGER NOT NULL, fn TEXT NOT NULL,"
    "  type TEXT, field TEXT, ordinal INTEGER NOT NULL, line INTEGER NOT NULL,"
    "  PRIMARY KEY(file_id, seq)) WITHOUT ROWID;"
    "CREATE INDEX IF NOT EXISTS ptr_stores_by_field ON ptr_stores(field) WHERE field IS NOT NULL;"
    "CREATE INDEX IF NOT EXISTS ptr_stores_by_place ON ptr_stores(type, ordinal) WHERE field IS NULL;"
    "CREATE INDEX IF NOT EXISTS ptr_stores_by_fn ON ptr_stores(fn);"
    "DELETE FROM refs WHERE file_id IN (SELECT id FROM files WHERE lang IN ('c', 'cpp'));"
    "DELETE FROM ptr_stores;" /* empty, unless a newer memgate made it: refilled with refs */
    "DELETE FROM meta WHERE key = 'refs_ready';",
    /* 4 -> 5: the calls through struct fields (index/refs_ptr.h), written
     * with a file's refs row as the stores are: the refs rows of C and C++
     * files go again, and their stores, refilled by the next full run (until
     * then navigation finds no caller through a pointer). */
    "CREATE TABLE IF NOT EXISTS ptr_calls(file_id INTEGER NOT NULL, seq INTEGER NOT NULL, field TEXT NOT NULL,"
    "  type TEXT, line INTEGER NOT NULL, PRIMARY KEY(file_id, seq)) WITHOUT ROWID;"
    "CREATE INDEX IF NOT EXISTS ptr_calls_by_field ON ptr_calls(field);"
    "DELETE FROM refs WHERE file_id IN (SELECT id FROM files WHERE lang IN ('c', 'cpp'));"
    "DELETE FROM ptr_stores;"
    "DELETE FROM ptr_calls;"
    "DELETE FROM meta WHERE key = 'refs_ready';",
    /* 5 -> 6: each file's chunk-id range, its id and flags, from an index of
     * their own (search/filemap.h reads them all without the rows' text) */
    "CREATE INDEX IF NOT EXISTS files_chunks ON files(chunk_lo, chunk_hi, flags);",
    /* 6 -> 7: the vectors' tables in every index (the first embedding pass made them), with an index of
     * their counts (a vectors row fills a page of its own: counting the table read 356 MB for linux) and
     * the files dropped since the last embedding pass whose vectors go in the next (vector/vindex.c: an
     * edit's pass no longer compares every vectors row with the files). Orphans an older pass left behind
     * (a run stopped between its commit and its pass) are the first. */
    "CREATE TABLE IF NOT EXISTS vectors(file_id INTEGER PRIMARY KEY, n INTEGER NOT NULL, blob BLOB NOT NULL);"
    "CREATE TABLE IF NOT EXISTS embed_model(name TEXT PRIMARY KEY, value BLOB NOT NULL);"
    "CREATE INDEX IF NOT EXISTS files_scope ON files(path, lang, chunk_lo, chunk_hi);"
    "CREATE INDEX IF NOT EXISTS vectors_n ON vectors(n);"
    "CREATE TABLE IF NOT EXISTS vectors_dropped(file_id INTEGER PRIMARY KEY);"
    "INSERT OR IGNORE INTO vectors_dropped(file_id) SELECT file_id FROM vectors WHERE file_id NOT IN "
    "  (SELECT id FROM files);",
};

/* ---- 2. open, close, SQL functions, transactions ---------------------------------------------------- */

int mg_db_error(struct mg_db *d, const char *what, struct mg_err *err)
{
    return mg_sqlite_fail(d ? d->db : NULL, d ? d->path : "?", what, err);
}

int mg_db_exec(struct mg_db *d, const char *sql, struct mg_err *err)
{
    if (sqlite3_exec(d->db, sql, NULL, NULL, NULL) != SQLITE_OK) return mg_db_error(d, "sql", err);
    return 0;
}

int mg_db_begin(struct mg_db *d, struct mg_err *err) { return mg_db_exec(d, "BEGIN IMMEDIATE", err); }
sqlite3_stmt *mg_db_stmt(struct mg_db *d, int slot, const char *sql, bool *own, struct mg_err *err)
{
    *own = false;
    if (!d->stmts && !(d->stmts = calloc(MG_DB_NSTMT, sizeof(sqlite3_stmt *)))) {
        if (err) mg_err_oom(err);
        return NULL;
    }
    sqlite3_stmt **kept = d->stmts + slot;
    if (*kept && !sqlite3_stmt_busy(*kept)) return *kept;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v3(d->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL) != SQLITE_OK) {
        if (err) mg_db_error(d, "prepare", err);
        return NULL;
    }
    if (*kept) *own = true; /* the kept one is running: this one is the caller's */
    else *kept = st;
    return st;
}

int mg_db_run(struct mg_db *d, sqlite3_stmt *st, bool own, const char *what, struct mg_err *err)
{
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : mg_db_error(d, what, err);
    if (own) sqlite3_finalize(st);
    else sqlite3_reset(st);
    return rc;
}

/* Run slot's statement (no rows) once: 0, or -1 with err set (err may be NULL). */
static int run_kept(struct mg_db *d, int slot, const char *sql, struct mg_err *err)
{
    bool own;
    sqlite3_stmt *st = mg_db_stmt(d, slot, sql, &own, err);
    return st ? mg_db_run(d, st, own, "sql", err) : -1;
}

int mg_db_begin_read(struct mg_db *d, struct mg_err *err) { return run_kept(d, MG_DB_S_BEGIN_READ, "BEGIN", err); }

int mg_db_commit(struct mg_db *d, struct mg_err *err)
{
    if (sqlite3_exec(d->db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK) return 0;
    return err ? mg_db_error(d, "sql", err) : -1;
}

void mg_db_rollback(struct mg_db *d) { run_kept(d, MG_DB_S_ROLLBACK, "ROLLBACK", NULL); }

int mg_db_prepare(struct mg_db *d, const char *sql, sqlite3_stmt **st, struct mg_err *err)
{
    if (sqlite3_prepare_v2(d->db, sql, -1, st, NULL) != SQLITE_OK) return mg_db_error(d, "prepare", err);
    return 0;
}

bool mg_filter_scoped(const struct mg_filter *f) { return f && (f->globs || f->nlangs > 0); }

bool mg_filter_allows(const struct mg_filter *f, const char *path, size_t pathlen, const char *lang)
{
    if (!f) return true;
    if (f->nlangs > 0 && f->langs) {
        bool ok = false;
        for (int i = 0; i < f->nlangs && !ok; i++) ok = lang && strcmp(f->langs[i], lang) == 0;
        if (!ok) return false;
    }
    return mg_globset_allows(f->globs, path, pathlen);
}

/* mg_filter_ok(filter, path, lang): 1 when the bound filter allows the row. */
static void fn_filter_ok(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    const struct mg_filter *f = sqlite3_value_pointer(argv[0], "mg_filter");
    const char *path = (const char *)sqlite3_value_text(argv[1]);
    int plen = sqlite3_value_bytes(argv[1]);
    const char *lang = (const char *)sqlite3_value_text(argv[2]);
    sqlite3_result_int(ctx, path && mg_filter_allows(f, path, (size_t)plen, lang));
}

/* mg_in_idset(set, rowid): 1 when the bound set has rowid. */
static void fn_in_idset(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    const struct mg_idx_idset *s = sqlite3_value_pointer(argv[0], "mg_idset");
    sqlite3_result_int(ctx, s && s->has(s->self, sqlite3_value_int64(argv[1])));
}

static int setup(sqlite3 *db)
{
    if (mg_tokenizer_register(db) != 0) return -1; /* (the ranking functions: mg_db_open, with the handle's counts) */
    if (sqlite3_create_function(db, "mg_in_idset", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, fn_in_idset, NULL,
                                NULL) != SQLITE_OK)
        return -1;
    return sqlite3_create_function(db, "mg_filter_ok", 3, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, fn_filter_ok, NULL,
                                   NULL) == SQLITE_OK ? 0 : -1;
}

int mg_db_open(const char *path, int flags, struct mg_db **out, struct mg_err *err)
{
    *out = NULL;
    struct mg_db *d = calloc(1, sizeof(*d));
    if (!d) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory opening '%s'", path);
    snprintf(d->path, sizeof(d->path), "%s", path);
    bool ro = flags & MG_DB_READONLY;
    /* Debian builds SQLite with SECURE_DELETE, which zeroes every freed page:
     * a cost we do not need (the file is 0600 and rewritten constantly). No
     * memory map: the pages a handle reads through one stay in the process's
     * RSS (432 MB of a served kernel's 993 MB under load, 264 MB of a
     * watcher's first run), where reads from the kernel's page cache cost the
     * same CPU per call (bench/mcp_load.sh; docs/benchmarks.md, issue 39). A
     * read-only handle (a server keeps several per repo) caches 16 MiB. */
    struct mg_sqlite_spec spec = {
        .what = "index",
        .create = flags & MG_DB_CREATE,
        .readonly = ro,
        .missing = MG_E_REPO_NOT_FOUND,
        .pragmas = ro ? "PRAGMA secure_delete=OFF; PRAGMA temp_store=MEMORY; PRAGMA cache_size=-16384;"
                        "PRAGMA mmap_size=0;"
                      : "PRAGMA secure_delete=OFF; PRAGMA temp_store=MEMORY; PRAGMA cache_size=-65536;"
                        "PRAGMA mmap_size=0; PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        .setup = setup,
        .migrations = migrations,
        .version = MG_SCHEMA_VERSION,
    };
    if (mg_sqlite_open(path, &spec, &d->db, err) != 0) {
        free(d);
        return -1;
    }
    d->counts = mg_counts_new(d->db); /* (NULL, out of memory: nothing kept) */
    if (mg_rank_register(d->db, d->counts) != 0) {
        mg_err_set(err, MG_E_DB, "cannot register memgate's ranking functions on index '%s'", path);
        mg_db_close(&d);
        return -1;
    }
    *out = d;
    return 0;
}

void mg_db_close(struct mg_db **pd)
{
    struct mg_db *d = *pd;
    if (!d) return;
    if (d->stmts)
        for (int i = 0; i < MG_DB_NSTMT; i++) sqlite3_finalize(d->stmts[i]);
    free(d->stmts);
    if (d->db) sqlite3_close_v2(d->db);
    mg_counts_free(d->counts);
    free(d);
    *pd = NULL;
}

/* ---- 3. the pool of read-only handles ---------------------------------------------------------------- */

struct pool_file {
    char path[4096];
    unsigned long long dev, ino; /* the file the idle handles opened */
    unsigned long long gen;      /* bumped by mg_db_pool_drop */
    struct mg_db **idle;
    int nidle, out;
    pthread_cond_t cv;           /* a handle of this file came back */
    struct pool_file *next;
};

struct mg_db_pool {
    pthread_mutex_t mu;
    pthread_condattr_t ca; /* CLOCK_MONOTONIC, for the files' condition variables */
    int per_file;
    struct pool_file *files;
};

int mg_db_pool_new(int per_file, struct mg_db_pool **out, struct mg_err *err)
{
    struct mg_db_pool *p = calloc(1, sizeof(*p));
    if (!p) return mg_err_oom(err);
    p->per_file = per_file > 0 ? per_file : 1;
    pthread_condattr_init(&p->ca);
    pthread_condattr_setclock(&p->ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&p->mu, NULL);
    *out = p;
    return 0;
}

static void close_idle(struct pool_file *f)
{
    for (int i = 0; i < f->nidle; i++) mg_db_close(&f->idle[i]);
    f->nidle = 0;
}

void mg_db_pool_free(struct mg_db_pool **pp)
{
    struct mg_db_pool *p = *pp;
    if (!p) return;
    for (struct pool_file *f = p->files, *next; f; f = next) {
        next = f->next;
        close_idle(f);
        pthread_cond_destroy(&f->cv);
        free(f->idle);
        free(f);
    }
    pthread_mutex_destroy(&p->mu);
    pthread_condattr_destroy(&p->ca);
    free(p);
    *pp = NULL;
}

static struct pool_file *pool_file(struct mg_db_pool *p, const char *path)
{
    for (struct pool_file *f = p->files; f; f = f->next)
        if (strcmp(f->path, path) == 0) return f;
    struct pool_file *f = calloc(1, sizeof(*f));
    if (!f || !(f->idle = calloc((size_t)p->per_file, sizeof(*f->idle)))) {
        free(f);
        return NULL;
    }
    snprintf(f->path, sizeof(f->path), "%s", path);
    pthread_cond_init(&f->cv, &p->ca);
    f->next = p->files;
    p->files = f;
    return f;
}

int mg_db_get(struct mg_db_pool *p, const char *path, int64_t deadline_ms, struct mg_db **out, struct mg_err *err)
{
    *out = NULL;
    if (!p) return mg_db_open(path, MG_DB_READONLY, out, err);
    struct stat st;
    if (stat(path, &st) != 0) /* gone: mg_db_open says how */
        return mg_db_open(path, MG_DB_READONLY, out, err);
    pthread_mutex_lock(&p->mu);
    struct pool_file *f = pool_file(p, path);
    if (!f) {
        pthread_mutex_unlock(&p->mu);
        return mg_err_oom(err);
    }
    if (f->gen == 0 || f->dev != (unsigned long long)st.st_dev || f->ino != (unsigned long long)st.st_ino) {
        close_idle(f); /* another file under the same path: what is idle reads the old one (gen > 0 from here) */
        f->dev = (unsigned long long)st.st_dev;
        f->ino = (unsigned long long)st.st_ino;
        f->gen++;
    }
    while (f->nidle == 0 && f->out >= p->per_file) {
        if (!deadline_ms) {
            pthread_cond_wait(&f->cv, &p->mu);
            continue;
        }
        struct timespec ts = {.tv_sec = deadline_ms / 1000, .tv_nsec = (deadline_ms % 1000) * 1000000};
        if (pthread_cond_timedwait(&f->cv, &p->mu, &ts) == ETIMEDOUT && f->nidle == 0 && f->out >= p->per_file) {
            pthread_mutex_unlock(&p->mu);
            return mg_err_set(err, MG_E_TIMEOUT, "the request ran out of time waiting for the index of '%s' (every "
                              "reader of it is busy); retry", path);
        }
    }
    f->out++;
    struct mg_db *d = f->nidle ? f->idle[--f->nidle] : NULL;
    unsigned long long gen = f->gen;
    pthread_mutex_unlock(&p->mu);
    if (!d && mg_db_open(path, MG_DB_READONLY, &d, err) != 0) {
        pthread_mutex_lock(&p->mu);
        f->out--;
        pthread_cond_signal(&f->cv);
        pthread_mutex_unlock(&p->mu);
        return -1;
    }
    d->gen = gen;
    *out = d;
    return 0;
}

void mg_db_put(struct mg_db_pool *p, struct mg_db **pd)
{
    struct mg_db *d = *pd;
    *pd = NULL;
    if (!d) return;
    if (!p || d->gen == 0) { /* not the pool's (opened directly: its file was not there to stat) */
        mg_db_close(&d);
        return;
    }
    /* a statement left running (stepped, not reset) holds a read transaction:
     * the handle would see the index as it was, and stop checkpoints; such a
     * one is closed. (FTS5 keeps statements of its own prepared on the
     * handle, reset between queries: those are fine.) */
    bool clean = sqlite3_get_autocommit(d->db);
    for (sqlite3_stmt *st = NULL; clean && (st = sqlite3_next_stmt(d->db, st));) clean = !sqlite3_stmt_busy(st);
    pthread_mutex_lock(&p->mu);
    struct pool_file *f = pool_file(p, d->path);
    bool keep = clean && f && d->gen == f->gen && f->nidle < p->per_file;
    if (f) {
        f->out--;
        if (keep) f->idle[f->nidle++] = d;
        pthread_cond_signal(&f->cv); /* one slot freed: one waiter */
    }
    pthread_mutex_unlock(&p->mu);
    if (!keep) mg_db_close(&d);
}

void mg_db_pool_drop(struct mg_db_pool *p, const char *path)
{
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    for (struct pool_file *f = p->files; f; f = f->next)
        if (strcmp(f->path, path) == 0) {
            close_idle(f);
            f->gen++;
        }
    pthread_mutex_unlock(&p->mu);
}

/* ---- 4. meta rows ------------------------------------------------------------------------------------ */

int mg_db_meta_get(struct mg_db *d, const char *key, char *out, size_t cap)
{
    bool own;
    int rc = -1;
    sqlite3_stmt *st = mg_db_stmt(d, MG_DB_S_META_GET, "SELECT value FROM meta WHERE key=?", &own, NULL);
    if (!st) return -1;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
        snprintf(out, cap, "%s", (const char *)sqlite3_column_text(st, 0));
        rc = 0;
    }
    if (own) sqlite3_finalize(st);
    else sqlite3_reset(st);
    return rc;
}

bool mg_db_failed(struct mg_db *d)
{
    int rc = sqlite3_errcode(d->db);
    return rc != SQLITE_OK && rc != SQLITE_ROW && rc != SQLITE_DONE;
}

int64_t mg_db_meta_int(struct mg_db *d, const char *key, int64_t dflt)
{
    char buf[32];
    if (mg_db_meta_get(d, key, buf, sizeof(buf)) != 0) return dflt;
    return strtoll(buf, NULL, 10);
}

int mg_db_meta_set(struct mg_db *d, const char *key, const char *value, struct mg_err *err)
{
    sqlite3_stmt *st;
    if (mg_db_prepare(d, "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", &st, err) != 0) return -1;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : mg_db_error(d, "write meta", err);
    sqlite3_finalize(st);
    return rc;
}

int mg_db_meta_set_int(struct mg_db *d, const char *key, int64_t v, struct mg_err *err)
{
    char buf[32];
    snprintf(buf, sizeof(buf), "%lld", (long long)v);
    return mg_db_meta_set(d, key, buf, err);
}
