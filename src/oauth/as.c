/* as.c — the authorization server's flows (see as.h): metadata,
 * registration, clients (registered or by metadata document), authorize and
 * consent, the token endpoint (codes with PKCE, rotated refresh tokens),
 * revocation.
 *
 * Sections:
 *   1. metadata and errors
 *   2. clients: registration, lookup, metadata documents
 *   3. authorize and consent
 *   4. grants and tokens
 *   5. the token endpoint
 *   6. revocation
 */
#include "oauth/as_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "oauth/jwt.h"
#include "security/access.h"
#include "util/buf.h"
#include "util/httpc.h"

/* ---- 1. metadata and errors ------------------------------------------------------------- */

json_t *mg_as_metadata(const struct mg_as *as)
{
    const char *iss = as->cfg->oauth_issuer;
    char ep[5][600];
    static const char *const names[] = {"authorize", "token", "register", "revoke", "jwks"};
    for (int i = 0; i < 5; i++) snprintf(ep[i], sizeof(ep[i]), "%s%s%s", iss, MG_AS_PATH_PREFIX, names[i]);
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:[s], s:[s], s:[s,s], s:[s], s:[s], s:[s], s:[s,s,s], "
                     "s:b, s:b}",
                     "issuer", iss, "authorization_endpoint", ep[0], "token_endpoint", ep[1],
                     "registration_endpoint", ep[2], "revocation_endpoint", ep[3], "jwks_uri", ep[4],
                     "response_types_supported", "code", "response_modes_supported", "query",
                     "grant_types_supported", "authorization_code", "refresh_token",
                     "code_challenge_methods_supported", "S256", "token_endpoint_auth_methods_supported", "none",
                     "revocation_endpoint_auth_methods_supported", "none", "scopes_supported", "memgate:read",
                     "memgate:write", "memgate:admin", "client_id_metadata_document_supported", 1,
                     "authorization_response_iss_parameter_supported", 1);
}

const char *mg_as_oauth_error(const char *code)
{
    static const char *const map[][2] = {
        {MG_E_OAUTH_CLIENT, "invalid_client"},
        {MG_E_OAUTH_CLIENT_METADATA, "invalid_client_metadata"},
        {MG_E_OAUTH_PKCE, "invalid_grant"},
        {MG_E_OAUTH_CODE_REUSED, "invalid_grant"},
        {MG_E_OAUTH_CODE_EXPIRED, "invalid_grant"},
        {MG_E_OAUTH_GRANT, "invalid_grant"},
        {MG_E_OAUTH_REFRESH_REVOKED, "invalid_grant"},
        {MG_E_OAUTH_REDIRECT, "invalid_grant"},
        {MG_E_OAUTH_SCOPE, "invalid_scope"},
        {MG_E_OAUTH_TARGET, "invalid_target"},
        {MG_E_OAUTH_GRANT_TYPE, "unsupported_grant_type"},
        {MG_E_OAUTH_DENIED, "access_denied"},
        {MG_E_RATE_LIMITED, "temporarily_unavailable"},
    };
    for (size_t i = 0; code && i < sizeof(map) / sizeof(map[0]); i++)
        if (strcmp(code, map[i][0]) == 0) return map[i][1];
    return code && strncmp(code, "oauth_", 6) == 0 ? "invalid_request" : "server_error";
}

static int64_t now_s(void) { return (int64_t)time(NULL); }

/* ---- 2. clients: registration, lookup, metadata documents -------------------------------- */

/* Room for one more client (as->mu held): 0, or -1 with rate_limited. */
static int client_room(struct mg_as *as, int *retry_after_s, struct mg_err *err)
{
    sqlite3_stmt *st = NULL;
    int rc = mg__as_prep(as, "SELECT count(*) FROM clients", &st, err);
    int64_t n = 0;
    if (rc == 0 && (rc = mg__as_step(as, st, err)) == 1) n = sqlite3_column_int64(st, 0), rc = 0;
    sqlite3_finalize(st);
    if (rc != 0 || n < as->cfg->oauth_clients_max) return rc;
    char sql[200];
    snprintf(sql, sizeof(sql), "DELETE FROM clients WHERE created < %lld AND id NOT IN (SELECT client_id FROM grants)",
             (long long)(now_s() - MG_AS_IDLE_CLIENT_S));
    if (mg__as_exec(as, sql, err) != 0) return -1;
    if (sqlite3_changes(as->db) > 0) return 0;
    *retry_after_s = 3600;
    return mg_err_set(err, MG_E_RATE_LIMITED, "the authorization server holds %d registered clients "
                                              "(oauth_clients_max) and none is idle long enough to drop; try again "
                                              "later, or use a client metadata document URL as client_id",
                      as->cfg->oauth_clients_max);
}

