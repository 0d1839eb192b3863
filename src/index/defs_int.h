/* defs_int.h — what the files of the definition extractor share (defs.h):
 * defs_tab.c (what each node type means, per language), defs_out.c (the name
 * arena and emitting a definition), defs_c.c (the C/C++ visitors) and defs.c
 * (the walk, the other languages' visitors, the public API). Not for other
 * modules.
 *
 * The small accessors below (field, nstart, nend, role_of, ...) are static
 * inline: the walk calls them for every node it looks at, and a call across
 * files would cost more than their body.
 *
 * Sections:
 *   1. Roles, kinds and flags
 *   2. The language tables (defs_tab.c, defs_langs.c)
 *   3. The walk's state
 *   4. Names and output (defs_out.c)
 *   5. The table-driven visitors (defs_gen.c)
 *   6. The C/C++ visitors (defs_c.c)
 */
#ifndef MG_DEFS_INT_H
#define MG_DEFS_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "index/defs.h"

#define MAX_DEFS     1000000
#define MAX_NAME     256
#define NONE         UINT32_MAX
#define MAX_SYMBOLS  2048 /* the largest grammar (cpp) has 538 */
#define CHAIN_LIMIT  64   /* steps through a declarator chain or a qualified name */

/* ---- 1. Roles, kinds and flags ---- */

enum role {
    R_NONE = 0,    /* neither a definition nor a place that holds them */
    R_DESCEND,     /* transparent: look at its children, same context */
    R_WRAP,        /* wrapper (template, export, decorators): the definition
                    * inside takes the wrapper's range */
    R_ATTR,        /* Rust #[...], JS/TS decorator in a class body: the next
                    * sibling definition starts here */
    R_COMMENT,     /* leaves pending attributes alone */
    R_NAMED,       /* a definition named by its `name` field; kind and flags
                    * from the table */
    R_FUNC,        /* function, or method when the parent is class-like */
    R_SIGNATURE,   /* Rust fn signature: a method inside a trait, else nothing */
    R_C_FUNC,      /* C/C++ function_definition */
    R_C_RECORD,    /* struct/union/class/enum specifier */
    R_C_TYPEDEF,   /* type_definition */
    R_C_DECL,      /* declaration, field_declaration: prototypes, variables,
                    * fields (one per declarator) */
    R_C_FRIEND,    /* friend_declaration: no prototype of its own */
    R_GO_METHOD,   /* method_declaration: container = receiver type */
    R_GO_TYPEDECL, /* type/const/var declaration: one spec takes the whole range */
    R_GO_TYPESPEC, /* type_spec, type_alias (a struct's fields and an
                    * interface's methods are entered) */
    R_RUST_IMPL,   /* impl_item: named after its type */
    R_JS_METHOD,   /* method_definition */
    R_JS_FIELD,    /* class field: method when its value is a function, else
                    * field */
    R_JS_VARDECL,  /* lexical/variable declaration */
    R_JS_VAR,      /* variable_declarator: function when its value is one,
                    * else variable (where frame.vars says so) */
    R_JS_EXPR,     /* expression_statement: entered at top level only (IIFE,
                    * AMD, TS namespace) */
    R_JS_MEMBER,   /* TS property/method signature in an interface: kind
                    * from the table, unless the name is computed */
    R_JS_ENUM_MEMBER, /* TS enum member (inside an enum only) */
    R_MEMBERS,     /* Java field/constant declaration, Go const/var spec: one
                    * definition (kind from the table) per `declarator` (Java)
                    * or `name` (Go) */
    R_GO_FIELD,    /* Go field_declaration: its names, or the embedded type */
    R_PY_EXPR,     /* Python expression_statement: maybe an assignment */
    R_RUST_CONST,  /* const/static item: field in a trait/impl, variable at
                    * top level or in a mod, nothing in a function */
    /* C/C++ functions the parser did not see as function_definition: a head
     * (see struct frame) followed by a compound_statement sibling */
    R_C_CALL,      /* expression_statement: maybe `MACRO(name, ...)` without `;` */
    R_C_CALLEXPR,  /* call_expression loose in an ERROR */
    R_C_SPEC,      /* storage class, qualifier, primitive type: a run of them
                    * starts a function whose pieces lie loose in an ERROR */
    R_C_BLOCK,     /* compound_statement */
    /* declarator chains (C/C++): never definitions themselves */
    R_D_ID,        /* identifier, field_identifier, type_identifier */
    R_D_FIELD,     /* function/pointer/array/init declarator: `declarator` field */
    R_D_INNER,     /* parenthesized/reference/attributed: first named child */
    R_D_QUAL,      /* qualified_identifier */
    R_D_TFUNC,     /* template_function: `name` field */
    R_D_OPCAST,    /* operator_cast: text up to its declarator */
    R_D_TEXT,      /* destructor_name, operator_name: the text */
    /* type expressions (Go receivers, Rust impls): never definitions */
    R_T_INNER,     /* pointer/parenthesized type without a field: first named child */
    R_T_TYPE,      /* generic/reference type: its `type` field */
    R_T_NAME,      /* qualified type (Go pkg.T): its `name` field */
    /* the languages added with the table-driven visitors (defs_gen.c) */
    R_GEN,         /* a definition named by its `name` field or by the first
                    * name token found through its name paths (F_NAMETOK,
                    * F_NAMEPATH); kind from the table, refined by F_KW,
                    * F_PARAMS, F_BYVAL */
    R_KWCALL,      /* `(defun f ...)`, `def f(x)`, `resource "t" "n" {}`: a
                    * definition when its head word is one of the language's
                    * keywords (struct kw) */
    R_ASSIGN,      /* `name <- function(x)`, `NAME=value`, `CC := cc`: a
                    * function when the value is one (F_FUNCVAL), else a
                    * variable at top level */
    R_CSS_RULE,    /* a CSS rule: one definition per selector */
};

