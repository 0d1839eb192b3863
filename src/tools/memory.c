/* memory.c — the memory tools: notes, projects, episodes, entities and
 * profiles (docs/memory.md). Each checks its arguments, runs one operation
 * through the gate and renders the gated items.
 *
 * Sections: 1. arguments  2. notes  3. projects  4. episodes  5. entities
 * 6. profiles  7. the table
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "request/ops.h"
#include "tools/args.h"
#include "tools/family.h"
#include "tools/render.h"

/* ---- 1. arguments ---------------------------------------------------------------------------- */

static int check_key(const char *key, struct mg_err *err)
{
    size_t n = strlen(key);
    if (n < 1 || n > MG_NOTE_KEY_MAX) return mg_err_set(err, MG_E_BAD_ARG, "'key' must be 1-%d bytes", MG_NOTE_KEY_MAX);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)key[i] < 0x20 || key[i] == 0x7f)
            return mg_err_set(err, MG_E_BAD_ARG, "'key' must not contain control characters");
    return 0;
}

/* The repo (`repo`, `repo_id`) and the conversation (`session_id`). */
struct margs {
    struct mg_target_args ta;
    struct mg_mem_args a;
};

static int common(struct mg_ctx *x, json_t *args, struct margs *m, struct mg_err *err)
{
    memset(m, 0, sizeof(*m));
    const char *sess;
    if (mg_arg_str(args, "session_id", false, &sess, err) != 0) return -1;
    if (sess && !mg_memory_id_ok(sess))
        return mg_err_set(err, MG_E_BAD_ARG, "'session_id' must be 1-%d characters of A-Z a-z 0-9 . _ : -",
                          MG_SESSION_ID_MAX);
    m->a.session = mg_request_memory_session(x, sess);
    return mg_arg_target(args, false, &m->ta, err);
}

/* Run op with m's target and arguments into items. */
static int run(struct mg_ctx *x, const struct mg_op *op, struct margs *m, struct mg_items *items, struct mg_err *err)
{
    int rc = mg_gate_run(x, op, &m->ta.t, &m->a, items, err);
    mg_target_release(&m->ta);
    return rc;
}

static const char *repo_id(struct mg_ctx *x) { return x->nrepos ? x->repos[0].id : ""; }

static int total_redactions(const struct mg_items *l)
{
    int n = 0;
    for (size_t i = 0; i < l->n; i++) n += l->v[i]->redactions;
    return n;
}

/* A single item rendered as the result (the rest is an error: the gate left nothing). */
static int one_result(struct mg_items *items, json_t **result, struct mg_err *err)
{
    if (items->n < 1) {
        mg_items_release(items);
        return mg_err_set(err, MG_E_INTERNAL, "the memory provider answered nothing that could be served");
    }
    *result = mg_render_gated(mg_render_item(items->v[0]), items);
    mg_items_release(items);
    return 0;
}

/* ---- 2. notes -------------------------------------------------------------------------------- */

static int t_set_note(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"key", "value", "source", "trust", "repo", "repo_id", "session_id", NULL};
    struct mg_note_in in = {0};
    if (mg_known_keys(args, keys, err) != 0 || mg_arg_str(args, "key", true, &in.key, err) != 0 ||
        mg_arg_str(args, "value", true, &in.value, err) != 0 || mg_arg_str(args, "source", false, &in.source, err) != 0 ||
        check_key(in.key, err) != 0)
        return -1;
    if (strlen(in.value) > MG_NOTE_VALUE_MAX)
        return mg_err_set(err, MG_E_BAD_ARG, "'value' is over %d bytes; store less", MG_NOTE_VALUE_MAX);
    if (!in.source) in.source = "user_stated";
    if (strcmp(in.source, "user_stated") && strcmp(in.source, "llm_extracted") && strcmp(in.source, "inferred"))
        return mg_err_set(err, MG_E_BAD_ARG, "'source' must be user_stated, llm_extracted or inferred");
    in.trust = strcmp(in.source, "user_stated") == 0 ? 1.0 : strcmp(in.source, "llm_extracted") == 0 ? 0.6 : 0.3;
    json_t *tv = json_object_get(args, "trust");
    if (tv && !json_is_null(tv)) {
        if (!json_is_number(tv) || json_number_value(tv) < 0 || json_number_value(tv) > 1)
            return mg_err_set(err, MG_E_BAD_ARG, "'trust' must be a number from 0 to 1");
        in.trust = json_number_value(tv);
    }
    struct margs m;
    if (common(x, args, &m, err) != 0) return -1;
    in.session = m.a.session;
    m.a.note = &in;
    mg_gate_subject(x, in.key);
    struct mg_items items;
    if (run(x, &mg_op_notes_set, &m, &items, err) != 0) return -1;
    if (items.n != 1) return one_result(&items, result, err);
    const struct mg_note *n = (const struct mg_note *)items.v[0];
    *result = mg_render_gated(json_pack("{s:o, s:b, s:i}", "note", mg_render_item(&n->base), "created", n->created,
                                        "redactions", total_redactions(&items)), &items);
    mg_items_release(&items);
    return 0;
}

