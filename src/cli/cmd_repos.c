/* cmd_repos.c — `memgate repos [--json]`, `memgate repos rm ID`. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "memory/memory.h"
#include "store/catalog.h"

static const char *HELP =
    "usage: memgate repos [--json]\n"
    "       memgate repos rm ID\n"
    "\n"
    "List the indexed repositories of the data directory (id, files, chunks,\n"
    "index size, last indexed, root), or remove one: `rm` deletes its index\n"
    "database; the repository itself is not touched.\n"
    "\n"
    "options:\n"
    "  --json      print [{\"id\",\"root\",\"fingerprint\",\"files\",\"chunks\",\"symbols\",\n"
    "              \"bytes\",\"db_bytes\",\"indexed_at\",\"created_at\"}]\n"
    "  -h, --help  this help\n";

json_t *mg_repo_json(const struct mg_repo *r);

json_t *mg_repo_json(const struct mg_repo *r)
{
    return json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "id", r->id, "root", r->root,
                     "fingerprint", r->fingerprint, "files", (json_int_t)r->files, "chunks", (json_int_t)r->chunks,
                     "symbols", (json_int_t)r->symbols, "bytes", (json_int_t)r->bytes, "db_bytes",
                     (json_int_t)r->db_bytes, "indexed_at", (json_int_t)r->indexed_at, "created_at",
                     (json_int_t)r->created_at);
}

int mg_cmd_repos(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    bool json = false;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "hj", opts, NULL)) != -1) {
        switch (c) {
        case 'j': json = true; break;
        case 'h': fputs(HELP, stdout); return 0;
        default: return mg_cli_usage("repos", "unknown option '%s'", argv[optind - 1]);
        }
    }
    struct mg_config cfg;
    int rc = mg_cli_config(&cfg);
    if (rc) return rc;
    struct mg_err err = {0};
    if (optind < argc) {
        if (strcmp(argv[optind], "rm") != 0)
            return mg_cli_usage("repos", "unknown subcommand '%s'", argv[optind]);
        if (optind + 2 != argc) return mg_cli_usage("repos", "`repos rm` takes exactly one repo ID");
        struct mg_repo gone;
        if (mg_catalog_get(&cfg, argv[optind + 1], &gone, &err) != 0) return mg_cli_fail(&err);
        if (mg_catalog_remove(&cfg, argv[optind + 1], &err) != 0) return mg_cli_fail(&err);
        /* its memory goes with it: a repo indexed later under the same id starts empty */
        if (mg_memory_forget_repo(&cfg, gone.tenant, gone.id, &err) != 0) return mg_cli_fail(&err);
        if (json) printf("{\"removed\":\"%s\"}\n", argv[optind + 1]);
        else printf("removed %s\n", argv[optind + 1]);
        return 0;
    }
    struct mg_repo *v;
    size_t n;
    if (mg_catalog_list(&cfg, &v, &n, &err) != 0) return mg_cli_fail(&err);
    if (json) {
        json_t *arr = json_array();
        for (size_t i = 0; i < n; i++) json_array_append_new(arr, mg_repo_json(&v[i]));
        char *s = json_dumps(arr, JSON_COMPACT);
        puts(s);
        free(s);
        json_decref(arr);
    } else if (n == 0) {
        fprintf(stderr, "no repos indexed in %s; run `memgate index PATH`\n", cfg.home);
    } else {
        printf("%-28s %9s %9s %10s  %-16s  %s\n", "ID", "FILES", "CHUNKS", "INDEX", "INDEXED", "ROOT");
        for (size_t i = 0; i < n; i++) {
            char size[32], when[32] = "never";
            if (v[i].indexed_at) {
                time_t t = (time_t)v[i].indexed_at;
                strftime(when, sizeof(when), "%Y-%m-%d %H:%M", localtime(&t));
            }
            printf("%-28s %9lld %9lld %10s  %-16s  %s\n", v[i].id, (long long)v[i].files, (long long)v[i].chunks,
                   mg_human_bytes((double)v[i].db_bytes, size, sizeof(size)), when, v[i].root);
        }
    }
    free(v);
    return 0;
}
