/* test_docs.c — docs that cannot drift: what the code has, the docs name.
 *
 * Each test collects what the server or the CLI really has (the tools of
 * tools/list from the binary, the /v1 routes in src/http, the error codes in
 * src/util/err.h, the config keys in src/util/config.c, the commands and flags
 * of `memgate --help` and `memgate CMD --help`) and fails naming every item
 * the matching docs file leaves out. Tests run from the repo root. */
#include <ctype.h>
#include <limits.h>
#include <unistd.h>

#include "test.h"

/* ---- helpers ---------------------------------------------------------------------- */

static char *slurp(const char *path)
{
    char *b = mg_t_read(NULL, path);
    if (!b) FAIL("cannot open %s (tests run from the repo root)", path);
    return b;
}

/* A list of names, kept once each. */
struct names {
    char **v;
    size_t n, cap;
};

static void names_add(struct names *s, const char *x, size_t len)
{
    for (size_t i = 0; i < s->n; i++)
        if (strlen(s->v[i]) == len && memcmp(s->v[i], x, len) == 0) return;
    if (s->n == s->cap) s->v = realloc(s->v, (s->cap = s->cap ? s->cap * 2 : 16) * sizeof(char *));
    s->v[s->n++] = strndup(x, len);
}

static void names_free(struct names *s)
{
    for (size_t i = 0; i < s->n; i++) free(s->v[i]);
    free(s->v);
    memset(s, 0, sizeof(*s));
}

/* What is missing, as "a, b, c". */
struct missing {
    char buf[16384];
    int n;
};

static void missing_add(struct missing *m, const char *x)
{
    size_t l = strlen(m->buf);
    snprintf(m->buf + l, sizeof(m->buf) - l, "%s%s", m->n++ ? ", " : "", x);
}

/* `name` (in backticks) somewhere in text. */
static int has_backticked(const char *text, const char *name)
{
    char q[512];
    snprintf(q, sizeof(q), "`%s`", name);
    return strstr(text, q) != NULL;
}

static const char *bin_path(char *out, size_t cap)
{
    const char *bin = getenv("MEMGATE_BIN");
    if (!bin) bin = "build/memgate";
    char rp[PATH_MAX];
    if (!realpath(bin, rp)) FAIL("cannot find the memgate binary %s", bin);
    snprintf(out, cap, "%s", rp);
    return out;
}

/* ---- MCP tools: docs/mcp.md ------------------------------------------------------- */

