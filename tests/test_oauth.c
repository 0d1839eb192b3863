/* test_oauth.c — OAuth 2.1 access tokens (src/oauth/): the JWT and JWK set
 * parsers, RS256 / ES256 / EdDSA signatures made here with OpenSSL, every
 * refusal with its code, and the verifier against a loopback OpenID
 * provider's discovery document and key set (libmicrohttpd): first fetch,
 * cache, rotation (an unknown kid refetches once, rate-limited), a provider
 * that is down.
 *
 * Sections:
 *   1. keys and tokens made by the test
 *   2. a loopback provider: discovery and jwks_uri
 *   3. parsing and signatures
 *   4. claims
 *   5. the verifier: discovery, cache, rotation
 */
#include "test.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include "util/httpc.h"

#include <pthread.h>
#include <time.h>

#include <microhttpd.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <sodium.h>

#include "oauth/jwt.h"
#include "oauth/oauth.h"

/* ---- 1. keys and tokens made by the test ------------------------------------------- */

static char *b64u(const unsigned char *p, size_t n)
{
    size_t cap = sodium_base64_encoded_len(n, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    char *s = malloc(cap);
    sodium_bin2base64(s, cap, p, n, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    return s;
}

static char *b64u_bn(EVP_PKEY *pk, const char *name, int pad)
{
    BIGNUM *bn = NULL;
    ASSERT(EVP_PKEY_get_bn_param(pk, name, &bn) == 1);
    int n = pad ? pad : BN_num_bytes(bn);
    unsigned char buf[512];
    ASSERT(BN_bn2binpad(bn, buf, n) == n);
    BN_free(bn);
    return b64u(buf, (size_t)n);
}

struct tkey {
    EVP_PKEY *pk;
    const char *alg, *kid;
};

static struct tkey rsa_key(const char *kid)
{
    struct tkey k = {EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)2048), "RS256", kid};
    ASSERT(k.pk != NULL);
    return k;
}

static struct tkey ec_key(const char *kid)
{
    struct tkey k = {EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256"), "ES256", kid};
    ASSERT(k.pk != NULL);
    return k;
}

static struct tkey ed_key(const char *kid)
{
    struct tkey k = {EVP_PKEY_Q_keygen(NULL, NULL, "ED25519"), "EdDSA", kid};
    ASSERT(k.pk != NULL);
    return k;
}

/* The public JWK of k. */
static json_t *jwk(const struct tkey *k)
{
    if (strcmp(k->alg, "RS256") == 0) {
        char *n = b64u_bn(k->pk, OSSL_PKEY_PARAM_RSA_N, 0), *e = b64u_bn(k->pk, OSSL_PKEY_PARAM_RSA_E, 0);
        json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:s}", "kty", "RSA", "kid", k->kid, "use", "sig", "n", n, "e", e);
        free(n), free(e);
        return j;
    }
    if (strcmp(k->alg, "ES256") == 0) {
        char *x = b64u_bn(k->pk, OSSL_PKEY_PARAM_EC_PUB_X, 32), *y = b64u_bn(k->pk, OSSL_PKEY_PARAM_EC_PUB_Y, 32);
        json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:s}", "kty", "EC", "kid", k->kid, "crv", "P-256", "x", x, "y", y);
        free(x), free(y);
        return j;
    }
    unsigned char raw[32];
    size_t n = sizeof(raw);
    ASSERT(EVP_PKEY_get_raw_public_key(k->pk, raw, &n) == 1);
    char *x = b64u(raw, n);
    json_t *j = json_pack("{s:s, s:s, s:s, s:s}", "kty", "OKP", "kid", k->kid, "crv", "Ed25519", "x", x);
    free(x);
    return j;
}

static char *jwks_text(const struct tkey *keys, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) json_array_append_new(a, jwk(&keys[i]));
    json_t *j = json_pack("{s:o}", "keys", a);
    char *s = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    return s;
}

