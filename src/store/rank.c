/* rank.c — the FTS5 ranking functions mgrank and mgtop, and what they keep (rank.h).
 *
 * Sections:
 *   1. sampled counts kept on a handle (mg_counts)
 *   2. chunk ids that carry their lengths
 *   3. mgrank: per-query statistics, a row's score
 *   4. mgtop: one phrase's best rows in one call
 *   5. registering them
 */
#include "store/rank.h"

#include "store/indexdb.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#define K1 1.2
#define B  0.75
#define MAX_COLS 8

/* Per-query statistics, computed at the first row and kept as aux data;
 * with the column weights and BM25's length terms worked out once (a
 * common word ranks hundreds of thousands of rows). */
struct stats {
    int nphrase, ncol;
    double avgdl[MAX_COLS];
    double w[MAX_COLS];     /* the column weights (the function's arguments) */
    double norm[MAX_COLS];  /* K1 * B / avgdl: times a row's length, plus K1 * (1 - B) */
    double idf[]; /* per phrase */
};

/* ---- 1. sampled counts kept on a handle (rank.h's mg_counts) ---- */

#define COUNT_SLOTS 256 /* a power of two; the table is emptied at 3/4 full */
#define COUNT_KEY 96    /* an expression longer is not kept */

struct count_slot {
    uint64_t hash; /* 0: empty */
    long max;
    struct mg_count v;
    unsigned char len, kind;
    char key[COUNT_KEY];
};

struct mg_counts {
    sqlite3 *db;
    uint32_t version;         /* the data version the slots were counted at */
    size_t used;
    struct count_slot *slots; /* NULL until the first count is kept */
};

struct mg_counts *mg_counts_new(sqlite3 *db)
{
    struct mg_counts *c = calloc(1, sizeof(*c));
    if (c) c->db = db;
    return c;
}

void mg_counts_free(struct mg_counts *c)
{
    if (!c) return;
    free(c->slots);
    free(c);
}

/* Whether the slots may be used: only inside a read transaction, where the data version is the snapshot's (SQLite
 * reads it as the transaction begins; a write transaction's own changes do not move it). When it moved since
 * they were counted, they are emptied first. */
static bool counts_current(struct mg_counts *c)
{
    uint32_t v = 0;
    if (sqlite3_txn_state(c->db, "main") != SQLITE_TXN_READ ||
        sqlite3_file_control(c->db, "main", SQLITE_FCNTL_DATA_VERSION, &v) != SQLITE_OK)
        return false;
    if (v != c->version && c->used) {
        memset(c->slots, 0, COUNT_SLOTS * sizeof(*c->slots));
        c->used = 0;
    }
    c->version = v;
    return true;
}

/* the slot of (kind, expr, max): its own, or the empty one it would take */
static struct count_slot *count_find(struct mg_counts *c, char kind, const char *expr, size_t len, long max,
                                     uint64_t *hash)
{
    uint64_t h = XXH3_64bits_withSeed(expr, len, (uint64_t)max * 31 + (unsigned char)kind);
    *hash = h ? h : 1;
    for (size_t i = (size_t)*hash & (COUNT_SLOTS - 1);; i = (i + 1) & (COUNT_SLOTS - 1)) {
        struct count_slot *s = &c->slots[i];
        if (!s->hash || (s->hash == *hash && s->max == max && s->kind == (unsigned char)kind && s->len == len &&
                         memcmp(s->key, expr, len) == 0))
            return s;
    }
}

bool mg_counts_get(struct mg_counts *c, char kind, const char *expr, size_t len, long max, struct mg_count *out)
{
    if (!c || !c->slots || len > COUNT_KEY || !counts_current(c) || !c->used) return false;
    uint64_t h;
    struct count_slot *s = count_find(c, kind, expr, len, max, &h);
    if (!s->hash) return false;
    *out = s->v;
    return true;
}

