/* repomap.c — the repo map (see repomap.h).
 *
 * Sections:
 *   1. The graph     files, the names they define (definers) and use, from table refs
 *   2. The cache     graphs by database and index generation, reference-counted
 *   2b. Saved graphs the graph and its ranks in a file beside the index (DB.map)
 *   3. Ranking       PageRank over the files in scope, personalised to a focus
 *   4. Rendering     the best files and definitions that fit the budget
 */
#include "search/repomap.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "index/refs.h"
#include "store/content.h"
#include "store/indexdb.h"
#include "util/buf.h"
#include "util/file.h"

#define DAMPING    0.85
#define ITERATIONS 60
#define EPSILON    1e-7  /* L1 change of the ranks that ends the iteration */
#define CACHE_SLOTS 4
#define STOP 0xff /* ncls of a stop word (index/refs.h): never followed */
#define MAX_FILE_TEXT (64u << 20)


/* ---- 1. The graph ----------------------------------------------------------------------------- */

/* PageRank's arrays for one graph (section 3): a graph keeps one spare set
 * for its next ranking. Tens of MB on a large repo: fresh ones cost more
 * page faults than the ranking itself. */
struct rank_work {
    uint32_t *dn;               /* per name: its definers in scope */
    float *wn;                  /* per use: its share of the file's rank */
    double *r, *nr, *nin, *tp;  /* per file: rank, next rank; per name: inflow; per file: teleport */
    uint8_t *dangling;          /* per file: uses no followed name */
};

static void work_free(struct rank_work *w)
{
    if (!w) return;
    free(w->dn);
    free(w->wn);
    free(w->r);
    free(w->nr);
    free(w->nin);
    free(w->tp);
    free(w->dangling);
    free(w);
}

struct graph {
    char path[4096];
    int64_t gen, at;            /* index_gen and indexed_at it was built from */
    int refs;                   /* holders (the cache is one); under cache_mu */
    size_t nf;                  /* files (nodes) */
    int64_t *fid;
    char **fpath, **flang;
    size_t nn;                  /* names defined somewhere */
    size_t nused;               /* the names some use follows: indexes 0 .. nused - 1 */
    uint32_t *nhash;
    uint8_t *ncls;              /* MG_REFS_* class, or STOP */
    uint32_t *doff, *dfile;     /* name n's definers: dfile[doff[n] .. doff[n + 1]), by file */
    uint64_t *lookup;           /* hash << 32 | name index, by hash (nn of them) */
    uint32_t *uoff, *uname;     /* file s's uses: uname[uoff[s] .. uoff[s + 1]), names followed */
    uint16_t *ucnt;             /* uses << 1 | strong (index/refs.h) */
    pthread_mutex_t mu;         /* rank0 */
    double *rank0, *nin0;       /* ranks and name inflow of the whole repo without focus; NULL: not yet */
    struct rank_work *spare;    /* under cache_mu; NULL: none */
    void *saved;                /* a saved graph's bytes (2b) that the arrays above point into; NULL: built */
    size_t mapped;              /* saved is the file mapped, of this length (0: malloc'd) */
};

static void graph_free(struct graph *g)
{
    if (!g) return;
    work_free(g->spare);
    if (g->saved) { /* only the path and language arrays are the graph's own */
        free(g->fpath);
        free(g->flang);
        if (g->mapped) munmap(g->saved, g->mapped);
        else free(g->saved);
        pthread_mutex_destroy(&g->mu);
        free(g);
        return;
    }
    for (size_t i = 0; i < g->nf; i++) {
        free(g->fpath[i]);
        free(g->flang[i]);
    }
    free(g->fid);
    free(g->fpath);
    free(g->flang);
    free(g->nhash);
    free(g->ncls);
    free(g->doff);
    free(g->dfile);
    free(g->lookup);
    free(g->uoff);
    free(g->uname);
    free(g->ucnt);
    free(g->rank0);
    free(g->nin0);
    pthread_mutex_destroy(&g->mu);
    free(g);
}

/* The index of name hash h, or -1 (a binary search: only a focus and the
 * rendered files look names up). */
static int64_t name_find(const struct graph *g, uint32_t h)
{
    size_t a = 0, b = g->nn;
    while (a < b) {
        size_t m = (a + b) / 2;
        uint32_t x = (uint32_t)(g->lookup[m] >> 32);
        if (x < h) a = m + 1;
        else if (x > h) b = m;
        else return (int64_t)(uint32_t)g->lookup[m];
    }
    return -1;
}

/* Sort v[0..n) by the high 32 bits, stably: an LSD radix sort in passes of
 * 11 bits (2,048 buckets stay in the cache; 65,536 missed it on every
 * write). The join of names and uses is then sequential, where a hash table
 * of millions of names missed the cache on every probe. */
static int sort_by_hash(uint64_t *v, size_t n)
{
    enum { BITS = 11, BUCKETS = 1 << BITS };
    uint64_t *t = malloc((n + 1) * sizeof(uint64_t));
    size_t *cnt = malloc(BUCKETS * sizeof(size_t));
    if (!t || !cnt) {
        free(t);
        free(cnt);
        return -1;
    }
    uint64_t *from = v, *to = t;
    int passes = 0;
    for (int shift = 32; shift < 64; shift += BITS, passes++) {
        memset(cnt, 0, BUCKETS * sizeof(size_t));
        for (size_t i = 0; i < n; i++) cnt[(from[i] >> shift) & (BUCKETS - 1)]++;
        size_t sum = 0;
        for (size_t k = 0; k < BUCKETS; k++) {
            size_t c = cnt[k];
            cnt[k] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++) to[cnt[(from[i] >> shift) & (BUCKETS - 1)]++] = from[i];
        uint64_t *x = from;
        from = to;
        to = x;
    }
    if (passes % 2) memcpy(v, from, n * sizeof(uint64_t)); /* three passes end in t */
    free(t);
    free(cnt);
    return 0;
}

/* What the rows give, before the join. */
struct build {
    size_t capf, nd, capd, nu, capu;
    uint64_t *d;                /* definitions: hash << 32 | class << 30 | file, in file order */
    uint64_t *u;                /* uses: hash << 32 | position, in file order */
    uint16_t *ucnt;             /* uses by position: count << 1 | strong */
    uint32_t *ufirst;           /* file i's uses: positions ufirst[i] .. ufirst[i + 1] */
};

#define FILES_MAX (1u << 30)

