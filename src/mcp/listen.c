/* listen.c — the subscriptions/listen streams (listen.h). */
#include "mcp/listen.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct listener {
    json_t *id;          /* the listen request's id: the subscription id */
    unsigned kinds;      /* MG_LISTEN_* */
    char tenant[65];
    struct mg_out *out;
    struct listener *next;
};
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct listener *listeners;

int mg_listen_open(struct mg_out *out, json_t *id, unsigned kinds, const char *tenant, json_t *ack)
{
    struct listener *l = calloc(1, sizeof(*l));
    if (!l) return -1;
    l->id = json_incref(id);
    l->kinds = kinds;
    l->out = out;
    snprintf(l->tenant, sizeof(l->tenant), "%s", tenant);
    pthread_mutex_lock(&mu);
    int sent = out->send(out, ack);
    if (sent == 0) {
        l->next = listeners;
        listeners = l;
    }
    pthread_mutex_unlock(&mu);
    if (sent != 0) {
        json_decref(l->id);
        free(l);
        return -1;
    }
    return 0;
}

void mg_listen_close(struct mg_out *out, json_t *id)
{
    pthread_mutex_lock(&mu);
    for (struct listener **pp = &listeners; *pp;) {
        struct listener *l = *pp;
        if (l->out == out && (!id || json_equal(id, l->id))) {
            *pp = l->next;
            json_decref(l->id);
            free(l);
        } else {
            pp = &l->next;
        }
    }
    pthread_mutex_unlock(&mu);
}

void mg_listen_broadcast(unsigned kind, const char *tenant, const char *method, json_t *params)
{
    if (!params) params = json_object();
    pthread_mutex_lock(&mu);
    for (struct listener *l = listeners; l; l = l->next) {
        if (!(l->kinds & kind) || (tenant && strcmp(tenant, l->tenant) != 0)) continue;
        json_t *p = json_deep_copy(params);
        json_t *meta = json_object_get(p, "_meta");
        if (!json_is_object(meta)) json_object_set_new(p, "_meta", meta = json_object());
        json_object_set(meta, MG_LISTEN_SUB_META, l->id);
        json_t *m = json_pack("{s:s, s:s, s:o}", "jsonrpc", "2.0", "method", method, "params", p);
        l->out->send(l->out, m); /* a stream that is gone fails here; its listen call drops it */
        json_decref(m);
    }
    pthread_mutex_unlock(&mu);
    json_decref(params);
}

void mg_listen_index_changed(const char *tenant, const char *repo, long long files, long long changed)
{
    mg_listen_broadcast(MG_LISTEN_INDEX, tenant, "notifications/memgate/index_changed",
                        json_pack("{s:s, s:I, s:I}", "repo", repo ? repo : "", "files", (json_int_t)files, "changed",
                                  (json_int_t)changed));
}
