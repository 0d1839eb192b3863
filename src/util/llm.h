/* llm.h — a completion from an OpenAI-compatible chat endpoint (knowledge
 * extraction, docs/providers.md#knowledge-extraction).
 *
 *   llm_url      base URL: POST {llm_url}/chat/completions (a URL ending in
 *                /chat/completions is used as it is); OpenAI
 *                (https://api.openai.com/v1), Ollama
 *                (http://localhost:11434/v1), llama.cpp's server, vLLM, ...
 *   llm_model    the model name sent
 *   llm_api_key  bearer token; never printed, logged or audited
 *   llm_timeout  seconds per attempt; llm_retries: retries with backoff
 *
 * The request is {"model", "messages": [system, user], "temperature": 0,
 * "max_tokens"}; the answer's choices[0].message.content (a string, or an
 * array of {"type":"text","text"} parts) is the completion. The HTTP side is
 * util/httpc.h. Every failure calls mg_metrics_provider_error("llm").
 */
#ifndef MG_LLM_H
#define MG_LLM_H

#include <stddef.h>
#include <stdint.h>

#include "util/config.h"
#include "util/err.h"

#define MG_LLM_MAX_RESPONSE (1u << 20)  /* the most bytes of an endpoint's answer read */
#define MG_LLM_MAX_COMPLETION (64u << 10) /* the longest completion accepted */

/* Is a chat endpoint configured (llm_url set)? */
int mg_llm_configured(const struct mg_config *c);

/* The endpoint URL for c (no credentials) into out. */
void mg_llm_url(const struct mg_config *c, char *out, size_t cap);

/* Ask the endpoint: 0 with *text (malloc'd, valid UTF-8, at most
 * MG_LLM_MAX_COMPLETION bytes), or -1 with err: llm_unavailable (cannot be
 * reached, timed out, 429/5xx), llm_rejected (another 4xx: the key, the
 * model), llm_bad_response (not a chat completion). deadline_ms: the
 * caller's (CLOCK_MONOTONIC ms, as util/clock.h's mg_clock_ms), 0: none. */
int mg_llm_chat(const struct mg_config *c, const char *system, const char *user, int max_tokens, int64_t deadline_ms,
                char **text, struct mg_err *err);

/* The completion text of a chat endpoint's answer body (exposed for tests
 * and fuzzing): 0 with *text (malloc'd), or -1 with llm_bad_response. */
int mg_llm_parse_chat(const char *body, size_t len, char **text, struct mg_err *err);

#endif