static int t_get_note(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"key", "repo", "repo_id", "session_id", NULL};
    struct margs m;
    const char *key;
    if (mg_known_keys(args, keys, err) != 0 || mg_arg_str(args, "key", true, &key, err) != 0 ||
        common(x, args, &m, err) != 0)
        return -1;
    m.a.key = key;
    mg_gate_subject(x, key);
    struct mg_items items;
    if (run(x, &mg_op_notes_get, &m, &items, err) != 0) return -1;
    if (items.n == 0) {
        mg_items_release(&items);
        return mg_err_set(err, MG_E_NOTE_NOT_FOUND, "no note '%.200s' in repo '%s'; list_notes shows the keys", key,
                          repo_id(x));
    }
    *result = mg_render_gated(json_pack("{s:o}", "note", mg_render_item(items.v[0])), &items);
    mg_items_release(&items);
    return 0;
}

/* list_notes and search_notes: {notes[], repo}. */
static int notes_result(struct mg_ctx *x, const char *tool, json_t *args, const struct mg_op *op, struct margs *m,
                        long long offset, json_t **result, struct mg_err *err)
{
    struct mg_items items;
    long long limit = m->a.limit;
    m->a.limit = (int)(offset + limit + 1); /* the page, and one more to know there is more */
    mg_page_window(x, offset, limit);
    if (run(x, op, m, &items, err) != 0) return -1;
    bool more = x->page.more || items.omitted > 0;
    *result = mg_render_gated(json_pack("{s:o, s:s}", "notes", mg_render_items(&items), "repo", repo_id(x)), &items);
    int rc = *result ? mg_page_end(x, tool, args, offset, items.n, more, *result, err) : 0;
    mg_items_release(&items);
    return rc;
}

static int t_list_notes(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"prefix", "limit", "cursor", "repo", "repo_id", "session_id", NULL};
    struct margs m;
    const char *prefix;
    long long limit, offset;
    if (mg_known_keys(args, keys, err) != 0 || mg_arg_str(args, "prefix", false, &prefix, err) != 0 ||
        mg_arg_int(args, "limit", 1, 10000, 100, &limit, err) != 0 ||
        mg_arg_page(args, "list_notes", &offset, err) != 0 || common(x, args, &m, err) != 0)
        return -1;
    m.a.prefix = prefix;
    m.a.limit = (int)limit;
    mg_gate_subject(x, prefix);
    return notes_result(x, "list_notes", args, &mg_op_notes_list, &m, offset, result, err);
}

static int t_search_notes(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"query", "limit", "cursor", "repo", "repo_id", "session_id", NULL};
    struct margs m;
    const char *q;
    long long limit, offset;
    if (mg_known_keys(args, keys, err) != 0 || mg_arg_query(&x->srv->cfg, args, "query", true, &q, err) != 0 ||
        mg_arg_int(args, "limit", 1, 1000, 20, &limit, err) != 0 ||
        mg_arg_page(args, "search_notes", &offset, err) != 0 || common(x, args, &m, err) != 0)
        return -1;
    m.a.query = q;
    m.a.limit = (int)limit;
    mg_gate_subject(x, q);
    return notes_result(x, "search_notes", args, &mg_op_notes_search, &m, offset, result, err);
}

