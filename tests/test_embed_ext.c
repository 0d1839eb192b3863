/* test_embed_ext.c — the voyage and ollama embedders, and `auto`.
 *
 * Voyage's hosted API and Ollama cannot run here, so the test starts a
 * loopback fake of each (libmicrohttpd) that implements the documented
 * subset memgate calls: Voyage's POST /v1/embeddings (input, model,
 * input_type, output_dimension; answers {"data": [{"embedding", "index"}]},
 * errors {"detail"}) and Ollama's POST /api/embed (model, input; answers
 * {"embeddings": [[...]]}, errors {"error"}). The fake records every request
 * body, so the tests assert what memgate sent: batches, input types,
 * prefixes, the key. Its vectors are bags of words hashed into FAKE_DIM
 * dimensions (the Ollama task prefixes stripped first), so a semantic search
 * through it finds the file that shares the query's words.
 *
 * Modes (the URL's first segment): ok, e401, r429 (the first request 429
 * with Retry-After: 1), e500, malformed, short (one vector too few),
 * dimchange (FAKE_DIM, then half), slow (3 s), nomodel (Ollama's 404),
 * flood (an answer of 4 MB), die (the connection closed in the middle of
 * the answer).
 */
#include <ctype.h>
#include <math.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/time.h>
#include <unistd.h>

#include "embed/embed.h"
#include "fakehttp.h"
#include "fixtures.h"
#include "util/httpc.h"
#include "util/metrics.h"

#define FAKE_DIM 64
#define VKEY "sekrit-voyage-key-9876"
#define MAX_BODIES 256

static struct fake {
    struct MHD_Daemon *d;
    int port;
    int requests;
    int auth_bad;          /* requests without the expected bearer (voyage) */
    char *bodies[MAX_BODIES];
    pthread_mutex_t mu;
} fk = {.mu = PTHREAD_MUTEX_INITIALIZER};

static unsigned fnv(const char *s, size_t n)
{
    unsigned h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)tolower((unsigned char)s[i])) * 16777619u;
    return h;
}

/* Bag of words (runs of letters) hashed into dim dimensions. */
static json_t *fake_vec(const char *s, int dim)
{
    if (strncmp(s, "search_query: ", 14) == 0) s += 14;
    else if (strncmp(s, "search_document: ", 17) == 0) s += 17;
    double v[FAKE_DIM] = {0};
    for (int i = 0; i < dim; i++) v[i] = 0.001;
    for (const char *p = s; *p;) {
        if (!isalpha((unsigned char)*p)) {
            p++;
            continue;
        }
        const char *w = p;
        while (isalpha((unsigned char)*p)) p++;
        v[fnv(w, (size_t)(p - w)) % (unsigned)dim] += 1.0;
    }
    json_t *a = json_array();
    for (int i = 0; i < dim; i++) json_array_append_new(a, json_real(v[i]));
    return a;
}

static enum MHD_Result reply(struct MHD_Connection *c, int status, char *text, const char *retry_after)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
    if (retry_after) MHD_add_response_header(r, "Retry-After", retry_after);
    enum MHD_Result ret = MHD_queue_response(c, (unsigned)status, r);
    MHD_destroy_response(r);
    return ret;
}

