/* rxlit.c — what text a regex match must contain (see rxlit.h).
 *
 * The analysis follows the idea of Russ Cox's trigram regex search: every
 * sub-pattern gets an "info" saying what its matches look like, and the infos
 * combine bottom-up through concatenation, alternation and repetition. Here the
 * facts are literal strings rather than trigrams, and the parser reads PCRE2
 * syntax directly; anything it does not follow makes the whole formula TRUE.
 *
 * Sections:
 *   1. the parser: groups, quantifiers, sequences, alternation (characters,
 *      escapes and classes: rxlit_char.c)
 *   2. public API: analyze
 *
 * Beside it: rxlit_int.h (the limits, the parse context, what the files
 * share), rxlit_node.c (formula nodes: construction with simplification,
 * free, eval, format), rxlit_info.c (string sets and the algebra of infos),
 * rxlit_char.c (characters, escapes and classes).
 *
 * Soundness argument in short: an info either lists every string the
 * sub-pattern can match (exact set E, plus a side formula m that its subject
 * satisfies, e.g. from a lookahead), or gives sets P and S such that every
 * match starts with some p in P and ends with some s in S, plus a formula m
 * that every subject holding a match satisfies. Concatenating X and Y puts a
 * match of X directly before a match of Y, so the subject contains some
 * S(X)·P(Y) string. Zero-width items match the empty string; anything not
 * understood is "inexact with P = S = {""} and m = TRUE", which claims nothing.
 */
#include "store/rxlit_int.h"

#include <stdlib.h>

/* ---- 1. the parser ------------------------------------------------------- */

static void parse_alt(struct ctx *c, int depth, struct info *out);

static bool utf8_valid(const unsigned char *s, size_t n)
{
    uint32_t cp;
    for (size_t i = 0; i < n;) {
        size_t l = mg__rx_utf8_dec(s + i, n - i, &cp);
        if (!l) return false;
        i += l;
    }
    return true;
}

/* Parse a group body up to its ')' and consume the ')'. */
static void group_body(struct ctx *c, int depth, struct info *out)
{
    parse_alt(c, depth + 1, out);
    if (!c->bail && !at(c, c->pos, ')')) c->bail = true;
    if (c->bail) {
        mg__rx_info_free(out); /* leaves *out zeroed, safe to free again */
        return;
    }
    c->pos++;
}

/* A group; c->pos is at the '('. */
static enum item parse_group(struct ctx *c, int depth, struct info *out)
{
    if (depth + 1 > RX_MAX_DEPTH) goto bail;
    size_t i = c->pos + 1;
    if (i >= c->len || c->p[i] == '*') goto bail; /* (*VERB) inside the pattern */
    if (c->p[i] != '?') {                          /* capture group */
        c->pos = i;
        group_body(c, depth, out);
        return c->bail ? ITEM_SKIP : ITEM_ATOM;
    }
    i++;
    if (i >= c->len) goto bail;
    unsigned char ch = c->p[i];
    struct info inner;