json_t *mg_as_register(struct mg_as *as, const char *body, size_t len, int *retry_after_s, struct mg_err *err)
{
    struct mg_as_client c;
    if (mg_as_client_parse(body, len, true, &c, err) != 0) return NULL;
    mg__as_random("mgc_", c.id, 32); /* 27 characters: a public id, not a secret */
    if (!c.name[0]) snprintf(c.name, sizeof(c.name), "unnamed client");
    json_t *ru = json_array();
    for (size_t i = 0; ru && i < c.nredirects; i++) json_array_append_new(ru, json_string(c.redirect[i]));
    char *rus = ru ? json_dumps(ru, JSON_COMPACT) : NULL;
    if (!rus) {
        json_decref(ru);
        mg_err_oom(err);
        return NULL;
    }
    pthread_mutex_lock(&as->mu);
    sqlite3_stmt *st = NULL;
    int rc = client_room(as, retry_after_s, err);
    if (rc == 0) rc = mg__as_prep(as, "INSERT INTO clients(id, name, redirects, created) VALUES(?,?,?,?)", &st, err);
    if (rc == 0) {
        sqlite3_bind_text(st, 1, c.id, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, c.name, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, rus, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 4, now_s());
        rc = mg__as_step(as, st, err);
    }
    sqlite3_finalize(st);
    pthread_mutex_unlock(&as->mu);
    free(rus);
    if (rc != 0) {
        json_decref(ru);
        return NULL;
    }
    return json_pack("{s:s, s:s, s:o, s:I, s:s, s:[s,s], s:[s]}", "client_id", c.id, "client_name", c.name,
                     "redirect_uris", ru, "client_id_issued_at", (json_int_t)now_s(), "token_endpoint_auth_method",
                     "none", "grant_types", "authorization_code", "refresh_token", "response_types", "code");
}

/* A Client ID Metadata Document: fetched (no redirect followed, capped,
 * MG_AS_CIMD_TIMEOUT_S), checked, and its client_id must be its URL. */
static int fetch_client(struct mg_as *as, const char *url, struct mg_as_client *c, struct mg_err *err)
{
    struct mg_buf b;
    mg_buf_init(&b, MG_AS_DOC_MAX);
    long status = 0;
    char why[256] = "";
    /* a URL from anybody: public addresses only (no SSRF to this host or its network) */
    struct mg_httpc_req q = {.method = "GET", .url = url, .timeout_s = MG_AS_CIMD_TIMEOUT_S,
                             .max_body = MG_AS_DOC_MAX,
                             .public_only = strcmp(as->cfg->oauth_fetch_private, "on") != 0};
    int rc = -1, cc = mg_httpc_call(&q, &status, &b, why, sizeof(why));
    if (cc != 0)
        mg_err_set(err, MG_E_OAUTH_CLIENT, "cannot fetch the client's metadata document %.200s: %s%s", url, why,
                   cc == MG_HTTPC_PRIVATE ? " (oauth_fetch_private)" : "");
    else if (status != 200)
        mg_err_set(err, MG_E_OAUTH_CLIENT, "the client's metadata document %.200s answered HTTP %ld", url, status);
    else if (mg_as_client_parse(b.p, b.len, false, c, err) == 0) {
        json_t *j = json_loadb(b.p, b.len, 0, NULL);
        const char *id = json_string_value(json_object_get(j, "client_id"));
        if (!id || strcmp(id, url) != 0)
            mg_err_set(err, MG_E_OAUTH_CLIENT_METADATA, "the metadata document at %.200s names client_id '%.200s', "
                                                        "not its own URL", url, id ? id : "");
        else
            rc = 0;
        json_decref(j);
    } else {
        err->code = MG_E_OAUTH_CLIENT_METADATA;
    }
    mg_buf_release(&b);
    if (rc == 0) {
        snprintf(c->id, sizeof(c->id), "%s", url);
        if (!c->name[0]) snprintf(c->name, sizeof(c->name), "%.*s", MG_AS_NAME_MAX, url);
    }
    return rc;
}

