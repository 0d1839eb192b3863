/* tokens.c — see tokens.h: a count of tokens from above. */
#include "util/tokens.h"

#include <stdbool.h>
#include <string.h>

static bool is_upper(unsigned char c) { return c >= 'A' && c <= 'Z'; }
static bool is_alpha(unsigned char c) { return is_upper(c) || (c >= 'a' && c <= 'z'); }
static bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
static bool is_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

/* The length of the UTF-8 character at s (1 for a stray byte). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    size_t l = s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC0 ? 2 : 1;
    if (l > n) return 1;
    for (size_t i = 1; i < l; i++)
        if ((s[i] & 0xC0) != 0x80) return 1;
    return l;
}

/* A word of letters: a token per 4 letters, per 2 when it is all upper
 * case, 3 per 4 when its case changes more than every third letter. */
static size_t word(const unsigned char *w, size_t n)
{
    size_t changes = 0;
    bool upper = true;
    for (size_t i = 0; i < n; i++) {
        upper = upper && is_upper(w[i]);
        if (i && is_upper(w[i - 1]) != is_upper(w[i])) changes++;
    }
    if (changes * 3 > n + 2) return (n * 3 + 3) / 4;
    if (upper && n > 1) return (n + 1) / 2;
    return (n + 3) / 4;
}

/* A run of 16 or more non-space characters that mixes cases and digits,
 * switching between them more than every third character (base64, keys,
 * hashes): the tokenizers spend about a token per 1.3 characters on it. */
static size_t random_run(const unsigned char *s, const unsigned char *e)
{
    const unsigned char *q = s;
    int kinds = 0, prev = -1;
    size_t switches = 0;
    while (q < e && !is_space(*q) && *q < 0x80) {
        int k = is_upper(*q) ? 1 : is_alpha(*q) ? 2 : is_digit(*q) ? 4 : 8;
        kinds |= k;
        if (prev >= 0 && k != prev) switches++;
        prev = k;
        q++;
    }
    size_t n = (size_t)(q - s);
    if (n < 16 || (q < e && !is_space(*q)) || __builtin_popcount((unsigned)kinds & 7u) < 3 || switches * 3 <= n) return 0;
    return n;
}

size_t mg_tokens(const char *text, size_t n)
{
    const unsigned char *s = (const unsigned char *)text, *e = s + n;
    size_t t = 0;
    while (s < e) {
        /* a space that leads a word, number or punctuation is part of it (as the pre-tokenizers do) */
        bool lead = s[0] == ' ' && s + 1 < e && !is_space(s[1]);
        const unsigned char *p = s + (lead ? 1 : 0);
        size_t r = is_space(*p) ? 0 : random_run(p, e);
        if (r) {
            t += (r * 3 + 3) / 4;
            s = p + r;
        } else if (is_alpha(*p)) {
            const unsigned char *q = p;
            while (q < e && is_alpha(*q)) q++;
            t += word(p, (size_t)(q - p));
            s = q;
        } else if (is_digit(*p)) {
            const unsigned char *q = p;
            while (q < e && is_digit(*q)) q++;
            t += ((size_t)(q - p) + 2) / 3 + (lead ? 1 : 0);
            s = q;
        } else if (is_space(*p)) { /* a run of whitespace, not counting a space that leads what follows */
            const unsigned char *q = p;
            while (q < e && is_space(*q)) q++;
            if (q < e && q - p > 1 && q[-1] == ' ') q--;
            t += 1;
            s = q;
        } else { /* punctuation and characters beyond ASCII, then the line ends after them */
            const unsigned char *q = p;
            size_t ascii = 0, wide = 0;
            while (q < e && !is_space(*q) && !is_alpha(*q) && !is_digit(*q)) {
                size_t l = utf8_len(q, (size_t)(e - q));
                if (l == 1 && *q < 0x80) ascii++;
                else wide += (l * 3 + 3) / 4;
                q += l;
            }
            while (q < e && (*q == '\n' || *q == '\r')) q++;
            t += (ascii + 1) / 2 + wide + (lead && !ascii ? 1 : 0);
            s = q;
        }
    }
    return t;
}

size_t mg_tokens_str(const char *s) { return s ? mg_tokens(s, strlen(s)) : 0; }
