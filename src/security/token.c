/* token.c — see token.h. */
#include "security/token.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "store/catalog.h"
#include "store/sqlite.h"
#include "util/utf8.h"

#define SECRET_BYTES 32
#define SECRET_CHARS 43 /* unpadded base64url of 32 bytes */
#define HASH_BYTES 32
#define PEPPER_BYTES 32
#define TOUCH_EVERY_S 60
#define TOKENS_SCHEMA_VERSION 1

static const char *const migrations[] = {
    /* 0 -> 1 */
    "CREATE TABLE tokens("
    "  id TEXT PRIMARY KEY,"            /* 16 hex digits, public */
    "  hash BLOB NOT NULL,"             /* BLAKE2b-256(key=pepper, 'mgt1' || id || secret) */
    "  tenant TEXT NOT NULL,"
    "  repos TEXT NOT NULL DEFAULT '',"  /* comma-separated repo ids; '' = every repo of the tenant */
    "  scope INTEGER NOT NULL,"          /* the access level, MG_LEVEL_* (the column keeps its first name) */
    "  name TEXT NOT NULL DEFAULT '',"
    "  rate INTEGER,"                    /* requests/min; NULL follows token_rate_limit; 0 unlimited */
    "  created INTEGER NOT NULL,"        /* unix seconds */
    "  expires INTEGER NOT NULL DEFAULT 0,"   /* unix seconds; 0 never */
    "  last_used INTEGER NOT NULL DEFAULT 0,"
    "  revoked INTEGER NOT NULL DEFAULT 0"    /* unix seconds of the revocation; 0 active */
    ");",
};

struct mg_tokens {
    pthread_mutex_t mu;
    sqlite3 *db;
    char path[PATH_MAX];
    unsigned char pepper[PEPPER_BYTES];
    int default_rate;
    sqlite3_stmt *st_get;
    bool any_valid; /* the cached answer of mg_tokens_any is current as of any_version */
    bool any;
    long long any_version;
};

static int dberr(struct mg_tokens *t, const char *what, struct mg_err *err)
{
    return mg_sqlite_fail(t->db, t->path, what, err);
}

static int exec(struct mg_tokens *t, const char *sql, struct mg_err *err)
{
    if (sqlite3_exec(t->db, sql, NULL, NULL, NULL) != SQLITE_OK) return dberr(t, "tokens", err);
    return 0;
}

static int read_exact(const char *path, unsigned char *buf, size_t n, struct mg_err *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return errno == ENOENT ? -2 : -3; /* absent; cannot open */
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size != (off_t)n) {
        close(fd);
        return mg_err_set(err, MG_E_IO, "'%s' is not a %zu-byte file; restore it from a backup (or, to invalidate "
                          "every token, remove it together with tokens.db)", path, n);
    }
    if (st.st_mode & 077) {
        close(fd);
        return mg_err_set(err, MG_E_PERMISSION, "'%s' can be read by other users; run `chmod 600 %s`", path, path);
    }
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    close(fd);
    if (got != n) return mg_err_set(err, MG_E_IO, "cannot read '%s': %s", path, strerror(errno));
    return 0;
}

/* The installation's pepper: read it, or (only when no token exists yet)
 * create it atomically: written to a unique temporary file, then link(2)ed
 * into place, so two processes starting together agree on one pepper. */
