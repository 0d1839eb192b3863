/* respond.c — reading request headers, writing responses (internal.h). */
#include "http/internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "request/gate.h"
#include "util/json.h"
#include "util/metrics.h"

int mg_err_http_status(const char *code)
{
    if (!code) return 500;
    static const struct {
        const char *code;
        int status;
    } map[] = {
        {MG_E_USAGE, 400},           {MG_E_REPO_REQUIRED, 400},     {MG_E_NAME_INVALID, 400},
        {MG_E_NOT_A_DIR, 400},       {MG_E_NOT_TEXT, 400},
        {MG_E_SESSION_REQUIRED, 400}, {MG_E_PROTOCOL_VERSION, 400}, {MG_E_BAD_ARG, 400},
        {MG_E_UNSUPPORTED, 400},     {MG_E_SECRET_IN_IDENTIFIER, 400},
        {MG_E_REPO_NOT_FOUND, 404},  {MG_E_PATH_NOT_FOUND, 404},    {MG_E_FILE_NOT_FOUND, 404},
        {MG_E_SESSION_NOT_FOUND, 404}, {MG_E_SESSION_EXPIRED, 404}, {MG_E_HANDLE_INVALID, 404}, {MG_E_ROUTE_NOT_FOUND, 404},
        {MG_E_PATH_OUTSIDE, 403},    {MG_E_SECRET_FILE, 403},       {MG_E_HOST_FORBIDDEN, 403},
        {MG_E_ORIGIN_FORBIDDEN, 403},
        {MG_E_METHOD_NOT_ALLOWED, 405}, {MG_E_NOT_ACCEPTABLE, 406},
        {MG_E_LOCKED, 409},          {MG_E_REPO_EXISTS, 409},       {MG_E_SESSION_EXISTS, 409},
        {MG_E_BODY_TOO_LARGE, 413},  {MG_E_UNSUPPORTED_MEDIA, 415},
        {MG_E_INTERRUPTED, 503},       {MG_E_SHUTTING_DOWN, 503},
        /* the shared catalog has the repo, this daemon has no index of it (store/catalog.h) */
        {MG_E_INDEX_NOT_LOCAL, 503},
        {MG_E_TIMEOUT, 504},          {MG_E_CLIENT_ERROR, 502},
        {MG_E_TOKEN_IN_QUERY, 400},   {MG_E_UNAUTHORIZED, 401},      {MG_E_TOKEN_INVALID, 401},
        {MG_E_TOKEN_REVOKED, 401},    {MG_E_TOKEN_EXPIRED, 401},     {MG_E_CROSS_REPO, 403},
        {MG_E_RATE_LIMITED, 429},     {MG_E_HEADER_TOO_LARGE, 431},  {MG_E_PROJECT_EXISTS, 409},
        /* semantic search: the repo lacks vectors; the embeddings endpoint failed */
        {MG_E_NO_EMBEDDINGS, 409},    {MG_E_EMBED_UNAVAILABLE, 503}, {MG_E_EMBED_REJECTED, 502},
        {MG_E_EMBED_BAD_RESPONSE, 502},
        /* the repo map: an index made before its names; a focus it does not hold */
        {MG_E_REPOMAP_UNAVAILABLE, 409}, {MG_E_FOCUS_NOT_FOUND, 404},
        /* webhooks (hook/hook.h); the pull codes appear in webhook_run audit events */
        {MG_E_WEBHOOKS_DISABLED, 404}, {MG_E_BAD_SIGNATURE, 401},   {MG_E_WEBHOOK_REPLAYED, 409},
        {MG_E_PULL_REFUSED, 409},      {MG_E_PULL_FAILED, 502},
        /* an external provider failed and nothing was stored (issue 21, part mem0) */
        {MG_E_PROVIDER_UNAVAILABLE, 503},
        /* knowledge extraction (issue 21 part 5): no model to ask; the chat endpoint failed */
        {MG_E_LLM_NOT_CONFIGURED, 409}, {MG_E_LLM_UNAVAILABLE, 503}, {MG_E_LLM_REJECTED, 502},
        {MG_E_LLM_BAD_RESPONSE, 502},
        /* the shared PostgreSQL database (storage = postgres://...): down, or a transaction to run again
         * (both with Retry-After: mg__respond_json_h); a write that collided with another */
        {MG_E_STORAGE_UNAVAILABLE, 503}, {MG_E_STORAGE_RETRY, 503}, {MG_E_STORAGE_CONFLICT, 409},
    };
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
        if (strcmp(map[i].code, code) == 0) return map[i].status;
    /* families: invalid_*, query_*, *_forbidden, *_not_found, *_too_large */
    size_t n = strlen(code);
    if (strncmp(code, "invalid_", 8) == 0 || strncmp(code, "query_", 6) == 0) return 400;
    if (n > 10 && strcmp(code + n - 10, "_forbidden") == 0) return 403;
    if (strcmp(code, "not_found") == 0 || (n > 10 && strcmp(code + n - 10, "_not_found") == 0)) return 404;
    if (n > 10 && strcmp(code + n - 10, "_too_large") == 0) return 413;
    return 500;
}

