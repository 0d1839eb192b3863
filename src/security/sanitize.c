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
    "\\b(?:stop|quit|cease)\\s+(?:following|obeying|applying)\\s+(?:all\\s+)?(?:of\\s+)?(?:your|the|these|those|any)\\s+"
    "(?:previous\\s+|prior\\s+|earlier\\s+|original\\s+|initial\\s+|system\\s+)?(?:instructions|rules|guidelines|"
    "directives|programming)\\b",
    "\\b(?:forget|ignore|disregard)\\s+(?:everything|all|anything|whatever)\\s+(?:that\\s+)?(?:you\\s+(?:were|have\\s+been|"
    "had\\s+been)\\s+(?:told|taught|instructed|given|programmed)|(?:written\\s+|said\\s+|stated\\s+)?(?:above|before\\s+this|"
    "so\\s+far|prior\\s+to\\s+this))",
    /* role and template markers */
    "<\\|(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id)\\|>",
    "\\[/?INST\\]|<</?SYS>>|<(?:start|end)_of_turn>",
    "(?:^|\\n)[ \\t]*(?:#{1,3}[ \\t]*)?system[ \\t]*(?:prompt)?[ \\t]*:[ \\t]*you\\s+(?:are|must|will)\\b",
    "\\n\\n(?:Human|Assistant):",
    "<\\s*system\\s*>\\s*(?:you|ignore|forget|disregard|always|never|do\\s+not|send)\\b",
    "(?:^|\\n)[ \\t]*#{1,6}[ \\t]*(?:system|assistant)[ \\t]*(?:message|prompt)?[ \\t]*:[ \\t]*\\n?[ \\t]*you\\s+"
    "(?:are|must|will|have)\\b",
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
    /* Dutch, Polish, Turkish, Korean, Arabic, Hindi */
    "\\bnegeer\\s+(?:alle\\s+)?(?:de\\s+)?(?:vorige|eerdere|voorgaande|bovenstaande)\\s+(?:instructies|aanwijzingen)\\b",
    "\\b(?:zignoruj|ignoruj|zapomnij)\\S*\\s+(?:o\\s+)?(?:wszystkie\\s+|wszystkich\\s+)?(?:poprzednie|poprzednich|"
    "wcześniejsze|wcześniejszych)\\s+(?:instrukcje|instrukcji|polecenia|poleceń)",
    "(?:önceki|yukarıdaki)\\s+(?:tüm\\s+|bütün\\s+)?talimatları\\s+(?:yok\\s+say|görmezden\\s+gel|unut)",
    "이전(?:의)?\\s*(?:모든\\s*)?(?:지시|지침|명령)(?:를|을|사항을|들을)?\\s*(?:무시|잊)",
    "(?:تجاهل|انس)\\s+(?:جميع\\s+|كل\\s+)?(?:التعليمات|الأوامر|التوجيهات)\\s+(?:السابقة)",
    "(?:पिछले|पहले\\s+के)\\s+(?:सभी\\s+)?(?:निर्देशों|निर्देश)\\s+(?:को\\s+)?(?:अनदेखा|नज़रअंदाज़|नजरअंदाज|भूल)",
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
            flags[i] = HS_FLAG_CASELESS | HS_FLAG_UTF8 | HS_FLAG_PREFILTER; /* every end: each is confirmed */
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

/* Where the prefilter saw candidates: the end offsets (a true match ends at
 * one of them), merged into windows as they come; each window is confirmed
 * with PCRE2 from CONFIRM_BACK bytes before its first end to its last
 * (a match is shorter than that), and the scan stops at the first match. */
#define CONFIRM_BACK 2048
struct cands {
    const unsigned char *s;
    size_t n;
    size_t first, last; /* the pending window's ends; last == 0: none */
    bool hit;
};

static bool pcre_confirms(const unsigned char *s, size_t n)
{
    pcre2_match_data *md = pcre2_match_data_create(1, NULL);
    if (!md) return false;
    int rc = pcre2_match(inj_re, (PCRE2_SPTR)s, n, 0, 0, md, NULL);
    pcre2_match_data_free(md);
    return rc >= 0;
}

