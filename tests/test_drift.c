/* test_drift.c — what README, the service docs and --help say about the
 * binary, checked against the binary: where the config file is read, which
 * libraries `memgate -V` lists, which tools and protocol versions there are,
 * how many secret rules are built in. Each test names what drifted. Tests run
 * from the repo root. */
#include <limits.h>
#include <unistd.h>

#include "mcp/rpc.h"
#include "security/scan.h"
#include "test.h"
#include "tools/tools.h"

static char *slurp(const char *path)
{
    char *b = mg_t_read(NULL, path);
    if (!b) FAIL("cannot open %s (tests run from the repo root)", path);
    return b;
}

static const char *bin(void)
{
    static char rp[PATH_MAX];
    const char *b = getenv("MEMGATE_BIN");
    if (!realpath(b ? b : "build/memgate", rp)) FAIL("cannot find the memgate binary");
    return rp;
}

/* stdout of a shell command (FAILs unless it exits 0) */
static char *sh_out(const char *dir, const char *cmd)
{
    mg_t_sh(dir, "%s > out.txt", cmd);
    char *o = mg_t_read(dir, "out.txt");
    if (!o) FAIL("no output of %s", cmd);
    return o;
}

TEST(drift_config_path_in_service_docs_and_unit)
{
    /* where the binary reads its config when nothing says otherwise */
    char *dir = mg_t_tmpdir(), cmd[PATH_MAX * 2];
    snprintf(cmd, sizeof(cmd), "env -u MEMGATE_HOME -u MEMGATE_CONFIG -u XDG_CONFIG_HOME -u XDG_DATA_HOME HOME='%s' '%s' status --json",
             dir, bin());
    char *out = sh_out(dir, cmd);
    json_t *j = mg_t_json(out);
    const char *cf = json_string_value(json_object_get(j, "config_file"));
    ASSERT(cf && strncmp(cf, dir, strlen(dir)) == 0);
    char tilde[PATH_MAX];
    snprintf(tilde, sizeof(tilde), "~%s", cf + strlen(dir)); /* ~/.config/memgate/config */
    static const char *const docs[] = {"docs/service.md", "dist/memgate.service.in", "docs/config.md", "README.md", NULL};
    for (int i = 0; docs[i]; i++) {
        char *d = slurp(docs[i]);
        if (!strstr(d, tilde)) FAIL("%s does not name the config file the binary reads, %s", docs[i], tilde);
        /* the old place only where the docs say it is the old one */
        const char *old = strstr(d, "~/.local/share/memgate/config");
        if (old && !strstr(d, "where it used to live"))
            FAIL("%s names ~/.local/share/memgate/config as the config file; it is %s", docs[i], tilde);
        free(d);
    }
    json_decref(j);
    free(out);
}

TEST(drift_version_lists_the_libraries_readme_names)
{
    char *dir = mg_t_tmpdir(), cmd[PATH_MAX + 32];
    snprintf(cmd, sizeof(cmd), "'%s' -V --json", bin());
    char *out = sh_out(dir, cmd);
    json_t *v = mg_t_json(out), *libs = json_object_get(v, "libraries");
    /* README: "... libcurl and libpq loaded when first needed; `memgate -V` lists their versions" */
    char *readme = slurp("README.md");
    ASSERT_CONTAINS(readme, "`memgate -V` lists");
    static const char *const lazy[] = {"libgit2", "libmicrohttpd", "libcurl", "libpq", NULL};
    for (int i = 0; lazy[i]; i++) {
        ASSERT_CONTAINS(readme, lazy[i]);
        if (!json_is_string(json_object_get(libs, lazy[i])))
            FAIL("README says `memgate -V` lists %s; it does not: %s", lazy[i], out);
    }
    free(readme);
    free(out);
    json_decref(v);
}

TEST(drift_readme_names_every_tool)
{
    char *readme = slurp("README.md");
    size_t n;
    const struct mg_tool *t = mg_tools(&n);
    char missing[4096] = "";
    int k = 0;
    for (size_t i = 0; i < n; i++) {
        char q[128];
        snprintf(q, sizeof(q), "`%s`", t[i].name);
        if (!strstr(readme, q)) {
            size_t l = strlen(missing);
            snprintf(missing + l, sizeof(missing) - l, "%s%s", k++ ? ", " : "", t[i].name);
        }
    }
    if (k) FAIL("README.md names %zu of the %zu tools of tools/list; missing: %s", n - k, n, missing);
    free(readme);
}

TEST(drift_mcp_help_names_every_protocol_version)
{
    char *dir = mg_t_tmpdir(), cmd[PATH_MAX + 32];
    snprintf(cmd, sizeof(cmd), "'%s' mcp --help", bin());
    char *help = sh_out(dir, cmd);
    for (int i = 0; mg_mcp_versions[i]; i++) ASSERT_CONTAINS(help, mg_mcp_versions[i]);
    ASSERT_CONTAINS(help, MG_MCP_MODERN);
    free(help);
}

TEST(drift_readme_counts_the_secret_rules)
{
    const struct mg_scanner *s = mg_scanner_default();
    ASSERT(s != NULL);
    char want[64];
    snprintf(want, sizeof(want), "(%zu rules,", mg_scanner_rule_count(s));
    char *readme = slurp("README.md");
    if (!strstr(readme, want)) FAIL("README.md does not say %s: the built-in rules are %zu", want, mg_scanner_rule_count(s));
    free(readme);
}
