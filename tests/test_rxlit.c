/* test_rxlit.c — the regex literal analyzer (src/store/rxlit*.c).
 *
 * Sections:
 *   1. helpers: analyze+format, PCRE2 matching with the flags rxlit.h names
 *   2. exact formulas, grouped by the syntax they exercise
 *   3. caps, invalid patterns, format and eval
 *   4. soundness: hand-picked (pattern, subject) pairs PCRE2 matches
 *   5. soundness: random patterns and subjects (fixed seed)
 */
#include "test.h"
#include "store/rxlit.h"

#include <time.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

/* ---- 1. helpers --------------------------------------------------------- */

/* The formatted formula of pattern (a C string) under flags; static buffer. */
static const char *rx(const char *pattern, unsigned flags)
{
    static char out[8192];
    struct mg_rx_node *n = NULL;
    struct mg_err err = {0};
    if (mg_rxlit_analyze(pattern, strlen(pattern), flags, &n, &err) != 0)
        FAIL("analyze '%s' failed: %s", pattern, err.msg);
    if (!n) FAIL("analyze '%s' gave no formula", pattern);
    size_t need = mg_rxlit_format(n, out, sizeof(out));
    if (need >= sizeof(out)) FAIL("formula of '%s' too long (%zu)", pattern, need);
    mg_rxlit_free(&n);
    if (n) FAIL("mg_rxlit_free did not clear the pointer");
    return out;
}

#define EXPECT(pattern, want) ASSERT_EQ_STR(rx((pattern), 0), (want))
#define EXPECT_F(pattern, flags, want) ASSERT_EQ_STR(rx((pattern), (flags)), (want))

/* 1 match, 0 no match, -1 compile error or limit hit. */
static int pcre_match(const char *pat, size_t plen, const char *subj, size_t slen, unsigned flags)
{
    uint32_t opts = PCRE2_UTF | PCRE2_MATCH_INVALID_UTF;
    if (flags & MG_RX_CASELESS) opts |= PCRE2_CASELESS;
    opts |= (flags & MG_RX_FIXED) ? PCRE2_LITERAL : PCRE2_MULTILINE;
    int errcode;
    PCRE2_SIZE erroff;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pat, plen, opts, &errcode, &erroff, NULL);
    if (!re) return -1;
    pcre2_match_context *mc = pcre2_match_context_create(NULL);
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    if (!mc || !md) FAIL("pcre2 out of memory");
    pcre2_set_match_limit(mc, 10000);
    pcre2_set_depth_limit(mc, 1000);
    int rc = pcre2_match(re, (PCRE2_SPTR)subj, slen, 0, 0, md, mc);
    pcre2_match_data_free(md);
    pcre2_match_context_free(mc);
    pcre2_code_free(re);
    return rc >= 0 ? 1 : rc == PCRE2_ERROR_NOMATCH ? 0 : -1;
}

/* Is the formula of pat true on subj? */
static bool rx_eval(const char *pat, size_t plen, const char *subj, size_t slen, unsigned flags,
                    char *fmt, size_t fmtcap)
{
    struct mg_rx_node *n = NULL;
    struct mg_err err = {0};
    if (mg_rxlit_analyze(pat, plen, flags, &n, &err) != 0) FAIL("analyze failed: %s", err.msg);
    mg_rxlit_format(n, fmt, fmtcap);
    bool r = mg_rxlit_eval(n, subj, slen);
    mg_rxlit_free(&n);
    return r;
}

/* ---- 2. exact formulas -------------------------------------------------- */

TEST(rxlit_literals)
{
    EXPECT("spin_lock_irqsave", "\"spin_lock_irqsave\"");
    EXPECT("ab", "TRUE");
    EXPECT("abc", "\"abc\"");
    EXPECT("", "TRUE");
    EXPECT("caf\xc3\xa9", "\"caf\\xc3\\xa9\"");
    EXPECT("say \"hi\"", "\"say \\\"hi\\\"\"");
    EXPECT("a]b}c", "\"a]b}c\"");
}

