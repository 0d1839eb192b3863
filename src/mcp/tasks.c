/* tasks.c — the tasks extension (tasks.h, rpc_int.h): the store of tasks,
 * the thread a task runs on, tasks/get, tasks/update and tasks/cancel.
 *
 * Sections:
 *   1. the store: tasks, their callers, expiry
 *   2. a task's thread: rounds of tools/call, input from tasks/update
 *   3. creating a task (tools/call)
 *   4. tasks/get, tasks/update, tasks/cancel
 *
 * One mutex guards the store and every task's state; one condition wakes
 * a task waiting for input and the shutdown waiting for the threads. A
 * task's thread runs the call the way a tools/call request does
 * (mg__rpc_tools_call with c->task_stop set), without holding the mutex, with
 * copies of what the request's transport owned (the caller, its session
 * reference, the X-Memgate-Repo header). A round that ends with an
 * InputRequiredResult parks the task as input_required; tasks/update
 * answers its requests and, once all are answered, the thread runs the call
 * again with the answers, as a client's retry would.
 */
#include "mcp/rpc_int.h"
#include "mcp/tasks.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

#include "request/session.h"

/* ---- 1. the store: tasks, their callers, expiry ----------------------------------------------------- */

enum status { WORKING, INPUT_REQUIRED, COMPLETED, FAILED, CANCELLED };
static const char *const status_name[] = {"working", "input_required", "completed", "failed", "cancelled"};