void mg_counts_put(struct mg_counts *c, char kind, const char *expr, size_t len, long max, const struct mg_count *v)
{
    if (!c || len > COUNT_KEY || !counts_current(c)) return;
    if (!c->slots && !(c->slots = calloc(COUNT_SLOTS, sizeof(*c->slots)))) return;
    if (c->used >= COUNT_SLOTS / 4 * 3) { /* full enough: start again (the probes stay short) */
        memset(c->slots, 0, COUNT_SLOTS * sizeof(*c->slots));
        c->used = 0;
    }
    uint64_t h;
    struct count_slot *s = count_find(c, kind, expr, len, max, &h);
    if (!s->hash) {
        *s = (struct count_slot){.hash = h, .max = max, .len = (unsigned char)len, .kind = (unsigned char)kind};
        memcpy(s->key, expr, len);
        c->used++;
    }
    s->v = *v;
}

/* ---- 2. chunk ids that carry their lengths ---- */

#define LOG_BASE 1.1

int64_t mg_chunk_id(int64_t seq, uint32_t body, uint32_t sym)
{
    int b = (int)lround(log((double)body + 1) / log(LOG_BASE));
    if (b > 127) b = 127;
    if (sym > 31) sym = 31;
    return seq << MG_CHUNK_ID_BITS | (int64_t)b << 5 | (int64_t)sym;
}

int64_t mg_chunk_seq(int64_t id) { return id >> MG_CHUNK_ID_BITS; }

/* LOG_BASE^b - 1 for each of the 128 body length buckets */
static double body_len[128];
static pthread_once_t body_once = PTHREAD_ONCE_INIT;
static void body_init(void)
{
    for (int b = 0; b < 128; b++) body_len[b] = pow(LOG_BASE, (double)b) - 1;
}

void mg_chunk_lengths(int64_t id, double *body, double *sym)
{
    pthread_once(&body_once, body_init);
    *body = body_len[id >> 5 & 127];
    *sym = (double)(id & 31);
}

/* ---- 3. mgrank: per-query statistics, a row's score ---- */

/* Counting the rows of a very common term would cost a pass over all of
 * them (20 ms for "struct" in Linux); IDF needs no precision there. Count the
 * first IDF_SAMPLE rows and extrapolate over the id space: chunk sequence
 * numbers follow insertion order, which spreads a term's rows evenly. (A
 * question of ten words pays this ten times: sampling 10,000 rows made
 * hybrid search on Linux 5-10 ms slower than 2,000, and recall@10 moved by
 * under 1%; docs/benchmarks.md.) */
#define IDF_SAMPLE 2000

struct counter {
    sqlite3_int64 n, last;
};

static int count_row(const Fts5ExtensionApi *api, Fts5Context *fts, void *ud)
{
    struct counter *c = ud;
    c->n++;
    if (c->n < IDF_SAMPLE) return SQLITE_OK;
    c->last = api->xRowid(fts);
    return SQLITE_DONE; /* stops xQueryPhrase without an error */
}

/* The closing quote of the phrase opening at p ('"'; a quote inside it is doubled), or NULL. */
static const char *phrase_end(const char *p)
{
    for (const char *e = p + 1; *e; e++)
        if (*e == '"' && *++e != '"') return e - 1;
    return NULL;
}

/* The count of an FTS5 expression's quoted phrases, or -1 when it has anything else outside its quotes but
 * parentheses, spaces, AND, OR and NOT (a bare word, a `+`, a column filter: FTS5 would number its phrases
 * otherwise), or an empty phrase. Then FTS5's phrase k is the k-th quoted one. */
static int quoted_phrases(const char *m)
{
    int n = 0;
    for (const char *p = m; *p;) {
        if (*p == ' ' || *p == '(' || *p == ')') {
            p++;
        } else if (*p == '"') {
            const char *e = phrase_end(p);
            if (!e || e == p + 1) return -1;
            n++;
            p = e + 1;
        } else {
            size_t w = strncmp(p, "AND", 3) == 0 || strncmp(p, "NOT", 3) == 0 ? 3 : strncmp(p, "OR", 2) == 0 ? 2 : 0;
            if (!w || !(p[w] == ' ' || p[w] == '(' || p[w] == '"')) return -1;
            p += w;
        }
    }
    return n;
}