static bool confirm_window(const struct cands *c)
{
    size_t from = c->first > CONFIRM_BACK ? c->first - CONFIRM_BACK : 0;
    size_t to = c->last + 4 <= c->n ? c->last + 4 : c->n;
    while (from > 0 && (c->s[from] & 0xC0) == 0x80) from--; /* start on a character */
    while (to < c->n && (c->s[to] & 0xC0) == 0x80) to++;
    return pcre_confirms(c->s + from, to - from);
}

static int on_inj(unsigned int id, unsigned long long from, unsigned long long to, unsigned int fl, void *ctx)
{
    (void)id, (void)from, (void)fl;
    struct cands *c = ctx;
    size_t end = to < c->n ? (size_t)to : c->n;
    if (c->last && end <= c->last + CONFIRM_BACK) { /* near the pending window: it grows */
        if (end > c->last) c->last = end;
        return 0;
    }
    if (c->last && confirm_window(c)) {
        c->hit = true;
        return 1;
    }
    c->first = c->last = end ? end : 1;
    return 0;
}

/* Per-thread Vectorscan scratch, cloned from the prototype on first use. */
static __thread hs_scratch_t *inj_scratch;
static pthread_key_t inj_key;
static pthread_once_t inj_key_once = PTHREAD_ONCE_INIT;
static void scratch_free(void *p) { hs_free_scratch(p); }
static void key_init(void) { pthread_key_create(&inj_key, scratch_free); }

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
        {0x03B1, 'a'}, {0x03B5, 'e'}, {0x03B9, 'i'}, {0x03BA, 'k'}, {0x03BD, 'v'}, {0x03BF, 'o'}, {0x03C1, 'p'},
        {0x03C4, 't'}, {0x03C5, 'u'}, {0x03C7, 'x'}, {0x0405, 'S'}, {0x0406, 'I'}, {0x0408, 'J'}, {0x0410, 'A'},
        {0x0412, 'B'}, {0x0415, 'E'}, {0x041A, 'K'}, {0x041C, 'M'}, {0x041D, 'H'}, {0x041E, 'O'}, {0x0420, 'P'},
        {0x0421, 'C'}, {0x0422, 'T'}, {0x0425, 'X'}, {0x0430, 'a'}, {0x0435, 'e'}, {0x043E, 'o'}, {0x0440, 'p'},
        {0x0441, 'c'}, {0x0443, 'y'}, {0x0445, 'x'}, {0x0455, 's'}, {0x0456, 'i'}, {0x0458, 'j'}, {0x04BB, 'h'},
        {0x04CF, 'l'}, {0x0501, 'd'}, {0x051B, 'q'}, {0x051D, 'w'},
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
static unsigned char cls[256];
static char unleet[256];
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
    static const char leet[] = "0o1i3e4a5s7t@a$s!i|l";
    for (const char *p = leet; *p; p += 2) cls[(unsigned char)p[0]] |= C_LEET, unleet[(unsigned char)p[0]] = p[1];
    for (const char *p = " \t.-_*"; *p; p++) cls[(unsigned char)*p] |= C_SPACER;
    cls['+'] |= C_B64, cls['/'] |= C_B64;
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (int i = 0; i < 64; i++) b64v[(unsigned char)b64[i]] = (signed char)i;
}
#define IS(c, k) (cls[(unsigned char)(c)] & (k))

/* Pass 1 into o (room for n bytes; it never grows): invisible characters
 * (zero-width, tags, bidi, soft hyphen, combining marks) dropped;
 * fullwidth ASCII and other drawn-alike letters made ASCII when their word
 * also holds an ASCII letter (a Russian word stays Russian). Returns the
 * length written. */
