/* jsonrpc.c — see jsonrpc.h. */
#include "mcp/jsonrpc.h"

#include <stdio.h>
#include <string.h>

#include "util/json.h"

json_t *mg_rpc_error(json_t *id, int code, const char *message, json_t *data)
{
    json_t *e = json_pack("{s:i, s:o}", "code", code, "message", mg_json_text(message));
    if (data) json_object_set_new(e, "data", data);
    return json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id ? id : json_null(), "error", e);
}

/* Nesting depth of JSON text, outside strings; stops early past max. */
static int too_deep(const char *t, size_t n, int max)
{
    int depth = 0;
    bool str = false;
    for (size_t i = 0; i < n; i++) {
        char c = t[i];
        if (str) {
            if (c == '\\') i++;
            else if (c == '"') str = false;
        } else if (c == '"') {
            str = true;
        } else if (c == '[' || c == '{') {
            if (++depth > max) return 1;
        } else if (c == ']' || c == '}') {
            depth--;
        }
    }
    return 0;
}

json_t *mg_rpc_parse(const char *text, size_t len, json_t **reply)
{
    *reply = NULL;
    if (too_deep(text, len, MG_RPC_MAX_DEPTH)) {
        char m[96];
        snprintf(m, sizeof(m), "parse error: JSON nested deeper than %d levels", MG_RPC_MAX_DEPTH);
        *reply = mg_rpc_error(NULL, MG_RPC_PARSE_ERROR, m, NULL);
        return NULL;
    }
    json_error_t je;
    json_t *j = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &je);
    if (!j) {
        char m[256];
        snprintf(m, sizeof(m), "parse error: %s at line %d column %d", je.text, je.line, je.column);
        *reply = mg_rpc_error(NULL, MG_RPC_PARSE_ERROR, m, NULL);
        return NULL;
    }
    return j;
}


void mg_rpc_classify(json_t *msg, struct mg_rpc_kind *k)
{
    memset(k, 0, sizeof(*k));
    k->batch = json_is_array(msg);
    size_t n = k->batch ? json_array_size(msg) : 1;
    for (size_t i = 0; i < n; i++) {
        json_t *m = k->batch ? json_array_get(msg, i) : msg;
        json_t *method = json_object_get(m, "method");
        json_t *id = json_object_get(m, "id");
        if (json_is_string(method)) {
            if (id) {
                k->requests++;
                if (strcmp(json_string_value(method), "initialize") == 0) k->initialize = true;
            } else {
                k->notifications++;
            }
        } else if (json_object_get(m, "result") || json_object_get(m, "error")) {
            k->responses++;
        } else {
            k->requests++; /* invalid: it will be answered with -32600 */
        }
    }
}

