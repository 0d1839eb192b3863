/* rxlit_char.c — the items of a regex that stand for characters (see
 * rxlit_int.h): a literal character, an escape outside a class, a class
 * [...]. Each becomes an info: an exact set of strings when it is a known
 * character or a small class of ASCII ones, else "anything" (it claims
 * nothing). Caseless matching adds the variants that the index cannot fold.
 *
 * Sections:
 *   1. UTF-8: strict decoding, encoding
 *   2. characters and escapes
 *   3. classes
 */
#include "store/rxlit_int.h"

/* ---- 1. UTF-8 ------------------------------------------------------------ */

/* Decode one UTF-8 character strictly (no overlongs, surrogates or values
 * past U+10FFFF). Returns its length, or 0 when s[0..n) does not start with
 * a valid character. */
size_t mg__rx_utf8_dec(const unsigned char *s, size_t n, uint32_t *cp)
{
    if (n == 0) return 0;
    unsigned char b = s[0];
    size_t len;
    uint32_t v, min;
    if (b < 0x80) {
        *cp = b;
        return 1;
    } else if (b >= 0xc2 && b <= 0xdf) {
        len = 2, v = b & 0x1f, min = 0x80;
    } else if (b >= 0xe0 && b <= 0xef) {
        len = 3, v = b & 0x0f, min = 0x800;
    } else if (b >= 0xf0 && b <= 0xf4) {
        len = 4, v = b & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    if (n < len) return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;
        v = v << 6 | (s[i] & 0x3f);
    }
    if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) return 0;
    *cp = v;
    return len;
}

