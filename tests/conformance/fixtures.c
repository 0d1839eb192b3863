/* fixtures.c — the conformance suite's fixtures, the extension
 * (src/mcp/ext.h) the test program memgate-conformance adds to memgate's MCP
 * server (tests/conformance/main.c); the shipped binary has none of it.
 *
 * @modelcontextprotocol/conformance's server scenarios call tools, resources,
 * prompts and completions with fixed names and check fixed shapes (its
 * "everything server" contract). This file is that contract and nothing
 * more: stateless, no repo access.
 *
 * Tools return a CallToolResult-shaped object ({"content":[...]} and, for a
 * tool error, "isError":true); rpc.c passes any tool result with a top-level
 * "content" array through verbatim instead of wrapping it as
 * structuredContent. Logging, progress, sampling and elicitation go
 * through the struct mg_mcp_io rpc.c hands them (ext.h). They touch
 * no repo and no memory, so they do not pass the gate and are not audited.
 *
 * 2026-07-28 (stateless) requests have no server-to-client requests: a
 * fixture that needs input answers with an InputRequiredResult and reads the
 * retry's inputResponses (gather()); the same fixtures asked over 2025 send
 * the requests instead. Its requestState is HMAC-signed (state_seal()), so a
 * tampered one is refused with a JSON-RPC error (-32602), as is a request
 * needing a client capability its _meta does not declare (-32021).
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

#include "fixtures.h"
#include "mcp/jsonrpc.h"
#include "mcp/listen.h"
#include "security/common.h"

/* A 1x1 red PNG and a 1 ms, 8 kHz, 8-bit mono WAV of silence. */
static const char PNG_B64[] =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";
static const char WAV_B64[] = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";

#define REQUEST_TIMEOUT_MS 60000
#define MG_RPC_RESOURCE_NOT_FOUND -32002 /* 2025-11-25 and earlier; 2026-07-28: -32602 with data.uri */

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

static const char *str_or(const char *s, const char *dflt) { return s ? s : dflt; }

static const char *str_arg(json_t *args, const char *key)
{
    json_t *v = json_is_object(args) ? json_object_get(args, key) : NULL;
    return json_is_string(v) ? json_string_value(v) : NULL;
}

/* Is this request's params that of a 2026-07-28 request (its _meta names
 * a protocol version)? */
static bool is_modern(json_t *params)
{
    json_t *meta = json_is_object(params) ? json_object_get(params, "_meta") : NULL;
    return json_is_string(json_object_get(meta, "io.modelcontextprotocol/protocolVersion"));
}

/* ---- tools ---- */

static int t_simple_text(struct mg_mcp_io *io, json_t *args, json_t **result, struct mg_err *err)
{
    *result = text_result("This is a simple text response for testing.");
    return 0;
}

static int t_image(struct mg_mcp_io *io, json_t *args, json_t **result, struct mg_err *err)
{
    *result = json_pack("{s:[{s:s, s:s, s:s}]}", "content", "type", "image", "data", PNG_B64, "mimeType", "image/png");
    return 0;
}

static int t_audio(struct mg_mcp_io *io, json_t *args, json_t **result, struct mg_err *err)
{
    *result = json_pack("{s:[{s:s, s:s, s:s}]}", "content", "type", "audio", "data", WAV_B64, "mimeType", "audio/wav");
    return 0;
}

static int t_embedded_resource(struct mg_mcp_io *io, json_t *args, json_t **result, struct mg_err *err)
{
    *result = json_pack("{s:[{s:s, s:{s:s, s:s, s:s}}]}", "content", "type", "resource", "resource", "uri",
                        "test://embedded-resource", "mimeType", "text/plain", "text",
                        "This is an embedded resource content.");
    return 0;
}

static int t_mixed(struct mg_mcp_io *io, json_t *args, json_t **result, struct mg_err *err)
{
    *result = json_pack("{s:[o, {s:s, s:s, s:s}, {s:s, s:{s:s, s:s, s:s}}]}", "content",
                        text_block("Multiple content types test:"), "type", "image", "data", PNG_B64, "mimeType",
                        "image/png", "type", "resource", "resource", "uri", "test://mixed-content-resource",
                        "mimeType", "application/json", "text", "{\"test\":\"data\",\"value\":123}");
    return 0;
}

static int t_logging(struct mg_mcp_io *io, json_t *args, json_t **result, struct mg_err *err)
{
    io->log(io, "info", "Tool execution started");
    sleep_ms(50);
    io->log(io, "info", "Tool processing data");
    sleep_ms(50);
    io->log(io, "info", "Tool execution completed");
    *result = text_result("Tool with logging executed successfully");
    return 0;
}

static int t_error(struct mg_mcp_io *io, json_t *args, json_t **result, struct mg_err *err)
{
    *result = error_result("This tool intentionally returns an error for testing");
    return 0;
}

static int t_progress(struct mg_mcp_io *io, json_t *args, json_t **result, struct mg_err *err)
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
static json_t *ask_client(struct mg_mcp_io *io, const char *method, json_t *params, json_t **result)
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

static int t_sampling(struct mg_mcp_io *io, json_t *args, json_t **result, struct mg_err *err)
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

static int t_elicitation(struct mg_mcp_io *io, json_t *args, json_t **result, struct mg_err *err)
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

static int t_elicitation_defaults(struct mg_mcp_io *io, json_t *args, json_t **result, struct mg_err *err)
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

static int t_elicitation_enums(struct mg_mcp_io *io, json_t *args, json_t **result, struct mg_err *err)
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

static int t_json_schema(struct mg_mcp_io *io, json_t *args, json_t **result, struct mg_err *err)
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
static int t_reconnection(struct mg_mcp_io *io, json_t *args, json_t **result, struct mg_err *err)
{
    sleep_ms(100);
    *result = text_result("Reconnection test completed successfully");
    return 0;
}

/* ---- 2026-07-28: input requests, request state, JSON-RPC errors ---- */

static int rpc_fail(struct mg_mcp_ext_error *e, int code, json_t *data, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int rpc_fail(struct mg_mcp_ext_error *e, int code, json_t *data, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->message, sizeof(e->message), fmt, ap);
    va_end(ap);
    e->code = code;
    json_decref(e->data);
    e->data = data;
    return 1;
}

/* A tool's JSON-RPC error: *result = {"code", "message", "data"?} (data
 * taken), and MG_MCP_EXT_RPC_ERROR (fixtures.h). */
