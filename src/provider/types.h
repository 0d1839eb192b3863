/* types.h — every item type a provider returns, each declared once: a list
 * of the fields it shows (item.h, "Declaring a type once"), from which its
 * struct's members and its table (types.c) are both made. The order of a
 * list is the order a tool shows the fields in.
 *
 * Sections:
 *   1. code: hits, files, outlines, repos, index runs
 *   2. code navigation and the repo map
 *   3. notes
 *   4. session memory: episodes and projects
 *   5. entities
 *   6. profiles
 */
#ifndef MG_PROVIDER_TYPES_H
#define MG_PROVIDER_TYPES_H

#include <stdbool.h>
#include <stdint.h>

#include "provider/item.h"

/* ---- 1. code: hits, files, outlines, repos, index runs ------------------------------------------------ */

/* A search hit: one chunk (lexical, regex, semantic, hybrid) or one definition (symbol). */
#define MG_CODE_HIT_FIELDS(F, FA)                                                                                    \
    F(LABEL, repo, 0)                                                                                                \
    F(LABEL, path, MG_F_SOURCE)                                                                                      \
    F(INT, start_line, 0)              /* the chunk's (or definition's) lines */                                     \
    F(INT, end_line, 0)                                                                                              \
    F(INT, line, MG_F_LINE)            /* the line the snippet centres on */                                         \
    F(LABEL, language, MG_F_NULL)                                                                                    \
    F(LABEL, symbol, MG_F_NULL)                                                                                      \
    F(LABEL, kind, MG_F_NULL)                                                                                        \
    F(REAL, score, 0)                  /* higher is better, rounded to 3 decimals */                                 \
    F(TEXT, snippet, 0)                /* a few lines ... */                                                         \
    F(INT, snippet_line, 0)            /* ... starting at this line */                                               \
    /* lexical, regex and fixed-string hits: the matches in the chunk and the lines holding them (at most           \
     * MG_MATCH_LINES_MAX of search/search.h; match_lines.omitted counts the rest); 0 and none for other modes */    \
    F(INT, match_count, MG_F_OMIT0)                                                                                  \
    F(LINES, match_lines, MG_F_OMIT0)                                                                                \
    F(BOOL, stale, MG_F_OMIT0)         /* the file changed on disk since it was indexed (shown when true) */         \
    /* with mg_code_query.definition_lines: the innermost definition holding the hit's line (def_name NULL: none,   \
     * the chunk's lines stand in), and the text of it, or of a window of it around that line (body_*) */          \
    F(LABEL, def_name, 0)                                                                                            \
    F(LABEL, def_kind, 0)                                                                                            \
    F(LABEL, def_container, 0)                                                                                       \
    F(INT, def_start_line, MG_F_OMIT0)                                                                               \
    F(INT, def_end_line, MG_F_OMIT0)                                                                                 \
    F(TEXT, def_signature, 0)          /* its first line(s) to its `{`, whitespace collapsed */                      \
    F(TEXT, body, 0)                   /* lines body_start_line .. body_end_line of the indexed file */              \
    F(INT, body_start_line, MG_F_OMIT0)                                                                              \
    F(INT, body_end_line, MG_F_OMIT0)                                                                                \
    F(LABEL, provider, MG_F_ORIGIN)    /* the external provider that found it (code/mcpcode.h); NULL: our index */
struct mg_code_hit {
    struct mg_item base;               /* owner: tenant, repo, fingerprint */
    MG_ITEM_MEMBERS(MG_CODE_HIT_FIELDS)
    /* hybrid: the hit's place (1-based) in the lexical, semantic and symbol
     * lists it was fused from, 0 when not in one (numbers, not shown) */
    int64_t rank_lexical, rank_semantic, rank_symbol;
};
extern const struct mg_item_type mg_item_code_hit;

/* Lines of one file (read). */
#define MG_FILE_TEXT_FIELDS(F, FA)                                                                                   \
    F(LABEL, repo, 0)                                                                                                \
    F(LABEL, path, MG_F_SOURCE)                                                                                      \
    F(LABEL, language, 0)                                                                                            \
    F(INT, start_line, MG_F_LINE)                                                                                    \
    F(INT, end_line, 0)                                                                                              \
    F(INT, total_lines, 0)                                                                                           \
    F(BOOL, truncated, 0)              /* more lines follow: continue from end_line + 1 */                           \
    F(BOOL, changed_since_index, 0)    /* the file on disk is not the indexed version: search lines may differ */   \
    F(TEXT, text, 0)