static int load_pepper(const char *home, unsigned char pepper[PEPPER_BYTES], bool may_create, struct mg_err *err)
{
    char path[PATH_MAX], tmp[PATH_MAX + 64];
    snprintf(path, sizeof(path), "%s/token.pepper", home);
    int rc = read_exact(path, pepper, PEPPER_BYTES, err);
    if (rc == 0 || rc == -1) return rc;
    if (rc == -3)
        return mg_err_set(err, errno == EACCES ? MG_E_PERMISSION : MG_E_IO, "cannot open '%s': %s", path,
                          strerror(errno));
    if (!may_create)
        return mg_err_set(err, MG_E_IO, "'%s' is missing but tokens.db has tokens, which cannot be checked without "
                          "it; restore it from a backup, or remove tokens.db to start over", path);
    unsigned char r[8];
    char hex[17];
    randombytes_buf(r, sizeof(r));
    sodium_bin2hex(hex, sizeof(hex), r, sizeof(r));
    snprintf(tmp, sizeof(tmp), "%s.%s.tmp", path, hex);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) return mg_err_set(err, MG_E_IO, "cannot create '%s': %s", tmp, strerror(errno));
    unsigned char p[PEPPER_BYTES];
    randombytes_buf(p, sizeof(p));
    bool ok = write(fd, p, sizeof(p)) == (ssize_t)sizeof(p) && fsync(fd) == 0;
    int e = errno;
    close(fd);
    sodium_memzero(p, sizeof(p));
    if (!ok || (link(tmp, path) != 0 && errno != EEXIST)) {
        if (ok) e = errno;
        unlink(tmp);
        return mg_err_set(err, MG_E_IO, "cannot write '%s': %s", path, strerror(e));
    }
    unlink(tmp);
    int dfd = open(home, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    rc = read_exact(path, pepper, PEPPER_BYTES, err);
    if (rc < -1) return mg_err_set(err, MG_E_IO, "cannot read '%s' after creating it: %s", path, strerror(errno));
    return rc;
}

void mg_tokens_close(struct mg_tokens *t)
{
    if (!t) return;
    sqlite3_finalize(t->st_get);
    if (t->db) sqlite3_close_v2(t->db);
    sodium_memzero(t->pepper, sizeof(t->pepper));
    pthread_mutex_destroy(&t->mu);
    free(t);
}

int mg_tokens_open(const struct mg_config *c, struct mg_tokens **out, struct mg_err *err)
{
    *out = NULL;
    mg_sodium_ready();
    if (mg_mkdirs_0700(c->home, err) != 0) return -1;
    struct mg_tokens *t = calloc(1, sizeof(*t));
    if (!t) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory opening the token store");
    pthread_mutex_init(&t->mu, NULL);
    t->default_rate = c->token_rate_limit;
    snprintf(t->path, sizeof(t->path), "%s/tokens.db", c->home);
    /* synchronous=FULL: in WAL mode every commit syncs the WAL, so a token
     * that `token create` printed, or a revocation it acknowledged, survives
     * a power cut. Writes are rare (create, revoke, last_used once a minute
     * per token), so the sync costs nothing that matters. */
    struct mg_sqlite_spec spec = {
        .what = "token store",
        .create = true,
        .busy_ms = 5000,
        .pragmas = "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;",
        .migrations = migrations,
        .version = TOKENS_SCHEMA_VERSION,
    };
    if (mg_sqlite_open(t->path, &spec, &t->db, err) != 0) goto fail;
    if (sqlite3_prepare_v2(t->db,
                           "SELECT hash, tenant, repos, scope, name, rate, created, expires, last_used, revoked "
                           "FROM tokens WHERE id=?",
                           -1, &t->st_get, NULL) != SQLITE_OK) {
        dberr(t, "prepare", err);
        goto fail;
    }
    sqlite3_stmt *st;
    bool have_rows = true;
    if (sqlite3_prepare_v2(t->db, "SELECT EXISTS(SELECT 1 FROM tokens)", -1, &st, NULL) != SQLITE_OK) {
        dberr(t, "count tokens", err);
        goto fail;
    }
    if (sqlite3_step(st) == SQLITE_ROW) have_rows = sqlite3_column_int(st, 0) != 0;
    sqlite3_finalize(st);
    if (load_pepper(c->home, t->pepper, !have_rows, err) != 0) goto fail;
    *out = t;
    return 0;
fail:
    mg_tokens_close(t);
    return -1;
}

/* ---- token text --------------------------------------------------------------------- */

