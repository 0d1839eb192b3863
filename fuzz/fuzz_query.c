/* fuzz_query.c — lexical queries: whatever the user types, the FTS5 MATCH
 * expression built from it (mg_fts_query) must be valid FTS5 syntax naming no
 * symbol mark, and the token streams of documents must hold each token once. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "store/rank.h"
#include "store/tokenize.h"
#include "util/buf.h"
#include "util/utf8.h"

static sqlite3 *db;
static sqlite3_stmt *match;

static void setup(void)
{
    if (db) return;
    if (sqlite3_open(":memory:", &db) != SQLITE_OK || mg_tokenizer_register(db) != 0 || mg_rank_register(db) != 0)
        abort();
    if (sqlite3_exec(db,
                     "CREATE VIRTUAL TABLE t USING fts5(path, symbol, body, content='', detail=column, tokenize='mgcode');"
                     "INSERT INTO t(rowid, path, symbol, body) VALUES(4096, 'src http c', 'parse_http_header "
                     "\x01parse_http_header parse \x01parse http \x01http header \x01header', 'int parse_http_header "
                     "parse http header line n return');",
                     NULL, NULL, NULL) != SQLITE_OK)
        abort();
    if (sqlite3_prepare_v2(db, "SELECT rowid, mgrank(t, 2.0, 8.0, 1.0, 4096) FROM t WHERE t MATCH ?", -1, &match,
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

MG_FUZZ_TARGET(query)
{
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
            sqlite3_reset(match);
            sqlite3_bind_text(match, 1, b.p, (int)b.len, SQLITE_STATIC);
            int rc;
            while ((rc = sqlite3_step(match)) == SQLITE_ROW) {}
            if (rc != SQLITE_DONE) abort(); /* a syntax error in what we built */
        }
        mg_buf_release(&b);
    }
    struct mg_token_set *ts = mg_token_set_new();
    struct mg_buf s;
    mg_buf_init(&s, 1 << 24);
    if (ts && mg_token_stream(ts, text, len, &s) == 0 && check_stream(s.p ? s.p : "", s.len) != 0) abort();
    mg_buf_release(&s);
    mg_token_set_free(&ts);
    free(text);
    return 0;
}
