/* types.c — the tables of the item types of types.h: each made from the
 * type's one list of fields, with its kind (the guardrail's and the audit's
 * name), whose owner the guardrail checks, and how items are attributed.
 * A field that is not in a list is never shown. */
#include "provider/provider.h"

#include <string.h>

#define CODE_OWNER (MG_OWN_TENANT | MG_OWN_REPO)
#define MEMORY_OWNER (MG_OWN_TENANT | MG_OWN_REPO | MG_OWN_PROJECT)

/* ---- code ---- */

#define MG_ITEM_T struct mg_code_hit
MG_ITEM_TYPE(, mg_item_code_hit, "code", MG_CODE_HIT_FIELDS, CODE_OWNER, NULL);
#undef MG_ITEM_T
#define MG_ITEM_T struct mg_file_text
MG_ITEM_TYPE(, mg_item_file_text, "file", MG_FILE_TEXT_FIELDS, CODE_OWNER, NULL);
#undef MG_ITEM_T
#define MG_ITEM_T struct mg_outline_def
MG_ITEM_TYPE(, mg_item_outline_def, "code", MG_OUTLINE_DEF_FIELDS, CODE_OWNER, NULL);
#undef MG_ITEM_T
#define MG_ITEM_T struct mg_file_entry
MG_ITEM_TYPE(, mg_item_file_entry, "file", MG_FILE_ENTRY_FIELDS, CODE_OWNER, NULL);
#undef MG_ITEM_T
#define MG_ITEM_T struct mg_repo_info
MG_ITEM_TYPE(, mg_item_repo_info, "repo", MG_REPO_INFO_FIELDS, CODE_OWNER, "repo");
#undef MG_ITEM_T
#define MG_ITEM_T struct mg_repo_setting_item
MG_ITEM_TYPE(, mg_item_repo_settings, "settings", MG_REPO_SETTINGS_FIELDS, CODE_OWNER, NULL);
#undef MG_ITEM_T

/* a repo's stats: its mg_repo_info's fields (at info.), then its own */
#define MG_ITEM_T struct mg_repo_stats
#define INFO_ROW(kind, m, flags) MG_ITEM_ROW_AS(kind, info.m, #m, flags)
#define INFO_ROW_AS(kind, m, json, flags) MG_ITEM_ROW_AS(kind, info.m, json, flags)
#define REPO_STATS_ALL(F, FA) MG_REPO_INFO_FIELDS(INFO_ROW, INFO_ROW_AS) MG_REPO_STATS_FIELDS(F, FA)
MG_ITEM_TYPE(, mg_item_repo_stats, "repo", REPO_STATS_ALL, CODE_OWNER, "repo");
#undef REPO_STATS_ALL
#undef INFO_ROW_AS
#undef INFO_ROW
#undef MG_ITEM_T

#define MG_ITEM_T struct mg_index_run
MG_ITEM_TYPE(, mg_item_index_run, "index", MG_INDEX_RUN_FIELDS, CODE_OWNER, "index");
#undef MG_ITEM_T
#define MG_ITEM_T struct mg_removed
MG_ITEM_TYPE(, mg_item_removed, "removed", MG_REMOVED_FIELDS, CODE_OWNER, "repo");
#undef MG_ITEM_T

/* ---- navigation and the repo map ---- */

