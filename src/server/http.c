/* http.c — `memgate serve` over GNU libmicrohttpd: MCP Streamable HTTP at
 * /mcp, the HTTP API under /v1/, /healthz and /metrics (see http.h and
 * docs/http.md).
 *
 * Sections:
 *   1. the server object, error statuses
 *   2. listen address
 *   3. request headers: Host / Origin (DNS rebinding), Accept, Content-Type
 *   4. per-request state and plain responses
 *   5. SSE streams: a queue of events drained by an MHD content reader
 *   6. /mcp: POST, GET, DELETE
 *   7. /v1: the HTTP API over the tools
 *   8. /healthz, /metrics, dispatch
 *   9. start and stop
 *
 * Threading: MHD runs one thread per connection, so a handler may block (a
 * long tool call, an SSE stream waiting for its next event) without stalling
 * other clients. A POST answered as an SSE stream runs mg_rpc_handle on a
 * worker thread whose messages are queued as SSE events; the connection's
 * thread drains the queue from MHD's content reader, sending a comment every
 * MG_SSE_KEEPALIVE_MS while nothing happens (which also notices a client that
 * went away). Streams are reference counted between the worker and MHD's
 * response; MHD's free callback drops its reference when the client is gone.
 */
#include "server/http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "mcp/rpc.h"
#include "security/audit.h"
#include "security/common.h"
#include "security/token.h"
#include "util/metrics.h"
#include "store/content.h"
#include "util/buf.h"
#include "util/version.h"

#define MG_HTTP_CONN_LIMIT 1024      /* concurrent connections (each a thread) */
#define MG_HTTP_HEADER_MAX (8 << 10)  /* longest header value we read; longer: 431 */
#define MG_HTTP_HEADERS_MAX (64 << 10) /* all headers together; longer: 431 */
#define MG_HTTP_CONN_MEMORY (128 << 10) /* libmicrohttpd's per-connection pool: big enough that oversized
                                         * headers reach our check (and its audit event), not its own 431 */
#define MG_HTTP_IDLE_TIMEOUT_S 60    /* a connection idle this long is closed */
#define MG_SSE_KEEPALIVE_MS 15000    /* a comment on an idle SSE stream this often */
#define MG_SSE_RETRY_MS 3000         /* the `retry:` a 2025-11-25 client gets in the priming event */
#define MG_SSE_QUEUE_MAX (256u << 20) /* bytes of events waiting to be sent on one stream */
#define MG_DISCARD_MAX (64u << 20)   /* an over-cap chunked upload is read and dropped up to this */

/* ---- 1. the server object, error statuses ------------------------------------------- */

struct sse;

struct mg_http {
    struct MHD_Daemon *d;
    struct mg_server *srv;
    int port;
    bool loopback;         /* bound to a loopback address: Host must name loopback */
    atomic_bool stopping;
    pthread_mutex_t mu;    /* guards the fields below */
    pthread_cond_t cv;     /* signalled when a worker ends */
    struct sse *streams;   /* live SSE streams */
    int workers;           /* running POST-stream worker threads */
    uint64_t next_stream;
};

int mg_err_http_status(const char *code)
{
    if (!code) return 500;
    static const struct {
        const char *code;
        int status;
    } map[] = {
        {MG_E_USAGE, 400},           {MG_E_REPO_REQUIRED, 400},     {MG_E_NAME_INVALID, 400},
        {MG_E_NOT_A_DIR, 400},       {MG_E_NOT_TEXT, 400},
        {MG_E_SESSION_REQUIRED, 400}, {MG_E_PROTOCOL_VERSION, 400}, {MG_E_BAD_ARG, 400},
        {MG_E_UNSUPPORTED, 400},
        {MG_E_REPO_NOT_FOUND, 404},  {MG_E_PATH_NOT_FOUND, 404},    {MG_E_FILE_NOT_FOUND, 404},
        {MG_E_SESSION_NOT_FOUND, 404}, {MG_E_SESSION_EXPIRED, 404}, {MG_E_ROUTE_NOT_FOUND, 404},
        {MG_E_PATH_OUTSIDE, 403},    {MG_E_SECRET_FILE, 403},       {MG_E_HOST_FORBIDDEN, 403},
        {MG_E_ORIGIN_FORBIDDEN, 403},
        {MG_E_METHOD_NOT_ALLOWED, 405}, {MG_E_NOT_ACCEPTABLE, 406},
        {MG_E_LOCKED, 409},          {MG_E_REPO_EXISTS, 409},       {MG_E_SESSION_EXISTS, 409},
        {MG_E_BODY_TOO_LARGE, 413},  {MG_E_UNSUPPORTED_MEDIA, 415},
        {MG_E_INTERRUPTED, 503},       {MG_E_SHUTTING_DOWN, 503},
        {MG_E_TIMEOUT, 504},          {MG_E_CLIENT_ERROR, 502},
        {MG_E_TOKEN_IN_QUERY, 400},   {MG_E_UNAUTHORIZED, 401},      {MG_E_TOKEN_INVALID, 401},
        {MG_E_TOKEN_REVOKED, 401},    {MG_E_TOKEN_EXPIRED, 401},     {MG_E_CROSS_REPO, 403},
        {MG_E_RATE_LIMITED, 429},     {MG_E_HEADER_TOO_LARGE, 431},  {MG_E_PROJECT_EXISTS, 409},
        /* semantic search: the repo lacks vectors; the embeddings endpoint failed */
        {MG_E_NO_EMBEDDINGS, 409},    {MG_E_EMBED_UNAVAILABLE, 503}, {MG_E_EMBED_REJECTED, 502},
        {MG_E_EMBED_BAD_RESPONSE, 502},
    };
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
        if (strcmp(map[i].code, code) == 0) return map[i].status;
    /* families: invalid_*, query_*, *_forbidden, *_not_found, *_too_large */
    size_t n = strlen(code);
    if (strncmp(code, "invalid_", 8) == 0 || strncmp(code, "query_", 6) == 0) return 400;
    if (n > 10 && strcmp(code + n - 10, "_forbidden") == 0) return 403;
    if (strcmp(code, "not_found") == 0 || (n > 10 && strcmp(code + n - 10, "_not_found") == 0)) return 404;
    if (n > 10 && strcmp(code + n - 10, "_too_large") == 0) return 413;
    return 500;
}

/* ---- 2. listen address --------------------------------------------------------------- */

union mg_sa {
    struct sockaddr sa;
    struct sockaddr_in in4;
    struct sockaddr_in6 in6;
};

/* "HOST:PORT", "[V6]:PORT" or ":PORT" (every IPv4 interface). HOST is an IPv4
 * or IPv6 literal or "localhost" (127.0.0.1). */
static int parse_listen(const char *addr, union mg_sa *sa, socklen_t *len, struct mg_err *err)
{
    char host[128];
    const char *colon, *port;
    memset(sa, 0, sizeof(*sa));
    if (addr[0] == '[') {
        const char *end = strchr(addr, ']');
        if (!end || end[1] != ':' || (size_t)(end - addr - 1) >= sizeof(host)) goto bad;
        memcpy(host, addr + 1, (size_t)(end - addr - 1));
        host[end - addr - 1] = 0;
        port = end + 2;
    } else {
        colon = strrchr(addr, ':');
        if (!colon || (size_t)(colon - addr) >= sizeof(host) || memchr(addr, ':', (size_t)(colon - addr))) goto bad;
        memcpy(host, addr, (size_t)(colon - addr));
        host[colon - addr] = 0;
        port = colon + 1;
    }
    char *end;
    errno = 0;
    long p = strtol(port, &end, 10);
    if (!*port || *end || errno || p < 0 || p > 65535) goto bad;
    if (!host[0] || strcmp(host, "0.0.0.0") == 0) {
        sa->in4.sin_family = AF_INET;
        sa->in4.sin_addr.s_addr = htonl(INADDR_ANY);
        sa->in4.sin_port = htons((uint16_t)p);
        *len = sizeof(sa->in4);
    } else if (strcasecmp(host, "localhost") == 0 || inet_pton(AF_INET, host, &sa->in4.sin_addr) == 1) {
        if (strcasecmp(host, "localhost") == 0) sa->in4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        sa->in4.sin_family = AF_INET;
        sa->in4.sin_port = htons((uint16_t)p);
        *len = sizeof(sa->in4);
    } else if (inet_pton(AF_INET6, host, &sa->in6.sin6_addr) == 1) {
        sa->in6.sin6_family = AF_INET6;
        sa->in6.sin6_port = htons((uint16_t)p);
        *len = sizeof(sa->in6);
    } else {
        goto bad;
    }
    return 0;
bad:
    return mg_err_set(err, MG_E_USAGE,
                      "invalid listen address '%s'; give HOST:PORT with an IP address or localhost, e.g. "
                      "127.0.0.1:7077 or [::1]:7077 (port 0 picks a free one)",
                      addr);
}

static bool sa_loopback(const union mg_sa *sa)
{
    if (sa->sa.sa_family == AF_INET) return (ntohl(sa->in4.sin_addr.s_addr) >> 24) == 127;
    return IN6_IS_ADDR_LOOPBACK(&sa->in6.sin6_addr);
}

