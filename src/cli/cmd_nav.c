/* cmd_nav.c — `memgate refs`, `memgate callers`, `memgate callees`,
 * `memgate trace`, `memgate impact`: the navigation tools from the command
 * line.
 *
 * Sections:
 *   1. help
 *   2. printing the answers
 *   3. running a navigation tool — (impact reads a diff from a file or stdin)
 *   4. the commands
 */
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

#define COMMON_OPTS                                                                                                 \
    "  --repo ID       the repo (default: the repo whose root contains the current\n"                             \
    "                  directory, else the only repo)\n"                                                           \
    "  --glob G        only paths matching G (repeatable); --exclude G leaves them out\n"                          \
    "  --lang L        only files of language L (repeatable)\n"                                                    \
    "  --tenant T      act as tenant T (default local)\n"                                                          \
    "  --json          the tool's result (docs/mcp.md)\n"                                                          \
    "  -h, --help      this help\n"

/* ---- 1. help ------------------------------------------------------------- */

static const char *HELP_REFS =
    "usage: memgate refs SYMBOL [--limit N] [--cursor C] [--repo ID] [--glob G] [--lang L] [--json]\n"
    "\n"
    "Every use of SYMBOL outside comments and strings, grouped by file: the line,\n"
    "its text, and the definition it is in; then where SYMBOL is defined. The\n"
    "whole identifier, case-sensitively (Class::method looks for method). From\n"
    "the index: the version of the files that search sees.\n"
    "\n"
    "options:\n"
    "  --limit N       at most N references per page (default 50, at most 1000)\n"
    "  --cursor C      the next page (the next_cursor an earlier call printed)\n" COMMON_OPTS;

static const char *HELP_CALLERS =
    "usage: memgate callers SYMBOL [--depth N] [--limit N] [--cursor C] [--repo ID] [--json]\n"
    "\n"
    "Who calls SYMBOL: each call site with its calling function and the\n"
    "definition called (confidence: exact, import, type, pointer, dispatch,\n"
    "name).\n"
    "--depth 2 or more adds the callers of the callers.\n"
    "\n"
    "options:\n"
    "  --depth N       levels (default 1, at most 8)\n"
    "  --limit N       at most N calls (default 100), fetched page by page when\n"
    "                  one response cannot hold them all (--json: one page)\n"
    "  --cursor C      one page from C (a next_cursor printed before)\n" COMMON_OPTS;

static const char *HELP_CALLEES =
    "usage: memgate callees SYMBOL [--depth N] [--limit N] [--cursor C] [--repo ID] [--json]\n"
    "\n"
    "What SYMBOL calls: each distinct call in its body and where it is defined\n"
    "(confidence: exact, import, type, pointer, dispatch, name; external when\n"
    "the repo defines no such name). --depth 2 or more follows the callees'\n"
    "own calls.\n"
    "\n"
    "options:\n"
    "  --depth N       levels (default 1, at most 8)\n"
    "  --limit N       at most N calls (default 100), fetched page by page when\n"
    "                  one response cannot hold them all (--json: one page)\n"
    "  --cursor C      one page from C (a next_cursor printed before)\n" COMMON_OPTS;

static const char *HELP_TRACE =
    "usage: memgate trace FROM TO [--depth N] [--limit N] [--repo ID] [--json]\n"
    "\n"
    "The shortest call paths from function FROM to function TO, one line per\n"
    "path: FROM -> ... -> TO with the file and line of each call.\n"
    "\n"
    "options:\n"
    "  --depth N       the longest path, in calls (default 8, the most)\n"
    "  --limit N       at most N paths (default 3, at most 100)\n" COMMON_OPTS;

