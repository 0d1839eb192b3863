/* navimport.c — the files a source file's imports may name (see navimport.h).
 *
 * A line at a time over the file's first MG_NAV_IMPORT_SCAN bytes; each
 * language's reader looks only at the lines that can import, and every name
 * it takes is checked and normalized (normal()) before it becomes a pattern.
 *
 * Sections:
 *   1. paths and words
 *   2. C and C++
 *   3. Python
 *   4. JavaScript and TypeScript
 *   5. Go
 *   6. Java
 *   7. Rust
 *   8. The other languages: Kotlin, Scala, Groovy (as Java), C#, Ruby, PHP,
 *      Lua, Perl, Haskell, Elixir, OCaml, Dart, Emacs Lisp, and the files
 *      named by a quoted path (shell, R, Julia, Zig, Solidity, Makefiles,
 *      PowerShell)
 *   9. the lines
 */
#include "search/navimport.h"

#include <string.h>

/* ---- 1. paths and words ------------------------------------------------------------------------- */

struct emit {
    mg_nav_import_cb cb;
    void *ud;
    size_t n;
    bool stop;
    char dir[MG_NAV_IMPORT_PATH_MAX];  /* the file's directory ("" at the root) */
    char stem[MG_NAV_IMPORT_PATH_MAX]; /* its name without the extension */
    /* Python: the module of a `from M import (` whose names go on past the line; "" and 0: none */
    char py_mod[MG_NAV_IMPORT_PATH_MAX];
    bool py_open, py_rel;
};

static void emit(struct emit *e, enum mg_nav_imp how, const char *p)
{
    if (e->stop) return;
    if (e->n >= MG_NAV_IMPORTS_MAX) {
        e->stop = true;
        return;
    }
    e->n++;
    if (e->cb(e->ud, how, p)) e->stop = true;
}

static bool word_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c >= 0x80;
}

/* base joined with rel (n bytes; '/'-separated), "." and ".." parts resolved,
 * into out. false when it leaves the repo, is empty or too long, or holds a
 * control byte. */
static bool normal(const char *base, const char *rel, size_t n, char *out)
{
    size_t o = 0;
    out[0] = 0;
    for (int pass = 0; pass < 2; pass++) {
        const char *s = pass ? rel : base;
        size_t len = pass ? n : strlen(base);
        for (size_t i = 0; i < len;) {
            size_t j = i;
            while (j < len && s[j] != '/') {
                if ((unsigned char)s[j] < 0x20) return false;
                j++;
            }
            size_t cl = j - i;
            if (cl == 2 && s[i] == '.' && s[i + 1] == '.') {
                if (o == 0) return false;
                while (o > 0 && out[o - 1] != '/') o--;
                if (o > 0) o--; /* the slash */
                out[o] = 0;
            } else if (cl && !(cl == 1 && s[i] == '.')) {
                if (o + (o ? 1 : 0) + cl + 1 > MG_NAV_IMPORT_PATH_MAX) return false;
                if (o) out[o++] = '/';
                memcpy(out + o, s + i, cl);
                o += cl;
                out[o] = 0;
            }
            i = j + 1;
        }
    }
    return o > 0;
}

/* normal(), then the suffix sfx, then emitted as how. */
static void emit_path(struct emit *e, enum mg_nav_imp how, const char *base, const char *rel, size_t n,
                      const char *sfx)
{
    char p[MG_NAV_IMPORT_PATH_MAX];
    if (!normal(base, rel, n, p)) return;
    size_t pl = strlen(p), sl = strlen(sfx);
    if (pl + sl + 1 > sizeof(p)) return;
    memcpy(p + pl, sfx, sl + 1);
    emit(e, how, p);
}

static const char *skip_ws(const char *s, const char *end)
{
    while (s < end && (*s == ' ' || *s == '\t' || *s == '\r')) s++;
    return s;
}

/* s starts with the word w (not followed by a word character): past it, or NULL. */
static const char *word(const char *s, const char *end, const char *w)
{
    size_t wl = strlen(w);
    if ((size_t)(end - s) < wl || memcmp(s, w, wl) != 0) return NULL;
    if (s + wl < end && word_char((unsigned char)s[wl])) return NULL;
    return s + wl;
}

