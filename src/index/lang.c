/* lang.c — the language table (see lang.h). */
#include "index/lang.h"

#include <string.h>
#include <strings.h>

#include "util/buf.h"

const struct TSLanguage *tree_sitter_c(void);
const struct TSLanguage *tree_sitter_cpp(void);
const struct TSLanguage *tree_sitter_go(void);
const struct TSLanguage *tree_sitter_java(void);
const struct TSLanguage *tree_sitter_javascript(void);
const struct TSLanguage *tree_sitter_python(void);
const struct TSLanguage *tree_sitter_rust(void);
const struct TSLanguage *tree_sitter_typescript(void);
const struct TSLanguage *tree_sitter_tsx(void);
const struct TSLanguage *tree_sitter_c_sharp(void);
const struct TSLanguage *tree_sitter_ruby(void);
const struct TSLanguage *tree_sitter_php(void);
const struct TSLanguage *tree_sitter_kotlin(void);
const struct TSLanguage *tree_sitter_swift(void);
const struct TSLanguage *tree_sitter_scala(void);
const struct TSLanguage *tree_sitter_bash(void);
const struct TSLanguage *tree_sitter_lua(void);
const struct TSLanguage *tree_sitter_haskell(void);
const struct TSLanguage *tree_sitter_ocaml(void);
const struct TSLanguage *tree_sitter_elixir(void);
const struct TSLanguage *tree_sitter_dart(void);
const struct TSLanguage *tree_sitter_zig(void);
const struct TSLanguage *tree_sitter_julia(void);
const struct TSLanguage *tree_sitter_objc(void);
const struct TSLanguage *tree_sitter_powershell(void);
const struct TSLanguage *tree_sitter_perl(void);
const struct TSLanguage *tree_sitter_r(void);
const struct TSLanguage *tree_sitter_elisp(void);
const struct TSLanguage *tree_sitter_groovy(void);
const struct TSLanguage *tree_sitter_fsharp(void);
const struct TSLanguage *tree_sitter_solidity(void);
const struct TSLanguage *tree_sitter_hcl(void);
const struct TSLanguage *tree_sitter_make(void);
const struct TSLanguage *tree_sitter_css(void);

#define EXT(...) (const char *const[]){__VA_ARGS__, NULL}

