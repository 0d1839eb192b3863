/* test_cli_index.c — `memgate index` on fixture repos: what is indexed, what
 * is skipped and why, incremental runs, bad input, file modes. */
#include <fcntl.h>
#include <pty.h>
#include <dirent.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fixtures.h"
#include "security/sanitize.h"
#include "security/scan.h"

static json_t *index_json(const char *root, const char *home)
{
    return mg_fx_run_json(NULL, home, (const char *const[]){"index", root, "--json", NULL});
}

TEST(index_polyglot_counts_what_is_indexed_and_skipped)
{
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir();
    mg_fx_polyglot(repo);
    json_t *j = index_json(repo, home);
    ASSERT(json_is_true(json_object_get(j, "git")));
    ASSERT(json_is_true(json_object_get(j, "created")));
    /* 9 sources + README + .gitignore + latin1 + unicode md + png + nul (read,
     * then found binary) */
    ASSERT_EQ_INT(mg_fx_int(j, "files.added"), 13);
    ASSERT_EQ_INT(mg_fx_int(j, "skipped.binary"), 2);
    ASSERT_EQ_INT(mg_fx_int(j, "skipped.secret"), 4);
    ASSERT_EQ_INT(mg_fx_int(j, "skipped.too_large"), 1);
    ASSERT_EQ_INT(mg_fx_int(j, "skipped.symlink"), 2);
    ASSERT_EQ_INT(mg_fx_int(j, "repaired_utf8"), 1);
    ASSERT_EQ_INT(mg_fx_int(j, "total_files"), 13);
    json_decref(j);

    /* gitignored files are not indexed; the untracked file is */
    j = mg_fx_search(repo, home, "ignored_generated_symbol", "lexical", 10);
    ASSERT_EQ_INT(json_array_size(json_object_get(j, "results")), 0);
    json_decref(j);
    j = mg_fx_search(repo, home, "ignored_log_line", "lexical", 10);
    ASSERT_EQ_INT(json_array_size(json_object_get(j, "results")), 0);
    json_decref(j);
    j = mg_fx_search(repo, home, "rate_limit", "symbol", 10);
    ASSERT(mg_fx_has_hit(j, "py/bucket.py", "rate_limit"));
    json_decref(j);
    /* nothing behind the symlinks, nothing from secret files */
    static const char *absent[] = {"outside_root_symbol", "canary_env_7f3a", "canary_cred_91bc", "canary_key_22de",
                                   "canary_pem_0a0a", "before_nul", "huge_file_marker"};
    for (size_t i = 0; i < sizeof(absent) / sizeof(absent[0]); i++) {
        for (int m = 0; m < 2; m++) {
            j = mg_fx_search(repo, home, absent[i], m ? "regex" : "lexical", 10);
            if (json_array_size(json_object_get(j, "results")) != 0)
                FAIL("'%s' must not be in the index (%s mode)", absent[i], m ? "regex" : "lexical");
            json_decref(j);
        }
    }
    /* invalid UTF-8 was repaired, the rest of the file is searchable */
    j = mg_fx_search(repo, home, "latin1_marker_word", "lexical", 10);
    ASSERT(mg_fx_has_hit(j, "data/latin1.txt", NULL));
    json_t *h = json_array_get(json_object_get(j, "results"), 0);
    ASSERT_CONTAINS(json_string_value(json_object_get(h, "snippet")), "caf\xef\xbf\xbd latin1_marker_word");
    json_decref(j);
    /* unicode path, exactly */
    j = mg_fx_search(repo, home, "unicode_path_marker", "lexical", 10);
    ASSERT(mg_fx_has_hit(j, "docs/ünïcødé/файл.md", NULL));
    json_decref(j);
}