/* A dotted name (a.b.c, at most 64 parts) at s into out with '/' for '.':
 * its end, or NULL when there is none. */
static const char *dotted(const char *s, const char *end, char *out, size_t *olen)
{
    size_t o = 0;
    int parts = 0;
    while (s < end && word_char((unsigned char)*s)) {
        const char *w = s;
        while (s < end && word_char((unsigned char)*s)) s++;
        if (o + (size_t)(s - w) + 2 > MG_NAV_IMPORT_PATH_MAX || ++parts > 64) return NULL;
        if (o) out[o++] = '/';
        memcpy(out + o, w, (size_t)(s - w));
        o += (size_t)(s - w);
        if (s + 1 < end && *s == '.' && word_char((unsigned char)s[1])) s++;
        else break;
    }
    out[o] = 0;
    *olen = o;
    return o ? s : NULL;
}

/* ---- 2. C and C++ ------------------------------------------------------------------------------- */

static void c_line(struct emit *e, const char *s, const char *end)
{
    if (s >= end || *s != '#') return;
    s = skip_ws(s + 1, end);
    const char *w = word(s, end, "include");
    if (!w) w = word(s, end, "import");
    if (!w) w = word(s, end, "include_next");
    if (!w) return;
    s = skip_ws(w, end);
    if (s >= end || (*s != '"' && *s != '<')) return;
    char close = *s == '"' ? '"' : '>';
    const char *n = ++s;
    while (s < end && *s != close) s++;
    if (s >= end || s == n) return;
    size_t len = (size_t)(s - n);
    if ((len >= 2 && memcmp(n, "./", 2) == 0) || (len >= 3 && memcmp(n, "../", 3) == 0))
        emit_path(e, MG_NAV_IMP_EXACT, e->dir, n, len, "");
    else
        emit_path(e, MG_NAV_IMP_PATH, "", n, len, "");
}

/* ---- 3. Python ---------------------------------------------------------------------------------- */

/* The path of module m (dotted, mlen bytes, `dots` leading dots) into out:
 * relative to the file when dots > 0. */
static bool py_module(struct emit *e, int dots, const char *m, size_t mlen, char *out)
{
    char base[MG_NAV_IMPORT_PATH_MAX];
    memcpy(base, e->dir, sizeof(base));
    for (int i = 1; i < dots; i++) { /* each dot past the first: the parent */
        char *sl = strrchr(base, '/');
        if (!base[0]) return false;
        if (sl) *sl = 0;
        else base[0] = 0;
    }
    if (dots == 0) return normal("", m, mlen, out);
    if (mlen == 0) {
        if (!base[0]) return false;
        memcpy(out, base, sizeof(base));
        return true;
    }
    return normal(base, m, mlen, out);
}

static void py_emit(struct emit *e, bool rel, const char *mod, const char *name)
{
    enum mg_nav_imp how = rel ? MG_NAV_IMP_EXACT : MG_NAV_IMP_PATH;
    char p[MG_NAV_IMPORT_PATH_MAX];
    size_t ml = strlen(mod), nl = name ? strlen(name) : 0;
    if (ml + nl + 16 > sizeof(p)) return;
    memcpy(p, mod, ml);
    if (name) {
        p[ml] = '/';
        memcpy(p + ml + 1, name, nl);
        memcpy(p + ml + 1 + nl, ".py", 4);
        emit(e, how, p);
        return;
    }
    memcpy(p + ml, ".py", 4);
    emit(e, how, p);
    memcpy(p + ml, "/__init__.py", 13);
    emit(e, how, p);
}

static void py_names(struct emit *e, const char *s, const char *end, bool rel, const char *mod);

/* After an imported name at s: past `as c` and the comma to the next name,
 * or NULL when no comma follows. */
static const char *py_next(const char *s, const char *end)
{
    const char *w;
    s = skip_ws(s, end);
    if ((w = word(s, end, "as"))) {
        s = skip_ws(w, end);
        while (s < end && word_char((unsigned char)*s)) s++;
        s = skip_ws(s, end);
    }
    return s < end && *s == ',' ? skip_ws(s + 1, end) : NULL;
}

