/* progress.h — where long work stands, as its workers report it (an index
 * run and its embedding pass) to whoever shows it (the code provider turns
 * it into a line for the client: request/ctx.h's channel). */
#ifndef MG_PROGRESS_H
#define MG_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

struct mg_progress {
    const char *what;        /* the subject: a repo id */
    const char *phase;       /* "index" (walk, read, parse, store), "merge" (the word index), "embed" */
    uint64_t done, total;    /* files (index, embed) */
    uint64_t bytes, total_bytes; /* index: bytes read of the walk's */
    double seconds;          /* since the phase began */
    bool final;              /* the phase's last report */
};

typedef void (*mg_progress_fn)(void *ud, const struct mg_progress *p);

#endif
