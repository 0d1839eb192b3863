/* vstore.c — the built-in vector store (see vstore.h).
 *
 * Sections:
 *   1. keys
 *   2. quantisation and the int8 dot product
 *   3. sealed blobs
 *   4. the in-memory set and exact search
 *   5. the process cache and the store vtable
 */
#include "vector/vstore.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/db.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define HAVE_X86 1
#endif

/* ---- 1. keys --------------------------------------------------------------------- */

static pthread_once_t sodium_once = PTHREAD_ONCE_INIT;
static int sodium_ok;
static void sodium_start(void) { sodium_ok = sodium_init() >= 0; }

static int hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int mg_vkey_load(const struct mg_config *c, const char *tenant, unsigned char key[MG_VKEY_BYTES],
                 struct mg_err *err)
{
    pthread_once(&sodium_once, sodium_start);
    if (!sodium_ok) return mg_err_set(err, MG_E_INTERNAL, "libsodium failed to start");
    const char *m = getenv("MEMGATE_MASTER_KEY");
    if (m && *m) {
        unsigned char master[32];
        if (strlen(m) != 64)
            return mg_err_set(err, MG_E_KEY, "MEMGATE_MASTER_KEY must be 64 hex digits (32 bytes), e.g. from "
                              "`openssl rand -hex 32`");
        for (int i = 0; i < 32; i++) {
            int hi = hexval(m[2 * i]), lo = hexval(m[2 * i + 1]);
            if (hi < 0 || lo < 0)
                return mg_err_set(err, MG_E_KEY, "MEMGATE_MASTER_KEY must be 64 hex digits (32 bytes)");
            master[i] = (unsigned char)(hi << 4 | lo);
        }
        char ctx[160];
        snprintf(ctx, sizeof(ctx), "memgate vectors v1 tenant=%s", tenant);
        crypto_generichash(key, MG_VKEY_BYTES, (const unsigned char *)ctx, strlen(ctx), master, sizeof(master));
        sodium_memzero(master, sizeof(master));
        return 0;
    }
    char dir[PATH_MAX], path[PATH_MAX + 128];
    snprintf(dir, sizeof(dir), "%s/keys", c->home);
    if (mkdir(c->home, 0700) != 0 && errno != EEXIST)
        return mg_err_set(err, MG_E_KEY, "cannot create '%s': %s", c->home, strerror(errno));
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return mg_err_set(err, MG_E_KEY, "cannot create '%s': %s", dir, strerror(errno));
    snprintf(path, sizeof(path), "%s/%s.key", dir, tenant);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0 && errno == ENOENT) {
        /* first use: a random key, written to a temporary file and linked in,
         * so a concurrent first use keeps exactly one key */
        unsigned char k[MG_VKEY_BYTES];
        randombytes_buf(k, sizeof(k));
        char tmp[PATH_MAX + 160];
        snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
        int w = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (w < 0) return mg_err_set(err, MG_E_KEY, "cannot create '%s': %s", tmp, strerror(errno));
        ssize_t wr = write(w, k, sizeof(k));
        int sy = fsync(w);
        close(w);
        sodium_memzero(k, sizeof(k));
        if (wr != (ssize_t)sizeof(k) || sy != 0) {
            unlink(tmp);
            return mg_err_set(err, MG_E_KEY, "cannot write '%s'", tmp);
        }
        if (link(tmp, path) != 0 && errno != EEXIST) {
            int e = errno;
            unlink(tmp);
            return mg_err_set(err, MG_E_KEY, "cannot create '%s': %s", path, strerror(e));
        }
        unlink(tmp);
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    }
    if (fd < 0) return mg_err_set(err, MG_E_KEY, "cannot open the vector key '%s': %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || (sb.st_mode & 077) || sb.st_size != MG_VKEY_BYTES) {
        close(fd);
        return mg_err_set(err, MG_E_KEY, "the vector key '%s' must be a %d-byte file only you can read (mode 0600)",
                          path, MG_VKEY_BYTES);
    }
    ssize_t r = read(fd, key, MG_VKEY_BYTES);
    close(fd);
    if (r != MG_VKEY_BYTES) return mg_err_set(err, MG_E_KEY, "cannot read the vector key '%s'", path);
    return 0;
}