static size_t utf8_enc(uint32_t cp, char out[4])
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xc0 | cp >> 6);
        out[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xe0 | cp >> 12);
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | cp >> 18);
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    out[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* ---- 2. characters and escapes ------------------------------------------- */

/* The info of one literal character. Caselessly, ASCII k and s also match
 * U+212A KELVIN SIGN and U+017F LATIN SMALL LETTER LONG S; other ASCII
 * letters only their other case (which eval and the index fold anyway).
 * Non-ASCII characters have case variants we do not track: unknown. */
void mg__rx_char_info(struct ctx *c, uint32_t cp, struct info *out)
{
    char b[4];
    size_t n = utf8_enc(cp, b);
    if (!c->caseless) {
        mg__rx_info_exact1(c, out, b, n);
    } else if (cp >= 0x80) {
        mg__rx_info_any(c, out);
    } else if (fold((int)cp) == 'k') {
        mg__rx_info_exact1(c, out, b, n);
        mg__rx_rset_push(c, &out->e, "\xe2\x84\xaa", 3);
    } else if (fold((int)cp) == 's') {
        mg__rx_info_exact1(c, out, b, n);
        mg__rx_rset_push(c, &out->e, "\xc5\xbf", 2);
    } else {
        mg__rx_info_exact1(c, out, b, n);
    }
}

/* The literal character at c->pos (valid UTF-8 is checked up front). */
void mg__rx_parse_char(struct ctx *c, struct info *out)
{
    uint32_t cp;
    size_t n = mg__rx_utf8_dec(c->p + c->pos, c->len - c->pos, &cp);
    if (!n) { /* cannot happen after validation; be safe anyway */
        c->bail = true;
        c->pos = c->len;
        mg__rx_info_any(c, out);
        return;
    }
    c->pos += n;
    mg__rx_char_info(c, cp, out);
}

/* Skip a delimited name such as {Greek} or <name> starting at c->pos (the
 * opener); only name-like bytes may appear inside. */
bool mg__rx_skip_name(struct ctx *c, char close)
{
    size_t i = c->pos + 1;
    for (; i < c->len && i - c->pos <= RX_NAME_MAX; i++) {
        unsigned char ch = c->p[i];
        if (ch == (unsigned char)close) {
            if (i == c->pos + 1) return false;
            c->pos = i + 1;
            return true;
        }
        if (!(is_alnum(ch) || ch >= 0x80 || in_set(ch, "_+-&^=:. "))) return false;
    }
    return false;
}

/* Read a code point written as digits of base (8 or 16) in {...} at c->pos. */
static bool braced_number(struct ctx *c, int base, uint32_t *cp)
{
    size_t i = c->pos + 1;
    uint32_t v = 0;
    size_t nd = 0;
    for (; i < c->len && c->p[i] != '}'; i++, nd++) {
        int d = hex_val(c->p[i]);
        if (d < 0 || d >= base || nd > 8) return false;
        v = v * (uint32_t)base + (uint32_t)d;
    }
    if (i >= c->len || nd == 0 || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) return false;
    c->pos = i + 1;
    *cp = v;
    return true;
}

/* A backslash escape outside a class; c->pos is at the backslash. */
enum item mg__rx_parse_escape(struct ctx *c, struct info *out)
{
    if (c->pos + 1 >= c->len) goto bail;
    unsigned char e = c->p[c->pos + 1];
    c->pos += 2;
    uint32_t cp;
    switch (e) {
    case 'Q':
        c->quote = true;
        return ITEM_SKIP;
    case 'E':
        return ITEM_SKIP;
    case 'b': case 'B': case 'A': case 'z': case 'Z': case 'G': case 'K':
        mg__rx_info_empty(c, out);
        return ITEM_ATOM;
    case 'd': case 'D': case 's': case 'S': case 'w': case 'W': case 'h': case 'H':
    case 'v': case 'V': case 'R': case 'X': case 'C':
        mg__rx_info_any(c, out);
        return ITEM_ATOM;
    case 'N': /* \N, or \N{U+hhhh} (a \N{3} is \N quantified) */
        if (at(c, c->pos, '{') && at(c, c->pos + 1, 'U') && at(c, c->pos + 2, '+') &&
            !mg__rx_skip_name(c, '}'))
            goto bail;
        mg__rx_info_any(c, out);
        return ITEM_ATOM;
    case 'p': case 'P':
        if (at(c, c->pos, '{')) {
            if (!mg__rx_skip_name(c, '}')) goto bail;
        } else if (c->pos < c->len && is_alnum(c->p[c->pos])) {
            c->pos++;
        } else {
            goto bail;
        }
        mg__rx_info_any(c, out);
        return ITEM_ATOM;
    case 'a': cp = 0x07; goto literal;
    case 'e': cp = 0x1b; goto literal;
    case 'f': cp = 0x0c; goto literal;
    case 'n': cp = 0x0a; goto literal;
    case 'r': cp = 0x0d; goto literal;
    case 't': cp = 0x09; goto literal;
    case '0': /* \0 and up to two more octal digits */
        cp = 0;
        for (int i = 0; i < 2 && c->pos < c->len && c->p[c->pos] >= '0' && c->p[c->pos] <= '7'; i++)
            cp = cp * 8 + (uint32_t)(c->p[c->pos++] - '0');
        goto literal;
    case 'o':
        if (!at(c, c->pos, '{') || !braced_number(c, 8, &cp)) goto bail;
        goto literal;
    case 'x':
        if (at(c, c->pos, '{')) {
            if (!braced_number(c, 16, &cp)) goto bail;
        } else {
            cp = 0;
            for (int i = 0; i < 2 && c->pos < c->len && hex_val(c->p[c->pos]) >= 0; i++)
                cp = cp * 16 + (uint32_t)hex_val(c->p[c->pos++]);
        }
        goto literal;
    case 'c': /* control character: \c plus one printable ASCII character */
        if (c->pos >= c->len || c->p[c->pos] < 0x20 || c->p[c->pos] > 0x7e) goto bail;
        c->pos++;
        mg__rx_info_any(c, out);
        return ITEM_ATOM;
    case '1': case '2': case '3': case '4': case '5': case '6': case '7': case '8': case '9':
        /* a backreference, or an octal character followed by digits: unknown */
        while (c->pos < c->len && is_digit(c->p[c->pos])) c->pos++;
        mg__rx_info_any(c, out);
        return ITEM_ATOM;
    case 'g': /* backreference or subroutine call */
        if (at(c, c->pos, '{')) {
            if (!mg__rx_skip_name(c, '}')) goto bail;
        } else if (at(c, c->pos, '<')) {
            if (!mg__rx_skip_name(c, '>')) goto bail;
        } else if (at(c, c->pos, '\'')) {
            if (!mg__rx_skip_name(c, '\'')) goto bail;
        } else {
            if (at(c, c->pos, '-') || at(c, c->pos, '+')) c->pos++;
            if (c->pos >= c->len || !is_digit(c->p[c->pos])) goto bail;
            while (c->pos < c->len && is_digit(c->p[c->pos])) c->pos++;
        }
        mg__rx_info_any(c, out);
        return ITEM_ATOM;
    case 'k': /* named backreference */
        if (!((at(c, c->pos, '<') && mg__rx_skip_name(c, '>')) ||
              (at(c, c->pos, '\'') && mg__rx_skip_name(c, '\'')) ||
              (at(c, c->pos, '{') && mg__rx_skip_name(c, '}'))))
            goto bail;
        mg__rx_info_any(c, out);
        return ITEM_ATOM;
    default:
        if (is_alnum(e)) goto bail; /* PCRE2 rejects unknown letter escapes */
        c->pos--;                   /* the escaped character itself, maybe multibyte */
        mg__rx_parse_char(c, out);
        return ITEM_ATOM;
    }
literal:
    mg__rx_char_info(c, cp, out);
    return ITEM_ATOM;
bail:
    c->bail = true;
    return ITEM_SKIP;
}

/* ---- 3. classes ---------------------------------------------------------- */

/* PCRE2's test for a POSIX class name such as [:alpha:] inside a class: i is
 * at the ':' (or '.' or '='). On success *end is at the closing ':'. */
static bool posix_name(const struct ctx *c, size_t i, size_t *end)
{
    unsigned char term = c->p[i];
    for (i++; i + 2 <= c->len; i++) {
        unsigned char ch = c->p[i], next = c->p[i + 1];
        if (ch == '\\' && (next == ']' || next == '\\')) {
            i++;
        } else if ((ch == '[' && next == term) || ch == ']') {
            return false;
        } else if (ch == term && next == ']') {
            *end = i;
            return true;
        }
    }
    return false;
}

/* A character class [...]; c->pos is at the '['. A small class of plain
 * ASCII characters becomes an exact set; any other is an unknown character. */
void mg__rx_parse_class(struct ctx *c, struct info *out)
{
    size_t i = c->pos + 1;
    bool negated = false;
    for (;;) { /* like PCRE2: skip \E, \Q\E and one ^ at the start */
        if (at(c, i, '\\') && at(c, i + 1, 'E')) {
            i += 2;
        } else if (at(c, i, '\\') && at(c, i + 1, 'Q') && at(c, i + 2, '\\') && at(c, i + 3, 'E')) {
            i += 4;
        } else if (!negated && at(c, i, '^')) {
            negated = true;
            i++;
        } else {
            break;
        }
    }
    bool simple = !negated, first = true;
    char chars[RX_CLASS_MAX];
    size_t nchars = 0;
    for (;;) {
        if (i >= c->len) goto bail;
        unsigned char ch = c->p[i];
        if (ch == ']' && !first) {
            i++;
            break;
        }
        first = false;
        if (ch == '\\') {
            simple = false;
            if (i + 1 >= c->len) goto bail;
            unsigned char e = c->p[i + 1];
            if (e == 'Q') { /* quoted: up to \E */
                size_t j = i + 2;
                while (j + 1 < c->len && !(c->p[j] == '\\' && c->p[j + 1] == 'E')) j++;
                if (j + 1 >= c->len) goto bail;
                i = j + 2;
                continue;
            }
            uint32_t cp;
            size_t n = e < 0x80 ? 1 : mg__rx_utf8_dec(c->p + i + 1, c->len - i - 1, &cp);
            if (!n) goto bail;
            i += 1 + n;
            if (in_set(e, "xopP") && at(c, i, '{')) {
                size_t save = c->pos;
                c->pos = i;
                bool ok = mg__rx_skip_name(c, '}');
                i = c->pos;
                c->pos = save;
                if (!ok) goto bail;
            }
            continue;
        }
        if (ch == '[' && i + 1 < c->len && in_set(c->p[i + 1], ":.=")) {
            size_t end;
            if (posix_name(c, i + 1, &end)) {
                simple = false;
                i = end + 2;
                continue;
            }
        }
        if (ch == '-' || ch == '[' || ch >= 0x80) {
            simple = false;
            uint32_t cp;
            size_t n = ch < 0x80 ? 1 : mg__rx_utf8_dec(c->p + i, c->len - i, &cp);
            if (!n) goto bail;
            i += n;
            continue;
        }
        if (simple) {
            bool dup = false;
            for (size_t k = 0; k < nchars; k++)
                if (fold((unsigned char)chars[k]) == fold(ch)) dup = true;
            if (!dup && nchars == RX_CLASS_MAX) simple = false;
            else if (!dup) chars[nchars++] = (char)ch;
            if (c->caseless && (fold(ch) == 'k' || fold(ch) == 's')) simple = false;
        }
        i++;
    }
    c->pos = i;
    if (!simple || nchars == 0) {
        mg__rx_info_any(c, out);
        return;
    }
    mg__rx_info_exact1(c, out, &chars[0], 1);
    for (size_t k = 1; k < nchars; k++) mg__rx_rset_push(c, &out->e, &chars[k], 1);
    return;
bail:
    c->bail = true;
    c->pos = c->len;
    mg__rx_info_any(c, out);
}
