/* cli.h — the `memgate` command line.
 *
 * Each command is a function `int mg_cmd_<name>(argc, argv)` (argv[0] is the
 * command name) returning the process exit status: 0 success, 1 failure
 * (an error[code] line was printed), 2 usage error. Every command answers
 * --help. docs/cli.md documents them; keep the two in step. How a command
 * reports errors and prints JSON: cli/output.h (included here).
 */
#ifndef MG_CLI_H
#define MG_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "cli/output.h"
#include "cli/version.h"
#include "request/ctx.h"
#include "util/config.h"
#include "util/err.h"

int mg_cli_main(int argc, char **argv);

int mg_cmd_index(int argc, char **argv);
int mg_cmd_search(int argc, char **argv);
int mg_cmd_files(int argc, char **argv);
int mg_cmd_outline(int argc, char **argv);
int mg_cmd_repomap(int argc, char **argv);
int mg_cmd_refs(int argc, char **argv);
int mg_cmd_callers(int argc, char **argv);
int mg_cmd_callees(int argc, char **argv);
int mg_cmd_trace(int argc, char **argv);
int mg_cmd_impact(int argc, char **argv);
int mg_cmd_repos(int argc, char **argv);
int mg_cmd_status(int argc, char **argv);
int mg_cmd_scan(int argc, char **argv);
int mg_cmd_mcp(int argc, char **argv);
int mg_cmd_serve(int argc, char **argv);
int mg_cmd_notes(int argc, char **argv);
int mg_cmd_projects(int argc, char **argv);
int mg_cmd_recall(int argc, char **argv);
int mg_cmd_token(int argc, char **argv);
int mg_cmd_webhook(int argc, char **argv);
int mg_cmd_audit(int argc, char **argv);
int mg_cmd_setup(int argc, char **argv);
/* (--version / -V: mg_cmd_version, cli/version.h) */

/* ---- shared helpers (cli.c) ---- */

/* Load the configuration or print the error; 0 or exit status 1. */
int mg_cli_config(struct mg_config *c);
/* The options of a command that takes only --json, --tenant T and --help
 * (repos, status): -1 to go on (optind at the first operand), else the exit
 * status to return (the help printed, or a usage error). */
int mg_cli_json_tenant_opts(const char *cmd, const char *help, int argc, char **argv, bool *json, const char **tenant);
/* One command's request (request/ctx.h): the process's server (providers,
 * audit, sessions without expiry) and a request context acting as `tenant`
 * (NULL: local) at admin level, in the current directory. `progress`: the
 * command does long work (indexing): a progress line on stderr when it is a
 * terminal, and SIGINT or SIGTERM set srv.stopping so the work stops at its
 * next step, keeping what is done. The command runs tools (mg_cli_tool) or
 * gate operations in the request; mg_cli_end releases it. */
struct mg_cli_req {
    struct mg_server srv;
    struct mg_ctx x;
    struct mg_channel ch;
    bool progress, drawn;
};
int mg_cli_begin(struct mg_cli_req *q, const struct mg_config *cfg, const char *tenant, const char *op, bool progress,
                 struct mg_err *err);
void mg_cli_end(struct mg_cli_req *q);
/* Run the tool `name` in q's request with args (taken): 0 and *result, or
 * -1 with err (its audit event is written either way). */
int mg_cli_tool(struct mg_cli_req *q, const char *name, json_t *args, json_t **result, struct mg_err *err);
/* err, a failure of the tool `name` (NULL: any), in the command line's
 * words: its arguments as the flags that fill them, other tools as the
 * commands that do the same (words.c). mg_cli_tool does it. */
void mg_cli_words(const char *name, struct mg_err *err);
/* A growable list of strings for repeatable flags (--glob, --lang, ...). */
struct mg_strv {
    const char **v;
    size_t n, cap;
};
int mg_strv_push(struct mg_strv *s, const char *x);
void mg_strv_release(struct mg_strv *s);
/* "1.2 MB" style, into buf. */
const char *mg_human_bytes(double bytes, char *buf, size_t cap);

#endif
