/* search.c — the three search modes (see search.h).
 *
 * Sections:
 *   1. validation and results
 *   2. file text cache and snippets
 *   3. lexical
 *   4. regex
 *   5. symbol
 *   6. mg_search: per repo, merge
 */
#include "search/search.h"

#include <ctype.h>
#include <fcntl.h>
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "index/defs.h"
#include "index/lang.h"
#include "index/refs.h"
#include "search/hybrid.h"
#include "store/rxlit.h"
#include "search/chunkset.h"
#include "store/content.h"
#include "store/db.h"
#include "store/rank.h"
#include "store/tokenize.h"
#include "store/trigram.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/glob.h"
#include "util/utf8.h"

#define SNIPPET_LINE_MAX 240   /* bytes per snippet line */
#define MAX_FILE_TEXT (64u << 20)
#define REGEX_MATCH_LIMIT 10000000u
#define REGEX_DEPTH_LIMIT 100000u
#define MATCHES_PER_FILE 10000

/* ---- 1. validation and results ------------------------------------------- */

int mg_mode_parse(const char *s, enum mg_mode *out, struct mg_err *err)
{
    if (strcmp(s, "lexical") == 0) *out = MG_MODE_LEXICAL;
    else if (strcmp(s, "regex") == 0) *out = MG_MODE_REGEX;
    else if (strcmp(s, "symbol") == 0) *out = MG_MODE_SYMBOL;
    else if (strcmp(s, "semantic") == 0) *out = MG_MODE_SEMANTIC;
    else if (strcmp(s, "hybrid") == 0) *out = MG_MODE_HYBRID;
    else if (strcmp(s, "auto") == 0) *out = MG_MODE_AUTO;
    else return mg_err_set(err, MG_E_BAD_MODE, "unknown search mode '%s'; use lexical, regex, symbol, semantic, "
                           "hybrid or auto", s);
    return 0;
}

int mg_search_validate(const struct mg_config *c, const struct mg_search_req *q, struct mg_err *err)
{
    size_t n = q->query ? strlen(q->query) : 0;
    if (n == 0) return mg_err_set(err, MG_E_QUERY_EMPTY, "the query is empty; give the text to search for");
    if (n > c->max_query_bytes)
        return mg_err_set(err, MG_E_QUERY_TOO_LONG, "the query is %zu bytes; the limit is %zu (max_query_bytes)", n,
                          c->max_query_bytes);
    if (mg_utf8_valid_prefix(q->query, n) != n)
        return mg_err_set(err, MG_E_QUERY_INVALID, "the query is not valid UTF-8; search for UTF-8 text");
    for (size_t i = 0; i < q->nlangs; i++) {
        if (!mg_lang_by_name(q->langs[i])) return mg_lang_unknown(q->langs[i], err);
    }
    if (q->limit < 0 || q->limit > c->search_max_limit)
        return mg_err_set(err, MG_E_USAGE, "limit %d is out of range; use 1 to %d", q->limit, c->search_max_limit);
    struct mg_globset *g;
    if (mg_globset_new(q->globs, q->nglobs, q->excludes, q->nexcludes, &g, err) != 0) return -1;
    mg_globset_free(&g);
    return 0;
}

static struct mg_hit *hit_new(struct mg_results *r)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 32;
        struct mg_hit *v = realloc(r->v, cap * sizeof(*v));
        if (!v) return NULL;
        r->v = v;
        r->cap = cap;
    }
    struct mg_hit *h = &r->v[r->n++];
    memset(h, 0, sizeof(*h));
    return h;
}

static char *dup_col(sqlite3_stmt *st, int i)
{
    const unsigned char *s = sqlite3_column_text(st, i);
    return s ? strdup((const char *)s) : NULL;
}

/* ---- 2. file text and snippets ---------------------------------------------- */

struct ctx {
    const struct mg_config *cfg;
    const struct mg_repo *repo;
    struct mg_db *d;
    const struct mg_search_req *q;
    struct mg_filter filter;
    struct mg_results *out;
    size_t base;            /* out->n when this repo's search began */
    struct mg_err *err;
    sqlite3_stmt *text_st;
    int64_t text_id;        /* file whose text is cached */
    char *text;
    size_t text_len;
    /* lexical: query tokens for snippet scoring, sorted (strcmp) */
    char **qtok;
    size_t nqtok;
    /* lexical: list each hit's matching lines (search.h), by these words */
    bool lines;
    struct mword *mw;
    size_t nmw;
    size_t counted_bytes;   /* regex: text read past the limit, only to count (MG_COUNT_BYTES_MAX) */
    int *semantic_repos;    /* hybrid: count of repos that had vectors */
    struct mg_results *top; /* the search's results (semantic_loading is counted there) */
    struct mg_chunkset *chunks; /* the filter's chunks, once a search needs them */
    /* lexical: the chunks the whole-word pass found (a later pass adds only others), and its lowest score */
    int64_t *seen;
    size_t nseen, seen_cap;
    double seen_min;
};

/* The stored text of file id (cached for consecutive hits in one file). */
static int file_text(struct ctx *c, int64_t id, const char **text, size_t *len)
{
    if (c->text && c->text_id == id) {
        *text = c->text;
        *len = c->text_len;
        return 0;
    }
    free(c->text);
    c->text = NULL;
    if (!c->text_st && mg_db_prepare(c->d, "SELECT content, size FROM files WHERE id=?", &c->text_st, c->err) != 0)
        return -1;
    sqlite3_reset(c->text_st);
    sqlite3_bind_int64(c->text_st, 1, id);
    if (sqlite3_step(c->text_st) != SQLITE_ROW) return mg_db_error(c->d, "read file text", c->err);
    int rc = mg_content_unpack(sqlite3_column_blob(c->text_st, 0), (size_t)sqlite3_column_bytes(c->text_st, 0),
                               MAX_FILE_TEXT, &c->text, &c->text_len);
    sqlite3_reset(c->text_st);
    if (rc != 0)
        return mg_err_set(c->err, MG_E_DB, "stored text of a file in repo '%s' is corrupt; index the repo again",
                          c->repo->id);
    c->text_id = id;
    *text = c->text;
    *len = c->text_len;
    return 0;
}

/* Byte offset of the start of line `line` (1-based) at or after `from`, which
 * is the start of line from_line. */
static size_t line_start(const char *t, size_t len, size_t from, int from_line, int line)
{
    size_t i = from;
    for (int l = from_line; l < line && i < len; l++) {
        const char *nl = memchr(t + i, '\n', len - i);
        if (!nl) return len;
        i = (size_t)(nl - t) + 1;
    }
    return i;
}

/* Lines [first, last] of t as a snippet (each cut to SNIPPET_LINE_MAX). */
static char *snippet_lines(const char *t, size_t len, size_t from, int from_line, int first, int last)
{
    struct mg_buf b;
    mg_buf_init(&b, (size_t)(last - first + 1) * (SNIPPET_LINE_MAX + 8) + 16);
    size_t i = line_start(t, len, from, from_line, first);
    for (int l = first; l <= last && i < len; l++) {
        const char *nl = memchr(t + i, '\n', len - i);
        size_t e = nl ? (size_t)(nl - t) : len;
        size_t n = e - i;
        if (n && t[i + n - 1] == '\r') n--;
        size_t cut = mg_utf8_cut(t + i, n, SNIPPET_LINE_MAX);
        if (l > first) mg_buf_addc(&b, '\n');
        mg_buf_add(&b, t + i, cut);
        if (cut < n) mg_buf_adds(&b, "…");
        i = e + 1;
    }
    return mg_buf_detach(&b, NULL);
}

/* Append line `line` of t (starting at byte ls) to h's matching lines, or
 * count it past MG_MATCH_LINES_MAX. 0, or -1 out of memory. */
static int hit_add_line(const struct ctx *c, struct mg_hit *h, const char *t, size_t len, size_t ls, int line)
{
    if (c->q->no_match_lines) return 0;
    if (h->nlines >= MG_MATCH_LINES_MAX) {
        h->lines_omitted++;
        return 0;
    }
    if (!h->lines && !(h->lines = calloc(MG_MATCH_LINES_MAX, sizeof(*h->lines)))) return -1;
    char *text = snippet_lines(t, len, ls, line, line, line);
    if (!text) return -1;
    h->lines[h->nlines++] = (struct mg_hit_line){line, text};
    return 0;
}

/* ---- lexical match lines ---- */

#define MW_WORDS_MAX 32 /* query words matched against a chunk's words */
#define MW_PARTS_MAX 16 /* parts of one query word */

/* A query word: its whole form and its parts (tokenize.h), lowercased. */
struct mword {
    char *whole;
    char *parts[MW_PARTS_MAX];
    size_t nparts;
};

static void mwords_free(struct ctx *c)
{
    for (size_t i = 0; i < c->nmw; i++) {
        free(c->mw[i].whole);
        for (size_t k = 0; k < c->mw[i].nparts; k++) free(c->mw[i].parts[k]);
    }
    free(c->mw);
    c->mw = NULL;
    c->nmw = 0;
}

struct mw_build {
    struct ctx *c;
    bool started, skip; /* skip: the current word is a repeat, or one too many */
    size_t cur;         /* the current word's offset in the query */
};

static int mword_cb(void *ctx, const char *tok, size_t len, size_t s, size_t e, bool colocated)
{
    struct mw_build *b = ctx;
    struct ctx *c = b->c;
    if (b->started && s == b->cur) { /* a part of the current word */
        struct mword *w = &c->mw[c->nmw - 1];
        if (b->skip || w->nparts == MW_PARTS_MAX) return 0;
        if (!(w->parts[w->nparts] = strdup(tok))) return 1;
        w->nparts++;
        return 0;
    }
    b->started = b->skip = true;
    b->cur = s;
    for (size_t i = 0; i < c->nmw; i++)
        if (strcmp(c->mw[i].whole, tok) == 0) return 0;
    if (c->nmw == MW_WORDS_MAX) return 0;
    if (!(c->mw[c->nmw].whole = strdup(tok))) return 1;
    c->nmw++;
    b->skip = false;
    return 0;
}

/* The words a lexical hit's lines are matched by: the query's, less English
 * function words for a natural-language query (when any are left). */
static int mwords_init(struct ctx *c)
{
    const char *q = c->q->query;
    size_t n = strlen(q);
    char *content = NULL;
    if (mg_query_is_natural(q) && (content = malloc(n + 1)) && mg_query_content_words(q, 0, content, n + 1) > 0) {
        q = content;
        n = strlen(content);
    }
    int rc = 0;
    struct mw_build b = {.c = c};
    if (!(c->mw = calloc(MW_WORDS_MAX, sizeof(*c->mw))) || mg_tokenize(q, n, mword_cb, &b) != 0) {
        mwords_free(c);
        rc = mg_err_oom(c->err);
    }
    free(content);
    return rc;
}