/* ---- 3. request headers ------------------------------------------------------------- */

static const char *header(struct MHD_Connection *c, const char *name)
{
    return MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);
}

/* "localhost", "127.0.0.1" or "[::1]", then nothing or ":digits"; the name
 * part is n bytes of s. */
static bool loopback_hostport(const char *s, size_t n)
{
    static const char *const names[] = {"localhost", "127.0.0.1", "[::1]"};
    for (size_t i = 0; i < 3; i++) {
        size_t k = strlen(names[i]);
        if (n < k || strncasecmp(s, names[i], k) != 0) continue;
        if (n == k) return true;
        if (s[k] != ':' || n == k + 1 || n > k + 6) continue;
        bool digits = true;
        for (size_t j = k + 1; j < n; j++)
            if (s[j] < '0' || s[j] > '9') digits = false;
        if (digits) return true;
    }
    return false;
}

static bool origin_allowed(const struct mg_config *cfg, const char *o)
{
    size_t n = strlen(o);
    if (strncasecmp(o, "http://", 7) == 0 && loopback_hostport(o + 7, n - 7)) return true;
    if (strncasecmp(o, "https://", 8) == 0 && loopback_hostport(o + 8, n - 8)) return true;
    /* allowed_origins: comma-separated, spaces around items ignored */
    const char *p = cfg->allowed_origins;
    while (*p) {
        while (*p == ' ' || *p == ',') p++;
        const char *e = p;
        while (*e && *e != ',') e++;
        const char *t = e;
        while (t > p && t[-1] == ' ') t--;
        if (t > p && (size_t)(t - p) == n && strncasecmp(p, o, n) == 0) return true;
        p = e;
    }
    return false;
}

static bool accepts(const char *accept, const char *type)
{
    return accept && strcasestr(accept, type) != NULL;
}

static bool is_json_type(const char *ct)
{
    if (!ct) return false;
    while (*ct == ' ') ct++;
    if (strncasecmp(ct, "application/json", 16) != 0) return false;
    char c = ct[16];
    return c == 0 || c == ';' || c == ' ';
}

/* ---- 4. per-request state and plain responses --------------------------------------- */

enum api { A_NONE, A_MCP, A_V1, A_HEALTHZ, A_METRICS };

struct req {
    enum api api;
    const char *label;     /* the metrics route label */
    struct mg_buf body;
    size_t discarded;      /* bytes dropped after the body passed the cap */
    bool too_large;
    bool answered;         /* a response is queued */
    struct mg_principal who; /* the caller (owned copy): from the bearer token, or the local principal */
};

static const char *route_label(const char *url, enum api *api)
{
    static const char *const v1[] = {"/v1/repos", "/v1/search", "/v1/symbols", "/v1/files", "/v1/file",
                                     "/v1/scope", "/v1/index", "/v1/audit"};
    static const char *const mem[] = {"/v1/notes", "/v1/projects", "/v1/episodes", "/v1/entities", "/v1/profiles",
                                      "/v1/context"};
    *api = A_NONE;
    if (strcmp(url, "/mcp") == 0) return *api = A_MCP, "/mcp";
    if (strcmp(url, "/healthz") == 0) return *api = A_HEALTHZ, "/healthz";
    if (strcmp(url, "/metrics") == 0) return *api = A_METRICS, "/metrics";
    if (strncmp(url, "/v1/", 4) == 0) {
        *api = A_V1;
        if (strcmp(url, "/v1/index/status") == 0) return "/v1/index";
        for (size_t i = 0; i < sizeof(v1) / sizeof(v1[0]); i++)
            if (strcmp(url, v1[i]) == 0) return v1[i];
        for (size_t i = 0; i < sizeof(mem) / sizeof(mem[0]); i++) {
            size_t n = strlen(mem[i]);
            if (strncmp(url, mem[i], n) == 0 && (url[n] == 0 || url[n] == '/')) return mem[i];
        }
    }
    return "other";
}

/* Queue `text` (malloc'd, taken) with status; headers are name, value pairs
 * ending with NULL. */
static enum MHD_Result respond(struct MHD_Connection *c, struct req *r, int status, const char *ctype, char *text,
                               size_t len, ...)
{
    struct MHD_Response *resp = MHD_create_response_from_buffer(
        len, text ? text : (char *)"", text ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
    if (!resp) {
        free(text);
        return MHD_NO;
    }
    if (ctype) MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
    MHD_add_response_header(resp, "Cache-Control", "no-store");
    va_list ap;
    va_start(ap, len);
    for (const char *k; (k = va_arg(ap, const char *)) != NULL;) {
        const char *v = va_arg(ap, const char *);
        if (v) MHD_add_response_header(resp, k, v);
    }
    va_end(ap);
    enum MHD_Result rc = MHD_queue_response(c, (unsigned)status, resp);
    MHD_destroy_response(resp);
    if (rc == MHD_YES) {
        r->answered = true;
        mg_metrics_http(r->label, status);
    }
    return rc;
}

/* JSON body (j taken). */
static enum MHD_Result respond_json_h(struct MHD_Connection *c, struct req *r, int status, json_t *j,
                                      const char *h1, const char *v1, const char *h2, const char *v2)
{
    char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    if (!text) return respond(c, r, 500, "text/plain", strdup("out of memory\n"), 14, NULL);
    return respond(c, r, status, "application/json", text, strlen(text), h1, v1, h2, v2, NULL);
}

static enum MHD_Result respond_json(struct MHD_Connection *c, struct req *r, int status, json_t *j)
{
    return respond_json_h(c, r, status, j, NULL, NULL, NULL, NULL);
}

/* {"error":{"code","message"}} for the API routes; a JSON-RPC error with id
 * null for /mcp (data.code carries the memgate code). */
static enum MHD_Result respond_error(struct MHD_Connection *c, struct req *r, int status, const char *code,
                                     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static enum MHD_Result respond_error(struct MHD_Connection *c, struct req *r, int status, const char *code,
                                     const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    json_t *j;
    if (r->api == A_MCP) j = mg_rpc_error(NULL, -32000, msg, json_pack("{s:s}", "code", code));
    else j = json_pack("{s:{s:s, s:o}}", "error", "code", code, "message", mg_json_text(msg));
    if (status == 405) {
        const char *allow = r->api == A_MCP ? "GET, POST, DELETE" : NULL;
        return respond_json_h(c, r, status, j, "Allow", allow, NULL, NULL);
    }
    return respond_json(c, r, status, j);
}

/* ---- 5. SSE streams ------------------------------------------------------------------ */

struct sse {
    struct mg_out out;          /* first: mg_out -> sse */
    struct mg_http *h;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct mg_buf q;            /* event bytes not yet handed to MHD */
    size_t qoff;                /* of q, bytes already handed to MHD */
    bool done;                  /* the producer is finished: end after the queue drains */
    bool ended;                 /* the server ends it now (DELETE, stop) */
    bool gone;                  /* MHD freed the response: nobody reads any more */
    int refs;
    uint64_t serial, next_event;
    char sid[MG_SID_MAX + 1];
    bool get;                   /* a GET stream (no worker) */
    struct sse *next, **pprev;  /* h->streams, under h->mu; unlinked by the last unref */
    /* the worker's request */
    struct mg_session *session;
    json_t *msg;
    char *repo_header;
    struct mg_principal who;    /* the request's caller (owned copy) */
};

/* Drop a reference; the last one unlinks the stream from the registry and frees it. */
static void sse_unref(struct sse *s)
{
    pthread_mutex_lock(&s->mu);
    int left = --s->refs;
    pthread_mutex_unlock(&s->mu);
    if (left) return;
    struct mg_http *h = s->h;
    pthread_mutex_lock(&h->mu);
    *s->pprev = s->next;
    if (s->next) s->next->pprev = s->pprev;
    pthread_mutex_unlock(&h->mu);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    mg_buf_release(&s->q);
    free(s->repo_header);
    mg_principal_release(&s->who);
    free(s);
}

/* Append one event (locked). data may be NULL for a priming event. */
static int sse_push_locked(struct sse *s, const char *data, bool priming)
{
    if (s->gone || s->ended) return -1;
    size_t before = s->q.len;
    int rc = mg_buf_addf(&s->q, "id: %llu-%llu\n", (unsigned long long)s->serial,
                         (unsigned long long)s->next_event);
    if (rc == 0 && priming) rc = mg_buf_addf(&s->q, "retry: %d\ndata: \n\n", MG_SSE_RETRY_MS);
    if (rc == 0 && !priming) rc = mg_buf_addf(&s->q, "event: message\ndata: %s\n\n", data);
    if (rc != 0) {
        s->q.len = before; /* keep the queue well-formed */
        if (s->q.p) s->q.p[before] = 0;
        return -1;
    }
    s->next_event++;
    pthread_cond_broadcast(&s->cv);
    return 0;
}

static int sse_send(struct mg_out *o, json_t *msg)
{
    struct sse *s = (struct sse *)o;
    char *text = json_dumps(msg, JSON_COMPACT);
    if (!text) return -1;
    pthread_mutex_lock(&s->mu);
    int rc = sse_push_locked(s, text, false);
    pthread_mutex_unlock(&s->mu);
    free(text);
    return rc;
}

/* MHD's content reader: runs on the connection's thread and may block. */
static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    struct sse *s = cls;
    pthread_mutex_lock(&s->mu);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += MG_SSE_KEEPALIVE_MS / 1000;
    bool timed_out = false;
    while (s->qoff == s->q.len && !s->done && !s->ended && !atomic_load(&s->h->stopping) && !timed_out)
        timed_out = pthread_cond_timedwait(&s->cv, &s->mu, &ts) == ETIMEDOUT;
    ssize_t n;
    if (s->qoff < s->q.len && !s->ended) {
        size_t k = s->q.len - s->qoff < max ? s->q.len - s->qoff : max;
        memcpy(buf, s->q.p + s->qoff, k);
        s->qoff += k;
        if (s->qoff == s->q.len) {
            mg_buf_reset(&s->q);
            s->qoff = 0;
        }
        n = (ssize_t)k;
    } else if (s->done || s->ended || atomic_load(&s->h->stopping)) {
        n = MHD_CONTENT_READER_END_OF_STREAM;
    } else {
        static const char ka[] = ": keep-alive\n\n";
        size_t k = sizeof(ka) - 1 < max ? sizeof(ka) - 1 : max;
        memcpy(buf, ka, k);
        n = (ssize_t)k;
    }
    pthread_mutex_unlock(&s->mu);
    return n;
}

/* MHD's free callback: the response is done (sent, or the client left). */
static void sse_free(void *cls)
{
    struct sse *s = cls;
    pthread_mutex_lock(&s->mu);
    s->gone = true;
    pthread_mutex_unlock(&s->mu);
    sse_unref(s);
}

static struct sse *sse_new(struct mg_http *h, const char *sid, bool get)
{
    struct sse *s = calloc(1, sizeof(*s));
    if (!s) return NULL;
    s->out.send = sse_send;
    s->h = h;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    mg_buf_init(&s->q, MG_SSE_QUEUE_MAX);
    s->refs = 1;
    s->get = get;
    snprintf(s->sid, sizeof(s->sid), "%s", sid);
    pthread_mutex_lock(&h->mu);
    s->ended = atomic_load(&h->stopping);
    s->serial = ++h->next_stream;
    s->next = h->streams;
    if (s->next) s->next->pprev = &s->next;
    s->pprev = &h->streams;
    h->streams = s;
    pthread_mutex_unlock(&h->mu);
    return s;
}

/* End every stream of a session (DELETE), or every stream (sid NULL, stop). */
static void sse_end_all(struct mg_http *h, const char *sid)
{
    pthread_mutex_lock(&h->mu);
    for (struct sse *s = h->streams; s; s = s->next) {
        if (sid && strcmp(s->sid, sid) != 0) continue;
        pthread_mutex_lock(&s->mu);
        s->ended = true;
        pthread_cond_broadcast(&s->cv);
        pthread_mutex_unlock(&s->mu);
    }
    pthread_mutex_unlock(&h->mu);
}

/* A response that streams s (the response takes one reference). */
static enum MHD_Result respond_sse(struct MHD_Connection *c, struct req *r, struct sse *s)
{
    pthread_mutex_lock(&s->mu);
    s->refs++;
    pthread_mutex_unlock(&s->mu);
    struct MHD_Response *resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16 * 1024, sse_read, s, sse_free);
    if (!resp) {
        sse_free(s);
        return MHD_NO;
    }
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "text/event-stream");
    MHD_add_response_header(resp, "Cache-Control", "no-cache, no-store");
    MHD_add_response_header(resp, "X-Accel-Buffering", "no");
    if (s->sid[0]) MHD_add_response_header(resp, "Mcp-Session-Id", s->sid);
    enum MHD_Result rc = MHD_queue_response(c, MHD_HTTP_OK, resp);
    MHD_destroy_response(resp); /* on failure this calls sse_free */
    if (rc == MHD_YES) {
        r->answered = true;
        mg_metrics_http(r->label, 200);
    }
    return rc;
}

