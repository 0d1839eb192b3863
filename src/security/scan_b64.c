/* scan_b64.c — the secret scanner's pass over secrets wrapped in base64
 * (scan_int.h: mg__scan_b64), run by mg_scan after the pass over the text
 * as it is; and the decoder it uses (scan.h: mg_b64_decode_text).
 *
 * A Kubernetes Secret's data (base64 of a connection URL, of a key, of a
 * .dockerconfigjson), `echo ... | base64 -d` in a script: after the scan,
 * every run of at least B64_MIN_RUN base64 characters ([A-Za-z0-9+/], on
 * one line; '=' padding after it) is decoded (its first B64_MAX_RUN bytes
 * of decoded text at most), and the decoded text is kept when it is
 * mostly printable ASCII (at most one byte in ten otherwise: images,
 * compressed data, digests and random bytes are not). The texts kept, one
 * a line, are scanned with the same rules (B64_MAX_SYNTH bytes at once);
 * a finding there is reported as the whole run it came from (`encoded`),
 * so redaction replaces every byte of the encoded secret. At most
 * B64_BUDGET bytes are decoded per scan, so the work stays linear in the
 * input whatever it holds. Not decoded: base64url (- and _), runs wrapped
 * over several lines, base64 inside the decoded text (one level).
 *
 * Sections:
 *   1. finding a run: a byte at a time, 64 with SSE2 or AVX2
 *   2. decoding a run
 *   3. the decoded texts scanned, their findings mapped to their runs
 */
#include "security/scan_int.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define MG_HAVE_AVX2_PATH 1
#endif
#include <stdlib.h>

#define B64_MIN_RUN 24            /* 18 bytes decoded: a bare 20-byte AWS key id encodes to 28 */
#define B64_MAX_RUN (64u << 10)   /* decoded bytes of one run */
#define B64_BUDGET (16u << 20)    /* decoded bytes of one scan */
#define B64_MAX_SYNTH (1u << 20)  /* decoded text scanned at once */

static signed char b64_val[256]; /* 0-63, or -1 */
#ifdef MG_HAVE_AVX2_PATH
static bool b64_avx2; /* the CPU has AVX2 */
#endif
static pthread_once_t b64_once = PTHREAD_ONCE_INIT;

static void b64_init(void)
{
    static const char al[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    memset(b64_val, -1, sizeof(b64_val));
    for (int i = 0; i < 64; i++) b64_val[(unsigned char)al[i]] = (signed char)i;
#ifdef MG_HAVE_AVX2_PATH
    __builtin_cpu_init();
    b64_avx2 = __builtin_cpu_supports("avx2");
#endif
}

/* ---- 1. finding a run ------------------------------------------------------------------- */

/* The next run of at least B64_MIN_RUN base64 characters at or after i
 * (buf[i - 1] is not one, or i is 0), one byte at a time: the byte
 * B64_MIN_RUN - 1 ahead is looked at first; when it is not base64, no run
 * reaching that far starts before it, and the search jumps past it. */
static bool b64_next_run_bytes(const unsigned char *u, size_t len, size_t i, size_t *rs, size_t *re)
{
    while (len - i >= B64_MIN_RUN) {
        size_t p = i + B64_MIN_RUN - 1;
        if (b64_val[u[p]] < 0) {
            i = p + 1;
            continue;
        }
        size_t q = p;
        while (q > i && b64_val[u[q - 1]] >= 0) q--;
        size_t e = p + 1;
        while (e < len && b64_val[u[e]] >= 0) e++;
        if (e - q >= B64_MIN_RUN) {
            *rs = q;
            *re = e;
            return true;
        }
        if (e >= len) return false;
        i = e + 1;
    }
    return false;
}

#ifdef __SSE2__
/* Bit j: is p[j] a base64 character ([A-Za-z0-9+/]), for 64 bytes. */
static inline uint64_t b64_mask64(const unsigned char *p)
{
    const __m128i a1 = _mm_set1_epi8('a' - 1), z1 = _mm_set1_epi8('z' + 1), d0 = _mm_set1_epi8('0' - 1),
                  d9 = _mm_set1_epi8('9' + 1), pl = _mm_set1_epi8('+'), sl = _mm_set1_epi8('/'), c20 = _mm_set1_epi8(0x20);
    uint64_t m = 0;
    for (int k = 0; k < 4; k++) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * k));
        __m128i lo = _mm_or_si128(x, c20); /* letters folded to lower case (bytes >= 0x80 stay negative) */
        __m128i let = _mm_and_si128(_mm_cmpgt_epi8(lo, a1), _mm_cmplt_epi8(lo, z1));
        __m128i dig = _mm_and_si128(_mm_cmpgt_epi8(x, d0), _mm_cmplt_epi8(x, d9));
        __m128i ok = _mm_or_si128(_mm_or_si128(let, dig), _mm_or_si128(_mm_cmpeq_epi8(x, pl), _mm_cmpeq_epi8(x, sl)));
        m |= (uint64_t)(unsigned)_mm_movemask_epi8(ok) << (16 * k);
    }
    return m;
}
#endif

