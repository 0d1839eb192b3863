/* cursor.c — every cursor a tool gives out carries a keyed MAC (args.h,
 * "Sealed cursors"): mg_tools_call seals each result's next_cursor and opens
 * the `cursor` argument before the tool sees it, so a cursor a client edited
 * or made up, or one of another tenant, tool or call, is refused whatever
 * the tool's own cursor looks like (a page offset, outline's count,
 * find_references' "path:line").
 *
 * The key is 32 random bytes in <data dir>/cursor.key, made on first
 * use; every process on the data directory shares it, and daemons behind a
 * load balancer need the same file (docs/deploy.md). */
#include "tools/args.h"

#include <limits.h>
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "request/ctx.h"
#include "util/keyfile.h"

#define CURSOR_KEY_BYTES 32
#define CURSOR_MAC_BYTES 16 /* 128 bits, 32 hex digits after the last '.' */
#define CURSOR_CONTEXT "memgate cursor v1"
#define CURSOR_INNER_MAX 4096 /* the longest cursor a tool gives out (a path and a line) */

/* The key of the data directory home, read (or made) once per home. */
static pthread_mutex_t key_mu = PTHREAD_MUTEX_INITIALIZER;
static char key_home[PATH_MAX];
static unsigned char key_bytes[CURSOR_KEY_BYTES];

static int cursor_key(const struct mg_config *c, unsigned char key[CURSOR_KEY_BYTES], struct mg_err *err)
{
    pthread_mutex_lock(&key_mu);
    int rc = 0;
    if (strcmp(key_home, c->home) != 0) {
        char path[PATH_MAX + 32];
        snprintf(path, sizeof(path), "%s/cursor.key", c->home);
        rc = mg_keyfile_load(path, "the cursor key", key_bytes, CURSOR_KEY_BYTES, true, err);
        if (rc == 0) snprintf(key_home, sizeof(key_home), "%s", c->home);
    }
    if (rc == 0) memcpy(key, key_bytes, CURSOR_KEY_BYTES);
    pthread_mutex_unlock(&key_mu);
    return rc;
}

/* The MAC of a cursor: the tool, the caller's tenant, the call's arguments
 * but the cursor, the page size and the handle, and the tool's own cursor. */
static int cursor_mac(const struct mg_ctx *x, const char *tool, json_t *args, const char *inner, size_t n,
                      char out[2 * CURSOR_MAC_BYTES + 1], struct mg_err *err)
{
    unsigned char key[CURSOR_KEY_BYTES], mac[CURSOR_MAC_BYTES];
    if (cursor_key(&x->srv->cfg, key, err) != 0) return -1;
    json_t *a = json_is_object(args) ? json_copy(args) : json_object();
    json_object_del(a, "cursor");
    json_object_del(a, "limit");
    json_object_del(a, "offset");
    json_object_del(a, "handle");
    char *canon = json_dumps(a, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(a);
    if (!canon) return mg_err_oom(err);
    crypto_generichash_state s;
    crypto_generichash_init(&s, key, sizeof(key), sizeof(mac));
    crypto_generichash_update(&s, (const unsigned char *)CURSOR_CONTEXT, sizeof(CURSOR_CONTEXT));
    crypto_generichash_update(&s, (const unsigned char *)tool, strlen(tool) + 1);
    crypto_generichash_update(&s, (const unsigned char *)x->who.tenant, strlen(x->who.tenant) + 1);
    crypto_generichash_update(&s, (const unsigned char *)canon, strlen(canon) + 1);
    crypto_generichash_update(&s, (const unsigned char *)inner, n);
    crypto_generichash_final(&s, mac, sizeof(mac));
    free(canon);
    sodium_memzero(key, sizeof(key));
    sodium_bin2hex(out, 2 * CURSOR_MAC_BYTES + 1, mac, sizeof(mac));
    return 0;
}

int mg_cursor_seal(const struct mg_ctx *x, const char *tool, json_t *args, json_t *result, struct mg_err *err)
{
    const char *inner = json_string_value(json_object_get(result, "next_cursor"));
    if (!inner) return 0;
    char mac[2 * CURSOR_MAC_BYTES + 1];
    size_t n = strlen(inner);
    if (cursor_mac(x, tool, args, inner, n, mac, err) != 0) return -1;
    char *sealed = malloc(n + sizeof(mac) + 1);
    if (!sealed) return mg_err_oom(err);
    snprintf(sealed, n + sizeof(mac) + 1, "%s.%s", inner, mac);
    json_object_set_new(result, "next_cursor", json_string(sealed));
    free(sealed);
    return 0;
}

int mg_cursor_open(const struct mg_ctx *x, const char *tool, json_t *args, json_t **opened, struct mg_err *err)
{
    *opened = NULL;
    const char *c = json_string_value(json_object_get(args, "cursor"));
    if (!c) return 0; /* none, or not a string: the tool says what it wants */
    const char *dot = strrchr(c, '.');
    size_t n = dot ? (size_t)(dot - c) : 0;
    char want[2 * CURSOR_MAC_BYTES + 1];
    if (!dot || n == 0 || n > CURSOR_INNER_MAX || strlen(dot + 1) != 2 * CURSOR_MAC_BYTES)
        goto refused;
    if (cursor_mac(x, tool, args, c, n, want, err) != 0) return -1;
    if (sodium_memcmp(want, dot + 1, 2 * CURSOR_MAC_BYTES) != 0) goto refused;
    json_t *a = json_copy(args);
    json_t *inner = json_stringn(c, n);
    if (!a || !inner) {
        json_decref(a);
        json_decref(inner);
        return mg_err_oom(err);
    }
    json_object_set_new(a, "cursor", inner);
    *opened = a;
    return 0;
refused:
    return mg_err_set(err, MG_E_BAD_ARG, "'cursor' is not one this server gave for this call (it was changed or "
                      "made up, or continues a call with other arguments or of another tenant): it must be the "
                      "next_cursor of an earlier %s call, given back as it came with the same arguments; or call "
                      "again without 'cursor' to start from the first page", tool);
}