static const char *HELP_IMPACT =
    "usage: memgate impact [REVISIONS | --diff FILE | --path P...] [--depth N] [--limit N] [--repo ID] [--json]\n"
    "\n"
    "What a change touches: the definitions it modifies, adds or removes, then\n"
    "their callers up to --depth levels, best first (score: nearer and surer\n"
    "calls weigh more). The calls that still name a removed or renamed\n"
    "definition are listed too: they break. The change is one of:\n"
    "  REVISIONS       git: A..B, A...B (from their merge base), or A (A to the\n"
    "                  work tree); default HEAD: the changes not committed yet\n"
    "  --diff FILE     a unified diff (git diff, diff -u); - reads standard input\n"
    "  --path P        file P changed as a whole (repeatable)\n"
    "The index is taken to hold the new side: index the repo first (a watcher\n"
    "does it); files whose diff does not match the index are listed as stale.\n"
    "\n"
    "options:\n"
    "  --depth N       caller levels (default 2, at most 8)\n"
    "  --limit N       at most N impacted definitions (default 50, at most 1000)\n" COMMON_OPTS;

/* ---- 2. printing the answers --------------------------------------------- */

static long long num(json_t *o, const char *k) { return json_integer_value(json_object_get(o, k)); }
static const char *str(json_t *o, const char *k) { return json_string_value(json_object_get(o, k)); }

static void print_defs(json_t *res)
{
    size_t i;
    json_t *d;
    json_array_foreach(json_object_get(res, "definitions"), i, d)
    {
        printf("defined  %s:%lld  %s %s", str(d, "path"), num(d, "line"), str(d, "kind"), str(d, "name"));
        if (str(d, "container")) printf(" in %s", str(d, "container"));
        putchar('\n');
    }
}

static void print_refs(json_t *res)
{
    print_defs(res);
    size_t i, k;
    json_t *f, *r;
    json_array_foreach(json_object_get(res, "files"), i, f)
    {
        json_array_foreach(json_object_get(f, "references"), k, r)
        {
            printf("%s:%lld: %s", str(f, "path"), num(r, "line"), str(r, "text"));
            if (str(r, "in")) printf("    [in %s %s]", str(r, "in_kind"), str(r, "in"));
            mg_cli_print_flags(r);
            putchar('\n');
        }
    }
    const char *next = str(res, "next_cursor");
    fprintf(stderr, "%lld reference%s in %zu file%s%s", num(res, "total"), num(res, "total") == 1 ? "" : "s",
            json_array_size(json_object_get(res, "files")), json_array_size(json_object_get(res, "files")) == 1 ? "" : "s",
            json_is_true(json_object_get(res, "complete")) ? "" : " on this page");
    if (next) fprintf(stderr, "; --cursor '%s' for the next page", next);
    fputc('\n', stderr);
}

static void print_call(json_t *c)
{
    printf("%s:%lld: %s %s -> %s", str(c, "path"), num(c, "line"), str(c, "from_kind"), str(c, "from_name"),
           str(c, "callee"));
    if (str(c, "to_path")) printf(" (%s:%lld, %s)", str(c, "to_path"), num(c, "to_line"), str(c, "confidence"));
    else printf(" (%s)", str(c, "confidence"));
}

/* One page of calls (the definitions with the first); the count after the
 * last, with where to go on when the pages stopped before the end. */
static void print_calls(json_t *res, bool first, bool last, size_t shown)
{
    if (first) print_defs(res);
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(res, "calls"), i, c)
    {
        printf("%*s", (int)(2 * (num(c, "depth") - 1)), "");
        print_call(c);
        putchar('\n');
    }
    if (!last) return;
    const char *next = str(res, "next_cursor");
    fprintf(stderr, "%zu of %lld%s call%s", shown, num(res, "total"), next ? "+" : "", num(res, "total") == 1 ? "" : "s");
    if (next) fprintf(stderr, "; --cursor '%s' for the next page", next);
    else if (json_is_true(json_object_get(res, "truncated")) && (long long)shown < num(res, "total"))
        fprintf(stderr, " (stopped early: lower --depth)");
    fputc('\n', stderr);
}