/* The search of b64_next_run, 64 bytes at a time with MASK: a mask of the
 * base64 bytes, and of the bytes that start B64_MIN_RUN of them inside the
 * block (shifts and ands); `carry` is the run the last block ended with. */
#define B64_RUN_SEARCH(MASK)                                                                                          \
    size_t carry = 0, start;                                                                                          \
    for (; len - i >= 64; i += 64) {                                                                                  \
        uint64_t m = MASK(u + i);                                                                                     \
        size_t lead = m == ~0ULL ? 64 : (size_t)__builtin_ctzll(~m);                                                  \
        if (carry + lead >= B64_MIN_RUN) {                                                                            \
            start = i - carry;                                                                                        \
            goto found;                                                                                               \
        }                                                                                                             \
        uint64_t y = m; /* bit j: bytes j..j+23 are all base64 */                                                     \
        y &= y >> 1;                                                                                                  \
        y &= y >> 2;                                                                                                  \
        y &= y >> 4;                                                                                                  \
        y &= y >> 8;                                                                                                  \
        y &= y >> 8;                                                                                                  \
        if (y) {                                                                                                      \
            start = i + (size_t)__builtin_ctzll(y);                                                                   \
            goto found;                                                                                               \
        }                                                                                                             \
        carry = (size_t)__builtin_clzll(~m); /* (m is not all ones here) */                                           \
    }                                                                                                                 \
    return b64_next_run_bytes(u, len, i - carry, rs, re);                                                             \
    found:;                                                                                                           \
    size_t e = start + B64_MIN_RUN;                                                                                   \
    while (e < len && b64_val[u[e]] >= 0) e++;                                                                        \
    *rs = start;                                                                                                      \
    *re = e;                                                                                                          \
    return true

_Static_assert(B64_MIN_RUN == 24, "B64_RUN_SEARCH's shifts find runs of 24");

#ifdef MG_HAVE_AVX2_PATH
__attribute__((target("avx2"))) static inline uint64_t b64_mask64_avx2(const unsigned char *p)
{
    const __m256i a1 = _mm256_set1_epi8('a' - 1), z1 = _mm256_set1_epi8('z' + 1), d0 = _mm256_set1_epi8('0' - 1),
                  d9 = _mm256_set1_epi8('9' + 1), pl = _mm256_set1_epi8('+'), sl = _mm256_set1_epi8('/'),
                  c20 = _mm256_set1_epi8(0x20);
    uint64_t m = 0;
    for (int k = 0; k < 2; k++) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32 * k));
        __m256i lo = _mm256_or_si256(x, c20);
        __m256i let = _mm256_and_si256(_mm256_cmpgt_epi8(lo, a1), _mm256_cmpgt_epi8(z1, lo));
        __m256i dig = _mm256_and_si256(_mm256_cmpgt_epi8(x, d0), _mm256_cmpgt_epi8(d9, x));
        __m256i ok = _mm256_or_si256(_mm256_or_si256(let, dig),
                                     _mm256_or_si256(_mm256_cmpeq_epi8(x, pl), _mm256_cmpeq_epi8(x, sl)));
        m |= (uint64_t)(uint32_t)_mm256_movemask_epi8(ok) << (32 * k);
    }
    return m;
}

