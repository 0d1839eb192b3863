/* defs.c — find the definitions in a tree-sitter tree (see defs.h).
 *
 * Sections:
 *   1. Roles and kinds      what a node type means to the walk
 *   2. Language tables      symbol -> role, built once per language (pthread_once)
 *   3. Output               the name arena, emitting a definition
 *   4. Declarators (C/C++)  from a declarator chain to a name and a qualifier
 *   5. Visitors             one per language family: is this node a definition,
 *                           and does the walk descend into it?
 *   6. The walk             TSTreeCursor + an explicit stack of frames
 *   7. Public API
 *
 * The walk never recurses: a TSTreeCursor moves over the tree and a growable
 * array of frames (one per cursor depth) holds the context of each level: the
 * enclosing definition, the range of a wrapper (template<>, export, decorators)
 * and the start of pending attributes. The walk descends only into nodes that
 * can hold definitions (the root, preprocessor blocks, namespace, class and impl
 * bodies, ...), so function bodies of C-family languages are never entered and
 * the cost stays a small fraction of the parse.
 *
 * Names live in one arena that grows with realloc(); while walking, definitions
 * refer to names by offset, and the pointers in struct mg_def are set at the end.
 */
#include "index/defs.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEFS     1000000
#define MAX_NAME     256
#define NONE         UINT32_MAX
#define MAX_SYMBOLS  2048 /* the largest grammar (cpp) has 538 */
#define CHAIN_LIMIT  64   /* steps through a declarator chain or a qualified name */

/* ---- 1. Roles and kinds -------------------------------------------------- */

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
};

enum kind {
    K_NONE = 0, K_FUNCTION, K_METHOD, K_CONSTRUCTOR, K_CLASS, K_STRUCT, K_UNION,
    K_ENUM, K_INTERFACE, K_TRAIT, K_IMPL, K_TYPE, K_MODULE, K_MACRO,
    K_PROTOTYPE, K_VARIABLE, K_FIELD, K_ENUMERATOR,
};