static int tool_fail(json_t **result, int code, json_t *data, const char *message)
{
    *result = json_pack("{s:i, s:s}", "code", code, "message", message);
    if (*result && data) json_object_set_new(*result, "data", data);
    else json_decref(data);
    return MG_MCP_EXT_RPC_ERROR;
}

/* requestState: "<payload>.<mac>", both base64url. The payload is JSON
 * ({"exp":..., plus what the fixture keeps between rounds}); the mac is
 * crypto_auth (HMAC-SHA512-256) under a key drawn at random once per process,
 * over the payload and what the state is for: the request (method and
 * tool or prompt name) and its arguments. So a state cannot be altered, nor
 * replayed on another request, nor used after it expires or the server
 * restarts. The fixtures know no principal to bind it to (MCP-level only). */
#define STATE_TTL_S 600

static unsigned char state_key[crypto_auth_KEYBYTES];
static pthread_once_t state_once = PTHREAD_ONCE_INIT;

static void state_key_init(void)
{
    mg_sodium_ready();
    crypto_auth_keygen(state_key);
}

static void state_mac(const char *payload, const char *what, json_t *args, unsigned char mac[crypto_auth_BYTES])
{
    pthread_once(&state_once, state_key_init);
    char *a = json_dumps(args ? args : json_object(), JSON_COMPACT | JSON_SORT_KEYS);
    crypto_auth_hmacsha512256_state st;
    crypto_auth_hmacsha512256_init(&st, state_key, sizeof(state_key));
    /* each part with its length, so no two splits of the same bytes collide */
    const char *parts[3] = {payload, what, a ? a : ""};
    for (int i = 0; i < 3; i++) {
        uint64_t n = strlen(parts[i]);
        crypto_auth_hmacsha512256_update(&st, (const unsigned char *)&n, sizeof(n));
        crypto_auth_hmacsha512256_update(&st, (const unsigned char *)parts[i], n);
    }
    crypto_auth_hmacsha512256_final(&st, mac);
    free(a);
}