/* ---- 6. /mcp ------------------------------------------------------------------------- */

static int json_out_send(struct mg_out *o, json_t *msg)
{
    (void)o;
    (void)msg;
    return -1; /* a plain JSON response carries nothing but the reply */
}
static struct mg_out json_out = {json_out_send};

static bool has_method(json_t *msg, const char *name)
{
    size_t n = json_is_array(msg) ? json_array_size(msg) : 1;
    for (size_t i = 0; i < n; i++) {
        json_t *m = json_is_array(msg) ? json_array_get(msg, i) : msg;
        const char *meth = json_string_value(json_object_get(m, "method"));
        if (meth && json_object_get(m, "id") && strcmp(meth, name) == 0) return true;
    }
    return false;
}

/* The session named by Mcp-Session-Id, with a reference; or NULL after an error response. */
static struct mg_session *mcp_session(struct mg_http *h, struct MHD_Connection *c, struct req *r,
                                      enum MHD_Result *rc)
{
    const char *sid = header(c, "Mcp-Session-Id");
    if (!sid || !*sid) {
        *rc = respond_error(c, r, 400, MG_E_SESSION_REQUIRED,
                            "bad request: the Mcp-Session-Id header is required; send initialize first to get one");
        return NULL;
    }
    enum mg_lookup how;
    struct mg_session *s = mg_sessions_get(h->srv->sessions, sid, &how);
    if (s && (s->kind != MG_SESSION_MCP || strcmp(s->tenant, r->who.tenant) != 0)) {
        /* another tenant's session does not exist for this caller */
        mg_session_put(h->srv->sessions, s);
        s = NULL;
        how = MG_SESSION_UNKNOWN;
    }
    if (s) return s;
    if (how == MG_SESSION_EXPIRED)
        *rc = respond_error(c, r, 404, MG_E_SESSION_EXPIRED,
                            "session expired after idling longer than session_ttl; send initialize again to start a "
                            "new session");
    else
        *rc = respond_error(c, r, 404, MG_E_SESSION_NOT_FOUND,
                            "session not found (it ended or never existed); send initialize again to start a new "
                            "session");
    return NULL;
}

static void *sse_worker(void *arg)
{
    struct sse *s = arg;
    struct mg_http *h = s->h;
    struct mg_ctx x = {.srv = h->srv, .session = s->session, .who = &s->who, .repo_header = s->repo_header,
                       .out = &s->out};
    json_t *reply = NULL;
    mg_rpc_handle(&x, s->msg, &reply);
    mg_content_thread_done(); /* this thread's zstd contexts, before it exits */
    if (reply) {
        char *text = json_dumps(reply, JSON_COMPACT);
        pthread_mutex_lock(&s->mu);
        if (!text || sse_push_locked(s, text, false) != 0) {
            /* too big for the queue, or out of memory: say so rather than hang the client */
            json_t *id = json_is_object(reply) ? json_object_get(reply, "id") : NULL;
            json_t *e = mg_rpc_error(id, MG_RPC_INTERNAL_ERROR, "the response could not be sent", NULL);
            char *t2 = json_dumps(e, JSON_COMPACT);
            if (t2) sse_push_locked(s, t2, false);
            free(t2);
            json_decref(e);
        }
        pthread_mutex_unlock(&s->mu);
        free(text);
        json_decref(reply);
    }
    pthread_mutex_lock(&s->mu);
    s->done = true;
    struct mg_session *sess = s->session;
    s->session = NULL;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    json_decref(s->msg);
    s->msg = NULL;
    mg_session_put(h->srv->sessions, sess);
    sse_unref(s);
    pthread_mutex_lock(&h->mu);
    h->workers--;
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
    return NULL;
}

static bool wants_priming(struct mg_session *s)
{
    pthread_mutex_lock(&s->mu);
    bool yes = strcmp(s->protocol, "2025-11-25") >= 0;
    pthread_mutex_unlock(&s->mu);
    return yes;
}

