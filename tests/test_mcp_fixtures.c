/* test_mcp_fixtures.c — the conformance fixtures' 2026-07-28 side, in
 * process (tests/conformance/fixtures.c): InputRequiredResult rounds, the signed
 * requestState and its refusal when tampered with, input requests only for
 * declared client capabilities, -32021, and SEP-2164's resource-not-found.
 * The suite itself runs them over HTTP (tests/node/conformance2026.test.mjs). */
#include "conformance/fixtures.h"
#include "test.h"

static const struct mg_mcp_ext_tool *tool(const char *name)
{
    size_t n;
    const struct mg_mcp_ext_tool *t = mg_fixture_tools(&n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(t[i].name, name) == 0) return &t[i];
    FAIL("no fixture tool %s", name);
}

static void no_log(struct mg_mcp_io *io, const char *level, const char *message) {}
static void no_progress(struct mg_mcp_io *io, double done, double total, const char *message) {}
static json_t *no_request(struct mg_mcp_io *io, const char *method, json_t *params, int timeout_ms,
                          struct mg_err *err)
{
    FAIL("a 2026-07-28 fixture sent a server-to-client request (%s)", method);
}

/* One 2026-07-28 call: caps as JSON text (NULL: sampling, elicitation, roots),
 * responses as JSON text or NULL, state or NULL. Returns call()'s rc;
 * *result the result, or (MG_MCP_EXT_RPC_ERROR) *error the JSON-RPC error
 * (caller decrefs data). */
static int call(const char *name, const char *caps, const char *responses, const char *state, json_t **result,
                struct mg_mcp_ext_error *error)
{
    json_t *c = json_loads(caps ? caps : "{\"sampling\":{},\"elicitation\":{},\"roots\":{}}", 0, NULL);
    json_t *r = responses ? json_loads(responses, 0, NULL) : NULL;
    ASSERT(c && (!responses || r));
    struct mg_mcp_io io = {
        .log = no_log,
        .progress = no_progress,
        .request = no_request,
        .modern = true,
        .input_responses = r,
        .request_state = state,
        .client_caps = c,
    };
    json_t *args = json_object();
    struct mg_err err = {0};
    *result = NULL;
    memset(error, 0, sizeof(*error));
    int rc = tool(name)->call(&io, args, result, &err);
    if (rc == MG_MCP_EXT_RPC_ERROR) { /* *result: {"code", "message", "data"?} */
        ASSERT(json_is_integer(json_object_get(*result, "code")));
        ASSERT(json_is_string(json_object_get(*result, "message")));
        error->code = (int)json_integer_value(json_object_get(*result, "code"));
        snprintf(error->message, sizeof(error->message), "%s",
                 json_string_value(json_object_get(*result, "message")));
        error->data = json_incref(json_object_get(*result, "data"));
        json_decref(*result);
        *result = NULL;
    }
    json_decref(args);
    json_decref(c);
    json_decref(r);
    return rc;
}

static const char *result_type(json_t *r) { return json_string_value(json_object_get(r, "resultType")); }

static const char *text_of(json_t *r)
{
    return json_string_value(json_object_get(json_array_get(json_object_get(r, "content"), 0), "text"));
}

TEST(mcp_fixtures_elicitation_two_rounds)
{
    json_t *r;
    struct mg_mcp_ext_error e;
    ASSERT_EQ_INT(call("test_input_required_result_elicitation", NULL, NULL, NULL, &r, &e), 0);
    ASSERT_EQ_STR(result_type(r), "input_required");
    json_t *req = json_object_get(json_object_get(r, "inputRequests"), "user_name");
    ASSERT_EQ_STR(json_string_value(json_object_get(req, "method")), "elicitation/create");
    ASSERT_EQ_STR(json_string_value(json_object_get(json_object_get(req, "params"), "message")), "What is your name?");
    json_decref(r);

    /* extra, unknown answers are ignored */
    ASSERT_EQ_INT(call("test_input_required_result_elicitation", NULL,
                       "{\"user_name\":{\"action\":\"accept\",\"content\":{\"name\":\"Alice\"}},"
                       "\"extra\":{\"action\":\"accept\",\"content\":{\"x\":1}}}",
                       NULL, &r, &e),
                  0);
    ASSERT(result_type(r) == NULL);
    ASSERT_EQ_STR(text_of(r), "Hello, Alice!");
    json_decref(r);

    /* a wrong key: asked again, not an error */
    ASSERT_EQ_INT(call("test_input_required_result_elicitation", NULL,
                       "{\"wrong_key\":{\"action\":\"accept\",\"content\":{\"data\":\"x\"}}}", NULL, &r, &e),
                  0);
    ASSERT_EQ_STR(result_type(r), "input_required");
    json_decref(r);

    /* an answer that is not an ElicitResult: invalid params */
    ASSERT_EQ_INT(call("test_input_required_result_elicitation", NULL, "{\"user_name\":12345}", NULL, &r, &e),
                  MG_MCP_EXT_RPC_ERROR);
    ASSERT(r == NULL);
    ASSERT_EQ_INT(e.code, -32602);
    json_decref(e.data);
}

