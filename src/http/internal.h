/* internal.h — what the files of `memgate serve` share (src/http/ only).
 *
 *   server.c   the daemon: listen, route, start and stop (http.h)
 *   auth.c     headers, Host/Origin (DNS rebinding), bearer tokens, rate limits
 *   respond.c  reading request headers, writing plain and JSON responses
 *   sse.c      SSE streams: a queue of events drained by an MHD content reader
 *   mcp.c      /mcp: MCP Streamable HTTP (POST, GET, DELETE)
 *   api.c      /v1: the HTTP API over the tools
 *   repometrics.c  /metrics' per-repo gauges
 *   dash.c     the dashboard: its page at /, its data at /v1/dashboard
 *   history.c  the dashboard's charts: a sampler thread, /v1/dashboard/history
 *   hook.c     /v1/hooks/git: push webhooks (hook/hook.h), signed, not token-authenticated
 *   hook_run.c the re-index runs pushes start, in the background
 *   oauth.c    OAuth 2.1: protected resource metadata, the Bearer challenge (src/oauth/)
 *   oauth_as.c the built-in authorization server's endpoints and consent page (src/oauth/as.h)
 *   accept.c   connections per client address: the cap, its refusals audited
 *
 * Sections: the limits, struct mg_http and struct req; then one per file
 * above, each opening with its `---- FILE ----` marker.
 *
 * Threading: MHD runs one thread per connection, so a handler may block (a
 * long tool call, an SSE stream waiting for its next event) without stalling
 * other clients. A POST answered as an SSE stream runs the MCP message on a
 * worker thread whose messages are queued as SSE events; the connection's
 * thread drains the queue from MHD's content reader, sending a comment every
 * MG_SSE_KEEPALIVE_MS while nothing happens (which also notices a client that
 * went away). Streams are reference counted between the worker and MHD's
 * response; MHD's free callback drops its reference when the client is gone.
 */
#ifndef MG_HTTP_INTERNAL_H
#define MG_HTTP_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>
#include <microhttpd.h>

#include "http/http.h"
#include "mcp/rpc.h"
#include "request/ctx.h"
#include "security/access.h"
#include "util/buf.h"

#define MG_HTTP_CONN_LIMIT 1024      /* concurrent connections (each a thread) */
#define MG_HTTP_HEADER_MAX (8 << 10)  /* longest header value we read; longer: 431 */
#define MG_HTTP_HEADERS_MAX (64 << 10) /* all headers together; longer: 431 */
#define MG_HTTP_CONN_MEMORY (128 << 10) /* libmicrohttpd's per-connection pool: big enough that oversized
                                         * headers reach our check (and its audit event), not its own 431 */
#define MG_HTTP_IDLE_TIMEOUT_S 60    /* a connection idle this long is closed */
#define MG_HTTP_HEADER_DEADLINE_S 10 /* until a request's headers are in, a connection idle this long is closed; once
                                      * they are, MG_HTTP_IDLE_TIMEOUT_S */
#define MG_SSE_KEEPALIVE_MS 15000    /* a comment on an idle SSE stream this often */
#define MG_SSE_RETRY_MS 3000         /* the `retry:` a 2025-11-25 client gets in the priming event */
#define MG_SSE_QUEUE_MAX (256u << 20) /* bytes of events waiting to be sent on one stream */
#define MG_DISCARD_MAX (64u << 20)   /* an over-cap chunked upload is read and dropped up to this */

struct sse;

struct mg_http {
    struct MHD_Daemon *d;
    struct mg_server *srv;
    int port;
    bool loopback;         /* bound to a loopback address: Host must name loopback */
    int test_v1_delay_ms;  /* MEMGATE_TEST_V1_DELAY_MS, read once at start (a test seam, docs/config.md) */
    atomic_bool stopping;
    atomic_bool draining;  /* SIGTERM: /readyz says stopping; requests in flight go on (mg_http_drain) */
    atomic_int active;     /* requests between their first line and their completion */
    int drain_start;       /* requests under way when the drain began (main thread only) */
    pthread_mutex_t mu;    /* guards the fields below */
    pthread_cond_t cv;     /* signalled when a job or a worker thread ends */
    struct sse *streams;   /* live SSE streams */
    /* POST streams' jobs run on worker threads that stay for more
     * (MG_WORKER_IDLE_S) rather than one thread made per call (mcp.c) */
    pthread_cond_t work_cv; /* a job is queued, or the server stops */
    struct sse *jobs, *jobs_tail; /* queued, not yet taken */
    int njobs;             /* ... how many */
    int workers;           /* jobs queued or running */
    int threads;           /* worker threads alive ... */
    int idle;              /* ... of which waiting for a job */
    bool quit;             /* the workers end once the queue is empty */
    uint64_t next_stream;
    struct mg_session *metrics_session; /* /metrics' per-repo gauges run in it (repometrics.c) */
    struct mg_hooks *hooks; /* push webhooks; NULL while webhook_secret is empty */
    struct mg_oauth *oauth; /* OAuth 2.1 access tokens (oauth/oauth.h); NULL while oauth_issuer is empty */
    struct mg_as *as;       /* the built-in authorization server (oauth/as.h); NULL while oauth_server is off */
    /* the dashboard's history sampler (history.c); hist_quit under mu */
    pthread_t hist_thread;
    pthread_cond_t hist_cv;
    bool hist_started, hist_quit;
    int hist_interval_ms;
    struct mg__conns *conns; /* connections open per client address (accept.c) */
};

