/* cmd_search.c — `memgate search QUERY`. */
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "security/sanitize.h"
#include "search/search.h"
#include "store/catalog.h"

static const char *HELP =
    "usage: memgate search QUERY [--repo ID]... [--glob G]... [--exclude G]... [--lang L]...\n"
    "                      [--mode lexical|regex|symbol|semantic|hybrid] [-F] [-i] [--limit N] [--json]\n"
    "\n"
    "Search indexed code. Results name the repo, file, line range, enclosing\n"
    "symbol and a snippet.\n"
    "\n"
    "modes:\n"
    "  (default)          hybrid for natural language (3+ words, no code punctuation\n"
    "                     or identifiers), else lexical\n"
    "  lexical            ranked word search; identifiers match across spellings:\n"
    "                     parseHttpHeader, parse_http_header and \"http header\" find\n"
    "                     each other. A query without words (\"->\") is a literal search.\n"
    "  regex              PCRE2 regular expression, narrowed by a trigram index\n"
    "  symbol             definitions by name: exact, any case, prefix, sub-word\n"
    "  semantic           chunks nearest the query by embedding (docs/semantic.md)\n"
    "  hybrid             lexical, symbol and semantic fused by reciprocal rank\n"
    "\n"
    "options:\n"
    "  --repo ID       search this repo (repeatable). Default: the repo whose root\n"
    "                  contains the current directory, else the only repo\n"
    "  --glob G        only paths matching G (repeatable; '!G' excludes), e.g. '*.c',\n"
    "                  'drivers/net/**', 'src/{a,b}/*.go'\n"
    "  --exclude G     leave out paths matching G (repeatable)\n"
    "  --lang L        only files of language L (repeatable): c, cpp, go, java,\n"
    "                  javascript, python, rust, typescript, markdown, ...\n"
    "  --mode M        lexical, regex, symbol, semantic, hybrid (or auto, the default)\n"
    "  -F, --fixed-strings  regex mode: the query is a literal string\n"
    "  -i, --ignore-case    regex mode: match case-insensitively\n"
    "  --limit N       at most N results (default 20; config search_limit)\n"
    "  --json          {\"results\":[{repo,path,start_line,end_line,language,symbol,kind,\n"
    "                  score,snippet,line}],\"took_ms\":N,\"mode\":M}\n"
    "  -h, --help      this help\n";

static json_t *jstr(const char *s) { return s ? json_string(s) : json_null(); }

static void print_json(const struct mg_results *r)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < r->n; i++) {
        const struct mg_hit *h = &r->v[i];
        json_t *o = json_object();
        json_object_set_new(o, "repo", json_string(h->repo));
        json_object_set_new(o, "path", jstr(h->path));
        json_object_set_new(o, "start_line", json_integer(h->start_line));
        json_object_set_new(o, "end_line", json_integer(h->end_line));
        json_object_set_new(o, "language", jstr(h->language));
        json_object_set_new(o, "symbol", jstr(h->symbol));
        json_object_set_new(o, "kind", jstr(h->kind));
        json_object_set_new(o, "score", json_real((double)(long long)(h->score * 1000 + 0.5) / 1000));
        json_object_set_new(o, "snippet", jstr(h->snippet ? h->snippet : ""));
        json_object_set_new(o, "line", json_integer(h->line));
        json_array_append_new(arr, o);
    }
    json_t *top = json_pack("{s:o, s:f, s:s}", "results", arr, "took_ms",
                            (double)(long long)(r->took_ms * 1000 + 0.5) / 1000, "mode", r->mode);
    char *s = json_dumps(top, JSON_COMPACT);
    puts(s);
    free(s);
    json_decref(top);
}

static void print_human(const struct mg_results *r, bool show_repo)
{
    for (size_t i = 0; i < r->n; i++) {
        const struct mg_hit *h = &r->v[i];
        printf("%s%s%s:%d-%d", show_repo ? h->repo : "", show_repo ? ":" : "", h->path, h->start_line, h->end_line);
        if (h->symbol) printf("  %s (%s)", h->symbol, h->kind ? h->kind : "?");
        printf("  [%s]\n", h->language ? h->language : "text");
        /* indexed text may hold terminal escape sequences: never print them raw */
        struct mg_buf clean;
        mg_buf_init(&clean, (size_t)1 << 30);
        const char *s = h->snippet && mg_sanitize(h->snippet, strlen(h->snippet), &clean, NULL) == 0 && clean.p
                            ? clean.p
                            : "";
        int line = h->snippet_line;
        while (*s) {
            const char *nl = strchr(s, '\n');
            int n = nl ? (int)(nl - s) : (int)strlen(s);
            printf("  %6d  %.*s\n", line++, n, s);
            s += n + (nl ? 1 : 0);
        }
        mg_buf_release(&clean);
    }
    fprintf(stderr, "%zu result%s in %.1f ms\n", r->n, r->n == 1 ? "" : "s", r->took_ms);
}

