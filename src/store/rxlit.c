/* rxlit.c — what text a regex match must contain (see rxlit.h).
 *
 * The analysis follows the idea of Russ Cox's trigram regex search: every
 * sub-pattern gets an "info" saying what its matches look like, and the infos
 * combine bottom-up through concatenation, alternation and repetition. Here the
 * facts are literal strings rather than trigrams, and the parser reads PCRE2
 * syntax directly; anything it does not follow makes the whole formula TRUE.
 *
 * Sections:
 *   1. limits, the parse context, small helpers (ASCII folding, UTF-8)
 *   2. string sets: exact/prefix/suffix sets of byte strings
 *   3. formula nodes: construction with simplification; inside this file a
 *      NULL node means TRUE, so a failed allocation only weakens a formula
 *   4. infos: the algebra of concatenation, alternation, repetition
 *   5. the parser: escapes, classes, groups, quantifiers, sequences
 *   6. public API: analyze, free, eval, format
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
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memmem */
#endif
#include "store/rxlit.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- 1. limits, context, helpers ---------------------------------------- */

#define RX_MAX_PATTERN   (64u * 1024u) /* longer patterns: TRUE */
#define RX_MAX_DEPTH     256           /* group nesting; deeper: TRUE */
#define RX_MAX_NODES     4096          /* nodes in the result; more: TRUE */
#define RX_BUILD_NODES   (1u << 16)    /* nodes built while analyzing; more: TRUE */
#define RX_SET_MAX       16            /* strings in one set */
#define RX_EXACT_MAX     1024          /* bytes of one exact string */
#define RX_AFFIX_MAX     64            /* bytes kept of a prefix or suffix */
#define RX_REP_MAX       8             /* copies expanded for X{n} */
#define RX_CLASS_MAX     8             /* chars of a [...] kept as an exact set */
#define RX_NAME_MAX      256           /* bytes of a group name or \p{...} */
#define RX_IMPLY_BUDGET  (1L << 24)    /* byte compares spent on simplification */

struct ctx {
    const unsigned char *p; /* the pattern (not NUL-terminated) */
    size_t len;             /* its length */
    size_t pos;             /* parse position */
    bool caseless;          /* literals match caselessly (Unicode, UTF mode) */
    bool saw_i;             /* an inline option turned on caseless matching */
    bool quote;             /* inside \Q...\E */
    bool bail;              /* gave up: the whole formula is TRUE */
    bool oom;               /* an allocation failed: the result is discarded */
    size_t nodes;           /* formula nodes built so far */
    long budget;            /* compares left for implication checks */
};

static int fold(int ch)
{
    return ch >= 'A' && ch <= 'Z' ? ch + ('a' - 'A') : ch;
}

static bool ci_eq(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (fold((unsigned char)a[i]) != fold((unsigned char)b[i])) return false;
    return true;
}

/* Naive case-insensitive search; callers bound the work. */
static bool ci_find(const char *h, size_t hl, const char *nd, size_t nl)
{
    if (nl == 0) return true;
    if (nl > hl) return false;
    int first = fold((unsigned char)nd[0]);
    for (size_t i = 0; i + nl <= hl; i++)
        if (fold((unsigned char)h[i]) == first && ci_eq(h + i + 1, nd + 1, nl - 1)) return true;
    return false;
}

/* Decode one UTF-8 character strictly (no overlongs, surrogates or values
 * past U+10FFFF). Returns its length, or 0 when s[0..n) does not start with
 * a valid character. */
static size_t utf8_dec(const unsigned char *s, size_t n, uint32_t *cp)
{
    if (n == 0) return 0;
    unsigned char b = s[0];
    size_t len;
    uint32_t v, min;
    if (b < 0x80) {
        *cp = b;
        return 1;
    } else if (b >= 0xc2 && b <= 0xdf) {
        len = 2, v = b & 0x1f, min = 0x80;
    } else if (b >= 0xe0 && b <= 0xef) {
        len = 3, v = b & 0x0f, min = 0x800;
    } else if (b >= 0xf0 && b <= 0xf4) {
        len = 4, v = b & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    if (n < len) return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;
        v = v << 6 | (s[i] & 0x3f);
    }
    if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) return 0;
    *cp = v;
    return len;
}

static size_t utf8_enc(uint32_t cp, char out[4])
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xc0 | cp >> 6);
        out[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xe0 | cp >> 12);
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | cp >> 18);
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    out[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

static bool utf8_valid(const unsigned char *s, size_t n)
{
    uint32_t cp;
    for (size_t i = 0; i < n;) {
        size_t l = utf8_dec(s + i, n - i, &cp);
        if (!l) return false;
        i += l;
    }
    return true;
}

/* ---- 2. string sets ----------------------------------------------------- */

struct rstr {
    char *p;    /* bytes, NUL-terminated; NULL for an empty string never grown */
    size_t len; /* bytes used */
    size_t cap; /* bytes allocated */
};

struct rset {
    struct rstr *v; /* the strings; no two equal ignoring ASCII case */
    size_t n;       /* how many */
    size_t cap;     /* slots allocated */
};

static bool rstr_append(struct ctx *c, struct rstr *s, const char *d, size_t n)
{
    if (n == 0) return true;
    if (s->len + n + 1 > s->cap) {
        size_t cap = s->cap ? s->cap : 16;
        while (cap < s->len + n + 1) cap *= 2;
        char *p = realloc(s->p, cap);
        if (!p) {
            c->oom = true;
            return false;
        }
        s->p = p;
        s->cap = cap;
    }
    memcpy(s->p + s->len, d, n);
    s->len += n;
    s->p[s->len] = 0;
    return true;
}

static void rset_free(struct rset *s)
{
    for (size_t i = 0; i < s->n; i++) free(s->v[i].p);
    free(s->v);
    s->v = NULL;
    s->n = s->cap = 0;
}

static bool rset_has(const struct rset *s, const char *d, size_t n)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].len == n && ci_eq(s->v[i].p, d, n)) return true;
    return false;
}

