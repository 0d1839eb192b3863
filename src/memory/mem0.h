/* mem0.h — session memory in Mem0 (issue 21, docs/providers.md "Session
 * memory in Mem0"): a sessions provider whose episodes live in a Mem0
 * REST server, the self-hosted open-source one (mem0ai/mem0 server/):
 *
 *   POST   /memories        {messages:[{role,content}], user_id, run_id, metadata, infer:false}
 *   POST   /search          {query, filters:{user_id, mg_session:{in:[...]}}, top_k}
 *   GET    /memories?user_id=U[&run_id=S]&top_k=N
 *   DELETE /memories/{id}
 *
 * with `X-API-Key: <mem0_api_key>` when a key is set. Projects and which
 * session is in which stay in memgate's own memory database (the built-in
 * provider's tables), so the pools are exactly the built-in's; only the
 * episodes move.
 *
 * Scoping: user_id is "mg-" and 32 hex digits of an unkeyed BLAKE2b of
 * (tenant, repo id, repo fingerprint): never the raw names; run_id is the
 * conversation's id; metadata carries mg_tenant, mg_repo, mg_fp,
 * mg_session, mg_project (at the time, for people reading Mem0), mg_tags
 * and mg_created_at. A search pushes the pool down (user_id and
 * mg_session in the pool's sessions) and every row that comes back is
 * checked again: a row of another tenant, repo or fingerprint, or (search)
 * of a session outside the pool, is dropped, logged and counted
 * (mg_items.foreign, memgate_isolation_drops_total{kind="episode"}).
 *
 * Failure: remember, project_delete and forget fail with
 * provider_unavailable (nothing acknowledged that Mem0 did not confirm);
 * recall answers with no episodes and mg_items.degraded = "mem0". Each
 * failure counts in memgate_provider_errors_total{provider="mem0"} and
 * logs a warning. The key is sent only in its header: never in a message,
 * a log line or the audit.
 */
#ifndef MG_MEM0_H
#define MG_MEM0_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "provider/provider.h"

#define MG_MEM0_MAX_ANSWER (8u << 20) /* bytes of one answer kept; more is a failure */
#define MG_MEM0_MAX_ROWS 1000         /* rows of one answer (and GET's top_k, the server's own cap) */
#define MG_MEM0_POOL_MAX 1000         /* sessions named in one search filter: the pool's newest */

/* Replace p->sessions with the Mem0 provider for cfg (borrowed: it must
 * outlive the provider), keeping the built-in one (already in p->sessions)
 * for projects and membership. 0, or -1 with invalid_config (mem0_url
 * missing or not http(s)://, credentials in it; a key that cannot go in a
 * header line). */
int mg_mem0_open(const struct mg_config *cfg, struct mg_providers *p, struct mg_err *err);

/* One memory of an answer. Strings owned; NULL when absent. */
struct mg_mem0_row {
    char *id, *memory, *event, *user_id, *run_id;
    char *tenant, *repo, *fp, *session, *project, *tags; /* metadata mg_* */
    int64_t created_at;                                 /* metadata mg_created_at; 0 absent */
    double score;
};
struct mg_mem0_rows {
    struct mg_mem0_row *v;
    size_t n;
};

/* Parse an answer {"results": [{id, memory, ...}]} of at most
 * MG_MEM0_MAX_ANSWER bytes and MG_MEM0_MAX_ROWS rows. Every row needs an
 * id of 1-64 characters of A-Z a-z 0-9 - _ and a string memory; the other
 * fields are taken when they have the right type and left NULL otherwise
 * (the caller's owner check drops such rows). 0, or -1 with
 * provider_unavailable saying what is wrong (out is then empty). */
int mg_mem0_parse(const char *body, size_t len, struct mg_mem0_rows *out, struct mg_err *err);
void mg_mem0_rows_release(struct mg_mem0_rows *r);

#endif
