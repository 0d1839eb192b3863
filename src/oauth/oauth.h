/* oauth.h — memgate as an OAuth 2.1 resource server (the MCP authorization
 * specification of 2026-07-28): access tokens from an OpenID provider named
 * by its issuer, checked against the provider's published keys.
 *
 * A verifier is made once per daemon from the config (oauth_issuer empty:
 * none, and memgate tokens alone are accepted, as before). It finds the
 * provider's keys through its discovery document
 * (ISSUER/.well-known/openid-configuration, else
 * ISSUER/.well-known/oauth-authorization-server) unless oauth_jwks_url names
 * them, fetches them on first use, keeps them oauth_jwks_ttl seconds, and
 * fetches them again at once when a token names a key it does not know (a
 * rotation), at most once per MG_OAUTH_REFETCH_S: a flood of made-up key
 * ids costs the provider one request per interval. When a fetch fails the
 * keys already held stay in use.
 *
 * A token is accepted when its signature verifies (jwt.h), iss is
 * oauth_issuer, aud names oauth_resource (RFC 8707), exp is in the future,
 * nbf and iat are not, each within oauth_clock_skew seconds, and it names a
 * tenant (the oauth_tenant_claim claim, else the oauth_tenant setting). Its
 * scopes give the level (memgate:read < memgate:write < memgate:admin; the
 * highest wins) and the oauth_repos_claim claim the repo allowlist, so the
 * caller becomes an ordinary principal (security/access.h) and every
 * isolation rule applies unchanged. The principal's token_id is
 * "jwt_" and 16 hex digits of a hash of the issuer and the subject: audit
 * events and rate limits name the subject, never the token.
 *
 * Thread-safe: requests check tokens concurrently; a fetch runs outside the
 * lock that guards the keys.
 */
#ifndef MG_OAUTH_H
#define MG_OAUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "security/access.h"
#include "util/config.h"
#include "util/err.h"

#define MG_OAUTH_REFETCH_S 10        /* at most one unscheduled key fetch per this many seconds */
#define MG_OAUTH_DOC_MAX (64u << 10) /* largest discovery document or key set read */
#define MG_OAUTH_FETCH_TIMEOUT_S 5   /* per fetch from the provider */
#define MG_OAUTH_REPOS_MAX 256       /* repos one token may list */
#define MG_OAUTH_METADATA_PATH "/.well-known/oauth-protected-resource"

struct mg_oauth;

/* *out NULL and 0 when cfg->oauth_issuer is empty. Else checks the
 * settings (oauth_resource set; both http(s) URLs, https unless the host is
 * loopback) and makes the verifier; nothing is fetched yet. -1 with
 * config_invalid. */
int mg_oauth_new(const struct mg_config *cfg, struct mg_oauth **out, struct mg_err *err);
void mg_oauth_free(struct mg_oauth **o);

/* Check the bearer token tok[0..len) into *p (release with
 * mg_principal_release). 0, or -1 with a token_* code (a 401: see err.h),
 * or oauth_unavailable when no keys could be had at all (a 503). */
int mg_oauth_check(struct mg_oauth *o, const char *tok, size_t len, struct mg_principal *p, struct mg_err *err);

/* The claims part of the check, on a token already verified: iss, aud,
 * exp, nbf, iat at now (Unix seconds), the tenant, scopes and repos. */
int mg_oauth_claims(const struct mg_config *cfg, json_t *claims, int64_t now, struct mg_principal *p,
                    struct mg_err *err);

/* Use this key set (JSON text) for good: never fetched, never stale (the
 * built-in authorization server's keys, oauth/as.h), and refuse
 * (token_revoked) a token whose mg_grant claim revoked(ctx, grant) says is
 * revoked (revoked NULL: no such check). 0, or -1 with err. */
int mg_oauth_pin_keys(struct mg_oauth *o, const char *jwks, bool (*revoked)(void *ctx, const char *grant), void *ctx,
                      struct mg_err *err);

/* The protected resource metadata document (RFC 9728; new reference). */
json_t *mg_oauth_metadata(const struct mg_oauth *o);
/* Its URL (for WWW-Authenticate: Bearer resource_metadata="..."):
 * ORIGIN/.well-known/oauth-protected-resource/PATH of oauth_resource. */
const char *mg_oauth_metadata_url(const struct mg_oauth *o);
/* Is url (a request's path) where that document is served? Both
 * MG_OAUTH_METADATA_PATH and MG_OAUTH_METADATA_PATH + the resource's path. */
bool mg_oauth_is_metadata_path(const struct mg_oauth *o, const char *url);

#endif
