/* follow.c — following the shared catalog (follow.h). */
#include "request/follow.h"

#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/catalog.h"
#include "store/pg.h"

#define NOTED_MAX 64 /* repos noted once on stderr (absent here, unknown to the catalog) */

struct mg_follower {
    struct mg_server *srv;
    mg_catchup_fn fn;
    void *ud;
    struct mg_pg_listener *listener;
    pthread_t starter; /* gets the pool (PostgreSQL may be down at start), then starts the listener */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool stop;
    bool live;         /* the catalog is in memory: listings read it */
    char noted[NOTED_MAX][MG_ID_MAX + 1];
    size_t nnoted;
};

bool mg_follow_wanted(const struct mg_server *srv) { return mg_catalog_shared(&srv->cfg); }

/* Note something of repo id on stderr once (listener thread only). */
static bool first_note(struct mg_follower *f, const char *id)
{
    for (size_t i = 0; i < f->nnoted; i++)
        if (strcmp(f->noted[i], id) == 0) return false;
    if (f->nnoted < NOTED_MAX) snprintf(f->noted[f->nnoted++], sizeof(f->noted[0]), "%s", id);
    return true;
}

static void warn(const char *what, const char *id, const struct mg_err *err)
{
    fprintf(stderr, "memgate: catalog: %s %s failed: error[%s]: %s\n", what, id, err->code ? err->code : MG_E_INTERNAL,
            err->msg);
}

/* reason: the notification's (NULL: a resync); delivery: a push's id, or NULL. */
static void reconcile(struct mg_follower *f, const struct mg_repo *r, const char *reason, const char *delivery)
{
    struct mg_err err = {0};
    if (mg_catalog_settings_sync(&f->srv->cfg, r, &err) != 0) warn("writing the settings of", r->id, &err);
    switch (r->copy) {
    case MG_COPY_BEHIND:
    case MG_COPY_PENDING:
    case MG_COPY_CONFLICT:
        /* pull_on_push: the working copy follows its upstream, so a catch-up pulls first, whatever the run
         * elsewhere was (a push, or an index run after a restart that missed the push) */
        f->fn(f->ud, r, r->settings.pull_on_push, reason && strcmp(reason, "push") == 0 ? delivery : NULL);
        break;
    case MG_COPY_ABSENT:
        if (first_note(f, r->id))
            fprintf(stderr, "memgate: catalog: repo %s (tenant %s) has no working copy here ('%s' does not exist): "
                            "requests that read its index answer index_not_local on this daemon\n", r->id, r->tenant,
                    r->root);
        break;
    default: break;
    }
}

/* Repo id is not in the catalog: drop this daemon's index of it when the catalog had it once. */
static void gone(struct mg_follower *f, const char *id)
{
    char dbpath[PATH_MAX];
    mg_repo_dbpath(&f->srv->cfg, id, dbpath, sizeof(dbpath));
    struct mg_repo local;
    if (access(dbpath, F_OK) != 0 || mg_catalog_read_local(dbpath, &local, NULL) != 0) return;
    struct mg_err err = {0};
    if (local.generation > 0) {
        if (mg_catalog_drop_local(&f->srv->cfg, id, &err) != 0) warn("dropping the index of", id, &err);
        else fprintf(stderr, "memgate: catalog: repo %s was removed from the shared catalog: its index here is "
                             "dropped\n", id);
    } else if (first_note(f, id)) {
        fprintf(stderr, "memgate: catalog: the local index '%s' (of %s) is not in the shared catalog (made before "
                        "storage pointed at PostgreSQL?): it is not served; `memgate index %s` registers it\n",
                id, local.root, local.root);
    }
}

/* After a (re)connect: the whole catalog again, every repo reconciled. */
static void resync(struct mg_follower *f)
{
    const struct mg_config *cfg = &f->srv->cfg;
    struct mg_err err = {0};
    if (mg_catalog_reload(cfg, &err) != 0) {
        warn("reading", "the catalog", &err);
        return;
    }
    if (!f->live) {
        mg_catalog_follow(cfg, true);
        f->live = true;
    }
    struct mg_repo *v = NULL, *local = NULL;
    size_t n = 0, nlocal = 0;
    if (mg_catalog_list(cfg, &v, &n, &err) != 0) {
        warn("listing", "the catalog", &err);
        return;
    }
    for (size_t i = 0; i < n; i++) reconcile(f, &v[i], NULL, NULL);
    if (mg_catalog_local_list(cfg, &local, &nlocal, &err) == 0) {
        for (size_t i = 0; i < nlocal; i++) {
            bool listed = false;
            for (size_t k = 0; k < n && !listed; k++) listed = strcmp(v[k].id, local[i].id) == 0;
            if (!listed) gone(f, local[i].id);
        }
    }
    free(local);
    free(v);
}

static const char *known_reason(const char *s)
{
    static const char *const reasons[] = {"index", "push", "schedule", "remove", "settings"};
    for (size_t i = 0; s && i < sizeof(reasons) / sizeof(reasons[0]); i++)
        if (strcmp(s, reasons[i]) == 0) return reasons[i];
    return "index";
}

