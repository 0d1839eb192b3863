/* mcpc.c — see mcpc.h.
 *
 * Sections:
 *   1. the client's state
 *   2. parsing — a JSON-RPC answer, an SSE stream
 *   3. the client: stdio — spawning the server, sending, waiting for an answer
 *   4. HTTP — Streamable HTTP
 *   5. one call — initialize once, then tools/call
 */
#include "util/mcpc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/clock.h"
#include "util/httpc.h"
#include "util/version.h"

/* ---- 1. the client's state ----------------------------------------------- */

#define PROTO_OFFERED "2025-11-25"
#define BACKOFF_MIN_MS 1000
#define BACKOFF_MAX_MS 60000
#define TOKEN_MAX 4096

struct mg_mcpc {
    struct mg_mcp_provider_cfg cfg;
    char log_path[PATH_MAX];
    pthread_mutex_t mu;
    json_int_t next_id;
    bool ready;              /* initialized */
    char proto[16];          /* the version the server chose */
    /* stdio */
    pid_t pid;
    int in_fd, out_fd, err_fd, log_fd;
    struct mg_buf rbuf;      /* bytes read from stdout, not yet a whole line */
    int64_t retry_at_ms;     /* no restart before this (after a death) */
    int backoff_ms;
    /* http */
    char session[256];
    bool session_lost;       /* the server answered 404 to our session: initialize again */
};

static int64_t now_ms(void) { return (int64_t)mg_clock_ms(); }

int mg_mcpc_depth(void)
{
    const char *d = getenv("MEMGATE_PROVIDER_DEPTH");
    int v = d ? atoi(d) : 0;
    return v < 0 ? 0 : v > 100 ? 100 : v;
}

/* ---- 2. parsing ---------------------------------------------------------- */

int mg_mcpc_parse_message(const char *msg, size_t len, json_int_t id, json_t **result, struct mg_err *err)
{
    *result = NULL;
    if (len > MG_MCPC_LINE_MAX)
        return mg_err_set(err, MG_E_PROVIDER_TOO_LARGE, "a message of %zu bytes is over the cap", len);
    json_error_t je;
    json_t *m = json_loadb(msg, len, JSON_REJECT_DUPLICATES, &je);
    if (!json_is_object(m)) {
        json_decref(m);
        return mg_err_set(err, MG_E_PROVIDER_BAD_RESPONSE, "the server sent something that is not a JSON-RPC "
                          "message (%s)", m ? "not an object" : je.text);
    }
    json_t *mid = json_object_get(m, "id"), *method = json_object_get(m, "method");
    int rc = MG_MCPC_OTHER;
    if (json_is_string(method)) {
        if (mid && !json_is_null(mid)) {
            *result = json_incref(mid);
            rc = MG_MCPC_REQUEST;
        }
    } else if (json_is_integer(mid) && json_integer_value(mid) == id) {
        json_t *r = json_object_get(m, "result"), *e = json_object_get(m, "error");
        if (json_is_object(r)) {
            *result = json_incref(r);
            rc = MG_MCPC_REPLY;
        } else if (e) {
            json_t *code = json_object_get(e, "code");
            rc = mg_err_set(err, MG_E_PROVIDER_BAD_RESPONSE, "the server answered with JSON-RPC error %lld",
                            json_is_integer(code) ? (long long)json_integer_value(code) : 0LL);
        } else {
            rc = mg_err_set(err, MG_E_PROVIDER_BAD_RESPONSE, "the server's answer has neither a result object nor "
                            "an error");
        }
    }
    json_decref(m);
    return rc;
}

