/* server.h — what every request of one process shares: the configuration,
 * the providers, the session registry, the audit log and (HTTP) the token
 * store. One per `memgate serve`, `memgate mcp` or command line run.
 *
 * Threads: the struct is read-only once open, apart from `stopping`; every
 * member is thread-safe on its own.
 */
#ifndef MG_SERVER_H
#define MG_SERVER_H

#include <stdbool.h>

#include "provider/provider.h"
#include "request/session.h"
#include "util/config.h"
#include "util/err.h"

struct mg_tokens;
struct mg_ratelimit;
struct mg_audit;
struct mg_storage_probe;
struct mg_admit;

struct mg_server {
    struct mg_config cfg;
    struct mg_providers providers;  /* built in unless the config says otherwise */
    struct mg_sessions *sessions;   /* every session of this process */
    struct mg_audit *audit;         /* the audit log */
    struct mg_tokens *tokens;       /* MG_SERVER_TOKENS: the token store; else NULL */
    struct mg_ratelimit *ratelimit; /* MG_SERVER_TOKENS: per-token request rates; else NULL */
    struct mg_refusals *refusals;   /* refusal floods folded (request/gate.h) */
    struct mg_admit *reads;         /* index reads, search_concurrency at a time (gate.h); NULL: no queue */
    struct mg_storage_probe *storage; /* storage = postgres://...: is it reachable (request/storage.h); else NULL */
    bool verbose;       /* MEMGATE_VERBOSE=1: _meta with instance, session, repo, time on every tool result */
    volatile int stopping; /* set when the process stops: long work (an index run) ends at its next step */
    /* called after every successful index run (a tool, the scheduler, the
     * watcher, a webhook); the MCP transports set it to tell their
     * subscriptions/listen streams (mcp/rpc.h). May be NULL. */
    void (*on_indexed)(const char *tenant, const char *repo, long long files, long long changed);
    char ext_op_names[MG_MCP_PROVIDERS_MAX][40]; /* "mcp.<name>": the audit parts of the external providers */
};

#define MG_SERVER_TOKENS 0x1u /* open the token store and the rate limiter (HTTP) */

/* Open srv for cfg (copied): providers, a session registry whose sessions
 * idle out after cfg's session_ttl (0 for none: stdio and the command line
 * pass MG_SERVER_NO_TTL), the audit log, and with MG_SERVER_TOKENS the
 * token store. 0, or -1 with err (nothing left open). */
#define MG_SERVER_NO_TTL 0x2u
/* a long-lived server: keep the indexes current with a file watcher
 * (index/watch.h); load the repos' vectors in the background from the start,
 * and answer hybrid searches by words while they load (code/code.h) */
#define MG_SERVER_WATCH 0x4u
int mg_server_open(struct mg_server *srv, const struct mg_config *cfg, unsigned flags, struct mg_err *err);
/* Close what mg_server_open opened; callers hold no session references. */
void mg_server_close(struct mg_server *srv);

#endif
