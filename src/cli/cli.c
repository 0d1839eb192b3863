/* cli.c — command dispatch and shared helpers (see cli.h). */
#include "cli/cli.h"

#include <getopt.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "security/common.h"
#include "security/secrets.h"
#include "tools/tools.h"
#include "util/version.h"

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *summary;
} commands[] = {
    {"index", mg_cmd_index, "index a repository (incremental)"},
    {"search", mg_cmd_search, "search indexed code: lexical, regex, symbol, semantic or hybrid"},
    {"files", mg_cmd_files, "list a repo's indexed files, by path (--glob, --lang to filter)"},
    {"outline", mg_cmd_outline, "list the definitions of one indexed file, with signatures"},
    {"refs", mg_cmd_refs, "every use of a name, grouped by file, with the definition it is in"},
    {"callers", mg_cmd_callers, "who calls a function (--depth for callers of callers)"},
    {"callees", mg_cmd_callees, "what a function calls, and where that is defined"},
    {"trace", mg_cmd_trace, "the shortest call paths from one function to another"},
    {"impact", mg_cmd_impact, "what a change touches: changed definitions and their callers, ranked"},
    {"repo-map", mg_cmd_repomap, "the repo's central files and definitions, ranked, in a token budget"},
    {"repos", mg_cmd_repos, "list indexed repositories, or remove one"},
    {"scan", mg_cmd_scan, "find secrets (keys, tokens, passwords) in files; exit 1 if any"},
    {"status", mg_cmd_status, "show the data directory, settings and index sizes"},
    {"mcp", mg_cmd_mcp, "serve MCP over stdio to one client"},
    {"serve", mg_cmd_serve, "serve MCP (Streamable HTTP) and the HTTP API"},
    {"setup", mg_cmd_setup, "add memgate to an MCP client's configuration (Claude Code, Codex, Cursor)"},
    {"token", mg_cmd_token, "create, list or revoke access tokens for the HTTP API"},
    {"webhook", mg_cmd_webhook, "set, rotate, list or remove a tenant's webhook secret"},
    {"audit", mg_cmd_audit, "show, follow or verify the audit log"},
    {"notes", mg_cmd_notes, "set, get, list or remove a repo's notes"},
    {"projects", mg_cmd_projects, "list, create, delete, join or leave memory projects"},
    {"recall", mg_cmd_recall, "search earlier episodes of a session's scope"},
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static bool wants_json(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) break;
        if (strcmp(argv[i], "--json") == 0) return true;
    }
    return false;
}

static void usage(FILE *f)
{
    fprintf(f, "memgate %s — code index and search for AI coding agents\n\n"
               "usage: memgate COMMAND [ARGS] [--help]\n\ncommands:\n", MG_VERSION);
    for (size_t i = 0; i < NCOMMANDS; i++) fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\noptions:\n"
               "  -V, --version   print the version, build commit and library versions (--json: as JSON)\n"
               "  -h, --help      this help; `memgate help COMMAND` is `memgate COMMAND --help`\n"
               "\nData directory: $MEMGATE_HOME, else $XDG_DATA_HOME/memgate, else ~/.local/share/memgate.\n"
               "Config file: $MEMGATE_CONFIG, else $MEMGATE_HOME/config, else ~/.config/memgate/config\n"
               "($XDG_CONFIG_HOME); cache: $MEMGATE_HOME/cache, else ~/.cache/memgate ($XDG_CACHE_HOME).\n"
               "With --json, errors are {\"error\":{\"code\",\"message\"}} lines on stdout.\n"
               "Run `memgate COMMAND --help` for a command's options; docs/cli.md has them all, and\n"
               "each command has a man page: man memgate-COMMAND.\n");
}

int mg_cli_main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        if (strcmp(cmd, "help") == 0 && argc > 2) {
            char *av[] = {argv[2], "--help", NULL};
            for (size_t i = 0; i < NCOMMANDS; i++)
                if (strcmp(commands[i].name, argv[2]) == 0) return commands[i].fn(2, av);
        }
        usage(stdout);
        return 0;
    }
    mg_cli_json_errors(strcmp(cmd, "mcp") != 0 && wants_json(argc - 1, argv + 1)); /* mcp: stdout is the protocol's */
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0 || strcmp(cmd, "version") == 0)
        return mg_cmd_version(argc - 1, argv + 1);
    for (size_t i = 0; i < NCOMMANDS; i++) {
        if (strcmp(commands[i].name, cmd) != 0) continue;
        struct mg_err err = {0};
        if (mg_config_check_env(&err) != 0) return mg_cli_fail(&err);
        return commands[i].fn(argc - 1, argv + 1);
    }
    char msg[256];
    snprintf(msg, sizeof(msg), "unknown command '%.128s'; run `memgate --help` for the list", cmd);
    return mg_cli_usage_error(msg);
}

