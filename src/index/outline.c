/* outline.c — elide C-family function bodies (see outline.h).
 *
 * Sections:
 *   1. the lexer: skip comments, strings, raw strings, preprocessor lines
 *   2. body scan: find the `}` that closes a body
 *   3. the top-level scan that decides which `{` opens a body
 *   4. offset mapping
 */
#include "index/outline.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* ---- 1. the lexer ---------------------------------------------------- */

#define MIN_ELIDE 8 /* bodies shorter than this are kept */

/* Preprocessor conditional nesting: braces in #else/#elif branches are not
 * counted, so `#if A f() { #else g() { #endif` stays balanced. */
#define PP_MAX 64
struct out;

struct lex {
    const char *s;
    size_t n, i;
    bool bol;              /* only whitespace since the last newline */
    int pp_depth;          /* #if nesting (capped) */
    uint64_t pp_skip;      /* bit d: branch at depth d is an #else/#elif */
    struct out *cut_defines; /* set: elide #define bodies into this output */
    int failed;            /* out of memory while cutting */
};

static int keep(struct out *w, const char *src, size_t cut, size_t resume);

static bool is_ident(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '$' || c >= 0x80;
}

static bool counting(const struct lex *L) { return L->pp_skip == 0; }

/* The end of a directive's logical line from i: its '\n' (not consumed),
 * honouring backslash continuations and block comments. */
static size_t line_end(const struct lex *L, size_t i)
{
    while (i < L->n && L->s[i] != '\n') {
        if (L->s[i] == '\\' && i + 1 < L->n && L->s[i + 1] == '\n') i += 2;
        else if (L->s[i] == '\\' && i + 2 < L->n && L->s[i + 1] == '\r' && L->s[i + 2] == '\n') i += 3;
        else if (L->s[i] == '/' && i + 1 < L->n && L->s[i + 1] == '*') {
            i += 2;
            while (i + 1 < L->n && !(L->s[i] == '*' && L->s[i + 1] == '/')) i++;
            i = i + 2 < L->n ? i + 2 : L->n;
        } else i++;
    }
    return i;
}

static int record_macro(struct out *w, size_t start, size_t end, size_t name, size_t nlen);

/* At '#' at the start of a line: interpret conditionals, skip the line with
 * its continuations. */
static void lex_preproc(struct lex *L)
{
    size_t i = L->i + 1;
    while (i < L->n && (L->s[i] == ' ' || L->s[i] == '\t')) i++;
    size_t w = i;
    while (i < L->n && is_ident((unsigned char)L->s[i])) i++;
    size_t wl = i - w;
    const char *d = L->s + w;
    if ((wl == 2 && !memcmp(d, "if", 2)) || (wl == 5 && !memcmp(d, "ifdef", 5)) ||
        (wl == 6 && !memcmp(d, "ifndef", 6))) {
        if (L->pp_depth < PP_MAX) L->pp_skip &= ~(1ull << L->pp_depth);
        L->pp_depth++;
    } else if ((wl == 4 && (!memcmp(d, "else", 4) || !memcmp(d, "elif", 4))) ||
               (wl == 7 && (!memcmp(d, "elifdef", 7))) || (wl == 8 && !memcmp(d, "elifndef", 8))) {
        if (L->pp_depth > 0 && L->pp_depth <= PP_MAX) L->pp_skip |= 1ull << (L->pp_depth - 1);
    } else if (wl == 5 && !memcmp(d, "endif", 5)) {
        if (L->pp_depth > 0) {
            L->pp_depth--;
            if (L->pp_depth < PP_MAX) L->pp_skip &= ~(1ull << L->pp_depth);
        }
    } else if (wl == 6 && !memcmp(d, "define", 6) && L->cut_defines) {
        /* the whole directive leaves the text; its name is listed */
        size_t hash = L->i;
        while (i < L->n && (L->s[i] == ' ' || L->s[i] == '\t')) i++;
        size_t name = i;
        while (i < L->n && is_ident((unsigned char)L->s[i])) i++;
        size_t nlen = i - name;
        i = line_end(L, i);
        if (nlen > 0 && record_macro(L->cut_defines, hash, i, name, nlen) != 0) L->failed = 1;
        if (keep(L->cut_defines, L->s, hash, i) != 0) L->failed = 1;
        L->i = i;
        return;
    }
    L->i = line_end(L, i);
}

