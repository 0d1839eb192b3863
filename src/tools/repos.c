/* repos.c — the repo tools: list_repos, index_repo, index_status,
 * get_repo_settings, set_repo_settings. */
#include <stdlib.h>
#include <string.h>

#include "request/ops.h"
#include "tools/args.h"
#include "tools/family.h"
#include "tools/render.h"

static int t_list_repos(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {NULL};
    if (mg_known_keys(args, keys, err) != 0) return -1;
    struct mg_items items;
    if (mg_gate_run(x, &mg_op_code_repos, NULL, NULL, &items, err) != 0) return -1;
    char id[MG_ID_MAX + 1];
    mg_session_repo(x->session, id);
    json_t *bound = id[0] ? json_string(id) : json_null(); /* a repo id: a name checked when the repo was indexed */
    *result = json_pack("{s:o, s:o}", "repos", mg_render_items(&items), "bound", bound);
    mg_items_release(&items);
    return 0;
}

static int t_index_repo(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"path", "name", NULL};
    struct mg_index_query q = {0};
    if (mg_known_keys(args, keys, err) != 0 || mg_arg_str(args, "path", false, &q.path, err) != 0 ||
        mg_arg_str(args, "name", false, &q.name, err) != 0)
        return -1;
    if (q.path && q.path[0] != '/')
        return mg_err_set(err, MG_E_BAD_ARG, "'path' must be absolute (the server's working directory is not the "
                          "client's)");
    mg_gate_subject(x, q.path);
    struct mg_items items;
    struct mg_target none = {0};
    if (mg_gate_run(x, q.path ? &mg_op_code_index : &mg_op_code_reindex, &none, &q, &items, err) != 0) return -1;
    if (items.n != 1) {
        mg_items_release(&items);
        return mg_err_set(err, MG_E_INTERNAL, "the index run reported nothing");
    }
    *result = mg_render_item(items.v[0]);
    mg_items_release(&items);
    return 0;
}

/* Stats items, each with its repo's settings item as "settings". */
static json_t *render_stats(const struct mg_items *items)
{
    json_t *a = json_array(), *last = NULL;
    for (size_t i = 0; i < items->n; i++) {
        const struct mg_item *it = items->v[i];
        if (it->type == &mg_item_repo_stats) {
            json_array_append_new(a, last = mg_render_item(it));
        } else if (it->type == &mg_item_repo_settings && last &&
                   strcmp(json_string_value(json_object_get(last, "id")), it->own.repo) == 0) {
            json_object_set_new(last, "settings", mg_render_item(it));
        }
    }
    return a;
}

static int t_index_status(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"repo", "repo_id", "all", NULL};
    struct mg_target_args ta;
    bool all = false;
    if (mg_known_keys(args, keys, err) != 0 || mg_arg_bool(args, "all", &all, err) != 0 ||
        mg_arg_target(args, false, &ta, err) != 0)
        return -1;
    if (all && ta.t.repo) {
        mg_target_release(&ta);
        return mg_err_set(err, MG_E_BAD_ARG, "give either 'repo' or 'all', not both");
    }
    struct mg_items items;
    int rc = mg_gate_run(x, all ? &mg_op_code_status_all : &mg_op_code_status, &ta.t, NULL, &items, err);
    mg_target_release(&ta);
    if (rc != 0) return -1;
    *result = json_pack("{s:o}", "repos", render_stats(&items));
    mg_items_release(&items);
    return 0;
}

/* {"repo": id, "settings": {...}} from a settings operation's one item. */
static int settings_result(struct mg_items *items, json_t **result, struct mg_err *err)
{
    if (items->n != 1 || items->v[0]->type != &mg_item_repo_settings) {
        mg_items_release(items);
        return mg_err_set(err, MG_E_INTERNAL, "the settings operation answered no settings");
    }
    *result = json_pack("{s:s, s:o}", "repo", items->v[0]->own.repo, "settings", mg_render_item(items->v[0]));
    mg_items_release(items);
    return 0;
}

static int t_get_repo_settings(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"repo", "repo_id", NULL};
    struct mg_target_args ta;
    if (mg_known_keys(args, keys, err) != 0 || mg_arg_target(args, false, &ta, err) != 0) return -1;
    struct mg_items items;
    int rc = mg_gate_run(x, &mg_op_code_settings, &ta.t, NULL, &items, err);
    mg_target_release(&ta);
    return rc != 0 ? -1 : settings_result(&items, result, err);
}

/* A setting's JSON value as the text store/settings.c checks: a string as
 * it is, a whole number in decimal, true/false as on/off, null as default. */
static int setting_text(const char *name, json_t *v, char *out, size_t cap, struct mg_err *err)
{
    if (json_is_string(v)) snprintf(out, cap, "%s", json_string_value(v));
    else if (json_is_integer(v)) snprintf(out, cap, "%lld", (long long)json_integer_value(v));
    else if (json_is_boolean(v)) snprintf(out, cap, "%s", json_is_true(v) ? "on" : "off");
    else if (json_is_null(v)) snprintf(out, cap, "default");
    else
        return mg_err_set(err, MG_E_BAD_ARG, "'%s' must be a string or a number (watch and pull_on_push: on, off "
                          "or default; reindex_interval: seconds or default)", name);
    return 0;
}

