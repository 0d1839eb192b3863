/* injection_fold.c — text an attacker hid from the prompt-injection
 * patterns, folded back so that they match it (injection_int.h; sanitize.h:
 * mg_injection_normalise, mg_injection_decode): invisible characters
 * between letters dropped, fullwidth, mathematical and look-alike letters
 * made ASCII, leetspeak undone, spaced-out letters joined; base64 and hex
 * runs decoded. And the tables the prescan (injection_prescan.c) reads: the
 * byte classes and the attack words, and the vocabulary of leetspeak (the
 * patterns' own words).
 *
 * Sections:
 *   1. the attack words and the byte classes
 *   2. look-alike letters and invisible characters (pass 1)
 *   3. leetspeak and spaced-out letters (pass 2)
 *   4. base64 and hex decoded
 */
#include "security/injection_int.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- 1. the attack words and the byte classes ------------------------------------------- */

/* The words of the patterns an attacker writes in leetspeak. */
const char *const mg__inj_words[] = {
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
#define N_WORDS (sizeof(mg__inj_words) / sizeof(mg__inj_words[0]))
const size_t mg__inj_nwords = N_WORDS;

static bool is_ascii_alpha(int c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }

unsigned char mg__inj_cls[256];
static char unleet[256];
signed char mg__inj_leet_of[256];
uint32_t mg__inj_quads[MG__INJ_NQUADS];
uint64_t mg__inj_tri[26 * 26 * 26 / 64 + 1];
uint16_t mg__inj_by_first[MG__INJ_VOCAB_MAX], mg__inj_by_at[27];
static signed char b64v[256];

/* The patterns' own words (injection_patterns.h, read here for their
 * vocabulary only): what an attacker spells in leetspeak is any word the
 * patterns look for ("m0d31", "c00k135", "4tt3nt10n"), not a fixed list. */
struct inj_pat {
    unsigned why;
    const char *re, *hs;
};
#include "security/injection_patterns.h"

/* mg__inj_words and the ASCII words of MG__INJ_LEET_MIN letters or more
 * in the patterns (a word before '?' also without its last letter:
 * "instructions?"), lower case, each once; in vocab_pool. */
static char vocab_pool[MG__INJ_VOCAB_MAX * 16];
const char *mg__inj_vocab[MG__INJ_VOCAB_MAX];
size_t mg__inj_nvocab;

static void vocab_add(const char *w, size_t l)
{
    static size_t used;
    static uint16_t slot[2 * MG__INJ_VOCAB_MAX]; /* the words by a hash of their letters: index + 1, 0 none */
    static uint8_t len[MG__INJ_VOCAB_MAX];
    if (l < MG__INJ_LEET_MIN || l > 24 || mg__inj_nvocab == MG__INJ_VOCAB_MAX || used + l + 1 > sizeof(vocab_pool))
        return;
    char low[32];
    for (size_t i = 0; i < l; i++) low[i] = (char)(w[i] | 0x20);
    /* each word once (the patterns name most many times: a scan of the list per word cost a CLI search 4 ms) */
    size_t i = mg__inj_fnv(low, l) % (2 * MG__INJ_VOCAB_MAX);
    for (; slot[i]; i = (i + 1) % (2 * MG__INJ_VOCAB_MAX))
        if (len[slot[i] - 1] == l && memcmp(mg__inj_vocab[slot[i] - 1], low, l) == 0) return;
    memcpy(vocab_pool + used, low, l);
    vocab_pool[used + l] = 0;
    len[mg__inj_nvocab] = (uint8_t)l;
    mg__inj_vocab[mg__inj_nvocab++] = vocab_pool + used;
    slot[i] = (uint16_t)mg__inj_nvocab;
    used += l + 1;
}

static void vocab_init(void)
{
    for (size_t k = 0; k < N_WORDS; k++) vocab_add(mg__inj_words[k], strlen(mg__inj_words[k]));
    for (size_t i = 0; i < sizeof(inj_patterns) / sizeof(inj_patterns[0]); i++)
        for (const char *p = inj_patterns[i].re; *p;) {
            if (*p == '\\') { /* an escape: \\b, \\s, \\n name no letter */
                p += p[1] ? 2 : 1;
                continue;
            }
            const char *e = p;
            while (is_ascii_alpha((unsigned char)*e)) e++;
            if (e == p) {
                p++;
                continue;
            }
            /* a whole word only: not a piece of a non-ASCII one ("prompt" in "promptement" is fine either way) */
            if (!((unsigned char)*e & 0x80) && (p == inj_patterns[i].re || !((unsigned char)p[-1] & 0x80))) {
                vocab_add(p, (size_t)(e - p));
                if (*e == '?') vocab_add(p, (size_t)(e - p) - 1);
            }
            p = e;
        }
}

struct mg__inj_node mg__inj_trie[MG__INJ_NODES_MAX];
uint32_t mg__inj_trie_first[26];

/* The word into the trie (at most a node per letter: room for all). */
static void trie_add(const char *w)
{
    static uint32_t nodes = 1;
    uint32_t at = 0;
    for (; *w; w++) {
        uint32_t k = mg__inj_trie[at].kid;
        while (k && mg__inj_trie[k].c != *w) k = mg__inj_trie[k].next;
        if (!k) {
            if (nodes == MG__INJ_NODES_MAX) return;
            k = nodes++;
            mg__inj_trie[k] = (struct mg__inj_node){.c = *w, .next = mg__inj_trie[at].kid};
            mg__inj_trie[at].kid = k;
            if (at == 0 && *w >= 'a' && *w <= 'z') mg__inj_trie_first[*w - 'a'] = k;
        }
        at = k;
    }
    mg__inj_trie[at].end = true;
}

/* The word's three- and four-letter runs into the prescan's tables. */
static void runs_add(const char *w)
{
    for (; w[2]; w++) {
        int t = (w[0] - 'a') * 676 + (w[1] - 'a') * 26 + (w[2] - 'a');
        mg__inj_tri[t / 64] |= 1ull << (t % 64);
        if (!w[3]) break;
        int q[4] = {w[0] - 'a', w[1] - 'a', w[2] - 'a', w[3] - 'a'};
        uint32_t key = mg__inj_quad_key(q), h = mg__inj_quad_hash(key);
        while (mg__inj_quads[h] && mg__inj_quads[h] != key) h = (h + 1) & (MG__INJ_NQUADS - 1);
        mg__inj_quads[h] = key;
    }
}

static void cls_init(void)
{
    for (int c = 0; c < 256; c++) {
        unleet[c] = (char)c;
        b64v[c] = -1;
        if (is_ascii_alpha(c)) mg__inj_cls[c] |= MG__C_ALPHA | MG__C_B64;
        if (c >= '0' && c <= '9') mg__inj_cls[c] |= MG__C_DIGIT | MG__C_B64;
    }
    static const char leet[] = "0o1i3e4a5s7t@a$s!i|l9g8b";
    for (const char *p = leet; *p; p += 2) {
        mg__inj_cls[(unsigned char)p[0]] |= MG__C_LEET;
        unleet[(unsigned char)p[0]] = p[1];
    }
    for (int c = 0; c < 256; c++) {
        int l = unleet[c] | 0x20;
        bool word = mg__inj_cls[c] & (MG__C_ALPHA | MG__C_DIGIT | MG__C_LEET);
        mg__inj_leet_of[c] = (signed char)(l >= 'a' && l <= 'z' && word ? l - 'a' : -1);
    }
    for (const char *p = " \t.-_*|/"; *p; p++) mg__inj_cls[(unsigned char)*p] |= MG__C_SPACER;
    for (const char *p = ".'|_~*"; *p; p++) mg__inj_cls[(unsigned char)*p] |= MG__C_JUNK;
    mg__inj_cls['+'] |= MG__C_B64, mg__inj_cls['/'] |= MG__C_B64;
    vocab_init();
    unsigned nb = 0;
    for (int c = 0; c < 26; c++) {
        mg__inj_by_at[c] = (uint16_t)nb;
        for (size_t k = 0; k < mg__inj_nvocab; k++) {
            const char *w = mg__inj_vocab[k];
            if (w[0] != 'a' + c) continue;
            mg__inj_by_first[nb++] = (uint16_t)k;
            runs_add(w);
            trie_add(w);
            char alt[32]; /* as '1' and '!' read: "he1per", "m0de1" ("helper", "model") */
            size_t l = strlen(w);
            for (size_t i = 0; i <= l; i++) alt[i] = w[i] == 'l' ? 'i' : w[i];
            if (strchr(w, 'l')) runs_add(alt);
        }
    }
    mg__inj_by_at[26] = (uint16_t)nb;
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (int i = 0; i < 64; i++) b64v[(unsigned char)b64[i]] = (signed char)i;
}

void mg__inj_tables_init(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, cls_init);
}

