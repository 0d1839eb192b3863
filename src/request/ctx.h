/* ctx.h — the request context: everything one request carries, built once by
 * mg_request_init at every entry point (a tools/call over MCP, stdio or
 * HTTP; a /v1 call; a command line command), never a global.
 *
 *   who        the caller: tenant, access level, the token's repo allowlist
 *   session    the conversation (bound repo, scope, MCP state); never NULL:
 *              the command line gets a session of its own
 *   instance   the client instance (the session's)
 *   repos      the repos the request works on and ...
 *   scope      ... its effective scope: both filled by the gate when it
 *              resolves (request/gate.h), not by the transport
 *   deadline   when the request gives up (0: never); stop: set when the
 *              process stops
 *   channel    how progress, log lines and questions to the client travel
 *              (the transport's; may be NULL)
 *   audit      the record of what the request did, written by the gate and
 *              emitted once, by mg_gate_finish
 *
 * Ownership: the context owns copies of what the spec points to (principal,
 * repo header, cwd) and one reference to the session; mg_request_release
 * frees them. The channel is borrowed: it must outlive the request.
 *
 * Threads: a request runs on one thread, except that the gate may run the
 * parts of a composed request (get_context) on several; the gate guards what
 * they share with `mu`. Nothing else in the context changes after the gate
 * has resolved it.
 */
#ifndef MG_CTX_H
#define MG_CTX_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "provider/scope.h"
#include "request/server.h"
#include "security/access.h"
#include "store/catalog.h"
#include "util/admit.h"

/* What a request may send back besides its answer; the transport's. Each
 * member may be NULL. */
struct mg_channel {
    /* progress of long work (indexing) */
    void (*progress)(struct mg_channel *ch, double done, double total, const char *message);
    /* a log line for the client ("debug" .. "emergency") */
    void (*log)(struct mg_channel *ch, const char *level, const char *message);
    /* the client's workspace roots as absolute paths: 0 with *paths (malloc'd
     * array of malloc'd strings), or -1 with err: unsupported (this channel
     * cannot ask now), timeout, client_error */
    int (*roots)(struct mg_channel *ch, char ***paths, size_t *n, struct mg_err *err);
    /* a completion from the client's model (MCP sampling/createMessage):
     * system prompt, user message, the most tokens, how long to wait; 0
     * with *text (malloc'd), or -1 with err: unsupported (the client did
     * not declare sampling, or this channel cannot ask now), input_required
     * (a 2026-07-28 request: the answer comes with the client's retry),
     * timeout, client_error, llm_bad_response (an answer without text) */
    int (*sample)(struct mg_channel *ch, const char *system, const char *user, int max_tokens, int timeout_ms,
                  char **text, struct mg_err *err);
    /* the tool groups tools/list shows this client (tools/tools.h
     * MG_TOOL_GROUP_*): enable, then disable, applied; 0 with *now the
     * groups shown, or -1 when this channel keeps no list (a stateless
     * request, the command line). May be NULL. */
    int (*tool_groups)(struct mg_channel *ch, unsigned enable, unsigned disable, unsigned *now);
};

#define MG_AUDIT_PARTS_MAX 8

/* The audit record a request builds (see mg_gate_finish). */
#define MG_REQUEST_ID_MAX 64
#define MG_INDEX_DELIVERY_MAX 128 /* a webhook delivery id (hook/hook.h MG_HOOK_ID_MAX) */
#define MG_STALE_MAX 16           /* stale repos named in one result */

struct mg_audit_rec {
    char op[64];                     /* the tool or command */
    char repo[512];                  /* the repos it worked on, joined with ',' */
    char *subject;                   /* what it was about: a query, a path, a key (owned, or NULL) */
    long long results;
    int redactions;
    unsigned flags;                  /* MG_ITEM_* of what it served */
    struct mg_injinfo inj;           /* with MG_ITEM_INJECTION: the highest score, every reason */
    size_t dropped;                  /* items the guardrail dropped */
    struct {
        const char *name;            /* an operation's name (static) */
        long long results;
    } parts[MG_AUDIT_PARTS_MAX];
    size_t nparts;
    bool write;                      /* a write: synced to disk under audit_fsync = writes */
    const char *flag;                /* one more flag to record (a static string), or NULL */
    bool done;                       /* emitted */
    bool unwritten;                  /* ... and the event could not be written: why in failed */
    struct mg_err failed;
};

