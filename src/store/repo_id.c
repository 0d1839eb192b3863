/* repo_id.c — repo names and ids (store/catalog.h): a name is what a caller
 * chooses, an id is a name or TENANT~NAME (issue 38 V9: ids per tenant). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "store/catalog.h"
#include "util/word.h"

int mg_repo_check_name(const char *name, struct mg_err *err)
{
    if (!mg_word_okn(name, strlen(name), MG_NAME_MAX, true))
        return mg_err_set(err, MG_E_NAME_INVALID, "repo name '%.80s' is not valid: use 1-%d characters of a-z, 0-9, "
                          "'.', '_', '-', starting with a letter or digit", name, MG_NAME_MAX);
    return 0;
}

int mg_repo_check_id(const char *id, struct mg_err *err)
{
    const char *sep = strchr(id, MG_ID_SEP);
    if (sep && mg_word_okn(id, (size_t)(sep - id), MG_ID_MAX - MG_NAME_MAX - 1, false) &&
        mg_word_okn(sep + 1, strlen(sep + 1), MG_NAME_MAX, true))
        return 0;
    if (!sep && mg_word_okn(id, strlen(id), MG_NAME_MAX, true)) return 0;
    return mg_err_set(err, MG_E_NAME_INVALID, "repo id '%.140s' is not valid: a name of 1-%d characters of a-z, 0-9, "
                      "'.', '_', '-' starting with a letter or digit, or TENANT~NAME", id, MG_NAME_MAX);
}

void mg_repo_qualify(const char *tenant, const char *name, char *out, size_t cap)
{
    if (!tenant || strcmp(tenant, "local") == 0 || strchr(name, MG_ID_SEP)) snprintf(out, cap, "%s", name);
    else snprintf(out, cap, "%s%c%s", tenant, MG_ID_SEP, name);
}

const char *mg_repo_name_of(const char *id)
{
    const char *sep = strchr(id, MG_ID_SEP);
    return sep ? sep + 1 : id;
}