/* ---- 2. look-alike letters and invisible characters ------------------------------------- */

/* A Latin letter that code point c is drawn like (Cyrillic and Greek
 * look-alikes; fullwidth, mathematical and circled letters), or 0. */
int mg__inj_latin_of(int32_t c)
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

/* Pass 1 into o (room for n bytes; it never grows): invisible characters
 * (zero-width, tags, bidi, soft hyphen, combining marks) dropped;
 * fullwidth ASCII and other drawn-alike letters made ASCII when their word
 * also holds an ASCII letter (a Russian word stays Russian). Returns the
 * length written. */
static size_t fold_chars(const unsigned char *s, size_t n, char *o, unsigned *how)
{
    size_t out = 0, i = 0;
    while (i < n) {
        if (s[i] < 0x80 && !MG__IS(s[i], MG__C_ALPHA | MG__C_DIGIT)) { /* an ASCII separator */
            o[out++] = (char)s[i++];
            continue;
        }
        size_t w = i; /* one word: up to the next ASCII separator */
        bool ascii_letter = false, wide = false;
        while (w < n && !(s[w] < 0x80 && !MG__IS(s[w], MG__C_ALPHA | MG__C_DIGIT))) {
            if (s[w] < 0x80) {
                ascii_letter |= MG__IS(s[w], MG__C_ALPHA) != 0;
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
            k += mg__utf8_next(s + k, w - k, &cp);
            if (cp >= 0xFF01 && cp <= 0xFF5E) ascii_letter = true;
            else if (cp >= 0x80 && mg__inj_latin_of(cp)) look++;
            else if (cp >= 0x80 && !mg__is_zw(cp) && !(cp >= 0x0300 && cp <= 0x036F)) other++;
        }
        if (look >= 2 && !other) ascii_letter = true;
        for (size_t k = i; k < w;) {
            int32_t cp;
            size_t len = mg__utf8_next(s + k, w - k, &cp);
            int l = cp >= 0x80 ? mg__inj_latin_of(cp) : 0;
            if (cp < 0) o[out++] = '?';
            else if (mg__is_zw(cp) || mg__is_tag(cp) || mg__is_bidi(cp) || cp == 0x00AD ||
                     (cp >= 0x0300 && cp <= 0x036F) || cp == 0x00B7 || cp == 0x2027) {
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

/* ---- 3. leetspeak and spaced-out letters ------------------------------------------------ */

/* Whether w[0..n) is one of mg__inj_words (letters only: a digit left
 * means it is not leetspeak: uint32, md5). */
static bool attack_word(const char *w, size_t n)
{
    if (n < 1 || n > 12) return false;
    for (size_t i = 0; i < n; i++)
        if (!is_ascii_alpha((unsigned char)w[i])) return false;
    for (size_t k = 0; k < N_WORDS; k++)
        if ((mg__inj_words[k][0] | 0x20) == (w[0] | 0x20) && strncasecmp(mg__inj_words[k], w, n) == 0 &&
            mg__inj_words[k][n] == 0)
            return true;
    return false;
}

/* A '1' or '!' (el) reads as i or l: when u[0..l) read with i is not a
 * word of the vocabulary and read with l at some of them is ("m0de1",
 * "1e4k", "14ngu4g3"), that word into u. */
static void vocab_fit(char *u, const bool *el, size_t l)
{
    bool any = false;
    for (size_t q = 0; q < l; q++) any |= el[q];
    if (!any || l > 24) return;
    const char *fit = NULL;
    for (int first = 0; first < 2 && !fit; first++) {
        int f0 = first ? (el[0] ? 'l' : 0) : u[0] | 0x20;
        if (f0 < 'a' || f0 > 'z') continue;
        for (unsigned j = mg__inj_by_at[f0 - 'a']; j < mg__inj_by_at[f0 - 'a' + 1] && !fit; j++) {
            const char *w = mg__inj_vocab[mg__inj_by_first[j]];
            size_t k = 0;
            while (k < l && w[k] && ((u[k] | 0x20) == w[k] || (el[k] && w[k] == 'l'))) k++;
            if (k == l && !w[k]) fit = w;
        }
    }
    if (fit) memcpy(u, fit, l);
}

/* A spaced-out run at t[i]: at least 4 letters, each alone, one to five
 * spacers apart ("i g n o r e  a l l", "D . o   n . o . t", "N.e.w
 * i.n.s.t.r.u.c.t.i.o.n.s"). The gap seen most often is the one inside
 * words; any other gap is a word break. */
#define SPACED_MAX 512
struct spaced {
    uint32_t gap[SPACED_MAX]; /* each gap's hash, in order */
    size_t ngaps, letters, end;
    uint32_t best;            /* the gap inside words: its hash, */
    size_t best_at, best_len; /* where it first is and its length */
};

/* The run's letters and gaps from t[i]; 0 when it has fewer than 4 letters. */
static size_t spaced_scan(const char *t, size_t n, size_t i, struct spaced *r)
{
    uint32_t key[8];
    size_t cnt[8] = {0}, at[8] = {0}, len[8] = {0}, nkeys = 0, k = i;
    r->ngaps = r->letters = 0;
    r->end = i;
    while (k < n && MG__IS(t[k], MG__C_ALPHA) && (k + 1 >= n || !MG__IS(t[k + 1], MG__C_ALPHA | MG__C_DIGIT)) &&
           r->ngaps < SPACED_MAX) {
        r->letters++;
        r->end = k + 1;
        size_t g = k + 1;
        uint32_t h = 0;
        while (g < n && MG__IS(t[g], MG__C_SPACER) && g - k <= 5) h = h * 31 + (unsigned char)t[g++];
        if (g == k + 1 || g >= n || !MG__IS(t[g], MG__C_ALPHA) || g - k > 5) break;
        r->gap[r->ngaps++] = h;
        size_t j = 0;
        while (j < nkeys && key[j] != h) j++;
        if (j == nkeys && nkeys < 8) key[nkeys] = h, at[nkeys] = k + 1, len[nkeys++] = g - k - 1;
        if (j < nkeys) cnt[j]++;
        k = g;
    }
    size_t best = 0;
    for (size_t j = 1; j < nkeys; j++)
        if (cnt[j] > cnt[best]) best = j;
    /* the run stopped at a word ("p_revious" after "I_g_n_o_r_e "): when the inside gap joins its last letter to
     * that word, the letter is the word's */
    if (r->ngaps && k > i && k + 1 < n && MG__IS(t[k], MG__C_ALPHA) && MG__IS(t[k + 1], MG__C_ALPHA | MG__C_DIGIT) &&
        r->gap[r->ngaps - 1] == key[best]) {
        r->ngaps--;
        r->letters--;
        r->end--;
        while (r->end > i && !MG__IS(t[r->end - 1], MG__C_ALPHA)) r->end--;
    }
    if (r->letters < 4) return 0;
    r->best = key[best];
    r->best_at = at[best];
    r->best_len = len[best];
    return r->letters;
}

/* The run's letters (and a space per break) at o + *out; returns where it
 * ends, or 0 when there is none. */
static size_t spaced_run(const char *t, size_t n, size_t i, char *o, size_t *out)
{
    struct spaced r;
    if (!spaced_scan(t, n, i, &r)) return 0;
    size_t g = 0;
    for (size_t q = i; q < r.end; q++) {
        if (!MG__IS(t[q], MG__C_ALPHA)) continue;
        if (q > i && g < r.ngaps && r.gap[g++] != r.best) o[(*out)++] = ' ';
        o[(*out)++] = t[q];
    }
    return r.end;
}

/* The same run read again with pieces of punctuation and digits kept (a path
 * or a URL spaced out with the words: "S e n d   ~ / . s s h", "h.t.t.p.s.:/
 * /.x"), once its letters have given the gap inside words: a piece is any
 * printable byte alone, three of a one-byte gap are that byte as a piece
 * ("x...e": x . e), and a word break is a run of blanks other than the gap.
 * The letters-only reading stays the first (a '|' or '/' between spaced
 * words is a break there, a piece here); mg__inj_normalise_pieces gives this
 * one. */
static bool spaced_piece(unsigned char c) { return c > ' ' && c < 0x7F; }

static size_t spaced_pieces(const char *t, size_t n, size_t i, char *o, size_t *out)
{
    struct spaced r;
    if (!spaced_scan(t, n, i, &r)) return 0;
    const char *G = t + r.best_at;
    size_t gl = r.best_len, end = i, q = i;
    for (size_t steps = 0; q < n && spaced_piece((unsigned char)t[q]) && steps < SPACED_MAX; steps++) {
        if (q + 1 < n && MG__IS(t[q], MG__C_ALPHA | MG__C_DIGIT) && MG__IS(t[q + 1], MG__C_ALPHA | MG__C_DIGIT)) break;
        o[(*out)++] = t[q];
        end = ++q;
        if (n - q > gl && memcmp(t + q, G, gl) == 0 && spaced_piece((unsigned char)t[q + gl])) {
            q += gl; /* inside a word */
            if (gl == 1 && n - q > 2 && t[q] == G[0] && t[q + 1] == G[0] && spaced_piece((unsigned char)t[q + 2])) {
                o[(*out)++] = G[0];
                q += 2;
            }
            continue;
        }
        size_t g = q; /* a word break: blanks (any other spacer is a piece here) */
        while (g < n && (t[g] == ' ' || t[g] == '\t') && g - q < 8) g++;
        if (g == q || g >= n || !spaced_piece((unsigned char)t[g])) break;
        o[(*out)++] = ' ';
        q = g;
    }
    if (*out && o[*out - 1] == ' ') (*out)--;
    return end;
}

/* Pass 2 from t into o (never longer): spaced-out letters joined
 * (spaced_run); inside a word, punctuation between letters dropped
 * ("Ignor.e", "a|b|o|v|e", "instruc.tions") and leetspeak undone where that
 * leaves letters only ("1gn0r3", "pr3v10u5"; "x86" stays), or where a word
 * of digits spells one of the patterns' words ("411"). */
static size_t fold_words(const char *t, size_t n, char *o, unsigned *how, bool pieces)
{
    size_t out = 0, i = 0;
    while (i < n) {
        unsigned char c = (unsigned char)t[i];
        if (!MG__IS(c, MG__C_ALPHA | MG__C_DIGIT | MG__C_LEET)) {
            o[out++] = (char)c;
            i++;
            continue;
        }
        bool start = i == 0 || !MG__IS(t[i - 1], MG__C_ALPHA | MG__C_DIGIT);
        if (start && MG__IS(c, MG__C_ALPHA) && i + 2 < n && MG__IS(t[i + 1], MG__C_SPACER) &&
            !MG__IS(t[i + 1], MG__C_ALPHA)) {
            size_t end = pieces ? spaced_pieces(t, n, i, o, &out) : spaced_run(t, n, i, o, &out);
            if (end) {
                *how |= MG_INJ_SPACED;
                i = end;
                continue;
            }
        }
        size_t w = i; /* a word: letters, digits, leet symbols, punctuation between two of them */
        bool letter = false, leet = false, junk = false;
        while (w < n) {
            bool inside = w > i && w + 1 < n && MG__IS(t[w - 1], MG__C_ALPHA | MG__C_DIGIT | MG__C_LEET) &&
                          MG__IS(t[w + 1], MG__C_ALPHA | MG__C_DIGIT | MG__C_LEET);
            if (MG__IS(t[w], MG__C_JUNK) && inside) junk = true;
            else if (MG__IS(t[w], MG__C_ALPHA | MG__C_DIGIT | MG__C_LEET)) {
                letter |= MG__IS(t[w], MG__C_ALPHA) != 0;
                leet |= MG__IS(t[w], MG__C_LEET) && !MG__IS(t[w], MG__C_ALPHA);
            } else
                break;
            w++;
        }
        size_t at = out;
        for (size_t q = i; q < w; q++)
            if (!(MG__IS(t[q], MG__C_JUNK) && q > i && q + 1 < w)) o[out++] = t[q];
        if (leet) {
            char u[64];
            bool el[64];
            size_t l = out - at, alpha = 0;
            for (size_t q = 0; q < l && q < sizeof(u); q++) {
                alpha += is_ascii_alpha(u[q] = unleet[(unsigned char)o[at + q]]);
                el[q] = o[at + q] == '1' || o[at + q] == '!';
            }
            if (l <= sizeof(u) && alpha == l && (letter || attack_word(u, l))) {
                vocab_fit(u, el, l);
                memcpy(o + at, u, l);
                *how |= MG_INJ_LEET;
            }
        }
        if (junk) *how |= MG_INJ_LEET;
        i = w;
    }
    return out;
}

/* ---- 4. base64 and hex decoded ---------------------------------------------------------- */

/* What the base64 runs of 24+ characters (MG__FOLD_BASE64) or the hex runs of 32+
 * digits (MG__FOLD_HEX) of s[0..n) decode to, when that is text (90% printable),
 * a line each into o (room for n bytes: decoding shrinks); returns the
 * length written. Bytes that are not printable become spaces. */
static size_t decode_runs(const char *s, size_t n, char *o, unsigned form)
{
    size_t out = 0, min = form == MG__FOLD_HEX ? 32 : 24;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        if (form == MG__FOLD_HEX)
            while (j < n && mg__inj_hexv((unsigned char)s[j]) >= 0) j++;
        else
            while (j < n && MG__IS(s[j], MG__C_B64)) j++;
        if (j - i >= min) {
            size_t start = out, bits = 0, good = 0, total = 0;
            uint32_t acc = 0;
            o[out++] = '\n';
            for (size_t q = i; q < j; q++) {
                if (form == MG__FOLD_HEX) acc = (acc << 4) | (uint32_t)mg__inj_hexv((unsigned char)s[q]), bits += 4;
                else acc = (acc << 6) | (uint32_t)b64v[(unsigned char)s[q]], bits += 6;
                if (bits >= 8) {
                    bits -= 8;
                    unsigned char ch = (unsigned char)(acc >> bits);
                    total++;
                    good += mg__inj_printable(ch);
                    o[out++] = ch >= 0x20 && ch < 0x7F ? (char)ch : ' ';
                }
            }
            if (good * 10 < total * 9) out = start; /* not text: left out */
        }
        i = j > i ? j : i + 1;
    }
    return out;
}

size_t mg_injection_normalise(const char *s, size_t n, char *out, unsigned *how)
{
    return mg__inj_normalise_pieces(s, n, out, how, false);
}

size_t mg__inj_normalise_pieces(const char *s, size_t n, char *out, unsigned *how, bool pieces)
{
    mg__inj_tables_init();
    unsigned h = 0;
    char *a = malloc(n + 1);
    if (!a) return 0;
    size_t an = fold_chars((const unsigned char *)s, n, a, &h);
    size_t m = fold_words(a, an, out, &h, pieces);
    free(a);
    if (how) *how = h;
    return m;
}

/* A space or a colon between two hex pairs at s[i] ("49 67", "49:67"). */
static bool pair_gap(const unsigned char *s, size_t n, size_t i)
{
    return (s[i] == ' ' || s[i] == ':') && i >= 2 && i + 2 < n && mg__inj_hexv(s[i - 1]) >= 0 &&
           mg__inj_hexv(s[i - 2]) >= 0 && mg__inj_hexv(s[i + 1]) >= 0 && mg__inj_hexv(s[i + 2]) >= 0;
}

/* s[0..n) with its hex written as digits into o (room for n bytes): "49 67 6e", "49:67:6e",
 * "0x49, 0x67, 0x6e" and "\\x49\\x67\\x6e" read as "49676e". Returns the length written. */
static size_t hex_digits(const unsigned char *s, size_t n, char *o)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (mg__inj_hex_byte(s, n, i)) {
            o[m++] = (char)s[i + 2];
            o[m++] = (char)s[i + 3];
            size_t j = mg__inj_hex_next(s, n, i + 4);
            i = (j ? j : i + 4) - 1;
        } else if (!pair_gap(s, n, i)) {
            o[m++] = (char)s[i];
        }
    }
    return m;
}

size_t mg_injection_decode(const char *s, size_t n, char *out, unsigned how)
{
    mg__inj_tables_init();
    if (how != MG_INJ_HEX) return decode_runs(s, n, out, MG__FOLD_BASE64);
    char *d = malloc(n + 1);
    if (!d) return 0;
    size_t m = decode_runs(d, hex_digits((const unsigned char *)s, n, d), out, MG__FOLD_HEX);
    free(d);
    return m;
}
