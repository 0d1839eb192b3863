/* fixtures.h — fixture repos and JSON helpers for CLI tests (fixtures.c). */
#ifndef MG_FIXTURES_H
#define MG_FIXTURES_H

#include "test.h"

/* Build the polyglot git fixture in dir (see fixtures.c for its contents). */
void mg_fx_polyglot(const char *dir);
/* Run memgate with argv (which must produce JSON on stdout and exit 0). */
json_t *mg_fx_run_json(const char *cwd, const char *home, const char *const argv[]);
/* `memgate search QUERY --mode MODE --limit N --json` in cwd. */
json_t *mg_fx_search(const char *cwd, const char *home, const char *query, const char *mode, int limit);
/* Does a search result list a hit at path (and symbol, unless NULL)? */
int mg_fx_has_hit(json_t *res, const char *path, const char *symbol);
/* An integer at a dotted path ("files.added"), or FAIL. */
long long mg_fx_int(json_t *j, const char *dotted);
/* Change one byte in the middle of one file's sealed vectors in repo id's
 * index under home (always to another value: the bytes are random, so any
 * fixed mapping of one byte leaves some unchanged). */
void mg_fx_tamper_vectors(const char *home, const char *id);

#endif
