/* cmd_memory.c — `memgate notes`, `memgate projects`, `memgate recall`: the
 * memory tools from the shell. Each runs the tool as the local principal (or
 * --tenant) through the same pipeline as MCP and /v1 (cli.h, mg_cli_tool),
 * so the CLI and the servers store and read the same way and every call is
 * audited.
 *
 * Sections:
 *   1. help
 *   2. options and running a tool
 *   3. notes
 *   4. projects
 *   5. recall
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "util/json.h"

/* ---- 1. help ------------------------------------------------------------- */

static const char *NOTES_HELP =
    "usage: memgate notes set --repo ID KEY VALUE [--source user_stated|llm_extracted|inferred] [--json]\n"
    "       memgate notes get --repo ID KEY [--json]\n"
    "       memgate notes list --repo ID [--prefix P] [--search QUERY] [--json]\n"
    "       memgate notes rm --repo ID KEY [--json]\n"
    "       memgate notes extract --repo ID --session EXT [--json]\n"
    "\n"
    "Durable notes about a repo, shared with agents over MCP and the HTTP API\n"
    "(docs/memory.md). Values are stored with their secrets redacted; a key that\n"
    "holds a secret is refused (secret_in_identifier).\n"
    "\n"
    "extract: turn a session's episodes into notes (source llm_extracted, trust\n"
    "0.6) with the chat endpoint of llm_url (docs/providers.md); notes a user\n"
    "stated are kept, keys holding a secret are skipped.\n"
    "\n"
    "options:\n"
    "  --repo ID       the repo (default: the repo holding the current directory, or the only one)\n"
    "  --tenant T      act as tenant T (default local)\n"
    "  --source S      where the note comes from (default user_stated)\n"
    "  --session EXT   extract: the session whose episodes are read, by its durable id\n"
    "  --prefix P      list: keys starting with P\n"
    "  --search Q      list: ranked search over keys and values instead\n"
    "  --json          print the tool's JSON result\n"
    "  -h, --help      this help\n";

static const char *PROJECTS_HELP =
    "usage: memgate projects list --repo ID [--json]\n"
    "       memgate projects create --repo ID NAME [--json]\n"
    "       memgate projects delete --repo ID NAME [--json]\n"
    "       memgate projects join --repo ID NAME --session EXT [--json]\n"
    "       memgate projects leave --repo ID --session EXT [--json]\n"
    "\n"
    "Projects group sessions that share episodes and entities, isolated from\n"
    "everything else. Deleting a project deletes its episodes and entities.\n"
    "\n"
    "options:\n"
    "  --repo ID       the repo (default: the repo holding the current directory, or the only one)\n"
    "  --tenant T      act as tenant T (default local)\n"
    "  --session EXT   join, leave: the session, by its durable (external) id\n"
    "  --json          print the tool's JSON result\n"
    "  -h, --help      this help\n";

static const char *RECALL_HELP =
    "usage: memgate recall [QUERY] --repo ID [--session EXT] [--limit N] [--json]\n"
    "\n"
    "Search earlier episodes in a session's scope: its project's pool, or the\n"
    "shared pool of sessions in no project (docs/memory.md). Without QUERY: the\n"
    "newest. The session defaults to \"cli\".\n"
    "\n"
    "options:\n"
    "  --repo ID       the repo (default: the repo holding the current directory, or the only one)\n"
    "  --tenant T      act as tenant T (default local)\n"
    "  --session EXT   the session whose scope is searched, by its durable id (default cli)\n"
    "  --limit N       at most N episodes (default 10)\n"
    "  --json          print the tool's JSON result\n"
    "  -h, --help      this help\n";

/* ---- 2. options and running a tool --------------------------------------- */

struct opts {
    const char *repo, *tenant, *session, *source, *prefix, *search, *limit;
    bool json;
};

/* Options anywhere, the other words in order into w. -1 to go on, else the
 * exit status (0 after --help, 2 on a usage error). */
static int words(int argc, char **argv, const char *cmd, const char *help, struct opts *o, const char **w, int maxw,
                 int *nw)
{
    *nw = 0;
    memset(o, 0, sizeof(*o));
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define OPT(name, field)                                                                                           \
    if (strcmp(a, name) == 0) {                                                                                    \
        if (!v) return mg_cli_usage(cmd, "%s needs a value", name);                                               \
        o->field = v;                                                                                              \
        i++;                                                                                                       \
        continue;                                                                                                  \
    }
        OPT("--repo", repo)
        OPT("--tenant", tenant)
        OPT("--session", session)
        OPT("--source", source)
        OPT("--prefix", prefix)
        OPT("--search", search)
        OPT("--limit", limit)
#undef OPT
        if (strcmp(a, "--json") == 0) {
            o->json = true;
            continue;
        }
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(help, stdout);
            return 0;
        }
        if (a[0] == '-' && a[1]) return mg_cli_usage(cmd, "unknown option '%s'", a);
        if (*nw == maxw) return mg_cli_usage(cmd, "unexpected argument '%s'", a);
        w[(*nw)++] = a;
    }
    return -1;
}

