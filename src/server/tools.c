/* tools.c — memgate's tools, repo resolution and the result guardrail (see
 * server.h). Each tool is a function of (context, JSON arguments); MCP and
 * the HTTP API both call these, nothing else touches the search code. */
#include "memory/memory.h"
#include "server/server.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "index/indexer.h"
#include "index/lang.h"
#include "index/walk.h"
#include "search/search.h"
#include "util/metrics.h"
#include "store/db.h"
#include "util/glob.h"
#include "util/utf8.h"

#define READ_MAX_LINES 2000      /* read_file: most lines per call */
#define LIST_MAX 10000           /* list_files: most paths per call */
#define ROOTS_TIMEOUT_MS 10000

/* ---- argument helpers ------------------------------------------------------------ */

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

/* Reject keys the schema does not name, so a typo is an error, not ignored. */
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

/* ---- errors -------------------------------------------------------------------- */

/* The repos this caller may see: the catalog filtered by the gate (tenant,
 * token allowlist). Nothing here ever names a repo the caller cannot see. */
static int visible_list(struct mg_ctx *x, struct mg_repo **out, size_t *n, struct mg_err *err)
{
    if (mg_catalog_list(&x->srv->cfg, out, n, err) != 0) return -1;
    size_t k = 0;
    for (size_t i = 0; i < *n; i++)
        if (mg_gate_repo_visible(x, &(*out)[i])) (*out)[k++] = (*out)[i];
    *n = k;
    return 0;
}

/* One repo the caller named: repo_not_found (listing only visible ids) or
 * the gate's repo_forbidden. */
static int visible_get(struct mg_ctx *x, const char *id, struct mg_repo *out, struct mg_err *err)
{
    struct mg_err e = {0};
    if (mg_catalog_get(&x->srv->cfg, id, out, &e) == 0) {
        size_t one = 1;
        return mg_gate_repos(x, out, &one, true, err);
    }
    if (!e.code || strcmp(e.code, MG_E_REPO_NOT_FOUND) != 0) {
        *err = e;
        return -1;
    }
    struct mg_repo *all;
    size_t n;
    if (visible_list(x, &all, &n, err) != 0) return -1;
    char list[600];
    mg_repo_id_list(all, n, list, sizeof(list));
    free(all);
    return mg_err_set(err, MG_E_REPO_NOT_FOUND, "no repo '%s' is indexed; the repos you can use: %s", id, list);
}

json_t *mg_err_to_json(struct mg_ctx *x, const struct mg_err *err)
{
    json_t *e = json_pack("{s:s, s:o}", "code", err->code ? err->code : MG_E_INTERNAL, "message",
                          mg_json_text(err->msg));
    if (err->code && (!strcmp(err->code, MG_E_REPO_REQUIRED) || !strcmp(err->code, MG_E_REPO_NOT_FOUND))) {
        struct mg_repo *all;
        size_t n;
        struct mg_err e2 = {0};
        if (visible_list(x, &all, &n, &e2) == 0) {
            json_t *a = json_array();
            for (size_t i = 0; i < n; i++) json_array_append_new(a, json_string(all[i].id));
            json_object_set_new(e, "repos", a);
            free(all);
        }
    }
    return e;
}

/* ---- repo resolution ------------------------------------------------------------ */

/* The innermost indexed repo whose root contains path: 1, 0 none, -1 error. */
static int repo_containing(struct mg_ctx *x, const char *path, struct mg_repo *out, struct mg_err *err)
{
    struct mg_repo *all;
    size_t n;
    if (visible_list(x, &all, &n, err) != 0) return -1;
    int i = mg_catalog_containing(all, n, path);
    if (i >= 0) *out = all[i];
    free(all);
    return i >= 0;
}

static int hex(int c) { return c >= '0' && c <= '9' ? c - '0' : (c | 32) >= 'a' && (c | 32) <= 'f' ? (c | 32) - 'a' + 10 : -1; }

char *mg_uri_to_path(const char *uri)
{
    if (strncmp(uri, "file://", 7) == 0) {
        uri += 7;
        if (strncmp(uri, "localhost/", 10) == 0) uri += 9;
    }
    if (*uri != '/') return NULL;
    char *p = malloc(strlen(uri) + 1), *o = p;
    if (!p) return NULL;
    for (const char *s = uri; *s; s++) {
        if (*s == '%') {
            int h = hex(s[1]), l = h < 0 ? -1 : hex(s[2]);
            if (h < 0 || l < 0 || (h == 0 && l == 0)) {
                free(p);
                return NULL;
            }
            *o++ = (char)(h * 16 + l);
            s += 2;
        } else {
            *o++ = *s;
        }
    }
    *o = 0;
    return p;
}

static void on_index_progress(void *ud, uint64_t files, uint64_t total, uint64_t bytes, uint64_t tbytes)
{
    struct mg_ctx *x = ud;
    char m[160];
    snprintf(m, sizeof(m), "indexed %llu of %llu files (%.1f of %.1f MB)", (unsigned long long)files,
             (unsigned long long)total, bytes / 1e6, tbytes / 1e6);
    mg_ctx_progress(x, (double)files, (double)total, m);
}

static int index_path(struct mg_ctx *x, const char *path, const char *name, struct mg_index_stats *st,
                      struct mg_err *err)
{
    struct mg_index_opts o = {.path = path, .name = name, .tenant = x->who->tenant, .on_progress = on_index_progress,
                              .progress_ud = x, .stop = &x->srv->stopping};
    memset(st, 0, sizeof(*st));
    mg_ctx_log(x, "info", "indexing %s", path);
    mg_ctx_progress(x, 0, 0, "walking the repository");
    if (mg_index_run(&x->srv->cfg, &o, st, err) != 0) return -1;
    mg_ctx_log(x, "info", "indexed %s as %s: %llu files in %.1f s", st->root, st->id,
               (unsigned long long)st->total_files, st->seconds);
    return 0;
}

/* Ask the client for its roots (once per session, again after
 * roots/list_changed), and set s->root to the first usable one. */
