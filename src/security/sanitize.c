/* sanitize.c — strip control sequences, hidden characters and model
 * markers; flag instruction-like text (sanitize.h). */
#include "security/sanitize.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <hs/hs.h>
#include <ctype.h>
#include <limits.h>
#include <pcre2.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "security/scan.h"
#include "util/lre.h"
#include "util/utf8.h"

/* Decode one UTF-8 sequence at s (n > 0 bytes left). Returns its length and
 * the code point in *cp; an invalid sequence is 1 byte with *cp = -1. */
static size_t utf8_next(const unsigned char *s, size_t n, int32_t *cp)
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

static bool is_tag(int32_t c) { return c >= 0xE0000 && c <= 0xE007F; }
static bool is_bidi(int32_t c) { return (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069); }
/* Invisible, zero-width format characters. ZWNJ, ZWJ, LRM and RLM have
 * legitimate single uses (scripts, emoji, RTL text); the others do not. */
static bool is_zw(int32_t c)
{
    return (c >= 0x200B && c <= 0x200F) || (c >= 0x2060 && c <= 0x2064) || c == 0xFEFF || c == 0x180E;
}
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

/* Eight bytes at p that mg_sanitize keeps as they are: printable ASCII
 * other than '<', '[' and '#' (where markers start). Word-at-a-time tests:
 * a byte with the high bit, a byte under 0x20, a byte equal to one of four. */