/* One row of refs: the file's node, its definitions and its uses. */
static int build_row(struct graph *g, struct build *b, const struct mg_idx_row *r)
{
    size_t i = g->nf;
    if (i + 1 >= FILES_MAX) return -1;
    /* four arrays in step, each with room for i + 1 (ufirst needs one more at the end) */
    size_t cap = b->capf;
    int64_t *fid = mg_grow(g->fid, i + 1, &cap, sizeof(int64_t));
    if (!fid) return -1;
    g->fid = fid;
    cap = b->capf;
    char **fp = mg_grow(g->fpath, i + 1, &cap, sizeof(char *));
    if (!fp) return -1;
    g->fpath = fp;
    cap = b->capf;
    char **fl = mg_grow(g->flang, i + 1, &cap, sizeof(char *));
    if (!fl) return -1;
    g->flang = fl;
    cap = b->capf;
    uint32_t *uf = mg_grow(b->ufirst, i + 1, &cap, sizeof(uint32_t));
    if (!uf) return -1;
    b->ufirst = uf;
    b->capf = cap;
    g->fid[i] = r->file_id;
    g->fpath[i] = strdup(r->path);
    g->flang[i] = strdup(r->lang);
    g->nf++;
    if (!g->fpath[i] || !g->flang[i]) return -1;
    struct mg_refs_iter it;
    mg_refs_iter_init(&it, r->defs, r->ndefs, false);
    uint32_t h, x;
    while (mg_refs_next(&it, &h, &x)) {
        uint64_t *d = mg_grow(b->d, b->nd, &b->capd, sizeof(uint64_t));
        if (!d) return -1;
        b->d = d;
        b->d[b->nd++] = (uint64_t)h << 32 | (uint64_t)(x & 3) << 30 | (uint64_t)i;
    }
    b->ufirst[i] = (uint32_t)b->nu;
    mg_refs_iter_init(&it, r->uses, r->nuses, true);
    while (mg_refs_next(&it, &h, &x)) {
        if (b->nu >= UINT32_MAX - 1) return -1;
        size_t cu = b->capu;
        uint64_t *u = mg_grow(b->u, b->nu, &cu, sizeof(uint64_t));
        if (!u) return -1;
        b->u = u;
        cu = b->capu;
        uint16_t *c = mg_grow(b->ucnt, b->nu, &cu, sizeof(uint16_t));
        if (!c) return -1;
        b->ucnt = c;
        b->capu = cu;
        b->u[b->nu] = (uint64_t)h << 32 | (uint64_t)b->nu;
        b->ucnt[b->nu++] = (uint16_t)x;
    }
    return 0;
}

/* The graph from the rows gathered in b: names are the distinct definition
 * hashes; a use is joined to its name by walking both sorted by hash. Names
 * some use follows come first (PageRank walks only them). */
static int graph_join(struct graph *g, struct build *b)
{
    size_t nf = g->nf;
    b->ufirst[nf] = (uint32_t)b->nu;
    if (sort_by_hash(b->d, b->nd) != 0 || sort_by_hash(b->u, b->nu) != 0) return -1;
    /* names in hash order (temporary numbering k), their definers and classes */
    size_t nn = 0;
    for (size_t i = 0; i < b->nd; i++) nn += i == 0 || (b->d[i] >> 32) != (b->d[i - 1] >> 32);
    uint32_t *kdoff = malloc((nn + 1) * sizeof(uint32_t)), *kfile = malloc((b->nd + 1) * sizeof(uint32_t));
    uint32_t *khash = malloc((nn + 1) * sizeof(uint32_t)), *kuses = calloc(nn + 1, sizeof(uint32_t));
    uint8_t *kcls = malloc(nn + 1);
    uint32_t *uname = malloc((b->nu + 1) * sizeof(uint32_t)); /* by position: k + 1, 0: no name */
    int rc = -1;
    if (!kdoff || !kfile || !khash || !kuses || !kcls || !uname) goto out;
    size_t k = 0;
    for (size_t i = 0; i < b->nd; i++) {
        uint32_t h = (uint32_t)(b->d[i] >> 32), f = (uint32_t)(b->d[i] & (FILES_MAX - 1));
        if (i == 0 || h != khash[k - 1]) {
            khash[k] = h;
            kcls[k] = (uint8_t)((b->d[i] >> 30) & 3);
            kdoff[k++] = (uint32_t)i;
        }
        kfile[i] = f;
    }
    kdoff[nn] = (uint32_t)b->nd;
    /* stop words are no names to follow (index/refs.h): a definition named `defined` is no hub */
    for (size_t w = 0; mg_refs_stopwords[w]; w++) {
        uint32_t h = mg_refs_hash(mg_refs_stopwords[w], strlen(mg_refs_stopwords[w]));
        size_t lo = 0, hi = nn;
        while (lo < hi) {
            size_t m = (lo + hi) / 2;
            if (khash[m] < h) lo = m + 1;
            else hi = m;
        }
        if (lo < nn && khash[lo] == h) kcls[lo] = STOP;
    }
    /* the join: uses (by hash) against names (by hash) */
    memset(uname, 0, (b->nu + 1) * sizeof(uint32_t));
    for (size_t i = 0, j = 0; i < b->nu; i++) {
        uint32_t h = (uint32_t)(b->u[i] >> 32);
        while (j < nn && khash[j] < h) j++;
        if (j == nn) break;
        if (khash[j] != h || kcls[j] == STOP || kdoff[j + 1] - kdoff[j] > MG_REPOMAP_DEFINERS_MAX) continue;
        uname[(uint32_t)b->u[i]] = (uint32_t)j + 1;
        kuses[j]++;
    }
    /* final numbering: followed names first */
    uint32_t *order = kuses; /* reused: k -> final index */
    size_t nused = 0, next;
    for (size_t j = 0; j < nn; j++) nused += kuses[j] > 0;
    next = nused;
    size_t front = 0;
    for (size_t j = 0; j < nn; j++) order[j] = kuses[j] > 0 ? (uint32_t)front++ : (uint32_t)next++;
    g->nn = nn;
    g->nused = nused;
    g->nhash = malloc((nn + 1) * sizeof(uint32_t));
    g->ncls = malloc(nn + 1);
    g->doff = malloc((nn + 2) * sizeof(uint32_t));
    g->dfile = malloc((b->nd + 1) * sizeof(uint32_t));
    g->lookup = malloc((nn + 1) * sizeof(uint64_t));
    g->uoff = malloc((nf + 1) * sizeof(uint32_t));
    if (!g->nhash || !g->ncls || !g->doff || !g->dfile || !g->lookup || !g->uoff) goto out;
    uint32_t *len = (uint32_t *)g->doff; /* lengths by final index first, then offsets */
    for (size_t j = 0; j < nn; j++) {
        uint32_t n = order[j];
        g->nhash[n] = khash[j];
        g->ncls[n] = kcls[j];
        g->lookup[j] = (uint64_t)khash[j] << 32 | n;
        len[n + 1] = kdoff[j + 1] - kdoff[j];
    }
    len[0] = 0;
    for (size_t n = 0; n < nn; n++) g->doff[n + 1] += g->doff[n];
    for (size_t j = 0; j < nn; j++)
        memcpy(g->dfile + g->doff[order[j]], kfile + kdoff[j], (kdoff[j + 1] - kdoff[j]) * sizeof(uint32_t));
    /* uses in file order, only those joined */
    size_t nu = 0;
    for (size_t i = 0; i < b->nu; i++) nu += uname[i] != 0;
    g->uname = malloc((nu + 1) * sizeof(uint32_t));
    g->ucnt = malloc((nu + 1) * sizeof(uint16_t));
    if (!g->uname || !g->ucnt) goto out;
    size_t o = 0;
    for (size_t s = 0; s < nf; s++) {
        g->uoff[s] = (uint32_t)o;
        for (uint32_t p = b->ufirst[s]; p < b->ufirst[s + 1]; p++)
            if (uname[p]) {
                g->uname[o] = order[uname[p] - 1];
                g->ucnt[o++] = b->ucnt[p];
            }
    }
    g->uoff[nf] = (uint32_t)o;
    rc = 0;
out:
    free(kdoff);
    free(kfile);
    free(khash);
    free(kuses);
    free(kcls);
    free(uname);
    return rc;
}

