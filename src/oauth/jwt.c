/* jwt.c — JWT and JWK set parsing, signature checks (see jwt.h).
 *
 * Sections:
 *   1. base64url and the token's three parts
 *   2. keys: JWK -> an OpenSSL public key (RSA, EC P-256/P-384, Ed25519)
 *   3. the key set
 *   4. signatures
 */
#include "oauth/jwt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <sodium.h>

/* ---- 1. base64url and the token's three parts ------------------------------ */

/* Decode s[0..n) (base64url, no padding) into a new buffer; NULL on bad input. */
static unsigned char *b64url(const char *s, size_t n, size_t *out_len)
{
    unsigned char *b = malloc(n / 4 * 3 + 3);
    if (!b) return NULL;
    const char *end = NULL;
    if (sodium_base642bin(b, n / 4 * 3 + 3, s, n, NULL, out_len, &end, sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0 ||
        end != s + n) {
        free(b);
        return NULL;
    }
    return b;
}

static json_t *b64url_json(const char *s, size_t n)
{
    size_t len = 0;
    unsigned char *b = b64url(s, n, &len);
    if (!b) return NULL;
    json_t *j = json_loadb((const char *)b, len, JSON_REJECT_DUPLICATES, NULL);
    free(b);
    if (j && !json_is_object(j)) json_decref(j), j = NULL;
    return j;
}

/* The algorithms memgate verifies; everything else is refused by name. */
static const char *const algs[] = {"RS256", "RS384", "RS512", "ES256", "ES384", "EdDSA", NULL};

static bool alg_known(const char *alg)
{
    for (const char *const *a = algs; *a; a++)
        if (strcmp(alg, *a) == 0) return true;
    return false;
}

int mg_jwt_parse(const char *tok, size_t len, struct mg_jwt *out, struct mg_err *err)
{
    memset(out, 0, sizeof(*out));
    if (len > MG_JWT_MAX)
        return mg_err_set(err, MG_E_TOKEN_INVALID, "the token is %zu bytes; at most %u are accepted", len,
                          MG_JWT_MAX);
    const char *d1 = memchr(tok, '.', len);
    const char *d2 = d1 ? memchr(d1 + 1, '.', len - (size_t)(d1 + 1 - tok)) : NULL;
    if (!d2 || memchr(d2 + 1, '.', len - (size_t)(d2 + 1 - tok)))
        return mg_err_set(err, MG_E_TOKEN_INVALID, "the token is neither a memgate token nor a JWT (three "
                                                   "base64url parts joined by dots)");
    out->header = b64url_json(tok, (size_t)(d1 - tok));
    out->claims = out->header ? b64url_json(d1 + 1, (size_t)(d2 - d1 - 1)) : NULL;
    if (!out->claims) {
        mg_jwt_release(out);
        return mg_err_set(err, MG_E_TOKEN_INVALID, "the JWT's header or payload is not base64url-encoded JSON");
    }
    out->alg = json_string_value(json_object_get(out->header, "alg"));
    const char *kid = json_string_value(json_object_get(out->header, "kid"));
    out->kid = kid;
    if (!out->alg) {
        mg_jwt_release(out);
        return mg_err_set(err, MG_E_TOKEN_INVALID, "the JWT's header has no alg");
    }
    if (!alg_known(out->alg)) {
        int r = mg_err_set(err, MG_E_TOKEN_ALG,
                           "the JWT's alg '%.16s' is refused: only RS256, RS384, RS512, ES256, ES384 and EdDSA "
                           "signatures of the provider's published keys are accepted",
                           out->alg);
        mg_jwt_release(out);
        return r;
    }
    if (json_object_get(out->header, "crit")) {
        mg_jwt_release(out);
        return mg_err_set(err, MG_E_TOKEN_INVALID, "the JWT's header has critical extensions (crit) memgate does "
                                                   "not understand");
    }
    out->signed_len = (size_t)(d2 - tok);
    out->input = malloc(out->signed_len + 1);
    if (!out->input) {
        mg_jwt_release(out);
        return mg_err_oom(err);
    }
    memcpy(out->input, tok, out->signed_len);
    out->input[out->signed_len] = 0;
    out->sig = b64url(d2 + 1, len - out->signed_len - 1, &out->sig_len);
    if (!out->sig || out->sig_len == 0) {
        mg_jwt_release(out);
        return mg_err_set(err, MG_E_TOKEN_INVALID, "the JWT's signature is missing or not base64url");
    }
    return 0;
}

void mg_jwt_release(struct mg_jwt *t)
{
    json_decref(t->header);
    json_decref(t->claims);
    free(t->sig);
    free(t->input);
    memset(t, 0, sizeof(*t));
}

/* ---- 2. keys: JWK -> an OpenSSL public key --------------------------------- */

enum kty { K_RSA, K_EC256, K_EC384, K_ED25519 };

struct key {
    char kid[128];
    char alg[16];                /* the key's own alg, "" when it states none */
    enum kty kty;
    EVP_PKEY *pk;
};

struct mg_jwks {
    size_t n;
    struct key v[MG_JWKS_KEYS_MAX];
};

/* A base64url member of a JWK, decoded; NULL when absent or malformed or
 * longer than cap bytes decoded. */
static unsigned char *member(json_t *jwk, const char *name, size_t cap, size_t *n)
{
    const char *s = json_string_value(json_object_get(jwk, name));
    if (!s || strlen(s) > cap / 3 * 4 + 4) return NULL;
    return b64url(s, strlen(s), n);
}

static EVP_PKEY *from_params(const char *type, OSSL_PARAM_BLD *bld)
{
    EVP_PKEY *pk = NULL;
    OSSL_PARAM *params = OSSL_PARAM_BLD_to_param(bld);
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, type, NULL);
    if (params && ctx && EVP_PKEY_fromdata_init(ctx) > 0) EVP_PKEY_fromdata(ctx, &pk, EVP_PKEY_PUBLIC_KEY, params);
    EVP_PKEY_CTX_free(ctx);
    OSSL_PARAM_free(params);
    return pk;
}

