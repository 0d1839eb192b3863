/* verify.c — is a delivery from the forge that knows our secret? (hook.h)
 * Every comparison of secret material is constant-time (sodium_memcmp), so
 * the answer's timing says nothing about how much of a guess was right. */
#include "hook/hook.h"

#include <sodium.h>
#include <string.h>

#include "security/common.h"

#define SHA256_BYTES crypto_auth_hmacsha256_BYTES

bool mg_hook_github_ok(const char *secret, const char *header, const void *body, size_t len)
{
    static const char prefix[] = "sha256=";
    if (!secret || !secret[0] || !header || strncmp(header, prefix, sizeof(prefix) - 1) != 0) return false;
    const char *hex = header + sizeof(prefix) - 1;
    if (strlen(hex) != 2 * SHA256_BYTES) return false;
    unsigned char got[SHA256_BYTES], want[SHA256_BYTES];
    size_t n = 0;
    if (sodium_hex2bin(got, sizeof(got), hex, 2 * SHA256_BYTES, NULL, &n, NULL) != 0 || n != SHA256_BYTES)
        return false;
    mg_sodium_ready();
    crypto_auth_hmacsha256_state st;
    crypto_auth_hmacsha256_init(&st, (const unsigned char *)secret, strlen(secret));
    crypto_auth_hmacsha256_update(&st, body, len);
    crypto_auth_hmacsha256_final(&st, want);
    bool ok = sodium_memcmp(got, want, SHA256_BYTES) == 0;
    sodium_memzero(&st, sizeof(st));
    sodium_memzero(want, sizeof(want));
    return ok;
}

bool mg_hook_gitlab_ok(const char *secret, const char *header)
{
    if (!secret || !secret[0] || !header) return false;
    mg_sodium_ready();
    /* the token is the secret itself: hash both to one length, so neither
     * the comparison nor a length check can leak how close a guess was */
    unsigned char a[crypto_generichash_BYTES], b[crypto_generichash_BYTES];
    crypto_generichash(a, sizeof(a), (const unsigned char *)secret, strlen(secret), NULL, 0);
    crypto_generichash(b, sizeof(b), (const unsigned char *)header, strlen(header), NULL, 0);
    bool ok = sodium_memcmp(a, b, sizeof(a)) == 0;
    sodium_memzero(a, sizeof(a));
    return ok;
}

bool mg_hook_delivery_id_ok(const char *id)
{
    size_t n = id ? strlen(id) : 0;
    if (n < 1 || n > MG_HOOK_ID_MAX) return false;
    for (size_t i = 0; i < n; i++) {
        char c = id[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
              c == ':' || c == '-'))
            return false;
    }
    return true;
}