/* The client id names: a metadata document's URL, else a registered client. */
static int find_client(struct mg_as *as, const char *id, struct mg_as_client *c, struct mg_err *err)
{
    memset(c, 0, sizeof(*c));
    if (strlen(id) > MG_AS_URI_MAX)
        return mg_err_set(err, MG_E_OAUTH_CLIENT, "the client_id is over %d bytes", MG_AS_URI_MAX);
    if (strncmp(id, "https://", 8) == 0 || strncmp(id, "http://", 7) == 0) {
        if (!mg_as_client_id_url(id, strcmp(as->cfg->oauth_client_metadata_http, "on") == 0))
            return mg_err_set(err, MG_E_OAUTH_CLIENT, "client_id '%.200s' is not a client metadata document URL "
                                                      "memgate fetches (https with a path; http:// on loopback "
                                                      "only with oauth_client_metadata_http = on)", id);
        return fetch_client(as, id, c, err);
    }
    pthread_mutex_lock(&as->mu);
    sqlite3_stmt *st = NULL;
    int rc = mg__as_prep(as, "SELECT name, redirects FROM clients WHERE id = ?", &st, err);
    if (rc == 0) {
        sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
        rc = mg__as_step(as, st, err);
        if (rc == 1) {
            snprintf(c->id, sizeof(c->id), "%s", id);
            snprintf(c->name, sizeof(c->name), "%s", (const char *)sqlite3_column_text(st, 0));
            json_t *ru = json_loads((const char *)sqlite3_column_text(st, 1), 0, NULL);
            size_t i;
            json_t *e;
            json_array_foreach(ru, i, e) if (c->nredirects < MG_AS_REDIRECTS && json_is_string(e))
                snprintf(c->redirect[c->nredirects++], MG_AS_URI_MAX + 1, "%s", json_string_value(e));
            json_decref(ru);
            rc = 0;
        } else if (rc == 0) {
            rc = mg_err_set(err, MG_E_OAUTH_CLIENT, "no client is registered as '%.100s': register first "
                                                    "(POST /oauth/register) or use a client metadata document URL",
                            id);
        }
    }
    sqlite3_finalize(st);
    pthread_mutex_unlock(&as->mu);
    return rc;
}

/* ---- 3. authorize and consent ------------------------------------------------------------- */

/* The highest memgate scope of a scope string; 0 when it names none. */
static int scope_level(const char *s)
{
    static const char *const names[] = {"memgate:read", "memgate:write", "memgate:admin"};
    int level = 0;
    while (s && *s) {
        s += strspn(s, " ");
        size_t n = strcspn(s, " ");
        for (int i = 0; i < 3; i++)
            if (n == strlen(names[i]) && strncmp(s, names[i], n) == 0 && i + 1 > level) level = i + 1;
        s += n;
    }
    return level;
}

static int check_resource(struct mg_as *as, const char *res, struct mg_err *err)
{
    if (res && strcmp(res, as->cfg->oauth_resource) != 0)
        return mg_err_set(err, MG_E_OAUTH_TARGET, "resource '%.200s' is not this server's (%.200s)", res,
                          as->cfg->oauth_resource);
    return 0;
}

