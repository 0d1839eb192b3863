/* injection_prescan.c — one pass over a text's bytes before the
 * prompt-injection patterns run (injection_int.h: mg__inj_prescan): does it
 * hold hidden characters (a signal in itself), or something that folding or
 * decoding (injection_fold.c) would turn into an attack: look-alike or
 * invisible characters inside a Latin word, leetspeak or junk inside an
 * attack word, spaced-out letters spelling one, hex text? Most text holds
 * none, and is then matched once, as it came. 64 bytes at a time: masks of
 * the byte classes give the candidates, each checked at its place.
 *
 * Sections:
 *   1. characters beyond ASCII
 *   2. leetspeak and junk inside a word
 *   3. spaced-out letters and hex text
 *   4. byte classes of 64 bytes
 *   5. the pass
 */
#include "security/injection_int.h"

#include <string.h>

/* ---- 1. characters beyond ASCII --------------------------------------------------------- */

/* Whether the character s[i..i+l) has an ASCII letter or digit beside it
 * (inside a Latin word, where hiding happens). */
static bool by_letter(const unsigned char *s, size_t n, size_t i, size_t l)
{
    return (i > 0 && MG__IS(s[i - 1], MG__C_ALPHA | MG__C_DIGIT)) ||
           (i + l < n && MG__IS(s[i + l], MG__C_ALPHA | MG__C_DIGIT));
}

/* The non-ASCII character at s[i]: what it tells p. Returns its length. */
static size_t wide_char(const unsigned char *s, size_t n, size_t i, size_t *zw, struct mg__inj_pre *p)
{
    int32_t cp;
    size_t l = mg__utf8_next(s + i, n - i, &cp);
    if (cp < 0) { /* not UTF-8: no character to tell of */
        *zw = 0;
        return l;
    }
    if (mg__is_tag(cp) || mg__is_bidi(cp)) p->hidden = p->chars = true;
    else if (mg__is_zw(cp)) {
        p->chars |= by_letter(s, n, i, l);
        if (++*zw >= 3) p->hidden = true;
        return l;
    } else if ((cp >= 0xFF10 && cp <= 0xFF19) || (cp >= 0xFF21 && cp <= 0xFF3A) || (cp >= 0xFF41 && cp <= 0xFF5A) ||
               (cp >= 0x1D400 && cp <= 0x1D6A3) || (cp >= 0x24B6 && cp <= 0x24E9) ||
               (cp >= 0x2100 && cp <= 0x214F && mg__inj_latin_of(cp)))
        p->chars = true; /* fullwidth, mathematical, letterlike, circled letters (not CJK punctuation) */
    else if (!p->chars && (cp == 0x00AD || cp == 0x00B7 || (cp >= 0x0300 && cp <= 0x036F) || mg__inj_latin_of(cp)))
        p->chars = by_letter(s, n, i, l); /* a soft hyphen, a combining mark, a look-alike */
    *zw = 0;
    return l;
}

/* ---- 2. leetspeak and junk inside a word ------------------------------------------------ */

#define C_WORD (MG__C_ALPHA | MG__C_DIGIT | MG__C_LEET) /* what fold_words (injection_fold.c) takes for a word */

/* Is k in the set of the attack words' four-letter runs? */
static bool quad_has(uint32_t k)
{
    for (uint32_t h = mg__inj_quad_hash(k);; h = (h + 1) & (MG__INJ_NQUADS - 1)) {
        if (mg__inj_quads[h] == k) return true;
        if (!mg__inj_quads[h]) return false;
    }
}

/* The letter s[i] reads as in leetspeak, lower case, or -1. */
static inline int leet_letter(const unsigned char *s, size_t i) { return mg__inj_leet_of[s[i]]; }

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
    while (b0 > 0 && MG__IS(s[b0 - 1], MG__C_ALPHA)) b0--;
    if (j - b0 < 2 || (b0 > 0 && MG__IS(s[b0 - 1], MG__C_JUNK))) return false;
    size_t k = j + 1;
    while (k < n && k - j <= 3 && MG__IS(s[k], MG__C_ALPHA)) k++;
    if (k < n && MG__IS(s[k], C_WORD)) return false;
    size_t l = k - j - 1;
    int a = j + 1 < n ? s[j + 1] | 0x20 : 0, b = l == 2 ? s[j + 2] | 0x20 : 0;
    return (l == 1 && (a == 's' || a == 'd' || (a == 't' && (s[j - 1] | 0x20) == 'n'))) ||
           (l == 2 && ((a == 'l' && b == 'l') || (a == 'r' && b == 'e') || (a == 'v' && b == 'e')));
}