enum kind {
    K_NONE = 0, K_FUNCTION, K_METHOD, K_CONSTRUCTOR, K_CLASS, K_STRUCT, K_UNION,
    K_ENUM, K_INTERFACE, K_TRAIT, K_IMPL, K_TYPE, K_MODULE, K_MACRO,
    K_PROTOTYPE, K_VARIABLE, K_FIELD, K_ENUMERATOR,
};

/* Flags of a table entry. */
#define F_CONTAINER   0x01 /* its members are definitions (is_container) */
#define F_DESCEND     0x02 /* after emitting, look inside for members/nested defs */
#define F_NEED_BODY   0x04 /* only a definition when it has a `body` (Rust mod) */
#define F_ANON_IN     0x08 /* without a name, still look inside (anonymous namespace) */
#define F_FUNCVAL     0x10 /* JS/TS: a function value (arrow_function, ...) */
#define F_SPEC        0x20 /* Go: type_spec / type_alias / const_spec / var_spec */
#define F_DECLARATOR  0x40 /* JS: variable_declarator */
#define F_BY_TYPE     0x80 /* Go type_spec: kind from its `type` (struct, interface) */
#define F_COMPUTED   0x100 /* JS/TS: a computed property name ([Symbol.iterator]) */
#define F_ASSIGN     0x200 /* Python: assignment */
#define F_TARGETS    0x400 /* Python: pattern_list, tuple_pattern (a, b = ...) */
#define F_NAMETOK    0x800 /* R_GEN: a node type that names a definition */
#define F_NAMEPATH  0x1000 /* R_GEN: look inside for the name (signature, call) */
#define F_KW        0x2000 /* R_GEN: kind from a keyword before the name (enum class) */
#define F_PARAMTOK  0x4000 /* R_GEN: a child that makes its parent a function */
#define F_PARAMS    0x8000 /* R_GEN: a function when it has an F_PARAMTOK child */
#define F_BYVAL    0x10000 /* R_GEN: kind from a child with a kind (zig `const P = struct {}`) */
#define F_LABELS   0x20000 /* keyword: named by its string labels joined with '.' */
/* Flags of declarator entries (R_D_*): what a declarator makes of the name
 * inside it. The one nearest the name decides: `int *f(void)` declares a
 * function, `int (*f)(void)` a pointer. */
