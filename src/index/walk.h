/* walk.h — which files of a repo get indexed, and reading them safely.
 *
 * In a git work tree (found with libgit2, also when the root is a
 * subdirectory of one): tracked files plus untracked files that are not
 * ignored, so .gitignore, .git/info/exclude and core.excludesFile are
 * honoured; submodules are left out. In a plain directory: every file, minus
 * version-control, dependency and cache directories (DEFAULT_IGNORED_DIRS in
 * walk.c).
 *
 * Never indexed, never opened: symlinks (counted; a link is never followed,
 * in or out of the root), files with more than one hard link (counted with
 * the symlinks: mg_walk_one_name), special files, files over the size cap,
 * secret files by name (mg_is_secret_name), paths holding a secret (after
 * the walk: mg_walk_drop_secret_paths), names that are not valid UTF-8
 * or contain control characters, and `.git` whether a directory or a file.
 * Git metadata is read only when it lies inside the work tree
 * (util/gitrepo.h); otherwise the directory is walked as a plain one.
 */
#ifndef MG_WALK_H
#define MG_WALK_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "util/err.h"

struct mg_walk_entry {
    char *path;      /* relative to the root, '/'-separated */
    uint64_t size;
    int64_t mtime_ns;
};

struct mg_walk_stats {
    uint64_t seen;       /* candidate paths looked at */
    uint64_t too_large;  /* over max_file_size */
    uint64_t secret;     /* secret file names, never opened */
    uint64_t symlink;    /* symlinks, never followed; files with several hard links, never opened */
    uint64_t special;    /* not a regular file (device, fifo, socket, gone) */
    uint64_t bad_name;   /* not UTF-8, or control characters */
};

struct mg_walk {
    struct mg_walk_entry *v; /* sorted by path */
    size_t n, cap;
    uint64_t total_bytes;    /* sum of sizes of v */
    bool git;                /* walked with git rules */
    unsigned flags;          /* MG_WALK_* the walk was made with */
    struct mg_walk_stats st;
};

/* mg_walk_ex flags */
#define MG_WALK_SECRET_FILES 1u /* also list secret files (for `memgate scan`, which must read them) */

/* Walk the canonical directory `root`. Returns 0 or -1 (err set). */
int mg_walk(const char *root, uint64_t max_file_size, struct mg_walk *out, struct mg_err *err);
/* The same with MG_WALK_* flags; mg_walk is mg_walk_ex with 0. */
int mg_walk_ex(const char *root, uint64_t max_file_size, unsigned flags, struct mg_walk *out, struct mg_err *err);
void mg_walk_release(struct mg_walk *w);

/* The walk's rules one path at a time, for a watcher's batches: a handle on
 * the root (and its git work tree and index, when in one). Not thread-safe:
 * one thread uses a handle. */
struct mg_walk_rules;
int mg_walk_rules_open(const char *root, struct mg_walk_rules **out, struct mg_err *err);
void mg_walk_rules_close(struct mg_walk_rules *r);
bool mg_walk_rules_git(const struct mg_walk_rules *r);
/* Whether the walk never enters the directory rel: .git, an ignored or
 * submodule directory in git, a dependency or cache directory when plain. */
bool mg_walk_rules_skip_dir(struct mg_walk_rules *r, const char *rel);
/* The entries the full walk would list among the root-relative paths given
 * (each a file, or a directory standing for everything under it; a path
 * that is gone lists nothing), sorted, each once. The git index is read
 * again first. */
int mg_walk_paths(struct mg_walk_rules *r, uint64_t max, const char *const *paths, size_t n, struct mg_walk *w,
                  struct mg_err *err);

/* The change a git revision range makes, as git's unified diff (renames
 * found), into a malloc'd *text of at most max bytes: "A..B" (A's tree to
 * B's), "A...B" (from their merge base to B), or "A" alone (A to the work
 * tree as it is now, staged or not). prefix gets root's place in the work
 * tree ("" or "dir/"): the diff's paths start with it. invalid_revision when
 * root is in no git work tree or git does not know a revision; invalid_diff
 * when the diff is larger than max. */
int mg_walk_diff(const char *root, const char *range, size_t max, char **text, size_t *len, char prefix[PATH_MAX],
                 struct mg_err *err);

struct mg_scanner;
struct mg_secret_policy;
/* Drop from w the entries whose path holds a secret (a finding of s whose
 * severity p does not keep), counted as secret: a token in a file or
 * directory name would otherwise be stored in the index as the file's path
 * (issue 38, V8). The paths are scanned as one text, a line each. 0, or -1
 * with err (w unchanged). */
int mg_walk_drop_secret_paths(struct mg_walk *w, const struct mg_scanner *s, const struct mg_secret_policy *p,
                              struct mg_err *err);

/* May the regular file st describes be indexed and served: does it have one
 * name only (st_nlink 1)? A hard link is another name of the same file, and
 * it may sit anywhere on the file system (another tenant's working copy,
 * memgate's data directory) with nothing in the file telling where. Only the
 * link count does, so a file with more than one is never read: not by the
 * walk, the watcher, mg_read_beneath nor read_file, whether its other names
 * are inside the root or not (the price: in-repo hard links and hard-linked
 * package stores such as pnpm's are skipped and counted). Checked on the
 * descriptor that is read, so a link made after the check of a path does not
 * slip through. */
bool mg_walk_one_name(const struct stat *st);

/* Is this file name (the last path component) a secret file that must never
 * be opened: .env, .env.*, *.pem, *.key, id_rsa*, credentials*, .netrc, ... */
bool mg_is_secret_name(const char *name);
/* The last component of a relative path (what follows its last '/'). */
const char *mg_base_name(const char *p);

/* Open root-relative `rel` for reading without following any symlink and
 * without leaving the root (openat2 RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS, or a
 * /proc/self/fd check where openat2 is missing), check it is a regular file of
 * at most max bytes, and read it whole into a malloc'd NUL-terminated buffer.
 * Returns 0; 1 when it is no longer a regular file or is now too large (skip
 * it); -1 on a read error (errno kept, err set). */
int mg_read_beneath(int rootfd, const char *root, const char *rel, uint64_t max, char **buf, size_t *len,
                    int64_t *mtime_ns, struct mg_err *err);

#endif
