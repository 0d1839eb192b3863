/* args.c — see args.h. */
#include "tools/args.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "index/lang.h"
#include "request/ctx.h"
#include "util/buf.h"
#include "util/glob.h"
#include "util/utf8.h"

int mg_arg_str(json_t *args, const char *key, bool required, const char **out, struct mg_err *err)
{
    json_t *v = json_object_get(args, key);
    *out = NULL;
    if (!v || json_is_null(v)) {
        if (required) return mg_err_set(err, MG_E_BAD_ARG, "'%s' is required (a string)", key);
        return 0;
    }
    if (!json_is_string(v)) return mg_err_set(err, MG_E_BAD_ARG, "'%s' must be a string", key);
    if (strlen(json_string_value(v)) != json_string_length(v))
        return mg_err_set(err, MG_E_BAD_ARG, "'%s' must not contain NUL characters", key);
    *out = json_string_value(v);
    return 0;
}

int mg_arg_int(json_t *args, const char *key, long long lo, long long hi, long long dflt, long long *out,
               struct mg_err *err)
{
    json_t *v = json_object_get(args, key);
    *out = dflt;
    if (!v || json_is_null(v)) return 0;
    if (!json_is_integer(v)) return mg_err_set(err, MG_E_BAD_ARG, "'%s' must be an integer", key);
    long long x = json_integer_value(v);
    if (x < lo || x > hi) return mg_err_set(err, MG_E_BAD_ARG, "'%s' must be between %lld and %lld", key, lo, hi);
    *out = x;
    return 0;
}

int mg_arg_bool(json_t *args, const char *key, bool *out, struct mg_err *err)
{
    json_t *v = json_object_get(args, key);
    *out = false;
    if (!v || json_is_null(v)) return 0;
    if (!json_is_boolean(v)) return mg_err_set(err, MG_E_BAD_ARG, "'%s' must be true or false", key);
    *out = json_is_true(v);
    return 0;
}

int mg_known_keys(json_t *args, const char *const *keys, struct mg_err *err)
{
    const char *k;
    json_t *v;
    json_object_foreach(args, k, v)
    {
        bool ok = false;
        for (size_t i = 0; keys[i] && !ok; i++) ok = strcmp(keys[i], k) == 0;
        if (!ok) return mg_err_set(err, MG_E_BAD_ARG, "unknown argument '%s'; tools/list shows the input schema", k);
    }
    return 0;
}

int mg_arg_query(const struct mg_config *cfg, json_t *args, const char *key, bool required, const char **out,
                 struct mg_err *err)
{
    if (mg_arg_str(args, key, required, out, err) != 0) return -1;
    if (!*out) return 0;
    size_t n = strlen(*out);
    if (n == 0) return mg_err_set(err, MG_E_QUERY_EMPTY, "the %s is empty; give the text to search for", key);
    if (n > cfg->max_query_bytes)
        return mg_err_set(err, MG_E_QUERY_TOO_LONG, "the %s is %zu bytes; the limit is %zu (max_query_bytes)", key, n,
                          cfg->max_query_bytes);
    if (mg_utf8_valid_prefix(*out, n) != n)
        return mg_err_set(err, MG_E_QUERY_INVALID, "the %s is not valid UTF-8; search for UTF-8 text", key);
    return 0;
}

/* ---- scope lists --------------------------------------------------------------------------------- */

/* One list: absent or null (not given), a string (a list of one), or an
 * array of non-empty strings. kind 'g' globs, 'l' languages, 'r' repos. */