/* die: a 200 whose body stops half-way (the server closes the connection) */
static ssize_t die_body(void *cls, uint64_t pos, char *buf, size_t max)
{
    static const char part[] = "{\"data\":[{\"embedding\":[0.5,";
    if (pos >= sizeof(part) - 1) return MHD_CONTENT_READER_END_WITH_ERROR;
    size_t n = sizeof(part) - 1 - (size_t)pos;
    if (n > max) n = max;
    memcpy(buf, part + pos, n);
    return (ssize_t)n;
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                              const char *version, const char *data, size_t *size, void **con_cls)
{
    struct mg_t_body *b = mg_t_body_gather(con_cls, data, size);
    if (!b) return MHD_YES;
    bool ollama = strstr(url, "/api/embed") != NULL;
    pthread_mutex_lock(&fk.mu);
    int nreq = ++fk.requests;
    if (nreq <= MAX_BODIES) fk.bodies[nreq - 1] = strdup(b->p ? b->p : "");
    const char *auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
    if (!ollama && (!auth || strcmp(auth, "Bearer " VKEY) != 0)) fk.auth_bad++;
    pthread_mutex_unlock(&fk.mu);

    json_t *req = json_loadb(b->p ? b->p : "", b->n, 0, NULL);
    json_t *input = json_object_get(req, "input");
    size_t n = json_array_size(input);
    int dim = FAKE_DIM;
    if (json_is_integer(json_object_get(req, "output_dimension")))
        dim = (int)json_integer_value(json_object_get(req, "output_dimension"));
    if (dim < 1 || dim > FAKE_DIM) dim = FAKE_DIM;
    char *text = NULL;
    int status = 200;
    const char *ra = NULL;
    if (strncmp(url, "/e401/", 6) == 0) {
        status = 401;
        text = strdup(ollama ? "{\"error\":\"unauthorized\"}"
                             : "{\"detail\":\"Provided API key is invalid: " VKEY "\"}");
    } else if (strncmp(url, "/r429/", 6) == 0 && nreq == 1) {
        status = 429;
        ra = "1";
        text = strdup(ollama ? "{\"error\":\"busy\"}" : "{\"detail\":\"rate limit\"}");
    } else if (strncmp(url, "/e500/", 6) == 0) {
        status = 500;
        text = strdup(ollama ? "{\"error\":\"llama runner crashed\"}" : "{\"detail\":\"internal error\"}");
    } else if (strncmp(url, "/malformed/", 11) == 0) {
        text = strdup(ollama ? "{\"embeddings\": [[1, 2," : "{\"data\": [ {\"embedding\": [1, 2,");
    } else if (strncmp(url, "/die/", 5) == 0) {
        json_decref(req);
        struct MHD_Response *r = MHD_create_response_from_callback(1 << 20, 4096, die_body, NULL, NULL);
        enum MHD_Result ret = MHD_queue_response(c, 200, r);
        MHD_destroy_response(r);
        return ret;
    } else if (strncmp(url, "/slow/", 6) == 0) {
        sleep(3);
        text = strdup("{}");
    } else if (strncmp(url, "/nomodel/", 9) == 0) {
        status = 404;
        text = strdup("{\"error\":\"model \\\"nomic-embed-text\\\" not found, try pulling it first\"}");
    } else if (strncmp(url, "/flood/", 7) == 0) {
        size_t big = 4u << 20;
        text = malloc(big + 1);
        memset(text, ' ', big);
        text[big] = 0;
    } else if (strcmp(method, "POST") != 0 || !json_is_array(input) || !json_is_string(json_object_get(req, "model")) ||
               (!ollama && !strstr(url, "/v1/embeddings"))) {
        status = 400;
        text = strdup(ollama ? "{\"error\":\"bad request\"}" : "{\"detail\":\"bad request\"}");
    } else {
        if (strncmp(url, "/dimchange/", 11) == 0 && nreq > 1) dim = FAKE_DIM / 2;
        if (strncmp(url, "/short/", 7) == 0 && n > 0) n--;
        json_t *arr = json_array(), *top;
        if (ollama) {
            for (size_t i = 0; i < n; i++) json_array_append_new(arr, fake_vec(json_string_value(json_array_get(input, i)), dim));
            top = json_pack("{s:s, s:o}", "model", "nomic-embed-text", "embeddings", arr);
        } else {
            /* reverse order: the client must place by index */
            for (size_t i = n; i-- > 0;)
                json_array_append_new(arr, json_pack("{s:s, s:o, s:I}", "object", "embedding", "embedding",
                                                     fake_vec(json_string_value(json_array_get(input, i)), dim),
                                                     "index", (json_int_t)i));
            top = json_pack("{s:s, s:o, s:s, s:{s:i}}", "object", "list", "data", arr, "model", "voyage-code-3",
                            "usage", "total_tokens", 10);
        }
        text = json_dumps(top, JSON_COMPACT);
        json_decref(top);
    }
    json_decref(req);
    return reply(c, status, text, ra);
}

static void fake_start(void)
{
    fk.d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION, 0, NULL, NULL, answer,
                            NULL, MHD_OPTION_NOTIFY_COMPLETED, mg_t_body_done, NULL, MHD_OPTION_END);
    ASSERT(fk.d != NULL);
    fk.port = MHD_get_daemon_info(fk.d, MHD_DAEMON_INFO_BIND_PORT)->port;
    ASSERT(fk.port > 0);
}

static void fake_reset(void)
{
    pthread_mutex_lock(&fk.mu);
    for (int i = 0; i < MAX_BODIES; i++) {
        free(fk.bodies[i]);
        fk.bodies[i] = NULL;
    }
    fk.requests = 0;
    fk.auth_bad = 0;
    pthread_mutex_unlock(&fk.mu);
}

/* Request i's body as JSON (the caller decrefs). */
static json_t *body_json(int i)
{
    ASSERT(i < fk.requests && fk.bodies[i]);
    return mg_t_json(fk.bodies[i]);
}

