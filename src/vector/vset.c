/* vset.c — a repo's vectors in memory (struct mg_vset, vstore.h): int8
 * quantisation and the block layout, the sealed per-file blobs they are
 * loaded from, and the exact search over them. The store (vstore.c) keeps
 * sets in its process cache; the column file (vcols.c) reads partial ones.
 *
 * Sections:
 *   1. quantisation, the block layout and the int8 scores
 *   2. sealed blobs
 *   3. exact search
 */
#include "vector/vstore.h"

#include <math.h>
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "store/db.h"
#include "store/indexdb.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define HAVE_X86 1
#endif

/* ---- 1. quantisation, the block layout and the int8 scores ----------------------------------------- */

void mg_vec_quantize(const float *v, int dim, int8_t *q, float *scale)
{
    float mx = 0;
    for (int i = 0; i < dim; i++) mx = fabsf(v[i]) > mx ? fabsf(v[i]) : mx;
    float s = mx > 0 ? mx / 127.0f : 1.0f;
    for (int i = 0; i < dim; i++) {
        long x = lrintf(v[i] / s);
        q[i] = (int8_t)(x > 127 ? 127 : x < -127 ? -127 : x);
    }
    *scale = s;
}

#define BLK MG_VBLOCK

/* the first value of dimension j in vector i's block; vector i's is at [i % BLK] */
static inline const int8_t *column(const struct mg_vset *s, size_t i, int j)
{
    return s->q + ((i / BLK) * (size_t)s->dim + (size_t)j) * BLK;
}

void mg_vset_get(const struct mg_vset *s, size_t i, int8_t *out)
{
    for (int j = 0; j < s->dim; j++) out[j] = column(s, i, j)[i % BLK];
}

/* A query's nonzero dimensions: the int8 ones (scan) and the float ones
 * (rescoring; a zero term adds nothing, so the sum is the full dot
 * product's, in the same order). */
struct qdims {
    size_t n, nf;
    int *j, *jf;
    int32_t *w;
    const float *wf; /* the query itself, indexed by jf */
};

static void qdims_free(struct qdims *d)
{
    free(d->j);
    free(d->jf);
    free(d->w);
}

static int qdims_make(const int8_t *qq, const float *q, int dim, struct qdims *d)
{
    *d = (struct qdims){0};
    d->j = malloc((size_t)dim * sizeof(int));
    d->jf = malloc((size_t)dim * sizeof(int));
    d->w = malloc((size_t)dim * sizeof(int32_t));
    if (!d->j || !d->jf || !d->w) {
        qdims_free(d);
        return -1;
    }
    for (int j = 0; j < dim; j++) {
        if (qq && qq[j]) {
            d->j[d->n] = j;
            d->w[d->n++] = qq[j];
        }
        if (q && q[j] != 0) d->jf[d->nf++] = j;
    }
    d->wf = q;
    return 0;
}

/* acc[e] = the int8 score of the block's vector e, for e in [a, b)
 * (multiples of 32): the query's nonzero dimensions times their columns. */
static void block_scores_scalar(const int8_t *blk, const struct qdims *d, size_t a, size_t b, int32_t *acc)
{
    memset(acc + a, 0, (b - a) * sizeof(*acc));
    for (size_t t = 0; t < d->n; t++) {
        const int8_t *c = blk + (size_t)d->j[t] * BLK;
        int32_t w = d->w[t];
        for (size_t e = a; e < b; e++) acc[e] += w * c[e];
    }
}

#ifdef HAVE_X86
/* Four dimensions at a time, as a VNNI-style kernel without VNNI: the
 * bytes of two columns interleaved, signed by the weights (sign) and
 * multiplied by their magnitudes (maddubs: |w1 x1 + w2 x2| <= 2 * 127 * 127,
 * no saturation), two such pairs interleaved and summed into int32 (madd).
 * Within 32 values the sums come out as 0-3 16-19 | 4-7 20-23 | 8-11 24-27
 * | 12-15 28-31 and are put back in order at the end. */
