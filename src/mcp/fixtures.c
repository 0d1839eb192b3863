/* fixtures.c — the conformance suite's fixtures (`memgate serve
 * --conformance-fixtures`).
 *
 * @modelcontextprotocol/conformance's server scenarios call tools, resources,
 * prompts and completions with fixed names and check fixed shapes (its
 * "everything server" contract). This file is that contract and nothing
 * more: stateless, no repo access, off unless the flag is given.
 *
 * Tools return a CallToolResult-shaped object ({"content":[...]} and, for a
 * tool error, "isError":true); rpc.c passes any tool result with a top-level
 * "content" array through verbatim instead of wrapping it as
 * structuredContent. Logging, progress, sampling and elicitation go
 * through the struct mg_fixture_io rpc.c hands them (fixtures.h). They touch
 * no repo and no memory, so they do not pass the gate and are not audited.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcp/fixtures.h"
#include "mcp/jsonrpc.h"

/* A 1x1 red PNG and a 1 ms, 8 kHz, 8-bit mono WAV of silence. */
static const char PNG_B64[] =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";
static const char WAV_B64[] = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";

#define REQUEST_TIMEOUT_MS 60000
#define MG_RPC_RESOURCE_NOT_FOUND -32002

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

static json_t *text_block(const char *text)
{
    return json_pack("{s:s, s:s}", "type", "text", "text", text);
}

/* {"content":[{"type":"text","text":...}]} */
static json_t *text_result(const char *text)
{
    return json_pack("{s:[o]}", "content", text_block(text));
}

static json_t *error_result(const char *text)
{
    return json_pack("{s:[o], s:b}", "content", text_block(text), "isError", 1);
}

static const char *str_arg(json_t *args, const char *key)
{
    json_t *v = json_is_object(args) ? json_object_get(args, key) : NULL;
    return json_is_string(v) ? json_string_value(v) : NULL;
}

/* ---- tools ---- */

static int t_simple_text(struct mg_fixture_io *io, json_t *args, json_t **result, struct mg_err *err)
{
    *result = text_result("This is a simple text response for testing.");
    return 0;
}

static int t_image(struct mg_fixture_io *io, json_t *args, json_t **result, struct mg_err *err)
{
    *result = json_pack("{s:[{s:s, s:s, s:s}]}", "content", "type", "image", "data", PNG_B64, "mimeType", "image/png");
    return 0;
}

static int t_audio(struct mg_fixture_io *io, json_t *args, json_t **result, struct mg_err *err)
{
    *result = json_pack("{s:[{s:s, s:s, s:s}]}", "content", "type", "audio", "data", WAV_B64, "mimeType", "audio/wav");
    return 0;
}

static int t_embedded_resource(struct mg_fixture_io *io, json_t *args, json_t **result, struct mg_err *err)
{
    *result = json_pack("{s:[{s:s, s:{s:s, s:s, s:s}}]}", "content", "type", "resource", "resource", "uri",
                        "test://embedded-resource", "mimeType", "text/plain", "text",
                        "This is an embedded resource content.");
    return 0;
}

static int t_mixed(struct mg_fixture_io *io, json_t *args, json_t **result, struct mg_err *err)
{
    *result = json_pack("{s:[o, {s:s, s:s, s:s}, {s:s, s:{s:s, s:s, s:s}}]}", "content",
                        text_block("Multiple content types test:"), "type", "image", "data", PNG_B64, "mimeType",
                        "image/png", "type", "resource", "resource", "uri", "test://mixed-content-resource",
                        "mimeType", "application/json", "text", "{\"test\":\"data\",\"value\":123}");
    return 0;
}

static int t_logging(struct mg_fixture_io *io, json_t *args, json_t **result, struct mg_err *err)
{
    io->log(io, "info", "Tool execution started");
    sleep_ms(50);
    io->log(io, "info", "Tool processing data");
    sleep_ms(50);
    io->log(io, "info", "Tool execution completed");
    *result = text_result("Tool with logging executed successfully");
    return 0;
}

static int t_error(struct mg_fixture_io *io, json_t *args, json_t **result, struct mg_err *err)
{
    *result = error_result("This tool intentionally returns an error for testing");
    return 0;
}

