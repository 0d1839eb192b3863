/* impact.h — what a change touches: the definitions a diff changes, adds or
 * removes, and, transitively, their callers up to a depth, ranked.
 *
 * A change comes as a unified diff (git diff, diff -u; mg_diff_parse), or as
 * a list of paths (every definition in them changed; mg_diff_of_paths). The
 * repo's index is taken to hold the diff's new side (a working tree's diff,
 * or HEAD after a commit): the new side's definitions are read from the
 * symbols table, and the old side's are parsed from the text the diff's hunks
 * give back when reversed onto the stored text. A definition whose name the
 * new file no longer defines is "removed": its callers are the call sites
 * that still name it (they break). Callers come from search/nav.h's walk,
 * kept only where they reach a changed definition.
 */
#ifndef MG_IMPACT_H
#define MG_IMPACT_H

#include <stdbool.h>
#include <stddef.h>

#include "search/nav.h"
#include "store/db.h"
#include "util/err.h"

#define MG_DIFF_MAX_BYTES (16u << 20) /* a diff's text */
#define MG_DIFF_MAX_FILES 5000        /* files in one diff */
#define MG_DIFF_MAX_HUNKS 100000      /* hunks in one diff, all files */

struct mg_diff_hunk {
    int old_start, old_len, new_start, new_len;
    size_t body, body_len; /* the hunk's lines (' ', '+', '-', '\'), offsets into the diff's text */
};

struct mg_diff_file {
    char *old_path, *new_path; /* repo-relative; NULL for /dev/null (added, deleted) */
    struct mg_diff_hunk *h;
    size_t nh, caph;
    bool whole;                /* every line changed (a path given, not a diff) */
};

struct mg_diff {
    const char *text;          /* borrowed: the hunks point into it */
    struct mg_diff_file *v;
    size_t n, cap;
};

/* Parse a unified diff of len bytes (at most MG_DIFF_MAX_BYTES): git's
 * (`diff --git`, renames, /dev/null, quoted paths, "\ No newline") or plain
 * `diff -u`/`-ruN` (a/ and b/ prefixes dropped when both sides have them).
 * Text between files (commit messages, `index` lines) is skipped. Errors
 * (invalid_diff): no file in it, a hunk header that does not parse, a hunk
 * whose lines do not add up to its counts, a path that is absolute or has
 * `..`, the caps. text must outlive out. */
int mg_diff_parse(const char *text, size_t len, struct mg_diff *out, struct mg_err *err);
/* A change of every definition in each path (repo-relative, checked as in a diff). */
int mg_diff_of_paths(const char *const *paths, size_t n, struct mg_diff *out, struct mg_err *err);
/* Keep what lies under prefix ("dir/", the repo's place in a larger work
 * tree; "" keeps all), prefix cut from the paths. */
void mg_diff_within(struct mg_diff *d, const char *prefix);
void mg_diff_release(struct mg_diff *d);

struct mg_impact_changed {
    struct mg_nav_def d;       /* removed: lines are the old file's */
    const char *change;        /* static: "modified", "added", "removed" */
};

struct mg_impact_hit {
    struct mg_nav_def d;       /* a caller, transitively, of a changed definition */
    int depth;                 /* 1: calls a changed definition directly */
    double score;              /* the rank: calls into the change, nearer and surer weigh more */
    char *calls;               /* the name it calls on its nearest way to the change */
    int call_line;
    const char *confidence;    /* static: that call's resolution (nav.h's values) */
};

struct mg_impact_skip {
    char *path;
    const char *reason;        /* static: "not_indexed" (unknown, out of scope, or not code), "stale" (the
                                * diff's new side is not what the index holds) */
};

struct mg_impact {
    struct mg_impact_changed *changed; /* by path, then line */
    size_t nchanged, capchanged;
    struct mg_impact_hit *v;   /* best first, at most limit */
    size_t n, cap;
    size_t total;              /* callers found before the limit */
    struct mg_impact_skip *skipped;
    size_t nskipped, capskipped;
    bool truncated;            /* the walk's caps or the deadline stopped it */
};

/* depth: caller levels (1..MG_NAV_DEPTH_MAX); limit: hits listed. */
int mg_nav_impact(struct mg_db *d, const struct mg_filter *f, const struct mg_diff *diff, int depth, size_t limit,
                  double deadline, struct mg_impact *out, struct mg_err *err);
void mg_impact_release(struct mg_impact *im);

#endif
