/* search.h — lexical, regex and symbol search over one or more repos.
 *
 * lexical  FTS5 BM25 over chunks with identifier-aware tokens (tokenize.h);
 *          the symbol name weighs 8x and the path 2x the body. All words
 *          must match; when none does, any may. A query with no word at all
 *          ("->", "&&") is searched as a fixed string.
 * regex    PCRE2 (UTF, multiline); the trigram index (trigram.h) narrows the
 *          files to those that hold what every match must contain (rxlit.h),
 *          PCRE2 confirms. `fixed` treats the query as a literal string.
 * symbol   the symbols table: exact name, then case-insensitive, then
 *          prefix, then sub-word matches (`HttpHeader` finds parseHttpHeader).
 *
 * Path globs, exclude globs and languages are applied inside the SQL of each
 * query (mg_filter_ok), never after it; repos are separate databases.
 * Results are one per chunk (lexical, regex) or per definition (symbol).
 *
 * Matches: a lexical, regex or fixed-string hit lists the lines of its chunk
 * that match (at most MG_MATCH_LINES_MAX, each cut like a snippet line, in
 * file order) and counts its matches:
 *   regex    every PCRE2 match that starts in the chunk (a match over several
 *            lines lists its first line); a line is listed once;
 *   lexical  every word of the chunk that matches a word of the query: the
 *            same word, a word holding it as a part (`lock` in spin_lock),
 *            or one holding all its parts (parse_http_header for
 *            parseHttpHeader). A natural-language query's English function
 *            words are left out (mg_query_content_words).
 * Regex and fixed-string search also count the matches in the scope past
 * the limit: mg_results.total_matches, exact unless total_capped. Counting
 * past the limit reads at most MG_COUNT_BYTES_MAX more file text per repo
 * and stops once the count passes MG_TOTAL_MATCHES_MAX (and a file counts
 * at most 10,000; one too costly for PCRE2 is skipped); total_capped then
 * says the count is a lower bound. (Reading further costs: on Linux, 256
 * KiB adds a median 7% to a regex search, 1 MiB 23%, 4 MiB 84%.)
 */
#ifndef MG_SEARCH_H
#define MG_SEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/catalog.h"
#include "util/config.h"
#include "util/err.h"

/* semantic  chunks by cosine between the embedded query and their vectors
 *           (docs/semantic.md); no_embeddings when the repo has none.
 * hybrid    reciprocal rank fusion of lexical, symbol and semantic
 *           (hybrid.h); lexical alone in a repo without vectors.
 * auto      hybrid for a natural-language query (mg_query_is_natural),
 *           else lexical: the default of `memgate search` and search_code. */
struct mg_db_pool;

enum mg_mode { MG_MODE_LEXICAL, MG_MODE_REGEX, MG_MODE_SYMBOL, MG_MODE_SEMANTIC, MG_MODE_HYBRID, MG_MODE_AUTO };

#define MG_MATCH_LINES_MAX 20      /* matching lines listed per hit */
#define MG_TOTAL_MATCHES_MAX 1000     /* regex: counting past the limit stops after this many matches ... */
#define MG_COUNT_BYTES_MAX (256u << 10) /* ... or this much file text read past it (per repo) */

struct mg_search_req {
    const char *query;
    enum mg_mode mode;
    const char *const *globs;
    size_t nglobs;
    const char *const *excludes;
    size_t nexcludes;
    const char *const *langs;
    size_t nlangs;
    int limit;          /* 0: config search_limit */
    bool fixed;         /* regex mode: the query is a literal string */
    bool ignore_case;   /* regex mode: case-insensitive */
    struct mg_db_pool *pool; /* where the repos' handles come from (NULL: opened for the call) */
    int64_t deadline_ms;     /* waiting for a handle ends then (CLOCK_MONOTONIC ms; 0: never) */
    bool no_match_lines;     /* hits without match_lines (the counts stay) */
    /* hybrid: a repo whose vectors are not in memory yet is searched by words
     * at once while they load in the background (mg_results.semantic_loading);
     * a server sets it. Without it, the search waits for them. */
    bool vectors_nowait;
};

struct mg_hit_line {
    int line;
    char *text;               /* the line, cut at 240 bytes (with "…") */
};

struct mg_hit {
    char repo[MG_ID_MAX + 1];
    char *path;
    char *language;
    int start_line, end_line; /* the chunk's (or definition's) lines */
    int line;                 /* the line the snippet centres on */
    char *symbol;             /* enclosing definition, or NULL */
    char *kind;
    double score;             /* higher is better */
    char *snippet;            /* a few lines of text ... */
    int snippet_line;         /* ... starting at this line */
    bool stale;               /* the file on disk is not what was indexed (size or mtime moved, or gone) */
    /* lexical, regex, fixed: the matches in the chunk (see above) */
    int match_count;
    struct mg_hit_line *lines; /* the matching lines, at most MG_MATCH_LINES_MAX ... */
    int nlines;
    int lines_omitted;         /* ... and how many more matched */
    /* hybrid: the hit's place (1-based) in each list fused, 0 when not in it */
    int rank_lexical, rank_semantic, rank_symbol;
    int role;                  /* its file's role as indexed (index/role.h; 0: read it from the path) */
    /* a chunk hit whose line, snippet and matching lines are not read yet
     * (mg_search reads them for the hits it returns only): its file's id
     * and the chunk's bytes; text_file 0 once read, or for other hits */
    int64_t text_file;
    int64_t text_start, text_end;
};

struct mg_results {
    struct mg_hit *v;
    size_t n, cap;
    double took_ms;
    const char *mode;         /* the mode that ran ("fixed" for a word-less lexical query) */
    unsigned long long candidates; /* regex: files confirmed with PCRE2 */
    long long total_matches;  /* regex, fixed: matches in the whole scope (-1: not counted) */
    bool total_capped;        /* ... at least that many: counting stopped early */
    /* hybrid with vectors_nowait: repos searched by words only because their
     * vectors were still loading, and the loads' progress (vectors loaded of
     * the total; the total is 0 until a load has counted them) */
    int semantic_loading;
    unsigned long long vectors_loaded, vectors_total;
    /* hybrid: repos searched by words only because the embedder or their
     * external vector store (vector/vext.h) failed; what failed ("embedder",
     * "chroma", "qdrant") and the error code of the last such failure
     * (static strings) */
    int semantic_unavailable;
    const char *semantic_source, *semantic_error;
};

/* Parse "lexical" / "regex" / "symbol" / "semantic" / "hybrid" / "auto".
 * -1 with invalid_mode otherwise. */
int mg_mode_parse(const char *s, enum mg_mode *out, struct mg_err *err);

/* Validate the request (query present, under max_query_bytes, valid UTF-8;
 * languages known; limit in range; globs compile). */
int mg_search_validate(const struct mg_config *c, const struct mg_search_req *q, struct mg_err *err);

int mg_search(const struct mg_config *c, const struct mg_repo *repos, size_t nrepos, const struct mg_search_req *q,
              struct mg_results *out, struct mg_err *err);
void mg_results_release(struct mg_results *r);
/* Free what one hit owns (hybrid.c's fusion drops hits one by one). */
void mg_hit_release(struct mg_hit *h);

#endif