TEST(index_secret_files_are_never_opened)
{
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir();
    mg_fx_polyglot(repo);
    int in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    ASSERT(in >= 0);
    static const char *secrets[] = {".env", "config/credentials.json", "keys/id_rsa", "keys/server.pem"};
    for (size_t i = 0; i < sizeof(secrets) / sizeof(secrets[0]); i++) {
        char p[4200];
        snprintf(p, sizeof(p), "%s/%s", repo, secrets[i]);
        ASSERT(inotify_add_watch(in, p, IN_OPEN | IN_ACCESS) >= 0);
    }
    /* and a control: a normal file is opened, so the watch works */
    char ctl[4200];
    snprintf(ctl, sizeof(ctl), "%s/src/http.c", repo);
    int wctl = inotify_add_watch(in, ctl, IN_OPEN);
    ASSERT(wctl >= 0);
    json_decref(index_json(repo, home));
    char buf[65536];
    ssize_t n = read(in, buf, sizeof(buf));
    int opened_ctl = 0;
    for (char *p = buf; n > 0 && p < buf + n;) {
        struct inotify_event *ev = (struct inotify_event *)p;
        if (ev->wd == wctl) opened_ctl = 1;
        else FAIL("a secret file was opened (watch %d, mask 0x%x)", ev->wd, ev->mask);
        p += sizeof(*ev) + ev->len;
    }
    ASSERT(opened_ctl);
    close(in);
}

/* Whether a hit of res in path shows text in its snippet. */
static bool snippet_has(json_t *res, const char *path, const char *text)
{
    json_t *h;
    size_t i;
    json_array_foreach(json_object_get(res, "results"), i, h)
    {
        const char *p = json_string_value(json_object_get(h, "path"));
        const char *sn = json_string_value(json_object_get(h, "snippet"));
        if (p && strcmp(p, path) == 0 && sn && strstr(sn, text)) return true;
    }
    return false;
}

static char *chunk_ids(const char *home)
{
    /* every chunk id with its file, as one string */
    char cmd[8192];
    snprintf(cmd, sizeof(cmd), "%s/repos", home);
    char *out = NULL;
    sqlite3 *db;
    char path[4200];
    FILE *ls = popen((snprintf(cmd, sizeof(cmd), "ls %s/repos/*.db", home), cmd), "r");
    if (!ls || !fgets(path, sizeof(path), ls)) FAIL("no database in %s", home);
    pclose(ls);
    path[strcspn(path, "\n")] = 0;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) FAIL("open %s", path);
    sqlite3_stmt *st;
    sqlite3_prepare_v2(db, "SELECT group_concat(c.id || ':' || f.path, ',') FROM chunks c JOIN files f ON f.id = c.file_id", -1,
                       &st, NULL);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) out = strdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(db);
    return out ? out : strdup("");
}