static void py_line(struct emit *e, const char *s, const char *end)
{
    if (e->py_open) { /* the names of a `from M import (` go on */
        if (s < end && *s != '#') py_names(e, s, end, e->py_rel, e->py_mod);
        return;
    }
    char m[MG_NAV_IMPORT_PATH_MAX], mod[MG_NAV_IMPORT_PATH_MAX];
    size_t ml;
    const char *w;
    if ((w = word(s, end, "import"))) {
        for (s = skip_ws(w, end); s < end;) { /* a.b [as c], d.e */
            if (!(s = dotted(s, end, m, &ml)) || !normal("", m, ml, mod)) return;
            py_emit(e, false, mod, NULL);
            if (!(s = py_next(s, end))) return;
        }
        return;
    }
    if (!(w = word(s, end, "from"))) return;
    s = skip_ws(w, end);
    int dots = 0;
    while (s < end && *s == '.' && dots < 32) s++, dots++;
    ml = 0;
    m[0] = 0;
    if (s < end && word_char((unsigned char)*s) && !word(s, end, "import") && !(s = dotted(s, end, m, &ml))) return;
    if (!py_module(e, dots, m, ml, mod)) return;
    if (ml) py_emit(e, dots > 0, mod, NULL);
    s = skip_ws(s, end);
    if (!(w = word(s, end, "import"))) return;
    s = skip_ws(w, end);
    if (s < end && *s == '(') {
        memcpy(e->py_mod, mod, sizeof(mod));
        e->py_rel = dots > 0;
        e->py_open = true;
        s = skip_ws(s + 1, end);
    }
    py_names(e, s, end, dots > 0, mod);
}

/* The names of `from M import a, b as c` from s, each of which may be a
 * module of M; a `)` ends an open list. */
static void py_names(struct emit *e, const char *s, const char *end, bool rel, const char *mod)
{
    while (s < end && word_char((unsigned char)*s)) {
        const char *n = s;
        while (s < end && word_char((unsigned char)*s)) s++;
        char name[MG_NAV_IMPORT_PATH_MAX];
        size_t nl = (size_t)(s - n);
        if (nl >= sizeof(name)) return;
        memcpy(name, n, nl);
        name[nl] = 0;
        py_emit(e, rel, mod, name);
        const char *next = py_next(s, end);
        if (!next) {
            s = skip_ws(s, end);
            while (s < end && *s != ')' && *s != '#') s++; /* past `as c` */
            break;
        }
        s = next;
    }
    if (s < end && *s == ')') e->py_open = false;
}

/* ---- 4. JavaScript and TypeScript --------------------------------------------------------------- */

static void js_spec(struct emit *e, const char *n, size_t len)
{
    if (!((len >= 2 && memcmp(n, "./", 2) == 0) || (len >= 3 && memcmp(n, "../", 3) == 0))) return; /* a package */
    static const char *const ext[] = {".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts", NULL};
    for (size_t i = 0; ext[i]; i++) { /* './x.js' is x.ts in TypeScript's ES modules */
        size_t el = strlen(ext[i]);
        if (len > el && memcmp(n + len - el, ext[i], el) == 0) {
            emit_path(e, MG_NAV_IMP_STEM, e->dir, n, len - el, "");
            return;
        }
    }
    emit_path(e, MG_NAV_IMP_STEM, e->dir, n, len, "");
    emit_path(e, MG_NAV_IMP_STEM, e->dir, n, len, "/index");
}

static void js_line(struct emit *e, const char *s, const char *end)
{
    for (const char *p = s; p < end; p++) {
        if (p > s && word_char((unsigned char)p[-1])) continue;
        const char *w = word(p, end, "from");
        if (!w) w = word(p, end, "import");
        if (!w) w = word(p, end, "require");
        if (!w) continue;
        const char *q = skip_ws(w, end);
        if (q < end && *q == '(') q = skip_ws(q + 1, end);
        if (q >= end || (*q != '\'' && *q != '"' && *q != '`')) continue;
        char c = *q;
        const char *n = ++q;
        while (q < end && *q != c) q++;
        if (q >= end) return;
        js_spec(e, n, (size_t)(q - n));
        p = q;
    }
}

