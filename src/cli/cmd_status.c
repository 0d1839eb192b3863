/* cmd_status.c — `memgate status`. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "embed/embed.h"
#include "request/storage.h"
#include "util/version.h"
#include "util/json.h"

static const char *HELP =
    "usage: memgate status [--tenant T] [--json]\n"
    "\n"
    "Show the version, the data directory, the settings in effect (defaults,\n"
    "config file, MEMGATE_* variables), the embedder they choose (what\n"
    "embedder = auto picks, decided without asking the network) and a tenant's\n"
    "indexed repos (default local): for each, its size, its last full and incremental index run, the\n"
    "last error, whether a run holds it now, its file watcher and its settings.\n"
    "With storage = postgres://... also the database (its URL without the\n"
    "password), whether it answers and the schema steps applied to it; when it\n"
    "does not answer, the report ends with error[storage_unavailable] and the\n"
    "exit status is 1.\n"
    "\n"
    "options:\n"
    "  --tenant T  the repos of tenant T\n"
    "  --json      print it as JSON; each of \"repos\" is what the index_status\n"
    "              tool gives (docs/cli.md lists the fields)\n"
    "  -h, --help  this help\n";

static const char *when(json_t *r, const char *key, char *buf, size_t cap)
{
    json_t *v = json_object_get(r, key);
    if (!json_is_integer(v)) return "never";
    time_t t = (time_t)json_integer_value(v);
    strftime(buf, cap, "%Y-%m-%d %H:%M:%S", localtime(&t));
    return buf;
}

/* Two lines under the repo's id: its runs, then its watcher and settings. */
static void print_repo(json_t *r)
{
    char b1[32], b2[32], b3[32];
    json_t *s = json_object_get(r, "settings");
    printf("  %-28s %s\n", json_string_value(json_object_get(r, "id")), json_string_value(json_object_get(r, "root")));
    printf("    %lld files, %lld chunks, %lld symbols, ", (long long)json_integer_value(json_object_get(r, "files")),
           (long long)json_integer_value(json_object_get(r, "chunks")),
           (long long)json_integer_value(json_object_get(r, "symbols")));
    json_t *vec = json_object_get(r, "vectors");
    if (json_is_integer(vec)) printf("%lld vectors, ", (long long)json_integer_value(vec));
    printf("%s of index; full run %s", mg_human_bytes((double)json_integer_value(json_object_get(r, "db_bytes")), b1,
                                                      sizeof(b1)),
           when(r, "full_index_at", b2, sizeof(b2)));
    json_t *ms = json_object_get(r, "full_index_ms");
    if (json_is_integer(ms)) printf(" (%.1f s)", (double)json_integer_value(ms) / 1000);
    printf(", incremental %s", when(r, "incr_index_at", b3, sizeof(b3)));
    ms = json_object_get(r, "incr_index_ms");
    if (json_is_integer(ms)) printf(" (%.1f s)", (double)json_integer_value(ms) / 1000);
    printf("%s\n", json_is_true(json_object_get(r, "index_busy")) ? "; indexing now" : "");
    json_t *pending = json_object_get(r, "pending_changes");
    printf("    watcher %s", json_string_value(json_object_get(r, "watch_state")));
    if (json_integer_value(json_object_get(r, "watch_count")))
        printf(" (%lld watched)", (long long)json_integer_value(json_object_get(r, "watch_count")));
    if (json_is_integer(pending)) printf(", %lld pending", (long long)json_integer_value(pending));
    printf("; settings: watch=%s reindex_interval=%lld pull_on_push=%s; %lld secrets redacted\n",
           json_string_value(json_object_get(s, "watch")),
           (long long)json_integer_value(json_object_get(s, "reindex_interval")),
           json_string_value(json_object_get(s, "pull_on_push")),
           (long long)json_integer_value(json_object_get(r, "secrets_redacted")));
    const char *e = json_string_value(json_object_get(r, "last_error"));
    if (e) printf("    last error (%s): %s\n", when(r, "last_error_at", b1, sizeof(b1)), e);
}

/* The shared database: {"kind","url","reachable","schema":[{"name","version","applied_at","known"}]}, and
 * err filled when it cannot be read (reachable false). SQLite: {"kind":"sqlite"}. */