static int t_delete_note(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"key", "repo", "repo_id", "session_id", NULL};
    struct margs m;
    const char *key;
    if (mg_known_keys(args, keys, err) != 0 || mg_arg_str(args, "key", true, &key, err) != 0 ||
        common(x, args, &m, err) != 0)
        return -1;
    m.a.key = key;
    mg_gate_subject(x, key);
    struct mg_items items;
    if (run(x, &mg_op_notes_remove, &m, &items, err) != 0) return -1;
    return one_result(&items, result, err);
}

/* ---- 3. projects ------------------------------------------------------------------------------- */

/* A project name argument (NULL when absent and optional): name_invalid
 * when it is not one, whichever tool names it. */
static int project_arg(json_t *args, const char *key, bool required, const char **name, struct mg_err *err)
{
    if (mg_arg_str(args, key, required, name, err) != 0) return -1;
    if (*name && mg_repo_check_name(*name, err) != 0)
        return mg_err_set(err, MG_E_NAME_INVALID, "project name '%.64s' is not valid: 1-64 characters of a-z 0-9 . _ "
                          "- starting with a letter or digit", *name);
    return 0;
}

static int t_create_project(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"name", "repo", "repo_id", "session_id", NULL};
    struct margs m;
    const char *name;
    if (mg_known_keys(args, keys, err) != 0 || project_arg(args, "name", true, &name, err) != 0) return -1;
    if (common(x, args, &m, err) != 0) return -1;
    m.a.name = name;
    mg_gate_subject(x, name);
    struct mg_items items;
    if (run(x, &mg_op_sessions_project_create, &m, &items, err) != 0) return -1;
    if (items.n != 1) return one_result(&items, result, err);
    *result = json_pack("{s:o}", "project", mg_render_item(items.v[0]));
    mg_items_release(&items);
    return 0;
}

static int t_list_projects(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"repo", "repo_id", "session_id", NULL};
    struct margs m;
    if (mg_known_keys(args, keys, err) != 0 || common(x, args, &m, err) != 0) return -1;
    struct mg_items items;
    if (run(x, &mg_op_sessions_project_list, &m, &items, err) != 0) return -1;
    *result = json_pack("{s:o, s:s}", "projects", mg_render_items(&items), "repo", repo_id(x));
    mg_items_release(&items);
    return 0;
}

static int membership(struct mg_ctx *x, json_t *args, bool join, json_t **result, struct mg_err *err)
{
    static const char *const jkeys[] = {"project", "repo", "repo_id", "session_id", NULL};
    static const char *const lkeys[] = {"repo", "repo_id", "session_id", NULL};
    struct margs m;
    const char *name = NULL;
    if (mg_known_keys(args, join ? jkeys : lkeys, err) != 0 ||
        (join && project_arg(args, "project", true, &name, err) != 0) || common(x, args, &m, err) != 0)
        return -1;
    /* without session_id, the membership is the request's session's: one that ends with the request forgets it */
    if (strcmp(m.a.session, mg_session_id(x->session)) == 0 && mg_session_transient(x->session) &&
        mg__tools_keeps_state(x, "a project's membership", err) != 0) {
        mg_target_release(&m.ta);
        return -1;
    }
    m.a.name = name;
    mg_gate_subject(x, name);
    struct mg_items items;
    if (run(x, &mg_op_sessions_project_join, &m, &items, err) != 0) return -1;
    return one_result(&items, result, err);
}

static int t_join_project(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    return membership(x, args, true, result, err);
}

static int t_leave_project(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    return membership(x, args, false, result, err);
}

static int t_delete_project(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"project", "repo", "repo_id", "session_id", NULL};
    struct margs m;
    const char *name;
    if (mg_known_keys(args, keys, err) != 0 || project_arg(args, "project", true, &name, err) != 0 ||
        common(x, args, &m, err) != 0)
        return -1;
    m.a.name = name;
    mg_gate_subject(x, name);
    struct mg_items items;
    if (run(x, &mg_op_sessions_project_delete, &m, &items, err) != 0) return -1;
    return one_result(&items, result, err);
}

/* ---- 4. episodes --------------------------------------------------------------------------------- */

