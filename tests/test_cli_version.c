/* test_cli_version.c — `memgate --version` / `-V`: version, build commit and
 * the linked libraries' versions, as text and as JSON. */
#include <ctype.h>

#include "test.h"
#include "util/version.h"

static void assert_commit(const char *c)
{
    ASSERT(c != NULL);
    if (strcmp(c, "unknown") == 0) return;
    ASSERT_GE_INT(strlen(c), 7);
    for (const char *p = c; *p; p++)
        if (!isxdigit((unsigned char)*p)) FAIL("commit \"%s\" is not hex", c);
}

TEST(version_flag_short_and_long)
{
    char *home = mg_t_tmpdir();
    struct mg_t_out a = MG_RUN(NULL, home, "-V");
    ASSERT_EQ_INT(a.status, 0);
    ASSERT_CONTAINS(a.out, "memgate " MG_VERSION " (commit ");
    ASSERT_CONTAINS(a.out, "sqlite");
    ASSERT_CONTAINS(a.out, "libgit2");
    ASSERT_CONTAINS(a.out, "libsodium");
    struct mg_t_out b = MG_RUN(NULL, home, "--version");
    ASSERT_EQ_INT(b.status, 0);
    ASSERT_EQ_STR(a.out, b.out);
    struct mg_t_out h = MG_RUN(NULL, home, "--help");
    ASSERT_CONTAINS(h.out, "--version");
    struct mg_t_out bad = MG_RUN(NULL, home, "--version", "--bogus");
    ASSERT_EQ_INT(bad.status, 2);
    ASSERT_CONTAINS(bad.err, "error[usage]");
    mg_t_out_free(&a);
    mg_t_out_free(&b);
    mg_t_out_free(&h);
    mg_t_out_free(&bad);
}

TEST(version_json_names_commit_and_libraries)
{
    char *home = mg_t_tmpdir();
    struct mg_t_out o = MG_RUN(NULL, home, "--version", "--json");
    ASSERT_EQ_INT(o.status, 0);
    json_t *j = mg_t_json(o.out);
    ASSERT_EQ_STR(json_string_value(json_object_get(j, "version")), MG_VERSION);
    assert_commit(json_string_value(json_object_get(j, "commit")));
    json_t *libs = json_object_get(j, "libraries");
    ASSERT(json_is_object(libs));
    const char *want[] = {"sqlite", "jansson", "libgit2", "vectorscan", "libsodium", "pcre2",
                          "libmicrohttpd", "zstd", "xxhash", "libcurl"};
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        const char *v = json_string_value(json_object_get(libs, want[i]));
        if (!v || !isdigit((unsigned char)v[0])) FAIL("libraries.%s = %s", want[i], v ? v : "(missing)");
    }
    /* the text form names the same commit */
    struct mg_t_out t = MG_RUN(NULL, home, "-V");
    char line[128];
    snprintf(line, sizeof(line), "(commit %s)", json_string_value(json_object_get(j, "commit")));
    ASSERT_CONTAINS(t.out, line);
    json_decref(j);
    mg_t_out_free(&o);
    mg_t_out_free(&t);
}

/* The conformance suite's fixtures live in a test program of their own
 * (build/memgate-conformance, tests/conformance/): the binary users run has
 * neither their flag nor their tools. */
TEST(shipped_binary_has_no_conformance_fixtures)
{
    char *home = mg_t_tmpdir();
    struct mg_t_out o = MG_RUN(NULL, home, "serve", "--conformance-fixtures");
    ASSERT_EQ_INT(o.status, 2);
    ASSERT_CONTAINS(o.err, "error[usage]");
    mg_t_out_free(&o);
    const char *bin = getenv("MEMGATE_BIN");
    ASSERT(bin != NULL);
    FILE *f = fopen(bin, "rb");
    ASSERT(f != NULL);
    static char buf[1 << 20];
    const char *needle = "test_simple_text"; /* a fixture tool's name */
    size_t n, keep = 0, found = 0;
    while ((n = fread(buf + keep, 1, sizeof(buf) - keep, f)) > 0) {
        size_t len = keep + n;
        if (memmem(buf, len, needle, strlen(needle))) found++;
        keep = strlen(needle) - 1; /* a name across two reads */
        memmove(buf, buf + len - keep, keep);
    }
    fclose(f);
    ASSERT_EQ_INT(found, 0);
}
