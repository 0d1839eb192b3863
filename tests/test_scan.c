/* test_scan.c — the secret scanner (src/security/scan.c) and `memgate scan`.
 *
 * The corpus test measures recall and precision against the labels of
 * tests/secrets/labels.tsv (planted fake secrets; every other line of the
 * corpus is a negative) and asserts both >= 0.98. */
#include "test.h"

#include <dirent.h>
#include <ftw.h>
#include <pthread.h>
#include <sys/stat.h>

#include "security/scan.h"
#include "security/sanitize.h"
#include "security/secrets.h"

/* ---- helpers ------------------------------------------------------------------ */

struct got {
    char rule[8][64];
    unsigned line[8];
    size_t start[8], end[8];
    int sev[8];
    int n;
};

static int collect(const struct mg_finding *f, void *ud)
{
    struct got *g = ud;
    if (g->n < 8) {
        snprintf(g->rule[g->n], sizeof(g->rule[0]), "%s", f->rule);
        g->line[g->n] = f->line;
        g->start[g->n] = f->start;
        g->end[g->n] = f->end;
        g->sev[g->n] = (int)f->sev;
    }
    g->n++;
    return 0;
}

static struct got scan_str(const struct mg_scanner *s, const char *text)
{
    struct got g = {0};
    struct mg_err err = {0};
    int n = mg_scan(s, text, strlen(text), collect, &g, &err);
    if (n < 0) FAIL("mg_scan: %s: %s", err.code, err.msg);
    ASSERT_EQ_INT(n, g.n);
    return g;
}

static const struct mg_scanner *dflt(void)
{
    const struct mg_scanner *s = mg_scanner_default();
    if (!s) FAIL("the built-in rules did not compile (see stderr)");
    return s;
}

/* A scanner of these rules; the test fails when they do not load. */
static struct mg_scanner *custom(const char *rules)
{
    struct mg_scanner *s = NULL;
    struct mg_err err = {0};
    if (mg_scanner_new(rules, strlen(rules), &s, &err) != 0) FAIL("%s", err.msg);
    return s;
}

/* ---- the corpus: recall and precision ------------------------------------------ */

#define MAXF 4096
static struct { char path[512]; unsigned line; char rule[64]; int hit; } labels[MAXF], found[MAXF];
static int nlabels, nfound;
static const char *corpus_root = "tests/secrets/corpus";

static int corpus_cb(const struct mg_finding *f, void *ud)
{
    const char *path = ud;
    if (nfound > 0 && strcmp(found[nfound - 1].path, path) == 0 && found[nfound - 1].line == f->line) return 0;
    if (nfound == MAXF) FAIL("too many findings in the corpus");
    snprintf(found[nfound].path, sizeof(found[0].path), "%s", path);
    found[nfound].line = f->line;
    snprintf(found[nfound].rule, sizeof(found[0].rule), "%s", f->rule);
    nfound++;
    return 0;
}

/* The file p (st its stat) read whole into a malloc'd buffer, *n its bytes. */
static char *read_whole(const char *p, const struct stat *st, size_t *n)
{
    FILE *f = fopen(p, "rb");
    if (!f) FAIL("open %s", p);
    char *buf = malloc((size_t)st->st_size + 1);
    *n = fread(buf, 1, (size_t)st->st_size, f);
    fclose(f);
    return buf;
}

static int walk_cb(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)ftw;
    if (flag != FTW_F || !S_ISREG(st->st_mode)) return 0;
    size_t n;
    char *buf = read_whole(p, st, &n);
    const char *rel = p + strlen(corpus_root) + 1;
    struct mg_err err = {0};
    if (mg_scan(dflt(), buf, n, corpus_cb, (void *)rel, &err) < 0) FAIL("scan %s: %s", p, err.msg);
    free(buf);
    return 0;
}

TEST(scan_corpus_recall_precision)
{
    FILE *f = fopen("tests/secrets/labels.tsv", "r");
    if (!f) FAIL("tests/secrets/labels.tsv is missing (run from the repo root)");
    char line[1024];
    while (fgets(line, sizeof(line), f)) {
        if (line[0] == '#' || line[0] == '\n') continue;
        if (nlabels == MAXF) FAIL("too many labels");
        if (sscanf(line, "%511[^\t]\t%u\t%63s", labels[nlabels].path, &labels[nlabels].line, labels[nlabels].rule) != 3)
            FAIL("bad label line: %s", line);
        nlabels++;
    }
    fclose(f);
    ASSERT_GE_INT(nlabels, 150);
    if (nftw(corpus_root, walk_cb, 16, FTW_PHYS) != 0) FAIL("walking %s", corpus_root);
    int tp = 0, same_rule = 0;
    for (int i = 0; i < nfound; i++)
        for (int j = 0; j < nlabels; j++)
            if (!labels[j].hit && labels[j].line == found[i].line && strcmp(labels[j].path, found[i].path) == 0) {
                labels[j].hit = found[i].hit = 1;
                tp++;
                if (strcmp(labels[j].rule, found[i].rule) == 0) same_rule++;
                break;
            }
    for (int i = 0; i < nfound; i++)
        if (!found[i].hit) printf("false positive: %s:%u %s\n", found[i].path, found[i].line, found[i].rule);
    for (int j = 0; j < nlabels; j++)
        if (!labels[j].hit) printf("missed: %s:%u %s\n", labels[j].path, labels[j].line, labels[j].rule);
    double recall = (double)tp / nlabels, precision = nfound ? (double)tp / nfound : 0;
    printf("corpus: %d labels, %d findings, %d true (%d by the labelled rule): recall %.3f, precision %.3f\n", nlabels,
           nfound, tp, same_rule, recall, precision);
    if (recall < 0.98 || precision < 0.98) FAIL("recall %.3f and precision %.3f must both be >= 0.98", recall, precision);
}

/* ---- the built-in rules ----------------------------------------------------------- */

TEST(scan_builtin_rules)
{
    const struct mg_scanner *s = dflt();
    ASSERT_GE_INT(mg_scanner_rule_count(s), 150);
    ASSERT(mg_scanner_default() == s); /* loaded once */
    size_t len;
    const char *text = mg_scanner_builtin_rules(&len);
    ASSERT(len > 10000);
    ASSERT_EQ_INT(strlen(text), len);
    ASSERT_CONTAINS(text, "rule aws-access-key-id");
    /* the default scanner compiles the built-in regexes when first used;
     * given as text they are compiled at load, so every one is checked here */
    struct mg_scanner *eager = NULL;
    struct mg_err err = {0};
    if (mg_scanner_new(text, len, &eager, &err) != 0) FAIL("the built-in rules do not compile: %s", err.msg);
    ASSERT_EQ_INT(mg_scanner_rule_count(eager), mg_scanner_rule_count(s));
    mg_scanner_free(eager);
}

/* ---- the rules-file parser: every error names its line ------------------------------- */

static void expect_bad(const char *text, const char *want)
{
    struct mg_scanner *s = NULL;
    struct mg_err err = {0};
    if (mg_scanner_new(text, strlen(text), &s, &err) == 0) {
        mg_scanner_free(s);
        FAIL("rules were accepted, expected an error containing \"%s\":\n%s", want, text);
    }
    ASSERT(s == NULL);
    ASSERT_EQ_STR(err.code, "invalid_rules");
    ASSERT_CONTAINS(err.msg, want);
}

#define OK_RULE "rule r1\ndescription = d\nkeywords = abc\npattern = abc[0-9]{4}\n"