#define ONES 0x0101010101010101ull
#define HIGHS 0x8080808080808080ull
#define HAS_ZERO(x) (((x) - ONES) & ~(x) & HIGHS)
static inline bool plain8(const unsigned char *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    if (w & HIGHS) return false;
    if ((w - 0x20 * ONES) & ~w & HIGHS) return false; /* exact for bytes under 0x80 */
    return !(HAS_ZERO(w ^ (0x7F * ONES)) | HAS_ZERO(w ^ ('<' * ONES)) | HAS_ZERO(w ^ ('[' * ONES)) |
             HAS_ZERO(w ^ ('#' * ONES)));
}

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
        if (i + 8 <= n && plain8(s + i)) { /* the common case, eight bytes at a time */
            i += 8;
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
        size_t l = utf8_next(s + i, n - i, &cp);
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
        if (is_tag(cp) || is_bidi(cp)) {
            FLUSH(i);
            f |= MG_SAN_HIDDEN;
            run = i += l;
            continue;
        }
        if (is_zw(cp)) {
            size_t j = i + l, count = 1;
            int32_t c2;
            size_t l2;
            while (j < n && (l2 = utf8_next(s + j, n - j, &c2)) && c2 >= 0 && is_zw(c2)) j += l2, count++;
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

/* ---- injection patterns ------------------------------------------------------------ */

/* The patterns (injection_patterns.h) are compiled
 * into one PCRE2 alternation (caseless, UTF, Unicode properties) where each
 * branch leaves a (*MARK) naming its index, so a match says why. */
struct inj_pat {
    unsigned why;   /* MG_INJ_* */
    const char *re;
    const char *hs; /* what the prefilter looks for instead of re, or NULL: a part of re that every
                     * match holds, ending at most CONFIRM_FWD bytes before the match does (a pattern
                     * Vectorscan takes seconds to compile) */
};
#include "security/injection_patterns.h"
#define N_PATTERNS (sizeof(inj_patterns) / sizeof(inj_patterns[0]))

/* The words of the patterns an attacker writes in leetspeak. */
static const char *const attack_words[] = {
    "ignore", "ignoring", "disregard", "forget", "override", "bypass", "all", "any", "every", "previous",
    "prior", "preceding", "above", "earlier", "original", "initial", "system", "instruction", "instructions",
    "prompt", "prompts", "rules", "guidelines", "directions", "directives", "you", "are", "now", "act", "as",
    "reveal", "print", "show", "output", "repeat", "leak", "secret", "hidden", "new", "updated", "real",
    "true", "unrestricted", "unfiltered", "jailbroken", "dan", "developer", "mode", "from", "on", "henceforth",
    "will", "must", "shall", "should", "tell", "user", "not", "do", "stop", "following", "obeying",
    "everything", "told", "the", "your", "my", "these", "those", "of", "an", "a", "assistant", "model",
    "before", "consider", "treat", "language", "obsolete", "execute", "command", "delete", "upload", "context",
    "policy", "safety", "credentials", "password", "answer", "void", "send", "run", "and",
};
#define N_WORDS (sizeof(attack_words) / sizeof(attack_words[0]))
#define LEET_MIN 5 /* shorter leet words ("0f", "d0", "r1") are hex and register names */

/* Triggers say the text holds something to fold or decode; most text holds
 * none and is matched once, as it is. Two are Vectorscan literals in the
 * same scan as the instruction patterns (ids from N_PATTERNS on); leetspeak,
 * spaced-out letters and hex text are found by the byte pass (prescan),
 * which Vectorscan runs at a third of the speed. */
enum {
    T_ROT13 = N_PATTERNS, /* "rot13", "caesar": the text asks for ROT13 to be read */
    T_BASE64,             /* an attack word as it reads inside base64 (b64_words) */
};
#define F_LEET 0x1u
#define F_SPACED 0x2u
#define F_ROT13 0x4u
#define F_BASE64 0x8u
#define F_HEX 0x10u

/* each pattern alone: a window confirms the ones that fired in it (compiled
 * when a window first needs it) */
#define INJ_RE_OPTS (PCRE2_CASELESS | PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF)
static struct mg_lre inj_re[N_PATTERNS];
static bool inj_ok; /* inj_re and inj_db are ready */
static hs_database_t *inj_db;
static hs_scratch_t *inj_proto;
static pthread_once_t inj_once = PTHREAD_ONCE_INIT;

/* T_BASE64: the words attacks are made of, as they read inside base64 at
 * each of the three byte offsets (the characters that depend on the word's
 * bytes only), lower case, capitalised and upper case, as one alternation
 * of literals into out (NUL-terminated). A base64 run is decoded only when
 * it holds one: long identifiers, hashes and keys do not. */
static int b64_words(struct mg_buf *out)
{
    static const char *const words[] = {"ignore", "disregard", "forget", "instructions", "previous", "system",
                                        "prompt", "reveal", "you are", "override", "assistant", "secret",
                                        " the ", " you ", " your ", " and ", " now ", " user"};
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    bool first = true;
    for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++)
        for (int form = 0; form < 3; form++)
            for (size_t k = 0; k < 3; k++) {
                unsigned char bytes[24] = {0};
                size_t l = strlen(words[w]);
                for (size_t i = 0; i < l; i++) {
                    unsigned char c = (unsigned char)words[w][i];
                    bytes[k + i] = (form == 2 || (form == 1 && i == 0)) && c >= 'a' && c <= 'z' ? c - 32 : c;
                }
                /* character j holds bits [6j, 6j + 6); the word's are [8k, 8k + 8l) */
                size_t from = (8 * k + 5) / 6, to = (8 * (k + l)) / 6;
                if (to < from + 6) continue;
                if (mg_buf_adds(out, first ? "" : "|") != 0) return -1;
                first = false;
                for (size_t j = from; j < to; j++) {
                    size_t bit = 6 * j;
                    unsigned v = ((unsigned)bytes[bit / 8] << 8 | bytes[bit / 8 + 1]) >> (10 - bit % 8) & 63;
                    if ((b64[v] == '+' && mg_buf_add(out, "\\", 1) != 0) || mg_buf_add(out, &b64[v], 1) != 0)
                        return -1;
                }
            }
    return mg_buf_add(out, "", 1);
}

static void cls_init(void);
static pthread_once_t cls_once;

/* re as the prefilter sees it, into out (NUL-terminated): bounded repeats
 * ({0,40}, {1,3}) made unbounded and lazy marks dropped. Vectorscan takes
 * minutes to compile large bounded repeats; the prefilter may match more
 * than the pattern (PCRE2 confirms), never less. */
static int loosen(struct mg_buf *out, const char *re)
{
    bool cls = false;
    for (const char *p = re; *p; p++) {
        if (*p == '\\' && p[1]) {
            if (mg_buf_add(out, p, 2) != 0) return -1;
            p++;
            continue;
        }
        if (cls) cls = *p != ']';
        else if (*p == '[') {
            cls = true;
            if (mg_buf_add(out, p, 1) != 0) return -1;
            if (p[1] == '^' || p[1] == ']') { /* "[]" and "[^]": the ']' is a member */
                if (mg_buf_add(out, ++p, 1) != 0) return -1;
                if (*p == '^' && p[1] == ']' && mg_buf_add(out, ++p, 1) != 0) return -1;
            }
            continue;
        } else if (*p == '{' && p[1] >= '0' && p[1] <= '9') {
            char *e;
            long lo = strtol(p + 1, &e, 10);
            if (*e == ',' && e[1] >= '0' && e[1] <= '9') {
                strtol(e + 1, &e, 10);
                if (*e == '}') {
                    if (mg_buf_adds(out, lo == 0 ? "*" : "+") != 0) return -1;
                    p = e;
                    if (p[1] == '?') p++;
                    continue;
                }
            }
        }
        if (mg_buf_add(out, p, 1) != 0) return -1;
    }
    return mg_buf_add(out, "", 1);
}

static void inj_compile(void)
{
    pthread_once(&cls_once, cls_init);
    struct mg_buf hsb;
    mg_buf_init(&hsb, 1 << 20);
    const char *pats[N_PATTERNS + 2];
    unsigned flags[N_PATTERNS + 2];
    for (size_t i = 0; i < N_PATTERNS; i++)
        if (mg_lre_init(&inj_re[i], inj_patterns[i].re, INJ_RE_OPTS, PCRE2_JIT_COMPLETE, false, NULL, 0) != 0) goto out;
    unsigned n = 0;
    size_t loose[N_PATTERNS];
    for (size_t i = 0; i < N_PATTERNS; i++) {
        loose[i] = hsb.len;
        if (loosen(&hsb, inj_patterns[i].hs ? inj_patterns[i].hs : inj_patterns[i].re) != 0) goto out;
    }
    for (size_t i = 0; i < N_PATTERNS; i++) {
        pats[n] = NULL; /* set below, once hsb holds everything */
        /* prefilter mode, every end reported (each is confirmed). No
         * HS_FLAG_UCP: Unicode \\s classes make the compile take seconds; the
         * patterns use \\S for word gaps, so ASCII classes lose nothing */
        flags[n++] = HS_FLAG_CASELESS | HS_FLAG_UTF8 | HS_FLAG_PREFILTER;
    }
    size_t rot_at = hsb.len; /* T_ROT13: a mention of ROT13, or an attack word in ROT13 */
    if (mg_buf_adds(&hsb, "rot-?13|caesar|\\b(?:") != 0) goto out;
    for (size_t k = 0; k < N_WORDS; k++) {
        if (strlen(attack_words[k]) < LEET_MIN) continue;
        if (hsb.p[hsb.len - 1] != ':' && mg_buf_adds(&hsb, "|") != 0) goto out;
        for (const char *c = attack_words[k]; *c; c++)
            if (mg_buf_addf(&hsb, "%c", 'a' + (*c - 'a' + 13) % 26) != 0) goto out;
    }
    if (mg_buf_add(&hsb, ")\\b", 4) != 0) goto out;
    size_t b64_at = hsb.len;
    if (b64_words(&hsb) != 0) goto out; /* T_BASE64's: one alternation of literals */
    flags[n++] = HS_FLAG_CASELESS | HS_FLAG_UTF8; /* T_ROT13 */
    flags[n++] = HS_FLAG_UTF8;                    /* T_BASE64: base64 is case-sensitive */
    pats[T_BASE64] = hsb.p + b64_at;
    pats[T_ROT13] = hsb.p + rot_at;
    for (size_t i = 0; i < N_PATTERNS; i++) pats[i] = hsb.p + loose[i];
    char why[300];
    if (mg_hs_compile_cached("injection", pats, flags, n, &inj_db, why, sizeof(why)) != 0) {
        fprintf(stderr, "memgate: bug: Vectorscan cannot compile the injection patterns: %s\n", why);
        inj_db = NULL;
    } else if (hs_alloc_scratch(inj_db, &inj_proto) != HS_SUCCESS) {
        mg_hs_free(inj_db);
        inj_db = NULL;
    } else {
        inj_ok = true;
    }
out:
    mg_buf_release(&hsb);
}
/* ---- folding obfuscated text for matching --------------------------------------------- */

/* A Latin letter that code point c is drawn like (Cyrillic and Greek
 * look-alikes; fullwidth, mathematical and circled letters), or 0. */
static int latin_of(int32_t c)
{
    static const struct {
        int32_t cp;
        char l;
    } look[] = {
        {0x0391, 'A'}, {0x0392, 'B'}, {0x0395, 'E'}, {0x0396, 'Z'}, {0x0397, 'H'}, {0x0399, 'I'}, {0x039A, 'K'},
        {0x039C, 'M'}, {0x039D, 'N'}, {0x039F, 'O'}, {0x03A1, 'P'}, {0x03A4, 'T'}, {0x03A5, 'Y'}, {0x03A7, 'X'},
        {0x03B1, 'a'}, {0x03B3, 'y'}, {0x03B5, 'e'}, {0x03B7, 'n'}, {0x03B9, 'i'}, {0x03BA, 'k'}, {0x03BD, 'v'}, {0x03BF, 'o'}, {0x03C1, 'p'},
        {0x03C4, 't'}, {0x03C5, 'u'}, {0x03C7, 'x'}, {0x03C9, 'w'}, {0x0405, 'S'}, {0x0406, 'I'}, {0x0408, 'J'}, {0x0410, 'A'},
        {0x0412, 'B'}, {0x0415, 'E'}, {0x041A, 'K'}, {0x041C, 'M'}, {0x041D, 'H'}, {0x041E, 'O'}, {0x0420, 'P'},
        {0x0421, 'C'}, {0x0422, 'T'}, {0x0425, 'X'}, {0x0430, 'a'}, {0x0435, 'e'}, {0x043E, 'o'}, {0x0440, 'p'},
        {0x0441, 'c'}, {0x0443, 'y'}, {0x0445, 'x'}, {0x0455, 's'}, {0x0456, 'i'}, {0x0458, 'j'}, {0x04BB, 'h'},
        {0x04CF, 'l'}, {0x0501, 'd'}, {0x051B, 'q'}, {0x051D, 'w'}, {0x2102, 'C'}, {0x210A, 'g'}, {0x210B, 'H'}, {0x210C, 'H'},
        {0x210D, 'H'}, {0x210E, 'h'}, {0x2110, 'I'}, {0x2111, 'I'}, {0x2112, 'L'}, {0x2113, 'l'}, {0x2115, 'N'},
        {0x2119, 'P'}, {0x211A, 'Q'}, {0x211B, 'R'}, {0x211C, 'R'}, {0x211D, 'R'}, {0x2124, 'Z'}, {0x212C, 'B'},
        {0x212D, 'C'}, {0x212F, 'e'}, {0x2130, 'E'}, {0x2131, 'F'}, {0x2133, 'M'}, {0x2134, 'o'},
    };
    if (c >= 0xFF21 && c <= 0xFF3A) return 'A' + (c - 0xFF21);
    if (c >= 0xFF41 && c <= 0xFF5A) return 'a' + (c - 0xFF41);
    if (c >= 0x1D400 && c <= 0x1D6A3) { /* mathematical alphanumerics: 52 letters per style */
        int k = (c - 0x1D400) % 52;
        return k < 26 ? 'A' + k : 'a' + (k - 26);
    }
    if (c >= 0x24B6 && c <= 0x24CF) return 'A' + (c - 0x24B6);
    if (c >= 0x24D0 && c <= 0x24E9) return 'a' + (c - 0x24D0);
    size_t lo = 0, hi = sizeof(look) / sizeof(look[0]);
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (look[mid].cp == c) return look[mid].l;
        if (look[mid].cp < c) lo = mid + 1;
        else hi = mid;
    }
    return 0;
}

