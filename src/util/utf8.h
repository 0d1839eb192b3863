/* utf8.h — UTF-8 validation and repair.
 *
 * Indexed text must be valid UTF-8 (JSON output and FTS depend on it). Files
 * with invalid sequences are not dropped: each invalid byte becomes U+FFFD,
 * so the rest of the file stays searchable and line numbers do not move.
 */
#ifndef MG_UTF8_H
#define MG_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* Length of the valid UTF-8 prefix of s[0..n). */
size_t mg_utf8_valid_prefix(const char *s, size_t n);
/* Copy s with every invalid byte replaced by U+FFFD into a new buffer
 * (*out, NUL-terminated). Returns the number of replacements, or (size_t)-1
 * when memory runs out. */
size_t mg_utf8_repair(const char *s, size_t n, char **out, size_t *outlen);
/* Longest prefix of s[0..n) that is at most max bytes and ends on a
 * character boundary. */
size_t mg_utf8_cut(const char *s, size_t n, size_t max);

#endif
