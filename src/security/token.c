/* token.c — access tokens (token.h): the token's text, a row read into a
 * struct mg_token, create, list, revoke, check, and whether any is in use.
 * One code path over store/sql.h serves both stores (token_store.c lends
 * the connection); every statement names the row it wants (by id).
 *
 * Sections:
 *   1. token text
 *   2. rows
 *   3. create, list, revoke
 *   4. check
 *   5. are tokens in use?
 */
#include "security/token_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <sodium.h>

#include "store/catalog.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/utf8.h"

#define SECRET_BYTES 32
#define SECRET_CHARS 43 /* unpadded base64url of 32 bytes */
#define TOUCH_EVERY_S 60
#define ANY_CACHE_MS 1000          /* PostgreSQL: how long mg_tokens_any's answer is kept */

static void any_forget(struct mg_tokens *t)
{
    pthread_mutex_lock(&t->state);
    t->any_valid = false;
    pthread_mutex_unlock(&t->state);
}

/* ---- 1. token text ---------------------------------------------------------------------- */

static void token_hash(const struct mg_tokens *t, const char *id, const unsigned char secret[SECRET_BYTES],
                       unsigned char out[MG__TOKEN_HASH_BYTES])
{
    crypto_generichash_state s;
    crypto_generichash_init(&s, t->pepper, MG__TOKEN_PEPPER_BYTES, MG__TOKEN_HASH_BYTES);
    crypto_generichash_update(&s, (const unsigned char *)"mgt1", 4);
    crypto_generichash_update(&s, (const unsigned char *)id, MG_TOKEN_ID_LEN);
    crypto_generichash_update(&s, secret, SECRET_BYTES);
    crypto_generichash_final(&s, out, MG__TOKEN_HASH_BYTES);
    sodium_memzero(&s, sizeof(s));
}

static bool is_id(const char *s, size_t n)
{
    if (n != MG_TOKEN_ID_LEN) return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'))) return false;
    return true;
}

/* Split "mgt_<id>_<secret>" into id and the decoded secret; false if malformed
 * (wrong length or alphabet, non-canonical base64url). */
