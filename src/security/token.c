/* token.c — see token.h.
 *
 * One code path over store/sql.h serves both stores: <home>/tokens.db
 * (SQLite, one connection behind mu) and, with storage = postgres://..., the
 * shared tables tokens and rate_buckets (pgschema.c, step 0003_tokens), a
 * pooled connection per call. Those are system tables: authentication reads
 * them before it knows the tenant, so connections are taken for no tenant
 * (pg.h) and every statement names the row it wants (by id).
 */
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
#include "store/pg.h"
#include "store/sql.h"
#include "store/sqlite.h"
#include "util/buf.h"
#include "util/utf8.h"

#define SECRET_BYTES 32
#define SECRET_CHARS 43 /* unpadded base64url of 32 bytes */
#define HASH_BYTES 32
#define PEPPER_BYTES 32
#define TOUCH_EVERY_S 60
#define TOKENS_SCHEMA_VERSION 1
#define ANY_CACHE_MS 1000          /* PostgreSQL: how long mg_tokens_any's answer is kept */
#define PEPPER_META "token_pepper" /* memgate_meta's key for the pepper's fingerprint */

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

#define GET_SQL                                                                                                    \
    "SELECT hash, tenant, repos, scope, name, rate, created, expires, last_used, revoked FROM tokens WHERE id=?"