TEST(scan_rules_parser_errors)
{
    expect_bad("", "rules line 0: no rules");
    expect_bad("# only a comment\n", "rules line 1: no rules");
    expect_bad("description = x\n", "rules line 1: field 'description' outside a rule");
    expect_bad(OK_RULE "bogus line\n", "rules line 5: expected 'rule ID'");
    expect_bad(OK_RULE "colour = red\n", "rules line 5: unknown field 'colour'");
    expect_bad(OK_RULE "severity = urgent\n", "rules line 5: severity 'urgent'");
    expect_bad(OK_RULE "entropy = 9\n", "rules line 5: entropy '9'");
    expect_bad(OK_RULE "entropy = x\n", "rules line 5: entropy 'x'");
    expect_bad(OK_RULE "group = 2\n", "rules line 1: rule 'r1' has group 2 but its pattern has 0 capture groups");
    expect_bad(OK_RULE "group = 1, 2, 3, 4, 5\n", "rules line 5: group wants 1 to 4");
    expect_bad(OK_RULE "lines = 0\n", "rules line 5: lines '0'");
    expect_bad(OK_RULE "pattern = x\n", "rules line 5: rule 'r1' has a second 'pattern'");
    expect_bad(OK_RULE "keywords = ,\n", "rules line 5");
    expect_bad(OK_RULE "allow = (\n", "rules line 5: allow regex does not compile");
    expect_bad(OK_RULE "allowlists = nope\n", "rules line 5: no allowlist named 'nope'");
    expect_bad(OK_RULE "rule r1\n", "rules line 5: rule id 'r1' is already used at line 1");
    expect_bad(OK_RULE "rule Bad!\n", "rules line 5: rule id 'Bad!'");
    expect_bad("rule r1\ndescription = d\nkeywords = a\n", "rules line 1: rule 'r1' has no pattern");
    expect_bad("rule r1\nkeywords = a\npattern = a\n", "rules line 1: rule 'r1' has no description");
    expect_bad("rule r1\ndescription = d\npattern = a\n", "rules line 1: rule 'r1' has no keywords");
    expect_bad("rule r1\ndescription = d\nkeywords = a\npattern = (abc\n", "rules line 4: the pattern of rule 'r1' does not compile");
    expect_bad("rule r1\ndescription = d\nkeywords = a\npattern =\n", "rules line 4: field 'pattern' has no value");
    expect_bad(OK_RULE "allowlist late\n", "rules line 5: allowlist 'late' comes after a rule");
    expect_bad("allowlist a\nallow = x\nallowlist a\n", "rules line 3: allowlist 'a' is defined twice");
    expect_bad("allowlist a\ncolour = x\n", "rules line 2: unknown allowlist field 'colour'");
    /* Vectorscan rejects a pattern PCRE2 accepts: one that matches the empty string */
    expect_bad("rule empty\ndescription = d\nkeywords = a\npattern = a?\n", "rules line 4: rule 'empty': Vectorscan cannot compile");
    /* caps */
    char *big = malloc(MG_RULES_MAX_LINE + 100);
    memset(big, 'a', MG_RULES_MAX_LINE + 99);
    big[MG_RULES_MAX_LINE + 99] = 0;
    expect_bad(big, "rules line 1: longer than 8192 bytes");
    free(big);
    const char nul[] = "rule r\0x\n";
    struct mg_scanner *s = NULL;
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_scanner_new(nul, sizeof(nul) - 1, &s, &err), -1);
    ASSERT_CONTAINS(err.msg, "rules line 1: contains a NUL byte");
    ASSERT_EQ_INT(mg_scanner_new("x", MG_RULES_MAX_BYTES + 1, &s, &err), -1);
    ASSERT_CONTAINS(err.msg, "over the");
    /* and a good one loads */
    ASSERT_EQ_INT(mg_scanner_new(OK_RULE, strlen(OK_RULE), &s, &err), 0);
    ASSERT_EQ_INT(mg_scanner_rule_count(s), 1);
    struct got g = scan_str(s, "x abc1234 y\nabc12\n");
    ASSERT_EQ_INT(g.n, 1);
    ASSERT_EQ_INT(g.start[0], 2);
    ASSERT_EQ_INT(g.end[0], 9);
    mg_scanner_free(s);
    /* a missing file */
    ASSERT_EQ_INT(mg_scanner_load("/nonexistent/rules", &s, &err), -1);
    ASSERT_EQ_STR(err.code, "path_not_found");
}

/* ---- entropy, keywords, allowlists ---------------------------------------------------- */

TEST(scan_entropy_and_allowlists)
{
    ASSERT(mg_shannon_entropy("aaaaaaaa", 8) == 0);
    ASSERT(mg_shannon_entropy("abcd", 4) > 1.99 && mg_shannon_entropy("abcd", 4) < 2.01);
    const struct mg_scanner *s = dflt();
    /* provider tokens */
    struct got g = scan_str(s, "token = \"ghp_Zq3Rk8Lm2Nx7Pv4Tw9Yb1Cd5Fg6Hj0KsA2Eu\"\n");
    ASSERT_EQ_INT(g.n, 1);
    ASSERT_EQ_STR(g.rule[0], "github-pat");
    ASSERT_EQ_INT(g.line[0], 1);
    /* entropy floor: a run of one character is shaped right but not random */
    ASSERT_EQ_INT(scan_str(s, "ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n").n, 0);
    /* documented examples, placeholders, templates */
    static const char *negatives[] = {
        "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\n",
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n",
        "password = \"${DB_PASSWORD}\"\n",
        "password = \"$DB_PASSWORD\"\n",
        "password: \"{{ .Values.db.password }}\"\n",
        "api_key = \"<your-api-key>\"\n",
        "api_key = \"your_api_key_here\"\n",
        "password = \"changeme\"\n",
        "secret = \"xxxxxxxxxxxxxxxxxxxxxxxx\"\n",
        "client_secret = \"0123456789abcdef0123456789abcdef01234567\"\n",     /* hex digest, generic rule */
        "auth_token = \"3f2b8a9c-1d4e-4f6a-9b7c-2e5d8a1f3c6b\"\n",          /* UUID, generic rule */
        "      \"integrity\": \"sha512-Zq3Rk8Lm2Nx7Pv4Tw9Yb1Cd5Fg6Hj0KsA2EuZq3Rk8Lm2Nx7Pv4Tw9Yb1Cd5Fg6Hj0KsA2Eu==\",\n",
        "<img src=\"data:image/png;base64,ghp_Zq3Rk8Lm2Nx7Pv4Tw9Yb1Cd5Fg6Hj0KsA2Eu\">\n",
        "password = getpass.getpass()\n",
        "if (password == \"\") return;\n",
        "-----BEGIN RSA PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----\n",
    };
    for (size_t i = 0; i < sizeof(negatives) / sizeof(negatives[0]); i++) {
        g = scan_str(s, negatives[i]);
        if (g.n) FAIL("negative #%zu found by %s: %s", i, g.rule[0], negatives[i]);
    }
    /* the same shapes with real-looking values are found */
    ASSERT_EQ_INT(scan_str(s, "aws_access_key_id = AKIAQ3EGRZ7XJ5MWB2LP\n").n, 1);
    ASSERT_EQ_INT(scan_str(s, "password = \"Wq7#kP2!vR9zLm\"\n").n, 1);
    ASSERT_EQ_INT(scan_str(s, "client_secret = \"Zq3Rk8Lm2Nx7Pv4Tw9Yb1Cd5Fg6Hj0KsA2Eu\"\n").n, 1);

    /* a rule's own allowlist and keywords, and multi-line windows */
    const char *rules = "allowlist common\nallow = ^tok_0+$\n"
                        "rule t\ndescription = a token\nseverity = low\nkeywords = tok_\npattern = \\b(tok_[0-9a-z]{8})\\b\ngroup = 1\n"
                        "allow_line = (?i)fixture\nentropy = 2\n"
                        "rule block\ndescription = a block\nkeywords = begin\npattern = (BEGIN\\n[a-z\\n]{10,}?END)\nlines = 10\n"
                        "rule kw\ndescription = keyword check\nkeywords = zzz\npattern = qq[0-9]{6}\n";
    struct mg_scanner *c = custom(rules);
    ASSERT_EQ_INT(scan_str(c, "x tok_a1b2c3d4 y\n").n, 1);
    ASSERT_EQ_INT(scan_str(c, "x tok_00000000 y\n").n, 0);     /* common allowlist */
    ASSERT_EQ_INT(scan_str(c, "fixture: tok_a1b2c3d4\n").n, 0); /* allow_line */
    ASSERT_EQ_INT(scan_str(c, "x tok_aaaaaaaa y\n").n, 0);      /* entropy */
    g = scan_str(c, "one\nBEGIN\nabcdef\nghijkl\nEND\n");
    ASSERT_EQ_INT(g.n, 1);
    ASSERT_EQ_STR(g.rule[0], "block");
    ASSERT_EQ_INT(g.line[0], 2);
    ASSERT_EQ_INT(scan_str(c, "qq123456\n").n, 0); /* no keyword in the match */
    mg_scanner_free(c);
}

/* ---- the first pass: keywords and prefilter find the same ------------------------------- */

/* Every finding of the corpus (rule, start, end, as text) into out. */
static int first_pass_cb(const struct mg_finding *f, void *ud)
{
    mg_buf_addf(ud, "%s %zu %zu\n", f->rule, f->start, f->end);
    return 0;
}

static void first_pass_scan(const struct mg_scanner *s, const char *buf, size_t n, struct mg_buf *out)
{
    struct mg_err err = {0};
    if (mg_scan(s, buf, n, first_pass_cb, out, &err) < 0) FAIL("mg_scan: %s", err.msg);
}

static const struct mg_scanner *fp_all, *fp_pre;
static struct mg_buf fp_a, fp_b;
static long fp_files, fp_findings;

/* A corpus file and variants of it (lines joined, CRLF, doubled) scanned by
 * both scanners: the findings must be the same. */
static int first_pass_walk(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)ftw;
    if (flag != FTW_F || !S_ISREG(st->st_mode)) return 0;
    FILE *f = fopen(p, "rb");
    if (!f) FAIL("open %s", p);
    size_t n = (size_t)st->st_size;
    char *buf = malloc(3 * n + 2), *v = malloc(3 * n + 2);
    if (fread(buf, 1, n, f) != n) FAIL("read %s", p);
    fclose(f);
    for (int variant = 0; variant < 4; variant++) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
            if (variant == 1 && buf[i] == '\n' && i % 3 == 0) { v[m++] = ' '; continue; } /* some lines joined */
            if (variant == 2 && buf[i] == '\n') v[m++] = '\r';
            v[m++] = buf[i];
        }
        if (variant == 3) { /* the file twice, as one line the second time */
            v[m++] = '\n';
            for (size_t i = 0; i < n; i++) v[m++] = buf[i] == '\n' ? ';' : buf[i];
        }
        mg_buf_reset(&fp_a);
        mg_buf_reset(&fp_b);
        first_pass_scan(fp_all, v, m, &fp_a);
        first_pass_scan(fp_pre, v, m, &fp_b);
        if (strcmp(fp_a.p, fp_b.p) != 0)
            FAIL("%s (variant %d): keywords found\n%s\nthe prefilter alone found\n%s", p, variant, fp_a.p, fp_b.p);
        for (const char *q = fp_a.p; *q; q++) fp_findings += *q == '\n';
    }
    fp_files++;
    free(buf);
    free(v);
    return 0;
}