/* Phrase p's rows, up to IDF_SAMPLE, into *c; kept in counts under its text at[0..len) when at is set. */
static int phrase_rows(const Fts5ExtensionApi *api, Fts5Context *fts, struct mg_counts *counts, const char *at,
                       size_t len, int p, struct counter *c)
{
    struct mg_count v;
    if (at && mg_counts_get(counts, 'p', at, len, IDF_SAMPLE, &v)) {
        *c = (struct counter){v.n, v.last};
        return SQLITE_OK;
    }
    *c = (struct counter){0, 0};
    int rc = api->xQueryPhrase(fts, p, c, count_row);
    if (rc == SQLITE_OK && at) mg_counts_put(counts, 'p', at, len, IDF_SAMPLE, &(struct mg_count){c->n, c->last, 0});
    return rc;
}

static struct stats *get_stats(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_int64 maxid, int nscored,
                               const char *match, int nval, sqlite3_value **val, int *rc)
{
    struct stats *s = api->xGetAuxdata(fts, 0);
    if (s) return s;
    int np = api->xPhraseCount(fts), nc = api->xColumnCount(fts);
    struct mg_counts *counts = api->xUserData(fts);
    /* the phrases' texts, to keep their counts by: the quoted ones in turn, when they are all of them */
    const char *next = counts && match && quoted_phrases(match) == np ? match : NULL;
    if (nscored > 0 && nscored < np) np = nscored;
    if (nc > MAX_COLS) nc = MAX_COLS;
    s = calloc(1, sizeof(*s) + (size_t)(np > 0 ? np : 1) * sizeof(double));
    if (!s) {
        *rc = SQLITE_NOMEM;
        return NULL;
    }
    s->nphrase = np;
    s->ncol = nc;
    sqlite3_int64 nrow = 0;
    if ((*rc = api->xRowCount(fts, &nrow)) != SQLITE_OK) goto fail;
    if (nrow < 1) nrow = 1;
    for (int c = 0; c < nc; c++) {
        sqlite3_int64 tot = 0;
        if ((*rc = api->xColumnTotalSize(fts, c, &tot)) != SQLITE_OK) goto fail;
        s->avgdl[c] = tot > 0 ? (double)tot / (double)nrow : 1.0;
        s->w[c] = c < nval && c < 3 ? sqlite3_value_double(val[c]) : 1.0;
        s->norm[c] = K1 * B / s->avgdl[c];
    }
    for (int p = 0; p < np; p++) {
        struct counter c;
        const char *at = next ? strchr(next, '"') : NULL, *end = at ? phrase_end(at) : NULL;
        if (end) next = end + 1;
        if ((*rc = phrase_rows(api, fts, counts, at, end ? (size_t)(end + 1 - at) : 0, p, &c)) != SQLITE_OK)
            goto fail;
        double hits = (double)c.n;
        if (c.last > 0 && maxid > 0) {
            double frac = (double)mg_chunk_seq(c.last) / (double)(mg_chunk_seq(maxid) + 1);
            hits = frac > 0 ? hits / frac : hits;
            if (hits > (double)nrow) hits = (double)nrow;
        }
        double idf = log(((double)nrow - hits + 0.5) / (hits + 0.5));
        s->idf[p] = idf > 1e-6 ? idf : 1e-6;
    }
    if ((*rc = api->xSetAuxdata(fts, s, free)) != SQLITE_OK) return NULL; /* xSetAuxdata freed it */
    return s;
fail:
    free(s);
    return NULL;
}

/* A row's score (not negated): each column's weight times BM25's length
 * factor for this row (chunks_fts(path, symbol, body): lengths from the id),
 * for each of the first np phrases in each column that holds it. */
