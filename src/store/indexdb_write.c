/* indexdb_write.c — the index writer's statements: a file's rows added and
 * dropped, the ids they take, the name index, a run's settings
 * (indexdb.h, section 6). */
#include "store/indexdb_int.h"

#include <stdio.h>
#include <string.h>

#include "store/rank.h"

void mg_idx_next_ids(struct mg_db *d, int64_t *file, int64_t *chunk_seq, int64_t *symbol)
{
    if (file)
        *file = mg__idx_int(d, S_NEXT_FILE, "SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = "
                            "'files'), 0), coalesce((SELECT max(id) FROM files), 0)) + 1", 1);
    if (chunk_seq)
        *chunk_seq = mg_chunk_seq(mg__idx_int(d, S_NEXT_CHUNK, "SELECT coalesce(max(id), 0) FROM chunks", 1)) + 1;
    if (symbol) *symbol = mg__idx_int(d, S_NEXT_SYMBOL, "SELECT coalesce(max(id), 0) + 1 FROM symbols", 1);
}

/* Step the write in slot with r's fields bound in the order cols names them. */
static int write_row(struct mg_db *d, int slot, const char *sql, const unsigned char *cols, const struct mg_idx_row *r,
                     const char *what, struct mg_err *err)
{
    bool own;
    sqlite3_stmt *s = mg_db_stmt(d, slot, sql, &own, err);
    if (!s) return -1;
    mg__idx_bind(s, cols, r);
    return mg_db_run(d, s, own, what, err);
}

int mg_idx_add_file(struct mg_db *d, const struct mg_idx_row *r, struct mg_err *err)
{
    static const unsigned char cols[] = {K_PATH, K_LANG, K_SIZE, K_HASH, K_MTIME, K_LINES, K_FLAGS, K_CHUNK_LO,
                                         K_CHUNK_HI, K_SYM_LO, K_SYM_HI, K_BLOB, K_ID, K_END};
    static const unsigned char pending[] = {K_ID, K_END};
    if (write_row(d, S_ADD_FILE, "INSERT INTO files(path, lang, size, hash, mtime, lines, flags, chunk_lo, chunk_hi, "
                  "sym_lo, sym_hi, content, id) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", cols, r, "insert file",
                  err) != 0)
        return -1;
    return write_row(d, S_ADD_PENDING, "INSERT INTO tri_pending(file_id) VALUES(?)", pending, r, "insert file", err);
}

int mg_idx_add_chunk(struct mg_db *d, const struct mg_idx_row *r, struct mg_err *err)
{
    static const unsigned char cols[] = {K_ID,       K_FILE_ID, K_START_LINE, K_END_LINE, K_START_BYTE,
                                         K_END_BYTE, K_SYMBOL,  K_KIND,       K_CONTAINER, K_END};
    return write_row(d, S_ADD_CHUNK, "INSERT INTO chunks(id, file_id, start_line, end_line, start_byte, end_byte, "
                     "symbol, kind, container) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)", cols, r, "insert chunk", err);
}

static int words(struct mg_db *d, int slot, const char *sql, int64_t chunk_id, const char *path, size_t npath,
                 const char *sym, size_t nsym, const char *body, size_t nbody, const char *what, struct mg_err *err)
{
    bool own;
    sqlite3_stmt *s = mg_db_stmt(d, slot, sql, &own, err);
    if (!s) return -1;
    sqlite3_bind_int64(s, 1, chunk_id);
    sqlite3_bind_text(s, 2, path, (int)npath, SQLITE_STATIC);
    sqlite3_bind_text(s, 3, sym, (int)nsym, SQLITE_STATIC);
    sqlite3_bind_text(s, 4, body, (int)nbody, SQLITE_STATIC);
    return mg_db_run(d, s, own, what, err);
}

int mg_idx_add_words(struct mg_db *d, int64_t chunk_id, const char *path, size_t npath, const char *sym, size_t nsym,
                     const char *body, size_t nbody, struct mg_err *err)
{
    return words(d, S_ADD_WORDS, "INSERT INTO chunks_fts(rowid, path, symbol, body) VALUES(?, ?, ?, ?)", chunk_id,
                 path, npath, sym, nsym, body, nbody, "index chunk", err);
}

