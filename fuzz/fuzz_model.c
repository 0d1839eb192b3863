/* fuzz_model.c — the code model's file (embed/model.c) on hostile input: a
 * damaged or forged file is refused with model_invalid and a message, or
 * loaded into a model whose vectors are finite. Each input is tried as it
 * is and with its checksum made right, so that the header's and the tables'
 * checks are reached too. The corpus starts from a small valid model (dim 8,
 * 2^8 buckets). */
#include <math.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#include "embed/embedder.h"
#include "fuzz.h"

static void try_one(const uint8_t *data, size_t size)
{
    struct mg_model *m = NULL;
    struct mg_err err = {0};
    if (mg_model_parse(data, size, &m, &err) != 0) {
        if (!err.code || strcmp(err.code, MG_E_MODEL_INVALID) != 0 || !err.msg[0]) abort();
        return;
    }
    int dim = mg_model_dim(m);
    float *v = malloc((size_t)dim * sizeof(float));
    if (!v) abort();
    static const char text[] = "parse_http_header reads one header line of the request";
    for (int side = 0; side < 2; side++) {
        if (mg_model_embed(m, side, text, sizeof(text) - 1, v, &err) != 0) abort();
        for (int j = 0; j < dim; j++)
            if (!isfinite(v[j])) abort();
    }
    free(v);
    mg_model_free(&m);
}

MG_FUZZ_TARGET(model)
{
    try_one(data, size);
    if (size < 32 || size > (1u << 20)) return 0;
    uint8_t *c = malloc(size);
    if (!c) abort();
    memcpy(c, data, size);
    crypto_generichash(c + size - 32, 32, c, size - 32, NULL, 0);
    try_one(c, size);
    free(c);
    return 0;
}