/* header.payload.signature, signed by k (alg and kid overridable: NULL keeps k's). */
static char *sign_as(const struct tkey *k, const char *alg, const char *kid, json_t *claims)
{
    json_t *h = json_pack("{s:s, s:s}", "alg", alg ? alg : k->alg, "typ", "at+jwt");
    if (kid || k->kid) json_object_set_new(h, "kid", json_string(kid ? kid : k->kid));
    char *hs = json_dumps(h, JSON_COMPACT), *cs = json_dumps(claims, JSON_COMPACT);
    char *h64 = b64u((unsigned char *)hs, strlen(hs)), *c64 = b64u((unsigned char *)cs, strlen(cs));
    size_t in_len = strlen(h64) + 1 + strlen(c64);
    char *in = malloc(in_len + 1);
    snprintf(in, in_len + 1, "%s.%s", h64, c64);
    unsigned char sig[1024];
    size_t sig_len = sizeof(sig);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    const EVP_MD *md = strcmp(k->alg, "EdDSA") == 0 ? NULL : EVP_sha256();
    ASSERT(EVP_DigestSignInit(ctx, NULL, md, NULL, k->pk) == 1);
    ASSERT(EVP_DigestSign(ctx, sig, &sig_len, (unsigned char *)in, in_len) == 1);
    EVP_MD_CTX_free(ctx);
    if (strcmp(k->alg, "ES256") == 0) { /* DER -> r || s */
        const unsigned char *p = sig;
        ECDSA_SIG *es = d2i_ECDSA_SIG(NULL, &p, (long)sig_len);
        ASSERT(es != NULL);
        BN_bn2binpad(ECDSA_SIG_get0_r(es), sig, 32);
        BN_bn2binpad(ECDSA_SIG_get0_s(es), sig + 32, 32);
        sig_len = 64;
        ECDSA_SIG_free(es);
    }
    char *s64 = b64u(sig, sig_len);
    char *tok = malloc(in_len + 2 + strlen(s64));
    sprintf(tok, "%s.%s", in, s64);
    free(hs), free(cs), free(h64), free(c64), free(in), free(s64);
    json_decref(h);
    return tok;
}

static char *sign(const struct tkey *k, json_t *claims) { return sign_as(k, NULL, NULL, claims); }

#define ISS "http://127.0.0.1:1/issuer"
#define AUD "https://memgate.example.com/mcp"

/* exp and iat from now (a test that checks times against its own `now` passes that one: a second
 * ticking between two reads of the clock moved exp past what it checked) */
static json_t *claims_at(int64_t now)
{
    return json_pack("{s:s, s:s, s:s, s:I, s:I, s:s, s:s, s:[s,s]}", "iss", ISS, "sub", "alice", "aud", AUD, "exp",
                     (json_int_t)(now + 300), "iat", (json_int_t)now, "scope", "openid memgate:write",
                     "memgate_tenant", "acme", "memgate_repos", "api-1", "web-2");
}

static json_t *claims_ok(void) { return claims_at((int64_t)time(NULL)); }

static void cfg_for(struct mg_config *c, const char *issuer)
{
    mg_t_config_defaults(c);
    snprintf(c->oauth_issuer, sizeof(c->oauth_issuer), "%s", issuer);
    snprintf(c->oauth_resource, sizeof(c->oauth_resource), "%s", AUD);
}

/* ---- 2. a loopback provider: discovery and jwks_uri ----------------------------------- */

static struct {
    struct MHD_Daemon *d;
    int port;
    pthread_mutex_t mu;
    char *jwks;         /* what jwks_uri answers */
    int jwks_fetches;   /* how often it was asked */
    char issuer[128];
} op = {.mu = PTHREAD_MUTEX_INITIALIZER};

