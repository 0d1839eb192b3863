/* types.c — the item types of provider.h: what each declares (the JSON
 * names, the kinds, where the owner is checked, how items are attributed).
 * A field that is not here is never shown. */
#include "provider/provider.h"

#include <string.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define CODE_OWNER (MG_OWN_TENANT | MG_OWN_REPO)

/* ---- code ---- */

static const struct mg_field code_hit_fields[] = {
    MG_FIELD(struct mg_code_hit, repo, MG_F_LABEL),
    MG_FIELD(struct mg_code_hit, path, MG_F_LABEL),
    MG_FIELD(struct mg_code_hit, start_line, MG_F_INT),
    MG_FIELD(struct mg_code_hit, end_line, MG_F_INT),
    MG_FIELD(struct mg_code_hit, line, MG_F_INT),
    MG_FIELD_F(struct mg_code_hit, language, MG_F_LABEL, MG_F_NULL),
    MG_FIELD_F(struct mg_code_hit, symbol, MG_F_LABEL, MG_F_NULL),
    MG_FIELD_F(struct mg_code_hit, kind, MG_F_LABEL, MG_F_NULL),
    MG_FIELD(struct mg_code_hit, score, MG_F_REAL),
    MG_FIELD(struct mg_code_hit, snippet, MG_F_TEXT),
    MG_FIELD(struct mg_code_hit, snippet_line, MG_F_INT),
    MG_FIELD_F(struct mg_code_hit, match_count, MG_F_INT, MG_F_OMIT0),
    MG_FIELD_F(struct mg_code_hit, match_lines, MG_F_LINES, MG_F_OMIT0),
    MG_FIELD_F(struct mg_code_hit, stale, MG_F_BOOL, MG_F_OMIT0),
    MG_FIELD(struct mg_code_hit, def_name, MG_F_LABEL),
    MG_FIELD(struct mg_code_hit, def_kind, MG_F_LABEL),
    MG_FIELD(struct mg_code_hit, def_container, MG_F_LABEL),
    MG_FIELD_F(struct mg_code_hit, def_start_line, MG_F_INT, MG_F_OMIT0),
    MG_FIELD_F(struct mg_code_hit, def_end_line, MG_F_INT, MG_F_OMIT0),
    MG_FIELD(struct mg_code_hit, def_signature, MG_F_TEXT),
    MG_FIELD(struct mg_code_hit, body, MG_F_TEXT),
    MG_FIELD_F(struct mg_code_hit, body_start_line, MG_F_INT, MG_F_OMIT0),
    MG_FIELD_F(struct mg_code_hit, body_end_line, MG_F_INT, MG_F_OMIT0),
    MG_FIELD(struct mg_code_hit, provider, MG_F_LABEL), /* an external provider's name (source "<it>:path:line") */
};
const struct mg_item_type mg_item_code_hit = {"code", sizeof(struct mg_code_hit), code_hit_fields,
                                              N(code_hit_fields), CODE_OWNER, 1, 4, NULL};

static const struct mg_field file_text_fields[] = {
    MG_FIELD(struct mg_file_text, repo, MG_F_LABEL),
    MG_FIELD(struct mg_file_text, path, MG_F_LABEL),
    MG_FIELD(struct mg_file_text, language, MG_F_LABEL),
    MG_FIELD(struct mg_file_text, start_line, MG_F_INT),
    MG_FIELD(struct mg_file_text, end_line, MG_F_INT),
    MG_FIELD(struct mg_file_text, total_lines, MG_F_INT),
    MG_FIELD(struct mg_file_text, truncated, MG_F_BOOL),
    MG_FIELD(struct mg_file_text, changed_since_index, MG_F_BOOL),
    MG_FIELD(struct mg_file_text, text, MG_F_TEXT),
};
const struct mg_item_type mg_item_file_text = {"file", sizeof(struct mg_file_text), file_text_fields,
                                               N(file_text_fields), CODE_OWNER, 1, 3, NULL};

static const struct mg_field outline_def_fields[] = {
    MG_FIELD(struct mg_outline_def, name, MG_F_LABEL),
    MG_FIELD(struct mg_outline_def, kind, MG_F_LABEL),
    MG_FIELD(struct mg_outline_def, container, MG_F_LABEL),
    MG_FIELD(struct mg_outline_def, start_line, MG_F_INT),
    MG_FIELD(struct mg_outline_def, end_line, MG_F_INT),
    MG_FIELD(struct mg_outline_def, signature, MG_F_TEXT),
};
/* no source: the result names the file once, and each definition's lines are its own */
const struct mg_item_type mg_item_outline_def = {"code", sizeof(struct mg_outline_def), outline_def_fields,
                                                 N(outline_def_fields), CODE_OWNER, -1, -1, NULL};

