/* output.h — how a `memgate` command reports (output.c): errors, usage
 * errors and unknown options, as text on stderr or as JSON on stdout, and
 * the JSON it prints. Below cli.c and every command: it knows no command.
 */
#ifndef MG_CLI_OUTPUT_H
#define MG_CLI_OUTPUT_H

#include <stdbool.h>

#include <jansson.h>

#include "util/err.h"

/* Errors as {"error":{"code","message"}} lines on stdout (on) or as
 * "error[code]: message" on stderr (off, the default). cli.c turns it on
 * when the command line has --json before any `--` (every command but mcp,
 * whose stdout is the protocol's), before any option is parsed, so a usage
 * error after --json is JSON too. */
void mg_cli_json_errors(bool on);
/* Print err and return the exit status for it (2 for usage, else 1). With
 * --json on the command line (before `--`; every command but mcp) the error
 * is one line {"error":{"code","message"}} on stdout and stderr stays
 * silent; else "error[code]: message" on stderr (mg_cli_json_errors).
 * mg_cli_usage likewise. */
int mg_cli_fail(const struct mg_err *err);
/* Print "error[usage]: <msg>" and return 2. */
int mg_cli_usage_error(const char *msg);
/* Print "error[usage]: <msg>; see `memgate CMD --help`" and return 2. */
int mg_cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* After getopt_long returned '?' (opterr 0): mg_cli_usage naming the option as
 * given: "unknown option '--bogus'", "option '--repo' needs a value", or, for
 * a short option, "unknown option '-E' in '-EINVAL'" (not the argument before
 * it). opts is the table given to getopt_long. */
struct option;
int mg_cli_badopt(const char *cmd, int argc, char **argv, const struct option *opts);
/* Print a JSON value on stdout, compact, one line. */
void mg_cli_print_json(json_t *j);
/* "  {prompt_injection,truncated}" when the gated item has flags, else nothing. */
void mg_cli_print_flags(json_t *item);

#endif
