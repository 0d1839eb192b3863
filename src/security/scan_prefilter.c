/* scan_prefilter.c — a rule's pattern as the secret scanner's first pass
 * compiles it (scan_int.h: mg__scan_prefilter_form). The rules found by a
 * common keyword, and the multi-line ones, are in the first pass by their
 * pattern: in Vectorscan's prefilter mode, relaxed and cut so that it runs
 * fast and reports each match once, or as the literal all its matches end
 * with. What is rewritten is read from the pattern's tokens, as far as that
 * needs them (a small tokeniser, not a regex parser: PCRE2 has compiled the
 * pattern already, so it is well formed).
 *
 * Sections:
 *   1. atoms and quantifiers
 *   2. the tokens of a pattern
 *   3. the pattern relaxed for prefilter mode
 *   4. the literal a pattern ends with
 *   5. the form the first pass compiles
 */
#include "security/scan_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- 1. atoms and quantifiers ----------------------------------------------------------- */

/* Can the one-character atom p[0..n) (a class, an escape, '.' or a literal)
 * match "\n"? Asked of PCRE2, which knows every class syntax; an atom it
 * does not compile is taken to match. */
static bool atom_matches_newline(const char *p, size_t n)
{
    int ec;
    PCRE2_SIZE off;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)p, n, PCRE2_NEVER_UTF | PCRE2_NEVER_UCP, &ec, &off, NULL);
    if (!re) return true;
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    bool m = !md || pcre2_match(re, (PCRE2_SPTR) "\n", 1, 0, PCRE2_ANCHORED, md, NULL) >= 0;
    pcre2_match_data_free(md);
    pcre2_code_free(re);
    return m;
}

/* The length of the quantifier {m}, {m,} or {m,n} at p (0: p is not one,
 * and PCRE2 takes the '{' as a literal). *cut: m when it is {m,} or {m,n}
 * with m >= 1, what the quantifier can be cut to; else 0. */
static size_t brace_quant(const char *p, unsigned long *cut)
{
    size_t i = 1;
    unsigned long m = 0;
    *cut = 0;
    if (!isdigit((unsigned char)p[i])) return 0;
    for (; isdigit((unsigned char)p[i]); i++)
        if (m < 100000) m = m * 10 + (unsigned long)(p[i] - '0'); /* (PCRE2 allows at most 65535) */
    bool open = p[i] == ',';
    if (open) {
        i++;
        while (isdigit((unsigned char)p[i])) i++;
    }
    if (p[i] != '}') return 0;
    if (open && m >= 1) *cut = m;
    return i + 1;
}

/* ---- 2. the tokens of a pattern --------------------------------------------------------- */

/* The tokens of a pattern, as far as the first pass's rewriting needs them:
 * for each byte that starts a token its kind and its end (end[]), and for
 * each token's last byte where the token starts (start[]). Escapes, classes,
 * \Q...\E and (?#...) comments are single tokens. In a `simple` pattern, '('
 * and ')' point at each other (match[]) and a '|' at its group's ')' (n at
 * the top); a quantifier holds what it can be cut to (rep[]: 1 for '+', m
 * for {m,} and {m,n}). Not simple: lookarounds, conditionals, named groups,
 * inline flags other than (?i), back-references, escapes longer than two
 * bytes (\x41, \p{L}, ...); those are tokenised only far enough to find
 * their bounded repeats. -1: no memory. */
enum { K_NONE, K_OPEN, K_CLOSE, K_ALT, K_QUANT, K_ATOM };
struct syn {
    size_t n;
    unsigned char *kind;
    size_t *end, *start, *match;
    unsigned long *rep;
    bool simple;
    bool caseless;       /* (?i) first, and no other (?i */
    bool mixed;          /* a (?i) or (?i: elsewhere */
};

static void syn_free(struct syn *y)
{
    free(y->kind);
    free(y->end);
    free(y->start);
    free(y->match);
    free(y->rep);
}

