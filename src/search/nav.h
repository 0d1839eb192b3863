/* nav.h — code navigation over one repo's index: where a name is used, who
 * calls a function, what it calls, and the call paths between two functions.
 *
 * Everything comes from what an index run already stores, so navigation is
 * as current as the index (a watcher's runs included) and costs an index run
 * nothing:
 *   - candidate files from the FTS index (a whole identifier is a token);
 *   - their stored text, scanned by a small lexer that knows each language
 *     family's comments and strings (a C-family parse sees an outline with
 *     function bodies elided, index/outline.h, so call sites inside bodies
 *     come from the lexer, not the syntax tree);
 *   - the symbols table for enclosing definitions and for resolving a called
 *     name to its definitions: in the same file first, then anywhere in the
 *     repo by name in a language that can call it (C with C++, JavaScript
 *     with TypeScript), preferring those in files the caller includes or
 *     imports (search/navimport.h: read from the caller's stored text when
 *     asked); `confidence` says which (exact, import, type, pointer, name);
 *   - in C and C++, a call through a field (`o->read(x)`) calls the functions
 *     stored into that field of the receiver's struct (nav_ptr.c);
 *   - a call through a receiver of an interface, base or abstract type may
 *     call the methods of the types that derive from it (nav_dispatch.c).
 *
 * A reference is a use of the name as a whole identifier outside comments and
 * strings that is not the name of one of its definitions; a call is a
 * reference followed by `(`. Names are matched exactly (case-sensitive);
 * `a::b`, `a.b` and `a->b` look for the last part. Every function takes a
 * deadline (ms, monotonic clock as in util; 0: none): past it, what was found
 * is returned with `truncated` set.
 */
#ifndef MG_NAV_H
#define MG_NAV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/db.h"
#include "util/err.h"

/* A definition. */
struct mg_nav_def {
    char *path, *name, *kind, *container; /* container may be NULL */
    int start_line, end_line;
    int64_t file_id;
};

/* A use of a name: where, the line's text, and the definition it is in. */
struct mg_nav_site {
    char *path;
    int line;
    char *text;             /* the line, trimmed, at most MG_NAV_LINE_MAX bytes */
    bool call;              /* followed by `(` */
    struct mg_nav_def *in;  /* the innermost definition around it; NULL at top level */
};

#define MG_NAV_LINE_MAX 200
#define MG_NAV_DEPTH_MAX 8
#define MG_NAV_NODES_MAX 10000 /* functions a call-graph walk visits at most */
#define MG_NAV_COMMON_NAME 32  /* callers at depth 2+: a name defined more often is not followed */

struct mg_nav_refs {
    struct mg_nav_def *defs;  /* the name's definitions (in scope; first page only) */
    size_t ndefs;
    struct mg_nav_site *v;    /* references, by path then line; at most limit */
    size_t n, cap;
    size_t total;             /* references on this page (= n), or all of them when complete */
    size_t files;             /* files with references on this page */
    size_t candidate_files;   /* files whose text has the name's word: at most this many have references */
    char *next_cursor;        /* where the next page starts; NULL: this was the last */
    bool complete;            /* every reference is on this (first and only) page */
    bool truncated;           /* the deadline passed first */
};

/* A page of references: at most limit, after cursor ("path:line" from a
 * previous page's next_cursor; NULL: the first page). A page stops at its
 * limit without reading the remaining files, so a long list costs by page. */
int mg_nav_references(struct mg_db *d, const struct mg_filter *f, const char *name, const char *cursor, size_t limit,
                      double deadline, struct mg_nav_refs *out, struct mg_err *err);
void mg_nav_refs_release(struct mg_nav_refs *r);

/* One edge of a call graph walk: `from` calls `to` at line `line` of from's
 * file. Callers walks go from the name outwards (to is the name or a caller
 * found before); callees walks from the name's definitions. `to` is NULL for a
 * callee defined nowhere in the repo (a library function): callee names it. */
struct mg_nav_edge {
    int depth;                 /* 1: a direct caller or callee */
    struct mg_nav_def *from, *to;
    char *callee;              /* the called name */
    int line;
    const char *confidence;    /* static, how the call reaches to: "exact" (defined in the caller's own
                                * file), "import" (the caller imports or includes to's file, or a header
                                * declaring it, and no other defining file of the name), "type" (a method of
                                * the receiver's declared type, nav_type.c), "pointer" (C/C++: stored into the
                                * field the call goes through; callee is to's name), "name" (by name alone:
                                * one or several definitions, none or several imported; to is the first, an
                                * imported one first), "dispatch" (may call: to's type derives from the
                                * receiver's declared type, nav_dispatch.c), "macro" (C: where a macro
                                * naming or pasting to is expanded, nav_macro.c), "value" (C: to used as a
                                * value, not called), "external" (no definition in the repo: to NULL) */
    unsigned candidates;       /* "name": the repo's definitions the name could reach (impact weighs one
                                * surer than several); 0 otherwise */
};

struct mg_nav_graph {
    struct mg_nav_def **defs;  /* the roots: the name's definitions */
    size_t ndefs;
    struct mg_nav_edge *v;     /* breadth first: depth 1, then 2, ... at most limit */
    size_t n, cap;
    size_t total;              /* edges found */
    bool truncated;            /* deadline, node cap or limit stopped the walk */
    /* every definition the edges point at, owned here */
    struct mg_nav_def **pool;
    size_t npool, cappool;
};

