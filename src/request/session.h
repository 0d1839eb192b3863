/* session.h — a session, the one owner of a conversation's binding, and the
 * registry of sessions.
 *
 * A session is one conversation with one client: an MCP session (one stdio
 * process, or one HTTP `Mcp-Session-Id`), an HTTP API session named by
 * `X-Session-Id`, a handle (open_handle), or one command, request or
 * background run of its own. It holds what DESIGN.md's request context needs
 * beyond the transport: who made it (id, instance, tenant, kind: fixed at
 * creation), and the binding — the bound repo, a root waiting to be bound,
 * what is known of the client's roots — and the scope. Nothing here is
 * process-wide: two sessions never share a binding or a scope.
 *
 * The struct is opaque: the binding and the scope change only through the
 * verbs below, under the session's own lock, which no caller ever sees.
 * A request reads them once, as a snapshot (mg_session_snapshot), so that
 * what it resolves is consistent even while another call of the session
 * changes them. Settling the binding (asking the client for its roots,
 * indexing a root on first use) is one verb, mg_session_settle: the caller
 * (the gate) supplies the two actions; the session runs them in order, one
 * call at a time, without holding its lock while they run.
 *
 * A transport may attach a state of its own (mcp/conn.h: the MCP
 * lifecycle and pending server-to-client requests) that lives and dies
 * with the session; the session never looks inside it.
 *
 * Ids are 32 hex digits from libsodium's CSPRNG (128 bits), so unguessable.
 * The registry is a hash table under one mutex; sessions are reference
 * counted (lookups take a reference, mg_session_unref drops it) so a pruned
 * or deleted session stays valid for the requests still using it. A session
 * idle for longer than the ttl is expired: lookups report it as such and the
 * prune task (mg_sessions_start_pruner) frees it. Recently expired ids are
 * remembered (a small ring of hashes) so a client hears "expired" rather
 * than "unknown" for a while after pruning. A private session
 * (mg_sessions_private) is never listed: nobody else can name it, and it
 * lives as long as its references.
 *
 * An idle session costs about 1 KB (measured in `make bench`).
 *
 * Shared sessions (storage = postgres://..., mg_sessions_share). Behind a
 * load balancer, consecutive calls of one client may reach different
 * daemons, so the sessions a client names by id on every call (X-Session-Id
 * of the HTTP API, and handles) live in PostgreSQL (memgate_sessions,
 * row-level security by tenant; request/session_pg.c), not in this registry:
 * mg_sessions_lookup reads one at each request (one statement by primary
 * key, which also touches its last use and marks it expired once idle past
 * the ttl) into an object of the request's own (never listed here), and
 * every verb that changes its binding or scope writes it back before it
 * returns, so before the call answers. Nothing of it is cached between
 * requests, so a daemon always sees what another one wrote last. MCP
 * sessions (streams, pending requests), the implicit /v1 sessions (they keep
 * nothing) and private sessions stay in this registry, in every mode.
 *
 * Thread-safety: every function may be called from any thread; identity
 * getters return strings that live as long as the session.
 */
#ifndef MG_SESSION_H
#define MG_SESSION_H

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
 * X-Session-Id of the HTTP API; CLI: one command line invocation, one
 * stateless MCP 2026-07-28 request or one background run; HANDLE: a handle
 * minted by open_handle, passed as the `handle` argument of later calls
 * (docs/binding.md). */
enum mg_session_kind { MG_SESSION_MCP, MG_SESSION_API, MG_SESSION_CLI, MG_SESSION_HANDLE };

struct mg_session;  /* opaque */
struct mg_sessions; /* the registry */

/* ---- identity: fixed when the session is made ---------------------------------------------- */

const char *mg_session_id(const struct mg_session *s);
const char *mg_session_instance(const struct mg_session *s);
const char *mg_session_tenant(const struct mg_session *s); /* a request of another tenant cannot use it */
enum mg_session_kind mg_session_kind(const struct mg_session *s);
/* The shared session of /v1 calls without X-Session-Id (mg_sessions_implicit):
 * it keeps nothing between requests (no scope, binding or memory session). */
