/* repomap_int.h — what the repo map's files share (search/repomap*.c).
 *
 * A map (repomap.c) ranks the files of a repo by PageRank over the graph of
 * the names they define and use, and renders the best ones. The graph is
 * built from the refs rows (repomap_graph.c, which also ranks it), cached
 * per database and index generation, and saved beside the index for the
 * next process (repomap_saved.c).
 */
#ifndef MG_REPOMAP_INT_H
#define MG_REPOMAP_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "search/repomap.h"

#define STOP 0xff /* ncls of a stop word (index/refs.h): never followed */
#define MAX_FILE_TEXT (64u << 20)
#define FILES_MAX (1u << 30) /* files a graph holds at most */

/* PageRank's arrays for one graph (section 3): a graph keeps one spare set
 * for its next ranking. Tens of MB on a large repo: fresh ones cost more
 * page faults than the ranking itself. */
struct rank_work {
    uint32_t *dn;               /* per name: its definers in scope */
    float *wn;                  /* per use: its share of the file's rank */
    double *r, *nr, *nin, *tp;  /* per file: rank, next rank; per name: inflow; per file: teleport */
    uint8_t *dangling;          /* per file: uses no followed name */
};

struct graph {
    char path[4096];
    int64_t gen, at;            /* index_gen and indexed_at it was built from */
    int refs;                   /* holders (the cache is one); under cache_mu */
    size_t nf;                  /* files (nodes) */
    int64_t *fid;
    char **fpath, **flang;
    size_t nn;                  /* names defined somewhere */
    size_t nused;               /* the names some use follows: indexes 0 .. nused - 1 */
    uint32_t *nhash;
    uint8_t *ncls;              /* MG_REFS_* class, or STOP */
    uint32_t *doff, *dfile;     /* name n's definers: dfile[doff[n] .. doff[n + 1]), by file */
    uint64_t *lookup;           /* hash << 32 | name index, by hash (nn of them) */
    uint32_t *uoff, *uname;     /* file s's uses: uname[uoff[s] .. uoff[s + 1]), names followed */
    uint16_t *ucnt;             /* uses << 1 | strong (index/refs.h) */
    pthread_mutex_t mu;         /* rank0 */
    double *rank0, *nin0;       /* ranks and name inflow of the whole repo without focus; NULL: not yet */
    struct rank_work *spare;    /* under cache_mu; NULL: none */
    void *saved;                /* a saved graph's bytes (2b) that the arrays above point into; NULL: built */
    size_t mapped;              /* saved is the file mapped, of this length (0: malloc'd) */
};

struct rank_in {
    const uint8_t *allowed;    /* per file; NULL: all */
    const double *teleport;    /* per file, sums to 1 over allowed files; NULL: uniform */
    const uint8_t *focus_name; /* per name: a focus symbol; NULL: none */
};

/* Guards graphs' reference counts, their spare rank work and the cache. */
extern pthread_mutex_t mg__rmap_mu;

/* ---- repomap_graph.c: the graph and its ranking ---- */

void mg__rmap_graph_free(struct graph *g);
/* The index of name hash h, or -1. */
int64_t mg__rmap_name_find(const struct graph *g, uint32_t h);
/* The graph of d's refs rows. */
int mg__rmap_graph_build(struct mg_db *d, struct graph **out, struct mg_err *err);
/* PageRank's arrays for g: its spare set, or new ones; back with work_put. */
struct rank_work *mg__rmap_work_get(struct graph *g, struct mg_err *err);
void mg__rmap_work_put(struct graph *g, struct rank_work *w);
void mg__rmap_pagerank(const struct graph *g, const struct rank_in *in, struct rank_work *w);
/* The ranks of the whole repo without focus (g->rank0, g->nin0), once. */
int mg__rmap_rank_whole(struct graph *g, struct mg_err *err);

/* ---- repomap_saved.c: cached and saved graphs ---- */

/* Drop a reference to g (the last frees it). */
void mg__rmap_graph_put(struct graph *g);
/* d's graph for index generation gen (indexed at `at`): cached, saved or
 * built; stale_ok takes an older one while a new one is built in the
 * background (*stale). A new reference (mg__rmap_graph_put). */
int mg__rmap_graph_get(struct mg_db *d, int64_t gen, int64_t at, bool stale_ok, struct graph **out, bool *cached,
                       bool *stale, struct mg_err *err);

#endif
