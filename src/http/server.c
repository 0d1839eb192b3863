/* server.c — `memgate serve`'s daemon (http.h): the listen address, routes,
 * /healthz, /readyz and /metrics, the life of one request, start and stop.
 *
 * Sections:
 *   1. listen address
 *   2. routes
 *   3. /healthz, /metrics, each request
 *   4. the access log
 *   5. start, drain and stop
 */
#include "http/internal.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "hook/hook.h"
#include "mcp/conn.h"
#include "oauth/as.h"
#include "oauth/oauth.h"
#include "request/gate.h"
#include "request/storage.h"
#include "security/token.h"
#include "util/accesslog.h"
#include "util/json.h"
#include "util/metrics.h"
#include "util/version.h"

/* ---- 1. listen address --------------------------------------------------------------- */

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

/* ---- 2. routes ---------------------------------------------------------------------- */

static const char *route_label(const char *url, enum api *api)
{
    static const char *const v1[] = {"/v1/repos",   "/v1/search",     "/v1/symbols", "/v1/files",
                                     "/v1/file",    "/v1/outline",    "/v1/scope",   "/v1/index",
                                     "/v1/audit",   "/v1/references", "/v1/callers", "/v1/callees",
                                     "/v1/trace", "/v1/impact", "/v1/repo_map", "/v1/dashboard"};
    static const char *const mem[] = {"/v1/notes", "/v1/projects", "/v1/episodes", "/v1/entities", "/v1/profiles",
                                      "/v1/context"};
    *api = A_NONE;
    if (strcmp(url, "/mcp") == 0) return *api = A_MCP, "/mcp";
    if (strcmp(url, "/healthz") == 0) return *api = A_HEALTHZ, "/healthz";
    if (strcmp(url, "/readyz") == 0) return *api = A_READYZ, "/readyz";
    if (strcmp(url, "/metrics") == 0) return *api = A_METRICS, "/metrics";
    if (mg__dash_path(url)) return *api = A_DASH, "/";
    if (strncmp(url, MG_OAUTH_METADATA_PATH, strlen(MG_OAUTH_METADATA_PATH)) == 0)
        return *api = A_OAUTH_META, MG_OAUTH_METADATA_PATH;
    if (mg__oauth_as_path(url)) return *api = A_OAUTH_AS, "/oauth";
    /* exactly this path: a webhook skips token authentication, nothing else may */
    if (strcmp(url, "/v1/hooks/git") == 0) return *api = A_HOOK, "/v1/hooks/git";
    if (strncmp(url, "/v1/", 4) == 0) {
        *api = A_V1;
        if (strcmp(url, "/v1/index/status") == 0) return "/v1/index";
        if (strncmp(url, "/v1/repos/", 10) == 0) return "/v1/repos"; /* a repo's settings and stats */
        if (strcmp(url, "/v1/dashboard/history") == 0) return "/v1/dashboard";
        for (size_t i = 0; i < sizeof(v1) / sizeof(v1[0]); i++)
            if (strcmp(url, v1[i]) == 0) return v1[i];
        for (size_t i = 0; i < sizeof(mem) / sizeof(mem[0]); i++) {
            size_t n = strlen(mem[i]);
            if (strncmp(url, mem[i], n) == 0 && (url[n] == 0 || url[n] == '/')) return mem[i];
        }
    }
    return "other";
}

/* ---- 3. /healthz, /metrics, each request ------------------------------------------------ */

static enum MHD_Result healthz(struct mg_http *h, struct MHD_Connection *c, struct req *r)
{
    json_t *j = json_pack("{s:s, s:s, s:I}", "status", "ok", "version", MG_VERSION, "sessions",
                          (json_int_t)mg_sessions_count(h->srv->sessions));
    return mg__respond_json(c, r, 200, j);
}

/* Ready: not stopping, the audit log open, the catalog directory readable
 * (absent is fine: no repo indexed yet), and with storage = postgres://...
 * the database answering (request/storage.h: pinged at most once a second).
 * Else 503 with the reason. */