int mg_mcpc_parse_sse(const char *body, size_t len, json_int_t id, json_t **result, struct mg_err *err)
{
    *result = NULL;
    struct mg_buf data;
    mg_buf_init(&data, MG_MCPC_LINE_MAX);
    const char *p = body, *end = body + len;
    int rc = -2;
    while (p <= end && rc == -2) {
        const char *nl = p < end ? memchr(p, '\n', (size_t)(end - p)) : NULL;
        const char *le = nl ? nl : end;
        size_t n = (size_t)(le - p);
        if (n && p[n - 1] == '\r') n--;
        if (n == 0) { /* the event ends: its data is one message */
            if (data.len) {
                json_t *r;
                struct mg_err e2 = {0};
                int k = mg_mcpc_parse_message(data.p, data.len, id, &r, &e2);
                if (k == MG_MCPC_REPLY) {
                    *result = r;
                    rc = 0;
                } else if (k < 0 && e2.code && strcmp(e2.code, MG_E_PROVIDER_BAD_RESPONSE) == 0 &&
                           strstr(e2.msg, "JSON-RPC error")) {
                    mg_err_set(err, e2.code, "%s", e2.msg);
                    rc = -1;
                } else {
                    json_decref(r);
                }
                mg_buf_reset(&data);
            }
        } else if (n >= 5 && strncmp(p, "data:", 5) == 0) {
            const char *v = p + 5;
            size_t vl = n - 5;
            if (vl && *v == ' ') v++, vl--;
            if ((data.len && mg_buf_addc(&data, '\n') != 0) || mg_buf_add(&data, v, vl) != 0) {
                rc = mg_err_set(err, MG_E_PROVIDER_TOO_LARGE, "an event of the server's stream is over the cap");
                break;
            }
        }
        if (!nl) {
            if (p == end) break;
            p = end; /* one more pass: the last event without its blank line */
            continue;
        }
        p = nl + 1;
    }
    if (rc == -2 && data.len) { /* a stream cut after its last data line */
        json_t *r;
        struct mg_err e2 = {0};
        if (mg_mcpc_parse_message(data.p, data.len, id, &r, &e2) == MG_MCPC_REPLY) {
            *result = r;
            rc = 0;
        } else {
            json_decref(r);
        }
    }
    mg_buf_release(&data);
    if (rc == -2) rc = mg_err_set(err, MG_E_PROVIDER_BAD_RESPONSE, "the server's event stream holds no answer to "
                                  "the call");
    return rc;
}

/* ---- 3. the client: stdio ------------------------------------------------ */

struct mg_mcpc *mg_mcpc_new(const struct mg_mcp_provider_cfg *p, const char *log_dir)
{
    struct mg_mcpc *c = calloc(1, sizeof(*c));
    if (!c) return NULL;
    c->cfg = *p;
    pthread_mutex_init(&c->mu, NULL);
    c->next_id = 1;
    c->in_fd = c->out_fd = c->err_fd = c->log_fd = -1;
    mg_buf_init(&c->rbuf, MG_MCPC_LINE_MAX);
    if (log_dir) snprintf(c->log_path, sizeof(c->log_path), "%s/mcp-%s.log", log_dir, p->name);
    return c;
}

static void close_fd(int *fd)
{
    if (*fd >= 0) close(*fd);
    *fd = -1;
}

/* Kill the stdio server's group and reap it; backoff when it died on its own. */
static void stop_child(struct mg_mcpc *c, bool died)
{
    if (c->pid > 0) {
        kill(-c->pid, SIGTERM);
        int st;
        for (int i = 0; i < 20 && waitpid(c->pid, &st, WNOHANG) == 0; i++) {
            struct timespec ts = {0, 10 * 1000000L};
            nanosleep(&ts, NULL);
            if (i == 19) {
                kill(-c->pid, SIGKILL);
                waitpid(c->pid, &st, 0);
            }
        }
        kill(-c->pid, SIGKILL); /* whatever of its group is left */
    }
    c->pid = 0;
    close_fd(&c->in_fd);
    close_fd(&c->out_fd);
    close_fd(&c->err_fd);
    close_fd(&c->log_fd);
    mg_buf_reset(&c->rbuf);
    c->ready = false;
    c->session[0] = 0;
    if (died) {
        c->backoff_ms = c->backoff_ms ? (c->backoff_ms * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : c->backoff_ms * 2)
                                      : BACKOFF_MIN_MS;
        c->retry_at_ms = now_ms() + c->backoff_ms;
    }
}

