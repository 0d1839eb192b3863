/* test_cli_errors.c — how commands fail: with --json anywhere on the command
 * line (before `--`), the error is one JSON line {"error":{"code","message"}}
 * on stdout and stderr stays silent, with the same exit status (1, or 2 for
 * usage errors, including those after --json); without it, error[code] on
 * stderr. Unknown options read the same in every command (mg_cli_badopt). */
#include "test.h"

/* The run failed with status and printed exactly one JSON error of code on stdout, nothing on stderr. */
static void expect_json_error(struct mg_t_out *o, int status, const char *code, const char *in_message)
{
    if (o->status != status) FAIL("exit %d, expected %d; stdout %s stderr %s", o->status, status, o->out, o->err);
    ASSERT_EQ_STR(o->err, "");
    const char *nl = strchr(o->out, '\n');
    if (!nl || nl[1]) FAIL("stdout is not one line: %s", o->out);
    json_t *j = mg_t_json(o->out);
    json_t *e = json_object_get(j, "error");
    ASSERT_EQ_INT(json_object_size(j), 1);
    ASSERT_EQ_STR(json_string_value(json_object_get(e, "code")), code);
    const char *msg = json_string_value(json_object_get(e, "message"));
    ASSERT(msg && *msg);
    if (in_message) ASSERT_CONTAINS(msg, in_message);
    json_decref(j);
    mg_t_out_free(o);
}

TEST(cli_json_errors_are_json)
{
    char *home = mg_t_tmpdir(), *repo = mg_t_tmpdir();
    mg_t_write_str(repo, "a.c", "int main(void) { return 0; }\n");
    /* usage errors after --json, and before it */
    struct mg_t_out o = MG_RUN(NULL, home, "search", "--json", "--bogus");
    expect_json_error(&o, 2, "usage", "unknown option '--bogus'");
    o = MG_RUN(NULL, home, "search", "--bogus", "x", "--json");
    expect_json_error(&o, 2, "usage", "unknown option '--bogus'");
    o = MG_RUN(NULL, home, "repos", "--json", "--bogus");
    expect_json_error(&o, 2, "usage", "unknown option '--bogus'");
    o = MG_RUN(NULL, home, "status", "--json", "--limit");
    expect_json_error(&o, 2, "usage", "--limit");
    o = MG_RUN(NULL, home, "index", "--json", "--threads", "0", repo);
    expect_json_error(&o, 2, "usage", "--threads");
    o = MG_RUN(NULL, home, "audit", "--json", "--bogus");
    expect_json_error(&o, 2, "usage", "unknown option '--bogus'");
    o = MG_RUN(NULL, home, "token", "--json", "frobnicate");
    expect_json_error(&o, 2, "usage", "unknown subcommand 'frobnicate'");
    o = MG_RUN(NULL, home, "recall", "--json", "--limit", "0", "--repo", "x");
    expect_json_error(&o, 2, "usage", "--limit");
    o = MG_RUN(NULL, home, "nosuchcommand", "--json");
    expect_json_error(&o, 2, "usage", "unknown command 'nosuchcommand'");
    o = MG_RUN(NULL, home, "--version", "--json", "--bogus");
    expect_json_error(&o, 2, "usage", "unknown argument '--bogus'");
    /* failures (exit 1) */
    o = MG_RUN(NULL, home, "search", "main", "--json");
    expect_json_error(&o, 1, "repo_not_found", NULL);
    o = MG_RUN(NULL, home, "index", "/nonexistent/dir", "--json");
    expect_json_error(&o, 1, "path_not_found", NULL);
    o = MG_RUN(NULL, home, "repos", "rm", "nosuch-1", "--json");
    expect_json_error(&o, 1, "repo_not_found", NULL);
    o = MG_RUN(NULL, home, "token", "revoke", "0123456789abcdef", "--json");
    expect_json_error(&o, 1, "token_not_found", NULL);
    o = MG_RUN(NULL, home, "recall", "anything", "--repo", "nosuch-1", "--json");
    expect_json_error(&o, 1, "repo_not_found", NULL);
    /* a bad environment, found before the command runs */
    setenv("MEMGATE_SEARCH_LIMT", "3", 1);
    o = MG_RUN(NULL, home, "status", "--json");
    expect_json_error(&o, 1, "invalid_config", "MEMGATE_SEARCH_LIMIT");
    unsetenv("MEMGATE_SEARCH_LIMT");
    /* after `--`, --json is an argument, not the flag */
    o = MG_RUN(NULL, home, "search", "--bogus", "--", "--json");
    ASSERT_EQ_INT(o.status, 2);
    ASSERT_EQ_STR(o.out, "");
    ASSERT_CONTAINS(o.err, "error[usage]: unknown option '--bogus'");
    mg_t_out_free(&o);
    /* without --json: error[code] on stderr, nothing on stdout */
    o = MG_RUN(NULL, home, "search", "main");
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_EQ_STR(o.out, "");
    ASSERT_CONTAINS(o.err, "error[repo_not_found]: ");
    mg_t_out_free(&o);
}

/* audit, token and mcp name a bad option as every other command does */
TEST(cli_unknown_options_read_the_same)
{
    char *home = mg_t_tmpdir();
    static const char *const cmds[] = {"audit", "token", "mcp", "search", "repos"};
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
        char want[128];
        struct mg_t_out o = MG_RUN(NULL, home, cmds[i], "--bogus");
        ASSERT_EQ_INT(o.status, 2);
        snprintf(want, sizeof(want), "error[usage]: unknown option '--bogus'; see `memgate %s --help`\n", cmds[i]);
        ASSERT_EQ_STR(o.err, want);
        mg_t_out_free(&o);
        /* a bad letter inside a group of short options is named, with the group */
        o = MG_RUN(NULL, home, cmds[i], "-Q7");
        ASSERT_EQ_INT(o.status, 2);
        snprintf(want, sizeof(want), "error[usage]: unknown option '-Q' in '-Q7'; see `memgate %s --help`\n", cmds[i]);
        ASSERT_EQ_STR(o.err, want);
        mg_t_out_free(&o);
    }
    static const char *const needs[][2] = {{"audit", "--limit"}, {"token", "--tenant"}, {"mcp", "--repo"}};
    for (size_t i = 0; i < sizeof(needs) / sizeof(needs[0]); i++) {
        char want[128];
        struct mg_t_out o = MG_RUN(NULL, home, needs[i][0], needs[i][1]);
        ASSERT_EQ_INT(o.status, 2);
        snprintf(want, sizeof(want), "error[usage]: option '%s' needs a value; see `memgate %s --help`\n", needs[i][1],
                 needs[i][0]);
        ASSERT_EQ_STR(o.err, want);
        mg_t_out_free(&o);
    }
}