static bool is_ascii_alpha(int c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }

/* Byte classes for the ASCII passes. */
#define C_ALPHA 0x01u
#define C_DIGIT 0x02u
#define C_LEET 0x04u   /* stands for a letter inside a word: 0 1 3 4 5 7 @ $ ! | */
#define C_SPACER 0x08u /* between spaced-out letters */
#define C_B64 0x10u
#define C_JUNK 0x20u   /* punctuation an attacker puts inside a word: . ' | _ */
static unsigned char cls[256];
static char unleet[256];
static signed char leet_of[256]; /* the letter (0-25) a word character reads as in leetspeak, or -1 */
/* the four-letter runs of the attack words of LEET_MIN letters or more, an
 * open-addressed set (quad_key; 0 is empty) */
static uint32_t quads[1024];
static uint64_t tri[26 * 26 * 26 / 64 + 1]; /* their three-letter runs, a bit each */
#define TRI(a, b, c) (tri[((a) * 676 + (b) * 26 + (c)) / 64] >> (((a) * 676 + (b) * 26 + (c)) % 64) & 1)
static uint32_t quad_key(const int *c) { return 1u + (uint32_t)(c[0] | c[1] << 5 | c[2] << 10 | c[3] << 15); }
static bool quad_has(uint32_t k)
{
    for (uint32_t h = (k * 2654435761u) >> 22;; h = (h + 1) & 1023) {
        if (quads[h] == k) return true;
        if (!quads[h]) return false;
    }
}
/* the attack words of LEET_MIN letters or more by first letter: by_first[by_at[c] .. by_at[c + 1]) */
static unsigned char by_first[N_WORDS], by_at[27];
static signed char b64v[256];
static pthread_once_t cls_once = PTHREAD_ONCE_INIT;
static void cls_init(void)
{
    for (int c = 0; c < 256; c++) {
        unleet[c] = (char)c;
        b64v[c] = -1;
        if (is_ascii_alpha(c)) cls[c] |= C_ALPHA | C_B64;
        if (c >= '0' && c <= '9') cls[c] |= C_DIGIT | C_B64;
    }
    static const char leet[] = "0o1i3e4a5s7t@a$s!i|l9g8b";
    for (const char *p = leet; *p; p += 2) cls[(unsigned char)p[0]] |= C_LEET, unleet[(unsigned char)p[0]] = p[1];
    for (int c = 0; c < 256; c++) {
        int l = unleet[c] | 0x20;
        leet_of[c] = (signed char)(l >= 'a' && l <= 'z' && (cls[c] & (C_ALPHA | C_DIGIT | C_LEET)) ? l - 'a' : -1);
    }
    for (const char *p = " \t.-_*|/"; *p; p++) cls[(unsigned char)*p] |= C_SPACER;
    for (const char *p = ".'|_"; *p; p++) cls[(unsigned char)*p] |= C_JUNK;
    cls['+'] |= C_B64, cls['/'] |= C_B64;
    unsigned nb = 0;
    for (int c = 0; c < 26; c++) {
        by_at[c] = (unsigned char)nb;
        for (size_t k = 0; k < N_WORDS; k++) {
            if (attack_words[k][0] != 'a' + c || strlen(attack_words[k]) < LEET_MIN) continue;
            by_first[nb++] = (unsigned char)k;
            for (const char *w = attack_words[k]; w[2]; w++) {
                int t = (w[0] - 'a') * 676 + (w[1] - 'a') * 26 + (w[2] - 'a');
                tri[t / 64] |= 1ull << (t % 64);
            }
            for (const char *w = attack_words[k]; w[3]; w++) {
                int q[4] = {w[0] - 'a', w[1] - 'a', w[2] - 'a', w[3] - 'a'};
                uint32_t key = quad_key(q), h = (key * 2654435761u) >> 22;
                while (quads[h] && quads[h] != key) h = (h + 1) & 1023;
                quads[h] = key;
            }
        }
    }
    by_at[26] = (unsigned char)nb;
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (int i = 0; i < 64; i++) b64v[(unsigned char)b64[i]] = (signed char)i;
}
#define IS(c, k) (cls[(unsigned char)(c)] & (k))

/* Pass 1 into o (room for n bytes; it never grows): invisible characters
 * (zero-width, tags, bidi, soft hyphen, combining marks) dropped;
 * fullwidth ASCII and other drawn-alike letters made ASCII when their word
 * also holds an ASCII letter (a Russian word stays Russian). Returns the
 * length written. */
static size_t fold_chars(const unsigned char *s, size_t n, char *o, unsigned *how)
{
    size_t out = 0, i = 0;
    while (i < n) {
        if (s[i] < 0x80 && !IS(s[i], C_ALPHA | C_DIGIT)) { /* an ASCII separator */
            o[out++] = (char)s[i++];
            continue;
        }
        size_t w = i; /* one word: up to the next ASCII separator */
        bool ascii_letter = false, wide = false;
        while (w < n && !(s[w] < 0x80 && !IS(s[w], C_ALPHA | C_DIGIT))) {
            if (s[w] < 0x80) {
                ascii_letter |= IS(s[w], C_ALPHA) != 0;
                w++;
            } else {
                wide = true;
                w++;
            }
        }
        if (!wide) {
            memcpy(o + out, s + i, w - i);
            out += w - i;
            i = w;
            continue;
        }
        size_t look = 0, other = 0; /* a word of look-alikes only ("γου") is folded too */
        for (size_t k = i; k < w;) { /* fullwidth letters make the word foldable too */
            int32_t cp;
            k += utf8_next(s + k, w - k, &cp);
            if (cp >= 0xFF01 && cp <= 0xFF5E) ascii_letter = true;
            else if (cp >= 0x80 && latin_of(cp)) look++;
            else if (cp >= 0x80 && !is_zw(cp) && !(cp >= 0x0300 && cp <= 0x036F)) other++;
        }
        if (look >= 2 && !other) ascii_letter = true;
        for (size_t k = i; k < w;) {
            int32_t cp;
            size_t len = utf8_next(s + k, w - k, &cp);
            int l = cp >= 0x80 ? latin_of(cp) : 0;
            if (cp < 0) o[out++] = '?';
            else if (is_zw(cp) || is_tag(cp) || is_bidi(cp) || cp == 0x00AD || (cp >= 0x0300 && cp <= 0x036F) ||
                     cp == 0x00B7 || cp == 0x2027) {
                *how |= MG_INJ_INVISIBLE; /* dropped (a middle dot too: "y·our") */
            } else if (cp == 0x3000 || cp == 0x00A0 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x202F) {
                o[out++] = ' '; /* ideographic and other wide spaces */
            } else if (cp >= 0xFF01 && cp <= 0xFF5E) {
                o[out++] = (char)(cp - 0xFEE0);
                *how |= MG_INJ_LOOKALIKE;
            } else if (l && (ascii_letter || cp >= 0x1D400 || (cp >= 0x2100 && cp <= 0x214F) ||
                             (cp >= 0x24B6 && cp <= 0x24E9))) {
                o[out++] = (char)l;
                *how |= MG_INJ_LOOKALIKE;
            } else {
                memcpy(o + out, s + k, len);
                out += len;
            }
            k += len;
        }
        i = w;
    }
    return out;
}

