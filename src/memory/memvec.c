/* memvec.c — memory recalled by meaning (internal.h): the vectors of
 * notes, episodes and entities, sealed in their own rows, and the fusion of
 * a search's word list with its vector list.
 *
 * Only under the code model (embed/model.c: local, microseconds a text):
 * embedder = model, or auto when no remote embedder is configured (the
 * default); with any other embedder memory is searched by words alone: the
 * hashed embedder is a second bag of words, a remote one would put the
 * network on every remember and recall. bench/memory_recall.py measures
 * what the vectors add, bench/memory_bench.mjs what they cost
 * (docs/memory.md).
 *
 * A row's vector is the code model's of its text, int8 with a scale,
 * sealed with XChaCha20-Poly1305 under the tenant's key (vector/vstore.h,
 * the key the code vectors use) with the table, the row id, the tenant,
 * the repo fingerprint and the model's signature as associated data. A
 * vector moved to another row, repo or tenant fails to open: it is dropped,
 * logged and counted (memgate_isolation_drops_total{kind="memory_vector"})
 * and the row is searched by words alone. A row without a vector, or with
 * one of another model (stored before memory vectors were on, or under
 * another model), is embedded from its text at search time, and that vector
 * is stored in the row after the search, unless the row's vector changed
 * meanwhile.
 *
 * Opening a sealed vector was most of a search's cost, so each one opened is
 * kept for the process's later searches by its row, context and sealed value
 * (memvec_kept.c): a row whose value has not changed is not opened again.
 * Then reading the rows was: on SQLite a scope's vectors are kept whole at
 * the file's data version, and ranked without reading a row until the file
 * changes (vector_list).
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
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embed/embed.h"
#include "security/token.h"
#include "util/buf.h"
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
_Static_assert(TAG == MG_MVKEPT_TAG, "memvec_kept.c compares the AEAD tag");

/* ---- 1. the model and the key of a call --------------------------------------------------------- */

struct mg__mvq {
    struct mg_embedder *e;
    int dim;
    char sig[160];
    unsigned char key[MG_VKEY_BYTES];
    float *q;                 /* the query's vector (search) */
};

/* The context a table's vectors are sealed in, as memvec_kept.c keeps them:
 * a hash of what the associated data names besides the row id, keyed by the
 * tenant's key (so a replaced key is another context). */
static void ctx_of(const struct place *p, const struct mg__mvq *v, const char *table, unsigned char *ctx)
{
    crypto_generichash_state h;
    crypto_generichash_init(&h, v->key, sizeof(v->key), MG_MVKEPT_CTX);
    const char *part[4] = {table, p->tenant, p->repo->fingerprint, v->sig};
    for (int i = 0; i < 4; i++) crypto_generichash_update(&h, (const unsigned char *)part[i], strlen(part[i]) + 1);
    crypto_generichash_final(&h, ctx, MG_MVKEPT_CTX);
}

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

/* The tenant's key for memory vectors: on SQLite its vector key (keys/, or
 * MEMGATE_MASTER_KEY's); on PostgreSQL, where every daemon reads the rows
 * and each has its own keys/, one derived from the token pepper they share
 * (or MEMGATE_MASTER_KEY's, shared as well). */
static int mvec_key(const struct place *p, const struct mg_config *cfg, unsigned char *key, struct mg_err *e)
{
    const char *m = getenv("MEMGATE_MASTER_KEY");
    if (!mg__mem_pg(p) || (m && *m)) return mg_vkey_load(cfg, p->tenant, key, e);
    char ctx[160];
    snprintf(ctx, sizeof(ctx), "memgate memory vectors v1 tenant=%s", p->tenant);
    return mg_token_pepper_key(cfg->home, ctx, key, e);
}

/* The model and the tenant's key for a call; NULL (words only) when vectors
 * are off or cannot be had (warned once). The signature a vector carries
 * names the model and the key (its id): a vector of another model or key
 * (another tenant's, or sealed before memory's key on PostgreSQL was
 * shared) is not this one's, and the row is embedded again from its text. */
static struct mg__mvq *mvec_begin(const struct place *p, const struct mg_config *cfg)
{
    if (strcmp(mg_embedder_chosen(cfg), "model") != 0) return NULL; /* words only: see the top of this file */
    struct mg_err e = {0};
    struct mg__mvq *v = calloc(1, sizeof(*v));
    if (!v) return NULL;
    if (mg_embedder_open(cfg, &v->e, &e) != 0 || mvec_key(p, cfg, v->key, &e) != 0) {
        warn_once(&e);
        mg__mvec_end(&v);
        return NULL;
    }
    v->dim = v->e->dim;
    char sig[128], kid[17];
    mg_embedder_sig(v->e, sig, sizeof(sig));
    mg_vkey_id(v->key, kid);
    snprintf(v->sig, sizeof(v->sig), "%s#%s", sig, kid);
    return v;
}