void mg_vkey_id(const unsigned char key[MG_VKEY_BYTES], char out[17])
{
    unsigned char h[8];
    crypto_generichash(h, sizeof(h), (const unsigned char *)"memgate key id", 14, key, MG_VKEY_BYTES);
    for (int i = 0; i < 8; i++) snprintf(out + 2 * i, 3, "%02x", h[i]);
}

/* ---- 2. quantisation and dot products ------------------------------------------------------ */

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

static int32_t dot_i8_scalar(const int8_t *a, const int8_t *b, int dim)
{
    int32_t s = 0;
    for (int i = 0; i < dim; i++) s += (int32_t)a[i] * b[i];
    return s;
}

#ifdef HAVE_X86
__attribute__((target("avx2"))) static int32_t dot_i8_avx2(const int8_t *a, const int8_t *b, int dim)
{
    __m256i acc = _mm256_setzero_si256();
    const __m256i ones = _mm256_set1_epi16(1);
    int i = 0;
    for (; i + 32 <= dim; i += 32) {
        __m256i va = _mm256_loadu_si256((const __m256i *)(a + i));
        __m256i vb = _mm256_loadu_si256((const __m256i *)(b + i));
        /* |a| * (b * sign a): unsigned x signed pairs, no saturation since |x| <= 127 */
        __m256i p = _mm256_maddubs_epi16(_mm256_sign_epi8(va, va), _mm256_sign_epi8(vb, va));
        acc = _mm256_add_epi32(acc, _mm256_madd_epi16(p, ones));
    }
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
    return _mm_cvtsi128_si32(s) + dot_i8_scalar(a + i, b + i, dim - i);
}
#endif

typedef int32_t (*dot_fn)(const int8_t *, const int8_t *, int);

static dot_fn pick_dot(void)
{
#ifdef HAVE_X86
    if (__builtin_cpu_supports("avx2")) return dot_i8_avx2;
#endif
    return dot_i8_scalar;
}

int32_t mg_vec_dot_i8(const int8_t *a, const int8_t *b, int dim) { return pick_dot()(a, b, dim); }

static float dot_f_i8(const float *q, const int8_t *v, int dim)
{
    float s = 0;
    for (int i = 0; i < dim; i++) s += q[i] * (float)v[i];
    return s;
}

