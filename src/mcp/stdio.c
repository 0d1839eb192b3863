/* stdio.c — MCP over stdin/stdout (stdio.h). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mcp/stdio.h"

#include "mcp/conn.h"
#include "mcp/listen.h"
#include "mcp/rpc.h"
#include "request/ctx.h"
#include "util/json.h"

#define WORKERS 4

struct job {
    json_t *msg;
    struct job *next;
};

struct io {
    struct mg_out out;          /* first: the send callback gets this */
    struct mg_rpc_conn conn;    /* every message's connection */
    int out_fd;
    pthread_mutex_t wmu;        /* one writer at a time */
    bool dead;                  /* stdout is gone */
    pthread_mutex_t qmu;
    pthread_cond_t qcv;
    struct job *head, *tail;
    bool closing;
};

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int send_msg(struct mg_out *o, json_t *msg)
{
    struct io *io = (struct io *)o;
    char *t = mg_json_dumps(msg, JSON_COMPACT);
    if (!t) return -1;
    pthread_mutex_lock(&io->wmu);
    int rc = -1;
    if (!io->dead) {
        size_t n = strlen(t);
        t[n] = '\n'; /* the text's terminator becomes the line end */
        rc = write_all(io->out_fd, t, n + 1);
        if (rc != 0) io->dead = true;
    }
    pthread_mutex_unlock(&io->wmu);
    free(t);
    return rc;
}

static void serve(struct io *io, json_t *msg)
{
    json_t *reply = NULL;
    mg_rpc_handle(&io->conn, msg, &reply);
    if (reply) send_msg(&io->out, reply);
    json_decref(reply);
}

static void *worker(void *arg)
{
    struct io *io = arg;
    for (;;) {
        pthread_mutex_lock(&io->qmu);
        while (!io->head && !io->closing) pthread_cond_wait(&io->qcv, &io->qmu);
        struct job *j = io->head;
        if (j) {
            io->head = j->next;
            if (!io->head) io->tail = NULL;
        }
        pthread_mutex_unlock(&io->qmu);
        if (!j) return NULL;
        serve(io, j->msg);
        json_decref(j->msg);
        free(j);
    }
}

static bool is_tool_call(json_t *m)
{
    const char *method = json_string_value(json_object_get(m, "method"));
    return json_is_object(m) && method && json_object_get(m, "id") && strcmp(method, "tools/call") == 0;
}

static void line(struct io *io, const char *p, size_t n)
{
    while (n && (p[n - 1] == '\r' || p[n - 1] == ' ' || p[n - 1] == '\t')) n--;
    while (n && (*p == ' ' || *p == '\t')) p++, n--;
    if (!n) return;
    json_t *reply = NULL;
    json_t *msg = mg_rpc_parse(p, n, &reply);
    if (!msg) {
        send_msg(&io->out, reply);
        json_decref(reply);
        return;
    }
    if (is_tool_call(msg)) {
        struct job *j = malloc(sizeof(*j));
        if (j) {
            j->msg = msg;
            j->next = NULL;
            pthread_mutex_lock(&io->qmu);
            if (io->tail) io->tail->next = j;
            else io->head = j;
            io->tail = j;
            pthread_cond_signal(&io->qcv);
            pthread_mutex_unlock(&io->qmu);
            return;
        }
    }
    serve(io, msg);
    json_decref(msg);
}

int mg_mcp_stdio(struct mg_server *srv, struct mg_session *s, const char *cwd, int in_fd, int out_fd)
{
    signal(SIGPIPE, SIG_IGN);
    struct io io = {.out = {.send = send_msg}, .out_fd = out_fd};
    io.conn = (struct mg_rpc_conn){.srv = srv, .session = s, .who = &mg_principal_local, .cwd = cwd, .out = &io.out};
    pthread_mutex_init(&io.wmu, NULL);
    pthread_mutex_init(&io.qmu, NULL);
    pthread_cond_init(&io.qcv, NULL);
    pthread_t th[WORKERS];
    int nth = 0;
    for (; nth < WORKERS; nth++)
        if (pthread_create(&th[nth], NULL, worker, &io) != 0) break;

    size_t cap = 64 * 1024, len = 0;
    char *buf = malloc(cap);
    bool skipping = false; /* inside a line over the cap */
    while (buf) {
        if (len == cap) {
            if (cap >= MG_STDIO_MAX_LINE) {
                json_t *e = mg_rpc_error(NULL, MG_RPC_PARSE_ERROR, "message too large: the limit is 4 MiB per line",
                                         NULL);
                send_msg(&io.out, e);
                json_decref(e);
                skipping = true;
                len = 0;
            } else {
                char *nb = realloc(buf, cap * 2);
                if (!nb) break;
                buf = nb;
                cap *= 2;
            }
        }
        ssize_t r = read(in_fd, buf + len, cap - len);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        size_t scan = len;
        len += (size_t)r;
        size_t start = 0;
        for (size_t i = scan; i < len; i++) {
            if (buf[i] != '\n') continue;
            if (!skipping) line(&io, buf + start, i - start);
            skipping = false;
            start = i + 1;
        }
        if (start) {
            memmove(buf, buf + start, len - start);
            len -= start;
        }
    }
    if (buf && len && !skipping) line(&io, buf, len); /* a last line without '\n' */
    free(buf);

    /* end of input: the client is gone; nobody will answer pending requests */
    mg_mcp_conn_cancel(mg_mcp_conn_of(s));
    pthread_mutex_lock(&io.qmu);
    io.closing = true;
    pthread_cond_broadcast(&io.qcv);
    pthread_mutex_unlock(&io.qmu);
    for (int i = 0; i < nth; i++) pthread_join(th[i], NULL);
    mg_listen_close(&io.out, NULL); /* its subscriptions/listen streams end with it */
    pthread_mutex_destroy(&io.wmu);
    pthread_mutex_destroy(&io.qmu);
    pthread_cond_destroy(&io.qcv);
    mg_request_thread_done(); /* batches ran tools on this thread */
    return 0;
}