static size_t fold_chars(const unsigned char *s, size_t n, char *o)
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
        for (size_t k = i; k < w;) { /* fullwidth letters make the word foldable too */
            int32_t cp;
            k += utf8_next(s + k, w - k, &cp);
            if (cp >= 0xFF01 && cp <= 0xFF5E) ascii_letter = true;
        }
        for (size_t k = i; k < w;) {
            int32_t cp;
            size_t len = utf8_next(s + k, w - k, &cp);
            int l = cp >= 0x80 ? latin_of(cp) : 0;
            if (cp < 0) o[out++] = '?';
            else if (is_zw(cp) || is_tag(cp) || is_bidi(cp) || cp == 0x00AD || (cp >= 0x0300 && cp <= 0x036F)) {
                /* dropped */
            } else if (cp >= 0xFF01 && cp <= 0xFF5E) o[out++] = (char)(cp - 0xFEE0);
            else if (l && (ascii_letter || cp >= 0x1D400 || (cp >= 0x24B6 && cp <= 0x24E9))) o[out++] = (char)l;
            else {
                memcpy(o + out, s + k, len);
                out += len;
            }
            k += len;
        }
        i = w;
    }
    return out;
}

/* A word that may be a piece of base64: upper and lower case letters and
 * digits, all three (words and most identifiers are not). */
static bool b64_like(const char *w, size_t n)
{
    bool up = false, low = false, dig = false;
    for (size_t i = 0; i < n && !(up && low && dig); i++)
        up |= w[i] >= 'A' && w[i] <= 'Z', low |= w[i] >= 'a' && w[i] <= 'z', dig |= w[i] >= '0' && w[i] <= '9';
    return up && low && dig;
}

/* The words of the patterns an attacker writes in leetspeak. */
static bool attack_word(const char *w, size_t n)
{
    static const char *const words[] = {
        "ignore", "ignoring", "disregard", "forget", "override", "bypass", "all", "any", "every", "previous",
        "prior", "preceding", "above", "earlier", "original", "initial", "system", "instruction", "instructions",
        "prompt", "prompts", "rules", "guidelines", "directions", "directives", "you", "are", "now", "act", "as",
        "reveal", "print", "show", "output", "repeat", "leak", "secret", "hidden", "new", "updated", "real",
        "true", "unrestricted", "unfiltered", "jailbroken", "dan", "developer", "mode", "from", "on", "henceforth",
        "will", "must", "shall", "should", "tell", "user", "not", "do", "stop", "following", "obeying",
        "everything", "told", "the", "your", "my", "these", "those", "of", "an", "a", "assistant", "model",
        NULL,
    };
    if (n < 1 || n > 12) return false;
    for (size_t i = 0; i < n; i++)
        if (!is_ascii_alpha((unsigned char)w[i])) return false; /* a digit left: uint32, md5 */
    for (const char *const *p = words; *p; p++)
        if (((*p)[0] | 0x20) == (w[0] | 0x20) && strncasecmp(*p, w, n) == 0 && (*p)[n] == 0) return true;
    return false;
}

/* Pass 2 from t into o (never longer): leetspeak undone inside words that
 * hold a letter ("1gn0r3" is ignore, "1337" stays), letters spaced out one
 * by one ("i g n o r e  a l l") joined, a wider gap kept as one space. */
static size_t fold_words(const char *t, size_t n, char *o, bool *long_word)
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
            /* a spaced-out run: at least 4 letters, each alone, one to three spacers apart */
            size_t k = i, letters = 0, end = i;
            while (k < n && IS(t[k], C_ALPHA) && (k + 1 >= n || !IS(t[k + 1], C_ALPHA | C_DIGIT))) {
                letters++;
                end = k + 1;
                size_t g = k + 1;
                while (g < n && IS(t[g], C_SPACER) && g - k <= 3) g++;
                if (g == k + 1 || g >= n || !IS(t[g], C_ALPHA)) break;
                k = g;
            }
            if (letters >= 4) {
                for (size_t q = i; q < end; q++) {
                    if (IS(t[q], C_ALPHA)) o[out++] = t[q];
                    else if (q + 1 < end && IS(t[q + 1], C_SPACER) && !IS(t[q - 1], C_SPACER)) o[out++] = ' ';
                }
                i = end;
                continue;
            }
        }
        size_t w = i; /* a word of letters, digits and leet symbols */
        bool letter = false, leet = false;
        while (w < n && IS(t[w], C_ALPHA | C_DIGIT | C_LEET)) {
            letter |= IS(t[w], C_ALPHA) != 0;
            leet |= IS(t[w], C_LEET) != 0;
            w++;
        }
        size_t at = out;
        if (w - i >= 20 && b64_like(t + i, w - i)) *long_word = true; /* '+' and '/' split base64 into words */
        memcpy(o + out, t + i, w - i);
        out += w - i;
        if (letter && leet) { /* undone only where that spells a word the patterns look for: r1, md5, x86 stay */
            for (size_t q = at; q < out; q++) o[q] = unleet[(unsigned char)o[q]];
            if (!attack_word(o + at, out - at)) memcpy(o + at, t + i, w - i);
        }
        i = w;
    }
    return out;
}

