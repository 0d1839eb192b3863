/* oauth.c — the resource server's token check (see oauth.h).
 *
 * Sections:
 *   1. settings: the issuer and the resource
 *   2. the provider's keys: discovery, fetch, cache, refetch on rotation
 *   3. claims -> principal
 *   4. the check
 *   5. protected resource metadata (RFC 9728)
 */
#include "oauth/oauth.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <sodium.h>

#include "oauth/jwt.h"
#include "security/common.h"
#include "util/buf.h"
#include "util/httpc.h"

struct mg_oauth {
    const struct mg_config *cfg;
    char metadata_url[1100];    /* ORIGIN/.well-known/oauth-protected-resource[/PATH] */
    char resource_path[512];    /* oauth_resource's path ("" for "/") */
    pthread_mutex_t mu;         /* guards the fields below */
    struct mg_jwks *keys;       /* NULL until the first fetch succeeds */
    int refs;                   /* ... users of keys while the lock is dropped (a fetch swaps only when 0) */
    struct mg_jwks *old;        /* replaced keys waiting for refs to drop to 0 */
    char jwks_url[512];         /* from the settings or the discovery document; "" until found */
    double fetched_at;          /* when keys were fetched (monotonic s) */
    double tried_at;            /* when a fetch was last tried (monotonic s; 0 never) */
    double refetched_at;        /* when an unknown kid last caused a fetch (0 never) */
    bool pinned;                /* keys set by mg_oauth_pin_keys: never fetched */
    bool (*revoked)(void *ctx, const char *grant); /* ... and the revocation list of their grants */
    void *revoked_ctx;
};

/* ---- 1. settings: the issuer and the resource ---------------------------------- */

static double now_mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Is url http(s) (https unless its host is loopback)? host_end: where its
 * authority ends (the path starts), set on success. */
static bool url_ok(const char *url, const char **path)
{
    const char *a = strncasecmp(url, "https://", 8) == 0 ? url + 8 : strncasecmp(url, "http://", 7) == 0 ? url + 7 : NULL;
    if (!a || !*a || *a == '/') return false;
    const char *e = a + strcspn(a, "/?#");
    if (*e == '?' || *e == '#' || strchr(e, '?') || strchr(e, '#')) return false; /* no query nor fragment */
    if (url[4] == ':') { /* plain http: loopback only */
        size_t n = (size_t)(e - a);
        static const char *const lo[] = {"localhost", "127.0.0.1", "[::1]"};
        bool ok = false;
        for (int i = 0; i < 3; i++) {
            size_t k = strlen(lo[i]);
            if (n >= k && strncasecmp(a, lo[i], k) == 0 && (n == k || a[k] == ':')) ok = true;
        }
        if (!ok) return false;
    }
    *path = e;
    return true;
}

int mg_oauth_new(const struct mg_config *cfg, struct mg_oauth **out, struct mg_err *err)
{
    *out = NULL;
    if (!cfg->oauth_issuer[0]) return 0;
    const char *ipath, *rpath, *jpath;
    if (!url_ok(cfg->oauth_issuer, &ipath))
        return mg_err_set(err, MG_E_CONFIG, "oauth_issuer '%.200s' is not an https:// URL (http:// only on "
                                            "loopback) without query or fragment",
                          cfg->oauth_issuer);
    if (!cfg->oauth_resource[0])
        return mg_err_set(err, MG_E_CONFIG, "oauth_issuer is set but oauth_resource is not: set it to this server's "
                                            "MCP endpoint as clients reach it (e.g. https://memgate.example.com/mcp); "
                                            "tokens must name it as their audience");
    if (!url_ok(cfg->oauth_resource, &rpath))
        return mg_err_set(err, MG_E_CONFIG, "oauth_resource '%.200s' is not an https:// URL (http:// only on "
                                            "loopback) without query or fragment",
                          cfg->oauth_resource);
    if (cfg->oauth_jwks_url[0] && !url_ok(cfg->oauth_jwks_url, &jpath))
        return mg_err_set(err, MG_E_CONFIG, "oauth_jwks_url '%.200s' is not an https:// URL (http:// only on loopback)",
                          cfg->oauth_jwks_url);
    if (cfg->oauth_tenant[0] && !mg_tenant_ok(cfg->oauth_tenant))
        return mg_err_set(err, MG_E_CONFIG, "oauth_tenant '%.80s' is not a tenant name (a-z 0-9 . _ -)",
                          cfg->oauth_tenant);
    struct mg_oauth *o = calloc(1, sizeof(*o));
    if (!o) return mg_err_oom(err);
    o->cfg = cfg;
    pthread_mutex_init(&o->mu, NULL);
    size_t plen = strlen(rpath);
    while (plen > 0 && rpath[plen - 1] == '/') plen--;
    snprintf(o->resource_path, sizeof(o->resource_path), "%.*s", (int)plen, rpath);
    snprintf(o->metadata_url, sizeof(o->metadata_url), "%.*s%s%s", (int)(rpath - cfg->oauth_resource),
             cfg->oauth_resource, MG_OAUTH_METADATA_PATH, o->resource_path);
    snprintf(o->jwks_url, sizeof(o->jwks_url), "%s", cfg->oauth_jwks_url);
    *out = o;
    return 0;
}