static void token_hash(const struct mg_tokens *t, const char *id, const unsigned char secret[SECRET_BYTES],
                       unsigned char out[HASH_BYTES])
{
    crypto_generichash_state s;
    crypto_generichash_init(&s, t->pepper, PEPPER_BYTES, HASH_BYTES);
    crypto_generichash_update(&s, (const unsigned char *)"mgt1", 4);
    crypto_generichash_update(&s, (const unsigned char *)id, MG_TOKEN_ID_LEN);
    crypto_generichash_update(&s, secret, SECRET_BYTES);
    crypto_generichash_final(&s, out, HASH_BYTES);
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

/* ---- rows ---------------------------------------------------------------------------- */

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
static int row_token(struct mg_tokens *t, sqlite3_stmt *st, int col, struct mg_token *tok)
{
    snprintf(tok->tenant, sizeof(tok->tenant), "%s", (const char *)sqlite3_column_text(st, col));
    if (split_repos((const char *)sqlite3_column_text(st, col + 1), tok) != 0) {
        mg_token_release(tok);
        return -1;
    }
    tok->level = sqlite3_column_int(st, col + 2);
    snprintf(tok->name, sizeof(tok->name), "%s", (const char *)sqlite3_column_text(st, col + 3));
    tok->rate_own = sqlite3_column_type(st, col + 4) == SQLITE_NULL ? -1 : sqlite3_column_int(st, col + 4);
    tok->rate_per_min = tok->rate_own >= 0 ? tok->rate_own : t->default_rate;
    tok->created = sqlite3_column_int64(st, col + 5);
    tok->expires = sqlite3_column_int64(st, col + 6);
    tok->last_used = sqlite3_column_int64(st, col + 7);
    tok->revoked = sqlite3_column_int64(st, col + 8);
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
    for (size_t i = 0; i < tok->nrepos; i++)
        if (strcmp(tok->repos[i], repo_id) == 0) return true;
    return false;
}


/* ---- create, list, revoke --------------------------------------------------------- */

static int check_spec(const struct mg_token *spec, struct mg_err *err)
{
    if (mg_tenant_check(spec->tenant, err) != 0) return -1;
    if (spec->nrepos > MG_TOKEN_MAX_REPOS)
        return mg_err_set(err, MG_E_BAD_ARG, "a token may name at most %d repos; leave --repos out to allow all of "
                          "the tenant's repos", MG_TOKEN_MAX_REPOS);
    for (size_t i = 0; i < spec->nrepos; i++)
        if (mg_repo_check_name(spec->repos[i], err) != 0) return -1;
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
    unsigned char secret[SECRET_BYTES], hash[HASH_BYTES], r[MG_TOKEN_ID_LEN / 2];
    char id[MG_TOKEN_ID_LEN + 1];
    long long now = (long long)(mg_wall_ms() / 1000);
    sqlite3_stmt *st;
    pthread_mutex_lock(&t->mu);
    int rc = -1;
    if (sqlite3_prepare_v2(t->db,
                           "INSERT INTO tokens(id, hash, tenant, repos, scope, name, rate, created, expires) "
                           "VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)",
                           -1, &st, NULL) != SQLITE_OK) {
        dberr(t, "create token", err);
        pthread_mutex_unlock(&t->mu);
        return -1;
    }
    for (int attempt = 0; attempt < 4 && rc != 0; attempt++) {
        randombytes_buf(r, sizeof(r));
        sodium_bin2hex(id, sizeof(id), r, sizeof(r));
        randombytes_buf(secret, sizeof(secret));
        token_hash(t, id, secret, hash);
        sqlite3_reset(st);
        sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
        sqlite3_bind_blob(st, 2, hash, HASH_BYTES, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, spec->tenant, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, repos, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 5, spec->level);
        sqlite3_bind_text(st, 6, spec->name, -1, SQLITE_STATIC);
        if (spec->rate_own >= 0) sqlite3_bind_int(st, 7, spec->rate_own);
        else sqlite3_bind_null(st, 7);
        sqlite3_bind_int64(st, 8, now);
        sqlite3_bind_int64(st, 9, spec->expires);
        int s = sqlite3_step(st);
        if (s == SQLITE_DONE) rc = 0;
        else if (sqlite3_extended_errcode(t->db) != SQLITE_CONSTRAINT_PRIMARYKEY) break; /* else: id taken, retry */
    }
    if (rc != 0) dberr(t, "create token", err);
    sqlite3_finalize(st);
    t->any_valid = false;
    pthread_mutex_unlock(&t->mu);
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
            created->rate_per_min = spec->rate_own >= 0 ? spec->rate_own : t->default_rate;
            created->created = now;
            if (split_repos(repos, created) != 0) {
                mg_token_release(created);
                rc = mg_err_set(err, MG_E_NO_MEMORY, "out of memory");
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
    sqlite3_stmt *st;
    size_t cap = 0;
    int rc = 0;
    pthread_mutex_lock(&t->mu);
    if (sqlite3_prepare_v2(t->db,
                           "SELECT id, tenant, repos, scope, name, rate, created, expires, last_used, revoked "
                           "FROM tokens ORDER BY created, rowid",
                           -1, &st, NULL) != SQLITE_OK) {
        rc = dberr(t, "list tokens", err);
        pthread_mutex_unlock(&t->mu);
        return rc;
    }
    int s;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? cap * 2 : 16;
            struct mg_token *v = realloc(*out, cap * sizeof(*v));
            if (!v) {
                rc = mg_err_set(err, MG_E_NO_MEMORY, "out of memory listing tokens");
                break;
            }
            *out = v;
        }
        struct mg_token *tok = &(*out)[*n];
        memset(tok, 0, sizeof(*tok));
        snprintf(tok->id, sizeof(tok->id), "%s", (const char *)sqlite3_column_text(st, 0));
        if (row_token(t, st, 1, tok) != 0) {
            rc = mg_err_set(err, MG_E_NO_MEMORY, "out of memory listing tokens");
            break;
        }
        (*n)++;
    }
    if (rc == 0 && s != SQLITE_DONE) rc = dberr(t, "list tokens", err);
    sqlite3_finalize(st);
    pthread_mutex_unlock(&t->mu);
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
    pthread_mutex_lock(&t->mu);
    int rc = -1;
    sqlite3_stmt *st = NULL;
    if (exec(t, "BEGIN IMMEDIATE", err) != 0) goto out;
    if (sqlite3_prepare_v2(t->db, "SELECT revoked, tenant FROM tokens WHERE id=?", -1, &st, NULL) != SQLITE_OK) {
        dberr(t, "revoke token", err);
        goto rollback;
    }
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    int s = sqlite3_step(st);
    if (s != SQLITE_ROW) {
        if (s == SQLITE_DONE)
            mg_err_set(err, MG_E_TOKEN_NOT_FOUND, "no token has id '%s'; see `memgate token list`", id);
        else dberr(t, "revoke token", err);
        goto rollback;
    }
    long long revoked = sqlite3_column_int64(st, 0);
    if (tenant_out) snprintf(tenant_out, MG_TENANT_MAX + 1, "%s", (const char *)sqlite3_column_text(st, 1));
    sqlite3_finalize(st);
    st = NULL;
    if (revoked) {
        if (was_revoked) *was_revoked = true;
        sqlite3_exec(t->db, "ROLLBACK", NULL, NULL, NULL);
        rc = 0;
        goto out;
    }
    if (sqlite3_prepare_v2(t->db, "UPDATE tokens SET revoked=? WHERE id=?", -1, &st, NULL) != SQLITE_OK) {
        dberr(t, "revoke token", err);
        goto rollback;
    }
    sqlite3_bind_int64(st, 1, (long long)(mg_wall_ms() / 1000) > 0 ? (long long)(mg_wall_ms() / 1000) : 1);
    sqlite3_bind_text(st, 2, id, -1, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_DONE) {
        dberr(t, "revoke token", err);
        goto rollback;
    }
    if (exec(t, "COMMIT", err) != 0) goto rollback;
    rc = 0;
    goto out;
rollback:
    sqlite3_exec(t->db, "ROLLBACK", NULL, NULL, NULL);
out:
    sqlite3_finalize(st);
    t->any_valid = false;
    pthread_mutex_unlock(&t->mu);
    return rc;
}