struct count_ctx {
    struct ctx *c;
    int hits;               /* query tokens on the line (best_line) */
    /* match lines: the chunk's word being read and what of each query word it holds */
    bool lines;
    size_t wstart;
    uint32_t seen[MW_WORDS_MAX]; /* bit 0: the whole word, bit 1 + k: part k */
    int words;              /* words of the line that match a query word */
};

/* The word being read ends: does it match a query word? */
static void word_end(struct count_ctx *cc)
{
    const struct ctx *c = cc->c;
    bool match = false;
    for (size_t i = 0; i < c->nmw; i++) {
        uint32_t parts = ((uint32_t)1 << c->mw[i].nparts) - 1;
        if ((cc->seen[i] & 1) || (c->mw[i].nparts && (cc->seen[i] >> 1) == parts)) match = true;
        cc->seen[i] = 0;
    }
    cc->words += match;
}

/* where tok is in the sorted query tokens, or would go; *found when there */
static size_t qtok_find(const struct ctx *c, const char *tok, bool *found)
{
    size_t a = 0, b = c->nqtok;
    while (a < b) {
        size_t m = (a + b) / 2;
        int d = strcmp(c->qtok[m], tok);
        if (d == 0) {
            *found = true;
            return m;
        }
        if (d < 0) a = m + 1;
        else b = m;
    }
    *found = false;
    return a;
}

static int count_cb(void *ctx, const char *tok, size_t len, size_t s, size_t e, bool colocated)
{
    struct count_ctx *cc = ctx;
    const struct ctx *c = cc->c;
    bool found;
    qtok_find(c, tok, &found);
    cc->hits += found;
    if (cc->lines) {
        if (s != cc->wstart) {
            if (cc->wstart != (size_t)-1) word_end(cc);
            cc->wstart = s;
        }
        if (found) /* (every query word's tokens are query tokens) */
            for (size_t i = 0; i < c->nmw; i++) {
                const struct mword *w = &c->mw[i];
                if (strcmp(tok, w->whole) == 0) cc->seen[i] |= 1;
                for (size_t k = 0; k < w->nparts; k++)
                    if (strcmp(tok, w->parts[k]) == 0) cc->seen[i] |= (uint32_t)2 << k;
            }
    }
    return 0;
}

/* The line of [s, e) (which starts on line sline) with the most query tokens;
 * with c->lines, h's matching lines and match count too. -1 out of memory. */
static int best_line(struct ctx *c, const char *t, size_t s, size_t e, int sline, struct mg_hit *h)
{
    int best = sline, besthits = 0, line = sline;
    size_t i = s;
    while (i < e) {
        const char *nl = memchr(t + i, '\n', e - i);
        size_t le = nl ? (size_t)(nl - t) : e;
        struct count_ctx cc = {.c = c, .lines = c->lines && c->nmw, .wstart = (size_t)-1};
        mg_tokenize(t + i, le - i, count_cb, &cc);
        if (cc.hits > besthits) {
            besthits = cc.hits;
            best = line;
        }
        if (cc.lines) {
            if (cc.wstart != (size_t)-1) word_end(&cc);
            if (cc.words) {
                h->match_count += cc.words;
                if (hit_add_line(c, h, t, e, i, line) != 0) return -1;
            }
        }
        i = le + 1;
        line++;
    }
    return best;
}

static int qtok_cb(void *ctx, const char *tok, size_t len, size_t s, size_t e, bool colocated)
{
    struct ctx *c = ctx;
    bool found;
    size_t at = qtok_find(c, tok, &found);
    if (found) return 0;
    char **v = realloc(c->qtok, (c->nqtok + 1) * sizeof(char *));
    if (!v) return 1;
    c->qtok = v;
    char *dup = strdup(tok);
    if (!dup) return 1;
    memmove(v + at + 1, v + at, (c->nqtok - at) * sizeof(char *));
    v[at] = dup;
    c->nqtok++;
    return 0;
}

/* ---- 3. lexical ------------------------------------------------------------------ */

/* Chunk columns every lexical hit needs, after the score. */
#define HIT_COLS "c.file_id, f.path, f.lang, c.start_line, c.end_line, c.start_byte, c.end_byte, c.symbol, c.kind"

/* One hit from a row of HIT_COLS starting at column k, with its score. */
static int lexical_hit(struct ctx *c, sqlite3_stmt *st, int k, double score)
{
    struct mg_hit *h = hit_new(c->out);
    if (!h) return mg_err_oom(c->err);
    snprintf(h->repo, sizeof(h->repo), "%s", c->repo->id);
    h->path = dup_col(st, k + 1);
    h->language = dup_col(st, k + 2);
    h->start_line = sqlite3_column_int(st, k + 3);
    h->end_line = sqlite3_column_int(st, k + 4);
    h->symbol = dup_col(st, k + 7);
    h->kind = dup_col(st, k + 8);
    h->score = score;
    const char *t;
    size_t len;
    if (file_text(c, sqlite3_column_int64(st, k), &t, &len) != 0) return -1;
    size_t s = (size_t)sqlite3_column_int64(st, k + 5), e = (size_t)sqlite3_column_int64(st, k + 6);
    if (e > len) e = len;
    if (s > e) s = e;
    if ((h->line = best_line(c, t, s, e, h->start_line, h)) < 0)
        return mg_err_oom(c->err);
    int first = h->line > h->start_line ? h->line - 1 : h->line;
    int last = h->line < h->end_line ? h->line + 1 : h->line;
    h->snippet = snippet_lines(t, e, s, h->start_line, first, last);
    h->snippet_line = first;
    return 0;
}

/* path, symbol, body weights; the largest chunk id for sampled IDFs; the
 * phrases scored, ?9 (0: all) (rank.h) */
#define RANK "mgrank(chunks_fts, 2.0, 8.0, 1.0, (SELECT max(id) FROM chunks), ?9)"

#define LEX_TIES_MAX 64 /* rows tied with the last one a pass may read past its limit */

static bool seen_has(const struct ctx *c, int64_t id)
{
    for (size_t i = 0; i < c->nseen; i++)
        if (c->seen[i] == id) return true;
    return false;
}

/* The best `limit` rows of an FTS5 expression; only its first nscored
 * phrases count in the rank (0: all). Rows out of the scope are dropped
 * before they are ranked (chunkset.h); the winners are looked up after.
 *
 * Pages must be prefix-stable (the first k hits of a search for limit n >
 * k are the hits of the search for limit k): ties are broken by chunk id,
 * and the rows tied with the last one come too (up to LEX_TIES_MAX), so
 * that the final sort (score, repo, path, line) cuts among all of them.
 * keep: the rows already found (c->seen) stay and are skipped here; the new
 * ones rank after them all (their scores mapped below c->seen_min, in
 * order). Else the rows found are recorded in c->seen. */
static int lexical_run(struct ctx *c, const char *match, int nscored, int limit, bool keep)
{
    sqlite3_stmt *st = NULL, *row = NULL;
    int rc, found = keep ? (int)c->nseen : 0;
    double last = 0;
    bool scoped = c->filter.globs || c->filter.nlangs > 0;
    if (scoped && !c->chunks && mg_chunkset_get(c->d, &c->filter, &c->chunks, c->err) != 0) return -1;
    if (mg_db_prepare(c->d, scoped ? "SELECT " RANK ", rowid FROM chunks_fts WHERE chunks_fts MATCH ?1 "
                                     "AND mg_in_chunkset(?3, rowid) ORDER BY 1, 2 LIMIT ?2"
                                   : "SELECT " RANK ", rowid FROM chunks_fts WHERE chunks_fts MATCH ?1 "
                                     "ORDER BY 1, 2 LIMIT ?2", &st, c->err) != 0 ||
        mg_db_prepare(c->d, "SELECT " HIT_COLS " FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.id = ?",
                      &row, c->err) != 0) {
        sqlite3_finalize(st);
        return -1;
    }
    sqlite3_bind_int(st, 2, limit + (keep ? (int)c->nseen : 0) + LEX_TIES_MAX);
    if (scoped) sqlite3_bind_pointer(st, 3, c->chunks, "mg_chunkset", NULL);
    sqlite3_bind_text(st, 1, match, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 9, nscored);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        double score = -sqlite3_column_double(st, 0);
        int64_t id = sqlite3_column_int64(st, 1);
        if (keep) {
            if (seen_has(c, id)) continue;
            score = c->seen_min - 1.0 / (1.0 + (score > 0 ? score : 0)); /* after the kept rows, in order */
        }
        if (found >= limit && score != last) break; /* (past the limit: only the rows tied with the last) */
        last = score;
        sqlite3_reset(row);
        sqlite3_bind_int64(row, 1, id);
        if (sqlite3_step(row) != SQLITE_ROW) continue; /* cannot happen: rows go together */
        if (lexical_hit(c, row, 0, score) != 0) {
            rc = -1;
            break;
        }
        if (!keep) {
            int64_t *v = mg_grow(c->seen, c->nseen, &c->seen_cap, sizeof(*c->seen));
            if (!v) {
                rc = -1;
                mg_err_oom(c->err);
                break;
            }
            c->seen = v;
            c->seen[c->nseen++] = id;
            c->seen_min = found == 0 || score < c->seen_min ? score : c->seen_min;
        }
        found++;
    }
    if (rc == SQLITE_ROW) rc = SQLITE_DONE;
    sqlite3_finalize(st);
    sqlite3_finalize(row);
    if (rc == -1) return -1;
    if (rc != SQLITE_DONE) return mg_db_error(c->d, "lexical search", c->err);
    return found;
}

static int search_regex(struct ctx *c, const char *pattern, bool fixed, bool caseless, int limit);

/* The any-word query. Ranking every row that holds any of many words costs
 * a pass over all of them: "scheduler pick next task run cpu" matches
 * 130,000 chunks of Linux (60 ms), a long question several times that. So
 * only the ANY_WORDS_RANKED rarest words count, and the rows ranked are
 * those holding the rarest of them that together fit the lexical_any_rows
 * budget (at least the rarest one), or when even the rarest word is commoner
 * than that, those holding two of the three rarest. All the kept words rank
 * those rows: the expression is `(w1 OR ... OR wn) AND (anchors)`, of which
 * the first *nscored phrases count (rank.h). Words are ordered by their
 * estimated rows (word_rows); the budget is checked by counting. Appends to
 * b; 0 or -1 with c->err set. */