TEST(docs_mcp_lists_every_tool)
{
    char *dir = mg_t_tmpdir(), bin[PATH_MAX];
    bin_path(bin, sizeof(bin));
    mg_t_write_str(dir, "in.jsonl",
                   "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                   "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"docs\",\"version\":\"1\"}}}\n"
                   "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
                   /* every group: the table documents them all */
                   "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{\"_meta\":"
                   "{\"memgate/tools\":\"all\"}}}\n");
    mg_t_sh(dir, "MEMGATE_HOME='%s/home' '%s' mcp < in.jsonl > out.jsonl 2>/dev/null", dir, bin);
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/out.jsonl", dir);
    char *out = slurp(path);
    json_t *tools = NULL, *list = NULL;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        json_t *j = json_loads(line, 0, NULL);
        if (j && json_integer_value(json_object_get(j, "id")) == 2) {
            list = j;
            tools = json_object_get(json_object_get(j, "result"), "tools");
            break;
        }
        json_decref(j);
    }
    if (!json_is_array(tools) || json_array_size(tools) == 0) FAIL("no tools in the tools/list answer");
    char *doc = slurp("docs/mcp.md");
    struct missing m = {0};
    size_t i;
    json_t *t;
    json_array_foreach(tools, i, t) {
        const char *name = json_string_value(json_object_get(t, "name"));
        /* the tool table: a row that starts with the name in backticks */
        char row[256];
        snprintf(row, sizeof(row), "| `%s` |", name ? name : "");
        if (!name || !strstr(doc, row)) missing_add(&m, name ? name : "(unnamed)");
    }
    if (m.n) FAIL("docs/mcp.md's tool table lacks %d of the %zu tools of tools/list: %s", m.n,
                  json_array_size(tools), m.buf);
    /* and the table names no tool that tools/list does not have */
    const char *table = strstr(doc, "| tool | what it does |");
    ASSERT(table);
    for (const char *l = strchr(table, '\n'); l && strncmp(l + 1, "|", 1) == 0; l = strchr(l + 1, '\n')) {
        if (strncmp(l + 1, "| `", 3) != 0) continue;
        const char *a = l + 4, *e = strchr(a, '`');
        if (!e) break;
        int found = 0;
        json_array_foreach(tools, i, t) {
            const char *name = json_string_value(json_object_get(t, "name"));
            found |= name && strlen(name) == (size_t)(e - a) && strncmp(name, a, (size_t)(e - a)) == 0;
        }
        if (!found) {
            char gone[256];
            snprintf(gone, sizeof(gone), "%.*s", (int)(e - a), a);
            missing_add(&m, gone);
        }
    }
    if (m.n) FAIL("docs/mcp.md's tool table names %d tools that tools/list does not have: %s", m.n, m.buf);
    /* and where it counts them ("the N tools"), the count is right */
    char want[64];
    snprintf(want, sizeof(want), "the %zu tools", json_array_size(tools));
    ASSERT_CONTAINS(doc, want);
    ASSERT_NOT_CONTAINS(doc, "the ten tools");
    json_decref(list);
    free(doc);
    free(out);
}

/* ---- /v1 routes: docs/http.md ----------------------------------------------------- */

/* Every "/v1/..." string literal of a source file: into exact, the routes of
 * the route tables ({"/v1/...", ...}) and of exact-path checks (strcmp(url,
 * "/v1/...")); into families, the others (prefix lists, prefix checks, the
 * route lists of the not-found answer), which a documented route must at
 * least start with. */
static void routes_of(const char *path, struct names *exact, struct names *families)
{
    char *src = slurp(path);
    for (const char *p = src; (p = strstr(p, "\"/v1/")) != NULL; p++) {
        const char *a = p + 1, *e = a + 4;
        while (*e && (islower((unsigned char)*e) || isdigit((unsigned char)*e) || *e == '_' || *e == '/' || *e == '*'))
            e++;
        int prefix = e > a + 4 && e[-1] == '/' && *e == '"'; /* a prefix check: "/v1/repos/" */
        while (e > a + 4 && e[-1] == '/') e--;
        if (e == a + 4) continue;
        int is_exact = !prefix && *e == '"' &&
                       (p[-1] == '{' || (p - src >= 12 && strncmp(p - 12, "strcmp(url, ", 12) == 0));
        size_t n = (size_t)(e - a);
        int known = 0; /* a family that is also an exact route counts once */
        for (size_t i = 0; i < exact->n && !is_exact; i++)
            known |= strlen(exact->v[i]) == n && memcmp(exact->v[i], a, n) == 0;
        if (!known) names_add(is_exact ? exact : families, a, n);
    }
    free(src);
}

static int route_char(char c)
{
    return islower((unsigned char)c) || isdigit((unsigned char)c) || c == '_' || c == '/' || c == '{';
}

/* route in doc, each '*' written as a {placeholder}, and the route not just
 * the start of a longer one. */
static int doc_has_route(const char *doc, const char *route, int family)
{
    for (const char *p = doc; (p = strstr(p, "/v1/")) != NULL; p++) {
        const char *d = p, *r = route;
        while (*r) {
            if (*r == '*') {
                if (*d != '{') break;
                const char *close = strchr(d, '}');
                if (!close) break;
                d = close + 1;
                r++;
            } else if (*d == *r) {
                d++;
                r++;
            } else {
                break;
            }
        }
        if (!*r && (!route_char(*d) || (family && *d == '/'))) return 1;
    }
    return 0;
}