__attribute__((target("avx2"))) static void block_scores_avx2(const int8_t *blk, const struct qdims *d, size_t a,
                                                              size_t b, int32_t *acc)
{
    memset(acc + a, 0, (b - a) * sizeof(*acc));
    const __m256i ones = _mm256_set1_epi16(1);
    for (size_t t = 0; t < d->n; t += 4) {
        const int8_t *c[4];
        uint8_t w[4];
        for (size_t u = 0; u < 4; u++) {
            bool have = t + u < d->n; /* past the last: a zero weight */
            c[u] = blk + (size_t)d->j[have ? t + u : t] * BLK;
            w[u] = have ? (uint8_t)d->w[t + u] : 0;
        }
        const __m256i s01 = _mm256_set1_epi16((int16_t)(w[0] | w[1] << 8));
        const __m256i s23 = _mm256_set1_epi16((int16_t)(w[2] | w[3] << 8));
        const __m256i m01 = _mm256_abs_epi8(s01), m23 = _mm256_abs_epi8(s23);
        for (size_t e = a; e < b; e += 32) {
            __m256i x0 = _mm256_loadu_si256((const __m256i *)(c[0] + e));
            __m256i x1 = _mm256_loadu_si256((const __m256i *)(c[1] + e));
            __m256i x2 = _mm256_loadu_si256((const __m256i *)(c[2] + e));
            __m256i x3 = _mm256_loadu_si256((const __m256i *)(c[3] + e));
            __m256i p01l = _mm256_maddubs_epi16(m01, _mm256_sign_epi8(_mm256_unpacklo_epi8(x0, x1), s01));
            __m256i p01h = _mm256_maddubs_epi16(m01, _mm256_sign_epi8(_mm256_unpackhi_epi8(x0, x1), s01));
            __m256i p23l = _mm256_maddubs_epi16(m23, _mm256_sign_epi8(_mm256_unpacklo_epi8(x2, x3), s23));
            __m256i p23h = _mm256_maddubs_epi16(m23, _mm256_sign_epi8(_mm256_unpackhi_epi8(x2, x3), s23));
            __m256i *p = (__m256i *)(acc + e);
            __m256i sums[4] = {_mm256_madd_epi16(_mm256_unpacklo_epi16(p01l, p23l), ones),
                               _mm256_madd_epi16(_mm256_unpackhi_epi16(p01l, p23l), ones),
                               _mm256_madd_epi16(_mm256_unpacklo_epi16(p01h, p23h), ones),
                               _mm256_madd_epi16(_mm256_unpackhi_epi16(p01h, p23h), ones)};
            for (int r = 0; r < 4; r++)
                _mm256_storeu_si256(p + r, _mm256_add_epi32(_mm256_loadu_si256(p + r), sums[r]));
        }
    }
    for (size_t e = a; e < b; e += 32) {
        __m256i *p = (__m256i *)(acc + e);
        __m256i r0 = _mm256_loadu_si256(p), r1 = _mm256_loadu_si256(p + 1);
        __m256i r2 = _mm256_loadu_si256(p + 2), r3 = _mm256_loadu_si256(p + 3);
        _mm256_storeu_si256(p, _mm256_permute2x128_si256(r0, r1, 0x20));
        _mm256_storeu_si256(p + 1, _mm256_permute2x128_si256(r2, r3, 0x20));
        _mm256_storeu_si256(p + 2, _mm256_permute2x128_si256(r0, r1, 0x31));
        _mm256_storeu_si256(p + 3, _mm256_permute2x128_si256(r2, r3, 0x31));
    }
}
#endif

typedef void (*block_fn)(const int8_t *, const struct qdims *, size_t, size_t, int32_t *);

static block_fn pick_block(void)
{
#ifdef HAVE_X86
    if (__builtin_cpu_supports("avx2")) return block_scores_avx2;
#endif
    return block_scores_scalar;
}

/* The int8 scores of the vectors from `from` on, up to hi but within one
 * block, in acc[i % BLK]; returns where the piece ends. */
static size_t piece_scores(const struct mg_vset *s, const struct qdims *d, block_fn kernel, size_t from, size_t hi,
                           int32_t *acc)
{
    size_t base = from / BLK * BLK, to = hi - base < BLK ? hi : base + BLK;
    kernel(column(s, from, 0), d, (from - base) & ~(size_t)31, (to - base + 31) & ~(size_t)31, acc);
    return to;
}

int mg_vset_dot_i8(const struct mg_vset *s, const int8_t *qq, size_t lo, size_t hi, int32_t *out)
{
    struct qdims d;
    if (qdims_make(qq, NULL, s->dim, &d) != 0) return -1;
    int32_t acc[BLK] __attribute__((aligned(32)));
    block_fn kernel = pick_block();
    for (size_t from = lo; from < hi;) {
        size_t to = piece_scores(s, &d, kernel, from, hi, acc);
        for (size_t i = from; i < to; i++) out[i - lo] = acc[i % BLK];
        from = to;
    }
    qdims_free(&d);
    return 0;
}

