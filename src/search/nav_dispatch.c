/* nav_dispatch.c — interface and virtual dispatch (nav_int.h): a call
 * `s.area()` through a receiver declared of type Shape may call the `area`
 * of every type that derives from Shape, "dispatch" edges beside the one to
 * Shape's own `area` (confidence "type") when it has one.
 *
 * A type derives from T when its declaration's header names T among its
 * bases, directly or through up to MAX_DEPTH of them: the words between its
 * name and the body's `{` (Java/TypeScript/C#/Kotlin/Scala/Swift/Dart/PHP
 * `extends`/`implements`/`:`, C++ `: public T`, Ruby `< T`; the line's end
 * where a body has no brace), outside `(...)` and `<...>` (a Kotlin
 * constructor's parameters, generic arguments), and in Python the words in
 * the parentheses after the name. A Go type implements interface T when it
 * has a method of each name T's own method list declares (embedded
 * interfaces are not followed).
 *
 * The same relation decides which Python attributes can be the repo's
 * methods (section 3): `x.name` with x of a known type reaches only the
 * methods of that type and of the types related to it. A receiver whose
 * type the declared-type rules (nav_type.c) do not give is read as an
 * expression there (py_eval: elements of generics, loops, bindings,
 * methods' results, operators).
 *
 * Sections:
 *   1. headers
 *   2. derives and implements
 *   3. Python attributes
 */
#include "search/nav_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index/lex.h"
#include "index/refs_ptr.h"

#define MAX_DEPTH 4     /* bases followed up a hierarchy */
#define HEADER_MAX 1024 /* bytes of a header read */
#define BASES_MAX 16    /* words of a header looked at */
#define EVAL_DEPTH 4    /* Python names typed through the expressions that bound them, nested at most */
#define EVAL_NEST 12    /* py_eval inside itself (through names and attributes), at most */
#define TY 128          /* a Python type text's buffer */

/* ---- 1. headers ---------------------------------------------------------------------------------------- */

static bool idc(char c) { return mg_lex_id_char((unsigned char)c); }

static bool class_like(const char *kind)
{
    static const char *const k[] = {"class", "struct", "interface", "trait", "object", "record", "protocol",
                                    "enum", "type", "abstract_class", "impl"};
    for (size_t i = 0; kind && i < sizeof(k) / sizeof(k[0]); i++)
        if (strcmp(kind, k[i]) == 0) return true;
    return false;
}

struct bases {
    char w[BASES_MAX][128];
    size_t n;
};

/* The words naming d's bases in fl's text (section comment). */
static void header_bases(const struct file *fl, const struct mg_nav_def *d, struct bases *b)
{
    b->n = 0;
    const char *t = fl->text;
    size_t off = mg__nav_line_start(fl, d->start_line), nl = strlen(d->name);
    size_t end = off + HEADER_MAX < fl->len ? off + HEADER_MAX : fl->len;
    size_t i = off; /* past the name's first whole-word occurrence */
    for (; i + nl <= end; i++)
        if (memcmp(t + i, d->name, nl) == 0 && (i == 0 || !idc(t[i - 1])) && (i + nl >= fl->len || !idc(t[i + nl])))
            break;
    if (i + nl > end) return;
    i += nl;
    bool py = strcmp(fl->lang, "python") == 0, line_ends = py || strcmp(fl->lang, "ruby") == 0;
    int paren = 0, angle = 0;
    for (; i < end && b->n < BASES_MAX; i++) {
        char c = t[i];
        if (c == '{' || c == ';' || (line_ends && c == '\n') || (py && c == ':' && paren == 0)) break;
        if (c == '(') paren++;
        else if (c == ')') {
            if (py && paren == 1) break;
            if (paren > 0) paren--;
        } else if (c == '<' && !(strcmp(fl->lang, "ruby") == 0 && angle == 0 && paren == 0)) angle++;
        else if (c == '>' && angle > 0) angle--;
        else if (idc(c) && !(c >= '0' && c <= '9')) {
            size_t s = i;
            while (i < end && idc(t[i])) i++;
            bool take = angle == 0 && (py ? paren == 1 : paren == 0) && i - s < sizeof(b->w[0]);
            if (take) {
                memcpy(b->w[b->n], t + s, i - s);
                b->w[b->n++][i - s] = 0;
            }
            i--;
        }
    }
}

/* ---- 2. derives and implements ------------------------------------------------------------------------- */

/* Does a type named c (in a language of lang's world) name t among its
 * bases, up to depth levels? */
static int derives(struct nav *v, const char *lang, const char *c, const char *t, int depth, bool *yes)
{
    *yes = false;
    struct resolved *rp = mg__nav_defs_of(v, c), rc;
    if (!rp) return -1;
    rc = *rp; /* a copy: a later lookup may move the cache's entries (their arrays stay) */
    const struct resolved *r = &rc;
    for (size_t i = 0; i < r->n && !*yes; i++) {
        struct file *fl;
        const struct mg_nav_def *d = mg__nav_resolved_def(v, r, i, &fl);
        if (!d || !class_like(d->kind) || !mg__nav_same_world(lang, fl->lang)) continue;
        if (!(fl = mg__nav_file(v, fl->id, true)) || !fl->text) {
            if (v->err->code) return -1;
            continue;
        }
        struct bases b;
        header_bases(fl, d, &b);
        for (size_t k = 0; k < b.n && !*yes; k++) *yes = strcmp(b.w[k], t) == 0;
        for (size_t k = 0; k < b.n && !*yes && depth > 1; k++)
            if (strcmp(b.w[k], c) != 0 && derives(v, lang, b.w[k], t, depth - 1, yes) != 0) return -1;
    }
    return 0;
}

/* Has Go type c a method of each name interface t declares (and t at least
 * one)? */
static int implements(struct nav *v, const char *c, const char *t, bool *yes)
{
    *yes = false;
    struct resolved *rp = mg__nav_defs_of(v, t), rc;
    if (!rp) return -1;
    rc = *rp; /* as in derives */
    const struct resolved *r = &rc;
    for (size_t i = 0; i < r->n && !*yes; i++) {
        struct file *fl;
        const struct mg_nav_def *d = mg__nav_resolved_def(v, r, i, &fl);
        if (!d || !d->kind || strcmp(d->kind, "interface") != 0 || strcmp(fl->lang, "go") != 0) continue;
        size_t methods = 0, met = 0;
        for (size_t k = 0; k < fl->ndefs; k++) {
            const struct mg_nav_def *m = &fl->defs[k];
            if (!m->container || strcmp(m->container, t) != 0 || !mg__nav_function_like(m->kind)) continue;
            methods++;
            struct resolved *rm = mg__nav_defs_of(v, m->name);
            if (!rm) return -1;
            for (size_t j = 0; j < rm->n; j++) {
                struct file *mf;
                const struct mg_nav_def *x = rm->cls[j] == RESOLVED_FN ? mg__nav_resolved_def(v, rm, j, &mf) : NULL;
                if (x && x->container && strcmp(x->container, c) == 0 && strcmp(mf->lang, "go") == 0) {
                    met++;
                    break;
                }
            }
        }
        *yes = methods > 0 && met == methods;
    }
    return 0;
}

