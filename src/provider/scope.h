/* scope.h — the scope: which repos and which files a request sees.
 *
 * A scope is four lists: path globs (a file must match one), exclude globs
 * (a file must match none), languages and repo ids; an empty list does not
 * narrow. A session keeps one (set_scope); a call's own arguments win over
 * it list by list; the gate hands the result, the effective scope, to the
 * providers (provider.h), which apply it inside their queries.
 *
 * Every list is malloc'd (strings too) and NULL when empty; at most
 * MG_SCOPE_MAX_ITEMS entries each.
 */
#ifndef MG_PROVIDER_SCOPE_H
#define MG_PROVIDER_SCOPE_H

#include <stdbool.h>
#include <stddef.h>

#define MG_SCOPE_MAX_ITEMS 64

struct mg_scope {
    char **globs;
    char **excludes;
    char **langs;
    char **repos;
    size_t nglobs, nexcludes, nlangs, nrepos;
};

void mg_scope_release(struct mg_scope *s);
/* Deep copy; -1 on allocation failure (dst left empty). */
int mg_scope_copy(struct mg_scope *dst, const struct mg_scope *src);
bool mg_scope_empty(const struct mg_scope *s);
/* Append a copy of s to the list (*v, *n); -1 on allocation failure or
 * past MG_SCOPE_MAX_ITEMS (the list is left as it was). */
int mg_scope_push(char ***v, size_t *n, const char *s);

#endif