TEST(rxlit_alternation)
{
    EXPECT("foo|bar", "OR(\"foo\",\"bar\")");
    EXPECT("foo|ab", "TRUE");
    EXPECT("foo|", "TRUE");
    EXPECT("(foo|bar)_init", "OR(\"foo_init\",\"bar_init\")");
    EXPECT("(?:foo|bar)baz", "OR(\"foobaz\",\"barbaz\")");
    EXPECT("(|foo)bar", "\"bar\"");              /* "foobar" implies "bar" */
    EXPECT("(foo|bar)?baz", "\"baz\"");
    EXPECT("foo.*bar|qux", "OR(AND(\"foo\",\"bar\"),\"qux\")");
    EXPECT("spin_lock.*(irq|bhx)", "AND(\"spin_lock\",OR(\"irq\",\"bhx\"))");
    EXPECT("spin_lock.*(irq|bh)", "\"spin_lock\"");
}

TEST(rxlit_concat_and_unknowns)
{
    EXPECT("a.*bcd", "\"bcd\"");
    EXPECT("foo.*bar.*baz", "AND(\"foo\",\"bar\",\"baz\")");
    EXPECT("foo\\d\\w\\s.bar", "AND(\"foo\",\"bar\")");
    EXPECT("\\D\\W\\S\\h\\v\\R\\N\\X\\C", "TRUE");
    EXPECT("\\p{Greek}foo\\pLbar\\P{^Lu}", "AND(\"foo\",\"bar\")");
    EXPECT("\\N{U+263A}abc", "\"abc\"");
    EXPECT("\\N{3}abc", "\"abc\"");
    EXPECT("\\cAabc", "\"abc\"");
}

TEST(rxlit_zero_width)
{
    EXPECT("^foo$", "\"foo\"");
    EXPECT("\\Afoo\\z", "\"foo\"");
    EXPECT("fo\\bo\\Bb\\Kar\\Z\\G", "\"foobar\"");
    EXPECT("(?=foo)bar", "AND(\"foo\",\"bar\")");
    EXPECT("(?<=foo)bar", "AND(\"foo\",\"bar\")");
    EXPECT("foo(?!bar)baz", "\"foobaz\"");
    EXPECT("(?<!foo)bar", "\"bar\"");
    EXPECT("(?=foo)?bar", "\"bar\"");
}

TEST(rxlit_escapes)
{
    EXPECT("\\Qa.b*c\\E", "\"a.b*c\"");
    EXPECT("x\\Q(|)\\Ey", "\"x(|)y\"");
    EXPECT("\\Qabc", "\"abc\"");
    EXPECT("a\\.b\\(c\\\\d\\/", "\"a.b(c\\\\d/\"");
    EXPECT("foo\\nbar\\t", "\"foo\\x0abar\\x09\"");
    EXPECT("\\x41BC", "\"ABC\"");
    EXPECT("\\x{263a}x", "\"\\xe2\\x98\\xbax\"");
    EXPECT("\\o{101}bc", "\"Abc\"");
    EXPECT("a\\012bc", "\"a\\x0abc\"");
    EXPECT("\\e\\a\\f\\rx", "\"\\x1b\\x07\\x0c\\x0dx\"");
    EXPECT("\\j", "TRUE"); /* not an escape PCRE2 knows */
}

TEST(rxlit_backrefs_and_calls)
{
    EXPECT("(foo)\\1bar", "AND(\"foo\",\"bar\")");
    EXPECT("(?<n>abc)(?P=n)def", "AND(\"abc\",\"def\")");
    EXPECT("(?<n>abc)\\k<n>def\\g{1}\\g-1", "AND(\"abc\",\"def\")");
    EXPECT("(abc)(?1)def(?R)", "AND(\"abc\",\"def\")");
    EXPECT("(?<n>abc)x(?&n)def(?P>n)", "AND(\"abcx\",\"def\")");
}

TEST(rxlit_classes)
{
    EXPECT("[|]abc", "\"|abc\"");
    EXPECT("[|]foo|bar", "OR(\"|foo\",\"bar\")");
    EXPECT("[]a]bcd", "OR(\"]bcd\",\"abcd\")");
    EXPECT("[^]]xyz", "\"xyz\"");
    EXPECT("[[:alpha:]]xyz", "\"xyz\"");
    EXPECT("[a\\]|)]xyz", "\"xyz\"");
    EXPECT("[\\Q]|\\E]xyz", "\"xyz\"");
    EXPECT("[a-z]xyz", "\"xyz\"");
    EXPECT("[ab]cd", "OR(\"acd\",\"bcd\")");
    EXPECT("[[:<:]]xyz", "\"xyz\"");
    EXPECT("[\\Q\\E]]abc", "\"]abc\"");
}