/* Whether w[0..n) is one of attack_words (letters only: a digit left
 * means it is not leetspeak: uint32, md5). */
static bool attack_word(const char *w, size_t n)
{
    if (n < 1 || n > 12) return false;
    for (size_t i = 0; i < n; i++)
        if (!is_ascii_alpha((unsigned char)w[i])) return false;
    for (size_t k = 0; k < N_WORDS; k++)
        if ((attack_words[k][0] | 0x20) == (w[0] | 0x20) && strncasecmp(attack_words[k], w, n) == 0 &&
            attack_words[k][n] == 0)
            return true;
    return false;
}

/* A spaced-out run at t[i]: at least 4 letters, each alone, one to five
 * spacers apart ("i g n o r e  a l l", "D . o   n . o . t", "N.e.w
 * i.n.s.t.r.u.c.t.i.o.n.s"). The gap seen most often is the one inside
 * words; any other gap is a word break. Writes the letters (and a space per
 * break) at o + *out and returns where the run ends, or 0 when there is
 * none. */
#define SPACED_MAX 512
static size_t spaced_run(const char *t, size_t n, size_t i, char *o, size_t *out)
{
    uint32_t gap[SPACED_MAX], key[8];
    size_t cnt[8] = {0}, nkeys = 0, ngaps = 0, k = i, letters = 0, end = i;
    while (k < n && IS(t[k], C_ALPHA) && (k + 1 >= n || !IS(t[k + 1], C_ALPHA | C_DIGIT)) && ngaps < SPACED_MAX) {
        letters++;
        end = k + 1;
        size_t g = k + 1;
        uint32_t h = 0;
        while (g < n && IS(t[g], C_SPACER) && g - k <= 5) h = h * 31 + (unsigned char)t[g++];
        if (g == k + 1 || g >= n || !IS(t[g], C_ALPHA) || g - k > 5) break;
        gap[ngaps++] = h;
        size_t j = 0;
        while (j < nkeys && key[j] != h) j++;
        if (j == nkeys && nkeys < 8) key[nkeys++] = h;
        if (j < nkeys) cnt[j]++;
        k = g;
    }
    if (letters < 4) return 0;
    size_t best = 0;
    for (size_t j = 1; j < nkeys; j++)
        if (cnt[j] > cnt[best]) best = j;
    size_t g = 0;
    for (size_t q = i; q < end; q++) {
        if (!IS(t[q], C_ALPHA)) continue;
        if (q > i && g < ngaps && gap[g++] != key[best]) o[(*out)++] = ' ';
        o[(*out)++] = t[q];
    }
    return end;
}

/* Pass 2 from t into o (never longer): spaced-out letters joined
 * (spaced_run); inside a word, punctuation between letters dropped
 * ("Ignor.e", "a|b|o|v|e", "instruc.tions") and leetspeak undone where that
 * leaves letters only ("1gn0r3", "pr3v10u5"; "x86" stays), or where a word
 * of digits spells one of the patterns' words ("411"). */
static size_t fold_words(const char *t, size_t n, char *o, unsigned *how)
{
    size_t out = 0, i = 0;
    while (i < n) {
        unsigned char c = (unsigned char)t[i];
        if (!IS(c, C_ALPHA | C_DIGIT | C_LEET)) {
            o[out++] = (char)c;
            i++;
            continue;
        }
        bool start = i == 0 || !IS(t[i - 1], C_ALPHA | C_DIGIT);
        if (start && IS(c, C_ALPHA) && i + 2 < n && IS(t[i + 1], C_SPACER) && !IS(t[i + 1], C_ALPHA)) {
            size_t end = spaced_run(t, n, i, o, &out);
            if (end) {
                *how |= MG_INJ_SPACED;
                i = end;
                continue;
            }
        }
        size_t w = i; /* a word: letters, digits, leet symbols, punctuation between two of them */
        bool letter = false, leet = false, junk = false;
        while (w < n) {
            bool inside = w > i && w + 1 < n && IS(t[w - 1], C_ALPHA | C_DIGIT | C_LEET) &&
                          IS(t[w + 1], C_ALPHA | C_DIGIT | C_LEET);
            if (IS(t[w], C_JUNK) && inside) junk = true;
            else if (IS(t[w], C_ALPHA | C_DIGIT | C_LEET)) {
                letter |= IS(t[w], C_ALPHA) != 0;
                leet |= IS(t[w], C_LEET) && !IS(t[w], C_ALPHA);
            } else
                break;
            w++;
        }
        size_t at = out;
        for (size_t q = i; q < w; q++)
            if (!(IS(t[q], C_JUNK) && q > i && q + 1 < w)) o[out++] = t[q];
        if (leet) {
            char u[64];
            size_t l = out - at, alpha = 0;
            for (size_t q = 0; q < l && q < sizeof(u); q++) alpha += is_ascii_alpha(u[q] = unleet[(unsigned char)o[at + q]]);
            if (l <= sizeof(u) && alpha == l && (letter || attack_word(u, l))) {
                memcpy(o + at, u, l);
                *how |= MG_INJ_LEET;
            }
        }
        if (junk) *how |= MG_INJ_LEET;
        i = w;
    }
    return out;
}

static int hexv(unsigned char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    c |= 0x20;
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}
static bool printable(unsigned char ch) { return (ch >= 0x20 && ch < 0x7F) || ch == '\n' || ch == '\t'; }

/* The k hex pairs at p, stride bytes apart (2: "49676e", 3: "49 67 6e"),
 * are all printable text. The prefilter matched the digits. */
static bool hex_text(const unsigned char *p, size_t k, size_t stride)
{
    for (size_t i = 0; i < k * stride; i += stride)
        if (!printable((unsigned char)(hexv(p[i]) << 4 | hexv(p[i + 1])))) return false;
    return true;
}

/* What the base64 runs of 24+ characters (F_BASE64) or the hex runs of 32+
 * digits (F_HEX) of s[0..n) decode to, when that is text (90% printable),
 * a line each into o (room for n bytes: decoding shrinks); returns the
 * length written. Bytes that are not printable become spaces. */
