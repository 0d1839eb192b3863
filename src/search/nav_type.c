/* nav_type.c — the declared type of a method call's receiver (nav_int.h):
 * `a.Close()` with `a` declared of type A calls A's Close, not the first
 * Close of the file.
 *
 * The receiver is the identifier before `.`, `->` or `::`-less member
 * access. `self` and `this` are the enclosing method's container (Python,
 * Rust, Java, C#, Kotlin, TypeScript, C++). Any other name is looked up in
 * the calling function's text before the call, first declaration wins:
 * `a := T{...}`, `a := &T{`, `a = new T(`, `a = T(` (Python, Kotlin) and
 * `let a = T::new(` (Rust); Python's literals `a = {…}`, `[…]`, `"…"`
 * (dict, list, str); `a: T` (TypeScript, Kotlin, Rust, Python
 * annotations); `a T` / `a *T` in Go (parameters, receivers, `var`); `T a`
 * (C++, Java, C#). A qualified type (`pkg.T`, `&mut T`) names its last part.
 * Python's `self.a` takes the type a declaration of `self.a` in its class's
 * methods gives it.
 *
 * Sections:
 *   1. text helpers
 *   2. the receiver's type
 */
#include "search/nav_int.h"

#include <string.h>

#include "index/lex.h"

/* ---- 1. text helpers --------------------------------------------------------------------------------- */

static bool idc(char c) { return mg_lex_id_char((unsigned char)c); }

static size_t sp(const char *t, size_t n, size_t i)
{
    while (i < n && (t[i] == ' ' || t[i] == '\t')) i++;
    return i;
}

/* The identifier at t[i] (not starting with a digit): its length, or 0. */
static size_t ident(const char *t, size_t n, size_t i)
{
    if (i >= n || !idc(t[i]) || (t[i] >= '0' && t[i] <= '9')) return 0;
    size_t e = i;
    while (e < n && idc(t[e])) e++;
    return e - i;
}

/* Where the first part of a type qualified by `.` (`bytes.Buffer`,
 * `pathlib.Path`) is: its offset and length; len 0 when unqualified. */
struct qual {
    size_t off, len;
};

/* A type at t[i]: `&`, `*`, `mut`, `new` and Python's `Optional[`,
 * `Final[`, `ClassVar[` skipped, the last part of a qualified name
 * (`a.b.T`, `a::T`) copied out, the first part of a `.` one in *q; the
 * offset past it, or 0. */
static size_t type_at(const char *t, size_t n, size_t i, char *out, size_t cap, struct qual *q)
{
    for (;;) {
        i = sp(t, n, i);
        if (i < n && (t[i] == '&' || t[i] == '*')) {
            i++;
            continue;
        }
        size_t l = ident(t, n, i);
        if ((l == 3 && memcmp(t + i, "mut", 3) == 0) || (l == 3 && memcmp(t + i, "new", 3) == 0)) {
            i += l;
            continue;
        }
        /* Python's `Optional[T]`, `Final[T]`, `ClassVar[T]` (`typing.` before them too): T */
        size_t k = i;
        if (l == 6 && memcmp(t + i, "typing", 6) == 0 && i + 7 < n && t[i + 6] == '.') l = ident(t, n, k = i + 7);
        if (k + l < n && t[k + l] == '[' &&
            ((l == 8 && memcmp(t + k, "Optional", 8) == 0) || (l == 5 && memcmp(t + k, "Final", 5) == 0) ||
             (l == 8 && memcmp(t + k, "ClassVar", 8) == 0))) {
            i = k + l + 1;
            continue;
        }
        break;
    }
    size_t l = ident(t, n, i);
    if (!l) return 0;
    *q = (struct qual){0, 0};
    for (;;) { /* the last part of a qualified name */
        size_t e = i + l;
        if (e + 1 < n && t[e] == '.' && ident(t, n, e + 1)) {
            if (!q->len) *q = (struct qual){i, l};
            i = e + 1;
        } else if (e + 2 < n && t[e] == ':' && t[e + 1] == ':' && ident(t, n, e + 2) &&
                 !(e + 2 + ident(t, n, e + 2) < n && t[e + 2 + ident(t, n, e + 2)] == '('))
            i = e + 2;
        else break;
        l = ident(t, n, i);
    }
    if (l >= cap) return 0;
    memcpy(out, t + i, l);
    out[l] = 0;
    return i + l;
}

