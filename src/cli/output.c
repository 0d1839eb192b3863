/* output.c — how a command reports (see output.h): errors as text or JSON,
 * usage errors, unknown options, JSON values and an item's flags. */
#include "cli/output.h"

#include <ctype.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"

/* The command line asked for JSON (mg_cli_json_errors): errors are then
 * {"error":{"code","message"}} lines on stdout. */
static bool json_errors;

void mg_cli_json_errors(bool on)
{
    json_errors = on;
}

/* One error line: JSON on stdout under --json, else error[code] on stderr. */
static void print_error(const char *code, const char *msg)
{
    if (!json_errors) {
        fprintf(stderr, "error[%s]: %s\n", code, msg);
        return;
    }
    json_t *j = json_pack("{s:{s:s, s:o}}", "error", "code", code, "message", mg_json_text(msg));
    if (j) mg_cli_print_json(j);
    else printf("{\"error\":{\"code\":\"%s\",\"message\":\"out of memory\"}}\n", MG_E_NO_MEMORY);
    json_decref(j);
    fflush(stdout);
}

int mg_cli_fail(const struct mg_err *err)
{
    print_error(err->code ? err->code : MG_E_INTERNAL, err->msg);
    return err->code && strcmp(err->code, MG_E_USAGE) == 0 ? 2 : 1;
}

int mg_cli_usage_error(const char *msg)
{
    print_error(MG_E_USAGE, msg);
    return 2;
}

int mg_cli_usage(const char *cmd, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (n < 0) msg[0] = 0;
    size_t len = strlen(msg);
    snprintf(msg + len, sizeof(msg) - len, "; see `memgate %s --help`", cmd);
    return mg_cli_usage_error(msg);
}

int mg_cli_badopt(const char *cmd, int argc, char **argv, const struct option *opts)
{
    const char *prev = optind > 0 && optind - 1 < argc ? argv[optind - 1] : "";
    if (optopt == 0) return mg_cli_usage(cmd, "unknown option '%s'", prev); /* a long one */
    if (strncmp(prev, "--", 2) == 0) {
        /* a long option without its value: optopt is its val */
        size_t n = strcspn(prev + 2, "=");
        for (const struct option *o = opts; o && o->name; o++)
            if (o->val == optopt && o->has_arg == required_argument && n > 0 && strncmp(o->name, prev + 2, n) == 0)
                return mg_cli_usage(cmd, "option '%s' needs a value", prev);
    }
    /* a short option: getopt stays on its argument until the last letter */
    const char *arg = prev;
    if (optind < argc && argv[optind][0] == '-' && argv[optind][1] != '-' && strchr(argv[optind] + 1, optopt))
        arg = argv[optind];
    if (isprint(optopt) && strlen(arg) > 2 && arg[0] == '-' && arg[1] != '-')
        return mg_cli_usage(cmd, "unknown option '-%c' in '%s'", optopt, arg);
    if (isprint(optopt)) return mg_cli_usage(cmd, "unknown option '-%c'", optopt);
    return mg_cli_usage(cmd, "unknown option '%s'", arg);
}

void mg_cli_print_json(json_t *j)
{
    char *s = json_dumps(j, MG_JSON_DUMP);
    if (s) puts(s);
    free(s);
}

void mg_cli_print_flags(json_t *item)
{
    json_t *fl = json_object_get(item, "flags"), *f;
    size_t i;
    json_array_foreach(fl, i, f) printf("%s%s", i ? "," : "  {", json_string_value(f));
    if (json_array_size(fl)) putchar('}');
}
