/* dash.c — the dashboard (docs/http.md "Dashboard"): its page at / with
 * /dash.js and /dash.css, compiled in from data/dash/ (the Makefile writes
 * them as byte arrays), and its data at GET /v1/dashboard.
 *
 * The page holds no data and takes no token: it is served to anyone who
 * reaches the port, with a strict Content-Security-Policy (its own script
 * and style only, no inline code, fetches to this origin only). Its script
 * reads everything from /v1/dashboard, /v1/audit and /v1/search with the
 * admin token the user types (Authorization: Bearer), so the data needs
 * what those routes need: an admin token off loopback or once tokens exist.
 *
 * /v1/dashboard is read often (the page polls it every 2 s), so it is cheap:
 * the repos' stats as /metrics reads them (repometrics.c: meta rows and a
 * lock probe, nothing counted), the session registry's counts, this
 * process's table of index runs under way (util/progress.h) and its
 * counters (util/metrics.h). Like a /metrics scrape it is not audited. A
 * token's admin sees its own tenant's sessions and runs; the local
 * principal (loopback without tokens) sees every tenant's.
 */
#include "http/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "request/session.h"
#include "security/common.h"
#include "util/json.h"
#include "util/metrics.h"
#include "util/progress.h"
#include "util/version.h"

extern const char mg_dash_index_html[], mg_dash_dash_js[], mg_dash_dash_css[];
extern const size_t mg_dash_index_html_len, mg_dash_dash_js_len, mg_dash_dash_css_len;

#define DASH_CSP                                                                                                  \
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; "               \
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

bool mg__dash_path(const char *url)
{
    return strcmp(url, "/") == 0 || strcmp(url, "/index.html") == 0 || strcmp(url, "/dash.js") == 0 ||
           strcmp(url, "/dash.css") == 0 || strcmp(url, "/favicon.ico") == 0;
}

enum MHD_Result mg__dash_static(struct mg_http *h, struct MHD_Connection *c, struct req *r, const char *url,
                                const char *method)
{
    (void)h;
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
        json_t *j = json_pack("{s:{s:s, s:s}}", "error", "code", MG_E_METHOD_NOT_ALLOWED, "message",
                              "only GET is allowed on the dashboard's files");
        return mg__respond_json_h(c, r, 405, j, "Allow", "GET, HEAD", NULL, NULL);
    }
    if (strcmp(url, "/favicon.ico") == 0) /* none: answered so a browser's request is no 404 */
        return mg__respond(c, r, 204, NULL, NULL, 0, "Content-Security-Policy", DASH_CSP, NULL);
    const char *data = mg_dash_index_html, *ctype = "text/html; charset=utf-8";
    size_t len = mg_dash_index_html_len;
    if (strcmp(url, "/dash.js") == 0)
        data = mg_dash_dash_js, len = mg_dash_dash_js_len, ctype = "text/javascript; charset=utf-8";
    else if (strcmp(url, "/dash.css") == 0)
        data = mg_dash_dash_css, len = mg_dash_dash_css_len, ctype = "text/css; charset=utf-8";
    char *copy = malloc(len ? len : 1);
    if (!copy) return mg__respond_error(c, r, 500, MG_E_NO_MEMORY, "out of memory serving the dashboard");
    memcpy(copy, data, len);
    return mg__respond(c, r, 200, ctype, copy, len, "Content-Security-Policy", DASH_CSP, "X-Content-Type-Options",
                       "nosniff", "Referrer-Policy", "no-referrer", "X-Frame-Options", "DENY", NULL);
}

/* An int64 that may be MG_INT_NULL (not known): null then. */
static json_t *opt_int(int64_t v) { return v == MG_INT_NULL ? json_null() : json_integer(v); }

static json_t *repo_json(const struct mg_repo_stats *s)
{
    json_t *o = json_object();
    json_object_set_new(o, "id", mg_json_text(s->info.id ? s->info.id : ""));
    json_object_set_new(o, "root", mg_json_text(s->info.root ? s->info.root : ""));
    json_object_set_new(o, "files", opt_int(s->info.files));
    json_object_set_new(o, "chunks", opt_int(s->info.chunks));
    json_object_set_new(o, "symbols", opt_int(s->info.symbols));
    json_object_set_new(o, "bytes", opt_int(s->info.bytes));
    json_object_set_new(o, "db_bytes", opt_int(s->info.db_bytes));
    json_object_set_new(o, "created_at", opt_int(s->info.created_at));
    json_object_set_new(o, "indexed_at", opt_int(s->info.indexed_at));
    json_object_set_new(o, "full_index_at", opt_int(s->full_index_at));
    json_object_set_new(o, "incr_index_at", opt_int(s->incr_index_at));
    json_object_set_new(o, "pending_changes", opt_int(s->pending_changes));
    json_object_set_new(o, "watch", s->watch_state ? mg_json_text(s->watch_state) : json_null());
    json_object_set_new(o, "secrets_redacted", opt_int(s->secrets_redacted));
    json_object_set_new(o, "last_error", s->last_error ? mg_json_text(s->last_error) : json_null());
    json_object_set_new(o, "index_busy", json_boolean(s->index_busy));
    return o;
}