static void fetch_roots(struct mg_ctx *x)
{
    struct mg_session *s = x->session;
    struct mg_err err = {0};
    json_t *r = mg_ctx_request(x, "roots/list", NULL, ROOTS_TIMEOUT_MS, &err);
    pthread_mutex_lock(&s->mu);
    if (!r) {
        /* a channel that cannot carry the request: try again on the next call */
        s->roots = err.code && strcmp(err.code, MG_E_UNSUPPORTED) == 0 ? MG_ROOTS_UNKNOWN : MG_ROOTS_NONE;
    } else {
        s->roots = MG_ROOTS_KNOWN;
        json_t *roots = json_object_get(r, "roots"), *e;
        size_t i;
        json_array_foreach(roots, i, e)
        {
            const char *uri = json_string_value(json_object_get(e, "uri"));
            char *p = uri ? mg_uri_to_path(uri) : NULL;
            if (!p) continue;
            free(s->root);
            s->root = p;
            s->repo[0] = 0;
            break;
        }
    }
    pthread_mutex_unlock(&s->mu);
    json_decref(r);
}

/* The session's binding as a repo: 1 bound (out filled), 0 unbound, -1 error. */
static int bound_repo(struct mg_ctx *x, struct mg_repo *out, struct mg_err *err)
{
    struct mg_session *s = x->session;
    pthread_mutex_lock(&s->mu);
    while (s->binding) pthread_cond_wait(&s->cv, &s->mu);
    bool ask = s->roots == MG_ROOTS_UNKNOWN && x->out;
    if (!ask && !s->root) {
        char id[MG_ID_MAX + 1];
        snprintf(id, sizeof(id), "%s", s->repo);
        pthread_mutex_unlock(&s->mu);
        if (!id[0]) return 0;
        if (visible_get(x, id, out, err) != 0) {
            if (err->code && strcmp(err->code, MG_E_REPO_NOT_FOUND) == 0)
                mg_err_set(err, MG_E_REPO_NOT_FOUND,
                           "this session is bound to repo '%s', which is no longer indexed; index it again "
                           "(index_repo) or pass `repo`", id);
            return -1;
        }
        return 1;
    }
    s->binding = true; /* other calls of this session wait for the binding */
    pthread_mutex_unlock(&s->mu);

    if (ask) fetch_roots(x);
    int rc = 0;
    pthread_mutex_lock(&s->mu);
    char *root = s->root ? strdup(s->root) : NULL;
    pthread_mutex_unlock(&s->mu);
    if (root) {
        char canon[PATH_MAX];
        if (!realpath(root, canon)) {
            rc = mg_err_set(err, MG_E_PATH_NOT_FOUND,
                            "the client's root '%s' does not exist here (%s); pass `repo` to choose an indexed repo",
                            root, strerror(errno));
        } else {
            rc = repo_containing(x, canon, out, err);
            if (rc == 0 && x->who->level < MG_LEVEL_ADMIN) {
                rc = mg_err_set(err, MG_E_SCOPE_FORBIDDEN, "the client's root '%s' is not indexed, and indexing a "
                                "new directory needs an admin token; pass `repo` to choose an indexed repo", canon);
            } else if (rc == 0) { /* not indexed yet: index it now */
                struct mg_index_stats st;
                if (index_path(x, canon, NULL, &st, err) != 0) rc = -1;
                else rc = visible_get(x, st.id, out, err) == 0 ? 1 : -1;
            }
        }
    }
    pthread_mutex_lock(&s->mu);
    if (rc == 1) {
        snprintf(s->repo, sizeof(s->repo), "%s", out->id);
        free(s->root);
        s->root = NULL;
    } else if (root && rc == -1 && s->root) {
        /* the root cannot be used: forget it so the next call reports the
         * usual choice instead of failing forever */
        free(s->root);
        s->root = NULL;
    }
    s->binding = false;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    free(root);
    return rc;
}

int mg_resolve_repos(struct mg_ctx *x, const char *explicit_repo, struct mg_repo **out, size_t *n,
                     struct mg_err *err)
{
    *out = NULL;
    *n = 0;
    const char *id = explicit_repo ? explicit_repo : x->repo_header;
    struct mg_repo *v = NULL;
    if (id) { /* 1. explicit */
        if (!(v = malloc(sizeof(*v)))) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory");
        if (visible_get(x, id, v, err) != 0) {
            free(v);
            return -1;
        }
        *out = v;
        *n = 1;
        return 0;
    }
    struct mg_session *s = x->session;
    pthread_mutex_lock(&s->mu); /* 1b. the session scope's repos: an explicit choice made earlier */
    struct mg_scope sc;
    int cp = mg_scope_copy(&sc, &s->scope);
    pthread_mutex_unlock(&s->mu);
    if (cp != 0) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory");
    if (sc.nrepos) {
        v = calloc(sc.nrepos, sizeof(*v));
        int rc = v ? 0 : mg_err_set(err, MG_E_NO_MEMORY, "out of memory");
        for (size_t i = 0; rc == 0 && i < sc.nrepos; i++) rc = visible_get(x, sc.repos[i], &v[i], err);
        size_t nr = sc.nrepos;
        mg_scope_release(&sc);
        if (rc == 0) rc = mg_gate_repos(x, v, &nr, true, err); /* the cross-repo policy */
        if (rc != 0) {
            free(v);
            return -1;
        }
        *out = v;
        *n = nr;
        return 0;
    }
    mg_scope_release(&sc);
    if (!(v = malloc(sizeof(*v)))) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory");
    int b = bound_repo(x, v, err); /* 2. the session's binding */
    if (b != 0) {
        if (b < 0) {
            free(v);
            return -1;
        }
        *out = v;
        *n = 1;
        return 0;
    }
    free(v);
    struct mg_repo *all; /* 3. the only repo */
    size_t na;
    if (visible_list(x, &all, &na, err) != 0) return -1;
    if (na == 1) {
        *out = all;
        *n = 1;
        return 0;
    }
    if (na == 0) {
        free(all);
        return mg_err_set(err, MG_E_REPO_NOT_FOUND,
                          "no repo is indexed yet; call index_repo with the repo's path (or run `memgate index PATH`)");
    }
    char list[600];
    mg_repo_id_list(all, na, list, sizeof(list));
    free(all);
    return mg_err_set(err, MG_E_REPO_REQUIRED, /* 4. */
                      "%zu repos are indexed (%s) and this session is bound to none; pass `repo` with one of these "
                      "ids, or connect from a client that shares its roots", na, list);
}

/* ---- scope merge ------------------------------------------------------------- */

