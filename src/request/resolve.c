/* resolve.c — see resolve.h. */
#include "request/resolve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int mg_resolve_visible(const struct mg_ctx *x, struct mg_repo **out, size_t *n, struct mg_err *err)
{
    if (mg_catalog_list(&x->srv->cfg, out, n, err) != 0) return -1;
    size_t k = 0;
    for (size_t i = 0; i < *n; i++)
        if (mg_access_visible(&x->who, &(*out)[i])) (*out)[k++] = (*out)[i];
    *n = k;
    return 0;
}

/* Look id up as a repo of the caller's tenant: 1 found (out filled), 0 not
 * (absent, or another tenant's: the same answer), -1 error. */
static int lookup_own(const struct mg_ctx *x, const char *id, struct mg_repo *out, struct mg_err *err)
{
    struct mg_err e = {0};
    if (mg_catalog_get(&x->srv->cfg, id, out, &e) == 0) return strcmp(out->tenant, x->who.tenant) == 0;
    if (e.code && strcmp(e.code, MG_E_REPO_NOT_FOUND) == 0) return 0;
    *err = e;
    return -1;
}

int mg_resolve_named(const struct mg_ctx *x, const char *id, struct mg_repo *out, struct mg_err *err)
{
    /* ids are per tenant (store/catalog.h): NAME is the caller's TENANT~NAME, or an id made before that
     * prefix; whatever another tenant holds, the answer is the one of a free name */
    char q[MG_ID_MAX + 1];
    mg_repo_qualify(x->who.tenant, id, q, sizeof(q));
    int found = lookup_own(x, q, out, err);
    if (found == 0 && strcmp(q, id) != 0) found = lookup_own(x, id, out, err);
    if (found < 0) return -1;
    if (found) {
        size_t one = 1;
        return mg_access_repos(&x->who, true, out, &one, true, err);
    }
    struct mg_repo *all;
    size_t n;
    if (mg_resolve_visible(x, &all, &n, err) != 0) return -1;
    char list[600];
    mg_repo_id_list(all, n, list, sizeof(list));
    free(all);
    return mg_err_set(err, MG_E_REPO_NOT_FOUND, "no repo '%s' is indexed; the repos you can use: %s", id, list);
}

int mg_resolve_containing(const struct mg_ctx *x, const char *path, struct mg_repo *out, struct mg_err *err)
{
    struct mg_repo *all;
    size_t n;
    if (mg_resolve_visible(x, &all, &n, err) != 0) return -1;
    int i = mg_catalog_containing(all, n, path);
    if (i >= 0) *out = all[i];
    free(all);
    return i >= 0;
}

static int one(struct mg_repo **out, size_t *n, const struct mg_repo *r, struct mg_err *err)
{
    if (!(*out = malloc(sizeof(**out)))) return mg_err_oom(err);
    **out = *r;
    *n = 1;
    return 0;
}

/* The session's binding (id) as a repo: 1 bound (out filled), 0 unbound, -1 error. */
static int bound(const struct mg_ctx *x, const char *id, struct mg_repo *out, struct mg_err *err)
{
    if (!id[0]) return 0;
    if (mg_resolve_named(x, id, out, err) == 0) return 1;
    if (err->code && strcmp(err->code, MG_E_REPO_NOT_FOUND) == 0)
        mg_err_set(err, MG_E_REPO_NOT_FOUND, "this session is bound to repo '%s', which is no longer indexed; index "
                   "it again (index_repo) or pass `repo`", id);
    return -1;
}

int mg_resolve(const struct mg_ctx *x, const struct mg_session_snap *snap, const char *explicit_repo,
               struct mg_repo **out, size_t *n, bool *named, struct mg_err *err)
{
    *out = NULL;
    *n = 0;
    *named = true;
    struct mg_repo r;
    /* 1. explicit */
    const char *id = explicit_repo ? explicit_repo : x->repo_header;
    if (id) return mg_resolve_named(x, id, &r, err) != 0 ? -1 : one(out, n, &r, err);

    /* 2. the session: its scope's repos (an explicit choice made earlier), then its binding */
    const struct mg_scope *sc = &snap->scope;
    if (sc->nrepos) {
        struct mg_repo *v = calloc(sc->nrepos, sizeof(*v));
        int rc = v ? 0 : mg_err_oom(err);
        for (size_t i = 0; rc == 0 && i < sc->nrepos; i++) rc = mg_resolve_named(x, sc->repos[i], &v[i], err);
        if (rc != 0) {
            free(v);
            return -1;
        }
        *out = v;
        *n = sc->nrepos;
        return 0;
    }
    int b = bound(x, snap->repo, &r, err);
    if (b < 0) return -1;
    if (b) return one(out, n, &r, err);

    *named = false;
    /* 3. the repo holding the client's directory */
    if (x->cwd[0]) {
        int in = mg_resolve_containing(x, x->cwd, &r, err);
        if (in < 0) return -1;
        if (in) return one(out, n, &r, err);
    }

    /* 4. the only repo */
    struct mg_repo *all;
    size_t na;
    if (mg_resolve_visible(x, &all, &na, err) != 0) return -1;
    if (na == 1) {
        *out = all;
        *n = 1;
        return 0;
    }
    /* 5. */
    if (na == 0) {
        free(all);
        return mg_err_set(err, MG_E_REPO_NOT_FOUND,
                          "no repo is indexed yet; call index_repo with the repo's path (or run `memgate index PATH`)");
    }
    char list[600];
    mg_repo_id_list(all, na, list, sizeof(list));
    free(all);
    return mg_err_set(err, MG_E_REPO_REQUIRED,
                      "%zu repos are indexed (%s) and this session is bound to none; pass `repo` with one of these "
                      "ids, or state the workspace root (MCP roots; on 2026-07-28 _meta[\"memgate/root\"])", na, list);
}

int mg_resolve_bind(struct mg_server *srv, struct mg_session *s, const char *repo, struct mg_err *err)
{
    struct stat sb;
    char canon[PATH_MAX];
    if (stat(repo, &sb) == 0 && S_ISDIR(sb.st_mode) && realpath(repo, canon)) {
        return mg_session_bind_root(s, canon, err);
    }
    struct mg_ctx x;
    struct mg_request_spec spec = {.srv = srv, .session = s, .op = "bind"};
    if (mg_request_init(&x, &spec, err) != 0) return -1;
    struct mg_repo r;
    int rc = mg_resolve_named(&x, repo, &r, err);
    mg_request_release(&x);
    if (rc != 0) {
        if (err->code && strcmp(err->code, MG_E_REPO_NOT_FOUND) == 0)
            mg_err_set(err, MG_E_REPO_NOT_FOUND,
                       "--repo '%s' is neither a directory nor an indexed repo id; `memgate repos` lists the ids", repo);
        return -1;
    }
    return mg_session_bind_repo(s, r.id, err);
}