static int list_arg(json_t *args, const char *key, int kind, char ***v, size_t *n, bool *given, struct mg_err *err)
{
    json_t *a = json_object_get(args, key);
    *given = false;
    if (!a || json_is_null(a)) return 0;
    json_t *one = NULL;
    if (json_is_string(a)) { /* a single value is accepted for convenience */
        one = json_pack("[O]", a);
        a = one;
    }
    int rc = 0;
    if (!json_is_array(a)) {
        rc = mg_err_set(err, MG_E_BAD_ARG, "'%s' must be an array of strings", key);
    } else if (json_array_size(a) > MG_SCOPE_MAX_ITEMS) {
        rc = mg_err_set(err, MG_E_BAD_ARG, "'%s' has %zu items; the most is %d", key, json_array_size(a),
                        MG_SCOPE_MAX_ITEMS);
    }
    for (size_t i = 0; rc == 0 && i < json_array_size(a); i++) {
        const char *s = json_string_value(json_array_get(a, i));
        if (!s || !*s || strlen(s) > 1024 || strlen(s) != json_string_length(json_array_get(a, i))) {
            rc = mg_err_set(err, MG_E_BAD_ARG, "'%s' item %zu must be a non-empty string of at most 1024 bytes", key,
                            i);
        } else if (kind == 'g') {
            struct mg_globset *g = NULL;
            rc = mg_globset_new(&s, 1, NULL, 0, &g, err);
            mg_globset_free(&g);
        } else if (kind == 'l' && !mg_lang_by_name(s)) {
            rc = mg_lang_unknown(s, err);
        }
        if (rc == 0 && mg_scope_push(v, n, s) != 0) rc = mg_err_oom(err);
    }
    json_decref(one);
    if (rc == 0) *given = true;
    return rc;
}

int mg_arg_target(json_t *args, bool with_scope, struct mg_target_args *out, struct mg_err *err)
{
    memset(out, 0, sizeof(*out));
    const char *repo, *repo2;
    if (mg_arg_str(args, "repo", false, &repo, err) != 0 || mg_arg_str(args, "repo_id", false, &repo2, err) != 0)
        return -1;
    out->t.repo = repo ? repo : repo2;
    out->t.scope = &out->scope;
    if (!with_scope) return 0;
    bool g;
    struct mg_scope *s = &out->scope;
    if (list_arg(args, "globs", 'g', &s->globs, &s->nglobs, &g, err) != 0) goto fail;
    if (g) out->t.given |= MG_GIVEN_GLOBS;
    if (list_arg(args, "exclude_globs", 'g', &s->excludes, &s->nexcludes, &g, err) != 0) goto fail;
    if (g) out->t.given |= MG_GIVEN_EXCLUDES;
    if (list_arg(args, "languages", 'l', &s->langs, &s->nlangs, &g, err) != 0) goto fail;
    if (g) out->t.given |= MG_GIVEN_LANGS;
    return 0;
fail:
    mg_target_release(out);
    return -1;
}

void mg_target_release(struct mg_target_args *t)
{
    mg_scope_release(&t->scope);
    memset(t, 0, sizeof(*t));
}

int mg_arg_scope(json_t *j, struct mg_scope *out, struct mg_err *err)
{
    memset(out, 0, sizeof(*out));
    if (!json_is_object(j)) return mg_err_set(err, MG_E_BAD_ARG, "the scope must be an object");
    const char *key;
    json_t *v;
    json_object_foreach(j, key, v)
    {
        if (strcmp(key, "globs") && strcmp(key, "exclude_globs") && strcmp(key, "languages") && strcmp(key, "repos"))
            return mg_err_set(err, MG_E_BAD_ARG,
                              "unknown scope field '%s'; the fields are globs, exclude_globs, languages, repos", key);
    }
    bool given;
    if (list_arg(j, "globs", 'g', &out->globs, &out->nglobs, &given, err) != 0 ||
        list_arg(j, "exclude_globs", 'g', &out->excludes, &out->nexcludes, &given, err) != 0 ||
        list_arg(j, "languages", 'l', &out->langs, &out->nlangs, &given, err) != 0 ||
        list_arg(j, "repos", 'r', &out->repos, &out->nrepos, &given, err) != 0) {
        mg_scope_release(out);
        return -1;
    }
    return 0;
}