static json_t *storage_json(const struct mg_config *cfg, struct mg_err *err)
{
    if (strcmp(cfg->storage, "sqlite") == 0) return json_pack("{s:s}", "kind", "sqlite");
    char url[1024];
    mg_storage_url_safe(cfg, url, sizeof(url));
    struct mg_storage_step *steps = NULL;
    size_t n = 0;
    bool ok = mg_storage_steps(cfg, &steps, &n, err) == 0;
    json_t *schema = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(schema, json_pack("{s:s, s:s, s:I, s:b}", "name", steps[i].name, "version",
                                                steps[i].version, "applied_at", (json_int_t)steps[i].applied_at,
                                                "known", steps[i].known));
    free(steps);
    json_t *o = json_pack("{s:s, s:s, s:b, s:o}", "kind", "postgresql", "url", url, "reachable", ok, "schema", schema);
    if (!ok) json_object_set_new(o, "error", json_pack("{s:s, s:s}", "code", err->code, "message", err->msg));
    return o;
}

static void print_storage(json_t *st)
{
    const char *kind = json_string_value(json_object_get(st, "kind"));
    if (strcmp(kind, "sqlite") == 0) {
        printf("storage:        sqlite (the data directory)\n");
        return;
    }
    printf("storage:        %s (", json_string_value(json_object_get(st, "url")));
    if (!json_is_true(json_object_get(st, "reachable"))) {
        printf("unreachable: %s)\n", json_string_value(json_object_get(json_object_get(st, "error"), "code")));
        return;
    }
    printf("reachable; schema steps");
    json_t *s;
    size_t i;
    json_array_foreach(json_object_get(st, "schema"), i, s)
    {
        printf("%s %s", i ? "," : "", json_string_value(json_object_get(s, "name")));
        if (!json_is_true(json_object_get(s, "known"))) printf(" (a newer memgate's)");
    }
    if (!json_array_size(json_object_get(st, "schema"))) printf(" none yet");
    printf(")\n");
}