static const char *const kind_str[] = {
    [K_NONE] = "", [K_FUNCTION] = MG_KIND_FUNCTION, [K_METHOD] = MG_KIND_METHOD,
    [K_CONSTRUCTOR] = MG_KIND_CONSTRUCTOR, [K_CLASS] = MG_KIND_CLASS,
    [K_STRUCT] = MG_KIND_STRUCT, [K_UNION] = MG_KIND_UNION, [K_ENUM] = MG_KIND_ENUM,
    [K_INTERFACE] = MG_KIND_INTERFACE, [K_TRAIT] = MG_KIND_TRAIT, [K_IMPL] = MG_KIND_IMPL,
    [K_TYPE] = MG_KIND_TYPE, [K_MODULE] = MG_KIND_MODULE, [K_MACRO] = MG_KIND_MACRO,
    [K_PROTOTYPE] = MG_KIND_PROTOTYPE, [K_VARIABLE] = MG_KIND_VARIABLE, [K_FIELD] = MG_KIND_FIELD,
    [K_ENUMERATOR] = MG_KIND_ENUMERATOR,
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
/* Flags of declarator entries (R_D_*): what a declarator makes of the name
 * inside it. The one nearest the name decides: `int *f(void)` declares a
 * function, `int (*f)(void)` a pointer. */
#define F_D_FUNC      0x01 /* function_declarator */
#define F_D_OBJ       0x02 /* pointer, array, reference: an object */

static bool class_like(int k)
{
    return k == K_CLASS || k == K_STRUCT || k == K_UNION || k == K_INTERFACE ||
           k == K_TRAIT || k == K_IMPL || k == K_ENUM;
}

/* ---- 2. Language tables -------------------------------------------------- */

struct entry {
    const char *type; /* node type name */
    uint8_t role, kind;
    uint16_t flags;
};

struct symrole {
    uint8_t role, kind;
    uint16_t flags;
};

struct tab {
    const TSLanguage *ts;
    uint32_t nsyms;
    bool ok;
    bool cpp; /* qualified names, constructors */
    struct symrole sym[MAX_SYMBOLS];
    TSSymbol s_identifier, s_type_identifier, s_paren_decl, s_pure_virtual, s_sized_type;
    TSFieldId f_name, f_declarator, f_body, f_type, f_value, f_receiver, f_scope, f_property;
    TSFieldId f_function, f_arguments, f_left, f_right, f_parameters, f_pattern;
};

#define E(t, r, k, f) {t, r, k, f}

/* Shared by C and C++. */
#define C_COMMON                                                                 \
    E("translation_unit", R_DESCEND, 0, 0), E("preproc_if", R_DESCEND, 0, 0),    \
    E("preproc_ifdef", R_DESCEND, 0, 0), E("preproc_else", R_DESCEND, 0, 0),     \
    E("preproc_elif", R_DESCEND, 0, 0), E("preproc_elifdef", R_DESCEND, 0, 0),   \
    E("linkage_specification", R_DESCEND, 0, 0),                                 \
    E("declaration_list", R_DESCEND, 0, 0), E("declaration", R_C_DECL, 0, 0),    \
    E("field_declaration", R_C_DECL, K_FIELD, 0),                                \
    E("field_declaration_list", R_DESCEND, 0, 0),                                \
    E("function_definition", R_C_FUNC, 0, 0),                                    \
    E("type_definition", R_C_TYPEDEF, K_TYPE, 0),                                \
    E("enum_specifier", R_C_RECORD, K_ENUM, F_DESCEND),                          \
    E("enumerator_list", R_DESCEND, 0, 0),                                       \
    E("enumerator", R_NAMED, K_ENUMERATOR, 0),                                   \
    E("preproc_def", R_NAMED, K_MACRO, 0),                                       \
    E("preproc_function_def", R_NAMED, K_MACRO, 0),                              \
    E("expression_statement", R_C_CALL, 0, 0),                                   \
    E("call_expression", R_C_CALLEXPR, 0, 0),                                    \
    E("compound_statement", R_C_BLOCK, 0, 0),                                    \
    E("storage_class_specifier", R_C_SPEC, 0, 0),                                \
    E("type_qualifier", R_C_SPEC, 0, 0), E("primitive_type", R_C_SPEC, 0, 0),   \
    E("sized_type_specifier", R_C_SPEC, 0, 0),                                   \
    E("attribute_specifier", R_C_SPEC, 0, 0),                                    \
    E("identifier", R_D_ID, 0, 0), E("field_identifier", R_D_ID, 0, 0),          \
    E("type_identifier", R_D_ID, 0, 0),                                          \
    E("function_declarator", R_D_FIELD, 0, F_D_FUNC),                            \
    E("pointer_declarator", R_D_FIELD, 0, F_D_OBJ),                              \
    E("array_declarator", R_D_FIELD, 0, F_D_OBJ),                                \
    E("init_declarator", R_D_FIELD, 0, 0),                                       \
    E("parenthesized_declarator", R_D_INNER, 0, 0),                              \
    E("attributed_declarator", R_D_INNER, 0, 0)

static const struct entry c_entries[] = {
    C_COMMON,
    E("struct_specifier", R_C_RECORD, K_STRUCT, F_DESCEND),
    E("union_specifier", R_C_RECORD, K_UNION, F_DESCEND),
    {0},
};

static const struct entry cpp_entries[] = {
    C_COMMON,
    E("struct_specifier", R_C_RECORD, K_STRUCT, F_DESCEND | F_CONTAINER),
    E("union_specifier", R_C_RECORD, K_UNION, F_DESCEND | F_CONTAINER),
    E("class_specifier", R_C_RECORD, K_CLASS, F_DESCEND | F_CONTAINER),
    E("namespace_definition", R_NAMED, K_MODULE, F_DESCEND | F_CONTAINER | F_ANON_IN),
    E("template_declaration", R_WRAP, 0, 0),
    E("friend_declaration", R_C_FRIEND, 0, 0),
    E("alias_declaration", R_NAMED, K_TYPE, 0),
    E("reference_declarator", R_D_INNER, 0, F_D_OBJ),
    E("qualified_identifier", R_D_QUAL, 0, 0),
    E("template_function", R_D_TFUNC, 0, 0),
    E("operator_cast", R_D_OPCAST, 0, 0),
    E("destructor_name", R_D_TEXT, 0, 0),
    E("operator_name", R_D_TEXT, 0, 0),
    {0},
};

static const struct entry go_entries[] = {
    E("source_file", R_DESCEND, 0, 0),
    E("function_declaration", R_NAMED, K_FUNCTION, 0),
    E("method_declaration", R_GO_METHOD, K_METHOD, 0),
    E("type_declaration", R_GO_TYPEDECL, 0, 0),
    E("type_spec", R_GO_TYPESPEC, K_TYPE, F_SPEC | F_BY_TYPE),
    E("type_alias", R_GO_TYPESPEC, K_TYPE, F_SPEC),
    /* a struct's fields and an interface's methods (entered from a type_spec) */
    E("struct_type", R_DESCEND, K_STRUCT, 0),
    E("interface_type", R_DESCEND, K_INTERFACE, 0),
    E("field_declaration_list", R_DESCEND, 0, 0),
    E("field_declaration", R_GO_FIELD, K_FIELD, 0),
    E("method_elem", R_NAMED, K_METHOD, 0),
    E("method_spec", R_NAMED, K_METHOD, 0),
    /* top-level const and var: one spec takes the whole range */
    E("const_declaration", R_GO_TYPEDECL, 0, 0),
    E("var_declaration", R_GO_TYPEDECL, 0, 0),
    E("var_spec_list", R_DESCEND, 0, 0),
    E("const_spec", R_MEMBERS, K_VARIABLE, F_SPEC),
    E("var_spec", R_MEMBERS, K_VARIABLE, F_SPEC),
    E("pointer_type", R_T_INNER, 0, 0),
    E("parenthesized_type", R_T_INNER, 0, 0),
    E("generic_type", R_T_TYPE, 0, 0),
    E("qualified_type", R_T_NAME, 0, 0),
    {0},
};

static const struct entry java_entries[] = {
    E("program", R_DESCEND, 0, 0),
    E("class_declaration", R_NAMED, K_CLASS, F_DESCEND | F_CONTAINER),
    E("record_declaration", R_NAMED, K_CLASS, F_DESCEND | F_CONTAINER),
    E("interface_declaration", R_NAMED, K_INTERFACE, F_DESCEND | F_CONTAINER),
    E("annotation_type_declaration", R_NAMED, K_INTERFACE, F_DESCEND | F_CONTAINER),
    E("enum_declaration", R_NAMED, K_ENUM, F_DESCEND | F_CONTAINER),
    E("class_body", R_DESCEND, 0, 0),
    E("interface_body", R_DESCEND, 0, 0),
    E("annotation_type_body", R_DESCEND, 0, 0),
    E("enum_body", R_DESCEND, 0, 0),
    E("enum_body_declarations", R_DESCEND, 0, 0),
    E("method_declaration", R_NAMED, K_METHOD, 0),
    E("constructor_declaration", R_NAMED, K_CONSTRUCTOR, 0),
    E("compact_constructor_declaration", R_NAMED, K_CONSTRUCTOR, 0),
    E("field_declaration", R_MEMBERS, K_FIELD, 0),
    E("constant_declaration", R_MEMBERS, K_FIELD, 0),
    E("enum_constant", R_NAMED, K_ENUMERATOR, 0),
    /* record components (only a record's parameters are entered) */
    E("formal_parameters", R_DESCEND, 0, 0),
    E("formal_parameter", R_NAMED, K_FIELD, 0),
    {0},
};

static const struct entry python_entries[] = {
    E("module", R_DESCEND, 0, 0),
    E("function_definition", R_FUNC, 0, F_DESCEND),
    E("class_definition", R_NAMED, K_CLASS, F_DESCEND | F_CONTAINER),
    E("decorated_definition", R_WRAP, 0, 0),
    E("block", R_DESCEND, 0, 0),
    E("if_statement", R_DESCEND, 0, 0), E("elif_clause", R_DESCEND, 0, 0),
    E("else_clause", R_DESCEND, 0, 0), E("try_statement", R_DESCEND, 0, 0),
    E("except_clause", R_DESCEND, 0, 0), E("except_group_clause", R_DESCEND, 0, 0),
    E("finally_clause", R_DESCEND, 0, 0), E("with_statement", R_DESCEND, 0, 0),
    E("expression_statement", R_PY_EXPR, 0, 0),
    E("assignment", R_NONE, 0, F_ASSIGN),
    E("pattern_list", R_NONE, 0, F_TARGETS),
    E("tuple_pattern", R_NONE, 0, F_TARGETS),
    E("lambda", R_NONE, 0, F_FUNCVAL),
    {0},
};

static const struct entry rust_entries[] = {
    E("source_file", R_DESCEND, 0, 0),
    E("declaration_list", R_DESCEND, 0, 0),
    E("block", R_DESCEND, 0, 0),
    E("function_item", R_FUNC, 0, F_DESCEND),
    E("function_signature_item", R_SIGNATURE, K_METHOD, 0),
    E("struct_item", R_NAMED, K_STRUCT, F_DESCEND),
    E("enum_item", R_NAMED, K_ENUM, F_DESCEND),
    E("union_item", R_NAMED, K_UNION, F_DESCEND),
    E("field_declaration_list", R_DESCEND, 0, 0),
    E("field_declaration", R_NAMED, K_FIELD, 0),
    E("enum_variant_list", R_DESCEND, 0, 0),
    E("enum_variant", R_NAMED, K_ENUMERATOR, 0),
    E("associated_type", R_NAMED, K_TYPE, 0),
    E("const_item", R_RUST_CONST, 0, 0),
    E("static_item", R_RUST_CONST, 0, 0),
    E("trait_item", R_NAMED, K_TRAIT, F_DESCEND | F_CONTAINER),
    E("impl_item", R_RUST_IMPL, K_IMPL, F_DESCEND | F_CONTAINER),
    E("type_item", R_NAMED, K_TYPE, 0),
    E("mod_item", R_NAMED, K_MODULE, F_DESCEND | F_CONTAINER | F_NEED_BODY),
    E("macro_definition", R_NAMED, K_MACRO, 0),
    E("attribute_item", R_ATTR, 0, 0),
    E("line_comment", R_COMMENT, 0, 0),
    E("block_comment", R_COMMENT, 0, 0),
    E("generic_type", R_T_TYPE, 0, 0),
    E("reference_type", R_T_TYPE, 0, 0),
    E("pointer_type", R_T_TYPE, 0, 0),
    {0},
};

/* Shared by JavaScript, TypeScript and TSX (names a grammar lacks are skipped). */
static const struct entry js_entries[] = {
    E("program", R_DESCEND, 0, 0),
    E("statement_block", R_DESCEND, 0, 0),
    E("export_statement", R_WRAP, 0, 0),
    E("ambient_declaration", R_WRAP, 0, 0),
    E("function_declaration", R_FUNC, 0, F_DESCEND),
    E("generator_function_declaration", R_FUNC, 0, F_DESCEND),
    E("class_declaration", R_NAMED, K_CLASS, F_DESCEND | F_CONTAINER),
    E("abstract_class_declaration", R_NAMED, K_CLASS, F_DESCEND | F_CONTAINER),
    E("class", R_NAMED, K_CLASS, F_DESCEND | F_CONTAINER | F_ANON_IN),
    E("class_body", R_DESCEND, 0, 0),
    E("method_definition", R_JS_METHOD, K_METHOD, F_DESCEND),
    E("field_definition", R_JS_FIELD, K_METHOD, F_DESCEND),
    E("public_field_definition", R_JS_FIELD, K_METHOD, F_DESCEND),
    E("lexical_declaration", R_JS_VARDECL, 0, 0),
    E("variable_declaration", R_JS_VARDECL, 0, 0),
    E("variable_declarator", R_JS_VAR, K_FUNCTION, F_DESCEND | F_DECLARATOR),
    E("expression_statement", R_JS_EXPR, 0, 0),
    E("call_expression", R_DESCEND, 0, 0),
    E("arguments", R_DESCEND, 0, 0),
    E("parenthesized_expression", R_DESCEND, 0, 0),
    E("unary_expression", R_DESCEND, 0, 0),
    E("arrow_function", R_DESCEND, 0, F_FUNCVAL),
    E("function_expression", R_DESCEND, 0, F_FUNCVAL),
    E("function", R_DESCEND, 0, F_FUNCVAL),
    E("generator_function", R_DESCEND, 0, F_FUNCVAL),
    E("decorator", R_ATTR, 0, 0),
    E("comment", R_COMMENT, 0, 0),
    E("computed_property_name", R_NONE, 0, F_COMPUTED),
    /* TypeScript */
    E("interface_declaration", R_NAMED, K_INTERFACE, F_DESCEND),
    E("interface_body", R_DESCEND, 0, 0),
    E("property_signature", R_JS_MEMBER, K_FIELD, 0),
    E("method_signature", R_JS_MEMBER, K_METHOD, 0),
    E("type_alias_declaration", R_NAMED, K_TYPE, 0),
    E("enum_declaration", R_NAMED, K_ENUM, F_DESCEND),
    E("enum_body", R_DESCEND, 0, 0),
    E("enum_assignment", R_JS_ENUM_MEMBER, 0, 0),
    E("property_identifier", R_JS_ENUM_MEMBER, 0, 0),
    E("string", R_JS_ENUM_MEMBER, 0, 0),
    E("internal_module", R_NAMED, K_MODULE, F_DESCEND | F_CONTAINER),
    E("module", R_NAMED, K_MODULE, F_DESCEND | F_CONTAINER),
    {0},
};

#undef E

static struct tab tabs[MG_LANG_FIRST_PLAIN];
static pthread_once_t tabs_once = PTHREAD_ONCE_INIT;

static const struct entry *entries_for(int id)
{
    switch (id) {
    case MG_LANG_C: return c_entries;
    case MG_LANG_CPP: return cpp_entries;
    case MG_LANG_GO: return go_entries;
    case MG_LANG_JAVA: return java_entries;
    case MG_LANG_JAVASCRIPT:
    case MG_LANG_TYPESCRIPT:
    case MG_LANG_TSX: return js_entries;
    case MG_LANG_PYTHON: return python_entries;
    case MG_LANG_RUST: return rust_entries;
    default: return NULL;
    }
}

static TSFieldId field_id(const TSLanguage *l, const char *name)
{
    return ts_language_field_id_for_name(l, name, (uint32_t)strlen(name));
}

static void tab_init(struct tab *t, int id)
{
    const struct mg_lang *ml = mg_lang_by_id(id);
    const struct entry *e = entries_for(id);
    if (!ml || ml->id != id || !ml->grammar || !e) return;
    t->ts = ml->grammar();
    t->nsyms = ts_language_symbol_count(t->ts);
    if (!t->ts || t->nsyms > MAX_SYMBOLS) return;
    t->cpp = id == MG_LANG_CPP;
    for (; e->type; e++) {
        TSSymbol s = ts_language_symbol_for_name(t->ts, e->type, (uint32_t)strlen(e->type), true);
        /* 0 is "end": the grammar has no such node type. */
        if (s == 0 || s >= t->nsyms) continue;
        t->sym[s] = (struct symrole){e->role, e->kind, e->flags};
    }
    t->s_identifier = ts_language_symbol_for_name(t->ts, "identifier", 10, true);
    t->s_type_identifier = ts_language_symbol_for_name(t->ts, "type_identifier", 15, true);
    t->s_paren_decl = ts_language_symbol_for_name(t->ts, "parenthesized_declarator", 24, true);
    t->s_pure_virtual = ts_language_symbol_for_name(t->ts, "pure_virtual_clause", 19, true);
    t->s_sized_type = ts_language_symbol_for_name(t->ts, "sized_type_specifier", 20, true);
    t->f_name = field_id(t->ts, "name");
    t->f_declarator = field_id(t->ts, "declarator");
    t->f_body = field_id(t->ts, "body");
    t->f_type = field_id(t->ts, "type");
    t->f_value = field_id(t->ts, "value");
    t->f_receiver = field_id(t->ts, "receiver");
    t->f_scope = field_id(t->ts, "scope");
    t->f_property = field_id(t->ts, "property");
    t->f_function = field_id(t->ts, "function");
    t->f_arguments = field_id(t->ts, "arguments");
    t->f_left = field_id(t->ts, "left");
    t->f_right = field_id(t->ts, "right");
    t->f_parameters = field_id(t->ts, "parameters");
    t->f_pattern = field_id(t->ts, "pattern");
    t->ok = true;
}

static void tabs_init(void)
{
    for (int id = MG_LANG_C; id < MG_LANG_FIRST_PLAIN; id++) tab_init(&tabs[id], id);
}

static struct symrole role_of(const struct tab *t, TSNode n)
{
    static const struct symrole none = {R_NONE, 0, 0}, error = {R_DESCEND, 0, 0};
    TSSymbol s = ts_node_symbol(n);
    if (s < t->nsyms) return t->sym[s];
    return s == (TSSymbol)-1 ? error : none; /* ERROR nodes are searched too */
}

/* ---- 3. Output ----------------------------------------------------------- */

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

static const struct pending no_pending = {NONE, NONE, NONE, {{0, 0, 0, 0}, NULL, NULL}};

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

static TSNode field(const struct walker *w, TSNode n, TSFieldId f)
{
    if (!f) {
        TSNode null;
        memset(&null, 0, sizeof(null));
        return null;
    }
    return ts_node_child_by_field_id(n, f);
}

static uint32_t nstart(const struct walker *w, TSNode n)
{
    uint32_t s = ts_node_start_byte(n);
    return s < w->len ? s : w->len;
}

static uint32_t nend(const struct walker *w, TSNode n)
{
    uint32_t e = ts_node_end_byte(n);
    return e < w->len ? e : w->len;
}

static bool arena_reserve(struct walker *w, size_t more)
{
    struct mg_defs *d = w->out;
    if (d->arena_len + more <= d->arena_cap) return true;
    size_t cap = d->arena_cap ? d->arena_cap : 4096;
    while (cap < d->arena_len + more) cap *= 2;
    char *p = realloc(d->arena, cap);
    if (!p) {
        w->oom = true;
        return false;
    }
    d->arena = p;
    d->arena_cap = cap;
    return true;
}

/* Append bytes to the string being built; at most a little over MAX_NAME of it
 * is kept (the rest is cut by str_end). */
static void str_put(struct walker *w, uint32_t mark, const char *p, size_t n)
{
    size_t have = w->out->arena_len - mark;
    if (have >= MAX_NAME + 4) return;
    if (n > MAX_NAME + 4 - have) n = MAX_NAME + 4 - have;
    if (!n || !arena_reserve(w, n + 1)) return;
    memcpy(w->out->arena + w->out->arena_len, p, n);
    w->out->arena_len += n;
}

static void str_put_node(struct walker *w, uint32_t mark, TSNode n)
{
    uint32_t s = nstart(w, n), e = nend(w, n);
    if (e > s) str_put(w, mark, w->src + s, e - s);
}

static uint32_t str_begin(const struct walker *w)
{
    return (uint32_t)w->out->arena_len;
}

/* Finish the string begun at mark: cut to MAX_NAME at a UTF-8 boundary and
 * NUL-terminate. Returns mark, or NONE (and forgets it) when it is empty. */
static uint32_t str_end(struct walker *w, uint32_t mark)
{
    struct mg_defs *d = w->out;
    size_t n = d->arena_len - mark;
    if (n > MAX_NAME) {
        n = MAX_NAME;
        while (n > 0 && ((unsigned char)d->arena[mark + n] & 0xC0) == 0x80) n--;
    }
    if (n == 0 || w->oom || !arena_reserve(w, 1)) {
        d->arena_len = mark;
        return NONE;
    }
    d->arena[mark + n] = '\0';
    d->arena_len = mark + n + 1;
    return mark;
}

/* The text of a node as a new name; a quoted string ('x', "x") loses its quotes. */
static uint32_t name_of(struct walker *w, TSNode n)
{
    if (ts_node_is_null(n)) return NONE;
    uint32_t s = nstart(w, n), e = nend(w, n);
    if (e - s >= 2 && (w->src[s] == '"' || w->src[s] == '\'') && w->src[e - 1] == w->src[s])
        s++, e--;
    uint32_t mark = str_begin(w);
    if (e > s) str_put(w, mark, w->src + s, e - s);
    return str_end(w, mark);
}

static const char *arena_str(const struct walker *w, uint32_t off)
{
    return w->out->arena + off;
}

/* Record a definition; returns its index or -1 (cap reached, no memory). The
 * container is the parent's name unless `cont` names one. */
static int emit(struct walker *w, const struct frame *ctx, TSNode node, uint32_t attr,
                uint32_t name, uint32_t cont, int kind, bool container)
{
    struct mg_defs *d = w->out;
    if (name == NONE) return -1;
    if (d->n >= MAX_DEFS) {
        w->full = true;
        return -1;
    }
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 64;
        struct mg_def *v = realloc(d->v, cap * sizeof(*v));
        if (!v) {
            w->oom = true;
            return -1;
        }
        d->v = v;
        d->cap = cap;
    }
    if (d->n == w->side_cap) {
        size_t cap = w->side_cap ? w->side_cap * 2 : 64;
        struct side *s = realloc(w->side, cap * sizeof(*s));
        if (!s) {
            w->oom = true;
            return -1;
        }
        w->side = s;
        w->side_cap = cap;
    }
    uint32_t start = nstart(w, node), end = nend(w, node);
    if (ctx->wrap_start != NONE) {
        if (ctx->wrap_start < start) start = ctx->wrap_start;
        if (ctx->wrap_end > end) end = ctx->wrap_end;
    }
    if (attr != NONE && attr < start) start = attr;
    /* A #define ends with its newline; the definition ends before it. */
    while (end > start && (w->src[end - 1] == '\n' || w->src[end - 1] == '\r')) end--;
    /* Keep the promised order (by start) even when pieces an ERROR holds
     * would make a function start before a struct already emitted. */
    if (d->n > 0 && start < d->v[d->n - 1].start) {
        start = d->v[d->n - 1].start;
        if (end < start) end = start;
    }
    if (cont == NONE && ctx->parent >= 0) cont = w->side[ctx->parent].name;
    size_t i = d->n++;
    d->v[i] = (struct mg_def){
        .start = start, .end = end, .kind = kind_str[kind], .parent = ctx->parent,
        .is_container = container,
    };
    w->side[i] = (struct side){name, cont, (uint8_t)kind};
    return (int)i;
}