static EVP_PKEY *rsa_key(json_t *jwk)
{
    size_t nn = 0, ne = 0;
    unsigned char *n = member(jwk, "n", 1024, &nn), *e = member(jwk, "e", 8, &ne);
    EVP_PKEY *pk = NULL;
    BIGNUM *bn = n ? BN_bin2bn(n, (int)nn, NULL) : NULL, *be = e ? BN_bin2bn(e, (int)ne, NULL) : NULL;
    OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
    /* 2048 bits at least: shorter RSA keys are forgeable */
    if (bn && be && bld && BN_num_bits(bn) >= 2048 && OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, bn) &&
        OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, be))
        pk = from_params("RSA", bld);
    OSSL_PARAM_BLD_free(bld);
    BN_free(bn);
    BN_free(be);
    free(n);
    free(e);
    return pk;
}

static EVP_PKEY *ec_key(json_t *jwk, const char *group, size_t coord)
{
    size_t nx = 0, ny = 0;
    unsigned char *x = member(jwk, "x", coord, &nx), *y = member(jwk, "y", coord, &ny);
    EVP_PKEY *pk = NULL;
    unsigned char pt[1 + 2 * 48];
    OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
    if (x && y && nx == coord && ny == coord && bld) {
        pt[0] = 4; /* an uncompressed point: 04 || x || y; fromdata checks it is on the curve */
        memcpy(pt + 1, x, coord);
        memcpy(pt + 1 + coord, y, coord);
        if (OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, group, 0) &&
            OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, pt, 1 + 2 * coord))
            pk = from_params("EC", bld);
    }
    OSSL_PARAM_BLD_free(bld);
    free(x);
    free(y);
    return pk;
}

static EVP_PKEY *ed_key(json_t *jwk)
{
    size_t nx = 0;
    unsigned char *x = member(jwk, "x", 32, &nx);
    EVP_PKEY *pk = x && nx == 32 ? EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, x, 32) : NULL;
    free(x);
    return pk;
}

