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
 * methods gives it. A Python annotation keeps its generic arguments
 * (`List[str]`, a "type text"); the receiver's type is its name alone.
 *
 * For nav_dispatch.c's typing of Python expressions (py_eval), section 3
 * reads the elements of those type texts (an index's, a loop's, a dict's
 * items()...) and what binds a name: a comprehension's `for x in E`, a
 * lambda's parameter, the function's `for x in E:`, `x = E`, `x: T`.
 *
 * Sections:
 *   1. text helpers
 *   2. the receiver's type
 *   3. Python: elements and bindings
 */
#include "search/nav_int.h"

#include <stdio.h>
#include <string.h>

#include "index/lex.h"
#include "index/refs_ptr.h"

/* ---- 1. text helpers --------------------------------------------------------------------------------- */

static bool idc(char c) { return mg_lex_id_char((unsigned char)c); }

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
        i = mg__nav_sp(t, n, i);
        if (i < n && (t[i] == '&' || t[i] == '*')) {
            i++;
            continue;
        }
        size_t l = mg_cscan_ident(t, n, i);
        if ((l == 3 && memcmp(t + i, "mut", 3) == 0) || (l == 3 && memcmp(t + i, "new", 3) == 0)) {
            i += l;
            continue;
        }
        /* Python's `Optional[T]`, `Final[T]`, `ClassVar[T]` (`typing.` before them too): T */
        size_t k = i;
        if (l == 6 && memcmp(t + i, "typing", 6) == 0 && i + 7 < n && t[i + 6] == '.')
            l = mg_cscan_ident(t, n, k = i + 7);
        if (k + l < n && t[k + l] == '[' &&
            ((l == 8 && memcmp(t + k, "Optional", 8) == 0) || (l == 5 && memcmp(t + k, "Final", 5) == 0) ||
             (l == 8 && memcmp(t + k, "ClassVar", 8) == 0))) {
            i = k + l + 1;
            if (i < n && (t[i] == '"' || t[i] == '\'')) i++; /* Optional["T"] */
            continue;
        }
        break;
    }
    size_t l = mg_cscan_ident(t, n, i);
    if (!l) return 0;
    *q = (struct qual){0, 0};
    for (;;) { /* the last part of a qualified name */
        size_t e = i + l;
        if (e + 1 < n && t[e] == '.' && mg_cscan_ident(t, n, e + 1)) {
            if (!q->len) *q = (struct qual){i, l};
            i = e + 1;
        } else if (e + 2 < n && t[e] == ':' && t[e + 1] == ':' && mg_cscan_ident(t, n, e + 2) &&
                 !(e + 2 + mg_cscan_ident(t, n, e + 2) < n && t[e + 2 + mg_cscan_ident(t, n, e + 2)] == '('))
            i = e + 2;
        else break;
        l = mg_cscan_ident(t, n, i);
    }
    if (l >= cap) return 0;
    memcpy(out, t + i, l);
    out[l] = 0;
    return i + l;
}

/* Python: the type at t[i] as type_at reads it, with its generic arguments when `[` follows it
 * (`List[str]`, `Dict[str, "Node"]`, `Optional[List[T]]`): "Head[args]", blanks and quotes left out
 * (at most 512 bytes read); the head alone when they do not fit cap. The offset past it, or 0. */
static size_t py_type_text(const char *t, size_t n, size_t i, char *out, size_t cap, struct qual *q)
{
    size_t e = type_at(t, n, i, out, cap, q);
    if (!e || e >= n || t[e] != '[') return e;
    size_t o = strlen(out), k = e, lim = e + 512 < n ? e + 512 : n;
    int depth = 0;
    for (; k < lim; k++) {
        char c = t[k];
        if (c == '[') depth++;
        else if (c == ']' && --depth == 0) break;
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\\' || c == '"' || c == '\'') continue;
        if (o + 2 >= cap) break;
        out[o++] = c;
    }
    if (k >= lim || t[k] != ']' || depth != 0) {
        out[strcspn(out, "[")] = 0;
        return e;
    }
    out[o++] = ']';
    out[o] = 0;
    return k + 1;
}

/* Python module functions whose result is what they were given or anything at all (copy.copy,
 * typing.cast, pickle.loads...): not a value of their module's. */
static const char PY_ANY_RESULT[] = " copy deepcopy cast replace proxy loads load import_module reload local unwrap ";

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
    size_t a = mg__nav_sp(t, end, at + rl);
    /* a := T{ / a = new T( / a = T( / let a = T::new( */
    if (a < end && (t[a] == '=' || (t[a] == ':' && a + 1 < end && t[a + 1] == '=')) && !(t[a] == '=' && t[a + 1] == '=')) {
        size_t b = a + (t[a] == ':' ? 2 : 1);
        size_t lit = mg__nav_sp(t, end, b); /* Python: a = {…}, […], "…": a dict, a list, a str */
        const char *lt = lit >= end || strcmp(lang, "python") != 0 ? NULL
                         : t[lit] == '{' ? "dict" : t[lit] == '[' ? "list"
                         : t[lit] == '"' || t[lit] == '\'' ? "str" : NULL;
        if (lt && strlen(lt) < cap) {
            strcpy(out, lt);
            return true;
        }
        /* Python: a statement ending in `.__file__`, `__name__`, `__qualname__`, `__module__`, `__doc__`
         * (a str), `.__dict__`, `__globals__`, `__annotations__` (a dict) */
        const char *eol = lit < end && strcmp(lang, "python") == 0 ? memchr(t + lit, '\n', end - lit) : NULL;
        const char *dn = NULL;
        for (const char *p = t + lit; eol && (p = memmem(p, (size_t)(eol - p), ".__", 3)); p += 3) dn = p;
        size_t dl = dn ? mg_cscan_ident(t, end, (size_t)(dn - t) + 1) : 0;
        if (dl && mg__nav_sp(t, end, (size_t)(dn - t) + 1 + dl) == (size_t)(eol - t) && cap > 4) {
            const char *k = mg__nav_in_words(" __file__ __name__ __qualname__ __module__ __doc__ ", dn + 1, dl) ? "str"
                            : mg__nav_in_words(" __dict__ __globals__ __annotations__ ", dn + 1, dl)           ? "dict"
                                                                                                              : NULL;
            if (k) {
                strcpy(out, k);
                return true;
            }
        }
        size_t e = type_at(t, end, b, out, cap, q);
        if (!e) return false;
        e = mg__nav_sp(t, end, e);
        /* pkg.F( is a call in Go (bufio.NewWriter): no type of pkg's. In Python a module's function
         * (`re.compile(`) returns one of its module's values, but for those that return what they were
         * given or anything at all (copy.copy(), typing.cast(), pickle.loads()...): not known */
        if (e < end && t[e] == '(' && strcmp(lang, "go") == 0) *q = (struct qual){0, 0};
        if (e < end && t[e] == '(' && strcmp(lang, "python") == 0 && mg__nav_in_words(PY_ANY_RESULT, out, strlen(out)))
            return false;
        /* Python: `a = T(…).m(…)`, `a = f(…)[0]`: the value of what follows the call, not T (py_eval's) */
        if (e < end && t[e] == '(' && strcmp(lang, "python") == 0) {
            size_t c = e, lim = e + 4096 < end ? e + 4096 : end;
            int depth = 0;
            for (; c < lim; c++)
                if (t[c] == '(' || t[c] == '[') depth++;
                else if ((t[c] == ')' || t[c] == ']') && --depth == 0) break;
            if (c < lim && (c = mg__nav_sp(t, end, c + 1)) < end && (t[c] == '.' || t[c] == '[')) return false;
        }
        if (e < end && (t[e] == '{' || t[e] == '(')) return true;
        if (e + 1 < end && t[e] == ':' && t[e + 1] == ':') return true; /* T::new( */
        return false;
    }
    /* a: T (Python: a: "T" too, and its generic arguments: `a: List[T]`) */
    if (a < end && t[a] == ':' && !(a + 1 < end && t[a + 1] == ':')) {
        size_t b = mg__nav_sp(t, end, a + 1);
        bool py = strcmp(lang, "python") == 0;
        if (b < end && (t[b] == '"' || t[b] == '\'') && py) b++;
        return (py ? py_type_text(t, end, b, out, cap, q) : type_at(t, end, b, out, cap, q)) != 0;
    }
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

