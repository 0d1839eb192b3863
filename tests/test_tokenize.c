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

/* ---- token counts: the same as counting mg_tokenize's tokens ---- */

struct ref_count {
    const char *const *toks;
    size_t n;
    double *counts;
};

static int ref_cb(void *ctx, const char *tok, size_t len, size_t s, size_t e, bool colocated)
{
    (void)s, (void)e, (void)colocated;
    struct ref_count *r = ctx;
    for (size_t k = 0; k < r->n; k++)
        if (strlen(r->toks[k]) == len && memcmp(r->toks[k], tok, len) == 0) r->counts[k] += 1;
    return 0;
}

/* mg_token_count against mg_tokenize's tokens counted one by one, for toks over text */
static void same_counts(const char *text, size_t len, const char *const *toks, size_t n)
{
    size_t lens[MG_COUNT_TOKENS];
    for (size_t k = 0; k < n; k++) lens[k] = strlen(toks[k]);
    struct mg_token_counter c;
    ASSERT_EQ_INT(mg_token_counter_init(&c, toks, lens, n), 0);
    double got[MG_COUNT_TOKENS] = {0}, want[MG_COUNT_TOKENS] = {0};
    struct ref_count r = {toks, n, want};
    mg_tokenize(text, len, ref_cb, &r);
    mg_token_count(&c, ~0ull, text, NULL, len, got);
    for (size_t k = 0; k < n; k++)
        if (got[k] != want[k]) FAIL("'%s': counted %.0f, mg_tokenize has %.0f", toks[k], got[k], want[k]);
    /* each token alone (looked for as a substring), in the text lowercased here or given lowercased, and
     * every other one */
    char *low = malloc(len + 1);
    ASSERT(low != NULL);
    mg_token_lower(low, text, len);
    for (size_t k = 0; k < n; k++)
        for (int given = 0; given < 2; given++) {
            double one[MG_COUNT_TOKENS] = {0};
            mg_token_count(&c, 1ull << k, text, given ? low : NULL, len, one);
            for (size_t i = 0; i < n; i++)
                if (one[i] != (i == k ? want[i] : 0))
                    FAIL("'%s' alone%s: '%s' counted %.0f", toks[k], given ? " (lowercased given)" : "", toks[i],
                         one[i]);
        }
    free(low);
    double odd[MG_COUNT_TOKENS] = {0};
    mg_token_count(&c, 0xaaaaaaaaaaaaaaaaull, text, NULL, len, odd);
    for (size_t k = 0; k < n; k++)
        if (odd[k] != (k % 2 ? want[k] : 0)) FAIL("every other: '%s' counted %.0f", toks[k], odd[k]);
}

TEST(token_counts_are_mg_tokenizes)
{
    /* (few tokens: each looked for as a substring; many, more than MG_COUNT_SUBSTR: word by word) */
    static const char *const few[] = {"http", "header", "parsehttpheader", "server2", "__init", "h", "zh"};
    static const char *const many[] = {"http", "header", "parse", "parse_http_header", "server2", "__init", "init",
                                       "lock", "mutex", "x", "y", "z", "quorum", "9", "\xc3\xa9t\xc3\xa9",
                                       "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcd"};
    const char *text = "parseHttpHeader(parse_http_header, HTTPServer2); __init init_http HTTP_HEADER "
                       "httphttp Http-header h H_h hh \xc3\xa9t\xc3\xa9 x_y_z lockMutex MUTEX_LOCK 9lives v9 "
                       "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij "
                       /* near misses: a token's first and last bytes with another between */
                       "hxtp htxp heaxer headxr parsehttpheadxr parsexttpheader sxrver2 servex2 __inxt _xinit";
    struct mg_token_counter c;
    /* every start and end of the text, so that words fall across each place of a 16-byte block */
    size_t n = strlen(text);
    for (size_t a = 0; a < 40; a++)
        for (size_t b = a; b <= n; b += 7) {
            same_counts(text + a, b - a, few, 7);
            same_counts(text + a, b - a, many, 16);
        }
    /* random bytes of a small alphabet, words and parts of every shape */
    static const char alphabet[] = "hH_tTpP2 eEaAdDrR-x\xc3\xa9zZ@[`{\xc1\xfa"; /* (and the bytes around 'A'..'Z') */
    char buf[512];
    unsigned seed = 7;
    for (int round = 0; round < 300; round++) {
        size_t len = (size_t)(seed % sizeof(buf));
        for (size_t i = 0; i < len; i++) {
            seed = seed * 1103515245u + 12345u;
            buf[i] = alphabet[(seed >> 16) % (sizeof(alphabet) - 1)];
        }
        same_counts(buf, len, few, 7);
        same_counts(buf, len, many, 16);
    }
    /* a token over MG_TOKEN_MAX bytes can never be counted */
    char lng[MG_TOKEN_MAX + 2];
    memset(lng, 'a', sizeof(lng) - 1);
    lng[sizeof(lng) - 1] = 0;
    const char *const bad[] = {lng};
    size_t bl = strlen(lng);
    ASSERT_EQ_INT(mg_token_counter_init(&c, bad, &bl, 1), -1);
}

