/* indexdb_ptrs.c — reads of table ptr_stores: the functions C and C++ files
 * store into struct fields (indexdb.h, section 5; index/refs_ptr.h). */
#include "store/indexdb_int.h"

int mg_idx_ptr_stores_of_field(struct mg_db *d, const char *field, struct mg_idx_cur *c, struct mg_err *err)
{
    static const unsigned char cols[] = {K_FILE_ID, K_NAME, K_CONTAINER, K_START_LINE, K_END};
    if (mg__idx_open(d, S_PTR_OF_FIELD, "SELECT s.file_id, s.fn, s.type, s.line FROM ptr_stores s JOIN files f "
                     "ON f.id = s.file_id WHERE s.field = ? ORDER BY f.path, s.line", cols, c, err) != 0)
        return -1;
    sqlite3_bind_text(c->st, 1, field, -1, SQLITE_TRANSIENT);
    return 0;
}

int mg_idx_ptr_stores_at(struct mg_db *d, const char *type, int64_t ordinal, struct mg_idx_cur *c,
                         struct mg_err *err)
{
    static const unsigned char cols[] = {K_FILE_ID, K_NAME, K_CONTAINER, K_START_LINE, K_END};
    if (mg__idx_open(d, S_PTR_AT, "SELECT s.file_id, s.fn, s.type, s.line FROM ptr_stores s JOIN files f "
                     "ON f.id = s.file_id WHERE s.field IS NULL AND s.type = ? AND s.ordinal = ? "
                     "ORDER BY f.path, s.line", cols, c, err) != 0)
        return -1;
    sqlite3_bind_text(c->st, 1, type, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(c->st, 2, ordinal);
    return 0;
}

int mg_idx_ptr_stores_of_fn(struct mg_db *d, const char *fn, struct mg_idx_cur *c, struct mg_err *err)
{
    static const unsigned char cols[] = {K_FILE_ID, K_CONTAINER, K_FIELD, K_ORDINAL, K_END};
    if (mg__idx_open(d, S_PTR_OF_FN, "SELECT file_id, type, field, ordinal FROM ptr_stores WHERE fn = ? "
                     "ORDER BY file_id, seq", cols, c, err) != 0)
        return -1;
    sqlite3_bind_text(c->st, 1, fn, -1, SQLITE_TRANSIENT);
    return 0;
}