/* the float dot product of the query with vector i (unscaled) */
static float dot_f(const struct mg_vset *s, const struct qdims *d, size_t i)
{
    float sum = 0;
    for (size_t t = 0; t < d->nf; t++) sum += d->wf[d->jf[t]] * (float)column(s, i, d->jf[t])[i % BLK];
    return sum;
}

/* ---- 2. sealed blobs ---------------------------------------------------------------------------- */

#define NONCE crypto_aead_xchacha20poly1305_ietf_NPUBBYTES
#define MAC crypto_aead_xchacha20poly1305_ietf_ABYTES

static size_t make_ad(unsigned char *ad, size_t cap, const char *repo_id, int64_t file_id)
{
    size_t n = (size_t)snprintf((char *)ad, cap, "mgvec1:%s", repo_id) + 1;
    if (n + 8 > cap) n = cap - 8;
    for (int i = 0; i < 8; i++) ad[n + (size_t)i] = (unsigned char)((uint64_t)file_id >> (8 * i));
    return n + 8;
}

/* plaintext: u32 dim, u32 n, n i64 ids, n f32 scales, n*dim int8 */
int mg_vblob_seal(const unsigned char key[MG_VKEY_BYTES], const char *repo_id, int64_t file_id, int dim, size_t n,
                  const int64_t *ids, const float *vecs, void **blob, size_t *len, struct mg_err *err)
{
    if (sodium_init() < 0) return mg_err_set(err, MG_E_INTERNAL, "libsodium failed to start");
    size_t plen = 8 + n * 12 + n * (size_t)dim;
    unsigned char *p = malloc(plen), *out = malloc(NONCE + plen + MAC);
    if (!p || !out) {
        free(p);
        free(out);
        return mg_err_oom(err);
    }
    uint32_t d32 = (uint32_t)dim, n32 = (uint32_t)n;
    memcpy(p, &d32, 4);
    memcpy(p + 4, &n32, 4);
    memcpy(p + 8, ids, n * 8);
    for (size_t i = 0; i < n; i++) {
        float s;
        mg_vec_quantize(vecs + i * (size_t)dim, dim, (int8_t *)(p + 8 + n * 12 + i * (size_t)dim), &s);
        memcpy(p + 8 + n * 8 + i * 4, &s, 4);
    }
    unsigned char ad[160];
    size_t adl = make_ad(ad, sizeof(ad), repo_id, file_id);
    randombytes_buf(out, NONCE);
    unsigned long long clen;
    crypto_aead_xchacha20poly1305_ietf_encrypt(out + NONCE, &clen, p, plen, ad, adl, NULL, out, key);
    free(p);
    *blob = out;
    *len = NONCE + (size_t)clen;
    return 0;
}

static int vset_grow(struct mg_vset *s, size_t more)
{
    if (s->n + more > s->cap) {
        size_t cap = s->cap ? s->cap : BLK; /* whole blocks */
        while (cap < s->n + more) cap *= 2;
        int64_t *ids = realloc(s->ids, cap * sizeof(int64_t));
        if (ids) s->ids = ids;
        float *sc = realloc(s->scale, cap * sizeof(float));
        if (sc) s->scale = sc;
        int8_t *q = realloc(s->q, cap * (size_t)s->dim);
        if (q) s->q = q;
        if (!ids || !sc || !q) return -1;
        s->cap = cap;
    }
    if (s->nfiles == s->fcap) {
        size_t cap = s->fcap ? s->fcap * 2 : 256;
        struct mg_vfile *f = realloc(s->files, cap * sizeof(*f));
        if (!f) return -1;
        s->files = f;
        s->fcap = cap;
    }
    return 0;
}

#ifdef __SSE2__
/* 16 rows of 16 bytes (src, a row every sstride bytes) into 16 columns
 * (dst, a column every dstride bytes): unpacks of 8, 16, 32 and 64 bits,
 * each doubling the run of one column's bytes. */
