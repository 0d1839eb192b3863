/* rxlit_node.c — the formulas of the regex literal analyzer (see rxlit.h and
 * rxlit_int.h).
 *
 * Sections:
 *   1. construction with simplification: AND and OR flatten their children
 *      and drop one implied by a sibling, within a budget of compares
 *   2. public API: free, eval, format
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memmem */
#endif
#include "store/rxlit_int.h"

#include <stdlib.h>

/* ---- 1. construction ----------------------------------------------------- */

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

void mg__rx_node_free(struct mg_rx_node *n)
{
    if (!n) return;
    for (size_t i = 0; i < n->nkids; i++) mg__rx_node_free(n->kids[i]);
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
struct mg_rx_node *mg__rx_node_lit(struct ctx *c, const char *s, size_t n)
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
    for (size_t i = 0; i < k->n; i++) mg__rx_node_free(k->v[i]);
    free(k->v);
    memset(k, 0, sizeof(*k));
}

/* Add x (not NULL), flattening a node of the same op into its children. */
static void kids_add(struct ctx *c, struct kids *k, struct mg_rx_node *x, enum mg_rx_op op)
{
    size_t add = x->op == op ? x->nkids : 1;
    if (k->n + add > RX_MAX_NODES) {
        c->bail = true; /* the result would be over the cap anyway */
        mg__rx_node_free(x);
        return;
    }
    if (k->n + add > k->cap) {
        size_t cap = k->cap ? k->cap : 4;
        while (cap < k->n + add) cap *= 2;
        struct mg_rx_node **v = realloc(k->v, cap * sizeof(*v));
        if (!v) {
            c->oom = true;
            mg__rx_node_free(x);
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
                mg__rx_node_free(k->v[ii]);
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

/* The node of op over a and b (neither NULL), their own children of op
 * flattened in and the redundant ones dropped; consumes both. */
static struct mg_rx_node *join(struct ctx *c, struct mg_rx_node *a, struct mg_rx_node *b, enum mg_rx_op op)
{
    struct kids k = {0};
    kids_add(c, &k, a, op);
    size_t old = k.n;
    kids_add(c, &k, b, op);
    kids_prune(c, &k, op, old);
    return kids_finish(c, &k, op);
}

/* a AND b; consumes both. */
struct mg_rx_node *mg__rx_and(struct ctx *c, struct mg_rx_node *a, struct mg_rx_node *b)
{
    if (!a) return b;
    if (!b) return a;
    return join(c, a, b, MG_RX_AND);
}

/* a OR b; consumes both. */
struct mg_rx_node *mg__rx_or(struct ctx *c, struct mg_rx_node *a, struct mg_rx_node *b)
{
    if (!a || !b) {
        mg__rx_node_free(a);
        mg__rx_node_free(b);
        return NULL;
    }
    return join(c, a, b, MG_RX_OR);
}

/* OR of the strings of s as literals (TRUE if any is short). */
struct mg_rx_node *mg__rx_or_of_set(struct ctx *c, const struct rset *s)
{
    if (s->n == 0) return NULL;
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].len < 3) return NULL;
    struct kids k = {0};
    for (size_t i = 0; i < s->n; i++) {
        struct mg_rx_node *x = mg__rx_node_lit(c, s->v[i].p, s->v[i].len);
        if (!x) { /* out of memory or budget: TRUE is the sound answer */
            kids_free(&k);
            return NULL;
        }
        kids_add(c, &k, x, MG_RX_OR);
    }
    kids_prune(c, &k, MG_RX_OR, 0);
    return kids_finish(c, &k, MG_RX_OR);
}

size_t mg__rx_node_count(const struct mg_rx_node *n)
{
    if (!n) return 1;
    size_t t = 1;
    for (size_t i = 0; i < n->nkids; i++) t += mg__rx_node_count(n->kids[i]);
    return t;
}

/* ---- 2. public API ------------------------------------------------------- */

void mg_rxlit_free(struct mg_rx_node **n)
{
    if (!n) return;
    mg__rx_node_free(*n);
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
