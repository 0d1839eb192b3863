/* walk.c — list a repo's files and read them safely (see walk.h).
 *
 * Sections:
 *   1. name rules: secret files, bad names, ignored directories
 *   2. the entry list
 *   2b. paths that hold a secret
 *   3. git work trees (libgit2: index + untracked-not-ignored)
 *   3b. the rules one path at a time (the watcher)
 *   4. plain directories
 *   5. reading beneath the root
 */
#include "index/walk.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <git2.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "security/scan.h"
#include "security/secrets.h"
#include "util/buf.h"
#include "util/gitrepo.h"

/* ---- 1. name rules ------------------------------------------------------ */

/* fnmatch patterns on the file name, case-insensitive. */
static const char *const secret_patterns[] = {
    ".env", ".env.*", "*.env", "*.pem", "*.key", "*.p12", "*.pfx", "*.jks", "*.keystore", "*.kdbx", "*.ppk",
    "*.tfstate", "*.tfstate.backup", "*.tfvars", "id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*", "credentials*",
    ".netrc", "_netrc", ".npmrc", ".pypirc", ".git-credentials", ".htpasswd", ".pgpass", ".dockercfg", ".s3cfg",
    ".boto", "secring.*", "*.gpg", "*.asc", ".my.cnf", "*.ovpn", "service-account*.json", "*.secret", "*.secrets",
    "secrets.y*ml", ".vault-token",
};

bool mg_is_secret_name(const char *name)
{
    for (size_t i = 0; i < sizeof(secret_patterns) / sizeof(secret_patterns[0]); i++)
        if (fnmatch(secret_patterns[i], name, FNM_CASEFOLD | FNM_PERIOD) == 0) return true;
    return false;
}

/* Valid UTF-8 with no control characters. */
static bool good_name(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        if (*p < 0x20 || *p == 0x7f) return false;
        if (*p < 0x80) { p++; continue; }
        int n = (*p & 0xe0) == 0xc0 ? 1 : (*p & 0xf0) == 0xe0 ? 2 : (*p & 0xf8) == 0xf0 ? 3 : -1;
        if (n < 0 || (*p == 0xc0 || *p == 0xc1) || *p > 0xf4) return false;
        for (int k = 1; k <= n; k++)
            if ((p[k] & 0xc0) != 0x80) return false;
        p += n + 1;
    }
    return true;
}

/* Directories a plain walk skips: VCS metadata, dependencies, caches. */
static const char *const DEFAULT_IGNORED_DIRS[] = {
    ".git", ".hg", ".svn", ".bzr", "_darcs", "CVS", "node_modules", "bower_components", "__pycache__", ".venv",
    "venv", ".tox", ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".cache", ".gradle", ".idea",
    ".vscode", ".terraform", ".next", ".nuxt", ".yarn", ".pnpm-store",
};

static bool ignored_dir(const char *name)
{
    for (size_t i = 0; i < sizeof(DEFAULT_IGNORED_DIRS) / sizeof(DEFAULT_IGNORED_DIRS[0]); i++)
        if (strcmp(name, DEFAULT_IGNORED_DIRS[i]) == 0) return true;
    return false;
}

/* ---- 2. the entry list ---------------------------------------------------- */

const char *mg_base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

bool mg_walk_one_name(const struct stat *st)
{
    return st->st_nlink <= 1;
}

/* Consider one candidate: st is its lstat. Adds it or counts why not. */
static int consider(struct mg_walk *w, const char *rel, const struct stat *st, uint64_t max)
{
    w->st.seen++;
    if (!(w->flags & MG_WALK_SECRET_FILES) && mg_is_secret_name(mg_base_name(rel))) { w->st.secret++; return 0; }
    if (!good_name(rel)) { w->st.bad_name++; return 0; }
    if (S_ISLNK(st->st_mode)) { w->st.symlink++; return 0; }
    if (!S_ISREG(st->st_mode)) { w->st.special++; return 0; }
    if (!mg_walk_one_name(st)) { w->st.symlink++; return 0; }
    if ((uint64_t)st->st_size > max) { w->st.too_large++; return 0; }
    if (w->n == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 1024;
        struct mg_walk_entry *v = realloc(w->v, cap * sizeof(*v));
        if (!v) return -1;
        w->v = v;
        w->cap = cap;
    }
    char *p = strdup(rel);
    if (!p) return -1;
    w->v[w->n++] = (struct mg_walk_entry){p, (uint64_t)st->st_size,
                                          (int64_t)st->st_mtim.tv_sec * 1000000000LL + st->st_mtim.tv_nsec};
    w->total_bytes += (uint64_t)st->st_size;
    return 0;
}

