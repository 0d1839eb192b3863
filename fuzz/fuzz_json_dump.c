/* fuzz_json_dump.c — mg_json_dumps and mg_json_size (util/json.h) give jansson's
 * bytes for any JSON jansson reads. */
#include "fuzz.h"
#include "util/json.h"

#include <stdlib.h>
#include <string.h>

MG_FUZZ_TARGET(json_dump)
{
    json_t *v = json_loadb((const char *)data, size, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
    if (!v) return 0;
    static const size_t flags[] = {JSON_COMPACT | JSON_ENCODE_ANY, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(6)};
    for (size_t f = 0; f < 2; f++) {
        char *a = mg_json_dumps(v, flags[f]), *b = json_dumps(v, flags[f]);
        if ((!a) != (!b) || (a && strcmp(a, b) != 0)) __builtin_trap();
        if (mg_json_size(v, flags[f]) != json_dumpb(v, NULL, 0, flags[f])) __builtin_trap();
        free(a);
        free(b);
    }
    json_decref(v);
    return 0;
}
