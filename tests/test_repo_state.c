/* test_repo_state.c — a repo's settings and run state in its meta table
 * (store/settings.h, store/repostate.h), and the config key `watch`. */
#include "test.h"

#include <sqlite3.h>

#include <pthread.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "index/indexer.h"
#include "index/watch.h"
#include "store/catalog.h"
#include "store/db.h"
#include "store/indexdb.h"
#include "store/repostate.h"
#include "store/settings.h"
#include "store/trigram.h"
#include "util/clock.h"
#include "util/config.h"

static struct mg_db *new_db(char *path, size_t cap)
{
    snprintf(path, cap, "%s/r.db", mg_t_tmpdir());
    struct mg_db *d;
    struct mg_err err = {0};
    if (mg_db_open(path, MG_DB_CREATE, &d, &err) != 0) FAIL("create %s: %s", path, err.msg);
    return d;
}

static void meta(struct mg_db *d, const char *key, const char *value)
{
    struct mg_err err = {0};
    if (mg_db_meta_set(d, key, value, &err) != 0) FAIL("meta %s: %s", key, err.msg);
}

static void meta_int(struct mg_db *d, const char *key, long long v)
{
    char b[32];
    snprintf(b, sizeof(b), "%lld", v);
    meta(d, key, b);
}

static struct mg_repo_state state_of(struct mg_db *d, const char *path)
{
    struct mg_repo_state st;
    struct mg_err err = {0};
    if (mg_repo_state_read(d, path, (int64_t)time(NULL), &st, &err) != 0) FAIL("state: %s", err.msg);
    return st;
}

/* The id of a process that has exited and been reaped. */
static pid_t dead_pid(void)
{
    pid_t p = fork();
    if (p == 0) _exit(0);
    waitpid(p, NULL, 0);
    return p;
}

