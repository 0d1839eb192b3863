/* embed.c — the embedder registry (see embed.h): builds the configured
 * embedder from the table of built-ins below, and wraps its vtable
 * (normalising every vector). The implementations (builtin.c, openai.c,
 * voyage.c, ollama.c) sit below it and know nothing of it. */
#include "embed/embed.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The built-ins by name; `auto` picks one of them from the configuration. */
static int builtin_new(const struct mg_config *c, struct mg_embedder **out, struct mg_err *err)
{
    (void)c; /* builtin has no settings */
    return mg_embedder_builtin_new(out, err);
}

static const struct {
    const char *name;
    int (*make)(const struct mg_config *c, struct mg_embedder **out, struct mg_err *err);
} makers[] = {
    {"builtin", builtin_new},
    {"model", mg_embedder_model_new},
    {"openai", mg_embedder_openai_new},
    {"voyage", mg_embedder_voyage_new},
    {"ollama", mg_embedder_ollama_new},
};

/* auto: from what is configured, in this order; never by asking the network (docs/semantic.md) */
static const char *auto_choice(const struct mg_config *c)
{
    if (c->embed_url[0] || c->embed_api_key[0]) return "openai";
    if (c->voyage_api_key[0]) return "voyage";
    if (c->ollama_url[0]) return "ollama";
    return "model";
}

const char *mg_embedder_chosen(const struct mg_config *c)
{
    return strcmp(c->embedder, "auto") == 0 ? auto_choice(c) : c->embedder;
}

int mg_embedder_open(const struct mg_config *c, struct mg_embedder **out, struct mg_err *err)
{
    *out = NULL;
    const char *k = mg_embedder_chosen(c);
    if (strcmp(k, "none") == 0) return 0;
    for (size_t i = 0; i < sizeof(makers) / sizeof(makers[0]); i++)
        if (strcmp(k, makers[i].name) == 0) return makers[i].make(c, out, err);
    return mg_err_set(err, MG_E_CONFIG, "embedder '%s' is unknown; use auto, builtin, model, openai, voyage, ollama or none",
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