/* Skip a quoted literal starting at L->i (quote char q). Unterminated
 * literals end at the newline, which keeps one bad quote from eating the file. */
static void lex_quoted(struct lex *L, char q)
{
    size_t i = L->i + 1;
    while (i < L->n && L->s[i] != q && L->s[i] != '\n') i += (L->s[i] == '\\') ? 2 : 1;
    L->i = i < L->n ? i + 1 : L->n;
}

/* C++ raw string R"delim( ... )delim" starting at the quote. */
static bool lex_raw(struct lex *L)
{
    size_t i = L->i + 1, d0 = i;
    while (i < L->n && i - d0 < 16 && L->s[i] != '(' && L->s[i] != '"' && L->s[i] != '\n') i++;
    if (i >= L->n || L->s[i] != '(') return false;
    size_t dl = i - d0;
    for (i++; i + dl + 1 < L->n; i++) {
        if (L->s[i] == ')' && !memcmp(L->s + i + 1, L->s + d0, dl) && L->s[i + 1 + dl] == '"') {
            L->i = i + dl + 2;
            return true;
        }
    }
    L->i = L->n;
    return true;
}

/* Advance past whitespace, comments and preprocessor lines. Returns false at
 * the end of input; otherwise L->i is at a significant character. */
static bool lex_skip(struct lex *L)
{
    while (L->i < L->n) {
        char c = L->s[L->i];
        if (c == '\n') { L->bol = true; L->i++; continue; }
        if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') { L->i++; continue; }
        if (c == '#' && L->bol) { lex_preproc(L); continue; }
        if (c == '/' && L->i + 1 < L->n && L->s[L->i + 1] == '/') {
            while (L->i < L->n && L->s[L->i] != '\n') {
                if (L->s[L->i] == '\\' && L->i + 1 < L->n && L->s[L->i + 1] == '\n') L->i++;
                L->i++;
            }
            continue;
        }
        if (c == '/' && L->i + 1 < L->n && L->s[L->i + 1] == '*') {
            size_t j = L->i + 2;
            while (j + 1 < L->n && !(L->s[j] == '*' && L->s[j + 1] == '/')) j++;
            L->i = j + 2 < L->n ? j + 2 : L->n;
            continue;
        }
        L->bol = false;
        return true;
    }
    return false;
}

/* Consume one significant token at L->i and return its class: the char
 * itself for punctuation, 'i' for identifiers/numbers, 's' for literals.
 * The identifier text goes to tok and toklen. */
static int lex_token(struct lex *L, const char **tok, size_t *toklen)
{
    const char *s = L->s;
    char c = s[L->i];
    if (c == '"') {
        bool raw = L->i > 0 && s[L->i - 1] == 'R' &&
                   (L->i < 2 || !is_ident((unsigned char)s[L->i - 2]) || s[L->i - 2] == 'u' ||
                    s[L->i - 2] == 'U' || s[L->i - 2] == 'L' || s[L->i - 2] == '8');
        if (!(raw && lex_raw(L))) lex_quoted(L, '"');
        return 's';
    }
    if (c == '\'') {
        /* 1'000'000: a digit separator, not a char literal */
        if (L->i > 0 && is_ident((unsigned char)s[L->i - 1])) { L->i++; return 'i'; }
        lex_quoted(L, '\'');
        return 's';
    }
    if (is_ident((unsigned char)c)) {
        size_t j = L->i;
        while (j < L->n && is_ident((unsigned char)s[j])) j++;
        *tok = s + L->i;
        *toklen = j - L->i;
        L->i = j;
        return 'i';
    }
    L->i++;
    return (unsigned char)c;
}