static enum MHD_Result op_answer(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                 const char *version, const char *data, size_t *size, void **con_cls)
{
    (void)cls, (void)method, (void)version, (void)data, (void)size, (void)con_cls;
    char *body = NULL;
    int status = 200;
    pthread_mutex_lock(&op.mu);
    if (strcmp(url, "/issuer/.well-known/openid-configuration") == 0) {
        json_t *j = json_pack("{s:s, s:s}", "issuer", op.issuer, "jwks_uri", "");
        char u[200];
        snprintf(u, sizeof(u), "http://127.0.0.1:%d/issuer/jwks", op.port);
        json_object_set_new(j, "jwks_uri", json_string(u));
        body = json_dumps(j, JSON_COMPACT);
        json_decref(j);
    } else if (strcmp(url, "/issuer/jwks") == 0) {
        op.jwks_fetches++;
        body = strdup(op.jwks ? op.jwks : "{}");
    } else {
        body = strdup("{}"), status = 404;
    }
    pthread_mutex_unlock(&op.mu);
    struct MHD_Response *r = MHD_create_response_from_buffer(strlen(body), body, MHD_RESPMEM_MUST_FREE);
    MHD_add_response_header(r, "Content-Type", "application/json");
    enum MHD_Result rc = MHD_queue_response(c, (unsigned)status, r);
    MHD_destroy_response(r);
    return rc;
}

static void op_start(void)
{
    if (op.d) return;
    op.d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION, 0, NULL, NULL,
                            op_answer, NULL, MHD_OPTION_END);
    ASSERT(op.d != NULL);
    op.port = MHD_get_daemon_info(op.d, MHD_DAEMON_INFO_BIND_PORT)->port;
    snprintf(op.issuer, sizeof(op.issuer), "http://127.0.0.1:%d/issuer", op.port);
}

static void op_keys(const struct tkey *keys, size_t n)
{
    char *t = jwks_text(keys, n);
    pthread_mutex_lock(&op.mu);
    free(op.jwks);
    op.jwks = t;
    pthread_mutex_unlock(&op.mu);
}

static int op_fetches(void)
{
    pthread_mutex_lock(&op.mu);
    int n = op.jwks_fetches;
    pthread_mutex_unlock(&op.mu);
    return n;
}

/* ---- 3. parsing and signatures --------------------------------------------------------- */

/* The code of verifying tok against the key set text. */
static const char *verify_code(const char *tok, const char *jwks)
{
    static char code[64];
    struct mg_err err = {0};
    struct mg_jwt t;
    struct mg_jwks *ks = NULL;
    if (mg_jwks_parse(jwks, strlen(jwks), &ks, &err) != 0) FAIL("key set: %s", err.msg);
    int rc = mg_jwt_parse(tok, strlen(tok), &t, &err);
    if (rc == 0) rc = mg_jwt_verify(&t, ks, &err);
    if (rc == 0) snprintf(code, sizeof(code), "ok");
    else snprintf(code, sizeof(code), "%s", err.code ? err.code : "?");
    if (rc == 0) mg_jwt_release(&t);
    else if (t.header) mg_jwt_release(&t);
    mg_jwks_free(&ks);
    return code;
}

