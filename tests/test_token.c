/* test_token.c — access tokens (security/token.h) and `memgate token`. */
#include "test.h"

#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "security/token.h"

static void cfg_for(struct mg_config *c, const char *home)
{
    mg_config_defaults(c);
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

    /* wrong secret of the same length, canonical base64url: constant-time compare path */
    char wrong[MG_TOKEN_LEN + 1];
    memcpy(wrong, text, sizeof(wrong));
    wrong[21] = wrong[21] == 'A' ? 'B' : 'A';
    expect_code(t, wrong, MG_E_TOKEN_INVALID);
    /* unknown id, valid shape */
    memcpy(wrong, text, sizeof(wrong));
    wrong[4] = wrong[4] == 'a' ? 'b' : 'a';
    expect_code(t, wrong, MG_E_TOKEN_INVALID);
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
    mg_config_defaults(&c);
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