static bool parse_token(const char *s, char id[MG_TOKEN_ID_LEN + 1], unsigned char secret[SECRET_BYTES])
{
    if (strlen(s) != MG_TOKEN_LEN || memcmp(s, "mgt_", 4) != 0 || s[4 + MG_TOKEN_ID_LEN] != '_') return false;
    if (!is_id(s + 4, MG_TOKEN_ID_LEN)) return false;
    const char *sec = s + 5 + MG_TOKEN_ID_LEN;
    size_t bin = 0;
    const char *end = NULL;
    if (sodium_base642bin(secret, SECRET_BYTES, sec, SECRET_CHARS, NULL, &bin, &end,
                          sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0 ||
        bin != SECRET_BYTES || end != sec + SECRET_CHARS)
        return false;
    char again[SECRET_CHARS + 1];
    sodium_bin2base64(again, sizeof(again), secret, SECRET_BYTES, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    if (memcmp(again, sec, SECRET_CHARS) != 0) return false; /* unused low bits set */
    memcpy(id, s + 4, MG_TOKEN_ID_LEN);
    id[MG_TOKEN_ID_LEN] = 0;
    return true;
}

/* ---- 2. rows ---------------------------------------------------------------------------- */

static int split_repos(const char *csv, struct mg_token *tok)
{
    tok->repos = NULL;
    tok->nrepos = 0;
    if (!csv || !*csv) return 0;
    size_t n = 1;
    for (const char *p = csv; *p; p++) n += *p == ',';
    tok->repos = calloc(n, sizeof(char *));
    if (!tok->repos) return -1;
    const char *p = csv;
    for (;;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len) {
            if (!(tok->repos[tok->nrepos] = strndup(p, len))) return -1;
            tok->nrepos++;
        }
        if (!e) break;
        p = e + 1;
    }
    return 0;
}

/* Fill tok from a row whose columns start at col: tenant, repos, scope, name,
 * rate, created, expires, last_used, revoked. */
static int row_token(struct mg_tokens *t, struct mg_sql_st *st, int col, struct mg_token *tok)
{
    snprintf(tok->tenant, sizeof(tok->tenant), "%s", mg_sql_text(st, col));
    if (split_repos(mg_sql_text(st, col + 1), tok) != 0) {
        mg_token_release(tok);
        return -1;
    }
    tok->level = (int)mg_sql_int(st, col + 2);
    snprintf(tok->name, sizeof(tok->name), "%s", mg_sql_text(st, col + 3));
    tok->rate_own = mg_sql_is_null(st, col + 4) ? -1 : (int)mg_sql_int(st, col + 4);
    tok->rate_per_min = tok->rate_own >= 0 ? tok->rate_own : __atomic_load_n(&t->default_rate, __ATOMIC_RELAXED);
    tok->created = mg_sql_int(st, col + 5);
    tok->expires = mg_sql_int(st, col + 6);
    tok->last_used = mg_sql_int(st, col + 7);
    tok->revoked = mg_sql_int(st, col + 8);
    return 0;
}

void mg_token_release(struct mg_token *tok)
{
    if (!tok) return;
    for (size_t i = 0; i < tok->nrepos; i++) free(tok->repos[i]);
    free(tok->repos);
    tok->repos = NULL;
    tok->nrepos = 0;
}

bool mg_token_allows_repo(const struct mg_token *tok, const char *repo_id)
{
    if (!tok || !repo_id) return false;
    if (tok->nrepos == 0) return true;
    for (size_t i = 0; i < tok->nrepos; i++) {
        char q[MG_ID_MAX + 1];
        mg_repo_qualify(tok->tenant, tok->repos[i], q, sizeof(q));
        if (strcmp(tok->repos[i], repo_id) == 0 || strcmp(q, repo_id) == 0) return true;
    }
    return false;
}

/* ---- 3. create, list, revoke ------------------------------------------------------------ */

static int check_spec(const struct mg_token *spec, struct mg_err *err)
{
    if (mg_tenant_check(spec->tenant, err) != 0) return -1;
    if (spec->nrepos > MG_TOKEN_MAX_REPOS)
        return mg_err_set(err, MG_E_BAD_ARG, "a token may name at most %d repos; leave --repos out to allow all of "
                          "the tenant's repos", MG_TOKEN_MAX_REPOS);
    for (size_t i = 0; i < spec->nrepos; i++) {
        const char *r = spec->repos[i], *name = mg_repo_name_of(r);
        size_t tl = strlen(spec->tenant);
        if (mg_repo_check_id(r, err) != 0) return -1;
        if (name != r && ((size_t)(name - 1 - r) != tl || strncmp(r, spec->tenant, tl) != 0)) /* another's prefix */
            return mg_err_set(err, MG_E_BAD_ARG, "repo '%s' is not of tenant '%s': name its repos NAME or %s~NAME",
                              spec->repos[i], spec->tenant, spec->tenant);
    }
    if (spec->level < MG_LEVEL_READ || spec->level > MG_LEVEL_ADMIN)
        return mg_err_set(err, MG_E_BAD_ARG, "scope must be read, write or admin");
    if (spec->expires < 0) return mg_err_set(err, MG_E_BAD_ARG, "expiry must be a time after 1970, or 0 for never");
    if (spec->rate_own < -1 || spec->rate_own > 1000000)
        return mg_err_set(err, MG_E_BAD_ARG, "rate must be 0 (unlimited) to 1000000 requests per minute");
    size_t n = strlen(spec->name);
    bool ok = n <= MG_TOKEN_NAME_MAX && mg_utf8_valid_prefix(spec->name, n) == n;
    for (size_t i = 0; ok && i < n; i++) ok = (unsigned char)spec->name[i] >= 0x20 && spec->name[i] != 0x7f;
    if (!ok)
        return mg_err_set(err, MG_E_NAME_INVALID, "the token label is not valid: use at most %d bytes of UTF-8 "
                          "text without control characters", MG_TOKEN_NAME_MAX);
    return 0;
}

int mg_tokens_create(struct mg_tokens *t, const struct mg_token *spec, struct mg_token *created,
                     char token_out[MG_TOKEN_LEN + 1], struct mg_err *err)
{
    if (check_spec(spec, err) != 0) return -1;
    char repos[MG_TOKEN_MAX_REPOS * (MG_ID_MAX + 1) + 1] = "";
    size_t rl = 0;
    for (size_t i = 0; i < spec->nrepos; i++)
        rl += (size_t)snprintf(repos + rl, sizeof(repos) - rl, "%s%s", i ? "," : "", spec->repos[i]);
    unsigned char secret[SECRET_BYTES], hash[MG__TOKEN_HASH_BYTES], r[MG_TOKEN_ID_LEN / 2];
    char id[MG_TOKEN_ID_LEN + 1];
    long long now = (long long)(mg_wall_ms() / 1000);
    struct mg__tokens_conn k;
    if (mg__tokens_take(t, &k, err) != 0) return -1;
    int rc = -1;
    struct mg_sql_st *st;
    /* an id taken already (64 random bits: never, in practice) inserts nothing: draw another */
    if (mg_sql_prepare(k.c, "INSERT INTO tokens(id, hash, tenant, repos, scope, name, rate, created, expires) "
                            "VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO NOTHING", &st, err) != 0) {
        mg__tokens_give(t, &k);
        return -1;
    }
    for (int attempt = 0; attempt < 4 && rc != 0; attempt++) {
        randombytes_buf(r, sizeof(r));
        sodium_bin2hex(id, sizeof(id), r, sizeof(r));
        randombytes_buf(secret, sizeof(secret));
        token_hash(t, id, secret, hash);
        mg_sql_reset(st);
        mg_sql_bind_text(st, 1, id);
        mg_sql_bind_blob(st, 2, hash, MG__TOKEN_HASH_BYTES);
        mg_sql_bind_text(st, 3, spec->tenant);
        mg_sql_bind_text(st, 4, repos);
        mg_sql_bind_int(st, 5, spec->level);
        mg_sql_bind_text(st, 6, spec->name);
        if (spec->rate_own >= 0) mg_sql_bind_int(st, 7, spec->rate_own);
        else mg_sql_bind_null(st, 7);
        mg_sql_bind_int(st, 8, now);
        mg_sql_bind_int(st, 9, spec->expires);
        if (mg_sql_step(st, err) < 0) break;
        if (mg_sql_changes(st) == 1) rc = 0;
        else if (attempt == 3) mg_err_set(err, MG_E_DB, "create token: four random ids were all taken");
    }
    mg_sql_finalize(&st);
    any_forget(t); /* (SQLite: before mu is let go; data_version misses this connection's own writes) */
    mg__tokens_give(t, &k);
    if (rc == 0) {
        char sec[SECRET_CHARS + 1];
        sodium_bin2base64(sec, sizeof(sec), secret, SECRET_BYTES, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
        snprintf(token_out, MG_TOKEN_LEN + 1, "mgt_%s_%s", id, sec);
        sodium_memzero(sec, sizeof(sec));
        if (created) {
            memset(created, 0, sizeof(*created));
            snprintf(created->id, sizeof(created->id), "%s", id);
            snprintf(created->tenant, sizeof(created->tenant), "%s", spec->tenant);
            snprintf(created->name, sizeof(created->name), "%s", spec->name);
            created->level = spec->level;
            created->expires = spec->expires;
            created->rate_own = spec->rate_own;
            created->rate_per_min =
                spec->rate_own >= 0 ? spec->rate_own : __atomic_load_n(&t->default_rate, __ATOMIC_RELAXED);
            created->created = now;
            if (split_repos(repos, created) != 0) {
                mg_token_release(created);
                rc = mg_err_oom(err);
            }
        }
    }
    sodium_memzero(secret, sizeof(secret));
    return rc;
}

void mg_tokens_list_free(struct mg_token *v, size_t n)
{
    for (size_t i = 0; i < n; i++) mg_token_release(&v[i]);
    free(v);
}

int mg_tokens_list(struct mg_tokens *t, struct mg_token **out, size_t *n, struct mg_err *err)
{
    *out = NULL;
    *n = 0;
    size_t cap = 0;
    struct mg__tokens_conn k;
    if (mg__tokens_take(t, &k, err) != 0) return -1;
    /* oldest first; within a second, in the order made (SQLite's rowid, PostgreSQL's seq) */
    struct mg_sql_st *st;
    int rc = mg_sql_prepare(k.c,
                            mg_sql_dialect(k.c) == MG_SQL_PG
                                ? "SELECT id, tenant, repos, scope, name, rate, created, expires, last_used, revoked "
                                  "FROM tokens ORDER BY created, seq"
                                : "SELECT id, tenant, repos, scope, name, rate, created, expires, last_used, revoked "
                                  "FROM tokens ORDER BY created, rowid",
                            &st, err);
    if (rc != 0) {
        mg__tokens_give(t, &k);
        return -1;
    }
    int s;
    while ((s = mg_sql_step(st, err)) == 1) {
        struct mg_token *v = mg_grow(*out, *n, &cap, sizeof(*v));
        if (!v) {
            rc = mg_err_set(err, MG_E_NO_MEMORY, "out of memory listing tokens");
            break;
        }
        *out = v;
        struct mg_token *tok = &(*out)[*n];
        memset(tok, 0, sizeof(*tok));
        snprintf(tok->id, sizeof(tok->id), "%s", mg_sql_text(st, 0));
        if (row_token(t, st, 1, tok) != 0) {
            rc = mg_err_set(err, MG_E_NO_MEMORY, "out of memory listing tokens");
            break;
        }
        (*n)++;
    }
    if (rc == 0 && s < 0) rc = -1;
    mg_sql_finalize(&st);
    mg__tokens_give(t, &k);
    if (rc != 0) {
        mg_tokens_list_free(*out, *n);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

int mg_tokens_revoke(struct mg_tokens *t, const char *id_or_token, bool *was_revoked,
                     char tenant_out[MG_TENANT_MAX + 1], struct mg_err *err)
{
    char id[MG_TOKEN_ID_LEN + 1];
    size_t n = strlen(id_or_token);
    if (n == MG_TOKEN_LEN && memcmp(id_or_token, "mgt_", 4) == 0) id_or_token += 4, n = MG_TOKEN_ID_LEN;
    if (!is_id(id_or_token, n))
        return mg_err_set(err, MG_E_TOKEN_NOT_FOUND, "'%.20s' is not a token id (16 hex digits); see `memgate token "
                          "list`", id_or_token);
    memcpy(id, id_or_token, MG_TOKEN_ID_LEN);
    id[MG_TOKEN_ID_LEN] = 0;
    if (was_revoked) *was_revoked = false;
    long long now = (long long)(mg_wall_ms() / 1000);
    struct mg__tokens_conn k;
    if (mg__tokens_take(t, &k, err) != 0) return -1;
    /* one statement revokes (atomic on both stores); no row back: revoked already, or unknown */
    struct mg_sql_st *st = NULL;
    bool now_revoked = false;
    int rc = mg_sql_prepare(k.c, "UPDATE tokens SET revoked=? WHERE id=? AND revoked=0 RETURNING tenant", &st, err);
    if (rc == 0) {
        mg_sql_bind_int(st, 1, now > 0 ? now : 1);
        mg_sql_bind_text(st, 2, id);
        int s = mg_sql_step(st, err);
        if (s == 1) {
            now_revoked = true;
            if (tenant_out) snprintf(tenant_out, MG_TENANT_MAX + 1, "%s", mg_sql_text(st, 0));
            s = mg_sql_step(st, err); /* to the end: SQLite commits then */
        }
        mg_sql_finalize(&st);
        if (s < 0) rc = -1;
    }
    if (rc == 0 && !now_revoked) {
        rc = mg_sql_prepare(k.c, "SELECT tenant FROM tokens WHERE id=?", &st, err);
        if (rc == 0) {
            mg_sql_bind_text(st, 1, id);
            int s = mg_sql_step(st, err);
            if (s == 1) {
                if (was_revoked) *was_revoked = true;
                if (tenant_out) snprintf(tenant_out, MG_TENANT_MAX + 1, "%s", mg_sql_text(st, 0));
            } else if (s == 0) {
                rc = mg_err_set(err, MG_E_TOKEN_NOT_FOUND, "no token has id '%s'; see `memgate token list`", id);
            } else {
                rc = -1;
            }
            mg_sql_finalize(&st);
        }
    }
    any_forget(t); /* (SQLite: before mu is let go; data_version misses this connection's own writes) */
    mg__tokens_give(t, &k);
    return rc;
}

/* ---- 4. check --------------------------------------------------------------------------- */

static int invalid(struct mg_err *err)
{
    return mg_err_set(err, MG_E_TOKEN_INVALID, "the bearer token is not valid (malformed, unknown, or a wrong "
                      "secret); check that it was copied whole, or create one with `memgate token create`");
}

int mg_tokens_check(struct mg_tokens *t, const char *bearer, struct mg_token *tok, struct mg_err *err)
{
    memset(tok, 0, sizeof(*tok));
    if (!bearer) return invalid(err);
    while (*bearer == ' ') bearer++;
    if (strncasecmp(bearer, "Bearer ", 7) == 0) {
        bearer += 7;
        while (*bearer == ' ') bearer++;
    }
    char id[MG_TOKEN_ID_LEN + 1];
    unsigned char secret[SECRET_BYTES], want[MG__TOKEN_HASH_BYTES], have[MG__TOKEN_HASH_BYTES];
    if (!parse_token(bearer, id, secret)) {
        sodium_memzero(secret, sizeof(secret));
        return invalid(err);
    }
    token_hash(t, id, secret, want);
    sodium_memzero(secret, sizeof(secret));
    long long now = (long long)(mg_wall_ms() / 1000);
    int rc = -1;
    struct mg__tokens_conn k;
    if (mg__tokens_take(t, &k, err) != 0) return -1;
    /* every check reads the row: a revocation or an expiry holds at the next request, on every daemon */
    struct mg_sql_st *st = t->st_get;
    if (!st && mg_sql_prepare(k.c, MG__TOKEN_GET_SQL, &st, err) != 0) {
        mg__tokens_give(t, &k);
        return -1;
    }
    mg_sql_reset(st);
    mg_sql_bind_text(st, 1, id);
    int s = mg_sql_step(st, err);
    /* an unknown id still pays for one constant-time compare, against a value
     * no hash equals with any measurable probability */
    memset(have, 0, sizeof(have));
    size_t hl = 0;
    const void *hb = s == 1 ? mg_sql_blob(st, 0, &hl) : NULL;
    bool found = hb && hl == MG__TOKEN_HASH_BYTES;
    if (found) memcpy(have, hb, MG__TOKEN_HASH_BYTES);
    bool match = sodium_memcmp(have, want, MG__TOKEN_HASH_BYTES) == 0;
    if (s < 0) {
        /* err is set: the store failed */
    } else if (!found || !match) {
        invalid(err);
    } else {
        snprintf(tok->id, sizeof(tok->id), "%s", id);
        if (row_token(t, st, 1, tok) != 0) {
            mg_err_set(err, MG_E_NO_MEMORY, "out of memory checking a token");
        } else if (tok->revoked) {
            mg_err_set(err, MG_E_TOKEN_REVOKED, "token %s was revoked; create a new one with `memgate token create`",
                       id);
        } else if (tok->expires && now >= tok->expires) {
            char when[32];
            mg_rfc3339_ms(tok->expires * 1000, when);
            mg_err_set(err, MG_E_TOKEN_EXPIRED, "token %s expired at %s; create a new one with `memgate token "
                       "create`", id, when);
        } else {
            rc = 0;
        }
    }
    if (st == t->st_get) mg_sql_reset(st);
    else mg_sql_finalize(&st);
    if (rc == 0 && now - tok->last_used >= TOUCH_EVERY_S) {
        /* best effort: a failure (say, another process holds the write lock
         * past the busy timeout) must not fail the request */
        struct mg_err ignored = {0};
        int64_t changed = 0;
        if (mg_sql_runf(k.c, &changed, &ignored, "UPDATE tokens SET last_used=? WHERE id=? AND last_used<?", "isi",
                        (int64_t)now, id, (int64_t)(now - TOUCH_EVERY_S + 1)) == 0)
            tok->last_used = now;
    }
    mg__tokens_give(t, &k);
    sodium_memzero(want, sizeof(want));
    if (rc != 0) mg_token_release(tok);
    return rc;
}

void mg_tokens_set_default_rate(struct mg_tokens *t, int rate_per_min)
{
    __atomic_store_n(&t->default_rate, rate_per_min, __ATOMIC_RELAXED);
}

/* ---- 5. are tokens in use? -------------------------------------------------------------- */

/* SQLite: re-counted when tokens.db changed (data_version, which sees other
 * processes' commits). PostgreSQL: re-counted when the answer is older than
 * ANY_CACHE_MS, so a token made or revoked through another daemon counts
 * within a second. */
int mg_tokens_any_err(struct mg_tokens *t, bool *any, struct mg_err *err)
{
    *any = true; /* on an error: fail closed, tokens required */
    long long version = -1;
    int64_t now = (int64_t)mg_clock_ms();
    struct mg__tokens_conn k = {0};
    if (t->db) {
        pthread_mutex_lock(&t->mu);
        k.c = t->db;
        if (t->st_version || mg_sql_prepare(t->db, "PRAGMA data_version", &t->st_version, err) == 0) {
            if (mg_sql_step(t->st_version, err) == 1) version = mg_sql_int(t->st_version, 0);
            mg_sql_reset(t->st_version);
        }
        if (version < 0) {
            mg__tokens_give(t, &k);
            return -1;
        }
    }
    pthread_mutex_lock(&t->state);
    bool fresh = t->any_valid && (t->db ? version == t->any_version : now - t->any_at_ms < ANY_CACHE_MS);
    if (fresh) *any = t->any;
    pthread_mutex_unlock(&t->state);
    if (fresh) {
        mg__tokens_give(t, &k);
        return 0;
    }
    if (!k.c && mg__tokens_take(t, &k, err) != 0) return -1;
    struct mg_sql_st *st;
    int rc = mg_sql_prepare(k.c, "SELECT EXISTS(SELECT 1 FROM tokens WHERE revoked=0)", &st, err);
    if (rc == 0) {
        if (mg_sql_step(st, err) == 1) {
            *any = mg_sql_int(st, 0) != 0;
            pthread_mutex_lock(&t->state);
            t->any = *any;
            t->any_version = version;
            t->any_at_ms = now;
            t->any_valid = true;
            pthread_mutex_unlock(&t->state);
        } else {
            rc = -1;
        }
        mg_sql_finalize(&st);
    }
    mg__tokens_give(t, &k);
    if (rc != 0) *any = true;
    return rc;
}

bool mg_tokens_any(struct mg_tokens *t)
{
    bool any;
    struct mg_err err = {0};
    mg_tokens_any_err(t, &any, &err);
    return any;
}

int mg_tokens_required(const struct mg_config *c, bool listen_loopback, bool any_token, bool *required,
                       struct mg_err *err)
{
    if (strcmp(c->require_tokens, "always") == 0) {
        *required = true;
    } else if (strcmp(c->require_tokens, "never") == 0) {
        if (!listen_loopback)
            return mg_err_set(err, MG_E_LISTEN_REFUSED, "require_tokens = never is only allowed on a loopback "
                              "address; set require_tokens = auto, or listen on 127.0.0.1 or [::1]");
        *required = false;
    } else {
        *required = !listen_loopback || any_token;
    }
    return 0;
}