TEST(oauth_jwt_signatures_and_refusals)
{
    struct tkey keys[3] = {rsa_key("r1"), ec_key("e1"), ed_key("d1")};
    char *set = jwks_text(keys, 3);
    json_t *cl = claims_ok();
    for (int i = 0; i < 3; i++) {
        char *tok = sign(&keys[i], cl);
        ASSERT_EQ_STR(verify_code(tok, set), "ok");
        /* another payload under this signature (sub changed): it no longer holds */
        json_t *cl2 = json_deep_copy(cl);
        json_object_set_new(cl2, "sub", json_string("mallory"));
        char *tok2 = sign(&keys[i], cl2);
        char *d1 = strchr(tok, '.'), *d2 = strchr(d1 + 1, '.'), *e1 = strchr(tok2, '.'), *e2 = strchr(e1 + 1, '.');
        char spliced[8192];
        snprintf(spliced, sizeof(spliced), "%.*s%s", (int)(e2 - tok2), tok2, d2);
        ASSERT_EQ_STR(verify_code(spliced, set), MG_E_TOKEN_SIGNATURE);
        free(tok), free(tok2);
        json_decref(cl2);
    }
    /* alg none, with an empty or a made-up signature */
    char *tok = sign_as(&keys[0], "none", NULL, cl);
    ASSERT_EQ_STR(verify_code(tok, set), MG_E_TOKEN_ALG);
    free(tok);
    /* HS256 with the RSA public key's kid (the classic confusion: the public key as an HMAC secret) is
     * refused by its alg alone, before any key is looked at, whatever its signature bytes */
    tok = sign_as(&keys[0], "HS256", NULL, cl);
    ASSERT_EQ_STR(verify_code(tok, set), MG_E_TOKEN_ALG);
    free(tok);
    /* the EC key's kid on an RS256 token: the key is not for that alg */
    tok = sign_as(&keys[0], NULL, "e1", cl);
    ASSERT_EQ_STR(verify_code(tok, set), MG_E_TOKEN_ALG);
    free(tok);
    /* a kid nobody published */
    struct tkey other = rsa_key("r9");
    tok = sign(&other, cl);
    ASSERT_EQ_STR(verify_code(tok, set), MG_E_TOKEN_KEY);
    free(tok);
    /* a key of the same kid but another key pair: the signature fails */
    other.kid = "r1";
    tok = sign(&other, cl);
    ASSERT_EQ_STR(verify_code(tok, set), MG_E_TOKEN_SIGNATURE);
    free(tok);
    /* malformed and oversized tokens */
    ASSERT_EQ_STR(verify_code("abc", set), MG_E_TOKEN_INVALID);
    ASSERT_EQ_STR(verify_code("a.b.c.d", set), MG_E_TOKEN_INVALID);
    ASSERT_EQ_STR(verify_code("e30.e30.", set), MG_E_TOKEN_INVALID);   /* {} {}: no alg */
    ASSERT_EQ_STR(verify_code("W10.e30.AA", set), MG_E_TOKEN_INVALID); /* [] is no header */
    char *big = malloc(MG_JWT_MAX + 10);
    memset(big, 'A', MG_JWT_MAX + 9);
    big[10] = '.', big[20] = '.', big[MG_JWT_MAX + 9] = 0;
    ASSERT_EQ_STR(verify_code(big, set), MG_E_TOKEN_INVALID);
    free(big);
    json_decref(cl);
    free(set);
    EVP_PKEY_free(other.pk);
    for (int i = 0; i < 3; i++) EVP_PKEY_free(keys[i].pk);
}