/* ---- 2. body scan ------------------------------------------------------ */

/* L->i is just past a body's `{`. Find its matching `}`; on success L->i is
 * at that `}` and true is returned. Preprocessor state carries over. */
static bool scan_body(struct lex *L)
{
    struct out *cut = L->cut_defines;
    L->cut_defines = NULL; /* inside a body, everything goes anyway */
    bool found = false;
    int depth = 1;
    const char *tok;
    size_t tl;
    while (lex_skip(L)) {
        int t = lex_token(L, &tok, &tl);
        if (!counting(L)) continue;
        if (t == '{') depth++;
        else if (t == '}' && --depth == 0) {
            L->i--;
            found = true;
            break;
        }
    }
    L->cut_defines = cut;
    return found;
}

/* ---- 3. the top-level scan ---------------------------------------------- */

struct out {
    struct mg_outline *o;
    size_t cap_seg, cap_macros;
    size_t from; /* source offset where the current kept run starts */
};

static int add_seg(struct out *w, uint32_t out, uint32_t src)
{
    struct mg_outline *o = w->o;
    if (o->nseg == w->cap_seg) {
        size_t cap = w->cap_seg ? w->cap_seg * 2 : 16;
        struct mg_outline_seg *p = realloc(o->seg, cap * sizeof(*p));
        if (!p) return -1;
        o->seg = p;
        w->cap_seg = cap;
    }
    o->seg[o->nseg++] = (struct mg_outline_seg){out, src};
    return 0;
}

/* Keep src[w->from .. cut) and continue from resume. */
static int keep(struct out *w, const char *src, size_t cut, size_t resume)
{
    struct mg_outline *o = w->o;
    memcpy(o->text + o->len, src + w->from, cut - w->from);
    o->len += cut - w->from;
    w->from = resume;
    return add_seg(w, (uint32_t)o->len, (uint32_t)resume);
}

static int record_macro(struct out *w, size_t start, size_t end, size_t name, size_t nlen)
{
    struct mg_outline *o = w->o;
    if (o->nmacros == w->cap_macros) {
        size_t cap = w->cap_macros ? w->cap_macros * 2 : 64;
        struct mg_outline_macro *m = realloc(o->macros, cap * sizeof(*m));
        if (!m) return -1;
        o->macros = m;
        w->cap_macros = cap;
    }
    o->macros[o->nmacros++] = (struct mg_outline_macro){(uint32_t)start, (uint32_t)end, (uint32_t)name,
                                                        (uint32_t)nlen};
    return 0;
}

static bool word_is(const char *t, size_t n, const char *w)
{
    return strlen(w) == n && memcmp(t, w, n) == 0;
}

/* Identifiers that may sit between a function's `)` and its body. */
static bool is_trailing_qualifier(const char *t, size_t n)
{
    return word_is(t, n, "const") || word_is(t, n, "override") || word_is(t, n, "final") ||
           word_is(t, n, "noexcept") || word_is(t, n, "volatile") || word_is(t, n, "mutable");
}

/* A `(` opened by one of these does not make the following `{` a body. */
static bool is_attribute_word(const char *t, size_t n)
{
    return word_is(t, n, "__attribute__") || word_is(t, n, "__declspec") || word_is(t, n, "alignas") ||
           word_is(t, n, "_Alignas") || word_is(t, n, "__aligned") || word_is(t, n, "__attribute");
}

#define PAREN_MAX 256

