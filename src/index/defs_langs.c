/* defs_langs.c — the tables of the languages whose definitions the
 * table-driven visitors find (defs_gen.c): for each, the node types that are
 * definitions (R_GEN, R_KWCALL, R_ASSIGN, R_CSS_RULE) with their kind, the
 * ones the walk passes through (R_DESCEND), the ones that name a definition
 * (F_NAMETOK) or lead to its name (F_NAMEPATH), and for R_KWCALL the head
 * words that define. Node type names a grammar lacks are skipped, so a
 * grammar upgrade that renames one loses that definition and no more; the
 * fixtures in tests/test_defs_langs.c say exactly what each finds.
 *
 * Sections:
 *   1. Object languages   C#, Kotlin, Swift, Scala, Dart, Groovy, Solidity
 *   2. Scripting          Ruby, PHP, shell, Lua, Perl, R, PowerShell, Julia
 *   3. Functional         Haskell, OCaml, F#, Elixir, Emacs Lisp
 *   4. The others         Zig, HCL, Makefiles, CSS
 *   5. By language id
 */
#include "index/defs_int.h"

#define E(t, r, k, f) {t, r, k, f}
#define DC (F_DESCEND | F_CONTAINER)
#define TOK(t) E(t, R_NONE, 0, F_NAMETOK)
#define PATH(t) E(t, R_NONE, 0, F_NAMEPATH)
#define D(t) E(t, R_DESCEND, 0, 0)

/* ---- 1. Object languages ------------------------------------------------- */

static const struct entry csharp_entries[] = {
    D("compilation_unit"), D("declaration_list"), D("field_declaration"), D("variable_declaration"),
    D("enum_member_declaration_list"),
    E("namespace_declaration", R_GEN, K_MODULE, DC),
    E("file_scoped_namespace_declaration", R_GEN, K_MODULE, DC),
    E("class_declaration", R_GEN, K_CLASS, DC),
    E("record_declaration", R_GEN, K_CLASS, DC),
    E("interface_declaration", R_GEN, K_INTERFACE, DC),
    E("struct_declaration", R_GEN, K_STRUCT, DC),
    E("enum_declaration", R_GEN, K_ENUM, DC),
    E("enum_member_declaration", R_GEN, K_ENUMERATOR, 0),
    E("method_declaration", R_GEN, K_METHOD, 0),
    E("constructor_declaration", R_GEN, K_CONSTRUCTOR, 0),
    E("property_declaration", R_GEN, K_FIELD, 0),
    E("variable_declarator", R_GEN, K_FIELD, 0),
    E("delegate_declaration", R_GEN, K_TYPE, 0),
    TOK("identifier"),
    {0},
};

static const struct entry kotlin_entries[] = {
    D("source_file"), D("class_body"), D("enum_class_body"),
    E("class_declaration", R_GEN, K_CLASS, DC | F_KW),
    E("object_declaration", R_GEN, K_CLASS, DC),
    E("companion_object", R_GEN, K_CLASS, DC | F_ANON_IN),
    E("function_declaration", R_GEN, K_FUNCTION, 0),
    E("property_declaration", R_GEN, K_FIELD, 0),
    E("enum_entry", R_GEN, K_ENUMERATOR, 0),
    E("type_alias", R_GEN, K_TYPE, 0),
    PATH("variable_declaration"), TOK("identifier"), TOK("simple_identifier"),
    {0},
};

static const struct entry swift_entries[] = {
    D("source_file"), D("class_body"), D("enum_class_body"), D("protocol_body"),
    E("class_declaration", R_GEN, K_CLASS, DC | F_KW),
    E("protocol_declaration", R_GEN, K_INTERFACE, DC),
    E("function_declaration", R_GEN, K_FUNCTION, 0),
    E("protocol_function_declaration", R_GEN, K_METHOD, 0),
    E("property_declaration", R_GEN, K_FIELD, 0),
    E("protocol_property_declaration", R_GEN, K_FIELD, 0),
    E("enum_entry", R_MEMBERS, K_ENUMERATOR, 0),
    E("typealias_declaration", R_GEN, K_TYPE, 0),
    TOK("simple_identifier"), TOK("type_identifier"),
    {0},
};

static const struct entry scala_entries[] = {
    D("compilation_unit"), D("template_body"), D("enum_body"),
    E("package_object", R_GEN, K_MODULE, DC),
    E("trait_definition", R_GEN, K_TRAIT, DC),
    E("class_definition", R_GEN, K_CLASS, DC),
    E("object_definition", R_GEN, K_CLASS, DC),
    E("enum_definition", R_GEN, K_ENUM, DC),
    E("simple_enum_case", R_GEN, K_ENUMERATOR, 0),
    E("full_enum_case", R_GEN, K_ENUMERATOR, 0),
    E("function_definition", R_GEN, K_FUNCTION, 0),
    E("function_declaration", R_GEN, K_METHOD, 0),
    E("val_definition", R_GEN, K_FIELD, 0),
    E("var_definition", R_GEN, K_FIELD, 0),
    E("val_declaration", R_GEN, K_FIELD, 0),
    E("type_definition", R_GEN, K_TYPE, 0),
    TOK("identifier"),
    {0},
};

