/* ollama.c — the `ollama` embedder: Ollama's native embeddings API (see
 * embed.h).
 *
 * POST <ollama_url>/api/embed (default http://localhost:11434) with
 * {"model": M, "input": [texts]}; the answer is {"embeddings": [[...],
 * ...]} in input order (mg_embed_parse_ollama), an error {"error": "..."}.
 * A model Ollama does not have is a 404 whose message says to pull it.
 *
 * nomic-embed-text (the default model) is trained with task prefixes: a
 * document is embedded as "search_document: TEXT" and a query as
 * "search_query: TEXT". Those are added for any model whose name begins
 * with nomic-embed-text; other models get the text as it is.
 *
 * Ollama's OpenAI-compatible /v1 endpoint is the `openai` embedder's
 * (embed_url = http://localhost:11434/v1); an ollama_url ending in /v1 is
 * refused with that advice. The client is http.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embed/http.h"

int mg_embed_parse_ollama(const char *body, size_t len, size_t n, int *dim, float **out, struct mg_err *err)
{
    *out = NULL;
    json_t *embs, *root = mg_embed_answer(body, len, "embeddings", n, &embs, err);
    if (!root) return -1;
    float *v = NULL;
    int d = *dim;
    for (size_t i = 0; i < n; i++) {
        if (mg_embed_take_row(json_array_get(embs, i), i, i, n, &d, &v, err) != 0) goto fail;
    }
    json_decref(root);
    *dim = d;
    *out = v;
    return 0;
fail:
    free(v);
    json_decref(root);
    return -1;
}

/* A model Ollama has not pulled: say how to get it. */
static void ollama_hint(struct mg_embedder *e, long status, const char *text, char *out, size_t cap)
{
    if (status == 404 && strstr(text, "not found"))
        snprintf(out, cap, "; run `ollama pull %s` on the Ollama host, or set ollama_model", e->model);
    else if (status == 401 || status == 403)
        snprintf(out, cap, "; Ollama itself takes no key: something in front of it refused the request");
}

int mg_embedder_ollama_new(const struct mg_config *c, struct mg_embedder **out, struct mg_err *err)
{
    *out = NULL;
    const char *base = c->ollama_url[0] ? c->ollama_url : "http://localhost:11434";
    if (mg_embed_http_check_url("ollama_url", base, err) != 0) return -1;
    size_t bl = strlen(base);
    while (bl > 0 && base[bl - 1] == '/') bl--;
    if ((bl >= 3 && strncmp(base + bl - 3, "/v1", 3) == 0) || (bl >= 14 && strncmp(base + bl - 14, "/v1/embeddings", 14) == 0))
        return mg_err_set(err, MG_E_CONFIG, "ollama_url '%s' is Ollama's OpenAI-compatible endpoint; set ollama_url "
                          "to Ollama's base URL (http://localhost:11434), or use embedder = openai with embed_url = "
                          "%.*s", base, (int)bl, base);
    struct mg_embedder *e;
    if (mg_embed_http_new("ollama", &e, err) != 0) return -1;
    struct mg_embed_http *h = e->self;
    const char *tail = "/api/embed";
    if (bl >= 10 && strncmp(base + bl - 10, "/api/embed", 10) == 0) tail = "";
    else if (bl >= 4 && strncmp(base + bl - 4, "/api", 4) == 0) tail = "/embed";
    snprintf(e->url, sizeof(e->url), "%.*s%s", (int)bl, base, tail);
    snprintf(e->model, sizeof(e->model), "%s", c->ollama_model[0] ? c->ollama_model : "nomic-embed-text");
    if (strncmp(e->model, "nomic-embed-text", 16) == 0) {
        snprintf(h->prefix[MG_EMBED_DOCUMENT], sizeof(h->prefix[0]), "search_document: ");
        snprintf(h->prefix[MG_EMBED_QUERY], sizeof(h->prefix[0]), "search_query: ");
    }
    h->timeout = c->embed_timeout > 0 ? c->embed_timeout : 60;
    h->retries = c->embed_retries;
    h->parse = mg_embed_parse_ollama;
    h->hint = ollama_hint;
    e->batch = c->embed_batch > 0 ? c->embed_batch : 64;
    *out = e;
    return 0;
}