static int syn_parse(const char *p, struct syn *y)
{
    size_t n = strlen(p), nflags = 0;
    memset(y, 0, sizeof(*y));
    y->n = n;
    y->simple = true;
    for (size_t i = 0; i + 1 < n; i++) {
        if (p[i] == '\\') {
            if (strchr("0123456789gkxopPcNu", p[i + 1])) y->simple = false;
            i++;
        } else if (p[i] == '(' && p[i + 1] == '?') {
            if (p[i + 2] == 'i' && (p[i + 3] == ')' || p[i + 3] == ':')) nflags++;
            else if (p[i + 2] != ':' && p[i + 2] != '#') y->simple = false;
        }
    }
    y->caseless = nflags == 1 && strncmp(p, "(?i)", 4) == 0;
    y->mixed = nflags && !y->caseless;
    y->kind = calloc(n + 1, 1);
    y->end = calloc(n + 1, sizeof(size_t));
    y->start = calloc(n + 1, sizeof(size_t));
    y->match = calloc(n + 1, sizeof(size_t));
    y->rep = calloc(n + 1, sizeof(unsigned long));
    size_t *stack = calloc(n + 1, sizeof(size_t)), depth = 0;
    if (!y->kind || !y->end || !y->start || !y->match || !y->rep || !stack) {
        free(stack);
        syn_free(y);
        return -1;
    }
    for (size_t i = 0; i < n;) {
        size_t skip = 1;
        unsigned char k = K_NONE;
        if (p[i] == '\\' && p[i + 1] == 'Q') {
            const char *e = strstr(p + i + 2, "\\E");
            skip = e ? (size_t)(e - p) + 2 - i : n - i;
        } else if (p[i] == '\\') {
            skip = i + 1 < n ? 2 : 1;
            y->simple = y->simple && skip == 2; /* (a '\' last: PCRE2 rejected it already) */
            if (skip == 2 && (!isalnum((unsigned char)p[i + 1]) || strchr("dDsSwWtnr", p[i + 1]))) k = K_ATOM; /* else \b, \A, ... */
        } else if (p[i] == '[') {
            size_t j = i + 1;
            j += p[j] == '^';
            j += p[j] == ']'; /* a ']' first is a member */
            while (j < n && p[j] != ']') {
                if (p[j] == '[' && p[j + 1] == ':') { /* [:alpha:] */
                    const char *e = strstr(p + j + 2, ":]");
                    y->simple = y->simple && e; /* (without ":]" PCRE2 decides what it is) */
                    j = e ? (size_t)(e - p) + 2 : j + 1;
                } else {
                    j += p[j] == '\\' ? 2 : 1;
                }
            }
            k = j < n ? K_ATOM : K_NONE; /* (unterminated: PCRE2 rejected it already) */
            y->simple = y->simple && j < n;
            skip = (j < n ? j + 1 : n) - i;
        } else if (p[i] == '(' && p[i + 1] == '?' && p[i + 2] == '#') {
            const char *e = strchr(p + i, ')');
            skip = e ? (size_t)(e - p) + 1 - i : n - i;
        } else if (p[i] == '(' && p[i + 1] == '?' && p[i + 2] == 'i' && p[i + 3] == ')') {
            skip = 4; /* a flag, not a group */
        } else if (p[i] == '(') {
            k = K_OPEN;
            stack[depth++] = i;
            if (y->simple && p[i + 1] == '?') skip = p[i + 2] == ':' ? 3 : 4; /* (?: (?i: */
        } else if (p[i] == ')') {
            k = K_CLOSE;
            if (depth) {
                y->match[i] = stack[--depth];
                y->match[y->match[i]] = i;
            } else {
                y->simple = false;
            }
        } else if (p[i] == '|') {
            k = K_ALT;
        } else if (p[i] == '+' || p[i] == '*' || p[i] == '?') {
            k = K_QUANT;
            y->rep[i] = p[i] == '+';
        } else if (p[i] == '{' && (skip = brace_quant(p + i, &y->rep[i]))) {
            k = K_QUANT;
        } else {
            skip = 1;
            if (p[i] != '^' && p[i] != '$') k = K_ATOM; /* '.' or a literal */
        }
        if (skip > n - i) skip = n - i;
        y->kind[i] = k;
        y->end[i] = i + skip;
        y->start[i + skip - 1] = i;
        i += skip;
    }
    if (depth) y->simple = false;
    for (size_t k = 0; k < n && y->simple; k++)
        if (y->kind[k] == K_ALT) {
            size_t d = 0, j = k + 1;
            for (; j < n; j++) {
                if (y->kind[j] == K_OPEN) d++;
                else if (y->kind[j] == K_CLOSE && d-- == 0) break;
            }
            y->match[k] = j;
        }
    free(stack);
    return 0;
}

/* ---- 3. the pattern relaxed for prefilter mode ------------------------------------------ */

/* Does the repeat ending at qe end the pattern, or an alternative that
 * does? (Past ')' and '|' only; a repeated group's quantifier ends the walk.) */
static bool at_tail(const struct syn *y, size_t qe)
{
    for (size_t k = qe; k < y->n;) {
        if (y->kind[k] == K_ALT) k = y->match[k];
        else if (y->kind[k] == K_CLOSE) k++;
        else return false;
    }
    return true;
}

/* The pattern as the prefilter compiles it. NULL: out of memory.
 * - A bounded repeat {m,n} with n more than m + 16 becomes {m,}. The
 *   language only grows (prefilter mode matches a superset anyway), so every
 *   end of a real match is still a hit; Vectorscan runs a long bounded
 *   repeat much slower than an open one (the generic rules' {16,200}: 2x on
 *   secret-dense text).
 * - In a simple pattern (syn_parse), a repeat that ends the pattern, or an
 *   alternative that does, of one character that is never '\n', is cut to
 *   its minimum: X+ becomes X, X{m,} and X{m,n} become X{m} (m >= 1).
 *   Vectorscan reports every end of every match, so a pattern ending in
 *   [A-Za-z0-9/+=]{100,} gave a hit for each byte of a long base64 value (a
 *   third of the first pass's hits on secret-dense text, each skipped after
 *   Vectorscan had made it). The cut pattern's shortest match is the
 *   original's, on the same line (the bytes cut are X's, not '\n'), so each
 *   match's first hit, and its window, is where it was; what goes is the
 *   later ends of matches already found. */
