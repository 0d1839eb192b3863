/* cmd_repos.c — `memgate repos [--json]`, `memgate repos rm ID`,
 * `memgate repos show ID`, `memgate repos set ID KEY=VALUE...`. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "request/ops.h"

static const char *HELP =
    "usage: memgate repos [--tenant T] [--json]\n"
    "       memgate repos rm ID [--tenant T] [--json]\n"
    "       memgate repos show ID [--tenant T] [--json]\n"
    "       memgate repos set ID KEY=VALUE [KEY=VALUE...] [--tenant T] [--json]\n"
    "\n"
    "List the repositories indexed for a tenant (default local): id, files,\n"
    "chunks, index size, last indexed, root. Or remove one: `rm` deletes its\n"
    "index database and its memory (notes, sessions, episodes, projects,\n"
    "entities); the repository itself is not touched.\n"
    "\n"
    "`show` prints a repo's settings, `set` changes them (the others stay):\n"
    "  watch=on|off|default        whether `memgate serve` watches the repo for\n"
    "                              changes (default: the config key watch, on)\n"
    "  reindex_interval=SECONDS    `memgate serve` re-indexes the repo this often\n"
    "                              (0: never, the default; else 60 or more)\n"
    "  pull_on_push=on|off|default whether the push webhook pulls the repo first\n"
    "                              (default off)\n"
    "`default` puts a setting back to its default. Settings are kept in the\n"
    "repo's index, so `rm` removes them too.\n"
    "\n"
    "With storage = postgres:// (several daemons, docs/index.md) the repos are\n"
    "the shared catalog's: settings and `rm` apply on every daemon, and the list\n"
    "says how this data directory's own index stands when it is not current\n"
    "(behind, pending, absent, conflict).\n"
    "\n"
    "options:\n"
    "  --tenant T  act as tenant T (default local)\n"
    "  --json      print [{\"id\",\"root\",\"fingerprint\",\"files\",\"chunks\",\"symbols\",\n"
    "              \"bytes\",\"db_bytes\",\"created_at\",\"indexed_at\"}] (with storage =\n"
    "              postgres://, also \"index_state\", \"generation\",\n"
    "              \"catalog_generation\"; rm: {\"removed\":ID};\n"
    "              show, set: {\"repo\":ID,\"settings\":{\"watch\",\"watch_effective\",\n"
    "              \"reindex_interval\",\"pull_on_push\"}})\n"
    "  -h, --help  this help\n";

/* Forget the repo's memory, then delete its index: gate operations of one
 * request, resolved once (before the index goes), audited once. */
static int remove_repo(struct mg_cli_req *q, const char *id, struct mg_err *err)
{
    static const struct mg_op *const ops[] = {&mg_op_notes_forget, &mg_op_sessions_forget, &mg_op_entities_forget,
                                              &mg_op_code_remove};
    struct mg_target t = {.repo = id};
    struct mg_mem_args none = {0};
    mg_gate_subject(&q->x, id);
    int rc = mg_gate_resolve(&q->x, &t, MG_REPOS_ONE, err);
    for (size_t i = 0; rc == 0 && i < sizeof(ops) / sizeof(ops[0]); i++) {
        struct mg_items items;
        rc = mg_gate_run(&q->x, ops[i], &t, &none, &items, err);
        mg_items_release(&items);
    }
    mg_gate_finish(&q->x, rc, err);
    return rc;
}

/* KEY=VALUE words into the set_repo_settings arguments (a value stays text:
 * the tool checks it and says what is allowed). */
static int settings_args(char **words, int n, json_t *args)
{
    for (int i = 0; i < n; i++) {
        const char *eq = strchr(words[i], '=');
        if (!eq || eq == words[i])
            return mg_cli_usage("repos", "`repos set` takes KEY=VALUE, got '%s' (keys: watch, reindex_interval, "
                                "pull_on_push)",
                                words[i]);
        char key[64];
        snprintf(key, sizeof(key), "%.*s", (int)(eq - words[i]), words[i]);
        if (strcmp(key, "repo") == 0 || strcmp(key, "repo_id") == 0)
            return mg_cli_usage("repos", "the repo is the ID before the settings, not a setting");
        if (json_object_get(args, key)) return mg_cli_usage("repos", "'%s' is given twice", key);
        json_t *v = json_string(eq + 1);
        if (!v || json_object_set_new(args, key, v) != 0)
            return mg_cli_usage("repos", "'%s' is not valid UTF-8", words[i]);
    }
    return 0;
}

/* The subcommand (argv[0], may be absent) into the tool to run and its
 * arguments, or *rm for `rm`. 0, or the usage exit status. */