#define ANY_WORDS_RANKED 10
#define DF_SAMPLE 1000
#define ANY_WORDS_MAX 64

struct qword {
    char *expr;
    double df;
};

static int cmp_qword(const void *a, const void *b)
{
    const struct qword *x = a, *y = b;
    return x->df < y->df ? -1 : x->df > y->df;
}

/* The rows of an FTS5 expression, counted up to max, with st (prepared by
 * any_query); *last: the last one's id, *maxid: the largest chunk id.
 * -1 on error (c->err). */
static long count_rows(struct ctx *c, sqlite3_stmt *st, const char *match, long max, int64_t *last, int64_t *maxid)
{
    sqlite3_reset(st);
    sqlite3_bind_text(st, 1, match, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, max);
    if (sqlite3_step(st) != SQLITE_ROW) return mg_db_error(c->d, "lexical search", c->err);
    if (last) *last = sqlite3_column_int64(st, 1);
    if (maxid) *maxid = sqlite3_column_int64(st, 2);
    return (long)sqlite3_column_int64(st, 0);
}

/* Each word of q as its own expression (its whole form or its parts),
 * distinct, up to ANY_WORDS_MAX, into w (*nw of them; the caller frees
 * each expr). 0, or -1 when memory runs out. */
static int query_words(const char *q, size_t max, struct qword *w, size_t *nw)
{
    *nw = 0;
    for (const char *p = q; *p && *nw < ANY_WORDS_MAX;) {
        const char *s = p;
        while (*p && (isalnum((unsigned char)*p) || *p == '_' || (unsigned char)*p >= 0x80)) p++;
        if (p == s) {
            p++;
            continue;
        }
        struct mg_buf e;
        mg_buf_init(&e, max);
        if (mg_fts_query(s, (size_t)(p - s), 0, &e) == 0) {
            mg_buf_release(&e);
            continue;
        }
        if (!e.p) return -1;
        bool dup = false;
        for (size_t i = 0; i < *nw && !dup; i++) dup = strcmp(w[i].expr, e.p) == 0;
        if (dup) {
            mg_buf_release(&e);
            continue;
        }
        w[(*nw)++] = (struct qword){mg_buf_detach(&e, NULL), 0};
    }
    return 0;
}

/* Each word's rows (df) as mgrank estimates IDFs (rank.c): counted up to
 * DF_SAMPLE from the first id and extrapolated over the ids past the last
 * one counted; *st: the counting statement (prepared here when NULL; the
 * caller finalizes it). 0 or -1 (c->err). */
static int word_rows(struct ctx *c, struct qword *w, size_t nw, sqlite3_stmt **st)
{
    if (!*st && mg_db_prepare(c->d, "SELECT count(*), max(rowid), (SELECT max(id) FROM chunks) FROM "
                                    "(SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?1 LIMIT ?2)",
                              st, c->err) != 0)
        return -1;
    for (size_t i = 0; i < nw; i++) {
        int64_t last, maxid;
        long n = count_rows(c, *st, w[i].expr, DF_SAMPLE, &last, &maxid);
        if (n < 0) return -1;
        w[i].df = (double)n;
        if (n >= DF_SAMPLE && last > 0)
            w[i].df = (double)n * (double)(mg_chunk_seq(maxid) + 1) / (double)(mg_chunk_seq(last) + 1);
    }
    return 0;
}

/* Whether every word of q has more than min_rows rows: what reading their
 * rows costs, estimated from DF_WINDOWS windows spread evenly over the chunk
 * ids (in each, the rows counted up to DF_PER_WINDOW, their density carried
 * over the window). Not word_rows' estimate, which ranks words as mgrank
 * weighs them: counting from the first id sees the start of the walk only
 * (in Linux, Documentation/, where "static" is rare: 45,504 of its 603,915
 * rows). 1 yes, 0 no, -1 (c->err). */
#define DF_WINDOWS 4
#define DF_PER_WINDOW 64
static int words_all_common(struct ctx *c, const char *q, size_t max, double min_rows)
{
    struct qword w[ANY_WORDS_MAX];
    size_t nw = 0;
    sqlite3_stmt *st = NULL, *mx = NULL;
    int64_t maxseq = -1;
    int rc = query_words(q, max, w, &nw) != 0 ? mg_err_oom(c->err) : nw > 0;
    if (rc == 1 && (mg_db_prepare(c->d, "SELECT count(*), max(rowid) FROM (SELECT rowid FROM chunks_fts WHERE "
                                        "chunks_fts MATCH ?1 AND rowid BETWEEN ?2 AND ?3 LIMIT ?4)",
                                  &st, c->err) != 0 ||
                    mg_db_prepare(c->d, "SELECT max(id) FROM chunks", &mx, c->err) != 0))
        rc = -1;
    if (rc == 1 && sqlite3_step(mx) == SQLITE_ROW && sqlite3_column_type(mx, 0) != SQLITE_NULL)
        maxseq = mg_chunk_seq(sqlite3_column_int64(mx, 0));
    for (size_t i = 0; i < nw && rc == 1; i++) {
        double rows = 0;
        for (int k = 0; k < DF_WINDOWS && maxseq >= 0; k++) {
            int64_t a = (maxseq + 1) * k / DF_WINDOWS, b = (maxseq + 1) * (k + 1) / DF_WINDOWS; /* seqs [a, b) */
            if (b <= a) continue;
            sqlite3_reset(st);
            sqlite3_bind_text(st, 1, w[i].expr, -1, SQLITE_STATIC);
            sqlite3_bind_int64(st, 2, a << MG_CHUNK_ID_BITS);
            sqlite3_bind_int64(st, 3, (b << MG_CHUNK_ID_BITS) - 1);
            sqlite3_bind_int(st, 4, DF_PER_WINDOW);
            if (sqlite3_step(st) != SQLITE_ROW) {
                rc = mg_db_error(c->d, "lexical search", c->err);
                break;
            }
            long n = (long)sqlite3_column_int64(st, 0);
            int64_t last = mg_chunk_seq(sqlite3_column_int64(st, 1));
            /* all of the window's rows, or as many as the ids up to the last one counted hold */
            rows += n < DF_PER_WINDOW ? (double)n : (double)n * (double)(b - a) / (double)(last - a + 1);
        }
        if (rc == 1 && rows <= min_rows) rc = 0;
    }
    sqlite3_finalize(st);
    sqlite3_finalize(mx);
    for (size_t i = 0; i < nw; i++) free(w[i].expr);
    return rc;
}

static int any_query(struct ctx *c, const char *q, struct mg_buf *b, int *nscored)
{
    long budget = c->cfg->lexical_any_rows;
    struct qword w[ANY_WORDS_MAX];
    size_t nw = 0;
    sqlite3_stmt *st = NULL; /* the rows of an expression, counted (count_rows) */
    int rc = -1;
    *nscored = 0;
    if (query_words(q, b->max, w, &nw) != 0) goto out;
    if (nw >= 2) {
        if (word_rows(c, w, nw, &st) != 0) goto out;
        qsort(w, nw, sizeof(w[0]), cmp_qword);
        while (nw > ANY_WORDS_RANKED) free(w[--nw].expr);
    }
    int bad = mg_buf_addc(b, '(');
    for (size_t i = 0; i < nw; i++) bad |= mg_buf_adds(b, i ? " OR " : "") | mg_buf_adds(b, w[i].expr);
    bad |= mg_buf_addc(b, ')');
    long all = nw >= 2 && !bad ? count_rows(c, st, b->p, budget + 1, NULL, NULL) : 0;
    if (all < 0) goto out;
    if (all > budget) {
        /* the phrases so far are the ones that rank (a token never holds '"') */
        for (size_t i = 0; i < b->len; i++) *nscored += b->p[i] == '"';
        *nscored /= 2;
        /* the anchors: the rarest words while their rows, counted, stay within the budget */
        size_t mark = b->len;
        bad |= mg_buf_adds(b, " AND (") | mg_buf_adds(b, w[0].expr);
        for (size_t i = 1; i < nw && !bad; i++) {
            size_t before = b->len;
            bad |= mg_buf_adds(b, " OR ") | mg_buf_adds(b, w[i].expr) | mg_buf_addc(b, ')');
            long n = bad ? -1 : count_rows(c, st, b->p + mark + 5, budget + 1, NULL, NULL);
            if (n < 0 && !bad) goto out;
            b->len = before; /* (the ')' again below) */
            b->p[b->len] = 0;
            if (n > budget) break;
            bad |= mg_buf_adds(b, " OR ") | mg_buf_adds(b, w[i].expr);
        }
        bad |= mg_buf_addc(b, ')');
        long n = bad ? 0 : count_rows(c, st, b->p + mark + 5, budget + 1, NULL, NULL);
        if (n < 0) goto out;
        if (n > budget && nw >= 3) {
            /* even the rarest word is common: rows holding two of the three rarest */
            b->len = mark;
            b->p[mark] = 0;
            bad |= mg_buf_addf(b, " AND ((%s AND %s) OR (%s AND %s) OR (%s AND %s))", w[0].expr, w[1].expr,
                               w[0].expr, w[2].expr, w[1].expr, w[2].expr);
        }
    }
    rc = bad ? mg_err_set(c->err, MG_E_TOO_LARGE, "the query makes too long an expression; use fewer words") : 0;
out:
    if (rc != 0 && !c->err->code) mg_err_oom(c->err);
    sqlite3_finalize(st);
    for (size_t i = 0; i < nw; i++) free(w[i].expr);
    return rc;
}

