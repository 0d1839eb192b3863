/* model_tokens.c — the tokens the code model reads (model.c), and training
 * reads through model/tokens.c: store/tokenize.h's tokens of a text (whole
 * identifiers and their sub-words, lower-cased), without one-letter tokens
 * and numbers, each hashed (XXH3) into one of 2^bits buckets. A file of its
 * own so that the training helper links without the model it makes. */
#include <stdint.h>
#include <xxhash.h>

#include "embed/embedder.h"
#include "store/tokenize.h"

struct toks {
    uint32_t *ids;
    size_t n, cap;
    uint32_t mask;
};

static int tok_cb(void *ctx, const char *tok, size_t len, size_t s, size_t e, bool colocated)
{
    struct toks *t = ctx;
    if (len < 2 || mg_token_is_number(tok, len)) return 0;
    if (t->n == t->cap) return 1; /* enough: the rest of the text is not read */
    t->ids[t->n++] = (uint32_t)XXH3_64bits(tok, len) & t->mask;
    return 0;
}

size_t mg_model_tokens(const char *text, size_t len, unsigned bits, uint32_t *ids, size_t cap)
{
    struct toks t = {ids, 0, cap, (1u << bits) - 1};
    if (cap) mg_tokenize(text, len, tok_cb, &t);
    return t.n;
}
