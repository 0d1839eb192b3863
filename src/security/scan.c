/* scan.c — the secret scanner's entry point (scan.h: mg_scan): the passes
 * over a buffer in order, and each finding reported with its line.
 *
 *   1. the text as it is (scan_match.c): first-pass hits confirmed, checked
 *      (entropy, allowlists) and cut to findings that do not overlap;
 *   2. secrets split across adjacent string literals or a joined list of
 *      them (scan_join.c);
 *   3. words split by a backslash line continuation (scan_join.c);
 *   4. secrets wrapped in base64 (scan_b64.c).
 *
 * The later passes scan texts they make (literals joined, base64 decoded)
 * with the same rules and merge what they find into the first's findings,
 * the better of two that overlap kept. Another way of hiding a secret is
 * another such pass, called here. The scanner itself (rules, compiling,
 * the cache) is made by scan_compile.c; scan_int.h maps the files.
 */
#include "security/scan_int.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <stdio.h>
#include <stdlib.h>

/* The '\n' bytes in [p, p+n). With SSE2, sixteen at a time: each compare
 * gives -1 in the bytes that match, subtracted into sixteen byte counters,
 * which _mm_sad_epu8 adds up every 255 blocks (before a counter wraps); no
 * popcount, which without -mpopcnt is a call per word. */
static size_t count_nl(const char *p, size_t n)
{
    size_t c = 0, i = 0;
#ifdef __SSE2__
    const __m128i nl = _mm_set1_epi8('\n'), zero = _mm_setzero_si128();
    while (n - i >= 16) {
        __m128i acc = zero;
        size_t stop = n - i >= 255 * 16 ? i + 255 * 16 : i + (n - i) / 16 * 16;
        for (; i < stop; i += 16)
            acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + i)), nl));
        __m128i sum = _mm_sad_epu8(acc, zero);
        c += (size_t)_mm_cvtsi128_si32(sum) + (size_t)_mm_cvtsi128_si32(_mm_srli_si128(sum, 8));
    }
#endif
    for (; i < n; i++) c += p[i] == '\n';
    return c;
}

int mg_scan(const struct mg_scanner *s, const char *buf, size_t len, int (*cb)(const struct mg_finding *, void *), void *ud,
            struct mg_err *err)
{
    struct mg__scan sc;
    if (mg__scan_run(s, buf, len, &sc, err) != 0) return -1;
    if (mg__scan_join(s, buf, len, &sc, err) != 0 || mg__scan_splice(s, buf, len, &sc, err) != 0 ||
        mg__scan_b64(s, buf, len, &sc, err) != 0) {
        free(sc.v);
        return -1;
    }
    unsigned line = 1;
    size_t pos = 0;
    int n = 0;
    for (size_t i = 0; i < sc.n; i++) {
        const struct mg__scan_hit *h = &sc.v[i];
        line += count_nl(buf + pos, h->start - pos);
        pos = h->start;
        const struct mg__scan_rule *r = &s->rules[h->rule];
        struct mg_finding f = {r->id, r->desc, r->sev, h->start, h->end, line, h->enc};
        n++;
        if (cb && cb(&f, ud)) break;
    }
    free(sc.v);
    return n;
}

char *mg_secret_mask(const char *secret, size_t n, char *out, size_t cap)
{
    if (cap == 0) return out;
    size_t show = n >= 16 ? 4 : n / 4;
    char head[5];
    for (size_t i = 0; i < show; i++) {
        unsigned char c = (unsigned char)secret[i];
        head[i] = c >= 0x21 && c < 0x7f ? (char)c : '?';
    }
    head[show] = 0;
    snprintf(out, cap, "%s\u2026(%zu)", head, n);
    return out;
}