int mg__nav_overrides(struct nav *v, const char *lang, const char *rtype, const struct mg_nav_def *d, bool *yes)
{
    *yes = false;
    if (!d->container || strcmp(d->container, rtype) == 0 || !mg__nav_function_like(d->kind)) return 0;
    if (strcmp(lang, "go") == 0) return implements(v, d->container, rtype, yes);
    return derives(v, lang, d->container, rtype, MAX_DEPTH, yes);
}

int mg__nav_dispatch_targets(struct nav *v, struct file *from, const char *name, const char *rtype,
                             struct mg_nav_dispatch **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    size_t cap = 0;
    struct resolved *rp = mg__nav_defs_of(v, name), rc;
    if (!rp) return -1;
    rc = *rp; /* as in derives */
    const struct resolved *r = &rc;
    for (size_t i = 0; i < r->n; i++) {
        struct file *fl;
        const struct mg_nav_def *d = r->cls[i] == RESOLVED_FN ? mg__nav_resolved_def(v, r, i, &fl) : NULL;
        bool yes;
        if (!d || !mg__nav_same_world(from->lang, fl->lang)) continue;
        if (mg__nav_overrides(v, from->lang, rtype, d, &yes) != 0) return -1;
        if (!yes) continue;
        struct mg_nav_dispatch *nv = mg_grow(*out, *n, &cap, sizeof(*nv));
        if (!nv) return mg_err_oom(v->err);
        *out = nv;
        (*out)[(*n)++] = (struct mg_nav_dispatch){d, fl};
    }
    return 0;
}

/* ---- 3. Python attributes --------------------------------------------------------------------------- */

/* Python's built-in types, typing's names for them, and the built-in functions whose result is one
 * (`open(…)` a file, `sorted(…)` a list): no method of the repo's is theirs. */
static const char PY_BUILTIN_TYPES[] = " dict list set frozenset tuple str bytes bytearray int float complex bool"
                                       " object Dict List Set FrozenSet Tuple Mapping MutableMapping Sequence"
                                       " MutableSequence MutableSet Iterable Iterator"
                                       " open len repr ascii sorted reversed enumerate zip range map filter format"
                                       " hex oct bin chr ord abs round divmod hash id input iter vars dir globals"
                                       " locals ";

/* str's and bytes' methods, each of whose results is a built-in value (a str, bytes, a list, a tuple). */
static const char PY_STR_METHODS[] = " split rsplit splitlines strip lstrip rstrip lower upper casefold title"
                                     " capitalize swapcase replace format join encode decode expandtabs center ljust"
                                     " rjust zfill partition rpartition removeprefix removesuffix translate ";

/* typing's names that wrap or stand for another type (`Optional[T]`): no class of the library's values. */
static const char PY_TYPING_WRAPPERS[] = " Optional Union Final ClassVar Annotated Any Type Callable Literal TypeVar"
                                         " Generic Protocol Self Required NotRequired TypeAlias TypeGuard ";

/* Is name a Python class of the repo's? */
static int py_class(struct nav *v, const char *name, bool *yes)
{
    *yes = false;
    struct resolved *r = mg__nav_defs_of(v, name);
    if (!r) return -1;
    for (size_t i = 0; i < r->n && !*yes; i++) {
        struct file *df;
        const struct mg_nav_def *d = mg__nav_resolved_def(v, r, i, &df);
        *yes = d && d->kind && strcmp(d->kind, "class") == 0 && strcmp(df->lang, "python") == 0;
    }
    return v->err->code ? -1 : 0;
}

/* cls names the value's type, or the function whose result the value is
 * (`x = f(…)`, `x = self.m(…)`: the last name called). When no class of
 * the repo's has that name and every Python function or method of it
 * declares the same `-> T`, T (cls rewritten); else cls is left. bare: the
 * name is called bare (`f(…)`), which reaches no method. -1 with err. */
static int py_result_of(struct nav *v, char *cls, size_t cap, bool bare)
{
    bool is_class;
    if (strchr(cls, '[') || mg__nav_in_words(PY_BUILTIN_TYPES, cls, strlen(cls)) || py_class(v, cls, &is_class) != 0 ||
        is_class) /* (a generic's type text names a type, no function) */
        return v->err->code ? -1 : 0;
    struct resolved *rp = mg__nav_defs_of(v, cls), rc;
    if (!rp) return -1;
    rc = *rp; /* as in derives */
    if (rc.n == 0 && mg__nav_in_words(PY_STR_METHODS, cls, strlen(cls)) && cap > 3) {
        strcpy(cls, "str"); /* `x = y.split(…)`: a method of str's the repo does not define: a built-in value */
        return 0;
    }
    char got[128] = "", ret[128];
    if (rc.n > 8) return 0; /* (a common name: no one answer) */
    for (size_t i = 0; i < rc.n; i++) {
        struct file *df;
        const struct mg_nav_def *d = mg__nav_resolved_def(v, &rc, i, &df);
        if (!d || strcmp(df->lang, "python") != 0 || !mg__nav_function_like(d->kind) ||
            (bare && strcmp(d->kind, "method") == 0))
            continue;
        if (!(df = mg__nav_file(v, df->id, true)) || !df->text) return v->err->code ? -1 : 0;
        d = mg__nav_resolved_def(v, &rc, i, &df); /* (read again with the file's text) */
        if (!d || !mg__nav_py_returns(df, d, ret, sizeof(ret)) || (got[0] && strcmp(got, ret) != 0)) return 0;
        strcpy(got, ret);
    }
    if (got[0] && strlen(got) < cap) strcpy(cls, got);
    return 0;
}

static int py_result(struct nav *v, char *cls, size_t cap) { return py_result_of(v, cls, cap, false); }

static int class_attr_of(struct nav *v, const char *cls, const char *a, size_t al, char *out, size_t cap, int depth,
                         bool *got, bool *lib);
static int py_eval(struct nav *v, const struct file *fl, size_t lo, size_t hi, int line, int depth, char *ty,
                   bool *lib);

/* The type a base of class c (in fl), or a base of theirs up to depth
 * levels, declares for `self.a` (*got, *lib as class_attr_of's). -1 with err. */