TEST(config_watch_key)
{
    struct mg_config c;
    struct mg_err err = {0};
    mg_t_config_defaults(&c);
    ASSERT_EQ_STR(c.watch, "on");
    const char *off = "watch = off\n";
    ASSERT_EQ_INT(mg_config_parse(&c, off, strlen(off), "cfg", &err), 0);
    ASSERT_EQ_STR(c.watch, "off");
    const char *bad = "watch = sometimes\n";
    ASSERT_EQ_INT(mg_config_parse(&c, bad, strlen(bad), "cfg", &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_CONFIG);
    ASSERT_CONTAINS(err.msg, "on, off");
}

TEST(settings_check_values_and_sentences)
{
    unsetenv("MEMGATE_TEST_MIN_REINDEX_INTERVAL");
    struct mg_err err = {0};
    char out[32];
    static const struct {
        const char *name, *value, *stored; /* stored NULL: refused */
    } cases[] = {
        {"watch", "on", "on"},         {"watch", "off", "off"},          {"watch", "default", ""},
        {"watch", "yes", NULL},        {"watch", "", NULL},              {"reindex_interval", "0", "0"},
        {"reindex_interval", "60", "60"}, {"reindex_interval", "3600", "3600"}, {"reindex_interval", "59", NULL},
        {"reindex_interval", "-60", NULL}, {"reindex_interval", "1h", NULL}, {"reindex_interval", "99999999999", NULL},
        {"reindex_interval", "default", ""}, {"pull_on_push", "on", "on"}, {"pull_on_push", "off", "off"},
        {"pull_on_push", "true", NULL}, {"pull_on_push", "default", ""}, {"colour", "red", NULL},
        {"colour", "default", NULL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct mg_setting_change c = {cases[i].name, cases[i].value};
        err.code = NULL;
        int rc = mg_setting_check(&c, out, sizeof(out), &err);
        if (cases[i].stored) {
            if (rc != 0) FAIL("%s=%s refused: %s", cases[i].name, cases[i].value, err.msg);
            ASSERT_EQ_STR(out, cases[i].stored);
            continue;
        }
        if (rc == 0) FAIL("%s=%s accepted", cases[i].name, cases[i].value);
        ASSERT_EQ_STR(err.code, MG_E_BAD_ARG);
        /* the sentence says what is allowed */
        if (strcmp(cases[i].name, "colour") == 0) {
            ASSERT_CONTAINS(err.msg, "'colour'");
            ASSERT_CONTAINS(err.msg, "watch (on, off, default)");
            ASSERT_CONTAINS(err.msg, "reindex_interval");
            ASSERT_CONTAINS(err.msg, "pull_on_push");
        } else if (strcmp(cases[i].name, "reindex_interval") == 0) {
            ASSERT_CONTAINS(err.msg, "0 for none or 60 to");
        } else {
            ASSERT_CONTAINS(err.msg, "use on, off or default");
        }
    }
    /* the test seam lowers the minimum, and only below 60 */
    setenv("MEMGATE_TEST_MIN_REINDEX_INTERVAL", "2", 1);
    ASSERT_EQ_INT(mg_settings_min_interval(), 2);
    struct mg_setting_change two = {"reindex_interval", "2"};
    ASSERT_EQ_INT(mg_setting_check(&two, out, sizeof(out), &err), 0);
    setenv("MEMGATE_TEST_MIN_REINDEX_INTERVAL", "600", 1);
    ASSERT_EQ_INT(mg_settings_min_interval(), 60);
}

TEST(settings_write_read_all_or_none)
{
    char path[4200];
    struct mg_db *d = new_db(path, sizeof(path));
    struct mg_err err = {0};
    struct mg_repo_settings s;
    ASSERT_EQ_INT(mg_settings_read(d, &s, &err), 0);
    ASSERT_EQ_STR(s.watch, "default");
    ASSERT_EQ_INT(s.reindex_interval, 0);
    ASSERT(!s.pull_on_push);
    struct mg_config cfg;
    mg_t_config_defaults(&cfg);
    ASSERT(mg_settings_watch_on(&s, &cfg));
    snprintf(cfg.watch, sizeof(cfg.watch), "off");
    ASSERT(!mg_settings_watch_on(&s, &cfg));

    struct mg_setting_change v[] = {{"watch", "on"}, {"reindex_interval", "3600"}, {"pull_on_push", "on"}};
    ASSERT_EQ_INT(mg_settings_write(d, v, 3, &err), 0);
    ASSERT_EQ_INT(mg_settings_read(d, &s, &err), 0);
    ASSERT_EQ_STR(s.watch, "on");
    ASSERT_EQ_INT(s.reindex_interval, 3600);
    ASSERT(s.pull_on_push);
    ASSERT(mg_settings_watch_on(&s, &cfg)); /* the repo's own wins over the config */
    char raw[32];
    ASSERT_EQ_INT(mg_db_meta_get(d, "setting.reindex_interval", raw, sizeof(raw)), 0);
    ASSERT_EQ_STR(raw, "3600");

    /* one bad change: nothing is written */
    struct mg_setting_change bad[] = {{"watch", "off"}, {"reindex_interval", "5"}};
    ASSERT_EQ_INT(mg_settings_write(d, bad, 2, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_BAD_ARG);
    ASSERT_EQ_INT(mg_settings_read(d, &s, &err), 0);
    ASSERT_EQ_STR(s.watch, "on");

    /* default removes the row */
    struct mg_setting_change dflt[] = {{"watch", "default"}, {"pull_on_push", "default"}};
    ASSERT_EQ_INT(mg_settings_write(d, dflt, 2, &err), 0);
    ASSERT_EQ_INT(mg_db_meta_get(d, "setting.watch", raw, sizeof(raw)), -1);
    ASSERT_EQ_INT(mg_db_meta_get(d, "setting.pull_on_push", raw, sizeof(raw)), -1);
    ASSERT_EQ_INT(mg_settings_read(d, &s, &err), 0);
    ASSERT_EQ_STR(s.watch, "default");
    ASSERT_EQ_INT(s.reindex_interval, 3600);

    /* a row edited by hand into nonsense reads as the default */
    meta(d, "setting.watch", "perhaps");
    meta(d, "setting.reindex_interval", "7");
    ASSERT_EQ_INT(mg_settings_read(d, &s, &err), 0);
    ASSERT_EQ_STR(s.watch, "default");
    ASSERT_EQ_INT(s.reindex_interval, 0);
    mg_db_close(&d);
}

TEST(repo_state_unknown_is_unknown)
{
    char path[4200];
    struct mg_db *d = new_db(path, sizeof(path));
    struct mg_repo_state st = state_of(d, path);
    ASSERT_EQ_INT(st.vectors, -1);
    ASSERT_EQ_INT(st.full_at, -1);
    ASSERT_EQ_INT(st.full_ms, -1);
    ASSERT_EQ_INT(st.incr_at, -1);
    ASSERT_EQ_INT(st.incr_ms, -1);
    ASSERT_EQ_STR(st.watch_state, "off");
    ASSERT_EQ_INT(st.watch_count, 0);
    ASSERT_EQ_INT(st.pending, 0);
    ASSERT_EQ_INT(st.redactions, 0);
    ASSERT_EQ_STR(st.last_error, "");
    ASSERT_EQ_INT(st.last_error_at, -1);
    ASSERT(!st.busy);

    /* an index from before index.full_at: indexed_at is that moment; its duration stays unknown */
    meta_int(d, "indexed_at", 1700000000);
    /* keyword-only: no vectors, known */
    meta(d, "embed_sig", "none");
    meta(d, "index.last_error", "");
    meta_int(d, "index.last_error_at", 1600000000);
    st = state_of(d, path);
    ASSERT_EQ_INT(st.full_at, 1700000000);
    ASSERT_EQ_INT(st.full_ms, -1);
    ASSERT_EQ_INT(st.vectors, 0);
    ASSERT_EQ_INT(st.last_error_at, -1); /* an old time without an error is no error */

    meta_int(d, "index.full_at", 1700000100);
    meta_int(d, "index.full_ms", 2500);
    meta_int(d, "index.incr_at", 1700000200);
    meta_int(d, "index.incr_ms", 40);
    meta_int(d, "index.redactions", 7);
    meta_int(d, "vectors", 123);
    meta(d, "index.last_error", "io_error: cannot open '/x'");
    meta_int(d, "index.last_error_at", 1700000300);
    st = state_of(d, path);
    ASSERT_EQ_INT(st.full_at, 1700000100);
    ASSERT_EQ_INT(st.full_ms, 2500);
    ASSERT_EQ_INT(st.incr_at, 1700000200);
    ASSERT_EQ_INT(st.incr_ms, 40);
    ASSERT_EQ_INT(st.redactions, 7);
    ASSERT_EQ_INT(st.vectors, 123);
    ASSERT_EQ_STR(st.last_error, "io_error: cannot open '/x'");
    ASSERT_EQ_INT(st.last_error_at, 1700000300);
    mg_db_close(&d);
}

TEST(repo_state_watcher_rows_and_a_dead_watcher)
{
    char path[4200];
    struct mg_db *d = new_db(path, sizeof(path));
    long long now = (long long)time(NULL);
    meta(d, "watch.state", "watching");
    meta_int(d, "watch.count", 12);
    meta_int(d, "watch.pending", 3);
    meta_int(d, "watch.pid", getpid());
    meta_int(d, "watch.updated_at", now - 10);
    struct mg_repo_state st = state_of(d, path);
    ASSERT_EQ_STR(st.watch_state, "watching");
    ASSERT_EQ_INT(st.watch_count, 12);
    ASSERT_EQ_INT(st.pending, 3);

    /* stale, but its process lives: still the watcher's word */
    meta_int(d, "watch.updated_at", now - 600);
    st = state_of(d, path);
    ASSERT_EQ_STR(st.watch_state, "watching");

    /* fresh, process gone: it wrote within the last two minutes; trusted until it goes stale */
    pid_t gone = dead_pid();
    meta_int(d, "watch.pid", gone);
    meta_int(d, "watch.updated_at", now - 5);
    meta(d, "watch.state", "polling");
    st = state_of(d, path);
    ASSERT_EQ_STR(st.watch_state, "polling");

    /* stale and its process gone: off, nothing watched, its queue unknown */
    meta_int(d, "watch.updated_at", now - MG_WATCH_STALE_S - 30);
    st = state_of(d, path);
    ASSERT_EQ_STR(st.watch_state, "off");
    ASSERT_EQ_INT(st.watch_count, 0);
    ASSERT_EQ_INT(st.pending, -1);

    /* stale without a pid: off too */
    sqlite3_exec(d->db, "DELETE FROM meta WHERE key = 'watch.pid'", NULL, NULL, NULL);
    st = state_of(d, path);
    ASSERT_EQ_STR(st.watch_state, "off");

    /* a state the watcher does not write reads as off */
    meta(d, "watch.state", "dreaming");
    meta_int(d, "watch.updated_at", now);
    st = state_of(d, path);
    ASSERT_EQ_STR(st.watch_state, "off");
    ASSERT_EQ_INT(st.watch_count, 0);
    mg_db_close(&d);
}

TEST(repo_state_busy_while_the_lock_is_held)
{
    char path[4200], lock[4300];
    struct mg_db *d = new_db(path, sizeof(path));
    ASSERT(!mg_repo_busy(path)); /* no lock file yet */
    snprintf(lock, sizeof(lock), "%s.lock", path);
    int fd = open(lock, O_RDWR | O_CREAT, 0600);
    ASSERT(fd >= 0);
    ASSERT(!mg_repo_busy(path));
    ASSERT_EQ_INT(flock(fd, LOCK_EX | LOCK_NB), 0); /* what an index run takes */
    /* another process holds it (flock is per open file: a child of ours sees it as another's) */
    ASSERT(mg_repo_busy(path));
    ASSERT(state_of(d, path).busy);
    /* the probe did not keep the lock from its holder */
    ASSERT_EQ_INT(flock(fd, LOCK_UN), 0);
    ASSERT(!mg_repo_busy(path));
    ASSERT_EQ_INT(flock(fd, LOCK_EX | LOCK_NB), 0);
    close(fd);
    ASSERT(!state_of(d, path).busy);
    mg_db_close(&d);
}

TEST(catalog_keeps_a_repo_whose_index_cannot_be_read_for_a_moment)
{
    char path[4096];
    struct mg_db *d = new_db(path, sizeof(path));
    meta(d, "id", "moment");
    meta(d, "root", "/src/moment");
    mg_db_close(&d);
    struct mg_repo r;
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_catalog_read_local(path, &r, &err), 0);
    ASSERT_EQ_STR(r.id, "moment");
    /* the same file (inode) unreadable for a moment, as during a run's checkpoint: its header overwritten */
    int fd = open(path, O_RDWR);
    ASSERT(fd >= 0);
    char head[16];
    ASSERT_EQ_INT((int)pread(fd, head, sizeof(head), 0), 16);
    ASSERT_EQ_INT((int)pwrite(fd, "not an index....", 16, 0), 16);
    struct mg_repo again = {0};
    ASSERT_EQ_INT(mg_catalog_read_local(path, &again, &err), 0); /* the repo does not vanish */
    ASSERT_EQ_STR(again.id, "moment");
    ASSERT_EQ_STR(again.root, "/src/moment");
    ASSERT(!err.code);
    /* another file that cannot be read, never read before: an error that names the failure, not the
     * advice for an index without an id */
    char other[4200];
    snprintf(other, sizeof(other), "%s.copy", path);
    char cmd[8600];
    snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", path, other);
    ASSERT_EQ_INT(system(cmd), 0);
    ASSERT_EQ_INT(mg_catalog_read_local(other, &again, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_DB);
    ASSERT(!strstr(err.msg, "has no repo id"));
    ASSERT_EQ_INT((int)pwrite(fd, head, sizeof(head), 0), 16);
    close(fd);
    /* an index without an id says what to do */
    char bare[4096];
    struct mg_db *b = new_db(bare, sizeof(bare));
    mg_db_close(&b);
    err = (struct mg_err){0};
    ASSERT_EQ_INT(mg_catalog_read_local(bare, &again, &err), -1);
    ASSERT_CONTAINS(err.msg, "has no repo id");
}

/* the watcher's runs, told by its hook */
struct runs {
    pthread_mutex_t mu;
    int n;
};

static void ran(void *arg, const char *tenant, const char *repo, long long files, long long changed)
{
    (void)tenant, (void)repo, (void)files, (void)changed;
    struct runs *r = arg;
    pthread_mutex_lock(&r->mu);
    r->n++;
    pthread_mutex_unlock(&r->mu);
}

/* Wait up to s seconds for a run after the n-th; false when none came. */
static bool run_after(struct runs *r, int n, double s)
{
    double until = mg_clock_s() + s;
    pthread_mutex_lock(&r->mu);
    while (r->n <= n && mg_clock_s() < until) {
        pthread_mutex_unlock(&r->mu);
        usleep(2000);
        pthread_mutex_lock(&r->mu);
    }
    bool got = r->n > n;
    pthread_mutex_unlock(&r->mu);
    return got;
}

/* How many runs the hook has seen. */
static int runs_seen(struct runs *r)
{
    pthread_mutex_lock(&r->mu);
    int n = r->n;
    pthread_mutex_unlock(&r->mu);
    return n;
}

/* A repo of one file, a.c, indexed as `name` in home, and a watcher (in this
 * process, its runs told to r) past its first run: what changed while nobody
 * watched. NULL (and the test failed) when that went wrong. */
static struct mg_watcher *watch_indexed(const char *home, const char *repo, const char *name, struct runs *r)
{
    mg_t_write_str(repo, "a.c", "int a(void) { return 1; }\n");
    struct mg_t_out o = MG_RUN(NULL, home, "index", repo, "--name", name);
    int status = o.status;
    mg_t_out_free(&o);
    if (status != 0) FAIL("memgate index exited %d", status);
    struct mg_config c;
    mg_t_config_defaults(&c);
    snprintf(c.home, sizeof(c.home), "%s", home);
    struct mg_watch_hook hook = {.ran = ran, .arg = r};
    struct mg_watcher *w = NULL;
    struct mg_err err = {0};
    if (mg_watcher_start(&c, &hook, &w, &err) != 0) FAIL("the watcher did not start: %s", err.msg);
    if (!run_after(r, 0, 30)) FAIL("the watcher's first run did not come");
    return w;
}

/* A save is a few events within milliseconds: its batch runs once the repo
 * has been quiet for WATCH_QUIET_EDIT_MS, not the WATCH_QUIET_MS a stream
 * of changes waits (a fixed WATCH_QUIET_MS makes every edit wait at least
 * that long, so the fastest of five would not be under it). */
TEST(watcher_runs_an_edit_without_waiting_as_for_a_stream)
{
    const char *home = mg_t_tmpdir();
    char repo[4200];
    snprintf(repo, sizeof(repo), "%s/src", mg_t_tmpdir());
    struct runs r = {.mu = PTHREAD_MUTEX_INITIALIZER};
    struct mg_watcher *w = watch_indexed(home, repo, "quick", &r);
    double best = 1e9;
    for (int i = 0; i < 5; i++) {
        int n = runs_seen(&r);
        char line[64];
        snprintf(line, sizeof(line), "int e%d(void) { return %d; }\n", i, i);
        char *old = mg_t_read(repo, "a.c");
        ASSERT(old);
        size_t ol = strlen(old);
        char *all = malloc(ol + strlen(line) + 1);
        memcpy(all, old, ol);
        strcpy(all + ol, line);
        double t0 = mg_clock_s();
        mg_t_write_str(repo, "a.c", all);
        ASSERT(run_after(&r, n, 30));
        double took = mg_clock_s() - t0;
        if (took < best) best = took;
        free(old);
        free(all);
    }
    mg_watcher_stop(w);
    if (best * 1000 >= WATCH_QUIET_MS) FAIL("the fastest of five edits ran after %.0f ms", best * 1000);
}

static int64_t db_count(const char *dbpath, const char *sql)
{
    struct mg_db *d = NULL;
    struct mg_err err = {0};
    if (mg_db_open(dbpath, MG_DB_READONLY, &d, &err) != 0) return -1;
    sqlite3_stmt *st;
    int64_t n = -1;
    if (sqlite3_prepare_v2(d->db, sql, -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW) n = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    mg_db_close(&d);
    return n;
}

/* Each edit's run writes a small trigram segment (tri_recent); merging them
 * rewrites all of tri_recent (0.3 s on a big repo), so no run an edit waits
 * for does it below MG_TRI_RECENT_SEGS_BACKSTOP: the watcher does it once the
 * repo has been quiet WATCH_TIDY_IDLE_MS, in its own transaction. Without
 * that, the segments of these edits stay; with the merge in the runs, they
 * would never pile up past MG_TRI_RECENT_SEGS_IDLE. */
TEST(watcher_merges_trigram_segments_when_quiet_not_in_an_edit)
{
    const char *home = mg_t_tmpdir();
    char repo[4200], db[4200];
    snprintf(repo, sizeof(repo), "%s/src", mg_t_tmpdir());
    snprintf(db, sizeof(db), "%s/repos/tidy.db", home);
    struct runs r = {.mu = PTHREAD_MUTEX_INITIALIZER};
    struct mg_watcher *w = watch_indexed(home, repo, "tidy", &r);
    int edits = MG_TRI_RECENT_SEGS_IDLE + 2;
    double last = 0, gap = 0; /* the longest quiet between a run and the next edit */
    for (int i = 0; i < edits; i++) {
        int n = runs_seen(&r);
        char file[32], text[64];
        snprintf(file, sizeof(file), "e%d.c", i);
        snprintf(text, sizeof(text), "int edit_%d_mark(void) { return %d; }\n", i, i);
        if (last && mg_clock_s() - last > gap) gap = mg_clock_s() - last;
        mg_t_write_str(repo, file, text);
        ASSERT(run_after(&r, n, 30));
        last = mg_clock_s();
    }
    int64_t piled = db_count(db, "SELECT count(DISTINCT seg) FROM tri_recent");
    double after = mg_clock_s() - last;
    /* no run merged them: read before the watcher was quiet long enough (a
     * machine that stalled half of that between two edits proves nothing) */
    if (after * 1000 < WATCH_TIDY_IDLE_MS && gap * 2000 < WATCH_TIDY_IDLE_MS) ASSERT(piled > edits);
    double until = mg_clock_s() + WATCH_TIDY_IDLE_MS / 1000.0 + 10;
    int64_t segs = piled;
    while ((segs = db_count(db, "SELECT count(DISTINCT seg) FROM tri_recent")) != 1 && mg_clock_s() < until)
        usleep(20000);
    mg_watcher_stop(w);
    if (segs != 1) FAIL("tri_recent has %lld segments %.0f s after the last edit", (long long)segs,
                        mg_clock_s() - last);
    ASSERT_EQ_INT(db_count(db, "SELECT value FROM meta WHERE key='tri_recent_segs'"), 1);
    /* every edit still found through the merged postings */
    for (int i = 0; i < edits; i++) {
        char pat[64];
        snprintf(pat, sizeof(pat), "edit_%d_mar[k]", i);
        struct mg_t_out o = MG_RUN(NULL, home, "search", pat, "--mode", "regex", "--repo", "tidy", "--json");
        ASSERT_EQ_INT(o.status, 0);
        char want[32];
        snprintf(want, sizeof(want), "e%d.c", i);
        ASSERT_CONTAINS(o.out, want);
        mg_t_out_free(&o);
    }
}

/* Small runs leave the word index a segment each, and FTS5's own merging
 * falls behind at scale (42 segments after 1,600 edits of Linux: every query
 * word read from each, lexical search twice as slow). A watcher's runs leave
 * them for mg_index_tidy, when the repo is quiet; any other run folds them as
 * it ends. Here FTS5's automerge is off, as if it had fallen behind. */
static void edit_words(const char *repo, int i, const char *word)
{
    char file[32], text[96];
    snprintf(file, sizeof(file), "f%d.c", i);
    snprintf(text, sizeof(text), "int %s_%d_word(void) { return %d; }\n", word, i, i);
    mg_t_write_str(repo, file, text);
}

/* every file's newest word is found, and its old one is not */
static void words_answer(const char *home, int nfiles, const char *now, const char *old)
{
    for (int i = 0; i < nfiles; i++) {
        char q[48], want[16];
        snprintf(want, sizeof(want), "f%d.c", i);
        snprintf(q, sizeof(q), "%s_%d_word", now, i);
        struct mg_t_out o = MG_RUN(NULL, home, "search", q, "--mode", "lexical", "--repo", "words", "--json");
        ASSERT_EQ_INT(o.status, 0);
        ASSERT_CONTAINS(o.out, want);
        mg_t_out_free(&o);
        snprintf(q, sizeof(q), "%s_%d_word", old, i);
        o = MG_RUN(NULL, home, "search", q, "--mode", "lexical", "--repo", "words", "--json");
        ASSERT_EQ_INT(o.status, 0);
        if (strstr(o.out, want)) FAIL("%s still finds %s's old text", q, want);
        mg_t_out_free(&o);
    }
}

TEST(small_runs_fold_the_word_segments_they_leave)
{
    const char *home = mg_t_tmpdir(), *segs = "SELECT count(DISTINCT segid) FROM chunks_fts_idx";
    char repo[4200], db[4200];
    snprintf(repo, sizeof(repo), "%s/src", mg_t_tmpdir());
    snprintf(db, sizeof(db), "%s/repos/words.db", home);
    int nfiles = 12;
    for (int i = 0; i < nfiles; i++) edit_words(repo, i, "first");
    struct mg_t_out o = MG_RUN(NULL, home, "index", repo, "--name", "words");
    ASSERT_EQ_INT(o.status, 0);
    mg_t_out_free(&o);
    struct mg_db *d = NULL;
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_db_open(db, 0, &d, &err), 0);
    ASSERT_EQ_INT(mg_db_exec(d, "INSERT INTO chunks_fts(chunks_fts, rank) VALUES('automerge', 0)", &err), 0);
    mg_db_close(&d);

    /* a run each, as `memgate index` after every change: each folds what it left */
    for (int i = 0; i < nfiles; i++) {
        edit_words(repo, i, "second");
        o = MG_RUN(NULL, home, "index", repo, "--name", "words");
        ASSERT_EQ_INT(o.status, 0);
        mg_t_out_free(&o);
    }
    int64_t n = db_count(db, segs);
    if (n > 3) FAIL("%lld segments of the word index after %d runs", (long long)n, nfiles);
    words_answer(home, nfiles, "second", "first");

    /* a watcher's runs (their paths only) leave theirs; mg_index_tidy folds them */
    struct mg_config c;
    mg_t_config_defaults(&c);
    snprintf(c.home, sizeof(c.home), "%s", home);
    char root[4200];
    ASSERT(realpath(repo, root) != NULL);
    for (int i = 0; i < nfiles; i++) {
        edit_words(repo, i, "third");
        char file[32];
        snprintf(file, sizeof(file), "f%d.c", i);
        const char *paths[] = {file};
        struct mg_index_opts io = {.path = root, .stored_root = root, .tenant = "local", .paths = paths, .npaths = 1,
                                   .lock_wait_ms = -1};
        struct mg_index_stats st;
        ASSERT_EQ_INT(mg_index_run(&c, &io, &st, &err), 0);
        ASSERT_EQ_INT(st.changed, 1);
    }
    int64_t before = db_count(db, segs);
    ASSERT(before >= nfiles);
    bool more = true;
    for (int k = 0; more && k < 100; k++) ASSERT_EQ_INT(mg_index_tidy(db, &more, &err), 0);
    ASSERT(!more);
    int64_t after = db_count(db, segs);
    if (after > 3) FAIL("%lld segments of the word index after tidying (%lld before)", (long long)after,
                        (long long)before);
    words_answer(home, nfiles, "third", "second");
    /* with nothing to merge: no more, and nothing changed */
    ASSERT_EQ_INT(mg_index_tidy(db, &more, &err), 0);
    ASSERT(!more);
    ASSERT_EQ_INT(db_count(db, segs), after);
}

/* FTS5's automerge, crisismerge and hashsize as the index's config holds
 * them: "4 16 67108864". */
static void merge_config(const char *db, char out[48])
{
    int64_t a = db_count(db, "SELECT v FROM chunks_fts_config WHERE k = 'automerge'"),
            c = db_count(db, "SELECT v FROM chunks_fts_config WHERE k = 'crisismerge'"),
            h = db_count(db, "SELECT v FROM chunks_fts_config WHERE k = 'hashsize'");
    snprintf(out, 48, "%lld %lld %lld", (long long)a, (long long)c, (long long)h);
}

/* `memgate index` of repo as "bulk", then the config it left (merge_config). */
static void index_bulk(const char *home, const char *repo, const char *db, char cfg[48])
{
    struct mg_t_out o = MG_RUN(NULL, home, "index", repo, "--name", "bulk");
    ASSERT_EQ_INT(o.status, 0);
    mg_t_out_free(&o);
    merge_config(db, cfg);
}

/* A first run turns FTS5's own merging off (it ends with one merge of all,
 * mg_idx_words_bulk) and on again before it ends; a first run that died with
 * it off (meta fts.bulk) has it set back by the next run; an index whose
 * automerge is off for another reason keeps it so. */
TEST(a_first_run_leaves_fts5_merging_as_it_found_it)
{
    const char *home = mg_t_tmpdir();
    char repo[4200], db[4200], cfg[48];
    snprintf(repo, sizeof(repo), "%s/src", mg_t_tmpdir());
    snprintf(db, sizeof(db), "%s/repos/bulk.db", home);
    for (int i = 0; i < 4; i++) edit_words(repo, i, "first");
    index_bulk(home, repo, db, cfg);
    ASSERT_EQ_STR(cfg, "4 16 67108864");
    ASSERT_EQ_INT(db_count(db, "SELECT value FROM meta WHERE key = 'fts.bulk'"), 0);

    struct mg_db *d = NULL;
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_db_open(db, 0, &d, &err), 0);
    ASSERT_EQ_INT(mg_db_exec(d, "BEGIN", &err), 0);
    ASSERT_EQ_INT(mg_idx_words_bulk(d, true, &err), 0); /* as a first run does, then dies */
    ASSERT_EQ_INT(mg_db_exec(d, "COMMIT", &err), 0);
    mg_db_close(&d);
    merge_config(db, cfg);
    ASSERT_EQ_STR(cfg, "0 1000 16777216");
    edit_words(repo, 0, "second");
    index_bulk(home, repo, db, cfg);
    ASSERT_EQ_STR(cfg, "4 16 67108864");
    ASSERT_EQ_INT(db_count(db, "SELECT value FROM meta WHERE key = 'fts.bulk'"), 0);

    ASSERT_EQ_INT(mg_db_open(db, 0, &d, &err), 0);
    ASSERT_EQ_INT(mg_db_exec(d, "INSERT INTO chunks_fts(chunks_fts, rank) VALUES('automerge', 0)", &err), 0);
    mg_db_close(&d);
    edit_words(repo, 1, "second");
    index_bulk(home, repo, db, cfg);
    ASSERT_EQ_STR(cfg, "0 16 67108864");
}
