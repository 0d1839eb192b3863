/* memvec.c — memory recalled by meaning (internal.h): the vectors of
 * notes, episodes and entities, sealed in their own rows, and the fusion of
 * a search's word list with its vector list.
 *
 * Only with embedder = model written out (embed/model.c: local, microseconds
 * a text); with any other embedder memory is searched by words alone: the
 * hashed embedder is a second bag of words, a remote one would put the
 * network on every remember and recall, and `auto`, though it embeds code
 * with the model, leaves memory to words (the vectors find three memories
 * in fifty more, but a search opens up to 20,000 sealed rows: over 5,000
 * entities 9.8 ms instead of 0.46 ms, docs/memory.md).
 * bench/memory_recall.py measures what the vectors add (docs/memory.md).
 *
 * A row's vector is the code model's of its text, int8 with a scale,
 * sealed with XChaCha20-Poly1305 under the tenant's key (vector/vstore.h,
 * the key the code vectors use) with the table, the row id, the tenant,
 * the repo fingerprint and the model's signature as associated data. A
 * vector moved to another row, repo or tenant fails to open: it is dropped,
 * logged and counted (memgate_isolation_drops_total{kind="memory_vector"})
 * and the row is searched by words alone. A row without a vector, or with
 * one of another model, is embedded from its text at search time.
 *
 * A search scans the rows of its own scope (the same repo, project or pool
 * as its word query, with tenant and fingerprint in the SQL too; at most
 * SCAN_MAX, newest first, the rest not read), keeps the nearest at a
 * cosine of FLOOR or more, and fuses them with the word list by reciprocal rank: a row's score is
 * the sum over the lists it is in of 1 / (FUSE_K + rank).
 *
 * Sections:
 *   1. the model and the key of a call
 *   2. sealing and opening a row's vector
 *   3. ranking a scope by meaning
 *   4. fusing the lists; a kind's hybrid search
 */
#include "memory/internal.h"

#include <math.h>
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embed/embed.h"
#include "util/metrics.h"
#include "vector/vstore.h"

#define SCAN_MAX 20000   /* rows a search reads vectors of (newest first) */
#define FUSE_K 60.0
/* The least cosine a row needs to be in the vector list: about the 99th
 * percentile of unrelated pairs' under the code model (bench/memrecall), so
 * that a search for a key does not come back with every row of the scope. */
#define FLOOR 0.35f
#define NONCE crypto_aead_xchacha20poly1305_ietf_NPUBBYTES
#define TAG crypto_aead_xchacha20poly1305_ietf_ABYTES

/* ---- 1. the model and the key of a call --------------------------------------------------------- */

struct mg__mvq {
    struct mg_embedder *e;
    int dim;
    char sig[160];
    unsigned char key[MG_VKEY_BYTES];
    float *q;                 /* the query's vector (search) */
};

/* One warning per process and reason: a missing model must not fill the log. */
static void warn_once(const struct mg_err *e)
{
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    static char last[64];
    pthread_mutex_lock(&mu);
    if (strcmp(last, e->code ? e->code : "") != 0) {
        snprintf(last, sizeof(last), "%s", e->code ? e->code : "");
        fprintf(stderr, "memgate: warning: memory vectors: %s: %s; memory is searched by words alone\n",
                e->code ? e->code : MG_E_INTERNAL, e->msg);
    }
    pthread_mutex_unlock(&mu);
}

void mg__mvec_end(struct mg__mvq **pv)
{
    struct mg__mvq *v = *pv;
    if (!v) return;
    mg_embedder_free(&v->e);
    free(v->q);
    sodium_memzero(v->key, sizeof(v->key));
    free(v);
    *pv = NULL;
}

/* The model and the tenant's key for a call; NULL (words only) when vectors
 * are off or cannot be had (warned once). */
static struct mg__mvq *mvec_begin(const struct place *p, const struct mg_config *cfg)
{
    if (strcmp(cfg->embedder, "model") != 0) return NULL; /* words only: see the top of this file */
    struct mg_err e = {0};
    struct mg__mvq *v = calloc(1, sizeof(*v));
    if (!v) return NULL;
    if (mg_embedder_open(cfg, &v->e, &e) != 0 || mg_vkey_load(cfg, p->tenant, v->key, &e) != 0) {
        warn_once(&e);
        mg__mvec_end(&v);
        return NULL;
    }
    v->dim = v->e->dim;
    mg_embedder_sig(v->e, v->sig, sizeof(v->sig));
    return v;
}

