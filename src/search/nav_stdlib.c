/* nav_stdlib.c — calls into the standard library (nav_int.h): `shutil.copy(…)`
 * in Python and `bufio.NewWriter(…)` in Go call the standard library's
 * function, never the repository's `copy` or `NewWriter`. The receiver is a
 * name the file binds by an import of a standard-library module:
 *   Python: `import R`, `import M as R`, `from M import R` (also `R as …`, in
 *           parentheses over several lines) with M's first part in the list;
 *   Go:     `import "p"`, `import R "p"`, or a line of an `import ( … )`
 *           block, R the alias or the path's last element, p's first element
 *           in the list (the standard library's import paths).
 * The lists are the top-level packages of CPython 3.12 and Go 1.22 that
 * repositories import; a name shadowed by a local of the same name is taken as
 * the module (rare in both languages: linters flag it).
 *
 * The same reader of Python imports, counting every module, tells which
 * bare names a file binds (section 5): a bare name that the file neither
 * defines in sight nor imports is a local, a parameter or a builtin.
 *
 * Sections:
 *   1. the lists
 *   2. Python imports
 *   3. Go imports
 *   4. the receiver
 *   5. bare Python names, and the names of modules in imports
 */
#include "search/nav_int.h"

#include <stdlib.h>
#include <string.h>

#include "index/lex.h"
#include "util/buf.h"

/* ---- 1. the lists ---------------------------------------------------------------------------------- */

static const char PY_STDLIB[] =
    " abc argparse array ast asyncio atexit base64 binascii bisect builtins bz2 calendar cmath codecs collections"
    " colorsys compileall concurrent configparser contextlib contextvars copy copyreg cProfile csv ctypes curses"
    " dataclasses datetime dbm decimal difflib dis doctest email encodings enum errno faulthandler fcntl filecmp"
    " fileinput fnmatch fractions ftplib functools gc getopt getpass gettext glob graphlib grp gzip hashlib heapq"
    " hmac html http imaplib importlib inspect io ipaddress itertools json keyword linecache locale logging lzma"
    " mailbox marshal math mimetypes mmap multiprocessing netrc numbers operator optparse os pathlib pdb pickle"
    " pkgutil platform plistlib poplib posix posixpath pprint profile pstats pty pwd py_compile queue quopri random"
    " re readline reprlib resource rlcompleter runpy sched secrets select selectors shelve shlex shutil signal site"
    " smtplib socket socketserver sqlite3 ssl stat statistics string stringprep struct subprocess symtable sys"
    " sysconfig syslog tabnanny tarfile tempfile termios textwrap threading time timeit token tokenize tomllib"
    " trace traceback tracemalloc tty types typing unicodedata unittest urllib uuid venv warnings wave weakref"
    " webbrowser xml xmlrpc zipapp zipfile zipimport zlib zoneinfo ";

static const char GO_STDLIB[] =
    " archive bufio bytes cmp compress container context crypto database debug embed encoding errors expvar flag"
    " fmt go hash html image index io iter log maps math mime net os path plugin reflect regexp runtime slices sort"
    " strconv strings sync syscall testing text time unicode unique unsafe ";

static bool idc(char c) { return mg_lex_id_char((unsigned char)c); }

static const char *ws(const char *s, const char *e)
{
    while (s < e && (*s == ' ' || *s == '\t')) s++;
    return s;
}

/* The dotted name at s: its end; *top the length of its first part. */
static const char *dotted(const char *s, const char *e, size_t *top)
{
    const char *b = s;
    while (s < e && idc(*s)) s++;
    *top = (size_t)(s - b);
    while (s < e && (idc(*s) || *s == '.')) s++;
    return s;
}

static bool word_is(const char *s, const char *e, const char *w)
{
    size_t n = strlen(w);
    return (size_t)(e - s) > n && memcmp(s, w, n) == 0 && (s[n] == ' ' || s[n] == '\t');
}

/* ---- 2. Python imports ----------------------------------------------------------------------------- */

/* In "a, b as c, (d)" up to e: whether r (rl bytes) is bound, each name's
 * first part checked against the list when std is false (`import` lines);
 * `*` binds every name when star. With all, every name bound so is added
 * to it (" name"), and none is r. */
