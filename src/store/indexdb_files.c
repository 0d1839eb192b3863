/* indexdb_files.c — reads of the files table: a file by id or path, the
 * files a scope allows, and the index's totals (indexdb.h, section 3). */
#include "store/indexdb_int.h"

#include <limits.h>
#include <stdio.h>

/* Every column but the text, then the text for the readers that ask. */
#define FILE_COLS "id, path, lang, size, hash, mtime, lines, flags, chunk_lo, chunk_hi, sym_lo, sym_hi"
#define FILE_K                                                                                                       \
    K_ID, K_PATH, K_LANG, K_SIZE, K_HASH, K_MTIME, K_LINES, K_FLAGS, K_CHUNK_LO, K_CHUNK_HI, K_SYM_LO, K_SYM_HI

static const unsigned char file_cols[] = {FILE_K, K_END};
static const unsigned char file_text_cols[] = {FILE_K, K_BLOB, K_END};

/* The file whose id (by_path: path) is ?1, with its text or without. */
static int file_by(struct mg_db *d, bool by_path, int flags, struct mg_idx_cur *c, struct mg_err *err)
{
    static const char *const sql[2][2] = {
        {"SELECT " FILE_COLS " FROM files WHERE id = ?", "SELECT " FILE_COLS ", content FROM files WHERE id = ?"},
        {"SELECT " FILE_COLS " FROM files WHERE path = ?", "SELECT " FILE_COLS ", content FROM files WHERE path = ?"},
    };
    static const int slot[2][2] = {{S_FILE_BY_ID, S_FILE_BY_ID_TEXT}, {S_FILE_BY_PATH, S_FILE_BY_PATH_TEXT}};
    int t = (flags & MG_IDX_TEXT) != 0;
    return mg__idx_open(d, slot[by_path][t], sql[by_path][t], t ? file_text_cols : file_cols, c, err);
}

int mg_idx_file_by_id(struct mg_db *d, int64_t id, int flags, struct mg_idx_cur *c, struct mg_err *err)
{
    if (file_by(d, false, flags, c, err) != 0) return -1;
    sqlite3_bind_int64(c->st, 1, id);
    return 0;
}

int mg_idx_file_by_path(struct mg_db *d, const char *path, int flags, struct mg_idx_cur *c, struct mg_err *err)
{
    if (file_by(d, true, flags, c, err) != 0) return -1;
    sqlite3_bind_text(c->st, 1, path, -1, SQLITE_STATIC);
    return 0;
}

/* A regex search's candidates: the file's scope columns and its ranges. */
#define RFILE_COLS "path, lang, chunk_lo, chunk_hi, sym_lo, sym_hi"
static const unsigned char rfile_cols[] = {K_PATH, K_LANG, K_CHUNK_LO, K_CHUNK_HI, K_SYM_LO, K_SYM_HI, K_ID, K_END};

int mg_idx_file_in(struct mg_db *d, const struct mg_filter *f, int64_t id, struct mg_idx_cur *c, struct mg_err *err)
{
    if (mg__idx_open(d, S_FILE_IN, "SELECT " RFILE_COLS ", id FROM files WHERE id=?2 AND mg_filter_ok(?1, path, lang)",
                     rfile_cols, c, err) != 0)
        return -1;
    sqlite3_bind_pointer(c->st, 1, (void *)f, "mg_filter", NULL);
    sqlite3_bind_int64(c->st, 2, id);
    return 0;
}

int mg_idx_files_in(struct mg_db *d, const struct mg_filter *f, struct mg_idx_cur *c, struct mg_err *err)
{
    if (mg__idx_open(d, S_FILES_IN, "SELECT " RFILE_COLS ", id FROM files WHERE mg_filter_ok(?1, path, lang) "
                     "ORDER BY id", rfile_cols, c, err) != 0)
        return -1;
    sqlite3_bind_pointer(c->st, 1, (void *)f, "mg_filter", NULL);
    return 0;
}

int mg_idx_files_listed(struct mg_db *d, const struct mg_filter *f, struct mg_idx_cur *c, struct mg_err *err)
{
    static const unsigned char cols[] = {K_PATH, K_LANG, K_SIZE, K_LINES, K_END};
    if (mg__idx_open(d, S_FILES_LISTED, "SELECT path, lang, size, lines FROM files WHERE mg_filter_ok(?1, path, lang) "
                     "ORDER BY path", cols, c, err) != 0)
        return -1;
    sqlite3_bind_pointer(c->st, 1, (void *)f, "mg_filter", NULL);
    return 0;
}