int mg_outline_build(const char *src, size_t len, unsigned flags, struct mg_outline *o)
{
    memset(o, 0, sizeof(*o));
    o->text = malloc(len + 1);
    if (!o->text) return -1;
    struct out w = {.o = o};
    if (add_seg(&w, 0, 0) != 0) goto fail;

    bool plain_c = flags & MG_OUTLINE_C;
    struct lex L = {.s = src, .n = len, .bol = true, .cut_defines = (flags & MG_OUTLINE_MACROS) ? &w : NULL};
    bool aggregate = false; /* plain C: struct/union/enum seen in this statement */
    int prev = 0;           /* class of the last significant token that counts */
    bool throws = false;    /* inside a Java `throws A, B` clause */
    bool last_ident_attr = false;
    uint8_t parens[PAREN_MAX]; /* per open paren: 1 = attribute-like */
    int np = 0;
    const char *tok = NULL;
    size_t tl = 0;

    while (lex_skip(&L)) {
        int t = lex_token(&L, &tok, &tl);
        if (!counting(&L)) continue;
        switch (t) {
        case 'i':
            if (plain_c && (word_is(tok, tl, "struct") || word_is(tok, tl, "union") || word_is(tok, tl, "enum")))
                aggregate = true;
            if (is_trailing_qualifier(tok, tl) && prev == ')') break; /* transparent */
            if (word_is(tok, tl, "throws") && prev == ')') { throws = true; break; }
            if (throws) break;
            last_ident_attr = is_attribute_word(tok, tl);
            prev = 'i';
            break;
        case '(':
            /* parens inside an attribute's parens are attribute parens too */
            if (np < PAREN_MAX)
                parens[np] = (last_ident_attr && prev == 'i') || (np > 0 && np <= PAREN_MAX && parens[np - 1]);
            np++;
            last_ident_attr = false;
            prev = '(';
            break;
        case ')': {
            bool attr = np > 0 && np <= PAREN_MAX && parens[np - 1];
            if (np > 0) np--;
            /* a closed attribute is neutral: `{` after it is no body */
            prev = attr ? 'a' : ')';
            break;
        }
        case '{': {
            /* in plain C an aggregate's members are no definitions either */
            bool body = ((prev == ')' || prev == '=') && np == 0) || (aggregate && prev != 'a');
            throws = false;
            aggregate = false;
            if (body) {
                size_t open = L.i; /* just past `{` */
                struct lex save = L;
                if (scan_body(&L)) {
                    if (L.i - open >= MIN_ELIDE && keep(&w, src, open, L.i) != 0) goto fail;
                    L.i++; /* past `}` */
                    prev = '}';
                    break;
                }
                L = save; /* unbalanced: keep everything, scan on */
            }
            prev = '{';
            np = 0;
            break;
        }
        case ',':
        case '.':
        case '<':
        case '>':
        case ':':
            if (throws) break;
            prev = t;
            break;
        case ';':
        case '}':
            aggregate = false;
            throws = false;
            prev = t;
            break;
        default:
            throws = false;
            prev = t;
            break;
        }
        if (L.failed) goto fail;
        if (t != 'i') last_ident_attr = false;
    }
    /* the final kept run */
    memcpy(o->text + o->len, src + w.from, len - w.from);
    o->len += len - w.from;
    o->text[o->len] = 0;
    return 0;
fail:
    mg_outline_release(o);
    return -1;
}

/* ---- 4. offset mapping --------------------------------------------------- */

uint32_t mg_outline_to_src(const struct mg_outline *o, uint32_t off)
{
    if (o->nseg == 0) return off;
    size_t lo = 0, hi = o->nseg; /* last seg with seg.out <= off */
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (o->seg[mid].out <= off) lo = mid;
        else hi = mid;
    }
    return o->seg[lo].src + (off - o->seg[lo].out);
}

uint32_t mg_outline_end_to_src(const struct mg_outline *o, uint32_t end)
{
    return end == 0 ? 0 : mg_outline_to_src(o, end - 1) + 1;
}

void mg_outline_release(struct mg_outline *o)
{
    free(o->text);
    free(o->seg);
    free(o->macros);
    memset(o, 0, sizeof(*o));
}