/* Run one tool as the command line's principal (local, or --tenant); print
 * its result (JSON, or human for `human`). The repo: --repo, else the one
 * holding the current directory, else the only one (request/resolve.h). */
static int run_tool(const struct opts *o, const char *tool, json_t *args, void (*human)(json_t *))
{
    struct mg_config cfg;
    int rc = mg_cli_config(&cfg);
    if (rc) {
        json_decref(args);
        return rc;
    }
    if (o->repo) json_object_set_new(args, "repo", json_string(o->repo));
    /* the conversation: --session, else "cli" (every command line run shares it) */
    json_object_set_new(args, "session_id", json_string(o->session ? o->session : "cli"));
    struct mg_err err = {0};
    struct mg_cli_req q;
    if (mg_cli_begin(&q, &cfg, o->tenant, tool, false, &err) != 0) {
        json_decref(args);
        return mg_cli_fail(&err);
    }
    json_t *result = NULL;
    rc = mg_cli_tool(&q, tool, args, &result, &err);
    mg_cli_end(&q);
    if (rc != 0) return mg_cli_fail(&err);
    if (o->json || !human) mg_cli_print_json(result);
    else human(result);
    json_decref(result);
    return 0;
}

/* ---- 3. notes ------------------------------------------------------------ */

static void print_note(json_t *n)
{
    printf("%s = %s  (%s, trust %.1f)", json_string_value(json_object_get(n, "key")),
           json_string_value(json_object_get(n, "value")), json_string_value(json_object_get(n, "source")),
           json_real_value(json_object_get(n, "trust")));
    mg_cli_print_flags(n);
    putchar('\n');
}

static void h_note(json_t *r) { print_note(json_object_get(r, "note")); }

static void h_notes(json_t *r)
{
    json_t *a = json_object_get(r, "notes"), *n;
    size_t i;
    json_array_foreach(a, i, n) print_note(n);
    fprintf(stderr, "%zu note%s\n", json_array_size(a), json_array_size(a) == 1 ? "" : "s");
}

static void h_extracted(json_t *r)
{
    json_t *a = json_object_get(r, "notes"), *sk = json_object_get(r, "skipped"), *n;
    size_t i;
    json_array_foreach(a, i, n) print_note(n);
    json_array_foreach(sk, i, n)
    {
        printf("skipped %s: %s", json_string_value(json_object_get(n, "key")),
               json_string_value(json_object_get(n, "reason")));
        mg_cli_print_flags(n);
        putchar('\n');
    }
    const char *via = json_string_value(json_object_get(r, "via"));
    fprintf(stderr, "%zu note%s written, %zu skipped, from %lld episode%s%s%s\n", json_array_size(a),
            json_array_size(a) == 1 ? "" : "s", json_array_size(sk),
            (long long)json_integer_value(json_object_get(r, "episodes")),
            json_integer_value(json_object_get(r, "episodes")) == 1 ? "" : "s", via ? " via " : "", via ? via : "");
}

static void h_deleted(json_t *r)
{
    printf("%s\n", json_is_true(json_object_get(r, "deleted")) ? "deleted" : "no such note");
}

int mg_cmd_notes(int argc, char **argv)
{
    struct opts o;
    const char *w[4];
    int nw, rc = words(argc, argv, "notes", NOTES_HELP, &o, w, 4, &nw);
    if (rc >= 0) return rc;
    if (nw < 1) return mg_cli_usage("notes", "give a subcommand: set, get, list, rm or extract");
    const char *sub = w[0];
    if (strcmp(sub, "set") == 0) {
        if (nw != 3) return mg_cli_usage("notes", "notes set needs KEY and VALUE");
        json_t *a = json_pack("{s:s, s:s}", "key", w[1], "value", w[2]);
        if (o.source) json_object_set_new(a, "source", json_string(o.source));
        return run_tool(&o, "set_note", a, h_note);
    }
    if (strcmp(sub, "get") == 0 || strcmp(sub, "rm") == 0) {
        if (nw != 2) return mg_cli_usage("notes", "notes %s needs KEY", sub);
        return run_tool(&o, sub[0] == 'g' ? "get_note" : "delete_note", json_pack("{s:s}", "key", w[1]),
                        sub[0] == 'g' ? h_note : h_deleted);
    }
    if (strcmp(sub, "list") == 0) {
        if (nw != 1) return mg_cli_usage("notes", "notes list takes no KEY");
        if (o.search) return run_tool(&o, "search_notes", json_pack("{s:s}", "query", o.search), h_notes);
        json_t *a = json_object();
        if (o.prefix) json_object_set_new(a, "prefix", json_string(o.prefix));
        return run_tool(&o, "list_notes", a, h_notes);
    }
    if (strcmp(sub, "extract") == 0) {
        if (nw != 1) return mg_cli_usage("notes", "notes extract takes no KEY");
        if (!o.session) return mg_cli_usage("notes", "notes extract needs --session EXT (the session to read)");
        return run_tool(&o, "extract_knowledge", json_object(), h_extracted);
    }
    return mg_cli_usage("notes", "unknown subcommand '%s'; use set, get, list, rm or extract", sub);
}

