/* injection_model.c — the learned part of the prompt-injection check: a
 * linear model over word features (injection_model.h, written by
 * model/injection/train.py, which documents its training data). It finds
 * what no pattern names: instructions to an agent written in words of their
 * own. The patterns (injection.c) keep what they find; where they did not
 * flag a text, the model adds MG_INJ_MODEL_CUE over its threshold (a cue,
 * flagged beside another) or MG_INJ_MODEL over its higher one.
 *
 * Words, features and score exactly as model/injection/features.py computes
 * them (tests/test_injection_model.c checks the scores the trainer wrote):
 * a run of ASCII letters and digits (lower-cased) and characters beyond
 * ASCII is a word, a CJK character a word alone, ASCII punctuation, spaces
 * and the punctuation blocks beyond ASCII end one; a word's hash is FNV-1a
 * of its bytes (of "0" for digits only; a URL is the word "url", the
 * domain after an address's @ the word "email"); each word gives three
 * weights (the word, the word with the one before it, the word with the one
 * two before: 64-bit keys, one multiply each); the score is the bias plus
 * the greatest sum over MG__INJ_MODEL_WINDOW consecutive words (the whole
 * text when it is shorter). Integers throughout, so C and Python agree to
 * the unit. One pass, no allocation. MEMGATE_INJECTION_MODEL=off leaves the
 * model out (the patterns alone: for comparisons).
 */
#include "security/injection_int.h"
#include "security/injection_model.h"
#include "security/sanitize.h"
#include "security/sanitize_int.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static inline bool sep_cp(int32_t cp)
{
    return (cp >= 0x2000 && cp <= 0x206F) || (cp >= 0x3000 && cp <= 0x303F) || (cp >= 0xFF00 && cp <= 0xFF0F) ||
           (cp >= 0xFF1A && cp <= 0xFF20) || (cp >= 0xFF3B && cp <= 0xFF40) || (cp >= 0xFF5B && cp <= 0xFF65);
}

static inline bool cjk_cp(int32_t cp) { return (cp >= 0x2E80 && cp <= 0x9FFF) || (cp >= 0xF900 && cp <= 0xFAFF); }

/* Each byte's part: an ASCII letter (lower-cased) or digit as itself, 0 for other ASCII, 0x80 beyond
 * ASCII. */
static const unsigned char byte_kind[256] = {
#define R8(c) (c), (c) + 1, (c) + 2, (c) + 3, (c) + 4, (c) + 5, (c) + 6, (c) + 7
    [48] = R8('0'), '8', '9',
    [65] = R8('a'), R8('i'), R8('q'), 'y', 'z',
    [97] = R8('a'), R8('i'), R8('q'), 'y', 'z',
#undef R8
    [128 ... 255] = 0x80,
};

static inline bool ascii_alnum(unsigned char c) { return byte_kind[c] && byte_kind[c] < 0x80; }

/* "http://" or "https://", any case, at s */
static inline bool url_at(const unsigned char *s, size_t n)
{
    if (n < 7 || strncasecmp((const char *)s, "http", 4)) return false;
    size_t k = 4 + ((s[4] | 0x20) == 's');
    return n >= k + 3 && !memcmp(s + k, "://", 3);
}

static inline bool url_end(unsigned char c) { return c && strchr(" \t\n\r\f\v\"'<>`)", c); }

#define FNV0 0x811C9DC5u
#define FNVP 0x01000193u
#define NUM ((FNV0 ^ '0') * FNVP) /* a word of digits only: "0" */
#define URLW ((((FNV0 ^ 'u') * FNVP ^ 'r') * FNVP ^ 'l') * FNVP)                           /* "url" */
#define EMAILW ((((((FNV0 ^ 'e') * FNVP ^ 'm') * FNVP ^ 'a') * FNVP ^ 'i') * FNVP ^ 'l') * FNVP) /* "email" */
#define W MG__INJ_MODEL_WINDOW

struct win {
    uint32_t prev1, prev2; /* the two words before (0: none) */
    size_t words;
    long sum, best;
    int ring[W]; /* the last W words' weights */
};