/* Add a copy of d[0..n) unless the set already holds it. */
static void rset_push(struct ctx *c, struct rset *s, const char *d, size_t n)
{
    if (rset_has(s, d, n)) return;
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 4;
        struct rstr *v = realloc(s->v, cap * sizeof(*v));
        if (!v) {
            c->oom = true;
            return;
        }
        s->v = v;
        s->cap = cap;
    }
    struct rstr *r = &s->v[s->n];
    memset(r, 0, sizeof(*r));
    if (!rstr_append(c, r, d, n)) return;
    s->n++;
}

static void rset_copy(struct ctx *c, const struct rset *src, struct rset *out)
{
    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < src->n; i++) rset_push(c, out, src->v[i].p, src->v[i].len);
}

static size_t rset_maxlen(const struct rset *s)
{
    size_t m = 0;
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].len > m) m = s->v[i].len;
    return m;
}

static bool rset_has_empty(const struct rset *s)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].len == 0) return true;
    return false;
}

/* Can a × b be formed within the size limits? */
static bool cross_fits(const struct rset *a, const struct rset *b)
{
    return a->n * b->n <= RX_SET_MAX && rset_maxlen(a) + rset_maxlen(b) <= RX_EXACT_MAX;
}

/* out = { x·y : x in a, y in b } */
static void rset_cross(struct ctx *c, const struct rset *a, const struct rset *b, struct rset *out)
{
    memset(out, 0, sizeof(*out));
    struct rstr t = {0};
    for (size_t i = 0; i < a->n; i++) {
        for (size_t j = 0; j < b->n; j++) {
            t.len = 0;
            rstr_append(c, &t, a->v[i].p, a->v[i].len);
            rstr_append(c, &t, b->v[j].p, b->v[j].len);
            rset_push(c, out, t.p ? t.p : "", t.len);
        }
    }
    free(t.p);
}

/* a = a × b; appends in place when b has one string (the common case of a
 * literal run growing one character at a time). */
static void rset_cross_into(struct ctx *c, struct rset *a, const struct rset *b)
{
    if (b->n == 1) {
        for (size_t i = 0; i < a->n; i++) rstr_append(c, &a->v[i], b->v[0].p, b->v[0].len);
        return;
    }
    struct rset out;
    rset_cross(c, a, b, &out);
    rset_free(a);
    *a = out;
}

/* A prefix (or suffix) set that holds "" says nothing: make it exactly {""}. */
static void affix_normalize(struct ctx *c, struct rset *s)
{
    if (s->n == 1 && s->v[0].len == 0) return;
    if (s->n > 0 && !rset_has_empty(s)) return;
    rset_free(s);
    rset_push(c, s, "", 0);
}

/* out = each string of src cut to its first (or, from_end, last) keep bytes. */
static void rset_trim(struct ctx *c, const struct rset *src, size_t keep, bool from_end,
                      struct rset *out)
{
    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < src->n; i++) {
        const struct rstr *s = &src->v[i];
        size_t n = s->len < keep ? s->len : keep;
        const char *d = s->p ? s->p + (from_end ? s->len - n : 0) : "";
        rset_push(c, out, d, n);
    }
    affix_normalize(c, out);
}

/* Keep a prefix/suffix set within RX_SET_MAX by cutting its strings. */
static void affix_limit(struct ctx *c, struct rset *s, bool from_end)
{
    affix_normalize(c, s);
    if (s->n <= RX_SET_MAX) return;
    struct rset t;
    rset_trim(c, s, 3, from_end, &t);
    rset_free(s);
    *s = t;
    if (s->n > RX_SET_MAX) {
        rset_free(s);
        rset_push(c, s, "", 0);
    }
}

/* ---- 3. formula nodes --------------------------------------------------- */

static void node_free(struct mg_rx_node *n)
{
    if (!n) return;
    for (size_t i = 0; i < n->nkids; i++) node_free(n->kids[i]);
    free(n->kids);
    free(n->lit);
    free(n);
}

static struct mg_rx_node *node_alloc(struct ctx *c, enum mg_rx_op op)
{
    if (++c->nodes > RX_BUILD_NODES) {
        c->bail = true;
        return NULL;
    }
    struct mg_rx_node *n = calloc(1, sizeof(*n));
    if (!n) {
        c->oom = true;
        return NULL;
    }
    n->op = op;
    return n;
}

/* A literal node, or NULL (TRUE) when it is too short to look up. */
static struct mg_rx_node *node_lit(struct ctx *c, const char *s, size_t n)
{
    if (n < 3) return NULL;
    struct mg_rx_node *x = node_alloc(c, MG_RX_LIT);
    if (!x) return NULL;
    x->lit = malloc(n + 1);
    if (!x->lit) {
        c->oom = true;
        free(x);
        return NULL;
    }
    memcpy(x->lit, s, n);
    x->lit[n] = 0;
    x->litlen = n;
    return x;
}

/* Does LIT a contain LIT b? Gives up (false) when the budget is spent. */
static bool lit_contains(struct ctx *c, const struct mg_rx_node *a, const struct mg_rx_node *b)
{
    if (b->litlen > a->litlen) return false;
    long cost = (long)((a->litlen - b->litlen + 1) * b->litlen);
    if (cost > c->budget) {
        c->budget = 0;
        return false;
    }
    c->budget -= cost;
    return ci_find(a->lit, a->litlen, b->lit, b->litlen);
}