static size_t decode_runs(const char *s, size_t n, char *o, unsigned form)
{
    size_t out = 0, min = form == F_HEX ? 32 : 24;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        if (form == F_HEX)
            while (j < n && hexv((unsigned char)s[j]) >= 0) j++;
        else
            while (j < n && IS(s[j], C_B64)) j++;
        if (j - i >= min) {
            size_t start = out, bits = 0, good = 0, total = 0;
            uint32_t acc = 0;
            o[out++] = '\n';
            for (size_t q = i; q < j; q++) {
                if (form == F_HEX) acc = (acc << 4) | (uint32_t)hexv((unsigned char)s[q]), bits += 4;
                else acc = (acc << 6) | (uint32_t)b64v[(unsigned char)s[q]], bits += 6;
                if (bits >= 8) {
                    bits -= 8;
                    unsigned char ch = (unsigned char)(acc >> bits);
                    total++;
                    good += printable(ch);
                    o[out++] = ch >= 0x20 && ch < 0x7F ? (char)ch : ' ';
                }
            }
            if (good * 10 < total * 9) out = start; /* not text: left out */
        }
        i = j > i ? j : i + 1;
    }
    return out;
}

/* ---- matching --------------------------------------------------------------------------- */

/* Where the prefilter saw candidates: the end offsets (a true match ends at
 * one of them, or at most CONFIRM_FWD bytes after it), merged into windows
 * as they come; each window is confirmed with PCRE2 from CONFIRM_BACK bytes
 * before its first end to CONFIRM_FWD after its last (a match is shorter
 * than that). Trigger ids set fold bits. */
#define CONFIRM_BACK 1024
#define CONFIRM_FWD 256
struct scan {
    const unsigned char *s;
    size_t n;
    size_t first, last;       /* the pending window's ends; last == 0: none */
    unsigned why;             /* MG_INJ_* of the confirmed matches */
    unsigned fold;            /* F_* */
    bool triggers;            /* look at the triggers (the text as it came only) */
    uint64_t ids[(N_PATTERNS + 63) / 64]; /* the patterns that fired in the pending window */
};

/* The MG_INJ_* of the patterns in ids that match s[0..n). */
static unsigned pcre_why(const unsigned char *s, size_t n, const uint64_t *ids)
{
    pcre2_match_data *md = pcre2_match_data_create(1, NULL);
    if (!md) return 0;
    unsigned why = 0;
    const pcre2_code *re;
    for (size_t i = 0; i < N_PATTERNS; i++)
        if ((ids[i / 64] >> (i % 64) & 1) && !(why & inj_patterns[i].why) &&
            (re = mg_lre_get(&inj_re[i], NULL)) && pcre2_match(re, (PCRE2_SPTR)s, n, 0, 0, md, NULL) >= 0)
            why |= inj_patterns[i].why;
    pcre2_match_data_free(md);
    return why;
}

static unsigned confirm_window(const struct scan *c)
{
    size_t from = c->first > CONFIRM_BACK ? c->first - CONFIRM_BACK : 0;
    size_t to = c->last + CONFIRM_FWD <= c->n ? c->last + CONFIRM_FWD : c->n;
    while (from > 0 && (c->s[from] & 0xC0) == 0x80) from--; /* start on a character */
    while (to < c->n && (c->s[to] & 0xC0) == 0x80) to++;
    return pcre_why(c->s + from, to - from, c->ids);
}

static int on_inj(unsigned int id, unsigned long long from, unsigned long long to, unsigned int fl, void *ctx)
{
    (void)from, (void)fl;
    struct scan *c = ctx;
    size_t end = to < c->n ? (size_t)to : c->n;
    if (id >= N_PATTERNS) {
        if (c->triggers) c->fold |= id == T_ROT13 ? F_ROT13 : F_BASE64;
        return 0;
    }
    if (c->last && end <= c->last + CONFIRM_BACK) { /* near the pending window: it grows */
        if (end > c->last) c->last = end;
    } else {
        if (c->last) c->why |= confirm_window(c);
        memset(c->ids, 0, sizeof(c->ids));
        c->first = c->last = end ? end : 1;
    }
    c->ids[id / 64] |= 1ull << (id % 64);
    return 0;
}

/* Per-thread Vectorscan scratch, cloned from the prototype on first use. */
static __thread hs_scratch_t *inj_scratch;
static pthread_key_t inj_key;
static pthread_once_t inj_key_once = PTHREAD_ONCE_INIT;
static void scratch_free(void *p) { hs_free_scratch(p); }
static void key_init(void) { pthread_key_create(&inj_key, scratch_free); }

/* The MG_INJ_* of what s[0..n) matches; *fold (NULL: not wanted) gets the
 * F_* of what it holds to fold or decode. Without Vectorscan (text that is
 * not valid UTF-8, or no database) every form is tried. */
static unsigned match(const char *str, size_t n, bool valid, unsigned *fold)
{
    const unsigned char *s = (const unsigned char *)str;
    if (inj_db && valid && n <= UINT_MAX) {
        pthread_once(&inj_key_once, key_init);
        if (!inj_scratch && hs_clone_scratch(inj_proto, &inj_scratch) == HS_SUCCESS)
            pthread_setspecific(inj_key, inj_scratch);
        if (inj_scratch) {
            struct scan c = {.s = s, .n = n, .triggers = fold != NULL};
            if (hs_scan(inj_db, str, (unsigned)n, 0, inj_scratch, on_inj, &c) == HS_SUCCESS) {
                if (c.last) c.why |= confirm_window(&c);
                if (fold) *fold = c.fold;
                return c.why;
            }
        }
    }
    if (fold) *fold = F_LEET | F_SPACED | F_ROT13 | F_BASE64 | F_HEX;
    uint64_t all[(N_PATTERNS + 63) / 64];
    memset(all, 0xff, sizeof(all));
    return pcre_why(s, n, all);
}

/* What the text as it came holds, in one pass over its bytes (prescan). */
struct pre {
    bool valid;  /* UTF-8 */
    bool hidden; /* a Unicode tag, a bidi override, or a zero-width run of 3+ */
    bool chars;  /* something fold_chars changes: invisible or combining characters, fullwidth,
                  * mathematical or circled letters, a look-alike letter beside an ASCII one */
    unsigned fold; /* F_LEET, F_SPACED, F_HEX: what fold_words or decode_runs would turn into an attack */
};

/* Whether the character s[i..i+l) has an ASCII letter or digit beside it
 * (inside a Latin word, where hiding happens). */
static bool by_letter(const unsigned char *s, size_t n, size_t i, size_t l)
{
    return (i > 0 && IS(s[i - 1], C_ALPHA | C_DIGIT)) || (i + l < n && IS(s[i + l], C_ALPHA | C_DIGIT));
}

/* The non-ASCII character at s[i]: what it tells p. Returns its length. */
static size_t wide_char(const unsigned char *s, size_t n, size_t i, size_t *zw, struct pre *p)
{
    int32_t cp;
    size_t l = utf8_next(s + i, n - i, &cp);
    if (cp < 0) p->valid = false;
    else if (is_tag(cp) || is_bidi(cp)) p->hidden = p->chars = true;
    else if (is_zw(cp)) {
        p->chars |= by_letter(s, n, i, l);
        if (++*zw >= 3) p->hidden = true;
        return l;
    } else if ((cp >= 0xFF10 && cp <= 0xFF19) || (cp >= 0xFF21 && cp <= 0xFF3A) || (cp >= 0xFF41 && cp <= 0xFF5A) ||
               (cp >= 0x1D400 && cp <= 0x1D6A3) || (cp >= 0x24B6 && cp <= 0x24E9) ||
               (cp >= 0x2100 && cp <= 0x214F && latin_of(cp)))
        p->chars = true; /* fullwidth, mathematical, letterlike, circled letters (not CJK punctuation) */
    else if (!p->chars && (cp == 0x00AD || cp == 0x00B7 || (cp >= 0x0300 && cp <= 0x036F) || latin_of(cp)))
        p->chars = by_letter(s, n, i, l); /* a soft hyphen, a combining mark, a look-alike */
    *zw = 0;
    return l;
}