static const struct entry dart_entries[] = {
    D("program"), D("class_body"), D("enum_body"), D("method_signature"), D("declaration"),
    D("initialized_identifier_list"), D("extension_body"),
    E("class_definition", R_GEN, K_CLASS, DC),
    E("mixin_declaration", R_GEN, K_CLASS, DC),
    E("extension_declaration", R_GEN, K_IMPL, DC),
    E("enum_declaration", R_GEN, K_ENUM, DC),
    E("enum_constant", R_GEN, K_ENUMERATOR, 0),
    E("function_signature", R_GEN, K_FUNCTION, 0),
    E("getter_signature", R_GEN, K_METHOD, 0),
    E("setter_signature", R_GEN, K_METHOD, 0),
    E("constructor_signature", R_GEN, K_CONSTRUCTOR, 0),
    E("initialized_identifier", R_GEN, K_FIELD, 0),
    E("type_alias", R_GEN, K_TYPE, 0),
    TOK("identifier"),
    {0},
};

static const struct entry groovy_entries[] = {
    D("program"), D("class_body"), D("interface_body"), D("enum_body"),
    E("class_declaration", R_GEN, K_CLASS, DC),
    E("interface_declaration", R_GEN, K_INTERFACE, DC),
    E("enum_declaration", R_GEN, K_ENUM, DC),
    E("enum_constant", R_GEN, K_ENUMERATOR, 0),
    E("method_declaration", R_GEN, K_METHOD, 0),
    E("constructor_declaration", R_GEN, K_CONSTRUCTOR, 0),
    E("function_definition", R_GEN, K_FUNCTION, 0),
    E("field_declaration", R_MEMBERS, K_FIELD, 0),
    TOK("identifier"),
    {0},
};

static const struct entry solidity_entries[] = {
    D("source_file"), D("contract_body"), D("enum_body"),
    E("contract_declaration", R_GEN, K_CLASS, DC),
    E("interface_declaration", R_GEN, K_INTERFACE, DC),
    E("library_declaration", R_GEN, K_MODULE, DC),
    E("struct_declaration", R_GEN, K_STRUCT, DC),
    E("struct_member", R_GEN, K_FIELD, 0),
    E("enum_declaration", R_GEN, K_ENUM, DC),
    E("enum_value", R_GEN, K_ENUMERATOR, F_NAMETOK),
    E("function_definition", R_GEN, K_FUNCTION, 0),
    E("modifier_definition", R_GEN, K_FUNCTION, 0),
    E("event_definition", R_GEN, K_TYPE, 0),
    E("error_declaration", R_GEN, K_TYPE, 0),
    E("state_variable_declaration", R_GEN, K_FIELD, 0),
    TOK("identifier"),
    {0},
};

/* ---- 2. Scripting -------------------------------------------------------- */

static const struct entry ruby_entries[] = {
    D("program"), D("body_statement"),
    E("module", R_GEN, K_MODULE, DC),
    E("class", R_GEN, K_CLASS, DC),
    E("singleton_class", R_GEN, K_CLASS, DC | F_ANON_IN),
    E("method", R_GEN, K_FUNCTION, 0),
    E("singleton_method", R_GEN, K_METHOD, 0),
    TOK("constant"), TOK("identifier"),
    {0},
};

static const struct entry php_entries[] = {
    D("program"), D("declaration_list"), D("compound_statement"), D("property_declaration"),
    D("const_declaration"), D("enum_declaration_list"),
    E("namespace_definition", R_GEN, K_MODULE, DC),
    E("class_declaration", R_GEN, K_CLASS, DC),
    E("interface_declaration", R_GEN, K_INTERFACE, DC),
    E("trait_declaration", R_GEN, K_TRAIT, DC),
    E("enum_declaration", R_GEN, K_ENUM, DC),
    E("enum_case", R_GEN, K_ENUMERATOR, 0),
    E("function_definition", R_GEN, K_FUNCTION, 0),
    E("method_declaration", R_GEN, K_METHOD, 0),
    E("property_element", R_GEN, K_FIELD, 0),
    E("const_element", R_GEN, K_FIELD, 0),
    TOK("name"), PATH("variable_name"),
    {0},
};