static int graph_build(struct mg_db *d, struct graph **out, struct mg_err *err)
{
    *out = NULL;
    struct graph *g = calloc(1, sizeof(*g));
    if (!g) return mg_err_oom(err);
    pthread_mutex_init(&g->mu, NULL);
    struct build b = {0};
    struct mg_idx_cur st = {0};
    struct mg_idx_row row;
    int rc = -1;
    if (mg_idx_refs_all(d, &st, err) != 0) goto out;
    /* room for every entry at once (a varint is a byte at least, a use two):
     * growing arrays of millions by copies cost more than the join */
    uint64_t nrows, ndefs, nuses;
    if (mg_idx_refs_size(d, &nrows, &ndefs, &nuses, err) != 0) goto out;
    b.capf = (size_t)nrows + 1; /* room for ufirst[nf] of an empty index too */
    b.capd = (size_t)ndefs + 1;
    b.capu = (size_t)nuses / 2 + 1;
    g->fid = malloc(b.capf * sizeof(int64_t));
    g->fpath = malloc(b.capf * sizeof(char *));
    g->flang = malloc(b.capf * sizeof(char *));
    b.ufirst = malloc(b.capf * sizeof(uint32_t));
    b.d = malloc(b.capd * sizeof(uint64_t));
    b.u = malloc(b.capu * sizeof(uint64_t));
    b.ucnt = malloc(b.capu * sizeof(uint16_t));
    if (!g->fid || !g->fpath || !g->flang || !b.ufirst || !b.d || !b.u || !b.ucnt) goto nomem;
    int s;
    while ((s = mg_idx_next(&st, &row)) > 0)
        if (build_row(g, &b, &row) != 0) goto nomem;
    if (s != 0) {
        mg_db_error(d, "read the names of the index", err);
        goto out;
    }
    if (graph_join(g, &b) != 0) goto nomem;
    rc = 0;
    goto out;
nomem:
    mg_err_oom(err);
out:
    mg_idx_done(&st);
    free(b.d);
    free(b.u);
    free(b.ucnt);
    free(b.ufirst);
    if (rc == 0) *out = g;
    else graph_free(g);
    return rc;
}

/* ---- 2. The cache ----------------------------------------------------------------------------- */

static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;
static struct graph *cache[CACHE_SLOTS]; /* most recent first */

static void graph_put(struct graph *g)
{
    if (!g) return;
    pthread_mutex_lock(&cache_mu);
    bool last = --g->refs == 0;
    pthread_mutex_unlock(&cache_mu);
    if (last) graph_free(g);
}

void mg_repomap_cache_clear(void)
{
    pthread_mutex_lock(&cache_mu);
    struct graph *gone[CACHE_SLOTS];
    for (int i = 0; i < CACHE_SLOTS; i++) {
        gone[i] = cache[i];
        cache[i] = NULL;
    }
    pthread_mutex_unlock(&cache_mu);
    for (int i = 0; i < CACHE_SLOTS; i++) graph_put(gone[i]);
}

/* Put g (one reference for the cache) first in the cache, in place of its
 * repo's older graph, or of the least recent. */
static void graph_cache(struct graph *g)
{
    struct graph *old = NULL;
    pthread_mutex_lock(&cache_mu);
    for (int i = 0; i < CACHE_SLOTS; i++) /* the same repo's older graph goes first */
        if (cache[i] && strcmp(cache[i]->path, g->path) == 0) {
            old = cache[i];
            memmove(cache + i, cache + i + 1, (size_t)(CACHE_SLOTS - 1 - i) * sizeof(*cache));
            cache[CACHE_SLOTS - 1] = NULL;
            break;
        }
    if (!old) old = cache[CACHE_SLOTS - 1];
    memmove(cache + 1, cache, (CACHE_SLOTS - 1) * sizeof(*cache));
    cache[0] = g;
    pthread_mutex_unlock(&cache_mu);
    graph_put(old);
}

/* ---- 2b. Saved graphs ------------------------------------------------------------------------- */

/* A full index run saves its graph, with the ranks of the whole repo, beside
 * the index: a server's (or `memgate repo-map`'s) first map reads it instead
 * of building (a read of tens of MB, where building takes seconds on a large
 * repo). The file is a cache: written to a temporary name, synced and
 * renamed; a file that is missing, damaged or of another generation is
 * ignored or answered as stale. Layout, in the writer's byte order, every
 * section starting at a multiple of 8 bytes:
 *     struct saved_head
 *     fid[nf] int64, paths and languages (strbytes: "path\0lang\0" per file),
 *     nhash[nn] u32, ncls[nn] u8, doff[nn + 1] u32, dfile[nd] u32,
 *     lookup[nn] u64, uoff[nf + 1] u32, uname[nu] u32, ucnt[nu] u16,
 *     rank0[nf] double, nin0[nn] double */

#define SAVED_MAGIC   "MGRMAP\r\n"
#define SAVED_VERSION 1
#define SAVED_ORDER   0x01020304u
#define SAVED_MAX     ((uint64_t)4 << 30)

struct saved_head {
    char magic[8];
    uint32_t version, order;
    int64_t gen, at;
    uint64_t nf, nn, nused, nd, nu, strbytes;
};

struct rank_in {
    const uint8_t *allowed;    /* per file; NULL: all */
    const double *teleport;    /* per file, sums to 1 over allowed files; NULL: uniform */
    const uint8_t *focus_name; /* per name: a focus symbol; NULL: none */
};

static int rank_whole(struct graph *g, struct mg_err *err);
static struct rank_work *work_get(struct graph *g, struct mg_err *err);
static void work_put(struct graph *g, struct rank_work *w);
static void pagerank(const struct graph *g, const struct rank_in *in, struct rank_work *w);

static uint64_t pad8(uint64_t n) { return (n + 7) & ~(uint64_t)7; }

static void saved_path(const char *dbpath, char *out, size_t cap) { snprintf(out, cap, "%s.map", dbpath); }

static int damaged(const char *why, struct mg_err *err)
{
    return mg_err_set(err, MG_E_IO, "the saved repo map graph is damaged (%s); the next map builds it again", why);
}

/* The graph in the saved bytes b[0 .. len), which it takes (released on
 * failure; mapped: b is the file mapped, else malloc'd): every count
 * checked against len, every index against its array, the ranks finite. */
