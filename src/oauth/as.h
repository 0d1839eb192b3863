/* as.h — memgate's built-in OAuth 2.1 authorization server for one host
 * (oauth_server = on), so that MCP clients can sign in without an external
 * provider. It issues what the resource server side (oauth.h) already
 * accepts: JWT access tokens (RFC 9068) signed EdDSA (Ed25519, libsodium)
 * with a key made once in the data directory (oauth-signing.key, 0600),
 * naming oauth_resource as audience (RFC 8707), memgate's scopes and the
 * tenant and repos claims. The verifier is handed the public key set
 * directly (mg_oauth_pin_keys): nothing is fetched from ourselves.
 *
 * What it implements: authorization server metadata (RFC 8414), dynamic
 * client registration (RFC 7591; public clients, token_endpoint_auth_method
 * none), Client ID Metadata Documents (a client_id that is an https URL
 * whose JSON document is fetched, capped and checked; http:// on loopback
 * only with oauth_client_metadata_http = on), the authorization code grant
 * with PKCE (S256 only), a consent step the operator approves with one of
 * memgate's own tokens (the grant gets that token's tenant and repos, and at
 * most its level), refresh tokens (rotated; a reused one revokes its grant),
 * and revocation (RFC 7009).
 *
 * State lives in oauth.db (SQLite, synchronous=FULL) in the data directory:
 * clients, consent requests waiting, codes, grants and refresh tokens. A
 * code, a refresh token and a consent request id are stored as a BLAKE2b
 * hash only; a code is single-use and lives oauth_code_ttl seconds. An
 * acknowledged token or refresh survives a restart (kill -9 too).
 *
 * Every parser here caps its input: a form body at MG_AS_FORM_MAX bytes and
 * MG_AS_FORM_FIELDS fields, a registration or metadata document at
 * MG_AS_DOC_MAX bytes and MG_AS_REDIRECTS redirect URIs of MG_AS_URI_MAX
 * bytes. Errors are memgate codes (err.h: oauth_*) whose OAuth error
 * (RFC 6749 5.2) mg_as_oauth_error names.
 *
 * Thread-safe: one SQLite handle under a lock.
 */
#ifndef MG_OAUTH_AS_H
#define MG_OAUTH_AS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "util/config.h"
#include "util/err.h"

#define MG_AS_FORM_MAX (16u << 10)  /* bytes of a form body */
#define MG_AS_FORM_FIELDS 32        /* fields of a form */
#define MG_AS_DOC_MAX (16u << 10)   /* bytes of a registration or a client metadata document */
#define MG_AS_REDIRECTS 8           /* redirect URIs of one client */
#define MG_AS_URI_MAX 512           /* bytes of a redirect URI or a client_id URL */
#define MG_AS_NAME_MAX 120          /* bytes of a client name kept */
#define MG_AS_CONSENT_TTL 600       /* seconds a consent page stays valid */
#define MG_AS_CIMD_TIMEOUT_S 5      /* per client metadata document fetch */
#define MG_AS_CONSENTS_PER_CLIENT 16 /* consent requests waiting per client: past it authorize is rate_limited */
#define MG_AS_IDLE_CLIENT_S 86400   /* a client this old that never got a grant is dropped when the cap is reached */
#define MG_AS_PATH_META "/.well-known/oauth-authorization-server"
#define MG_AS_PATH_PREFIX "/oauth/" /* authorize, token, register, revoke, jwks */

/* ---- parsers (pure: the fuzz targets call them) ---- */

/* An application/x-www-form-urlencoded body: names and values decoded
 * (percent escapes, '+' as space). A repeated name, a bad escape, a NUL, over
 * MG_AS_FORM_MAX bytes or MG_AS_FORM_FIELDS fields: -1 with
 * oauth_invalid_request. */
struct mg_as_form {
    size_t n;
    char *name[MG_AS_FORM_FIELDS], *value[MG_AS_FORM_FIELDS];
};
int mg_as_form_parse(const char *body, size_t len, struct mg_as_form *f, struct mg_err *err);
const char *mg_as_form_get(const struct mg_as_form *f, const char *name); /* NULL when absent */
void mg_as_form_release(struct mg_as_form *f);

/* A client's metadata: from a registration request (RFC 7591) or a Client
 * ID Metadata Document. */
struct mg_as_client {
    char id[MG_AS_URI_MAX + 1];
    char name[MG_AS_NAME_MAX + 1];
    size_t nredirects;
    char redirect[MG_AS_REDIRECTS][MG_AS_URI_MAX + 1];
};
/* Check a metadata document text[0..len) into *c (id untouched): JSON
 * object, redirect_uris 1..MG_AS_REDIRECTS absolute URIs without fragment
 * (https, http on loopback, or a private scheme "com.example.app:/cb"),
 * grant_types and response_types (when given) within what is supported,
 * token_endpoint_auth_method none (registration: anything else is answered
 * as none; a metadata document must say none or nothing). -1 with
 * oauth_client_metadata_invalid. */
