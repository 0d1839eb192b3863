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
 */
#ifndef MG_PROVIDER_H
#define MG_PROVIDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "provider/item.h"
#include "provider/scope.h"
#include "store/catalog.h"
#include "store/settings.h"
#include "util/config.h"
#include "util/err.h"

/* ---- one call ------------------------------------------------------------------------------- */

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

/* ---- code --------------------------------------------------------------------------------- */

/* A search hit: one chunk (lexical, regex, semantic, hybrid) or one definition (symbol). */
struct mg_code_hit {
    struct mg_item base;               /* owner: tenant, repo, fingerprint */
    char *repo, *path, *language, *symbol, *kind; /* labels (language, symbol, kind may be NULL) */
    int64_t start_line, end_line;      /* the chunk's (or definition's) lines */
    int64_t line;                      /* the line the snippet centres on */
    double score;                      /* higher is better, rounded to 3 decimals */
    char *snippet;                     /* text: a few lines ... */
    int64_t snippet_line;              /* ... starting at this line */
    /* lexical, regex and fixed-string hits: the matches in the chunk and the
     * lines holding them (at most MG_MATCH_LINES_MAX of search/search.h;
     * match_lines.omitted counts the rest); 0 and none for other modes */
    int64_t match_count;
    struct mg_lines match_lines;
    bool stale;                        /* the file changed on disk since it was indexed (shown when true) */
    /* with mg_code_query.definition_lines: the innermost definition holding
     * the hit's line (def_name NULL: none, the chunk's lines stand in), and
     * the text of it, or of a window of it around that line (body_*) */
    char *def_name, *def_kind, *def_container; /* labels (NULL when none) */
    int64_t def_start_line, def_end_line;
    char *def_signature;               /* text: its first line(s) to its `{`, whitespace collapsed */
    char *body;                        /* text: lines body_start_line .. body_end_line of the indexed file */
    int64_t body_start_line, body_end_line;
    /* hybrid: the hit's place (1-based) in the lexical, semantic and symbol
     * lists it was fused from, 0 when not in one (numbers, not rendered) */
    int64_t rank_lexical, rank_semantic, rank_symbol;
    /* label: the external provider that found it (code/mcpcode.h); NULL: memgate's own index */
    char *provider;
};
extern const struct mg_item_type mg_item_code_hit;

/* Lines of one file (read). */
struct mg_file_text {
    struct mg_item base;
    char *repo, *path, *language;      /* labels */
    int64_t start_line, end_line, total_lines;
    bool truncated;                    /* more lines follow: continue from end_line + 1 */
    bool changed_since_index;          /* the file on disk is not the indexed version: search lines may differ */
    char *text;                        /* text */
};
extern const struct mg_item_type mg_item_file_text;

/* One definition of a file's outline (outline), after the file's mg_file_entry. */
struct mg_outline_def {
    struct mg_item base;
    char *name, *kind, *container;     /* labels (container NULL at top level) */
    int64_t start_line, end_line;
    char *signature;                   /* text: the definition's first line(s), to its `{`, whitespace collapsed */
};
extern const struct mg_item_type mg_item_outline_def;

/* One file of a listing. */
struct mg_file_entry {
    struct mg_item base;
    char *repo, *path, *language;      /* labels */
    int64_t bytes, lines;
};
extern const struct mg_item_type mg_item_file_entry;

/* What an index holds (repos). */
struct mg_repo_info {
    struct mg_item base;
    char *id, *root, *fingerprint;     /* labels */
    int64_t files, chunks, symbols, bytes, db_bytes, created_at, indexed_at;
    /* shared catalog (store/catalog.h; NULL and 0 without one): how this
     * daemon's index stands (current, behind, pending, absent, conflict), its
     * generation and the catalog's */
    char *index_state;                 /* label */
    int64_t generation, catalog_generation;
};
extern const struct mg_item_type mg_item_repo_info;

/* A repo's settings (settings, configure; and with each mg_repo_stats). */
struct mg_repo_setting_item {
    struct mg_item base;
    char *watch;                       /* label: on | off | default */
    char *watch_effective;             /* label: on | off (default: the config key watch) */
    int64_t reindex_interval;          /* seconds; 0: none */
    char *pull_on_push;                /* label: on | off */
};
extern const struct mg_item_type mg_item_repo_settings;

/* What an index holds and how its runs went (stats): an mg_repo_info (its
 * base is this item's), then the state of store/repostate.h; MG_INT_NULL
 * where not known. */
struct mg_repo_stats {
    struct mg_repo_info info;
    int64_t vectors;
    int64_t full_index_at, full_index_ms, incr_index_at, incr_index_ms;
    int64_t pending_changes;
    char *watch_state;                 /* label: watching | polling | off */
    int64_t watch_count;
    int64_t secrets_redacted;          /* by index runs so far */
    char *last_error;                  /* label: "code: sentence" of the last run, NULL when it succeeded */
    int64_t last_error_at;
    bool index_busy;                   /* a run holds the repo now */
};
extern const struct mg_item_type mg_item_repo_stats;

