/* test_session_pg.c — sessions and handles shared by several daemons through
 * PostgreSQL (request/session.h, "Shared sessions"), and what the daemons
 * make of the database going away: storage_unavailable (503 over HTTP),
 * the probe of /readyz and /metrics (request/storage.h), recovery without a
 * restart. Two servers on two data directories and one database stand for
 * two daemons behind a load balancer: what one writes, the other reads at
 * its next request. The runner gives tests named *pg* a cluster
 * (scripts/pg.sh); the outage test starts one of its own to stop. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "http/http.h"
#include "request/ctx.h"
#include "request/storage.h"
#include "store/pg.h"
#include "test.h"
#include "tools/tools.h"
#include "util/metrics.h"

/* a "daemon": a server on its own data directory, storage = url */
static void daemon_open(struct mg_server *srv, const char *home, const char *url, int ttl_s)
{
    struct mg_config cfg;
    mg_t_config_defaults(&cfg);
    snprintf(cfg.home, sizeof(cfg.home), "%s", home);
    snprintf(cfg.storage, sizeof(cfg.storage), "%s", url);
    cfg.storage_timeout = 2;
    cfg.session_ttl = ttl_s;
    struct mg_err err = {0};
    if (mg_server_open(srv, &cfg, 0, &err) != 0) FAIL("server: %s", err.msg);
    ASSERT(mg_sessions_shared(srv->sessions));
}

static json_t *call_in(struct mg_server *srv, const char *tenant, const char *sid, const char *tool,
                       const char *args, char code[64]);

/* A first request, so that what a process loads once (the secret rules) is not timed below. */
static void warm(struct mg_server *srv)
{
    char code[64];
    json_t *r = call_in(srv, "acme", "sid-warm-up-01", "get_scope", "{}", code);
    if (!r) FAIL("warm-up: %s", code);
    json_decref(r);
}

/* (with storage = url: the repo is the shared catalog's, as every daemon's) */
static void index_in(const char *home, const char *repo, const char *url)
{
    char cfg[1024];
    snprintf(cfg, sizeof(cfg), "index_roots = acme:/tmp\nstorage = %s\n", url);
    mg_t_write_str(home, "config", cfg);
    struct mg_t_out o = MG_RUN(repo, home, "index", repo, "--name", "alpha", "--tenant", "acme", "--quiet");
    if (o.status != 0) FAIL("index: %s", o.err);
    mg_t_out_free(&o);
}

/* One /v1-like request of tenant naming session sid (an API session created when unknown, as api.c does):
 * the tool's result, or NULL with code. */
static json_t *call_in(struct mg_server *srv, const char *tenant, const char *sid, const char *tool,
                       const char *args, char code[64])
{
    struct mg_err err = {0};
    enum mg_lookup how;
    code[0] = 0;
    struct mg_session *s = mg_sessions_lookup(srv->sessions, sid, tenant, &how, &err);
    if (!s && how == MG_SESSION_UNKNOWN) s = mg_sessions_create(srv->sessions, MG_SESSION_API, sid, NULL, tenant, &err);
    if (!s) {
        snprintf(code, 64, "%s", how == MG_SESSION_EXPIRED ? MG_E_SESSION_EXPIRED : err.code ? err.code : "?");
        return NULL;
    }
    struct mg_principal who = {.level = MG_LEVEL_ADMIN};
    snprintf(who.tenant, sizeof(who.tenant), "%s", tenant);
    struct mg_request_spec spec = {.srv = srv, .who = &who, .session = s, .op = tool};
    struct mg_ctx x;
    json_t *a = mg_t_json(args), *r = NULL;
    if (mg_request_init(&x, &spec, &err) != 0) FAIL("request: %s", err.msg);
    int rc = mg_tools_call(&x, mg_tool_find(tool), a, &r, &err);
    mg_request_release(&x);
    mg_session_unref(&s);
    json_decref(a);
    if (rc != 0) snprintf(code, 64, "%s", err.code ? err.code : "?");
    return rc == 0 ? r : NULL;
}

static const char *scope_glob(json_t *r)
{
    return json_string_value(json_array_get(json_object_get(json_object_get(r, "scope"), "globs"), 0));
}

