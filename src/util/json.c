/* json.c — see json.h. */
#include "util/json.h"

#include <stdlib.h>
#include <string.h>

#include "util/utf8.h"

json_t *mg_json_text(const char *s)
{
    json_t *j = json_string(s);
    if (j) return j;
    char *fixed = NULL;
    size_t n = 0;
    mg_utf8_repair(s, strlen(s), &fixed, &n);
    j = fixed ? json_stringn(fixed, n) : NULL;
    free(fixed);
    return j ? j : json_string("(message not valid UTF-8)");
}