/* One JWK into k; false when it is not a public signing key memgate uses. */
static bool load_key(json_t *jwk, struct key *k)
{
    const char *kty = json_string_value(json_object_get(jwk, "kty"));
    const char *use = json_string_value(json_object_get(jwk, "use"));
    const char *kid = json_string_value(json_object_get(jwk, "kid"));
    const char *alg = json_string_value(json_object_get(jwk, "alg"));
    if (!kty || (use && strcmp(use, "sig") != 0) || json_object_get(jwk, "d")) return false; /* never a private key */
    if ((kid && strlen(kid) >= sizeof(k->kid)) || (alg && strlen(alg) >= sizeof(k->alg))) return false;
    memset(k, 0, sizeof(*k));
    snprintf(k->kid, sizeof(k->kid), "%s", kid ? kid : "");
    snprintf(k->alg, sizeof(k->alg), "%s", alg ? alg : "");
    const char *crv = json_string_value(json_object_get(jwk, "crv"));
    if (strcmp(kty, "RSA") == 0) k->kty = K_RSA, k->pk = rsa_key(jwk);
    else if (strcmp(kty, "EC") == 0 && crv && strcmp(crv, "P-256") == 0) k->kty = K_EC256, k->pk = ec_key(jwk, "P-256", 32);
    else if (strcmp(kty, "EC") == 0 && crv && strcmp(crv, "P-384") == 0) k->kty = K_EC384, k->pk = ec_key(jwk, "P-384", 48);
    else if (strcmp(kty, "OKP") == 0 && crv && strcmp(crv, "Ed25519") == 0) k->kty = K_ED25519, k->pk = ed_key(jwk);
    return k->pk != NULL;
}

/* ---- 3. the key set ---------------------------------------------------------- */

int mg_jwks_parse(const char *text, size_t len, struct mg_jwks **out, struct mg_err *err)
{
    *out = NULL;
    if (len > MG_JWKS_MAX)
        return mg_err_set(err, MG_E_OAUTH_UNAVAILABLE, "the provider's key set is %zu bytes; at most %u are accepted",
                          len, MG_JWKS_MAX);
    json_error_t je;
    json_t *j = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    json_t *keys = json_object_get(j, "keys");
    if (!json_is_array(keys)) {
        json_decref(j);
        return mg_err_set(err, MG_E_OAUTH_UNAVAILABLE, "the provider's key set is not a JWK set ({\"keys\": [...]})");
    }
    struct mg_jwks *ks = calloc(1, sizeof(*ks));
    if (!ks) {
        json_decref(j);
        return mg_err_oom(err);
    }
    size_t i;
    json_t *jwk;
    json_array_foreach(keys, i, jwk) {
        if (ks->n == MG_JWKS_KEYS_MAX) break;
        if (json_is_object(jwk) && load_key(jwk, &ks->v[ks->n])) ks->n++;
    }
    json_decref(j);
    if (!ks->n) {
        free(ks);
        return mg_err_set(err, MG_E_OAUTH_UNAVAILABLE, "the provider's key set holds no public signing key memgate "
                                                       "can use (RSA of 2048 bits or more, EC P-256 or P-384, Ed25519)");
    }
    *out = ks;
    return 0;
}

void mg_jwks_free(struct mg_jwks **ks)
{
    if (!*ks) return;
    for (size_t i = 0; i < (*ks)->n; i++) EVP_PKEY_free((*ks)->v[i].pk);
    free(*ks);
    *ks = NULL;
}

size_t mg_jwks_count(const struct mg_jwks *ks) { return ks ? ks->n : 0; }

