/* scan_join.c — the secret scanner's pass over secrets split across
 * adjacent string literals (scan_int.h: mg__scan_join), run by mg_scan
 * after the pass over the text as it is.
 *
 * "AKIA" "Q3ZL...", 'sk_live_' + '...': after the scan, runs of 2 to
 * JOIN_MAX_PIECES string literals ("...", '...' or `...`, each on one line)
 * with only white space and at most one '+' between two of them are joined
 * (their contents, without the quotes, at most JOIN_MAX_BYTES in all), after
 * the text before the first one on its line (at most JOIN_MAX_PREFIX
 * bytes: a name such as `password =` for the rules that need one). The
 * joined runs, one a line, are scanned with the same rules; a finding there
 * that spans a join is mapped back to the original bytes, from its first
 * piece to its last, quotes and '+' between included, so redaction covers
 * every piece. Findings inside one piece were found by the scan itself.
 *
 * Sections:
 *   1. literals and the gaps between them
 *   2. the runs joined and scanned
 *   3. finding the runs
 *   4. lines continued with a backslash
 *
 * Section 4 is mg__scan_splice, the same kind of pass over a word split by
 * a line continuation (a backslash ending the line, in shell, C, Python,
 * Dockerfiles): each logical line whose backslash joins two words (no blank
 * before it or at the next line's start) is scanned with its continuations
 * removed, at most SPLICE_MAX_LINES lines and SPLICE_MAX_BYTES bytes of it.
 *
 * A run may also be a list that is joined: in "".join(["...", "..."]),
 * ["...", "..."].join(""), String.join("", "...", "...") the pieces are
 * separated by one ',' each; and the joined text starts with the line's
 * name up to its '=' or ':' (`key = "..."`), without the call or bracket.
 */
#include "security/scan_int.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <stdlib.h>

/* ---- 1. literals and the gaps between them ---------------------------------------------- */

#define JOIN_MAX_PIECES 8
#define JOIN_MAX_BYTES 512
#define JOIN_MAX_LIT 512          /* one literal, quotes excluded */
#define JOIN_MAX_GAP 64           /* bytes between two literals */
#define JOIN_MAX_PREFIX 128
#define JOIN_MAX_SYNTH (1u << 20) /* the joined text scanned at once */

struct join {
    char *t;        /* the joined runs */
    size_t *map;    /* t[i] is buf[map[i]] */
    size_t n, tcap;
    struct mg__scan_hit *v;  /* findings that span a join, in buf's offsets */
    size_t nv, cap;
};

static inline bool is_quote(unsigned char c)
{
    return c == '"' || c == '\'' || c == '`';
}

/* The first of the bytes a, b, c in buf[i, lim), or lim; sixteen bytes at a time with SSE2. */
static size_t find3(const char *buf, size_t i, size_t lim, char a, char b, char c)
{
#ifdef __SSE2__
    const __m128i va = _mm_set1_epi8(a), vb = _mm_set1_epi8(b), vc = _mm_set1_epi8(c);
    for (; i + 16 <= lim; i += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(buf + i));
        __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, va), _mm_cmpeq_epi8(x, vb)), _mm_cmpeq_epi8(x, vc));
        unsigned bits = (unsigned)_mm_movemask_epi8(m);
        if (bits) return i + (size_t)__builtin_ctz(bits);
    }
#endif
    for (; i < lim; i++)
        if (buf[i] == a || buf[i] == b || buf[i] == c) return i;
    return lim;
}

/* The closing quote of the literal opening at buf[i], on its line; SIZE_MAX if none. */
static size_t lit_close(const char *buf, size_t len, size_t i)
{
    char q = buf[i];
    size_t lim = len - i > JOIN_MAX_LIT + 2 ? i + JOIN_MAX_LIT + 2 : len;
    for (size_t j = i + 1; (j = find3(buf, j, lim, q, '\n', '\\')) < lim; j += 2) {
        if (buf[j] == q) return j;
        if (buf[j] == '\n') return SIZE_MAX;
        /* an escape: \" does not close (j += 2) */
    }
    return SIZE_MAX;
}