/* Answer msg on an SSE stream; takes msg and the session reference. */
static enum MHD_Result mcp_post_sse(struct mg_http *h, struct MHD_Connection *c, struct req *r,
                                    struct mg_session *sess, json_t *msg)
{
    struct sse *s = sse_new(h, sess->id, false);
    if (!s) {
        json_decref(msg);
        mg_session_put(h->srv->sessions, sess);
        return respond_error(c, r, 500, MG_E_NO_MEMORY, "out of memory");
    }
    const char *rh = header(c, "X-Memgate-Repo");
    s->repo_header = rh ? strdup(rh) : NULL;
    mg_principal_copy(&s->who, &r->who); /* on failure: level 0, which may do nothing */
    s->session = sess;
    s->msg = msg;
    if (wants_priming(sess)) {
        pthread_mutex_lock(&s->mu);
        sse_push_locked(s, NULL, true);
        pthread_mutex_unlock(&s->mu);
    }
    /* the worker's reference */
    pthread_mutex_lock(&s->mu);
    s->refs++;
    pthread_mutex_unlock(&s->mu);
    pthread_mutex_lock(&h->mu);
    h->workers++;
    pthread_mutex_unlock(&h->mu);
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    pthread_t t;
    int e = pthread_create(&t, &a, sse_worker, s);
    pthread_attr_destroy(&a);
    if (e != 0) {
        pthread_mutex_lock(&h->mu);
        h->workers--;
        pthread_mutex_unlock(&h->mu);
        pthread_mutex_lock(&s->mu);
        s->refs--;
        s->session = NULL;
        s->msg = NULL;
        pthread_mutex_unlock(&s->mu);
        json_decref(msg);
        mg_session_put(h->srv->sessions, sess);
        sse_unref(s); /* the creation reference: frees it */
        return respond_error(c, r, 503, MG_E_SHUTTING_DOWN, "cannot start a thread for this request (%s); retry later",
                             strerror(e));
    }
    enum MHD_Result rc = respond_sse(c, r, s);
    sse_unref(s); /* the creation reference; the worker and the response hold theirs */
    return rc;
}

static enum MHD_Result mcp_post(struct mg_http *h, struct MHD_Connection *c, struct req *r)
{
    const char *accept = header(c, MHD_HTTP_HEADER_ACCEPT);
    bool any = !accept || accepts(accept, "*/*");
    bool json_ok = any || accepts(accept, "application/json") || accepts(accept, "application/*");
    bool sse_ok = accepts(accept, "text/event-stream");
    if (!json_ok && !sse_ok)
        return respond_error(c, r, 406, MG_E_NOT_ACCEPTABLE,
                             "not acceptable: the Accept header must allow application/json and text/event-stream");
    if (!is_json_type(header(c, MHD_HTTP_HEADER_CONTENT_TYPE)))
        return respond_error(c, r, 415, MG_E_UNSUPPORTED_MEDIA,
                             "unsupported media type: send the JSON-RPC message with Content-Type: application/json");
    json_t *reply = NULL;
    json_t *msg = mg_rpc_parse(r->body.p ? r->body.p : "", r->body.len, &reply);
    if (!msg) return respond_json(c, r, 400, reply);
    struct mg_rpc_kind k;
    mg_rpc_classify(msg, &k);
    enum MHD_Result rc = MHD_YES;
    struct mg_sessions *reg = h->srv->sessions;
    const char *rh = header(c, "X-Memgate-Repo");

    if (k.initialize) {
        if (k.batch) {
            json_decref(msg);
            return respond_json(c, r, 400,
                                mg_rpc_error(NULL, MG_RPC_INVALID_REQUEST,
                                             "invalid request: initialize must be sent alone, not in a batch", NULL));
        }
        struct mg_err err = {0};
        const char *inst = getenv("MEMGATE_INSTANCE_ID");
        struct mg_session *s = mg_sessions_create(reg, MG_SESSION_MCP, NULL, inst && *inst ? inst : NULL, &err);
        if (!s) {
            json_decref(msg);
            return respond_error(c, r, mg_err_http_status(err.code), err.code ? err.code : MG_E_INTERNAL, "%s",
                                 err.msg);
        }
        snprintf(s->tenant, sizeof(s->tenant), "%s", r->who.tenant);
        struct mg_ctx x = {.srv = h->srv, .session = s, .who = &r->who, .repo_header = rh, .out = &json_out};
        mg_rpc_handle(&x, msg, &reply);
        json_decref(msg);
        bool ok = reply && json_object_get(reply, "result");
        char sid[MG_SID_MAX + 1];
        snprintf(sid, sizeof(sid), "%s", s->id);
        mg_session_put(reg, s);
        if (!ok) mg_sessions_remove(reg, sid);
        if (!reply) return respond(c, r, 202, NULL, NULL, 0, NULL);
        return respond_json_h(c, r, 200, reply, "Mcp-Session-Id", ok ? sid : NULL, NULL, NULL);
    }

    const char *pv = header(c, "MCP-Protocol-Version");
    if (pv && !mg_mcp_version_supported(pv)) {
        json_decref(msg);
        return respond_error(c, r, 400, MG_E_PROTOCOL_VERSION,
                             "bad request: unsupported MCP-Protocol-Version '%.64s'; supported: 2025-11-25, "
                             "2025-06-18, 2025-03-26",
                             pv);
    }
    struct mg_session *s = mcp_session(h, c, r, &rc);
    if (!s) {
        json_decref(msg);
        return rc;
    }
    if (k.requests == 0) {
        /* notifications and responses only */
        struct mg_ctx x = {.srv = h->srv, .session = s, .who = &r->who, .repo_header = rh, .out = &json_out};
        mg_rpc_handle(&x, msg, &reply);
        json_decref(msg);
        mg_session_put(reg, s);
        if (reply) return respond_json(c, r, 400, reply);
        return respond(c, r, 202, NULL, NULL, 0, NULL);
    }
    if (sse_ok && (has_method(msg, "tools/call") || !json_ok)) {
        if (atomic_load(&h->stopping)) {
            json_decref(msg);
            mg_session_put(reg, s);
            return respond_error(c, r, 503, MG_E_SHUTTING_DOWN, "the server is stopping; retry later");
        }
        return mcp_post_sse(h, c, r, s, msg);
    }
    struct mg_ctx x = {.srv = h->srv, .session = s, .who = &r->who, .repo_header = rh, .out = &json_out};
    mg_rpc_handle(&x, msg, &reply);
    json_decref(msg);
    mg_session_put(reg, s);
    if (!reply) return respond(c, r, 202, NULL, NULL, 0, NULL);
    return respond_json(c, r, 200, reply);
}

static enum MHD_Result mcp_get(struct mg_http *h, struct MHD_Connection *c, struct req *r)
{
    if (!accepts(header(c, MHD_HTTP_HEADER_ACCEPT), "text/event-stream"))
        return respond_error(c, r, 405, MG_E_METHOD_NOT_ALLOWED,
                             "method not allowed: GET /mcp opens an SSE stream and needs Accept: text/event-stream; "
                             "send JSON-RPC messages with POST");
    const char *pv = header(c, "MCP-Protocol-Version");
    if (pv && !mg_mcp_version_supported(pv))
        return respond_error(c, r, 400, MG_E_PROTOCOL_VERSION,
                             "bad request: unsupported MCP-Protocol-Version '%.64s'; supported: 2025-11-25, "
                             "2025-06-18, 2025-03-26",
                             pv);
    enum MHD_Result rc = MHD_YES;
    struct mg_session *sess = mcp_session(h, c, r, &rc);
    if (!sess) return rc;
    if (atomic_load(&h->stopping)) {
        mg_session_put(h->srv->sessions, sess);
        return respond_error(c, r, 503, MG_E_SHUTTING_DOWN, "the server is stopping; retry later");
    }
    struct sse *s = sse_new(h, sess->id, true);
    bool prime = wants_priming(sess);
    mg_session_put(h->srv->sessions, sess);
    if (!s) return respond_error(c, r, 500, MG_E_NO_MEMORY, "out of memory");
    if (prime) {
        pthread_mutex_lock(&s->mu);
        sse_push_locked(s, NULL, true);
        pthread_mutex_unlock(&s->mu);
    }
    rc = respond_sse(c, r, s);
    sse_unref(s);
    return rc;
}

static enum MHD_Result mcp_delete(struct mg_http *h, struct MHD_Connection *c, struct req *r)
{
    enum MHD_Result rc = MHD_YES;
    struct mg_session *s = mcp_session(h, c, r, &rc);
    if (!s) return rc;
    char sid[MG_SID_MAX + 1];
    snprintf(sid, sizeof(sid), "%s", s->id);
    mg_rpc_cancel_pending(s);
    mg_session_put(h->srv->sessions, s);
    mg_sessions_remove(h->srv->sessions, sid);
    sse_end_all(h, sid);
    return respond(c, r, 204, NULL, NULL, 0, NULL);
}

/* ---- 7. /v1 -------------------------------------------------------------------------- */

enum ptype { P_STR, P_INT, P_BOOL, P_LIST };

struct param {
    const char *name;   /* query parameter */
    const char *arg;    /* tool argument */
    enum ptype type;
};

#define P_END {NULL, NULL, P_STR}
#define P_REPO {"repo_id", "repo", P_STR}, {"repo", "repo", P_STR}
#define P_FILTERS {"glob", "globs", P_LIST}, {"exclude", "exclude_globs", P_LIST}, {"lang", "languages", P_LIST}

static const struct param p_none[] = {P_END};
static const struct param p_repo[] = {P_REPO, P_END};
static const struct param p_search[] = {{"q", "query", P_STR},        {"mode", "mode", P_STR},
                                        {"fixed", "fixed", P_BOOL},   {"ignore_case", "ignore_case", P_BOOL},
                                        P_FILTERS,                    {"limit", "limit", P_INT},
                                        P_REPO,                       P_END};