static int search_lexical(struct ctx *c, int limit)
{
    struct mg_buf b;
    mg_buf_init(&b, c->cfg->max_query_bytes * 8 + 64);
    size_t qlen = strlen(c->q->query);
    size_t words = mg_fts_query(c->q->query, qlen, MG_FTS_WHOLE, &b);
    if (words == 0) {
        /* nothing word-like: "->", "&&", "::" -- a literal search */
        mg_buf_release(&b);
        c->out->mode = "fixed";
        return search_regex(c, c->q->query, true, false, limit);
    }
    if (mg_tokenize(c->q->query, qlen, qtok_cb, c) != 0) {
        mg_buf_release(&b);
        return mg_err_oom(c->err);
    }
    if (c->lines && !c->mw && mwords_init(c) != 0) {
        mg_buf_release(&b);
        return -1;
    }
    /* 1. whole words: the exact identifiers. 2. if that is not enough,
     * identifier parts too (parseHttpHeader finds parse_http_header); the
     * whole-word rows come back first there as well, having more matching
     * terms. 3. nothing at all: any word (any_query). */
    c->nseen = 0;
    int found = lexical_run(c, b.p, 0, limit, false);
    for (int step = 2; step <= 3 && found >= 0 && found < limit; step++) {
        if (step == 3 && (found > 0 || words < 2)) break;
        int nscored = 0;
        if (step == 2) {
            /* (no word with parts: the same expression again, skipped) */
            struct mg_buf parts;
            mg_buf_init(&parts, b.max);
            mg_fts_query(c->q->query, qlen, 0, &parts);
            if (!parts.p) {
                found = mg_err_oom(c->err);
                break;
            }
            bool same = strcmp(parts.p, b.p) == 0;
            mg_buf_release(&b);
            b = parts;
            if (same) continue;
        } else {
            mg_buf_reset(&b);
            if (any_query(c, c->q->query, &b, &nscored) != 0) {
                found = -1;
                break;
            }
        }
        if (step == 2 && found > 0) { /* the whole-word hits stay first; the parts add others after them */
            found = lexical_run(c, b.p, nscored, limit, true);
            continue;
        }
        size_t before = c->out->n;
        for (size_t i = c->base; i < before; i++) mg_hit_release(&c->out->v[i]);
        c->out->n = c->base;
        c->nseen = 0;
        found = lexical_run(c, b.p, nscored, limit, false);
    }
    mg_buf_release(&b);
    return found < 0 ? -1 : 0;
}

/* The embedder or an external vector store (vector/vext.h) failed: hybrid
 * answers by words, says so (mg_results.semantic_*) and logs it; true when
 * e is that. */
static bool semantic_failed(struct ctx *c, const struct mg_err *e)
{
    static const char *const codes[] = {MG_E_EMBED_UNAVAILABLE, MG_E_EMBED_REJECTED, MG_E_EMBED_BAD_RESPONSE,
                                        MG_E_VSTORE_UNAVAILABLE, MG_E_VSTORE_BAD_RESPONSE};
    size_t k = 0;
    while (k < 5 && (!e->code || strcmp(e->code, codes[k]) != 0)) k++;
    if (k == 5) return false;
    c->top->semantic_unavailable++;
    c->top->semantic_error = codes[k];
    c->top->semantic_source = k < 3                                        ? "embedder"
                              : strcmp(c->cfg->vector_store, "chroma") == 0 ? "chroma"
                              : strcmp(c->cfg->vector_store, "qdrant") == 0 ? "qdrant"
                                                                            : "vector_store";
    fprintf(stderr, "memgate: warning: %s: %s: %s; hybrid search answered by words alone\n", c->top->semantic_source,
            e->code, e->msg);
    return true;
}

/* Semantic: the top chunks by cosine, as lexical-style hits, in two steps
 * (hybrid runs its other searches while the vectors are scanned). start: 0,
 * 1 when the repo has no vectors, or (vectors_nowait) they are still
 * loading, and !required (hybrid goes on without them), -1 on error. */
static int semantic_start(struct ctx *c, int limit, bool required, bool background, struct mg_semantic_job **job)
{
    *job = NULL;
    if (c->nqtok == 0 && mg_tokenize(c->q->query, strlen(c->q->query), qtok_cb, c) != 0)
        return mg_err_oom(c->err);
    struct mg_err e = {0};
    struct mg_vload l = {0};
    /* hybrid in a server does not wait for vectors still loading: it answers by words and says so */
    int rc = mg_semantic_start(c->cfg, c->d, c->repo->id, c->q->query, &c->filter, limit, background,
                               !required && c->q->vectors_nowait ? &l : NULL, job, &e);
    if (rc == 0) return 0;
    if (rc == 1) {
        c->top->semantic_loading++;
        c->top->vectors_loaded += l.done;
        c->top->vectors_total += l.total;
        return 1;
    }
    /* hybrid goes on by words when the repo has no vectors, or the embedder or the vector store fails */
    if (!required && e.code && strcmp(e.code, MG_E_NO_EMBEDDINGS) == 0) return 1;
    if (!required && semantic_failed(c, &e)) return 1;
    *c->err = e;
    return -1;
}

/* ties: the job was started for limit + LEX_TIES_MAX; the hits past limit
 * tied with the last one come too (as lexical_run's), for the final sort's cut */
static int semantic_finish(struct ctx *c, struct mg_semantic_job *job, int limit, bool ties)
{
    int k = limit + (ties ? LEX_TIES_MAX : 0);
    struct mg_vmatch *m = malloc((size_t)(k > 0 ? k : 1) * sizeof(*m));
    long n = mg_semantic_finish(job, m, c->err);
    if (!m) return mg_err_oom(c->err);
    sqlite3_stmt *row = NULL;
    int rc = n < 0 ? -1 : 0;
    if (rc == 0 && n > 0 &&
        mg_db_prepare(c->d, "SELECT " HIT_COLS " FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.id = ?",
                      &row, c->err) != 0)
        rc = -1;
    for (long i = 0; rc == 0 && i < n; i++) {
        if (i >= limit && (i == 0 || m[i].score != m[limit - 1].score)) break;
        sqlite3_reset(row);
        sqlite3_bind_int64(row, 1, m[i].id);
        if (sqlite3_step(row) != SQLITE_ROW) continue; /* a vector outliving its chunk: the next index prunes it */
        rc = lexical_hit(c, row, 0, m[i].score);
    }
    sqlite3_finalize(row);
    free(m);
    return rc;
}

static int search_semantic(struct ctx *c, int limit, bool required)
{
    /* vectors tied at the cut (identical text) are cut by position; the rows tied with the last one come
     * along so that the final sort (score, repo, path) cuts among them all: pages are prefix-stable */
    struct mg_semantic_job *job;
    int rc = semantic_start(c, limit + LEX_TIES_MAX, required, false, &job);
    return rc != 0 ? rc : semantic_finish(c, job, limit, true);
}

static int search_symbol(struct ctx *c, int limit, double subword_rows_max);
static int search_idents(struct ctx *c, int limit);
static int search_paths(struct ctx *c, const struct mg_results *const *found, size_t nfound, int limit);
static int search_graph(struct ctx *c, const struct mg_results *const *found, size_t nfound, int limit);
#define PATH_WORDS_MAX 16 /* words of a hybrid query looked for in paths (search_paths) */
/* rows each of a hybrid query's words may hold at most for its symbol
 * list's sub-word step (search_symbol): about 5 ms of reading them */
#define HYBRID_SUBWORD_ROWS_MAX 150000.0
#define PATH_FILES_MAX 10 /* files they name that count */
#define HYBRID_DEPTH 50   /* the fused lists' depth (at least) */

/* Hybrid: lexical, symbol and semantic lists fused by rank (hybrid.h); the
 * vectors are scanned on a thread of their own meanwhile. The symbol list of
 * prose that names code (a bug report) is the definitions of the
 * identifiers it names. */
static int search_hybrid(struct ctx *c, int limit)
{
    struct mg_results *final = c->out;
    size_t base = c->base;
    struct mg_results lex = {.mode = "lexical"}, sym = {.mode = "symbol"}, sem = {.mode = "semantic"},
                      paths = {.mode = "path"}, graph = {.mode = "graph"};
    /* the lists' depth does not follow the limit below HYBRID_DEPTH: a deeper list would add candidates to the
     * fusion and move the ranks, and pages (a limit of offset + limit + 1) must be prefix-stable */
    int depth = limit < HYBRID_DEPTH ? HYBRID_DEPTH : limit;
    c->base = 0;
    struct mg_semantic_job *job;
    int rc = semantic_start(c, depth, false, true, &job);
    if (rc == 1) { /* no vectors here: this repo is searched by words only (and its hits list their lines) */
        c->out = final;
        c->base = base;
        c->lines = true;
        return search_lexical(c, limit);
    }
    if (rc == 0) {
        /* the lexical and symbol halves search the content words: function
         * words of a question match most chunks and rank nothing */
        (*c->semantic_repos)++;
        size_t cap = strlen(c->q->query) + 1;
        char *words = malloc(cap);
        const struct mg_search_req *orig = c->q;
        struct mg_search_req lq = *orig;
        if (!words) rc = mg_err_oom(c->err);
        else if (mg_query_content_words(orig->query, 0, words, cap) > 0) lq.query = words;
        c->q = &lq;
        if (rc == 0) {
            c->out = &lex;
            rc = search_lexical(c, depth);
            lex.mode = "lexical";
        }
        c->q = orig;
        if (rc == 0) {
            c->out = &sym;
            rc = search_idents(c, depth);
            if (rc == 0) {
                c->q = &lq;
                rc = search_symbol(c, depth, HYBRID_SUBWORD_ROWS_MAX);
                c->q = orig;
            } else if (rc > 0) rc = 0;
        }
        /* (a started scan is always waited for) */
        struct mg_err first = *c->err;
        c->out = &sem;
        int sr = semantic_finish(c, job, depth, false);
        if (sr != 0 && semantic_failed(c, c->err)) { /* the store failed mid-search: the words' lists stand */
            sr = 0;
            mg_results_release(&sem);
            sem = (struct mg_results){.mode = "semantic"};
            (*c->semantic_repos)--;
            *c->err = first;
        }
        if (rc == 0) rc = sr;
        else *c->err = first;
        if (rc == 0) {
            const struct mg_results *found[] = {&lex, &sem, &sym};
            c->out = &paths;
            c->q = &lq;
            rc = search_paths(c, found, 3, PATH_FILES_MAX);
            c->q = orig;
        }
        if (rc == 0 && c->cfg->hybrid_weight[4] > 0) {
            const struct mg_results *found[] = {&lex, &sem, &sym};
            c->out = &graph;
            rc = search_graph(c, found, 3, PATH_FILES_MAX);
        }
        free(words);
    }
    c->out = final;
    c->base = base;
    struct mg_results *lists[] = {&lex, &sem, &sym, &paths, &graph};
    if (rc == 0 && mg_rrf_fuse(lists, 5, limit, c->cfg->hybrid_weight, c->cfg->hybrid_rrf_k, final) != 0)
        rc = mg_err_oom(c->err);
    mg_results_release(&paths);
    mg_results_release(&graph);
    mg_results_release(&lex);
    mg_results_release(&sym);
    mg_results_release(&sem);
    return rc;
}

/* ---- 4. regex ---------------------------------------------------------------------- */

struct fchunk {
    int64_t start, end;
    int start_line, end_line;
    char *symbol, *kind;
};

static void fchunks_free(struct fchunk *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].symbol);
        free(v[i].kind);
    }
    free(v);
}