/* The effective filter lists: each explicit argument (present, even empty)
 * wins over the session scope's list. */
struct eff {
    struct mg_scope session;     /* a copy */
    const char **globs, **excludes, **langs;
    size_t nglobs, nexcludes, nlangs; /* the arrays are ours; the strings are args' or session's */
};

static int list_arg(json_t *args, const char *key, const char ***out, size_t *n, bool *given, struct mg_err *err)
{
    json_t *a = json_object_get(args, key);
    *given = false;
    if (!a || json_is_null(a)) return 0;
    if (json_is_string(a)) { /* a single value is accepted for convenience */
        const char **v = malloc(sizeof(*v));
        if (!v) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory");
        v[0] = json_string_value(a);
        *out = v;
        *n = 1;
        *given = true;
        return 0;
    }
    if (!json_is_array(a)) return mg_err_set(err, MG_E_BAD_ARG, "'%s' must be an array of strings", key);
    if (json_array_size(a) > MG_SCOPE_MAX_ITEMS)
        return mg_err_set(err, MG_E_BAD_ARG, "'%s' has more than %d items", key, MG_SCOPE_MAX_ITEMS);
    const char **v = calloc(json_array_size(a) + 1, sizeof(*v));
    if (!v) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory");
    for (size_t i = 0; i < json_array_size(a); i++) {
        v[i] = json_string_value(json_array_get(a, i));
        if (!v[i] || !*v[i]) {
            free(v);
            return mg_err_set(err, MG_E_BAD_ARG, "'%s' item %zu must be a non-empty string", key, i);
        }
    }
    *out = v;
    *n = json_array_size(a);
    *given = true;
    return 0;
}

static void eff_release(struct eff *e)
{
    mg_scope_release(&e->session);
    free(e->globs);
    free(e->excludes);
    free(e->langs);
}

/* One field of the effective scope: the argument when given, else the
 * session's list. Out of memory is an error, never a silently wider scope. */
static int merge_field(json_t *args, const char *key, char **session, size_t nsession, const char ***out,
                       size_t *n, struct mg_err *err)
{
    bool given;
    if (list_arg(args, key, out, n, &given, err) != 0) return -1;
    if (given || !nsession) return 0;
    if (!(*out = malloc(nsession * sizeof(char *)))) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory");
    memcpy(*out, session, nsession * sizeof(char *));
    *n = nsession;
    return 0;
}

static int eff_build(struct mg_ctx *x, json_t *args, struct eff *e, struct mg_err *err)
{
    memset(e, 0, sizeof(*e));
    pthread_mutex_lock(&x->session->mu);
    int cp = mg_scope_copy(&e->session, &x->session->scope);
    pthread_mutex_unlock(&x->session->mu);
    if (cp != 0) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory");
    const struct mg_scope *sc = &e->session;
    if (merge_field(args, "globs", sc->globs, sc->nglobs, &e->globs, &e->nglobs, err) != 0 ||
        merge_field(args, "exclude_globs", sc->excludes, sc->nexcludes, &e->excludes, &e->nexcludes, err) != 0 ||
        merge_field(args, "languages", sc->langs, sc->nlangs, &e->langs, &e->nlangs, err) != 0) {
        eff_release(e);
        return -1;
    }
    return 0;
}

static json_t *strs(const char *const *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) json_array_append_new(a, json_string(v[i]));
    return a;
}

static json_t *eff_json(const struct eff *e, const struct mg_repo *repos, size_t nrepos)
{
    json_t *r = json_array();
    for (size_t i = 0; i < nrepos; i++) json_array_append_new(r, json_string(repos[i].id));
    return json_pack("{s:o, s:o, s:o, s:o}", "globs", strs(e->globs, e->nglobs), "exclude_globs",
                     strs(e->excludes, e->nexcludes), "languages", strs(e->langs, e->nlangs), "repos", r);
}

/* ---- search_code / search_symbols --------------------------------------------------- */

static json_t *jstr(const char *s) { return s ? json_string(s) : json_null(); }

/* The guardrail: a hit from a repo outside the resolved set is dropped and
 * counted; it would be a bug in the layers below. */
static bool repo_in(const char *id, const struct mg_repo *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i].id, id) == 0) return true;
    return false;
}

static int do_search(struct mg_ctx *x, json_t *args, enum mg_mode mode, bool mode_arg, json_t **result,
                     struct mg_err *err)
{
    static const char *const keys[] = {"query", "mode", "globs", "exclude_globs", "languages", "repo", "repo_id",
                                       "limit", "fixed", "ignore_case", NULL};
    static const char *const skeys[] = {"query", "globs", "exclude_globs", "languages", "repo", "repo_id", "limit",
                                        NULL};
    const char *query, *ms, *repo, *repo2;
    long long limit;
    bool fixed = false, icase = false;
    if (mg_known_keys(args, mode_arg ? keys : skeys, err) != 0 || mg_arg_str(args, "query", true, &query, err) != 0 ||
        mg_arg_str(args, "repo", false, &repo, err) != 0 || mg_arg_str(args, "repo_id", false, &repo2, err) != 0 ||
        mg_arg_int(args, "limit", 1, x->srv->cfg.search_max_limit, 0, &limit, err) != 0)
        return -1;
    if (mode_arg) {
        if (mg_arg_str(args, "mode", false, &ms, err) != 0 || mg_arg_bool(args, "fixed", &fixed, err) != 0 ||
            mg_arg_bool(args, "ignore_case", &icase, err) != 0)
            return -1;
        if (ms && mg_mode_parse(ms, &mode, err) != 0) return -1;
    }
    struct eff e;
    if (eff_build(x, args, &e, err) != 0) return -1;
    struct mg_search_req q = {.query = query, .mode = mode, .globs = e.globs, .nglobs = e.nglobs,
                              .excludes = e.excludes, .nexcludes = e.nexcludes, .langs = e.langs,
                              .nlangs = e.nlangs, .limit = (int)limit, .fixed = fixed, .ignore_case = icase};
    struct mg_repo *repos = NULL;
    size_t nrepos = 0;
    struct mg_results res = {0};
    int rc = -1;
    if (mg_search_validate(&x->srv->cfg, &q, err) != 0) goto out;
    if (mg_resolve_repos(x, repo ? repo : repo2, &repos, &nrepos, err) != 0) goto out;
    if (mg_search(&x->srv->cfg, repos, nrepos, &q, &res, err) != 0) goto out;
    json_t *arr = json_array();
    size_t dropped = 0;
    for (size_t i = 0; i < res.n; i++) {
        const struct mg_hit *h = &res.v[i];
        if (!repo_in(h->repo, repos, nrepos)) {
            dropped++;
            continue;
        }
        json_array_append_new(
            arr, json_pack("{s:s, s:s, s:i, s:i, s:i, s:o, s:o, s:o, s:f, s:s}", "repo", h->repo, "path", h->path,
                           "start_line", h->start_line, "end_line", h->end_line, "line", h->line, "language",
                           jstr(h->language), "symbol", jstr(h->symbol), "kind", jstr(h->kind), "score",
                           (double)(long long)(h->score * 1000 + 0.5) / 1000, "snippet",
                           h->snippet ? h->snippet : ""));
    }
    if (dropped) {
        mg_gate_drop(x, "code", dropped);
    }
    *result = json_pack("{s:o, s:f, s:s, s:o}", "results", arr, "took_ms", res.took_ms, "mode",
                        res.mode ? res.mode : "lexical", "scope", eff_json(&e, repos, nrepos));
    rc = 0;
out:
    mg_results_release(&res);
    free(repos);
    eff_release(&e);
    return rc;
}