void mg_oauth_free(struct mg_oauth **o)
{
    if (!*o) return;
    mg_jwks_free(&(*o)->keys);
    mg_jwks_free(&(*o)->old);
    pthread_mutex_destroy(&(*o)->mu);
    free(*o);
    *o = NULL;
}

/* ---- 2. the provider's keys: discovery, fetch, cache, refetch on rotation ------ */

/* GET url: only from public addresses unless oauth_fetch_private = on. */
static int get(const struct mg_config *cfg, const char *url, const char *what, struct mg_buf *body, struct mg_err *err)
{
    long status = 0;
    char why[256] = "";
    struct mg_httpc_req q = {.method = "GET", .url = url, .timeout_s = MG_OAUTH_FETCH_TIMEOUT_S,
                             .max_body = MG_OAUTH_DOC_MAX, .public_only = strcmp(cfg->oauth_fetch_private, "on") != 0};
    int rc = mg_httpc_call(&q, &status, body, why, sizeof(why));
    if (rc != 0)
        return mg_err_set(err, MG_E_OAUTH_UNAVAILABLE, "cannot fetch the OpenID provider's %s from %.200s: %s%s", what,
                          url, why, rc == MG_HTTPC_PRIVATE ? "; for a provider on this host or the internal network "
                                                             "set oauth_fetch_private = on" : "");
    if (status != 200)
        return mg_err_set(err, MG_E_OAUTH_UNAVAILABLE, "the OpenID provider's %s at %.200s answered HTTP %ld", what,
                          url, status);
    return 0;
}

/* The jwks_uri of the issuer's discovery document into url. */
static int discover(const struct mg_config *cfg, char *url, size_t cap, struct mg_err *err)
{
    static const char *const wk[] = {"/.well-known/openid-configuration", "/.well-known/oauth-authorization-server"};
    struct mg_buf b;
    mg_buf_init(&b, MG_OAUTH_DOC_MAX);
    size_t n = strlen(cfg->oauth_issuer);
    while (n > 0 && cfg->oauth_issuer[n - 1] == '/') n--;
    int rc = -1;
    for (int i = 0; i < 2 && rc != 0; i++) {
        char doc[700];
        snprintf(doc, sizeof(doc), "%.*s%s", (int)n, cfg->oauth_issuer, wk[i]);
        struct mg_err e = {0};
        if (get(cfg, doc, "discovery document", &b, i == 0 ? &e : err) != 0) continue;
        json_t *j = json_loadb(b.p, b.len, JSON_REJECT_DUPLICATES, NULL);
        const char *iss = json_string_value(json_object_get(j, "issuer"));
        const char *ju = json_string_value(json_object_get(j, "jwks_uri"));
        const char *path;
        if (!iss || strcmp(iss, cfg->oauth_issuer) != 0)
            mg_err_set(err, MG_E_OAUTH_UNAVAILABLE, "the discovery document at %.200s names issuer '%.200s', not "
                                                    "oauth_issuer '%.200s'", doc, iss ? iss : "", cfg->oauth_issuer);
        else if (!ju || !url_ok(ju, &path) || strlen(ju) >= cap)
            mg_err_set(err, MG_E_OAUTH_UNAVAILABLE, "the discovery document at %.200s has no usable jwks_uri "
                                                    "(https, or http on loopback)", doc);
        else
            snprintf(url, cap, "%s", ju), rc = 0;
        json_decref(j);
        if (rc != 0) break; /* a document that answered but is wrong: no second guess */
    }
    mg_buf_release(&b);
    return rc;
}