static int t_remember(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"summary", "tags", "repo", "repo_id", "session_id", NULL};
    struct margs m;
    const char *summary;
    if (mg_known_keys(args, keys, err) != 0 || mg_arg_str(args, "summary", true, &summary, err) != 0) return -1;
    if (!*summary || strlen(summary) > MG_SUMMARY_MAX)
        return mg_err_set(err, MG_E_BAD_ARG, "'summary' must be 1 to %d bytes", MG_SUMMARY_MAX);
    json_t *tags = json_object_get(args, "tags"), *tg;
    const char *tagv[MG_TAGS_MAX];
    size_t ntags = 0, i;
    if (tags && !json_is_null(tags)) {
        if (!json_is_array(tags) || json_array_size(tags) > MG_TAGS_MAX)
            return mg_err_set(err, MG_E_BAD_ARG, "'tags' must be an array of at most %d strings", MG_TAGS_MAX);
        json_array_foreach(tags, i, tg)
        {
            if (!json_is_string(tg) || json_string_length(tg) == 0 || json_string_length(tg) > MG_TAG_MAX ||
                strlen(json_string_value(tg)) != json_string_length(tg) || strchr(json_string_value(tg), ','))
                return mg_err_set(err, MG_E_BAD_ARG, "each tag must be 1-%d bytes without ','", MG_TAG_MAX);
            tagv[ntags++] = json_string_value(tg);
        }
    }
    if (common(x, args, &m, err) != 0) return -1;
    m.a.summary = summary;
    m.a.tags = tagv;
    m.a.ntags = ntags;
    mg_gate_subject(x, summary);
    struct mg_items items;
    if (run(x, &mg_op_sessions_remember, &m, &items, err) != 0) return -1;
    if (items.n != 1) return one_result(&items, result, err);
    *result = mg_render_gated(json_pack("{s:o, s:o, s:i}", "episode", mg_render_item(items.v[0]), "scope",
                                        mg_render_place(&items), "redactions", total_redactions(&items)),
                              &items);
    mg_items_release(&items);
    return 0;
}

/* recall and search_entities: an optional query in the conversation's pool. */
static int pooled(struct mg_ctx *x, const char *tool, json_t *args, long long dflt, const char *field,
                  const struct mg_op *op, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"query", "limit", "cursor", "repo", "repo_id", "session_id", NULL};
    struct margs m;
    const char *q;
    long long limit, offset;
    if (mg_known_keys(args, keys, err) != 0 || mg_arg_str(args, "query", false, &q, err) != 0 ||
        mg_arg_int(args, "limit", 1, 1000, dflt, &limit, err) != 0 || mg_arg_page(args, tool, &offset, err) != 0)
        return -1;
    if (q && strlen(q) > x->srv->cfg.max_query_bytes)
        return mg_err_set(err, MG_E_QUERY_TOO_LONG, "the query is over max_query_bytes");
    if (common(x, args, &m, err) != 0) return -1;
    m.a.query = q;
    m.a.limit = (int)(offset + limit + 1); /* the page, and one more to know there is more */
    mg_gate_subject(x, q);
    mg_page_window(x, offset, limit);
    struct mg_items items;
    if (run(x, op, &m, &items, err) != 0) return -1;
    bool more = x->page.more || items.omitted > 0;
    *result = mg_render_gated(json_pack("{s:o, s:o}", field, mg_render_items(&items), "scope", mg_render_place(&items)),
                              &items);
    int rc = *result ? mg_page_end(x, tool, args, offset, items.n, more, *result, err) : 0;
    mg_items_release(&items);
    return rc;
}

static int t_recall(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    return pooled(x, "recall", args, 10, "episodes", &mg_op_sessions_recall, result, err);
}

/* ---- 5. entities ---------------------------------------------------------------------------------- */

