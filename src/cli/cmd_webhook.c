/* cmd_webhook.c — `memgate webhook secret list|set|rotate|remove`: the
 * per-tenant webhook secrets (webhook_secrets, docs/webhooks.md) written into
 * the config file, which holds them and nothing else does: rewritten whole
 * (util/file.h: a new file, synced, renamed over the old one, mode 0600),
 * every other line kept as it was. A secret is printed once, when made;
 * `list` names the tenants only.
 *
 * Sections:
 *   1. the config file's webhook_secrets
 *   2. writing it back
 *   3. the command
 */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "cli/cli.h"
#include "util/config.h"
#include "util/file.h"
#include "util/json.h"
#include "util/word.h"

static const char *HELP =
    "usage: memgate webhook secret list [--json]\n"
    "       memgate webhook secret set --tenant T [--json]\n"
    "       memgate webhook secret rotate --tenant T [--json]\n"
    "       memgate webhook secret remove --tenant T [--json]\n"
    "\n"
    "A tenant's own webhook secret (the webhook_secrets setting: its pushes\n"
    "re-index its repos only; docs/webhooks.md), kept in the config file and\n"
    "nowhere else. `set` makes a new random secret (32 bytes, base64url) for a\n"
    "tenant and prints it once on stdout: give it to the forge's webhook now.\n"
    "`rotate` does the same for a tenant that has one (the old one stops\n"
    "working); `remove` deletes the tenant's entry; `list` names the tenants\n"
    "that have one (never a secret). The config file is rewritten whole and\n"
    "atomically with mode 0600, its other lines as they were. A running\n"
    "`memgate serve` uses the change after a restart.\n"
    "\n"
    "options:\n"
    "  --tenant T   the tenant: 1-64 of a-z 0-9 . _ - (set, rotate, remove)\n"
    "  --json       list: {\"config\",\"tenants\":[...]}; set, rotate: {\"config\",\"tenant\",\n"
    "               \"secret\"}; remove: {\"config\",\"tenant\",\"removed\"}\n"
    "  -h, --help   this help\n";

/* ---- 1. the config file's webhook_secrets --------------------------------------------------- */

#define MAX_ENTRIES 64

struct secrets {
    size_t n;
    char tenant[MAX_ENTRIES][65];
    char secret[MAX_ENTRIES][256];
};

static int collect(void *ud, const char *tenant, const char *secret)
{
    struct secrets *s = ud;
    if (s->n == MAX_ENTRIES) return -1;
    snprintf(s->tenant[s->n], sizeof(s->tenant[0]), "%s", tenant);
    snprintf(s->secret[s->n], sizeof(s->secret[0]), "%s", secret);
    s->n++;
    return 0;
}

