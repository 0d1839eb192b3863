/* stdio.h — MCP over stdin/stdout (`memgate mcp`).
 *
 * Newline-delimited JSON-RPC on in_fd/out_fd for one client and one session
 * until end of input. tools/call runs on worker threads so the reader stays
 * free for the client's answers to roots/list; everything else is answered
 * in order. Lines over MG_STDIO_MAX_LINE are refused (-32700) and skipped.
 * cwd: the directory the process runs in (a repo holding it is the session's
 * repo when the client states no root), or NULL.
 */
#ifndef MG_STDIO_H
#define MG_STDIO_H

#include "request/server.h"

#define MG_STDIO_MAX_LINE (4 << 20)

/* 0 at end of input. */
int mg_mcp_stdio(struct mg_server *srv, struct mg_session *s, const char *cwd, int in_fd, int out_fd);

#endif