static int t_search_code(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    return do_search(x, args, MG_MODE_AUTO, true, result, err);
}

static int t_search_symbols(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    return do_search(x, args, MG_MODE_SYMBOL, false, result, err);
}

/* ---- read_file -------------------------------------------------------------------- */

static int check_rel_path(const char *p, struct mg_err *err)
{
    if (!*p) return mg_err_set(err, MG_E_BAD_ARG, "'path' must not be empty");
    if (strlen(p) > 4096) return mg_err_set(err, MG_E_BAD_ARG, "'path' is longer than 4096 bytes");
    if (*p == '/' || *p == '~')
        return mg_err_set(err, MG_E_PATH_OUTSIDE, "'%s' is absolute; give a path relative to the repo root", p);
    const char *s = p;
    while (*s) {
        const char *e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n == 2 && s[0] == '.' && s[1] == '.')
            return mg_err_set(err, MG_E_PATH_OUTSIDE, "'%s' leaves the repo root ('..' is not allowed)", p);
        char comp[256];
        if (n < sizeof(comp)) {
            memcpy(comp, s, n);
            comp[n] = 0;
            if (mg_is_secret_name(comp))
                return mg_err_set(err, MG_E_SECRET_FILE, "'%s' is a secret file; memgate never reads or serves "
                                  "secret files", p);
        }
        s = e ? e + 1 : s + n;
    }
    return 0;
}

/* Past the next k lines of [p, e): the start of the line after them, or e. */
static const char *skip_lines(const char *p, const char *e, long long k)
{
    for (; k > 0 && p < e; k--) {
        const char *nl = memchr(p, '\n', (size_t)(e - p));
        p = nl ? nl + 1 : e;
    }
    return p;
}

static long long count_markers(const char *p, size_t n)
{
    long long c = 0;
    for (const char *q = p, *e = p + n; (q = memmem(q, (size_t)(e - q), "[REDACTED:", 10)); q += 10) c++;
    return c;
}