static int graph_parse(void *b, size_t len, bool mapped, struct graph **out, struct mg_err *err)
{
    *out = NULL;
    struct saved_head h;
    struct graph *g = NULL;
    if (len < sizeof(h)) {
        if (mapped) munmap(b, len);
        else free(b);
        return damaged("too short", err);
    }
    memcpy(&h, b, sizeof(h));
    const char *why = NULL;
    if (memcmp(h.magic, SAVED_MAGIC, 8) != 0) why = "not a repo map graph";
    else if (h.version != SAVED_VERSION || h.order != SAVED_ORDER) why = "another version or byte order";
    else if (h.nf >= FILES_MAX || h.nn >= UINT32_MAX - 2 || h.nd >= UINT32_MAX - 2 || h.nu >= UINT32_MAX - 2 ||
             h.nused > h.nn || h.strbytes > SAVED_MAX)
        why = "counts out of range";
    uint64_t off[13];
    if (!why) { /* section offsets: each count < 2^32, so no sum overflows */
        const uint64_t size[12] = {h.nf * 8, h.strbytes, h.nn * 4, h.nn, (h.nn + 1) * 4, h.nd * 4, h.nn * 8,
                                   (h.nf + 1) * 4, h.nu * 4, h.nu * 2, h.nf * 8, h.nn * 8};
        off[0] = pad8(sizeof(h));
        for (int i = 0; i < 12; i++) off[i + 1] = pad8(off[i] + size[i]);
        if (off[12] != len) why = "its size does not match its counts";
    }
    if (why || !(g = calloc(1, sizeof(*g)))) {
        if (mapped) munmap(b, len);
        else free(b);
        return why ? damaged(why, err) : mg_err_oom(err);
    }
    pthread_mutex_init(&g->mu, NULL);
    g->saved = b;
    g->mapped = mapped ? len : 0;
    char *p = b;
    g->gen = h.gen;
    g->at = h.at;
    g->nf = h.nf;
    g->nn = h.nn;
    g->nused = h.nused;
    g->fid = (int64_t *)(p + off[0]);
    g->nhash = (uint32_t *)(p + off[2]);
    g->ncls = (uint8_t *)(p + off[3]);
    g->doff = (uint32_t *)(p + off[4]);
    g->dfile = (uint32_t *)(p + off[5]);
    g->lookup = (uint64_t *)(p + off[6]);
    g->uoff = (uint32_t *)(p + off[7]);
    g->uname = (uint32_t *)(p + off[8]);
    g->ucnt = (uint16_t *)(p + off[9]);
    g->rank0 = (double *)(p + off[10]);
    g->nin0 = (double *)(p + off[11]);
    g->fpath = malloc((h.nf + 1) * sizeof(char *));
    g->flang = malloc((h.nf + 1) * sizeof(char *));
    if (!g->fpath || !g->flang) {
        graph_free(g);
        return mg_err_oom(err);
    }
    /* the strings: exactly two per file, each ended */
    char *s = p + off[1], *end = s + h.strbytes;
    for (size_t i = 0; i < 2 * h.nf && !why; i++) {
        char *z = s < end ? memchr(s, 0, (size_t)(end - s)) : NULL;
        if (!z) why = "a path or language is cut";
        else {
            if (i % 2) g->flang[i / 2] = s;
            else g->fpath[i / 2] = s;
            s = z + 1;
        }
    }
    if (!why && s != end) why = "bytes after the last path";
    for (size_t n = 0; n < h.nn && !why; n++) {
        if (g->ncls[n] > 3 && g->ncls[n] != STOP) why = "a name's class";
        if (g->doff[n] > g->doff[n + 1]) why = "a name's definers";
        if ((uint32_t)g->lookup[n] >= h.nn || (n && g->lookup[n] >> 32 < g->lookup[n - 1] >> 32))
            why = "the name lookup";
        if (!(isfinite(g->nin0[n]) && g->nin0[n] >= 0)) why = "a name's rank";
    }
    if (!why && (g->doff[0] != 0 || g->doff[h.nn] != h.nd)) why = "the definers' ends";
    for (size_t k = 0; k < h.nd && !why; k++)
        if (g->dfile[k] >= h.nf) why = "a definer's file";
    for (size_t f = 0; f < h.nf && !why; f++) {
        if (g->uoff[f] > g->uoff[f + 1]) why = "a file's uses";
        if (!(isfinite(g->rank0[f]) && g->rank0[f] >= 0)) why = "a file's rank";
    }
    if (!why && (g->uoff[0] != 0 || g->uoff[h.nf] != h.nu)) why = "the uses' ends";
    for (size_t u = 0; u < h.nu && !why; u++)
        if (g->uname[u] >= h.nused) why = "a use's name";
    if (why) {
        graph_free(g);
        return damaged(why, err);
    }
    *out = g;
    return 0;
}

/* The graph saved beside the index at dbpath, mapped (read-only: the file
 * is replaced by rename, never written in place): 0 and *out (one
 * reference, not cached), or -1 when there is none or it is damaged. */
static int graph_load(const char *dbpath, struct graph **out, struct mg_err *err)
{
    char path[4200];
    saved_path(dbpath, path, sizeof(path));
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return mg_err_set(err, MG_E_IO, "cannot open '%s': %s", path, strerror(errno));
    struct stat sb;
    void *b = MAP_FAILED;
    if (fstat(fd, &sb) == 0 && (uint64_t)sb.st_size <= SAVED_MAX && sb.st_size >= (off_t)sizeof(struct saved_head))
        b = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (b == MAP_FAILED) return damaged("its size", err);
    madvise(b, (size_t)sb.st_size, MADV_WILLNEED);
    if (graph_parse(b, (size_t)sb.st_size, true, out, err) != 0) return -1;
    snprintf((*out)->path, sizeof((*out)->path), "%s", dbpath);
    (*out)->refs = 1;
    return 0;
}

/* Whether the saved graph beside dbpath is of generation (gen, at), by its
 * header alone: an index run that changed the index need not map and check
 * the old file (90 MB for Linux) to learn that it is stale. */
static bool saved_is(const char *dbpath, int64_t gen, int64_t at)
{
    char path[4200];
    saved_path(dbpath, path, sizeof(path));
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    struct saved_head h;
    bool same = pread(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h) && memcmp(h.magic, SAVED_MAGIC, 8) == 0 &&
                h.gen == gen && h.at == at;
    close(fd);
    return same;
}

/* The zeros after a section of n bytes. */
static int write_pad(FILE *f, uint64_t n)
{
    static const char zero[8];
    return pad8(n) > n && fwrite(zero, 1, pad8(n) - n, f) != pad8(n) - n ? -1 : 0;
}

static int write_all(FILE *f, const void *p, uint64_t n)
{
    return (n && fwrite(p, 1, n, f) != n) || write_pad(f, n) ? -1 : 0;
}