static char *b64url(const unsigned char *bin, size_t n)
{
    size_t len = sodium_base64_ENCODED_LEN(n, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    char *out = malloc(len);
    if (out) sodium_bin2base64(out, len, bin, n, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    return out;
}

/* A new requestState carrying payload (borrowed; "exp" is added), or NULL. */
static char *state_seal(const char *what, json_t *args, json_t *payload)
{
    json_t *p = json_deep_copy(payload);
    if (!p) return NULL;
    json_object_set_new(p, "exp", json_integer((json_int_t)time(NULL) + STATE_TTL_S));
    char *text = json_dumps(p, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(p);
    char *pb = text ? b64url((const unsigned char *)text, strlen(text)) : NULL;
    free(text);
    if (!pb) return NULL;
    unsigned char mac[crypto_auth_BYTES];
    state_mac(pb, what, args, mac);
    char *mb = b64url(mac, sizeof(mac));
    char *state = NULL;
    if (mb && asprintf(&state, "%s.%s", pb, mb) < 0) state = NULL;
    free(pb);
    free(mb);
    return state;
}

/* The payload of a requestState minted by state_seal for this request (new
 * reference), or NULL with *why. */
static json_t *state_open(const char *what, json_t *args, const char *state, const char **why)
{
    *why = "requestState failed its integrity check";
    const char *dot = strrchr(state, '.');
    if (!dot || dot == state || strlen(state) > 8192) return NULL;
    size_t plen = (size_t)(dot - state);
    char *pb = strndup(state, plen);
    unsigned char mac[crypto_auth_BYTES], want[crypto_auth_BYTES];
    size_t mlen = 0;
    const char *end = NULL;
    if (!pb || sodium_base642bin(mac, sizeof(mac), dot + 1, strlen(dot + 1), NULL, &mlen, &end,
                                 sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0 ||
        mlen != sizeof(mac) || *end) {
        free(pb);
        return NULL;
    }
    state_mac(pb, what, args, want);
    if (sodium_memcmp(mac, want, sizeof(mac)) != 0) {
        free(pb);
        return NULL;
    }
    /* authentic: we wrote it, so it decodes */
    unsigned char *text = malloc(plen + 1);
    size_t tlen = 0;
    json_t *p = NULL;
    if (text && sodium_base642bin(text, plen, pb, plen, NULL, &tlen, NULL, sodium_base64_VARIANT_URLSAFE_NO_PADDING) ==
                    0) {
        text[tlen] = 0;
        p = json_loads((const char *)text, 0, NULL);
    }
    free(text);
    free(pb);
    if (!json_is_object(p)) {
        json_decref(p);
        return NULL;
    }
    if (json_integer_value(json_object_get(p, "exp")) < (json_int_t)time(NULL)) {
        *why = "requestState expired: call again without it";
        json_decref(p);
        return NULL;
    }
    return p;
}

/* The client capability an input request needs. */
static const char *cap_of(const char *method)
{
    if (strcmp(method, "elicitation/create") == 0) return "elicitation";
    if (strcmp(method, "sampling/createMessage") == 0) return "sampling";
    if (strcmp(method, "roots/list") == 0) return "roots";
    return NULL;
}

static bool client_has(struct mg_mcp_io *io, const char *cap)
{
    return json_is_object(json_object_get(io->client_caps, cap));
}

/* Is r a valid answer to a request of this method? */
static bool answer_ok(const char *method, json_t *r)
{
    if (!json_is_object(r)) return false;
    if (strcmp(method, "elicitation/create") == 0) {
        const char *a = json_string_value(json_object_get(r, "action"));
        if (!a) return false;
        if (strcmp(a, "accept") == 0) return json_is_object(json_object_get(r, "content"));
        return strcmp(a, "decline") == 0 || strcmp(a, "cancel") == 0;
    }
    if (strcmp(method, "sampling/createMessage") == 0) {
        json_t *c = json_object_get(r, "content");
        return json_is_string(json_object_get(r, "role")) && (json_is_object(c) || json_is_array(c));
    }
    if (strcmp(method, "roots/list") == 0) return json_is_array(json_object_get(r, "roots"));
    return false;
}

#define GATHER_REPLY 2 /* gather(): *result is the reply */

/* The client's answers to requests ({key: {"method", "params"}}, borrowed).
 * Returns 0 with *answers ({key: result}, new reference) when every request
 * is answered; GATHER_REPLY with *result set (an InputRequiredResult asking for what
 * is missing, carrying state when not NULL; or a tool error);
 * MG_MCP_EXT_RPC_ERROR with *result the JSON-RPC error (2026-07-28: a
 * capability the client did not declare, -32021; an answer that is not a
 * valid result, -32602).
 * In a 2026-07-28 request the answers come in params.inputResponses; in an
 * older one the fixture asks the client now (server-to-client requests). */
static int gather(struct mg_mcp_io *io, json_t *requests, const char *state, json_t **answers, json_t **result,
                  struct mg_err *err)
{
    const char *key;
    json_t *req;
    *answers = NULL;
    if (!io->modern) {
        json_t *got = json_object();
        json_object_foreach(requests, key, req)
        {
            json_t *params = json_object_get(req, "params");
            json_t *r = ask_client(io, json_string_value(json_object_get(req, "method")),
                                   params ? json_incref(params) : NULL, result);
            if (!r) {
                json_decref(got);
                return GATHER_REPLY;
            }
            json_object_set_new(got, key, r);
        }
        *answers = got;
        return 0;
    }
    json_t *need = json_object();
    json_object_foreach(requests, key, req)
    {
        const char *cap = cap_of(json_string_value(json_object_get(req, "method")));
        if (cap && !client_has(io, cap)) json_object_set_new(need, cap, json_object());
    }
    if (json_object_size(need) > 0) {
        char msg[200], names[64] = "";
        const char *cap;
        json_t *v;
        json_object_foreach(need, cap, v)
        {
            size_t l = strlen(names);
            snprintf(names + l, sizeof(names) - l, "%s%s", l ? ", " : "", cap);
        }
        snprintf(msg, sizeof(msg),
                 "this request needs client capabilities its _meta io.modelcontextprotocol/clientCapabilities "
                 "does not declare: %s",
                 names);
        return tool_fail(result, MG_RPC_MISSING_CAPABILITY, json_pack("{s:o}", "requiredCapabilities", need), msg);
    }
    json_decref(need);
    json_t *got = json_object(), *missing = json_object();
    json_object_foreach(requests, key, req)
    {
        const char *method = json_string_value(json_object_get(req, "method"));
        json_t *r = json_is_object(io->input_responses) ? json_object_get(io->input_responses, key) : NULL;
        if (!r) {
            json_object_set(missing, key, req);
            continue;
        }
        if (!answer_ok(method, r)) {
            char msg[200];
            snprintf(msg, sizeof(msg), "inputResponses.%.64s is not a valid result of %s", key, method);
            json_decref(got);
            json_decref(missing);
            return tool_fail(result, MG_RPC_INVALID_PARAMS, NULL, msg);
        }
        json_object_set(got, key, r);
    }
    if (json_object_size(missing) > 0) {
        json_decref(got);
        *result = json_pack("{s:s, s:o}", "resultType", "input_required", "inputRequests", missing);
        if (*result && state) json_object_set_new(*result, "requestState", json_string(state));
        return GATHER_REPLY;
    }
    json_decref(missing);
    *answers = got;
    return 0;
}

/* {"method": m, "params": p (taken)} */
static json_t *input_request(const char *method, json_t *params)
{
    return json_pack("{s:s, s:o}", "method", method, "params", params);
}

/* elicitation/create for one string (or boolean) property, required */
static json_t *ask_form(const char *message, const char *prop, const char *type)
{
    return input_request("elicitation/create",
                         json_pack("{s:s, s:{s:s, s:{s:{s:s}}, s:[s]}}", "message", message, "requestedSchema",
                                   "type", "object", "properties", prop, "type", type, "required", prop));
}

static json_t *ask_llm(const char *text, int max_tokens)
{
    return input_request("sampling/createMessage",
                         json_pack("{s:[{s:s, s:{s:s, s:s}}], s:i}", "messages", "role", "user", "content", "type",
                                   "text", "text", text, "maxTokens", max_tokens));
}

static json_t *ask_roots(void) { return input_request("roots/list", json_object()); }

/* The accepted form's string field, or NULL (declined, cancelled, absent). */
static const char *form_field(json_t *answer, const char *prop)
{
    const char *action = json_string_value(json_object_get(answer, "action"));
    if (!action || strcmp(action, "accept") != 0) return NULL;
    return json_string_value(json_object_get(json_object_get(answer, "content"), prop));
}

static const char *llm_text(json_t *answer)
{
    json_t *c = json_object_get(answer, "content");
    if (json_is_array(c)) c = json_array_get(c, 0);
    return json_string_value(json_object_get(c, "text"));
}

/* "uri (name), ..." of a ListRootsResult, malloc'd */
static char *roots_text(json_t *answer)
{
    json_t *roots = json_object_get(answer, "roots"), *r;
    size_t i, n = 1;
    json_array_foreach(roots, i, r)
    {
        n += strlen(str_or(json_string_value(json_object_get(r, "uri")), "?")) +
             strlen(str_or(json_string_value(json_object_get(r, "name")), "")) + 8;
    }
    char *out = calloc(1, n);
    if (!out) return NULL;
    json_array_foreach(roots, i, r)
    {
        const char *name = json_string_value(json_object_get(r, "name"));
        size_t l = strlen(out);
        snprintf(out + l, n - l, "%s%s%s%s%s", i ? ", " : "", str_or(json_string_value(json_object_get(r, "uri")), "?"),
                 name ? " (" : "", name ? name : "", name ? ")" : "");
    }
    return out;
}

static json_t *textf_result(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static json_t *textf_result(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *t = NULL;
    if (vasprintf(&t, fmt, ap) < 0) t = NULL;
    va_end(ap);
    json_t *r = text_result(t ? t : "");
    free(t);
    return r;
}

/* The request state the client echoed, checked: 0 with *payload (new
 * reference, NULL when the request carries no state), or
 * MG_MCP_EXT_RPC_ERROR (*result: -32602) when it fails verification. */
static int state_in(struct mg_mcp_io *io, const char *what, json_t *args, json_t **payload, json_t **result)
{
    *payload = NULL;
    if (!io->request_state) return 0;
    const char *why;
    *payload = state_open(what, args, io->request_state, &why);
    return *payload ? 0 : tool_fail(result, MG_RPC_INVALID_PARAMS, NULL, why);
}

static int t_irr_elicitation(struct mg_mcp_io *io, json_t *args, json_t **result, struct mg_err *err)
{
    json_t *reqs = json_pack("{s:o}", "user_name", ask_form("What is your name?", "name", "string")), *got;
    int rc = gather(io, reqs, NULL, &got, result, err);
    json_decref(reqs);
    if (rc != 0) return rc == GATHER_REPLY ? 0 : rc;
    const char *name = form_field(json_object_get(got, "user_name"), "name");
    *result = name ? textf_result("Hello, %s!", name) : text_result("The user did not give a name.");
    json_decref(got);
    return 0;
}

static int t_irr_sampling(struct mg_mcp_io *io, json_t *args, json_t **result, struct mg_err *err)
{
    json_t *reqs = json_pack("{s:o}", "capital_question", ask_llm("What is the capital of France?", 100)), *got;
    int rc = gather(io, reqs, NULL, &got, result, err);
    json_decref(reqs);
    if (rc != 0) return rc == GATHER_REPLY ? 0 : rc;
    const char *t = llm_text(json_object_get(got, "capital_question"));
    *result = textf_result("LLM response: %s", t ? t : "(no text)");
    json_decref(got);
    return 0;
}

static int t_irr_roots(struct mg_mcp_io *io, json_t *args, json_t **result, struct mg_err *err)
{
    json_t *reqs = json_pack("{s:o}", "client_roots", ask_roots()), *got;
    int rc = gather(io, reqs, NULL, &got, result, err);
    json_decref(reqs);
    if (rc != 0) return rc == GATHER_REPLY ? 0 : rc;
    char *t = roots_text(json_object_get(got, "client_roots"));
    *result = textf_result("Client roots: %s", t && *t ? t : "(none)");
    free(t);
    json_decref(got);
    return 0;
}

/* A one-round tool whose retry must carry the requestState it was given:
 * a confirmation form; the answer says "state-ok" once the state verified.
 * Answers that come without a state do not count (the form is asked again). */
static int confirm_with_state(const char *what, struct mg_mcp_io *io, json_t *args, json_t **result,
                              struct mg_err *err)
{
    json_t *payload;
    int rc = state_in(io, what, args, &payload, result);
    if (rc != 0) return rc;
    char *state = NULL;
    if (io->modern) {
        json_t *p = json_pack("{s:i}", "round", 1);
        state = state_seal(what, args, p);
        json_decref(p);
        if (!state) {
            json_decref(payload);
            return mg_err_oom(err);
        }
    }
    struct mg_mcp_io in = *io;
    if (!payload) in.input_responses = NULL;
    json_decref(payload);
    json_t *reqs = json_pack("{s:o}", "confirm", ask_form("Please confirm", "ok", "boolean")), *got;
    rc = gather(&in, reqs, state, &got, result, err);
    json_decref(reqs);
    free(state);
    if (rc != 0) return rc == GATHER_REPLY ? 0 : rc;
    json_t *c = json_object_get(got, "confirm");
    json_t *ok = json_object_get(json_object_get(c, "content"), "ok");
    *result = textf_result("state-ok: requestState verified; action=%s, ok=%s",
                           str_or(json_string_value(json_object_get(c, "action")), "?"),
                           json_is_true(ok) ? "true" : "false");
    json_decref(got);
    return 0;
}

static int t_irr_request_state(struct mg_mcp_io *io, json_t *args, json_t **result, struct mg_err *err)
{
    return confirm_with_state("tools/call test_input_required_result_request_state", io, args, result, err);
}

static int t_irr_tampered_state(struct mg_mcp_io *io, json_t *args, json_t **result, struct mg_err *err)
{
    return confirm_with_state("tools/call test_input_required_result_tampered_state", io, args, result, err);
}

static int t_irr_multiple(struct mg_mcp_io *io, json_t *args, json_t **result, struct mg_err *err)
{
    static const char what[] = "tools/call test_input_required_result_multiple_inputs";
    json_t *payload;
    int rc = state_in(io, what, args, &payload, result);
    if (rc != 0) return rc;
    json_decref(payload); /* any valid state of this request: the answers are what counts */
    json_t *reqs = json_pack("{s:o, s:o, s:o}", "user_name", ask_form("What is your name?", "name", "string"),
                             "greeting", ask_llm("Generate a greeting", 50), "client_roots", ask_roots()),
           *got;
    char *state = NULL;
    if (io->modern) {
        json_t *p = json_pack("{s:i}", "round", 1);
        state = state_seal(what, args, p);
        json_decref(p);
    }
    rc = gather(io, reqs, state, &got, result, err);
    json_decref(reqs);
    free(state);
    if (rc != 0) return rc == GATHER_REPLY ? 0 : rc;
    const char *name = form_field(json_object_get(got, "user_name"), "name");
    const char *greeting = llm_text(json_object_get(got, "greeting"));
    char *roots = roots_text(json_object_get(got, "client_roots"));
    *result = textf_result("name=%s; greeting=%s; roots=%s", name ? name : "(none)", greeting ? greeting : "(none)",
                           roots && *roots ? roots : "(none)");
    free(roots);
    json_decref(got);
    return 0;
}

/* Three rounds: a name, then a colour; the state carries the name between
 * rounds 2 and 3. */
static int t_irr_multi_round(struct mg_mcp_io *io, json_t *args, json_t **result, struct mg_err *err)
{
    static const char what[] = "tools/call test_input_required_result_multi_round";
    json_t *payload, *got, *reqs;
    int rc = state_in(io, what, args, &payload, result);
    if (rc != 0) return rc;
    bool round2 = json_is_string(json_object_get(payload, "name"));
    if (!round2) { /* round 1, or its retry */
        json_decref(payload);
        json_t *p = json_pack("{s:i}", "round", 1);
        char *state = io->modern ? state_seal(what, args, p) : NULL;
        json_decref(p);
        reqs = json_pack("{s:o}", "step1", ask_form("Step 1: What is your name?", "name", "string"));
        rc = gather(io, reqs, state, &got, result, err);
        json_decref(reqs);
        free(state);
        if (rc != 0) return rc == GATHER_REPLY ? 0 : rc;
        payload = json_pack("{s:i, s:s}", "round", 2, "name",
                            str_or(form_field(json_object_get(got, "step1"), "name"), "(anonymous)"));
        json_decref(got);
    }
    /* round 2: ask the colour, the name kept in the (new) state */
    char *state = io->modern ? state_seal(what, args, payload) : NULL;
    struct mg_mcp_io in = *io;
    if (!round2) in.input_responses = NULL; /* step1's answers are not step2's */
    if (io->modern && !state) {
        json_decref(payload);
        return mg_err_oom(err);
    }
    reqs = json_pack("{s:o}", "step2", ask_form("Step 2: What is your favorite color?", "color", "string"));
    rc = gather(&in, reqs, state, &got, result, err);
    json_decref(reqs);
    free(state);
    if (rc == 0) {
        *result = textf_result("%s's favorite color is %s.", json_string_value(json_object_get(payload, "name")),
                               str_or(form_field(json_object_get(got, "step2"), "color"), "unknown"));
        json_decref(got);
    }
    json_decref(payload);
    return rc == GATHER_REPLY ? 0 : rc;
}

/* Asks only for what the client declared it can answer (of sampling and
 * elicitation); with neither declared it has nothing to ask and says so. */
static int t_irr_capabilities(struct mg_mcp_io *io, json_t *args, json_t **result, struct mg_err *err)
{
    json_t *reqs = json_object(), *got;
    if (!io->modern || client_has(io, "sampling"))
        json_object_set_new(reqs, "summary", ask_llm("Summarize: capabilities are declared per request.", 50));
    if (!io->modern || client_has(io, "elicitation"))
        json_object_set_new(reqs, "preference", ask_form("Which output format do you prefer?", "format", "string"));
    if (json_object_size(reqs) == 0) {
        json_decref(reqs);
        *result = text_result("The client declared neither sampling nor elicitation: nothing to ask.");
        return 0;
    }
    int rc = gather(io, reqs, NULL, &got, result, err);
    if (rc != 0) {
        json_decref(reqs);
        return rc == GATHER_REPLY ? 0 : rc;
    }
    const char *summary = llm_text(json_object_get(got, "summary"));
    const char *format = form_field(json_object_get(got, "preference"), "format");
    *result = textf_result("summary=%s; format=%s", summary ? summary : "(not asked)", format ? format : "(not asked)");
    json_decref(reqs);
    json_decref(got);
    return 0;
}

/* Needs sampling; a client that does not declare it gets -32021. */
static int t_missing_capability(struct mg_mcp_io *io, json_t *args, json_t **result, struct mg_err *err)
{
    json_t *reqs = json_pack("{s:o}", "answer", ask_llm("Reply with one word.", 10)), *got;
    int rc = gather(io, reqs, NULL, &got, result, err);
    json_decref(reqs);
    if (rc != 0) return rc == GATHER_REPLY ? 0 : rc;
    const char *t = llm_text(json_object_get(got, "answer"));
    *result = textf_result("LLM response: %s", t ? t : "(no text)");
    json_decref(got);
    return 0;
}

/* An elicitation in the middle of a call: in 2026-07-28 it travels in the
 * InputRequiredResult on the request's own response, never as a request of
 * the server's on the stream. */
static int t_streaming_elicitation(struct mg_mcp_io *io, json_t *args, json_t **result, struct mg_err *err)
{
    io->progress(io, 1, 2, "asking the user");
    json_t *reqs = json_pack("{s:o}", "confirm", ask_form("Continue the operation?", "ok", "boolean")), *got;
    int rc = gather(io, reqs, NULL, &got, result, err);
    json_decref(reqs);
    if (rc != 0) return rc == GATHER_REPLY ? 0 : rc;
    json_t *c = json_object_get(got, "confirm");
    *result = textf_result("Streaming elicitation completed: action=%s",
                           str_or(json_string_value(json_object_get(c, "action")), "?"));
    json_decref(got);
    return 0;
}

/* Logs at info; a 2026-07-28 client only gets the log when its request's
 * _meta sets io.modelcontextprotocol/logLevel (rpc.c filters). */
static int t_logging_tool(struct mg_mcp_io *io, json_t *args, json_t **result, struct mg_err *err)
{
    io->log(io, "info", "test_logging_tool: started");
    io->log(io, "info", "test_logging_tool: done");
    *result = text_result("Logging tool executed");
    return 0;
}

/* x-mcp-header parameters: the transport checks the Mcp-Param-* headers
 * against these arguments before the call gets here; the tool echoes them. */
static int t_custom_headers(struct mg_mcp_io *io, json_t *args, json_t **result, struct mg_err *err)
{
    char *a = args ? json_dumps(args, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    *result = textf_result("Received arguments: %s", a ? a : "{}");
    free(a);
    return 0;
}

/* subscriptions/listen's diagnostic hooks: as if the tool (prompt) list had
 * changed, notify the listeners that asked for it. */
static int t_trigger_tool_change(struct mg_mcp_io *io, json_t *args, json_t **result, struct mg_err *err)
{
    mg_listen_broadcast(MG_LISTEN_TOOLS, NULL, NULL, "notifications/tools/list_changed", NULL);
    *result = text_result("Sent notifications/tools/list_changed to the listeners that asked for it");
    return 0;
}

static int t_trigger_prompt_change(struct mg_mcp_io *io, json_t *args, json_t **result, struct mg_err *err)
{
    mg_listen_broadcast(MG_LISTEN_PROMPTS, NULL, NULL, "notifications/prompts/list_changed", NULL);
    *result = text_result("Sent notifications/prompts/list_changed to the listeners that asked for it");
    return 0;
}

#define NOARGS "{\"type\":\"object\",\"properties\":{}}"

static const struct mg_mcp_ext_tool fixture_tools[] = {
    {"test_simple_text", "Simple text", "Returns a simple text response (conformance fixture).", NOARGS, NULL,
     t_simple_text, MG_MCP_TASK_FORBIDDEN},
    {"test_image_content", "Image content", "Returns a 1x1 PNG image (conformance fixture).", NOARGS, NULL, t_image, MG_MCP_TASK_FORBIDDEN},
    {"test_audio_content", "Audio content", "Returns a tiny WAV clip (conformance fixture).", NOARGS, NULL, t_audio, MG_MCP_TASK_FORBIDDEN},
    {"test_embedded_resource", "Embedded resource", "Returns an embedded text resource (conformance fixture).",
     NOARGS, NULL, t_embedded_resource, MG_MCP_TASK_FORBIDDEN},
    {"test_multiple_content_types", "Mixed content",
     "Returns text, image and resource content together (conformance fixture).", NOARGS, NULL, t_mixed, MG_MCP_TASK_FORBIDDEN},
    {"test_tool_with_logging", "Logging", "Sends three info log messages while it runs (conformance fixture).",
     NOARGS, NULL, t_logging, MG_MCP_TASK_FORBIDDEN},
    {"test_error_handling", "Error", "Always returns a tool error (conformance fixture).", NOARGS, NULL, t_error, MG_MCP_TASK_FORBIDDEN},
    {"test_tool_with_progress", "Progress", "Reports progress 0, 50 and 100 of 100 (conformance fixture).", NOARGS,
     NULL, t_progress, MG_MCP_TASK_FORBIDDEN},
    {"test_sampling", "Sampling", "Asks the client's LLM to answer a prompt (conformance fixture).",
     "{\"type\":\"object\",\"properties\":{\"prompt\":{\"type\":\"string\","
     "\"description\":\"The prompt to send to the LLM\"}},\"required\":[\"prompt\"]}",
     NULL, t_sampling, MG_MCP_TASK_FORBIDDEN},
    {"test_elicitation", "Elicitation", "Asks the user for a username and email (conformance fixture).",
     "{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\","
     "\"description\":\"The message to show the user\"}},\"required\":[\"message\"]}",
     NULL, t_elicitation, MG_MCP_TASK_FORBIDDEN},
    {"test_elicitation_sep1034_defaults", "Elicitation defaults",
     "Elicits fields of every primitive type with defaults (SEP-1034; conformance fixture).", NOARGS, NULL,
     t_elicitation_defaults, MG_MCP_TASK_FORBIDDEN},
    {"test_elicitation_sep1330_enums", "Elicitation enums",
     "Elicits the five enum schema variants (SEP-1330; conformance fixture).", NOARGS, NULL, t_elicitation_enums, MG_MCP_TASK_FORBIDDEN},
    {"json_schema_2020_12_tool", "JSON Schema 2020-12", "Tool with JSON Schema 2020-12 features",
     /* SEP-1613's keywords, and SEP-2106's ($anchor, allOf/anyOf, if/then/else) */
     "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"type\":\"object\","
     "\"$defs\":{\"address\":{\"$anchor\":\"addressDef\",\"type\":\"object\",\"properties\":{"
     "\"street\":{\"type\":\"string\"},\"city\":{\"type\":\"string\"}}}},"
     "\"properties\":{\"name\":{\"type\":\"string\"},\"address\":{\"$ref\":\"#/$defs/address\"},"
     "\"contactMethod\":{\"type\":\"string\",\"enum\":[\"phone\",\"email\"]},"
     "\"phone\":{\"type\":\"string\"},\"email\":{\"type\":\"string\"}},"
     "\"allOf\":[{\"anyOf\":[{\"required\":[\"phone\"]},{\"required\":[\"email\"]}]}],"
     "\"if\":{\"properties\":{\"contactMethod\":{\"const\":\"phone\"}},\"required\":[\"contactMethod\"]},"
     "\"then\":{\"required\":[\"phone\"]},\"else\":{\"required\":[\"email\"]},"
     "\"additionalProperties\":false}",
     NULL, t_json_schema, MG_MCP_TASK_FORBIDDEN},
    {"test_reconnection", "Reconnection", "A short call answered on the request's SSE stream (conformance fixture).",
     NOARGS, NULL, t_reconnection, MG_MCP_TASK_FORBIDDEN},
    /* 2026-07-28: multi round-trip requests (InputRequiredResult) */
    {"test_input_required_result_elicitation", "Input required: elicitation",
     "Asks the user's name through an InputRequiredResult (conformance fixture).", NOARGS, NULL, t_irr_elicitation, MG_MCP_TASK_FORBIDDEN},
    {"test_input_required_result_sampling", "Input required: sampling",
     "Asks the client's LLM a question through an InputRequiredResult (conformance fixture).", NOARGS, NULL,
     t_irr_sampling, MG_MCP_TASK_FORBIDDEN},
    {"test_input_required_result_list_roots", "Input required: roots",
     "Asks the client's roots through an InputRequiredResult (conformance fixture).", NOARGS, NULL, t_irr_roots, MG_MCP_TASK_FORBIDDEN},
    {"test_input_required_result_request_state", "Input required: request state",
     "Asks a confirmation and checks the echoed requestState (conformance fixture).", NOARGS, NULL,
     t_irr_request_state, MG_MCP_TASK_FORBIDDEN},
    {"test_input_required_result_multiple_inputs", "Input required: several inputs",
     "Asks for elicitation, sampling and roots at once (conformance fixture).", NOARGS, NULL, t_irr_multiple, MG_MCP_TASK_FORBIDDEN},
    {"test_input_required_result_multi_round", "Input required: several rounds",
     "Asks a name, then a colour, the state carried between rounds (conformance fixture).", NOARGS, NULL,
     t_irr_multi_round, MG_MCP_TASK_FORBIDDEN},
    {"test_input_required_result_tampered_state", "Input required: tampered state",
     "Refuses a requestState that fails its integrity check (conformance fixture).", NOARGS, NULL,
     t_irr_tampered_state, MG_MCP_TASK_FORBIDDEN},
    {"test_input_required_result_capabilities", "Input required: client capabilities",
     "Asks only for the inputs the client declared it can give (conformance fixture).", NOARGS, NULL,
     t_irr_capabilities, MG_MCP_TASK_FORBIDDEN},
    {"test_missing_capability", "Missing capability",
     "Needs sampling; refuses a client that does not declare it with -32021 (conformance fixture).", NOARGS, NULL,
     t_missing_capability, MG_MCP_TASK_FORBIDDEN},
    {"test_streaming_elicitation", "Streaming elicitation",
     "Reports progress, then asks a confirmation through an InputRequiredResult (conformance fixture).", NOARGS,
     NULL, t_streaming_elicitation, MG_MCP_TASK_FORBIDDEN},
    {"test_logging_tool", "Logging (2026-07-28)",
     "Logs two info messages, sent only when the request's _meta sets a logLevel (conformance fixture).", NOARGS,
     NULL, t_logging_tool, MG_MCP_TASK_FORBIDDEN},
    {"test_trigger_tool_change", "Trigger tool list change",
     "Notifies subscriptions/listen streams that the tool list changed (conformance fixture).", NOARGS, NULL,
     t_trigger_tool_change, MG_MCP_TASK_FORBIDDEN},
    {"test_trigger_prompt_change", "Trigger prompt list change",
     "Notifies subscriptions/listen streams that the prompt list changed (conformance fixture).", NOARGS, NULL,
     t_trigger_prompt_change, MG_MCP_TASK_FORBIDDEN},
    /* 2026-07-28: parameters mirrored into Mcp-Param-* headers (x-mcp-header) */
    {"test_custom_headers", "Custom headers",
     "Echoes its arguments; region, priority and verbose travel in Mcp-Param-* headers too (conformance fixture).",
     "{\"type\":\"object\",\"properties\":{"
     "\"region\":{\"type\":\"string\",\"description\":\"Plain ASCII string value\",\"x-mcp-header\":\"Region\"},"
     "\"priority\":{\"type\":\"integer\",\"description\":\"Integer numeric value\",\"x-mcp-header\":\"Priority\"},"
     "\"verbose\":{\"type\":\"boolean\",\"description\":\"Boolean value\",\"x-mcp-header\":\"Verbose\"},"
     "\"query\":{\"type\":\"string\",\"description\":\"No x-mcp-header annotation: not mirrored\"}},"
     "\"required\":[\"region\",\"priority\",\"query\"]}",
     NULL, t_custom_headers, MG_MCP_TASK_FORBIDDEN},
    {"test_custom_headers_null", "Custom headers (null)",
     "Echoes its arguments; a null or absent x-mcp-header parameter sends no header (conformance fixture).",
     "{\"type\":\"object\",\"properties\":{"
     "\"region\":{\"type\":\"string\",\"description\":\"Plain ASCII string value\",\"x-mcp-header\":\"Region\"},"
     "\"priority\":{\"type\":\"integer\",\"description\":\"Integer numeric value\",\"x-mcp-header\":\"Priority\"},"
     "\"verbose\":{\"type\":[\"boolean\",\"null\"],\"description\":\"Boolean value, may be null\","
     "\"x-mcp-header\":\"Verbose\"},"
     "\"query\":{\"type\":\"string\",\"description\":\"No x-mcp-header annotation\"}},"
     "\"required\":[\"region\",\"priority\",\"query\"]}",
     NULL, t_custom_headers, MG_MCP_TASK_FORBIDDEN},
    /* the tasks extension (tasks.c) */
    {"greet", "Greet", "Returns Hello, {name}! at once, never as a task (conformance fixture).",
     "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}}}", NULL, mg_fixture_greet, MG_MCP_TASK_FORBIDDEN},
    {"slow_compute", "Slow compute", "Sleeps `seconds`, then answers; a task when the client allows (conformance fixture).",
     "{\"type\":\"object\",\"properties\":{\"seconds\":{\"type\":\"number\"},\"label\":{\"type\":\"string\"}}}", NULL,
     mg_fixture_slow_compute, MG_MCP_TASK_OPTIONAL},
    {"failing_job", "Failing job", "Runs only as a task, which ends with a tool error (conformance fixture).", NOARGS,
     NULL, mg_fixture_failing_job, MG_MCP_TASK_REQUIRED},
    {"protocol_error_job", "Protocol error job", "Fails with a JSON-RPC error, as a task: failed (conformance fixture).",
     NOARGS, NULL, mg_fixture_protocol_error_job, MG_MCP_TASK_OPTIONAL},
    {"confirm_delete", "Confirm delete", "Asks a confirmation before it answers; a task when the client allows "
     "(conformance fixture).",
     "{\"type\":\"object\",\"properties\":{\"filename\":{\"type\":\"string\"}}}", NULL, mg_fixture_confirm_delete,
     MG_MCP_TASK_OPTIONAL},
    {"multi_input", "Multiple inputs", "Asks two inputs at once; a task when the client allows (conformance fixture).",
     NOARGS, NULL, mg_fixture_multi_input, MG_MCP_TASK_OPTIONAL},
    {"test_tool_with_task", "Input, then a task", "Asks a name (InputRequiredResult), then greets it from a task "
     "(conformance fixture).",
     NOARGS, NULL, mg_fixture_tool_with_task, MG_MCP_TASK_REQUIRED},
};

const struct mg_mcp_ext_tool *mg_fixture_tools(size_t *n)
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

static int resources_read(json_t *params, json_t **result, struct mg_mcp_ext_error *e)
{
    const char *uri = str_arg(params, "uri");
    if (!uri) {
        return rpc_fail(e, MG_RPC_INVALID_PARAMS, NULL, "params.uri (string) is required");
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
                return rpc_fail(e, MG_RPC_INTERNAL_ERROR, NULL, "out of memory");
            }
            *result = contents_text(uri, "application/json", text);
            free(text);
            return 1;
        }
    }
    if (is_modern(params)) /* SEP-2164: -32602 with the uri in data */
        return rpc_fail(e, MG_RPC_INVALID_PARAMS, json_pack("{s:s}", "uri", uri), "Resource not found");
    return rpc_fail(e, MG_RPC_RESOURCE_NOT_FOUND, NULL, "resource not found");
}

/* ---- prompts ---- */

static json_t *prompts_list(bool modern)
{
    json_t *r = json_pack(
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
    if (r && modern) /* it asks its input with an InputRequiredResult: 2026-07-28 only */
        json_array_append_new(json_object_get(r, "prompts"),
                              json_pack("{s:s, s:s, s:s}", "name", "test_input_required_result_prompt", "title",
                                        "Prompt needing input", "description",
                                        "Asks the user for context through an InputRequiredResult (conformance "
                                        "fixture)"));
    return r;
}

static json_t *user_text(const char *text)
{
    return json_pack("{s:s, s:o}", "role", "user", "content", text_block(text));
}

/* prompts/get test_input_required_result_prompt: InputRequiredResult is not
 * for tools only. Asks the context with an elicitation, then builds the
 * prompt from it. */
static int prompt_needing_input(json_t *params, json_t **result, struct mg_mcp_ext_error *e)
{
    if (!is_modern(params))
        return rpc_fail(e, MG_RPC_INVALID_PARAMS, NULL,
                        "test_input_required_result_prompt needs protocol version 2026-07-28");
    json_t *meta = json_object_get(params, "_meta");
    json_t *ir = json_object_get(params, "inputResponses");
    struct mg_mcp_io io = {
        .modern = true,
        .input_responses = json_is_object(ir) ? ir : NULL,
        .request_state = str_arg(params, "requestState"),
        .client_caps = json_object_get(meta, "io.modelcontextprotocol/clientCapabilities"),
    };
    struct mg_err err = {0};
    json_t *reqs = json_pack("{s:o}", "user_context", ask_form("What context should the prompt use?", "context",
                                                               "string")),
           *got;
    int rc = gather(&io, reqs, NULL, &got, result, &err);
    json_decref(reqs);
    if (rc == MG_MCP_EXT_RPC_ERROR) { /* *result: {"code", "message", "data"?} */
        rpc_fail(e, (int)json_integer_value(json_object_get(*result, "code")),
                 json_incref(json_object_get(*result, "data")), "%s",
                 json_string_value(json_object_get(*result, "message")));
        json_decref(*result);
        *result = NULL;
        return 1;
    }
    if (rc != 0) return 1; /* *result: the InputRequiredResult */
    const char *ctx = str_or(form_field(json_object_get(got, "user_context"), "context"), "(none given)");
    size_t n = strlen(ctx) + 64;
    char *t = malloc(n);
    if (t) snprintf(t, n, "Answer with this context in mind: %s", ctx);
    *result = json_pack("{s:s, s:[o]}", "description", "A prompt built from the user's context", "messages",
                        user_text(t ? t : "Answer with the context in mind."));
    free(t);
    json_decref(got);
    return 1;
}

static int prompts_get(json_t *params, json_t **result, struct mg_mcp_ext_error *e)
{
    const char *name = str_arg(params, "name");
    json_t *args = json_is_object(params) ? json_object_get(params, "arguments") : NULL;
    if (!name) {
        return rpc_fail(e, MG_RPC_INVALID_PARAMS, NULL, "params.name (string) is required");
    }
    if (strcmp(name, "test_simple_prompt") == 0) {
        *result = json_pack("{s:[o]}", "messages", user_text("This is a simple prompt for testing."));
        return 1;
    }
    if (strcmp(name, "test_prompt_with_arguments") == 0) {
        const char *a1 = str_arg(args, "arg1"), *a2 = str_arg(args, "arg2");
        if (!a1 || !a2) {
            return rpc_fail(e, MG_RPC_INVALID_PARAMS, NULL, "arguments arg1 and arg2 (strings) are required");
        }
        size_t n = strlen(a1) + strlen(a2) + 64;
        char *t = malloc(n);
        if (!t) {
            return rpc_fail(e, MG_RPC_INTERNAL_ERROR, NULL, "out of memory");
        }
        snprintf(t, n, "Prompt with arguments: arg1='%s', arg2='%s'", a1, a2);
        *result = json_pack("{s:[o]}", "messages", user_text(t));
        free(t);
        return 1;
    }
    if (strcmp(name, "test_prompt_with_embedded_resource") == 0) {
        const char *uri = str_arg(args, "resourceUri");
        if (!uri) {
            return rpc_fail(e, MG_RPC_INVALID_PARAMS, NULL, "argument resourceUri (string) is required");
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
    if (strcmp(name, "test_input_required_result_prompt") == 0) return prompt_needing_input(params, result, e);
    return rpc_fail(e, MG_RPC_INVALID_PARAMS, NULL, "unknown prompt");
}

/* ---- completion ---- */

static int complete(json_t *params, json_t **result, struct mg_mcp_ext_error *e)
{
    json_t *ref = json_is_object(params) ? json_object_get(params, "ref") : NULL;
    json_t *arg = json_is_object(params) ? json_object_get(params, "argument") : NULL;
    const char *type = str_arg(ref, "type"), *aname = str_arg(arg, "name"), *value = str_arg(arg, "value");
    if (!type || !aname || !value) {
        return rpc_fail(e, MG_RPC_INVALID_PARAMS, NULL, "params.ref.type, params.argument.name and params.argument.value are required");
    }
    static const char *const prompt_values[] = {"paris", "park", "party", "test", "testing", NULL};
    static const char *const id_values[] = {"1", "123", "42", NULL};
    const char *const *cands;
    if (strcmp(type, "ref/prompt") == 0) {
        const char *pname = str_arg(ref, "name");
        if (!pname || (strcmp(pname, "test_prompt_with_arguments") != 0 &&
                       strcmp(pname, "test_prompt_with_embedded_resource") != 0)) {
            return rpc_fail(e, MG_RPC_INVALID_PARAMS, NULL, "unknown prompt");
        }
        cands = prompt_values;
    } else if (strcmp(type, "ref/resource") == 0) {
        const char *uri = str_arg(ref, "uri");
        if (!uri || strcmp(uri, TEMPLATE_PREFIX "{id}" TEMPLATE_SUFFIX) != 0) {
            return rpc_fail(e, MG_RPC_INVALID_PARAMS, NULL, "unknown resource template");
        }
        cands = id_values;
    } else {
        return rpc_fail(e, MG_RPC_INVALID_PARAMS, NULL, "params.ref.type must be ref/prompt or ref/resource");
    }
    json_t *values = json_array();
    for (size_t i = 0; cands[i]; i++)
        if (strncmp(cands[i], value, strlen(value)) == 0) json_array_append_new(values, json_string(cands[i]));
    *result = json_pack("{s:{s:o, s:I, s:b}}", "completion", "values", values, "total",
                        (json_int_t)json_array_size(values), "hasMore", 0);
    return 1;
}

int mg_fixtures_handle(const char *method, json_t *params, json_t **result, struct mg_mcp_ext_error *e)
{
    *result = NULL;
    e->code = 0;
    e->message[0] = 0;
    e->data = NULL;
    bool modern = is_modern(params);
    if (strcmp(method, "resources/list") == 0) *result = resources_list();
    else if (strcmp(method, "resources/templates/list") == 0) *result = templates_list();
    else if (strcmp(method, "resources/read") == 0) return resources_read(params, result, e);
    else if (!modern && (strcmp(method, "resources/subscribe") == 0 || strcmp(method, "resources/unsubscribe") == 0)) {
        /* (2025 only: 2026-07-28 removed both for subscriptions/listen.)
         * Nothing here ever changes, so there is nothing to notify about:
         * accept the (un)subscription of any URI given as a string. */
        if (!str_arg(params, "uri")) return rpc_fail(e, MG_RPC_INVALID_PARAMS, NULL, "params.uri (string) is required");
        *result = json_object();
    } else if (strcmp(method, "prompts/list") == 0) *result = prompts_list(modern);
    else if (strcmp(method, "prompts/get") == 0) return prompts_get(params, result, e);
    else if (strcmp(method, "completion/complete") == 0) return complete(params, result, e);
    else return 0;
    if (!*result) return rpc_fail(e, MG_RPC_INTERNAL_ERROR, NULL, "out of memory");
    return 1;
}

void mg_fixtures_capabilities(json_t *caps)
{
    json_object_set_new(caps, "resources", json_pack("{s:b, s:b}", "subscribe", 1, "listChanged", 0));
    /* listChanged: test_trigger_tool_change and test_trigger_prompt_change
     * send the notifications (to 2026-07-28 subscriptions/listen streams) */
    json_t *tools = json_object_get(caps, "tools");
    if (json_is_object(tools)) json_object_set_new(tools, "listChanged", json_true());
    json_object_set_new(caps, "prompts", json_pack("{s:b}", "listChanged", 1));
    json_object_set_new(caps, "completions", json_object());
}

const struct mg_mcp_ext mg_conformance_fixtures = {
    .tools = fixture_tools,
    .ntools = sizeof(fixture_tools) / sizeof(fixture_tools[0]),
    .handle = mg_fixtures_handle,
    .capabilities = mg_fixtures_capabilities,
    .listen = MG_LISTEN_PROMPTS | MG_LISTEN_RESOURCES,
};
