/* ctx.c — the request context (ctx.h). */
#include "request/ctx.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/content.h"

static _Thread_local char thread_request_id[MG_REQUEST_ID_MAX + 1];

void mg_request_id_set(const char *id)
{
    snprintf(thread_request_id, sizeof(thread_request_id), "%s", id ? id : "");
}

const char *mg_request_id_current(void) { return thread_request_id[0] ? thread_request_id : NULL; }

int mg_request_init(struct mg_ctx *x, const struct mg_request_spec *spec, struct mg_err *err)
{
    memset(x, 0, sizeof(*x));
    x->srv = spec->srv;
    pthread_mutex_init(&x->mu, NULL);
    pthread_mutex_init(&x->read_mu, NULL);
    if (mg_principal_copy(&x->who, spec->who ? spec->who : &mg_principal_local) != 0) {
        memset(x, 0, sizeof(*x));
        return mg_err_oom(err);
    }
    if (spec->session) {
        x->session = spec->session; /* the caller holds a reference; the request takes its own */
        mg_session_ref(x->session);
    } else { /* one request, one session */
        x->session = mg_sessions_private(spec->srv->sessions, MG_SESSION_CLI, "cli", x->who.tenant, err);
        if (!x->session) {
            mg_principal_release(&x->who);
            memset(x, 0, sizeof(*x));
            return -1;
        }
    }
    x->instance = mg_session_instance(x->session);
    if (mg_session_implicit(x->session)) mg_random_id(x->memory_session);
    const char *rid = spec->request_id ? spec->request_id : mg_request_id_current();
    snprintf(x->request_id, sizeof(x->request_id), "%s", rid ? rid : "");
    if (spec->repo_header && !(x->repo_header = strdup(spec->repo_header))) {
        mg_request_release(x);
        return mg_err_oom(err);
    }
    if (spec->cwd && !realpath(spec->cwd, x->cwd)) snprintf(x->cwd, sizeof(x->cwd), "%s", spec->cwd);
    x->channel = spec->channel;
    x->deadline_ms = spec->timeout_ms > 0 ? mg_now_ms() + spec->timeout_ms : 0;
    x->stop = &spec->srv->stopping;
    if (spec->op) snprintf(x->audit.op, sizeof(x->audit.op), "%s", spec->op);
    x->index_reason = spec->index_reason;
    snprintf(x->index_delivery, sizeof(x->index_delivery), "%s", spec->index_delivery ? spec->index_delivery : "");
    return 0;
}

void mg_request_release(struct mg_ctx *x)
{
    if (!x->srv) return;
    if (x->reading) mg_admit_leave(x->srv->reads, &x->read_ticket);
    mg_session_unref(&x->session);
    mg_principal_release(&x->who);
    free(x->repo_header);
    free(x->repos);
    mg_scope_release(&x->scope);
    free(x->audit.subject);
    pthread_mutex_destroy(&x->mu);
    pthread_mutex_destroy(&x->read_mu);
    memset(x, 0, sizeof(*x));
}

void mg_request_progress(struct mg_ctx *x, double done, double total, const char *message)
{
    if (x->channel && x->channel->progress) x->channel->progress(x->channel, done, total, message);
}

void mg_request_log(struct mg_ctx *x, const char *level, const char *fmt, ...)
{
    if (!x->channel || !x->channel->log) return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    x->channel->log(x->channel, level, buf);
}

const char *mg_request_memory_session(const struct mg_ctx *x, const char *arg)
{
    return arg ? arg : x->memory_session[0] ? x->memory_session : mg_session_id(x->session);
}

bool mg_request_expired(const struct mg_ctx *x)
{
    return (x->stop && *x->stop) || (x->deadline_ms && mg_now_ms() > x->deadline_ms);
}

void mg_request_thread_done(void) { mg_content_thread_done(); }
