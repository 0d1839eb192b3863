/* provider.h — the provider interfaces (seed 003 §2.1): one vtable per
 * concern, each a struct of function pointers over a `void *self`.
 *
 *   code       search, symbols, read, outline, list, repos, index, remove,
 *              stats, settings (a repo's code and its index)
 *   notes      durable key/value knowledge per repo
 *   sessions   session memory: episodes, and the projects that group sessions
 *   entities   named things of a project
 *   profiles   an agent's preferences (per tenant, global by design)
 *
 * (The engines below the gate have their own plug-in points: chunkers in
 * index/chunker.h, vector stores in vector/vstore.h.)
 *
 * The rules every provider keeps, built in or external:
 *   - it is called by the gate only (request/gate.h), with a struct mg_pcall
 *     that carries the caller's tenant, the repos the gate resolved and the
 *     effective scope; it answers for those and nothing else, and applies
 *     the scope inside its queries, not after them;
 *   - it returns items (item.h) whose owner it fills honestly (tenant, repo,
 *     fingerprint, project): the gate drops and counts any that are not the
 *     request's, and cleans every declared text field before anyone sees it;
 *   - it never calls the gate, a tool, or another provider, and never builds
 *     JSON for a transport;
 *   - on failure it returns -1 with err set (a stable code and a sentence),
 *     and whatever it appended to out is discarded by the caller.
 * Functions of one provider may be called from several threads at once.
 * What they return is declared in types.h (the item types).
 *
 * Sections:
 *   1. one call
 *   2. code
 *   3. notes
 *   4. session memory: episodes and projects
 *   5. entities
 *   6. profiles
 *   7. the set a server runs with
 */
#ifndef MG_PROVIDER_H
#define MG_PROVIDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "provider/item.h"
#include "provider/scope.h"
#include "provider/types.h"
#include "store/catalog.h"
#include "store/settings.h"
#include "util/config.h"
#include "util/err.h"

/* ---- 1. one call ------------------------------------------------------------------------------- */

struct mg_pcall {
    const struct mg_config *cfg;
    const char *tenant;               /* the caller's tenant */
    bool token;                       /* the caller authenticated with an access token (not the local principal) */
    const struct mg_repo *repos;      /* the repos the gate resolved (none for some operations) */
    size_t nrepos;
    const struct mg_scope *scope;     /* the effective scope (globs, excludes, languages); never NULL */
    int64_t deadline_ms;              /* CLOCK_MONOTONIC milliseconds; 0: none */
    const volatile int *stop;         /* nonzero: stop early (the server is stopping); may be NULL */
    /* progress of long work (indexing); may be NULL */
    void (*progress)(void *ud, double done, double total, const char *message);
    void *progress_ud;
    /* index: why it runs (the shared catalog's notification says it): NULL
     * or "index" (a tool, the command line), "push" (a webhook), "schedule"
     * (reindex_interval), "catchup" (a follower bringing its copy up to the
     * catalog: no new generation); and a push's delivery id (or NULL) */
    const char *index_reason;
    const char *index_delivery;
};

/* ---- 2. code --------------------------------------------------------------------------------- */

struct mg_code_query {
    const char *query;
    const char *mode;  /* "lexical", "regex", "symbol", "semantic", "hybrid", or NULL for the default */
    bool fixed;        /* regex: the query is a literal string */
    bool ignore_case;  /* regex: case-insensitive */
    int limit;         /* most hits; 0: the configured default */
    bool no_match_lines; /* hits without their matching lines (get_context shows the snippet alone) */
    /* > 0: each hit with its enclosing definition (mg_code_hit.def_*, body):
     * the whole of it when it spans at most this many lines, else a window
     * of this many lines centred on the hit's line; body is cut at a line
     * end to max_chunk_bytes, and the hit's snippet is left out */
    int definition_lines;
};

struct mg_read_query {
    const char *path;  /* relative to the repo root */
    int64_t start_line, end_line; /* 1-based; end 0: to the end */
    int max_lines;     /* most lines served */
    size_t max_bytes;  /* most bytes served (cut at a line end) */
};

struct mg_outline_query {
    const char *path;  /* relative to the repo root */
    int64_t limit, offset; /* the page: definitions offset .. offset + limit - 1, by start line */
};

struct mg_list_query {
    int64_t limit, offset;
};

struct mg_index_query {
    const char *path;  /* the directory; NULL: re-index the resolved repo */
    const char *name;  /* the repo id to use for a new repo, or NULL */
};

/* Changes to a repo's settings (store/settings.h); n 0: only read them. */
struct mg_settings_query {
    const struct mg_setting_change *v;
    size_t n;
};

