/* indexdb_chunks.c — reads of chunks and of the word index, chunks_fts
 * (indexdb.h, section 4). The FTS5 expressions come from search; the
 * statements that run them are here.
 *
 * Sections:
 *   1. chunks
 *   2. ranking: the marked tier, one word in one call (rank.h's mgtop), every row through SQL
 *   3. counts and ids of an expression's rows
 *   4. symbols and files an expression matches
 */
#include "store/indexdb_int.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/rank.h"
#include "store/tokenize.h"
#include "util/buf.h"

/* ---- 1. chunks -------------------------------------------------------------------------------------------------- */

#define CHUNK_COLS "id, file_id, start_line, end_line, start_byte, end_byte, symbol, kind, container"
#define CHUNK_K K_ID, K_FILE_ID, K_START_LINE, K_END_LINE, K_START_BYTE, K_END_BYTE, K_SYMBOL, K_KIND, K_CONTAINER

int mg_idx_chunks(struct mg_db *d, int64_t lo, int64_t hi, struct mg_idx_cur *c, struct mg_err *err)
{
    static const unsigned char cols[] = {CHUNK_K, K_END};
    if (mg__idx_open(d, S_CHUNKS, "SELECT " CHUNK_COLS " FROM chunks WHERE id BETWEEN ? AND ? ORDER BY id", cols, c,
                     err) != 0)
        return -1;
    sqlite3_bind_int64(c->st, 1, lo);
    sqlite3_bind_int64(c->st, 2, hi);
    return 0;
}

int mg_idx_chunk_hit(struct mg_db *d, int64_t id, struct mg_idx_cur *c, struct mg_err *err)
{
    static const unsigned char cols[] = {K_FILE_ID, K_PATH, K_LANG, K_START_LINE, K_END_LINE, K_START_BYTE,
                                         K_END_BYTE, K_SYMBOL, K_KIND, K_CONTAINER, K_ID, K_FLAGS, K_END};
    if (mg__idx_open(d, S_CHUNK_HIT, "SELECT c.file_id, f.path, f.lang, c.start_line, c.end_line, c.start_byte, "
                     "c.end_byte, c.symbol, c.kind, c.container, c.id, f.flags FROM chunks c JOIN files f "
                     "ON f.id = c.file_id "
                     "WHERE c.id = ?", cols, c, err) != 0)
        return -1;
    sqlite3_bind_int64(c->st, 1, id);
    return 0;
}

int64_t mg_idx_chunk_max(struct mg_db *d)
{
    return mg__idx_int(d, S_CHUNK_MAX, "SELECT coalesce(max(id), 0) FROM chunks", 0);
}

/* ---- 2. ranking ------------------------------------------------------------------------------------------------- */

/* path, symbol, body weights; the largest chunk id for sampled IDFs; the
 * phrases scored, ?9 (0: all); no bound; the expression, whose phrases'
 * counts the handle keeps (rank.h) */
#define RANK "mgrank(chunks_fts, 2.0, 8.0, 1.0, (SELECT max(id) FROM chunks), ?9, 0, ?1)"

/* Ranking a common word costs a pass of mgrank and the sort over every row
 * that holds it: 120 ms for "struct" in Linux (761,689 rows). The best rows
 * are almost always those with a word of the query in their symbol column
 * (weight 8, against 2 for the path and 1 for the body), and mgrank bounds
 * the score of every other row (the `bound` argument). The indexer marks the
 * symbol column's words (meta fts.marks; tokenize.h's MG_TOKEN_MARK), so
 * those rows are a short list of their own: an expression of up to
 * TIER_PHRASES words is ranked first over `expr AND ("\x01w1" OR "\x01w2"
 * ...)`. When that gives `limit` rows and the last beats the bound, no other
 * row can enter the list, and those rows, in the same order (the same
 * scores: the marks are not scored), are the answer. Else every row is
 * ranked, as before (an index without marks: always). 1: c holds the rows;
 * 0: rank them all; -1 error. */
