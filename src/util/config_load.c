/* config_load.c — where the settings come from (see config.h): the config
 * file's place, the file, then the MEMGATE_* variables over it; and the
 * check that refuses a MEMGATE_* variable memgate does not know.
 *
 * Sections:
 *   1. paths — the cache and the config file when no setting names them
 *   2. the file
 *   3. the environment — unknown variables, and loading it all
 */
#include "util/config_int.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- 1. paths ------------------------------------------------------------ */

/* The cache when cache_dir is not set: MEMGATE_HOME makes a self-contained
 * instance (the tests set it to temporary directories), so its cache stays inside it whatever
 * XDG_CACHE_HOME says; else $XDG_CACHE_HOME/memgate, else ~/.cache/memgate. */
static void default_cache_dir(struct mg_config *c)
{
    const char *h = getenv("MEMGATE_HOME"), *xc = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (h && *h) snprintf(c->cache_dir, sizeof(c->cache_dir), "%s/cache", c->home);
    else if (xc && *xc) snprintf(c->cache_dir, sizeof(c->cache_dir), "%s/memgate", xc);
    else snprintf(c->cache_dir, sizeof(c->cache_dir), "%s/.cache/memgate", home && *home ? home : "/tmp");
}

/* $XDG_CONFIG_HOME/memgate/config, else ~/.config/memgate/config. */
static void xdg_config_path(char *out, size_t cap)
{
    const char *x = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    if (x && *x) snprintf(out, cap, "%s/memgate/config", x);
    else snprintf(out, cap, "%s/.config/memgate/config", home && *home ? home : "/tmp");
}

/* ---- 2. the file --------------------------------------------------------- */

/* Apply the file at path: 0 (also when it is absent and not required: then
 * *found is false), or -1 with err. */
static int load_file(struct mg_config *c, const char *path, int required, bool *found, struct mg_err *err)
{
    if (found) *found = false;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT && !required) return 0;
        return mg_err_set(err, MG_E_CONFIG, "cannot open config file '%s': %s", path, strerror(errno));
    }
    if (found) *found = true;
    char *buf = malloc(MG_CONFIG_MAX_BYTES + 1);
    if (!buf) {
        close(fd);
        return mg_err_set(err, MG_E_NO_MEMORY, "out of memory reading '%s'", path);
    }
    size_t len = 0;
    ssize_t r;
    while (len <= MG_CONFIG_MAX_BYTES && (r = read(fd, buf + len, MG_CONFIG_MAX_BYTES + 1 - len)) > 0) len += (size_t)r;
    close(fd);
    int rc = mg_config_parse(c, buf, len, path, err);
    free(buf);
    return rc;
}

/* ---- 3. the environment -------------------------------------------------- */

/* The MEMGATE_* variables that are not settings (without the prefix). */
static const char *const env_other[] = {
    "HOME", "CONFIG", "MASTER_KEY", "INSTANCE_ID", "VERBOSE",
    "DATABASE_URL", /* storage, by the name PostgreSQL tools use (MEMGATE_STORAGE wins) */
    "PROVIDER_DEPTH", /* set by memgate for the MCP servers it starts (util/mcpc.h) */
    "SHIPPED_RULES",  /* off: the rule databases compiled in are not used (security/scan_cache.c) */
    "INJECTION_MODEL", /* off: the prompt-injection check without its learned model (security/injection_model.c) */
    /* test seams (docs/config.md) */
    "TEST_COMMIT_BYTES", "TEST_MIN_REINDEX_INTERVAL", "TEST_WATCH_LIMIT", "TEST_V1_DELAY_MS", "TEST_HISTORY_MS",
    "TEST_CATCHUP_DELAY_MS", "TEST_NO_MARKS",
    /* the test and bench harnesses' own (tests/, scripts/, bench/): set around memgate, not read by it */
    "GRAMMAR_CACHE", /* scripts/grammar-obj.sh's cache of grammar objects (make, make run) */
    "BIN", "KEEP_TMP", "BENCH_CACHE", "BENCH_NODE", "ISOLATION_CALLS", "MEMISO_OPS", "MEMISO_SEED", "SDK2_CALLS",
    "TEST_TIMEOUT_MS", /* one node test file's limit (scripts/node-tests.sh) */
    "TEST_PG_DIR", "TEST_PG_SH", /* the tests' PostgreSQL (make test, tests/runner.c) */
};

