/* chunker.h — chunkers: how a language's files are cut, a registry by
 * language (seed 003 §2.4).
 *
 * A chunker finds a file's definitions (with their offsets in the text) and
 * says which lines are comments, so that the comment lines right above a
 * definition join its chunk; chunk.c does the cutting itself (chunks follow
 * definitions, windows fill the rest) the same way for every chunker. A
 * language without a chunker is cut in line windows only.
 *
 * Built in: a tree-sitter chunker for each language with a grammar (C and
 * C++ parse an outline with bodies elided, outline.h; Java too), with the
 * language's comment syntax. mg_chunker_register adds or replaces the
 * chunker of a language before indexing starts.
 *
 * Thread safety: lookups may run on any thread at any time; registering is
 * for start-up, before any index run.
 */
#ifndef MG_CHUNKER_H
#define MG_CHUNKER_H

#include <stdbool.h>
#include <stddef.h>

#include <tree_sitter/api.h>

#include "index/chunk.h"
#include "util/err.h"

struct mg_chunker;

struct mg_chunker_ops {
    /* The definitions of text[0..len) into *defs (offsets into text). 0, or
     * 1 when the text cannot be parsed (it is then cut in windows), or -1
     * when memory runs out. parser is the calling thread's. */
    int (*definitions)(const struct mg_chunker *c, const struct mg_lang *lang, const char *text, size_t len,
                       const struct mg_chunk_opts *o, TSParser *parser, struct mg_defs *defs);
    /* Is this line (without its newline) a comment? */
    bool (*comment_line)(const struct mg_chunker *c, const char *s, size_t n);
};

struct mg_chunker {
    const char *name;                  /* "tree-sitter", ... */
    const struct mg_chunker_ops *ops;
    const void *self;                  /* the chunker's own settings */
};

/* The chunker of a language, or NULL (line windows only). */
const struct mg_chunker *mg_chunker_for(const struct mg_lang *lang);
/* Make c (borrowed: it must outlive every index run) the chunker of the
 * language named `lang` (any of its names; NULL: none, line windows). 0,
 * or -1 with invalid_language. */
int mg_chunker_register(const char *lang, const struct mg_chunker *c, struct mg_err *err);

#endif
