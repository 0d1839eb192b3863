/* hits.c — what the search modes share: new hits, the stored
 * text of the file being read, snippets, and a chunk hit's best line and
 * matching lines (search_int.h).
 *
 * Sections:
 *   1. hits (results.c releases them)
 *   2. stored text and snippets
 *   3. the query's terms: tokens and words
 *   4. a chunk's hit: its best line and matching lines, read for the hits shown
 */
#include "search/search_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search/hybrid.h"
#include "store/tokenize.h"
#include "util/buf.h"
#include "util/utf8.h"

#define SNIPPET_LINE_MAX 240 /* bytes per snippet line */

/* ---- 1. hits --------------------------------------------------------------- */

struct mg_hit *mg__hit_new(struct mg_results *r)
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

static void mwords_free(struct mg__terms *t)
{
    for (size_t i = 0; i < t->nmw; i++) {
        free(t->mw[i].whole);
        for (size_t k = 0; k < t->mw[i].nparts; k++) free(t->mw[i].parts[k]);
    }
    free(t->mw);
    t->mw = NULL;
    t->nmw = 0;
}

void mg__repo_release(struct mg__repo *r)
{
    mg_chunkset_unref(r->chunks);
    r->chunks = NULL;
    for (size_t k = 0; k < r->ntexts; k++) mg_text_unref(r->texts[k].t);
    r->ntexts = r->texts_bytes = 0;
    for (size_t k = 0; k < r->terms.ntok; k++) free(r->terms.tok[k]);
    free(r->terms.tok);
    r->terms.tok = NULL;
    r->terms.ntok = 0;
    mwords_free(&r->terms);
}

/* ---- 2. stored text and snippets ------------------------------------------------------------ */

/* File id's row, with its text or without (*row: 1), or 0 when it is gone, or -1. */
static int file_row(struct mg__repo *r, int64_t id, int flags, struct mg_idx_cur *c, struct mg_idx_row *row)
{
    if (mg_idx_file_by_id(r->d, id, flags, c, r->err) != 0) return -1;
    int got = mg_idx_next(c, row);
    if (got <= 0) {
        mg_idx_done(c);
        return got == 0 ? 0 : mg_db_error(r->d, "read file text", r->err);
    }
    return 1;
}