static int t_add_entities(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"entities", "repo", "repo_id", "session_id", NULL};
    if (mg_known_keys(args, keys, err) != 0) return -1;
    json_t *ents = json_object_get(args, "entities"), *e;
    size_t i;
    if (!json_is_array(ents) || json_array_size(ents) == 0 || json_array_size(ents) > MG_ENTITIES_MAX)
        return mg_err_set(err, MG_E_BAD_ARG, "'entities' must be an array of 1 to %d objects {name, type, notes}",
                          MG_ENTITIES_MAX);
    json_array_foreach(ents, i, e)
    {
        json_t *n = json_object_get(e, "name"), *t = json_object_get(e, "type"), *o = json_object_get(e, "notes");
        if (!json_is_object(e) || !json_is_string(n) || json_string_length(n) == 0 ||
            json_string_length(n) > MG_ENTITY_NAME_MAX || (t && !json_is_string(t)) ||
            json_string_length(t) > MG_ENTITY_TYPE_MAX || (o && !json_is_string(o)) ||
            json_string_length(o) > MG_ENTITY_NOTES_MAX || json_object_size(e) > 3 ||
            json_object_size(e) != (size_t)(1 + (t != NULL) + (o != NULL)))
            return mg_err_set(err, MG_E_BAD_ARG, "entity %zu must be {name (1-%d bytes), type (<= %d), notes "
                              "(<= %d)} and nothing else", i, MG_ENTITY_NAME_MAX, MG_ENTITY_TYPE_MAX,
                              MG_ENTITY_NOTES_MAX);
    }
    struct mg_entity_in *v = calloc(json_array_size(ents), sizeof(*v));
    if (!v) return mg_err_oom(err);
    json_array_foreach(ents, i, e)
    {
        v[i].name = json_string_value(json_object_get(e, "name"));
        v[i].type = json_string_value(json_object_get(e, "type"));
        v[i].notes = json_string_value(json_object_get(e, "notes"));
    }
    struct margs m;
    if (common(x, args, &m, err) != 0) {
        free(v);
        return -1;
    }
    m.a.entities = v;
    m.a.nentities = json_array_size(ents);
    mg_gate_subject(x, v[0].name);
    struct mg_items items;
    int rc = run(x, &mg_op_entities_add, &m, &items, err);
    free(v);
    if (rc != 0) return -1;
    *result = mg_render_gated(json_pack("{s:o, s:o, s:i}", "entities", mg_render_items(&items), "scope",
                                        mg_render_place(&items), "redactions", total_redactions(&items)),
                              &items);
    mg_items_release(&items);
    return 0;
}

static int t_search_entities(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    return pooled(x, "search_entities", args, 20, "entities", &mg_op_entities_search, result, err);
}

static int t_retag_entities(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"ids", "project", "repo", "repo_id", "session_id", NULL};
    struct margs m;
    const char *name;
    if (mg_known_keys(args, keys, err) != 0 || project_arg(args, "project", false, &name, err) != 0) return -1;
    json_t *ids = json_object_get(args, "ids"), *v;
    size_t i;
    if (!json_is_array(ids) || json_array_size(ids) == 0 || json_array_size(ids) > MG_ENTITIES_MAX)
        return mg_err_set(err, MG_E_BAD_ARG, "'ids' must be an array of 1 to %d entity ids", MG_ENTITIES_MAX);
    json_array_foreach(ids, i, v) if (!json_is_integer(v)) return mg_err_set(err, MG_E_BAD_ARG, "'ids' holds integers");
    int64_t *idv = calloc(json_array_size(ids), sizeof(*idv));
    if (!idv) return mg_err_oom(err);
    json_array_foreach(ids, i, v) idv[i] = json_integer_value(v);
    if (common(x, args, &m, err) != 0) {
        free(idv);
        return -1;
    }
    m.a.ids = idv;
    m.a.nids = json_array_size(ids);
    m.a.name = name;
    mg_gate_subject(x, name);
    struct mg_items items;
    int rc = run(x, &mg_op_entities_retag, &m, &items, err);
    free(idv);
    if (rc != 0) return -1;
    return one_result(&items, result, err);
}

/* ---- 6. profiles ----------------------------------------------------------------------------------- */

static int check_agent(const char *a, struct mg_err *err)
{
    if (!mg_memory_id_ok(a))
        return mg_err_set(err, MG_E_BAD_ARG, "'agent_id' must be 1-%d characters of A-Z a-z 0-9 . _ : -",
                          MG_SESSION_ID_MAX);
    return 0;
}

static int t_save_preference(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"agent_id", "key", "value", NULL};
    struct mg_mem_args a = {0};
    if (mg_known_keys(args, keys, err) != 0 || mg_arg_str(args, "agent_id", true, &a.agent, err) != 0 ||
        mg_arg_str(args, "key", true, &a.key, err) != 0 || mg_arg_str(args, "value", true, &a.value, err) != 0 ||
        check_agent(a.agent, err) != 0 || check_key(a.key, err) != 0)
        return -1;
    if (strlen(a.value) > MG_NOTE_VALUE_MAX)
        return mg_err_set(err, MG_E_BAD_ARG, "'value' is over %d bytes", MG_NOTE_VALUE_MAX);
    mg_gate_subject(x, a.key);
    struct mg_items items;
    if (mg_gate_run(x, &mg_op_profiles_save, NULL, &a, &items, err) != 0) return -1;
    return one_result(&items, result, err);
}