TEST(docs_http_lists_every_route)
{
    struct names routes = {0}, families = {0};
    routes_of("src/http/api.c", &routes, &families);
    routes_of("src/http/server.c", &routes, &families);
    ASSERT_GE_INT(routes.n, 25);
    char *doc = slurp("docs/http.md");
    struct missing m = {0};
    for (size_t i = 0; i < routes.n; i++)
        if (!doc_has_route(doc, routes.v[i], 0)) missing_add(&m, routes.v[i]);
    for (size_t i = 0; i < families.n; i++)
        if (!doc_has_route(doc, families.v[i], 1)) missing_add(&m, families.v[i]);
    if (m.n) FAIL("docs/http.md lacks %d of the %zu /v1 routes (a '*' is written {name}): %s", m.n,
                  routes.n + families.n, m.buf);
    /* every search mode of the route */
    static const char *const modes[] = {"lexical", "regex", "symbol", "semantic", "hybrid"};
    for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
        if (!has_backticked(doc, modes[i])) missing_add(&m, modes[i]);
    if (m.n) FAIL("docs/http.md does not name the search modes: %s", m.buf);
    free(doc);
    names_free(&routes);
    names_free(&families);
}

/* The other way: every table row of doc that starts with a name in backticks
 * ("| `name` |") names one of known; the others go to m. */
static void rows_known(const char *doc, const struct names *known, struct missing *m)
{
    for (const char *l = doc; (l = strstr(l, "\n| `")) != NULL; l++) {
        const char *a = l + 4, *e = a;
        while (islower((unsigned char)*e) || isdigit((unsigned char)*e) || *e == '_') e++;
        if (e == a || strncmp(e, "` |", 3) != 0) continue;
        int found = 0;
        for (size_t i = 0; i < known->n && !found; i++)
            found = strlen(known->v[i]) == (size_t)(e - a) && strncmp(known->v[i], a, (size_t)(e - a)) == 0;
        if (!found) {
            char x[256];
            snprintf(x, sizeof(x), "%.*s", (int)(e - a), a);
            missing_add(m, x);
        }
    }
}

/* ---- error codes: docs/errors.md -------------------------------------------------- */

TEST(docs_errors_lists_every_code)
{
    struct names codes = {0};
    char *src = slurp("src/util/err.h");
    for (const char *p = src; (p = strstr(p, "#define MG_E_")) != NULL; p++) {
        const char *q = strchr(p, '"'), *nl = strchr(p, '\n');
        if (!q || (nl && q > nl)) continue;
        const char *e = strchr(q + 1, '"');
        if (e) names_add(&codes, q + 1, (size_t)(e - q - 1));
    }
    free(src);
    /* codes written as literals, "error[code]: ...", in the CLI */
    static const char *const cli[] = {"src/cli/cli.c", "src/cli/cmd_index.c", "src/cli/cmd_search.c",
                                      "src/cli/cmd_serve.c", "src/cli/cmd_mcp.c", "src/cli/cmd_token.c",
                                      "src/cli/cmd_audit.c", "src/cli/cmd_scan.c", "src/cli/cmd_repos.c"};
    for (size_t i = 0; i < sizeof(cli) / sizeof(cli[0]); i++) {
        src = slurp(cli[i]);
        for (const char *p = src; (p = strstr(p, "error[")) != NULL; p++) {
            const char *a = p + 6, *e = a;
            while (islower((unsigned char)*e) || *e == '_') e++;
            if (e > a && *e == ']') names_add(&codes, a, (size_t)(e - a));
        }
        free(src);
    }
    ASSERT_GE_INT(codes.n, 60);
    char *doc = slurp("docs/errors.md");
    struct missing m = {0};
    for (size_t i = 0; i < codes.n; i++)
        if (!has_backticked(doc, codes.v[i])) missing_add(&m, codes.v[i]);
    if (m.n) FAIL("docs/errors.md lacks %d of the %zu error codes: %s", m.n, codes.n, m.buf);
    rows_known(doc, &codes, &m);
    if (m.n) FAIL("docs/errors.md has rows for %d codes the code does not have: %s", m.n, m.buf);
    free(doc);
    names_free(&codes);
}

