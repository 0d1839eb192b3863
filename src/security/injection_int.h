/* injection_int.h — what the files of the prompt-injection check
 * (sanitize.h: mg_injection_check) share; not for other modules.
 *
 *   injection.c          the check: the patterns compiled (injection_patterns.h),
 *                        matched and confirmed, the text matched again as it
 *                        would have been hidden, the score
 *   injection_prescan.c  one pass over the text's bytes: does it hold something
 *                        to fold or decode (and hidden characters)?
 *   injection_fold.c     the byte classes and the attack words; hidden text
 *                        folded back (invisible and look-alike characters,
 *                        leetspeak, spaced-out letters) and decoded (base64, hex)
 *
 * Calls go one way, down that list. The tables below are filled once
 * (mg__inj_tables_init) and read-only after.
 */
#ifndef MG_INJECTION_INT_H
#define MG_INJECTION_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "security/sanitize.h"
#include "security/sanitize_int.h"

/* What a text holds to fold or decode: the forms matched again (bits). */
#define MG__FOLD_LEET 0x1u
#define MG__FOLD_SPACED 0x2u
#define MG__FOLD_ROT13 0x4u
#define MG__FOLD_BASE64 0x8u
#define MG__FOLD_HEX 0x10u

/* ---- injection_fold.c: tables ---- */

/* The words of the patterns an attacker writes in leetspeak (lower case). */
extern const char *const mg__inj_words[];
extern const size_t mg__inj_nwords;
#define MG__INJ_LEET_MIN 5 /* shorter leet words ("0f", "d0", "r1") are hex and register names */

/* Byte classes for the ASCII passes (bits of mg__inj_cls). */
#define MG__C_ALPHA 0x01u
#define MG__C_DIGIT 0x02u
#define MG__C_LEET 0x04u   /* stands for a letter inside a word: 0 1 3 4 5 7 @ $ ! | */
#define MG__C_SPACER 0x08u /* between spaced-out letters */
#define MG__C_B64 0x10u
#define MG__C_JUNK 0x20u   /* punctuation an attacker puts inside a word: . ' | _ ~ * (not - or /: paths) */
extern unsigned char mg__inj_cls[256];
#define MG__IS(c, k) (mg__inj_cls[(unsigned char)(c)] & (k))
/* the letter (0-25) a word character reads as in leetspeak, or -1 */
extern signed char mg__inj_leet_of[256];
/* The vocabulary's words (below): their three-letter runs, a bit each;
 * their four-letter runs, an open-addressed set (mg__inj_quad_key; 0 is
 * empty), each also with its l read as i (as '1' reads); the words by first
 * letter: mg__inj_vocab[mg__inj_by_first[mg__inj_by_at[c] .. mg__inj_by_at[c + 1])]. */
extern uint64_t mg__inj_tri[26 * 26 * 26 / 64 + 1];
#define MG__INJ_TRI(a, b, c)                                                                                        \
    (mg__inj_tri[((a) * 676 + (b) * 26 + (c)) / 64] >> (((a) * 676 + (b) * 26 + (c)) % 64) & 1)
#define MG__INJ_NQUADS 16384 /* a power of two */
extern uint32_t mg__inj_quads[MG__INJ_NQUADS];
/* The vocabulary of leetspeak: mg__inj_words and the patterns' words of
 * MG__INJ_LEET_MIN letters or more (injection_fold.c), lower case. */
#define MG__INJ_VOCAB_MAX 4096
extern const char *mg__inj_vocab[MG__INJ_VOCAB_MAX];
extern size_t mg__inj_nvocab;
extern uint16_t mg__inj_by_first[MG__INJ_VOCAB_MAX], mg__inj_by_at[27];
/* The same words as a trie, for the prescan's word check: node 0 is the
 * root, a node's children are kid, kid's next, ... (0 ends the list), and a
 * word ends at a node with end set. */
struct mg__inj_node {
    char c;
    bool end;
    uint32_t kid, next;
};
#define MG__INJ_NODES_MAX (MG__INJ_VOCAB_MAX * 16 + 1) /* a node per letter of vocab_pool, and the root */
extern struct mg__inj_node mg__inj_trie[MG__INJ_NODES_MAX];
extern uint32_t mg__inj_trie_first[26]; /* the root's child for each letter a-z, or 0 */
/* Fill the tables (once; thread-safe). */
void mg__inj_tables_init(void);
/* mg_injection_normalise (sanitize.h), with pieces: spaced-out runs read again
 * with their punctuation and digits kept (injection_fold.c's spaced_pieces) */
