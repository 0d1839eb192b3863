/* cmd_index.c — `memgate index PATH`. */
#include <getopt.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "index/indexer.h"
#include "security/common.h"

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

static volatile int stop_flag; /* SIGINT, SIGTERM: the run stops at the next file */

static void on_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
}

static json_t *stats_json(const struct mg_index_stats *s)
{
    return json_pack("{s:s, s:s, s:b, s:b, s:{s:I, s:I, s:I, s:I, s:I}, "
                     "s:{s:I, s:I, s:I, s:I, s:I, s:I, s:I}, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:f, "
                     "s:f, s:{s:f, s:f}}",
                     "repo", s->id, "root", s->root, "git", s->git, "created", s->created,
                     "files", "seen", (json_int_t)s->files, "added", (json_int_t)s->added, "changed",
                     (json_int_t)s->changed, "unchanged", (json_int_t)s->unchanged, "removed", (json_int_t)s->removed,
                     "skipped", "binary", (json_int_t)s->skipped_binary, "too_large", (json_int_t)s->skipped_too_large,
                     "secret", (json_int_t)s->skipped_secret, "symlink", (json_int_t)s->skipped_symlink, "special",
                     (json_int_t)s->skipped_special, "bad_name", (json_int_t)s->skipped_bad_name, "unreadable",
                     (json_int_t)s->skipped_unreadable,
                     "repaired_utf8", (json_int_t)s->repaired_utf8, "parse_failed", (json_int_t)s->parse_failed,
                     "secrets_redacted", (json_int_t)s->secrets_redacted, "chunks_excluded",
                     (json_int_t)s->chunks_excluded,
                     "bytes_read", (json_int_t)s->bytes_read, "bytes_indexed", (json_int_t)s->bytes_indexed,
                     "total_files", (json_int_t)s->total_files, "total_bytes", (json_int_t)s->total_bytes,
                     "chunks", (json_int_t)s->chunks, "symbols", (json_int_t)s->symbols, "seconds", s->seconds,
                     "merge_seconds", s->merge_seconds, "cpu", "workers", s->cpu_workers, "writer", s->cpu_writer);
}

static void print_summary(const struct mg_index_stats *s)
{
    char b1[32], b2[32];
    printf("indexed %s (%s) in %.2fs: %llu files, %s read at %s/s\n", s->id, s->root, s->seconds,
           (unsigned long long)s->files, mg_human_bytes((double)s->bytes_read, b1, sizeof(b1)),
           mg_human_bytes(s->seconds > 0 ? s->bytes_read / s->seconds : 0, b2, sizeof(b2)));
    printf("  %llu added, %llu changed, %llu unchanged, %llu removed\n", (unsigned long long)s->added,
           (unsigned long long)s->changed, (unsigned long long)s->unchanged, (unsigned long long)s->removed);
    printf("  skipped: %llu binary, %llu too large, %llu secret, %llu symlinks, %llu unreadable, %llu other\n",
           (unsigned long long)s->skipped_binary, (unsigned long long)s->skipped_too_large,
           (unsigned long long)s->skipped_secret, (unsigned long long)s->skipped_symlink,
           (unsigned long long)s->skipped_unreadable,
           (unsigned long long)(s->skipped_special + s->skipped_bad_name));
    if (s->repaired_utf8 || s->parse_failed)
        printf("  repaired: %llu with invalid UTF-8 (now U+FFFD); unparsable: %llu (cut in line windows)\n",
               (unsigned long long)s->repaired_utf8, (unsigned long long)s->parse_failed);
    if (s->secrets_redacted || s->chunks_excluded)
        printf("  secrets: %llu redacted, %llu chunks excluded (never stored; `memgate scan` lists them)\n",
               (unsigned long long)s->secrets_redacted, (unsigned long long)s->chunks_excluded);
    printf("  index: %llu files, %llu chunks, %llu symbols, %s of text (%s walk)\n",
           (unsigned long long)s->total_files, (unsigned long long)s->chunks, (unsigned long long)s->symbols,
           mg_human_bytes((double)s->total_bytes, b1, sizeof(b1)), s->git ? "git" : "plain");
    printf("  vectors: %s, %llu chunks of %llu files embedded in %.2fs%s", s->vec.embedder,
           (unsigned long long)s->vec.chunks, (unsigned long long)s->vec.files, s->vec.seconds,
           s->vec.reembedded ? " (embedder changed: all re-embedded)" : "");
    if (s->vec.pending) printf(", %llu files without vectors", (unsigned long long)s->vec.pending);
    putchar('\n');
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
    struct mg_index_opts o = {0};
    const char *maxsize = NULL, *threads = NULL;
    bool json = false, quiet = false;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "hjq", opts, NULL)) != -1) {
        switch (c) {
        case 'n': o.name = optarg; break;
        case 'T': o.tenant = optarg; break;
        case 'm': maxsize = optarg; break;
        case 't': threads = optarg; break;
        case 'j': json = true; break;
        case 'q': quiet = true; break;
        case 'h': fputs(HELP, stdout); return 0;
        default: return mg_cli_usage("index", "unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    if (optind != argc - 1) return mg_cli_usage("index", "give exactly one PATH to index");
    struct mg_err terr = {0};
    if (o.tenant && mg_tenant_check(o.tenant, &terr) != 0) return mg_cli_fail(&terr);
    o.path = argv[optind];
    int rc = mg_cli_config(&cfg);
    if (rc) return rc;
    struct mg_err err = {0};
    if ((maxsize && mg_config_set(&cfg, "max_file_size", maxsize, "--max-file-size", &err) != 0) ||
        (threads && mg_config_set(&cfg, "index_threads", threads, "--threads", &err) != 0)) {
        err.code = MG_E_USAGE;
        return mg_cli_fail(&err);
    }
    o.progress = isatty(STDERR_FILENO) && !quiet;
    o.stop = &stop_flag;

    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    struct mg_index_stats st;
    rc = mg_index_run(&cfg, &o, &st, &err);
    mg_cli_audit(&cfg, o.tenant, "index", st.id[0] ? st.id : NULL, st.root[0] ? st.root : o.path,
                 (long long)st.total_files, (int)st.secrets_redacted, st.chunks_excluded ? "chunks_excluded" : NULL,
                 rc == 0 ? NULL : err.code);
    if (rc != 0) return mg_cli_fail(&err);
    /* an embedding failure leaves the repo keyword-only; say so, even with --quiet */
    if (st.vec.warning[0]) fprintf(stderr, "memgate: warning: embeddings: %s\n", st.vec.warning);
    if (json) {
        json_t *j = stats_json(&st);
        json_object_set_new(j, "vectors", json_pack("{s:s, s:I, s:I, s:I, s:b, s:f, s:s?}", "embedder",
                                                    st.vec.embedder, "files", (json_int_t)st.vec.files, "chunks",
                                                    (json_int_t)st.vec.chunks, "pending",
                                                    (json_int_t)st.vec.pending, "reembedded", st.vec.reembedded,
                                                    "seconds", st.vec.seconds, "warning",
                                                    st.vec.warning[0] ? st.vec.warning : NULL));
        char *s = json_dumps(j, JSON_COMPACT);
        puts(s);
        free(s);
        json_decref(j);
    } else if (!quiet) {
        print_summary(&st);
    }
    return 0;
}
