/* api.c — the HTTP API under /v1 (http.h, docs/http.md): each route is a
 * tool; GET takes its arguments from the query string, PUT/POST from a JSON
 * body. Sessions by X-Session-Id. The tool runs through mg_tools_call with a
 * request context built here.
 *
 * Sections:
 *   1. routes: parameters and tools
 *   2. matching a route, reading its arguments
 *   3. sessions
 *   4. a request: the audit route, then any route
 */
#include "http/internal.h"

#include <errno.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "request/gate.h"
#include "security/audit.h"
#include "security/common.h"
#include "tools/tools.h"
#include "util/json.h"

/* ---- 1. routes: parameters and tools ---------------------------------------------------------------------- */

enum ptype { P_STR, P_INT, P_BOOL, P_LIST };

struct param {
    const char *name;   /* query parameter */
    const char *arg;    /* tool argument */
    enum ptype type;
};

#define P_END {NULL, NULL, P_STR}
#define P_REPO {"repo_id", "repo", P_STR}, {"repo", "repo", P_STR}
#define P_FILTERS {"glob", "globs", P_LIST}, {"exclude", "exclude_globs", P_LIST}, {"lang", "languages", P_LIST}

static const struct param p_none[] = {P_END};
static const struct param p_status[] = {P_REPO, {"all", "all", P_BOOL}, P_END};
static const struct param p_search[] = {{"q", "query", P_STR},        {"mode", "mode", P_STR},
                                        {"fixed", "fixed", P_BOOL},   {"ignore_case", "ignore_case", P_BOOL},
                                        P_FILTERS,                    {"limit", "limit", P_INT},
                                        {"cursor", "cursor", P_STR},  P_REPO,
                                        P_END};
static const struct param p_symbols[] = {{"q", "query", P_STR}, P_FILTERS, {"limit", "limit", P_INT},
                                         {"cursor", "cursor", P_STR}, P_REPO, P_END};
static const struct param p_files[] = {P_FILTERS, {"limit", "limit", P_INT}, {"offset", "offset", P_INT},
                                       {"cursor", "cursor", P_STR}, P_REPO, P_END};
static const struct param p_file[] = {{"path", "path", P_STR}, {"start_line", "start_line", P_INT},
                                      {"end_line", "end_line", P_INT}, {"cursor", "cursor", P_STR}, P_REPO, P_END};
static const struct param p_outline[] = {{"path", "path", P_STR}, {"limit", "limit", P_INT},
                                         {"cursor", "cursor", P_STR}, P_REPO, P_END};
static const struct param p_refs[] = {{"symbol", "symbol", P_STR}, {"cursor", "cursor", P_STR},
                                      {"limit", "limit", P_INT}, P_FILTERS, P_REPO, P_END};
static const struct param p_calls[] = {{"symbol", "symbol", P_STR}, {"depth", "depth", P_INT},
                                       {"limit", "limit", P_INT}, {"cursor", "cursor", P_STR}, P_FILTERS, P_REPO,
                                       P_END};
static const struct param p_repomap[] = {{"budget_tokens", "budget_tokens", P_INT}, {"budget", "budget_tokens", P_INT},
                                         {"focus_file", "focus_files", P_LIST}, {"focus_symbol", "focus_symbols", P_LIST},
                                         P_FILTERS, P_REPO, P_END};
static const struct param p_trace[] = {{"from", "symbol", P_STR}, {"symbol", "symbol", P_STR}, {"to", "to", P_STR},
                                       {"depth", "depth", P_INT}, {"limit", "limit", P_INT}, P_FILTERS, P_REPO, P_END};
static const struct param p_impact[] = {{"revisions", "revisions", P_STR}, {"path", "paths", P_LIST},
                                        {"diff", "diff", P_STR}, {"depth", "depth", P_INT}, {"limit", "limit", P_INT},
                                        P_FILTERS, P_REPO, P_END};
#define P_SESS {"session_id", "session_id", P_STR}
static const struct param p_mem[] = {P_REPO, P_SESS, P_END};
static const struct param p_notes[] = {{"q", "query", P_STR}, {"prefix", "prefix", P_STR}, {"limit", "limit", P_INT},
                                       {"cursor", "cursor", P_STR}, P_REPO, P_SESS, P_END};