int mg_cmd_search(int argc, char **argv)
{
    static const struct option opts[] = {
        {"repo", required_argument, NULL, 'r'},   {"glob", required_argument, NULL, 'g'},
        {"exclude", required_argument, NULL, 'x'}, {"lang", required_argument, NULL, 'l'},
        {"mode", required_argument, NULL, 'm'},   {"limit", required_argument, NULL, 'n'},
        {"json", no_argument, NULL, 'j'},         {"fixed-strings", no_argument, NULL, 'F'},
        {"ignore-case", no_argument, NULL, 'i'},  {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct mg_strv repos = {0}, globs = {0}, excl = {0}, langs = {0};
    struct mg_search_req q = {.mode = MG_MODE_AUTO};
    struct mg_err err = {0};
    bool json = false;
    int c, rc = 2;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "hjFi", opts, NULL)) != -1) {
        switch (c) {
        case 'r': mg_strv_push(&repos, optarg); break;
        case 'g': mg_strv_push(&globs, optarg); break;
        case 'x': mg_strv_push(&excl, optarg); break;
        case 'l': mg_strv_push(&langs, optarg); break;
        case 'm':
            if (mg_mode_parse(optarg, &q.mode, &err) != 0) {
                rc = mg_cli_fail(&err);
                goto out;
            }
            break;
        case 'n': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || end == optarg || v < 1 || v > INT_MAX) {
                rc = mg_cli_usage("search", "--limit wants a positive number, got '%s'", optarg);
                goto out;
            }
            q.limit = (int)v;
            break;
        }
        case 'j': json = true; break;
        case 'F': q.fixed = true; break;
        case 'i': q.ignore_case = true; break;
        case 'h': fputs(HELP, stdout); rc = 0; goto out;
        default: rc = mg_cli_usage("search", "unknown or incomplete option '%s'", argv[optind - 1]); goto out;
        }
    }
    if (optind != argc - 1) {
        rc = mg_cli_usage("search", "give exactly one QUERY (quote it if it has spaces)");
        goto out;
    }
    if ((q.fixed || q.ignore_case) && q.mode != MG_MODE_REGEX) {
        if (q.mode == MG_MODE_LEXICAL || q.mode == MG_MODE_AUTO) q.mode = MG_MODE_REGEX; /* -F / -i imply regex */
        else {
            rc = mg_cli_usage("search", "-F and -i apply to regex mode only");
            goto out;
        }
    }
    q.query = argv[optind];
    q.globs = globs.v;
    q.nglobs = globs.n;
    q.excludes = excl.v;
    q.nexcludes = excl.n;
    q.langs = langs.v;
    q.nlangs = langs.n;

    struct mg_config cfg;
    if ((rc = mg_cli_config(&cfg)) != 0) goto out;
    if (mg_search_validate(&cfg, &q, &err) != 0) {
        rc = mg_cli_fail(&err);
        goto out;
    }
    char cwd[PATH_MAX], real[PATH_MAX];
    const char *where = getcwd(cwd, sizeof(cwd)) && realpath(cwd, real) ? real : NULL;
    struct mg_repo *rv;
    size_t nr;
    if (mg_catalog_resolve(&cfg, repos.v, repos.n, where, &rv, &nr, &err) != 0) {
        rc = mg_cli_fail(&err);
        goto out;
    }
    struct mg_results res;
    char used[512];
    mg_repo_id_list(rv, nr, used, sizeof(used));
    if (mg_search(&cfg, rv, nr, &q, &res, &err) != 0) {
        mg_cli_audit(&cfg, NULL, "search", used, q.query, 0, 0, NULL, err.code);
        free(rv);
        rc = mg_cli_fail(&err);
        goto out;
    }
    mg_cli_audit(&cfg, NULL, "search", used, q.query, (long long)res.n, 0, NULL, NULL);
    if (json) print_json(&res);
    else print_human(&res, nr > 1);
    mg_results_release(&res);
    free(rv);
    rc = 0;
out:
    mg_strv_release(&repos);
    mg_strv_release(&globs);
    mg_strv_release(&excl);
    mg_strv_release(&langs);
    return rc;
}