    if (ch == '#') { /* comment, up to the first ')' */
        while (i < c->len && c->p[i] != ')') i++;
        if (i >= c->len) goto bail;
        c->pos = i + 1;
        return ITEM_SKIP;
    }
    if (ch == ':' || ch == '|' || ch == '>') { /* non-capture, branch reset, atomic */
        c->pos = i + 1;
        goto body;
    }
    if (ch == '=' || (ch == '<' && at(c, i + 1, '='))) { /* positive lookaround */
        c->pos = i + (ch == '=' ? 1 : 2);
        group_body(c, depth, &inner);
        if (c->bail) goto bail_inner;
        mg__rx_info_empty(c, out);
        out->m = mg__rx_info_formula(c, &inner);
        return ITEM_ATOM;
    }
    if (ch == '!' || ch == '*' || (ch == '<' && (at(c, i + 1, '!') || at(c, i + 1, '*')))) {
        /* negative or non-atomic lookaround: zero-width, content unused */
        c->pos = i + (ch == '<' ? 2 : 1);
        group_body(c, depth, &inner);
        if (c->bail) goto bail_inner;
        mg__rx_info_free(&inner);
        mg__rx_info_empty(c, out);
        return ITEM_ATOM;
    }
    if (ch == '<' || ch == '\'') { /* named group */
        c->pos = i;
        if (!mg__rx_skip_name(c, ch == '<' ? '>' : '\'')) goto bail;
        goto body;
    }
    if (ch == 'P') {
        c->pos = i + 1;
        if (at(c, c->pos, '<')) {
            if (!mg__rx_skip_name(c, '>')) goto bail;
            goto body;
        }
        if (at(c, c->pos, '=') || at(c, c->pos, '>')) { /* backreference, subroutine */
            if (!mg__rx_skip_name(c, ')')) goto bail;
            mg__rx_info_any(c, out);
            return ITEM_ATOM;
        }
        goto bail;
    }
    if (ch == 'R' || ch == '&' || is_digit(ch) ||
        ((ch == '+' || ch == '-') && i + 1 < c->len && is_digit(c->p[i + 1]))) {
        /* recursion or subroutine call: could match anything */
        c->pos = i - 1; /* skip_name starts after the opener, here the '?' */
        if (!mg__rx_skip_name(c, ')')) goto bail;
        mg__rx_info_any(c, out);
        return ITEM_ATOM;
    }
    if (ch == '(') { /* conditional: parse for structure, claim nothing */
        c->pos = i;
        group_body(c, depth, &inner);
        if (c->bail) goto bail_inner;
        mg__rx_info_free(&inner);
        mg__rx_info_any(c, out);
        return ITEM_ATOM;
    }
    if (in_set(ch, "imnsxJU^-")) { /* option setting (?i) or group (?i:...) */
        bool on = true;
        for (size_t j = i; j < c->len; j++) {
            unsigned char o = c->p[j];
            if (o == 'x') goto bail; /* extended syntax: not followed here */
            if (o == 'i' && on) c->saw_i = true;
            if (o == '-') {
                if (!on) goto bail;
                on = false;
            } else if (o == '^') {
                if (j != i) goto bail;
            } else if (o == ')') {
                c->pos = j + 1;
                return ITEM_BARRIER;
            } else if (o == ':') {
                c->pos = j + 1;
                goto body;
            } else if (!in_set(o, "imnsJU")) {
                goto bail;
            }
        }
        goto bail;
    }
    goto bail; /* callouts (?C...) and anything unknown */

body:
    group_body(c, depth, out);
    if (c->bail) {
        mg__rx_info_free(out);
        goto bail;
    }
    return ITEM_ATOM;
bail_inner:
    mg__rx_info_free(&inner);
bail:
    c->bail = true;
    return ITEM_SKIP;
}

/* One item at c->pos (not a quantifier, '|' or ')'). */
static enum item parse_atom(struct ctx *c, int depth, struct info *out)
{
    switch (c->p[c->pos]) {
    case '(':
        return parse_group(c, depth, out);
    case '[':
        mg__rx_parse_class(c, out);
        if (c->bail) {
            mg__rx_info_free(out);
            return ITEM_SKIP;
        }
        return ITEM_ATOM;
    case '.':
        c->pos++;
        mg__rx_info_any(c, out);
        return ITEM_ATOM;
    case '^': case '$':
        c->pos++;
        mg__rx_info_empty(c, out);
        return ITEM_ATOM;
    case '\\':
        return mg__rx_parse_escape(c, out);
    default:
        mg__rx_parse_char(c, out);
        return c->bail ? (mg__rx_info_free(out), ITEM_SKIP) : ITEM_ATOM;
    }
}

static long read_num(const struct ctx *c, size_t *i)
{
    long v = 0;
    while (*i < c->len && is_digit(c->p[*i])) {
        if (v < 1000000) v = v * 10 + (c->p[*i] - '0');
        (*i)++;
    }
    return v;
}

/* A quantifier at c->pos? Returns true and consumes it (with a lazy '?' or
 * possessive '+' suffix) if so. PCRE2 10.42 takes {n}, {n,}, {n,m}; any other
 * '{' is a literal, but later versions also accept {,m} and spaces, so a '{'
 * followed only by digits, commas and spaces up to a '}' makes us bail. */