struct mg__mvq *mg__mvec_query(const struct place *p, const struct mg_config *cfg, const char *query)
{
    if (!query || !*query) return NULL;
    struct mg__mvq *v = mvec_begin(p, cfg);
    if (!v) return NULL;
    struct mg_err e = {0};
    const char *t[1] = {query};
    size_t l[1] = {strlen(query)};
    if (!(v->q = malloc((size_t)v->dim * sizeof(float))) || mg_embed(v->e, MG_EMBED_QUERY, t, l, 1, v->q, &e) != 0) {
        if (e.code) warn_once(&e);
        mg__mvec_end(&v);
    }
    return v;
}

/* ---- 2. sealing and opening a row's vector ------------------------------------------------------ */

/* blob: u8 n, the model's signature (n bytes), nonce, sealed(f32 scale, i8[dim]) with its tag.
 * The associated data binds it to its row: table, id, tenant, fingerprint, signature. */
static size_t ad_of(const struct place *p, const char *table, int64_t id, const char *sig, unsigned char *ad,
                    size_t cap)
{
    int n = snprintf((char *)ad, cap, "memgate-memory-vector|%s|%lld|%s|%s|%s", table, (long long)id, p->tenant,
                     p->repo->fingerprint, sig);
    return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

static int seal(const struct place *p, const struct mg__mvq *v, const char *table, int64_t id, const float *x,
                unsigned char **out, size_t *len)
{
    size_t sl = strlen(v->sig);
    if (sl > 255) sl = 255;
    size_t ml = 4 + (size_t)v->dim;
    unsigned char *m = malloc(ml), *b = malloc(1 + sl + NONCE + ml + TAG), ad[512];
    if (!m || !b) {
        free(m);
        free(b);
        return -1;
    }
    float mx = 0;
    for (int j = 0; j < v->dim; j++) mx = fabsf(x[j]) > mx ? fabsf(x[j]) : mx;
    float scale = mx > 0 ? mx / 127.0f : 1.0f;
    memcpy(m, &scale, 4);
    for (int j = 0; j < v->dim; j++) m[4 + j] = (unsigned char)(int8_t)lrintf(x[j] / scale);
    b[0] = (unsigned char)sl;
    memcpy(b + 1, v->sig, sl);
    unsigned char *nonce = b + 1 + sl;
    randombytes_buf(nonce, NONCE);
    size_t adl = ad_of(p, table, id, v->sig, ad, sizeof(ad));
    unsigned long long cl;
    crypto_aead_xchacha20poly1305_ietf_encrypt(nonce + NONCE, &cl, m, ml, ad, adl, NULL, nonce, v->key);
    free(m);
    *out = b;
    *len = 1 + sl + NONCE + (size_t)cl;
    return 0;
}

/* The row's vector into x (dim floats): 0; 1 when it has none of this
 * model (embed its text); -1 when it fails authentication (tampered or
 * moved: dropped and counted). */
static int open_vec(const struct place *p, const struct mg__mvq *v, const char *table, int64_t id,
                    const unsigned char *b, size_t n, float *x)
{
    size_t sl = n ? b[0] : 0;
    if (n == 0 || n < 1 + sl || sl != strlen(v->sig) || memcmp(b + 1, v->sig, sl) != 0) return 1;
    size_t ml = 4 + (size_t)v->dim;
    if (n != 1 + sl + NONCE + ml + TAG) return -1;
    unsigned char m[4 + MG_EMBED_MAX_DIM], ad[512];
    size_t adl = ad_of(p, table, id, v->sig, ad, sizeof(ad));
    unsigned long long got;
    const unsigned char *nonce = b + 1 + sl;
    if (crypto_aead_xchacha20poly1305_ietf_decrypt(m, &got, NULL, nonce + NONCE, ml + TAG, ad, adl, nonce, v->key) !=
            0 || got != ml)
        return -1;
    float scale;
    memcpy(&scale, m, 4);
    for (int j = 0; j < v->dim; j++) x[j] = scale * (float)(int8_t)m[4 + j];
    return 0;
}

/* rc of an embedding: nonzero when it failed (warned once unless it is out of memory). */
static bool seal_failed(int rc, const struct mg_err *e)
{
    if (rc != 0 && e->code && strcmp(e->code, MG_E_NO_MEMORY) != 0) warn_once(e);
    return rc != 0;
}

int mg__mvec_put(struct place *p, const struct mg_config *cfg, const char *table, int64_t id, const char *text,
                 struct mg_err *err)
{
    struct mg__mvq *v = mvec_begin(p, cfg);
    if (!v) return 0; /* words only: the row is embedded at search time if a model comes back */
    float *x = malloc((size_t)v->dim * sizeof(float));
    unsigned char *blob = NULL;
    size_t len = 0;
    struct mg_err e = {0};
    const char *t[1] = {text};
    size_t l[1] = {strlen(text)};
    int rc = 0;
    if (!x || seal_failed(mg_embed(v->e, MG_EMBED_DOCUMENT, t, l, 1, x, &e), &e) ||
        seal(p, v, table, id, x, &blob, &len) != 0) {
        rc = x && e.code && strcmp(e.code, MG_E_NO_MEMORY) != 0 ? 0 : mg_err_oom(err); /* the model failed: words */
    } else {
        char sql[96];
        struct mg_sql_st *st;
        snprintf(sql, sizeof(sql), "UPDATE %s SET vec = ? WHERE id = ?", table);
        if ((rc = mg_sql_prepare(p->db, sql, &st, err)) == 0) {
            mg_sql_bind_blob(st, 1, blob, len);
            mg_sql_bind_int(st, 2, id);
            rc = mg_sql_step(st, err) < 0 ? -1 : 0;
            mg_sql_finalize(&st);
        }
    }
    free(x);
    free(blob);
    mg__mvec_end(&v);
    return rc;
}

/* ---- 3. ranking a scope by meaning -------------------------------------------------------------- */

static int mvec_rank(const struct place *p, struct mg__mvq *v, const char *table, struct mg_sql_st *st, size_t k,
                  int64_t *ids, size_t *n, struct mg_err *err)
{
    *n = 0;
    float *x = malloc((size_t)v->dim * sizeof(float)), *best = malloc((k + 1) * sizeof(float));
    if (!x || !best) {
        free(x);
        free(best);
        return mg_err_oom(err);
    }
    int r;
    size_t rows = 0, dropped = 0;
    while ((r = mg_sql_step(st, err)) == 1) {
        if (++rows > SCAN_MAX) break; /* the newest SCAN_MAX rows only */
        int64_t id = mg_sql_int(st, 0);
        size_t bl;
        const unsigned char *b = mg_sql_blob(st, 1, &bl);
        int o = open_vec(p, v, table, id, b, b ? bl : 0, x);
        if (o < 0) {
            dropped++;
            continue;
        }
        if (o > 0) {
            const char *t[1] = {mg_sql_text(st, 2)};
            if (!t[0]) continue;
            size_t l[1] = {strlen(t[0])};
            struct mg_err e = {0};
            if (mg_embed(v->e, MG_EMBED_DOCUMENT, t, l, 1, x, &e) != 0) continue;
        } else {
            mg_vec_normalize(x, v->dim);
        }
        float s = 0;
        for (int j = 0; j < v->dim; j++) s += x[j] * v->q[j];
        if (s < FLOOR) continue; /* not near enough to mean the same */
        /* insertion into the best k, best first (ties: the newer row, met first, stays ahead) */
        size_t at = *n;
        while (at > 0 && best[at - 1] < s) at--;
        if (at >= k) continue;
        size_t m = *n < k ? *n : k - 1;
        memmove(ids + at + 1, ids + at, (m - at) * sizeof(*ids));
        memmove(best + at + 1, best + at, (m - at) * sizeof(*best));
        ids[at] = id;
        best[at] = s;
        if (*n < k) (*n)++;
    }
    free(x);
    free(best);
    if (dropped) {
        fprintf(stderr, "memgate: warning: memory vectors: %zu vector(s) of %s in repo '%s' failed "
                "authentication (moved or changed on disk): dropped\n", dropped, table, p->repo->id);
        mg_metrics_isolation_drop("memory_vector", dropped);
    }
    return r < 0 ? -1 : 0;
}

static char *idlist(bool pg, const int64_t *ids, size_t n)
{
    struct mg_buf b;
    mg_buf_init(&b, 1 << 20);
    mg_buf_addf(&b, "%c", pg ? '{' : '[');
    for (size_t i = 0; i < n; i++) mg_buf_addf(&b, "%s%lld", i ? "," : "", (long long)ids[i]);
    mg_buf_addf(&b, "%c", pg ? '}' : ']');
    return mg_buf_detach(&b, NULL);
}

/* ---- 4. fusing the lists ------------------------------------------------------------------------ */

struct fused {
    struct mg_item *it;
    double score;
    size_t wrank; /* in the word list (SIZE_MAX: not in it) */
};

static int cmp_fused(const void *a, const void *b)
{
    const struct fused *x = a, *y = b;
    if (x->score != y->score) return x->score < y->score ? 1 : -1;
    return x->wrank < y->wrank ? -1 : x->wrank > y->wrank;
}

static int fuse(struct mg_items *words, const int64_t *wid, struct mg_items *more, const int64_t *mid,
                  const int64_t *vid, size_t nv, int limit, void (*set_score)(struct mg_item *, double),
                  struct mg_items *out, struct mg_err *err)
{
    size_t n = words->n + more->n;
    struct fused *f = calloc(n + 1, sizeof(*f));
    if (!f) return mg_err_oom(err);
    for (size_t i = 0; i < n; i++) {
        bool w = i < words->n;
        int64_t id = w ? wid[i] : mid[i - words->n];
        f[i].it = w ? words->v[i] : more->v[i - words->n];
        f[i].wrank = w ? i : SIZE_MAX;
        f[i].score = w ? 1.0 / (FUSE_K + (double)i + 1) : 0;
        for (size_t r = 0; r < nv; r++)
            if (vid[r] == id) {
                f[i].score += 1.0 / (FUSE_K + (double)r + 1);
                break;
            }
    }
    qsort(f, n, sizeof(*f), cmp_fused);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        if ((int)i < limit && rc == 0) {
            if (out->n == out->cap) {
                size_t cap = out->cap ? out->cap * 2 : 16;
                struct mg_item **nvp = realloc(out->v, cap * sizeof(*nvp));
                if (!nvp) {
                    rc = mg_err_oom(err);
                    mg_item_free(f[i].it);
                    continue;
                }
                out->v = nvp;
                out->cap = cap;
            }
            if (set_score) set_score(f[i].it, f[i].score);
            out->v[out->n++] = f[i].it;
        } else {
            mg_item_free(f[i].it);
        }
    }
    words->n = more->n = 0; /* their items moved or freed */
    free(f);
    return rc;
}