TEST(oauth_jwks_parse)
{
    struct mg_err err = {0};
    struct mg_jwks *ks = NULL;
    /* a private key, an encryption key, a short RSA key, an unknown curve: none usable */
    struct tkey r = rsa_key("r1");
    json_t *good = jwk(&r);
    json_t *priv = json_deep_copy(good), *enc = json_deep_copy(good);
    json_object_set_new(priv, "d", json_string("AAAA"));
    json_object_set_new(priv, "kid", json_string("p"));
    json_object_set_new(enc, "use", json_string("enc"));
    json_t *shortk = json_pack("{s:s, s:s, s:s, s:s}", "kty", "RSA", "kid", "s", "n", "AQAB", "e", "AQAB");
    json_t *curve = json_pack("{s:s, s:s, s:s, s:s}", "kty", "EC", "crv", "P-521", "x", "AA", "y", "AA");
    json_t *set = json_pack("{s:[O,O,O,O]}", "keys", priv, enc, shortk, curve);
    char *txt = json_dumps(set, JSON_COMPACT);
    ASSERT_EQ_INT(mg_jwks_parse(txt, strlen(txt), &ks, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_OAUTH_UNAVAILABLE);
    free(txt);
    json_array_append(json_object_get(set, "keys"), good);
    txt = json_dumps(set, JSON_COMPACT);
    ASSERT_EQ_INT(mg_jwks_parse(txt, strlen(txt), &ks, &err), 0);
    ASSERT_EQ_INT((int)mg_jwks_count(ks), 1);
    mg_jwks_free(&ks);
    ASSERT(ks == NULL);
    free(txt);
    ASSERT_EQ_INT(mg_jwks_parse("[1]", 3, &ks, &err), -1);
    ASSERT_EQ_INT(mg_jwks_parse("{\"keys\":", 8, &ks, &err), -1);
    char *big = calloc(1, MG_JWKS_MAX + 2);
    memset(big, ' ', MG_JWKS_MAX + 1);
    ASSERT_EQ_INT(mg_jwks_parse(big, MG_JWKS_MAX + 1, &ks, &err), -1);
    ASSERT_CONTAINS(err.msg, "at most");
    free(big);
    json_decref(set), json_decref(good), json_decref(priv), json_decref(enc), json_decref(shortk), json_decref(curve);
    EVP_PKEY_free(r.pk);
}

/* ---- 4. claims ---------------------------------------------------------------------- */

static const char *claims_code(const struct mg_config *c, json_t *cl, int64_t now, struct mg_principal *p)
{
    static char code[64];
    struct mg_err err = {0};
    struct mg_principal tmp;
    if (!p) p = &tmp;
    int rc = mg_oauth_claims(c, cl, now, p, &err);
    snprintf(code, sizeof(code), "%s", rc == 0 ? "ok" : err.code);
    if (p == &tmp && rc == 0) mg_principal_release(p);
    json_decref(cl);
    return code;
}

TEST(oauth_claims)
{
    struct mg_config c;
    cfg_for(&c, ISS);
    int64_t now = (int64_t)time(NULL);
    struct mg_principal p;
    ASSERT_EQ_STR(claims_code(&c, claims_ok(), now, &p), "ok");
    ASSERT_EQ_STR(p.tenant, "acme");
    ASSERT_EQ_INT(p.level, MG_LEVEL_WRITE);
    ASSERT_EQ_INT((int)p.nrepos, 2);
    ASSERT_EQ_STR(p.repos[1], "web-2");
    ASSERT(strncmp(p.token_id, "jwt_", 4) == 0 && strlen(p.token_id) == 20);
    char id[48];
    snprintf(id, sizeof(id), "%s", p.token_id);
    mg_principal_release(&p);
    /* the same subject, the same id; another subject, another */
    json_t *cl = claims_ok();
    json_object_set_new(cl, "jti", json_string("other-token"));
    ASSERT_EQ_STR(claims_code(&c, cl, now, &p), "ok");
    ASSERT_EQ_STR(p.token_id, id);
    mg_principal_release(&p);
    cl = claims_ok();
    json_object_set_new(cl, "sub", json_string("bob"));
    ASSERT_EQ_STR(claims_code(&c, cl, now, &p), "ok");
    ASSERT(strcmp(p.token_id, id) != 0);
    mg_principal_release(&p);
    /* audience: a string or an array naming us; anything else is refused */
    cl = claims_ok();
    json_object_set_new(cl, "aud", json_pack("[s,s]", "https://other.example.com", AUD));
    ASSERT_EQ_STR(claims_code(&c, cl, now, NULL), "ok");
    cl = claims_ok();
    json_object_set_new(cl, "aud", json_string("https://memgate.example.com/mcp2"));
    ASSERT_EQ_STR(claims_code(&c, cl, now, NULL), MG_E_TOKEN_AUDIENCE);
    cl = claims_ok();
    json_object_del(cl, "aud");
    ASSERT_EQ_STR(claims_code(&c, cl, now, NULL), MG_E_TOKEN_AUDIENCE);
    cl = claims_ok();
    json_object_set_new(cl, "iss", json_string(ISS "/"));
    ASSERT_EQ_STR(claims_code(&c, cl, now, NULL), MG_E_TOKEN_ISSUER);
    /* time: exp within the skew passes, past it fails; nbf and iat in the future likewise */
    ASSERT_EQ_STR(claims_code(&c, claims_at(now), now + 300 + 59, NULL), "ok");
    ASSERT_EQ_STR(claims_code(&c, claims_at(now), now + 300 + 60, NULL), MG_E_TOKEN_EXPIRED);
    c.oauth_clock_skew = 0;
    ASSERT_EQ_STR(claims_code(&c, claims_at(now), now + 300, NULL), MG_E_TOKEN_EXPIRED);
    ASSERT_EQ_STR(claims_code(&c, claims_at(now), now - 1, NULL), MG_E_TOKEN_CLAIMS); /* iat is in the future */
    c.oauth_clock_skew = 60;
    cl = claims_ok();
    json_object_set_new(cl, "nbf", json_integer((json_int_t)now + 100));
    ASSERT_EQ_STR(claims_code(&c, cl, now, NULL), MG_E_TOKEN_CLAIMS);
    cl = claims_ok();
    json_object_del(cl, "exp");
    ASSERT_EQ_STR(claims_code(&c, cl, now, NULL), MG_E_TOKEN_CLAIMS);
    cl = claims_ok();
    json_object_set_new(cl, "exp", json_string("tomorrow"));
    ASSERT_EQ_STR(claims_code(&c, cl, now, NULL), MG_E_TOKEN_CLAIMS);
    /* tenant: the claim, else oauth_tenant, else refused; a bad name is refused */
    cl = claims_ok();
    json_object_del(cl, "memgate_tenant");
    ASSERT_EQ_STR(claims_code(&c, cl, now, NULL), MG_E_TOKEN_CLAIMS);
    snprintf(c.oauth_tenant, sizeof(c.oauth_tenant), "team");
    cl = claims_ok();
    json_object_del(cl, "memgate_tenant");
    ASSERT_EQ_STR(claims_code(&c, cl, now, &p), "ok");
    ASSERT_EQ_STR(p.tenant, "team");
    mg_principal_release(&p);
    cl = claims_ok();
    json_object_set_new(cl, "memgate_tenant", json_string("../etc"));
    ASSERT_EQ_STR(claims_code(&c, cl, now, NULL), MG_E_TOKEN_CLAIMS);
    /* scopes: the highest wins, scp arrays count, none gives level 0 */
    cl = claims_ok();
    json_object_set_new(cl, "scope", json_string("memgate:read memgate:admin"));
    ASSERT_EQ_STR(claims_code(&c, cl, now, &p), "ok");
    ASSERT_EQ_INT(p.level, MG_LEVEL_ADMIN);
    mg_principal_release(&p);
    cl = claims_ok();
    json_object_del(cl, "scope");
    json_object_set_new(cl, "scp", json_pack("[s]", "memgate:read"));
    ASSERT_EQ_STR(claims_code(&c, cl, now, &p), "ok");
    ASSERT_EQ_INT(p.level, MG_LEVEL_READ);
    mg_principal_release(&p);
    cl = claims_ok();
    json_object_set_new(cl, "scope", json_string("openid memgate:readx"));
    ASSERT_EQ_STR(claims_code(&c, cl, now, &p), "ok");
    ASSERT_EQ_INT(p.level, 0);
    mg_principal_release(&p);
    /* repos: a string list, absent = all, empty = refused */
    cl = claims_ok();
    json_object_set_new(cl, "memgate_repos", json_string("a, b c"));
    ASSERT_EQ_STR(claims_code(&c, cl, now, &p), "ok");
    ASSERT_EQ_INT((int)p.nrepos, 3);
    mg_principal_release(&p);
    cl = claims_ok();
    json_object_del(cl, "memgate_repos");
    ASSERT_EQ_STR(claims_code(&c, cl, now, &p), "ok");
    ASSERT_EQ_INT((int)p.nrepos, 0);
    mg_principal_release(&p);
    cl = claims_ok();
    json_object_set_new(cl, "memgate_repos", json_array());
    ASSERT_EQ_STR(claims_code(&c, cl, now, NULL), MG_E_TOKEN_CLAIMS);
}

TEST(oauth_settings_and_metadata)
{
    struct mg_config c;
    struct mg_oauth *o = NULL;
    struct mg_err err = {0};
    mg_t_config_defaults(&c);
    ASSERT_EQ_INT(mg_oauth_new(&c, &o, &err), 0);
    ASSERT(o == NULL); /* off */
    snprintf(c.oauth_issuer, sizeof(c.oauth_issuer), "https://id.example.com");
    ASSERT_EQ_INT(mg_oauth_new(&c, &o, &err), -1);
    ASSERT_CONTAINS(err.msg, "oauth_resource");
    snprintf(c.oauth_resource, sizeof(c.oauth_resource), "http://memgate.example.com/mcp");
    ASSERT_EQ_INT(mg_oauth_new(&c, &o, &err), -1); /* plain http off loopback */
    snprintf(c.oauth_resource, sizeof(c.oauth_resource), "https://memgate.example.com/mcp");
    snprintf(c.oauth_issuer, sizeof(c.oauth_issuer), "http://id.example.com");
    ASSERT_EQ_INT(mg_oauth_new(&c, &o, &err), -1);
    snprintf(c.oauth_issuer, sizeof(c.oauth_issuer), "https://id.example.com/realms/x");
    ASSERT_EQ_INT(mg_oauth_new(&c, &o, &err), 0);
    ASSERT(o != NULL);
    ASSERT_EQ_STR(mg_oauth_metadata_url(o), "https://memgate.example.com/.well-known/oauth-protected-resource/mcp");
    ASSERT(mg_oauth_is_metadata_path(o, "/.well-known/oauth-protected-resource"));
    ASSERT(mg_oauth_is_metadata_path(o, "/.well-known/oauth-protected-resource/mcp"));
    ASSERT(!mg_oauth_is_metadata_path(o, "/.well-known/oauth-protected-resource/other"));
    json_t *m = mg_oauth_metadata(o);
    ASSERT_EQ_STR(json_string_value(json_object_get(m, "resource")), "https://memgate.example.com/mcp");
    ASSERT_EQ_STR(json_string_value(json_array_get(json_object_get(m, "authorization_servers"), 0)),
                  "https://id.example.com/realms/x");
    json_decref(m);
    mg_oauth_free(&o);
    ASSERT(o == NULL);
}

/* ---- 5. the verifier: discovery, cache, rotation ---------------------------------------- */

static const char *check_code(struct mg_oauth *o, const char *tok, struct mg_principal *p)
{
    static char code[64];
    struct mg_err err = {0};
    struct mg_principal tmp;
    if (!p) p = &tmp;
    int rc = mg_oauth_check(o, tok, strlen(tok), p, &err);
    snprintf(code, sizeof(code), "%s", rc == 0 ? "ok" : err.code);
    if (p == &tmp && rc == 0) mg_principal_release(p);
    return code;
}

TEST(oauth_verifier_discovery_cache_rotation)
{
    op_start();
    struct tkey k1 = ec_key("k1"), k2 = rsa_key("k2"), stranger = ec_key("zz");
    op_keys(&k1, 1);
    struct mg_config c;
    cfg_for(&c, op.issuer);
    struct mg_oauth *o = NULL;
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_oauth_new(&c, &o, &err), 0);
    ASSERT_EQ_INT(op_fetches(), 0); /* nothing fetched before the first token */
    json_t *cl = claims_ok();
    json_object_set_new(cl, "iss", json_string(op.issuer));
    char *t1 = sign(&k1, cl), *t2 = sign(&k2, cl), *tz = sign(&stranger, cl);
    struct mg_principal p;
    /* SSRF: a provider on loopback is not even connected to unless oauth_fetch_private = on */
    ASSERT_EQ_STR(check_code(o, t1, NULL), MG_E_OAUTH_UNAVAILABLE);
    ASSERT_EQ_INT(op_fetches(), 0);
    mg_oauth_free(&o);
    snprintf(c.oauth_fetch_private, sizeof(c.oauth_fetch_private), "on");
    ASSERT_EQ_INT(mg_oauth_new(&c, &o, &err), 0);
    ASSERT_EQ_STR(check_code(o, t1, &p), "ok");
    ASSERT_EQ_STR(p.tenant, "acme");
    mg_principal_release(&p);
    ASSERT_EQ_INT(op_fetches(), 1);
    for (int i = 0; i < 5; i++) ASSERT_EQ_STR(check_code(o, t1, NULL), "ok");
    ASSERT_EQ_INT(op_fetches(), 1); /* cached */
    /* the provider rotates to k2 (k1 still published): an unknown kid refetches */
    struct tkey both[2] = {k1, k2};
    op_keys(both, 2);
    ASSERT_EQ_STR(check_code(o, t2, NULL), "ok");
    ASSERT_EQ_INT(op_fetches(), 2);
    /* a kid it never published: refused, and no refetch within MG_OAUTH_REFETCH_S of the last */
    for (int i = 0; i < 20; i++) ASSERT_EQ_STR(check_code(o, tz, NULL), MG_E_TOKEN_KEY);
    ASSERT_EQ_INT(op_fetches(), 2);
    /* the provider goes down: the keys held stay in use */
    MHD_stop_daemon(op.d);
    op.d = NULL;
    ASSERT_EQ_STR(check_code(o, t2, NULL), "ok");
    mg_oauth_free(&o);
    /* a fresh verifier with the provider down: oauth_unavailable (a 503, not a 401) */
    ASSERT_EQ_INT(mg_oauth_new(&c, &o, &err), 0);
    ASSERT_EQ_STR(check_code(o, t1, NULL), MG_E_OAUTH_UNAVAILABLE);
    mg_oauth_free(&o);
    free(t1), free(t2), free(tz);
    json_decref(cl);
    EVP_PKEY_free(k1.pk), EVP_PKEY_free(k2.pk), EVP_PKEY_free(stranger.pk);
}

