/* conn.c — the state of one MCP connection (conn.h). */
#include "mcp/conn.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A server-to-client request waiting for the client's answer (on the waiter's stack). */
struct pending {
    int64_t id;
    json_t *result, *error;
    bool done;
    struct pending *next;
};

struct mg_mcp_conn {
    pthread_mutex_t mu;
    pthread_cond_t cv;           /* signalled when a pending response arrives */
    char version[16];            /* negotiated; "" before initialize */
    bool initialized;            /* initialize answered */
    bool ready;                  /* notifications/initialized received */
    bool sampling;               /* the client declared the sampling capability at initialize */
    int log_level;               /* syslog severity; lines above it are not sent */
    unsigned tool_groups;        /* MG_TOOL_GROUP_* the client enabled: tools/list shows them */
    int64_t next_request_id;     /* ids of server-to-client requests */
    struct pending *pending;
};

/* syslog severities, as MCP names them; index = severity number */
static const char *const levels[] = {"emergency", "alert", "critical", "error", "warning", "notice", "info", "debug"};

int mg_mcp_log_level_index(const char *name)
{
    for (int i = 0; name && i < 8; i++)
        if (strcmp(levels[i], name) == 0) return i;
    return -1;
}

const char *mg_mcp_log_level_name(int level) { return levels[level]; }

static void conn_free(void *p)
{
    struct mg_mcp_conn *k = p;
    pthread_mutex_destroy(&k->mu);
    pthread_cond_destroy(&k->cv);
    free(k);
}

struct mg_mcp_conn *mg_mcp_conn_attach(struct mg_session *s, struct mg_err *err)
{
    struct mg_mcp_conn *k = calloc(1, sizeof(*k));
    if (!k) {
        mg_err_oom(err);
        return NULL;
    }
    pthread_mutex_init(&k->mu, NULL);
    pthread_cond_init(&k->cv, NULL);
    k->log_level = MG_MCP_LOG_DEFAULT;
    k->next_request_id = 1;
    mg_session_attach(s, k, conn_free);
    return k;
}

struct mg_mcp_conn *mg_mcp_conn_of(const struct mg_session *s) { return s ? mg_session_attached(s) : NULL; }

int mg_mcp_conn_initialize(struct mg_mcp_conn *k, const char *version, bool sampling)
{
    pthread_mutex_lock(&k->mu);
    bool again = k->initialized;
    if (!again) {
        snprintf(k->version, sizeof(k->version), "%s", version);
        k->initialized = true;
        k->sampling = sampling;
    }
    pthread_mutex_unlock(&k->mu);
    return again ? -1 : 0;
}

bool mg_mcp_conn_initialized(struct mg_mcp_conn *k)
{
    pthread_mutex_lock(&k->mu);
    bool yes = k->initialized;
    pthread_mutex_unlock(&k->mu);
    return yes;
}

void mg_mcp_conn_set_ready(struct mg_mcp_conn *k)
{
    pthread_mutex_lock(&k->mu);
    k->ready = true;
    pthread_mutex_unlock(&k->mu);
}

bool mg_mcp_conn_ready(struct mg_mcp_conn *k)
{
    pthread_mutex_lock(&k->mu);
    bool yes = k->ready;
    pthread_mutex_unlock(&k->mu);
    return yes;
}

void mg_mcp_conn_version(struct mg_mcp_conn *k, char out[16])
{
    pthread_mutex_lock(&k->mu);
    memcpy(out, k->version, sizeof(k->version));
    pthread_mutex_unlock(&k->mu);
}

bool mg_mcp_conn_sampling(struct mg_mcp_conn *k)
{
    pthread_mutex_lock(&k->mu);
    bool yes = k->sampling;
    pthread_mutex_unlock(&k->mu);
    return yes;
}

int mg_mcp_conn_log_level(struct mg_mcp_conn *k)
{
    pthread_mutex_lock(&k->mu);
    int lv = k->log_level;
    pthread_mutex_unlock(&k->mu);
    return lv;
}

