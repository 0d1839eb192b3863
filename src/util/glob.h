/* glob.h — path globs for --glob / --exclude and the session scope.
 *
 * Syntax (gitignore's, plus {a,b} alternation as in ripgrep):
 *   *        any run of characters except '/'
 *   ?        one character except '/'
 *   [a-z]    a class; [!a-z] or [^a-z] negates; never matches '/'
 *   {a,b}    either alternative (may nest, up to 8 deep)
 *   **       in `**`/, /`**`/ or /`**`: any number of directories
 *   \x       a literal x
 * A glob without a '/' (other than a trailing one) matches the file name at
 * any depth ("*.c", "Makefile"); one with a '/' is anchored at the repo root
 * ("/README.md", "src/main.{c,h}"). A glob that matches a directory matches
 * everything under it ("drivers/net", "docs/"); a trailing '/' matches only
 * directories. In an include list, a glob starting with '!' is an exclude.
 *
 * Globs are translated to one PCRE2 regex per list and matched against
 * repo-relative paths ('/'-separated, no leading '/'). A '..' segment is
 * refused: globs never reach outside the repo. Caps: 1 KiB per glob, 64
 * globs per list.
 */
#ifndef MG_GLOB_H
#define MG_GLOB_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"
#include "util/err.h"

#define MG_GLOB_MAX_LEN   1024
#define MG_GLOB_MAX_COUNT 64

struct mg_globset;

/* Compile include and exclude globs. Returns 0 with *out set (NULL when both
 * lists are empty: everything is allowed), or -1 with MG_E_BAD_GLOB. */
int mg_globset_new(const char *const *inc, size_t ninc, const char *const *exc, size_t nexc,
                   struct mg_globset **out, struct mg_err *err);
/* Is path allowed: no includes or one matches, and no exclude matches?
 * A NULL set allows everything. Not for concurrent use of one set. */
bool mg_globset_allows(struct mg_globset *g, const char *path, size_t len);
void mg_globset_free(struct mg_globset **g);

/* The regex for one glob (without the '!' handling), appended to out. */
int mg_glob_to_regex(const char *glob, size_t len, struct mg_buf *out, struct mg_err *err);

#endif