static int base_attr(struct nav *v, const struct file *fl, const struct mg_nav_def *c, const char *a, size_t al,
                     char *out, size_t cap, int depth, bool *got, bool *lib)
{
    struct bases bs;
    header_bases(fl, c, &bs);
    for (size_t k = 0; k < bs.n && !*got && depth > 0; k++)
        if (strcmp(bs.w[k], c->name) != 0 && class_attr_of(v, bs.w[k], a, al, out, cap, depth - 1, got, lib) != 0)
            return -1;
    return 0;
}

/* Whether type text ty, as file fl declares it (its qualifier at fl->text[qo], ql bytes), is a class of
 * the standard library's there (`argparse.Namespace()`, `StringIO` from io): not a built-in type or
 * typing's. */
static bool py_std_type(const struct file *fl, const char *ty, size_t qo, size_t ql)
{
    size_t hl = strcspn(ty, "[");
    if (mg__nav_in_words(PY_BUILTIN_TYPES, ty, hl) || mg__nav_in_words(PY_TYPING_WRAPPERS, ty, hl)) return false;
    return (ql && mg__nav_py_std_name(fl, fl->text + qo, ql)) || mg__nav_py_std_name(fl, ty, hl);
}

/* The attribute a (al bytes) of Python class cls: the type its class, or a
 * base of it up to depth levels, declares (*got), as a type text; *lib when
 * that is a class of the standard library's where it is declared. -1 with
 * err. */
static int class_attr_of(struct nav *v, const char *cls, const char *a, size_t al, char *out, size_t cap, int depth,
                         bool *got, bool *lib)
{
    *got = *lib = false;
    struct resolved *rp = mg__nav_defs_of(v, cls), rc;
    if (!rp) return -1;
    rc = *rp; /* as in derives */
    for (size_t i = 0; i < rc.n && !*got; i++) {
        struct file *df;
        const struct mg_nav_def *d = mg__nav_resolved_def(v, &rc, i, &df);
        if (!d || !d->kind || strcmp(d->kind, "class") != 0 || strcmp(df->lang, "python") != 0) continue;
        if (!(df = mg__nav_file(v, df->id, true)) || !df->text || mg__nav_file_defs(v, df) != 0) {
            if (v->err->code) return -1;
            continue;
        }
        if (!(d = mg__nav_resolved_def(v, &rc, i, &df))) continue; /* (read again with the file) */
        size_t qo, ql, lo, hi;
        int ln;
        char ty[128];
        if (mg__nav_py_class_attr(df, d, a, al, out, cap, &qo, &ql)) {
            *got = true;
            *lib = py_std_type(df, out, qo, ql);
        } else if (mg__nav_py_class_attr_expr(df, d, a, al, &lo, &hi, &ln)) { /* self.a = E: E's type */
            if (py_eval(v, df, lo, hi, ln, EVAL_DEPTH, ty, lib) != 0) return -1;
            *got = *lib || (ty[0] && strlen(ty) < cap);
            if (ty[0] && strlen(ty) < cap) strcpy(out, ty);
        } else if (base_attr(v, df, d, a, al, out, cap, depth, got, lib) != 0)
            return -1;
    }
    return 0;
}

/* The receiver is a call's result, `F(…).name` with the `)` at t[close]:
 * F's name in cls (a class: its instance; a function: what its `-> T`
 * says, py_result) and *got; *lib when F is reached from a module of the
 * standard library's (`os.path.realpath(…)`, `Path.cwd()`). */
static void py_call_result(const struct file *fl, size_t close, char *cls, size_t cap, bool *got, bool *lib)
{
    *got = *lib = false;
    const char *t = fl->text;
    size_t i = close, lo = close > 4096 ? close - 4096 : 0;
    int depth = 0;
    for (;; i--) { /* back to the `(` that opens the arguments */
        if (t[i] == ')' || t[i] == ']') depth++;
        else if ((t[i] == '(' || t[i] == '[') && --depth == 0) break;
        if (i == lo) return;
    }
    if (t[i] != '(') return;
    size_t e = i;
    while (e > 0 && (t[e - 1] == ' ' || t[e - 1] == '\t')) e--;
    size_t b = e;
    while (b > 0 && idc(t[b - 1])) b--;
    if (b == e || e - b >= cap || (t[b] >= '0' && t[b] <= '9')) return;
    size_t h = b; /* the head of `a.b.F`: a module of the library's? */
    while (h > 0 && t[h - 1] == '.') {
        size_t he = --h;
        while (h > 0 && idc(t[h - 1])) h--;
        if (h == he) return; /* `x().F(…)`: not followed */
        if (h > 0 && t[h - 1] != '.' && !idc(t[h - 1]) && (t[h - 1] == ')' || t[h - 1] == ']')) return;
        if (h == 0 || t[h - 1] != '.') {
            *lib = mg__nav_py_std_name(fl, t + h, he - h);
            if (*lib) return;
        }
    }
    memcpy(cls, t + b, e - b);
    cls[e - b] = 0;
    *got = true;
}

#define CHAIN_MAX 6 /* names in a chain `h.a.b.name` typed at most */

/* The receiver of the name at off is a chain `h.a1.….ak` (k >= 1, or k >= 2
 * after `self`): h typed as any receiver, each ai as the attribute of the
 * type before it. *lib: the chain starts at (or reaches) a value of the
 * standard library's or a built-in one, none of the repo's; else *got and
 * cls the chain's type. -1 with err. */