int mg_as_authorize(struct mg_as *as, const struct mg_as_form *q, struct mg_as_authz *a, bool *redirectable,
                    struct mg_err *err)
{
    memset(a, 0, sizeof(*a));
    *redirectable = false;
    const char *id = mg_as_form_get(q, "client_id"), *ru = mg_as_form_get(q, "redirect_uri");
    if (!id || !*id) return mg_err_set(err, MG_E_OAUTH_REQUEST, "client_id is missing");
    if (find_client(as, id, &a->client, err) != 0) return -1;
    for (size_t i = 0; ru && i < a->client.nredirects; i++)
        if (strcmp(ru, a->client.redirect[i]) == 0) snprintf(a->redirect_uri, sizeof(a->redirect_uri), "%s", ru);
    if (!ru && a->client.nredirects == 1) snprintf(a->redirect_uri, sizeof(a->redirect_uri), "%s", a->client.redirect[0]);
    if (!a->redirect_uri[0])
        return mg_err_set(err, MG_E_OAUTH_REDIRECT, "redirect_uri %s is not one the client registered (an exact "
                                                    "match is required)", ru ? "given" : "missing, and the client "
                                                    "has several: it");
    const char *state = mg_as_form_get(q, "state");
    if (state && strlen(state) > MG_AS_URI_MAX) state = NULL; /* not echoed: the check below refuses */
    snprintf(a->state, sizeof(a->state), "%s", state ? state : "");
    *redirectable = true; /* from here the client hears of errors at its redirect_uri */
    const char *rt = mg_as_form_get(q, "response_type"), *ch = mg_as_form_get(q, "code_challenge"),
               *m = mg_as_form_get(q, "code_challenge_method"), *scope = mg_as_form_get(q, "scope");
    if (mg_as_form_get(q, "state") && !state)
        return mg_err_set(err, MG_E_OAUTH_REQUEST, "state is over %d bytes", MG_AS_URI_MAX);
    if (!rt || strcmp(rt, "code") != 0)
        return mg_err_set(err, MG_E_OAUTH_REQUEST, "response_type must be code");
    if (!ch || strlen(ch) != 43 || !m || strcmp(m, "S256") != 0)
        return mg_err_set(err, MG_E_OAUTH_PKCE, "PKCE is required: code_challenge (43 base64url characters) with "
                                                "code_challenge_method S256 (plain is refused)");
    if (check_resource(as, mg_as_form_get(q, "resource"), err) != 0) return -1;
    a->level = scope ? scope_level(scope) : MG_LEVEL_READ;
    if (!a->level)
        return mg_err_set(err, MG_E_OAUTH_SCOPE, "scope names none of memgate:read, memgate:write, memgate:admin");
    char id_text[48];
    mg__as_random("", id_text, sizeof(id_text));
    unsigned char h[MG_AS_HASH];
    mg__as_hash(id_text, h);
    pthread_mutex_lock(&as->mu);
    sqlite3_stmt *st = NULL;
    /* every consent request is a synced row: a client gets MG_AS_CONSENTS_PER_CLIENT waiting at most */
    int rc = mg__as_prep(as, "SELECT count(*), min(expires) FROM consents WHERE client_id = ? AND expires >= ?", &st,
                         err);
    if (rc == 0) {
        sqlite3_bind_text(st, 1, a->client.id, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, now_s());
        if ((rc = mg__as_step(as, st, err)) == 1) {
            rc = 0;
            if (sqlite3_column_int(st, 0) >= MG_AS_CONSENTS_PER_CLIENT) {
                int64_t wait = sqlite3_column_int64(st, 1) - now_s() + 1;
                a->retry_after = wait < 1 ? 1 : (int)wait;
                *redirectable = false; /* answered here: a flood is not sent on to the client */
                rc = mg_err_set(err, MG_E_RATE_LIMITED, "this client has %d sign-in requests waiting for consent; "
                                                        "answer or abandon them (they expire after %d s)",
                                MG_AS_CONSENTS_PER_CLIENT, MG_AS_CONSENT_TTL);
            }
        }
    }
    sqlite3_finalize(st);
    st = NULL;
    if (rc == 0)
        rc = mg__as_prep(as, "INSERT INTO consents(hash, client_id, redirect_uri, state, challenge, level, expires) "
                             "VALUES(?,?,?,?,?,?,?)", &st, err);
    if (rc == 0) {
        sqlite3_bind_blob(st, 1, h, sizeof(h), SQLITE_STATIC);
        sqlite3_bind_text(st, 2, a->client.id, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, a->redirect_uri, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, a->state, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 5, ch, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 6, a->level);
        sqlite3_bind_int64(st, 7, now_s() + MG_AS_CONSENT_TTL);
        rc = mg__as_step(as, st, err);
    }
    sqlite3_finalize(st);
    if (rc == 0) {
        char sql[160];
        snprintf(sql, sizeof(sql), "DELETE FROM consents WHERE expires < %lld; DELETE FROM codes WHERE expires < %lld",
                 (long long)now_s(), (long long)now_s() - 86400);
        mg__as_exec(as, sql, err);
    }
    pthread_mutex_unlock(&as->mu);
    if (rc != 0) return -1;
    snprintf(a->consent_id, sizeof(a->consent_id), "%s", id_text);
    return 0;
}