struct mg_file_text {
    struct mg_item base;
    MG_ITEM_MEMBERS(MG_FILE_TEXT_FIELDS)
};
extern const struct mg_item_type mg_item_file_text;

/* One definition of a file's outline (outline), after the file's mg_file_entry; no source: the result names
 * the file once, and each definition's lines are its own. */
#define MG_OUTLINE_DEF_FIELDS(F, FA)                                                                                 \
    F(LABEL, name, 0)                                                                                                \
    F(LABEL, kind, 0)                                                                                                \
    F(LABEL, container, 0)             /* NULL at top level */                                                       \
    F(INT, start_line, 0)                                                                                            \
    F(INT, end_line, 0)                                                                                              \
    F(TEXT, signature, 0)              /* the definition's first line(s), to its `{`, whitespace collapsed */
struct mg_outline_def {
    struct mg_item base;
    MG_ITEM_MEMBERS(MG_OUTLINE_DEF_FIELDS)
};
extern const struct mg_item_type mg_item_outline_def;

/* One file of a listing. */
#define MG_FILE_ENTRY_FIELDS(F, FA)                                                                                  \
    F(LABEL, repo, 0)                                                                                                \
    F(LABEL, path, MG_F_SOURCE)                                                                                      \
    F(LABEL, language, 0)                                                                                            \
    F(INT, bytes, 0)                                                                                                 \
    F(INT, lines, 0)
struct mg_file_entry {
    struct mg_item base;
    MG_ITEM_MEMBERS(MG_FILE_ENTRY_FIELDS)
};
extern const struct mg_item_type mg_item_file_entry;

/* What an index holds (repos). index_state, generation, catalog_generation: with a shared catalog
 * (store/catalog.h; NULL and 0 without one), how this daemon's index stands (current, behind, pending,
 * absent, conflict), its generation and the catalog's. */
#define MG_REPO_INFO_FIELDS(F, FA)                                                                                   \
    F(LABEL, id, MG_F_SOURCE)                                                                                        \
    F(LABEL, root, 0)                                                                                                \
    F(LABEL, fingerprint, 0)                                                                                         \
    F(INT, files, 0)                                                                                                 \
    F(INT, chunks, 0)                                                                                                \
    F(INT, symbols, 0)                                                                                               \
    F(INT, bytes, 0)                                                                                                 \
    F(INT, db_bytes, 0)                                                                                              \
    F(INT, created_at, 0)                                                                                            \
    F(INT, indexed_at, 0)                                                                                            \
    F(LABEL, index_state, 0)                                                                                         \
    F(INT, generation, MG_F_OMIT0)                                                                                   \
    F(INT, catalog_generation, MG_F_OMIT0)
struct mg_repo_info {
    struct mg_item base;
    MG_ITEM_MEMBERS(MG_REPO_INFO_FIELDS)
};
extern const struct mg_item_type mg_item_repo_info;

/* A repo's settings (settings, configure; and with each mg_repo_stats). */
#define MG_REPO_SETTINGS_FIELDS(F, FA)                                                                               \
    F(LABEL, watch, 0)                 /* on | off | default */                                                      \
    F(LABEL, watch_effective, 0)       /* on | off (default: the config key watch) */                                \
    F(INT, reindex_interval, 0)        /* seconds; 0: none */                                                        \
    F(LABEL, pull_on_push, 0)          /* on | off */
struct mg_repo_setting_item {
    struct mg_item base;
    MG_ITEM_MEMBERS(MG_REPO_SETTINGS_FIELDS)
};
extern const struct mg_item_type mg_item_repo_settings;

/* What an index holds and how it runs (index_status): an mg_repo_info's fields, then these. */
#define MG_REPO_STATS_FIELDS(F, FA)                                                                                  \
    F(INT, vectors, MG_F_NULL)                                                                                       \
    F(INT, full_index_at, MG_F_NULL)                                                                                 \
    F(INT, full_index_ms, MG_F_NULL)                                                                                 \
    F(INT, incr_index_at, MG_F_NULL)                                                                                 \
    F(INT, incr_index_ms, MG_F_NULL)                                                                                 \
    F(INT, pending_changes, MG_F_NULL)                                                                               \
    F(LABEL, watch_state, 0)           /* watching | polling | off */                                                \
    F(INT, watch_count, 0)                                                                                           \
    F(INT, secrets_redacted, 0)        /* by index runs so far */                                                    \
    F(LABEL, last_error, MG_F_NULL)    /* "code: sentence" of the last run, NULL when it succeeded */                \
    F(INT, last_error_at, MG_F_NULL)                                                                                 \
    F(BOOL, index_busy, 0)             /* a run holds the repo now */                                                \
    F(LABEL, vectors_warning, MG_F_NULL) /* what the last embedding pass could not do, NULL when nothing */