/* Does a imply b (NULL = TRUE)? May answer false when unsure. */
static bool implies(struct ctx *c, const struct mg_rx_node *a, const struct mg_rx_node *b)
{
    if (!b) return true;
    if (!a || c->budget <= 0) return false;
    c->budget--;
    if (b->op == MG_RX_AND) {
        for (size_t i = 0; i < b->nkids; i++)
            if (!implies(c, a, b->kids[i])) return false;
        return true;
    }
    if (a->op == MG_RX_OR) {
        for (size_t i = 0; i < a->nkids; i++)
            if (!implies(c, a->kids[i], b)) return false;
        return true;
    }
    if (a->op == MG_RX_AND)
        for (size_t i = 0; i < a->nkids; i++)
            if (implies(c, a->kids[i], b)) return true;
    if (b->op == MG_RX_OR)
        for (size_t i = 0; i < b->nkids; i++)
            if (implies(c, a, b->kids[i])) return true;
    if (a->op == MG_RX_LIT && b->op == MG_RX_LIT) return lit_contains(c, a, b);
    return false;
}

struct kids {
    struct mg_rx_node **v; /* children being collected */
    size_t n;              /* how many */
    size_t cap;            /* slots allocated */
};

static void kids_free(struct kids *k)
{
    for (size_t i = 0; i < k->n; i++) node_free(k->v[i]);
    free(k->v);
    memset(k, 0, sizeof(*k));
}

/* Add x (not NULL), flattening a node of the same op into its children. */
static void kids_add(struct ctx *c, struct kids *k, struct mg_rx_node *x, enum mg_rx_op op)
{
    size_t add = x->op == op ? x->nkids : 1;
    if (k->n + add > RX_MAX_NODES) {
        c->bail = true; /* the result would be over the cap anyway */
        node_free(x);
        return;
    }
    if (k->n + add > k->cap) {
        size_t cap = k->cap ? k->cap : 4;
        while (cap < k->n + add) cap *= 2;
        struct mg_rx_node **v = realloc(k->v, cap * sizeof(*v));
        if (!v) {
            c->oom = true;
            node_free(x);
            return;
        }
        k->v = v;
        k->cap = cap;
    }
    if (x->op == op) {
        memcpy(k->v + k->n, x->kids, x->nkids * sizeof(*x->kids));
        k->n += x->nkids;
        free(x->kids);
        free(x);
    } else {
        k->v[k->n++] = x;
    }
}

/* Drop children that add nothing: in an AND one implied by a sibling, in an
 * OR one that implies a sibling. Children [0, old) are already pruned among
 * themselves. Later children are checked first so the earlier of two equal
 * ones stays. */
static void kids_prune(struct ctx *c, struct kids *k, enum mg_rx_op op, size_t old)
{
    for (size_t ii = k->n; ii-- > 0;) {
        for (size_t j = ii < old ? old : 0; j < k->n; j++) {
            if (j == ii || !k->v[j]) continue;
            bool redundant = op == MG_RX_AND ? implies(c, k->v[j], k->v[ii])
                                             : implies(c, k->v[ii], k->v[j]);
            if (redundant) {
                node_free(k->v[ii]);
                k->v[ii] = NULL;
                break;
            }
        }
    }
    size_t w = 0;
    for (size_t i = 0; i < k->n; i++)
        if (k->v[i]) k->v[w++] = k->v[i];
    k->n = w;
}

/* Turn collected children into a node; consumes k. */
static struct mg_rx_node *kids_finish(struct ctx *c, struct kids *k, enum mg_rx_op op)
{
    if (k->n == 0) {
        kids_free(k);
        return NULL;
    }
    if (k->n == 1) {
        struct mg_rx_node *x = k->v[0];
        free(k->v);
        return x;
    }
    struct mg_rx_node *x = node_alloc(c, op);
    if (!x) {
        kids_free(k);
        return NULL;
    }
    x->kids = k->v;
    x->nkids = k->n;
    return x;
}

/* a AND b; consumes both. */
static struct mg_rx_node *and2(struct ctx *c, struct mg_rx_node *a, struct mg_rx_node *b)
{
    if (!a) return b;
    if (!b) return a;
    struct kids k = {0};
    kids_add(c, &k, a, MG_RX_AND);
    size_t old = k.n;
    kids_add(c, &k, b, MG_RX_AND);
    kids_prune(c, &k, MG_RX_AND, old);
    return kids_finish(c, &k, MG_RX_AND);
}

/* a OR b; consumes both. */
static struct mg_rx_node *or2(struct ctx *c, struct mg_rx_node *a, struct mg_rx_node *b)
{
    if (!a || !b) {
        node_free(a);
        node_free(b);
        return NULL;
    }
    struct kids k = {0};
    kids_add(c, &k, a, MG_RX_OR);
    size_t old = k.n;
    kids_add(c, &k, b, MG_RX_OR);
    kids_prune(c, &k, MG_RX_OR, old);
    return kids_finish(c, &k, MG_RX_OR);
}

/* OR of the strings of s as literals (TRUE if any is short). */
static struct mg_rx_node *or_of_set(struct ctx *c, const struct rset *s)
{
    if (s->n == 0) return NULL;
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].len < 3) return NULL;
    struct kids k = {0};
    for (size_t i = 0; i < s->n; i++) {
        struct mg_rx_node *x = node_lit(c, s->v[i].p, s->v[i].len);
        if (!x) { /* out of memory or budget: TRUE is the sound answer */
            kids_free(&k);
            return NULL;
        }
        kids_add(c, &k, x, MG_RX_OR);
    }
    kids_prune(c, &k, MG_RX_OR, 0);
    return kids_finish(c, &k, MG_RX_OR);
}

static size_t node_count(const struct mg_rx_node *n)
{
    if (!n) return 1;
    size_t t = 1;
    for (size_t i = 0; i < n->nkids; i++) t += node_count(n->kids[i]);
    return t;
}

/* ---- 4. infos ----------------------------------------------------------- */