#define F_D_FUNC      0x01 /* function_declarator */
#define F_D_OBJ       0x02 /* pointer, array, reference: an object */

static inline bool class_like(int k)
{
    return k == K_CLASS || k == K_STRUCT || k == K_UNION || k == K_INTERFACE ||
           k == K_TRAIT || k == K_IMPL || k == K_ENUM;
}

/* ---- 2. The language tables (defs_tab.c, defs_langs.c) ---- */

struct symrole {
    uint8_t role, kind;
    uint32_t flags;
};

/* One line of a language's table: what a node type means. */
struct entry {
    const char *type; /* node type name */
    uint8_t role, kind;
    uint32_t flags;
};

/* A head word that makes a definition (R_KWCALL). */
struct kw {
    const char *word;
    uint8_t kind;
    uint32_t flags; /* F_DESCEND, F_CONTAINER, F_LABELS */
};

/* The tables of the languages added with the table-driven visitors
 * (defs_langs.c): NULL when id is not one of them. */
const struct entry *mg__defs_entries_more(int id, const struct kw **kw);

struct tab {
    const TSLanguage *ts;
    uint32_t nsyms;
    bool ok;
    bool cpp; /* qualified names, constructors */
    const struct kw *kw; /* R_KWCALL head words, or NULL */
    struct symrole sym[MAX_SYMBOLS];
    TSSymbol s_identifier, s_type_identifier, s_paren_decl, s_pure_virtual, s_sized_type;
    TSFieldId f_name, f_declarator, f_body, f_type, f_value, f_receiver, f_scope, f_property;
    TSFieldId f_function, f_arguments, f_left, f_right, f_parameters, f_pattern;
};

/* The table of language id (MG_LANG_C ... MG_LANG_FIRST_PLAIN - 1), built on
 * the first call (thread-safe); check ->ok. */
const struct tab *mg__defs_tab(int id);

static inline struct symrole role_of(const struct tab *t, TSNode n)
{
    static const struct symrole none = {R_NONE, 0, 0}, error = {R_DESCEND, 0, 0};
    TSSymbol s = ts_node_symbol(n);
    if (s < t->nsyms) return t->sym[s];
    return s == (TSSymbol)-1 ? error : none; /* ERROR nodes are searched too */
}

/* ---- 3. The walk's state ---- */

struct side {        /* what the walk needs to know about an emitted def */
    uint32_t name;   /* arena offset */
    uint32_t cont;   /* arena offset or NONE */
    uint8_t kind;
};

/* What earlier siblings left for the next one. */
struct pending {
    uint32_t attr;       /* start of attributes/decorators, or NONE */
    /* C/C++ only, for functions the parser split into siblings (macro-defined
     * functions, pieces loose in an ERROR): */
    uint32_t spec;       /* start of a run of specifiers, or NONE */
    uint32_t head_start; /* where the function would start */
    TSNode head;         /* declarator or `MACRO(...)` just seen, or null */
};

/* The context of the children of one node (one per cursor depth). */
struct frame {
    int parent;                    /* enclosing definition, -1 at top level */
    int anon;                      /* C/C++: the typedef, variable or field
                                    * whose members an anonymous
                                    * struct/union/enum here has (`typedef
                                    * struct { int x; } point;`), or -1 */
    bool friend;                   /* C++: inside a friend declaration */
    bool vars;                     /* JS/TS: at program level or in a namespace
                                    * body, where a variable is a definition
                                    * (not in an IIFE or a callback) */
    uint32_t wrap_start, wrap_end; /* range of the wrapper around the next
                                    * definition, or NONE */
    struct pending p;              /* left by the previous siblings */
};

struct walker {
    const struct tab *t;
    const char *src;
    uint32_t len;
    struct mg_defs *out;
    struct side *side;
    size_t side_cap;
    TSTreeCursor aux; /* for counting/iterating children of one node */
    bool oom;         /* memory ran out: stop */
    bool full;        /* MAX_DEFS reached: stop */
};

