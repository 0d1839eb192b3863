/* test_tokenize.c — identifier-aware tokens (store/tokenize.h). */
#include "test.h"
#include "store/tokenize.h"
#include "util/buf.h"

static int collect(void *ctx, const char *tok, size_t len, size_t s, size_t e, bool colocated)
{
    struct mg_buf *b = ctx;
    if (b->len) mg_buf_addc(b, ' ');
    if (colocated) mg_buf_addc(b, '+');
    mg_buf_add(b, tok, len);
    return 0;
}

static char *toks(const char *text)
{
    struct mg_buf b;
    mg_buf_init(&b, 1 << 20);
    mg_tokenize(text, strlen(text), collect, &b);
    return mg_buf_detach(&b, NULL);
}

#define TOKS(text, want)                                                    \
    do {                                                                    \
        char *got_ = toks(text);                                            \
        ASSERT_EQ_STR(got_, want);                                          \
        free(got_);                                                         \
    } while (0)

TEST(tokenize_identifiers)
{
    /* '+' marks a token at the previous token's position */
    TOKS("parseHttpHeader", "parsehttpheader +parse http header");
    TOKS("parse_http_header", "parse_http_header +parse http header");
    TOKS("HTTPServer2", "httpserver2 +http server2");
    TOKS("__init", "__init +init");
    TOKS("x", "x");
    TOKS("spin_lock_irqsave(&lock, flags);", "spin_lock_irqsave +spin lock irqsave lock flags");
    TOKS("utf8Decode", "utf8decode +utf8 decode");
    TOKS("  ", "");
    TOKS("", "");
    TOKS("a-b c.d", "a b c d");
    TOKS("naïveCafé", "naïvecafé +naïve café");
}

TEST(tokenize_long_and_odd)
{
    char big[300];
    memset(big, 'a', sizeof(big) - 1);
    big[sizeof(big) - 1] = 0;
    char *t = toks(big);
    ASSERT_EQ_INT(strlen(t), MG_TOKEN_MAX); /* cut to the cap */
    free(t);
    TOKS("___", "___");
    TOKS("A_B_C_D", "a_b_c_d +a b c d");
    TOKS("ABC", "abc");
    TOKS("getHTTPResponseCode", "gethttpresponsecode +get http response code");
}

static char *fq(const char *q, unsigned flags)
{
    struct mg_buf b;
    mg_buf_init(&b, 1 << 16);
    mg_fts_query(q, strlen(q), flags, &b);
    return mg_buf_detach(&b, NULL);
}

TEST(tokenize_fts_query_expressions)
{
    char *e = fq("parseHttpHeader", 0);
    ASSERT_EQ_STR(e, "((\"parsehttpheader\" OR (\"parse\" AND \"http\" AND \"header\")))");
    free(e);
    e = fq("spin_lock(&x) \"unbalanced NEAR( AND*", 0);
    ASSERT_EQ_STR(e, "((\"spin_lock\" OR (\"spin\" AND \"lock\")) AND \"x\" AND \"unbalanced\" AND \"near\" AND \"and\")");
    free(e);
    e = fq("a b", MG_FTS_ANY);
    ASSERT_EQ_STR(e, "(\"a\" OR \"b\")");
    free(e);
    e = fq("-> && ::", 0);
    ASSERT_EQ_STR(e, "");
    free(e);
    e = fq("parseHttpHeader lock", MG_FTS_WHOLE);
    ASSERT_EQ_STR(e, "(\"parsehttpheader\" AND \"lock\")");
    free(e);
    /* PostgreSQL's tsquery: the same shape, its quotes and operators; tsquery
     * syntax in the text stays text */
    e = fq("parseHttpHeader lock", MG_FTS_ANY | MG_FTS_TSQUERY);
    ASSERT_EQ_STR(e, "(('parsehttpheader' | ('parse' & 'http' & 'header')) | 'lock')");
    free(e);
    e = fq("it's a:* !b <-> (c) & 'd' \\e", MG_FTS_TSQUERY | MG_FTS_ANY);
    ASSERT_EQ_STR(e, "('it' | 's' | 'a' | 'b' | 'c' | 'd' | 'e')");
    free(e);
    e = fq("x_y", MG_FTS_TSQUERY);
    ASSERT_EQ_STR(e, "(('x_y' | ('x' & 'y')))");
    free(e);
    e = fq("!&|", MG_FTS_TSQUERY);
    ASSERT_EQ_STR(e, "");
    free(e);
}
