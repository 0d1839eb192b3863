/* nav_int.h — what navigation's files share (search/nav*.c, impact.c).
 *
 * A navigation request (nav.h) keeps a struct nav: the files it has read
 * (their rows, stored text and definitions, by id) and the definitions of
 * each name it has resolved. nav.c owns that state and the lexer's
 * keywords; nav_refs.c finds references (the files whose words hold a name,
 * lexed); nav_calls.c walks the call graph (callers, callees, paths),
 * nav_dispatch.c adds the implementations an interface or virtual call may
 * reach.
 *
 * Sections:
 *   the request's state (struct file, struct nav, occurrences)
 *   nav.c: the request's files and definitions, the lexer's words
 *   nav_refs.c: where a name's word is
 *   nav_calls.c: call-graph walks
 *   nav_type.c: receivers' declared types, Python's elements and bindings
 *   nav_dispatch.c: interface and virtual dispatch, Python's attributes
 *   nav_macro.c: C preprocessor macros
 *   nav_ptr.c: C and C++ function pointers
 */
#ifndef MG_NAV_INT_H
#define MG_NAV_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "search/nav.h"
#include "search/navimport.h"

#define MAX_FILE_TEXT (64u << 20)

struct file {
    int64_t id;
    char *path, *lang;
    char *text;
    size_t len;
    int64_t sym_lo, sym_hi;
    struct mg_nav_def *defs; /* the file's definitions, by id; their strings owned here */
    size_t ndefs;
    bool allowed;            /* in the request's scope */
    bool loaded;             /* text read */
    bool defs_loaded;        /* defs read (file_defs) */
    struct imp { enum mg_nav_imp how; char *p; } *imps; /* what its imports name (file_imports) */
    size_t nimps, capimps;
    bool imps_loaded, imps_failed;
    char *py_name;           /* the last name mg__nav_py_unbound looked for in the imports ... */
    bool py_imported;        /* ... and whether one binds it */
    char *py_lname;          /* the last name mg__nav_py_unbound asked mg__nav_py_local of, ... */
    const struct mg_nav_def *py_lfn; /* ... in which function, ... */
    bool py_local;           /* ... and its answer */
    char *py_std;            /* the names its standard library's imports bind, " a b " (mg__nav_py_std_name) */
    int ls_line;             /* mg__nav_line_start's last answer: line ls_line starts at ls_off */
    size_t ls_off;
};

/* A function stored into a field (nav_ptr.c): its name, the struct it was
 * stored into (NULL: unknown) and the file of the store. */
struct ptr_store {
    char *name, *container;
    int64_t fid;
};

/* The stores into one field, and the structs that have it. */
struct ptrs {
    char *field;
    struct ptr_store *v;
    size_t n, cap;
    char **conts;
    size_t nconts, capconts;
};

struct nav {
    struct mg_db *d;
    const struct mg_filter *f;
    double deadline;
    struct mg_err *err;
    struct file **files; /* open addressing by id */
    size_t nfiles, capfiles;
    struct resolved *names; /* open addressing by name */
    size_t nnames, capnames;
    const int64_t *only;    /* candidates: only these files (a file-local callee's); NULL: all */
    size_t nonly;
    struct ptrs *ptrs;      /* stores into fields, by field (nav_ptr.c) */
    size_t nptrs, capptrs;
    char *self_name;        /* mg__nav_py_attr_misses' last answer: the name, the type, the file ... */
    char self_cls[128], self_type[128]; /* (the type as read, and after a function's `-> T`) */
    int64_t self_fid;
    bool self_miss;         /* ... whether r.name misses the name's definitions, and whether the type is the repo's */
    bool self_known;
    int py_depth;           /* nav_dispatch.c's py_eval: how deep it is in itself (bounded) */
};

struct resolved {
    char *name;
    size_t *idx; /* definitions as (file slot, def index) pairs flattened: file ids and def indexes */
    int64_t *fid;
    unsigned char *cls; /* each one's kind, in short: RESOLVED_FN, RESOLVED_PROTO or 0 */
    size_t n;
};
#define RESOLVED_FN    1 /* function-like (mg__nav_function_like) */
#define RESOLVED_PROTO 2 /* a prototype */