TEST(session_pg_scope_and_handles_across_daemons)
{
    const char *url = mg_t_pg_url();
    char *h1 = mg_t_tmpdir(), *h2 = mg_t_tmpdir(), *repo = mg_t_tmpdir();
    mg_t_write_str(repo, "top.c", "int canary_top(void) { return 1; }\n");
    mg_t_write_str(repo, "sub/deep.c", "int canary_deep(void) { return 2; }\n");
    mg_t_sh(repo, "git init -q .");
    index_in(h1, repo, url);
    index_in(h2, repo, url);
    struct mg_server a, b;
    daemon_open(&a, h1, url, 3600);
    daemon_open(&b, h2, url, 3600);
    char code[64];
    /* set_scope on A, a search on B applies it */
    json_t *r = call_in(&a, "acme", "sid-across-0001", "set_scope", "{\"globs\":[\"sub/**\"]}", code);
    if (!r) FAIL("set_scope: %s", code);
    json_decref(r);
    r = call_in(&b, "acme", "sid-across-0001", "search_code", "{\"query\":\"canary\"}", code);
    if (!r) FAIL("search: %s", code);
    ASSERT_EQ_INT(json_array_size(json_object_get(r, "results")), 1);
    ASSERT_EQ_STR(json_string_value(json_object_get(json_array_get(json_object_get(r, "results"), 0), "path")),
                  "sub/deep.c");
    ASSERT_EQ_STR(scope_glob(r), "sub/**");
    json_decref(r);
    /* cleared on B: A sees it cleared */
    json_decref(call_in(&b, "acme", "sid-across-0001", "clear_scope", "{}", code));
    r = call_in(&a, "acme", "sid-across-0001", "get_scope", "{}", code);
    ASSERT(r && scope_glob(r) == NULL);
    json_decref(r);
    r = call_in(&a, "acme", "sid-across-0001", "search_code", "{\"query\":\"canary\"}", code);
    ASSERT_EQ_INT(json_array_size(json_object_get(r, "results")), 2);
    json_decref(r);

    /* a handle opened on A (bound to the repo) is known to B, with its scope set there */
    r = call_in(&a, "acme", "sid-opener-0001", "open_handle", "{\"repo\":\"alpha\"}", code);
    if (!r) FAIL("open_handle: %s", code);
    char handle[MG_SID_MAX + 1];
    snprintf(handle, sizeof(handle), "%s", json_string_value(json_object_get(r, "handle")));
    json_decref(r);
    enum mg_lookup how;
    struct mg_err err = {0};
    struct mg_session *s = mg_sessions_lookup(b.sessions, handle, "acme", &how, &err);
    ASSERT(s && how == MG_SESSION_FOUND);
    ASSERT_EQ_INT(mg_session_kind(s), MG_SESSION_HANDLE);
    char bound[MG_ID_MAX + 1];
    mg_session_repo(s, bound);
    ASSERT_EQ_STR(bound, "alpha");
    mg_session_unref(&s);
    json_decref(call_in(&b, "acme", handle, "set_scope", "{\"globs\":[\"top.c\"]}", code));
    r = call_in(&a, "acme", handle, "search_code", "{\"query\":\"canary\"}", code);
    ASSERT_EQ_INT(json_array_size(json_object_get(r, "results")), 1);
    ASSERT_EQ_STR(json_string_value(json_object_get(json_array_get(json_object_get(r, "results"), 0), "path")),
                  "top.c");
    json_decref(r);

    /* a handle opened unbound on A is bound by B's first request stating a root (gate.c settle): A sees it */
    r = call_in(&a, "acme", "sid-opener-0002", "open_handle", "{}", code);
    ASSERT(r);
    snprintf(handle, sizeof(handle), "%s", json_string_value(json_object_get(r, "handle")));
    json_decref(r);
    s = mg_sessions_lookup(b.sessions, handle, "acme", &how, &err);
    ASSERT(s);
    /* (the only repo bound it: unbind it, as if there were several; stored) */
    ASSERT_EQ_INT(mg_session_bind_repo(s, "", &err), 0);
    mg_session_offer_root(s, repo, false); /* what rpc.c's request_binding does with _meta["memgate/root"] */
    struct mg_principal who = {.level = MG_LEVEL_ADMIN};
    snprintf(who.tenant, sizeof(who.tenant), "acme");
    struct mg_request_spec spec = {.srv = &b, .who = &who, .session = s, .op = "search_code"};
    struct mg_ctx x;
    ASSERT_EQ_INT(mg_request_init(&x, &spec, &err), 0);
    json_t *args = mg_t_json("{\"query\":\"canary\"}");
    ASSERT_EQ_INT(mg_tools_call(&x, mg_tool_find("search_code"), args, &r, &err), 0);
    json_decref(args);
    json_decref(r);
    mg_request_release(&x);
    mg_session_unref(&s);
    s = mg_sessions_lookup(a.sessions, handle, "acme", &how, &err);
    ASSERT(s);
    mg_session_repo(s, bound);
    ASSERT_EQ_STR(bound, "alpha");
    mg_session_unref(&s);

    /* nothing of it stays in either registry: each request reads the database */
    ASSERT_EQ_INT(mg_sessions_count(a.sessions), 0);
    ASSERT_EQ_INT(mg_sessions_count(b.sessions), 0);
    mg_server_close(&a);
    mg_server_close(&b);
    mg_pg_close_all();
}