static int spawn(struct mg_mcpc *c, struct mg_err *err)
{
    int64_t now = now_ms();
    if (c->retry_at_ms > now)
        return mg_err_set(err, MG_E_PROVIDER_UNAVAILABLE, "the server stopped; it is started again in %.1f s",
                          (double)(c->retry_at_ms - now) / 1000);
    json_t *args = c->cfg.args[0] ? json_loads(c->cfg.args, 0, NULL) : json_array();
    size_t na = json_array_size(args);
    char **argv = calloc(na + 2, sizeof(char *));
    if (!argv) {
        json_decref(args);
        return mg_err_oom(err);
    }
    argv[0] = c->cfg.command;
    for (size_t i = 0; i < na; i++) argv[i + 1] = (char *)json_string_value(json_array_get(args, i));
    int pin[2] = {-1, -1}, pout[2] = {-1, -1}, perr[2] = {-1, -1};
    if (pipe2(pin, O_CLOEXEC) != 0 || pipe2(pout, O_CLOEXEC) != 0 || pipe2(perr, O_CLOEXEC) != 0) {
        int e = errno;
        for (int i = 0; i < 2; i++) {
            if (pin[i] >= 0) close(pin[i]);
            if (pout[i] >= 0) close(pout[i]);
            if (perr[i] >= 0) close(perr[i]);
        }
        free(argv);
        json_decref(args);
        return mg_err_set(err, MG_E_PROVIDER_UNAVAILABLE, "cannot make pipes for the server: %s", strerror(e));
    }
    signal(SIGPIPE, SIG_IGN); /* a server that dies while we write: EPIPE, not a signal */
    /* its environment: ours, and how deep in a chain of memgates it is (a memgate started as a provider
     * starts none of its own: mg_mcpc_depth) */
    extern char **environ;
    size_t ne = 0;
    while (environ[ne]) ne++;
    char **envp = calloc(ne + 2, sizeof(char *)), depth[48];
    if (!envp) {
        for (int i = 0; i < 2; i++) close(pin[i]), close(pout[i]), close(perr[i]);
        free(argv);
        json_decref(args);
        return mg_err_oom(err);
    }
    size_t k = 0;
    for (size_t i = 0; i < ne; i++)
        if (strncmp(environ[i], "MEMGATE_PROVIDER_DEPTH=", 23) != 0) envp[k++] = environ[i];
    snprintf(depth, sizeof(depth), "MEMGATE_PROVIDER_DEPTH=%d", mg_mcpc_depth() + 1);
    envp[k++] = depth;
    envp[k] = NULL;
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        dup2(pin[0], 0);
        dup2(pout[1], 1);
        dup2(perr[1], 2);
        execvpe(argv[0], argv, envp);
        dprintf(2, "memgate: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int e = errno;
    close(pin[0]);
    close(pout[1]);
    close(perr[1]);
    free(argv);
    free(envp);
    json_decref(args);
    if (pid < 0) {
        close(pin[1]);
        close(pout[0]);
        close(perr[0]);
        return mg_err_set(err, MG_E_PROVIDER_UNAVAILABLE, "cannot start the server: %s", strerror(e));
    }
    setpgid(pid, pid);
    c->pid = pid;
    c->in_fd = pin[1];
    c->out_fd = pout[0];
    c->err_fd = perr[0];
    fcntl(c->out_fd, F_SETFL, O_NONBLOCK);
    fcntl(c->err_fd, F_SETFL, O_NONBLOCK);
    fcntl(c->in_fd, F_SETFL, O_NONBLOCK);
    if (c->log_path[0]) {
        struct stat st;
        int trunc = stat(c->log_path, &st) == 0 && st.st_size > MG_MCPC_LOG_MAX ? O_TRUNC : 0;
        c->log_fd = open(c->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | trunc, 0600);
    }
    return 0;
}

/* Move what the server wrote on stderr to its log, up to the cap. */
static void drain_stderr(struct mg_mcpc *c)
{
    char tmp[4096];
    ssize_t r = -1;
    while (c->err_fd >= 0 && (r = read(c->err_fd, tmp, sizeof(tmp))) > 0) {
        if (c->log_fd < 0) continue;
        struct stat st;
        if (fstat(c->log_fd, &st) == 0 && st.st_size + r <= MG_MCPC_LOG_MAX) {
            ssize_t w = write(c->log_fd, tmp, (size_t)r);
            (void)w;
        }
    }
    if (r == 0) close_fd(&c->err_fd);
}

static int remaining(int64_t deadline)
{
    int64_t left = deadline - now_ms();
    return left < 0 ? 0 : left > 60000 ? 60000 : (int)left;
}

static int stdio_send(struct mg_mcpc *c, json_t *msg, int64_t deadline, struct mg_err *err)
{
    char *s = json_dumps(msg, JSON_COMPACT);
    if (!s) return mg_err_oom(err);
    size_t n = strlen(s), off = 0;
    s[n] = '\n'; /* replaces the terminator: written as one line */
    n++;
    int rc = 0;
    while (off < n) {
        ssize_t w = write(c->in_fd, s + off, n - off);
        if (w > 0) {
            off += (size_t)w;
            continue;
        }
        if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
            struct pollfd pf = {c->in_fd, POLLOUT, 0};
            int t = remaining(deadline);
            if (t == 0 || poll(&pf, 1, t) == 0) {
                rc = mg_err_set(err, MG_E_PROVIDER_TIMEOUT, "the server did not read its input within the timeout");
                break;
            }
            continue;
        }
        rc = mg_err_set(err, MG_E_PROVIDER_UNAVAILABLE, "the server died (its input closed: %s)",
                        w < 0 ? strerror(errno) : "nothing written");
        break;
    }
    free(s);
    return rc;
}

