/* gate.h — the SecurityGate: the one way in to every provider.
 *
 * Transports (src/mcp/rpc.c, src/mcp/stdio.c, src/server/http.c) never call
 * a provider (search, files, index, notes, memory, vectors) or a tool
 * function directly: they call mg_gate_call(), which
 *
 *   1. checks the caller's level against the tool's (read < write < admin);
 *   2. runs the tool, whose repo resolution asks mg_gate_repos() for tenant
 *      and repo access and the cross-repo policy;
 *   3. passes every piece of returned text (search snippets, file text, note
 *      values, context blocks) through redaction of secrets, sanitisation,
 *      prompt-injection flags, the per-item cap (max_chunk_bytes) and the
 *      per-response cap (max_context_bytes), and attributes it
 *      (`source: "path:line"`);
 *   4. appends one audit event for the call, success or failure.
 *
 * tests/test_gate.c checks the rule "no transport calls a provider" by
 * grepping the transport sources.
 */
#ifndef MG_GATE_H
#define MG_GATE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "security/access.h"
#include "store/catalog.h"
#include "util/buf.h"
#include "util/err.h"

struct mg_ctx;
struct mg_tool;
struct mg_server;

/* Open what the gate needs for a server: the audit log, and with_tokens
 * (HTTP) the token store and the rate limiter. mg_gate_close releases them. */
int mg_gate_open(struct mg_server *srv, bool with_tokens, struct mg_err *err);
void mg_gate_close(struct mg_server *srv);

/* Run tool t for the request x (the only way transports run tools). On
 * success *result is the filtered result. Errors are the tool's, or
 * scope_forbidden. Always audited. */
int mg_gate_call(struct mg_ctx *x, const struct mg_tool *t, json_t *args, json_t **result, struct mg_err *err);

/* Repo access for a request: v[0..*n) are the repos resolution chose.
 * explicit: the caller named them (an argument, a header, the scope).
 * Repos of another tenant are invisible: named explicitly they are
 * repo_not_found, otherwise they are dropped. A repo outside the token's
 * allowlist is repo_forbidden when named, dropped otherwise. More than one
 * repo is cross_repo_denied unless cross_repo is on. Compacts v and *n. */
int mg_gate_repos(struct mg_ctx *x, struct mg_repo *v, size_t *n, bool explicit_repo, struct mg_err *err);

/* Can the caller see this repo at all (tenant and allowlist)? */
bool mg_gate_repo_visible(const struct mg_ctx *x, const struct mg_repo *r);

/* The guardrail: count, log and audit rows dropped because they did not
 * match the request (kind: "code", "note", "episode", ...). */
void mg_gate_drop(struct mg_ctx *x, const char *kind, size_t n);

/* Filter a result in place as step 3 above does (exposed for tests and for
 * providers that build text outside a tool). Adds the redaction count and
 * flags to *redactions and *flags (MG_GATE_F_*). */
#define MG_GATE_F_INJECTION 0x1u
#define MG_GATE_F_TRUNCATED 0x2u
#define MG_GATE_F_HIDDEN    0x4u
#define MG_GATE_F_ESCAPES   0x8u
void mg_gate_filter(struct mg_ctx *x, json_t *result, int *redactions, unsigned *flags);

/* Redact secrets in s[0..n) with the built-in scanner at the configured
 * severities (secret_action_*): out receives the text, *nred the count. */
int mg_gate_redact(const struct mg_ctx *x, const char *s, size_t n, struct mg_buf *out, int *nred);

/* Append an audit event for request x: op, the repo, the query (capped),
 * result and redaction counts, one flag or NULL, an error code or NULL. */
void mg_gate_audit_event(struct mg_ctx *x, const char *op, const char *repo, const char *query, long long results,
                         int redactions, const char *flag, const char *code);

/* The audit log for /v1/audit: admin only; a token's admin sees only its
 * own tenant's events (the local principal sees all). Itself audited. */
struct mg_audit_filter;
int mg_gate_audit_query(struct mg_ctx *x, const struct mg_audit_filter *f, json_t **out, struct mg_err *err);

#endif
