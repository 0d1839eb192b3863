/* llm.c — see llm.h. */
#include "util/llm.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/httpc.h"
#include "util/metrics.h"
#include "util/utf8.h"

int mg_llm_configured(const struct mg_config *c) { return c->llm_url[0] != 0; }

void mg_llm_url(const struct mg_config *c, char *out, size_t cap)
{
    size_t bl = strlen(c->llm_url);
    while (bl > 0 && c->llm_url[bl - 1] == '/') bl--;
    const char *tail = "/chat/completions";
    if (bl >= 17 && strncmp(c->llm_url + bl - 17, "/chat/completions", 17) == 0) tail = "";
    snprintf(out, cap, "%.*s%s", (int)bl, c->llm_url, tail);
}

int mg_llm_parse_chat(const char *body, size_t len, char **text, struct mg_err *err)
{
    *text = NULL;
    json_error_t je;
    json_t *root = json_loadb(body, len, JSON_REJECT_DUPLICATES, &je);
    if (!root) return mg_err_set(err, MG_E_LLM_BAD_RESPONSE, "the answer is not JSON (%s at byte %d)", je.text,
                                 je.position);
    json_t *choices = json_object_get(root, "choices");
    json_t *msg = json_object_get(json_array_get(choices, 0), "message");
    json_t *content = json_object_get(msg, "content");
    struct mg_buf out;
    mg_buf_init(&out, MG_LLM_MAX_COMPLETION);
    int rc = -1;
    if (!json_is_array(choices) || json_array_size(choices) == 0 || !json_is_object(msg)) {
        mg_err_set(err, MG_E_LLM_BAD_RESPONSE, "the answer has no choices[0].message");
    } else if (json_is_string(content)) {
        if (json_string_length(content) > MG_LLM_MAX_COMPLETION)
            mg_err_set(err, MG_E_LLM_BAD_RESPONSE, "the completion is over %u bytes", MG_LLM_MAX_COMPLETION);
        else if (mg_buf_add(&out, json_string_value(content), json_string_length(content)) == 0)
            rc = 0;
        else
            mg_err_oom(err);
    } else if (json_is_array(content)) { /* [{"type": "text", "text": ...}, ...] */
        size_t i;
        json_t *part;
        rc = 0;
        json_array_foreach(content, i, part)
        {
            json_t *t = json_object_get(part, "text");
            if (!json_is_string(t)) continue;
            if (mg_buf_add(&out, json_string_value(t), json_string_length(t)) != 0) {
                mg_err_set(err, MG_E_LLM_BAD_RESPONSE, "the completion is over %u bytes", MG_LLM_MAX_COMPLETION);
                rc = -1;
                break;
            }
        }
    } else {
        mg_err_set(err, MG_E_LLM_BAD_RESPONSE, "choices[0].message.content is neither text nor a list of parts");
    }
    json_decref(root);
    if (rc == 0 && out.len == 0) rc = mg_err_set(err, MG_E_LLM_BAD_RESPONSE, "the completion is empty");
    if (rc == 0 && memchr(out.p, 0, out.len)) rc = mg_err_set(err, MG_E_LLM_BAD_RESPONSE, "the completion holds a NUL");
    if (rc != 0) {
        mg_buf_release(&out);
        return -1;
    }
    *text = mg_buf_detach(&out, NULL);
    return 0;
}

int mg_llm_chat(const struct mg_config *c, const char *system, const char *user, int max_tokens, int64_t deadline_ms,
                char **text, struct mg_err *err)
{
    *text = NULL;
    char url[sizeof(c->llm_url) + 32];
    mg_llm_url(c, url, sizeof(url));
    json_t *req = json_pack("{s:[{s:s, s:s}, {s:s, s:s}], s:i, s:i}", "messages", "role", "system", "content",
                            system, "role", "user", "content", user, "temperature", 0, "max_tokens", max_tokens);
    if (req && c->llm_model[0]) json_object_set_new(req, "model", json_string(c->llm_model));
    char *payload = req ? json_dumps(req, JSON_COMPACT) : NULL;
    json_decref(req);
    if (!payload) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory (or the prompt is not UTF-8)");
    struct mg_http_post post = {
        .url = url,
        .what = "the chat endpoint (llm_url)",
        .key = c->llm_api_key,
        .payload = payload,
        .timeout_s = c->llm_timeout > 0 ? c->llm_timeout : 60,
        .retries = c->llm_retries,
        .deadline_ms = deadline_ms,
        .max_response = MG_LLM_MAX_RESPONSE,
        .code_unavailable = MG_E_LLM_UNAVAILABLE,
        .code_rejected = MG_E_LLM_REJECTED,
    };
    struct mg_buf body;
    mg_buf_init(&body, MG_LLM_MAX_RESPONSE);
    int rc = mg_http_post_json(&post, &body, err);
    free(payload);
    if (rc == 0) {
        struct mg_err pe = {0};
        rc = mg_llm_parse_chat(body.p ? body.p : "", body.len, text, &pe);
        if (rc != 0) mg_err_set(err, pe.code, "the chat endpoint '%s' gave a bad answer: %s", url, pe.msg);
    }
    mg_buf_release(&body);
    if (rc != 0) mg_metrics_provider_error("llm");
    return rc;
}
