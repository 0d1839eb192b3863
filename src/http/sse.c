/* sse.c — SSE streams (internal.h): a queue of events per stream, drained
 * by MHD's content reader on the connection's thread. */
#include "http/internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/json.h"
#include "util/metrics.h"

/* Drop a reference; the last one unlinks the stream from the registry and frees it. */
void mg__sse_unref(struct sse *s)
{
    pthread_mutex_lock(&s->mu);
    int left = --s->refs;
    pthread_mutex_unlock(&s->mu);
    if (left) return;
    struct mg_http *h = s->h;
    pthread_mutex_lock(&h->mu);
    *s->pprev = s->next;
    if (s->next) s->next->pprev = s->pprev;
    pthread_mutex_unlock(&h->mu);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    mg_buf_release(&s->q);
    free(s->repo_header);
    json_decref(s->headers);
    mg_principal_release(&s->who);
    free(s);
}

/* Append one event (locked). data may be NULL for a priming event. */
int mg__sse_push_locked(struct sse *s, const char *data, bool priming)
{
    if (s->gone || s->ended) return -1;
    size_t before = s->q.len;
    int rc = mg_buf_addf(&s->q, "id: %llu-%llu\n", (unsigned long long)s->serial,
                         (unsigned long long)s->next_event);
    if (rc == 0 && priming) rc = mg_buf_addf(&s->q, "retry: %d\ndata: \n\n", MG_SSE_RETRY_MS);
    if (rc == 0 && !priming) /* (data copied, not formatted: a reply is often tens of KB) */
        rc = mg_buf_adds(&s->q, "event: message\ndata: ") | mg_buf_adds(&s->q, data) | mg_buf_adds(&s->q, "\n\n");
    if (rc != 0) {
        s->q.len = before; /* keep the queue well-formed */
        if (s->q.p) s->q.p[before] = 0;
        return -1;
    }
    s->next_event++;
    pthread_cond_broadcast(&s->cv);
    return 0;
}

static int sse_send(struct mg_out *o, json_t *msg)
{
    struct sse *s = (struct sse *)o;
    char *text = mg_json_dumps(msg, JSON_COMPACT);
    if (!text) return -1;
    pthread_mutex_lock(&s->mu);
    int rc = mg__sse_push_locked(s, text, false);
    pthread_mutex_unlock(&s->mu);
    free(text);
    return rc;
}

/* MHD's content reader: runs on the connection's thread and may block. */
static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    struct sse *s = cls;
    pthread_mutex_lock(&s->mu);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += MG_SSE_KEEPALIVE_MS / 1000;
    bool timed_out = false;
    while (s->qoff == s->q.len && !s->done && !s->ended && !atomic_load(&s->h->stopping) && !timed_out)
        timed_out = pthread_cond_timedwait(&s->cv, &s->mu, &ts) == ETIMEDOUT;
    ssize_t n;
    if (s->qoff < s->q.len && !s->ended) {
        size_t k = s->q.len - s->qoff < max ? s->q.len - s->qoff : max;
        memcpy(buf, s->q.p + s->qoff, k);
        s->qoff += k;
        if (s->qoff == s->q.len) {
            mg_buf_reset(&s->q);
            s->qoff = 0;
        }
        n = (ssize_t)k;
        s->sent += k;
    } else if (s->done || s->ended || atomic_load(&s->h->stopping)) {
        n = MHD_CONTENT_READER_END_OF_STREAM;
    } else {
        static const char ka[] = ": keep-alive\n\n";
        size_t k = sizeof(ka) - 1 < max ? sizeof(ka) - 1 : max;
        memcpy(buf, ka, k);
        n = (ssize_t)k;
    }
    pthread_mutex_unlock(&s->mu);
    return n;
}

/* MHD's free callback: the response is done (sent, or the client left). */
static void sse_free(void *cls)
{
    struct sse *s = cls;
    pthread_mutex_lock(&s->mu);
    s->gone = true;
    pthread_cond_broadcast(&s->cv); /* a subscriptions/listen worker waits for this */
    pthread_mutex_unlock(&s->mu);
    mg__sse_unref(s);
}

/* mg_out.wait: until the client leaves or the server ends the stream. */
static void sse_wait(struct mg_out *o)
{
    struct sse *s = (struct sse *)o;
    pthread_mutex_lock(&s->mu);
    while (!s->gone && !s->ended && !atomic_load(&s->h->stopping)) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += 1; /* stopping is a flag, not a signal: look again every second */
        pthread_cond_timedwait(&s->cv, &s->mu, &ts);
    }
    pthread_mutex_unlock(&s->mu);
}

struct sse * mg__sse_new(struct mg_http *h, const char *sid, bool get)
{
    struct sse *s = calloc(1, sizeof(*s));
    if (!s) return NULL;
    s->out.send = sse_send;
    s->out.wait = sse_wait;
    s->h = h;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    mg_buf_init(&s->q, MG_SSE_QUEUE_MAX);
    s->refs = 1;
    s->get = get;
    s->waits = get;
    snprintf(s->sid, sizeof(s->sid), "%s", sid);
    pthread_mutex_lock(&h->mu);
    s->ended = atomic_load(&h->stopping);
    s->serial = ++h->next_stream;
    s->next = h->streams;
    if (s->next) s->next->pprev = &s->next;
    s->pprev = &h->streams;
    h->streams = s;
    pthread_mutex_unlock(&h->mu);
    return s;
}

/* End every stream of a session (DELETE), or every stream (sid NULL, stop). */
void mg__sse_end_all(struct mg_http *h, const char *sid)
{
    pthread_mutex_lock(&h->mu);
    for (struct sse *s = h->streams; s; s = s->next) {
        if (sid && strcmp(s->sid, sid) != 0) continue;
        pthread_mutex_lock(&s->mu);
        s->ended = true;
        pthread_cond_broadcast(&s->cv);
        pthread_mutex_unlock(&s->mu);
    }
    pthread_mutex_unlock(&h->mu);
}

/* A response that streams s (the response takes one reference). */
enum MHD_Result mg__respond_sse(struct MHD_Connection *c, struct req *r, struct sse *s)
{
    pthread_mutex_lock(&s->mu);
    s->refs++;
    pthread_mutex_unlock(&s->mu);
    struct MHD_Response *resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16 * 1024, sse_read, s, sse_free);
    if (!resp) {
        sse_free(s);
        return MHD_NO;
    }
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "text/event-stream");
    MHD_add_response_header(resp, "Cache-Control", "no-cache, no-store");
    MHD_add_response_header(resp, "X-Accel-Buffering", "no");
    if (s->sid[0]) MHD_add_response_header(resp, "Mcp-Session-Id", s->sid);
    if (r && r->rid[0]) MHD_add_response_header(resp, "X-Request-Id", r->rid);
    enum MHD_Result rc = MHD_queue_response(c, MHD_HTTP_OK, resp);
    MHD_destroy_response(resp); /* on failure this calls sse_free */
    if (rc == MHD_YES) {
        r->answered = true;
        r->status = 200;
        pthread_mutex_lock(&s->mu);
        s->refs++; /* r's: the access log reads what was sent at completion */
        pthread_mutex_unlock(&s->mu);
        r->stream = s;
        mg_metrics_http(r->label, 200);
    }
    return rc;
}