/* A file's chunks (ids lo..hi, in file order). */
static int load_chunks(struct ctx *c, sqlite3_stmt *st, int64_t lo, int64_t hi, struct fchunk **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    size_t cap = 0;
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, lo);
    sqlite3_bind_int64(st, 2, hi);
    while (sqlite3_step(st) == SQLITE_ROW) {
        struct fchunk *v = mg_grow(*out, *n, &cap, sizeof(*v));
        if (!v) return mg_err_oom(c->err);
        *out = v;
        struct fchunk *f = &(*out)[(*n)++];
        f->start = sqlite3_column_int64(st, 0);
        f->end = sqlite3_column_int64(st, 1);
        f->start_line = sqlite3_column_int(st, 2);
        f->end_line = sqlite3_column_int(st, 3);
        f->symbol = dup_col(st, 4);
        f->kind = dup_col(st, 5);
    }
    return 0;
}

/* Index of the chunk containing byte off, or -1. */
static ssize_t chunk_at(const struct fchunk *v, size_t n, int64_t off)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (v[mid].end <= off) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && v[lo].start <= off ? (ssize_t)lo : -1;
}

static int line_of_off(const char *t, size_t off, size_t from, int from_line)
{
    int line = from_line;
    for (size_t i = from; i < off; i++)
        if (t[i] == '\n') line++;
    return line;
}

/* The line of byte off, counting from byte from on line from_line, and in
 * *lstart the start of that line (left as is when it is from_line). */
static int line_and_start(const char *t, size_t off, size_t from, int from_line, size_t *lstart)
{
    int line = from_line;
    for (size_t i = from; i < off; i++)
        if (t[i] == '\n') {
            line++;
            *lstart = i + 1;
        }
    return line;
}

/* Confirm one file: append a hit per chunk with matches. */
struct rfile {
    int64_t id, chunk_lo, chunk_hi, sym_lo, sym_hi;
    const char *path, *lang;
};

#define RFILE_COLS "path, lang, chunk_lo, chunk_hi, sym_lo, sym_hi"

static void rfile_from(struct rfile *f, sqlite3_stmt *st, int64_t id)
{
    f->id = id;
    f->path = (const char *)sqlite3_column_text(st, 0);
    f->lang = (const char *)sqlite3_column_text(st, 1);
    f->chunk_lo = sqlite3_column_int64(st, 2);
    f->chunk_hi = sqlite3_column_int64(st, 3);
    f->sym_lo = sqlite3_column_int64(st, 4);
    f->sym_hi = sqlite3_column_int64(st, 5);
}

/* The innermost definition of the file (symbols lo..hi) around `line`:
 * symbol and kind into h (a regex hit names the function a line is in,
 * where its chunk may be a whole class). Not a macro, and not a member: a
 * hit on a field's line names its struct. */
static void innermost_symbol(sqlite3_stmt *st, const struct rfile *f, int line, struct mg_hit *h)
{
    if (f->sym_lo > f->sym_hi) return;
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, f->sym_lo);
    sqlite3_bind_int64(st, 2, f->sym_hi);
    sqlite3_bind_int(st, 3, line);
    if (sqlite3_step(st) == SQLITE_ROW) {
        free(h->symbol);
        free(h->kind);
        h->symbol = dup_col(st, 0);
        h->kind = dup_col(st, 1);
    }
    sqlite3_reset(st);
}

/* Confirm one file: append a hit per chunk with matches, each listing its
 * matching lines, until `limit` hits; past that, only count the matches
 * (c->out->total_matches; no chunks, symbols or lines) until the count
 * passes MG_TOTAL_MATCHES_MAX. */
static int regex_file(struct ctx *c, pcre2_code *re, pcre2_match_data *md, pcre2_match_context *mc,
                      sqlite3_stmt *chunks_st, sqlite3_stmt *syms_st, const struct rfile *rf, int limit)
{
    int64_t fid = rf->id;
    const char *path = rf->path, *lang = rf->lang;
    const char *t;
    size_t len;
    if (file_text(c, fid, &t, &len) != 0) return -1;
    struct fchunk *ch = NULL;
    size_t nch = 0;
    bool loaded = false;
    ssize_t cur = -2;          /* chunk of the current hit */
    struct mg_hit *h = NULL;
    size_t off = 0, lastpos = 0, ls = 0; /* ls: the start of line lastline */
    int lastline = 1, hline = 0, matches = 0, rc = 0;
    bool counting = c->out->n - c->base >= (size_t)limit; /* the hits are all there: count only */
    struct mg_results *out = c->out;
    if (counting) c->counted_bytes += len;
    while (off <= len) {
        int m = pcre2_match(re, (PCRE2_SPTR)t, len, off, 0, md, mc);
        if (m == PCRE2_ERROR_NOMATCH) break;
        if (m < 0) {
            if (m == PCRE2_ERROR_MATCHLIMIT || m == PCRE2_ERROR_DEPTHLIMIT || m == PCRE2_ERROR_HEAPLIMIT)
                fprintf(stderr, "warning: regex too costly in '%s'; file skipped\n", path);
            out->total_capped = true; /* the rest of the file is not counted */
            break;
        }
        if (matches == MATCHES_PER_FILE || (counting && out->total_matches >= MG_TOTAL_MATCHES_MAX)) {
            out->total_capped = true; /* one more match than counted */
            break;
        }
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
        size_t ms = ov[0], me = ov[1];
        matches++;
        out->total_matches++;
        off = me > ms ? me : ms + 1;
        /* do not start the next match inside a UTF-8 sequence */
        while (off < len && ((unsigned char)t[off] & 0xc0) == 0x80) off++;
        if (counting) continue;
        if (!loaded) {
            if (load_chunks(c, chunks_st, rf->chunk_lo, rf->chunk_hi, &ch, &nch) != 0) {
                rc = -1;
                break;
            }
            loaded = true;
        }
        int line = line_and_start(t, ms, lastpos, lastline, &ls);
        lastpos = ms;
        lastline = line;
        ssize_t k = chunk_at(ch, nch, (int64_t)ms);
        if (k != cur || k < 0) {
            if (out->n - c->base >= (size_t)limit) {
                counting = true;
                continue;
            }
            h = hit_new(out);
            if (!h) {
                rc = mg_err_oom(c->err);
                break;
            }
            cur = k;
            hline = 0;
            snprintf(h->repo, sizeof(h->repo), "%s", c->repo->id);
            h->path = strdup(path);
            h->language = strdup(lang);
            h->line = line;
            if (k >= 0) {
                h->start_line = ch[k].start_line;
                h->end_line = ch[k].end_line;
                h->symbol = ch[k].symbol ? strdup(ch[k].symbol) : NULL;
                h->kind = ch[k].kind ? strdup(ch[k].kind) : NULL;
            } else {
                h->start_line = h->end_line = line;
            }
            innermost_symbol(syms_st, rf, line, h);
            /* the matching line(s): up to three lines from the match start */
            int mlast = line_of_off(t, me > ms ? me - 1 : ms, ms, line);
            if (mlast > line + 2) mlast = line + 2;
            h->snippet = snippet_lines(t, len, ls, line, line, mlast);
            h->snippet_line = line;
        }
        h->score += 1;
        h->match_count++;
        if (line != hline) { /* each matching line once */
            hline = line;
            if (hit_add_line(c, h, t, len, ls, line) != 0) {
                rc = mg_err_oom(c->err);
                break;
            }
        }
    }
    fchunks_free(ch, nch);
    return rc;
}

/* Does the next candidate file need reading: for hits, or to count? */
static bool regex_more(struct ctx *c, int limit)
{
    if (c->out->n - c->base < (size_t)limit) return true;
    if (c->out->total_capped) return false;
    if (c->counted_bytes >= MG_COUNT_BYTES_MAX) { /* counting past the limit has had its share */
        c->out->total_capped = true;
        return false;
    }
    return true;
}

static int search_regex(struct ctx *c, const char *pattern, bool fixed, bool caseless, int limit)
{
    if (c->out->total_matches < 0) c->out->total_matches = 0;
    int ec;
    PCRE2_SIZE eo;
    /* (PCRE2_LITERAL refuses PCRE2_MULTILINE, which a literal does not need) */
    uint32_t opts = PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | (caseless ? PCRE2_CASELESS : 0) |
                    (fixed ? PCRE2_LITERAL : PCRE2_MULTILINE);
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, opts, &ec, &eo, NULL);
    if (!re) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(ec, msg, sizeof(msg));
        return mg_err_set(c->err, MG_E_BAD_REGEX, "invalid regex at offset %zu: %s; fix it or pass `fixed` to search for the text as written",
                          (size_t)eo, (const char *)msg);
    }
    pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    pcre2_match_context *mc = pcre2_match_context_create(NULL);
    struct mg_rx_node *f = NULL;
    struct mg_ids ids = {0};
    sqlite3_stmt *files_st = NULL, *chunks_st = NULL, *syms_st = NULL;
    int rc = -1;
    if (!md || !mc) {
        mg_err_oom(c->err);
        goto out;
    }
    pcre2_set_match_limit(mc, REGEX_MATCH_LIMIT);
    pcre2_set_depth_limit(mc, REGEX_DEPTH_LIMIT);
    if (mg_rxlit_analyze(pattern, strlen(pattern), (caseless ? MG_RX_CASELESS : 0) | (fixed ? MG_RX_FIXED : 0), &f,
                         c->err) != 0)
        goto out;
    if (mg_tri_candidates(c->d, f, &ids, c->err) != 0) goto out;
    if (mg_db_prepare(c->d, "SELECT start_byte, end_byte, start_line, end_line, symbol, kind FROM chunks "
                            "WHERE id BETWEEN ? AND ? ORDER BY id", &chunks_st, c->err) != 0 ||
        mg_db_prepare(c->d, "SELECT name, kind FROM symbols WHERE id BETWEEN ?1 AND ?2 AND start_line <= ?3 "
                            "AND end_line >= ?3 AND kind <> 'macro' AND kind NOT IN " MG_KIND_MEMBER_SQL " "
                            "ORDER BY end_line - start_line, id DESC LIMIT 1",
                      &syms_st, c->err) != 0)
        goto out;
    struct rfile rf;
    if (ids.all) {
        if (mg_db_prepare(c->d, "SELECT " RFILE_COLS ", id FROM files WHERE mg_filter_ok(?1, path, lang) ORDER BY id",
                          &files_st, c->err) != 0)
            goto out;
        sqlite3_bind_pointer(files_st, 1, &c->filter, "mg_filter", NULL);
        while (sqlite3_step(files_st) == SQLITE_ROW && regex_more(c, limit)) {
            c->out->candidates++;
            rfile_from(&rf, files_st, sqlite3_column_int64(files_st, 6));
            if (regex_file(c, re, md, mc, chunks_st, syms_st, &rf, limit) != 0) goto out;
        }
    } else {
        if (mg_db_prepare(c->d, "SELECT " RFILE_COLS " FROM files WHERE id=?2 AND mg_filter_ok(?1, path, lang)",
                          &files_st, c->err) != 0)
            goto out;
        sqlite3_bind_pointer(files_st, 1, &c->filter, "mg_filter", NULL);
        for (size_t i = 0; i < ids.n && regex_more(c, limit); i++) {
            sqlite3_reset(files_st);
            sqlite3_bind_int64(files_st, 2, ids.v[i]);
            if (sqlite3_step(files_st) != SQLITE_ROW) continue; /* deleted, or out of scope */
            c->out->candidates++;
            rfile_from(&rf, files_st, ids.v[i]);
            if (regex_file(c, re, md, mc, chunks_st, syms_st, &rf, limit) != 0) goto out;
        }
    }
    rc = 0;