static const struct param p_symbols[] = {{"q", "query", P_STR}, P_FILTERS, {"limit", "limit", P_INT}, P_REPO, P_END};
static const struct param p_files[] = {P_FILTERS, {"limit", "limit", P_INT}, {"offset", "offset", P_INT}, P_REPO,
                                       P_END};
static const struct param p_file[] = {{"path", "path", P_STR}, {"start_line", "start_line", P_INT},
                                      {"end_line", "end_line", P_INT}, P_REPO, P_END};
#define P_SESS {"session_id", "session_id", P_STR}
static const struct param p_mem[] = {P_REPO, P_SESS, P_END};
static const struct param p_notes[] = {{"q", "query", P_STR}, {"prefix", "prefix", P_STR}, {"limit", "limit", P_INT},
                                       P_REPO, P_SESS, P_END};
static const struct param p_recall[] = {{"q", "query", P_STR}, {"limit", "limit", P_INT}, P_REPO, P_SESS, P_END};
static const struct param p_context[] = {{"prompt", "prompt", P_STR}, {"limit", "limit", P_INT}, P_REPO, P_SESS,
                                         P_END};

/* One /v1 route: the tool for each method; GET takes its arguments from the
 * query string (params), PUT/POST from a JSON object body. A '*' segment of
 * the path matches one non-empty segment, passed as the argument `seg`.
 * get_query: the tool for GET when the query string has `q` (a search). */
static const struct v1route {
    const char *path;
    const char *get, *put, *post, *del;
    const struct param *params;
    const char *seg;
    const char *get_query;
} v1routes[] = {
    {"/v1/repos", "list_repos", NULL, NULL, NULL, p_none, NULL, NULL},
    {"/v1/search", "search_code", NULL, NULL, NULL, p_search, NULL, NULL},
    {"/v1/symbols", "search_symbols", NULL, NULL, NULL, p_symbols, NULL, NULL},
    {"/v1/files", "list_files", NULL, NULL, NULL, p_files, NULL, NULL},
    {"/v1/file", "read_file", NULL, NULL, NULL, p_file, NULL, NULL},
    {"/v1/scope", "get_scope", "set_scope", "set_scope", "clear_scope", p_none, NULL, NULL},
    {"/v1/index", NULL, NULL, "index_repo", NULL, p_none, NULL, NULL},
    {"/v1/index/status", "index_status", NULL, NULL, NULL, p_repo, NULL, NULL},
    {"/v1/notes", "list_notes", NULL, "set_note", NULL, p_notes, NULL, "search_notes"},
    {"/v1/notes/*", "get_note", NULL, NULL, "delete_note", p_mem, "key", NULL},
    {"/v1/projects", "list_projects", NULL, "create_project", NULL, p_mem, NULL, NULL},
    {"/v1/projects/leave", NULL, NULL, "leave_project", NULL, p_mem, NULL, NULL},
    {"/v1/projects/*", NULL, NULL, NULL, "delete_project", p_mem, "project", NULL},
    {"/v1/projects/*/join", NULL, NULL, "join_project", NULL, p_mem, "project", NULL},
    {"/v1/episodes", "recall", NULL, "remember", NULL, p_recall, NULL, NULL},
    {"/v1/entities", "search_entities", NULL, "add_entities", NULL, p_recall, NULL, NULL},
    {"/v1/entities/retag", NULL, NULL, "retag_entities", NULL, p_mem, NULL, NULL},
    {"/v1/profiles/*", "get_profile", NULL, "save_preference", NULL, p_none, "agent_id", NULL},
    {"/v1/context", "get_context", NULL, "get_context", NULL, p_context, NULL, NULL},
};

/* Does url match the route pattern? The '*' segment's text goes to seg
 * (NUL-terminated, at most cap-1 bytes; longer does not match); a '*' that
 * ends the pattern takes the rest of the path, slashes included (note keys). */
static bool route_match(const char *pat, const char *url, char *seg, size_t cap)
{
    seg[0] = 0;
    while (*pat && *url) {
        if (*pat == '*') {
            const char *e = pat[1] ? strchr(url, '/') : NULL;
            size_t n = e ? (size_t)(e - url) : strlen(url);
            if (n == 0 || n >= cap) return false;
            memcpy(seg, url, n);
            seg[n] = 0;
            url += n;
            pat++;
            continue;
        }
        if (*pat++ != *url++) return false;
    }
    return !*pat && !*url;
}

struct qargs {
    const struct param *params;
    json_t *args;
    char bad[512];   /* the first problem, or "" */
};

static enum MHD_Result q_iter(void *cls, enum MHD_ValueKind kind, const char *key, size_t key_size, const char *value,
                              size_t value_size)
{
    (void)kind;
    struct qargs *q = cls;
    if (q->bad[0]) return MHD_NO;
    const struct param *p = q->params;
    while (p->name && (strlen(p->name) != key_size || strcmp(p->name, key) != 0)) p++;
    if (!p->name) {
        struct mg_buf known;
        mg_buf_init(&known, 400);
        for (const struct param *k = q->params; k->name; k++)
            mg_buf_addf(&known, "%s%s", k == q->params ? "" : ", ", k->name);
        snprintf(q->bad, sizeof(q->bad), "unknown query parameter '%.64s'; this route takes: %s", key,
                 known.p ? known.p : "none");
        mg_buf_release(&known);
        return MHD_NO;
    }
    if (!value) value = "", value_size = 0; /* "?name" without "=" */
    if (strlen(value) != value_size) {
        snprintf(q->bad, sizeof(q->bad), "query parameter '%s' contains a NUL byte", p->name);
        return MHD_NO;
    }
    json_t *v = NULL;
    if (p->type == P_BOOL) {
        if (strcmp(value, "true") == 0 || strcmp(value, "1") == 0) v = json_true();
        else if (strcmp(value, "false") == 0 || strcmp(value, "0") == 0) v = json_false();
        else {
            snprintf(q->bad, sizeof(q->bad), "query parameter '%s' must be true or false, got '%.64s'", p->name, value);
            return MHD_NO;
        }
    } else if (p->type == P_INT) {
        char *end;
        errno = 0;
        long long n = strtoll(value, &end, 10);
        if (!*value || *end || errno) {
            snprintf(q->bad, sizeof(q->bad), "query parameter '%s' must be an integer, got '%.64s'", p->name, value);
            return MHD_NO;
        }
        v = json_integer(n);
    } else {
        v = json_stringn(value, value_size);
        if (!v) {
            snprintf(q->bad, sizeof(q->bad), "query parameter '%s' is not valid UTF-8", p->name);
            return MHD_NO;
        }
    }
    if (p->type == P_LIST) {
        json_t *a = json_object_get(q->args, p->arg);
        if (!a) json_object_set_new(q->args, p->arg, a = json_array());
        json_array_append_new(a, v);
    } else {
        if (json_object_get(q->args, p->arg)) {
            json_decref(v);
            snprintf(q->bad, sizeof(q->bad), "query parameter '%s' is given twice", p->name);
            return MHD_NO;
        }
        json_object_set_new(q->args, p->arg, v);
    }
    return MHD_YES;
}

/* The API session named by X-Session-Id (created when absent or unknown). */
static struct mg_session *api_session(struct mg_http *h, struct MHD_Connection *c, struct req *r,
                                      enum MHD_Result *rc)
{
    struct mg_sessions *reg = h->srv->sessions;
    const char *sid = header(c, "X-Session-Id");
    const char *inst = getenv("MEMGATE_INSTANCE_ID");
    if (inst && !*inst) inst = NULL;
    struct mg_err err = {0};
    for (int attempt = 0; attempt < 2; attempt++) {
        if (sid) {
            enum mg_lookup how;
            struct mg_session *s = mg_sessions_get(reg, sid, &how);
            if (s && s->kind == MG_SESSION_API && strcmp(s->tenant, r->who.tenant) == 0) return s;
            if (s && strcmp(s->tenant, r->who.tenant) != 0) {
                mg_session_put(reg, s);
                *rc = respond_error(c, r, 404, MG_E_SESSION_NOT_FOUND,
                                    "X-Session-Id names a session this token cannot use; leave the header out to "
                                    "get a new one");
                return NULL;
            }
            if (s) {
                mg_session_put(reg, s);
                *rc = respond_error(c, r, 404, MG_E_SESSION_NOT_FOUND,
                                    "X-Session-Id names an MCP session, which the HTTP API cannot use; choose "
                                    "another id or leave the header out to get a new one");
                return NULL;
            }
            if (how == MG_SESSION_EXPIRED) {
                *rc = respond_error(c, r, 404, MG_E_SESSION_EXPIRED,
                                    "session expired after idling longer than session_ttl, and its scope with it; "
                                    "leave X-Session-Id out (or choose a new id) to start a new session");
                return NULL;
            }
        }
        struct mg_session *s = mg_sessions_create(reg, MG_SESSION_API, sid, inst, &err);
        if (s) {
            snprintf(s->tenant, sizeof(s->tenant), "%s", r->who.tenant);
            return s;
        }
        if (!err.code || strcmp(err.code, MG_E_SESSION_EXISTS) != 0) break; /* lost a race: look again */
    }
    const char *code = err.code ? err.code : MG_E_INTERNAL;
    *rc = respond_error(c, r, mg_err_http_status(code), code, "X-Session-Id: %s", err.msg);
    return NULL;
}

