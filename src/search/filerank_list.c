/* filerank_list.c — the lists of files the file-level ranking fuses
 * (filerank_int.h): a file's role weight, its path, the best files of a
 * list with their paths; for filerank.c and filerank_whole.c.
 */
#include "search/filerank_int.h"

#include <stdlib.h>
#include <string.h>

#include "index/role.h"
#include "util/config.h"

static double weigh(double score, double w) { return score >= 0 ? score * w : score / w; }

double mg__role_weigh(double score, int role, const char *path, unsigned asked, unsigned off)
{
    if (off & MG_RANK_ROLES) return score;
    if (!role && !path) return score;
    if (!role) role = (int)mg_file_role(path, NULL, 0);
    return role != MG_ROLE_SOURCE && !(asked & 1u << role) ? weigh(score, MG__ROLE_WEIGHT) : score;
}

void mg__flist_release(struct mg__flist *l)
{
    for (size_t i = 0; i < l->npaths; i++) free(l->paths[i]);
    free(l->paths);
    free(l->v);
    *l = (struct mg__flist){0};
}

int mg__cmp_rfile(const void *a, const void *b)
{
    const struct mg__rfile *x = a, *y = b;
    if (x->score != y->score) return x->score > y->score ? -1 : 1;
    return strcmp(x->path, y->path);
}

/* The path of file id into *path (caller frees; NULL: no such file). 0, or -1 (r->err). */
static int file_path(struct mg__repo *r, int64_t id, char **path)
{
    struct mg_idx_cur c = {0};
    struct mg_idx_row row;
    *path = NULL;
    if (mg_idx_file_by_id(r->d, id, 0, &c, r->err) != 0) return -1;
    int got = mg_idx_next(&c, &row), rc = 0;
    if (got > 0 && !(*path = strdup(row.path))) rc = mg_err_oom(r->err);
    mg_idx_done(&c);
    return got < 0 ? mg_db_error(r->d, "file ranking", r->err) : rc;
}

/* best first, ties by file id */
static int cmp_rfile_id(const void *a, const void *b)
{
    const struct mg__rfile *x = a, *y = b;
    if (x->score != y->score) return x->score > y->score ? -1 : 1;
    return (x->file > y->file) - (x->file < y->file);
}

int mg__flist_keep(struct mg__repo *r, struct mg__rfile *v, size_t n, struct mg__flist *out)
{
    *out = (struct mg__flist){0};
    if (n == 0) return 0;
    qsort(v, n, sizeof(*v), cmp_rfile_id);
    size_t keep = n < MG__RANK_POOL ? n : MG__RANK_POOL;
    while (keep < n && v[keep].score == v[keep - 1].score) keep++;
    out->v = calloc(keep, sizeof(*out->v));
    out->paths = calloc(keep, sizeof(*out->paths));
    if (!out->v || !out->paths) {
        mg__flist_release(out);
        return mg_err_oom(r->err);
    }
    for (size_t i = 0; i < keep; i++) {
        char *path;
        if (file_path(r, v[i].file, &path) != 0) {
            mg__flist_release(out);
            return -1;
        }
        if (!path) continue; /* (cannot happen: the read holds the index as it was) */
        out->paths[out->npaths++] = path;
        out->v[out->n] = v[i];
        out->v[out->n++].path = path;
    }
    qsort(out->v, out->n, sizeof(*out->v), mg__cmp_rfile);
    if (out->n > MG__RANK_POOL) out->n = MG__RANK_POOL;
    return 0;
}