/* Allowlist patterns Vectorscan rejects are remembered in the cache
 * (`.rej` beside the databases), so the next process does not compile the
 * whole set again to find them; a scanner built with them, or with a
 * damaged file, finds what one built without the cache finds. */
TEST(scan_cache_remembers_rejected_patterns)
{
    setenv("MEMGATE_SHIPPED_RULES", "off", 1); /* the cache, not the databases compiled in */
    char *dir = mg_t_tmpdir();
    size_t len;
    const char *rules = mg_scanner_builtin_rules(&len);
    struct mg_scanner *plain = NULL, *first = NULL, *second = NULL, *damaged = NULL;
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_scanner_new(rules, len, &plain, &err), 0); /* (no cache dir yet) */
    mg_scanner_cache_dir(dir);
    ASSERT_EQ_INT(mg_scanner_new(rules, len, &first, &err), 0);
    int nrej = 0;
    char rej[4][4200];
    DIR *dp = opendir(dir);
    ASSERT(dp);
    for (struct dirent *de; (de = readdir(dp));)
        if (strlen(de->d_name) > 4 && strcmp(de->d_name + strlen(de->d_name) - 4, ".rej") == 0 && nrej < 4)
            snprintf(rej[nrej++], sizeof(rej[0]), "%s/%s", dir, de->d_name);
    closedir(dp);
    ASSERT(nrej > 0); /* the built-in allowlists hold patterns only PCRE2 takes */
    ASSERT_EQ_INT(mg_scanner_new(rules, len, &second, &err), 0);
    for (int i = 0; i < nrej; i++) {
        FILE *f = fopen(rej[i], "ab");
        ASSERT(f);
        uint32_t junk[3] = {0, 4000000000u, 7};
        fwrite(junk, 1, sizeof(junk) - 1, f); /* indexes past the set and a torn one */
        fclose(f);
    }
    /* the cached databases are mapped and used in place, guarded by their
     * hash: a flipped byte in each makes them recompiled, not trusted */
    int nimg = 0;
    dp = opendir(dir);
    ASSERT(dp);
    for (struct dirent *de; (de = readdir(dp));) {
        size_t l = strlen(de->d_name);
        if (l < 6 || strcmp(de->d_name + l - 6, ".hsimg") != 0) continue;
        char p[4200];
        snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
        FILE *f = fopen(p, "r+b");
        ASSERT(f);
        fseek(f, 0, SEEK_END);
        long at = ftell(f) / 2;
        fseek(f, at, SEEK_SET);
        int c = fgetc(f);
        fseek(f, at, SEEK_SET);
        fputc(c ^ 0x5a, f);
        fclose(f);
        nimg++;
    }
    closedir(dp);
    ASSERT(nimg >= 2);
    ASSERT_EQ_INT(mg_scanner_new(rules, len, &damaged, &err), 0);
    static const char *texts[] = {
        "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\n", "password = \"${DB_PASSWORD}\"\n",
        "api_key = \"<your-api-key>\"\n", "secret = \"xxxxxxxxxxxxxxxxxxxxxxxx\"\n",
        "aws_access_key_id = AKIAQ3EGRZ7XJ5MWB2LP\n", "password = \"Wq7#kP2!vR9zLm\"\n",
        "token = \"ghp_Zq3Rk8Lm2Nx7Pv4Tw9Yb1Cd5Fg6Hj0KsA2Eu\"\n",
    };
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        int want = scan_str(plain, texts[i]).n;
        ASSERT_EQ_INT(scan_str(first, texts[i]).n, want);
        ASSERT_EQ_INT(scan_str(second, texts[i]).n, want);
        ASSERT_EQ_INT(scan_str(damaged, texts[i]).n, want);
    }
    mg_scanner_cache_dir(NULL);
    mg_scanner_free(plain);
    mg_scanner_free(first);
    mg_scanner_free(second);
    mg_scanner_free(damaged);
}

/* The built-in rule sets' databases are compiled into the binary at build
 * time for any CPU (src/rulesdb.c): a scanner of the built-in rules compiles
 * nothing (its cache stays empty) and finds exactly what one compiled at run
 * time for this CPU finds, on the labelled corpus and on the tests' own
 * sources (full of fake keys); rules that differ are compiled, not given
 * the shipped database of another set. */
static int dir_files(const char *dir)
{
    int n = 0;
    DIR *dp = opendir(dir);
    if (!dp) return 0;
    for (struct dirent *de; (de = readdir(dp));) n += de->d_name[0] != '.';
    closedir(dp);
    return n;
}

static const struct mg_scanner *cmp_a, *cmp_b;
static int cmp_files, cmp_findings;

struct all_found {
    size_t k;
    struct {
        size_t start, end;
        unsigned line;
        char rule[64];
    } f[512];
};

static int all_cb(const struct mg_finding *f, void *ud)
{
    struct all_found *g = ud;
    if (g->k < 512) {
        g->f[g->k].start = f->start;
        g->f[g->k].end = f->end;
        g->f[g->k].line = f->line;
        snprintf(g->f[g->k].rule, sizeof(g->f[0].rule), "%s", f->rule);
        g->k++;
    }
    return 0;
}

static int cmp_cb(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)ftw;
    if (flag != FTW_F || !S_ISREG(st->st_mode) || st->st_size > (1 << 20)) return 0;
    size_t n;
    char *buf = read_whole(p, st, &n);
    static struct all_found ga, gb;
    ga.k = gb.k = 0;
    struct mg_err err = {0};
    if (mg_scan(cmp_a, buf, n, all_cb, &ga, &err) < 0 || mg_scan(cmp_b, buf, n, all_cb, &gb, &err) < 0)
        FAIL("scan %s: %s", p, err.msg);
    if (ga.k != gb.k) FAIL("%s: %zu findings with the shipped databases, %zu with compiled ones", p, ga.k, gb.k);
    for (size_t i = 0; i < ga.k; i++)
        if (ga.f[i].start != gb.f[i].start || ga.f[i].end != gb.f[i].end || strcmp(ga.f[i].rule, gb.f[i].rule) != 0)
            FAIL("%s:%u: %s at %zu with the shipped databases, %s at %zu compiled", p, ga.f[i].line, ga.f[i].rule,
                 ga.f[i].start, gb.f[i].rule, gb.f[i].start);
    cmp_files++;
    cmp_findings += (int)ga.k;
    free(buf);
    return 0;
}

TEST(scan_shipped_databases_compile_nothing_and_find_the_same)
{
    size_t len;
    const char *rules = mg_scanner_builtin_rules(&len);
    char *shipped_dir = mg_t_tmpdir(), *compiled_dir = mg_t_tmpdir(), *other_dir = mg_t_tmpdir();
    struct mg_scanner *shipped = NULL, *compiled = NULL, *other = NULL;
    struct mg_err err = {0};
    mg_scanner_cache_dir(shipped_dir);
    ASSERT_EQ_INT(mg_scanner_new(rules, len, &shipped, &err), 0);
    ASSERT_EQ_INT(dir_files(shipped_dir), 0); /* nothing compiled, nothing cached */
    ASSERT(mg_injection_prepare());
    ASSERT_EQ_INT(dir_files(shipped_dir), 0);
    /* another rule set is its own: compiled and cached */
    mg_scanner_cache_dir(other_dir);
    char *more = malloc(len + 200);
    snprintf(more, len + 200, "%s\nrule shipped-test\ndescription = a test\nkeywords = zq\npattern = zq[0-9]{12}\n", rules);
    ASSERT_EQ_INT(mg_scanner_new(more, strlen(more), &other, &err), 0);
    ASSERT_GE_INT(dir_files(other_dir), 1);
    ASSERT_EQ_INT(scan_str(other, "id zq123456789012\n").n, 1);
    /* the same rules compiled here */
    setenv("MEMGATE_SHIPPED_RULES", "off", 1);
    mg_scanner_cache_dir(compiled_dir);
    ASSERT_EQ_INT(mg_scanner_new(rules, len, &compiled, &err), 0);
    ASSERT_GE_INT(dir_files(compiled_dir), 2);
    mg_scanner_cache_dir(NULL);
    cmp_a = shipped;
    cmp_b = compiled;
    if (nftw("tests/secrets/corpus", cmp_cb, 16, FTW_PHYS) != 0 || nftw("tests", cmp_cb, 16, FTW_PHYS) != 0)
        FAIL("walking tests/");
    printf("%d files, %d findings, the same both ways\n", cmp_files, cmp_findings);
    ASSERT_GE_INT(cmp_findings, 200);
    mg_scanner_free(shipped);
    mg_scanner_free(compiled);
    mg_scanner_free(other);
    free(more);
}

