/* refs_ptr.h — the functions a C or C++ file stores into struct fields, found
 * at index time (refs.h's mg_refs_build records them with a file's names),
 * and the small C scanners navigation shares (search/nav_ptr.c).
 *
 * A function is stored into field F by a designated initializer
 * (`.F = fn`, `.F = &fn`), an assignment (`o->F = fn;`, `s.F = fn;`) or a
 * positional initializer (`struct T x = {a, fn}`, arrays of them, and an
 * anonymous struct's variable): then the store names no field but its
 * place among T's fields, which only the struct's definition (maybe in
 * another file) gives; navigation maps it. The struct type is the
 * initializer's declared type, or the assigned receiver's declared type (in
 * the function, else at file scope); NULL when unknown.
 *
 * The same scan records the calls through a field (`o->F(...)`, `s.F(...)`,
 * and `OPS(F)(...)` where the file defines `#define OPS(op) (...->op)`):
 * their field, line and the receiver's declared type (NULL: unknown or a
 * macro's), so that navigation finds the callers of a stored function by
 * looking the field up (table ptr_calls) rather than reading every file.
 */
#ifndef MG_REFS_PTR_H
#define MG_REFS_PTR_H

#include <stdbool.h>
#include <stddef.h>

#define MG_REFS_STORES_MAX 50000 /* stores of one file recorded at most, and calls through fields */
#define MG_REFS_TYPE_MAX   128   /* a type or receiver name's bytes, with its NUL */
#define MG_REFS_DECL_BUDGET (256u << 20) /* bytes read per file looking for receivers' declarations */

struct mg_refs_store {
    char *fn;     /* the stored function (a call through a field: NULL) */
    char *type;   /* the struct type stored into (NULL: unknown) */
    char *field;  /* the field (NULL: positional, see ordinal) */
    int ordinal;  /* positional: the place among the struct's fields (0-based); -1 else */
    int line;     /* 1-based */
};

/* ---- C scanning, on text t of n bytes ---- */

/* Past blanks and comments from t[i]. */
size_t mg_cscan_skip_ws(const char *t, size_t n, size_t i);
/* Back over blanks before t[i] (spaces and tabs; newlines too when nl), not below lo. */
size_t mg_cscan_back(const char *t, size_t lo, size_t i, bool nl);
/* The identifier at t[i]: its length (0: none). */
size_t mg_cscan_ident(const char *t, size_t n, size_t i);
/* The receiver of a member access ending at t[end) (the `.` or `->` right
 * after it, blanks between): a plain variable (not a field of something),
 * past an index `[..]`; its name copied to name, its offset in *at. false
 * when there is none. */
bool mg_cscan_receiver(const char *t, size_t lo, size_t end, char *name, size_t cap, size_t *at);
/* The first declaration of name (nl bytes) in t[lo, end): the type word
 * before it (`struct T *o` -> T) copied to out; `}` before it (a variable
 * of an anonymous struct): the name itself. Its offset, or SIZE_MAX. */
size_t mg_cscan_declared(const char *t, size_t lo, size_t end, const char *name, size_t nl, char *out, size_t cap);
/* Is `M(F)(` at t[off] (M of len bytes) a call through field F, M being
 * defined in t as `#define M(P) (... ->P)` (or `.P`)? F copied to field.
 * Reads at most *budget bytes looking for the definition (less what it
 * read; NULL: no limit). */
bool mg_cscan_macro_field(const char *t, size_t n, size_t off, size_t len, char *field, size_t cap, size_t *budget);

/* ---- index time (refs.c) ---- */

struct mg__ptr_scan;
/* A scan of text for stores (NULL when the language is not C or C++, or
 * memory ran out: *oom says which). */
struct mg__ptr_scan *mg__ptr_scan_new(const char *lang, const char *text, size_t len, bool *oom);
/* One identifier of the lexer (index/lex.h), in order: a member store? */
void mg__ptr_scan_ident(struct mg__ptr_scan *s, size_t off, size_t len, int line, bool call);
/* The positional stores, then the stores found moved to *out (n of them,
 * malloc'd) and the calls through fields to *calls (nc; fn NULL, ordinal
 * -1); the scan freed. -1 when memory ran out (nothing out). */
int mg__ptr_scan_end(struct mg__ptr_scan *s, struct mg_refs_store **out, size_t *n, struct mg_refs_store **calls,
                     size_t *nc);
void mg_refs_stores_free(struct mg_refs_store *v, size_t n);

#endif
