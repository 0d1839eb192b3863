/* indexdb_symbols.c — reads of symbols and refs: a file's definitions, the
 * one around a line, symbol search, the names graph (indexdb.h, section 5). */
#include "store/indexdb_int.h"

#include <stdlib.h>
#include <string.h>

#define SYM_COLS "id, name, kind, container, start_line, end_line"
#define SYM_K K_ID, K_NAME, K_KIND, K_CONTAINER, K_START_LINE, K_END_LINE
static const unsigned char sym_cols[] = {SYM_K, K_END};

/* A reader whose first n parameters are the integers v (a file's symbols
 * lo..hi as ?1 and ?2, then the reader's own). */
static int open_ints(struct mg_db *d, int slot, const char *sql, const unsigned char *cols, const int64_t *v, int n,
                     struct mg_idx_cur *c, struct mg_err *err)
{
    if (mg__idx_open(d, slot, sql, cols, c, err) != 0) return -1;
    for (int i = 0; i < n; i++) sqlite3_bind_int64(c->st, i + 1, v[i]);
    return 0;
}

int mg_idx_symbols(struct mg_db *d, int64_t lo, int64_t hi, bool no_members, struct mg_idx_cur *c,
                   struct mg_err *err)
{
    if (no_members)
        return open_ints(d, S_SYMBOLS_NO_MEMBERS, "SELECT " SYM_COLS " FROM symbols WHERE id BETWEEN ?1 AND ?2 "
                         "AND kind NOT IN " MG__IDX_MEMBER_KINDS " ORDER BY id", sym_cols, (int64_t[]){lo, hi}, 2, c,
                         err);
    return open_ints(d, S_SYMBOLS, "SELECT " SYM_COLS " FROM symbols WHERE id BETWEEN ?1 AND ?2 ORDER BY id",
                     sym_cols, (int64_t[]){lo, hi}, 2, c, err);
}

int mg_idx_outline(struct mg_db *d, int64_t lo, int64_t hi, int64_t fid, struct mg_idx_cur *c, struct mg_err *err)
{
    return open_ints(d, S_OUTLINE, "SELECT " SYM_COLS " FROM symbols WHERE id BETWEEN ?1 AND ?2 AND file_id = ?3 "
                     "ORDER BY start_line, end_line DESC, id", sym_cols, (int64_t[]){lo, hi, fid}, 3, c, err);
}

int mg_idx_symbols_starting(struct mg_db *d, int64_t lo, int64_t hi, int from, int to, struct mg_idx_cur *c,
                            struct mg_err *err)
{
    static const unsigned char cols[] = {K_NAME, K_END};
    return open_ints(d, S_SYMBOLS_STARTING, "SELECT name FROM symbols WHERE id BETWEEN ?1 AND ?2 AND start_line "
                     "BETWEEN ?3 AND ?4 AND kind NOT IN " MG__IDX_MEMBER_KINDS " ORDER BY id", cols,
                     (int64_t[]){lo, hi, from, to}, 4, c, err);
}

int mg_idx_innermost(struct mg_db *d, int64_t lo, int64_t hi, int line, struct mg_idx_cur *c, struct mg_err *err)
{
    static const unsigned char cols[] = {K_NAME, K_KIND, K_END};
    return open_ints(d, S_INNERMOST, "SELECT name, kind FROM symbols WHERE id BETWEEN ?1 AND ?2 AND start_line <= ?3 "
                     "AND end_line >= ?3 AND kind <> 'macro' AND kind NOT IN " MG__IDX_MEMBER_KINDS " "
                     "ORDER BY end_line - start_line, id DESC LIMIT 1", cols, (int64_t[]){lo, hi, line}, 3, c, err);
}

int mg_idx_enclosing(struct mg_db *d, int64_t lo, int64_t hi, int64_t fid, int line, struct mg_idx_cur *c,
                     struct mg_err *err)
{
    return open_ints(d, S_ENCLOSING, "SELECT " SYM_COLS " FROM symbols "
                     "WHERE id BETWEEN ?1 AND ?2 AND file_id = ?3 AND start_line <= ?4 AND end_line >= ?4 "
                     "AND kind NOT IN " MG__IDX_MEMBER_KINDS " "
                     "ORDER BY end_line - start_line, start_line DESC, id LIMIT 1", sym_cols,
                     (int64_t[]){lo, hi, fid, line}, 4, c, err);
}