/* The changes set_repo_settings was given, checked (an unknown name gets the
 * sentence that lists the settings), into v[0..*n) (their text in text) and
 * the audit subject ("watch=off reindex_interval=600"). */
struct changes {
    struct mg_setting_change v[MG_SETTINGS_MAX];
    char text[MG_SETTINGS_MAX][72];
    size_t n;
    char subject[256];
};

static int collect_changes(json_t *args, struct changes *c, struct mg_err *err)
{
    static const char *const names[] = {"watch", "reindex_interval", "pull_on_push"};
    const char *k;
    json_t *val;
    char ignored[32];
    memset(c, 0, sizeof(*c));
    json_object_foreach(args, k, val)
    {
        struct mg_setting_change named = {k, "default"};
        if (strcmp(k, "repo") != 0 && strcmp(k, "repo_id") != 0 &&
            mg_setting_check(&named, ignored, sizeof(ignored), err) != 0)
            return -1;
    }
    for (size_t i = 0; i < MG_SETTINGS_MAX; i++) {
        json_t *j = json_object_get(args, names[i]);
        if (!j) continue;
        if (setting_text(names[i], j, c->text[c->n], sizeof(c->text[c->n]), err) != 0) return -1;
        c->v[c->n] = (struct mg_setting_change){names[i], c->text[c->n]};
        if (mg_setting_check(&c->v[c->n], ignored, sizeof(ignored), err) != 0) return -1;
        size_t used = strlen(c->subject);
        snprintf(c->subject + used, sizeof(c->subject) - used, "%s%s=%s", c->n ? " " : "", names[i], c->text[c->n]);
        c->n++;
    }
    if (c->n == 0)
        return mg_err_set(err, MG_E_BAD_ARG, "give at least one setting to change: " MG_SETTING_NAMES
                          " (get_repo_settings shows them)");
    return 0;
}

static int t_set_repo_settings(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"repo", "repo_id", "watch", "reindex_interval", "pull_on_push", NULL};
    struct changes c;
    struct mg_target_args ta;
    if (collect_changes(args, &c, err) != 0 || mg_known_keys(args, keys, err) != 0 ||
        mg_arg_target(args, false, &ta, err) != 0)
        return -1;
    mg_gate_subject(x, c.subject);
    struct mg_settings_query q = {c.v, c.n};
    struct mg_items items;
    int rc = mg_gate_run(x, &mg_op_code_configure, &ta.t, &q, &items, err);
    mg_target_release(&ta);
    return rc != 0 ? -1 : settings_result(&items, result, err);
}

#define S_SETTINGS_RESULT MG_S_OUT("\"repo\":" MG_S_STR ",\"settings\":" MG_S_OBJ, MG_S_REQ("\"repo\",\"settings\""))
#define S_ON_OFF "{\"type\":[\"string\",\"boolean\",\"null\"],\"description\":\"on, off, or default (null)\"}"

const struct mg_tool mg_tools_repos[] = {
    {"list_repos", "List repos", "List the indexed repos and the one this session is bound to.", MG_S_NOARGS,
     MG_S_OUT("\"repos\":" MG_S_ARR, MG_S_REQ("\"repos\"")), t_list_repos, MG_TOOL_READ_ONLY},
    {"index_repo", "Index a repo",
     "Index (or incrementally re-index) a directory on the server's machine; without path, the session's repo. "
     "Sends progress when the call has a progressToken.",
     MG_S_IN("\"path\":{\"type\":\"string\",\"description\":\"absolute path of the repo root\"},\"name\":{\"type\":"
             "\"string\",\"description\":\"repo id instead of the derived one\"}",
             ""),
     MG_S_OUT("\"repo\":" MG_S_STR ",\"root\":" MG_S_STR ",\"files\":" MG_S_INT,
              MG_S_REQ("\"repo\",\"root\",\"files\"")),
     t_index_repo, MG_TOOL_IDEMPOTENT | MG_TOOL_TASK},
    {"index_status", "Index status",
     "Sizes, index runs, last error, vectors, file watcher and settings of the session's repo (or repo; all: every "
     "repo you can see).",
     MG_S_IN(MG_S_REPO ",\"all\":" MG_S_BOOL, ""), MG_S_OUT("\"repos\":" MG_S_ARR, MG_S_REQ("\"repos\"")),
     t_index_status, MG_TOOL_READ_ONLY},
    {"get_repo_settings", "Repo settings",
     "The settings of the session's repo (or repo): watch, reindex_interval, pull_on_push.", MG_S_IN(MG_S_REPO, ""),
     S_SETTINGS_RESULT, t_get_repo_settings, MG_TOOL_READ_ONLY},
    {"set_repo_settings", "Change repo settings",
     "Change the session's repo's settings (needs admin); those not given stay. watch: the file watcher follows "
     "it; reindex_interval: seconds between re-indexes (0 none, else 60+); pull_on_push: the push webhook pulls it.",
     MG_S_IN(MG_S_REPO ",\"watch\":" S_ON_OFF ",\"reindex_interval\":{\"type\":[\"integer\",\"string\",\"null\"]},"
             "\"pull_on_push\":" S_ON_OFF,
             ""),
     S_SETTINGS_RESULT, t_set_repo_settings, MG_TOOL_IDEMPOTENT},
};
const size_t mg_tools_repos_n = sizeof(mg_tools_repos) / sizeof(mg_tools_repos[0]);