#define TIER_LIMIT 4096
/* At most this many phrases: an AND of more words reads about as many rows
 * with the marks as without (5 common words, linux: 16 ms against 13), and
 * its best rows seldom have enough of them in a symbol to beat the bound
 * ("return error if not found" +9 ms, "a an the of to in" +16 ms with tiers;
 * bench/common_words.py) */
#define TIER_PHRASES 3

static int rank_all(struct mg_db *d, const char *match, int nscored, int limit, const struct mg_idx_idset *scope,
                    unsigned ways, struct mg_idx_cur *c, struct mg_err *err);

/* `(match) AND ("\x01w1" OR ...)` over match's phrases ("tok": a token never holds '"'), the marks' part from
 * *marks on; NULL: no phrase, or no memory. */
static char *tier_expr(const char *match, int *nphrase, size_t *marks)
{
    struct mg_buf b;
    mg_buf_init(&b, 3 * strlen(match) + 64);
    int bad = mg_buf_addc(&b, '(') | mg_buf_adds(&b, match) | mg_buf_adds(&b, ") AND ");
    *marks = b.len;
    bad |= mg_buf_addc(&b, '(');
    *nphrase = 0;
    for (const char *p = match; (p = strchr(p, '"'));) {
        const char *e = strchr(p + 1, '"');
        if (!e) break;
        bad |= mg_buf_adds(&b, *nphrase ? " OR \"" : "\"") | mg_buf_addc(&b, MG_TOKEN_MARK) |
               mg_buf_add(&b, p + 1, (size_t)(e - p));
        ++*nphrase;
        p = e + 1;
    }
    bad |= mg_buf_addc(&b, ')');
    if (bad || *nphrase == 0) {
        mg_buf_release(&b);
        return NULL;
    }
    return mg_buf_detach(&b, NULL);
}

/* mgrank's bound for match (rank.h), negated as its scores are: 0 or -1. */
static int rank_bound(struct mg_db *d, const char *match, int nscored, double *bound, struct mg_err *err)
{
    bool own;
    sqlite3_stmt *st = mg_db_stmt(d, S_RANK_BOUND, "SELECT mgrank(chunks_fts, 2.0, 8.0, 1.0, (SELECT max(id) FROM "
                                  "chunks), ?2, 1, ?1) FROM chunks_fts WHERE chunks_fts MATCH ?1 LIMIT 1", &own, err);
    if (!st) return -1;
    sqlite3_bind_text(st, 1, match, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, nscored);
    int rc = sqlite3_step(st) == SQLITE_ROW ? 0 : mg_db_error(d, "lexical search", err);
    if (rc == 0) *bound = sqlite3_column_double(st, 0);
    if (own) sqlite3_finalize(st);
    else sqlite3_reset(st);
    return rc;
}

static int rank_tiered(struct mg_db *d, const char *match, int nscored, int limit, const struct mg_idx_idset *scope,
                       struct mg_idx_cur *c, struct mg_err *err)
{
    /* (an expression with unscored phrases is lexical.c's any-word step: an OR of many words, whose rows
     * seldom have one in a symbol, and whose second reading would cost as much as the first) */
    if (limit <= 0 || limit > TIER_LIMIT || nscored > 0 || !mg_db_meta_int(d, MG_META_MARKS, 0)) return 0;
    int np;
    size_t marks;
    char *tier = tier_expr(match, &np, &marks);
    if (!tier) return np > 0 ? mg_err_oom(err) : 0;
    /* fewer rows with one of the words in a symbol than asked for, in the whole index: no tier (a word of
     * middling rows seldom names many symbols, and the count stops at the limit) */
    long nm = np <= TIER_PHRASES ? mg_idx_match_count(d, tier + marks, limit, NULL, NULL, err) : 0;
    if (nm < limit) {
        free(tier);
        return nm < 0 ? -1 : 0;
    }
    double *sc = malloc((size_t)limit * sizeof(*sc));
    int64_t *id = sc ? malloc((size_t)limit * sizeof(*id)) : NULL;
    int rc = id ? 0 : mg_err_oom(err);
    struct mg_idx_cur t = {0};
    if (rc == 0 && rank_all(d, tier, np, limit, scope, 0, &t, err) != 0) rc = -1;
    size_t got = 0;
    struct mg_idx_row r;
    int k = 0;
    while (rc == 0 && got < (size_t)limit && (k = mg_idx_next(&t, &r)) > 0) {
        sc[got] = r.score;
        id[got++] = r.id;
    }
    if (rc == 0 && k < 0) rc = mg_db_error(d, "lexical search", err);
    mg_idx_done(&t);
    free(tier);
    double bound = 0;
    if (rc == 0 && got == (size_t)limit && rank_bound(d, match, nscored, &bound, err) != 0) rc = -1;
    if (rc == 0 && got == (size_t)limit && sc[got - 1] < bound) { /* (negated: lower is better) */
        *c = (struct mg_idx_cur){.d = d, .mscore = sc, .mid = id, .mn = got};
        return 1;
    }
    free(sc);
    free(id);
    return rc;
}

