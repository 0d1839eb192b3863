/* filerank_whole.c — files scored whole (filerank_int.h's mg__whole_files):
 * every file holding one of the query's words is one document, as the plain
 * whole-file BM25 of bench/bugloc.py scores it, read from the chunk word
 * index without a table of its own.
 *
 * Two passes. The word index (chunks_fts, detail=column) keeps no counts,
 * so the first scores every file by its chunks: a word's term frequency in
 * a file is the number of its chunks that hold it, and a file's length its
 * number of chunks (the chunk ids of a file are one range, so its length
 * needs no read), against the average over the index (chunk sequence
 * numbers over files). That is coarse (a word used ten times in one
 * function counts once), so the second scores the best RESCORE files again
 * on their stored text: each word's occurrences counted as the index's
 * tokenizer splits them (mg_token_count, in the chunks that hold one of the
 * words: the others cannot), the file's length its bytes against the
 * index's average (meta bytes over files); only those files make the list.
 * BM25 with k1 1.2 and b 0.75, IDFs over files, in both. A file's best
 * chunk, the one shown for it, is the one holding the most of the query's
 * words (by IDF), ties the first in the file. RESCORE is 20: docstring ->
 * function retrieval (bench/fusion_tune.py) cannot tell 20 from 50, and
 * the second pass reads each file's text (docs/semantic.md).
 *
 * The bound: the postings of the rarest words are read, at most WHOLE_ROWS
 * of them in all (rarest first, by a sampled estimate as lexical.c's
 * word_rows), and a word whose rows do not fit, or that over a quarter of
 * the chunks hold, is left out with all commoner ones: a word that many
 * chunks hold weighs little in BM25. The chunks read are grouped
 * by file in id order, one lookup per file. A query with no word rare
 * enough gets no list.
 *
 * Sections:
 *   1. the query's words and their rows
 *   2. files and their scores
 *   3. mg__whole_files
 */
#include "search/filerank_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "index/role.h"
#include "search/chunkset.h"
#include "search/hybrid.h"
#include "store/db.h"
#include "store/rank.h"
#include "store/tokenize.h"
#include "util/buf.h"
#include "util/config.h"

#define WHOLE_ROWS 20000 /* postings read at most, all words together */
#define WHOLE_TERMS 64   /* the query's words (and parts) taken at most */
_Static_assert(WHOLE_TERMS <= MG_COUNT_TOKENS, "a file's words are counted by one mg_token_counter");
#define DF_SAMPLE 100    /* a word's rows counted from the first id for its estimate (it only orders them) */
#define WHOLE_COMMON 4   /* a word in over 1/WHOLE_COMMON of the chunks is left out: its IDF is small */
#define RESCORE 20       /* files scored again on their text (the top of the file) */
#define K1 1.2
#define B 0.75

/* ---- 1. the query's words and their rows -------------------------------------------------------- */

struct term {
    char expr[MG_TOKEN_MAX + 3]; /* "tok" */
    double est;                  /* its rows, estimated */
    double idf;
    long files;                  /* the files holding it */
};

struct terms {
    struct term v[WHOLE_TERMS];
    size_t n;
    double files;   /* the index's files (score's, for the IDFs) */
    unsigned asked; /* the roles the query names (mg_roles_asked) */
};

static int term_cb(void *ctx, const char *tok, size_t len, size_t start, size_t end, bool colocated)
{
    (void)start, (void)end, (void)colocated;
    struct terms *t = ctx;
    if (len < 2 || t->n >= WHOLE_TERMS || len > MG_TOKEN_MAX) return 0;
    char e[MG_TOKEN_MAX + 3];
    e[0] = '"';
    memcpy(e + 1, tok, len);
    e[len + 1] = '"';
    e[len + 2] = 0;
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->v[i].expr, e) == 0) return 0;
    memcpy(t->v[t->n].expr, e, len + 3);
    t->n++;
    return 0;
}