struct occ {
    size_t off;
    int line;
    bool call, def;
    bool keyword; /* the word as the language's keyword there (js_word), dropped unless a definition's name */
};

struct occs {
    const char *name;
    size_t nlen;
    bool js_word;   /* a JavaScript/TypeScript reserved or contextual word: a method may be named so */
    size_t tlen;    /* the text's length */
    struct occ *v;
    size_t n, cap;
    bool failed;
};

/* ---- nav.c: the request's files and definitions, the lexer's words ---- */

/* Past the deadline (CLOCK_MONOTONIC ms; 0: none)? */
bool mg__nav_late(double deadline);
/* Whether s (n bytes) is one of the words of " a b c ". */
bool mg__nav_in_words(const char *words, const char *s, size_t n);
/* Words that look like calls and are not (`if (`, `sizeof(`), per language. */
bool mg__nav_keyword(const char *lang, const char *s, size_t n);
/* A name right after `.`, `->` or `::` (a member or a qualified name). */
bool mg__nav_member(const char *t, size_t off);
/* Past the blanks (spaces, tabs) at t[i], before n. */
size_t mg__nav_sp(const char *t, size_t n, size_t i);
/* (The identifier at t[i]: index/refs_ptr.h's mg_cscan_ident.) */
bool mg__nav_function_like(const char *kind);
/* Can a and b (files.lang names) call each other's functions by name: C with
 * C++ and Objective-C, JavaScript with TypeScript, any other only itself. */
bool mg__nav_same_world(const char *a, const char *b);
/* Free what a definition owns (path too) / a file's definitions (not their
 * borrowed paths) and the array. */
void mg__nav_def_free(struct mg_nav_def *d);
void mg__nav_defs_free(struct mg_nav_def *v, size_t n);
int mg__nav_open(struct nav *v, struct mg_db *d, const struct mg_filter *f, double deadline, struct mg_err *err);
void mg__nav_close(struct nav *v);
/* A file by id, its row read (path, lang, scope); text and definitions only
 * with load. NULL with err when reading fails; a file gone is not found
 * (NULL, err unset). */
struct file *mg__nav_file(struct nav *v, int64_t id, bool load);
/* A loaded file's definitions, read once. */
int mg__nav_file_defs(struct nav *v, struct file *fl);
/* A file's definitions (symbols lo..hi, by id) appended to *defs (*ndefs of
 * them; grown with mg_grow): name, kind and container owned by the array,
 * path borrowed, file_id fid. 0, or -1 out of memory (the rows read so far
 * stay, owned). Also impact.c's. */
int mg__nav_read_defs(struct mg_db *d, int64_t lo, int64_t hi, char *path, int64_t fid, struct mg_nav_def **defs,
                      size_t *ndefs);
/* The offset in fl's text of line `line` (1-based; the text's length past its last). */
size_t mg__nav_line_start(const struct file *fl, int line);
/* The innermost definition around line (function-like ones only, when fn). */
const struct mg_nav_def *mg__nav_enclosing(const struct file *fl, int line, bool fn);
/* For the nav.h wrappers the tests and fuzz targets call: *fl a file of
 * text in lang whose one definition, *fn, is a function `f` of container
 * (may be NULL) spanning the whole text; the line of offset off returned. */
int mg__nav_whole(const char *lang, const char *text, size_t len, size_t off, const char *container,
                  struct mg_nav_def *fn, struct file *fl);
/* A copy the caller owns (path too). */
struct mg_nav_def *mg__nav_def_copy(const struct mg_nav_def *d, const char *path);
/* The definitions of name in scope (every kind), cached per request: their
 * files and kinds, the files' definitions read when one is asked for
 * (linux's `func` is a field in 320 files: a caller wanting functions
 * skips those by cls). NULL with err on failure. */
struct resolved *mg__nav_defs_of(struct nav *v, const char *name);
/* Definition i of r, its file in *fl (its definitions read now if not yet);
 * NULL when it is gone or they cannot be read (err set then). */
const struct mg_nav_def *mg__nav_resolved_def(struct nav *v, const struct resolved *r, size_t i, struct file **fl);
/* The plain name of a query (`Foo::bar` -> bar). */
int mg__nav_plain_name(const char *q, char *out, size_t cap, struct mg_err *err);