struct mg_repo_stats {
    struct mg_repo_info info;          /* its header is the item's */
    MG_ITEM_MEMBERS(MG_REPO_STATS_FIELDS)
};
extern const struct mg_item_type mg_item_repo_stats;

/* An index run: "files" is what the index holds after the run (as index_status says), "seen" what this run
 * walked; the added .. skipped counts are this run's files; total_bytes, chunks, symbols: the index after it. */
#define MG_INDEX_RUN_FIELDS(F, FA)                                                                                   \
    F(LABEL, repo, 0)                                                                                                \
    F(LABEL, root, MG_F_SOURCE)                                                                                      \
    F(BOOL, created, 0)                                                                                              \
    F(BOOL, git, 0)                                                                                                  \
    FA(INT, total_files, "files", 0)                                                                                 \
    FA(INT, files, "seen", 0)                                                                                        \
    F(INT, added, 0)                                                                                                 \
    F(INT, changed, 0)                                                                                               \
    F(INT, unchanged, 0)                                                                                             \
    F(INT, removed, 0)                                                                                               \
    F(INT, skipped_binary, 0)                                                                                        \
    F(INT, skipped_too_large, 0)                                                                                     \
    F(INT, skipped_secret, 0)                                                                                        \
    F(INT, skipped_symlink, 0)                                                                                       \
    F(INT, skipped_unreadable, 0)                                                                                    \
    F(INT, skipped_other, 0)                                                                                         \
    F(INT, repaired_utf8, 0)                                                                                         \
    F(INT, parse_failed, 0)                                                                                          \
    F(INT, secrets_redacted, 0)                                                                                      \
    F(INT, chunks_excluded, 0)                                                                                       \
    F(INT, bytes_read, 0)                                                                                            \
    F(INT, bytes_indexed, 0)                                                                                         \
    FA(INT, total_bytes, "bytes", 0)                                                                                 \
    F(INT, chunks, 0)                                                                                                \
    F(INT, symbols, 0)                                                                                               \
    F(REAL, seconds, 0)                                                                                              \
    F(REAL, merge_seconds, 0)                                                                                        \
    F(REAL, map_seconds, 0)                                                                                          \
    F(REAL, cpu_workers, 0)                                                                                          \
    F(REAL, cpu_writer, 0)                                                                                           \
    F(LABEL, embedder, 0)              /* the embedder's signature, or "none" */                                     \
    F(INT, vec_files, 0)                                                                                             \
    F(INT, vec_chunks, 0)                                                                                            \
    F(INT, vec_pending, 0)                                                                                           \
    F(BOOL, vec_reembedded, 0)                                                                                       \
    F(REAL, vec_seconds, 0)            /* embedding */                                                               \
    F(REAL, vec_columns_seconds, 0)    /* writing the column file (vector/vstore.h) */                               \
    F(LABEL, warning, 0)               /* what failed while embedding, or NULL */                                    \
    F(INT, generation, MG_F_OMIT0)     /* shared catalog: the repo's generation the index is now at (0: none) */
struct mg_index_run {
    struct mg_item base;
    MG_ITEM_MEMBERS(MG_INDEX_RUN_FIELDS)
};
extern const struct mg_item_type mg_item_index_run;

#define MG_REMOVED_FIELDS(F, FA)                                                                                     \
    F(LABEL, repo, MG_F_SOURCE)                                                                                      \
    F(BOOL, removed, 0)                                                                                              \
    F(INT, rows, MG_F_OMIT0)           /* memory rows removed with it (memory providers' forget) */
struct mg_removed {
    struct mg_item base;
    MG_ITEM_MEMBERS(MG_REMOVED_FIELDS)
};
extern const struct mg_item_type mg_item_removed;

/* ---- 2. code navigation and the repo map --------------------------------------------------------------------- */

#define MG_NAV_DEF_FIELDS(F, FA)                                                                                     \
    F(LABEL, repo, 0)                                                                                                \
    F(LABEL, path, MG_F_SOURCE)                                                                                      \
    F(INT, line, MG_F_LINE)                                                                                          \
    F(INT, end_line, 0)                                                                                              \
    F(LABEL, name, 0)                                                                                                \
    F(LABEL, kind, 0)                                                                                                \
    F(LABEL, container, MG_F_NULL)                                                                                   \
    F(LABEL, change, 0)                /* impact's modified, added, removed; else NULL (left out) */