static int cmp_term(const void *a, const void *b)
{
    const struct term *x = a, *y = b;
    if (x->est != y->est) return x->est < y->est ? -1 : 1;
    return strcmp(x->expr, y->expr);
}

struct posting {
    int64_t id;
    int term;
};

static int cmp_posting(const void *a, const void *b)
{
    const struct posting *x = a, *y = b;
    if (x->id != y->id) return x->id < y->id ? -1 : 1;
    return x->term - y->term;
}

/* Each word's rows come by id: v[runs[k], runs[k + 1]) for k < n. Merged
 * into one list by (id, word) — the sort's order, in linear time (a sort of
 * them was 7% of a lexical call's CPU). 0, or -1 out of memory. */
static int merge_runs(struct posting *v, size_t *runs, size_t n)
{
    if (n < 2 || runs[n] == 0) return 0;
    struct posting *tmp = malloc(runs[n] * sizeof(*tmp));
    if (!tmp) return -1;
    for (size_t w = 1; w < n; w *= 2) /* runs [k, k + w) and [k + w, k + 2w) become one */
        for (size_t k = 0; k + w < n; k += 2 * w) {
            size_t a = runs[k], m = runs[k + w], b = runs[k + 2 * w < n ? k + 2 * w : n], i = a, j = m, o = 0;
            while (i < m && j < b) tmp[o++] = cmp_posting(&v[j], &v[i]) < 0 ? v[j++] : v[i++];
            while (i < m) tmp[o++] = v[i++];
            while (j < b) tmp[o++] = v[j++];
            memcpy(v + a, tmp, o * sizeof(*tmp));
        }
    free(tmp);
    return 0;
}

/* The query's content words (hybrid.h), each word and its parts as the
 * index has them, rarest first, and the rows of those that fit WHOLE_ROWS
 * into *pv (*np). 0, or -1 (r->err). */
static int read_rows(struct mg__repo *r, struct terms *t, struct posting **pv, size_t *np)
{
    const char *query = r->q->query;
    size_t cap = strlen(query) + 1;
    char *words = malloc(cap);
    if (!words) return mg_err_oom(r->err);
    const char *q = mg_query_content_words(query, 0, words, cap) > 0 ? words : query;
    mg_tokenize(q, strlen(q), term_cb, t);
    free(words);
    *pv = NULL;
    *np = 0;
    for (size_t i = 0; i < t->n; i++) {
        int64_t last = 0, maxid = 0;
        long n = mg_idx_match_count(r->d, t->v[i].expr, DF_SAMPLE, &last, &maxid, r->err);
        if (n < 0) return -1;
        t->v[i].est = (double)n;
        if (n >= DF_SAMPLE && last > 0)
            t->v[i].est = (double)n * (double)(mg_chunk_seq(maxid) + 1) / (double)(mg_chunk_seq(last) + 1);
    }
    qsort(t->v, t->n, sizeof(t->v[0]), cmp_term);
    bool scoped = mg_filter_scoped(&r->filter);
    if (scoped && !r->chunks && mg_chunkset_get(r->d, &r->filter, &r->chunks, r->err) != 0) return -1;
    size_t cap_rows = 0, used = 0, kept = 0, runs[WHOLE_TERMS + 1] = {0};
    double common = (double)(mg_chunk_seq(mg_idx_chunk_max(r->d)) + 1) / WHOLE_COMMON;
    for (; kept < t->n && t->v[kept].est <= (double)(WHOLE_ROWS - used) && t->v[kept].est <= common; kept++) {
        struct mg_idx_cur c = {0};
        struct mg_idx_row row;
        size_t before = *np;
        long room = (long)(WHOLE_ROWS - used);
        if (mg_idx_match_ids(r->d, t->v[kept].expr, room + 1, scoped ? &r->chunks->set : NULL, &c, r->err) != 0)
            return -1;
        int rc;
        while ((rc = mg_idx_next(&c, &row)) > 0) {
            struct posting *v = mg_grow(*pv, *np, &cap_rows, sizeof(**pv));
            if (!v) {
                mg_idx_done(&c);
                return mg_err_oom(r->err);
            }
            *pv = v;
            v[(*np)++] = (struct posting){row.id, (int)kept};
        }
        mg_idx_done(&c);
        if (rc < 0) return mg_db_error(r->d, "file ranking", r->err);
        if (*np - before > (size_t)room) { /* more rows than estimated: this word and the commoner ones go */
            *np = before;
            break;
        }
        used = *np;
        runs[kept + 1] = *np;
    }
    t->n = kept;
    return merge_runs(*pv, runs, kept) == 0 ? 0 : mg_err_oom(r->err);
}

