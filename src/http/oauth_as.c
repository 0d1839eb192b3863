/* oauth_as.c — the built-in authorization server on the HTTP side
 * (oauth_server = on; src/oauth/as.h does the work): its metadata, keys,
 * registration, the authorize endpoint and its consent page, the token and
 * revocation endpoints. Every refusal is audited under the endpoint's op
 * (oauth_register, oauth_authorize, oauth_token, oauth_revoke) with its
 * code; every grant, token and revocation too.
 *
 * The consent page is CSRF-safe without cookies: the operator approves by
 * typing one of memgate's own tokens into it (nothing a browser sends on
 * its own), the form carries a single-use consent id bound server-side to
 * the request, and the page may not be framed. Everything the client
 * supplied is HTML-escaped on it.
 *
 * Sections:
 *   1. answers: OAuth errors, redirects, audit
 *   2. the consent page
 *   3. authorize (GET: the page; POST: the operator's answer)
 *   4. token, register, revoke
 *   5. the route
 */
#include "http/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oauth/as.h"
#include "request/gate.h"
#include "request/server.h"
#include "security/audit_line.h"
#include "security/ratelimit.h"
#include "security/token.h"
#include "util/buf.h"

/* ---- 1. answers: OAuth errors, redirects, audit ------------------------------------------------ */

static void audit_ok(struct mg_http *h, const char *op, const char *tenant, const char *status)
{
    struct mg_audit_event ev = {.op = op, .tenant = tenant && *tenant ? tenant : NULL, .status = status,
                                .durable = true, .request_id = mg_request_id_current()};
    mg_gate_audit(h->srv, &ev);
}

/* RFC 6749 5.2: {"error", "error_description"} plus memgate's code; audited.
 * rate_limited is a 429 with Retry-After: retry s. */
static enum MHD_Result oauth_error(struct MHD_Connection *c, struct req *r, const char *op, int status,
                                   const struct mg_err *err, int retry)
{
    const char *code = err->code ? err->code : MG_E_INTERNAL;
    mg__refused(r, op, code);
    bool limited = strcmp(code, MG_E_RATE_LIMITED) == 0;
    if (limited) status = 429;
    else if (status == 400 && strncmp(code, "oauth_", 6) != 0) status = 500; /* the store failed */
    if (strcmp(code, MG_E_OAUTH_CLIENT) == 0 && status == 400) status = 401;
    json_t *j = json_pack("{s:s, s:s, s:s}", "error", mg_as_oauth_error(code), "error_description", err->msg,
                          "memgate_code", code);
    char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    if (!text) return mg__respond(c, r, 500, "text/plain", strdup("out of memory\n"), 14, NULL);
    snprintf(r->err, sizeof(r->err), "%s", code);
    char ra[16];
    snprintf(ra, sizeof(ra), "%d", retry > 0 ? retry : 1);
    return mg__respond(c, r, status, "application/json", text, strlen(text), "Pragma", "no-cache",
                       limited ? "Retry-After" : NULL, ra, NULL);
}

/* The per-address limits of the public endpoints (security/ratelimit.h's
 * buckets, keyed by the client's address): registration has its own,
 * tighter one. 0: go on; -1: answered (429 rate_limited, audited and folded
 * per address like every refusal; 503 when the shared limits cannot be
 * read). */
static int over_limit(struct mg_http *h, struct MHD_Connection *c, struct req *r, const char *op, bool registration,
                      enum MHD_Result *rc)
{
    const struct mg_config *cfg = &h->srv->cfg;
    int rate = registration ? cfg->oauth_register_rate : cfg->oauth_rate_limit;
    if (!h->srv->ratelimit || rate <= 0) return 0;
    char key[96];
    snprintf(key, sizeof(key), "oauth%s:%s", registration ? "_register" : "", r->from[0] ? r->from : "?");
    int retry = 1;
    struct mg_err err = {0};
    int took = mg_rate_check(h->srv->ratelimit, key, rate, &retry, &err);
    if (took == 1) return 0;
    if (took == 0)
        mg_err_set(&err, MG_E_RATE_LIMITED, "too many requests from %s to the authorization server's %s (%s: %d a "
                                            "minute); try again in %d s", r->from[0] ? r->from : "this address",
                   registration ? "registration" : "endpoints", registration ? "oauth_register_rate"
                                                                             : "oauth_rate_limit", rate, retry);
    *rc = oauth_error(c, r, op, took == 0 ? 429 : 503, &err, retry);
    return -1;
}