/* Whether a word of the vocabulary that reads from u[st] (a '1' or '!' at el
 * read as i or as l) continues below trie node `node` from u[at] and ends
 * after u[reach], made of whole pieces. */
static bool word_from(uint32_t node, const char *u, const bool *el, const bool *dirty, size_t l, size_t st, size_t at,
                      size_t reach)
{
    if (mg__inj_trie[node].end && at > reach && pieces(dirty, l, st, at)) return true;
    if (at == l) return false;
    for (uint32_t k = mg__inj_trie[node].kid; k; k = mg__inj_trie[k].next)
        if ((mg__inj_trie[k].c == u[at] || (el[at] && mg__inj_trie[k].c == 'l')) &&
            word_from(k, u, el, dirty, l, st, at + 1, reach))
            return true;
    return false;
}

/* The words leet_word found no attack word in, by a hash of their bytes: its answer depends on a
 * word's bytes alone, and a text repeats its identifiers (three in four words checked in headers
 * and docs were checked before). Set up when the first word is checked. */
#define SEEN_SLOTS 256
struct seen {
    bool ready;
    uint8_t len[SEEN_SLOTS];  /* the word's length (at most 64) */
    size_t at[SEEN_SLOTS];    /* where in the text it starts, plus one; 0: none */
};

/* Whether the word of fold_words around s[d] (a leet character or junk
 * between two letters) folds into an attack word that d is inside of: the
 * word is cut where fold_words cuts it, its junk dropped and, when every
 * character is then a letter or a leet one, its leet undone. An attack word
 * must hold a place where something was undone (a leet character, or a
 * letter after dropped junk unless the word starts there), at most 15
 * letters from its start; the words from each start are walked in the trie. */
static bool leet_word(const unsigned char *s, size_t n, size_t d, struct seen *seen)
{
    size_t i = d, e = d;
    while (i > 0 && d - i < 64 &&
           (MG__IS(s[i - 1], C_WORD) ||
            (i >= 2 && MG__IS(s[i - 1], MG__C_JUNK) && MG__IS(s[i - 2], C_WORD) && MG__IS(s[i], C_WORD))))
        i--;
    while (e < n && e - i < 64 &&
           (MG__IS(s[e], C_WORD) || (e > i && e + 1 < n && MG__IS(s[e], MG__C_JUNK) && MG__IS(s[e - 1], C_WORD) &&
                                 MG__IS(s[e + 1], C_WORD) && !contraction(s, n, e))))
        e++;
    if (!seen->ready) memset(seen, 0, sizeof(*seen)), seen->ready = true;
    uint32_t h = mg__inj_fnv(s + i, e - i);
    size_t slot = (h ^ h >> 16) % SEEN_SLOTS;
    if (seen->at[slot] && seen->len[slot] == e - i && !memcmp(s + seen->at[slot] - 1, s + i, e - i)) return false;
    char u[64];
    bool dirty[64] = {false}, leet[64] = {false}, el[64] = {false}, all = true; /* el: reads as i or l */
    size_t l = 0;
    for (size_t q = i; q < e && l < sizeof(u); q++) {
        if (MG__IS(s[q], MG__C_JUNK) && q > i && q + 1 < e) { /* dropped: the letters either side are joined */
            dirty[l] = true;
            continue;
        }
        int c = leet_letter(s, q);
        all &= c >= 0;
        u[l] = c >= 0 ? (char)('a' + c) : (char)s[q];
        el[l] = s[q] == '1' || s[q] == '!';
        leet[l++] = !MG__IS(s[q], MG__C_ALPHA);
    }
    size_t next = l; /* the first place after st where something was undone */
    for (size_t st = l; st-- > 0;) {
        bool undone = dirty[st] || (all && leet[st]);
        /* junk dropped just before st is outside a word that starts at st */
        size_t reach = undone && !(dirty[st] && !leet[st]) ? st : next;
        if (reach < l && reach - st <= 15)
            for (int k = 0; k < 2; k++) { /* the words starting with u[st], and with l for an el */
                int f = k ? (el[st] ? 'l' : 0) : u[st];
                uint32_t node = f >= 'a' && f <= 'z' ? mg__inj_trie_first[f - 'a'] : 0;
                if (node && word_from(node, u, el, dirty, l, st, st + 1, reach)) return true;
            }
        if (undone) next = st;
    }
    seen->at[slot] = i + 1, seen->len[slot] = (uint8_t)(e - i);
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
    if (c < 0 && MG__IS(s[j], MG__C_JUNK) && MG__IS(s[*i], C_WORD) && j + (size_t)step < n)
        c = leet_letter(s, j += (size_t)step);
    *i = j;
    return c;
}

