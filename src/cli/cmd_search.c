/* cmd_search.c — `memgate search QUERY`. */
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"

static const char *HELP =
    "usage: memgate search QUERY [--repo ID]... [--glob G]... [--exclude G]... [--lang L]...\n"
    "                      [--mode lexical|regex|symbol|semantic|hybrid] [-F] [-i] [--limit N]\n"
    "                      [--tenant T] [--json]\n"
    "\n"
    "Search indexed code. Results name the repo, file, line range, enclosing\n"
    "symbol and a snippet; lexical and regex results show every matching line of\n"
    "their chunk (at most 20) with its number, grep-like (\"  123: text\").\n"
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
    "  --repo ID       search this repo (repeatable: several need cross_repo = 1).\n"
    "                  Default: the repo whose root contains the current directory,\n"
    "                  else the only repo\n"
    "  --glob G        only paths matching G (repeatable; '!G' excludes), e.g. '*.c',\n"
    "                  'drivers/net/**', 'src/{a,b}/*.go'\n"
    "  --exclude G     leave out paths matching G (repeatable)\n"
    "  --lang L        only files of language L (repeatable): c, cpp, go, java,\n"
    "                  javascript, python, rust, typescript, markdown, ...\n"
    "  --mode M        lexical, regex, symbol, semantic, hybrid (or auto, the default)\n"
    "  -F, --fixed-strings  regex mode: the query is a literal string\n"
    "  -i, --ignore-case    regex mode: match case-insensitively\n"
    "  --limit N       at most N results (default 20; config search_limit)\n"
    "  --tenant T      search as tenant T (default local)\n"
    "  --json          search_code's result: {\"results\":[{repo,path,start_line,\n"
    "                  end_line,line,language,symbol,kind,score,snippet,snippet_line,\n"
    "                  match_count?,match_lines?:[{line,text}],match_lines_omitted?,\n"
    "                  source,flags?}],\"took_ms\":N,\"mode\":M,\"total_matches\"?:N,\n"
    "                  \"total_matches_capped\"?:true,\"scope\":{..},\"gate\":{..}}\n"
    "  -h, --help      this help\n";

static void print_human(json_t *res, bool show_repo)
{
    json_t *hits = json_object_get(res, "results"), *h;
    size_t i;
    json_array_foreach(hits, i, h)
    {
        const char *sym = json_string_value(json_object_get(h, "symbol"));
        const char *kind = json_string_value(json_object_get(h, "kind"));
        const char *lang = json_string_value(json_object_get(h, "language"));
        printf("%s%s%s:%lld-%lld", show_repo ? json_string_value(json_object_get(h, "repo")) : "", show_repo ? ":" : "",
               json_string_value(json_object_get(h, "path")), (long long)json_integer_value(json_object_get(h, "start_line")),
               (long long)json_integer_value(json_object_get(h, "end_line")));
        if (sym) printf("  %s (%s)", sym, kind ? kind : "?");
        printf("  [%s]", lang ? lang : "text");
        mg_cli_print_flags(h);
        putchar('\n');
        /* the text passed the gate: secrets redacted, escape sequences and hidden characters removed */
        json_t *lines = json_object_get(h, "match_lines"), *l;
        size_t k;
        if (json_array_size(lines)) { /* lexical, regex: every matching line, grep-like */
            json_array_foreach(lines, k, l)
                printf("  %6lld: %s\n", (long long)json_integer_value(json_object_get(l, "line")),
                       json_string_value(json_object_get(l, "text")));
            long long more = json_integer_value(json_object_get(h, "match_lines_omitted"));
            if (more) printf("          (%lld more matching line%s)\n", more, more == 1 ? "" : "s");
            continue;
        }
        const char *s = json_string_value(json_object_get(h, "snippet"));
        long long line = json_integer_value(json_object_get(h, "snippet_line"));
        while (s && *s) {
            const char *nl = strchr(s, '\n');
            int n = nl ? (int)(nl - s) : (int)strlen(s);
            printf("  %6lld  %.*s\n", line++, n, s);
            s += n + (nl ? 1 : 0);
        }
    }
    size_t n = json_array_size(hits);
    json_t *total = json_object_get(res, "total_matches");
    if (total)
        fprintf(stderr, "%zu result%s, %s%lld match%s in all, in %.1f ms\n", n, n == 1 ? "" : "s",
                json_is_true(json_object_get(res, "total_matches_capped")) ? "at least " : "",
                (long long)json_integer_value(total), json_integer_value(total) == 1 ? "" : "es",
                json_real_value(json_object_get(res, "took_ms")));
    else
        fprintf(stderr, "%zu result%s in %.1f ms\n", n, n == 1 ? "" : "s",
                json_real_value(json_object_get(res, "took_ms")));
}

static json_t *strs(const struct mg_strv *v)
{
    json_t *a = json_array();
    for (size_t i = 0; i < v->n; i++) json_array_append_new(a, json_string(v->v[i]));
    return a;
}