int mg_idx_rank(struct mg_db *d, const char *match, int nscored, int limit, const struct mg_idx_idset *scope,
                unsigned ways, struct mg_idx_cur *c, struct mg_err *err)
{
    int t = ways & MG_IDX_TIERS ? rank_tiered(d, match, nscored, limit, scope, c, err) : 0;
    return t < 0 ? -1 : t > 0 ? 0 : rank_all(d, match, nscored, limit, scope, ways, c, err);
}

/* match is one phrase, `"tok"` or `("tok")` (a token never holds '"') */
static bool one_phrase(const char *match)
{
    size_t n = strlen(match), open = 0;
    while (open < n && match[open] == '(' && match[n - 1 - open] == ')') open++;
    const char *p = match + open, *e = match + n - open;
    return e - p >= 2 && *p == '"' && e[-1] == '"' && memchr(p + 1, '"', (size_t)(e - p - 2)) == NULL;
}

/* rank.h's mgtop: the best `limit` rows of a one-phrase expression in one call, or with first its first
 * `limit` rows by id, into a memory cursor */
static int rank_top(struct mg_db *d, const char *match, int limit, bool first, const struct mg_idx_idset *scope,
                    struct mg_idx_cur *c, struct mg_err *err)
{
    bool own;
    sqlite3_stmt *st = mg_db_stmt(d, S_RANK_TOP, "SELECT mgtop(chunks_fts, 2.0, 8.0, 1.0, (SELECT max(id) FROM "
                                  "chunks), ?2) FROM chunks_fts WHERE chunks_fts MATCH ?1 LIMIT 1", &own, err);
    if (!st) return -1;
    struct mg_rank_top top = {.match = match, .limit = limit, .first = first, .scope = scope};
    sqlite3_bind_text(st, 1, match, -1, SQLITE_STATIC);
    sqlite3_bind_pointer(st, 2, &top, "mg_rank_top", NULL);
    int s = sqlite3_step(st), rc = s == SQLITE_ROW || s == SQLITE_DONE ? 0 : mg_db_error(d, "lexical search", err);
    if (own) {
        sqlite3_finalize(st);
    } else {
        sqlite3_reset(st);
        sqlite3_clear_bindings(st); /* (top lives on this stack: no pointer to it stays bound) */
    }
    if (rc == 0 && !top.id) { /* no row: a memory cursor at its end */
        top.score = malloc(sizeof(*top.score));
        top.id = top.score ? malloc(sizeof(*top.id)) : NULL;
        if (!top.id) rc = mg_err_oom(err);
    }
    if (rc != 0) {
        free(top.score);
        free(top.id);
        return -1;
    }
    *c = (struct mg_idx_cur){.d = d, .mscore = top.score, .mid = top.id, .mn = top.n};
    return 0;
}