/* The opening quote of the literal after the one closing at buf[c], when
 * only white space and at most one '+' (or a '\' ending the line) lie
 * between, or, in a list (list: the run opened a "".join([...]) or the like),
 * one ','; SIZE_MAX if none. */
static size_t lit_next(const char *buf, size_t len, size_t c, bool list)
{
    size_t lim = len - c - 1 > JOIN_MAX_GAP ? c + 1 + JOIN_MAX_GAP : len;
    bool sep = false;
    for (size_t j = c + 1; j < lim; j++) {
        unsigned char ch = (unsigned char)buf[j];
        if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r') continue;
        if ((ch == '+' || (ch == ',' && list)) && !sep) {
            sep = true;
            continue;
        }
        if (ch == '\\' && j + 1 < lim && (buf[j + 1] == '\n' || buf[j + 1] == '\r')) continue;
        return is_quote(ch) ? j : SIZE_MAX;
    }
    return SIZE_MAX;
}

/* The start of the line the run opening at buf[o] begins on (at most
 * JOIN_MAX_PREFIX bytes back): the line before when o's own line holds
 * only blanks before it and the line before ends with '[' or '(' (a list
 * of literals one a line) or with '=' or ':' (`KEY =` and the pieces below). */
static size_t run_line(const char *buf, size_t o)
{
    size_t stop = o > JOIN_MAX_PREFIX ? o - JOIN_MAX_PREFIX : 0, ls = o;
    while (ls > stop && buf[ls - 1] != '\n') ls--;
    for (size_t j = ls; j < o; j++)
        if (buf[j] != ' ' && buf[j] != '\t') return ls;
    size_t e = ls;
    if (e == 0 || e <= stop || buf[e - 1] != '\n') return ls;
    e--;
    if (e > stop && buf[e - 1] == '\r') e--;
    if (e == stop || (buf[e - 1] != '[' && buf[e - 1] != '(' && buf[e - 1] != '=' && buf[e - 1] != ':')) return ls;
    size_t p = e;
    while (p > stop && buf[p - 1] != '\n') p--;
    return p;
}

/* Does the literal opening at buf[o] start a list whose pieces are joined:
 * '[' before it ("".join([...]), [...].join("")), or '(' after join or
 * concat (String.join("", ...), ''.join(("a", "b")))? ls: its line's start. */
static bool lit_list(const char *buf, size_t ls, size_t o)
{
    size_t j = o;
    while (j > ls && (buf[j - 1] == ' ' || buf[j - 1] == '\t' || buf[j - 1] == '\n' || buf[j - 1] == '\r')) j--;
    if (j > ls && buf[j - 1] == '[') return true;
    while (j > ls && buf[j - 1] == '(') j--;
    if (j == o || j == ls) return false;
    size_t w = j;
    while (w > ls && ((buf[w - 1] | 0x20) >= 'a' && (buf[w - 1] | 0x20) <= 'z')) w--;
    return (j - w == 4 && mg__scan_has_word(buf + w, 4, "join")) || (j - w == 6 && mg__scan_has_word(buf + w, 6, "concat"));
}

/* Where the name before a run ends: after the last '=' or ':' before o on
 * its line when only brackets, calls and literals lie between (`key =
 * "".join([`, `KEY = (`), so the joined text reads `key = "...`; else o. */
static size_t name_end(const char *buf, size_t ls, size_t o, bool list)
{
    size_t j = o;
    while (j > ls && buf[j - 1] != '=' && buf[j - 1] != ':') j--;
    if (j == ls) return o;
    if (list) return j;
    for (size_t k = j; k < o; k++)
        if (buf[k] != ' ' && buf[k] != '\t' && buf[k] != '\n' && buf[k] != '\r' && buf[k] != '(' && buf[k] != '[') return o;
    return j;
}