static enum MHD_Result json_ok(struct MHD_Connection *c, struct req *r, int status, json_t *j)
{
    char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    if (!text) return mg__respond(c, r, 500, "text/plain", strdup("out of memory\n"), 14, NULL);
    return mg__respond(c, r, status, "application/json", text, strlen(text), "Pragma", "no-cache", NULL);
}

/* Append s percent-encoded (RFC 3986 unreserved kept). */
static void add_enc(struct mg_buf *b, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if ((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || strchr("-._~", ch)) {
            mg_buf_add(b, s, 1);
        } else {
            char e[3] = {'%', hex[ch >> 4], hex[ch & 15]};
            mg_buf_add(b, e, 3);
        }
    }
}

/* 302 to the client's redirect_uri with code (or error), state and iss
 * (RFC 9207). */
static enum MHD_Result redirect(struct mg_http *h, struct MHD_Connection *c, struct req *r, const char *uri,
                                const char *state, const char *code, const struct mg_err *err)
{
    struct mg_buf b;
    mg_buf_init(&b, 16u << 10);
    mg_buf_add(&b, uri, strlen(uri));
    mg_buf_add(&b, strchr(uri, '?') ? "&" : "?", 1);
    if (code) {
        mg_buf_add(&b, "code=", 5);
        add_enc(&b, code);
    } else {
        mg_buf_add(&b, "error=", 6);
        /* at the authorize endpoint a missing or plain PKCE is a malformed request (RFC 7636 4.4.1) */
        add_enc(&b, strcmp(err->code, MG_E_OAUTH_PKCE) == 0 ? "invalid_request" : mg_as_oauth_error(err->code));
        mg_buf_add(&b, "&error_description=", 19);
        add_enc(&b, err->msg);
    }
    if (state && *state) {
        mg_buf_add(&b, "&state=", 7);
        add_enc(&b, state);
    }
    mg_buf_add(&b, "&iss=", 5);
    add_enc(&b, h->srv->cfg.oauth_issuer);
    mg_buf_add(&b, "", 1);
    enum MHD_Result rc = b.p ? mg__respond(c, r, 302, "text/plain", strdup(""), 0, "Location", b.p, NULL)
                             : mg__respond(c, r, 500, "text/plain", strdup("out of memory\n"), 14, NULL);
    mg_buf_release(&b);
    return rc;
}

/* ---- 2. the consent page ----------------------------------------------------------------------- */

static void add_html(struct mg_buf *b, const char *s)
{
    for (; *s; s++) {
        const char *e = *s == '&' ? "&amp;" : *s == '<' ? "&lt;" : *s == '>' ? "&gt;" : *s == '"' ? "&quot;"
                        : *s == '\'' ? "&#39;" : NULL;
        if (e) mg_buf_add(b, e, strlen(e));
        else mg_buf_add(b, s, 1);
    }
}

static void add_str(struct mg_buf *b, const char *s) { mg_buf_add(b, s, strlen(s)); }

#define PAGE_HEADERS                                                                                               \
    "Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",            \
        "X-Frame-Options", "DENY", "Referrer-Policy", "no-referrer", "X-Content-Type-Options", "nosniff"

/* An HTML page: a title and (escaped) text; the form when a is given. */
static enum MHD_Result page(struct mg_http *h, struct MHD_Connection *c, struct req *r, int status, const char *title,
                            const char *text, const struct mg_as_authz *a)
{
    static const char *const scopes[] = {"", "memgate:read", "memgate:write", "memgate:admin"};
    struct mg_buf b;
    mg_buf_init(&b, 64u << 10);
    add_str(&b, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" "
                "content=\"width=device-width\"><title>memgate: ");
    add_html(&b, title);
    add_str(&b, "</title><style>body{font:16px system-ui,sans-serif;max-width:40em;margin:3em auto;padding:0 1em}"
                "code{background:#eee;padding:0 .2em;word-break:break-all}input{width:100%;font:inherit}"
                "button{font:inherit;margin:1em 1em 0 0}</style></head><body><h1>");
    add_html(&b, title);
    add_str(&b, "</h1><p>");
    add_html(&b, text);
    add_str(&b, "</p>");
    if (a) {
        add_str(&b, "<p>Client: <b>");
        add_html(&b, a->client.name);
        add_str(&b, "</b> (<code>");
        add_html(&b, a->client.id);
        add_str(&b, "</code>)</p><p>It asks for <b>");
        add_html(&b, scopes[a->level >= 1 && a->level <= 3 ? a->level : 1]);
        add_str(&b, "</b> on <code>");
        add_html(&b, h->srv->cfg.oauth_resource);
        add_str(&b, "</code>; the answer goes to <code>");
        add_html(&b, a->redirect_uri);
        add_str(&b, "</code>.</p><p>To allow it, paste one of your memgate tokens (<code>memgate token create</code>): "
                    "the client gets that token's tenant and repos, and at most its level.</p>"
                    "<form method=\"post\" action=\"");
        add_html(&b, h->srv->cfg.oauth_issuer);
        add_str(&b, MG_AS_PATH_PREFIX "authorize\"><input type=\"hidden\" name=\"consent\" value=\"");
        add_html(&b, a->consent_id);
        add_str(&b, "\"><label>memgate token <input type=\"password\" name=\"approver_token\" autocomplete=\"off\">"
                    "</label><button name=\"action\" value=\"approve\">Allow</button>"
                    "<button name=\"action\" value=\"deny\">Deny</button></form>");
    }
    add_str(&b, "</body></html>\n");
    if (!b.p) return mg__respond(c, r, 500, "text/plain", strdup("out of memory\n"), 14, NULL);
    size_t n = b.len;
    char *text_out = b.p; /* taken by the response */
    return mg__respond(c, r, status, "text/html; charset=utf-8", text_out, n, PAGE_HEADERS, NULL);
}

