/* defs_tab.c — what each node type of a grammar means to the definition
 * walk (see defs_int.h): one table of entries per language family, turned
 * once per language (pthread_once) into an array indexed by the grammar's
 * symbol, with the field ids and the few symbols the visitors compare. The
 * languages the table-driven visitors serve have their tables in
 * defs_langs.c.
 *
 * Sections:
 *   1. Tables     C, C++, Go, Java, Python, Rust, JavaScript/TypeScript,
 *                 Objective-C
 *   2. Building   a language's table, once
 */
#include "index/defs_int.h"

#include <pthread.h>

#define E(t, r, k, f) {t, r, k, f}

/* ---- 1. Tables ----------------------------------------------------------- */

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

/* Objective-C: C, and its classes and methods. */
static const struct entry objc_entries[] = {
    C_COMMON,
    E("struct_specifier", R_C_RECORD, K_STRUCT, F_DESCEND),
    E("union_specifier", R_C_RECORD, K_UNION, F_DESCEND),
    E("class_interface", R_GEN, K_CLASS, F_DESCEND | F_CONTAINER),
    E("class_implementation", R_GEN, K_IMPL, F_DESCEND | F_CONTAINER),
    E("protocol_declaration", R_GEN, K_INTERFACE, F_DESCEND | F_CONTAINER),
    E("implementation_definition", R_DESCEND, 0, 0),
    E("method_declaration", R_GEN, K_METHOD, 0),
    E("method_definition", R_GEN, K_METHOD, 0),
    E("identifier", R_D_ID, 0, F_NAMETOK),
    {0},
};

#undef E

/* ---- 2. Building --------------------------------------------------------- */

static struct tab tabs[MG_LANG_FIRST_PLAIN];
static pthread_once_t tabs_once = PTHREAD_ONCE_INIT;

static const struct entry *entries_for(int id, const struct kw **kw)
{
    *kw = NULL;
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
    case MG_LANG_OBJC: return objc_entries;
    default: return mg__defs_entries_more(id, kw);
    }
}

static TSFieldId field_id(const TSLanguage *l, const char *name)
{
    return ts_language_field_id_for_name(l, name, (uint32_t)strlen(name));
}

static void tab_init(struct tab *t, int id)
{
    const struct mg_lang *ml = mg_lang_by_id(id);
    const struct kw *kw;
    const struct entry *e = entries_for(id, &kw);
    if (!ml || ml->id != id || !ml->grammar || !e) return;
    t->ts = ml->grammar();
    t->nsyms = ts_language_symbol_count(t->ts);
    if (!t->ts || t->nsyms > MAX_SYMBOLS) return;
    t->cpp = id == MG_LANG_CPP;
    t->kw = kw;
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

const struct tab *mg__defs_tab(int id)
{
    pthread_once(&tabs_once, tabs_init);
    return &tabs[id];
}
