/* json.c — see json.h. */
#include "util/json.h"

#include <stdlib.h>
#include <string.h>

#include "util/utf8.h"

json_t *mg_json_text(const char *s)
{
    /* checked here eight bytes at a time, not by jansson's decoder a character at a time (a search's
     * answer is mostly text) */
    size_t n = strlen(s);
    if (mg_utf8_valid_prefix(s, n) == n) return json_stringn_nocheck(s, n);
    char *fixed = NULL;
    mg_utf8_repair(s, n, &fixed, &n);
    json_t *j = fixed ? json_stringn(fixed, n) : NULL;
    free(fixed);
    return j ? j : json_string("(message not valid UTF-8)");
}