static int t_progress(struct mg_fixture_io *io, json_t *args, json_t **result, struct mg_err *err)
{
    io->progress(io, 0, 100, "starting");
    sleep_ms(50);
    io->progress(io, 50, 100, "halfway");
    sleep_ms(50);
    io->progress(io, 100, 100, "done");
    *result = text_result("Tool with progress executed successfully");
    return 0;
}

/* Send a server-to-client request; on failure *result is a tool error. */
static json_t *ask_client(struct mg_fixture_io *io, const char *method, json_t *params, json_t **result)
{
    struct mg_err e = {0};
    json_t *r = io->request(io, method, params, REQUEST_TIMEOUT_MS, &e);
    json_decref(params);
    if (!r) {
        char msg[1200];
        snprintf(msg, sizeof(msg), "%s failed: %s%s%s", method, e.code ? e.code : "error", e.msg[0] ? ": " : "",
                 e.msg);
        *result = error_result(msg);
    }
    return r;
}

static int t_sampling(struct mg_fixture_io *io, json_t *args, json_t **result, struct mg_err *err)
{
    const char *prompt = str_arg(args, "prompt");
    if (!prompt) {
        *result = error_result("argument 'prompt' (string) is required");
        return 0;
    }
    json_t *params = json_pack("{s:[{s:s, s:{s:s, s:s}}], s:i}", "messages", "role", "user", "content", "type",
                               "text", "text", prompt, "maxTokens", 100);
    json_t *r = ask_client(io, "sampling/createMessage", params, result);
    if (!r) return 0;
    json_t *content = json_object_get(r, "content");
    const char *text = NULL;
    if (json_is_object(content)) text = json_string_value(json_object_get(content, "text"));
    else if (json_is_array(content) && json_array_size(content) > 0)
        text = json_string_value(json_object_get(json_array_get(content, 0), "text"));
    char *dump = NULL;
    if (!text) dump = json_dumps(r, JSON_COMPACT);
    size_t n = strlen(text ? text : dump ? dump : "") + 32;
    char *msg = malloc(n);
    if (msg) snprintf(msg, n, "LLM response: %s", text ? text : dump ? dump : "");
    *result = text_result(msg ? msg : "LLM response received");
    free(msg);
    free(dump);
    json_decref(r);
    return 0;
}