static bool parse_quant(struct ctx *c, long *min, long *max)
{
    unsigned char ch = c->p[c->pos];
    size_t i = c->pos + 1;
    if (ch == '*') {
        *min = 0, *max = -1;
    } else if (ch == '+') {
        *min = 1, *max = -1;
    } else if (ch == '?') {
        *min = 0, *max = 1;
    } else if (ch == '{') {
        bool ok = false;
        if (i < c->len && is_digit(c->p[i])) {
            *min = read_num(c, &i);
            if (at(c, i, '}')) {
                *max = *min;
                ok = true;
            } else if (at(c, i, ',')) {
                i++;
                if (at(c, i, '}')) {
                    *max = -1;
                    ok = true;
                } else if (i < c->len && is_digit(c->p[i])) {
                    *max = read_num(c, &i);
                    ok = at(c, i, '}');
                }
            }
        }
        if (!ok) {
            size_t j = c->pos + 1;
            while (j < c->len && (is_digit(c->p[j]) || c->p[j] == ',' || c->p[j] == ' ')) j++;
            if (at(c, j, '}')) c->bail = true;
            return false;
        }
        i++; /* the '}' */
        if (*max >= 0 && *max < *min) {
            c->bail = true;
            return false;
        }
    } else {
        return false;
    }
    if (at(c, i, '?') || at(c, i, '+')) i++;
    c->pos = i;
    return true;
}

/* A sequence of items up to '|', ')' or the end. */
static void parse_seq(struct ctx *c, int depth, struct info *out)
{
    struct fold f;
    struct info last = {0}, a;
    bool has_last = false, last_quantified = false;
    mg__rx_fold_init(c, &f);
    while (!c->bail && c->pos < c->len) {
        if (c->quote) { /* \Q...\E: every character is a literal item */
            if (at(c, c->pos, '\\') && at(c, c->pos + 1, 'E')) {
                c->pos += 2;
                c->quote = false;
                continue;
            }
            mg__rx_parse_char(c, &a);
            if (c->bail) {
                mg__rx_info_free(&a);
                break;
            }
            if (has_last) mg__rx_fold_push(c, &f, &last);
            last = a;
            has_last = true;
            last_quantified = false;
            continue;
        }
        unsigned char ch = c->p[c->pos];
        if (ch == '|' || ch == ')') break;
        long min, max;
        if (parse_quant(c, &min, &max)) {
            if (!has_last || last_quantified) {
                c->bail = true;
                break;
            }
            mg__rx_info_rep(c, &last, min, max);
            last_quantified = true;
            continue;
        }
        if (c->bail) break;
        enum item kind = parse_atom(c, depth, &a);
        if (c->bail) break;
        if (kind == ITEM_ATOM) {
            if (has_last) mg__rx_fold_push(c, &f, &last);
            last = a;
            has_last = true;
            last_quantified = false;
        } else if (kind == ITEM_BARRIER && has_last) {
            mg__rx_fold_push(c, &f, &last);
            has_last = false;
        }
    }
    if (has_last) mg__rx_fold_push(c, &f, &last);
    mg__rx_fold_finish(c, &f, out);
}

/* Branches separated by '|', up to ')' or the end. */
static void parse_alt(struct ctx *c, int depth, struct info *out)
{
    parse_seq(c, depth, out);
    while (!c->bail && at(c, c->pos, '|')) {
        c->pos++;
        struct info b;
        parse_seq(c, depth, &b);
        mg__rx_info_alt(c, out, &b);
    }
}

/* Skip the start-of-pattern settings such as (*UTF) or (*LIMIT_MATCH=10);
 * any other (*VERB) makes us bail. */