int mg_as_consent(struct mg_as *as, const char *consent_id, const struct mg_principal *approver,
                  struct mg_as_authz *a, char *code, size_t cap, struct mg_err *err)
{
    unsigned char h[MG_AS_HASH];
    mg__as_hash(consent_id ? consent_id : "", h); /* first: consent_id may be a->consent_id */
    memset(a, 0, sizeof(*a));
    code[0] = 0;
    char challenge[64] = "", grant[48];
    pthread_mutex_lock(&as->mu);
    sqlite3_stmt *st = NULL;
    int rc = mg__as_prep(as, "DELETE FROM consents WHERE hash = ? AND expires >= ? "
                             "RETURNING client_id, redirect_uri, state, challenge, level", &st, err);
    if (rc == 0) {
        sqlite3_bind_blob(st, 1, h, sizeof(h), SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, now_s());
        rc = mg__as_step(as, st, err);
        if (rc == 1) {
            snprintf(a->client.id, sizeof(a->client.id), "%s", (const char *)sqlite3_column_text(st, 0));
            snprintf(a->redirect_uri, sizeof(a->redirect_uri), "%s", (const char *)sqlite3_column_text(st, 1));
            snprintf(a->state, sizeof(a->state), "%s", (const char *)sqlite3_column_text(st, 2));
            snprintf(challenge, sizeof(challenge), "%s", (const char *)sqlite3_column_text(st, 3));
            a->level = sqlite3_column_int(st, 4);
            rc = 0;
        } else if (rc == 0) {
            rc = mg_err_set(err, MG_E_OAUTH_CONSENT, "this consent request is unknown, answered already or older "
                                                     "than %d s: start the sign-in again from the client",
                            MG_AS_CONSENT_TTL);
        }
    }
    sqlite3_finalize(st);
    st = NULL;
    if (rc != 0 || !approver) { /* a denial: the consent request is used up, no code */
        pthread_mutex_unlock(&as->mu);
        return rc;
    }
    if (approver->level < a->level) a->level = approver->level; /* never more than the approver may do */
    char *repos = NULL;
    if (approver->nrepos) {
        json_t *arr = json_array();
        for (size_t i = 0; arr && i < approver->nrepos; i++) json_array_append_new(arr, json_string(approver->repos[i]));
        repos = arr ? json_dumps(arr, JSON_COMPACT) : NULL;
        json_decref(arr);
        if (!repos) rc = mg_err_oom(err);
    }
    mg__as_random("", grant, sizeof(grant));
    mg__as_random("mga_", code, cap);
    unsigned char ch[MG_AS_HASH];
    mg__as_hash(code, ch);
    if (rc == 0) rc = mg__as_exec(as, "BEGIN IMMEDIATE", err);
    if (rc == 0) rc = mg__as_prep(as, "INSERT INTO grants(id, client_id, tenant, repos, level, subject, created) "
                                      "VALUES(?,?,?,?,?,?,?)", &st, err);
    if (rc == 0) {
        sqlite3_bind_text(st, 1, grant, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, a->client.id, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, approver->tenant, -1, SQLITE_STATIC);
        if (repos) sqlite3_bind_text(st, 4, repos, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 5, a->level);
        sqlite3_bind_text(st, 6, approver->token_id[0] ? approver->token_id : "local", -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 7, now_s());
        rc = mg__as_step(as, st, err);
        sqlite3_finalize(st);
        st = NULL;
    }
    if (rc == 0) rc = mg__as_prep(as, "INSERT INTO codes(hash, grant_id, redirect_uri, challenge, expires) "
                                      "VALUES(?,?,?,?,?)", &st, err);
    if (rc == 0) {
        sqlite3_bind_blob(st, 1, ch, sizeof(ch), SQLITE_STATIC);
        sqlite3_bind_text(st, 2, grant, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, a->redirect_uri, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, challenge, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 5, now_s() + as->cfg->oauth_code_ttl);
        rc = mg__as_step(as, st, err);
        sqlite3_finalize(st);
    }
    if (rc == 0) rc = mg__as_exec(as, "COMMIT", err);
    else mg__as_exec(as, "ROLLBACK", &(struct mg_err){0});
    pthread_mutex_unlock(&as->mu);
    free(repos);
    if (rc != 0) code[0] = 0;
    return rc;
}

/* ---- 4. grants and tokens ------------------------------------------------------------------ */

struct grant {
    char id[48], client_id[MG_AS_URI_MAX + 1], tenant[65], subject[64];
    char *repos; /* JSON array text, or NULL: every repo */
    int level;
    bool revoked;
};