static json_t *overview(struct mg_http *h, struct req *r, struct mg_err *err)
{
    const char *only = r->who.token_id[0] ? r->who.tenant : NULL; /* a token's admin: its own tenant */
    struct mg_items items;
    if (mg__visible_repo_stats(h, &r->who, &items, err) != 0) return NULL;
    json_t *o = json_object(), *repos = json_array();
    json_object_set_new(o, "version", json_string(MG_VERSION));
    json_object_set_new(o, "now_ms", json_integer(mg_wall_ms()));
    json_object_set_new(o, "tenant", mg_json_text(r->who.tenant));
    for (size_t i = 0; i < items.n; i++)
        if (items.v[i]->type == &mg_item_repo_stats)
            json_array_append_new(repos, repo_json((const struct mg_repo_stats *)items.v[i]));
    mg_items_release(&items);
    json_object_set_new(o, "repos", repos);

    struct mg_progress_live runs[MG_PROGRESS_LIVE_MAX];
    size_t nruns = mg_progress_live_list(only, runs, MG_PROGRESS_LIVE_MAX);
    json_t *ia = json_array();
    for (size_t i = 0; i < nruns; i++)
        json_array_append_new(ia, json_pack("{s:o, s:o, s:s, s:I, s:I, s:I, s:I, s:f, s:I}", "tenant",
                                            mg_json_text(runs[i].tenant), "repo", mg_json_text(runs[i].what),
                                            "phase", runs[i].phase, "done", (json_int_t)runs[i].done, "total",
                                            (json_int_t)runs[i].total, "bytes", (json_int_t)runs[i].bytes,
                                            "total_bytes", (json_int_t)runs[i].total_bytes, "seconds",
                                            runs[i].seconds, "started_ms", (json_int_t)runs[i].started_ms));
    json_object_set_new(o, "indexing", ia);

    struct mg_tenant_sessions *ts = NULL;
    long nt = mg_sessions_by_tenant(h->srv->sessions, only, &ts);
    json_t *ta = json_array();
    size_t total = 0;
    for (long i = 0; i < nt; i++) {
        total += ts[i].sessions;
        json_array_append_new(ta, json_pack("{s:o, s:I, s:I, s:I, s:I}", "tenant", mg_json_text(ts[i].tenant),
                                            "sessions", (json_int_t)ts[i].sessions, "mcp", (json_int_t)ts[i].mcp,
                                            "api", (json_int_t)ts[i].api, "instances",
                                            (json_int_t)ts[i].instances));
    }
    free(ts);
    json_object_set_new(o, "sessions", json_pack("{s:I, s:o}", "total", (json_int_t)total, "tenants", ta));

    struct mg_metric_totals t;
    mg_metrics_totals(&t);
    json_object_set_new(o, "counters",
                        json_pack("{s:I, s:I, s:I, s:I, s:I}", "isolation_drops", (json_int_t)t.isolation_drops,
                                  "redactions", (json_int_t)t.redactions, "injection_flags",
                                  (json_int_t)t.injection_flags, "sessions_created",
                                  (json_int_t)t.sessions_created, "sessions_pruned", (json_int_t)t.sessions_pruned));
    if (nt < 0 || !json_object_get(o, "counters") || !json_object_get(o, "sessions")) {
        json_decref(o);
        mg_err_set(err, MG_E_NO_MEMORY, "out of memory building the dashboard's data");
        return NULL;
    }
    return o;
}

int mg__dash_admin_get(struct MHD_Connection *c, struct req *r, const char *method, const char *route,
                       enum MHD_Result *rc)
{
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
        char msg[96];
        snprintf(msg, sizeof(msg), "only GET is allowed on %s", route);
        json_t *j = json_pack("{s:{s:s, s:s}}", "error", "code", MG_E_METHOD_NOT_ALLOWED, "message", msg);
        *rc = mg__respond_json_h(c, r, 405, j, "Allow", "GET, HEAD", NULL, NULL);
        return -1;
    }
    if (MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, NULL, NULL) > 0) {
        *rc = mg__respond_error(c, r, 400, MG_E_BAD_ARG, "%s takes no query parameters", route);
        return -1;
    }
    struct mg_err err = {0};
    if (mg_access_level(&r->who, MG_LEVEL_ADMIN, "reading the dashboard's data", &err) != 0) {
        *rc = mg__respond_error(c, r, mg_err_http_status(err.code), err.code, "%s", err.msg);
        return -1;
    }
    return 0;
}

enum MHD_Result mg__dash_data(struct mg_http *h, struct MHD_Connection *c, struct req *r, const char *method)
{
    enum MHD_Result rc;
    if (mg__dash_admin_get(c, r, method, "/v1/dashboard", &rc) != 0) return rc;
    struct mg_err err = {0};
    json_t *o = overview(h, r, &err);
    if (!o) {
        const char *code = err.code ? err.code : MG_E_INTERNAL;
        return mg__respond_error(c, r, mg_err_http_status(code), code, "%s", err.msg);
    }
    return mg__respond_json_h(c, r, 200, o, "X-Content-Type-Options", "nosniff", NULL, NULL);
}