static int py_chain(struct nav *v, const struct file *fl, size_t off, int line, char *cls, size_t cap, bool *got,
                    bool *lib)
{
    *got = *lib = false;
    const char *t = fl->text;
    size_t at[CHAIN_MAX], n = 0, b = off;
    for (;;) { /* the names, from the last one back */
        if (n == CHAIN_MAX) return 0;
        at[n++] = b;
        while (b > 0 && (t[b - 1] == ' ' || t[b - 1] == '\t')) b--;
        if (b == 0 || t[b - 1] != '.') break;
        size_t e = --b;
        while (b > 0 && idc(t[b - 1])) b--;
        if (b == e) return 0; /* `).name`, `].name`: no name before */
    }
    if (b > 0 && (t[b - 1] == ')' || t[b - 1] == ']')) return 0;
    bool self = at[n - 1] + 4 < fl->len && memcmp(t + at[n - 1], "self", 4) == 0 && !idc(t[at[n - 1] + 4]);
    size_t first = n - (self ? 3 : 2); /* the name whose receiver is typed first: h, or self.a1 */
    if (n < (self ? 4u : 3u)) return 0; /* (h.name, self.a.name: not a chain) */
    if (mg__nav_receiver_stdlib(fl, at[first], line)) {
        *lib = true;
        return 0;
    }
    char ty[128];
    size_t qo, ql;
    if (!mg__nav_receiver_type(fl, at[first], line, ty, sizeof(ty), &qo, &ql)) return 0;
    if (ql && mg__nav_py_std_name(fl, t + qo, ql)) {
        *lib = true; /* (`x: doctest.DocTest`) */
        return 0;
    }
    for (size_t k = first; k > 0; k--) { /* the type of `… .name_k` */
        if (mg__nav_in_words(PY_BUILTIN_TYPES, ty, strlen(ty)) ||
            (!mg__nav_in_words(PY_TYPING_WRAPPERS, ty, strlen(ty)) && mg__nav_py_std_name(fl, ty, strlen(ty)))) {
            *lib = true;
            return 0;
        }
        size_t al = 0;
        while (at[k] + al < fl->len && idc(t[at[k] + al])) al++;
        char next[128];
        bool is, nlib;
        if (py_result(v, ty, sizeof(ty)) != 0) return -1;
        ty[strcspn(ty, "[")] = 0;
        if (class_attr_of(v, ty, t + at[k], al, next, sizeof(next), MAX_DEPTH, &is, &nlib) != 0) return -1;
        if (!is) return 0;
        if (nlib) { /* (`self.option = argparse.Namespace()` in the class's file) */
            *lib = true;
            return 0;
        }
        strcpy(ty, next);
        ty[strcspn(ty, "[")] = 0;
    }
    if (strlen(ty) >= cap) return 0;
    strcpy(cls, ty);
    *got = true;
    return 0;
}

/* ---- Python: the type of an expression ---- */

/* Methods and functions of the standard library's whose result is what they were given or anything at all
 * (a container's element, a future's result, a module's copy or cast): not a value of the library's. */
static const char PY_ANY_CALLS[] = " get pop popitem popleft setdefault result enter_context __enter__ send copy"
                                   " deepcopy cast replace proxy loads load import_module reload local unwrap"
                                   " choice choices sample heappop heappushpop heapreplace reduce ";

static bool py_builtin(const char *ty) { return mg__nav_in_words(PY_BUILTIN_TYPES, ty, strcspn(ty, "[")); }

/* Is the head of type text ty a Python class of the repo's? */
static int py_class_text(struct nav *v, const char *ty, bool *yes)
{
    char h[TY];
    snprintf(h, sizeof(h), "%.*s", (int)strcspn(ty, "["), ty);
    return py_class(v, h, yes);
}

/* The bracket that closes the one at t[i] ('(' or '['), strings skipped; hi when not before it. */
static size_t close_of(const char *t, size_t i, size_t hi)
{
    int depth = 0;
    for (; i < hi; i++) {
        char c = t[i];
        if (c == '"' || c == '\'') { /* (one line's string) */
            while (++i < hi && t[i] != c && t[i] != '\n') i += t[i] == '\\';
        } else if (c == '(' || c == '[' || c == '{') depth++;
        else if ((c == ')' || c == ']' || c == '}') && --depth == 0) return i;
    }
    return hi;
}

/* The argument k of the call whose `(` is t[open] and `)` t[close], keyword and star arguments not
 * counted: its text's range; false when there is none. */
static bool py_arg_range(const char *t, size_t open, size_t close, int k, size_t *lo, size_t *hi)
{
    int n = 0;
    for (size_t s = open + 1, i = s; i <= close; i++) {
        char c = t[i];
        if (i < close && (c == '(' || c == '[' || c == '{')) {
            i = close_of(t, i, close);
            continue;
        }
        if (i < close && (c == '"' || c == '\'')) {
            while (++i < close && t[i] != c && t[i] != '\n') i += t[i] == '\\';
            continue;
        }
        if (i < close && c != ',') continue;
        size_t a = s;
        while (a < i && (t[a] == ' ' || t[a] == '\t' || t[a] == '\n' || t[a] == '\r')) a++;
        size_t w = mg_cscan_ident(t, i, a), eq = mg__nav_sp(t, i, a + w);
        bool kw = w && eq + 1 < i && t[eq] == '=' && t[eq + 1] != '=';
        if (a < i && t[a] != '*' && !kw && n++ == k) {
            *lo = a;
            *hi = i;
            return true;
        }
        s = i + 1;
    }
    return false;
}

/* The value of the call `h(…)` (h the hl bytes at t[h0], its `(` at t[open], `)` at t[close]): the built-in
 * functions that keep their argument's elements (`sorted(x)`, `list(x)`, `enumerate(x)`, `zip(a, b)`: a list
 * of them), a class of the standard library's or one of its functions (*lib), a class of the repo's (its
 * instance), a built-in's, a function's `-> T` (py_result). */
static int py_call(struct nav *v, const struct file *fl, size_t h0, size_t hl, size_t open, size_t close, int line,
                   int depth, char *ty, bool *lib)
{
    const char *t = fl->text, *h = t + h0;
    const struct mg_nav_def *fn = mg__nav_enclosing(fl, line, true);
    if (hl >= TY || (fn && mg__nav_py_local(fl, fn, h, hl))) return 0; /* (a local callable: not known) */
    if (mg__nav_in_words(" sorted list reversed tuple set frozenset iter enumerate zip ", h, hl)) {
        char el[2][TY] = {"", ""};
        int n = h[0] == 'z' ? 2 : 1;
        for (int k = 0; k < n && depth > 0; k++) {
            size_t a, b;
            char at[TY];
            bool alib, bi;
            if (!py_arg_range(t, open, close, k, &a, &b)) break;
            if (py_eval(v, fl, a, b, line, depth - 1, at, &alib) != 0) return -1;
            if (!alib && at[0] && !mg__nav_py_elem(at, "in", -1, el[k], TY, &bi)) el[k][0] = 0;
        }
        char pair[TY];
        if (h[0] == 'e' && el[0][0] && snprintf(pair, sizeof(pair), "Tuple[int,%s]", el[0]) < (int)sizeof(pair))
            snprintf(ty, TY, "List[%s]", pair);
        else if (h[0] == 'z' && el[0][0] && el[1][0] &&
                 snprintf(pair, sizeof(pair), "Tuple[%s,%s]", el[0], el[1]) < (int)sizeof(pair))
            snprintf(ty, TY, "List[%s]", pair);
        else if (h[0] != 'e' && h[0] != 'z' && el[0][0])
            snprintf(ty, TY, "List[%s]", el[0]);
        if (!ty[0] || strlen(ty) == TY - 1) snprintf(ty, TY, "list"); /* (a list of what is not known) */
        return 0;
    }
    if (mg__nav_py_std_name(fl, h, hl)) { /* `StringIO()`, `deepcopy(x)` */
        *lib = !mg__nav_in_words(PY_ANY_CALLS, h, hl);
        return 0;
    }
    char r[TY];
    snprintf(r, sizeof(r), "%.*s", (int)hl, h);
    if (py_result_of(v, r, sizeof(r), true) != 0) return -1;
    bool changed = strlen(r) != hl || memcmp(r, h, hl) != 0, is = false; /* (changed: a function's `-> T`) */
    if (!changed && !py_builtin(r) && py_class(v, r, &is) != 0) return -1;
    if (changed || py_builtin(r) || is) strcpy(ty, r);
    return 0;
}