int mg_nav_callers(struct mg_db *d, const struct mg_filter *f, const char *name, int depth, size_t limit,
                   double deadline, struct mg_nav_graph *out, struct mg_err *err);
/* The callers of several names in one walk (one file cache): the roots are
 * their definitions (names[i]'s only those in in_paths[i] when in_paths and
 * it are not NULL), depth 1 the callers of each name. A C or C++ function
 * declared static outside a header is looked for in its own file only, at
 * every depth. A name with more than MG_NAV_COMMON_NAME function definitions
 * (main, probe, init) is not followed (truncated) when it is a caller found
 * on the way, or a name whose roots in_paths narrows to one file. */
int mg_nav_callers_of(struct mg_db *d, const struct mg_filter *f, const char *const *names,
                      const char *const *in_paths, size_t nnames, int depth, size_t limit, double deadline,
                      struct mg_nav_graph *out, struct mg_err *err);
int mg_nav_callees(struct mg_db *d, const struct mg_filter *f, const char *name, int depth, size_t limit,
                   double deadline, struct mg_nav_graph *out, struct mg_err *err);

/* The shortest call paths from `from` to `to` (at most max_paths, each at most
 * max_depth calls): each path is npath edges, from's definition first. */
struct mg_nav_paths {
    struct mg_nav_edge **paths; /* paths[i]: len[i] edges (copies; their strings are g's) */
    size_t *len;
    size_t n;
    size_t visited;             /* functions the search expanded */
    bool truncated;
    struct mg_nav_graph g;      /* owns the edges and definitions */
};

int mg_nav_trace(struct mg_db *d, const struct mg_filter *f, const char *from, const char *to, int max_depth,
                 size_t max_paths, double deadline, struct mg_nav_paths *out, struct mg_err *err);
void mg_nav_graph_release(struct mg_nav_graph *g);
void mg_nav_paths_release(struct mg_nav_paths *p);

/* For tests and fuzzing: the identifiers of text in language `lang` (a
 * files.lang name) outside comments and strings; cb returns non-zero to stop.
 * false when the language has no lexer (prose, data). */
typedef int (*mg_nav_ident_cb)(void *ud, const char *text, size_t off, size_t len, int line, bool call);
bool mg_nav_lex(const char *lang, const char *text, size_t len, mg_nav_ident_cb cb, void *ud);
/* For tests and fuzzing, the text parsers of receiver types and dispatch on
 * text of len bytes in language lang, read as one function of container
 * `container` (NULL: none) spanning the whole text: the declared type of the
 * receiver of the member call whose name starts at off, into out (false:
 * none found); and the bases the declaration header of type `name` at
 * `line` names (each passed to cb; their count returned). */
bool mg_nav_receiver_of(const char *lang, const char *text, size_t len, const char *container, size_t off,
                        char *out, size_t cap);
/* Whether the call at off of text is `R.name(` with R a module or package
 * text imports from Python's or Go's standard library, or the qualifier of
 * R's declared type is (search/nav_stdlib.c): one function spanning the whole
 * text, for the fuzz target. */
bool mg_nav_receiver_stdlib_of(const char *lang, const char *text, size_t len, size_t off);
/* Whether the Python name of n bytes at off of text, bare, is bound by
 * nothing of text's (search/nav_stdlib.c's mg__nav_py_unbound; the text is
 * one function `f`, whose parameters and locals hide the rest); and, for
 * that function `f`, whether it is a property and the type its `-> T`
 * names (into out, cap bytes; false: none). For the fuzz target. */
bool mg_nav_py_unbound_of(const char *text, size_t len, size_t off, size_t n);
bool mg_nav_py_def_of(const char *text, size_t len, bool *property, char *out, size_t cap);
size_t mg_nav_bases(const char *lang, const char *text, size_t len, const char *name, int line,
                    void (*cb)(void *ud, const char *base), void *ud);
/* C macros (search/nav_macro.c), for the tests and the fuzz target: whether
 * the `#define macro(…)` that text is (one macro spanning it) builds name
 * by pasting one of its parameters to a word (`P ## param`): which (*param,
 * from 0) and what its argument must be (rest, cap bytes); and the k-th
 * argument (from 0) of the expansion whose name ends at text[off]
 * (`NAME(a, b)`), trimmed: text[*ao, *ao + *al) (false: none). */
bool mg_nav_macro_paste_of(const char *text, size_t len, const char *macro, const char *name, int *param, char *rest,
                           size_t cap);
bool mg_nav_macro_arg(const char *text, size_t len, size_t off, int k, size_t *ao, size_t *al);
/* For the fuzz target: the bindings of the Python name of n bytes at off of
 * text (one function `f` spanning it; search/nav_type.c's
 * mg__nav_py_binds), each passed to cb (how it binds, the range of its
 * expression in text, its type text), their count (-1 as mg__nav_py_binds);
 * and what type text ty gives for op (mg__nav_py_elem: an element "[]" at
 * index, "in", a slice "[:]", a built-in method's result) into out. */
int mg_nav_py_binds_of(const char *text, size_t len, size_t off, size_t n,
                       void (*cb)(void *ud, int how, size_t lo, size_t hi, const char *ty), void *ud);
bool mg_nav_py_elem_of(const char *ty, const char *op, long index, char *out, size_t cap);

#endif