int mg_idx_named_def(struct mg_db *d, int64_t lo, int64_t hi, int64_t fid, int from, int to, const char *name,
                     struct mg_idx_cur *c, struct mg_err *err)
{
    if (open_ints(d, S_NAMED_DEF, "SELECT " SYM_COLS " FROM symbols "
                  "WHERE id BETWEEN ?1 AND ?2 AND file_id = ?3 AND start_line BETWEEN ?4 AND ?5 "
                  "AND name = ?6 ORDER BY end_line - start_line DESC, id LIMIT 1", sym_cols,
                  (int64_t[]){lo, hi, fid, from, to}, 5, c, err) != 0)
        return -1;
    sqlite3_bind_text(c->st, 6, name, -1, SQLITE_STATIC);
    return 0;
}

int mg_idx_file_defs(struct mg_db *d, int64_t fid, struct mg_idx_cur *c, struct mg_err *err)
{
    static const unsigned char cols[] = {K_NAME, K_KIND, K_START_LINE, K_END_LINE, K_BLOB, K_SIZE, K_END};
    return open_ints(d, S_FILE_DEFS, "SELECT s.name, s.kind, s.start_line, s.end_line, f.content, f.size FROM files f "
                     "JOIN symbols s ON s.id BETWEEN f.sym_lo AND f.sym_hi WHERE f.id = ? ORDER BY s.id", cols,
                     (int64_t[]){fid}, 1, c, err);
}

/* ---- symbol search ---- */

/* Kinds that define something a reader looks for first; declarations
 * (prototypes, variables, enumerators) with macros, after the definitions;
 * fields, which many structs share names of, last. */
#define KIND_ORDER                                                                                                   \
    "CASE s.kind WHEN 'function' THEN 0 WHEN 'method' THEN 0 WHEN 'class' THEN 0 WHEN 'struct' THEN 0 "              \
    "WHEN 'interface' THEN 0 WHEN 'trait' THEN 0 WHEN 'constructor' THEN 1 WHEN 'enum' THEN 1 WHEN 'union' THEN 1 "  \
    "WHEN 'type' THEN 1 WHEN 'macro' THEN 2 WHEN 'prototype' THEN 2 WHEN 'variable' THEN 2 "                         \
    "WHEN 'enumerator' THEN 2 ELSE 3 END"

#define HIT_COLS "s.id, s.name, s.kind, s.container, s.start_line, s.end_line, f.path, f.lang, f.id"
#define HIT_K K_ID, K_NAME, K_KIND, K_CONTAINER, K_START_LINE, K_END_LINE, K_PATH, K_LANG, K_FILE_ID

/* Names starting with a prefix, any case: a range of the name index, which
 * is COLLATE NOCASE (ASCII letters folded to lower case, then bytes
 * compared). Not `name LIKE ?`: SQLite prepares a statement holding a LIKE of
 * a bound pattern again each time the pattern is bound (to plan it as such a
 * range), a parse and plan on every search. lo is the prefix lowercased; hi
 * the next string past every one starting with lo in that order: lo's last
 * byte that is not 0xff raised (past `Z`'s place when it would land on an
 * upper-case letter, which the order folds away), or, with none, no upper
 * end (a blob, which every text sorts below). */
#define PREFIX_WHERE(n, lo, hi) n " >= " lo " COLLATE NOCASE AND " n " < " hi " COLLATE NOCASE"

struct prefix {
    char *lo, *hi; /* one allocation */
    size_t n, nhi;
};

static bool prefix_make(struct prefix *p, const char *q)
{
    p->n = strlen(q);
    if (!(p->lo = malloc(2 * p->n + 2))) return false;
    for (size_t i = 0; i < p->n; i++) p->lo[i] = q[i] >= 'A' && q[i] <= 'Z' ? (char)(q[i] - 'A' + 'a') : q[i];
    p->lo[p->n] = 0;
    p->hi = p->lo + p->n + 1;
    memcpy(p->hi, p->lo, p->n);
    size_t l = p->n;
    while (l > 0 && (unsigned char)p->hi[l - 1] == 0xff) l--;
    if (l > 0) {
        unsigned char b = (unsigned char)p->hi[l - 1] + 1;
        p->hi[l - 1] = (char)(b >= 'A' && b <= 'Z' ? 'Z' + 1 : b);
    }
    p->nhi = l;
    return true;
}

