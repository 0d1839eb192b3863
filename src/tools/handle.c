/* handle.c — open_handle: the state a 2026-07-28 client cannot keep in a
 * protocol session (the repo binding, the scope, the memory session and its
 * project membership) kept under a handle it passes back as the `handle`
 * argument of later calls (docs/binding.md). A handle is a session of kind
 * HANDLE in the registry: 128 random bits, the creating tenant's only, idle
 * out after session_ttl; rpc.c looks it up and refuses any other
 * (handle_invalid). With storage = postgres://... the handle lives in
 * PostgreSQL, so that every daemon behind a load balancer knows it. */
#include <stdio.h>
#include <string.h>

#include "request/gate.h"
#include "tools/args.h"
#include "tools/family.h"
#include "util/json.h"

static int t_open_handle(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"repo", NULL};
    const char *repo = NULL;
    if (mg_known_keys(args, keys, err) != 0 || mg_arg_str(args, "repo", false, &repo, err) != 0) return -1;
    /* bind it to the repo the call resolves to (explicit, the client's root, the only one); none is fine */
    struct mg_target t = {.repo = repo};
    struct mg_err e = {0};
    char bound[MG_ID_MAX + 1] = "";
    if (mg_gate_resolve(x, &t, MG_REPOS_ONE, &e) == 0) {
        snprintf(bound, sizeof(bound), "%s", x->repos[0].id);
    } else if (repo || !e.code || strcmp(e.code, MG_E_REPO_REQUIRED) != 0) {
        *err = e;
        return -1;
    }
    struct mg_session *h = mg_sessions_create(x->srv->sessions, MG_SESSION_HANDLE, NULL, x->instance,
                                                  x->who.tenant, err);
    if (!h) return -1;
    /* unbound: the first request that states a root (or answers roots) binds it; a shared handle's
     * binding is stored before the answer */
    if (bound[0] && mg_session_bind_repo(h, bound, err) != 0) {
        mg_session_unref(&h);
        return -1;
    }
    *result = json_pack("{s:s, s:o, s:i}", "handle", mg_session_id(h), "repo", bound[0] ? json_string(bound) : json_null(),
                        "idle_ttl_s", x->srv->cfg.session_ttl);
    mg_session_unref(&h);
    return 0;
}

const struct mg_tool mg_tools_handle[] = {
    {"open_handle", "Open a handle",
     "A handle to pass as `handle` to later calls: keeps binding, scope and memory session between stateless "
     "calls; expires after session_ttl idle.",
     "{\"type\":\"object\",\"properties\":{\"repo\":{\"type\":\"string\"}}}",
     "{\"type\":\"object\",\"properties\":{\"handle\":{\"type\":\"string\"}},\"required\":[\"handle\"]}",
     t_open_handle, 0},
};
const size_t mg_tools_handle_n = sizeof(mg_tools_handle) / sizeof(mg_tools_handle[0]);