static void transpose16(const int8_t *src, size_t sstride, int8_t *dst, size_t dstride)
{
    __m128i r[16], a[16], b[16], c[16];
    for (int i = 0; i < 16; i++) r[i] = _mm_loadu_si128((const __m128i *)(src + (size_t)i * sstride));
    for (int k = 0; k < 8; k++) { /* a[k]: rows 2k, 2k+1 of columns 0-7; a[8 + k]: of 8-15 */
        a[k] = _mm_unpacklo_epi8(r[2 * k], r[2 * k + 1]);
        a[8 + k] = _mm_unpackhi_epi8(r[2 * k], r[2 * k + 1]);
    }
    for (int h = 0; h < 2; h++) /* b[4g + k]: rows 4k..4k+3 of columns 4g..4g+3 */
        for (int k = 0; k < 4; k++) {
            b[4 * (2 * h) + k] = _mm_unpacklo_epi16(a[8 * h + 2 * k], a[8 * h + 2 * k + 1]);
            b[4 * (2 * h + 1) + k] = _mm_unpackhi_epi16(a[8 * h + 2 * k], a[8 * h + 2 * k + 1]);
        }
    for (int g = 0; g < 4; g++) /* c[2q + p]: rows 8p..8p+7 of columns 2q, 2q+1 */
        for (int p = 0; p < 2; p++) {
            c[2 * (2 * g) + p] = _mm_unpacklo_epi32(b[4 * g + 2 * p], b[4 * g + 2 * p + 1]);
            c[2 * (2 * g + 1) + p] = _mm_unpackhi_epi32(b[4 * g + 2 * p], b[4 * g + 2 * p + 1]);
        }
    for (int q = 0; q < 8; q++) {
        _mm_storeu_si128((__m128i *)(dst + (size_t)(2 * q) * dstride), _mm_unpacklo_epi64(c[2 * q], c[2 * q + 1]));
        _mm_storeu_si128((__m128i *)(dst + (size_t)(2 * q + 1) * dstride),
                         _mm_unpackhi_epi64(c[2 * q], c[2 * q + 1]));
    }
}
#endif

/* The staged rows (a whole block's) into the block of vector `base`. */
static void stage_flush(struct mg_vset *s, size_t base)
{
    int8_t *blk = s->q + base * (size_t)s->dim;
    size_t dim = (size_t)s->dim, j0 = 0;
#ifdef __SSE2__
    for (; j0 + 16 <= dim; j0 += 16)
        for (size_t r = 0; r < BLK; r += 16) transpose16(s->stage + r * dim + j0, dim, blk + j0 * BLK + r, BLK);
#endif
    for (size_t j = j0; j < dim; j++)
        for (size_t r = 0; r < BLK; r++) blk[j * BLK + r] = s->stage[r * dim + j];
}

/* sum of squares of n int8 values */
static int32_t sumsq_i8(const int8_t *x, size_t n)
{
    int32_t sum = 0;
    size_t i = 0;
#ifdef __SSE2__
    __m128i acc = _mm_setzero_si128();
    for (; i + 16 <= n; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(x + i));
        __m128i lo = _mm_srai_epi16(_mm_unpacklo_epi8(v, v), 8), hi = _mm_srai_epi16(_mm_unpackhi_epi8(v, v), 8);
        acc = _mm_add_epi32(acc, _mm_add_epi32(_mm_madd_epi16(lo, lo), _mm_madd_epi16(hi, hi)));
    }
    int32_t part[4];
    _mm_storeu_si128((__m128i *)part, acc);
    sum = part[0] + part[1] + part[2] + part[3];
#endif
    for (; i < n; i++) sum += (int32_t)x[i] * x[i];
    return sum;
}