/* One index run (index). */
struct mg_index_run {
    struct mg_item base;
    char *repo, *root;                 /* labels */
    bool created, git;
    int64_t files, added, changed, unchanged, removed;            /* this run's files */
    int64_t skipped_binary, skipped_too_large, skipped_secret, skipped_symlink, skipped_unreadable,
        skipped_other;
    int64_t repaired_utf8, parse_failed, secrets_redacted, chunks_excluded;
    int64_t bytes_read, bytes_indexed;
    int64_t total_files, total_bytes, chunks, symbols;            /* the index after the run */
    double seconds, merge_seconds, map_seconds, cpu_workers, cpu_writer;
    char *embedder;                    /* label: the embedder's signature, or "none" */
    int64_t vec_files, vec_chunks, vec_pending;
    bool vec_reembedded;
    double vec_seconds, vec_columns_seconds; /* embedding; writing the column file (vector/vstore.h) */
    char *warning;                     /* label: what failed while embedding, or NULL */
    int64_t generation;                /* shared catalog: the repo's generation the index is now at (0: none) */
};
extern const struct mg_item_type mg_item_index_run;

/* A repo's index removed (remove). */
struct mg_removed {
    struct mg_item base;
    char *repo;                        /* label */
    bool removed;
    int64_t rows;                      /* memory rows removed with it (memory providers' forget) */
};
extern const struct mg_item_type mg_item_removed;

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
    int limit;           /* references: per page; calls: edges; trace: paths */
    const char *cursor;  /* references: next_cursor of the previous page */
    /* impact: the change, one of three */
    const char *const *paths; /* files changed as a whole */
    size_t npaths;
    const char *diff;         /* a unified diff */
    const char *revisions;    /* a git revision range: A..B, A...B, A (to the work tree) */
};

/* A definition of the name asked for (references, callers, callees, trace). */
struct mg_nav_def_item {
    struct mg_item base;               /* owner: tenant, repo, fingerprint */
    char *repo, *path, *name, *kind, *container; /* labels (container may be NULL) */
    int64_t line, end_line;
    char *change;                      /* label: impact's modified, added, removed; else NULL (left out) */
};
extern const struct mg_item_type mg_item_nav_def;

/* A use of the name: the line's text and the definition it is in. */
struct mg_nav_ref_item {
    struct mg_item base;
    char *repo, *path;                 /* labels */
    int64_t line;
    char *text;                        /* text: the line */
    bool call;
    char *in_name, *in_kind;           /* labels: the enclosing definition, NULL at top level */
    int64_t in_line;                   /* MG_INT_NULL at top level */
};
extern const struct mg_item_type mg_item_nav_ref;

/* One call: from a definition to a name, resolved to a definition or not. */
struct mg_nav_call_item {
    struct mg_item base;
    char *repo, *path;                 /* labels: the caller's file */
    int64_t line;                      /* where the call is */
    int64_t depth;                     /* 1: direct; trace: the call's place in its path */
    int64_t path_index;                /* trace: which path (0, 1, ...); else 0 */
    char *from_name, *from_kind;       /* labels: the calling definition ("file" kind: top-level code) */
    int64_t from_line;
    char *callee;                      /* label: the name called */
    char *to_path, *to_kind;           /* labels: its definition; NULL when none in the repo */
    int64_t to_line;                   /* MG_INT_NULL when none */
    char *confidence;                  /* label: file, name, ambiguous, external */
};
extern const struct mg_item_type mg_item_nav_call;

/* A caller, transitively, of a changed definition (impact), ranked. */
struct mg_nav_impact_item {
    struct mg_item base;
    char *repo, *path, *name, *kind, *container; /* labels: the caller */
    int64_t line, end_line;
    int64_t depth;                     /* 1: calls a changed definition */
    double score;
    char *calls;                       /* label: what it calls on its nearest way to the change */
    int64_t call_line;
    char *confidence;                  /* label: that call's resolution */
};
extern const struct mg_item_type mg_item_nav_impact;

/* A file of the change that impact could not read (not indexed, out of
 * scope, not code) or whose diff does not match the index (stale). */
struct mg_nav_skip_item {
    struct mg_item base;
    char *repo, *path, *reason;        /* labels */
};
extern const struct mg_item_type mg_item_nav_skip;

/* How a navigation went: the last item of every answer. */
struct mg_nav_summary {
    struct mg_item base;
    char *repo, *symbol;               /* labels */
    int64_t candidate_files;           /* references: files with the name's word (an upper bound on files) */
    int64_t total;                     /* references of the page, or all when complete; calls found; paths */
    int64_t visited;                   /* trace: functions expanded */
    char *next_cursor;                 /* label: references' next page; NULL: none */
    bool complete, truncated;
};
extern const struct mg_item_type mg_item_nav_summary;