/* Edit distance of a and b (each at most 63 bytes compared). */
static size_t edit_distance(const char *a, const char *b)
{
    size_t na = strnlen(a, 63), nb = strnlen(b, 63), row[64];
    for (size_t j = 0; j <= nb; j++) row[j] = j;
    for (size_t i = 1; i <= na; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= nb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (row[j] + 1 < best) best = row[j] + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[nb];
}

int mg_config_check_env(struct mg_err *err)
{
    extern char **environ;
    size_t nkeys = mg__config_nkeys();
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, "MEMGATE_", 8) != 0) continue;
        const char *name = *e + 8, *eq = strchr(name, '=');
        size_t n = eq ? (size_t)(eq - name) : strlen(name);
        char got[64];
        snprintf(got, sizeof(got), "%.*s", (int)(n < 63 ? n : 63), name);
        bool known = false;
        const char *best = NULL;
        size_t best_d = (size_t)-1;
        char up[64];
        for (size_t i = 0; !known && i < nkeys + sizeof(env_other) / sizeof(env_other[0]); i++) {
            const char *k;
            if (i < nkeys) {
                size_t j = 0;
                for (const char *p = mg__config_key(i); *p && j + 1 < sizeof(up); p++)
                    up[j++] = (char)toupper((unsigned char)*p);
                up[j] = 0;
                k = up;
            } else {
                k = env_other[i - nkeys];
            }
            if (n < 64 && strcmp(got, k) == 0) {
                known = true;
                break;
            }
            size_t d = edit_distance(got, k);
            if (d < best_d) {
                best_d = d;
                best = i < nkeys ? mg__config_key(i) : k;
            }
        }
        if (known) continue;
        char closest[64];
        size_t j = 0;
        for (const char *p = best ? best : "HOME"; *p && j + 1 < sizeof(closest); p++)
            closest[j++] = (char)toupper((unsigned char)*p);
        closest[j] = 0;
        return mg_err_set(err, MG_E_CONFIG,
                          "unknown environment variable MEMGATE_%.64s; did you mean MEMGATE_%s? (unset it, or see "
                          "docs/config.md for the variables)",
                          got, closest);
    }
    return 0;
}

int mg_config_load(struct mg_config *c, struct mg_err *err)
{
    mg_config_defaults(c);
    /* room for "<home>/repos/<id>.db-wal" in a PATH_MAX buffer */
    if (strlen(c->home) > PATH_MAX - 128)
        return mg_err_set(err, MG_E_CONFIG, "the data directory path is longer than %d bytes; set MEMGATE_HOME "
                          "to a shorter one", PATH_MAX - 128);
    /* the config file: MEMGATE_CONFIG; else <MEMGATE_HOME>/config (a
     * self-contained instance); else the XDG place, or failing that the data
     * directory's (where it used to live: read, with a notice) */
    const char *explicit_path = getenv("MEMGATE_CONFIG"), *h = getenv("MEMGATE_HOME");
    char path[PATH_MAX + 16], old[PATH_MAX + 16];
    bool found;
    if (explicit_path && *explicit_path) {
        snprintf(c->config_path, sizeof(c->config_path), "%s", explicit_path);
        if (load_file(c, explicit_path, 1, NULL, err) != 0) return -1;
    } else if (h && *h) {
        snprintf(path, sizeof(path), "%s/config", c->home);
        snprintf(c->config_path, sizeof(c->config_path), "%s", path);
        if (load_file(c, path, 0, NULL, err) != 0) return -1;
    } else {
        xdg_config_path(path, sizeof(path));
        snprintf(c->config_path, sizeof(c->config_path), "%s", path);
        if (load_file(c, path, 0, &found, err) != 0) return -1;
        snprintf(old, sizeof(old), "%s/config", c->home);
        if (!found) {
            if (load_file(c, old, 0, &found, err) != 0) return -1;
            if (found) {
                snprintf(c->config_path, sizeof(c->config_path), "%s", old);
                static atomic_flag told = ATOMIC_FLAG_INIT;
                if (!atomic_flag_test_and_set(&told))
                    fprintf(stderr, "memgate: note: read the config file %s; its place is now %s (move it there)\n",
                            old, path);
            }
        }
    }
    for (size_t i = 0, nkeys = mg__config_nkeys(); i < nkeys; i++) {
        char env[64];
        size_t j = 0;
        j += (size_t)snprintf(env, sizeof(env), "MEMGATE_");
        for (const char *p = mg__config_key(i); *p && j + 1 < sizeof(env); p++)
            env[j++] = (char)toupper((unsigned char)*p);
        env[j] = 0;
        const char *v = getenv(env);
        if (v && *v && mg_config_set(c, mg__config_key(i), v, env, err) != 0) return -1;
    }
    const char *dburl = getenv("MEMGATE_DATABASE_URL"), *st = getenv("MEMGATE_STORAGE");
    if (dburl && *dburl && !(st && *st) && mg_config_set(c, "storage", dburl, "MEMGATE_DATABASE_URL", err) != 0)
        return -1;
    if (!c->cache_dir[0]) default_cache_dir(c);
    /* the built-in authorization server is the issuer: by default at the resource's origin */
    if (strcmp(c->oauth_server, "on") == 0 && !c->oauth_issuer[0]) {
        const char *a = strstr(c->oauth_resource, "://");
        size_t n = a ? (size_t)(a + 3 - c->oauth_resource) + strcspn(a + 3, "/?#") : 0;
        if (n && n < sizeof(c->oauth_issuer)) snprintf(c->oauth_issuer, sizeof(c->oauth_issuer), "%.*s", (int)n, c->oauth_resource);
    }
    if (mg_config_check_storage(c, "the configuration", err) != 0) return -1;
    return mg_config_check_vectors(c, "the configuration", err);
}