TEST(session_pg_another_tenants_session_is_unusable)
{
    const char *url = mg_t_pg_url();
    struct mg_server a, b;
    daemon_open(&a, mg_t_tmpdir(), url, 3600);
    daemon_open(&b, mg_t_tmpdir(), url, 3600);
    char code[64];
    json_t *r = call_in(&a, "acme", "sid-tenant-0001", "set_scope", "{\"globs\":[\"src/**\"]}", code);
    if (!r) FAIL("set_scope: %s", code);
    json_decref(r);
    enum mg_lookup how;
    struct mg_err err = {0};
    struct mg_session *h = mg_sessions_create(a.sessions, MG_SESSION_HANDLE, NULL, NULL, "acme", &err);
    if (!h) FAIL("handle: %s", err.msg);
    char handle[MG_SID_MAX + 1];
    snprintf(handle, sizeof(handle), "%s", mg_session_id(h));
    mg_session_unref(&h);
    /* globex on B: neither the session nor the handle exists for it */
    ASSERT(!mg_sessions_lookup(b.sessions, "sid-tenant-0001", "globex", &how, &err));
    ASSERT_EQ_INT(how, MG_SESSION_UNKNOWN);
    ASSERT(!mg_sessions_lookup(b.sessions, handle, "globex", &how, &err));
    ASSERT_EQ_INT(how, MG_SESSION_UNKNOWN);

    /* in depth: an unfiltered statement on globex's connection sees none of acme's rows, and a DELETE
     * without WHERE (the purge's statement) removes none of acme's live rows */
    struct mg_pg *pool;
    struct mg_sql *c;
    struct mg_sql_st *st;
    if (mg_pg_get(&a.cfg, "globex", &pool, &c, &err) != 0) FAIL("%s", err.msg);
    ASSERT_EQ_INT(mg_sql_prepare(c, "SELECT count(*) FROM memgate_sessions", &st, &err), 0);
    ASSERT_EQ_INT(mg_sql_step(st, &err), 1);
    ASSERT_EQ_INT(mg_sql_int(st, 0), 0);
    mg_sql_finalize(&st);
    int64_t n = -1;
    ASSERT_EQ_INT(mg_sql_runf(c, &n, &err, "DELETE FROM memgate_sessions", ""), 0);
    ASSERT_EQ_INT(n, 0);
    mg_pg_put(pool, &c);
    ASSERT_EQ_INT(mg_sessions_purge_shared(a.sessions, &err), 0);
    if (mg_pg_get(&a.cfg, "acme", &pool, &c, &err) != 0) FAIL("%s", err.msg);
    ASSERT_EQ_INT(mg_sql_prepare(c, "SELECT count(*) FROM memgate_sessions", &st, &err), 0);
    ASSERT_EQ_INT(mg_sql_step(st, &err), 1);
    ASSERT_EQ_INT(mg_sql_int(st, 0), 2); /* the session and the handle */
    mg_sql_finalize(&st);
    mg_pg_put(pool, &c);
    /* an id is its tenant's own: globex naming acme's id makes a session of its own (the key is tenant and
     * id, so no tenant can take an id before another names it), and acme's is intact */
    struct mg_session *g = mg_sessions_create(b.sessions, MG_SESSION_API, "sid-tenant-0001", NULL, "globex", &err);
    if (!g) FAIL("globex's session of the same id: %s: %s", err.code, err.msg);
    ASSERT_EQ_STR(mg_session_tenant(g), "globex");
    mg_session_unref(&g);
    r = call_in(&b, "globex", "sid-tenant-0001", "get_scope", "{}", code);
    if (!r) FAIL("globex get_scope: %s", code);
    ASSERT(scope_glob(r) == NULL || !*scope_glob(r));
    json_decref(r);
    r = call_in(&b, "acme", "sid-tenant-0001", "get_scope", "{}", code);
    ASSERT_EQ_STR(scope_glob(r), "src/**");
    json_decref(r);
    mg_server_close(&a);
    mg_server_close(&b);
    mg_pg_close_all();
}