/* Grammar languages first, in enum order, so mg_lang_by_id can index. */
static const struct mg_lang langs[] = {
    {MG_LANG_TEXT, "text", EXT("txt", "text"), NULL},
    {MG_LANG_C, "c", EXT("c", "h"), tree_sitter_c},
    {MG_LANG_CPP, "cpp", EXT("cc", "cpp", "cxx", "c++", "hh", "hpp", "hxx", "h++", "ipp", "tcc", "inl"),
     tree_sitter_cpp},
    {MG_LANG_GO, "go", EXT("go"), tree_sitter_go},
    {MG_LANG_JAVA, "java", EXT("java"), tree_sitter_java},
    {MG_LANG_JAVASCRIPT, "javascript", EXT("js", "mjs", "cjs", "jsx"), tree_sitter_javascript},
    {MG_LANG_PYTHON, "python", EXT("py", "pyi", "pyw"), tree_sitter_python},
    {MG_LANG_RUST, "rust", EXT("rs"), tree_sitter_rust},
    {MG_LANG_TYPESCRIPT, "typescript", EXT("ts", "mts", "cts"), tree_sitter_typescript},
    /* TSX files are TypeScript to the user; only the grammar differs. */
    {MG_LANG_TSX, "typescript", EXT("tsx"), tree_sitter_tsx},
    {MG_LANG_CSHARP, "csharp", EXT("cs"), tree_sitter_c_sharp},
    {MG_LANG_RUBY, "ruby", EXT("rb", "rake", "gemspec"), tree_sitter_ruby},
    {MG_LANG_PHP, "php", EXT("php"), tree_sitter_php},
    {MG_LANG_KOTLIN, "kotlin", EXT("kt", "kts"), tree_sitter_kotlin},
    {MG_LANG_SWIFT, "swift", EXT("swift"), tree_sitter_swift},
    {MG_LANG_SCALA, "scala", EXT("scala", "sc"), tree_sitter_scala},
    {MG_LANG_SHELL, "shell", EXT("sh", "bash", "zsh", "ksh"), tree_sitter_bash},
    {MG_LANG_LUA, "lua", EXT("lua"), tree_sitter_lua},
    {MG_LANG_HASKELL, "haskell", EXT("hs"), tree_sitter_haskell},
    {MG_LANG_OCAML, "ocaml", EXT("ml"), tree_sitter_ocaml},
    {MG_LANG_ELIXIR, "elixir", EXT("ex", "exs"), tree_sitter_elixir},
    {MG_LANG_DART, "dart", EXT("dart"), tree_sitter_dart},
    {MG_LANG_ZIG, "zig", EXT("zig"), tree_sitter_zig},
    {MG_LANG_JULIA, "julia", EXT("jl"), tree_sitter_julia},
    {MG_LANG_OBJC, "objc", EXT("m", "mm"), tree_sitter_objc},
    {MG_LANG_POWERSHELL, "powershell", EXT("ps1", "psm1"), tree_sitter_powershell},
    {MG_LANG_PERL, "perl", EXT("pl", "pm", "t"), tree_sitter_perl},
    {MG_LANG_R, "r", EXT("r"), tree_sitter_r},
    {MG_LANG_ELISP, "elisp", EXT("el"), tree_sitter_elisp},
    {MG_LANG_GROOVY, "groovy", EXT("groovy", "gradle"), tree_sitter_groovy},
    {MG_LANG_FSHARP, "fsharp", EXT("fs", "fsi", "fsx"), tree_sitter_fsharp},
    {MG_LANG_SOLIDITY, "solidity", EXT("sol"), tree_sitter_solidity},
    {MG_LANG_HCL, "hcl", EXT("tf", "hcl", "tfvars"), tree_sitter_hcl},
    {MG_LANG_MAKE, "make", EXT("mk", "mak", "make"), tree_sitter_make},
    {MG_LANG_CSS, "css", EXT("css"), tree_sitter_css},
    {MG_LANG_FIRST_PLAIN + 0, "markdown", EXT("md", "markdown", "mdx"), NULL},
    {MG_LANG_FIRST_PLAIN + 1, "rst", EXT("rst"), NULL},
    {MG_LANG_FIRST_PLAIN + 2, "json", EXT("json", "jsonc", "json5"), NULL},
    {MG_LANG_FIRST_PLAIN + 3, "yaml", EXT("yaml", "yml"), NULL},
    {MG_LANG_FIRST_PLAIN + 4, "toml", EXT("toml"), NULL},
    {MG_LANG_FIRST_PLAIN + 5, "xml", EXT("xml", "xsd", "xsl", "svg", "plist"), NULL},
    {MG_LANG_FIRST_PLAIN + 6, "html", EXT("html", "htm", "xhtml"), NULL},
    {MG_LANG_FIRST_PLAIN + 7, "css", EXT("scss", "sass", "less"), NULL}, /* no grammar: windows */
    {MG_LANG_FIRST_PLAIN + 8, "shell", EXT("fish"), NULL},
    {MG_LANG_FIRST_PLAIN + 9, "cmake", EXT("cmake"), NULL},
    {MG_LANG_FIRST_PLAIN + 10, "dockerfile", EXT("dockerfile"), NULL},
    {MG_LANG_FIRST_PLAIN + 11, "protobuf", EXT("proto"), NULL},
    {MG_LANG_FIRST_PLAIN + 12, "asm", EXT("s", "asm"), NULL},
    {MG_LANG_FIRST_PLAIN + 13, "devicetree", EXT("dts", "dtsi"), NULL},
    {MG_LANG_FIRST_PLAIN + 14, "kconfig", EXT("kconfig"), NULL},
    {MG_LANG_FIRST_PLAIN + 15, "ini", EXT("ini", "cfg", "conf"), NULL},
    {MG_LANG_FIRST_PLAIN + 16, "awk", EXT("awk"), NULL},
    {MG_LANG_FIRST_PLAIN + 17, "erlang", EXT("erl", "hrl"), NULL},
    {MG_LANG_FIRST_PLAIN + 18, "nim", EXT("nim", "nims"), NULL},
    {MG_LANG_FIRST_PLAIN + 19, "vue", EXT("vue"), NULL},
    {MG_LANG_FIRST_PLAIN + 20, "svelte", EXT("svelte"), NULL},
    /* (the SQL grammar's scanner leaks: line rules, defs_lines.c) */
    {MG_LANG_FIRST_PLAIN + 21, "sql", EXT("sql"), NULL},
};
#define NLANGS (sizeof(langs) / sizeof(langs[0]))

