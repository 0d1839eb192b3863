/* json.h — small helpers on jansson shared by every layer that writes JSON.
 */
#ifndef MG_JSON_H
#define MG_JSON_H

#include <jansson.h>

/* A JSON string of s (new reference); invalid UTF-8 (say, quoted hostile
 * input, or a message cut mid-character) is repaired with U+FFFD rather
 * than lost. Never NULL unless memory runs out. */
json_t *mg_json_text(const char *s);

#endif
