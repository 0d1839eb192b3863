/* sanitize.c — strip control sequences, hidden characters and model
 * markers from text an agent is given (sanitize.h: mg_sanitize). The
 * prompt-injection flags are injection.c's. */
#include "security/sanitize.h"
#include "security/sanitize_int.h"

#include <stdint.h>
#include <string.h>

/* ZWNJ, ZWJ, LRM and RLM alone are kept (scripts, emoji, RTL text). */
static bool zw_keep_single(int32_t c) { return c >= 0x200C && c <= 0x200F; }

/* Length of an escape sequence starting with ESC at s[0] (n bytes left). */
static size_t esc_len(const unsigned char *s, size_t n)
{
    if (n < 2) return n;
    unsigned char k = s[1];
    size_t i = 2;
    if (k == '[') { /* CSI: parameters, intermediates, one final byte */
        while (i < n && s[i] >= 0x20 && s[i] <= 0x3F) i++;
        return i < n && s[i] >= 0x40 && s[i] <= 0x7E ? i + 1 : i;
    }
    if (k == ']' || k == 'P' || k == '_' || k == '^' || k == 'X') { /* string until BEL or ST, capped */
        while (i < n && i < 4096) {
            if (s[i] == 0x07) return i + 1;
            if (s[i] == 0x1B && i + 1 < n && s[i + 1] == '\\') return i + 2;
            if (s[i] == '\n') return i; /* unterminated: stop at the line end */
            i++;
        }
        return i;
    }
    while (i - 1 < n && s[i - 1] >= 0x20 && s[i - 1] <= 0x2F) i++; /* intermediates, then a final byte */
    return i <= n ? i : n;
}

/* Model control markers: <|name|> special tokens, [INST] / [/INST],
 * <<SYS>> / <</SYS>>, <start_of_turn> / <end_of_turn>. 0 when none at s. */
static size_t marker_len(const unsigned char *s, size_t n)
{
    static const char *const fixed[] = {"[INST]", "[/INST]", "<<SYS>>", "<</SYS>>", "<start_of_turn>",
                                        "<end_of_turn>", "###TELECODER_", "###MEMGATE_", NULL};
    if (n >= 5 && s[0] == '<' && s[1] == '|') {
        size_t i = 2;
        while (i < n && i < 40 && ((s[i] >= 'a' && s[i] <= 'z') || s[i] == '_' || (s[i] >= '0' && s[i] <= '9')))
            i++;
        if (i > 2 && i + 1 < n && s[i] == '|' && s[i + 1] == '>') return i + 2;
        return 0;
    }
    for (const char *const *f = fixed; *f; f++) {
        size_t l = strlen(*f);
        if (l <= n && memcmp(s, *f, l) == 0) {
            if ((*f)[0] == '#') /* the whole marker word */
                while (l < n && ((s[l] >= 'A' && s[l] <= 'Z') || s[l] == '_' || (s[l] >= '0' && s[l] <= '9'))) l++;
            return l;
        }
    }
    return 0;
}

/* PLAIN bytes at p that mg_sanitize keeps as they are: printable ASCII
 * other than '<', '[' and '#' (where markers start), tabs and line feeds. */
#if defined(__SSE2__)
#include <emmintrin.h>
#define PLAIN 16
static inline bool plain(const unsigned char *p)
{
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    /* signed: bytes beyond ASCII are negative, so under 0x20 too */
#define EQ(c) _mm_cmpeq_epi8(v, _mm_set1_epi8(c))
    __m128i bad = _mm_andnot_si128(_mm_or_si128(EQ('\t'), EQ('\n')), _mm_cmplt_epi8(v, _mm_set1_epi8(0x20)));
    bad = _mm_or_si128(_mm_or_si128(bad, EQ(0x7F)), _mm_or_si128(EQ('<'), _mm_or_si128(EQ('['), EQ('#'))));
#undef EQ
    return _mm_movemask_epi8(bad) == 0;
}
#else /* word-at-a-time tests: a byte with the high bit, a byte under 0x20, a byte equal to one of four */
#define PLAIN 8
#define ONES 0x0101010101010101ull
#define HIGHS 0x8080808080808080ull
#define HAS_ZERO(x) (((x) - ONES) & ~(x) & HIGHS)
static inline bool plain(const unsigned char *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    if (w & HIGHS) return false;
    if ((w - 0x20 * ONES) & ~w & HIGHS) return false; /* tabs and line feeds too: the caller takes them alone */
    return !(HAS_ZERO(w ^ (0x7F * ONES)) | HAS_ZERO(w ^ ('<' * ONES)) | HAS_ZERO(w ^ ('[' * ONES)) |
             HAS_ZERO(w ^ ('#' * ONES)));
}
#endif