/* The repo map (search/repomap.h) of pcall's one repo and scope. */
struct mg_repomap_query {
    int64_t budget_tokens;
    const char *const *focus_files;    /* paths relative to the repo root */
    size_t nfocus_files;
    const char *const *focus_symbols;  /* names */
    size_t nfocus_symbols;
};

/* A file of the map, best first; its definitions follow it. */
struct mg_repomap_file_item {
    struct mg_item base;
    char *repo, *path, *language;      /* labels */
    double rank;                       /* PageRank: the files in scope sum to 1 */
};
extern const struct mg_item_type mg_item_repomap_file;

/* One of a map file's definitions, by line. */
struct mg_repomap_def_item {
    struct mg_item base;
    char *repo, *path, *name, *kind;   /* labels */
    int64_t line, end_line;
    double score;                      /* the rank flowing into its name */
    char *text;                        /* text: its first line, trimmed; NULL when unreadable */
};
extern const struct mg_item_type mg_item_repomap_def;

/* How the map went: the last item. */
struct mg_repomap_summary {
    struct mg_item base;
    char *repo;                        /* label */
    int64_t budget_tokens, tokens;     /* asked; used by the rendered map (bytes / 4, rounded up) */
    int64_t files, considered;         /* files in the map; files in scope the graph holds */
    bool cached, truncated;            /* graph from the cache; ranked files left out for the budget */
    bool stale;                        /* the graph is an older index generation's (search/repomap.h) */
};
extern const struct mg_item_type mg_item_repomap_summary;

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

/* ---- notes -------------------------------------------------------------------------------- */

struct mg_note {
    struct mg_item base;               /* owner: tenant, repo, fingerprint */
    char *repo, *key, *source, *session; /* labels */
    char *value;                       /* text */
    double trust;
    int64_t created_at, updated_at;
    bool created;                      /* set: this call made it (rendered by set_note only) */
};
extern const struct mg_item_type mg_item_note;

/* A note deleted (or not there): key and whether a row went. */
struct mg_note_gone {
    struct mg_item base;
    char *key;                         /* label */
    bool deleted;
};
extern const struct mg_item_type mg_item_note_gone;

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

/* ---- session memory: episodes and projects ----------------------------------------------- */

struct mg_episode {
    struct mg_item base;               /* owner: tenant, repo, fingerprint, project */
    int64_t id;
    char *session;                     /* label: the conversation that stored it */
    char *summary;                     /* text */
    char **tags;                       /* labels */
    size_t ntags;
    int64_t created_at;
    double score;
};
extern const struct mg_item_type mg_item_episode;

struct mg_project {
    struct mg_item base;               /* owner: tenant, repo, fingerprint */
    char *name, *repo;                 /* labels */
    int64_t id, sessions, created_at;
    bool isolated;
};
extern const struct mg_item_type mg_item_project;

/* A session's project changed (join, leave) or a project deleted. */
struct mg_membership {
    struct mg_item base;
    char *session, *project, *repo;    /* labels (project NULL: none) */
    bool deleted;                      /* delete: the project went, with... */
    int64_t sessions, episodes, entities; /* ... these counts */
};
extern const struct mg_item_type mg_item_membership;
extern const struct mg_item_type mg_item_project_deleted;

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

/* ---- entities ----------------------------------------------------------------------------- */

struct mg_entity {
    struct mg_item base;               /* owner: tenant, repo, fingerprint, project */
    int64_t id;
    char *name, *type;                 /* labels */
    char *notes;                       /* text */
    char *project;                     /* label, NULL: none */
    int64_t created_at;
    double score;
};
extern const struct mg_item_type mg_item_entity;

struct mg_retagged {
    struct mg_item base;
    int64_t retagged;
    char *project;                     /* label, NULL: none */
};
extern const struct mg_item_type mg_item_retagged;

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

/* ---- profiles ----------------------------------------------------------------------------- */

struct mg_pref {
    struct mg_item base;               /* owner: tenant */
    char *agent_id, *key;              /* labels */
    char *value;                       /* text */
};
extern const struct mg_item_type mg_item_pref;

/* An agent's profile: one mg_profile, then its mg_pref items. */
struct mg_profile {
    struct mg_item base;
    char *agent_id;                    /* label */
};
extern const struct mg_item_type mg_item_profile;

/* Profiles are global to the tenant: pcall names no repo. */
struct mg_profiles_ops {
    int (*save)(void *self, const struct mg_pcall *pc, const char *agent, const char *key, const char *value,
                struct mg_items *out, struct mg_err *err);
    int (*get)(void *self, const struct mg_pcall *pc, const char *agent, struct mg_items *out, struct mg_err *err);
    void (*close)(void *self);
};

/* ---- the set a server runs with ------------------------------------------------------------ */

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
