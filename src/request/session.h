/* session.h — the session registry.
 *
 * A session is one conversation with one client: an MCP session (one stdio
 * process, or one HTTP `Mcp-Session-Id`), or an HTTP API session named by
 * `X-Session-Id`. It holds what DESIGN.md's request context needs beyond the
 * transport: the bound repo, the scope, the instance id and the MCP state.
 * Nothing here is process-wide: two sessions never share a binding or a scope.
 *
 * Ids are 32 hex digits from libsodium's CSPRNG (128 bits), so unguessable.
 * The registry is a hash table under one mutex; sessions are reference
 * counted (get takes a reference, put drops it) so a pruned or deleted
 * session stays valid for the requests still using it. A session idle for
 * longer than the ttl is expired: lookups report it as such and the prune
 * task (mg_sessions_start_pruner) frees it. Recently expired ids are
 * remembered (a small ring of hashes) so a client hears "expired" rather
 * than "unknown" for a while after pruning.
 *
 * An idle session costs about 1 KB (measured in `make bench`).
 *
 * Shared sessions (storage = postgres://..., mg_sessions_share). Behind a
 * load balancer, consecutive calls of one client may reach different
 * daemons, so the sessions a client names by id on every call (X-Session-Id
 * of the HTTP API, and handles) live in PostgreSQL (memgate_sessions,
 * row-level security by tenant), not in this registry: mg_sessions_lookup
 * reads one at each request (one statement by primary key, which also
 * touches its last use and marks it expired once idle past the ttl) into an
 * object of the request's own (shared set, never listed here), and
 * mg_session_save writes its durable state (the bound repo, the scope) back
 * before the call answers. Nothing of it is cached between requests, so a
 * daemon always sees what another one wrote last. MCP sessions (streams,
 * pending requests), the implicit /v1 sessions (they keep nothing) and
 * command line sessions stay in this registry, in every mode.
 */
#ifndef MG_SESSION_H
#define MG_SESSION_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "provider/scope.h"
#include "store/catalog.h"
#include "util/err.h"

struct mg_config;

#define MG_SID_LEN 32          /* hex digits of a generated id */
#define MG_SID_MAX 128         /* longest id a client may choose (X-Session-Id) */
#define MG_INSTANCE_MAX 64

/* MCP: one MCP connection (stdio process or Mcp-Session-Id); API: an
 * X-Session-Id of the HTTP API; CLI: one command line invocation (or one
 * stateless MCP 2026-07-28 request); HANDLE: a handle minted by open_handle,
 * passed as the `handle` argument of later calls (docs/binding.md). */
enum mg_session_kind { MG_SESSION_MCP, MG_SESSION_API, MG_SESSION_CLI, MG_SESSION_HANDLE };

/* Roots state of an MCP session (see docs/binding.md). */
enum mg_roots_state {
    MG_ROOTS_NONE,     /* the client has no roots capability, or gave none */
    MG_ROOTS_UNKNOWN,  /* the client has roots; not asked yet (or they changed) */
    MG_ROOTS_KNOWN     /* asked; `root` holds the first usable one, if any */
};

struct mg_pending; /* a server-to-client request waiting for its response (rpc.c) */

struct mg_session {
    char id[MG_SID_MAX + 1];
    char instance[MG_INSTANCE_MAX + 1];
    enum mg_session_kind kind;
    char tenant[65];            /* the tenant that created it; a request of another tenant cannot use it */
    bool implicit;              /* the shared session of /v1 calls without X-Session-Id (mg_sessions_implicit):
                                 * it keeps nothing between requests (no scope, binding or memory session) */
    int64_t idle_ms;            /* its own idle limit; 0: the registry's ttl. Set before it is listed */
    bool shared;                /* read from PostgreSQL for this request (see above): changes to repo and
                                 * scope are written back with mg_session_save */

    /* Everything below is guarded by mu. */
    pthread_mutex_t mu;
    pthread_cond_t cv;          /* signalled when a pending response arrives */
    char repo[MG_ID_MAX + 1];   /* the bound repo id; "" when unbound */
    char *root;                 /* a bound root not indexed yet (indexed on first use), or NULL */
    struct mg_scope scope;      /* set_scope's; the effective scope of a call starts from it */
    enum mg_roots_state roots;
    bool binding;               /* a call is resolving the binding (asking roots, indexing); others wait on cv */
    /* MCP lifecycle */
    char protocol[16];          /* negotiated version; "" before initialize */
    bool initialized;           /* initialize answered */
    bool ready;                 /* notifications/initialized received */
    bool sampling;              /* the client declared the sampling capability at initialize */
    int log_level;              /* index into the syslog-style levels of rpc.c; default "info" */
    int64_t next_request_id;    /* ids of server-to-client requests */
    struct mg_pending *pending;

    /* Registry-private. */
    int refs;
    int64_t last_use_ms;
    bool removed;
    struct mg_session *next;
};

struct mg_sessions;

/* ttl_ms: idle time after which a session expires (0: never). */
struct mg_sessions *mg_sessions_new(int64_t ttl_ms);
/* Stops the pruner, frees every session (callers must hold no references). */
void mg_sessions_free(struct mg_sessions *r);

