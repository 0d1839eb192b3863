/* indexdb_ptrs.c — reads of tables ptr_stores and ptr_calls: the functions
 * C and C++ files store into struct fields and their calls through fields
 * (indexdb.h, section 5; index/refs_ptr.h). */
#include "store/indexdb_int.h"

/* An index of schema 3 opened read-only (not migrated yet) has no table
 * ptr_stores, one of schema 4 no ptr_calls: no rows, until its next run
 * migrates and fills it. */
static bool have_table(struct mg_db *d)
{
    return mg__idx_int(d, S_PTR_TABLE, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND "
                       "name = 'ptr_stores'", 0) > 0;
}

static bool have_calls(struct mg_db *d)
{
    return mg__idx_int(d, S_CALLS_TABLE, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND "
                       "name = 'ptr_calls'", 0) > 0;
}

/* slot's read when have, else one with no rows (the caller's binds then
 * fall on no parameter). */
static int open_if(struct mg_db *d, bool have, int slot, const char *sql, const unsigned char *cols,
                   struct mg_idx_cur *c, struct mg_err *err)
{
    if (have) return mg__idx_open(d, slot, sql, cols, c, err);
    return mg__idx_open(d, S_PTR_NONE, "SELECT 0, NULL, NULL, 0 WHERE 0", cols, c, err);
}

static int open_stores(struct mg_db *d, int slot, const char *sql, const unsigned char *cols, struct mg_idx_cur *c,
                       struct mg_err *err)
{
    return open_if(d, have_table(d), slot, sql, cols, c, err);
}

int mg_idx_ptr_stores_of_field(struct mg_db *d, const char *field, struct mg_idx_cur *c, struct mg_err *err)
{
    static const unsigned char cols[] = {K_FILE_ID, K_NAME, K_CONTAINER, K_START_LINE, K_END};
    if (open_stores(d, S_PTR_OF_FIELD, "SELECT s.file_id, s.fn, s.type, s.line FROM ptr_stores s JOIN files f "
                     "ON f.id = s.file_id WHERE s.field = ? ORDER BY f.path, s.line", cols, c, err) != 0)
        return -1;
    sqlite3_bind_text(c->st, 1, field, -1, SQLITE_TRANSIENT);
    return 0;
}

int64_t mg_idx_ptr_stores_count(struct mg_db *d, const char *field, int64_t cap)
{
    if (!have_table(d)) return 0;
    bool own;
    sqlite3_stmt *st = mg_db_stmt(d, S_PTR_COUNT, "SELECT count(*) FROM (SELECT 1 FROM ptr_stores WHERE field = ? "
                                  "LIMIT ?)", &own, NULL);
    if (!st) return -1;
    sqlite3_bind_text(st, 1, field, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 2, cap + 1);
    int64_t n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
    if (own) sqlite3_finalize(st);
    else sqlite3_reset(st);
    return n;
}