/* Fetch the keys (discovering where first when needed) and swap them in. */
static int fetch_keys(struct mg_oauth *o, struct mg_err *err)
{
    char url[512];
    pthread_mutex_lock(&o->mu);
    snprintf(url, sizeof(url), "%s", o->jwks_url);
    pthread_mutex_unlock(&o->mu);
    if (!url[0] && discover(o->cfg, url, sizeof(url), err) != 0) return -1;
    struct mg_buf b;
    mg_buf_init(&b, MG_OAUTH_DOC_MAX);
    struct mg_jwks *ks = NULL;
    int rc = get(o->cfg, url, "key set (jwks_uri)", &b, err);
    if (rc == 0) rc = mg_jwks_parse(b.p, b.len, &ks, err);
    mg_buf_release(&b);
    if (rc != 0) return -1;
    pthread_mutex_lock(&o->mu);
    snprintf(o->jwks_url, sizeof(o->jwks_url), "%s", url);
    if (o->refs == 0) {
        mg_jwks_free(&o->keys);
        mg_jwks_free(&o->old);
    } else if (!o->old) {
        o->old = o->keys; /* freed once no request uses it */
    } else {
        mg_jwks_free(&ks); /* two swaps while one check runs: keep what is there, the next fetch retries */
    }
    if (ks) o->keys = ks, o->fetched_at = now_mono();
    pthread_mutex_unlock(&o->mu);
    return 0;
}

/* Take the keys for a check (refs held: release with put_keys). Fetch
 * first when they are missing or stale (at most one try a second), or, a
 * rotation, when t names a key they do not hold (at most one such fetch per
 * MG_OAUTH_REFETCH_S). The decision to fetch is taken under the lock, so
 * concurrent requests do not all fetch. */
static const struct mg_jwks *take_keys(struct mg_oauth *o, const struct mg_jwt *t, struct mg_err *err)
{
    pthread_mutex_lock(&o->mu);
    double now = now_mono();
    bool stale = !o->keys || (!o->pinned && now - o->fetched_at > o->cfg->oauth_jwks_ttl);
    bool unknown = o->keys && !o->pinned && !mg_jwks_has(o->keys, t);
    bool fetch = false;
    if (stale && (o->tried_at == 0 || now - o->tried_at >= 1)) fetch = true;
    else if (!stale && unknown && (o->refetched_at == 0 || now - o->refetched_at >= MG_OAUTH_REFETCH_S))
        fetch = true, o->refetched_at = now;
    if (fetch) o->tried_at = now;
    pthread_mutex_unlock(&o->mu);
    struct mg_err fe = {0};
    if (fetch) fetch_keys(o, &fe);
    pthread_mutex_lock(&o->mu);
    const struct mg_jwks *ks = o->keys;
    if (ks) o->refs++;
    pthread_mutex_unlock(&o->mu);
    if (!ks) {
        if (fetch && err) *err = fe;
        else mg_err_set(err, MG_E_OAUTH_UNAVAILABLE, "the OpenID provider's keys could not be fetched a moment "
                                                     "ago; try again in a few seconds");
    }
    return ks;
}

int mg_oauth_pin_keys(struct mg_oauth *o, const char *jwks, bool (*revoked)(void *ctx, const char *grant), void *ctx,
                      struct mg_err *err)
{
    struct mg_jwks *ks = NULL;
    if (mg_jwks_parse(jwks, strlen(jwks), &ks, err) != 0) return -1;
    pthread_mutex_lock(&o->mu);
    mg_jwks_free(&o->keys);
    o->keys = ks;
    o->pinned = true;
    o->revoked = revoked;
    o->revoked_ctx = ctx;
    pthread_mutex_unlock(&o->mu);
    return 0;
}

static void put_keys(struct mg_oauth *o)
{
    pthread_mutex_lock(&o->mu);
    if (--o->refs == 0) mg_jwks_free(&o->old);
    pthread_mutex_unlock(&o->mu);
}

/* ---- 3. claims -> principal ---------------------------------------------------------- */

/* A NumericDate claim: -1 absent, -2 malformed. */
static int64_t numeric_date(json_t *claims, const char *name)
{
    json_t *v = json_object_get(claims, name);
    if (!v) return -1;
    if (!json_is_number(v) || json_number_value(v) < 0 || json_number_value(v) > 1e12) return -2;
    return (int64_t)json_number_value(v);
}