TEST(scan_first_pass_keywords)
{
    /* The built-in rules, and the same with one more keyword on every rule,
     * a word found nowhere: used by every rule, it is common, so every rule
     * is found by its prefiltered pattern alone (and the keyword check is
     * unchanged). A finding the keyword pass dropped would differ. */
    size_t len;
    const char *text = mg_scanner_builtin_rules(&len);
    struct mg_buf r;
    mg_buf_init(&r, 8u << 20);
    for (const char *l = text; l < text + len;) {
        const char *e = memchr(l, '\n', (size_t)(text + len - l));
        size_t k = e ? (size_t)(e - l) : (size_t)(text + len - l);
        mg_buf_add(&r, l, k);
        if (k > 8 && strncmp(l, "keywords", 8) == 0) mg_buf_addf(&r, ", qqnowhereqq");
        mg_buf_add(&r, "\n", 1);
        l += k + 1;
    }
    struct mg_scanner *pre = NULL;
    struct mg_err err = {0};
    if (mg_scanner_new(r.p, r.len, &pre, &err) != 0) FAIL("%s", err.msg);
    mg_buf_release(&r);
    fp_all = dflt();
    fp_pre = pre;
    mg_buf_init(&fp_a, 1 << 24);
    mg_buf_init(&fp_b, 1 << 24);
    if (nftw(corpus_root, first_pass_walk, 16, FTW_PHYS) != 0) FAIL("walking %s", corpus_root);
    printf("first pass: %ld files x 4 variants, %ld findings, the same either way\n", fp_files, fp_findings);
    ASSERT_GE_INT(fp_findings, 4 * 200);
    mg_buf_release(&fp_a);
    mg_buf_release(&fp_b);
    mg_scanner_free(pre);

    /* Rules found by keywords: a keyword two rules share; the keyword after
     * the secret, in either case; several matches on a line; a line longer
     * than the window cap with keywords all along it. */
    const char *rules = "rule digits\ndescription = d\nkeywords = zork_\npattern = \\b(zork_[0-9]{6})\\b\ngroup = 1\n"
                        "rule letters\ndescription = l\nkeywords = zork_\npattern = \\b(zork_[a-z]{6})\\b\ngroup = 1\n"
                        "rule suffix\ndescription = s\nkeywords = _plugh\npattern = (?i)\\b([A-Z0-9]{10})_plugh\\b\ngroup = 1\n";
    struct mg_scanner *c = custom(rules);
    struct got g = scan_str(c, "a zork_123456 b zork_abcdef c zork_654321\nZORK_999999 and 7GQ2KX9PLM_plugh, 7gq2kx9plm_PLUGH\n");
    ASSERT_EQ_INT(g.n, 5); /* (the pattern is case-sensitive: ZORK_999999 has the keyword, not a match) */
    ASSERT_EQ_STR(g.rule[0], "digits");
    ASSERT_EQ_STR(g.rule[1], "letters");
    ASSERT_EQ_STR(g.rule[2], "digits");
    ASSERT_EQ_INT(g.line[3], 2);
    ASSERT_EQ_STR(g.rule[3], "suffix");
    ASSERT_EQ_STR(g.rule[4], "suffix");
    size_t n = 100000;
    char *line = malloc(n + 64);
    for (size_t i = 0; i < n; i++) line[i] = i % 50 < 5 ? "zork_"[i % 50] : 'x'; /* a keyword every 50 bytes */
    memcpy(line + n - 40, " zork_424242 ", 13);
    memcpy(line + 20000, " zork_171717 ", 13);
    line[n] = 0;
    g = scan_str(c, line);
    ASSERT_EQ_INT(g.n, 2);
    ASSERT_EQ_INT(g.start[0], 20001);
    ASSERT_EQ_INT(g.start[1], n - 39);
    free(line);
    mg_scanner_free(c);

    /* Built-in multi-line rules keep their prefilter: a PuTTY key (its
     * keyword on its first line only), and a PEM key after a comment that
     * names it a few lines before. */
    const struct mg_scanner *s = dflt();
    g = scan_str(s, "# the rsa private key below is a fixture\n\n"
                    "-----BEGIN RSA PRIVATE KEY-----\n"
                    "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n"
                    "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n"
                    "-----END RSA PRIVATE KEY-----\n");
    ASSERT_EQ_INT(g.n, 1);
    ASSERT_EQ_STR(g.rule[0], "private-key-rsa");
    ASSERT_EQ_INT(g.line[0], 3);
    FILE *f = fopen("tests/secrets/corpus/keys/jumphost.ppk", "rb");
    if (!f) FAIL("tests/secrets/corpus/keys/jumphost.ppk is missing");
    char ppk[4096];
    size_t k = fread(ppk, 1, sizeof(ppk) - 1, f);
    fclose(f);
    ppk[k] = 0;
    g = scan_str(s, ppk);
    ASSERT_EQ_INT(g.n, 1);
    ASSERT_EQ_STR(g.rule[0], "private-key-putty");
}

/* The first pass's forms of prefilter patterns. Patterns that end in an
 * open repeat are compiled with it cut (X+ -> X, X{m,} -> X{m}), so a long
 * value gives one first-pass hit, not one per byte. The matches must not
 * change: the whole value, wherever it ends on the line; in each
 * alternative; values one after another; and where nothing is cut: a
 * repeat before more pattern, in a repeated group, of a class that can
 * match '\n'. */
TEST(scan_prefilter_forms)
{
    const char *rules = /* "zz" and "qq" have 2 bytes: common, so these go by their patterns */
        "rule plus\ndescription = p\nkeywords = zz\npattern = zz=([a-z0-9]+)\ngroup = 1\n"
        "rule alts\ndescription = a\nkeywords = qq\npattern = (?i)qq(?::([0-9]{4,})|#([a-f]{3,9})|@((?:ab+){2}))\ngroup = 1, 2, 3\n"
        "rule mid\ndescription = m\nkeywords = ww\npattern = ww=([a-z]+);\ngroup = 1\n"
        "rule nl\ndescription = n\nkeywords = yy\npattern = yy<([^>]{3,})>\ngroup = 1\n";
    struct mg_scanner *c = custom(rules);
    const char *t = "x zz=abc123 zz=q, QQ:12345678 qq#abcdefabc qq@abbabbb. ww=abcdef;\nyy<one\ntwo> zz=end";
    struct got g = scan_str(c, t);
    ASSERT_EQ_INT(g.n, 7);
    const char *want[][2] = {{"plus", "abc123"}, {"plus", "q"},   {"alts", "12345678"}, {"alts", "abcdefabc"},
                             {"alts", "abbabbb"}, {"mid", "abcdef"}, {"plus", "end"}};
    for (int i = 0; i < 7; i++) {
        ASSERT_EQ_STR(g.rule[i], want[i][0]);
        const char *at = strstr(t + (i ? g.end[i - 1] : 0), want[i][1]);
        if (!at) FAIL("'%s' not in the text after finding %d", want[i][1], i);
        ASSERT_EQ_INT(g.start[i], (size_t)(at - t));
        ASSERT_EQ_INT(g.end[i], g.start[i] + strlen(want[i][1]));
    }
    /* (yy<...> spans two lines: with lines = 1 it is no match either way) */

    /* a 12,000-byte value, then another on the same line, and the built-in
     * aws-session-token after it: each found whole */
    size_t n = 12000;
    char *line = malloc(3 * n + 200);
    strcpy(line, "zz=");
    for (size_t i = 0; i < n; i++) line[3 + i] = "abcdefgh0123"[i % 12];
    strcpy(line + 3 + n, " zz=");
    for (size_t i = 0; i < n; i++) line[7 + n + i] = "q9"[i % 2];
    line[7 + 2 * n] = 0;
    g = scan_str(c, line);
    ASSERT_EQ_INT(g.n, 2);
    ASSERT_EQ_INT(g.start[0], 3);
    ASSERT_EQ_INT(g.end[0], 3 + n);
    ASSERT_EQ_INT(g.start[1], 7 + n);
    ASSERT_EQ_INT(g.end[1], 7 + 2 * n);
    mg_scanner_free(c);

    const char *b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    strcpy(line, "export AWS_SESSION_TOKEN=");
    size_t h = strlen(line);
    for (size_t i = 0; i < 3000; i++) line[h + i] = b64[(i * 7 + i / 64) % 64];
    strcpy(line + h + 3000, "\nnext line\n");
    g = scan_str(dflt(), line);
    ASSERT_EQ_INT(g.n, 1);
    ASSERT_EQ_STR(g.rule[0], "aws-session-token");
    ASSERT_EQ_INT(g.start[0], h);
    ASSERT_EQ_INT(g.end[0], h + 3000);
    free(line);

    /* A pattern whose matches all end with a literal holding a keyword goes
     * by that literal (a PEM key's END line): found, in any case under a
     * leading (?i); not when the literal ends one alternative only. */
    const char *lrules = "rule blk\ndescription = b\nkeywords = end-of-blk\nlines = 5\npattern = (BEGIN-BLK\\n[a-z\\n]+?END-OF-BLK)\n"
                         "rule ci\ndescription = c\nkeywords = done-mark\nlines = 2\npattern = (?i)(start:[0-9]+\\s+DONE-MARK)\n"
                         "rule alt\ndescription = a\nkeywords = zzend\nlines = 2\n"
                         "pattern = (?:foo:([a-z]+)ZZEND-ONE|bar:([0-9]+)ZZEND-TWO)\ngroup = 1, 2\n";
    c = custom(lrules);
    t = "END-OF-BLK\nBEGIN-BLK\nabc\ndef\nEND-OF-BLK and END-OF-BLK\nSTART:42\ndone-mark foo:abcZZEND-ONE\n\n\nbar:7ZZEND-TWO\n";
    g = scan_str(c, t);
    ASSERT_EQ_INT(g.n, 4);
    ASSERT_EQ_STR(g.rule[0], "blk");
    ASSERT_EQ_INT(g.start[0], 11);
    ASSERT_EQ_INT(g.end[0], 11 + strlen("BEGIN-BLK\nabc\ndef\nEND-OF-BLK"));
    ASSERT_EQ_STR(g.rule[1], "ci");
    ASSERT_EQ_INT(g.line[1], 6);
    ASSERT_EQ_STR(g.rule[2], "alt");
    ASSERT_EQ_INT(g.end[2] - g.start[2], 3);
    ASSERT_EQ_STR(g.rule[3], "alt");
    ASSERT_EQ_INT(g.end[3] - g.start[3], 1);
    mg_scanner_free(c);
}

