/* fuzz_role.c — file roles and the roles a query names on hostile input. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "index/role.h"

MG_FUZZ_TARGET(role)
{
    /* first line: a path (also a query); the rest: the file's text */
    char *buf = malloc(size + 1);
    memcpy(buf, data, size);
    buf[size] = 0;
    char *text = memchr(buf, '\n', size);
    size_t len = 0;
    if (text) {
        *text++ = 0;
        len = size - (size_t)(text - buf);
    }
    if (mg_file_role(buf, text, len) == MG_ROLE_UNKNOWN) abort();
    (void)mg_roles_asked(buf);
    if (text) (void)mg_roles_asked(text);
    free(buf);
    return 0;
}
