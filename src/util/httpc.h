/* httpc.h — one HTTP request with a JSON body, for external providers
 * (libcurl, loaded lazily by util/dynlib.c).
 *
 * mg_httpc_call sends method url [body] with the given header lines, waits
 * at most timeout_s seconds in all (connecting at most min(timeout_s, 10)),
 * and keeps at most max_body bytes of the answer: a longer answer is cut
 * off and reported as a failure ("answer over N bytes"), never half-read.
 * Only http:// and https:// URLs are followed; redirects are not.
 *
 * Returns 0 when an answer came (any HTTP status: *status holds it, body
 * the bytes), or -1 when none did (cannot connect, timed out, too large,
 * cut off): why receives a short sentence (lower case, no secret: header
 * values are never quoted). body is reset first; the caller releases it.
 * Thread-safe: each call has its own handle.
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
};

int mg_httpc_call(const struct mg_httpc_req *q, long *status, struct mg_buf *body, char *why, size_t whycap);

#endif