/* Is key k for alg? */
static bool fits(const struct key *k, const char *alg)
{
    if (k->alg[0] && strcmp(k->alg, alg) != 0) return false;
    switch (k->kty) {
    case K_RSA: return strncmp(alg, "RS", 2) == 0;
    case K_EC256: return strcmp(alg, "ES256") == 0;
    case K_EC384: return strcmp(alg, "ES384") == 0;
    case K_ED25519: return strcmp(alg, "EdDSA") == 0;
    }
    return false;
}

static const struct key *find(const struct mg_jwks *ks, const char *kid, size_t from)
{
    for (size_t i = from; ks && i < ks->n; i++)
        if (!kid || strcmp(ks->v[i].kid, kid) == 0) return &ks->v[i];
    return NULL;
}

bool mg_jwks_has(const struct mg_jwks *ks, const struct mg_jwt *t)
{
    for (size_t i = 0; ks && i < ks->n; i++)
        if (t->kid ? strcmp(ks->v[i].kid, t->kid) == 0 : fits(&ks->v[i], t->alg)) return true;
    return false;
}

/* ---- 4. signatures ------------------------------------------------------------- */

/* JWS's ECDSA signature is r || s, each coord bytes; OpenSSL wants DER. */
static unsigned char *ecdsa_der(const unsigned char *sig, size_t len, size_t coord, size_t *der_len)
{
    if (len != 2 * coord) return NULL;
    ECDSA_SIG *es = ECDSA_SIG_new();
    BIGNUM *r = BN_bin2bn(sig, (int)coord, NULL), *s = BN_bin2bn(sig + coord, (int)coord, NULL);
    unsigned char *der = NULL;
    if (es && r && s && ECDSA_SIG_set0(es, r, s) == 1) {
        r = s = NULL; /* es owns them */
        int n = i2d_ECDSA_SIG(es, &der);
        *der_len = n > 0 ? (size_t)n : 0;
        if (n <= 0) der = NULL;
    }
    BN_free(r);
    BN_free(s);
    ECDSA_SIG_free(es);
    return der;
}

static bool verify_with(const struct key *k, const struct mg_jwt *t)
{
    const EVP_MD *md = NULL;
    if (strcmp(t->alg, "RS256") == 0 || strcmp(t->alg, "ES256") == 0) md = EVP_sha256();
    else if (strcmp(t->alg, "RS384") == 0 || strcmp(t->alg, "ES384") == 0) md = EVP_sha384();
    else if (strcmp(t->alg, "RS512") == 0) md = EVP_sha512();
    const unsigned char *sig = t->sig;
    size_t sig_len = t->sig_len;
    unsigned char *der = NULL;
    if (k->kty == K_EC256 || k->kty == K_EC384) {
        der = ecdsa_der(t->sig, t->sig_len, k->kty == K_EC256 ? 32 : 48, &sig_len);
        if (!der) return false;
        sig = der;
    }
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    bool ok = ctx && EVP_DigestVerifyInit(ctx, NULL, md, NULL, k->pk) == 1 &&
              EVP_DigestVerify(ctx, sig, sig_len, (const unsigned char *)t->input, t->signed_len) == 1;
    EVP_MD_CTX_free(ctx);
    OPENSSL_free(der);
    return ok;
}

int mg_jwt_verify(const struct mg_jwt *t, const struct mg_jwks *ks, struct mg_err *err)
{
    bool any = false, fit = false;
    for (const struct key *k = find(ks, t->kid, 0); k; k = find(ks, t->kid, (size_t)(k - ks->v) + 1)) {
        any = true;
        if (!fits(k, t->alg)) continue;
        fit = true;
        if (verify_with(k, t)) return 0;
    }
    if (!any)
        return mg_err_set(err, MG_E_TOKEN_KEY, "the JWT names key '%.64s', which the provider does not publish",
                          t->kid ? t->kid : "(none)");
    if (!fit)
        return mg_err_set(err, MG_E_TOKEN_ALG, "the JWT's alg %s is not what its key '%.64s' is for", t->alg,
                          t->kid ? t->kid : "(none)");
    return mg_err_set(err, MG_E_TOKEN_SIGNATURE, "the JWT's signature does not verify");
}