static int parent_kind(const struct walker *w, const struct frame *ctx)
{
    return ctx->parent >= 0 ? w->side[ctx->parent].kind : K_NONE;
}

/* ---- 4. Declarators (C/C++) ---------------------------------------------- */

/* The next link of a declarator chain, or null. */
static TSNode chain_next(const struct walker *w, TSNode n)
{
    TSNode next;
    memset(&next, 0, sizeof(next));
    switch (role_of(w->t, n).role) {
    case R_D_FIELD: return field(w, n, w->t->f_declarator);
    case R_D_INNER: {
        /* first named child that continues the chain (skips attributes,
         * calling-convention modifiers) */
        uint32_t cnt = ts_node_named_child_count(n);
        for (uint32_t k = 0; k < cnt && k < 8; k++) {
            TSNode c = ts_node_named_child(n, k);
            uint8_t cr = role_of(w->t, c).role;
            if (cr >= R_D_ID && cr <= R_D_TEXT) return c;
        }
        return next;
    }
    default: return next;
    }
}

/* Follow a declarator chain (pointer_declarator -> function_declarator ->
 * ...) to the node that names the thing: an identifier, a qualified name, an
 * operator. Null when the chain ends in something else. *func (if not NULL)
 * tells whether the declarator nearest the name is a function's. */