struct mg__task {
    struct mg__task *next;
    char id[33];        /* 32 hex digits */
    char *caller;       /* tenant, token and session (caller_of) */
    enum status status;
    int64_t created_ms, updated_ms; /* CLOCK_REALTIME */
    json_t *params;     /* the tools/call params of the next round */
    json_t *result;     /* completed: the CallToolResult */
    json_t *error;      /* failed: {code, message, data?} */
    json_t *inputs;     /* input_required: the requests not answered yet */
    json_t *answers;    /* the answers tasks/update brought for this round */
    volatile int stop;  /* tasks/cancel, shutdown */
    bool running;       /* its thread has not ended */
    bool fetched;       /* tasks/get returned its outcome */
    /* what the request's transport owned, for the rounds */
    struct mg_server *srv;
    struct mg_principal who;
    struct mg_session *session; /* a reference, or NULL */
    char *repo_header, *cwd, *from;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static struct mg__task *tasks;
static size_t ntasks;
static int nrunning;

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static json_t *iso(int64_t ms)
{
    char b[40];
    time_t s = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&s, &tm);
    size_t n = strftime(b, sizeof(b), "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(b + n, sizeof(b) - n, ".%03dZ", (int)(ms % 1000));
    return json_string(b);
}

/* Who a task belongs to: the tenant, the token, and the session of a
 * connection that has one (a 2025 session or stdio's). malloc'd. */
static char *caller_of(const struct mg__call *c)
{
    const struct mg_rpc_conn *k = c->c;
    const char *sid = k->session && !k->stateless ? mg_session_id(k->session) : "";
    char *s = NULL;
    if (asprintf(&s, "%s\x1f%s\x1f%s", k->who->tenant, k->who->token_id, sid) < 0) return NULL;
    return s;
}

static void task_free(struct mg__task *t)
{
    free(t->caller);
    json_decref(t->params);
    json_decref(t->result);
    json_decref(t->error);
    json_decref(t->inputs);
    json_decref(t->answers);
    free(t);
}

/* Drop what the task kept of the request's transport (its thread's end). */
static void release_request(struct mg__task *t)
{
    mg_session_unref(&t->session);
    mg_principal_release(&t->who);
    free(t->repo_header);
    free(t->cwd);
    free(t->from);
    t->repo_header = t->cwd = t->from = NULL;
}

static bool terminal(const struct mg__task *t) { return t->status >= COMPLETED; }

static void touch(struct mg__task *t, enum status s)
{
    t->status = s;
    t->updated_ms = now_ms();
    pthread_cond_broadcast(&cv);
}

/* Remove the tasks whose time is up (no thread of theirs runs). Locked. */
static void sweep(int64_t now)
{
    for (struct mg__task **p = &tasks; *p;) {
        struct mg__task *t = *p;
        if (!t->running && now - t->updated_ms > MG_MCP_TASK_TTL_MS) {
            *p = t->next;
            ntasks--;
            task_free(t);
        } else {
            p = &t->next;
        }
    }
}

/* The caller's task of that id, or NULL (another caller's is not there). Locked. */
static struct mg__task *find(const char *caller, const char *id)
{
    for (struct mg__task *t = tasks; t; t = t->next)
        if (strcmp(t->id, id) == 0 && strcmp(t->caller, caller) == 0) return t;
    return NULL;
}

/* Room for one more task of caller: true, after removing (when at the cap)
 * its oldest finished task whose outcome was fetched, or that it
 * cancelled. Locked. */
static bool room(const char *caller)
{
    size_t mine = 0;
    struct mg__task **oldest = NULL;
    for (struct mg__task **p = &tasks; *p; p = &(*p)->next) {
        if (strcmp((*p)->caller, caller) != 0) continue;
        mine++;
        if (!(*p)->running && ((*p)->fetched || (*p)->status == CANCELLED) &&
            (!oldest || (*p)->updated_ms < (*oldest)->updated_ms))
            oldest = p;
    }
    if (mine < MG_MCP_TASKS_PER_CALLER && ntasks < MG_MCP_TASKS_MAX) return true;
    if (!oldest) return false;
    struct mg__task *t = *oldest;
    *oldest = t->next;
    ntasks--;
    task_free(t);
    return ntasks < MG_MCP_TASKS_MAX;
}

void mg_mcp_tasks_shutdown(void)
{
    pthread_mutex_lock(&mu);
    for (struct mg__task *t = tasks; t; t = t->next) t->stop = 1;
    pthread_cond_broadcast(&cv);
    while (nrunning > 0) pthread_cond_wait(&cv, &mu);
    while (tasks) {
        struct mg__task *t = tasks;
        tasks = t->next;
        task_free(t);
    }
    ntasks = 0;
    pthread_mutex_unlock(&mu);
}

/* ---- 2. a task's thread: rounds of tools/call, input from tasks/update ------------------------------- */

/* Wait (locked) until tasks/update answered every request of the round, the
 * task is stopped, or its time is up: true to run the next round. */
static bool wait_input(struct mg__task *t)
{
    while (!t->stop && t->status == INPUT_REQUIRED && json_object_size(t->inputs) > 0) {
        int64_t until = t->updated_ms + MG_MCP_TASK_TTL_MS;
        struct timespec ts = {(time_t)(until / 1000), (long)(until % 1000) * 1000000L};
        if (pthread_cond_timedwait(&cv, &mu, &ts) != 0 && now_ms() >= until) {
            t->error = json_pack("{s:i, s:s}", "code", MG_RPC_INTERNAL_ERROR, "message",
                                 "the task waited for input longer than its ttlMs; call the tool again");
            touch(t, FAILED);
            return false;
        }
    }
    return !t->stop && t->status != CANCELLED;
}

static void *run(void *arg)
{
    struct mg__task *t = arg;
    pthread_mutex_lock(&mu);
    json_t *params = json_deep_copy(t->params);
    pthread_mutex_unlock(&mu);
    struct mg_rpc_conn conn = {.srv = t->srv, .session = t->session, .who = &t->who, .repo_header = t->repo_header,
                               .cwd = t->cwd, .from = t->from, .stateless = true};
    for (bool again = params != NULL; again;) {
        again = false;
        json_t *meta = json_object_get(params, "_meta");
        struct mg__call call = {.c = &conn, .params = params, .method = "tools/call", .modern = true,
                                .caps = json_object_get(meta, "io.modelcontextprotocol/clientCapabilities"),
                                .log_level = -1, .task_stop = &t->stop};
        json_t *r = mg__rpc_tools_call(&call);
        const char *type = json_string_value(json_object_get(r, "resultType"));
        pthread_mutex_lock(&mu);
        if (t->stop || t->status == CANCELLED) {
            json_decref(r);
        } else if (!r) {
            t->error = json_pack("{s:i, s:s}", "code", call.code, "message", call.message);
            if (call.data) json_object_set(t->error, "data", call.data);
            touch(t, FAILED);
        } else if (type && strcmp(type, "input_required") == 0) {
            json_decref(t->inputs);
            t->inputs = json_copy(json_object_get(r, "inputRequests"));
            json_decref(t->answers);
            t->answers = json_object();
            json_t *state = json_object_get(r, "requestState");
            if (state) json_object_set(params, "requestState", state);
            else json_object_del(params, "requestState");
            json_decref(r);
            touch(t, INPUT_REQUIRED);
            if (!json_is_object(t->inputs) || json_object_size(t->inputs) == 0) {
                t->error = json_pack("{s:i, s:s}", "code", MG_RPC_INTERNAL_ERROR, "message",
                                     "the tool asked for input without naming any");
                touch(t, FAILED);
            } else if ((again = wait_input(t))) {
                json_object_set_new(params, "inputResponses", json_deep_copy(t->answers)); /* t's stays locked */
                touch(t, WORKING);
            }
        } else {
            json_object_del(r, "resultType"); /* the DetailedTask's own says complete */
            t->result = r;
            touch(t, COMPLETED);
        }
        pthread_mutex_unlock(&mu);
        json_decref(call.data);
    }
    json_decref(params);
    release_request(t);
    pthread_mutex_lock(&mu);
    if (!terminal(t)) { /* stopped by the shutdown */
        t->error = json_pack("{s:i, s:s}", "code", MG_RPC_INTERNAL_ERROR, "message", "the server stopped");
        touch(t, FAILED);
    }
    t->running = false;
    nrunning--;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    return NULL;
}

/* ---- 3. creating a task (tools/call) ---------------------------------------------------------------- */

bool mg__rpc_task_method(const char *method)
{
    return strcmp(method, "tasks/get") == 0 || strcmp(method, "tasks/update") == 0 ||
           strcmp(method, "tasks/cancel") == 0;
}

/* The fields of a task every answer about it carries. Locked. */
static json_t *task_json(const struct mg__task *t)
{
    return json_pack("{s:s, s:s, s:o, s:o, s:i, s:i}", "taskId", t->id, "status", status_name[t->status], "createdAt",
                     iso(t->created_ms), "lastUpdatedAt", iso(t->updated_ms), "ttlMs", MG_MCP_TASK_TTL_MS,
                     "pollIntervalMs", MG_MCP_TASK_POLL_MS);
}

static int copy_str(char **dst, const char *src)
{
    *dst = src ? strdup(src) : NULL;
    return src && !*dst ? -1 : 0;
}

/* run(t) on a detached thread: 0, or -1. */
static int start_thread(struct mg__task *t)
{
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0) return -1;
    pthread_t th;
    int rc = pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED) == 0 && pthread_create(&th, &attr, run, t) == 0
                 ? 0
                 : -1;
    pthread_attr_destroy(&attr);
    return rc;
}

