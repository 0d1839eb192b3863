/* fuzz_audit_line.c — the audit line parser `memgate audit --verify` uses. */
#include "fuzz.h"
#include "security/audit.h"

#include <string.h>

MG_FUZZ_TARGET(audit_line)
{
    struct mg_audit_line l;
    char why[160];
    if (mg_audit_parse_line((const char *)data, size, &l, why, sizeof(why)) == MG_AUDIT_OK) {
        /* a line that verifies has what the chain needs */
        if (l.seq < 1 || !l.op || strlen(l.prev) != 64 || strlen(l.hash) != 64) __builtin_trap();
        mg_audit_line_release(&l);
    }
    return 0;
}
