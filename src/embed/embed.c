/* embed.c — the embedder registry (see embed.h). */
#include "embed/embed.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mg_embedder_open(const struct mg_config *c, struct mg_embedder **out, struct mg_err *err)
{
    *out = NULL;
    const char *k = c->embedder;
    if (strcmp(k, "none") == 0) return 0;
    if (strcmp(k, "builtin") == 0) return mg_embedder_builtin_new(out, err);
    if (strcmp(k, "openai") == 0) return mg_embedder_openai_new(c, out, err);
    if (strcmp(k, "voyage") == 0) return mg_embedder_voyage_new(c, out, err);
    if (strcmp(k, "ollama") == 0) return mg_embedder_ollama_new(c, out, err);
    if (strcmp(k, "auto") == 0) {
        /* from what is configured, in this order; never by asking the network (docs/semantic.md) */
        if (c->embed_url[0] || c->embed_api_key[0]) return mg_embedder_openai_new(c, out, err);
        if (c->voyage_api_key[0]) return mg_embedder_voyage_new(c, out, err);
        if (c->ollama_url[0]) return mg_embedder_ollama_new(c, out, err);
        return mg_embedder_builtin_new(out, err);
    }
    return mg_err_set(err, MG_E_CONFIG, "embedder '%s' is unknown; use auto, builtin, openai, voyage, ollama or none",
                      k);
}

void mg_embedder_free(struct mg_embedder **pe)
{
    struct mg_embedder *e = *pe;
    if (!e) return;
    if (e->ops->release) e->ops->release(e);
    free(e);
    *pe = NULL;
}

int mg_embedder_prepare(struct mg_embedder *e, struct mg_db *d, int learn, struct mg_err *err)
{
    return e->ops->prepare ? e->ops->prepare(e, d, learn, err) : 0;
}

void mg_vec_normalize(float *v, int dim)
{
    double s = 0;
    for (int i = 0; i < dim; i++) s += (double)v[i] * v[i];
    if (s <= 0) return;
    float inv = (float)(1.0 / sqrt(s));
    for (int i = 0; i < dim; i++) v[i] *= inv;
}

int mg_embed(struct mg_embedder *e, enum mg_embed_input type, const char *const *texts, const size_t *lens, size_t n,
             float *out, struct mg_err *err)
{
    if (n == 0) return 0;
    if (e->ops->embed(e, type, texts, lens, n, out, err) != 0) return -1;
    for (size_t i = 0; i < n; i++) mg_vec_normalize(out + i * (size_t)e->dim, e->dim);
    return 0;
}

int mg_embedder_dim(struct mg_embedder *e, struct mg_err *err)
{
    int d = __atomic_load_n(&e->dim, __ATOMIC_ACQUIRE);
    if (d > 0) return d;
    static const char probe[] = "memgate dimension probe";
    const char *t[1] = {probe};
    size_t l[1] = {sizeof(probe) - 1};
    float *tmp = malloc(MG_EMBED_MAX_DIM * sizeof(float));
    if (!tmp) return mg_err_oom(err);
    int rc = e->ops->embed(e, MG_EMBED_DOCUMENT, t, l, 1, tmp, err);
    free(tmp);
    if (rc != 0) return -1;
    return e->dim;
}

void mg_embedder_sig(const struct mg_embedder *e, char *buf, size_t cap)
{
    if (!e) snprintf(buf, cap, "none");
    else if (e->url[0]) snprintf(buf, cap, "%s:%s@%s", e->name, e->model, e->url);
    else snprintf(buf, cap, "%s:%s", e->name, e->model);
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