static void print_paths(json_t *res)
{
    size_t i, k;
    json_t *p, *c;
    json_array_foreach(json_object_get(res, "paths"), i, p)
    {
        json_array_foreach(p, k, c)
        {
            if (k == 0) printf("%s", str(c, "from_name"));
            printf(" -> %s (%s:%lld)", str(c, "callee"), str(c, "path"), num(c, "line"));
        }
        putchar('\n');
    }
    fprintf(stderr, "%zu path%s from %s to %s; %lld functions visited%s\n", json_array_size(json_object_get(res, "paths")),
            json_array_size(json_object_get(res, "paths")) == 1 ? "" : "s", str(res, "symbol"), str(res, "to"),
            num(res, "visited"), json_is_true(json_object_get(res, "truncated")) ? " (stopped at a bound)" : "");
}

static void print_impact(json_t *res)
{
    size_t i;
    json_t *d;
    json_array_foreach(json_object_get(res, "changed"), i, d)
    {
        printf("%-8s  %s:%lld  %s %s", str(d, "change"), str(d, "path"), num(d, "line"), str(d, "kind"), str(d, "name"));
        if (str(d, "container")) printf(" in %s", str(d, "container"));
        putchar('\n');
    }
    json_array_foreach(json_object_get(res, "impacted"), i, d)
    {
        printf("%6.3f  %s:%lld  %s %s  (depth %lld: calls %s at line %lld, %s)\n", json_real_value(json_object_get(d, "score")),
               str(d, "path"), num(d, "line"), str(d, "kind"), str(d, "name"), num(d, "depth"), str(d, "calls"),
               num(d, "call_line"), str(d, "confidence"));
    }
    json_array_foreach(json_object_get(res, "skipped"), i, d)
    fprintf(stderr, "skipped %s: %s\n", str(d, "path"),
            strcmp(str(d, "reason"), "stale") == 0 ? "the diff does not match the index (index the repo again)"
                                                  : "not in the index or the scope");
    fprintf(stderr, "%zu definition%s changed; %lld caller%s impacted%s\n",
            json_array_size(json_object_get(res, "changed")), json_array_size(json_object_get(res, "changed")) == 1 ? "" : "s",
            num(res, "total"), num(res, "total") == 1 ? "" : "s",
            json_is_true(json_object_get(res, "truncated")) ? " (stopped early: lower --depth)" : "");
}

/* ---- 3. running a navigation tool ---------------------------------------- */

/* A file's text (FILE, or standard input for "-"), at most max bytes. */
static char *read_all(const char *path, size_t max, struct mg_err *err)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) {
        mg_err_set(err, MG_E_PATH_NOT_FOUND, "cannot open the diff '%s'", path);
        return NULL;
    }
    size_t n = 0, cap = 65536;
    char *b = malloc(cap);
    while (b) {
        if (n + 1 >= cap) {
            if (cap > max) break;
            char *nb = realloc(b, cap * 2);
            if (!nb) {
                free(b);
                b = NULL;
                break;
            }
            b = nb;
            cap *= 2;
        }
        size_t r = fread(b + n, 1, cap - n - 1, f);
        if (r == 0) break;
        n += r;
    }
    bool ioerr = ferror(f);
    if (f != stdin) fclose(f);
    if (!b) {
        mg_err_oom(err);
        return NULL;
    }
    if (n > max) {
        free(b);
        mg_err_set(err, MG_E_BAD_DIFF, "the diff '%s' is over %zu MiB; split it", path, max >> 20);
        return NULL;
    }
    if (ioerr) {
        free(b);
        mg_err_set(err, MG_E_IO, "cannot read the diff '%s'", path);
        return NULL;
    }
    b[n] = 0;
    return b;
}

#define DIFF_MAX (16u << 20) /* search/impact.h's MG_DIFF_MAX_BYTES */