TEST(mcp_fixtures_request_state_signed_and_checked)
{
    json_t *r;
    struct mg_mcp_ext_error e;
    ASSERT_EQ_INT(call("test_input_required_result_tampered_state", NULL, NULL, NULL, &r, &e), 0);
    ASSERT_EQ_STR(result_type(r), "input_required");
    char *state = strdup(json_string_value(json_object_get(r, "requestState")));
    json_decref(r);
    ASSERT(state && strlen(state) > 20);
    const char *ok = "{\"confirm\":{\"action\":\"accept\",\"content\":{\"ok\":true}}}";

    ASSERT_EQ_INT(call("test_input_required_result_tampered_state", NULL, ok, state, &r, &e), 0);
    ASSERT_CONTAINS(text_of(r), "state-ok");
    json_decref(r);

    /* appended, flipped, or another tool's state: refused with -32602 */
    char tampered[4096];
    snprintf(tampered, sizeof(tampered), "%s-TAMPERED", state);
    ASSERT_EQ_INT(call("test_input_required_result_tampered_state", NULL, ok, tampered, &r, &e),
                  MG_MCP_EXT_RPC_ERROR);
    ASSERT_EQ_INT(e.code, -32602);
    snprintf(tampered, sizeof(tampered), "%s", state);
    tampered[0] = tampered[0] == 'A' ? 'B' : 'A';
    ASSERT_EQ_INT(call("test_input_required_result_tampered_state", NULL, ok, tampered, &r, &e),
                  MG_MCP_EXT_RPC_ERROR);
    ASSERT_EQ_INT(call("test_input_required_result_request_state", NULL, ok, state, &r, &e), MG_MCP_EXT_RPC_ERROR);
    ASSERT_EQ_INT(call("test_input_required_result_request_state", NULL, ok, "garbage", &r, &e),
                  MG_MCP_EXT_RPC_ERROR);

    /* answers without the state do not count: the form is asked again */
    ASSERT_EQ_INT(call("test_input_required_result_request_state", NULL, ok, NULL, &r, &e), 0);
    ASSERT_EQ_STR(result_type(r), "input_required");
    ASSERT(json_is_string(json_object_get(r, "requestState")));
    json_decref(r);
    free(state);
}

TEST(mcp_fixtures_multi_round_state_evolves)
{
    json_t *r;
    struct mg_mcp_ext_error e;
    const char *t = "test_input_required_result_multi_round";
    ASSERT_EQ_INT(call(t, NULL, NULL, NULL, &r, &e), 0);
    ASSERT(json_object_get(json_object_get(r, "inputRequests"), "step1"));
    char *s1 = strdup(json_string_value(json_object_get(r, "requestState")));
    json_decref(r);

    ASSERT_EQ_INT(call(t, NULL, "{\"step1\":{\"action\":\"accept\",\"content\":{\"name\":\"Alice\"}}}", s1, &r, &e), 0);
    ASSERT_EQ_STR(result_type(r), "input_required");
    ASSERT(json_object_get(json_object_get(r, "inputRequests"), "step2"));
    char *s2 = strdup(json_string_value(json_object_get(r, "requestState")));
    ASSERT(strcmp(s1, s2) != 0);
    json_decref(r);

    ASSERT_EQ_INT(call(t, NULL, "{\"step2\":{\"action\":\"accept\",\"content\":{\"color\":\"blue\"}}}", s2, &r, &e), 0);
    ASSERT(result_type(r) == NULL);
    ASSERT_EQ_STR(text_of(r), "Alice's favorite color is blue.");
    json_decref(r);
    free(s1);
    free(s2);
}

