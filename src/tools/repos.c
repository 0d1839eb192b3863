/* repos.c — the repo tools: list_repos, index_repo, index_status. */
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
    pthread_mutex_lock(&x->session->mu);
    /* a repo id: a name checked when the repo was indexed */
    json_t *bound = x->session->repo[0] ? json_string(x->session->repo) : json_null();
    pthread_mutex_unlock(&x->session->mu);
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

static int t_index_status(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"repo", "repo_id", NULL};
    struct mg_target_args ta;
    if (mg_known_keys(args, keys, err) != 0 || mg_arg_target(args, false, &ta, err) != 0) return -1;
    struct mg_items items;
    int rc = mg_gate_run(x, &mg_op_code_status, &ta.t, NULL, &items, err);
    mg_target_release(&ta);
    if (rc != 0) return -1;
    *result = json_pack("{s:o}", "repos", mg_render_items(&items));
    mg_items_release(&items);
    return 0;
}

#define S_NSTR "{\"type\":[\"string\",\"null\"]}"
#define S_NOARGS "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}"
#define S_REPO_OBJ                                                                                                  \
    "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"},\"root\":{\"type\":\"string\"},"           \
    "\"fingerprint\":{\"type\":\"string\"},\"files\":{\"type\":\"integer\"},\"chunks\":{\"type\":\"integer\"},"    \
    "\"symbols\":{\"type\":\"integer\"},\"bytes\":{\"type\":\"integer\"},\"db_bytes\":{\"type\":\"integer\"},"     \
    "\"created_at\":{\"type\":\"integer\"},\"indexed_at\":{\"type\":\"integer\"}},\"required\":[\"id\",\"root\"]}"

const struct mg_tool mg_tools_repos[] = {
    {"list_repos", "List repos", "List the indexed repos and the one this session is bound to.", S_NOARGS,
     "{\"type\":\"object\",\"properties\":{\"repos\":{\"type\":\"array\",\"items\":" S_REPO_OBJ "},\"bound\":"
     S_NSTR "},\"required\":[\"repos\"]}",
     t_list_repos},
    {"index_repo", "Index a repo",
     "Index (or re-index, incrementally) a directory on the server's machine. Without path: re-index the "
     "session's repo. Sends progress notifications when the call carries a progressToken.",
     "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\",\"description\":\"absolute path of the "
     "repo root\"},\"name\":{\"type\":\"string\",\"description\":\"repo id to use instead of the derived one\"}},"
     "\"additionalProperties\":false}",
     "{\"type\":\"object\",\"properties\":{\"repo\":{\"type\":\"string\"},\"root\":{\"type\":\"string\"},"
     "\"created\":{\"type\":\"boolean\"},\"files\":{\"type\":\"integer\"},\"added\":{\"type\":\"integer\"},"
     "\"changed\":{\"type\":\"integer\"},\"unchanged\":{\"type\":\"integer\"},\"removed\":{\"type\":\"integer\"},"
     "\"chunks\":{\"type\":\"integer\"},\"symbols\":{\"type\":\"integer\"},\"bytes\":{\"type\":\"integer\"},"
     "\"seconds\":{\"type\":\"number\"}},\"required\":[\"repo\",\"root\",\"files\"]}",
     t_index_repo},
    {"index_status", "Index status", "Sizes and times of the session's repo index (or the given repo's).",
     "{\"type\":\"object\",\"properties\":{\"repo\":{\"type\":\"string\",\"description\":\"repo id (list_repos); "
     "default: the session's repo\"}},\"additionalProperties\":false}",
     "{\"type\":\"object\",\"properties\":{\"repos\":{\"type\":\"array\",\"items\":" S_REPO_OBJ "}},"
     "\"required\":[\"repos\"]}",
     t_index_status},
};
const size_t mg_tools_repos_n = sizeof(mg_tools_repos) / sizeof(mg_tools_repos[0]);