static void skip_leading_verbs(struct ctx *c)
{
    static const char *const plain[] = {
        "UTF", "UCP", "NOTEMPTY", "NOTEMPTY_ATSTART", "NO_AUTO_POSSESS", "NO_DOTSTAR_ANCHOR",
        "NO_JIT", "NO_START_OPT", "CR", "LF", "CRLF", "ANYCRLF", "ANY", "NUL", "BSR_ANYCRLF",
        "BSR_UNICODE"};
    static const char *const valued[] = {"LIMIT_HEAP", "LIMIT_MATCH", "LIMIT_DEPTH",
                                         "LIMIT_RECURSION"};
    while (at(c, c->pos, '(') && at(c, c->pos + 1, '*')) {
        size_t s = c->pos + 2, e = s;
        while (e < c->len && c->p[e] != ')' && e - s < 64) e++;
        if (!at(c, e, ')')) goto bail;
        const char *name = (const char *)c->p + s;
        size_t n = e - s;
        bool known = false;
        for (size_t k = 0; k < sizeof(plain) / sizeof(plain[0]); k++)
            if (strlen(plain[k]) == n && memcmp(plain[k], name, n) == 0) known = true;
        for (size_t k = 0; k < sizeof(valued) / sizeof(valued[0]); k++) {
            size_t l = strlen(valued[k]);
            if (n > l + 1 && memcmp(valued[k], name, l) == 0 && name[l] == '=') {
                known = true;
                for (size_t d = l + 1; d < n; d++)
                    if (!is_digit((unsigned char)name[d])) known = false;
            }
        }
        if (!known) goto bail;
        c->pos = e + 1;
    }
    return;
bail:
    c->bail = true;
}

static struct mg_rx_node *analyze_regex(struct ctx *c)
{
    struct info x;
    c->pos = 0;
    c->quote = false;
    skip_leading_verbs(c);
    if (c->bail) return NULL;
    parse_alt(c, 0, &x);
    if (!c->bail && c->pos < c->len) c->bail = true; /* an unmatched ')' */
    return mg__rx_info_formula(c, &x);
}

static struct mg_rx_node *analyze_fixed(struct ctx *c)
{
    if (!c->caseless) return mg__rx_node_lit(c, (const char *)c->p, c->len);
    struct fold f;
    struct info a, x;
    mg__rx_fold_init(c, &f);
    for (c->pos = 0; c->pos < c->len;) {
        uint32_t cp;
        size_t n = mg__rx_utf8_dec(c->p + c->pos, c->len - c->pos, &cp);
        if (n) {
            c->pos += n;
            mg__rx_char_info(c, cp, &a);
        } else { /* not UTF-8 (PCRE2 would refuse it anyway) */
            c->pos++;
            mg__rx_info_any(c, &a);
        }
        mg__rx_fold_push(c, &f, &a);
    }
    mg__rx_fold_finish(c, &f, &x);
    return mg__rx_info_formula(c, &x);
}

/* ---- 2. public API ------------------------------------------------------- */

int mg_rxlit_analyze(const char *pattern, size_t len, unsigned flags, struct mg_rx_node **out,
                     struct mg_err *err)
{
    struct mg_rx_node *r = NULL;
    struct ctx c = {
        .p = (const unsigned char *)pattern,
        .len = len,
        .caseless = (flags & MG_RX_CASELESS) != 0,
        .budget = RX_IMPLY_BUDGET,
    };
    *out = NULL;
    if (len > RX_MAX_PATTERN || (len > 0 && !pattern)) {
        c.bail = true;
    } else if (flags & MG_RX_FIXED) {
        r = analyze_fixed(&c);
    } else if (!utf8_valid(c.p, len)) {
        c.bail = true; /* PCRE2 in UTF mode refuses the pattern */
    } else {
        r = analyze_regex(&c);
        if (!c.bail && !c.oom && c.saw_i && !c.caseless) {
            /* an inline (?i) somewhere: redo it all caselessly (sound, simple) */
            mg__rx_node_free(r);
            c.caseless = true;
            c.nodes = 0;
            c.budget = RX_IMPLY_BUDGET;
            r = analyze_regex(&c);
        }
    }
    if (c.oom) {
        mg__rx_node_free(r);
        return mg_err_set(err, MG_E_NO_MEMORY, "out of memory analyzing a regex of %zu bytes", len);
    }
    if (c.bail || mg__rx_node_count(r) > RX_MAX_NODES) {
        mg__rx_node_free(r);
        r = NULL;
    }
    if (!r) {
        r = calloc(1, sizeof(*r));
        if (!r) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory analyzing a regex");
        r->op = MG_RX_TRUE;
    }
    *out = r;
    return 0;
}