static bool aud_names(json_t *aud, const char *resource)
{
    if (json_is_string(aud)) return strcmp(json_string_value(aud), resource) == 0;
    size_t i;
    json_t *v;
    json_array_foreach(aud, i, v) if (json_is_string(v) && strcmp(json_string_value(v), resource) == 0) return true;
    return false;
}

/* The level of one scope word w[0..n), 0 none. */
static int scope_level(const char *w, size_t n)
{
    static const char *const names[] = {"memgate:read", "memgate:write", "memgate:admin"};
    for (int i = 0; i < 3; i++)
        if (n == strlen(names[i]) && strncmp(w, names[i], n) == 0) return i + 1;
    return 0;
}

/* The highest level among the token's scopes ("scope": space-separated, or
 * "scp": an array). */
static int token_level(json_t *claims)
{
    int level = 0;
    const char *s = json_string_value(json_object_get(claims, "scope"));
    for (; s && *s; s += strcspn(s, " ")) {
        s += strspn(s, " ");
        int l = scope_level(s, strcspn(s, " "));
        if (l > level) level = l;
    }
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(claims, "scp"), i, v) {
        int l = json_is_string(v) ? scope_level(json_string_value(v), json_string_length(v)) : 0;
        if (l > level) level = l;
    }
    return level;
}

/* The repos claim: an array of ids, or one string of ids separated by
 * spaces or commas. */
static int token_repos(json_t *v, struct mg_principal *p, struct mg_err *err)
{
    if (!v) return 0;
    size_t cap = MG_OAUTH_REPOS_MAX;
    p->repos = calloc(cap, sizeof(char *));
    if (!p->repos) return mg_err_oom(err);
    const char *s = json_string_value(v);
    size_t i = 0;
    json_t *e;
    if (s) {
        while (*s) {
            s += strspn(s, " ,");
            size_t n = strcspn(s, " ,");
            if (!n) break;
            if (p->nrepos == cap) return mg_err_set(err, MG_E_TOKEN_CLAIMS, "the token lists over %zu repos", cap);
            if (!(p->repos[p->nrepos++] = strndup(s, n))) return mg_err_oom(err);
            s += n;
        }
    } else if (json_is_array(v)) {
        json_array_foreach(v, i, e) {
            if (!json_is_string(e) || !json_string_length(e)) continue;
            if (p->nrepos == cap) return mg_err_set(err, MG_E_TOKEN_CLAIMS, "the token lists over %zu repos", cap);
            if (!(p->repos[p->nrepos++] = strdup(json_string_value(e)))) return mg_err_oom(err);
        }
    } else {
        return mg_err_set(err, MG_E_TOKEN_CLAIMS, "the token's repos claim is neither a string nor an array");
    }
    if (!p->nrepos) /* a claim that lists nothing allows nothing, not everything */
        return mg_err_set(err, MG_E_TOKEN_CLAIMS, "the token's repos claim lists no repo");
    return 0;
}