static const struct entry shell_entries[] = {
    D("program"), D("declaration_command"),
    E("function_definition", R_GEN, K_FUNCTION, 0),
    E("variable_assignment", R_ASSIGN, 0, 0),
    TOK("word"), TOK("variable_name"),
    {0},
};

static const struct entry lua_entries[] = {
    D("chunk"),
    E("function_declaration", R_GEN, K_FUNCTION, 0),
    TOK("identifier"),
    {0},
};

static const struct entry perl_entries[] = {
    D("source_file"),
    E("package_statement", R_GEN, K_MODULE, 0),
    E("subroutine_declaration_statement", R_GEN, K_FUNCTION, 0),
    TOK("package"), TOK("bareword"),
    {0},
};

static const struct entry r_entries[] = {
    D("program"),
    E("binary_operator", R_ASSIGN, 0, 0),
    E("function_definition", R_NONE, 0, F_FUNCVAL),
    TOK("identifier"),
    {0},
};

static const struct entry powershell_entries[] = {
    D("program"), D("statement_list"), D("enum_member_list"),
    E("function_statement", R_GEN, K_FUNCTION, 0),
    E("class_statement", R_GEN, K_CLASS, DC),
    E("class_method_definition", R_GEN, K_METHOD, 0),
    E("enum_statement", R_GEN, K_ENUM, DC),
    E("enum_member", R_GEN, K_ENUMERATOR, 0),
    TOK("function_name"), TOK("simple_name"),
    {0},
};

static const struct entry julia_entries[] = {
    D("source_file"),
    E("module_definition", R_GEN, K_MODULE, DC),
    E("struct_definition", R_GEN, K_STRUCT, 0),
    E("abstract_definition", R_GEN, K_TYPE, 0),
    E("function_definition", R_GEN, K_FUNCTION, 0),
    E("macro_definition", R_GEN, K_MACRO, 0),
    PATH("signature"), PATH("call_expression"), PATH("type_head"), PATH("where_expression"),
    PATH("typed_expression"), TOK("identifier"),
    {0},
};

/* ---- 3. Functional ------------------------------------------------------- */

static const struct entry haskell_entries[] = {
    D("haskell"), D("declarations"), D("class_declarations"),
    E("data_type", R_GEN, K_TYPE, 0),
    E("newtype", R_GEN, K_TYPE, 0),
    E("type_synomym", R_GEN, K_TYPE, 0),
    E("class", R_GEN, K_TRAIT, DC),
    E("signature", R_SIGNATURE, K_METHOD, 0),
    E("function", R_GEN, K_FUNCTION, 0),
    E("bind", R_GEN, K_VARIABLE, 0),
    TOK("name"), TOK("variable"),
    {0},
};

static const struct entry ocaml_entries[] = {
    D("compilation_unit"), D("value_definition"), D("type_definition"), D("module_definition"),
    D("structure"),
    E("let_binding", R_GEN, K_VARIABLE, F_PARAMS),
    E("type_binding", R_GEN, K_TYPE, 0),
    E("module_binding", R_GEN, K_MODULE, DC),
    E("parameter", R_NONE, 0, F_PARAMTOK),
    TOK("value_name"), TOK("module_name"), TOK("type_constructor"),
    {0},
};

static const struct entry fsharp_entries[] = {
    D("file"), D("type_definition"), D("declaration_expression"), D("type_extension_elements"),
    D("member_defn"), D("union_type_cases"),
    E("named_module", R_GEN, K_MODULE, DC),
    E("module_defn", R_GEN, K_MODULE, DC),
    E("namespace", R_GEN, K_MODULE, DC),
    E("union_type_defn", R_GEN, K_TYPE, DC),
    E("union_type_case", R_GEN, K_ENUMERATOR, 0),
    E("record_type_defn", R_GEN, K_STRUCT, 0),
    E("anon_type_defn", R_GEN, K_CLASS, DC),
    E("method_or_prop_defn", R_GEN, K_METHOD, 0),
    E("function_or_value_defn", R_GEN, K_VARIABLE, F_PARAMS),
    E("function_declaration_left", R_NONE, 0, F_NAMEPATH | F_PARAMTOK),
    PATH("value_declaration_left"), PATH("type_name"), PATH("identifier_pattern"),
    PATH("long_identifier_or_op"), TOK("identifier"),
    {0},
};

static const struct entry elixir_entries[] = {
    D("source"), D("do_block"),
    E("call", R_KWCALL, 0, F_NAMEPATH),
    PATH("arguments"), PATH("binary_operator"), TOK("identifier"), TOK("alias"),
    {0},
};

