/* test_cli_setup.c — `memgate setup` merges memgate into the MCP client
 * files of Claude Code, Cursor and Codex (fixtures in tests/clients, in each
 * client's documented format), keeping the rest, with a backup, idempotently. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"

/* A HOME with the client's fixture at rel (NULL: none). */
static char *home_with(const char *fixture, const char *rel)
{
    char *home = mg_t_tmpdir();
    if (fixture) {
        char *text = mg_t_read("tests/clients", fixture);
        mg_t_write(home, rel, text, strlen(text));
        free(text);
    }
    return home;
}

static struct mg_t_out setup_in(const char *home, const char *const argv[])
{
    char *old = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    setenv("HOME", home, 1);
    unsetenv("CODEX_HOME");
    struct mg_t_out o = mg_t_run(home, home, argv);
    if (old) setenv("HOME", old, 1);
    free(old);
    return o;
}

static int backups(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) n += strstr(e->d_name, ".memgate-") != NULL;
    if (d) closedir(d);
    return n;
}

static int count(const char *s, const char *what)
{
    int n = 0;
    for (const char *p = s; (p = strstr(p, what)); p += strlen(what)) n++;
    return n;
}

TEST(setup_claude_code_merges_and_keeps_the_rest)
{
    char *home = home_with("claude.json", ".claude.json");
    char path[4200];
    snprintf(path, sizeof(path), "%s/.claude.json", home);
    chmod(path, 0640);
    char *before = mg_t_read(home, ".claude.json");
    const char *argv[] = {"setup", "--client", "claude-code", "--json", NULL};
    struct mg_t_out o = setup_in(home, argv);
    ASSERT_EQ_INT(o.status, 0);
    json_t *r = mg_t_json(o.out);
    ASSERT_EQ_STR(json_string_value(json_object_get(r, "action")), "updated");
    const char *backup = json_string_value(json_object_get(r, "backup"));
    ASSERT(backup);
    char *saved = mg_t_read("/", backup);
    ASSERT_EQ_STR(saved, before); /* the backup is the old file */
    char *after_text = mg_t_read(home, ".claude.json");
    json_t *after = mg_t_json(after_text);
    json_t *orig = mg_t_json(before);
    /* every other key as it was, in order; the other servers kept */
    const char *k;
    json_t *v;
    json_object_foreach(orig, k, v) if (strcmp(k, "mcpServers") != 0) ASSERT(json_equal(v, json_object_get(after, k)));
    ASSERT_EQ_STR(json_object_iter_key(json_object_iter(after)), "numStartups");
    json_t *servers = json_object_get(after, "mcpServers");
    ASSERT(json_equal(json_object_get(servers, "github"), json_object_get(json_object_get(orig, "mcpServers"), "github")));
    json_t *mine = json_object_get(servers, "memgate");
    ASSERT_EQ_STR(json_string_value(json_object_get(mine, "type")), "stdio");
    ASSERT_EQ_STR(json_string_value(json_array_get(json_object_get(mine, "args"), 0)), "mcp");
    ASSERT(strstr(json_string_value(json_object_get(mine, "command")), "memgate"));
    /* the data directory is passed on: the client sees the same data */
    ASSERT_EQ_STR(json_string_value(json_object_get(json_object_get(mine, "env"), "MEMGATE_HOME")), home);
    struct stat st;
    ASSERT(stat(path, &st) == 0 && (st.st_mode & 0777) == 0640); /* the mode kept */
    ASSERT_EQ_INT(backups(home), 1);

    /* again: nothing to do, nothing written, no second backup */
    char *first = mg_t_read(home, ".claude.json");
    mg_t_out_free(&o);
    o = setup_in(home, argv);
    ASSERT_EQ_INT(o.status, 0);
    ASSERT_CONTAINS(o.out, "\"action\":\"unchanged\"");
    char *second = mg_t_read(home, ".claude.json");
    ASSERT_EQ_STR(second, first);
    ASSERT_EQ_INT(backups(home), 1);
    mg_t_out_free(&o);
    json_decref(r);
    json_decref(after);
    json_decref(orig);
    free(before);
    free(saved);
    free(after_text);
    free(first);
    free(second);
}