struct mg_ctx {
    struct mg_server *srv;
    struct mg_principal who;         /* a copy */
    struct mg_session *session;      /* never NULL; one reference held */
    const char *instance;            /* the session's */
    char *repo_header;               /* X-Memgate-Repo (a copy), or NULL */
    char cwd[PATH_MAX];              /* CLI and stdio: the client's directory (canonical), "" otherwise */
    struct mg_channel *channel;      /* borrowed; may be NULL */
    int64_t deadline_ms;             /* CLOCK_MONOTONIC; 0: none */
    const volatile int *stop;        /* &srv->stopping */
    /* the request's place in the server's read queue, taken by its first
     * index read (gate.c) and given back when the request is released;
     * read_mu: parts of one request running in parallel (get_context) take
     * the one place once */
    pthread_mutex_t read_mu;
    bool reading;
    struct mg_admit_ticket read_ticket;
    /* filled by the gate */
    bool resolved;
    struct mg_repo *repos;           /* malloc'd */
    size_t nrepos;
    struct mg_scope scope;           /* the effective scope */
    /* a page of a list (tools/args.h mg_arg_page): the gate drops the first
     * skip items of the next operation's list and those past keep (0: none),
     * before it cleans them, says how many there were and whether it dropped
     * any past keep, then clears skip and keep. offset and fp: the page's place and the call's
     * fingerprint once the tool has checked its cursor (fp 0: no page) */
    struct {
        size_t skip, keep;
        size_t got;                  /* the list's length before the gate cut the page out of it */
        bool more;
        long long offset;
        uint64_t fp;
    } page;
    pthread_mutex_t mu;              /* guards audit while parts run in parallel */
    struct mg_audit_rec audit;
    char request_id[MG_REQUEST_ID_MAX + 1]; /* the HTTP request's X-Request-Id, "" none */
    char memory_session[MG_SID_LEN + 1]; /* an implicit session's: this request's own memory session */
    /* an index run's cause (struct mg_pcall's index_reason; a static string or
     * NULL) and a push's delivery id ("" none), from the spec */
    const char *index_reason;
    char index_delivery[MG_INDEX_DELIVERY_MAX + 1];
    /* the shared catalog (store/catalog.h): the repos this request read from
     * a local index behind the catalog's generation (the gate's, under mu);
     * the result says stale (tools/registry.c) */
    struct {
        char id[MG_ID_MAX + 1];
        int64_t generation, catalog_generation;
    } stale[MG_STALE_MAX];
    size_t nstale;
};

struct mg_request_spec {
    struct mg_server *srv;           /* required */
    const struct mg_principal *who;  /* NULL: the local principal */
    struct mg_session *session;      /* NULL: a new session of its own (kind CLI) */
    const char *repo_header;         /* may be NULL */
    const char *cwd;                 /* may be NULL; canonicalised when it exists */
    struct mg_channel *channel;      /* may be NULL */
    int64_t timeout_ms;              /* 0: no deadline */
    const char *op;                  /* the audit op: the tool's or the command's name */
    const char *request_id;          /* NULL: this thread's (mg_request_id_set), if any */
    const char *index_reason;        /* an index run's cause (a static string: "push", "schedule", "catchup"), or NULL */
    const char *index_delivery;      /* a push's delivery id, or NULL */
};

/* The HTTP request this thread works for: its id (X-Request-Id) goes into
 * the audit events of the requests built on the thread (mg_request_init)
 * and of refusals. The HTTP layer sets it when a request's headers are in
 * (and on the worker running a POST stream) and clears it (NULL) after. */
void mg_request_id_set(const char *id);
/* This thread's request id, or NULL. */
const char *mg_request_id_current(void);

/* Build x from spec. 0, or -1 with err (x zeroed: nothing to release). */
int mg_request_init(struct mg_ctx *x, const struct mg_request_spec *spec, struct mg_err *err);
/* Release what x holds (the audit event is mg_gate_finish's, not this). */
void mg_request_release(struct mg_ctx *x);

/* Through the channel, when it has one (no-ops otherwise). */
void mg_request_progress(struct mg_ctx *x, double done, double total, const char *message);
void mg_request_log(struct mg_ctx *x, const char *level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The conversation's durable id for memory: the `session_id` argument when
 * given, else this session's id (an implicit session's: one random id per
 * request, so two clients sharing it share no memory session). */
const char *mg_request_memory_session(const struct mg_ctx *x, const char *arg);

/* The request's deadline passed, or the process is stopping. */
bool mg_request_expired(const struct mg_ctx *x);

/* Free what requests left on this thread (decompression contexts). Other
 * threads free it when they exit; a transport that ran requests on the
 * process's main thread calls this before it returns (no exit destructor runs
 * there). */
void mg_request_thread_done(void);

#endif