/* binds PREFIX_WHERE's lo and hi at i and i + 1 (copied by SQLite when `copy`) */
static void prefix_bind(sqlite3_stmt *st, int i, const struct prefix *p, bool copy)
{
    sqlite3_destructor_type how = copy ? SQLITE_TRANSIENT : SQLITE_STATIC;
    sqlite3_bind_text(st, i, p->lo, (int)p->n, how);
    if (p->nhi == 0) sqlite3_bind_zeroblob(st, i + 1, 0);
    else sqlite3_bind_text(st, i + 1, p->hi, (int)p->nhi, how);
}

/* The longest name the best `limit` names starting with p can have: the
 * shortest length L with at least limit of them L characters long or
 * shorter (they come first: an exact name is the shortest, the others go by
 * length), from the name index alone; INT64_MAX when there are fewer. A
 * short prefix matches thousands of names ("int": 17,936 in Linux, "s":
 * 424,821), each joined to its file and sorted; those the bound leaves out
 * are only read from the index. */
#define LENGTHS 256
static int64_t length_bound(struct mg_db *d, const struct prefix *p, int limit)
{
    bool own;
    sqlite3_stmt *st = mg_db_stmt(d, S_SYMBOL_LENGTHS, "SELECT length(name) FROM symbols WHERE "
                                  PREFIX_WHERE("name", "?1", "?2"), &own, NULL);
    if (!st) return INT64_MAX;
    prefix_bind(st, 1, p, false);
    int64_t n[LENGTHS] = {0};
    while (sqlite3_step(st) == SQLITE_ROW) {
        int l = sqlite3_column_int(st, 0);
        n[l >= 0 && l < LENGTHS ? l : LENGTHS - 1]++;
    }
    if (own) sqlite3_finalize(st);
    else sqlite3_reset(st);
    int64_t sum = 0;
    for (int l = 0; l < LENGTHS - 1; l++)
        if ((sum += n[l]) >= limit) return l;
    return INT64_MAX;
}

int mg_idx_symbols_like(struct mg_db *d, const char *q, const struct mg_filter *f, int limit, struct mg_idx_cur *c,
                        struct mg_err *err)
{
    static const unsigned char cols[] = {HIT_K, K_TIER, K_ORDER, K_END};
    if (mg__idx_open(d, S_SYMBOLS_LIKE,
                   "SELECT " HIT_COLS ", "
                   "CASE WHEN s.name = ?3 THEN 0 WHEN s.name = ?3 COLLATE NOCASE THEN 1 ELSE 2 END AS tier, "
                     KIND_ORDER " AS ko FROM symbols s JOIN files f ON f.id = s.file_id "
                   "WHERE " PREFIX_WHERE("s.name", "?1", "?2") " AND length(s.name) <= ?4 "
                   "AND mg_filter_ok(?5, f.path, f.lang) "
                   "ORDER BY tier, length(s.name), ko, f.path, s.start_line LIMIT ?6", cols, c, err) != 0)
        return -1;
    struct prefix p;
    if (!prefix_make(&p, q)) {
        mg_idx_done(c);
        return mg_err_oom(err);
    }
    /* (a scope may leave out the short names: then every name is ranked) */
    int64_t bound = mg_filter_scoped(f) || limit <= 0 ? INT64_MAX : length_bound(d, &p, limit);
    prefix_bind(c->st, 1, &p, true);
    sqlite3_bind_text(c->st, 3, q, -1, SQLITE_STATIC);
    sqlite3_bind_int64(c->st, 4, bound);
    sqlite3_bind_pointer(c->st, 5, (void *)f, "mg_filter", NULL);
    sqlite3_bind_int(c->st, 6, limit);
    free(p.lo);
    return 0;
}