bool mg__retry_later(const char *code)
{
    return code && (strcmp(code, MG_E_STORAGE_UNAVAILABLE) == 0 || strcmp(code, MG_E_STORAGE_RETRY) == 0);
}

const char * mg__header(struct MHD_Connection *c, const char *name)
{
    return MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);
}

bool mg__accepts(const char *accept, const char *type)
{
    return accept && strcasestr(accept, type) != NULL;
}

bool mg__is_json_type(const char *ct)
{
    if (!ct) return false;
    while (*ct == ' ') ct++;
    if (strncasecmp(ct, "application/json", 16) != 0) return false;
    char c = ct[16];
    return c == 0 || c == ';' || c == ' ';
}
enum MHD_Result mg__respond(struct MHD_Connection *c, struct req *r, int status, const char *ctype, char *text,
                               size_t len, ...)
{
    struct MHD_Response *resp = MHD_create_response_from_buffer(
        len, text ? text : (char *)"", text ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
    if (!resp) {
        free(text);
        return MHD_NO;
    }
    if (ctype) MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
    MHD_add_response_header(resp, "Cache-Control", "no-store");
    if (r && r->rid[0]) MHD_add_response_header(resp, "X-Request-Id", r->rid);
    if (r && r->cors[0]) { /* exact origin, never credentials (oauth_as.c) */
        MHD_add_response_header(resp, "Access-Control-Allow-Origin", r->cors);
        MHD_add_response_header(resp, "Access-Control-Expose-Headers", "WWW-Authenticate, Retry-After, X-Request-Id");
        MHD_add_response_header(resp, "Vary", "Origin");
    }
    va_list ap;
    va_start(ap, len);
    for (const char *k; (k = va_arg(ap, const char *)) != NULL;) {
        const char *v = va_arg(ap, const char *);
        if (v) MHD_add_response_header(resp, k, v);
    }
    va_end(ap);
    enum MHD_Result rc = MHD_queue_response(c, (unsigned)status, resp);
    MHD_destroy_response(resp);
    if (rc == MHD_YES) {
        r->answered = true;
        r->status = status;
        r->bytes = len;
        mg_metrics_http(r->label, status);
    }
    return rc;
}

void mg__refused(struct req *r, const char *op, const char *code)
{
    if (r->audited) return;
    r->audited = true;
    if (r->api == A_HOOK) op = "webhook"; /* every answer of the webhook route is under its own op */
    char what[160];
    snprintf(what, sizeof(what), "%s from %s", r->label ? r->label : "?", r->from[0] ? r->from : "?");
    mg_gate_refusal(r->h->srv, r->who.tenant[0] ? r->who.tenant : NULL, op, what, code);
}

enum MHD_Result mg__respond_json_h(struct MHD_Connection *c, struct req *r, int status, json_t *j,
                                      const char *h1, const char *v1, const char *h2, const char *v2)
{
    char code[48] = "";
    if (j) mg_gate_answer_error(j, code, sizeof(code));
    if (r) memcpy(r->err, code, sizeof(r->err));
    /* a refusal no request context audited (the tools' are): audited here, so none is missed */
    if (status >= 400 && r && j) mg__refused(r, "request_refused", code[0] ? code : "rpc_error");
    /* the shared database is down or busy: say when to come back (unless the caller did) */
    bool later = status == 503 && j && mg__retry_later(code) && !(h1 && strcasecmp(h1, "Retry-After") == 0);
    char *text = j ? mg_json_dumps(j, MG_JSON_DUMP) : NULL;
    json_decref(j);
    if (!text) return mg__respond(c, r, 500, "text/plain", strdup("out of memory\n"), 14, NULL);
    if (later)
        return mg__respond(c, r, status, "application/json", text, strlen(text), "Retry-After", MG_RETRY_AFTER_S, h1,
                           v1, h2, v2, NULL);
    return mg__respond(c, r, status, "application/json", text, strlen(text), h1, v1, h2, v2, NULL);
}

enum MHD_Result mg__respond_json(struct MHD_Connection *c, struct req *r, int status, json_t *j)
{
    return mg__respond_json_h(c, r, status, j, NULL, NULL, NULL, NULL);
}

enum MHD_Result mg__respond_error(struct MHD_Connection *c, struct req *r, int status, const char *code,
                                     const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    json_t *j;
    if (r->api == A_MCP) j = mg_rpc_error(NULL, -32000, msg, json_pack("{s:s}", "code", code));
    else j = json_pack("{s:{s:s, s:o}}", "error", "code", code, "message", mg_json_text(msg));
    if (status == 405) {
        const char *allow = r->api == A_MCP ? "GET, POST, DELETE" : NULL;
        return mg__respond_json_h(c, r, status, j, "Allow", allow, NULL, NULL);
    }
    return mg__respond_json(c, r, status, j);
}

/* The tool and repo a request named, for its access log line (server.c). */
void mg__req_note(struct req *r, const char *tool, const char *repo)
{
    if (tool) snprintf(r->tool, sizeof(r->tool), "%s", tool);
    if (repo) snprintf(r->repo, sizeof(r->repo), "%s", repo);
}