struct mg_nav_def_item {
    struct mg_item base;               /* owner: tenant, repo, fingerprint */
    MG_ITEM_MEMBERS(MG_NAV_DEF_FIELDS)
};
extern const struct mg_item_type mg_item_nav_def;

#define MG_NAV_REF_FIELDS(F, FA)                                                                                     \
    F(LABEL, repo, 0)                                                                                                \
    F(LABEL, path, MG_F_SOURCE)                                                                                      \
    F(INT, line, MG_F_LINE)                                                                                          \
    F(TEXT, text, 0)                   /* the line */                                                                \
    F(BOOL, call, MG_F_OMIT0)                                                                                        \
    FA(LABEL, in_name, "in", 0)        /* the enclosing definition, NULL at top level */                             \
    F(LABEL, in_kind, 0)                                                                                             \
    F(INT, in_line, MG_F_OMIT0)        /* MG_INT_NULL at top level */
struct mg_nav_ref_item {
    struct mg_item base;
    MG_ITEM_MEMBERS(MG_NAV_REF_FIELDS)
};
extern const struct mg_item_type mg_item_nav_ref;

#define MG_NAV_CALL_FIELDS(F, FA)                                                                                    \
    F(LABEL, repo, 0)                                                                                                \
    F(LABEL, path, MG_F_SOURCE)        /* the caller's file */                                                       \
    F(INT, line, MG_F_LINE)            /* where the call is */                                                       \
    F(INT, depth, 0)                   /* 1: direct; trace: the call's place in its path */                          \
    F(INT, path_index, MG_F_OMIT0)     /* trace: which path (0, 1, ...); else 0 */                                   \
    F(LABEL, from_name, 0)             /* the calling definition ("file" kind: top-level code) */                    \
    F(LABEL, from_kind, 0)                                                                                           \
    F(INT, from_line, 0)                                                                                             \
    F(LABEL, callee, 0)                /* the name called */                                                         \
    F(LABEL, to_path, MG_F_NULL)       /* its definition; NULL when none in the repo */                              \
    F(LABEL, to_kind, MG_F_NULL)                                                                                     \
    F(INT, to_line, MG_F_NULL)         /* MG_INT_NULL when none */                                                   \
    F(LABEL, confidence, 0)            /* exact, import, type, pointer, dispatch, name, external */
struct mg_nav_call_item {
    struct mg_item base;
    MG_ITEM_MEMBERS(MG_NAV_CALL_FIELDS)
};
extern const struct mg_item_type mg_item_nav_call;

#define MG_NAV_IMPACT_FIELDS(F, FA)                                                                                  \
    F(LABEL, repo, 0)                                                                                                \
    F(LABEL, path, MG_F_SOURCE)        /* the caller */                                                              \
    F(INT, line, MG_F_LINE)                                                                                          \
    F(INT, end_line, 0)                                                                                              \
    F(LABEL, name, 0)                                                                                                \
    F(LABEL, kind, 0)                                                                                                \
    F(LABEL, container, MG_F_NULL)                                                                                   \
    F(INT, depth, 0)                   /* 1: calls a changed definition */                                           \
    F(REAL, score, 0)                                                                                                \
    F(LABEL, calls, 0)                 /* what it calls on its nearest way to the change */                          \
    F(INT, call_line, 0)                                                                                             \
    F(LABEL, confidence, 0)            /* that call's resolution */
struct mg_nav_impact_item {
    struct mg_item base;
    MG_ITEM_MEMBERS(MG_NAV_IMPACT_FIELDS)
};
extern const struct mg_item_type mg_item_nav_impact;

#define MG_NAV_SKIP_FIELDS(F, FA)                                                                                    \
    F(LABEL, repo, 0)                                                                                                \
    F(LABEL, path, MG_F_SOURCE)                                                                                      \
    F(LABEL, reason, 0)
struct mg_nav_skip_item {
    struct mg_item base;
    MG_ITEM_MEMBERS(MG_NAV_SKIP_FIELDS)
};
extern const struct mg_item_type mg_item_nav_skip;