/* ---- 2. the runs joined and scanned ----------------------------------------------------- */

/* Append p[0..n) to the joined text, each byte mapped to at + i (or all to
 * at). Through locals: a store through J->t could be J->n for all the
 * compiler knows, and it read J->n again after each byte. */
static void join_put(struct join *J, const char *p, size_t n, size_t at, bool contiguous)
{
    memcpy(J->t + J->n, p, n);
    size_t *map = J->map + J->n;
    for (size_t i = 0; i < n; i++) map[i] = contiguous ? at + i : at;
    J->n += n;
}

/* A finding in the joined runs: kept, in buf's offsets, when it spans a join. */
static int join_map(void *ud, const struct mg__scan_hit *h, struct mg_err *err)
{
    struct join *J = ud;
    size_t a = h->start, b = h->end - 1;
    if (J->map[b] - J->map[a] == b - a) return 0; /* inside one piece (or its line's prefix) */
    if (mg__scan_grow((void **)&J->v, J->nv, &J->cap, sizeof(struct mg__scan_hit)) != 0)
        return mg_err_set(err, MG_E_NO_MEMORY, "out of memory joining string literals");
    J->v[J->nv++] = (struct mg__scan_hit){h->rule, false, J->map[a], J->map[b] + 1};
    return 0;
}

/* Scan the joined runs kept so far and keep the findings that span a join. */
static int join_flush(const struct mg_scanner *s, struct join *J, struct mg_err *err)
{
    int rc = mg__scan_text(s, J->t, J->n, join_map, J, err);
    J->n = 0;
    return rc;
}

/* Room for need more bytes in the joined text (grown as needed: most
 * files have few runs): 0, or -1 with err. */
static int join_room(struct join *J, size_t need, struct mg_err *err)
{
    if (J->n + need <= J->tcap) return 0;
    size_t nc = J->tcap ? 2 * J->tcap : 4096;
    while (nc < J->n + need) nc *= 2;
    char *nt = realloc(J->t, nc);
    if (nt) J->t = nt;
    size_t *nm = nt ? realloc(J->map, nc * sizeof(size_t)) : NULL;
    if (!nm) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory joining string literals or lines");
    J->map = nm;
    J->tcap = nc;
    return 0;
}

/* The end of a pass: scan what is left, merge the findings that span a
 * join into sc->v, free J. rc: the pass's result so far. */
static int join_finish(const struct mg_scanner *s, struct join *J, struct mg__scan *sc, int rc, struct mg_err *err)
{
    if (rc == 0) rc = join_flush(s, J, err);
    free(J->t);
    free(J->map);
    if (rc == 0 && J->nv) rc = mg__scan_merge(s, sc, J->v, J->nv, err);
    free(J->v);
    return rc;
}

/* ---- 3. finding the runs ---------------------------------------------------------------- */

/* Is the quote at buf[c] followed, after only white space, '+' and '\\'
 * (at most JOIN_MAX_GAP bytes), by another quote? (What lit_next wants,
 * loosened: any number of '+' and '\\'.) */
static bool quote_gap_quote(const char *buf, size_t len, size_t c)
{
    size_t lim = len - c - 1 > JOIN_MAX_GAP ? c + 1 + JOIN_MAX_GAP : len;
    for (size_t j = c + 1; j < lim; j++) {
        unsigned char ch = (unsigned char)buf[j];
        if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '+' || ch == '\\' || ch == ',') continue;
        return is_quote(ch);
    }
    return false;
}

/* Can buf hold a run at all? A run needs a literal's closing quote followed,
 * after white space and '+' only, by the next opening quote; when no quote is
 * (most config files: "key": "value", key = "value" at the end of a line,
 * the next line starting with a name), mg__scan_join does nothing. The quotes
 * followed by such a byte or a quote are found sixteen bytes at a time with
 * SSE2, and looked at further one by one; the first that passes ends the
 * look (code has one early). */