struct mg_tokens {
    pthread_mutex_t mu;       /* SQLite: the connection and st_get */
    struct mg_sql *db;        /* SQLite: tokens.db; NULL on PostgreSQL */
    struct mg_sql_st *st_get; /* SQLite: GET_SQL, kept prepared */
    struct mg_config *cfg;    /* PostgreSQL: a copy, for the pool */
    char path[PATH_MAX];      /* the store, as messages name it */
    char home[PATH_MAX];
    unsigned char pepper[PEPPER_BYTES];
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
struct conn {
    struct mg_sql *c;
    struct mg_pg *pool;
};

static int64_t mono_ms(void *arg)
{
    (void)arg;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void any_forget(struct mg_tokens *t)
{
    pthread_mutex_lock(&t->state);
    t->any_valid = false;
    pthread_mutex_unlock(&t->state);
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
 * into place, so two processes starting together agree on one pepper.
 * missing: the message when it is absent and may not be made. */
static int load_pepper(const char *home, unsigned char pepper[PEPPER_BYTES], bool may_create, const char *missing,
                       struct mg_err *err)
{
    char path[PATH_MAX], tmp[PATH_MAX + 64];
    snprintf(path, sizeof(path), "%s/token.pepper", home);
    int rc = read_exact(path, pepper, PEPPER_BYTES, err);
    if (rc == 0 || rc == -1) return rc;
    if (rc == -3)
        return mg_err_set(err, errno == EACCES ? MG_E_PERMISSION : MG_E_IO, "cannot open '%s': %s", path,
                          strerror(errno));
    if (!may_create) return mg_err_set(err, MG_E_IO, "'%s' is missing but %s", path, missing);
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

/* ---- the shared database's pepper --------------------------------------------------------------
 * PostgreSQL keeps the hashes of every daemon's tokens, so every daemon must
 * hash with the same pepper; but the pepper is not stored there (a copy of
 * the table alone must not let anyone test a guess). The database keeps its
 * fingerprint, BLAKE2b-256(key = pepper, "memgate token pepper fingerprint"),
 * set by the first memgate that uses it: from a 256-bit random key it tells
 * nothing about the key. A memgate whose pepper has another fingerprint
 * refuses to check or make tokens. */

static void fingerprint(const unsigned char pepper[PEPPER_BYTES], char hex[2 * HASH_BYTES + 1])
{
    static const char ctx[] = "memgate token pepper fingerprint";
    unsigned char h[HASH_BYTES];
    crypto_generichash(h, sizeof(h), (const unsigned char *)ctx, sizeof(ctx) - 1, pepper, PEPPER_BYTES);
    sodium_bin2hex(hex, 2 * HASH_BYTES + 1, h, sizeof(h));
}

static int pepper_differs(const struct mg_tokens *t, struct mg_err *err)
{
    return mg_err_set(err, MG_E_CONFIG, "this daemon's token.pepper (%s/token.pepper) differs from the one the "
                      "shared database's tokens were made with; copy token.pepper from a daemon that works into "
                      "%s (mode 0600), then restart", t->home, t->home);
}

/* Record this pepper's fingerprint if the database has none, and compare. */
static int pepper_check(struct mg_tokens *t, struct mg_sql *c, struct mg_err *err)
{
    pthread_mutex_lock(&t->state);
    bool done = t->pepper_checked;
    pthread_mutex_unlock(&t->state);
    if (done) return 0;
    char mine[2 * HASH_BYTES + 1];
    fingerprint(t->pepper, mine);
    struct mg_sql_st *st;
    /* DO UPDATE to itself, so that RETURNING gives the value there, ours or the first memgate's */
    if (mg_sql_prepare(c, "INSERT INTO memgate_meta(key, value) VALUES('" PEPPER_META "', ?) ON CONFLICT(key) "
                          "DO UPDATE SET value = memgate_meta.value RETURNING value", &st, err) != 0)
        return -1;
    mg_sql_bind_text(st, 1, mine);
    int rc = mg_sql_step(st, err);
    bool same = rc == 1 && strcmp(mg_sql_text(st, 0), mine) == 0;
    mg_sql_finalize(&st);
    if (rc < 0) return -1;
    if (!same) return pepper_differs(t, err);
    pthread_mutex_lock(&t->state);
    t->pepper_checked = true;
    pthread_mutex_unlock(&t->state);
    return 0;
}

static int take(struct mg_tokens *t, struct conn *k, struct mg_err *err)
{
    k->pool = NULL;
    if (t->db) {
        pthread_mutex_lock(&t->mu);
        k->c = t->db;
        return 0;
    }
    if (mg_pg_get(t->cfg, NULL, &k->pool, &k->c, err) != 0) return -1;
    if (pepper_check(t, k->c, err) != 0) {
        mg_pg_release(k->pool, &k->c);
        return -1;
    }
    return 0;
}

static void give(struct mg_tokens *t, struct conn *k)
{
    if (!k->c) return;
    if (t->db) {
        k->c = NULL;
        pthread_mutex_unlock(&t->mu);
        return;
    }
    mg_pg_release(k->pool, &k->c);
}

void mg_tokens_close(struct mg_tokens *t)
{
    if (!t) return;
    mg_sql_finalize(&t->st_get);
    mg_sql_close(&t->db);
    free(t->cfg);
    sodium_memzero(t->pepper, sizeof(t->pepper));
    pthread_mutex_destroy(&t->mu);
    pthread_mutex_destroy(&t->state);
    free(t);
}

bool mg_tokens_shared(const struct mg_tokens *t)
{
    return t->cfg != NULL;
}

static int open_sqlite(struct mg_tokens *t, struct mg_err *err)
{
    snprintf(t->path, sizeof(t->path), "%s/tokens.db", t->home);
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
    sqlite3 *db;
    if (mg_sqlite_open(t->path, &spec, &db, err) != 0) return -1;
    if (!(t->db = mg_sql_sqlite(db, t->path, "token store")))
        return mg_err_set(err, MG_E_NO_MEMORY, "out of memory opening the token store");
    if (mg_sql_prepare(t->db, GET_SQL, &t->st_get, err) != 0) return -1;
    struct mg_sql_st *st;
    bool have_rows = true;
    if (mg_sql_prepare(t->db, "SELECT EXISTS(SELECT 1 FROM tokens)", &st, err) != 0) return -1;
    if (mg_sql_step(st, err) == 1) have_rows = mg_sql_int(st, 0) != 0;
    mg_sql_finalize(&st);
    return load_pepper(t->home, t->pepper, !have_rows, "tokens.db has tokens, which cannot be checked without it; "
                       "restore it from a backup, or remove tokens.db to start over", err);
}

/* PostgreSQL: this home's pepper must be the one of the database's tokens.
 * A missing pepper is made only for a database that has neither tokens nor
 * a fingerprint. When the database cannot be reached, a pepper that is here
 * is checked on first use instead (pepper_check, from take). */
static int open_pg(struct mg_tokens *t, struct mg_err *err)
{
    snprintf(t->path, sizeof(t->path), "the shared database's tokens");
    char path[PATH_MAX + 16];
    snprintf(path, sizeof(path), "%s/token.pepper", t->home);
    if (access(path, F_OK) == 0) {
        if (load_pepper(t->home, t->pepper, false, "", err) != 0) return -1;
        struct conn k;
        struct mg_err e = {0};
        if (take(t, &k, &e) == 0) {
            give(t, &k);
            return 0;
        }
        if (e.code && strcmp(e.code, MG_E_STORAGE_UNAVAILABLE) == 0) return 0; /* checked on first use */
        *err = e;
        return -1;
    }
    struct mg_pg *pool;
    struct mg_sql *c;
    if (mg_pg_get(t->cfg, NULL, &pool, &c, err) != 0) return -1;
    struct mg_sql_st *st;
    int rc = mg_sql_prepare(c, "SELECT EXISTS(SELECT 1 FROM memgate_meta WHERE key = '" PEPPER_META "') OR "
                               "EXISTS(SELECT 1 FROM tokens)", &st, err);
    bool used = true;
    if (rc == 0) {
        rc = mg_sql_step(st, err) == 1 ? 0 : -1;
        if (rc == 0) used = mg_sql_int(st, 0) != 0;
        mg_sql_finalize(&st);
    }
    char missing[PATH_MAX + 128];
    snprintf(missing, sizeof(missing), "the shared database already has tokens made with one; copy token.pepper "
             "from a daemon that works into %s (mode 0600)", t->home);
    if (rc == 0) rc = load_pepper(t->home, t->pepper, !used, missing, err);
    if (rc == 0) rc = pepper_check(t, c, err);
    mg_pg_release(pool, &c);
    return rc;
}

int mg_tokens_open(const struct mg_config *c, struct mg_tokens **out, struct mg_err *err)
{
    *out = NULL;
    mg_sodium_ready();
    if (mg_mkdirs_0700(c->home, err) != 0) return -1;
    struct mg_tokens *t = calloc(1, sizeof(*t));
    if (!t) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory opening the token store");
    pthread_mutex_init(&t->mu, NULL);
    pthread_mutex_init(&t->state, NULL);
    t->default_rate = c->token_rate_limit;
    snprintf(t->home, sizeof(t->home), "%s", c->home);
    int rc;
    if (mg_pg_configured(c)) {
        if (!(t->cfg = malloc(sizeof(*t->cfg)))) {
            mg_tokens_close(t);
            return mg_err_set(err, MG_E_NO_MEMORY, "out of memory opening the token store");
        }
        *t->cfg = *c;
        rc = open_pg(t, err);
    } else {
        rc = open_sqlite(t, err);
    }
    if (rc != 0) {
        mg_tokens_close(t);
        return -1;
    }
    *out = t;
    return 0;
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
    struct conn k;
    if (take(t, &k, err) != 0) return -1;
    int rc = -1;
    struct mg_sql_st *st;
    /* an id taken already (64 random bits: never, in practice) inserts nothing: draw another */
    if (mg_sql_prepare(k.c, "INSERT INTO tokens(id, hash, tenant, repos, scope, name, rate, created, expires) "
                            "VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO NOTHING", &st, err) != 0) {
        give(t, &k);
        return -1;
    }
    for (int attempt = 0; attempt < 4 && rc != 0; attempt++) {
        randombytes_buf(r, sizeof(r));
        sodium_bin2hex(id, sizeof(id), r, sizeof(r));
        randombytes_buf(secret, sizeof(secret));
        token_hash(t, id, secret, hash);
        mg_sql_reset(st);
        mg_sql_bind_text(st, 1, id);
        mg_sql_bind_blob(st, 2, hash, HASH_BYTES);
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
    give(t, &k);
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
    struct conn k;
    if (take(t, &k, err) != 0) return -1;
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
        give(t, &k);
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
    give(t, &k);
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
    struct conn k;
    if (take(t, &k, err) != 0) return -1;
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
    give(t, &k);
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
    struct conn k;
    if (take(t, &k, err) != 0) return -1;
    /* every check reads the row: a revocation or an expiry holds at the next request, on every daemon */
    struct mg_sql_st *st = t->st_get;
    if (!st && mg_sql_prepare(k.c, GET_SQL, &st, err) != 0) {
        give(t, &k);
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
    bool found = hb && hl == HASH_BYTES;
    if (found) memcpy(have, hb, HASH_BYTES);
    bool match = sodium_memcmp(have, want, HASH_BYTES) == 0;
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
    give(t, &k);
    sodium_memzero(want, sizeof(want));
    if (rc != 0) mg_token_release(tok);
    return rc;
}

void mg_tokens_set_default_rate(struct mg_tokens *t, int rate_per_min)
{
    __atomic_store_n(&t->default_rate, rate_per_min, __ATOMIC_RELAXED);
}

/* SQLite: re-counted when tokens.db changed (data_version, which sees other
 * processes' commits). PostgreSQL: re-counted when the answer is older than
 * ANY_CACHE_MS, so a token made or revoked through another daemon counts
 * within a second. */
int mg_tokens_any_err(struct mg_tokens *t, bool *any, struct mg_err *err)
{
    *any = true; /* on an error: fail closed, tokens required */
    long long version = -1;
    int64_t now = mono_ms(NULL);
    struct conn k = {0};
    if (t->db) {
        pthread_mutex_lock(&t->mu);
        k.c = t->db;
        struct mg_sql_st *st;
        if (mg_sql_prepare(t->db, "PRAGMA data_version", &st, err) == 0) {
            if (mg_sql_step(st, err) == 1) version = mg_sql_int(st, 0);
            mg_sql_finalize(&st);
        }
        if (version < 0) {
            give(t, &k);
            return -1;
        }
    }
    pthread_mutex_lock(&t->state);
    bool fresh = t->any_valid && (t->db ? version == t->any_version : now - t->any_at_ms < ANY_CACHE_MS);
    if (fresh) *any = t->any;
    pthread_mutex_unlock(&t->state);
    if (fresh) {
        give(t, &k);
        return 0;
    }
    if (!k.c && take(t, &k, err) != 0) return -1;
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
    give(t, &k);
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
    struct mg_config *cfg; /* PostgreSQL: the buckets are rate_buckets, shared by every daemon */
    int64_t swept_ms;      /* PostgreSQL: the last sweep (monotonic) */
};

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
    free(rl->cfg);
    pthread_mutex_destroy(&rl->mu);
    free(rl);
}

int mg_ratelimit_open(const struct mg_config *c, struct mg_ratelimit **out, struct mg_err *err)
{
    if (!(*out = mg_ratelimit_new(NULL, NULL, 0)))
        return mg_err_set(err, MG_E_NO_MEMORY, "out of memory creating the rate limiter");
    if (!mg_pg_configured(c)) return 0;
    if (!((*out)->cfg = malloc(sizeof(*c)))) {
        mg_ratelimit_free(*out);
        *out = NULL;
        return mg_err_set(err, MG_E_NO_MEMORY, "out of memory creating the rate limiter");
    }
    *(*out)->cfg = *c;
    return 0;
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

/* This process's bucket of key. */
static bool mem_take(struct mg_ratelimit *rl, const char *key, int rate_per_min, int *retry_after_s)
{
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

/* The whole seconds until a bucket at level (< 1) has one request. */
static int wait_s(double level, int rate_per_min)
{
    double ms = (1.0 - level) * 60000.0 / rate_per_min;
    int s = (int)ceil(ms / 1000.0);
    return s < 1 ? 1 : s;
}

/* PostgreSQL: the shared bucket of key, in one statement. The bucket is
 * refilled for the time since `at` at the rate it had (capped at its old
 * and its new burst), one request taken if one is there; a new key starts
 * full (burst - 1 after this request). Times are the database's clock
 * (clock_timestamp(): now, not the transaction's start), so the daemons'
 * clocks do not matter; greatest() keeps `at` from going back when two
 * statements cross. The row lock serialises concurrent takes of one key:
 * together they never take more than the bucket holds. */
#define RL_LEVEL                                                                                                     \
    "least(?3::float8, greatest(b.rate / 6, 10)::float8,"                                                            \
    "      b.level + greatest(0::float8, excluded.at - b.at) * b.rate::float8 / 60)"
static const char RL_TAKE[] =
    "INSERT INTO rate_buckets AS b(key, level, at, rate, took) "
    "VALUES(?1, ?3::float8 - 1, extract(epoch FROM clock_timestamp()), ?2::int, 1) "
    "ON CONFLICT(key) DO UPDATE SET "
    "  level = " RL_LEVEL " - CASE WHEN " RL_LEVEL " >= 1 THEN 1 ELSE 0 END,"
    "  took = CASE WHEN " RL_LEVEL " >= 1 THEN 1 ELSE 0 END,"
    "  at = greatest(b.at, excluded.at), rate = excluded.rate "
    "RETURNING took, level";

#define RL_SWEEP_MS 60000

int mg_ratelimit_sweep(struct mg_ratelimit *rl, int64_t *removed, struct mg_err *err)
{
    if (removed) *removed = 0;
    if (!rl->cfg) return 0;
    struct mg_pg *pool;
    struct mg_sql *c;
    if (mg_pg_get(rl->cfg, NULL, &pool, &c, err) != 0) return -1;
    /* a bucket idle long enough to be full again is the same as none (a new key starts full) */
    int rc = mg_sql_runf(c, removed, err,
                         "DELETE FROM rate_buckets WHERE at + greatest(rate / 6, 10)::float8 * 60 / greatest(rate, 1) "
                         "<= extract(epoch FROM clock_timestamp())", "");
    mg_pg_release(pool, &c);
    return rc;
}

static int pg_take(struct mg_ratelimit *rl, const char *key, int rate_per_min, int *retry_after_s,
                   struct mg_err *err)
{
    struct mg_pg *pool;
    struct mg_sql *c;
    if (mg_pg_get(rl->cfg, NULL, &pool, &c, err) != 0) return -1;
    struct mg_sql_st *st;
    int rc = mg_sql_prepare(c, RL_TAKE, &st, err);
    if (rc == 0) {
        mg_sql_bind_text(st, 1, key);
        mg_sql_bind_int(st, 2, rate_per_min);
        mg_sql_bind_double(st, 3, burst_of(rate_per_min));
        int s = mg_sql_step(st, err);
        if (s == 1) {
            rc = mg_sql_int(st, 0) ? 1 : 0;
            if (rc == 0 && retry_after_s) *retry_after_s = wait_s(mg_sql_double(st, 1), rate_per_min);
        } else {
            rc = s < 0 ? -1 : mg_err_set(err, MG_E_DB, "rate limit: the bucket statement returned no row");
        }
        mg_sql_finalize(&st);
    }
    mg_pg_release(pool, &c);
    /* now and then (once a minute per process), forget buckets that are full again */
    int64_t now = mono_ms(NULL);
    pthread_mutex_lock(&rl->mu);
    bool sweep = rc >= 0 && now - rl->swept_ms >= RL_SWEEP_MS;
    if (sweep) rl->swept_ms = now;
    pthread_mutex_unlock(&rl->mu);
    if (sweep) {
        struct mg_err ignored = {0};
        mg_ratelimit_sweep(rl, NULL, &ignored); /* best effort: the next sweep does it */
    }
    return rc;
}

int mg_rate_check(struct mg_ratelimit *rl, const char *key, int rate_per_min, int *retry_after_s,
                  struct mg_err *err)
{
    if (retry_after_s) *retry_after_s = 0;
    if (rate_per_min <= 0) return 1;
    if (rl->cfg) return pg_take(rl, key, rate_per_min, retry_after_s, err);
    return mem_take(rl, key, rate_per_min, retry_after_s) ? 1 : 0;
}

bool mg_rate_take(struct mg_ratelimit *rl, const char *key, int rate_per_min, int *retry_after_s)
{
    struct mg_err err = {0};
    int rc = mg_rate_check(rl, key, rate_per_min, retry_after_s, &err);
    if (rc < 0 && retry_after_s) *retry_after_s = 1; /* the store failed: refused, never unlimited */
    return rc == 1;
}
