/* tokenize.h — identifier-aware tokens for code search.
 *
 * A word is a run of ASCII letters, digits and '_' (and bytes >= 0x80, so
 * non-ASCII letters stay inside words). Each word yields its whole form,
 * ASCII-lowercased, and, when it has inner structure, its parts:
 *
 *   parseHttpHeader    -> parsehttpheader | parse, http, header
 *   parse_http_header  -> parse_http_header | parse, http, header
 *   HTTPServer2        -> httpserver2 | http, server2
 *   __init             -> __init | init
 *
 * The first part shares the whole word's position (FTS5 "colocated"), the
 * others follow it, so the phrase "http header" matches all three spellings,
 * and a query word goes through the same function, so `parseHttpHeader`,
 * `parse_http_header` and `http header` find each other.
 *
 * Tokens longer than MG_TOKEN_MAX bytes are cut to it.
 */
#ifndef MG_TOKENIZE_H
#define MG_TOKENIZE_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MG_TOKEN_MAX 64
/* The first byte of a mark: in a document stream, "\x01tok" right after tok
 * is indexed at tok's position (FTS5_TOKEN_COLOCATED: no length counted);
 * in a query, a phrase "\x01tok" is that one token. No word of a text ever
 * holds the byte, so no query of a user's names a mark. The indexer marks
 * the symbol column's tokens (index/indexer_streams.c), for the ranking of
 * common words (store/indexdb_chunks.c); an index whose symbol tokens carry
 * their marks says so in its meta, MG_META_MARKS (one made before marks is
 * searched as before, and marked by its next full run). (Marks in place of
 * the symbol tokens, a query word finding its mark as an FTS5 synonym, cost
 * as much index and made every query that ranks all its rows 15-25% slower:
 * two doclists read for each word.) */
#define MG_TOKEN_MARK '\x01'
#define MG_META_MARKS "fts.marks"

/* Called per token: tok is lowercased, NUL-terminated, valid until the call
 * returns; [start, end) is the word's byte range in the text; colocated is
 * true when the token shares the previous token's position. A non-zero
 * return stops tokenizing and is returned by mg_tokenize. */
typedef int (*mg_token_cb)(void *ctx, const char *tok, size_t len, size_t start, size_t end, bool colocated);

int mg_tokenize(const char *text, size_t len, mg_token_cb cb, void *ctx);

/* Whether a (lowercased) token is a number: decimal digits, or 0x and hex
 * digits. The embedders leave such tokens out. */
bool mg_token_is_number(const char *tok, size_t len);

/* Counting a few tokens in texts, as mg_tokenize yields them (each word and
 * each of its parts that equals one counts 1), without a call per token:
 * the file-level ranking counts the query's words in a file's text
 * (search/filerank_whole.c). toks are lowercased tokens, kept by the
 * caller while the counter is used. */
#define MG_COUNT_TOKENS 64
#define MG_COUNT_SLOTS 128 /* > 2 * MG_COUNT_TOKENS */
#define MG_COUNT_SUBSTR 8  /* tokens looked for as substrings at most; more: the text word by word */
struct mg_token_counter {
    const char *tok[MG_COUNT_TOKENS];
    unsigned char len[MG_COUNT_TOKENS];
    signed char slot[MG_COUNT_SLOTS]; /* a token's index by its hash, -1 none */
    uint64_t lens;                    /* bit l - 1: a token is l bytes long */
    uint64_t first[4];                /* bit b: a token starts with byte b */
    size_t n;
};
/* 0, or -1 (more than MG_COUNT_TOKENS, or a token empty or over MG_TOKEN_MAX). */
int mg_token_counter_init(struct mg_token_counter *c, const char *const *toks, const size_t *lens, size_t n);
/* Add the occurrences in text[0..len) of the tokens in which (bit k:
 * toks[k]) to their counts[k]; the others are not looked for. The fewer
 * tokens, the faster (up to MG_COUNT_SUBSTR, each is looked for in the text
 * lowercased, and only the words holding one are split): a caller that
 * knows which tokens a text may hold names only those. low: the text
 * lowercased (mg_token_lower), when the caller has it; NULL, made here. */
void mg_token_count(const struct mg_token_counter *c, uint64_t which, const char *text, const char *low, size_t len,
                    double *counts);
/* text[0..n) lowercased as tokens are (ASCII letters) into dst[0..n). */
void mg_token_lower(char *dst, const char *text, size_t n);
/* Where the tokens toks[0..n) (lowercased) occur in a text, given
 * lowercased (low[0..len), mg_token_lower): mark[i] = 1 where one starts,
 * else 0. Every token of a word is a lowercased piece of it, so a span with
 * no mark holds none of the tokens. false, marking nothing, for more than
 * MG_COUNT_SUBSTR tokens (then the text is better split word by word). */
bool mg_token_marks(const char *const *toks, size_t n, const char *low, size_t len, char *mark);

struct mg_buf;

/* A document as FTS5 gets it from the indexer: its distinct tokens (words
 * and parts), in order of first appearance, separated by spaces. With
 * detail=column FTS5 keeps neither positions nor counts, so repeating a token
 * only costs time; the parser threads build these streams, and the writer
 * thread hands them to FTS5, whose tokenizer only splits them. Deleting a row
 * must pass the same stream, which this function reproduces. */
struct mg_token_set;
struct mg_token_set *mg_token_set_new(void);
void mg_token_set_free(struct mg_token_set **s);
/* Append the stream of text[0..len) to out (a space first if out is not
 * empty is NOT added: callers start a fresh buffer per document). 0 or -1. */
int mg_token_stream(struct mg_token_set *s, const char *text, size_t len, struct mg_buf *out);

/* An FTS5 MATCH expression for text, appended to b: each word as its whole
 * form OR all of its parts, e.g. `(("parse_http_header" OR ("parse" AND
 * "http" AND "header")) AND "lock")`. Only tokens appear, quoted, so FTS5
 * syntax in the text is never syntax. Returns the number of words (0:
 * nothing appended). Flags: */
#define MG_FTS_ANY   1u /* words are ORed, not ANDed */
#define MG_FTS_WHOLE 2u /* whole words only, no parts */
#define MG_FTS_TSQUERY 4u /* PostgreSQL's tsquery instead: '...' quotes, | and & for OR and AND, e.g.
                           * `(('parse_http_header' | ('parse' & 'http' & 'header')) | 'lock')` (the
                           * caller casts it, text::tsquery, so no parser or dictionary touches the
                           * tokens, and makes it valid UTF-8: a token cut at MG_TOKEN_MAX may end
                           * inside a character) */
size_t mg_fts_query(const char *text, size_t len, unsigned flags, struct mg_buf *b);

/* Register the FTS5 tokenizer "mgcode" on a connection. A document is a
 * token stream (mg_token_stream); a query string is tokenized as text into
 * whole words only. 0 or -1. */
int mg_tokenizer_register(sqlite3 *db);

#endif
