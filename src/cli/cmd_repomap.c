/* cmd_repomap.c — `memgate repo-map`: the repo_map tool from the command
 * line. */
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

static const char *HELP =
    "usage: memgate repo-map [--budget N] [--focus PATH] [--symbol NAME] [--repo ID] [--json]\n"
    "\n"
    "The repo's most central files and, under each, its most used definitions\n"
    "(line and first line), ranked by PageRank over which files use names other\n"
    "files define, cut to about N tokens (4 bytes each). --focus and --symbol\n"
    "rank what relates to those files and names first. From the index: run\n"
    "`memgate index` first.\n"
    "\n"
    "options:\n"
    "  --budget N      what the map may cost in tokens, counted from above (default 1024; 64 to 65536)\n"
    "  --focus PATH    a file you work on, relative to the repo root (repeatable)\n"
    "  --symbol NAME   a name you work on (repeatable)\n"
    "  --repo ID       the repo (default: the repo whose root contains the current\n"
    "                  directory, else the only repo)\n"
    "  --glob G        only paths matching G (repeatable); --exclude G leaves them out\n"
    "  --lang L        only files of language L (repeatable)\n"
    "  --tenant T      act as tenant T (default local)\n"
    "  --json          the tool's result (docs/mcp.md)\n"
    "  -h, --help      this help\n";

int mg_cmd_repomap(int argc, char **argv)
{
    static const struct option opts[] = {
        {"repo", required_argument, NULL, 'r'},   {"budget", required_argument, NULL, 'b'},
        {"focus", required_argument, NULL, 'f'},  {"symbol", required_argument, NULL, 's'},
        {"glob", required_argument, NULL, 'g'},   {"exclude", required_argument, NULL, 'x'},
        {"lang", required_argument, NULL, 'l'},   {"tenant", required_argument, NULL, 'T'},
        {"json", no_argument, NULL, 'j'},         {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *repo = NULL, *tenant = NULL;
    long budget = 0;
    bool json = false;
    json_t *globs = json_array(), *excl = json_array(), *langs = json_array(), *focus = json_array(),
           *syms = json_array();
    int c, rc;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "hj", opts, NULL)) != -1) {
        switch (c) {
        case 'r': repo = optarg; break;
        case 'T': tenant = optarg; break;
        case 'g': json_array_append_new(globs, json_string(optarg)); break;
        case 'x': json_array_append_new(excl, json_string(optarg)); break;
        case 'l': json_array_append_new(langs, json_string(optarg)); break;
        case 'f': json_array_append_new(focus, json_string(optarg)); break;
        case 's': json_array_append_new(syms, json_string(optarg)); break;
        case 'b': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || end == optarg || v < 1 || v > INT_MAX) {
                rc = mg_cli_usage("repo-map", "--budget wants a positive number, got '%s'", optarg);
                goto out;
            }
            budget = v;
            break;
        }
        case 'j': json = true; break;
        case 'h': fputs(HELP, stdout); rc = 0; goto out;
        default: rc = mg_cli_badopt("repo-map", argc, argv, opts); goto out;
        }
    }
    if (argc != optind) {
        rc = mg_cli_usage("repo-map", "unexpected argument '%s' (focus files go after --focus)", argv[optind]);
        goto out;
    }
    struct mg_config cfg;
    if ((rc = mg_cli_config(&cfg)) != 0) goto out;
    struct mg_err err = {0};
    json_t *args = json_object();
    if (repo) json_object_set_new(args, "repo", json_string(repo));
    if (budget) json_object_set_new(args, "budget_tokens", json_integer(budget));
    if (json_array_size(focus)) json_object_set(args, "focus_files", focus);
    if (json_array_size(syms)) json_object_set(args, "focus_symbols", syms);
    if (json_array_size(globs)) json_object_set(args, "globs", globs);
    if (json_array_size(excl)) json_object_set(args, "exclude_globs", excl);
    if (json_array_size(langs)) json_object_set(args, "languages", langs);
    struct mg_cli_req q;
    if (mg_cli_begin(&q, &cfg, tenant, "repo_map", false, &err) != 0) {
        json_decref(args);
        rc = mg_cli_fail(&err);
        goto out;
    }
    json_t *res = NULL;
    if (mg_cli_tool(&q, "repo_map", args, &res, &err) != 0) {
        rc = mg_cli_fail(&err);
    } else {
        if (json) {
            mg_cli_print_json(res);
        } else {
            fputs(json_string_value(json_object_get(res, "map")), stdout);
            fprintf(stderr, "%zu file%s of %lld in scope; about %lld of %lld tokens%s\n",
                    json_array_size(json_object_get(res, "files")),
                    json_array_size(json_object_get(res, "files")) == 1 ? "" : "s",
                    (long long)json_integer_value(json_object_get(res, "considered")),
                    (long long)json_integer_value(json_object_get(res, "tokens")),
                    (long long)json_integer_value(json_object_get(res, "budget_tokens")),
                    json_is_true(json_object_get(res, "truncated")) ? " (more with a larger --budget)" : "");
        }
        rc = 0;
    }
    json_decref(res);
    mg_cli_end(&q);
out:
    json_decref(globs);
    json_decref(excl);
    json_decref(langs);
    json_decref(focus);
    json_decref(syms);
    return rc;
}
