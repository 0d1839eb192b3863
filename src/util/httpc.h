/* httpc.h — POST a JSON body to an HTTP(S) endpoint, with timeouts,
 * retries and a bearer token that never shows up in a message.
 *
 * The one HTTP client memgate's outbound calls share (the `openai`
 * embedder, the chat endpoint of knowledge extraction). One call:
 *
 *   - sends `payload` with Content-Type: application/json, and
 *     "Authorization: Bearer KEY" when a key is given;
 *   - gives up on an attempt after timeout_s seconds (connecting: at most
 *     10 s of them), and after the caller's deadline when it has one;
 *   - retries `retries` times, with backoff (0.25 s, 0.5 s, 1 s, ...), when
 *     the endpoint cannot be reached, times out, or answers 429 or 5xx;
 *     other 4xx answers are final;
 *   - reads at most max_response bytes of the answer (more is an error,
 *     never retried);
 *   - only http:// and https:// (no other protocol, no redirects).
 *
 * Errors name the endpoint by `what` and its URL (which must carry no
 * credentials) and the HTTP status, with the endpoint's own error text when
 * it gives one, in which any echo of the key is masked. The codes are the
 * caller's: `unavailable` (unreachable, timed out, 429, 5xx, too large an
 * answer) and `rejected` (another 4xx).
 */
#ifndef MG_HTTPC_H
#define MG_HTTPC_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/err.h"

struct mg_http_post {
    const char *url;            /* http:// or https:// */
    const char *what;           /* "the embeddings endpoint": how messages name it */
    const char *key;            /* bearer token; NULL or "": none */
    const char *payload;        /* the JSON body (NUL-terminated) */
    int timeout_s;              /* per attempt (> 0) */
    int retries;                /* extra attempts after a retryable failure */
    int64_t deadline_ms;        /* CLOCK_MONOTONIC ms after which no attempt starts and none runs on; 0: none */
    size_t max_response;        /* the most bytes of the answer read */
    const char *code_unavailable, *code_rejected; /* MG_E_* codes for the two kinds of failure */
};

/* 0 with the answer's body in *body (the caller initialises it with any max
 * and releases it; its max is replaced by p->max_response) when the endpoint
 * answered HTTP 200; else -1 with err. */
int mg_http_post_json(const struct mg_http_post *p, struct mg_buf *body, struct mg_err *err);

/* The endpoint's own error text in body, if any ({"error": {"message": ...}}
 * or {"error": "..."}), as ": text" into out (cap bytes, cut at 200), with
 * every occurrence of key masked; "" when none. */
void mg_http_endpoint_message(const char *body, size_t len, const char *key, char *out, size_t cap);

#endif
