/* lexical.c — lexical search: the FTS5 word index ranked by mgrank, in up to
 * three passes (whole words, identifier parts, any word), and the estimates
 * of how many rows a word holds that choose the any-word expression
 * (search_int.h).
 *
 * Sections:
 *   1. a ranked pass
 *   2. words' rows, estimated
 *   3. the any-word expression
 *   4. mg__lexical: the passes
 */
#include "search/search_int.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store/db.h"
#include "store/rank.h"
#include "store/tokenize.h"
#include "util/buf.h"
#include "util/config.h"

/* A lexical search of one repo: where its hits go, and the rows the
 * whole-word pass found (a later pass adds only others) with its lowest score. */
struct lex {
    struct mg__repo *r;
    struct mg_results *out;
    int64_t *seen;
    size_t nseen, seen_cap;
    double seen_min;
};

/* ---- 1. a ranked pass ------------------------------------------------------------------------ */

static bool seen_has(const struct lex *c, int64_t id)
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
 * k are the hits of the search for limit k) and the same for any number of
 * index threads (chunk ids follow the writer's order, which does not): the
 * rows tied with the last one come too, so that the final sort (score,
 * repo, path, line) cuts among all of them. The query reads LEX_TIES_MAX
 * rows past the limit; a tie still open at its end is read again with
 * twice the room (lexical_run), up to LEX_TIES_ALL rows past it.
 * keep: the rows already found (c->seen) stay and are skipped here; the new
 * ones rank after them all (their scores mapped below c->seen_min, in
 * order). Else the rows found are recorded in c->seen. *open: the last row
 * the query gave was still tied with the limit's. */
#define LEX_TIES_ALL 8192

/* the store's ways to the same ranking, less those config's rank_off turns off */
static unsigned rank_ways(const struct mg_config *cfg)
{
    unsigned off = mg_rank_off_parse(cfg->rank_off);
    return (off & MG_RANK_TIERS ? 0 : MG_IDX_TIERS) | (off & MG_RANK_ONE_CALL ? 0 : MG_IDX_ONE_CALL);
}

static int lexical_read(struct lex *c, const char *match, int nscored, int limit, bool keep, int ties, bool *open)
{
    struct mg__repo *r = c->r;
    struct mg_idx_cur st = {0}, row = {0};
    struct mg_idx_row rr, hr;
    int rc, found = keep ? (int)c->nseen : 0, want = limit + (keep ? (int)c->nseen : 0) + ties, nread = 0;
    double last = 0;
    bool scoped = mg_filter_scoped(&r->filter), tie_ended = false;
    *open = false;
    if (scoped && !r->chunks && mg_chunkset_get(r->d, &r->filter, &r->chunks, r->err) != 0) return -1;
    const struct mg_idx_idset *set = scoped ? &r->chunks->set : NULL;
    if (mg_idx_rank(r->d, match, nscored, want, set, rank_ways(r->cfg), &st, r->err) != 0) return -1;
    while ((rc = mg_idx_next(&st, &rr)) > 0) {
        double score = -rr.score;
        int64_t id = rr.id;
        nread++;
        if (keep) {
            if (seen_has(c, id)) continue;
            score = c->seen_min - 1.0 / (1.0 + (score > 0 ? score : 0)); /* after the kept rows, in order */
        }
        if (found >= limit && score != last) { /* (past the limit: only the rows tied with the last) */
            tie_ended = true;
            break;
        }
        last = score;
        if (mg_idx_chunk_hit(r->d, id, &row, r->err) != 0) {
            rc = -2;
            break;
        }
        int got = mg_idx_next(&row, &hr);
        if (got <= 0) { /* cannot happen: rows go together */
            mg_idx_done(&row);
            continue;
        }
        int hrc = mg__chunk_hit(r, c->out, &hr, score);
        mg_idx_done(&row);
        if (hrc != 0) {
            rc = -2;
            break;
        }
        if (!keep) {
            int64_t *v = mg_grow(c->seen, c->nseen, &c->seen_cap, sizeof(*c->seen));
            if (!v) {
                rc = -2;
                mg_err_oom(r->err);
                break;
            }
            c->seen = v;
            c->seen[c->nseen++] = id;
            c->seen_min = found == 0 || score < c->seen_min ? score : c->seen_min;
        }
        found++;
    }
    *open = rc == 0 && !tie_ended && nread == want && found > limit;
    if (rc > 0) rc = 0;
    mg_idx_done(&st);
    if (rc == -2) return -1;
    if (rc != 0) return mg_db_error(r->d, "lexical search", r->err);
    return found;
}

static int lexical_run(struct lex *c, const char *match, int nscored, int limit, bool keep)
{
    size_t n0 = c->out->n, nseen0 = c->nseen;
    double min0 = c->seen_min;
    for (int ties = LEX_TIES_MAX;; ties *= 2) {
        bool open;
        int found = lexical_read(c, match, nscored, limit, keep, ties, &open);
        if (found < 0 || !open || ties >= LEX_TIES_ALL) return found;
        while (c->out->n > n0) mg_hit_release(&c->out->v[--c->out->n]); /* (again, with more room) */
        c->nseen = nseen0;
        c->seen_min = min0;
    }
}

/* ---- 2. words' rows, estimated ------------------------------------------------------------------ */

/* The any-word query. Ranking every row that holds any of many words costs
 * a pass over all of them: "scheduler pick next task run cpu" matches
 * 130,000 chunks of Linux (60 ms), a long question several times that. So
 * the rows ranked are those holding the rarest words that together fit the
 * lexical_any_rows budget (at least the rarest one), or when even the
 * rarest word is commoner than that, those holding two of the three rarest
 * (the anchors). Words rank those rows rarest first: the ANY_WORDS_RANKED
 * rarest, and past them every word that no more than 1/ANY_WORDS_COMMON of
 * the chunks hold (its IDF is small), while the kept words' rows stay
 * within ANY_WORDS_ROWS times the budget (what ranking them reads), up to
 * ANY_WORDS_MAX: a long report's rarest ten are often its least telling
 * (a name, a version, a typo), and the whole-file BM25 it is measured
 * against counts every word. A word no row holds is passed over. The
 * expression is `(w1 OR ... OR wn) AND (anchors)`, of which the first
 * *nscored phrases count (rank.h). Words are ordered by their estimated
 * rows (word_rows); the budget is checked by counting where their exact
 * counts leave it open (config rank_off "words": the ten rarest only, the
 * ablation). Appends to b; 0 or -1 with r->err set. */
#define ANY_WORDS_RANKED 10
#define ANY_WORDS_COMMON 4
#define ANY_WORDS_ROWS 20
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
 * one counted. 0 or -1 (r->err). */
static int word_rows(struct mg__repo *r, struct qword *w, size_t nw)
{
    for (size_t i = 0; i < nw; i++) {
        int64_t last, maxid;
        long n = mg_idx_match_count(r->d, w[i].expr, DF_SAMPLE, &last, &maxid, r->err);
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
 * rows). 1 yes, 0 no, -1 (r->err). */
#define DF_WINDOWS 4
#define DF_PER_WINDOW 64
int mg__words_all_common(struct mg__repo *r, const char *q, size_t max, double min_rows)
{
    struct qword w[ANY_WORDS_MAX];
    size_t nw = 0;
    int64_t maxseq = -1;
    int rc = query_words(q, max, w, &nw) != 0 ? mg_err_oom(r->err) : nw > 0;
    if (rc == 1) {
        int64_t maxid = mg_idx_chunk_max(r->d);
        if (maxid > 0) maxseq = mg_chunk_seq(maxid);
    }
    for (size_t i = 0; i < nw && rc == 1; i++) {
        double rows = 0;
        for (int k = 0; k < DF_WINDOWS && maxseq >= 0; k++) {
            int64_t a = (maxseq + 1) * k / DF_WINDOWS, b = (maxseq + 1) * (k + 1) / DF_WINDOWS; /* seqs [a, b) */
            if (b <= a) continue;
            int64_t lastid = 0;
            long n = mg_idx_match_count_in(r->d, w[i].expr, a << MG_CHUNK_ID_BITS, (b << MG_CHUNK_ID_BITS) - 1,
                                           DF_PER_WINDOW, &lastid, r->err);
            if (n < 0) {
                rc = -1;
                break;
            }
            int64_t last = mg_chunk_seq(lastid);
            /* all of the window's rows, or as many as the ids up to the last one counted hold */
            rows += n < DF_PER_WINDOW ? (double)n : (double)n * (double)(b - a) / (double)(last - a + 1);
        }
        if (rc == 1 && rows <= min_rows) rc = 0;
    }
    for (size_t i = 0; i < nw; i++) free(w[i].expr);
    return rc;
}

/* ---- 3. the any-word expression ------------------------------------------------------------------ */

static int any_query(struct mg__repo *r, const char *q, struct mg_buf *b, int *nscored)
{
    long budget = r->cfg->lexical_any_rows;
    struct qword w[ANY_WORDS_MAX];
    size_t nw = 0;
    int rc = -1;
    *nscored = 0;
    if (query_words(q, b->max, w, &nw) != 0) goto out;
    if (nw >= 2) {
        if (word_rows(r, w, nw) != 0) goto out;
        qsort(w, nw, sizeof(w[0]), cmp_qword);
        /* a word no row holds finds nothing and would take a rarer-than-any place */
        size_t none = 0;
        while (none < nw && w[none].df <= 0) free(w[none++].expr);
        memmove(w, w + none, (nw - none) * sizeof(w[0]));
        nw -= none;
        size_t keep = nw < ANY_WORDS_RANKED ? nw : ANY_WORDS_RANKED;
        double rows = 0, common = (double)(mg_chunk_seq(mg_idx_chunk_max(r->d)) + 1) / ANY_WORDS_COMMON;
        for (size_t i = 0; i < keep; i++) rows += w[i].df;
        bool past_ten = !(mg_rank_off_parse(r->cfg->rank_off) & MG_RANK_WORDS);
        while (past_ten && keep < nw && w[keep].df <= common && rows + w[keep].df <= (double)budget * ANY_WORDS_ROWS)
            rows += w[keep++].df;
        while (nw > keep) free(w[--nw].expr);
    }
    if (nw == 0) { /* no word of the query is in the index */
        rc = 0;
        goto out;
    }
    int bad = mg_buf_addc(b, '(');
    for (size_t i = 0; i < nw; i++) bad |= mg_buf_adds(b, i ? " OR " : "") | mg_buf_adds(b, w[i].expr);
    bad |= mg_buf_addc(b, ')');
    /* rows are counted only where the words' own counts (exact below DF_SAMPLE) leave it open:
     * words of `bound` rows in all hold at most that many together */
    double bound = 0;
    for (size_t i = 0; i < nw; i++) bound += w[i].df < DF_SAMPLE ? w[i].df : INFINITY;
    long all = nw >= 2 && !bad && bound > (double)budget
                   ? mg_idx_match_count(r->d, b->p, budget + 1, NULL, NULL, r->err)
                   : 0;
    if (all < 0) goto out;
    if (all > budget) {
        /* the phrases so far are the ones that rank (a token never holds '"') */
        for (size_t i = 0; i < b->len; i++) *nscored += b->p[i] == '"';
        *nscored /= 2;
        /* the anchors: the rarest words while their rows stay within the budget */
        size_t mark = b->len;
        bad |= mg_buf_adds(b, " AND (") | mg_buf_adds(b, w[0].expr);
        bound = w[0].df < DF_SAMPLE ? w[0].df : INFINITY;
        for (size_t i = 1; i < nw && !bad; i++) {
            double more = w[i].df < DF_SAMPLE ? w[i].df : INFINITY;
            if (bound + more > (double)budget) {
                size_t before = b->len;
                bad |= mg_buf_adds(b, " OR ") | mg_buf_adds(b, w[i].expr) | mg_buf_addc(b, ')');
                long n = bad ? -1 : mg_idx_match_count(r->d, b->p + mark + 5, budget + 1, NULL, NULL, r->err);
                if (n < 0 && !bad) goto out;
                b->len = before; /* (the ')' again below) */
                b->p[b->len] = 0;
                if (n > budget) break;
                more = (double)n; /* counted, exact: the anchors with w[i] hold n rows */
                bound = 0;
            }
            bad |= mg_buf_adds(b, " OR ") | mg_buf_adds(b, w[i].expr);
            bound += more;
        }
        bad |= mg_buf_addc(b, ')');
        long n = bad || bound <= (double)budget ? 0
                                                : mg_idx_match_count(r->d, b->p + mark + 5, budget + 1, NULL, NULL, r->err);
        if (n < 0) goto out;
        if (n > budget && nw >= 3) {
            /* even the rarest word is common: rows holding two of the three rarest */
            b->len = mark;
            b->p[mark] = 0;
            bad |= mg_buf_addf(b, " AND ((%s AND %s) OR (%s AND %s) OR (%s AND %s))", w[0].expr, w[1].expr,
                               w[0].expr, w[2].expr, w[1].expr, w[2].expr);
        }
    }
    rc = bad ? mg_err_set(r->err, MG_E_TOO_LARGE, "the query makes too long an expression; use fewer words") : 0;
out:
    if (rc != 0 && !r->err->code) mg_err_oom(r->err);
    for (size_t i = 0; i < nw; i++) free(w[i].expr);
    return rc;
}

/* ---- 4. mg__lexical: the passes -------------------------------------------------------------------- */

int mg__lexical(struct mg__repo *r, const char *query, struct mg_results *out, size_t base, int limit)
{
    struct lex lc = {.r = r, .out = out}, *c = &lc;
    struct mg_buf b;
    mg_buf_init(&b, r->cfg->max_query_bytes * 8 + 64);
    size_t qlen = strlen(query);
    size_t words = mg_fts_query(query, qlen, MG_FTS_WHOLE, &b);
    if (words == 0) {
        /* nothing word-like: "->", "&&", "::" -- a literal search */
        mg_buf_release(&b);
        out->mode = "fixed";
        return mg__regex(r, query, true, false, out, base, limit);
    }
    if (mg__terms_add(r, query) != 0) {
        mg_buf_release(&b);
        return -1;
    }
    if (r->terms.lines && mg__terms_words(r, query) != 0) {
        mg_buf_release(&b);
        return -1;
    }
    /* 1. whole words: the exact identifiers. 2. if that is not enough,
     * identifier parts too (parseHttpHeader finds parse_http_header); the
     * whole-word rows come back first there as well, having more matching
     * terms. 3. nothing at all: any word (any_query). */
    int found = lexical_run(c, b.p, 0, limit, false);
    for (int step = 2; step <= 3 && found >= 0 && found < limit; step++) {
        if (step == 3 && (found > 0 || words < 2)) break;
        int nscored = 0;
        if (step == 2) {
            /* (no word with parts: the same expression again, skipped) */
            struct mg_buf parts;
            mg_buf_init(&parts, b.max);
            mg_fts_query(query, qlen, 0, &parts);
            if (!parts.p) {
                found = mg_err_oom(r->err);
                break;
            }
            bool same = strcmp(parts.p, b.p) == 0;
            mg_buf_release(&b);
            b = parts;
            if (same) continue;
        } else {
            mg_buf_reset(&b);
            if (any_query(r, query, &b, &nscored) != 0) {
                found = -1;
                break;
            }
            if (b.len == 0) break; /* none of its words is in the index */
        }
        if (step == 2 && found > 0) { /* the whole-word hits stay first; the parts add others after them */
            found = lexical_run(c, b.p, nscored, limit, true);
            continue;
        }
        size_t before = out->n;
        for (size_t i = base; i < before; i++) mg_hit_release(&out->v[i]);
        out->n = base;
        c->nseen = 0;
        found = lexical_run(c, b.p, nscored, limit, false);
    }
    mg_buf_release(&b);
    free(c->seen);
    return found < 0 ? -1 : 0;
}