static const struct param p_recall[] = {{"q", "query", P_STR}, {"limit", "limit", P_INT}, {"cursor", "cursor", P_STR},
                                        P_REPO, P_SESS, P_END};
static const struct param p_context[] = {{"prompt", "prompt", P_STR}, {"limit", "limit", P_INT},
                                         {"budget_tokens", "budget_tokens", P_INT}, P_REPO, P_SESS, P_END};

/* One /v1 route: the tool for each method; GET takes its arguments from the
 * query string (params), PUT/POST from a JSON object body. A '*' segment of
 * the path matches one non-empty segment, passed as the argument `seg`.
 * get_query: the tool for GET when the query string has `q` (a search). */
static const struct v1route {
    const char *path;
    const char *get, *put, *post, *del;
    const struct param *params;
    const char *seg;
    const char *get_query;
} v1routes[] = {
    {"/v1/repos", "list_repos", NULL, NULL, NULL, p_none, NULL, NULL},
    {"/v1/repos/*/stats", "index_status", NULL, NULL, NULL, p_none, "repo", NULL},
    {"/v1/repos/*", "get_repo_settings", NULL, NULL, NULL, p_none, "repo", NULL}, /* PATCH: v1patch */
    {"/v1/search", "search_code", NULL, NULL, NULL, p_search, NULL, NULL},
    {"/v1/symbols", "search_symbols", NULL, NULL, NULL, p_symbols, NULL, NULL},
    {"/v1/files", "list_files", NULL, NULL, NULL, p_files, NULL, NULL},
    {"/v1/references", "find_references", NULL, NULL, NULL, p_refs, NULL, NULL},
    {"/v1/callers", "callers", NULL, NULL, NULL, p_calls, NULL, NULL},
    {"/v1/callees", "callees", NULL, NULL, NULL, p_calls, NULL, NULL},
    {"/v1/trace", "trace_path", NULL, NULL, NULL, p_trace, NULL, NULL},
    {"/v1/impact", "impact", NULL, "impact", NULL, p_impact, NULL, NULL},
    {"/v1/repo_map", "repo_map", NULL, "repo_map", NULL, p_repomap, NULL, NULL},
    {"/v1/file", "read_file", NULL, NULL, NULL, p_file, NULL, NULL},
    {"/v1/outline", "outline", NULL, NULL, NULL, p_outline, NULL, NULL},
    {"/v1/scope", "get_scope", "set_scope", "set_scope", "clear_scope", p_none, NULL, NULL},
    {"/v1/index", NULL, NULL, "index_repo", NULL, p_none, NULL, NULL},
    {"/v1/index/status", "index_status", NULL, NULL, NULL, p_status, NULL, NULL},
    {"/v1/notes", "list_notes", NULL, "set_note", NULL, p_notes, NULL, "search_notes"},
    {"/v1/notes/*", "get_note", NULL, NULL, "delete_note", p_mem, "key", NULL},
    {"/v1/projects", "list_projects", NULL, "create_project", NULL, p_mem, NULL, NULL},
    {"/v1/projects/leave", NULL, NULL, "leave_project", NULL, p_mem, NULL, NULL},
    {"/v1/projects/*", NULL, NULL, NULL, "delete_project", p_mem, "project", NULL},
    {"/v1/projects/*/join", NULL, NULL, "join_project", NULL, p_mem, "project", NULL},
    {"/v1/episodes", "recall", NULL, "remember", NULL, p_recall, NULL, NULL},
    {"/v1/entities", "search_entities", NULL, "add_entities", NULL, p_recall, NULL, NULL},
    {"/v1/entities/retag", NULL, NULL, "retag_entities", NULL, p_mem, NULL, NULL},
    {"/v1/profiles/*", "get_profile", NULL, "save_preference", NULL, p_none, "agent_id", NULL},
    {"/v1/context", "get_context", NULL, "get_context", NULL, p_context, NULL, NULL},
    {"/v1/extract", NULL, NULL, "extract_knowledge", NULL, p_mem, NULL, NULL}, /* knowledge extraction */
};

/* PATCH (a partial change) on the routes that take it. */
static const struct {
    const char *path, *tool;
} v1patch[] = {{"/v1/repos/*", "set_repo_settings"}};

/* ---- 2. matching a route, reading its arguments ----------------------------------------------------------- */

