/* defs.h — the definitions in a syntax tree: symbols and chunk boundaries.
 *
 * Given a tree-sitter tree of one file, list its definitions (functions,
 * methods, classes, structs, unions, enums, interfaces, traits, impls, types,
 * modules/namespaces, macros; variables, fields and enumerators; in C and C++
 * also prototypes) with their byte ranges, names, kinds and enclosing
 * containers. The chunker (chunk.h) cuts chunks along them and the
 * symbols table stores them.
 *
 * Byte offsets are offsets into the text the tree was parsed from. For
 * C-family languages that text may be an outline (outline.h: function bodies
 * elided to `{}`); the extractor does not care, and the caller maps offsets
 * back to the original file.
 *
 * What counts, per language (anything unnamed never does):
 *   c, cpp      function definitions (a destructor is a method named "~Foo";
 *               `void a::Foo::bar() {}` is a method with container "a::Foo",
 *               template arguments stripped from the qualifier; a constructor
 *               is named like its class); struct/union/enum/class with a body;
 *               typedef and `using X = ...` (type; `typedef struct s {..} t;`
 *               gives both t and s); namespace (module); #define (macro);
 *               `MACRO(name, ...) { ... }` as the parser leaves it (function
 *               "name", e.g. SYSCALL_DEFINE1(close, ...)). Declarations, one
 *               per declarator, each with the whole declaration's range:
 *               prototype when the declarator nearest the name is a
 *               function's (`int f(void);`, `SSL_CTX *SSL_CTX_new(...);`, an
 *               in-class method declaration, a pure virtual `= 0`; not
 *               `int (*fp)(void);`), else field inside a struct/union/class
 *               (also `static` members), else variable (file or namespace
 *               scope, `extern` too; `int A::n = 0;` has container "A"). Not:
 *               friends, `MACRO(x);` standing alone (EXPORT_SYMBOL(f); but
 *               `static DEFINE_MUTEX(m);` is variable m), in C a function
 *               declarator in a struct (a macro call), a keyword (error
 *               recovery), and what kernel-style attribute macros make of a
 *               declaration: `int x __read_mostly;`, `unsigned long x
 *               __initdata;`, `static int __read_mostly x = 1;` give x, not
 *               the macro; after a struct/union/enum body a function
 *               declarator or a name starting with `__` or in capitals is an
 *               attribute (`} __packed;`, `} __aligned(8);`); a declaration
 *               the parser cut short (a MISSING `;`) gives no bare word
 *               (`int __must_check f(const T *);` is `int __must_check`).
 *               enumerator: container its enum. Members of an anonymous
 *               struct/union/enum belong to what is declared with it (`union
 *               { long l; } u;`: l has container u; `typedef struct { int x;
 *               } point;`: x has container point), else to what holds it (a
 *               C11 anonymous member). Definitions inside #if blocks, extern
 *               "C" and ERROR nodes count; anything inside function bodies
 *               does not.
 *   go          func (function), method (container: receiver type without `*`
 *               and type parameters), each type spec (struct, interface, type).
 *               A struct's fields (field, one per name; an embedded one by its
 *               type's name: `*pkg.Base` is Base; `_` names nothing), an
 *               interface's method specs (method, like a Rust trait's
 *               signatures: they are the interface's methods, not declarations
 *               of a body elsewhere; embedded interfaces and type sets name
 *               nothing). Top-level const and var specs (variable, one per
 *               name, constants too: each name of an iota block; a single spec
 *               takes the whole `const X = 1`).
 *   java        class/record (class), interface/@interface (interface), enum,
 *               method (also bodiless), constructor; all types are containers.
 *               Fields and interface/annotation constants (field, one per
 *               declarator, each with the whole declaration), record
 *               components (field), enum constants (enumerator; a constant's
 *               class body holds no definitions).
 *   javascript, typescript, tsx
 *               function and generator declarations (also nested ones), class
 *               (container), method/getter/setter (constructor), a class field
 *               or a top-level const/let/var whose value is a function (method /
 *               function), TS interface, type alias, enum, namespace/module.
 *               Declarations inside top-level IIFEs and callbacks count.
 *               Members: other class fields (field; not a computed name), TS
 *               constructor parameter properties (`constructor(private r: T)`:
 *               field of the class), interface property signatures (field) and
 *               method signatures (method, as in Go), enum members
 *               (enumerator). Other const/let/var declarators named by an
 *               identifier (variable), only at program level or in a TS
 *               namespace/module: not in IIFEs, callbacks or functions, so a
 *               bundle wrapped in one adds none.
 *   python      def (method inside a class; nested defs have their function as
 *               parent), class; also under if/try/with. Assignments to names
 *               (`x = 1`, `x: int`, `a, b = ...`, `a = b = ...`) at module level
 *               (variable) and in a class body (field); a lambda value makes a
 *               function (method). Not: attributes (self.x), subscripts, `+=`,
 *               anything in a function.
 *   rust        fn (method inside impl/trait), trait fn signature (method),
 *               struct, enum, union, trait, impl (named after its type: "Foo"
 *               for `impl<T> Display for Foo<T>`), type, mod with a body,
 *               macro_rules!. Struct and union fields (field; a tuple struct's
 *               have no names), enum variants (enumerator; a struct variant's
 *               fields are not listed), associated types of a trait (type) and
 *               consts of a trait or impl (field), const and static at top
 *               level or in a mod (variable; `const _` names nothing), not in
 *               a function.
 *
 * Members (fields, enumerators, interface and trait methods) have their
 * struct, enum, interface, trait or class as parent and container, in every
 * language; only classes, C++ records, Java types, Rust traits/impls and
 * modules are containers (is_container: the chunker cuts a large one along
 * its members), so a large Go struct or TS interface stays one chunk or
 * windows.
 *
 * Ranges cover wrappers: template<...>, decorators, `export`, Rust #[...]
 * attributes and TS member decorators right before the item; a single
 * `type X ...` / `const f = () => {}` covers its keyword. Doc comments are not
 * included. A range never ends with a newline.
 */
