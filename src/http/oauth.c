/* oauth.c — OAuth 2.1 on the HTTP side (src/oauth/oauth.h does the token
 * checks): the protected resource metadata document MCP clients discover
 * the authorization server by (RFC 9728), and the Bearer challenge of a 401
 * that points them to it. */
#include "http/internal.h"

#include <stdio.h>
#include <string.h>

#include "oauth/oauth.h"

enum MHD_Result mg__oauth_metadata(struct mg_http *h, struct MHD_Connection *c, struct req *r, const char *url,
                                   const char *method)
{
    if (!h->oauth || !mg_oauth_is_metadata_path(h->oauth, url))
        return mg__respond_error(c, r, 404, MG_E_ROUTE_NOT_FOUND,
                                 h->oauth ? "no protected resource metadata at %.200s; it is at %s"
                                          : "no route %.200s: OAuth is off on this server (oauth_issuer is empty)%s",
                                 url, h->oauth ? mg_oauth_metadata_url(h->oauth) : "");
    if (strcmp(method, "OPTIONS") == 0) return mg__oauth_preflight(c, r, "GET, OPTIONS");
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
        json_t *j = json_pack("{s:{s:s, s:s}}", "error", "code", MG_E_METHOD_NOT_ALLOWED, "message",
                              "only GET is allowed here");
        return mg__respond_json_h(c, r, 405, j, "Allow", "GET, HEAD", NULL, NULL);
    }
    json_t *j = mg_oauth_metadata(h->oauth);
    if (!j) return mg__respond_error(c, r, 500, MG_E_NO_MEMORY, "out of memory");
    return mg__respond_json(c, r, 200, j);
}

void mg__oauth_challenge(const struct mg_http *h, const char *error, char *buf, size_t cap)
{
    int n = snprintf(buf, cap, "Bearer realm=\"memgate\"");
    if (n < 0 || (size_t)n >= cap) return;
    if (h->oauth)
        n += snprintf(buf + n, cap - (size_t)n, ", resource_metadata=\"%s\"",
                      mg_oauth_metadata_url(h->oauth));
    if (error && (size_t)n < cap) snprintf(buf + n, cap - (size_t)n, ", error=\"%s\"", error);
}