static const struct mg_field file_entry_fields[] = {
    MG_FIELD(struct mg_file_entry, repo, MG_F_LABEL),
    MG_FIELD(struct mg_file_entry, path, MG_F_LABEL),
    MG_FIELD(struct mg_file_entry, language, MG_F_LABEL),
    MG_FIELD(struct mg_file_entry, bytes, MG_F_INT),
    MG_FIELD(struct mg_file_entry, lines, MG_F_INT),
};
const struct mg_item_type mg_item_file_entry = {"file", sizeof(struct mg_file_entry), file_entry_fields,
                                                N(file_entry_fields), CODE_OWNER, 1, -1, NULL};

/* mg_repo_info's fields, at its place in T (pre: "" or "info.") */
#define REPO_INFO_FIELDS(T, pre)                                                                                      \
    MG_FIELD_AS(T, pre id, "id", MG_F_LABEL), MG_FIELD_AS(T, pre root, "root", MG_F_LABEL),                           \
        MG_FIELD_AS(T, pre fingerprint, "fingerprint", MG_F_LABEL), MG_FIELD_AS(T, pre files, "files", MG_F_INT),     \
        MG_FIELD_AS(T, pre chunks, "chunks", MG_F_INT), MG_FIELD_AS(T, pre symbols, "symbols", MG_F_INT),             \
        MG_FIELD_AS(T, pre bytes, "bytes", MG_F_INT), MG_FIELD_AS(T, pre db_bytes, "db_bytes", MG_F_INT),             \
        MG_FIELD_AS(T, pre created_at, "created_at", MG_F_INT), MG_FIELD_AS(T, pre indexed_at, "indexed_at", MG_F_INT), \
        MG_FIELD_AS(T, pre index_state, "index_state", MG_F_LABEL),                                                   \
        MG_FIELD_AS_F(T, pre generation, "generation", MG_F_INT, MG_F_OMIT0),                                         \
        MG_FIELD_AS_F(T, pre catalog_generation, "catalog_generation", MG_F_INT, MG_F_OMIT0)
static const struct mg_field repo_info_fields[] = {REPO_INFO_FIELDS(struct mg_repo_info, )};
const struct mg_item_type mg_item_repo_info = {"repo", sizeof(struct mg_repo_info), repo_info_fields,
                                               N(repo_info_fields), CODE_OWNER, 0, -1, "repo"};

static const struct mg_field repo_settings_fields[] = {
    MG_FIELD(struct mg_repo_setting_item, watch, MG_F_LABEL),
    MG_FIELD(struct mg_repo_setting_item, watch_effective, MG_F_LABEL),
    MG_FIELD(struct mg_repo_setting_item, reindex_interval, MG_F_INT),
    MG_FIELD(struct mg_repo_setting_item, pull_on_push, MG_F_LABEL),
};
const struct mg_item_type mg_item_repo_settings = {"settings", sizeof(struct mg_repo_setting_item),
                                                   repo_settings_fields, N(repo_settings_fields), CODE_OWNER, -1, -1,
                                                   NULL};

#define RS(member, kind) MG_FIELD(struct mg_repo_stats, member, kind)
#define RSN(member, kind) MG_FIELD_F(struct mg_repo_stats, member, kind, MG_F_NULL)
static const struct mg_field repo_stats_fields[] = {
    REPO_INFO_FIELDS(struct mg_repo_stats, info.), RSN(vectors, MG_F_INT), RSN(full_index_at, MG_F_INT),
    RSN(full_index_ms, MG_F_INT), RSN(incr_index_at, MG_F_INT), RSN(incr_index_ms, MG_F_INT),
    RSN(pending_changes, MG_F_INT), RS(watch_state, MG_F_LABEL), RS(watch_count, MG_F_INT),
    RS(secrets_redacted, MG_F_INT), RSN(last_error, MG_F_LABEL), RSN(last_error_at, MG_F_INT),
    RS(index_busy, MG_F_BOOL),
};
#undef RS
#undef RSN
const struct mg_item_type mg_item_repo_stats = {"repo", sizeof(struct mg_repo_stats), repo_stats_fields,
                                                N(repo_stats_fields), CODE_OWNER, 0, -1, "repo"};