/* A 64-bit key's weight: the top bits of its product with K64 (features.py: bucket). */
#define K64 0x9E3779B97F4A7C15ull
#define BITS (__builtin_ctz(MG__INJ_MODEL_BUCKETS))
static inline int weight(uint64_t x) { return mg__inj_model_w[(x * K64) >> (64 - BITS)]; }

static inline void word(struct win *v, uint32_t t)
{
    int c = weight(t) + weight(((uint64_t)v->prev1 << 32 | t) ^ 0x5BD1E9955BD1E995ull) +
            weight(((uint64_t)v->prev2 << 32 | t) ^ 0x27D4EB2F165667B1ull);
    size_t i = v->words++;
    if (i >= W) v->sum -= v->ring[i % W];
    v->sum += c;
    v->ring[i % W] = c;
    if (i + 1 >= W && (i + 1 == W || v->sum > v->best)) v->best = v->sum;
    v->prev2 = v->prev1;
    v->prev1 = t;
}

int mg__inj_model_score(const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    struct win v = {0};
    uint32_t h = FNV0;
    bool in = false, digits = true; /* digits: the word so far is digits only (it is then "0") */
    for (size_t i = 0; i < n;) {
        unsigned char c = s[i], k = byte_kind[c];
        if (k && k < 0x80) {
            /* a word's ASCII letters and digits; where one starts after no letter or digit, maybe a URL */
            if (k == 'h' && (i == 0 || !ascii_alnum(s[i - 1])) && url_at(s + i, n - i)) {
                if (in) word(&v, digits ? NUM : h);
                word(&v, URLW);
                while (i < n && !url_end(s[i])) i++;
                h = FNV0, in = false, digits = true;
                continue;
            }
            do {
                h = (h ^ k) * FNVP;
                digits &= k <= '9';
            } while (++i < n && (k = byte_kind[s[i]]) && k < 0x80);
            in = true;
            continue;
        }
        if (!k) { /* ASCII that ends a word: an address's @ (its domain the word "email"), or the run of them */
            if (in) word(&v, digits ? NUM : h);
            h = FNV0, in = false, digits = true;
            if (c == '@' && i > 0 && i + 1 < n &&
                (ascii_alnum(s[i - 1]) || (s[i - 1] && strchr("._%+-", s[i - 1]))) && ascii_alnum(s[i + 1])) {
                word(&v, EMAILW);
                for (i++; i < n && (ascii_alnum(s[i]) || s[i] == '.' || s[i] == '-'); i++) continue;
                continue;
            }
            while (++i < n && !byte_kind[s[i]] && s[i] != '@') continue;
            continue;
        }
        int32_t cp;
        size_t l = mg__utf8_next(s + i, n - i, &cp);
        if (cp >= 0 && (sep_cp(cp) || cjk_cp(cp))) {
            if (in) word(&v, digits ? NUM : h);
            h = FNV0, in = false, digits = true;
            if (!sep_cp(cp)) { /* CJK punctuation is in the CJK block: a separator */
                for (size_t j = 0; j < l; j++) h = (h ^ s[i + j]) * FNVP;
                word(&v, h);
                h = FNV0;
            }
        } else {
            for (size_t j = 0; j < l; j++) h = (h ^ s[i + j]) * FNVP;
            in = true, digits = false;
        }
        i += l;
    }
    if (in) word(&v, digits ? NUM : h);
    if (v.words && v.words < W) v.best = v.sum;
    return MG__INJ_MODEL_BIAS + (int)v.best;
}

static bool model_off;
static pthread_once_t model_once = PTHREAD_ONCE_INIT;
static void model_init(void)
{
    const char *e = getenv("MEMGATE_INJECTION_MODEL");
    model_off = e && !strcmp(e, "off");
}

unsigned mg__inj_model_reasons(const char *s, size_t n)
{
    pthread_once(&model_once, model_init);
    if (model_off) return 0;
    int v = mg__inj_model_score(s, n);
    return v >= MG__INJ_MODEL_ALONE ? MG_INJ_MODEL : v >= MG__INJ_MODEL_THRESHOLD ? MG_INJ_MODEL_CUE : 0;
}