#define MG_NAV_SUMMARY_FIELDS(F, FA)                                                                                 \
    F(LABEL, repo, 0)                                                                                                \
    F(LABEL, symbol, 0)                                                                                              \
    F(INT, total, 0)                   /* references of the page, or all when complete; calls found; paths */        \
    F(INT, candidate_files, MG_F_OMIT0) /* references: files with the name's word (an upper bound on files) */       \
    F(INT, visited, MG_F_OMIT0)        /* trace: functions expanded */                                               \
    F(LABEL, next_cursor, MG_F_NULL)   /* references' next page; NULL: none */                                       \
    F(BOOL, complete, 0)                                                                                             \
    F(BOOL, truncated, 0)
struct mg_nav_summary {
    struct mg_item base;
    MG_ITEM_MEMBERS(MG_NAV_SUMMARY_FIELDS)
};
extern const struct mg_item_type mg_item_nav_summary;

#define MG_REPOMAP_FILE_FIELDS(F, FA)                                                                                \
    F(LABEL, repo, 0)                                                                                                \
    F(LABEL, path, MG_F_SOURCE)                                                                                      \
    F(LABEL, language, 0)                                                                                            \
    F(REAL, rank, 0)                   /* PageRank: the files in scope sum to 1 */
struct mg_repomap_file_item {
    struct mg_item base;
    MG_ITEM_MEMBERS(MG_REPOMAP_FILE_FIELDS)
};
extern const struct mg_item_type mg_item_repomap_file;

#define MG_REPOMAP_DEF_FIELDS(F, FA)                                                                                 \
    F(LABEL, repo, 0)                                                                                                \
    F(LABEL, path, MG_F_SOURCE)                                                                                      \
    F(INT, line, MG_F_LINE)                                                                                          \
    F(INT, end_line, 0)                                                                                              \
    F(LABEL, name, 0)                                                                                                \
    F(LABEL, kind, 0)                                                                                                \
    F(REAL, score, 0)                  /* the rank flowing into its name */                                          \
    F(TEXT, text, MG_F_NULL)           /* its first line, trimmed; NULL when unreadable */
struct mg_repomap_def_item {
    struct mg_item base;
    MG_ITEM_MEMBERS(MG_REPOMAP_DEF_FIELDS)
};
extern const struct mg_item_type mg_item_repomap_def;

#define MG_REPOMAP_SUMMARY_FIELDS(F, FA)                                                                             \
    F(LABEL, repo, 0)                                                                                                \
    F(INT, budget_tokens, 0)           /* asked */                                                                   \
    F(INT, tokens, 0)                  /* used by the rendered map (bytes / 4, rounded up) */                        \
    F(INT, files, 0)                   /* files in the map */                                                        \
    F(INT, considered, 0)              /* files in scope the graph holds */                                          \
    F(BOOL, cached, 0)                 /* graph from the cache */                                                    \
    F(BOOL, stale, 0)                  /* the graph is an older index generation's (search/repomap.h) */             \
    F(BOOL, truncated, 0)              /* ranked files left out for the budget */
struct mg_repomap_summary {
    struct mg_item base;
    MG_ITEM_MEMBERS(MG_REPOMAP_SUMMARY_FIELDS)
};
extern const struct mg_item_type mg_item_repomap_summary;

/* ---- 3. notes ---------------------------------------------------------------------------------------------- */

#define MG_NOTE_FIELDS(F, FA)                                                                                        \
    F(LABEL, key, MG_F_SOURCE)                                                                                       \
    F(TEXT, value, 0)                                                                                                \
    F(LABEL, source, 0)                                                                                              \
    F(REAL, trust, 0)                                                                                                \
    F(LABEL, session, 0)                                                                                             \
    F(LABEL, repo, 0)                                                                                                \
    F(INT, created_at, 0)                                                                                            \
    F(INT, updated_at, 0)
struct mg_note {
    struct mg_item base;               /* owner: tenant, repo, fingerprint */
    MG_ITEM_MEMBERS(MG_NOTE_FIELDS)
    bool created;                      /* set: this call made it (set_note shows it itself) */
};
extern const struct mg_item_type mg_item_note;

#define MG_NOTE_GONE_FIELDS(F, FA)                                                                                   \
    F(LABEL, key, MG_F_SOURCE)                                                                                       \
    F(BOOL, deleted, 0)
struct mg_note_gone {
    struct mg_item base;
    MG_ITEM_MEMBERS(MG_NOTE_GONE_FIELDS)
};
extern const struct mg_item_type mg_item_note_gone;

/* ---- 4. session memory: episodes and projects ----------------------------------------------------------------- */