enum api { A_NONE, A_MCP, A_V1, A_HEALTHZ, A_READYZ, A_METRICS, A_HOOK, A_DASH, A_OAUTH_META, A_OAUTH_AS };

/* One HTTP request, from its headers to its completion. */
struct req {
    struct mg_http *h;
    char from[64];         /* the client's address */
    bool started;          /* on_request has seen it (its headers were read) */
    bool audited;          /* its audit event is written: a refusal's, or its request context's */
    enum api api;
    const char *label;     /* the metrics route label */
    struct mg_buf body;
    size_t discarded;      /* bytes dropped after the body passed the cap */
    bool too_large;
    bool answered;         /* a response is queued */
    struct mg_principal who; /* the caller (owned copy): from the bearer token, or the local principal */
    char rid[MG_REQUEST_ID_MAX + 1]; /* X-Request-Id: the client's when valid, else random; on every response */
    /* for the access log and the latency histograms (server.c) */
    int64_t t0_ns;         /* CLOCK_MONOTONIC at its first line */
    const char *method;    /* a static copy of the method when it is a known one, else "other" */
    int status;            /* of the response queued, 0 none */
    size_t bytes;          /* of its body (a stream's: what was handed to libmicrohttpd) */
    char err[48];          /* the error code it answered with, "" none */
    char tool[48];         /* the tool it ran (MCP tools/call, a /v1 tool route), "" none */
    char repo[128];        /* the repo it named (an argument, X-Memgate-Repo), "" none */
    struct sse *stream;    /* its SSE stream (one reference), or NULL */
    char cors[256];        /* the Origin its answer allows (Access-Control-Allow-Origin; OAuth's public
                            * endpoints, oauth_cors_origins: oauth_as.c), "" none */
};

/* ---- server.c ---- */
/* The tool and repo r names, for the access log (either may be NULL; cut to fit). */
void mg__req_note(struct req *r, const char *tool, const char *repo);

/* ---- respond.c ---- */
const char *mg__header(struct MHD_Connection *c, const char *name);
bool mg__accepts(const char *accept, const char *type);
bool mg__is_json_type(const char *ct);
/* Queue `text` (malloc'd, taken) with status; headers are name, value pairs
 * ending with NULL. */
enum MHD_Result mg__respond(struct MHD_Connection *c, struct req *r, int status, const char *ctype, char *text,
                            size_t len, ...);
/* Does an error of this code tell the client to come back later (the shared
 * database is down, or a transaction lost to another: storage_unavailable,
 * storage_retry)? Their 503s carry Retry-After: MG_RETRY_AFTER_S. */
#define MG_RETRY_AFTER_S "1"
bool mg__retry_later(const char *code);
/* JSON body (j taken), with up to two extra headers (NULL to leave out); a
 * 503 of a mg__retry_later code gets Retry-After too. */
enum MHD_Result mg__respond_json_h(struct MHD_Connection *c, struct req *r, int status, json_t *j, const char *h1,
                                   const char *v1, const char *h2, const char *v2);
enum MHD_Result mg__respond_json(struct MHD_Connection *c, struct req *r, int status, json_t *j);
/* {"error":{"code","message"}} for the API routes; a JSON-RPC error with id
 * null for /mcp (data.code carries the memgate code). */