static char *prefilter_pattern(const char *p)
{
    struct syn y;
    if (syn_parse(p, &y) != 0) return NULL;
    char *out = malloc(y.n + 1), *o = out; /* (every rewrite is shorter than what it replaces) */
    for (size_t i = 0; out && i < y.n;) {
        size_t e = y.end[i];
        if (y.kind[i] == K_QUANT && y.rep[i] && y.simple && i > 0 && y.kind[y.start[i - 1]] == K_ATOM) {
            size_t a = y.start[i - 1], qe = e + (e < y.n && p[e] == '?'); /* (a lazy one too) */
            if (at_tail(&y, qe) && !atom_matches_newline(p + a, i - a)) {
                if (p[i] == '{') o += sprintf(o, "{%lu}", y.rep[i]);
                i = qe;
                continue;
            }
        }
        char *e1;
        unsigned long m;
        if (y.kind[i] == K_QUANT && p[i] == '{' && (m = strtoul(p + i + 1, &e1, 10), *e1 == ',') &&
            isdigit((unsigned char)e1[1]) && strtoul(e1 + 1, NULL, 10) > m + 16) {
            o += sprintf(o, "{%lu,}", m);
        } else {
            memcpy(o, p + i, e - i);
            o += e - i;
        }
        i = e;
    }
    if (out) *o = 0;
    syn_free(&y);
    return out;
}

/* ---- 4. the literal a pattern ends with ------------------------------------------------- */

/* The literal every match of the pattern ends with (the END line of a PEM
 * key): its plain characters and escaped punctuation after the last token
 * that is neither, under closing parentheses of groups without
 * alternatives; into out (at most cap bytes, NUL-terminated). Returns its
 * length; 0: none, the pattern is not simple, or a (?i: group or a late
 * (?i) makes its case unsure. */
static size_t literal_suffix(const char *p, char *out, size_t cap, bool *caseless)
{
    struct syn y;
    if (syn_parse(p, &y) != 0) return 0;
    size_t j = y.n, len = 0;
    bool ok = y.simple && !y.mixed;
    while (ok && j > 0 && y.kind[y.start[j - 1]] == K_CLOSE) { /* a group closed at the end: no '|' of its own */
        for (size_t k = y.match[j - 1] + 1; k < j - 1 && ok; k++) ok = !(y.kind[k] == K_ALT && y.match[k] == j - 1);
        j--;
    }
    size_t end = j = ok ? j : 0;
    while (j > 0 && len + 1 < cap) {
        size_t i = y.start[j - 1];
        if (y.kind[i] != K_ATOM || !(i + 1 == j ? p[i] != '.' : i + 2 == j && p[i] == '\\' && !isalnum((unsigned char)p[i + 1])))
            break;
        j = i;
        len++;
    }
    size_t o = 0;
    for (size_t i = j; i < end; i = y.end[i]) out[o++] = p[i + (p[i] == '\\')];
    out[o] = 0;
    *caseless = y.caseless;
    syn_free(&y);
    return o;
}

/* ---- 5. the form the first pass compiles ------------------------------------------------ */

/* A prefilter rule's pattern as the first pass compiles it, and its flags:
 * the literal all its matches end with, when it has one that holds one of
 * the rule's keywords (so it occurs no more often than the keyword): a hit
 * where it occurs, at the end of the match as the pattern's would be, and no
 * automaton kept running over a key block from its BEGIN line. Else the
 * pattern rewritten by prefilter_pattern, in prefilter mode. NULL: no
 * memory. */
char *mg__scan_prefilter_form(const struct mg__scan_rule *r, unsigned *flags)
{
    char lit[256];
    bool caseless = false;
    size_t n = literal_suffix(r->pattern, lit, sizeof(lit), &caseless);
    bool kw = false;
    for (size_t k = 0; k < r->nkw && !kw; k++) kw = mg__scan_has_word(lit, n, r->kw[k]);
    char *p;
    if (kw) {
        if ((p = malloc(4 * n + 1)))
            for (size_t b = 0; b < n; b++) sprintf(p + 4 * b, "\\x%02x", (unsigned char)lit[b]);
        *flags = caseless ? HS_FLAG_CASELESS : 0;
        return p;
    }
    *flags = HS_FLAG_PREFILTER | HS_FLAG_MULTILINE;
    return prefilter_pattern(r->pattern);
}
