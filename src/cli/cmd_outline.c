/* cmd_outline.c — `memgate outline PATH`. */
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

static const char *HELP =
    "usage: memgate outline PATH [--repo ID] [--limit N] [--cursor C] [--tenant T] [--json]\n"
    "\n"
    "The definitions of one indexed file, by start line: functions, methods,\n"
    "classes, structs, types, macros, ... with their lines and a one-line\n"
    "signature (the definition's first line(s) up to its `{`). From the index:\n"
    "the version of the file that search sees.\n"
    "\n"
    "PATH is relative to the repo root; '..', absolute paths and secret files\n"
    "are refused.\n"
    "\n"
    "options:\n"
    "  --repo ID       the repo (default: the repo whose root contains the current\n"
    "                  directory, else the only repo)\n"
    "  --limit N       at most N definitions (default 200, at most 2000)\n"
    "  --cursor C      continue where an earlier call stopped (its next_cursor)\n"
    "  --tenant T      act as tenant T (default local)\n"
    "  --json          the outline tool's result: {\"repo\",\"path\",\"language\",\"bytes\",\n"
    "                  \"lines\",\"symbols\":[{name,kind,container?,start_line,end_line,\n"
    "                  signature}],\"total\":N,\"next_cursor\":C|null,\"gate\":{..}}\n"
    "  -h, --help      this help\n";

/* One line per definition: its lines, its kind, its signature (indented
 * when it has a container). */
static void print_human(json_t *res)
{
    json_t *defs = json_object_get(res, "symbols"), *d;
    size_t i;
    json_array_foreach(defs, i, d)
    {
        char lines[48];
        snprintf(lines, sizeof(lines), "%lld-%lld", (long long)json_integer_value(json_object_get(d, "start_line")),
                 (long long)json_integer_value(json_object_get(d, "end_line")));
        const char *sig = json_string_value(json_object_get(d, "signature"));
        printf("%12s  %-11s  %s%s", lines, json_string_value(json_object_get(d, "kind")),
               json_object_get(d, "container") ? "  " : "",
               sig && *sig ? sig : json_string_value(json_object_get(d, "name")));
        mg_cli_print_flags(d);
        putchar('\n');
    }
    long long total = json_integer_value(json_object_get(res, "total"));
    const char *next = json_string_value(json_object_get(res, "next_cursor"));
    fprintf(stderr, "%s [%s]: %lld definition%s", json_string_value(json_object_get(res, "path")),
            json_string_value(json_object_get(res, "language")), total, total == 1 ? "" : "s");
    if (next) fprintf(stderr, "; %zu shown, --cursor %s for the next", json_array_size(defs), next);
    fputc('\n', stderr);
}

int mg_cmd_outline(int argc, char **argv)
{
    static const struct option opts[] = {
        {"repo", required_argument, NULL, 'r'},   {"limit", required_argument, NULL, 'n'},
        {"cursor", required_argument, NULL, 'c'}, {"tenant", required_argument, NULL, 'T'},
        {"json", no_argument, NULL, 'j'},         {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *repo = NULL, *cursor = NULL, *tenant = NULL;
    long limit = 0;
    bool json = false;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "hj", opts, NULL)) != -1) {
        switch (c) {
        case 'r': repo = optarg; break;
        case 'c': cursor = optarg; break; /* the tool checks it */
        case 'T': tenant = optarg; break;
        case 'n': {
            char *end;
            limit = strtol(optarg, &end, 10);
            if (*end || end == optarg || limit < 1 || limit > INT_MAX)
                return mg_cli_usage("outline", "--limit wants a positive number, got '%s'", optarg);
            break;
        }
        case 'j': json = true; break;
        case 'h': fputs(HELP, stdout); return 0;
        default: return mg_cli_badopt("outline", argc, argv, opts);
        }
    }
    if (optind != argc - 1) return mg_cli_usage("outline", "give exactly one PATH");

    struct mg_config cfg;
    int rc;
    if ((rc = mg_cli_config(&cfg)) != 0) return rc;
    struct mg_err err = {0};
    json_t *pj = json_string(argv[optind]);
    if (!pj) {
        mg_err_set(&err, MG_E_BAD_ARG, "PATH is not valid UTF-8");
        return mg_cli_fail(&err);
    }
    json_t *args = json_pack("{s:o}", "path", pj);
    if (repo) json_object_set_new(args, "repo", json_string(repo));
    if (cursor) json_object_set_new(args, "cursor", json_string(cursor));
    if (limit) json_object_set_new(args, "limit", json_integer(limit));
    struct mg_cli_req q;
    if (mg_cli_begin(&q, &cfg, tenant, "outline", false, &err) != 0) {
        json_decref(args);
        return mg_cli_fail(&err);
    }
    json_t *res = NULL;
    if (mg_cli_tool(&q, "outline", args, &res, &err) != 0) {
        rc = mg_cli_fail(&err);
    } else {
        if (json) mg_cli_print_json(res);
        else print_human(res);
        rc = 0;
    }
    json_decref(res);
    mg_cli_end(&q);
    return rc;
}
