/* gitrepo.h — opening the git repository of a working copy, confined to it.
 *
 * A working copy's git metadata is read (its index for the walk, its
 * objects for impact's revisions, its config and refs for a webhook's match
 * and pull) only when all of it lies inside the work tree, in git's plain
 * layout: the git directory is `<work tree>/.git`, a directory, and is also
 * the common directory, and every alternate object directory it names
 * (objects/info/alternates) resolves inside the work tree. A `.git` file
 * (gitdir: ...: a linked worktree, a submodule, or a link planted to
 * another tenant's repository), a commondir file, core.worktree moving the
 * work tree elsewhere, and alternates outside (git clone --shared or
 * --reference) are refused: memgate never reads another repository's
 * history or index through a working copy. Such a working copy is walked as
 * a plain directory, and git revisions mean nothing in it.
 */
#ifndef MG_GITREPO_H
#define MG_GITREPO_H

#include <limits.h>

#include <git2.h>

#include "util/err.h"

/* Open the git work tree that holds the canonical directory root (root
 * itself or an ancestor of it), confined as above. 1: *repo opened (free it
 * with git_repository_free) and prefix gets root's place in the work tree
 * ("" or "dir/"); 0: root is in no work tree (or a bare repository's);
 * -1: there is a work tree but its metadata leaves it (err says why,
 * invalid_revision, naming no path outside root). libgit2 is
 * initialised once for the process. */
int mg_git_open(const char *root, git_repository **repo, char prefix[PATH_MAX], struct mg_err *err);

#endif