out:
    sqlite3_finalize(files_st);
    sqlite3_finalize(chunks_st);
    sqlite3_finalize(syms_st);
    mg_ids_release(&ids);
    mg_rxlit_free(&f);
    pcre2_match_context_free(mc);
    pcre2_match_data_free(md);
    pcre2_code_free(re);
    return rc;
}

/* ---- 5. symbol ------------------------------------------------------------------------ */

#define IDENT_DEFS_MAX 4 /* definitions of one identifier a prose query names (search_idents) */

/* Kinds that define something a reader looks for first; declarations
 * (prototypes, variables, enumerators) with macros, after the definitions;
 * fields, which many structs share names of, last. */
static const char *KIND_ORDER_SQL =
    "CASE s.kind WHEN 'function' THEN 0 WHEN 'method' THEN 0 WHEN 'class' THEN 0 WHEN 'struct' THEN 0 "
    "WHEN 'interface' THEN 0 WHEN 'trait' THEN 0 WHEN 'constructor' THEN 1 WHEN 'enum' THEN 1 WHEN 'union' THEN 1 "
    "WHEN 'type' THEN 1 WHEN 'macro' THEN 2 WHEN 'prototype' THEN 2 WHEN 'variable' THEN 2 "
    "WHEN 'enumerator' THEN 2 ELSE 3 END";

/* A query's words, each as its whole form and its parts (as mg_fts_query
 * spells them out), to test single names against: the sub-word pass finds
 * chunks whose symbol column matches, and names only the definitions in them
 * that match by themselves. */
#define QW_MAX 32
struct qwords {
    size_t n;
    char *tok[QW_MAX * 8];
    size_t word[QW_MAX * 8]; /* the word each token belongs to (its start) */
};

static int qwords_cb(void *ctx, const char *tok, size_t len, size_t start, size_t end, bool colocated)
{
    struct qwords *q = ctx;
    if (q->n == sizeof(q->tok) / sizeof(q->tok[0])) return 1;
    if (!(q->tok[q->n] = strndup(tok, len))) return -1;
    q->word[q->n++] = start;
    return 0;
}

static void qwords_free(struct qwords *q)
{
    for (size_t i = 0; i < q->n; i++) free(q->tok[i]);
    q->n = 0;
}

struct name_toks {
    const struct qwords *q;
    bool *seen; /* per query token: the name has it */
};

static int name_cb(void *ctx, const char *tok, size_t len, size_t start, size_t end, bool colocated)
{
    struct name_toks *t = ctx;
    for (size_t i = 0; i < t->q->n; i++)
        if (!t->seen[i] && strlen(t->q->tok[i]) == len && memcmp(t->q->tok[i], tok, len) == 0) t->seen[i] = true;
    return 0;
}

/* Does the name hold every query word, whole or by all of its parts? */
static bool name_matches(const struct qwords *q, const char *name)
{
    bool seen[sizeof(q->tok) / sizeof(q->tok[0])] = {false};
    struct name_toks t = {q, seen};
    mg_tokenize(name, strlen(name), name_cb, &t);
    for (size_t i = 0; i < q->n;) {
        size_t j = i + 1; /* tokens i..j-1 are one word: its whole form, then its parts */
        while (j < q->n && q->word[j] == q->word[i]) j++;
        bool ok = seen[i], parts = j > i + 1;
        for (size_t k = i + 1; k < j && parts; k++) parts = seen[k];
        if (!ok && !(j > i + 1 && parts)) return false;
        i = j;
    }
    return q->n > 0;
}

static int symbol_hit(struct ctx *c, sqlite3_stmt *st, double score)
{
    /* columns: 0 id, 1 name, 2 kind, 3 container, 4 start, 5 end, 6 path, 7 lang, 8 file id */
    for (size_t i = 0; i < c->out->n; i++) /* the sub-word pass may meet earlier hits again */
        if (c->out->v[i].start_line == sqlite3_column_int(st, 4) &&
            strcmp(c->out->v[i].path, (const char *)sqlite3_column_text(st, 6)) == 0 &&
            strcmp(c->out->v[i].repo, c->repo->id) == 0 && c->out->v[i].symbol &&
            strcmp(c->out->v[i].symbol, (const char *)sqlite3_column_text(st, 1)) == 0)
            return 0;
    struct mg_hit *h = hit_new(c->out);
    if (!h) return mg_err_oom(c->err);
    snprintf(h->repo, sizeof(h->repo), "%s", c->repo->id);
    h->symbol = dup_col(st, 1);
    h->kind = dup_col(st, 2);
    h->start_line = h->line = sqlite3_column_int(st, 4);
    h->end_line = sqlite3_column_int(st, 5);
    h->path = dup_col(st, 6);
    h->language = dup_col(st, 7);
    h->score = score;
    const char *t;
    size_t len;
    if (file_text(c, sqlite3_column_int64(st, 8), &t, &len) != 0) return -1;
    int last = h->start_line + 2 < h->end_line ? h->start_line + 2 : h->end_line;
    h->snippet = snippet_lines(t, len, 0, 1, h->start_line, last);
    h->snippet_line = h->start_line;
    return 1;
}

/* subword_rows_max > 0: the sub-word step (4, below) is skipped when each
 * of the query's words holds more rows than that (estimated): it reads the
 * rows of all of them, and hybrid search, which has the words' own list,
 * cannot afford it for words as common as "static int" (603,915 and 472,313
 * of Linux's 1.2 M chunks: 44 ms for the names made of those parts). */
static int search_symbol(struct ctx *c, int limit, double subword_rows_max)
{
    const char *q = c->q->query;
    /* 1-3: exact, case-insensitive, prefix -- one query over the name index */
    struct mg_buf sql, like;
    mg_buf_init(&sql, 4096);
    mg_buf_init(&like, c->cfg->max_query_bytes * 2 + 2);
    for (const char *p = q; *p; p++) {
        if (*p == '%' || *p == '_' || *p == '\\') mg_buf_addc(&like, '\\');
        mg_buf_addc(&like, *p);
    }
    mg_buf_addc(&like, '%');
    mg_buf_addf(&sql,
                "SELECT s.id, s.name, s.kind, s.container, s.start_line, s.end_line, f.path, f.lang, f.id, "
                "CASE WHEN s.name = ?1 THEN 0 WHEN s.name = ?1 COLLATE NOCASE THEN 1 ELSE 2 END AS tier, %s AS ko "
                "FROM symbols s JOIN files f ON f.id = s.file_id "
                "WHERE s.name LIKE ?2 ESCAPE '\\' AND mg_filter_ok(?3, f.path, f.lang) "
                "ORDER BY tier, length(s.name), ko, f.path, s.start_line LIMIT ?4",
                KIND_ORDER_SQL);
    sqlite3_stmt *st;
    int rc = -1;
    if (mg_db_prepare(c->d, sql.p, &st, c->err) != 0) goto out;
    sqlite3_bind_text(st, 1, q, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, like.p, -1, SQLITE_STATIC);
    sqlite3_bind_pointer(st, 3, &c->filter, "mg_filter", NULL);
    sqlite3_bind_int(st, 4, limit);
    int found = 0, step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        int tier = sqlite3_column_int(st, 9);
        /* exact 1.0, any case 0.9, prefix 0.8 less a little per extra char; less a trace by kind, so that the
         * final sort (by score, then path) keeps the order the rows were cut in: pages are prefix-stable */
        double score = tier == 0 ? 1.0 : tier == 1 ? 0.9
                                 : 0.8 - 0.001 * (double)(sqlite3_column_bytes(st, 1) - (int)strlen(q));
        score -= 0.0001 * sqlite3_column_int(st, 10);
        int r = symbol_hit(c, st, score);
        if (r < 0) {
            sqlite3_finalize(st);
            goto out;
        }
        found += r;
    }
    sqlite3_finalize(st);
    if (step != SQLITE_DONE) {
        mg_db_error(c->d, "symbol search", c->err);
        goto out;
    }
    /* 4: sub-word matches, when no name matched: the symbol column of
     * chunks_fts holds definition names split into parts; in the best
     * chunks found there, the names that match by themselves (the chunk's
     * definition, or one that starts in it: a method in its class's chunk
     * is named, not the class) are looked up in the symbols table like exact
     * names. (Not to pad a short list of exact matches: it costs a pass over
     * every chunk holding a common part such as "read".) */
    bool subword = found == 0;
    if (subword && subword_rows_max > 0) {
        int common = words_all_common(c, q, like.max, subword_rows_max);
        if (common < 0) goto out;
        subword = !common;
    }
    if (subword) {
        mg_buf_reset(&like);
        mg_buf_adds(&like, "symbol : ");
        struct qwords qw = {0};
        if (mg_fts_query(q, strlen(q), 0, &like) > 0 && mg_tokenize(q, strlen(q), qwords_cb, &qw) >= 0) {
            sqlite3_stmt *chunks = NULL, *inner = NULL, *byname = NULL;
            char **names = NULL;
            size_t nnames = 0;
            int bad = 0;
            /* (the name index is case-insensitive: `= ?1 COLLATE NOCASE` lets
             * the search use it, where `= ?1` alone scans every symbol) */
            mg_buf_reset(&sql);
            mg_buf_addf(&sql,
                        "SELECT s.id, s.name, s.kind, s.container, s.start_line, s.end_line, f.path, f.lang, f.id, "
                        "%s AS ko FROM symbols s JOIN files f ON f.id = s.file_id "
                        "WHERE s.name = ?1 COLLATE NOCASE AND s.name = ?1 AND mg_filter_ok(?2, f.path, f.lang) "
                        "ORDER BY ko, f.path, s.start_line",
                        KIND_ORDER_SQL);
            if (mg_db_prepare(c->d, "SELECT c.symbol, c.start_line, c.end_line, f.sym_lo, f.sym_hi, "
                                    "mgrank(chunks_fts, 0.0, 1.0, 0.0, (SELECT max(id) FROM chunks)) AS r "
                                    "FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid "
                                    "JOIN files f ON f.id = c.file_id "
                                    "WHERE chunks_fts MATCH ?1 ORDER BY r LIMIT ?2",
                              &chunks, c->err) != 0 ||
                mg_db_prepare(c->d, "SELECT name FROM symbols WHERE id BETWEEN ?1 AND ?2 AND start_line BETWEEN ?3 "
                                    "AND ?4 AND kind NOT IN " MG_KIND_MEMBER_SQL " ORDER BY id",
                              &inner, c->err) != 0 ||
                mg_db_prepare(c->d, sql.p, &byname, c->err) != 0)
                bad = 1;
            else if (!(names = calloc((size_t)limit * 4 + 1, sizeof(*names))))
                bad = mg_err_oom(c->err);
            if (!bad) {
                sqlite3_bind_text(chunks, 1, like.p, -1, SQLITE_STATIC);
                sqlite3_bind_int(chunks, 2, limit * 4);
                sqlite3_bind_pointer(byname, 2, &c->filter, "mg_filter", NULL);
            }
            int step_chunks = SQLITE_DONE;
            while (!bad && found < limit && (step_chunks = sqlite3_step(chunks)) == SQLITE_ROW) {
                double b = -sqlite3_column_double(chunks, 5); /* bm25 is negative; map into (0, 0.7) */
                /* the chunk's definition, then the definitions starting in it */
                sqlite3_reset(inner);
                sqlite3_bind_int64(inner, 1, sqlite3_column_int64(chunks, 3));
                sqlite3_bind_int64(inner, 2, sqlite3_column_int64(chunks, 4));
                sqlite3_bind_int64(inner, 3, sqlite3_column_int64(chunks, 1));
                sqlite3_bind_int64(inner, 4, sqlite3_column_int64(chunks, 2));
                const char *own = (const char *)sqlite3_column_text(chunks, 0);
                for (bool first = true; !bad && found < limit; first = false) {
                    const char *name = own;
                    if (!first || !own) {
                        if (sqlite3_step(inner) != SQLITE_ROW) break;
                        name = (const char *)sqlite3_column_text(inner, 0);
                    }
                    if (!name || !name_matches(&qw, name)) continue;
                    size_t k = 0;
                    while (k < nnames && strcmp(names[k], name) != 0) k++;
                    if (k < nnames) continue; /* named already, by a better chunk */
                    if (nnames < (size_t)limit * 4 && !(names[nnames++] = strdup(name))) {
                        bad = mg_err_oom(c->err);
                        break;
                    }
                    sqlite3_reset(byname);
                    sqlite3_bind_text(byname, 1, name, -1, SQLITE_TRANSIENT);
                    while (found < limit && sqlite3_step(byname) == SQLITE_ROW) {
                        int r = symbol_hit(c, byname, 0.7 * b / (1.0 + b) - 1e-6 * sqlite3_column_int(byname, 9));
                        if (r < 0) {
                            bad = 1;
                            break;
                        }
                        found += r;
                    }
                }
            }
            if (!bad && found < limit && step_chunks != SQLITE_DONE) bad = mg_db_error(c->d, "symbol search", c->err);
            for (size_t k = 0; k < nnames; k++) free(names[k]);
            free(names);
            sqlite3_finalize(chunks);
            sqlite3_finalize(inner);
            sqlite3_finalize(byname);
            qwords_free(&qw);
            if (bad) goto out;
        } else {
            qwords_free(&qw);
        }
    }
    rc = 0;