/* A new session with a fresh random id (or `id` when given: an API client's
 * X-Session-Id, which must match [A-Za-z0-9._:-]{8,128}). instance: the
 * instance id to use, or NULL for a fresh random one (MCP sessions: each its
 * own instance). Returns it with one reference held, or NULL with err set
 * (invalid_argument for a bad id, session_exists if taken). */
struct mg_session *mg_sessions_create(struct mg_sessions *r, enum mg_session_kind kind, const char *id,
                                      const char *instance, struct mg_err *err);

/* The implicit API session of one client: the /v1 calls that send no
 * X-Session-Id share it instead of each creating a session. key names the
 * client (tenant, token, address: NUL-free text); the id is a keyed hash of
 * it holding a '/', which no client-chosen id may (so no header names it),
 * and it idles out after idle_ms (its own limit, whatever the registry's
 * ttl). Found or created, tenant set, implicit set; one reference held, or
 * NULL with err. Callers must store nothing in it that outlives a request. */
struct mg_session *mg_sessions_implicit(struct mg_sessions *r, const char *key, const char *tenant,
                                        const char *instance, int64_t idle_ms, struct mg_err *err);

enum mg_lookup { MG_SESSION_FOUND, MG_SESSION_UNKNOWN, MG_SESSION_EXPIRED, MG_SESSION_ERROR };
/* Look a session up and take a reference, touching its last use. An idle one
 * past the ttl is removed and reported as MG_SESSION_EXPIRED. */
struct mg_session *mg_sessions_get(struct mg_sessions *r, const char *id, enum mg_lookup *how);
void mg_session_put(struct mg_sessions *r, struct mg_session *s);
/* Take one more reference on a session the caller holds one on. */
void mg_session_ref(struct mg_sessions *r, struct mg_session *s);

/* Share the sessions of the kinds API and HANDLE through cfg's PostgreSQL
 * database (cfg must outlive r; it is not contacted now). They idle out
 * after cfg's session_ttl (0: never), whatever ttl r was made with. */
void mg_sessions_share(struct mg_sessions *r, const struct mg_config *cfg);
bool mg_sessions_shared(const struct mg_sessions *r);
/* mg_sessions_create, with the tenant set. For a shared kind in a shared
 * registry the session is written to PostgreSQL first (acting for tenant)
 * and is the caller's alone (shared set, not listed): a taken id is
 * session_exists, whoever's it is; PostgreSQL down is storage_unavailable. */
struct mg_session *mg_sessions_create_for(struct mg_sessions *r, enum mg_session_kind kind, const char *id,
                                          const char *instance, const char *tenant, struct mg_err *err);
/* The session id names, for a caller of tenant: this registry's (as
 * mg_sessions_get), else in a shared registry the PostgreSQL row of that
 * tenant's (another tenant's row is UNKNOWN: row-level security hides it,
 * and the statement filters on the tenant too). A reference held; NULL with
 * *how UNKNOWN or EXPIRED, or MG_SESSION_ERROR with err set
 * (storage_unavailable, ...). Callers still check kind and tenant. */
struct mg_session *mg_sessions_lookup(struct mg_sessions *r, const char *id, const char *tenant, enum mg_lookup *how,
                                      struct mg_err *err);
/* Write a shared session's durable state (bound repo, scope) to PostgreSQL,
 * touching its last use; 0 at once for any other session. -1 with err:
 * storage_unavailable, or session_expired when it expired (or was purged)
 * meanwhile. Takes s->mu. */
int mg_session_save(struct mg_sessions *r, struct mg_session *s, struct mg_err *err);
/* Delete the shared rows past their purge time (expired for as long again
 * as the ttl), every tenant's: the pruner thread calls it. The number
 * deleted, or -1 with err. */
long mg_sessions_purge_shared(struct mg_sessions *r, struct mg_err *err);

/* Remove (HTTP DELETE): later lookups fail with UNKNOWN. 0, or -1 if absent. */
int mg_sessions_remove(struct mg_sessions *r, const char *id);
/* Free every session idle past the ttl at now_ms; returns how many. */
size_t mg_sessions_prune(struct mg_sessions *r, int64_t now_ms);
size_t mg_sessions_count(struct mg_sessions *r);
/* Distinct instance ids among live sessions. */
size_t mg_sessions_instances(struct mg_sessions *r);
/* Live sessions of one tenant (the dashboard, http/dash.c). */
struct mg_tenant_sessions {
    char tenant[65];
    size_t sessions;            /* all kinds */
    size_t mcp, api;            /* of which MCP sessions, HTTP API sessions */
    size_t instances;           /* distinct instance ids among them */
};
/* Every tenant's counts, by tenant name, or only tenant `only` (NULL: all),
 * as a malloc'd array in *out (free it); the number of entries, or -1 out
 * of memory. */
long mg_sessions_by_tenant(struct mg_sessions *r, const char *only, struct mg_tenant_sessions **out);
/* A background thread pruning every interval_ms. */
int mg_sessions_start_pruner(struct mg_sessions *r, int64_t interval_ms, struct mg_err *err);

/* 32 hex digits of CSPRNG output into out[33]. */
void mg_random_id(char out[MG_SID_LEN + 1]);
int64_t mg_now_ms(void);  /* CLOCK_MONOTONIC milliseconds */

#endif
