/* search_int.h — what the files of search share: one repo's search, the
 * hits they build, and each mode's entry (the files of search/; search.h is the
 * contract outside).
 *
 * mg_search (search.c) opens each repo's handle into a struct mg__repo and
 * runs one mode on it: lexical.c, regex.c, symbol.c (with the identifier,
 * path and graph probes hybrid search adds), semantic.c, or fusion.c
 * (hybrid: the others' lists fused by rank). Each mode keeps its own state
 * in a small context of its own; hits.c builds hits, reads stored text
 * (one file at a time, cached) and cuts snippets. The SQL they run is
 * store/indexdb.h's.
 */
#ifndef MG_SEARCH_INT_H
#define MG_SEARCH_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "search/chunkset.h"
#include "search/search.h"
#include "search/texts.h"
#include "store/indexdb.h"

#define MAX_FILE_TEXT (64u << 20)
#define MG__TEXTS 24                /* stored texts a search keeps unpacked, at most ... */
#define MG__TEXTS_BYTES (16u << 20) /* ... and bytes (a text larger is kept alone)      */
#define LEX_TIES_MAX 64 /* rows tied with the last one a list may read past its limit (lexical.c) */

/* A query word a hit's lines are matched by: its whole form and its parts
 * (tokenize.h), lowercased (hits.c). */
#define MW_WORDS_MAX 32
#define MW_PARTS_MAX 16
struct mg__mword {
    char *whole;
    char *parts[MW_PARTS_MAX];
    size_t nparts;
};

/* How a chunk hit picks its line and its matching lines: the query's
 * tokens (sorted, strcmp) and, with lines, its words (hits.c). Built from
 * each query a mode runs on the repo, kept for the repo's search. */
struct mg__terms {
    char **tok;
    size_t ntok;
    bool lines;             /* list each hit's matching lines (search.h), by the words */
    struct mg__mword *mw;
    size_t nmw;
};

/* One repo's search: what every mode reads. */
struct mg__repo {
    const struct mg_config *cfg;
    const struct mg_repo *repo;
    struct mg_db *d;
    const struct mg_search_req *q; /* the request's flags (each mode takes its query text as an argument) */
    struct mg_filter filter;
    struct mg_err *err;
    struct mg_chunkset *chunks;    /* the filter's chunks, once a search needs them */
    struct mg__text {              /* files' stored texts, unpacked (mg__file_text): the whole-file
                                    * list's second pass reads the files the hits then show */
        int64_t id;
        struct mg_text *t;         /* a reference (search/texts.h) */
    } texts[MG__TEXTS];
    size_t ntexts, texts_bytes; /* (oldest first) */
    bool texts_alone;              /* config rank_off=texts: no text shared with other searches */
    bool lines_all;                /* config rank_off=lines: every line of a hit split into words */
    struct mg__terms terms;
    bool whole_read;               /* lexical or hybrid search: files scored whole (filerank_whole.c) */
};

void mg__repo_release(struct mg__repo *r);

/* ---- hits.c: hits, stored text, snippets ---- */

/* A new zeroed hit at the end of r (NULL: out of memory). */
struct mg_hit *mg__hit_new(struct mg_results *r);
/* The stored text of file id into *t (search/texts.h: the text, its
 * lowercased copy, the counts of words kept on it), unpacked by this search
 * or, unless texts_alone, by an earlier one; the last MG__TEXTS read are
 * kept, within MG__TEXTS_BYTES: valid until the next call. 0, 1 when the
 * file is no longer in the index (a re-index removed or replaced it after
 * the caller found its id), or -1 (r->err). */
int mg__file_text(struct mg__repo *r, int64_t id, struct mg_text **t);
/* Lines [first, last] of t as a snippet (each cut to a line's maximum);
 * from is the start of line from_line. NULL: out of memory. */
char *mg__snippet_lines(const char *t, size_t len, size_t from, int from_line, int first, int last);
/* Append line `line` of t (starting at byte ls) to h's matching lines, or
 * count it past MG_MATCH_LINES_MAX. 0, or -1 out of memory. */
