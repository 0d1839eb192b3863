/* access.c — see access.h. */
#include "security/access.h"

#include <stdlib.h>
#include <string.h>

const struct mg_principal mg_principal_local = {.tenant = "local", .level = MG_LEVEL_ADMIN};

const char *mg_level_name(int level)
{
    switch (level) {
    case MG_LEVEL_READ: return "read";
    case MG_LEVEL_WRITE: return "write";
    case MG_LEVEL_ADMIN: return "admin";
    default: return "none";
    }
}

int mg_level_parse(const char *s, int *out)
{
    if (strcmp(s, "read") == 0) *out = MG_LEVEL_READ;
    else if (strcmp(s, "write") == 0) *out = MG_LEVEL_WRITE;
    else if (strcmp(s, "admin") == 0) *out = MG_LEVEL_ADMIN;
    else return -1;
    return 0;
}

int mg_principal_copy(struct mg_principal *dst, const struct mg_principal *src)
{
    *dst = *src;
    dst->repos = NULL;
    dst->nrepos = 0;
    if (!src->nrepos) return 0;
    if (!(dst->repos = calloc(src->nrepos, sizeof(char *)))) goto fail;
    for (size_t i = 0; i < src->nrepos; i++, dst->nrepos++)
        if (!(dst->repos[i] = strdup(src->repos[i]))) goto fail;
    return 0;
fail:
    mg_principal_release(dst);
    memset(dst, 0, sizeof(*dst)); /* level 0: can do nothing */
    return -1;
}

void mg_principal_release(struct mg_principal *p)
{
    for (size_t i = 0; i < p->nrepos; i++) free(p->repos[i]);
    free(p->repos);
    p->repos = NULL;
    p->nrepos = 0;
}

int mg_access_level(const struct mg_principal *p, int need, const char *what, struct mg_err *err)
{
    if (p->level >= need) return 0;
    return mg_err_set(err, MG_E_SCOPE_FORBIDDEN, "%s needs a token with scope '%s'; this one has '%s'", what,
                      mg_level_name(need), mg_level_name(p->level));
}

/* Does the allowlist v name repo id s? An entry is an id, or a name of the
 * tenant's (store/catalog.h: NAME means TENANT~NAME). */
static bool in_list(char *const *v, size_t n, const char *tenant, const char *s)
{
    for (size_t i = 0; i < n; i++) {
        char q[MG_ID_MAX + 1];
        mg_repo_qualify(tenant, v[i], q, sizeof(q));
        if (strcmp(v[i], s) == 0 || strcmp(q, s) == 0) return true;
    }
    return false;
}

bool mg_access_visible(const struct mg_principal *p, const struct mg_repo *r)
{
    if (strcmp(r->tenant, p->tenant) != 0) return false;
    return p->nrepos == 0 || in_list(p->repos, p->nrepos, p->tenant, r->id);
}

int mg_access_repos(const struct mg_principal *p, bool cross_repo, struct mg_repo *v, size_t *n, bool explicit_repo,
                    struct mg_err *err)
{
    size_t k = 0;
    for (size_t i = 0; i < *n; i++) {
        if (strcmp(v[i].tenant, p->tenant) != 0) {
            if (explicit_repo) /* another tenant's repo does not exist for this caller */
                return mg_err_set(err, MG_E_REPO_NOT_FOUND, "no repo '%s' is indexed for tenant '%s'; list_repos "
                                  "shows the repos you can use", v[i].id, p->tenant);
            continue;
        }
        if (p->nrepos && !in_list(p->repos, p->nrepos, p->tenant, v[i].id)) {
            if (explicit_repo)
                return mg_err_set(err, MG_E_REPO_FORBIDDEN, "this token may not use repo '%s'; ask for a token "
                                  "that lists it (memgate token create --repos ...)", v[i].id);
            continue;
        }
        if (k != i) v[k] = v[i];
        k++;
    }
    *n = k;
    if (k > 1 && !cross_repo) {
        char list[400];
        mg_repo_id_list(v, k, list, sizeof(list));
        return mg_err_set(err, MG_E_CROSS_REPO, "this request spans %zu repos (%s) and cross-repo queries are off; "
                          "name one repo, or set cross_repo = 1 in the config", k, list);
    }
    return 0;
}