TEST_T(session_pg_idle_expiry_across_daemons, 90)
{
    const char *url = mg_t_pg_url();
    struct mg_server a, b;
    daemon_open(&a, mg_t_tmpdir(), url, 2); /* session_ttl 2 s (a loaded machine needs the slack) */
    daemon_open(&b, mg_t_tmpdir(), url, 2);
    warm(&a);
    warm(&b);
    char code[64];
    json_t *r = call_in(&a, "acme", "sid-idle-00001", "set_scope", "{\"globs\":[\"a/**\"]}", code);
    if (!r) FAIL("set_scope: %s", code);
    json_decref(r);
    /* used every second, alternately on B and A: the use on one daemon keeps it alive on the other */
    for (int i = 0; i < 3; i++) {
        usleep(1000 * 1000);
        r = call_in(i % 2 ? &a : &b, "acme", "sid-idle-00001", "get_scope", "{}", code);
        if (!r) FAIL("use %d: %s", i, code);
        ASSERT_EQ_STR(scope_glob(r), "a/**");
        json_decref(r);
    }
    /* idle past the ttl: expired for both, and it stays so (a tombstone), so its scope is never dropped silently */
    usleep(2600 * 1000);
    enum mg_lookup how;
    struct mg_err err = {0};
    ASSERT(!mg_sessions_lookup(b.sessions, "sid-idle-00001", "acme", &how, &err));
    ASSERT_EQ_INT(how, MG_SESSION_EXPIRED);
    ASSERT(!mg_sessions_lookup(a.sessions, "sid-idle-00001", "acme", &how, &err));
    ASSERT_EQ_INT(how, MG_SESSION_EXPIRED);
    ASSERT(!call_in(&a, "acme", "sid-idle-00001", "get_scope", "{}", code));
    ASSERT_EQ_STR(code, MG_E_SESSION_EXPIRED);
    /* a request that held it while it expired stores nothing */
    r = call_in(&a, "acme", "sid-idle-00002", "get_scope", "{}", code);
    json_decref(r);
    struct mg_session *s = mg_sessions_lookup(a.sessions, "sid-idle-00002", "acme", &how, &err);
    ASSERT(s);
    usleep(2600 * 1000);
    ASSERT(!mg_sessions_lookup(b.sessions, "sid-idle-00002", "acme", &how, &err)); /* B sees it expire */
    ASSERT_EQ_INT(mg_session_set_scope(s, NULL, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_SESSION_EXPIRED);
    mg_session_unref(&s);
    /* past twice the ttl the tombstones are purged (by whichever daemon sweeps), then the ids are free again */
    usleep(4400 * 1000);
    struct mg_metric_totals t;
    mg_metrics_totals(&t);
    uint64_t pruned0 = t.sessions_pruned;
    ASSERT_EQ_INT(mg_sessions_purge_shared(b.sessions, &err), 3); /* and the two warm-up sessions' one */
    mg_metrics_totals(&t);
    ASSERT_EQ_INT(t.sessions_pruned - pruned0, 3);
    ASSERT(!mg_sessions_lookup(a.sessions, "sid-idle-00001", "acme", &how, &err));
    ASSERT_EQ_INT(how, MG_SESSION_UNKNOWN);
    r = call_in(&a, "acme", "sid-idle-00001", "get_scope", "{}", code);
    ASSERT(r && scope_glob(r) == NULL);
    json_decref(r);
    mg_server_close(&a);
    mg_server_close(&b);
    mg_pg_close_all();
}

/* The probe's answer once it settles on up (or the time runs out). */
static struct mg_storage_state probe_until(struct mg_storage_probe *p, bool up, int ms)
{
    struct mg_storage_state st;
    for (int i = 0; i < ms / 50; i++) {
        mg_storage_check(p, &st);
        if (st.up == up) break;
        usleep(50 * 1000);
    }
    return st;
}

TEST_T(session_pg_outage_is_storage_unavailable_and_heals, 180)
{
    char dir[600];
    const char *url = mg_t_pg_own(dir, sizeof(dir));
    struct mg_server a;
    daemon_open(&a, mg_t_tmpdir(), url, 3600);
    char code[64];
    json_t *r = call_in(&a, "acme", "sid-outage-001", "set_scope", "{\"globs\":[\"kept/**\"]}", code);
    if (!r) FAIL("set_scope: %s", code);
    json_decref(r);
    struct mg_storage_state st = probe_until(a.storage, true, 3000);
    ASSERT(st.up);
    ASSERT_EQ_INT(st.max, a.cfg.storage_pool_max);
    uint64_t errs0 = mg_metrics_storage_errors(MG_E_STORAGE_UNAVAILABLE);

    mg_t_pg_cluster(dir, "stop");
    /* the acknowledged scope's session: storage_unavailable, not unknown (a new session would lose the scope) */
    enum mg_lookup how;
    struct mg_err err = {0};
    ASSERT(!mg_sessions_lookup(a.sessions, "sid-outage-001", "acme", &how, &err));
    ASSERT_EQ_INT(how, MG_SESSION_ERROR);
    ASSERT_EQ_STR(err.code, MG_E_STORAGE_UNAVAILABLE);
    ASSERT(!call_in(&a, "acme", "sid-outage-new", "get_scope", "{}", code));
    ASSERT_EQ_STR(code, MG_E_STORAGE_UNAVAILABLE);
    ASSERT(!mg_sessions_create(a.sessions, MG_SESSION_HANDLE, NULL, NULL, "acme", &err));
    ASSERT_EQ_STR(err.code, MG_E_STORAGE_UNAVAILABLE);
    ASSERT_EQ_INT(mg_sessions_purge_shared(a.sessions, &err), -1);
    ASSERT_GE_INT(mg_metrics_storage_errors(MG_E_STORAGE_UNAVAILABLE), errs0 + 3);
    /* the probe says so within a second or so, and the transports answer 503 (Retry-After: http.md) */
    st = probe_until(a.storage, false, 3000);
    ASSERT(!st.up);
    ASSERT_EQ_STR(st.code, MG_E_STORAGE_UNAVAILABLE);
    ASSERT_NOT_CONTAINS(st.message, "password");
    ASSERT_EQ_INT(mg_err_http_status(MG_E_STORAGE_UNAVAILABLE), 503);
    ASSERT_EQ_INT(mg_err_http_status(MG_E_STORAGE_RETRY), 503);
    ASSERT_EQ_INT(mg_err_http_status(MG_E_STORAGE_CONFLICT), 409);
    struct mg_storage_step *steps;
    size_t n;
    ASSERT_EQ_INT(mg_storage_steps(&a.cfg, &steps, &n, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_STORAGE_UNAVAILABLE);

    /* back: no restart, and what was acknowledged before is there */
    mg_t_pg_cluster(dir, "restart");
    st = probe_until(a.storage, true, 10000);
    ASSERT(st.up);
    r = call_in(&a, "acme", "sid-outage-001", "get_scope", "{}", code);
    if (!r) FAIL("after the outage: %s", code);
    ASSERT_EQ_STR(scope_glob(r), "kept/**");
    json_decref(r);
    if (mg_storage_steps(&a.cfg, &steps, &n, &err) != 0) FAIL("%s", err.msg);
    bool mine = false;
    for (size_t i = 0; i < n; i++) mine |= strcmp(steps[i].name, "0007_sessions") == 0 && steps[i].known;
    ASSERT(mine);
    free(steps);
    mg_server_close(&a);
    mg_pg_close_all();
    mg_t_pg_cluster(dir, "rm");
}

TEST(session_sqlite_mode_keeps_sessions_in_the_registry)
{
    struct mg_server srv;
    struct mg_config cfg;
    mg_t_config_defaults(&cfg);
    snprintf(cfg.home, sizeof(cfg.home), "%s", mg_t_tmpdir());
    struct mg_err err = {0};
    if (mg_server_open(&srv, &cfg, 0, &err) != 0) FAIL("%s", err.msg);
    ASSERT(!mg_sessions_shared(srv.sessions));
    ASSERT(srv.storage == NULL);
    struct mg_session *s = mg_sessions_create(srv.sessions, MG_SESSION_API, "sid-local-0001", NULL, "acme", &err);
    ASSERT(s && !mg_session_shared(s));
    ASSERT_EQ_STR(mg_session_tenant(s), "acme");
    ASSERT_EQ_INT(mg_session_set_scope(s, NULL, &err), 0); /* nothing to write */
    ASSERT_EQ_INT(mg_sessions_count(srv.sessions), 1);
    enum mg_lookup how;
    struct mg_session *g = mg_sessions_lookup(srv.sessions, "sid-local-0001", "globex", &how, &err);
    ASSERT(g == NULL); /* an id is its tenant's own: globex's lookup does not find acme's */
    ASSERT_EQ_INT(how, MG_SESSION_UNKNOWN);
    g = mg_sessions_lookup(srv.sessions, "sid-local-0001", "acme", &how, &err);
    ASSERT(g == s); /* the registry's */
    mg_session_unref(&g);
    mg_session_unref(&s);
    ASSERT_EQ_INT(mg_sessions_purge_shared(srv.sessions, &err), 0);
    mg_server_close(&srv);
}

TEST(status_pg_shows_the_storage_and_its_schema)
{
    char url[700];
    snprintf(url, sizeof(url), "%s&password=s3cret-pw", mg_t_pg_url()); /* trust auth: the password is unused */
    char *home = mg_t_tmpdir();
    setenv("MEMGATE_STORAGE", url, 1);
    struct mg_t_out o = MG_RUN(NULL, home, "status", "--json");
    if (o.status != 0) FAIL("status: %s", o.err);
    ASSERT_NOT_CONTAINS(o.out, "s3cret-pw");
    json_t *j = mg_t_json(o.out), *st = json_object_get(j, "storage");
    ASSERT_EQ_STR(json_string_value(json_object_get(st, "kind")), "postgresql");
    ASSERT_CONTAINS(json_string_value(json_object_get(st, "url")), "password=***");
    ASSERT(json_is_true(json_object_get(st, "reachable")));
    bool mine = false;
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(st, "schema"), i, s) mine |=
        strcmp(json_string_value(json_object_get(s, "name")), "0007_sessions") == 0 &&
        json_is_true(json_object_get(s, "known"));
    ASSERT(mine);
    json_decref(j);
    mg_t_out_free(&o);
    o = MG_RUN(NULL, home, "status");
    ASSERT_EQ_INT(o.status, 0);
    ASSERT_CONTAINS(o.out, "reachable; schema steps 0001_base");
    ASSERT_CONTAINS(o.out, "0007_sessions");
    mg_t_out_free(&o);
    /* unreachable: the report says so, and the exit status is 1 with the error's code */
    setenv("MEMGATE_STORAGE", "postgresql://memgate:s3cret-pw@/memgate?host=/nonexistent-dir", 1);
    o = MG_RUN(NULL, home, "status");
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.out, "storage:        postgresql://memgate:***@/memgate?host=/nonexistent-dir (unreachable: "
                           "storage_unavailable)");
    ASSERT_CONTAINS(o.err, "error[storage_unavailable]: ");
    ASSERT_NOT_CONTAINS(o.out, "s3cret-pw");
    ASSERT_NOT_CONTAINS(o.err, "s3cret-pw");
    mg_t_out_free(&o);
    unsetenv("MEMGATE_STORAGE");
    o = MG_RUN(NULL, home, "status");
    ASSERT_CONTAINS(o.out, "storage:        sqlite (the data directory)");
    mg_t_out_free(&o);
}