int mg__mvec_search(struct place *p, struct mg__mvq *v, const struct mg__mvec_kind *kind, void *ctx, int limit,
                    struct mg_items *out, struct mg_err *err)
{
    struct mg_items w = {0}, m = {0};
    int64_t *wid = NULL, *mid = NULL, *vid = NULL, *miss = NULL;
    char *idl = NULL;
    size_t nv = 0, k = (size_t)limit + MG_MVEC_EXTRA, nmiss = 0;
    int rc = -1;
    struct mg_sql_st *st = NULL;
    if (kind->words(ctx, p, (int)k, &w, &wid, err) != 0) goto out;
    if (!(vid = malloc(k * sizeof(*vid))) || !(miss = malloc(k * sizeof(*miss)))) {
        mg_err_oom(err);
        goto out;
    }
    if (kind->scan(ctx, p, &st, err) != 0) goto out;
    int r = mvec_rank(p, v, kind->table, st, k, vid, &nv, err);
    mg_sql_finalize(&st);
    if (r != 0) goto out;
    for (size_t i = 0; i < nv; i++) {
        size_t j = 0;
        while (j < w.n && wid[j] != vid[i]) j++;
        if (j == w.n) miss[nmiss++] = vid[i];
    }
    if (!(idl = idlist(mg__mem_pg(p), miss, nmiss))) {
        mg_err_oom(err);
        goto out;
    }
    if (nmiss && kind->rows(ctx, p, idl, (int)nmiss, &m, &mid, err) != 0) goto out;
    rc = fuse(&w, wid, &m, mid, vid, nv, limit, kind->set_score, out, err);
out:
    mg_items_release(&w);
    mg_items_release(&m);
    free(wid);
    free(mid);
    free(vid);
    free(miss);
    free(idl);
    return rc;
}

int mg__mvec_ids_add(struct mg_items *l, int64_t **ids, size_t *cap, int64_t id)
{
    if (l->n > *cap) {
        size_t nc = l->n * 2;
        int64_t *v = realloc(*ids, nc * sizeof(**ids));
        if (!v) return -1;
        *ids = v;
        *cap = nc;
    }
    (*ids)[l->n - 1] = id;
    return 0;
}
