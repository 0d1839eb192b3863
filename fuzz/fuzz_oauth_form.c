/* fuzz_oauth_form.c — the authorization server's form parser
 * (src/oauth/as.h: the token, revocation and consent endpoints' bodies). A
 * parsed form holds at most MG_AS_FORM_FIELDS fields, each name non-empty
 * and unique, no value longer than the input; PKCE's check runs on the
 * first two values. Nothing may crash or leak. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "oauth/as.h"

MG_FUZZ_TARGET(oauth_form)
{
    struct mg_as_form f;
    struct mg_err err = {0};
    if (mg_as_form_parse((const char *)data, size, &f, &err) != 0) {
        if (!err.code) abort();
        return 0;
    }
    if (size > MG_AS_FORM_MAX || f.n > MG_AS_FORM_FIELDS) abort();
    for (size_t i = 0; i < f.n; i++) {
        if (!f.name[i][0] || strlen(f.value[i]) > size || mg_as_form_get(&f, f.name[i]) != f.value[i]) abort();
    }
    if (f.n >= 2) mg_as_pkce_ok(f.value[0], f.value[1]);
    mg_as_form_release(&f);
    return 0;
}