/* Read until the answer to id: 0 with *result, or -1. *budget: bytes left to read. */
static int stdio_wait(struct mg_mcpc *c, json_int_t id, int64_t deadline, size_t *budget, json_t **result,
                      struct mg_err *err)
{
    for (;;) {
        /* whole lines first */
        char *nl;
        while (c->rbuf.len && (nl = memchr(c->rbuf.p, '\n', c->rbuf.len))) {
            size_t n = (size_t)(nl - c->rbuf.p);
            json_t *r = NULL;
            int k = n ? mg_mcpc_parse_message(c->rbuf.p, n, id, &r, err) : MG_MCPC_OTHER;
            size_t rest = c->rbuf.len - n - 1;
            memmove(c->rbuf.p, nl + 1, rest);
            c->rbuf.len = rest;
            c->rbuf.p[rest] = 0;
            if (k < 0) return -1;
            if (k == MG_MCPC_REPLY) {
                *result = r;
                return 0;
            }
            if (k == MG_MCPC_REQUEST) { /* we offer no client capabilities */
                json_t *e = json_pack("{s:s, s:o, s:{s:i, s:s}}", "jsonrpc", "2.0", "id", r, "error", "code", -32601,
                                      "message", "memgate's MCP client does not serve requests");
                if (e && stdio_send(c, e, deadline, err) != 0) {
                    json_decref(e);
                    return -1;
                }
                json_decref(e);
            }
        }
        struct pollfd pf[2] = {{c->out_fd, POLLIN, 0}, {c->err_fd, POLLIN, 0}};
        int t = remaining(deadline);
        if (t == 0) return mg_err_set(err, MG_E_PROVIDER_TIMEOUT, "no answer within the timeout");
        int pr = poll(pf, c->err_fd >= 0 ? 2 : 1, t);
        if (pr < 0 && errno == EINTR) continue;
        if (pr == 0) return mg_err_set(err, MG_E_PROVIDER_TIMEOUT, "no answer within the timeout");
        if (c->err_fd >= 0 && pf[1].revents) drain_stderr(c);
        if (!pf[0].revents) continue;
        char tmp[65536];
        ssize_t r = read(c->out_fd, tmp, sizeof(tmp));
        if (r < 0 && (errno == EAGAIN || errno == EINTR)) continue;
        if (r <= 0) {
            drain_stderr(c);
            return mg_err_set(err, MG_E_PROVIDER_UNAVAILABLE, "the server died mid-call (its output closed)");
        }
        if ((size_t)r > *budget)
            return mg_err_set(err, MG_E_PROVIDER_TOO_LARGE, "the server sent more than max_bytes (%zu) in one call",
                              c->cfg.max_bytes);
        *budget -= (size_t)r;
        if (mg_buf_add(&c->rbuf, tmp, (size_t)r) != 0)
            return mg_err_set(err, MG_E_PROVIDER_TOO_LARGE, "a line of the server's output is over the cap");
    }
}

