/* match.c — which indexed working copies a push is about (hook.h): the
 * payload's repository URLs against each working copy's git remotes, both
 * normalised (url.c), so an https clone matches a push whose payload also
 * names the ssh URL, and so on. */
#include "hook/hook.h"

#include <git2.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "util/gitrepo.h"

static void git_ready_once(void) { git_libgit2_init(); }

void mg_hook_git_ready(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, git_ready_once); /* never shut down: other threads may be using it */
}

/* Add s, normalised, to out[*n] unless it is not a URL or already there. */
static void add_url(const char *s, char out[][MG_HOOK_NORM_MAX], size_t *n, size_t cap)
{
    if (!s || *n >= cap) return;
    char norm[MG_HOOK_NORM_MAX];
    if (mg_hook_url_norm(s, strlen(s), norm, sizeof(norm)) != 0) return;
    for (size_t i = 0; i < *n; i++)
        if (strcmp(out[i], norm) == 0) return;
    memcpy(out[(*n)++], norm, strlen(norm) + 1);
}

static void add_members(json_t *obj, const char *const *keys, char out[][MG_HOOK_NORM_MAX], size_t *n, size_t cap)
{
    if (!json_is_object(obj)) return;
    for (const char *const *k = keys; *k; k++) {
        json_t *v = json_object_get(obj, *k);
        if (json_is_string(v)) add_url(json_string_value(v), out, n, cap);
    }
}

size_t mg_hook_payload_urls(json_t *payload, enum mg_hook_source src, char out[][MG_HOOK_NORM_MAX], size_t cap)
{
    static const char *const github[] = {"clone_url", "ssh_url", "git_url", "html_url", "url", NULL};
    static const char *const gitlab_project[] = {"git_http_url", "git_ssh_url", "web_url", "http_url", "ssh_url",
                                                 NULL};
    static const char *const gitlab_repo[] = {"url", "git_http_url", "git_ssh_url", "homepage", NULL};
    size_t n = 0;
    if (src == MG_HOOK_GITHUB) {
        add_members(json_object_get(payload, "repository"), github, out, &n, cap);
    } else {
        add_members(json_object_get(payload, "project"), gitlab_project, out, &n, cap);
        add_members(json_object_get(payload, "repository"), gitlab_repo, out, &n, cap);
    }
    return n;
}

/* "remote.<name>.url" or "remote.<name>.pushurl" (names may hold dots). */
static bool is_remote_url_key(const char *key)
{
    size_t n = strlen(key);
    if (strncmp(key, "remote.", 7) != 0) return false;
    return (n > 7 + 4 && strcmp(key + n - 4, ".url") == 0) || (n > 7 + 8 && strcmp(key + n - 8, ".pushurl") == 0);
}

/* Read from the config itself, not with git_remote_list / git_remote_lookup:
 * in libgit2 1.5 those match config entries with regexes, and its
 * git_regexp_match leaks PCRE2 match data on every entry that does not match
 * (libgit2 #6382, fixed in later releases). url.*.insteadOf is therefore not
 * applied: remotes are compared as the clone's config writes them. */
size_t mg_hook_remote_urls(const char *root, char out[][MG_HOOK_NORM_MAX], size_t cap)
{
    mg_hook_git_ready();
    git_repository *g = NULL;
    git_config *cfg = NULL;
    git_config_iterator *it = NULL;
    size_t n = 0;
    char prefix[PATH_MAX];
    struct mg_err ge = {0};
    if (mg_git_open(root, &g, prefix, &ge) == 1 && git_repository_config_snapshot(&cfg, g) == 0 &&
        git_config_iterator_new(&it, cfg) == 0) {
        git_config_entry *e;
        while (n < cap && git_config_next(&e, it) == 0)
            if (is_remote_url_key(e->name)) add_url(e->value, out, &n, cap);
    }
    git_config_iterator_free(it);
    git_config_free(cfg);
    git_repository_free(g);
    return n;
}

static bool any_equal(char a[][MG_HOOK_NORM_MAX], size_t na, char b[][MG_HOOK_NORM_MAX], size_t nb)
{
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++)
            if (strcmp(a[i], b[j]) == 0) return true;
    return false;
}

int mg_hook_match(const struct mg_config *c, char urls[][MG_HOOK_NORM_MAX], size_t n, struct mg_repo **out,
                  size_t *nout, struct mg_err *err)
{
    *out = NULL;
    *nout = 0;
    struct mg_repo *v = NULL;
    size_t nv = 0;
    if (mg_catalog_list(c, &v, &nv, err) != 0) return -1;
    char (*remotes)[MG_HOOK_NORM_MAX] = malloc(MG_HOOK_REMOTES_MAX * sizeof(*remotes));
    if (!remotes) {
        free(v);
        return mg_err_set(err, MG_E_NO_MEMORY, "out of memory matching a webhook to the repos");
    }
    size_t k = 0;
    for (size_t i = 0; i < nv; i++) {
        size_t nr = mg_hook_remote_urls(v[i].root, remotes, MG_HOOK_REMOTES_MAX);
        if (!any_equal(urls, n, remotes, nr)) continue;
        if (k != i) v[k] = v[i]; /* compacted in place: k <= i */
        k++;
    }
    free(remotes);
    if (!k) {
        free(v);
        return 0;
    }
    *out = v;
    *nout = k;
    return 0;
}
