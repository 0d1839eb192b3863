/* keyfile.h — a secret key kept in a file of its own: n random bytes, mode
 * 0600, made once and never replaced (what it keys would stop verifying).
 *
 * The first use makes it: random bytes from libsodium in a uniquely named
 * temporary file, synced, then link(2)ed into place, so two processes that
 * start together agree on one key (the second finds the first's); the
 * directory is made 0700 when missing and synced after. */
#ifndef MG_KEYFILE_H
#define MG_KEYFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"

/* Read the n-byte key at path into key; when it is absent and create, make
 * it first. 0; 1 absent (and not made); -1 with err: it cannot be read or
 * made, is not n bytes, or others may read it (permission_denied, saying to
 * chmod it). what names it in messages ("the audit key"). */
int mg_keyfile_load(const char *path, const char *what, unsigned char *key, size_t n, bool create,
                    struct mg_err *err);

#endif
