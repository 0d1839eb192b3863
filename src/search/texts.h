/* texts.h — files' stored texts, unpacked once for every search of the
 * process (search/texts.c): kept by the index, file id and content hash of
 * the row they came from, the least recently used dropped first. Thread-safe. */
#ifndef MG_SEARCH_TEXTS_H
#define MG_SEARCH_TEXTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mg_text {
    char *text;  /* NUL-terminated */
    char *lower; /* the same lowercased as tokens are (mg_token_lower), for counting a query's words in it;
                  * NULL when there was no memory for it */
    size_t len;
};

/* The text of file id, whose row in the index at dbpath has this content
 * hash and size, as an earlier search unpacked it, with a reference the
 * caller drops with mg_text_unref; NULL when none is kept. */
struct mg_text *mg_texts_find(const char *dbpath, int64_t id, uint64_t hash, int64_t size);
/* text[0..len) (malloc'd; the cache's from now on) for that file, with a
 * reference and its lowercased copy: kept for later searches when keep is
 * set and it fits, else freed with the last reference. NULL when out of
 * memory (text freed). */
struct mg_text *mg_texts_add(const char *dbpath, int64_t id, uint64_t hash, int64_t size, char *text, size_t len,
                             bool keep);
/* Drop a reference (NULL: nothing). */
void mg_text_unref(struct mg_text *t);
/* Words counted in a text, kept on it for later searches: the whole-file
 * list counts the query's words in its best files' text (filerank_whole.c),
 * and an agent's next searches ask the same words of the same files. A
 * count is the text's own (its bytes, as the tokenizer splits them), so it
 * holds for as long as the text does. The counts kept on t of the tokens
 * toks[0..n) (lens[k] bytes, at most MG_TOKEN_MAX) into counts[k]; returns
 * the mask of those not kept (bit k: toks[k]; n at most 64). */
uint64_t mg_text_counts_get(struct mg_text *t, const char *const *toks, const size_t *lens, size_t n,
                            double *counts);
/* Keep counts[k] on t for the tokens of mask (at most MG_TEXT_COUNTS a text, the oldest replaced). */
void mg_text_counts_put(struct mg_text *t, const char *const *toks, const size_t *lens, uint64_t mask,
                        const double *counts);
#define MG_TEXT_COUNTS 16
/* Counts kept on all texts (the tests read it). */
size_t mg_text_counts_kept(void);
/* Drop what is kept of the index at dbpath (its repo removed; texts still read are freed by their
 * last reader). */
void mg_texts_forget(const char *dbpath);
/* Bytes of text kept for later searches, the lowercased copies included (the tests read it). */
size_t mg_texts_kept_bytes(void);

#endif
