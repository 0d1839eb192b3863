/* test_sql.c — store/sql.h and store/pg.h: one SQL interface over SQLite
 * and a real PostgreSQL (the runner starts one for tests named *pg*:
 * scripts/pg.sh), the pool, row-level security, the schema steps,
 * LISTEN/NOTIFY, and what callers see when PostgreSQL goes away and comes
 * back. */
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "store/pg.h"
#include "store/sql.h"
#include "store/sqlite.h"
#include "test.h"
#include "util/clock.h"
#include "util/config.h"

TEST(sql_placeholders_rewritten_outside_literals)
{
    int n = -1;
    char *s = mg_sql_pg_placeholders("SELECT ?, ?, '?', \"a?\" FROM t WHERE x = ?2 -- ?\n AND y = ? /* ? */", &n);
    ASSERT_EQ_STR(s, "SELECT $1, $2, '?', \"a?\" FROM t WHERE x = $2 -- ?\n AND y = $3 /* ? */");
    ASSERT_EQ_INT(n, 3);
    free(s);
    s = mg_sql_pg_placeholders("SELECT 'it''s ?', ?1, ?12", &n);
    ASSERT_EQ_STR(s, "SELECT 'it''s ?', $1, $12");
    ASSERT_EQ_INT(n, 12);
    free(s);
    ASSERT(mg_sql_pg_placeholders("SELECT ?0", &n) == NULL);
    ASSERT(mg_sql_pg_placeholders("SELECT ?1000", &n) == NULL);
    s = mg_sql_pg_placeholders("SELECT 1", &n);
    ASSERT_EQ_INT(n, 0);
    free(s);
}

/* The same statements, whatever the dialect. */
static void roundtrip(struct mg_sql *c)
{
    struct mg_err err = {0};
    const char *ddl = mg_sql_dialect(c) == MG_SQL_PG
                          ? "CREATE TABLE t(id bigint PRIMARY KEY, name text, score double precision, data bytea)"
                          : "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, score REAL, data BLOB)";
    if (mg_sql_exec(c, ddl, &err) != 0) FAIL("%s", err.msg);
    int64_t changes = -1;
    if (mg_sql_runf(c, &changes, &err, "INSERT INTO t(id, name, score) VALUES(?, ?, ?)", "isd", (int64_t)1,
                    "one's", 0.5) != 0)
        FAIL("%s", err.msg);
    ASSERT_EQ_INT(changes, 1);
    if (mg_sql_runf(c, NULL, &err, "INSERT INTO t(id, name, score) VALUES(?, ?, ?)", "isd", (int64_t)2, NULL,
                    -1e300) != 0)
        FAIL("%s", err.msg);
    struct mg_sql_st *st;
    if (mg_sql_prepare(c, "UPDATE t SET data = ?1 WHERE id = ?2", &st, &err) != 0) FAIL("%s", err.msg);
    static const unsigned char bin[] = {0, 1, 0xff, '\\', 'x', 0};
    mg_sql_bind_blob(st, 1, bin, sizeof(bin));
    mg_sql_bind_int(st, 2, 1);
    ASSERT_EQ_INT(mg_sql_step(st, &err), 0);
    ASSERT_EQ_INT(mg_sql_changes(st), 1);
    mg_sql_finalize(&st);
    ASSERT(st == NULL);

    if (mg_sql_prepare(c, "SELECT id, name, score, data FROM t WHERE id >= ? ORDER BY id", &st, &err) != 0)
        FAIL("%s", err.msg);
    mg_sql_bind_int(st, 1, 1);
    ASSERT_EQ_INT(mg_sql_step(st, &err), 1);
    ASSERT_EQ_INT(mg_sql_int(st, 0), 1);
    ASSERT_EQ_STR(mg_sql_text(st, 1), "one's");
    ASSERT(mg_sql_double(st, 2) == 0.5);
    size_t n;
    const unsigned char *b = mg_sql_blob(st, 3, &n);
    ASSERT_EQ_INT(n, sizeof(bin));
    ASSERT(memcmp(b, bin, n) == 0);
    ASSERT_EQ_INT(mg_sql_step(st, &err), 1);
    ASSERT_EQ_INT(mg_sql_int(st, 0), 2);
    ASSERT(mg_sql_is_null(st, 1));
    ASSERT_EQ_STR(mg_sql_text(st, 1), "");
    ASSERT(mg_sql_double(st, 2) == -1e300);
    ASSERT(mg_sql_blob(st, 3, &n) == NULL && n == 0);
    ASSERT_EQ_INT(mg_sql_step(st, &err), 0);
    /* reset keeps the bindings; a new binding takes effect */
    mg_sql_reset(st);
    mg_sql_bind_int(st, 1, 2);
    ASSERT_EQ_INT(mg_sql_step(st, &err), 1);
    ASSERT_EQ_INT(mg_sql_int(st, 0), 2);
    mg_sql_finalize(&st);

    /* transactions: a rollback undoes, a commit keeps */
    if (mg_sql_begin(c, true, &err) != 0) FAIL("%s", err.msg);
    if (mg_sql_runf(c, NULL, &err, "DELETE FROM t", "") != 0) FAIL("%s", err.msg);
    mg_sql_rollback(c);
    if (mg_sql_prepare(c, "SELECT count(*) FROM t", &st, &err) != 0) FAIL("%s", err.msg);
    ASSERT_EQ_INT(mg_sql_step(st, &err), 1);
    ASSERT_EQ_INT(mg_sql_int(st, 0), 2);
    mg_sql_finalize(&st);
    if (mg_sql_begin(c, true, &err) != 0 ||
        mg_sql_runf(c, &changes, &err, "DELETE FROM t WHERE id = ?", "i", (int64_t)2) != 0 ||
        mg_sql_commit(c, &err) != 0)
        FAIL("%s", err.msg);
    ASSERT_EQ_INT(changes, 1);
    /* ON CONFLICT ... DO UPDATE and RETURNING mean the same on both */
    if (mg_sql_prepare(c, "INSERT INTO t(id, name) VALUES(1, 'uno') ON CONFLICT(id) DO UPDATE SET name = "
                          "excluded.name RETURNING name", &st, &err) != 0)
        FAIL("%s", err.msg);
    ASSERT_EQ_INT(mg_sql_step(st, &err), 1);
    ASSERT_EQ_STR(mg_sql_text(st, 0), "uno");
    mg_sql_finalize(&st);
    /* a syntax error is db_error naming the database */
    ASSERT_EQ_INT(mg_sql_runf(c, NULL, &err, "SELEC 1", ""), -1);
    ASSERT_EQ_STR(err.code, MG_E_DB);
}

