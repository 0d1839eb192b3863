/* test_token.c — access tokens (security/token.h) and `memgate token`, on SQLite and (tests named *pg*)
 * on PostgreSQL: two "daemons" sharing tokens, the pepper check, shared rate limits. */
#include "test.h"

#include <pthread.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "security/token.h"
#include "store/pg.h"

static void cfg_for(struct mg_config *c, const char *home)
{
    mg_t_config_defaults(c);
    snprintf(c->home, sizeof(c->home), "%s", home);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        *len = 0;
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    *len = fread(b, 1, (size_t)n, f);
    b[*len] = 0;
    fclose(f);
    return b;
}

static bool file_has(const char *path, const char *needle)
{
    size_t n;
    char *b = slurp(path, &n);
    bool r = b && memmem(b, n, needle, strlen(needle)) != NULL;
    free(b);
    return r;
}

static int mode_of(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) FAIL("stat %s", path);
    return (int)(st.st_mode & 0777);
}

TEST(token_cli_create_list_revoke)
{
    char *home = mg_t_tmpdir();
    struct mg_t_out o = MG_RUN(NULL, home, "token", "create", "--tenant", "acme", "--repos", "api-1,web-2", "--scope",
                               "write", "--name", "ci bot", "--expires", "30d", "--rate", "120", "--json");
    ASSERT_EQ_INT(o.status, 0);
    json_t *j = mg_t_json(o.out);
    const char *tok = json_string_value(json_object_get(j, "token"));
    const char *id = json_string_value(json_object_get(j, "id"));
    ASSERT(tok && id);
    ASSERT_EQ_INT(strlen(tok), MG_TOKEN_LEN);
    ASSERT(strncmp(tok, "mgt_", 4) == 0 && strncmp(tok + 4, id, 16) == 0);
    ASSERT_EQ_STR(json_string_value(json_object_get(j, "scope")), "write");
    ASSERT_EQ_INT(json_integer_value(json_object_get(j, "rate")), 120);
    ASSERT_EQ_INT(json_array_size(json_object_get(j, "repos")), 2);
    char secret[64];
    snprintf(secret, sizeof(secret), "%s", tok + 21);

    /* plain output: the token alone on stdout */
    struct mg_t_out p = MG_RUN(NULL, home, "token", "create", "--tenant", "other");
    ASSERT_EQ_INT(p.status, 0);
    ASSERT_EQ_INT(strlen(p.out), MG_TOKEN_LEN + 1);
    ASSERT_CONTAINS(p.err, "only time");

    struct mg_t_out l = MG_RUN(NULL, home, "token", "list", "--json");
    ASSERT_EQ_INT(l.status, 0);
    ASSERT_CONTAINS(l.out, id);
    ASSERT_NOT_CONTAINS(l.out, secret);
    json_t *arr = mg_t_json(l.out);
    ASSERT_EQ_INT(json_array_size(arr), 2);
    ASSERT_EQ_STR(json_string_value(json_object_get(json_array_get(arr, 0), "name")), "ci bot");
    ASSERT_EQ_INT(json_integer_value(json_object_get(json_array_get(arr, 0), "revoked")), 0);
    struct mg_t_out lh = MG_RUN(NULL, home, "token", "list");
    ASSERT_EQ_INT(lh.status, 0);
    ASSERT_CONTAINS(lh.out, "api-1,web-2");
    ASSERT_CONTAINS(lh.out, "active");

    /* the database and its WAL hold neither the token nor its secret */
    char path[8192];
    const char *files[] = {"tokens.db", "tokens.db-wal", "token.pepper", "audit/audit.log"};
    for (size_t i = 0; i < 4; i++) {
        snprintf(path, sizeof(path), "%s/%s", home, files[i]);
        ASSERT(!file_has(path, secret));
        ASSERT(!file_has(path, tok));
        if (i != 1) ASSERT_EQ_INT(mode_of(path), 0600);
    }
    snprintf(path, sizeof(path), "%s/audit", home);
    ASSERT_EQ_INT(mode_of(path), 0700);

    struct mg_t_out r = MG_RUN(NULL, home, "token", "revoke", id, "--json");
    ASSERT_EQ_INT(r.status, 0);
    ASSERT_CONTAINS(r.out, "\"already\":false");
    struct mg_t_out r2 = MG_RUN(NULL, home, "token", "revoke", id);
    ASSERT_EQ_INT(r2.status, 0);
    ASSERT_CONTAINS(r2.out, "already revoked");
    struct mg_t_out r3 = MG_RUN(NULL, home, "token", "revoke", "0123456789abcdef");
    ASSERT_EQ_INT(r3.status, 1);
    ASSERT_CONTAINS(r3.err, "error[token_not_found]");
    struct mg_t_out l2 = MG_RUN(NULL, home, "token", "list");
    ASSERT_CONTAINS(l2.out, "revoked");

    /* create and revoke are audited */
    struct mg_t_out a = MG_RUN(NULL, home, "audit", "--json", "--op", "token_revoke");
    ASSERT_EQ_INT(a.status, 0);
    ASSERT_CONTAINS(a.out, id);
    struct mg_t_out a2 = MG_RUN(NULL, home, "audit", "--json", "--op", "token_create", "--tenant", "acme");
    ASSERT_CONTAINS(a2.out, id);
    ASSERT_NOT_CONTAINS(a2.out, "\"other\"");

    /* usage errors */
    struct mg_t_out u1 = MG_RUN(NULL, home, "token", "create");
    ASSERT_EQ_INT(u1.status, 2);
    struct mg_t_out u2 = MG_RUN(NULL, home, "token", "create", "--tenant", "Bad Name");
    ASSERT_EQ_INT(u2.status, 1);
    ASSERT_CONTAINS(u2.err, "error[name_invalid]");
    struct mg_t_out u3 = MG_RUN(NULL, home, "token", "create", "--tenant", "x", "--scope", "root");
    ASSERT_EQ_INT(u3.status, 2);
    struct mg_t_out u4 = MG_RUN(NULL, home, "token", "list", "--tenant", "x");
    ASSERT_EQ_INT(u4.status, 2);
    struct mg_t_out u5 = MG_RUN(NULL, home, "token", "--help");
    ASSERT_EQ_INT(u5.status, 0);
    ASSERT_CONTAINS(u5.out, "usage: memgate token");
    json_decref(j);
    json_decref(arr);
    mg_t_out_free(&o);
    mg_t_out_free(&p);
    mg_t_out_free(&l);
    mg_t_out_free(&lh);
    mg_t_out_free(&r);
    mg_t_out_free(&r2);
    mg_t_out_free(&r3);
    mg_t_out_free(&l2);
    mg_t_out_free(&a);
    mg_t_out_free(&a2);
    mg_t_out_free(&u1);
    mg_t_out_free(&u2);
    mg_t_out_free(&u3);
    mg_t_out_free(&u4);
    mg_t_out_free(&u5);
}