/* MG__FOLD_LEET when the leet character or junk at s[d] is inside a word that
 * folds into an attack word ("1gn0r3", "Ignor.e"). Such a word has a run of
 * three, and one of four, letters of an attack word over d (over both sides
 * of junk), which tells most text apart at once ("int32_t", "foo_bar")
 * before the word is folded. */
static bool leet_at(const unsigned char *s, size_t n, size_t d, struct seen *seen)
{
    bool junk = MG__IS(s[d], MG__C_JUNK) && !MG__IS(s[d], MG__C_ALPHA);
    int c = junk ? -1 : leet_letter(s, d);
    if ((!junk && c < 0) || contraction(s, n, d)) return false;
    int l[4], r[4], nl = 0, nr = 0; /* the letters either side, nearest first */
    size_t a = d, b = d;
    /* two each side first: the run of three needs no more, and most candidates (an identifier's
     * '_', a digit in a name) end there; the rest only when it holds */
    while (nl < 2 && (l[nl] = letter_by(s, n, &a, -1)) >= 0) nl++;
    if (junk && !nl) return false;
    while (nr < 2 && (r[nr] = letter_by(s, n, &b, 1)) >= 0) nr++;
    bool run = junk ? (nl >= 2 && nr >= 1 && MG__INJ_TRI(l[1], l[0], r[0])) ||
                          (nl >= 1 && nr >= 2 && MG__INJ_TRI(l[0], r[0], r[1]))
                    : (nl >= 1 && nr >= 1 && MG__INJ_TRI(l[0], c, r[0])) || (nl >= 2 && MG__INJ_TRI(l[1], l[0], c)) ||
                          (nr >= 2 && MG__INJ_TRI(c, r[0], r[1]));
    if (!run) return false;
    while (nl == 2 || nl == 3) /* the loop stops at the first side without a letter, as before */
        if ((l[nl] = letter_by(s, n, &a, -1)) >= 0) nl++;
        else break;
    while (nr == 2 || nr == 3)
        if ((r[nr] = letter_by(s, n, &b, 1)) >= 0) nr++;
        else break;
    int seq[9], m = 0;
    for (int k = nl - 1; k >= 0; k--) seq[m++] = l[k];
    if (!junk) seq[m++] = c;
    for (int k = 0; k < nr; k++) seq[m++] = r[k];
    /* a run of four that holds d (or both sides of the junk) and the run
     * beside it: five letters of a word of the vocabulary (all are 5+) */
    bool hit = false;
    for (int st = nl - 3 < 0 ? 0 : nl - 3; st <= (junk ? nl - 1 : nl) && st + 4 <= m && !hit; st++)
        hit = quad_has(mg__inj_quad_key(seq + st)) && ((st + 5 <= m && quad_has(mg__inj_quad_key(seq + st + 1))) ||
                                                        (st >= 1 && quad_has(mg__inj_quad_key(seq + st - 1))));
    return hit && leet_word(s, n, d, seen);
}

/* ---- 3. spaced-out letters and hex text ------------------------------------------------- */

/* MG__FOLD_SPACED: four letters from s[i], each alone, one to five spacers apart,
 * the first and the fourth at a word boundary ("i g n o r e", "D.o n.o.t"),
 * and an attack word in the letters of the whole run ("O S Z A C P" holds
 * none). */
