/* fuzz_extract.c — what a model answers knowledge extraction (tools/
 * extract.c, util/llm.c) on hostile input. The first byte picks the parser:
 * even, a chat endpoint's answer body (mg_llm_parse_chat); odd, a
 * completion's notes (mg_extract_parse, with a cap of (byte >> 1) % 8 + 1). */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "provider/provider.h"
#include "tools/extract.h"
#include "util/llm.h"

MG_FUZZ_TARGET(extract)
{
    if (size < 1) return 0;
    const char *s = (const char *)data + 1;
    size_t n = size - 1;
    struct mg_err err = {0};
    if ((data[0] & 1) == 0) {
        char *t = NULL;
        if (mg_llm_parse_chat(s, n, &t, &err) == 0) {
            /* a success is non-empty text within the cap, without a NUL */
            if (!t || !*t || strlen(t) > MG_LLM_MAX_COMPLETION) abort();
            free(t);
        } else if (!err.code) {
            abort();
        }
        return 0;
    }
    size_t max = (size_t)((data[0] >> 1) % 8) + 1, m = 0, writable = 0;
    struct mg_extracted *v = NULL;
    if (mg_extract_parse(s, n, max, &v, &m, &err) != 0) {
        if (!err.code || v || m) abort();
        return 0;
    }
    for (size_t i = 0; i < m; i++) {
        if (!v[i].key || !v[i].value) abort();
        if (v[i].skip) continue;
        /* what is written is a valid note */
        size_t kl = strlen(v[i].key), vl = strlen(v[i].value);
        if (kl < 1 || kl > MG_NOTE_KEY_MAX || vl < 1 || vl > MG_NOTE_VALUE_MAX) abort();
        for (size_t k = 0; k < kl; k++)
            if ((unsigned char)v[i].key[k] < 0x20 || v[i].key[k] == 0x7f) abort();
        for (size_t j = 0; j < i; j++)
            if (!v[j].skip && strcmp(v[j].key, v[i].key) == 0) abort();
        writable++;
    }
    if (writable > max) abort();
    mg_extracted_free(v, m);
    return 0;
}
