/* test_config.c — settings parsing (util/config.h). */
#include <sys/stat.h>

#include "test.h"
#include "security/roots.h"
#include "util/config.h"

TEST(config_parse_sizes)
{
    size_t v;
    ASSERT_EQ_INT(mg_parse_size("4096", &v), 0);
    ASSERT_EQ_INT(v, 4096);
    ASSERT_EQ_INT(mg_parse_size("512k", &v), 0);
    ASSERT_EQ_INT(v, 512 * 1024);
    ASSERT_EQ_INT(mg_parse_size("1M", &v), 0);
    ASSERT_EQ_INT(v, 1 << 20);
    ASSERT_EQ_INT(mg_parse_size("2GiB", &v), 0);
    ASSERT_EQ_INT(v, 2LL << 30);
    ASSERT_EQ_INT(mg_parse_size("1.5M", &v), -1);
    ASSERT_EQ_INT(mg_parse_size("-1", &v), -1);
    ASSERT_EQ_INT(mg_parse_size("", &v), -1);
    ASSERT_EQ_INT(mg_parse_size("99999999999999999999", &v), -1);
}

TEST(config_file_keys_comments_errors)
{
    struct mg_config c;
    struct mg_err err = {0};
    mg_config_defaults(&c);
    const char *ok = "# comment\n\nmax_file_size = 2M  # trailing\n  search_limit=7\n";
    ASSERT_EQ_INT(mg_config_parse(&c, ok, strlen(ok), "cfg", &err), 0);
    ASSERT_EQ_INT(c.max_file_size, 2 << 20);
    ASSERT_EQ_INT(c.search_limit, 7);

    const char *unknown = "max_file_size = 1M\nmax_flie_size = 2M\n";
    ASSERT_EQ_INT(mg_config_parse(&c, unknown, strlen(unknown), "cfg", &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_CONFIG);
    ASSERT_CONTAINS(err.msg, "cfg:2");
    ASSERT_CONTAINS(err.msg, "max_flie_size");

    const char *range = "search_limit = 0\n";
    ASSERT_EQ_INT(mg_config_parse(&c, range, strlen(range), "cfg", &err), -1);
    ASSERT_CONTAINS(err.msg, "out of range");

    const char *noeq = "just words\n";
    ASSERT_EQ_INT(mg_config_parse(&c, noeq, strlen(noeq), "cfg", &err), -1);
    ASSERT_CONTAINS(err.msg, "expected 'key = value'");

    const char *noval = "search_limit =\n";
    ASSERT_EQ_INT(mg_config_parse(&c, noval, strlen(noval), "cfg", &err), -1);
    ASSERT_CONTAINS(err.msg, "no value");

    char nul[] = "search_limit = 5\0x\n";
    ASSERT_EQ_INT(mg_config_parse(&c, nul, sizeof(nul) - 1, "cfg", &err), -1);
    ASSERT_CONTAINS(err.msg, "NUL");

    char *huge = malloc(MG_CONFIG_MAX_BYTES + 2);
    memset(huge, '#', MG_CONFIG_MAX_BYTES + 1);
    ASSERT_EQ_INT(mg_config_parse(&c, huge, MG_CONFIG_MAX_BYTES + 1, "cfg", &err), -1);
    ASSERT_CONTAINS(err.msg, "limit");
    free(huge);
}

TEST(config_load_order_file_then_env)
{
    char *home = mg_t_tmpdir();
    mg_t_write_str(home, "config", "max_query_bytes = 100\nsearch_limit = 3\n");
    setenv("MEMGATE_HOME", home, 1);
    setenv("MEMGATE_SEARCH_LIMIT", "9", 1);
    unsetenv("MEMGATE_CONFIG");
    struct mg_config c;
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_config_load(&c, &err), 0);
    ASSERT_EQ_STR(c.home, home);
    ASSERT_EQ_INT(c.max_query_bytes, 100);
    ASSERT_EQ_INT(c.search_limit, 9); /* environment wins over the file */
    setenv("MEMGATE_MAX_FILE_SIZE", "lots", 1);
    ASSERT_EQ_INT(mg_config_load(&c, &err), -1);
    ASSERT_CONTAINS(err.msg, "MEMGATE_MAX_FILE_SIZE");
    unsetenv("MEMGATE_MAX_FILE_SIZE");
    setenv("MEMGATE_CONFIG", "/nonexistent/memgate.conf", 1);
    ASSERT_EQ_INT(mg_config_load(&c, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_CONFIG);
}

static int collect(void *ud, const char *tenant, const char *dir)
{
    char *out = ud;
    snprintf(out + strlen(out), 512 - strlen(out), "[%s|%s]", tenant, dir);
    return 0;
}

/* index_roots: TENANT:DIR entries; bad entries name the key; paths compare by whole components. */
TEST(config_index_roots)
{
    struct mg_config c;
    struct mg_err err = {0};
    mg_config_defaults(&c);
    const char *ok = "index_roots = acme:/srv/acme , globex:/srv/g lobex,local:/\n";
    ASSERT_EQ_INT(mg_config_parse(&c, ok, strlen(ok), "cfg", &err), 0);
    char got[512] = "";
    ASSERT_EQ_INT(mg_index_roots_each(c.index_roots, "x", collect, got, &err), 0);
    ASSERT_EQ_STR(got, "[acme|/srv/acme][globex|/srv/g lobex][local|/]");
    static const char *const bad[] = {"index_roots = /srv/acme\n", "index_roots = acme:srv\n",
                                      "index_roots = Acme:/srv\n", "index_roots = :/srv\n",
                                      "index_roots = acme:/a, b\n"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ASSERT_EQ_INT(mg_config_parse(&c, bad[i], strlen(bad[i]), "cfg", &err), -1);
        ASSERT_EQ_STR(err.code, MG_E_CONFIG);
        ASSERT_CONTAINS(err.msg, "index_roots");
    }
    ASSERT_EQ_INT(mg_path_within("/a/b", "/a/b"), 1);
    ASSERT_EQ_INT(mg_path_within("/a/b/c", "/a/b"), 1);
    ASSERT_EQ_INT(mg_path_within("/a/b/c", "/a/b/"), 1);
    ASSERT_EQ_INT(mg_path_within("/a/bc", "/a/b"), 0);
    ASSERT_EQ_INT(mg_path_within("/a", "/a/b"), 0);
    ASSERT_EQ_INT(mg_path_within("/x", "/"), 1);
}

TEST(config_hybrid_weights)
{
    struct mg_config c;
    struct mg_err err = {0};
    mg_config_defaults(&c);
    ASSERT_EQ_STR(c.hybrid_weights, "1,1,1,0.5,0");
    ASSERT(c.hybrid_weight[3] == 0.5 && c.hybrid_weight[1] == 1 && c.hybrid_weight[2] == 1 &&
           c.hybrid_weight[4] == 0 && c.hybrid_weight[5] == 1);
    ASSERT_EQ_INT(c.hybrid_rrf_k, 60);
    ASSERT_EQ_INT(mg_config_set(&c, "hybrid_weights", "1,0,1.5,0.25", "test", &err), 0);
    /* G left out: 0; F (the file lists) left out: 1 */
    ASSERT(c.hybrid_weight[1] == 0 && c.hybrid_weight[2] == 1.5 && c.hybrid_weight[4] == 0 &&
           c.hybrid_weight[5] == 1);
    ASSERT_EQ_INT(mg_config_set(&c, "hybrid_weights", "1,0,1.5,0.25,0.5", "test", &err), 0);
    ASSERT(c.hybrid_weight[4] == 0.5 && c.hybrid_weight[5] == 1);
    ASSERT_EQ_INT(mg_config_set(&c, "hybrid_weights", "1,0,1.5,0.25,0.5,2", "test", &err), 0);
    ASSERT(c.hybrid_weight[4] == 0.5 && c.hybrid_weight[5] == 2);
    static const char *const bad[] = {"1,1,1", "1,1,1,11", "a,b,c,d", "1,1,1,0.25,", "1,-1,1,1", "1, 1,1,1",
                                      "1,1,1,1,1,1,1", "1,1,1,1,x", "1,1,1,1,1,11"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ASSERT_EQ_INT(mg_config_set(&c, "hybrid_weights", bad[i], "test", &err), -1);
        ASSERT_EQ_STR(err.code, MG_E_CONFIG);
        ASSERT_CONTAINS(err.msg, "hybrid_weights");
    }
    ASSERT(c.hybrid_weight[1] == 0 && c.hybrid_weight[2] == 1.5); /* unchanged by a bad value */
    ASSERT_EQ_INT(mg_config_set(&c, "hybrid_rrf_k", "0", "test", &err), -1);
}

/* An unknown MEMGATE_* variable (a typo) is an error naming the closest
 * known one, before any command runs; the known ones, settings or not, pass. */
TEST(config_unknown_env_variable_is_an_error)
{
    char *home = mg_t_tmpdir();
    setenv("MEMGATE_HOM", "/nowhere", 1);
    struct mg_t_out o = MG_RUN(NULL, home, "status"); /* with --json: the same error as JSON (test_cli_errors.c) */
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.err, "error[invalid_config]: unknown environment variable MEMGATE_HOM; did you mean MEMGATE_HOME?");
    ASSERT_EQ_STR(o.out, "");
    mg_t_out_free(&o);
    unsetenv("MEMGATE_HOM");
    setenv("MEMGATE_MAX_FILESIZE", "1M", 1);
    o = MG_RUN(NULL, home, "repos");
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.err, "MEMGATE_MAX_FILESIZE; did you mean MEMGATE_MAX_FILE_SIZE?");
    mg_t_out_free(&o);
    unsetenv("MEMGATE_MAX_FILESIZE");
    /* --help and --version still answer */
    setenv("MEMGATE_TYPO", "1", 1);
    o = MG_RUN(NULL, home, "--version");
    ASSERT_EQ_INT(o.status, 0);
    mg_t_out_free(&o);
    unsetenv("MEMGATE_TYPO");
    /* settings, the others and the harnesses' own are known */
    const char *ok[] = {"MEMGATE_MAX_FILE_SIZE=2M", "MEMGATE_EMBEDDER=none", "MEMGATE_VERBOSE=0",
                        "MEMGATE_INSTANCE_ID=x", "MEMGATE_TEST_WATCH_LIMIT=5", "MEMGATE_KEEP_TMP=1",
                        "MEMGATE_ISOLATION_CALLS=3", "MEMGATE_BENCH_CACHE=/tmp", "MEMGATE_CACHE_DIR=/tmp/mg-cache-t"};
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) putenv((char *)ok[i]);
    o = MG_RUN(NULL, home, "status", "--json");
    if (o.status != 0) FAIL("status with known variables: %d, %s", o.status, o.err);
    mg_t_out_free(&o);
}