TEST(rxlit_quantifiers)
{
    EXPECT("abcd*", "\"abc\"");
    EXPECT("abcd?e", "OR(\"abcde\",\"abce\")");
    EXPECT("colou?r", "OR(\"colour\",\"color\")");
    EXPECT("abcd+efg", "AND(\"abcd\",\"defg\")");
    EXPECT("ab+cde", "\"bcde\"");
    EXPECT("foo+?bar", "AND(\"foo\",\"obar\")");
    EXPECT("foo*+bar", "\"bar\"");
    EXPECT("abc{2}", "\"abcc\"");
    EXPECT("(abc){2}", "\"abcabc\"");
    EXPECT("(abc){2,}x", "AND(\"abcabc\",\"abcx\")");
    EXPECT("abc{0}de", "\"abde\"");
    EXPECT("(abc){0,3}de", "TRUE");
    EXPECT("ab(?#c)+cd", "\"bcd\"");  /* the quantifier skips the comment */
    EXPECT("ab\\Q\\E+cd", "\"bcd\""); /* ... and an empty \Q\E */
    EXPECT("\\Qab\\E+cd", "\"bcd\"");
    EXPECT("a{b}cd", "\"a{b}cd\""); /* not a quantifier: literal */
    EXPECT("x{,3}abc", "TRUE");     /* {,3}: a quantifier in newer PCRE2 */
    EXPECT("abc**", "TRUE");        /* invalid */
}

TEST(rxlit_groups)
{
    EXPECT("(?<n>foo)bar", "\"foobar\"");
    EXPECT("(?P<n>foo)bar", "\"foobar\"");
    EXPECT("(?'n'foo)bar", "\"foobar\"");
    EXPECT("(?>foo)bar", "\"foobar\"");
    EXPECT("(?|foo|bar)baz", "OR(\"foobaz\",\"barbaz\")");
    EXPECT("foo(?#comment)bar", "\"foobar\"");
    EXPECT("(?(1)abc|def)ghi", "\"ghi\"");
    EXPECT("(?(?=x)abc|def)ghi", "\"ghi\"");
    EXPECT("(?(DEFINE)(?<w>abc))ghi", "\"ghi\"");
    EXPECT("(abc)+x", "\"abcx\"");
    EXPECT("(abc\\d+)+x", "\"abc\"");
}

TEST(rxlit_caseless)
{
    EXPECT("(?i)kfree", "OR(\"kfree\",\"\\xe2\\x84\\xaafree\")");
    EXPECT("(?i)mask",
           "OR(\"mask\",\"mas\\xe2\\x84\\xaa\",\"ma\\xc5\\xbfk\",\"ma\\xc5\\xbf\\xe2\\x84\\xaa\")");
    EXPECT("(?i)foo", "\"foo\"");
    EXPECT("(?i)FOO", "\"FOO\"");
    EXPECT("(?i:sync)abc", "OR(\"syncabc\",\"\\xc5\\xbfyncabc\")");
    EXPECT("abc(?i)def", "\"abcdef\"");
    EXPECT("(?-i)abc(?i)", "\"abc\"");
    EXPECT("(?i)caf\\x{e9}", "\"caf\"");
    EXPECT("(?i)[ab]cd", "OR(\"acd\",\"bcd\")");
    EXPECT("(?i)[ks]cd", "TRUE");
    EXPECT_F("kfree", MG_RX_CASELESS, "OR(\"kfree\",\"\\xe2\\x84\\xaafree\")");
    EXPECT_F("grep", MG_RX_CASELESS, "\"grep\"");
    EXPECT_F("\\x4bfree", MG_RX_CASELESS, "OR(\"Kfree\",\"\\xe2\\x84\\xaafree\")");
    EXPECT_F("caf\xc3\xa9s", MG_RX_CASELESS, "\"caf\"");
    /* 2^6 variants overflow the set: the run is split, still sound */
    ASSERT_NOT_CONTAINS(rx("(?i)skskskxyz", 0), "\"skskskxyz\"");
}