static bool lang_in(const char *lang, const char *words)
{
    return mg__nav_in_words(words, lang, strlen(lang));
}

/* ---- 2. the receiver's type -------------------------------------------------------------------------- */

/* One occurrence of the receiver at t[at, at + rl) in the function's text
 * t[lo, end): the type it declares, or false. */
static bool declares(const char *lang, const char *t, size_t lo, size_t end, size_t at, size_t rl, char *out,
                     size_t cap, struct qual *q)
{
    *q = (struct qual){0, 0};
    size_t a = sp(t, end, at + rl);
    /* a := T{ / a = new T( / a = T( / let a = T::new( */
    if (a < end && (t[a] == '=' || (t[a] == ':' && a + 1 < end && t[a + 1] == '=')) && !(t[a] == '=' && t[a + 1] == '=')) {
        size_t b = a + (t[a] == ':' ? 2 : 1);
        size_t lit = sp(t, end, b); /* Python: a = {…}, […], "…": a dict, a list, a str */
        const char *lt = lit >= end || strcmp(lang, "python") != 0 ? NULL
                         : t[lit] == '{' ? "dict" : t[lit] == '[' ? "list"
                         : t[lit] == '"' || t[lit] == '\'' ? "str" : NULL;
        if (lt && strlen(lt) < cap) {
            strcpy(out, lt);
            return true;
        }
        size_t e = type_at(t, end, b, out, cap, q);
        if (!e) return false;
        e = sp(t, end, e);
        /* pkg.F( is a call in Go (bufio.NewWriter), and a function's result in Python unless a class's
         * name (pathlib.Path( but copy.copy(): what it returns is not the module's) */
        if (e < end && t[e] == '(' && (strcmp(lang, "go") == 0 || !(out[0] >= 'A' && out[0] <= 'Z')))
            *q = (struct qual){0, 0};
        if (e < end && (t[e] == '{' || t[e] == '(')) return true;
        if (e + 1 < end && t[e] == ':' && t[e + 1] == ':') return true; /* T::new( */
        return false;
    }
    /* a: T */
    if (a < end && t[a] == ':' && !(a + 1 < end && t[a + 1] == ':'))
        return type_at(t, end, a + 1, out, cap, q) != 0;
    /* Go: a T, a *T (a parameter, a receiver, var a T) */
    if (strcmp(lang, "go") == 0) {
        size_t b = at;
        while (b > lo && (t[b - 1] == ' ' || t[b - 1] == '\t')) b--;
        if (b > lo && !(t[b - 1] == '(' || t[b - 1] == ',' || t[b - 1] == '\n' ||
                        (b >= lo + 3 && memcmp(t + b - 3, "var", 3) == 0 && (b == lo + 3 || !idc(t[b - 4])))))
            return false;
        return a < end && (t[a] == '*' || idc(t[a])) && type_at(t, end, a, out, cap, q) != 0;
    }
    /* C++, Java, C#: T a */
    if (lang_in(lang, " cpp c java csharp objc ") && a < end &&
        (t[a] == ';' || t[a] == ',' || t[a] == ')' || t[a] == '=' || t[a] == '{')) {
        size_t j = at;
        while (j > lo && (t[j - 1] == ' ' || t[j - 1] == '\t' || t[j - 1] == '*' || t[j - 1] == '&')) j--;
        if (j > lo && t[j - 1] == '>') return false; /* a template argument list: skip */
        size_t te = j;
        while (j > lo && idc(t[j - 1])) j--;
        if (te == j || te - j >= cap || (te - j == 6 && memcmp(t + j, "return", 6) == 0)) return false;
        memcpy(out, t + j, te - j);
        out[te - j] = 0;
        return true;
    }
    return false;
}

/* The type a declaration of name (nl bytes) in fn's text before offset
 * `before` gives it (a local, a parameter), first wins. */
