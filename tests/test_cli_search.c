/* test_cli_search.c — `memgate search` semantics on the polyglot fixture:
 * output shape, identifier forms, symbols of every language, regex, filters,
 * hostile queries, repo resolution. */
#include <dirent.h>
#include <string.h>
#include <unistd.h>

#include "fixtures.h"

#include <git2/version.h>
#include <stdio.h>
#include <stdlib.h>

/* One indexed polyglot fixture per test process. */
static char *repo, *home;

static void setup(void)
{
    repo = mg_t_tmpdir();
    home = mg_t_tmpdir();
    mg_fx_polyglot(repo);
    json_decref(mg_fx_run_json(NULL, home, (const char *const[]){"index", repo, "--name", "poly", "--json", NULL}));
}

TEST(search_json_shape)
{
    setup();
    json_t *j = mg_fx_search(repo, home, "parse_http_header", "lexical", 5);
    ASSERT(json_is_number(json_object_get(j, "took_ms")));
    ASSERT_EQ_STR(json_string_value(json_object_get(j, "mode")), "lexical");
    json_t *h = json_array_get(json_object_get(j, "results"), 0);
    ASSERT(h != NULL);
    /* search_code's result, as MCP and /v1 give it */
    static const char *keys[] = {"repo", "path", "start_line", "end_line", "language", "symbol", "kind", "score",
                                 "snippet", "line", "snippet_line", "match_count", "match_lines", "source"};
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        if (!json_object_get(h, keys[i])) FAIL("result has no '%s'", keys[i]);
    ASSERT_EQ_INT(json_object_size(h), sizeof(keys) / sizeof(keys[0]));
    ASSERT_EQ_STR(json_string_value(json_object_get(h, "source")), "src/http.c:5");
    ASSERT(json_object_get(j, "scope") && json_object_get(j, "gate"));
    /* the definition comes first, with its doc comment */
    ASSERT_EQ_STR(json_string_value(json_object_get(h, "repo")), "poly");
    ASSERT_EQ_STR(json_string_value(json_object_get(h, "path")), "src/http.c");
    ASSERT_EQ_STR(json_string_value(json_object_get(h, "symbol")), "parse_http_header");
    ASSERT_EQ_STR(json_string_value(json_object_get(h, "kind")), "function");
    ASSERT_EQ_STR(json_string_value(json_object_get(h, "language")), "c");
    ASSERT_EQ_INT(json_integer_value(json_object_get(h, "start_line")), 4);
    ASSERT_EQ_INT(json_integer_value(json_object_get(h, "end_line")), 8);
    ASSERT_EQ_INT(json_integer_value(json_object_get(h, "line")), 5);
    ASSERT_EQ_STR(json_string_value(json_object_get(h, "snippet")),
                  "/* Parse one HTTP header line. */\n"
                  "int parse_http_header(const char *line, size_t n)\n"
                  "{");
    ASSERT(json_real_value(json_object_get(h, "score")) > 0);
    /* the chunk's lines holding the identifier (the prose spells its parts apart) */
    ASSERT_EQ_INT(json_integer_value(json_object_get(h, "match_count")), 1);
    char *lines = json_dumps(json_object_get(h, "match_lines"), JSON_COMPACT);
    ASSERT_EQ_STR(lines, "[{\"line\":5,\"text\":\"int parse_http_header(const char *line, size_t n)\"}]");
    free(lines);
    json_decref(j);
}

TEST(search_identifier_spellings_find_each_other)
{
    setup();
    static const char *queries[] = {"parseHttpHeader", "parse_http_header", "http header", "ParseHTTPHeader"};
    for (size_t i = 0; i < sizeof(queries) / sizeof(queries[0]); i++) {
        json_t *j = mg_fx_search(repo, home, queries[i], "lexical", 10);
        if (!mg_fx_has_hit(j, "src/http.c", "parse_http_header")) FAIL("'%s' misses parse_http_header", queries[i]);
        if (!mg_fx_has_hit(j, "ui/header.js", "parseHttpHeader")) FAIL("'%s' misses parseHttpHeader", queries[i]);
        json_decref(j);
    }
    /* prose finds it too */
    json_t *j = mg_fx_search(repo, home, "http header", "lexical", 10);
    ASSERT(mg_fx_has_hit(j, "README.md", NULL));
    json_decref(j);
}