static const struct mg_field nav_def_fields[] = {
    MG_FIELD(struct mg_nav_def_item, repo, MG_F_LABEL),      MG_FIELD(struct mg_nav_def_item, path, MG_F_LABEL),
    MG_FIELD(struct mg_nav_def_item, line, MG_F_INT),        MG_FIELD(struct mg_nav_def_item, end_line, MG_F_INT),
    MG_FIELD(struct mg_nav_def_item, name, MG_F_LABEL),      MG_FIELD(struct mg_nav_def_item, kind, MG_F_LABEL),
    MG_FIELD_F(struct mg_nav_def_item, container, MG_F_LABEL, MG_F_NULL),
    MG_FIELD(struct mg_nav_def_item, change, MG_F_LABEL),
};
const struct mg_item_type mg_item_nav_def = {"definition", sizeof(struct mg_nav_def_item), nav_def_fields,
                                             N(nav_def_fields), CODE_OWNER, 1, 2, NULL};

static const struct mg_field nav_ref_fields[] = {
    MG_FIELD(struct mg_nav_ref_item, repo, MG_F_LABEL),
    MG_FIELD(struct mg_nav_ref_item, path, MG_F_LABEL),
    MG_FIELD(struct mg_nav_ref_item, line, MG_F_INT),
    MG_FIELD(struct mg_nav_ref_item, text, MG_F_TEXT),
    MG_FIELD_F(struct mg_nav_ref_item, call, MG_F_BOOL, MG_F_OMIT0),
    MG_FIELD_AS(struct mg_nav_ref_item, in_name, "in", MG_F_LABEL),
    MG_FIELD(struct mg_nav_ref_item, in_kind, MG_F_LABEL),
    MG_FIELD_F(struct mg_nav_ref_item, in_line, MG_F_INT, MG_F_OMIT0),
};
const struct mg_item_type mg_item_nav_ref = {"reference", sizeof(struct mg_nav_ref_item), nav_ref_fields,
                                             N(nav_ref_fields), CODE_OWNER, 1, 2, NULL};

#define NC(member, kind) MG_FIELD(struct mg_nav_call_item, member, kind)
static const struct mg_field nav_call_fields[] = {
    NC(repo, MG_F_LABEL), NC(path, MG_F_LABEL), NC(line, MG_F_INT), NC(depth, MG_F_INT),
    MG_FIELD_F(struct mg_nav_call_item, path_index, MG_F_INT, MG_F_OMIT0), NC(from_name, MG_F_LABEL),
    NC(from_kind, MG_F_LABEL), NC(from_line, MG_F_INT), NC(callee, MG_F_LABEL),
    MG_FIELD_F(struct mg_nav_call_item, to_path, MG_F_LABEL, MG_F_NULL),
    MG_FIELD_F(struct mg_nav_call_item, to_kind, MG_F_LABEL, MG_F_NULL),
    MG_FIELD_F(struct mg_nav_call_item, to_line, MG_F_INT, MG_F_NULL), NC(confidence, MG_F_LABEL),
};
#undef NC
const struct mg_item_type mg_item_nav_call = {"call", sizeof(struct mg_nav_call_item), nav_call_fields,
                                              N(nav_call_fields), CODE_OWNER, 1, 2, NULL};

#define NI(member, kind) MG_FIELD(struct mg_nav_impact_item, member, kind)
static const struct mg_field nav_impact_fields[] = {
    NI(repo, MG_F_LABEL),  NI(path, MG_F_LABEL),   NI(line, MG_F_INT),  NI(end_line, MG_F_INT),
    NI(name, MG_F_LABEL),  NI(kind, MG_F_LABEL),   MG_FIELD_F(struct mg_nav_impact_item, container, MG_F_LABEL, MG_F_NULL),
    NI(depth, MG_F_INT),   NI(score, MG_F_REAL),   NI(calls, MG_F_LABEL), NI(call_line, MG_F_INT),
    NI(confidence, MG_F_LABEL),
};
#undef NI
const struct mg_item_type mg_item_nav_impact = {"impacted", sizeof(struct mg_nav_impact_item), nav_impact_fields,
                                                N(nav_impact_fields), CODE_OWNER, 1, 2, NULL};