#define C_WORD (C_ALPHA | C_DIGIT | C_LEET) /* what fold_words takes for a word */

/* The letter s[i] reads as in leetspeak, lower case, or -1. */
static inline int leet_letter(const unsigned char *s, size_t i) { return leet_of[s[i]]; }

/* Whether u[st..e) of a word of l letters, where junk came before each
 * letter marked in dirty, is made of whole pieces when junk is inside it:
 * "instruc.tions" and "Over|ride" are, "lookup_load" (upload) and
 * "unsafe_type" (safety) are identifiers, not hiding. */
static bool pieces(const bool *dirty, size_t l, size_t st, size_t e)
{
    bool inside = false;
    for (size_t k = st + 1; k < e; k++) inside |= dirty[k];
    return !inside || ((st == 0 || dirty[st]) && (e == l || dirty[e]));
}

/* An apostrophe that starts an English ending after a word ("instruction's",
 * "don't", "we'll"; not "outpu't" or "v'o'i'd"): the word ends there,
 * whatever fold_words joins. */
static bool contraction(const unsigned char *s, size_t n, size_t j)
{
    if (s[j] != '\'') return false;
    size_t b0 = j; /* the word before: two letters or more, not a piece after junk ("v'o'i'd") */
    while (b0 > 0 && IS(s[b0 - 1], C_ALPHA)) b0--;
    if (j - b0 < 2 || (b0 > 0 && IS(s[b0 - 1], C_JUNK))) return false;
    size_t k = j + 1;
    while (k < n && k - j <= 3 && IS(s[k], C_ALPHA)) k++;
    if (k < n && IS(s[k], C_WORD)) return false;
    size_t l = k - j - 1;
    int a = j + 1 < n ? s[j + 1] | 0x20 : 0, b = l == 2 ? s[j + 2] | 0x20 : 0;
    return (l == 1 && (a == 's' || a == 'd' || (a == 't' && (s[j - 1] | 0x20) == 'n'))) ||
           (l == 2 && ((a == 'l' && b == 'l') || (a == 'r' && b == 'e') || (a == 'v' && b == 'e')));
}

/* Whether the word of fold_words around s[d] (a leet character or junk
 * between two letters) folds into an attack word that d is inside of: the
 * word is cut where fold_words cuts it, its junk dropped and, when every
 * character is then a letter or a leet one, its leet undone. */
static bool leet_word(const unsigned char *s, size_t n, size_t d)
{
    size_t i = d, e = d;
    while (i > 0 && d - i < 64 &&
           (IS(s[i - 1], C_WORD) || (i >= 2 && IS(s[i - 1], C_JUNK) && IS(s[i - 2], C_WORD) && IS(s[i], C_WORD))))
        i--;
    while (e < n && e - i < 64 &&
           (IS(s[e], C_WORD) || (e > i && e + 1 < n && IS(s[e], C_JUNK) && IS(s[e - 1], C_WORD) &&
                                 IS(s[e + 1], C_WORD) && !contraction(s, n, e))))
        e++;
    char u[64];
    bool dirty[64] = {false}, leet[64] = {false}, all = true;
    size_t l = 0;
    for (size_t q = i; q < e && l < sizeof(u); q++) {
        if (IS(s[q], C_JUNK) && q > i && q + 1 < e) { /* dropped: the letters either side are joined */
            dirty[l] = true;
            continue;
        }
        int c = leet_letter(s, q);
        all &= c >= 0;
        u[l] = c >= 0 ? (char)('a' + c) : (char)s[q];
        leet[l++] = !IS(s[q], C_ALPHA);
    }
    for (size_t q = 0; q < l; q++) {
        if (!(dirty[q] || (all && leet[q]))) continue;
        /* an attack word over q: starting at st <= q (before q when q follows dropped junk) */
        for (size_t st = q >= 11 ? q - 11 : 0; st <= q; st++) {
            if (dirty[q] && !leet[q] && st == q) break;
            if (u[st] < 'a' || u[st] > 'z') continue;
            for (unsigned j = by_at[u[st] - 'a']; j < by_at[u[st] - 'a' + 1]; j++) {
                const char *w = attack_words[by_first[j]];
                size_t wl = strlen(w);
                if (st + wl <= l && st + wl > q && memcmp(u + st, w, wl) == 0 && pieces(dirty, l, st, st + wl))
                    return true;
            }
        }
    }
    return false;
}

/* The letter next to s[*i] one way (step -1 or 1), as fold_words joins
 * them: one junk character between two letters skipped; *i moves to it.
 * -1 when there is none. */
static inline int letter_by(const unsigned char *s, size_t n, size_t *i, int step)
{
    size_t j = *i + (size_t)step; /* wraps past 0 to SIZE_MAX */
    if (j >= n) return -1;
    int c = leet_letter(s, j);
    if (c < 0 && IS(s[j], C_JUNK) && IS(s[*i], C_WORD) && j + (size_t)step < n) c = leet_letter(s, j += (size_t)step);
    *i = j;
    return c;
}

/* F_LEET when the leet character or junk at s[d] is inside a word that
 * folds into an attack word ("1gn0r3", "Ignor.e"). Such a word has a run of
 * three, and one of four, letters of an attack word over d (over both sides
 * of junk), which tells most text apart at once ("int32_t", "foo_bar")
 * before the word is folded. */
static bool leet_at(const unsigned char *s, size_t n, size_t d)
{
    bool junk = IS(s[d], C_JUNK) && !IS(s[d], C_ALPHA);
    int c = junk ? -1 : leet_letter(s, d);
    if ((!junk && c < 0) || contraction(s, n, d)) return false;
    int l[3], r[3], nl = 0, nr = 0; /* the letters either side, nearest first */
    size_t a = d, b = d;
    while (nl < 3 && (l[nl] = letter_by(s, n, &a, -1)) >= 0) nl++;
    while (nr < 3 && (r[nr] = letter_by(s, n, &b, 1)) >= 0) nr++;
    bool run = junk ? (nl >= 2 && nr >= 1 && TRI(l[1], l[0], r[0])) || (nl >= 1 && nr >= 2 && TRI(l[0], r[0], r[1]))
                    : (nl >= 1 && nr >= 1 && TRI(l[0], c, r[0])) || (nl >= 2 && TRI(l[1], l[0], c)) ||
                          (nr >= 2 && TRI(c, r[0], r[1]));
    if (!run) return false;
    int seq[7], m = 0;
    for (int k = nl - 1; k >= 0; k--) seq[m++] = l[k];
    if (!junk) seq[m++] = c;
    for (int k = 0; k < nr; k++) seq[m++] = r[k];
    bool hit = false; /* the runs of four that hold d, or both sides of the junk */
    for (int st = nl - 3 < 0 ? 0 : nl - 3; st <= (junk ? nl - 1 : nl) && st + 4 <= m && !hit; st++)
        hit = quad_has(quad_key(seq + st));
    return hit && leet_word(s, n, d);
}

/* F_SPACED: four letters from s[i], each alone, one to five spacers apart,
 * the first and the fourth at a word boundary ("i g n o r e", "D.o n.o.t"),
 * and an attack word in the letters of the whole run ("O S Z A C P" holds
 * none). */
