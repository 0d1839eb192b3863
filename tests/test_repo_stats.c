/* test_repo_stats.c — a repo's settings (`memgate repos show|set`) and
 * stats (`memgate status --json`, the index_status tool) from the command
 * line, on an indexed fixture repo. */
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fixtures.h"

static void sql(const char *home, const char *id, const char *q)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/repos/%s.db", home, id);
    sqlite3 *db;
    if (sqlite3_open(path, &db) != SQLITE_OK) FAIL("open %s", path);
    sqlite3_busy_timeout(db, 5000);
    char *msg = NULL;
    if (sqlite3_exec(db, q, NULL, NULL, &msg) != SQLITE_OK) FAIL("%s: %s", q, msg);
    sqlite3_close(db);
}

/* The one repo of `status --json` (a new reference). */
static json_t *stats_of(const char *home)
{
    json_t *j = mg_fx_run_json(NULL, home, (const char *const[]){"status", "--json", NULL});
    json_t *repos = json_object_get(j, "repos");
    if (json_array_size(repos) != 1) FAIL("status lists %zu repos", json_array_size(repos));
    json_t *r = json_incref(json_array_get(repos, 0));
    json_decref(j);
    return r;
}

static const char *str(json_t *o, const char *k) { return json_string_value(json_object_get(o, k)); }
static long long num(json_t *o, const char *k) { return (long long)json_integer_value(json_object_get(o, k)); }

static json_t *show(const char *home)
{
    return mg_fx_run_json(NULL, home, (const char *const[]){"repos", "show", "poly", "--json", NULL});
}