out:
    mg_buf_release(&sql);
    mg_buf_release(&like);
    return rc;
}

/* The definitions named by the identifiers a query writes as code
 * (mg_query_identifiers), exact names, each identifier's in kind order, up
 * to limit: how many (0: the query names none, or none is defined), or -1. */
static int search_idents(struct ctx *c, int limit)
{
    const char *start[MG_QUERY_IDENTS_MAX];
    size_t len[MG_QUERY_IDENTS_MAX];
    size_t n = mg_query_identifiers(c->q->query, start, len, MG_QUERY_IDENTS_MAX);
    if (n == 0) return 0;
    char sql[1024];
    snprintf(sql, sizeof(sql),
             "SELECT s.id, s.name, s.kind, s.container, s.start_line, s.end_line, f.path, f.lang, f.id "
             "FROM symbols s JOIN files f ON f.id = s.file_id "
             "WHERE s.name = ?1 COLLATE NOCASE AND s.name = ?1 AND s.kind NOT IN " MG_KIND_MEMBER_SQL " "
             "AND mg_filter_ok(?2, f.path, f.lang) ORDER BY %s, f.path, s.start_line LIMIT ?3",
             KIND_ORDER_SQL);
    sqlite3_stmt *st;
    if (mg_db_prepare(c->d, sql, &st, c->err) != 0) return -1;
    int found = 0, step = SQLITE_DONE;
    for (size_t i = 0; i < n && found < limit; i++) {
        sqlite3_reset(st);
        sqlite3_bind_text(st, 1, start[i], (int)len[i], SQLITE_STATIC);
        sqlite3_bind_pointer(st, 2, &c->filter, "mg_filter", NULL);
        sqlite3_bind_int(st, 3, IDENT_DEFS_MAX);
        while (found < limit && (step = sqlite3_step(st)) == SQLITE_ROW) {
            int r = symbol_hit(c, st, 1.0);
            if (r < 0) {
                sqlite3_finalize(st);
                return -1;
            }
            found += r;
        }
        if (step != SQLITE_ROW && step != SQLITE_DONE) break;
    }
    sqlite3_finalize(st);
    if (step != SQLITE_ROW && step != SQLITE_DONE) return mg_db_error(c->d, "symbol search", c->err);
    return found;
}

/* Does word w (n bytes, any case) name a part of path p: a directory, the
 * file's name without its extension (2), or a piece of either split at
 * '_', '-' or '.' (1)? 0: no. */
static int path_names(const char *p, const char *w, size_t n)
{
    const char *base = strrchr(p, '/');
    base = base ? base + 1 : p;
    const char *dot = strrchr(base, '.');
    size_t stem = dot && dot > base ? (size_t)(dot - base) : strlen(base);
    if (stem == n && strncasecmp(base, w, n) == 0) return 2;
    for (const char *s = p; *s;) {
        size_t k = strcspn(s, "/_-.");
        if (k == n && strncasecmp(s, w, n) == 0) return 1;
        s += k;
        if (*s) s++;
    }
    return 0;
}

struct path_cand {
    const struct mg_hit *hit; /* the first hit of the file */
    int score;
};

static int cmp_path_cand(const void *a, const void *b)
{
    const struct path_cand *x = a, *y = b;
    if (x->score != y->score) return y->score - x->score;
    size_t lx = strlen(x->hit->path), ly = strlen(y->hit->path);
    return lx != ly ? (lx < ly ? -1 : 1) : strcmp(x->hit->path, y->hit->path);
}

/* Of the files the other lists found, those whose paths the query's words
 * name (path_names: a file named like a word counts 2, a directory or a
 * piece 1; words of 4 bytes or more), best first, at most limit, none that
 * only one piece of one word names: 0, or -1 out of memory. Their hits are
 * whole files (lines 0): fusion adds their rank to the file's best chunk
 * (hybrid.h). Only found files can rise, so only their paths are read. */
static int search_paths(struct ctx *c, const struct mg_results *const *found, size_t nfound, int limit)
{
    const char *w[PATH_WORDS_MAX];
    size_t wl[PATH_WORDS_MAX], nw = 0;
    for (const char *p = c->q->query; *p && nw < PATH_WORDS_MAX;) {
        if (!(isalnum((unsigned char)*p) || *p == '_')) {
            p++;
            continue;
        }
        const char *s = p;
        while (isalnum((unsigned char)*p) || *p == '_') p++;
        if (p - s >= 4) {
            w[nw] = s;
            wl[nw++] = (size_t)(p - s);
        }
    }
    if (nw == 0) return 0;
    struct path_cand *v = NULL;
    size_t n = 0, cap = 0;
    for (size_t l = 0; l < nfound; l++)
        for (size_t i = 0; i < found[l]->n; i++) {
            const struct mg_hit *h = &found[l]->v[i];
            bool dup = false;
            for (size_t k = 0; k < n && !dup; k++) dup = strcmp(v[k].hit->path, h->path) == 0;
            if (dup) continue;
            int score = 0;
            for (size_t k = 0; k < nw; k++) score += path_names(h->path, w[k], wl[k]);
            if (score < 2) continue;
            struct path_cand *nv = mg_grow(v, n, &cap, sizeof(*v));
            if (!nv) {
                free(v);
                return mg_err_oom(c->err);
            }
            v = nv;
            v[n++] = (struct path_cand){h, score};
        }
    if (n > 1) qsort(v, n, sizeof(*v), cmp_path_cand);
    int rc = 0;
    for (size_t i = 0; i < n && (int)i < limit && rc == 0; i++) {
        struct mg_hit *h = hit_new(c->out);
        if (h) {
            snprintf(h->repo, sizeof(h->repo), "%s", v[i].hit->repo);
            h->path = strdup(v[i].hit->path);
            h->score = v[i].score;
        }
        if (!h || !h->path) rc = mg_err_oom(c->err);
    }
    free(v);
    return rc;
}

/* A file's refs row (index/refs.h) as two sorted hash arrays: the names it
 * defines that are specific (MG_REFS_SPECIFIC: a plain word links files
 * that have nothing to do with each other), and every name it uses. */
struct frefs {
    const char *path;
    uint32_t *defs, *uses;
    size_t ndefs, nuses;
    double score;
    int first; /* its best place in the lists */
};

static int frefs_read(struct ctx *c, sqlite3_stmt *st, struct frefs *f)
{
    sqlite3_reset(st);
    sqlite3_bind_text(st, 1, f->path, -1, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_ROW) return 0;
    for (int col = 0; col < 2; col++) {
        const void *b = sqlite3_column_blob(st, col);
        size_t len = (size_t)sqlite3_column_bytes(st, col);
        uint32_t **out = col ? &f->uses : &f->defs;
        size_t *n = col ? &f->nuses : &f->ndefs, cap = 0;
        struct mg_refs_iter it;
        mg_refs_iter_init(&it, b, len, col == 1);
        uint32_t h, extra;
        while (mg_refs_next(&it, &h, &extra)) {
            if (col == 0 && (extra & 3) != MG_REFS_SPECIFIC) continue;
            uint32_t *nv = mg_grow(*out, *n, &cap, sizeof(uint32_t));
            if (!nv) return mg_err_oom(c->err);
            *out = nv;
            (*out)[(*n)++] = h;
        }
    }
    return 0;
}