int mg__file_text(struct mg__repo *r, int64_t id, struct mg_text **out)
{
    for (size_t k = 0; k < r->ntexts; k++)
        if (r->texts[k].id == id) {
            *out = r->texts[k].t;
            return 0;
        }
    struct mg_idx_cur c;
    struct mg_idx_row row;
    struct mg_text *t = NULL;
    int got;
    if (!r->texts_alone) { /* the row's hash and size first: an earlier search may have unpacked it */
        if ((got = file_row(r, id, 0, &c, &row)) <= 0) return got == 0 ? 1 : -1;
        uint64_t hash = row.hash;
        int64_t size = row.size;
        mg_idx_done(&c);
        t = mg_texts_find(r->repo->dbpath, id, hash, size);
    }
    if (!t) {
        if ((got = file_row(r, id, MG_IDX_TEXT, &c, &row)) <= 0) return got == 0 ? 1 : -1;
        char *s;
        size_t n;
        int rc = mg_idx_text(&row, MAX_FILE_TEXT, &s, &n);
        uint64_t hash = row.hash;
        int64_t size = row.size;
        mg_idx_done(&c);
        if (rc != 0)
            return mg_err_set(r->err, MG_E_DB, "stored text of a file in repo '%s' is corrupt; index the repo again",
                              r->repo->id);
        if (!(t = mg_texts_add(r->repo->dbpath, id, hash, size, s, n, !r->texts_alone)))
            return mg_err_oom(r->err);
    }
    /* the oldest go first, while the texts are too many or too large with this one */
    while (r->ntexts > 0 && (r->ntexts == MG__TEXTS || r->texts_bytes + t->len > MG__TEXTS_BYTES)) {
        r->texts_bytes -= r->texts[0].t->len;
        mg_text_unref(r->texts[0].t);
        memmove(r->texts, r->texts + 1, --r->ntexts * sizeof(r->texts[0]));
    }
    r->texts[r->ntexts++] = (struct mg__text){id, t};
    r->texts_bytes += t->len;
    *out = t;
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

char *mg__snippet_lines(const char *t, size_t len, size_t from, int from_line, int first, int last)
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

int mg__hit_add_line(const struct mg__repo *r, struct mg_hit *h, const char *t, size_t len, size_t ls, int line)
{
    if (r->q->no_match_lines) return 0;
    if (h->nlines >= MG_MATCH_LINES_MAX) {
        h->lines_omitted++;
        return 0;
    }
    if (!h->lines && !(h->lines = calloc(MG_MATCH_LINES_MAX, sizeof(*h->lines)))) return -1;
    char *text = mg__snippet_lines(t, len, ls, line, line, line);
    if (!text) return -1;
    h->lines[h->nlines++] = (struct mg_hit_line){line, text};
    return 0;
}


/* ---- 3. the query's terms: tokens and words ------------------------------------------------------- */

struct mw_build {
    struct mg__terms *t;
    bool started, skip; /* skip: the current word is a repeat, or one too many */
    size_t cur;         /* the current word's offset in the query */
};

static int mword_cb(void *ctx, const char *tok, size_t len, size_t s, size_t e, bool colocated)
{
    struct mw_build *b = ctx;
    struct mg__terms *t = b->t;
    if (b->started && s == b->cur) { /* a part of the current word */
        struct mg__mword *w = &t->mw[t->nmw - 1];
        if (b->skip || w->nparts == MW_PARTS_MAX) return 0;
        if (!(w->parts[w->nparts] = strdup(tok))) return 1;
        w->nparts++;
        return 0;
    }
    b->started = b->skip = true;
    b->cur = s;
    for (size_t i = 0; i < t->nmw; i++)
        if (strcmp(t->mw[i].whole, tok) == 0) return 0;
    if (t->nmw == MW_WORDS_MAX) return 0;
    if (!(t->mw[t->nmw].whole = strdup(tok))) return 1;
    t->nmw++;
    b->skip = false;
    return 0;
}

/* The words a lexical hit's lines are matched by: the query's, less English
 * function words for a natural-language query (when any are left). */
int mg__terms_words(struct mg__repo *r, const char *q)
{
    if (r->terms.mw) return 0;
    size_t n = strlen(q);
    char *content = NULL;
    if (mg_query_is_natural(q) && (content = malloc(n + 1)) && mg_query_content_words(q, 0, content, n + 1) > 0) {
        q = content;
        n = strlen(content);
    }
    int rc = 0;
    struct mw_build b = {.t = &r->terms};
    if (!(r->terms.mw = calloc(MW_WORDS_MAX, sizeof(*r->terms.mw))) || mg_tokenize(q, n, mword_cb, &b) != 0) {
        mwords_free(&r->terms);
        rc = mg_err_oom(r->err);
    }
    free(content);
    return rc;
}

/* where tok is in the sorted query tokens, or would go; *found when there */
static size_t tok_find(const struct mg__terms *t, const char *tok, bool *found)
{
    size_t a = 0, b = t->ntok;
    while (a < b) {
        size_t m = (a + b) / 2;
        int d = strcmp(t->tok[m], tok);
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

static int tok_cb(void *ctx, const char *tok, size_t len, size_t s, size_t e, bool colocated)
{
    struct mg__terms *t = ctx;
    bool found;
    size_t at = tok_find(t, tok, &found);
    if (found) return 0;
    char **v = realloc(t->tok, (t->ntok + 1) * sizeof(char *));
    if (!v) return 1;
    t->tok = v;
    char *dup = strdup(tok);
    if (!dup) return 1;
    memmove(v + at + 1, v + at, (t->ntok - at) * sizeof(char *));
    v[at] = dup;
    t->ntok++;
    return 0;
}

int mg__terms_add(struct mg__repo *r, const char *query)
{
    return mg_tokenize(query, strlen(query), tok_cb, &r->terms) != 0 ? mg_err_oom(r->err) : 0;
}

/* ---- 4. a chunk's hit: its best line and matching lines ------------------------------------------ */

struct count_ctx {
    const struct mg__terms *t;
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
    const struct mg__terms *t = cc->t;
    bool match = false;
    for (size_t i = 0; i < t->nmw; i++) {
        uint32_t parts = ((uint32_t)1 << t->mw[i].nparts) - 1;
        if ((cc->seen[i] & 1) || (t->mw[i].nparts && (cc->seen[i] >> 1) == parts)) match = true;
        cc->seen[i] = 0;
    }
    cc->words += match;
}

static int count_cb(void *ctx, const char *tok, size_t len, size_t s, size_t e, bool colocated)
{
    struct count_ctx *cc = ctx;
    const struct mg__terms *t = cc->t;
    bool found;
    tok_find(t, tok, &found);
    cc->hits += found;
    if (cc->lines) {
        if (s != cc->wstart) {
            if (cc->wstart != (size_t)-1) word_end(cc);
            cc->wstart = s;
        }
        if (found) /* (every query word's tokens are query tokens) */
            for (size_t i = 0; i < t->nmw; i++) {
                const struct mg__mword *w = &t->mw[i];
                if (strcmp(tok, w->whole) == 0) cc->seen[i] |= 1;
                for (size_t k = 0; k < w->nparts; k++)
                    if (strcmp(tok, w->parts[k]) == 0) cc->seen[i] |= (uint32_t)2 << k;
            }
    }
    return 0;
}

/* The line of [s, e) (which starts on line sline) with the most query tokens;
 * with terms.lines, h's matching lines and match count too (lower: t
 * lowercased, or NULL). -1 out of memory. */
static int best_line(struct mg__repo *r, const char *t, const char *lower, size_t s, size_t e, int sline,
                     struct mg_hit *h)
{
    int best = sline, besthits = 0, line = sline;
    size_t need = lower ? e - s : 2 * (e - s); /* the marks, and the span lowercased when t has no copy */
    char stack[2 * 8192], *low = need <= sizeof(stack) ? stack : malloc(need), *mark = low;
    if (low && !lower) {
        mark = low + (e - s);
        mg_token_lower(low, t + s, e - s);
    }
    /* only lines holding a query token (mg_token_marks) are split into words */
    bool marked = low && !r->lines_all &&
                  mg_token_marks((const char *const *)r->terms.tok, r->terms.ntok, lower ? lower + s : low, e - s,
                                 mark);
    size_t i = s;
    while (i < e) {
        const char *nl = memchr(t + i, '\n', e - i);
        size_t le = nl ? (size_t)(nl - t) : e;
        if (marked && !memchr(mark + (i - s), 1, le - i)) { /* no query token on the line */
            i = le + 1;
            line++;
            continue;
        }
        struct count_ctx cc = {.t = &r->terms, .lines = r->terms.lines && r->terms.nmw, .wstart = (size_t)-1};
        mg_tokenize(t + i, le - i, count_cb, &cc);
        if (cc.hits > besthits) {
            besthits = cc.hits;
            best = line;
        }
        if (cc.lines) {
            if (cc.wstart != (size_t)-1) word_end(&cc);
            if (cc.words) {
                h->match_count += cc.words;
                if (mg__hit_add_line(r, h, t, e, i, line) != 0) {
                    if (low != stack) free(low);
                    return -1;
                }
            }
        }
        i = le + 1;
        line++;
    }
    if (low != stack) free(low);
    return best;
}

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

int mg__chunk_hit(struct mg__repo *r, struct mg_results *out, const struct mg_idx_row *row, double score)
{
    struct mg_hit *h = mg__hit_new(out);
    if (!h) return mg_err_oom(r->err);
    snprintf(h->repo, sizeof(h->repo), "%s", r->repo->id);
    h->path = dup_or_null(row->path);
    h->language = dup_or_null(row->lang);
    h->start_line = row->start_line;
    h->end_line = row->end_line;
    h->symbol = dup_or_null(row->symbol);
    h->kind = dup_or_null(row->kind);
    h->score = score;
    h->role = (row->flags & MG_FILE_ROLE_MASK) >> MG_FILE_ROLE_SHIFT;
    if ((row->path && !h->path) || (row->lang && !h->language) || (row->symbol && !h->symbol) ||
        (row->kind && !h->kind))
        return mg_err_oom(r->err);
    h->line = h->snippet_line = h->start_line;
    h->text_file = row->file_id;
    h->text_start = row->start_byte;
    h->text_end = row->end_byte;
    return 0;
}

/* h's text from its file's t (lower: t lowercased, or NULL) */
static int hit_text(struct mg__repo *r, struct mg_hit *h, const char *t, const char *lower, size_t len)
{
    size_t s = (size_t)h->text_start, e = (size_t)h->text_end;
    if (e > len) e = len;
    if (s > e) s = e;
    if ((h->line = best_line(r, t, lower, s, e, h->start_line, h)) < 0) return mg_err_oom(r->err);
    int first = h->line > h->start_line ? h->line - 1 : h->line;
    int last = h->line < h->end_line ? h->line + 1 : h->line;
    if (!(h->snippet = mg__snippet_lines(t, e, s, h->start_line, first, last))) return mg_err_oom(r->err);
    h->snippet_line = first;
    h->text_file = 0;
    return 0;
}

static int cmp_text_file(const void *a, const void *b)
{
    const struct mg_hit *x = *(struct mg_hit *const *)a, *y = *(struct mg_hit *const *)b;
    if (x->text_file != y->text_file) return x->text_file < y->text_file ? -1 : 1;
    return x < y ? -1 : x > y;
}

int mg__hits_text(struct mg__repo *r, struct mg_results *out, size_t base)
{
    struct mg_hit *v = out->v + base;
    size_t n = out->n - base, m = 0;
    for (size_t i = 0; i < n; i++) m += v[i].text_file != 0;
    if (m == 0) return 0;
    struct mg_hit **by = malloc(m * sizeof(*by));
    if (!by) return mg_err_oom(r->err);
    m = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i].text_file) by[m++] = &v[i];
    qsort(by, m, sizeof(*by), cmp_text_file);
    int rc = 0;
    bool gone = false;
    for (size_t i = 0; i < m && rc == 0; i++) {
        struct mg_text *t;
        rc = mg__file_text(r, by[i]->text_file, &t);
        if (rc == 1) { /* the file left the index since the hit was ranked */
            by[i]->text_file = -1;
            gone = true;
            rc = 0;
        } else if (rc == 0) {
            rc = hit_text(r, by[i], t->text, t->lower, t->len);
        }
    }
    free(by);
    if (gone) { /* its hits go: there is nothing left to show of them */
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            if (v[i].text_file == -1) mg_hit_release(&v[i]);
            else v[k++] = v[i];
        }
        out->n = base + k;
    }
    return rc;
}