TEST(oauth_outbound_addresses_public_only)
{
    static const struct { const char *a; bool pub; } cases[] = {
        {"93.184.216.34", true}, {"8.8.8.8", true}, {"2606:4700::1111", true},
        {"127.0.0.1", false}, {"127.9.9.9", false}, {"10.1.2.3", false}, {"172.16.0.1", false},
        {"172.31.255.255", false}, {"172.32.0.1", true}, {"192.168.1.1", false}, {"169.254.169.254", false},
        {"100.64.0.1", false}, {"0.0.0.0", false}, {"224.0.0.1", false}, {"255.255.255.255", false},
        {"192.0.2.1", false}, {"::1", false}, {"::", false}, {"fe80::1", false}, {"fd00::1", false},
        {"fc00::1", false}, {"ff02::1", false}, {"::ffff:127.0.0.1", false}, {"::ffff:8.8.8.8", true},
        {"64:ff9b::a00:1", false}, {"2002:a9fe:a9fe::1", false}, {"2001:db8::1", false},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct sockaddr_storage ss = {0};
        if (strchr(cases[i].a, ':')) {
            struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
            s6->sin6_family = AF_INET6;
            ASSERT_EQ_INT(inet_pton(AF_INET6, cases[i].a, &s6->sin6_addr), 1);
        } else {
            struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
            s4->sin_family = AF_INET;
            ASSERT_EQ_INT(inet_pton(AF_INET, cases[i].a, &s4->sin_addr), 1);
        }
        const char *what = NULL;
        if (mg_addr_public((struct sockaddr *)&ss, &what) != cases[i].pub) FAIL("%s: %s", cases[i].a, what);
    }
}
