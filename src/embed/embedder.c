/* embedder.c — what the embedders share below the registry (see embedder.h). */
#include "embed/embedder.h"

#include <math.h>
#include <stdlib.h>

json_t *mg_embed_answer(const char *body, size_t len, const char *key, size_t n, json_t **rows, struct mg_err *err)
{
    json_error_t je;
    json_t *root = json_loadb(body, len, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        mg_err_set(err, MG_E_EMBED_BAD_RESPONSE, "the answer is not JSON (%s at byte %d)", je.text, je.position);
        return NULL;
    }
    *rows = json_object_get(root, key);
    if (!json_is_array(*rows)) {
        mg_err_set(err, MG_E_EMBED_BAD_RESPONSE, "the answer has no \"%s\" array", key);
    } else if (json_array_size(*rows) != n) {
        mg_err_set(err, MG_E_EMBED_BAD_RESPONSE, "the answer has %zu embeddings for %zu inputs", json_array_size(*rows),
                   n);
    } else {
        return root;
    }
    json_decref(root);
    return NULL;
}

int mg_embed_take_row(json_t *emb, size_t i, size_t at, size_t n, int *d, float **v, struct mg_err *err)
{
    size_t m = json_array_size(emb);
    if (!json_is_array(emb) || m == 0 || m > MG_EMBED_MAX_DIM || (*d && (size_t)*d != m))
        return mg_err_set(err, MG_E_EMBED_BAD_RESPONSE, "embedding %zu has %zu dimensions%s%d", i, m,
                          *d ? "; expected " : "; allowed 1 to ", *d ? *d : MG_EMBED_MAX_DIM);
    if (!*d) *d = (int)m;
    if (!*v && !(*v = malloc(n * (size_t)*d * sizeof(float)))) return mg_err_oom(err);
    for (size_t k = 0; k < m; k++) {
        json_t *x = json_array_get(emb, k);
        double f = json_is_number(x) ? json_number_value(x) : NAN;
        if (!isfinite(f) || fabs(f) > 1e30)
            return mg_err_set(err, MG_E_EMBED_BAD_RESPONSE, "embedding %zu has a value that is not a finite number", i);
        (*v)[at * (size_t)*d + k] = (float)f;
    }
    return 0;
}
