/* history.c — see history.h.
 *
 * Sections:
 *   1. the series and the ring
 *   2. counting and sampling
 *   3. reading back
 */
#include "util/history.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* ---- 1. the series and the ring -------------------------------------------------------------------------- */

struct key {
    char tenant[65];
    char name[MG_HISTORY_NAME_MAX];
};

struct count {
    uint64_t calls, errors, ns;
};

struct gval {
    uint32_t key; /* into gkeys */
    int64_t v[3];
};

struct sample {
    int64_t t;
    size_t nc, ng;
    struct count *c; /* the counter series 0..nc-1 at t */
    struct gval *g;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct key ckeys[MG_HISTORY_COUNTERS], gkeys[MG_HISTORY_GAUGES];
static struct count counts[MG_HISTORY_COUNTERS];
static size_t ncounters, ngauges;
static uint64_t dropped; /* calls and gauge values past the caps: not kept */
static struct sample ring[MG_HISTORY_SAMPLES];
static size_t head, nsamples; /* the oldest sample is ring[(head + MG_HISTORY_SAMPLES - nsamples) % ...] */

static void key_set(struct key *k, const char *tenant, const char *name)
{
    snprintf(k->tenant, sizeof(k->tenant), "%s", tenant ? tenant : "");
    snprintf(k->name, sizeof(k->name), "%s", name ? name : "");
}

static bool key_is(const struct key *k, const char *tenant, const char *name)
{
    return strncmp(k->tenant, tenant ? tenant : "", sizeof(k->tenant) - 1) == 0 &&
           strncmp(k->name, name ? name : "", sizeof(k->name) - 1) == 0;
}

/* The series of (tenant, name) in keys (mu held): its index, a new one, or -1 when the table is full. */
static long find(struct key *keys, size_t *n, size_t cap, const char *tenant, const char *name)
{
    for (size_t i = 0; i < *n; i++)
        if (key_is(&keys[i], tenant, name)) return (long)i;
    if (*n == cap) {
        dropped++;
        return -1;
    }
    key_set(&keys[*n], tenant, name);
    return (long)(*n)++;
}

/* ---- 2. counting and sampling ---------------------------------------------------------------------------- */

void mg_history_count(const char *tenant, const char *name, bool ok, double seconds)
{
    pthread_mutex_lock(&mu);
    long i = find(ckeys, &ncounters, MG_HISTORY_COUNTERS, tenant, name);
    if (i >= 0) {
        counts[i].calls++;
        if (!ok) counts[i].errors++;
        counts[i].ns += seconds > 0 ? (uint64_t)(seconds * 1e9) : 0;
    }
    pthread_mutex_unlock(&mu);
}

int mg_history_sample(int64_t t_ms, const struct mg_history_gauge *g, size_t n)
{
    struct gval *gv = n ? malloc(n * sizeof(*gv)) : NULL;
    struct count *c = malloc(MG_HISTORY_COUNTERS * sizeof(*c));
    if ((n && !gv) || !c) {
        free(gv);
        free(c);
        return -1;
    }
    pthread_mutex_lock(&mu);
    size_t ng = 0;
    for (size_t i = 0; i < n; i++) {
        long k = find(gkeys, &ngauges, MG_HISTORY_GAUGES, g[i].tenant, g[i].name);
        if (k < 0) continue;
        gv[ng].key = (uint32_t)k;
        memcpy(gv[ng++].v, g[i].v, sizeof(gv[0].v));
    }
    memcpy(c, counts, ncounters * sizeof(*c));
    struct sample *s = &ring[head];
    free(s->c);
    free(s->g);
    *s = (struct sample){.t = t_ms, .nc = ncounters, .ng = ng, .c = c, .g = gv};
    head = (head + 1) % MG_HISTORY_SAMPLES;
    if (nsamples < MG_HISTORY_SAMPLES) nsamples++;
    pthread_mutex_unlock(&mu);
    return 0;
}

void mg_history_reset(void)
{
    pthread_mutex_lock(&mu);
    for (size_t i = 0; i < MG_HISTORY_SAMPLES; i++) {
        free(ring[i].c);
        free(ring[i].g);
        ring[i] = (struct sample){0};
    }
    head = nsamples = ncounters = ngauges = 0;
    dropped = 0;
    memset(counts, 0, sizeof(counts));
    pthread_mutex_unlock(&mu);
}

/* ---- 3. reading back ------------------------------------------------------------------------------------- */

/* Add one counter series' values to the reader's sum for its name (several tenants may share a name). */
static int add_counter(json_t *o, const char *name, const struct count *c)
{
    json_t *a = json_object_get(o, name);
    if (!a) {
        a = json_pack("[I, I, f]", (json_int_t)c->calls, (json_int_t)c->errors, (double)c->ns / 1e9);
        return a ? json_object_set_new(o, name, a) : -1;
    }
    json_int_t calls = json_integer_value(json_array_get(a, 0)), errors = json_integer_value(json_array_get(a, 1));
    double sec = json_real_value(json_array_get(a, 2));
    return json_array_set_new(a, 0, json_integer(calls + (json_int_t)c->calls)) ||
                   json_array_set_new(a, 1, json_integer(errors + (json_int_t)c->errors)) ||
                   json_array_set_new(a, 2, json_real(sec + (double)c->ns / 1e9))
               ? -1
               : 0;
}

static json_t *sample_json(const struct sample *s, const struct mg_history_filter *f)
{
    json_t *cs = json_object(), *gs = json_object();
    json_t *o = json_pack("{s:I, s:o, s:o}", "t", (json_int_t)s->t, "counters", cs, "gauges", gs);
    if (!o) return NULL;
    for (size_t i = 0; i < s->nc; i++) {
        if (f->tenant && strcmp(ckeys[i].tenant, f->tenant) != 0) continue;
        if (add_counter(cs, ckeys[i].name, &s->c[i]) != 0) goto oom;
    }
    for (size_t i = 0; i < s->ng; i++) {
        const struct key *k = &gkeys[s->g[i].key];
        if (!f->keep || !f->keep(k->tenant, k->name, f->ud)) continue;
        const int64_t *v = s->g[i].v;
        if (json_object_set_new(gs, k->name, json_pack("[I, I, I]", (json_int_t)v[0], (json_int_t)v[1],
                                                       (json_int_t)v[2])) != 0)
            goto oom;
    }
    return o;
oom:
    json_decref(o);
    return NULL;
}

json_t *mg_history_json(const struct mg_history_filter *f)
{
    json_t *a = json_array();
    if (!a) return NULL;
    pthread_mutex_lock(&mu);
    for (size_t k = 0; k < nsamples; k++) {
        const struct sample *s = &ring[(head + MG_HISTORY_SAMPLES - nsamples + k) % MG_HISTORY_SAMPLES];
        json_t *o = sample_json(s, f);
        if (!o || json_array_append_new(a, o) != 0) {
            pthread_mutex_unlock(&mu);
            json_decref(a);
            return NULL;
        }
    }
    json_int_t lost = (json_int_t)dropped;
    pthread_mutex_unlock(&mu);
    return json_pack("{s:o, s:i, s:I}", "samples", a, "capacity", MG_HISTORY_SAMPLES, "left_out", lost);
}
