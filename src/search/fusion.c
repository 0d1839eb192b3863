/* fusion.c — hybrid search: the lexical, symbol and semantic lists of one
 * repo, with the path and graph probes, fused by rank (search/hybrid.h's
 * mg_rrf_fuse); the vectors are scanned on a thread of their own meanwhile
 * (search_int.h). */
#include "search/search_int.h"

#include <stdlib.h>
#include <string.h>

#include "search/hybrid.h"

/* rows each of a hybrid query's words may hold at most for its symbol
 * list's sub-word step (mg__symbol): about 5 ms of reading them */
#define HYBRID_SUBWORD_ROWS_MAX 150000.0
#define PATH_FILES_MAX 10 /* files the path and graph probes name that count */
#define HYBRID_DEPTH 50   /* the fused lists' depth (at least) */

double mg__rrf(const struct mg_config *cfg, double rank)
{
    return 1.0 / ((cfg->hybrid_rrf_k > 0 ? cfg->hybrid_rrf_k : MG_RRF_K) + rank);
}

/* Hybrid: lexical, symbol and semantic lists fused by rank (hybrid.h); the
 * vectors are scanned on a thread of their own meanwhile. The symbol list of
 * prose that names code (a bug report) is the definitions of the
 * identifiers it names. */
int mg__hybrid(struct mg__repo *r, struct mg_results *top, int *semantic_repos, struct mg_results *out, size_t base,
               int limit)
{
    const char *query = r->q->query;
    struct mg_results lex = {.mode = "lexical"}, sym = {.mode = "symbol"}, sem = {.mode = "semantic"},
                      paths = {.mode = "path"}, graph = {.mode = "graph"};
    /* the lists' depth does not follow the limit below HYBRID_DEPTH: a deeper list would add candidates to the
     * fusion and move the ranks, and pages (a limit of offset + limit + 1) must be prefix-stable */
    int depth = limit < HYBRID_DEPTH ? HYBRID_DEPTH : limit;
    struct mg_semantic_job *job;
    int rc = mg__semantic_start(r, query, top, depth, false, true, &job);
    if (rc == 1) { /* no vectors here: this repo is searched as lexical search would (its hits list their
                    * lines), so the answer is lexical search's */
        r->terms.lines = true;
        return mg__lexical(r, query, out, base, limit);
    }
    if (rc == 0) {
        /* the lexical and symbol halves search the content words: function
         * words of a question match most chunks and rank nothing */
        (*semantic_repos)++;
        size_t cap = strlen(query) + 1;
        char *words = malloc(cap);
        const char *lq = query;
        if (!words) rc = mg_err_oom(r->err);
        else if (mg_query_content_words(query, 0, words, cap) > 0) lq = words;
        if (rc == 0) {
            rc = mg__lexical(r, lq, &lex, 0, depth);
            lex.mode = "lexical";
        }
        if (rc == 0) {
            rc = mg__idents(r, query, &sym, depth);
            if (rc == 0) rc = mg__symbol(r, lq, &sym, depth, HYBRID_SUBWORD_ROWS_MAX);
            else if (rc > 0) rc = 0;
        }
        /* (a started scan is always waited for) */
        struct mg_err first = *r->err;
        int sr = mg__semantic_finish(r, job, &sem, depth, false);
        if (sr != 0 && mg__semantic_failed(r, top, r->err)) { /* the store failed mid-search: the words' lists stand */
            sr = 0;
            mg_results_release(&sem);
            sem = (struct mg_results){.mode = "semantic"};
            (*semantic_repos)--;
            *r->err = first;
        }
        if (rc == 0) rc = sr;
        else *r->err = first;
        const struct mg_results *found[] = {&lex, &sem, &sym};
        if (rc == 0) rc = mg__paths(r, lq, found, 3, &paths, PATH_FILES_MAX);
        if (rc == 0 && r->cfg->hybrid_weight[4] > 0) rc = mg__graph(r, found, 3, &graph, PATH_FILES_MAX);
        free(words);
    }
    struct mg_results *lists[] = {&lex, &sem, &sym, &paths, &graph};
    if (rc == 0 && mg_rrf_fuse(lists, 5, limit, r->cfg->hybrid_weight, r->cfg->hybrid_rrf_k, out) != 0)
        rc = mg_err_oom(r->err);
    mg_results_release(&paths);
    mg_results_release(&graph);
    mg_results_release(&lex);
    mg_results_release(&sym);
    mg_results_release(&sem);
    return rc;
}