static bool local_decl(const struct file *fl, const struct mg_nav_def *fn, const char *name, size_t nl, size_t before,
                       char *out, size_t cap, struct qual *q)
{
    const char *t = fl->text;
    size_t lo = mg__nav_line_start(fl, fn->start_line);
    for (const char *p = t + lo; p < t + before && (p = memmem(p, (size_t)(t + before - p), name, nl)); p += nl) {
        size_t at = (size_t)(p - t);
        if ((at > lo && idc(t[at - 1])) || (at + nl < fl->len && idc(t[at + nl]))) continue;
        if (declares(fl->lang, t, lo, before, at, nl, out, cap, q)) return true;
    }
    return false;
}

/* Whether name (nl bytes) is declared or assigned once in fn's text before
 * `before` (`x: T = …` or `x = …`, not a second `x = …` that may give it
 * another type). */
static bool bound_once(const struct file *fl, const struct mg_nav_def *fn, const char *name, size_t nl, size_t before)
{
    const char *t = fl->text;
    size_t lo = mg__nav_line_start(fl, fn->start_line);
    int n = 0;
    for (const char *p = t + lo; p < t + before && (p = memmem(p, (size_t)(t + before - p), name, nl)); p += nl) {
        size_t at = (size_t)(p - t), a = sp(t, before, at + nl);
        if ((at > lo && (idc(t[at - 1]) || t[at - 1] == '.')) || (at + nl < fl->len && idc(t[at + nl])) || a >= before)
            continue;
        n += (t[a] == '=' && a + 1 < before && t[a + 1] != '=') || (t[a] == ':' && a + 1 < before && t[a + 1] != '=');
    }
    return n == 1;
}

/* Python's `self.a` in class cls: the type a declaration of `self.a` in
 * cls's methods gives it (`self.a = T(…)`, `self.a: T`, a literal, `self.a
 * = x` with x bound once in the method: a parameter's annotation), first
 * wins, else one of `a` in the class's own body (`a: T`, a dataclass's
 * field). */
static bool class_attr(const struct file *fl, const struct mg_nav_def *cls, const char *a, size_t al, char *out,
                       size_t cap, struct qual *q)
{
    const char *t = fl->text;
    size_t lo = mg__nav_line_start(fl, cls->start_line), hi;
    int l = cls->start_line;
    for (hi = lo; hi < fl->len && l <= cls->end_line; hi++)
        if (t[hi] == '\n') l++;
    for (const char *p = t + lo; p + 5 + al <= t + hi && (p = memmem(p, (size_t)(t + hi - p), "self.", 5)); p += 5) {
        size_t at = (size_t)(p - t) + 5;
        if ((p > t && idc(p[-1])) || at + al > hi || memcmp(t + at, a, al) != 0 || (at + al < hi && idc(t[at + al])))
            continue;
        if (declares(fl->lang, t, lo, hi, at, al, out, cap, q)) return true;
        /* self.a = x: x's declaration in the method (a parameter's annotation) */
        size_t x = sp(t, hi, at + al), xl;
        if (x < hi && t[x] == '=' && x + 1 < hi && t[x + 1] != '=' && (xl = ident(t, hi, x = sp(t, hi, x + 1))) &&
            sp(t, hi, x + xl) < hi && (t[sp(t, hi, x + xl)] == '\n' || t[sp(t, hi, x + xl)] == '#')) {
            int line = cls->start_line;
            for (size_t k = lo; k < at; k++) line += t[k] == '\n';
            const struct mg_nav_def *m = mg__nav_enclosing(fl, line, true);
            if (m && m->start_line >= cls->start_line && bound_once(fl, m, t + x, xl, at) &&
                local_decl(fl, m, t + x, xl, at, out, cap, q))
                return true;
        }
    }
    /* the class body's own `a: T` or `a = T(…)` (a dataclass's fields, class attributes) */
    l = cls->start_line;
    for (size_t i = lo; i < hi; l++) {
        size_t s = sp(t, hi, i);
        const char *nl = memchr(t + i, '\n', hi - i);
        size_t e = nl ? (size_t)(nl - t) : hi;
        if (l > cls->start_line && s + al < e && memcmp(t + s, a, al) == 0 && !idc(t[s + al])) {
            const struct mg_nav_def *f = mg__nav_enclosing(fl, l, true);
            if ((!f || f->start_line < cls->start_line) && declares(fl->lang, t, lo, hi, s, al, out, cap, q))
                return true;
        }
        i = e + 1;
    }
    return false;
}