/* A query of one word (nothing blank between its first and last character:
 * a key, a name, an identifier) is a lookup, answered by its words: the
 * model's vector of one unknown token is close to noise, and a row near it
 * in meaning is not what was asked for. */
static bool one_word(const char *q)
{
    while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r') q++;
    while (*q && *q != ' ' && *q != '\t' && *q != '\n' && *q != '\r') q++;
    while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r') q++;
    return *q == 0;
}

struct mg__mvq *mg__mvec_query(const struct place *p, const struct mg_config *cfg, const char *query)
{
    if (!query || one_word(query)) return NULL;
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

/* The row's vector into m (dim int8 values) and its length into *norm: 0;
 * 1 when it has none of this model (embed its text); -1 when it fails
 * authentication (tampered or moved: dropped and counted). */
static int open_vec(const struct place *p, const struct mg__mvq *v, const char *table, int64_t id,
                    const unsigned char *b, size_t n, int8_t *mv, float *norm)
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
    double s = 0; /* the scale does not change the direction: the int8 values are the vector */
    for (int j = 0; j < v->dim; j++) {
        mv[j] = (int8_t)m[4 + j];
        s += (double)mv[j] * mv[j];
    }
    *norm = (float)sqrt(s);
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

/* A row embedded at search time (no vector of the model): sealed, to be stored after the scan. */
struct fill {
    int64_t id;
    unsigned char *sealed, *old; /* old: the vector it held (another model's), NULL when none */
    size_t n, oldn;
};

struct fills {
    struct fill *v;
    size_t n, cap;
};

static void fills_free(struct fills *f)
{
    for (size_t i = 0; i < f->n; i++) {
        free(f->v[i].sealed);
        free(f->v[i].old);
    }
    free(f->v);
}

/* Row id's vector made from its text (kind->text) into x, unit length, and
 * sealed into f for storing. 0; 1 when it has no text or the model fails. */
static int embed_row(const struct place *p, const struct mg__mvq *v, const struct mg__mvec_kind *kind,
                     struct mg_sql_st **tst, int64_t id, const unsigned char *old, size_t oldn, float *x,
                     struct fills *f)
{
    struct mg_err e = {0};
    if (!*tst && mg_sql_prepare(p->db, kind->text, tst, &e) != 0) return 1;
    mg_sql_reset(*tst);
    mg_sql_bind_int(*tst, 1, id);
    const char *t[1] = {mg_sql_step(*tst, &e) == 1 ? mg_sql_text(*tst, 0) : NULL};
    if (!t[0]) return 1;
    size_t l[1] = {strlen(t[0])};
    if (mg_embed(v->e, MG_EMBED_DOCUMENT, t, l, 1, x, &e) != 0) return 1;
    if (f->n == f->cap) {
        size_t cap = f->cap ? f->cap * 2 : 16;
        struct fill *nv = realloc(f->v, cap * sizeof(*nv));
        if (!nv) return 0; /* ranked all the same; stored by a later search */
        f->v = nv;
        f->cap = cap;
    }
    struct fill *d = &f->v[f->n];
    memset(d, 0, sizeof(*d));
    d->id = id;
    if (seal(p, v, kind->table, id, x, &d->sealed, &d->n) != 0) return 0;
    if (old && oldn && !(d->old = malloc(oldn))) {
        free(d->sealed);
        return 0;
    }
    if (old && oldn) memcpy(d->old, old, d->oldn = oldn);
    f->n++;
    return 0;
}

/* The vectors made at search time, stored in their rows (one transaction)
 * unless a row's vector changed meanwhile: the next searches open them. A
 * failure only warns: the search has its answer. */
static void store_fills(struct place *p, const char *table, const struct fills *f)
{
    if (!f->n) return;
    struct mg_err e = {0};
    struct mg_sql_st *st = NULL;
    char sql[128];
    snprintf(sql, sizeof(sql), "UPDATE %s SET vec = ?1 WHERE id = ?2 AND (vec IS NULL OR vec = ?3)", table);
    if (mg_sql_begin(p->db, true, &e) != 0) goto fail;
    if (mg_sql_prepare(p->db, sql, &st, &e) != 0) goto rollback;
    for (size_t i = 0; i < f->n; i++) {
        mg_sql_reset(st);
        mg_sql_bind_blob(st, 1, f->v[i].sealed, f->v[i].n);
        mg_sql_bind_int(st, 2, f->v[i].id);
        if (f->v[i].old) mg_sql_bind_blob(st, 3, f->v[i].old, f->v[i].oldn);
        else mg_sql_bind_null(st, 3);
        if (mg_sql_step(st, &e) < 0) goto rollback;
    }
    mg_sql_finalize(&st);
    if (mg_sql_commit(p->db, &e) == 0) return;
    goto fail;
rollback:
    mg_sql_finalize(&st);
    mg_sql_rollback(p->db);
fail:
    if (e.code) warn_once(&e);
}

/* The nearest k rows, best first (ties: the row met first, the newer, stays
 * ahead). The query is also held as int16 (qq, qscale: q ≈ qq × qscale), so
 * that an int8 vector's dot product with it is integer arithmetic. */
struct best {
    int64_t *ids;
    float *s;
    size_t n, k;
    int16_t *qq;
    float qscale;
    int dim;
};

/* The query in int16 steps: its largest component is `top` steps, 32767, or
 * fewer when dim × 127 × top would not fit the int32 sum (dim over 520): a
 * relative error under 1e-4 a component either way. */
static void best_query(struct best *b, const float *q)
{
    float mx = 0, top = (float)(INT32_MAX / (127 * (int64_t)b->dim));
    if (top > 32767.0f) top = 32767.0f;
    for (int j = 0; j < b->dim; j++) mx = fabsf(q[j]) > mx ? fabsf(q[j]) : mx;
    b->qscale = mx > 0 ? mx / top : 1.0f;
    for (int j = 0; j < b->dim; j++) b->qq[j] = (int16_t)lrintf(q[j] / b->qscale);
}

static void best_add(struct best *b, int64_t id, float s)
{
    if (s < FLOOR) return; /* not near enough to mean the same */
    size_t at = b->n;
    while (at > 0 && b->s[at - 1] < s) at--;
    if (at >= b->k) return;
    size_t m = b->n < b->k ? b->n : b->k - 1;
    memmove(b->ids + at + 1, b->ids + at, (m - at) * sizeof(*b->ids));
    memmove(b->s + at + 1, b->s + at, (m - at) * sizeof(*b->s));
    b->ids[at] = id;
    b->s[at] = s;
    if (b->n < b->k) b->n++;
}

/* The cosine of an int8 vector of length norm with the query: ranking a
 * scope is this loop. SSE2 multiplies and adds eight pairs a step
 * (pmaddwd; the model's dim is a multiple of 8: embed/model.c). */
static float cos_i8(const struct best *b, const int8_t *m, float norm)
{
    int32_t dot = 0;
    int j = 0;
#ifdef __SSE2__
    __m128i acc = _mm_setzero_si128();
    for (; j + 8 <= b->dim; j += 8) {
        __m128i v = _mm_loadl_epi64((const __m128i *)(m + j));
        v = _mm_srai_epi16(_mm_unpacklo_epi8(v, v), 8); /* sign-extended to int16 */
        acc = _mm_add_epi32(acc, _mm_madd_epi16(v, _mm_loadu_si128((const __m128i *)(b->qq + j))));
    }
    acc = _mm_add_epi32(acc, _mm_shuffle_epi32(acc, _MM_SHUFFLE(1, 0, 3, 2)));
    acc = _mm_add_epi32(acc, _mm_shuffle_epi32(acc, _MM_SHUFFLE(2, 3, 0, 1)));
    dot = _mm_cvtsi128_si32(acc);
#endif
    for (; j < b->dim; j++) dot += (int32_t)m[j] * b->qq[j];
    return norm > 0 ? (float)dot * b->qscale / norm : 0;
}

static void best_add_rows(void *arg, const int64_t *id, const int8_t *m, const float *norm, size_t n)
{
    struct best *b = arg;
    for (size_t i = 0; i < n; i++) best_add(b, id[i], cos_i8(b, m + i * (size_t)b->dim, norm[i]));
}

/* The scan's rows (r: its first step's result) into b; each row's opened
 * vector also into keep when not NULL (a scope to keep whole), which is
 * emptied when a row is not of it (made from text, or dropped). */
static int mvec_rank(const struct place *p, struct mg__mvq *v, const struct mg__mvec_kind *kind,
                     const unsigned char *ctx, struct mg_sql_st *st, int r, struct best *bst, struct fills *fills,
                     struct mg__mvkept_rows *keep, struct mg_err *err)
{
    float *x = malloc((size_t)v->dim * sizeof(float));
    int8_t *m8 = malloc((size_t)v->dim);
    if (!x || !m8) {
        free(x);
        free(m8);
        return mg_err_oom(err);
    }
    struct mg_sql_st *tst = NULL;
    size_t rows = 0, dropped = 0;
    bool whole = keep != NULL;
    for (; r == 1; r = mg_sql_step(st, err)) {
        if (++rows > SCAN_MAX) break; /* the newest SCAN_MAX rows only */
        int64_t id = mg_sql_int(st, 0);
        size_t bl;
        const unsigned char *b = mg_sql_blob(st, 1, &bl);
        if (!b) bl = 0;
        float norm;
        size_t head = bl ? 1 + (size_t)b[0] + NONCE : 0; /* signature and nonce */
        bool kept = bl && mg__mvkept_get(ctx, id, b, bl, head, v->dim, m8, &norm);
        int o = kept ? 0 : open_vec(p, v, kind->table, id, b, bl, m8, &norm);
        if (o < 0) {
            dropped++;
            whole = false;
            continue;
        }
        if (o > 0) {
            whole = false;
            if (embed_row(p, v, kind, &tst, id, b, bl, x, fills) != 0) continue;
            float s = 0;
            for (int j = 0; j < v->dim; j++) s += x[j] * v->q[j]; /* (a vector made now: floats) */
            best_add(bst, id, s);
            continue;
        }
        if (!kept) mg__mvkept_put(ctx, id, b, bl, head, v->dim, m8, norm);
        if (whole && mg__mvkept_rows_add(keep, v->dim, id, m8, norm) != 0) whole = false;
        best_add(bst, id, cos_i8(bst, m8, norm));
    }
    if (keep && !whole) mg__mvkept_rows_free(keep);
    mg_sql_finalize(&tst);
    free(x);
    free(m8);
    if (dropped) {
        fprintf(stderr, "memgate: warning: memory vectors: %zu vector(s) of %s in repo '%s' failed "
                "authentication (moved or changed on disk): dropped\n", dropped, kind->table, p->repo->id);
        mg_metrics_isolation_drop("memory_vector", dropped);
    }
    return r < 0 ? -1 : 0;
}

/* The key a scan's scope is kept whole under (SQLite; NULL on PostgreSQL):
 * its sealing context, its connection (whose data version it was read at)
 * and its SQL with the values bound. */
static char *scope_key(const struct place *p, const unsigned char *ctx, struct mg_sql_st *st)
{
    char *sql = mg_sql_expanded(st);
    if (!sql) return NULL;
    struct mg_buf b;
    mg_buf_init(&b, 1 << 20);
    for (size_t i = 0; i < MG_MVKEPT_CTX; i++) mg_buf_addf(&b, "%02x", ctx[i]);
    mg_buf_addf(&b, "|%p|%s", (void *)p->db, sql);
    free(sql);
    return mg_buf_detach(&b, NULL);
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
    int64_t id;
    double score;
    size_t wrank; /* in the word list (SIZE_MAX: not in it) */
};

static int cmp_fused(const void *a, const void *b)
{
    const struct fused *x = a, *y = b;
    if (x->score != y->score) return x->score < y->score ? 1 : -1;
    return x->wrank < y->wrank ? -1 : x->wrank > y->wrank;
}

/* The word list (nw ids) and the vector list (nv) fused by reciprocal rank
 * into f (room for nw + nv), best first; how many. Only ids: the rows found
 * by meaning alone are read once it is known which of them are shown. */
static size_t fuse_ids(const int64_t *wid, size_t nw, const int64_t *vid, size_t nv, struct fused *f)
{
    size_t n = 0;
    for (size_t i = 0; i < nw; i++) f[n++] = (struct fused){wid[i], 1.0 / (FUSE_K + (double)i + 1), i};
    for (size_t r = 0; r < nv; r++) {
        double s = 1.0 / (FUSE_K + (double)r + 1);
        size_t i = 0;
        while (i < nw && wid[i] != vid[r]) i++;
        if (i < nw) f[i].score += s;
        else f[n++] = (struct fused){vid[r], s, SIZE_MAX};
    }
    qsort(f, n, sizeof(*f), cmp_fused);
    return n;
}

/* The scope's rows nearest the query, best first, into vid (room for k); *nv
 * how many. The scan's rows are read unless the scope is kept whole at the
 * data version its first step sees (SQLite); the vectors made from text on
 * the way are stored after it. 0 or -1. */
static int vector_list(struct place *p, struct mg__mvq *v, const struct mg__mvec_kind *kind, void *ctx, size_t k,
                       int64_t *vid, size_t *nv, struct mg_err *err)
{
    struct mg_sql_st *st = NULL;
    if (kind->scan(ctx, p, &st, err) != 0) return -1;
    float *sc = malloc(k * sizeof(*sc));
    int16_t *qq = malloc((size_t)v->dim * sizeof(*qq));
    if (!sc || !qq) {
        free(sc);
        free(qq);
        mg_sql_finalize(&st);
        return mg_err_oom(err);
    }
    struct best bst = {vid, sc, 0, k, qq, 1.0f, v->dim};
    best_query(&bst, v->q);
    struct fills fills = {0};
    struct mg__mvkept_rows keep = {0};
    unsigned char sealed_in[MG_MVKEPT_CTX];
    ctx_of(p, v, kind->table, sealed_in);
    uint32_t ver = 0;
    int r = mg_sql_step(st, err);
    char *key = r == 1 && mg_sql_data_version(p->db, &ver) ? scope_key(p, sealed_in, st) : NULL;
    if (key && mg__mvkept_scope_each(key, ver, v->dim, best_add_rows, &bst)) {
        r = 0;
    } else {
        r = mvec_rank(p, v, kind, sealed_in, st, r, &bst, &fills, key ? &keep : NULL, err);
        if (r == 0 && key && keep.n) mg__mvkept_scope_put(key, ver, v->dim, &keep);
    }
    mg__mvkept_rows_free(&keep);
    free(key);
    free(sc);
    free(qq);
    *nv = bst.n;
    mg_sql_finalize(&st);
    if (r == 0) store_fills(p, kind->table, &fills);
    fills_free(&fills);
    return r;
}

int mg__mvec_search(struct place *p, struct mg__mvq *v, const struct mg__mvec_kind *kind, void *ctx, int limit,
                    struct mg_items *out, struct mg_err *err)
{
    struct mg_items w = {0}, m = {0};
    int64_t *wid = NULL, *mid = NULL, *vid = NULL, *miss = NULL;
    struct fused *f = NULL;
    char *idl = NULL;
    size_t nv = 0, k = (size_t)limit + MG_MVEC_EXTRA, nmiss = 0;
    int rc = -1;
    if (kind->words(ctx, p, (int)k, &w, &wid, err) != 0) goto out;
    if (!(vid = malloc(k * sizeof(*vid))) || !(miss = malloc(k * sizeof(*miss)))) {
        mg_err_oom(err);
        goto out;
    }
    if (vector_list(p, v, kind, ctx, k, vid, &nv, err) != 0) goto out;
    if (!(f = malloc((w.n + nv + 1) * sizeof(*f)))) {
        mg_err_oom(err);
        goto out;
    }
    size_t nf = fuse_ids(wid, w.n, vid, nv, f), shown = nf < (size_t)limit ? nf : (size_t)limit;
    for (size_t i = 0; i < shown; i++)
        if (f[i].wrank == SIZE_MAX) miss[nmiss++] = f[i].id;
    if (!(idl = idlist(mg__mem_pg(p), miss, nmiss))) {
        mg_err_oom(err);
        goto out;
    }
    if (nmiss && kind->rows(ctx, p, idl, (int)nmiss, &m, &mid, err) != 0) goto out;
    rc = 0;
    for (size_t i = 0; i < shown && rc == 0; i++) {
        struct mg_item *it = NULL;
        if (f[i].wrank != SIZE_MAX) {
            it = w.v[f[i].wrank];
            w.v[f[i].wrank] = NULL;
        } else {
            for (size_t j = 0; j < m.n && !it; j++)
                if (m.v[j] && mid[j] == f[i].id) {
                    it = m.v[j];
                    m.v[j] = NULL;
                }
        }
        if (!it) continue; /* removed since the scan */
        if (kind->set_score) kind->set_score(it, f[i].score);
        if (mg_items_push(out, it) != 0) rc = mg_err_oom(err);
    }
out:
    mg_items_release(&w);
    mg_items_release(&m);
    free(wid);
    free(mid);
    free(vid);
    free(miss);
    free(idl);
    free(f);
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
