/* fuzz_query.c — lexical queries: whatever the user types, the FTS5 MATCH
 * expression built from it (mg_fts_query) must be valid FTS5 syntax naming no
 * symbol mark, the token streams of documents must hold each token once, and
 * mg_token_count must count the text's own tokens as mg_tokenize yields them
 * (all of up to 64, and the last alone). */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "store/rank.h"
#include "store/tokenize.h"
#include "util/buf.h"
#include "util/utf8.h"

static sqlite3 *db;
static sqlite3_stmt *match, *raw;
static struct mg_counts *counts;

static void setup(void)
{
    if (db) return;
    if (sqlite3_open(":memory:", &db) != SQLITE_OK || mg_tokenizer_register(db) != 0 ||
        !(counts = mg_counts_new(db)) || mg_rank_register(db, counts) != 0)
        abort();
    if (sqlite3_exec(db,
                     "CREATE VIRTUAL TABLE t USING fts5(path, symbol, body, content='', detail=column, tokenize='mgcode');"
                     "INSERT INTO t(rowid, path, symbol, body) VALUES(4096, 'src http c', 'parse_http_header "
                     "\x01parse_http_header parse \x01parse http \x01http header \x01header', 'int parse_http_header "
                     "parse http header line n return');",
                     NULL, NULL, NULL) != SQLITE_OK)
        abort();
    /* the expression passed as mgrank's match too: its phrases' counts kept by their text (rank.h); raw: any
     * text as that argument, beside an expression it need not be */
    if (sqlite3_prepare_v2(db, "SELECT rowid, mgrank(t, 2.0, 8.0, 1.0, 4096, 0, 0, ?1) FROM t WHERE t MATCH ?1", -1,
                           &match, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "SELECT mgrank(t, 2.0, 8.0, 1.0, 4096, 0, 0, ?1) FROM t WHERE t MATCH 'parse'", -1, &raw,
                           NULL) != SQLITE_OK)
        abort();
}

static int check_stream(const char *s, size_t n)
{
    /* no empty token, no token twice */
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && s[j] != ' ') j++;
        if (j == i) return -1;
        for (size_t k = j + 1; k < n;) {
            size_t e = k;
            while (e < n && s[e] != ' ') e++;
            if (e - k == j - i && memcmp(s + k, s + i, j - i) == 0) return -1;
            k = e + 1;
        }
        i = j + 1;
    }
    return 0;
}

/* The text's first distinct tokens (at most MG_COUNT_TOKENS) and each one's count, from mg_tokenize. */
struct toks {
    char v[MG_COUNT_TOKENS][MG_TOKEN_MAX + 1];
    const char *p[MG_COUNT_TOKENS];
    size_t len[MG_COUNT_TOKENS], n, max;
    double count[MG_COUNT_TOKENS];
};

static int collect(void *ctx, const char *tok, size_t len, size_t s, size_t e, bool colocated)
{
    (void)s, (void)e, (void)colocated;
    struct toks *t = ctx;
    for (size_t k = 0; k < t->n; k++)
        if (t->len[k] == len && memcmp(t->v[k], tok, len) == 0) {
            t->count[k] += 1;
            return 0;
        }
    if (t->n < t->max) {
        memcpy(t->v[t->n], tok, len + 1);
        t->p[t->n] = t->v[t->n];
        t->len[t->n] = len;
        t->count[t->n++] = 1;
    }
    return 0;
}

static void check_counts(const char *text, size_t len, size_t max)
{
    struct toks t = {.max = max};
    mg_tokenize(text, len, collect, &t);
    struct mg_token_counter c;
    double got[MG_COUNT_TOKENS] = {0};
    if (t.n == 0) return;
    if (mg_token_counter_init(&c, t.p, t.len, t.n) != 0) abort();
    mg_token_count(&c, ~0ull, text, NULL, len, got);
    for (size_t k = 0; k < t.n; k++)
        if (got[k] != t.count[k]) abort(); /* a count mg_tokenize does not give */
    char *low = malloc(len + 1);
    if (!low) abort();
    mg_token_lower(low, text, len);
    for (int given = 0; given < 2; given++) { /* the last token alone, lowercasing the text or given it so */
        double one[MG_COUNT_TOKENS] = {0};
        mg_token_count(&c, 1ull << (t.n - 1), text, given ? low : NULL, len, one);
        for (size_t k = 0; k < t.n; k++)
            if (one[k] != (k == t.n - 1 ? t.count[k] : 0)) abort();
    }
    free(low);
}

MG_FUZZ_TARGET(query)
{
    check_counts((const char *)data, size < 65536 ? size : 65536, 2);
    check_counts((const char *)data, size < 65536 ? size : 65536, MG_COUNT_TOKENS);
    setup();
    char *text;
    size_t len;
    if (size > 8192 || mg_utf8_repair((const char *)data, size, &text, &len) == (size_t)-1) return 0;
    static const unsigned flags[] = {0, MG_FTS_ANY, MG_FTS_WHOLE};
    for (size_t f = 0; f < 3; f++) {
        struct mg_buf b;
        mg_buf_init(&b, 1 << 20);
        if (mg_fts_query(text, len, flags[f], &b) > 0) {
            if (memchr(b.p, MG_TOKEN_MARK, b.len)) abort(); /* no text names a symbol mark (tokenize.h) */
            double score[2] = {0, 0};
            for (int run = 0; run < 2; run++) { /* the second with the counts the first kept: the same scores */
                sqlite3_reset(match);
                sqlite3_bind_text(match, 1, b.p, (int)b.len, SQLITE_STATIC);
                int rc;
                while ((rc = sqlite3_step(match)) == SQLITE_ROW) score[run] += sqlite3_column_double(match, 1);
                if (rc != SQLITE_DONE) abort(); /* a syntax error in what we built */
            }
            if (score[0] != score[1]) abort();
        }
        mg_buf_release(&b);
    }
    sqlite3_reset(raw);
    sqlite3_bind_text(raw, 1, text, (int)len, SQLITE_STATIC);
    while (sqlite3_step(raw) == SQLITE_ROW) {}
    struct mg_token_set *ts = mg_token_set_new();
    struct mg_buf s;
    mg_buf_init(&s, 1 << 24);
    if (ts && mg_token_stream(ts, text, len, &s) == 0 && check_stream(s.p ? s.p : "", s.len) != 0) abort();
    mg_buf_release(&s);
    mg_token_set_free(&ts);
    free(text);
    return 0;
}