static const struct mg_field nav_skip_fields[] = {
    MG_FIELD(struct mg_nav_skip_item, repo, MG_F_LABEL),
    MG_FIELD(struct mg_nav_skip_item, path, MG_F_LABEL),
    MG_FIELD(struct mg_nav_skip_item, reason, MG_F_LABEL),
};
const struct mg_item_type mg_item_nav_skip = {"skipped", sizeof(struct mg_nav_skip_item), nav_skip_fields,
                                              N(nav_skip_fields), CODE_OWNER, 1, -1, NULL};

static const struct mg_field nav_summary_fields[] = {
    MG_FIELD(struct mg_nav_summary, repo, MG_F_LABEL),
    MG_FIELD(struct mg_nav_summary, symbol, MG_F_LABEL),
    MG_FIELD(struct mg_nav_summary, total, MG_F_INT),
    MG_FIELD_F(struct mg_nav_summary, candidate_files, MG_F_INT, MG_F_OMIT0),
    MG_FIELD_F(struct mg_nav_summary, visited, MG_F_INT, MG_F_OMIT0),
    MG_FIELD_F(struct mg_nav_summary, next_cursor, MG_F_LABEL, MG_F_NULL),
    MG_FIELD(struct mg_nav_summary, complete, MG_F_BOOL),
    MG_FIELD(struct mg_nav_summary, truncated, MG_F_BOOL),
};
const struct mg_item_type mg_item_nav_summary = {"navigation", sizeof(struct mg_nav_summary), nav_summary_fields,
                                                 N(nav_summary_fields), CODE_OWNER, -1, -1, NULL};

static const struct mg_field repomap_file_fields[] = {
    MG_FIELD(struct mg_repomap_file_item, repo, MG_F_LABEL),
    MG_FIELD(struct mg_repomap_file_item, path, MG_F_LABEL),
    MG_FIELD(struct mg_repomap_file_item, language, MG_F_LABEL),
    MG_FIELD(struct mg_repomap_file_item, rank, MG_F_REAL),
};
const struct mg_item_type mg_item_repomap_file = {"map_file", sizeof(struct mg_repomap_file_item),
                                                  repomap_file_fields, N(repomap_file_fields), CODE_OWNER, 1, -1,
                                                  NULL};

static const struct mg_field repomap_def_fields[] = {
    MG_FIELD(struct mg_repomap_def_item, repo, MG_F_LABEL),
    MG_FIELD(struct mg_repomap_def_item, path, MG_F_LABEL),
    MG_FIELD(struct mg_repomap_def_item, line, MG_F_INT),
    MG_FIELD(struct mg_repomap_def_item, end_line, MG_F_INT),
    MG_FIELD(struct mg_repomap_def_item, name, MG_F_LABEL),
    MG_FIELD(struct mg_repomap_def_item, kind, MG_F_LABEL),
    MG_FIELD(struct mg_repomap_def_item, score, MG_F_REAL),
    MG_FIELD_F(struct mg_repomap_def_item, text, MG_F_TEXT, MG_F_NULL),
};
const struct mg_item_type mg_item_repomap_def = {"map_definition", sizeof(struct mg_repomap_def_item),
                                                 repomap_def_fields, N(repomap_def_fields), CODE_OWNER, 1, 2, NULL};

static const struct mg_field repomap_summary_fields[] = {
    MG_FIELD(struct mg_repomap_summary, repo, MG_F_LABEL),
    MG_FIELD(struct mg_repomap_summary, budget_tokens, MG_F_INT),
    MG_FIELD(struct mg_repomap_summary, tokens, MG_F_INT),
    MG_FIELD(struct mg_repomap_summary, files, MG_F_INT),
    MG_FIELD(struct mg_repomap_summary, considered, MG_F_INT),
    MG_FIELD(struct mg_repomap_summary, cached, MG_F_BOOL),
    MG_FIELD(struct mg_repomap_summary, stale, MG_F_BOOL),
    MG_FIELD(struct mg_repomap_summary, truncated, MG_F_BOOL),
};
const struct mg_item_type mg_item_repomap_summary = {"repo_map", sizeof(struct mg_repomap_summary),
                                                     repomap_summary_fields, N(repomap_summary_fields), CODE_OWNER,
                                                     -1, -1, NULL};