static enum MHD_Result readyz(struct mg_http *h, struct MHD_Connection *c, struct req *r)
{
    char reason[256] = "";
    struct mg_storage_state st = {.up = true};
    if (h->srv->storage) mg_storage_check(h->srv->storage, &st);
    if (atomic_load(&h->stopping) || atomic_load(&h->draining) || h->srv->stopping) {
        snprintf(reason, sizeof(reason), "stopping");
    } else if (!st.up) {
        /* the code as the reason; the sentence stays on stderr (this route takes no token: no URL here) */
        json_t *j = json_pack("{s:b, s:s, s:s}", "ready", 0, "reason", st.code, "message",
                              strcmp(st.code, MG_E_STORAGE_UNAVAILABLE) == 0
                                  ? "the shared PostgreSQL database cannot be reached; memgate reconnects by itself"
                                  : "the shared PostgreSQL database cannot be used; see the daemon's log");
        return mg__respond_json_h(c, r, 503, j, "Retry-After", MG_RETRY_AFTER_S, NULL, NULL);
    } else if (!h->srv->audit) {
        snprintf(reason, sizeof(reason), "the audit log is not open");
    } else {
        /* (no path in the reason: the route takes no token) */
        char dir[PATH_MAX];
        struct mg_err err = {0};
        if (mg_catalog_dir(&h->srv->cfg, 0, dir, sizeof(dir), &err) != 0) {
            snprintf(reason, sizeof(reason), "the catalog is unreadable");
        } else {
            DIR *d = opendir(dir);
            if (d) closedir(d);
            else if (errno != ENOENT)
                snprintf(reason, sizeof(reason), "the catalog is unreadable: %s", strerror(errno));
        }
    }
    if (reason[0]) {
        json_t *j = json_pack("{s:b, s:s}", "ready", 0, "reason", reason);
        return mg__respond_json_h(c, r, 503, j, "Retry-After", "1", NULL, NULL);
    }
    json_t *j = json_pack("{s:b, s:s, s:I}", "ready", 1, "version", MG_VERSION, "sessions",
                          (json_int_t)mg_sessions_count(h->srv->sessions));
    return mg__respond_json(c, r, 200, j);
}

static enum MHD_Result metrics(struct mg_http *h, struct MHD_Connection *c, struct req *r)
{
    struct mg_buf b;
    mg_buf_init(&b, 16u << 20);
    struct mg_gauges g = {.sessions = mg_sessions_count(h->srv->sessions),
                          .instances = mg_sessions_instances(h->srv->sessions)};
    if (h->srv->storage) {
        struct mg_storage_state st;
        mg_storage_check(h->srv->storage, &st);
        g.storage = 1;
        g.storage_up = st.up;
        g.storage_open = st.open;
        g.storage_busy = st.busy;
        g.storage_max = st.max;
    }
    struct mg_admit_stats reads;
    if (h->srv->reads) {
        mg_admit_stats(h->srv->reads, &reads);
        g.reads = &reads;
    }
    if (mg_metrics_render(&b, &g) != 0 || mg__repo_metrics(h, r, &b) != 0) {
        mg_buf_release(&b);
        return mg__respond_error(c, r, 500, MG_E_NO_MEMORY, "out of memory rendering the metrics");
    }
    size_t len;
    char *text = mg_buf_detach(&b, &len);
    return mg__respond(c, r, 200, "text/plain; version=0.0.4; charset=utf-8", text, text ? len : 0, NULL);
}

static enum MHD_Result dispatch(struct mg_http *h, struct MHD_Connection *c, struct req *r, const char *url,
                                const char *method);

/* The most a request's body may hold: webhooks have a smaller cap of their own. */
static size_t body_cap(const struct mg_http *h, const struct req *r)
{
    size_t cap = h->srv->cfg.http_max_body;
    return r->api == A_HOOK && cap > MG_HOOK_BODY_MAX ? MG_HOOK_BODY_MAX : cap;
}

static enum MHD_Result too_large(struct mg_http *h, struct MHD_Connection *c, struct req *r)
{
    if (r->api == A_HOOK)
        return mg__respond_error(c, r, 413, MG_E_BODY_TOO_LARGE,
                                 "webhook body too large: the limit is %zu bytes; a later push re-indexes the "
                                 "repo all the same", body_cap(h, r));
    return mg__respond_error(c, r, 413, MG_E_BODY_TOO_LARGE,
                             "request body too large: the limit is %zu bytes (setting http_max_body)",
                             h->srv->cfg.http_max_body);
}