/* ---- check ------------------------------------------------------------------------- */

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
    unsigned char secret[SECRET_BYTES], want[HASH_BYTES], have[HASH_BYTES];
    if (!parse_token(bearer, id, secret)) {
        sodium_memzero(secret, sizeof(secret));
        return invalid(err);
    }
    token_hash(t, id, secret, want);
    sodium_memzero(secret, sizeof(secret));
    long long now = (long long)(mg_wall_ms() / 1000);
    int rc = -1;
    pthread_mutex_lock(&t->mu);
    sqlite3_stmt *st = t->st_get;
    sqlite3_reset(st);
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    int s = sqlite3_step(st);
    /* an unknown id still pays for one constant-time compare, against a value
     * no hash equals with any measurable probability */
    memset(have, 0, sizeof(have));
    bool found = s == SQLITE_ROW && sqlite3_column_bytes(st, 0) == HASH_BYTES;
    if (found) memcpy(have, sqlite3_column_blob(st, 0), HASH_BYTES);
    bool match = sodium_memcmp(have, want, HASH_BYTES) == 0;
    if (s != SQLITE_ROW && s != SQLITE_DONE) {
        dberr(t, "check token", err);
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
    sqlite3_reset(st);
    if (rc == 0 && now - tok->last_used >= TOUCH_EVERY_S) {
        /* best effort: a failure (say, another process holds the write lock
         * past the busy timeout) must not fail the request */
        sqlite3_stmt *u;
        if (sqlite3_prepare_v2(t->db, "UPDATE tokens SET last_used=? WHERE id=? AND last_used<?", -1, &u, NULL) ==
            SQLITE_OK) {
            sqlite3_bind_int64(u, 1, now);
            sqlite3_bind_text(u, 2, id, -1, SQLITE_STATIC);
            sqlite3_bind_int64(u, 3, now - TOUCH_EVERY_S + 1);
            if (sqlite3_step(u) == SQLITE_DONE) tok->last_used = now;
            sqlite3_finalize(u);
        }
    }
    pthread_mutex_unlock(&t->mu);
    sodium_memzero(want, sizeof(want));
    if (rc != 0) mg_token_release(tok);
    return rc;
}

