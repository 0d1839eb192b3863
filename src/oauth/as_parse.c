/* as_parse.c — the authorization server's parsers (see as.h): form bodies,
 * client metadata (registration requests and Client ID Metadata
 * Documents), client_id URLs and the PKCE check. Pure: no state, no I/O.
 *
 * Sections:
 *   1. form bodies
 *   2. URLs
 *   3. client metadata
 *   4. PKCE
 */
#include "oauth/as.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <sodium.h>

/* ---- 1. form bodies ------------------------------------------------------------------ */

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Decode s[0..n) into a new string; NULL on a bad escape or a NUL. */
static char *decode(const char *s, size_t n)
{
    char *o = malloc(n + 1), *w = o;
    if (!o) return NULL;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (ch == '+') ch = ' ';
        else if (ch == '%') {
            int a = i + 2 < n ? hexval(s[i + 1]) : -1, b = i + 2 < n ? hexval(s[i + 2]) : -1;
            if (a < 0 || b < 0 || (a == 0 && b == 0)) {
                free(o);
                return NULL;
            }
            ch = (char)(a * 16 + b);
            i += 2;
        } else if (ch == 0) {
            free(o);
            return NULL;
        }
        *w++ = ch;
    }
    *w = 0;
    return o;
}

int mg_as_form_parse(const char *body, size_t len, struct mg_as_form *f, struct mg_err *err)
{
    memset(f, 0, sizeof(*f));
    if (len > MG_AS_FORM_MAX)
        return mg_err_set(err, MG_E_OAUTH_REQUEST, "the form is %zu bytes; at most %u are accepted", len,
                          MG_AS_FORM_MAX);
    const char *p = body, *end = body + len;
    while (p < end) {
        const char *amp = memchr(p, '&', (size_t)(end - p));
        const char *e = amp ? amp : end;
        if (e > p) {
            const char *eq = memchr(p, '=', (size_t)(e - p));
            if (f->n == MG_AS_FORM_FIELDS) {
                mg_as_form_release(f);
                return mg_err_set(err, MG_E_OAUTH_REQUEST, "the form has over %d fields", MG_AS_FORM_FIELDS);
            }
            char *name = decode(p, (size_t)((eq ? eq : e) - p));
            char *value = eq ? decode(eq + 1, (size_t)(e - eq - 1)) : strdup("");
            if (!name || !value || !*name) {
                free(name);
                free(value);
                mg_as_form_release(f);
                return mg_err_set(err, MG_E_OAUTH_REQUEST, "the form has a field with a bad %%-escape, a NUL "
                                                           "or no name");
            }
            if (mg_as_form_get(f, name)) { /* RFC 6749 3.1: parameters must not repeat */
                mg_err_set(err, MG_E_OAUTH_REQUEST, "the form repeats the field '%.40s'", name);
                free(name);
                free(value);
                mg_as_form_release(f);
                return -1;
            }
            f->name[f->n] = name;
            f->value[f->n++] = value;
        }
        p = amp ? amp + 1 : end;
    }
    return 0;
}

const char *mg_as_form_get(const struct mg_as_form *f, const char *name)
{
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->name[i], name) == 0) return f->value[i];
    return NULL;
}

void mg_as_form_release(struct mg_as_form *f)
{
    for (size_t i = 0; i < f->n; i++) free(f->name[i]), free(f->value[i]);
    f->n = 0;
}

/* ---- 2. URLs ------------------------------------------------------------------------- */

/* Is the authority a[0..n) loopback (localhost, 127.0.0.1, [::1], with a port or not)? */
static bool loopback(const char *a, size_t n)
{
    static const char *const lo[] = {"localhost", "127.0.0.1", "[::1]"};
    for (int i = 0; i < 3; i++) {
        size_t k = strlen(lo[i]);
        if (n >= k && strncasecmp(a, lo[i], k) == 0 && (n == k || a[k] == ':')) return true;
    }
    return false;
}

/* Printable ASCII without spaces, quotes, angle brackets or backslashes. */
static bool clean(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s <= 0x20 || (unsigned char)*s >= 0x7f || strchr("\"'<>\\`", *s)) return false;
    return true;
}

bool mg_as_client_id_url(const char *url, bool allow_http)
{
    size_t len = strlen(url);
    if (len > MG_AS_URI_MAX || !clean(url) || strchr(url, '#')) return false;
    bool https = strncmp(url, "https://", 8) == 0, http = strncmp(url, "http://", 7) == 0;
    if (!https && !(http && allow_http)) return false;
    const char *a = url + (https ? 8 : 7), *slash = strchr(a, '/');
    size_t an = slash ? (size_t)(slash - a) : strlen(a);
    if (!an || memchr(a, '@', an) || memchr(a, '?', an)) return false;
    if (http != loopback(a, an)) return false; /* http: loopback only; https: never loopback (tests use http) */
    return slash && slash[1] && slash[1] != '?'; /* a path beyond "/" (the draft's rule) */
}

/* A redirect URI: https, http on loopback, or a private-use scheme
 * (reverse domain, with a dot); absolute, no fragment. */