/* ---- 2. files and their scores ------------------------------------------------------------------ */

struct wfile {
    int64_t file, lo, hi, best;
    int flags;
    size_t a, b; /* its postings */
    double score;
};

/* The postings p[0..np) (by id) grouped by file into *fv (*nf), each term's
 * files counted. 0, or -1 (r->err). */
static int group(struct mg__repo *r, const struct posting *p, size_t np, struct terms *t, struct wfile **fv,
                 size_t *nf)
{
    size_t cap = 0;
    *fv = NULL;
    *nf = 0;
    /* the file map when this index run's is cached, or once reading it (25 ms for Linux) pays; else a
     * lookup per file (a seek in files_chunks) */
    struct mg_filemap *map = NULL;
    if (np && mg_filemap_get(r->d, np, &map, r->err) != 0) return -1;
    size_t at = 0; /* the map's file of the last posting: the next ones are at or after it */
    for (size_t i = 0; i < np;) {
        struct wfile f = {.lo = p[i].id, .hi = p[i].id, .a = i};
        bool got;
        if (map) {
            long m = mg_filemap_find_from(map, p[i].id, at);
            if ((got = m >= 0))
                at = (size_t)m, f.file = map->id[m], f.lo = map->r[m].lo, f.hi = map->r[m].hi, f.flags = map->flags[m];
        } else {
            struct mg_idx_cur c = {0};
            struct mg_idx_row row = {0};
            if (mg_idx_file_of_chunk(r->d, p[i].id, &c, r->err) != 0) return -1;
            int k = mg_idx_next(&c, &row);
            mg_idx_done(&c);
            if (k < 0) return mg_db_error(r->d, "file ranking", r->err);
            if ((got = k > 0 && row.chunk_hi >= p[i].id))
                f.file = row.id, f.lo = row.chunk_lo, f.hi = row.chunk_hi, f.flags = row.flags;
        }
        uint64_t seen = 0;
        for (; i < np && p[i].id <= f.hi; i++) seen |= 1ull << p[i].term;
        f.b = i;
        if (!got) continue; /* (cannot happen: a chunk has its file) */
        for (size_t k = 0; k < t->n; k++) t->v[k].files += (long)(seen >> k & 1);
        struct wfile *v = mg_grow(*fv, *nf, &cap, sizeof(**fv));
        if (!v) {
            mg_filemap_unref(map);
            return mg_err_oom(r->err);
        }
        *fv = v;
        v[(*nf)++] = f;
    }
    mg_filemap_unref(map);
    return 0;
}

/* File f's BM25 over the words' frequencies tf[0..t->n) and its length dl
 * against avgdl, weighed by its role (0, no role indexed: taken as source). */
static double bm25(const struct terms *t, const double *tf, double dl, double avgdl, const struct wfile *f,
                   unsigned off)
{
    double s = 0, norm = K1 * (1 - B + B * dl / avgdl);
    for (size_t k = 0; k < t->n; k++)
        if (tf[k] > 0) s += t->v[k].idf * tf[k] * (K1 + 1) / (tf[k] + norm);
    int role = (f->flags & MG_FILE_ROLE_MASK) >> MG_FILE_ROLE_SHIFT;
    return role ? mg__role_weigh(s, role, NULL, t->asked, off) : s;
}

