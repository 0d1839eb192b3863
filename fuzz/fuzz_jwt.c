/* fuzz_jwt.c — the OAuth token parsers (src/oauth/jwt.h, oauth.h): the
 * input is a token, a newline, then a JWK set. Each is parsed; a token that
 * parses is checked against the set (when that parses too) and its claims
 * turned into a principal. Nothing may crash or leak; a parsed token has an
 * alg memgate verifies, object parts and a signature; a principal has a valid
 * tenant and a level in range. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "oauth/jwt.h"
#include "oauth/oauth.h"
#include "security/common.h"

MG_FUZZ_TARGET(jwt)
{
    const char *nl = memchr(data, '\n', size);
    size_t tlen = nl ? (size_t)(nl - (const char *)data) : size;
    const char *keys = nl ? nl + 1 : "";
    size_t klen = nl ? size - tlen - 1 : 0;
    struct mg_err err = {0};
    struct mg_jwks *ks = NULL;
    if (mg_jwks_parse(keys, klen, &ks, &err) == 0 && mg_jwks_count(ks) == 0) abort();
    struct mg_jwt t;
    if (mg_jwt_parse((const char *)data, tlen, &t, &err) == 0) {
        if (!t.alg || !json_is_object(t.header) || !json_is_object(t.claims) || !t.sig || !t.sig_len) abort();
        if (t.signed_len >= tlen || memcmp(t.input, data, t.signed_len) != 0) abort();
        if (ks && mg_jwt_verify(&t, ks, &err) == 0 && !mg_jwks_has(ks, &t)) abort();
        static struct mg_config cfg;
        if (!cfg.oauth_issuer[0]) {
            mg_config_defaults(&cfg);
            strcpy(cfg.oauth_issuer, "https://id.example.com");
            strcpy(cfg.oauth_resource, "https://memgate.example.com/mcp");
        }
        struct mg_principal p;
        if (mg_oauth_claims(&cfg, t.claims, 1700000000, &p, &err) == 0) {
            if (!mg_tenant_ok(p.tenant) || p.level < 0 || p.level > 3 || p.nrepos > MG_OAUTH_REPOS_MAX) abort();
            mg_principal_release(&p);
        }
        mg_jwt_release(&t);
    }
    mg_jwks_free(&ks);
    return 0;
}