void mg_tokens_set_default_rate(struct mg_tokens *t, int rate_per_min)
{
    pthread_mutex_lock(&t->mu); /* row_token reads it under mu */
    t->default_rate = rate_per_min;
    pthread_mutex_unlock(&t->mu);
}

bool mg_tokens_any(struct mg_tokens *t)
{
    bool any = true; /* on a database error: fail closed, tokens required */
    pthread_mutex_lock(&t->mu);
    sqlite3_stmt *st;
    long long version = -1;
    if (sqlite3_prepare_v2(t->db, "PRAGMA data_version", -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW) version = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    if (version >= 0 && t->any_valid && version == t->any_version) {
        any = t->any;
    } else if (version >= 0 &&
               sqlite3_prepare_v2(t->db, "SELECT EXISTS(SELECT 1 FROM tokens WHERE revoked=0)", -1, &st, NULL) ==
                   SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW) {
            any = sqlite3_column_int(st, 0) != 0;
            t->any = any;
            t->any_version = version;
            t->any_valid = true;
        }
        sqlite3_finalize(st);
    }
    pthread_mutex_unlock(&t->mu);
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

/* ---- rate limit ---------------------------------------------------------------------- */

#define RL_SLOTS 4096

struct rl_bucket {
    struct rl_bucket *next;
    double tokens;
    int64_t last_ms;
    int rate;
    char key[];
};

struct mg_ratelimit {
    pthread_mutex_t mu;
    mg_clock_ms_fn clock;
    void *clock_arg;
    size_t max, n;
    struct rl_bucket *slot[RL_SLOTS];
};

static int64_t mono_ms(void *arg)
{
    (void)arg;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static double burst_of(int rate)
{
    return rate / 6 > 10 ? (double)(rate / 6) : 10.0;
}

/* The bucket's level at now (not stored). */
static double level_at(const struct rl_bucket *b, int64_t now)
{
    int64_t dt = now > b->last_ms ? now - b->last_ms : 0;
    double v = b->tokens + (double)dt * b->rate / 60000.0;
    double cap = burst_of(b->rate);
    return v > cap ? cap : v;
}

struct mg_ratelimit *mg_ratelimit_new(mg_clock_ms_fn clock, void *clock_arg, size_t max_keys)
{
    struct mg_ratelimit *rl = calloc(1, sizeof(*rl));
    if (!rl) return NULL;
    pthread_mutex_init(&rl->mu, NULL);
    rl->clock = clock ? clock : mono_ms;
    rl->clock_arg = clock_arg;
    rl->max = max_keys ? max_keys : 65536;
    return rl;
}

void mg_ratelimit_free(struct mg_ratelimit *rl)
{
    if (!rl) return;
    for (size_t i = 0; i < RL_SLOTS; i++) {
        for (struct rl_bucket *b = rl->slot[i], *nx; b; b = nx) {
            nx = b->next;
            free(b);
        }
    }
    pthread_mutex_destroy(&rl->mu);
    free(rl);
}

size_t mg_ratelimit_size(struct mg_ratelimit *rl)
{
    pthread_mutex_lock(&rl->mu);
    size_t n = rl->n;
    pthread_mutex_unlock(&rl->mu);
    return n;
}

static size_t rl_hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return (size_t)(h % RL_SLOTS);
}

/* Drop every full bucket; if none was full, the longest idle one. */
static void rl_evict(struct mg_ratelimit *rl, int64_t now)
{
    for (size_t i = 0; i < RL_SLOTS; i++) {
        for (struct rl_bucket **pb = &rl->slot[i]; *pb;) {
            struct rl_bucket *b = *pb;
            if (level_at(b, now) >= burst_of(b->rate)) {
                *pb = b->next;
                free(b);
                rl->n--;
            } else {
                pb = &b->next;
            }
        }
    }
    if (rl->n < rl->max) return;
    struct rl_bucket **oldest = NULL;
    for (size_t i = 0; i < RL_SLOTS; i++)
        for (struct rl_bucket **pb = &rl->slot[i]; *pb; pb = &(*pb)->next)
            if (!oldest || (*pb)->last_ms < (*oldest)->last_ms) oldest = pb;
    if (oldest) {
        struct rl_bucket *b = *oldest;
        *oldest = b->next;
        free(b);
        rl->n--;
    }
}

bool mg_rate_take(struct mg_ratelimit *rl, const char *key, int rate_per_min, int *retry_after_s)
{
    if (retry_after_s) *retry_after_s = 0;
    if (rate_per_min <= 0) return true;
    pthread_mutex_lock(&rl->mu);
    int64_t now = rl->clock(rl->clock_arg);
    size_t h = rl_hash(key);
    struct rl_bucket *b = rl->slot[h];
    while (b && strcmp(b->key, key) != 0) b = b->next;
    if (!b) {
        if (rl->n >= rl->max) rl_evict(rl, now);
        size_t kl = strlen(key);
        b = malloc(sizeof(*b) + kl + 1);
        if (!b) {
            /* out of memory: refuse rather than let an unlimited stream through */
            pthread_mutex_unlock(&rl->mu);
            if (retry_after_s) *retry_after_s = 1;
            return false;
        }
        memcpy(b->key, key, kl + 1);
        b->rate = rate_per_min;
        b->tokens = burst_of(rate_per_min);
        b->last_ms = now;
        b->next = rl->slot[h];
        rl->slot[h] = b;
        rl->n++;
    }
    if (b->rate != rate_per_min) { /* the token's rate changed: keep what is left, within the new burst */
        b->tokens = level_at(b, now);
        b->last_ms = now > b->last_ms ? now : b->last_ms;
        b->rate = rate_per_min;
        if (b->tokens > burst_of(b->rate)) b->tokens = burst_of(b->rate);
    }
    b->tokens = level_at(b, now);
    if (now > b->last_ms) b->last_ms = now;
    bool ok = b->tokens >= 1.0;
    if (ok) {
        b->tokens -= 1.0;
    } else if (retry_after_s) {
        double ms = (1.0 - b->tokens) * 60000.0 / rate_per_min;
        int s = (int)ceil(ms / 1000.0);
        *retry_after_s = s < 1 ? 1 : s;
    }
    pthread_mutex_unlock(&rl->mu);
    return ok;
}