TEST(index_incremental_touches_only_what_changed)
{
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir();
    mg_fx_polyglot(repo);
    json_t *first = index_json(repo, home);
    /* a first run writes the whole word index, and then merges it into one segment */
    ASSERT(json_real_value(json_object_get(first, "merge_seconds")) > 0);
    json_decref(first);
    char *before = chunk_ids(home);

    /* no change: nothing written, every chunk keeps its id, nothing to merge */
    json_t *j = index_json(repo, home);
    ASSERT(json_is_false(json_object_get(j, "created")));
    json_t *merge = json_object_get(j, "merge_seconds");
    ASSERT(json_is_real(merge) && json_real_value(merge) == 0);
    ASSERT_EQ_INT(mg_fx_int(j, "files.added"), 0);
    ASSERT_EQ_INT(mg_fx_int(j, "files.changed"), 0);
    ASSERT_EQ_INT(mg_fx_int(j, "files.removed"), 0);
    ASSERT_EQ_INT(mg_fx_int(j, "files.unchanged"), 13);
    json_decref(j);
    char *again = chunk_ids(home);
    ASSERT_EQ_STR(again, before);
    free(again);

    /* touching a file without changing it changes nothing either */
    mg_t_sh(repo, "touch src/http.c");
    j = index_json(repo, home);
    ASSERT_EQ_INT(mg_fx_int(j, "files.changed"), 0);
    json_decref(j);

    /* one file edited, one removed, one added */
    mg_t_write_str(repo, "src/http.c", "int parse_http_request(void) { return 7; }\n");
    mg_t_sh(repo, "rm web/router.go");
    mg_t_write_str(repo, "web/new_handler.go", "package web\n\nfunc HandleUpload() {}\n");
    j = index_json(repo, home);
    ASSERT_EQ_INT(mg_fx_int(j, "files.changed"), 1);
    ASSERT_EQ_INT(mg_fx_int(j, "files.removed"), 1);
    ASSERT_EQ_INT(mg_fx_int(j, "files.added"), 1);
    ASSERT_EQ_INT(mg_fx_int(j, "files.unchanged"), 11);
    json_decref(j);
    /* chunks of untouched files kept their ids */
    char *after = chunk_ids(home);
    ASSERT_CONTAINS(before, "ui/header.js");
    for (char *tok = strtok(before, ","); tok; tok = strtok(NULL, ",")) {
        if (strstr(tok, "src/http.c") || strstr(tok, "web/router.go")) {
            ASSERT_NOT_CONTAINS(after, tok);
            continue;
        }
        ASSERT_CONTAINS(after, tok);
    }
    free(after);
    free(before);
    /* the old text is gone from every index, the new text is found */
    /* (lexical search may still name src/http.c by the parts it shares, "parse" and "http":
     * what it shows of it is the new text) */
    j = mg_fx_search(repo, home, "parse_http_header", "lexical", 10);
    ASSERT(!snippet_has(j, "src/http.c", "parse_http_header"));
    json_decref(j);
    j = mg_fx_search(repo, home, "parse_http_header", "regex", 10);
    ASSERT(!mg_fx_has_hit(j, "src/http.c", NULL));
    json_decref(j);
    j = mg_fx_search(repo, home, "ServeHTTP", "symbol", 10);
    ASSERT_EQ_INT(json_array_size(json_object_get(j, "results")), 0);
    json_decref(j);
    j = mg_fx_search(repo, home, "parse_http_request", "symbol", 10);
    ASSERT(mg_fx_has_hit(j, "src/http.c", "parse_http_request"));
    json_decref(j);
    j = mg_fx_search(repo, home, "HandleUpload", "regex", 10);
    ASSERT(mg_fx_has_hit(j, "web/new_handler.go", "HandleUpload"));
    json_decref(j);
}

TEST(index_fts_stays_consistent_over_changes)
{
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir();
    mg_fx_polyglot(repo);
    for (int round = 0; round < 4; round++) {
        json_decref(index_json(repo, home));
        char f[64];
        snprintf(f, sizeof(f), "gen/f%d.c", round);
        mg_t_write_str(repo, f, "int generated(void) { return 1; }\n");
        mg_t_write_str(repo, "src/http.c", round % 2 ? "int a(void){return 1;}\n" : "int b(void){return 2;}\n");
    }
    json_decref(index_json(repo, home));
    char cmd[8192];
    snprintf(cmd, sizeof(cmd), "ls %s/repos/*.db", home);
    FILE *ls = popen(cmd, "r");
    char path[4200];
    ASSERT(fgets(path, sizeof(path), ls) != NULL);
    pclose(ls);
    path[strcspn(path, "\n")] = 0;
    sqlite3 *db;
    ASSERT_EQ_INT(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_stmt *st;
    ASSERT_EQ_INT(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL), SQLITE_OK);
    ASSERT_EQ_INT(sqlite3_step(st), SQLITE_ROW);
    ASSERT_EQ_STR((const char *)sqlite3_column_text(st, 0), "ok");
    sqlite3_finalize(st);
    /* each file's chunk range holds exactly its chunks */
    ASSERT_EQ_INT(sqlite3_prepare_v2(db, "SELECT count(*) FROM chunks c JOIN files f ON f.id = c.file_id "
                                         "WHERE c.id < f.chunk_lo OR c.id > f.chunk_hi", -1, &st, NULL), SQLITE_OK);
    ASSERT_EQ_INT(sqlite3_step(st), SQLITE_ROW);
    ASSERT_EQ_INT(sqlite3_column_int(st, 0), 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    /* FTS5 checks its own structure (through memgate, which has the tokenizer) */
    json_t *j = mg_fx_search(repo, home, "generated", "symbol", 10);
    ASSERT_EQ_INT(json_array_size(json_object_get(j, "results")), 4);
    json_decref(j);
}

TEST(index_bad_input_gives_clear_errors)
{
    char *home = mg_t_tmpdir(), *dir = mg_t_tmpdir();
    struct mg_t_out o = MG_RUN(NULL, home, "index", "/nonexistent/path/xyz");
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.err, "error[path_not_found]");
    ASSERT_CONTAINS(o.err, "/nonexistent/path/xyz");
    mg_t_out_free(&o);
    mg_t_write_str(dir, "file.txt", "x\n");
    char f[4200];
    snprintf(f, sizeof(f), "%s/file.txt", dir);
    o = MG_RUN(NULL, home, "index", f);
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.err, "error[not_a_directory]");
    mg_t_out_free(&o);
    o = MG_RUN(NULL, home, "index");
    ASSERT_EQ_INT(o.status, 2);
    ASSERT_CONTAINS(o.err, "error[usage]");
    mg_t_out_free(&o);
    o = MG_RUN(NULL, home, "index", dir, "--name", "Bad Name!");
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.err, "error[name_invalid]");
    mg_t_out_free(&o);
    o = MG_RUN(NULL, home, "index", dir, "--max-file-size", "lots");
    ASSERT_EQ_INT(o.status, 2);
    ASSERT_CONTAINS(o.err, "max_file_size");
    mg_t_out_free(&o);
    o = MG_RUN(NULL, home, "index", dir, "--bogus");
    ASSERT_EQ_INT(o.status, 2);
    ASSERT_CONTAINS(o.err, "--bogus");
    mg_t_out_free(&o);
}

