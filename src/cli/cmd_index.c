/* cmd_index.c — `memgate index PATH`. */
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "security/common.h"
#include "security/sanitize.h"

static const char *HELP =
    "usage: memgate index PATH [--name NAME] [--tenant T] [--max-file-size SIZE] [--threads N] [--json] [--quiet]\n"
    "\n"
    "Index the repository at PATH into its own database in the data directory.\n"
    "Running it again is incremental: only files whose content changed are\n"
    "re-read into the index, and files that vanished are removed.\n"
    "\n"
    "In a git work tree, tracked and untracked-but-not-ignored files are indexed\n"
    "(.gitignore is honoured); elsewhere every file except VCS, dependency and\n"
    "cache directories. Binary files, files over the size cap, symlinks and\n"
    "secret files (.env, *.pem, *.key, id_rsa*, credentials*, .netrc, ...) are\n"
    "skipped and counted; secret files are never opened.\n"
    "\n"
    "options:\n"
    "  --name NAME          repo id to use (default: derived from PATH, e.g. linux-3fa2c1)\n"
    "  --tenant T           the tenant that owns a new repo (default local); only that tenant's tokens\n"
    "                       see it, and only it may re-index it\n"
    "  --max-file-size SIZE skip larger files (default 1M; config max_file_size)\n"
    "  --threads N          parser threads (default: CPUs; config index_threads)\n"
    "  --json               print the summary as JSON\n"
    "  --quiet              print nothing on success\n"
    "  -h, --help           this help\n"
    "\n"
    "A progress line (files, MB, rate, ETA) is drawn on stderr when it is a terminal.\n";

#define I(key) ((json_int_t)json_integer_value(json_object_get(r, key)))
#define R(key) json_real_value(json_object_get(r, key))
#define S(key) json_string_value(json_object_get(r, key))
#define B(key) json_is_true(json_object_get(r, key))

/* The summary as `index --json` has always printed it, from index_repo's result. */
static json_t *stats_json(json_t *r)
{
    json_t *j = json_pack("{s:s?, s:s?, s:b, s:b, s:{s:I, s:I, s:I, s:I, s:I}, "
                          "s:{s:I, s:I, s:I, s:I, s:I, s:I}, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:f, "
                          "s:f, s:f, s:{s:f, s:f}}",
                          "repo", S("repo"), "root", S("root"), "git", B("git"), "created", B("created"),
                          "files", "seen", I("seen"), "added", I("added"), "changed", I("changed"), "unchanged",
                          I("unchanged"), "removed", I("removed"),
                          "skipped", "binary", I("skipped_binary"), "too_large", I("skipped_too_large"), "secret",
                          I("skipped_secret"), "symlink", I("skipped_symlink"), "unreadable", I("skipped_unreadable"),
                          "other", I("skipped_other"),
                          "repaired_utf8", I("repaired_utf8"), "parse_failed", I("parse_failed"), "secrets_redacted",
                          I("secrets_redacted"), "chunks_excluded", I("chunks_excluded"), "bytes_read",
                          I("bytes_read"), "bytes_indexed", I("bytes_indexed"), "total_files", I("files"),
                          "total_bytes", I("bytes"), "chunks", I("chunks"), "symbols", I("symbols"), "seconds",
                          R("seconds"), "merge_seconds", R("merge_seconds"), "map_seconds", R("map_seconds"), "cpu", "workers", R("cpu_workers"),
                          "writer", R("cpu_writer"));
    json_object_set_new(j, "vectors", json_pack("{s:s?, s:I, s:I, s:I, s:b, s:f, s:f, s:s?}", "embedder", S("embedder"),
                                                "files", I("vec_files"), "chunks", I("vec_chunks"), "pending",
                                                I("vec_pending"), "reembedded", B("vec_reembedded"), "seconds",
                                                R("vec_seconds"), "columns_seconds", R("vec_columns_seconds"),
                                                "warning", S("warning")));
    return j;
}

