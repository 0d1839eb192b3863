/* fuzz.h — libFuzzer targets, also replayed by `make test`.
 *
 * A target is `MG_FUZZ_TARGET(name) { ... return 0; }` in fuzz/fuzz_<name>.c.
 * `make fuzz` builds each with clang -fsanitize=fuzzer and grows its corpus in
 * fuzz/corpus/<name>/; the test suite replays every kept corpus file through
 * every target (tests/test_fuzz_corpus.c), so a past crash stays fixed.
 */
#ifndef MG_FUZZ_H
#define MG_FUZZ_H

#include <stddef.h>
#include <stdint.h>

typedef int (*mg_fuzz_fn)(const uint8_t *data, size_t size);

struct mg_fuzz_target {
    const char *name;
    mg_fuzz_fn fn;
};

void mg_fuzz_register(const char *name, mg_fuzz_fn fn);
/* All registered targets; *n receives the count. */
const struct mg_fuzz_target *mg_fuzz_targets(size_t *n);

#define MG_FUZZ_TARGET(name)                                                 \
    static int fuzz_##name(const uint8_t *data, size_t size);               \
    __attribute__((constructor)) static void fuzz_reg_##name(void)          \
    {                                                                       \
        mg_fuzz_register(#name, fuzz_##name);                               \
    }                                                                       \
    static int fuzz_##name(const uint8_t *data, size_t size)

#endif
