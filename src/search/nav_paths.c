/* nav_paths.c — the shortest call paths between two functions (nav.h's
 * mg_nav_trace): breadth first over the callees nav_calls.c finds.
 *
 * Sections:
 *   1. paths
 */
#include "search/nav_int.h"

#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "store/tokenize.h"

/* ---- 1. paths -------------------------------------------------------------------------------------- */

/* The edge that reached edge p's caller (-1: p starts at a root). */
static ssize_t edge_up(const struct mg_nav_graph *g, struct mg_nav_def *const *visited, const ssize_t *parent,
                       size_t nvisited, ssize_t p)
{
    const struct mg_nav_def *fr = g->v[p].from;
    for (size_t k = 0; k < nvisited; k++)
        if (visited[k] == fr) return parent[k];
    return -1;
}

int mg_nav_trace(struct mg_db *d, const struct mg_filter *f, const char *qfrom, const char *qto, int max_depth,
                 size_t max_paths, double deadline, struct mg_nav_paths *out, struct mg_err *err)
{
    memset(out, 0, sizeof(*out));
    char from[MG_TOKEN_MAX * 4], to[MG_TOKEN_MAX * 4];
    if (mg__nav_plain_name(qfrom, from, sizeof(from), err) != 0 || mg__nav_plain_name(qto, to, sizeof(to), err) != 0 ||
        mg__nav_clamp_depth(max_depth, err) != 0)
        return -1;
    if (max_paths == 0) max_paths = 1;
    struct nav v;
    struct mg_nav_graph *g = &out->g;
    int rc = mg__nav_open(&v, d, f, deadline, err);
    if (rc == 0) rc = mg__nav_roots(&v, g, from, NULL, NULL);
    /* breadth first over definitions; parent[i]: the edge that reached visited[i] */
    struct mg_nav_def **visited = NULL;
    ssize_t *parent = NULL;
    size_t nvisited = 0, capvisited = 0, head = 0;
    int *level = NULL;
    for (size_t i = 0; rc == 0 && i < g->ndefs; i++) {
        if (nvisited == capvisited) {
            capvisited = capvisited ? capvisited * 2 : 64;
            visited = realloc(visited, capvisited * sizeof(*visited));
            parent = realloc(parent, capvisited * sizeof(*parent));
            level = realloc(level, capvisited * sizeof(*level));
            if (!visited || !parent || !level) rc = mg_err_oom(err);
        }
        if (rc == 0) {
            visited[nvisited] = g->defs[i];
            parent[nvisited] = -1;
            level[nvisited++] = 0;
        }
    }
    int found_at = -1;
    while (rc == 0 && head < nvisited) {
        if (found_at >= 0 && level[head] >= found_at) break; /* every shortest path is in */
        if (level[head] >= max_depth) break;
        if (mg__nav_late(deadline) || head >= MG_NAV_NODES_MAX) {
            out->truncated = true;
            break;
        }
        struct mg_nav_def *node = visited[head];
        size_t e0 = g->n;
        if (mg__nav_calls_of(&v, g, SIZE_MAX, level[head] + 1, node, NULL, NULL, NULL) != 0) {
            rc = -1;
            break;
        }
        out->visited++;
        for (size_t e = e0; e < g->n && rc == 0; e++) {
            struct mg_nav_def *t = g->v[e].to;
            if (!t) continue;
            bool known = false;
            for (size_t k = 0; k < nvisited && !known; k++) known = visited[k] == t;
            if (known && strcmp(t->name, to) != 0) continue;
            if (nvisited == capvisited) {
                capvisited *= 2;
                struct mg_nav_def **nv = realloc(visited, capvisited * sizeof(*nv));
                ssize_t *np = realloc(parent, capvisited * sizeof(*np));
                int *nl = realloc(level, capvisited * sizeof(*nl));
                if (nv) visited = nv;
                if (np) parent = np;
                if (nl) level = nl;
                if (!nv || !np || !nl) {
                    rc = mg_err_oom(err);
                    break;
                }
            }
            visited[nvisited] = t;
            parent[nvisited] = (ssize_t)e;
            level[nvisited] = level[head] + 1;
            if (strcmp(t->name, to) == 0 && out->n < max_paths) {
                if (found_at < 0) found_at = level[head] + 1;
                /* the path: edges back to a root */
                size_t len = 0;
                for (ssize_t p = (ssize_t)e; p >= 0; p = edge_up(g, visited, parent, nvisited, p)) len++;
                struct mg_nav_edge *path = calloc(len, sizeof(*path));
                size_t *nl = realloc(out->len, (out->n + 1) * sizeof(*nl));
                if (nl) out->len = nl;
                struct mg_nav_edge **np = realloc(out->paths, (out->n + 1) * sizeof(*np));
                if (np) out->paths = np;
                if (!path || !nl || !np) {
                    free(path);
                    rc = mg_err_oom(err);
                    break;
                }
                size_t i = len;
                for (ssize_t p = (ssize_t)e; p >= 0; p = edge_up(g, visited, parent, nvisited, p))
                    path[--i] = g->v[p]; /* a copy: g->v may still move; its strings stay g's */
                out->paths[out->n] = path;
                out->len[out->n++] = len;
            }
            nvisited++;
        }
        head++;
    }
    free(visited);
    free(parent);
    free(level);
    mg__nav_close(&v);
    if (rc != 0) mg_nav_paths_release(out);
    return rc;
}
