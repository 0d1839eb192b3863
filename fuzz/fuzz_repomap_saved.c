/* fuzz_repomap_saved.c — a saved repo map graph (search/repomap.h, the file
 * beside an index) on hostile input: a damaged or forged file is refused
 * with an error, or it is safe to rank over and to look names up in (the
 * sanitizers check every access). The corpus starts from a real saved graph. */
#include <stdlib.h>

#include "fuzz.h"
#include "search/repomap.h"

MG_FUZZ_TARGET(repomap_saved)
{
    struct mg_err err = {0};
    if (mg_repomap_saved_check(data, size, &err) != 0 && (!err.code || !err.msg[0])) abort();
    return 0;
}