static int cmp_entry(const void *a, const void *b)
{
    return strcmp(((const struct mg_walk_entry *)a)->path, ((const struct mg_walk_entry *)b)->path);
}

void mg_walk_release(struct mg_walk *w)
{
    for (size_t i = 0; i < w->n; i++) free(w->v[i].path);
    free(w->v);
    memset(w, 0, sizeof(*w));
}

/* ---- 2b. paths that hold a secret ------------------------------------------ */

struct path_hits {
    const size_t *offs;  /* where each entry's path starts in the scanned text */
    size_t n;
    bool *drop;
    const struct mg_secret_policy *p;
};

static int on_path_secret(const struct mg_finding *f, void *ud)
{
    struct path_hits *h = ud;
    if (h->p->action[f->sev] == MG_SECRET_KEEP) return 0;
    size_t lo = 0, hi = h->n; /* the last entry starting at or before the finding */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (h->offs[mid] <= f->start) lo = mid;
        else hi = mid;
    }
    h->drop[lo] = true;
    return 0;
}

int mg_walk_drop_secret_paths(struct mg_walk *w, const struct mg_scanner *s, const struct mg_secret_policy *p,
                              struct mg_err *err)
{
    if (!w->n) return 0;
    struct mg_buf text;
    mg_buf_init(&text, MG_SCAN_MAX_BYTES);
    size_t *offs = malloc(w->n * sizeof(*offs));
    bool *drop = calloc(w->n, sizeof(*drop));
    int rc = offs && drop ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < w->n; i++) { /* one scan of every path, a line each */
        offs[i] = text.len;
        if (mg_buf_add(&text, w->v[i].path, strlen(w->v[i].path)) != 0 || mg_buf_add(&text, "\n", 1) != 0) rc = -1;
    }
    if (rc != 0) mg_err_oom(err);
    struct path_hits h = {offs, w->n, drop, p};
    if (rc == 0 && mg_scan(s, text.p, text.len, on_path_secret, &h, err) < 0) rc = -1;
    size_t k = 0;
    for (size_t i = 0; rc == 0 && i < w->n; i++) {
        if (drop[i]) {
            w->total_bytes -= w->v[i].size;
            w->st.secret++;
            free(w->v[i].path);
        } else {
            w->v[k++] = w->v[i];
        }
    }
    if (rc == 0) w->n = k;
    free(offs);
    free(drop);
    mg_buf_release(&text);
    return rc;
}

/* ---- 3. git work trees ---------------------------------------------------- */

static int git_fail(struct mg_err *err, const char *what)
{
    const git_error *e = git_error_last();
    return mg_err_set(err, MG_E_IO, "%s: %s", what, e && e->message ? e->message : "libgit2 error");
}