/* Read grant id into *g (as->mu held). 1 found, 0 not, -1 err. */
static int read_grant(struct mg_as *as, const char *id, struct grant *g, struct mg_err *err)
{
    memset(g, 0, sizeof(*g));
    sqlite3_stmt *st = NULL;
    int rc = mg__as_prep(as, "SELECT client_id, tenant, repos, level, subject, revoked FROM grants WHERE id = ?", &st,
                         err);
    if (rc == 0) {
        sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
        rc = mg__as_step(as, st, err);
    }
    if (rc == 1) {
        snprintf(g->id, sizeof(g->id), "%s", id);
        snprintf(g->client_id, sizeof(g->client_id), "%s", (const char *)sqlite3_column_text(st, 0));
        snprintf(g->tenant, sizeof(g->tenant), "%s", (const char *)sqlite3_column_text(st, 1));
        const char *r = (const char *)sqlite3_column_text(st, 2);
        g->repos = r ? strdup(r) : NULL;
        g->level = sqlite3_column_int(st, 3);
        snprintf(g->subject, sizeof(g->subject), "%s", (const char *)sqlite3_column_text(st, 4));
        g->revoked = sqlite3_column_int(st, 5) != 0;
    }
    sqlite3_finalize(st);
    return rc;
}

/* Revoke grant id (as->mu held): in oauth.db, and on the revocation list
 * at once so that its access tokens are refused from the next request. */
static int revoke_grant(struct mg_as *as, const char *id, struct mg_err *err)
{
    sqlite3_stmt *st = NULL;
    int64_t now = now_s();
    int rc = mg__as_prep(as, "UPDATE grants SET revoked = 1, revoked_at = coalesce(revoked_at, ?) WHERE id = ?", &st,
                         err);
    if (rc == 0) {
        sqlite3_bind_int64(st, 1, now);
        sqlite3_bind_text(st, 2, id, -1, SQLITE_STATIC);
        rc = mg__as_step(as, st, err);
    }
    sqlite3_finalize(st);
    if (mg__as_rv_add(as, id, now) != 0 && rc == 0) rc = mg_err_oom(err);
    return rc;
}

/* An access token and a new refresh token for grant g (as->mu held): the
 * token response. */
static json_t *issue(struct mg_as *as, const struct grant *g, struct mg_err *err)
{
    static const char *const scopes[] = {"", "memgate:read", "memgate:write", "memgate:admin"};
    const struct mg_config *cfg = as->cfg;
    int64_t now = now_s();
    char jti[48], refresh[64];
    mg__as_random("", jti, sizeof(jti));
    mg__as_random("mgr_", refresh, sizeof(refresh));
    int level = g->level >= 1 && g->level <= 3 ? g->level : 1;
    json_t *claims = json_pack("{s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:s, s:s, s:s}", "iss", cfg->oauth_issuer, "sub",
                               g->subject, "aud", cfg->oauth_resource, "client_id", g->client_id, "scope",
                               scopes[level], "iat", (json_int_t)now, "exp", (json_int_t)(now + cfg->oauth_token_ttl),
                               "jti", jti, "mg_grant", g->id, cfg->oauth_tenant_claim, g->tenant);
    if (claims && g->repos) json_object_set_new(claims, cfg->oauth_repos_claim, json_loads(g->repos, 0, NULL));
    char *at = claims ? mg__as_sign(as, claims) : NULL;
    json_decref(claims);
    if (!at) {
        mg_err_oom(err);
        return NULL;
    }
    unsigned char h[MG_AS_HASH];
    mg__as_hash(refresh, h);
    sqlite3_stmt *st = NULL;
    int rc = mg__as_prep(as, "INSERT INTO refresh(hash, grant_id, expires) VALUES(?,?,?)", &st, err);
    if (rc == 0) {
        sqlite3_bind_blob(st, 1, h, sizeof(h), SQLITE_STATIC);
        sqlite3_bind_text(st, 2, g->id, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 3, now + cfg->oauth_refresh_ttl);
        rc = mg__as_step(as, st, err);
    }
    sqlite3_finalize(st);
    json_t *j = rc == 0 ? json_pack("{s:s, s:s, s:i, s:s, s:s}", "access_token", at, "token_type", "Bearer",
                                    "expires_in", cfg->oauth_token_ttl, "refresh_token", refresh, "scope", scopes[level])
                        : NULL;
    free(at);
    return j;
}

/* ---- 5. the token endpoint ---------------------------------------------------------------------- */