#define MG_ITEM_T struct mg_nav_def_item
MG_ITEM_TYPE(, mg_item_nav_def, "definition", MG_NAV_DEF_FIELDS, CODE_OWNER, NULL);
#undef MG_ITEM_T
#define MG_ITEM_T struct mg_nav_ref_item
MG_ITEM_TYPE(, mg_item_nav_ref, "reference", MG_NAV_REF_FIELDS, CODE_OWNER, NULL);
#undef MG_ITEM_T
#define MG_ITEM_T struct mg_nav_call_item
MG_ITEM_TYPE(, mg_item_nav_call, "call", MG_NAV_CALL_FIELDS, CODE_OWNER, NULL);
#undef MG_ITEM_T
#define MG_ITEM_T struct mg_nav_impact_item
MG_ITEM_TYPE(, mg_item_nav_impact, "impacted", MG_NAV_IMPACT_FIELDS, CODE_OWNER, NULL);
#undef MG_ITEM_T
#define MG_ITEM_T struct mg_nav_skip_item
MG_ITEM_TYPE(, mg_item_nav_skip, "skipped", MG_NAV_SKIP_FIELDS, CODE_OWNER, NULL);
#undef MG_ITEM_T
#define MG_ITEM_T struct mg_nav_summary
MG_ITEM_TYPE(, mg_item_nav_summary, "navigation", MG_NAV_SUMMARY_FIELDS, CODE_OWNER, NULL);
#undef MG_ITEM_T
#define MG_ITEM_T struct mg_repomap_file_item
MG_ITEM_TYPE(, mg_item_repomap_file, "map_file", MG_REPOMAP_FILE_FIELDS, CODE_OWNER, NULL);
#undef MG_ITEM_T
#define MG_ITEM_T struct mg_repomap_def_item
MG_ITEM_TYPE(, mg_item_repomap_def, "map_definition", MG_REPOMAP_DEF_FIELDS, CODE_OWNER, NULL);
#undef MG_ITEM_T
#define MG_ITEM_T struct mg_repomap_summary
MG_ITEM_TYPE(, mg_item_repomap_summary, "repo_map", MG_REPOMAP_SUMMARY_FIELDS, CODE_OWNER, NULL);
#undef MG_ITEM_T

/* ---- notes ---- */

#define MG_ITEM_T struct mg_note
MG_ITEM_TYPE(, mg_item_note, "note", MG_NOTE_FIELDS, CODE_OWNER, "note");
#undef MG_ITEM_T
#define MG_ITEM_T struct mg_note_gone
MG_ITEM_TYPE(, mg_item_note_gone, "note", MG_NOTE_GONE_FIELDS, CODE_OWNER, "note");
#undef MG_ITEM_T

/* ---- session memory ---- */

#define MG_ITEM_T struct mg_episode
MG_ITEM_TYPE(, mg_item_episode, "episode", MG_EPISODE_FIELDS, MEMORY_OWNER, "episode");
#undef MG_ITEM_T
#define MG_ITEM_T struct mg_project
MG_ITEM_TYPE(, mg_item_project, "project", MG_PROJECT_FIELDS, CODE_OWNER, "project");
#undef MG_ITEM_T
#define MG_ITEM_T struct mg_membership
MG_ITEM_TYPE(, mg_item_membership, "session", MG_MEMBERSHIP_FIELDS, CODE_OWNER, "session");
#undef MG_ITEM_T
#define MG_ITEM_T struct mg_project_deleted
MG_ITEM_TYPE(, mg_item_project_deleted, "project", MG_PROJECT_DELETED_FIELDS, CODE_OWNER, "project");
#undef MG_ITEM_T

/* ---- entities ---- */

#define MG_ITEM_T struct mg_entity
MG_ITEM_TYPE(, mg_item_entity, "entity", MG_ENTITY_FIELDS, MEMORY_OWNER, "entity");
#undef MG_ITEM_T
#define MG_ITEM_T struct mg_retagged
MG_ITEM_TYPE(, mg_item_retagged, "entity", MG_RETAGGED_FIELDS, CODE_OWNER, NULL);
#undef MG_ITEM_T

/* ---- profiles ---- */

#define MG_ITEM_T struct mg_pref
MG_ITEM_TYPE(, mg_item_pref, "profile", MG_PREF_FIELDS, MG_OWN_TENANT, "preference");
#undef MG_ITEM_T
#define MG_ITEM_T struct mg_profile
MG_ITEM_TYPE(, mg_item_profile, "profile", MG_PROFILE_FIELDS, MG_OWN_TENANT, "profile");
#undef MG_ITEM_T

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

