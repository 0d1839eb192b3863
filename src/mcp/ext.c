/* ext.c — the extension a program adds to memgate's MCP server (ext.h). */
#include "mcp/ext.h"

#include <string.h>

/* Set once at start-up, before any server runs (NULL in the shipped binary). */
static const struct mg_mcp_ext *ext;

void mg_mcp_extend(const struct mg_mcp_ext *e) { ext = e; }

const struct mg_mcp_ext *mg__mcp_ext(void) { return ext; }

const struct mg_mcp_ext_tool *mg__mcp_ext_tool(const char *name)
{
    for (size_t i = 0; ext && i < ext->ntools; i++)
        if (strcmp(ext->tools[i].name, name) == 0) return &ext->tools[i];
    return NULL;
}
