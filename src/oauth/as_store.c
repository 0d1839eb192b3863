/* as_store.c — the authorization server's state (see as.h, as_int.h):
 * oauth.db and the signing key in the data directory, and the JWTs signed
 * with it.
 *
 * Sections:
 *   1. the signing key
 *   2. oauth.db
 *   3. statements
 *   4. JWTs
 *   5. the revocation list
 */
#include "oauth/as_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store/sqlite.h"

/* ---- 1. the signing key ---------------------------------------------------------------- */

/* The Ed25519 seed in HOME/oauth-signing.key: made (0600, synced) when
 * missing, else read; exactly 32 bytes. */
static int load_key(struct mg_as *as, struct mg_err *err)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof(path), "%s/oauth-signing.key", as->cfg->home);
    unsigned char seed[crypto_sign_SEEDBYTES];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT) {
        randombytes_buf(seed, sizeof(seed));
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0 || write(fd, seed, sizeof(seed)) != (ssize_t)sizeof(seed) || fsync(fd) != 0) {
            if (fd >= 0) close(fd), unlink(path);
            return mg_err_set(err, MG_E_IO, "cannot write the OAuth signing key %s: %s", path, strerror(errno));
        }
        close(fd);
    } else if (fd < 0 || read(fd, seed, sizeof(seed)) != (ssize_t)sizeof(seed)) {
        if (fd >= 0) close(fd);
        return mg_err_set(err, MG_E_IO, "cannot read the OAuth signing key %s (32 bytes): %s; remove it to make a "
                                        "new one (tokens signed with it are then refused)",
                          path, fd < 0 ? strerror(errno) : "short file");
    } else {
        close(fd);
    }
    unsigned char pk[crypto_sign_PUBLICKEYBYTES];
    crypto_sign_seed_keypair(pk, as->sk, seed);
    sodium_memzero(seed, sizeof(seed));
    unsigned char h[8];
    crypto_generichash(h, sizeof(h), pk, sizeof(pk), NULL, 0);
    sodium_bin2hex(as->kid, sizeof(as->kid), h, sizeof(h));
    char x[64];
    sodium_bin2base64(x, sizeof(x), pk, sizeof(pk), sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    json_t *j = json_pack("{s:[{s:s, s:s, s:s, s:s, s:s, s:s}]}", "keys", "kty", "OKP", "crv", "Ed25519", "x", x,
                          "kid", as->kid, "use", "sig", "alg", "EdDSA");
    as->jwks = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    return as->jwks ? 0 : mg_err_oom(err);
}

/* ---- 2. oauth.db --------------------------------------------------------------------------- */

static const char *const migrations[] = {
    /* 0 -> 1 */
    "CREATE TABLE clients("              /* registered clients (RFC 7591); metadata documents are not kept */
    "  id TEXT PRIMARY KEY, name TEXT NOT NULL, redirects TEXT NOT NULL," /* redirects: a JSON array */
    "  created INTEGER NOT NULL);"
    "CREATE TABLE consents("             /* consent pages shown, not answered yet */
    "  hash BLOB PRIMARY KEY, client_id TEXT NOT NULL, redirect_uri TEXT NOT NULL, state TEXT NOT NULL,"
    "  challenge TEXT NOT NULL, level INTEGER NOT NULL, expires INTEGER NOT NULL);"
    "CREATE TABLE grants("               /* what an operator approved: codes and refresh tokens hang off it */
    "  id TEXT PRIMARY KEY, client_id TEXT NOT NULL, tenant TEXT NOT NULL, repos TEXT," /* NULL: every repo */
    "  level INTEGER NOT NULL, subject TEXT NOT NULL, created INTEGER NOT NULL,"
    "  revoked INTEGER NOT NULL DEFAULT 0);"
    "CREATE TABLE codes("
    "  hash BLOB PRIMARY KEY, grant_id TEXT NOT NULL, redirect_uri TEXT NOT NULL, challenge TEXT NOT NULL,"
    "  expires INTEGER NOT NULL, used INTEGER NOT NULL DEFAULT 0);"
    "CREATE TABLE refresh("
    "  hash BLOB PRIMARY KEY, grant_id TEXT NOT NULL, expires INTEGER NOT NULL,"
    "  used INTEGER NOT NULL DEFAULT 0);",
    /* 1 -> 2: when a grant was revoked (the revocation list is loaded from it at open); consents by client */
    "ALTER TABLE grants ADD COLUMN revoked_at INTEGER;"
    "CREATE INDEX consents_client ON consents(client_id);", /* consent requests waiting per client (capped) */
};