/* Code navigation (search/nav.h) over pcall's one repo and scope. */
struct mg_nav_query {
    const char *op;      /* "references", "callers", "callees", "trace" */
    const char *symbol;  /* the name (trace: where paths start) */
    const char *to;      /* trace: where they end */
    int depth;           /* callers, callees: levels; trace: the longest path */
    int limit;           /* references: per page; calls: edges a page; trace: paths */
    const char *cursor;  /* references: next_cursor of the previous page;
                          * callers, callees: the page's first call, in
                          * decimal (NULL: 0) */
    /* impact: the change, one of three */
    const char *const *paths; /* files changed as a whole */
    size_t npaths;
    const char *diff;         /* a unified diff */
    const char *revisions;    /* a git revision range: A..B, A...B, A (to the work tree) */
};

/* The repo map (search/repomap.h) of pcall's one repo and scope. */
struct mg_repomap_query {
    int64_t budget_tokens;
    const char *const *focus_files;    /* paths relative to the repo root */
    size_t nfocus_files;
    const char *const *focus_symbols;  /* names */
    size_t nfocus_symbols;
};

struct mg_code_ops {
    /* hits in pcall's repos and scope, best first (out->took_ms, out->mode;
     * regex and fixed-string search: out->total_matches) */
    int (*search)(void *self, const struct mg_pcall *pc, const struct mg_code_query *q, struct mg_items *out,
                  struct mg_err *err);
    /* definitions by name (q->mode is ignored) */
    int (*symbols)(void *self, const struct mg_pcall *pc, const struct mg_code_query *q, struct mg_items *out,
                   struct mg_err *err);
    /* lines of one file of pcall's one repo: a mg_file_text */
    int (*read)(void *self, const struct mg_pcall *pc, const struct mg_read_query *q, struct mg_items *out,
                struct mg_err *err);
    /* the definitions of one file of pcall's one repo, as the index holds them: the file's
     * mg_file_entry, then a page of mg_outline_def by start line (out->total: all of them) */
    int (*outline)(void *self, const struct mg_pcall *pc, const struct mg_outline_query *q, struct mg_items *out,
                   struct mg_err *err);
    /* files in pcall's repos and scope, by path (out->total) */
    int (*list)(void *self, const struct mg_pcall *pc, const struct mg_list_query *q, struct mg_items *out,
                struct mg_err *err);
    /* what the index of each of pcall's repos holds: mg_repo_info */
    int (*repos)(void *self, const struct mg_pcall *pc, struct mg_items *out, struct mg_err *err);
    /* index a directory for pcall's tenant (or re-index pcall's one repo): a mg_index_run */
    int (*index)(void *self, const struct mg_pcall *pc, const struct mg_index_query *q, struct mg_items *out,
                 struct mg_err *err);
    /* delete the index of pcall's one repo: a mg_removed */
    int (*remove)(void *self, const struct mg_pcall *pc, struct mg_items *out, struct mg_err *err);
    /* for each of pcall's repos: an mg_repo_stats, then its mg_repo_setting_item */
    int (*stats)(void *self, const struct mg_pcall *pc, struct mg_items *out, struct mg_err *err);
    /* apply q's changes to pcall's one repo (all or none), then its settings: an mg_repo_setting_item */
    int (*settings)(void *self, const struct mg_pcall *pc, const struct mg_settings_query *q, struct mg_items *out,
                    struct mg_err *err);
    /* code navigation: mg_nav_def_items, then mg_nav_ref_items or mg_nav_call_items, then an mg_nav_summary */
    int (*nav)(void *self, const struct mg_pcall *pc, const struct mg_nav_query *q, struct mg_items *out,
               struct mg_err *err);
    /* the repo map: per file an mg_repomap_file_item and its mg_repomap_def_items, then an mg_repomap_summary */
    int (*repomap)(void *self, const struct mg_pcall *pc, const struct mg_repomap_query *q, struct mg_items *out,
                   struct mg_err *err);
    void (*close)(void *self);
};

/* ---- 3. notes -------------------------------------------------------------------------------- */

struct mg_note_in {
    const char *key, *value;
    const char *source;                /* user_stated, llm_extracted, inferred */
    double trust;                      /* 0..1 */
    const char *session;               /* the conversation that wrote it */
};

/* Memory is per tenant and per repo: pcall names one repo (nrepos == 1). */
struct mg_notes_ops {
    int (*set)(void *self, const struct mg_pcall *pc, const struct mg_note_in *in, struct mg_items *out,
               struct mg_err *err);
    int (*get)(void *self, const struct mg_pcall *pc, const char *key, struct mg_items *out, struct mg_err *err);
    /* newest first, keys starting with prefix (NULL: all) */
    int (*list)(void *self, const struct mg_pcall *pc, const char *prefix, int limit, struct mg_items *out,
                struct mg_err *err);
    /* ranked by relevance to query */
    int (*search)(void *self, const struct mg_pcall *pc, const char *query, int limit, struct mg_items *out,
                  struct mg_err *err);
    int (*remove)(void *self, const struct mg_pcall *pc, const char *key, struct mg_items *out, struct mg_err *err);
    /* every note of pcall's repo (the repo's index is going): out->total rows */
    int (*forget)(void *self, const struct mg_pcall *pc, struct mg_items *out, struct mg_err *err);
    void (*close)(void *self);
};