/* rel_in_root: path relative to the work tree -> relative to root (prefix stripped). */
static int git_add(struct mg_walk *w, int rootfd, const char *wt_path, size_t plen, uint64_t max)
{
    const char *rel = wt_path + plen;
    struct stat st;
    if (fstatat(rootfd, rel, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        w->st.seen++;
        w->st.special++; /* deleted in the work tree */
        return 0;
    }
    return consider(w, rel, &st, max);
}

/* The git work tree that holds root, and root's place in it (util/gitrepo.h):
 * 1 with *repo, or 0 when root is in no work tree or its git metadata lies
 * outside it (then it is walked as a plain directory). */
static int git_open(const char *root, git_repository **repo, char prefix[PATH_MAX])
{
    struct mg_err e = {0};
    return mg_git_open(root, repo, prefix, &e) == 1;
}

static int tree_of(const git_object *obj, git_tree **tree, const char *range, struct mg_err *err)
{
    git_object *t = NULL;
    if (git_object_peel(&t, obj, GIT_OBJECT_TREE) != 0) {
        git_error_clear();
        return mg_err_set(err, MG_E_BAD_REVISION, "'%s' does not name a commit or a tree", range);
    }
    *tree = (git_tree *)t;
    return 0;
}

int mg_walk_diff(const char *root, const char *range, size_t max, char **text, size_t *len, char prefix[PATH_MAX],
                 struct mg_err *err)
{
    *text = NULL;
    *len = 0;
    git_repository *repo = NULL;
    int g = mg_git_open(root, &repo, prefix, err);
    if (g < 0) return -1;
    if (g == 0)
        return mg_err_set(err, MG_E_BAD_REVISION, "the repo at '%s' is not in a git work tree; pass a diff or paths "
                                                  "instead of revisions", root);
    git_revspec spec = {0};
    git_tree *a = NULL, *b = NULL;
    git_diff *diff = NULL;
    git_buf buf = {0};
    int rc = 0;
    if (range[0] == '-' || git_revparse(&spec, repo, range) != 0) {
        git_error_clear();
        rc = mg_err_set(err, MG_E_BAD_REVISION, "git knows no revision or range '%s'; use A..B, A...B or A (to the "
                                                "work tree), e.g. HEAD~1", range);
        goto out;
    }
    if (spec.flags & GIT_REVSPEC_MERGE_BASE) {
        git_oid base;
        git_commit *c = NULL;
        if (git_merge_base(&base, repo, git_object_id(spec.from), git_object_id(spec.to)) != 0 ||
            git_commit_lookup(&c, repo, &base) != 0) {
            git_error_clear();
            rc = mg_err_set(err, MG_E_BAD_REVISION, "'%s': the two revisions have no merge base", range);
            goto out;
        }
        rc = git_commit_tree(&a, c) != 0 ? git_fail(err, "read the merge base's tree") : 0;
        git_commit_free(c);
    } else {
        rc = tree_of(spec.from, &a, range, err);
    }
    if (rc == 0 && spec.to) rc = tree_of(spec.to, &b, range, err);
    if (rc != 0) goto out;
    git_diff_options o;
    git_diff_options_init(&o, GIT_DIFF_OPTIONS_VERSION);
    g = spec.to ? git_diff_tree_to_tree(&diff, repo, a, b, &o) : git_diff_tree_to_workdir_with_index(&diff, repo, a, &o);
    if (g != 0 || git_diff_find_similar(diff, NULL) != 0 || git_diff_to_buf(&buf, diff, GIT_DIFF_FORMAT_PATCH) != 0) {
        rc = git_fail(err, "compute the diff");
        goto out;
    }
    if (buf.size > max) {
        rc = mg_err_set(err, MG_E_BAD_DIFF, "the change '%s' is %zu bytes of diff, over the %zu MiB an impact may "
                                            "read; name a shorter range or the paths", range, buf.size, max >> 20);
        goto out;
    }
    if (!(*text = malloc(buf.size + 1))) {
        rc = mg_err_oom(err);
        goto out;
    }
    memcpy(*text, buf.ptr ? buf.ptr : "", buf.size);
    (*text)[buf.size] = 0;
    *len = buf.size;
out:
    git_buf_dispose(&buf);
    git_diff_free(diff);
    git_tree_free(a);
    git_tree_free(b);
    git_object_free(spec.from);
    git_object_free(spec.to);
    git_repository_free(repo);
    return rc;
}

/* 1: walked as git; 0: not a git work tree; -1: error. */
static int walk_git(const char *root, int rootfd, uint64_t max, struct mg_walk *w, struct mg_err *err)
{
    git_repository *repo = NULL;
    git_index *idx = NULL;
    git_status_list *sl = NULL;
    int rc = -1;
    char prefix[PATH_MAX];
    if (!git_open(root, &repo, prefix)) return 0;
    size_t plen = strlen(prefix);

    if (git_repository_index(&idx, repo) != 0) {
        git_fail(err, "cannot read the git index");
        goto out;
    }
    size_t n = git_index_entrycount(idx);
    for (size_t i = 0; i < n; i++) {
        const git_index_entry *e = git_index_get_byindex(idx, i);
        if (!e || git_index_entry_stage(e) != 0) continue;
        if (plen && strncmp(e->path, prefix, plen) != 0) continue;
        if ((e->mode & 0170000) == 0160000) continue; /* submodule */
        if (git_add(w, rootfd, e->path, plen, max) != 0) goto nomem;
    }

    git_status_options so;
    git_status_options_init(&so, GIT_STATUS_OPTIONS_VERSION);
    so.show = GIT_STATUS_SHOW_WORKDIR_ONLY;
    so.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS |
               GIT_STATUS_OPT_EXCLUDE_SUBMODULES | GIT_STATUS_OPT_DISABLE_PATHSPEC_MATCH;
    char *ps = prefix;
    if (plen) {
        so.pathspec.strings = &ps;
        so.pathspec.count = 1;
    }
    if (git_status_list_new(&sl, repo, &so) != 0) {
        git_fail(err, "cannot list untracked files");
        goto out;
    }
    size_t ns = git_status_list_entrycount(sl);
    for (size_t i = 0; i < ns; i++) {
        const git_status_entry *se = git_status_byindex(sl, i);
        if (!se || !(se->status & GIT_STATUS_WT_NEW) || !se->index_to_workdir) continue;
        const char *p = se->index_to_workdir->new_file.path;
        if (plen && strncmp(p, prefix, plen) != 0) continue;
        if (git_add(w, rootfd, p, plen, max) != 0) goto nomem;
    }
    w->git = true;
    rc = 1;
    goto out;
nomem:
    mg_err_set(err, MG_E_NO_MEMORY, "out of memory listing files");
out:
    git_status_list_free(sl);
    git_index_free(idx);
    git_repository_free(repo);
    return rc;
}

/* ---- 3b. the rules one path at a time (the watcher) ------------------------ */

struct mg_walk_rules {
    char root[PATH_MAX];
    int rootfd;
    git_repository *repo; /* NULL: a plain directory */
    git_index *idx;
    char prefix[PATH_MAX]; /* root inside the work tree ("" or "dir/") */
};

int mg_walk_rules_open(const char *root, struct mg_walk_rules **out, struct mg_err *err)
{
    struct mg_walk_rules *r = calloc(1, sizeof(*r));
    if (!r) return mg_err_oom(err);
    snprintf(r->root, sizeof(r->root), "%s", root);
    r->rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (r->rootfd < 0) {
        mg_err_set(err, errno == EACCES ? MG_E_PERMISSION : MG_E_PATH_NOT_FOUND, "cannot open directory '%s': %s",
                   root, strerror(errno));
        free(r);
        return -1;
    }
    if (git_open(root, &r->repo, r->prefix) && git_repository_index(&r->idx, r->repo) != 0) {
        git_fail(err, "cannot read the git index");
        mg_walk_rules_close(r);
        return -1;
    }
    *out = r;
    return 0;
}

void mg_walk_rules_close(struct mg_walk_rules *r)
{
    if (!r) return;
    git_index_free(r->idx);
    git_repository_free(r->repo);
    if (r->rootfd >= 0) close(r->rootfd);
    free(r);
}

bool mg_walk_rules_git(const struct mg_walk_rules *r) { return r->repo != NULL; }

/* rel as the work tree names it (prefix + rel, and a '/' for a directory). */
static bool wt_path(const struct mg_walk_rules *r, const char *rel, bool dir, char out[PATH_MAX])
{
    int n = snprintf(out, PATH_MAX, "%s%s%s", r->prefix, rel, dir ? "/" : "");
    return n > 0 && n < PATH_MAX;
}

/* Whether a component of rel is one a walk never enters (.git always; the
 * plain walk's dependency and cache directories when not in git). */
static bool skipped_component(const struct mg_walk_rules *r, const char *rel)
{
    char comp[NAME_MAX + 1];
    for (const char *p = rel; *p;) {
        const char *e = strchr(p, '/');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n <= NAME_MAX) {
            memcpy(comp, p, n);
            comp[n] = 0;
            if (strcmp(comp, ".git") == 0 || (!r->repo && ignored_dir(comp))) return true;
        }
        if (!e) break;
        p = e + 1;
    }
    return false;
}