static int load_revoked(struct mg_as *as, struct mg_err *err);

int mg_as_open(const struct mg_config *cfg, struct mg_as **out, struct mg_err *err)
{
    *out = NULL;
    if (strcmp(cfg->oauth_server, "on") != 0) return 0;
    if (!cfg->oauth_resource[0])
        return mg_err_set(err, MG_E_CONFIG, "oauth_server = on needs oauth_resource: this server's MCP endpoint as "
                                            "clients reach it (e.g. https://memgate.example.com/mcp)");
    const char *a = strstr(cfg->oauth_issuer, "://");
    if (!a || a[3 + strcspn(a + 3, "/?#")])
        return mg_err_set(err, MG_E_CONFIG, "with oauth_server = on, oauth_issuer '%.200s' must be an origin "
                                            "(scheme://host[:port], no path): leave it empty to use "
                                            "oauth_resource's", cfg->oauth_issuer);
    struct mg_as *as = calloc(1, sizeof(*as));
    if (!as) return mg_err_oom(err);
    as->cfg = cfg;
    pthread_mutex_init(&as->mu, NULL);
    snprintf(as->path, sizeof(as->path), "%s/oauth.db", cfg->home);
    struct mg_sqlite_spec spec = {
        .what = "OAuth store",
        .create = true,
        .busy_ms = 5000,
        /* FULL: a code or refresh token handed out survives a power cut */
        .pragmas = "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;",
        .migrations = migrations,
        .version = 2,
    };
    pthread_mutex_init(&as->rmu, NULL);
    if (load_key(as, err) != 0 || mg_sqlite_open(as->path, &spec, &as->db, err) != 0 || load_revoked(as, err) != 0) {
        mg_as_close(&as);
        return -1;
    }
    *out = as;
    return 0;
}

void mg_as_close(struct mg_as **as)
{
    if (!*as) return;
    if ((*as)->db) sqlite3_close_v2((*as)->db);
    sodium_memzero((*as)->sk, sizeof((*as)->sk));
    free((*as)->jwks);
    free((*as)->rv);
    pthread_mutex_destroy(&(*as)->rmu);
    pthread_mutex_destroy(&(*as)->mu);
    free(*as);
    *as = NULL;
}

const char *mg_as_jwks(const struct mg_as *as) { return as->jwks; }

/* ---- 3. statements ----------------------------------------------------------------------- */

int mg__as_prep(struct mg_as *as, const char *sql, sqlite3_stmt **st, struct mg_err *err)
{
    if (sqlite3_prepare_v2(as->db, sql, -1, st, NULL) != SQLITE_OK) return mg_sqlite_fail(as->db, as->path, "prepare", err);
    return 0;
}

int mg__as_step(struct mg_as *as, sqlite3_stmt *st, struct mg_err *err)
{
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) return 1;
    if (rc == SQLITE_DONE) return 0;
    return mg_sqlite_fail(as->db, as->path, "write", err);
}

int mg__as_exec(struct mg_as *as, const char *sql, struct mg_err *err)
{
    if (sqlite3_exec(as->db, sql, NULL, NULL, NULL) != SQLITE_OK) return mg_sqlite_fail(as->db, as->path, sql, err);
    return 0;
}

void mg__as_hash(const char *secret, unsigned char out[MG_AS_HASH])
{
    crypto_generichash(out, MG_AS_HASH, (const unsigned char *)secret, strlen(secret), NULL, 0);
}