int mg_idx_drop_words(struct mg_db *d, int64_t chunk_id, const char *path, size_t npath, const char *sym,
                      size_t nsym, const char *body, size_t nbody, struct mg_err *err)
{
    return words(d, S_DROP_WORDS, "INSERT INTO chunks_fts(chunks_fts, rowid, path, symbol, body) "
                 "VALUES('delete', ?, ?, ?, ?)", chunk_id, path, npath, sym, nsym, body, nbody, "delete chunk text",
                 err);
}

int mg_idx_add_symbol(struct mg_db *d, const struct mg_idx_row *r, struct mg_err *err)
{
    static const unsigned char cols[] = {K_ID, K_FILE_ID, K_NAME, K_KIND, K_CONTAINER, K_START_LINE, K_END_LINE, K_END};
    return write_row(d, S_ADD_SYMBOL, "INSERT INTO symbols(id, file_id, name, kind, container, start_line, end_line) "
                     "VALUES(?, ?, ?, ?, ?, ?, ?)", cols, r, "insert symbol", err);
}

int mg_idx_add_refs(struct mg_db *d, const struct mg_idx_row *r, struct mg_err *err)
{
    static const unsigned char cols[] = {K_FILE_ID, K_DEFS, K_USES, K_END};
    return write_row(d, S_ADD_REFS, "INSERT INTO refs(file_id, defs, uses) VALUES(?, ?, ?)", cols, r, "insert names",
                     err);
}

int mg_idx_add_ptr_store(struct mg_db *d, const struct mg_idx_row *r, struct mg_err *err)
{
    static const unsigned char cols[] = {K_FILE_ID, K_INDEX, K_NAME, K_CONTAINER, K_FIELD, K_ORDINAL, K_START_LINE,
                                         K_END};
    return write_row(d, S_ADD_PTR, "INSERT INTO ptr_stores(file_id, seq, fn, type, field, ordinal, line) "
                     "VALUES(?, ?, ?, ?, ?, ?, ?)", cols, r, "insert pointer store", err);
}

int mg_idx_add_ptr_call(struct mg_db *d, const struct mg_idx_row *r, struct mg_err *err)
{
    static const unsigned char cols[] = {K_FILE_ID, K_INDEX, K_FIELD, K_CONTAINER, K_START_LINE, K_END};
    return write_row(d, S_ADD_CALL, "INSERT INTO ptr_calls(file_id, seq, field, type, line) VALUES(?, ?, ?, ?, ?)",
                     cols, r, "insert pointer call", err);
}

/* Run a delete of ids lo..hi (nothing when lo > hi), or of id lo (hi < 0 ignored: one id). */
static int drop(struct mg_db *d, int slot, const char *sql, int64_t lo, int64_t hi, bool range, const char *what,
                struct mg_err *err)
{
    if (range && lo > hi) return 0;
    bool own;
    sqlite3_stmt *s = mg_db_stmt(d, slot, sql, &own, err);
    if (!s) return -1;
    sqlite3_bind_int64(s, 1, lo);
    if (range) sqlite3_bind_int64(s, 2, hi);
    return mg_db_run(d, s, own, what, err);
}

int mg_idx_drop_file(struct mg_db *d, int64_t id, int64_t clo, int64_t chi, int64_t slo, int64_t shi,
                     struct mg_err *err)
{
    if (drop(d, S_DROP_CHUNKS, "DELETE FROM chunks WHERE id BETWEEN ? AND ?", clo, chi, true, "delete chunks",
             err) != 0 ||
        drop(d, S_DROP_SYMBOLS, "DELETE FROM symbols WHERE id BETWEEN ? AND ?", slo, shi, true, "delete symbols",
             err) != 0 ||
        drop(d, S_DROP_PENDING, "DELETE FROM tri_pending WHERE file_id = ?", id, 0, false, "delete file", err) != 0 ||
        drop(d, S_DROP_REFS, "DELETE FROM refs WHERE file_id=?", id, 0, false, "delete file", err) != 0 ||
        drop(d, S_DROP_PTR, "DELETE FROM ptr_stores WHERE file_id=?", id, 0, false, "delete file", err) != 0 ||
        drop(d, S_DROP_CALLS, "DELETE FROM ptr_calls WHERE file_id=?", id, 0, false, "delete file", err) != 0 ||
        /* its vectors go in the next embedding pass, which tells an external store too (vector/vindex.c) */
        drop(d, S_DROP_VECTORS, "INSERT OR IGNORE INTO vectors_dropped(file_id) SELECT file_id FROM vectors WHERE "
             "file_id=?", id, 0, false, "delete file", err) != 0 ||
        drop(d, S_DROP_FILE, "DELETE FROM files WHERE id=?", id, 0, false, "delete file", err) != 0)
        return -1;
    return 0;
}

