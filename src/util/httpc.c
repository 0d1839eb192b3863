/* httpc.c — see httpc.h.
 *
 * Sections:
 *   1. answers: body and headers
 *   2. public addresses only (SSRF)
 *   3. one request
 *   4. a JSON request with retries
 */
#include "util/httpc.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "util/clock.h"
#include "util/utf8.h"
#include "util/version.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static void init_once(void) { curl_global_init(CURL_GLOBAL_DEFAULT); }

/* ---- 1. answers: body and headers ---------------------------------------------------- */

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

/* ---- 2. public addresses only (SSRF) -------------------------------------------------- */

/* The class of IPv4 address a (host order) that is not public, or NULL. */
static const char *v4_class(uint32_t a)
{
    static const struct { uint32_t net, mask; const char *what; } c[] = {
        {0x00000000, 0xff000000, "unspecified or reserved (0.0.0.0/8)"},
        {0x0a000000, 0xff000000, "private"},
        {0x64400000, 0xffc00000, "shared (carrier-grade NAT)"},
        {0x7f000000, 0xff000000, "loopback"},
        {0xa9fe0000, 0xffff0000, "link-local"},
        {0xac100000, 0xfff00000, "private"},
        {0xc0000000, 0xffffff00, "reserved (192.0.0.0/24)"},
        {0xc0000200, 0xffffff00, "documentation"},
        {0xc0a80000, 0xffff0000, "private"},
        {0xc6120000, 0xfffe0000, "benchmarking"},
        {0xc6336400, 0xffffff00, "documentation"},
        {0xcb007100, 0xffffff00, "documentation"},
        {0xe0000000, 0xf0000000, "multicast"},
        {0xf0000000, 0xf0000000, "reserved or broadcast"},
    };
    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
        if ((a & c[i].mask) == c[i].net) return c[i].what;
    return NULL;
}

bool mg_addr_public(const struct sockaddr *sa, const char **what)
{
    const char *w = "not IPv4 nor IPv6";
    if (sa && sa->sa_family == AF_INET) {
        w = v4_class(ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr));
    } else if (sa && sa->sa_family == AF_INET6) {
        const unsigned char *b = ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr;
        static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
        static const unsigned char nat64[12] = {0, 0x64, 0xff, 0x9b};
        static const unsigned char zero[15] = {0};
        w = NULL;
        uint32_t v4 = 0;
        bool inner = false;
        if (memcmp(b, mapped, 12) == 0 || memcmp(b, nat64, 12) == 0) inner = true, memcpy(&v4, b + 12, 4);
        else if (b[0] == 0x20 && b[1] == 0x02) inner = true, memcpy(&v4, b + 2, 4);
        if (inner) w = v4_class(ntohl(v4));
        else if (memcmp(b, zero, 15) == 0) w = b[15] == 1 ? "loopback" : "unspecified";
        else if ((b[0] & 0xfe) == 0xfc) w = "private (unique local)";
        else if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) w = "link-local";
        else if (b[0] == 0xfe && (b[1] & 0xc0) == 0xc0) w = "site-local";
        else if (b[0] == 0xff) w = "multicast";
        else if (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8) w = "documentation";
        else if (b[0] == 0x01 && b[1] == 0 && memcmp(b + 2, zero, 6) == 0) w = "discard-only (100::/64)";
    }
    if (what) *what = w ? w : "public";
    return w == NULL;
}

struct osink {
    bool refused;
    char addr[INET6_ADDRSTRLEN];
    const char *what;
};

/* public_only: the address libcurl is about to connect to (after its one
 * resolution) must be public. */
static curl_socket_t on_open(void *ud, curlsocktype purpose, struct curl_sockaddr *a)
{
    struct osink *o = ud;
    if (purpose == CURLSOCKTYPE_IPCXN && !mg_addr_public(&a->addr, &o->what)) {
        o->refused = true;
        if (getnameinfo(&a->addr, a->addrlen, o->addr, sizeof(o->addr), NULL, 0, NI_NUMERICHOST) != 0) o->addr[0] = 0;
        return CURL_SOCKET_BAD;
    }
    return socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
}

/* ---- 3. one request ---------------------------------------------------------------------- */

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
    /* no "Expect: 100-continue" before a large body: servers that never
     * answer it (Chroma) would cost a second's wait per request */
    if ((t = curl_slist_append(hdr, "Expect:"))) hdr = t;
    else goto nomem;
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
    long timeout_ms = q->timeout_ms > 0 ? q->timeout_ms : timeout * 1000;
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms < 10000 ? timeout_ms : 10000L);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, cerr);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(h, CURLOPT_USERAGENT, "memgate/" MG_VERSION);
    curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
    struct osink os = {0};
    if (q->public_only) {
        curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, on_open);
        curl_easy_setopt(h, CURLOPT_OPENSOCKETDATA, &os);
        curl_easy_setopt(h, CURLOPT_PROXY, ""); /* the check is on the address connected to: no proxy between */
    }
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
    if (cc != CURLE_OK && os.refused) { /* (a name with a public address too is reached there) */
        snprintf(why, whycap, "refused to connect to %s: a %s address, not a public one (SSRF protection)",
                 os.addr[0] ? os.addr : "the address", os.what);
        return MG_HTTPC_PRIVATE;
    }
    if (cc != CURLE_OK) {
        snprintf(why, whycap, "%s", cerr[0] ? cerr : curl_easy_strerror(cc));
        if (cc == CURLE_OPERATION_TIMEDOUT) return MG_HTTPC_TIMEOUT;
        return cc == CURLE_UNSUPPORTED_PROTOCOL || cc == CURLE_URL_MALFORMAT ? MG_HTTPC_BAD_URL : MG_HTTPC_NO_ANSWER;
    }
    return 0;