bool mg_walk_rules_skip_dir(struct mg_walk_rules *r, const char *rel)
{
    if (!*rel) return false;
    if (!good_name(rel) || skipped_component(r, rel)) return true;
    if (!r->repo) return false;
    char p[PATH_MAX];
    int ign = 0;
    if (!wt_path(r, rel, false, p)) return true;
    const git_index_entry *e = git_index_get_bypath(r->idx, p, 0); /* a submodule is a gitlink */
    if (e && (e->mode & 0170000) == 0160000) return true;
    return !wt_path(r, rel, true, p) || (git_ignore_path_is_ignored(&ign, r->repo, p) == 0 && ign);
}

/* Whether the file rel is one the full walk lists: in git, tracked, or
 * untracked and not ignored; plain, not under a skipped directory. */
static bool file_listed(struct mg_walk_rules *r, const char *rel)
{
    if (skipped_component(r, rel)) return false;
    if (!r->repo) return true;
    char p[PATH_MAX];
    if (!wt_path(r, rel, false, p)) return false;
    const git_index_entry *e = git_index_get_bypath(r->idx, p, 0);
    if (e) return (e->mode & 0170000) != 0160000;
    int ign = 0;
    return git_ignore_path_is_ignored(&ign, r->repo, p) == 0 && !ign;
}

