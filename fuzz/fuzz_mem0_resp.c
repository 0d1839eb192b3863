/* fuzz_mem0_resp.c — a Mem0 REST server's answer (memory/mem0.c) on
 * hostile input: a success has at most MG_MEM0_MAX_ROWS rows, each with a
 * valid id and a memory; a failure leaves nothing behind. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "memory/mem0.h"

MG_FUZZ_TARGET(mem0_resp)
{
    struct mg_mem0_rows r;
    struct mg_err err;
    if (mg_mem0_parse((const char *)data, size, &r, &err) == 0) {
        if (r.n > MG_MEM0_MAX_ROWS) abort();
        for (size_t i = 0; i < r.n; i++) {
            const char *id = r.v[i].id;
            if (!id || !r.v[i].memory || !*id || strlen(id) > 64 || strpbrk(id, "/?%#. ")) abort();
        }
        mg_mem0_rows_release(&r);
    } else if (r.n || r.v) {
        abort();
    }
    return 0;
}
