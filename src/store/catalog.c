/* catalog.c — see catalog.h: the catalog's answers, from this data
 * directory's indexes (catalog_local.c) or, with a shared catalog, from the
 * table of catalogpg.c joined with them. */
#include "store/catalog.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/clock.h"

int mg_catalog_list(const struct mg_config *c, struct mg_repo **out, size_t *n, struct mg_err *err)
{
    if (mg_catalog_shared(c)) return mg__catalog_shared_list(c, out, n, err);
    return mg_catalog_local_list(c, out, n, err);
}

int mg_catalog_get(const struct mg_config *c, const char *id, struct mg_repo *out, struct mg_err *err)
{
    char path[PATH_MAX];
    if (mg_catalog_shared(c)) {
        int found = mg__catalog_shared_get(c, id, out, err);
        if (found != 0) return found < 0 ? -1 : 0;
    } else if (mg_repo_check_id(id, NULL) == 0) {
        mg_repo_dbpath(c, id, path, sizeof(path));
        if (access(path, F_OK) == 0) return mg_catalog_read_local(path, out, err);
    }
    struct mg_repo *all;
    size_t n;
    if (mg_catalog_list(c, &all, &n, err) != 0) return -1;
    char ids[512];
    mg_repo_id_list(all, n, ids, sizeof(ids));
    free(all);
    return mg_err_set(err, MG_E_REPO_NOT_FOUND, "no indexed repo has id '%s' (indexed: %s); see `memgate repos`",
                      id, ids);
}

int mg_catalog_find_root(const struct mg_config *c, const char *root, struct mg_repo *out, struct mg_err *err)
{
    struct mg_repo *all;
    size_t n;
    if (mg_catalog_list(c, &all, &n, err) != 0) return -1;
    int found = 0;
    for (size_t i = 0; i < n && !found; i++)
        if (strcmp(all[i].root, root) == 0) {
            *out = all[i];
            found = 1;
        }
    free(all);
    return found;
}

/* Delete the files of the index at dbpath. */
static int unlink_index(const char *dbpath, struct mg_err *err)
{
    static const char *const suffix[] = {"", "-wal", "-shm", ".lock", ".map", ".vec", ".watch"};
    /* .map: search/repomap.h; .vec: vector/vstore.h; .watch: index/watch.c */
    for (size_t i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++) {
        char p[PATH_MAX + 8];
        snprintf(p, sizeof(p), "%s%s", dbpath, suffix[i]);
        if (unlink(p) != 0 && errno != ENOENT)
            return mg_err_set(err, MG_E_IO, "cannot remove '%s': %s", p, strerror(errno));
    }
    return 0;
}

int mg_catalog_drop_local(const struct mg_config *c, const char *id, struct mg_err *err)
{
    if (mg_repo_check_id(id, err) != 0) return -1;
    char dbpath[PATH_MAX];
    mg_repo_dbpath(c, id, dbpath, sizeof(dbpath));
    return unlink_index(dbpath, err);
}

int mg_catalog_remove(const struct mg_config *c, const char *id, struct mg_err *err)
{
    struct mg_repo r;
    if (mg_catalog_get(c, id, &r, err) != 0) return -1;
    /* shared: out of the catalog first (every daemon drops its copy), then this one's */
    if (mg_catalog_shared(c) && mg__catalog_shared_remove(c, &r, err) != 0) return -1;
    return unlink_index(r.dbpath, err);
}

int mg_catalog_resolve(const struct mg_config *c, const char *const *ids, size_t nids, const char *cwd,
                       struct mg_repo **out, size_t *n, struct mg_err *err)
{
    *out = NULL;
    *n = 0;
    if (nids > 0) {
        struct mg_repo *v = calloc(nids, sizeof(*v));
        if (!v) return mg_err_oom(err);
        for (size_t i = 0; i < nids; i++) {
            if (mg_catalog_get(c, ids[i], &v[i], err) != 0) {
                free(v);
                return -1;
            }
        }
        *out = v;
        *n = nids;
        return 0;
    }
    struct mg_repo *all;
    size_t na;
    if (mg_catalog_list(c, &all, &na, err) != 0) return -1;
    if (na == 0) {
        free(all);
        return mg_err_set(err, MG_E_REPO_NOT_FOUND, "no repos are indexed in '%s'; run `memgate index PATH` first",
                          c->home);
    }
    int best = mg_catalog_containing(all, na, cwd);
    if (best < 0 && na == 1) best = 0;
    if (best < 0) {
        char list[512];
        mg_repo_id_list(all, na, list, sizeof(list));
        free(all);
        return mg_err_set(err, MG_E_REPO_REQUIRED, "%zu repos are indexed (%s) and the current directory is in none "
                          "of them; pass --repo ID", na, list);
    }
    struct mg_repo *v = malloc(sizeof(*v));
    if (!v) {
        free(all);
        return mg_err_oom(err);
    }
    *v = all[best];
    free(all);
    *out = v;
    *n = 1;
    return 0;
}

int mg_catalog_wait_current(const struct mg_config *c, const char *id, int64_t deadline_ms, struct mg_repo *out,
                            struct mg_err *err)
{
    for (;;) {
        if (mg_catalog_get(c, id, out, err) != 0) return -1;
        if (out->copy != MG_COPY_BEHIND && out->copy != MG_COPY_PENDING && out->copy != MG_COPY_CONFLICT) return 0;
        if ((int64_t)mg_clock_ms() >= deadline_ms) return 0;
        mg__catalog_wait_change(deadline_ms);
    }
}