TEST(index_empty_repo_and_files_stay_private)
{
    char *home = mg_t_tmpdir(), *empty = mg_t_tmpdir();
    json_t *j = index_json(empty, home);
    ASSERT_EQ_INT(mg_fx_int(j, "total_files"), 0);
    const char *id = json_string_value(json_object_get(j, "repo"));
    char db[4200];
    snprintf(db, sizeof(db), "%s/repos/%s.db", home, id);
    struct stat st;
    ASSERT_EQ_INT(stat(db, &st), 0);
    ASSERT_EQ_INT(st.st_mode & 0777, 0600);
    snprintf(db, sizeof(db), "%s/repos", home);
    ASSERT_EQ_INT(stat(db, &st), 0);
    ASSERT_EQ_INT(st.st_mode & 0777, 0700);
    json_decref(j);
    j = mg_fx_search(empty, home, "anything", "lexical", 5);
    ASSERT_EQ_INT(json_array_size(json_object_get(j, "results")), 0);
    json_decref(j);
    j = mg_fx_search(empty, home, "any.*thing", "regex", 5);
    ASSERT_EQ_INT(json_array_size(json_object_get(j, "results")), 0);
    json_decref(j);
}

TEST(index_huge_single_line_file_with_raised_cap)
{
    char *home = mg_t_tmpdir(), *repo = mg_t_tmpdir();
    size_t n = 10u << 20;
    char *b = malloc(n);
    for (size_t i = 0; i < n; i++) b[i] = "abcdefgh "[i % 9];
    memcpy(b + n / 2, " needle_in_the_middle ", 22); /* a word of its own */
    mg_t_write(repo, "one_line.txt", b, n);
    free(b);
    json_t *j = mg_fx_run_json(NULL, home, (const char *const[]){"index", repo, "--max-file-size", "16M", "--json", NULL});
    ASSERT_EQ_INT(mg_fx_int(j, "files.added"), 1);
    ASSERT_GE_INT(mg_fx_int(j, "chunks"), 800); /* cut at max_bytes, mid-line */
    json_decref(j);
    j = mg_fx_search(repo, home, "needle_in_the_middle", "lexical", 5);
    ASSERT(mg_fx_has_hit(j, "one_line.txt", NULL));
    json_t *h = json_array_get(json_object_get(j, "results"), 0);
    ASSERT_EQ_INT(json_integer_value(json_object_get(h, "start_line")), 1);
    json_decref(j);
    j = mg_fx_search(repo, home, "needle_in_the_mid+le", "regex", 5);
    ASSERT(mg_fx_has_hit(j, "one_line.txt", NULL));
    json_decref(j);
}