/* g's sections into f (an mg_file_writer). */
static int write_graph(FILE *f, void *arg)
{
    const struct graph *g = arg;
    struct saved_head h = {.version = SAVED_VERSION, .order = SAVED_ORDER, .gen = g->gen, .at = g->at,
                           .nf = g->nf, .nn = g->nn, .nused = g->nused, .nd = g->doff[g->nn],
                           .nu = g->uoff[g->nf]};
    memcpy(h.magic, SAVED_MAGIC, 8);
    for (size_t i = 0; i < g->nf; i++) h.strbytes += strlen(g->fpath[i]) + strlen(g->flang[i]) + 2;
    int bad = write_all(f, &h, sizeof(h)) || write_all(f, g->fid, h.nf * 8);
    for (size_t i = 0; i < g->nf && !bad; i++)
        bad = fwrite(g->fpath[i], 1, strlen(g->fpath[i]) + 1, f) != strlen(g->fpath[i]) + 1 ||
              fwrite(g->flang[i], 1, strlen(g->flang[i]) + 1, f) != strlen(g->flang[i]) + 1;
    return bad || write_pad(f, h.strbytes) || write_all(f, g->nhash, h.nn * 4) || write_all(f, g->ncls, h.nn) ||
                   write_all(f, g->doff, (h.nn + 1) * 4) || write_all(f, g->dfile, h.nd * 4) ||
                   write_all(f, g->lookup, h.nn * 8) || write_all(f, g->uoff, (h.nf + 1) * 4) ||
                   write_all(f, g->uname, h.nu * 4) || write_all(f, g->ucnt, h.nu * 2) ||
                   write_all(f, g->rank0, h.nf * 8) || write_all(f, g->nin0, h.nn * 8)
               ? -1
               : 0;
}

/* Save g (with its ranks) beside the index at g->path, whole or not at all. */
static int graph_save(const struct graph *g, struct mg_err *err)
{
    char path[4200];
    saved_path(g->path, path, sizeof(path));
    return mg_file_replace(path, write_graph, (void *)g, err);
}

int mg_repomap_saved_check(const void *data, size_t len, struct mg_err *err)
{
    void *b = malloc(len ? len : 1);
    if (!b) return mg_err_oom(err);
    memcpy(b, data, len);
    struct graph *g;
    if (graph_parse(b, len, false, &g, err) != 0) return -1;
    struct rank_work *w = work_get(g, err); /* what a map does with it: rank, look names up */
    int rc = w ? 0 : -1;
    if (w) pagerank(g, &(struct rank_in){0}, w);
    work_put(g, w);
    for (size_t n = 0; n < g->nn && rc == 0; n++)
        if (name_find(g, g->nhash[n]) < 0) rc = damaged("a name missing from the lookup", err);
    graph_free(g);
    return rc;
}

/* Rank g (a graph no one else holds yet) for the whole repo and save it
 * beside its index. */
static int graph_save_ranked(struct graph *g, struct mg_err *err)
{
    if (rank_whole(g, err) != 0) return -1;
    return graph_save(g, err);
}

/* The graph of the index at path as it is now, on a connection of its own:
 * the saved one when it is current, else built, ranked and saved (-1 when
 * saving fails, the graph cached all the same); cached. */
static int graph_build_at(const char *path, struct mg_err *err)
{
    struct mg_db *d = NULL;
    if (mg_db_open(path, MG_DB_READONLY, &d, err) != 0) return -1;
    int rc = mg_db_begin_read(d, err);
    struct graph *g = NULL;
    bool saved = false;
    if (rc == 0) {
        int64_t gen = mg_db_meta_int(d, "index_gen", 0), at = mg_db_meta_int(d, "indexed_at", 0);
        struct mg_err ignored = {0};
        if (saved_is(path, gen, at) && graph_load(path, &g, &ignored) == 0 && g->gen == gen && g->at == at) {
            saved = true; /* another process saved it (a full index run) */
        } else {
            graph_put(g);
            g = NULL;
            rc = graph_build(d, &g, err);
        }
        if (rc == 0) {
            snprintf(g->path, sizeof(g->path), "%s", path);
            g->gen = gen;
            g->at = at;
            g->refs = 1; /* the cache's */
        }
        mg_db_commit(d, NULL);
    }
    mg_db_close(&d);
    if (rc != 0) return -1;
    if (!saved) rc = graph_save_ranked(g, err);
    graph_cache(g);
    return rc;
}

int mg_repomap_save(const char *dbpath, struct mg_err *err) { return graph_build_at(dbpath, err); }

/* Rebuilds under way in the background, by database path (under cache_mu). */
static char rebuilding[CACHE_SLOTS][4096];

static void *rebuild_main(void *arg)
{
    char *path = arg;
    struct mg_err err = {0};
    graph_build_at(path, &err); /* a failure leaves the old graph; the next call tries again */
    pthread_mutex_lock(&cache_mu);
    for (int i = 0; i < CACHE_SLOTS; i++)
        if (strcmp(rebuilding[i], path) == 0) rebuilding[i][0] = 0;
    pthread_mutex_unlock(&cache_mu);
    free(path);
    return NULL;
}

/* Start rebuilding the graph of path in the background, unless that is under
 * way already (or too many are). Called with cache_mu held. */
static void rebuild_locked(const char *path)
{
    int free_slot = -1;
    for (int i = 0; i < CACHE_SLOTS; i++) {
        if (strcmp(rebuilding[i], path) == 0) return;
        if (!rebuilding[i][0] && free_slot < 0) free_slot = i;
    }
    char *p = free_slot >= 0 ? strdup(path) : NULL;
    if (!p) return;
    pthread_t t;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &at, rebuild_main, p) == 0) snprintf(rebuilding[free_slot], sizeof(rebuilding[0]), "%s", p);
    else free(p);
    pthread_attr_destroy(&at);
}

/* The graph of d's index at (gen, at): cached, saved beside the index, or
 * built and cached. When only an older generation's graph of the same index
 * is cached or saved and stale_ok, that one is returned at once (*stale) and
 * the current one is built (and saved) in the background for the next
 * call. The caller holds a reference (graph_put). */
static int graph_get(struct mg_db *d, int64_t gen, int64_t at, bool stale_ok, struct graph **out, bool *cached,
                     bool *stale, struct mg_err *err)
{
    *stale = false;
    for (int pass = 0; pass < 2; pass++) {
        pthread_mutex_lock(&cache_mu);
        struct graph *older = NULL;
        for (int i = 0; i < CACHE_SLOTS; i++) {
            struct graph *g = cache[i];
            if (!g || strcmp(g->path, d->path) != 0) continue;
            if (g->gen == gen && g->at == at) {
                g->refs++;
                memmove(cache + 1, cache, (size_t)i * sizeof(*cache));
                cache[0] = g;
                pthread_mutex_unlock(&cache_mu);
                *out = g;
                *cached = true;
                return 0;
            }
            older = g;
        }
        if (older && stale_ok && older->gen < gen) {
            older->refs++;
            rebuild_locked(d->path);
            pthread_mutex_unlock(&cache_mu);
            *out = older;
            *cached = *stale = true;
            return 0;
        }
        pthread_mutex_unlock(&cache_mu);
        if (pass || (older && stale_ok)) break;
        /* the saved graph, when it is this generation's (or, stale_ok and nothing cached, an older one's) */
        struct graph *g = NULL;
        struct mg_err ignored = {0};
        if (graph_load(d->path, &g, &ignored) != 0) break;
        if (!(g->gen == gen && g->at == at) && !(stale_ok && g->gen < gen)) {
            graph_put(g);
            break;
        }
        graph_cache(g);
    }
    *cached = false;
    /* built outside the lock: two requests may build the same graph; the later one is cached */
    struct graph *g;
    if (graph_build(d, &g, err) != 0) return -1;
    snprintf(g->path, sizeof(g->path), "%s", d->path);
    g->gen = gen;
    g->at = at;
    g->refs = 2; /* the cache's and the caller's */
    struct mg_err ignored = {0};
    graph_save_ranked(g, &ignored); /* the next process reads it (a failure costs it the build) */
    graph_cache(g);
    *out = g;
    return 0;
}