/* grant_type=authorization_code (as->mu held). */
static json_t *by_code(struct mg_as *as, const struct mg_as_form *f, struct grant *g, struct mg_err *err)
{
    const char *code = mg_as_form_get(f, "code"), *verifier = mg_as_form_get(f, "code_verifier"),
               *ru = mg_as_form_get(f, "redirect_uri"), *cid = mg_as_form_get(f, "client_id");
    if (!code || !verifier || !cid)
        return mg_err_set(err, MG_E_OAUTH_REQUEST, "code, code_verifier and client_id are required"), NULL;
    unsigned char h[MG_AS_HASH];
    mg__as_hash(code, h);
    sqlite3_stmt *st = NULL;
    /* used is set in the same statement that reads it: a code works once, whatever follows */
    int rc = mg__as_prep(as, "UPDATE codes SET used = used + 1 WHERE hash = ? "
                             "RETURNING grant_id, redirect_uri, challenge, expires, used", &st, err);
    char grant[48] = "", code_ru[MG_AS_URI_MAX + 1] = "", challenge[64] = "";
    int64_t expires = 0;
    int used = 0;
    if (rc == 0) {
        sqlite3_bind_blob(st, 1, h, sizeof(h), SQLITE_STATIC);
        rc = mg__as_step(as, st, err);
        if (rc == 1) {
            snprintf(grant, sizeof(grant), "%s", (const char *)sqlite3_column_text(st, 0));
            snprintf(code_ru, sizeof(code_ru), "%s", (const char *)sqlite3_column_text(st, 1));
            snprintf(challenge, sizeof(challenge), "%s", (const char *)sqlite3_column_text(st, 2));
            expires = sqlite3_column_int64(st, 3);
            used = sqlite3_column_int(st, 4);
        }
    }
    sqlite3_finalize(st);
    if (rc < 0) return NULL;
    if (rc == 0) return mg_err_set(err, MG_E_OAUTH_GRANT, "the authorization code is unknown"), NULL;
    if (read_grant(as, grant, g, err) != 1)
        return err->code ? NULL : (mg_err_set(err, MG_E_OAUTH_GRANT, "the authorization code's grant is gone"), NULL);
    if (used > 1) { /* OAuth 2.1 4.1.3: a replayed code revokes what it gave */
        revoke_grant(as, grant, err);
        return mg_err_set(err, MG_E_OAUTH_CODE_REUSED, "the authorization code was used before; the tokens it gave "
                                                       "are revoked: sign in again"), NULL;
    }
    if (now_s() >= expires)
        return mg_err_set(err, MG_E_OAUTH_CODE_EXPIRED, "the authorization code expired (codes live %d s: "
                                                        "oauth_code_ttl); sign in again", as->cfg->oauth_code_ttl), NULL;
    if (strcmp(cid, g->client_id) != 0)
        return mg_err_set(err, MG_E_OAUTH_GRANT, "the authorization code was issued to another client"), NULL;
    if (!ru || strcmp(ru, code_ru) != 0)
        return mg_err_set(err, MG_E_OAUTH_REDIRECT, "redirect_uri is not the one the code was issued for"), NULL;
    if (!mg_as_pkce_ok(verifier, challenge))
        return mg_err_set(err, MG_E_OAUTH_PKCE, "code_verifier does not match the code_challenge (S256)"), NULL;
    if (g->revoked) return mg_err_set(err, MG_E_OAUTH_GRANT, "the grant was revoked"), NULL;
    return issue(as, g, err);
}

/* grant_type=refresh_token (as->mu held): the old token is used up, a new one issued. */
static json_t *by_refresh(struct mg_as *as, const struct mg_as_form *f, struct grant *g, struct mg_err *err)
{
    const char *tok = mg_as_form_get(f, "refresh_token"), *cid = mg_as_form_get(f, "client_id");
    if (!tok) return mg_err_set(err, MG_E_OAUTH_REQUEST, "refresh_token is required"), NULL;
    unsigned char h[MG_AS_HASH];
    mg__as_hash(tok, h);
    sqlite3_stmt *st = NULL;
    char grant[48] = "";
    int64_t expires = 0;
    int used = 0;
    int rc = mg__as_prep(as, "UPDATE refresh SET used = used + 1 WHERE hash = ? RETURNING grant_id, expires, used", &st,
                         err);
    if (rc == 0) {
        sqlite3_bind_blob(st, 1, h, sizeof(h), SQLITE_STATIC);
        rc = mg__as_step(as, st, err);
        if (rc == 1) {
            snprintf(grant, sizeof(grant), "%s", (const char *)sqlite3_column_text(st, 0));
            expires = sqlite3_column_int64(st, 1);
            used = sqlite3_column_int(st, 2);
        }
    }
    sqlite3_finalize(st);
    if (rc < 0) return NULL;
    if (rc == 0) return mg_err_set(err, MG_E_OAUTH_GRANT, "the refresh token is unknown"), NULL;
    if (read_grant(as, grant, g, err) != 1)
        return err->code ? NULL : (mg_err_set(err, MG_E_OAUTH_GRANT, "the refresh token's grant is gone"), NULL);
    if (cid && strcmp(cid, g->client_id) != 0)
        return mg_err_set(err, MG_E_OAUTH_GRANT, "the refresh token was issued to another client"), NULL;
    if (g->revoked)
        return mg_err_set(err, MG_E_OAUTH_REFRESH_REVOKED, "the refresh token was revoked; sign in again"), NULL;
    if (used > 1) { /* rotation: a used refresh token again means it leaked */
        revoke_grant(as, grant, err);
        return mg_err_set(err, MG_E_OAUTH_REFRESH_REVOKED, "the refresh token was used before (each works once); "
                                                           "its grant is revoked: sign in again"), NULL;
    }
    if (now_s() >= expires)
        return mg_err_set(err, MG_E_OAUTH_REFRESH_REVOKED, "the refresh token expired (oauth_refresh_ttl); sign in "
                                                           "again"), NULL;
    return issue(as, g, err);
}