#define IR(member, kind) MG_FIELD(struct mg_index_run, member, kind)
static const struct mg_field index_run_fields[] = {
    IR(repo, MG_F_LABEL), IR(root, MG_F_LABEL), IR(created, MG_F_BOOL), IR(git, MG_F_BOOL),
    /* files: what the index holds after the run (as index_status says); seen: what this run walked */
    MG_FIELD_AS(struct mg_index_run, total_files, "files", MG_F_INT), MG_FIELD_AS(struct mg_index_run, files, "seen", MG_F_INT),
    IR(added, MG_F_INT), IR(changed, MG_F_INT), IR(unchanged, MG_F_INT), IR(removed, MG_F_INT),
    IR(skipped_binary, MG_F_INT), IR(skipped_too_large, MG_F_INT), IR(skipped_secret, MG_F_INT),
    IR(skipped_symlink, MG_F_INT), IR(skipped_unreadable, MG_F_INT), IR(skipped_other, MG_F_INT),
    IR(repaired_utf8, MG_F_INT), IR(parse_failed, MG_F_INT), IR(secrets_redacted, MG_F_INT),
    IR(chunks_excluded, MG_F_INT), IR(bytes_read, MG_F_INT), IR(bytes_indexed, MG_F_INT),
    MG_FIELD_AS(struct mg_index_run, total_bytes, "bytes", MG_F_INT), IR(chunks, MG_F_INT), IR(symbols, MG_F_INT),
    IR(seconds, MG_F_REAL), IR(merge_seconds, MG_F_REAL), IR(map_seconds, MG_F_REAL), IR(cpu_workers, MG_F_REAL), IR(cpu_writer, MG_F_REAL),
    IR(embedder, MG_F_LABEL), IR(vec_files, MG_F_INT), IR(vec_chunks, MG_F_INT), IR(vec_pending, MG_F_INT),
    IR(vec_reembedded, MG_F_BOOL), IR(vec_seconds, MG_F_REAL), IR(vec_columns_seconds, MG_F_REAL), IR(warning, MG_F_LABEL),
    MG_FIELD_F(struct mg_index_run, generation, MG_F_INT, MG_F_OMIT0),
};
#undef IR
const struct mg_item_type mg_item_index_run = {"index", sizeof(struct mg_index_run), index_run_fields,
                                               N(index_run_fields), CODE_OWNER, 1, -1, "index"};

static const struct mg_field removed_fields[] = {
    MG_FIELD(struct mg_removed, repo, MG_F_LABEL),
    MG_FIELD(struct mg_removed, removed, MG_F_BOOL),
    MG_FIELD_F(struct mg_removed, rows, MG_F_INT, MG_F_OMIT0),
};
const struct mg_item_type mg_item_removed = {"removed", sizeof(struct mg_removed), removed_fields, N(removed_fields),
                                             CODE_OWNER, 0, -1, "repo"};

/* ---- notes ---- */

static const struct mg_field note_fields[] = {
    MG_FIELD(struct mg_note, key, MG_F_LABEL),
    MG_FIELD(struct mg_note, value, MG_F_TEXT),
    MG_FIELD(struct mg_note, source, MG_F_LABEL),
    MG_FIELD(struct mg_note, trust, MG_F_REAL),
    MG_FIELD(struct mg_note, session, MG_F_LABEL),
    MG_FIELD(struct mg_note, repo, MG_F_LABEL),
    MG_FIELD(struct mg_note, created_at, MG_F_INT),
    MG_FIELD(struct mg_note, updated_at, MG_F_INT),
};
const struct mg_item_type mg_item_note = {"note", sizeof(struct mg_note), note_fields, N(note_fields), CODE_OWNER, 0,
                                          -1, "note"};

static const struct mg_field note_gone_fields[] = {
    MG_FIELD(struct mg_note_gone, key, MG_F_LABEL),
    MG_FIELD(struct mg_note_gone, deleted, MG_F_BOOL),
};
const struct mg_item_type mg_item_note_gone = {"note", sizeof(struct mg_note_gone), note_gone_fields,
                                               N(note_gone_fields), CODE_OWNER, 0, -1, "note"};

/* ---- session memory ---- */

static const struct mg_field episode_fields[] = {
    MG_FIELD(struct mg_episode, id, MG_F_INT),
    MG_FIELD(struct mg_episode, session, MG_F_LABEL),
    MG_FIELD(struct mg_episode, summary, MG_F_TEXT),
    MG_FIELD_TAGS(struct mg_episode, tags, ntags),
    MG_FIELD(struct mg_episode, created_at, MG_F_INT),
    MG_FIELD(struct mg_episode, score, MG_F_REAL),
};
const struct mg_item_type mg_item_episode = {"episode", sizeof(struct mg_episode), episode_fields,
                                             N(episode_fields), CODE_OWNER | MG_OWN_PROJECT, 1, -1, "episode"};