/* The tool of route rt for method, or NULL when rt does not take it. */
static const char *route_tool(const struct v1route *rt, const char *method)
{
    if (strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0) return rt->get;
    if (strcmp(method, "PUT") == 0) return rt->put;
    if (strcmp(method, "POST") == 0) return rt->post;
    if (strcmp(method, "DELETE") == 0) return rt->del;
    if (strcmp(method, "PATCH") == 0)
        for (size_t i = 0; i < sizeof(v1patch) / sizeof(v1patch[0]); i++)
            if (strcmp(v1patch[i].path, rt->path) == 0) return v1patch[i].tool;
    return NULL;
}

/* Does url match the route pattern? The '*' segment's text goes to seg
 * (NUL-terminated, at most cap-1 bytes; longer does not match); a '*' that
 * ends the pattern takes the rest of the path, slashes included (note keys). */
static bool route_match(const char *pat, const char *url, char *seg, size_t cap)
{
    seg[0] = 0;
    while (*pat && *url) {
        if (*pat == '*') {
            const char *e = pat[1] ? strchr(url, '/') : NULL;
            size_t n = e ? (size_t)(e - url) : strlen(url);
            if (n == 0 || n >= cap) return false;
            memcpy(seg, url, n);
            seg[n] = 0;
            url += n;
            pat++;
            continue;
        }
        if (*pat++ != *url++) return false;
    }
    return !*pat && !*url;
}

struct qargs {
    const struct param *params;
    json_t *args;
    char bad[512];   /* the first problem, or "" */
};

static enum MHD_Result q_iter(void *cls, enum MHD_ValueKind kind, const char *key, size_t key_size, const char *value,
                              size_t value_size)
{
    (void)kind;
    struct qargs *q = cls;
    if (q->bad[0]) return MHD_NO;
    const struct param *p = q->params;
    while (p->name && (strlen(p->name) != key_size || strcmp(p->name, key) != 0)) p++;
    if (!p->name) {
        struct mg_buf known;
        mg_buf_init(&known, 400);
        for (const struct param *k = q->params; k->name; k++)
            mg_buf_addf(&known, "%s%s", k == q->params ? "" : ", ", k->name);
        snprintf(q->bad, sizeof(q->bad), "unknown query parameter '%.64s'; this route takes: %s", key,
                 known.p ? known.p : "none");
        mg_buf_release(&known);
        return MHD_NO;
    }
    if (!value) value = "", value_size = 0; /* "?name" without "=" */
    if (strlen(value) != value_size) {
        snprintf(q->bad, sizeof(q->bad), "query parameter '%s' contains a NUL byte", p->name);
        return MHD_NO;
    }
    json_t *v = NULL;
    if (p->type == P_BOOL) {
        if (strcmp(value, "true") == 0 || strcmp(value, "1") == 0) v = json_true();
        else if (strcmp(value, "false") == 0 || strcmp(value, "0") == 0) v = json_false();
        else {
            snprintf(q->bad, sizeof(q->bad), "query parameter '%s' must be true or false, got '%.64s'", p->name, value);
            return MHD_NO;
        }
    } else if (p->type == P_INT) {
        char *end;
        errno = 0;
        long long n = strtoll(value, &end, 10);
        if (!*value || *end || errno) {
            snprintf(q->bad, sizeof(q->bad), "query parameter '%s' must be an integer, got '%.64s'", p->name, value);
            return MHD_NO;
        }
        v = json_integer(n);
    } else {
        v = json_stringn(value, value_size);
        if (!v) {
            snprintf(q->bad, sizeof(q->bad), "query parameter '%s' is not valid UTF-8", p->name);
            return MHD_NO;
        }
    }
    if (p->type == P_LIST) {
        json_t *a = json_object_get(q->args, p->arg);
        if (!a) json_object_set_new(q->args, p->arg, a = json_array());
        json_array_append_new(a, v);
    } else {
        if (json_object_get(q->args, p->arg)) {
            json_decref(v);
            snprintf(q->bad, sizeof(q->bad), "query parameter '%s' is given twice", p->name);
            return MHD_NO;
        }
        json_object_set_new(q->args, p->arg, v);
    }
    return MHD_YES;
}

/* ---- 3. sessions ------------------------------------------------------------------------------------------ */

/* The API session named by X-Session-Id (created when unknown: the
 * caller's tenant's own id, whatever other tenants named). Without the
 * header: a new session for the scope route (its id is what the client keeps
 * the scope under: `own`), else the client's implicit session, shared by its
 * calls without the header and keeping nothing between them (session.h). */
