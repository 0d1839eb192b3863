/* fuzz_embed_resp.c — an embeddings endpoint's answer (openai.c) on hostile
 * input. The first byte picks how many inputs the request had (1-8) and
 * whether the dimensions were already known; the rest is the body. */
#include <math.h>
#include <stdlib.h>

#include "embed/embed.h"
#include "fuzz.h"

MG_FUZZ_TARGET(embed_resp)
{
    if (size < 1) return 0;
    size_t n = (size_t)(data[0] & 7) + 1;
    int dim = (data[0] & 8) ? 3 : 0;
    float *v = NULL;
    struct mg_err err;
    if (mg_embed_parse_response((const char *)data + 1, size - 1, n, &dim, &v, &err) == 0) {
        /* a success is n finite vectors of dim > 0 */
        if (dim <= 0 || dim > MG_EMBED_MAX_DIM || !v) abort();
        for (size_t i = 0; i < n * (size_t)dim; i++)
            if (!isfinite(v[i])) abort();
        free(v);
    }
    return 0;
}
