/* common.h — small helpers shared by the security modules (tokens, audit).
 *
 * Time: wall-clock milliseconds, RFC 3339 UTC formatting with milliseconds,
 * and the duration / time arguments the CLI takes (`30d`, `2h`,
 * `2025-01-31`, `2025-01-31T12:00:00Z`). Files: a whole read, a 0700 `mkdir -p`.
 * Names: tenants are [a-z0-9._-]{1,64}.
 */
#ifndef MG_SEC_COMMON_H
#define MG_SEC_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

#define MG_TENANT_MAX 64

/* Unix time in milliseconds (CLOCK_REALTIME). */
int64_t mg_wall_ms(void);
/* "2025-01-31T12:00:00.123Z" (24 characters) into out. */
void mg_rfc3339_ms(int64_t unix_ms, char out[32]);
/* "90", "90s", "15m", "2h", "30d", "2w" into seconds (> 0); -1 on a bad value. */
int mg_parse_duration(const char *s, int64_t *secs);
/* A point in time: a duration meaning that long before now_ms ("2h"), a date
 * "YYYY-MM-DD" (midnight UTC), or "YYYY-MM-DDTHH:MM[:SS[.fff]]" with an
 * optional "Z" (UTC). Unix milliseconds into *ms; -1 on a bad value. */
int mg_parse_time(const char *s, int64_t now_ms, int64_t *ms);

/* mg_word_ok(s, MG_TENANT_MAX): what tenants may be called. */
bool mg_tenant_ok(const char *s);
/* 0, or -1 with name_invalid when s is not a valid tenant name. */
int mg_tenant_check(const char *s, struct mg_err *err);

/* Read from fd into buf until n bytes, the end of the file or an error (a
 * read cut short or interrupted goes on): the bytes read; fewer than n with
 * errno set for an error. */
size_t mg_read_full(int fd, void *buf, size_t n);
/* mkdir -p path, creating missing directories 0700. */
int mg_mkdirs_0700(const char *path, struct mg_err *err);
/* sodium_init() once per process (thread-safe). */
void mg_sodium_ready(void);

#endif