int mg_idx_symbols_named(struct mg_db *d, const char *name, size_t len, const struct mg_filter *f, bool defs_only,
                         int limit, struct mg_idx_cur *c, struct mg_err *err)
{
    static const unsigned char cols[] = {HIT_K, K_ORDER, K_END};
    /* (the name index is case-insensitive: `= ?1 COLLATE NOCASE` lets the
     * search use it, where `= ?1` alone scans every symbol) */
    if (defs_only ? mg__idx_open(d, S_DEFS_NAMED, "SELECT " HIT_COLS ", " KIND_ORDER " AS ko "
                                 "FROM symbols s JOIN files f ON f.id = s.file_id "
                                 "WHERE s.name = ?1 COLLATE NOCASE AND s.name = ?1 AND s.kind NOT IN "
                                 MG__IDX_MEMBER_KINDS " AND mg_filter_ok(?2, f.path, f.lang) "
                                 "ORDER BY ko, f.path, s.start_line LIMIT ?3", cols, c, err)
                  : mg__idx_open(d, S_SYMBOLS_NAMED, "SELECT " HIT_COLS ", " KIND_ORDER " AS ko "
                                 "FROM symbols s JOIN files f ON f.id = s.file_id "
                                 "WHERE s.name = ?1 COLLATE NOCASE AND s.name = ?1 "
                                 "AND mg_filter_ok(?2, f.path, f.lang) "
                                 "ORDER BY ko, f.path, s.start_line", cols, c, err))
        return -1;
    sqlite3_bind_text(c->st, 1, name, (int)len, SQLITE_TRANSIENT);
    sqlite3_bind_pointer(c->st, 2, (void *)f, "mg_filter", NULL);
    if (defs_only) sqlite3_bind_int(c->st, 3, limit);
    return 0;
}

int mg_idx_symbols_by_name(struct mg_db *d, const char *name, struct mg_idx_cur *c, struct mg_err *err)
{
    static const unsigned char cols[] = {K_FILE_ID, K_INDEX, K_KIND, K_END};
    if (mg__idx_open(d, S_SYMBOLS_BY_NAME, "SELECT s.file_id, s.id - f.sym_lo, s.kind FROM symbols s JOIN files f ON f.id = "
                   "s.file_id WHERE s.name = ?1 COLLATE NOCASE AND s.name = ?1 ORDER BY f.path, s.start_line", cols,
                     c, err) != 0)
        return -1;
    sqlite3_bind_text(c->st, 1, name, -1, SQLITE_TRANSIENT);
    return 0;
}

/* ---- refs ---- */

int mg_idx_refs_all(struct mg_db *d, struct mg_idx_cur *c, struct mg_err *err)
{
    static const unsigned char cols[] = {K_FILE_ID, K_PATH, K_LANG, K_DEFS, K_USES, K_END};
    return mg__idx_open(d, S_REFS_ALL, "SELECT r.file_id, f.path, f.lang, r.defs, r.uses FROM refs r JOIN files f "
                        "ON f.id = r.file_id ORDER BY r.file_id", cols, c, err);
}

int mg_idx_refs_of_path(struct mg_db *d, const char *path, struct mg_idx_cur *c, struct mg_err *err)
{
    static const unsigned char cols[] = {K_DEFS, K_USES, K_END};
    if (mg__idx_open(d, S_REFS_OF_PATH, "SELECT r.defs, r.uses FROM files f JOIN refs r ON r.file_id = f.id "
                   "WHERE f.path = ?", cols, c, err) != 0)
        return -1;
    sqlite3_bind_text(c->st, 1, path, -1, SQLITE_STATIC);
    return 0;
}

int mg_idx_refs_size(struct mg_db *d, uint64_t *rows, uint64_t *defs_bytes, uint64_t *uses_bytes, struct mg_err *err)
{
    bool own;
    sqlite3_stmt *st = mg_db_stmt(d, S_REFS_SIZE, "SELECT count(*), sum(length(defs)), sum(length(uses)) FROM refs",
                                  &own, err);
    if (!st) return -1;
    *rows = *defs_bytes = *uses_bytes = 0;
    if (sqlite3_step(st) == SQLITE_ROW) {
        *rows = (uint64_t)sqlite3_column_int64(st, 0);
        *defs_bytes = (uint64_t)sqlite3_column_int64(st, 1);
        *uses_bytes = (uint64_t)sqlite3_column_int64(st, 2);
    }
    if (own) sqlite3_finalize(st);
    else sqlite3_reset(st);
    return 0;
}