bool mg_session_implicit(const struct mg_session *s);
/* A private session (mg_sessions_private: one command, one stateless
 * 2026-07-28 request without a handle, one background run): nobody can name
 * it again, so state set on it is forgotten when its request ends. */
bool mg_session_transient(const struct mg_session *s);
/* Read from PostgreSQL for this request (see above). */
bool mg_session_shared(const struct mg_session *s);

/* ---- references ------------------------------------------------------------------------------ */

/* One more reference on a session the caller holds one on. */
void mg_session_ref(struct mg_session *s);
/* Drop the caller's reference (touching the session's last use) and set *s
 * to NULL; the last one frees it. NULL or *s NULL: nothing. */
void mg_session_unref(struct mg_session **s);

/* ---- the binding ------------------------------------------------------------------------------ */

/* The client's own say at the start of a conversation (MCP initialize, or a
 * 2026-07-28 request on a fresh or unbound session): when the session is not
 * bound yet, `root` (a path; NULL: none) becomes the root to bind, else the
 * client's roots are to be asked for when it has them (client_roots) or
 * known to be none. A bound session keeps its binding (`memgate mcp --repo`
 * binds before initialize and wins). */
void mg_session_offer_root(struct mg_session *s, const char *root, bool client_roots);
/* The client said its roots changed (notifications/roots/list_changed): ask
 * again before the next call resolves, unless it never had roots and the
 * session is bound. */
void mg_session_roots_changed(struct mg_session *s);
/* Bind a directory (canonical path), replacing any binding: the next
 * mg_session_settle binds it (indexing it first when it must). 0, or -1
 * with err (out of memory). */
int mg_session_bind_root(struct mg_session *s, const char *path, struct mg_err *err);
/* Bind an indexed repo by id ("" unbinds), replacing any binding. 0, or -1
 * with err (a shared session not stored). */
int mg_session_bind_repo(struct mg_session *s, const char *id, struct mg_err *err);
/* The bound repo's id into out ("" when unbound). */
void mg_session_repo(struct mg_session *s, char out[MG_ID_MAX + 1]);

/* The two actions that settle a binding, supplied by the caller (the gate). */
struct mg_binder {
    void *ctx;
    /* Ask the client for its roots: 0 with paths (malloc'd, each malloc'd; the
     * session takes them), or -1 with err: MG_E_INPUT_REQUIRED (a 2026-07-28
     * request: the roots come with the client's retry) fails the settling;
     * MG_E_UNSUPPORTED (this channel cannot ask now) asks again next time;
     * anything else means the client has none. NULL: the channel cannot ask. */
    int (*ask_roots)(void *ctx, char ***paths, size_t *n, struct mg_err *err);
    /* The repo a root is, indexing it first when it must: 0 with id, or -1. */
    int (*bind_root)(void *ctx, const char *root, char id[MG_ID_MAX + 1], struct mg_err *err);
};
/* Settle the binding before a request resolves: ask for the roots when they
 * are unknown and the binder can ask, and bind a root waiting to be bound
 * (a failure is reported once: the root is settled either way). Other calls
 * of the session wait meanwhile (they need the binding); the session's lock
 * is not held while the actions run. A shared session's new binding is
 * stored before it returns. 0, or -1 with err. */
int mg_session_settle(struct mg_session *s, const struct mg_binder *b, struct mg_err *err);

/* ---- the scope -------------------------------------------------------------------------------- */

/* A copy of the session's scope into *out (mg_scope_release it); -1 out of memory. */
int mg_session_scope(struct mg_session *s, struct mg_scope *out);
/* Replace the scope by *sc, whose lists the session takes (*sc is left
 * empty); NULL clears it. 0, or -1 with err (a shared session not stored). */
int mg_session_set_scope(struct mg_session *s, struct mg_scope *sc, struct mg_err *err);

/* ---- one request's view -------------------------------------------------------------------------- */