TEST(sql_sqlite_roundtrip)
{
    char path[600];
    snprintf(path, sizeof(path), "%s/t.db", mg_t_tmpdir());
    struct mg_sqlite_spec spec = {.what = "test database", .create = true};
    sqlite3 *db;
    struct mg_err err = {0};
    if (mg_sqlite_open(path, &spec, &db, &err) != 0) FAIL("%s", err.msg);
    struct mg_sql *c = mg_sql_sqlite(db, path, "test database");
    ASSERT(c && mg_sql_dialect(c) == MG_SQL_SQLITE && mg_sql_sqlite_db(c) == db);
    roundtrip(c);
    mg_sql_close(&c);
    ASSERT(c == NULL);
}

static void pg_config(struct mg_config *cfg, const char *url)
{
    mg_t_config_defaults(cfg);
    snprintf(cfg->storage, sizeof(cfg->storage), "%s", url);
    cfg->storage_timeout = 2;
}

TEST(sql_pg_roundtrip_and_errors)
{
    struct mg_config cfg;
    pg_config(&cfg, mg_t_pg_url());
    struct mg_pg *pool;
    struct mg_sql *c;
    struct mg_err err = {0};
    if (mg_pg_get(&cfg, NULL, &pool, &c, &err) != 0) FAIL("%s: %s", err.code, err.msg);
    ASSERT(mg_sql_dialect(c) == MG_SQL_PG && mg_sql_sqlite_db(c) == NULL);
    roundtrip(c);
    /* a unique violation is storage_conflict; the connection stays good */
    ASSERT_EQ_INT(mg_sql_runf(c, NULL, &err, "INSERT INTO t(id) VALUES(1)", ""), -1);
    ASSERT_EQ_STR(err.code, MG_E_STORAGE_CONFLICT);
    ASSERT_EQ_STR(mg_sql_sqlstate(c), "23505");
    ASSERT(!mg_sql_broken(c));
    /* a parameter past the statement's is an error, not a crash */
    struct mg_sql_st *st;
    if (mg_sql_prepare(c, "SELECT ?", &st, &err) != 0) FAIL("%s", err.msg);
    mg_sql_bind_int(st, 2, 1);
    ASSERT_EQ_INT(mg_sql_step(st, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_DB);
    mg_sql_finalize(&st);
    /* schema steps ran: memgate_migrations lists 0001_base */
    if (mg_sql_prepare(c, "SELECT count(*) FROM memgate_migrations WHERE name = '0001_base'", &st, &err) != 0)
        FAIL("%s", err.msg);
    ASSERT_EQ_INT(mg_sql_step(st, &err), 1);
    ASSERT_EQ_INT(mg_sql_int(st, 0), 1);
    mg_sql_finalize(&st);
    mg_pg_put(pool, &c);
    ASSERT(c == NULL);
    mg_pg_close_all();
}

TEST(sql_pg_tenant_policy_hides_other_tenants_rows)
{
    struct mg_config cfg;
    pg_config(&cfg, mg_t_pg_url());
    struct mg_pg *pool;
    struct mg_sql *c;
    struct mg_err err = {0};
    if (mg_pg_get(&cfg, NULL, &pool, &c, &err) != 0) FAIL("%s", err.msg);
    if (mg_sql_exec(c, "CREATE TABLE notes_t(tenant text NOT NULL, v text);"
                       "ALTER TABLE notes_t ENABLE ROW LEVEL SECURITY; ALTER TABLE notes_t FORCE ROW LEVEL SECURITY;"
                       "CREATE POLICY notes_t_tenant ON notes_t USING (tenant = current_setting('memgate.tenant', "
                       "true)) WITH CHECK (tenant = current_setting('memgate.tenant', true))", &err) != 0)
        FAIL("%s", err.msg);
    mg_pg_put(pool, &c);
    const char *tenants[] = {"acme", "globex"};
    for (int i = 0; i < 2; i++) {
        if (mg_pg_acquire(pool, tenants[i], &c, &err) != 0) FAIL("%s", err.msg);
        if (mg_sql_runf(c, NULL, &err, "INSERT INTO notes_t VALUES(?, ?)", "ss", tenants[i], tenants[i]) != 0)
            FAIL("%s", err.msg);
        /* writing a row of another tenant is refused by the policy */
        ASSERT_EQ_INT(mg_sql_runf(c, NULL, &err, "INSERT INTO notes_t VALUES(?, 'x')", "s", tenants[1 - i]), -1);
        ASSERT_EQ_STR(err.code, MG_E_DB);
        ASSERT_CONTAINS(err.msg, "row-level security");
        mg_pg_put(pool, &c);
    }
    /* the same connection path, a query without its tenant filter: only the tenant's own rows */
    for (int i = 0; i < 2; i++) {
        if (mg_pg_acquire(pool, tenants[i], &c, &err) != 0) FAIL("%s", err.msg);
        struct mg_sql_st *st;
        if (mg_sql_prepare(c, "SELECT tenant, v FROM notes_t", &st, &err) != 0) FAIL("%s", err.msg);
        int rows = 0;
        while (mg_sql_step(st, &err) == 1) {
            ASSERT_EQ_STR(mg_sql_text(st, 0), tenants[i]);
            rows++;
        }
        ASSERT_EQ_INT(rows, 1);
        mg_sql_finalize(&st);
        mg_pg_put(pool, &c);
    }
    /* a connection acting for no tenant sees no tenant's rows */
    if (mg_pg_acquire(pool, NULL, &c, &err) != 0) FAIL("%s", err.msg);
    struct mg_sql_st *st;
    if (mg_sql_prepare(c, "SELECT count(*) FROM notes_t", &st, &err) != 0) FAIL("%s", err.msg);
    ASSERT_EQ_INT(mg_sql_step(st, &err), 1);
    ASSERT_EQ_INT(mg_sql_int(st, 0), 0);
    mg_sql_finalize(&st);
    mg_pg_put(pool, &c);
    mg_pg_close_all();
}

TEST(sql_pg_superuser_refused_and_newer_schema_refused)
{
    struct mg_config cfg;
    const char *url = mg_t_pg_url();
    char su[600];
    /* the same database as the superuser postgres: the policies would not bind it */
    snprintf(su, sizeof(su), "%.*suser=postgres", (int)(strstr(url, "user=") - url), url);
    pg_config(&cfg, su);
    struct mg_pg *pool;
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_pg_pool(&cfg, &pool, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_CONFIG);
    ASSERT_CONTAINS(err.msg, "superuser");
    mg_pg_close_all();

    pg_config(&cfg, url);
    struct mg_sql *c;
    if (mg_pg_get(&cfg, NULL, &pool, &c, &err) != 0) FAIL("%s", err.msg);
    if (mg_sql_runf(c, NULL, &err, "INSERT INTO memgate_migrations VALUES('9999_from_the_future', 0, '9.9')", "") !=
        0)
        FAIL("%s", err.msg);
    mg_pg_put(pool, &c);
    mg_pg_close_all();
    ASSERT_EQ_INT(mg_pg_pool(&cfg, &pool, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_SCHEMA);
    ASSERT_CONTAINS(err.msg, "9999_from_the_future");
    ASSERT_CONTAINS(err.msg, "upgrade memgate");
    mg_pg_close_all();
}

TEST(sql_pg_pool_waits_then_says_so)
{
    struct mg_config cfg;
    pg_config(&cfg, mg_t_pg_url());
    cfg.storage_pool_max = 1;
    cfg.storage_timeout = 1;
    struct mg_pg *pool;
    struct mg_sql *a, *b;
    struct mg_err err = {0};
    if (mg_pg_get(&cfg, "acme", &pool, &a, &err) != 0) FAIL("%s", err.msg);
    double t0 = mg_clock_ms();
    ASSERT_EQ_INT(mg_pg_acquire(pool, "acme", &b, &err), -1);
    ASSERT(mg_clock_ms() - t0 >= 900);
    ASSERT_EQ_STR(err.code, MG_E_STORAGE_UNAVAILABLE);
    ASSERT_CONTAINS(err.msg, "storage_pool_max");
    int open, busy;
    mg_pg_counts(pool, &open, &busy);
    ASSERT_EQ_INT(open, 1);
    ASSERT_EQ_INT(busy, 1);
    mg_pg_put(pool, &a);
    if (mg_pg_acquire(pool, "globex", &b, &err) != 0) FAIL("%s", err.msg);
    /* the connection serves another tenant now: its setting followed */
    struct mg_sql_st *st;
    if (mg_sql_prepare(b, "SELECT current_setting('memgate.tenant')", &st, &err) != 0) FAIL("%s", err.msg);
    ASSERT_EQ_INT(mg_sql_step(st, &err), 1);
    ASSERT_EQ_STR(mg_sql_text(st, 0), "globex");
    mg_sql_finalize(&st);
    /* an open transaction is rolled back at release */
    if (mg_sql_begin(b, true, &err) != 0 || mg_sql_exec(b, "CREATE TABLE left_open(x int)", &err) != 0)
        FAIL("%s", err.msg);
    mg_pg_put(pool, &b);
    if (mg_pg_acquire(pool, NULL, &a, &err) != 0) FAIL("%s", err.msg);
    ASSERT_EQ_INT(mg_sql_exec(a, "SELECT * FROM left_open", &err), -1);
    mg_pg_put(pool, &a);
    mg_pg_close_all();
}

struct heard {
    pthread_mutex_t mu;
    int connects;
    char last[256];
    int n;
};

static void on_note(void *ud, const char *channel, const char *payload)
{
    struct heard *h = ud;
    pthread_mutex_lock(&h->mu);
    if (!channel) h->connects++;
    else {
        snprintf(h->last, sizeof(h->last), "%s:%s", channel, payload);
        h->n++;
    }
    pthread_mutex_unlock(&h->mu);
}

static bool wait_for(struct heard *h, int n, int connects, int ms)
{
    for (int i = 0; i < ms / 20; i++) {
        pthread_mutex_lock(&h->mu);
        bool ok = h->n >= n && h->connects >= connects;
        pthread_mutex_unlock(&h->mu);
        if (ok) return true;
        usleep(20000);
    }
    return false;
}

TEST_T(sql_pg_down_is_storage_unavailable_and_recovers, 180)
{
    mg_t_pg_dir(); /* needs the runner's scripts/pg.sh */
    char dir[600];
    struct mg_config cfg;
    pg_config(&cfg, mg_t_pg_own(dir, sizeof(dir)));
    struct mg_pg *pool;
    struct mg_sql *c;
    struct mg_err err = {0};
    if (mg_pg_get(&cfg, "acme", &pool, &c, &err) != 0) FAIL("%s", err.msg);
    mg_pg_put(pool, &c);
    struct heard h = {PTHREAD_MUTEX_INITIALIZER, 0, "", 0};
    struct mg_pg_listener *l;
    const char *chans[] = {"memgate_test"};
    if (mg_pg_listen(pool, chans, 1, on_note, &h, &l, &err) != 0) FAIL("%s", err.msg);
    ASSERT(wait_for(&h, 0, 1, 5000));
    if (mg_pg_acquire(pool, NULL, &c, &err) != 0 || mg_pg_notify(c, "memgate_test", "hello", &err) != 0)
        FAIL("%s", err.msg);
    mg_pg_put(pool, &c);
    ASSERT(wait_for(&h, 1, 1, 5000));
    ASSERT_EQ_STR(h.last, "memgate_test:hello");

    /* killed as a crash would: the idle pooled connection is broken, and so is every new one */
    mg_t_pg_cluster(dir, "kill");
    if (mg_pg_acquire(pool, "acme", &c, &err) == 0) {
        ASSERT_EQ_INT(mg_sql_exec(c, "SELECT 1", &err), -1);
        ASSERT(mg_sql_broken(c));
        mg_pg_put(pool, &c);
    }
    ASSERT_EQ_STR(err.code, MG_E_STORAGE_UNAVAILABLE);
    ASSERT_EQ_INT(mg_pg_acquire(pool, "acme", &c, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_STORAGE_UNAVAILABLE);
    ASSERT_CONTAINS(err.msg, "PostgreSQL");
    ASSERT_EQ_INT(mg_pg_ping(pool, &err), -1);

    /* back: the pool and the listener come back by themselves */
    mg_t_pg_cluster(dir, "restart");
    int ok = -1;
    for (int i = 0; i < 50 && ok != 0; i++) {
        ok = mg_pg_ping(pool, &err);
        if (ok != 0) usleep(100000);
    }
    if (ok != 0) FAIL("no recovery: %s", err.msg);
    ASSERT(wait_for(&h, 1, 2, 10000));
    for (int i = 0; i < 100 && h.n < 2; i++) { /* the listener may still be between its LISTEN and the wait */
        if (mg_pg_acquire(pool, NULL, &c, &err) != 0 || mg_pg_notify(c, "memgate_test", "again", &err) != 0)
            FAIL("%s", err.msg);
        mg_pg_put(pool, &c);
        wait_for(&h, 2, 2, 100);
    }
    ASSERT(wait_for(&h, 2, 2, 5000));
    mg_pg_listen_stop(&l);
    ASSERT(l == NULL);
    mg_pg_close_all();
    mg_t_pg_cluster(dir, "rm");
}

TEST(sql_pg_url_password_never_shown)
{
    char out[256];
    mg_pg_url_safe("postgres://memgate:s3cret@db:5432/memgate?sslmode=require", out, sizeof(out));
    ASSERT_EQ_STR(out, "postgres://memgate:***@db:5432/memgate?sslmode=require");
    mg_pg_url_safe("postgresql:///memgate?host=/tmp/x&password=s3cret&user=u", out, sizeof(out));
    ASSERT_EQ_STR(out, "postgresql:///memgate?host=/tmp/x&password=***&user=u");
    mg_pg_url_safe("postgresql://u@h/db", out, sizeof(out));
    ASSERT_EQ_STR(out, "postgresql://u@h/db");
    /* a refused connection's message names the URL without the password */
    struct mg_config cfg;
    pg_config(&cfg, "postgresql://memgate:s3cret@/memgate?host=/nonexistent-dir");
    struct mg_pg *pool;
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_pg_pool(&cfg, &pool, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_STORAGE_UNAVAILABLE);
    ASSERT_NOT_CONTAINS(err.msg, "s3cret");
    ASSERT_CONTAINS(err.msg, "***");
    mg_pg_close_all();
}