static int add_tree(struct mg_walk_rules *r, const char *dir, uint64_t max, struct mg_walk *w);

/* One path of a batch: a file, a directory (everything in it), or gone. */
static int add_path(struct mg_walk_rules *r, const char *rel, uint64_t max, struct mg_walk *w)
{
    struct stat st;
    if (!*rel || fstatat(r->rootfd, rel, &st, AT_SYMLINK_NOFOLLOW) != 0) return 0; /* gone: the sweep's */
    if (S_ISDIR(st.st_mode)) return mg_walk_rules_skip_dir(r, rel) ? 0 : add_tree(r, rel, max, w);
    if (!file_listed(r, rel)) return 0;
    return consider(w, rel, &st, max);
}

static int add_tree(struct mg_walk_rules *r, const char *dir, uint64_t max, struct mg_walk *w)
{
    int fd = openat(r->rootfd, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0) close(fd);
        w->st.special++;
        return 0;
    }
    int rc = 0;
    struct dirent *de;
    char rel[PATH_MAX];
    while (rc == 0 && (de = readdir(d))) {
        const char *nm = de->d_name;
        if (nm[0] == '.' && (!nm[1] || (nm[1] == '.' && !nm[2]))) continue;
        int len = snprintf(rel, sizeof(rel), "%s/%s", dir, nm);
        if (len < 0 || (size_t)len >= sizeof(rel)) {
            w->st.bad_name++;
            continue;
        }
        rc = add_path(r, rel, max, w);
    }
    closedir(d);
    return rc;
}

int mg_walk_paths(struct mg_walk_rules *r, uint64_t max, const char *const *paths, size_t n, struct mg_walk *w,
                  struct mg_err *err)
{
    memset(w, 0, sizeof(*w));
    w->git = r->repo != NULL;
    if (r->idx && git_index_read(r->idx, 0) != 0) /* a checkout or `git add` since: read it again */
        return git_fail(err, "cannot read the git index");
    for (size_t i = 0; i < n; i++) {
        if (add_path(r, paths[i], max, w) != 0) {
            mg_walk_release(w);
            return mg_err_set(err, MG_E_NO_MEMORY, "out of memory listing files");
        }
    }
    if (w->n) qsort(w->v, w->n, sizeof(*w->v), cmp_entry);
    size_t k = 0; /* a file named twice (itself and in its directory) once */
    for (size_t i = 0; i < w->n; i++) {
        if (k && strcmp(w->v[k - 1].path, w->v[i].path) == 0) {
            w->total_bytes -= w->v[i].size;
            free(w->v[i].path);
            continue;
        }
        w->v[k++] = w->v[i];
    }
    w->n = k;
    return 0;
}

/* ---- 4. plain directories ------------------------------------------------ */

