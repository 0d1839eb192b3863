/* lre.h — a PCRE2 program compiled when it is first used.
 *
 * A one-shot command (`memgate search`) runs a handful of the ~300 secret
 * and injection regexes on a few results; compiling and JIT-compiling all of
 * them up front was a third of its CPU. An mg_lre holds the source and
 * compiles (and JIT-compiles, when the CPU allows) on the first
 * mg_lre_get, under one process-wide mutex, so concurrent first uses compile
 * once. Compiling at init instead (`now`) is for regexes that must be
 * validated when they are loaded (a user's rules file).
 */
#ifndef MG_LRE_H
#define MG_LRE_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mg_lre {
    char *src;         /* owned, NUL-terminated */
    uint32_t opts;     /* pcre2_compile options */
    uint32_t jit_opts; /* pcre2_jit_compile options (PCRE2_JIT_COMPLETE, ...) */
    pcre2_code *_Atomic re;
    bool jit;          /* re was JIT-compiled (set before re is published) */
    bool bad;          /* the source does not compile (a lazy one: get gives NULL) */
};

/* Take a copy of src. now: compile at once; on a compile error -1 with
 * PCRE2's message and the offset in why (l is then released). -2 when out
 * of memory (why says so). */
int mg_lre_init(struct mg_lre *l, const char *src, uint32_t opts, uint32_t jit_opts, bool now, char *why, size_t cap);
/* The compiled program (compiling it now if needed), or NULL when its source
 * does not compile or memory runs out. *jit: it is JIT-compiled. */
const pcre2_code *mg_lre_get(struct mg_lre *l, bool *jit);
void mg_lre_release(struct mg_lre *l);

#endif