/* ---- multi-line blocks ------------------------------------------------------------------------ */

/* "-----BEGIN <kind>-----", `lines` lines of 64 base64 bytes (from seed), "-----END <kind>-----\n" */
static char *key_block(const char *kind, int lines, unsigned seed)
{
    const char *b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *b = malloc((size_t)lines * 65 + 2 * strlen(kind) + 64), *e = b;
    e += sprintf(e, "-----BEGIN %s-----\n", kind);
    for (int i = 0; i < lines; i++) {
        for (int k = 0; k < 64; k++) {
            seed = seed * 1103515245u + 12345u;
            *e++ = b64[(seed >> 16) % 64];
        }
        *e++ = '\n';
    }
    sprintf(e, "-----END %s-----\n", kind);
    return b;
}

TEST(scan_long_blocks)
{
    /* a PGP key with subkeys and a photo (1,000 lines, 65 KB) and an RSA key
     * of 300 lines (19 KB), both over 16 KiB: each found whole */
    char *pgp = key_block("PGP PRIVATE KEY BLOCK", 1000, 1), *rsa = key_block("RSA PRIVATE KEY", 300, 2);
    size_t np = strlen(pgp), nr = strlen(rsa);
    char *t = malloc(np + nr + 64);
    sprintf(t, "key:\n%sand\n%s", pgp, rsa);
    struct got g = scan_str(dflt(), t);
    ASSERT_EQ_INT(g.n, 2);
    ASSERT_EQ_STR(g.rule[0], "private-key-pgp");
    ASSERT_EQ_INT(g.start[0], 5);
    ASSERT_EQ_INT(g.end[0], 5 + np - 1); /* (the block without its last '\n') */
    ASSERT_EQ_STR(g.rule[1], "private-key-rsa");
    ASSERT_EQ_INT(g.start[1], 5 + np + 4);
    ASSERT_EQ_INT(g.end[1], 5 + np + 4 + nr - 1);
    ASSERT_EQ_INT(g.line[1], 1005);
    free(t);

    /* 25,000 END lines without their BEGIN, then a key: the key is found
     * (bench/scan.sh times this: the END lines are not each searched back a
     * whole window) */
    const char *end = "-----END PGP PRIVATE KEY BLOCK-----\n";
    size_t ne = strlen(end);
    t = malloc(25000 * ne + np + 1);
    for (int i = 0; i < 25000; i++) memcpy(t + i * ne, end, ne);
    strcpy(t + 25000 * ne, pgp);
    g = scan_str(dflt(), t);
    ASSERT_EQ_INT(g.n, 1);
    ASSERT_EQ_INT(g.start[0], 25000 * ne);
    ASSERT_EQ_INT(g.line[0], 25001);
    free(t);
    free(pgp);
    free(rsa);

    /* The search after a window without a match goes on from where a match
     * could still start (PCRE2's partial match): here the first END comes
     * before the body is long enough, so the block ends at the second. */
    struct mg_scanner *c = custom("rule blk\ndescription = b\nkeywords = end-of-blk\nlines = 50\n"
                                  "pattern = (BEGIN-BLK\\n[A-Za-z\\n-]{20,}?END-OF-BLK)\n");
    const char *u = "END-OF-BLK\nx BEGIN-BLK\nab\nEND-OF-BLK\ncdefghijklmnopqrstuvwxyz\nEND-OF-BLK\n"
                    "BEGIN-BLK\n!\nEND-OF-BLK\nBEGIN-BLK\nabcdefghijklmnopqrstuvwxyz\nEND-OF-BLK\n";
    g = scan_str(c, u);
    ASSERT_EQ_INT(g.n, 2);
    ASSERT_EQ_INT(g.start[0], 13);
    ASSERT_EQ_INT(g.end[0], (size_t)(strstr(u, "xyz\nEND-OF-BLK") - u) + 14);
    ASSERT_EQ_INT(g.line[0], 2);
    ASSERT_EQ_INT(g.line[1], 10);
    mg_scanner_free(c);
}

/* ---- secrets in source: key literals, Azure account keys, Twilio tokens (issue 16) ---- */

/* A PEM private key written as string literals, one per source line, up
 * to its END line: found as one block, BEGIN to END, and redacted whole. */
TEST(scan_key_in_string_literals)
{
    static const char *const body[] = {
        "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun",
        "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK",
        "LxoS2tFczGkPLPgizskuemMghRniWaoLcyehkd3qqGElvW/VDL5AaWTg0nLVkjRo",
        "9z+40RQzuVaE8AkAFmxZzow3x+VJYKdjykkJ0iT9wCS0DRTXu269V264Vf/3jvre",
        "dZJ1mp+OodyD7H7uEu0OhtHO7GmWR3Jrz4gaaZVd8pW0nJoEBv6W3ZcVBUkHO6yY",
        "QwIDAQABAoIBAHrBq3c4MqM5C4nRkE8eJxF1HrX2r8Gq0pZsMl9SpQLdWhvI6bTu",
        "t9aEy2RW0fN7Kq5LXcP4sJYH1zVd3oUAb8mIg6xTe0wGnQkCr2jFhM5ViOp=="};
    const struct {
        const char *open, *close, *lead, *lang;
    } forms[] = {
        {"\"", "\\n\"", "    ", "c"},        /* C: "...\n" on each line, the literals concatenated */
        {"\"", "\\n\" +", "\t", "go"},       /* Go: "...\n" + */
        {"'", "\\n'", "    ", "python"},     /* Python: '...\n' lines in parentheses */
        {"'", "\\n' +", "  ", "js"},         /* JavaScript: '...\n' + */
    };
    const struct mg_secret_policy all = {{MG_SECRET_REDACT, MG_SECRET_REDACT, MG_SECRET_REDACT}};
    for (size_t f = 0; f < sizeof(forms) / sizeof(forms[0]); f++) {
        char t[2048], *p = t;
        p += sprintf(p, "// %s\nconst key = (\n%s%s-----BEGIN RSA PRIVATE KEY-----%s\n", forms[f].lang, forms[f].lead,
                     forms[f].open, forms[f].close);
        for (size_t i = 0; i < sizeof(body) / sizeof(body[0]); i++)
            p += sprintf(p, "%s%s%s%s\n", forms[f].lead, forms[f].open, body[i], forms[f].close);
        p += sprintf(p, "%s%s-----END RSA PRIVATE KEY-----\\n%s)\nint after = 1;\n", forms[f].lead, forms[f].open,
                     forms[f].open);
        struct got g = scan_str(dflt(), t);
        if (g.n != 1) FAIL("%s: %d findings, want 1", forms[f].lang, g.n);
        ASSERT_EQ_STR(g.rule[0], "private-key-in-literals");
        ASSERT_EQ_INT(g.line[0], 3);
        ASSERT_EQ_INT(g.start[0], (size_t)(strstr(t, "-----BEGIN") - t));
        ASSERT_EQ_INT(g.end[0], (size_t)(strstr(t, "-----END RSA PRIVATE KEY-----") - t) + 29);
        struct mg_buf out;
        mg_buf_init(&out, 1 << 20);
        struct mg_err err = {0};
        int n = -1;
        ASSERT_EQ_INT(mg_secrets_apply(dflt(), &all, t, strlen(t), &out, &n, NULL, NULL, &err), 0);
        ASSERT_EQ_INT(n, 1);
        ASSERT_CONTAINS(out.p, "[REDACTED:private-key-in-literals]");
        for (size_t i = 0; i < sizeof(body) / sizeof(body[0]); i++)
            if (strstr(out.p, body[i])) FAIL("%s: key line %zu served after redaction", forms[f].lang, i);
        ASSERT_CONTAINS(out.p, "int after = 1;");
        mg_buf_release(&out);
    }
    /* not keys: a public key and a certificate in literals, a short doc snippet */
    const char *neg = "const char *pub =\n    \"-----BEGIN PUBLIC KEY-----\\n\"\n"
                      "    \"MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo\\n\"\n"
                      "    \"4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u\\n\"\n"
                      "    \"-----END PUBLIC KEY-----\\n\";\n"
                      "const cert = '-----BEGIN CERTIFICATE-----\\n' +\n"
                      "  'MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\\n' +\n"
                      "  'RTESMBAGA1UEChMJQmFsdGltb3JlMRMwEQYDVQQLEwpDeWJlclRydXN0MSIwIAYD\\n' +\n"
                      "  '-----END CERTIFICATE-----\\n';\n"
                      "doc = (\"-----BEGIN RSA PRIVATE KEY-----\\n\" \"...\\n\" \"-----END RSA PRIVATE KEY-----\\n\")\n";
    ASSERT_EQ_INT(scan_str(dflt(), neg).n, 0);
}