static void expect_symbol(const char *name, const char *path, const char *kind, int start, int end)
{
    json_t *j = mg_fx_search(repo, home, name, "symbol", 5);
    json_t *h = json_array_get(json_object_get(j, "results"), 0);
    if (!h) FAIL("symbol '%s' not found", name);
    ASSERT_EQ_STR(json_string_value(json_object_get(h, "symbol")), name);
    ASSERT_EQ_STR(json_string_value(json_object_get(h, "path")), path);
    ASSERT_EQ_STR(json_string_value(json_object_get(h, "kind")), kind);
    ASSERT_EQ_INT(json_integer_value(json_object_get(h, "start_line")), start);
    ASSERT_EQ_INT(json_integer_value(json_object_get(h, "end_line")), end);
    json_decref(j);
}

TEST(search_symbols_of_every_language)
{
    setup();
    expect_symbol("parse_http_header", "src/http.c", "function", 5, 8);
    expect_symbol("MAX_HEADER", "src/http.c", "macro", 2, 2);
    expect_symbol("conn", "src/http.c", "struct", 10, 12);
    expect_symbol("Server", "src/server.cpp", "class", 2, 5);
    expect_symbol("listen", "src/server.cpp", "method", 4, 4);
    expect_symbol("net", "src/server.cpp", "module", 1, 6);
    expect_symbol("ServeHTTP", "web/router.go", "method", 5, 7);
    expect_symbol("Router", "web/router.go", "struct", 3, 3);
    expect_symbol("HttpClient", "app/HttpClient.java", "class", 3, 6);
    expect_symbol("fetchPage", "app/HttpClient.java", "method", 5, 5);
    expect_symbol("parseHttpHeader", "ui/header.js", "function", 1, 3);
    expect_symbol("renderPage", "ui/header.js", "function", 4, 4);
    expect_symbol("SessionStore", "ui/session.ts", "class", 2, 5);
    expect_symbol("Session", "ui/session.ts", "interface", 1, 1);
    expect_symbol("Banner", "ui/Banner.tsx", "function", 1, 3);
    expect_symbol("TokenBucket", "py/bucket.py", "class", 1, 3);
    expect_symbol("refill", "py/bucket.py", "method", 2, 3);
    expect_symbol("evict_oldest", "rs/cache.rs", "method", 6, 8);
    expect_symbol("Cache", "rs/cache.rs", "struct", 1, 3);
    /* C fields are symbols too (the outline parses struct bodies) */
    expect_symbol("fd", "src/http.c", "field", 11, 11);
    /* containers are reported: the method's chunk names its class */
    json_t *j = mg_fx_search(repo, home, "evict", "symbol", 5);
    ASSERT(mg_fx_has_hit(j, "rs/cache.rs", "evict_oldest"));
    json_decref(j);
    /* a sub-word names the definition that has it, not the chunk it lies in
     * (evict_oldest's chunk is `impl Cache`) */
    j = mg_fx_search(repo, home, "oldest", "symbol", 5);
    json_t *h = json_array_get(json_object_get(j, "results"), 0);
    ASSERT(h != NULL);
    ASSERT_EQ_STR(json_string_value(json_object_get(h, "symbol")), "evict_oldest");
    ASSERT_EQ_STR(json_string_value(json_object_get(h, "kind")), "method");
    ASSERT(!mg_fx_has_hit(j, "rs/cache.rs", "Cache"));
    json_decref(j);
    /* any case, prefix, and sub-word */
    j = mg_fx_search(repo, home, "tokenbucket", "symbol", 5);
    ASSERT(mg_fx_has_hit(j, "py/bucket.py", "TokenBucket"));
    json_decref(j);
    j = mg_fx_search(repo, home, "HttpHeader", "symbol", 5);
    ASSERT(mg_fx_has_hit(j, "ui/header.js", "parseHttpHeader"));
    ASSERT(mg_fx_has_hit(j, "src/http.c", "parse_http_header"));
    json_decref(j);
}