TEST(index_unreadable_file_is_skipped_and_counted)
{
    if (getuid() != 0 && access("/etc/shadow", R_OK) == 0) return; /* cannot make a file unreadable */
    char *home = mg_t_tmpdir(), *repo = mg_t_tmpdir();
    mg_t_write_str(repo, "ok.c", "int readable_symbol(void) { return 1; }\n");
    mg_t_write_str(repo, "locked.c", "int locked_symbol(void) { return 1; }\n");
    mg_t_sh(repo, "chmod 000 locked.c");
    if (getuid() == 0) {
        /* root reads anything: run memgate as nobody for this one */
        mg_t_sh(repo, "chmod 755 . && chmod 777 '%s'", home);
        setenv("MG_T_RUN_AS_NOBODY", "1", 1);
        /* and nobody's own config directory, for the audit key (kept out of the data directory) */
        char *cfg = mg_t_tmpdir();
        mg_t_sh(cfg, "chmod 777 .");
        setenv("XDG_CONFIG_HOME", cfg, 1);
    }
    json_t *j = mg_fx_run_json(NULL, home, (const char *const[]){"index", repo, "--json", NULL});
    ASSERT_EQ_INT(mg_fx_int(j, "files.added"), 1);
    ASSERT_EQ_INT(mg_fx_int(j, "skipped.unreadable"), 1);
    json_decref(j);
}

/* `memgate index` prepares the injection check on a thread while it indexes.
 * In a fresh data directory it compiles nothing: the built-in rule sets'
 * databases are compiled into the binary (src/rulesdb.c), so the cache stays
 * empty. Without them (MEMGATE_SHIPPED_RULES=off) the injection database
 * goes to the configured cache like the secret rules' (it was compiled
 * afresh on every run when the thread started before the cache directory
 * was known: 3 CPU-s, 15 s under the sanitizers). */
TEST(index_caches_the_injection_database_where_the_config_says)
{
    char *home = mg_t_tmpdir(), *repo = mg_t_tmpdir(), *cache = mg_t_tmpdir(), *mine = mg_t_tmpdir();
    mg_t_write_str(repo, "a.c", "int f(void) { return 1; }\n");
    setenv("MEMGATE_CACHE_DIR", cache, 1);
    struct mg_t_out o = MG_RUN(NULL, home, "index", repo, "--quiet");
    ASSERT_EQ_INT(o.status, 0);
    mg_t_out_free(&o);
    DIR *d = opendir(cache);
    ASSERT(d != NULL);
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.') FAIL("a fresh data directory compiled %s: the shipped databases were not used", e->d_name);
    closedir(d);
    setenv("MEMGATE_SHIPPED_RULES", "off", 1);
    o = MG_RUN(NULL, mg_t_tmpdir(), "index", repo, "--quiet");
    ASSERT_EQ_INT(o.status, 0);
    mg_t_out_free(&o);
    /* the injection database's file: what this process writes compiling it */
    mg_scanner_cache_dir(mine);
    mg_injection_prepare();
    d = opendir(mine);
    ASSERT(d != NULL);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (!strstr(e->d_name, ".hsimg") || strstr(e->d_name, ".rej")) continue;
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s", cache, e->d_name);
        if (access(path, F_OK) != 0) FAIL("memgate index did not cache the injection database %s in %s", e->d_name, cache);
        n++;
    }
    closedir(d);
    ASSERT_EQ_INT(n, 1);
}