/* The request's id: the client's X-Request-Id when it is 1-64 characters of
 * [A-Za-z0-9._:-] and holds no secret, else 16 random hex digits. The id
 * goes into the audit log, the access log and the answer's header, so a
 * token a client put there (by mistake or to plant it) is never kept
 * (issue 38, V8). */
static void request_id(struct mg_http *h, struct MHD_Connection *c, struct req *r)
{
    const char *v = mg__header(c, "X-Request-Id");
    size_t n = v ? strlen(v) : 0;
    bool ok = n >= 1 && n <= MG_REQUEST_ID_MAX;
    for (size_t i = 0; ok && i < n; i++) {
        char ch = v[i];
        ok = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '.' ||
             ch == '_' || ch == ':' || ch == '-';
    }
    struct mg_err err = {0};
    if (ok && mg_gate_identifier(&h->srv->cfg, "X-Request-Id", v, &err) == 0) {
        memcpy(r->rid, v, n + 1);
        return;
    }
    unsigned char b[8];
    randombytes_buf(b, sizeof(b));
    sodium_bin2hex(r->rid, sizeof(r->rid), b, sizeof(b));
}

/* The method as a static string: a known one, else "other" (the log names no
 * string a client made up). */
static const char *method_label(const char *m)
{
    static const char *const known[] = {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"};
    for (size_t i = 0; m && i < sizeof(known) / sizeof(known[0]); i++)
        if (strcmp(m, known[i]) == 0) return known[i];
    return "other";
}

static struct req *new_req(struct mg_http *h, struct MHD_Connection *c)
{
    struct req *r = calloc(1, sizeof(*r));
    if (!r) return NULL;
    r->h = h;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    r->t0_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    r->method = "-";
    atomic_fetch_add(&h->active, 1);
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    const struct sockaddr *sa = ci ? ci->client_addr : NULL;
    if (!sa || getnameinfo(sa, sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in),
                           r->from, sizeof(r->from), NULL, 0, NI_NUMERICHOST) != 0)
        r->from[0] = 0;
    return r;
}

