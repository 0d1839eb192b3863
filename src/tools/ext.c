/* ext.c — see ext.h. */
#include "tools/ext.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "request/server.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/metrics.h"
#include "util/rrf.h"

static void *run_one(void *arg)
{
    struct mg_ext_one *o = arg;
    double t0 = mg_clock_ms();
    o->rc = mg_gate_run(o->x, &o->op, &o->t, &o->args, &o->items, &o->err);
    o->took_ms = mg_clock_ms() - t0;
    return NULL;
}

void mg_ext_start(struct mg_ctx *x, const struct mg_code_query *q, struct mg_ext_run *r)
{
    memset(r, 0, sizeof(*r));
    int n = mg_ext_providers(x->srv);
    for (int i = 0; i < n; i++) {
        bool serves = false;
        for (size_t k = 0; k < x->nrepos && !serves; k++)
            serves = mg_mcp_provider_serves(&x->srv->cfg, i, x->repos[k].id);
        if (!serves) continue; /* never asked about a repo it is not configured for */
        struct mg_ext_one *o = &r->one[r->n++];
        o->x = x;
        mg_op_ext_search(x->srv, i, &o->op);
        o->q = *q;
        o->args.provider = i;
        o->args.q = &o->q;
        /* the request is resolved: the target is not read again */
        mg_items_init(&o->items);
        if (pthread_create(&o->th, NULL, run_one, o) == 0) o->started = true;
        else run_one(o);
    }
}

void mg_ext_join(struct mg_ext_run *r)
{
    for (int i = 0; i < r->n; i++) {
        struct mg_ext_one *o = &r->one[i];
        if (o->started) pthread_join(o->th, NULL);
        o->started = false;
        o->got = o->items.n;
        if (o->rc == 0) continue;
        const char *name = o->x->srv->cfg.mcp_providers[o->args.provider].name;
        mg_metrics_provider_error(name);
        fprintf(stderr, "memgate: provider %s: error[%s]: %s (the request goes on without it)\n", name,
                o->err.code ? o->err.code : MG_E_INTERNAL, o->err.msg);
    }
}

struct fused {
    struct mg_item *it;
    double score;
    size_t order; /* first seen: memgate's own first, then the providers' in turn */
};

static int cmp_fused(const void *a, const void *b)
{
    const struct fused *x = a, *y = b;
    if (x->score != y->score) return x->score > y->score ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* The fused entry a provider's hit h joins: one of the same repo and path whose lines hold h's line. */
static struct fused *find_same(struct fused *v, size_t n, const struct mg_code_hit *h)
{
    for (size_t i = 0; i < n; i++) {
        if (v[i].it->type != &mg_item_code_hit) continue;
        const struct mg_code_hit *o = (const struct mg_code_hit *)v[i].it;
        if (!o->repo || !o->path || !h->repo || !h->path || strcmp(o->repo, h->repo) != 0 ||
            strcmp(o->path, h->path) != 0)
            continue;
        if (h->start_line <= o->end_line && h->end_line >= o->start_line) return &v[i];
    }
    return NULL;
}

void mg_ext_fuse(struct mg_ext_run *r, struct mg_items *own, size_t limit)
{
    size_t total = own->n;
    bool any = false;
    for (int i = 0; i < r->n; i++) {
        total += r->one[i].items.n;
        any |= r->one[i].items.n > 0;
        /* the gate's account: what it redacted, flagged, left out in the providers' lists */
        own->redactions += r->one[i].items.redactions;
        own->flags |= r->one[i].items.flags;
        mg_injinfo_add(&own->inj, &r->one[i].items.inj);
        own->omitted += r->one[i].items.omitted;
        own->dropped += r->one[i].items.dropped;
    }
    if (!any) return;
    struct fused *v = calloc(total, sizeof(*v));
    if (!v) return; /* out of memory: memgate's own results stand */
    int k = r->one[0].x->srv->cfg.hybrid_rrf_k;
    size_t n = 0;
    for (size_t i = 0; i < own->n; i++) {
        v[n] = (struct fused){own->v[i], mg_rrf(1, k, (double)(i + 1)), n};
        n++;
    }
    for (int p = 0; p < r->n; p++) {
        struct mg_items *l = &r->one[p].items;
        for (size_t i = 0; i < l->n; i++) {
            double s = mg_rrf(1, k, (double)(i + 1));
            struct fused *same = l->v[i]->type == &mg_item_code_hit
                                     ? find_same(v, n, (const struct mg_code_hit *)l->v[i])
                                     : NULL;
            if (same) {
                same->score += s;
                mg_item_free(l->v[i]);
            } else {
                v[n] = (struct fused){l->v[i], s, n};
                n++;
            }
            l->v[i] = NULL;
        }
        l->n = 0;
    }
    qsort(v, n, sizeof(*v), cmp_fused);
    /* own's array holds the fused list (grown to n) */
    struct mg_item **nv = realloc(own->v, n * sizeof(*nv));
    if (!nv) { /* keep the best own->cap of them */
        nv = own->v;
        for (size_t i = own->cap; i < n; i++) mg_item_free(v[i].it);
        n = own->cap;
    } else {
        own->cap = n;
    }
    own->v = nv;
    size_t keep = limit && n > limit ? limit : n;
    for (size_t i = 0; i < n; i++) {
        if (i < keep) own->v[i] = v[i].it;
        else mg_item_free(v[i].it);
    }
    own->n = keep;
    free(v);
}

json_t *mg_ext_status(struct mg_ext_run *r)
{
    if (r->n == 0) return NULL;
    json_t *a = json_array();
    for (int i = 0; i < r->n; i++) {
        struct mg_ext_one *o = &r->one[i];
        const char *name = o->x->srv->cfg.mcp_providers[o->args.provider].name;
        const char *status = "ok";
        if (o->rc != 0) {
            const char *c = o->err.code ? o->err.code : "";
            status = strncmp(c, "provider_", 9) == 0 ? c + 9 : "error";
        }
        json_t *s = json_pack("{s:s, s:s, s:I, s:I, s:I, s:f}", "name", name, "status", status, "results",
                              (json_int_t)o->got, "answered", (json_int_t)(o->items.total > 0 ? o->items.total : 0),
                              "dropped", (json_int_t)o->items.ext_dropped, "took_ms",
                              (double)(long long)(o->took_ms * 10 + 0.5) / 10);
        if (s && o->rc != 0) {
            /* the sentence may quote what the server sent: served only redacted */
            struct mg_buf b;
            int nred = 0;
            mg_buf_init(&b, sizeof(o->err.msg) * 2);
            const char *msg = mg_gate_redact(&o->x->srv->cfg, o->err.msg, strlen(o->err.msg), &b, &nred) == 0 && b.p
                                  ? b.p
                                  : "the provider failed";
            char full[1200];
            snprintf(full, sizeof(full), "%s; these results are memgate's own", msg);
            json_object_set_new(s, "message", json_string(full));
            mg_buf_release(&b);
        }
        if (s) json_array_append_new(a, s);
    }
    return a;
}

void mg_ext_release(struct mg_ext_run *r)
{
    for (int i = 0; i < r->n; i++) mg_items_release(&r->one[i].items);
    r->n = 0;
}