static void cfg_voyage(struct mg_config *c, const char *mode)
{
    mg_t_config_defaults(c);
    snprintf(c->embedder, sizeof(c->embedder), "voyage");
    snprintf(c->voyage_url, sizeof(c->voyage_url), "http://127.0.0.1:%d/%s/v1", fk.port, mode);
    snprintf(c->voyage_api_key, sizeof(c->voyage_api_key), VKEY);
    c->embed_batch = 4;
    c->embed_timeout = 1;
    c->embed_retries = 2;
}

static void cfg_ollama(struct mg_config *c, const char *mode)
{
    mg_t_config_defaults(c);
    snprintf(c->embedder, sizeof(c->embedder), "ollama");
    snprintf(c->ollama_url, sizeof(c->ollama_url), "http://127.0.0.1:%d/%s", fk.port, mode);
    c->embed_batch = 4;
    c->embed_timeout = 1;
    c->embed_retries = 2;
}

static const char *words[] = {"alpha", "beta gamma", "delta", "epsilon zeta eta", "theta", "iota kappa",
                              "lambda", "mu", "nu xi", "omicron"};

/* Embed the first n words (type t) with config c: mg_embed's result. */
static int run(const struct mg_config *c, enum mg_embed_input t, size_t n, float *out, struct mg_err *err)
{
    struct mg_embedder *e;
    ASSERT_EQ_INT(mg_embedder_open(c, &e, err), 0);
    size_t lens[16];
    for (size_t i = 0; i < n; i++) lens[i] = strlen(words[i]);
    int rc = mg_embed(e, t, words, lens, n, out, err);
    mg_embedder_free(&e);
    return rc;
}

static double now_s(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + tv.tv_usec / 1e6;
}

/* The input at i of request r's body. */
static const char *input_at(json_t *b, size_t i) { return json_string_value(json_array_get(json_object_get(b, "input"), i)); }

TEST(voyage_embedder_batches_with_input_types_and_key)
{
    fake_start();
    struct mg_config c;
    cfg_voyage(&c, "ok");
    float out[10 * FAKE_DIM];
    struct mg_err err = {0};
    ASSERT_EQ_INT(run(&c, MG_EMBED_DOCUMENT, 10, out, &err), 0);
    /* 10 texts in batches of 4: 3 requests, documents, the model, the key; in input order (answers reversed) */
    ASSERT_EQ_INT(fk.requests, 3);
    ASSERT_EQ_INT(fk.auth_bad, 0);
    for (int r = 0; r < 3; r++) {
        json_t *b = body_json(r);
        ASSERT_EQ_STR(json_string_value(json_object_get(b, "input_type")), "document");
        ASSERT_EQ_STR(json_string_value(json_object_get(b, "model")), "voyage-code-3");
        ASSERT(json_object_get(b, "output_dimension") == NULL);
        ASSERT_EQ_INT(json_array_size(json_object_get(b, "input")), r < 2 ? 4 : 2);
        ASSERT_EQ_STR(input_at(b, 0), words[r * 4]);
        json_decref(b);
    }
    for (int i = 0; i < 10; i++) {
        json_t *v = fake_vec(words[i], FAKE_DIM);
        double norm = 0;
        for (int k = 0; k < FAKE_DIM; k++) norm += pow(json_real_value(json_array_get(v, k)), 2);
        for (int k = 0; k < FAKE_DIM; k++)
            if (fabs(out[i * FAKE_DIM + k] - json_real_value(json_array_get(v, k)) / sqrt(norm)) > 1e-5)
                FAIL("text %d dim %d: not its vector", i, k);
        json_decref(v);
    }
    /* a query is sent as one, with output_dimension when voyage_dimensions is set */
    fake_reset();
    c.voyage_dimensions = 16;
    ASSERT_EQ_INT(run(&c, MG_EMBED_QUERY, 1, out, &err), 0);
    ASSERT_EQ_INT(fk.requests, 1);
    json_t *b = body_json(0);
    ASSERT_EQ_STR(json_string_value(json_object_get(b, "input_type")), "query");
    ASSERT_EQ_INT(json_integer_value(json_object_get(b, "output_dimension")), 16);
    json_decref(b);

    /* the byte budget: three texts of 100 KiB go as 2 + 1 (256 KiB a request), whatever embed_batch says */
    fake_reset();
    c.voyage_dimensions = 0;
    c.embed_batch = 64;
    struct mg_embedder *e;
    ASSERT_EQ_INT(mg_embedder_open(&c, &e, &err), 0);
    char *big = malloc(100 << 10);
    memset(big, 'a', 100 << 10);
    const char *t3[3] = {big, big, big};
    size_t l3[3] = {100 << 10, 100 << 10, 100 << 10};
    ASSERT_EQ_INT(mg_embed(e, MG_EMBED_DOCUMENT, t3, l3, 3, out, &err), 0);
    ASSERT_EQ_INT(fk.requests, 2);
    mg_embedder_free(&e);
    free(big);
}