/* ---- nav_refs.c: where a name's word is ---- */

bool mg__nav_has_word(const char *t, size_t n, const char *w, size_t wl);
/* The occurrences of name in a loaded file. */
int mg__nav_file_occs(struct nav *v, struct file *fl, const char *name, struct occs *o);
/* Files whose chunks hold the name's token (a superset: case-insensitive,
 * and parts of longer identifiers) in scope and with a lexer, by path from
 * from_path on (NULL: all); calls fn for each, loaded, until it returns
 * non-zero. 0 when all were seen, 1 past the deadline, 2 when fn stopped,
 * -1 on error; *ncand: how many files there are. */
int mg__nav_candidates(struct nav *v, const char *name, const char *from_path,
                       int (*fn)(struct nav *, struct file *, void *), void *ud, size_t *ncand);

/* ---- nav_calls.c: call-graph walks ---- */

/* 0, or -1 with err when depth is not 1..MG_NAV_DEPTH_MAX. */
int mg__nav_clamp_depth(int depth, struct mg_err *err);

/* The function-like definitions of name (in path only, when given), pooled,
 * added to g's roots; *local (when local): all of them are static in a C
 * or C++ source file. */
int mg__nav_roots(struct nav *v, struct mg_nav_graph *g, const char *name, const char *path, bool *local);
/* The distinct calls inside from, as edges of g at depth (at most limit);
 * the definitions they reach appended to *found when found. */
int mg__nav_calls_of(struct nav *v, struct mg_nav_graph *g, size_t limit, int depth, struct mg_nav_def *from,
                     struct mg_nav_def ***found, size_t *nfound, size_t *capfound);

/* ---- nav_type.c: receivers' declared types, Python's elements and bindings ---- */

/* Whether the name at off (on line) has no receiver (`name`, not `x.name`,
 * `x->name`, `T::name`) in a language where such a name never reaches a
 * method: Python (but in a class body), Go, JavaScript/TypeScript, Rust and
 * PHP (a method needs self., this., a value or a path); in C++, Java, C#,
 * Ruby… it may be one of the enclosing class's (nav.c). */
bool mg__nav_bare_misses_methods(const struct file *fl, size_t off, int line);
/* The declared type of the receiver of the member call at fl->text[off]
 * (line; `a.m(`, `a->m(`): `self`/`this` the enclosing method's container,
 * else a declaration in the enclosing function. false when unknown. When
 * qoff is not NULL, the first part of that type when it is qualified by `.`
 * (`t *testing.T`, `buf := bytes.Buffer{}`, `p: pathlib.Path`): its offset
 * and length in fl->text (*qlen 0: none) (nav_type.c). */
bool mg__nav_receiver_type(const struct file *fl, size_t off, int line, char *out, size_t cap, size_t *qoff,
                           size_t *qlen);
/* Python: the class whose method fn is (fl's definitions), or NULL; and the
 * type cls's text declares for `self.a` (a of al bytes: `self.a = T(…)` in
 * its methods, `a: T` in its body...; nav_type.c), as a type text (a generic
 * one's arguments too, `List[str]`), and where its qualifier is in fl's text
 * (*qlen 0: none). */
const struct mg_nav_def *mg__nav_py_class_of(const struct file *fl, const struct mg_nav_def *fn);
bool mg__nav_py_class_attr(const struct file *fl, const struct mg_nav_def *cls, const char *a, size_t al, char *out,
                           size_t cap, size_t *qoff, size_t *qlen);
/* Python: whether def d is a property (`@property`, `@cached_property`, a
 * setter or deleter): reading the attribute calls it. */
bool mg__nav_py_property(const struct file *fl, const struct mg_nav_def *d);
/* Python: whether function fn binds name (nl bytes) as its own local: a
 * parameter, or assigned in its body (`name = `, `for name in`, `as
 * name`…) without `global name` (nav_type.c). */