static bool join_possible(const char *buf, size_t len)
{
    size_t i = 0;
#ifdef __SSE2__
    const __m128i dq = _mm_set1_epi8('"'), sq = _mm_set1_epi8('\''), bq = _mm_set1_epi8('`'), sp = _mm_set1_epi8(' '),
                  tb = _mm_set1_epi8('\t'), nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r'), pl = _mm_set1_epi8('+'),
                  bs = _mm_set1_epi8('\\'), cm = _mm_set1_epi8(',');
    for (; len - i >= 17; i += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(buf + i));
        __m128i qx = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, dq), _mm_cmpeq_epi8(x, sq)), _mm_cmpeq_epi8(x, bq));
        if (!_mm_movemask_epi8(qx)) continue;
        __m128i y = _mm_loadu_si128((const __m128i *)(const void *)(buf + i + 1));
        __m128i qy = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(y, dq), _mm_cmpeq_epi8(y, sq)), _mm_cmpeq_epi8(y, bq));
        __m128i gy = _mm_or_si128(_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(y, sp), _mm_cmpeq_epi8(y, tb)),
                                               _mm_or_si128(_mm_cmpeq_epi8(y, nl), _mm_cmpeq_epi8(y, cr))),
                                  _mm_or_si128(_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(y, pl), _mm_cmpeq_epi8(y, bs)), qy),
                                               _mm_cmpeq_epi8(y, cm)));
        for (unsigned bits = (unsigned)_mm_movemask_epi8(_mm_and_si128(qx, gy)); bits; bits &= bits - 1)
            if (quote_gap_quote(buf, len, i + (size_t)__builtin_ctz(bits))) return true;
    }
#endif
    for (; i < len; i++)
        if (is_quote((unsigned char)buf[i]) && quote_gap_quote(buf, len, i)) return true;
    return false;
}

/* Find the runs of adjacent literals in buf, scan them joined, and merge
 * the findings that span a join into sc->v (overlaps resolved as in
 * mg__scan_run; both sides were checked already). */
int mg__scan_join(const struct mg_scanner *s, const char *buf, size_t len, struct mg__scan *sc, struct mg_err *err)
{
    if (!join_possible(buf, len)) return 0;
    struct join J = {0};
    const size_t run_max = JOIN_MAX_PREFIX + 1 + JOIN_MAX_BYTES + JOIN_MAX_LIT + 2;
    int rc = 0;
    size_t i = 0;
    while (i < len) {
        size_t o = find3(buf, i, len, '"', '\'', '`');
        if (o == len) break;
        size_t c = lit_close(buf, len, o);
        if (c == SIZE_MAX) {
            i = o + 1;
            continue;
        }
        size_t ls = run_line(buf, o);
        bool list = lit_list(buf, ls, o);
        size_t o2 = lit_next(buf, len, c, list);
        if (o2 == SIZE_MAX || lit_close(buf, len, o2) == SIZE_MAX) {
            i = c + 1;
            continue;
        }
        /* a run: o..c is its first piece */
        if (J.n > JOIN_MAX_SYNTH && (rc = join_flush(s, &J, err)) != 0) break;
        if ((rc = join_room(&J, run_max, err)) != 0) break; /* room for one more run */
        size_t ne = name_end(buf, ls, o, list);
        join_put(&J, buf + ls, ne - ls, ls, true); /* the line's text (to its name) and the opening quote */
        if (ne < o) join_put(&J, " ", 1, ne, false);
        join_put(&J, buf + o, 1, o, true);
        size_t total = 0, last = c;
        for (int k = 0; k < JOIN_MAX_PIECES; k++) {
            size_t n = c - o - 1;
            if (total + n > JOIN_MAX_BYTES) break;
            join_put(&J, buf + o + 1, n, o + 1, true);
            total += n;
            last = c;
            if ((o = lit_next(buf, len, c, list)) == SIZE_MAX || (c = lit_close(buf, len, o)) == SIZE_MAX) break;
        }
        join_put(&J, buf + last, 1, last, true); /* the closing quote, and a line end */
        join_put(&J, "\n", 1, last, false);
        i = last + 1;
    }
    return join_finish(s, &J, sc, rc, err);
}