/* ---- 3. authorize (GET: the page; POST: the operator's answer) --------------------------------- */

struct qargs {
    struct mg_as_form *f;
    bool bad;
};

static enum MHD_Result q_iter(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    (void)kind;
    struct qargs *q = cls;
    if (q->f->n == MG_AS_FORM_FIELDS || mg_as_form_get(q->f, key)) { /* too many, or repeated */
        q->bad = true;
        return MHD_NO;
    }
    q->f->name[q->f->n] = strdup(key);
    q->f->value[q->f->n] = strdup(value ? value : "");
    if (!q->f->name[q->f->n] || !q->f->value[q->f->n]) q->bad = true;
    q->f->n++;
    return q->bad ? MHD_NO : MHD_YES;
}

static enum MHD_Result authorize_get(struct mg_http *h, struct MHD_Connection *c, struct req *r)
{
    struct mg_as_form f = {0};
    struct qargs q = {&f, false};
    MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, q_iter, &q);
    struct mg_err err = {0};
    struct mg_as_authz a;
    bool redirectable = false;
    enum MHD_Result rc;
    if (q.bad) {
        mg_err_set(&err, MG_E_OAUTH_REQUEST, "the request repeats a parameter or has over %d", MG_AS_FORM_FIELDS);
    } else if (mg_as_authorize(h->as, &f, &a, &redirectable, &err) == 0) {
        mg_as_form_release(&f);
        return page(h, c, r, 200, "sign-in request", "A client asks to use this memgate server for you.", &a);
    }
    if (err.code && strcmp(err.code, MG_E_RATE_LIMITED) == 0) {
        mg_as_form_release(&f);
        return oauth_error(c, r, "oauth_authorize", 429, &err, a.retry_after);
    }
    mg__refused(r, "oauth_authorize", err.code ? err.code : MG_E_INTERNAL);
    snprintf(r->err, sizeof(r->err), "%s", err.code ? err.code : MG_E_INTERNAL);
    /* a client or redirect_uri that cannot be trusted is never redirected to */
    rc = redirectable ? redirect(h, c, r, a.redirect_uri, a.state, NULL, &err)
                      : page(h, c, r, 400, "sign-in refused", err.msg, NULL);
    mg_as_form_release(&f);
    return rc;
}