/* The tokens mg_tokenize gives for text, each once, in the order they first
 * come: what a token stream must hold. */
struct distinct {
    struct mg_buf out;
    char **seen;
    size_t n, cap;
};

static int distinct_cb(void *ctx, const char *tok, size_t len, size_t s, size_t e, bool colocated)
{
    struct distinct *d = ctx;
    for (size_t i = 0; i < d->n; i++)
        if (strlen(d->seen[i]) == len && memcmp(d->seen[i], tok, len) == 0) return 0;
    if (d->n == d->cap) {
        d->cap = d->cap ? 2 * d->cap : 64;
        d->seen = realloc(d->seen, d->cap * sizeof(*d->seen));
    }
    d->seen[d->n++] = strndup(tok, len);
    if (d->out.len) mg_buf_addc(&d->out, ' ');
    mg_buf_add(&d->out, tok, len);
    return 0;
}

static char *distinct_toks(const char *text, size_t len)
{
    struct distinct d = {0};
    mg_buf_init(&d.out, 1 << 24);
    mg_tokenize(text, len, distinct_cb, &d);
    for (size_t i = 0; i < d.n; i++) free(d.seen[i]);
    free(d.seen);
    mg_buf_addc(&d.out, 0);
    return mg_buf_detach(&d.out, NULL);
}

/* A stream skips a word that comes again as the same bytes (its tokens are
 * all in already); a word whose lowered form came before written otherwise
 * has other parts (FooBar: foo, bar; foobar: none), which must still come. */
TEST(token_streams_hold_each_token_once_as_mg_tokenize_gives_them)
{
    const char *texts[] = {
        "foobar FooBar foobar FOOBAR foo_bar Foo_Bar FooBar fooBar x",
        "int x = parseHeader(hdr); parseheader(y); PARSE_HEADER; parseHeader2 parse_header_v2 x",
        "HTTPServer httpServer HttpServer http_server HTTP_SERVER httpserver",
        "",
        "   \n\t ;;; ",
        "caf\xc3\xa9 CAF\xc3\xa9 caf\xc3\xa9_x",
    };
    struct mg_token_set *ts = mg_token_set_new();
    ASSERT(ts != NULL);
    struct mg_buf out;
    mg_buf_init(&out, 1 << 24);
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        mg_buf_reset(&out);
        ASSERT_EQ_INT(mg_token_stream(ts, texts[i], strlen(texts[i]), &out), 0);
        mg_buf_addc(&out, 0);
        char *want = distinct_toks(texts[i], strlen(texts[i]));
        ASSERT_EQ_STR(out.p, want);
        free(want);
    }
    /* thousands of words, many again in other case: the stream's memory of words is
     * overwritten many times over; and two streams in one buffer each hold their own */
    struct mg_buf big;
    mg_buf_init(&big, 1 << 24);
    unsigned x = 12345;
    for (int i = 0; i < 20000; i++) {
        x = x * 1103515245u + 12345u;
        unsigned w = (x >> 8) % 3000;
        switch ((x >> 20) & 3) {
        case 0: mg_buf_addf(&big, "item_%u_name", w); break;
        case 1: mg_buf_addf(&big, "Item%uName", w); break;
        case 2: mg_buf_addf(&big, "item%uname", w); break;
        default: mg_buf_addf(&big, "ITEM_%u_NAME", w); break;
        }
        mg_buf_addc(&big, (x >> 24) & 1 ? ' ' : '\n');
    }
    mg_buf_reset(&out);
    ASSERT_EQ_INT(mg_token_stream(ts, big.p, big.len, &out), 0);
    size_t first = out.len;
    ASSERT_EQ_INT(mg_token_stream(ts, big.p, big.len / 2, &out), 0);
    mg_buf_addc(&out, 0);
    char *want = distinct_toks(big.p, big.len), *want2 = distinct_toks(big.p, big.len / 2);
    ASSERT(first == strlen(want) && memcmp(out.p, want, first) == 0);
    ASSERT(strcmp(out.p + first, want2) == 0); /* (the next stream's tokens follow with no space between) */
    free(want);
    free(want2);
    mg_buf_release(&big);
    mg_buf_release(&out);
    mg_token_set_free(&ts);
}