int mg_cmd_search(int argc, char **argv)
{
    static const struct option opts[] = {
        {"repo", required_argument, NULL, 'r'},   {"glob", required_argument, NULL, 'g'},
        {"exclude", required_argument, NULL, 'x'}, {"lang", required_argument, NULL, 'l'},
        {"mode", required_argument, NULL, 'm'},   {"limit", required_argument, NULL, 'n'},
        {"json", no_argument, NULL, 'j'},         {"fixed-strings", no_argument, NULL, 'F'},
        {"ignore-case", no_argument, NULL, 'i'},  {"tenant", required_argument, NULL, 'T'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
    };
    struct mg_strv repos = {0}, globs = {0}, excl = {0}, langs = {0};
    const char *mode_s = NULL, *tenant = NULL;
    long limit = 0;
    struct mg_err err = {0};
    bool json = false, fixed = false, icase = false;
    int c, rc = 2;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "hjFi", opts, NULL)) != -1) {
        switch (c) {
        case 'r': mg_strv_push(&repos, optarg); break;
        case 'g': mg_strv_push(&globs, optarg); break;
        case 'x': mg_strv_push(&excl, optarg); break;
        case 'l': mg_strv_push(&langs, optarg); break;
        case 'T': tenant = optarg; break;
        case 'm': mode_s = optarg; break; /* the tool checks it */
        case 'n': {
            char *end;
            limit = strtol(optarg, &end, 10);
            if (*end || end == optarg || limit < 1 || limit > INT_MAX) {
                rc = mg_cli_usage("search", "--limit wants a positive number, got '%s'", optarg);
                goto out;
            }
            break;
        }
        case 'j': json = true; break;
        case 'F': fixed = true; break;
        case 'i': icase = true; break;
        case 'h': fputs(HELP, stdout); rc = 0; goto out;
        default: rc = mg_cli_badopt("search", argc, argv, opts); goto out;
        }
    }
    if (optind != argc - 1) {
        rc = mg_cli_usage("search", "give exactly one QUERY (quote it if it has spaces)");
        goto out;
    }
    if ((fixed || icase) && !(mode_s && strcmp(mode_s, "regex") == 0)) {
        /* -F / -i imply regex */
        if (!mode_s || strcmp(mode_s, "lexical") == 0 || strcmp(mode_s, "auto") == 0) mode_s = "regex";
        else {
            rc = mg_cli_usage("search", "-F and -i apply to regex mode only, not --mode %s", mode_s);
            goto out;
        }
    }
    if (mode_s && strcmp(mode_s, "auto") == 0) mode_s = NULL;

    struct mg_config cfg;
    if ((rc = mg_cli_config(&cfg)) != 0) goto out;
    json_t *qj = json_string(argv[optind]);
    if (!qj) {
        mg_err_set(&err, MG_E_QUERY_INVALID, "the query is not valid UTF-8; search for UTF-8 text");
        rc = mg_cli_fail(&err);
        goto out;
    }
    json_t *args = json_pack("{s:o}", "query", qj);
    if (mode_s) json_object_set_new(args, "mode", json_string(mode_s));
    if (fixed) json_object_set_new(args, "fixed", json_true());
    if (icase) json_object_set_new(args, "ignore_case", json_true());
    if (limit) json_object_set_new(args, "limit", json_integer(limit));
    if (globs.n) json_object_set_new(args, "globs", strs(&globs));
    if (excl.n) json_object_set_new(args, "exclude_globs", strs(&excl));
    if (langs.n) json_object_set_new(args, "languages", strs(&langs));
    if (repos.n == 1) json_object_set_new(args, "repo", json_string(repos.v[0]));
    struct mg_cli_req q;
    if (mg_cli_begin(&q, &cfg, tenant, "search_code", false, &err) != 0) {
        json_decref(args);
        rc = mg_cli_fail(&err);
        goto out;
    }
    /* several --repo: this command's own session scope names them (the cross-repo policy applies) */
    struct mg_scope sc = {0};
    for (size_t i = 0; repos.n > 1 && i < repos.n; i++) mg_scope_push(&sc.repos, &sc.nrepos, repos.v[i]);
    if (sc.nrepos) mg_session_set_scope(q.x.session, &sc, &err); /* (a command's own session: nothing to store) */
    json_t *res = NULL;
    if (mg_cli_tool(&q, "search_code", args, &res, &err) != 0) {
        rc = mg_cli_fail(&err);
    } else {
        if (json) mg_cli_print_json(res);
        else print_human(res, json_array_size(json_object_get(json_object_get(res, "scope"), "repos")) > 1);
        rc = 0;
    }
    json_decref(res);
    mg_cli_end(&q);
out:
    mg_strv_release(&repos);
    mg_strv_release(&globs);
    mg_strv_release(&excl);
    mg_strv_release(&langs);
    return rc;
}
