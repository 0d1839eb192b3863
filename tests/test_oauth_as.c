/* test_oauth_as.c — the built-in authorization server (src/oauth/as.h)
 * below HTTP: its parsers (forms, client metadata, client_id URLs, PKCE
 * with RFC 7636's own example), and a whole grant in a temporary data
 * directory — register, authorize, consent, code, token — whose access token
 * the resource server's verifier (oauth.h) accepts unchanged, then refresh
 * rotation, a replayed code and revocation. (The HTTP endpoints, the
 * consent page and the SDK's client: tests/node/oauth_as.test.mjs.) */
#include "test.h"

#include <sys/stat.h>

#include "oauth/as.h"
#include "oauth/oauth.h"
#include "security/access.h"

TEST(oauth_as_form_parse)
{
    struct mg_as_form f;
    struct mg_err err = {0};
    const char *b = "grant_type=authorization_code&code=a%2Bb+c&empty=&flag";
    ASSERT_EQ_INT(mg_as_form_parse(b, strlen(b), &f, &err), 0);
    ASSERT_EQ_INT((int)f.n, 4);
    ASSERT_EQ_STR(mg_as_form_get(&f, "code"), "a+b c");
    ASSERT_EQ_STR(mg_as_form_get(&f, "empty"), "");
    ASSERT_EQ_STR(mg_as_form_get(&f, "flag"), "");
    ASSERT(mg_as_form_get(&f, "nothing") == NULL);
    mg_as_form_release(&f);
    static const char *const bad[] = {"a=1&a=2", "a=%zz", "a=%4", "a=%00", "=x", NULL};
    for (const char *const *p = bad; *p; p++) {
        memset(&err, 0, sizeof(err));
        ASSERT_EQ_INT(mg_as_form_parse(*p, strlen(*p), &f, &err), -1);
        ASSERT_EQ_STR(err.code, MG_E_OAUTH_REQUEST);
    }
    char big[MG_AS_FORM_MAX + 2];
    memset(big, 'a', sizeof(big));
    ASSERT_EQ_INT(mg_as_form_parse(big, sizeof(big), &f, &err), -1);
    char many[400] = "";
    for (int i = 0; i <= MG_AS_FORM_FIELDS; i++) snprintf(many + strlen(many), sizeof(many) - strlen(many), "f%d=&", i);
    ASSERT_EQ_INT(mg_as_form_parse(many, strlen(many), &f, &err), -1);
    ASSERT_CONTAINS(err.msg, "fields");
}

