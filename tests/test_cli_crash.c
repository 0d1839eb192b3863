/* test_cli_crash.c — an index run killed at any moment leaves a consistent
 * index; the next run finishes the job; SIGINT stops cleanly. */
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fixtures.h"

#define NFILES 2000

static void many_files(const char *dir)
{
    char path[64], text[2048];
    for (int i = 0; i < NFILES; i++) {
        snprintf(path, sizeof(path), "d%02d/file%04d.c", i % 40, i);
        int n = snprintf(text, sizeof(text), "/* file %d */\nint unit_%04d_marker(void)\n{\n", i, i);
        for (int k = 0; k < 40; k++) n += snprintf(text + n, sizeof(text) - (size_t)n, "    work(%d, %d);\n", i, k);
        snprintf(text + n, sizeof(text) - (size_t)n, "    return %d;\n}\n", i);
        mg_t_write_str(dir, path, text);
    }
}

static pid_t spawn_index(const char *repo, const char *home)
{
    pid_t pid = fork();
    if (pid == 0) {
        setenv("MEMGATE_HOME", home, 1);
        setenv("MEMGATE_TEST_COMMIT_BYTES", "65536", 1);
        freopen("/dev/null", "w", stdout);
        freopen("/dev/null", "w", stderr);
        const char *bin = getenv("MEMGATE_BIN");
        execl(bin ? bin : "build/memgate", "memgate", "index", repo, "--name", "crash", "--threads", "1", (char *)NULL);
        _exit(127);
    }
    return pid;
}

static long long db_count(const char *home, const char *sql)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/repos/crash.db", home);
    sqlite3 *db;
    long long v = -1;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        sqlite3_close(db);
        return -1;
    }
    sqlite3_busy_timeout(db, 2000);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

static void wait_for_files(const char *home, long long n)
{
    for (int i = 0; i < 3000; i++) {
        if (db_count(home, "SELECT count(*) FROM files") >= n) return;
        usleep(2000);
    }
    FAIL("the index run never committed %lld files", n);
}

static void check_consistent(const char *home)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/repos/crash.db", home);
    sqlite3 *db;
    ASSERT_EQ_INT(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_stmt *st;
    ASSERT_EQ_INT(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL), SQLITE_OK);
    ASSERT_EQ_INT(sqlite3_step(st), SQLITE_ROW);
    ASSERT_EQ_STR((const char *)sqlite3_column_text(st, 0), "ok");
    sqlite3_finalize(st);
    /* every file has all its chunks: none half-written */
    ASSERT_EQ_INT(sqlite3_prepare_v2(db, "SELECT count(*) FROM files f WHERE f.chunk_lo <= f.chunk_hi AND "
                                         "(SELECT count(*) FROM chunks c WHERE c.id BETWEEN f.chunk_lo AND f.chunk_hi) = 0",
                                     -1, &st, NULL), SQLITE_OK);
    ASSERT_EQ_INT(sqlite3_step(st), SQLITE_ROW);
    ASSERT_EQ_INT(sqlite3_column_int(st, 0), 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
}