/* The type one binding of a name gives it (py_name): a type text or *lib; "" not known. */
static int py_bound(struct nav *v, const struct file *fl, const struct mg__nav_py_bind *b, int line, int depth,
                    char *ty, bool *lib)
{
    char et[TY], el[TY];
    bool elib, bi;
    ty[0] = 0;
    *lib = false;
    if (b->how == MG_PY_TYPE) {
        if (py_std_type(fl, b->ty, b->qoff, b->qlen)) *lib = true;
        else if (strlen(b->ty) < TY) strcpy(ty, b->ty);
        return 0;
    }
    if (b->how == MG_PY_NONE || depth <= 0) return 0;
    if (py_eval(v, fl, b->lo, b->hi, line, depth - 1, et, &elib) != 0) return -1;
    if (b->how == MG_PY_EXPR) {
        strcpy(ty, et);
        *lib = elib;
        return 0;
    }
    /* an element of it (of a library's value: not known); of a tuple, its place's */
    if (elib || !et[0] || !mg__nav_py_elem(et, "in", -1, el, sizeof(el), &bi)) return 0;
    if (b->pos < 0) strcpy(ty, el);
    else if (!mg__nav_py_elem(el, "[]", b->pos, ty, TY, &bi)) ty[0] = 0;
    return 0;
}

/* The value of the name at t[at, at + nl): `self` the enclosing method's class; else what binds it
 * (mg__nav_py_binds: a comprehension's element, an assert's type, or the function's own bindings before
 * it, which must agree: one class, or values none of whose attributes are the repo's); else receiver's
 * rules (a module's name...), a class of the repo's, a module or class the file imports from the
 * standard library (*lib). */
static int py_name(struct nav *v, const struct file *fl, size_t at, size_t nl, int line, int depth, char *ty,
                   bool *lib)
{
    const char *t = fl->text;
    const struct mg_nav_def *fn = mg__nav_enclosing(fl, line, true);
    if (nl == 4 && memcmp(t + at, "self", 4) == 0 && fn && fn->container) {
        snprintf(ty, TY, "%s", fn->container);
        return 0;
    }
    struct mg__nav_py_bind b[4];
    int n = mg__nav_py_binds(fl, at, nl, line, b, 4);
    if (n < 0) return 0; /* a lambda's parameter, or too many */
    bool same = true, none = true, elems = true; /* one type text; none of the repo's; one element */
    char el[TY] = "";
    for (int k = 0; k < n; k++) {
        char bt[TY], be[TY];
        bool blib, bi;
        if (py_bound(v, fl, &b[k], line, depth, bt, &blib) != 0) return -1;
        if (!blib && !bt[0]) { /* (one not known: none) */
            ty[0] = 0;
            return 0;
        }
        if (k == 0) strcpy(ty, bt);
        same &= !blib && strcmp(ty, bt) == 0;
        none &= blib || py_builtin(bt);
        if (blib || !py_builtin(bt) || !mg__nav_py_elem(bt, "in", -1, be, sizeof(be), &bi)) elems = false;
        else if (k == 0) strcpy(el, be);
        else elems &= strcmp(el, be) == 0;
        if (!same && !none) {
            ty[0] = 0;
            return 0;
        }
    }
    if (n > 0) { /* (values of built-in types that hold one type: an iterable of it) */
        if (!same && elems && snprintf(ty, TY, "Iterable[%s]", el) < TY) return 0;
        if (!same) ty[0] = 0;
        *lib = !same;
        return 0;
    }
    size_t qo = 0, ql = 0;
    if (!mg__nav_py_name_type(fl, at, nl, line, ty, TY, &qo, &ql)) {
        ty[0] = 0;
        char h[TY];
        bool is;
        snprintf(h, sizeof(h), "%.*s", (int)(nl < TY ? nl : 0), t + at);
        if (!h[0] || py_class(v, h, &is) != 0) return v->err->code ? -1 : 0;
        if (is) strcpy(ty, h); /* a class of the repo's: its attributes are its class's */
        else *lib = mg__nav_py_std_name(fl, t + at, nl); /* `os`, `sys` */
        return 0;
    }
    if (py_std_type(fl, ty, qo, ql)) {
        ty[0] = 0;
        *lib = true;
        return 0;
    }
    return py_result(v, ty, TY); /* x = f(…): what f's `-> T` says */
}

static int py_eval_in(struct nav *v, const struct file *fl, size_t lo, size_t hi, int line, int depth, char *ty,
                      bool *lib);

static int py_eval(struct nav *v, const struct file *fl, size_t lo, size_t hi, int line, int depth, char *ty,
                   bool *lib)
{
    ty[0] = 0;
    *lib = false;
    if (v->py_depth >= EVAL_NEST) return 0;
    v->py_depth++;
    int r = py_eval_in(v, fl, lo, hi, line, depth, ty, lib);
    v->py_depth--;
    return r;
}

/* One operand of a Python expression at t[*at] (before hi): a primary (a name, a call, a string literal, a
 * list or dict display, a parenthesized expression or a tuple) and what follows it: `.a` (an attribute of
 * a class of the repo's, class_attr_of; of a library's value, the library's), `.m(…)` (a method: its
 * `-> T`; a built-in type's, mg__nav_py_elem), `[i]` (an element, a slice, a class's `__getitem__`).
 * Its type text (ty, TY bytes; "" not known) or *lib; *at past it. -1 with err. */