static struct mg_session *api_session(struct mg_http *h, struct MHD_Connection *c, struct req *r, bool own,
                                      enum MHD_Result *rc)
{
    struct mg_sessions *reg = h->srv->sessions;
    const char *sid = mg__header(c, "X-Session-Id");
    const char *inst = getenv("MEMGATE_INSTANCE_ID");
    if (inst && !*inst) inst = NULL;
    struct mg_err err = {0};
    if (!sid && !own) {
        /* the client: tenant, token, address (NUL-free texts; a \n cannot occur in any of them) */
        char key[sizeof(r->who.tenant) + sizeof(r->who.token_id) + sizeof(r->from) + 4];
        snprintf(key, sizeof(key), "%s\n%s\n%s", r->who.tenant, r->who.token_id, r->from);
        struct mg_session *s = mg_sessions_implicit(reg, key, r->who.tenant, inst,
                                                    (int64_t)h->srv->cfg.api_session_idle * 1000, &err);
        if (s) return s;
        const char *code = err.code ? err.code : MG_E_INTERNAL;
        *rc = mg__respond_error(c, r, mg_err_http_status(code), code, "%s", err.msg);
        return NULL;
    }
    if (sid && mg_gate_identifier(&h->srv->cfg, "X-Session-Id", sid, &err) != 0) { /* the registry keeps it as given */
        *rc = mg__respond_error(c, r, mg_err_http_status(err.code), err.code, "%s", err.msg);
        return NULL;
    }
    for (int attempt = 0; attempt < 2; attempt++) {
        if (sid) {
            enum mg_lookup how;
            struct mg_session *s = mg_sessions_lookup(reg, sid, r->who.tenant, &how, &err);
            if (how == MG_SESSION_ERROR) break; /* PostgreSQL: storage_unavailable (503) */
            /* ids are the tenant's own: another tenant's session of the same id is not found here, so no
             * tenant can take an id before another names it (the registry and its table key on both) */
            if (s && mg_session_kind(s) == MG_SESSION_API) return s;
            if (s) {
                mg_session_unref(&s);
                *rc = mg__respond_error(c, r, 404, MG_E_SESSION_NOT_FOUND,
                                    "X-Session-Id names an MCP session, which the HTTP API cannot use; choose "
                                    "another id or leave the header out to get a new one");
                return NULL;
            }
            if (how == MG_SESSION_EXPIRED) {
                *rc = mg__respond_error(c, r, 404, MG_E_SESSION_EXPIRED,
                                    "session expired after idling longer than session_ttl, and its scope with it; "
                                    "leave X-Session-Id out (or choose a new id) to start a new session");
                return NULL;
            }
        }
        struct mg_session *s = mg_sessions_create(reg, MG_SESSION_API, sid, inst, r->who.tenant, &err);
        if (s) return s;
        if (!err.code || strcmp(err.code, MG_E_SESSION_EXISTS) != 0) break; /* lost a race: look again */
    }
    const char *code = err.code ? err.code : MG_E_INTERNAL;
    *rc = mg__respond_error(c, r, mg_err_http_status(code), code, "X-Session-Id: %s", err.msg);
    return NULL;
}

/* ---- 4. a request: the audit route, then any route -------------------------------------------------------- */

static const char *allow_of(const struct v1route *rt, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s%s%s%s%s", rt->get ? "GET, " : "", rt->put ? "PUT, " : "", rt->post ? "POST, " : "",
             rt->del ? "DELETE, " : "", route_tool(rt, "PATCH") ? "PATCH, " : "");
    size_t n = strlen(buf);
    if (n >= 2) buf[n - 2] = 0;
    return buf;
}