static int t_get_profile(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"agent_id", NULL};
    struct mg_mem_args a = {0};
    if (mg_known_keys(args, keys, err) != 0 || mg_arg_str(args, "agent_id", true, &a.agent, err) != 0 ||
        check_agent(a.agent, err) != 0)
        return -1;
    mg_gate_subject(x, a.agent);
    struct mg_items items;
    if (mg_gate_run(x, &mg_op_profiles_get, NULL, &a, &items, err) != 0) return -1;
    json_t *prefs = json_object();
    const char *agent = NULL;
    for (size_t i = 0; i < items.n; i++) {
        if (items.v[i]->type == &mg_item_profile) {
            agent = ((const struct mg_profile *)items.v[i])->agent_id;
        } else if (items.v[i]->type == &mg_item_pref) {
            const struct mg_pref *p = (const struct mg_pref *)items.v[i];
            if (p->key && p->value) json_object_set_new(prefs, p->key, json_string(p->value));
        }
    }
    if (!agent) {
        json_decref(prefs);
        mg_items_release(&items);
        return mg_err_set(err, MG_E_INTERNAL, "the profile could not be served");
    }
    *result = json_pack("{s:s, s:o, s:o}", "agent_id", agent, "preferences", prefs, "gate", mg_render_gate(&items));
    mg_items_release(&items);
    return 0;
}

/* ---- 7. the table ----------------------------------------------------------------------------------- */

#define S_R MG_S_REPO
#define S_S MG_S_SESSION
#define S_LIMIT "\"limit\":{\"type\":\"integer\",\"minimum\":1},\"cursor\":" MG_S_STR
#define OBJ(props, req) MG_S_IN(props, req)
#define REQ(list) MG_S_REQ(list)
#define OUT(props) MG_S_OUT(props, "")

