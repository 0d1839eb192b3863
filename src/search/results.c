/* results.c — releasing search hits and result lists (search.h): shared by
 * search.c and hybrid.c, which both build and drop hits. */
#include "search/search.h"

#include <stdlib.h>
#include <string.h>

void mg_hit_release(struct mg_hit *h)
{
    free(h->path);
    free(h->language);
    free(h->symbol);
    free(h->kind);
    free(h->snippet);
    for (int i = 0; i < h->nlines; i++) free(h->lines[i].text);
    free(h->lines);
}

void mg_results_release(struct mg_results *r)
{
    for (size_t i = 0; i < r->n; i++) mg_hit_release(&r->v[i]);
    free(r->v);
    memset(r, 0, sizeof(*r));
    r->total_matches = -1;
}
