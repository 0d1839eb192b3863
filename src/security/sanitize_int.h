/* sanitize_int.h — the characters sanitize.c strips and the prompt-injection
 * check (injection.c and its files, injection_int.h) looks for: one UTF-8
 * decoder and one definition of each hidden kind. Not for other modules.
 */
#ifndef MG_SANITIZE_INT_H
#define MG_SANITIZE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Decode one UTF-8 sequence at s (n > 0 bytes left). Returns its length and
 * the code point in *cp; an invalid sequence is 1 byte with *cp = -1. */
static inline size_t mg__utf8_next(const unsigned char *s, size_t n, int32_t *cp)
{
    unsigned c = s[0];
    size_t len;
    int32_t v, min;
    if (c < 0x80) {
        *cp = (int32_t)c;
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF) len = 2, v = c & 0x1F, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF) len = 3, v = c & 0x0F, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4) len = 4, v = c & 0x07, min = 0x10000;
    else goto bad;
    if (len > n) goto bad;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) goto bad;
        v = (v << 6) | (s[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) goto bad;
    *cp = v;
    return len;
bad:
    *cp = -1;
    return 1;
}

static inline bool mg__is_tag(int32_t c) { return c >= 0xE0000 && c <= 0xE007F; }
static inline bool mg__is_bidi(int32_t c) { return (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069); }
/* Invisible, zero-width format characters. ZWNJ, ZWJ, LRM and RLM have
 * legitimate single uses (scripts, emoji, RTL text); the others do not. */
static inline bool mg__is_zw(int32_t c)
{
    return (c >= 0x200B && c <= 0x200F) || (c >= 0x2060 && c <= 0x2064) || c == 0xFEFF || c == 0x180E;
}

#endif
