/* cmd_status.c — `memgate status`. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "store/catalog.h"
#include "util/version.h"

static const char *HELP =
    "usage: memgate status [--json]\n"
    "\n"
    "Show the version, the data directory, the settings in effect (defaults,\n"
    "config file, MEMGATE_* variables) and a summary of the indexed repos.\n"
    "\n"
    "options:\n"
    "  --json      print it as JSON\n"
    "  -h, --help  this help\n";

json_t *mg_repo_json(const struct mg_repo *r);

int mg_cmd_status(int argc, char **argv)
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
        default: return mg_cli_usage("status", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc) return mg_cli_usage("status", "unexpected argument '%s'", argv[optind]);
    struct mg_config cfg;
    int rc = mg_cli_config(&cfg);
    if (rc) return rc;
    struct mg_err err = {0};
    struct mg_repo *v;
    size_t n;
    if (mg_catalog_list(&cfg, &v, &n, &err) != 0) return mg_cli_fail(&err);
    long long files = 0, chunks = 0, symbols = 0, bytes = 0, dbb = 0;
    for (size_t i = 0; i < n; i++) {
        files += v[i].files;
        chunks += v[i].chunks;
        symbols += v[i].symbols;
        bytes += v[i].bytes;
        dbb += v[i].db_bytes;
    }
    const char *cfgfile = getenv("MEMGATE_CONFIG");
    char cfgpath[PATH_MAX + 16];
    if (!cfgfile || !*cfgfile) {
        snprintf(cfgpath, sizeof(cfgpath), "%s/config", cfg.home);
        cfgfile = cfgpath;
    }
    if (json) {
        json_t *repos = json_array();
        for (size_t i = 0; i < n; i++) json_array_append_new(repos, mg_repo_json(&v[i]));
        json_t *o = json_pack(
            "{s:s, s:s, s:s, s:{s:I, s:I, s:i, s:i, s:I, s:i, s:i}, s:o, s:{s:I, s:I, s:I, s:I, s:I, s:I}}",
            "version", MG_VERSION, "home", cfg.home, "config_file", cfgfile, "config", "max_file_size",
            (json_int_t)cfg.max_file_size, "max_query_bytes", (json_int_t)cfg.max_query_bytes, "index_threads",
            cfg.index_threads, "chunk_max_lines", cfg.chunk_max_lines, "chunk_max_bytes",
            (json_int_t)cfg.chunk_max_bytes, "search_limit", cfg.search_limit, "search_max_limit",
            cfg.search_max_limit, "repos", repos, "totals", "repos", (json_int_t)n, "files", (json_int_t)files,
            "chunks", (json_int_t)chunks, "symbols", (json_int_t)symbols, "bytes", (json_int_t)bytes, "db_bytes",
            (json_int_t)dbb);
        char *s = json_dumps(o, JSON_COMPACT);
        puts(s);
        free(s);
        json_decref(o);
    } else {
        char b1[32], b2[32], b3[32];
        printf("memgate %s\n", MG_VERSION);
        printf("data directory: %s\n", cfg.home);
        printf("config file:    %s\n", cfgfile);
        printf("settings:       max_file_size=%s max_query_bytes=%zu index_threads=%d chunk_max_lines=%d "
               "chunk_max_bytes=%zu search_limit=%d\n",
               mg_human_bytes((double)cfg.max_file_size, b1, sizeof(b1)), cfg.max_query_bytes, cfg.index_threads,
               cfg.chunk_max_lines, cfg.chunk_max_bytes, cfg.search_limit);
        printf("repos:          %zu (%lld files, %lld chunks, %lld symbols, %s of text, %s of index)\n", n, files,
               chunks, symbols, mg_human_bytes((double)bytes, b2, sizeof(b2)),
               mg_human_bytes((double)dbb, b3, sizeof(b3)));
        for (size_t i = 0; i < n; i++) printf("  %-28s %s\n", v[i].id, v[i].root);
    }
    free(v);
    return 0;
}