int mg_vset_add_blob(struct mg_vset *s, const unsigned char key[MG_VKEY_BYTES], const char *repo_id,
                     int64_t file_id, const void *blob, size_t len, struct mg_err *err)
{
    if (len < NONCE + MAC + 8) goto tampered;
    size_t plen = len - NONCE - MAC;
    unsigned char *p = malloc(plen);
    if (!p) return mg_err_oom(err);
    unsigned char ad[160];
    size_t adl = make_ad(ad, sizeof(ad), repo_id, file_id);
    unsigned long long got;
    const unsigned char *b = blob;
    if (crypto_aead_xchacha20poly1305_ietf_decrypt(p, &got, NULL, b + NONCE, len - NONCE, ad, adl, b, key) != 0) {
        free(p);
        goto tampered;
    }
    uint32_t dim, n;
    memcpy(&dim, p, 4);
    memcpy(&n, p + 4, 4);
    if (dim == 0 || dim > 8192 || (s->dim && (int)dim != s->dim) || (size_t)n * (12 + dim) + 8 != plen) {
        free(p);
        return mg_err_set(err, MG_E_VECTOR_TAMPERED, "the vectors of file %lld in repo '%s' have an unexpected "
                          "shape; index the repo again", (long long)file_id, repo_id);
    }
    s->dim = (int)dim;
    if (vset_grow(s, n) != 0) {
        free(p);
        return mg_err_set(err, MG_E_NO_MEMORY, "out of memory loading vectors");
    }
    memcpy(s->ids + s->n, p + 8, (size_t)n * 8);
    memcpy(s->scale + s->n, p + 8 + (size_t)n * 8, (size_t)n * 4);
    const int8_t *rows = (const int8_t *)p + 8 + (size_t)n * 12;
    for (size_t r = 0; r < n; r++) {
        float nn = sqrtf((float)sumsq_i8(rows + r * dim, dim)) * s->scale[s->n + r];
        if (nn > s->maxnorm) s->maxnorm = nn;
    }
    /* rows gather in the stage until their block is full, then go in by columns */
    if (!s->stage && !(s->stage = malloc((size_t)BLK * dim))) {
        free(p);
        return mg_err_set(err, MG_E_NO_MEMORY, "out of memory loading vectors");
    }
    for (size_t r = 0; r < n;) {
        size_t i = s->n + r, take = BLK - i % BLK < n - r ? BLK - i % BLK : n - r;
        memcpy(s->stage + i % BLK * dim, rows + r * dim, take * dim);
        r += take;
        if ((i + take) % BLK == 0) stage_flush(s, i + take - BLK);
    }
    if (n) {
        int64_t lo = s->ids[s->n], min = lo, max = lo;
        for (size_t i = s->n; i < s->n + n; i++) {
            if (s->ids[i] < min) min = s->ids[i];
            if (s->ids[i] > max) max = s->ids[i];
        }
        s->files[s->nfiles++] = (struct mg_vfile){lo, min, max, (uint32_t)s->n, n};
    }
    s->n += n;
    free(p);
    return 0;
tampered:
    return mg_err_set(err, MG_E_VECTOR_TAMPERED, "the stored vectors of file %lld in repo '%s' fail authentication "
                      "(changed on disk, or sealed with another key); remove the repo's vectors by indexing it "
                      "again with MEMGATE_EMBEDDER=none and then with your embedder", (long long)file_id, repo_id);
}

static int cmp_vfile(const void *a, const void *b)
{
    const struct mg_vfile *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

void mg_vset_finish(struct mg_vset *s)
{
    if (s->stage && s->n % BLK) { /* the last block, zeros after its last vector */
        memset(s->stage + s->n % BLK * (size_t)s->dim, 0, (BLK - s->n % BLK) * (size_t)s->dim);
        stage_flush(s, s->n / BLK * BLK);
    }
    free(s->stage);
    s->stage = NULL;
    qsort(s->files, s->nfiles, sizeof(*s->files), cmp_vfile);
}

void mg_vset_unref(struct mg_vset **ps)
{
    struct mg_vset *s = *ps;
    *ps = NULL;
    if (!s || __atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL) > 0) return;
    free(s->ids);
    free(s->scale);
    if (s->qmap) munmap(s->q, s->qmap);
    else free(s->q);
    free(s->stage);
    free(s->files);
    free(s->have);
    free(s);
}

