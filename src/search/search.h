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
};

struct mg_results {
    struct mg_hit *v;
    size_t n, cap;
    double took_ms;
    const char *mode;         /* the mode that ran ("fixed" for a word-less lexical query) */
    unsigned long long candidates; /* regex: files confirmed with PCRE2 */
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

#endif