int mg_cli_config(struct mg_config *c)
{
    struct mg_err err = {0};
    if (mg_config_load(c, &err) != 0) return mg_cli_fail(&err);
    mg_secrets_cache_dir(c); /* before anything compiles a database (the injection check may, on a thread) */
    return 0;
}

int mg_cli_json_tenant_opts(const char *cmd, const char *help, int argc, char **argv, bool *json, const char **tenant)
{
    static const struct option opts[] = {{"json", no_argument, NULL, 'j'},
                                         {"tenant", required_argument, NULL, 'T'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "hj", opts, NULL)) != -1) {
        switch (c) {
        case 'j': *json = true; break;
        case 'T': *tenant = optarg; break;
        case 'h': fputs(help, stdout); return 0;
        default: return mg_cli_badopt(cmd, argc, argv, opts);
        }
    }
    return -1;
}

int mg_strv_push(struct mg_strv *s, const char *x)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 4;
        const char **v = realloc(s->v, cap * sizeof(char *));
        if (!v) return -1;
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = x;
    return 0;
}

void mg_strv_release(struct mg_strv *s)
{
    free(s->v);
    memset(s, 0, sizeof(*s));
}

const char *mg_human_bytes(double b, char *buf, size_t cap)
{
    static const char *u[] = {"B", "KB", "MB", "GB", "TB"};
    int i = 0;
    while (b >= 1000 && i < 4) b /= 1000, i++;
    snprintf(buf, cap, i ? "%.1f %s" : "%.0f %s", b, u[i]);
    return buf;
}

/* ---- one command's request ---- */

static struct mg_server *active; /* for the signal handler */

static void on_signal(int sig)
{
    (void)sig;
    if (active) active->stopping = 1;
}

static void cli_progress(struct mg_channel *ch, double done, double total, const char *message)
{
    struct mg_cli_req *q = (struct mg_cli_req *)((char *)ch - offsetof(struct mg_cli_req, ch));
    if (!q->progress) return;
    fprintf(stderr, "\r\033[K  %s", message ? message : "");
    fflush(stderr);
    q->drawn = true;
}

int mg_cli_begin(struct mg_cli_req *q, const struct mg_config *cfg, const char *tenant, const char *op, bool progress,
                 struct mg_err *err)
{
    memset(q, 0, sizeof(*q));
    struct mg_principal who = mg_principal_local;
    if (tenant) {
        if (mg_tenant_check(tenant, err) != 0) return -1;
        snprintf(who.tenant, sizeof(who.tenant), "%s", tenant);
    }
    if (mg_server_open(&q->srv, cfg, MG_SERVER_NO_TTL, err) != 0) return -1;
    q->progress = progress && isatty(STDERR_FILENO);
    q->ch.progress = cli_progress;
    char cwd[PATH_MAX];
    struct mg_request_spec spec = {.srv = &q->srv, .who = &who, .cwd = getcwd(cwd, sizeof(cwd)) ? cwd : NULL,
                                   .channel = &q->ch, .op = op};
    if (mg_request_init(&q->x, &spec, err) != 0) {
        mg_server_close(&q->srv);
        return -1;
    }
    if (progress) { /* long work: Ctrl-C stops it at its next step, keeping what is done */
        active = &q->srv;
        struct sigaction sa = {0};
        sa.sa_handler = on_signal;
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
    }
    return 0;
}

void mg_cli_end(struct mg_cli_req *q)
{
    if (q->drawn) fputs("\r\033[K", stderr);
    if (active) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        active = NULL;
    }
    mg_request_release(&q->x);
    mg_server_close(&q->srv);
}

int mg_cli_tool(struct mg_cli_req *q, const char *name, json_t *args, json_t **result, struct mg_err *err)
{
    const struct mg_tool *t = mg_tool_find(name);
    int rc = t ? mg_tools_call(&q->x, t, args, result, err)
               : mg_err_set(err, MG_E_INTERNAL, "tool '%s' is missing from this build", name);
    json_decref(args);
    if (rc != 0) mg_cli_words(name, err);
    /* the shared catalog: this data directory's index is behind another daemon's run (docs/index.md) */
    json_t *r, *behind = rc == 0 ? json_object_get(*result, "index_stale_repos") : NULL;
    size_t i;
    json_array_foreach(behind, i, r)
    fprintf(stderr, "memgate: note: answered from this data directory's index of %s at generation %lld; the shared "
                    "catalog is at %lld (a `memgate serve` of this data directory catches up)\n",
            json_string_value(json_object_get(r, "repo")), (long long)json_integer_value(json_object_get(r, "generation")),
            (long long)json_integer_value(json_object_get(r, "catalog_generation")));
    return rc;
}