/* An Azure storage account key (88 base64 characters ending in ==) under
 * account_key / AccountKey, in YAML and in connection strings. */
TEST(scan_azure_account_key)
{
    const char *key = "q8ZlV3mK2tRx9bNw4HcY7pJfD1sLgE6uTzA0oW5iXvQy3nMkR8hCjB2aPdF7eGsU4rLtN9wZxVbYcHm1KoIpQA==";
    ASSERT_EQ_INT(strlen(key), 88);
    static const char *const forms[][2] = {
        {"storage:\n  account_name: billingprod\n  account_key: ", "\n"},
        {"storage:\n  account_name: billingprod\n  account_key: \"", "\"\n"},
        {"conn = \"DefaultEndpointsProtocol=https;AccountName=billingprod;AccountKey = ", ";EndpointSuffix=core.windows.net\"\n"},
        {"{\"accountKey\": \"", "\"}\n"},
        {"AZ_ACCOUNT_KEY=", "\n"},
    };
    for (size_t f = 0; f < sizeof(forms) / sizeof(forms[0]); f++) {
        char t[512];
        snprintf(t, sizeof(t), "%s%s%s", forms[f][0], key, forms[f][1]);
        struct got g = scan_str(dflt(), t);
        if (g.n != 1) FAIL("form %zu: %d findings, want 1", f, g.n);
        ASSERT_EQ_INT(g.start[0], (size_t)(strstr(t, key) - t));
        ASSERT_EQ_INT(g.end[0] - g.start[0], 88);
    }
    /* not keys: a variable, a SHA-512 digest in base64 under another name, a short value */
    const char *neg = "storage:\n  account_key: ${AZURE_STORAGE_KEY}\n"
                      "  checksum: z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg==\n"
                      "  account_key_id: 42\n";
    ASSERT_EQ_INT(scan_str(dflt(), neg).n, 0);
}

/* A Twilio auth token (32 hex) under auth_token, with twilio (or the
 * account SID's name) on its line or a few lines before. */
TEST(scan_twilio_auth_token_nearby)
{
    const char *tok = "9f3c1a7e5b2d48c6a0e1f7b3d9c5a2e4";
    static const char *const forms[][2] = {
        {"twilio:\n  account_sid: AC3d5f7a9c1e2b4d6f8a0c2e4b6d8f0a1c\n  auth_token: ", "\n"},
        {"from twilio.rest import Client\n\naccount_sid = \"AC3d5f7a9c1e2b4d6f8a0c2e4b6d8f0a1c\"\nauth_token = \"", "\"\n"},
        {"account_sid: AC3d5f7a9c1e2b4d6f8a0c2e4b6d8f0a1c\nauthToken: '", "'\n"},
    };
    for (size_t f = 0; f < sizeof(forms) / sizeof(forms[0]); f++) {
        char t[512];
        snprintf(t, sizeof(t), "%s%s%s", forms[f][0], tok, forms[f][1]);
        struct got g = scan_str(dflt(), t);
        int hit = -1;
        for (int i = 0; i < g.n && i < 8; i++)
            if (g.end[i] - g.start[i] == 32 && memcmp(t + g.start[i], tok, 32) == 0) hit = i;
        if (hit < 0) FAIL("form %zu: the auth token is not found (%d findings)", f, g.n);
    }
    /* not tokens: hex digests under other names, an auth_token far from twilio, a variable */
    const char *neg = "twilio:\n  auth_token: ${TWILIO_AUTH_TOKEN}\n  media_md5: 0b4e7a1c9d3f5e2a8c6b0d4f1e3a5c7b\n"
                      "cache:\n  etag: 5d41402abc4b2a76b9719d911017c592\n"
                      "\n\n\n\n\n\n\n\nsession:\n  auth_token: 7c2e9a4f1b8d3e6a0c5f2b9d4e7a1c3f\n";
    ASSERT_EQ_INT(scan_str(dflt(), neg).n, 0);
}

/* A secret split across adjacent string literals ("AKIA" "...", '...' +
 * '...', lines in parentheses): found in the joined text, reported from its
 * first piece to its last, and redacted whole. */
TEST(scan_split_literals)
{
    static const struct {
        const char *text, *first, *last, *rule;
    } cases[] = {
        {"const char *id = \"AKIA\" \"Q3ZL7WXN2HB5RT4K\";\n", "AKIA", "RT4K", "aws-access-key-id"},
        {"const k = 'sk_live_' + '4eC39HqLyjWDarjtT1zdp7dc' + 'Xq8Lm2Nx';\n", "sk_live_", "Xq8Lm2Nx", "stripe-secret-key"},
        {"TOKEN = (\n    \"ghp_Zq3Rk8Lm2Nx7\"\n    \"Pv4Tw9Yb1Cd5Fg6Hj0KsA2Eu\"\n)\n", "ghp_", "KsA2Eu", "github-pat"},
        {"key := \"AKIA\" +\n\t\"Q3ZL\" + \"7WXN\" + \"2HB5\" + \"RT4K\"\n", "AKIA", "RT4K", "aws-access-key-id"},
    };
    const struct mg_secret_policy all = {{MG_SECRET_REDACT, MG_SECRET_REDACT, MG_SECRET_REDACT}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *t = cases[i].text;
        struct got g = scan_str(dflt(), t);
        if (g.n != 1) FAIL("case %zu: %d findings, want 1", i, g.n);
        ASSERT_EQ_STR(g.rule[0], cases[i].rule);
        ASSERT_EQ_INT(g.start[0], (size_t)(strstr(t, cases[i].first) - t));
        ASSERT_EQ_INT(g.end[0], (size_t)(strstr(t, cases[i].last) - t) + strlen(cases[i].last));
        struct mg_buf out;
        mg_buf_init(&out, 1 << 20);
        struct mg_err err = {0};
        int n = -1;
        ASSERT_EQ_INT(mg_secrets_apply(dflt(), &all, t, strlen(t), &out, &n, NULL, NULL, &err), 0);
        ASSERT_EQ_INT(n, 1);
        if (strstr(out.p, cases[i].first) || strstr(out.p, cases[i].last)) FAIL("case %zu: a piece is served: %s", i, out.p);
        mg_buf_release(&out);
    }
    /* not joined: a comma between, a variable between; joined but no secret */
    const char *neg = "f(\"AKIA\", \"Q3ZL7WXN2HB5RT4K\");\nk = 'sk_live_' + v + '4eC39HqLyjWDarjtT1zdp7dc';\n"
                      "printf(\"%s\" \"\\n\", \"AKIA\" \"Q3ZL\");\nmsg = 'it' + 's' + \"don't\"\n";
    ASSERT_EQ_INT(scan_str(dflt(), neg).n, 0);
    /* the window: at most 8 pieces joined; a secret in the 9th and after starts a new run */
    const char *many = "x = \"a\" \"b\" \"c\" \"d\" \"e\" \"f\" \"g\" \"h\" \"AKIA\" \"Q3ZL7WXN2HB5RT4K\"\n";
    struct got g = scan_str(dflt(), many);
    ASSERT_EQ_INT(g.n, 1);
    ASSERT_EQ_INT(g.start[0], (size_t)(strstr(many, "AKIA") - many));
}

/* ---- overlaps --------------------------------------------------------------------------- */

/* standard base64 with padding, into a static buffer */
static const char *b64enc(const char *in)
{
    static const char al[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    static char out[4][8192];
    static int k;
    char *o = out[k++ & 3];
    size_t n = strlen(in), j = 0;
    const unsigned char *u = (const unsigned char *)in;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)u[i] << 16 | (i + 1 < n ? (uint32_t)u[i + 1] << 8 : 0) | (i + 2 < n ? u[i + 2] : 0);
        o[j++] = al[v >> 18 & 63];
        o[j++] = al[v >> 12 & 63];
        o[j++] = i + 1 < n ? al[v >> 6 & 63] : '=';
        o[j++] = i + 2 < n ? al[v & 63] : '=';
    }
    o[j] = 0;
    return o;
}

static int count_encoded(const struct mg_finding *f, void *ud)
{
    int *x = ud;
    x[0]++;
    x[1] += f->encoded;
    return 0;
}

/* Secrets wrapped in base64 (a Kubernetes Secret's data, echo ... | base64 -d):
 * found by decoding the run, reported as the whole run, redacted whole. */
