/* fuzz_rules.c — the secret rules-file parser and compiler on hostile text;
 * a rule set that loads is also run over the input itself. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "security/scan.h"

MG_FUZZ_TARGET(rules)
{
    struct mg_scanner *s = NULL;
    struct mg_err err;
    if (mg_scanner_new((const char *)data, size, &s, &err) == 0) {
        mg_scan(s, (const char *)data, size, NULL, NULL, &err);
        mg_scanner_free(s);
    }
    return 0;
}