enum MHD_Result mg__respond_error(struct MHD_Connection *c, struct req *r, int status, const char *code,
                                  const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Audit r's refusal (once per request; mg_gate_refusal folds floods): op,
 * code, the route and the client's address; the tenant when authenticated.
 * An error answer no tool call audited is audited here. */
void mg__refused(struct req *r, const char *op, const char *code);

/* ---- repometrics.c ---- */
/* Append the per-repo gauges of the repos r's caller can see. 0, or -1 out of memory. */
int mg__repo_metrics(struct mg_http *h, struct req *r, struct mg_buf *b);
/* The gated stats items (mg_repo_stats) of every repo who can see, read in
 * the scrape session without an audit event. 0, or -1 with err. */
int mg__visible_repo_stats(struct mg_http *h, const struct mg_principal *who, struct mg_items *items,
                           struct mg_err *err);

/* ---- dash.c ---- */
/* Is url one of the dashboard's files (/, /index.html, /dash.js, /dash.css, /favicon.ico)? */
bool mg__dash_path(const char *url);
/* Serve one of them (r->api A_DASH: no token; it holds no data). */
enum MHD_Result mg__dash_static(struct mg_http *h, struct MHD_Connection *c, struct req *r, const char *url,
                                const char *method);
/* The checks of the dashboard's data routes (route: for the message): GET or
 * HEAD, no query parameters, an admin. 0 to go on, else -1 with the response
 * (405, 400, 401/403) queued in *rc. */
int mg__dash_admin_get(struct MHD_Connection *c, struct req *r, const char *method, const char *route,
                       enum MHD_Result *rc);
/* GET /v1/dashboard: the overview the page polls (admin). */
enum MHD_Result mg__dash_data(struct mg_http *h, struct MHD_Connection *c, struct req *r, const char *method);

/* ---- history.c ---- */
/* The sampler thread of the charts' history: started once the daemon runs, stopped by mg_http_stop. */
int mg__history_start(struct mg_http *h, struct mg_err *err);
void mg__history_stop(struct mg_http *h);
/* GET /v1/dashboard/history: the sampled calls and index sizes (admin, tenant-scoped). */
enum MHD_Result mg__history_data(struct mg_http *h, struct MHD_Connection *c, struct req *r, const char *method);

/* ---- auth.c ---- */
/* Oversized headers: 431 and an audit event. 0 when within the caps. */
int mg__check_headers(struct mg_http *h, struct MHD_Connection *c, struct req *r, enum MHD_Result *rc);
/* Who is calling: r->who from the bearer token, or the local principal when
 * no token is required and none is given. 0, or -1 with the response queued
 * in *rc (400 token in the query string, 401, 403, 429) and an audit event. */
int mg__authenticate(struct mg_http *h, struct MHD_Connection *c, struct req *r, bool *required, enum MHD_Result *rc);
/* Host and Origin against DNS rebinding; 0 when fine, else a response is
 * queued. check_host: Host must name loopback (a loopback listener serving
 * without tokens; with tokens a page that rebinds a name to us has no
 * token to send). */
int mg__check_origin(struct mg_http *h, struct MHD_Connection *c, struct req *r, bool check_host,
                     enum MHD_Result *rc);

/* ---- oauth.c ---- */
/* GET /.well-known/oauth-protected-resource[/PATH] (r->api A_OAUTH_META, no
 * token): the metadata document (RFC 9728), 404 while OAuth is off. */
enum MHD_Result mg__oauth_metadata(struct mg_http *h, struct MHD_Connection *c, struct req *r, const char *url,
                                   const char *method);
/* The WWW-Authenticate value of a 401 into buf: Bearer realm="memgate",
 * with resource_metadata="..." when OAuth is on (MCP's discovery), and
 * error="..." when error is not NULL. */
void mg__oauth_challenge(const struct mg_http *h, const char *error, char *buf, size_t cap);
/* ---- oauth_as.c ---- */
/* Is url the authorization server's (its metadata, /oauth/...)? */
bool mg__oauth_as_path(const char *url);
/* Set r->cors when url is one of the OAuth endpoints browser clients call
 * (the metadata documents, jwks, register, token, revoke; never authorize)
 * and the request's Origin is one oauth_cors_origins allows. */
void mg__oauth_cors(struct mg_http *h, struct MHD_Connection *c, struct req *r, const char *url);
/* A CORS preflight (OPTIONS) answer: 204 allowing methods, or 403 when r->cors is unset. */
enum MHD_Result mg__oauth_preflight(struct MHD_Connection *c, struct req *r, const char *methods);
/* The resource side's revocation check of the built-in server's tokens
 * (mg_oauth_pin_keys' callback; as is the struct mg_as). */
bool mg__oauth_as_revoked(void *as, const char *grant);
enum MHD_Result mg__oauth_as(struct mg_http *h, struct MHD_Connection *c, struct req *r, const char *url,
                             const char *method);

/* ---- sse.c ---- */
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
    bool waits;                 /* it only waits for the server's messages (GET, subscriptions/listen):
                                 * a drain does not wait for it; mg_http_stop ends it */
    struct sse *next, **pprev;  /* h->streams, under h->mu; unlinked by the last unref */
    /* the worker's request (mcp.c) */
    struct mg_session *session;
    json_t *msg;
    char *repo_header;
    struct mg_principal who;    /* the request's caller (owned copy) */
    bool stateless;             /* a 2026-07-28 request: no session */
    json_t *headers;            /* its Mcp-* headers, names lowercased (mcp.c) */
    char rid[MG_REQUEST_ID_MAX + 1]; /* the POST's X-Request-Id, for the worker's audit events */
    char what[160];             /* what its refusal events name (mcp.c) */
    size_t sent;                /* bytes handed to MHD (the access log) */
    char err[48];               /* the error code of the worker's reply, "" none (the access log) */
    struct sse *next_job;       /* h->jobs, under h->mu */
};
/* A new stream of session sid (one reference, the caller's); NULL out of memory. */
struct sse *mg__sse_new(struct mg_http *h, const char *sid, bool get);
/* Drop a reference; the last one unlinks the stream and frees it. */
void mg__sse_unref(struct sse *s);
/* Append one event (s->mu held). data NULL: a priming event. 0, or -1 when
 * the stream is gone or full. */