static const struct kw elixir_kw[] = {
    {"defmodule", K_MODULE, DC},      {"defprotocol", K_INTERFACE, DC}, {"defimpl", K_IMPL, DC},
    {"def", K_FUNCTION, 0},           {"defp", K_FUNCTION, 0},          {"defmacro", K_MACRO, 0},
    {"defmacrop", K_MACRO, 0},        {"defguard", K_FUNCTION, 0},      {"defdelegate", K_FUNCTION, 0},
    {0},
};

static const struct entry elisp_entries[] = {
    D("source_file"),
    E("function_definition", R_GEN, K_FUNCTION, 0),
    E("macro_definition", R_GEN, K_MACRO, 0),
    E("special_form", R_KWCALL, 0, 0),
    E("list", R_KWCALL, 0, 0),
    TOK("symbol"),
    {0},
};

static const struct kw elisp_kw[] = {
    {"defvar", K_VARIABLE, 0},          {"defconst", K_VARIABLE, 0},    {"defcustom", K_VARIABLE, 0},
    {"defface", K_VARIABLE, 0},         {"defsubst", K_FUNCTION, 0},    {"cl-defun", K_FUNCTION, 0},
    {"cl-defmacro", K_MACRO, 0},        {"cl-defgeneric", K_FUNCTION, 0}, {"cl-defmethod", K_FUNCTION, 0},
    {"define-minor-mode", K_FUNCTION, 0}, {"define-derived-mode", K_FUNCTION, 0},
    {"cl-defstruct", K_STRUCT, 0},      {"defclass", K_CLASS, 0},
    {0},
};

/* ---- 4. The others ------------------------------------------------------- */

static const struct entry zig_entries[] = {
    D("source_file"),
    E("struct_declaration", R_DESCEND, K_STRUCT, 0),
    E("enum_declaration", R_DESCEND, K_ENUM, 0),
    E("union_declaration", R_DESCEND, K_UNION, 0),
    E("variable_declaration", R_GEN, K_VARIABLE, F_BYVAL),
    E("function_declaration", R_GEN, K_FUNCTION, 0),
    E("container_field", R_GEN, K_FIELD, 0),
    TOK("identifier"),
    {0},
};

static const struct entry hcl_entries[] = {
    D("config_file"), D("body"),
    E("block", R_KWCALL, 0, 0),
    TOK("string_lit"),
    {0},
};

static const struct kw hcl_kw[] = {
    {"resource", K_STRUCT, F_LABELS}, {"data", K_STRUCT, F_LABELS},   {"module", K_MODULE, F_LABELS},
    {"variable", K_VARIABLE, F_LABELS}, {"output", K_VARIABLE, F_LABELS}, {"provider", K_MODULE, F_LABELS},
    {0},
};

static const struct entry make_entries[] = {
    D("makefile"), D("conditional"),
    E("rule", R_GEN, K_FUNCTION, 0),
    E("define_directive", R_GEN, K_MACRO, 0),
    E("variable_assignment", R_ASSIGN, 0, 0),
    PATH("targets"), TOK("word"),
    {0},
};

static const struct entry css_entries[] = {
    D("stylesheet"), D("media_statement"), D("supports_statement"), D("block"),
    E("rule_set", R_CSS_RULE, 0, 0),
    PATH("selectors"),
    {0},
};

/* ---- 5. By language id --------------------------------------------------- */

const struct entry *mg__defs_entries_more(int id, const struct kw **kw)
{
    *kw = NULL;
    switch (id) {
    case MG_LANG_CSHARP: return csharp_entries;
    case MG_LANG_KOTLIN: return kotlin_entries;
    case MG_LANG_SWIFT: return swift_entries;
    case MG_LANG_SCALA: return scala_entries;
    case MG_LANG_DART: return dart_entries;
    case MG_LANG_GROOVY: return groovy_entries;
    case MG_LANG_SOLIDITY: return solidity_entries;
    case MG_LANG_RUBY: return ruby_entries;
    case MG_LANG_PHP: return php_entries;
    case MG_LANG_SHELL: return shell_entries;
    case MG_LANG_LUA: return lua_entries;
    case MG_LANG_PERL: return perl_entries;
    case MG_LANG_R: return r_entries;
    case MG_LANG_POWERSHELL: return powershell_entries;
    case MG_LANG_JULIA: return julia_entries;
    case MG_LANG_HASKELL: return haskell_entries;
    case MG_LANG_OCAML: return ocaml_entries;
    case MG_LANG_FSHARP: return fsharp_entries;
    case MG_LANG_ELIXIR: *kw = elixir_kw; return elixir_entries;
    case MG_LANG_ELISP: *kw = elisp_kw; return elisp_entries;
    case MG_LANG_ZIG: return zig_entries;
    case MG_LANG_HCL: *kw = hcl_kw; return hcl_entries;
    case MG_LANG_MAKE: return make_entries;
    case MG_LANG_CSS: return css_entries;
    default: return NULL;
    }
}
