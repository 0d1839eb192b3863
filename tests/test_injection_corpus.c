/* test_injection_corpus.c — the labelled prompt-injection corpus parses and
 * is as large as tests/injection/README.md says.
 *
 * Only the shape is checked here (every line id<TAB>label<TAB>text with the
 * TSV escapes, unique ids, at least 600 attacks in the named categories, at
 * least 25 in each, at least 200 hand-written hard negatives). How well
 * mg_injection does on the corpus is measured by
 * `memgate-injectionbench --labelled` (bench/scan.sh), not asserted: the
 * patterns are tuned against the corpus. Named sanitize_* so that
 * `make check T=sanitize` runs these with the detector's own tests. One
 * mechanism is asserted on every text of the corpus: the prefilter finds
 * every pattern PCRE2 finds (injection_prefilter_*).
 */
#include <stdbool.h>
#include <string.h>

#include "security/injection_int.h"
#include "test.h"

struct row {
    char *id, *label, *text;
    size_t n;
};

/* Read a corpus TSV; FAIL on a malformed line. *nrows receives the count. */
static struct row *load(const char *path, size_t *nrows)
{
    FILE *f = fopen(path, "rb");
    if (!f) FAIL("cannot open %s (run from the repository root)", path);
    static char line[1 << 16];
    struct row *v = NULL;
    size_t n = 0, cap = 0, lineno = 0;
    while (fgets(line, sizeof(line), f)) {
        lineno++;
        size_t len = strlen(line);
        if (len && line[len - 1] != '\n' && !feof(f)) FAIL("%s:%zu: line longer than %zu bytes", path, lineno, sizeof(line));
        if (len && line[len - 1] == '\n') line[--len] = 0;
        if (!len || line[0] == '#') continue;
        char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
        if (!t2 || t1 == line || t2 == t1 + 1 || !t2[1] || strchr(t2 + 1, '\t'))
            FAIL("%s:%zu: want id<TAB>label<TAB>text: %.200s", path, lineno, line);
        *t1 = *t2 = 0;
        /* unescape: only \\ \t \n \r are written by the generator */
        char *s = t2 + 1, *o = s;
        for (; *s; s++) {
            if (*s != '\\') {
                *o++ = *s;
                continue;
            }
            s++;
            if (*s == '\\') *o++ = '\\';
            else if (*s == 't') *o++ = '\t';
            else if (*s == 'n') *o++ = '\n';
            else if (*s == 'r') *o++ = '\r';
            else FAIL("%s:%zu: bad escape \\%c in %s", path, lineno, *s ? *s : '0', line);
        }
        *o = 0;
        if (n == cap) {
            cap = cap ? cap * 2 : 256;
            v = realloc(v, cap * sizeof(*v));
            ASSERT(v != NULL);
        }
        v[n] = (struct row){strdup(line), strdup(t1 + 1), NULL, (size_t)(o - (t2 + 1))};
        v[n].text = malloc(v[n].n + 1);
        memcpy(v[n].text, t2 + 1, v[n].n + 1);
        n++;
    }
    fclose(f);
    /* ids are unique (the lists are small: quadratic is fine) */
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (!strcmp(v[i].id, v[j].id)) FAIL("%s: id %s appears twice", path, v[i].id);
    *nrows = n;
    return v;
}

static void release(struct row *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].id);
        free(v[i].label);
        free(v[i].text);
    }
    free(v);
}

TEST(sanitize_injection_corpus_attacks_parse)
{
    static const char *const cats[] = {
        "direct",    "paraphrase", "role_marker", "tool_json",  "comment", "multilingual", "leetspeak",
        "zero_width", "homoglyph", "fullwidth",   "math_alnum", "spaced",  "base64",       "rot13",
        "hex",       "mixed_case", "punctuation", "tags",       "bidi",    "combining",    NULL};
    size_t n;
    struct row *v = load("tests/injection/attacks.tsv", &n);
    ASSERT_GE_INT(n, 600);
    for (size_t i = 0; i < n; i++) {
        bool known = false;
        for (const char *const *c = cats; *c && !known; c++) known = !strcmp(*c, v[i].label);
        if (!known) FAIL("attack %s: unknown category %s", v[i].id, v[i].label);
        ASSERT(v[i].n >= 10);
        ASSERT(memchr(v[i].text, 0, v[i].n) == NULL);
    }
    for (const char *const *c = cats; *c; c++) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++) k += !strcmp(*c, v[i].label);
        if (k < 25) FAIL("category %s has %zu attacks, want at least 25", *c, k);
    }
    /* the paraphrases are at least 40 distinct ones, the multilingual
     * attacks at least 15 languages x 3 */
    size_t para = 0, multi = 0;
    for (size_t i = 0; i < n; i++) {
        para += !strcmp(v[i].label, "paraphrase");
        multi += !strcmp(v[i].label, "multilingual");
    }
    ASSERT_GE_INT(para, 40);
    ASSERT_GE_INT(multi, 45);
    release(v, n);
}