TEST(scan_base64_wrapped)
{
    const char *url = "postgres://billing:Vq7LmR2xT9kWz4Np@db.prod.internal:5432/billing";
    const char *dockercfg = "{\"auths\":{\"registry.corp.net\":{\"auth\":\"ZGVwbG95OlF4N2tMbTJ2UnA5d1R6NHM=\"}}}";
    char t[8192], *p = t;
    p += sprintf(p, "apiVersion: v1\nkind: Secret\nmetadata:\n  name: billing\ndata:\n");
    p += sprintf(p, "  DATABASE_URL: %s\n", b64enc(url));
    p += sprintf(p, "  aws_id: %s\n", b64enc("AKIAQ7RZ2LMXW4KDP3TY"));
    p += sprintf(p, "  .dockerconfigjson: %s\n", b64enc(dockercfg));
    p += sprintf(p, "run: echo %s | base64 -d > ~/.token\n", b64enc("ghp_Zk3Lm9Qr2Xt7Vb4Nc8Wd1Ys6Hp0Jf5Ga2Ue3\n"));
    struct got g = scan_str(dflt(), t);
    ASSERT_EQ_INT(g.n, 4);
    ASSERT_EQ_STR(g.rule[0], "postgres-url-password");
    ASSERT_EQ_STR(g.rule[1], "aws-access-key-id");
    ASSERT_EQ_STR(g.rule[2], "docker-config-auth");
    ASSERT_EQ_STR(g.rule[3], "github-pat");
    for (int i = 0; i < 4; i++) ASSERT_EQ_INT(g.line[i], (unsigned)(6 + i));
    /* the whole run, padding included */
    const char *run = strstr(t, b64enc(url));
    ASSERT_EQ_INT(g.start[0], (size_t)(run - t));
    ASSERT_EQ_INT(g.end[0], (size_t)(run - t) + strlen(b64enc(url)));
    run = strstr(t, b64enc("AKIAQ7RZ2LMXW4KDP3TY"));
    ASSERT_EQ_INT(g.end[1] - g.start[1], strlen(b64enc("AKIAQ7RZ2LMXW4KDP3TY")));
    ASSERT_EQ_INT(g.start[1], (size_t)(run - t));
    /* redaction replaces every run */
    const struct mg_secret_policy all = {{MG_SECRET_REDACT, MG_SECRET_REDACT, MG_SECRET_REDACT}};
    struct mg_buf out;
    mg_buf_init(&out, 1 << 20);
    struct mg_err err = {0};
    int n = -1;
    ASSERT_EQ_INT(mg_secrets_apply(dflt(), &all, t, strlen(t), &out, &n, NULL, NULL, &err), 0);
    ASSERT_EQ_INT(n, 4);
    ASSERT_CONTAINS(out.p, "  DATABASE_URL: [REDACTED:postgres-url-password]\n");
    ASSERT_CONTAINS(out.p, "  aws_id: [REDACTED:aws-access-key-id]\n");
    ASSERT_CONTAINS(out.p, "echo [REDACTED:github-pat] | base64 -d");
    ASSERT(!strstr(out.p, "cG9zdGdyZXM6"));
    mg_buf_release(&out);
    /* the encoded flag */
    int fl[2] = {0, 0};
    ASSERT_EQ_INT(mg_scan(dflt(), t, strlen(t), count_encoded, fl, &err), 4);
    ASSERT_EQ_INT(fl[0], 4);
    ASSERT_EQ_INT(fl[1], 4);

    /* not secrets: base64 of a certificate, of harmless YAML and JSON, of random bytes, integrity hashes */
    p = t;
    p += sprintf(p, "data:\n  tls.crt: %s\n",
                 b64enc("-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\n"
                        "RTESMBAGA1UEChMJQmFsdGltb3JlMRMwEQYDVQQLEwpDeWJlclRydXN0MSIwIAYD\n-----END CERTIFICATE-----\n"));
    p += sprintf(p, "  config.yaml: %s\n", b64enc("server:\n  port: 8080\n  host: 0.0.0.0\nlog_level: info\n"));
    p += sprintf(p, "  settings.json: %s\n", b64enc("{\"feature_flags\":{\"new_billing\":true},\"region\":\"eu-west-1\"}"));
    p += sprintf(p, "  blob: 3q2+7wABAgMEBQYHCAkKCwwNDg8QERITFBUWFxgZGhscHR4fICEiIyQlJicoKSorLC0uLw==\n");
    p += sprintf(p, "\"integrity\": \"sha512-%s\"\n", "xP1TJ9n9h3bRzQvWq0m8YlKc2aEoFtD5UgH7iJ6kLsN4pO3rS2tUvW1xY0zA9bC8dE7fG6hI5jK4lM3nO2pQ1rS==");
    ASSERT_EQ_INT(scan_str(dflt(), t).n, 0);

    /* the decoder: printable text, or SIZE_MAX */
    char d[64];
    ASSERT_EQ_INT(mg_b64_decode_text("aGVsbG8gd29ybGQ", 15, d), 11);
    ASSERT(memcmp(d, "hello world", 11) == 0);
    ASSERT_EQ_INT(mg_b64_decode_text("3q2+7wABAgMEBQYHCAkKCwwN", 24, d), (size_t)SIZE_MAX);
    ASSERT_EQ_INT(mg_b64_decode_text("aGVsbG8gd29ybGQx", 16, d), 12);
}

TEST(scan_overlaps)
{
    const char *rules = "rule short\ndescription = s\nseverity = high\nkeywords = key\npattern = key[0-9]{4}\n"
                        "rule long\ndescription = l\nseverity = low\nkeywords = key\npattern = key[0-9]{4}[a-z]{4}\n"
                        "rule same-low\ndescription = a\nseverity = low\nkeywords = pfx\npattern = pfx[0-9]{6}\n"
                        "rule same-high\ndescription = b\nseverity = high\nkeywords = pfx\npattern = pfx[0-9]{6}\n";
    struct mg_scanner *c = custom(rules);
    struct got g = scan_str(c, "a key1234abcd b pfx123456 c key9999 d\n");
    ASSERT_EQ_INT(g.n, 3);
    ASSERT_EQ_STR(g.rule[0], "long");      /* the longer of two overlapping */
    ASSERT_EQ_STR(g.rule[1], "same-high"); /* same span: the higher severity */
    ASSERT_EQ_STR(g.rule[2], "short");
    for (int i = 1; i < 3; i++) ASSERT(g.start[i] >= g.end[i - 1]); /* in order, no overlap */
    mg_scanner_free(c);
}

/* ---- redaction and masking ---------------------------------------------------------------- */

TEST(scan_redact)
{
    const struct mg_scanner *s = dflt();
    const struct mg_secret_policy all = {{MG_SECRET_REDACT, MG_SECRET_REDACT, MG_SECRET_REDACT}},
                                  high = {{MG_SECRET_KEEP, MG_SECRET_KEEP, MG_SECRET_REDACT}};
    const char *in = "gh = \"ghp_Zq3Rk8Lm2Nx7Pv4Tw9Yb1Cd5Fg6Hj0KsA2Eu\"\njwt = \"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4Y3Z6In0.Qm9Hd3pLcXJ0U2lnbmF0dXJl\"\nok\n";
    struct mg_buf out;
    mg_buf_init(&out, 1 << 20);
    struct mg_err err = {0};
    int n = -1;
    ASSERT_EQ_INT(mg_secrets_apply(s, &all, in, strlen(in), &out, &n, NULL, NULL, &err), 0);
    ASSERT_EQ_INT(n, 2);
    ASSERT_EQ_STR(out.p, "gh = \"[REDACTED:github-pat]\"\njwt = \"[REDACTED:jwt]\"\nok\n");
    mg_buf_reset(&out);
    ASSERT_EQ_INT(mg_secrets_apply(s, &high, in, strlen(in), &out, &n, NULL, NULL, &err), 0); /* the JWT is medium */
    ASSERT_EQ_INT(n, 1);
    ASSERT_CONTAINS(out.p, "[REDACTED:github-pat]");
    ASSERT_CONTAINS(out.p, "eyJhbGciOiJIUzI1NiJ9");
    mg_buf_reset(&out);
    ASSERT_EQ_INT(mg_secrets_apply(s, &all, "", 0, &out, &n, NULL, NULL, &err), 0);
    ASSERT_EQ_INT(n, 0);
    ASSERT_EQ_STR(out.p ? out.p : "", "");
    /* a key block: its newlines stay, so the lines after it keep their numbers */
    char *key = key_block("RSA PRIVATE KEY", 30, 3), *t = malloc(strlen(key) + 32);
    sprintf(t, "a\n%sb\n", key);
    mg_buf_reset(&out);
    ASSERT_EQ_INT(mg_secrets_apply(s, &all, t, strlen(t), &out, &n, NULL, NULL, &err), 0);
    ASSERT_EQ_INT(n, 1);
    char want[128] = "a\n[REDACTED:private-key-rsa]";
    for (int i = 0; i < 31; i++) strcat(want, "\n");
    strcat(want, "\nb\n");
    ASSERT_EQ_STR(out.p, want);
    free(key);
    free(t);
    mg_buf_release(&out);
    /* an output buffer too small is an error, not a truncated copy */
    mg_buf_init(&out, 10);
    ASSERT_EQ_INT(mg_secrets_apply(s, &all, in, strlen(in), &out, &n, NULL, NULL, &err), -1);
    ASSERT_EQ_STR(err.code, "input_too_large");
    mg_buf_release(&out);

    char m[64];
    ASSERT_EQ_STR(mg_secret_mask("ghp_Zq3Rk8Lm2Nx7Pv4Tw9Yb1Cd5Fg6Hj0KsA2Eu", 40, m, sizeof(m)), "ghp_\u2026(40)");
    ASSERT_EQ_STR(mg_secret_mask("hunter2x", 8, m, sizeof(m)), "hu\u2026(8)");
    ASSERT_EQ_STR(mg_secret_mask("ab", 2, m, sizeof(m)), "\u2026(2)");
    ASSERT_EQ_STR(mg_secret_mask("\x01\xff\n\tabcdefghijklmnop", 20, m, sizeof(m)), "????\u2026(20)");
}