/* Is line (n bytes) a `webhook_secrets = ...` line? Its value into *v. */
static bool secrets_line(const char *line, size_t n, const char **v, size_t *vn)
{
    const char *end = memchr(line, '#', n);
    if (!end) end = line + n;
    const char *eq = memchr(line, '=', (size_t)(end - line));
    if (!eq) return false;
    const char *k = line;
    while (k < eq && (*k == ' ' || *k == '\t')) k++;
    const char *ke = eq;
    while (ke > k && (ke[-1] == ' ' || ke[-1] == '\t')) ke--;
    if ((size_t)(ke - k) != 15 || strncmp(k, "webhook_secrets", 15) != 0) return false;
    const char *a = eq + 1;
    while (a < end && (*a == ' ' || *a == '\t')) a++;
    while (end > a && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r')) end--;
    *v = a;
    *vn = (size_t)(end - a);
    return true;
}

/* The file's text (empty when there is none) and its entries. */
static int load(const char *path, char **text, size_t *len, struct secrets *s, struct mg_err *err)
{
    memset(s, 0, sizeof(*s));
    *text = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return 0; /* no file yet: made */
    char *t = malloc(MG_CONFIG_MAX_BYTES + 1);
    size_t n = t ? fread(t, 1, MG_CONFIG_MAX_BYTES + 1, f) : 0;
    fclose(f);
    if (!t) return mg_err_oom(err);
    if (n > MG_CONFIG_MAX_BYTES) {
        free(t);
        return mg_err_set(err, MG_E_CONFIG, "%s is over %d bytes", path, MG_CONFIG_MAX_BYTES);
    }
    t[n] = 0;
    *text = t;
    *len = n;
    char value[2048] = "";
    for (size_t i = 0; i < n;) {
        size_t e = i;
        while (e < n && t[e] != '\n') e++;
        const char *v;
        size_t vn;
        if (secrets_line(t + i, e - i, &v, &vn)) snprintf(value, sizeof(value), "%.*s", (int)vn, v); /* the last wins */
        i = e + 1;
    }
    if (value[0] && mg_webhook_secrets_each(value, path, collect, s, err) != 0)
        return err->code ? -1 : mg_err_set(err, MG_E_CONFIG, "%s: over %d webhook_secrets entries", path, MAX_ENTRIES);
    return 0;
}

/* ---- 2. writing it back ------------------------------------------------------------------------ */

struct out {
    const char *text;
    size_t len;
    const char *value; /* "" drops the setting */
};

/* Every line as it was, the webhook_secrets line(s) replaced by one, where
 * the first was (or at the end). */
static int write_config(FILE *f, void *arg)
{
    const struct out *o = arg;
    bool done = false;
    for (size_t i = 0; i < o->len;) {
        size_t e = i;
        while (e < o->len && o->text[e] != '\n') e++;
        const char *v;
        size_t vn;
        if (!secrets_line(o->text + i, e - i, &v, &vn)) {
            if (fwrite(o->text + i, 1, e - i, f) != e - i || fputc('\n', f) == EOF) return -1;
        } else if (!done) {
            done = true;
            if (o->value[0] && fprintf(f, "webhook_secrets = %s\n", o->value) < 0) return -1;
        }
        i = e + 1;
    }
    if (!done && o->value[0] && fprintf(f, "webhook_secrets = %s\n", o->value) < 0) return -1;
    return 0;
}

static int save(const char *path, const char *text, size_t len, const struct secrets *s, struct mg_err *err)
{
    char value[2048] = "";
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++) {
        int w = snprintf(value + k, sizeof(value) - k, "%s%s:%s", i ? ", " : "", s->tenant[i], s->secret[i]);
        if (w < 0 || (size_t)w >= sizeof(value) - k)
            return mg_err_set(err, MG_E_CONFIG, "webhook_secrets would be over %zu bytes: too many tenants for one "
                              "setting", sizeof(value) - 1);
        k += (size_t)w;
    }
    if (k + 20 >= 1024)
        return mg_err_set(err, MG_E_CONFIG, "the webhook_secrets line would be over the config file's 1023 bytes "
                          "a line (%zu tenants)", s->n);
    if (value[0] && mg_webhook_secrets_each(value, path, NULL, NULL, err) != 0) return -1;
    struct out o = {text ? text : "", len, value};
    return mg_file_replace(path, write_config, &o, err);
}

/* ---- 3. the command ---------------------------------------------------------------------------- */

static void print_json(json_t *j)
{
    char *t = j ? json_dumps(j, MG_JSON_DUMP) : NULL;
    if (t) printf("%s\n", t);
    free(t);
    json_decref(j);
}