TEST(index_name_and_id_rules)
{
    char *home = mg_t_tmpdir(), *a = mg_t_tmpdir(), *b = mg_t_tmpdir();
    mg_t_write_str(a, "a.c", "int in_a(void) { return 1; }\n");
    mg_t_write_str(b, "b.c", "int in_b(void) { return 1; }\n");
    json_t *j = mg_fx_run_json(NULL, home, (const char *const[]){"index", a, "--name", "alpha", "--json", NULL});
    ASSERT_EQ_STR(json_string_value(json_object_get(j, "repo")), "alpha");
    json_decref(j);
    /* the same root again without --name keeps its id */
    j = index_json(a, home);
    ASSERT_EQ_STR(json_string_value(json_object_get(j, "repo")), "alpha");
    json_decref(j);
    /* another name for the same root, or the same name for another root: refused */
    struct mg_t_out o = MG_RUN(NULL, home, "index", a, "--name", "beta");
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.err, "error[repo_exists]");
    mg_t_out_free(&o);
    o = MG_RUN(NULL, home, "index", b, "--name", "alpha");
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.err, "error[repo_exists]");
    mg_t_out_free(&o);
    /* a derived id: the base name and 6 hex digits of the root's hash */
    j = index_json(b, home);
    const char *id = json_string_value(json_object_get(j, "repo"));
    const char *base = strrchr(b, '/') + 1;
    ASSERT(strncmp(id, "mgtest", 6) == 0);
    ASSERT_EQ_INT(strlen(id), strlen(base) + 7);
    json_decref(j);
    /* the same root gives the same id in another data directory */
    char *home2 = mg_t_tmpdir();
    json_t *j1 = index_json(b, home), *j2 = index_json(b, home2);
    ASSERT_EQ_STR(json_string_value(json_object_get(j1, "repo")), json_string_value(json_object_get(j2, "repo")));
    json_decref(j1);
    json_decref(j2);
}

TEST(index_busy_when_another_run_holds_the_repo)
{
    char *home = mg_t_tmpdir(), *repo = mg_t_tmpdir();
    mg_t_write_str(repo, "a.c", "int x;\n");
    json_t *j = mg_fx_run_json(NULL, home, (const char *const[]){"index", repo, "--name", "busy", "--json", NULL});
    json_decref(j);
    char lock[4200];
    snprintf(lock, sizeof(lock), "%s/repos/busy.db.lock", home);
    int fd = open(lock, O_RDWR | O_CREAT, 0600);
    ASSERT(fd >= 0);
    ASSERT_EQ_INT(flock(fd, LOCK_EX), 0);
    struct mg_t_out o = MG_RUN(NULL, home, "index", repo);
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.err, "error[index_busy]");
    mg_t_out_free(&o);
    close(fd);
    o = MG_RUN(NULL, home, "index", repo);
    ASSERT_EQ_INT(o.status, 0);
    mg_t_out_free(&o);
}

TEST(index_progress_on_a_tty_only)
{
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir();
    mg_fx_polyglot(repo);
    /* not a terminal: stderr stays empty */
    struct mg_t_out o = MG_RUN(NULL, home, "index", repo);
    ASSERT_EQ_INT(o.status, 0);
    ASSERT_EQ_STR(o.err, "");
    mg_t_out_free(&o);
    /* a terminal: the progress line, ending with the totals */
    int master;
    pid_t pid = forkpty(&master, NULL, NULL, NULL);
    ASSERT(pid >= 0);
    if (pid == 0) {
        char *home2 = mg_t_tmpdir();
        setenv("MEMGATE_HOME", home2, 1);
        const char *bin = getenv("MEMGATE_BIN");
        execl(bin ? bin : "build/memgate", "memgate", "index", repo, (char *)NULL);
        _exit(127);
    }
    char buf[65536];
    size_t n = 0;
    for (;;) {
        ssize_t r = read(master, buf + n, sizeof(buf) - 1 - n);
        if (r <= 0) break;
        n += (size_t)r;
    }
    buf[n] = 0;
    int status;
    waitpid(pid, &status, 0);
    ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    ASSERT_CONTAINS(buf, "indexing mgtest");
    ASSERT_CONTAINS(buf, "15/15 files"); /* every candidate the walk found */
    ASSERT_CONTAINS(buf, "MB/s");
    ASSERT_CONTAINS(buf, "ETA");
    close(master);
}