/* ---- 3. Ranking ------------------------------------------------------------------------------- */


static double class_weight(uint8_t cls)
{
    return cls == MG_REFS_SPECIFIC ? 10.0 : cls == MG_REFS_PRIVATE ? 0.1 : 1.0;
}

/* A set of PageRank's arrays for g: its spare, or new. */
static struct rank_work *work_get(struct graph *g, struct mg_err *err)
{
    pthread_mutex_lock(&cache_mu);
    struct rank_work *w = g->spare;
    g->spare = NULL;
    pthread_mutex_unlock(&cache_mu);
    if (w) return w;
    size_t nf = g->nf + 1, nn = g->nn + 1, nu = g->uoff[g->nf] + 1;
    if (!(w = calloc(1, sizeof(*w))) || !(w->dn = calloc(nn, sizeof(uint32_t))) ||
        !(w->wn = malloc(nu * sizeof(float))) || !(w->r = malloc(nf * sizeof(double))) ||
        !(w->nr = malloc(nf * sizeof(double))) || !(w->nin = calloc(nn, sizeof(double))) ||
        !(w->tp = malloc(nf * sizeof(double))) || !(w->dangling = calloc(nf, 1))) {
        work_free(w);
        mg_err_oom(err);
        return NULL;
    }
    return w;
}

/* Give w back as g's spare (or free it: g has one). */
static void work_put(struct graph *g, struct rank_work *w)
{
    pthread_mutex_lock(&cache_mu);
    if (!g->spare) {
        g->spare = w;
        w = NULL;
    }
    pthread_mutex_unlock(&cache_mu);
    work_free(w);
}

/* PageRank over g within in, into w: w->r the rank per file, w->nin per name
 * the rank flowing into it, per definer (0 beyond g->nused, as w came). */
static void pagerank(const struct graph *g, const struct rank_in *in, struct rank_work *w)
{
    size_t nf = g->nf, nused = g->nused; /* only names 0 .. nused - 1 get rank */
    uint32_t *dn = w->dn;
    float *wn = w->wn;
    double *r = w->r, *nr = w->nr, *nin = w->nin, *tp = w->tp;
    uint8_t *dangling = w->dangling;
    size_t nallowed = 0;
    for (size_t s = 0; s < nf; s++) nallowed += !in->allowed || in->allowed[s];
    for (size_t n = 0; n < nused; n++) {
        uint32_t c = 0;
        for (uint32_t k = g->doff[n]; k < g->doff[n + 1]; k++) c += !in->allowed || in->allowed[g->dfile[k]];
        dn[n] = c;
    }
    for (size_t s = 0; s < nf; s++) {
        bool ok = !in->allowed || in->allowed[s];
        tp[s] = !ok ? 0 : in->teleport ? in->teleport[s] : 1.0 / (double)(nallowed ? nallowed : 1);
        r[s] = ok ? 1.0 / (double)nallowed : 0;
        double sum = 0;
        for (uint32_t u = g->uoff[s]; u < g->uoff[s + 1]; u++) {
            uint32_t n = g->uname[u];
            double x = 0;
            if (ok && dn[n]) {
                x = class_weight(g->ncls[n]) * sqrt((double)(g->ucnt[u] >> 1));
                if (!(g->ucnt[u] & 1) && g->ncls[n] != MG_REFS_SPECIFIC) x = 0; /* a local's name, likely */
                if (in->focus_name && in->focus_name[n]) x *= 10.0;
            }
            wn[u] = (float)x;
            sum += x;
        }
        for (uint32_t u = g->uoff[s]; u < g->uoff[s + 1]; u++) wn[u] = sum > 0 ? (float)(wn[u] / sum) : 0.0f;
        dangling[s] = ok && sum <= 0;
    }
    for (int iter = 0; iter <= ITERATIONS; iter++) {
        memset(nin, 0, nused * sizeof(double));
        double lost = 0; /* rank of files that use no followed name: spread like the teleport */
        for (size_t s = 0; s < nf; s++) {
            if (dangling[s]) {
                lost += r[s];
                continue;
            }
            double rs = r[s];
            if (rs == 0) continue;
            for (uint32_t u = g->uoff[s]; u < g->uoff[s + 1]; u++) nin[g->uname[u]] += rs * wn[u];
        }
        if (iter == ITERATIONS) break; /* nin of the final ranks */
        memset(nr, 0, nf * sizeof(double));
        for (size_t n = 0; n < nused; n++) {
            if (nin[n] == 0) continue;
            double share = nin[n] / dn[n];
            for (uint32_t k = g->doff[n]; k < g->doff[n + 1]; k++) {
                uint32_t f = g->dfile[k];
                if (!in->allowed || in->allowed[f]) nr[f] += share;
            }
        }
        /* the rank of dangling files goes to every file alike, the teleport to the focus: with the teleport,
         * a focus that uses nothing would keep all the rank to itself */
        double diff = 0, spread = nallowed ? DAMPING * lost / (double)nallowed : 0;
        for (size_t s = 0; s < nf; s++) {
            bool ok = !in->allowed || in->allowed[s];
            double v = ok ? DAMPING * nr[s] + spread + (1 - DAMPING) * tp[s] : 0;
            diff += fabs(v - r[s]);
            r[s] = v;
        }
        if (diff < EPSILON) iter = ITERATIONS - 1; /* one more pass for nin */
    }
    for (size_t n = 0; n < nused; n++) nin[n] = dn[n] ? nin[n] / dn[n] : 0; /* per definer */
}

/* g's ranks of the whole repo without focus (rank0, nin0), once. */
static int rank_whole(struct graph *g, struct mg_err *err)
{
    if (g->rank0) return 0;
    struct rank_work *w = work_get(g, err);
    if (!w) return -1;
    pagerank(g, &(struct rank_in){0}, w);
    g->rank0 = malloc((g->nf + 1) * sizeof(double));
    g->nin0 = malloc((g->nn + 1) * sizeof(double));
    if (!g->rank0 || !g->nin0) {
        free(g->rank0);
        free(g->nin0);
        g->rank0 = g->nin0 = NULL;
        work_put(g, w);
        return mg_err_oom(err);
    }
    memcpy(g->rank0, w->r, (g->nf + 1) * sizeof(double));
    memcpy(g->nin0, w->nin, (g->nn + 1) * sizeof(double));
    work_put(g, w);
    return 0;
}

/* ---- 4. Rendering ----------------------------------------------------------------------------- */

struct cand {
    char *name, *kind;
    int line, end_line;
    double score;
};

static int cmp_score(const void *a, const void *b)
{
    const struct cand *x = a, *y = b;
    if (x->score != y->score) return x->score > y->score ? -1 : 1;
    return x->line - y->line;
}

static int cmp_line(const void *a, const void *b)
{
    return ((const struct mg_repomap_def *)a)->line - ((const struct mg_repomap_def *)b)->line;
}

/* Line `line` of text, trimmed, at most MG_REPOMAP_LINE_MAX bytes (cut at a
 * character boundary). */