/* A notification: {"repo", "generation", "reason", "delivery"?}. Only the id
 * is taken from it (the row is re-read): anyone who may connect as memgate's
 * role can notify. */
static void event(struct mg_follower *f, const char *payload)
{
    json_t *j = json_loads(payload, 0, NULL);
    const char *id = json_string_value(json_object_get(j, "repo"));
    const char *reason = known_reason(json_string_value(json_object_get(j, "reason")));
    const char *delivery = json_string_value(json_object_get(j, "delivery"));
    if (!id || mg_repo_check_id(id, NULL) != 0) {
        fprintf(stderr, "memgate: catalog: a notification without a valid repo id is ignored\n");
        json_decref(j);
        return;
    }
    const struct mg_config *cfg = &f->srv->cfg;
    struct mg_err err = {0};
    struct mg_repo r;
    if (mg_catalog_refresh(cfg, id, &err) != 0) warn("reading", id, &err);
    else if (mg_catalog_get(cfg, id, &r, &err) == 0)
        reconcile(f, &r, reason, mg_catalog_delivery_ok(delivery) ? delivery : NULL);
    else if (err.code && strcmp(err.code, MG_E_REPO_NOT_FOUND) == 0) gone(f, id);
    else warn("reading", id, &err);
    json_decref(j);
}

static void on_notify(void *ud, const char *channel, const char *payload)
{
    struct mg_follower *f = ud;
    pthread_mutex_lock(&f->mu);
    bool stop = f->stop;
    pthread_mutex_unlock(&f->mu);
    if (stop) return;
    if (!channel) resync(f);
    else event(f, payload);
}

static void *starter_main(void *arg)
{
    struct mg_follower *f = arg;
    static const char *const channels[] = {MG_CATALOG_CHANNEL};
    bool said = false;
    for (;;) {
        pthread_mutex_lock(&f->mu);
        bool stop = f->stop;
        pthread_mutex_unlock(&f->mu);
        if (stop) break;
        struct mg_pg *pool;
        struct mg_err err = {0};
        struct mg_pg_listener *l = NULL;
        if (mg_pg_pool(&f->srv->cfg, &pool, &err) == 0 &&
            mg_pg_listen(pool, channels, 1, on_notify, f, &l, &err) == 0) {
            pthread_mutex_lock(&f->mu);
            f->listener = l;
            pthread_mutex_unlock(&f->mu);
            break;
        }
        if (!said) fprintf(stderr, "memgate: catalog: cannot follow the shared catalog yet (error[%s]: %s); trying "
                                   "again every second\n", err.code ? err.code : MG_E_INTERNAL, err.msg);
        said = true;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += 1;
        pthread_mutex_lock(&f->mu);
        if (!f->stop) pthread_cond_timedwait(&f->cv, &f->mu, &ts);
        pthread_mutex_unlock(&f->mu);
    }
    return NULL;
}

int mg_follower_start(struct mg_server *srv, mg_catchup_fn fn, void *ud, struct mg_follower **out,
                      struct mg_err *err)
{
    *out = NULL;
    struct mg_follower *f = calloc(1, sizeof(*f));
    if (!f) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory starting the catalog follower");
    f->srv = srv;
    f->fn = fn;
    f->ud = ud;
    pthread_mutex_init(&f->mu, NULL);
    pthread_cond_init(&f->cv, NULL);
    mg_catalog_follow(&srv->cfg, false); /* the table is read at each listing until the first resync */
    if (pthread_create(&f->starter, NULL, starter_main, f) != 0) {
        pthread_mutex_destroy(&f->mu);
        pthread_cond_destroy(&f->cv);
        free(f);
        return mg_err_set(err, MG_E_INTERNAL, "cannot start the catalog follower's thread");
    }
    *out = f;
    return 0;
}

void mg_follower_stop(struct mg_follower **pf)
{
    struct mg_follower *f = *pf;
    if (!f) return;
    pthread_mutex_lock(&f->mu);
    f->stop = true;
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->mu);
    pthread_join(f->starter, NULL);
    mg_pg_listen_stop(&f->listener);
    mg_catalog_follow(&f->srv->cfg, false);
    pthread_mutex_destroy(&f->mu);
    pthread_cond_destroy(&f->cv);
    free(f);
    *pf = NULL;
}

int mg_follow_ready(struct mg_server *srv, const char *id, struct mg_repo *out, struct mg_err *err)
{
    struct mg_err e = {0};
    if (mg_catalog_get(&srv->cfg, id, out, &e) != 0) {
        if (e.code && strcmp(e.code, MG_E_REPO_NOT_FOUND) == 0) return 0;
        *err = e;
        return -1;
    }
    if (out->copy == MG_COPY_CONFLICT) {
        fprintf(stderr, "memgate: catalog: the index file of %s here is of another tenant or root than the shared "
                        "catalog's: dropped, and built again from %s\n", id, out->root);
        if (mg_catalog_drop_local(&srv->cfg, id, err) != 0 || mg_catalog_get(&srv->cfg, id, out, err) != 0) return -1;
    }
    return out->copy == MG_COPY_BEHIND || out->copy == MG_COPY_PENDING;
}