int mg_idx_files_text(struct mg_db *d, struct mg_idx_cur *c, struct mg_err *err)
{
    static const unsigned char cols[] = {K_ID, K_PATH, K_BLOB, K_SIZE, K_CHUNK_LO, K_CHUNK_HI, K_SYM_LO, K_SYM_HI,
                                         K_END};
    return mg__idx_open(d, S_FILES_TEXT, "SELECT id, path, content, size, chunk_lo, chunk_hi, sym_lo, sym_hi FROM "
                        "files ORDER BY id", cols, c, err);
}

int mg_idx_words_clear(struct mg_db *d, struct mg_err *err)
{
    return mg_db_exec(d, "INSERT INTO chunks_fts(chunks_fts) VALUES('delete-all')", err);
}

int mg_idx_files_without_refs(struct mg_db *d, struct mg_idx_cur *c, struct mg_err *err)
{
    static const unsigned char cols[] = {K_ID, K_LANG, K_BLOB, K_SIZE, K_SYM_LO, K_SYM_HI, K_END};
    return mg__idx_open(d, S_FILES_WITHOUT_REFS, "SELECT id, lang, content, size, sym_lo, sym_hi FROM files "
                        "WHERE NOT EXISTS (SELECT 1 FROM refs WHERE file_id = files.id)", cols, c, err);
}

/* The indexes of the tables a first run fills with millions of rows: built
 * once at its end, which beats keeping them sorted row by row (the same
 * definitions as db.c's migrations, which made them). */
static const char *const bulk_indexes[] = {
    "symbols_by_name ON symbols(name COLLATE NOCASE)",
    "ptr_stores_by_field ON ptr_stores(field) WHERE field IS NOT NULL",
    "ptr_stores_by_place ON ptr_stores(type, ordinal) WHERE field IS NULL",
    "ptr_stores_by_fn ON ptr_stores(fn)",
    "ptr_calls_by_field ON ptr_calls(field)",
};

/* SQLite sorts a CREATE INDEX in lists of up to the page cache's size, one
 * held by each helper thread at once (mg_idx_sort_threads), and keeps the
 * sorted runs in memory under temp_store=MEMORY: the name index of Linux's
 * 4.3 M symbols took a run's heap from 390 to 598 MB, never given back.
 * Lists of SORT_KIB and runs in a temporary file bound it; both settings
 * are restored after. */
#define SORT_KIB 8192

int mg_idx_bulk_indexes(struct mg_db *d, bool on, struct mg_err *err)
{
    char sql[160];
    const size_t n = sizeof(bulk_indexes) / sizeof(bulk_indexes[0]);
    if (!on) {
        for (size_t i = 0; i < n; i++) {
            snprintf(sql, sizeof(sql), "DROP INDEX IF EXISTS %.*s", (int)strcspn(bulk_indexes[i], " "),
                     bulk_indexes[i]);
            if (mg_db_exec(d, sql, err) != 0) return -1;
        }
        return 0;
    }
    int64_t cache = 0; /* the page cache, in pages (> 0) or KiB (< 0); 0: leave it */
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(d->db, "PRAGMA cache_size", -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        cache = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (cache < 0 && cache >= -SORT_KIB) cache = 0; /* already that small */
    snprintf(sql, sizeof(sql), "PRAGMA cache_size=%d", -SORT_KIB);
    int rc = (cache && mg_db_exec(d, sql, err) != 0) || mg_db_exec(d, "PRAGMA temp_store=FILE", err) != 0 ? -1 : 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        snprintf(sql, sizeof(sql), "CREATE INDEX IF NOT EXISTS %s", bulk_indexes[i]);
        rc = mg_db_exec(d, sql, err);
    }
    snprintf(sql, sizeof(sql), "PRAGMA cache_size=%lld", (long long)cache);
    struct mg_err ignored = {0};
    if (mg_db_exec(d, "PRAGMA temp_store=MEMORY", rc ? &ignored : err) != 0) rc = -1;
    if (cache && mg_db_exec(d, sql, rc ? &ignored : err) != 0) rc = -1;
    return rc;
}