static enum MHD_Result authorize_post(struct mg_http *h, struct MHD_Connection *c, struct req *r,
                                      const struct mg_as_form *f)
{
    const char *consent = mg_as_form_get(f, "consent"), *action = mg_as_form_get(f, "action"),
               *tok = mg_as_form_get(f, "approver_token");
    struct mg_err err = {0};
    struct mg_as_authz a;
    char code[80];
    bool approve = action && strcmp(action, "approve") == 0;
    struct mg_token t;
    bool have = false;
    if (approve) {
        if (!h->srv->tokens || !tok || !*tok || mg_tokens_check(h->srv->tokens, tok, &t, &err) != 0) {
            const char *why = err.msg[0] ? err.msg : "no memgate token was given";
            struct mg_err e = {0};
            mg_err_set(&e, MG_E_OAUTH_CONSENT, "the token that approves is refused: %s", why);
            mg__refused(r, "oauth_authorize", MG_E_OAUTH_CONSENT);
            snprintf(r->err, sizeof(r->err), "%s", MG_E_OAUTH_CONSENT);
            return page(h, c, r, 401, "sign-in not approved", e.msg, NULL); /* the consent id stays usable */
        }
        have = true;
    }
    struct mg_principal p = {0};
    if (have) {
        p.level = t.level;
        p.repos = t.repos;
        p.nrepos = t.nrepos;
        snprintf(p.tenant, sizeof(p.tenant), "%s", t.tenant);
        snprintf(p.token_id, sizeof(p.token_id), "%s", t.id);
    }
    int rc = mg_as_consent(h->as, consent, approve ? &p : NULL, &a, code, sizeof(code), &err);
    if (have) mg_token_release(&t);
    if (rc != 0) {
        mg__refused(r, "oauth_authorize", err.code ? err.code : MG_E_INTERNAL);
        snprintf(r->err, sizeof(r->err), "%s", err.code ? err.code : MG_E_INTERNAL);
        return page(h, c, r, 400, "sign-in refused", err.msg, NULL);
    }
    if (!approve) {
        mg_err_set(&err, MG_E_OAUTH_DENIED, "the operator denied the request");
        mg__refused(r, "oauth_authorize", MG_E_OAUTH_DENIED);
        return redirect(h, c, r, a.redirect_uri, a.state, NULL, &err);
    }
    char status[160];
    snprintf(status, sizeof(status), "code issued to %.100s", a.client.id);
    audit_ok(h, "oauth_authorize", p.tenant, status);
    return redirect(h, c, r, a.redirect_uri, a.state, code, NULL);
}

/* ---- 4. token, register, revoke ------------------------------------------------------------------ */

static bool is_form(struct MHD_Connection *c)
{
    const char *ct = mg__header(c, MHD_HTTP_HEADER_CONTENT_TYPE);
    return ct && strncasecmp(ct, "application/x-www-form-urlencoded", 33) == 0;
}

static enum MHD_Result token_ep(struct mg_http *h, struct MHD_Connection *c, struct req *r, const struct mg_as_form *f)
{
    struct mg_err err = {0};
    char tenant[65];
    json_t *j = mg_as_token(h->as, f, tenant, sizeof(tenant), &err);
    snprintf(r->who.tenant, sizeof(r->who.tenant), "%s", tenant); /* the grant's, for the audit (level stays 0) */
    if (!j) return oauth_error(c, r, "oauth_token", 400, &err, 0);
    const char *gt = mg_as_form_get(f, "grant_type");
    audit_ok(h, "oauth_token", tenant, strcmp(gt, "refresh_token") == 0 ? "refreshed" : "issued");
    return json_ok(c, r, 200, j);
}

static enum MHD_Result revoke_ep(struct mg_http *h, struct MHD_Connection *c, struct req *r, const struct mg_as_form *f)
{
    struct mg_err err = {0};
    char tenant[65];
    if (mg_as_revoke(h->as, f, tenant, sizeof(tenant), &err) != 0) return oauth_error(c, r, "oauth_revoke", 400, &err, 0);
    audit_ok(h, "oauth_revoke", tenant, tenant[0] ? "revoked" : "unknown token (nothing to revoke)");
    return mg__respond(c, r, 200, "application/json", strdup("{}"), 2, NULL);
}

static enum MHD_Result reg(struct mg_http *h, struct MHD_Connection *c, struct req *r)
{
    struct mg_err err = {0};
    enum MHD_Result rc;
    if (over_limit(h, c, r, "oauth_register", true, &rc) != 0) return rc;
    int retry = 0;
    json_t *j = mg_as_register(h->as, r->body.p ? r->body.p : "", r->body.len, &retry, &err);
    if (!j) return oauth_error(c, r, "oauth_register", 400, &err, retry);
    char status[200];
    snprintf(status, sizeof(status), "registered %s", json_string_value(json_object_get(j, "client_id")));
    audit_ok(h, "oauth_register", NULL, status);
    return json_ok(c, r, 201, j);
}

/* ---- 5. the route -------------------------------------------------------------------------------- */

void mg__oauth_cors(struct mg_http *h, struct MHD_Connection *c, struct req *r, const char *url)
{
    const char *o = mg__header(c, "Origin"), *list = h->srv->cfg.oauth_cors_origins;
    if (!o || !*o || strlen(o) >= sizeof(r->cors) || strcmp(o, "null") == 0) return;
    if (r->api == A_OAUTH_AS && strncmp(url, MG_AS_PATH_PREFIX, strlen(MG_AS_PATH_PREFIX)) == 0) {
        const char *ep = url + strlen(MG_AS_PATH_PREFIX);
        if (strcmp(ep, "token") != 0 && strcmp(ep, "register") != 0 && strcmp(ep, "revoke") != 0 &&
            strcmp(ep, "jwks") != 0)
            return; /* authorize is a page the browser navigates to, with the Origin check of any form */
    }
    if (strcmp(list, "*") == 0 || mg_list_has(list, o, strlen(o), false)) snprintf(r->cors, sizeof(r->cors), "%s", o);
}