static char *line_of(const char *text, size_t len, int line)
{
    size_t i = 0;
    for (int l = 1; l < line && i < len; i++)
        if (text[i] == '\n') l++;
    size_t e = i;
    while (e < len && text[e] != '\n') e++;
    while (i < e && (text[i] == ' ' || text[i] == '\t')) i++;
    while (e > i && (text[e - 1] == ' ' || text[e - 1] == '\t' || text[e - 1] == '\r')) e--;
    if (e - i > MG_REPOMAP_LINE_MAX) {
        e = i + MG_REPOMAP_LINE_MAX;
        while (e > i && ((unsigned char)text[e] & 0xC0) == 0x80) e--;
    }
    return strndup(text + i, e - i);
}

/* File node s's best definitions into fo (scored by nin). */
static int file_defs(struct mg_db *d, const struct graph *g, const double *nin, size_t s, struct mg_repomap_file *fo,
                     struct mg_err *err)
{
    struct mg_idx_cur st;
    struct mg_idx_row row;
    struct cand *c = NULL;
    size_t n = 0, cap = 0;
    char *text = NULL;
    size_t len = 0;
    int rc = -1;
    if (mg_idx_file_defs(d, g->fid[s], &st, err) != 0) return -1;
    int r;
    while ((r = mg_idx_next(&st, &row)) > 0) {
        const char *name = row.name, *kind = row.kind;
        if (!text && row.size <= MAX_FILE_TEXT && mg_idx_text(&row, (size_t)row.size, &text, &len) != 0) text = NULL;
        if (!name || !kind || !mg_refs_definer(kind)) continue;
        int64_t k = name_find(g, mg_refs_hash(name, strlen(name)));
        double sc = k >= 0 ? nin[k] : 0;
        if (sc <= 0) continue;
        bool dup = false;
        for (size_t i = 0; i < n && !dup; i++) dup = strcmp(c[i].name, name) == 0;
        if (dup) continue;
        struct cand *p = mg_grow(c, n, &cap, sizeof(*c));
        if (!p) goto nomem;
        c = p;
        c[n] = (struct cand){strdup(name), strdup(kind), row.start_line, row.end_line, sc};
        if (!c[n].name || !c[n].kind) {
            n++;
            goto nomem;
        }
        n++;
    }
    if (r != 0) {
        mg_db_error(d, "read definitions", err);
        goto out;
    }
    if (n > 1) qsort(c, n, sizeof(*c), cmp_score);
    size_t keep = n < MG_REPOMAP_DEFS_PER_FILE ? n : MG_REPOMAP_DEFS_PER_FILE;
    fo->defs = calloc(keep + 1, sizeof(*fo->defs));
    if (!fo->defs) goto nomem;
    for (size_t i = 0; i < keep; i++) {
        struct mg_repomap_def *df = &fo->defs[fo->ndefs++];
        df->name = c[i].name;
        df->kind = c[i].kind;
        c[i].name = c[i].kind = NULL;
        df->line = c[i].line;
        df->end_line = c[i].end_line;
        df->score = c[i].score;
        df->text = text ? line_of(text, len, df->line) : NULL;
        if (text && !df->text) goto nomem;
    }
    qsort(fo->defs, fo->ndefs, sizeof(*fo->defs), cmp_line);
    rc = 0;
    goto out;
nomem:
    mg_err_oom(err);
out:
    for (size_t i = 0; i < n; i++) {
        free(c[i].name);
        free(c[i].kind);
    }
    free(c);
    free(text);
    mg_idx_done(&st);
    return rc;
}

static void file_release(struct mg_repomap_file *f)
{
    for (size_t i = 0; i < f->ndefs; i++) {
        free(f->defs[i].name);
        free(f->defs[i].kind);
        free(f->defs[i].text);
    }
    free(f->defs);
    free(f->path);
    free(f->lang);
    memset(f, 0, sizeof(*f));
}

/* The lines of fo that fit in room bytes appended to buf (a file with no
 * definition that fits is not rendered): bytes used, 0 when none fit. */
static size_t render_file(struct mg_repomap_file *fo, char *buf, size_t room)
{
    size_t used = (size_t)snprintf(buf, room, "%s\n", fo->path);
    if (used >= room) return 0;
    size_t kept = 0;
    for (size_t i = 0; i < fo->ndefs; i++) {
        const struct mg_repomap_def *df = &fo->defs[i];
        size_t w = df->text && *df->text ? (size_t)snprintf(buf + used, room - used, "  %d: %s\n", df->line, df->text)
                                         : (size_t)snprintf(buf + used, room - used, "  %d: %s %s\n", df->line,
                                                            df->kind, df->name);
        if (w >= room - used) break;
        used += w;
        kept++;
    }
    if (!kept) return 0;
    for (size_t i = kept; i < fo->ndefs; i++) { /* the definitions that did not fit go */
        free(fo->defs[i].name);
        free(fo->defs[i].kind);
        free(fo->defs[i].text);
    }
    fo->ndefs = kept;
    return used;
}

struct order {
    const double *rank;
    const struct graph *g;
};
static struct order sort_order; /* qsort has no context: under order_mu */
static pthread_mutex_t order_mu = PTHREAD_MUTEX_INITIALIZER;

static int cmp_rank(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    double rx = sort_order.rank[x], ry = sort_order.rank[y];
    if (rx != ry) return rx > ry ? -1 : 1;
    return strcmp(sort_order.g->fpath[x], sort_order.g->fpath[y]);
}

/* ---- the map ----------------------------------------------------------------------------------- */

static int check_in(const struct mg_repomap_in *in, struct mg_err *err)
{
    if (in->budget_tokens < MG_REPOMAP_BUDGET_MIN || in->budget_tokens > MG_REPOMAP_BUDGET_MAX)
        return mg_err_set(err, MG_E_BAD_ARG, "budget_tokens must be %d to %d, got %lld", MG_REPOMAP_BUDGET_MIN,
                          MG_REPOMAP_BUDGET_MAX, (long long)in->budget_tokens);
    if (in->nfocus_files > MG_REPOMAP_FOCUS_MAX || in->nfocus_symbols > MG_REPOMAP_FOCUS_MAX)
        return mg_err_set(err, MG_E_BAD_ARG, "at most %d focus files and %d focus symbols", MG_REPOMAP_FOCUS_MAX,
                          MG_REPOMAP_FOCUS_MAX);
    return 0;
}

/* The teleport and focus names of in's focus, within allowed: NULL when
 * there is no focus. */
