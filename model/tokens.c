/* tokens.c — the code model's tokens of texts, for model/train.py: reads
 * texts from stdin, each ended by a NUL byte, and writes for each one line
 * of its token ids (mg_model_tokens: the buckets the model reads, in order),
 * space-separated. So training sees exactly the tokens memgate embeds.
 *
 * usage: build/model/tokens BITS MAX_TOKENS < texts > ids */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "embed/embedder.h"

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: tokens BITS MAX_TOKENS < NUL-separated texts\n");
        return 2;
    }
    unsigned bits = (unsigned)atoi(argv[1]);
    size_t cap = (size_t)atol(argv[2]);
    if (bits < 8 || bits > 20 || cap < 1 || cap > (1u << 20)) {
        fprintf(stderr, "tokens: BITS 8..20, MAX_TOKENS 1..1048576\n");
        return 2;
    }
    uint32_t *ids = malloc(cap * sizeof(uint32_t));
    size_t tcap = 1 << 16, n = 0;
    char *t = malloc(tcap);
    if (!ids || !t) return 1;
    int c;
    while ((c = getchar()) != EOF) {
        if (c) {
            if (n + 1 == tcap) {
                char *nt = realloc(t, tcap *= 2);
                if (!nt) return 1;
                t = nt;
            }
            t[n++] = (char)c;
            continue;
        }
        size_t k = mg_model_tokens(t, n, bits, ids, cap);
        for (size_t i = 0; i < k; i++) printf(i ? " %u" : "%u", ids[i]);
        putchar('\n');
        n = 0;
    }
    free(ids);
    free(t);
    return 0;
}