TEST_T(index_killed_mid_run_recovers, 300)
{
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir();
    many_files(repo);
    pid_t pid = spawn_index(repo, home);
    wait_for_files(home, 300);
    kill(pid, SIGKILL);
    int status;
    waitpid(pid, &status, 0);
    ASSERT(WIFSIGNALED(status));
    long long committed = db_count(home, "SELECT count(*) FROM files");
    ASSERT_GE_INT(committed, 300);
    ASSERT(committed < NFILES); /* it really died mid-run */
    ASSERT_GE_INT(db_count(home, "SELECT count(*) FROM tri_pending"), 1); /* and before flushing trigrams */
    check_consistent(home);
    /* what was committed is searchable right away, by every mode, even the
     * files whose trigrams the dead run never flushed */
    long long last = db_count(home, "SELECT max(id) FROM files");
    char q[64];
    long long unit = db_count(home, "SELECT CAST(substr(path, 11, 4) AS INTEGER) FROM files ORDER BY id DESC LIMIT 1");
    ASSERT(last > 0 && unit >= 0);
    snprintf(q, sizeof(q), "unit_%04lld_marker", unit);
    json_t *j = mg_fx_search(repo, home, q, "regex", 5);
    ASSERT_EQ_INT(json_array_size(json_object_get(j, "results")), 1);
    json_decref(j);
    j = mg_fx_search(repo, home, q, "lexical", 5);
    ASSERT_EQ_INT(json_array_size(json_object_get(j, "results")), 1);
    json_decref(j);
    /* the next run finishes the job */
    j = mg_fx_run_json(NULL, home, (const char *const[]){"index", repo, "--json", NULL});
    ASSERT_EQ_STR(json_string_value(json_object_get(j, "repo")), "crash");
    ASSERT_EQ_INT(mg_fx_int(j, "total_files"), NFILES);
    ASSERT_EQ_INT(mg_fx_int(j, "files.unchanged"), committed);
    json_decref(j);
    check_consistent(home);
    ASSERT_EQ_INT(db_count(home, "SELECT count(*) FROM tri_pending"), 0);
    for (int i = 0; i < NFILES; i += 199) {
        snprintf(q, sizeof(q), "unit_%04d_marker", i);
        j = mg_fx_search(repo, home, q, "regex", 5);
        if (json_array_size(json_object_get(j, "results")) != 1) FAIL("%s lost after the crash", q);
        json_decref(j);
        j = mg_fx_search(repo, home, q, "symbol", 5);
        if (json_array_size(json_object_get(j, "results")) != 1) FAIL("%s symbol lost after the crash", q);
        json_decref(j);
    }
}

TEST_T(index_sigint_stops_and_keeps_work, 300)
{
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir();
    many_files(repo);
    pid_t pid = fork();
    if (pid == 0) {
        setenv("MEMGATE_HOME", home, 1);
        setenv("MEMGATE_TEST_COMMIT_BYTES", "65536", 1);
        freopen("/dev/null", "w", stdout);
        char errp[4200];
        snprintf(errp, sizeof(errp), "%s/stderr", home);
        freopen(errp, "w", stderr);
        const char *bin = getenv("MEMGATE_BIN");
        execl(bin ? bin : "build/memgate", "memgate", "index", repo, "--name", "crash", "--threads", "1", (char *)NULL);
        _exit(127);
    }
    wait_for_files(home, 200);
    kill(pid, SIGINT);
    int status;
    waitpid(pid, &status, 0);
    ASSERT(WIFEXITED(status));
    ASSERT_EQ_INT(WEXITSTATUS(status), 1);
    char errp[4200], buf[4096] = "";
    snprintf(errp, sizeof(errp), "%s/stderr", home);
    FILE *f = fopen(errp, "r");
    ASSERT(f != NULL);
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    buf[n] = 0;
    fclose(f);
    ASSERT_CONTAINS(buf, "error[interrupted]");
    ASSERT_CONTAINS(buf, "run `memgate index` again to finish");
    check_consistent(home);
    /* the stats say so until a run finishes */
    json_t *j = mg_fx_run_json(NULL, home, (const char *const[]){"status", "--json", NULL});
    json_t *r = json_array_get(json_object_get(j, "repos"), 0);
    ASSERT_CONTAINS(json_string_value(json_object_get(r, "last_error")), "interrupted: interrupted after");
    ASSERT(json_is_integer(json_object_get(r, "last_error_at")));
    json_decref(j);
    j = mg_fx_run_json(NULL, home, (const char *const[]){"index", repo, "--json", NULL});
    ASSERT_EQ_INT(mg_fx_int(j, "total_files"), NFILES);
    json_decref(j);
    j = mg_fx_run_json(NULL, home, (const char *const[]){"status", "--json", NULL});
    ASSERT(json_is_null(json_object_get(json_array_get(json_object_get(j, "repos"), 0), "last_error")));
    json_decref(j);
}