json_t *mg_as_token(struct mg_as *as, const struct mg_as_form *f, char *tenant, size_t tcap, struct mg_err *err)
{
    tenant[0] = 0;
    const char *gt = mg_as_form_get(f, "grant_type");
    bool code = gt && strcmp(gt, "authorization_code") == 0, refresh = gt && strcmp(gt, "refresh_token") == 0;
    if (!code && !refresh)
        return mg_err_set(err, MG_E_OAUTH_GRANT_TYPE, "grant_type must be authorization_code or refresh_token"), NULL;
    if (check_resource(as, mg_as_form_get(f, "resource"), err) != 0) return NULL;
    struct grant g = {0};
    pthread_mutex_lock(&as->mu);
    json_t *j = NULL;
    if (mg__as_exec(as, "BEGIN IMMEDIATE", err) == 0) {
        j = code ? by_code(as, f, &g, err) : by_refresh(as, f, &g, err);
        /* a refusal commits too: the code or token is used up, a replay's revocation holds */
        if (mg__as_exec(as, "COMMIT", err) != 0) {
            mg__as_exec(as, "ROLLBACK", &(struct mg_err){0});
            json_decref(j);
            j = NULL;
        }
    }
    pthread_mutex_unlock(&as->mu);
    snprintf(tenant, tcap, "%s", g.tenant);
    free(g.repos);
    return j;
}

/* ---- 6. revocation ----------------------------------------------------------------------------- */

int mg_as_revoke(struct mg_as *as, const struct mg_as_form *f, char *tenant, size_t tcap, struct mg_err *err)
{
    tenant[0] = 0;
    const char *tok = mg_as_form_get(f, "token");
    if (!tok || !*tok) return mg_err_set(err, MG_E_OAUTH_REQUEST, "token is required");
    char grant[48] = "";
    pthread_mutex_lock(&as->mu);
    int rc = 0;
    if (strncmp(tok, "mgr_", 4) == 0) {
        unsigned char h[MG_AS_HASH];
        mg__as_hash(tok, h);
        sqlite3_stmt *st = NULL;
        rc = mg__as_prep(as, "SELECT grant_id FROM refresh WHERE hash = ?", &st, err);
        if (rc == 0) {
            sqlite3_bind_blob(st, 1, h, sizeof(h), SQLITE_STATIC);
            rc = mg__as_step(as, st, err);
            if (rc == 1) snprintf(grant, sizeof(grant), "%s", (const char *)sqlite3_column_text(st, 0)), rc = 0;
        }
        sqlite3_finalize(st);
    } else { /* one of our access tokens: its signature, then its grant */
        struct mg_jwt t;
        struct mg_jwks *ks = NULL;
        struct mg_err e = {0};
        if (mg_jwt_parse(tok, strlen(tok), &t, &e) == 0) {
            const char *g = json_string_value(json_object_get(t.claims, "mg_grant"));
            if (mg_jwks_parse(as->jwks, strlen(as->jwks), &ks, &e) == 0 && mg_jwt_verify(&t, ks, &e) == 0 && g)
                snprintf(grant, sizeof(grant), "%s", g);
            mg_jwks_free(&ks);
            mg_jwt_release(&t);
        }
    }
    struct grant g = {0};
    if (rc == 0 && grant[0] && (rc = read_grant(as, grant, &g, err)) == 1) {
        rc = revoke_grant(as, grant, err);
        snprintf(tenant, tcap, "%s", g.tenant);
    }
    free(g.repos);
    pthread_mutex_unlock(&as->mu);
    return rc < 0 ? -1 : 0;
}