static const char *allow_of(const struct v1route *rt, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s%s%s%s", rt->get ? "GET, " : "", rt->put ? "PUT, " : "", rt->post ? "POST, " : "",
             rt->del ? "DELETE, " : "");
    size_t n = strlen(buf);
    if (n >= 2) buf[n - 2] = 0;
    return buf;
}

/* GET /v1/audit?tenant=&op=&since=&limit= : audit events, newest last (admin). */
static enum MHD_Result v1_audit(struct mg_http *h, struct MHD_Connection *c, struct req *r, const char *method)
{
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
        json_t *j = json_pack("{s:{s:s, s:s}}", "error", "code", MG_E_METHOD_NOT_ALLOWED, "message",
                              "only GET is allowed on /v1/audit");
        return respond_json_h(c, r, 405, j, "Allow", "GET, HEAD", NULL, NULL);
    }
    struct mg_audit_filter f = {.tenant = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "tenant"),
                                .op = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "op"),
                                .limit = 100};
    const char *since = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "since");
    const char *limit = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "limit");
    if (since && mg_parse_time(since, mg_wall_ms(), &f.since_ms) != 0)
        return respond_error(c, r, 400, MG_E_BAD_ARG, "'since' must be a duration (2h) or a time (2025-01-31, "
                             "2025-01-31T12:00:00Z)");
    if (limit) {
        char *end;
        long long n = strtoll(limit, &end, 10);
        if (*end || n < 1 || n > 10000)
            return respond_error(c, r, 400, MG_E_BAD_ARG, "'limit' must be a whole number from 1 to 10000");
        f.limit = (size_t)n;
    }
    struct mg_ctx x = {.srv = h->srv, .who = &r->who};
    json_t *events = NULL;
    struct mg_err err = {0};
    if (mg_gate_audit_query(&x, &f, &events, &err) != 0) {
        const char *code = err.code ? err.code : MG_E_INTERNAL;
        return respond_error(c, r, mg_err_http_status(code), code, "%s", err.msg);
    }
    return respond_json(c, r, 200, json_pack("{s:o}", "events", events));
}

static enum MHD_Result v1(struct mg_http *h, struct MHD_Connection *c, struct req *r, const char *url,
                          const char *method)
{
    if (strcmp(url, "/v1/audit") == 0) return v1_audit(h, c, r, method);
    /* the first route whose path matches and that takes the method; else the
     * first whose path matches (405 below) */
    const struct v1route *rt = NULL;
    char seg[1024], first_seg[1024];
    bool get_like = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
    for (size_t i = 0; i < sizeof(v1routes) / sizeof(v1routes[0]); i++) {
        const struct v1route *c2 = &v1routes[i];
        if (!route_match(c2->path, url, seg, sizeof(seg))) continue;
        const char *m = get_like ? c2->get
                        : strcmp(method, "PUT") == 0    ? c2->put
                        : strcmp(method, "POST") == 0   ? c2->post
                        : strcmp(method, "DELETE") == 0 ? c2->del
                                                        : NULL;
        if (!rt) {
            rt = c2;
            snprintf(first_seg, sizeof(first_seg), "%s", seg);
        }
        if (m) {
            rt = c2;
            snprintf(first_seg, sizeof(first_seg), "%s", seg);
            break;
        }
    }
    snprintf(seg, sizeof(seg), "%s", first_seg);
    if (!rt)
        return respond_error(c, r, 404, MG_E_ROUTE_NOT_FOUND,
                             "no route %.200s; the API has /v1/repos, /v1/search, /v1/symbols, /v1/files, /v1/file, "
                             "/v1/scope, /v1/index, /v1/index/status, /v1/audit, and the memory routes /v1/notes, "
                             "/v1/projects, /v1/episodes, /v1/entities, /v1/profiles, /v1/context (see docs/http.md "
                             "and docs/memory.md)",
                             url);
    bool is_get = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
    const char *tool = is_get ? rt->get
                       : strcmp(method, "PUT") == 0    ? rt->put
                       : strcmp(method, "POST") == 0   ? rt->post
                       : strcmp(method, "DELETE") == 0 ? rt->del
                                                       : NULL;
    if (!tool) {
        char allow[64];
        allow_of(rt, allow, sizeof(allow));
        char msg[256];
        snprintf(msg, sizeof(msg), "method %.16s is not allowed on %s; use %s", method, rt->path, allow);
        json_t *j = json_pack("{s:{s:s, s:o}}", "error", "code", MG_E_METHOD_NOT_ALLOWED, "message", mg_json_text(msg));
        return respond_json_h(c, r, 405, j, "Allow", allow, NULL, NULL);
    }
    const struct mg_tool *t = mg_tool_find(h->srv, tool);
    if (!t) return respond_error(c, r, 500, MG_E_INTERNAL, "tool '%s' is missing from this build", tool);

    /* the arguments: the query string, then (PUT/POST) the JSON body's members */
    struct qargs q = {.params = rt->params, .args = json_object()};
    MHD_get_connection_values_n(c, MHD_GET_ARGUMENT_KIND, q_iter, &q);
    if (q.bad[0]) {
        json_decref(q.args);
        return respond_error(c, r, 400, MG_E_BAD_ARG, "%s", q.bad);
    }
    bool has_body = strcmp(method, "PUT") == 0 || strcmp(method, "POST") == 0;
    if (has_body && r->body.len > 0) {
        if (!is_json_type(header(c, MHD_HTTP_HEADER_CONTENT_TYPE))) {
            json_decref(q.args);
            return respond_error(c, r, 415, MG_E_UNSUPPORTED_MEDIA,
                                 "unsupported media type: send the body as JSON with Content-Type: application/json");
        }
        json_error_t je;
        json_t *body = json_loadb(r->body.p, r->body.len, JSON_REJECT_DUPLICATES, &je);
        if (!body || !json_is_object(body)) {
            json_decref(body);
            json_decref(q.args);
            return respond_error(c, r, 400, MG_E_BAD_ARG,
                                 "the request body must be a JSON object (%s at line %d column %d)",
                                 body ? "not an object" : je.text, je.line, je.column);
        }
        json_object_update_missing(body, q.args); /* the body wins over the query string */
        json_decref(q.args);
        q.args = body;
    }
    if (rt->seg && seg[0]) {
        json_t *sv = json_string(seg);
        if (!sv || json_object_get(q.args, rt->seg)) {
            json_decref(sv);
            json_decref(q.args);
            return respond_error(c, r, 400, MG_E_BAD_ARG, "'%s' comes from the path; do not give it again (or it is "
                                 "not UTF-8)", rt->seg);
        }
        json_object_set_new(q.args, rt->seg, sv);
    }
    if (is_get && rt->get_query && json_object_get(q.args, "query")) {
        const struct mg_tool *tq = mg_tool_find(h->srv, rt->get_query);
        if (tq) t = tq, tool = rt->get_query;
    }

    enum MHD_Result rc = MHD_YES;
    struct mg_session *s = api_session(h, c, r, &rc);
    if (!s) {
        json_decref(q.args);
        return rc;
    }
    char sid[MG_SID_MAX + 1];
    snprintf(sid, sizeof(sid), "%s", s->id);
    struct mg_ctx x = {.srv = h->srv, .session = s, .who = &r->who, .repo_header = header(c, "X-Memgate-Repo"),
                       .out = NULL};
    json_t *result = NULL;
    struct mg_err err = {0};
    int ok = mg_gate_call(&x, t, q.args, &result, &err) == 0;
    mg_metrics_tool(tool, ok);
    json_decref(q.args);
    json_t *body;
    int status = 200;
    if (ok) {
        body = result ? result : json_object();
        if (strcmp(tool, "set_note") == 0 && json_is_true(json_object_get(body, "created")))
            status = 201; /* POST /v1/notes made a new note */
    } else {
        json_decref(result);
        if (!err.code) err.code = MG_E_INTERNAL;
        status = mg_err_http_status(err.code);
        body = json_pack("{s:o}", "error", mg_err_to_json(&x, &err));
    }
    mg_session_put(h->srv->sessions, s);
    return respond_json_h(c, r, status, body, "X-Session-Id", sid, NULL, NULL);
}

/* ---- 8. /healthz, /metrics, dispatch ------------------------------------------------ */

static enum MHD_Result healthz(struct mg_http *h, struct MHD_Connection *c, struct req *r)
{
    json_t *j = json_pack("{s:s, s:s, s:I}", "status", "ok", "version", MG_VERSION, "sessions",
                          (json_int_t)mg_sessions_count(h->srv->sessions));
    return respond_json(c, r, 200, j);
}