TEST(rxlit_options_and_verbs)
{
    EXPECT("(?s)foo.bar", "AND(\"foo\",\"bar\")");
    EXPECT("(?m)^foo$", "\"foo\"");
    EXPECT("(?U)fooo+bar", "AND(\"fooo\",\"obar\")");
    EXPECT("(?x) foo bar", "TRUE");
    EXPECT("(?xx)abc", "TRUE");
    EXPECT("abc(?x:d e)", "TRUE");
    EXPECT("abc(?i)+", "TRUE"); /* invalid */
    EXPECT("(*UTF)(*LIMIT_MATCH=10)(*CRLF)foo", "\"foo\"");
    EXPECT("(*ACCEPT)foo", "TRUE");
    EXPECT("foo(*SKIP)bar", "TRUE");
    EXPECT("(*MARK:x)foo", "TRUE");
    EXPECT("(*pla:x)foo", "TRUE");
    EXPECT("foo(?C1)bar", "TRUE");
}

TEST(rxlit_fixed)
{
    EXPECT_F("a.b*c", MG_RX_FIXED, "\"a.b*c\"");
    EXPECT_F("foo(", MG_RX_FIXED, "\"foo(\"");
    EXPECT_F("ab", MG_RX_FIXED, "TRUE");
    EXPECT_F("(?i)x", MG_RX_FIXED, "\"(?i)x\"");
    EXPECT_F("dark", MG_RX_FIXED | MG_RX_CASELESS, "OR(\"dark\",\"dar\\xe2\\x84\\xaa\")");
    EXPECT_F("caf\xc3\xa9", MG_RX_FIXED | MG_RX_CASELESS, "\"caf\"");
}

/* ---- 3. caps, invalid patterns, format, eval ---------------------------- */

TEST(rxlit_invalid_patterns_are_true)
{
    const char *bad[] = {"foo(", "foo)", "[abc", "abc\\", "(?<n", "(?P", "\\x{zz}abc", ("\xff\xfe" "abc"),
                         "(?", "\\k", "\\g", "*abc", "abc{2}{3}"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) ASSERT_EQ_STR(rx(bad[i], 0), "TRUE");
}

TEST(rxlit_caps)
{
    /* nesting past 256 */
    char deep[1200];
    size_t n = 0;
    for (int i = 0; i < 300; i++) deep[n++] = '(';
    memcpy(deep + n, "abc", 3), n += 3;
    for (int i = 0; i < 300; i++) deep[n++] = ')';
    deep[n] = 0;
    ASSERT_EQ_STR(rx(deep, 0), "TRUE");
    /* 250 levels are fine */
    n = 0;
    for (int i = 0; i < 250; i++) deep[n++] = '(';
    memcpy(deep + n, "abc", 3), n += 3;
    for (int i = 0; i < 250; i++) deep[n++] = ')';
    deep[n] = 0;
    ASSERT_EQ_STR(rx(deep, 0), "\"abc\"");

    /* over 64 KiB of pattern */
    size_t big = 64 * 1024 + 1;
    char *p = malloc(big + 1);
    memset(p, 'a', big);
    p[big] = 0;
    ASSERT_EQ_STR(rx(p, 0), "TRUE");

    /* a long literal is kept whole up to the exact-string limit (1 KiB),
     * then split into an AND of pieces */
    uint32_t seed = 1;
    for (int i = 0; i < 5000; i++) {
        seed = seed * 1103515245u + 12345u;
        p[i] = (char)('a' + (seed >> 16) % 26);
    }
    p[5000] = 0;
    const char *f = rx(p, 0);
    ASSERT(strncmp(f, "AND(\"", 5) == 0);
    size_t quotes = 0;
    for (const char *q = f; *q; q++) quotes += *q == '"';
    ASSERT_EQ_INT(quotes, 10);
    struct mg_rx_node *node = NULL;
    ASSERT_EQ_INT(mg_rxlit_analyze(p, 5000, 0, &node, NULL), 0);
    ASSERT(mg_rxlit_eval(node, p, 5000));
    ASSERT(!mg_rxlit_eval(node, p + 1, 4999));
    mg_rxlit_free(&node);

    /* more than 4096 nodes: TRUE */
    size_t len = 0;
    for (int i = 0; i < 5000 && len + 16 < big; i++) len += (size_t)sprintf(p + len, "a%04db.*", i);
    ASSERT_EQ_STR(rx(p, 0), "TRUE");
    free(p);
}

