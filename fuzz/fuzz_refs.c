/* fuzz_refs.c — table refs' blobs (index/refs.h) on hostile input: read as
 * a defs blob and as a uses blob (a corrupt database), the walk ends within
 * the bytes and gives only valid classes and counts; and built from the
 * input as C and as TypeScript source, what is built reads back whole. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "index/refs.h"

static size_t walk(const uint8_t *p, size_t n, bool uses)
{
    struct mg_refs_iter it;
    mg_refs_iter_init(&it, p, n, uses);
    uint32_t h, x;
    size_t k = 0;
    while (mg_refs_next(&it, &h, &x)) {
        if (++k > n) abort(); /* every entry takes a byte at least */
        if (uses ? (x >> 1) == 0 || (x >> 1) > MG_REFS_COUNT_MAX : x > 3) abort();
    }
    return k;
}

MG_FUZZ_TARGET(refs)
{
    uint8_t *b = malloc(size ? size : 1); /* exact size */
    memcpy(b, data, size);
    walk(b, size, false);
    walk(b, size, true);
    static const char *const names[] = {"fuzz_fn"}, *const kinds[] = {"function"};
    for (int lang = 0; lang < 2; lang++) {
        struct mg_refs_blobs rb;
        if (mg_refs_build(lang ? "typescript" : "c", (const char *)b, size, names, kinds, 1, &rb) != 0) continue;
        if (walk(rb.defs, rb.ndefs, false) > 1) abort(); /* one name defined */
        size_t nu = walk(rb.uses, rb.nuses, true);
        if (rb.nuses && !nu) abort();
        mg_refs_blobs_release(&rb);
    }
    free(b);
    return 0;
}