/* The error cases one embedder must meet; cfg makes its config for a mode. */
static void error_cases(void (*cfg)(struct mg_config *, const char *), const char *name)
{
    struct mg_config c;
    float out[4 * FAKE_DIM];
    struct mg_err err = {0};
    uint64_t errors0 = mg_metrics_provider_errors(name);

    /* 401: final at once; names the setting, never the key (even echoed) */
    fake_reset();
    cfg(&c, "e401");
    ASSERT_EQ_INT(run(&c, MG_EMBED_DOCUMENT, 2, out, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_EMBED_REJECTED);
    ASSERT_CONTAINS(err.msg, "HTTP 401");
    ASSERT_CONTAINS(err.msg, strcmp(name, "voyage") == 0 ? "voyage_api_key" : "Ollama itself takes no key");
    ASSERT_NOT_CONTAINS(err.msg, VKEY);
    ASSERT_NOT_CONTAINS(err.msg, "sekrit");
    ASSERT_EQ_INT(fk.requests, 1);
    ASSERT_EQ_INT(mg_metrics_provider_errors(name), errors0 + 1);

    /* 429 with Retry-After: 1, then an answer: retried after the second asked for (not 0.25 s) */
    fake_reset();
    cfg(&c, "r429");
    double t0 = now_s();
    ASSERT_EQ_INT(run(&c, MG_EMBED_DOCUMENT, 2, out, &err), 0);
    double took = now_s() - t0;
    ASSERT_EQ_INT(fk.requests, 2);
    if (took < 0.95) FAIL("the retry came after %.2f s; Retry-After asked for 1 s", took);

    /* 500 every time: 1 + 2 retries, then embed_unavailable with the endpoint's text */
    fake_reset();
    cfg(&c, "e500");
    ASSERT_EQ_INT(run(&c, MG_EMBED_DOCUMENT, 2, out, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_EMBED_UNAVAILABLE);
    ASSERT_CONTAINS(err.msg, "HTTP 500");
    ASSERT_CONTAINS(err.msg, strcmp(name, "voyage") == 0 ? "internal error" : "llama runner crashed");
    ASSERT_EQ_INT(fk.requests, 3);

    /* malformed JSON, one vector too few: embed_bad_response, not retried */
    fake_reset();
    cfg(&c, "malformed");
    ASSERT_EQ_INT(run(&c, MG_EMBED_DOCUMENT, 2, out, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_EMBED_BAD_RESPONSE);
    ASSERT_CONTAINS(err.msg, "not JSON");
    ASSERT_EQ_INT(fk.requests, 1);
    cfg(&c, "short");
    ASSERT_EQ_INT(run(&c, MG_EMBED_DOCUMENT, 2, out, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_EMBED_BAD_RESPONSE);
    ASSERT_CONTAINS(err.msg, "1 embeddings for 2 inputs");

    /* the dimensions change between two calls of one embedder */
    fake_reset();
    cfg(&c, "dimchange");
    struct mg_embedder *e;
    ASSERT_EQ_INT(mg_embedder_open(&c, &e, &err), 0);
    size_t l1[1] = {5};
    ASSERT_EQ_INT(mg_embed(e, MG_EMBED_DOCUMENT, words, l1, 1, out, &err), 0);
    ASSERT_EQ_INT(e->dim, FAKE_DIM);
    ASSERT_EQ_INT(mg_embed(e, MG_EMBED_QUERY, words, l1, 1, out, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_EMBED_BAD_RESPONSE);
    ASSERT_CONTAINS(err.msg, "32 dimensions; expected 64");
    mg_embedder_free(&e);

    /* an answer far larger than any n vectors can be: cut, embed_bad_response */
    fake_reset();
    cfg(&c, "flood");
    ASSERT_EQ_INT(run(&c, MG_EMBED_DOCUMENT, 1, out, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_EMBED_BAD_RESPONSE);
    ASSERT_CONTAINS(err.msg, "answered more than");

    /* the connection dies in the middle of the answer: embed_unavailable, retried */
    fake_reset();
    cfg(&c, "die");
    ASSERT_EQ_INT(run(&c, MG_EMBED_DOCUMENT, 1, out, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_EMBED_UNAVAILABLE);
    ASSERT_CONTAINS(err.msg, "cannot reach the embeddings endpoint");
    ASSERT_EQ_INT(fk.requests, 3);

    /* slower than embed_timeout (1 s), no retries: embed_unavailable */
    fake_reset();
    cfg(&c, "slow");
    c.embed_retries = 0;
    t0 = now_s();
    ASSERT_EQ_INT(run(&c, MG_EMBED_DOCUMENT, 1, out, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_EMBED_UNAVAILABLE);
    ASSERT_CONTAINS(err.msg, "imed out");
    ASSERT(now_s() - t0 < 2.5);
    ASSERT_NOT_CONTAINS(err.msg, "sekrit");
    /* 401, 500, malformed, short, dimchange, flood, die, slow */
    ASSERT_EQ_INT(mg_metrics_provider_errors(name), errors0 + 8);
}

TEST(voyage_embedder_errors)
{
    fake_start();
    error_cases(cfg_voyage, "voyage");
    /* no key: a config error that says where to set it */
    struct mg_config c;
    struct mg_embedder *e;
    struct mg_err err = {0};
    cfg_voyage(&c, "ok");
    c.voyage_api_key[0] = 0;
    ASSERT_EQ_INT(mg_embedder_open(&c, &e, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_CONFIG);
    ASSERT_CONTAINS(err.msg, "MEMGATE_VOYAGE_API_KEY");
}

TEST(ollama_embedder_batches_with_task_prefixes)
{
    fake_start();
    struct mg_config c;
    cfg_ollama(&c, "ok");
    float out[10 * FAKE_DIM];
    struct mg_err err = {0};
    ASSERT_EQ_INT(run(&c, MG_EMBED_DOCUMENT, 10, out, &err), 0);
    ASSERT_EQ_INT(fk.requests, 3);
    for (int r = 0; r < 3; r++) {
        json_t *b = body_json(r);
        ASSERT_EQ_STR(json_string_value(json_object_get(b, "model")), "nomic-embed-text");
        ASSERT_EQ_INT(json_array_size(json_object_get(b, "input")), r < 2 ? 4 : 2);
        char want[64];
        snprintf(want, sizeof(want), "search_document: %s", words[r * 4]);
        ASSERT_EQ_STR(input_at(b, 0), want);
        json_decref(b);
    }
    /* the same vectors as the fake makes for the bare words (in order) */
    for (int i = 0; i < 10; i++) {
        json_t *v = fake_vec(words[i], FAKE_DIM);
        double norm = 0;
        for (int k = 0; k < FAKE_DIM; k++) norm += pow(json_real_value(json_array_get(v, k)), 2);
        for (int k = 0; k < FAKE_DIM; k++)
            if (fabs(out[i * FAKE_DIM + k] - json_real_value(json_array_get(v, k)) / sqrt(norm)) > 1e-5)
                FAIL("text %d dim %d: not its vector", i, k);
        json_decref(v);
    }
    fake_reset();
    ASSERT_EQ_INT(run(&c, MG_EMBED_QUERY, 1, out, &err), 0);
    json_t *b = body_json(0);
    ASSERT_EQ_STR(input_at(b, 0), "search_query: alpha");
    json_decref(b);
    /* another model: the text as it is */
    fake_reset();
    snprintf(c.ollama_model, sizeof(c.ollama_model), "mxbai-embed-large");
    ASSERT_EQ_INT(run(&c, MG_EMBED_QUERY, 1, out, &err), 0);
    b = body_json(0);
    ASSERT_EQ_STR(input_at(b, 0), "alpha");
    ASSERT_EQ_STR(json_string_value(json_object_get(b, "model")), "mxbai-embed-large");
    json_decref(b);
}

TEST(ollama_embedder_errors)
{
    fake_start();
    error_cases(cfg_ollama, "ollama");
    /* a model Ollama has not pulled: say how to get it */
    struct mg_config c;
    float out[FAKE_DIM];
    struct mg_err err = {0};
    cfg_ollama(&c, "nomodel");
    ASSERT_EQ_INT(run(&c, MG_EMBED_DOCUMENT, 1, out, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_EMBED_REJECTED);
    ASSERT_CONTAINS(err.msg, "HTTP 404");
    ASSERT_CONTAINS(err.msg, "ollama pull nomic-embed-text");
    /* Ollama's /v1 is the openai embedder's */
    struct mg_embedder *e;
    snprintf(c.ollama_url, sizeof(c.ollama_url), "http://127.0.0.1:11434/v1/");
    ASSERT_EQ_INT(mg_embedder_open(&c, &e, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_CONFIG);
    ASSERT_CONTAINS(err.msg, "embedder = openai");
}

TEST(embed_ext_parsers)
{
    int dim = 0;
    float *v;
    struct mg_err err = {0};
    const char *ok = "{\"model\":\"m\",\"embeddings\":[[0,1],[2,3]]}";
    ASSERT_EQ_INT(mg_embed_parse_ollama(ok, strlen(ok), 2, &dim, &v, &err), 0);
    ASSERT_EQ_INT(dim, 2);
    ASSERT(v[0] == 0 && v[1] == 1 && v[2] == 2 && v[3] == 3);
    free(v);
    static const char *bad[] = {
        "", "[]", "{\"embeddings\":{}}", "{\"embeddings\":[[1,2]]}", "{\"embeddings\":[[1,2],[1]]}",
        "{\"embeddings\":[[1,\"x\"],[1,2]]}", "{\"embeddings\":[[],[]]}", "{\"embeddings\":[[1e999,2],[1,2]]}",
        "{\"embeddings\":[[1,2],{}]}", "{\"embeddings\":[[1,2],[1,2]],\"embeddings\":[]}", "{\"error\":\"x\"}",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        dim = 0;
        if (mg_embed_parse_ollama(bad[i], strlen(bad[i]), 2, &dim, &v, &err) == 0) FAIL("accepted %s", bad[i]);
        ASSERT_EQ_STR(err.code, MG_E_EMBED_BAD_RESPONSE);
    }
    dim = 3; /* the dimensions must stay what the first answer said */
    ASSERT_EQ_INT(mg_embed_parse_ollama(ok, strlen(ok), 2, &dim, &v, &err), -1);

    /* the endpoint's own text, from each API's error shape; the key masked */
    char t[256];
    const char *v1 = "{\"detail\":\"Provided API key is invalid: " VKEY "\"}";
    mg_http_endpoint_message(v1, strlen(v1), VKEY, t, sizeof(t));
    ASSERT_CONTAINS(t, ": Provided API key is invalid: ***");
    ASSERT_NOT_CONTAINS(t, "sekrit");
    mg_http_endpoint_message("{\"error\":\"model not found\"}", 27, "", t, sizeof(t));
    ASSERT_EQ_STR(t, ": model not found");
    const char *o1 = "{\"error\":{\"message\":\"quota\"}}";
    mg_http_endpoint_message(o1, strlen(o1), "", t, sizeof(t));
    ASSERT_EQ_STR(t, ": quota");
    mg_http_endpoint_message("<html>", 6, "", t, sizeof(t));
    ASSERT_EQ_STR(t, "");
}

/* auto: from the configuration, in the documented order, no network asked */
TEST(embedder_auto_picks_from_config)
{
    struct {
        const char *url, *key, *vkey, *ourl, *want;
    } cases[] = {
        {"", "", "", "", "model"},
        {"", "", "", "http://127.0.0.1:9/", "ollama"},
        {"", "", "vk-123456", "http://127.0.0.1:9/", "voyage"},
        {"", "ok-1234", "vk-123456", "http://127.0.0.1:9/", "openai"},
        {"http://127.0.0.1:9/v1", "", "vk-123456", "", "openai"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct mg_config c;
        mg_t_config_defaults(&c);
        ASSERT_EQ_STR(c.embedder, "auto");
        snprintf(c.embed_url, sizeof(c.embed_url), "%s", cases[i].url);
        snprintf(c.embed_api_key, sizeof(c.embed_api_key), "%s", cases[i].key);
        snprintf(c.voyage_api_key, sizeof(c.voyage_api_key), "%s", cases[i].vkey);
        snprintf(c.ollama_url, sizeof(c.ollama_url), "%s", cases[i].ourl);
        struct mg_embedder *e;
        struct mg_err err = {0};
        ASSERT_EQ_INT(mg_embedder_open(&c, &e, &err), 0);
        if (strcmp(e->name, cases[i].want) != 0) FAIL("case %zu: auto picked %s, expected %s", i, e->name, cases[i].want);
        char sig[700];
        mg_embedder_sig(e, sig, sizeof(sig));
        if (strcmp(cases[i].want, "voyage") == 0)
            ASSERT_EQ_STR(sig, "voyage:voyage-code-3@https://api.voyageai.com/v1/embeddings");
        if (strcmp(cases[i].want, "ollama") == 0) ASSERT_EQ_STR(sig, "ollama:nomic-embed-text@http://127.0.0.1:9/api/embed");
        if (strcmp(cases[i].want, "model") == 0) ASSERT(strncmp(sig, "model:", 6) == 0 && !strchr(sig, '@'));
        ASSERT_EQ_INT(e->dim, strcmp(cases[i].want, "model") == 0 ? e->dim : 0); /* nothing asked yet */
        mg_embedder_free(&e);
    }
    /* the keys by their MEMGATE_ names */
    struct mg_config c;
    struct mg_err err = {0};
    mg_t_config_defaults(&c);
    ASSERT_EQ_INT(mg_config_set(&c, "voyage_api_key", "vk-abcdef", "test", &err), 0);
    ASSERT_EQ_INT(mg_config_set(&c, "voyage_dimensions", "512", "test", &err), 0);
    ASSERT_EQ_INT(mg_config_set(&c, "voyage_dimensions", "9000", "test", &err), -1);
    ASSERT_EQ_INT(mg_config_set(&c, "embedder", "voyage", "test", &err), 0);
    ASSERT_EQ_INT(mg_config_set(&c, "ollama_model", "all-minilm", "test", &err), 0);
    ASSERT_EQ_INT(mg_config_set(&c, "embedder", "bogus", "test", &err), 0);
    struct mg_embedder *e;
    ASSERT_EQ_INT(mg_embedder_open(&c, &e, &err), -1);
    ASSERT_CONTAINS(err.msg, "voyage, ollama");
}

/* A tiny repo whose files' words tell them apart. */
static void corpus(const char *repo)
{
    mg_t_write_str(repo, "alpha/pool.c",
                   "/* Grow the buffer pool when every buffer is in use. */\n"
                   "int pool_grow(struct pool *p)\n{\n    return pool_alloc_buffers(p, p->count * 2);\n}\n");
    mg_t_write_str(repo, "beta/queue.c",
                   "/* Drain the request queue of a block device. */\n"
                   "int queue_drain(struct queue *q)\n{\n    return queue_run(q);\n}\n");
    mg_t_write_str(repo, "gamma/net.c",
                   "/* Send a packet on the network device. */\n"
                   "int net_xmit(struct sk_buff *skb)\n{\n    return dev_queue_xmit(skb);\n}\n");
}

/* Index and search semantically through the fake with the embedder named; the env says how. */
static void semantic_end_to_end(const char *name, const char *sig_prefix)
{
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir();
    corpus(repo);
    fake_reset();
    struct mg_t_out o = MG_RUN(NULL, home, "index", repo, "--name", "ext", "--json");
    ASSERT_EQ_INT(o.status, 0);
    ASSERT_NOT_CONTAINS(o.err, "sekrit");
    ASSERT_NOT_CONTAINS(o.out, "sekrit");
    json_t *ix = mg_t_json(o.out);
    ASSERT_EQ_INT(mg_fx_int(ix, "vectors.chunks"), 3);
    ASSERT_EQ_INT(mg_fx_int(ix, "vectors.pending"), 0);
    const char *sig = json_string_value(json_object_get(json_object_get(ix, "vectors"), "embedder"));
    ASSERT(sig && strncmp(sig, sig_prefix, strlen(sig_prefix)) == 0);
    json_decref(ix);
    mg_t_out_free(&o);
    /* every request of the index run embedded documents */
    int nindex = fk.requests;
    ASSERT(nindex >= 1);
    for (int r = 0; r < nindex; r++) {
        json_t *b = body_json(r);
        if (strcmp(name, "voyage") == 0) ASSERT_EQ_STR(json_string_value(json_object_get(b, "input_type")), "document");
        else ASSERT(strncmp(input_at(b, 0), "search_document: ", 17) == 0);
        json_decref(b);
    }
    json_t *j = mg_fx_search(repo, home, "grow the buffer pool", "semantic", 1);
    ASSERT_EQ_STR(json_string_value(json_object_get(j, "mode")), "semantic");
    ASSERT(mg_fx_has_hit(j, "alpha/pool.c", NULL));
    json_decref(j);
    j = mg_fx_search(repo, home, "send a packet on the network", "semantic", 1);
    ASSERT(mg_fx_has_hit(j, "gamma/net.c", NULL));
    json_decref(j);
    /* the searches embedded queries */
    ASSERT(fk.requests >= nindex + 2);
    for (int r = nindex; r < fk.requests; r++) {
        json_t *b = body_json(r);
        if (strcmp(name, "voyage") == 0) ASSERT_EQ_STR(json_string_value(json_object_get(b, "input_type")), "query");
        else ASSERT(strncmp(input_at(b, 0), "search_query: ", 14) == 0);
        json_decref(b);
    }
    ASSERT_EQ_INT(fk.auth_bad, 0);
}

TEST(voyage_semantic_search_end_to_end)
{
    fake_start();
    char url[128];
    snprintf(url, sizeof(url), "http://127.0.0.1:%d/ok/v1", fk.port);
    unsetenv("MEMGATE_EMBEDDER"); /* auto, with a Voyage key: voyage */
    setenv("MEMGATE_VOYAGE_URL", url, 1);
    setenv("MEMGATE_VOYAGE_API_KEY", VKEY, 1);
    char want[160];
    snprintf(want, sizeof(want), "voyage:voyage-code-3@http://127.0.0.1:%d/ok/v1/embeddings", fk.port);
    semantic_end_to_end("voyage", want);

    /* Voyage down at search time: hybrid answers by words and says so; semantic fails with the code */
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir();
    corpus(repo);
    json_decref(mg_fx_run_json(NULL, home, (const char *const[]){"index", repo, "--name", "deg", "--json", NULL}));
    MHD_stop_daemon(fk.d); /* the port closed */
    setenv("MEMGATE_EMBED_RETRIES", "0", 1);
    struct mg_t_out o = MG_RUN(repo, home, "search", "grow the buffer pool", "--mode", "hybrid", "--json");
    ASSERT_EQ_INT(o.status, 0);
    ASSERT_CONTAINS(o.err, "embed_unavailable");
    ASSERT_CONTAINS(o.err, "answered by words");
    ASSERT_NOT_CONTAINS(o.err, "sekrit");
    json_t *j = mg_t_json(o.out);
    ASSERT_EQ_STR(json_string_value(json_object_get(j, "mode")), "lexical");
    ASSERT_EQ_STR(json_string_value(json_object_get(json_object_get(j, "semantic"), "state")), "unavailable");
    ASSERT_EQ_STR(json_string_value(json_object_get(json_object_get(j, "semantic"), "error")), "embed_unavailable");
    ASSERT_EQ_STR(json_string_value(json_object_get(json_object_get(j, "semantic"), "source")), "embedder");
    ASSERT(mg_fx_has_hit(j, "alpha/pool.c", NULL));
    json_decref(j);
    mg_t_out_free(&o);
    o = MG_RUN(repo, home, "search", "grow the buffer pool", "--mode", "semantic");
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.err, "embed_unavailable");
    ASSERT_NOT_CONTAINS(o.err, "sekrit");
    mg_t_out_free(&o);
    unsetenv("MEMGATE_EMBED_RETRIES");
    unsetenv("MEMGATE_VOYAGE_URL");
    unsetenv("MEMGATE_VOYAGE_API_KEY");
}

TEST(ollama_semantic_search_end_to_end)
{
    fake_start();
    char url[128];
    snprintf(url, sizeof(url), "http://127.0.0.1:%d/ok", fk.port);
    setenv("MEMGATE_EMBEDDER", "ollama", 1);
    setenv("MEMGATE_OLLAMA_URL", url, 1);
    char want[160];
    snprintf(want, sizeof(want), "ollama:nomic-embed-text@http://127.0.0.1:%d/ok/api/embed", fk.port);
    semantic_end_to_end("ollama", want);
    unsetenv("MEMGATE_EMBEDDER");
    unsetenv("MEMGATE_OLLAMA_URL");
}

/* memgate status names the embedder the settings choose (auto's pick), never a key */
TEST(status_shows_the_chosen_embedder)
{
    char *home = mg_t_tmpdir();
    unsetenv("MEMGATE_EMBEDDER");
    setenv("MEMGATE_VOYAGE_API_KEY", VKEY, 1);
    struct mg_t_out o = MG_RUN(NULL, home, "status", "--json");
    ASSERT_EQ_INT(o.status, 0);
    json_t *j = mg_t_json(o.out);
    ASSERT_EQ_STR(json_string_value(json_object_get(j, "embedder")),
                  "voyage:voyage-code-3@https://api.voyageai.com/v1/embeddings");
    json_decref(j);
    ASSERT_NOT_CONTAINS(o.out, "sekrit");
    mg_t_out_free(&o);
    unsetenv("MEMGATE_VOYAGE_API_KEY");
    setenv("MEMGATE_OLLAMA_URL", "http://127.0.0.1:1/", 1);
    o = MG_RUN(NULL, home, "status");
    ASSERT_CONTAINS(o.out, "embedder:       ollama:nomic-embed-text@http://127.0.0.1:1/api/embed\n");
    mg_t_out_free(&o);
    setenv("MEMGATE_EMBEDDER", "voyage", 1); /* without a key: status still works and says why */
    o = MG_RUN(NULL, home, "status");
    ASSERT_EQ_INT(o.status, 0);
    ASSERT_CONTAINS(o.out, "embedder:       error[invalid_config]: embedder = voyage needs an API key");
    mg_t_out_free(&o);
    unsetenv("MEMGATE_EMBEDDER");
    unsetenv("MEMGATE_OLLAMA_URL");
}
