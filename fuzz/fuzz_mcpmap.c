/* fuzz_mcpmap.c — a result mapping and a tool's result (util/mcpmap.h) on
 * hostile input: up to the first newline a mapping (mcp_provider.NAME.result),
 * the rest a tools/call result as JSON. Every hit's path is non-empty and
 * inside the result; at most max hits. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "util/mcpmap.h"

struct count {
    size_t n;
};

static void on_hit(void *ud, const struct mg_mcpmap_hit *h)
{
    struct count *c = ud;
    if (!h->path || h->path_len == 0 || (h->text_len && !h->text)) abort();
    if (h->start_line < 0 || h->end_line < 0 || h->line < 0) abort();
    c->n++;
}

MG_FUZZ_TARGET(mcpmap)
{
    const char *s = (const char *)data, *nl = memchr(s, '\n', size);
    if (!nl || (size_t)(nl - s) >= MG_MCPMAP_SPEC_MAX) return 0;
    char spec[MG_MCPMAP_SPEC_MAX];
    memcpy(spec, s, (size_t)(nl - s));
    spec[nl - s] = 0;
    struct mg_mcpmap m;
    struct mg_err err = {0};
    if (mg_mcpmap_parse(spec, &m, "fuzz", &err) != 0) return 0;
    json_t *r = json_loadb(nl + 1, size - (size_t)(nl + 1 - s), 0, NULL);
    if (!r) return 0;
    struct count c = {0};
    size_t over = 0;
    if (mg_mcpmap_hits(&m, r, 5, &over, on_hit, &c, &err) == 0 && c.n > 5) abort();
    json_decref(r);
    /* the arguments template too: the spec line as a template */
    json_t *a = mg_mcpmap_arguments(spec, "q\"{root}", 3, "/r", "id");
    if (a && !json_is_object(a)) abort();
    json_decref(a);
    return 0;
}
