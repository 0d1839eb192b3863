/* test_catalog_pg.c — the shared repo catalog on a real PostgreSQL
 * (store/catalog.h "The shared catalog"; the runner starts the cluster for
 * tests named *pg*): registration on the first explicit index run,
 * generations bumped with a notification in the same transaction, each
 * daemon's copy joined with its own local index (current, behind, pending,
 * absent, conflict), settings shared, removal; the catalog's tenant wins over
 * a local file's; the copy in memory of a following process and waiting for
 * a catch-up; and through the request pipeline, a daemon behind answering
 * stale and one without an index answering index_not_local. */
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "index/indexer.h"
#include "inproc.h"
#include "request/session.h"
#include "security/access.h"
#include "store/catalog.h"
#include "store/pg.h"
#include "test.h"

/* acme and globex may index under the temporary directory */
static void roots(struct mg_config *cfg)
{
    const char *t = getenv("TMPDIR");
    t = t && *t ? t : "/tmp";
    snprintf(cfg->index_roots, sizeof(cfg->index_roots), "acme:%s, globex:%s", t, t);
}

/* A data directory of its own ("a daemon") on the test's database. */
static void daemon_config(struct mg_config *cfg, const char *url)
{
    mg_t_config_defaults(cfg);
    roots(cfg);
    snprintf(cfg->home, sizeof(cfg->home), "%s", mg_t_tmpdir());
    snprintf(cfg->storage, sizeof(cfg->storage), "%s", url);
    snprintf(cfg->watch, sizeof(cfg->watch), "off");
    cfg->storage_timeout = 5;
}

static char *make_repo(const char *marker)
{
    char *dir = mg_t_tmpdir();
    char text[200];
    snprintf(text, sizeof(text), "int %s(void) { return 1; }\n", marker);
    mg_t_write_str(dir, "src/main.c", text);
    return dir;
}

/* Index root into cfg's data directory as tenant (the index layer alone: no catalog write). */
static void index_local(const struct mg_config *cfg, const char *root, const char *name, const char *tenant,
                        struct mg_index_stats *st)
{
    struct mg_index_opts o = {.path = root, .name = name, .tenant = tenant};
    struct mg_err err = {0};
    if (mg_index_run(cfg, &o, st, &err) != 0) FAIL("index %s: %s: %s", root, err.code, err.msg);
}

/* Notifications heard on the catalog's channel. */
struct heard {
    pthread_mutex_t mu;
    char payloads[16][512];
    int n;
    bool connected;
};

static void on_heard(void *ud, const char *channel, const char *payload)
{
    struct heard *h = ud;
    pthread_mutex_lock(&h->mu);
    if (!channel) h->connected = true;
    else if (h->n < 16) snprintf(h->payloads[h->n++], sizeof(h->payloads[0]), "%s", payload);
    pthread_mutex_unlock(&h->mu);
}

/* Wait (5 s at most) until n notifications were heard; the last one. */
static void heard_wait(struct heard *h, int n, char *last, size_t cap)
{
    for (int i = 0; i < 500; i++) {
        pthread_mutex_lock(&h->mu);
        int have = h->n;
        if (have >= n) snprintf(last, cap, "%s", h->payloads[n - 1]);
        pthread_mutex_unlock(&h->mu);
        if (have >= n) return;
        usleep(10000);
    }
    FAIL("%d notifications expected on %s, heard %d", n, MG_CATALOG_CHANNEL, h->n);
}

static struct mg_repo one_repo(const struct mg_config *cfg)
{
    struct mg_repo *v;
    size_t n;
    struct mg_err err = {0};
    if (mg_catalog_list(cfg, &v, &n, &err) != 0) FAIL("list: %s: %s", err.code, err.msg);
    ASSERT_EQ_INT(n, 1);
    struct mg_repo r = v[0];
    free(v);
    return r;
}

