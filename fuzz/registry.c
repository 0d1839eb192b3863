/* registry.c — the list of fuzz targets (see fuzz.h). */
#include "fuzz.h"

#include <stdlib.h>

static struct mg_fuzz_target targets[64];
static size_t ntargets;

void mg_fuzz_register(const char *name, mg_fuzz_fn fn)
{
    if (ntargets == sizeof(targets) / sizeof(targets[0])) abort();
    targets[ntargets].name = name;
    targets[ntargets].fn = fn;
    ntargets++;
}

const struct mg_fuzz_target *mg_fuzz_targets(size_t *n)
{
    *n = ntargets;
    return targets;
}
