/* access.h — who may do what: callers (principals), access levels, and which
 * repos a caller may see.
 *
 * A principal is the caller of a request: a token's tenant, level and repo
 * allowlist, or the local principal (tenant "local", admin, every repo) for
 * stdio, the command line and HTTP on loopback while no token is required.
 *
 * Access levels order what a caller may do: read < write < admin. A token
 * has one (`memgate token create --scope`); every operation the gate runs
 * needs one (request/gate.h).
 *
 * Repo access: a repo of another tenant does not exist for the caller (named
 * explicitly it is repo_not_found, as if it were not indexed); a repo outside
 * the token's allowlist is repo_forbidden when named and invisible otherwise;
 * more than one repo in a request is cross_repo_denied unless cross_repo is
 * on. These functions only decide; the gate applies them and audits.
 */
#ifndef MG_ACCESS_H
#define MG_ACCESS_H

#include <stdbool.h>
#include <stddef.h>

#include "store/catalog.h"
#include "util/err.h"

/* Access levels, of callers and of operations. */
#define MG_LEVEL_READ  1
#define MG_LEVEL_WRITE 2
#define MG_LEVEL_ADMIN 3

/* "read", "write", "admin" ("none" for anything else). */
const char *mg_level_name(int level);
/* The level named s into *out: 0, or -1 for an unknown name. */
int mg_level_parse(const char *s, int *out);

struct mg_principal {
    char tenant[65];
    int level;                 /* MG_LEVEL_*; 0: may do nothing */
    char **repos;              /* the token's repo allowlist; nrepos 0 = every repo of the tenant */
    size_t nrepos;
    char token_id[48];         /* "" for the local principal */
};

/* Tenant "local", admin, every repo. */
extern const struct mg_principal mg_principal_local;

/* A deep copy (repos duplicated); -1 when out of memory (dst left empty:
 * level 0, no tenant). Release copies with mg_principal_release. */
int mg_principal_copy(struct mg_principal *dst, const struct mg_principal *src);
void mg_principal_release(struct mg_principal *p);

/* 0 when p's level is at least need, else scope_forbidden naming `what`. */
int mg_access_level(const struct mg_principal *p, int need, const char *what, struct mg_err *err);

/* Can p see this repo at all (its tenant and p's allowlist)? */
bool mg_access_visible(const struct mg_principal *p, const struct mg_repo *r);

/* Repo access for a request: v[0..*n) are the repos resolution chose.
 * explicit: the caller named them (an argument, a header, the session's
 * scope). Another tenant's repo is repo_not_found when named, dropped
 * otherwise; a repo outside the allowlist is repo_forbidden when named,
 * dropped otherwise; more than one repo left is cross_repo_denied unless
 * cross_repo. Compacts v and *n. */
int mg_access_repos(const struct mg_principal *p, bool cross_repo, struct mg_repo *v, size_t *n, bool explicit_repo,
                    struct mg_err *err);

#endif
