/* test_db_pool.c — the pool of read-only index handles (store/db.h), and the
 * handles beside them on the same file. */
#include "test.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sqlite3.h>
#include <time.h>
#include <unistd.h>

#include "store/db.h"
#include "store/indexdb.h"

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A new index database at path with meta "mark" = mark. */
static void make_db(const char *path, const char *mark)
{
    struct mg_db *d;
    struct mg_err err = {0};
    if (mg_db_open(path, MG_DB_CREATE, &d, &err) != 0) FAIL("create %s: %s", path, err.msg);
    if (mg_db_meta_set(d, "mark", mark, &err) != 0) FAIL("meta: %s", err.msg);
    mg_db_close(&d);
}

static void set_mark(const char *path, const char *mark)
{
    struct mg_db *d;
    struct mg_err err = {0};
    if (mg_db_open(path, 0, &d, &err) != 0) FAIL("open %s: %s", path, err.msg);
    if (mg_db_meta_set(d, "mark", mark, &err) != 0) FAIL("meta: %s", err.msg);
    mg_db_close(&d);
}

static const char *mark_of(struct mg_db *d)
{
    static char buf[64];
    if (mg_db_meta_get(d, "mark", buf, sizeof(buf)) != 0) return "(none)";
    return buf;
}

TEST(db_pool_reuses_bounds_and_times_out)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/a.db", mg_t_tmpdir());
    make_db(path, "one");
    struct mg_db_pool *p;
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_db_pool_new(2, &p, &err), 0);
    struct mg_db *a, *b, *c;
    ASSERT_EQ_INT(mg_db_get(p, path, 0, &a, &err), 0);
    ASSERT_EQ_INT(mg_db_get(p, path, 0, &b, &err), 0);
    ASSERT(a != b);
    /* two out: a third waits, and gives up at its deadline */
    int64_t t0 = now_ms();
    ASSERT_EQ_INT(mg_db_get(p, path, now_ms() + 150, &c, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_TIMEOUT);
    ASSERT_GE_INT(now_ms() - t0, 140);
    ASSERT(c == NULL);
    /* one back: the next get has it, the very handle */
    struct mg_db *keep = b;
    mg_db_put(p, &b);
    ASSERT(b == NULL);
    ASSERT_EQ_INT(mg_db_get(p, path, now_ms() + 1000, &c, &err), 0);
    ASSERT(c == keep);
    ASSERT_EQ_STR(mark_of(c), "one");
    mg_db_put(p, &a);
    mg_db_put(p, &c);
    mg_db_pool_free(&p);
    ASSERT(p == NULL);
}

struct waiter {
    struct mg_db_pool *p;
    const char *path;
    int rc;
    struct mg_db *d;
};

static void *wait_for_one(void *arg)
{
    struct waiter *w = arg;
    struct mg_err err = {0};
    w->rc = mg_db_get(w->p, w->path, 0, &w->d, &err);
    return NULL;
}

TEST(db_pool_a_waiter_gets_the_handle_put_back)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/w.db", mg_t_tmpdir());
    make_db(path, "w");
    struct mg_db_pool *p;
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_db_pool_new(1, &p, &err), 0);
    struct mg_db *a;
    ASSERT_EQ_INT(mg_db_get(p, path, 0, &a, &err), 0);
    struct waiter w = {p, path, -2, NULL};
    pthread_t th;
    pthread_create(&th, NULL, wait_for_one, &w);
    usleep(100 * 1000);
    ASSERT_EQ_INT(w.rc, -2); /* still waiting */
    struct mg_db *was = a;
    mg_db_put(p, &a);
    pthread_join(th, NULL);
    ASSERT_EQ_INT(w.rc, 0);
    ASSERT(w.d == was);
    mg_db_put(p, &w.d);
    mg_db_pool_free(&p);
}

