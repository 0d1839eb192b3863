/* repomap.h — the repo map: a repo's most central files and their most used
 * definitions, ranked by PageRank over the graph of which file uses names
 * another file defines, rendered to fit a token budget.
 *
 * The graph comes from table refs (index/refs.h): for every file, the names
 * it defines and the names it uses. A use of name n by file s is an edge
 * from s to each file defining n, of weight
 *     class(n) * focus(n) * sqrt(uses of n in s) / (files defining n)
 * where class is 10 for specific names (snake_case or camelCase of 8 bytes
 * or more), 0.1 for names starting with '_', else 1 (but 0 when s never
 * calls it nor names it after struct/union/enum/class: a plain word such
 * as `ctx` is most often a local variable), and focus is 10 for a focus
 * symbol. Names defined in more than MG_REPOMAP_DEFINERS_MAX files are
 * not followed (`init`, `probe`: they say nothing about one file).
 * PageRank (damping 0.85) runs over the files the filter allows, with a
 * uniform teleport, or one that goes to the focus files and to the files
 * defining the focus symbols (the rank of files that use no name goes to
 * all files alike, focus or not). A definition's score is the rank that flows
 * into its name, shared among the name's files.
 *
 * The graph of an index generation is cached in the process (by database
 * path, index_gen and indexed_at), with the ranks of the whole repo without
 * focus; a scoped or focused map reuses the graph and ranks again. Every
 * graph built is also saved, with those ranks, in a file beside the index
 * (DB.map; nothing is written to the index itself), and a full index run
 * saves its graph at its end (mg_repomap_save; not a run that touched under
 * 1% of the files when one is saved: code/code.c): a process's first map
 * reads that file instead of building. After the index changed, a call with
 * stale_ok is answered from the older generation's graph (cached or saved)
 * at once (`stale`: a changed file may show its old place or be left out;
 * definitions and lines are read from the index as it is now) while the new
 * graph is built in the background (in this process, on a connection of its
 * own) for the calls after it; without stale_ok it is built first.
 */
#ifndef MG_REPOMAP_H
#define MG_REPOMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/db.h"
#include "util/err.h"

#define MG_REPOMAP_BUDGET_MIN    32    /* tokens (about 4 bytes each) */
#define MG_REPOMAP_BUDGET_MAX    65536
#define MG_REPOMAP_FOCUS_MAX     64    /* focus files, and focus symbols */
#define MG_REPOMAP_DEFINERS_MAX  64
#define MG_REPOMAP_DEFS_PER_FILE 8     /* definitions shown per file at most */
#define MG_REPOMAP_LINE_MAX      120   /* bytes of a definition's line shown */

struct mg_repomap_in {
    int64_t budget_tokens;                   /* MG_REPOMAP_BUDGET_MIN .. MAX */
    const char *const *focus_files;          /* paths relative to the root */
    size_t nfocus_files;
    const char *const *focus_symbols;        /* names, as defined */
    size_t nfocus_symbols;
    bool stale_ok;                           /* an older generation's graph may answer (above): a server */
};

struct mg_repomap_def {
    char *name, *kind;
    int line, end_line;
    double score;
    char *text;                              /* the definition's first line, trimmed */
};

struct mg_repomap_file {
    char *path, *lang;
    double rank;                             /* its PageRank (the ranks of the files in scope sum to 1) */
    struct mg_repomap_def *defs;             /* its best definitions, by line */
    size_t ndefs;
};

struct mg_repomap {
    struct mg_repomap_file *files;           /* by rank, best first */
    size_t n;
    char *text;                              /* the rendered map: per file its path, then "  LINE: text" */
    size_t len;
    int64_t tokens;                          /* text's estimate: ceil(len / 4) */
    size_t considered;                       /* files in scope the graph holds */
    bool cached;                             /* the graph (and, unfocused, the ranks) came from the cache */
    bool stale;                              /* it is an older generation's (stale_ok) */
    bool truncated;                          /* ranked files were left out for the budget */
};

/* The map of d's index within f (NULL: everything). Errors: invalid_argument
 * (budget, focus counts), focus_not_found, repo_map_unavailable (an index
 * made before schema 3 that no full run has filled: run `memgate index`). */
int mg_repomap(struct mg_db *d, const struct mg_filter *f, const struct mg_repomap_in *in, struct mg_repomap *out,
               struct mg_err *err);
void mg_repomap_release(struct mg_repomap *m);

/* Build the graph of the index at dbpath as it is now, rank it, save it
 * beside the index (dbpath + ".map", replacing the old one whole) and cache
 * it: the end of a full index run. -1 when it cannot be built or saved (the
 * maps still work: the next one builds). */
int mg_repomap_save(const char *dbpath, struct mg_err *err);
/* Whether a saved graph of any generation is beside the index at dbpath
 * (its header reads as one): a run that changed little leaves the current
 * one to the first map (code/code.c). */
bool mg_repomap_saved_any(const char *dbpath);

/* Whether data[0 .. len) reads as a saved graph: the checks a saved file
 * passes before it is used (the fuzz target). */
int mg_repomap_saved_check(const void *data, size_t len, struct mg_err *err);

/* Forget every cached graph (tests). */
void mg_repomap_cache_clear(void);

#endif
