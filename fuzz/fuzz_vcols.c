/* fuzz_vcols.c — the vectors' column file (vector/vstore.h, the file beside
 * an index) on hostile input: a damaged or forged file is refused (1: not
 * this generation's; -1 with an error), or read into a set that is safe to
 * search (the sanitizers check every access). The key, repo and generation
 * are fixed; the corpus starts from a real file written with them (dim 8,
 * 40 vectors in 5 files). */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "vector/vstore.h"

MG_FUZZ_TARGET(vcols)
{
    unsigned char key[MG_VKEY_BYTES];
    memset(key, 7, sizeof(key));
    float q[8] = {0.5f, 0, -0.5f, 0, 0.5f, 0, 0, -0.5f};
    struct mg_vset *s = NULL;
    struct mg_err err = {0};
    int rc = mg_vcols_parse(data, size, "fuzz", "1:fuzz", key, q, 8, &s, &err);
    if (rc < 0 && (!err.code || !err.msg[0])) abort();
    if (rc == 0) {
        struct mg_vmatch m[4];
        if (mg_vset_search(s, q, NULL, 0, 4, m) < 0) abort();
        float all[8] = {1, 1, 1, 1, 1, 1, 1, 1};
        mg_vcols_parse(data, size, "fuzz", "1:fuzz", key, all, 8, &s, &err); /* the other columns */
        mg_vset_unref(&s);
    }
    return 0;
}