TEST(setup_http_token_in_user_scope_env_in_project_scope)
{
    char *home = home_with("cursor.json", ".cursor/mcp.json");
    mg_t_write(home, "tok", "mgt_sekrit_value_123\n", 21);
    const char *argv[] = {"setup", "--client", "cursor", "--http", "http://127.0.0.1:7090/mcp", "--token-file", "tok",
                          NULL};
    struct mg_t_out o = setup_in(home, argv);
    ASSERT_EQ_INT(o.status, 0);
    ASSERT(!strstr(o.out, "mgt_sekrit") && !strstr(o.err, "mgt_sekrit")); /* never printed */
    char *after_text = mg_t_read(home, ".cursor/mcp.json");
    json_t *after = mg_t_json(after_text);
    json_t *servers = json_object_get(after, "mcpServers");
    ASSERT(json_object_get(servers, "filesystem") && json_object_get(servers, "docs"));
    json_t *mine = json_object_get(servers, "memgate");
    ASSERT_EQ_STR(json_string_value(json_object_get(mine, "url")), "http://127.0.0.1:7090/mcp");
    ASSERT(!json_object_get(mine, "type")); /* Cursor infers the transport from url */
    ASSERT_EQ_STR(json_string_value(json_object_get(json_object_get(mine, "headers"), "Authorization")),
                  "Bearer mgt_sekrit_value_123");
    mg_t_out_free(&o);
    json_decref(after);
    free(after_text);

    /* project scope: a file that may be committed names the variable, never the token */
    const char *proj[] = {"setup", "--client", "claude-code", "--scope", "project", "--http", "http://h:1/mcp",
                          "--token-file", "tok", NULL};
    o = setup_in(home, proj);
    ASSERT_EQ_INT(o.status, 0);
    char *mcp = mg_t_read(home, ".mcp.json");
    ASSERT(!strstr(mcp, "mgt_sekrit"));
    ASSERT_CONTAINS(mcp, "\"Authorization\": \"Bearer ${MEMGATE_TOKEN}\"");
    ASSERT_CONTAINS(mcp, "\"type\": \"http\"");
    ASSERT_CONTAINS(o.out, "MEMGATE_TOKEN");
    mg_t_out_free(&o);
    free(mcp);

    /* --dry-run prints the entry with the token hidden and writes nothing */
    const char *dry[] = {"setup", "--client", "codex", "--http", "http://h:1/mcp", "--token-file", "tok", "--dry-run",
                         NULL};
    o = setup_in(home, dry);
    ASSERT_EQ_INT(o.status, 0);
    ASSERT_CONTAINS(o.out, "Authorization = \"Bearer <token>\"");
    ASSERT(!strstr(o.out, "mgt_sekrit"));
    ASSERT(access(".codex/config.toml", F_OK) != 0);
    char p[4200];
    snprintf(p, sizeof(p), "%s/.codex/config.toml", home);
    ASSERT(access(p, F_OK) != 0);
    mg_t_out_free(&o);
}

TEST(setup_codex_replaces_its_tables_and_keeps_every_other_line)
{
    char *home = home_with("codex.toml", ".codex/config.toml");
    char *before = mg_t_read(home, ".codex/config.toml");
    const char *argv[] = {"setup", "--client", "codex", NULL};
    struct mg_t_out o = setup_in(home, argv);
    ASSERT_EQ_INT(o.status, 0);
    char *after = mg_t_read(home, ".codex/config.toml");
    /* the old entry and its env subtable are gone, replaced where they stood */
    ASSERT(!strstr(after, "/opt/old/memgate") && !strstr(after, "[mcp_servers.memgate.env]") &&
           !strstr(after, "/old/home"));
    const char *mine = strstr(after, "[mcp_servers.memgate]\ncommand = \"");
    ASSERT(mine);
    ASSERT(mine > strstr(after, "[mcp_servers.docs]") && mine < strstr(after, "[mcp_servers.figma]"));
    ASSERT_CONTAINS(mine, "args = [\"mcp\"]\nenv = { MEMGATE_HOME = \"");
    /* everything else byte for byte: the text before the old entry's comment... */
    const char *cut = strstr(before, "# an older memgate entry");
    ASSERT(strncmp(after, before, (size_t)(cut - before)) == 0);
    /* ...and from the next table to the end, multi-line string included */
    ASSERT_CONTAINS(after, strstr(before, "[mcp_servers.figma]"));
    ASSERT_EQ_INT(backups(home), 0); /* the backup is beside the file */
    char codex_dir[4200];
    snprintf(codex_dir, sizeof(codex_dir), "%s/.codex", home);
    ASSERT_EQ_INT(backups(codex_dir), 1);

    /* again: unchanged, byte for byte */
    mg_t_out_free(&o);
    o = setup_in(home, argv);
    ASSERT_EQ_INT(o.status, 0);
    ASSERT_CONTAINS(o.out, "unchanged");
    char *again = mg_t_read(home, ".codex/config.toml");
    ASSERT_EQ_STR(again, after);
    mg_t_out_free(&o);

    /* to HTTP and back: one entry each time */
    const char *http[] = {"setup", "--client", "codex", "--http", "http://127.0.0.1:7090/mcp", NULL};
    o = setup_in(home, http);
    ASSERT_EQ_INT(o.status, 0);
    char *h = mg_t_read(home, ".codex/config.toml");
    ASSERT_CONTAINS(h, "[mcp_servers.memgate]\nurl = \"http://127.0.0.1:7090/mcp\"\n");
    /* (the figma entry's multi-line string holds the header's text too: not a table) */
    ASSERT_EQ_INT(count(h, "[mcp_servers.memgate]"), 2);
    ASSERT_EQ_INT(count(h, "[mcp_servers.memgate]\nurl = "), 1);
    ASSERT_EQ_INT(count(h, "args = [\"mcp\"]"), 0); /* the stdio entry went */
    ASSERT_CONTAINS(h, strstr(before, "[mcp_servers.figma]"));
    mg_t_out_free(&o);
    free(before);
    free(after);
    free(again);
    free(h);
}

