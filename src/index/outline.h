/* outline.h — C-family source with function bodies elided, for fast parsing.
 *
 * tree-sitter parses C at about 5 MB/s on one core; most of that time goes
 * into function bodies and brace initializers, whose insides memgate does not
 * need from the tree (definitions and their extents are enough: chunks and
 * snippets come from the original text). mg_outline_build() removes the bytes
 * strictly between a body's `{` and its matching `}` so that tree-sitter sees
 * `int f(int a) {}`; parsing the outline is 4-5x faster and yields the same
 * definitions (tests/test_defs.c checks this against full parses). In plain
 * C, struct/union/enum bodies go too, and #define lines are listed rather
 * than parsed (flags below).
 *
 * A `{` is a body when the token before it is `)` (function, lambda, C++
 * constructor with initializer list), possibly followed by const / override /
 * final / noexcept / a Java `throws` clause, or `=` (initializer). Comments,
 * strings, char literals, C++ raw strings and preprocessor lines are skipped;
 * braces in `#else`/`#elif` branches are not counted (as ctags does), so
 * conditional code keeps braces balanced. When a body has no matching `}`,
 * nothing is removed for it.
 */
#ifndef MG_OUTLINE_H
#define MG_OUTLINE_H

#include <stddef.h>
#include <stdint.h>

struct mg_outline_seg {
    uint32_t out; /* offset of a kept run in the outline text */
    uint32_t src; /* its offset in the source */
};

/* A #define the outline took out of the text (MG_OUTLINE_MACROS). */
struct mg_outline_macro {
    uint32_t start, end;   /* source range: '#' to the end of the logical line */
    uint32_t name, nlen;   /* the macro name in the source */
};

struct mg_outline {
    char *text;                 /* the outline (NUL-terminated), malloc'd */
    size_t len;
    struct mg_outline_seg *seg; /* kept runs, ascending; seg[0] = {0, 0} */
    size_t nseg;
    struct mg_outline_macro *macros; /* top-level #defines, in source order */
    size_t nmacros;
};

/* Plain C (not C++ or Java): also elide struct, union and enum bodies,
 * which hold no definitions. */
#define MG_OUTLINE_C 1u
/* C and C++: take top-level #define directives out of the text and list them
 * in mg_outline.macros instead; the preprocessor's syntax is simple and exact,
 * and a header of 10,000 macros then costs tree-sitter next to nothing. */
#define MG_OUTLINE_MACROS 2u

/* Build the outline of src[0..len) (len < 4 GiB). Returns 0, or -1 when
 * memory runs out (o is then empty). */
int mg_outline_build(const char *src, size_t len, unsigned flags, struct mg_outline *o);
/* Map an outline offset back to the source: a start offset, or an
 * exclusive end offset (mg_outline_end_to_src). */
uint32_t mg_outline_to_src(const struct mg_outline *o, uint32_t off);
uint32_t mg_outline_end_to_src(const struct mg_outline *o, uint32_t end);
void mg_outline_release(struct mg_outline *o);

#endif
