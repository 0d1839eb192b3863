/* server.h — what the transports share: the server, the request context and
 * the tools.
 *
 * Every request carries a context (struct mg_ctx) built by its transport,
 * never a global: the session (bound repo, scope, instance), the tenant, the
 * explicit repo header, and the channel for progress notifications and
 * server-to-client requests. The tools are transport-agnostic functions of
 * (context, JSON arguments) -> JSON result or error; MCP `tools/call`
 * (rpc.c) and the HTTP API under /v1/ (http.c) both call them, so the two
 * cannot drift apart.
 *
 * Repo resolution (DESIGN.md "Isolation model"), first match wins:
 *   1. the explicit argument `repo` (or `repo_id`), else the X-Memgate-Repo header;
 *   2. the session's binding (from the client's roots at initialize, or
 *      `memgate mcp --repo`); a bound root not indexed yet is indexed now,
 *      with progress;
 *   3. the only repo when exactly one is indexed;
 *   4. else error repo_required, listing the repo ids.
 * Every result is checked against the resolved repos before it leaves: a
 * row from any other repo is dropped and counted (isolation drop).
 */
#ifndef MG_SERVER_H
#define MG_SERVER_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "security/gate.h"
#include "server/session.h"
#include "util/config.h"
#include "util/err.h"
#include "util/json.h"

struct mg_tokens;
struct mg_ratelimit;
struct mg_audit;

struct mg_server {
    struct mg_config cfg;
    struct mg_sessions *sessions;
    struct mg_tokens *tokens;       /* the token store (serve); NULL: no tokens (stdio, tests) */
    struct mg_ratelimit *ratelimit; /* per-token request rates (serve) */
    struct mg_audit *audit;         /* the audit log; NULL: not audited (unit tests) */
    bool fixtures;      /* --conformance-fixtures: register the conformance suite's test tools */
    bool verbose;       /* MEMGATE_VERBOSE=1: _meta with instance, session, repo, time on every tool result */
    volatile int stopping; /* set when the server stops: long work (an index run) ends at its next step */
};

/* Where the messages produced while serving one request go (besides its
 * response): notifications (progress, log messages) and server-to-client
 * requests (roots/list, sampling, elicitation). */
struct mg_out {
    /* Send one message (borrowed). 0 sent; -1 this channel cannot carry it
     * (an HTTP request answered with plain JSON). */
    int (*send)(struct mg_out *o, json_t *msg);
};

struct mg_ctx {
    struct mg_server *srv;
    struct mg_session *session;  /* never NULL */
    const struct mg_principal *who; /* the caller: tenant, level, repo allowlist (never NULL) */
    const char *repo_header;     /* X-Memgate-Repo, or NULL */
    struct mg_out *out;          /* may be NULL */
    json_t *progress_token;      /* the request's _meta.progressToken, or NULL (borrowed) */
};

/* Send notifications/progress when the request asked for it (no-op otherwise). */
void mg_ctx_progress(struct mg_ctx *x, double progress, double total, const char *message);
/* Send notifications/message at `level` ("debug" .. "emergency") when the
 * session's log level lets it through. */
void mg_ctx_log(struct mg_ctx *x, const char *level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Send a server-to-client request and wait for its result (timeout_ms).
 * Returns the `result` object (new reference) or NULL with err set:
 * unsupported when the channel cannot carry requests, timeout, or the
 * client's error. */
json_t *mg_ctx_request(struct mg_ctx *x, const char *method, json_t *params, int timeout_ms, struct mg_err *err);

struct mg_tool {
    const char *name;
    const char *title;
    const char *description;
    const char *input_schema;   /* JSON Schema text */
    const char *output_schema;  /* JSON Schema text, or NULL */
    /* *result: the structured result (new reference) on success. */
    int (*call)(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err);
    int level;                  /* MG_LEVEL_* the caller needs; 0 = read */
};

/* The tools of this server (memgate's, plus the fixtures when enabled). */
const struct mg_tool *mg_tools(const struct mg_server *srv, size_t *n);
const struct mg_tool *mg_tool_find(const struct mg_server *srv, const char *name);
/* The conformance suite's fixture tools (fixtures.c). */
const struct mg_tool *mg_fixture_tools(size_t *n);

/* Resolve the repos a request works on (see the top of this file). `explicit`
 * is the tool's `repo` argument or NULL. Fills *out (malloc'd) and *n.
 * Errors: repo_required, repo_not_found, and indexing errors for a bound
 * root. */
int mg_resolve_repos(struct mg_ctx *x, const char *explicit_repo, struct mg_repo **out, size_t *n,
                     struct mg_err *err);

/* Tool argument helpers (invalid_argument on a wrong type or range). A
 * missing or null argument leaves the default: NULL, dflt, false. */
int mg_arg_str(json_t *args, const char *key, bool required, const char **out, struct mg_err *err);
int mg_arg_int(json_t *args, const char *key, long long lo, long long hi, long long dflt, long long *out,
               struct mg_err *err);
int mg_arg_bool(json_t *args, const char *key, bool *out, struct mg_err *err);
/* Refuse keys the schema does not name (keys: NULL-terminated). */
int mg_known_keys(json_t *args, const char *const *keys, struct mg_err *err);

/* {"code","message"} for an error, plus "repos" (the ids) for repo_required
 * and repo_not_found so the client can choose. */
json_t *mg_err_to_json(struct mg_ctx *x, const struct mg_err *err);

/* A root URI as a path: file:///a%20b -> "/a b" (malloc'd); a plain absolute
 * path is accepted as is. NULL for another scheme or a bad escape. */
char *mg_uri_to_path(const char *uri);

/* HTTP status for an error code (400, 404, 409, 413, 500, ...). */
int mg_err_http_status(const char *code);

#endif
