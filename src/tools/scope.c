/* scope.c — the session scope tools: set_scope, get_scope, clear_scope.
 * They change or show the session's own state; no provider is involved.
 * A shared session's (request/session.h) is written to PostgreSQL before
 * the call answers. */
#include <stdlib.h>
#include <string.h>

#include "request/resolve.h"
#include "tools/args.h"
#include "tools/family.h"
#include "tools/render.h"

/* {"scope", "session"} */
static json_t *scope_result(struct mg_ctx *x)
{
    struct mg_scope sc;
    if (mg_session_scope(x->session, &sc) != 0) memset(&sc, 0, sizeof(sc));
    json_t *r = json_pack("{s:o, s:s}", "scope", mg_render_scope(x, &sc), "session", mg_session_id(x->session));
    mg_scope_release(&sc);
    return r;
}

/* The implicit session of /v1 calls without X-Session-Id keeps nothing
 * (api.c gives the scope routes a session of their own; this is the
 * backstop); a 2026-07-28 request without a handle has a session of its own
 * that ends with it: a silent success would be forgotten by the next call. */
int mg__tools_keeps_state(const struct mg_ctx *x, const char *what, struct mg_err *err)
{
    if (mg_session_implicit(x->session))
        return mg_err_set(err, MG_E_SESSION_REQUIRED, "%s is kept per session: send X-Session-Id (an id of your "
                          "choosing) on this call and the calls that should use it", what);
    if (mg_session_transient(x->session))
        return mg_err_set(err, MG_E_SESSION_REQUIRED, "%s is kept per session, and this request has none that "
                          "outlives it (a 2026-07-28 request): call open_handle and pass its `handle` on this call "
                          "and the calls that should use it", what);
    return 0;
}

static int t_set_scope(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    if (mg__tools_keeps_state(x, "a scope", err) != 0) return -1;
    struct mg_scope sc;
    if (mg_arg_scope(args, &sc, err) != 0) return -1;
    for (size_t i = 0; i < sc.nrepos; i++) { /* only repos the caller can see */
        struct mg_repo r;
        if (mg_resolve_named(x, sc.repos[i], &r, err) != 0) {
            mg_scope_release(&sc);
            return -1;
        }
    }
    if (mg_session_set_scope(x->session, &sc, err) != 0) return -1; /* shared: stored before the answer */
    *result = scope_result(x);
    return 0;
}

static int t_get_scope(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {NULL};
    if (mg_known_keys(args, keys, err) != 0) return -1;
    *result = scope_result(x);
    return 0;
}

static int t_clear_scope(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {NULL};
    if (mg_known_keys(args, keys, err) != 0) return -1;
    if (mg__tools_keeps_state(x, "a scope", err) != 0) return -1;
    if (mg_session_set_scope(x->session, NULL, err) != 0) return -1;
    *result = scope_result(x);
    return 0;
}

#define S_SCOPE_RESULT MG_S_OUT("\"session\":" MG_S_STR "," MG_SCHEMA_SCOPE_OUT, MG_S_REQ("\"scope\",\"session\""))

const struct mg_tool mg_tools_scope[] = {
    {"set_scope", "Set the session scope",
     "Replace this session's scope (path globs, exclude globs, languages, repos): every later search and listing "
     "applies it; a call's own arguments win field by field.",
     MG_S_IN("\"globs\":" MG_SCHEMA_STRS ",\"exclude_globs\":" MG_SCHEMA_STRS ",\"languages\":" MG_SCHEMA_STRS
             ",\"repos\":" MG_SCHEMA_STRS,
             ""),
     S_SCOPE_RESULT, t_set_scope, MG_TOOL_IDEMPOTENT},
    {"get_scope", "Get the session scope", "The scope stored for this session.", MG_S_NOARGS, S_SCOPE_RESULT,
     t_get_scope, MG_TOOL_READ_ONLY},
    {"clear_scope", "Clear the session scope", "Remove the scope stored for this session.", MG_S_NOARGS,
     S_SCOPE_RESULT, t_clear_scope, MG_TOOL_IDEMPOTENT},
};
const size_t mg_tools_scope_n = sizeof(mg_tools_scope) / sizeof(mg_tools_scope[0]);