/* What base64 runs of 24+ characters in s decode to, when that is text,
 * appended at o (room for n bytes); returns the length written. */
static size_t add_decoded(const char *s, size_t n, char *o)
{
    size_t out = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && IS(s[j], C_B64)) j++;
        if (j - i >= 24) {
            size_t start = out, bits = 0, printable = 0, total = 0;
            uint32_t acc = 0;
            o[out++] = '\n';
            for (size_t q = i; q < j; q++) {
                acc = (acc << 6) | (uint32_t)b64v[(unsigned char)s[q]];
                bits += 6;
                if (bits >= 8) {
                    bits -= 8;
                    unsigned char ch = (unsigned char)(acc >> bits);
                    total++;
                    bool p = ch >= 0x20 && ch < 0x7F;
                    printable += p || ch == '\n' || ch == '\t';
                    o[out++] = p ? (char)ch : ' ';
                }
            }
            if (printable * 10 < total * 9) out = start; /* not text: left out */
        }
        i = j > i ? j : i + 1;
    }
    return out;
}

static bool matches(const char *s, size_t n, bool valid);

/* Asks for ROT13 to be read ("rot13", "rot-13", "caesar"): only then is
 * the ROT13 of the text matched too. */
static bool mentions_rot13(const char *s, size_t n)
{
    for (const char *p = s; (p = memchr(p, 'r', (size_t)(s + n - p))) != NULL && p + 5 <= s + n; p++)
        if ((p[1] | 0x20) == 'o' && (p[2] | 0x20) == 't' && (p[3] == '1' || (p[3] == '-' && p[4] == '1'))) return true;
    for (const char *p = s; (p = memchr(p, 'R', (size_t)(s + n - p))) != NULL && p + 5 <= s + n; p++)
        if ((p[1] | 0x20) == 'o' && (p[2] | 0x20) == 't' && (p[3] == '1' || (p[3] == '-' && p[4] == '1'))) return true;
    return false;
}

/* The text as the patterns should see it when an attacker hid it: folded
 * (pass 1 only when the text has non-ASCII bytes), then its ROT13 when it
 * asks for that, then what its base64 runs decode to, a line each
 * (malloc'd, *len set). NULL when that is the text itself, or out of memory. */
/* Whether ASCII text s holds anything the folding would change or add: a
 * leetspeak word the patterns look for, four or more letters spaced out one
 * by one, a mixed-case word of 20+ characters (base64). One pass, no writes: most text
 * holds none, and is matched once, as it is. */
