/* tasks.c — the conformance suite's fixtures for the tasks extension
 * (io.modelcontextprotocol/tasks; the scenarios tasks-*): tools that run as
 * tasks when the client declared the extension (they return
 * MG_MCP_EXT_TASK, src/mcp/ext.h, and run again on the task's thread), one
 * that must, and ones that ask for input inside a task. fixtures.c's table
 * lists them; MCP-level only, like every fixture.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fixtures.h"
#include "mcp/jsonrpc.h"

static json_t *text_result(const char *text, bool error)
{
    json_t *r = json_pack("{s:[{s:s, s:s}]}", "content", "type", "text", "text", text);
    if (error) json_object_set_new(r, "isError", json_true());
    return r;
}

/* Sleep ms, in steps, unless the task is stopped: false when it was. */
static bool pause_ms(struct mg_mcp_io *io, long ms)
{
    for (long left = ms; left > 0; left -= 50) {
        if (io->stop && *io->stop) return false;
        struct timespec ts = {0, (left < 50 ? left : 50) * 1000000L};
        nanosleep(&ts, NULL);
    }
    return !(io->stop && *io->stop);
}

/* An elicitation/create input request asking for a boolean `confirm` (and a `name`). */
static json_t *ask(const char *message)
{
    return json_pack("{s:s, s:{s:s, s:{s:s, s:{s:{s:s}, s:{s:s}}, s:[s]}}}", "method", "elicitation/create", "params",
                     "message", message, "requestedSchema", "type", "object", "properties", "confirm", "type",
                     "boolean", "name", "type", "string", "required", "confirm");
}

/* The accepted answer to key in the call's inputResponses, or NULL. */
static json_t *answer(struct mg_mcp_io *io, const char *key)
{
    json_t *a = json_object_get(io->input_responses, key);
    const char *action = json_string_value(json_object_get(a, "action"));
    return action && strcmp(action, "accept") == 0 ? json_object_get(a, "content") : NULL;
}

int mg_fixture_greet(struct mg_mcp_io *io, json_t *args, json_t **result, struct mg_err *err)
{
    (void)io;
    (void)err;
    const char *name = json_string_value(json_object_get(args, "name"));
    char text[320];
    snprintf(text, sizeof(text), "Hello, %.256s!", name ? name : "World");
    *result = text_result(text, false);
    return 0;
}

int mg_fixture_slow_compute(struct mg_mcp_io *io, json_t *args, json_t **result, struct mg_err *err)
{
    (void)err;
    if (io->tasks) return MG_MCP_EXT_TASK;
    json_t *sec = json_object_get(args, "seconds");
    double s = json_is_number(sec) ? json_number_value(sec) : 1;
    if (s < 0 || s > 600) s = 1;
    const char *label = json_string_value(json_object_get(args, "label"));
    if (!pause_ms(io, (long)(s * 1000))) {
        *result = text_result("cancelled", true);
        return 0;
    }
    char text[320];
    snprintf(text, sizeof(text), "Computed %.200s after %g s", label ? label : "result", s);
    *result = text_result(text, false);
    return 0;
}

int mg_fixture_failing_job(struct mg_mcp_io *io, json_t *args, json_t **result, struct mg_err *err)
{
    (void)args;
    (void)err;
    if (io->tasks) return MG_MCP_EXT_TASK;
    pause_ms(io, 300);
    *result = text_result("the job failed (a tool error, as this fixture always reports)", true);
    return 0;
}

int mg_fixture_protocol_error_job(struct mg_mcp_io *io, json_t *args, json_t **result, struct mg_err *err)
{
    (void)args;
    (void)err;
    if (io->tasks) return MG_MCP_EXT_TASK;
    *result = json_pack("{s:i, s:s}", "code", MG_RPC_INTERNAL_ERROR, "message",
                        "the job hit an internal error (as this fixture always does)");
    return MG_MCP_EXT_RPC_ERROR;
}

int mg_fixture_confirm_delete(struct mg_mcp_io *io, json_t *args, json_t **result, struct mg_err *err)
{
    if (io->tasks) return MG_MCP_EXT_TASK;
    if (!io->modern) return mg_err_set(err, MG_E_UNSUPPORTED, "confirm_delete asks through an InputRequiredResult (2026-07-28)");
    const char *file = json_string_value(json_object_get(args, "filename"));
    char text[320];
    if (!json_object_get(io->input_responses, "confirm")) {
        snprintf(text, sizeof(text), "Delete %.256s?", file ? file : "the file");
        *result = json_pack("{s:s, s:{s:o}}", "resultType", "input_required", "inputRequests", "confirm", ask(text));
        return 0;
    }
    json_t *a = answer(io, "confirm");
    snprintf(text, sizeof(text), "%s %.256s", a && json_is_true(json_object_get(a, "confirm")) ? "Deleted" : "Kept",
             file ? file : "the file");
    *result = text_result(text, false);
    return 0;
}

int mg_fixture_multi_input(struct mg_mcp_io *io, json_t *args, json_t **result, struct mg_err *err)
{
    (void)args;
    if (io->tasks) return MG_MCP_EXT_TASK;
    if (!io->modern) return mg_err_set(err, MG_E_UNSUPPORTED, "multi_input asks through an InputRequiredResult (2026-07-28)");
    json_t *a = answer(io, "first"), *b = answer(io, "second");
    if (!json_object_get(io->input_responses, "first") || !json_object_get(io->input_responses, "second")) {
        *result = json_pack("{s:s, s:{s:o, s:o}}", "resultType", "input_required", "inputRequests", "first",
                            ask("First input?"), "second", ask("Second input?"));
        return 0;
    }
    const char *n1 = json_string_value(json_object_get(a, "name")), *n2 = json_string_value(json_object_get(b, "name"));
    char text[320];
    snprintf(text, sizeof(text), "Got %.100s and %.100s", n1 ? n1 : "(none)", n2 ? n2 : "(none)");
    *result = text_result(text, false);
    return 0;
}

/* Asks a name through an InputRequiredResult, then (the client declared
 * the extension) goes on as a task whose result greets that name. */
int mg_fixture_tool_with_task(struct mg_mcp_io *io, json_t *args, json_t **result, struct mg_err *err)
{
    (void)args;
    if (!io->modern) return mg_err_set(err, MG_E_UNSUPPORTED, "test_tool_with_task runs on 2026-07-28");
    if (!json_object_get(io->input_responses, "user_name")) {
        *result = json_pack("{s:s, s:{s:{s:s, s:{s:s, s:{s:s, s:{s:{s:s}}, s:[s]}}}}}", "resultType", "input_required",
                            "inputRequests", "user_name", "method", "elicitation/create", "params", "message",
                            "What is your name?", "requestedSchema", "type", "object", "properties", "name", "type",
                            "string", "required", "name");
        return 0;
    }
    if (io->tasks) return MG_MCP_EXT_TASK;
    const char *name = json_string_value(json_object_get(answer(io, "user_name"), "name"));
    char text[320];
    snprintf(text, sizeof(text), "Hello, %.256s!", name ? name : "stranger");
    *result = text_result(text, false);
    return 0;
}
