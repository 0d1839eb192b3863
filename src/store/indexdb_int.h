/* indexdb_int.h — what the files of the repo index's module share
 * (store/indexdb_*.c): the statements kept per handle, and the columns a
 * cursor reads into a row.
 *
 * Each statement has a slot in the handle's cache and a column list: the
 * field of struct mg_idx_row each result column fills, in order. A reader
 * takes its statement with mg_db_stmt (prepared on first use, reset and
 * kept after), binds and hands it to a cursor; writes step it once with
 * mg_db_run.
 */
#ifndef MG_INDEXDB_INT_H
#define MG_INDEXDB_INT_H

#include <sqlite3.h>

#include "store/indexdb.h"

/* The fields a result column fills (struct mg_idx_row). */
enum {
    K_END = 0, K_ID, K_FILE_ID, K_PATH, K_LANG, K_SIZE, K_HASH, K_MTIME, K_LINES, K_FLAGS, K_CHUNK_LO, K_CHUNK_HI,
    K_SYM_LO, K_SYM_HI, K_BLOB, K_START_LINE, K_END_LINE, K_START_BYTE, K_END_BYTE, K_NAME, K_SYMBOL, K_KIND,
    K_CONTAINER, K_SCORE, K_N, K_INDEX, K_TIER, K_ORDER, K_DEFS, K_USES,
    K_FIELD, K_ORDINAL,
};

/* The statement slots of a handle (mg_db_stmt's; db.c's come first). */
enum {
    /* files */
    S_FILE_BY_ID = MG_DB_S_OWN, S_FILE_BY_ID_TEXT, S_FILE_BY_PATH, S_FILE_BY_PATH_TEXT, S_FILE_IN, S_FILES_IN,
    S_FILES_LISTED,
    S_SCOPE_RANGES, S_FILES_KNOWN, S_FILES_UNDER, S_FILES_SAMPLED, S_COUNT_FILES, S_SUM_SIZE, S_COUNT_CHUNKS,
    S_COUNT_SYMBOLS,
    /* chunks and words */
    S_CHUNKS, S_CHUNK_HIT, S_CHUNK_MAX, S_RANK, S_RANK_SCOPED, S_MATCH_COUNT,
    S_MATCH_COUNT_IN, S_RANK_SYMBOLS, S_FILES_MATCHING, S_MATCH_IDS, S_MATCH_IDS_SCOPED, S_RANK_BOUND, S_RANK_TOP, S_VEC_THROUGH, S_DROP_VECTORS, S_FILES_TEXT, S_FILE_MAP, S_FILE_OF_CHUNK,
    /* symbols and refs */
    S_SYMBOLS, S_SYMBOLS_NO_MEMBERS, S_OUTLINE, S_SYMBOLS_STARTING, S_INNERMOST, S_ENCLOSING, S_NAMED_DEF,
    S_FILE_DEFS, S_SYMBOLS_LIKE, S_SYMBOL_LENGTHS, S_SYMBOLS_NAMED, S_DEFS_NAMED, S_SYMBOLS_BY_NAME, S_REFS_ALL,
    S_REFS_OF_PATH, S_REFS_SIZE,
    /* the writer */
    S_ADD_FILE, S_ADD_PENDING, S_ADD_CHUNK, S_ADD_WORDS, S_DROP_WORDS, S_ADD_SYMBOL, S_ADD_REFS, S_DROP_CHUNKS,
    S_DROP_SYMBOLS, S_DROP_PENDING, S_DROP_REFS, S_DROP_FILE, S_FILES_WITHOUT_REFS, S_NEXT_FILE, S_NEXT_CHUNK,
    S_NEXT_SYMBOL,
    /* vectors */
    S_VEC_PUT, S_VEC_ANY, S_VEC_ROWS, S_VEC_COUNT, S_UNEMBEDDED, S_VEC_ORPHANS, S_VEC_BY_CHUNK, S_VEC_OF,
    S_TO_EMBED, S_MODEL_PUT, S_MODEL_GET,
    /* pointer stores */
    S_PTR_OF_FIELD, S_PTR_AT, S_PTR_OF_FN, S_PTR_TABLE, S_PTR_NONE, S_PTR_COUNT, S_ADD_PTR, S_DROP_PTR,
    S_FIELD_PLACES, S_FIELD_FILES, S_PTR_FIELDS_ALL, S_PTR_IN_FILE, S_CALLS_TABLE, S_CALLS_OF_FIELD, S_ADD_CALL,
    S_DROP_CALLS,
    MG__IDX_NSTMT
};
_Static_assert(MG__IDX_NSTMT <= MG_DB_NSTMT, "a handle keeps MG_DB_NSTMT statements");

/* Open c on st (from mg_db_stmt, bound; own: mg_idx_done finalizes it), reading columns cols. */
void mg__idx_cur(struct mg_idx_cur *c, struct mg_db *d, sqlite3_stmt *st, bool own, const unsigned char *cols);
/* A reader: the statement in slot, bound by the caller through c->st
 * afterwards. 0, or -1 with err set ("prepare"). */
int mg__idx_open(struct mg_db *d, int slot, const char *sql, const unsigned char *cols, struct mg_idx_cur *c,
                 struct mg_err *err);
/* The first column of slot's one-row query as an integer (dflt: no row, or
 * it cannot be prepared). */
int64_t mg__idx_int(struct mg_db *d, int slot, const char *sql, int64_t dflt);
/* The same with ?1 bound to arg. */
int64_t mg__idx_int_at(struct mg_db *d, int slot, const char *sql, int64_t arg, int64_t dflt);
/* Bind fields of r as ?1, ?2 ... in the order cols names them (text and
 * blobs borrowed: SQLITE_STATIC; a NULL string, or an empty refs blob, is
 * NULL). */
void mg__idx_bind(sqlite3_stmt *st, const unsigned char *cols, const struct mg_idx_row *r);

/* The kinds of members (index/defs.h's mg_kind_member), for SQL. */
#define MG__IDX_MEMBER_KINDS "('field', 'enumerator')"

#endif
