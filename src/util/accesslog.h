/* accesslog.h — `memgate serve`'s access log: one line per HTTP request, to
 * stderr or a file that is rotated by size.
 *
 * A line is written with one write(2) (the file is opened O_APPEND), so the
 * lines of concurrent threads never interleave, nor those of another writer
 * of the same file. A file that passes max_bytes is renamed PATH.1 (PATH.1
 * becomes PATH.2, ... up to PATH.keep; the oldest is removed) and a new PATH
 * is opened; keep 0 truncates instead. mg_access_log_configure also reopens,
 * for an external logrotate (SIGHUP).
 *
 * One process-wide log; safe from any thread.
 */
#ifndef MG_ACCESSLOG_H
#define MG_ACCESSLOG_H

#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"

/* dest: "off", "stderr" or an absolute path (config access_log). Replaces
 * the log in use (reopening the file even when the path is unchanged). 0, or
 * -1 with err (the file cannot be opened: the log in use stays). */
int mg_access_log_configure(const char *dest, size_t max_bytes, int keep, struct mg_err *err);
/* Logging is on (a line would be written). */
bool mg_access_log_on(void);
/* Write one line (len bytes, without its '\n': added here). A failed
 * write is dropped, never returned: a full disk does not fail a request. */
void mg_access_log_write(const char *line, size_t len);
/* Close the file (logging off). */
void mg_access_log_close(void);

#endif
