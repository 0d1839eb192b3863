/* fuzz_mcpc.c — what an external MCP server sends (util/mcpc.h) on hostile
 * input: the first byte picks a line (JSON-RPC message) or an SSE body and
 * the id the call waits for; the rest is the bytes. */
#include <stdlib.h>

#include "fuzz.h"
#include "util/mcpc.h"

MG_FUZZ_TARGET(mcpc)
{
    if (size < 1) return 0;
    json_int_t id = (json_int_t)(data[0] >> 1);
    json_t *r = NULL;
    struct mg_err err = {0};
    const char *s = (const char *)data + 1;
    if (data[0] & 1) {
        int rc = mg_mcpc_parse_sse(s, size - 1, id, &r, &err);
        if (rc == 0 && !json_is_object(r)) abort(); /* an answer is a result object */
        if (rc != 0 && (r || !err.code)) abort();
    } else {
        int rc = mg_mcpc_parse_message(s, size - 1, id, &r, &err);
        if (rc == MG_MCPC_REPLY && !json_is_object(r)) abort();
        if (rc < 0 && (r || !err.code)) abort();
    }
    json_decref(r);
    return 0;
}