static TSNode declarator_leaf(const struct walker *w, TSNode n, bool *func)
{
    bool f = false;
    for (int i = 0; i < CHAIN_LIMIT && !ts_node_is_null(n); i++) {
        struct symrole r = role_of(w->t, n);
        if (r.flags & (F_D_FUNC | F_D_OBJ)) f = r.flags & F_D_FUNC;
        if (func) *func = f || r.role == R_D_OPCAST;
        if (r.role >= R_D_ID && r.role <= R_D_TEXT && r.role != R_D_FIELD && r.role != R_D_INNER)
            return n;
        n = chain_next(w, n);
    }
    TSNode null;
    memset(&null, 0, sizeof(null));
    return null;
}

/* The name of a leaf (not qualified): operator_cast loses its declarator,
 * template_function its arguments. */
static uint32_t leaf_name(struct walker *w, TSNode n)
{
    uint8_t r = role_of(w->t, n).role;
    if (r == R_D_TFUNC) return name_of(w, field(w, n, w->t->f_name));
    if (r == R_D_OPCAST) {
        TSNode d = field(w, n, w->t->f_declarator);
        uint32_t s = nstart(w, n), e = ts_node_is_null(d) ? nend(w, n) : nstart(w, d);
        while (e > s && (w->src[e - 1] == ' ' || w->src[e - 1] == '\t' || w->src[e - 1] == '\n'))
            e--;
        uint32_t mark = str_begin(w);
        if (e > s) str_put(w, mark, w->src + s, e - s);
        return str_end(w, mark);
    }
    return name_of(w, n);
}

/* The text of a scope component without template arguments (Foo<T> -> Foo). */
static void put_scope(struct walker *w, uint32_t mark, TSNode scope)
{
    TSNode nm = field(w, scope, w->t->f_name);
    /* template_type has a `name`; namespace/type identifiers do not */
    str_put_node(w, mark, ts_node_is_null(nm) ? scope : nm);
}

/* Split a (possibly qualified) leaf into name and qualifier. *cont gets the
 * qualifier ("a::b::Foo") or NONE; *last_scope the offset in the arena string
 * where its last component starts (for constructor detection). */
static uint32_t qualified_name(struct walker *w, TSNode leaf, uint32_t *cont, uint32_t *last)
{
    *cont = NONE;
    *last = NONE;
    if (role_of(w->t, leaf).role != R_D_QUAL) return leaf_name(w, leaf);
    uint32_t mark = str_begin(w), lastpos = 0;
    bool any = false;
    TSNode n = leaf;
    for (int i = 0; i < CHAIN_LIMIT && role_of(w->t, n).role == R_D_QUAL; i++) {
        TSNode scope = field(w, n, w->t->f_scope);
        if (!ts_node_is_null(scope)) {
            if (any) str_put(w, mark, "::", 2);
            lastpos = (uint32_t)(w->out->arena_len - mark);
            put_scope(w, mark, scope);
            any = true;
        }
        n = field(w, n, w->t->f_name);
        if (ts_node_is_null(n)) break;
    }
    if (any) {
        *cont = str_end(w, mark);
        if (*cont != NONE && lastpos < strlen(arena_str(w, *cont))) *last = *cont + lastpos;
    }
    if (ts_node_is_null(n)) return NONE;
    return leaf_name(w, n);
}

/* "Foo" equals "Foo" and "Foo<int>" (a class template specialisation). */
static bool same_class_name(const char *fn, const char *cls)
{
    size_t n = strlen(fn);
    return strncmp(fn, cls, n) == 0 && (cls[n] == '\0' || cls[n] == '<');
}

/* ---- 5. Visitors --------------------------------------------------------- */

static struct frame plain_child(int parent)
{
    return (struct frame){
        .parent = parent, .anon = -1, .wrap_start = NONE, .wrap_end = NONE, .p = no_pending,
    };
}

/* Count children of n whose table flags include `flag`. */
static int count_children(struct walker *w, TSNode n, uint8_t flag)
{
    int cnt = 0;
    ts_tree_cursor_reset(&w->aux, n);
    if (!ts_tree_cursor_goto_first_child(&w->aux)) return 0;
    do {
        if (role_of(w->t, ts_tree_cursor_current_node(&w->aux)).flags & flag)
            if (++cnt > 1) break;
    } while (ts_tree_cursor_goto_next_sibling(&w->aux));
    return cnt;
}

/* A frame that hands the node's range to the single definition inside. */
static struct frame wrap_child(const struct walker *w, const struct frame *ctx, TSNode n,
                               uint32_t attr)
{
    struct frame f = plain_child(ctx->parent);
    f.vars = ctx->vars;
    f.wrap_start = nstart(w, n);
    f.wrap_end = nend(w, n);
    if (attr != NONE && attr < f.wrap_start) f.wrap_start = attr;
    if (ctx->wrap_start != NONE) {
        if (ctx->wrap_start < f.wrap_start) f.wrap_start = ctx->wrap_start;
        if (ctx->wrap_end > f.wrap_end) f.wrap_end = ctx->wrap_end;
    }
    return f;
}

/* A C/C++ function: `n` gives the range (from `start` if earlier), `decl` the
 * name; `typed` says it has a return type (so it is no constructor). A pure
 * virtual one (`= 0`, no body) is a prototype. */
static void visit_c_func(struct walker *w, const struct frame *ctx, TSNode n, uint32_t start,
                         TSNode decl, bool typed)
{
    uint32_t nc = ts_node_named_child_count(n);
    bool proto = w->t->s_pure_virtual && nc > 0 &&
                 ts_node_symbol(ts_node_named_child(n, nc - 1)) == w->t->s_pure_virtual;
    TSNode leaf = declarator_leaf(w, decl, NULL);
    if (ts_node_is_null(leaf)) return;
    uint32_t cont, last;
    uint32_t name = qualified_name(w, leaf, &cont, &last);
    if (name == NONE) return;
    const char *nm = arena_str(w, name);
    int kind = K_FUNCTION;
    if (cont != NONE) {
        kind = K_METHOD;
        if (last != NONE && nm[0] != '~' && same_class_name(nm, arena_str(w, last)))
            kind = K_CONSTRUCTOR;
    } else if (class_like(parent_kind(w, ctx))) {
        kind = K_METHOD;
        if (w->t->cpp && nm[0] != '~' && role_of(w->t, leaf).role == R_D_ID && !typed &&
            same_class_name(nm, arena_str(w, w->side[ctx->parent].name)))
            kind = K_CONSTRUCTOR;
    }
    emit(w, ctx, n, start, name, cont, proto ? K_PROTOTYPE : kind, false);
}

