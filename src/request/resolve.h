/* resolve.h — which repos a request works on (DESIGN.md, "Isolation model").
 *
 * First match wins:
 *   1. explicit: the call's `repo` argument, else the X-Memgate-Repo header;
 *   2. the session: the repos of its scope (set_scope), else the repo it is
 *      bound to (from the client's roots, or `memgate mcp --repo`);
 *   3. the repo holding the request's directory (the command line, and
 *      `memgate mcp` started inside a repo when the client states no root);
 *   4. the only repo the caller can see;
 *   5. repo_required, listing the ids the caller can see (repo_not_found
 *      when it can see none).
 * Only repos the caller may see take part (security/access.h): another
 * tenant's repo is repo_not_found even when named, a repo outside a token's
 * allowlist repo_forbidden when named.
 *
 * Resolution is pure: it reads the session and the catalog, asks the client
 * nothing and indexes nothing. Asking for roots and indexing a root on first
 * use are the gate's explicit steps before it resolves (request/gate.c),
 * done with progress and without holding a lock that other requests wait on.
 */
#ifndef MG_RESOLVE_H
#define MG_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>

#include "request/ctx.h"

/* The repos the caller may see, sorted by id (*out malloc'd). */
int mg_resolve_visible(const struct mg_ctx *x, struct mg_repo **out, size_t *n, struct mg_err *err);

/* The repo the caller named: repo_not_found (listing the ids it can see) or
 * repo_forbidden. */
int mg_resolve_named(const struct mg_ctx *x, const char *id, struct mg_repo *out, struct mg_err *err);

/* The innermost repo the caller can see whose root holds path (canonical):
 * 1 found, 0 none, -1 error. */
int mg_resolve_containing(const struct mg_ctx *x, const char *path, struct mg_repo *out, struct mg_err *err);

/* The repos for a request (the rules above), with the session as snap shows
 * it. explicit_repo: the call's own repo argument or NULL. *out malloc'd,
 * *n >= 1; *named: they were chosen explicitly (steps 1 and 2's scope),
 * which decides how the access rules answer. Cross-repo policy is the
 * caller's to apply. */
int mg_resolve(const struct mg_ctx *x, const struct mg_session_snap *snap, const char *explicit_repo,
               struct mg_repo **out, size_t *n, bool *named, struct mg_err *err);

/* Bind session s to repo (`memgate mcp --repo`): a directory becomes its
 * root (the gate indexes it on first use), else the id of a repo the local
 * caller can see is its repo; repo_not_found when it is neither. */
int mg_resolve_bind(struct mg_server *srv, struct mg_session *s, const char *repo, struct mg_err *err);

#endif
