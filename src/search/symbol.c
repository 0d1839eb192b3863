/* symbol.c — symbol search, and the probes hybrid search adds to it: the
 * definitions of identifiers prose names, the files a query's words name by
 * path, and the files around the best hits in the names graph
 * (search_int.h).
 *
 * Sections:
 *   1. names against a query's words
 *   2. symbol search: exact, any case, prefix, then sub-words
 *   3. identifiers prose names
 *   4. paths the query's words name
 *   5. the names graph around the best files
 */
#include "search/search_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "index/refs.h"
#include "search/hybrid.h"
#include "store/tokenize.h"
#include "util/buf.h"

#define IDENT_DEFS_MAX 4 /* definitions of one identifier a prose query names (mg__idents) */

/* ---- 1. names against a query's words ---------------------------------------------------------- */

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

/* ---- 2. symbol search: exact, any case, prefix, then sub-words ---------------------------------------- */

/* A symbol search's hits: where they go, in which repo. */
struct sym {
    struct mg__repo *r;
    struct mg_results *out;
};

/* A hit for a definition row (mg_idx_symbols_like's or _named's): 1, 0
 * when the list has it already, -1 (r->err). */
static int symbol_hit(struct sym *c, const struct mg_idx_row *row, double score)
{
    struct mg__repo *r = c->r;
    for (size_t i = 0; i < c->out->n; i++) /* the sub-word pass may meet earlier hits again */
        if (c->out->v[i].start_line == row->start_line && strcmp(c->out->v[i].path, row->path) == 0 &&
            strcmp(c->out->v[i].repo, r->repo->id) == 0 && c->out->v[i].symbol &&
            strcmp(c->out->v[i].symbol, row->name) == 0)
            return 0;
    struct mg_hit *h = mg__hit_new(c->out);
    if (!h) return mg_err_oom(r->err);
    snprintf(h->repo, sizeof(h->repo), "%s", r->repo->id);
    h->symbol = row->name ? strdup(row->name) : NULL;
    h->kind = row->kind ? strdup(row->kind) : NULL;
    h->start_line = h->line = row->start_line;
    h->end_line = row->end_line;
    h->path = row->path ? strdup(row->path) : NULL;
    h->language = row->lang ? strdup(row->lang) : NULL;
    h->score = score;
    struct mg_text *t;
    int got = mg__file_text(r, row->file_id, &t);
    if (got != 0) { /* 1: the file left the index since the row was read */
        mg_hit_release(h);
        c->out->n--;
        return got < 0 ? -1 : 0;
    }
    int last = h->start_line + 2 < h->end_line ? h->start_line + 2 : h->end_line;
    h->snippet = mg__snippet_lines(t->text, t->len, 0, 1, h->start_line, last);
    h->snippet_line = h->start_line;
    return 1;
}

/* The hits of the definitions named name (exact), in kind order, while
 * found < limit; *found grows. 0 or -1. */
static int named(struct sym *c, const char *name, double score, int limit, int *found)
{
    struct mg_idx_cur st;
    struct mg_idx_row row;
    if (mg_idx_symbols_named(c->r->d, name, strlen(name), &c->r->filter, false, 0, &st, c->r->err) != 0) return -1;
    int rc = 0;
    while (*found < limit && mg_idx_next(&st, &row) > 0) {
        int h = symbol_hit(c, &row, score - 1e-6 * row.order);
        if (h < 0) {
            rc = -1;
            break;
        }
        *found += h;
    }
    mg_idx_done(&st);
    return rc;
}

/* Step 4, sub-words: the symbol column of chunks_fts holds definition names
 * split into parts; in the best chunks found there, the names that match by
 * themselves (the chunk's definition, or one that starts in it: a method in
 * its class's chunk is named, not the class) are looked up in the symbols
 * table like exact names. */