/* ---- 3. sealed blobs ---------------------------------------------------------------------------- */

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
    pthread_once(&sodium_once, sodium_start);
    size_t plen = 8 + n * 12 + n * (size_t)dim;
    unsigned char *p = malloc(plen), *out = malloc(NONCE + plen + MAC);
    if (!p || !out) {
        free(p);
        free(out);
        return mg_err_set(err, MG_E_NO_MEMORY, "out of memory");
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
        size_t cap = s->cap ? s->cap : 1024;
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

int mg_vset_add_blob(struct mg_vset *s, const unsigned char key[MG_VKEY_BYTES], const char *repo_id,
                     int64_t file_id, const void *blob, size_t len, struct mg_err *err)
{
    if (len < NONCE + MAC + 8) goto tampered;
    size_t plen = len - NONCE - MAC;
    unsigned char *p = malloc(plen);
    if (!p) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory");
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
    memcpy(s->q + s->n * dim, p + 8 + (size_t)n * 12, (size_t)n * dim);
    for (size_t i = s->n; i < s->n + n; i++) {
        float nn = sqrtf((float)dot_i8_scalar(s->q + i * dim, s->q + i * dim, (int)dim)) * s->scale[i];
        if (nn > s->maxnorm) s->maxnorm = nn;
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

void mg_vset_finish(struct mg_vset *s) { qsort(s->files, s->nfiles, sizeof(*s->files), cmp_vfile); }

void mg_vset_release(struct mg_vset **ps)
{
    struct mg_vset *s = *ps;
    *ps = NULL;
    if (!s || __atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL) > 0) return;
    free(s->ids);
    free(s->scale);
    free(s->q);
    free(s->files);
    free(s);
}

int mg_vset_load(struct mg_db *d, const char *repo_id, const unsigned char key[MG_VKEY_BYTES], struct mg_vset **out,
                 struct mg_err *err)
{
    *out = NULL;
    struct mg_vset *s = calloc(1, sizeof(*s));
    if (!s) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory");
    s->refs = 1;
    sqlite3_stmt *st;
    if (mg_db_prepare(d, "SELECT file_id, blob FROM vectors", &st, err) != 0) {
        mg_vset_release(&s);
        return -1;
    }
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (mg_vset_add_blob(s, key, repo_id, sqlite3_column_int64(st, 0), sqlite3_column_blob(st, 1),
                             (size_t)sqlite3_column_bytes(st, 1), err) != 0) {
            sqlite3_finalize(st);
            mg_vset_release(&s);
            return -1;
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        mg_vset_release(&s);
        return mg_db_error(d, "read vectors", err);
    }
    mg_vset_finish(s);
    *out = s;
    return 0;
}

/* ---- 4. exact search ------------------------------------------------------------------------------------ */

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
#define SCAN_PER_THREAD 150000 /* candidates worth a thread */

struct scan_job {
    const struct mg_vset *s;
    const int8_t *qq;
    float qs;
    const struct run *runs; /* the share: from runs[0].lo + skip to `count` vectors on */
    size_t skip, count;
    struct heap h;
};

static void *scan_main(void *arg)
{
    struct scan_job *j = arg;
    const struct mg_vset *s = j->s;
    int dim = s->dim;
    dot_fn dot = pick_dot();
    size_t left = j->count, skip = j->skip;
    for (const struct run *u = j->runs; left > 0; u++) {
        size_t lo = u->lo + skip, hi = u->hi - lo > left ? lo + left : u->hi;
        skip = 0;
        for (size_t i = lo; i < hi; i++)
            heap_push(&j->h, (int64_t)i, (float)dot(j->qq, s->q + i * (size_t)dim, dim) * j->qs * s->scale[i]);
        left -= hi - lo;
    }
    return NULL;
}

/* The shortlist h (its k set) of the candidates by int8 score. */
static int shortlist_scan(const struct mg_vset *s, const int8_t *qq, float qs, const struct run *runs, size_t nruns,
                          struct heap *h)
{
    size_t work = 0;
    for (size_t i = 0; i < nruns; i++) work += runs[i].hi - runs[i].lo;
    static long cpus;
    if (!cpus) cpus = sysconf(_SC_NPROCESSORS_ONLN);
    long avail = cpus - scan_spare;
    size_t nt = work / SCAN_PER_THREAD + 1;
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
        jobs[t] = (struct scan_job){s, qq, qs, runs + u, from - done, to - from, {NULL, 0, h->k}};
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
    if (!h.v || !top.v || !qq || candidate_runs(s, r, nr, &runs, &nruns) != 0) {
        free(h.v);
        free(top.v);
        free(qq);
        return -1;
    }
    float qs;
    mg_vec_quantize(query, dim, qq, &qs);
    /* the error of an int8 score against the float one: |(q - qs*qq) . v| <= |q - qs*qq| * |v| */
    double e2 = 0;
    for (int i = 0; i < dim; i++) {
        double d = query[i] - qs * qq[i];
        e2 += d * d;
    }
    float eps = (float)(sqrt(e2) * (s->maxnorm > 0 ? s->maxnorm : 1.0)) * 1.0001f + 1e-6f;
    /* 1. int8 scores of every candidate, a shortlist of the best (threads
     * share a large scan: it is bound by memory bandwidth) */
    if (shortlist_scan(s, qq, qs, runs, nruns, &h) != 0) {
        free(h.v);
        free(top.v);
        free(qq);
        free(runs);
        return -1;
    }
    /* 2. float scores of the shortlist */
    float floor_approx = h.n == h.k ? h.v[0].score : -INFINITY;
    for (size_t j = 0; j < h.n; j++) {
        size_t i = (size_t)h.v[j].id;
        heap_push(&top, (int64_t)i, dot_f_i8(query, s->q + i * (size_t)dim, dim) * s->scale[i]);
    }
    /* 3. could a vector outside the shortlist beat the k-th? then score all in float */
    if (h.n == h.k && top.n > 0 && !(top.n == top.k && top.v[0].score > floor_approx + eps)) {
        top.n = 0;
        for (size_t u = 0; u < nruns; u++)
            for (size_t i = runs[u].lo; i < runs[u].hi; i++)
                heap_push(&top, (int64_t)i, dot_f_i8(query, s->q + i * (size_t)dim, dim) * s->scale[i]);
    }
    size_t n = top.n;
    for (size_t j = 0; j < n; j++) out[j] = (struct mg_vmatch){s->ids[top.v[j].id], top.v[j].score};
    qsort(out, n, sizeof(*out), cmp_match);
    free(h.v);
    free(top.v);
    free(qq);
    free(runs);
    return (long)n;
}

void mg_vset_score(const struct mg_vset *s, const float *query, const int64_t *ids, size_t n, float *scores)
{
    for (size_t j = 0; j < n; j++) {
        scores[j] = NAN;
        if (!s) continue;
        const struct mg_vfile *f = find_file(s, ids[j]);
        for (size_t i = f ? f->first : 0; f && i < (size_t)f->first + f->count; i++)
            if (s->ids[i] == ids[j]) {
                scores[j] = dot_f_i8(query, s->q + i * (size_t)s->dim, s->dim) * s->scale[i];
                break;
            }
    }
}

/* ---- 5. the cache and the store -------------------------------------------------------------------- */

#define CACHE_SLOTS 8

static struct cache_slot {
    char path[4096];
    char gen[64];
    struct mg_vset *vs;
    unsigned long used;
} cache[CACHE_SLOTS];
static unsigned long cache_clock;
static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;

/* The repo's vectors, from the cache when vec_gen is unchanged. */
static int vset_get(struct mg_db *d, const char *repo_id, const unsigned char key[MG_VKEY_BYTES],
                    struct mg_vset **out, struct mg_err *err)
{
    char gen[64] = "";
    char kid[17];
    mg_vkey_id(key, kid);
    char g[32] = "0";
    mg_db_meta_get(d, "vec_gen", g, sizeof(g));
    snprintf(gen, sizeof(gen), "%s:%s", g, kid);
    pthread_mutex_lock(&cache_mu);
    for (int i = 0; i < CACHE_SLOTS; i++)
        if (cache[i].vs && strcmp(cache[i].path, d->path) == 0 && strcmp(cache[i].gen, gen) == 0) {
            cache[i].used = ++cache_clock;
            __atomic_add_fetch(&cache[i].vs->refs, 1, __ATOMIC_ACQ_REL);
            *out = cache[i].vs;
            pthread_mutex_unlock(&cache_mu);
            return 0;
        }
    pthread_mutex_unlock(&cache_mu);
    struct mg_vset *s;
    if (mg_vset_load(d, repo_id, key, &s, err) != 0) return -1;
    pthread_mutex_lock(&cache_mu);
    int slot = 0;
    for (int i = 0; i < CACHE_SLOTS; i++) {
        if (cache[i].vs && strcmp(cache[i].path, d->path) == 0) {
            slot = i; /* an older generation of this repo */
            break;
        }
        if (!cache[i].vs || cache[i].used < cache[slot].used) slot = i;
    }
    mg_vset_release(&cache[slot].vs);
    snprintf(cache[slot].path, sizeof(cache[slot].path), "%s", d->path);
    snprintf(cache[slot].gen, sizeof(cache[slot].gen), "%s", gen);
    cache[slot].vs = s;
    cache[slot].used = ++cache_clock;
    __atomic_add_fetch(&s->refs, 1, __ATOMIC_ACQ_REL);
    pthread_mutex_unlock(&cache_mu);
    *out = s;
    return 0;
}

__attribute__((destructor)) static void cache_drop(void)
{
    for (int i = 0; i < CACHE_SLOTS; i++) mg_vset_release(&cache[i].vs);
}

struct builtin_store {
    struct mg_db *d;
    char repo[128];
    unsigned char key[MG_VKEY_BYTES];
    sqlite3_stmt *put;
    struct mg_vset *pinned; /* the vectors search uses, once pinned */
};

int mg_vstore_schema(struct mg_db *d, struct mg_err *err)
{
    return mg_db_exec(d, "CREATE TABLE IF NOT EXISTS vectors(file_id INTEGER PRIMARY KEY, n INTEGER NOT NULL, "
                         "blob BLOB NOT NULL);"
                         "CREATE TABLE IF NOT EXISTS embed_model(name TEXT PRIMARY KEY, value BLOB NOT NULL);"
                         /* scope -> candidate chunk ranges without reading the rows that hold the text */
                         "CREATE INDEX IF NOT EXISTS files_scope ON files(path, lang, chunk_lo, chunk_hi);",
                      err);
}

static int bs_put(struct mg_vstore *vs, int64_t file_id, const int64_t *ids, const float *vecs, size_t n, int dim,
                  struct mg_err *err)
{
    struct builtin_store *s = vs->self;
    void *blob;
    size_t len;
    if (!s->put && mg_db_prepare(s->d, "INSERT OR REPLACE INTO vectors(file_id, n, blob) VALUES(?, ?, ?)", &s->put,
                                 err) != 0)
        return -1;
    if (mg_vblob_seal(s->key, s->repo, file_id, dim, n, ids, vecs, &blob, &len, err) != 0) return -1;
    sqlite3_bind_int64(s->put, 1, file_id);
    sqlite3_bind_int64(s->put, 2, (int64_t)n);
    sqlite3_bind_blob(s->put, 3, blob, (int)len, SQLITE_STATIC);
    int rc = sqlite3_step(s->put);
    sqlite3_reset(s->put);
    free(blob);
    return rc == SQLITE_DONE ? 0 : mg_db_error(s->d, "store vectors", err);
}

static int bs_prune(struct mg_vstore *vs, int all, struct mg_err *err)
{
    struct builtin_store *s = vs->self;
    return mg_db_exec(s->d, all ? "DELETE FROM vectors"
                                : "DELETE FROM vectors WHERE file_id NOT IN (SELECT id FROM files)", err);
}

/* The repo's vectors (a reference): the pinned ones, else from the cache. */
static int store_set(struct builtin_store *s, struct mg_vset **set, struct mg_err *err)
{
    if ((*set = s->pinned)) {
        __atomic_add_fetch(&(*set)->refs, 1, __ATOMIC_ACQ_REL);
        return 0;
    }
    return vset_get(s->d, s->repo, s->key, set, err);
}

static long bs_search(struct mg_vstore *vs, const float *q, int dim, const struct mg_vrange *r, size_t nr, int k,
                      struct mg_vmatch *out, struct mg_err *err)
{
    struct builtin_store *s = vs->self;
    struct mg_vset *set;
    if (store_set(s, &set, err) != 0) return -1;
    long n = 0;
    if (set->n && set->dim != dim)
        n = mg_err_set(err, MG_E_NO_EMBEDDINGS, "the vectors of repo '%s' have %d dimensions, the query %d; index "
                       "the repo again", s->repo, set->dim, dim);
    else if ((n = mg_vset_search(set, q, r, nr, k, out)) < 0)
        mg_err_set(err, MG_E_NO_MEMORY, "out of memory");
    mg_vset_release(&set);
    return n;
}

static int bs_score(struct mg_vstore *vs, const float *q, int dim, const int64_t *ids, size_t n, float *scores,
                    struct mg_err *err)
{
    struct builtin_store *s = vs->self;
    struct mg_vset *set;
    if (store_set(s, &set, err) != 0) return -1;
    int rc = 0;
    if (set->n && set->dim != dim)
        rc = mg_err_set(err, MG_E_NO_EMBEDDINGS, "the vectors of repo '%s' have %d dimensions, the query %d",
                        s->repo, set->dim, dim);
    else mg_vset_score(set, q, ids, n, scores);
    mg_vset_release(&set);
    return rc;
}

static int bs_pin(struct mg_vstore *vs, struct mg_err *err)
{
    struct builtin_store *s = vs->self;
    return s->pinned ? 0 : vset_get(s->d, s->repo, s->key, &s->pinned, err);
}

static void bs_close(struct mg_vstore *vs)
{
    struct builtin_store *s = vs->self;
    mg_vset_release(&s->pinned);
    sqlite3_finalize(s->put);
    sodium_memzero(s->key, sizeof(s->key));
    free(s);
}

static const struct mg_vstore_ops builtin_store_ops = {bs_put, bs_prune, bs_search, bs_score, bs_close, bs_pin};

int mg_vstore_builtin_open(struct mg_db *d, const char *repo_id, const unsigned char key[MG_VKEY_BYTES],
                           struct mg_vstore **out, struct mg_err *err)
{
    *out = NULL;
    struct mg_vstore *vs = calloc(1, sizeof(*vs));
    struct builtin_store *s = calloc(1, sizeof(*s));
    if (!vs || !s) {
        free(vs);
        free(s);
        return mg_err_set(err, MG_E_NO_MEMORY, "out of memory");
    }
    s->d = d;
    snprintf(s->repo, sizeof(s->repo), "%s", repo_id);
    memcpy(s->key, key, MG_VKEY_BYTES);
    vs->ops = &builtin_store_ops;
    vs->self = s;
    *out = vs;
    return 0;
}

void mg_vstore_close(struct mg_vstore **ps)
{
    struct mg_vstore *s = *ps;
    if (!s) return;
    s->ops->close(s);
    free(s);
    *ps = NULL;
}
