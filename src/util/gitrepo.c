/* gitrepo.c — a working copy's git repository opened only when its
 * metadata stays inside its work tree (gitrepo.h). */
#include "util/gitrepo.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define ALTERNATES_MAX (64 << 10) /* bytes of objects/info/alternates read; a longer one is refused */

static pthread_once_t once = PTHREAD_ONCE_INIT;
static void init(void) { git_libgit2_init(); }

/* Is the canonical path p dir itself or inside it? */
static bool inside(const char *p, const char *dir)
{
    size_t n = strlen(dir);
    if (n == 1 && dir[0] == '/') return true;
    return strncmp(p, dir, n) == 0 && (p[n] == 0 || p[n] == '/');
}

/* The canonical form of a path libgit2 gave (it may end with '/'). */
static bool canon(const char *p, char out[PATH_MAX])
{
    return p && realpath(p, out) != NULL;
}

/* Each alternate object directory of the common directory cd resolves
 * inside wd (or there are none). A line is a path, absolute or relative to
 * the objects directory; '#' lines are comments. */
static bool alternates_inside(const char *cd, const char *wd)
{
    char path[PATH_MAX + 32], objects[PATH_MAX + 16];
    snprintf(objects, sizeof(objects), "%s/objects", cd);
    snprintf(path, sizeof(path), "%s/info/alternates", objects);
    FILE *f = fopen(path, "re");
    if (!f) return errno == ENOENT;
    struct stat st;
    bool ok = fstat(fileno(f), &st) == 0 && st.st_size <= ALTERNATES_MAX;
    char line[PATH_MAX + 2], full[2 * PATH_MAX + 20], real[PATH_MAX];
    while (ok && fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\r\n")] = 0;
        if (!line[0] || line[0] == '#') continue;
        if (line[0] == '/') snprintf(full, sizeof(full), "%s", line);
        else snprintf(full, sizeof(full), "%s/%s", objects, line);
        ok = realpath(full, real) && inside(real, wd); /* one that does not resolve is refused too */
    }
    fclose(f);
    return ok;
}

int mg_git_open(const char *root, git_repository **repo, char prefix[PATH_MAX], struct mg_err *err)
{
    pthread_once(&once, init);
    *prefix = 0;
    *repo = NULL;
    git_repository *r = NULL;
    if (git_repository_open_ext(&r, root, 0, NULL) != 0) {
        git_error_clear();
        return 0;
    }
    char wd[PATH_MAX], gd[PATH_MAX], cd[PATH_MAX], want[PATH_MAX + 8];
    if (git_repository_is_bare(r) || !canon(git_repository_workdir(r), wd)) {
        git_repository_free(r);
        return 0;
    }
    if (!inside(root, wd)) { /* core.worktree elsewhere: root is not in this repository's work tree */
        git_repository_free(r);
        return 0;
    }
    snprintf(want, sizeof(want), "%s%s.git", wd, strcmp(wd, "/") == 0 ? "" : "/");
    struct stat st;
    const char *why = NULL;
    if (!canon(git_repository_path(r), gd) || strcmp(gd, want) != 0 || lstat(want, &st) != 0 || !S_ISDIR(st.st_mode))
        why = "its git directory is not the work tree's own .git directory (a .git file: a linked worktree, a "
              "submodule or a link to another repository; or core.worktree)";
    else if (!canon(git_repository_commondir(r), cd) || strcmp(cd, gd) != 0)
        why = "its git directory shares the objects and refs of another one (a commondir file)";
    else if (!alternates_inside(cd, wd))
        why = "it borrows objects from a repository outside its work tree (objects/info/alternates)";
    if (why) {
        git_repository_free(r);
        return mg_err_set(err, MG_E_BAD_REVISION, "the git metadata of the working copy at '%s' lies outside "
                          "it: %s; memgate reads no git history or index from outside a working copy, so it is "
                          "walked as a plain directory", root, why);
    }
    if (strcmp(root, wd) != 0) snprintf(prefix, PATH_MAX, "%s/", root + strlen(wd) + (strcmp(wd, "/") == 0 ? 0 : 1));
    *repo = r;
    return 1;
}