static bool visit_c_record(struct walker *w, const struct frame *ctx, TSNode n, uint32_t attr,
                           struct symrole r, struct frame *child)
{
    if (ts_node_is_null(field(w, n, w->t->f_body))) return false;
    TSNode nm = field(w, n, w->t->f_name);
    /* an anonymous one's members belong to what it declares (typedef,
     * variable, field), else to what holds it (a C11 anonymous member) */
    *child = plain_child(ctx->anon >= 0 ? ctx->anon : ctx->parent);
    if (!ts_node_is_null(nm)) {
        int i = emit(w, ctx, n, attr, name_of(w, nm), NONE, r.kind, r.flags & F_CONTAINER);
        if (i < 0) return false;
        child->parent = i;
    }
    return r.flags & F_DESCEND;
}

static int visit_c_typedef(struct walker *w, const struct frame *ctx, TSNode n, uint32_t attr)
{
    TSNode leaf = declarator_leaf(w, field(w, n, w->t->f_declarator), NULL);
    if (ts_node_is_null(leaf)) return -1;
    return emit(w, ctx, n, attr, name_of(w, leaf), NONE, K_TYPE, false);
}

/* `MACRO(x);` where a macro call stands alone: the parser takes it for a
 * declaration of x of type MACRO (EXPORT_SYMBOL(f); module_init(f);).
 * `static DEFINE_MUTEX(lock);`, with a specifier before the macro, stays a
 * variable: it defines one. */
static bool c_macro_decl(const struct walker *w, TSNode n, TSNode decl)
{
    TSNode ty = field(w, n, w->t->f_type);
    return ts_node_symbol(decl) == w->t->s_paren_decl && !ts_node_is_null(ty) &&
           ts_node_symbol(ty) == w->t->s_type_identifier && nstart(w, ty) == nstart(w, n);
}

/* The text of a name: kernel-style attribute macros start with `__`
 * (__packed, __read_mostly, ____cacheline_aligned); macros are in capitals
 * (BPMP_ABI_PACKED); a keyword (or NULL) is never a name (error recovery
 * makes some). */
enum name_look { NAME_PLAIN, NAME_ATTR, NAME_CAPS, NAME_KEYWORD };

static enum name_look name_look(const struct walker *w, TSNode n)
{
    static const char *const kw[] = {
        "auto", "bool", "break", "case", "char", "const", "continue", "default", "do", "double",
        "else", "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long",
        "register", "restrict", "return", "short", "signed", "sizeof", "static", "struct",
        "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "_Bool", "NULL",
    };
    uint32_t s = nstart(w, n), e = nend(w, n), len = e - s;
    const char *p = w->src + s;
    if (len >= 2 && p[0] == '_' && p[1] == '_') return NAME_ATTR;
    if (len <= 8 && len >= 2)
        for (size_t i = 0; i < sizeof(kw) / sizeof(kw[0]); i++)
            if (strlen(kw[i]) == len && memcmp(kw[i], p, len) == 0) return NAME_KEYWORD;
    bool upper = false;
    for (uint32_t i = 0; i < len; i++) {
        if (p[i] >= 'a' && p[i] <= 'z') return NAME_PLAIN;
        upper |= p[i] >= 'A' && p[i] <= 'Z';
    }
    return upper ? NAME_CAPS : NAME_PLAIN;
}

/* `unsigned long x __initdata;`: x taken for part of the type (as in
 * `unsigned long int`), the macro for the name. That x, or null. */
static TSNode c_sized_name(const struct walker *w, TSNode ty)
{
    TSNode id;
    memset(&id, 0, sizeof(id));
    if (!ts_node_is_null(ty) && ts_node_symbol(ty) == w->t->s_sized_type) {
        id = field(w, ty, w->t->f_type);
        if (ts_node_is_null(id) || ts_node_symbol(id) != w->t->s_type_identifier ||
            name_look(w, id) != NAME_PLAIN)
            memset(&id, 0, sizeof(id));
    }
    return id;
}

/* Kernel sources put attribute macros where the parser wants the name:
 * `int x __read_mostly;`, `spinlock_t lock ____cacheline_aligned_in_smp;`
 * and `static int __read_mostly n = 1;` leave the macro as the name and x (n)
 * in an ERROR next to it; `unsigned long x __initdata;` makes x part of the
 * type. The name is then that x: the type's identifier, or the one in the
 * last ERROR before the macro, or else the first after it, inside the
 * declaration (not in a function's parameters or an initializer); null if
 * none. */
static TSNode c_recover_name(const struct walker *w, TSNode n, TSNode d, TSNode leaf, bool *func)
{
    TSNode id = c_sized_name(w, field(w, n, w->t->f_type));
    if (!ts_node_is_null(id)) return *func = false, id;
    uint32_t at = nstart(w, leaf), after = nend(w, leaf);
    TSNode before, next, node = n;
    memset(&before, 0, sizeof(before));
    next = before;
    for (int i = 0; i < CHAIN_LIMIT && !ts_node_is_null(node) && !ts_node_eq(node, leaf); i++) {
        uint32_t cnt = ts_node_child_count(node);
        for (uint32_t k = 0; k < cnt; k++) {
            TSNode c = ts_node_child(node, k);
            if (!ts_node_is_error(c)) continue;
            if (nend(w, c) <= at) before = c;
            else if (nstart(w, c) >= after && ts_node_is_null(next)) next = c;
        }
        node = i == 0 ? d : chain_next(w, node);
    }
    TSNode e = ts_node_is_null(before) ? next : before, null;
    memset(&null, 0, sizeof(null));
    if (ts_node_is_null(e) || ts_node_named_child_count(e) == 0) return null;
    TSNode l = declarator_leaf(w, ts_node_named_child(e, 0), func);
    return ts_node_is_null(l) || name_look(w, l) != NAME_PLAIN ? null : l;
}

/* C/C++ declaration or field_declaration: a definition per declarator, each
 * with the whole declaration's range. A function declarator makes a
 * prototype, any other a field (in a struct, union or class) or a variable.
 * A friend's declaration declares nothing of the class; in C, a function
 * declarator in a struct is a macro call (C structs hold no functions).
 * Right after a struct/union/enum body, a function declarator or a name
 * that looks like a macro is an attribute (`} __packed;`, `} __aligned(8);`,
 * `} BPMP_ABI_PACKED;`). Returns the first definition made, or -1. */