const struct mg_tool mg_tools_memory[] = {
    {"set_note", "Set a note",
     "Store durable knowledge about the repo under a key (replaces the value); trust 0-1.",
     OBJ("\"key\":" MG_S_STR ",\"value\":" MG_S_STR ",\"source\":{\"type\":\"string\",\"enum\":[\"user_stated\","
         "\"llm_extracted\",\"inferred\"],\"default\":\"user_stated\"},\"trust\":{\"type\":\"number\",\"minimum\":0,"
         "\"maximum\":1}," S_R "," S_S,
         REQ("\"key\",\"value\"")),
     OUT("\"note\":" MG_S_OBJ ",\"created\":" MG_S_BOOL), t_set_note, MG_TOOL_DESTRUCTIVE | MG_TOOL_IDEMPOTENT},
    {"get_note", "Get a note", "Read one note of the repo by key.",
     OBJ("\"key\":" MG_S_STR "," S_R "," S_S, REQ("\"key\"")), OUT("\"note\":" MG_S_OBJ), t_get_note,
     MG_TOOL_READ_ONLY},
    {"list_notes", "List notes", "The repo's notes, newest first; prefix: only keys starting with it.",
     OBJ("\"prefix\":" MG_S_STR "," S_LIMIT "," S_R "," S_S, ""), OUT("\"notes\":" MG_S_ARR), t_list_notes,
     MG_TOOL_READ_ONLY},
    {"search_notes", "Search notes", "Ranked search over the repo's notes (keys and values).",
     OBJ("\"query\":" MG_S_STR "," S_LIMIT "," S_R "," S_S, REQ("\"query\"")), OUT("\"notes\":" MG_S_ARR),
     t_search_notes, MG_TOOL_READ_ONLY},
    {"delete_note", "Delete a note", "Delete a note of the repo by key.",
     OBJ("\"key\":" MG_S_STR "," S_R "," S_S, REQ("\"key\"")), OUT("\"deleted\":" MG_S_BOOL), t_delete_note,
     MG_TOOL_DESTRUCTIVE | MG_TOOL_IDEMPOTENT},
    {"create_project", "Create a project",
     "Create a project of this repo: a named group of sessions sharing episodes and entities, isolated from other "
     "projects and from sessions in none.",
     OBJ("\"name\":" MG_S_STR "," S_R "," S_S, REQ("\"name\"")), OUT("\"project\":" MG_S_OBJ), t_create_project, 0},
    {"list_projects", "List projects", "The repo's projects and how many sessions each has.", OBJ(S_R "," S_S, ""),
     OUT("\"projects\":" MG_S_ARR), t_list_projects, MG_TOOL_READ_ONLY},
    {"join_project", "Join a project",
     "Put this session in a project (leaving any other); its episodes, earlier ones too, join the project's pool.",
     OBJ("\"project\":" MG_S_STR "," S_R "," S_S, REQ("\"project\"")), OUT("\"project\":" MG_S_NSTR),
     t_join_project, MG_TOOL_IDEMPOTENT},
    {"leave_project", "Leave the project",
     "Take this session out of its project; its episodes leave the project's pool.", OBJ(S_R "," S_S, ""),
     OUT("\"project\":" MG_S_NSTR), t_leave_project, MG_TOOL_IDEMPOTENT},
    {"delete_project", "Delete a project",
     "Delete a project with its entities and its sessions' episodes.",
     OBJ("\"project\":" MG_S_STR "," S_R "," S_S, REQ("\"project\"")), OUT("\"deleted\":" MG_S_BOOL),
     t_delete_project, MG_TOOL_DESTRUCTIVE | MG_TOOL_IDEMPOTENT},
    {"remember", "Remember an episode",
     "Store what this session did or learned (summary, tags) for later sessions of its project (or the shared "
     "pool when in none).",
     OBJ("\"summary\":" MG_S_STR ",\"tags\":" MG_SCHEMA_STRS "," S_R "," S_S, REQ("\"summary\"")),
     OUT("\"episode\":" MG_S_OBJ), t_remember, 0},
    {"recall", "Recall episodes",
     "Search earlier episodes of this session's project (or of the shared pool when in none); without query, the "
     "newest.",
     OBJ("\"query\":" MG_S_STR "," S_LIMIT "," S_R "," S_S, ""), OUT("\"episodes\":" MG_S_ARR), t_recall,
     MG_TOOL_READ_ONLY},
    {"add_entities", "Add entities",
     "Store named things (a service, a person, a component) with notes, tagged with this session's project.",
     OBJ("\"entities\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"name\":" MG_S_STR
         ",\"type\":" MG_S_STR ",\"notes\":" MG_S_STR "},\"required\":[\"name\"]}}," S_R "," S_S,
         REQ("\"entities\"")),
     OUT("\"entities\":" MG_S_ARR), t_add_entities, 0},
    {"search_entities", "Search entities", "Search the entities of this session's project (none when in no project).",
     OBJ("\"query\":" MG_S_STR "," S_LIMIT "," S_R "," S_S, ""), OUT("\"entities\":" MG_S_ARR), t_search_entities,
     MG_TOOL_READ_ONLY},
    {"retag_entities", "Retag entities", "Move entities to another project of the repo (project null: none).",
     OBJ("\"ids\":{\"type\":\"array\",\"items\":{\"type\":\"integer\"}},\"project\":" MG_S_NSTR "," S_R "," S_S,
         REQ("\"ids\"")),
     OUT("\"retagged\":" MG_S_INT), t_retag_entities, MG_TOOL_IDEMPOTENT},
    {"save_preference", "Save a preference",
     "Store a preference of an agent (agent_id); profiles are global: the same in every repo and project.",
     OBJ("\"agent_id\":" MG_S_STR ",\"key\":" MG_S_STR ",\"value\":" MG_S_STR, REQ("\"agent_id\",\"key\",\"value\"")),
     OUT("\"agent_id\":" MG_S_STR), t_save_preference, MG_TOOL_DESTRUCTIVE | MG_TOOL_IDEMPOTENT},
    {"get_profile", "Get a profile", "An agent's preferences (global: the same in every repo).",
     OBJ("\"agent_id\":" MG_S_STR, REQ("\"agent_id\"")), OUT("\"preferences\":" MG_S_OBJ), t_get_profile,
     MG_TOOL_READ_ONLY},
};
const size_t mg_tools_memory_n = sizeof(mg_tools_memory) / sizeof(mg_tools_memory[0]);