static bool spaced_at(const unsigned char *s, size_t n, size_t i)
{
    char run[64]; /* the run's letters, lower case: worth folding when they hold an attack word */
    size_t m = 0;
    for (;;) {
        run[m++] = (char)(s[i] | 0x20);
        if (m == 4 && i + 1 < n && (MG__IS(s[i + 1], MG__C_ALPHA | MG__C_DIGIT) || s[i + 1] == '_')) return false;
        size_t g = i + 1;
        while (g < n && g - i <= 5 && MG__IS(s[g], MG__C_SPACER)) g++;
        if (g == i + 1 || g - i > 6 || g >= n || !MG__IS(s[g], MG__C_ALPHA) ||
            (g + 1 < n && MG__IS(s[g + 1], MG__C_ALPHA)) || m == sizeof(run))
            break;
        i = g;
    }
    if (m < 4) return false;
    for (size_t k = 0; k < mg__inj_nwords; k++)
        if (strlen(mg__inj_words[k]) >= 3 && memmem(run, m, mg__inj_words[k], strlen(mg__inj_words[k]))) return true;
    return false;
}

/* The k hex pairs at p, stride bytes apart (2: "49676e", 3: "49 67 6e"),
 * are all printable text. The prefilter matched the digits. */
static bool hex_text(const unsigned char *p, size_t k, size_t stride)
{
    for (size_t i = 0; i < k * stride; i += stride)
        if (!mg__inj_printable((unsigned char)(mg__inj_hexv(p[i]) << 4 | mg__inj_hexv(p[i + 1])))) return false;
    return true;
}

/* MG__FOLD_HEX: 32 hex digits from s[i] (then every 8 on while the run lasts), or
 * twelve pairs each with a space or a colon, whose bytes are text. */
static bool hex_at(const unsigned char *s, size_t n, size_t i, bool spaced)
{
    if (spaced) return i + 36 <= n && hex_text(s + i, 12, 3);
    size_t e = i;
    while (e < n && mg__inj_hexv(s[e]) >= 0) e++;
    for (size_t at = i; at + 32 <= e; at += 8)
        if (hex_text(s + at, 16, 2)) return true;
    return false;
}

/* MG__FOLD_HEX for bytes written as code: twelve in a row from s[i] that are text. */
static bool hex_bytes_at(const unsigned char *s, size_t n, size_t i)
{
    for (int k = 0; k < 12; k++) {
        if (!mg__inj_hex_byte(s, n, i) ||
            !mg__inj_printable((unsigned char)(mg__inj_hexv(s[i + 2]) << 4 | mg__inj_hexv(s[i + 3]))))
            return false;
        if (k < 11 && !(i = mg__inj_hex_next(s, n, i + 4))) return false;
    }
    return true;
}

/* ---- 4. byte classes of 64 bytes -------------------------------------------------------- */