TEST(search_regex_and_fixed_strings)
{
    setup();
    json_t *j = mg_fx_search(repo, home, "parse_?http_?header\\(", "regex", 10);
    ASSERT_EQ_INT(json_array_size(json_object_get(j, "results")), 1);
    ASSERT(mg_fx_has_hit(j, "src/http.c", "parse_http_header"));
    json_t *h = json_array_get(json_object_get(j, "results"), 0);
    ASSERT_EQ_INT(json_integer_value(json_object_get(h, "line")), 5);
    ASSERT_EQ_STR(json_string_value(json_object_get(h, "snippet")), "int parse_http_header(const char *line, size_t n)");
    json_decref(j);
    /* -i */
    j = mg_fx_run_json(repo, home, (const char *const[]){"search", "PARSEHTTPHEADER", "-i", "--json", NULL});
    ASSERT(mg_fx_has_hit(j, "ui/header.js", "parseHttpHeader"));
    json_decref(j);
    /* -F: regex metacharacters are literal */
    j = mg_fx_run_json(repo, home, (const char *const[]){"search", "line.split(':')", "-F", "--json", NULL});
    ASSERT(mg_fx_has_hit(j, "ui/header.js", "parseHttpHeader"));
    ASSERT_EQ_STR(json_string_value(json_object_get(j, "mode")), "fixed");
    json_decref(j);
    /* a pattern with no literal at all still works (scans everything) */
    j = mg_fx_search(repo, home, "^\\s*self\\.\\w+ \\+= \\w+$", "regex", 10);
    ASSERT(mg_fx_has_hit(j, "py/bucket.py", "refill"));
    json_decref(j);
    /* an unbalanced regex is an error that says where */
    struct mg_t_out o = MG_RUN(repo, home, "search", "parse(", "--mode", "regex");
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.err, "error[invalid_regex]");
    ASSERT_CONTAINS(o.err, "offset 6");
    mg_t_out_free(&o);
    /* a lexical query without words is a literal search */
    j = mg_fx_search(repo, home, "!= ':'", "lexical", 5);
    ASSERT_EQ_STR(json_string_value(json_object_get(j, "mode")), "fixed");
    ASSERT(mg_fx_has_hit(j, "src/http.c", "parse_http_header"));
    json_decref(j);
}

TEST(search_hostile_queries)
{
    setup();
    /* FTS5 syntax in a query is just text */
    static const char *odd[] = {"\"", "foo AND (bar", "NEAR(a b)", "*", "header:", "^http", "a OR", "\"\"\"",
                                "-header", "{symbol}: x", "' OR 1=1 --", "\\", "(((((((("};
    for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
        /* `--` ends the options, so a query may start with '-' */
        struct mg_t_out o = MG_RUN(repo, home, "search", "--json", "--", odd[i]);
        if (o.status != 0) FAIL("query '%s' failed: %s", odd[i], o.err);
        json_decref(mg_t_json(o.out));
        mg_t_out_free(&o);
    }
    json_t *j = mg_fx_search(repo, home, "header:", "lexical", 10);
    ASSERT(mg_fx_has_hit(j, "src/http.c", "parse_http_header"));
    json_decref(j);
    /* the query cap */
    char *big = malloc(5000);
    memset(big, 'a', 4999);
    big[4999] = 0;
    struct mg_t_out o = MG_RUN(repo, home, "search", big);
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.err, "error[query_too_long]");
    ASSERT_CONTAINS(o.err, "4096");
    mg_t_out_free(&o);
    free(big);
    o = MG_RUN(repo, home, "search", "");
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.err, "error[query_empty]");
    mg_t_out_free(&o);
    o = MG_RUN(repo, home, "search", "caf\xe9");
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.err, "error[query_invalid]");
    mg_t_out_free(&o);
    o = MG_RUN(repo, home, "search", "x", "--limit", "0");
    ASSERT_EQ_INT(o.status, 2);
    mg_t_out_free(&o);
    o = MG_RUN(repo, home, "search", "x", "--mode", "fuzzy");
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.err, "error[invalid_mode]");
    mg_t_out_free(&o);
}