TEST(rxlit_uses_len_not_nul)
{
    /* the pattern is not NUL-terminated: only len bytes count */
    char *p = malloc(6);
    memcpy(p, "foobar", 6);
    struct mg_rx_node *n = NULL;
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_rxlit_analyze(p, 4, 0, &n, &err), 0);
    char out[64];
    mg_rxlit_format(n, out, sizeof(out));
    ASSERT_EQ_STR(out, "\"foob\"");
    mg_rxlit_free(&n);
    ASSERT_EQ_INT(mg_rxlit_analyze(p, 3, MG_RX_FIXED, &n, &err), 0);
    mg_rxlit_format(n, out, sizeof(out));
    ASSERT_EQ_STR(out, "\"foo\"");
    mg_rxlit_free(&n);
    /* an embedded NUL is a literal byte */
    ASSERT_EQ_INT(mg_rxlit_analyze("ab\0cd", 5, 0, &n, &err), 0);
    mg_rxlit_format(n, out, sizeof(out));
    ASSERT_EQ_STR(out, "\"ab\\x00cd\"");
    mg_rxlit_free(&n);
    free(p);
}

TEST(rxlit_format_truncates)
{
    struct mg_rx_node *n = NULL;
    ASSERT_EQ_INT(mg_rxlit_analyze("foo|bar", 7, 0, &n, NULL), 0);
    char out[8];
    size_t need = mg_rxlit_format(n, out, sizeof(out));
    ASSERT_EQ_INT(need, strlen("OR(\"foo\",\"bar\")"));
    ASSERT_EQ_STR(out, "OR(\"foo");
    ASSERT_EQ_INT(mg_rxlit_format(n, NULL, 0), need);
    ASSERT_EQ_INT(mg_rxlit_format(n, out, 1), need);
    ASSERT_EQ_STR(out, "");
    mg_rxlit_free(&n);
    mg_rxlit_free(&n); /* safe on NULL */
}

TEST(rxlit_eval)
{
    struct mg_rx_node *n = NULL;
    ASSERT_EQ_INT(mg_rxlit_analyze("spin_lock.*(irq|bhx)", 20, 0, &n, NULL), 0);
    ASSERT(mg_rxlit_eval(n, "xx SPIN_LOCK_IRQ yy", 19));
    ASSERT(mg_rxlit_eval(n, "spin_lock ... bhx", 17));
    ASSERT(!mg_rxlit_eval(n, "spin_lock ... bh", 16));
    ASSERT(!mg_rxlit_eval(n, "spin_loc irq", 12));
    ASSERT(!mg_rxlit_eval(n, "", 0));
    mg_rxlit_free(&n);
    ASSERT_EQ_INT(mg_rxlit_analyze("a.", 2, 0, &n, NULL), 0);
    ASSERT_EQ_INT(n->op, MG_RX_TRUE);
    ASSERT(mg_rxlit_eval(n, "", 0));
    mg_rxlit_free(&n);
    ASSERT_EQ_INT(mg_rxlit_analyze("x\xc3\xa9y", 4, 0, &n, NULL), 0);
    ASSERT(mg_rxlit_eval(n, "aX\xc3\xa9Yb", 6));
    ASSERT(!mg_rxlit_eval(n, "x\xc3\x89y", 4)); /* only ASCII folds */
    mg_rxlit_free(&n);
}

/* Hostile 64 KiB patterns finish quickly (each cap ends in TRUE). */
TEST_T(rxlit_big_patterns_are_fast, 300)
{
    size_t n = 64 * 1024;
    char *p = malloc(n + 1);
    uint32_t seed = 7;
    const char *shapes[] = {"lit.", "lit+", "lit|", "(?=lit)", "(?i)lit.", "lit?"};
    for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
        size_t len = 0;
        while (len + 16 < n) {
            for (const char *q = shapes[s]; *q; q++) {
                seed = seed * 1103515245u + 12345u;
                p[len++] = strncmp(q, "lit", 3) == 0 ? (char)('a' + (seed >> 16) % 26) : *q;
                if (strncmp(q, "lit", 3) == 0) {
                    seed = seed * 1103515245u + 12345u;
                    p[len++] = (char)('a' + (seed >> 16) % 26);
                    seed = seed * 1103515245u + 12345u;
                    p[len++] = (char)('a' + (seed >> 16) % 26);
                    q += 2;
                }
            }
        }
        p[len] = 0;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        ASSERT_EQ_STR(rx(p, 0), "TRUE");
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double secs = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
        if (secs > 30) FAIL("shape %s took %.1f s", shapes[s], secs);
    }
    free(p);
}