/* A CORS preflight (OPTIONS) of an endpoint r->cors allows: 204. */
enum MHD_Result mg__oauth_preflight(struct MHD_Connection *c, struct req *r, const char *methods)
{
    if (!r->cors[0])
        return mg__respond_error(c, r, 403, MG_E_ORIGIN_FORBIDDEN, "forbidden: no CORS for this origin or route "
                                 "(oauth_cors_origins; the authorize endpoint is a page, not an API)");
    return mg__respond(c, r, 204, NULL, strdup(""), 0, "Access-Control-Allow-Methods", methods,
                       "Access-Control-Allow-Headers", "Content-Type, MCP-Protocol-Version", "Access-Control-Max-Age",
                       "600", NULL);
}

bool mg__oauth_as_revoked(void *as, const char *grant) { return mg_as_revoked(as, grant); }

bool mg__oauth_as_path(const char *url)
{
    return strcmp(url, MG_AS_PATH_META) == 0 || strncmp(url, MG_AS_PATH_PREFIX, strlen(MG_AS_PATH_PREFIX)) == 0;
}

enum MHD_Result mg__oauth_as(struct mg_http *h, struct MHD_Connection *c, struct req *r, const char *url,
                             const char *method)
{
    if (!h->as)
        return mg__respond_error(c, r, 404, MG_E_ROUTE_NOT_FOUND, "no route %.200s: the built-in authorization "
                                                                  "server is off (oauth_server)", url);
    const char *ep = strncmp(url, MG_AS_PATH_PREFIX, strlen(MG_AS_PATH_PREFIX)) == 0 ? url + strlen(MG_AS_PATH_PREFIX)
                                                                                     : "";
    bool get = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0, post = strcmp(method, "POST") == 0;
    if (strcmp(method, "OPTIONS") == 0)
        return mg__oauth_preflight(c, r, strcmp(url, MG_AS_PATH_META) == 0 || strcmp(ep, "jwks") == 0 ? "GET, OPTIONS"
                                                                                                     : "POST, OPTIONS");
    if (get && strcmp(url, MG_AS_PATH_META) == 0) return json_ok(c, r, 200, mg_as_metadata(h->as));
    if (get && strcmp(ep, "jwks") == 0) {
        const char *k = mg_as_jwks(h->as);
        return mg__respond(c, r, 200, "application/json", strdup(k), strlen(k), NULL);
    }
    enum MHD_Result rc;
    bool form_ep = strcmp(ep, "authorize") == 0 || strcmp(ep, "token") == 0 || strcmp(ep, "revoke") == 0;
    const char *op = strcmp(ep, "token") == 0 ? "oauth_token" : strcmp(ep, "revoke") == 0 ? "oauth_revoke"
                                                                                          : "oauth_authorize";
    if (form_ep && (get || post) && over_limit(h, c, r, op, false, &rc) != 0) return rc;
    if (get && strcmp(ep, "authorize") == 0) return authorize_get(h, c, r);
    if (post && strcmp(ep, "register") == 0) return reg(h, c, r);
    if (!post || !form_ep)
        return mg__respond_error(c, r, strcmp(ep, "authorize") == 0 || form_ep || strcmp(ep, "register") == 0 ? 405
                                                                                                             : 404,
                                 MG_E_ROUTE_NOT_FOUND, "no route %.16s %.200s; the authorization server answers GET "
                                 MG_AS_PATH_META ", GET /oauth/jwks, GET and POST /oauth/authorize, POST "
                                 "/oauth/token, /oauth/register and /oauth/revoke", method, url);
    struct mg_err err = {0};
    struct mg_as_form f;
    if (!is_form(c)) {
        mg_err_set(&err, MG_E_OAUTH_REQUEST, "the body must be application/x-www-form-urlencoded");
        return oauth_error(c, r, op, 400, &err, 0);
    }
    if (mg_as_form_parse(r->body.p ? r->body.p : "", r->body.len, &f, &err) != 0)
        return oauth_error(c, r, op, 400, &err, 0);
    rc = strcmp(ep, "token") == 0    ? token_ep(h, c, r, &f)
                         : strcmp(ep, "revoke") == 0 ? revoke_ep(h, c, r, &f)
                                                     : authorize_post(h, c, r, &f);
    mg_as_form_release(&f);
    return rc;
}
