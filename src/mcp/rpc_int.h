/* rpc_int.h — what the files of the MCP dispatcher share: rpc.c (versions,
 * methods, dispatch), call.c (tools/call) and headers.c (the 2026-07-28
 * header checks). Not a contract for anyone else. */
#ifndef MG_RPC_INT_H
#define MG_RPC_INT_H

#include "mcp/rpc.h"

/* One request being answered. */
struct mg__call {
    const struct mg_rpc_conn *c;
    json_t *id, *params;
    const char *method;
    bool modern;         /* a 2026-07-28 request */
    json_t *caps;        /* its client capabilities (borrowed) */
    int log_level;       /* its _meta logLevel, -1 for none (then no log lines) */
    bool no_reply;       /* answered later, or never (a stdio subscriptions/listen) */
    int code;            /* JSON-RPC error, when set */
    char message[512];
    json_t *data;
    /* the tasks extension (tasks.c): set on a task's thread (its stop
     * flag: tasks/cancel, shutdown), NULL otherwise; to_task: tools/call
     * answered NULL because the call should run as a task (tasks.c starts it) */
    const volatile int *task_stop;
    bool to_task;
};

/* Fail the call with a JSON-RPC error (code and message); returns NULL. */
json_t *mg__rpc_fail(struct mg__call *c, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* tools/call: its result, or NULL after mg__rpc_fail (call.c). */
json_t *mg__rpc_tools_call(struct mg__call *c);

/* A 2026-07-28 request's HTTP headers against its body (c->c->header is
 * set): 0, or -1 after mg__rpc_fail (headers.c). */
int mg__rpc_check_headers(struct mg__call *c, const char *version);

/* The tasks extension (tasks.c, docs/mcp.md "Tasks"). */
#define MG__TASKS_EXT "io.modelcontextprotocol/tasks"

/* Is method one of the extension's (tasks/get, tasks/update, tasks/cancel)? */
bool mg__rpc_task_method(const char *method);

/* Did the request's client capabilities declare the extension? (call.c) */
bool mg__rpc_tasks_declared(const struct mg__call *c);

/* A 2026-07-28 tools/call (tasks.c): mg__rpc_tools_call, and when that
 * sets c->to_task, a task stored (a tasks/get right after finds it) that
 * runs the call again on its own thread; its CreateTaskResult. */
json_t *mg__rpc_tools_call_task(struct mg__call *c);

/* tasks/get, tasks/update, tasks/cancel (tasks.c): the result, or NULL after mg__rpc_fail. */
json_t *mg__rpc_tasks(struct mg__call *c);

#endif