/* ---- 4. soundness on chosen pairs --------------------------------------- */

TEST(rxlit_sound_pairs)
{
    static const struct {
        const char *pat, *subj;
        unsigned flags;
    } pairs[] = {
        {"(?i)kfree", "\xe2\x84\xaa" "FREE", 0},
        {"kfree", "\xe2\x84\xaa" "free", MG_RX_CASELESS},
        {"(?i)mask", "MA\xc5\xbf\xe2\x84\xaa", 0},
        {"(?i:s)yscall", "\xc5\xbfyscall", 0},
        {"a(?i)bc[ks]d", "aBCKd", 0},
        {"(?i)caf\xc3\xa9", "CAF\xc3\x89", 0},
        {"desk", "DES\xe2\x84\xaa", MG_RX_CASELESS | MG_RX_FIXED},
        {"spin_lock(_irq|_bh)?\\(", "spin_lock_bh(x)", 0},
        {"ab(?#c)+cd", "abbbcd", 0},
        {"\\Qab\\E+cd", "abbcd", 0},
        {"ab\\Q\\E{2}cd", "abbcd", 0},
        {"a{,3}bcd", "a{,3}bcd", 0},
        {"x{b}yz", "x{b}yz", 0},
        {"[]a]bcd", "]bcd", 0},
        {"[^]]xyz", "axyz", 0},
        {"[\\Q\\E]]abc", "]abc", 0},
        {"[\\Q]\\E]abc", "]abc", 0},
        {"[[:<:]]foo", "a foo", 0},
        {"foo\\Kbar", "foobar", 0},
        {"(?=foo)foobar", "foobar", 0},
        {"(?<=ab)cde", "abcde", 0},
        {"(a)(?(1)bcd|efg)", "abcd", 0},
        {"(abc)\\1\\1", "abcabcabc", 0},
        {"(?|(abc)|(def))\\1", "defdef", 0},
        {"\\x{263a}smile", "\xe2\x98\xbasmile", 0},
        {"\\101\\102\\103", "ABC", 0},
        {"^abc$", "x\nabc\ny", 0},
        {"abc\\Z", "abc\n", 0},
        {"foo\\Rbar", "foo\r\nbar", 0},
        {"(*CRLF)a.c", "abc", 0},
        {"(abc){2,}x", "abcabcabcx", 0},
        {"abc{0}de", "abde", 0},
        {"(?:ab|cd)*efg", "ababcdefg", 0},
        {"(x|)abc", "abc", 0},
        {"foo\\x00bar", "foo\0bar", 0},
        {"a\\Cbc", "axbc", 0},
        {"\\N{U+41}bcd", "Abcd", 0},
        {"(?<n>ab)x\\k<n>", "abxab", 0},
        {"(?i)\\x{212a}elvin", "kELVIN", 0},
        {"(?i)[k]ey", "\xe2\x84\xaa" "ey", 0},
        {"(?s)a.c", "a\nc", 0},
    };
    for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
        const char *p = pairs[i].pat, *s = pairs[i].subj;
        size_t slen = strlen(s);
        if (strcmp(p, "foo\\x00bar") == 0) slen = 7;
        int m = pcre_match(p, strlen(p), s, slen, pairs[i].flags);
        if (m != 1) FAIL("PCRE2 does not match /%s/ on \"%s\" (%d): fix the test", p, s, m);
        char fmt[1024];
        if (!rx_eval(p, strlen(p), s, slen, pairs[i].flags, fmt, sizeof(fmt)))
            FAIL("unsound: /%s/ matches \"%s\" but %s is false", p, s, fmt);
    }
}

