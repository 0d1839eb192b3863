/* cmd_token.c — `memgate token create|list|revoke`. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

#include "cli/cli.h"
#include "request/gate.h"
#include "security/token.h"
#include "util/json.h"

static const char *HELP =
    "usage: memgate token create --tenant T [--repos A,B] [--scope read|write|admin]\n"
    "                            [--name LABEL] [--expires DURATION] [--rate N] [--json]\n"
    "       memgate token list [--json]\n"
    "       memgate token revoke ID [--json]\n"
    "\n"
    "Access tokens for `memgate serve` (HTTP bearer tokens). `create` prints the\n"
    "token once, on stdout (details on stderr): memgate keeps only a keyed hash\n"
    "of it (in tokens.db, or the shared database with storage = postgres://...),\n"
    "so store it now. `list` shows every token (never the\n"
    "secret); `revoke` disables one at once, also for a running server.\n"
    "\n"
    "options (create):\n"
    "  --tenant T          the tenant the token acts for: 1-64 of a-z 0-9 . _ - (required)\n"
    "  --repos A,B         repo ids the token may use (default: every repo of the tenant)\n"
    "  --scope S           read (default), write or admin\n"
    "  --name LABEL        a label for `token list` (at most 64 bytes)\n"
    "  --expires DURATION  e.g. 3600, 90m, 12h, 30d, 2w (default: never)\n"
    "  --rate N            requests per minute (default: the token_rate_limit setting,\n"
    "                      600; 0 = unlimited)\n"
    "options:\n"
    "  --json              create: {\"token\",\"id\",\"tenant\",\"repos\",\"scope\",\"name\",\"rate\",\n"
    "                      \"created\",\"expires\"}; list: an array of {\"id\",\"tenant\",\"repos\",\n"
    "                      \"scope\",\"name\",\"rate\",\"created\",\"expires\",\"last_used\",\"revoked\"}\n"
    "                      (unix seconds, 0 = never; rate null = the setting)\n"
    "  -h, --help          this help\n"
    "\n"
    "create and revoke are recorded in the audit log (`memgate audit`).\n";

static json_t *token_json(const struct mg_token *t)
{
    json_t *repos = json_array();
    for (size_t i = 0; i < t->nrepos; i++) json_array_append_new(repos, json_string(t->repos[i]));
    return json_pack("{s:s, s:s, s:o, s:s, s:s, s:o, s:I, s:I, s:I, s:I}", "id", t->id, "tenant", t->tenant, "repos",
                     repos, "scope", mg_level_name(t->level), "name", t->name, "rate",
                     t->rate_own >= 0 ? json_integer(t->rate_own) : json_null(), "created", (json_int_t)t->created,
                     "expires", (json_int_t)t->expires, "last_used", (json_int_t)t->last_used, "revoked",
                     (json_int_t)t->revoked);
}

static void when(long long t, const char *never, char *buf, size_t cap)
{
    if (!t) {
        snprintf(buf, cap, "%s", never);
        return;
    }
    time_t tt = (time_t)t;
    struct tm tm;
    strftime(buf, cap, "%Y-%m-%d %H:%M", localtime_r(&tt, &tm));
}

static const char *repos_text(const struct mg_token *t, char *buf, size_t cap)
{
    size_t k = 0;
    snprintf(buf, cap, "all");
    for (size_t j = 0; j < t->nrepos && k < cap; j++)
        k += (size_t)snprintf(buf + k, cap - k, "%s%s", j ? "," : "", t->repos[j]);
    return buf;
}

/* The token store is no provider: the command records what it did as a
 * request of the token's tenant (audited like every request). */
static void audit_token(const struct mg_config *cfg, const char *op, const char *tenant, const char *id,
                        const char *flag)
{
    struct mg_err err = {0};
    struct mg_cli_req q;
    if (mg_cli_begin(&q, cfg, tenant, op, false, &err) != 0) {
        fprintf(stderr, "warning: the %s was done but could not be written to the audit log in %s/audit: ", op,
                cfg->home);
        mg_err_print(&err);
        return;
    }
    mg_gate_subject(&q.x, id);
    q.x.audit.write = true;
    q.x.audit.flag = flag;
    mg_gate_finish(&q.x, 0, NULL);
    mg_cli_end(&q);
}

static int split_csv(char *s, struct mg_strv *v)
{
    for (char *tok = strtok(s, ","); tok; tok = strtok(NULL, ","))
        if (mg_strv_push(v, tok) != 0) return -1;
    return 0;
}