static int focus(const struct graph *g, const uint8_t *allowed, const struct mg_repomap_in *in, double **tp_out,
                 uint8_t **fn_out, struct mg_err *err)
{
    *tp_out = NULL;
    *fn_out = NULL;
    if (!in->nfocus_files && !in->nfocus_symbols) return 0;
    double *tp = calloc(g->nf + 1, sizeof(double));
    uint8_t *fn = calloc(g->nn + 1, 1);
    if (!tp || !fn) {
        free(tp);
        free(fn);
        return mg_err_oom(err);
    }
    int rc = 0;
    for (size_t i = 0; i < in->nfocus_files && rc == 0; i++) {
        const char *p = in->focus_files[i];
        while (p[0] == '.' && p[1] == '/') p += 2;
        size_t s = 0;
        while (s < g->nf && (strcmp(g->fpath[s], p) != 0 || (allowed && !allowed[s]))) s++;
        if (s == g->nf)
            rc = mg_err_set(err, MG_E_FOCUS_NOT_FOUND, "focus file '%.300s' is not a source file of the repo's "
                            "index in scope; paths are relative to the repo root (list_files shows them)",
                            in->focus_files[i]);
        else tp[s] += 1;
    }
    for (size_t i = 0; i < in->nfocus_symbols && rc == 0; i++) {
        const char *name = in->focus_symbols[i];
        int64_t n = name_find(g, mg_refs_hash(name, strlen(name)));
        size_t m = 0;
        for (uint32_t k = n >= 0 ? g->doff[n] : 0; n >= 0 && k < g->doff[n + 1]; k++)
            m += !allowed || allowed[g->dfile[k]];
        if (!m) {
            rc = mg_err_set(err, MG_E_FOCUS_NOT_FOUND, "focus symbol '%.300s' has no definition in scope that the "
                            "map knows (functions, types, macros, variables; search_symbols finds names)", name);
            break;
        }
        fn[n] = 1;
        for (uint32_t k = g->doff[n]; k < g->doff[n + 1]; k++)
            if (!allowed || allowed[g->dfile[k]]) tp[g->dfile[k]] += 1.0 / (double)m;
    }
    if (rc != 0) {
        free(tp);
        free(fn);
        return -1;
    }
    double sum = 0;
    for (size_t s = 0; s < g->nf; s++) sum += tp[s];
    for (size_t s = 0; s < g->nf; s++) tp[s] /= sum;
    *tp_out = tp;
    *fn_out = fn;
    return 0;
}

static int render(struct mg_db *d, const struct graph *g, const uint8_t *allowed, const double *rank,
                  const double *nin, const struct mg_repomap_in *in, struct mg_repomap *out, struct mg_err *err)
{
    uint32_t *ord = malloc((g->nf + 1) * sizeof(uint32_t));
    uint8_t *has = calloc(g->nf + 1, 1); /* defines a name that rank flows into */
    size_t room = (size_t)in->budget_tokens * 4;
    char *buf = malloc(room + 1);
    int rc = -1;
    if (!ord || !has || !buf) goto nomem;
    for (size_t n = 0; n < g->nn; n++)
        if (nin[n] > 0)
            for (uint32_t k = g->doff[n]; k < g->doff[n + 1]; k++) has[g->dfile[k]] = 1;
    size_t m = 0;
    for (size_t s = 0; s < g->nf; s++)
        if (!allowed || allowed[s]) {
            out->considered++;
            if (has[s]) ord[m++] = (uint32_t)s;
        }
    pthread_mutex_lock(&order_mu);
    sort_order = (struct order){rank, g};
    qsort(ord, m, sizeof(uint32_t), cmp_rank);
    pthread_mutex_unlock(&order_mu);
    size_t used = 0, capf = 0;
    buf[0] = 0;
    for (size_t i = 0; i < m; i++) {
        if (room - used < 16) {
            out->truncated = true;
            break;
        }
        struct mg_repomap_file fo = {0};
        fo.path = strdup(g->fpath[ord[i]]);
        fo.lang = strdup(g->flang[ord[i]]);
        fo.rank = rank[ord[i]];
        if (!fo.path || !fo.lang) {
            file_release(&fo);
            goto nomem;
        }
        if (file_defs(d, g, nin, ord[i], &fo, err) != 0) {
            file_release(&fo);
            goto out;
        }
        size_t w = fo.ndefs ? render_file(&fo, buf + used, room + 1 - used) : 0;
        if (!w) {
            bool none = fo.ndefs == 0; /* nothing referenced after all: the next file may fit */
            file_release(&fo);
            if (none) continue;
            out->truncated = true;
            break;
        }
        struct mg_repomap_file *p = mg_grow(out->files, out->n, &capf, sizeof(*p));
        if (!p) {
            file_release(&fo);
            goto nomem;
        }
        out->files = p;
        out->files[out->n++] = fo;
        used += w;
    }
    buf[used] = 0;
    out->text = buf;
    out->len = used;
    out->tokens = (int64_t)((used + 3) / 4);
    buf = NULL;
    rc = 0;
    goto out;
nomem:
    mg_err_oom(err);
out:
    free(ord);
    free(has);
    free(buf);
    return rc;
}

int mg_repomap(struct mg_db *d, const struct mg_filter *f, const struct mg_repomap_in *in, struct mg_repomap *out,
               struct mg_err *err)
{
    memset(out, 0, sizeof(*out));
    if (check_in(in, err) != 0) return -1;
    /* one snapshot: the generation and the rows it names */
    if (mg_db_begin_read(d, err) != 0) return -1;
    struct graph *g = NULL;
    uint8_t *allowed = NULL, *fn = NULL;
    double *tp = NULL;
    struct rank_work *w = NULL;
    int rc = -1;
    if (!mg_db_meta_int(d, "refs_ready", 0)) {
        mg_err_set(err, MG_E_REPOMAP_UNAVAILABLE, "the index of this repo was made before memgate recorded which "
                   "names each file uses; run `memgate index` on the repo (or index_repo) once, then ask again");
        goto out;
    }
    int64_t gen = mg_db_meta_int(d, "index_gen", 0), at = mg_db_meta_int(d, "indexed_at", 0);
    if (graph_get(d, gen, at, in->stale_ok, &g, &out->cached, &out->stale, err) != 0) goto out;
    if (!(allowed = malloc(g->nf + 1))) goto nomem;
    bool all = true;
    for (size_t s = 0; s < g->nf; s++) {
        allowed[s] = mg_filter_allows(f, g->fpath[s], strlen(g->fpath[s]), g->flang[s]);
        all = all && allowed[s];
    }
    if (all) {
        free(allowed);
        allowed = NULL;
    }
    if (focus(g, allowed, in, &tp, &fn, err) != 0) goto out;
    const double *r, *ni;
    if (!allowed && !tp) { /* the repo's own ranks: computed once per graph */
        pthread_mutex_lock(&g->mu);
        int prc = rank_whole(g, err);
        pthread_mutex_unlock(&g->mu);
        if (prc != 0) goto out;
        r = g->rank0;
        ni = g->nin0;
    } else {
        if (!(w = work_get(g, err))) goto out;
        pagerank(g, &(struct rank_in){allowed, tp, fn}, w);
        r = w->r;
        ni = w->nin;
    }
    rc = render(d, g, allowed, r, ni, in, out, err);
    goto out;
nomem:
    mg_err_oom(err);
out:
    mg_db_commit(d, NULL);
    if (rc != 0) mg_repomap_release(out);
    if (w) work_put(g, w);
    graph_put(g);
    free(allowed);
    free(fn);
    free(tp);
    return rc;
}

void mg_repomap_release(struct mg_repomap *m)
{
    for (size_t i = 0; i < m->n; i++) file_release(&m->files[i]);
    free(m->files);
    free(m->text);
    memset(m, 0, sizeof(*m));
}