static double row_score(const Fts5ExtensionApi *api, Fts5Context *fts, const struct stats *s, int np)
{
    double dl[MAX_COLS], f[MAX_COLS], score = 0;
    for (int c = 0; c < s->ncol; c++) dl[c] = s->avgdl[c];
    if (s->ncol == 3) mg_chunk_lengths(api->xRowid(fts), &dl[2], &dl[1]);
    for (int c = 0; c < s->ncol; c++) f[c] = s->w[c] * (K1 + 1) / (1 + K1 * (1 - B) + s->norm[c] * dl[c]);
    for (int p = 0; p < np; p++) {
        Fts5PhraseIter it;
        int col = -1;
        if (api->xPhraseFirstColumn(fts, p, &it, &col) != SQLITE_OK) continue;
        for (; col >= 0; api->xPhraseNextColumn(fts, &it, &col))
            if (col < s->ncol) score += s->idf[p] * f[col];
    }
    return score;
}

static void mgrank(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx, int nval, sqlite3_value **val)
{
    int rc = SQLITE_OK;
    /* mgrank(fts, w_path, w_symbol, w_body [, max chunk id [, phrases scored [, bound [, match]]]]) */
    struct stats *s = get_stats(api, fts, nval > 3 ? sqlite3_value_int64(val[3]) : 0,
                                nval > 4 ? sqlite3_value_int(val[4]) : 0,
                                nval > 6 ? (const char *)sqlite3_value_text(val[6]) : NULL, nval, val, &rc);
    if (!s) {
        sqlite3_result_error_code(ctx, rc);
        return;
    }
    if (nval > 5 && sqlite3_value_int(val[5])) {
        /* the bound: the best score of a row with no phrase in its symbol column (in its path, of the length
         * every path is given, and in the shortest body) */
        double bound = 0;
        for (int p = 0; p < s->nphrase && s->ncol == 3; p++)
            bound += s->idf[p] * (s->w[0] + s->w[2] * (K1 + 1) / (1 + K1 * (1 - B)));
        sqlite3_result_double(ctx, s->ncol == 3 ? -bound : -HUGE_VAL);
        return;
    }
    sqlite3_result_double(ctx, -row_score(api, fts, s, s->nphrase));
}

/* ---- 4. mgtop: one phrase's best rows in one call (rank.h) ---- */

/* a ranks after b: ORDER BY score, rowid (scores negated) */
static bool worse(double sa, int64_t ia, double sb, int64_t ib) { return sa > sb || (sa == sb && ia > ib); }

/* the heap's entry i moved down to its place among n (the worst row on top) */
static void sift_down(struct mg_rank_top *t, size_t i, size_t n)
{
    for (;;) {
        size_t w = i, l = 2 * i + 1, r = l + 1;
        if (l < n && worse(t->score[l], t->id[l], t->score[w], t->id[w])) w = l;
        if (r < n && worse(t->score[r], t->id[r], t->score[w], t->id[w])) w = r;
        if (w == i) return;
        double sc = t->score[i];
        int64_t id = t->id[i];
        t->score[i] = t->score[w];
        t->id[i] = t->id[w];
        t->score[w] = sc;
        t->id[w] = id;
        i = w;
    }
}

struct top_run {
    const struct stats *s;
    struct mg_rank_top *t;
    size_t cap;
};

/* room for twice the rows (at most the limit's) */
static int grow(struct top_run *r)
{
    struct mg_rank_top *t = r->t;
    size_t cap = r->cap ? 2 * r->cap : 64;
    if (cap > (size_t)t->limit) cap = (size_t)t->limit;
    if (cap <= r->cap) return SQLITE_ERROR; /* (never: no row is kept past the limit) */
    double *sv = realloc(t->score, cap * sizeof(*sv));
    if (sv) t->score = sv;
    int64_t *iv = sv ? realloc(t->id, cap * sizeof(*iv)) : NULL;
    if (!iv) return SQLITE_NOMEM;
    t->id = iv;
    r->cap = cap;
    return SQLITE_OK;
}