/* ---- 5. Go -------------------------------------------------------------------------------------- */

static void go_spec(struct emit *e, const char *s, const char *end)
{
    if (s < end && (word_char((unsigned char)*s) || *s == '.')) { /* an alias: name, _ or . */
        while (s < end && (word_char((unsigned char)*s) || *s == '.')) s++;
        s = skip_ws(s, end);
    }
    if (s >= end || (*s != '"' && *s != '`')) return;
    char c = *s;
    const char *n = ++s;
    while (s < end && *s != c) s++;
    if (s >= end || s == n) return;
    emit_path(e, MG_NAV_IMP_DIR_IN, "", n, (size_t)(s - n), "");
}

/* ---- 6. Java ------------------------------------------------------------------------------------ */

static void java_line(struct emit *e, const char *s, const char *end, const char *ext)
{
    const char *w = word(s, end, "import");
    if (!w) return;
    s = skip_ws(w, end);
    bool stat = false;
    if ((w = word(s, end, "static"))) {
        stat = true;
        s = skip_ws(w, end);
    }
    char m[MG_NAV_IMPORT_PATH_MAX], p[MG_NAV_IMPORT_PATH_MAX];
    size_t ml;
    if (!(s = dotted(s, end, m, &ml))) return;
    /* a.b.* (Scala: a.b._, a.b.{C, D}) names the package */
    bool star = s + 1 < end && s[0] == '.' && (s[1] == '*' || s[1] == '{');
    if (ml > 2 && memcmp(m + ml - 2, "/_", 2) == 0) m[ml -= 2] = 0, star = true;
    if (stat && !star) { /* import static a.b.C.m: the class a/b/C */
        char *sl = strrchr(m, '/');
        if (!sl) return;
        *sl = 0;
    }
    if (!normal("", m, strlen(m), p)) return;
    if (star && !stat) {
        emit(e, MG_NAV_IMP_DIR_END, p);
        return;
    }
    size_t pl = strlen(p), el = strlen(ext);
    if (pl + el + 1 > sizeof(p)) return;
    memcpy(p + pl, ext, el + 1);
    emit(e, MG_NAV_IMP_PATH, p);
}

/* ---- 7. Rust ------------------------------------------------------------------------------------ */

static void rust_line(struct emit *e, const char *s, const char *end)
{
    const char *w = word(s, end, "pub");
    if (w) {
        s = skip_ws(w, end);
        if (s < end && *s == '(') { /* pub(crate) */
            while (s < end && *s != ')') s++;
            s = skip_ws(s + 1 < end ? s + 1 : end, end);
        }
    }
    char m[MG_NAV_IMPORT_PATH_MAX];
    if ((w = word(s, end, "mod"))) { /* mod x; (not mod x { ... }) */
        s = skip_ws(w, end);
        const char *n = s;
        while (s < end && word_char((unsigned char)*s)) s++;
        size_t nl = (size_t)(s - n);
        if (!nl || nl + 1 > sizeof(m) || (s = skip_ws(s, end)) >= end || *s != ';') return;
        bool own = strcmp(e->stem, "mod") == 0 || strcmp(e->stem, "lib") == 0 || strcmp(e->stem, "main") == 0;
        char base[MG_NAV_IMPORT_PATH_MAX];
        if (own) memcpy(base, e->dir, sizeof(base));
        else if (!normal(e->dir, e->stem, strlen(e->stem), base)) return;
        memcpy(m, n, nl);
        m[nl] = 0;
        emit_path(e, MG_NAV_IMP_EXACT, base, m, nl, ".rs");
        emit_path(e, MG_NAV_IMP_EXACT, base, m, nl, "/mod.rs");
        return;
    }
    if (!(w = word(s, end, "use"))) return;
    s = skip_ws(w, end);
    if (!(w = word(s, end, "crate")) || w + 2 > end || w[0] != ':' || w[1] != ':') return;
    s = w + 2;
    size_t o = 0;
    for (int parts = 0; s < end && word_char((unsigned char)*s) && parts < 8; parts++) { /* a, a/b, ... */
        const char *n = s;
        while (s < end && word_char((unsigned char)*s)) s++;
        size_t nl = (size_t)(s - n);
        if (o + nl + 2 > sizeof(m)) return;
        if (o) m[o++] = '/';
        memcpy(m + o, n, nl);
        o += nl;
        emit_path(e, MG_NAV_IMP_PATH, "", m, o, ".rs");
        emit_path(e, MG_NAV_IMP_PATH, "", m, o, "/mod.rs");
        if (s + 2 < end && s[0] == ':' && s[1] == ':') s += 2;
        else break;
    }
}