TEST(db_pool_sees_commits_and_a_replaced_file)
{
    char dir[4096], path[4096];
    snprintf(dir, sizeof(dir), "%s", mg_t_tmpdir());
    snprintf(path, sizeof(path), "%s/r.db", dir);
    make_db(path, "first");
    struct mg_db_pool *p;
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_db_pool_new(2, &p, &err), 0);
    struct mg_db *d;
    ASSERT_EQ_INT(mg_db_get(p, path, 0, &d, &err), 0);
    ASSERT_EQ_STR(mark_of(d), "first");
    /* a handle put back inside a read transaction holds a snapshot: it must
     * not be reused (it would serve the index as it was) */
    ASSERT_EQ_INT(sqlite3_exec(d->db, "BEGIN; SELECT count(*) FROM meta;", NULL, NULL, NULL), SQLITE_OK);
    ASSERT_EQ_STR(mark_of(d), "first");
    mg_db_put(p, &d);
    set_mark(path, "second");
    ASSERT_EQ_INT(mg_db_get(p, path, 0, &d, &err), 0);
    ASSERT_EQ_STR(mark_of(d), "second");
    mg_db_put(p, &d);

    /* a handle that ran a full-text query is kept (FTS5 leaves its own
     * statements prepared, reset, on the handle): the same connection comes
     * back, as a temporary table of its own shows */
    ASSERT_EQ_INT(mg_db_get(p, path, 0, &d, &err), 0);
    ASSERT_EQ_INT(sqlite3_exec(d->db, "CREATE TEMP TABLE mine(x); SELECT count(*) FROM chunks_fts WHERE chunks_fts "
                               "MATCH 'anything'", NULL, NULL, NULL), SQLITE_OK);
    ASSERT(sqlite3_next_stmt(d->db, NULL) != NULL);
    mg_db_put(p, &d);
    ASSERT_EQ_INT(mg_db_get(p, path, 0, &d, &err), 0);
    ASSERT_EQ_INT(sqlite3_exec(d->db, "SELECT * FROM temp.mine", NULL, NULL, NULL), SQLITE_OK);
    /* a statement stepped and not reset holds a snapshot: that handle goes */
    sqlite3_stmt *st;
    ASSERT_EQ_INT(sqlite3_prepare_v2(d->db, "SELECT value FROM meta", -1, &st, NULL), SQLITE_OK);
    ASSERT_EQ_INT(sqlite3_step(st), SQLITE_ROW);
    mg_db_put(p, &d);
    set_mark(path, "2b");
    ASSERT_EQ_INT(mg_db_get(p, path, 0, &d, &err), 0);
    ASSERT_EQ_STR(mark_of(d), "2b");
    ASSERT(sqlite3_exec(d->db, "SELECT * FROM temp.mine", NULL, NULL, NULL) != SQLITE_OK);
    mg_db_put(p, &d);
    sqlite3_finalize(st); /* (its handle closes with it) */

    /* an idle pooled handle sees the next commit */
    set_mark(path, "third");
    ASSERT_EQ_INT(mg_db_get(p, path, 0, &d, &err), 0);
    ASSERT_EQ_STR(mark_of(d), "third");
    mg_db_put(p, &d);

    /* the file replaced under the same path (a repo removed and indexed again) */
    char cmd[8300];
    snprintf(cmd, sizeof(cmd), "rm -f '%s' '%s-wal' '%s-shm'", path, path, path);
    ASSERT_EQ_INT(system(cmd), 0);
    make_db(path, "fresh");
    ASSERT_EQ_INT(mg_db_get(p, path, 0, &d, &err), 0);
    ASSERT_EQ_STR(mark_of(d), "fresh");
    /* dropped while out: closed when it comes back; the next get opens anew */
    mg_db_pool_drop(p, path);
    mg_db_put(p, &d);
    ASSERT_EQ_INT(mg_db_get(p, path, 0, &d, &err), 0);
    ASSERT_EQ_STR(mark_of(d), "fresh");
    mg_db_put(p, &d);

    /* a path that does not exist: the open's error, nothing kept */
    char gone[4200];
    snprintf(gone, sizeof(gone), "%s/nope.db", dir);
    ASSERT_EQ_INT(mg_db_get(p, gone, 0, &d, &err), -1);
    ASSERT(err.code != NULL);
    mg_db_pool_free(&p);
}

/* POSIX record locks belong to the process, and closing any descriptor of a
 * file drops all of them. Opening an index for writing must not open and close
 * the file itself while the process has readers of it: their locks would be
 * gone, and another process's last connection would take the exclusive lock,
 * checkpoint and delete the WAL that this process still writes to (seen as
 * "disk I/O error (sqlite 522)" and "database disk image is malformed" while a
 * watcher re-indexed and `sqlite3` read the index beside it). */