TEST(index_plain_directory_default_ignores)
{
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir();
    mg_t_write_str(repo, "app.js", "function kept_symbol() {}\n");
    mg_t_write_str(repo, "node_modules/lib/index.js", "function dependency_symbol() {}\n");
    mg_t_write_str(repo, "sub/__pycache__/x.py", "def cached_symbol(): pass\n");
    mg_t_write_str(repo, ".git/config", "vcs_config_marker\n");
    mg_t_write_str(repo, ".venv/lib/site.py", "def venv_symbol(): pass\n");
    mg_t_write_str(repo, ".github/workflows/ci.yml", "name: ci_workflow_marker\n");
    json_t *j = mg_fx_run_json(NULL, home, (const char *const[]){"index", repo, "--json", NULL});
    ASSERT(json_is_false(json_object_get(j, "git")));
    ASSERT_EQ_INT(mg_fx_int(j, "total_files"), 2);
    json_decref(j);
    j = mg_fx_search(repo, home, "ci_workflow_marker", "lexical", 5);
    ASSERT(mg_fx_has_hit(j, ".github/workflows/ci.yml", NULL));
    json_decref(j);
    static const char *absent[] = {"dependency_symbol", "cached_symbol", "vcs_config_marker", "venv_symbol"};
    for (size_t i = 0; i < 4; i++) {
        j = mg_fx_search(repo, home, absent[i], "lexical", 5);
        if (json_array_size(json_object_get(j, "results"))) FAIL("'%s' is indexed", absent[i]);
        json_decref(j);
    }
}

TEST(index_subdirectory_of_a_git_work_tree)
{
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir();
    mg_t_write_str(repo, ".gitignore", "*.tmp\n");
    mg_t_write_str(repo, "top.c", "int top_level_symbol;\n");
    mg_t_write_str(repo, "lib/core.c", "int core_symbol(void) { return 1; }\n");
    mg_t_write_str(repo, "lib/scratch.tmp", "scratch_marker\n");
    mg_t_write_str(repo, "lib/new.c", "int untracked_symbol(void) { return 2; }\n");
    mg_t_sh(repo, "git init -q . && git add .gitignore top.c lib/core.c && "
                  "git -c user.email=t@t -c user.name=t commit -qm init");
    char sub[4200];
    snprintf(sub, sizeof(sub), "%s/lib", repo);
    json_t *j = mg_fx_run_json(NULL, home, (const char *const[]){"index", sub, "--json", NULL});
    ASSERT(json_is_true(json_object_get(j, "git")));
    ASSERT_EQ_INT(mg_fx_int(j, "total_files"), 2);
    json_decref(j);
    j = mg_fx_search(sub, home, "core_symbol|untracked_symbol|top_level_symbol|scratch_marker", "regex", 10);
    ASSERT_EQ_INT(json_array_size(json_object_get(j, "results")), 2);
    ASSERT(mg_fx_has_hit(j, "core.c", "core_symbol"));      /* paths relative to the indexed root */
    ASSERT(mg_fx_has_hit(j, "new.c", "untracked_symbol"));
    json_decref(j);
}

TEST(index_summary_labels_its_two_file_counts)
{
    /* the headline counts the walk's candidates (the binary file too), the
     * index: line what the index holds; each says which it is */
    char *root = mg_t_tmpdir(), *h = mg_t_tmpdir();
    mg_t_write_str(root, "a.c", "int main(void) { return 0; }\n");
    mg_t_write(root, "b.bin", "x\0y", 3);
    struct mg_t_out o = MG_RUN(NULL, h, "index", root);
    ASSERT_EQ_INT(o.status, 0);
    ASSERT_CONTAINS(o.out, ": 2 files seen, ");
    ASSERT_CONTAINS(o.out, "  skipped: 1 binary");
    ASSERT_CONTAINS(o.out, "  index: 1 files in all, ");
    mg_t_out_free(&o);
}

/* Issue 38 V8: a token in a file's or a directory's name is never stored:
 * the file is skipped (counted as secret), and no byte of the name is in
 * the data directory's files. */
