/* words.c — a tool's error in the command line's words (cli.h).
 *
 * The tools' messages name what an MCP client or /v1 caller sends: an
 * argument ('budget_tokens', `fixed`), another tool (list_files), the MCP
 * way to state a workspace. A command runs the same tools, so before it
 * prints one of their errors it says them as its own flags and commands:
 * each argument the command fills from a flag, in quotes or backticks, as
 * that flag; each tool name (one with an underscore: `outline` is a word
 * too) a command runs, as that command; the MCP ways
 * of naming a repo, as the command line's. Whole words only: `fixed` turns
 * into the flag, `fixed_strings` or "fixed," in a sentence does not. */
#include "cli/cli.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "util/err.h"

/* An argument a command fills from a flag, quoted ('x' or `x`) in a
 * message: tool NULL for every tool. */
static const struct {
    const char *tool, *arg, *flag;
} args[] = {
    {NULL, "repo", "--repo"},
    {NULL, "repo_id", "--repo"},
    {NULL, "globs", "--glob"},
    {NULL, "exclude_globs", "--exclude"},
    {NULL, "languages", "--lang"},
    {NULL, "cursor", "--cursor"},
    {NULL, "limit", "--limit"},
    {"search_code", "query", "QUERY"},
    {"search_code", "fixed", "-F (--fixed-strings)"},
    {"search_code", "ignore_case", "-i (--ignore-case)"},
    {"search_code", "mode", "--mode"},
    {"repo_map", "budget_tokens", "--budget"},
    {"repo_map", "focus_files", "--focus"},
    {"repo_map", "focus_symbols", "--symbol"},
    {"outline", "path", "PATH"},
    {"find_references", "symbol", "SYMBOL"},
    {"callers", "symbol", "SYMBOL"},
    {"callees", "symbol", "SYMBOL"},
    {"trace_path", "symbol", "FROM"},
    {"trace_path", "to", "TO"},
    {NULL, "depth", "--depth"},
    {"impact", "diff", "--diff"},
    {"impact", "paths", "--path"},
    {"impact", "revisions", "REVISIONS"},
    {"index_repo", "path", "PATH"},
    {"index_repo", "name", "--name"},
    {NULL, "session_id", "--session"},
    {"search_notes", "query", "--search"},
    {"list_notes", "prefix", "--prefix"},
    {"recall", "query", "QUERY"},
};

/* Tools named in messages, and the command that does the same. */
static const struct {
    const char *tool, *command;
} tools[] = {
    {"list_files", "`memgate files`"},
    {"index_repo", "`memgate index PATH`"},
    {"list_repos", "`memgate repos`"},
    {"index_status", "`memgate status`"},
    {"get_repo_settings", "`memgate repos settings`"},
    {"set_repo_settings", "`memgate repos settings`"},
    {"search_code", "`memgate search`"},
    {"search_symbols", "`memgate search --mode symbol`"},
    {"repo_map", "`memgate repo-map`"},
    {"find_references", "`memgate refs`"},
    {"trace_path", "`memgate trace`"},
    {"list_notes", "`memgate notes list`"},
    {"list_projects", "`memgate projects`"},
};

/* Phrases only an MCP client can act on, as the command line says them. */
static const struct {
    const char *mcp, *cli;
} phrases[] = {
    {"this session is bound to none; pass `repo` with one of these ids, or state the workspace root (MCP roots; on "
     "2026-07-28 _meta[\"memgate/root\"])",
     "the current directory is in none of them; pass --repo with one of these ids, or run the command inside one"},
    {"call index_repo with the repo's path (or run `memgate index PATH`)", "run `memgate index PATH`"},
};

static bool word_char(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

/* Replace in msg (cap bytes) every occurrence of from that stands alone
 * (quoted: with its quotes; bare: between non-word characters) by to. */
static void replace(char *msg, size_t cap, const char *from, const char *to, bool bare)
{
    size_t fl = strlen(from), tl = strlen(to);
    for (char *p = msg; (p = strstr(p, from)) != NULL;) {
        if (bare && ((p > msg && word_char(p[-1])) || word_char(p[fl]))) {
            p += fl;
            continue;
        }
        size_t rest = strlen(p + fl);
        if ((size_t)(p - msg) + tl + rest + 1 > cap) return; /* no room: leave the rest as it is */
        memmove(p + tl, p + fl, rest + 1);
        memcpy(p, to, tl);
        p += tl;
    }
}

void mg_cli_words(const char *tool, struct mg_err *err)
{
    char *m = err->msg;
    size_t cap = sizeof(err->msg);
    for (size_t i = 0; i < sizeof(phrases) / sizeof(phrases[0]); i++) replace(m, cap, phrases[i].mcp, phrases[i].cli, false);
    for (size_t i = 0; i < sizeof(args) / sizeof(args[0]); i++) {
        if (args[i].tool && (!tool || strcmp(args[i].tool, tool) != 0)) continue;
        char q[64];
        snprintf(q, sizeof(q), "'%s'", args[i].arg);
        replace(m, cap, q, args[i].flag, false);
        snprintf(q, sizeof(q), "`%s`", args[i].arg);
        replace(m, cap, q, args[i].flag, false);
    }
    replace(m, cap, "argument --", "--", false); /* "argument 'limit' must..." reads "--limit must..." */
    for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) replace(m, cap, tools[i].tool, tools[i].command, true);
}
