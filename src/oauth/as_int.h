/* as_int.h — what the authorization server's files share (src/oauth/ only):
 * as_store.c (the signing key, oauth.db, JWT signing) and as.c (the flows). */
#ifndef MG_OAUTH_AS_INT_H
#define MG_OAUTH_AS_INT_H

#include <limits.h>
#include <pthread.h>
#include <sqlite3.h>

#include <sodium.h>

#include "oauth/as.h"

#define MG_AS_HASH 32 /* bytes of the BLAKE2b hash a code, refresh token or consent id is kept as */

struct mg_as {
    const struct mg_config *cfg;
    pthread_mutex_t mu;        /* guards db */
    sqlite3 *db;
    char path[PATH_MAX + 16];  /* oauth.db */
    unsigned char sk[crypto_sign_SECRETKEYBYTES];
    char kid[17];
    char *jwks;                /* the public key set, JSON */
    /* the revocation list: grants revoked less than oauth_token_ttl +
     * oauth_clock_skew s ago (their access tokens may still be unexpired),
     * sorted by id; loaded from oauth.db at open, checked on every request */
    pthread_mutex_t rmu;       /* guards rv (never held with mu taken after it) */
    struct mg__as_revoked { char id[48]; int64_t at; } *rv;
    size_t nrv, caprv;
};

/* Prepare, step (1 row, 0 done, -1 err), exec (as->mu held). */
int mg__as_prep(struct mg_as *as, const char *sql, sqlite3_stmt **st, struct mg_err *err);
int mg__as_step(struct mg_as *as, sqlite3_stmt *st, struct mg_err *err);
int mg__as_exec(struct mg_as *as, const char *sql, struct mg_err *err);
/* BLAKE2b-256 of a secret (a code, a refresh token, a consent id). */
void mg__as_hash(const char *secret, unsigned char out[MG_AS_HASH]);
/* prefix + 43 base64url characters of 32 random bytes. */
void mg__as_random(const char *prefix, char *out, size_t cap);
/* Put grant id, revoked at (Unix s), on the revocation list (dropping the
 * entries too old to matter). 0, or -1 out of memory. */
int mg__as_rv_add(struct mg_as *as, const char *id, int64_t at);
/* A compact JWS (EdDSA, typ at+jwt, the key's kid) of claims; NULL out of memory. */
char *mg__as_sign(struct mg_as *as, json_t *claims);

#endif
