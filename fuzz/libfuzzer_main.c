/* libfuzzer_main.c — the libFuzzer entry point for one target, chosen at
 * build time with -DMG_FUZZ_MAIN=<name> (see `make fuzz`). */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MG_STR2(x) #x
#define MG_STR(x) MG_STR2(x)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static mg_fuzz_fn fn;
    if (!fn) {
        size_t n;
        const struct mg_fuzz_target *t = mg_fuzz_targets(&n);
        for (size_t i = 0; i < n; i++)
            if (strcmp(t[i].name, MG_STR(MG_FUZZ_MAIN)) == 0) fn = t[i].fn;
        if (!fn) {
            fprintf(stderr, "no fuzz target named %s\n", MG_STR(MG_FUZZ_MAIN));
            abort();
        }
    }
    return fn(data, size);
}
