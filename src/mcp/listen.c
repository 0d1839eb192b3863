/* listen.c — the subscriptions/listen streams (listen.h). */
#include "mcp/listen.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "security/access.h"

struct listener {
    json_t *id;          /* the listen request's id: the subscription id */
    unsigned kinds;      /* MG_LISTEN_* */
    struct mg_principal who; /* a copy: its tenant and its token's repo allowlist */
    struct mg_out *out;
    struct listener *next;
};
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct listener *listeners;

static void listener_free(struct listener *l)
{
    json_decref(l->id);
    mg_principal_release(&l->who);
    free(l);
}

int mg_listen_open(struct mg_out *out, json_t *id, unsigned kinds, const struct mg_principal *who, json_t *ack)
{
    struct listener *l = calloc(1, sizeof(*l));
    if (!l) return -1;
    if (mg_principal_copy(&l->who, who) != 0) {
        free(l);
        return -1;
    }
    l->id = json_incref(id);
    l->kinds = kinds;
    l->out = out;
    pthread_mutex_lock(&mu);
    int sent = out->send(out, ack);
    if (sent == 0) {
        l->next = listeners;
        listeners = l;
    }
    pthread_mutex_unlock(&mu);
    if (sent != 0) {
        listener_free(l);
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
            listener_free(l);
        } else {
            pp = &l->next;
        }
    }
    pthread_mutex_unlock(&mu);
}

/* May l hear of repo (of tenant)? NULL tenant: news of the process, for all;
 * a repo outside the token's allowlist is as unknown as another tenant's. */
static bool hears(const struct listener *l, const char *tenant, const char *repo)
{
    if (!tenant) return true;
    if (strcmp(tenant, l->who.tenant) != 0) return false;
    if (!repo || l->who.nrepos == 0) return true;
    for (size_t i = 0; i < l->who.nrepos; i++)
        if (strcmp(l->who.repos[i], repo) == 0) return true;
    return false;
}

void mg_listen_broadcast(unsigned kind, const char *tenant, const char *repo, const char *method, json_t *params)
{
    if (!params) params = json_object();
    pthread_mutex_lock(&mu);
    for (struct listener *l = listeners; l; l = l->next) {
        if (!(l->kinds & kind) || !hears(l, tenant, repo)) continue;
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
    mg_listen_broadcast(MG_LISTEN_INDEX, tenant, repo, "notifications/memgate/index_changed",
                        json_pack("{s:s, s:I, s:I}", "repo", repo ? repo : "", "files", (json_int_t)files, "changed",
                                  (json_int_t)changed));
}
