/* test_glob.c — glob semantics (util/glob.h). */
#include "test.h"
#include "util/glob.h"

static int allows(const char *inc, const char *exc, const char *path)
{
    const char *i[1] = {inc}, *e[1] = {exc};
    struct mg_globset *g;
    struct mg_err err = {0};
    if (mg_globset_new(i, inc ? 1 : 0, e, exc ? 1 : 0, &g, &err) != 0) FAIL("glob failed: %s", err.msg);
    int r = mg_globset_allows(g, path, strlen(path));
    mg_globset_free(&g);
    return r;
}

TEST(glob_basename_anywhere)
{
    ASSERT(allows("*.c", NULL, "main.c"));
    ASSERT(allows("*.c", NULL, "src/deep/x/main.c"));
    ASSERT(!allows("*.c", NULL, "main.cc"));
    ASSERT(!allows("*.c", NULL, "main.h"));
    ASSERT(allows("Makefile", NULL, "a/b/Makefile"));
    ASSERT(!allows("Makefile", NULL, "a/b/Makefile.am"));
}

TEST(glob_anchored_and_star_stays_in_segment)
{
    ASSERT(allows("src/*.c", NULL, "src/a.c"));
    ASSERT(!allows("src/*.c", NULL, "src/sub/a.c"));
    ASSERT(!allows("src/*.c", NULL, "lib/src/a.c"));
    ASSERT(allows("/README.md", NULL, "README.md"));
    ASSERT(!allows("/README.md", NULL, "docs/README.md"));
}

TEST(glob_double_star)
{
    ASSERT(allows("src/**/*.c", NULL, "src/a.c"));
    ASSERT(allows("src/**/*.c", NULL, "src/x/y/z/a.c"));
    ASSERT(!allows("src/**/*.c", NULL, "lib/a.c"));
    ASSERT(allows("**/test_*.py", NULL, "test_a.py"));
    ASSERT(allows("**/test_*.py", NULL, "a/b/test_a.py"));
    ASSERT(allows("drivers/**", NULL, "drivers/net/x.c"));
    ASSERT(!allows("drivers/**", NULL, "drivers"));
}

TEST(glob_directory_matches_contents)
{
    ASSERT(allows("drivers/net", NULL, "drivers/net/e1000/main.c"));
    ASSERT(!allows("drivers/net", NULL, "drivers/network.c"));
    ASSERT(allows("docs/", NULL, "docs/a.md"));
    ASSERT(!allows("docs/", NULL, "docs")); /* trailing slash: directories only */
    ASSERT(allows("node_modules", NULL, "web/node_modules/x/index.js"));
}

TEST(glob_classes_alternation_escapes)
{
    ASSERT(allows("*.[ch]", NULL, "a/b.h"));
    ASSERT(!allows("*.[ch]", NULL, "a/b.o"));
    ASSERT(allows("*.[!o]", NULL, "a/b.c"));
    ASSERT(!allows("*.[!o]", NULL, "a/b.o"));
    ASSERT(allows("*.{js,ts}", NULL, "web/app.ts"));
    ASSERT(allows("*.{js,ts}", NULL, "web/app.js"));
    ASSERT(!allows("*.{js,ts}", NULL, "web/app.tsx"));
    ASSERT(allows("src/{a,b{c,d}}/*.go", NULL, "src/bd/x.go"));
    ASSERT(allows("file\\*.txt", NULL, "file*.txt"));
    ASSERT(!allows("file\\*.txt", NULL, "fileX.txt"));
    ASSERT(allows("a?c", NULL, "abc"));
    ASSERT(!allows("a?c", NULL, "a/c"));
    /* regex metacharacters are plain characters in globs */
    ASSERT(allows("a+b(c).txt", NULL, "a+b(c).txt"));
    ASSERT(!allows("a.b", NULL, "axb"));
}

TEST(glob_excludes_and_negation)
{
    ASSERT(!allows("*.c", "test/**", "test/a.c"));
    ASSERT(allows("*.c", "test/**", "src/a.c"));
    ASSERT(!allows(NULL, "*.md", "README.md"));
    ASSERT(allows(NULL, "*.md", "main.c"));
    const char *inc[] = {"*.c", "!*_test.c"};
    struct mg_globset *g;
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_globset_new(inc, 2, NULL, 0, &g, &err), 0);
    ASSERT(mg_globset_allows(g, "a/b.c", 5));
    ASSERT(!mg_globset_allows(g, "a/b_test.c", 10));
    mg_globset_free(&g);
    ASSERT(g == NULL);
    /* no globs at all: everything */
    ASSERT_EQ_INT(mg_globset_new(NULL, 0, NULL, 0, &g, &err), 0);
    ASSERT(g == NULL && mg_globset_allows(g, "x", 1));
}

TEST(glob_errors)
{
    struct mg_globset *g;
    struct mg_err err = {0};
    const char *bad[] = {"src/[abc", "{a,b", "", "a{b{c{d{e{f{g{h{i{j}}}}}}}}}"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        mg_err_clear(&err);
        ASSERT_EQ_INT(mg_globset_new(&bad[i], 1, NULL, 0, &g, &err), -1);
        ASSERT_EQ_STR(err.code, MG_E_BAD_GLOB);
        ASSERT(g == NULL);
    }
    char long_glob[MG_GLOB_MAX_LEN + 10];
    memset(long_glob, 'a', sizeof(long_glob) - 1);
    long_glob[sizeof(long_glob) - 1] = 0;
    const char *lg = long_glob;
    ASSERT_EQ_INT(mg_globset_new(&lg, 1, NULL, 0, &g, &err), -1);
    ASSERT_CONTAINS(err.msg, "limit");
    const char *many[MG_GLOB_MAX_COUNT + 1];
    for (int i = 0; i <= MG_GLOB_MAX_COUNT; i++) many[i] = "*.c";
    ASSERT_EQ_INT(mg_globset_new(many, MG_GLOB_MAX_COUNT + 1, NULL, 0, &g, &err), -1);
    ASSERT_CONTAINS(err.msg, "too many globs");
}

TEST(glob_no_catastrophic_backtracking)
{
    /* many stars against a long near-miss must still answer promptly */
    const char *inc[] = {"*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b"};
    struct mg_globset *g;
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_globset_new(inc, 1, NULL, 0, &g, &err), 0);
    char path[4000];
    memset(path, 'a', sizeof(path) - 1);
    path[sizeof(path) - 1] = 0;
    ASSERT(!mg_globset_allows(g, path, strlen(path)));
    mg_globset_free(&g);
}