/* Each file's BM25 (weighed by role) and best chunk; t's IDFs, files and asked. */
static void score(struct mg__repo *r, unsigned off, const struct posting *p, struct terms *t, struct wfile *fv,
                  size_t nf)
{
    /* the run's count (meta files, written with the rows it counts; an interrupted run leaves the last
     * whole run's); counting the table costs 4 ms a query on Linux's 78,000 files */
    uint64_t nfiles = (uint64_t)mg_db_meta_int(r->d, "files", 0);
    if (nfiles == 0) mg_idx_totals(r->d, &nfiles, NULL, NULL, NULL);
    double n = t->files = nfiles > 0 ? (double)nfiles : 1, maxseq = (double)mg_chunk_seq(mg_idx_chunk_max(r->d));
    double avgdl = (maxseq + 1) / n;
    if (avgdl < 1) avgdl = 1;
    for (size_t k = 0; k < t->n; k++) {
        double df = (double)t->v[k].files;
        t->v[k].idf = log(1 + (n - df + 0.5) / (df + 0.5));
    }
    t->asked = mg_roles_asked(r->q->query);
    for (size_t i = 0; i < nf; i++) {
        struct wfile *f = &fv[i];
        double tf[WHOLE_TERMS] = {0}, dl = (double)(mg_chunk_seq(f->hi) - mg_chunk_seq(f->lo) + 1), best = -1;
        for (size_t j = f->a; j < f->b;) {
            size_t e = j;
            double w = 0;
            for (; e < f->b && p[e].id == p[j].id; e++) {
                tf[p[e].term] += 1;
                w += t->v[p[e].term].idf;
            }
            if (w > best) best = w, f->best = p[j].id;
            j = e;
        }
        f->score = bm25(t, tf, dl < 1 ? 1 : dl, avgdl, f, off);
    }
}

static int cmp_wfile(const void *a, const void *b)
{
    const struct wfile *x = a, *y = b;
    if (x->score != y->score) return x->score > y->score ? -1 : 1;
    return (x->file > y->file) - (x->file < y->file);
}

/* The best k of fv[0..n) (by cmp_wfile, a total order) moved to its front in
 * order, as a sort of all would leave them, in one pass with a few compares
 * each (thousands of files hold a common word; k is small). Returns min(n, k). */
static size_t best_first(struct wfile *fv, size_t n, size_t k)
{
    size_t m = 0; /* fv[0..m) the best so far, in order */
    for (size_t i = 0; i < n && k; i++) {
        if (m == k && cmp_wfile(&fv[i], &fv[m - 1]) >= 0) continue;
        struct wfile x = fv[i];
        size_t j = m < k ? m++ : m - 1; /* (full: the worst of the best makes room, to fv[i]) */
        if (j < i) fv[i] = fv[j];
        for (; j > 0 && cmp_wfile(&x, &fv[j - 1]) < 0; j--) fv[j] = fv[j - 1];
        fv[j] = x;
    }
    return m;
}

/* The counts of the words of mask (bit k: the k-th) in file f's chunks
 * into tf[k]: in each chunk, those its postings in p say it holds (the
 * chunks of a file cover its text but the blank between them, so no other
 * chunk holds a word, and a chunk no other of the words). 0, or -1 (r->err). */
