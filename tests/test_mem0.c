/* test_mem0.c — the Mem0 provider's answer parser (memory/mem0.h): what it
 * takes from a Mem0 REST server's answer, and what it refuses. The
 * provider against a server is tested in tests/node/mem0.test.mjs. */
#include <string.h>

#include "memory/mem0.h"
#include "test.h"
#include "util/buf.h"

static int parse(const char *s, struct mg_mem0_rows *r)
{
    struct mg_err err = {0};
    return mg_mem0_parse(s, strlen(s), r, &err);
}

TEST(mem0_parse_search_answer)
{
    const char *body =
        "{\"results\": [{\"id\": \"0b5c7c1e-1111-2222-3333-444455556666\", \"memory\": \"fixed the parser\","
        " \"hash\": \"h\", \"score\": 0.75, \"user_id\": \"mg-00\", \"run_id\": \"s1\", \"role\": \"user\","
        " \"metadata\": {\"mg_tenant\": \"local\", \"mg_repo\": \"alpha\", \"mg_fp\": \"ff\", \"mg_session\": \"s1\","
        " \"mg_project\": \"\", \"mg_tags\": \"a,b\", \"mg_created_at\": 1700000000}},"
        " {\"id\": \"x_2\", \"memory\": \"no metadata\"}]}";
    struct mg_mem0_rows r;
    ASSERT_EQ_INT(parse(body, &r), 0);
    ASSERT_EQ_INT(r.n, 2);
    ASSERT(strcmp(r.v[0].memory, "fixed the parser") == 0);
    ASSERT(strcmp(r.v[0].user_id, "mg-00") == 0 && strcmp(r.v[0].run_id, "s1") == 0);
    ASSERT(strcmp(r.v[0].tenant, "local") == 0 && strcmp(r.v[0].repo, "alpha") == 0 && strcmp(r.v[0].fp, "ff") == 0);
    ASSERT(strcmp(r.v[0].session, "s1") == 0 && strcmp(r.v[0].tags, "a,b") == 0);
    ASSERT_EQ_INT(r.v[0].created_at, 1700000000);
    ASSERT(r.v[0].score > 0.74 && r.v[0].score < 0.76);
    /* a row without metadata parses with no owner: the provider's check drops it */
    ASSERT(r.v[1].tenant == NULL && r.v[1].session == NULL && r.v[1].user_id == NULL);
    mg_mem0_rows_release(&r);
    ASSERT_EQ_INT(r.n, 0);
}

TEST(mem0_parse_add_answer_and_empty)
{
    struct mg_mem0_rows r;
    ASSERT_EQ_INT(parse("{\"results\":[{\"id\":\"abc-1\",\"memory\":\"m\",\"event\":\"ADD\",\"actor_id\":null,"
                        "\"role\":\"user\"}]}", &r), 0);
    ASSERT_EQ_INT(r.n, 1);
    ASSERT(strcmp(r.v[0].event, "ADD") == 0);
    mg_mem0_rows_release(&r);
    ASSERT_EQ_INT(parse("{\"results\":[]}", &r), 0);
    ASSERT_EQ_INT(r.n, 0);
}

/* Wrongly typed owner fields are left NULL (never coerced), so the owner check fails. */
TEST(mem0_parse_wrong_types_are_absent)
{
    struct mg_mem0_rows r;
    ASSERT_EQ_INT(parse("{\"results\":[{\"id\":\"a\",\"memory\":\"m\",\"user_id\":7,\"metadata\":{\"mg_tenant\":[\"local\"],"
                        "\"mg_session\":1,\"mg_created_at\":\"1700000000\"}}]}", &r), 0);
    ASSERT(r.v[0].user_id == NULL && r.v[0].tenant == NULL && r.v[0].session == NULL);
    ASSERT_EQ_INT(r.v[0].created_at, 0);
    mg_mem0_rows_release(&r);
}

TEST(mem0_parse_refuses_bad_answers)
{
    struct mg_mem0_rows r;
    static const char *const bad[] = {
        "",                                          /* not JSON */
        "{\"results\": [ {\"id\": \"x\", \"memory\": ", /* cut off */
        "[{\"id\":\"a\",\"memory\":\"m\"}]",          /* a bare list: not this server's shape */
        "{\"results\": {}}",                          /* not a list */
        "{\"results\": [{\"memory\": \"m\"}]}",       /* no id */
        "{\"results\": [{\"id\": \"a\"}]}",           /* no memory */
        "{\"results\": [{\"id\": \"../x\", \"memory\": \"m\"}]}", /* an id that is not one (it goes in a path) */
        "{\"results\": [{\"id\": \"\", \"memory\": \"m\"}]}",
        "{\"results\": [{\"id\": \"a\", \"memory\": 5}]}",
        "{\"results\": [1]}",
        "{\"results\": [], \"results\": []}",         /* duplicate keys */
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct mg_err err = {0};
        if (mg_mem0_parse(bad[i], strlen(bad[i]), &r, &err) != -1) FAIL("accepted bad answer %zu: %s", i, bad[i]);
        ASSERT(err.code && strcmp(err.code, MG_E_PROVIDER_UNAVAILABLE) == 0);
        ASSERT(r.n == 0 && r.v == NULL);
    }
}

/* More rows than MG_MEM0_MAX_ROWS (a flood) is refused whole. */
TEST(mem0_parse_caps_rows)
{
    struct mg_buf b;
    mg_buf_init(&b, 1 << 24);
    mg_buf_adds(&b, "{\"results\":[");
    for (int i = 0; i <= MG_MEM0_MAX_ROWS; i++) mg_buf_addf(&b, "%s{\"id\":\"r%d\",\"memory\":\"m\"}", i ? "," : "", i);
    mg_buf_adds(&b, "]}");
    struct mg_mem0_rows r;
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_mem0_parse(b.p, b.len, &r, &err), -1);
    ASSERT(strstr(err.msg, "rows") != NULL);
    mg_buf_release(&b);
    mg_buf_init(&b, 1 << 24);
    mg_buf_adds(&b, "{\"results\":[");
    for (int i = 0; i < MG_MEM0_MAX_ROWS; i++) mg_buf_addf(&b, "%s{\"id\":\"r%d\",\"memory\":\"m\"}", i ? "," : "", i);
    mg_buf_adds(&b, "]}");
    /* one row fewer is accepted */
    ASSERT_EQ_INT(mg_mem0_parse(b.p, b.len, &r, &err), 0);
    ASSERT_EQ_INT(r.n, MG_MEM0_MAX_ROWS);
    mg_mem0_rows_release(&r);
    /* and an answer over MG_MEM0_MAX_ANSWER bytes is refused before parsing */
    ASSERT_EQ_INT(mg_mem0_parse(b.p, (size_t)MG_MEM0_MAX_ANSWER + 1, &r, &err), -1);
    mg_buf_release(&b);
}