static inline TSNode field(const struct walker *w, TSNode n, TSFieldId f)
{
    if (!f) {
        TSNode null;
        memset(&null, 0, sizeof(null));
        return null;
    }
    return ts_node_child_by_field_id(n, f);
}

static inline uint32_t nstart(const struct walker *w, TSNode n)
{
    uint32_t s = ts_node_start_byte(n);
    return s < w->len ? s : w->len;
}

static inline uint32_t nend(const struct walker *w, TSNode n)
{
    uint32_t e = ts_node_end_byte(n);
    return e < w->len ? e : w->len;
}

static inline const char *arena_str(const struct walker *w, uint32_t off)
{
    return w->out->arena + off;
}

static inline int parent_kind(const struct walker *w, const struct frame *ctx)
{
    return ctx->parent >= 0 ? w->side[ctx->parent].kind : K_NONE;
}

static inline struct frame plain_child(int parent)
{
    return (struct frame){
        .parent = parent, .anon = -1, .wrap_start = NONE, .wrap_end = NONE,
        .p = {NONE, NONE, NONE, {{0, 0, 0, 0}, NULL, NULL}}, /* no pending */
    };
}

/* ---- 4. Names and output (defs_out.c) ---- */

/* Build a name in the arena: begin, put bytes (at most a little over
 * MAX_NAME are kept), end. mg__defs_str_end cuts it to MAX_NAME at a UTF-8
 * boundary and NUL-terminates it; it returns the name's offset, or NONE
 * (forgetting it) when it is empty or memory ran out. */
uint32_t mg__defs_str_begin(const struct walker *w);
void mg__defs_str_put(struct walker *w, uint32_t mark, const char *p, size_t n);
void mg__defs_str_put_node(struct walker *w, uint32_t mark, TSNode n);
uint32_t mg__defs_str_end(struct walker *w, uint32_t mark);
/* The text of a node as a new name; a quoted string ('x', "x") loses its
 * quotes. NONE for a null node. */
uint32_t mg__defs_name_of(struct walker *w, TSNode n);
/* Record a definition; returns its index or -1 (cap reached, no memory). The
 * container is the parent's name unless `cont` names one. */
int mg__defs_emit(struct walker *w, const struct frame *ctx, TSNode node, uint32_t attr, uint32_t name, uint32_t cont,
                  int kind, bool container);

/* ---- 5. The table-driven visitors (defs_gen.c) ---- */

/* R_GEN, R_KWCALL, R_ASSIGN, R_CSS_RULE: true (with *child) when the walk
 * descends into n. */
bool mg__defs_visit_gen(struct walker *w, const struct frame *ctx, TSNode n, uint32_t attr, struct symrole r,
                        struct frame *child);

/* ---- 6. The C/C++ visitors (defs_c.c) ---- */

/* A function: `n` gives the range (from `start` if earlier), `decl` the
 * name; `typed` says it has a return type (so it is no constructor). */
void mg__defs_visit_c_func(struct walker *w, const struct frame *ctx, TSNode n, uint32_t start, TSNode decl,
                           bool typed);
/* struct/union/class/enum specifier: emits a named one; true (with *child)
 * when the walk descends into its body. */
bool mg__defs_visit_c_record(struct walker *w, const struct frame *ctx, TSNode n, uint32_t attr, struct symrole r,
                             struct frame *child);
/* typedef: the definition made, or -1. */
int mg__defs_visit_c_typedef(struct walker *w, const struct frame *ctx, TSNode n, uint32_t attr);
/* declaration, field_declaration: the first definition made, or -1. */
int mg__defs_visit_c_decl(struct walker *w, const struct frame *ctx, TSNode n, uint32_t attr, struct symrole r);
/* A sibling that may be part of a function the parser split up; `prev` is
 * what the previous siblings left (ctx->p is already cleared). */
void mg__defs_visit_c_piece(struct walker *w, struct frame *ctx, const struct pending *prev, TSNode n,
                            struct symrole r);

#endif