int mg_vset_load(struct mg_db *d, const char *repo_id, const unsigned char key[MG_VKEY_BYTES], struct mg_vload *pr,
                 struct mg_vset **out, struct mg_err *err)
{
    *out = NULL;
    struct mg_vset *s = calloc(1, sizeof(*s));
    if (!s) return mg_err_oom(err);
    s->refs = 1;
    /* In chunk order, the order scopes' ranges come in: a scope's candidates
     * are then long runs of the set. The file ids are sorted first, then each
     * file's blob is read (sorting the rows would carry the blobs through a
     * temporary b-tree). Vectors of files no longer indexed are left out;
     * the next index run prunes them. */
    struct mg_idx_cur order = {0}, get = {0};
    struct mg_idx_row row;
    int64_t *fid = NULL;
    size_t nf = 0, cap = 0;
    uint64_t total = 0;
    int rc = -1;
    if (mg_idx_vectors_by_chunk(d, &order, err) != 0) goto out;
    int step;
    while ((step = mg_idx_next(&order, &row)) > 0) {
        if (nf == cap) {
            int64_t *v = realloc(fid, (cap = cap ? 2 * cap : 1024) * sizeof(*fid));
            if (!v) {
                mg_err_set(err, MG_E_NO_MEMORY, "out of memory loading vectors");
                goto out;
            }
            fid = v;
        }
        fid[nf++] = row.file_id;
        total += (uint64_t)row.n;
    }
    mg_idx_done(&order);
    if (step != 0) {
        mg_db_error(d, "read vectors", err);
        goto out;
    }
    if (pr) __atomic_store_n(&pr->total, total, __ATOMIC_RELAXED);
    for (size_t i = 0; i < nf; i++) {
        if (pr && __atomic_load_n(&pr->stop, __ATOMIC_RELAXED)) {
            mg_err_set(err, MG_E_INTERNAL, "loading the vectors of repo '%s' was stopped", repo_id);
            goto out;
        }
        if (mg_idx_vectors_of(d, fid[i], &get, err) != 0) goto out;
        if ((step = mg_idx_next(&get, &row)) == 0) { /* (gone meanwhile: a reader sees one snapshot) */
            mg_idx_done(&get);
            continue;
        }
        if (step < 0) {
            mg_db_error(d, "read vectors", err);
            goto out;
        }
        if (mg_vset_add_blob(s, key, repo_id, fid[i], row.blob, row.bloblen, err) != 0) goto out;
        mg_idx_done(&get);
        if (pr) __atomic_store_n(&pr->done, (uint64_t)s->n, __ATOMIC_RELAXED);
    }
    mg_vset_finish(s);
    *out = s;
    s = NULL;
    rc = 0;
out:
    mg_idx_done(&order);
    mg_idx_done(&get);
    free(fid);
    mg_vset_unref(&s);
    return rc;
}

/* ---- 3. exact search ------------------------------------------------------------------------------------ */

/* a min-heap of the best k (by score; ties: smaller id better) */
struct heap {
    struct mg_vmatch *v;
    size_t n, k;
};

static bool worse(const struct mg_vmatch *a, const struct mg_vmatch *b)
{
    return a->score < b->score || (a->score == b->score && a->id > b->id);
}

static void heap_push(struct heap *h, int64_t id, float score)
{
    struct mg_vmatch m = {id, score};
    if (h->n == h->k) {
        if (!worse(&h->v[0], &m)) return;
        size_t i = 0; /* replace the root, sift down */
        for (;;) {
            size_t l = 2 * i + 1, r = l + 1, w = i;
            const struct mg_vmatch *cur = w == i ? &m : &h->v[w];
            if (l < h->n && worse(&h->v[l], cur)) w = l;
            cur = w == i ? &m : &h->v[w];
            if (r < h->n && worse(&h->v[r], cur)) w = r;
            if (w == i) break;
            h->v[i] = h->v[w];
            i = w;
        }
        h->v[i] = m;
        return;
    }
    size_t i = h->n++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!worse(&m, &h->v[p])) break;
        h->v[i] = h->v[p];
        i = p;
    }
    h->v[i] = m;
}