/* ---- config keys: docs/config.md -------------------------------------------------- */

TEST(docs_config_lists_every_key)
{
    struct names keys = {0};
    char *src = slurp("src/util/config.c");
    /* the key table: lines `{"name", K_TYPE, ...` */
    for (const char *p = src; (p = strstr(p, "{\"")) != NULL; p++) {
        const char *a = p + 2, *e = strchr(a, '"');
        if (!e) break;
        const char *k = e + 1;
        while (*k == ',' || *k == ' ') k++;
        if (strncmp(k, "K_", 2) == 0) names_add(&keys, a, (size_t)(e - a));
    }
    /* and the keys written through a macro: `    STRKEY(name, min),` */
    for (const char *p = src; (p = strstr(p, "\n    STRKEY(")) != NULL; p++) {
        const char *a = p + 12, *e = a;
        while (islower((unsigned char)*e) || isdigit((unsigned char)*e) || *e == '_') e++;
        if (e > a && *e == ',') names_add(&keys, a, (size_t)(e - a));
    }
    free(src);
    ASSERT_GE_INT(keys.n, 40);
    char *doc = slurp("docs/config.md");
    struct missing m = {0};
    for (size_t i = 0; i < keys.n; i++)
        if (!has_backticked(doc, keys.v[i])) missing_add(&m, keys.v[i]);
    if (m.n) FAIL("docs/config.md lacks %d of the %zu config keys: %s", m.n, keys.n, m.buf);
    rows_known(doc, &keys, &m);
    if (m.n) FAIL("docs/config.md has rows for %d keys the config does not have: %s", m.n, m.buf);
    free(doc);
    names_free(&keys);
}

/* ---- commands and flags: docs/cli.md ---------------------------------------------- */

/* The "## ..." section of docs/cli.md whose heading names `memgate CMD`
 * (a heading may name several commands), or NULL. */
static char *cli_section(const char *doc, const char *cmd)
{
    char want[128];
    snprintf(want, sizeof(want), "memgate %s", cmd);
    for (const char *p = doc; (p = strstr(p, "\n## ")) != NULL; p++) {
        const char *eol = strchr(p + 1, '\n');
        if (!eol) break;
        for (const char *h = p + 4; (h = strstr(h, want)) != NULL && h < eol; h++) {
            char after = h[strlen(want)];
            if (after == ',' || after == '\n' || after == ' ') {
                const char *end = strstr(eol, "\n## ");
                size_t n = end ? (size_t)(end - p) : strlen(p);
                return strndup(p, n);
            }
        }
    }
    return NULL;
}