static enum MHD_Result metrics(struct mg_http *h, struct MHD_Connection *c, struct req *r)
{
    struct mg_buf b;
    mg_buf_init(&b, 16u << 20);
    struct mg_gauges g = {mg_sessions_count(h->srv->sessions), mg_sessions_instances(h->srv->sessions)};
    if (mg_metrics_render(&b, &g) != 0) {
        mg_buf_release(&b);
        return respond_error(c, r, 500, MG_E_NO_MEMORY, "out of memory rendering the metrics");
    }
    size_t len;
    char *text = mg_buf_detach(&b, &len);
    return respond(c, r, 200, "text/plain; version=0.0.4; charset=utf-8", text, text ? len : 0, NULL);
}

/* Host and Origin against DNS rebinding; 0 when fine, else a response is queued. */
/* check_host: Host must name loopback (DNS rebinding protection) — on a
 * loopback listener serving without tokens; with tokens a page that
 * rebinds a name to us has no token to send. */
static int check_origin(struct mg_http *h, struct MHD_Connection *c, struct req *r, bool check_host,
                        enum MHD_Result *rc)
{
    const char *host = header(c, MHD_HTTP_HEADER_HOST);
    if (check_host && h->loopback && host && !loopback_hostport(host, strlen(host))) {
        *rc = respond_error(c, r, 403, MG_E_HOST_FORBIDDEN,
                            "forbidden: Host '%.128s' is not a loopback name; this server only answers "
                            "http://localhost, 127.0.0.1 or [::1] (DNS rebinding protection)",
                            host);
        return -1;
    }
    const char *origin = header(c, "Origin");
    if (origin && !origin_allowed(&h->srv->cfg, origin)) {
        *rc = respond_error(c, r, 403, MG_E_ORIGIN_FORBIDDEN,
                            "forbidden: Origin '%.128s' is not allowed; only loopback origins are, plus those in "
                            "the allowed_origins setting",
                            origin);
        return -1;
    }
    return 0;
}

/* ---- 8b. authentication -------------------------------------------------------------- */

/* Audit an HTTP-level refusal (no tool ran): auth failures, rate limits. */
static void audit_refusal(struct mg_http *h, struct req *r, const char *op, const char *code, const char *tenant)
{
    struct mg_principal who = {0};
    snprintf(who.tenant, sizeof(who.tenant), "%s", tenant ? tenant : "");
    struct mg_ctx x = {.srv = h->srv, .who = &who};
    mg_gate_audit_event(&x, op, NULL, r->label, 0, 0, NULL, code);
}

static enum MHD_Result q_token_iter(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    (void)kind;
    bool *found = cls;
    static const char *const names[] = {"access_token", "token", "bearer", "auth", "authorization", "api_key",
                                        NULL};
    for (const char *const *n = names; *n; n++)
        if (strcasecmp(key, *n) == 0) *found = true;
    if (value && strncmp(value, "mgt_", 4) == 0) *found = true;
    return *found ? MHD_NO : MHD_YES;
}

static enum MHD_Result respond_401(struct MHD_Connection *c, struct req *r, const char *code, const char *why,
                                   const char *challenge)
{
    json_t *j = r->api == A_MCP ? mg_rpc_error(NULL, -32001, why, json_pack("{s:s}", "code", code))
                                : json_pack("{s:{s:s, s:s}}", "error", "code", code, "message", why);
    return respond_json_h(c, r, 401, j, "WWW-Authenticate", challenge, NULL, NULL);
}

struct hsize {
    size_t total, longest;
    const char *name;
};

static enum MHD_Result header_size_iter(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    (void)kind;
    struct hsize *z = cls;
    size_t n = strlen(key) + (value ? strlen(value) : 0);
    z->total += n;
    if (n > z->longest) z->longest = n, z->name = key;
    return MHD_YES;
}

/* Oversized headers: 431 and an audit event. 0 when within the caps. */
static int check_headers(struct mg_http *h, struct MHD_Connection *c, struct req *r, enum MHD_Result *rc)
{
    struct hsize z = {0};
    MHD_get_connection_values(c, MHD_HEADER_KIND, header_size_iter, &z);
    if (z.longest <= MG_HTTP_HEADER_MAX && z.total <= MG_HTTP_HEADERS_MAX) return 0;
    audit_refusal(h, r, "request_refused", MG_E_HEADER_TOO_LARGE, NULL);
    *rc = respond_error(c, r, 431, MG_E_HEADER_TOO_LARGE,
                        "request header fields too large: header '%.64s' is %zu bytes (the limit is %d per header and "
                        "%d in all)",
                        z.name ? z.name : "?", z.longest, MG_HTTP_HEADER_MAX, MG_HTTP_HEADERS_MAX);
    return -1;
}

/* Who is calling: r->who from the bearer token, or the local principal when
 * no token is required and none is given. 0, or -1 with the response queued
 * in *rc (400 token in the query string, 401, 403, 429) and an audit event. */
static int authenticate(struct mg_http *h, struct MHD_Connection *c, struct req *r, bool *required,
                        enum MHD_Result *rc)
{
    struct mg_server *srv = h->srv;
    mg_principal_copy(&r->who, &mg_principal_local);
    *required = false;
    if (r->api == A_HEALTHZ) return 0;
    bool in_query = false;
    MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, q_token_iter, &in_query);
    if (in_query) {
        audit_refusal(h, r, "auth_fail", MG_E_TOKEN_IN_QUERY, NULL);
        *rc = respond_error(c, r, 400, MG_E_TOKEN_IN_QUERY,
                            "bad request: a token in the URL is never accepted (URLs end up in logs and histories); "
                            "send it in the Authorization: Bearer header, and revoke this one (memgate token revoke)");
        return -1;
    }
    struct mg_err err = {0};
    bool any = srv->tokens && mg_tokens_any(srv->tokens);
    if (mg_tokens_required(&srv->cfg, h->loopback, any, required, &err) != 0) {
        *rc = respond_error(c, r, 500, err.code ? err.code : MG_E_INTERNAL, "%s", err.msg);
        return -1;
    }
    const char *auth = header(c, MHD_HTTP_HEADER_AUTHORIZATION);
    if (!auth) {
        if (!*required) return 0;
        audit_refusal(h, r, "auth_fail", MG_E_UNAUTHORIZED, NULL);
        *rc = respond_401(c, r, MG_E_UNAUTHORIZED,
                          "unauthorized: this server needs a token; send Authorization: Bearer <token> (create one "
                          "with `memgate token create --tenant T`)",
                          "Bearer realm=\"memgate\"");
        return -1;
    }
    struct mg_token tok;
    if (strncasecmp(auth, "Bearer ", 7) != 0 || !srv->tokens || mg_tokens_check(srv->tokens, auth + 7, &tok, &err) != 0) {
        const char *code = err.code ? err.code : MG_E_UNAUTHORIZED;
        audit_refusal(h, r, "auth_fail", code, NULL);
        char why[1100];
        snprintf(why, sizeof(why), "unauthorized: %s",
                 err.code ? err.msg : "the Authorization header must be 'Bearer <token>'");
        *rc = respond_401(c, r, code, why, "Bearer realm=\"memgate\", error=\"invalid_token\"");
        return -1;
    }
    struct mg_principal p = {.level = tok.level, .repos = tok.repos, .nrepos = tok.nrepos};
    snprintf(p.tenant, sizeof(p.tenant), "%s", tok.tenant);
    snprintf(p.token_id, sizeof(p.token_id), "%s", tok.id);
    mg_principal_release(&r->who);
    mg_principal_copy(&r->who, &p);
    int retry = 1, rate = tok.rate_per_min;
    bool ok = mg_rate_take(srv->ratelimit, tok.id, rate, &retry);
    mg_token_release(&tok);
    if (!ok) {
        audit_refusal(h, r, "rate_limited", MG_E_RATE_LIMITED, r->who.tenant);
        char ra[16];
        snprintf(ra, sizeof(ra), "%d", retry);
        char why[200];
        snprintf(why, sizeof(why), "too many requests: this token's limit is %d per minute; retry in %d s",
                 rate, retry);
        json_t *j = r->api == A_MCP ? mg_rpc_error(NULL, -32002, why, json_pack("{s:s}", "code", MG_E_RATE_LIMITED))
                                    : json_pack("{s:{s:s, s:s}}", "error", "code", MG_E_RATE_LIMITED, "message", why);
        *rc = respond_json_h(c, r, 429, j, "Retry-After", ra, NULL, NULL);
        return -1;
    }
    if (r->api == A_METRICS && r->who.level < MG_LEVEL_ADMIN) {
        audit_refusal(h, r, "auth_fail", MG_E_SCOPE_FORBIDDEN, r->who.tenant);
        *rc = respond_error(c, r, 403, MG_E_SCOPE_FORBIDDEN, "forbidden: /metrics needs an admin token");
        return -1;
    }
    return 0;
}

