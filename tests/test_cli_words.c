/* test_cli_words.c — the command line speaks its own flags: an error of a
 * tool a command runs names the flag the user typed (--budget, -F), the
 * command that does what another tool does (`memgate files`), and --repo or
 * the directory for repo_required; never an MCP argument, a tool name or the
 * MCP ways of stating a workspace (src/cli/words.c). And `memgate files`
 * lists a repo's files as list_files does. */
#include <ctype.h>

#include "test.h"
#include "tools/tools.h"

/* name as a whole word (not inside a longer identifier) in text */
static int has_word(const char *text, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = text; (p = strstr(p, name)) != NULL; p += n) {
        int before = p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
        int after = isalnum((unsigned char)p[n]) || p[n] == '_';
        if (!before && !after) return 1;
    }
    return 0;
}

/* The run failed with code; its error line contains want and no MCP word. */
static void expect(struct mg_t_out o, const char *code, const char *want)
{
    char tag[128];
    snprintf(tag, sizeof(tag), "error[%s]: ", code);
    if (o.status == 0 || !strstr(o.err, tag)) FAIL("expected %s; exit %d, stderr %s", tag, o.status, o.err);
    ASSERT_CONTAINS(o.err, want);
    size_t n;
    const struct mg_tool *t = mg_tools(&n);
    for (size_t i = 0; i < n; i++)
        if (has_word(o.err, t[i].name) && strchr(t[i].name, '_'))
            FAIL("the command line's error names the tool %s: %s", t[i].name, o.err);
    static const char *const mcp[] = {"budget_tokens", "'fixed'", "`fixed`", "ignore_case", "exclude_globs",
                                      "focus_files", "focus_symbols", "'globs'", "'languages'", "`repo`",
                                      "'repo'", "MCP", "_meta", "session is bound", NULL};
    for (int i = 0; mcp[i]; i++)
        if (strstr(o.err, mcp[i])) FAIL("the command line's error says %s: %s", mcp[i], o.err);
    mg_t_out_free(&o);
}

TEST(cli_errors_speak_flags)
{
    char *home = mg_t_tmpdir(), *a = mg_t_tmpdir(), *b = mg_t_tmpdir(), *elsewhere = mg_t_tmpdir();
    mg_t_write_str(a, "src/alpha.c", "int alpha_words(void) { return 1; }\n");
    mg_t_write_str(b, "lib/beta.py", "def beta_words():\n    return 2\n");
    /* no repo yet: index_repo is `memgate index PATH` */
    expect(MG_RUN(elsewhere, home, "search", "alpha_words"), "repo_not_found", "run `memgate index PATH`");
    struct mg_t_out o = MG_RUN(a, home, "index", a, "--name", "alpha", "--quiet");
    ASSERT_EQ_INT(o.status, 0);
    mg_t_out_free(&o);
    o = MG_RUN(b, home, "index", b, "--name", "beta", "--quiet");
    ASSERT_EQ_INT(o.status, 0);
    mg_t_out_free(&o);
    /* two repos, outside both: --repo, or a directory inside one */
    expect(MG_RUN(elsewhere, home, "search", "alpha_words"), "repo_required", "pass --repo with one of these ids");
    expect(MG_RUN(elsewhere, home, "repo-map"), "repo_required", "run the command inside one");
    expect(MG_RUN(elsewhere, home, "files"), "repo_required", "--repo");
    /* a bad regex: -F, the flag that searches for the text as written */
    expect(MG_RUN(a, home, "search", "alpha(", "--mode", "regex"), "invalid_regex", "pass -F (--fixed-strings)");
    /* --budget out of range: the flag, not budget_tokens */
    expect(MG_RUN(a, home, "repo-map", "--budget", "10"), "invalid_argument", "--budget must be between");
    /* a file the index does not hold: `memgate files` lists them */
    expect(MG_RUN(a, home, "outline", "nope.c"), "file_not_found", "`memgate files` shows the files");
    expect(MG_RUN(a, home, "repo-map", "--focus", "nope.c"), "focus_not_found", "`memgate files` shows them");
    /* a bad glob names the glob, and no MCP argument */
    expect(MG_RUN(a, home, "files", "--glob", "src/["), "invalid_glob", "src/[");
}

TEST(cli_files_lists_the_repos_files)
{
    char *home = mg_t_tmpdir(), *a = mg_t_tmpdir();
    mg_t_write_str(a, "src/alpha.c", "int alpha(void) { return 1; }\n");
    mg_t_write_str(a, "src/beta.py", "def beta():\n    return 2\n");
    mg_t_write_str(a, "docs/readme.md", "# files\n");
    mg_t_write_str(a, ".env", "API_TOKEN=not_listed_because_secret\n");
    struct mg_t_out o = MG_RUN(a, home, "index", a, "--name", "alpha", "--quiet");
    ASSERT_EQ_INT(o.status, 0);
    mg_t_out_free(&o);
    /* every indexed file, by path, one a line; the count on stderr */
    o = MG_RUN(a, home, "files");
    ASSERT_EQ_INT(o.status, 0);
    ASSERT_EQ_STR(o.out, "docs/readme.md\nsrc/alpha.c\nsrc/beta.py\n");
    ASSERT_CONTAINS(o.err, "3 files");
    mg_t_out_free(&o);
    /* filters and pages, as list_files has them */
    o = MG_RUN(a, home, "files", "--lang", "python");
    ASSERT_EQ_STR(o.out, "src/beta.py\n");
    mg_t_out_free(&o);
    o = MG_RUN(a, home, "files", "--glob", "src/**", "--exclude", "**/*.py");
    ASSERT_EQ_STR(o.out, "src/alpha.c\n");
    mg_t_out_free(&o);
    o = MG_RUN(a, home, "files", "--limit", "2", "--json");
    ASSERT_EQ_INT(o.status, 0);
    json_t *j = mg_t_json(o.out);
    ASSERT_EQ_INT(json_array_size(json_object_get(j, "files")), 2);
    ASSERT_EQ_INT(json_integer_value(json_object_get(j, "total")), 3);
    const char *next = json_string_value(json_object_get(j, "next_cursor"));
    ASSERT(next != NULL);
    struct mg_t_out p = MG_RUN(a, home, "files", "--limit", "2", "--cursor", next);
    ASSERT_EQ_STR(p.out, "src/beta.py\n");
    mg_t_out_free(&p);
    json_decref(j);
    mg_t_out_free(&o);
    /* from outside the repo, by id; an operand is a usage error */
    char *elsewhere = mg_t_tmpdir();
    o = MG_RUN(elsewhere, home, "files", "--repo", "alpha", "--glob", "docs/*");
    ASSERT_EQ_STR(o.out, "docs/readme.md\n");
    mg_t_out_free(&o);
    o = MG_RUN(a, home, "files", "src");
    ASSERT_EQ_INT(o.status, 2);
    ASSERT_CONTAINS(o.err, "--glob");
    mg_t_out_free(&o);
}
