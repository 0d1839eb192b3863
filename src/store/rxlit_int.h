/* rxlit_int.h — what the files of the regex literal analyzer share
 * (rxlit.h): rxlit_node.c (formula nodes: building with simplification,
 * eval, format), rxlit_info.c (string sets and the algebra of infos),
 * rxlit_char.c (characters, escapes and classes) and rxlit.c (groups,
 * quantifiers, sequences, alternation; the analysis). Not for other modules.
 *
 * Inside these files a NULL node means TRUE, so a failed allocation only
 * weakens a formula; every function takes the parse context, which records
 * a failed allocation (oom) or a pattern given up on (bail).
 */
#ifndef MG_RXLIT_INT_H
#define MG_RXLIT_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "store/rxlit.h"

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

static inline int fold(int ch)
{
    return ch >= 'A' && ch <= 'Z' ? ch + ('a' - 'A') : ch;
}

static inline bool ci_eq(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (fold((unsigned char)a[i]) != fold((unsigned char)b[i])) return false;
    return true;
}

/* ---- formula nodes (rxlit_node.c) ---- */

struct rset;
void mg__rx_node_free(struct mg_rx_node *n);
/* A literal node, or NULL (TRUE) when it is too short to look up. */
struct mg_rx_node *mg__rx_node_lit(struct ctx *c, const char *s, size_t n);
/* a AND b, a OR b; consume both, dropping children implied by siblings. */
struct mg_rx_node *mg__rx_and(struct ctx *c, struct mg_rx_node *a, struct mg_rx_node *b);
struct mg_rx_node *mg__rx_or(struct ctx *c, struct mg_rx_node *a, struct mg_rx_node *b);
/* OR of the strings of s as literals (TRUE if any is short). */
struct mg_rx_node *mg__rx_or_of_set(struct ctx *c, const struct rset *s);
/* Nodes in the formula, TRUE counting one. */
size_t mg__rx_node_count(const struct mg_rx_node *n);

/* ---- string sets and infos (rxlit_info.c) ---- */

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

/* Add a copy of d[0..n) unless the set already holds it. */
void mg__rx_rset_push(struct ctx *c, struct rset *s, const char *d, size_t n);

/* What the matches of a sub-pattern look like (see the comment at the top). */
struct info {
    bool exact;           /* e lists every string a match can be */
    struct rset e;        /* exact: the strings */
    struct rset pre;      /* inexact: every match starts with one of these */
    struct rset suf;      /* inexact: every match ends with one of these */
    struct mg_rx_node *m; /* every subject holding a match satisfies m; NULL: TRUE */
};

void mg__rx_info_free(struct info *x);
/* The info of exactly the string s[0..n). */
void mg__rx_info_exact1(struct ctx *c, struct info *x, const char *s, size_t n);
/* Matches only the empty string (zero-width items). */
void mg__rx_info_empty(struct ctx *c, struct info *x);
/* Could match anything: claims nothing. */
void mg__rx_info_any(struct ctx *c, struct info *x);
/* The formula that a subject holding a match satisfies; consumes x. */
struct mg_rx_node *mg__rx_info_formula(struct ctx *c, struct info *x);
/* x = x|y; consumes y. */
void mg__rx_info_alt(struct ctx *c, struct info *x, struct info *y);
/* x = x{min,max}; max < 0 means unbounded. */
void mg__rx_info_rep(struct ctx *c, struct info *x, long min, long max);

/* Concatenating a sequence: exact items collect in a run that grows in place;
 * the run joins acc when an inexact item comes or the run would overflow. */
struct fold {
    struct info acc; /* everything before the run */
    struct info run; /* exact items not yet joined to acc */
    bool has_run;    /* run is set */
};

void mg__rx_fold_init(struct ctx *c, struct fold *f);
/* Append item a; consumes it. */
void mg__rx_fold_push(struct ctx *c, struct fold *f, struct info *a);
/* The concatenation of everything pushed, into *out. */
void mg__rx_fold_finish(struct ctx *c, struct fold *f, struct info *out);

/* ---- characters, escapes, classes (rxlit_char.c) ---- */

enum item { ITEM_ATOM, ITEM_SKIP, ITEM_BARRIER };
/* ITEM_ATOM: a quantifiable item, *out set. ITEM_SKIP: nothing (a comment,
 * \E): a quantifier after it applies to the item before. ITEM_BARRIER: an
 * option setting; a quantifier may not follow. On bail the result is SKIP. */

static inline bool at(const struct ctx *c, size_t i, char ch)
{
    return i < c->len && c->p[i] == (unsigned char)ch;
}

static inline bool is_digit(int ch)
{
    return ch >= '0' && ch <= '9';
}

static inline bool is_alnum(int ch)
{
    return is_digit(ch) || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

/* Is ch one of the bytes of set? (strchr alone would also match a NUL.) */
static inline bool in_set(int ch, const char *set)
{
    return ch != 0 && strchr(set, ch) != NULL;
}

static inline int hex_val(int ch)
{
    if (is_digit(ch)) return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

/* Decode one UTF-8 character strictly (no overlongs, surrogates or values
 * past U+10FFFF). Returns its length, or 0 when s[0..n) does not start with
 * a valid character. */
size_t mg__rx_utf8_dec(const unsigned char *s, size_t n, uint32_t *cp);
/* The info of one literal character (caseless variants included). */
void mg__rx_char_info(struct ctx *c, uint32_t cp, struct info *out);
/* The literal character at c->pos. */
void mg__rx_parse_char(struct ctx *c, struct info *out);
/* Skip a delimited name such as {Greek} or <name> starting at c->pos (the
 * opener); only name-like bytes may appear inside. */
bool mg__rx_skip_name(struct ctx *c, char close);
/* A backslash escape outside a class; c->pos is at the backslash. */
enum item mg__rx_parse_escape(struct ctx *c, struct info *out);
/* A character class [...]; c->pos is at the '['. */
void mg__rx_parse_class(struct ctx *c, struct info *out);

#endif
