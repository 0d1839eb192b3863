/* test_fuzz_corpus.c — replay every fuzz target over its kept corpus
 * (fuzz/corpus/<name>/) and over a few hostile generated inputs, so crashes
 * found by `make fuzz` stay fixed. */
#include "test.h"
#include "../fuzz/fuzz.h"

#include <dirent.h>

static size_t replay_dir(const struct mg_fuzz_target *t, const char *dir)
{
    DIR *d = opendir(dir);
    size_t n = 0;
    if (!d) return 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.') continue;
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        FILE *f = fopen(path, "rb");
        if (!f) continue;
        static uint8_t buf[1 << 20];
        size_t len = fread(buf, 1, sizeof(buf), f);
        fclose(f);
        uint8_t *copy = malloc(len ? len : 1); /* exact-size copy so ASan sees overreads */
        memcpy(copy, buf, len);
        t->fn(copy, len);
        free(copy);
        n++;
    }
    closedir(d);
    return n;
}

TEST_T(fuzz_corpus_replay, 600)
{
    size_t n;
    const struct mg_fuzz_target *t = mg_fuzz_targets(&n);
    ASSERT_GE_INT(n, 1);
    for (size_t i = 0; i < n; i++) {
        char dir[512];
        snprintf(dir, sizeof(dir), "fuzz/corpus/%s", t[i].name);
        size_t files = replay_dir(&t[i], dir);
        /* hostile shapes every target must survive: empty, all-NUL, all-0xff,
         * deep nesting, long runs of one byte */
        static const char *shapes[] = {"", "(((((((((((((((((((((((", "[[[[[[[[[[[[[[",
                                       "{{{{{{{{{{{{{{{{{{{{", "\\", "*", "**/**/**", "\"\"\"",
                                       "a|b|c|(d|e)*"};
        for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
            size_t len = strlen(shapes[s]);
            uint8_t *copy = malloc(len ? len : 1);
            memcpy(copy, shapes[s], len);
            t[i].fn(copy, len);
            free(copy);
        }
        for (int b = 0; b < 3; b++) {
            size_t len = 70000;
            uint8_t *big = malloc(len);
            memset(big, b == 0 ? 0 : b == 1 ? 0xff : '(', len);
            t[i].fn(big, len);
            free(big);
        }
        printf("%s: %zu corpus files\n", t[i].name, files);
    }
}