static int py_operand(struct nav *v, const struct file *fl, size_t *at, size_t hi, int line, int depth, char *ty,
                      bool *lib)
{
    ty[0] = 0;
    *lib = false;
    const char *t = fl->text;
    size_t i = mg__nav_sp(t, hi, *at), l = mg_cscan_ident(t, hi, i);
    bool quote = i < hi && (t[i] == '"' || t[i] == '\'');
    if (!quote && l && l <= 2 && i + l < hi && (t[i + l] == '"' || t[i + l] == '\'')) { /* f"…", rb'…' */
        quote = true;
        for (size_t k = i; k < i + l; k++) quote &= strchr("rbfuRBFU", t[k]) != NULL;
        if (quote) i += l;
    }
    if (quote) {
        char c = t[i];
        while (++i < hi && t[i] != c && t[i] != '\n') i += t[i] == '\\';
        if (i++ >= hi) return 0;
        strcpy(ty, "str");
    } else if (i < hi && (t[i] == '[' || t[i] == '{')) {
        strcpy(ty, t[i] == '[' ? "list" : "dict");
        if ((i = close_of(t, i, hi)) >= hi) return 0;
        i++;
    } else if (i < hi && t[i] == '(') { /* (E): E's type; (a, b): a tuple; (x for …): not known */
        size_t e = close_of(t, i, hi), d = 0;
        if (e >= hi) return 0;
        bool tuple = false, gen = false;
        for (size_t k = i + 1; k < e; k++) {
            if (t[k] == '"' || t[k] == '\'') {
                char c = t[k];
                while (++k < e && t[k] != c && t[k] != '\n') k += t[k] == '\\';
            } else if (t[k] == '(' || t[k] == '[' || t[k] == '{') d++;
            else if (t[k] == ')' || t[k] == ']' || t[k] == '}') d--;
            else if (d == 0 && t[k] == ',') tuple = true;
            else if (d == 0 && k + 3 < e && memcmp(t + k, "for", 3) == 0 && !idc(t[k - 1]) && !idc(t[k + 3]))
                gen = true;
        }
        if (gen) return 0;
        if (tuple) strcpy(ty, "tuple");
        else if (py_eval(v, fl, i + 1, e, line, depth, ty, lib) != 0) return -1;
        i = e + 1;
    } else if (i < hi && t[i] >= '0' && t[i] <= '9') { /* a number */
        while (i < hi && (idc(t[i]) || t[i] == '.')) i++;
        strcpy(ty, "int");
    } else if (l && mg__nav_in_words(" None True False ", t + i, l)) {
        strcpy(ty, t[i] == 'N' ? "object" : "bool"); /* (None: no attribute of the repo's) */
        i += l;
    } else if (l) {
        size_t c = mg__nav_sp(t, hi, i + l);
        if (c < hi && t[c] == '(') {
            size_t e = close_of(t, c, hi);
            if (e >= hi || py_call(v, fl, i, l, c, e, line, depth, ty, lib) != 0) return e >= hi ? 0 : -1;
            i = e + 1;
        } else {
            if (py_name(v, fl, i, l, line, depth, ty, lib) != 0) return -1;
            i += l;
        }
    } else
        return 0;
    for (int k = 0; k < 8; k++) { /* what follows (a value not known may be known again: `.split(…)`) */
        if (i >= hi) break;
        if (t[i] == '.') {
            size_t a = i + 1, al = mg_cscan_ident(t, hi, a), c = mg__nav_sp(t, hi, a + al), e = 0;
            bool call = c < hi && t[c] == '(';
            if (!al || al >= TY || (call && (e = close_of(t, c, hi)) >= hi)) goto unknown;
            i = call ? e + 1 : a + al;
            if (*lib) { /* a library's value's attribute or method: the library's, but for what returns anything */
                if (call && mg__nav_in_words(PY_ANY_CALLS, t + a, al)) *lib = false;
                continue;
            }
            char m[TY], next[TY];
            bool bi, is = false, nlib;
            snprintf(m, sizeof(m), "%.*s", (int)al, t + a);
            if (ty[0] && py_builtin(ty)) {
                if (!call) *lib = true; /* (a built-in value's attribute) */
                else if (!mg__nav_py_elem(ty, m, -1, next, sizeof(next), &bi))
                    *lib = !mg__nav_in_words(PY_ANY_CALLS, m, al); /* (a dict's get of what is not known: no) */
                else if (!next[0]) *lib = true;
                else {
                    strcpy(ty, next);
                    continue;
                }
                ty[0] = 0;
                continue;
            }
            if (ty[0] && py_class_text(v, ty, &is) != 0) return -1;
            if (is) {
                char h[TY];
                snprintf(h, sizeof(h), "%.*s", (int)strcspn(ty, "["), ty);
                if (class_attr_of(v, h, t + a, al, next, sizeof(next), MAX_DEPTH, &is, &nlib) != 0) return -1;
                ty[0] = 0;
                *lib = is && nlib;
                if (is && !nlib) {
                    strcpy(ty, next);
                    if (py_result(v, ty, TY) != 0) return -1;
                }
                continue;
            }
            /* a value not known: `y.split(…)`, a method of str's the repo defines none of, is str's */
            ty[0] = 0;
            if (!call || !mg__nav_in_words(PY_STR_METHODS, m, al)) continue;
            struct resolved *r = mg__nav_defs_of(v, m);
            if (!r) return -1;
            if (r->n == 0 && mg__nav_py_elem("str", m, -1, ty, TY, &bi)) *lib = !ty[0];
        } else if (t[i] == '[') {
            size_t e = close_of(t, i, hi), d = 0, x = mg__nav_sp(t, e, i + 1);
            if (e >= hi) goto unknown;
            bool slice = false, bi, is = false, nlib;
            for (size_t k2 = i + 1; k2 < e; k2++) { /* a `:` of the subscript's own: a slice */
                if (t[k2] == '(' || t[k2] == '[' || t[k2] == '{') d++;
                else if (t[k2] == ')' || t[k2] == ']' || t[k2] == '}') d--;
                else slice |= d == 0 && t[k2] == ':';
            }
            long index = -1;
            if (x < e && t[x] >= '0' && t[x] <= '9' && mg__nav_sp(t, e, x + 1) == e) index = t[x] - '0';
            i = e + 1;
            char next[TY];
            *lib = false; /* (a library value's element: not known) */
            if (ty[0] && py_builtin(ty)) {
                if (!mg__nav_py_elem(ty, slice ? "[:]" : "[]", index, next, sizeof(next), &bi)) next[0] = 0;
                strcpy(ty, next);
                continue;
            }
            if (ty[0] && py_class_text(v, ty, &is) != 0) return -1;
            if (is) {
                char h[TY];
                snprintf(h, sizeof(h), "%.*s", (int)strcspn(ty, "["), ty);
                if (class_attr_of(v, h, "__getitem__", 11, next, sizeof(next), MAX_DEPTH, &is, &nlib) != 0) return -1;
            }
            if (is && !nlib) strcpy(ty, next);
            else ty[0] = 0;
        } else
            break;
    }
    *at = i;
    return 0;
unknown:
    ty[0] = 0;
    *lib = false;
    *at = hi;
    return 0;
}

/* A binary operator at t[i] (before hi): its length, 0 when none (`+`, `//`, `<=`, `and`, `not in`, `is
 * not`, `if`, `else`...). */