/* ---- 8. The other languages --------------------------------------------------------------------- */

/* A quoted string at s (after blanks and an opening parenthesis): its
 * contents, or NULL. */
static const char *quoted(const char *s, const char *end, size_t *n)
{
    s = skip_ws(s, end);
    if (s < end && *s == '(') s = skip_ws(s + 1, end);
    if (s >= end || (*s != '"' && *s != '\'')) return NULL;
    char q = *s;
    const char *b = ++s;
    while (s < end && *s != q) s++;
    if (s >= end || s == b) return NULL;
    *n = (size_t)(s - b);
    return b;
}

/* A path as written next to the file: relative to its directory (or to the
 * root when it starts with '/'), with ext added when it has no extension. */
static void rel_path(struct emit *e, const char *n, size_t len, const char *ext)
{
    const char *sl = memrchr(n, '/', len), *base = sl ? sl + 1 : n;
    bool has_ext = memchr(base, '.', len - (size_t)(base - n)) != NULL;
    if (len && *n == '/') emit_path(e, MG_NAV_IMP_PATH, "", n + 1, len - 1, has_ext ? "" : ext);
    else emit_path(e, MG_NAV_IMP_EXACT, e->dir, n, len, has_ext ? "" : ext);
}

/* A module name with separator sep ("::", "\\", ".") as a path with ext:
 * A::B -> A/B.pm; snake: Elixir's Foo.BarBaz -> foo/bar_baz.ex. */
static void module_path(struct emit *e, const char *s, const char *end, const char *sep, bool snake, const char *ext)
{
    char m[MG_NAV_IMPORT_PATH_MAX];
    size_t o = 0, sl = strlen(sep);
    while (s < end && o + 4 < sizeof(m)) {
        if ((size_t)(end - s) >= sl && memcmp(s, sep, sl) == 0 && s + sl < end && word_char((unsigned char)s[sl])) {
            m[o++] = '/';
            s += sl;
            continue;
        }
        if (!word_char((unsigned char)*s)) break;
        char c = *s++;
        if (snake && c >= 'A' && c <= 'Z') {
            if (o && m[o - 1] != '/') m[o++] = '_';
            c = (char)(c - 'A' + 'a');
        }
        m[o++] = c;
    }
    if (o) emit_path(e, MG_NAV_IMP_PATH, "", m, o, ext);
}

/* `word` at s, then blanks: past them, or NULL. */
static const char *keyword(const char *s, const char *end, const char *w)
{
    const char *p = word(s, end, w);
    return p ? skip_ws(p, end) : NULL;
}

/* The first occurrence of the call `fn(` or `fn "` in the line (Lua's
 * require, Zig's @import, Julia's include, R's source): its argument. */
static const char *call_arg(const char *s, const char *end, const char *fn, size_t *n)
{
    size_t fl = strlen(fn);
    for (const char *p = s; p + fl < end; p++) {
        if (memcmp(p, fn, fl) != 0 || (p > s && word_char((unsigned char)p[-1])) || word_char((unsigned char)p[fl]))
            continue;
        const char *q = quoted(p + fl, end, n);
        if (q) return q;
    }
    return NULL;
}

enum kind { K_NONE, K_C, K_PY, K_JS, K_GO, K_JAVA, K_RUST, K_KOTLIN, K_SCALA, K_GROOVY, K_CSHARP, K_RUBY, K_PHP,
            K_LUA, K_PERL, K_HASKELL, K_ELIXIR, K_OCAML, K_DART, K_ELISP, K_SHELL, K_R, K_JULIA, K_ZIG, K_SOLIDITY,
            K_MAKE, K_POWERSHELL };

