/* auth.c — who may call, and from where: header caps, Host and Origin (DNS
 * rebinding), bearer tokens (memgate's own, and OAuth 2.1 access tokens:
 * oauth/oauth.h), rate limits (internal.h). Every refusal is audited
 * (mg__refused, respond.c). */
#include "http/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "oauth/oauth.h"
#include "security/token.h"

/* "localhost", "127.0.0.1" or "[::1]", then nothing or ":digits"; the name
 * part is n bytes of s. */
static bool loopback_hostport(const char *s, size_t n)
{
    static const char *const names[] = {"localhost", "127.0.0.1", "[::1]"};
    for (size_t i = 0; i < 3; i++) {
        size_t k = strlen(names[i]);
        if (n < k || strncasecmp(s, names[i], k) != 0) continue;
        if (n == k) return true;
        if (s[k] != ':' || n == k + 1 || n > k + 6) continue;
        bool digits = true;
        for (size_t j = k + 1; j < n; j++)
            if (s[j] < '0' || s[j] > '9') digits = false;
        if (digits) return true;
    }
    return false;
}

static bool origin_allowed(const struct mg_config *cfg, const char *o)
{
    size_t n = strlen(o);
    if (strncasecmp(o, "http://", 7) == 0 && loopback_hostport(o + 7, n - 7)) return true;
    if (strncasecmp(o, "https://", 8) == 0 && loopback_hostport(o + 8, n - 8)) return true;
    /* the built-in authorization server's consent form posts from its own origin */
    if (strcmp(cfg->oauth_server, "on") == 0 && cfg->oauth_issuer[0] && strcmp(o, cfg->oauth_issuer) == 0) return true;
    return mg_list_has(cfg->allowed_origins, o, n, true); /* comma-separated, spaces around items ignored */
}

int mg__check_origin(struct mg_http *h, struct MHD_Connection *c, struct req *r, bool check_host,
                        enum MHD_Result *rc)
{
    const char *host = mg__header(c, MHD_HTTP_HEADER_HOST);
    if (check_host && h->loopback && host && !loopback_hostport(host, strlen(host))) {
        *rc = mg__respond_error(c, r, 403, MG_E_HOST_FORBIDDEN,
                            "forbidden: Host '%.128s' is not a loopback name; this server only answers "
                            "http://localhost, 127.0.0.1 or [::1] (DNS rebinding protection)",
                            host);
        return -1;
    }
    const char *origin = mg__header(c, "Origin");
    if (origin && !r->cors[0] && !origin_allowed(&h->srv->cfg, origin)) { /* (a CORS answer allows its origin) */
        *rc = mg__respond_error(c, r, 403, MG_E_ORIGIN_FORBIDDEN,
                            "forbidden: Origin '%.128s' is not allowed; only loopback origins are, plus those in "
                            "the allowed_origins setting",
                            origin);
        return -1;
    }
    return 0;
}
static enum MHD_Result q_token_iter(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    (void)kind;
    bool *found = cls;
    static const char *const names[] = {"access_token", "token", "bearer", "auth", "authorization", "api_key",
                                        NULL};
    for (const char *const *n = names; *n; n++)
        if (strcasecmp(key, *n) == 0) *found = true;
    if (value && strncmp(value, "mgt_", 4) == 0) *found = true;
    return *found ? MHD_NO : MHD_YES;
}

static enum MHD_Result respond_401(struct MHD_Connection *c, struct req *r, const char *code, const char *why,
                                   const char *challenge)
{
    json_t *j = r->api == A_MCP ? mg_rpc_error(NULL, -32001, why, json_pack("{s:s}", "code", code))
                                : json_pack("{s:{s:s, s:s}}", "error", "code", code, "message", why);
    return mg__respond_json_h(c, r, 401, j, "WWW-Authenticate", challenge, NULL, NULL);
}

/* The token store or the shared rate limits failed (PostgreSQL down, the
 * pool busy), or the OpenID provider's keys cannot be had: 503 with
 * Retry-After; anything else 500. Refused, audited. */
static enum MHD_Result respond_store_failed(struct MHD_Connection *c, struct req *r, const struct mg_err *err)
{
    const char *code = err->code ? err->code : MG_E_INTERNAL;
    bool later = strcmp(code, MG_E_STORAGE_UNAVAILABLE) == 0 || strcmp(code, MG_E_STORAGE_RETRY) == 0 ||
                 strcmp(code, MG_E_OAUTH_UNAVAILABLE) == 0;
    mg__refused(r, "auth_fail", code);
    char why[1100];
    snprintf(why, sizeof(why), "cannot check the token now: %s", err->msg);
    json_t *j = r->api == A_MCP ? mg_rpc_error(NULL, -32603, why, json_pack("{s:s}", "code", code))
                                : json_pack("{s:{s:s, s:s}}", "error", "code", code, "message", why);
    return mg__respond_json_h(c, r, later ? 503 : 500, j, later ? "Retry-After" : NULL, later ? "1" : NULL, NULL,
                              NULL);
}