/* Well-known file names without a telling extension. */
static const struct {
    const char *name;
    const char *lang;
} names[] = {
    {"Makefile", "make"},   {"GNUmakefile", "make"},      {"makefile", "make"},
    {"Kbuild", "make"},     {"CMakeLists.txt", "cmake"},  {"Dockerfile", "dockerfile"},
    {"Containerfile", "dockerfile"}, {"Kconfig", "kconfig"}, {"Rakefile", "ruby"},
    {"Gemfile", "ruby"},    {"Jenkinsfile", "text"},
};

const struct mg_lang *mg_lang_by_id(int id)
{
    for (size_t i = 0; i < NLANGS; i++)
        if (langs[i].id == id) return &langs[i];
    return &langs[0];
}

const struct mg_lang *mg_lang_by_name(const char *name)
{
    static const struct { const char *alias, *name; } aliases[] = {
        {"ts", "typescript"}, {"tsx", "typescript"}, {"js", "javascript"}, {"jsx", "javascript"},
        {"py", "python"},     {"rs", "rust"},        {"c++", "cpp"},       {"cxx", "cpp"},
        {"golang", "go"},     {"md", "markdown"},    {"sh", "shell"},      {"bash", "shell"},
        {"yml", "yaml"},      {"makefile", "make"},  {"cs", "csharp"},     {"txt", "text"},
        {"rb", "ruby"},       {"kt", "kotlin"},      {"hs", "haskell"},    {"ml", "ocaml"},
        {"ex", "elixir"},     {"jl", "julia"},       {"ps1", "powershell"}, {"pl", "perl"},
        {"el", "elisp"},      {"fs", "fsharp"},      {"sol", "solidity"},  {"tf", "hcl"},
        {"terraform", "hcl"}, {"objective-c", "objc"}, {"proto", "protobuf"}, {"erl", "erlang"},
    };
    for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
        if (strcasecmp(name, aliases[i].alias) == 0) name = aliases[i].name;
    for (size_t i = 0; i < NLANGS; i++)
        if (strcasecmp(name, langs[i].name) == 0) return &langs[i];
    return NULL;
}

const struct mg_lang *mg_lang_for_path(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(base, names[i].name) == 0) return mg_lang_by_name(names[i].lang);
    if (strncmp(base, "Kconfig", 7) == 0) return mg_lang_by_name("kconfig");
    if (strncmp(base, "Dockerfile", 10) == 0) return mg_lang_by_name("dockerfile");
    const char *dot = strrchr(base, '.');
    if (!dot || dot == base || !dot[1]) return &langs[0];
    const char *ext = dot + 1;
    for (size_t i = 0; i < NLANGS; i++)
        for (const char *const *e = langs[i].ext; *e; e++)
            /* "S" (preprocessed asm) and "C"/"H" are case-sensitive in practice;
             * otherwise match extensions case-insensitively. */
            if (strcasecmp(ext, *e) == 0) {
                if (strcmp(ext, "C") == 0 || strcmp(ext, "H") == 0) return &langs[MG_LANG_CPP];
                return &langs[i];
            }
    return &langs[0];
}

const struct mg_lang *mg_lang_all(size_t *n)
{
    *n = NLANGS;
    return langs;
}

int mg_lang_unknown(const char *name, struct mg_err *err)
{
    struct mg_buf b;
    mg_buf_init(&b, 2048);
    size_t nl;
    const struct mg_lang *all = mg_lang_all(&nl);
    for (size_t k = 0; k < nl; k++)
        if (k == 0 || strcmp(all[k].name, all[k - 1].name) != 0) mg_buf_addf(&b, "%s%s", k ? ", " : "", all[k].name);
    mg_err_set(err, MG_E_BAD_LANG, "unknown language '%s'; known: %s", name, b.p ? b.p : "");
    mg_buf_release(&b);
    return -1;
}
