/* lang.h — languages memgate knows: names, file extensions, grammars.
 *
 * A language has a short lower-case name (the `--lang` value and the
 * `language` field of results). Languages with a tree-sitter grammar are
 * chunked along definitions; the others are chunked in line windows. Files
 * whose extension is unknown get the language "text".
 */
#ifndef MG_LANG_H
#define MG_LANG_H

#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"

struct TSLanguage;

enum mg_lang_id {
    MG_LANG_TEXT = 0,
    MG_LANG_C,
    MG_LANG_CPP,
    MG_LANG_GO,
    MG_LANG_JAVA,
    MG_LANG_JAVASCRIPT,
    MG_LANG_PYTHON,
    MG_LANG_RUST,
    MG_LANG_TYPESCRIPT,
    MG_LANG_TSX,
    MG_LANG_CSHARP,
    MG_LANG_RUBY,
    MG_LANG_PHP,
    MG_LANG_KOTLIN,
    MG_LANG_SWIFT,
    MG_LANG_SCALA,
    MG_LANG_SHELL,
    MG_LANG_LUA,
    MG_LANG_HASKELL,
    MG_LANG_OCAML,
    MG_LANG_ELIXIR,
    MG_LANG_DART,
    MG_LANG_ZIG,
    MG_LANG_JULIA,
    MG_LANG_OBJC,
    MG_LANG_POWERSHELL,
    MG_LANG_PERL,
    MG_LANG_R,
    MG_LANG_ELISP,
    MG_LANG_GROOVY,
    MG_LANG_FSHARP,
    MG_LANG_SOLIDITY,
    MG_LANG_HCL,
    MG_LANG_MAKE,
    MG_LANG_CSS,
    MG_LANG_FIRST_PLAIN, /* languages below have no grammar */
};

struct mg_lang {
    int id;                 /* enum mg_lang_id for grammar languages, else >= MG_LANG_FIRST_PLAIN */
    const char *name;       /* "c", "python", "markdown", ... */
    const char *const *ext; /* extensions without the dot, NULL-terminated */
    const struct TSLanguage *(*grammar)(void); /* NULL: no syntax tree (index/chunker.h says how it is cut) */
};

/* The language of a repo-relative path (by extension or well-known file
 * name); never NULL (falls back to "text"). */
const struct mg_lang *mg_lang_for_path(const char *path);
/* By name ("c", "ts" and "typescript" both work); NULL when unknown. */
const struct mg_lang *mg_lang_by_name(const char *name);
const struct mg_lang *mg_lang_by_id(int id);
/* All languages, for --help and validation. */
const struct mg_lang *mg_lang_all(size_t *n);
/* -1 with invalid_language: "unknown language 'NAME'; known: c, cpp, ..." */
int mg_lang_unknown(const char *name, struct mg_err *err);

#endif
