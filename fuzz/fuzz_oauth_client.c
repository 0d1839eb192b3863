/* fuzz_oauth_client.c — client metadata (src/oauth/as.h): a registration
 * request (RFC 7591) and a Client ID Metadata Document are both checked by
 * mg_as_client_parse; the first line is also tried as a client_id URL. A
 * client that parses has 1..MG_AS_REDIRECTS redirect URIs, none empty or
 * with a fragment, and a printable name. Nothing may crash or leak. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "oauth/as.h"

MG_FUZZ_TARGET(oauth_client)
{
    char url[MG_AS_URI_MAX + 2];
    const char *nl = memchr(data, '\n', size);
    size_t n = nl ? (size_t)(nl - (const char *)data) : size;
    if (n < sizeof(url)) {
        memcpy(url, data, n);
        url[n] = 0;
        if (mg_as_client_id_url(url, true) && (strlen(url) > MG_AS_URI_MAX || strchr(url, '#'))) abort();
        if (mg_as_client_id_url(url, false) && strncmp(url, "https://", 8) != 0) abort();
    }
    for (int reg = 0; reg < 2; reg++) {
        struct mg_as_client c;
        struct mg_err err = {0};
        if (mg_as_client_parse((const char *)data, size, reg, &c, &err) != 0) {
            if (!err.code || c.nredirects) abort();
            continue;
        }
        if (!c.nredirects || c.nredirects > MG_AS_REDIRECTS) abort();
        for (size_t i = 0; i < c.nredirects; i++)
            if (!c.redirect[i][0] || strchr(c.redirect[i], '#')) abort();
        for (const char *p = c.name; *p; p++)
            if ((unsigned char)*p < 0x20) abort();
    }
    return 0;
}
