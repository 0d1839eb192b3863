/* file.h — files written whole or not at all.
 *
 * mg_file_replace writes a file beside its final name as a file with no name
 * (O_TMPFILE: a process killed meanwhile leaves nothing behind), syncs it,
 * names it when complete, then renames it over the old one; a reader sees
 * the old file or the new one, never a part. Where the file system has no
 * O_TMPFILE, a named temporary file (removed on failure). */
#ifndef MG_FILE_H
#define MG_FILE_H

#include <stdio.h>

#include "util/err.h"

/* write: puts the contents into f (buffered; fflush and fsync follow);
 * 0, or -1 with errno set. */
typedef int (*mg_file_writer)(FILE *f, void *arg);

/* 0, or -1 with err set (io_error naming path and the reason). */
int mg_file_replace(const char *path, mg_file_writer write, void *arg, struct mg_err *err);

#endif
