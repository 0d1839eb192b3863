/* token_int.h — what the two files of the access tokens (token.h) share:
 * token_store.c opens the store (tokens.db, or the shared table tokens) and
 * the pepper, and lends a connection per call; token.c does the rest
 * through it. Not for other modules.
 */
#ifndef MG_TOKEN_INT_H
#define MG_TOKEN_INT_H

#include <limits.h>
#include <pthread.h>

#include "security/token.h"
#include "store/pg.h"
#include "store/sql.h"

#define MG__TOKEN_HASH_BYTES 32   /* BLAKE2b-256 */
#define MG__TOKEN_PEPPER_BYTES 32
/* a token's row by id (kept prepared on SQLite) */
#define MG__TOKEN_GET_SQL                                                                                           \
    "SELECT hash, tenant, repos, scope, name, rate, created, expires, last_used, revoked FROM tokens WHERE id=?"

struct mg_tokens {
    pthread_mutex_t mu;       /* SQLite: the connection and st_get */
    struct mg_sql *db;        /* SQLite: tokens.db; NULL on PostgreSQL */
    struct mg_sql_st *st_get; /* SQLite: MG__TOKEN_GET_SQL, kept prepared */
    struct mg_sql_st *st_version; /* SQLite: PRAGMA data_version, kept prepared (asked on every request) */
    struct mg_config *cfg;    /* PostgreSQL: a copy, for the pool */
    char path[PATH_MAX];      /* the store, as messages name it */
    char home[PATH_MAX];
    unsigned char pepper[MG__TOKEN_PEPPER_BYTES];
    int default_rate;         /* __atomic: mg_tokens_set_default_rate may change it */
    pthread_mutex_t state;    /* the fields below */
    bool pepper_checked;      /* PostgreSQL: the pepper's fingerprint matched the database's */
    bool any_valid;           /* the cached answer of mg_tokens_any */
    bool any;
    long long any_version;    /* SQLite: the data_version it was counted at */
    int64_t any_at_ms;        /* PostgreSQL: when it was counted (monotonic) */
};

/* A connection to the store: SQLite's own (mu held until given back) or one
 * of the pool's, for no tenant. */
struct mg__tokens_conn {
    struct mg_sql *c;
    struct mg_pg *pool;
};

/* Take a connection (on PostgreSQL, once the pepper's fingerprint is known
 * to match the database's): 0, or -1 with err (storage_unavailable,
 * invalid_config, ...). Give it back with mg__tokens_give. */
int mg__tokens_take(struct mg_tokens *t, struct mg__tokens_conn *k, struct mg_err *err);
/* Give k back (nothing when it holds none). */
void mg__tokens_give(struct mg_tokens *t, struct mg__tokens_conn *k);

#endif