static void other_line(struct emit *e, enum kind k, const char *s, const char *end)
{
    const char *q, *w;
    size_t n;
    switch (k) {
    case K_CSHARP: /* using A.B; (not using var, using (...), using static) */
        if ((w = keyword(s, end, "using")) && !word(w, end, "var") && !word(w, end, "static")) {
            char m[MG_NAV_IMPORT_PATH_MAX], p[MG_NAV_IMPORT_PATH_MAX];
            size_t ml;
            const char *t = dotted(w, end, m, &ml);
            if (t && (t = skip_ws(t, end)) < end && *t == ';' && normal("", m, ml, p)) emit(e, MG_NAV_IMP_DIR_END, p);
        }
        break;
    case K_RUBY:
        if ((w = keyword(s, end, "require_relative")) && (q = quoted(w, end, &n))) rel_path(e, q, n, ".rb");
        else if ((w = keyword(s, end, "require")) && (q = quoted(w, end, &n))) emit_path(e, MG_NAV_IMP_PATH, "", q, n, ".rb");
        break;
    case K_PHP:
        if ((w = keyword(s, end, "use")) && w < end && word_char((unsigned char)*w)) {
            if (*w == '\\') w++;
            module_path(e, w, end, "\\", false, ".php");
        } else if (((w = keyword(s, end, "require")) || (w = keyword(s, end, "require_once")) ||
                    (w = keyword(s, end, "include")) || (w = keyword(s, end, "include_once"))) &&
                   (q = quoted(w, end, &n)))
            rel_path(e, q, n, ".php");
        break;
    case K_LUA:
        if ((q = call_arg(s, end, "require", &n))) {
            char m[MG_NAV_IMPORT_PATH_MAX];
            if (n >= sizeof(m)) break;
            for (size_t i = 0; i < n; i++) m[i] = q[i] == '.' ? '/' : q[i];
            emit_path(e, MG_NAV_IMP_PATH, "", m, n, ".lua");
            emit_path(e, MG_NAV_IMP_PATH, "", m, n, "/init.lua");
        }
        break;
    case K_PERL:
        if ((w = keyword(s, end, "use")) || (w = keyword(s, end, "require"))) {
            if (w < end && *w >= 'A' && *w <= 'Z') module_path(e, w, end, "::", false, ".pm");
        }
        break;
    case K_HASKELL:
        if ((w = keyword(s, end, "import"))) {
            const char *t = keyword(w, end, "qualified");
            module_path(e, t ? t : w, end, ".", false, ".hs");
        }
        break;
    case K_ELIXIR:
        if ((w = keyword(s, end, "alias")) || (w = keyword(s, end, "import")) || (w = keyword(s, end, "use")) ||
            (w = keyword(s, end, "require")))
            if (w < end && *w >= 'A' && *w <= 'Z') module_path(e, w, end, ".", true, ".ex");
        break;
    case K_OCAML: /* open M: m.ml */
        if ((w = keyword(s, end, "open")) && w < end && *w >= 'A' && *w <= 'Z') {
            char m[MG_NAV_IMPORT_PATH_MAX];
            size_t o = 0;
            while (w < end && word_char((unsigned char)*w) && o + 4 < sizeof(m)) m[o++] = *w++;
            m[0] = (char)(m[0] - 'A' + 'a');
            emit_path(e, MG_NAV_IMP_PATH, "", m, o, ".ml");
        }
        break;
    case K_DART:
        if (((w = keyword(s, end, "import")) || (w = keyword(s, end, "export")) || (w = keyword(s, end, "part"))) &&
            (q = quoted(w, end, &n))) {
            if (n > 8 && memcmp(q, "package:", 8) == 0) {
                const char *sl = memchr(q, '/', n);
                if (sl) emit_path(e, MG_NAV_IMP_PATH, "", sl + 1, n - (size_t)(sl + 1 - q), "");
            } else if (!memchr(q, ':', n)) {
                rel_path(e, q, n, ".dart");
            }
        }
        break;
    case K_ELISP: /* (require 'x) */
        if ((w = keyword(s, end, "(require")) && w < end && *w == '\'') {
            const char *b = ++w;
            while (w < end && *w != ')' && *w != ' ') w++;
            if (w > b) emit_path(e, MG_NAV_IMP_PATH, "", b, (size_t)(w - b), ".el");
        }
        break;
    case K_SHELL: /* source x, . x (not one through a variable) */
        if (!(w = keyword(s, end, "source")) && s + 1 < end && s[0] == '.' && s[1] == ' ') w = skip_ws(s + 1, end);
        if (w) {
            if (!(q = quoted(w, end, &n))) {
                q = w;
                while (w < end && *w != ' ' && *w != ';') w++;
                n = (size_t)(w - q);
            }
            if (n && !memchr(q, '$', n)) rel_path(e, q, n, "");
        }
        break;
    case K_R:
        if ((q = call_arg(s, end, "source", &n))) rel_path(e, q, n, ".R");
        break;
    case K_JULIA:
        if ((q = call_arg(s, end, "include", &n))) rel_path(e, q, n, ".jl");
        break;
    case K_ZIG:
        if ((q = call_arg(s, end, "@import", &n)) && n > 4 && memcmp(q + n - 4, ".zig", 4) == 0) rel_path(e, q, n, "");
        break;
    case K_SOLIDITY:
        if ((w = keyword(s, end, "import"))) {
            const char *f = w;
            while (f < end && *f != '"' && *f != '\'') f++;
            if ((q = quoted(f, end, &n)) && (*q == '.' || *q == '/')) rel_path(e, q, n, "");
        }
        break;
    case K_MAKE:
        if ((w = keyword(s, end, "include")) || (w = keyword(s, end, "-include"))) {
            while (w < end && !e->stop) {
                const char *b = w;
                while (w < end && *w != ' ' && *w != '\t') w++;
                if (w > b && !memchr(b, '$', (size_t)(w - b)) && !memchr(b, '%', (size_t)(w - b)))
                    rel_path(e, b, (size_t)(w - b), "");
                w = skip_ws(w, end);
            }
        }
        break;
    case K_POWERSHELL: /* . ./x.ps1, Import-Module ./x.psm1 */
        if ((w = keyword(s, end, "Import-Module")) ||
            (s + 2 < end && s[0] == '.' && s[1] == ' ' && (w = skip_ws(s + 1, end)))) {
            if (w + 2 <= end && (w[0] == '.' || w[0] == '$')) {
                if (w[0] == '$') { /* $PSScriptRoot/x.ps1 */
                    while (w < end && *w != '/' && *w != '\\') w++;
                    if (w < end) w++;
                }
                const char *b = w;
                while (w < end && *w != ' ' && *w != '"' && *w != '\'') w++;
                char m[MG_NAV_IMPORT_PATH_MAX];
                size_t o = 0;
                for (const char *c = b; c < w && o + 1 < sizeof(m); c++) m[o++] = *c == '\\' ? '/' : *c;
                if (o) rel_path(e, m, o, ".ps1");
            }
        }
        break;
    default: break;
    }
}