static int t_read_file(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"path", "start_line", "end_line", "repo", "repo_id", NULL};
    const char *path, *repo, *repo2;
    long long from, to;
    if (mg_known_keys(args, keys, err) != 0 || mg_arg_str(args, "path", true, &path, err) != 0 ||
        mg_arg_str(args, "repo", false, &repo, err) != 0 || mg_arg_str(args, "repo_id", false, &repo2, err) != 0 ||
        mg_arg_int(args, "start_line", 1, 1LL << 31, 1, &from, err) != 0 ||
        mg_arg_int(args, "end_line", 1, 1LL << 31, 0, &to, err) != 0)
        return -1;
    if (to && to < from) return mg_err_set(err, MG_E_BAD_ARG, "'end_line' (%lld) is before 'start_line' (%lld)", to, from);
    while (path[0] == '.' && path[1] == '/') path += 2;
    if (check_rel_path(path, err) != 0) return -1;
    struct mg_repo *repos = NULL;
    size_t nrepos = 0;
    if (mg_resolve_repos(x, repo ? repo : repo2, &repos, &nrepos, err) != 0) return -1;
    if (nrepos != 1) {
        free(repos);
        return mg_err_set(err, MG_E_REPO_REQUIRED, "the session scope names %zu repos; pass `repo` to read a file",
                          nrepos);
    }
    struct mg_repo r = repos[0];
    free(repos);

    /* only files the index holds: ignored, binary and secret files never are */
    struct mg_db *d = NULL;
    sqlite3_stmt *st = NULL;
    char lang[32] = "text";
    int found = 0;
    if (mg_db_open(r.dbpath, MG_DB_READONLY, &d, err) != 0) return -1;
    if (mg_db_prepare(d, "SELECT lang FROM files WHERE path = ?", &st, err) != 0) {
        mg_db_close(&d);
        return -1;
    }
    sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW) {
        found = 1;
        snprintf(lang, sizeof(lang), "%s", (const char *)sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
    mg_db_close(&d);
    if (!found)
        return mg_err_set(err, MG_E_FILE_NOT_FOUND,
                          "'%s' is not a file of repo '%s' (ignored, binary and secret files are not served); "
                          "list_files shows the files", path, r.id);

    char full[PATH_MAX * 2], canon[PATH_MAX];
    snprintf(full, sizeof(full), "%s/%s", r.root, path);
    if (!realpath(full, canon))
        return mg_err_set(err, MG_E_FILE_NOT_FOUND, "'%s' was indexed but is gone from disk (%s); re-index repo '%s'",
                          path, strerror(errno), r.id);
    size_t rl = strlen(r.root);
    if (strncmp(canon, r.root, rl) != 0 || (canon[rl] != '/' && rl > 1))
        return mg_err_set(err, MG_E_PATH_OUTSIDE, "'%s' resolves outside the repo root (a symlink); not served", path);
    int fd = open(canon, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        int e = errno;
        if (fd >= 0) close(fd);
        return mg_err_set(err, e == EACCES ? MG_E_PERMISSION : MG_E_FILE_NOT_FOUND, "cannot read '%s': %s", path,
                          fd < 0 ? strerror(e) : "not a regular file");
    }
    if ((size_t)sb.st_size > x->srv->cfg.max_file_size) {
        close(fd);
        return mg_err_set(err, MG_E_NOT_TEXT, "'%s' is %lld bytes, over max_file_size", path, (long long)sb.st_size);
    }
    char *buf = malloc((size_t)sb.st_size + 1);
    ssize_t got = buf ? read(fd, buf, (size_t)sb.st_size) : -1;
    close(fd);
    if (got < 0) {
        free(buf);
        return mg_err_set(err, MG_E_IO, "cannot read '%s': %s", path, strerror(errno));
    }
    if (memchr(buf, 0, (size_t)got)) {
        free(buf);
        return mg_err_set(err, MG_E_NOT_TEXT, "'%s' now holds binary data; not served", path);
    }
    buf[got] = 0;
    /* secrets: the whole file is redacted before its lines are cut (a key block cut in two is found in
     * neither half, and lines 2-9 of a key file hold no BEGIN line); redaction keeps line numbers */
    struct mg_buf red;
    mg_buf_init(&red, SIZE_MAX / 2);
    int nred = 0;
    if (mg_gate_redact(x, buf, (size_t)got, &red, &nred) != 0) {
        free(buf);
        mg_buf_release(&red);
        return mg_err_set(err, MG_E_INTERNAL, "the secret scan of '%s' failed, so it is not served (see the log)", path);
    }
    char *orig = buf; /* to tell the markers redaction put in the served lines from any the file holds */
    size_t olen = (size_t)got;
    if (nred) {
        size_t rlen;
        if (!(buf = mg_buf_detach(&red, &rlen))) {
            free(orig);
            return mg_err_set(err, MG_E_NO_MEMORY, "out of memory reading '%s'", path);
        }
        got = (ssize_t)rlen;
    } else {
        mg_buf_release(&red);
        orig = NULL;
    }
    /* lines [from, to], at most READ_MAX_LINES lines or max_chunk_bytes (the gate's cap on one item, so the
     * cut falls on a line end and end_line says where to continue) */
    const ptrdiff_t max_bytes = (ptrdiff_t)x->srv->cfg.max_chunk_bytes;
    const char *e = buf + got, *p = buf;
    long long total = 0;
    for (const char *q = buf; q < e; q++) total += *q == '\n';
    if (got > 0 && e[-1] != '\n') total++;
    if (from > total && !(from == 1 && total == 0)) {
        free(buf);
        free(orig);
        return mg_err_set(err, MG_E_BAD_ARG, "'start_line' %lld is past the end of '%s' (%lld lines)", from, path,
                          total);
    }
    p = skip_lines(p, e, from - 1);
    const char *start = p, *end = p;
    long long want = to ? (to < total ? to : total) : total;
    if (want - from + 1 > READ_MAX_LINES) want = from + READ_MAX_LINES - 1;
    long long last = from - 1;
    bool truncated = false;
    while (last < want && end < e) {
        const char *nl = memchr(end, '\n', (size_t)(e - end));
        const char *ne = nl ? nl + 1 : e;
        if (ne - start > max_bytes) {
            if (last < from) { /* one huge line: cut it on a character boundary */
                end = start + max_bytes;
                while (end > start && ((unsigned char)*end & 0xC0) == 0x80) end--;
                last = from;
            }
            truncated = true;
            break;
        }
        end = ne;
        last++;
    }
    if (last < (to ? (to < total ? to : total) : total)) truncated = true;
    long long served_red = 0; /* the gate adds these to what it redacts in the text (none: done here) */
    if (orig) { /* markers in the served lines, less those the same lines of the file hold, and one more
                 * when the first line is inside a key block redacted from a line before */
        const char *os = skip_lines(orig, orig + olen, from - 1);
        const char *oe = skip_lines(os, orig + olen, (last < from ? from : last) - from + 1);
        served_red = count_markers(start, (size_t)(end - start)) - count_markers(os, (size_t)(oe - os));
        const char *rn = memchr(start, '\n', (size_t)(end - start)), *on = memchr(os, '\n', (size_t)(oe - os));
        size_t r1 = rn ? (size_t)(rn - start) : (size_t)(end - start), o1 = on ? (size_t)(on - os) : (size_t)(oe - os);
        if ((r1 != o1 || memcmp(start, os, r1) != 0) && !count_markers(start, r1)) served_red++;
        free(orig);
    }
    json_t *text = json_stringn(start, (size_t)(end - start));
    free(buf);
    if (!text) return mg_err_set(err, MG_E_NOT_TEXT, "'%s' is not valid UTF-8 on disk now; re-index it", path);
    *result = json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:b, s:o}", "repo", r.id, "path", path, "language", lang,
                        "start_line", (json_int_t)from, "end_line", (json_int_t)(last < from ? from : last),
                        "total_lines", (json_int_t)total, "truncated", truncated, "text", text);
    if (served_red > 0) json_object_set_new(*result, "redactions", json_integer(served_red));
    return 0;
}

/* ---- list_files ------------------------------------------------------------------ */