int mg_sanitize(const char *str, size_t n, struct mg_buf *out, unsigned *found)
{
    const unsigned char *s = (const unsigned char *)str;
    unsigned f = 0;
    size_t i = 0, run = 0; /* run: start of pending plain bytes */
#define FLUSH(upto)                                                                                         \
    do {                                                                                                    \
        if ((upto) > run && mg_buf_add(out, s + run, (upto) - run) != 0) return -1;                         \
    } while (0)
    while (i < n) {
        if (i + PLAIN <= n && plain(s + i)) { /* the common case, PLAIN bytes at a time */
            i += PLAIN;
            continue;
        }
        unsigned char c = s[i];
        if (c >= 0x20 && c < 0x7F && c != '<' && c != '[' && c != '#') {
            i++;
            continue;
        }
        if (c == '\t' || c == '\n') {
            i++;
            continue;
        }
        if (c == '\r') { /* CRLF stays; a bare CR (overwrites the line on a terminal) goes */
            if (i + 1 < n && s[i + 1] == '\n') {
                i++;
                continue;
            }
            FLUSH(i);
            f |= MG_SAN_ESCAPES;
            run = ++i;
            continue;
        }
        if (c == '<' || c == '[' || c == '#') {
            size_t m = marker_len(s + i, n - i);
            if (m) {
                FLUSH(i);
                f |= MG_SAN_MARKERS;
                run = i += m;
            } else {
                i++;
            }
            continue;
        }
        if (c == 0x1B) {
            FLUSH(i);
            f |= MG_SAN_ESCAPES;
            run = i += esc_len(s + i, n - i);
            continue;
        }
        if (c < 0x20 || c == 0x7F) {
            FLUSH(i);
            f |= MG_SAN_ESCAPES;
            run = ++i;
            continue;
        }
        int32_t cp;
        size_t l = mg__utf8_next(s + i, n - i, &cp);
        if (cp < 0) { /* invalid UTF-8: U+FFFD */
            FLUSH(i);
            if (mg_buf_add(out, "\xEF\xBF\xBD", 3) != 0) return -1;
            run = i += l;
            continue;
        }
        if (cp >= 0x80 && cp <= 0x9F) { /* C1 controls (0x9B is an 8-bit CSI) */
            FLUSH(i);
            f |= MG_SAN_ESCAPES;
            i += l;
            if (cp == 0x9B)
                while (i < n && s[i] >= 0x20 && s[i] <= 0x3F) i++;
            if (cp == 0x9B && i < n && s[i] >= 0x40 && s[i] <= 0x7E) i++;
            run = i;
            continue;
        }
        if (mg__is_tag(cp) || mg__is_bidi(cp)) {
            FLUSH(i);
            f |= MG_SAN_HIDDEN;
            run = i += l;
            continue;
        }
        if (mg__is_zw(cp)) {
            size_t j = i + l, count = 1;
            int32_t c2;
            size_t l2;
            while (j < n && (l2 = mg__utf8_next(s + j, n - j, &c2)) && c2 >= 0 && mg__is_zw(c2)) j += l2, count++;
            if (count == 1 && zw_keep_single(cp)) {
                i = j;
                continue;
            }
            FLUSH(i);
            if (count > 1) f |= MG_SAN_HIDDEN;
            run = i = j;
            continue;
        }
        i += l;
    }
    FLUSH(n);
#undef FLUSH
    if (found) *found = f;
    return 0;
}