static int walk_plain(int rootfd, uint64_t max, struct mg_walk *w, struct mg_err *err)
{
    /* an explicit stack of relative directory paths; "" is the root */
    size_t cap = 64, n = 0;
    char **stack = malloc(cap * sizeof(char *));
    if (!stack || !(stack[n++] = strdup(""))) {
        free(stack);
        return mg_err_set(err, MG_E_NO_MEMORY, "out of memory listing files");
    }
    int rc = 0;
    char rel[PATH_MAX];
    while (n > 0 && rc == 0) {
        char *dir = stack[--n];
        int fd = *dir ? openat(rootfd, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : dup(rootfd);
        DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
        if (!d) {
            if (fd >= 0) close(fd);
            w->st.special++; /* unreadable directory: counted, walk goes on */
            free(dir);
            continue;
        }
        struct dirent *de;
        while ((de = readdir(d)) && rc == 0) {
            const char *nm = de->d_name;
            if (nm[0] == '.' && (!nm[1] || (nm[1] == '.' && !nm[2]))) continue;
            if (strcmp(nm, ".git") == 0) continue; /* git's, also as a file (gitdir: ...), never content */
            int len = snprintf(rel, sizeof(rel), "%s%s%s", dir, *dir ? "/" : "", nm);
            if (len < 0 || (size_t)len >= sizeof(rel)) { w->st.bad_name++; continue; }
            struct stat st;
            if (fstatat(rootfd, rel, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
            if (S_ISDIR(st.st_mode)) {
                if (ignored_dir(nm)) continue;
                if (!good_name(rel)) { w->st.bad_name++; continue; }
                if (n == cap) {
                    char **s = realloc(stack, (cap *= 2) * sizeof(char *));
                    if (!s) { rc = -1; break; }
                    stack = s;
                }
                if (!(stack[n++] = strdup(rel))) rc = -1;
                continue;
            }
            if (consider(w, rel, &st, max) != 0) rc = -1;
        }
        closedir(d);
        free(dir);
    }
    while (n > 0) free(stack[--n]);
    free(stack);
    if (rc != 0) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory listing files");
    return 0;
}

int mg_walk(const char *root, uint64_t max, struct mg_walk *w, struct mg_err *err)
{
    return mg_walk_ex(root, max, 0, w, err);
}

int mg_walk_ex(const char *root, uint64_t max, unsigned flags, struct mg_walk *w, struct mg_err *err)
{
    memset(w, 0, sizeof(*w));
    w->flags = flags;
    int rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (rootfd < 0)
        return mg_err_set(err, errno == EACCES ? MG_E_PERMISSION : errno == ENOTDIR ? MG_E_NOT_A_DIR : MG_E_PATH_NOT_FOUND,
                          "cannot open directory '%s': %s", root, strerror(errno));
    int rc = walk_git(root, rootfd, max, w, err);
    if (rc == 0) rc = walk_plain(rootfd, max, w, err);
    close(rootfd);
    if (rc < 0) {
        mg_walk_release(w);
        return -1;
    }
    if (w->n) qsort(w->v, w->n, sizeof(*w->v), cmp_entry);
    return 0;
}

/* ---- 5. reading beneath the root ------------------------------------------ */

static int open_beneath(int rootfd, const char *root, const char *rel)
{
    struct open_how how = {
        .flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY,
        .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
    };
    static int have_openat2 = 1;
    if (__atomic_load_n(&have_openat2, __ATOMIC_RELAXED)) {
        int fd = (int)syscall(SYS_openat2, rootfd, rel, &how, sizeof(how));
        if (fd >= 0 || (errno != ENOSYS && errno != EPERM)) return fd;
        __atomic_store_n(&have_openat2, 0, __ATOMIC_RELAXED);
    }
    /* fallback: open without following the last link, then check where the
     * descriptor really points */
    int fd = openat(rootfd, rel, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) return -1;
    char proc[64], real[PATH_MAX];
    snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
    ssize_t n = readlink(proc, real, sizeof(real) - 1);
    size_t rl = strlen(root);
    if (n < 0 || (size_t)n <= rl || strncmp(real, root, rl) != 0 || real[rl] != '/') {
        close(fd);
        errno = ELOOP;
        return -1;
    }
    return fd;
}

int mg_read_beneath(int rootfd, const char *root, const char *rel, uint64_t max, char **buf, size_t *len,
                    int64_t *mtime_ns, struct mg_err *err)
{
    *buf = NULL;
    *len = 0;
    int fd = open_beneath(rootfd, root, rel);
    if (fd < 0) {
        if (errno == ELOOP || errno == EXDEV || errno == ENOENT || errno == ENOTDIR) return 1;
        mg_err_set(err, errno == EACCES ? MG_E_PERMISSION : MG_E_IO, "cannot open '%s': %s", rel, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || !mg_walk_one_name(&st) || (uint64_t)st.st_size > max) {
        close(fd);
        return 1;
    }
    size_t cap = (size_t)st.st_size, n = 0;
    char *b = malloc(cap + 1);
    if (!b) {
        close(fd);
        mg_err_set(err, MG_E_NO_MEMORY, "out of memory reading '%s'", rel);
        return -1;
    }
    for (;;) {
        if (n == cap) {
            /* the file grew while we read: take what fits the cap */
            if (cap >= max) break;
            size_t nc = cap * 2 + 4096 > max ? (size_t)max : cap * 2 + 4096;
            char *nb = realloc(b, nc + 1);
            if (!nb) break;
            b = nb;
            cap = nc;
        }
        ssize_t r = read(fd, b + n, cap - n);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            int e = errno;
            free(b);
            close(fd);
            mg_err_set(err, e == EACCES ? MG_E_PERMISSION : MG_E_IO, "cannot read '%s': %s", rel, strerror(e));
            errno = e;
            return -1;
        }
        if (r == 0) break;
        n += (size_t)r;
    }
    close(fd);
    b[n] = 0;
    *buf = b;
    *len = n;
    if (mtime_ns) *mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
    return 0;
}