/* The call c as a task: its CreateTaskResult, or NULL with err. */
static json_t *task_start(struct mg__call *c, struct mg_err *err)
{
    struct mg__task *t = calloc(1, sizeof(*t));
    if (!t || !(t->caller = caller_of(c)) || !(t->params = json_deep_copy(c->params)) ||
        mg_principal_copy(&t->who, c->c->who) != 0 || copy_str(&t->repo_header, c->c->repo_header) ||
        copy_str(&t->cwd, c->c->cwd) || copy_str(&t->from, c->c->from)) {
        if (t) {
            release_request(t);
            task_free(t);
        }
        mg_err_oom(err);
        return NULL;
    }
    json_object_del(t->params, "task"); /* a 2025 client's hint: the server decides */
    unsigned char raw[16];
    randombytes_buf(raw, sizeof(raw));
    sodium_bin2hex(t->id, sizeof(t->id), raw, sizeof(raw));
    t->srv = c->c->srv;
    if (c->c->session && !c->c->stateless) { /* stdio's bound session, a 2025 connection's */
        mg_session_ref(c->c->session);
        t->session = c->c->session;
    }
    t->created_ms = t->updated_ms = now_ms();
    t->running = true;

    pthread_mutex_lock(&mu);
    sweep(t->created_ms);
    json_t *r = NULL;
    if (!room(t->caller)) {
        mg_err_set(err, MG_E_RATE_LIMITED,
                   "this caller has %d tasks working or finished but not fetched; fetch their results (tasks/get) "
                   "or cancel some (tasks/cancel), then call again",
                   MG_MCP_TASKS_PER_CALLER);
    } else if (start_thread(t) != 0) {
        mg_err_set(err, MG_E_INTERNAL, "could not start the task's thread; call again");
    } else {
        t->next = tasks;
        tasks = t;
        ntasks++;
        nrunning++;
        r = task_json(t);
        json_object_set_new(r, "resultType", json_string("task"));
    }
    pthread_mutex_unlock(&mu);
    if (!r) {
        release_request(t);
        task_free(t);
    }
    return r;
}