TEST(search_filters_apply)
{
    setup();
    json_t *j = mg_fx_run_json(repo, home, (const char *const[]){"search", "http", "--glob", "*.go", "--json", NULL});
    ASSERT_EQ_INT(json_array_size(json_object_get(j, "results")), 1);
    ASSERT(mg_fx_has_hit(j, "web/router.go", "ServeHTTP"));
    json_decref(j);
    j = mg_fx_run_json(repo, home, (const char *const[]){"search", "http header", "--exclude", "ui/**", "--exclude",
                                                         "*.md", "--json", NULL});
    ASSERT(mg_fx_has_hit(j, "src/http.c", NULL));
    ASSERT(!mg_fx_has_hit(j, "ui/header.js", NULL));
    ASSERT(!mg_fx_has_hit(j, "README.md", NULL));
    json_decref(j);
    j = mg_fx_run_json(repo, home, (const char *const[]){"search", "parseHttpHeader", "--lang", "javascript", "--json", NULL});
    ASSERT_EQ_INT(json_array_size(json_object_get(j, "results")), 1);
    ASSERT(mg_fx_has_hit(j, "ui/header.js", NULL));
    json_decref(j);
    /* --lang typescript covers .tsx; filters work in every mode */
    j = mg_fx_run_json(repo, home, (const char *const[]){"search", "Banner|Session", "--mode", "regex", "--lang", "ts",
                                                         "--json", NULL});
    ASSERT(mg_fx_has_hit(j, "ui/Banner.tsx", NULL));
    ASSERT(mg_fx_has_hit(j, "ui/session.ts", NULL));
    json_decref(j);
    j = mg_fx_run_json(repo, home, (const char *const[]){"search", "Serve", "--mode", "symbol", "--glob", "web/**",
                                                         "--json", NULL});
    ASSERT_EQ_INT(json_array_size(json_object_get(j, "results")), 1);
    ASSERT(mg_fx_has_hit(j, "web/router.go", "ServeHTTP"));
    json_decref(j);
    j = mg_fx_run_json(repo, home, (const char *const[]){"search", "http", "--limit", "2", "--json", NULL});
    ASSERT_EQ_INT(json_array_size(json_object_get(j, "results")), 2);
    json_decref(j);
    struct mg_t_out o = MG_RUN(repo, home, "search", "x", "--lang", "klingon");
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.err, "error[invalid_language]");
    ASSERT_CONTAINS(o.err, "python");
    mg_t_out_free(&o);
    o = MG_RUN(repo, home, "search", "x", "--glob", "src/[abc");
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.err, "error[invalid_glob]");
    mg_t_out_free(&o);
}

TEST(search_repo_resolution)
{
    setup();
    char *other = mg_t_tmpdir(), *elsewhere = mg_t_tmpdir();
    mg_t_write_str(other, "only_here.c", "int only_in_other(void) { return 0; }\n");
    json_decref(mg_fx_run_json(NULL, home, (const char *const[]){"index", other, "--name", "other", "--json", NULL}));
    /* outside both roots: which one is meant is unknown */
    struct mg_t_out o = MG_RUN(elsewhere, home, "search", "only_in_other");
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.err, "error[repo_required]");
    ASSERT_CONTAINS(o.err, "other, poly");
    mg_t_out_free(&o);
    /* inside a root: that repo, and only it */
    json_t *j = mg_fx_search(other, home, "only_in_other", "lexical", 5);
    ASSERT(mg_fx_has_hit(j, "only_here.c", NULL));
    json_decref(j);
    char sub[4200];
    snprintf(sub, sizeof(sub), "%s/src", repo);
    j = mg_fx_search(sub, home, "only_in_other", "lexical", 5);
    ASSERT_EQ_INT(json_array_size(json_object_get(j, "results")), 0);
    json_decref(j);
    /* explicit, several (with cross_repo = 1: the policy holds for the command line too), unknown */
    j = mg_fx_run_json(elsewhere, home, (const char *const[]){"search", "only_in_other", "--repo", "other", "--json", NULL});
    ASSERT(mg_fx_has_hit(j, "only_here.c", NULL));
    json_decref(j);
    o = MG_RUN(elsewhere, home, "search", "int", "--repo", "other", "--repo", "poly");
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.err, "error[cross_repo_denied]");
    mg_t_out_free(&o);
    char cfgfile[4200];
    snprintf(cfgfile, sizeof(cfgfile), "%s/config", home);
    FILE *cf = fopen(cfgfile, "w");
    ASSERT(cf);
    fputs("cross_repo = 1\n", cf);
    fclose(cf);
    j = mg_fx_run_json(elsewhere, home, (const char *const[]){"search", "int", "--repo", "other", "--repo", "poly",
                                                              "--mode", "symbol", "--json", NULL});
    json_decref(j);
    j = mg_fx_run_json(elsewhere, home, (const char *const[]){"search", "only_in_other|parse_http_header", "--mode",
                                                              "regex", "--repo", "other", "--repo", "poly", "--json", NULL});
    ASSERT(mg_fx_has_hit(j, "only_here.c", NULL));
    ASSERT(mg_fx_has_hit(j, "src/http.c", NULL));
    json_decref(j);
    o = MG_RUN(elsewhere, home, "search", "x", "--repo", "nope");
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.err, "error[repo_not_found]");
    ASSERT_CONTAINS(o.err, "other, poly");
    mg_t_out_free(&o);
}

