/* lex.h — the identifiers of source text outside comments and strings.
 *
 * One small lexer per language family knows its comments and strings (C
 * family: // and block comments, '...' character literals, preprocessor
 * words; JavaScript: templates; Python: triple quotes and string prefixes;
 * shell-like: # comments; Lua: -- and --[[ ]]). Navigation (search/nav.h)
 * finds uses of a name with it at query time; the indexer (index/refs.h)
 * records which names each file uses.
 */
#ifndef MG_LEX_H
#define MG_LEX_H

#include <stdbool.h>
#include <stddef.h>

/* One identifier: text[off, off + len) at line (1-based); call: followed by
 * `(` (or `!(`, a Rust macro). Return non-zero to stop. */
typedef int (*mg_lex_cb)(void *ud, const char *text, size_t off, size_t len, int line, bool call);

/* The identifiers of text in language lang (a files.lang name) in order;
 * false when the language has no lexer (prose, data), true otherwise (also
 * when cb stopped it). */
bool mg_lex(const char *lang, const char *text, size_t len, mg_lex_cb cb, void *ud);

/* Has lang a lexer? */
bool mg_lex_known(const char *lang);

/* May c be part of an identifier in any family (letters, digits, '_', '$',
 * bytes of UTF-8 sequences)? */
bool mg_lex_id_char(unsigned char c);

#endif
