/* token.h — access tokens: create, list, revoke, check (token.c; the stores
 * they live in, token_store.c). Each token's rate is applied by ratelimit.h,
 * which this header brings along.
 *
 * A token is "mgt_<id>_<secret>": <id> is 16 hex digits (64 random bits) that
 * names the token's row, so a check is one primary-key lookup and never
 * compares against other tokens' hashes; <secret> is 32 random bytes from
 * libsodium (256 bits) in unpadded base64url (43 characters). The whole token
 * is 64 characters and is shown once, by `memgate token create`.
 *
 * Storage: <data dir>/tokens.db (SQLite, WAL, synchronous=FULL, mode 0600),
 * or with storage = postgres://... the shared table tokens (a system table:
 * read before the tenant is known, store/pg.h), holds only BLAKE2b-256(key =
 * pepper, "mgt1" || id || secret), where the pepper is 32 random bytes in
 * <data dir>/token.pepper (0600), made once per installation. With
 * PostgreSQL every daemon needs the same pepper file (copied at deployment);
 * the database keeps only the pepper's fingerprint, and a memgate whose
 * pepper differs refuses with invalid_config. The secrets are uniformly random 256-bit values, so a fast
 * keyed hash is enough: a slow password hash (crypto_pwhash) protects guessable
 * passwords and would only add milliseconds to every request. A copy of
 * tokens.db without the pepper cannot even test a guess. Hashes are compared
 * with sodium_memcmp (constant time). Losing token.pepper invalidates every
 * token. See docs/security.md, "Tokens".
 *
 * Thread safety: a struct mg_tokens is one SQLite connection behind a mutex,
 * or takes a pooled PostgreSQL connection per call; any number of threads may
 * call into one. Other processes (the CLI, other daemons) may change the
 * tokens at the same time: checks read the row on every call, so a
 * revocation or an expiry takes effect on the next request, on every daemon.
 * On PostgreSQL every call may fail with storage_unavailable (the database
 * is down or the pool busy) or storage_retry.
 */
#ifndef MG_TOKEN_H
#define MG_TOKEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "security/access.h"
#include "security/common.h"
#include "security/ratelimit.h"
#include "util/config.h"
#include "util/err.h"

#define MG_TOKEN_LEN 64      /* strlen("mgt_") + 16 + 1 + 43 */
#define MG_TOKEN_ID_LEN 16   /* hex digits */
#define MG_TOKEN_NAME_MAX 64 /* bytes of a token's label */
#define MG_TOKEN_MAX_REPOS 256

struct mg_token {
    char id[MG_TOKEN_ID_LEN + 1];
    char tenant[MG_TENANT_MAX + 1];
    char **repos;  /* repo ids the token may use; */
    size_t nrepos; /* none: every repo of the tenant */
    int level;           /* MG_LEVEL_* (access.h); `--scope` on the command line */
    long long expires;   /* unix seconds; 0 = never */
    int rate_per_min;    /* in effect: the token's own rate, else token_rate_limit; 0 = unlimited */
    int rate_own;        /* the token's own rate, -1 when it follows token_rate_limit */
    char name[MG_TOKEN_NAME_MAX + 1];
    long long created;   /* unix seconds */
    long long last_used; /* unix seconds, 0 = never; updated at most once a minute */
    long long revoked;   /* unix seconds of the revocation; 0 = active */
};

struct mg_tokens;

/* Open (creating if missing) <data dir>/tokens.db and the pepper; or, on
 * PostgreSQL, the pepper (made only for a database without tokens) checked
 * against the database's fingerprint (recorded by the first memgate):
 * invalid_config when it differs. A database that cannot be reached now is
 * not an error when the pepper file is there: it is checked on first use. */
int mg_tokens_open(const struct mg_config *c, struct mg_tokens **out, struct mg_err *err);
void mg_tokens_close(struct mg_tokens *t);
/* Are the tokens the shared database's (storage = postgres://...)? */
bool mg_tokens_shared(const struct mg_tokens *t);

/* Create a token. In: spec's tenant, repos/nrepos, scope, expires, rate_own
 * (-1: follow token_rate_limit), name. Out: *created (may be NULL) filled like
 * a check would, and the token text in token_out (shown once; the caller
 * should sodium_memzero it when done). name_invalid for a bad tenant, repo
 * id or label; invalid_argument for a bad level, expiry or rate. Durable
 * when it returns 0. */
int mg_tokens_create(struct mg_tokens *t, const struct mg_token *spec, struct mg_token *created,
                     char token_out[MG_TOKEN_LEN + 1], struct mg_err *err);
/* Every token (revoked ones too), oldest first; *out is freed with
 * mg_tokens_list_free. */
int mg_tokens_list(struct mg_tokens *t, struct mg_token **out, size_t *n, struct mg_err *err);
void mg_tokens_list_free(struct mg_token *v, size_t n);
/* Revoke by id (or by the whole token text). token_not_found if unknown;
 * *was_revoked (may be NULL) says it already was (not an error). The token's
 * tenant goes to tenant_out (may be NULL) for the audit event. */
int mg_tokens_revoke(struct mg_tokens *t, const char *id, bool *was_revoked, char tenant_out[MG_TENANT_MAX + 1],
                     struct mg_err *err);

/* Check a bearer token (the token text; a leading "Bearer " is skipped).
 * 0 with *tok filled (release it with mg_token_release); -1 with err code
 * token_invalid (malformed, unknown id, wrong secret: one message for all),
 * token_revoked or token_expired (only once the secret matched). The secret
 * is compared in constant time, and an unknown id costs the same hash and
 * compare. Updates last_used at most once a minute. */
int mg_tokens_check(struct mg_tokens *t, const char *bearer, struct mg_token *tok, struct mg_err *err);
/* Does any unrevoked token exist (expired ones count: once tokens are in use,
 * they stay required)? Cached, so it is cheap to call per request: SQLite
 * re-counts only when tokens.db changed (PRAGMA data_version); PostgreSQL
 * when the answer is a second old. On an error *any is true (fail closed)
 * and -1 with err (storage_unavailable, ...). */
int mg_tokens_any_err(struct mg_tokens *t, bool *any, struct mg_err *err);
bool mg_tokens_any(struct mg_tokens *t); /* the same, true on an error */
/* The rate of the tokens without one of their own (config token_rate_limit),
 * from the next check on: `memgate serve` applies a reloaded config (SIGHUP). */
void mg_tokens_set_default_rate(struct mg_tokens *t, int rate_per_min);

/* A key of its own for `context`, derived from the installation's token
 * pepper (<home>/token.pepper, which every daemon on one PostgreSQL database
 * shares: mg_tokens_open checks its fingerprint): BLAKE2b-256 keyed by the
 * pepper. For what several daemons must seal and open alike (memory
 * vectors). -1 with err when there is no pepper (no daemon has run here). */
int mg_token_pepper_key(const char *home, const char *context, unsigned char out[32], struct mg_err *err);

bool mg_token_allows_repo(const struct mg_token *tok, const char *repo_id);
void mg_token_release(struct mg_token *tok);

/* Whether the server must require tokens: require_tokens = always -> yes;
 * auto -> when listening off loopback or any_token; never -> no, but only on
 * loopback (off loopback it fails with listen_refused). */
int mg_tokens_required(const struct mg_config *c, bool listen_loopback, bool any_token, bool *required,
                       struct mg_err *err);

#endif
