/* fuzz_vstore_resp.c — an external vector store's answers (vext.h: Chroma's
 * collection, query and get, Qdrant's search) on hostile input. The first
 * byte picks the parser (low 2 bits) and how many points were asked for
 * (1-8); the rest is the body. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "vector/vext.h"

MG_FUZZ_TARGET(vstore_resp)
{
    if (size < 1) return 0;
    size_t max = (size_t)((data[0] >> 2) & 7) + 1;
    const char *body = (const char *)data + 1;
    size_t len = size - 1;
    struct mg_vext_hit h[8];
    struct mg_err err;
    long n = -1;
    static const float q[3] = {1, 0, 0};
    switch (data[0] & 3) {
    case 0: n = mg_chroma_parse_query(body, len, h, max, &err); break;
    case 1: n = mg_chroma_parse_get(body, len, q, 3, h, max, &err); break;
    case 2: n = mg_qdrant_parse_search(body, len, h, max, &err); break;
    default: {
        char id[64];
        if (mg_chroma_parse_collection(body, len, id, sizeof(id), &err) == 0 && strlen(id) >= sizeof(id)) abort();
        return 0;
    }
    }
    if (n > (long)max) abort();
    for (long i = 0; i < n; i++) {
        if (!isfinite(h[i].score)) abort();
        if (h[i].meta_ok && (strlen(h[i].tenant) >= sizeof(h[i].tenant) || strlen(h[i].repo) >= sizeof(h[i].repo) ||
                             strlen(h[i].fp) >= sizeof(h[i].fp)))
            abort();
    }
    return 0;
}
