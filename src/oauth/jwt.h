/* jwt.h — JSON Web Tokens and JSON Web Key sets (RFC 7519, 7515, 7517, 7518,
 * 8037): the parsing and the signature check, nothing about who issued a
 * token (oauth.h decides that).
 *
 * Both parsers take hostile bytes: a token over MG_JWT_MAX or a key set over
 * MG_JWKS_MAX bytes is refused before anything is decoded; every failure is
 * an error code and a sentence, never a crash. Signatures: RS256, RS384,
 * RS512, ES256, ES384 and EdDSA (Ed25519), checked with OpenSSL's libcrypto
 * (libsodium has no RSA). A token whose alg is "none", an HMAC (HS*) or
 * anything else is refused (token_alg_refused) before any key is looked at:
 * the key set holds public keys only, so an HS256 token "signed" with a public
 * key never verifies. A key is used only for the algorithms of its type (and
 * its own "alg" when it states one).
 */
#ifndef MG_JWT_H
#define MG_JWT_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "util/err.h"

#define MG_JWT_MAX (8u << 10)    /* longest token accepted (a header line is at most 8 KiB anyway) */
#define MG_JWKS_MAX (64u << 10)  /* largest key set accepted */
#define MG_JWKS_KEYS_MAX 32      /* keys kept from one set; more are ignored */

/* A parsed token: its two JSON parts and what the signature covers. */
struct mg_jwt {
    json_t *header;              /* the JOSE header (owned) */
    json_t *claims;              /* the payload (owned) */
    const char *alg, *kid;       /* borrowed from header; kid NULL when absent */
    char *input;                 /* the signing input: header.payload as sent (owned) */
    size_t signed_len;           /* ... its length */
    unsigned char *sig;          /* the decoded signature (owned) */
    size_t sig_len;
};

/* Split and decode tok[0..len): three base64url parts, JSON objects for the
 * first two, alg a string. 0, or -1 with token_invalid (too long, malformed)
 * or token_alg_refused (none, HS*, unknown). out is left empty on failure. */
int mg_jwt_parse(const char *tok, size_t len, struct mg_jwt *out, struct mg_err *err);
void mg_jwt_release(struct mg_jwt *t);

struct mg_jwks; /* a key set: public keys by kid */

/* Parse a JWK set ({"keys": [...]}). Keys of other types or uses, private
 * parts and keys that do not decode are skipped (a provider may publish
 * encryption keys beside its signing keys); a set with no usable key is an
 * error too. 0 and *out, or -1 with oauth_unavailable (not JSON, over
 * MG_JWKS_MAX, no usable key: the provider's answer is unusable). Free with
 * mg_jwks_free. */
int mg_jwks_parse(const char *text, size_t len, struct mg_jwks **out, struct mg_err *err);
void mg_jwks_free(struct mg_jwks **ks);
/* How many keys it holds. */
size_t mg_jwks_count(const struct mg_jwks *ks);
/* Does it hold a key of this kid (NULL: any key fit for the token's alg)? */
bool mg_jwks_has(const struct mg_jwks *ks, const struct mg_jwt *t);

/* Check t's signature with the key its kid names (or, without a kid, with
 * each key fit for its alg). 0, or -1 with token_key_unknown (no such key),
 * token_alg_refused (the key is not for that alg) or token_bad_signature. */
int mg_jwt_verify(const struct mg_jwt *t, const struct mg_jwks *ks, struct mg_err *err);

#endif