static int subwords(struct sym *c, const char *q, size_t max, int limit, int *found)
{
    struct mg__repo *r = c->r;
    struct mg_buf match;
    mg_buf_init(&match, max);
    struct qwords qw = {0};
    if (mg_fts_query(q, strlen(q), 0, &match) == 0 || mg_tokenize(q, strlen(q), qwords_cb, &qw) < 0) {
        qwords_free(&qw);
        mg_buf_release(&match);
        return 0;
    }
    struct mg_idx_cur chunks = {0}, inner = {0};
    struct mg_idx_row cr, ir;
    char **names = NULL;
    size_t nnames = 0;
    int bad = 0;
    if (mg_idx_rank_symbols(r->d, match.p, limit * 4, &chunks, r->err) != 0)
        bad = 1;
    else if (!(names = calloc((size_t)limit * 4 + 1, sizeof(*names))))
        bad = mg_err_oom(r->err);
    int step_chunks = 0;
    while (!bad && *found < limit && (step_chunks = mg_idx_next(&chunks, &cr)) > 0) {
        double b = -cr.score; /* bm25 is negative; map into (0, 0.7) */
        /* the chunk's definition, then the definitions starting in it */
        if (mg_idx_symbols_starting(r->d, cr.sym_lo, cr.sym_hi, cr.start_line, cr.end_line, &inner, r->err) != 0) {
            bad = 1;
            break;
        }
        const char *own = cr.symbol;
        for (bool first = true; !bad && *found < limit; first = false) {
            const char *name = own;
            if (!first || !own) {
                if (mg_idx_next(&inner, &ir) <= 0) break;
                name = ir.name;
            }
            if (!name || !name_matches(&qw, name)) continue;
            size_t k = 0;
            while (k < nnames && strcmp(names[k], name) != 0) k++;
            if (k < nnames) continue; /* named already, by a better chunk */
            if (nnames < (size_t)limit * 4 && !(names[nnames++] = strdup(name))) {
                bad = mg_err_oom(r->err);
                break;
            }
            if (named(c, name, 0.7 * b / (1.0 + b), limit, found) != 0) bad = 1;
        }
        mg_idx_done(&inner);
    }
    if (!bad && *found < limit && step_chunks < 0) bad = mg_db_error(r->d, "symbol search", r->err);
    for (size_t k = 0; k < nnames; k++) free(names[k]);
    free(names);
    mg_idx_done(&chunks);
    mg_idx_done(&inner);
    qwords_free(&qw);
    mg_buf_release(&match);
    return bad ? -1 : 0;
}

/* subword_rows_max > 0: the sub-word step (4, below) is skipped when each
 * of the query's words holds more rows than that (estimated): it reads the
 * rows of all of them, and hybrid search, which has the words' own list,
 * cannot afford it for words as common as "static int" (603,915 and 472,313
 * of Linux's 1.2 M chunks: 44 ms for the names made of those parts). */
int mg__symbol(struct mg__repo *r, const char *q, struct mg_results *out, int limit, double subword_rows_max)
{
    struct sym c = {r, out};
    size_t max = r->cfg->max_query_bytes * 2 + 2;
    /* 1-3: exact, case-insensitive, prefix -- one query over the name index */
    struct mg_idx_cur st;
    struct mg_idx_row row;
    if (mg_idx_symbols_like(r->d, q, &r->filter, limit, &st, r->err) != 0) return -1;
    int found = 0, step;
    while ((step = mg_idx_next(&st, &row)) > 0) {
        /* exact 1.0, any case 0.9, prefix 0.8 less a little per extra char; less a trace by kind, so that the
         * final sort (by score, then path) keeps the order the rows were cut in: pages are prefix-stable */
        double score = row.tier == 0 ? 1.0 : row.tier == 1 ? 0.9
                                     : 0.8 - 0.001 * (double)((int)strlen(row.name) - (int)strlen(q));
        score -= 0.0001 * row.order;
        int h = symbol_hit(&c, &row, score);
        if (h < 0) {
            mg_idx_done(&st);
            return -1;
        }
        found += h;
    }
    mg_idx_done(&st);
    if (step != 0) return mg_db_error(r->d, "symbol search", r->err);
    /* 4: sub-word matches, when no name matched. (Not to pad a short list
     * of exact matches: it costs a pass over every chunk holding a common
     * part such as "read".) */
    bool subword = found == 0;
    if (subword && subword_rows_max > 0) {
        int common = mg__words_all_common(r, q, max, subword_rows_max);
        if (common < 0) return -1;
        subword = !common;
    }
    return subword ? subwords(&c, q, max, limit, &found) : 0;
}

/* ---- 3. identifiers prose names ---------------------------------------------------------------- */

/* The definitions named by the identifiers a query writes as code
 * (mg_query_identifiers), exact names, each identifier's in kind order, up
 * to limit: how many (0: the query names none, or none is defined), or -1. */
int mg__idents(struct mg__repo *r, const char *query, struct mg_results *out, int limit)
{
    struct sym c = {r, out};
    const char *start[MG_QUERY_IDENTS_MAX];
    size_t len[MG_QUERY_IDENTS_MAX];
    size_t n = mg_query_identifiers(query, start, len, MG_QUERY_IDENTS_MAX);
    if (n == 0) return 0;
    int found = 0, step = 0;
    for (size_t i = 0; i < n && found < limit; i++) {
        struct mg_idx_cur st;
        struct mg_idx_row row;
        if (mg_idx_symbols_named(r->d, start[i], len[i], &r->filter, true, IDENT_DEFS_MAX, &st, r->err) != 0)
            return -1;
        while (found < limit && (step = mg_idx_next(&st, &row)) > 0) {
            int h = symbol_hit(&c, &row, 1.0);
            if (h < 0) {
                mg_idx_done(&st);
                return -1;
            }
            found += h;
        }
        mg_idx_done(&st);
        if (step < 0) break;
    }
    if (step < 0) return mg_db_error(r->d, "symbol search", r->err);
    return found;
}

