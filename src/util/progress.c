/* progress.c — the table of index runs under way (progress.h). */
#include "util/progress.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static struct mg_progress_live live[MG_PROGRESS_LIVE_MAX];
static bool used[MG_PROGRESS_LIVE_MAX];
static pthread_mutex_t live_mu = PTHREAD_MUTEX_INITIALIZER;

static int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The slot of (tenant, what), or -1 (live_mu held). */
static int find(const char *tenant, const char *what)
{
    for (int i = 0; i < MG_PROGRESS_LIVE_MAX; i++)
        if (used[i] && strcmp(live[i].tenant, tenant) == 0 && strcmp(live[i].what, what) == 0) return i;
    return -1;
}

void mg_progress_live_update(const char *tenant, const struct mg_progress *p)
{
    if (!p->what || !p->phase) return;
    if (!tenant) tenant = "";
    pthread_mutex_lock(&live_mu);
    int i = find(tenant, p->what);
    for (int k = 0; i < 0 && k < MG_PROGRESS_LIVE_MAX; k++)
        if (!used[k]) {
            i = k;
            used[i] = true;
            memset(&live[i], 0, sizeof(live[i]));
            snprintf(live[i].tenant, sizeof(live[i].tenant), "%s", tenant);
            snprintf(live[i].what, sizeof(live[i].what), "%s", p->what);
            live[i].started_ms = wall_ms();
        }
    if (i >= 0) {
        struct mg_progress_live *l = &live[i];
        snprintf(l->phase, sizeof(l->phase), "%s", p->phase);
        l->done = p->done;
        l->total = p->total;
        l->bytes = p->bytes;
        l->total_bytes = p->total_bytes;
        l->seconds = p->seconds;
    }
    pthread_mutex_unlock(&live_mu);
}

void mg_progress_live_end(const char *tenant, const char *what)
{
    if (!what) return;
    pthread_mutex_lock(&live_mu);
    int i = find(tenant ? tenant : "", what);
    if (i >= 0) used[i] = false;
    pthread_mutex_unlock(&live_mu);
}

size_t mg_progress_live_list(const char *only, struct mg_progress_live *out, size_t cap)
{
    size_t n = 0;
    pthread_mutex_lock(&live_mu);
    for (int i = 0; i < MG_PROGRESS_LIVE_MAX && n < cap; i++)
        if (used[i] && (!only || strcmp(live[i].tenant, only) == 0)) out[n++] = live[i];
    pthread_mutex_unlock(&live_mu);
    return n;
}
