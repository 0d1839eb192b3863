/* db.c — open a repo database, migrate its schema (see db.h). */
#include "store/db.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/rank.h"
#include "store/sqlite.h"
#include "store/tokenize.h"

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
};

int mg_db_error(struct mg_db *d, const char *what, struct mg_err *err)
{
    return mg_sqlite_fail(d ? d->db : NULL, d ? d->path : "?", what, err);
}

int mg_db_exec(struct mg_db *d, const char *sql, struct mg_err *err)
{
    if (sqlite3_exec(d->db, sql, NULL, NULL, NULL) != SQLITE_OK) return mg_db_error(d, "sql", err);
    return 0;
}

int mg_db_prepare(struct mg_db *d, const char *sql, sqlite3_stmt **st, struct mg_err *err)
{
    if (sqlite3_prepare_v2(d->db, sql, -1, st, NULL) != SQLITE_OK) return mg_db_error(d, "prepare", err);
    return 0;
}

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

static int setup(sqlite3 *db)
{
    if (mg_tokenizer_register(db) != 0 || mg_rank_register(db) != 0) return -1;
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
     * a cost we do not need (the file is 0600 and rewritten constantly). */
    struct mg_sqlite_spec spec = {
        .what = "index",
        .create = flags & MG_DB_CREATE,
        .readonly = ro,
        .missing = MG_E_REPO_NOT_FOUND,
        .pragmas = ro ? "PRAGMA secure_delete=OFF; PRAGMA temp_store=MEMORY; PRAGMA cache_size=-65536;"
                        "PRAGMA mmap_size=268435456;"
                      : "PRAGMA secure_delete=OFF; PRAGMA temp_store=MEMORY; PRAGMA cache_size=-65536;"
                        "PRAGMA mmap_size=268435456; PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        .setup = setup,
        .migrations = migrations,
        .version = MG_SCHEMA_VERSION,
    };
    if (mg_sqlite_open(path, &spec, &d->db, err) != 0) {
        free(d);
        return -1;
    }
    *out = d;
    return 0;
}

void mg_db_close(struct mg_db **pd)
{
    struct mg_db *d = *pd;
    if (!d) return;
    if (d->db) sqlite3_close_v2(d->db);
    free(d);
    *pd = NULL;
}

int mg_db_meta_get(struct mg_db *d, const char *key, char *out, size_t cap)
{
    sqlite3_stmt *st;
    int rc = -1;
    if (sqlite3_prepare_v2(d->db, "SELECT value FROM meta WHERE key=?", -1, &st, NULL) != SQLITE_OK) return -1;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
        snprintf(out, cap, "%s", (const char *)sqlite3_column_text(st, 0));
        rc = 0;
    }
    sqlite3_finalize(st);
    return rc;
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