/* "<prefix> action=<a>, content={...}" from an elicitation result. */
static json_t *elicitation_text(const char *prefix, json_t *r)
{
    const char *action = json_string_value(json_object_get(r, "action"));
    json_t *content = json_object_get(r, "content");
    char *c = content ? json_dumps(content, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    size_t n = strlen(prefix) + strlen(action ? action : "?") + strlen(c ? c : "{}") + 32;
    char *msg = malloc(n);
    if (msg) snprintf(msg, n, "%s action=%s, content=%s", prefix, action ? action : "?", c ? c : "{}");
    json_t *res = text_result(msg ? msg : prefix);
    free(msg);
    free(c);
    return res;
}

static int t_elicitation(struct mg_fixture_io *io, json_t *args, json_t **result, struct mg_err *err)
{
    const char *message = str_arg(args, "message");
    if (!message) {
        *result = error_result("argument 'message' (string) is required");
        return 0;
    }
    json_t *params = json_pack(
        "{s:s, s:{s:s, s:{s:{s:s, s:s}, s:{s:s, s:s}}, s:[s, s]}}", "message", message, "requestedSchema", "type",
        "object", "properties", "username", "type", "string", "description", "User's response", "email", "type",
        "string", "description", "User's email address", "required", "username", "email");
    json_t *r = ask_client(io, "elicitation/create", params, result);
    if (!r) return 0;
    *result = elicitation_text("User response:", r);
    json_decref(r);
    return 0;
}

static int t_elicitation_defaults(struct mg_fixture_io *io, json_t *args, json_t **result, struct mg_err *err)
{
    json_t *params = json_loads(
        "{\"message\":\"Test client default value handling - please accept with defaults\","
        "\"requestedSchema\":{\"type\":\"object\",\"properties\":{"
        "\"name\":{\"type\":\"string\",\"description\":\"User name\",\"default\":\"John Doe\"},"
        "\"age\":{\"type\":\"integer\",\"description\":\"User age\",\"default\":30},"
        "\"score\":{\"type\":\"number\",\"description\":\"User score\",\"default\":95.5},"
        "\"status\":{\"type\":\"string\",\"description\":\"User status\","
        "\"enum\":[\"active\",\"inactive\",\"pending\"],\"default\":\"active\"},"
        "\"verified\":{\"type\":\"boolean\",\"description\":\"Verification status\",\"default\":true}},"
        "\"required\":[]}}",
        0, NULL);
    json_t *r = ask_client(io, "elicitation/create", params, result);
    if (!r) return 0;
    *result = elicitation_text("Elicitation completed:", r);
    json_decref(r);
    return 0;
}

static int t_elicitation_enums(struct mg_fixture_io *io, json_t *args, json_t **result, struct mg_err *err)
{
    json_t *params = json_loads(
        "{\"message\":\"Test enum schema variants (SEP-1330)\","
        "\"requestedSchema\":{\"type\":\"object\",\"properties\":{"
        "\"untitledSingle\":{\"type\":\"string\",\"title\":\"Untitled single-select\","
        "\"enum\":[\"option1\",\"option2\",\"option3\"]},"
        "\"titledSingle\":{\"type\":\"string\",\"title\":\"Titled single-select\",\"oneOf\":["
        "{\"const\":\"value1\",\"title\":\"First Option\"},{\"const\":\"value2\",\"title\":\"Second Option\"},"
        "{\"const\":\"value3\",\"title\":\"Third Option\"}]},"
        "\"legacyEnum\":{\"type\":\"string\",\"title\":\"Legacy titled enum\","
        "\"enum\":[\"opt1\",\"opt2\",\"opt3\"],\"enumNames\":[\"Option One\",\"Option Two\",\"Option Three\"]},"
        "\"untitledMulti\":{\"type\":\"array\",\"title\":\"Untitled multi-select\","
        "\"items\":{\"type\":\"string\",\"enum\":[\"option1\",\"option2\",\"option3\"]}},"
        "\"titledMulti\":{\"type\":\"array\",\"title\":\"Titled multi-select\",\"items\":{\"anyOf\":["
        "{\"const\":\"value1\",\"title\":\"First Choice\"},{\"const\":\"value2\",\"title\":\"Second Choice\"},"
        "{\"const\":\"value3\",\"title\":\"Third Choice\"}]}}},"
        "\"required\":[]}}",
        0, NULL);
    json_t *r = ask_client(io, "elicitation/create", params, result);
    if (!r) return 0;
    *result = elicitation_text("Elicitation completed:", r);
    json_decref(r);
    return 0;
}

static int t_json_schema(struct mg_fixture_io *io, json_t *args, json_t **result, struct mg_err *err)
{
    char *a = args ? json_dumps(args, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    size_t n = strlen(a ? a : "{}") + 32;
    char *msg = malloc(n);
    if (msg) snprintf(msg, n, "Received arguments: %s", a ? a : "{}");
    *result = text_result(msg ? msg : "Received arguments");
    free(msg);
    free(a);
    return 0;
}

/* server-sse-polling calls it: a short call whose result arrives on the POST
 * stream (closing the stream mid-call to test resumption would be the
 * transport's business; the scenario accepts the result on the POST stream). */
static int t_reconnection(struct mg_fixture_io *io, json_t *args, json_t **result, struct mg_err *err)
{
    sleep_ms(100);
    *result = text_result("Reconnection test completed successfully");
    return 0;
}

#define NOARGS "{\"type\":\"object\",\"properties\":{}}"

static const struct mg_fixture_tool fixture_tools[] = {
    {"test_simple_text", "Simple text", "Returns a simple text response (conformance fixture).", NOARGS, NULL,
     t_simple_text},
    {"test_image_content", "Image content", "Returns a 1x1 PNG image (conformance fixture).", NOARGS, NULL, t_image},
    {"test_audio_content", "Audio content", "Returns a tiny WAV clip (conformance fixture).", NOARGS, NULL, t_audio},
    {"test_embedded_resource", "Embedded resource", "Returns an embedded text resource (conformance fixture).",
     NOARGS, NULL, t_embedded_resource},
    {"test_multiple_content_types", "Mixed content",
     "Returns text, image and resource content together (conformance fixture).", NOARGS, NULL, t_mixed},
    {"test_tool_with_logging", "Logging", "Sends three info log messages while it runs (conformance fixture).",
     NOARGS, NULL, t_logging},
    {"test_error_handling", "Error", "Always returns a tool error (conformance fixture).", NOARGS, NULL, t_error},
    {"test_tool_with_progress", "Progress", "Reports progress 0, 50 and 100 of 100 (conformance fixture).", NOARGS,
     NULL, t_progress},
    {"test_sampling", "Sampling", "Asks the client's LLM to answer a prompt (conformance fixture).",
     "{\"type\":\"object\",\"properties\":{\"prompt\":{\"type\":\"string\","
     "\"description\":\"The prompt to send to the LLM\"}},\"required\":[\"prompt\"]}",
     NULL, t_sampling},
    {"test_elicitation", "Elicitation", "Asks the user for a username and email (conformance fixture).",
     "{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\","
     "\"description\":\"The message to show the user\"}},\"required\":[\"message\"]}",
     NULL, t_elicitation},
    {"test_elicitation_sep1034_defaults", "Elicitation defaults",
     "Elicits fields of every primitive type with defaults (SEP-1034; conformance fixture).", NOARGS, NULL,
     t_elicitation_defaults},
    {"test_elicitation_sep1330_enums", "Elicitation enums",
     "Elicits the five enum schema variants (SEP-1330; conformance fixture).", NOARGS, NULL, t_elicitation_enums},
    {"json_schema_2020_12_tool", "JSON Schema 2020-12", "Tool with JSON Schema 2020-12 features",
     "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"type\":\"object\","
     "\"$defs\":{\"address\":{\"type\":\"object\",\"properties\":{\"street\":{\"type\":\"string\"},"
     "\"city\":{\"type\":\"string\"}}}},"
     "\"properties\":{\"name\":{\"type\":\"string\"},\"address\":{\"$ref\":\"#/$defs/address\"}},"
     "\"additionalProperties\":false}",
     NULL, t_json_schema},
    {"test_reconnection", "Reconnection", "A short call answered on the request's SSE stream (conformance fixture).",
     NOARGS, NULL, t_reconnection},
};

const struct mg_fixture_tool *mg_fixture_tools(size_t *n)
{
    *n = sizeof(fixture_tools) / sizeof(fixture_tools[0]);
    return fixture_tools;
}

/* ---- resources ---- */

#define TEMPLATE_PREFIX "test://template/"
#define TEMPLATE_SUFFIX "/data"

static json_t *resources_list(void)
{
    return json_pack("{s:[{s:s, s:s, s:s, s:s}, {s:s, s:s, s:s, s:s}, {s:s, s:s, s:s, s:s}]}", "resources",
                     /* */ "uri", "test://static-text", "name", "static-text", "description",
                     "A static text resource (conformance fixture)", "mimeType", "text/plain",
                     /* */ "uri", "test://static-binary", "name", "static-binary", "description",
                     "A static binary resource: a 1x1 PNG (conformance fixture)", "mimeType", "image/png",
                     /* */ "uri", "test://watched-resource", "name", "watched-resource", "description",
                     "A resource that can be subscribed to (conformance fixture)", "mimeType", "text/plain");
}

static json_t *templates_list(void)
{
    return json_pack("{s:[{s:s, s:s, s:s, s:s}]}", "resourceTemplates", "uriTemplate",
                     TEMPLATE_PREFIX "{id}" TEMPLATE_SUFFIX, "name", "template-data", "description",
                     "Data for an id, substituted into the content (conformance fixture)", "mimeType",
                     "application/json");
}

static json_t *contents_text(const char *uri, const char *mime, const char *text)
{
    return json_pack("{s:[{s:s, s:s, s:s}]}", "contents", "uri", uri, "mimeType", mime, "text", text);
}

static int resources_read(json_t *params, json_t **result, int *code, const char **message)
{
    const char *uri = str_arg(params, "uri");
    if (!uri) {
        *code = MG_RPC_INVALID_PARAMS;
        *message = "params.uri (string) is required";
        return 1;
    }
    if (strcmp(uri, "test://static-text") == 0) {
        *result = contents_text(uri, "text/plain", "This is the content of the static text resource.");
        return 1;
    }
    if (strcmp(uri, "test://watched-resource") == 0) {
        *result = contents_text(uri, "text/plain", "This is the content of the watched resource.");
        return 1;
    }
    if (strcmp(uri, "test://static-binary") == 0) {
        *result = json_pack("{s:[{s:s, s:s, s:s}]}", "contents", "uri", uri, "mimeType", "image/png", "blob", PNG_B64);
        return 1;
    }
    size_t pl = strlen(TEMPLATE_PREFIX), sl = strlen(TEMPLATE_SUFFIX), ul = strlen(uri);
    if (ul > pl + sl && strncmp(uri, TEMPLATE_PREFIX, pl) == 0 && strcmp(uri + ul - sl, TEMPLATE_SUFFIX) == 0) {
        size_t idl = ul - pl - sl;
        char id[128];
        if (idl < sizeof(id) && !memchr(uri + pl, '/', idl)) {
            memcpy(id, uri + pl, idl);
            id[idl] = 0;
            char data[192];
            snprintf(data, sizeof(data), "Data for ID: %s", id);
            json_t *o = json_pack("{s:s, s:b, s:s}", "id", id, "templateTest", 1, "data", data);
            char *text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
            json_decref(o);
            if (!text) {
                *code = MG_RPC_INTERNAL_ERROR;
                *message = "out of memory";
                return 1;
            }
            *result = contents_text(uri, "application/json", text);
            free(text);
            return 1;
        }
    }
    *code = MG_RPC_RESOURCE_NOT_FOUND;
    *message = "resource not found";
    return 1;
}

/* ---- prompts ---- */

static json_t *prompts_list(void)
{
    return json_pack(
        "{s:[{s:s, s:s, s:s}, {s:s, s:s, s:s, s:[{s:s, s:s, s:b}, {s:s, s:s, s:b}]},"
        " {s:s, s:s, s:s, s:[{s:s, s:s, s:b}]}, {s:s, s:s, s:s}]}",
        "prompts",
        /* */ "name", "test_simple_prompt", "title", "Simple prompt", "description",
        "A simple prompt without arguments (conformance fixture)",
        /* */ "name", "test_prompt_with_arguments", "title", "Prompt with arguments", "description",
        "A prompt with two required arguments (conformance fixture)", "arguments", "name", "arg1", "description",
        "First test argument", "required", 1, "name", "arg2", "description", "Second test argument", "required", 1,
        /* */ "name", "test_prompt_with_embedded_resource", "title", "Prompt with embedded resource", "description",
        "A prompt that embeds a resource (conformance fixture)", "arguments", "name", "resourceUri", "description",
        "URI of the resource to embed", "required", 1,
        /* */ "name", "test_prompt_with_image", "title", "Prompt with image", "description",
        "A prompt with an image (conformance fixture)");
}

static json_t *user_text(const char *text)
{
    return json_pack("{s:s, s:o}", "role", "user", "content", text_block(text));
}

static int prompts_get(json_t *params, json_t **result, int *code, const char **message)
{
    const char *name = str_arg(params, "name");
    json_t *args = json_is_object(params) ? json_object_get(params, "arguments") : NULL;
    if (!name) {
        *code = MG_RPC_INVALID_PARAMS;
        *message = "params.name (string) is required";
        return 1;
    }
    if (strcmp(name, "test_simple_prompt") == 0) {
        *result = json_pack("{s:[o]}", "messages", user_text("This is a simple prompt for testing."));
        return 1;
    }
    if (strcmp(name, "test_prompt_with_arguments") == 0) {
        const char *a1 = str_arg(args, "arg1"), *a2 = str_arg(args, "arg2");
        if (!a1 || !a2) {
            *code = MG_RPC_INVALID_PARAMS;
            *message = "arguments arg1 and arg2 (strings) are required";
            return 1;
        }
        size_t n = strlen(a1) + strlen(a2) + 64;
        char *t = malloc(n);
        if (!t) {
            *code = MG_RPC_INTERNAL_ERROR;
            *message = "out of memory";
            return 1;
        }
        snprintf(t, n, "Prompt with arguments: arg1='%s', arg2='%s'", a1, a2);
        *result = json_pack("{s:[o]}", "messages", user_text(t));
        free(t);
        return 1;
    }
    if (strcmp(name, "test_prompt_with_embedded_resource") == 0) {
        const char *uri = str_arg(args, "resourceUri");
        if (!uri) {
            *code = MG_RPC_INVALID_PARAMS;
            *message = "argument resourceUri (string) is required";
            return 1;
        }
        *result = json_pack("{s:[{s:s, s:{s:s, s:{s:s, s:s, s:s}}}, o]}", "messages", "role", "user", "content",
                            "type", "resource", "resource", "uri", uri, "mimeType", "text/plain", "text",
                            "Embedded resource content for testing.",
                            user_text("Please process the embedded resource above."));
        return 1;
    }
    if (strcmp(name, "test_prompt_with_image") == 0) {
        *result = json_pack("{s:[{s:s, s:{s:s, s:s, s:s}}, o]}", "messages", "role", "user", "content", "type",
                            "image", "data", PNG_B64, "mimeType", "image/png",
                            user_text("Please analyze the image above."));
        return 1;
    }
    *code = MG_RPC_INVALID_PARAMS;
    *message = "unknown prompt";
    return 1;
}

/* ---- completion ---- */

static int complete(json_t *params, json_t **result, int *code, const char **message)
{
    json_t *ref = json_is_object(params) ? json_object_get(params, "ref") : NULL;
    json_t *arg = json_is_object(params) ? json_object_get(params, "argument") : NULL;
    const char *type = str_arg(ref, "type"), *aname = str_arg(arg, "name"), *value = str_arg(arg, "value");
    if (!type || !aname || !value) {
        *code = MG_RPC_INVALID_PARAMS;
        *message = "params.ref.type, params.argument.name and params.argument.value are required";
        return 1;
    }
    static const char *const prompt_values[] = {"paris", "park", "party", "test", "testing", NULL};
    static const char *const id_values[] = {"1", "123", "42", NULL};
    const char *const *cands;
    if (strcmp(type, "ref/prompt") == 0) {
        const char *pname = str_arg(ref, "name");
        if (!pname || (strcmp(pname, "test_prompt_with_arguments") != 0 &&
                       strcmp(pname, "test_prompt_with_embedded_resource") != 0)) {
            *code = MG_RPC_INVALID_PARAMS;
            *message = "unknown prompt";
            return 1;
        }
        cands = prompt_values;
    } else if (strcmp(type, "ref/resource") == 0) {
        const char *uri = str_arg(ref, "uri");
        if (!uri || strcmp(uri, TEMPLATE_PREFIX "{id}" TEMPLATE_SUFFIX) != 0) {
            *code = MG_RPC_INVALID_PARAMS;
            *message = "unknown resource template";
            return 1;
        }
        cands = id_values;
    } else {
        *code = MG_RPC_INVALID_PARAMS;
        *message = "params.ref.type must be ref/prompt or ref/resource";
        return 1;
    }
    json_t *values = json_array();
    for (size_t i = 0; cands[i]; i++)
        if (strncmp(cands[i], value, strlen(value)) == 0) json_array_append_new(values, json_string(cands[i]));
    *result = json_pack("{s:{s:o, s:I, s:b}}", "completion", "values", values, "total",
                        (json_int_t)json_array_size(values), "hasMore", 0);
    return 1;
}

int mg_fixtures_handle(const char *method, json_t *params, json_t **result, int *code,
                       const char **message)
{
    *result = NULL;
    if (strcmp(method, "resources/list") == 0) *result = resources_list();
    else if (strcmp(method, "resources/templates/list") == 0) *result = templates_list();
    else if (strcmp(method, "resources/read") == 0) return resources_read(params, result, code, message);
    else if (strcmp(method, "resources/subscribe") == 0 || strcmp(method, "resources/unsubscribe") == 0) {
        /* Nothing here ever changes, so there is nothing to notify about:
         * accept the (un)subscription of any URI given as a string. */
        if (!str_arg(params, "uri")) {
            *code = MG_RPC_INVALID_PARAMS;
            *message = "params.uri (string) is required";
            return 1;
        }
        *result = json_object();
    } else if (strcmp(method, "prompts/list") == 0) *result = prompts_list();
    else if (strcmp(method, "prompts/get") == 0) return prompts_get(params, result, code, message);
    else if (strcmp(method, "completion/complete") == 0) return complete(params, result, code, message);
    else return 0;
    if (!*result) {
        *code = MG_RPC_INTERNAL_ERROR;
        *message = "out of memory";
    }
    return 1;
}

void mg_fixtures_capabilities(json_t *caps)
{
    json_object_set_new(caps, "resources", json_pack("{s:b, s:b}", "subscribe", 1, "listChanged", 0));
    json_object_set_new(caps, "prompts", json_pack("{s:b}", "listChanged", 0));
    json_object_set_new(caps, "completions", json_object());
}
