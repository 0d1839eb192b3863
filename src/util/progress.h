/* progress.h — where long work stands, as its workers report it (an index
 * run and its embedding pass) to whoever shows it (the code provider turns
 * it into a line for the client: request/ctx.h's channel). */
#ifndef MG_PROGRESS_H
#define MG_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mg_progress {
    const char *what;        /* the subject: a repo id */
    const char *phase;       /* "index" (walk, read, parse, store), "marks" (an older index's symbol marks, once), "merge" (the word index), "embed" */
    uint64_t done, total;    /* files (index, embed) */
    uint64_t bytes, total_bytes; /* index: bytes read of the walk's */
    double seconds;          /* since the phase began */
    bool final;              /* the phase's last report */
};

typedef void (*mg_progress_fn)(void *ud, const struct mg_progress *p);

/* Index runs under way in this process, as their last reports left them
 * (the dashboard shows them, http/dash.c): the code provider reports every
 * run it makes (code/code.c) and ends it when the run returns. A fixed table
 * of MG_PROGRESS_LIVE_MAX runs under a mutex; a run past that is not shown. */
#define MG_PROGRESS_LIVE_MAX 32
struct mg_progress_live {
    char tenant[65];
    char what[256];          /* the repo id */
    char phase[16];
    uint64_t done, total, bytes, total_bytes;
    double seconds;          /* since the phase began */
    int64_t started_ms;      /* unix ms of the run's first report */
};
void mg_progress_live_update(const char *tenant, const struct mg_progress *p);
void mg_progress_live_end(const char *tenant, const char *what);
/* Copy up to cap runs (of tenant `only`, or all when NULL) to out; how many. */
size_t mg_progress_live_list(const char *only, struct mg_progress_live *out, size_t cap);

#endif