static int t_list_files(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"globs", "exclude_globs", "languages", "repo", "repo_id", "limit", "offset",
                                       NULL};
    const char *repo, *repo2;
    long long limit, offset;
    if (mg_known_keys(args, keys, err) != 0 || mg_arg_str(args, "repo", false, &repo, err) != 0 ||
        mg_arg_str(args, "repo_id", false, &repo2, err) != 0 ||
        mg_arg_int(args, "limit", 1, LIST_MAX, 200, &limit, err) != 0 ||
        mg_arg_int(args, "offset", 0, 1LL << 40, 0, &offset, err) != 0)
        return -1;
    struct eff e;
    if (eff_build(x, args, &e, err) != 0) return -1;
    struct mg_repo *repos = NULL;
    size_t nrepos = 0;
    struct mg_filter f = {0};
    int rc = -1;
    json_t *files = json_array();
    long long total = 0;
    for (size_t i = 0; i < e.nlangs; i++)
        if (!mg_lang_by_name(e.langs[i])) {
            mg_err_set(err, MG_E_BAD_LANG, "unknown language '%s'; see `memgate search --help` for the list",
                       e.langs[i]);
            goto out;
        }
    if (mg_globset_new(e.globs, e.nglobs, e.excludes, e.nexcludes, &f.globs, err) != 0) goto out;
    f.langs = e.langs;
    f.nlangs = (int)e.nlangs;
    if (mg_resolve_repos(x, repo ? repo : repo2, &repos, &nrepos, err) != 0) goto out;
    for (size_t i = 0; i < nrepos; i++) {
        struct mg_db *d = NULL;
        sqlite3_stmt *st = NULL;
        if (mg_db_open(repos[i].dbpath, MG_DB_READONLY, &d, err) != 0) goto out;
        if (mg_db_prepare(d, "SELECT path, lang, size, lines FROM files WHERE mg_filter_ok(?1, path, lang) "
                             "ORDER BY path", &st, err) != 0) {
            mg_db_close(&d);
            goto out;
        }
        sqlite3_bind_pointer(st, 1, &f, "mg_filter", NULL);
        while (sqlite3_step(st) == SQLITE_ROW) {
            total++;
            if (total <= offset || (long long)json_array_size(files) >= limit) continue;
            json_array_append_new(files, json_pack("{s:s, s:s, s:s, s:I, s:I}", "repo", repos[i].id, "path",
                                                   (const char *)sqlite3_column_text(st, 0), "language",
                                                   (const char *)sqlite3_column_text(st, 1), "bytes",
                                                   (json_int_t)sqlite3_column_int64(st, 2), "lines",
                                                   (json_int_t)sqlite3_column_int64(st, 3)));
        }
        sqlite3_finalize(st);
        mg_db_close(&d);
    }
    *result = json_pack("{s:O, s:I, s:b, s:o}", "files", files, "total", (json_int_t)total, "truncated",
                        offset + (long long)json_array_size(files) < total, "scope", eff_json(&e, repos, nrepos));
    rc = 0;
out:
    json_decref(files);
    mg_globset_free(&f.globs);
    free(repos);
    eff_release(&e);
    return rc;
}

/* ---- repos, index -------------------------------------------------------------- */

static json_t *repo_json(const struct mg_repo *r)
{
    return json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "id", r->id, "root", r->root,
                     "fingerprint", r->fingerprint, "files", (json_int_t)r->files, "chunks", (json_int_t)r->chunks,
                     "symbols", (json_int_t)r->symbols, "bytes", (json_int_t)r->bytes, "db_bytes",
                     (json_int_t)r->db_bytes, "created_at", (json_int_t)r->created_at, "indexed_at",
                     (json_int_t)r->indexed_at);
}

static int t_list_repos(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {NULL};
    if (mg_known_keys(args, keys, err) != 0) return -1;
    struct mg_repo *all;
    size_t n;
    if (visible_list(x, &all, &n, err) != 0) return -1;
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) json_array_append_new(a, repo_json(&all[i]));
    free(all);
    pthread_mutex_lock(&x->session->mu);
    json_t *bound = x->session->repo[0] ? json_string(x->session->repo) : json_null();
    pthread_mutex_unlock(&x->session->mu);
    *result = json_pack("{s:o, s:o}", "repos", a, "bound", bound);
    return 0;
}

static int t_index_repo(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"path", "name", NULL};
    const char *path, *name;
    if (mg_known_keys(args, keys, err) != 0 || mg_arg_str(args, "path", false, &path, err) != 0 ||
        mg_arg_str(args, "name", false, &name, err) != 0)
        return -1;
    struct mg_repo r;
    if (!path) { /* the session's repo: re-index it */
        struct mg_repo *v;
        size_t n;
        if (mg_resolve_repos(x, NULL, &v, &n, err) != 0) return -1;
        r = v[0];
        free(v);
        path = r.root;
    } else if (path[0] != '/') {
        return mg_err_set(err, MG_E_BAD_ARG, "'path' must be absolute (the server's working directory is not the "
                          "client's)");
    } else if (x->who->level < MG_LEVEL_ADMIN) { /* write re-indexes the caller's repos; admin adds new ones */
        char canon[PATH_MAX];
        int in = realpath(path, canon) ? repo_containing(x, canon, &r, err) : 0;
        if (in < 0) return -1;
        if (!in || strcmp(r.root, canon) != 0)
            return mg_err_set(err, MG_E_SCOPE_FORBIDDEN, "'%s' is not one of your indexed repos; indexing a new "
                              "directory needs an admin token", path);
    }
    struct mg_index_stats st;
    if (index_path(x, path, name, &st, err) != 0) return -1;
    *result = json_pack("{s:s, s:s, s:b, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:f}", "repo", st.id, "root",
                        st.root, "created", st.created, "files", (json_int_t)st.total_files, "added",
                        (json_int_t)st.added, "changed", (json_int_t)st.changed, "unchanged",
                        (json_int_t)st.unchanged, "removed", (json_int_t)st.removed, "chunks",
                        (json_int_t)st.chunks, "symbols", (json_int_t)st.symbols, "bytes",
                        (json_int_t)st.total_bytes, "seconds", st.seconds);
    return 0;
}

static int t_index_status(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"repo", "repo_id", NULL};
    const char *repo, *repo2;
    if (mg_known_keys(args, keys, err) != 0 || mg_arg_str(args, "repo", false, &repo, err) != 0 ||
        mg_arg_str(args, "repo_id", false, &repo2, err) != 0)
        return -1;
    struct mg_repo *v;
    size_t n;
    if (mg_resolve_repos(x, repo ? repo : repo2, &v, &n, err) != 0) return -1;
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) json_array_append_new(a, repo_json(&v[i]));
    free(v);
    *result = json_pack("{s:o}", "repos", a);
    return 0;
}

/* ---- scope ----------------------------------------------------------------------- */

static json_t *scope_result(struct mg_session *s)
{
    pthread_mutex_lock(&s->mu);
    json_t *r = json_pack("{s:o, s:s}", "scope", mg_scope_to_json(&s->scope), "session", s->id);
    pthread_mutex_unlock(&s->mu);
    return r;
}