TEST(repos_status_and_help)
{
    setup();
    json_t *j = mg_fx_run_json(NULL, home, (const char *const[]){"repos", "--json", NULL});
    ASSERT_EQ_INT(json_array_size(j), 1);
    json_t *r = json_array_get(j, 0);
    ASSERT_EQ_STR(json_string_value(json_object_get(r, "id")), "poly");
    char real[4200];
    ASSERT(realpath(repo, real) != NULL);
    ASSERT_EQ_STR(json_string_value(json_object_get(r, "root")), real);
    ASSERT_EQ_INT(strlen(json_string_value(json_object_get(r, "fingerprint"))), 32);
    ASSERT_EQ_INT(json_integer_value(json_object_get(r, "files")), 13);
    ASSERT(json_integer_value(json_object_get(r, "db_bytes")) > 0);
    json_decref(j);
    j = mg_fx_run_json(NULL, home, (const char *const[]){"status", "--json", NULL});
    ASSERT_EQ_STR(json_string_value(json_object_get(j, "home")), home);
    ASSERT_EQ_INT(mg_fx_int(j, "totals.repos"), 1);
    ASSERT_EQ_INT(mg_fx_int(j, "config.max_query_bytes"), 4096);
    json_decref(j);
    struct mg_t_out o = MG_RUN(NULL, home, "repos");
    ASSERT_EQ_INT(o.status, 0);
    ASSERT_CONTAINS(o.out, "poly");
    mg_t_out_free(&o);
    o = MG_RUN(NULL, home, "repos", "rm", "nope");
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.err, "error[repo_not_found]");
    mg_t_out_free(&o);
    mg_t_write_str(home, "repos/poly.db.watch", ""); /* a watcher's lease (index/watch.c) */
    mg_t_write_str(home, "repos/poly.db.vec", "");   /* the vectors' column file (vector/vstore.h) */
    o = MG_RUN(NULL, home, "repos", "rm", "poly");
    ASSERT_EQ_INT(o.status, 0);
    mg_t_out_free(&o);
    j = mg_fx_run_json(NULL, home, (const char *const[]){"repos", "--json", NULL});
    ASSERT_EQ_INT(json_array_size(j), 0);
    json_decref(j);
    /* nothing of the repo is left: the index, its WAL, locks, lease and saved map */
    char dir[4200];
    snprintf(dir, sizeof(dir), "%s/repos", home);
    DIR *dp = opendir(dir);
    ASSERT(dp != NULL);
    for (struct dirent *de; (de = readdir(dp));)
        if (strncmp(de->d_name, "poly.", 5) == 0) FAIL("left after repos rm: %s", de->d_name);
    closedir(dp);
    static const char *cmds[] = {"index", "search", "repos", "status"};
    for (size_t i = 0; i < 4; i++) {
        o = MG_RUN(NULL, home, cmds[i], "--help");
        ASSERT_EQ_INT(o.status, 0);
        ASSERT_CONTAINS(o.out, "usage: memgate");
        mg_t_out_free(&o);
    }
    o = MG_RUN(NULL, home, "--help");
    ASSERT_EQ_INT(o.status, 0);
    ASSERT_CONTAINS(o.out, "commands:");
    mg_t_out_free(&o);
    o = MG_RUN(NULL, home, "frobnicate");
    ASSERT_EQ_INT(o.status, 2);
    ASSERT_CONTAINS(o.err, "unknown command 'frobnicate'");
    mg_t_out_free(&o);
}