/* What memory accepts, whatever the provider: tools check arguments against
 * these before a provider sees them. */
#define MG_NOTE_KEY_MAX 256
#define MG_NOTE_VALUE_MAX (64 << 10)
#define MG_SUMMARY_MAX (16 << 10)
#define MG_TAGS_MAX 16
#define MG_TAG_MAX 64
#define MG_ENTITY_NAME_MAX 256
#define MG_ENTITY_TYPE_MAX 64
#define MG_ENTITY_NOTES_MAX (16 << 10)
#define MG_ENTITIES_MAX 1000
#define MG_SESSION_ID_MAX 128

/* 1-128 characters of A-Z a-z 0-9 . _ : - (conversation ids, agent ids). */
bool mg_memory_id_ok(const char *s);

/* ---- 4. session memory: episodes and projects ----------------------------------------------- */

/* Every call names the conversation (session: its durable id); the
 * provider keeps which project it is in, and fills out->place. */
struct mg_sessions_ops {
    int (*remember)(void *self, const struct mg_pcall *pc, const char *session, const char *summary,
                    const char *const *tags, size_t ntags, struct mg_items *out, struct mg_err *err);
    /* the session's pool (its project's, or the shared one), best first;
     * query NULL: the newest */
    int (*recall)(void *self, const struct mg_pcall *pc, const char *session, const char *query, int limit,
                  struct mg_items *out, struct mg_err *err);
    int (*project_create)(void *self, const struct mg_pcall *pc, const char *name, struct mg_items *out,
                          struct mg_err *err);
    int (*project_list)(void *self, const struct mg_pcall *pc, struct mg_items *out, struct mg_err *err);
    /* put the session in project `name`, or in none (NULL) */
    int (*project_join)(void *self, const struct mg_pcall *pc, const char *session, const char *name,
                        struct mg_items *out, struct mg_err *err);
    /* the project with its entities and its sessions' episodes */
    int (*project_delete)(void *self, const struct mg_pcall *pc, const char *name, struct mg_items *out,
                          struct mg_err *err);
    int (*forget)(void *self, const struct mg_pcall *pc, struct mg_items *out, struct mg_err *err);
    void (*close)(void *self);
};

/* ---- 5. entities ----------------------------------------------------------------------------- */

struct mg_entity_in {
    const char *name, *type, *notes;
};

struct mg_entities_ops {
    /* tagged with the session's project at this moment */
    int (*add)(void *self, const struct mg_pcall *pc, const char *session, const struct mg_entity_in *v, size_t n,
               struct mg_items *out, struct mg_err *err);
    /* the session's project's entities (none outside a project); query NULL: the newest */
    int (*search)(void *self, const struct mg_pcall *pc, const char *session, const char *query, int limit,
                  struct mg_items *out, struct mg_err *err);
    /* move entities to project `name` (NULL: none) */
    int (*retag)(void *self, const struct mg_pcall *pc, const int64_t *ids, size_t n, const char *name,
                 struct mg_items *out, struct mg_err *err);
    int (*forget)(void *self, const struct mg_pcall *pc, struct mg_items *out, struct mg_err *err);
    void (*close)(void *self);
};

/* ---- 6. profiles ----------------------------------------------------------------------------- */

/* Profiles are global to the tenant: pcall names no repo. */
struct mg_profiles_ops {
    int (*save)(void *self, const struct mg_pcall *pc, const char *agent, const char *key, const char *value,
                struct mg_items *out, struct mg_err *err);
    int (*get)(void *self, const struct mg_pcall *pc, const char *agent, struct mg_items *out, struct mg_err *err);
    void (*close)(void *self);
};

/* ---- 7. the set a server runs with ------------------------------------------------------------ */

#define MG_PROVIDER_NAME_MAX 32

struct mg_code_provider {
    const struct mg_code_ops *ops;
    void *self;
    char name[MG_PROVIDER_NAME_MAX];
};
struct mg_notes_provider {
    const struct mg_notes_ops *ops;
    void *self;
    char name[MG_PROVIDER_NAME_MAX];
};
struct mg_sessions_provider {
    const struct mg_sessions_ops *ops;
    void *self;
    char name[MG_PROVIDER_NAME_MAX];
};
struct mg_entities_provider {
    const struct mg_entities_ops *ops;
    void *self;
    char name[MG_PROVIDER_NAME_MAX];
};
struct mg_profiles_provider {
    const struct mg_profiles_ops *ops;
    void *self;
    char name[MG_PROVIDER_NAME_MAX];
};

struct mg_providers {
    struct mg_code_provider code;
    /* external MCP servers as code providers (code/mcpcode.h): search only */
    struct mg_code_provider ext_code[MG_MCP_PROVIDERS_MAX];
    int next_code;
    struct mg_notes_provider notes;
    struct mg_sessions_provider sessions;
    struct mg_entities_provider entities;
    struct mg_profiles_provider profiles;
};

#endif