/* The request line is in: its request exists from here, so that one
 * libmicrohttpd refuses before on_request (headers it cannot read) is seen
 * by on_completed. */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
    (void)uri;
    return new_req(cls, c);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
    (void)version;
    struct mg_http *h = cls;
    struct req *r = *con_cls;
    if (!r && !(r = *con_cls = new_req(h, c))) return MHD_NO;
    if (!r->started) {
        /* first call: the headers are in, the body is not */
        r->started = true;
        MHD_set_connection_option(c, MHD_CONNECTION_OPTION_TIMEOUT, (unsigned)MG_HTTP_IDLE_TIMEOUT_S);
        request_id(h, c, r);
        mg_request_id_set(r->rid); /* for the audit events of what this thread does for it */
        r->label = route_label(url, &r->api);
        r->method = method_label(method);
        mg_buf_init(&r->body, body_cap(h, r));
        enum MHD_Result rc;
        bool required = false;
        if (mg__check_headers(h, c, r, &rc) != 0) return rc;
        /* a webhook proves itself by its signature, not a token: it runs with
         * no principal (level 0, no tenant), and reaches only mg__hook */
        if (r->api != A_HOOK && mg__authenticate(h, c, r, &required, &rc) != 0) return rc;
        /* (nor does DNS rebinding give a page anything there without the secret:
         * the Host of a forge's delivery through a proxy is the proxy's name) */
        if (r->api == A_OAUTH_AS || r->api == A_OAUTH_META) mg__oauth_cors(h, c, r, url);
        if (mg__check_origin(h, c, r, r->api != A_HOOK && !required, &rc) != 0) return rc;
        const char *cl = mg__header(c, MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (cl) {
            char *end;
            errno = 0;
            unsigned long long n = strtoull(cl, &end, 10);
            if (errno || *end || n > body_cap(h, r)) return too_large(h, c, r);
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
    if (r->too_large) return too_large(h, c, r);

    /* (what requests leave on this connection's thread is freed when the
     * thread ends: store/content.c) */
    return dispatch(h, c, r, url, method);
}

static enum MHD_Result dispatch(struct mg_http *h, struct MHD_Connection *c, struct req *r, const char *url,
                                const char *method)
{
    switch (r->api) {
    case A_MCP:
        if (strcmp(method, "POST") == 0) return mg__mcp_post(h, c, r);
        if (strcmp(method, "GET") == 0) return mg__mcp_get(h, c, r);
        if (strcmp(method, "DELETE") == 0) return mg__mcp_delete(h, c, r);
        return mg__respond_error(c, r, 405, MG_E_METHOD_NOT_ALLOWED,
                             "method %.16s is not allowed on /mcp; use POST, GET or DELETE", method);
    case A_V1: return mg__v1(h, c, r, url, method);
    case A_DASH: return mg__dash_static(h, c, r, url, method);
    case A_HOOK: return mg__hook(h, c, r, method);
    case A_OAUTH_META: return mg__oauth_metadata(h, c, r, url, method);
    case A_OAUTH_AS: return mg__oauth_as(h, c, r, url, method);
    case A_HEALTHZ:
    case A_READYZ:
    case A_METRICS:
        if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
            json_t *j = json_pack("{s:{s:s, s:s}}", "error", "code", MG_E_METHOD_NOT_ALLOWED, "message",
                                  "only GET is allowed here");
            return mg__respond_json_h(c, r, 405, j, "Allow", "GET, HEAD", NULL, NULL);
        }
        return r->api == A_HEALTHZ ? healthz(h, c, r) : r->api == A_READYZ ? readyz(h, c, r) : metrics(h, c, r);
    default:
        return mg__respond_error(c, r, 404, MG_E_ROUTE_NOT_FOUND,
                             "no route %.200s; memgate serves /mcp, /v1/..., /healthz, /readyz, /metrics and the "
                             "dashboard at /", url);
    }
}

/* ---- 4. the access log ------------------------------------------------------------------ */

/* One JSON line for r (util/accesslog.h): when, which request, who, what
 * route or tool on which repo, how it ended, how long, how many bytes. Never
 * a header, a token, a body or a query string. */
static void access_line(const struct req *r, double seconds, enum MHD_RequestTerminationCode toe)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    struct tm tm;
    gmtime_r(&now.tv_sec, &tm);
    char when[40];
    snprintf(when, sizeof(when), "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, now.tv_nsec / 1000000);
    json_t *j = json_pack("{s:s, s:s, s:s, s:s}", "time", when, "request_id", r->rid, "method", r->method,
                          "route", r->label ? r->label : "other");
    if (!j) return;
    if (r->who.tenant[0]) json_object_set_new(j, "tenant", mg_json_text(r->who.tenant));
    if (r->tool[0]) json_object_set_new(j, "tool", mg_json_text(r->tool));
    if (r->repo[0]) json_object_set_new(j, "repo", mg_json_text(r->repo));
    json_object_set_new(j, "status", json_integer(r->status));
    const char *err = r->err[0] ? r->err : NULL;
    if (!err && toe != MHD_REQUEST_TERMINATED_COMPLETED_OK)
        err = toe == MHD_REQUEST_TERMINATED_TIMEOUT_REACHED ? "timeout"
              : toe == MHD_REQUEST_TERMINATED_CLIENT_ABORT  ? "client_abort"
              : toe == MHD_REQUEST_TERMINATED_DAEMON_SHUTDOWN ? "server_stopped"
                                                               : "connection_error";
    if (err) json_object_set_new(j, "error", mg_json_text(err));
    json_object_set_new(j, "duration_ms", json_real((double)(long long)(seconds * 1e6) / 1e3)); /* to the µs */
    json_object_set_new(j, "bytes", json_integer((json_int_t)r->bytes));
    char *line = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(12));
    json_decref(j);
    if (line) mg_access_log_write(line, strlen(line));
    free(line);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe)
{
    struct mg_http *h = cls;
    (void)c;
    struct req *r = *con_cls;
    mg_request_id_set(NULL);
    if (!r) return;
    if (!r->started && toe == MHD_REQUEST_TERMINATED_WITH_ERROR) {
        r->label = "other";
        mg__refused(r, "request_refused", MG_E_REQUEST_MALFORMED); /* libmicrohttpd answered 400 or 431 itself */
    }
    bool get_stream = false;
    if (r->stream) {
        struct sse *s = r->stream;
        pthread_mutex_lock(&s->mu);
        r->bytes = s->sent;
        if (!r->err[0]) memcpy(r->err, s->err, sizeof(r->err));
        get_stream = s->get;
        pthread_mutex_unlock(&s->mu);
        mg__sse_unref(s);
        r->stream = NULL;
    }
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double seconds = (double)((int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec - r->t0_ns) / 1e9;
    if (r->started && !get_stream) mg_metrics_http_time(r->label, seconds);
    if (r->started && mg_access_log_on()) access_line(r, seconds, toe);
    mg_buf_release(&r->body);
    mg_principal_release(&r->who);
    free(r);
    *con_cls = NULL;
    atomic_fetch_sub(&h->active, 1);
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
    struct mg_http *h = cls;
    if (!h->srv->verbose) return;
    fputs("memgate serve: libmicrohttpd: ", stderr);
    vfprintf(stderr, fmt, ap);
}

/* ---- 5. start, drain and stop --------------------------------------------------------------- */

struct mg_http *mg_http_start(struct mg_server *srv, const char *addr, struct mg_err *err)
{
    union mg_sa sa;
    socklen_t salen;
    if (parse_listen(addr, &sa, &salen, err) != 0) return NULL;
    bool loopback = sa_loopback(&sa), required;
    bool any = (srv->tokens && mg_tokens_any(srv->tokens)) || srv->cfg.oauth_issuer[0]; /* OAuth: tokens too */
    if (!loopback && !any) {
        mg_err_set(err, MG_E_LISTEN_REFUSED,
                   "refusing to listen on '%s': it is not a loopback address, and serving other hosts needs access "
                   "tokens; create one first (memgate token create --tenant T), or listen on 127.0.0.1 or [::1]",
                   addr);
        return NULL;
    }
    if (mg_tokens_required(&srv->cfg, loopback, any, &required, err) != 0)
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
    if (mg_oauth_new(&srv->cfg, &h->oauth, err) != 0 || mg_as_open(&srv->cfg, &h->as, err) != 0 ||
        (h->as && mg_oauth_pin_keys(h->oauth, mg_as_jwks(h->as), mg__oauth_as_revoked, h->as, err) != 0) ||
        mg__hooks_open(h, err) != 0) {
        close(fd);
        mg_as_close(&h->as);
        mg_oauth_free(&h->oauth);
        free(h);
        return NULL;
    }
    h->loopback = loopback;
    const char *delay = getenv("MEMGATE_TEST_V1_DELAY_MS");
    h->test_v1_delay_ms = delay ? atoi(delay) : 0;
    h->port = ntohs(bound.sa.sa_family == AF_INET ? bound.in4.sin_port : bound.in6.sin6_port);
    atomic_init(&h->stopping, false);
    atomic_init(&h->draining, false);
    atomic_init(&h->active, 0);
    pthread_mutex_init(&h->mu, NULL);
    pthread_cond_init(&h->cv, NULL);
    pthread_cond_init(&h->work_cv, NULL);

    unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL |
                     MHD_USE_ERROR_LOG | MHD_USE_ITC /* for MHD_quiesce_daemon */ | (sa.sa.sa_family == AF_INET6 ? MHD_USE_IPv6 : 0);
    /* a flood from one address takes at most http_max_per_address of the connections (issue 38 V5; 0: no
     * cap): counted and refused by accept.c, each refusal audited */
    h->conns = mg__conns_new((unsigned)srv->cfg.http_max_per_address);
    h->d = !h->conns ? NULL : MHD_start_daemon(flags, 0, mg__on_accept, h, on_request, h,
                            MHD_OPTION_LISTEN_SOCKET, fd,
                            MHD_OPTION_CONNECTION_LIMIT, (unsigned)MG_HTTP_CONN_LIMIT,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)MG_HTTP_CONN_MEMORY,
                            MHD_OPTION_NOTIFY_CONNECTION, mg__on_connection, h,
                            /* the header deadline; on_request gives a connection the idle timeout once its first
                             * request's headers are in */
                            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)MG_HTTP_HEADER_DEADLINE_S,
                            MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
                            MHD_OPTION_URI_LOG_CALLBACK, on_uri, h,
                            MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, h,
                            MHD_OPTION_END);
    if (!h->d) {
        close(fd);
        mg__conns_free(h->conns);
        mg__hooks_close(h);
        mg_as_close(&h->as);
        mg_oauth_free(&h->oauth);
        pthread_mutex_destroy(&h->mu);
        pthread_cond_destroy(&h->cv);
        pthread_cond_destroy(&h->work_cv);
        free(h);
        mg_err_set(err, MG_E_LISTEN_FAILED, "cannot start the HTTP server on '%s' (libmicrohttpd failed: %s)", addr,
                   strerror(errno));
        return NULL;
    }
    struct mg_err herr = {0};
    if (mg__history_start(h, &herr) != 0) /* the server runs on; the dashboard draws no charts */
        fprintf(stderr, "memgate: warning: %s (%s); the dashboard will draw no charts\n", herr.msg, herr.code);
    return h;
}