static bool py_params(const struct file *fl, const struct mg_nav_def *d, size_t *open, size_t *close, size_t *lim);
static size_t stmt_end(const char *t, size_t n, size_t i);

/* The type a declaration of name (nl bytes) in fn's text before offset
 * `before` gives it (a local, a parameter; Python's `*args` a tuple, `**kw`
 * a dict), first wins. */
static bool local_decl(const struct file *fl, const struct mg_nav_def *fn, const char *name, size_t nl, size_t before,
                       char *out, size_t cap, struct qual *q)
{
    const char *t = fl->text;
    size_t lo = mg__nav_line_start(fl, fn->start_line), po = 0, pc = 0, lim;
    bool py = strcmp(fl->lang, "python") == 0 && py_params(fl, fn, &po, &pc, &lim);
    for (const char *p = t + lo; p < t + before && (p = memmem(p, (size_t)(t + before - p), name, nl)); p += nl) {
        size_t at = (size_t)(p - t);
        if ((at > lo && idc(t[at - 1])) || (at + nl < fl->len && idc(t[at + nl]))) continue;
        *q = (struct qual){0, 0};
        if (py && at > po && at < pc && t[at - 1] == '*' && cap > 5) { /* `*args` a tuple, `**kw` a dict */
            strcpy(out, t[at - 2] == '*' ? "dict" : "tuple");
            return true;
        }
        if (declares(fl->lang, t, lo, before, at, nl, out, cap, q)) return true;
    }
    return false;
}

/* Python: the type a module-level statement (at the start of a line) `name = T(…)` or `name: T` gives
 * name, first wins. */
static bool module_decl(const struct file *fl, const char *name, size_t nl, char *out, size_t cap, struct qual *q)
{
    const char *t = fl->text;
    for (const char *p = t; p < t + fl->len && (p = memmem(p, (size_t)(t + fl->len - p), name, nl)); p += nl) {
        size_t at = (size_t)(p - t);
        if ((at > 0 && t[at - 1] != '\n') || (at + nl < fl->len && idc(t[at + nl]))) continue;
        if (declares(fl->lang, t, 0, fl->len, at, nl, out, cap, q)) return true;
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
        size_t at = (size_t)(p - t), a = mg__nav_sp(t, before, at + nl);
        if ((at > lo && (idc(t[at - 1]) || t[at - 1] == '.')) || (at + nl < fl->len && idc(t[at + nl])) || a >= before)
            continue;
        n += (t[a] == '=' && a + 1 < before && t[a + 1] != '=') || (t[a] == ':' && a + 1 < before && t[a + 1] != '=');
    }
    return n == 1;
}

/* Python def d's parameter list in fl's text: the offsets of its `(` and
 * `)`, and lim, how far the header may reach; false when not found. */
static bool py_params(const struct file *fl, const struct mg_nav_def *d, size_t *open, size_t *close, size_t *lim)
{
    if (!fl->text || !fl->lang || strcmp(fl->lang, "python") != 0) return false;
    const char *t = fl->text;
    size_t n = fl->len, nl = strlen(d->name), i = mg__nav_line_start(fl, d->start_line);
    *lim = i + 8192 < n ? i + 8192 : n; /* (decorators, then a long signature: bounded) */
    const char *p = t + i;
    for (;; p += 3) { /* `def NAME(` */
        if (!(p = memmem(p, (size_t)(t + *lim - p), "def", 3))) return false;
        size_t k = mg__nav_sp(t, *lim, (size_t)(p - t) + 3);
        if ((p == t || !idc(p[-1])) && k > (size_t)(p - t) + 3 && k + nl < *lim && memcmp(t + k, d->name, nl) == 0 &&
            mg__nav_sp(t, *lim, k + nl) < *lim && t[mg__nav_sp(t, *lim, k + nl)] == '(') {
            i = *open = mg__nav_sp(t, *lim, k + nl);
            break;
        }
    }
    int depth = 0;
    for (; i < *lim; i++) { /* the parameters, to the `)` that closes them */
        if (t[i] == '(' || t[i] == '[') depth++;
        else if ((t[i] == ')' || t[i] == ']') && --depth == 0) break;
        else if (t[i] == '"' || t[i] == '\'') { /* a default's string */
            char c = t[i];
            while (++i < *lim && t[i] != c && t[i] != '\n') i += t[i] == '\\';
        }
    }
    *close = i;
    return i < *lim;
}