static int top_row(const Fts5ExtensionApi *api, Fts5Context *fts, void *ud)
{
    struct top_run *r = ud;
    struct mg_rank_top *t = r->t;
    int64_t id = api->xRowid(fts);
    if (t->scope && !t->scope->has(t->scope->self, id)) return SQLITE_OK;
    if (t->first) { /* the first rows by id, as they come */
        if (t->n == r->cap && grow(r) != SQLITE_OK) return SQLITE_NOMEM;
        t->score[t->n] = 0;
        t->id[t->n++] = id;
        return t->n == (size_t)t->limit ? SQLITE_DONE : SQLITE_OK; /* (DONE ends the walk without an error) */
    }
    double sc = -row_score(api, fts, r->s, 1);
    if (t->n == (size_t)t->limit) {
        if (!worse(t->score[0], t->id[0], sc, id)) return SQLITE_OK;
        t->score[0] = sc;
        t->id[0] = id;
        sift_down(t, 0, t->n);
        return SQLITE_OK;
    }
    if (t->n == r->cap && grow(r) != SQLITE_OK) return SQLITE_NOMEM;
    size_t i = t->n++; /* up from the last leaf */
    for (; i > 0 && worse(sc, id, t->score[(i - 1) / 2], t->id[(i - 1) / 2]); i = (i - 1) / 2) {
        t->score[i] = t->score[(i - 1) / 2];
        t->id[i] = t->id[(i - 1) / 2];
    }
    t->score[i] = sc;
    t->id[i] = id;
    return SQLITE_OK;
}

static void mgtop(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx, int nval, sqlite3_value **val)
{
    /* mgtop(fts, w_path, w_symbol, w_body, max chunk id, top) */
    struct mg_rank_top *t = nval == 5 ? sqlite3_value_pointer(val[4], "mg_rank_top") : NULL;
    if (!t || t->limit <= 0 || t->n > 0 || api->xPhraseCount(fts) != 1) {
        sqlite3_result_error(ctx, "mgtop: one phrase, a top bound once, a limit above 0", -1);
        return;
    }
    int rc = SQLITE_OK;
    struct stats *s = t->first ? NULL : get_stats(api, fts, sqlite3_value_int64(val[3]), 0, t->match, nval, val, &rc);
    struct top_run r = {.s = s, .t = t};
    if (s || t->first) rc = api->xQueryPhrase(fts, 0, &r, top_row);
    if (rc == SQLITE_DONE) rc = SQLITE_OK;
    if (rc != SQLITE_OK) {
        sqlite3_result_error_code(ctx, rc);
        return;
    }
    for (size_t n = t->first ? 0 : t->n; n > 1; n--) { /* the worst row to the end, each in turn: best first */
        double sc = t->score[0];
        int64_t id = t->id[0];
        t->score[0] = t->score[n - 1];
        t->id[0] = t->id[n - 1];
        t->score[n - 1] = sc;
        t->id[n - 1] = id;
        sift_down(t, 0, n - 1);
    }
    sqlite3_result_int64(ctx, (sqlite3_int64)t->n);
}

/* ---- 5. registering them ---- */

int mg_rank_register(sqlite3 *db, struct mg_counts *counts)
{
    fts5_api *api = NULL;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &st, NULL) != SQLITE_OK) return -1;
    sqlite3_bind_pointer(st, 1, (void *)&api, "fts5_api_ptr", NULL);
    sqlite3_step(st);
    sqlite3_finalize(st);
    if (!api) return -1;
    return api->xCreateFunction(api, "mgrank", counts, mgrank, NULL) == SQLITE_OK &&
                   api->xCreateFunction(api, "mgtop", counts, mgtop, NULL) == SQLITE_OK
               ? 0
               : -1;
}
