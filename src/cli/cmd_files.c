/* cmd_files.c — `memgate files`: a repo's indexed files (the list_files tool). */
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

static const char *HELP =
    "usage: memgate files [--repo ID] [--glob G]... [--exclude G]... [--lang L]...\n"
    "                     [--limit N] [--cursor C] [--tenant T] [--json]\n"
    "\n"
    "The repo's indexed files, sorted by path, one per line: what search,\n"
    "outline and repo-map see (ignored, binary and secret files are not\n"
    "indexed). The same list as the list_files tool over MCP and\n"
    "GET /v1/files.\n"
    "\n"
    "options:\n"
    "  --repo ID       the repo (default: the repo whose root contains the current\n"
    "                  directory, else the only repo)\n"
    "  --glob G        only paths matching G (repeatable; src/**/*.c)\n"
    "  --exclude G     not paths matching G (repeatable)\n"
    "  --lang L        only files in language L (repeatable: c, go, python, ...)\n"
    "  --limit N       at most N files (default 200, at most 10000)\n"
    "  --cursor C      continue where an earlier call stopped (its next_cursor)\n"
    "  --tenant T      act as tenant T (default local)\n"
    "  --json          the list_files tool's result: {\"files\":[{repo,path,language,\n"
    "                  bytes,lines}],\"total\":N,\"truncated\":B,\"next_cursor\":C|null,\n"
    "                  \"scope\":{..}}\n"
    "  -h, --help      this help\n";

static void print_human(json_t *res)
{
    json_t *files = json_object_get(res, "files"), *f;
    size_t i;
    json_array_foreach(files, i, f) puts(json_string_value(json_object_get(f, "path")));
    long long total = json_integer_value(json_object_get(res, "total"));
    const char *next = json_string_value(json_object_get(res, "next_cursor"));
    fprintf(stderr, "%lld file%s", total, total == 1 ? "" : "s");
    if (next) fprintf(stderr, "; %zu shown, --cursor %s for the next", json_array_size(files), next);
    fputc('\n', stderr);
}

static json_t *strv_json(const struct mg_strv *v)
{
    json_t *a = json_array();
    for (size_t i = 0; i < v->n; i++) json_array_append_new(a, json_string(v->v[i]));
    return a;
}

int mg_cmd_files(int argc, char **argv)
{
    static const struct option opts[] = {
        {"repo", required_argument, NULL, 'r'},   {"glob", required_argument, NULL, 'g'},
        {"exclude", required_argument, NULL, 'x'}, {"lang", required_argument, NULL, 'l'},
        {"limit", required_argument, NULL, 'n'},  {"cursor", required_argument, NULL, 'c'},
        {"tenant", required_argument, NULL, 'T'}, {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
    };
    struct mg_strv globs = {0}, excl = {0}, langs = {0};
    const char *repo = NULL, *cursor = NULL, *tenant = NULL;
    long limit = 0;
    bool json = false;
    int c, rc = 2;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "hj", opts, NULL)) != -1) {
        switch (c) {
        case 'r': repo = optarg; break;
        case 'g': mg_strv_push(&globs, optarg); break;
        case 'x': mg_strv_push(&excl, optarg); break;
        case 'l': mg_strv_push(&langs, optarg); break;
        case 'c': cursor = optarg; break; /* the tool checks it */
        case 'T': tenant = optarg; break;
        case 'n': {
            char *end;
            limit = strtol(optarg, &end, 10);
            if (*end || end == optarg || limit < 1 || limit > INT_MAX) {
                rc = mg_cli_usage("files", "--limit wants a positive number, got '%s'", optarg);
                goto out;
            }
            break;
        }
        case 'j': json = true; break;
        case 'h': fputs(HELP, stdout); rc = 0; goto out;
        default: rc = mg_cli_badopt("files", argc, argv, opts); goto out;
        }
    }
    if (optind != argc) {
        rc = mg_cli_usage("files", "unexpected argument '%s' (name the repo with --repo, filter with --glob)",
                          argv[optind]);
        goto out;
    }
    struct mg_config cfg;
    if ((rc = mg_cli_config(&cfg)) != 0) goto out;
    struct mg_err err = {0};
    json_t *args = json_object();
    if (repo) json_object_set_new(args, "repo", json_string(repo));
    if (cursor) json_object_set_new(args, "cursor", json_string(cursor));
    if (limit) json_object_set_new(args, "limit", json_integer(limit));
    if (globs.n) json_object_set_new(args, "globs", strv_json(&globs));
    if (excl.n) json_object_set_new(args, "exclude_globs", strv_json(&excl));
    if (langs.n) json_object_set_new(args, "languages", strv_json(&langs));
    struct mg_cli_req q;
    if (mg_cli_begin(&q, &cfg, tenant, "list_files", false, &err) != 0) {
        json_decref(args);
        rc = mg_cli_fail(&err);
        goto out;
    }
    json_t *res = NULL;
    if (mg_cli_tool(&q, "list_files", args, &res, &err) != 0) {
        rc = mg_cli_fail(&err);
    } else {
        if (json) mg_cli_print_json(res);
        else print_human(res);
        rc = 0;
    }
    json_decref(res);
    mg_cli_end(&q);
out:
    mg_strv_release(&globs);
    mg_strv_release(&excl);
    mg_strv_release(&langs);
    return rc;
}