int mg_as_client_parse(const char *text, size_t len, bool registration, struct mg_as_client *c,
                       struct mg_err *err);
/* Is url a client_id URL memgate fetches: https with a path (not to a
 * loopback host), or with allow_http an http:// loopback URL? No fragment,
 * no credentials. */
bool mg_as_client_id_url(const char *url, bool allow_http);
/* Does verifier (RFC 7636: 43-128 of [A-Za-z0-9-._~]) hash (S256) to
 * challenge? */
bool mg_as_pkce_ok(const char *verifier, const char *challenge);

/* ---- the server ---- */

struct mg_as;

/* *out NULL when cfg->oauth_server is off. Else opens oauth.db and the
 * signing key in cfg->home (both made when missing). -1 with config_invalid
 * (oauth_resource unset, oauth_issuer not an origin) or a store error. */
int mg_as_open(const struct mg_config *cfg, struct mg_as **out, struct mg_err *err);
void mg_as_close(struct mg_as **as);

/* The public key set (JSON text, owned by as). */
const char *mg_as_jwks(const struct mg_as *as);
/* The authorization server metadata (RFC 8414; new reference). */
json_t *mg_as_metadata(const struct mg_as *as);
/* The OAuth error (invalid_grant, ...) of a memgate oauth_* code. */
const char *mg_as_oauth_error(const char *code);

/* POST /oauth/register: the request's JSON into a registered client's
 * answer (RFC 7591 3.2.1; new reference). At oauth_clients_max clients,
 * those registered over MG_AS_IDLE_CLIENT_S ago that never got a grant are
 * dropped; if none was, rate_limited (*retry_after_s: when to try again). */
json_t *mg_as_register(struct mg_as *as, const char *body, size_t len, int *retry_after_s, struct mg_err *err);

/* GET /oauth/authorize, checked. A request whose client or redirect_uri is
 * wrong must not be redirected: *redirectable false. Otherwise the
 * consent request is stored and its id written to consent_id; a client
 * with MG_AS_CONSENTS_PER_CLIENT waiting already: rate_limited (not stored,
 * a->retry_after set, *redirectable false). */
struct mg_as_authz {
    struct mg_as_client client;  /* who asks (name for the page) */
    char redirect_uri[MG_AS_URI_MAX + 1];
    char state[MG_AS_URI_MAX + 1];
    int level;                   /* the highest scope asked (MG_LEVEL_*) */
    char consent_id[48];         /* the consent request's id (the form's hidden field) */
    int retry_after;             /* rate_limited: seconds until the client's oldest consent request expires */
};
int mg_as_authorize(struct mg_as *as, const struct mg_as_form *q, struct mg_as_authz *a, bool *redirectable,
                    struct mg_err *err);

/* The operator's answer on the consent page: the consent request id, and
 * the approver's principal (from a memgate token: tenant, repos, level), or
 * NULL for a denial. 0 and the code (or, denied, an empty code) into
 * code[0..cap) with the redirect_uri and state in *a; -1 with err when the
 * consent request is unknown, used or stale (nothing to redirect to). */
struct mg_principal;
int mg_as_consent(struct mg_as *as, const char *consent_id, const struct mg_principal *approver,
                  struct mg_as_authz *a, char *code, size_t cap, struct mg_err *err);

/* POST /oauth/token: grant_type authorization_code or refresh_token. The
 * token response (RFC 6749 5.1; new reference), or NULL with err.
 * tenant[0..tcap) names the grant's tenant when known (for the audit). */
json_t *mg_as_token(struct mg_as *as, const struct mg_as_form *f, char *tenant, size_t tcap, struct mg_err *err);

/* POST /oauth/revoke (RFC 7009): a refresh token revokes its grant (every
 * refresh token of it); an access token issued here revokes its grant too.
 * A revoked grant's access tokens are refused at once (mg_as_revoked).
 * Unknown tokens are no error. 0, or -1 with err (a malformed request, the
 * store). */
int mg_as_revoke(struct mg_as *as, const struct mg_as_form *f, char *tenant, size_t tcap, struct mg_err *err);

/* Is grant (an access token's mg_grant claim) revoked? The resource side
 * asks on every request with one of our tokens (mg_oauth_pin_keys): a
 * binary search of the grants revoked in the last oauth_token_ttl +
 * oauth_clock_skew seconds, in memory under its own lock (never behind a
 * write to oauth.db). The list is kept in oauth.db (grants.revoked_at) and
 * loaded at open, so a revocation survives a restart. */
bool mg_as_revoked(struct mg_as *as, const char *grant);

#endif