/* GET /v1/audit?tenant=&op=&since=&limit= : audit events, newest last (admin). */
static enum MHD_Result v1_audit(struct mg_http *h, struct MHD_Connection *c, struct req *r, const char *method)
{
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
        json_t *j = json_pack("{s:{s:s, s:s}}", "error", "code", MG_E_METHOD_NOT_ALLOWED, "message",
                              "only GET is allowed on /v1/audit");
        return mg__respond_json_h(c, r, 405, j, "Allow", "GET, HEAD", NULL, NULL);
    }
    struct mg_audit_filter f = {.tenant = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "tenant"),
                                .op = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "op"),
                                .limit = 100};
    const char *since = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "since");
    const char *limit = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "limit");
    if (since && mg_parse_time(since, mg_wall_ms(), &f.since_ms) != 0)
        return mg__respond_error(c, r, 400, MG_E_BAD_ARG, "'since' must be a duration (2h) or a time (2025-01-31, "
                             "2025-01-31T12:00:00Z)");
    if (limit) {
        char *end;
        long long n = strtoll(limit, &end, 10);
        if (*end || n < 1 || n > 10000)
            return mg__respond_error(c, r, 400, MG_E_BAD_ARG, "'limit' must be a whole number from 1 to 10000");
        f.limit = (size_t)n;
    }
    enum MHD_Result rc = MHD_YES;
    struct mg_session *s = api_session(h, c, r, false, &rc);
    if (!s) return rc;
    struct mg_request_spec spec = {.srv = h->srv, .who = &r->who, .session = s, .op = "audit_read"};
    struct mg_ctx x;
    json_t *events = NULL;
    struct mg_err err = {0};
    int ok = mg_request_init(&x, &spec, &err) == 0 && mg_gate_audit_query(&x, &f, &events, &err) == 0;
    if (x.srv) mg_request_release(&x);
    r->audited = x.srv != NULL; /* the tool's call wrote its own event */
    mg_session_unref(&s);
    if (!ok) {
        const char *code = err.code ? err.code : MG_E_INTERNAL;
        return mg__respond_error(c, r, mg_err_http_status(code), code, "%s", err.msg);
    }
    return mg__respond_json(c, r, 200, json_pack("{s:o}", "events", events));
}