int mg__hit_add_line(const struct mg__repo *r, struct mg_hit *h, const char *t, size_t len, size_t ls, int line);
/* The query's tokens into r->terms (added to those already there). */
int mg__terms_add(struct mg__repo *r, const char *query);
/* The words a lexical hit's lines are matched by (once). */
int mg__terms_words(struct mg__repo *r, const char *query);
/* A hit for the chunk row (mg_idx_chunk_hit's) with its score; its best
 * line, snippet and (terms.lines) matching lines are left to
 * mg__hits_text (a list ranks more hits than it shows, and a hit's text
 * costs its file's text unpacked and its lines tokenized). 0 or -1 (r->err). */
int mg__chunk_hit(struct mg__repo *r, struct mg_results *out, const struct mg_idx_row *row, double score);
/* The best line, snippet and (terms.lines) matching lines of the hits
 * out->v[base..n) that mg__chunk_hit left unread, each file's text
 * unpacked once; the hits of files no longer in the index are dropped.
 * 0 or -1 (r->err). */
int mg__hits_text(struct mg__repo *r, struct mg_results *out, size_t base);

/* ---- the modes: each appends at most limit hits (more when tied) to out ---- */

/* lexical.c; lines: list matching lines. base: out->n when the repo's
 * search began (a later pass may drop the hits after it). */
int mg__lexical(struct mg__repo *r, const char *query, struct mg_results *out, size_t base, int limit);
/* Whether every word of q has more than min_rows rows (lexical.c): 1, 0, -1. */
int mg__words_all_common(struct mg__repo *r, const char *q, size_t max, double min_rows);
/* regex.c */
int mg__regex(struct mg__repo *r, const char *pattern, bool fixed, bool caseless, struct mg_results *out,
              size_t base, int limit);
/* symbol.c: names like the query; subword_rows_max > 0: skip the sub-word
 * step when the query's words are all that common */
int mg__symbol(struct mg__repo *r, const char *query, struct mg_results *out, int limit, double subword_rows_max);
/* symbol.c: the definitions of the identifiers prose names (how many, 0: none) */
int mg__idents(struct mg__repo *r, const char *query, struct mg_results *out, int limit);
/* symbol.c: of the files the lists found, those the query's words name, and
 * those around the best ones in the names graph: whole-file hits */
int mg__paths(struct mg__repo *r, const char *query, const struct mg_results *const *found, size_t nfound,
              struct mg_results *out, int limit);
int mg__graph(struct mg__repo *r, const struct mg_results *const *found, size_t nfound, struct mg_results *out,
              int limit);
/* semantic.c: start (0; 1 when hybrid goes on without vectors; -1) and
 * finish; top holds the search's semantic_* counts */
struct mg_semantic_job;
int mg__semantic_start(struct mg__repo *r, const char *query, struct mg_results *top, int limit, bool required,
                       bool background, struct mg_semantic_job **job);
int mg__semantic_finish(struct mg__repo *r, struct mg_semantic_job *job, struct mg_results *out, int limit, bool ties);
bool mg__semantic_failed(const struct mg__repo *r, struct mg_results *top, const struct mg_err *e);
int mg__semantic(struct mg__repo *r, const char *query, struct mg_results *top, struct mg_results *out, int limit);
/* filerank.c: one repo's ranked hits out->v[base..), best first by cmp, the
 * first MG__RANK_POOL of them weighed by their files' roles and summed per
 * file; fused by file rank with the files scored whole (lexical and hybrid
 * search, r->whole_read), whose best chunks join the pool when they rank
 * within limit (config rank_off switches each off); the rest after them in their
 * order: pages stay prefix-stable, as the modes are asked for at least the
 * pool. 0, or -1 (r->err). */
#define MG__RANK_POOL 50
int mg__rank_files(struct mg__repo *r, struct mg_results *out, size_t base, int limit,
                   int (*cmp)(const void *, const void *));
/* fusion.c: reciprocal rank, 1 / (k + rank) with config hybrid_rrf_k (rank from 1) */
double mg__rrf(const struct mg_config *cfg, double rank);
/* fusion.c: hybrid; *semantic_repos counts the repos that had vectors */
int mg__hybrid(struct mg__repo *r, struct mg_results *top, int *semantic_repos, struct mg_results *out, size_t base,
               int limit);

#endif
