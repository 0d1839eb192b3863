/* word.h — the one rule for memgate's plain names: tenants, repo names and
 * the parts of repo ids, audit ops. A word is 1 to max characters of
 * [a-z0-9._-]; where it must lead with a letter or digit, lead says so. */
#ifndef MG_WORD_H
#define MG_WORD_H

#include <stdbool.h>
#include <stddef.h>

/* The n bytes at s are a word of at most max characters (first [a-z0-9]
 * when lead is set). */
bool mg_word_okn(const char *s, size_t n, size_t max, bool lead);
/* The NUL-terminated s is a word of at most max characters. */
bool mg_word_ok(const char *s, size_t max);

#endif