int mg_oauth_claims(const struct mg_config *cfg, json_t *claims, int64_t now, struct mg_principal *p,
                    struct mg_err *err)
{
    memset(p, 0, sizeof(*p));
    const char *iss = json_string_value(json_object_get(claims, "iss"));
    if (!iss || strcmp(iss, cfg->oauth_issuer) != 0)
        return mg_err_set(err, MG_E_TOKEN_ISSUER, "the token's issuer '%.200s' is not this server's OpenID provider "
                                                  "(oauth_issuer)", iss ? iss : "(none)");
    if (!aud_names(json_object_get(claims, "aud"), cfg->oauth_resource))
        return mg_err_set(err, MG_E_TOKEN_AUDIENCE, "the token is not for this server: its audience (aud) does not "
                                                    "name %.200s; ask the provider for a token with resource=%.200s",
                          cfg->oauth_resource, cfg->oauth_resource);
    int64_t skew = cfg->oauth_clock_skew, exp = numeric_date(claims, "exp"), nbf = numeric_date(claims, "nbf"),
            iat = numeric_date(claims, "iat");
    if (exp == -1 || exp == -2 || nbf == -2 || iat == -2)
        return mg_err_set(err, MG_E_TOKEN_CLAIMS, "the token has no expiry (exp) or a malformed exp, nbf or iat");
    if (now >= exp + skew)
        return mg_err_set(err, MG_E_TOKEN_EXPIRED, "the token expired %lld s ago; get a new one from the provider",
                          (long long)(now - exp));
    if ((nbf >= 0 && now + skew < nbf) || (iat >= 0 && now + skew < iat))
        return mg_err_set(err, MG_E_TOKEN_CLAIMS, "the token is not valid yet (nbf or iat in the future, beyond "
                                                  "oauth_clock_skew = %lld s)", (long long)skew);
    json_t *tv = json_object_get(claims, cfg->oauth_tenant_claim);
    const char *tenant = tv ? json_string_value(tv) : cfg->oauth_tenant[0] ? cfg->oauth_tenant : NULL;
    if (!tenant || !mg_tenant_ok(tenant))
        return mg_err_set(err, MG_E_TOKEN_CLAIMS, "the token names no valid tenant: claim '%.64s' is %s and "
                                                  "oauth_tenant is %s", cfg->oauth_tenant_claim,
                          tv ? "not a tenant name" : "absent", cfg->oauth_tenant[0] ? "set" : "empty");
    snprintf(p->tenant, sizeof(p->tenant), "%s", tenant);
    p->level = token_level(claims);
    if (token_repos(json_object_get(claims, cfg->oauth_repos_claim), p, err) != 0) {
        mg_principal_release(p);
        return -1;
    }
    /* the subject's id: a hash of issuer and subject (or of the whole claims when sub is absent) */
    const char *sub = json_string_value(json_object_get(claims, "sub"));
    char *all = sub ? NULL : json_dumps(claims, JSON_COMPACT | JSON_SORT_KEYS);
    unsigned char h[8];
    crypto_generichash_state st;
    crypto_generichash_init(&st, NULL, 0, sizeof(h));
    crypto_generichash_update(&st, (const unsigned char *)iss, strlen(iss) + 1);
    const char *who = sub ? sub : all ? all : "";
    crypto_generichash_update(&st, (const unsigned char *)who, strlen(who));
    crypto_generichash_final(&st, h, sizeof(h));
    free(all);
    char hex[17];
    sodium_bin2hex(hex, sizeof(hex), h, sizeof(h));
    snprintf(p->token_id, sizeof(p->token_id), "jwt_%s", hex);
    return 0;
}

/* ---- 4. the check ------------------------------------------------------------------ */

int mg_oauth_check(struct mg_oauth *o, const char *tok, size_t len, struct mg_principal *p, struct mg_err *err)
{
    memset(p, 0, sizeof(*p));
    struct mg_jwt t;
    if (mg_jwt_parse(tok, len, &t, err) != 0) return -1;
    const struct mg_jwks *ks = take_keys(o, &t, err);
    int rc = -1;
    if (ks) {
        rc = mg_jwt_verify(&t, ks, err);
        put_keys(o);
    }
    if (rc == 0) rc = mg_oauth_claims(o->cfg, t.claims, (int64_t)time(NULL), p, err);
    const char *grant = json_string_value(json_object_get(t.claims, "mg_grant"));
    if (rc == 0 && o->revoked && grant && o->revoked(o->revoked_ctx, grant)) {
        mg_principal_release(p);
        rc = mg_err_set(err, MG_E_TOKEN_REVOKED, "the token's grant was revoked (POST /oauth/revoke, or a reused "
                                                 "code or refresh token): sign in again");
    }
    mg_jwt_release(&t);
    return rc;
}

/* ---- 5. protected resource metadata (RFC 9728) ----------------------------------------- */

json_t *mg_oauth_metadata(const struct mg_oauth *o)
{
    return json_pack("{s:s, s:[s], s:[s,s,s], s:[s], s:s, s:s}", "resource", o->cfg->oauth_resource,
                     "authorization_servers", o->cfg->oauth_issuer, "scopes_supported", "memgate:read",
                     "memgate:write", "memgate:admin", "bearer_methods_supported", "header", "resource_name",
                     "memgate", "resource_documentation", "https://github.com/memgate/memgate/blob/main/docs/http.md");
}

const char *mg_oauth_metadata_url(const struct mg_oauth *o) { return o->metadata_url; }

bool mg_oauth_is_metadata_path(const struct mg_oauth *o, const char *url)
{
    size_t n = strlen(MG_OAUTH_METADATA_PATH);
    if (strncmp(url, MG_OAUTH_METADATA_PATH, n) != 0) return false;
    return url[n] == 0 || (url[n] == '/' && url[n + 1] == 0) || strcmp(url + n, o->resource_path) == 0;
}
