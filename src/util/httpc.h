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
 * the bytes), or when none did: MG_HTTPC_NO_ANSWER (cannot connect, timed
 * out, cut off: worth another try), MG_HTTPC_TOO_LARGE (over max_body),
 * MG_HTTPC_BAD_URL (not http(s), malformed: no use trying again); why
 * receives a short sentence (lower case, no secret: header values are never
 * quoted). body is reset first; the caller releases it. What the answer's
 * headers said goes to the optional outputs of the request. Thread-safe:
 * each call has its own handle.
 */
#ifndef MG_HTTPC_H
#define MG_HTTPC_H

#include <stddef.h>

#include "util/buf.h"

struct mg_httpc_req {
    const char *method;             /* "GET", "POST", "DELETE" */
    const char *url;
    const char *const *headers;     /* "Name: value" lines (borrowed) */
    size_t nheaders;
    const char *body;               /* NULL: none; sent as given (Content-Type: application/json) */
    long timeout_s;                 /* > 0 */
    size_t max_body;                /* the cap on the answer's bytes */
    const char *accept;             /* the Accept header (NULL: application/json) */
    /* optional outputs (NULL: not wanted) */
    long *retry_after_s;            /* the answer's Retry-After in seconds (0: none) */
    char *content_type;             /* the answer's Content-Type ("" when none), cut to content_type_cap */
    size_t content_type_cap;
    const char *capture;            /* one more header of the answer to keep (e.g. "Mcp-Session-Id") ... */
    char *captured;                 /* ... its value ("" when absent), cut to captured_cap */
    size_t captured_cap;
};

#define MG_HTTPC_NO_ANSWER (-1)
#define MG_HTTPC_TOO_LARGE (-2)
#define MG_HTTPC_BAD_URL (-3)

int mg_httpc_call(const struct mg_httpc_req *q, long *status, struct mg_buf *body, char *why, size_t whycap);

#endif