/* The binding and the scope as they are at one instant. */
struct mg_session_snap {
    char repo[MG_ID_MAX + 1];   /* the bound repo, "" when unbound */
    bool root_pending;          /* a root waits to be bound (mg_session_settle binds it) */
    struct mg_scope scope;      /* owned: mg_session_snap_release */
};
int mg_session_snapshot(struct mg_session *s, struct mg_session_snap *out, struct mg_err *err);
void mg_session_snap_release(struct mg_session_snap *snap);

/* ---- a transport's own state ---------------------------------------------------------------------- */

/* Attach state to s, freed with free_state when the session is freed. Once,
 * before the session is shared with another thread; the session never looks
 * inside it. */
void mg_session_attach(struct mg_session *s, void *state, void (*free_state)(void *));
void *mg_session_attached(const struct mg_session *s);

/* ---- the registry ------------------------------------------------------------------------------------ */

/* ttl_ms: idle time after which a session expires (0: never). */
struct mg_sessions *mg_sessions_new(int64_t ttl_ms);
/* Stops the pruner, frees every listed session (callers must hold no
 * references) and the registry; *r becomes NULL. */
void mg_sessions_free(struct mg_sessions **r);

/* A new listed session of tenant with a fresh random id (or `id` when given:
 * an API client's X-Session-Id, which must match [A-Za-z0-9._:-]{8,128}).
 * instance: the instance id to use, or NULL for a fresh random one (MCP
 * sessions: each its own instance). For a shared kind (API, HANDLE) in a
 * shared registry the session is written to PostgreSQL first (acting for
 * tenant) and is the caller's alone (never listed). One reference held, or
 * NULL with err (invalid_argument for a bad id; session_exists if taken,
 * whoever's it is; storage_unavailable when PostgreSQL is down). */
struct mg_session *mg_sessions_create(struct mg_sessions *r, enum mg_session_kind kind, const char *id,
                                      const char *instance, const char *tenant, struct mg_err *err);
/* A session of the caller's alone, never listed (nobody else can name it,
 * it never expires): one command, one stateless request, one background
 * run. One reference held, or NULL with err. */
struct mg_session *mg_sessions_private(struct mg_sessions *r, enum mg_session_kind kind, const char *instance,
                                       const char *tenant, struct mg_err *err);

/* The implicit API session of one client: the /v1 calls that send no
 * X-Session-Id share it instead of each creating a session. key names the
 * client (tenant, token, address: NUL-free text); the id is a keyed hash of
 * it holding a '/', which no client-chosen id may (so no header names it),
 * and it idles out after idle_ms (its own limit, whatever the registry's
 * ttl). Found or created, for tenant; one reference held, or NULL with err.
 * Callers must store nothing in it that outlives a request. */
struct mg_session *mg_sessions_implicit(struct mg_sessions *r, const char *key, const char *tenant,
                                        const char *instance, int64_t idle_ms, struct mg_err *err);

enum mg_lookup { MG_SESSION_FOUND, MG_SESSION_UNKNOWN, MG_SESSION_EXPIRED, MG_SESSION_ERROR };
/* Look a listed session up and take a reference, touching its last use. An
 * idle one past the ttl is removed and reported as MG_SESSION_EXPIRED. */
struct mg_session *mg_sessions_get(struct mg_sessions *r, const char *id, enum mg_lookup *how);
/* The session id names, for a caller of tenant: this registry's (as
 * mg_sessions_get), else in a shared registry the PostgreSQL row of that
 * tenant's (another tenant's row is UNKNOWN: row-level security hides it,
 * and the statement filters on the tenant too). A reference held; NULL with
 * *how UNKNOWN or EXPIRED, or MG_SESSION_ERROR with err set
 * (storage_unavailable, ...). Callers still check kind and tenant. */
struct mg_session *mg_sessions_lookup(struct mg_sessions *r, const char *id, const char *tenant, enum mg_lookup *how,
                                      struct mg_err *err);

/* Share the sessions of the kinds API and HANDLE through cfg's PostgreSQL
 * database (cfg must outlive r; it is not contacted now). They idle out
 * after cfg's session_ttl (0: never), whatever ttl r was made with. */
void mg_sessions_share(struct mg_sessions *r, const struct mg_config *cfg);
bool mg_sessions_shared(const struct mg_sessions *r);
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