static const struct mg_field project_fields[] = {
    MG_FIELD(struct mg_project, name, MG_F_LABEL),
    MG_FIELD(struct mg_project, id, MG_F_INT),
    MG_FIELD(struct mg_project, isolated, MG_F_BOOL),
    MG_FIELD(struct mg_project, sessions, MG_F_INT),
    MG_FIELD(struct mg_project, repo, MG_F_LABEL),
    MG_FIELD(struct mg_project, created_at, MG_F_INT),
};
const struct mg_item_type mg_item_project = {"project", sizeof(struct mg_project), project_fields,
                                             N(project_fields), CODE_OWNER, 0, -1, "project"};

static const struct mg_field membership_fields[] = {
    MG_FIELD(struct mg_membership, session, MG_F_LABEL),
    MG_FIELD_F(struct mg_membership, project, MG_F_LABEL, MG_F_NULL),
    MG_FIELD(struct mg_membership, repo, MG_F_LABEL),
};
const struct mg_item_type mg_item_membership = {"session", sizeof(struct mg_membership), membership_fields,
                                                N(membership_fields), CODE_OWNER, 0, -1, "session"};

static const struct mg_field project_deleted_fields[] = {
    MG_FIELD_F(struct mg_membership, project, MG_F_LABEL, MG_F_NULL),
    MG_FIELD(struct mg_membership, deleted, MG_F_BOOL),
    MG_FIELD(struct mg_membership, sessions, MG_F_INT),
    MG_FIELD(struct mg_membership, episodes, MG_F_INT),
    MG_FIELD(struct mg_membership, entities, MG_F_INT),
};
const struct mg_item_type mg_item_project_deleted = {"project", sizeof(struct mg_membership), project_deleted_fields,
                                                     N(project_deleted_fields), CODE_OWNER, 0, -1, "project"};

/* ---- entities ---- */

static const struct mg_field entity_fields[] = {
    MG_FIELD(struct mg_entity, id, MG_F_INT),
    MG_FIELD(struct mg_entity, name, MG_F_LABEL),
    MG_FIELD(struct mg_entity, type, MG_F_LABEL),
    MG_FIELD(struct mg_entity, notes, MG_F_TEXT),
    MG_FIELD_F(struct mg_entity, project, MG_F_LABEL, MG_F_NULL),
    MG_FIELD_F(struct mg_entity, created_at, MG_F_INT, MG_F_OMIT0),
    MG_FIELD_F(struct mg_entity, score, MG_F_REAL, MG_F_OMIT0),
};
const struct mg_item_type mg_item_entity = {"entity", sizeof(struct mg_entity), entity_fields, N(entity_fields),
                                            CODE_OWNER | MG_OWN_PROJECT, 1, -1, "entity"};

static const struct mg_field retagged_fields[] = {
    MG_FIELD(struct mg_retagged, retagged, MG_F_INT),
    MG_FIELD_F(struct mg_retagged, project, MG_F_LABEL, MG_F_NULL),
};
const struct mg_item_type mg_item_retagged = {"entity", sizeof(struct mg_retagged), retagged_fields,
                                              N(retagged_fields), CODE_OWNER, -1, -1, NULL};

/* ---- profiles ---- */

static const struct mg_field pref_fields[] = {
    MG_FIELD(struct mg_pref, agent_id, MG_F_LABEL),
    MG_FIELD(struct mg_pref, key, MG_F_LABEL),
    MG_FIELD(struct mg_pref, value, MG_F_TEXT),
};
const struct mg_item_type mg_item_pref = {"profile", sizeof(struct mg_pref), pref_fields, N(pref_fields),
                                          MG_OWN_TENANT, 1, -1, "preference"};

static const struct mg_field profile_fields[] = {
    MG_FIELD(struct mg_profile, agent_id, MG_F_LABEL),
};
const struct mg_item_type mg_item_profile = {"profile", sizeof(struct mg_profile), profile_fields,
                                             N(profile_fields), MG_OWN_TENANT, 0, -1, "profile"};

/* ---- ids ---- */

bool mg_memory_id_ok(const char *s)
{
    size_t n = strlen(s);
    if (n < 1 || n > MG_SESSION_ID_MAX) return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
              c == ':' || c == '-'))
            return false;
    }
    return true;
}