/* What the matches of a sub-pattern look like (see the comment at the top). */
struct info {
    bool exact;           /* e lists every string a match can be */
    struct rset e;        /* exact: the strings */
    struct rset pre;      /* inexact: every match starts with one of these */
    struct rset suf;      /* inexact: every match ends with one of these */
    struct mg_rx_node *m; /* every subject holding a match satisfies m; NULL: TRUE */
};

static void info_free(struct info *x)
{
    rset_free(&x->e);
    rset_free(&x->pre);
    rset_free(&x->suf);
    node_free(x->m);
    memset(x, 0, sizeof(*x));
}

static void info_exact1(struct ctx *c, struct info *x, const char *s, size_t n)
{
    memset(x, 0, sizeof(*x));
    x->exact = true;
    rset_push(c, &x->e, s, n);
}

/* Matches only the empty string (zero-width items). */
static void info_empty(struct ctx *c, struct info *x)
{
    info_exact1(c, x, "", 0);
}

/* Could match anything: claims nothing. */
static void info_any(struct ctx *c, struct info *x)
{
    memset(x, 0, sizeof(*x));
    rset_push(c, &x->pre, "", 0);
    rset_push(c, &x->suf, "", 0);
}

/* Forget the exact set, keeping what it implies. */
static void info_inexact(struct ctx *c, struct info *x)
{
    if (!x->exact) return;
    x->m = and2(c, x->m, or_of_set(c, &x->e));
    rset_trim(c, &x->e, RX_AFFIX_MAX, false, &x->pre);
    rset_trim(c, &x->e, RX_AFFIX_MAX, true, &x->suf);
    rset_free(&x->e);
    x->exact = false;
}

/* The formula that a subject holding a match satisfies; consumes x. */
static struct mg_rx_node *info_formula(struct ctx *c, struct info *x)
{
    struct mg_rx_node *m = x->m;
    x->m = NULL;
    if (x->exact) m = and2(c, m, or_of_set(c, &x->e));
    info_free(x);
    return m;
}

/* x = x·y; consumes y. */
static void info_concat(struct ctx *c, struct info *x, struct info *y)
{
    if (x->exact && y->exact && cross_fits(&x->e, &y->e)) {
        rset_cross_into(c, &x->e, &y->e);
        x->m = and2(c, x->m, y->m);
        y->m = NULL;
        info_free(y);
        return;
    }
    const struct rset *xs = x->exact ? &x->e : &x->suf;
    const struct rset *yp = y->exact ? &y->e : &y->pre;
    struct rset mid = {0};
    bool have_mid = cross_fits(xs, yp);
    if (have_mid) rset_cross(c, xs, yp, &mid);

    struct mg_rx_node *m = and2(c, x->m, y->m);
    x->m = y->m = NULL;
    if (have_mid) {
        m = and2(c, m, or_of_set(c, &mid));
    } else {
        if (x->exact) m = and2(c, m, or_of_set(c, &x->e));
        if (y->exact) m = and2(c, m, or_of_set(c, &y->e));
    }

    struct rset pre, suf;
    if (x->exact) {
        rset_trim(c, have_mid ? &mid : &x->e, RX_AFFIX_MAX, false, &pre);
    } else {
        pre = x->pre;
        memset(&x->pre, 0, sizeof(x->pre));
    }
    if (y->exact) {
        rset_trim(c, have_mid ? &mid : &y->e, RX_AFFIX_MAX, true, &suf);
    } else {
        suf = y->suf;
        memset(&y->suf, 0, sizeof(y->suf));
    }
    rset_free(&mid);
    info_free(x);
    info_free(y);
    x->exact = false;
    x->pre = pre;
    x->suf = suf;
    x->m = m;
}

/* x = x|y; consumes y. */
static void info_alt(struct ctx *c, struct info *x, struct info *y)
{
    if (x->exact && y->exact) {
        size_t extra = 0;
        for (size_t i = 0; i < y->e.n; i++)
            if (!rset_has(&x->e, y->e.v[i].p, y->e.v[i].len)) extra++;
        if (x->e.n + extra <= RX_SET_MAX) {
            for (size_t i = 0; i < y->e.n; i++) rset_push(c, &x->e, y->e.v[i].p, y->e.v[i].len);
            x->m = or2(c, x->m, y->m);
            y->m = NULL;
            info_free(y);
            return;
        }
    }
    info_inexact(c, x);
    info_inexact(c, y);
    x->m = or2(c, x->m, y->m);
    y->m = NULL;
    for (size_t i = 0; i < y->pre.n; i++) rset_push(c, &x->pre, y->pre.v[i].p, y->pre.v[i].len);
    for (size_t i = 0; i < y->suf.n; i++) rset_push(c, &x->suf, y->suf.v[i].p, y->suf.v[i].len);
    affix_limit(c, &x->pre, false);
    affix_limit(c, &x->suf, true);
    info_free(y);
}

/* x = x{min,max}; max < 0 means unbounded. */
static void info_rep(struct ctx *c, struct info *x, long min, long max)
{
    if (max == 0) { /* X{0}: the item is skipped */
        info_free(x);
        info_empty(c, x);
        return;
    }
    if (min == 0) {
        if (max == 1 && x->exact && (x->e.n < RX_SET_MAX || rset_has_empty(&x->e))) {
            rset_push(c, &x->e, "", 0);
            node_free(x->m); /* X may be skipped, and its side formula with it */
            x->m = NULL;
            return;
        }
        info_free(x);
        info_any(c, x);
        return;
    }
    /* Every match holds a first copy of X: an inexact X stays as it is. */
    if (!x->exact) return;
    long k = min < RX_REP_MAX ? min : RX_REP_MAX;
    struct info r;
    info_empty(c, &r);
    for (long i = 0; i < k; i++) {
        struct info t = {.exact = true};
        rset_copy(c, &x->e, &t.e);
        info_concat(c, &r, &t);
    }
    r.m = and2(c, r.m, x->m);
    x->m = NULL;
    if (max != min || min > RX_REP_MAX) {
        /* more copies may follow: the match still ends with a copy of X */
        struct rset suf;
        rset_trim(c, &x->e, RX_AFFIX_MAX, true, &suf);
        info_inexact(c, &r);
        rset_free(&r.suf);
        r.suf = suf;
    }
    info_free(x);
    *x = r;
}

