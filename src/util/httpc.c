/* httpc.c — see httpc.h. */
#include "util/httpc.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static void init_once(void) { curl_global_init(CURL_GLOBAL_DEFAULT); }

struct sink {
    struct mg_buf *b;
    size_t max;
    int over;
};

static size_t on_body(char *p, size_t sz, size_t nm, void *ud)
{
    struct sink *s = ud;
    size_t n = sz * nm;
    if (s->b->len + n > s->max) {
        s->over = 1;
        return 0; /* curl stops with CURLE_WRITE_ERROR */
    }
    return mg_buf_add(s->b, p, n) == 0 ? n : 0;
}

struct hsink {
    const struct mg_httpc_req *q;
};

/* One header line of the answer: keep the one asked for. */
static size_t on_header(char *p, size_t sz, size_t nm, void *ud)
{
    const struct mg_httpc_req *q = ((struct hsink *)ud)->q;
    size_t n = sz * nm, k = strlen(q->capture);
    if (n > k + 1 && strncasecmp(p, q->capture, k) == 0 && p[k] == ':') {
        size_t i = k + 1, e = n;
        while (i < e && (p[i] == ' ' || p[i] == '\t')) i++;
        while (e > i && (p[e - 1] == '\r' || p[e - 1] == '\n' || p[e - 1] == ' ')) e--;
        size_t m = e - i < q->captured_cap - 1 ? e - i : q->captured_cap - 1;
        memcpy(q->captured, p + i, m);
        q->captured[m] = 0;
    }
    return n;
}

int mg_httpc_call(const struct mg_httpc_req *q, long *status, struct mg_buf *body, char *why, size_t whycap)
{
    *status = 0;
    why[0] = 0;
    mg_buf_reset(body);
    pthread_once(&once, init_once);
    CURL *h = curl_easy_init();
    if (!h) {
        snprintf(why, whycap, "out of memory (or libcurl missing)");
        return -1;
    }
    struct curl_slist *hdr = NULL, *t;
    if (q->body && !(hdr = curl_slist_append(hdr, "Content-Type: application/json"))) goto nomem;
    char accept[256];
    snprintf(accept, sizeof(accept), "Accept: %s", q->accept ? q->accept : "application/json");
    if ((t = curl_slist_append(hdr, accept))) hdr = t;
    else goto nomem;
    for (size_t i = 0; i < q->nheaders; i++) {
        if (!(t = curl_slist_append(hdr, q->headers[i]))) goto nomem;
        hdr = t;
    }
    struct sink s = {body, q->max_body, 0};
    char cerr[CURL_ERROR_SIZE] = "";
    long timeout = q->timeout_s > 0 ? q->timeout_s : 30;
    curl_easy_setopt(h, CURLOPT_URL, q->url);
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, q->method);
    if (q->body) curl_easy_setopt(h, CURLOPT_POSTFIELDS, q->body);
    else if (strcmp(q->method, "GET") == 0) curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &s);
    curl_easy_setopt(h, CURLOPT_TIMEOUT, timeout);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, timeout < 10 ? timeout : 10L);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, cerr);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(h, CURLOPT_USERAGENT, "memgate");
    curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
    struct hsink hs = {q};
    if (q->capture && q->captured && q->captured_cap) {
        q->captured[0] = 0;
        curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
        curl_easy_setopt(h, CURLOPT_HEADERDATA, &hs);
    }
    CURLcode cc = curl_easy_perform(h);
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
    if (q->retry_after_s) {
        curl_off_t ra = 0;
        *q->retry_after_s = curl_easy_getinfo(h, CURLINFO_RETRY_AFTER, &ra) == CURLE_OK && ra > 0 ? (long)ra : 0;
    }
    if (q->content_type && q->content_type_cap) {
        char *ct = NULL;
        q->content_type[0] = 0;
        if (curl_easy_getinfo(h, CURLINFO_CONTENT_TYPE, &ct) == CURLE_OK && ct)
            snprintf(q->content_type, q->content_type_cap, "%s", ct);
    }
    curl_easy_cleanup(h);
    curl_slist_free_all(hdr);
    if (s.over) {
        snprintf(why, whycap, "the answer is over %zu bytes", q->max_body);
        return MG_HTTPC_TOO_LARGE;
    }
    if (cc != CURLE_OK) {
        snprintf(why, whycap, "%s", cerr[0] ? cerr : curl_easy_strerror(cc));
        return cc == CURLE_UNSUPPORTED_PROTOCOL || cc == CURLE_URL_MALFORMAT ? MG_HTTPC_BAD_URL : MG_HTTPC_NO_ANSWER;
    }
    return 0;
nomem:
    curl_slist_free_all(hdr);
    curl_easy_cleanup(h);
    snprintf(why, whycap, "out of memory");
    return -1;
}