TEST(db_open_for_writing_keeps_the_locks_of_the_readers_of_the_file)
{
    char path[4096], wal[4200];
    snprintf(path, sizeof(path), "%s/locks.db", mg_t_tmpdir());
    snprintf(wal, sizeof(wal), "%s-wal", path);
    make_db(path, "one");
    struct mg_db *r, *w;
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_db_open(path, MG_DB_READONLY, &r, &err), 0);
    ASSERT_EQ_STR(mark_of(r), "one");
    /* a writer opened as the indexer opens one (created when missing) */
    ASSERT_EQ_INT(mg_db_open(path, MG_DB_CREATE, &w, &err), 0);
    ASSERT_EQ_INT(mg_db_meta_set(w, "mark", "two", &err), 0);
    struct stat before;
    ASSERT_EQ_INT(stat(wal, &before), 0);

    /* another process (a fresh one: a forked child would share this one's lock
     * bookkeeping) reads the index and closes: it must not think itself the last */
    pid_t pid = fork();
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0) dup2(devnull, 1);
        execlp("sqlite3", "sqlite3", path, "SELECT count(*) FROM meta", (char *)NULL);
        _exit(127);
    }
    int status = 0;
    ASSERT_EQ_INT(waitpid(pid, &status, 0), pid);
    ASSERT_EQ_INT(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0);

    struct stat after;
    ASSERT_EQ_INT(stat(wal, &after), 0); /* the WAL this process writes to is still the file's */
    ASSERT_EQ_INT((long long)after.st_ino, (long long)before.st_ino);
    ASSERT_EQ_INT(mg_db_meta_set(w, "mark", "three", &err), 0);
    struct mg_db *n;
    ASSERT_EQ_INT(mg_db_open(path, MG_DB_READONLY, &n, &err), 0);
    ASSERT_EQ_STR(mark_of(n), "three");
    ASSERT_EQ_STR(mark_of(r), "three");
    mg_db_close(&n);
    mg_db_close(&w);
    mg_db_close(&r);
}

static long long page_count(struct mg_db *d)
{
    sqlite3_stmt *st;
    long long n = -1;
    if (sqlite3_prepare_v2(d->db, "PRAGMA page_count", -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n;
}

/* A run's writer copies what it committed into the database file on another
 * handle while it merges (store/indexdb.h: mg_idx_checkpoint_passive): the
 * copy neither waits for the writer's open transaction nor takes any of it. */
TEST(a_passive_checkpoint_copies_what_is_committed_beside_a_writer)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/ckpt.db", mg_t_tmpdir());
    struct mg_db *w;
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_db_open(path, MG_DB_CREATE, &w, &err), 0);
    mg_idx_bulk(w); /* no checkpoint at commits, as in a run */
    char sql[200];
    ASSERT_EQ_INT(mg_db_begin(w, &err), 0);
    for (int i = 1; i <= 3000; i++) {
        snprintf(sql, sizeof(sql), "INSERT INTO symbols(id, file_id, name, kind, start_line, end_line) "
                 "VALUES(%d, 1, 'committed_name_%06d_with_some_length', 'function', 1, 2)", i, i);
        ASSERT_EQ_INT(mg_db_exec(w, sql, &err), 0);
    }
    ASSERT_EQ_INT(mg_db_commit(w, &err), 0);
    long long committed = page_count(w);
    struct stat sb;
    ASSERT_EQ_INT(stat(path, &sb), 0);
    ASSERT((long long)sb.st_size < committed * 4096); /* all in the WAL yet */
    /* the merge's transaction: open while the pages are copied */
    ASSERT_EQ_INT(mg_db_begin(w, &err), 0);
    for (int i = 3001; i <= 6000; i++) {
        snprintf(sql, sizeof(sql), "INSERT INTO symbols(id, file_id, name, kind, start_line, end_line) "
                 "VALUES(%d, 1, 'pending_name_%06d_with_some_length', 'function', 1, 2)", i, i);
        ASSERT_EQ_INT(mg_db_exec(w, sql, &err), 0);
    }
    int64_t t0 = now_ms();
    mg_idx_checkpoint_passive(path);
    ASSERT(now_ms() - t0 < 5000); /* it did not wait for the writer (the busy timeout is 10 s) */
    ASSERT_EQ_INT(stat(path, &sb), 0);
    ASSERT_EQ_INT((long long)sb.st_size, committed * 4096); /* the committed pages, none of the open ones */
    ASSERT_EQ_INT(mg_db_commit(w, &err), 0);
    mg_idx_checkpoint(w);
    ASSERT_EQ_INT(stat(path, &sb), 0);
    ASSERT_EQ_INT((long long)sb.st_size, page_count(w) * 4096);
    ASSERT((long long)sb.st_size > committed * 4096);
    mg_db_close(&w);
}