TEST(docs_cli_lists_every_command_and_flag)
{
    struct mg_t_out o = MG_RUN(NULL, mg_t_tmpdir(), "--help");
    ASSERT_EQ_INT(o.status, 0);
    const char *c = strstr(o.out, "commands:\n");
    ASSERT(c);
    struct names cmds = {0};
    for (const char *l = strchr(c, '\n') + 1; strncmp(l, "  ", 2) == 0; l = strchr(l, '\n') + 1) {
        const char *a = l + 2, *e = a;
        while (islower((unsigned char)*e) || *e == '-') e++;
        if (e > a && *a != '-') names_add(&cmds, a, (size_t)(e - a)); /* not an option line */
        if (!strchr(l, '\n')) break;
    }
    ASSERT_GE_INT(cmds.n, 15);
    char *doc = slurp("docs/cli.md");
    struct missing m = {0};
    for (size_t i = 0; i < cmds.n; i++) {
        const char *cmd = cmds.v[i];
        char *sec = cli_section(doc, cmd);
        char item[256];
        /* the table of commands at the top, before the first section */
        char want[128];
        snprintf(want, sizeof(want), "`memgate %s", cmd);
        const char *top_end = strstr(doc, "\n## ");
        int in_top = 0;
        for (const char *q = doc; !in_top && (q = strstr(q, want)) != NULL && (!top_end || q < top_end); q++)
            in_top = q[strlen(want)] == ' ' || q[strlen(want)] == '`';
        if (!in_top) {
            snprintf(item, sizeof(item), "%s (not in the table of commands)", cmd);
            missing_add(&m, item);
        }
        if (!sec) {
            snprintf(item, sizeof(item), "%s (no section)", cmd);
            missing_add(&m, item);
            continue;
        }
        struct mg_t_out h = MG_RUN(NULL, mg_t_tmpdir(), cmd, "--help");
        if (h.status != 0 || !strstr(h.out, "usage: memgate")) {
            snprintf(item, sizeof(item), "%s (--help fails)", cmd);
            missing_add(&m, item);
        }
        struct names flags = {0};
        for (const char *p = h.out; (p = strstr(p, "--")) != NULL; p += 2) {
            if (p > h.out && (isalnum((unsigned char)p[-1]) || p[-1] == '-')) continue;
            const char *e = p + 2;
            while (islower((unsigned char)*e) || isdigit((unsigned char)*e) || *e == '-') e++;
            if (e - p > 3) names_add(&flags, p, (size_t)(e - p));
        }
        for (size_t f = 0; f < flags.n; f++) {
            if (strcmp(flags.v[f], "--help") == 0) continue;
            /* the flag, not just the start of a longer one */
            int found = 0;
            size_t fl = strlen(flags.v[f]);
            for (const char *q = sec; !found && (q = strstr(q, flags.v[f])) != NULL; q++) {
                char after = q[fl];
                found = !(islower((unsigned char)after) || isdigit((unsigned char)after) || after == '-');
            }
            if (!found) {
                snprintf(item, sizeof(item), "%s %s", cmd, flags.v[f]);
                missing_add(&m, item);
            }
        }
        /* and the other way: each flag on the section's usage lines of the
         * command ("memgate CMD ..." in its first code block) is in --help */
        const char *blk = strstr(sec, "```\n"), *blk_end = blk ? strstr(blk + 4, "```") : NULL;
        char lead[128];
        snprintf(lead, sizeof(lead), "\nmemgate %s ", cmd);
        for (const char *l = blk; l && blk_end && (l = strstr(l, lead)) != NULL && l < blk_end; l++) {
            const char *eol = strchr(l + 1, '\n');
            for (const char *p = l + strlen(lead); p < eol && (p = strstr(p, "--")) != NULL && p < eol; p += 2) {
                if (isalnum((unsigned char)p[-1]) || p[-1] == '-') continue;
                const char *e = p + 2;
                while (islower((unsigned char)*e) || isdigit((unsigned char)*e) || *e == '-') e++;
                int known = e - p <= 2;
                for (size_t f = 0; f < flags.n && !known; f++)
                    known = strlen(flags.v[f]) == (size_t)(e - p) && strncmp(flags.v[f], p, (size_t)(e - p)) == 0;
                if (!known) {
                    snprintf(item, sizeof(item), "%s %.*s (in cli.md, not in --help)", cmd, (int)(e - p), p);
                    missing_add(&m, item);
                }
            }
        }
        mg_t_out_free(&h);
        free(sec);
        names_free(&flags);
    }
    if (m.n)
        FAIL("docs/cli.md and `memgate [CMD] --help` disagree on %d commands or flags (missing from cli.md "
             "unless said): %s", m.n, m.buf);
    /* the search summary of `memgate --help` names every mode */
    static const char *const modes[] = {"lexical", "regex", "symbol", "semantic", "hybrid"};
    const char *s = strstr(o.out, "  search ");
    ASSERT(s);
    char line[256];
    snprintf(line, sizeof(line), "%.*s", (int)strcspn(s, "\n"), s);
    for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) ASSERT_CONTAINS(line, modes[i]);
    mg_t_out_free(&o);
    free(doc);
    names_free(&cmds);
}