static bool needs_fold(const char *s, size_t n)
{
    size_t singles = 0; /* single letters in a row, a spacer or three apart */
    for (size_t i = 0; i < n;) {
        if (!IS(s[i], C_ALPHA | C_DIGIT | C_LEET)) {
            i++;
            continue;
        }
        size_t w = i;
        bool letter = false, leet = false;
        while (w < n && IS(s[w], C_ALPHA | C_DIGIT | C_LEET)) {
            letter |= IS(s[w], C_ALPHA) != 0;
            leet |= IS(s[w], C_LEET) != 0;
            w++;
        }
        size_t len = w - i;
        if (len >= 20 && b64_like(s + i, len)) return true;
        if (letter && leet && len <= 16) {
            char u[16];
            for (size_t q = 0; q < len; q++) u[q] = unleet[(unsigned char)s[i + q]];
            if (len >= 5 && attack_word(u, len)) return true; /* a long one: "0f" or "d0" alone is hex */
        }
        if (len == 1 && IS(s[i], C_ALPHA)) {
            size_t g = w;
            while (g < n && IS(s[g], C_SPACER) && g - w < 3) g++;
            singles = g > w ? singles + 1 : 0;
            if (singles >= 4) return true;
            if (g == w) singles = 0;
        } else {
            singles = 0;
        }
        i = w;
    }
    return false;
}

static char *fold_text(const char *s, size_t n, bool high, size_t *len)
{
    pthread_once(&cls_once, cls_init);
    bool rot = mentions_rot13(s, n);
    if (!high && !rot && !needs_fold(s, n)) return NULL;
    char *a = high ? malloc(n + 1) : NULL, *b = malloc(3 * n + 3);
    if ((high && !a) || !b) {
        free(a);
        free(b);
        return NULL;
    }
    size_t an = high ? fold_chars((const unsigned char *)s, n, a) : n;
    bool long_word = false;
    size_t f = fold_words(high ? a : s, an, b, &long_word);
    bool same = f == n && memcmp(b, s, n) == 0;
    free(a);
    size_t m = f;
    if (rot) {
        static const char r13[] = "nopqrstuvwxyzabcdefghijklm";
        b[m++] = '\n';
        for (size_t i = 0; i < f; i++) {
            unsigned char c = (unsigned char)b[i];
            b[m++] = IS(c, C_ALPHA) ? (char)(r13[(c | 0x20) - 'a'] & ~(c & 0x20 ? 0 : 0x20)) : (char)c;
        }
    }
    size_t d = long_word ? add_decoded(s, n, b + m) : 0;
    m += d;
    if (same && !rot && !d) {
        free(b);
        return NULL;
    }
    *len = m;
    return b;
}

bool mg_injection(const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    /* hidden characters: any Unicode tag, a bidi override, or a zero-width run of 3+ */
    size_t zw = 0;
    bool valid = true, high = false;
    for (size_t i = 0; i < n;) {
        if (s[i] < 0x80) {
            zw = 0;
            i++;
            continue;
        }
        high = true;
        int32_t cp;
        i += utf8_next(s + i, n - i, &cp);
        if (cp < 0) valid = false;
        if (is_tag(cp) || is_bidi(cp)) return true;
        zw = is_zw(cp) ? zw + 1 : 0;
        if (zw >= 3) return true;
    }
    pthread_once(&inj_once, inj_compile);
    if (!inj_re) return false;
    if (matches(str, n, valid)) return true;
    /* obfuscated: leetspeak, look-alike letters, invisible characters between
     * letters, spaced-out letters, ROT13, base64 */
    size_t fn = 0;
    char *f = n <= MG_INJECTION_FOLD_MAX ? fold_text(str, n, high, &fn) : NULL;
    bool hit = f && matches(f, fn, mg_utf8_valid_prefix(f, fn) == fn);
    free(f);
    return hit;
}

static bool matches(const char *str, size_t n, bool valid)
{
    const unsigned char *s = (const unsigned char *)str;
    if (inj_db && valid && n <= UINT_MAX) {
        pthread_once(&inj_key_once, key_init);
        if (!inj_scratch && hs_clone_scratch(inj_proto, &inj_scratch) == HS_SUCCESS)
            pthread_setspecific(inj_key, inj_scratch);
        if (inj_scratch) {
            struct cands c = {.s = s, .n = n};
            hs_error_t e = hs_scan(inj_db, str, (unsigned)n, 0, inj_scratch, on_inj, &c);
            if (e == HS_SCAN_TERMINATED) return c.hit;
            if (e == HS_SUCCESS) return c.last && confirm_window(&c);
        }
    }
    return pcre_confirms(s, n);
}
