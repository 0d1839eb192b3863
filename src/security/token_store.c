/* token_store.c — where the access tokens (token.h) live, and the pepper
 * they are hashed with: <home>/tokens.db (SQLite, one connection behind a
 * mutex) or, with storage = postgres://..., the shared table tokens
 * (pgschema.c, step 0003_tokens), a pooled connection per call. That is a
 * system table: authentication reads it before it knows the tenant, so
 * connections are taken for no tenant (pg.h). token.c works on either
 * through mg__tokens_take (token_int.h).
 *
 * Sections:
 *   1. the pepper file
 *   2. the shared database's pepper
 *   3. a connection per call
 *   4. opening and closing
 */
#include "security/token_int.h"

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "store/sqlite.h"

#define TOKENS_SCHEMA_VERSION 1
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

/* ---- 1. the pepper file ----------------------------------------------------------------- */

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
    size_t got = mg_read_full(fd, buf, n);
    close(fd);
    if (got != n) return mg_err_set(err, MG_E_IO, "cannot read '%s': %s", path, strerror(errno));
    return 0;
}

/* The installation's pepper: read it, or (only when no token exists yet)
 * create it atomically: written to a unique temporary file, then link(2)ed
 * into place, so two processes starting together agree on one pepper.
 * missing: the message when it is absent and may not be made. */
static int load_pepper(const char *home, unsigned char pepper[MG__TOKEN_PEPPER_BYTES], bool may_create, const char *missing,
                       struct mg_err *err)
{
    char path[PATH_MAX], tmp[PATH_MAX + 64];
    snprintf(path, sizeof(path), "%s/token.pepper", home);
    int rc = read_exact(path, pepper, MG__TOKEN_PEPPER_BYTES, err);
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
    unsigned char p[MG__TOKEN_PEPPER_BYTES];
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
    rc = read_exact(path, pepper, MG__TOKEN_PEPPER_BYTES, err);
    if (rc < -1) return mg_err_set(err, MG_E_IO, "cannot read '%s' after creating it: %s", path, strerror(errno));
    return rc;
}

int mg_token_pepper_key(const char *home, const char *context, unsigned char out[32], struct mg_err *err)
{
    unsigned char pepper[MG__TOKEN_PEPPER_BYTES];
    if (load_pepper(home, pepper, false, "memory vectors on PostgreSQL are sealed under a key derived from it; "
                    "start `memgate serve` once with this data directory, or copy the other daemons' token.pepper",
                    err) != 0)
        return -1;
    crypto_generichash(out, 32, (const unsigned char *)context, strlen(context), pepper, sizeof(pepper));
    sodium_memzero(pepper, sizeof(pepper));
    return 0;
}

/* ---- 2. the shared database's pepper ---------------------------------------------------- */

/* PostgreSQL keeps the hashes of every daemon's tokens, so every daemon must
 * hash with the same pepper; but the pepper is not stored there (a copy of
 * the table alone must not let anyone test a guess). The database keeps its
 * fingerprint, BLAKE2b-256(key = pepper, "memgate token pepper fingerprint"),
 * set by the first memgate that uses it: from a 256-bit random key it tells
 * nothing about the key. A memgate whose pepper has another fingerprint
 * refuses to check or make tokens. */

static void fingerprint(const unsigned char pepper[MG__TOKEN_PEPPER_BYTES], char hex[2 * MG__TOKEN_HASH_BYTES + 1])
{
    static const char ctx[] = "memgate token pepper fingerprint";
    unsigned char h[MG__TOKEN_HASH_BYTES];
    crypto_generichash(h, sizeof(h), (const unsigned char *)ctx, sizeof(ctx) - 1, pepper, MG__TOKEN_PEPPER_BYTES);
    sodium_bin2hex(hex, 2 * MG__TOKEN_HASH_BYTES + 1, h, sizeof(h));
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
    char mine[2 * MG__TOKEN_HASH_BYTES + 1];
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

/* ---- 3. a connection per call ----------------------------------------------------------- */

int mg__tokens_take(struct mg_tokens *t, struct mg__tokens_conn *k, struct mg_err *err)
{
    k->pool = NULL;
    if (t->db) {
        pthread_mutex_lock(&t->mu);
        k->c = t->db;
        return 0;
    }
    if (mg_pg_get(t->cfg, NULL, &k->pool, &k->c, err) != 0) return -1;
    if (pepper_check(t, k->c, err) != 0) {
        mg_pg_put(k->pool, &k->c);
        return -1;
    }
    return 0;
}

void mg__tokens_give(struct mg_tokens *t, struct mg__tokens_conn *k)
{
    if (!k->c) return;
    if (t->db) {
        k->c = NULL;
        pthread_mutex_unlock(&t->mu);
        return;
    }
    mg_pg_put(k->pool, &k->c);
}

/* ---- 4. opening and closing ------------------------------------------------------------- */

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
    if (mg_sql_prepare(t->db, MG__TOKEN_GET_SQL, &t->st_get, err) != 0) return -1;
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
 * is checked on first use instead (pepper_check, from mg__tokens_take). */
static int open_pg(struct mg_tokens *t, struct mg_err *err)
{
    snprintf(t->path, sizeof(t->path), "the shared database's tokens");
    char path[PATH_MAX + 16];
    snprintf(path, sizeof(path), "%s/token.pepper", t->home);
    if (access(path, F_OK) == 0) {
        if (load_pepper(t->home, t->pepper, false, "", err) != 0) return -1;
        struct mg__tokens_conn k;
        struct mg_err e = {0};
        if (mg__tokens_take(t, &k, &e) == 0) {
            mg__tokens_give(t, &k);
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
    mg_pg_put(pool, &c);
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

void mg_tokens_close(struct mg_tokens *t)
{
    if (!t) return;
    mg_sql_finalize(&t->st_get);
    mg_sql_finalize(&t->st_version);
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