/* Concatenating a sequence: exact items collect in a run that grows in place;
 * the run joins acc when an inexact item comes or the run would overflow. */
struct fold {
    struct info acc; /* everything before the run */
    struct info run; /* exact items not yet joined to acc */
    bool has_run;    /* run is set */
};

static void fold_init(struct ctx *c, struct fold *f)
{
    info_empty(c, &f->acc);
    memset(&f->run, 0, sizeof(f->run));
    f->has_run = false;
}

static void fold_flush(struct ctx *c, struct fold *f)
{
    if (!f->has_run) return;
    info_concat(c, &f->acc, &f->run);
    f->has_run = false;
}

/* Append item a; consumes it. */
static void fold_push(struct ctx *c, struct fold *f, struct info *a)
{
    if (a->exact) {
        if (f->has_run) {
            if (cross_fits(&f->run.e, &a->e)) {
                info_concat(c, &f->run, a);
                return;
            }
            fold_flush(c, f);
        }
        f->run = *a;
        memset(a, 0, sizeof(*a));
        f->has_run = true;
        return;
    }
    fold_flush(c, f);
    info_concat(c, &f->acc, a);
}

static void fold_finish(struct ctx *c, struct fold *f, struct info *out)
{
    fold_flush(c, f);
    *out = f->acc;
}

/* ---- 5. the parser ------------------------------------------------------ */

enum item { ITEM_ATOM, ITEM_SKIP, ITEM_BARRIER };
/* ITEM_ATOM: a quantifiable item, *out set. ITEM_SKIP: nothing (a comment,
 * \E): a quantifier after it applies to the item before. ITEM_BARRIER: an
 * option setting; a quantifier may not follow. On bail the result is SKIP. */

static void parse_alt(struct ctx *c, int depth, struct info *out);

static bool at(const struct ctx *c, size_t i, char ch)
{
    return i < c->len && c->p[i] == (unsigned char)ch;
}

static bool is_digit(int ch)
{
    return ch >= '0' && ch <= '9';
}