static int t_set_scope(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    struct mg_scope sc;
    if (mg_scope_from_json(args, &sc, err) != 0) return -1;
    for (size_t i = 0; i < sc.nrepos; i++) {
        struct mg_repo r;
        if (visible_get(x, sc.repos[i], &r, err) != 0) {
            mg_scope_release(&sc);
            return -1;
        }
    }
    pthread_mutex_lock(&x->session->mu);
    mg_scope_release(&x->session->scope);
    x->session->scope = sc;
    pthread_mutex_unlock(&x->session->mu);
    *result = scope_result(x->session);
    return 0;
}

static int t_get_scope(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {NULL};
    if (mg_known_keys(args, keys, err) != 0) return -1;
    *result = scope_result(x->session);
    return 0;
}

static int t_clear_scope(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {NULL};
    if (mg_known_keys(args, keys, err) != 0) return -1;
    pthread_mutex_lock(&x->session->mu);
    mg_scope_release(&x->session->scope);
    pthread_mutex_unlock(&x->session->mu);
    *result = scope_result(x->session);
    return 0;
}

/* ---- the table ------------------------------------------------------------------- */

#define S_STRS "{\"type\":\"array\",\"items\":{\"type\":\"string\"}}"
#define S_REPO "\"repo\":{\"type\":\"string\",\"description\":\"repo id (list_repos); default: the session's repo\"}"
#define S_FILTERS                                                                                                   \
    "\"globs\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"description\":\"only paths matching one of "  \
    "these globs (e.g. src/**/*.c); overrides the session scope\"},"                                                \
    "\"exclude_globs\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"description\":\"leave out paths "     \
    "matching these globs\"},"                                                                                      \
    "\"languages\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"description\":\"only these languages "    \
    "(c, cpp, go, java, javascript, python, rust, typescript, markdown, ...)\"}"
#define S_SCOPE_OUT                                                                                                 \
    "\"scope\":{\"type\":\"object\",\"properties\":{\"globs\":" S_STRS ",\"exclude_globs\":" S_STRS               \
    ",\"languages\":" S_STRS ",\"repos\":" S_STRS "}}"
#define S_NSTR "{\"type\":[\"string\",\"null\"]}"
#define S_HITS                                                                                                      \
    "{\"type\":\"object\",\"properties\":{\"results\":{\"type\":\"array\",\"items\":{\"type\":\"object\","         \
    "\"properties\":{\"repo\":{\"type\":\"string\"},\"path\":{\"type\":\"string\"},\"start_line\":{\"type\":"      \
    "\"integer\"},\"end_line\":{\"type\":\"integer\"},\"line\":{\"type\":\"integer\"},\"language\":" S_NSTR        \
    ",\"symbol\":" S_NSTR ",\"kind\":" S_NSTR ",\"score\":{\"type\":\"number\"},\"snippet\":{\"type\":"           \
    "\"string\"}},\"required\":[\"repo\",\"path\",\"start_line\",\"end_line\",\"snippet\"]}},\"took_ms\":{"       \
    "\"type\":\"number\"},\"mode\":{\"type\":\"string\"}," S_SCOPE_OUT "},\"required\":[\"results\",\"took_ms\","  \
    "\"scope\"]}"
#define S_REPO_OBJ                                                                                                  \
    "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"},\"root\":{\"type\":\"string\"},"           \
    "\"fingerprint\":{\"type\":\"string\"},\"files\":{\"type\":\"integer\"},\"chunks\":{\"type\":\"integer\"},"    \
    "\"symbols\":{\"type\":\"integer\"},\"bytes\":{\"type\":\"integer\"},\"db_bytes\":{\"type\":\"integer\"},"     \
    "\"created_at\":{\"type\":\"integer\"},\"indexed_at\":{\"type\":\"integer\"}},\"required\":[\"id\",\"root\"]}"
#define S_SCOPE_RESULT                                                                                              \
    "{\"type\":\"object\",\"properties\":{\"session\":{\"type\":\"string\"}," S_SCOPE_OUT                          \
    "},\"required\":[\"scope\",\"session\"]}"
#define S_NOARGS "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}"