/* ---- hostile input, caps, threads ----------------------------------------------------------- */

TEST(scan_binary_and_caps)
{
    const struct mg_scanner *s = dflt();
    size_t n = 1 << 20;
    char *buf = malloc(n);
    unsigned x = 12345;
    for (size_t i = 0; i < n; i++) buf[i] = (char)((x = x * 1103515245 + 12345) >> 16);
    memcpy(buf + 5000, "\0ghp_Zq3Rk8Lm2Nx7Pv4Tw9Yb1Cd5Fg6Hj0KsA2Eu\0", 42);
    struct mg_err err = {0};
    int r = mg_scan(s, buf, n, NULL, NULL, &err);
    ASSERT_GE_INT(r, 1); /* the token between NULs is found */
    memset(buf, 0, n);
    ASSERT_EQ_INT(mg_scan(s, buf, n, NULL, NULL, &err), 0);
    memset(buf, '\n', n);
    ASSERT_EQ_INT(mg_scan(s, buf, n, NULL, NULL, &err), 0);
    memset(buf, 'A', n); /* one 1 MiB line */
    ASSERT_EQ_INT(mg_scan(s, buf, n, NULL, NULL, &err), 0);
    ASSERT_EQ_INT(mg_scan(s, buf, 0, NULL, NULL, &err), 0);
    /* over the cap: refused before reading a byte */
    ASSERT_EQ_INT(mg_scan(s, buf, (size_t)MG_SCAN_MAX_BYTES + 1, NULL, NULL, &err), -1);
    ASSERT_EQ_STR(err.code, "input_too_large");
    free(buf);
    ASSERT_EQ_INT(mg_scan(NULL, "x", 1, NULL, NULL, &err), -1);
}

static int stop_cb(const struct mg_finding *f, void *ud)
{
    (void)f;
    ++*(int *)ud;
    return 1;
}

static const char *thread_text;
static void *scan_thread(void *arg)
{
    long total = 0;
    for (int i = 0; i < 50; i++) total += mg_scan(mg_scanner_default(), thread_text, strlen(thread_text), NULL, NULL, NULL);
    *(long *)arg = total;
    return NULL;
}

TEST(scan_threads_and_stop)
{
    thread_text = "a = AKIAQ3EGRZ7XJ5MWB2LP\nb = ghp_Zq3Rk8Lm2Nx7Pv4Tw9Yb1Cd5Fg6Hj0KsA2Eu\nc = npm_Zq3Rk8Lm2Nx7Pv4Tw9Yb1Cd5Fg6Hj0KsA2Eu\n";
    pthread_t t[4];
    long res[4];
    for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, scan_thread, &res[i]);
    for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
    for (int i = 0; i < 4; i++) ASSERT_EQ_INT(res[i], 150);
    int calls = 0;
    ASSERT_EQ_INT(mg_scan(dflt(), thread_text, strlen(thread_text), stop_cb, &calls, NULL), 1);
    ASSERT_EQ_INT(calls, 1);
}

/* ---- memgate scan ------------------------------------------------------------------------------ */

TEST(scan_cli)
{
    char *home = mg_t_tmpdir(), *dir = mg_t_tmpdir();
    mg_t_write_str(dir, "src/clean.c", "int main(void) { return 0; }\n");
    struct mg_t_out o = MG_RUN(dir, home, "scan", ".");
    ASSERT_EQ_INT(o.status, 0);
    ASSERT_CONTAINS(o.err, "0 findings in 1 file");
    mg_t_out_free(&o);

    const char *tok = "ghp_Zq3Rk8Lm2Nx7Pv4Tw9Yb1Cd5Fg6Hj0KsA2Eu";
    char text[256];
    snprintf(text, sizeof(text), "GITHUB_TOKEN=%s\n", tok);
    mg_t_write_str(dir, ".env", text); /* a secret file: the index never opens it, scan must */
    mg_t_write(dir, "bin.dat", "\0\1\2ghp_Zq3Rk8Lm2Nx7Pv4Tw9Yb1Cd5Fg6Hj0KsA2Eu", 43);
    o = MG_RUN(dir, home, "scan", ".");
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.out, ".env:1: github-pat [high] ghp_\u2026(40)");
    ASSERT_NOT_CONTAINS(o.out, tok);
    ASSERT_NOT_CONTAINS(o.err, tok);
    ASSERT_CONTAINS(o.err, "1 binary");
    mg_t_out_free(&o);

    o = MG_RUN(dir, home, "scan", ".", "--json");
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_NOT_CONTAINS(o.out, tok);
    json_t *j = mg_t_json(o.out);
    json_t *fs = json_object_get(j, "findings");
    ASSERT(json_is_array(fs));
    ASSERT_EQ_INT(json_array_size(fs), 1);
    json_t *f0 = json_array_get(fs, 0);
    ASSERT_EQ_STR(json_string_value(json_object_get(f0, "path")), ".env");
    ASSERT_EQ_INT(json_integer_value(json_object_get(f0, "line")), 1);
    ASSERT_EQ_STR(json_string_value(json_object_get(f0, "rule")), "github-pat");
    ASSERT_EQ_STR(json_string_value(json_object_get(f0, "severity")), "high");
    ASSERT_EQ_STR(json_string_value(json_object_get(f0, "match")), "ghp_\u2026(40)");
    ASSERT(json_is_string(json_object_get(f0, "description")));
    ASSERT_EQ_INT(json_integer_value(json_object_get(f0, "start")), 13);
    ASSERT_EQ_INT(json_integer_value(json_object_get(f0, "end")), 53);
    ASSERT_EQ_INT(json_integer_value(json_object_get(j, "files")), 2);
    ASSERT_EQ_INT(json_integer_value(json_object_get(json_object_get(j, "skipped"), "binary")), 1);
    ASSERT_GE_INT(json_integer_value(json_object_get(j, "rules")), 150);
    ASSERT(json_is_integer(json_object_get(j, "took_ms")));
    json_decref(j);
    mg_t_out_free(&o);

    /* one file; a severity floor above the finding; a custom rules file */
    char path[4096];
    snprintf(path, sizeof(path), "%s/.env", dir);
    o = MG_RUN(dir, home, "scan", path);
    ASSERT_EQ_INT(o.status, 1);
    mg_t_out_free(&o);
    mg_t_write_str(dir, "jwt.txt", "t = eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4Y3Z6In0.Qm9Hd3pLcXJ0U2lnbmF0dXJl\n");
    o = MG_RUN(dir, home, "scan", "jwt.txt", "--min-severity", "high");
    ASSERT_EQ_INT(o.status, 0);
    mg_t_out_free(&o);
    mg_t_write_str(home, "my.rules", "rule mine\ndescription = mine\nkeywords = zq9\npattern = zq9[0-9]{4}\n");
    mg_t_write_str(dir, "x.txt", "zq91234\n");
    snprintf(path, sizeof(path), "%s/my.rules", home);
    o = MG_RUN(dir, home, "scan", "x.txt", "--rules", path);
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.out, "x.txt:1: mine [high]");
    mg_t_out_free(&o);
    mg_t_write_str(home, "bad.rules", "rule mine\ndescription = mine\nseverity = huge\n");
    snprintf(path, sizeof(path), "%s/bad.rules", home);
    o = MG_RUN(dir, home, "scan", "x.txt", "--rules", path);
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.err, "error[invalid_rules]");
    ASSERT_CONTAINS(o.err, "rules line 3: severity 'huge'");
    mg_t_out_free(&o);

    /* usage errors: 2 */
    o = MG_RUN(dir, home, "scan");
    ASSERT_EQ_INT(o.status, 2);
    mg_t_out_free(&o);
    o = MG_RUN(dir, home, "scan", ".", "--min-severity", "urgent");
    ASSERT_EQ_INT(o.status, 2);
    mg_t_out_free(&o);
    o = MG_RUN(dir, home, "scan", ".", "--bogus");
    ASSERT_EQ_INT(o.status, 2);
    mg_t_out_free(&o);
    o = MG_RUN(dir, home, "scan", "--help");
    ASSERT_EQ_INT(o.status, 0);
    ASSERT_CONTAINS(o.out, "usage: memgate scan PATH");
    mg_t_out_free(&o);
    o = MG_RUN(dir, home, "scan", "/nonexistent/path");
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.err, "error[path_not_found]");
    mg_t_out_free(&o);
}