#ifndef MG_DEFS_H
#define MG_DEFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <tree_sitter/api.h>

#include "index/lang.h"

/* The fixed vocabulary of kinds (static strings; compare with strcmp). */
#define MG_KIND_FUNCTION    "function"
#define MG_KIND_METHOD      "method"
#define MG_KIND_CONSTRUCTOR "constructor"
#define MG_KIND_CLASS       "class"
#define MG_KIND_STRUCT      "struct"
#define MG_KIND_UNION       "union"
#define MG_KIND_ENUM        "enum"
#define MG_KIND_INTERFACE   "interface"
#define MG_KIND_TRAIT       "trait"
#define MG_KIND_IMPL        "impl"
#define MG_KIND_TYPE        "type"   /* typedef, type alias, Go type spec that is not struct/interface */
#define MG_KIND_MODULE      "module" /* C++ namespace, Rust mod, TS namespace/module */
#define MG_KIND_MACRO       "macro"  /* C/C++ #define, Rust macro_rules! */
/* Declarations (never chunks of their own, see chunk.h): */
#define MG_KIND_PROTOTYPE   "prototype"  /* C/C++: a function declared without a body */
#define MG_KIND_VARIABLE    "variable"   /* a variable or constant declared outside functions */
#define MG_KIND_FIELD       "field"      /* a struct/union/class/interface data member,
                                          * a record component, a Rust associated const */
#define MG_KIND_ENUMERATOR  "enumerator" /* an enum constant, a Rust enum variant */

/* Prototypes, variables, fields, enumerators and macros are never chunks of
 * their own (chunk.c): they lie in their container's chunk or in a window. */
static inline bool mg_kind_chunk_worthy(const char *k)
{
    return strcmp(k, MG_KIND_MACRO) != 0 && strcmp(k, MG_KIND_PROTOTYPE) != 0 &&
           strcmp(k, MG_KIND_VARIABLE) != 0 && strcmp(k, MG_KIND_FIELD) != 0 &&
           strcmp(k, MG_KIND_ENUMERATOR) != 0;
}

/* Members (fields, enumerators) are left out of a chunk's FTS `symbol` column
 * (indexer.c): its body holds their names already, and dozens of them would
 * drown the name of the struct or enum the chunk is about. The same rule in
 * SQL, for the rows of the symbols table. */
static inline bool mg_kind_member(const char *k)
{
    return strcmp(k, MG_KIND_FIELD) == 0 || strcmp(k, MG_KIND_ENUMERATOR) == 0;
}
#define MG_KIND_MEMBER_SQL "('" MG_KIND_FIELD "', '" MG_KIND_ENUMERATOR "')"

struct mg_def {
    uint32_t start;        /* byte range [start, end) of the whole definition,  */
    uint32_t end;          /*   including wrappers (template<>, decorators, export) */
    const char *name;      /* NUL-terminated, as in the source; owned by the mg_defs */
    const char *kind;      /* one of MG_KIND_* (static)                         */
    const char *container; /* the parent's name, or the qualifier / receiver
                            * type when the source names one (Foo::bar, Go
                            * receivers); NULL at top level; owned by the mg_defs */
    int parent;            /* index in mg_defs.v of the enclosing definition
                            * (always < own index), -1 if none */
    bool is_container;     /* class-like: its members are definitions too       */
};

struct mg_defs {
    struct mg_def *v; /* in source order (pre-order: a parent before its members) */
    size_t n, cap;
    char *arena;      /* storage for names (implementation detail) */
    size_t arena_len, arena_cap;
};

/* Extract the definitions of `root` (a tree parsed from src[0..len) with the
 * grammar of `lang`) into *out (which must be zeroed or released before).
 * Never fails on odd input: ERROR nodes are searched for definitions too; a
 * language without grammar, or a tree of another grammar, gives none.
 * Returns 0, or -1 when memory runs out (then *out is released). Caps: at most
 * 1,000,000 definitions (the first ones; still 0) and names of at most 256
 * bytes (longer ones are cut at a UTF-8 boundary). The walk is iterative, so
 * tree depth does not matter. Safe to call from several threads at once on
 * different trees. */
int mg_defs_extract(const struct mg_lang *lang, TSNode root, const char *src, size_t len,
                    struct mg_defs *out);
void mg_defs_release(struct mg_defs *d);

/* The languages without a usable grammar whose definitions are found line
 * by line (defs_lines.c): Erlang, Nim, protobuf, SQL. mg_defs_lines fills *out
 * like mg_defs_extract (source order, parents before members, names in an
 * arena; none for another language); 0, or -1 when memory runs out. */
bool mg_defs_lines_known(const struct mg_lang *lang);
int mg_defs_lines(const struct mg_lang *lang, const char *src, size_t len, struct mg_defs *out);

/* A macro found outside the tree (outline.h lists #defines itself). */
struct mg_def_macro {
    uint32_t start, end; /* source range */
    uint32_t name, nlen; /* name in the source */
};

/* Merge macros (in source order, offsets into src) into d as MG_KIND_MACRO
 * definitions, keeping d in pre-order: each macro's parent is the innermost
 * definition whose range holds it. Returns 0, or -1 when memory runs out
 * (d is then unchanged). */
int mg_defs_add_macros(struct mg_defs *d, const struct mg_def_macro *m, size_t n, const char *src);

#endif