/* ---- 4. projects --------------------------------------------------------- */

static void h_projects(json_t *r)
{
    json_t *a = json_object_get(r, "projects"), *p;
    size_t i;
    json_array_foreach(a, i, p)
    {
        printf("%s  %lld sessions", json_string_value(json_object_get(p, "name")),
               (long long)json_integer_value(json_object_get(p, "sessions")));
        mg_cli_print_flags(p);
        putchar('\n');
    }
    fprintf(stderr, "%zu project%s\n", json_array_size(a), json_array_size(a) == 1 ? "" : "s");
}

static void h_done(json_t *r)
{
    char *t = json_dumps(r, MG_JSON_DUMP);
    if (t) puts(t);
    free(t);
}

int mg_cmd_projects(int argc, char **argv)
{
    struct opts o;
    const char *w[3];
    int nw, rc = words(argc, argv, "projects", PROJECTS_HELP, &o, w, 3, &nw);
    if (rc >= 0) return rc;
    if (nw < 1) return mg_cli_usage("projects", "give a subcommand: list, create, delete, join or leave");
    const char *sub = w[0];
    if (strcmp(sub, "list") == 0 && nw == 1) return run_tool(&o, "list_projects", json_object(), h_projects);
    if (strcmp(sub, "create") == 0 && nw == 2) return run_tool(&o, "create_project", json_pack("{s:s}", "name", w[1]), h_done);
    if (strcmp(sub, "delete") == 0 && nw == 2)
        return run_tool(&o, "delete_project", json_pack("{s:s}", "project", w[1]), h_done);
    if (strcmp(sub, "join") == 0 && nw == 2) {
        if (!o.session) return mg_cli_usage("projects", "projects join needs --session EXT");
        return run_tool(&o, "join_project", json_pack("{s:s}", "project", w[1]), h_done);
    }
    if (strcmp(sub, "leave") == 0 && nw == 1) {
        if (!o.session) return mg_cli_usage("projects", "projects leave needs --session EXT");
        return run_tool(&o, "leave_project", json_object(), h_done);
    }
    return mg_cli_usage("projects", "'%s' with %d argument%s is not a projects command; see --help", sub, nw - 1,
                        nw == 2 ? "" : "s");
}

/* ---- 5. recall ----------------------------------------------------------- */

static void h_episodes(json_t *r)
{
    json_t *a = json_object_get(r, "episodes"), *e;
    size_t i;
    json_array_foreach(a, i, e)
    {
        printf("[%s] %s", json_string_value(json_object_get(e, "session")),
               json_string_value(json_object_get(e, "summary")));
        mg_cli_print_flags(e);
        putchar('\n');
    }
    json_t *p = json_object_get(json_object_get(r, "scope"), "project");
    fprintf(stderr, "%zu episode%s (%s%s)\n", json_array_size(a), json_array_size(a) == 1 ? "" : "s",
            json_is_string(p) ? "project " : "shared pool", json_is_string(p) ? json_string_value(p) : "");
}

int mg_cmd_recall(int argc, char **argv)
{
    struct opts o;
    const char *w[1];
    int nw, rc = words(argc, argv, "recall", RECALL_HELP, &o, w, 1, &nw);
    if (rc >= 0) return rc;
    json_t *a = json_object();
    if (nw == 1) json_object_set_new(a, "query", json_string(w[0]));
    if (o.limit) {
        char *end;
        long n = strtol(o.limit, &end, 10);
        if (*end || n < 1 || n > 1000) {
            json_decref(a);
            return mg_cli_usage("recall", "--limit must be 1 to 1000");
        }
        json_object_set_new(a, "limit", json_integer(n));
    }
    return run_tool(&o, "recall", a, h_episodes);
}