static int visit_c_decl(struct walker *w, const struct frame *ctx, TSNode n, uint32_t attr,
                        struct symrole r)
{
    int first = -1;
    const struct tab *t = w->t;
    int pk = parent_kind(w, ctx);
    bool member = r.kind == K_FIELD || pk == K_CLASS || pk == K_STRUCT || pk == K_UNION ||
                  pk == K_TYPE;
    TSNode ty = field(w, n, t->f_type);
    bool after_body = !ts_node_is_null(ty) && role_of(t, ty).role == R_C_RECORD &&
                      !ts_node_is_null(field(w, ty, t->f_body));
    bool errors = ts_node_has_error(n);
    uint32_t nc = ts_node_child_count(n);
    /* cut short by the parser: `int __must_check f(void);` is `int
     * __must_check` and a MISSING `;`, `notrace u64 __weak f(void) {` is
     * `notrace u64;`; a bare word before it is no name (an array, a pointer
     * may be: `static long a[] __initdata __maybe_unused = {`) */
    bool cut = errors && nc > 0 && ts_node_is_missing(ts_node_child(n, nc - 1));
    /* `__read_mostly u64 x;`: the macro took the type's place, x is the name;
     * in an ERROR, a keyword may pass for a type: `typedef int T;` is then a
     * declaration of T of type `typedef`, other keywords make nonsense */
    enum name_look ty_look = !ts_node_is_null(ty) && ts_node_symbol(ty) == t->s_type_identifier
                                 ? name_look(w, ty) : NAME_PLAIN;
    bool type_attr = ty_look == NAME_ATTR, is_typedef = false;
    if (ty_look == NAME_KEYWORD) {
        if (nend(w, ty) - nstart(w, ty) != 7 || memcmp(w->src + nstart(w, ty), "typedef", 7) != 0)
            return -1;
        is_typedef = true;
    }
    /* A declaration with errors may begin with what it is not (a MISSING
     * type placed at the previous token, an #ifndef's name taken for the
     * type in an ERROR): its definitions start at the line of their name
     * (below). */
    ts_tree_cursor_reset(&w->aux, n);
    if (!ts_tree_cursor_goto_first_child(&w->aux)) return -1;
    do {
        if (ts_tree_cursor_current_field_id(&w->aux) != t->f_declarator) continue;
        TSNode d = ts_tree_cursor_current_node(&w->aux);
        bool func = false;
        TSNode leaf = declarator_leaf(w, d, &func);
        if (ts_node_is_null(leaf)) continue;
        if (role_of(t, leaf).role == R_D_ID) {
            enum name_look look = name_look(w, leaf);
            if (look == NAME_KEYWORD || (cut && ts_node_eq(d, leaf))) continue;
            /* `__initdata __maybe_unused = {`: two macros, what was before
             * them is the declaration the parser cut short */
            if (type_attr && look == NAME_ATTR && !errors) continue;
            /* a macro taken for the name: for a function, one whose
             * arguments do not parse (`int a[4] __aligned(8);`) */
            if (look == NAME_ATTR && !type_attr &&
                (func ? ts_node_has_error(d) : errors || !ts_node_is_null(c_sized_name(w, ty)))) {
                leaf = c_recover_name(w, n, d, leaf, &func);
                if (ts_node_is_null(leaf)) continue;
            } else if (after_body && (func || look == NAME_ATTR || look == NAME_CAPS)) {
                continue;
            }
        }
        if (func ? !t->cpp && r.kind == K_FIELD : c_macro_decl(w, n, d)) continue;
        uint32_t cont, last;
        uint32_t name = qualified_name(w, leaf, &cont, &last);
        int kind = is_typedef ? K_TYPE : func ? K_PROTOTYPE : member ? K_FIELD : K_VARIABLE;
        int i = emit(w, ctx, n, attr, name, cont, kind, false);
        if (i >= 0 && errors && !after_body) { /* (a struct in it comes next) */
            uint32_t ls = nstart(w, leaf);
            while (ls > 0 && w->src[ls - 1] != '\n') ls--;
            struct mg_def *v = &w->out->v[i];
            if (v->start < ls && ls <= v->end) v->start = ls;
        }
        if (first < 0) first = i;
    } while (!w->oom && !w->full && ts_tree_cursor_goto_next_sibling(&w->aux));
    return first;
}

/* The name of a type without `*`, `&` and generic arguments: Go receivers
 * (`*List[T]` -> List), Go embedded fields (`*pkg.Base` -> Base), Rust impls
 * (`Wrapper<T>` -> Wrapper). */
static uint32_t type_name(struct walker *w, TSNode t)
{
    for (int i = 0; i < CHAIN_LIMIT && !ts_node_is_null(t); i++) {
        switch (role_of(w->t, t).role) {
        case R_T_INNER:
            if (ts_node_named_child_count(t) == 0) return NONE;
            t = ts_node_named_child(t, 0);
            break;
        case R_T_TYPE: t = field(w, t, w->t->f_type); break;
        case R_T_NAME: t = field(w, t, w->t->f_name); break;
        default: return name_of(w, t);
        }
    }
    return NONE;
}

/* Go: the receiver's type name. */
static uint32_t go_receiver(struct walker *w, TSNode m)
{
    TSNode recv = field(w, m, w->t->f_receiver);
    if (ts_node_is_null(recv) || ts_node_named_child_count(recv) == 0) return NONE;
    return type_name(w, field(w, ts_node_named_child(recv, 0), w->t->f_type));
}

/* C: the call in `IDENT(...)` standing alone: an expression statement without
 * `;` (the parser inserted a MISSING one) or a call loose in an ERROR. A
 * `{ ... }` right after it makes a function defined through a macro. */
static TSNode c_macro_call(const struct walker *w, TSNode n)
{
    TSNode call = n, null;
    memset(&null, 0, sizeof(null));
    if (role_of(w->t, n).role == R_C_CALL) {
        if (ts_node_named_child_count(n) != 1) return null;
        call = ts_node_named_child(n, 0);
        if (nend(w, call) != nend(w, n) || role_of(w->t, call).role != R_C_CALLEXPR) return null;
    }
    TSNode fn = field(w, call, w->t->f_function);
    if (ts_node_is_null(fn) || role_of(w->t, fn).role != R_D_ID) return null;
    if (ts_node_is_null(field(w, call, w->t->f_arguments))) return null;
    return call;
}

/* The function `MACRO(name, ...) { ... }`: named by the first argument when it
 * is an identifier (SYSCALL_DEFINE1(unshare, ...) -> unshare), else by the
 * macro; ranges from the macro to the closing brace. */
static void visit_c_macro_func(struct walker *w, const struct frame *ctx, TSNode call,
                               uint32_t start, TSNode body)
{
    TSNode args = field(w, call, w->t->f_arguments);
    TSNode nm = ts_node_named_child_count(args) ? ts_node_named_child(args, 0) : args;
    if (ts_node_is_null(nm) || role_of(w->t, nm).role != R_D_ID)
        nm = field(w, call, w->t->f_function);
    emit(w, ctx, body, start, name_of(w, nm), NONE, K_FUNCTION, false);
}

/* C/C++: a sibling that may be part of a function the parser split up.
 * `prev` is what the previous siblings left (ctx->p is already cleared). */
static void visit_c_piece(struct walker *w, struct frame *ctx, const struct pending *prev,
                          TSNode n, struct symrole r)
{
    uint32_t s = nstart(w, n);
    switch (r.role) {
    case R_C_CALL:
    case R_C_CALLEXPR: {
        TSNode call = c_macro_call(w, n);
        if (!ts_node_is_null(call)) ctx->p.head = call, ctx->p.head_start = s;
        break;
    }
    case R_D_FIELD:
    case R_D_INNER:
        ctx->p.head = n;
        ctx->p.head_start = prev->spec != NONE ? prev->spec : s;
        break;
    case R_D_ID:
    case R_C_SPEC:
    case R_C_RECORD: ctx->p.spec = prev->spec != NONE ? prev->spec : s; break;
    case R_C_BLOCK:
        if (ts_node_is_null(prev->head)) break;
        if (role_of(w->t, prev->head).role == R_C_CALLEXPR)
            visit_c_macro_func(w, ctx, prev->head, prev->head_start, n);
        else
            visit_c_func(w, ctx, n, prev->head_start, prev->head, true);
        break;
    default: break;
    }
}

static bool js_toplike(const struct walker *w, const struct frame *ctx)
{
    return ctx->parent < 0 || w->side[ctx->parent].kind == K_MODULE;
}

/* `_`: Go's blank identifier and Rust's `const _` name nothing. */
static bool blank_name(const struct walker *w, TSNode n)
{
    return nend(w, n) == nstart(w, n) + 1 && w->src[nstart(w, n)] == '_';
}

/* One definition of `kind` per child of n in field f, each with n's range:
 * Go's `a, b int` (the names), Java's `int a, b = 2;` (the declarators, by
 * their `name`). Returns how many. */
static int emit_each(struct walker *w, const struct frame *ctx, TSNode n, uint32_t attr,
                     TSFieldId f, bool by_name, int kind)
{
    int cnt = 0;
    if (!f) return 0;
    ts_tree_cursor_reset(&w->aux, n);
    if (!ts_tree_cursor_goto_first_child(&w->aux)) return 0;
    do {
        if (ts_tree_cursor_current_field_id(&w->aux) != f) continue;
        TSNode c = ts_tree_cursor_current_node(&w->aux);
        if (!ts_node_is_named(c)) continue; /* Go gives the `,` between names the field too */
        if (by_name) c = field(w, c, w->t->f_name);
        if (ts_node_is_null(c) || blank_name(w, c)) continue;
        if (emit(w, ctx, n, attr, name_of(w, c), NONE, kind, false) >= 0) cnt++;
    } while (!w->oom && !w->full && ts_tree_cursor_goto_next_sibling(&w->aux));
    return cnt;
}

/* TS: a constructor's parameter properties (`constructor(private r: number,
 * readonly q?: string)`) are fields of its class, each with the parameter's
 * range: a parameter with a modifier (accessibility, readonly, override)
 * before its pattern. Decorators are no modifier. */
