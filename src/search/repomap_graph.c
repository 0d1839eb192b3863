/* repomap_graph.c — the repo map's graph: files, the names they define
 * (definers) and use, from the refs rows (store/indexdb.h), and PageRank
 * over the files in scope, personalised to a focus (repomap_int.h).
 *
 * Sections:
 *   1. The graph     files, the names they define (definers) and use, from table refs
 *   2. Ranking       PageRank over the files in scope, personalised to a focus
 */
#include "search/repomap_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "index/refs.h"
#include "store/indexdb.h"
#include "util/buf.h"

#define DAMPING    0.85
#define ITERATIONS 60
#define EPSILON    1e-7  /* L1 change of the ranks that ends the iteration */

pthread_mutex_t mg__rmap_mu = PTHREAD_MUTEX_INITIALIZER;

/* ---- 1. The graph ----------------------------------------------------------------------------- */


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


void mg__rmap_graph_free(struct graph *g)
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
int64_t mg__rmap_name_find(const struct graph *g, uint32_t h)
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

/* Sort v[0..n) by bits lo..63 (the high 32, the hash, at least), stably: an
 * LSD radix sort in passes of 11 bits (2,048 buckets stay in the cache;
 * 65,536 missed it on every write). The join of names and uses is then
 * sequential, where a hash table of millions of names missed the cache on
 * every probe. */
static int sort_by_hash(uint64_t *v, size_t n, int lo)
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
    for (int shift = lo; shift < 64; shift += BITS, passes++) {
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
    if (passes % 2) memcpy(v, from, n * sizeof(uint64_t)); /* an odd number of passes ends in t */
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

static int cmp_fid(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* C function pointers (table ptr_stores): a file storing functions into a
 * field by name (`.read = my_read`) defines that field's name for the map,
 * so a file calling through it (`o->read(x)`) leans on the implementations
 * as on a function it calls. A field stored into by more than
 * MG_REPOMAP_DEFINERS_MAX files is not followed, as any name. */
static int pointer_definers(struct mg_db *d, struct graph *g, struct build *b, struct mg_err *err)
{
    struct mg_idx_cur c = {0};
    struct mg_idx_row r;
    if (mg_idx_ptr_fields_all(d, &c, err) != 0) return -1;
    int s;
    const int64_t *at = NULL;
    while ((s = mg_idx_next(&c, &r)) > 0) {
        if (!at || *at != r.file_id) /* (both in file id order; repeats go in graph_join) */
            at = bsearch(&r.file_id, g->fid, g->nf, sizeof(*g->fid), cmp_fid);
        if (!at || !r.field) continue;
        size_t fl = strlen(r.field);
        uint64_t *nd = mg_grow(b->d, b->nd, &b->capd, sizeof(uint64_t));
        if (!nd) {
            mg_idx_done(&c);
            return mg_err_oom(err);
        }
        b->d = nd;
        b->d[b->nd++] = (uint64_t)mg_refs_hash(r.field, fl) << 32 | (uint64_t)(mg_refs_class(r.field, fl) & 3) << 30 |
                        (uint64_t)(at - g->fid);
    }
    mg_idx_done(&c);
    return s < 0 ? mg_db_error(d, "read the pointer stores", err) : 0;
}

/* The graph from the rows gathered in b: names are the distinct definition
 * hashes; a use is joined to its name by walking both sorted by hash. Names
 * some use follows come first (PageRank walks only them). */
static int graph_join(struct graph *g, struct build *b)
{
    size_t nf = g->nf;
    b->ufirst[nf] = (uint32_t)b->nu;
    /* definitions wholly (hash, class, file: a name's files in file order), so that a file defining a name
     * twice (a function, and a field it stores into: pointer_definers) is adjacent and counted once */
    if (sort_by_hash(b->d, b->nd, 0) != 0 || sort_by_hash(b->u, b->nu, 32) != 0) return -1;
    size_t nd = 0;
    for (size_t i = 0; i < b->nd; i++)
        if (nd == 0 || b->d[i] != b->d[nd - 1]) b->d[nd++] = b->d[i];
    b->nd = nd;
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

int mg__rmap_graph_build(struct mg_db *d, struct graph **out, struct mg_err *err)
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
    if (pointer_definers(d, g, &b, err) != 0) goto out;
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
    else mg__rmap_graph_free(g);
    return rc;
}

/* ---- 2. Ranking ------------------------------------------------------------------------------- */


static double class_weight(uint8_t cls)
{
    return cls == MG_REFS_SPECIFIC ? 10.0 : cls == MG_REFS_PRIVATE ? 0.1 : 1.0;
}

/* A set of PageRank's arrays for g: its spare, or new. */
struct rank_work *mg__rmap_work_get(struct graph *g, struct mg_err *err)
{
    pthread_mutex_lock(&mg__rmap_mu);
    struct rank_work *w = g->spare;
    g->spare = NULL;
    pthread_mutex_unlock(&mg__rmap_mu);
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
void mg__rmap_work_put(struct graph *g, struct rank_work *w)
{
    pthread_mutex_lock(&mg__rmap_mu);
    if (!g->spare) {
        g->spare = w;
        w = NULL;
    }
    pthread_mutex_unlock(&mg__rmap_mu);
    work_free(w);
}

/* PageRank over g within in, into w: w->r the rank per file, w->nin per name
 * the rank flowing into it, per definer (0 beyond g->nused, as w came). */
void mg__rmap_pagerank(const struct graph *g, const struct rank_in *in, struct rank_work *w)
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
int mg__rmap_rank_whole(struct graph *g, struct mg_err *err)
{
    if (g->rank0) return 0;
    struct rank_work *w = mg__rmap_work_get(g, err);
    if (!w) return -1;
    mg__rmap_pagerank(g, &(struct rank_in){0}, w);
    g->rank0 = malloc((g->nf + 1) * sizeof(double));
    g->nin0 = malloc((g->nn + 1) * sizeof(double));
    if (!g->rank0 || !g->nin0) {
        free(g->rank0);
        free(g->nin0);
        g->rank0 = g->nin0 = NULL;
        mg__rmap_work_put(g, w);
        return mg_err_oom(err);
    }
    memcpy(g->rank0, w->r, (g->nf + 1) * sizeof(double));
    memcpy(g->nin0, w->nin, (g->nn + 1) * sizeof(double));
    mg__rmap_work_put(g, w);
    return 0;
}