static int parse_sub(int argc, char **argv, json_t *args, const char **tool, const char **rm)
{
    const char *sub = argc > 0 ? argv[0] : NULL;
    *tool = "list_repos";
    *rm = NULL;
    if (!sub) return 0;
    if (strcmp(sub, "rm") == 0 || strcmp(sub, "show") == 0) {
        if (argc != 2) return mg_cli_usage("repos", "`repos %s` takes exactly one repo ID", sub);
    } else if (strcmp(sub, "set") == 0) {
        if (argc < 3) return mg_cli_usage("repos", "`repos set` takes a repo ID and KEY=VALUE settings");
        int rc = settings_args(argv + 2, argc - 2, args);
        if (rc) return rc;
    } else {
        return mg_cli_usage("repos", "unknown subcommand '%s'", sub);
    }
    if (strcmp(sub, "rm") == 0) {
        *rm = argv[1];
        *tool = "repo_remove";
        return 0;
    }
    json_object_set_new(args, "repo", json_string(argv[1]));
    *tool = strcmp(sub, "show") == 0 ? "get_repo_settings" : "set_repo_settings";
    return 0;
}

static void print_settings(json_t *res)
{
    json_t *s = json_object_get(res, "settings");
    long long every = (long long)json_integer_value(json_object_get(s, "reindex_interval"));
    const char *watch = json_string_value(json_object_get(s, "watch"));
    printf("repo              %s\n", json_string_value(json_object_get(res, "repo")));
    if (watch && strcmp(watch, "default") == 0)
        printf("watch             default (%s, from the config key watch)\n",
               json_string_value(json_object_get(s, "watch_effective")));
    else printf("watch             %s\n", watch ? watch : "?");
    if (every) printf("reindex_interval  %lld s\n", every);
    else printf("reindex_interval  0 (no scheduled re-index)\n");
    printf("pull_on_push      %s\n", json_string_value(json_object_get(s, "pull_on_push")));
}

int mg_cmd_repos(int argc, char **argv)
{
    bool json = false;
    const char *tenant = NULL;
    int rc = mg_cli_json_tenant_opts("repos", HELP, argc, argv, &json, &tenant);
    if (rc >= 0) return rc;
    const char *rm, *tool;
    bool sub = optind < argc;
    json_t *args = json_object();
    rc = parse_sub(argc - optind, argv + optind, args, &tool, &rm);
    if (rc) {
        json_decref(args);
        return rc;
    }
    struct mg_config cfg;
    rc = mg_cli_config(&cfg);
    struct mg_err err = {0};
    struct mg_cli_req q;
    if (rc || mg_cli_begin(&q, &cfg, tenant, tool, false, &err) != 0) {
        json_decref(args);
        return rc ? rc : mg_cli_fail(&err);
    }
    json_t *res = NULL;
    if (rm) {
        json_decref(args);
        rc = remove_repo(&q, rm, &err);
    } else {
        rc = mg_cli_tool(&q, tool, args, &res, &err);
    }
    mg_cli_end(&q);
    if (rc != 0) return mg_cli_fail(&err);
    if (rm) {
        if (json) printf("{\"removed\":\"%s\"}\n", rm);
        else printf("removed %s\n", rm);
        return 0;
    }
    if (sub) { /* show, set */
        if (json) mg_cli_print_json(res);
        else print_settings(res);
        json_decref(res);
        return 0;
    }
    json_t *v = json_object_get(res, "repos"), *r;
    size_t i;
    if (json) {
        mg_cli_print_json(v);
    } else if (json_array_size(v) == 0) {
        fprintf(stderr, "no repos indexed in %s%s%s; run `memgate index PATH`\n", cfg.home, tenant ? " for tenant " : "",
                tenant ? tenant : "");
    } else {
        printf("%-28s %9s %9s %10s  %-16s  %s\n", "ID", "FILES", "CHUNKS", "INDEX", "INDEXED", "ROOT");
        json_array_foreach(v, i, r)
        {
            char size[32], when[32] = "never";
            time_t t = (time_t)json_integer_value(json_object_get(r, "indexed_at"));
            if (t) strftime(when, sizeof(when), "%Y-%m-%d %H:%M", localtime(&t));
            /* the shared catalog: how this data directory's index stands, unless current */
            const char *state = json_string_value(json_object_get(r, "index_state"));
            char note[64] = "";
            if (state && strcmp(state, "current") != 0) snprintf(note, sizeof(note), "  (index %s)", state);
            printf("%-28s %9lld %9lld %10s  %-16s  %s%s\n", json_string_value(json_object_get(r, "id")),
                   (long long)json_integer_value(json_object_get(r, "files")),
                   (long long)json_integer_value(json_object_get(r, "chunks")),
                   mg_human_bytes((double)json_integer_value(json_object_get(r, "db_bytes")), size, sizeof(size)), when,
                   json_string_value(json_object_get(r, "root")), note);
        }
    }
    json_decref(res);
    return 0;
}