int mg_idx_scope_ranges(struct mg_db *d, const struct mg_filter *f, struct mg_idx_cur *c, struct mg_err *err)
{
    static const unsigned char cols[] = {K_CHUNK_LO, K_CHUNK_HI, K_END};
    if (mg__idx_open(d, S_SCOPE_RANGES, "SELECT chunk_lo, chunk_hi FROM files WHERE "
                     "chunk_lo <= chunk_hi AND mg_filter_ok(?1, path, lang) ORDER BY chunk_lo", cols, c, err) != 0)
        return -1;
    sqlite3_bind_pointer(c->st, 1, (void *)f, "mg_filter", NULL);
    return 0;
}

int mg_idx_file_map(struct mg_db *d, struct mg_idx_cur *c, struct mg_err *err)
{
    static const unsigned char cols[] = {K_ID, K_FLAGS, K_CHUNK_LO, K_CHUNK_HI, K_END};
    return mg__idx_open(d, S_FILE_MAP, "SELECT id, flags, chunk_lo, chunk_hi FROM files WHERE chunk_lo <= chunk_hi "
                        "ORDER BY chunk_lo", cols, c, err);
}

int mg_idx_file_of_chunk(struct mg_db *d, int64_t id, struct mg_idx_cur *c, struct mg_err *err)
{
    static const unsigned char cols[] = {K_ID, K_FLAGS, K_CHUNK_LO, K_CHUNK_HI, K_END};
    if (mg__idx_open(d, S_FILE_OF_CHUNK, "SELECT id, flags, chunk_lo, chunk_hi FROM files WHERE chunk_lo <= ?1 "
                     "AND chunk_hi >= chunk_lo ORDER BY chunk_lo DESC LIMIT 1", cols, c, err) != 0)
        return -1;
    sqlite3_bind_int64(c->st, 1, id);
    return 0;
}

int mg_idx_files_known(struct mg_db *d, const char *under, struct mg_idx_cur *c, struct mg_err *err)
{
    static const unsigned char cols[] = {K_ID, K_PATH, K_HASH, K_SIZE, K_MTIME, K_END};
    if (!under) return mg__idx_open(d, S_FILES_KNOWN, "SELECT id, path, hash, size, mtime FROM files", cols, c, err);
    if (mg__idx_open(d, S_FILES_UNDER, "SELECT id, path, hash, size, mtime FROM files WHERE path = ?1 OR "
                     "(path >= ?2 AND path < ?3)", cols, c, err) != 0)
        return -1;
    char lo[PATH_MAX + 2], hi[PATH_MAX + 2]; /* "dir/" <= path < "dir0": everything under dir */
    snprintf(lo, sizeof(lo), "%s/", under);
    snprintf(hi, sizeof(hi), "%s0", under);
    sqlite3_bind_text(c->st, 1, under, -1, SQLITE_STATIC);
    sqlite3_bind_text(c->st, 2, *under ? lo : "", -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(c->st, 3, *under ? hi : "\x7f", -1, SQLITE_TRANSIENT);
    return 0;
}

int mg_idx_files_sampled(struct mg_db *d, int64_t stride, struct mg_idx_cur *c, struct mg_err *err)
{
    static const unsigned char cols[] = {K_PATH, K_BLOB, K_SIZE, K_CHUNK_LO, K_CHUNK_HI, K_END};
    if (mg__idx_open(d, S_FILES_SAMPLED, "SELECT path, content, size, chunk_lo, chunk_hi FROM files WHERE id % ?1 = 0",
                     cols, c, err) != 0)
        return -1;
    sqlite3_bind_int64(c->st, 1, stride);
    return 0;
}

int mg_idx_totals(struct mg_db *d, uint64_t *files, uint64_t *bytes, uint64_t *chunks, uint64_t *symbols)
{
    if (files) *files = (uint64_t)mg__idx_int(d, S_COUNT_FILES, "SELECT count(*) FROM files", 0);
    if (bytes) *bytes = (uint64_t)mg__idx_int(d, S_SUM_SIZE, "SELECT coalesce(sum(size), 0) FROM files", 0);
    if (chunks) *chunks = (uint64_t)mg__idx_int(d, S_COUNT_CHUNKS, "SELECT count(*) FROM chunks", 0);
    if (symbols) *symbols = (uint64_t)mg__idx_int(d, S_COUNT_SYMBOLS, "SELECT count(*) FROM symbols", 0);
    return 0;
}
