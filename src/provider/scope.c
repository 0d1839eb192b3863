/* scope.c — see scope.h. */
#include "provider/scope.h"

#include <stdlib.h>
#include <string.h>

static void strv_free(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++) free(v[i]);
    free(v);
}

void mg_scope_release(struct mg_scope *s)
{
    strv_free(s->globs, s->nglobs);
    strv_free(s->excludes, s->nexcludes);
    strv_free(s->langs, s->nlangs);
    strv_free(s->repos, s->nrepos);
    memset(s, 0, sizeof(*s));
}

bool mg_scope_empty(const struct mg_scope *s)
{
    return !s->nglobs && !s->nexcludes && !s->nlangs && !s->nrepos;
}

static int strv_copy(char ***dst, size_t *dn, char *const *src, size_t n)
{
    *dst = NULL;
    *dn = 0;
    if (!n) return 0;
    char **v = calloc(n, sizeof(*v));
    if (!v) return -1;
    for (size_t i = 0; i < n; i++)
        if (!(v[i] = strdup(src[i]))) {
            strv_free(v, i);
            return -1;
        }
    *dst = v;
    *dn = n;
    return 0;
}

int mg_scope_copy(struct mg_scope *dst, const struct mg_scope *src)
{
    memset(dst, 0, sizeof(*dst));
    if (strv_copy(&dst->globs, &dst->nglobs, src->globs, src->nglobs) != 0 ||
        strv_copy(&dst->excludes, &dst->nexcludes, src->excludes, src->nexcludes) != 0 ||
        strv_copy(&dst->langs, &dst->nlangs, src->langs, src->nlangs) != 0 ||
        strv_copy(&dst->repos, &dst->nrepos, src->repos, src->nrepos) != 0) {
        mg_scope_release(dst);
        return -1;
    }
    return 0;
}

int mg_scope_push(char ***v, size_t *n, const char *s)
{
    if (*n >= MG_SCOPE_MAX_ITEMS) return -1;
    char **nv = realloc(*v, (*n + 1) * sizeof(*nv));
    if (!nv) return -1;
    *v = nv;
    if (!(nv[*n] = strdup(s))) return -1;
    (*n)++;
    return 0;
}