nomem:
    curl_slist_free_all(hdr);
    curl_easy_cleanup(h);
    snprintf(why, whycap, "out of memory");
    return -1;
}

/* ---- 4. a JSON request with retries -------------------------------------------------------- */

void mg_http_endpoint_message(const char *body, size_t len, const char *key, char *out, size_t cap)
{
    out[0] = 0;
    if (cap < 8) return;
    json_t *root = json_loadb(body, len, 0, NULL);
    json_t *e = json_object_get(root, "error");
    const char *m = json_string_value(json_object_get(e, "message"));
    if (!m) m = json_string_value(json_object_get(root, "message"));
    if (!m) m = json_string_value(e);
    if (!m) m = json_string_value(json_object_get(root, "detail"));
    if (!m) m = json_string_value(json_object_get(json_object_get(root, "status"), "error"));
    if (m) snprintf(out, cap, ": %s", m);
    json_decref(root);
    /* never repeat the key, even if the endpoint echoes it */
    size_t kl = key ? strlen(key) : 0;
    char *p;
    while (kl >= 4 && (p = strstr(out, key))) memset(p, '*', kl);
    size_t n = mg_utf8_valid_prefix(out, strlen(out));
    out[n] = 0;
    if (n > 200 && cap > 201) memcpy(out + mg_utf8_cut(out, n, 197), "...", 4);
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

int mg_http_post_json(const struct mg_http_post *p, struct mg_buf *body, struct mg_err *err)
{
    if (strncmp(p->url, "http://", 7) != 0 && strncmp(p->url, "https://", 8) != 0)
        return mg_err_set(err, p->code_rejected, "%s '%s' is not an http:// or https:// URL", p->what, p->url);
    char auth[600] = "";
    const char *hdr[1];
    size_t nh = 0;
    if (p->key && p->key[0]) {
        if (p->key_header) snprintf(auth, sizeof(auth), "%s: %s", p->key_header, p->key);
        else snprintf(auth, sizeof(auth), "Authorization: Bearer %s", p->key);
        hdr[nh++] = auth;
    }
    body->max = p->max_response;
    int rc = -1;
    for (int attempt = 0;; attempt++) {
        long timeout_ms = (long)p->timeout_s * 1000;
        if (p->deadline_ms > 0) {
            long left = (long)(p->deadline_ms - (int64_t)mg_clock_ms());
            if (left <= 0) {
                if (attempt == 0 || !err->code)
                    mg_err_set(err, p->code_unavailable, "%s '%s' was not called: the request ran out of time",
                               p->what, p->url);
                break;
            }
            if (left < timeout_ms) timeout_ms = left;
        }
        long status = 0, retry_after = 0;
        char why[256];
        struct mg_httpc_req q = {.method = p->method ? p->method : "POST", .url = p->url, .headers = hdr, .nheaders = nh,
                                 .body = p->payload, .timeout_s = p->timeout_s, .timeout_ms = timeout_ms,
                                 .max_body = p->max_response, .retry_after_s = &retry_after};
        int cc = mg_httpc_call(&q, &status, body, why, sizeof(why));
        bool retry = false;
        if (cc == MG_HTTPC_TOO_LARGE) {
            mg_err_set(err, p->code_too_large ? p->code_too_large : p->code_unavailable,
                       "%s '%s' answered more than %zu bytes; check that the URL is the right endpoint", p->what,
                       p->url, p->max_response);
        } else if (cc != 0) {
            mg_err_set(err, cc == MG_HTTPC_BAD_URL ? p->code_rejected : p->code_unavailable, "cannot reach %s '%s': %s",
                       p->what, p->url, why);
            retry = cc == MG_HTTPC_NO_ANSWER || cc == MG_HTTPC_TIMEOUT;
        } else if ((status < 200 || status > 299) && status != p->also_ok) {
            char msg[256], hint[160] = "";
            mg_http_endpoint_message(body->p ? body->p : "", body->len, p->key, msg, sizeof(msg));
            retry = status == 429 || status >= 500;
            if (!retry && p->hint) p->hint(p->hint_ud, status, msg, hint, sizeof(hint));
            if (!retry && !hint[0] && p->key_setting && (status == 401 || status == 403))
                snprintf(hint, sizeof(hint), "; %s %s", p->key && p->key[0] ? "check the key in" : "set a key in",
                         p->key_setting);
            mg_err_set(err, retry ? p->code_unavailable : p->code_rejected, "%s '%s' answered HTTP %ld%s%s", p->what,
                       p->url, status, msg, hint);
        } else {
            rc = 0;
            break;
        }
        if (!retry || attempt >= p->retries) break;
        long wait = 250L << (attempt < 6 ? attempt : 6);
        if (retry_after > 0) {
            long ra = retry_after > MG_HTTP_RETRY_AFTER_MAX ? MG_HTTP_RETRY_AFTER_MAX : retry_after;
            if (ra * 1000 > wait) wait = ra * 1000;
        }
        sleep_ms(wait);
    }
    memset(auth, 0, sizeof(auth));
    if (rc != 0) mg_buf_reset(body);
    return rc;
}
