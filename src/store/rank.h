/* rank.h — the FTS5 ranking function "mgrank".
 *
 *   mgrank(chunks_fts, w_path, w_symbol, w_body [, max_chunk_id [, nscored [, bound [, match]]]])
 *
 * BM25 (k1 = 1.2, b = 0.75) for detail=column tables, where FTS5's own bm25()
 * sees no term frequencies and returns 0: each query phrase counts once per
 * column it appears in, weighted by the column weight and normalised by that
 * column's length in the row against its average (the symbol and body lengths
 * come from the chunk id, below; the path column is not length-normalised).
 * Returns the negated score (lower is better, like bm25()) so
 * `ORDER BY mgrank(...)` ranks best first. With max_chunk_id, the document
 * frequency of a term in over 2,000 rows is estimated from a sample. With
 * nscored > 0 only the query's first nscored phrases count: the rest only
 * select rows (`(a OR b OR c) AND (a OR b)` ranks by a, b and c once).
 * With bound = 1 it returns, for any row, the (negated) score no row can beat
 * that has none of the scored phrases in its symbol column: what lets a
 * search rank only the rows with a word in a symbol (indexdb_chunks.c).
 * With match, the MATCH expression's text, each phrase's sampled count is
 * kept on the handle for the next queries (mg_counts, below).
 */
#ifndef MG_RANK_H
#define MG_RANK_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mg_idx_idset;

/* mgtop(chunks_fts, w_path, w_symbol, w_body, max_chunk_id, top): a
 * one-phrase expression's best top->limit rows (of top->scope, if set),
 * ranked as mgrank ranks them (the same scores, negated, and order: score,
 * then rowid), into top: the whole ranking in the call of the statement's
 * first row, `SELECT mgtop(...) FROM chunks_fts WHERE chunks_fts MATCH ?
 * LIMIT 1`, with top bound as a pointer of type "mg_rank_top" (zeroed but
 * for limit, first and scope); returns the rows found. FTS5 walks the phrase's rows
 * (xQueryPhrase) and a heap keeps the best: ranking every row of a very common
 * word through SQL costs the VM's steps, a function call and the sorter per
 * row, twice this (Linux's 272,000 rows of "the": 45 ms against 20). With
 * first set, the phrase's first `limit` rows by rowid instead, unscored (score
 * 0). The caller frees score and id. */
struct mg_rank_top {
    const char *match; /* the MATCH expression's text, for mg_counts (NULL: none kept) */
    int limit;
    bool first;
    const struct mg_idx_idset *scope;
    size_t n;
    double *score; /* negated, best (lowest) first */
    int64_t *id;
};

/* Sampled row counts of the word index's expressions, kept on one handle
 * while its database is the same (SQLite's data version: any commit, by any
 * connection, empties them). A query's IDFs walk up to 2,000 rows of each of
 * its words (mgrank's sample) and the file ranking and lexical.c count up to
 * a limit of each word's rows to order them: the same words, asked again by
 * the next searches of an agent, cost nothing while the index is unchanged.
 * kind names what was counted: 'p' a phrase by mgrank's sample (n the rows
 * counted, last the id of the last when the sample ended it, else 0); 'e'
 * mg_idx_match_count's first `max` rows of an expression. Used and kept
 * only inside a read transaction (not a write one, whose own changes the
 * version does not show). At most 256 are kept (all dropped when 192 are),
 * each expression of up to 96 bytes. */
struct mg_counts;
struct mg_count {
    int64_t n, last, maxid;
};
struct mg_counts *mg_counts_new(sqlite3 *db);
void mg_counts_free(struct mg_counts *c);
/* true, and *out, when (kind, expr[0..len), max) is kept (c NULL: never) */
bool mg_counts_get(struct mg_counts *c, char kind, const char *expr, size_t len, long max, struct mg_count *out);
void mg_counts_put(struct mg_counts *c, char kind, const char *expr, size_t len, long max, const struct mg_count *v);

/* mgrank and mgtop on db, keeping their phrases' counts in counts (NULL: none kept); 0 or -1 */
int mg_rank_register(sqlite3 *db, struct mg_counts *counts);

/* Chunk ids carry their lengths. Looking a row's column sizes up in FTS5's
 * %_docsize table costs a b-tree search per matching row (most of a search
 * for a common identifier); instead the low bits of the id hold the body's
 * token count on a log scale (7 bits, within 5%) and the symbol column's
 * (5 bits, exact up to 31). The high bits are a sequence number, so ids still
 * grow, and a file's chunks still form one id range. */
#define MG_CHUNK_ID_BITS 12
int64_t mg_chunk_id(int64_t seq, uint32_t body_tokens, uint32_t symbol_tokens);
int64_t mg_chunk_seq(int64_t id);
/* The lengths an id carries (body tokens approximated). */
void mg_chunk_lengths(int64_t id, double *body_tokens, double *symbol_tokens);

#endif