/* Whether sorted arrays a and b share a value. */
static bool meet(const uint32_t *a, size_t na, const uint32_t *b, size_t nb)
{
    for (size_t i = 0, j = 0; i < na && j < nb;) {
        if (a[i] == b[j]) return true;
        if (a[i] < b[j]) i++;
        else j++;
    }
    return false;
}

static int cmp_frefs(const void *a, const void *b)
{
    const struct frefs *x = a, *y = b;
    if (x->score != y->score) return x->score > y->score ? -1 : 1;
    return x->first - y->first;
}

/* The reference graph around the best hits: of the files the other lists
 * found, those that use a specific name one of the GRAPH_ANCHORS best files
 * defines, or define one it uses, by how many such files they meet, at
 * most limit. Whole-file hits, as search_paths'. */
#define GRAPH_ANCHORS 3
static int search_graph(struct ctx *c, const struct mg_results *const *found, size_t nfound, int limit)
{
    struct frefs *v = NULL;
    size_t n = 0, cap = 0, depth = 0;
    for (size_t l = 0; l < nfound; l++) depth = found[l]->n > depth ? found[l]->n : depth;
    /* the files in list order, interleaved: the first of each list, then the second ... */
    for (size_t i = 0; i < depth; i++)
        for (size_t l = 0; l < nfound; l++) {
            if (i >= found[l]->n) continue;
            const char *p = found[l]->v[i].path;
            bool dup = false;
            for (size_t k = 0; k < n && !dup; k++) dup = strcmp(v[k].path, p) == 0;
            if (dup) continue;
            struct frefs *nv = mg_grow(v, n, &cap, sizeof(*v));
            if (!nv) {
                free(v);
                return mg_err_oom(c->err);
            }
            v = nv;
            v[n] = (struct frefs){.path = p, .first = (int)n};
            n++;
        }
    sqlite3_stmt *st = NULL;
    int rc = n > 1 ? mg_db_prepare(c->d, "SELECT r.defs, r.uses FROM files f JOIN refs r ON r.file_id = f.id "
                                         "WHERE f.path = ?", &st, c->err) : 0;
    for (size_t i = 0; i < n && rc == 0; i++) rc = frefs_read(c, st, &v[i]);
    sqlite3_finalize(st);
    size_t na = n < GRAPH_ANCHORS ? n : GRAPH_ANCHORS;
    for (size_t i = 0; i < n && rc == 0; i++)
        for (size_t a = 0; a < na; a++)
            if (a != i && (meet(v[i].uses, v[i].nuses, v[a].defs, v[a].ndefs) ||
                           meet(v[a].uses, v[a].nuses, v[i].defs, v[i].ndefs)))
                v[i].score += 1;
    if (rc == 0 && n > 1) qsort(v, n, sizeof(*v), cmp_frefs);
    int out = 0;
    for (size_t i = 0; i < n && rc == 0 && out < limit && v[i].score > 0; i++, out++) {
        struct mg_hit *h = hit_new(c->out);
        if (h) {
            snprintf(h->repo, sizeof(h->repo), "%s", c->repo->id);
            h->path = strdup(v[i].path);
            h->score = v[i].score;
        }
        if (!h || !h->path) rc = mg_err_oom(c->err);
    }
    for (size_t i = 0; i < n; i++) {
        free(v[i].defs);
        free(v[i].uses);
    }
    free(v);
    return rc;
}

/* ---- 6. mg_search ------------------------------------------------------------------------ */

/* Ranked hits: by score, ties by repo, path and lines (a total order: pages are prefix-stable) */
static int cmp_score(const void *a, const void *b)
{
    const struct mg_hit *x = a, *y = b;
    if (x->score != y->score) return x->score > y->score ? -1 : 1;
    int k = strcmp(x->repo, y->repo);
    if (!k) k = strcmp(x->path, y->path);
    if (k) return k;
    if (x->start_line != y->start_line) return x->start_line - y->start_line;
    if (x->end_line != y->end_line) return x->end_line - y->end_line;
    return x->line - y->line;
}

static int cmp_position(const void *a, const void *b)
{
    const struct mg_hit *x = a, *y = b;
    int k = strcmp(x->repo, y->repo);
    if (k) return k;
    k = strcmp(x->path, y->path);
    return k ? k : x->line - y->line;
}

/* The freshness contract: a hit whose file changed on disk since it was
 * indexed (size or mtime, or gone) says so, so that its lines are not taken
 * for the file's (the watcher re-indexes it within about a second). One
 * lookup and one stat per hit. */
static void mark_stale(struct ctx *c)
{
    sqlite3_stmt *st = NULL;
    if (c->out->n == c->base || sqlite3_prepare_v2(c->d->db, "SELECT size, mtime FROM files WHERE path = ?", -1, &st,
                                                   NULL) != SQLITE_OK)
        return;
    int rootfd = open(c->repo->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    for (size_t i = c->base; i < c->out->n; i++) {
        struct mg_hit *h = &c->out->v[i];
        sqlite3_reset(st);
        sqlite3_bind_text(st, 1, h->path, -1, SQLITE_STATIC);
        if (sqlite3_step(st) != SQLITE_ROW) continue;
        struct stat sb;
        h->stale = rootfd < 0 || fstatat(rootfd, h->path, &sb, AT_SYMLINK_NOFOLLOW) != 0 ||
                   sb.st_size != sqlite3_column_int64(st, 0) ||
                   (int64_t)sb.st_mtim.tv_sec * 1000000000LL + sb.st_mtim.tv_nsec != sqlite3_column_int64(st, 1);
    }
    if (rootfd >= 0) close(rootfd);
    sqlite3_finalize(st);
}

int mg_search(const struct mg_config *cfg, const struct mg_repo *repos, size_t nrepos, const struct mg_search_req *q,
              struct mg_results *out, struct mg_err *err)
{
    memset(out, 0, sizeof(*out));
    out->total_matches = -1;
    double t0 = mg_clock_ms();
    if (mg_search_validate(cfg, q, err) != 0) return -1;
    int limit = q->limit > 0 ? q->limit : cfg->search_limit;
    enum mg_mode mode = q->mode;
    if (mode == MG_MODE_AUTO) mode = mg_query_is_natural(q->query) ? MG_MODE_HYBRID : MG_MODE_LEXICAL;
    int semantic_repos = 0;
    /* languages by their canonical names ("ts" and "tsx" are "typescript") */
    const char **langs = q->nlangs ? calloc(q->nlangs, sizeof(char *)) : NULL;
    if (q->nlangs && !langs) return mg_err_oom(err);
    for (size_t i = 0; i < q->nlangs; i++) langs[i] = mg_lang_by_name(q->langs[i])->name;
    out->mode = mode == MG_MODE_REGEX ? (q->fixed ? "fixed" : "regex") : mode == MG_MODE_SYMBOL ? "symbol"
              : mode == MG_MODE_SEMANTIC ? "semantic" : mode == MG_MODE_HYBRID ? "hybrid" : "lexical";
    struct mg_globset *globs = NULL;
    if (mg_globset_new(q->globs, q->nglobs, q->excludes, q->nexcludes, &globs, err) != 0) {
        free(langs);
        return -1;
    }
    /* the scope as text, which names it in caches (hybrid.c's candidates) */
    struct mg_buf key;
    mg_buf_init(&key, 1u << 20);
    int kr = 0;
    for (size_t i = 0; i < q->nglobs; i++) kr |= mg_buf_addf(&key, "+%s\x1f", q->globs[i]);
    for (size_t i = 0; i < q->nexcludes; i++) kr |= mg_buf_addf(&key, "-%s\x1f", q->excludes[i]);
    for (size_t i = 0; i < q->nlangs; i++) kr |= mg_buf_addf(&key, "=%s\x1f", langs[i]);
    int rc = 0;
    for (size_t i = 0; i < nrepos && rc == 0; i++) {
        struct ctx c = {.cfg = cfg, .repo = &repos[i], .q = q, .out = out, .err = err,
                        .semantic_repos = &semantic_repos, .top = out, .lines = mode == MG_MODE_LEXICAL};
        c.filter.globs = globs;
        c.filter.langs = langs;
        c.filter.nlangs = (int)q->nlangs;
        c.filter.key = key.len && kr == 0 ? key.p : NULL; /* (a key cut short would name another scope) */
        if (mg_db_get(q->pool, repos[i].dbpath, q->deadline_ms, &c.d, err) != 0) {
            rc = -1;
            break;
        }
        /* each repo contributes up to `limit`; the merge keeps the best */
        c.base = out->n;
        switch (mode) {
        case MG_MODE_AUTO: /* resolved above */
        case MG_MODE_LEXICAL: rc = search_lexical(&c, limit); break;
        case MG_MODE_SEMANTIC: rc = search_semantic(&c, limit, true); break;
        case MG_MODE_HYBRID: rc = search_hybrid(&c, limit); break;
        case MG_MODE_SYMBOL: rc = search_symbol(&c, limit, 0); break;
        case MG_MODE_REGEX: rc = search_regex(&c, q->query, q->fixed, q->ignore_case, limit); break;
        }
        sqlite3_finalize(c.text_st);
        mg_chunkset_put(c.chunks);
        free(c.text);
        for (size_t k = 0; k < c.nqtok; k++) free(c.qtok[k]);
        free(c.qtok);
        mwords_free(&c);
        free(c.seen);
        if (rc == 0) mark_stale(&c);
        mg_db_put(q->pool, &c.d);
    }
    mg_globset_free(&globs);
    free(langs);
    mg_buf_release(&key);
    if (rc != 0) {
        mg_results_release(out);
        return -1;
    }
    /* hybrid where no repo had vectors is lexical search, and says so */
    if (mode == MG_MODE_HYBRID && semantic_repos == 0) out->mode = "lexical";
    /* regex and fixed-string hits read best in file order; ranked ones by score */
    bool positional = strcmp(out->mode, "regex") == 0 || strcmp(out->mode, "fixed") == 0;
    if (out->n) qsort(out->v, out->n, sizeof(*out->v), positional ? cmp_position : cmp_score);
    while (out->n > (size_t)limit) mg_hit_release(&out->v[--out->n]);
    out->took_ms = mg_clock_ms() - t0;
    return 0;
}
