/* nav_int.h — what navigation's files share (search/nav*.c, impact.c). */
#ifndef MG_NAV_INT_H
#define MG_NAV_INT_H

#include "search/nav.h"

/* A file's definitions (symbols lo..hi, by id) appended to *defs (*ndefs of
 * them; grown with mg_grow): name, kind and container owned by the array,
 * path borrowed, file_id fid. 0, or -1 out of memory (the rows read so far
 * stay, owned). */
int mg__nav_read_defs(struct mg_db *d, int64_t lo, int64_t hi, char *path, int64_t fid, struct mg_nav_def **defs,
                      size_t *ndefs);

#endif