static bool spaced_at(const unsigned char *s, size_t n, size_t i)
{
    char run[64]; /* the run's letters, lower case: worth folding when they hold an attack word */
    size_t m = 0;
    for (;;) {
        run[m++] = (char)(s[i] | 0x20);
        if (m == 4 && i + 1 < n && (IS(s[i + 1], C_ALPHA | C_DIGIT) || s[i + 1] == '_')) return false;
        size_t g = i + 1;
        while (g < n && g - i <= 5 && IS(s[g], C_SPACER)) g++;
        if (g == i + 1 || g - i > 6 || g >= n || !IS(s[g], C_ALPHA) || (g + 1 < n && IS(s[g + 1], C_ALPHA)) ||
            m == sizeof(run))
            break;
        i = g;
    }
    if (m < 4) return false;
    for (size_t k = 0; k < N_WORDS; k++)
        if (strlen(attack_words[k]) >= 3 && memmem(run, m, attack_words[k], strlen(attack_words[k]))) return true;
    return false;
}

/* F_HEX: 32 hex digits from s[i] (then every 8 on while the run lasts), or
 * twelve pairs each with a space or a colon, whose bytes are text. */
static bool hex_at(const unsigned char *s, size_t n, size_t i, bool spaced)
{
    if (spaced) return i + 36 <= n && hex_text(s + i, 12, 3);
    size_t e = i;
    while (e < n && hexv(s[e]) >= 0) e++;
    for (size_t at = i; at + 32 <= e; at += 8)
        if (hex_text(s + at, 16, 2)) return true;
    return false;
}

/* Byte classes of 64 bytes, a bit each. */
struct blk {
    uint64_t alpha, digit, hex, word, leet, junk, spacer, hexsep, high;
};

#if defined(__SSE2__) && !defined(MG_NO_SIMD) /* MG_NO_SIMD: the portable classify, to test it */
#include <emmintrin.h>
static uint64_t mask16(__m128i m, int k) { return (uint64_t)(unsigned)_mm_movemask_epi8(m) << (16 * k); }
#define EQ(v, c) _mm_cmpeq_epi8(v, _mm_set1_epi8(c))
#define OR3(a, b, c) _mm_or_si128(_mm_or_si128(a, b), c)
/* bytes in [lo, lo + len): v + (128 - lo) lands in [-128, -128 + len) as a signed byte */
static __m128i in_range(__m128i v, int lo, int len)
{
    return _mm_cmplt_epi8(_mm_add_epi8(v, _mm_set1_epi8((char)(128 - lo))), _mm_set1_epi8((char)(len - 128)));
}
static void classify(const unsigned char *p, struct blk *b)
{
    *b = (struct blk){0};
    for (int k = 0; k < 4; k++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * k));
        __m128i low = _mm_or_si128(v, _mm_set1_epi8(0x20));
        __m128i a = in_range(low, 'a', 26), d = in_range(v, '0', 10), bar = EQ(v, '|'), sp = EQ(v, ' ');
        __m128i dot_und_bar = OR3(EQ(v, '.'), EQ(v, '_'), bar);
        b->alpha |= mask16(a, k);
        b->digit |= mask16(d, k);
        b->hex |= mask16(_mm_or_si128(d, in_range(low, 'a', 6)), k);
        b->word |= mask16(OR3(a, d, EQ(v, '_')), k);
        b->leet |= mask16(_mm_or_si128(OR3(EQ(v, '@'), EQ(v, '$'), EQ(v, '!')), bar), k);
        b->junk |= mask16(_mm_or_si128(dot_und_bar, EQ(v, '\'')), k);
        __m128i dash_star_slash = OR3(EQ(v, '-'), EQ(v, '*'), EQ(v, '/'));
        b->spacer |= mask16(_mm_or_si128(OR3(dot_und_bar, sp, EQ(v, '\t')), dash_star_slash), k);
        b->hexsep |= mask16(_mm_or_si128(sp, EQ(v, ':')), k);
        b->high |= mask16(v, k);
    }
}
#undef EQ
#undef OR3
#else
static void classify(const unsigned char *p, struct blk *b)
{
    *b = (struct blk){0};
    for (int i = 0; i < 64; i++) {
        unsigned c = p[i];
        uint64_t bit = 1ull << i;
        if (IS(c, C_ALPHA)) b->alpha |= bit;
        if (IS(c, C_DIGIT)) b->digit |= bit;
        if (hexv(c) >= 0) b->hex |= bit;
        if (IS(c, C_ALPHA | C_DIGIT) || c == '_') b->word |= bit;
        if (IS(c, C_LEET) && !IS(c, C_DIGIT)) b->leet |= bit;
        if (IS(c, C_JUNK)) b->junk |= bit;
        if (IS(c, C_SPACER)) b->spacer |= bit;
        if (c == ' ' || c == ':') b->hexsep |= bit;
        if (c >= 0x80) b->high |= bit;
    }
}
#endif

/* Runs of m set bits: bit i of the result is set when bits i, i + step, ...
 * i + (count - 1) * step of v are all set (count a power of two). */
static unsigned __int128 runs(unsigned __int128 v, unsigned step, unsigned count)
{
    for (unsigned k = 1; k < count; k *= 2) v &= v >> (k * step);
    return v;
}

/* One pass, 64 bytes at a time: the non-ASCII characters (struct pre) and
 * the byte triggers, each candidate the masks give checked at its place. */
static void prescan(const unsigned char *s, size_t n, struct pre *p)
{
    *p = (struct pre){.valid = true};
    size_t zw = 0, next_wide = 0, last_wide = 0; /* where the next character starts; after the last wide one */
    struct blk prev = {0};
    unsigned char tail[64];
    for (size_t at = 0; at < n + 64; at += 64) { /* and an empty block after: the hex runs look back one */
        struct blk b;
        size_t len = at >= n ? 0 : n - at < 64 ? n - at : 64;
        if (len < 64) {
            memset(tail, 0, sizeof(tail));
            if (len) memcpy(tail, s + at, len);
        }
        classify(len < 64 ? tail : s + at, &b);
        for (uint64_t h = b.high; h; h &= h - 1) {
            size_t i = at + (size_t)__builtin_ctzll(h);
            if (i < next_wide) continue; /* inside the character before */
            if (i > last_wide) zw = 0;   /* ASCII in between */
            next_wide = last_wide = i + wide_char(s, n, i, &zw, p);
        }
        /* neighbours: bit i of prevbit(x) is x's bit for byte i - 1 */
#define PREVBIT(f) (b.f << 1 | prev.f >> 63)
        uint64_t wordc = b.alpha | b.digit | b.leet, wordc_prev = PREVBIT(alpha) | PREVBIT(digit) | PREVBIT(leet);
        if (!(p->fold & F_LEET)) {
            /* a leet character or junk with a letter or a leet one beside it */
            uint64_t alpha_near = PREVBIT(alpha) | b.alpha >> 1 | 1ull << 63, wordc_next = wordc >> 1 | 1ull << 63;
            for (uint64_t c = ((b.digit | b.leet) & ~b.alpha & alpha_near) | (b.junk & wordc_prev & wordc_next); c;
                 c &= c - 1)
                if (leet_at(s, n, at + (size_t)__builtin_ctzll(c))) {
                    p->fold |= F_LEET;
                    break;
                }
        }
        if (!(p->fold & F_SPACED)) {
            /* a letter after a word boundary, a spacer after it */
            for (uint64_t c = b.alpha & ~PREVBIT(word) & (b.spacer >> 1 | 1ull << 63); c; c &= c - 1)
                if (spaced_at(s, n, at + (size_t)__builtin_ctzll(c))) {
                    p->fold |= F_SPACED;
                    break;
                }
        }
        if (!(p->fold & F_HEX) && (b.digit | prev.digit)) { /* text in hex holds digits */
            unsigned __int128 hx = (unsigned __int128)b.hex << 64 | prev.hex;
            unsigned __int128 pairs = hx & hx >> 1 & ((unsigned __int128)b.hexsep << 64 | prev.hexsep) >> 2;
            /* starting in the block before (this one holds the rest): the
             * start of a run of 32 (the bit before it clear), or of 12 pairs */
            uint64_t r32 = (uint64_t)(runs(hx, 1, 32) & ~(hx << 1));
            uint64_t r12 = (uint64_t)(runs(pairs, 3, 8) & runs(pairs, 3, 4) >> 24);
            for (uint64_t c = r32; c && !(p->fold & F_HEX); c &= c - 1)
                if (hex_at(s, n, at - 64 + (size_t)__builtin_ctzll(c), false)) p->fold |= F_HEX;
            for (uint64_t c = r12; c && !(p->fold & F_HEX); c &= c - 1)
                if (hex_at(s, n, at - 64 + (size_t)__builtin_ctzll(c), true)) p->fold |= F_HEX;
        }
#undef PREVBIT
        prev = b;
    }
}