bool mg__nav_py_local(const struct file *fl, const struct mg_nav_def *fn, const char *name, size_t nl);
/* Python: the type def d's `-> T` names (the last part of a qualified one; not None), from fl's text. */
bool mg__nav_py_returns(const struct file *fl, const struct mg_nav_def *d, char *out, size_t cap);
/* Python: the first assignment `self.a = E` in class cls's methods, or `a =
 * E` in its body (not `= None`), where class_attr finds no type: E's range
 * in fl's text and its line (nav_type.c). */
bool mg__nav_py_class_attr_expr(const struct file *fl, const struct mg_nav_def *cls, const char *a, size_t al,
                                size_t *lo, size_t *hi, int *line);
/* Python: the type receiver's rules give the name at fl->text[at, at + nl)
 * (on line) as a type text, and its qualifier's place (nav_type.c). */
bool mg__nav_py_name_type(const struct file *fl, size_t at, size_t nl, int line, char *out, size_t cap, size_t *qoff,
                          size_t *qlen);
/* Python: what a type text (`List[str]`, `Dict[str,Node]`) gives for op:
 * "[]" an element by index (index: a literal's, else -1; a mapping's value),
 * "[:]" a slice, "in" an element iterated (a mapping's key), else the result
 * of its method op (a mapping's get, keys…, a sequence's pop, copy, str's
 * split): out that type text, true; *builtin when op is a method of a
 * built-in type's (out "": a built-in value, no type known); false when not
 * known (nav_type.c). */
bool mg__nav_py_elem(const char *ty, const char *op, long index, char *out, size_t cap, bool *builtin);
/* Python: what binds the name at fl->text[at, at + nl) (on line, in a
 * function): a comprehension's `for x in E` or a lambda's parameter around
 * it, `assert isinstance(x, T)` before it, else each of the function's own
 * bindings before it, in order: its parameter, `for x in E:`, `x = E` (not
 * `x = None`), `x: T`, and `… as x`, `a, x = …` (not known). */
enum { MG_PY_NONE, MG_PY_TYPE, MG_PY_EXPR, MG_PY_ELEM };
struct mg__nav_py_bind {
    int how;        /* MG_PY_TYPE: ty; MG_PY_EXPR: the value of t[lo, hi); MG_PY_ELEM: an element of it; NONE: ? */
    size_t lo, hi;
    int pos;        /* MG_PY_ELEM: the name's place in a target tuple (`for k, v in`), -1 alone */
    char ty[128];   /* MG_PY_TYPE: a type text, its qualifier at qoff (qlen bytes, 0: none) */
    size_t qoff, qlen;
};
/* How many bindings b holds (at most max; a comprehension's or an assert's
 * alone), 0 none, -1 a lambda's parameter or more than max (nav_type.c). */
int mg__nav_py_binds(const struct file *fl, size_t at, size_t nl, int line, struct mg__nav_py_bind *b, int max);
/* Whether the call at off (on line) is `R.name(` with R, or R's declared
 * type's qualifier, a module or package the file imports from Python's or
 * Go's standard library (nav_stdlib.c): the call is the library's, never the
 * repo's. */
bool mg__nav_receiver_stdlib(const struct file *fl, size_t off, int line);
/* Whether the Python name at off (n bytes, on line), bare (no `x.` before
 * it), can bind to none of the repo's definitions: the file neither defines
 * it where the line sees it (module level, a function around the line, the
 * class whose body holds the line) nor imports it (`import`, `from … import`,
 * a star import), so it is a local, a parameter or a builtin. false for other
 * languages (nav_stdlib.c). */
bool mg__nav_py_unbound(struct file *fl, size_t off, size_t n, int line);
/* Whether the Python name at off (n bytes) names a module or an alias in an
 * import statement (`from a.name import x`, `import a.name`, `… as name`):
 * no use of a function or a class of that name (nav_stdlib.c). */
bool mg__nav_py_import_module(const struct file *fl, size_t off, size_t n);
/* Whether a Python file binds name (n bytes) by an import from the standard
 * library (`from io import StringIO`, `import shutil`): a value of that
 * class is the library's (nav_stdlib.c). */
bool mg__nav_py_std_name(const struct file *fl, const char *name, size_t n);

/* ---- nav_dispatch.c: interface and virtual dispatch, Python's attributes ---- */

