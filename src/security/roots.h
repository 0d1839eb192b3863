/* roots.h — the index-root policy: which directories a tenant may index.
 *
 * Every way of indexing a directory (`memgate index`, POST /v1/index, the MCP
 * index_repo tool, a client root indexed on first use, a re-index) reaches
 * mg_index_run, which asks mg_root_check before it opens anything. A
 * directory (compared as its real path: symlinks and `..` resolved, path
 * component by path component, so /a/b is not inside /a/bc) may be indexed
 * by a tenant only when:
 *
 *   1. it lies under one of the tenant's `index_roots` (config); a tenant
 *      with none may index nothing, except tenant `local` without a token
 *      (stdio, the command line, loopback without tokens): anywhere;
 *   2. it neither equals, contains nor lies inside the data directory or the
 *      cache directory, and does not contain the config file;
 *   3. it neither contains nor lies inside a repo root of another tenant
 *      (its stored root, and what that resolves to now);
 *   4. re-indexing a repo: its stored root still resolves to itself (a root
 *      replaced by a symlink is refused, not followed).
 *
 * A refusal is root_forbidden (HTTP 403) with a sentence that says what to
 * do; the gate audits it like any failed operation.
 */
#ifndef MG_ROOTS_H
#define MG_ROOTS_H

#include <stdbool.h>

#include "util/config.h"
#include "util/err.h"

/* token: the caller authenticated with an access token (a token of tenant
 * `local` gets no unrestricted default). real: the directory's real path (realpath). stored: when re-indexing an
 * existing repo, its stored root; else NULL. 0: allowed; -1 with err
 * (root_forbidden, or an error reading the catalog). */
int mg_root_check(const struct mg_config *c, const char *tenant, bool token, const char *real, const char *stored,
                  struct mg_err *err);

/* a and b are absolute paths: 1 when a is b or lies inside b, by whole path components. */
int mg_path_within(const char *a, const char *b);

#endif
