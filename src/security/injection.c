/* injection.c — the prompt-injection check (sanitize.h: mg_injection_check):
 * how much a text reads like an instruction aimed at the model, and why.
 *
 * The patterns (injection_patterns.h) run as one Vectorscan database in
 * prefilter mode, each window of candidates confirmed with the patterns'
 * PCRE2 programs. The text is matched as it came; when that finds nothing
 * and it holds something hidden (injection_prescan.c, and two triggers in
 * the same database), it is matched again as it would have been hidden:
 * folded, its ROT13, what its base64 and hex runs decode to
 * (injection_fold.c). The reasons found give the score.
 *
 * Sections:
 *   1. the patterns compiled
 *   2. matching: prefilter, windows, confirmation
 *   3. matching what was hidden
 *   4. the score and the reasons' names
 */
#include "security/injection_int.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <hs/hs.h>
#include <limits.h>
#include <pcre2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "security/scan.h"
#include "util/lre.h"
#include "util/utf8.h"

/* ---- 1. the patterns compiled ----------------------------------------------------------- */

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

/* Triggers say the text holds something to fold or decode; most text holds
 * none and is matched once, as it is. Two are Vectorscan literals in the
 * same scan as the instruction patterns (ids from N_PATTERNS on); leetspeak,
 * spaced-out letters and hex text are found by the byte pass (injection_prescan.c),
 * which Vectorscan runs at a third of the speed. */
enum {
    T_ROT13 = N_PATTERNS, /* "rot13", "caesar": the text asks for ROT13 to be read */
    T_BASE64,             /* an attack word as it reads inside base64 (b64_words) */
};

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

/* The upper case of a lower-case letter beyond ASCII (Latin-1, Latin
 * Extended-A and Vietnamese, Greek, Cyrillic), or 0. */
static int32_t upper_of(int32_t c)
{
    if ((c >= 0xE0 && c <= 0xFE && c != 0xF7) || (c >= 0x3B1 && c <= 0x3C9 && c != 0x3C2) || (c >= 0x430 && c <= 0x44F))
        return c - 0x20;
    if (c >= 0x450 && c <= 0x45F) return c - 0x50;
    if (c == 0x3AC) return 0x386;
    if (c >= 0x3AD && c <= 0x3AF) return c - 0x25;
    if (c == 0x3CC) return 0x38C;
    if (c == 0x3CD || c == 0x3CE) return c - 0x3F;
    if ((c >= 0x100 && c <= 0x137) || (c >= 0x14A && c <= 0x177) || (c >= 0x1EA0 && c <= 0x1EFF))
        return c & 1 ? c - 1 : 0;
    if ((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E)) return c & 1 ? 0 : c - 1;
    return 0;
}

/* c (below U+10000) as UTF-8 into o; returns its length. */
static size_t put_utf8(char *o, int32_t c)
{
    if (c < 0x80) return o[0] = (char)c, 1;
    if (c < 0x800) return o[0] = (char)(0xC0 | c >> 6), o[1] = (char)(0x80 | (c & 0x3F)), 2;
    o[0] = (char)(0xE0 | c >> 12), o[1] = (char)(0x80 | (c >> 6 & 0x3F)), o[2] = (char)(0x80 | (c & 0x3F));
    return 3;
}

/* re as the prefilter sees it, into out (NUL-terminated): bounded repeats
 * ({0,40}, {1,3}) made unbounded and lazy marks dropped. Vectorscan takes
 * minutes to compile large bounded repeats; the prefilter may match more
 * than the pattern (PCRE2 confirms), never less. Vectorscan folds the case
 * of ASCII only and reads \\b in ASCII (no HS_FLAG_UCP, below): a letter
 * beyond ASCII gets its upper case beside it ("à" matches "À"), and a
 * pattern that holds one loses its \\b ("ты\\b" before a space). */