TEST(catalog_pg_register_bump_list_remove)
{
    const char *url = mg_t_pg_url();
    struct mg_config a, b;
    daemon_config(&a, url);
    daemon_config(&b, url);
    struct mg_err err = {0};
    ASSERT(mg_catalog_shared(&a));
    struct mg_pg *pool;
    if (mg_pg_pool(&a, &pool, &err) != 0) FAIL("%s", err.msg);
    struct heard h = {.mu = PTHREAD_MUTEX_INITIALIZER};
    static const char *const ch[] = {MG_CATALOG_CHANNEL};
    struct mg_pg_listener *l;
    if (mg_pg_listen(pool, ch, 1, on_heard, &h, &l, &err) != 0) FAIL("%s", err.msg);
    for (int i = 0; i < 500 && !h.connected; i++) usleep(10000);
    ASSERT(h.connected);

    /* nothing registered: an empty catalog, whatever the data directory holds */
    char *root = make_repo("catalog_marker_one");
    struct mg_index_stats st;
    index_local(&a, root, "alpha", "acme", &st);
    struct mg_repo *v;
    size_t n;
    ASSERT_EQ_INT(mg_catalog_list(&a, &v, &n, &err), 0);
    ASSERT_EQ_INT(n, 0);
    free(v);

    /* the first explicit run registers the repo: generation 1, notified, recorded locally; registered
     * in a later second than the run ended, the catalog still says when the index was made and indexed */
    struct mg_repo loc;
    char dbpath[4200];
    mg_repo_dbpath(&a, "alpha", dbpath, sizeof(dbpath));
    if (mg_catalog_read_local(dbpath, &loc, &err) != 0) FAIL("%s", err.msg);
    ASSERT(loc.indexed_at > 0 && loc.created_at > 0);
    for (time_t t0 = time(NULL); time(NULL) == t0;) usleep(10000);
    int64_t gen = 0;
    if (mg_catalog_indexed(&a, "alpha", "acme", st.root, "index", NULL, &gen, &err) != 0) FAIL("%s", err.msg);
    ASSERT_EQ_INT(gen, 1);
    char last[512];
    heard_wait(&h, 1, last, sizeof(last));
    ASSERT_EQ_STR(last, "{\"repo\":\"alpha\",\"generation\":1,\"reason\":\"index\"}");
    struct mg_repo r = one_repo(&a);
    ASSERT_EQ_STR(r.id, "alpha");
    ASSERT_EQ_STR(r.tenant, "acme");
    ASSERT_EQ_STR(r.root, st.root);
    ASSERT_EQ_INT(r.copy, MG_COPY_CURRENT);
    ASSERT_EQ_INT(r.generation, 1);
    ASSERT_EQ_INT(r.catalog_generation, 1);
    ASSERT_EQ_INT(r.files, 1);
    ASSERT_EQ_INT(r.indexed_at, loc.indexed_at);
    ASSERT_EQ_INT(r.created_at, loc.created_at);
    ASSERT(mg_repo_has_index(&r));
    ASSERT_EQ_STR(mg_repo_copy_name(r.copy), "current");

    /* another daemon's data directory: the repo is listed, its root is here, no index yet */
    r = one_repo(&b);
    ASSERT_EQ_INT(r.copy, MG_COPY_PENDING);
    ASSERT(!mg_repo_has_index(&r));
    ASSERT_EQ_INT(r.generation, 0);
    ASSERT_EQ_INT(r.catalog_generation, 1);
    ASSERT_EQ_STR(r.tenant, "acme");

    /* a push's run: generation 2 with its delivery id; b's index (once it has one at 1) is behind */
    index_local(&b, root, NULL, "acme", &st);
    ASSERT_EQ_INT(mg_catalog_caught_up(&b, "alpha", 1, &err), 0);
    ASSERT_EQ_INT(one_repo(&b).copy, MG_COPY_CURRENT);
    if (mg_catalog_indexed(&a, "alpha", "acme", st.root, "push", "d-42", &gen, &err) != 0) FAIL("%s", err.msg);
    ASSERT_EQ_INT(gen, 2);
    heard_wait(&h, 2, last, sizeof(last));
    ASSERT_EQ_STR(last, "{\"repo\":\"alpha\",\"generation\":2,\"reason\":\"push\",\"delivery\":\"d-42\"}");
    r = one_repo(&b);
    ASSERT_EQ_INT(r.copy, MG_COPY_BEHIND);
    ASSERT(mg_repo_has_index(&r));
    ASSERT_EQ_INT(r.generation, 1);
    ASSERT_EQ_INT(r.catalog_generation, 2);
    ASSERT_EQ_INT(one_repo(&a).copy, MG_COPY_CURRENT);

    /* the id is acme's and this root's: another tenant or another root is refused, nothing bumped */
    ASSERT_EQ_INT(mg_catalog_indexed(&a, "alpha", "globex", st.root, "index", NULL, &gen, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_REPO_EXISTS);
    ASSERT_CONTAINS(err.msg, "another tenant");
    ASSERT_EQ_INT(mg_catalog_indexed(&a, "alpha", "acme", "/elsewhere", "index", NULL, &gen, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_REPO_EXISTS);
    ASSERT_CONTAINS(err.msg, st.root);
    ASSERT_EQ_INT(one_repo(&a).catalog_generation, 2);
    ASSERT_EQ_INT(one_repo(&a).generation, 2); /* a refused run leaves the local record alone */

    /* settings are the catalog's: written on a, read on b, kept in b's index by the follower */
    r = one_repo(&a);
    struct mg_setting_change set[] = {{"reindex_interval", "3600"}, {"pull_on_push", "on"}};
    if (mg_catalog_settings_write(&a, &r, set, 2, &err) != 0) FAIL("%s", err.msg);
    heard_wait(&h, 3, last, sizeof(last));
    ASSERT_CONTAINS(last, "\"reason\":\"settings\"");
    r = one_repo(&b);
    ASSERT_EQ_INT(r.settings.reindex_interval, 3600);
    ASSERT_EQ_INT(r.reindex_interval, 3600);
    ASSERT(r.settings.pull_on_push);
    struct mg_repo local;
    ASSERT_EQ_INT(mg_catalog_read_local(r.dbpath, &local, &err), 0);
    ASSERT(!local.settings.pull_on_push);
    ASSERT_EQ_INT(mg_catalog_settings_sync(&b, &r, &err), 0);
    ASSERT_EQ_INT(mg_catalog_read_local(r.dbpath, &local, &err), 0);
    ASSERT(local.settings.pull_on_push);
    ASSERT_EQ_INT(local.settings.reindex_interval, 3600);
    struct mg_setting_change bad[] = {{"reindex_interval", "5"}};
    ASSERT_EQ_INT(mg_catalog_settings_write(&a, &r, bad, 1, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_BAD_ARG);

    /* by id, and an unknown one */
    ASSERT_EQ_INT(mg_catalog_get(&b, "alpha", &r, &err), 0);
    ASSERT_EQ_STR(r.tenant, "acme");
    ASSERT_EQ_INT(mg_catalog_get(&b, "nope", &r, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_REPO_NOT_FOUND);
    ASSERT_CONTAINS(err.msg, "alpha");

    /* removal: out of the catalog (notified), a's index deleted; b lists nothing (the follower drops b's) */
    ASSERT_EQ_INT(mg_catalog_remove(&a, "alpha", &err), 0);
    heard_wait(&h, 4, last, sizeof(last));
    ASSERT_EQ_STR(last, "{\"repo\":\"alpha\",\"generation\":0,\"reason\":\"remove\"}");
    ASSERT(access(dbpath, F_OK) != 0);
    ASSERT_EQ_INT(mg_catalog_list(&b, &v, &n, &err), 0);
    ASSERT_EQ_INT(n, 0);
    free(v);
    mg_pg_listen_stop(&l);
    mg_pg_close_all();
}

TEST(catalog_pg_tenant_authority)
{
    const char *url = mg_t_pg_url();
    struct mg_config a, b, b_local;
    daemon_config(&a, url);
    daemon_config(&b, url);
    b_local = b;
    snprintf(b_local.storage, sizeof(b_local.storage), "sqlite");
    struct mg_err err = {0};
    char *root = make_repo("authority_marker");

    /* daemon a registers the repo for acme */
    struct mg_index_stats st;
    index_local(&a, root, "shared", "acme", &st);
    int64_t gen;
    if (mg_catalog_indexed(&a, "shared", "acme", st.root, "index", NULL, &gen, &err) != 0) FAIL("%s", err.msg);

    /* daemon b's data directory holds an index of the same id and root that claims globex */
    index_local(&b_local, root, "shared", "globex", &st);
    struct mg_repo *v;
    size_t n;
    ASSERT_EQ_INT(mg_catalog_list(&b_local, &v, &n, &err), 0); /* (unshared, it would be globex's) */
    ASSERT_EQ_INT(n, 1);
    ASSERT_EQ_STR(v[0].tenant, "globex");
    ASSERT_EQ_INT(v[0].copy, MG_COPY_NONE);
    free(v);

    /* shared: the catalog's tenant, and the local file is not served to anyone */
    struct mg_repo r = one_repo(&b);
    ASSERT_EQ_STR(r.tenant, "acme");
    ASSERT_EQ_INT(r.copy, MG_COPY_CONFLICT);
    ASSERT(!mg_repo_has_index(&r));
    struct mg_principal globex = {.level = MG_LEVEL_ADMIN}, acme = {.level = MG_LEVEL_ADMIN};
    snprintf(globex.tenant, sizeof(globex.tenant), "globex");
    snprintf(acme.tenant, sizeof(acme.tenant), "acme");
    ASSERT(!mg_access_visible(&globex, &r));
    ASSERT(mg_access_visible(&acme, &r));

    /* an index the catalog does not list is never listed, whatever tenant it claims */
    char *root2 = make_repo("unlisted_marker");
    index_local(&b_local, root2, "unlisted", "globex", &st);
    ASSERT_EQ_INT(mg_catalog_list(&b, &v, &n, &err), 0);
    ASSERT_EQ_INT(n, 1);
    ASSERT_EQ_STR(v[0].id, "shared");
    free(v);
    ASSERT_EQ_INT(mg_catalog_get(&b, "unlisted", &r, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_REPO_NOT_FOUND);
    /* ... and its id cannot be registered for acme over it by indexing there */
    struct mg_index_opts o = {.path = root2, .name = "unlisted", .tenant = "acme"};
    ASSERT_EQ_INT(mg_index_run(&b, &o, &st, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_REPO_EXISTS);
    ASSERT_CONTAINS(err.msg, "another tenant");
    mg_pg_close_all();
}

struct catchup_arg {
    const struct mg_config *cfg;
    int64_t generation;
};

static void *late_catchup(void *p)
{
    struct catchup_arg *a = p;
    usleep(300000);
    struct mg_err err = {0};
    mg_catalog_caught_up(a->cfg, "gamma", a->generation, &err);
    return NULL;
}

TEST(catalog_pg_follow_copy_and_wait)
{
    const char *url = mg_t_pg_url();
    struct mg_config a, b;
    daemon_config(&a, url);
    daemon_config(&b, url);
    struct mg_err err = {0};
    char *root = make_repo("gamma_marker");
    struct mg_index_stats st;
    index_local(&a, root, "gamma", "local", &st);
    int64_t gen;
    if (mg_catalog_indexed(&a, "gamma", "local", st.root, "index", NULL, &gen, &err) != 0) FAIL("%s", err.msg);
    index_local(&b, root, NULL, "local", &st);

    /* following: listings read the copy in memory, which a refresh brings up to date */
    mg_catalog_follow(&b, true);
    if (mg_catalog_reload(&b, &err) != 0) FAIL("%s", err.msg);
    ASSERT_EQ_INT(one_repo(&b).catalog_generation, 1);
    struct mg_pg *pool;
    struct mg_sql *c;
    if (mg_pg_get(&a, NULL, &pool, &c, &err) != 0) FAIL("%s", err.msg);
    ASSERT_EQ_INT(mg_sql_exec(c, "UPDATE memgate_repos SET generation = 7 WHERE id = 'gamma'", &err), 0);
    mg_pg_put(pool, &c);
    ASSERT_EQ_INT(one_repo(&b).catalog_generation, 1); /* no query: the copy */
    if (mg_catalog_refresh(&b, "gamma", &err) != 0) FAIL("%s", err.msg);
    struct mg_repo r = one_repo(&b);
    ASSERT_EQ_INT(r.catalog_generation, 7);
    ASSERT_EQ_INT(r.copy, MG_COPY_BEHIND);

    /* waiting for the catch-up: done when the local index records the generation, or at the deadline */
    pthread_t t;
    struct catchup_arg arg = {&b, 7};
    pthread_create(&t, NULL, late_catchup, &arg);
    int64_t t0 = mg_now_ms();
    ASSERT_EQ_INT(mg_catalog_wait_current(&b, "gamma", t0 + 5000, &r, &err), 0);
    int64_t took = mg_now_ms() - t0;
    pthread_join(t, NULL);
    ASSERT_EQ_INT(r.copy, MG_COPY_CURRENT);
    ASSERT(took >= 250 && took < 4000);
    if (mg_catalog_refresh(&b, "gamma", &err) != 0) FAIL("%s", err.msg); /* (nothing changed) */
    if (mg_pg_get(&a, NULL, &pool, &c, &err) != 0) FAIL("%s", err.msg);
    ASSERT_EQ_INT(mg_sql_exec(c, "UPDATE memgate_repos SET generation = 8 WHERE id = 'gamma'", &err), 0);
    mg_pg_put(pool, &c);
    if (mg_catalog_refresh(&b, "gamma", &err) != 0) FAIL("%s", err.msg);
    t0 = mg_now_ms();
    ASSERT_EQ_INT(mg_catalog_wait_current(&b, "gamma", t0 + 400, &r, &err), 0);
    ASSERT_EQ_INT(r.copy, MG_COPY_BEHIND);
    ASSERT(mg_now_ms() - t0 >= 380);

    /* a row gone: the copy drops it at its refresh */
    if (mg_pg_get(&a, NULL, &pool, &c, &err) != 0) FAIL("%s", err.msg);
    ASSERT_EQ_INT(mg_sql_exec(c, "DELETE FROM memgate_repos", &err), 0);
    mg_pg_put(pool, &c);
    ASSERT_EQ_INT(one_repo(&b).catalog_generation, 8);
    if (mg_catalog_refresh(&b, "gamma", &err) != 0) FAIL("%s", err.msg);
    struct mg_repo *v;
    size_t n;
    ASSERT_EQ_INT(mg_catalog_list(&b, &v, &n, &err), 0);
    ASSERT_EQ_INT(n, 0);
    free(v);
    mg_catalog_follow(&b, false);
    mg_pg_close_all();
}

/* Through the request pipeline: two daemons' data directories on one database. */
TEST(catalog_pg_requests_answer_stale_and_not_local)
{
    const char *url = mg_t_pg_url();
    struct mg_t_srv a, b;
    mg_t_srv_open(&a, mg_t_tmpdir(), "acme", MG_LEVEL_ADMIN);
    mg_t_srv_open(&b, mg_t_tmpdir(), "acme", MG_LEVEL_ADMIN);
    snprintf(a.srv.cfg.storage, sizeof(a.srv.cfg.storage), "%s", url);
    snprintf(b.srv.cfg.storage, sizeof(b.srv.cfg.storage), "%s", url);
    roots(&a.srv.cfg);
    roots(&b.srv.cfg);
    char *root = make_repo("delta_marker");
    char code[64], msg[1024], args[600];

    /* a indexes it: registered, generation 1 in the tool's result */
    snprintf(args, sizeof(args), "{\"path\":\"%s\",\"name\":\"delta\"}", root);
    json_t *r = mg_t_call(&a, "index_repo", args, code);
    if (!r) FAIL("index_repo: %s", code);
    ASSERT_EQ_INT(json_integer_value(json_object_get(r, "generation")), 1);
    json_decref(r);

    /* b has no index of it yet: reads are index_not_local, the listing says pending, status answers */
    ASSERT(mg_t_call_msg(&b, "search_code", "{\"query\":\"delta_marker\",\"repo\":\"delta\"}", code, msg) == NULL);
    ASSERT_EQ_STR(code, MG_E_INDEX_NOT_LOCAL);
    ASSERT_CONTAINS(msg, "building its own index");
    r = mg_t_call(&b, "list_repos", "{}", code);
    json_t *item = json_array_get(json_object_get(r, "repos"), 0);
    ASSERT_EQ_STR(json_string_value(json_object_get(item, "index_state")), "pending");
    ASSERT_EQ_INT(json_integer_value(json_object_get(item, "catalog_generation")), 1);
    ASSERT(!json_object_get(item, "generation"));
    json_decref(r);
    r = mg_t_call(&b, "index_status", "{\"repo\":\"delta\"}", code);
    if (!r) FAIL("index_status: %s", code);
    json_decref(r);

    /* b re-indexes it (an explicit run): generation 2; a is now behind and says so at the top level */
    b.repo_header = "delta";
    r = mg_t_call(&b, "index_repo", "{}", code);
    if (!r) FAIL("index_repo on b: %s", code);
    ASSERT_EQ_INT(json_integer_value(json_object_get(r, "generation")), 2);
    json_decref(r);
    r = mg_t_call(&a, "search_code", "{\"query\":\"delta_marker\",\"repo\":\"delta\"}", code);
    if (!r) FAIL("search on a: %s", code);
    ASSERT(json_is_true(json_object_get(r, "index_stale")));
    json_t *sr = json_array_get(json_object_get(r, "index_stale_repos"), 0);
    ASSERT_EQ_STR(json_string_value(json_object_get(sr, "repo")), "delta");
    ASSERT_EQ_INT(json_integer_value(json_object_get(sr, "generation")), 1);
    ASSERT_EQ_INT(json_integer_value(json_object_get(sr, "catalog_generation")), 2);
    ASSERT(json_array_size(json_object_get(r, "results")) > 0);
    json_decref(r);
    r = mg_t_call(&b, "search_code", "{\"query\":\"delta_marker\",\"repo\":\"delta\"}", code);
    if (!r) FAIL("search on b: %s", code);
    ASSERT(!json_object_get(r, "index_stale"));
    json_decref(r);

    /* waiting (storage_stale = wait) for a catch-up that does not come: at most storage_stale_wait, then stale */
    snprintf(a.srv.cfg.storage_stale, sizeof(a.srv.cfg.storage_stale), "wait");
    a.srv.cfg.storage_stale_wait = 1;
    int64_t t0 = mg_now_ms();
    r = mg_t_call(&a, "search_code", "{\"query\":\"delta_marker\",\"repo\":\"delta\"}", code);
    ASSERT(mg_now_ms() - t0 >= 900);
    ASSERT(r && json_is_true(json_object_get(r, "index_stale")));
    json_decref(r);

    /* memory reads are not index reads: no stale flag, no wait */
    t0 = mg_now_ms();
    r = mg_t_call(&a, "list_notes", "{\"repo\":\"delta\"}", code);
    if (!r) FAIL("list_notes: %s", code);
    ASSERT(!json_object_get(r, "index_stale"));
    ASSERT(mg_now_ms() - t0 < 900);
    json_decref(r);

    /* another tenant sees nothing of it on either daemon */
    snprintf(b.who.tenant, sizeof(b.who.tenant), "globex");
    mg_session_unref(&b.s); /* and a session of its own */
    struct mg_err serr = {0};
    b.s = mg_sessions_create(b.srv.sessions, MG_SESSION_API, NULL, NULL, "globex", &serr);
    ASSERT(b.s != NULL);
    b.repo_header = NULL;
    r = mg_t_call(&b, "list_repos", "{}", code);
    ASSERT_EQ_INT(json_array_size(json_object_get(r, "repos")), 0);
    json_decref(r);
    ASSERT(mg_t_call(&b, "search_code", "{\"query\":\"delta_marker\",\"repo\":\"delta\"}", code) == NULL);
    ASSERT(strcmp(code, MG_E_REPO_NOT_FOUND) == 0 || strcmp(code, MG_E_REPO_FORBIDDEN) == 0);
    mg_t_srv_close(&a);
    mg_t_srv_close(&b);
    mg_pg_close_all();
}