int mg_cmd_webhook(int argc, char **argv)
{
    static const struct option opts[] = {{"tenant", required_argument, NULL, 't'}, {"json", no_argument, NULL, 'j'},
                                         {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    const char *tenant = NULL;
    bool json = false;
    int c;
    while ((c = getopt_long(argc, argv, "hj", opts, NULL)) != -1) {
        switch (c) {
        case 't': tenant = optarg; break;
        case 'j': json = true; break;
        case 'h': fputs(HELP, stdout); return 0;
        default: return mg_cli_badopt("webhook", argc, argv, opts);
        }
    }
    if (optind + 2 != argc || strcmp(argv[optind], "secret") != 0)
        return mg_cli_usage("webhook", "give `webhook secret list`, `set`, `rotate` or `remove`");
    const char *sub = argv[optind + 1];
    bool list = strcmp(sub, "list") == 0, set = strcmp(sub, "set") == 0, rotate = strcmp(sub, "rotate") == 0,
         remove = strcmp(sub, "remove") == 0;
    if (!list && !set && !rotate && !remove)
        return mg_cli_usage("webhook", "unknown subcommand '%s' (list, set, rotate, remove)", sub);
    if (list && tenant) return mg_cli_usage("webhook", "`webhook secret list` takes no --tenant");
    if (!list && !tenant) return mg_cli_usage("webhook", "`webhook secret %s` needs --tenant", sub);
    if (tenant && !mg_word_ok(tenant, 64))
        return mg_cli_usage("webhook", "--tenant '%.80s' is not valid: 1-64 of a-z 0-9 . _ -", tenant);
    struct mg_config cfg;
    int rc = mg_cli_config(&cfg);
    if (rc != 0) return rc;
    struct mg_err err = {0};
    struct secrets *s = malloc(sizeof(*s));
    char *text = NULL;
    size_t len = 0;
    if (!s) return mg_cli_fail(&(struct mg_err){.code = MG_E_NO_MEMORY});
    if (load(cfg.config_path, &text, &len, s, &err) != 0) goto fail;
    size_t at = s->n;
    for (size_t i = 0; i < s->n; i++)
        if (tenant && strcmp(s->tenant[i], tenant) == 0) at = i;
    if (list) {
        json_t *t = json_array();
        for (size_t i = 0; i < s->n; i++) json_array_append_new(t, json_string(s->tenant[i]));
        if (json) print_json(json_pack("{s:s, s:o}", "config", cfg.config_path, "tenants", t));
        else {
            for (size_t i = 0; i < s->n; i++) printf("%s\n", s->tenant[i]);
            if (!s->n) fprintf(stderr, "no tenant has a webhook secret in %s\n", cfg.config_path);
            json_decref(t);
        }
    } else if ((rotate || remove) && at == s->n) {
        mg_err_set(&err, MG_E_USAGE, "tenant '%s' has no webhook secret in %s; `webhook secret set --tenant %s` "
                   "makes one", tenant, cfg.config_path, tenant);
        goto fail;
    } else if (remove) {
        memmove(&s->tenant[at], &s->tenant[at + 1], (s->n - at - 1) * sizeof(s->tenant[0]));
        memmove(&s->secret[at], &s->secret[at + 1], (s->n - at - 1) * sizeof(s->secret[0]));
        s->n--;
        if (save(cfg.config_path, text, len, s, &err) != 0) goto fail;
        if (json) print_json(json_pack("{s:s, s:s, s:b}", "config", cfg.config_path, "tenant", tenant, "removed", 1));
        else fprintf(stderr, "removed tenant %s's webhook secret from %s; restart `memgate serve`\n", tenant,
                     cfg.config_path);
    } else {
        if (at == s->n) {
            if (s->n == MAX_ENTRIES) {
                mg_err_set(&err, MG_E_CONFIG, "%s already has %d webhook secrets", cfg.config_path, MAX_ENTRIES);
                goto fail;
            }
            snprintf(s->tenant[s->n++], sizeof(s->tenant[0]), "%s", tenant);
        }
        unsigned char r[32];
        randombytes_buf(r, sizeof(r));
        sodium_bin2base64(s->secret[at], sizeof(s->secret[0]), r, sizeof(r), sodium_base64_VARIANT_URLSAFE_NO_PADDING);
        sodium_memzero(r, sizeof(r));
        if (save(cfg.config_path, text, len, s, &err) != 0) goto fail;
        if (json) print_json(json_pack("{s:s, s:s, s:s}", "config", cfg.config_path, "tenant", tenant, "secret",
                                          s->secret[at]));
        else {
            printf("%s\n", s->secret[at]);
            fprintf(stderr, "%s tenant %s's webhook secret in %s (printed once: give it to the forge's webhook now); "
                            "restart `memgate serve` to use it\n", rotate ? "rotated" : "set", tenant, cfg.config_path);
        }
    }
    sodium_memzero(s, sizeof(*s));
    free(s);
    free(text);
    return 0;
fail:
    sodium_memzero(s, sizeof(*s));
    free(s);
    free(text);
    return mg_cli_fail(&err);
}
