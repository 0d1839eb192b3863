/* memory.h — the built-in memory providers: notes, session memory (episodes
 * and projects), entities and profiles, in one SQLite database per tenant,
 * or in the shared PostgreSQL database.
 *
 * Storage: <data dir>/memory/<tenant>.db (WAL, synchronous=NORMAL, 0600),
 * opened once per process and shared by its threads behind a mutex; with
 * storage = postgres://... the same tables with a tenant column and
 * row-level security (store/pgschema.c, step 0002_memory), reached through a
 * pooled connection per call (internal.h, docs/memory.md). Every
 * row carries tenant, repo id, repo fingerprint and (where it applies)
 * project; the providers report them as each item's owner, and the gate
 * drops and counts any item that is not the request's (docs/memory.md).
 * The providers store what they are given: the gate has redacted the
 * secrets of every string an operation stores, and refused identifiers
 * holding one (request/gate.h), so a secret told to memory never reaches the
 * database.
 *
 * Schema (PRAGMA user_version 2; 2 adds unique keys that hold the tenant, as
 * PostgreSQL's do, for the statements' ON CONFLICT targets):
 *   sessions(id, tenant, repo, repo_fp, external_id, project_id, created_at)
 *   projects(id, tenant, repo, repo_fp, name, isolated = 1, created_at)
 *   notes(id, tenant, repo, repo_fp, key, value, source, trust, session, created_at, updated_at)
 *   episodes(id, tenant, repo, repo_fp, session_id, summary, tags, created_at)
 *   entities(id, tenant, repo, repo_fp, project_id, session_id, name, type, notes, created_at)
 *   profiles(tenant, agent_id, key, value, updated_at)
 *   notes_fts, episodes_fts, entities_fts   FTS5 ("mgcode" token streams), rowid = the row's id
 *                                           (PostgreSQL: a `body` tsvector column of the row)
 */
#ifndef MG_MEMORY_H
#define MG_MEMORY_H

#include "provider/provider.h"

/* Fill p's notes, sessions, entities and profiles with the built-in
 * providers for cfg (borrowed: it must outlive them). 0, or -1 with err. */
int mg_memory_builtin_open(const struct mg_config *cfg, struct mg_providers *p, struct mg_err *err);

/* Close every cached memory database of this process (the providers'
 * close does it: one server per process). */
void mg_memory_close_all(void);

#endif