TEST(repos_set_show_round_trip)
{
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir();
    mg_fx_polyglot(repo);
    json_decref(mg_fx_run_json(NULL, home, (const char *const[]){"index", repo, "--name", "poly", "--json", NULL}));
    json_t *j = show(home);
    ASSERT_EQ_STR(str(j, "repo"), "poly");
    json_t *s = json_object_get(j, "settings");
    ASSERT_EQ_STR(str(s, "watch"), "default");
    ASSERT_EQ_STR(str(s, "watch_effective"), "on");
    ASSERT_EQ_INT(num(s, "reindex_interval"), 0);
    ASSERT_EQ_STR(str(s, "pull_on_push"), "off");
    json_decref(j);

    j = mg_fx_run_json(NULL, home, (const char *const[]){"repos", "set", "poly", "watch=off", "reindex_interval=3600",
                                                         "pull_on_push=on", "--json", NULL});
    s = json_object_get(j, "settings");
    ASSERT_EQ_STR(str(s, "watch"), "off");
    ASSERT_EQ_STR(str(s, "watch_effective"), "off");
    ASSERT_EQ_INT(num(s, "reindex_interval"), 3600);
    ASSERT_EQ_STR(str(s, "pull_on_push"), "on");
    json_decref(j);
    /* stored where the watcher and the webhook read them */
    char p[4200];
    snprintf(p, sizeof(p), "%s/repos/poly.db", home);
    sqlite3 *db;
    ASSERT_EQ_INT(sqlite3_open_v2(p, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st;
    ASSERT_EQ_INT(sqlite3_prepare_v2(db, "SELECT group_concat(key || '=' || value, ' ') FROM (SELECT * FROM meta "
                                         "WHERE key GLOB 'setting.*' ORDER BY key)", -1, &st, NULL), SQLITE_OK);
    ASSERT_EQ_INT(sqlite3_step(st), SQLITE_ROW);
    ASSERT_EQ_STR((const char *)sqlite3_column_text(st, 0),
                  "setting.pull_on_push=on setting.reindex_interval=3600 setting.watch=off");
    sqlite3_finalize(st);
    sqlite3_close(db);

    /* show, in words */
    struct mg_t_out o = MG_RUN(NULL, home, "repos", "show", "poly");
    ASSERT_EQ_INT(o.status, 0);
    ASSERT_CONTAINS(o.out, "watch             off");
    ASSERT_CONTAINS(o.out, "reindex_interval  3600 s");
    mg_t_out_free(&o);

    /* default puts one back; the others stay; the config key decides watch then */
    json_decref(mg_fx_run_json(NULL, home, (const char *const[]){"repos", "set", "poly", "watch=default", "--json",
                                                                 NULL}));
    setenv("MEMGATE_WATCH", "off", 1);
    j = show(home);
    s = json_object_get(j, "settings");
    ASSERT_EQ_STR(str(s, "watch"), "default");
    ASSERT_EQ_STR(str(s, "watch_effective"), "off");
    ASSERT_EQ_INT(num(s, "reindex_interval"), 3600);
    json_decref(j);
    unsetenv("MEMGATE_WATCH");

    /* the settings live and die with the repo's index */
    o = MG_RUN(NULL, home, "repos", "rm", "poly");
    ASSERT_EQ_INT(o.status, 0);
    mg_t_out_free(&o);
    json_decref(mg_fx_run_json(NULL, home, (const char *const[]){"index", repo, "--name", "poly", "--json", NULL}));
    j = show(home);
    ASSERT_EQ_INT(num(json_object_get(j, "settings"), "reindex_interval"), 0);
    json_decref(j);
}

TEST(repos_set_bad_keys_and_values)
{
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir();
    mg_fx_polyglot(repo);
    json_decref(mg_fx_run_json(NULL, home, (const char *const[]){"index", repo, "--name", "poly", "--json", NULL}));
    static const struct {
        const char *arg, *says;
    } bad[] = {
        {"colour=red", "the settings are watch (on, off, default), reindex_interval"},
        {"watch=sometimes", "use on, off or default"},
        {"pull_on_push=yes", "use on, off or default"},
        {"reindex_interval=30", "0 for none or 60 to"},
        {"reindex_interval=-60", "0 for none or 60 to"},
        {"reindex_interval=1h", "0 for none or 60 to"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        /* with a good change beside it: all or none */
        const char *good = strncmp(bad[i].arg, "watch", 5) == 0 ? "reindex_interval=600" : "watch=off";
        struct mg_t_out o = MG_RUN(NULL, home, "repos", "set", "poly", good, bad[i].arg);
        if (o.status != 1) FAIL("repos set %s: status %d", bad[i].arg, o.status);
        ASSERT_CONTAINS(o.err, "error[invalid_argument]");
        ASSERT_CONTAINS(o.err, bad[i].says);
        mg_t_out_free(&o);
    }
    json_t *j = show(home);
    ASSERT_EQ_STR(str(json_object_get(j, "settings"), "watch"), "default");
    ASSERT_EQ_INT(num(json_object_get(j, "settings"), "reindex_interval"), 0);
    json_decref(j);
    /* not KEY=VALUE, no setting, no repo: usage */
    struct mg_t_out o = MG_RUN(NULL, home, "repos", "set", "poly", "watch");
    ASSERT_EQ_INT(o.status, 2);
    ASSERT_CONTAINS(o.err, "KEY=VALUE");
    mg_t_out_free(&o);
    o = MG_RUN(NULL, home, "repos", "set", "poly");
    ASSERT_EQ_INT(o.status, 2);
    mg_t_out_free(&o);
    o = MG_RUN(NULL, home, "repos", "show");
    ASSERT_EQ_INT(o.status, 2);
    mg_t_out_free(&o);
    o = MG_RUN(NULL, home, "repos", "show", "nope");
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.err, "error[repo_not_found]");
    mg_t_out_free(&o);
    /* the test seam allows a short interval */
    setenv("MEMGATE_TEST_MIN_REINDEX_INTERVAL", "2", 1);
    j = mg_fx_run_json(NULL, home, (const char *const[]){"repos", "set", "poly", "reindex_interval=2", "--json", NULL});
    ASSERT_EQ_INT(num(json_object_get(j, "settings"), "reindex_interval"), 2);
    json_decref(j);
    unsetenv("MEMGATE_TEST_MIN_REINDEX_INTERVAL");
    o = MG_RUN(NULL, home, "repos", "--help");
    ASSERT_EQ_INT(o.status, 0);
    ASSERT_CONTAINS(o.out, "reindex_interval=SECONDS");
    mg_t_out_free(&o);
}

TEST(stats_after_an_index_match_the_run)
{
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir();
    mg_fx_polyglot(repo);
    long long t0 = (long long)time(NULL);
    json_t *run = mg_fx_run_json(NULL, home, (const char *const[]){"index", repo, "--name", "poly", "--json", NULL});
    long long t1 = (long long)time(NULL);
    json_t *r = stats_of(home);
    ASSERT_EQ_STR(str(r, "id"), "poly");
    ASSERT_EQ_INT(num(r, "files"), mg_fx_int(run, "total_files"));
    ASSERT_EQ_INT(num(r, "chunks"), mg_fx_int(run, "chunks"));
    ASSERT_EQ_INT(num(r, "symbols"), mg_fx_int(run, "symbols"));
    ASSERT_EQ_INT(num(r, "bytes"), mg_fx_int(run, "total_bytes"));
    ASSERT_EQ_INT(num(r, "vectors"), mg_fx_int(run, "vectors.chunks"));
    ASSERT_EQ_INT(num(r, "secrets_redacted"), mg_fx_int(run, "secrets_redacted"));
    ASSERT(num(r, "db_bytes") > 0);
    ASSERT_GE_INT(num(r, "full_index_at"), t0);
    ASSERT_GE_INT(t1, num(r, "full_index_at"));
    /* the run's time without the vector pass after it */
    ASSERT_GE_INT(num(r, "full_index_ms"), 0);
    ASSERT_GE_INT((long long)(json_real_value(json_object_get(run, "seconds")) * 1000) + 1, num(r, "full_index_ms"));
    /* nothing watches it yet, no incremental run, no error, nothing running */
    ASSERT_EQ_STR(str(r, "watch_state"), "off");
    ASSERT_EQ_INT(num(r, "watch_count"), 0);
    ASSERT_EQ_INT(num(r, "pending_changes"), 0);
    ASSERT(json_is_null(json_object_get(r, "incr_index_at")));
    ASSERT(json_is_null(json_object_get(r, "incr_index_ms")));
    ASSERT(json_is_null(json_object_get(r, "last_error")));
    ASSERT(json_is_null(json_object_get(r, "last_error_at")));
    ASSERT(json_is_false(json_object_get(r, "index_busy")));
    ASSERT_EQ_STR(str(json_object_get(r, "settings"), "watch"), "default");
    json_decref(r);
    json_decref(run);

    /* the human form says the same */
    struct mg_t_out o = MG_RUN(NULL, home, "status");
    ASSERT_EQ_INT(o.status, 0);
    ASSERT_CONTAINS(o.out, "watcher off");
    ASSERT_CONTAINS(o.out, "incremental never");
    ASSERT_NOT_CONTAINS(o.out, "last error");
    mg_t_out_free(&o);
}

TEST(stats_last_error_of_a_failed_run_until_one_succeeds)
{
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir();
    mg_fx_polyglot(repo);
    json_decref(mg_fx_run_json(NULL, home, (const char *const[]){"index", repo, "--name", "poly", "--json", NULL}));
    json_t *before = stats_of(home);
    /* a run that fails once it holds the repo: its secret rules do not load */
    mg_t_write_str(home, "bad.rules", "this is not a rule\n");
    char rules[4200];
    snprintf(rules, sizeof(rules), "%s/bad.rules", home);
    setenv("MEMGATE_SECRET_RULES", rules, 1);
    long long t0 = (long long)time(NULL);
    struct mg_t_out o = MG_RUN(NULL, home, "index", repo, "--name", "poly");
    ASSERT_EQ_INT(o.status, 1);
    mg_t_out_free(&o);
    unsetenv("MEMGATE_SECRET_RULES");
    json_t *r = stats_of(home);
    ASSERT_CONTAINS(str(r, "last_error"), "invalid_rules: ");
    ASSERT_CONTAINS(str(r, "last_error"), "bad.rules");
    ASSERT_GE_INT(num(r, "last_error_at"), t0);
    /* the last good run is still what the index holds */
    ASSERT_EQ_INT(num(r, "full_index_at"), num(before, "full_index_at"));
    ASSERT_EQ_INT(num(r, "files"), num(before, "files"));
    json_decref(r);
    o = MG_RUN(NULL, home, "status");
    ASSERT_CONTAINS(o.out, "last error (");
    ASSERT_CONTAINS(o.out, "invalid_rules");
    mg_t_out_free(&o);
    /* the next good run clears it */
    json_decref(mg_fx_run_json(NULL, home, (const char *const[]){"index", repo, "--name", "poly", "--json", NULL}));
    r = stats_of(home);
    ASSERT(json_is_null(json_object_get(r, "last_error")));
    ASSERT(json_is_null(json_object_get(r, "last_error_at")));
    json_decref(r);
    json_decref(before);
}

TEST(stats_watcher_rows_and_a_run_holding_the_lock)
{
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir();
    mg_fx_polyglot(repo);
    json_decref(mg_fx_run_json(NULL, home, (const char *const[]){"index", repo, "--name", "poly", "--json", NULL}));
    /* what a live watcher writes */
    long long now = (long long)time(NULL);
    char q[1024];
    snprintf(q, sizeof(q), "INSERT OR REPLACE INTO meta VALUES('watch.state','watching'),('watch.count','42'),"
             "('watch.pending','5'),('watch.pid','%d'),('watch.updated_at','%lld'),('index.incr_at','%lld'),"
             "('index.incr_ms','17')", (int)getpid(), now, now);
    sql(home, "poly", q);
    json_t *r = stats_of(home);
    ASSERT_EQ_STR(str(r, "watch_state"), "watching");
    ASSERT_EQ_INT(num(r, "watch_count"), 42);
    ASSERT_EQ_INT(num(r, "pending_changes"), 5);
    ASSERT_EQ_INT(num(r, "incr_index_at"), now);
    ASSERT_EQ_INT(num(r, "incr_index_ms"), 17);
    json_decref(r);
    /* the watcher died long ago without cleaning up */
    pid_t gone = fork();
    if (gone == 0) _exit(0);
    waitpid(gone, NULL, 0);
    snprintf(q, sizeof(q), "UPDATE meta SET value = CASE key WHEN 'watch.pid' THEN '%d' ELSE '%lld' END WHERE key IN "
             "('watch.pid', 'watch.updated_at')", (int)gone, now - 3600);
    sql(home, "poly", q);
    r = stats_of(home);
    ASSERT_EQ_STR(str(r, "watch_state"), "off");
    ASSERT_EQ_INT(num(r, "watch_count"), 0);
    ASSERT(json_is_null(json_object_get(r, "pending_changes")));
    json_decref(r);

    /* an index run holds the repo */
    char lock[4200];
    snprintf(lock, sizeof(lock), "%s/repos/poly.db.lock", home);
    int fd = open(lock, O_RDWR | O_CREAT, 0600);
    ASSERT(fd >= 0);
    ASSERT_EQ_INT(flock(fd, LOCK_EX | LOCK_NB), 0);
    r = stats_of(home);
    ASSERT(json_is_true(json_object_get(r, "index_busy")));
    json_decref(r);
    close(fd);
    r = stats_of(home);
    ASSERT(json_is_false(json_object_get(r, "index_busy")));
    json_decref(r);
}