/* The shared database failed (down, busy, or this daemon's pepper is not
 * the database's): the caller's token may be fine, so not a 401. Every other
 * error of a check stays a 401, as it always was on SQLite. */
static bool store_failed(const char *code)
{
    return code && (strcmp(code, MG_E_STORAGE_UNAVAILABLE) == 0 || strcmp(code, MG_E_STORAGE_RETRY) == 0 ||
                    strcmp(code, MG_E_CONFIG) == 0);
}

struct hsize {
    size_t total, longest;
    const char *name;
};

static enum MHD_Result header_size_iter(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    (void)kind;
    struct hsize *z = cls;
    size_t n = strlen(key) + (value ? strlen(value) : 0);
    z->total += n;
    if (n > z->longest) z->longest = n, z->name = key;
    return MHD_YES;
}

int mg__check_headers(struct mg_http *h, struct MHD_Connection *c, struct req *r, enum MHD_Result *rc)
{
    struct hsize z = {0};
    MHD_get_connection_values(c, MHD_HEADER_KIND, header_size_iter, &z);
    if (z.longest <= MG_HTTP_HEADER_MAX && z.total <= MG_HTTP_HEADERS_MAX) return 0;
    mg__refused(r, "request_refused", MG_E_HEADER_TOO_LARGE);
    *rc = mg__respond_error(c, r, 431, MG_E_HEADER_TOO_LARGE,
                        "request header fields too large: header '%.64s' is %zu bytes (the limit is %d per header and "
                        "%d in all)",
                        z.name ? z.name : "?", z.longest, MG_HTTP_HEADER_MAX, MG_HTTP_HEADERS_MAX);
    return -1;
}

static int admit(struct mg_http *h, struct MHD_Connection *c, struct req *r, int rate, enum MHD_Result *rc);

/* An OAuth 2.1 access token (a JWT from the OpenID provider): 401 with its
 * code when refused, 503 when the provider's keys cannot be had, 403 when
 * it carries none of memgate's scopes. */
static int oauth_authenticate(struct mg_http *h, struct MHD_Connection *c, struct req *r, const char *tok,
                              enum MHD_Result *rc)
{
    struct mg_err err = {0};
    struct mg_principal p;
    if (mg_oauth_check(h->oauth, tok, strlen(tok), &p, &err) != 0) {
        const char *code = err.code ? err.code : MG_E_TOKEN_INVALID;
        if (strcmp(code, MG_E_OAUTH_UNAVAILABLE) == 0) {
            *rc = respond_store_failed(c, r, &err);
            return -1;
        }
        mg__refused(r, "auth_fail", code);
        char why[1100], ch[1200];
        snprintf(why, sizeof(why), "unauthorized: %s", err.msg);
        mg__oauth_challenge(h, "invalid_token", ch, sizeof(ch));
        *rc = respond_401(c, r, code, why, ch);
        return -1;
    }
    mg_principal_release(&r->who);
    r->who = p; /* taken */
    if (p.level < MG_LEVEL_READ) {
        mg__refused(r, "auth_fail", MG_E_SCOPE_FORBIDDEN);
        char ch[1200];
        mg__oauth_challenge(h, "insufficient_scope", ch, sizeof(ch));
        snprintf(ch + strlen(ch), sizeof(ch) - strlen(ch), ", scope=\"memgate:read\"");
        json_t *j = r->api == A_MCP
                        ? mg_rpc_error(NULL, -32001, "forbidden: the token carries none of memgate's scopes; ask "
                                                     "for memgate:read, memgate:write or memgate:admin",
                                       json_pack("{s:s}", "code", MG_E_SCOPE_FORBIDDEN))
                        : json_pack("{s:{s:s, s:s}}", "error", "code", MG_E_SCOPE_FORBIDDEN, "message",
                                    "forbidden: the token carries none of memgate's scopes; ask for memgate:read, "
                                    "memgate:write or memgate:admin");
        *rc = mg__respond_json_h(c, r, 403, j, "WWW-Authenticate", ch, NULL, NULL);
        return -1;
    }
    return admit(h, c, r, __atomic_load_n(&h->srv->cfg.token_rate_limit, __ATOMIC_RELAXED), rc); /* (SIGHUP sets it) */
}