static bool py_binds(const char *s, const char *e, const char *r, size_t rl, bool std, bool star, bool *open,
                     struct mg_buf *all)
{
    while (s < e) {
        s = ws(s, e);
        if (s < e && *s == '(') {
            *open = true;
            s++;
            continue;
        }
        if (s < e && *s == ')') *open = false;
        size_t top;
        const char *n = s, *ne = dotted(s, e, &top);
        if (ne == n) {
            if (star && s < e && *s == '*') return true;
            if (s < e && *s != ',' && *s != ')' && *s != '\\') return false;
            s++;
            continue;
        }
        const char *bound = n;
        size_t bl = top;
        bool module_std = std || mg__nav_in_words(PY_STDLIB, n, top);
        s = ws(ne, e);
        if (word_is(s, e, "as")) {
            s = ws(s + 2, e);
            bound = s;
            while (s < e && idc(*s)) s++;
            bl = (size_t)(s - bound);
        }
        if (module_std && all && bl && (mg_buf_addc(all, ' ') != 0 || mg_buf_add(all, bound, bl) != 0)) return true;
        if (module_std && !all && bl == rl && memcmp(bound, r, rl) == 0) return true;
    }
    return false;
}

/* Whether an import of the file's binds r: one of the standard library's
 * (std), or any that can bind a definition of the repo's: `from M import r`
 * (a star import binds every name), not `import r`, which binds a module.
 * With all (and std), every name the standard library's imports bind is
 * added to it instead (true: out of room). */
static bool py_import_binds(const char *t, size_t len, const char *r, size_t rl, bool std, struct mg_buf *all)
{
    bool open = false, bind_from = false; /* inside `from M import (`…`)` of a counted M */
    for (const char *l = t, *end = t + len; l < end;) {
        const char *e = memchr(l, '\n', (size_t)(end - l));
        if (!e) e = end;
        const char *s = ws(l, e);
        if (open) {
            if (bind_from && py_binds(s, e, r, rl, true, !std, &open, all)) return true;
        } else if (word_is(s, e, "import")) { /* (binds a module: of the standard library's, or no definition) */
            if (std && py_binds(s + 6, e, r, rl, false, false, &open, all)) return true;
            open = false;
        } else if (word_is(s, e, "from")) {
            size_t top;
            const char *m = ws(s + 4, e), *me = dotted(m, e, &top);
            bind_from = !std || (me > m && mg__nav_in_words(PY_STDLIB, m, top)); /* (`from .a import`: top 0) */
            const char *im = ws(me, e);
            if (bind_from && word_is(im, e, "import") && py_binds(im + 6, e, r, rl, true, !std, &open, all))
                return true;
        }
        l = e + 1;
    }
    return false;
}

/* ---- 3. Go imports --------------------------------------------------------------------------------- */

/* One import spec at s: `[alias] "path"`; whether it binds r to a standard package. */
static bool go_spec_binds(const char *s, const char *e, const char *r, size_t rl)
{
    const char *alias = NULL;
    size_t al = 0;
    if (s < e && idc(*s)) {
        alias = s;
        while (s < e && idc(*s)) s++;
        al = (size_t)(s - alias);
        s = ws(s, e);
    }
    if (s >= e || (*s != '"' && *s != '`')) return false;
    char q = *s++;
    const char *p = s;
    while (s < e && *s != q) s++;
    if (s >= e) return false;
    const char *first_end = memchr(p, '/', (size_t)(s - p));
    if (!first_end) first_end = s;
    if (!mg__nav_in_words(GO_STDLIB, p, (size_t)(first_end - p))) return false;
    if (alias) return al == rl && memcmp(alias, r, rl) == 0;
    const char *last = s;
    while (last > p && last[-1] != '/') last--;
    return (size_t)(s - last) == rl && memcmp(last, r, rl) == 0;
}

static bool go_stdlib_name(const char *t, size_t len, const char *r, size_t rl)
{
    bool block = false;
    for (const char *l = t, *end = t + len; l < end;) {
        const char *e = memchr(l, '\n', (size_t)(end - l));
        if (!e) e = end;
        const char *s = ws(l, e);
        if (block) {
            if (s < e && *s == ')') block = false;
            else if (go_spec_binds(s, e, r, rl)) return true;
        } else if (word_is(s, e, "import") || (e - s > 7 && memcmp(s, "import(", 7) == 0)) {
            s = ws(s + 6, e);
            if (s < e && *s == '(') block = true;
            else if (go_spec_binds(s, e, r, rl)) return true;
        } else if (word_is(s, e, "func") || word_is(s, e, "type") || word_is(s, e, "var")) {
            break; /* imports come first */
        }
        l = e + 1;
    }
    return false;
}

