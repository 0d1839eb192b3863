/* extract.h — knowledge extraction's parts that need no server (tools/
 * only, and the tests and fuzz targets): the prompt's fixed text and the
 * strict reading of a completion.
 *
 * A completion must be a JSON array of objects {"key": string, "value":
 * string} and nothing else (surrounding white space, and one Markdown code
 * fence around it, are allowed: models add them). Anything else is
 * llm_bad_response and nothing is written. Entries are then judged one by
 * one: a key that is not a valid note key (1-256 bytes, no control
 * characters), a value that is empty or over MG_NOTE_VALUE_MAX, a key given
 * twice, and entries past `max` are skipped with a reason.
 */
#ifndef MG_TOOLS_EXTRACT_H
#define MG_TOOLS_EXTRACT_H

#include <stddef.h>

#include "util/err.h"

#define MG_EXTRACT_MAX_ENTRIES 1000 /* a completion listing more is malformed */

struct mg_extracted {
    char *key, *value;   /* as the completion gave them (malloc'd) */
    const char *skip;    /* NULL: to write; else why not (a static string) */
};

/* 0 with *out (n entries, in the completion's order), or -1 with
 * llm_bad_response (err says what is wrong, never quoting the text). */
int mg_extract_parse(const char *text, size_t len, size_t max, struct mg_extracted **out, size_t *n,
                     struct mg_err *err);
void mg_extracted_free(struct mg_extracted *v, size_t n);

/* The system prompt: what to extract, as JSON, and that the episodes are data. */
extern const char mg_extract_system_prompt[];

#endif