static bool redirect_ok(const char *u)
{
    if (strlen(u) > MG_AS_URI_MAX || !clean(u) || strchr(u, '#')) return false;
    if (strncmp(u, "https://", 8) == 0) return u[8] && u[8] != '/';
    if (strncmp(u, "http://", 7) == 0) {
        const char *a = u + 7;
        return loopback(a, strcspn(a, "/?"));
    }
    const char *colon = strchr(u, ':');
    if (!colon || colon == u || !memchr(u, '.', (size_t)(colon - u))) return false;
    for (const char *p = u; p < colon; p++)
        if (!(('a' <= *p && *p <= 'z') || ('0' <= *p && *p <= '9') || *p == '.' || *p == '-' || *p == '+'))
            return false;
    return colon[1] != 0;
}

/* ---- 3. client metadata ----------------------------------------------------------------- */

/* Is every string of the array v (when given) one of the allowed words? */
static bool within(json_t *v, const char *const *allowed)
{
    if (!v) return true;
    if (!json_is_array(v) || json_array_size(v) > 8) return false;
    size_t i;
    json_t *e;
    json_array_foreach(v, i, e) {
        const char *s = json_string_value(e);
        bool ok = false;
        for (const char *const *a = allowed; s && *a; a++)
            if (strcmp(s, *a) == 0) ok = true;
        if (!ok) return false;
    }
    return true;
}

int mg_as_client_parse(const char *text, size_t len, bool registration, struct mg_as_client *c,
                       struct mg_err *err)
{
    memset(c->name, 0, sizeof(c->name));
    c->nredirects = 0;
    if (len > MG_AS_DOC_MAX)
        return mg_err_set(err, MG_E_OAUTH_CLIENT_METADATA, "the client metadata is %zu bytes; at most %u are "
                                                           "accepted", len, MG_AS_DOC_MAX);
    json_error_t je;
    json_t *j = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    int rc = -1;
    static const char *const grants[] = {"authorization_code", "refresh_token", NULL};
    static const char *const responses[] = {"code", NULL};
    json_t *ru = json_object_get(j, "redirect_uris");
    const char *auth = json_string_value(json_object_get(j, "token_endpoint_auth_method"));
    const char *name = json_string_value(json_object_get(j, "client_name"));
    if (!json_is_object(j))
        mg_err_set(err, MG_E_OAUTH_CLIENT_METADATA, "the client metadata is not a JSON object%s%.100s",
                   j ? "" : ": ", j ? "" : je.text);
    else if (!json_is_array(ru) || json_array_size(ru) == 0 || json_array_size(ru) > MG_AS_REDIRECTS)
        mg_err_set(err, MG_E_OAUTH_CLIENT_METADATA, "redirect_uris must be an array of 1 to %d URIs",
                   MG_AS_REDIRECTS);
    else if (!within(json_object_get(j, "grant_types"), grants))
        mg_err_set(err, MG_E_OAUTH_CLIENT_METADATA, "grant_types may only hold authorization_code and "
                                                    "refresh_token");
    else if (!within(json_object_get(j, "response_types"), responses))
        mg_err_set(err, MG_E_OAUTH_CLIENT_METADATA, "response_types may only hold code");
    else if (!registration && json_object_get(j, "token_endpoint_auth_method") && (!auth || strcmp(auth, "none")))
        mg_err_set(err, MG_E_OAUTH_CLIENT_METADATA, "a client metadata document must use "
                                                    "token_endpoint_auth_method none (this server has no client "
                                                    "secrets nor keys)");
    else if (json_object_get(j, "client_name") && (!name || strlen(name) > MG_AS_NAME_MAX || !*name))
        mg_err_set(err, MG_E_OAUTH_CLIENT_METADATA, "client_name must be a string of 1 to %d bytes",
                   MG_AS_NAME_MAX);
    else
        rc = 0;
    size_t i;
    json_t *e;
    if (rc == 0) json_array_foreach(ru, i, e) {
        const char *u = json_string_value(e);
        if (!u || !redirect_ok(u)) {
            rc = mg_err_set(err, MG_E_OAUTH_CLIENT_METADATA, "redirect_uris[%zu] is not an absolute https URI, an "
                                                             "http URI on loopback or a private-use scheme "
                                                             "(com.example.app:/cb), without fragment", i);
            break;
        }
        snprintf(c->redirect[c->nredirects++], MG_AS_URI_MAX + 1, "%s", u);
    }
    if (rc == 0 && name) { /* kept printable: control characters become spaces */
        snprintf(c->name, sizeof(c->name), "%s", name);
        for (char *p = c->name; *p; p++)
            if ((unsigned char)*p < 0x20 || *p == 0x7f) *p = ' ';
    }
    if (rc != 0) c->nredirects = 0;
    json_decref(j);
    return rc;
}

/* ---- 4. PKCE ---------------------------------------------------------------------------- */

bool mg_as_pkce_ok(const char *verifier, const char *challenge)
{
    size_t n = strlen(verifier);
    if (n < 43 || n > 128) return false;
    for (const char *p = verifier; *p; p++)
        if (!(('A' <= *p && *p <= 'Z') || ('a' <= *p && *p <= 'z') || ('0' <= *p && *p <= '9') || strchr("-._~", *p)))
            return false;
    unsigned char h[crypto_hash_sha256_BYTES];
    crypto_hash_sha256(h, (const unsigned char *)verifier, n);
    char b64[64];
    sodium_bin2base64(b64, sizeof(b64), h, sizeof(h), sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    size_t cn = strlen(challenge);
    return cn == strlen(b64) && sodium_memcmp(b64, challenge, cn) == 0;
}