TEST(search_unknown_option_named_as_given)
{
    /* getopt stays on "-EINVAL" while it reads its letters: the error names
     * it, not the argument before it ("search", "--json") */
    char *h = mg_t_tmpdir();
    struct mg_t_out o = MG_RUN(NULL, h, "search", "-EINVAL");
    ASSERT_EQ_INT(o.status, 2);
    ASSERT_CONTAINS(o.err, "error[usage]: unknown option '-E' in '-EINVAL'");
    mg_t_out_free(&o);
    o = MG_RUN(NULL, h, "search", "--json", "-EINVAL"); /* --json: the error is JSON on stdout */
    ASSERT_EQ_INT(o.status, 2);
    ASSERT_CONTAINS(o.out, "unknown option '-E' in '-EINVAL'");
    ASSERT_NOT_CONTAINS(o.out, "--json");
    mg_t_out_free(&o);
    o = MG_RUN(NULL, h, "search", "x", "-E");
    ASSERT_CONTAINS(o.err, "unknown option '-E';");
    mg_t_out_free(&o);
    o = MG_RUN(NULL, h, "search", "--bogus", "x");
    ASSERT_EQ_INT(o.status, 2);
    ASSERT_CONTAINS(o.err, "unknown option '--bogus'");
    mg_t_out_free(&o);
    o = MG_RUN(NULL, h, "search", "x", "--repo");
    ASSERT_EQ_INT(o.status, 2);
    ASSERT_CONTAINS(o.err, "option '--repo' needs a value");
    mg_t_out_free(&o);
    /* every command that reads options with getopt_long says the same */
    static const char *const cmds[] = {"index", "outline", "refs", "callers", "impact", "repo-map",
                                       "repos", "scan", "status", "serve"};
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
        o = MG_RUN(NULL, h, cmds[i], "--json", "-EINVAL");
        ASSERT_EQ_INT(o.status, 2);
        ASSERT_CONTAINS(o.out, "unknown option '-E' in '-EINVAL'");
        mg_t_out_free(&o);
    }
}

/* libcurl, libgit2 and libmicrohttpd (and the ~35 libraries they bring) are
 * loaded when first called (util/dynlib.c): a search loads none of them,
 * while `--version`, which asks each for its version, loads all three. The
 * dynamic loader says which files it loads (LD_DEBUG=files, on stderr). */
TEST(search_loads_no_network_or_git_library)
{
    setup();
    setenv("LD_DEBUG", "files", 1);
    struct mg_t_out s = MG_RUN(NULL, home, "search", "--repo", "poly", "parse_http_header");
    struct mg_t_out v = MG_RUN(NULL, home, "--version");
    unsetenv("LD_DEBUG");
    ASSERT_EQ_INT(s.status, 0);
    ASSERT_CONTAINS(s.out, "src/http.c");
    ASSERT_CONTAINS(s.err, "file=libsqlite3.so"); /* the loader did report its files */
    static const char *const lazy[] = {"file=libcurl.so", "file=libgit2.so", "file=libmicrohttpd.so"};
    for (size_t i = 0; i < 3; i++) {
        if (strstr(s.err, lazy[i])) FAIL("a search loaded %s", lazy[i] + 5);
        ASSERT_CONTAINS(v.err, lazy[i]);
    }
    mg_t_out_free(&s);
    mg_t_out_free(&v);
}

/* With those three libraries gone (bind-mounted over with /dev/null in a
 * private mount namespace: CI runs as root), a search still works, and
 * `serve` fails at once with dependency_missing naming the package. */
TEST(missing_library_fails_only_what_needs_it)
{
    setup();
    char *d = mg_t_tmpdir();
    char script[4096];
    snprintf(script, sizeof(script),
             "set -u\n"
             "for l in libcurl.so.4 libgit2.so.%s libmicrohttpd.so.12; do\n"
             "  f=$(ldconfig -p | awk -v l=\"$l\" '$1 == l {print $NF; exit}')\n"
             "  [ -n \"$f\" ] && mount --bind /dev/null \"$(readlink -f \"$f\")\" || { echo \"cannot hide $l\" >&2; exit 9; }\n"
             "done\n"
             "MEMGATE_HOME='%s' '%s' search --repo poly parse_http_header > s.out 2> s.err; echo $? > s.rc\n"
             "MEMGATE_HOME='%s' timeout 20 '%s' serve --listen 127.0.0.1:0 > v.out 2> v.err; echo $? > v.rc\n",
             LIBGIT2_SOVERSION, home, getenv("MEMGATE_BIN"), home, getenv("MEMGATE_BIN"));
    mg_t_write(d, "hide.sh", script, strlen(script));
    mg_t_sh(d, "unshare --mount sh hide.sh");
    char *src = mg_t_read(d, "s.rc"), *sout = mg_t_read(d, "s.out");
    char *vrc = mg_t_read(d, "v.rc"), *verr = mg_t_read(d, "v.err");
    ASSERT_EQ_STR(src, "0\n");
    ASSERT_CONTAINS(sout, "src/http.c");
    ASSERT_EQ_STR(vrc, "1\n");
    ASSERT_CONTAINS(verr, "error[dependency_missing]: cannot load libmicrohttpd.so.12");
    ASSERT_CONTAINS(verr, "apt-get install libmicrohttpd12");
    free(src);
    free(sout);
    free(vrc);
    free(verr);
}
