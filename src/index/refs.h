/* refs.h — which names a file defines and which it uses, as the index
 * stores them for the repo map (search/repomap.h).
 *
 * Per file with a lexer (index/lex.h) the indexer writes one row of table
 * `refs` (store/db.c, schema 3): two blobs of sorted 32-bit name hashes
 * (mg_refs_hash), each coded as varints of the gap to the previous hash:
 *   defs  the names of the file's definitions that other files can point
 *         at (mg_refs_definer: functions, methods, types, macros, file-scope
 *         variables, ...; not prototypes, fields or enumerators). Each gap
 *         is shifted left 2 bits to carry the name's class (MG_REFS_*).
 *   uses  the distinct identifiers of the file, outside comments and
 *         strings, that it does not define itself (any kind), of at least
 *         MG_REFS_MIN_NAME bytes and no keyword; each gap is followed by
 *         the number of uses (at most MG_REFS_COUNT_MAX) shifted left 1
 *         bit, the bit set when one use is strong: a call (`name(`) or a
 *         type named after struct, union, enum or class. A name used only
 *         otherwise is most often a local variable or a field: it is kept
 *         only when specific (MG_REFS_SPECIFIC), the one case a map weighs.
 * A file without a lexer (prose, data) has no row. The row is written and
 * deleted with the file's other rows, so it is as current as they are.
 */
#ifndef MG_REFS_H
#define MG_REFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "index/refs_ptr.h"

#define MG_REFS_MIN_NAME  3     /* shorter identifiers (i, x, fd) are not recorded */
#define MG_REFS_NAME_MAX  256   /* longer ones neither */
#define MG_REFS_COUNT_MAX 1000  /* uses of one name counted at most */

/* Name classes (2 bits), for the weight a repo map gives a name. */
#define MG_REFS_PLAIN    0 /* anything else */
#define MG_REFS_SPECIFIC 1 /* 8 bytes or more with '_' or a lower-upper change (snake_case, camelCase) */
#define MG_REFS_PRIVATE  2 /* starts with '_' */

/* The keywords and call-like words (`defined`, `likely`) never stored as
 * uses (NULL-terminated); a reader drops them too, for indexes made before
 * a word was added. */
extern const char *const mg_refs_stopwords[];

uint32_t mg_refs_hash(const char *name, size_t len);
int mg_refs_class(const char *name, size_t len);

/* May a definition of this kind (index/defs.h) be what a use of its name
 * points at? */
bool mg_refs_definer(const char *kind);

/* The two blobs of one file (malloc'd; NULL with length 0 when empty), and
 * in C and C++ the functions it stores into struct fields and its calls
 * through fields (refs_ptr.h: tables ptr_stores and ptr_calls, written with
 * the refs row). */
struct mg_refs_blobs {
    uint8_t *defs, *uses;
    size_t ndefs, nuses; /* bytes */
    struct mg_refs_store *stores, *calls;
    size_t nstores, ncalls;
};

/* Build the blobs of text in language lang from its definitions (names[i]
 * of kinds[i], n of them). 1 when lang has no lexer (nothing to store), 0
 * when built, -1 when memory ran out. */
int mg_refs_build(const char *lang, const char *text, size_t len, const char *const *names,
                  const char *const *kinds, size_t n, struct mg_refs_blobs *out);
void mg_refs_blobs_release(struct mg_refs_blobs *b);

/* Reading a blob: the next (hash, extra) pair, extra being the class (defs)
 * or count << 1 | strong (uses). false at the end or on a malformed blob. */
struct mg_refs_iter {
    const uint8_t *p, *end;
    uint32_t hash;
    bool uses;
};
void mg_refs_iter_init(struct mg_refs_iter *it, const void *blob, size_t len, bool uses);
bool mg_refs_next(struct mg_refs_iter *it, uint32_t *hash, uint32_t *extra);

#endif