/* `self.a` in method fn: class_attr of fn's class. */
static bool self_attr(const struct file *fl, const struct mg_nav_def *fn, const char *a, size_t al, char *out,
                      size_t cap, struct qual *q)
{
    const struct mg_nav_def *cls = mg__nav_py_class_of(fl, fn);
    return cls && class_attr(fl, cls, a, al, out, cap, q);
}

/* nav_int.h */
const struct mg_nav_def *mg__nav_py_class_of(const struct file *fl, const struct mg_nav_def *fn)
{
    const struct mg_nav_def *cls = NULL;
    for (size_t i = 0; i < fl->ndefs && fn->container; i++) {
        const struct mg_nav_def *d = &fl->defs[i];
        if (d->kind && strcmp(d->kind, "class") == 0 && strcmp(d->name, fn->container) == 0 &&
            d->start_line <= fn->start_line && d->end_line >= fn->end_line)
            cls = d;
    }
    return cls;
}

bool mg__nav_py_class_attr(const struct file *fl, const struct mg_nav_def *cls, const char *a, size_t al, char *out,
                           size_t cap)
{
    struct qual q;
    return fl->text && class_attr(fl, cls, a, al, out, cap, &q);
}

static bool receiver(const struct file *fl, size_t off, int line, char *out, size_t cap, struct qual *q)
{
    *q = (struct qual){0, 0};
    const char *t = fl->text;
    size_t b = off;
    while (b > 0 && (t[b - 1] == ' ' || t[b - 1] == '\t')) b--;
    if (b > 0 && t[b - 1] == '.') b--;
    else if (b > 1 && t[b - 1] == '>' && t[b - 2] == '-') b -= 2;
    else return false;
    size_t e = b;
    while (b > 0 && idc(t[b - 1])) b--;
    size_t rl = e - b;
    const struct mg_nav_def *fn = mg__nav_enclosing(fl, line, true);
    if (rl && fn && b >= 5 && memcmp(t + b - 5, "self.", 5) == 0 && (b == 5 || !idc(t[b - 6])) &&
        strcmp(fl->lang, "python") == 0)
        return self_attr(fl, fn, t + b, rl, out, cap, q);
    if (!rl || (b > 0 && (t[b - 1] == '.' || t[b - 1] == '>' || t[b - 1] == ')' || t[b - 1] == ']'))) return false;
    if (!fn) return false;
    if ((rl == 4 && (memcmp(t + b, "self", 4) == 0 || memcmp(t + b, "this", 4) == 0))) {
        if (!fn->container || strlen(fn->container) >= cap) return false;
        strcpy(out, fn->container);
        return true;
    }
    return local_decl(fl, fn, t + b, rl, b, out, cap, q);
}

bool mg__nav_receiver_type(const struct file *fl, size_t off, int line, char *out, size_t cap)
{
    struct qual q;
    return receiver(fl, off, line, out, cap, &q);
}

bool mg__nav_receiver_qualifier(const struct file *fl, size_t off, int line, size_t *qoff, size_t *qlen)
{
    char out[128];
    struct qual q;
    if (!receiver(fl, off, line, out, sizeof(out), &q) || !q.len) return false;
    *qoff = q.off;
    *qlen = q.len;
    return true;
}

/* nav.h: one function spanning the whole text. */
bool mg_nav_receiver_of(const char *lang, const char *text, size_t len, const char *container, size_t off,
                        char *out, size_t cap)
{
    if (off >= len) return false;
    int lines = 1, line = 1;
    for (size_t i = 0; i < len; i++)
        if (text[i] == '\n') {
            lines++;
            if (i < off) line++;
        }
    struct mg_nav_def fn = {.name = "f", .kind = "function", .container = (char *)container, .start_line = 1,
                            .end_line = lines};
    struct file fl = {.lang = (char *)lang, .text = (char *)text, .len = len, .defs = &fn, .ndefs = 1};
    return mg__nav_receiver_type(&fl, off, line, out, cap);
}
