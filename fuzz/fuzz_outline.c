/* fuzz_outline.c — the body-eliding lexer on hostile input; checks that
 * every outline byte maps back to the same source byte. */
#include <stdlib.h>

#include "fuzz.h"
#include "index/outline.h"

MG_FUZZ_TARGET(outline)
{
    struct mg_outline o;
    if (mg_outline_build((const char *)data + (size > 0), size - (size > 0), size > 0 && (data[0] & 1) ? MG_OUTLINE_C : 0, &o) != 0) return 0;
    for (size_t i = 0; i < o.len; i++)
        if (o.text[i] != (char)data[(size > 0) + mg_outline_to_src(&o, (uint32_t)i)]) abort();
    if (o.len + (size > 0) > size) abort();
    mg_outline_release(&o);
    return 0;
}
