/* tasks.h — the MCP tasks extension (io.modelcontextprotocol/tasks,
 * SEP-2663) on 2026-07-28 requests: a tools/call the server runs in the
 * background, polled with tasks/get, fed with tasks/update, stopped with
 * tasks/cancel (docs/mcp.md, "Tasks").
 *
 * The store lives in the process, one for every MCP server of it. A task
 * belongs to its caller: the tenant, the token and, on a connection with a
 * session, that session; any other caller asking for its id hears that it
 * does not exist. Ids are 128 random bits. The store is bounded: at most
 * MG_MCP_TASKS_PER_CALLER tasks a caller, MG_MCP_TASKS_MAX in all; a task is
 * kept MG_MCP_TASK_TTL_MS after its last change (its result too), then
 * removed. At the caller's cap, its oldest finished task whose outcome was
 * fetched (or that it cancelled) makes room; when there is none, a tools/call
 * that would start a task is refused (error rate_limited).
 */
#ifndef MG_MCP_TASKS_H
#define MG_MCP_TASKS_H

#define MG_MCP_TASKS_PER_CALLER 32
#define MG_MCP_TASKS_MAX 256
#define MG_MCP_TASK_TTL_MS 3600000 /* 1 h after the task's last change */
#define MG_MCP_TASK_POLL_MS 500    /* pollIntervalMs: what a client should wait between tasks/get */

/* Stop every task's work, wait for their threads and free the store. Once,
 * when the process stops serving, before its mg_server closes. */
void mg_mcp_tasks_shutdown(void);

#endif