TEST(oauth_as_client_metadata_and_pkce)
{
    struct mg_as_client c;
    struct mg_err err = {0};
    const char *ok = "{\"client_name\":\"a\\u0007b\",\"redirect_uris\":[\"http://127.0.0.1:9/cb\","
                     "\"com.example.app:/cb\",\"https://app.example.com/cb?x=1\"],\"grant_types\":[\"authorization_code\"]}";
    ASSERT_EQ_INT(mg_as_client_parse(ok, strlen(ok), true, &c, &err), 0);
    ASSERT_EQ_INT((int)c.nredirects, 3);
    ASSERT_EQ_STR(c.name, "a b"); /* control characters never reach the consent page */
    static const char *const bad[] = {
        "[]", "{}", "{\"redirect_uris\":[]}", "{\"redirect_uris\":[\"javascript:alert(1)\"]}",
        "{\"redirect_uris\":[\"http://evil.example/cb\"]}", "{\"redirect_uris\":[\"https://a.example/cb#f\"]}",
        "{\"redirect_uris\":[\"https://a.example/cb\"],\"grant_types\":[\"client_credentials\"]}",
        "{\"redirect_uris\":[\"https://a.example/cb\"],\"response_types\":[\"token\"]}",
        "{\"redirect_uris\":[\"https://a.example/cb\"],\"redirect_uris\":[\"https://b.example/cb\"]}", NULL};
    for (const char *const *p = bad; *p; p++) {
        memset(&err, 0, sizeof(err));
        ASSERT_EQ_INT(mg_as_client_parse(*p, strlen(*p), true, &c, &err), -1);
        ASSERT_EQ_STR(err.code, MG_E_OAUTH_CLIENT_METADATA);
    }
    /* a metadata document must be a public client; a registration is answered as one */
    const char *secret = "{\"redirect_uris\":[\"https://a.example/cb\"],\"token_endpoint_auth_method\":\"client_secret_basic\"}";
    ASSERT_EQ_INT(mg_as_client_parse(secret, strlen(secret), false, &c, &err), -1);
    ASSERT_EQ_INT(mg_as_client_parse(secret, strlen(secret), true, &c, &err), 0);
    ASSERT(mg_as_client_id_url("https://app.example.com/client.json", false));
    ASSERT(!mg_as_client_id_url("https://app.example.com/", false)); /* a path is required */
    ASSERT(!mg_as_client_id_url("https://user@app.example.com/c.json", false));
    ASSERT(!mg_as_client_id_url("http://127.0.0.1:8/c.json", false));
    ASSERT(mg_as_client_id_url("http://127.0.0.1:8/c.json", true));
    ASSERT(!mg_as_client_id_url("http://10.0.0.1/c.json", true));
    ASSERT(!mg_as_client_id_url("https://127.0.0.1/c.json", true)); /* no fetching this host's own services */
    ASSERT(!mg_as_client_id_url("https://localhost:8443/c.json", false));
    /* RFC 7636 appendix B */
    ASSERT(mg_as_pkce_ok("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"));
    ASSERT(!mg_as_pkce_ok("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXj", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"));
    ASSERT(!mg_as_pkce_ok("short", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"));
}

/* A form from name, value pairs (NULL-terminated). */
static void form(struct mg_as_form *f, const char *const *kv)
{
    memset(f, 0, sizeof(*f));
    for (; kv[0]; kv += 2) {
        f->name[f->n] = strdup(kv[0]);
        f->value[f->n++] = strdup(kv[1]);
    }
}

static json_t *token(struct mg_as *as, const char *const *kv, struct mg_err *err)
{
    struct mg_as_form f;
    form(&f, kv);
    char tenant[65];
    memset(err, 0, sizeof(*err));
    json_t *j = mg_as_token(as, &f, tenant, sizeof(tenant), err);
    mg_as_form_release(&f);
    return j;
}

TEST(oauth_as_grant_and_the_verifier)
{
    struct mg_config cfg;
    mg_t_config_defaults(&cfg);
    snprintf(cfg.home, sizeof(cfg.home), "%s", mg_t_tmpdir());
    snprintf(cfg.oauth_server, sizeof(cfg.oauth_server), "on");
    snprintf(cfg.oauth_resource, sizeof(cfg.oauth_resource), "https://memgate.example.com/mcp");
    snprintf(cfg.oauth_issuer, sizeof(cfg.oauth_issuer), "https://memgate.example.com");
    struct mg_as *as = NULL;
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_as_open(&cfg, &as, &err), 0);
    char key[PATH_MAX + 32];
    snprintf(key, sizeof(key), "%s/oauth-signing.key", cfg.home);
    struct stat st;
    ASSERT_EQ_INT(stat(key, &st), 0);
    ASSERT_EQ_INT((int)(st.st_mode & 0777), 0600);
    const char *reg = "{\"client_name\":\"t\",\"redirect_uris\":[\"https://app.example.com/cb\"]}";
    json_t *cl = mg_as_register(as, reg, strlen(reg), &(int){0}, &err);
    ASSERT(cl != NULL);
    const char *id = json_string_value(json_object_get(cl, "client_id"));
    const char *verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
    struct mg_as_form q;
    form(&q, (const char *const[]){"response_type", "code", "client_id", id, "redirect_uri", "https://app.example.com/cb",
                                   "code_challenge", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
                                   "code_challenge_method", "S256", "scope", "memgate:admin", "state", "s", NULL});
    struct mg_as_authz a;
    bool redirectable = false;
    ASSERT_EQ_INT(mg_as_authorize(as, &q, &a, &redirectable, &err), 0);
    mg_as_form_release(&q);
    ASSERT_EQ_INT(a.level, MG_LEVEL_ADMIN);
    /* the approver: tenant acme, write, repo alpha: the grant gets no more */
    char *repos[] = {"alpha"};
    struct mg_principal p = {.tenant = "acme", .level = MG_LEVEL_WRITE, .repos = repos, .nrepos = 1, .token_id = "t1"};
    char code[80], again[80], consent[48];
    snprintf(consent, sizeof(consent), "%s", a.consent_id);
    ASSERT_EQ_INT(mg_as_consent(as, consent, &p, &a, code, sizeof(code), &err), 0);
    ASSERT_EQ_INT(mg_as_consent(as, consent, &p, &a, again, sizeof(again), &err), -1); /* answered once */
    ASSERT_EQ_STR(err.code, MG_E_OAUTH_CONSENT);
    const char *const good[] = {"grant_type", "authorization_code", "code", code, "code_verifier", verifier,
                                "redirect_uri", "https://app.example.com/cb", "client_id", id, NULL};
    json_t *t = token(as, good, &err);
    ASSERT(t != NULL);
    /* the resource server side accepts it as it is */
    struct mg_oauth *o = NULL;
    ASSERT_EQ_INT(mg_oauth_new(&cfg, &o, &err), 0);
    ASSERT_EQ_INT(mg_oauth_pin_keys(o, mg_as_jwks(as), NULL, NULL, &err), 0);
    const char *at = json_string_value(json_object_get(t, "access_token"));
    struct mg_principal got;
    ASSERT_EQ_INT(mg_oauth_check(o, at, strlen(at), &got, &err), 0);
    ASSERT_EQ_STR(got.tenant, "acme");
    ASSERT_EQ_INT(got.level, MG_LEVEL_WRITE);
    ASSERT_EQ_INT((int)got.nrepos, 1);
    ASSERT_EQ_STR(got.repos[0], "alpha");
    mg_principal_release(&got);
    /* the code again: refused, and its grant revoked */
    ASSERT(token(as, good, &err) == NULL);
    ASSERT_EQ_STR(err.code, MG_E_OAUTH_CODE_REUSED);
    const char *rt = json_string_value(json_object_get(t, "refresh_token"));
    ASSERT(token(as, (const char *const[]){"grant_type", "refresh_token", "refresh_token", rt, NULL}, &err) == NULL);
    ASSERT_EQ_STR(err.code, MG_E_OAUTH_REFRESH_REVOKED);
    json_decref(t);
    json_decref(cl);
    mg_oauth_free(&o);
    char *before = strdup(mg_as_jwks(as));
    mg_as_close(&as);
    /* reopened: the same key, so the tokens signed before a restart still verify */
    ASSERT_EQ_INT(mg_as_open(&cfg, &as, &err), 0);
    ASSERT_EQ_STR(mg_as_jwks(as), before);
    free(before);
    json_t *k = json_loads(mg_as_jwks(as), 0, NULL);
    ASSERT(json_object_get(json_array_get(json_object_get(k, "keys"), 0), "d") == NULL); /* public only */
    json_decref(k);
    mg_as_close(&as);
}