/* ---- 4. the receiver ------------------------------------------------------------------------------- */

static bool stdlib_name(const struct file *fl, const char *r, size_t rl)
{
    return strcmp(fl->lang, "python") == 0 ? mg__nav_py_std_name(fl, r, rl)
                                            : go_stdlib_name(fl->text, fl->len, r, rl);
}

bool mg__nav_receiver_stdlib(const struct file *fl, size_t off, int line)
{
    bool py = fl->lang && strcmp(fl->lang, "python") == 0, go = fl->lang && strcmp(fl->lang, "go") == 0;
    if (!py && !go) return false;
    const char *t = fl->text;
    size_t b = off;
    while (b > 0 && (t[b - 1] == ' ' || t[b - 1] == '\t')) b--;
    if (b == 0 || t[b - 1] != '.') return false;
    size_t e = --b;
    while (b > 0 && idc(t[b - 1])) b--;
    if (b == e || (b > 0 && (t[b - 1] == ')' || t[b - 1] == ']'))) return false;
    if (b > 0 && t[b - 1] == '.') { /* a chain of names: its head (os.path.dirname, os.Stdout.Write) */
        size_t hb = b, he = b;
        while (hb > 0 && t[hb - 1] == '.') {
            he = hb - 1;
            hb = he;
            while (hb > 0 && idc(t[hb - 1])) hb--;
            if (hb == he) return false;
        }
        if (hb > 0 && (t[hb - 1] == ')' || t[hb - 1] == ']')) return false;
        return stdlib_name(fl, t + hb, he - hb);
    }
    if (stdlib_name(fl, t + b, e - b)) return true; /* shutil.copy( */
    size_t qo, ql; /* t.Errorf( with t *testing.T */
    char ty[128];
    return line > 0 && mg__nav_receiver_type(fl, off, line, ty, sizeof(ty), &qo, &ql) && ql &&
           stdlib_name(fl, t + qo, ql);
}

/* ---- 5. bare Python names, and the names of modules in imports ----------------------------------- */

static bool scope_kind(const char *kind) { return kind && (mg__nav_function_like(kind) || strcmp(kind, "class") == 0); }

/* The innermost function or class around lines [lo, hi] but d. */
static const struct mg_nav_def *py_scope(const struct file *fl, int lo, int hi, const struct mg_nav_def *d)
{
    const struct mg_nav_def *best = NULL;
    for (size_t i = 0; i < fl->ndefs; i++) {
        const struct mg_nav_def *s = &fl->defs[i];
        if (s == d || !scope_kind(s->kind) || s->start_line > lo || s->end_line < hi) continue;
        if (!best || s->end_line - s->start_line < best->end_line - best->start_line) best = s;
    }
    return best;
}

bool mg__nav_py_unbound(struct file *fl, size_t off, size_t n, int line)
{
    if (!fl->lang || strcmp(fl->lang, "python") != 0 || !fl->text || off + n > fl->len) return false;
    const char *t = fl->text, *name = t + off;
    size_t b = off;
    while (b > 0 && (t[b - 1] == ' ' || t[b - 1] == '\t')) b--;
    if (b > 0 && t[b - 1] == '.') return false;
    /* a parameter or local of the function the line is in hides every definition but the function's
     * own (`def f` in it is that local too) */
    const struct mg_nav_def *fn = mg__nav_enclosing(fl, line, true);
    if (fn && (fl->py_lfn != fn || !fl->py_lname || strlen(fl->py_lname) != n || memcmp(fl->py_lname, name, n) != 0)) {
        free(fl->py_lname); /* (the uses of a name come in order: one answer per function) */
        if (!(fl->py_lname = strndup(name, n))) return false; /* (out of memory: keep the use) */
        fl->py_lfn = fn;
        fl->py_local = mg__nav_py_local(fl, fn, name, n);
    }
    bool local = fn && fl->py_local;
    /* a definition of the name that the line sees: at module level, in a function around the line, or
     * in the class whose body the line is in */
    for (size_t i = 0; i < fl->ndefs; i++) {
        const struct mg_nav_def *d = &fl->defs[i];
        if (!d->name || strlen(d->name) != n || memcmp(d->name, name, n) != 0) continue;
        const struct mg_nav_def *sc = py_scope(fl, d->start_line, d->end_line, d);
        if (local && sc != fn) continue;
        if (!sc || (sc->start_line <= line && sc->end_line >= line &&
                    (mg__nav_function_like(sc->kind) || sc == py_scope(fl, line, line, NULL))))
            return false;
    }
    if (local) return true;
    /* ... or an import (the file's imports, read once per name) */
    if (!fl->py_name || strlen(fl->py_name) != n || memcmp(fl->py_name, name, n) != 0) {
        free(fl->py_name);
        if (!(fl->py_name = strndup(name, n))) return false; /* (out of memory: keep the use) */
        fl->py_imported = py_import_binds(t, fl->len, name, n, false, NULL);
    }
    return !fl->py_imported;
}