static void expect_code(struct mg_tokens *t, const char *bearer, const char *code)
{
    struct mg_token tok;
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_tokens_check(t, bearer, &tok, &err), -1);
    ASSERT_EQ_STR(err.code, code);
    ASSERT_EQ_INT(tok.nrepos, 0);
}

/* A wrong secret of the same length (canonical base64url: the constant-time compare path), and an unknown
 * id of the right shape: both token_invalid. */
static void expect_near_misses(struct mg_tokens *t, const char *text)
{
    char wrong[MG_TOKEN_LEN + 1];
    memcpy(wrong, text, sizeof(wrong));
    wrong[21] = wrong[21] == 'A' ? 'B' : 'A';
    expect_code(t, wrong, MG_E_TOKEN_INVALID);
    memcpy(wrong, text, sizeof(wrong));
    wrong[4] = wrong[4] == 'a' ? 'b' : 'a';
    expect_code(t, wrong, MG_E_TOKEN_INVALID);
}

TEST(token_check_codes)
{
    char *home = mg_t_tmpdir();
    struct mg_config c;
    cfg_for(&c, home);
    c.token_rate_limit = 321;
    struct mg_tokens *t, *t2;
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_tokens_open(&c, &t, &err), 0);
    ASSERT_EQ_INT(mg_tokens_open(&c, &t2, &err), 0);
    ASSERT(!mg_tokens_any(t));

    char *repos[] = {"api-1"};
    struct mg_token spec = {.level = MG_LEVEL_WRITE, .rate_own = -1, .repos = repos, .nrepos = 1};
    snprintf(spec.tenant, sizeof(spec.tenant), "acme");
    char text[MG_TOKEN_LEN + 1];
    struct mg_token made;
    ASSERT_EQ_INT(mg_tokens_create(t, &spec, &made, text, &err), 0);
    ASSERT(mg_tokens_any(t));
    ASSERT(mg_tokens_any(t2)); /* the other handle sees the change (data_version) */

    struct mg_token tok;
    ASSERT_EQ_INT(mg_tokens_check(t, text, &tok, &err), 0);
    ASSERT_EQ_STR(tok.id, made.id);
    ASSERT_EQ_STR(tok.tenant, "acme");
    ASSERT_EQ_INT(tok.level, MG_LEVEL_WRITE);
    ASSERT_EQ_INT(tok.rate_per_min, 321);
    ASSERT(tok.last_used > 0);
    ASSERT(mg_token_allows_repo(&tok, "api-1"));
    ASSERT(!mg_token_allows_repo(&tok, "api-2"));
    mg_token_release(&tok);
    char bearer[128];
    snprintf(bearer, sizeof(bearer), "Bearer %s", text);
    ASSERT_EQ_INT(mg_tokens_check(t2, bearer, &tok, &err), 0);
    mg_token_release(&tok);

    expect_near_misses(t, text);
    char wrong[MG_TOKEN_LEN + 1];
    /* malformed */
    expect_code(t, "", MG_E_TOKEN_INVALID);
    expect_code(t, "mgt_", MG_E_TOKEN_INVALID);
    expect_code(t, "Bearer", MG_E_TOKEN_INVALID);
    memcpy(wrong, text, sizeof(wrong));
    wrong[30] = '*';
    expect_code(t, wrong, MG_E_TOKEN_INVALID);
    memcpy(wrong, text, sizeof(wrong));
    wrong[MG_TOKEN_LEN - 1] = 0;
    expect_code(t, wrong, MG_E_TOKEN_INVALID);
    /* an error message never echoes the secret */
    mg_tokens_check(t, wrong, &tok, &err);
    ASSERT_NOT_CONTAINS(err.msg, text + 21);

    /* expired: move the expiry into the past behind the store's back */
    spec.expires = (long long)(mg_wall_ms() / 1000) + 3600;
    char text2[MG_TOKEN_LEN + 1];
    struct mg_token made2;
    ASSERT_EQ_INT(mg_tokens_create(t, &spec, &made2, text2, &err), 0);
    ASSERT_EQ_INT(mg_tokens_check(t, text2, &tok, &err), 0);
    mg_token_release(&tok);
    char db[8192];
    snprintf(db, sizeof(db), "%s/tokens.db", home);
    sqlite3 *s;
    ASSERT_EQ_INT(sqlite3_open(db, &s), SQLITE_OK);
    char sql[256];
    snprintf(sql, sizeof(sql), "UPDATE tokens SET expires=%lld WHERE id='%s'", (long long)(mg_wall_ms() / 1000) - 5,
             made2.id);
    ASSERT_EQ_INT(sqlite3_exec(s, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(s);
    expect_code(t, text2, MG_E_TOKEN_EXPIRED);

    /* revoked, through the other handle: effective at once */
    bool was;
    char tenant[MG_TENANT_MAX + 1];
    ASSERT_EQ_INT(mg_tokens_revoke(t2, made.id, &was, tenant, &err), 0);
    ASSERT(!was);
    ASSERT_EQ_STR(tenant, "acme");
    expect_code(t, text, MG_E_TOKEN_REVOKED);
    ASSERT(mg_tokens_any(t)); /* made2 is expired but not revoked: tokens stay required */
    ASSERT_EQ_INT(mg_tokens_revoke(t2, text2, &was, NULL, &err), 0); /* by the whole token text */
    ASSERT(!mg_tokens_any(t));
    ASSERT_EQ_INT(mg_tokens_revoke(t2, "nothex", &was, NULL, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_TOKEN_NOT_FOUND);

    /* bad specs */
    struct mg_token bad = spec;
    snprintf(bad.tenant, sizeof(bad.tenant), "Acme");
    ASSERT_EQ_INT(mg_tokens_create(t, &bad, NULL, text, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_NAME_INVALID);
    bad = spec;
    char *badrepo[] = {"../x"};
    bad.repos = badrepo;
    ASSERT_EQ_INT(mg_tokens_create(t, &bad, NULL, text, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_NAME_INVALID);
    bad = spec;
    snprintf(bad.name, sizeof(bad.name), "a\nb");
    ASSERT_EQ_INT(mg_tokens_create(t, &bad, NULL, text, &err), -1);
    bad = spec;
    bad.level = 7;
    ASSERT_EQ_INT(mg_tokens_create(t, &bad, NULL, text, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_BAD_ARG);

    mg_token_release(&made);
    mg_token_release(&made2);
    mg_tokens_close(t);
    mg_tokens_close(t2);

    /* the pepper is needed: without it, existing tokens cannot be checked */
    char pep[8192];
    snprintf(pep, sizeof(pep), "%s/token.pepper", home);
    ASSERT_EQ_INT(unlink(pep), 0);
    ASSERT_EQ_INT(mg_tokens_open(&c, &t, &err), -1);
    ASSERT_CONTAINS(err.msg, "token.pepper");
}

static int64_t fake_now;
static int64_t fake_clock(void *arg)
{
    (void)arg;
    return fake_now;
}

TEST(token_rate_limit)
{
    fake_now = 1000000;
    struct mg_ratelimit *rl = mg_ratelimit_new(fake_clock, NULL, 4);
    int retry = -1;
    /* 60/min: burst max(60/6, 10) = 10, one more per second */
    for (int i = 0; i < 10; i++) ASSERT(mg_rate_take(rl, "k1", 60, &retry));
    ASSERT(!mg_rate_take(rl, "k1", 60, &retry));
    ASSERT_EQ_INT(retry, 1);
    fake_now += 500;
    ASSERT(!mg_rate_take(rl, "k1", 60, &retry));
    ASSERT_EQ_INT(retry, 1);
    fake_now += 500;
    ASSERT(mg_rate_take(rl, "k1", 60, &retry));
    ASSERT(!mg_rate_take(rl, "k1", 60, &retry));
    /* a long idle refills to the burst, not beyond */
    fake_now += 3600 * 1000;
    int ok = 0;
    while (mg_rate_take(rl, "k1", 60, NULL)) ok++;
    ASSERT_EQ_INT(ok, 10);
    /* 6/min: burst 10, but a refused request waits 10 s */
    for (int i = 0; i < 10; i++) ASSERT(mg_rate_take(rl, "slow", 6, NULL));
    ASSERT(!mg_rate_take(rl, "slow", 6, &retry));
    ASSERT_EQ_INT(retry, 10);
    /* 600/min: burst 100 */
    ok = 0;
    while (mg_rate_take(rl, "fast", 600, NULL)) ok++;
    ASSERT_EQ_INT(ok, 100);
    /* keys are independent; unlimited never refuses */
    ASSERT(mg_rate_take(rl, "k2", 60, NULL));
    for (int i = 0; i < 1000; i++) ASSERT(mg_rate_take(rl, "free", 0, NULL));
    /* bounded: never more than 4 buckets */
    char key[32];
    for (int i = 0; i < 50; i++) {
        snprintf(key, sizeof(key), "key%d", i);
        ASSERT(mg_rate_take(rl, key, 60, NULL));
        ASSERT(mg_ratelimit_size(rl) <= 4);
    }
    mg_ratelimit_free(rl);
}

TEST(token_required_policy)
{
    struct mg_config c;
    struct mg_err err = {0};
    bool req;
    mg_t_config_defaults(&c);
    ASSERT_EQ_STR(c.require_tokens, "auto");
    ASSERT_EQ_INT(c.token_rate_limit, 600);
    ASSERT_EQ_INT(mg_tokens_required(&c, true, false, &req, &err), 0);
    ASSERT(!req);
    ASSERT_EQ_INT(mg_tokens_required(&c, true, true, &req, &err), 0);
    ASSERT(req);
    ASSERT_EQ_INT(mg_tokens_required(&c, false, false, &req, &err), 0);
    ASSERT(req);
    ASSERT_EQ_INT(mg_config_set(&c, "require_tokens", "always", "t", &err), 0);
    ASSERT_EQ_INT(mg_tokens_required(&c, true, false, &req, &err), 0);
    ASSERT(req);
    ASSERT_EQ_INT(mg_config_set(&c, "require_tokens", "never", "t", &err), 0);
    ASSERT_EQ_INT(mg_tokens_required(&c, true, true, &req, &err), 0);
    ASSERT(!req);
    ASSERT_EQ_INT(mg_tokens_required(&c, false, true, &req, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_LISTEN_REFUSED);
    ASSERT_EQ_INT(mg_config_set(&c, "require_tokens", "sometimes", "t", &err), -1);
    ASSERT_CONTAINS(err.msg, "auto, always, never");
    ASSERT_EQ_INT(mg_config_set(&c, "audit_fsync", "off", "t", &err), 0);
    ASSERT_EQ_STR(c.audit_fsync, "off");
    ASSERT_EQ_INT(mg_config_set(&c, "token_rate_limit", "-1", "t", &err), -1);
}

/* ---- PostgreSQL (storage = postgres://...): the runner starts a cluster for tests named *pg* ---- */

/* A daemon's configuration: its own home, the shared database. pool: 0 or 1, two spellings of one URL, so
 * that the two "daemons" of a test have separate connection pools (pools are per URL). */
static void pg_cfg(struct mg_config *c, const char *home, const char *url, int pool)
{
    cfg_for(c, home);
    snprintf(c->storage, sizeof(c->storage), "%s%s", url, pool ? "&connect_timeout=4" : "");
    c->storage_timeout = 3;
}

/* Run sql on the test's database (as memgate, no tenant). */
static void pg_run(const char *url, const char *sql)
{
    struct mg_config c;
    mg_t_config_defaults(&c);
    snprintf(c.storage, sizeof(c.storage), "%s&application_name=test", url);
    struct mg_pg *pool;
    struct mg_sql *conn;
    struct mg_err err = {0};
    if (mg_pg_get(&c, NULL, &pool, &conn, &err) != 0 || mg_sql_exec(conn, sql, &err) != 0) FAIL("%s", err.msg);
    mg_pg_put(pool, &conn);
}

/* The first row's first column of sql (malloc'd). */
static char *pg_one(const char *url, const char *sql)
{
    struct mg_config c;
    mg_t_config_defaults(&c);
    snprintf(c.storage, sizeof(c.storage), "%s&application_name=test", url);
    struct mg_pg *pool;
    struct mg_sql *conn;
    struct mg_sql_st *st;
    struct mg_err err = {0};
    if (mg_pg_get(&c, NULL, &pool, &conn, &err) != 0 || mg_sql_prepare(conn, sql, &st, &err) != 0)
        FAIL("%s", err.msg);
    if (mg_sql_step(st, &err) < 0) FAIL("%s", err.msg);
    char *v = strdup(mg_sql_text(st, 0));
    mg_sql_finalize(&st);
    mg_pg_put(pool, &conn);
    return v;
}

static void copy_pepper(const char *from, const char *to)
{
    mg_t_sh("/", "cp '%s/token.pepper' '%s/token.pepper' && chmod 600 '%s/token.pepper'", from, to, to);
}

static struct mg_token pg_spec(const char *tenant)
{
    struct mg_token spec = {.level = MG_LEVEL_READ, .rate_own = -1};
    snprintf(spec.tenant, sizeof(spec.tenant), "%s", tenant);
    return spec;
}

TEST(token_pg_create_check_list_revoke_expiry)
{
    const char *url = mg_t_pg_url();
    char *home = mg_t_tmpdir();
    struct mg_config c;
    pg_cfg(&c, home, url, 0);
    c.token_rate_limit = 321;
    struct mg_tokens *t;
    struct mg_err err = {0};
    if (mg_tokens_open(&c, &t, &err) != 0) FAIL("%s: %s", err.code, err.msg);
    ASSERT(!mg_tokens_any(t));
    char tokens_db[8192];
    snprintf(tokens_db, sizeof(tokens_db), "%s/tokens.db", home);
    ASSERT(access(tokens_db, F_OK) != 0); /* PostgreSQL holds them, not a file */
    char pep[8192];
    snprintf(pep, sizeof(pep), "%s/token.pepper", home);
    ASSERT_EQ_INT(mode_of(pep), 0600);

    char *repos[] = {"api-1", "web-2"};
    struct mg_token spec = {.level = MG_LEVEL_WRITE, .rate_own = -1, .repos = repos, .nrepos = 2};
    snprintf(spec.tenant, sizeof(spec.tenant), "acme");
    snprintf(spec.name, sizeof(spec.name), "ci bot");
    char text[MG_TOKEN_LEN + 1], text2[MG_TOKEN_LEN + 1];
    struct mg_token made, made2, tok;
    if (mg_tokens_create(t, &spec, &made, text, &err) != 0) FAIL("%s", err.msg);
    ASSERT(mg_tokens_any(t)); /* this daemon's own write counts at once */
    struct mg_token spec2 = pg_spec("globex");
    spec2.rate_own = 60;
    spec2.expires = (long long)(mg_wall_ms() / 1000) + 3600;
    if (mg_tokens_create(t, &spec2, &made2, text2, &err) != 0) FAIL("%s", err.msg);

    if (mg_tokens_check(t, text, &tok, &err) != 0) FAIL("%s: %s", err.code, err.msg);
    ASSERT_EQ_STR(tok.id, made.id);
    ASSERT_EQ_STR(tok.tenant, "acme");
    ASSERT_EQ_STR(tok.name, "ci bot");
    ASSERT_EQ_INT(tok.level, MG_LEVEL_WRITE);
    ASSERT_EQ_INT(tok.rate_per_min, 321);
    ASSERT_EQ_INT(tok.rate_own, -1);
    ASSERT(tok.last_used > 0);
    ASSERT(mg_token_allows_repo(&tok, "web-2") && !mg_token_allows_repo(&tok, "api-2"));
    mg_token_release(&tok);
    if (mg_tokens_check(t, text2, &tok, &err) != 0) FAIL("%s", err.msg);
    ASSERT_EQ_INT(tok.rate_per_min, 60);
    ASSERT_EQ_INT(tok.nrepos, 0);
    mg_token_release(&tok);
    expect_near_misses(t, text);

    /* the table holds the keyed hash, never the secret; the database holds no pepper, only its fingerprint */
    char sql[512];
    snprintf(sql, sizeof(sql), "SELECT length(hash) || ':' || encode(hash, 'hex') FROM tokens WHERE id = '%s'",
             made.id);
    char *h = pg_one(url, sql);
    ASSERT(strncmp(h, "32:", 3) == 0);
    free(h);
    char *all = pg_one(url, "SELECT string_agg(t::text, ' ') FROM tokens t");
    ASSERT_NOT_CONTAINS(all, text + 21);
    free(all);
    size_t pl;
    char *pepper = slurp(pep, &pl);
    ASSERT_EQ_INT(pl, 32);
    char hex[65];
    for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", (unsigned char)pepper[i]);
    free(pepper);
    char *meta = pg_one(url, "SELECT string_agg(key || '=' || value, ' ') FROM memgate_meta");
    ASSERT_CONTAINS(meta, "token_pepper=");
    ASSERT_NOT_CONTAINS(meta, hex);
    free(meta);

    /* list: every token, oldest first (made in the same second: in the order made) */
    struct mg_token *v;
    size_t n;
    if (mg_tokens_list(t, &v, &n, &err) != 0) FAIL("%s", err.msg);
    ASSERT_EQ_INT(n, 2);
    ASSERT_EQ_STR(v[0].id, made.id);
    ASSERT_EQ_STR(v[1].id, made2.id);
    ASSERT_EQ_INT(v[0].nrepos, 2);
    ASSERT_EQ_INT(v[1].rate_own, 60);
    mg_tokens_list_free(v, n);

    /* expired, behind the store's back: refused at the next check */
    snprintf(sql, sizeof(sql), "UPDATE tokens SET expires = %lld WHERE id = '%s'",
             (long long)(mg_wall_ms() / 1000) - 5, made2.id);
    pg_run(url, sql);
    expect_code(t, text2, MG_E_TOKEN_EXPIRED);

    /* revoked: refused at once; again is no error; unknown ids are */
    bool was;
    char tenant[MG_TENANT_MAX + 1] = "";
    if (mg_tokens_revoke(t, made.id, &was, tenant, &err) != 0) FAIL("%s", err.msg);
    ASSERT(!was);
    ASSERT_EQ_STR(tenant, "acme");
    expect_code(t, text, MG_E_TOKEN_REVOKED);
    if (mg_tokens_revoke(t, text, &was, tenant, &err) != 0) FAIL("%s", err.msg); /* by the whole token text */
    ASSERT(was);
    ASSERT_EQ_INT(mg_tokens_revoke(t, "0123456789abcdef", &was, NULL, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_TOKEN_NOT_FOUND);
    ASSERT(mg_tokens_any(t)); /* made2 is expired, not revoked */
    if (mg_tokens_revoke(t, made2.id, &was, NULL, &err) != 0) FAIL("%s", err.msg);
    ASSERT(!mg_tokens_any(t));
    if (mg_tokens_list(t, &v, &n, &err) != 0) FAIL("%s", err.msg);
    ASSERT_EQ_INT(n, 2);
    ASSERT(v[0].revoked > 0 && v[1].revoked > 0);
    mg_tokens_list_free(v, n);
    mg_token_release(&made);
    mg_token_release(&made2);
    mg_tokens_close(t);
    mg_pg_close_all();
}

TEST(token_pg_two_daemons_share_tokens_and_a_revocation_holds_at_once)
{
    const char *url = mg_t_pg_url();
    char *homeA = strdup(mg_t_tmpdir()), *homeB = strdup(mg_t_tmpdir());
    struct mg_config ca, cb;
    pg_cfg(&ca, homeA, url, 0);
    pg_cfg(&cb, homeB, url, 1);
    struct mg_tokens *a, *b;
    struct mg_err err = {0};
    if (mg_tokens_open(&ca, &a, &err) != 0) FAIL("%s", err.msg);
    copy_pepper(homeA, homeB); /* the deploy step */
    if (mg_tokens_open(&cb, &b, &err) != 0) FAIL("%s: %s", err.code, err.msg);
    ASSERT(!mg_tokens_any(b));

    struct mg_token spec = pg_spec("acme"), made, tok;
    char text[MG_TOKEN_LEN + 1];
    if (mg_tokens_create(a, &spec, &made, text, &err) != 0) FAIL("%s", err.msg);
    if (mg_tokens_check(b, text, &tok, &err) != 0) FAIL("%s: %s", err.code, err.msg);
    ASSERT_EQ_STR(tok.tenant, "acme");
    mg_token_release(&tok);
    /* B's "any token?" follows within a second */
    int64_t t0 = mg_wall_ms();
    while (!mg_tokens_any(b) && mg_wall_ms() - t0 < 3000) usleep(20000);
    ASSERT(mg_tokens_any(b));
    ASSERT(mg_wall_ms() - t0 <= 1200);

    /* revoked through A: B refuses the very next check */
    if (mg_tokens_revoke(a, made.id, NULL, NULL, &err) != 0) FAIL("%s", err.msg);
    expect_code(b, text, MG_E_TOKEN_REVOKED);
    t0 = mg_wall_ms();
    while (mg_tokens_any(b) && mg_wall_ms() - t0 < 3000) usleep(20000);
    ASSERT(!mg_tokens_any(b));
    ASSERT(mg_wall_ms() - t0 <= 1200);

    /* another process: the CLI with A's home makes a token that B takes, and revokes it: B refuses at once */
    setenv("MEMGATE_DATABASE_URL", url, 1);
    struct mg_t_out o = MG_RUN(NULL, homeA, "token", "create", "--tenant", "globex", "--json");
    ASSERT_EQ_INT(o.status, 0);
    json_t *j = mg_t_json(o.out);
    const char *cli_tok = json_string_value(json_object_get(j, "token"));
    const char *cli_id = json_string_value(json_object_get(j, "id"));
    if (mg_tokens_check(b, cli_tok, &tok, &err) != 0) FAIL("%s: %s", err.code, err.msg);
    ASSERT_EQ_STR(tok.tenant, "globex");
    mg_token_release(&tok);
    struct mg_t_out l = MG_RUN(NULL, homeB, "token", "list", "--json"); /* B's home lists the same tokens */
    ASSERT_EQ_INT(l.status, 0);
    ASSERT_CONTAINS(l.out, cli_id);
    ASSERT_CONTAINS(l.out, made.id);
    struct mg_t_out r = MG_RUN(NULL, homeA, "token", "revoke", cli_id);
    ASSERT_EQ_INT(r.status, 0);
    expect_code(b, cli_tok, MG_E_TOKEN_REVOKED);
    unsetenv("MEMGATE_DATABASE_URL");
    json_decref(j);
    mg_t_out_free(&o);
    mg_t_out_free(&l);
    mg_t_out_free(&r);
    mg_token_release(&made);
    mg_tokens_close(a);
    mg_tokens_close(b);
    mg_pg_close_all();
    free(homeA);
    free(homeB);
}

TEST(token_pg_a_daemon_with_another_pepper_is_refused)
{
    const char *url = mg_t_pg_url();
    char *homeA = strdup(mg_t_tmpdir()), *homeC = strdup(mg_t_tmpdir()), *homeD = strdup(mg_t_tmpdir());
    struct mg_config ca, cc, cd;
    pg_cfg(&ca, homeA, url, 0);
    pg_cfg(&cc, homeC, url, 1);
    pg_cfg(&cd, homeD, url, 1);
    struct mg_tokens *a, *x;
    struct mg_err err = {0};
    if (mg_tokens_open(&ca, &a, &err) != 0) FAIL("%s", err.msg);
    /* C made its own pepper (say, started before the deploy step) */
    mg_t_sh(homeC, "head -c 32 /dev/urandom > token.pepper && chmod 600 token.pepper");
    ASSERT_EQ_INT(mg_tokens_open(&cc, &x, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_CONFIG);
    ASSERT_CONTAINS(err.msg, "token.pepper");
    ASSERT_CONTAINS(err.msg, "differs from the one the shared database's tokens were made with");
    ASSERT_CONTAINS(err.msg, "copy token.pepper from a daemon that works");
    ASSERT_CONTAINS(err.msg, homeC);
    /* the CLI says the same */
    setenv("MEMGATE_DATABASE_URL", url, 1);
    struct mg_t_out o = MG_RUN(NULL, homeC, "token", "create", "--tenant", "acme");
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.err, "error[invalid_config]");
    ASSERT_CONTAINS(o.err, "differs");
    unsetenv("MEMGATE_DATABASE_URL");
    mg_t_out_free(&o);
    /* D has none: it is not made anew, since the database's tokens have one */
    ASSERT_EQ_INT(mg_tokens_open(&cd, &x, &err), -1);
    ASSERT_CONTAINS(err.msg, "token.pepper' is missing");
    ASSERT_CONTAINS(err.msg, "copy token.pepper from a daemon that works");
    char pep[8192];
    snprintf(pep, sizeof(pep), "%s/token.pepper", homeD);
    ASSERT(access(pep, F_OK) != 0);
    /* with A's pepper copied, C opens */
    copy_pepper(homeA, homeC);
    if (mg_tokens_open(&cc, &x, &err) != 0) FAIL("%s", err.msg);
    mg_tokens_close(x);
    mg_tokens_close(a);
    mg_pg_close_all();
    free(homeA);
    free(homeC);
    free(homeD);
}

/* Two daemons' limiters: one database, two pools. */
static void two_limiters(const char *url, struct mg_ratelimit **a, struct mg_ratelimit **b)
{
    char *home = mg_t_tmpdir();
    struct mg_config ca, cb;
    pg_cfg(&ca, home, url, 0);
    pg_cfg(&cb, home, url, 1);
    struct mg_err err = {0};
    if (mg_ratelimit_open(&ca, a, &err) != 0 || mg_ratelimit_open(&cb, b, &err) != 0) FAIL("%s", err.msg);
}

TEST(token_pg_rate_limit_burst_refill_and_shared_by_daemons)
{
    const char *url = mg_t_pg_url();
    struct mg_ratelimit *a, *b;
    struct mg_err err = {0};
    two_limiters(url, &a, &b);
    int retry = -1;
    /* 60/min: burst 10 between both daemons, then refused with the wait */
    for (int i = 0; i < 10; i++) {
        int r = mg_rate_check(i % 2 ? b : a, "k1", 60, &retry, &err);
        if (r != 1) FAIL("take %d: %d %s", i, r, err.msg);
    }
    ASSERT_EQ_INT(mg_rate_check(a, "k1", 60, &retry, &err), 0);
    ASSERT_EQ_INT(retry, 1);
    ASSERT_EQ_INT(mg_rate_check(b, "k1", 60, &retry, &err), 0);
    ASSERT(!mg_rate_take(b, "k1", 60, &retry));
    /* one per second comes back, to whichever daemon asks */
    usleep(1100000);
    ASSERT_EQ_INT(mg_rate_check(b, "k1", 60, &retry, &err), 1);
    ASSERT_EQ_INT(mg_rate_check(a, "k1", 60, &retry, &err), 0);
    /* 6/min: burst 10, a refused request waits 10 s */
    for (int i = 0; i < 10; i++) ASSERT_EQ_INT(mg_rate_check(a, "slow", 6, NULL, &err), 1);
    ASSERT_EQ_INT(mg_rate_check(b, "slow", 6, &retry, &err), 0);
    ASSERT_EQ_INT(retry, 10);
    /* 600/min: burst 100 */
    int ok = 0;
    int64_t t0 = mg_wall_ms();
    while (mg_rate_check(ok % 2 ? a : b, "fast", 600, NULL, &err) == 1 && ok < 1000) ok++;
    ASSERT_GE_INT(ok, 100);
    ASSERT_GE_INT(100 + 1 + (mg_wall_ms() - t0) / 100, ok); /* (10 a second come back while it runs) */
    /* keys apart; unlimited never asks the database */
    ASSERT_EQ_INT(mg_rate_check(a, "k2", 60, NULL, &err), 1);
    for (int i = 0; i < 100; i++) ASSERT_EQ_INT(mg_rate_check(b, "free", 0, NULL, &err), 1);
    char *n = pg_one(url, "SELECT count(*) FROM rate_buckets WHERE key = 'free'");
    ASSERT_EQ_STR(n, "0");
    free(n);
    /* bounded: buckets full again are swept; the others stay */
    pg_run(url, "UPDATE rate_buckets SET at = at - 700 WHERE key = 'k2'");
    int64_t removed = -1;
    if (mg_ratelimit_sweep(a, &removed, &err) != 0) FAIL("%s", err.msg);
    ASSERT_EQ_INT(removed, 1);
    n = pg_one(url, "SELECT string_agg(key, ',' ORDER BY key) FROM rate_buckets");
    ASSERT_EQ_STR(n, "fast,k1,slow");
    free(n);
    ASSERT_EQ_INT(mg_rate_check(b, "k2", 60, NULL, &err), 1); /* swept: starts full again */
    mg_ratelimit_free(a);
    mg_ratelimit_free(b);
    mg_pg_close_all();
}

struct taker {
    struct mg_ratelimit *rl;
    int allowed, failed;
};

static void *take_many(void *arg)
{
    struct taker *tk = arg;
    for (int i = 0; i < 15; i++) {
        struct mg_err err = {0};
        int r = mg_rate_check(tk->rl, "hot", 6, NULL, &err);
        if (r == 1) tk->allowed++;
        else if (r < 0) tk->failed++;
    }
    return NULL;
}

TEST(token_pg_rate_limit_concurrent_takes_never_exceed_the_burst)
{
    struct mg_ratelimit *a, *b;
    two_limiters(mg_t_pg_url(), &a, &b);
    /* 6/min: burst 10, one more every 10 s; 8 threads on two daemons ask 120 times at once */
    struct taker tk[8];
    pthread_t th[8];
    int64_t t0 = mg_wall_ms();
    for (int i = 0; i < 8; i++) {
        tk[i] = (struct taker){.rl = i % 2 ? b : a};
        pthread_create(&th[i], NULL, take_many, &tk[i]);
    }
    int allowed = 0, failed = 0;
    for (int i = 0; i < 8; i++) {
        pthread_join(th[i], NULL);
        allowed += tk[i].allowed;
        failed += tk[i].failed;
    }
    int64_t took_ms = mg_wall_ms() - t0;
    ASSERT_EQ_INT(failed, 0);
    ASSERT(allowed >= 10);
    ASSERT_GE_INT(10 + (int)(took_ms / 10000), allowed);
    mg_ratelimit_free(a);
    mg_ratelimit_free(b);
    mg_pg_close_all();
}

TEST_T(token_pg_down_refuses_checks_and_rate_limits_then_recovers, 180)
{
    char dir[600];
    const char *url = mg_t_pg_own(dir, sizeof(dir));
    char *home = mg_t_tmpdir();
    struct mg_config c;
    pg_cfg(&c, home, url, 0);
    struct mg_tokens *t;
    struct mg_ratelimit *rl;
    struct mg_err err = {0};
    if (mg_tokens_open(&c, &t, &err) != 0 || mg_ratelimit_open(&c, &rl, &err) != 0) FAIL("%s", err.msg);
    struct mg_token spec = pg_spec("acme"), tok;
    char text[MG_TOKEN_LEN + 1];
    if (mg_tokens_create(t, &spec, NULL, text, &err) != 0) FAIL("%s", err.msg);
    ASSERT_EQ_INT(mg_rate_check(rl, "k", 60, NULL, &err), 1);

    mg_t_pg_cluster(dir, "stop");
    ASSERT_EQ_INT(mg_tokens_check(t, text, &tok, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_STORAGE_UNAVAILABLE);
    int retry = 0;
    ASSERT_EQ_INT(mg_rate_check(rl, "k", 60, &retry, &err), -1); /* never silently unlimited */
    ASSERT_EQ_STR(err.code, MG_E_STORAGE_UNAVAILABLE);
    ASSERT(!mg_rate_take(rl, "k", 60, &retry));
    ASSERT_EQ_INT(retry, 1);
    bool any = false;
    usleep(1100000); /* past the cached answer */
    ASSERT_EQ_INT(mg_tokens_any_err(t, &any, &err), -1);
    ASSERT(any); /* fail closed: tokens required */
    ASSERT_EQ_STR(err.code, MG_E_STORAGE_UNAVAILABLE);
    /* a daemon starting now opens (its pepper is checked on first use), and refuses until the database is back */
    struct mg_tokens *t2;
    if (mg_tokens_open(&c, &t2, &err) != 0) FAIL("%s: %s", err.code, err.msg);

    mg_t_pg_cluster(dir, "restart");
    int ok = -1;
    for (int i = 0; i < 50 && ok != 0; i++) {
        ok = mg_tokens_check(t2, text, &tok, &err);
        if (ok != 0) usleep(100000);
    }
    if (ok != 0) FAIL("no recovery: %s", err.msg);
    mg_token_release(&tok);
    ASSERT_EQ_INT(mg_tokens_check(t, text, &tok, &err), 0);
    mg_token_release(&tok);
    ASSERT_EQ_INT(mg_rate_check(rl, "k", 60, NULL, &err), 1);
    mg_tokens_close(t);
    mg_tokens_close(t2);
    mg_ratelimit_free(rl);
    mg_pg_close_all();
    mg_t_pg_cluster(dir, "rm");
}