/* ---- 4. paths the query's words name ---------------------------------------------------------------- */

#define PATH_WORDS_MAX 16 /* words of a hybrid query looked for in paths (mg__paths) */

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
int mg__paths(struct mg__repo *r, const char *query, const struct mg_results *const *found, size_t nfound,
              struct mg_results *out, int limit)
{
    const char *w[PATH_WORDS_MAX];
    size_t wl[PATH_WORDS_MAX], nw = 0;
    const char *word;
    size_t wlen;
    for (const char *p = query; nw < PATH_WORDS_MAX && (word = mg_query_word(&p, &wlen));)
        if (wlen >= 4) {
            w[nw] = word;
            wl[nw++] = wlen;
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
                return mg_err_oom(r->err);
            }
            v = nv;
            v[n++] = (struct path_cand){h, score};
        }
    if (n > 1) qsort(v, n, sizeof(*v), cmp_path_cand);
    int rc = 0;
    for (size_t i = 0; i < n && (int)i < limit && rc == 0; i++) {
        struct mg_hit *h = mg__hit_new(out);
        if (h) {
            snprintf(h->repo, sizeof(h->repo), "%s", v[i].hit->repo);
            h->path = strdup(v[i].hit->path);
            h->score = v[i].score;
        }
        if (!h || !h->path) rc = mg_err_oom(r->err);
    }
    free(v);
    return rc;
}

/* ---- 5. the names graph around the best files ------------------------------------------------------ */

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

static int frefs_read(struct mg__repo *r, struct frefs *f)
{
    struct mg_idx_cur st;
    struct mg_idx_row row;
    if (mg_idx_refs_of_path(r->d, f->path, &st, r->err) != 0) return -1;
    int rc = 0;
    if (mg_idx_next(&st, &row) > 0)
        for (int col = 0; col < 2 && rc == 0; col++) {
            const void *b = col ? row.uses : row.defs;
            size_t len = col ? row.nuses : row.ndefs;
            uint32_t **o = col ? &f->uses : &f->defs;
            size_t *n = col ? &f->nuses : &f->ndefs, cap = 0;
            struct mg_refs_iter it;
            mg_refs_iter_init(&it, b, len, col == 1);
            uint32_t h, extra;
            while (mg_refs_next(&it, &h, &extra)) {
                if (col == 0 && (extra & 3) != MG_REFS_SPECIFIC) continue;
                uint32_t *nv = mg_grow(*o, *n, &cap, sizeof(uint32_t));
                if (!nv) {
                    rc = mg_err_oom(r->err);
                    break;
                }
                *o = nv;
                (*o)[(*n)++] = h;
            }
        }
    mg_idx_done(&st);
    return rc;
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
int mg__graph(struct mg__repo *r, const struct mg_results *const *found, size_t nfound, struct mg_results *out,
              int limit)
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
                return mg_err_oom(r->err);
            }
            v = nv;
            v[n] = (struct frefs){.path = p, .first = (int)n};
            n++;
        }
    int rc = 0;
    for (size_t i = 0; n > 1 && i < n && rc == 0; i++) rc = frefs_read(r, &v[i]);
    size_t na = n < GRAPH_ANCHORS ? n : GRAPH_ANCHORS;
    for (size_t i = 0; i < n && rc == 0; i++)
        for (size_t a = 0; a < na; a++)
            if (a != i && (meet(v[i].uses, v[i].nuses, v[a].defs, v[a].ndefs) ||
                           meet(v[a].uses, v[a].nuses, v[i].defs, v[i].ndefs)))
                v[i].score += 1;
    if (rc == 0 && n > 1) qsort(v, n, sizeof(*v), cmp_frefs);
    int made = 0;
    for (size_t i = 0; i < n && rc == 0 && made < limit && v[i].score > 0; i++, made++) {
        struct mg_hit *h = mg__hit_new(out);
        if (h) {
            snprintf(h->repo, sizeof(h->repo), "%s", r->repo->id);
            h->path = strdup(v[i].path);
            h->score = v[i].score;
        }
        if (!h || !h->path) rc = mg_err_oom(r->err);
    }
    for (size_t i = 0; i < n; i++) {
        free(v[i].defs);
        free(v[i].uses);
    }
    free(v);
    return rc;
}