/* nargs: the positional arguments (-1: impact's optional REVISIONS). */
static int run_nav(const char *cmd, const char *tool, const char *help, int nargs, int argc, char **argv)
{
    static const struct option opts[] = {
        {"repo", required_argument, NULL, 'r'},   {"limit", required_argument, NULL, 'n'},
        {"depth", required_argument, NULL, 'd'},  {"cursor", required_argument, NULL, 'c'},
        {"glob", required_argument, NULL, 'g'},   {"exclude", required_argument, NULL, 'x'},
        {"lang", required_argument, NULL, 'l'},   {"tenant", required_argument, NULL, 'T'},
        {"json", no_argument, NULL, 'j'},         {"help", no_argument, NULL, 'h'},
        {"diff", required_argument, NULL, 'D'},   {"path", required_argument, NULL, 'P'},
        {NULL, 0, NULL, 0},
    };
    bool impact = nargs < 0;
    const char *repo = NULL, *cursor = NULL, *tenant = NULL, *diff = NULL;
    json_t *paths = json_array();
    long limit = 0, depth = 0;
    bool json = false;
    json_t *globs = json_array(), *excl = json_array(), *langs = json_array();
    int c, rc;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "hj", opts, NULL)) != -1) {
        switch (c) {
        case 'r': repo = optarg; break;
        case 'c': cursor = optarg; break; /* the tool checks it */
        case 'D':
        case 'P':
            if (!impact) {
                rc = mg_cli_usage(cmd, "unknown option '%s'", argv[optind - 1]);
                goto out;
            }
            if (c == 'D') diff = optarg;
            else json_array_append_new(paths, json_string(optarg));
            break;
        case 'T': tenant = optarg; break;
        case 'g': json_array_append_new(globs, json_string(optarg)); break;
        case 'x': json_array_append_new(excl, json_string(optarg)); break;
        case 'l': json_array_append_new(langs, json_string(optarg)); break;
        case 'n':
        case 'd': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || end == optarg || v < 1 || v > INT_MAX) {
                rc = mg_cli_usage(cmd, "--%s wants a positive number, got '%s'", c == 'n' ? "limit" : "depth", optarg);
                goto out;
            }
            *(c == 'n' ? &limit : &depth) = v;
            break;
        }
        case 'j': json = true; break;
        case 'h': fputs(help, stdout); rc = 0; goto out;
        default: rc = mg_cli_badopt(cmd, argc, argv, opts); goto out;
        }
    }
    if (impact ? argc - optind > 1 || (argc - optind == 1 && (diff || json_array_size(paths))) ||
                     (diff && json_array_size(paths))
               : argc - optind != nargs) {
        rc = mg_cli_usage(cmd, impact ? "name the change once: REVISIONS, --diff FILE or --path P"
                          : nargs == 1 ? "give exactly one SYMBOL" : "give FROM and TO");
        goto out;
    }
    struct mg_config cfg;
    if ((rc = mg_cli_config(&cfg)) != 0) goto out;
    struct mg_err err = {0};
    json_t *args = json_object();
    if (impact) {
        char *text = diff ? read_all(diff, DIFF_MAX, &err) : NULL;
        if (diff && !text) {
            json_decref(args);
            rc = mg_cli_fail(&err);
            goto out;
        }
        json_t *t = text ? json_stringn(text, strlen(text)) : NULL;
        free(text);
        if (diff && !t) {
            json_decref(args);
            mg_err_set(&err, MG_E_BAD_DIFF, "the diff '%s' is not valid UTF-8", diff);
            rc = mg_cli_fail(&err);
            goto out;
        }
        if (t) json_object_set_new(args, "diff", t);
        else if (json_array_size(paths)) json_object_set(args, "paths", paths);
        else json_object_set_new(args, "revisions", json_string(optind < argc ? argv[optind] : "HEAD"));
    }
    json_t *sym = impact ? NULL : json_string(argv[optind]), *to = nargs == 2 ? json_string(argv[optind + 1]) : NULL;
    if (!impact && (!sym || (nargs == 2 && !to))) {
        json_decref(sym);
        json_decref(to);
        json_decref(args);
        mg_err_set(&err, MG_E_BAD_ARG, "a symbol name is not valid UTF-8");
        rc = mg_cli_fail(&err);
        goto out;
    }
    if (sym) json_object_set_new(args, "symbol", sym);
    if (to) json_object_set_new(args, "to", to);
    if (repo) json_object_set_new(args, "repo", json_string(repo));
    if (cursor) json_object_set_new(args, "cursor", json_string(cursor));
    if (limit) json_object_set_new(args, "limit", json_integer(limit));
    if (depth) json_object_set_new(args, "depth", json_integer(depth));
    if (json_array_size(globs)) json_object_set(args, "globs", globs);
    if (json_array_size(excl)) json_object_set(args, "exclude_globs", excl);
    if (json_array_size(langs)) json_object_set(args, "languages", langs);
    struct mg_cli_req q;
    if (mg_cli_begin(&q, &cfg, tenant, tool, false, &err) != 0) {
        json_decref(args);
        rc = mg_cli_fail(&err);
        goto out;
    }
    json_t *res = NULL;
    bool calls = strcmp(tool, "callers") == 0 || strcmp(tool, "callees") == 0;
    json_t *again = calls && !json ? json_deep_copy(args) : NULL; /* (the tool takes args) */
    if (mg_cli_tool(&q, tool, args, &res, &err) != 0) {
        rc = mg_cli_fail(&err);
    } else if (calls && !json) {
        /* callers, callees: page on until --limit calls are shown (a page may hold fewer, for the
         * response's cap), unless a --cursor asked for one page */
        long want = limit ? limit : 100;
        size_t shown = json_array_size(json_object_get(res, "calls"));
        bool first = true;
        rc = 0;
        while (!cursor && str(res, "next_cursor") && (long)shown < want) {
            print_calls(res, first, false, shown);
            first = false;
            json_object_set_new(again, "cursor", json_string(str(res, "next_cursor")));
            json_object_set_new(again, "limit", json_integer(want - (long)shown > 1000 ? 1000 : want - (long)shown));
            json_t *more = NULL;
            if (mg_cli_tool(&q, tool, json_deep_copy(again), &more, &err) != 0) {
                rc = mg_cli_fail(&err);
                break;
            }
            json_decref(res);
            res = more;
            shown += json_array_size(json_object_get(res, "calls"));
        }
        if (rc == 0) print_calls(res, first, true, shown);
    } else {
        if (json) mg_cli_print_json(res);
        else if (strcmp(tool, "find_references") == 0) print_refs(res);
        else if (strcmp(tool, "trace_path") == 0) print_paths(res);
        else if (impact) print_impact(res);
        rc = 0;
    }
    json_decref(res);
    json_decref(again);
    mg_cli_end(&q);
out:
    json_decref(paths);
    json_decref(globs);
    json_decref(excl);
    json_decref(langs);
    return rc;
}

/* ---- 4. the commands ----------------------------------------------------- */

int mg_cmd_refs(int argc, char **argv) { return run_nav("refs", "find_references", HELP_REFS, 1, argc, argv); }
int mg_cmd_callers(int argc, char **argv) { return run_nav("callers", "callers", HELP_CALLERS, 1, argc, argv); }
int mg_cmd_callees(int argc, char **argv) { return run_nav("callees", "callees", HELP_CALLEES, 1, argc, argv); }
int mg_cmd_trace(int argc, char **argv) { return run_nav("trace", "trace_path", HELP_TRACE, 2, argc, argv); }
int mg_cmd_impact(int argc, char **argv) { return run_nav("impact", "impact", HELP_IMPACT, -1, argc, argv); }