#define MG_EPISODE_FIELDS(F, FA)                                                                                     \
    F(INT, id, 0)                                                                                                    \
    F(LABEL, session, MG_F_SOURCE)     /* the conversation that stored it */                                         \
    F(TEXT, summary, 0)                                                                                              \
    F(TAGS, tags, 0)                   /* tags and ntags */                                                          \
    F(INT, created_at, 0)                                                                                            \
    F(REAL, score, 0)
struct mg_episode {
    struct mg_item base;               /* owner: tenant, repo, fingerprint, project */
    MG_ITEM_MEMBERS(MG_EPISODE_FIELDS)
};
extern const struct mg_item_type mg_item_episode;

#define MG_PROJECT_FIELDS(F, FA)                                                                                     \
    F(LABEL, name, MG_F_SOURCE)                                                                                      \
    F(INT, id, 0)                                                                                                    \
    F(BOOL, isolated, 0)                                                                                             \
    F(INT, sessions, 0)                                                                                              \
    F(LABEL, repo, 0)                                                                                                \
    F(INT, created_at, 0)
struct mg_project {
    struct mg_item base;               /* owner: tenant, repo, fingerprint */
    MG_ITEM_MEMBERS(MG_PROJECT_FIELDS)
};
extern const struct mg_item_type mg_item_project;

/* A session's project changed (join, leave). */
#define MG_MEMBERSHIP_FIELDS(F, FA)                                                                                  \
    F(LABEL, session, MG_F_SOURCE)                                                                                   \
    F(LABEL, project, MG_F_NULL)       /* NULL: none */                                                              \
    F(LABEL, repo, 0)
struct mg_membership {
    struct mg_item base;
    MG_ITEM_MEMBERS(MG_MEMBERSHIP_FIELDS)
};
extern const struct mg_item_type mg_item_membership;

/* A project deleted, with these counts. */
#define MG_PROJECT_DELETED_FIELDS(F, FA)                                                                             \
    F(LABEL, project, MG_F_SOURCE | MG_F_NULL)                                                                       \
    F(BOOL, deleted, 0)                                                                                              \
    F(INT, sessions, 0)                                                                                              \
    F(INT, episodes, 0)                                                                                              \
    F(INT, entities, 0)
struct mg_project_deleted {
    struct mg_item base;
    MG_ITEM_MEMBERS(MG_PROJECT_DELETED_FIELDS)
};
extern const struct mg_item_type mg_item_project_deleted;

/* ---- 5. entities ----------------------------------------------------------------------------------------------- */

#define MG_ENTITY_FIELDS(F, FA)                                                                                      \
    F(INT, id, 0)                                                                                                    \
    F(LABEL, name, MG_F_SOURCE)                                                                                      \
    F(LABEL, type, 0)                                                                                                \
    F(TEXT, notes, 0)                                                                                                \
    F(LABEL, project, MG_F_NULL)       /* NULL: none */                                                              \
    F(INT, created_at, MG_F_OMIT0)                                                                                   \
    F(REAL, score, MG_F_OMIT0)
struct mg_entity {
    struct mg_item base;               /* owner: tenant, repo, fingerprint, project */
    MG_ITEM_MEMBERS(MG_ENTITY_FIELDS)
};
extern const struct mg_item_type mg_item_entity;

#define MG_RETAGGED_FIELDS(F, FA)                                                                                    \
    F(INT, retagged, 0)                                                                                              \
    F(LABEL, project, MG_F_NULL)       /* NULL: none */
struct mg_retagged {
    struct mg_item base;
    MG_ITEM_MEMBERS(MG_RETAGGED_FIELDS)
};
extern const struct mg_item_type mg_item_retagged;

/* ---- 6. profiles ---------------------------------------------------------------------------------------------- */

#define MG_PREF_FIELDS(F, FA)                                                                                        \
    F(LABEL, agent_id, 0)                                                                                            \
    F(LABEL, key, MG_F_SOURCE)                                                                                       \
    F(TEXT, value, 0)
struct mg_pref {
    struct mg_item base;               /* owner: tenant */
    MG_ITEM_MEMBERS(MG_PREF_FIELDS)
};
extern const struct mg_item_type mg_item_pref;

/* An agent's profile: one mg_profile, then its mg_pref items. */
#define MG_PROFILE_FIELDS(F, FA) F(LABEL, agent_id, MG_F_SOURCE)
struct mg_profile {
    struct mg_item base;
    MG_ITEM_MEMBERS(MG_PROFILE_FIELDS)
};
extern const struct mg_item_type mg_item_profile;

#endif