int mg__sse_push_locked(struct sse *s, const char *data, bool priming);
/* End every stream of a session (DELETE), or every stream (sid NULL). */
void mg__sse_end_all(struct mg_http *h, const char *sid);
/* A response that streams s (the response takes one reference). */
enum MHD_Result mg__respond_sse(struct MHD_Connection *c, struct req *r, struct sse *s);

/* ---- mcp.c ---- */
enum MHD_Result mg__mcp_post(struct mg_http *h, struct MHD_Connection *c, struct req *r);
enum MHD_Result mg__mcp_get(struct mg_http *h, struct MHD_Connection *c, struct req *r);
enum MHD_Result mg__mcp_delete(struct mg_http *h, struct MHD_Connection *c, struct req *r);

/* ---- api.c ---- */
enum MHD_Result mg__v1(struct mg_http *h, struct MHD_Connection *c, struct req *r, const char *url,
                       const char *method);

/* ---- hook.c ---- */
/* h->hooks: NULL while webhook_secret is empty and the catalog is not
 * shared; else the runner, the delivery-id store (<home>/hooks.db) when
 * webhooks are on (webhook_secret), and the shared catalog's follower
 * (request/follow.h) when storage is PostgreSQL. */
int mg__hooks_open(struct mg_http *h, struct mg_err *err);
/* After the connections are closed: runs under way end (hook_run.c). */
void mg__hooks_close(struct mg_http *h);
/* POST /v1/hooks/git (r->api A_HOOK): no bearer token; the delivery's
 * signature is its authentication (hook/hook.h). */
enum MHD_Result mg__hook(struct mg_http *h, struct MHD_Connection *c, struct req *r, const char *method);

/* ---- hook_run.c ---- */
struct mg_hook_runner;
int mg__hook_runner_new(struct mg_server *srv, struct mg_hook_runner **out, struct mg_err *err);
/* Re-index repo after a push (delivery: its id for the audit, or NULL): a
 * thread of its own pulls first when the repo's pull_on_push is on, then
 * runs index_repo. A repo whose run is pending or under way gets one more
 * run after it, however many pushes come meanwhile: *coalesced is set. A run
 * that finds the repo held by another (index_busy) tries again every 2 s for
 * up to an hour. Each run writes an audit event, op webhook_run. */
int mg__hook_runner_push(struct mg_hook_runner *rn, const struct mg_repo *repo, const char *delivery,
                         bool *coalesced, struct mg_err *err);
/* A catch-up run of repo with the shared catalog (request/follow.h): pull
 * first (its pull_on_push), the delivery id of the push that caused it (NULL:
 * none). Coalesced like pushes; a push run pending for the repo does it. */
void mg__hook_runner_catchup(struct mg_hook_runner *rn, const struct mg_repo *repo, bool pull, const char *delivery);
/* Stop: naps and fetches end at once, index runs with srv->stopping (set
 * first by `memgate serve`); pending runs are dropped. Returns once every
 * thread has ended. */
void mg__hook_runner_free(struct mg_hook_runner *rn);

/* ---- accept.c ---- */
struct mg__conns;
/* A table of connections per address, cap each (0: no cap); NULL: out of memory. */
struct mg__conns *mg__conns_new(unsigned cap);
void mg__conns_free(struct mg__conns *t);
/* Connections open from sa's address now. */
unsigned mg__conns_open(struct mg__conns *t, const struct sockaddr *sa);
/* MHD's accept policy (cls: the mg_http): refuses and audits past the cap. */
enum MHD_Result mg__on_accept(void *cls, const struct sockaddr *addr, socklen_t addrlen);
/* MHD_OPTION_NOTIFY_CONNECTION (cls: the mg_http): counts connections in and out. */
void mg__on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                       enum MHD_ConnectionNotificationCode toe);

#endif