static int rank_all(struct mg_db *d, const char *match, int nscored, int limit, const struct mg_idx_idset *scope,
                    unsigned ways, struct mg_idx_cur *c, struct mg_err *err)
{
    static const unsigned char cols[] = {K_SCORE, K_ID, K_END};
    if (ways & MG_IDX_ONE_CALL && limit > 0 && one_phrase(match))
        return rank_top(d, match, limit, false, scope, c, err);
    if (scope ? mg__idx_open(d, S_RANK_SCOPED, "SELECT " RANK ", rowid FROM chunks_fts WHERE chunks_fts MATCH ?1 "
                             "AND mg_in_idset(?3, rowid) ORDER BY 1, 2 LIMIT ?2", cols, c, err)
              : mg__idx_open(d, S_RANK, "SELECT " RANK ", rowid FROM chunks_fts WHERE chunks_fts MATCH ?1 "
                             "ORDER BY 1, 2 LIMIT ?2", cols, c, err))
        return -1;
    sqlite3_bind_int(c->st, 2, limit);
    if (scope) sqlite3_bind_pointer(c->st, 3, (void *)scope, "mg_idset", NULL);
    sqlite3_bind_text(c->st, 1, match, -1, SQLITE_STATIC);
    sqlite3_bind_int(c->st, 9, nscored);
    return 0;
}

/* ---- 3. counts and ids of an expression's rows ------------------------------------------------------------------ */

/* Step a counting statement once: its count, and columns 1 and 2 into *a and *b. */
static long count_once(struct mg_db *d, sqlite3_stmt *st, bool own, int64_t *a, int64_t *b, struct mg_err *err)
{
    long n = -1;
    if (sqlite3_step(st) != SQLITE_ROW) {
        mg_db_error(d, "lexical search", err);
    } else {
        n = (long)sqlite3_column_int64(st, 0);
        if (a) *a = sqlite3_column_int64(st, 1);
        if (b) *b = sqlite3_column_int64(st, 2);
    }
    if (own) sqlite3_finalize(st);
    else sqlite3_reset(st);
    return n;
}

long mg_idx_match_count(struct mg_db *d, const char *match, long max, int64_t *last, int64_t *maxid,
                        struct mg_err *err)
{
    size_t len = strlen(match);
    struct mg_count v;
    if (!mg_counts_get(d->counts, 'e', match, len, max, &v)) { /* (kept while the index is the same: rank.h) */
        bool own;
        sqlite3_stmt *st = mg_db_stmt(d, S_MATCH_COUNT, "SELECT count(*), max(rowid), (SELECT max(id) FROM chunks) "
                                      "FROM (SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?1 LIMIT ?2)", &own, err);
        if (!st) return -1;
        sqlite3_bind_text(st, 1, match, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, max);
        if ((v.n = count_once(d, st, own, &v.last, &v.maxid, err)) < 0) return -1;
        mg_counts_put(d->counts, 'e', match, len, max, &v);
    }
    if (last) *last = v.last;
    if (maxid) *maxid = v.maxid;
    return (long)v.n;
}

long mg_idx_match_count_in(struct mg_db *d, const char *match, int64_t lo, int64_t hi, long max, int64_t *last,
                           struct mg_err *err)
{
    bool own;
    sqlite3_stmt *st = mg_db_stmt(d, S_MATCH_COUNT_IN, "SELECT count(*), max(rowid) FROM (SELECT rowid FROM "
                                  "chunks_fts WHERE chunks_fts MATCH ?1 AND rowid BETWEEN ?2 AND ?3 LIMIT ?4)",
                                  &own, err);
    if (!st) return -1;
    sqlite3_bind_text(st, 1, match, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, lo);
    sqlite3_bind_int64(st, 3, hi);
    sqlite3_bind_int64(st, 4, max);
    return count_once(d, st, own, last, NULL, err);
}