static size_t py_op(const char *t, size_t hi, size_t i)
{
    static const char *const two[] = {"**", "//", "<<", ">>", "<=", ">=", "==", "!="};
    for (size_t k = 0; k < sizeof(two) / sizeof(two[0]); k++)
        if (i + 2 <= hi && memcmp(t + i, two[k], 2) == 0) return 2;
    if (i < hi && strchr("+-*/%@&|^<>", t[i])) return 1;
    size_t w = mg_cscan_ident(t, hi, i);
    if (!w || !mg__nav_in_words(" and or in not is if else ", t + i, w)) return 0;
    size_t n = mg__nav_sp(t, hi, i + w), w2 = mg_cscan_ident(t, hi, n); /* not in, is not */
    if (w2 && ((w == 3 && w2 == 2 && memcmp(t + n, "in", 2) == 0) ||
               (w == 2 && w2 == 3 && memcmp(t + n, "not", 3) == 0)))
        return n + w2 - i;
    return w == 3 && memcmp(t + i, "not", 3) == 0 ? 0 : w;
}

/* The type of the Python expression t[lo, hi) (on line, in its function), as a type text (ty, TY bytes;
 * "" not known), or *lib: a value none of whose attributes is the repo's (the standard library's, a
 * built-in one's). Operands (py_operand) joined by operators are such a value when each of them is (an
 * operator of a built-in or library type's, and no reflected one of the repo's), their one built-in type
 * when they share it; a str's `%` is a str. depth bounds the names typed through what bound them. -1 with
 * err. */
static int py_eval_in(struct nav *v, const struct file *fl, size_t lo, size_t hi, int line, int depth, char *ty,
                      bool *lib)
{
    ty[0] = 0;
    *lib = false;
    const char *t = fl->text;
    if (hi > fl->len) hi = fl->len;
    if (lo >= hi || hi - lo > 4096 || mg__nav_late(v->deadline)) return 0;
    bool same = true, none = true;
    size_t i = lo;
    int n = 0;
    for (; n < 8; n++) {
        char ot[TY];
        bool olib, neg = false;
        i = mg__nav_sp(t, hi, i);
        while (mg_cscan_ident(t, hi, i) == 3 && memcmp(t + i, "not", 3) == 0) { /* not x: a bool */
            neg = true;
            i = mg__nav_sp(t, hi, i + 3);
        }
        while (i < hi && (t[i] == '-' || t[i] == '+' || t[i] == '~')) i = mg__nav_sp(t, hi, i + 1);
        if (py_operand(v, fl, &i, hi, line, depth, ot, &olib) != 0) return -1;
        if (neg && (ot[0] || olib)) {
            strcpy(ot, "bool");
            olib = false;
        }
        if (n == 0) {
            strcpy(ty, ot);
            *lib = olib;
        }
        same &= !olib && strcmp(ty, ot) == 0;
        none &= olib || (ot[0] && py_builtin(ot));
        i = mg__nav_sp(t, hi, i);
        if (i >= hi || strchr("\n\r#;:", t[i])) break;
        size_t op = py_op(t, hi, i);
        if (!op) break;
        if (n == 0 && strcmp(ty, "str") == 0 && t[i] == '%') return 0; /* "…" % x: a str */
        i += op;
    }
    i = mg__nav_sp(t, hi, i);
    if (n == 8 || (i < hi && !strchr("\n\r#;:", t[i]))) { /* (more than it reads) */
        ty[0] = 0;
        *lib = false;
    } else if (n > 0 && !(same && none)) {
        if (!none) ty[0] = 0;
        *lib = none && !same;
        if (*lib) ty[0] = 0;
    }
    return 0;
}

/* Where the Python expression that ends at t[end] (the `.` of `E.name`) starts, back over names, dots,
 * calls, subscripts and a string literal, not before lo; SIZE_MAX when there is none. */
static size_t py_expr_start(const char *t, size_t lo, size_t end)
{
    size_t p = end;
    for (int k = 0; k < 16 && p > lo; k++) {
        char c = t[p - 1];
        if (c == ')' || c == ']') {
            int depth = 0;
            while (p > lo) {
                char d = t[--p];
                if (d == '"' || d == '\'') /* back over a string (of one line) */
                    while (p > lo && t[p - 1] != d && t[p - 1] != '\n') p--;
                if ((d == '"' || d == '\'') && p > lo && t[p - 1] == d) p--;
                else if (d == ')' || d == ']' || d == '}') depth++;
                else if ((d == '(' || d == '[' || d == '{') && --depth == 0) break;
            }
            if (depth != 0) return SIZE_MAX;
            if (p > lo && (idc(t[p - 1]) || t[p - 1] == ')' || t[p - 1] == ']')) continue;
            return p; /* (a list display, a parenthesized expression) */
        }
        if (c == '"' || c == '\'') {
            size_t q = p - 1;
            while (q > lo && t[q - 1] != c && t[q - 1] != '\n') q--;
            if (q == lo || t[q - 1] != c) return SIZE_MAX;
            return q - 1;
        }
        if (!idc(c)) break;
        while (p > lo && idc(t[p - 1])) p--;
        if (t[p] >= '0' && t[p] <= '9') return SIZE_MAX;
        if (p > lo && t[p - 1] == '.') {
            p--;
            continue;
        }
        return p;
    }
    return SIZE_MAX;
}

/* The receiver E of Python's `E.name` at off, typed by py_eval: *lib (a library's or a built-in value),
 * else cls the repo's class it is ("": not known). -1 with err. */
static int py_receiver_eval(struct nav *v, const struct file *fl, size_t off, int line, char *cls, size_t cap,
                            bool *lib)
{
    cls[0] = 0;
    *lib = false;
    const char *t = fl->text;
    size_t dot = off;
    while (dot > 0 && (t[dot - 1] == ' ' || t[dot - 1] == '\t')) dot--;
    if (dot == 0 || t[dot - 1] != '.') return 0;
    dot--;
    size_t s = py_expr_start(t, dot > 4096 ? dot - 4096 : 0, dot);
    char ty[TY];
    bool is;
    if (s == SIZE_MAX || s >= dot || py_eval(v, fl, s, dot, line, EVAL_DEPTH, ty, lib) != 0)
        return s == SIZE_MAX || s >= dot ? 0 : -1;
    if (*lib || !ty[0]) return 0;
    if (py_builtin(ty)) {
        *lib = true;
        return 0;
    }
    ty[strcspn(ty, "[")] = 0;
    if (py_class(v, ty, &is) != 0) return -1;
    if (is && strlen(ty) < cap) strcpy(cls, ty);
    return 0;
}