/* ---- 5. soundness on random patterns ------------------------------------ */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(uint32_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state % n);
}

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

struct gbuf {
    char b[512]; /* text, NUL-terminated */
    size_t n;    /* its length */
};

static bool gadd(struct gbuf *g, const char *s)
{
    size_t n = strlen(s);
    bool fits = g->n + n < sizeof(g->b);
    if (fits) {
        memcpy(g->b + g->n, s, n);
        g->n += n;
    }
    g->b[g->n] = 0;
    return fits;
}

/* Subject pieces; also used for '.', classes and \d samples. */
static const char *const stok[] = {"a", "b", "c", "k", "s", "K", "S", "A", "B", "C", "\xe2\x84\xaa",
                                   "\xc5\xbf", "1", " ", "\n", ".", "|", "ab", "abc", "sk"};

/* A sample for literal letter ch: usually itself, sometimes another case or
 * the Unicode sign that matches it caselessly. */
static void sample_letter(struct gbuf *s, char ch)
{
    char one[2] = {ch, 0};
    uint32_t r = rnd(6);
    if (r == 0 && (ch | 0x20) == 'k') gadd(s, "\xe2\x84\xaa");
    else if (r == 0 && (ch | 0x20) == 's') gadd(s, "\xc5\xbf");
    else if (r == 1 && ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'z')) one[0] = (char)(ch ^ 0x20), gadd(s, one);
    else gadd(s, one);
}

static void gen_alt(struct gbuf *p, struct gbuf *s, int depth);

/* One item of the structured generator, with a sample it may match. */
static void gen_atom(struct gbuf *p, struct gbuf *s, int depth)
{
    static const char *const words[] = {"a", "b", "k", "s", "K", "S", "abc", "bar", "sk", "Kas",
                                        "ssk", "cab", "skab", "bask"};
    uint32_t r = rnd(depth < 2 ? 20 : 14);
    switch (r) {
    case 0: case 1: case 2: case 3: case 4: case 5: {
        const char *w = words[rnd(NELEM(words))];
        gadd(p, w);
        for (; *w; w++) sample_letter(s, *w);
        break;
    }
    case 6:
        gadd(p, ".");
        gadd(s, stok[rnd(NELEM(stok))]);
        break;
    case 7:
        gadd(p, rnd(2) ? "[ab]" : "[ks]");
        sample_letter(s, p->b[p->n - 3 + rnd(2)]);
        break;
    case 8:
        gadd(p, "\\d");
        gadd(s, "1");
        break;
    case 9:
        gadd(p, (const char *[]){"^", "$", "\\b", "\\B"}[rnd(4)]);
        if (rnd(3) == 0) gadd(s, "\n");
        break;
    case 10:
        gadd(p, "\\Qa.k\\E");
        gadd(s, "a.");
        sample_letter(s, 'k');
        break;
    case 11:
        gadd(p, "\\x{212a}");
        sample_letter(s, 'k');
        break;
    case 12:
        gadd(p, "(?#c)");
        break;
    case 13:
        gadd(p, "[^a]");
        gadd(s, stok[1 + rnd(NELEM(stok) - 1)]);
        break;
    default: { /* a group */
        static const char *const open[] = {"(", "(?:", "(?i:", "(?>", "(?=", "(?!", "(?<=ab)(", "(?|"};
        const char *o = open[rnd(NELEM(open))];
        gadd(p, o);
        struct gbuf inner = {.n = 0};
        gen_alt(p, &inner, depth + 1);
        gadd(p, ")");
        if (strcmp(o, "(?!") != 0 && strcmp(o, "(?=") != 0) gadd(s, inner.b);
        break;
    }
    }
}

/* Zero-width items PCRE2 refuses to quantify. */
static bool no_quant(const char *atom)
{
    return !strcmp(atom, "^") || !strcmp(atom, "$") || !strcmp(atom, "\\b") ||
           !strcmp(atom, "\\B") || !strcmp(atom, "(?#c)");
}