/* ---- 4. lines continued with a backslash ------------------------------------------------ */

#define SPLICE_MAX_LINES 16   /* physical lines of one logical line */
#define SPLICE_MAX_BYTES 4096 /* bytes of one logical line */

/* The end of the line holding buf[i] (its '\n', or len). */
static size_t line_end(const char *buf, size_t len, size_t i)
{
    const char *e = memchr(buf + i, '\n', len - i);
    return e ? (size_t)(e - buf) : len;
}

/* The next backslash at or after buf[i] that ends a line and joins two
 * words: the byte before it and the next line's first byte not blank (a
 * continuation after a space, as in C macros and most shell commands,
 * splits no word); len if none. Backslashes are found with memchr, so a
 * buffer costs about the number of its backslashes. */
static size_t next_splice(const char *buf, size_t len, size_t i)
{
    const char *p;
    while (i < len && (p = memchr(buf + i, '\\', len - i))) {
        size_t b = (size_t)(p - buf), e = b + 1;
        i = b + 1;
        if (e < len && buf[e] == '\r') e++;
        if (e + 1 >= len || buf[e] != '\n' || b == 0) continue;
        unsigned char before = (unsigned char)buf[b - 1], after = (unsigned char)buf[e + 1];
        if (before > ' ' && before != '\\' && after > ' ') return b;
    }
    return len;
}

/* Scan each logical line whose physical lines are joined by a backslash
 * inside a word (export TOKEN=ghp_ab\<newline>cd...), with its
 * continuations removed; keep the findings that span one. */
int mg__scan_splice(const struct mg_scanner *s, const char *buf, size_t len, struct mg__scan *sc, struct mg_err *err)
{
    size_t bs = next_splice(buf, len, 0);
    if (bs == len) return 0;
    struct join J = {0};
    int rc = 0;
    for (; bs < len; bs = next_splice(buf, len, bs + 1)) {
        size_t ls = bs, stop = bs > SPLICE_MAX_BYTES ? bs - SPLICE_MAX_BYTES : 0;
        while (ls > stop && buf[ls - 1] != '\n') ls--;
        size_t e = line_end(buf, len, bs);
        if (J.n > JOIN_MAX_SYNTH && (rc = join_flush(s, &J, err)) != 0) break;
        if ((rc = join_room(&J, SPLICE_MAX_BYTES + 1, err)) != 0) break; /* room for one logical line */
        /* the logical line: each physical line without its backslash and line end */
        size_t room = SPLICE_MAX_BYTES, start = J.n;
        for (int k = 0; k < SPLICE_MAX_LINES; k++) {
            size_t cut = bs - ls < room ? bs : ls + room;
            join_put(&J, buf + ls, cut - ls, ls, true);
            room -= cut - ls;
            ls = e + 1;
            if (ls >= len) break;
            e = line_end(buf, len, ls);
            /* the next line: continued again (any backslash at its end), or the last */
            size_t b = e;
            if (b > ls && buf[b - 1] == '\r') b--;
            if (k + 1 < SPLICE_MAX_LINES && b > ls && buf[b - 1] == '\\' && room) {
                bs = b - 1;
                continue;
            }
            cut = b - ls < room ? b : ls + room;
            join_put(&J, buf + ls, cut - ls, ls, true);
            break;
        }
        join_put(&J, "\n", 1, J.n > start ? J.map[J.n - 1] : ls, false);
        bs = e < len ? e : len - 1; /* the next search starts after this logical line */
    }
    return join_finish(s, &J, sc, rc, err);
}
