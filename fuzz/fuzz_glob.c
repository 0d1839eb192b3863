/* fuzz_glob.c — glob compilation and matching on hostile input. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "util/glob.h"

MG_FUZZ_TARGET(glob)
{
    /* first line: a glob (or '!'-glob); second: an exclude; rest: a path */
    char *buf = malloc(size + 1);
    memcpy(buf, data, size);
    buf[size] = 0;
    char *inc = buf, *exc = strchr(inc, '\n'), *path = NULL;
    if (exc) {
        *exc++ = 0;
        path = strchr(exc, '\n');
        if (path) *path++ = 0;
    }
    const char *i[1] = {inc}, *e[1] = {exc};
    struct mg_globset *g = NULL;
    struct mg_err err;
    if (mg_globset_new(i, 1, e, exc ? 1 : 0, &g, &err) == 0 && path) mg_globset_allows(g, path, strlen(path));
    mg_globset_free(&g);
    free(buf);
    return 0;
}