/* nav_int.h */
bool mg__nav_py_local(const struct file *fl, const struct mg_nav_def *fn, const char *name, size_t nl)
{
    size_t open, close, lim;
    if (!py_params(fl, fn, &open, &close, &lim)) return false;
    const char *t = fl->text;
    int depth = 0;
    for (size_t i = open + 1; i < close; i++) { /* a parameter: `name`, `*name`, `name: T`, `name=…` at depth 1 */
        if (t[i] == '(' || t[i] == '[' || t[i] == '{') depth++;
        else if (t[i] == ')' || t[i] == ']' || t[i] == '}') depth--;
        else if (depth == 0 && (i == open + 1 || t[i - 1] == ',' || t[i - 1] == '*' || t[i - 1] == '(' ||
                                t[i - 1] == ' ' || t[i - 1] == '\t' || t[i - 1] == '\n') &&
                 i + nl <= close && memcmp(t + i, name, nl) == 0 && !idc(t[i + nl]) && !idc(t[i - 1])) {
            size_t a = i + nl;
            while (a < close && (t[a] == ' ' || t[a] == '\t' || t[a] == '\n')) a++;
            size_t b = i;
            while (b > open + 1 && (t[b - 1] == ' ' || t[b - 1] == '\t' || t[b - 1] == '\n' || t[b - 1] == '*')) b--;
            if ((a == close || t[a] == ',' || t[a] == ':' || t[a] == '=') && (b == open + 1 || t[b - 1] == ','))
                return true;
        }
    }
    /* an assignment in its own body (`name = `, `name: T`, `name += `, `for name in`, `as name`) unless
     * `global name` or `nonlocal name` */
    size_t lo = close, hi = mg__nav_line_start(fl, fn->end_line + 1);
    if (hi > fl->len || hi < lo) hi = fl->len;
    int line = fn->start_line;
    for (size_t k = mg__nav_line_start(fl, fn->start_line); k < lo; k++) line += t[k] == '\n';
    bool local = false;
    size_t last = lo;
    for (const char *p = t + lo; p < t + hi && (p = memmem(p, (size_t)(t + hi - p), name, nl)); p += nl) {
        size_t at = (size_t)(p - t);
        for (; last < at; last++) line += t[last] == '\n';
        if (idc(t[at - 1]) || t[at - 1] == '.' || (at + nl < hi && idc(t[at + nl]))) continue;
        size_t b = at;
        while (b > lo && (t[b - 1] == ' ' || t[b - 1] == '\t')) b--;
        bool stmt = t[b - 1] == '\n' || t[b - 1] == ';';
        size_t w = b; /* the word before */
        while (w > lo && idc(t[w - 1])) w--;
        if ((b - w == 6 && memcmp(t + w, "global", 6) == 0) || (b - w == 8 && memcmp(t + w, "nonlocal", 8) == 0))
            return false;
        if (local) continue;
        size_t a = mg__nav_sp(t, hi, at + nl);
        bool assign = stmt && a + 1 < hi &&
                      ((t[a] == '=' && t[a + 1] != '=') || (t[a] == ':' && t[a + 1] != '=') ||
                       (t[a] && strchr("+-*/%|&^", t[a]) && t[a + 1] == '='));
        bool bound = assign || (b - w == 3 && memcmp(t + w, "for", 3) == 0) ||
                     (b - w == 2 && memcmp(t + w, "as", 2) == 0);
        if (bound && mg__nav_enclosing(fl, line, true) == fn) local = true; /* (not a nested function's) */
    }
    return local;
}