int mg_http_port(const struct mg_http *h) { return h->port; }

/* Requests under way that a drain waits for: all but the streams that only
 * wait for the server's messages, GET /mcp and subscriptions/listen (they end
 * at mg_http_stop). */
static int busy(struct mg_http *h)
{
    int n = atomic_load(&h->active);
    pthread_mutex_lock(&h->mu);
    for (struct sse *s = h->streams; s; s = s->next) {
        pthread_mutex_lock(&s->mu);
        if (s->waits && !s->gone) n--;
        pthread_mutex_unlock(&s->mu);
    }
    pthread_mutex_unlock(&h->mu);
    return n;
}

int mg_http_quiesce(struct mg_http *h)
{
    atomic_store(&h->draining, true);
    h->drain_start = busy(h);
    /* no new connection from here; those open may still send requests */
    MHD_socket fd = MHD_quiesce_daemon(h->d);
    if (fd != MHD_INVALID_SOCKET) close(fd); /* quiesced: ours to close */
    return h->drain_start;
}

void mg_http_drain(struct mg_http *h, int grace_ms, bool (*interrupted)(void *ud), void *ud, int *drained,
                   int *left)
{
    if (!atomic_load(&h->draining)) mg_http_quiesce(h);
    int at_start = h->drain_start;
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int n;
    while ((n = busy(h)) > 0) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000 >= grace_ms) break;
        if (interrupted && interrupted(ud)) break;
        usleep(20000);
    }
    *left = n > 0 ? n : 0;
    *drained = at_start > *left ? at_start - *left : 0;
}

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
        mg_mcp_conn_cancel(mg_mcp_conn_of(s));
        mg_session_unref(&s);
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
    MHD_stop_daemon(h->d); /* joins the connection threads (and closes the listening socket unless quiesced) */
    mg__history_stop(h);
    mg__hooks_close(h); /* no delivery comes in now; runs under way end at their next file */
    mg_session_unref(&h->metrics_session);
    pthread_mutex_lock(&h->mu);
    while (h->workers > 0) pthread_cond_wait(&h->cv, &h->mu);
    h->quit = true; /* the idle worker threads end */
    pthread_cond_broadcast(&h->work_cv);
    while (h->threads > 0) pthread_cond_wait(&h->cv, &h->mu);
    pthread_mutex_unlock(&h->mu);
    pthread_mutex_destroy(&h->mu);
    pthread_cond_destroy(&h->cv);
    pthread_cond_destroy(&h->work_cv);
    mg_as_close(&h->as);
    mg_oauth_free(&h->oauth);
    mg__conns_free(h->conns); /* MHD_stop_daemon closed every connection: nothing counts in it now */
    free(h);
}