static void js_param_fields(struct walker *w, const struct frame *ctx, TSNode ctor)
{
    const struct tab *t = w->t;
    TSNode params = field(w, ctor, t->f_parameters);
    if (ts_node_is_null(params) || !t->f_pattern) return;
    ts_tree_cursor_reset(&w->aux, params);
    if (!ts_tree_cursor_goto_first_child(&w->aux)) return;
    do {
        TSNode p = ts_tree_cursor_current_node(&w->aux), pat = field(w, p, t->f_pattern);
        if (ts_node_is_null(pat) || ts_node_symbol(pat) != t->s_identifier) continue;
        bool modified = false;
        uint32_t cnt = ts_node_child_count(p);
        for (uint32_t k = 0; k < cnt && k < 8 && !modified; k++) {
            TSNode c = ts_node_child(p, k);
            if (nstart(w, c) >= nstart(w, pat)) break;
            modified = role_of(t, c).role != R_ATTR;
        }
        if (modified) emit(w, ctx, p, NONE, name_of(w, pat), NONE, K_FIELD, false);
    } while (!w->oom && !w->full && ts_tree_cursor_goto_next_sibling(&w->aux));
}

/* Python: an assignment at module level (variable) or in a class body
 * (field): `x = 1`, `x: int`, `a, b = ...`, `a = b = ...`; a lambda value
 * makes a function (method). Not: attributes, subscripts, `x += 1`, anything
 * in a function. */
static void visit_py_assign(struct walker *w, const struct frame *ctx, TSNode n, uint32_t attr)
{
    const struct tab *t = w->t;
    int pk = parent_kind(w, ctx);
    if ((pk != K_NONE && pk != K_CLASS) || ts_node_named_child_count(n) != 1) return;
    TSNode a = ts_node_named_child(n, 0), v = a;
    if (!(role_of(t, a).flags & F_ASSIGN)) return;
    for (int i = 0; i < CHAIN_LIMIT && !ts_node_is_null(v) && (role_of(t, v).flags & F_ASSIGN); i++)
        v = field(w, v, t->f_right);
    bool fn = !ts_node_is_null(v) && (role_of(t, v).flags & F_FUNCVAL);
    int kind = pk == K_CLASS ? (fn ? K_METHOD : K_FIELD) : (fn ? K_FUNCTION : K_VARIABLE);
    for (int i = 0; i < CHAIN_LIMIT && !ts_node_is_null(a) && (role_of(t, a).flags & F_ASSIGN);
         i++, a = field(w, a, t->f_right)) {
        TSNode l = field(w, a, t->f_left);
        if (ts_node_is_null(l)) continue;
        if (ts_node_symbol(l) == t->s_identifier) {
            emit(w, ctx, n, attr, name_of(w, l), NONE, kind, false);
        } else if (role_of(t, l).flags & F_TARGETS) {
            ts_tree_cursor_reset(&w->aux, l);
            if (!ts_tree_cursor_goto_first_child(&w->aux)) continue;
            do {
                TSNode c = ts_tree_cursor_current_node(&w->aux);
                if (ts_node_symbol(c) == t->s_identifier)
                    emit(w, ctx, n, attr, name_of(w, c), NONE, kind, false);
            } while (!w->oom && !w->full && ts_tree_cursor_goto_next_sibling(&w->aux));
        }
        if (w->oom || w->full) return;
    }
}

/* Decide about one node. `attr` is the start of attributes/decorators right
 * before it (or NONE). */
static bool visit(struct walker *w, const struct frame *ctx, TSNode n, uint32_t attr,
                  struct symrole r, struct frame *child)
{
    const struct tab *t = w->t;
    int i;
    *child = plain_child(ctx->parent);
    switch (r.role) {
    case R_DESCEND: child->vars = ctx->vars; return true;
    case R_WRAP: *child = wrap_child(w, ctx, n, attr); return true;
    case R_NAMED: {
        TSNode nm = field(w, n, t->f_name);
        if (ts_node_is_null(nm)) return r.flags & F_ANON_IN;
        if ((r.flags & F_NEED_BODY) && ts_node_is_null(field(w, n, t->f_body))) return false;
        i = emit(w, ctx, n, attr, name_of(w, nm), NONE, r.kind, r.flags & F_CONTAINER);
        if (i >= 0 && (r.flags & F_DESCEND)) {
            child->parent = i;
            child->vars = r.kind == K_MODULE;
            return true;
        }
        break;
    }
    case R_FUNC:
        i = emit(w, ctx, n, attr, name_of(w, field(w, n, t->f_name)), NONE,
                 class_like(parent_kind(w, ctx)) ? K_METHOD : K_FUNCTION, false);
        if (i >= 0 && (r.flags & F_DESCEND)) return child->parent = i, true;
        break;
    case R_SIGNATURE:
        if (parent_kind(w, ctx) == K_TRAIT)
            emit(w, ctx, n, attr, name_of(w, field(w, n, t->f_name)), NONE, K_METHOD, false);
        break;
    case R_C_FUNC:
        visit_c_func(w, ctx, n, attr, field(w, n, t->f_declarator),
                     !ts_node_is_null(field(w, n, t->f_type)));
        break;
    case R_C_RECORD: return visit_c_record(w, ctx, n, attr, r, child);
    case R_C_TYPEDEF:
        child->anon = visit_c_typedef(w, ctx, n, attr);
        return true; /* a struct defined in the typedef is a def too */
    case R_C_DECL:
        if (ctx->friend) return false;
        /* and a struct defined in it, whose members belong to what is
         * declared when it has no name (`struct { int x; } v;`: v.x) */
        child->anon = visit_c_decl(w, ctx, n, attr, r);
        return true;
    case R_C_FRIEND: child->friend = true; return true;
    case R_GO_METHOD:
        emit(w, ctx, n, attr, name_of(w, field(w, n, t->f_name)), go_receiver(w, n), K_METHOD,
             false);
        break;
    case R_GO_TYPEDECL:
        if (count_children(w, n, F_SPEC) == 1) *child = wrap_child(w, ctx, n, attr);
        return true;
    case R_GO_TYPESPEC: {
        int kind = K_TYPE;
        if (r.flags & F_BY_TYPE) {
            TSNode ty = field(w, n, t->f_type);
            if (!ts_node_is_null(ty) && role_of(t, ty).kind) kind = role_of(t, ty).kind;
        }
        i = emit(w, ctx, n, attr, name_of(w, field(w, n, t->f_name)), NONE, kind, false);
        /* a struct's fields, an interface's methods */
        if (i >= 0 && (kind == K_STRUCT || kind == K_INTERFACE)) return child->parent = i, true;
        break;
    }
    case R_GO_FIELD:
        /* `a, b int`, else an embedded type named by its type: `*pkg.Base` */
        if (ts_node_is_null(field(w, n, t->f_name)))
            emit(w, ctx, n, attr, type_name(w, field(w, n, t->f_type)), NONE, K_FIELD, false);
        else
            emit_each(w, ctx, n, attr, t->f_name, false, K_FIELD);
        break;
    case R_MEMBERS:
        if (!ts_node_is_null(field(w, n, t->f_declarator)))
            emit_each(w, ctx, n, attr, t->f_declarator, true, r.kind);
        else
            emit_each(w, ctx, n, attr, t->f_name, false, r.kind);
        break;
    case R_PY_EXPR: visit_py_assign(w, ctx, n, attr); break;
    case R_RUST_CONST: {
        int pk = parent_kind(w, ctx);
        int kind = pk == K_TRAIT || pk == K_IMPL ? K_FIELD
                   : pk == K_NONE || pk == K_MODULE ? K_VARIABLE : K_NONE;
        TSNode nm = field(w, n, t->f_name);
        if (kind != K_NONE && !ts_node_is_null(nm) && !blank_name(w, nm))
            emit(w, ctx, n, attr, name_of(w, nm), NONE, kind, false);
        break;
    }
    case R_RUST_IMPL:
        i = emit(w, ctx, n, attr, type_name(w, field(w, n, t->f_type)), NONE, K_IMPL, true);
        if (i >= 0) return child->parent = i, true;
        break;
    case R_JS_METHOD: {
        uint32_t name = name_of(w, field(w, n, t->f_name));
        int kind = name != NONE && strcmp(arena_str(w, name), "constructor") == 0
                       ? K_CONSTRUCTOR : K_METHOD;
        i = emit(w, ctx, n, attr, name, NONE, kind, false);
        if (i >= 0 && kind == K_CONSTRUCTOR && class_like(parent_kind(w, ctx)))
            js_param_fields(w, ctx, n);
        if (i >= 0) return child->parent = i, true;
        break;
    }
    case R_JS_FIELD: {
        TSNode v = field(w, n, t->f_value), nm = field(w, n, t->f_name);
        if (ts_node_is_null(nm)) nm = field(w, n, t->f_property);
        if (ts_node_is_null(v) || !(role_of(t, v).flags & F_FUNCVAL)) {
            /* a data member: `count = 0;`, `#id;`, `name: string;` */
            if (!ts_node_is_null(nm) && !(role_of(t, nm).flags & F_COMPUTED))
                emit(w, ctx, n, attr, name_of(w, nm), NONE, K_FIELD, false);
            break;
        }
        i = emit(w, ctx, n, attr, name_of(w, nm), NONE, K_METHOD, false);
        if (i >= 0) return child->parent = i, true;
        break;
    }
    case R_JS_MEMBER: {
        /* in a class body a method signature is an overload of the method
         * that follows (one definition, one chunk) */
        if (parent_kind(w, ctx) != K_INTERFACE) break;
        TSNode nm = field(w, n, t->f_name);
        if (!ts_node_is_null(nm) && !(role_of(t, nm).flags & F_COMPUTED))
            emit(w, ctx, n, attr, name_of(w, nm), NONE, r.kind, false);
        break;
    }
    case R_JS_ENUM_MEMBER: {
        if (parent_kind(w, ctx) != K_ENUM) break;
        TSNode nm = field(w, n, t->f_name);
        emit(w, ctx, n, attr, name_of(w, ts_node_is_null(nm) ? n : nm), NONE, K_ENUMERATOR,
             false);
        break;
    }
    case R_JS_VARDECL:
        if (!js_toplike(w, ctx)) return false;
        if (count_children(w, n, F_DECLARATOR) == 1) *child = wrap_child(w, ctx, n, attr);
        child->vars = ctx->vars;
        return true;
    case R_JS_VAR: {
        TSNode v = field(w, n, t->f_value), nm = field(w, n, t->f_name);
        if (ts_node_is_null(nm) || ts_node_symbol(nm) != t->s_identifier) break;
        if (ts_node_is_null(v) || !(role_of(t, v).flags & F_FUNCVAL)) {
            /* any other value, or none: a variable where it is one of the
             * program or a namespace */
            if (ctx->vars) emit(w, ctx, n, attr, name_of(w, nm), NONE, K_VARIABLE, false);
            break;
        }
        i = emit(w, ctx, n, attr, name_of(w, nm), NONE, K_FUNCTION, false);
        if (i >= 0) return child->parent = i, true;
        break;
    }
    case R_JS_EXPR: return js_toplike(w, ctx);
    default: break;
    }
    return false;
}