static bool is_alnum(int ch)
{
    return is_digit(ch) || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

/* Is ch one of the bytes of set? (strchr alone would also match a NUL.) */
static bool in_set(int ch, const char *set)
{
    return ch != 0 && strchr(set, ch) != NULL;
}

static int hex_val(int ch)
{
    if (is_digit(ch)) return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

/* The info of one literal character. Caselessly, ASCII k and s also match
 * U+212A KELVIN SIGN and U+017F LATIN SMALL LETTER LONG S; other ASCII
 * letters only their other case (which eval and the index fold anyway).
 * Non-ASCII characters have case variants we do not track: unknown. */
static void char_info(struct ctx *c, uint32_t cp, struct info *out)
{
    char b[4];
    size_t n = utf8_enc(cp, b);
    if (!c->caseless) {
        info_exact1(c, out, b, n);
    } else if (cp >= 0x80) {
        info_any(c, out);
    } else if (fold((int)cp) == 'k') {
        info_exact1(c, out, b, n);
        rset_push(c, &out->e, "\xe2\x84\xaa", 3);
    } else if (fold((int)cp) == 's') {
        info_exact1(c, out, b, n);
        rset_push(c, &out->e, "\xc5\xbf", 2);
    } else {
        info_exact1(c, out, b, n);
    }
}

/* The literal character at c->pos (valid UTF-8 is checked up front). */
static void parse_char(struct ctx *c, struct info *out)
{
    uint32_t cp;
    size_t n = utf8_dec(c->p + c->pos, c->len - c->pos, &cp);
    if (!n) { /* cannot happen after validation; be safe anyway */
        c->bail = true;
        c->pos = c->len;
        info_any(c, out);
        return;
    }
    c->pos += n;
    char_info(c, cp, out);
}

/* Skip a delimited name such as {Greek} or <name> starting at c->pos (the
 * opener); only name-like bytes may appear inside. */
static bool skip_name(struct ctx *c, char close)
{
    size_t i = c->pos + 1;
    for (; i < c->len && i - c->pos <= RX_NAME_MAX; i++) {
        unsigned char ch = c->p[i];
        if (ch == (unsigned char)close) {
            if (i == c->pos + 1) return false;
            c->pos = i + 1;
            return true;
        }
        if (!(is_alnum(ch) || ch >= 0x80 || in_set(ch, "_+-&^=:. "))) return false;
    }
    return false;
}

/* Read a code point written as digits of base (8 or 16) in {...} at c->pos. */
static bool braced_number(struct ctx *c, int base, uint32_t *cp)
{
    size_t i = c->pos + 1;
    uint32_t v = 0;
    size_t nd = 0;
    for (; i < c->len && c->p[i] != '}'; i++, nd++) {
        int d = hex_val(c->p[i]);
        if (d < 0 || d >= base || nd > 8) return false;
        v = v * (uint32_t)base + (uint32_t)d;
    }
    if (i >= c->len || nd == 0 || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) return false;
    c->pos = i + 1;
    *cp = v;
    return true;
}

/* A backslash escape outside a class; c->pos is at the backslash. */
static enum item parse_escape(struct ctx *c, struct info *out)
{
    if (c->pos + 1 >= c->len) goto bail;
    unsigned char e = c->p[c->pos + 1];
    c->pos += 2;
    uint32_t cp;
    switch (e) {
    case 'Q':
        c->quote = true;
        return ITEM_SKIP;
    case 'E':
        return ITEM_SKIP;
    case 'b': case 'B': case 'A': case 'z': case 'Z': case 'G': case 'K':
        info_empty(c, out);
        return ITEM_ATOM;
    case 'd': case 'D': case 's': case 'S': case 'w': case 'W': case 'h': case 'H':
    case 'v': case 'V': case 'R': case 'X': case 'C':
        info_any(c, out);
        return ITEM_ATOM;
    case 'N': /* \N, or \N{U+hhhh} (a \N{3} is \N quantified) */
        if (at(c, c->pos, '{') && at(c, c->pos + 1, 'U') && at(c, c->pos + 2, '+') &&
            !skip_name(c, '}'))
            goto bail;
        info_any(c, out);
        return ITEM_ATOM;
    case 'p': case 'P':
        if (at(c, c->pos, '{')) {
            if (!skip_name(c, '}')) goto bail;
        } else if (c->pos < c->len && is_alnum(c->p[c->pos])) {
            c->pos++;
        } else {
            goto bail;
        }
        info_any(c, out);
        return ITEM_ATOM;
    case 'a': cp = 0x07; goto literal;
    case 'e': cp = 0x1b; goto literal;
    case 'f': cp = 0x0c; goto literal;
    case 'n': cp = 0x0a; goto literal;
    case 'r': cp = 0x0d; goto literal;
    case 't': cp = 0x09; goto literal;
    case '0': /* \0 and up to two more octal digits */
        cp = 0;
        for (int i = 0; i < 2 && c->pos < c->len && c->p[c->pos] >= '0' && c->p[c->pos] <= '7'; i++)
            cp = cp * 8 + (uint32_t)(c->p[c->pos++] - '0');
        goto literal;
    case 'o':
        if (!at(c, c->pos, '{') || !braced_number(c, 8, &cp)) goto bail;
        goto literal;
    case 'x':
        if (at(c, c->pos, '{')) {
            if (!braced_number(c, 16, &cp)) goto bail;
        } else {
            cp = 0;
            for (int i = 0; i < 2 && c->pos < c->len && hex_val(c->p[c->pos]) >= 0; i++)
                cp = cp * 16 + (uint32_t)hex_val(c->p[c->pos++]);
        }
        goto literal;
    case 'c': /* control character: \c plus one printable ASCII character */
        if (c->pos >= c->len || c->p[c->pos] < 0x20 || c->p[c->pos] > 0x7e) goto bail;
        c->pos++;
        info_any(c, out);
        return ITEM_ATOM;
    case '1': case '2': case '3': case '4': case '5': case '6': case '7': case '8': case '9':
        /* a backreference, or an octal character followed by digits: unknown */
        while (c->pos < c->len && is_digit(c->p[c->pos])) c->pos++;
        info_any(c, out);
        return ITEM_ATOM;
    case 'g': /* backreference or subroutine call */
        if (at(c, c->pos, '{')) {
            if (!skip_name(c, '}')) goto bail;
        } else if (at(c, c->pos, '<')) {
            if (!skip_name(c, '>')) goto bail;
        } else if (at(c, c->pos, '\'')) {
            if (!skip_name(c, '\'')) goto bail;
        } else {
            if (at(c, c->pos, '-') || at(c, c->pos, '+')) c->pos++;
            if (c->pos >= c->len || !is_digit(c->p[c->pos])) goto bail;
            while (c->pos < c->len && is_digit(c->p[c->pos])) c->pos++;
        }
        info_any(c, out);
        return ITEM_ATOM;
    case 'k': /* named backreference */
        if (!((at(c, c->pos, '<') && skip_name(c, '>')) ||
              (at(c, c->pos, '\'') && skip_name(c, '\'')) ||
              (at(c, c->pos, '{') && skip_name(c, '}'))))
            goto bail;
        info_any(c, out);
        return ITEM_ATOM;
    default:
        if (is_alnum(e)) goto bail; /* PCRE2 rejects unknown letter escapes */
        c->pos--;                   /* the escaped character itself, maybe multibyte */
        parse_char(c, out);
        return ITEM_ATOM;
    }
literal:
    char_info(c, cp, out);
    return ITEM_ATOM;
bail:
    c->bail = true;
    return ITEM_SKIP;
}

/* PCRE2's test for a POSIX class name such as [:alpha:] inside a class: i is
 * at the ':' (or '.' or '='). On success *end is at the closing ':'. */
static bool posix_name(const struct ctx *c, size_t i, size_t *end)
{
    unsigned char term = c->p[i];
    for (i++; i + 2 <= c->len; i++) {
        unsigned char ch = c->p[i], next = c->p[i + 1];
        if (ch == '\\' && (next == ']' || next == '\\')) {
            i++;
        } else if ((ch == '[' && next == term) || ch == ']') {
            return false;
        } else if (ch == term && next == ']') {
            *end = i;
            return true;
        }
    }
    return false;
}

/* A character class [...]; c->pos is at the '['. A small class of plain
 * ASCII characters becomes an exact set; any other is an unknown character. */
static void parse_class(struct ctx *c, struct info *out)
{
    size_t i = c->pos + 1;
    bool negated = false;
    for (;;) { /* like PCRE2: skip \E, \Q\E and one ^ at the start */
        if (at(c, i, '\\') && at(c, i + 1, 'E')) {
            i += 2;
        } else if (at(c, i, '\\') && at(c, i + 1, 'Q') && at(c, i + 2, '\\') && at(c, i + 3, 'E')) {
            i += 4;
        } else if (!negated && at(c, i, '^')) {
            negated = true;
            i++;
        } else {
            break;
        }
    }
    bool simple = !negated, first = true;
    char chars[RX_CLASS_MAX];
    size_t nchars = 0;
    for (;;) {
        if (i >= c->len) goto bail;
        unsigned char ch = c->p[i];
        if (ch == ']' && !first) {
            i++;
            break;
        }
        first = false;
        if (ch == '\\') {
            simple = false;
            if (i + 1 >= c->len) goto bail;
            unsigned char e = c->p[i + 1];
            if (e == 'Q') { /* quoted: up to \E */
                size_t j = i + 2;
                while (j + 1 < c->len && !(c->p[j] == '\\' && c->p[j + 1] == 'E')) j++;
                if (j + 1 >= c->len) goto bail;
                i = j + 2;
                continue;
            }
            uint32_t cp;
            size_t n = e < 0x80 ? 1 : utf8_dec(c->p + i + 1, c->len - i - 1, &cp);
            if (!n) goto bail;
            i += 1 + n;
            if (in_set(e, "xopP") && at(c, i, '{')) {
                size_t save = c->pos;
                c->pos = i;
                bool ok = skip_name(c, '}');
                i = c->pos;
                c->pos = save;
                if (!ok) goto bail;
            }
            continue;
        }
        if (ch == '[' && i + 1 < c->len && in_set(c->p[i + 1], ":.=")) {
            size_t end;
            if (posix_name(c, i + 1, &end)) {
                simple = false;
                i = end + 2;
                continue;
            }
        }
        if (ch == '-' || ch == '[' || ch >= 0x80) {
            simple = false;
            uint32_t cp;
            size_t n = ch < 0x80 ? 1 : utf8_dec(c->p + i, c->len - i, &cp);
            if (!n) goto bail;
            i += n;
            continue;
        }
        if (simple) {
            bool dup = false;
            for (size_t k = 0; k < nchars; k++)
                if (fold((unsigned char)chars[k]) == fold(ch)) dup = true;
            if (!dup && nchars == RX_CLASS_MAX) simple = false;
            else if (!dup) chars[nchars++] = (char)ch;
            if (c->caseless && (fold(ch) == 'k' || fold(ch) == 's')) simple = false;
        }
        i++;
    }
    c->pos = i;
    if (!simple || nchars == 0) {
        info_any(c, out);
        return;
    }
    info_exact1(c, out, &chars[0], 1);
    for (size_t k = 1; k < nchars; k++) rset_push(c, &out->e, &chars[k], 1);
    return;
bail:
    c->bail = true;
    c->pos = c->len;
    info_any(c, out);
}

/* Parse a group body up to its ')' and consume the ')'. */
static void group_body(struct ctx *c, int depth, struct info *out)
{
    parse_alt(c, depth + 1, out);
    if (!c->bail && !at(c, c->pos, ')')) c->bail = true;
    if (c->bail) {
        info_free(out); /* leaves *out zeroed, safe to free again */
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
        info_empty(c, out);
        out->m = info_formula(c, &inner);
        return ITEM_ATOM;
    }
    if (ch == '!' || ch == '*' || (ch == '<' && (at(c, i + 1, '!') || at(c, i + 1, '*')))) {
        /* negative or non-atomic lookaround: zero-width, content unused */
        c->pos = i + (ch == '<' ? 2 : 1);
        group_body(c, depth, &inner);
        if (c->bail) goto bail_inner;
        info_free(&inner);
        info_empty(c, out);
        return ITEM_ATOM;
    }
    if (ch == '<' || ch == '\'') { /* named group */
        c->pos = i;
        if (!skip_name(c, ch == '<' ? '>' : '\'')) goto bail;
        goto body;
    }
    if (ch == 'P') {
        c->pos = i + 1;
        if (at(c, c->pos, '<')) {
            if (!skip_name(c, '>')) goto bail;
            goto body;
        }
        if (at(c, c->pos, '=') || at(c, c->pos, '>')) { /* backreference, subroutine */
            if (!skip_name(c, ')')) goto bail;
            info_any(c, out);
            return ITEM_ATOM;
        }
        goto bail;
    }
    if (ch == 'R' || ch == '&' || is_digit(ch) ||
        ((ch == '+' || ch == '-') && i + 1 < c->len && is_digit(c->p[i + 1]))) {
        /* recursion or subroutine call: could match anything */
        c->pos = i - 1; /* skip_name starts after the opener, here the '?' */
        if (!skip_name(c, ')')) goto bail;
        info_any(c, out);
        return ITEM_ATOM;
    }
    if (ch == '(') { /* conditional: parse for structure, claim nothing */
        c->pos = i;
        group_body(c, depth, &inner);
        if (c->bail) goto bail_inner;
        info_free(&inner);
        info_any(c, out);
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
        info_free(out);
        goto bail;
    }
    return ITEM_ATOM;
bail_inner:
    info_free(&inner);
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
        parse_class(c, out);
        if (c->bail) {
            info_free(out);
            return ITEM_SKIP;
        }
        return ITEM_ATOM;
    case '.':
        c->pos++;
        info_any(c, out);
        return ITEM_ATOM;
    case '^': case '$':
        c->pos++;
        info_empty(c, out);
        return ITEM_ATOM;
    case '\\':
        return parse_escape(c, out);
    default:
        parse_char(c, out);
        return c->bail ? (info_free(out), ITEM_SKIP) : ITEM_ATOM;
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
    fold_init(c, &f);
    while (!c->bail && c->pos < c->len) {
        if (c->quote) { /* \Q...\E: every character is a literal item */
            if (at(c, c->pos, '\\') && at(c, c->pos + 1, 'E')) {
                c->pos += 2;
                c->quote = false;
                continue;
            }
            parse_char(c, &a);
            if (c->bail) {
                info_free(&a);
                break;
            }
            if (has_last) fold_push(c, &f, &last);
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
            info_rep(c, &last, min, max);
            last_quantified = true;
            continue;
        }
        if (c->bail) break;
        enum item kind = parse_atom(c, depth, &a);
        if (c->bail) break;
        if (kind == ITEM_ATOM) {
            if (has_last) fold_push(c, &f, &last);
            last = a;
            has_last = true;
            last_quantified = false;
        } else if (kind == ITEM_BARRIER && has_last) {
            fold_push(c, &f, &last);
            has_last = false;
        }
    }
    if (has_last) fold_push(c, &f, &last);
    fold_finish(c, &f, out);
}

/* Branches separated by '|', up to ')' or the end. */
static void parse_alt(struct ctx *c, int depth, struct info *out)
{
    parse_seq(c, depth, out);
    while (!c->bail && at(c, c->pos, '|')) {
        c->pos++;
        struct info b;
        parse_seq(c, depth, &b);
        info_alt(c, out, &b);
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
    return info_formula(c, &x);
}

static struct mg_rx_node *analyze_fixed(struct ctx *c)
{
    if (!c->caseless) return node_lit(c, (const char *)c->p, c->len);
    struct fold f;
    struct info a, x;
    fold_init(c, &f);
    for (c->pos = 0; c->pos < c->len;) {
        uint32_t cp;
        size_t n = utf8_dec(c->p + c->pos, c->len - c->pos, &cp);
        if (n) {
            c->pos += n;
            char_info(c, cp, &a);
        } else { /* not UTF-8 (PCRE2 would refuse it anyway) */
            c->pos++;
            info_any(c, &a);
        }
        fold_push(c, &f, &a);
    }
    fold_finish(c, &f, &x);
    return info_formula(c, &x);
}

/* ---- 6. public API ------------------------------------------------------ */

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
            node_free(r);
            c.caseless = true;
            c.nodes = 0;
            c.budget = RX_IMPLY_BUDGET;
            r = analyze_regex(&c);
        }
    }
    if (c.oom) {
        node_free(r);
        return mg_err_set(err, MG_E_NO_MEMORY, "out of memory analyzing a regex of %zu bytes", len);
    }
    if (c.bail || node_count(r) > RX_MAX_NODES) {
        node_free(r);
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

void mg_rxlit_free(struct mg_rx_node **n)
{
    if (!n) return;
    node_free(*n);
    *n = NULL;
}

/* Does text contain lit (ASCII case-insensitively)? folded is text with
 * A-Z lowered, or NULL when it could not be made. */
static bool eval_lit(const struct mg_rx_node *n, const char *text, const char *folded, size_t len)
{
    if (n->litlen == 0) return true;
    if (n->litlen > len) return false;
    char small[256];
    char *nd = n->litlen <= sizeof(small) ? small : malloc(n->litlen);
    if (!folded || !nd) {
        if (nd && nd != small) free(nd);
        return ci_find(text, len, n->lit, n->litlen);
    }
    for (size_t i = 0; i < n->litlen; i++) nd[i] = (char)fold((unsigned char)n->lit[i]);
    bool r = memmem(folded, len, nd, n->litlen) != NULL;
    if (nd != small) free(nd);
    return r;
}

static bool eval_node(const struct mg_rx_node *n, const char *text, const char *folded, size_t len)
{
    if (!n) return true;
    switch (n->op) {
    case MG_RX_TRUE:
        return true;
    case MG_RX_LIT:
        return eval_lit(n, text, folded, len);
    case MG_RX_AND:
        for (size_t i = 0; i < n->nkids; i++)
            if (!eval_node(n->kids[i], text, folded, len)) return false;
        return true;
    case MG_RX_OR:
        for (size_t i = 0; i < n->nkids; i++)
            if (eval_node(n->kids[i], text, folded, len)) return true;
        return false;
    }
    return true;
}

bool mg_rxlit_eval(const struct mg_rx_node *n, const char *text, size_t len)
{
    if (!n || n->op == MG_RX_TRUE) return true;
    if (!text) len = 0;
    char *folded = len ? malloc(len) : NULL;
    if (folded)
        for (size_t i = 0; i < len; i++) folded[i] = (char)fold((unsigned char)text[i]);
    bool r = eval_node(n, text ? text : "", folded, len);
    free(folded);
    return r;
}

struct fmt {
    char *buf;  /* output */
    size_t cap; /* its size */
    size_t len; /* bytes needed so far */
};

static void fmt_put(struct fmt *f, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++, f->len++)
        if (f->len + 1 < f->cap) f->buf[f->len] = s[i];
}

static void fmt_node(struct fmt *f, const struct mg_rx_node *n)
{
    if (!n || n->op == MG_RX_TRUE) {
        fmt_put(f, "TRUE", 4);
        return;
    }
    if (n->op == MG_RX_LIT) {
        static const char hex[] = "0123456789abcdef";
        fmt_put(f, "\"", 1);
        for (size_t i = 0; i < n->litlen; i++) {
            unsigned char ch = (unsigned char)n->lit[i];
            if (ch == '"' || ch == '\\') {
                char e[2] = {'\\', (char)ch};
                fmt_put(f, e, 2);
            } else if (ch < 0x20 || ch > 0x7e) {
                char e[4] = {'\\', 'x', hex[ch >> 4], hex[ch & 15]};
                fmt_put(f, e, 4);
            } else {
                fmt_put(f, (const char *)&ch, 1);
            }
        }
        fmt_put(f, "\"", 1);
        return;
    }
    fmt_put(f, n->op == MG_RX_AND ? "AND(" : "OR(", n->op == MG_RX_AND ? 4 : 3);
    for (size_t i = 0; i < n->nkids; i++) {
        if (i) fmt_put(f, ",", 1);
        fmt_node(f, n->kids[i]);
    }
    fmt_put(f, ")", 1);
}

size_t mg_rxlit_format(const struct mg_rx_node *n, char *buf, size_t cap)
{
    struct fmt f = {buf, buf ? cap : 0, 0};
    fmt_node(&f, n);
    if (f.cap) f.buf[f.len < f.cap ? f.len : f.cap - 1] = 0;
    return f.len;
}
