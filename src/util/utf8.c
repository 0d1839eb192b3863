/* utf8.c — see utf8.h. */
#include "util/utf8.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Length of the valid sequence at s[0..n), or 0 if invalid. */
static size_t seq_len(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    if (c < 0x80) return 1;
    size_t len;
    uint32_t cp;
    if (c >= 0xc2 && c <= 0xdf) len = 2, cp = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef) len = 3, cp = c & 0x0f;
    else if (c >= 0xf0 && c <= 0xf4) len = 4, cp = c & 0x07;
    else return 0;
    if (n < len) return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
        return 0;
    return len;
}

size_t mg_utf8_valid_prefix(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        /* fast path: 8 ASCII bytes at a time */
        if (i + 8 <= n) {
            uint64_t w;
            memcpy(&w, p + i, 8);
            if (!(w & 0x8080808080808080ull)) {
                i += 8;
                continue;
            }
        }
        size_t l = seq_len(p + i, n - i);
        if (!l) return i;
        i += l;
    }
    return n;
}

size_t mg_utf8_repair(const char *s, size_t n, char **out, size_t *outlen)
{
    /* worst case every byte becomes 3 */
    char *b = malloc(n * 3 + 1);
    if (!b) return (size_t)-1;
    size_t i = 0, o = 0, bad = 0;
    while (i < n) {
        size_t good = mg_utf8_valid_prefix(s + i, n - i);
        memcpy(b + o, s + i, good);
        o += good;
        i += good;
        if (i < n) {
            memcpy(b + o, "\xef\xbf\xbd", 3);
            o += 3;
            i++;
            bad++;
        }
    }
    b[o] = 0;
    *out = b;
    *outlen = o;
    return bad;
}

size_t mg_utf8_cut(const char *s, size_t n, size_t max)
{
    if (n <= max) return n;
    size_t i = max;
    while (i > 0 && ((unsigned char)s[i] & 0xc0) == 0x80) i--;
    return i;
}