/* ---- pages ---- */

#define PAGE_OFFSET_MAX (1LL << 40)

int mg_arg_page(json_t *args, const char *tool, long long *offset, struct mg_err *err)
{
    const char *c;
    *offset = 0;
    if (mg_arg_str(args, "cursor", false, &c, err) != 0) return -1;
    if (!c) return 0;
    char *end;
    long long off = strtoll(c, &end, 10);
    size_t hex = *end == '.' ? strspn(end + 1, "0123456789abcdef") : 0;
    if (*c < '0' || *c > '9' || *end != '.' || hex != 16 || end[17] || off < 0 || off > PAGE_OFFSET_MAX)
        return mg_err_set(err, MG_E_BAD_ARG, "'cursor' must be the next_cursor of an earlier %s call, given back as "
                          "it came", tool);
    *offset = off;
    return 0;
}

void mg_page_window(struct mg_ctx *x, long long offset, long long limit)
{
    x->page.skip = (size_t)offset;
    x->page.keep = (size_t)limit;
    x->page.more = false;
}

static void hash_str(XXH3_state_t *h, const char *s)
{
    XXH3_64bits_update(h, s ? s : "", s ? strlen(s) + 1 : 1);
}

static void hash_list(XXH3_state_t *h, char tag, char **v, size_t n)
{
    XXH3_64bits_update(h, &tag, 1);
    for (size_t i = 0; i < n; i++) hash_str(h, v[i]);
}

/* The call's fingerprint: tool, arguments but cursor and limit, repos and scope. Never 0. */
static uint64_t page_fp(const struct mg_ctx *x, const char *tool, json_t *args)
{
    XXH3_state_t *h = XXH3_createState();
    if (!h) return 1;
    XXH3_64bits_reset(h);
    hash_str(h, tool);
    json_t *a = json_is_object(args) ? json_copy(args) : json_object();
    json_object_del(a, "cursor");
    json_object_del(a, "limit");
    json_object_del(a, "offset");
    json_object_del(a, "repo_id"); /* (the repos it resolved to count, below) */
    json_object_del(a, "repo");
    char *s = json_dumps(a, JSON_COMPACT | JSON_SORT_KEYS);
    hash_str(h, s);
    free(s);
    json_decref(a);
    for (size_t i = 0; i < x->nrepos; i++) hash_str(h, x->repos[i].id);
    hash_list(h, 'g', x->scope.globs, x->scope.nglobs);
    hash_list(h, 'x', x->scope.excludes, x->scope.nexcludes);
    hash_list(h, 'l', x->scope.langs, x->scope.nlangs);
    hash_list(h, 'r', x->scope.repos, x->scope.nrepos);
    uint64_t fp = XXH3_64bits_digest(h);
    XXH3_freeState(h);
    return fp ? fp : 1;
}

void mg_page_cursor(const struct mg_ctx *x, long long offset, char *buf, size_t n)
{
    snprintf(buf, n, "%lld.%016" PRIx64, offset, x->page.fp);
}

int mg_page_end(struct mg_ctx *x, const char *tool, json_t *args, long long offset, size_t served, bool more,
                json_t *result, struct mg_err *err)
{
    uint64_t fp = page_fp(x, tool, args);
    const char *c = json_string_value(json_object_get(args, "cursor"));
    if (c && strtoull(strchr(c, '.') + 1, NULL, 16) != fp)
        return mg_err_set(err, MG_E_BAD_ARG, "this 'cursor' continues a %s call with other arguments (query, mode, "
                          "filters, repo or session scope); give the same arguments as that call, or call again "
                          "without 'cursor' to start from the first page", tool);
    x->page.offset = offset;
    x->page.fp = fp;
    char next[64];
    mg_page_cursor(x, offset + (long long)served, next, sizeof(next));
    json_object_set_new(result, "next_cursor", more ? json_string(next) : json_null());
    return 0;
}
