/* gate.h — the SecurityGate: the one way to a provider.
 *
 * Tools ask the gate to run an operation (struct mg_op: a provider call with
 * the access it needs); the gate
 *
 *   1. checks the caller's access level against the operation's, and the
 *      operation's own rule when it has one (indexing a new directory);
 *   2. resolves the request's repos and effective scope into the context
 *      (request/resolve.h): first it settles the session's binding, as
 *      explicit steps with progress (it asks the client for its roots when
 *      they are unknown; it indexes a bound root on first use, itself an
 *      operation through this gate), then applies the tenant, allowlist and
 *      cross-repo rules;
 *   3. checks the strings the operation will store (its declared inputs):
 *      an identifier kept as given (a note or preference key, a session or
 *      agent id, a project, a tag, an entity's name or type) that holds a
 *      secret is refused (secret_in_identifier); content (a value, a summary,
 *      an entity's notes) has its secrets
 *      redacted before the provider sees it, and an instruction-like line in
 *      it is flagged in the audit record; so no secret reaches a store;
 *   3b. calls the provider with a struct mg_pcall built from the context;
 *   4. the guardrail: drops, logs and counts (memgate_isolation_drops_total)
 *      every item whose owner is not the request's: another tenant, a repo
 *      outside the resolved ones or with another fingerprint, another
 *      project; a drop is a bug below the gate;
 *   5. cleans every declared text field of every item (provider/item.h):
 *      secrets redacted, control sequences, model markers and hidden
 *      characters stripped, prompt injection flagged, each field capped
 *      (text at max_chunk_bytes, labels at MG_LABEL_MAX) and the response's
 *      text at max_context_bytes (items past it are left out and counted),
 *      and attributes each item (its `source`);
 *   6. records the operation in the context's audit record.
 *
 * mg_gate_finish writes the request's one audit event from that record
 * (success or failure, its parts, its counts, its flags): the dispatcher of
 * tools calls it once per request. Nothing here guesses the repo from the
 * arguments or the result.
 *
 * Thread safety: several operations of one request may run at once
 * (get_context runs its parts in parallel) once the request is resolved
 * (mg_gate_resolve first).
 */
#ifndef MG_GATE_H
#define MG_GATE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "provider/provider.h"
#include "request/ctx.h"
#include "util/buf.h"

/* Which repos an operation works on. */
enum mg_op_repos {
    MG_REPOS_NONE,    /* none: the tenant's (profiles), or a new directory (index) */
    MG_REPOS_ONE,     /* exactly one (read, memory) */
    MG_REPOS_SCOPE,   /* the resolved ones, several if the scope names several (search, list) */
    MG_REPOS_VISIBLE, /* every repo the caller can see (list_repos) */
};

/* The strings of an operation's arguments that it stores (step 3). */
enum mg_input_kind {
    MG_IN_ID,   /* an identifier, stored and looked up as given: refused when it holds a secret */
    MG_IN_TEXT, /* content: stored with its secrets redacted */
};
/* what: the argument's name for an error ("key", "agent_id"); item: the
 * index of the result item the string ends up in (its redactions count
 * there). The gate may point *slot at a cleaned copy it owns until the call
 * returns. */
typedef void (*mg_input_fn)(void *ud, const char **slot, enum mg_input_kind kind, const char *what, size_t item);

/* An operation of a provider: what it needs and how to call it. */
struct mg_op {
    const char *name;          /* "code.search", "notes.set", ...: the part in the audit record */
    int level;                 /* MG_LEVEL_* the caller needs */
    enum mg_op_repos repos;
    bool write;                /* changes stored state (audited durably) */
    /* an access rule on the arguments, after the level check (may be NULL) */
    int (*allow)(struct mg_ctx *x, const void *args, struct mg_err *err);
    /* the provider call */
    int (*run)(const struct mg_providers *p, const struct mg_pcall *pc, const void *args, struct mg_items *out,
               struct mg_err *err);
    /* calls visit for each string of args it stores (NULL: none) */
    void (*inputs)(void *args, mg_input_fn visit, void *ud);
    /* reads the repos' local indexes: with a shared catalog, a repo this
     * daemon has no index of is index_not_local, and one whose index is
     * behind the catalog is read with the request marked stale (or waited
     * for: storage_stale = wait); its run and the cleaning of its answer
     * wait their turn in the server's read queue (search_concurrency) */
    bool reads_index;
};

/* The read queue admits twice the cores by default (search_concurrency): a
 * holder also waits (its audit write, a page of the index read from disk),
 * and at one per core its core then idles (17% idle on two cores under 32
 * sessions, 10% with no queue or twice the cores, at the same p99).
 * A read that has had its place this long no longer holds up the queue
 * (util/admit.h): the next one starts beside it. */
#define MG_READ_LONG_MS 100

/* What the call named: its repo argument (NULL: none) and its scope lists
 * (each list given in the call replaces the session's: `given` says which;
 * see MG_SCOPE_GIVEN_*). */
#define MG_GIVEN_GLOBS    0x1u
#define MG_GIVEN_EXCLUDES 0x2u
#define MG_GIVEN_LANGS    0x4u
struct mg_target {
    const char *repo;
    const struct mg_scope *scope; /* may be NULL */
    unsigned given;
};