static int loosen(struct mg_buf *out, const char *re)
{
    bool cls = false, neg = false, wide = false; /* neg: in a negated class, which must not grow */
    for (const char *p = re; *p && !wide; p++) wide = (unsigned char)*p >= 0x80;
    for (const char *p = re; *p; p++) {
        if (*p == '\\' && p[1]) {
            if (!(wide && p[1] == 'b') && mg_buf_add(out, p, 2) != 0) return -1;
            p++;
            continue;
        }
        if ((unsigned char)*p >= 0x80) {
            int32_t c, up;
            size_t l = mg__utf8_next((const unsigned char *)p, strlen(p), &c);
            if (c >= 0 && !neg && (up = upper_of(c))) {
                char u[4];
                size_t ul = put_utf8(u, up);
                if (mg_buf_adds(out, cls ? "" : "(?:") != 0 || mg_buf_add(out, p, l) != 0 ||
                    mg_buf_adds(out, cls ? "" : "|") != 0 || mg_buf_add(out, u, ul) != 0 ||
                    mg_buf_adds(out, cls ? "" : ")") != 0)
                    return -1;
            } else if (mg_buf_add(out, p, l) != 0) {
                return -1;
            }
            p += l - 1;
            continue;
        }
        if (cls) cls = *p != ']', neg &= cls;
        else if (*p == '[') {
            cls = true, neg = p[1] == '^';
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

/* A class of a loosened pattern, from just after its '[' (p) to past its ']' (*end), written for a
 * byte-wise scan: a positive class whose members beyond ASCII are single characters (the case pairs
 * loosen writes) becomes an alternation of them and a class of the rest, which matches exactly what
 * it did; a negated class loses its members beyond ASCII, and a positive one with a range of them
 * takes every byte beyond ASCII (a range of characters is no range of bytes). *wide: the result may
 * take several bytes for one character, so a repeat must follow it. */
static int byte_class(struct mg_buf *out, const char *p, const char **end, bool *wide)
{
    bool neg = *p == '^';
    if (neg) p++;
    struct mg_buf rest, alts; /* the ASCII members; the alternatives beyond ASCII */
    mg_buf_init(&rest, 4096);
    mg_buf_init(&alts, 4096);
    bool high = false, ok = true;
    *wide = neg;
    int32_t cp;
    for (bool first = true; *p && (*p != ']' || first); first = false) {
        const char *a = p; /* one member: an escape, a POSIX class, a character; then maybe "-" and another */
        size_t l = *p == '\\' && p[1]                             ? 2
                   : *p == '[' && p[1] == ':' && strstr(p, ":]") ? (size_t)(strstr(p, ":]") - p) + 2
                                                                 : mg__utf8_next((const unsigned char *)p, strnlen(p, 4), &cp);
        bool w = (unsigned char)*p >= 0x80;
        if (*p == '\\' && strchr("SWDHVN", p[1])) *wide = true;
        p += l;
        if (*p == '-' && p[1] && p[1] != ']') { /* a range */
            size_t l2 = p[1] == '\\' && p[2] ? 2 : mg__utf8_next((const unsigned char *)p + 1, strnlen(p + 1, 4), &cp);
            w |= (unsigned char)p[1] >= 0x80;
            p += 1 + l2;
            if (w) high |= !neg; /* a negated class takes them by leaving them out */
            else ok &= mg_buf_add(&rest, a, (size_t)(p - a)) == 0;
            continue;
        }
        if (!w) ok &= mg_buf_add(&rest, a, l) == 0;
        else if (!neg) ok &= mg_buf_adds(&alts, "|") == 0 && mg_buf_add(&alts, a, l) == 0;
    }
    if (*p != ']') ok = false;
    *end = *p ? p + 1 : p;
    if (high) *wide = true, alts.len = 0; /* every byte beyond ASCII: the class below */
    bool any = rest.len || high;
    if (ok && alts.len) ok = mg_buf_add(out, "(?:", 3) == 0 && mg_buf_add(out, alts.p + 1, alts.len - 1) == 0 &&
                             (!any || mg_buf_adds(out, "|") == 0);
    if (ok && (any || !alts.len)) {
        if (neg && !rest.len) ok = mg_buf_adds(out, "[\\x00-\\xff]") == 0; /* nothing left out */
        else
            ok = mg_buf_adds(out, neg ? "[^" : "[") == 0 && mg_buf_add(out, rest.p, rest.len) == 0 &&
                 mg_buf_adds(out, high ? "\\x80-\\xff]" : "]") == 0;
    }
    if (ok && alts.len) ok = mg_buf_adds(out, ")") == 0;
    mg_buf_release(&rest);
    mg_buf_release(&alts);
    return ok ? 0 : -1;
}

/* The loosened pattern re written for Vectorscan without HS_FLAG_UTF8, matching at least every text it
 * matched as UTF-8: an atom that takes one character beyond ASCII in several bytes (., \S, \W, \D, a
 * negated class) repeats (+; * where it was optional; {n,} for {n}), classes as byte_class says;
 * a literal character beyond ASCII is its bytes, grouped when a repeat follows it ("，?"). \s, \w, \d
 * and \b are ASCII's in both (no HS_FLAG_UCP). A byte-wise scan runs faster (about a fifth on docs and headers) and takes text
 * that is not valid UTF-8. */
int mg__inj_bytewise(struct mg_buf *out, const char *re)
{
    for (const char *p = re; *p;) {
        bool wide = false;
        if (*p == '\\' && p[1]) {
            wide = strchr("SWDHVN", p[1]) != NULL;
            if (mg_buf_add(out, p, 2) != 0) return -1;
            p += 2;
        } else if (*p == '[') {
            if (byte_class(out, p + 1, &p, &wide) != 0) return -1;
        } else if ((unsigned char)*p >= 0x80) { /* a character's bytes: grouped when a repeat follows */
            int32_t cp;
            size_t l = mg__utf8_next((const unsigned char *)p, strlen(p), &cp);
            bool rep = p[l] && strchr("?*+{", p[l]);
            if ((rep && mg_buf_adds(out, "(?:") != 0) || mg_buf_add(out, p, l) != 0 ||
                (rep && mg_buf_adds(out, ")") != 0))
                return -1;
            p += l;
            continue;
        } else {
            wide = *p == '.';
            if (mg_buf_add(out, p, 1) != 0) return -1;
            p++;
        }
        if (!wide || *p == '*' || *p == '+') continue;
        if (*p == '?') {
            if (mg_buf_adds(out, "*") != 0) return -1;
            p++;
            continue;
        }
        char *e = NULL;
        long lo = *p == '{' && p[1] >= '0' && p[1] <= '9' ? strtol(p + 1, &e, 10) : -1;
        if (lo >= 0 && *e == ',') e += strspn(e + 1, "0123456789") + 1;
        if (lo >= 0 && *e == '}') { /* {n}, {n,} or {n,m}: at least n */
            if (mg_buf_addf(out, "{%ld,}", lo) != 0) return -1;
            p = e + 1;
        } else if (mg_buf_adds(out, "+") != 0) { /* (a '{' that starts no repeat is a character) */
            return -1;
        }
    }
    return mg_buf_add(out, "", 1);
}

static void inj_compile(void)
{
    mg__inj_tables_init();
    struct mg_buf hsb;
    mg_buf_init(&hsb, 1 << 20);
    const char *pats[N_PATTERNS + 2];
    unsigned flags[N_PATTERNS + 2];
    for (size_t i = 0; i < N_PATTERNS; i++)
        if (mg_lre_init(&inj_re[i], inj_patterns[i].re, INJ_RE_OPTS, PCRE2_JIT_COMPLETE, false, NULL, 0) != 0) goto out;
    unsigned n = 0;
    size_t loose[N_PATTERNS];
    struct mg_buf lb;
    mg_buf_init(&lb, 1 << 20);
    for (size_t i = 0; i < N_PATTERNS; i++) {
        loose[i] = hsb.len;
        lb.len = 0;
        if (loosen(&lb, inj_patterns[i].hs ? inj_patterns[i].hs : inj_patterns[i].re) != 0 ||
            mg__inj_bytewise(&hsb, lb.p) != 0) {
            mg_buf_release(&lb);
            goto out;
        }
    }
    mg_buf_release(&lb);
    for (size_t i = 0; i < N_PATTERNS; i++) {
        pats[n] = NULL; /* set below, once hsb holds everything */
        /* prefilter mode, every end reported (each is confirmed), bytes
         * (mg__inj_bytewise). No HS_FLAG_UCP: Unicode \\s classes make the compile
         * take seconds; the patterns use \\S for word gaps, so ASCII classes
         * lose nothing */
        flags[n++] = HS_FLAG_CASELESS | HS_FLAG_PREFILTER;
    }
    size_t rot_at = hsb.len; /* T_ROT13: a mention of ROT13, or an attack word in ROT13 */
    if (mg_buf_adds(&hsb, "rot-?13|caesar|\\b(?:") != 0) goto out;
    for (size_t k = 0; k < mg__inj_nwords; k++) {
        if (strlen(mg__inj_words[k]) < MG__INJ_LEET_MIN) continue;
        if (hsb.p[hsb.len - 1] != ':' && mg_buf_adds(&hsb, "|") != 0) goto out;
        for (const char *c = mg__inj_words[k]; *c; c++)
            if (mg_buf_addf(&hsb, "%c", 'a' + (*c - 'a' + 13) % 26) != 0) goto out;
    }
    if (mg_buf_add(&hsb, ")\\b", 4) != 0) goto out;
    size_t b64_at = hsb.len;
    if (b64_words(&hsb) != 0) goto out; /* T_BASE64's: one alternation of literals */
    flags[n++] = HS_FLAG_CASELESS; /* T_ROT13 */
    flags[n++] = 0;                /* T_BASE64: base64 is case-sensitive */
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

/* ---- 2. matching: prefilter, windows, confirmation -------------------------------------- */

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
        if (c->triggers) c->fold |= id == T_ROT13 ? MG__FOLD_ROT13 : MG__FOLD_BASE64;
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

/* The MG_INJ_* of what s[0..n) matches (valid UTF-8 or not: the database
 * reads bytes); *fold (NULL: not wanted) gets the F_* of what it holds to
 * fold or decode. Without Vectorscan (no database) every form is tried. */
static unsigned match(const char *str, size_t n, unsigned *fold)
{
    const unsigned char *s = (const unsigned char *)str;
    if (inj_db && n <= UINT_MAX) {
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
    if (fold) *fold = MG__FOLD_LEET | MG__FOLD_SPACED | MG__FOLD_ROT13 | MG__FOLD_BASE64 | MG__FOLD_HEX;
    uint64_t all[(N_PATTERNS + 63) / 64];
    memset(all, 0xff, sizeof(all));
    return pcre_why(s, n, all);
}

/* ---- 3. matching what was hidden -------------------------------------------------------- */

/* Match the text as an attacker would have hidden it: folded (invisible
 * characters, look-alike letters, leetspeak, spaced-out letters), its ROT13
 * when it asks for that, what its base64 and hex runs decode to, until what
 * was found with seen (found as it came) is enough to flag it. The reasons
 * say which form matched. */
static bool flagged(unsigned why);

/* MG_INJ_CUE_HIDDEN when a hidden form (what) holds a cue the text as it came (seen) did not: prose names
 * an agent or a deletion in plain words; only an attacker writes them in leetspeak, look-alike letters or
 * base64 (each alone is a cue of 20; found so, a reason of 60) */
static unsigned hidden_cue(unsigned what, unsigned seen)
{
    return what & MG_INJ_CUES & ~seen ? MG_INJ_CUE_HIDDEN : 0;
}

static unsigned match_folded(const char *s, size_t n, unsigned fold, unsigned seen)
{
    char *b = malloc(n + 1);
    if (!b) return 0;
    unsigned how = 0, why = 0;
    size_t m = mg_injection_normalise(s, n, b, &how);
    if (how) why = match(b, m, NULL);
    if (how && !flagged(why)) why |= mg__inj_model_reasons(b, m); /* the model reads the folded words too */
    if (why) why |= how;
    why |= hidden_cue(why, seen);
    if (!flagged(why | seen) && (fold & MG__FOLD_ROT13)) {
        static const char r13[] = "nopqrstuvwxyzabcdefghijklm";
        for (size_t i = 0; i < m; i++) {
            unsigned char c = (unsigned char)b[i];
            if (MG__IS(c, MG__C_ALPHA)) b[i] = (char)(r13[(c | 0x20) - 'a'] & ~(c & 0x20 ? 0 : 0x20));
        }
        unsigned rot = match(b, m, NULL);
        if (rot) why |= rot | MG_INJ_ROT13 | how | hidden_cue(rot, seen);
    }
    if (!flagged(why | seen) && (how & MG_INJ_SPACED)) { /* spaced runs again, their paths and URLs kept */
        unsigned h2 = 0;
        size_t m2 = mg__inj_normalise_pieces(s, n, b, &h2, true);
        unsigned sp = match(b, m2, NULL);
        if (sp) why |= sp | h2 | hidden_cue(sp, seen);
    }
    for (unsigned k = 0; k < 2 && !flagged(why | seen); k++) {
        unsigned f = k ? MG__FOLD_HEX : MG__FOLD_BASE64, reason = k ? MG_INJ_HEX : MG_INJ_BASE64;
        if (!(fold & f)) continue;
        size_t d = mg_injection_decode(s, n, b, reason);
        unsigned dec = d ? match(b, d, NULL) : 0;
        if (dec) why |= dec | reason | hidden_cue(dec, seen);
    }
    free(b);
    return why;
}

/* ---- 4. the score and the reasons' names ------------------------------------------------ */

static int score_of(unsigned why)
{
    static const struct {
        unsigned bit;
        int weight;
    } base[] = {{MG_INJ_OVERRIDE, 90}, {MG_INJ_EXFIL, 85}, {MG_INJ_PERSONA, 80},
                {MG_INJ_TOOL, 75},     {MG_INJ_ROLE, 70},  {MG_INJ_MODEL, 70}, {MG_INJ_HIDDEN, 60},
                {MG_INJ_CUE_HIDDEN, 60}};
    int best = 0, kinds = 0;
    for (size_t i = 0; i < sizeof(base) / sizeof(base[0]); i++)
        if (why & base[i].bit) {
            kinds++;
            if (base[i].weight > best) best = base[i].weight;
        }
    /* cues count only without a reason above: each alone is ordinary text, two kinds are not */
    unsigned cb = why & MG_INJ_CUES;
    if (!(cb & (MG_INJ_ADDRESS | MG_INJ_VOID | MG_INJ_SECRECY)))
        cb &= ~MG_INJ_MODEL_CUE; /* beside a harmful action alone the model reads the same words: one signal */
    int cues = __builtin_popcount(cb);
    if (!best && cues >= 2) best = 60, kinds = cues - 1;
    if (!best) return cues ? 20 : 0;
    int s = best + 5 * (kinds - 1) + ((why & MG_INJ_HOW) ? 10 : 0);
    return s > 100 ? 100 : s;
}

/* Enough found that matching other forms would change nothing. */
static bool flagged(unsigned why) { return score_of(why) >= MG_INJ_FLAG; }

int mg_injection_check(const char *str, size_t n, struct mg_inj *r)
{
    struct mg_inj z;
    if (!r) r = &z;
    *r = (struct mg_inj){0};
    pthread_once(&inj_once, inj_compile); /* the byte classes too */
    struct mg__inj_pre p;
    mg__inj_prescan((const unsigned char *)str, n, &p);
    if (p.hidden) r->reasons |= MG_INJ_HIDDEN;
    if (inj_ok) {
        unsigned fold = 0, why = match(str, n, &fold);
        fold |= p.fold;
        if (!flagged(why)) why |= mg__inj_model_reasons(str, n); /* in words no pattern knows */
        if (!flagged(why) && n <= MG_INJECTION_FOLD_MAX && (p.chars || fold)) /* hidden characters alone: fold */
            why |= match_folded(str, n, fold, why);
        r->reasons |= why;
    } else if (!flagged(r->reasons)) {
        r->reasons |= mg__inj_model_reasons(str, n);
    }
    r->score = score_of(r->reasons);
    return r->score;
}

static int on_any(unsigned int id, unsigned long long from, unsigned long long to, unsigned int fl, void *ctx)
{
    (void)from, (void)to, (void)fl;
    uint64_t *fired = ctx;
    if (id < N_PATTERNS) fired[id / 64] |= 1ull << (id % 64);
    return 0;
}

int mg__inj_prefilter_miss(const char *s, size_t n)
{
    pthread_once(&inj_once, inj_compile);
    if (!inj_ok || n > UINT_MAX) return -1;
    uint64_t fired[(N_PATTERNS + 63) / 64] = {0}, all[(N_PATTERNS + 63) / 64];
    hs_scratch_t *scratch = NULL;
    if (hs_clone_scratch(inj_proto, &scratch) != HS_SUCCESS) return -1;
    hs_error_t rc = hs_scan(inj_db, s, (unsigned)n, 0, scratch, on_any, fired);
    hs_free_scratch(scratch);
    if (rc != HS_SUCCESS) return -1;
    for (size_t i = 0; i < N_PATTERNS; i++) {
        if (fired[i / 64] >> (i % 64) & 1) continue;
        memset(all, 0, sizeof(all));
        all[i / 64] = 1ull << (i % 64);
        if (pcre_why((const unsigned char *)s, n, all)) return (int)i;
    }
    return -1;
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

bool mg_injection_prepare(void)
{
    pthread_once(&inj_once, inj_compile);
    return inj_ok;
}

size_t mg_inj_reason_names(unsigned why, const char **names, size_t cap)
{
    static const struct {
        unsigned bit;
        const char *name;
    } all[] = {
        {MG_INJ_OVERRIDE, "instruction_override"}, {MG_INJ_EXFIL, "exfiltration"},
        {MG_INJ_PERSONA, "persona_change"},         {MG_INJ_TOOL, "tool_call_spoof"},
        {MG_INJ_ROLE, "role_marker"},               {MG_INJ_HIDDEN, "hidden_characters"},
        {MG_INJ_CUE_HIDDEN, "hidden_cue"},         {MG_INJ_MODEL, "learned_model"},
        {MG_INJ_INVISIBLE, "invisible_characters"}, {MG_INJ_LOOKALIKE, "look_alike_letters"},
        {MG_INJ_LEET, "leetspeak"},                 {MG_INJ_SPACED, "spaced_letters"},
        {MG_INJ_ROT13, "rot13"},                    {MG_INJ_BASE64, "base64"},
        {MG_INJ_HEX, "hex"},
        {MG_INJ_ADDRESS, "addressed_to_agent"},     {MG_INJ_ACTION, "harmful_action"},
        {MG_INJ_VOID, "instructions_voided"},       {MG_INJ_SECRECY, "secrecy"},
        {MG_INJ_MODEL_CUE, "learned_cue"},
    };
    size_t k = 0;
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]) && k < cap; i++)
        if (why & all[i].bit) names[k++] = all[i].name;
    return k;
}