size_t mg_injection_normalise(const char *s, size_t n, char *out, unsigned *how)
{
    pthread_once(&cls_once, cls_init);
    unsigned h = 0;
    char *a = malloc(n + 1);
    if (!a) return 0;
    size_t an = fold_chars((const unsigned char *)s, n, a, &h);
    size_t m = fold_words(a, an, out, &h);
    free(a);
    if (how) *how = h;
    return m;
}

size_t mg_injection_decode(const char *s, size_t n, char *out, unsigned how)
{
    pthread_once(&cls_once, cls_init);
    return decode_runs(s, n, out, how == MG_INJ_HEX ? F_HEX : F_BASE64);
}

/* Match the text as an attacker would have hidden it: folded (invisible
 * characters, look-alike letters, leetspeak, spaced-out letters), its ROT13
 * when it asks for that, what its base64 and hex runs decode to. The
 * reasons say which form matched. */
static unsigned match_folded(const char *s, size_t n, unsigned fold)
{
    char *b = malloc(n + 1);
    if (!b) return 0;
    unsigned how = 0, why = 0;
    size_t m = mg_injection_normalise(s, n, b, &how);
    bool valid = mg_utf8_valid_prefix(b, m) == m;
    if (how) why = match(b, m, valid, NULL);
    if (why) why |= how;
    if (!why && (fold & F_ROT13)) {
        static const char r13[] = "nopqrstuvwxyzabcdefghijklm";
        for (size_t i = 0; i < m; i++) {
            unsigned char c = (unsigned char)b[i];
            if (IS(c, C_ALPHA)) b[i] = (char)(r13[(c | 0x20) - 'a'] & ~(c & 0x20 ? 0 : 0x20));
        }
        why = match(b, m, valid, NULL);
        if (why) why |= MG_INJ_ROT13 | how;
    }
    for (unsigned k = 0; k < 2 && !why; k++) {
        unsigned f = k ? F_HEX : F_BASE64, reason = k ? MG_INJ_HEX : MG_INJ_BASE64;
        if (!(fold & f)) continue;
        size_t d;
        if (f == F_HEX) { /* "49 67 6e" and "49:67:6e" read as "49676e" */
            size_t m2 = 0;
            for (size_t i = 0; i < n; i++)
                if (!((s[i] == ' ' || s[i] == ':') && i >= 2 && i + 2 < n && hexv((unsigned char)s[i - 1]) >= 0 &&
                      hexv((unsigned char)s[i - 2]) >= 0 && hexv((unsigned char)s[i + 1]) >= 0 &&
                      hexv((unsigned char)s[i + 2]) >= 0))
                    b[m2++] = s[i];
            char *h = malloc(m2 + 1);
            d = h ? decode_runs(b, m2, h, f) : 0;
            if (h) memcpy(b, h, d);
            free(h);
        } else {
            d = decode_runs(s, n, b, f);
        }
        if (d) why = match(b, d, true, NULL);
        if (why) why |= reason;
    }
    free(b);
    return why;
}

static int score_of(unsigned why)
{
    static const struct {
        unsigned bit;
        int weight;
    } base[] = {{MG_INJ_OVERRIDE, 90}, {MG_INJ_EXFIL, 85}, {MG_INJ_PERSONA, 80},
                {MG_INJ_TOOL, 75},     {MG_INJ_ROLE, 70},  {MG_INJ_HIDDEN, 60}};
    int best = 0, kinds = 0;
    for (size_t i = 0; i < sizeof(base) / sizeof(base[0]); i++)
        if (why & base[i].bit) {
            kinds++;
            if (base[i].weight > best) best = base[i].weight;
        }
    if (!best) return 0;
    int s = best + 5 * (kinds - 1) + ((why & MG_INJ_HOW) ? 10 : 0);
    return s > 100 ? 100 : s;
}

int mg_injection_check(const char *str, size_t n, struct mg_inj *r)
{
    struct mg_inj z;
    if (!r) r = &z;
    *r = (struct mg_inj){0};
    pthread_once(&inj_once, inj_compile); /* the byte classes too */
    struct pre p;
    prescan((const unsigned char *)str, n, &p);
    if (p.hidden) r->reasons |= MG_INJ_HIDDEN;
    if (inj_ok) {
        unsigned fold = 0, why = match(str, n, p.valid, &fold);
        fold |= p.fold;
        if (!why && n <= MG_INJECTION_FOLD_MAX && (p.chars || fold)) why = match_folded(str, n, fold);
        r->reasons |= why;
    }
    r->score = score_of(r->reasons);
    return r->score;
}

int mg_injection_patterns_check(char *why, size_t cap)
{
    for (size_t i = 0; i < N_PATTERNS; i++) {
        struct mg_lre l;
        char m[240];
        if (mg_lre_init(&l, inj_patterns[i].re, INJ_RE_OPTS, 0, true, m, sizeof(m)) != 0) {
            snprintf(why, cap, "prompt-injection pattern %zu %s", i, m);
            return -1;
        }
        mg_lre_release(&l);
    }
    return 0;
}

bool mg_injection(const char *s, size_t n) { return mg_injection_check(s, n, NULL) >= MG_INJ_FLAG; }

size_t mg_inj_reason_names(unsigned why, const char **names, size_t cap)
{
    static const struct {
        unsigned bit;
        const char *name;
    } all[] = {
        {MG_INJ_OVERRIDE, "instruction_override"}, {MG_INJ_EXFIL, "exfiltration"},
        {MG_INJ_PERSONA, "persona_change"},         {MG_INJ_TOOL, "tool_call_spoof"},
        {MG_INJ_ROLE, "role_marker"},               {MG_INJ_HIDDEN, "hidden_characters"},
        {MG_INJ_INVISIBLE, "invisible_characters"}, {MG_INJ_LOOKALIKE, "look_alike_letters"},
        {MG_INJ_LEET, "leetspeak"},                 {MG_INJ_SPACED, "spaced_letters"},
        {MG_INJ_ROT13, "rot13"},                    {MG_INJ_BASE64, "base64"},
        {MG_INJ_HEX, "hex"},
    };
    size_t k = 0;
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]) && k < cap; i++)
        if (why & all[i].bit) names[k++] = all[i].name;
    return k;
}