int mg_cmd_status(int argc, char **argv)
{
    bool json = false;
    const char *tenant = NULL;
    int rc = mg_cli_json_tenant_opts("status", HELP, argc, argv, &json, &tenant);
    if (rc >= 0) return rc;
    if (optind < argc) return mg_cli_usage("status", "unexpected argument '%s'", argv[optind]);
    struct mg_config cfg;
    rc = mg_cli_config(&cfg);
    if (rc) return rc;
    struct mg_err err = {0}, serr = {0};
    json_t *storage = storage_json(&cfg, &serr);
    struct mg_cli_req q;
    json_t *res = NULL;
    if (mg_cli_begin(&q, &cfg, tenant, "index_status", false, &err) == 0) {
        rc = mg_cli_tool(&q, "index_status", json_pack("{s:b}", "all", 1), &res, &err);
        mg_cli_end(&q);
    } else {
        rc = -1;
    }
    if (rc != 0 && serr.code) {
        /* the database is down: what needs none of it (where this memgate looks, and the storage line),
         * then its error; the repos are in it, or behind the audit event it would write */
        if (json) {
            json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:o}", "version", MG_VERSION, "home", cfg.home, "config_file",
                                  cfg.config_path, "cache_dir", cfg.cache_dir, "storage", storage);
            char *s = json_dumps(o, MG_JSON_DUMP);
            puts(s);
            free(s);
            json_decref(o);
        } else {
            printf("memgate %s\ndata directory: %s\nconfig file:    %s\ncache:          %s\n", MG_VERSION, cfg.home,
                   cfg.config_path, cfg.cache_dir);
            print_storage(storage);
            json_decref(storage);
        }
        fflush(stdout);
        return mg_cli_fail(&serr);
    }
    if (rc != 0) {
        json_decref(storage);
        return mg_cli_fail(&err);
    }
    json_t *repos = json_incref(json_object_get(res, "repos")), *r;
    json_decref(res);
    size_t n = json_array_size(repos), i;
    long long files = 0, chunks = 0, symbols = 0, bytes = 0, dbb = 0;
    json_array_foreach(repos, i, r)
    {
        files += json_integer_value(json_object_get(r, "files"));
        chunks += json_integer_value(json_object_get(r, "chunks"));
        symbols += json_integer_value(json_object_get(r, "symbols"));
        bytes += json_integer_value(json_object_get(r, "bytes"));
        dbb += json_integer_value(json_object_get(r, "db_bytes"));
    }
    const char *cfgfile = cfg.config_path; /* the one read, or where one is looked for */
    /* the embedder the settings choose: its signature (no network is asked), or why it cannot be made */
    char sig[700] = "";
    struct mg_embedder *emb = NULL;
    struct mg_err eerr = {0};
    if (mg_embedder_open(&cfg, &emb, &eerr) == 0) mg_embedder_sig(emb, sig, sizeof(sig));
    else snprintf(sig, sizeof(sig), "error[%s]: %s", eerr.code, eerr.msg);
    mg_embedder_free(&emb);
    if (json) {
        json_t *o = json_pack(
            "{s:s, s:s, s:s, s:s, s:{s:I, s:I, s:i, s:i, s:I, s:i, s:i, s:s, s:s}, s:s, s:o, s:{s:I, s:I, s:I, s:I, s:I, s:I}}",
            "version", MG_VERSION, "home", cfg.home, "config_file", cfgfile, "cache_dir", cfg.cache_dir, "config", "max_file_size",
            (json_int_t)cfg.max_file_size, "max_query_bytes", (json_int_t)cfg.max_query_bytes, "index_threads",
            cfg.index_threads, "chunk_max_lines", cfg.chunk_max_lines, "chunk_max_bytes",
            (json_int_t)cfg.chunk_max_bytes, "search_limit", cfg.search_limit, "search_max_limit",
            cfg.search_max_limit, "watch", cfg.watch, "listen", cfg.listen, "embedder", sig, "repos", json_incref(repos), "totals", "repos", (json_int_t)n, "files", (json_int_t)files,
            "chunks", (json_int_t)chunks, "symbols", (json_int_t)symbols, "bytes", (json_int_t)bytes, "db_bytes",
            (json_int_t)dbb);
        /* where the vectors go (docs/providers.md): never the key */
        bool ext = strcmp(cfg.vector_store, "builtin") != 0;
        json_object_set_new(o, "vector_store", json_pack("{s:s, s:s?, s:b, s:s?}", "kind", cfg.vector_store, "url",
                                                         ext ? mg_config_vector_url(&cfg) : NULL, "external", ext,
                                                         "collection_prefix", ext ? cfg.vector_collection_prefix : NULL));
        json_object_set_new(o, "storage", storage);
        storage = NULL;
        char *s = json_dumps(o, MG_JSON_DUMP);
        puts(s);
        free(s);
        json_decref(o);
    } else {
        char b1[32], b2[32], b3[32];
        printf("memgate %s\n", MG_VERSION);
        printf("data directory: %s\n", cfg.home);
        printf("config file:    %s\n", cfgfile);
        printf("cache:          %s\n", cfg.cache_dir);
        printf("settings:       max_file_size=%s max_query_bytes=%zu index_threads=%d chunk_max_lines=%d "
               "chunk_max_bytes=%zu search_limit=%d watch=%s listen=%s\n",
               mg_human_bytes((double)cfg.max_file_size, b1, sizeof(b1)), cfg.max_query_bytes, cfg.index_threads,
               cfg.chunk_max_lines, cfg.chunk_max_bytes, cfg.search_limit, cfg.watch, cfg.listen);
        printf("embedder:       %s\n", sig);
        print_storage(storage);
        if (strcmp(cfg.vector_store, "builtin") == 0)
            printf("vector store:   builtin (in the repo databases, encrypted at rest)\n");
        else
            printf("vector store:   %s at %s, collections %s-* (outside memgate's encryption at rest: "
                   "allow_external_vectors = on)\n", cfg.vector_store, mg_config_vector_url(&cfg), cfg.vector_collection_prefix);
        printf("repos:          %zu (%lld files, %lld chunks, %lld symbols, %s of text, %s of index)\n", n, files,
               chunks, symbols, mg_human_bytes((double)bytes, b2, sizeof(b2)),
               mg_human_bytes((double)dbb, b3, sizeof(b3)));
        json_array_foreach(repos, i, r) print_repo(r);
    }
    json_decref(repos);
    json_decref(storage);
    return serr.code ? mg_cli_fail(&serr) : 0;
}