int mg_cmd_token(int argc, char **argv)
{
    static const struct option opts[] = {{"tenant", required_argument, NULL, 't'},
                                         {"repos", required_argument, NULL, 'r'},
                                         {"scope", required_argument, NULL, 's'},
                                         {"name", required_argument, NULL, 'n'},
                                         {"expires", required_argument, NULL, 'e'},
                                         {"rate", required_argument, NULL, 'R'},
                                         {"json", no_argument, NULL, 'j'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    bool json = false, create_opts = false;
    const char *tenant = NULL, *scope_s = "read", *name = "", *expires_s = NULL, *rate_s = NULL;
    char *repos_s = NULL;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "hj", opts, NULL)) != -1) {
        switch (c) {
        case 't': tenant = optarg, create_opts = true; break;
        case 'r': repos_s = optarg, create_opts = true; break;
        case 's': scope_s = optarg, create_opts = true; break;
        case 'n': name = optarg, create_opts = true; break;
        case 'e': expires_s = optarg, create_opts = true; break;
        case 'R': rate_s = optarg, create_opts = true; break;
        case 'j': json = true; break;
        case 'h': fputs(HELP, stdout); return 0;
        default: return mg_cli_badopt("token", argc, argv, opts);
        }
    }
    if (optind >= argc) return mg_cli_usage("token", "give a subcommand: create, list or revoke");
    const char *sub = argv[optind];
    bool is_create = strcmp(sub, "create") == 0, is_list = strcmp(sub, "list") == 0,
         is_revoke = strcmp(sub, "revoke") == 0;
    if (!is_create && !is_list && !is_revoke)
        return mg_cli_usage("token", "unknown subcommand '%s' (create, list, revoke)", sub);
    if (!is_create && create_opts) return mg_cli_usage("token", "--tenant, --repos, --scope, --name, --expires and "
                                                       "--rate go with `token create`");
    if (is_revoke && optind + 2 != argc) return mg_cli_usage("token", "`token revoke` takes exactly one token ID");
    if (!is_revoke && optind + 1 != argc) return mg_cli_usage("token", "unexpected argument '%s'", argv[optind + 1]);

    struct mg_token spec = {.level = MG_LEVEL_READ, .rate_own = -1};
    struct mg_strv repos = {0};
    if (is_create) {
        if (!tenant) return mg_cli_usage("token", "`token create` needs --tenant");
        if (mg_level_parse(scope_s, &spec.level) != 0)
            return mg_cli_usage("token", "--scope must be read, write or admin, not '%s'", scope_s);
        if (expires_s) {
            int64_t secs;
            if (mg_parse_duration(expires_s, &secs) != 0)
                return mg_cli_usage("token", "--expires takes a duration such as 3600, 90m, 12h, 30d or 2w, not '%s'",
                                    expires_s);
            spec.expires = (long long)(mg_wall_ms() / 1000) + secs;
        }
        if (rate_s) {
            char *end;
            long v = strtol(rate_s, &end, 10);
            if (end == rate_s || *end || v < 0 || v > 1000000)
                return mg_cli_usage("token", "--rate takes 0 (unlimited) to 1000000 requests per minute, not '%s'",
                                    rate_s);
            spec.rate_own = (int)v;
        }
        if (strlen(tenant) > MG_TENANT_MAX || strlen(name) > MG_TOKEN_NAME_MAX) {
            struct mg_err e = {0};
            mg_err_set(&e, MG_E_NAME_INVALID, "--tenant is at most %d characters and --name at most %d bytes",
                       MG_TENANT_MAX, MG_TOKEN_NAME_MAX);
            return mg_cli_fail(&e);
        }
        snprintf(spec.tenant, sizeof(spec.tenant), "%s", tenant);
        snprintf(spec.name, sizeof(spec.name), "%s", name);
        if (repos_s && split_csv(repos_s, &repos) != 0) {
            mg_strv_release(&repos);
            struct mg_err e = {0};
            mg_err_set(&e, MG_E_NO_MEMORY, "out of memory");
            return mg_cli_fail(&e);
        }
        spec.repos = (char **)repos.v;
        spec.nrepos = repos.n;
    }

    struct mg_config cfg;
    int rc = mg_cli_config(&cfg);
    if (rc) {
        mg_strv_release(&repos);
        return rc;
    }
    struct mg_err err = {0};
    struct mg_tokens *t = NULL;
    if (mg_tokens_open(&cfg, &t, &err) != 0) {
        mg_tokens_close(t);
        mg_strv_release(&repos);
        return mg_cli_fail(&err);
    }
    rc = 0;
    if (is_create) {
        char text[MG_TOKEN_LEN + 1];
        struct mg_token made;
        if (mg_tokens_create(t, &spec, &made, text, &err) != 0) {
            rc = mg_cli_fail(&err);
        } else {
            audit_token(&cfg, "token_create", made.tenant, made.id, mg_level_name(made.level));
            if (json) {
                json_t *o = token_json(&made);
                json_object_del(o, "last_used");
                json_object_del(o, "revoked");
                json_object_set_new(o, "token", json_string(text));
                char *s = json_dumps(o, MG_JSON_DUMP);
                puts(s);
                sodium_memzero(s, strlen(s));
                free(s);
                json_decref(o);
            } else {
                char exp[32], rate[32], rp[256];
                when(made.expires, "never", exp, sizeof(exp));
                if (made.rate_per_min) snprintf(rate, sizeof(rate), "%d/min", made.rate_per_min);
                else snprintf(rate, sizeof(rate), "unlimited");
                puts(text);
                fprintf(stderr, "created token %s: tenant %s, scope %s, repos %s, expires %s, rate %s\n"
                        "This is the only time the token is shown: memgate keeps a hash of it. Store it now.\n",
                        made.id, made.tenant, mg_level_name(made.level), repos_text(&made, rp, sizeof(rp)), exp,
                        rate);
            }
            fflush(stdout);
            sodium_memzero(text, sizeof(text));
            mg_token_release(&made);
        }
    } else if (is_list) {
        struct mg_token *v;
        size_t n;
        if (mg_tokens_list(t, &v, &n, &err) != 0) {
            rc = mg_cli_fail(&err);
        } else if (json) {
            json_t *arr = json_array();
            for (size_t i = 0; i < n; i++) json_array_append_new(arr, token_json(&v[i]));
            char *s = json_dumps(arr, MG_JSON_DUMP);
            puts(s);
            free(s);
            json_decref(arr);
        } else if (n == 0) {
            fprintf(stderr, "no tokens in %s; create one with `memgate token create --tenant NAME`\n",
                    mg_tokens_shared(t) ? "the shared database" : cfg.home);
        } else {
            long long now = (long long)(mg_wall_ms() / 1000);
            printf("%-16s  %-16s  %-5s  %-7s  %-16s  %-16s  %-16s  %-20s  %s\n", "ID", "TENANT", "SCOPE", "STATUS",
                   "CREATED", "EXPIRES", "LAST USED", "REPOS", "NAME");
            for (size_t i = 0; i < n; i++) {
                char cr[32], ex[32], lu[32], rp[256];
                when(v[i].created, "-", cr, sizeof(cr));
                when(v[i].expires, "never", ex, sizeof(ex));
                when(v[i].last_used, "never", lu, sizeof(lu));
                repos_text(&v[i], rp, sizeof(rp));
                const char *status = v[i].revoked                           ? "revoked"
                                     : v[i].expires && now >= v[i].expires ? "expired"
                                                                           : "active";
                printf("%-16s  %-16s  %-5s  %-7s  %-16s  %-16s  %-16s  %-20s  %s\n", v[i].id, v[i].tenant,
                       mg_level_name(v[i].level), status, cr, ex, lu, rp, v[i].name);
            }
        }
        if (rc == 0) mg_tokens_list_free(v, n);
    } else {
        const char *id = argv[optind + 1];
        bool was = false;
        char tenant_of[MG_TENANT_MAX + 1] = "";
        if (mg_tokens_revoke(t, id, &was, tenant_of, &err) != 0) {
            rc = mg_cli_fail(&err);
        } else {
            char idonly[MG_TOKEN_ID_LEN + 1];
            snprintf(idonly, sizeof(idonly), "%s", strncmp(id, "mgt_", 4) == 0 ? id + 4 : id);
            if (!was) audit_token(&cfg, "token_revoke", tenant_of, idonly, NULL);
            if (json) printf("{\"revoked\":\"%s\",\"already\":%s}\n", idonly, was ? "true" : "false");
            else printf(was ? "token %s was already revoked\n" : "revoked token %s\n", idonly);
        }
    }
    mg_tokens_close(t);
    mg_strv_release(&repos);
    return rc;
}