__attribute__((target("avx2"))) static bool b64_next_run_avx2(const unsigned char *u, size_t len, size_t i, size_t *rs,
                                                              size_t *re)
{
    B64_RUN_SEARCH(b64_mask64_avx2);
}
#endif

#ifdef __SSE2__
static bool b64_next_run_sse2(const unsigned char *u, size_t len, size_t i, size_t *rs, size_t *re)
{
    B64_RUN_SEARCH(b64_mask64);
}
#endif

/* The next run of at least B64_MIN_RUN base64 characters at or after i
 * (buf[i - 1] is not one, or i is 0): [*rs, *re). False: none. 64 bytes at
 * a time with AVX2 when the CPU has it, else SSE2, else a byte at a time. */
static bool b64_next_run(const char *buf, size_t len, size_t i, size_t *rs, size_t *re)
{
    const unsigned char *u = (const unsigned char *)buf;
#ifdef MG_HAVE_AVX2_PATH
    if (b64_avx2) return b64_next_run_avx2(u, len, i, rs, re);
#endif
#ifdef __SSE2__
    return b64_next_run_sse2(u, len, i, rs, re);
#else
    return b64_next_run_bytes(u, len, i, rs, re);
#endif
}

/* ---- 2. decoding a run ------------------------------------------------------------------ */

/* Decode the n base64 characters at in (all valid) into out, which has room
 * for n / 4 * 3 + 2 bytes; a lone last character is dropped. Stops early,
 * returning SIZE_MAX, once more than a tenth of the bytes the whole run
 * decodes to are neither printable ASCII nor white space. Else the decoded
 * length. */
size_t mg_b64_decode_text(const char *in, size_t n, char *out)
{
    pthread_once(&b64_once, b64_init);
    const unsigned char *u = (const unsigned char *)in;
    size_t total = n / 4 * 3 + (n % 4 == 3 ? 2 : n % 4 == 2 ? 1 : 0);
    size_t bad_max = total / 10, bad = 0, o = 0;
#define B64_PUT(x)                                                                                                    \
    do {                                                                                                              \
        unsigned char c_ = (unsigned char)(x);                                                                        \
        out[o++] = (char)c_;                                                                                          \
        bad += !((c_ >= 0x20 && c_ < 0x7f) || c_ == '\n' || c_ == '\r' || c_ == '\t');                                \
    } while (0)
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        uint32_t v = (uint32_t)b64_val[u[i]] << 18 | (uint32_t)b64_val[u[i + 1]] << 12 | (uint32_t)b64_val[u[i + 2]] << 6 |
                     (uint32_t)b64_val[u[i + 3]];
        B64_PUT(v >> 16);
        B64_PUT(v >> 8);
        B64_PUT(v);
        if (bad > bad_max) return SIZE_MAX;
    }
    if (n - i >= 2) {
        uint32_t v = (uint32_t)b64_val[u[i]] << 18 | (uint32_t)b64_val[u[i + 1]] << 12 |
                     (n - i == 3 ? (uint32_t)b64_val[u[i + 2]] << 6 : 0);
        B64_PUT(v >> 16);
        if (n - i == 3) B64_PUT(v >> 8);
    }
#undef B64_PUT
    return bad > bad_max ? SIZE_MAX : o;
}

/* ---- 3. the decoded texts scanned ------------------------------------------------------- */

struct b64seg {
    size_t t0, t1; /* its decoded text in the synthetic buffer */
    size_t r0, r1; /* the run in the input */
};

struct b64 {
    const struct mg_scanner *s;
    char *t;
    size_t n, tcap;
    struct b64seg *seg;
    size_t nseg, scap;
    struct mg__scan_hit *v;  /* findings, mapped to their runs */
    size_t nv, cap;
};