static const struct mg_tool tools[] = {
    {"search_code", "Search code",
     "Search the indexed code of a repo. Default: hybrid for a natural-language question (3+ words, no code "
     "punctuation or identifiers), else lexical. mode lexical: ranked words; identifiers match across "
     "spellings (parseHttpHeader, parse_http_header, \"http header\"). mode regex: PCRE2 pattern (fixed: true for a "
     "literal string). mode symbol: definitions by name. mode semantic: nearest chunks by embedding. mode hybrid: "
     "lexical, symbol and semantic fused by rank. Each result has the file, line range, enclosing symbol "
     "and a snippet; the effective scope is echoed.",
     "{\"type\":\"object\",\"properties\":{\"query\":{\"type\":\"string\",\"description\":\"words, an "
     "identifier, or a regex (mode regex)\"},\"mode\":{\"type\":\"string\",\"enum\":[\"lexical\",\"regex\","
     "\"symbol\",\"semantic\",\"hybrid\"]},\"fixed\":{\"type\":\"boolean\",\"description\":\"regex mode: the query is a literal string\"},"
     "\"ignore_case\":{\"type\":\"boolean\",\"description\":\"regex mode: case-insensitive\"}," S_FILTERS
     "," S_REPO ",\"limit\":{\"type\":\"integer\",\"minimum\":1,\"description\":\"most results (default 20)\"}},"
     "\"required\":[\"query\"],\"additionalProperties\":false}",
     S_HITS, t_search_code, MG_LEVEL_READ},
    {"search_symbols", "Search symbols",
     "Find definitions (functions, methods, classes, structs, types, macros) by name: exact, any case, prefix, "
     "then sub-word (HttpHeader finds parseHttpHeader).",
     "{\"type\":\"object\",\"properties\":{\"query\":{\"type\":\"string\",\"description\":\"a name or the start "
     "of one\"}," S_FILTERS "," S_REPO ",\"limit\":{\"type\":\"integer\",\"minimum\":1}},\"required\":[\"query\"],"
     "\"additionalProperties\":false}",
     S_HITS, t_search_symbols, MG_LEVEL_READ},
    {"read_file", "Read a file",
     "Read lines of an indexed file of the repo. path is relative to the repo root; '..', absolute paths, "
     "symlinks out of the root and secret files are refused. At most 2000 lines or max_chunk_bytes (8 KB by default) per call; continue from end_line + 1 when truncated.",
     "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},\"start_line\":{\"type\":\"integer\","
     "\"minimum\":1},\"end_line\":{\"type\":\"integer\",\"minimum\":1}," S_REPO "},\"required\":[\"path\"],"
     "\"additionalProperties\":false}",
     "{\"type\":\"object\",\"properties\":{\"repo\":{\"type\":\"string\"},\"path\":{\"type\":\"string\"},"
     "\"language\":{\"type\":\"string\"},\"start_line\":{\"type\":\"integer\"},\"end_line\":{\"type\":"
     "\"integer\"},\"total_lines\":{\"type\":\"integer\"},\"truncated\":{\"type\":\"boolean\"},\"text\":{\"type\":"
     "\"string\"}},\"required\":[\"repo\",\"path\",\"start_line\",\"end_line\",\"total_lines\",\"text\"]}",
     t_read_file, MG_LEVEL_READ},
    {"list_files", "List files",
     "List the indexed files of the repo, filtered by globs and languages (and the session scope), sorted by path.",
     "{\"type\":\"object\",\"properties\":{" S_FILTERS "," S_REPO ",\"limit\":{\"type\":\"integer\",\"minimum\":1,"
     "\"maximum\":10000,\"description\":\"default 200\"},\"offset\":{\"type\":\"integer\",\"minimum\":0}},"
     "\"additionalProperties\":false}",
     "{\"type\":\"object\",\"properties\":{\"files\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
     "\"properties\":{\"repo\":{\"type\":\"string\"},\"path\":{\"type\":\"string\"},\"language\":{\"type\":"
     "\"string\"},\"bytes\":{\"type\":\"integer\"},\"lines\":{\"type\":\"integer\"}},\"required\":[\"repo\","
     "\"path\"]}},\"total\":{\"type\":\"integer\"},\"truncated\":{\"type\":\"boolean\"}," S_SCOPE_OUT "},"
     "\"required\":[\"files\",\"total\",\"scope\"]}",
     t_list_files, MG_LEVEL_READ},
    {"list_repos", "List repos", "List the indexed repos and the one this session is bound to.", S_NOARGS,
     "{\"type\":\"object\",\"properties\":{\"repos\":{\"type\":\"array\",\"items\":" S_REPO_OBJ "},\"bound\":"
     S_NSTR "},\"required\":[\"repos\"]}",
     t_list_repos, MG_LEVEL_READ},
    {"index_repo", "Index a repo",
     "Index (or re-index, incrementally) a directory on the server's machine. Without path: re-index the "
     "session's repo. Sends progress notifications when the call carries a progressToken.",
     "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\",\"description\":\"absolute path of the "
     "repo root\"},\"name\":{\"type\":\"string\",\"description\":\"repo id to use instead of the derived one\"}},"
     "\"additionalProperties\":false}",
     "{\"type\":\"object\",\"properties\":{\"repo\":{\"type\":\"string\"},\"root\":{\"type\":\"string\"},"
     "\"created\":{\"type\":\"boolean\"},\"files\":{\"type\":\"integer\"},\"added\":{\"type\":\"integer\"},"
     "\"changed\":{\"type\":\"integer\"},\"unchanged\":{\"type\":\"integer\"},\"removed\":{\"type\":\"integer\"},"
     "\"chunks\":{\"type\":\"integer\"},\"symbols\":{\"type\":\"integer\"},\"bytes\":{\"type\":\"integer\"},"
     "\"seconds\":{\"type\":\"number\"}},\"required\":[\"repo\",\"root\",\"files\"]}",
     t_index_repo, MG_LEVEL_WRITE},
    {"index_status", "Index status", "Sizes and times of the session's repo index (or the given repo's).",
     "{\"type\":\"object\",\"properties\":{" S_REPO "},\"additionalProperties\":false}",
     "{\"type\":\"object\",\"properties\":{\"repos\":{\"type\":\"array\",\"items\":" S_REPO_OBJ "}},"
     "\"required\":[\"repos\"]}",
     t_index_status, MG_LEVEL_READ},
    {"set_scope", "Set the session scope",
     "Store path globs, exclude globs, languages and repos for this session; every later search and listing "
     "applies them, and explicit arguments of a call win field by field. Replaces the previous scope.",
     "{\"type\":\"object\",\"properties\":{\"globs\":" S_STRS ",\"exclude_globs\":" S_STRS ",\"languages\":"
     S_STRS ",\"repos\":" S_STRS "},\"additionalProperties\":false}",
     S_SCOPE_RESULT, t_set_scope, MG_LEVEL_READ},
    {"get_scope", "Get the session scope", "The scope stored for this session.", S_NOARGS, S_SCOPE_RESULT,
     t_get_scope, MG_LEVEL_READ},
    {"clear_scope", "Clear the session scope", "Remove the scope stored for this session.", S_NOARGS,
     S_SCOPE_RESULT, t_clear_scope, MG_LEVEL_READ},
};
#define NTOOLS (sizeof(tools) / sizeof(tools[0]))

/* The code tools, then the memory tools (memory/memory.h), in one array. */
static struct mg_tool *all_tools;
static size_t nall;
static pthread_once_t all_once = PTHREAD_ONCE_INIT;

static void all_init(void)
{
    size_t nm;
    const struct mg_tool *mem = mg_memory_tools(&nm);
    all_tools = malloc((NTOOLS + nm) * sizeof(*all_tools));
    if (!all_tools) abort(); /* at start-up: nothing to serve without it */
    memcpy(all_tools, tools, NTOOLS * sizeof(*all_tools));
    memcpy(all_tools + NTOOLS, mem, nm * sizeof(*all_tools));
    nall = NTOOLS + nm;
}

const struct mg_tool *mg_tools(const struct mg_server *srv, size_t *n)
{
    (void)srv;
    pthread_once(&all_once, all_init);
    *n = nall;
    return all_tools;
}

const struct mg_tool *mg_tool_find(const struct mg_server *srv, const char *name)
{
    size_t n;
    const struct mg_tool *t = mg_tools(srv, &n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(t[i].name, name) == 0) return &t[i];
    if (srv->fixtures) {
        t = mg_fixture_tools(&n);
        for (size_t i = 0; i < n; i++)
            if (strcmp(t[i].name, name) == 0) return &t[i];
    }
    return NULL;
}
