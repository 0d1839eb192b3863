/* sanitize.c — strip control sequences, hidden characters and model
 * markers; flag instruction-like text (sanitize.h). */
#include "security/sanitize.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <hs/hs.h>
#include <limits.h>
#include <pcre2.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "security/scan.h"

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
        unsigned char c = s[i];
        if (c >= 0x20 && c < 0x7F && c != '<' && c != '[' && c != '#') { /* the common case */
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

/* One alternation, compiled once (caseless, UTF, Unicode properties). Each
 * branch needs the instruction and its object together: "ignore" or
 * "system" alone are everyday words in code and docs. */
static const char *const inj_patterns[] = {
    /* English */
    "\\b(?:ignore|disregard|forget|override|bypass)\\s+(?:all\\s+|any\\s+|every\\s+)?(?:of\\s+)?"
    "(?:the\\s+|your\\s+|my\\s+|these\\s+|those\\s+)?(?:previous|prior|preceding|above|earlier|foregoing|"
    "original|initial|system)\\s+(?:instructions?|prompts?|rules|directions|directives|guidelines)\\b",
    "\\byou\\s+are\\s+now\\s+(?:a|an|the|my)\\s+(?:\\S+\\s+){0,3}?(?:assistant|ai|model|chatbot|bot|agent|"
    "persona|character|hacker|unrestricted|unfiltered|jailbroken)\\b",
    "\\byou\\s+are\\s+now\\s+(?:dan\\b|jailbroken|unrestricted|unfiltered|free\\s+from|in\\s+developer\\s+mode|"
    "no\\s+longer\\s+(?:bound|restricted|an?\\s+ai))",
    "\\b(?:from\\s+now\\s+on|henceforth),?\\s+you\\s+(?:are|will|must|shall|should)\\b",
    "\\b(?:new|updated|real|true|secret)\\s+(?:system\\s+)?(?:instructions|prompt)\\s*:",
    "\\b(?:reveal|print|show|output|repeat|leak)\\s+(?:me\\s+)?(?:your|the)\\s+(?:system\\s+prompt|"
    "(?:initial|hidden|original|secret)\\s+(?:instructions|prompt))\\b",
    "\\bdo\\s+not\\s+(?:tell|inform|alert|warn)\\s+the\\s+user\\b",
    "\\bact\\s+as\\s+(?:if\\s+you\\s+(?:are|were)\\s+)?(?:an?\\s+)?(?:unrestricted|unfiltered|jailbroken|dan)\\b",
    /* role and template markers */
    "<\\|(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id)\\|>",
    "\\[/?INST\\]|<</?SYS>>|<(?:start|end)_of_turn>",
    "(?:^|\\n)[ \\t]*(?:#{1,3}[ \\t]*)?system[ \\t]*(?:prompt)?[ \\t]*:[ \\t]*you\\s+(?:are|must|will)\\b",
    "\\n\\n(?:Human|Assistant):",
    /* Spanish, French, German, Portuguese, Italian */
    "\\b(?:ignora|ignore|olvida)\\S*\\s+(?:todas\\s+)?(?:las\\s+)?instrucciones\\s+(?:anteriores|previas)\\b",
    "\\bahora\\s+eres\\s+(?:un|una)\\s+(?:\\S+\\s+){0,2}?(?:asistente|ia|modelo|agente)\\b",
    "\\b(?:ignore[rz]?|oublie[rz]?)\\s+(?:toutes\\s+)?(?:les\\s+|vos\\s+|tes\\s+)?instructions\\s+"
    "(?:précédentes|precedentes|antérieures|anterieures|ci-dessus)",
    "\\b(?:tu\\s+es|vous\\s+êtes)\\s+maintenant\\s+(?:un|une)\\s+(?:\\S+\\s+){0,2}?(?:assistant|ia|modèle|agent)\\b",
    "\\b(?:ignorier|vergiss|vergesse)\\S*\\s+(?:alle\\s+)?(?:vorherigen|bisherigen|vorangegangenen|obigen)\\s+"
    "(?:anweisungen|instruktionen)\\b",
    "\\bdu\\s+bist\\s+(?:jetzt|nun)\\s+(?:ein|eine)\\s+(?:\\S+\\s+){0,2}?(?:assistent|ki|modell|agent)\\b",
    "\\b(?:ignore|esqueça|esqueca)\\s+(?:todas\\s+)?(?:as\\s+)?instruções\\s+anteriores\\b",
    "\\b(?:ignora|dimentica)\\s+(?:tutte\\s+)?(?:le\\s+)?istruzioni\\s+precedenti\\b",
    /* Russian, Chinese, Japanese */
    "(?:игнорируй|игнорировать|забудь)\\S*\\s+(?:все\\s+)?(?:предыдущие|прежние|вышеуказанные)\\s+инструкции",
    "忽略(?:之前|以上|先前|上面|前面)(?:的)?(?:所有)?(?:指令|指示|说明|提示)",
    "你现在是(?:一个)?(?:不受限制|没有限制)",
    "(?:以前|前|上記)の(?:すべての)?指示を無視",
    NULL,
};

/* Matching: every pattern is compiled into one Vectorscan database in
 * prefilter mode (GB/s over ordinary text, where nothing matches), and only
 * text that Vectorscan flags is confirmed with the PCRE2 alternation. Text
 * that is not valid UTF-8 (Vectorscan's UTF-8 mode needs it) goes to PCRE2
 * directly. */
static pcre2_code *inj_re;
static hs_database_t *inj_db;
static hs_scratch_t *inj_proto;
static pthread_once_t inj_once = PTHREAD_ONCE_INIT;

static void inj_compile(void)
{
    struct mg_buf b;
    mg_buf_init(&b, 1 << 20);
    size_t n = 0;
    for (const char *const *p = inj_patterns; *p; p++, n++)
        if (mg_buf_adds(&b, p == inj_patterns ? "(?:" : "|(?:") != 0 || mg_buf_adds(&b, *p) != 0 ||
            mg_buf_adds(&b, ")") != 0)
            goto out;
    int ec;
    PCRE2_SIZE eo;
    inj_re = pcre2_compile((PCRE2_SPTR)b.p, b.len, PCRE2_CASELESS | PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF,
                           &ec, &eo, NULL);
    if (!inj_re) {
        fprintf(stderr, "memgate: bug: the prompt-injection patterns do not compile (PCRE2 error %d at %zu)\n", ec,
                (size_t)eo);
        goto out;
    }
    pcre2_jit_compile(inj_re, PCRE2_JIT_COMPLETE);
    unsigned *flags = calloc(n, sizeof(unsigned));
    if (flags) {
        for (size_t i = 0; i < n; i++) {
            /* no HS_FLAG_UCP: Unicode \\s classes make the compile take seconds; the
             * patterns use \\S for word gaps, so ASCII classes lose nothing */
            flags[i] = HS_FLAG_CASELESS | HS_FLAG_UTF8 | HS_FLAG_PREFILTER | HS_FLAG_SINGLEMATCH;
        }
        char why[300];
        if (mg_hs_compile_cached("injection", inj_patterns, flags, (unsigned)n, &inj_db, why, sizeof(why)) != 0) {
            fprintf(stderr, "memgate: bug: Vectorscan cannot compile the injection patterns: %s\n", why);
            inj_db = NULL;
        } else if (hs_alloc_scratch(inj_db, &inj_proto) != HS_SUCCESS) {
            hs_free_database(inj_db);
            inj_db = NULL;
        }
    }
    free(flags);
out:
    mg_buf_release(&b);
}

static int on_inj(unsigned int id, unsigned long long from, unsigned long long to, unsigned int fl, void *ctx)
{
    (void)id, (void)from, (void)to, (void)fl;
    *(bool *)ctx = true;
    return 1; /* one candidate is enough */
}

static bool pcre_confirms(const unsigned char *s, size_t n)
{
    pcre2_match_data *md = pcre2_match_data_create(1, NULL);
    if (!md) return false;
    int rc = pcre2_match(inj_re, (PCRE2_SPTR)s, n, 0, 0, md, NULL);
    pcre2_match_data_free(md);
    return rc >= 0;
}

/* Per-thread Vectorscan scratch, cloned from the prototype on first use. */
static __thread hs_scratch_t *inj_scratch;
static pthread_key_t inj_key;
static pthread_once_t inj_key_once = PTHREAD_ONCE_INIT;
static void scratch_free(void *p) { hs_free_scratch(p); }
static void key_init(void) { pthread_key_create(&inj_key, scratch_free); }

bool mg_injection(const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    /* hidden characters: any Unicode tag, a bidi override, or a zero-width run of 3+ */
    size_t zw = 0;
    bool valid = true;
    for (size_t i = 0; i < n;) {
        if (s[i] < 0x80) {
            zw = 0;
            i++;
            continue;
        }
        int32_t cp;
        i += utf8_next(s + i, n - i, &cp);
        if (cp < 0) valid = false;
        if (is_tag(cp) || is_bidi(cp)) return true;
        zw = is_zw(cp) ? zw + 1 : 0;
        if (zw >= 3) return true;
    }
    pthread_once(&inj_once, inj_compile);
    if (!inj_re) return false;
    if (inj_db && valid && n <= UINT_MAX) {
        pthread_once(&inj_key_once, key_init);
        if (!inj_scratch && hs_clone_scratch(inj_proto, &inj_scratch) == HS_SUCCESS)
            pthread_setspecific(inj_key, inj_scratch);
        if (inj_scratch) {
            bool cand = false;
            hs_error_t e = hs_scan(inj_db, str, (unsigned)n, 0, inj_scratch, on_inj, &cand);
            if (e == HS_SUCCESS || e == HS_SCAN_TERMINATED) return cand && pcre_confirms(s, n);
        }
    }
    return pcre_confirms(s, n);
}
