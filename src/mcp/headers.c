/* headers.c — a 2026-07-28 request's HTTP headers against its body
 * (rpc_int.h): MCP-Protocol-Version, Mcp-Method, Mcp-Name and the
 * Mcp-Param-{Name} headers of the arguments a tool's input schema marks
 * x-mcp-header, with their =?base64?...?= form. */
#include "mcp/rpc_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "mcp/ext.h"
#include "tools/tools.h"

/* A header's value against the body's: equal, after decoding the
 * =?base64?...?= form. */
static bool header_matches(const char *h, const char *body)
{
    size_t n = strlen(h);
    if (n >= 11 && strncmp(h, "=?base64?", 9) == 0 && strcmp(h + n - 2, "?=") == 0) {
        unsigned char buf[1024];
        size_t len = 0;
        if (sodium_base642bin(buf, sizeof(buf) - 1, h + 9, n - 11, NULL, &len, NULL,
                              sodium_base64_VARIANT_ORIGINAL) != 0)
            return false;
        buf[len] = 0;
        return len == strlen(body) && memcmp(buf, body, len) == 0;
    }
    return strcmp(h, body) == 0;
}

static bool header_chars_ok(const char *h)
{
    for (const unsigned char *p = (const unsigned char *)h; *p; p++)
        if ((*p < 0x20 && *p != '\t') || *p > 0x7e) return false;
    return true;
}

/* An argument as its header form: strings as they are, integers in decimal,
 * booleans lowercase; other values have none. */
static bool header_form(json_t *v, char *out, size_t cap)
{
    if (json_is_string(v)) snprintf(out, cap, "%s", json_string_value(v));
    else if (json_is_integer(v)) snprintf(out, cap, "%lld", (long long)json_integer_value(v));
    else if (json_is_boolean(v)) snprintf(out, cap, "%s", json_is_true(v) ? "true" : "false");
    else if (json_is_real(v)) snprintf(out, cap, "%.17g", json_real_value(v));
    else return false;
    return true;
}

static bool numbers_equal(const char *a, const char *b)
{
    char *ea, *eb;
    double x = strtod(a, &ea), y = strtod(b, &eb);
    return *a && *b && !*ea && !*eb && x == y;
}

/* tools/call's Mcp-Param-{Name} headers against the arguments marked
 * x-mcp-header in the tool's input schema. 0, or -1 after mg__rpc_fail(). */
static int check_param_headers(struct mg__call *c)
{
    const char *name = json_string_value(json_object_get(c->params, "name"));
    const char *schema = NULL;
    const struct mg_tool *t = name ? mg_tool_find(name) : NULL;
    const struct mg_mcp_ext_tool *ft = name && !t ? mg__mcp_ext_tool(name) : NULL;
    schema = t ? t->input_schema : ft ? ft->input_schema : NULL;
    if (!schema || !strstr(schema, "x-mcp-header")) return 0;
    json_t *sch = json_loads(schema, 0, NULL);
    json_t *args = json_object_get(c->params, "arguments");
    const char *prop;
    json_t *def;
    int rc = 0;
    json_object_foreach(json_object_get(sch, "properties"), prop, def)
    {
        const char *hn = json_string_value(json_object_get(def, "x-mcp-header"));
        if (!hn) continue;
        char key[160], want[1024];
        snprintf(key, sizeof(key), "Mcp-Param-%s", hn);
        const char *got = c->c->header(c->c->header_ctx, key);
        json_t *v = json_object_get(args, prop);
        if (got && !header_chars_ok(got)) {
            mg__rpc_fail(c, MG_RPC_HEADER_MISMATCH, "Header mismatch: %s holds characters a header may not carry", key);
            rc = -1;
            break;
        }
        if (!v || json_is_null(v)) continue; /* no value: no header expected */
        if (!header_form(v, want, sizeof(want))) continue;
        if (!got) {
            mg__rpc_fail(c, MG_RPC_HEADER_MISMATCH, "Header mismatch: %s is missing; argument '%s' is in the body", key, prop);
            rc = -1;
            break;
        }
        bool same = header_matches(got, want) || ((json_is_integer(v) || json_is_real(v)) && numbers_equal(got, want));
        if (!same) {
            mg__rpc_fail(c, MG_RPC_HEADER_MISMATCH, "Header mismatch: %s does not match argument '%s'", key, prop);
            rc = -1;
            break;
        }
    }
    json_decref(sch);
    return rc;
}

/* The HTTP headers of a 2026-07-28 request against its body. 0, or -1
 * after mg__rpc_fail(). */
int mg__rpc_check_headers(struct mg__call *c, const char *version)
{
    const struct mg_rpc_conn *k = c->c;
    const char *pv = k->header(k->header_ctx, "MCP-Protocol-Version");
    if (!pv || strcmp(pv, version) != 0) {
        mg__rpc_fail(c, MG_RPC_HEADER_MISMATCH, "Header mismatch: MCP-Protocol-Version %s%s%s does not match _meta's '%s'",
             pv ? "'" : "", pv ? pv : "is missing and", pv ? "'" : "", version);
        return -1;
    }
    const char *mh = k->header(k->header_ctx, "Mcp-Method");
    if (!mh || strcmp(mh, c->method) != 0) {
        mg__rpc_fail(c, MG_RPC_HEADER_MISMATCH, "Header mismatch: Mcp-Method %s does not match the body's method '%s'",
             mh ? "value" : "is missing and", c->method);
        return -1;
    }
    const char *field = strcmp(c->method, "tools/call") == 0 || strcmp(c->method, "prompts/get") == 0 ? "name"
                        : strcmp(c->method, "resources/read") == 0                                    ? "uri"
                        : mg__rpc_task_method(c->method)                                              ? "taskId"
                                                                                                      : NULL;
    if (field) {
        const char *body = json_string_value(json_object_get(c->params, field));
        const char *nh = k->header(k->header_ctx, "Mcp-Name");
        if (body && (!nh || !header_chars_ok(nh) || !header_matches(nh, body))) {
            mg__rpc_fail(c, MG_RPC_HEADER_MISMATCH, "Header mismatch: Mcp-Name %s does not match params.%s",
                 nh ? "value" : "is missing and", field);
            return -1;
        }
    }
    if (strcmp(c->method, "tools/call") == 0) return check_param_headers(c);
    return 0;
}