enum MHD_Result mg__v1(struct mg_http *h, struct MHD_Connection *c, struct req *r, const char *url,
                          const char *method)
{
    if (strcmp(url, "/v1/audit") == 0) return v1_audit(h, c, r, method);
    if (strcmp(url, "/v1/dashboard") == 0) return mg__dash_data(h, c, r, method);
    if (strcmp(url, "/v1/dashboard/history") == 0) return mg__history_data(h, c, r, method);
    /* the first route whose path matches and that takes the method; else the
     * first whose path matches (405 below) */
    const struct v1route *rt = NULL;
    char seg[1024], first_seg[1024];
    for (size_t i = 0; i < sizeof(v1routes) / sizeof(v1routes[0]); i++) {
        const struct v1route *c2 = &v1routes[i];
        if (!route_match(c2->path, url, seg, sizeof(seg))) continue;
        const char *m = route_tool(c2, method);
        if (!rt) {
            rt = c2;
            snprintf(first_seg, sizeof(first_seg), "%s", seg);
        }
        if (m) {
            rt = c2;
            snprintf(first_seg, sizeof(first_seg), "%s", seg);
            break;
        }
    }
    snprintf(seg, sizeof(seg), "%s", first_seg);
    if (!rt)
        return mg__respond_error(c, r, 404, MG_E_ROUTE_NOT_FOUND,
                             "no route %.200s; the API has /v1/repos, /v1/repos/{id}, /v1/repos/{id}/stats, /v1/search, /v1/symbols, /v1/files, /v1/file, /v1/outline, "
                             "/v1/scope, /v1/index, /v1/index/status, /v1/audit, /v1/dashboard, /v1/dashboard/history, /v1/references, /v1/callers, /v1/callees, "
                             "/v1/trace, /v1/impact, /v1/repo_map, and the memory routes /v1/notes, "
                             "/v1/projects, /v1/episodes, /v1/entities, /v1/profiles, /v1/context, /v1/extract (see docs/http.md "
                             "and docs/memory.md)",
                             url);
    bool is_get = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
    const char *tool = route_tool(rt, method);
    if (!tool) {
        char allow[64];
        allow_of(rt, allow, sizeof(allow));
        char msg[256];
        snprintf(msg, sizeof(msg), "method %.16s is not allowed on %s; use %s", method, rt->path, allow);
        json_t *j = json_pack("{s:{s:s, s:o}}", "error", "code", MG_E_METHOD_NOT_ALLOWED, "message", mg_json_text(msg));
        return mg__respond_json_h(c, r, 405, j, "Allow", allow, NULL, NULL);
    }
    const struct mg_tool *t = mg_tool_find(tool);
    if (!t) return mg__respond_error(c, r, 500, MG_E_INTERNAL, "tool '%s' is missing from this build", tool);

    /* the arguments: the query string, then (PUT/POST) the JSON body's members */
    struct qargs q = {.params = rt->params, .args = json_object()};
    MHD_get_connection_values_n(c, MHD_GET_ARGUMENT_KIND, q_iter, &q);
    if (q.bad[0]) {
        json_decref(q.args);
        return mg__respond_error(c, r, 400, MG_E_BAD_ARG, "%s", q.bad);
    }
    bool has_body = strcmp(method, "PUT") == 0 || strcmp(method, "POST") == 0 || strcmp(method, "PATCH") == 0;
    if (has_body && r->body.len > 0) {
        if (!mg__is_json_type(mg__header(c, MHD_HTTP_HEADER_CONTENT_TYPE))) {
            json_decref(q.args);
            return mg__respond_error(c, r, 415, MG_E_UNSUPPORTED_MEDIA,
                                 "unsupported media type: send the body as JSON with Content-Type: application/json");
        }
        json_error_t je;
        json_t *body = json_loadb(r->body.p, r->body.len, JSON_REJECT_DUPLICATES, &je);
        if (!body || !json_is_object(body)) {
            json_decref(body);
            json_decref(q.args);
            return mg__respond_error(c, r, 400, MG_E_BAD_ARG,
                                 "the request body must be a JSON object (%s at line %d column %d)",
                                 body ? "not an object" : je.text, je.line, je.column);
        }
        json_object_update_missing(body, q.args); /* the body wins over the query string */
        json_decref(q.args);
        q.args = body;
    }
    if (rt->seg && seg[0]) {
        json_t *sv = json_string(seg);
        if (!sv || json_object_get(q.args, rt->seg)) {
            json_decref(sv);
            json_decref(q.args);
            return mg__respond_error(c, r, 400, MG_E_BAD_ARG, "'%s' comes from the path; do not give it again (or it is "
                                 "not UTF-8)", rt->seg);
        }
        json_object_set_new(q.args, rt->seg, sv);
    }
    if (is_get && rt->get_query && json_object_get(q.args, "query")) {
        const struct mg_tool *tq = mg_tool_find(rt->get_query);
        if (tq) t = tq, tool = rt->get_query;
    }

    const char *named = json_string_value(json_object_get(q.args, "repo"));
    mg__req_note(r, tool, named ? named : mg__header(c, "X-Memgate-Repo"));
    /* test seam: hold every /v1 tool call this long, so tests can stop the server during one */
    if (h->test_v1_delay_ms > 0) usleep((useconds_t)h->test_v1_delay_ms * 1000);
    enum MHD_Result rc = MHD_YES;
    struct mg_session *s = api_session(h, c, r, strcmp(rt->path, "/v1/scope") == 0, &rc);
    if (!s) {
        json_decref(q.args);
        return rc;
    }
    char sid[MG_SID_MAX + 1];
    snprintf(sid, sizeof(sid), "%s", mg_session_implicit(s) ? "" : mg_session_id(s)); /* an implicit session's id is not handed out */
    struct mg_request_spec spec = {.srv = h->srv, .who = &r->who, .session = s,
                                   .repo_header = mg__header(c, "X-Memgate-Repo"), .op = tool};
    struct mg_ctx x;
    json_t *result = NULL;
    struct mg_err err = {0};
    int ok = mg_request_init(&x, &spec, &err) == 0 && mg_tools_call(&x, t, q.args, &result, &err) == 0;
    json_decref(q.args);
    json_t *body;
    int status = 200;
    if (ok) {
        body = result;
        if (strcmp(tool, "set_note") == 0 && json_is_true(json_object_get(body, "created")))
            status = 201; /* POST /v1/notes made a new note */
    } else {
        if (!err.code) err.code = MG_E_INTERNAL;
        status = mg_err_http_status(err.code);
        body = json_pack("{s:o}", "error", x.srv ? mg_tools_error_json(&x, &err)
                                                 : json_pack("{s:s, s:s}", "code", err.code, "message", err.msg));
    }
    if (x.srv) mg_request_release(&x);
    mg_session_unref(&s);
    return mg__respond_json_h(c, r, status, body, sid[0] ? "X-Session-Id" : NULL, sid[0] ? sid : NULL, NULL, NULL);
}