TEST(index_a_secret_in_a_path_is_never_stored)
{
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir();
    const char *gh = "ghp_R8xKq2LmZ7vT0pWn4YcB9dHs6JfE1gUa3iQo", *gl = "glpat-Xk29fLq8ZrT4mNw7Bv1c";
    mg_t_sh(repo, "echo plain_marker_x > notes.txt && mkdir -p tokens %s && echo named_marker_q > tokens/%s.txt && "
            "echo dir_marker_w > %s/a.txt", gl, gh, gl);
    json_t *j = index_json(repo, home);
    ASSERT_EQ_INT(mg_fx_int(j, "files.added"), 1);
    ASSERT_EQ_INT(mg_fx_int(j, "skipped.secret"), 2);
    json_decref(j);
    j = mg_fx_search(repo, home, "plain_marker_x", "lexical", 10);
    ASSERT(mg_fx_has_hit(j, "notes.txt", NULL));
    json_decref(j);
    char cmd[8192];
    for (int i = 0; i < 2; i++) {
        snprintf(cmd, sizeof(cmd), "grep -r -q -a -F '%s' '%s'", i ? gl : gh, home);
        if (system(cmd) == 0) FAIL("the data directory keeps the token of a path (%s)", i ? gl : gh);
    }
}

/* Every row of one index run, in id order, as one string: chunks by path and
 * lines, symbols by name (the caller frees). */
static char *index_rows(const char *home, const char *name)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/repos/%s.db", home, name);
    sqlite3 *db;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) return NULL;
    sqlite3_stmt *st;
    char *out = NULL;
    if (sqlite3_prepare_v2(db, "SELECT (SELECT group_concat(x, ',') FROM (SELECT c.id || ':' || f.path || ':' || "
                               "c.start_line AS x FROM chunks c JOIN files f ON f.id = c.file_id ORDER BY c.id)) || ';' "
                               "|| (SELECT group_concat(y, ',') FROM (SELECT s.id || ':' || s.name AS y FROM symbols s "
                               "ORDER BY s.id))", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
        out = strdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(db);
    return out;
}

/* Issue 36 (determinism across thread counts): chunk and symbol ids follow
 * the walk, not the order the parser threads finish in, so an index — and
 * every tie a ranking breaks by id — is the same with one thread or four.
 * A big file first in the walk finishes after the small ones behind it. */
TEST(index_ids_follow_the_walk_at_every_thread_count)
{
    char *repo = mg_t_tmpdir();
    struct mg_buf big;
    mg_buf_init(&big, 64u << 20);
    for (int i = 0; i < 6000; i++)
        mg_buf_addf(&big, "/* step %d */\nint big_step_%d(int x)\n{\n    return x * %d + big_step_%d(x - 1);\n}\n", i, i, i,
                    i ? i - 1 : 0);
    mg_t_write(repo, "a_big.c", big.p, big.len);
    mg_buf_release(&big);
    for (int i = 0; i < 80; i++) {
        char rel[32], src[128];
        snprintf(rel, sizeof(rel), "small/f%02d.c", i);
        snprintf(src, sizeof(src), "int small_%d(int y)\n{\n    return y + %d;\n}\n", i, i);
        mg_t_write_str(repo, rel, src);
    }
    char *want = NULL;
    for (int round = 0; round < 4; round++) {
        char *home = mg_t_tmpdir();
        setenv("MEMGATE_INDEX_THREADS", round == 0 ? "1" : "4", 1);
        json_t *j = mg_fx_run_json(NULL, home, (const char *const[]){"index", repo, "--name", "det", "--json", NULL});
        unsetenv("MEMGATE_INDEX_THREADS");
        ASSERT_EQ_INT(mg_fx_int(j, "chunks"), 6080);
        json_decref(j);
        char *got = index_rows(home, "det");
        ASSERT(got != NULL);
        if (!want) want = got;
        else {
            if (strcmp(got, want) != 0) FAIL("round %d (4 threads): the ids differ from one thread's", round);
            free(got);
        }
    }
    free(want);
}
