/* test_history.c — the dashboard's history ring (util/history.h): bounded,
 * oldest first, counters by tenant, gauges through the reader's filter. */
#include "test.h"
#include "util/history.h"

static bool only_local(const char *tenant, const char *name, void *ud)
{
    (void)name;
    (void)ud;
    return strcmp(tenant, "local") == 0;
}

static json_t *sample_at(json_t *h, size_t i) { return json_array_get(json_object_get(h, "samples"), i); }

TEST(history_counters_by_tenant_gauges_by_filter)
{
    mg_history_reset();
    mg_history_count("local", "search_code", true, 0.5);
    mg_history_count("local", "search_code", false, 0.25);
    mg_history_count("acme", "search_code", true, 1);
    mg_history_count("acme", "read_file", true, 1);
    struct mg_history_gauge g[] = {{.tenant = "local", .name = "app", .v = {3, 4, 100}},
                                   {.tenant = "acme", .name = "secret-repo", .v = {9, 9, 9}}};
    ASSERT_EQ_INT(mg_history_sample(1000, g, 2), 0);

    struct mg_history_filter local = {.tenant = "local", .keep = only_local};
    json_t *h = mg_history_json(&local);
    ASSERT(h != NULL);
    json_t *s = sample_at(h, 0), *c = json_object_get(json_object_get(s, "counters"), "search_code");
    ASSERT_EQ_INT(json_integer_value(json_object_get(s, "t")), 1000);
    ASSERT_EQ_INT(json_integer_value(json_array_get(c, 0)), 2);
    ASSERT_EQ_INT(json_integer_value(json_array_get(c, 1)), 1);
    ASSERT(json_real_value(json_array_get(c, 2)) > 0.74 && json_real_value(json_array_get(c, 2)) < 0.76);
    ASSERT(json_object_get(json_object_get(s, "counters"), "read_file") == NULL); /* acme's */
    ASSERT(json_object_get(json_object_get(s, "gauges"), "secret-repo") == NULL);
    ASSERT_EQ_INT(json_integer_value(json_array_get(json_object_get(json_object_get(s, "gauges"), "app"), 1)), 4);
    json_decref(h);

    struct mg_history_filter all = {.tenant = NULL, .keep = NULL}; /* every tenant's calls, summed; no gauge */
    h = mg_history_json(&all);
    s = sample_at(h, 0);
    ASSERT_EQ_INT(json_integer_value(json_array_get(json_object_get(json_object_get(s, "counters"), "search_code"), 0)), 3);
    ASSERT_EQ_INT(json_object_size(json_object_get(s, "gauges")), 0);
    json_decref(h);
    mg_history_reset();
}

TEST(history_ring_and_series_are_bounded)
{
    mg_history_reset();
    for (int i = 0; i < MG_HISTORY_SAMPLES + 40; i++) {
        mg_history_count("local", "search_code", true, 0.001);
        ASSERT_EQ_INT(mg_history_sample(i, NULL, 0), 0);
    }
    struct mg_history_filter f = {.tenant = "local"};
    json_t *h = mg_history_json(&f);
    ASSERT_EQ_INT(json_array_size(json_object_get(h, "samples")), MG_HISTORY_SAMPLES);
    ASSERT_EQ_INT(json_integer_value(json_object_get(sample_at(h, 0), "t")), 40); /* the oldest dropped */
    json_t *last = sample_at(h, MG_HISTORY_SAMPLES - 1);
    ASSERT_EQ_INT(json_integer_value(json_object_get(last, "t")), MG_HISTORY_SAMPLES + 39);
    ASSERT_EQ_INT(json_integer_value(json_array_get(json_object_get(json_object_get(last, "counters"), "search_code"), 0)),
                  MG_HISTORY_SAMPLES + 40);
    ASSERT_EQ_INT(json_integer_value(json_object_get(h, "left_out")), 0);
    json_decref(h);

    /* more (tenant, tool) series than the table holds: the rest are counted as left out */
    char name[32];
    for (int i = 0; i < MG_HISTORY_COUNTERS + 10; i++) {
        snprintf(name, sizeof(name), "tool_%d", i);
        mg_history_count("hostile", name, true, 0);
    }
    /* a name longer than the cap is cut, not refused */
    char longname[200];
    memset(longname, 'x', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = 0;
    struct mg_history_gauge g = {.tenant = "local", .name = longname, .v = {1, 2, 3}};
    ASSERT_EQ_INT(mg_history_sample(10000, &g, 1), 0);
    struct mg_history_filter any = {.tenant = NULL, .keep = only_local};
    h = mg_history_json(&any);
    ASSERT(json_integer_value(json_object_get(h, "left_out")) >= 11); /* search_code took one slot */
    json_t *gs = json_object_get(sample_at(h, MG_HISTORY_SAMPLES - 1), "gauges");
    const char *key;
    json_t *v;
    size_t n = 0;
    json_object_foreach(gs, key, v) {
        ASSERT_EQ_INT(strlen(key), MG_HISTORY_NAME_MAX - 1);
        n++;
    }
    ASSERT_EQ_INT(n, 1);
    json_decref(h);
    mg_history_reset();
}