static int count_words(struct mg__repo *r, const struct posting *p, const struct wfile *f, const struct mg_text *t,
                       struct mg_token_counter *c, uint64_t mask, double *tf)
{
    const char *text = t->text, *lower = t->lower;
    size_t len = t->len;
    for (uint64_t m = mask; m; m &= m - 1) tf[__builtin_ctzll(m)] = 0;
    struct mg_idx_cur cur = {0};
    struct mg_idx_row row;
    if (mg_idx_chunks(r->d, f->lo, f->hi, &cur, r->err) != 0) return -1;
    size_t j = f->a;
    int got = 0;
    while (j < f->b && (got = mg_idx_next(&cur, &row)) > 0) {
        if (row.id < p[j].id) continue;
        uint64_t which = 0;
        for (; j < f->b && p[j].id <= row.id; j++) which |= 1ull << p[j].term;
        which &= mask;
        if (row.start_byte < 0 || row.end_byte > (int64_t)len || row.start_byte >= row.end_byte) continue;
        mg_token_count(c, which, text + row.start_byte, lower ? lower + row.start_byte : NULL,
                       (size_t)(row.end_byte - row.start_byte), tf);
    }
    mg_idx_done(&cur);
    return j < f->b && got < 0 ? mg_db_error(r->d, "file ranking", r->err) : 0;
}

/* The best RESCORE files of fv scored again with the words' counts in their
 * stored text (the top of the file comment), those an earlier search
 * counted in the same text kept on it (texts.h); *nf becomes at most
 * RESCORE. A file a re-index removed since its chunks were read is left
 * out. 0, or -1 (r->err). */
static int rescore(struct mg__repo *r, unsigned off, const struct posting *p, const struct terms *t,
                   struct wfile *fv, size_t *nf)
{
    size_t n = best_first(fv, *nf, RESCORE), kept = 0;
    double bytes = (double)mg_db_meta_int(r->d, "bytes", 0), avgdl = bytes > 0 ? bytes / t->files : 0;
    const char *toks[WHOLE_TERMS];
    size_t lens[WHOLE_TERMS];
    for (size_t k = 0; k < t->n; k++) toks[k] = t->v[k].expr + 1, lens[k] = strlen(toks[k]) - 1; /* "tok" */
    struct mg_token_counter c;
    if (mg_token_counter_init(&c, toks, lens, t->n) != 0) return 0; /* (cannot happen: term_cb's words fit) */
    double tf[WHOLE_TERMS];
    for (size_t i = 0; i < n; i++) {
        struct mg_text *text;
        int got = mg__file_text(r, fv[i].file, &text);
        if (got < 0) return -1;
        if (got > 0) continue;
        uint64_t missing = mg_text_counts_get(text, toks, lens, t->n, tf);
        if (missing) {
            if (count_words(r, p, &fv[i], text, &c, missing, tf) != 0) return -1;
            mg_text_counts_put(text, toks, lens, missing, tf);
        }
        double dl = text->len > 0 ? (double)text->len : 1;
        fv[i].score = bm25(t, tf, dl, avgdl > 0 ? avgdl : dl, &fv[i], off);
        fv[kept++] = fv[i];
    }
    *nf = kept;
    return 0;
}

/* ---- 3. mg__whole_files ------------------------------------------------------------------------- */

int mg__whole_files(struct mg__repo *r, unsigned off, struct mg__flist *out)
{
    *out = (struct mg__flist){0};
    struct terms t = {0};
    struct posting *p = NULL;
    struct wfile *fv = NULL;
    size_t np = 0, nf = 0;
    int rc = read_rows(r, &t, &p, &np);
    if (rc == 0 && np) rc = group(r, p, np, &t, &fv, &nf);
    struct mg__rfile *f = NULL;
    if (rc == 0 && nf) {
        score(r, off, p, &t, fv, nf);
        if (!(off & MG_RANK_COUNTS)) rc = rescore(r, off, p, &t, fv, &nf);
    }
    if (rc == 0 && nf) {
        if (!(f = calloc(nf, sizeof(*f)))) rc = mg_err_oom(r->err);
        for (size_t i = 0; i < nf && rc == 0; i++)
            f[i] = (struct mg__rfile){.score = fv[i].score, .best = fv[i].best, .file = fv[i].file};
        if (rc == 0) rc = mg__flist_keep(r, f, nf, out);
    }
    free(f);
    free(p);
    free(fv);
    if (rc != 0) mg__flist_release(out);
    return rc;
}