/* Resolve the request for target t (step 2 above), once: later operations
 * of the request use the same repos and scope. ONE insists on a single
 * repo. 0, or -1 with err. */
int mg_gate_resolve(struct mg_ctx *x, const struct mg_target *t, enum mg_op_repos want, struct mg_err *err);

/* Run op for the request (steps 1-6). On success out holds the gated items
 * (the caller releases them; out is initialised here); on failure out is
 * empty and err set. The strings of args that op declares as inputs may be
 * repointed during the call (step 3); they are the caller's again after. */
int mg_gate_run(struct mg_ctx *x, const struct mg_op *op, const struct mg_target *t, void *args,
                struct mg_items *out, struct mg_err *err);

/* Clean items that did not come from a provider but carry the request's own
 * text back to the client (the effective scope echoed, say): step 5 only. */
void mg_gate_clean(struct mg_ctx *x, struct mg_items *items);

/* The subject the audit event quotes (a query, a path, a key). */
void mg_gate_subject(struct mg_ctx *x, const char *subject);

/* Write the request's audit event (once; later calls do nothing): op, the
 * repos it worked on, the subject (redacted), counts, flags, the parts, and
 * err's code on failure. err's message is cleaned like served text (a
 * sentence quoting the caller's input never carries a secret back). */
void mg_gate_finish(struct mg_ctx *x, int rc, struct mg_err *err);
/* After mg_gate_finish: was the request's event written? 0 yes (or the
 * server keeps no audit log); else -1 with err saying why not (in
 * PostgreSQL, storage_unavailable when it cannot be reached). A call whose
 * event could not be written is not answered as if audited: the caller
 * withholds its result and answers this error (tools/registry.c,
 * docs/security.md "Audit log"). */
int mg_gate_audited(struct mg_ctx *x, struct mg_err *err);

/* An audit event for a refusal before any request context exists (HTTP
 * authentication, rate limits, oversized headers, bad requests). Floods are
 * folded: the first MG_REFUSAL_EACH refusals of a (tenant, op, code, what)
 * in an interval of MG_REFUSAL_WINDOW_MS are written at once, the others of
 * that interval are counted and written as one event with "repeated": N
 * when the interval is over (at the next refusal, or when the server
 * closes); past MG_REFUSAL_BURST events written in one interval, refusals
 * of every key are counted together under what "(more sources)". So a flood
 * costs a bounded number of lines per interval, and nothing goes uncounted. */
#define MG_REFUSAL_WINDOW_MS 10000
#define MG_REFUSAL_EACH 5
#define MG_REFUSAL_BURST 200
#define MG_REFUSAL_SLOTS 64
void mg_gate_refusal(struct mg_server *srv, const char *tenant, const char *op, const char *what, const char *code);
struct mg_refusals *mg_refusals_new(void);
/* How many audit events of requests and refusals this thread has handed to
 * the log (mg_gate_finish, mg_gate_refusal). A transport reads it before
 * and after answering a message: when it did not move and the answer is an
 * error, nothing audited that refusal, and mg_gate_answered does. */
unsigned long mg_gate_thread_audits(void);
/* The one audit point of a transport's answers: code is the error the
 * answer carries (NULL or "": none, nothing is written); when no event was
 * handed to the log on this thread since `before` (mg_gate_thread_audits),
 * the answer is a refusal no request context audited and is written as
 * mg_gate_refusal's op "request_refused" (folded like every refusal). */
void mg_gate_answered(struct mg_server *srv, unsigned long before, const char *tenant, const char *what,
                      const char *code);
/* The error code an answer carries: {"error":{"code"}}, a JSON-RPC error
 * (its data.code, else its number named: rpc_parse_error, ...), or a tool
 * result with isError (its _meta memgate/error code, else the code its text
 * opens with, error[code], else tool_error); "" when it is no error. */
void mg_gate_answer_error(json_t *j, char *out, size_t cap);
/* Write an event no request context writes (a webhook delivery, its
 * background run): its query redacted like every event's. */
struct mg_audit_event;
void mg_gate_audit(struct mg_server *srv, struct mg_audit_event *ev);
/* Write the counts srv's table holds, and free it. */
void mg_refusals_free(struct mg_server *srv);

/* An identifier to be kept as given (a key, an id, a tag): 0 when it holds
 * no secret; else -1 with secret_in_identifier (what names it in the
 * sentence), or internal when the scan fails. */
int mg_gate_identifier(const struct mg_config *cfg, const char *what, const char *s, struct mg_err *err);

/* Redact secrets in s[0..n) with the index's policy: out receives the text,
 * *nred the count. -1 when the scan fails (then serve nothing). */
int mg_gate_redact(const struct mg_config *cfg, const char *s, size_t n, struct mg_buf *out, int *nred);

/* The audit log for /v1/audit and `memgate audit`: admin only; a token's
 * admin sees only its own tenant's events (the local principal sees all).
 * Itself audited (op audit_read). */
struct mg_audit_filter;
int mg_gate_audit_query(struct mg_ctx *x, const struct mg_audit_filter *f, json_t **out, struct mg_err *err);

/* The names of the prompt-injection reasons in why (MG_INJ_* bits of an
 * mg_injinfo: "instruction_override", "leetspeak", ...), at most cap into
 * names; returns how many. */
size_t mg_gate_injection_reasons(unsigned why, const char **names, size_t cap);

#endif
