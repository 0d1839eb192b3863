/* filerank_int.h — what the file-level ranking's files share (filerank.c,
 * filerank_whole.c): a list of files, each with a score and its best chunk.
 */
#ifndef MG_FILERANK_INT_H
#define MG_FILERANK_INT_H

#include "search/search_int.h"

struct mg__rfile {
    double score;
    int64_t best;     /* its best chunk (the pool's: an index into its by-file order) */
    int64_t file;     /* its id (0: not known) */
    const char *path; /* borrowed: the pool's, or the list's own (mg__flist.paths) */
    int rank_pool;    /* the file's place in the pool's order (1-based) */
};

/* A list of files, best first, fused with the pool's by reciprocal rank. */
struct mg__flist {
    struct mg__rfile *v;
    size_t n;
    char **paths; /* the paths the list owns (npaths of them) */
    size_t npaths;
};

void mg__flist_release(struct mg__flist *l);

/* A hit in a file of this role counts this much, unless the query asks for the role. */
#define MG__ROLE_WEIGHT 0.5
/* score weighed by the role of a file (flags' role bits, 0: read from path) for the query's asked roles */
double mg__role_weigh(double score, int role, const char *path, unsigned asked, unsigned off);

/* filerank_list.c: */
/* best first, ties by path: the same for any thread count */
int mg__cmp_rfile(const void *a, const void *b);
/* Of the files v[0..n) (score, best and file id set, no path), the best
 * MG__RANK_POOL into *out, best first, ties by path (file ids follow the
 * writer's order): the paths are read for those and the ones tied with the
 * last only. Sorts v. 0, or -1 (r->err). */
int mg__flist_keep(struct mg__repo *r, struct mg__rfile *v, size_t n, struct mg__flist *out);

/* filerank_whole.c: every file holding one of the query's words scored as
 * one document (BM25 over its chunks, see there), the best MG__RANK_POOL of
 * them into *out, best first, ties by path. 0, or -1 (r->err). */
int mg__whole_files(struct mg__repo *r, unsigned off, struct mg__flist *out);

#endif