/* (No memory map, as on every handle: the closing merge, mg_idx_words_optimize,
 * reads the whole word index, and through a map Linux's first run held up to
 * 232 MB of the file's pages beside its heap, its peak 851 MB.) */
void mg_idx_bulk(struct mg_db *d) { sqlite3_exec(d->db, "PRAGMA wal_autocheckpoint=0", NULL, NULL, NULL); }

void mg_idx_sort_threads(struct mg_db *d, int n) { sqlite3_limit(d->db, SQLITE_LIMIT_WORKER_THREADS, n); }

void mg_idx_checkpoint(struct mg_db *d) { sqlite3_exec(d->db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL); }

void mg_idx_checkpoint_passive(const char *path)
{
    struct mg_db *d = NULL;
    struct mg_err ignored = {0};
    if (mg_db_open(path, 0, &d, &ignored) != 0) return;
    sqlite3_wal_checkpoint_v2(d->db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
    mg_db_close(&d);
}

/* FTS5's defaults: merge 4 segments of a level as soon as there are, and at
 * once past 16; the schema's 64 MiB of pending terms (db.c). Off: never, and
 * not before 1,000 segments (FTS5's bound is 2,000), and 16 MiB: with no
 * merging on the way, smaller flushes cost nothing more and keep the hash
 * table's walks in cache (Linux's first run: the writer 49-51 CPU s against
 * 54-58 with 64 MiB, its peak RSS 387-397 MB against 490-502;
 * docs/benchmarks.md). Meta fts.bulk says a run turned them off (an index
 * whose automerge was off for another reason keeps it so). */
int mg_idx_words_bulk(struct mg_db *d, bool on, struct mg_err *err)
{
    if (!on && mg_db_meta_int(d, "fts.bulk", 0) == 0) return 0;
    if (mg_db_exec(d, on ? "INSERT INTO chunks_fts(chunks_fts, rank) VALUES('automerge', 0);"
                           "INSERT INTO chunks_fts(chunks_fts, rank) VALUES('crisismerge', 1000);"
                           "INSERT INTO chunks_fts(chunks_fts, rank) VALUES('hashsize', 16777216)"
                         : "INSERT INTO chunks_fts(chunks_fts, rank) VALUES('automerge', 4);"
                           "INSERT INTO chunks_fts(chunks_fts, rank) VALUES('crisismerge', 16);"
                           "INSERT INTO chunks_fts(chunks_fts, rank) VALUES('hashsize', 67108864)", err) != 0)
        return -1;
    return mg_db_meta_set_int(d, "fts.bulk", on, err);
}

int mg_idx_words_merge(struct mg_db *d, int pages, bool *worked, const char **msg)
{
    char sql[96];
    snprintf(sql, sizeof(sql), "INSERT INTO chunks_fts(chunks_fts, rank) VALUES('merge', %d)", pages);
    /* the command itself counts one change; more means it merged (FTS5's documented test) */
    int before = sqlite3_total_changes(d->db);
    if (sqlite3_exec(d->db, sql, NULL, NULL, NULL) != SQLITE_OK) {
        *msg = sqlite3_errmsg(d->db);
        return -1;
    }
    *worked = sqlite3_total_changes(d->db) - before >= 2;
    return 0;
}

int mg_idx_words_optimize(struct mg_db *d, const char **msg)
{
    if (sqlite3_exec(d->db, "INSERT INTO chunks_fts(chunks_fts) VALUES('optimize')", NULL, NULL, NULL) == SQLITE_OK)
        return 0;
    *msg = sqlite3_errmsg(d->db);
    return -1;
}
