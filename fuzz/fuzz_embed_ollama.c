/* fuzz_embed_ollama.c — Ollama's /api/embed answer (ollama.c) and the
 * error text read from any embeddings endpoint's error answer (http.c), on
 * hostile input. The first byte picks how many inputs the request had
 * (1-8) and whether the dimensions were already known; the rest is the
 * body. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "embed/embed.h"
#include "util/httpc.h"
#include "fuzz.h"

MG_FUZZ_TARGET(embed_ollama)
{
    if (size < 1) return 0;
    size_t n = (size_t)(data[0] & 7) + 1;
    int dim = (data[0] & 8) ? 3 : 0;
    float *v = NULL;
    struct mg_err err;
    const char *body = (const char *)data + 1;
    if (mg_embed_parse_ollama(body, size - 1, n, &dim, &v, &err) == 0) {
        /* a success is n finite vectors of dim > 0 */
        if (dim <= 0 || dim > MG_EMBED_MAX_DIM || !v) abort();
        for (size_t i = 0; i < n * (size_t)dim; i++)
            if (!isfinite(v[i])) abort();
        free(v);
    }
    /* the error text: bounded, and the key never in it */
    char t[256];
    mg_http_endpoint_message(body, size - 1, "KEY-1234", t, sizeof(t));
    if (strlen(t) >= sizeof(t) || strstr(t, "KEY-1234")) abort();
    return 0;
}