void mg__as_random(const char *prefix, char *out, size_t cap)
{
    unsigned char r[32];
    randombytes_buf(r, sizeof(r));
    char b[64];
    sodium_bin2base64(b, sizeof(b), r, sizeof(r), sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    snprintf(out, cap, "%s%s", prefix, b);
}

/* ---- 4. JWTs --------------------------------------------------------------------------------- */

static char *b64u(const void *p, size_t n)
{
    size_t cap = sodium_base64_ENCODED_LEN(n, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    char *b = malloc(cap);
    if (b) sodium_bin2base64(b, cap, p, n, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    return b;
}

char *mg__as_sign(struct mg_as *as, json_t *claims)
{
    json_t *hdr = json_pack("{s:s, s:s, s:s}", "alg", "EdDSA", "typ", "at+jwt", "kid", as->kid);
    char *h = hdr ? json_dumps(hdr, JSON_COMPACT) : NULL, *c = json_dumps(claims, JSON_COMPACT);
    json_decref(hdr);
    char *hb = h ? b64u(h, strlen(h)) : NULL, *cb = c ? b64u(c, strlen(c)) : NULL, *out = NULL;
    free(h);
    free(c);
    if (hb && cb) {
        size_t n = strlen(hb) + 1 + strlen(cb);
        char *input = malloc(n + 1);
        unsigned char sig[crypto_sign_BYTES];
        if (input) {
            snprintf(input, n + 1, "%s.%s", hb, cb);
            crypto_sign_detached(sig, NULL, (const unsigned char *)input, n, as->sk);
            char *sb = b64u(sig, sizeof(sig));
            if (sb && (out = malloc(n + 2 + strlen(sb)))) sprintf(out, "%s.%s", input, sb);
            free(sb);
            free(input);
        }
    }
    free(hb);
    free(cb);
    return out;
}

/* ---- 5. the revocation list ------------------------------------------------------------------ */

/* How long a revoked grant stays on the list: its last access token is
 * expired (and refused by the claims check) after this. */
static int64_t rv_keep(const struct mg_as *as) { return (int64_t)as->cfg->oauth_token_ttl + as->cfg->oauth_clock_skew + 1; }

static int rv_cmp(const void *a, const void *b)
{
    return strcmp(((const struct mg__as_revoked *)a)->id, ((const struct mg__as_revoked *)b)->id);
}

int mg__as_rv_add(struct mg_as *as, const char *id, int64_t at)
{
    int64_t old = (int64_t)time(NULL) - rv_keep(as);
    pthread_mutex_lock(&as->rmu);
    size_t k = 0; /* drop what no unexpired token can name any more */
    for (size_t i = 0; i < as->nrv; i++)
        if (as->rv[i].at >= old) as->rv[k++] = as->rv[i];
    as->nrv = k;
    struct mg__as_revoked key = {.at = at};
    snprintf(key.id, sizeof(key.id), "%s", id);
    int rc = 0;
    if (!as->nrv || !bsearch(&key, as->rv, as->nrv, sizeof(key), rv_cmp)) {
        if (as->nrv == as->caprv) {
            size_t cap = as->caprv ? as->caprv * 2 : 16;
            struct mg__as_revoked *p = realloc(as->rv, cap * sizeof(*p));
            if (p) as->rv = p, as->caprv = cap;
        }
        if (as->nrv < as->caprv) {
            size_t i = 0;
            while (i < as->nrv && strcmp(as->rv[i].id, key.id) < 0) i++;
            memmove(as->rv + i + 1, as->rv + i, (as->nrv - i) * sizeof(key));
            as->rv[i] = key;
            as->nrv++;
        } else {
            rc = -1;
        }
    }
    pthread_mutex_unlock(&as->rmu);
    return rc;
}

bool mg_as_revoked(struct mg_as *as, const char *grant)
{
    struct mg__as_revoked key = {0};
    if (strlen(grant) >= sizeof(key.id)) return false; /* no grant id of ours is that long */
    memcpy(key.id, grant, strlen(grant));
    pthread_mutex_lock(&as->rmu);
    bool hit = as->nrv && bsearch(&key, as->rv, as->nrv, sizeof(key), rv_cmp) != NULL;
    pthread_mutex_unlock(&as->rmu);
    return hit;
}

/* The grants revoked recently enough to matter (a row revoked before
 * revoked_at existed counts as revoked now). */
static int load_revoked(struct mg_as *as, struct mg_err *err)
{
    int64_t now = (int64_t)time(NULL);
    sqlite3_stmt *st = NULL;
    int rc = mg__as_prep(as, "SELECT id, coalesce(revoked_at, ?) FROM grants WHERE revoked = 1 AND "
                             "coalesce(revoked_at, ?) >= ?", &st, err);
    if (rc == 0) {
        sqlite3_bind_int64(st, 1, now);
        sqlite3_bind_int64(st, 2, now);
        sqlite3_bind_int64(st, 3, now - rv_keep(as));
        while ((rc = mg__as_step(as, st, err)) == 1)
            if (mg__as_rv_add(as, (const char *)sqlite3_column_text(st, 0), sqlite3_column_int64(st, 1)) != 0) {
                rc = mg_err_oom(err);
                break;
            }
    }
    sqlite3_finalize(st);
    return rc;
}