/* Byte classes of 64 bytes, a bit each. */
struct blk {
    uint64_t alpha, digit, hex, word, leet, junk, spacer, hexsep, high;
    uint64_t ex, zesc; /* 'x' or 'X'; '0' or '\\' (a hex byte's "0x" or "\\x") */
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
        __m128i dash_star_slash = OR3(EQ(v, '-'), EQ(v, '*'), EQ(v, '/'));
        b->junk |= mask16(OR3(dot_und_bar, EQ(v, '\''), _mm_or_si128(EQ(v, '*'), EQ(v, '~'))), k);
        b->spacer |= mask16(_mm_or_si128(OR3(dot_und_bar, sp, EQ(v, '\t')), dash_star_slash), k);
        b->hexsep |= mask16(_mm_or_si128(sp, EQ(v, ':')), k);
        b->high |= mask16(v, k);
        b->ex |= mask16(EQ(low, 'x'), k);
        b->zesc |= mask16(_mm_or_si128(EQ(v, '0'), EQ(v, '\\')), k);
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
        if (MG__IS(c, MG__C_ALPHA)) b->alpha |= bit;
        if (MG__IS(c, MG__C_DIGIT)) b->digit |= bit;
        if (mg__inj_hexv(c) >= 0) b->hex |= bit;
        if (MG__IS(c, MG__C_ALPHA | MG__C_DIGIT) || c == '_') b->word |= bit;
        if (MG__IS(c, MG__C_LEET) && !MG__IS(c, MG__C_DIGIT)) b->leet |= bit;
        if (MG__IS(c, MG__C_JUNK)) b->junk |= bit;
        if (MG__IS(c, MG__C_SPACER)) b->spacer |= bit;
        if (c == ' ' || c == ':') b->hexsep |= bit;
        if (c >= 0x80) b->high |= bit;
        if ((c | 0x20) == 'x') b->ex |= bit;
        if (c == '0' || c == '\\') b->zesc |= bit;
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

/* ---- 5. the pass ------------------------------------------------------------------------ */

/* One pass, 64 bytes at a time: the non-ASCII characters (struct mg__inj_pre) and
 * the byte triggers, each candidate the masks give checked at its place. */
void mg__inj_prescan(const unsigned char *s, size_t n, struct mg__inj_pre *p)
{
    *p = (struct mg__inj_pre){0};
    size_t zw = 0, next_wide = 0, last_wide = 0; /* where the next character starts; after the last wide one */
    struct seen seen;                            /* the words leet_word found no attack word in */
    seen.ready = false;
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
        if (!(p->fold & MG__FOLD_LEET)) {
            /* a leet character or junk with a letter or a leet one beside it */
            uint64_t alpha_near = PREVBIT(alpha) | b.alpha >> 1 | 1ull << 63, wordc_next = wordc >> 1 | 1ull << 63;
            for (uint64_t c = ((b.digit | b.leet) & ~b.alpha & alpha_near) | (b.junk & wordc_prev & wordc_next); c;
                 c &= c - 1)
                if (leet_at(s, n, at + (size_t)__builtin_ctzll(c), &seen)) {
                    p->fold |= MG__FOLD_LEET;
                    break;
                }
        }
        if (!(p->fold & MG__FOLD_SPACED)) {
            /* a letter after a word boundary, a spacer after it */
            for (uint64_t c = b.alpha & ~PREVBIT(word) & (b.spacer >> 1 | 1ull << 63); c; c &= c - 1)
                if (spaced_at(s, n, at + (size_t)__builtin_ctzll(c))) {
                    p->fold |= MG__FOLD_SPACED;
                    break;
                }
        }
        if (!(p->fold & MG__FOLD_HEX) && (b.digit | prev.digit)) { /* text in hex holds digits */
            unsigned __int128 hx = (unsigned __int128)b.hex << 64 | prev.hex;
            unsigned __int128 pairs = hx & hx >> 1 & ((unsigned __int128)b.hexsep << 64 | prev.hexsep) >> 2;
            /* starting in the block before (this one holds the rest): the
             * start of a run of 32 (the bit before it clear), or of 12 pairs */
            uint64_t r32 = (uint64_t)(runs(hx, 1, 32) & ~(hx << 1));
            uint64_t r12 = (uint64_t)(runs(pairs, 3, 8) & runs(pairs, 3, 4) >> 24);
            for (uint64_t c = r32; c && !(p->fold & MG__FOLD_HEX); c &= c - 1)
                if (hex_at(s, n, at - 64 + (size_t)__builtin_ctzll(c), false)) p->fold |= MG__FOLD_HEX;
            for (uint64_t c = r12; c && !(p->fold & MG__FOLD_HEX); c &= c - 1)
                if (hex_at(s, n, at - 64 + (size_t)__builtin_ctzll(c), true)) p->fold |= MG__FOLD_HEX;
            /* bytes written as code: twelve (a stride of 12 at most) span at most four blocks, so one holds three */
            unsigned __int128 ex = (unsigned __int128)b.ex << 64 | prev.ex;
            unsigned __int128 z = (unsigned __int128)b.zesc << 64 | prev.zesc;
            uint64_t bytes = (uint64_t)(z & ex >> 1 & hx >> 2 & hx >> 3);
            if (__builtin_popcountll(bytes) >= 3)
                for (uint64_t c = bytes; c && !(p->fold & MG__FOLD_HEX); c &= c - 1)
                    if (hex_bytes_at(s, n, at - 64 + (size_t)__builtin_ctzll(c))) p->fold |= MG__FOLD_HEX;
        }
#undef PREVBIT
        prev = b;
    }
}
