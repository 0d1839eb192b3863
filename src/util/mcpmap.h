/* mcpmap.h — how an external MCP server's tool call is made and how its
 * answer becomes code hits (the mapping of config keys
 * mcp_provider.NAME.arguments and mcp_provider.NAME.result; docs/providers.md).
 *
 * Arguments: a JSON object. In every string value of it (at any depth),
 * {query}, {limit}, {root} and {repo} are replaced by the request's query,
 * result count, repo root and repo id; a string that is exactly "{limit}"
 * becomes the number. The values are substituted into parsed strings, never
 * into JSON text, so a query cannot change the object's shape.
 *
 * Result (mcp_provider.NAME.result): MODE[;OPTION=VALUE]... where MODE is
 *   json:POINTER   structuredContent (else the first text content parsed as
 *                  JSON) at the JSON pointer (RFC 6901; "" or "/" the root)
 *                  is an array of objects; options name their members:
 *                  path (default "path"), start_line ("start_line"),
 *                  end_line ("end_line"), line ("line"), text ("snippet"),
 *                  score ("score")
 *   text:lines     each line of the text content is a path
 *   text:grep      each line is path:line:text (grep -n)
 * and option strip=PREFIX removes PREFIX from the start of each text line
 * (leading blanks of a text line are skipped, after it too).
 *
 * Caps: a mapping of at most MG_MCPMAP_SPEC_MAX bytes; an answer's items
 * stop at the caller's max (the rest are counted in *over).
 */
#ifndef MG_MCPMAP_H
#define MG_MCPMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "util/err.h"

#define MG_MCPMAP_SPEC_MAX 512
#define MG_MCPMAP_FIELD_MAX 64

enum mg_mcpmap_mode { MG_MCPMAP_JSON, MG_MCPMAP_LINES, MG_MCPMAP_GREP };

struct mg_mcpmap {
    enum mg_mcpmap_mode mode;
    char pointer[256];
    char path[MG_MCPMAP_FIELD_MAX], start_line[MG_MCPMAP_FIELD_MAX], end_line[MG_MCPMAP_FIELD_MAX],
        line[MG_MCPMAP_FIELD_MAX], text[MG_MCPMAP_FIELD_MAX], score[MG_MCPMAP_FIELD_MAX];
    char strip[MG_MCPMAP_FIELD_MAX];
};

/* Parse a result mapping; 0, or -1 with invalid_config (what names it). */
int mg_mcpmap_parse(const char *spec, struct mg_mcpmap *m, const char *what, struct mg_err *err);

/* Check an arguments template: a JSON object of at most 1 KiB. */
int mg_mcpmap_template_check(const char *tmpl, const char *what, struct mg_err *err);
/* The arguments for one call (new reference), or NULL when memory runs out
 * or the template does not parse. */
json_t *mg_mcpmap_arguments(const char *tmpl, const char *query, long limit, const char *root, const char *repo);

/* One hit of an answer; strings borrowed from the answer (valid during the
 * callback). line 0: not given. */
struct mg_mcpmap_hit {
    const char *path;
    size_t path_len;
    int64_t start_line, end_line, line;
    const char *text;
    size_t text_len;
    double score;
    bool has_score;
};

/* Walk a tools/call result (the JSON-RPC "result" object) with m: hit(ud,
 * h) for each hit, at most max; *over counts those past max. 0, or -1 with
 * provider_bad_response when the result is an error (isError), or has not
 * the shape the mapping expects. */
int mg_mcpmap_hits(const struct mg_mcpmap *m, json_t *result, size_t max, size_t *over,
                   void (*hit)(void *ud, const struct mg_mcpmap_hit *h), void *ud, struct mg_err *err);

#endif