static enum MHD_Result dispatch(struct mg_http *h, struct MHD_Connection *c, struct req *r, const char *url,
                                const char *method);

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
    (void)version;
    struct mg_http *h = cls;
    struct req *r = *con_cls;
    if (!r) {
        /* first call: the headers are in, the body is not */
        r = calloc(1, sizeof(*r));
        if (!r) return MHD_NO;
        *con_cls = r;
        r->label = route_label(url, &r->api);
        mg_buf_init(&r->body, h->srv->cfg.http_max_body);
        enum MHD_Result rc;
        bool required;
        if (check_headers(h, c, r, &rc) != 0) return rc;
        if (authenticate(h, c, r, &required, &rc) != 0) return rc;
        if (check_origin(h, c, r, !required, &rc) != 0) return rc;
        const char *cl = header(c, MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (cl) {
            char *end;
            errno = 0;
            unsigned long long n = strtoull(cl, &end, 10);
            if (errno || *end || n > h->srv->cfg.http_max_body)
                return respond_error(c, r, 413, MG_E_BODY_TOO_LARGE,
                                     "request body too large: the limit is %zu bytes (setting http_max_body)",
                                     h->srv->cfg.http_max_body);
        }
        return MHD_YES;
    }
    if (r->answered) {
        *upload_size = 0; /* an early response is queued; drop the rest */
        return MHD_YES;
    }
    if (*upload_size) {
        if (!r->too_large && mg_buf_add(&r->body, upload, *upload_size) != 0) {
            r->too_large = true;
            mg_buf_release(&r->body);
        }
        if (r->too_large) {
            r->discarded += *upload_size;
            if (r->discarded > MG_DISCARD_MAX) return MHD_NO; /* hang up on an endless upload */
        }
        *upload_size = 0;
        return MHD_YES;
    }
    if (r->too_large)
        return respond_error(c, r, 413, MG_E_BODY_TOO_LARGE,
                             "request body too large: the limit is %zu bytes (setting http_max_body)",
                             h->srv->cfg.http_max_body);

    enum MHD_Result rc = dispatch(h, c, r, url, method);
    /* Tools leave per-thread zstd contexts behind (store/content.c); MHD's
     * connection threads end without telling us, so free them after every
     * request (cheap next to a request). */
    mg_content_thread_done();
    return rc;
}

static enum MHD_Result dispatch(struct mg_http *h, struct MHD_Connection *c, struct req *r, const char *url,
                                const char *method)
{
    switch (r->api) {
    case A_MCP:
        if (strcmp(method, "POST") == 0) return mcp_post(h, c, r);
        if (strcmp(method, "GET") == 0) return mcp_get(h, c, r);
        if (strcmp(method, "DELETE") == 0) return mcp_delete(h, c, r);
        return respond_error(c, r, 405, MG_E_METHOD_NOT_ALLOWED,
                             "method %.16s is not allowed on /mcp; use POST, GET or DELETE", method);
    case A_V1: return v1(h, c, r, url, method);
    case A_HEALTHZ:
    case A_METRICS:
        if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
            json_t *j = json_pack("{s:{s:s, s:s}}", "error", "code", MG_E_METHOD_NOT_ALLOWED, "message",
                                  "only GET is allowed here");
            return respond_json_h(c, r, 405, j, "Allow", "GET, HEAD", NULL, NULL);
        }
        return r->api == A_HEALTHZ ? healthz(h, c, r) : metrics(h, c, r);
    default:
        return respond_error(c, r, 404, MG_E_ROUTE_NOT_FOUND,
                             "no route %.200s; memgate serves /mcp, /v1/..., /healthz and /metrics", url);
    }
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)c;
    (void)toe;
    struct req *r = *con_cls;
    if (!r) return;
    mg_buf_release(&r->body);
    mg_principal_release(&r->who);
    free(r);
    *con_cls = NULL;
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
    struct mg_http *h = cls;
    if (!h->srv->verbose) return;
    fputs("memgate serve: libmicrohttpd: ", stderr);
    vfprintf(stderr, fmt, ap);
}

/* ---- 9. start and stop --------------------------------------------------------------- */

struct mg_http *mg_http_start(struct mg_server *srv, const char *addr, struct mg_err *err)
{
    union mg_sa sa;
    socklen_t salen;
    if (parse_listen(addr, &sa, &salen, err) != 0) return NULL;
    bool loopback = sa_loopback(&sa), required;
    if (!loopback && !(srv->tokens && mg_tokens_any(srv->tokens))) {
        mg_err_set(err, MG_E_LISTEN_REFUSED,
                   "refusing to listen on '%s': it is not a loopback address, and serving other hosts needs access "
                   "tokens; create one first (memgate token create --tenant T), or listen on 127.0.0.1 or [::1]",
                   addr);
        return NULL;
    }
    if (mg_tokens_required(&srv->cfg, loopback, srv->tokens && mg_tokens_any(srv->tokens), &required, err) != 0)
        return NULL;
    int fd = socket(sa.sa.sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        mg_err_set(err, MG_E_LISTEN_FAILED, "cannot create a socket for '%s': %s", addr, strerror(errno));
        return NULL;
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (sa.sa.sa_family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
    if (bind(fd, &sa.sa, salen) != 0 || listen(fd, 128) != 0) {
        int e = errno;
        close(fd);
        mg_err_set(err, MG_E_LISTEN_FAILED, "cannot listen on '%s': %s%s", addr, strerror(e),
                   e == EADDRINUSE ? "; another program (another memgate serve?) has the port: choose another with "
                                     "--listen or the listen setting"
                                   : "");
        return NULL;
    }
    union mg_sa bound;
    socklen_t blen = sizeof(bound);
    getsockname(fd, &bound.sa, &blen);

    struct mg_http *h = calloc(1, sizeof(*h));
    if (!h) {
        close(fd);
        mg_err_set(err, MG_E_NO_MEMORY, "out of memory starting the HTTP server");
        return NULL;
    }
    h->srv = srv;
    h->loopback = loopback;
    h->port = ntohs(bound.sa.sa_family == AF_INET ? bound.in4.sin_port : bound.in6.sin6_port);
    atomic_init(&h->stopping, false);
    pthread_mutex_init(&h->mu, NULL);
    pthread_cond_init(&h->cv, NULL);

    unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL |
                     MHD_USE_ERROR_LOG | (sa.sa.sa_family == AF_INET6 ? MHD_USE_IPv6 : 0);
    h->d = MHD_start_daemon(flags, 0, NULL, NULL, on_request, h,
                            MHD_OPTION_LISTEN_SOCKET, fd,
                            MHD_OPTION_CONNECTION_LIMIT, (unsigned)MG_HTTP_CONN_LIMIT,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)MG_HTTP_CONN_MEMORY,
                            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)MG_HTTP_IDLE_TIMEOUT_S,
                            MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
                            MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, h,
                            MHD_OPTION_END);
    if (!h->d) {
        close(fd);
        pthread_mutex_destroy(&h->mu);
        pthread_cond_destroy(&h->cv);
        free(h);
        mg_err_set(err, MG_E_LISTEN_FAILED, "cannot start the HTTP server on '%s' (libmicrohttpd failed: %s)", addr,
                   strerror(errno));
        return NULL;
    }
    return h;
}

int mg_http_port(const struct mg_http *h) { return h->port; }

void mg_http_stop(struct mg_http *h)
{
    if (!h) return;
    atomic_store(&h->stopping, true);
    /* wake every stream, and every worker waiting on its client */
    size_t n = 0, cap = 0;
    char (*sids)[MG_SID_MAX + 1] = NULL;
    pthread_mutex_lock(&h->mu);
    for (struct sse *s = h->streams; s; s = s->next) {
        pthread_mutex_lock(&s->mu);
        s->ended = true;
        pthread_cond_broadcast(&s->cv);
        bool worker = s->session != NULL;
        pthread_mutex_unlock(&s->mu);
        if (!worker) continue;
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 16;
            void *p = realloc(sids, nc * sizeof(*sids));
            if (!p) continue;
            sids = p;
            cap = nc;
        }
        memcpy(sids[n++], s->sid, sizeof(sids[0]));
    }
    pthread_mutex_unlock(&h->mu);
    for (size_t i = 0; i < n; i++) {
        enum mg_lookup how;
        struct mg_session *s = mg_sessions_get(h->srv->sessions, sids[i], &how);
        if (!s) continue;
        mg_rpc_cancel_pending(s);
        mg_session_put(h->srv->sessions, s);
    }
    free(sids);
    /* Let the connections send the end of their streams (the last chunk)
     * before the daemon shuts their sockets: up to 2 s. */
    for (int i = 0; i < 200; i++) {
        bool open = false;
        pthread_mutex_lock(&h->mu);
        for (struct sse *s = h->streams; s && !open; s = s->next) {
            pthread_mutex_lock(&s->mu);
            open = !s->gone;
            pthread_mutex_unlock(&s->mu);
        }
        pthread_mutex_unlock(&h->mu);
        if (!open) break;
        usleep(10000);
    }
    MHD_stop_daemon(h->d); /* joins the connection threads */
    pthread_mutex_lock(&h->mu);
    while (h->workers > 0) pthread_cond_wait(&h->cv, &h->mu);
    pthread_mutex_unlock(&h->mu);
    pthread_mutex_destroy(&h->mu);
    pthread_cond_destroy(&h->cv);
    free(h);
}