/* nav_int.h */
bool mg__nav_py_returns(const struct file *fl, const struct mg_nav_def *d, char *out, size_t cap)
{
    size_t open, i, lim;
    if (!py_params(fl, d, &open, &i, &lim)) return false;
    const char *t = fl->text;
    i++;
    while (i < lim && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r' || t[i] == '\\')) i++;
    if (i + 2 > lim || t[i] != '-' || t[i + 1] != '>') return false;
    i = mg__nav_sp(t, lim, i + 2);
    if (i < lim && (t[i] == '"' || t[i] == '\'')) i++;
    struct qual q;
    return py_type_text(t, lim, i, out, cap, &q) && strcmp(out, "None") != 0;
}

/* nav_int.h */
bool mg__nav_py_property(const struct file *fl, const struct mg_nav_def *d)
{
    if (!fl->text || !fl->lang || strcmp(fl->lang, "python") != 0 || !mg__nav_function_like(d->kind)) return false;
    const char *t = fl->text;
    size_t i = mg__nav_line_start(fl, d->start_line), def = i;
    /* (it may start at its decorators) */
    while (mg__nav_sp(t, fl->len, def) < fl->len && t[mg__nav_sp(t, fl->len, def)] == '@') {
        const char *nl = memchr(t + def, '\n', fl->len - def);
        if (!nl) return false;
        def = (size_t)(nl - t) + 1;
    }
    while (i > 0) { /* back over the decorators above */
        size_t l = i - 1;
        while (l > 0 && t[l - 1] != '\n') l--;
        if (mg__nav_sp(t, i, l) >= i || t[mg__nav_sp(t, i, l)] != '@') break;
        i = l;
    }
    for (size_t l = i; l < def;) { /* @property, @cached_property, @functools.cached_property, @x.setter */
        size_t s = mg__nav_sp(t, def, l) + 1, e = s;
        while (e < def && (idc(t[e]) || t[e] == '.')) e++;
        size_t w = e;
        while (w > s && t[w - 1] != '.') w--;
        if (mg__nav_in_words(" property cached_property setter deleter ", t + w, e - w)) return true;
        const char *nl = memchr(t + l, '\n', def - l);
        l = nl ? (size_t)(nl - t) + 1 : def;
    }
    return false;
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
        size_t x = mg__nav_sp(t, hi, at + al), xl;
        if (x < hi && t[x] == '=' && x + 1 < hi && t[x + 1] != '=' &&
            (xl = mg_cscan_ident(t, hi, x = mg__nav_sp(t, hi, x + 1))) && mg__nav_sp(t, hi, x + xl) < hi &&
            (t[mg__nav_sp(t, hi, x + xl)] == '\n' || t[mg__nav_sp(t, hi, x + xl)] == '#')) {
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
        size_t s = mg__nav_sp(t, hi, i);
        const char *nl = memchr(t + i, '\n', hi - i);
        size_t e = nl ? (size_t)(nl - t) : hi;
        if (l > cls->start_line && s + al < e && memcmp(t + s, a, al) == 0 && !idc(t[s + al])) {
            const struct mg_nav_def *f = mg__nav_enclosing(fl, l, true);
            if ((!f || f->start_line < cls->start_line) && declares(fl->lang, t, lo, hi, s, al, out, cap, q))
                return true;
        }
        i = e + 1;
    }
    /* a method of the class named a (a property): what its `-> T` says */
    for (size_t i = 0; i < fl->ndefs; i++) {
        const struct mg_nav_def *d = &fl->defs[i];
        if (d->container && strcmp(d->container, cls->name) == 0 && d->start_line > cls->start_line &&
            d->end_line <= cls->end_line && strlen(d->name) == al && memcmp(d->name, a, al) == 0 &&
            mg__nav_function_like(d->kind) && mg__nav_py_returns(fl, d, out, cap))
            return true;
    }
    return false;
}

/* nav_int.h */
bool mg__nav_py_class_attr_expr(const struct file *fl, const struct mg_nav_def *cls, const char *a, size_t al,
                                size_t *lo, size_t *hi, int *line)
{
    if (!fl->text) return false;
    const char *t = fl->text;
    size_t clo = mg__nav_line_start(fl, cls->start_line), chi = mg__nav_line_start(fl, cls->end_line + 1);
    if (chi > fl->len || chi < clo) chi = fl->len;
    int l = cls->start_line;
    /* a statement `self.a = E` or (in the body) `a = E` */
    for (size_t i = clo; i < chi && l <= cls->end_line; l++) {
        const char *nl = memchr(t + i, '\n', chi - i);
        size_t e = nl ? (size_t)(nl - t) : chi, s = mg__nav_sp(t, e, i), x = s;
        i = e + 1;
        if (s + 5 < e && memcmp(t + s, "self.", 5) == 0) x = s + 5;
        else if (l == cls->start_line || mg__nav_enclosing(fl, l, true) != NULL) continue;
        if (x + al >= e || memcmp(t + x, a, al) != 0 || idc(t[x + al])) continue;
        if (x == s + 5) {
            const struct mg_nav_def *m = mg__nav_enclosing(fl, l, true);
            if (!m || m->start_line < cls->start_line || m->end_line > cls->end_line) continue;
        }
        size_t q = mg__nav_sp(t, e, x + al);
        if (q + 1 >= e || t[q] != '=' || t[q + 1] == '=') continue;
        size_t v = mg__nav_sp(t, e, q + 1), end = stmt_end(t, fl->len, v);
        if (v >= end || (end - v == 4 && memcmp(t + v, "None", 4) == 0)) continue;
        *lo = v;
        *hi = end;
        *line = l;
        return true;
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
                           size_t cap, size_t *qoff, size_t *qlen)
{
    struct qual q = {0, 0};
    bool r = fl->text && class_attr(fl, cls, a, al, out, cap, &q);
    *qoff = q.off;
    *qlen = r ? q.len : 0;
    return r;
}

/* Python: the type the last `assert isinstance(R, T)` in fn's text before `before` narrows the
 * receiver R (the rl bytes at r, `x` or `self.x`) to. */
static bool asserted(const struct file *fl, const struct mg_nav_def *fn, const char *r, size_t rl, size_t before,
                     char *out, size_t cap, struct qual *q)
{
    const char *t = fl->text;
    size_t lo = mg__nav_line_start(fl, fn->start_line);
    bool got = false;
    char ty[128];
    for (const char *p = t + lo; p < t + before && (p = memmem(p, (size_t)(t + before - p), "isinstance(", 11));
         p += 11) {
        size_t i = mg__nav_sp(t, before, (size_t)(p - t) + 11), l = (size_t)(p - t);
        while (l > lo && (t[l - 1] == ' ' || t[l - 1] == '\t')) l--;
        if (l < lo + 6 || memcmp(t + l - 6, "assert", 6) != 0 || (l > lo + 6 && idc(t[l - 7]))) continue;
        if (i + rl >= before || memcmp(t + i, r, rl) != 0 || idc(t[i + rl])) continue;
        if ((i = mg__nav_sp(t, before, i + rl)) >= before || t[i] != ',') continue;
        struct qual tq;
        size_t e = type_at(t, before, i + 1, ty, sizeof(ty), &tq);
        if (e && (e = mg__nav_sp(t, before, e)) < before && t[e] == ')' && strlen(ty) < cap) {
            strcpy(out, ty);
            *q = tq;
            got = true;
        }
    }
    return got;
}

static bool name_type(const struct file *fl, const struct mg_nav_def *fn, size_t b, size_t rl, char *out, size_t cap,
                      struct qual *q);
static bool narrowed(const char *t, size_t n, size_t lo, size_t at, size_t nl, char *out, size_t cap,
                     struct qual *q);

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
        return asserted(fl, fn, t + b - 5, rl + 5, b - 5, out, cap, q) || self_attr(fl, fn, t + b, rl, out, cap, q);
    if (!rl || (b > 0 && (t[b - 1] == '.' || t[b - 1] == '>' || t[b - 1] == ')' || t[b - 1] == ']'))) return false;
    return name_type(fl, fn, b, rl, out, cap, q);
}

/* The type of the name t[b, b + rl) in function fn (NULL: at module level): receiver's rules. */
static bool name_type(const struct file *fl, const struct mg_nav_def *fn, size_t b, size_t rl, char *out, size_t cap,
                      struct qual *q)
{
    *q = (struct qual){0, 0};
    const char *t = fl->text;
    bool py = strcmp(fl->lang, "python") == 0;
    if (!fn) return py && module_decl(fl, t + b, rl, out, cap, q);
    if ((rl == 4 && (memcmp(t + b, "self", 4) == 0 || memcmp(t + b, "this", 4) == 0)) && (fn->container || !py)) {
        if (!fn->container || strlen(fn->container) >= cap) return false;
        strcpy(out, fn->container);
        return true;
    }
    if (py && (narrowed(t, fl->len, mg__nav_line_start(fl, fn->start_line), b, rl, out, cap, q) ||
               asserted(fl, fn, t + b, rl, b, out, cap, q)))
        return true;
    if (local_decl(fl, fn, t + b, rl, b, out, cap, q)) return true;
    if (!py) return false;
    /* Python: `r = self.a` (once), then self.a's type */
    size_t lo = mg__nav_line_start(fl, fn->start_line);
    for (const char *p = t + lo; p < t + b && (p = memmem(p, (size_t)(t + b - p), t + b, rl)); p += rl) {
        size_t at = (size_t)(p - t), a = mg__nav_sp(t, b, at + rl), al;
        if ((at > lo && (idc(t[at - 1]) || t[at - 1] == '.')) || idc(t[at + rl]) || a + 6 >= b || t[a] != '=' ||
            t[a + 1] == '=')
            continue;
        if ((a = mg__nav_sp(t, b, a + 1)) + 5 < b && memcmp(t + a, "self.", 5) == 0 &&
            (al = mg_cscan_ident(t, b, a + 5)) &&
            (t[mg__nav_sp(t, b, a + 5 + al)] == '\n' || t[mg__nav_sp(t, b, a + 5 + al)] == '#') &&
            bound_once(fl, fn, t + b, rl, b))
            return self_attr(fl, fn, t + a + 5, al, out, cap, q);
        break; /* (the first assignment only) */
    }
    /* Python: a module's name the function only reads (`TABLE.update(`) */
    for (const char *p = t + lo; p < t + b && (p = memmem(p, (size_t)(t + b - p), t + b, rl)); p += rl) {
        size_t at = (size_t)(p - t);
        if ((at > lo && idc(t[at - 1])) || idc(t[at + rl])) continue;
        if (t[at + rl] != '.' || (at > lo && t[at - 1] == '.')) return false; /* bound here, or not this name */
    }
    return module_decl(fl, t + b, rl, out, cap, q);
}

bool mg__nav_receiver_type(const struct file *fl, size_t off, int line, char *out, size_t cap, size_t *qoff,
                           size_t *qlen)
{
    struct qual q;
    bool r = receiver(fl, off, line, out, cap, &q);
    if (r) out[strcspn(out, "[")] = 0; /* (a Python type's generic arguments: its name alone) */
    if (qoff) {
        *qoff = q.off;
        *qlen = r ? q.len : 0;
    }
    return r;
}

/* nav_int.h */
bool mg__nav_py_name_type(const struct file *fl, size_t at, size_t nl, int line, char *out, size_t cap, size_t *qoff,
                          size_t *qlen)
{
    struct qual q = {0, 0};
    bool r = fl->text && at + nl <= fl->len &&
             name_type(fl, mg__nav_enclosing(fl, line, true), at, nl, out, cap, &q);
    *qoff = q.off;
    *qlen = r ? q.len : 0;
    return r;
}

/* ---- 3. Python: elements and bindings ------------------------------------------------------------ */

/* Built-in and typing containers by what an element of theirs is: a sequence's (indexed and iterated),
 * an iterable's (iterated only), a mapping's (its keys iterated, its values indexed). */
static const char PY_SEQS[] = " List list Sequence MutableSequence Deque deque ";
static const char PY_ITERS[] = " Iterable Iterator Collection Reversible AbstractSet Set set FrozenSet frozenset"
                               " MutableSet KeysView ValuesView Generator AsyncIterator AsyncIterable"
                               " AsyncGenerator Container ";
static const char PY_MAPS[] = " Dict dict Mapping MutableMapping DefaultDict defaultdict OrderedDict ChainMap ";

static bool word_in(const char *words, const char *s, size_t n) { return mg__nav_in_words(words, s, n); }

/* Argument k of type text ty (`Head[a0,a1]`) as a type text (its own wrappers, `Optional[…]`, read
 * away), and how many ty has (*nargs); false when there is no such argument or it is `...`. */
static bool py_arg(const char *ty, size_t k, char *out, size_t cap, size_t *nargs)
{
    const char *a = strchr(ty, '[');
    *nargs = 0;
    if (!a) return false;
    const char *s = ++a, *got = NULL, *gend = NULL;
    int depth = 0;
    for (; *a; a++) { /* (bounded by ty's NUL) */
        if (*a == '[') depth++;
        else if (*a == ']' && depth > 0) depth--;
        else if ((*a == ',' && depth == 0) || (*a == ']' && depth == 0)) {
            if ((*nargs)++ == k) {
                got = s;
                gend = a;
            }
            s = a + 1;
            if (*a == ']') break;
        }
    }
    if (!got || (gend - got == 3 && memcmp(got, "...", 3) == 0)) return false;
    struct qual q;
    return py_type_text(got, (size_t)(gend - got), 0, out, cap, &q) != 0;
}

/* "Head[a]" or "Head[a,b]" into out; Head alone when it does not fit (a container of unknown elements). */
static void py_compose(const char *head, const char *a, const char *b, char *out, size_t cap)
{
    int n = b ? snprintf(out, cap, "%s[%s,%s]", head, a, b) : snprintf(out, cap, "%s[%s]", head, a);
    if (n < 0 || (size_t)n >= cap) snprintf(out, cap, "%s", head);
}

/* nav_int.h */
bool mg__nav_py_elem(const char *ty, const char *op, long index, char *out, size_t cap, bool *builtin)
{
    *builtin = false;
    out[0] = 0;
    size_t hl = strcspn(ty, "["), na;
    bool seq = word_in(PY_SEQS, ty, hl), it = seq || word_in(PY_ITERS, ty, hl), map = word_in(PY_MAPS, ty, hl);
    bool tup = word_in(" Tuple tuple ", ty, hl), str = word_in(" str ", ty, hl), items = word_in(" ItemsView ", ty, hl);
    char a0[128], a1[128];
    bool h0 = py_arg(ty, 0, a0, sizeof(a0), &na), h1 = na > 1 && py_arg(ty, 1, a1, sizeof(a1), &na);
    if (strcmp(op, "[]") == 0 || strcmp(op, "in") == 0) {
        bool iter = op[0] == 'i';
        if (str) return snprintf(out, cap, "str") > 0;
        if ((seq || (it && iter)) && h0) return snprintf(out, cap, "%s", a0) < (int)cap;
        if (map && (iter ? h0 : h1)) return snprintf(out, cap, "%s", iter ? a0 : a1) < (int)cap;
        if (items && iter && h0 && h1) {
            py_compose("Tuple", a0, a1, out, cap);
            return true;
        }
        if (tup && na == 2 && h0 && !h1) return snprintf(out, cap, "%s", a0) < (int)cap; /* Tuple[T, ...] */
        if (tup && !iter && index >= 0 && py_arg(ty, (size_t)index, a1, sizeof(a1), &na))
            return snprintf(out, cap, "%s", a1) < (int)cap;
        return false;
    }
    if (strcmp(op, "[:]") == 0) return (seq || tup || str) && snprintf(out, cap, "%s", ty) < (int)cap;
    /* a method of a built-in type's: a mapping's get, pop, setdefault its value; keys, values, items; a
     * sequence's or a set's pop its element; copy the same type; str's split a list of str; any other
     * method of theirs, of a str's or a number's, a built-in value (None, an int, a bool, a str) */
    *builtin = true;
    if (strcmp(op, "copy") == 0) return snprintf(out, cap, "%s", ty) < (int)cap;
    if (map && word_in(" get pop setdefault ", op, strlen(op))) return h1 && snprintf(out, cap, "%s", a1) < (int)cap;
    if (map && strcmp(op, "popitem") == 0) {
        if (h0 && h1) py_compose("Tuple", a0, a1, out, cap);
        return h0 && h1;
    }
    if (map && word_in(" keys values items ", op, strlen(op))) {
        char pair[128];
        if (op[0] == 'k' ? h0 : op[0] == 'v' ? h1 : h0 && h1) {
            if (op[0] == 'i') py_compose("Tuple", a0, a1, pair, sizeof(pair));
            py_compose("List", op[0] == 'k' ? a0 : op[0] == 'v' ? a1 : pair, NULL, out, cap);
        } else
            snprintf(out, cap, "List");
        return true;
    }
    if ((seq || it) && word_in(" pop popleft ", op, strlen(op))) return h0 && snprintf(out, cap, "%s", a0) < (int)cap;
    if (str && word_in(" split rsplit splitlines ", op, strlen(op))) return snprintf(out, cap, "List[str]") > 0;
    if (str && word_in(" strip lstrip rstrip lower upper casefold title capitalize swapcase replace format join"
                       " expandtabs center ljust rjust zfill removeprefix removesuffix translate format_map ",
                       op, strlen(op)))
        return snprintf(out, cap, "str") > 0;
    return true; /* (out "": a built-in value, no element known) */
}

/* Past the string literal whose quote is t[i] (a triple quote's too), at most to n. */
static size_t skip_str(const char *t, size_t n, size_t i)
{
    char c = t[i];
    if (i + 2 < n && t[i + 1] == c && t[i + 2] == c) { /* """…""" */
        for (i += 3; i + 2 < n; i++)
            if (t[i] == '\\') i++;
            else if (t[i] == c && t[i + 1] == c && t[i + 2] == c) return i + 3;
        return n;
    }
    for (i++; i < n && t[i] != c && t[i] != '\n'; i++) i += t[i] == '\\';
    return i < n ? i + 1 : n;
}

static bool word_at(const char *t, size_t lo, size_t n, size_t i, const char *w)
{
    size_t l = strlen(w);
    return i + l <= n && memcmp(t + i, w, l) == 0 && (i == lo || !idc(t[i - 1])) && (i + l == n || !idc(t[i + l]));
}

/* From t[i], strings skipped, at most span bytes on: a bracket closing one
 * it did not open, or with stmt a newline (not after `\`), `;` or `#`
 * outside brackets: where it is; else the limit (stmt) or n. */
static size_t scan_end(const char *t, size_t n, size_t i, size_t span, bool stmt)
{
    size_t lim = i + span < n ? i + span : n;
    int depth = 0;
    for (; i < lim; i++) {
        char c = t[i];
        if (c == '"' || c == '\'') i = skip_str(t, lim, i) - 1;
        else if (c == '(' || c == '[' || c == '{') depth++;
        else if (c == ')' || c == ']' || c == '}') {
            if (depth-- == 0) return i;
        } else if (stmt && depth == 0 && (c == '\n' || c == ';' || c == '#') &&
                   !(c == '\n' && i > 0 && t[i - 1] == '\\'))
            return i;
    }
    return stmt ? lim : n;
}

/* The end of the Python statement (or the expression) that goes on at t[i], at most 4096 bytes on. */
static size_t stmt_end(const char *t, size_t n, size_t i) { return scan_end(t, n, i, 4096, true); }

/* The bracket that closes the group whose text starts at t[i], at most 8192 bytes on; n when not found. */
static size_t group_close(const char *t, size_t n, size_t i) { return scan_end(t, n, i, 8192, false); }

/* A `for` at t[f] whose targets hold the name (nl bytes): its place among them (*pos, -1 when alone)
 * and where the iterated expression starts (*e, past `in`); false when not so. */
static bool for_targets(const char *t, size_t n, size_t f, const char *name, size_t nl, int *pos, size_t *e)
{
    size_t i = mg__nav_sp(t, n, f + 3), k = 0;
    bool paren = i < n && t[i] == '(', found = false;
    if (paren) i = mg__nav_sp(t, n, i + 1);
    for (; k < 8; k++) { /* `k, v`, `(k, v)` */
        size_t l = mg_cscan_ident(t, n, i);
        if (!l) return false;
        if (l == nl && memcmp(t + i, name, nl) == 0) {
            *pos = (int)k;
            found = true;
        }
        i = mg__nav_sp(t, n, i + l);
        if (i >= n || t[i] != ',') break;
        i = mg__nav_sp(t, n, i + 1);
    }
    if (paren && i < n && t[i] == ')') i = mg__nav_sp(t, n, i + 1);
    if (!found || !word_at(t, 0, n, i, "in")) return false;
    if (k == 0) *pos = -1;
    *e = i + 2;
    return true;
}

/* In a comprehension or a lambda around at (the groups of brackets around it, innermost first, then
 * its line): `… for x in E …` binds the name there (1, an element of E), `lambda x:` (-1: untyped). */
static int py_comp_bind(const char *t, size_t len, size_t lo, size_t at, size_t nl, struct mg__nav_py_bind *b)
{
    size_t p = at, floor = at > lo + 4096 ? at - 4096 : lo;
    for (int level = 0; level < 8; level++) {
        int depth = 0;
        size_t open = SIZE_MAX, close;
        while (p > floor && open == SIZE_MAX) { /* back to the bracket that opens the group (strings not read) */
            char c = t[--p];
            if (c == ')' || c == ']' || c == '}') depth++;
            else if ((c == '(' || c == '[' || c == '{') && depth-- == 0) open = p;
        }
        size_t s = open == SIZE_MAX ? at : open + 1;
        if (open == SIZE_MAX) { /* no more groups: the line's own lambda */
            while (s > lo && t[s - 1] != '\n') s--;
            close = at;
        } else if ((close = group_close(t, len, s)) >= len)
            return 0;
        depth = 0;
        for (size_t k = s; k < close; k++) { /* at the group's own depth */
            char c = t[k];
            if (c == '"' || c == '\'') k = skip_str(t, close, k) - 1;
            else if (c == '(' || c == '[' || c == '{') depth++;
            else if (c == ')' || c == ']' || c == '}') depth--;
            else if (depth != 0 || !idc(c) || (k > s && idc(t[k - 1]))) continue;
            else if (k < at && word_at(t, s, close, k, "lambda")) {
                for (size_t j = k + 6; j < close && t[j] != ':'; j++)
                    if (j + nl <= close && memcmp(t + j, t + at, nl) == 0 && !idc(t[j - 1]) && !idc(t[j + nl]))
                        return -1;
            } else if (open != SIZE_MAX && word_at(t, s, close, k, "for")) {
                size_t e, end;
                int pos, d = 0;
                if (!for_targets(t, close, k, t + at, nl, &pos, &e)) continue;
                for (end = e; end < close; end++) { /* E: to the group's next `for` or `if`, or its end */
                    char ch = t[end];
                    if (ch == '"' || ch == '\'') end = skip_str(t, close, end) - 1;
                    else if (ch == '(' || ch == '[' || ch == '{') d++;
                    else if (ch == ')' || ch == ']' || ch == '}') d--;
                    else if (d == 0 && (word_at(t, e, close, end, "for") || word_at(t, e, close, end, "if"))) break;
                }
                *b = (struct mg__nav_py_bind){.how = MG_PY_ELEM, .lo = e, .hi = end, .pos = pos};
                return 1;
            }
        }
        if (open == SIZE_MAX) return 0;
        p = open;
    }
    return 0;
}

/* Whether the word w is in t[a, b). */
static bool has_word(const char *t, size_t a, size_t b, const char *w)
{
    for (size_t i = a; i < b; i++)
        if (word_at(t, a, b, i, w)) return true;
    return false;
}

/* The indentation of the line that starts at t[ls] (before n), or -1 when it is blank or a comment. */
static long indent_of(const char *t, size_t n, size_t ls)
{
    size_t i = mg__nav_sp(t, n, ls);
    return i >= n || t[i] == '\n' || t[i] == '\r' || t[i] == '#' ? -1 : (long)(i - ls);
}

/* Python: the nearest `isinstance(x, T)` before at (the name x of nl bytes there) that narrows it there:
 * the header of an `if`, `elif` or `while` whose block holds at, or before `and` in at's own line; not
 * after `not` or `or`. Its T into out. */
static bool narrowed(const char *t, size_t n, size_t lo, size_t at, size_t nl, char *out, size_t cap, struct qual *q)
{
    bool got = false;
    for (const char *p = t + lo; p < t + at && (p = memmem(p, (size_t)(t + at - p), "isinstance(", 11)); p += 11) {
        size_t k = (size_t)(p - t), i = mg__nav_sp(t, at, k + 11), e, ls = k, le;
        if ((k > lo && idc(t[k - 1])) || i + nl >= at || memcmp(t + i, t + at, nl) != 0 || idc(t[i + nl])) continue;
        if ((i = mg__nav_sp(t, at, i + nl)) >= at || t[i] != ',') continue;
        char ty[128];
        struct qual tq;
        if (!(e = type_at(t, at, i + 1, ty, sizeof(ty), &tq)) || (e = mg__nav_sp(t, at, e)) >= at || t[e] != ')')
            continue;
        while (ls > lo && t[ls - 1] != '\n') ls--;
        const char *nlp = memchr(t + k, '\n', n - k);
        le = nlp ? (size_t)(nlp - t) : n;
        size_t f = mg__nav_sp(t, k, ls);
        if (has_word(t, f, k, "not") || has_word(t, f, k, "or")) continue;
        bool ok = at < le && has_word(t, e, at, "and") && !has_word(t, e, at, "or"); /* isinstance(x, T) and x.m */
        if (!ok && at > le && (word_at(t, ls, k, f, "if") || word_at(t, ls, k, f, "elif") ||
                               word_at(t, ls, k, f, "while"))) {
            const char *hash = memchr(t + e, '#', le - e);
            size_t c = hash ? (size_t)(hash - t) : le; /* the header ends in `:` (a comment after it) */
            while (c > e && (t[c - 1] == ' ' || t[c - 1] == '\t' || t[c - 1] == '\r')) c--;
            long ind = (long)(f - ls);
            ok = c > e && t[c - 1] == ':';
            for (size_t l = le + 1; ok && l <= at && l < n;) { /* each line to at's inside the block */
                long li = indent_of(t, n, l);
                ok = li < 0 || li > ind;
                const char *x = memchr(t + l, '\n', n - l);
                if (!x) break;
                l = (size_t)(x - t) + 1;
            }
        }
        if (ok && strlen(ty) < cap) {
            strcpy(out, ty);
            *q = tq;
            got = true;
        }
    }
    return got;
}

/* Whether the name at t[x] (nl bytes) is one of the targets of an assignment `a, x = …`, `(x, *y) = …` whose
 * statement starts at t[f]. */
static bool tuple_target(const char *t, size_t n, size_t f, size_t x, size_t nl)
{
    bool comma = false;
    size_t k = f;
    for (; k < x; k++) {
        if (!(idc(t[k]) || strchr(", \t([*", t[k]))) return false;
        comma |= t[k] == ',';
    }
    for (k = x + nl; k < n && (idc(t[k]) || strchr(", \t)]*", t[k])); k++) comma |= t[k] == ',';
    return comma && k + 1 < n && t[k] == '=' && t[k + 1] != '=';
}

/* nav_int.h */
int mg__nav_py_binds(const struct file *fl, size_t at, size_t nl, int line, struct mg__nav_py_bind *b, int max)
{
    const struct mg_nav_def *fn = mg__nav_enclosing(fl, line, true);
    if (!fl->text || !fn || at + nl > fl->len || max < 1 || strcmp(fl->lang, "python") != 0) return 0;
    const char *t = fl->text;
    size_t lo = mg__nav_line_start(fl, fn->start_line);
    if (at < lo) return 0;
    b[0] = (struct mg__nav_py_bind){0};
    int r = py_comp_bind(t, fl->len, lo, at, nl, &b[0]);
    if (r) return r;
    struct qual q = {0, 0};
    char ty[128];
    if (narrowed(t, fl->len, lo, at, nl, ty, sizeof(ty), &q) ||  /* if isinstance(x, T): … x */
        asserted(fl, fn, t + at, nl, at, ty, sizeof(ty), &q)) { /* assert isinstance(x, T) */
        b[0] = (struct mg__nav_py_bind){.how = MG_PY_TYPE, .qoff = q.off, .qlen = q.len};
        strcpy(b[0].ty, ty);
        return 1;
    }
    size_t po = 0, pc = 0, plim, last = lo;
    bool params = py_params(fl, fn, &po, &pc, &plim);
    int n = 0, ln = fn->start_line;
    /* the function's own parameter and statements before at that bind the name */
    for (const char *p = t + lo; p < t + at && (p = memmem(p, (size_t)(t + at - p), t + at, nl)); p += nl) {
        size_t x = (size_t)(p - t), ls = x, e;
        for (; last < x; last++) ln += t[last] == '\n';
        if ((x > lo && (idc(t[x - 1]) || t[x - 1] == '.')) || idc(t[x + nl])) continue;
        struct mg__nav_py_bind o = {.how = MG_PY_NONE};
        ty[0] = 0;
        if (params && x > po && x < pc) { /* a parameter: its annotation, `*args` a tuple, `**kw` a dict */
            size_t a = mg__nav_sp(t, pc, x + nl), ts = a < pc ? mg__nav_sp(t, pc, a + 1) : pc;
            if (ts < pc && (t[ts] == '"' || t[ts] == '\'')) ts++;
            if (t[x - 1] == '*') snprintf(ty, sizeof(ty), "%s", t[x - 2] == '*' ? "dict" : "tuple");
            else if (a < pc && t[a] == ':' && py_type_text(t, pc, ts, ty, sizeof(ty), &q)) {
                o.qoff = q.off;
                o.qlen = q.len;
            }
        } else if (mg__nav_enclosing(fl, ln, true) != fn) {
            continue; /* (a nested function's) */
        } else {
            while (ls > lo && t[ls - 1] != '\n') ls--;
            size_t f = mg__nav_sp(t, x, ls), w = x, a = mg__nav_sp(t, fl->len, x + nl);
            while (w > ls && (t[w - 1] == ' ' || t[w - 1] == '\t')) w--;
            size_t wb = w;
            while (wb > ls && idc(t[wb - 1])) wb--;
            if (word_at(t, ls, x, f, "async")) f = mg__nav_sp(t, x, f + 5);
            int pos;
            if (word_at(t, ls, x, f, "for") && for_targets(t, fl->len, f, t + at, nl, &pos, &e) && x < e) {
                size_t end = stmt_end(t, fl->len, e), c = e; /* to the header's `:` */
                int d = 0;
                for (; c < end; c++) {
                    if (t[c] == '"' || t[c] == '\'') c = skip_str(t, end, c) - 1;
                    else if (t[c] == '(' || t[c] == '[' || t[c] == '{') d++;
                    else if (t[c] == ')' || t[c] == ']' || t[c] == '}') d--;
                    else if (t[c] == ':' && d == 0) break;
                }
                if (c >= end || c >= at) continue; /* (at in the header: not bound yet) */
                o = (struct mg__nav_py_bind){.how = MG_PY_ELEM, .lo = e, .hi = c, .pos = pos};
            } else if (w - wb == 2 && memcmp(t + wb, "as", 2) == 0) {
                /* `with … as x`, `except … as x`: not known */
            } else if (tuple_target(t, fl->len, f, x, nl)) {
                /* `a, x = …`: not known */
            } else if (f != x || a + 1 >= fl->len) {
                continue; /* a use */
            } else if (t[a] == ':' && t[a + 1] != '=') { /* x: T */
                size_t ts = mg__nav_sp(t, fl->len, a + 1);
                if (ts < fl->len && (t[ts] == '"' || t[ts] == '\'')) ts++;
                if (py_type_text(t, fl->len, ts, ty, sizeof(ty), &q)) {
                    o.qoff = q.off;
                    o.qlen = q.len;
                }
            } else if (t[a] == '=' && t[a + 1] != '=') { /* x = E (not x = None: what it is later says more) */
                size_t v = mg__nav_sp(t, fl->len, a + 1), end = stmt_end(t, fl->len, v);
                if (end >= at || (end - v == 4 && memcmp(t + v, "None", 4) == 0)) continue;
                o = (struct mg__nav_py_bind){.how = MG_PY_EXPR, .lo = v, .hi = end};
            } else
                continue; /* (a use, `x += …`) */
        }
        if (ty[0]) {
            o.how = MG_PY_TYPE;
            strcpy(o.ty, ty);
        }
        if (n == max) return -1; /* (too many to say) */
        b[n++] = o;
    }
    return n;
}

/* nav.h: one function spanning the whole text. */
bool mg_nav_receiver_of(const char *lang, const char *text, size_t len, const char *container, size_t off,
                        char *out, size_t cap)
{
    if (off >= len) return false;
    struct mg_nav_def fn;
    struct file fl;
    int line = mg__nav_whole(lang, text, len, off, container, &fn, &fl);
    return mg__nav_receiver_type(&fl, off, line, out, cap, NULL, NULL);
}

/* nav.h */
int mg_nav_py_binds_of(const char *text, size_t len, size_t off, size_t n,
                       void (*cb)(void *ud, int how, size_t lo, size_t hi, const char *ty), void *ud)
{
    if (off + n > len) return 0;
    struct mg_nav_def fn;
    struct file fl;
    struct mg__nav_py_bind b[4];
    int line = mg__nav_whole("python", text, len, off, NULL, &fn, &fl);
    int r = mg__nav_py_binds(&fl, off, n, line, b, 4);
    for (int i = 0; i < r; i++) cb(ud, b[i].how, b[i].lo, b[i].hi, b[i].ty);
    return r;
}

/* nav.h */
bool mg_nav_py_elem_of(const char *ty, const char *op, long index, char *out, size_t cap)
{
    bool builtin;
    return mg__nav_py_elem(ty, op, index, out, cap, &builtin);
}