int mg_idx_ptr_stores_at(struct mg_db *d, const char *type, int64_t ordinal, struct mg_idx_cur *c,
                         struct mg_err *err)
{
    static const unsigned char cols[] = {K_FILE_ID, K_NAME, K_CONTAINER, K_START_LINE, K_END};
    if (open_stores(d, S_PTR_AT, "SELECT s.file_id, s.fn, s.type, s.line FROM ptr_stores s JOIN files f "
                     "ON f.id = s.file_id WHERE s.field IS NULL AND s.type = ? AND s.ordinal = ? "
                     "ORDER BY f.path, s.line", cols, c, err) != 0)
        return -1;
    sqlite3_bind_text(c->st, 1, type, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(c->st, 2, ordinal);
    return 0;
}

int mg_idx_ptr_fields_all(struct mg_db *d, struct mg_idx_cur *c, struct mg_err *err)
{
    static const unsigned char cols[] = {K_FILE_ID, K_FIELD, K_END};
    /* the table's own order (its key): no sort; the caller drops repeats */
    return open_stores(d, S_PTR_FIELDS_ALL, "SELECT file_id, field FROM ptr_stores NOT INDEXED WHERE field IS NOT NULL "
                       "ORDER BY file_id", cols, c, err);
}

int mg_idx_ptr_stores_in_file(struct mg_db *d, int64_t file_id, struct mg_idx_cur *c, struct mg_err *err)
{
    static const unsigned char cols[] = {K_NAME, K_FIELD, K_END};
    if (open_stores(d, S_PTR_IN_FILE, "SELECT fn, field FROM ptr_stores WHERE file_id = ? AND field IS NOT NULL "
                    "ORDER BY seq", cols, c, err) != 0)
        return -1;
    sqlite3_bind_int64(c->st, 1, file_id);
    return 0;
}

int mg_idx_ptr_stores_of_fn(struct mg_db *d, const char *fn, struct mg_idx_cur *c, struct mg_err *err)
{
    static const unsigned char cols[] = {K_FILE_ID, K_CONTAINER, K_FIELD, K_ORDINAL, K_END};
    if (open_stores(d, S_PTR_OF_FN, "SELECT file_id, type, field, ordinal FROM ptr_stores WHERE fn = ? "
                     "ORDER BY file_id, seq", cols, c, err) != 0)
        return -1;
    sqlite3_bind_text(c->st, 1, fn, -1, SQLITE_TRANSIENT);
    return 0;
}

int mg_idx_ptr_calls_of_field(struct mg_db *d, const char *field, struct mg_idx_cur *c, struct mg_err *err)
{
    static const unsigned char cols[] = {K_FILE_ID, K_START_LINE, K_CONTAINER, K_END};
    if (open_if(d, have_calls(d), S_CALLS_OF_FIELD, "SELECT file_id, line, type FROM ptr_calls WHERE field = ? "
                "ORDER BY file_id, seq", cols, c, err) != 0)
        return -1;
    sqlite3_bind_text(c->st, 1, field, -1, SQLITE_TRANSIENT);
    return 0;
}

int mg_idx_field_places(struct mg_db *d, const char *field, struct mg_idx_cur *c, struct mg_err *err)
{
    static const unsigned char cols[] = {K_FILE_ID, K_CONTAINER, K_ORDINAL, K_KIND, K_NAME, K_END};
    /* w: the innermost non-field definition around the field (the latest start, the last of a tie); the
     * place counts the same container's fields before it (by line, then id) from w's start on */
    if (mg__idx_open(d, S_FIELD_PLACES,
                     "SELECT s.file_id, s.container, (SELECT count(*) FROM symbols o WHERE o.id BETWEEN f.sym_lo AND "
                     "f.sym_hi AND o.kind = 'field' AND o.container = s.container AND o.id != s.id AND "
                     "(o.start_line < s.start_line OR (o.start_line = s.start_line AND o.id < s.id)) AND "
                     "o.start_line >= coalesce(w.start_line, o.start_line)), w.kind, w.name "
                     "FROM symbols s JOIN files f ON f.id = s.file_id LEFT JOIN symbols w ON w.id = "
                     "(SELECT o.id FROM symbols o WHERE o.id BETWEEN f.sym_lo AND f.sym_hi AND o.kind != 'field' AND "
                     "o.id != s.id AND o.start_line <= s.start_line AND o.end_line >= s.end_line "
                     "ORDER BY o.start_line DESC, o.id DESC LIMIT 1) "
                     "WHERE s.name = ?1 COLLATE NOCASE AND s.name = ?1 AND s.kind = 'field' AND "
                     "s.container IS NOT NULL "
                     "ORDER BY f.path, s.start_line",
                     cols, c, err) != 0)
        return -1;
    sqlite3_bind_text(c->st, 1, field, -1, SQLITE_TRANSIENT);
    return 0;
}

int mg_idx_field_files(struct mg_db *d, const char *field, int limit, struct mg_idx_cur *c, struct mg_err *err)
{
    static const unsigned char cols[] = {K_FILE_ID, K_END};
    if (mg__idx_open(d, S_FIELD_FILES,
                     "SELECT s.file_id FROM symbols s WHERE s.name = ?1 COLLATE NOCASE AND s.name = ?1 AND "
                     "s.kind = 'field' AND s.container IS NOT NULL LIMIT ?2",
                     cols, c, err) != 0)
        return -1;
    sqlite3_bind_text(c->st, 1, field, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(c->st, 2, limit);
    return 0;
}