/* Does method d implement or override the method of its name of rtype, for
 * a call in language lang: d's container derives from rtype (its header
 * names it, up to 4 levels), or in Go has each method interface rtype
 * declares. -1 with err on failure. */
int mg__nav_overrides(struct nav *v, const char *lang, const char *rtype, const struct mg_nav_def *d, bool *yes);
/* The methods named name that a call in from through a receiver of declared
 * type rtype may reach by dispatch (mg__nav_overrides; rtype's own not
 * among them): *out (the caller frees it) holds n definitions and files. */
struct mg_nav_dispatch {
    const struct mg_nav_def *d;
    struct file *fl;
};
/* Whether Python's `r.name` at off (on line) reaches none of the repo's
 * definitions of name, r's type T known: a plain name's
 * (mg__nav_receiver_type: `self`, `r = T(…)`, `r: T`, a literal, `assert
 * isinstance(r, T)`, a module's `r = …`), `self.a`, a chain `r.a.b` typed
 * attribute by attribute, a call's result `F(…)` (a class, or a function's
 * `-> T`), a string literal, `__dict__` (a dict) or `super()`. It misses
 * when T is a built-in type (dict, list, set, str…), a value of the
 * standard library's, or a class of the repo's that neither holds one of
 * them nor derives from or is derived from by one that does (a module's
 * function is no attribute of a value); `super()` reaches only the
 * enclosing class's bases'. *yes false when r is another or T unknown to
 * the repo (an untyped value, a library's class). When type is not NULL
 * and T is a class of the repo's, T is copied there (cap bytes), else
 * type[0] is 0. -1 with err on failure. */
int mg__nav_py_attr_misses(struct nav *v, const struct file *fl, size_t off, int line, const char *name, bool *yes,
                           char *type, size_t cap);
int mg__nav_dispatch_targets(struct nav *v, struct file *from, const char *name, const char *rtype,
                             struct mg_nav_dispatch **out, size_t *n);

/* ---- nav_macro.c: C preprocessor macros ---- */

/* C, C++ or Objective-C: a language with the C preprocessor. */
bool mg__nav_c_family(const char *lang);
/* Whether macro m (a definition of kind macro in fl) builds name by pasting
 * one of its parameters to a word (`P ## param`, `param ## P`): which
 * parameter (*param, from 0) and what its argument must be (rest). */
bool mg__nav_macro_paste(const struct file *fl, const struct mg_nav_def *m, const char *name, int *param, char *rest,
                         size_t cap);
/* (An expansion's arguments: nav.h's mg_nav_macro_arg.) */

/* ---- nav_ptr.c: C and C++ function pointers ---- */

/* A call through a field at fl->text[off] (the field's name, `o->field(`) in
 * C or C++: *p the stores into field (NULL: no call through a field), type
 * the receiver's struct when its declaration in fl->text[lo, off) names one
 * that has the field ("" : any); off SIZE_MAX: a macro's call through field
 * (mg__nav_macro_field), any struct. -1 with err on failure. */
int mg__nav_field_call(struct nav *v, struct file *fl, size_t lo, size_t off, const char *field, struct ptrs **p,
                       char *type, size_t cap);
/* Is the call at fl->text[off] (line) a call through field (a C or C++
 * member call) that mg__nav_field_call resolves to a stored function? */
int mg__nav_pointer_call(struct nav *v, struct file *fl, size_t off, int line, const char *field, bool *yes);
/* `M(f)(...)` at fl->text[off] (M len bytes) where M is a macro of fl's
 * whose body ends in `->P)` or `.P)`: a call through field f (copied to
 * field; index/refs_ptr.h's mg_cscan_macro_field). */
bool mg__nav_macro_field(const struct file *fl, size_t off, size_t len, char *field, size_t cap);
/* The calls through the fields function name is stored into (the inverse of
 * mg__nav_field_call, from the calls the indexer recorded: table
 * ptr_calls): each site's file and line, and the file of the store. */
struct ptr_site {
    int64_t fid;
    int line;
    int64_t store_fid;
};
int mg__nav_ptr_callers(struct nav *v, const char *name, struct ptr_site **out, size_t *nout);

#endif