size_t mg__inj_normalise_pieces(const char *s, size_t n, char *out, unsigned *how, bool pieces);

static inline uint32_t mg__inj_quad_key(const int *c)
{
    return 1u + (uint32_t)(c[0] | c[1] << 5 | c[2] << 10 | c[3] << 15);
}

static inline uint32_t mg__inj_quad_hash(uint32_t key) { return (key * 2654435761u) >> 18; }
/* FNV-1a of s[0..n): the words' hash tables (the vocabulary, a text's words checked) */
static inline uint32_t mg__inj_fnv(const void *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ ((const unsigned char *)s)[i]) * 16777619u;
    return h;
}

static inline int mg__inj_hexv(unsigned char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    c |= 0x20;
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static inline bool mg__inj_printable(unsigned char ch)
{
    return (ch >= 0x20 && ch < 0x7F) || ch == '\n' || ch == '\t';
}

/* A hex byte as code writes one at s[i]: "0x4f" or "\\x4f", two digits and no
 * third (0x4f6e is a number, not a byte). Returns its length, 4, or 0. */
static inline size_t mg__inj_hex_byte(const unsigned char *s, size_t n, size_t i)
{
    if (i + 4 > n || (s[i] != '0' && s[i] != '\\') || (s[i + 1] | 0x20) != 'x' || mg__inj_hexv(s[i + 2]) < 0 ||
        mg__inj_hexv(s[i + 3]) < 0 || (i + 4 < n && mg__inj_hexv(s[i + 4]) >= 0))
        return 0;
    return 4;
}

/* Where the hex byte after the one ending at s[i] starts: at i ("\\x49\\x67") or
 * after a separator of up to 8 commas and white space ("0x49, 0x67", a C array
 * wrapped); 0 when none follows. */
static inline size_t mg__inj_hex_next(const unsigned char *s, size_t n, size_t i)
{
    size_t j = i;
    while (j < n && j - i < 8 && (s[j] == ',' || s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r')) j++;
    return mg__inj_hex_byte(s, n, j) ? j : 0;
}

/* A Latin letter that code point c is drawn like (Cyrillic and Greek
 * look-alikes; fullwidth, mathematical and circled letters), or 0. */
int mg__inj_latin_of(int32_t c);

/* ---- injection.c ---- */

/* A prefilter pattern (loosened: no bounded repeats) written for a Vectorscan
 * database of bytes (no HS_FLAG_UTF8) that matches every text the pattern
 * matched as UTF-8, appended to out with its NUL. 0, or -1 (out of memory, a class left open). */
int mg__inj_bytewise(struct mg_buf *out, const char *re);

/* For tests: a pattern that PCRE2 finds in s[0..n) (UTF-8 or not) and the
 * prefilter database does not report (its loosened, byte-wise form must
 * match more, never less), or -1. */
int mg__inj_prefilter_miss(const char *s, size_t n);

/* ---- injection_prescan.c ---- */

/* What the text as it came holds, in one pass over its bytes. */
struct mg__inj_pre {
    bool hidden; /* a Unicode tag, a bidi override, or a zero-width run of 3+ */
    bool chars;  /* something folding changes: invisible or combining characters, fullwidth,
                  * mathematical or circled letters, a look-alike letter beside an ASCII one */
    unsigned fold; /* MG__FOLD_LEET, _SPACED, _HEX: what folding or decoding would turn into an attack */
};
/* (The tables must be filled.) */
void mg__inj_prescan(const unsigned char *s, size_t n, struct mg__inj_pre *p);

/* injection_model.c: the learned model's score of s[0..n) (injection_model.h's units), and what it says:
 * MG_INJ_MODEL at or over its threshold alone, MG_INJ_MODEL_CUE (a cue: flagged beside another) at or over
 * its threshold, else 0. */
int mg__inj_model_score(const char *s, size_t n);
unsigned mg__inj_model_reasons(const char *s, size_t n);

#endif