/* ---- 9. the lines ------------------------------------------------------------------------------- */

static enum kind kind_of(const char *lang)
{
    static const struct { const char *lang; enum kind k; } t[] = {
        {"c", K_C},           {"cpp", K_C},       {"objc", K_C},         {"python", K_PY}, {"javascript", K_JS},
        {"typescript", K_JS}, {"go", K_GO},       {"java", K_JAVA},      {"rust", K_RUST},
        {"kotlin", K_KOTLIN}, {"scala", K_SCALA}, {"groovy", K_GROOVY},  {"csharp", K_CSHARP},
        {"ruby", K_RUBY},     {"php", K_PHP},     {"lua", K_LUA},        {"perl", K_PERL},
        {"haskell", K_HASKELL}, {"elixir", K_ELIXIR}, {"ocaml", K_OCAML}, {"dart", K_DART},
        {"elisp", K_ELISP},   {"shell", K_SHELL}, {"r", K_R},            {"julia", K_JULIA},
        {"zig", K_ZIG},       {"solidity", K_SOLIDITY}, {"make", K_MAKE}, {"powershell", K_POWERSHELL},
    };
    for (size_t i = 0; lang && i < sizeof(t) / sizeof(t[0]); i++)
        if (strcmp(lang, t[i].lang) == 0) return t[i].k;
    return K_NONE;
}