/* nav_int.h */
int mg__nav_py_attr_misses(struct nav *v, const struct file *fl, size_t off, int line, const char *name, bool *yes,
                           char *type, size_t cap)
{
    *yes = false;
    if (type && cap) type[0] = 0;
    if (!fl->lang || strcmp(fl->lang, "python") != 0 || !fl->text || off > fl->len) return 0;
    const char *t = fl->text;
    size_t b = off;
    while (b > 0 && (t[b - 1] == ' ' || t[b - 1] == '\t')) b--;
    if (b == 0 || t[b - 1] != '.') return 0;
    size_t e = --b;
    while (b > 0 && idc(t[b - 1])) b--;
    if ((e - b == 8 && memcmp(t + b, "__dict__", 8) == 0) || /* x.__dict__ is a dict, whatever x */
        (b == e && b > 0 && (t[b - 1] == '"' || t[b - 1] == '\''))) { /* "…".join(: a str or bytes */
        *yes = true;
        return 0;
    }
    char cls[128];
    bool sup = b == e && e >= 7 && memcmp(t + e - 7, "super()", 7) == 0 && (e == 7 || !idc(t[e - 8]));
    if (sup) { /* super().name: a method of the enclosing class's bases */
        const struct mg_nav_def *fn = mg__nav_enclosing(fl, line, true);
        if (!fn || !fn->container || strlen(fn->container) >= sizeof(cls)) return 0;
        strcpy(cls, fn->container);
    } else if (b == e && b > 0 && t[b - 1] == ')') { /* F(…).name */
        bool got, lib;
        py_call_result(fl, b - 1, cls, sizeof(cls), &got, &lib);
        if (lib) {
            *yes = true;
            return 0;
        }
        if (!got) cls[0] = 0;
    } else if (b == e || !mg__nav_receiver_type(fl, off, line, cls, sizeof(cls), NULL, NULL)) {
        /* self.a that a base class declares, or a longer chain */
        bool got = false, lib = false;
        const struct mg_nav_def *fn = mg__nav_enclosing(fl, line, true), *c = fn ? mg__nav_py_class_of(fl, fn) : NULL;
        if (c && b >= 5 && memcmp(t + b - 5, "self.", 5) == 0 && (b == 5 || !idc(t[b - 6]))) {
            if (base_attr(v, fl, c, t + b, e - b, cls, sizeof(cls), MAX_DEPTH, &got, &lib) != 0) return -1;
            cls[strcspn(cls, "[")] = 0;
        } else if (b > 0 && t[b - 1] == '.' && py_chain(v, fl, off, line, cls, sizeof(cls), &got, &lib) != 0)
            return -1;
        if (lib) {
            *yes = true;
            return 0;
        }
        if (!got) cls[0] = 0;
    }
    bool fell = false; /* typed by py_eval: not remembered (another receiver of the same raw type may differ) */
    if (!cls[0]) { /* not known so: the receiver expression typed (an element, a loop's variable, a method's result) */
        bool lib;
        if (py_receiver_eval(v, fl, off, line, cls, sizeof(cls), &lib) != 0) return -1;
        if (lib) {
            *yes = true;
            return 0;
        }
        if (!cls[0]) return 0;
        fell = true;
    }
    if (!sup && !fell && v->self_name && v->self_fid == fl->id && strcmp(v->self_name, name) == 0 &&
        strcmp(v->self_cls, cls) == 0) {
        *yes = v->self_miss;
        if (type && v->self_known && strlen(v->self_type) < cap) strcpy(type, v->self_type);
        return 0;
    }
    char raw[sizeof(cls)];
    strcpy(raw, cls);
    if (!sup && py_result(v, cls, sizeof(cls)) != 0) return -1; /* x = f(…): what f's `-> T` says */
    cls[strcspn(cls, "[")] = 0;
    bool self = sup || (e - b == 4 && memcmp(t + b, "self", 4) == 0), known = self;
    /* a built-in type, or a class of the standard library's: none of the repo's */
    bool none = mg__nav_in_words(PY_BUILTIN_TYPES, cls, strlen(cls)) ||
                (!sup && !mg__nav_in_words(PY_TYPING_WRAPPERS, cls, strlen(cls)) &&
                 mg__nav_py_std_name(fl, cls, strlen(cls)));
    if (!none && !known && py_class(v, cls, &known) != 0) return -1;
    if (!none && !known && !fell) { /* a type not known so (a function's result...): the receiver typed */
        bool lib;
        char ec[sizeof(cls)];
        if (py_receiver_eval(v, fl, off, line, ec, sizeof(ec), &lib) != 0) return -1;
        if (lib || ec[0]) fell = true;
        if (lib) none = true;
        else if (ec[0]) {
            strcpy(cls, ec);
            known = true;
        }
    }
    bool reach = !none && !known; /* a type the repo does not define (a function's result...): may be */
    struct resolved *rp = none ? NULL : mg__nav_defs_of(v, name), rc = {0};
    if (!none && !rp) return -1;
    if (rp) rc = *rp; /* as in derives */
    for (size_t i = 0; i < rc.n && !reach; i++) {
        struct file *df;
        const struct mg_nav_def *d = mg__nav_resolved_def(v, &rc, i, &df);
        if (!d) {
            if (v->err->code) return -1;
            continue;
        }
        if (!d->container || strcmp(df->lang, "python") != 0) continue; /* a function: no attribute of a value */
        if (!sup && strcmp(d->container, cls) == 0) {
            reach = true;
            break;
        }
        if (derives(v, "python", cls, d->container, MAX_DEPTH, &reach) != 0 ||
            (!reach && !sup && derives(v, "python", d->container, cls, MAX_DEPTH, &reach) != 0))
            return -1;
    }
    *yes = !reach;
    if (!sup && type && known && strlen(cls) < cap) strcpy(type, cls);
    /* (not remembered: self.name of the same class reaches more; py_eval's answer; a type not known) */
    if (sup || fell || (!none && !known)) return 0;
    char *keep = strdup(name);
    if (!keep) return mg_err_oom(v->err);
    free(v->self_name);
    v->self_name = keep;
    v->self_fid = fl->id; /* (the standard library's names are the file's imports) */
    snprintf(v->self_cls, sizeof(v->self_cls), "%s", raw);
    snprintf(v->self_type, sizeof(v->self_type), "%s", cls);
    v->self_miss = *yes;
    v->self_known = known;
    return 0;
}

/* nav.h */
size_t mg_nav_bases(const char *lang, const char *text, size_t len, const char *name, int line,
                    void (*cb)(void *ud, const char *base), void *ud)
{
    struct file fl = {.lang = (char *)lang, .text = (char *)text, .len = len};
    struct mg_nav_def d = {.name = (char *)name, .kind = "class", .start_line = line};
    struct bases b;
    header_bases(&fl, &d, &b);
    for (size_t i = 0; i < b.n; i++) cb(ud, b.w[i]);
    return b.n;
}