static int cmp_match(const void *a, const void *b)
{
    const struct mg_vmatch *x = a, *y = b;
    if (x->score != y->score) return x->score > y->score ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* The first file that may hold id: the last whose range starts at or
 * before it (or the first file). */
static const struct mg_vfile *find_file(const struct mg_vset *s, int64_t id)
{
    size_t a = 0, b = s->nfiles;
    while (a < b) {
        size_t m = (a + b) / 2;
        if (s->files[m].lo <= id) a = m + 1;
        else b = m;
    }
    return s->nfiles ? &s->files[a ? a - 1 : 0] : NULL;
}

/* The candidates as runs of vector indexes [lo, hi): the vectors whose
 * chunk ids lie in one of the ranges (all of them without ranges), adjacent
 * runs merged. A scope leaving out a few directories is a few long runs,
 * which scan at the speed of memory. */
struct run {
    size_t lo, hi;
};

static int candidate_runs(const struct mg_vset *s, const struct mg_vrange *r, size_t nr, struct run **out, size_t *n)
{
    size_t cap = r ? 64 : 1;
    struct run *v = malloc(cap * sizeof(*v));
    if (!v) return -1;
    *n = 0;
    if (!r) {
        v[(*n)++] = (struct run){0, s->n};
        *out = v;
        return 0;
    }
    const struct mg_vfile *end_f = s->files + s->nfiles, *at = NULL;
    for (size_t k = 0; k < nr; k++) {
        /* the first file that may hold r[k].lo: walking on from the last one
         * while the ranges ascend (a scope's do), else a binary search */
        const struct mg_vfile *f;
        if (at && k > 0 && r[k].lo >= r[k - 1].lo) {
            f = at;
            while (f + 1 < end_f && (f + 1)->lo <= r[k].lo) f++;
        } else {
            f = find_file(s, r[k].lo);
        }
        at = f;
        for (; f && f < end_f && f->lo <= r[k].hi; f++) {
            bool whole = f->min >= r[k].lo && f->max <= r[k].hi; /* the usual case: a range is one file's */
            for (size_t i = f->first; i < (size_t)f->first + f->count; i++) {
                if (!whole && (s->ids[i] < r[k].lo || s->ids[i] > r[k].hi)) continue;
                size_t end = whole ? (size_t)f->first + f->count : i + 1;
                if (*n && v[*n - 1].hi == i) {
                    v[*n - 1].hi = end;
                    i = end - 1;
                    continue;
                }
                if (*n == cap) {
                    struct run *nv = realloc(v, 2 * cap * sizeof(*v));
                    if (!nv) {
                        free(v);
                        return -1;
                    }
                    v = nv;
                    cap *= 2;
                }
                v[(*n)++] = (struct run){i, end};
                i = end - 1;
            }
        }
    }
    *out = v;
    return 0;
}

#define SCAN_THREADS_MAX 4

/* CPUs this thread's scans leave to other work (mg_vset_scan_spare) */
static __thread int scan_spare;

void mg_vset_scan_spare(int n) { scan_spare = n; }
/* bytes read (candidates * the query's nonzero dimensions) worth a thread: about a millisecond */
#define SCAN_PER_THREAD (8u << 20)

struct scan_job {
    const struct mg_vset *s;
    const struct qdims *d;
    float qs;
    const struct run *runs; /* the share: from runs[0].lo + skip to `count` vectors on */
    size_t skip, count;
    struct heap h;
};

static void *scan_main(void *arg)
{
    struct scan_job *j = arg;
    const struct mg_vset *s = j->s;
    block_fn kernel = pick_block();
    int32_t acc[BLK] __attribute__((aligned(32)));
    size_t left = j->count, skip = j->skip;
    for (const struct run *u = j->runs; left > 0; u++) {
        size_t lo = u->lo + skip, hi = u->hi - lo > left ? lo + left : u->hi;
        skip = 0;
        for (size_t from = lo; from < hi;) {
            size_t to = piece_scores(s, j->d, kernel, from, hi, acc);
            for (size_t i = from; i < to; i++) {
                float score = (float)acc[i % BLK] * j->qs * s->scale[i];
                if (j->h.n < j->h.k || score >= j->h.v[0].score) heap_push(&j->h, (int64_t)i, score);
            }
            from = to;
        }
        left -= hi - lo;
    }
    return NULL;
}

/* The shortlist h (its k set) of the candidates by int8 score. */
static int shortlist_scan(const struct mg_vset *s, const struct qdims *d, float qs, const struct run *runs,
                          size_t nruns, struct heap *h)
{
    size_t work = 0;
    for (size_t i = 0; i < nruns; i++) work += runs[i].hi - runs[i].lo;
    static long cpus;
    if (!cpus) cpus = sysconf(_SC_NPROCESSORS_ONLN);
    long avail = cpus - scan_spare;
    size_t nt = work * (d->n ? d->n : 1) / SCAN_PER_THREAD + 1;
    if (nt > (size_t)(avail > 0 ? avail : 1)) nt = (size_t)(avail > 0 ? avail : 1);
    if (nt > SCAN_THREADS_MAX) nt = SCAN_THREADS_MAX;
    struct scan_job jobs[SCAN_THREADS_MAX];
    pthread_t th[SCAN_THREADS_MAX];
    bool started[SCAN_THREADS_MAX] = {false};
    int rc = 0;
    /* equal shares of the candidates: share t starts at candidate work * t / nt */
    size_t u = 0, done = 0; /* runs[u] starts at candidate number `done` */
    for (size_t t = 0; t < nt; t++) {
        size_t from = work * t / nt, to = work * (t + 1) / nt;
        while (u < nruns && done + (runs[u].hi - runs[u].lo) <= from) {
            done += runs[u].hi - runs[u].lo;
            u++;
        }
        jobs[t] = (struct scan_job){s, d, qs, runs + u, from - done, to - from, {NULL, 0, h->k}};
        if (t == 0) {
            jobs[0].h = *h; /* the first share goes straight into h */
            continue;
        }
        jobs[t].h.v = malloc(h->k * sizeof(struct mg_vmatch));
        if (!jobs[t].h.v) {
            rc = -1;
            break;
        }
        started[t] = pthread_create(&th[t], NULL, scan_main, &jobs[t]) == 0;
        if (!started[t]) scan_main(&jobs[t]);
    }
    if (rc == 0) scan_main(&jobs[0]);
    *h = jobs[0].h;
    for (size_t t = 1; t < nt; t++) {
        if (started[t]) pthread_join(th[t], NULL);
        for (size_t i = 0; rc == 0 && jobs[t].h.v && i < jobs[t].h.n; i++)
            heap_push(h, jobs[t].h.v[i].id, jobs[t].h.v[i].score);
        free(jobs[t].h.v);
    }
    return rc;
}

long mg_vset_search(const struct mg_vset *s, const float *query, const struct mg_vrange *r, size_t nr, int k,
                    struct mg_vmatch *out)
{
    if (k <= 0 || !s || s->n == 0) return 0;
    int dim = s->dim;
    size_t shortlist = (size_t)k * 4 + 32;
    struct heap h = {malloc(shortlist * sizeof(struct mg_vmatch)), 0, shortlist};
    struct heap top = {malloc((size_t)k * sizeof(struct mg_vmatch)), 0, (size_t)k};
    int8_t *qq = malloc((size_t)dim);
    struct run *runs = NULL;
    size_t nruns = 0;
    struct qdims d = {0};
    float qs = 1;
    if (qq) mg_vec_quantize(query, dim, qq, &qs);
    if (!h.v || !top.v || !qq || qdims_make(qq, query, dim, &d) != 0 ||
        candidate_runs(s, r, nr, &runs, &nruns) != 0) {
        free(h.v);
        free(top.v);
        free(qq);
        qdims_free(&d);
        return -1;
    }
    /* the error of an int8 score against the float one: |(q - qs*qq) . v| <= |q - qs*qq| * |v| */
    double e2 = 0;
    for (int i = 0; i < dim; i++) {
        double x = query[i] - qs * qq[i];
        e2 += x * x;
    }
    float eps = (float)(sqrt(e2) * (s->maxnorm > 0 ? s->maxnorm : 1.0)) * 1.0001f + 1e-6f;
    /* 1. int8 scores of every candidate, a shortlist of the best (threads
     * share a large scan: it is bound by memory bandwidth) */
    if (shortlist_scan(s, &d, qs, runs, nruns, &h) != 0) {
        free(h.v);
        free(top.v);
        free(qq);
        free(runs);
        qdims_free(&d);
        return -1;
    }
    /* 2. float scores of the shortlist */
    float floor_approx = h.n == h.k ? h.v[0].score : -INFINITY;
    for (size_t j = 0; j < h.n; j++) {
        size_t i = (size_t)h.v[j].id;
        heap_push(&top, (int64_t)i, dot_f(s, &d, i) * s->scale[i]);
    }
    /* 3. could a vector outside the shortlist beat the k-th? then score all in float */
    if (h.n == h.k && top.n > 0 && !(top.n == top.k && top.v[0].score > floor_approx + eps)) {
        top.n = 0;
        for (size_t u = 0; u < nruns; u++)
            for (size_t i = runs[u].lo; i < runs[u].hi; i++)
                heap_push(&top, (int64_t)i, dot_f(s, &d, i) * s->scale[i]);
    }
    size_t n = top.n;
    for (size_t j = 0; j < n; j++) out[j] = (struct mg_vmatch){s->ids[top.v[j].id], top.v[j].score};
    qsort(out, n, sizeof(*out), cmp_match);
    free(h.v);
    free(top.v);
    free(qq);
    free(runs);
    qdims_free(&d);
    return (long)n;
}

int mg_vset_score(const struct mg_vset *s, const float *query, const int64_t *ids, size_t n, float *scores)
{
    struct qdims d = {0};
    if (s && qdims_make(NULL, query, s->dim, &d) != 0) return -1;
    for (size_t j = 0; j < n; j++) {
        scores[j] = NAN;
        if (!s) continue;
        const struct mg_vfile *f = find_file(s, ids[j]);
        for (size_t i = f ? f->first : 0; f && i < (size_t)f->first + f->count; i++)
            if (s->ids[i] == ids[j]) {
                scores[j] = dot_f(s, &d, i) * s->scale[i];
                break;
            }
    }
    qdims_free(&d);
    return 0;
}
