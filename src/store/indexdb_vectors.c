/* indexdb_vectors.c — the vectors and embed_model tables: which files have
 * vectors, their sealed blobs, the files still to embed, the built-in
 * embedder's learned model (indexdb.h, section 7). */
#include "store/indexdb_int.h"

bool mg_idx_vectors_any(struct mg_db *d)
{
    return mg__idx_int(d, S_VEC_ANY, "SELECT 1 FROM vectors LIMIT 1", 0) == 1;
}

int64_t mg_idx_vector_rows(struct mg_db *d)
{
    return mg__idx_int(d, S_VEC_ROWS, "SELECT count(*) FROM vectors", 0);
}

int64_t mg_idx_vector_count(struct mg_db *d)
{
    return mg__idx_int(d, S_VEC_COUNT, "SELECT coalesce(sum(n), 0) FROM vectors", 0);
}

int64_t mg_idx_files_unembedded(struct mg_db *d, int64_t after)
{
    return mg__idx_int_at(d, S_UNEMBEDDED, "SELECT count(*) FROM files f WHERE id > ?1 AND NOT EXISTS (SELECT 1 FROM "
                       "vectors v WHERE v.file_id = f.id)", after, 0);
}

int64_t mg_idx_vectors_through(struct mg_db *d, int64_t after)
{
    return mg__idx_int_at(d, S_VEC_THROUGH, "SELECT coalesce((SELECT min(id) - 1 FROM files f WHERE id > ?1 AND NOT "
                       "EXISTS (SELECT 1 FROM vectors v WHERE v.file_id = f.id)), (SELECT max(id) FROM files), 0)",
                       after, -1);
}

int mg_idx_vectors_put(struct mg_db *d, int64_t file_id, size_t n, const void *blob, size_t len, struct mg_err *err)
{
    bool own;
    sqlite3_stmt *s = mg_db_stmt(d, S_VEC_PUT, "INSERT OR REPLACE INTO vectors(file_id, n, blob) VALUES(?, ?, ?)",
                                 &own, err);
    if (!s) return -1;
    sqlite3_bind_int64(s, 1, file_id);
    sqlite3_bind_int64(s, 2, (int64_t)n);
    sqlite3_bind_blob(s, 3, len ? blob : "", (int)len, SQLITE_STATIC); /* (len 0: an empty blob, not NULL) */
    return mg_db_run(d, s, own, "store vectors", err);
}

int mg_idx_vectors_prune(struct mg_db *d, bool all, struct mg_err *err)
{
    return mg_db_exec(d, all ? "DELETE FROM vectors; DELETE FROM vectors_dropped"
                             : "DELETE FROM vectors WHERE file_id IN (SELECT file_id FROM vectors_dropped); "
                               "DELETE FROM vectors_dropped", err);
}

int mg_idx_vectors_orphans(struct mg_db *d, struct mg_idx_cur *c, struct mg_err *err)
{
    static const unsigned char cols[] = {K_FILE_ID, K_END};
    return mg__idx_open(d, S_VEC_ORPHANS, "SELECT file_id FROM vectors WHERE file_id IN (SELECT file_id FROM "
                        "vectors_dropped)", cols, c, err);
}

int mg_idx_vectors_by_chunk(struct mg_db *d, struct mg_idx_cur *c, struct mg_err *err)
{
    static const unsigned char cols[] = {K_FILE_ID, K_N, K_END};
    return mg__idx_open(d, S_VEC_BY_CHUNK, "SELECT v.file_id, v.n FROM vectors v JOIN files f ON f.id = v.file_id "
                        "ORDER BY f.chunk_lo", cols, c, err);
}

int mg_idx_vectors_of(struct mg_db *d, int64_t file_id, struct mg_idx_cur *c, struct mg_err *err)
{
    static const unsigned char cols[] = {K_BLOB, K_END};
    if (mg__idx_open(d, S_VEC_OF, "SELECT blob FROM vectors WHERE file_id = ?", cols, c, err) != 0) return -1;
    sqlite3_bind_int64(c->st, 1, file_id);
    return 0;
}

int mg_idx_files_to_embed(struct mg_db *d, int64_t after, struct mg_idx_cur *c, struct mg_err *err)
{
    static const unsigned char cols[] = {K_ID, K_PATH, K_BLOB, K_SIZE, K_CHUNK_LO, K_CHUNK_HI, K_END};
    if (mg__idx_open(d, S_TO_EMBED, "SELECT id, path, content, size, chunk_lo, chunk_hi FROM files f WHERE id > ? AND "
                     "NOT EXISTS (SELECT 1 FROM vectors v WHERE v.file_id = f.id) ORDER BY id", cols, c, err) != 0)
        return -1;
    sqlite3_bind_int64(c->st, 1, after);
    return 0;
}

int mg_idx_model_put(struct mg_db *d, const char *name, const void *blob, size_t len, struct mg_err *err)
{
    bool own;
    sqlite3_stmt *s = mg_db_stmt(d, S_MODEL_PUT, "INSERT OR REPLACE INTO embed_model(name, value) VALUES(?, ?)",
                                 &own, err);
    if (!s) return -1;
    sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
    sqlite3_bind_blob(s, 2, blob, (int)len, SQLITE_STATIC);
    return mg_db_run(d, s, own, "store embedding statistics", err);
}

int mg_idx_model_get(struct mg_db *d, const char *name, struct mg_idx_cur *c, struct mg_idx_row *r)
{
    static const unsigned char cols[] = {K_BLOB, K_END};
    if (mg__idx_open(d, S_MODEL_GET, "SELECT value FROM embed_model WHERE name = ?", cols, c, NULL) != 0) return -1;
    sqlite3_bind_text(c->st, 1, name, -1, SQLITE_STATIC);
    return mg_idx_next(c, r);
}

int mg_idx_model_clear(struct mg_db *d, bool vectors, struct mg_err *err)
{
    return mg_db_exec(d, vectors ? "DELETE FROM vectors; DELETE FROM vectors_dropped; DELETE FROM embed_model"
                                 : "DELETE FROM embed_model", err);
}