TEST(setup_refuses_what_it_cannot_merge_and_leaves_it)
{
    char *home = mg_t_tmpdir();
    mg_t_write(home, ".claude.json", "{\"mcpServers\": {\"a\": 1,}", 24);
    const char *argv[] = {"setup", "--client", "claude-code", NULL};
    struct mg_t_out o = setup_in(home, argv);
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.err, "error[client_config_invalid]");
    ASSERT_CONTAINS(o.err, "is not valid JSON");
    char *still = mg_t_read(home, ".claude.json");
    ASSERT_EQ_STR(still, "{\"mcpServers\": {\"a\": 1,}");
    ASSERT_EQ_INT(backups(home), 0);
    mg_t_out_free(&o);
    free(still);

    const char *inl = "[mcp_servers]\nmemgate = { command = \"x\" }\n";
    mg_t_write(home, ".codex/config.toml", inl, strlen(inl));
    const char *cx[] = {"setup", "--client", "codex", "--json", NULL};
    o = setup_in(home, cx);
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.out, "\"code\":\"client_config_invalid\"");
    char *t = mg_t_read(home, ".codex/config.toml");
    ASSERT_EQ_STR(t, inl);
    mg_t_out_free(&o);
    free(t);

    const char *bad[] = {"setup", "--client", "vim", NULL};
    o = setup_in(home, bad);
    ASSERT_EQ_INT(o.status, 2);
    ASSERT_CONTAINS(o.err, "unknown client 'vim'");
    mg_t_out_free(&o);
    const char *notty[] = {"setup", NULL};
    o = setup_in(home, notty);
    ASSERT_EQ_INT(o.status, 2); /* no terminal: it cannot ask */
    ASSERT_CONTAINS(o.err, "--client");
    mg_t_out_free(&o);
}

TEST(setup_asks_on_a_terminal)
{
    char *home = mg_t_tmpdir();
    const char *bin = getenv("MEMGATE_BIN") ? getenv("MEMGATE_BIN") : "build/memgate";
    /* a pty (python's pty module) answers the three questions */
    const char *py = "import os, pty, select, sys, time\n"
                     "pid, fd = pty.fork()\n"
                     "if pid == 0:\n"
                     "    os.execv(sys.argv[1], ['memgate', 'setup'])\n"
                     "out = b''\n"
                     "for answer in [b'codex\\n', b'http://127.0.0.1:7090/mcp\\n', b'\\n', None]:\n"
                     "    end = time.time() + 10\n"
                     "    while time.time() < end and not out.rstrip().endswith(b':'):\n"
                     "        r, _, _ = select.select([fd], [], [], 0.1)\n"
                     "        if r:\n"
                     "            try: out += os.read(fd, 4096)\n"
                     "            except OSError: break\n"
                     "    if answer is None: break\n"
                     "    os.write(fd, answer); out = b''\n"
                     "os.waitpid(pid, 0)\n";
    mg_t_write(home, "ask.py", py, strlen(py));
    char real[4096];
    ASSERT(realpath(bin, real));
    mg_t_sh(home, "HOME='%s' python3 ask.py '%s' > ask.out 2>&1", home, real);
    char *toml = mg_t_read(home, ".codex/config.toml");
    ASSERT_EQ_STR(toml, "[mcp_servers.memgate]\nurl = \"http://127.0.0.1:7090/mcp\"\n");
    free(toml);
}
