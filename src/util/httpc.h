/* httpc.h — one HTTP request with a JSON body: the one way memgate calls
 * out over HTTP (embedders, Mem0, vector stores, MCP servers, the chat
 * endpoint; libcurl, loaded lazily by util/dynlib.c).
 *
 * mg_httpc_call sends method url [body] with the given header lines, waits
 * at most timeout_s seconds in all (connecting at most min(timeout_s, 10)),
 * and keeps at most max_body bytes of the answer: a longer answer is cut
 * off and reported as a failure ("answer over N bytes"), never half-read.
 * Only http:// and https:// URLs are followed; redirects are not.
 *
 * Returns 0 when an answer came (any HTTP status: *status holds it, body
 * the bytes), or when none did: MG_HTTPC_NO_ANSWER (cannot connect, cut
 * off: worth another try), MG_HTTPC_TIMEOUT (no answer in time: likewise), MG_HTTPC_TOO_LARGE (over max_body),
 * MG_HTTPC_BAD_URL (not http(s), malformed: no use trying again); why
 * receives a short sentence (lower case, no secret: header values are never
 * quoted). body is reset first; the caller releases it. What the answer's
 * headers said goes to the optional outputs of the request. Thread-safe:
 * each call has its own handle.
 */
#ifndef MG_HTTPC_H
#define MG_HTTPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/err.h"

struct mg_httpc_req {
    const char *method;             /* "GET", "POST", "DELETE" */
    const char *url;
    const char *const *headers;     /* "Name: value" lines (borrowed) */
    size_t nheaders;
    const char *body;               /* NULL: none; sent as given (Content-Type: application/json) */
    long timeout_s;                 /* > 0 */
    long timeout_ms;                /* > 0: this instead of timeout_s */
    size_t max_body;                /* the cap on the answer's bytes */
    const char *accept;             /* the Accept header (NULL: application/json) */
    /* optional outputs (NULL: not wanted) */
    long *retry_after_s;            /* the answer's Retry-After in seconds (0: none) */
    char *content_type;             /* the answer's Content-Type ("" when none), cut to content_type_cap */
    size_t content_type_cap;
    const char *capture;            /* one more header of the answer to keep (e.g. "Mcp-Session-Id") ... */
    char *captured;                 /* ... its value ("" when absent), cut to captured_cap */
    size_t captured_cap;
    /* connect to public addresses only (mg_addr_public): checked on each
     * address libcurl is about to connect to, after its one resolution, so a
     * name cannot pass the check with one address and connect to another (no
     * DNS rebinding); no proxy is used. Refused: MG_HTTPC_PRIVATE. For URLs
     * that come from outside (a client's metadata document) or lead to them. */
    bool public_only;
};

#define MG_HTTPC_NO_ANSWER (-1)
#define MG_HTTPC_TOO_LARGE (-2)
#define MG_HTTPC_BAD_URL (-3)
#define MG_HTTPC_TIMEOUT (-4)
#define MG_HTTPC_PRIVATE (-5) /* public_only, and the name is (or resolves to) a non-public address */

int mg_httpc_call(const struct mg_httpc_req *q, long *status, struct mg_buf *body, char *why, size_t whycap);

/* Is sa (AF_INET or AF_INET6) a public unicast address? Not: unspecified,
 * loopback, private (10/8, 172.16/12, 192.168/16, fc00::/7), shared
 * (100.64/10), link-local (169.254/16, fe80::/10), site-local (fec0::/10),
 * documentation, benchmarking, reserved (0/8, 240/4), multicast, broadcast,
 * nor an IPv4 address of those inside IPv6 (mapped ::ffff:0:0/96, NAT64
 * 64:ff9b::/96, 6to4 2002::/16). what (may be NULL) receives the class's
 * name ("loopback", "private", ...). */
struct sockaddr;
bool mg_addr_public(const struct sockaddr *sa, const char **what);

/* ---- a JSON request with retries (the embedders, the chat endpoint, the
 * external vector stores) ----
 *
 * One call sends `payload` (POST unless `method` says otherwise) with
 * "Authorization: Bearer KEY" (or "KEY_HEADER: KEY") when a key is given;
 * gives up on an attempt after timeout_s seconds (connecting: at
 * most 10 s of them) and after the caller's deadline when it has one;
 * retries `retries` times when the endpoint cannot be reached, times out,
 * or answers 429 or 5xx, after 0.25 s, 0.5 s, 1 s, ... or after what its
 * Retry-After asks when that is longer (at most MG_HTTP_RETRY_AFTER_MAX s);
 * a 2xx answer (or also_ok) is success, others are final. Errors name the endpoint by `what` and
 * its URL (which must carry no credentials) and the HTTP status, with the
 * endpoint's own error text, in which any echo of the key is masked. */
#define MG_HTTP_RETRY_AFTER_MAX 60

struct mg_http_post {
    const char *method;         /* NULL: "POST" */
    const char *url;            /* http:// or https:// */
    const char *what;           /* "the embeddings endpoint": how messages name it */
    const char *key;            /* bearer token; NULL or "": none */
    const char *key_header;     /* send the key as "KEY_HEADER: KEY" (e.g. "api-key"); NULL: a bearer token */
    long also_ok;               /* one more status that is a success (e.g. 409 to a create); 0: none */
    const char *key_setting;    /* where the key is set, named on 401 and 403 ("voyage_api_key"); NULL: not named */
    const char *payload;        /* the JSON body (NUL-terminated) */
    int timeout_s;              /* per attempt (> 0) */
    int retries;                /* extra attempts after a retryable failure */
    int64_t deadline_ms;        /* CLOCK_MONOTONIC ms after which no attempt starts and none runs on; 0: none */
    size_t max_response;        /* the most bytes of the answer read */
    /* MG_E_* codes: unreachable, timed out, 429, 5xx; another 4xx or a bad
     * URL; an answer over max_response (NULL: code_unavailable) */
    const char *code_unavailable, *code_rejected, *code_too_large;
    /* what to add to a final error answer's message (after the endpoint's
     * text), e.g. "; run `ollama pull M`"; NULL: nothing */
    void (*hint)(void *ud, long status, const char *text, char *out, size_t cap);
    void *hint_ud;
};

/* 0 with the answer's body in *body (the caller initialises it with any max
 * and releases it; its max is replaced by p->max_response) when the endpoint
 * answered 2xx (or also_ok); else -1 with err (and body empty). */
int mg_http_post_json(const struct mg_http_post *p, struct mg_buf *body, struct mg_err *err);

/* The endpoint's own error text in body, if any ({"error": {"message": ...}},
 * {"message": ...}, {"error": "..."}, {"detail": "..."} or {"status":
 * {"error": ...}}, the first found), as ": text" into out (cap bytes,
 * cut at 200), with every occurrence of key masked; "" when none. */
void mg_http_endpoint_message(const char *body, size_t len, const char *key, char *out, size_t cap);

#endif
