/* memory.h — agent memory: notes, sessions, projects, episodes, entities,
 * profiles and get_context (docs/memory.md).
 *
 * Storage: one SQLite database per tenant, <data dir>/memory/<tenant>.db
 * (WAL, synchronous=NORMAL, 0600), opened once per process and shared by
 * its threads behind a mutex. Every row carries tenant, repo id, repo
 * fingerprint and (where it applies) project; every read re-checks them
 * against the request (the guardrail: mismatches are dropped, logged and
 * counted, kind "note", "episode", "entity", "session", "profile").
 *
 * The tools are ordinary server tools (server.h): the transports reach them
 * through the SecurityGate only, which redacts and sanitises their text.
 *
 * Schema (PRAGMA user_version 1):
 *   sessions(id, tenant, repo, repo_fp, external_id, project_id, created_at)
 *   projects(id, tenant, repo, repo_fp, name, isolated = 1, created_at)
 *   notes(id, tenant, repo, repo_fp, key, value, source, trust, session, created_at, updated_at)
 *   episodes(id, tenant, repo, repo_fp, session_id, summary, tags, created_at)
 *   entities(id, tenant, repo, repo_fp, project_id, session_id, name, type, notes, created_at)
 *   profiles(tenant, agent_id, key, value, updated_at)
 *   notes_fts, episodes_fts, entities_fts   FTS5 ("mgcode" token streams), rowid = the row's id
 */
#ifndef MG_MEMORY_H
#define MG_MEMORY_H

#include <stddef.h>

#include "server/server.h"

/* The memory tools (a static table). */
const struct mg_tool *mg_memory_tools(size_t *n);

/* Delete every memory row of repo `repo_id` from its tenant's database
 * (`memgate repos rm`). A tenant without a memory database: nothing to do. */
int mg_memory_forget_repo(const struct mg_config *c, const char *tenant, const char *repo_id, struct mg_err *err);

/* Close every cached memory database of this process (tests, shutdown). */
void mg_memory_close_all(void);

#endif
