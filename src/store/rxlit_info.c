/* rxlit_info.c — what the matches of a sub-pattern look like (see the
 * soundness argument at the top of rxlit.c and rxlit_int.h).
 *
 * Sections:
 *   1. string sets: exact/prefix/suffix sets of byte strings
 *   2. infos: the algebra of concatenation, alternation, repetition
 *   3. folding a sequence: exact items grow one run in place
 */
#include "store/rxlit_int.h"

#include <stdlib.h>

/* ---- 1. string sets ------------------------------------------------------ */

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
void mg__rx_rset_push(struct ctx *c, struct rset *s, const char *d, size_t n)
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
    for (size_t i = 0; i < src->n; i++) mg__rx_rset_push(c, out, src->v[i].p, src->v[i].len);
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
            mg__rx_rset_push(c, out, t.p ? t.p : "", t.len);
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
    mg__rx_rset_push(c, s, "", 0);
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
        mg__rx_rset_push(c, out, d, n);
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
        mg__rx_rset_push(c, s, "", 0);
    }
}

/* ---- 2. infos ------------------------------------------------------------ */

void mg__rx_info_free(struct info *x)
{
    rset_free(&x->e);
    rset_free(&x->pre);
    rset_free(&x->suf);
    mg__rx_node_free(x->m);
    memset(x, 0, sizeof(*x));
}

void mg__rx_info_exact1(struct ctx *c, struct info *x, const char *s, size_t n)
{
    memset(x, 0, sizeof(*x));
    x->exact = true;
    mg__rx_rset_push(c, &x->e, s, n);
}

/* Matches only the empty string (zero-width items). */
void mg__rx_info_empty(struct ctx *c, struct info *x)
{
    mg__rx_info_exact1(c, x, "", 0);
}

/* Could match anything: claims nothing. */
void mg__rx_info_any(struct ctx *c, struct info *x)
{
    memset(x, 0, sizeof(*x));
    mg__rx_rset_push(c, &x->pre, "", 0);
    mg__rx_rset_push(c, &x->suf, "", 0);
}

/* Forget the exact set, keeping what it implies. */
static void info_inexact(struct ctx *c, struct info *x)
{
    if (!x->exact) return;
    x->m = mg__rx_and(c, x->m, mg__rx_or_of_set(c, &x->e));
    rset_trim(c, &x->e, RX_AFFIX_MAX, false, &x->pre);
    rset_trim(c, &x->e, RX_AFFIX_MAX, true, &x->suf);
    rset_free(&x->e);
    x->exact = false;
}

/* The formula that a subject holding a match satisfies; consumes x. */
struct mg_rx_node *mg__rx_info_formula(struct ctx *c, struct info *x)
{
    struct mg_rx_node *m = x->m;
    x->m = NULL;
    if (x->exact) m = mg__rx_and(c, m, mg__rx_or_of_set(c, &x->e));
    mg__rx_info_free(x);
    return m;
}

/* x = x·y; consumes y. */
static void info_concat(struct ctx *c, struct info *x, struct info *y)
{
    if (x->exact && y->exact && cross_fits(&x->e, &y->e)) {
        rset_cross_into(c, &x->e, &y->e);
        x->m = mg__rx_and(c, x->m, y->m);
        y->m = NULL;
        mg__rx_info_free(y);
        return;
    }
    const struct rset *xs = x->exact ? &x->e : &x->suf;
    const struct rset *yp = y->exact ? &y->e : &y->pre;
    struct rset mid = {0};
    bool have_mid = cross_fits(xs, yp);
    if (have_mid) rset_cross(c, xs, yp, &mid);

    struct mg_rx_node *m = mg__rx_and(c, x->m, y->m);
    x->m = y->m = NULL;
    if (have_mid) {
        m = mg__rx_and(c, m, mg__rx_or_of_set(c, &mid));
    } else {
        if (x->exact) m = mg__rx_and(c, m, mg__rx_or_of_set(c, &x->e));
        if (y->exact) m = mg__rx_and(c, m, mg__rx_or_of_set(c, &y->e));
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
    mg__rx_info_free(x);
    mg__rx_info_free(y);
    x->exact = false;
    x->pre = pre;
    x->suf = suf;
    x->m = m;
}

/* x = x|y; consumes y. */
void mg__rx_info_alt(struct ctx *c, struct info *x, struct info *y)
{
    if (x->exact && y->exact) {
        size_t extra = 0;
        for (size_t i = 0; i < y->e.n; i++)
            if (!rset_has(&x->e, y->e.v[i].p, y->e.v[i].len)) extra++;
        if (x->e.n + extra <= RX_SET_MAX) {
            for (size_t i = 0; i < y->e.n; i++) mg__rx_rset_push(c, &x->e, y->e.v[i].p, y->e.v[i].len);
            x->m = mg__rx_or(c, x->m, y->m);
            y->m = NULL;
            mg__rx_info_free(y);
            return;
        }
    }
    info_inexact(c, x);
    info_inexact(c, y);
    x->m = mg__rx_or(c, x->m, y->m);
    y->m = NULL;
    for (size_t i = 0; i < y->pre.n; i++) mg__rx_rset_push(c, &x->pre, y->pre.v[i].p, y->pre.v[i].len);
    for (size_t i = 0; i < y->suf.n; i++) mg__rx_rset_push(c, &x->suf, y->suf.v[i].p, y->suf.v[i].len);
    affix_limit(c, &x->pre, false);
    affix_limit(c, &x->suf, true);
    mg__rx_info_free(y);
}

/* x = x{min,max}; max < 0 means unbounded. */
void mg__rx_info_rep(struct ctx *c, struct info *x, long min, long max)
{
    if (max == 0) { /* X{0}: the item is skipped */
        mg__rx_info_free(x);
        mg__rx_info_empty(c, x);
        return;
    }
    if (min == 0) {
        if (max == 1 && x->exact && (x->e.n < RX_SET_MAX || rset_has_empty(&x->e))) {
            mg__rx_rset_push(c, &x->e, "", 0);
            mg__rx_node_free(x->m); /* X may be skipped, and its side formula with it */
            x->m = NULL;
            return;
        }
        mg__rx_info_free(x);
        mg__rx_info_any(c, x);
        return;
    }
    /* Every match holds a first copy of X: an inexact X stays as it is. */
    if (!x->exact) return;
    long k = min < RX_REP_MAX ? min : RX_REP_MAX;
    struct info r;
    mg__rx_info_empty(c, &r);
    for (long i = 0; i < k; i++) {
        struct info t = {.exact = true};
        rset_copy(c, &x->e, &t.e);
        info_concat(c, &r, &t);
    }
    r.m = mg__rx_and(c, r.m, x->m);
    x->m = NULL;
    if (max != min || min > RX_REP_MAX) {
        /* more copies may follow: the match still ends with a copy of X */
        struct rset suf;
        rset_trim(c, &x->e, RX_AFFIX_MAX, true, &suf);
        info_inexact(c, &r);
        rset_free(&r.suf);
        r.suf = suf;
    }
    mg__rx_info_free(x);
    *x = r;
}

/* ---- 3. folding a sequence ----------------------------------------------- */

void mg__rx_fold_init(struct ctx *c, struct fold *f)
{
    mg__rx_info_empty(c, &f->acc);
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
void mg__rx_fold_push(struct ctx *c, struct fold *f, struct info *a)
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

void mg__rx_fold_finish(struct ctx *c, struct fold *f, struct info *out)
{
    fold_flush(c, f);
    *out = f->acc;
}