json_t *mg__rpc_tools_call_task(struct mg__call *c)
{
    json_t *r = mg__rpc_tools_call(c);
    if (r || !c->to_task) return r;
    struct mg_err err = {0};
    if ((r = task_start(c, &err))) return r;
    /* refused (the caller's cap): a tool error, as call.c writes them */
    char text[600];
    snprintf(text, sizeof(text), "error[%s]: %s", err.code ? err.code : MG_E_INTERNAL, err.msg);
    return json_pack("{s:[{s:s, s:s}], s:b, s:{s:{s:s, s:s}}}", "content", "type", "text", "text", text, "isError", 1,
                     "_meta", MG_MCP_ERROR_META, "code", err.code ? err.code : MG_E_INTERNAL, "message", err.msg);
}

/* ---- 4. tasks/get, tasks/update, tasks/cancel ------------------------------------------------------- */

json_t *mg__rpc_tasks(struct mg__call *c)
{
    if (!mg__rpc_tasks_declared(c)) {
        c->data = json_pack("{s:{s:{s:{}}}}", "requiredCapabilities", "extensions", MG__TASKS_EXT);
        return mg__rpc_fail(c, MG_RPC_MISSING_CAPABILITY,
                            "%s needs the client to declare the extension \"" MG__TASKS_EXT
                            "\" in _meta[\"io.modelcontextprotocol/clientCapabilities\"].extensions",
                            c->method);
    }
    const char *id = json_string_value(json_object_get(c->params, "taskId"));
    if (!id) return mg__rpc_fail(c, MG_RPC_INVALID_PARAMS, "%s needs params.taskId (a string)", c->method);
    json_t *in = json_object_get(c->params, "inputResponses");
    bool update = strcmp(c->method, "tasks/update") == 0;
    if (update && !json_is_object(in))
        return mg__rpc_fail(c, MG_RPC_INVALID_PARAMS, "tasks/update needs params.inputResponses (an object)");
    char *caller = caller_of(c);
    if (!caller) return mg__rpc_fail(c, MG_RPC_INTERNAL_ERROR, "out of memory");
    pthread_mutex_lock(&mu);
    sweep(now_ms());
    struct mg__task *t = find(caller, id);
    free(caller);
    json_t *r = NULL;
    if (!t) {
        mg__rpc_fail(c, MG_RPC_INVALID_PARAMS, "unknown task '%.64s' (expired, or never created for this caller)", id);
    } else if (strcmp(c->method, "tasks/get") == 0) {
        r = task_json(t);
        if (t->status == COMPLETED) json_object_set(r, "result", t->result);
        if (t->status == FAILED) json_object_set(r, "error", t->error);
        if (t->status == INPUT_REQUIRED) /* a copy: tasks/update changes it while the answer is written */
            json_object_set_new(r, "inputRequests", json_deep_copy(t->inputs));
        if (terminal(t)) t->fetched = true;
    } else if (update) {
        /* answers to the round's open requests; other keys are ignored */
        const char *key;
        json_t *v;
        json_object_foreach(in, key, v)
        {
            if (t->status != INPUT_REQUIRED || !json_object_get(t->inputs, key)) continue;
            json_object_set(t->answers, key, v);
            json_object_del(t->inputs, key);
        }
        if (t->status == INPUT_REQUIRED) /* all answered: the thread runs the next round */
            touch(t, json_object_size(t->inputs) > 0 ? INPUT_REQUIRED : WORKING);
        r = json_object();
    } else { /* tasks/cancel: idempotent on a finished task */
        if (!terminal(t)) {
            t->stop = 1;
            touch(t, CANCELLED);
        }
        r = json_object();
    }
    pthread_mutex_unlock(&mu);
    return r;
}
