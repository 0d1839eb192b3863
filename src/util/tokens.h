/* tokens.h — how many tokens a text costs a model, counted from above.
 *
 * Budgets (repo_map's and get_context's budget_tokens) hold for what the
 * agent reads, in the tokens of the models that read it. memgate has no
 * model's vocabulary, so it counts the way byte-pair tokenizers split text
 * (the cl100k and o200k pre-tokenizers: words, digit groups of three, runs
 * of punctuation, whitespace) and gives each piece at least what those
 * tokenizers spend on it: a lower-case word a token per 4 letters, an
 * upper-case one a token per 2, a run that changes case often (base64, hex
 * ids) 3 tokens per 4 letters, a long run of mixed cases and digits
 * (base64, keys) 3 tokens per 4 characters, punctuation a token per 2
 * characters, a character beyond ASCII 3 tokens per 4 bytes. Measured against js-tiktoken
 * on 7,662 pieces of 2 KB of C, Python, JavaScript, Markdown and the Linux
 * kernel: never under either encoding, 1.4 times them on average
 * (bench/tools_tokens.mjs prints the ratio on memgate's own answers).
 *
 * Pure and thread-safe.
 */
#ifndef MG_TOKENS_H
#define MG_TOKENS_H

#include <stddef.h>

/* The tokens of the n bytes at s (UTF-8; other bytes count as a token each). */
size_t mg_tokens(const char *s, size_t n);

/* The same for a NUL-terminated string (NULL: 0). */
size_t mg_tokens_str(const char *s);

#endif