int mg__authenticate(struct mg_http *h, struct MHD_Connection *c, struct req *r, bool *required,
                        enum MHD_Result *rc)
{
    struct mg_server *srv = h->srv;
    mg_principal_copy(&r->who, &mg_principal_local);
    *required = false;
    /* probes and the dashboard's page: no token, nothing private */
    if (r->api == A_HEALTHZ || r->api == A_READYZ || r->api == A_DASH || r->api == A_OAUTH_META) return 0;
    if (r->api == A_OAUTH_AS) { /* public endpoints, no principal: the consent form carries its own token (oauth_as.c) */
        mg_principal_release(&r->who);
        memset(&r->who, 0, sizeof(r->who));
        return 0;
    }
    bool in_query = false;
    MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, q_token_iter, &in_query);
    if (in_query) {
        mg__refused(r, "auth_fail", MG_E_TOKEN_IN_QUERY);
        *rc = mg__respond_error(c, r, 400, MG_E_TOKEN_IN_QUERY,
                            "bad request: a token in the URL is never accepted (URLs end up in logs and histories); "
                            "send it in the Authorization: Bearer header, and revoke this one (memgate token revoke)");
        return -1;
    }
    struct mg_err err = {0};
    bool any = false;
    const char *auth = mg__header(c, MHD_HTTP_HEADER_AUTHORIZATION);
    if (srv->tokens && mg_tokens_any_err(srv->tokens, &any, &err) != 0 && store_failed(err.code)) {
        /* the token store cannot say whether tokens exist (PostgreSQL down): a request without a token
         * cannot be let in, one with a token is checked as if they did (a malformed one is refused
         * without the store) */
        if (!auth) {
            *rc = respond_store_failed(c, r, &err);
            return -1;
        }
        any = true;
    }
    memset(&err, 0, sizeof(err));
    any = any || h->oauth; /* an OpenID provider's tokens are tokens too */
    if (mg_tokens_required(&srv->cfg, h->loopback, any, required, &err) != 0) {
        *rc = mg__respond_error(c, r, 500, err.code ? err.code : MG_E_INTERNAL, "%s", err.msg);
        return -1;
    }
    if (!auth) {
        if (!*required) return 0;
        mg__refused(r, "auth_fail", MG_E_UNAUTHORIZED);
        char ch[1200];
        mg__oauth_challenge(h, NULL, ch, sizeof(ch));
        *rc = respond_401(c, r, MG_E_UNAUTHORIZED,
                          h->oauth ? "unauthorized: this server needs a token; sign in with OAuth (the "
                                     "WWW-Authenticate header names the protected resource metadata) or send "
                                     "Authorization: Bearer <token>"
                                   : "unauthorized: this server needs a token; send Authorization: Bearer <token> "
                                     "(create one with `memgate token create --tenant T`)",
                          ch);
        return -1;
    }
    if (h->oauth && strncasecmp(auth, "Bearer ", 7) == 0 && strncmp(auth + 7, "mgt_", 4) != 0)
        return oauth_authenticate(h, c, r, auth + 7, rc);
    struct mg_token tok;
    if (strncasecmp(auth, "Bearer ", 7) != 0 || !srv->tokens || mg_tokens_check(srv->tokens, auth + 7, &tok, &err) != 0) {
        if (store_failed(err.code)) {
            *rc = respond_store_failed(c, r, &err);
            return -1;
        }
        const char *code = err.code ? err.code : MG_E_UNAUTHORIZED;
        mg__refused(r, "auth_fail", code);
        char why[1100];
        snprintf(why, sizeof(why), "unauthorized: %s",
                 err.code ? err.msg : "the Authorization header must be 'Bearer <token>'");
        char ch[1200];
        mg__oauth_challenge(h, "invalid_token", ch, sizeof(ch));
        *rc = respond_401(c, r, code, why, ch);
        return -1;
    }
    struct mg_principal p = {.level = tok.level, .repos = tok.repos, .nrepos = tok.nrepos};
    snprintf(p.tenant, sizeof(p.tenant), "%s", tok.tenant);
    snprintf(p.token_id, sizeof(p.token_id), "%s", tok.id);
    mg_principal_release(&r->who);
    mg_principal_copy(&r->who, &p);
    int rate = tok.rate_per_min;
    mg_token_release(&tok);
    return admit(h, c, r, rate, rc);
}

/* The caller r->who is known (token_id set): its rate, and /metrics' level.
 * 0, or -1 with the response queued. */
static int admit(struct mg_http *h, struct MHD_Connection *c, struct req *r, int rate, enum MHD_Result *rc)
{
    struct mg_err err = {0};
    int retry = 1;
    int took = h->srv->ratelimit ? mg_rate_check(h->srv->ratelimit, r->who.token_id, rate, &retry, &err) : 1;
    if (took < 0) { /* the shared limits cannot be read: refused, never unlimited */
        *rc = respond_store_failed(c, r, &err);
        return -1;
    }
    if (!took) {
        mg__refused(r, "rate_limited", MG_E_RATE_LIMITED);
        char ra[16];
        snprintf(ra, sizeof(ra), "%d", retry);
        char why[200];
        snprintf(why, sizeof(why), "too many requests: this token's limit is %d per minute; retry in %d s",
                 rate, retry);
        json_t *j = r->api == A_MCP ? mg_rpc_error(NULL, -32002, why, json_pack("{s:s}", "code", MG_E_RATE_LIMITED))
                                    : json_pack("{s:{s:s, s:s}}", "error", "code", MG_E_RATE_LIMITED, "message", why);
        *rc = mg__respond_json_h(c, r, 429, j, "Retry-After", ra, NULL, NULL);
        return -1;
    }
    if (r->api == A_METRICS && r->who.level < MG_LEVEL_ADMIN) {
        mg__refused(r, "auth_fail", MG_E_SCOPE_FORBIDDEN);
        *rc = mg__respond_error(c, r, 403, MG_E_SCOPE_FORBIDDEN, "forbidden: /metrics needs an admin token");
        return -1;
    }
    return 0;
}