/* `memgate status --json` in the environment set up by the caller (no MEMGATE_HOME) */
static json_t *status_json(struct mg_t_out *o)
{
    *o = MG_RUN(NULL, NULL, "status", "--json");
    if (o->status != 0) FAIL("status exited %d: %s", o->status, o->err);
    return mg_t_json(o->out);
}

static const char *jstr(json_t *j, const char *k) { return json_string_value(json_object_get(j, k)); }
static long long limit_of(json_t *j)
{
    return json_integer_value(json_object_get(json_object_get(j, "config"), "search_limit"));
}

/* Without MEMGATE_HOME: the config file at $XDG_CONFIG_HOME/memgate/config
 * (~/.config), the old one in the data directory still read with a notice,
 * the cache at $XDG_CACHE_HOME/memgate (~/.cache); with MEMGATE_HOME all of
 * them inside it, whatever the XDG variables say. */
TEST(config_xdg_places)
{
    char *base = mg_t_tmpdir(), p[PATH_MAX], want[PATH_MAX];
    unsetenv("MEMGATE_HOME");
    unsetenv("MEMGATE_CONFIG");
    unsetenv("MEMGATE_CACHE_DIR");
    unsetenv("XDG_DATA_HOME");
    unsetenv("XDG_CONFIG_HOME");
    unsetenv("XDG_CACHE_HOME");
    snprintf(p, sizeof(p), "%s/home", base);
    setenv("HOME", p, 1);

    /* the defaults, under HOME */
    struct mg_t_out o;
    json_t *j = status_json(&o);
    snprintf(want, sizeof(want), "%s/home/.local/share/memgate", base);
    ASSERT_EQ_STR(jstr(j, "home"), want);
    snprintf(want, sizeof(want), "%s/home/.config/memgate/config", base);
    ASSERT_EQ_STR(jstr(j, "config_file"), want);
    snprintf(want, sizeof(want), "%s/home/.cache/memgate", base);
    ASSERT_EQ_STR(jstr(j, "cache_dir"), want);
    ASSERT_NOT_CONTAINS(o.err, "note:");
    json_decref(j);
    mg_t_out_free(&o);

    snprintf(p, sizeof(p), "%s/data", base);
    setenv("XDG_DATA_HOME", p, 1);
    snprintf(p, sizeof(p), "%s/cfg", base);
    setenv("XDG_CONFIG_HOME", p, 1);
    snprintf(p, sizeof(p), "%s/cache", base);
    setenv("XDG_CACHE_HOME", p, 1);

    /* only the old place has a config: read, with one notice naming the new place (stderr, not stdout) */
    mg_t_write_str(base, "data/memgate/config", "search_limit = 7\n");
    j = status_json(&o);
    ASSERT_EQ_INT(limit_of(j), 7);
    snprintf(want, sizeof(want), "%s/data/memgate/config", base);
    ASSERT_EQ_STR(jstr(j, "config_file"), want);
    ASSERT_CONTAINS(o.err, "note: read the config file");
    snprintf(want, sizeof(want), "its place is now %s/cfg/memgate/config", base);
    ASSERT_CONTAINS(o.err, want);
    const char *second = strstr(o.err, "note:");
    ASSERT(second && !strstr(second + 1, "note:")); /* once */
    snprintf(want, sizeof(want), "%s/cache/memgate", base);
    ASSERT_EQ_STR(jstr(j, "cache_dir"), want);
    json_decref(j);
    mg_t_out_free(&o);

    /* the XDG config wins; no notice */
    mg_t_write_str(base, "cfg/memgate/config", "search_limit = 5\n");
    j = status_json(&o);
    ASSERT_EQ_INT(limit_of(j), 5);
    snprintf(want, sizeof(want), "%s/cfg/memgate/config", base);
    ASSERT_EQ_STR(jstr(j, "config_file"), want);
    ASSERT_NOT_CONTAINS(o.err, "note:");
    json_decref(j);
    mg_t_out_free(&o);

    /* secret rules compiled at run time (here: the built-in ones, their databases
     * compiled in not used) land in the XDG cache */
    char *repo = mg_t_tmpdir();
    mg_t_write_str(repo, "a.txt", "nothing to see\n");
    setenv("MEMGATE_SHIPPED_RULES", "off", 1);
    o = MG_RUN(NULL, NULL, "scan", repo);
    unsetenv("MEMGATE_SHIPPED_RULES");
    ASSERT_EQ_INT(o.status, 0);
    mg_t_out_free(&o);
    snprintf(p, sizeof(p), "%s/cache/memgate", base);
    struct stat st;
    if (stat(p, &st) != 0 || !S_ISDIR(st.st_mode)) FAIL("scan made no cache directory %s", p);
    snprintf(p, sizeof(p), "%s/data/memgate/cache", base);
    if (stat(p, &st) == 0) FAIL("scan still made the old cache directory %s", p);

    /* MEMGATE_HOME: a self-contained instance, the XDG places unused */
    snprintf(p, sizeof(p), "%s/inst", base);
    setenv("MEMGATE_HOME", p, 1);
    j = status_json(&o);
    ASSERT_EQ_INT(limit_of(j), 20);
    snprintf(want, sizeof(want), "%s/inst/config", base);
    ASSERT_EQ_STR(jstr(j, "config_file"), want);
    snprintf(want, sizeof(want), "%s/inst/cache", base);
    ASSERT_EQ_STR(jstr(j, "cache_dir"), want);
    ASSERT_NOT_CONTAINS(o.err, "note:");
    json_decref(j);
    mg_t_out_free(&o);
}

/* status names where `memgate serve` listens (make run's hints read it):
 * the config file's listen, MEMGATE_LISTEN over it. */
TEST(status_shows_where_serve_listens)
{
    char *home = mg_t_tmpdir();
    mg_t_write_str(home, "config", "listen = 127.0.0.1:7555\n");
    struct mg_t_out o = MG_RUN(NULL, home, "status", "--json");
    ASSERT_EQ_INT(o.status, 0);
    json_t *j = mg_t_json(o.out);
    ASSERT_EQ_STR(jstr(json_object_get(j, "config"), "listen"), "127.0.0.1:7555");
    json_decref(j);
    mg_t_out_free(&o);
    setenv("MEMGATE_LISTEN", "[::1]:7556", 1);
    o = MG_RUN(NULL, home, "status");
    unsetenv("MEMGATE_LISTEN");
    ASSERT_EQ_INT(o.status, 0);
    ASSERT_CONTAINS(o.out, " listen=[::1]:7556\n");
    mg_t_out_free(&o);
}