int mg_idx_match_ids(struct mg_db *d, const char *match, long limit, const struct mg_idx_idset *scope,
                     struct mg_idx_cur *c, struct mg_err *err)
{
    static const unsigned char cols[] = {K_ID, K_END};
    /* one phrase: its rows gathered in one call (FTS5's walk), not a row at a time through SQL */
    if (limit > 0 && limit <= INT_MAX && one_phrase(match)) return rank_top(d, match, (int)limit, true, scope, c, err);
    if (scope ? mg__idx_open(d, S_MATCH_IDS_SCOPED, "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?1 AND "
                             "mg_in_idset(?3, rowid) ORDER BY rowid LIMIT ?2", cols, c, err)
              : mg__idx_open(d, S_MATCH_IDS, "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?1 ORDER BY rowid "
                             "LIMIT ?2", cols, c, err))
        return -1;
    sqlite3_bind_text(c->st, 1, match, -1, SQLITE_STATIC);
    sqlite3_bind_int64(c->st, 2, limit);
    if (scope) sqlite3_bind_pointer(c->st, 3, (void *)scope, "mg_idset", NULL);
    return 0;
}

/* ---- 4. symbols and files an expression matches ----------------------------------------------------------------- */

/* match with each phrase marked (`"tok"` -> `"\x01tok"`): the rows whose
 * symbol column holds it, as `symbol : (match)` would find them (the indexer
 * puts a token's mark beside each of that column's tokens, and nowhere
 * else), and with the same scores (the same rows, lengths and IDFs), from
 * the marks' short lists instead of every row of a common word. NULL: no
 * memory. */
static char *marked_expr(const char *match)
{
    struct mg_buf b;
    mg_buf_init(&b, 3 * strlen(match) + 64);
    int bad = 0;
    bool in = false; /* inside a phrase (a token never holds '"') */
    for (const char *p = match; *p; p++) {
        bad |= mg_buf_addc(&b, *p);
        if (*p == '"' && (in = !in)) bad |= mg_buf_addc(&b, MG_TOKEN_MARK); /* a phrase opens */
    }
    if (bad) {
        mg_buf_release(&b);
        return NULL;
    }
    return mg_buf_detach(&b, NULL);
}

int mg_idx_rank_symbols(struct mg_db *d, const char *match, int limit, struct mg_idx_cur *c, struct mg_err *err)
{
    static const unsigned char cols[] = {K_SYMBOL, K_START_LINE, K_END_LINE, K_SYM_LO, K_SYM_HI, K_SCORE, K_END};
    char *expr = NULL;
    if (mg_db_meta_int(d, MG_META_MARKS, 0)) expr = marked_expr(match);
    else if (asprintf(&expr, "symbol : (%s)", match) < 0) expr = NULL;
    if (!expr) return mg_err_oom(err);
    if (mg__idx_open(d, S_RANK_SYMBOLS, "SELECT c.symbol, c.start_line, c.end_line, f.sym_lo, f.sym_hi, "
                     "mgrank(chunks_fts, 0.0, 1.0, 0.0, (SELECT max(id) FROM chunks)) AS r "
                     "FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid "
                     "JOIN files f ON f.id = c.file_id "
                     "WHERE chunks_fts MATCH ?1 ORDER BY r LIMIT ?2", cols, c, err) != 0) {
        free(expr);
        return -1;
    }
    sqlite3_bind_text(c->st, 1, expr, -1, free);
    sqlite3_bind_int(c->st, 2, limit);
    return 0;
}

int mg_idx_files_matching(struct mg_db *d, const char *match, struct mg_idx_cur *c, struct mg_err *err)
{
    static const unsigned char cols[] = {K_FILE_ID, K_END};
    if (mg__idx_open(d, S_FILES_MATCHING, "SELECT DISTINCT c.file_id FROM chunks_fts JOIN chunks c ON c.id = "
                     "chunks_fts.rowid WHERE chunks_fts MATCH ?1 ORDER BY c.file_id", cols, c, err) != 0)
        return -1;
    sqlite3_bind_text(c->st, 1, match, -1, SQLITE_TRANSIENT);
    return 0;
}
