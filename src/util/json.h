/* json.h — small helpers on jansson shared by every layer that writes JSON.
 */
#ifndef MG_JSON_H
#define MG_JSON_H

#include <jansson.h>

/* A JSON string of s (new reference); invalid UTF-8 (say, quoted hostile
 * input, or a message cut mid-character) is repaired with U+FFFD rather
 * than lost. Never NULL unless memory runs out. */
json_t *mg_json_text(const char *s);

/* The flags every JSON memgate prints (/v1 bodies, the command line's
 * --json) is dumped with: compact, reals to 6 significant digits ("score":
 * 48.007, not 48.006999999999998). MCP's structuredContent keeps them exact. */
#define MG_JSON_DUMP (JSON_COMPACT | JSON_REAL_PRECISION(6))

/* json_dumps(v, flags) and json_dumpb(v, NULL, 0, flags), the same bytes, at
 * a fraction of jansson's cost on long strings (json_dump.c) when flags are
 * JSON_COMPACT with any of JSON_REAL_PRECISION, JSON_ENCODE_ANY and
 * JSON_PRESERVE_ORDER; other flags are jansson's own. NULL / 0: v cannot be
 * dumped (a string not UTF-8, no memory). The caller frees the text. */
char *mg_json_dumps(const json_t *v, size_t flags);
size_t mg_json_size(const json_t *v, size_t flags);

#endif
