/* impact_int.h — what impact.c and diff.c share: the lines of a diff. */
#ifndef MG_IMPACT_INT_H
#define MG_IMPACT_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "search/impact.h"

struct line {
    const char *s;
    size_t n;  /* without the newline */
    size_t no; /* 1-based, in the diff */
};

/* The next line of t[*pos .. len) into *l (*no counts them); false at the end. */
bool mg__diff_line(const char *t, size_t len, size_t *pos, size_t *no, struct line *l);

#endif