bool mg_nav_imports(const char *lang, const char *path, const char *text, size_t len, mg_nav_import_cb cb, void *ud)
{
    enum kind k = kind_of(lang);
    if (k == K_NONE || !path) return false;
    struct emit e = {.cb = cb, .ud = ud};
    const char *sl = strrchr(path, '/');
    const char *base = sl ? sl + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t dl = sl ? (size_t)(sl - path) : 0, bl = dot && dot > base ? (size_t)(dot - base) : strlen(base);
    if (dl >= sizeof(e.dir) || bl >= sizeof(e.stem)) return true;
    memcpy(e.dir, path, dl);
    e.dir[dl] = 0;
    memcpy(e.stem, base, bl);
    e.stem[bl] = 0;
    if (k == K_C && bl) { /* a.c with a.h */
        char p[MG_NAV_IMPORT_PATH_MAX];
        if (normal(e.dir, e.stem, bl, p)) emit(&e, MG_NAV_IMP_STEM, p);
    }
    if (k == K_GO || k == K_JAVA || k == K_KOTLIN || k == K_SCALA || k == K_GROOVY)
        emit(&e, MG_NAV_IMP_DIR, e.dir); /* the package */
    if (len > MG_NAV_IMPORT_SCAN) len = MG_NAV_IMPORT_SCAN;
    bool go_block = false;
    for (size_t i = 0; i < len && !e.stop;) {
        const char *s = text + i, *nl = memchr(s, '\n', len - i);
        const char *end = nl ? nl : text + len;
        i = (size_t)(end - text) + 1;
        s = skip_ws(s, end);
        switch (k) {
        case K_C: c_line(&e, s, end); break;
        case K_PY: py_line(&e, s, end); break;
        case K_JS: js_line(&e, s, end); break;
        case K_JAVA: java_line(&e, s, end, ".java"); break;
        case K_KOTLIN: java_line(&e, s, end, ".kt"); break;
        case K_SCALA: java_line(&e, s, end, ".scala"); break;
        case K_GROOVY: java_line(&e, s, end, ".groovy"); break;
        case K_RUST: rust_line(&e, s, end); break;
        case K_GO:
            if (go_block) {
                if (s < end && *s == ')') go_block = false;
                else go_spec(&e, s, end);
            } else if ((s = word(s, end, "import"))) {
                s = skip_ws(s, end);
                if (s < end && *s == '(') go_block = true;
                else go_spec(&e, s, end);
            }
            break;
        case K_NONE: break;
        default: other_line(&e, k, s, end); break;
        }
    }
    return true;
}

bool mg_nav_import_matches(enum mg_nav_imp how, const char *p, const char *path)
{
    size_t pl = strlen(p), n = strlen(path);
    const char *sl = strrchr(path, '/');
    size_t dl = sl ? (size_t)(sl - path) : 0;
    switch (how) {
    case MG_NAV_IMP_PATH:
        return pl && ((n == pl && memcmp(path, p, pl) == 0) ||
                      (n > pl && path[n - pl - 1] == '/' && memcmp(path + n - pl, p, pl) == 0));
    case MG_NAV_IMP_EXACT: return strcmp(p, path) == 0;
    case MG_NAV_IMP_STEM: {
        const char *dot = strrchr(sl ? sl + 1 : path, '.');
        return dot && dot != (sl ? sl + 1 : path) && (size_t)(dot - path) == pl && memcmp(path, p, pl) == 0;
    }
    case MG_NAV_IMP_DIR: return dl == pl && memcmp(path, p, pl) == 0;
    case MG_NAV_IMP_DIR_END:
        return pl && ((dl == pl && memcmp(path, p, pl) == 0) ||
                      (dl > pl && path[dl - pl - 1] == '/' && memcmp(path + dl - pl, p, pl) == 0));
    case MG_NAV_IMP_DIR_IN:
        return dl && ((pl == dl && memcmp(p, path, dl) == 0) ||
                      (pl > dl && p[pl - dl - 1] == '/' && memcmp(p + pl - dl, path, dl) == 0));
    }
    return false;
}
