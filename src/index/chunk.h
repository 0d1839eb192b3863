/* chunk.h — cut a file into search chunks and list its symbols.
 *
 * For a language with a grammar, the file is parsed with tree-sitter (C, C++
 * and Java through their outline, outline.h) and chunks follow definitions:
 *   - a definition that fits the caps (max_lines, max_bytes) is one chunk,
 *     together with the comment lines directly above it;
 *   - a container that does not fit (a long class, impl, namespace) is split
 *     into its members' chunks plus window chunks for what lies between
 *     them, attributed to the container;
 *   - any other definition that does not fit is split into windows of
 *     max_lines lines, each attributed to it;
 *   - text outside definitions is cut into windows of MG_WINDOW_LINES lines
 *     (whitespace-only stretches are skipped).
 * Every other text file is cut into windows only. A window never passes
 * max_bytes: long lines are split at UTF-8 boundaries.
 *
 * Chunks never overlap and are in file order. Symbols are every definition
 * (macros included) with its line range and container.
 */
#ifndef MG_CHUNK_H
#define MG_CHUNK_H

#include <stddef.h>
#include <stdint.h>
#include <tree_sitter/api.h>

#include "index/defs.h"
#include "index/lang.h"

#define MG_WINDOW_LINES 60

struct mg_chunk {
    uint32_t start_byte, end_byte; /* [start, end) in the text */
    uint32_t start_line, end_line; /* 1-based, inclusive */
    int def;                       /* index in mg_parsed.defs.v, or -1 */
};

struct mg_parsed {
    struct mg_chunk *chunks;
    size_t nchunks, capchunks;
    struct mg_defs defs;    /* offsets are source offsets */
    uint32_t *def_lines;    /* per def: start line, end line (2 entries) */
    uint32_t nlines;
    int parse_failed;       /* 1: tree-sitter gave up (timeout); windows only */
};

struct mg_chunk_opts {
    int max_lines;
    size_t max_bytes;
    uint64_t parse_timeout_us; /* 0: none */
};

/* Chunk text[0..len) (valid UTF-8) of language lang. parser is the calling
 * thread's TSParser (may be NULL for languages without a grammar). Returns 0
 * or -1 when memory runs out. */
int mg_chunk_file(const struct mg_lang *lang, const char *text, size_t len, const struct mg_chunk_opts *o,
                  TSParser *parser, struct mg_parsed *out);
void mg_parsed_release(struct mg_parsed *p);

#endif
