/* roots.c — the index-root policy (roots.h). */
#include "security/roots.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/catalog.h"

int mg_path_within(const char *a, const char *b)
{
    size_t n = strlen(b);
    while (n > 1 && b[n - 1] == '/') n--; /* "/x/" is "/x"; "/" stays */
    if (n == 1 && b[0] == '/') return a[0] == '/';
    return strncmp(a, b, n) == 0 && (a[n] == 0 || a[n] == '/');
}

static bool overlap(const char *a, const char *b)
{
    return mg_path_within(a, b) || mg_path_within(b, a);
}

/* p's real path into out; a path that does not exist (yet) resolves its
 * parent and keeps its last component; failing that, p as given. */
static void canon(const char *p, char out[PATH_MAX])
{
    if (realpath(p, out)) return;
    char parent[PATH_MAX], rp[PATH_MAX];
    snprintf(parent, sizeof(parent), "%s", p);
    char *slash = strrchr(parent, '/');
    if (slash && slash != parent && slash[1]) {
        *slash = 0;
        if (realpath(parent, rp)) {
            snprintf(out, PATH_MAX, "%s/%s", rp, slash + 1);
            return;
        }
    }
    snprintf(out, PATH_MAX, "%s", p);
}

struct allowed {
    const char *tenant, *real;
    int configured; /* entries for the tenant */
};

static int visit_root(void *ud, const char *tenant, const char *dir)
{
    struct allowed *a = ud;
    if (strcmp(tenant, a->tenant) != 0) return 0;
    a->configured++;
    char r[PATH_MAX];
    canon(dir, r);
    return mg_path_within(a->real, r) ? 1 : 0;
}

int mg_root_check(const struct mg_config *c, const char *tenant, bool token, const char *real, const char *stored,
                  struct mg_err *err)
{
    if (!tenant) tenant = "local";
    /* 4. a re-index follows no swapped root */
    if (stored && strcmp(stored, real) != 0)
        return mg_err_set(err, MG_E_ROOT_FORBIDDEN, "the repo's root '%s' now resolves to '%s' (it was replaced by "
                          "a symlink or moved); memgate re-indexes only the directory it indexed: remove the repo "
                          "(`memgate repos rm ID`) and index the directory you mean", stored, real);

    /* 2. the data directory, the cache directory, the config file */
    char home[PATH_MAX], cache[PATH_MAX], cfg[PATH_MAX];
    canon(c->home, home);
    if (overlap(real, home))
        return mg_err_set(err, MG_E_ROOT_FORBIDDEN, "'%s' %s memgate's data directory (indexes, tokens, audit log); "
                          "it is never indexed: index a directory that is neither inside nor above it", real,
                          strcmp(real, home) == 0 ? "is" : mg_path_within(real, home) ? "lies inside" : "holds");
    char dflt[PATH_MAX + 8];
    snprintf(dflt, sizeof(dflt), "%s/cache", c->home);
    canon(c->cache_dir[0] ? c->cache_dir : dflt, cache);
    if (overlap(real, cache))
        return mg_err_set(err, MG_E_ROOT_FORBIDDEN, "'%s' overlaps memgate's cache directory (setting cache_dir); "
                          "it is never indexed: index a directory that is neither inside nor above it", real);
    if (c->config_path[0]) {
        canon(c->config_path, cfg);
        if (mg_path_within(cfg, real))
            return mg_err_set(err, MG_E_ROOT_FORBIDDEN, "'%s' holds memgate's config file; it is never indexed: "
                              "index a directory that does not hold it, or move the file (MEMGATE_CONFIG)", real);
    }

    /* 1. the tenant's index roots */
    struct allowed a = {.tenant = tenant, .real = real};
    int in = mg_index_roots_each(c->index_roots, "index_roots", visit_root, &a, err);
    if (in < 0) return -1;
    if (!in && (a.configured || token || strcmp(tenant, "local") != 0)) {
        if (!a.configured)
            return mg_err_set(err, MG_E_ROOT_FORBIDDEN, "tenant '%s' has no index roots, so it may not index '%s'; "
                              "the operator allows directories with `index_roots = %s:/dir` in the config",
                              tenant, real, tenant);
        return mg_err_set(err, MG_E_ROOT_FORBIDDEN, "'%s' is not under an index root of tenant '%s'; index a "
                          "directory under one (setting index_roots), or ask the operator to add one", real, tenant);
    }

    /* 3. other tenants' repos */
    struct mg_repo *all;
    size_t n;
    if (mg_catalog_list(c, &all, &n, err) != 0) return -1;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (strcmp(all[i].tenant, tenant) == 0) continue;
        char now[PATH_MAX];
        canon(all[i].root, now);
        if (overlap(real, all[i].root) || overlap(real, now))
            rc = mg_err_set(err, MG_E_ROOT_FORBIDDEN, "'%s' %s a repo of another tenant; a tenant may only index "
                            "directories that hold no other tenant's repo and lie in none: index a directory of your "
                            "own", real, strcmp(real, all[i].root) == 0 || strcmp(real, now) == 0 ? "is"
                            : mg_path_within(all[i].root, real) || mg_path_within(now, real) ? "holds" : "lies inside");
    }
    free(all);
    return rc;
}