static void gen_seq(struct gbuf *p, struct gbuf *s, int depth)
{
    int n = 1 + (int)rnd(5);
    for (int i = 0; i < n; i++) {
        struct gbuf ap = {.n = 0}, as = {.n = 0};
        gen_atom(&ap, &as, depth);
        if (!gadd(p, ap.b)) return; /* pattern full */
        int reps = 1;
        uint32_t q = no_quant(ap.b) || ap.n == 0 ? 9 : rnd(14);
        if (q == 0) gadd(p, "*"), reps = (int)rnd(3);
        else if (q == 1) gadd(p, "+"), reps = 1 + (int)rnd(2);
        else if (q == 2) gadd(p, "?"), reps = (int)rnd(2);
        else if (q == 3) gadd(p, "{2}"), reps = 2;
        else if (q == 4) gadd(p, "{1,3}?"), reps = 1 + (int)rnd(3);
        else if (q == 5) gadd(p, "{0}"), reps = 0;
        for (int k = 0; k < reps; k++) gadd(s, as.b);
        if (rnd(12) == 0) gadd(p, "(?i)");
    }
}

static void gen_alt(struct gbuf *p, struct gbuf *s, int depth)
{
    int n = rnd(3) ? 1 : 2 + (int)rnd(2);
    int pick = (int)rnd((uint32_t)n);
    for (int i = 0; i < n; i++) {
        if (i) gadd(p, "|");
        struct gbuf bs = {.n = 0};
        gen_seq(p, &bs, depth);
        if (i == pick) gadd(s, bs.b);
    }
}

/* Token soup: mostly invalid or odd syntax. */
static void gen_soup(struct gbuf *p, struct gbuf *s)
{
    static const char *const ptok[] = {
        "a", "b", "c", "k", "s", "K", "S", "ab", "abc", "sk", ".", "|", "(", ")", "(?:", "*", "+",
        "?", "{2}", "{1,2}", "[ab]", "[^a]", "[ks]", "\\d", "(?i)", "^", "$", "\\b", "\\Qa.k\\E",
        "\\Q|s\\E", "*?", "(?=a", "(?!b", "\\x{212a}", "\xc5\xbf", "\\n", "(?#x)", "\\1", "{0}",
        "(?i:", "\\s", "[", "]", "\\E", "{", "}", ",", "[]", "[^]", "[[:", ":]]", "\\Q",
    };
    int nt = 1 + (int)rnd(10);
    for (int t = 0; t < nt; t++) gadd(p, ptok[rnd(NELEM(ptok))]);
    if (rnd(2)) {
        int ns = (int)rnd(12);
        for (int t = 0; t < ns; t++) gadd(s, stok[rnd(NELEM(stok))]);
    } else {
        for (size_t i = 0; i < p->n; i++) {
            char ch = p->b[i];
            if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')) sample_letter(s, ch);
            else if (rnd(3) == 0) gadd(s, stok[rnd(NELEM(stok))]);
        }
    }
}

TEST_T(rxlit_sound_random, 600)
{
    size_t compiled = 0, matched = 0, nontrivial = 0;
    for (int iter = 0; iter < 100000; iter++) {
        struct gbuf p = {.n = 0}, s = {.n = 0}, body = {.n = 0};
        if (rnd(3)) {
            if (rnd(4) == 0) gadd(&s, stok[rnd(NELEM(stok))]);
            gen_alt(&p, &body, 0);
            gadd(&s, body.b);
            if (rnd(4) == 0) gadd(&s, stok[rnd(NELEM(stok))]);
        } else {
            gen_soup(&p, &s);
        }
        unsigned flags = 0;
        if (rnd(4) == 0) flags |= MG_RX_CASELESS;
        if (rnd(16) == 0) flags |= MG_RX_FIXED;
        int m = pcre_match(p.b, p.n, s.b, s.n, flags);
        if (m >= 0) compiled++;
        if (m != 1) continue;
        matched++;
        char fmt[4096];
        if (!rx_eval(p.b, p.n, s.b, s.n, flags, fmt, sizeof(fmt)))
            FAIL("unsound at iteration %d: flags %u /%s/ matches \"%s\" but %s is false", iter, flags,
                 p.b, s.b, fmt);
        if (strcmp(fmt, "TRUE") != 0) nontrivial++;
    }
    printf("random: %zu compiled, %zu matched, %zu of them with a formula other than TRUE\n",
           compiled, matched, nontrivial);
    ASSERT_GE_INT(matched, 20000);
    ASSERT_GE_INT(nontrivial, 5000);
}