/* The segment holding synthetic offset x (segments are in order). */
static size_t b64_seg_of(const struct b64 *B, size_t x)
{
    size_t lo = 0, hi = B->nseg;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (B->seg[mid].t0 <= x) lo = mid;
        else hi = mid;
    }
    return lo;
}

/* A finding in the decoded texts: reported as the whole run (or runs) it
 * came from. */
static int b64_map(void *ud, const struct mg__scan_hit *h, struct mg_err *err)
{
    struct b64 *B = ud;
    const struct b64seg *a = &B->seg[b64_seg_of(B, h->start)], *b = &B->seg[b64_seg_of(B, h->end - 1)];
    if (B->nv && B->v[B->nv - 1].end > a->r0) { /* a second finding in the same run: the run is reported once */
        if (mg__scan_better(B->s, &(struct mg__scan_hit){h->rule, true, a->r0, b->r1}, &B->v[B->nv - 1]))
            B->v[B->nv - 1] = (struct mg__scan_hit){h->rule, true, B->v[B->nv - 1].start, b->r1};
        return 0;
    }
    if (mg__scan_grow((void **)&B->v, B->nv, &B->cap, sizeof(struct mg__scan_hit)) != 0)
        return mg_err_set(err, MG_E_NO_MEMORY, "out of memory decoding base64");
    B->v[B->nv++] = (struct mg__scan_hit){h->rule, true, a->r0, b->r1};
    return 0;
}

static int b64_flush(const struct mg_scanner *s, struct b64 *B, struct mg_err *err)
{
    int rc = mg__scan_text(s, B->t, B->n, b64_map, B, err);
    B->n = 0;
    B->nseg = 0;
    return rc;
}

/* Decode the base64 runs of buf, scan the texts, and merge their findings
 * (each the whole of its run) into sc->v. */
int mg__scan_b64(const struct mg_scanner *s, const char *buf, size_t len, struct mg__scan *sc, struct mg_err *err)
{
    pthread_once(&b64_once, b64_init);
    struct b64 B = {.s = s};
    size_t budget = B64_BUDGET, i = 0, rs, re;
    int rc = 0;
    while (budget && b64_next_run(buf, len, i, &rs, &re)) {
        i = re;
        size_t n = re - rs;
        if (n / 4 * 3 > B64_MAX_RUN) n = B64_MAX_RUN / 3 * 4;
        if (n / 4 * 3 > budget) n = budget / 3 * 4;
        if (n < B64_MIN_RUN) break;
        size_t need = n / 4 * 3 + 3;
        if (B.n + need > B.tcap) {
            size_t nc = B.tcap ? 2 * B.tcap : 4096;
            while (nc < B.n + need) nc *= 2;
            char *nt = realloc(B.t, nc);
            if (!nt) {
                rc = mg_err_set(err, MG_E_NO_MEMORY, "out of memory decoding base64");
                break;
            }
            B.t = nt;
            B.tcap = nc;
        }
        size_t got = mg_b64_decode_text(buf + rs, n, B.t + B.n);
        budget -= n / 4 * 3 < budget ? n / 4 * 3 : budget;
        if (got == SIZE_MAX) continue;
        if (mg__scan_grow((void **)&B.seg, B.nseg, &B.scap, sizeof(*B.seg)) != 0) {
            rc = mg_err_set(err, MG_E_NO_MEMORY, "out of memory decoding base64");
            break;
        }
        /* the run with its padding: redaction covers it all */
        while (re < len && re - rs < ((re - rs + 3) & ~(size_t)3) && buf[re] == '=') re++;
        B.seg[B.nseg++] = (struct b64seg){B.n, B.n + got, rs, re};
        B.n += got;
        B.t[B.n++] = '\n';
        if (B.n > B64_MAX_SYNTH && (rc = b64_flush(s, &B, err)) != 0) break;
    }
    if (rc == 0) rc = b64_flush(s, &B, err);
    free(B.t);
    free(B.seg);
    if (rc == 0) rc = mg__scan_merge(s, sc, B.v, B.nv, err);
    free(B.v);
    return rc;
}