TEST(sanitize_injection_corpus_benign_hard_parse)
{
    size_t n;
    struct row *v = load("tests/injection/benign_hard.tsv", &n);
    ASSERT_GE_INT(n, 200);
    for (size_t i = 0; i < n; i++) {
        ASSERT(!strncmp(v[i].label, "hard_", 5));
        ASSERT(v[i].n >= 10);
    }
    /* no text is both an attack and a hard negative */
    size_t na;
    struct row *a = load("tests/injection/attacks.tsv", &na);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < na; j++)
            if (!strcmp(v[i].text, a[j].text)) FAIL("%s and %s hold the same text", v[i].id, a[j].id);
    release(a, na);
    release(v, n);
}

/* paraphrase.tsv and benign_agents.tsv (gen_paraphrase.py): every id in the
 * tuning part or the half read since (seen-); fresh.tsv and benign_fresh.tsv
 * (gen_fresh.py, the held-out part): every id fresh-; each part large enough
 * to measure on, and no text both an attack and benign. */
TEST(sanitize_injection_corpus_split_parse)
{
    size_t n, nb, nf, nfb;
    struct row *v = load("tests/injection/paraphrase.tsv", &n);
    struct row *b = load("tests/injection/benign_agents.tsv", &nb);
    struct row *f = load("tests/injection/fresh.tsv", &nf);
    struct row *fb = load("tests/injection/benign_fresh.tsv", &nfb);
    size_t tune = 0, seen = 0, btune = 0, bseen = 0, fresh = 0, bfresh = 0;
    for (size_t i = 0; i < n; i++) {
        tune += !strncmp(v[i].id, "tune-", 5);
        seen += !strncmp(v[i].id, "seen-", 5);
        ASSERT(v[i].n >= 10);
    }
    for (size_t i = 0; i < nb; i++) {
        btune += !strncmp(b[i].id, "tune-", 5);
        bseen += !strncmp(b[i].id, "seen-", 5);
    }
    for (size_t i = 0; i < nf; i++) {
        fresh += !strncmp(f[i].id, "fresh-", 6);
        ASSERT(f[i].n >= 10);
    }
    for (size_t i = 0; i < nfb; i++) bfresh += !strncmp(fb[i].id, "fresh-", 6);
    ASSERT_EQ_INT(tune + seen, n);
    ASSERT_EQ_INT(btune + bseen, nb);
    ASSERT_EQ_INT(fresh, nf);
    ASSERT_EQ_INT(bfresh, nfb);
    ASSERT_GE_INT(seen, 400);
    ASSERT_GE_INT(tune, 400);
    ASSERT_GE_INT(bseen, 60);
    ASSERT_GE_INT(fresh, 420);
    ASSERT_GE_INT(bfresh, 200);
    struct {
        struct row *a, *b;
        size_t na, nb;
    } pairs[] = {{v, b, n, nb}, {f, fb, nf, nfb}, {f, b, nf, nb}, {v, fb, n, nfb}};
    for (size_t p = 0; p < sizeof(pairs) / sizeof(pairs[0]); p++) /* no text on both sides */
        for (size_t i = 0; i < pairs[p].nb; i++)
            for (size_t j = 0; j < pairs[p].na; j++)
                if (!strcmp(pairs[p].b[i].text, pairs[p].a[j].text))
                    FAIL("%s and %s hold the same text", pairs[p].b[i].id, pairs[p].a[j].id);
    release(v, n);
    release(b, nb);
    release(f, nf);
    release(fb, nfb);
}

/* The Vectorscan prefilter matches more than the patterns, never less:
 * wherever a pattern's PCRE2 program matches a text of the corpus (attacks
 * and benign, any language), the database reports that pattern. A pattern
 * whose prefilter part (`hs`) leaves out a branch, or whose letters beyond
 * ASCII Vectorscan does not fold ("À partir", "Od teď budeš"), is found by
 * PCRE2 here and missed by the gate. */
TEST(injection_prefilter_finds_every_pcre_match)
{
    static const char *const files[] = {"tests/injection/attacks.tsv",       "tests/injection/paraphrase.tsv",
                                        "tests/injection/benign_hard.tsv",   "tests/injection/benign_agents.tsv",
                                        "tests/injection/fresh.tsv",         "tests/injection/benign_fresh.tsv"};
    size_t misses = 0, texts = 0;
    for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
        size_t n;
        struct row *v = load(files[f], &n);
        for (size_t i = 0; i < n; i++, texts++) {
            int p = mg__inj_prefilter_miss(v[i].text, v[i].n);
            if (p >= 0 && misses++ < 10) fprintf(stderr, "  pattern %d missed by the prefilter in %s\n", p, v[i].id);
        }
        release(v, n);
    }
    ASSERT_GE_INT(texts, 2000);
    ASSERT_EQ_INT(misses, 0);
}
