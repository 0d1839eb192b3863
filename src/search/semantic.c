/* semantic.c — semantic search: the top chunks by cosine (search/hybrid.h's
 * scan of the repo's vectors), as hits like lexical ones; and how hybrid
 * search goes on by words when the repo has no vectors or the embedder or
 * the vector store fails (search_int.h). */
#include "search/search_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search/hybrid.h"

/* The embedder or an external vector store (vector/vext.h) failed: hybrid
 * answers by words, says so (top's semantic_*) and logs it; true when e is
 * that. */
bool mg__semantic_failed(const struct mg__repo *r, struct mg_results *top, const struct mg_err *e)
{
    static const char *const codes[] = {MG_E_EMBED_UNAVAILABLE, MG_E_EMBED_REJECTED, MG_E_EMBED_BAD_RESPONSE,
                                        MG_E_MODEL_INVALID, MG_E_VSTORE_UNAVAILABLE, MG_E_VSTORE_BAD_RESPONSE};
    size_t k = 0;
    while (k < 6 && (!e->code || strcmp(e->code, codes[k]) != 0)) k++;
    if (k == 6) return false;
    top->semantic_unavailable++;
    top->semantic_error = codes[k];
    top->semantic_source = k < 4                                        ? "embedder"
                           : strcmp(r->cfg->vector_store, "chroma") == 0 ? "chroma"
                           : strcmp(r->cfg->vector_store, "qdrant") == 0 ? "qdrant"
                                                                         : "vector_store";
    fprintf(stderr, "memgate: warning: %s: %s: %s; hybrid search answered by words alone\n", top->semantic_source,
            e->code, e->msg);
    return true;
}

/* Semantic: the top chunks by cosine, as lexical-style hits, in two steps
 * (hybrid runs its other searches while the vectors are scanned). start: 0,
 * 1 when the repo has no vectors, or (vectors_nowait) they are still
 * loading, and !required (hybrid goes on without them), -1 on error. */
int mg__semantic_start(struct mg__repo *r, const char *query, struct mg_results *top, int limit, bool required,
                       bool background, struct mg_semantic_job **job)
{
    *job = NULL;
    if (r->terms.ntok == 0 && mg__terms_add(r, query) != 0) return -1;
    struct mg_err e = {0};
    struct mg_vload l = {0};
    /* hybrid in a server does not wait for vectors still loading: it answers by words and says so */
    int rc = mg_semantic_start(r->cfg, r->d, r->repo->id, query, &r->filter, limit, background,
                               !required && r->q->vectors_nowait ? &l : NULL, job, &e);
    if (rc == 0) return 0;
    if (rc == 1) {
        top->semantic_loading++;
        top->vectors_loaded += l.done;
        top->vectors_total += l.total;
        return 1;
    }
    /* hybrid goes on by words when the repo has no vectors, or the embedder or the vector store fails */
    if (!required && e.code && strcmp(e.code, MG_E_NO_EMBEDDINGS) == 0) return 1;
    if (!required && mg__semantic_failed(r, top, &e)) return 1;
    *r->err = e;
    return -1;
}

/* ties: the job was started for limit + LEX_TIES_MAX; the hits past limit
 * tied with the last one come too (as lexical's), for the final sort's cut */
int mg__semantic_finish(struct mg__repo *r, struct mg_semantic_job *job, struct mg_results *out, int limit, bool ties)
{
    int k = limit + (ties ? LEX_TIES_MAX : 0);
    struct mg_vmatch *m = malloc((size_t)(k > 0 ? k : 1) * sizeof(*m));
    long n = mg_semantic_finish(job, m, r->err);
    if (!m) return mg_err_oom(r->err);
    int rc = n < 0 ? -1 : 0;
    for (long i = 0; rc == 0 && i < n; i++) {
        if (i >= limit && (i == 0 || m[i].score != m[limit - 1].score)) break;
        struct mg_idx_cur c;
        struct mg_idx_row row;
        if (mg_idx_chunk_hit(r->d, m[i].id, &c, r->err) != 0) {
            rc = -1;
            break;
        }
        if (mg_idx_next(&c, &row) > 0) rc = mg__chunk_hit(r, out, &row, m[i].score);
        /* (no row: a vector outliving its chunk; the next index prunes it) */
        mg_idx_done(&c);
    }
    free(m);
    return rc;
}

int mg__semantic(struct mg__repo *r, const char *query, struct mg_results *top, struct mg_results *out, int limit)
{
    /* vectors tied at the cut (identical text) are cut by position; the rows tied with the last one come
     * along so that the final sort (score, repo, path) cuts among them all: pages are prefix-stable */
    struct mg_semantic_job *job;
    int rc = mg__semantic_start(r, query, top, limit + LEX_TIES_MAX, true, false, &job);
    return rc != 0 ? rc : mg__semantic_finish(r, job, out, limit, true);
}