/* ---- 6. The walk --------------------------------------------------------- */

static void walk(struct walker *w, TSNode root)
{
    TSTreeCursor c = ts_tree_cursor_new(root);
    struct frame *stack = malloc(64 * sizeof(*stack));
    size_t n = 1, cap = 64;
    if (!stack) {
        w->oom = true;
        goto out;
    }
    stack[0] = plain_child(-1);
    stack[0].vars = true;
    if (!ts_tree_cursor_goto_first_child(&c)) goto out;
    for (;;) {
        struct frame *ctx = &stack[n - 1];
        TSNode node = ts_tree_cursor_current_node(&c);
        struct symrole r = role_of(w->t, node);
        struct frame child;
        bool descend = false;
        if (r.role == R_ATTR) {
            if (ctx->p.attr == NONE) ctx->p.attr = nstart(w, node);
        } else if (r.role != R_COMMENT) {
            /* What earlier siblings left holds for this node only. Only named
             * node types have roles; anonymous tokens clear it too. */
            const struct pending *prev = &no_pending;
            struct pending saved;
            if (ctx->p.attr != NONE || ctx->p.spec != NONE || !ts_node_is_null(ctx->p.head)) {
                saved = ctx->p;
                prev = &saved;
                ctx->p = no_pending;
            }
            if (r.role >= R_C_CALL && r.role <= R_D_TEXT) {
                visit_c_piece(w, ctx, prev, node, r);
            } else if (r.role != R_NONE) {
                descend = visit(w, ctx, node, prev->attr, r, &child);
                if (r.role == R_C_RECORD) visit_c_piece(w, ctx, prev, node, r);
            }
        }
        if (w->oom || w->full) break;
        if (descend && ts_tree_cursor_goto_first_child(&c)) {
            if (n == cap) {
                struct frame *s = realloc(stack, cap * 2 * sizeof(*s));
                if (!s) {
                    w->oom = true;
                    break;
                }
                stack = s;
                cap *= 2;
            }
            stack[n++] = child;
            continue;
        }
        while (!ts_tree_cursor_goto_next_sibling(&c)) {
            if (n == 1 || !ts_tree_cursor_goto_parent(&c)) goto out;
            n--;
        }
    }
out:
    free(stack);
    ts_tree_cursor_delete(&c);
}

/* ---- 7. Public API ------------------------------------------------------- */

int mg_defs_extract(const struct mg_lang *lang, TSNode root, const char *src, size_t len,
                    struct mg_defs *out)
{
    out->n = 0;
    out->arena_len = 0;
    if (!lang || lang->id <= MG_LANG_TEXT || lang->id >= MG_LANG_FIRST_PLAIN) return 0;
    if (ts_node_is_null(root) || !src) return 0;
    pthread_once(&tabs_once, tabs_init);
    const struct tab *t = &tabs[lang->id];
    /* A tree of another grammar would make every symbol mean something else. */
    if (!t->ok || !root.tree || ts_tree_language(root.tree) != t->ts) return 0;

    struct walker w = {
        .t = t, .src = src, .len = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len, .out = out,
    };
    w.aux = ts_tree_cursor_new(root);
    walk(&w, root);
    ts_tree_cursor_delete(&w.aux);
    if (w.oom) {
        free(w.side);
        mg_defs_release(out);
        return -1;
    }
    for (size_t i = 0; i < out->n; i++) {
        out->v[i].name = out->arena + w.side[i].name;
        out->v[i].container = w.side[i].cont == NONE ? NULL : out->arena + w.side[i].cont;
    }
    free(w.side);
    return 0;
}

int mg_defs_add_macros(struct mg_defs *d, const struct mg_def_macro *m, size_t n, const char *src)
{
    if (n == 0) return 0;
    size_t total = d->n + n;
    if (total > MAX_DEFS) n = total > MAX_DEFS ? (d->n < MAX_DEFS ? MAX_DEFS - d->n : 0) : n, total = d->n + n;
    /* one new arena: the old names, then the macro names */
    size_t alen = d->arena_len;
    for (size_t i = 0; i < n; i++) alen += (m[i].nlen < MAX_NAME ? m[i].nlen : MAX_NAME) + 1;
    char *arena = malloc(alen ? alen : 1);
    struct mg_def *v = malloc((total ? total : 1) * sizeof(*v));
    int *remap = malloc((d->n + 1) * sizeof(int));
    int *stack = malloc((total + 1) * sizeof(int));
    if (!arena || !v || !remap || !stack) {
        free(arena);
        free(v);
        free(remap);
        free(stack);
        return -1;
    }
    if (d->arena_len) memcpy(arena, d->arena, d->arena_len);
    size_t apos = d->arena_len, i = 0, j = 0, o = 0;
    int sp = 0;
    while (i < d->n || j < n) {
        bool take_def = j >= n || (i < d->n && d->v[i].start <= m[j].start);
        uint32_t start = take_def ? d->v[i].start : m[j].start;
        while (sp > 0 && v[stack[sp - 1]].end <= start) sp--;
        if (take_def) {
            struct mg_def x = d->v[i];
            x.name = arena + (x.name - d->arena);
            if (x.container) x.container = arena + (x.container - d->arena);
            x.parent = x.parent >= 0 ? remap[x.parent] : -1;
            remap[i++] = (int)o;
            v[o] = x;
        } else {
            size_t nl = m[j].nlen < MAX_NAME ? m[j].nlen : MAX_NAME;
            memcpy(arena + apos, src + m[j].name, nl);
            arena[apos + nl] = 0;
            int parent = sp > 0 ? stack[sp - 1] : -1;
            v[o] = (struct mg_def){m[j].start, m[j].end, arena + apos, MG_KIND_MACRO,
                                   parent >= 0 ? v[parent].name : NULL, parent, false};
            apos += nl + 1;
            j++;
        }
        stack[sp++] = (int)o;
        o++;
    }
    free(remap);
    free(stack);
    free(d->v);
    free(d->arena);
    d->v = v;
    d->n = d->cap = total;
    d->arena = arena;
    d->arena_len = d->arena_cap = alen;
    return 0;
}

void mg_defs_release(struct mg_defs *d)
{
    if (!d) return;
    free(d->v);
    free(d->arena);
    memset(d, 0, sizeof(*d));
}