/* ---- 4. HTTP ------------------------------------------------------------- */

/* The bearer token from token_file (trimmed), into out; "" when none. */
static int read_token(const struct mg_mcpc *c, char *out, size_t cap, struct mg_err *err)
{
    out[0] = 0;
    if (!c->cfg.token_file[0]) return 0;
    int fd = open(c->cfg.token_file, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return mg_err_set(err, MG_E_PROVIDER_UNAVAILABLE, "cannot read the token file '%s': %s", c->cfg.token_file,
                          strerror(errno));
    ssize_t r = read(fd, out, cap - 1);
    close(fd);
    if (r < 0) r = 0;
    out[r] = 0;
    while (r > 0 && (out[r - 1] == '\n' || out[r - 1] == '\r' || out[r - 1] == ' ')) out[--r] = 0;
    return 0;
}

/* POST msg; *result the answer to id (NULL for a notification: 202). */
static int http_post(struct mg_mcpc *c, json_t *msg, json_int_t id, bool notification, int64_t deadline,
                     json_t **result, struct mg_err *err)
{
    *result = NULL;
    char *payload = json_dumps(msg, JSON_COMPACT);
    if (!payload) return mg_err_oom(err);
    char token[TOKEN_MAX], auth[TOKEN_MAX + 32], sess[300], proto[64];
    if (read_token(c, token, sizeof(token), err) != 0) {
        free(payload);
        return -1;
    }
    const char *hdr[3];
    size_t nh = 0;
    if (token[0]) {
        snprintf(auth, sizeof(auth), "Authorization: Bearer %s", token);
        hdr[nh++] = auth;
    }
    if (c->session[0]) {
        snprintf(sess, sizeof(sess), "Mcp-Session-Id: %s", c->session);
        hdr[nh++] = sess;
    }
    if (c->ready || notification) {
        snprintf(proto, sizeof(proto), "MCP-Protocol-Version: %s", c->proto);
        hdr[nh++] = proto;
    }
    struct mg_buf body;
    mg_buf_init(&body, c->cfg.max_bytes);
    char session[256] = "", ctype[128] = "", why[256] = "";
    long t = remaining(deadline), status = 0;
    struct mg_httpc_req q = {.method = "POST", .url = c->cfg.url, .headers = hdr, .nheaders = nh, .body = payload,
                             .timeout_s = 1, .timeout_ms = t > 0 ? t : 1, .max_body = c->cfg.max_bytes,
                             .accept = "application/json, text/event-stream", .content_type = ctype,
                             .content_type_cap = sizeof(ctype), .capture = "Mcp-Session-Id", .captured = session,
                             .captured_cap = sizeof(session)};
    int cc = mg_httpc_call(&q, &status, &body, why, sizeof(why)), rc = -1;
    if (cc == MG_HTTPC_TOO_LARGE) {
        mg_err_set(err, MG_E_PROVIDER_TOO_LARGE, "the server's answer is over max_bytes (%zu)", c->cfg.max_bytes);
    } else if (cc == MG_HTTPC_TIMEOUT) {
        mg_err_set(err, MG_E_PROVIDER_TIMEOUT, "no answer from %s within the timeout", c->cfg.url);
    } else if (cc != 0) {
        mg_err_set(err, MG_E_PROVIDER_UNAVAILABLE, "cannot reach %s: %s", c->cfg.url, why);
    } else if (status == 404 && c->session[0]) {
        mg_err_set(err, MG_E_PROVIDER_UNAVAILABLE, "the server ended the session (HTTP 404)");
        c->session_lost = true;
        c->ready = false;
        c->session[0] = 0;
    } else if (status == 401 || status == 403) {
        mg_err_set(err, MG_E_PROVIDER_UNAVAILABLE, "%s refused the token (HTTP %ld); check token_file", c->cfg.url,
                   status);
    } else if (notification && (status == 202 || status == 200 || status == 204)) {
        rc = 0;
    } else if (status != 200) {
        mg_err_set(err, MG_E_PROVIDER_UNAVAILABLE, "%s answered HTTP %ld", c->cfg.url, status);
    } else {
        if (session[0] && !c->ready) snprintf(c->session, sizeof(c->session), "%s", session);
        const char *text = body.p ? body.p : "";
        if (strncasecmp(ctype, "text/event-stream", 17) == 0) {
            rc = mg_mcpc_parse_sse(text, body.len, id, result, err);
        } else {
            int k = mg_mcpc_parse_message(text, body.len, id, result, err);
            if (k == MG_MCPC_REPLY) rc = 0;
            else if (k >= 0) {
                json_decref(*result);
                *result = NULL;
                mg_err_set(err, MG_E_PROVIDER_BAD_RESPONSE, "the server's answer is not the answer to the call");
            }
        }
    }
    explicit_bzero(token, sizeof(token));
    explicit_bzero(auth, sizeof(auth));
    mg_buf_release(&body);
    free(payload);
    return rc;
}

/* ---- 5. one call --------------------------------------------------------- */

static int request(struct mg_mcpc *c, const char *method, json_t *params, int64_t deadline, size_t *budget,
                   json_t **result, struct mg_err *err)
{
    json_int_t id = c->next_id++;
    json_t *msg = json_pack("{s:s, s:I, s:s, s:O}", "jsonrpc", "2.0", "id", (json_int_t)id, "method", method,
                            "params", params);
    if (!msg) return mg_err_oom(err);
    int rc;
    if (c->cfg.url[0]) {
        rc = http_post(c, msg, id, false, deadline, result, err);
    } else {
        rc = stdio_send(c, msg, deadline, err);
        if (rc == 0) rc = stdio_wait(c, id, deadline, budget, result, err);
    }
    json_decref(msg);
    return rc;
}

static int notify(struct mg_mcpc *c, const char *method, int64_t deadline, struct mg_err *err)
{
    json_t *msg = json_pack("{s:s, s:s}", "jsonrpc", "2.0", "method", method);
    if (!msg) return mg_err_oom(err);
    json_t *none = NULL;
    int rc = c->cfg.url[0] ? http_post(c, msg, 0, true, deadline, &none, err) : stdio_send(c, msg, deadline, err);
    json_decref(none);
    json_decref(msg);
    return rc;
}

static int initialize(struct mg_mcpc *c, int64_t deadline, size_t *budget, struct mg_err *err)
{
    if (!c->cfg.url[0] && c->pid <= 0 && spawn(c, err) != 0) return -1;
    c->session[0] = 0;
    json_t *params = json_pack("{s:s, s:{}, s:{s:s, s:s}}", "protocolVersion", PROTO_OFFERED, "capabilities",
                               "clientInfo", "name", "memgate", "version", MG_VERSION);
    json_t *res = NULL;
    int rc = params ? request(c, "initialize", params, deadline, budget, &res, err)
                    : mg_err_oom(err);
    json_decref(params);
    if (rc != 0) return -1;
    const char *v = json_string_value(json_object_get(res, "protocolVersion"));
    if (!v || (strcmp(v, "2025-11-25") != 0 && strcmp(v, "2025-06-18") != 0)) {
        mg_err_set(err, MG_E_PROVIDER_BAD_RESPONSE, "the server chose protocol version '%.32s'; memgate speaks "
                   "2025-11-25 and 2025-06-18", v ? v : "(none)");
        json_decref(res);
        return -1;
    }
    snprintf(c->proto, sizeof(c->proto), "%s", v);
    json_decref(res);
    if (notify(c, "notifications/initialized", deadline, err) != 0) return -1;
    c->ready = true;
    return 0;
}

int mg_mcpc_call(struct mg_mcpc *c, const char *tool, json_t *arguments, int64_t deadline_ms, json_t **result,
                 struct mg_err *err)
{
    *result = NULL;
    int64_t own = now_ms() + c->cfg.timeout_ms;
    int64_t deadline = deadline_ms > 0 && deadline_ms < own ? deadline_ms : own;
    /* one call at a time: wait for the lock no longer than the deadline */
    for (;;) {
        if (pthread_mutex_trylock(&c->mu) == 0) break;
        if (now_ms() >= deadline)
            return mg_err_set(err, MG_E_PROVIDER_TIMEOUT, "an earlier call to the server held it past the timeout");
        struct timespec ts = {0, 2 * 1000000L};
        nanosleep(&ts, NULL);
    }
    size_t budget = c->cfg.max_bytes;
    int rc = 0;
    if (!c->ready) rc = initialize(c, deadline, &budget, err);
    if (rc == 0) {
        json_t *params = json_pack("{s:s, s:O}", "name", tool, "arguments", arguments);
        rc = params ? request(c, "tools/call", params, deadline, &budget, result, err)
                    : mg_err_oom(err);
        /* the server forgot our session (it restarted, or expired it): a new one, and the call once more */
        if (rc != 0 && params && c->session_lost) {
            c->session_lost = false;
            memset(err, 0, sizeof(*err));
            rc = initialize(c, deadline, &budget, err);
            if (rc == 0) rc = request(c, "tools/call", params, deadline, &budget, result, err);
        }
        json_decref(params);
    }
    if (rc == 0) {
        c->backoff_ms = 0;
    } else if (!c->cfg.url[0] && c->pid > 0 && err->code && strcmp(err->code, MG_E_NO_MEMORY) != 0) {
        /* the stream is in an unknown state (a late answer, half a flood, a dead server): start afresh */
        bool died = strcmp(err->code, MG_E_PROVIDER_UNAVAILABLE) == 0;
        stop_child(c, died);
    } else if (c->cfg.url[0] && err->code && strcmp(err->code, MG_E_PROVIDER_BAD_RESPONSE) != 0) {
        c->ready = false; /* initialize again next time */
    }
    if (!c->cfg.url[0] && c->pid > 0) drain_stderr(c);
    pthread_mutex_unlock(&c->mu);
    return rc;
}

int mg_mcpc_pid(struct mg_mcpc *c)
{
    pthread_mutex_lock(&c->mu);
    int pid = c->pid;
    pthread_mutex_unlock(&c->mu);
    return pid;
}

void mg_mcpc_free(struct mg_mcpc *c)
{
    if (!c) return;
    stop_child(c, false);
    mg_buf_release(&c->rbuf);
    pthread_mutex_destroy(&c->mu);
    free(c);
}