bool mg__nav_py_std_name(const struct file *fl, const char *name, size_t n)
{
    if (!fl->lang || strcmp(fl->lang, "python") != 0 || !fl->text) return false;
    struct file *m = (struct file *)fl; /* (the names are kept: a cache of the file's text) */
    if (!m->py_std && m->id) { /* a file of the index's: its imports read once, " a b c " */
        struct mg_buf all;
        mg_buf_init(&all, 1u << 20);
        if (py_import_binds(fl->text, fl->len, NULL, 0, true, &all) || mg_buf_adds(&all, "  ") != 0)
            mg_buf_release(&all); /* (out of room: read each time) */
        else
            m->py_std = mg_buf_detach(&all, NULL);
    }
    return m->py_std ? mg__nav_in_words(m->py_std, name, n) : py_import_binds(fl->text, fl->len, name, n, true, NULL);
}

bool mg__nav_py_import_module(const struct file *fl, size_t off, size_t n)
{
    if (!fl->lang || strcmp(fl->lang, "python") != 0 || !fl->text || off + n > fl->len) return false;
    const char *t = fl->text;
    size_t l = off;
    while (l > 0 && t[l - 1] != '\n') l--;
    const char *e = t + off + n, *s = ws(t + l, e);
    const char *w = t + off, *p = w; /* the word before the name: `as`? */
    while (p > s && (p[-1] == ' ' || p[-1] == '\t')) p--;
    bool alias = p - s >= 3 && p[-1] == 's' && p[-2] == 'a' && (p[-3] == ' ' || p[-3] == '\t');
    if (word_is(s, e, "import")) return true; /* import a.b, import a.b as c: modules and their aliases */
    if (!word_is(s, e, "from")) return false;
    size_t top;
    const char *m = ws(s + 4, e), *me = dotted(m, e, &top);
    return w < me || alias; /* the module's path, or an alias after `import` */
}

/* nav.h */
bool mg_nav_receiver_stdlib_of(const char *lang, const char *text, size_t len, size_t off)
{
    if (off > len) return false;
    struct mg_nav_def fn;
    struct file fl;
    int line = mg__nav_whole(lang, text, len, off, NULL, &fn, &fl);
    return mg__nav_receiver_stdlib(&fl, off, line);
}

/* nav.h */
bool mg_nav_py_unbound_of(const char *text, size_t len, size_t off, size_t n)
{
    struct mg_nav_def fn;
    struct file fl;
    int line = mg__nav_whole("python", text, len, off, NULL, &fn, &fl);
    bool r = mg__nav_py_unbound(&fl, off, n, line);
    free(fl.py_name);
    free(fl.py_lname);
    return r;
}

/* nav.h */
bool mg_nav_py_def_of(const char *text, size_t len, bool *property, char *out, size_t cap)
{
    struct mg_nav_def fn;
    struct file fl;
    mg__nav_whole("python", text, len, 0, NULL, &fn, &fl);
    *property = mg__nav_py_property(&fl, &fn);
    bool r = mg__nav_py_returns(&fl, &fn, out, cap);
    if (r) out[strcspn(out, "[")] = 0; /* (a generic's name alone) */
    return r;
}
