/* groups.c — the tool groups and the `tools` tool (tools.h).
 *
 * tools/list goes into every agent's context on every connection, so MCP
 * clients see the core tools (code search and navigation, get_context,
 * list_repos, `tools`) and the groups they enable: `tools` enables or
 * disables groups on the client's list (through the request's channel,
 * which keeps the list of an MCP connection and tells the client it
 * changed), and describes a group's tools where no list is kept (a
 * stateless 2026-07-28 request): every tool is callable by name whether
 * listed or not. */
#include <stdio.h>
#include <string.h>

#include "tools/args.h"
#include "tools/family.h"

static const struct {
    const char *name;  /* what `tools` and _meta["memgate/tools"] call it */
    const char *about; /* one line: what its tools do */
    unsigned bit;
} groups[] = {
    {"memory", "notes, episodes, entities, an agent's preferences, extract_knowledge", MG_TOOL_GROUP_MEMORY},
    {"projects", "projects: sessions sharing episodes and entities", MG_TOOL_GROUP_PROJECTS},
    {"repos", "index a directory, index status, repo settings", MG_TOOL_GROUP_REPOS},
    {"session", "the session scope (set_scope) and open_handle", MG_TOOL_GROUP_SESSION},
};
#define NGROUPS (sizeof(groups) / sizeof(groups[0]))

static int one_group(json_t *v, const char *what, unsigned *mask, struct mg_err *err)
{
    const char *s = json_string_value(v);
    if (s && strcmp(s, "all") == 0) {
        *mask |= MG_TOOL_GROUPS_ALL;
        return 0;
    }
    for (size_t i = 0; s && i < NGROUPS; i++)
        if (strcmp(s, groups[i].name) == 0) {
            *mask |= groups[i].bit;
            return 0;
        }
    return mg_err_set(err, MG_E_BAD_ARG, "'%s' names tool groups: all, memory, projects, repos or session%s%.40s%s",
                      what, s ? " (not '" : "", s ? s : "", s ? "')" : "");
}

int mg_tool_groups_parse(json_t *v, const char *what, unsigned *mask, struct mg_err *err)
{
    *mask = 0;
    if (!v || json_is_null(v)) return 0;
    if (!json_is_array(v)) return one_group(v, what, mask, err);
    size_t i;
    json_t *e;
    json_array_foreach(v, i, e) if (one_group(e, what, mask, err) != 0) return -1;
    return 0;
}

/* A tool as a client would list it: enough to call it by name. */
static json_t *definition(const struct mg_tool *t)
{
    json_t *in = json_loads(t->input_schema, 0, NULL);
    return json_pack("{s:s, s:s, s:o}", "name", t->name, "description", t->description, "inputSchema",
                     in ? in : json_object());
}

static int t_tools(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"enable", "disable", "describe", NULL};
    unsigned on = 0, off = 0, now = 0;
    bool describe = false;
    if (mg_known_keys(args, keys, err) != 0 || mg_tool_groups_parse(json_object_get(args, "enable"), "enable", &on, err) != 0 ||
        mg_tool_groups_parse(json_object_get(args, "disable"), "disable", &off, err) != 0 ||
        mg_arg_bool(args, "describe", &describe, err) != 0)
        return -1;
    struct mg_channel *ch = x->channel;
    bool listed = ch && ch->tool_groups && ch->tool_groups(ch, on, off, &now) == 0;
    if (!listed) now = on & ~off; /* no list kept: what this call asked for is described */
    size_t n;
    const struct mg_tool *all = mg_tools(&n);
    json_t *gs = json_array(), *enabled = json_array(), *defs = json_array();
    for (size_t g = 0; g < NGROUPS; g++) {
        json_t *names = json_array();
        bool want = (now & groups[g].bit) && (describe || !listed);
        for (size_t i = 0; i < n; i++) {
            if (mg_tool_group(&all[i]) != groups[g].bit) continue;
            json_array_append_new(names, json_string(all[i].name));
            if (want) json_array_append_new(defs, definition(&all[i]));
        }
        bool is_on = listed && (now & groups[g].bit);
        if (is_on) json_array_append_new(enabled, json_string(groups[g].name));
        json_array_append_new(gs, json_pack("{s:s, s:s, s:b, s:o}", "name", groups[g].name, "about", groups[g].about,
                                            "enabled", is_on, "tools", names));
    }
    *result = json_pack("{s:o, s:o, s:b}", "groups", gs, "enabled", enabled, "listed", listed);
    if (json_array_size(defs)) json_object_set_new(*result, "definitions", defs);
    else json_decref(defs);
    return *result ? 0 : mg_err_oom(err);
}

#define S_GROUPS "{\"type\":\"array\",\"items\":{\"enum\":[\"all\",\"memory\",\"projects\",\"repos\",\"session\"]}}"

const struct mg_tool mg_tools_groups[] = {
    {"tools", "Tool groups",
     "More tools, by group (memory, projects, repos, session): enable lists a group's tools; describe returns "
     "their definitions. Any tool can be called by name.",
     MG_S_IN("\"enable\":" S_GROUPS ",\"disable\":" S_GROUPS ",\"describe\":" MG_S_BOOL, ""),
     MG_S_OUT("\"groups\":" MG_S_ARR ",\"enabled\":" MG_SCHEMA_STRS ",\"listed\":" MG_S_BOOL,
              MG_S_REQ("\"groups\",\"enabled\",\"listed\"")),
     t_tools, MG_TOOL_IDEMPOTENT},
};
const size_t mg_tools_groups_n = sizeof(mg_tools_groups) / sizeof(mg_tools_groups[0]);