void mg_mcp_conn_set_log_level(struct mg_mcp_conn *k, int level)
{
    pthread_mutex_lock(&k->mu);
    k->log_level = level;
    pthread_mutex_unlock(&k->mu);
}

unsigned mg_mcp_conn_tool_groups(struct mg_mcp_conn *k, unsigned enable, unsigned disable, unsigned *before)
{
    pthread_mutex_lock(&k->mu);
    if (before) *before = k->tool_groups;
    k->tool_groups = (k->tool_groups | enable) & ~disable;
    unsigned now = k->tool_groups;
    pthread_mutex_unlock(&k->mu);
    return now;
}

void mg_mcp_conn_deliver(struct mg_mcp_conn *k, json_t *m)
{
    json_t *id = json_object_get(m, "id");
    if (!k || !json_is_integer(id)) return;
    pthread_mutex_lock(&k->mu);
    for (struct pending *p = k->pending; p; p = p->next)
        if (p->id == json_integer_value(id) && !p->done) {
            json_t *r = json_object_get(m, "result"), *e = json_object_get(m, "error");
            p->result = json_incref(r);
            p->error = r ? NULL : json_incref(e ? e : json_null());
            p->done = true;
            pthread_cond_broadcast(&k->cv);
            break;
        }
    pthread_mutex_unlock(&k->mu);
}

void mg_mcp_conn_cancel(struct mg_mcp_conn *k)
{
    if (!k) return;
    pthread_mutex_lock(&k->mu);
    for (struct pending *p = k->pending; p; p = p->next)
        if (!p->done) {
            p->error = json_pack("{s:i, s:s}", "code", -32000, "message", "the session ended");
            p->done = true;
        }
    pthread_cond_broadcast(&k->cv);
    pthread_mutex_unlock(&k->mu);
}

json_t *mg_mcp_conn_request(struct mg_mcp_conn *k, struct mg_out *out, const char *method, json_t *params,
                            int timeout_ms, struct mg_err *err)
{
    struct pending p = {0};
    pthread_mutex_lock(&k->mu);
    p.id = k->next_request_id++;
    p.next = k->pending;
    k->pending = &p;
    pthread_mutex_unlock(&k->mu);

    json_t *msg = json_pack("{s:s, s:I, s:s}", "jsonrpc", "2.0", "id", (json_int_t)p.id, "method", method);
    if (params) json_object_set(msg, "params", params);
    int sent = out->send(out, msg);
    json_decref(msg);

    pthread_mutex_lock(&k->mu);
    if (sent == 0) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        int64_t ns = ts.tv_nsec + (int64_t)(timeout_ms % 1000) * 1000000;
        ts.tv_sec += timeout_ms / 1000 + ns / 1000000000;
        ts.tv_nsec = ns % 1000000000;
        while (!p.done)
            if (pthread_cond_timedwait(&k->cv, &k->mu, &ts) == ETIMEDOUT) break;
    }
    for (struct pending **pp = &k->pending; *pp; pp = &(*pp)->next)
        if (*pp == &p) {
            *pp = p.next;
            break;
        }
    pthread_mutex_unlock(&k->mu);

    if (sent != 0) {
        mg_err_set(err, MG_E_UNSUPPORTED,
                   "cannot send '%s' to the client on this channel (an HTTP request answered with plain JSON; "
                   "accept text/event-stream to allow it)",
                   method);
        return NULL;
    }
    if (!p.done) {
        mg_err_set(err, MG_E_TIMEOUT, "the client did not answer '%s' within %d ms", method, timeout_ms);
        return NULL;
    }
    if (p.error) {
        const char *m = json_string_value(json_object_get(p.error, "message"));
        mg_err_set(err, MG_E_CLIENT_ERROR, "the client answered '%s' with an error: %s", method,
                   m ? m : "(no message)");
        json_decref(p.error);
        json_decref(p.result);
        return NULL;
    }
    return p.result;
}
