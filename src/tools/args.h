/* args.h — tool arguments: types and ranges checked, unknown names refused.
 *
 * Every helper fails with invalid_argument and a sentence naming the
 * argument. A missing or null argument leaves the default (NULL, dflt,
 * false). Strings are borrowed from args.
 */
#ifndef MG_ARGS_H
#define MG_ARGS_H

#include <stdbool.h>

#include <jansson.h>

#include "provider/scope.h"
#include "request/gate.h"
#include "util/config.h"
#include "util/err.h"

int mg_arg_str(json_t *args, const char *key, bool required, const char **out, struct mg_err *err);
int mg_arg_int(json_t *args, const char *key, long long lo, long long hi, long long dflt, long long *out,
               struct mg_err *err);
int mg_arg_bool(json_t *args, const char *key, bool *out, struct mg_err *err);
/* Refuse keys not in keys (NULL-terminated): a typo is an error, not ignored. */
int mg_known_keys(json_t *args, const char *const *keys, struct mg_err *err);
/* A query: present, 1 to max_query_bytes bytes, valid UTF-8 (query_* codes). */
int mg_arg_query(const struct mg_config *cfg, json_t *args, const char *key, bool required, const char **out,
                 struct mg_err *err);

/* Pages of a long list: a tool's `cursor` argument and its result's
 * next_cursor (read_file's and outline's convention: an opaque string the
 * client gives back as it came, invalid_argument when it is not one).
 *
 * A page cursor is "<offset>.<fingerprint>": where the next page starts, and
 * a hash of the call it continues (the tool, its arguments but `cursor` and
 * `limit`, the repos and the effective scope it ran on). mg_arg_page reads
 * it (offset 0 without one); the tool then runs its list with
 * mg_page_window (the gate drops the items before the page and past it);
 * mg_page_end refuses a cursor of another call (invalid_argument, saying to
 * start again without it) and sets result["next_cursor"]: a cursor for the
 * next page when there is more, else null. */
struct mg_ctx;
int mg_arg_page(json_t *args, const char *tool, long long *offset, struct mg_err *err);
/* The next operation of x lists items offset .. offset + limit - 1 of a
 * list it was asked for at least offset + limit + 1 of. */
void mg_page_window(struct mg_ctx *x, long long offset, long long limit);
int mg_page_end(struct mg_ctx *x, const char *tool, json_t *args, long long offset, size_t served, bool more,
                json_t *result, struct mg_err *err);
/* The cursor of the page at offset of the call x ran (its fingerprint from
 * mg_page_end), in buf; for the response's cap (registry.c). */
void mg_page_cursor(const struct mg_ctx *x, long long offset, char *buf, size_t n);

/* Sealed cursors (cursor.c): every next_cursor a tool gives out is its own
 * cursor and a keyed MAC over it, the tool, the caller's tenant and the
 * call's arguments but cursor, limit, offset and handle ("<cursor>.<32
 * hex>"); registry.c seals each result's and opens the `cursor` argument
 * before the tool runs. mg_cursor_seal replaces result["next_cursor"] (a
 * string) with its sealed form: 0, or -1 with err. mg_cursor_open checks
 * args["cursor"] (a string): *opened (new reference) is args with the
 * tool's own cursor in its place, or NULL when there is none; -1 with
 * invalid_argument when the MAC does not match. */
int mg_cursor_seal(const struct mg_ctx *x, const char *tool, json_t *args, json_t *result, struct mg_err *err);
int mg_cursor_open(const struct mg_ctx *x, const char *tool, json_t *args, json_t **opened, struct mg_err *err);

/* The call's repo (`repo`, or its alias `repo_id`) and scope lists
 * (`globs`, `exclude_globs`, `languages`; a single string is taken as a
 * list of one) into a target for the gate. Globs must compile, languages
 * must be known (invalid_glob, invalid_language), at most
 * MG_SCOPE_MAX_ITEMS each. Release with mg_target_release. */
struct mg_target_args {
    struct mg_target t;
    struct mg_scope scope;
};
int mg_arg_target(json_t *args, bool with_scope, struct mg_target_args *out, struct mg_err *err);
void mg_target_release(struct mg_target_args *t);

/* A scope from {"globs","exclude_globs","languages","repos"} (set_scope):
 * unknown fields refused, each item a non-empty string of at most 1024
 * bytes, globs compile, languages known. */
int mg_arg_scope(json_t *j, struct mg_scope *out, struct mg_err *err);

#endif