TEST(mcp_fixtures_multiple_inputs_and_capabilities)
{
    json_t *r;
    struct mg_mcp_ext_error e;
    ASSERT_EQ_INT(call("test_input_required_result_multiple_inputs", NULL, NULL, NULL, &r, &e), 0);
    json_t *reqs = json_object_get(r, "inputRequests");
    ASSERT_EQ_INT(json_object_size(reqs), 3);
    char *state = strdup(json_string_value(json_object_get(r, "requestState")));
    json_decref(r);
    ASSERT_EQ_INT(call("test_input_required_result_multiple_inputs", NULL,
                       "{\"user_name\":{\"action\":\"accept\",\"content\":{\"name\":\"Alice\"}},"
                       "\"greeting\":{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"Hi\"},"
                       "\"model\":\"m\"},\"client_roots\":{\"roots\":[{\"uri\":\"file:///r\",\"name\":\"R\"}]}}",
                       state, &r, &e),
                  0);
    ASSERT_EQ_STR(text_of(r), "name=Alice; greeting=Hi; roots=file:///r (R)");
    json_decref(r);
    free(state);

    /* only sampling declared: no elicitation among the requests */
    ASSERT_EQ_INT(call("test_input_required_result_capabilities", "{\"sampling\":{}}", NULL, NULL, &r, &e), 0);
    reqs = json_object_get(r, "inputRequests");
    ASSERT_EQ_INT(json_object_size(reqs), 1);
    ASSERT_EQ_STR(json_string_value(json_object_get(json_object_get(reqs, "summary"), "method")),
                  "sampling/createMessage");
    json_decref(r);

    /* a request that needs an undeclared capability: -32021 naming it */
    ASSERT_EQ_INT(call("test_missing_capability", "{}", NULL, NULL, &r, &e), MG_MCP_EXT_RPC_ERROR);
    ASSERT_EQ_INT(e.code, -32021);
    ASSERT(json_is_object(json_object_get(json_object_get(e.data, "requiredCapabilities"), "sampling")));
    json_decref(e.data);
    ASSERT_EQ_INT(call("test_input_required_result_list_roots", "{\"sampling\":{}}", NULL, NULL, &r, &e),
                  MG_MCP_EXT_RPC_ERROR);
    ASSERT(json_is_object(json_object_get(json_object_get(e.data, "requiredCapabilities"), "roots")));
    json_decref(e.data);
}

TEST(mcp_fixtures_modern_resources_and_prompts)
{
    json_t *params = json_loads("{\"uri\":\"test://nope\",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
                                "\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{}}}}",
                                0, NULL);
    json_t *r;
    struct mg_mcp_ext_error e;
    ASSERT_EQ_INT(mg_fixtures_handle("resources/read", params, &r, &e), 1);
    ASSERT(r == NULL);
    ASSERT_EQ_INT(e.code, -32602);
    ASSERT_EQ_STR(json_string_value(json_object_get(e.data, "uri")), "test://nope");
    json_decref(e.data);
    /* removed in 2026-07-28: not handled (method not found) */
    ASSERT_EQ_INT(mg_fixtures_handle("resources/subscribe", params, &r, &e), 0);

    json_object_set_new(params, "name", json_string("test_input_required_result_prompt"));
    ASSERT_EQ_INT(mg_fixtures_handle("prompts/get", params, &r, &e), 1);
    ASSERT_EQ_STR(result_type(r), "input_required");
    json_decref(r);
    json_object_set_new(params, "inputResponses",
                        json_loads("{\"user_context\":{\"action\":\"accept\",\"content\":{\"context\":\"tests\"}}}",
                                   0, NULL));
    ASSERT_EQ_INT(mg_fixtures_handle("prompts/get", params, &r, &e), 1);
    ASSERT(json_is_array(json_object_get(r, "messages")));
    json_decref(r);
    json_decref(params);

    /* 2025: not-found keeps -32002, and the MRTR prompt is not listed */
    params = json_loads("{\"uri\":\"test://nope\"}", 0, NULL);
    struct mg_mcp_ext_error e2;
    ASSERT_EQ_INT(mg_fixtures_handle("resources/read", params, &r, &e2), 1);
    ASSERT_EQ_INT(e2.code, -32002);
    json_decref(e2.data);
    ASSERT_EQ_INT(mg_fixtures_handle("prompts/list", params, &r, &e2), 1);
    char *list = json_dumps(r, 0);
    ASSERT_NOT_CONTAINS(list, "test_input_required_result_prompt");
    free(list);
    json_decref(r);
    json_decref(params);
}

/* Asked over 2025 (no InputRequiredResult there), the same fixtures send
 * their requests to the client instead. */
static int asked;
static json_t *canned(struct mg_mcp_io *io, const char *method, json_t *params, int timeout_ms, struct mg_err *err)
{
    asked++;
    ASSERT_EQ_STR(method, "elicitation/create");
    const char *msg = json_string_value(json_object_get(params, "message"));
    if (strstr(msg, "name")) return json_loads("{\"action\":\"accept\",\"content\":{\"name\":\"Bob\"}}", 0, NULL);
    return json_loads("{\"action\":\"accept\",\"content\":{\"color\":\"green\"}}", 0, NULL);
}

TEST(mcp_fixtures_legacy_requests_instead)
{
    struct mg_mcp_io io = {.log = no_log, .progress = no_progress, .request = canned};
    json_t *args = json_object(), *r = NULL;
    struct mg_err err = {0};
    ASSERT_EQ_INT(tool("test_input_required_result_multi_round")->call(&io, args, &r, &err), 0);
    ASSERT_EQ_INT(asked, 2);
    ASSERT_EQ_STR(text_of(r), "Bob's favorite color is green.");
    json_decref(r);
    json_decref(args);
}