static void print_summary(json_t *r)
{
    char b1[32], b2[32];
    double secs = R("seconds");
    /* two file counts: what this run's walk found (files.seen), and what the
     * index holds after it (total_files); they differ by the skipped files */
    printf("indexed %s (%s) in %.2fs: %lld files seen, %s read at %s/s\n", S("repo"), S("root"), secs, (long long)I("seen"),
           mg_human_bytes((double)I("bytes_read"), b1, sizeof(b1)),
           mg_human_bytes(secs > 0 ? I("bytes_read") / secs : 0, b2, sizeof(b2)));
    printf("  %lld added, %lld changed, %lld unchanged, %lld removed\n", (long long)I("added"), (long long)I("changed"),
           (long long)I("unchanged"), (long long)I("removed"));
    printf("  skipped: %lld binary, %lld too large, %lld secret, %lld links, %lld unreadable, %lld other\n",
           (long long)I("skipped_binary"), (long long)I("skipped_too_large"), (long long)I("skipped_secret"),
           (long long)I("skipped_symlink"), (long long)I("skipped_unreadable"), (long long)I("skipped_other"));
    if (I("repaired_utf8") || I("parse_failed"))
        printf("  repaired: %lld with invalid UTF-8 (now U+FFFD); unparsable: %lld (cut in line windows)\n",
               (long long)I("repaired_utf8"), (long long)I("parse_failed"));
    if (I("secrets_redacted") || I("chunks_excluded"))
        printf("  secrets: %lld redacted, %lld chunks excluded (never stored; `memgate scan` lists them)\n",
               (long long)I("secrets_redacted"), (long long)I("chunks_excluded"));
    printf("  index: %lld files in all, %lld chunks, %lld symbols, %s of text (%s walk)\n", (long long)I("files"),
           (long long)I("chunks"), (long long)I("symbols"), mg_human_bytes((double)I("bytes"), b1, sizeof(b1)),
           B("git") ? "git" : "plain");
    printf("  vectors: %s, %lld chunks of %lld files embedded in %.2fs%s", S("embedder") ? S("embedder") : "none",
           (long long)I("vec_chunks"), (long long)I("vec_files"), R("vec_seconds"),
           B("vec_reembedded") ? " (embedder changed: all re-embedded)" : "");
    if (I("vec_pending")) printf(", %lld files without vectors", (long long)I("vec_pending"));
    putchar('\n');
}

static void *prepare_injection(void *unused)
{
    (void)unused;
    mg_injection_prepare();
    return NULL;
}

int mg_cmd_index(int argc, char **argv)
{
    static const struct option opts[] = {
        {"name", required_argument, NULL, 'n'}, {"tenant", required_argument, NULL, 'T'}, {"max-file-size", required_argument, NULL, 'm'},
        {"threads", required_argument, NULL, 't'}, {"json", no_argument, NULL, 'j'},
        {"quiet", no_argument, NULL, 'q'},       {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct mg_config cfg;
    const char *maxsize = NULL, *threads = NULL, *name = NULL, *tenant = NULL;
    bool json = false, quiet = false;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "hjq", opts, NULL)) != -1) {
        switch (c) {
        case 'n': name = optarg; break;
        case 'T': tenant = optarg; break;
        case 'm': maxsize = optarg; break;
        case 't': threads = optarg; break;
        case 'j': json = true; break;
        case 'q': quiet = true; break;
        case 'h': fputs(HELP, stdout); return 0;
        default: return mg_cli_badopt("index", argc, argv, opts);
        }
    }
    if (optind != argc - 1) return mg_cli_usage("index", "give exactly one PATH to index");
    struct mg_err err = {0};
    if (tenant && mg_tenant_check(tenant, &err) != 0) return mg_cli_fail(&err);
    int rc = mg_cli_config(&cfg);
    if (rc) return rc;
    if ((maxsize && mg_config_set(&cfg, "max_file_size", maxsize, "--max-file-size", &err) != 0) ||
        (threads && mg_config_set(&cfg, "index_threads", threads, "--threads", &err) != 0)) {
        err.code = MG_E_USAGE;
        return mg_cli_fail(&err);
    }
    /* index_repo takes an absolute path: the server's directory is not the client's */
    char path[PATH_MAX * 2], cwd[PATH_MAX];
    const char *given = argv[optind];
    if (given[0] == '/' || !getcwd(cwd, sizeof(cwd))) snprintf(path, sizeof(path), "%s", given);
    else snprintf(path, sizeof(path), "%s/%s", cwd, given);
    json_t *args = json_pack("{s:s}", "path", path);
    if (name) json_object_set_new(args, "name", json_string(name));
    struct mg_cli_req q;
    if (mg_cli_begin(&q, &cfg, tenant, "index_repo", !quiet, &err) != 0) {
        json_decref(args);
        return mg_cli_fail(&err);
    }
    json_t *r = NULL;
    /* the answer goes through the gate's injection check: its databases are
     * made while the repo is indexed, not after (a fresh cache compiles them) */
    pthread_t prep;
    bool prepping = pthread_create(&prep, NULL, prepare_injection, NULL) == 0;
    rc = mg_cli_tool(&q, "index_repo", args, &r, &err);
    if (prepping) pthread_join(prep, NULL);
    mg_cli_end(&q);
    if (rc != 0) return mg_cli_fail(&err);
    /* an embedding failure leaves the repo keyword-only; say so, even with --quiet */
    if (S("warning")) fprintf(stderr, "memgate: warning: embeddings: %s\n", S("warning"));
    if (json) {
        json_t *j = stats_json(r);
        mg_cli_print_json(j);
        json_decref(j);
    } else if (!quiet) {
        print_summary(r);
    }
    json_decref(r);
    return 0;
}
