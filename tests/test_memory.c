/* test_memory.c — agent memory through the gate: notes, projects and the
 * episode pools (seed 001's verified behaviours), entities and their tags,
 * profiles, get_context, secrets in what is stored, and the guardrail on rows
 * planted directly in the database. */
#include <sqlite3.h>
#include <string.h>
#include <unistd.h>

#include "inproc.h"
#include "memory/memory.h"
#include "store/tokenize.h"
#include "test.h"
#include "util/metrics.h"

struct m {
    struct mg_t_srv t;
};

static void m_init(struct m *m, const char *home, const char *tenant) { mg_t_srv_open(&m->t, home, tenant, MG_LEVEL_ADMIN); }

static void m_free(struct m *m) { mg_t_srv_close(&m->t); }

/* Call a tool with printf-built JSON args: the result, or NULL with code set. */
static json_t *mc(struct m *m, char *code, const char *tool, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static json_t *mc(struct m *m, char *code, const char *tool, const char *fmt, ...)
{
    char args[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof(args), fmt, ap);
    va_end(ap);
    return mg_t_call(&m->t, tool, args, code);
}

static json_t *ok(struct m *m, const char *tool, const char *args)
{
    char code[64];
    json_t *r = mc(m, code, tool, "%s", args);
    if (!r) FAIL("%s %s failed: %s", tool, args, code);
    return r;
}

static void okv(struct m *m, const char *tool, const char *args) { json_decref(ok(m, tool, args)); }

static size_t count(json_t *r, const char *field) { return json_array_size(json_object_get(r, field)); }

static bool holds(json_t *r, const char *needle)
{
    char *s = json_dumps(r, 0);
    bool yes = s && strstr(s, needle);
    free(s);
    return yes;
}

static char *one_repo(const char *name, const char *body)
{
    char *home = mg_t_tmpdir(), *repo = mg_t_tmpdir();
    mg_t_write_str(repo, "src/upload.c", body);
    struct mg_t_out o = MG_RUN(repo, home, "index", repo, "--name", name, "--quiet");
    ASSERT_EQ_INT(o.status, 0);
    mg_t_out_free(&o);
    return home;
}

TEST(memory_notes_crud_sources_and_secrets)
{
    char *home = one_repo("alpha", "int upload(void) { return 0; }\n");
    struct m m;
    m_init(&m, home, "local");
    json_t *r = ok(&m, "set_note", "{\"key\":\"build\",\"value\":\"run make test before pushing\"}");
    ASSERT(json_is_true(json_object_get(r, "created")));
    ASSERT_EQ_STR(json_string_value(json_object_get(json_object_get(r, "note"), "source")), "user_stated");
    json_decref(r);
    r = ok(&m, "set_note", "{\"key\":\"build\",\"value\":\"run make test twice\",\"source\":\"inferred\"}");
    ASSERT(json_is_false(json_object_get(r, "created")));
    json_decref(r);
    r = ok(&m, "get_note", "{\"key\":\"build\"}");
    json_t *n = json_object_get(r, "note");
    ASSERT_EQ_STR(json_string_value(json_object_get(n, "value")), "run make test twice");
    ASSERT(json_real_value(json_object_get(n, "trust")) < 0.5);
    ASSERT_EQ_STR(json_string_value(json_object_get(n, "session")), m.t.s->id);
    json_decref(r);
    okv(&m, "set_note", "{\"key\":\"deploy\",\"value\":\"the staging host is flaky on uploads\",\"source\":\"llm_extracted\"}");
    r = ok(&m, "search_notes", "{\"query\":\"flaky uploads\"}");
    ASSERT_EQ_INT(count(r, "notes"), 1);
    json_decref(r);
    r = ok(&m, "list_notes", "{\"prefix\":\"de\"}");
    ASSERT_EQ_INT(count(r, "notes"), 1);
    json_decref(r);
    char code[64];
    ASSERT(!mc(&m, code, "set_note", "{\"key\":\"x\",\"value\":\"y\",\"source\":\"rumour\"}"));
    ASSERT_EQ_STR(code, "invalid_argument");
    /* a secret in a note never reaches the database */
    okv(&m, "set_note", "{\"key\":\"ci\",\"value\":\"token ghp_iK2ZWeqhFWCEPyYngFb51yBMWXaSCrUZoL8g\"}");
    r = ok(&m, "get_note", "{\"key\":\"ci\"}");
    ASSERT(!holds(r, "ghp_iK2ZWeq") && holds(r, "[REDACTED:"));
    json_decref(r);
    r = ok(&m, "delete_note", "{\"key\":\"build\"}");
    ASSERT(json_is_true(json_object_get(r, "deleted")));
    json_decref(r);
    ASSERT(!mc(&m, code, "get_note", "{\"key\":\"build\"}"));
    ASSERT_EQ_STR(code, "note_not_found");
    m_free(&m);
    mg_memory_close_all();
    char db[4200];
    snprintf(db, sizeof(db), "%s/memory/local.db", home);
    struct mg_t_out o = MG_RUN(home, home, "status"); /* any command: the db exists */
    mg_t_out_free(&o);
    FILE *f = fopen(db, "rb");
    ASSERT(f);
    char buf[1 << 16];
    size_t got;
    while ((got = fread(buf, 1, sizeof(buf), f)) > 0) ASSERT(!memmem(buf, got, "ghp_iK2ZWeq", 10));
    fclose(f);
}

/* seed 001, "Verified Behaviours", one session object per conversation */
TEST(memory_project_pools_follow_membership)
{
    char *home = one_repo("alpha", "int upload(void) { return 0; }\n");
    struct m m;
    m_init(&m, home, "local");
    okv(&m, "create_project", "{\"name\":\"payments\"}");
    okv(&m, "join_project", "{\"project\":\"payments\",\"session_id\":\"p1\"}");
    okv(&m, "join_project", "{\"project\":\"payments\",\"session_id\":\"p2\"}");
    okv(&m, "remember", "{\"summary\":\"canary_project the upload retries twice\",\"session_id\":\"p1\"}");
    okv(&m, "remember", "{\"summary\":\"canary_pool the upload timeout is 30 s\",\"session_id\":\"n1\"}");
    okv(&m, "remember", "{\"summary\":\"canary_later the upload logs live in /var/log\",\"session_id\":\"n2\"}");
    /* project sessions cannot read non-project episodes, and share their project's */
    json_t *r = ok(&m, "recall", "{\"query\":\"upload\",\"session_id\":\"p2\"}");
    ASSERT(holds(r, "canary_project") && !holds(r, "canary_pool") && !holds(r, "canary_later"));
    json_decref(r);
    /* non-project sessions cannot read project episodes, and read each other's */
    r = ok(&m, "recall", "{\"query\":\"upload\",\"session_id\":\"n1\"}");
    ASSERT(!holds(r, "canary_project") && holds(r, "canary_pool") && holds(r, "canary_later"));
    json_decref(r);
    /* joining brings the session's history into the project pool at once */
    okv(&m, "join_project", "{\"project\":\"payments\",\"session_id\":\"n2\"}");
    r = ok(&m, "recall", "{\"query\":\"upload\",\"session_id\":\"p1\"}");
    ASSERT(holds(r, "canary_later") && !holds(r, "canary_pool"));
    json_decref(r);
    r = ok(&m, "recall", "{\"query\":\"upload\",\"session_id\":\"n1\"}");
    ASSERT(!holds(r, "canary_later"));
    json_decref(r);
    /* leaving takes it out at once */
    okv(&m, "leave_project", "{\"session_id\":\"n2\"}");
    r = ok(&m, "recall", "{\"query\":\"upload\",\"session_id\":\"p1\"}");
    ASSERT(!holds(r, "canary_later"));
    json_decref(r);
    r = ok(&m, "recall", "{\"query\":\"upload\",\"session_id\":\"n1\"}");
    ASSERT(holds(r, "canary_later"));
    json_decref(r);
    /* deleting a project takes its memory with it: nothing joins the shared pool */
    r = ok(&m, "delete_project", "{\"project\":\"payments\"}");
    ASSERT_EQ_INT(json_integer_value(json_object_get(r, "episodes")), 1);
    json_decref(r);
    r = ok(&m, "recall", "{\"query\":\"upload\",\"session_id\":\"p1\"}");
    ASSERT(!holds(r, "canary_project"));
    json_decref(r);
    m_free(&m);
    mg_memory_close_all();
}

TEST(memory_entities_tagged_with_the_project_at_the_time)
{
    char *home = one_repo("alpha", "int upload(void) { return 0; }\n");
    struct m m;
    m_init(&m, home, "local");
    okv(&m, "create_project", "{\"name\":\"red\"}");
    okv(&m, "create_project", "{\"name\":\"blue\"}");
    okv(&m, "join_project", "{\"project\":\"red\",\"session_id\":\"s\"}");
    json_t *r = ok(&m, "add_entities", "{\"session_id\":\"s\",\"entities\":[{\"name\":\"UploadService\",\"type\":"
                                       "\"service\",\"notes\":\"canary_red retries uploads\"}]}");
    json_int_t id = json_integer_value(json_object_get(json_array_get(json_object_get(r, "entities"), 0), "id"));
    json_decref(r);
    okv(&m, "join_project", "{\"project\":\"blue\",\"session_id\":\"b\"}");
    r = ok(&m, "search_entities", "{\"query\":\"upload\",\"session_id\":\"b\"}");
    ASSERT_EQ_INT(count(r, "entities"), 0); /* no contamination across projects */
    json_decref(r);
    r = ok(&m, "search_entities", "{\"query\":\"upload\",\"session_id\":\"nobody\"}");
    ASSERT_EQ_INT(count(r, "entities"), 0); /* no project: no entity context */
    json_decref(r);
    /* the session moves: its old entity keeps its tag */
    okv(&m, "join_project", "{\"project\":\"blue\",\"session_id\":\"s\"}");
    r = ok(&m, "search_entities", "{\"query\":\"upload\",\"session_id\":\"s\"}");
    ASSERT_EQ_INT(count(r, "entities"), 0);
    json_decref(r);
    r = ok(&m, "search_entities", "{\"query\":\"upload\",\"session_id\":\"r2\"}");
    json_decref(r);
    okv(&m, "join_project", "{\"project\":\"red\",\"session_id\":\"r2\"}");
    r = ok(&m, "search_entities", "{\"query\":\"upload\",\"session_id\":\"r2\"}");
    ASSERT_EQ_INT(count(r, "entities"), 1);
    json_decref(r);
    /* an explicit retag moves it */
    char args[128];
    snprintf(args, sizeof(args), "{\"ids\":[%lld],\"project\":\"blue\"}", (long long)id);
    okv(&m, "retag_entities", args);
    r = ok(&m, "search_entities", "{\"query\":\"upload\",\"session_id\":\"b\"}");
    ASSERT_EQ_INT(count(r, "entities"), 1);
    json_decref(r);
    m_free(&m);
    mg_memory_close_all();
}

TEST(memory_profiles_are_global_and_context_is_one_block)
{
    char *home = one_repo("alpha", "/* the flaky upload test retries */\nint upload_retry(void) { return 3; }\n");
    struct m m;
    m_init(&m, home, "local");
    okv(&m, "save_preference", "{\"agent_id\":\"claude-1\",\"key\":\"style\",\"value\":\"terse\"}");
    json_t *r = ok(&m, "get_profile", "{\"agent_id\":\"claude-1\"}");
    ASSERT_EQ_STR(json_string_value(json_object_get(json_object_get(r, "preferences"), "style")), "terse");
    json_decref(r);
    okv(&m, "set_note", "{\"key\":\"flaky\",\"value\":\"the upload test is flaky on CI because of timeouts\"}");
    okv(&m, "create_project", "{\"name\":\"p\"}");
    okv(&m, "join_project", "{\"project\":\"p\",\"session_id\":\"s1\"}");
    okv(&m, "remember", "{\"summary\":\"fixed the flaky upload test by raising the timeout\",\"session_id\":\"s1\"}");
    okv(&m, "add_entities", "{\"session_id\":\"s1\",\"entities\":[{\"name\":\"upload\",\"type\":\"test\","
                            "\"notes\":\"flaky upload test owner: storage team\"}]}");
    okv(&m, "join_project", "{\"project\":\"p\",\"session_id\":\"s2\"}");
    r = ok(&m, "get_context", "{\"prompt\":\"fix the flaky upload test\",\"session_id\":\"s2\"}");
    const char *block = json_string_value(json_object_get(r, "block"));
    ASSERT(block);
    ASSERT_CONTAINS(block, "[source: src/upload.c:");
    ASSERT_CONTAINS(block, "[note: flaky]");
    ASSERT_CONTAINS(block, "[episode: s1, ");
    ASSERT_CONTAINS(block, "[entity: upload (test)]");
    ASSERT(strlen(block) <= m.t.srv.cfg.max_context_bytes);
    ASSERT(count(r, "parts") >= 4);
    ASSERT(json_object_get(r, "gate"));
    json_decref(r);
    /* the same prompt from a session in no project: no episode of p, no entity */
    r = ok(&m, "get_context", "{\"prompt\":\"fix the flaky upload test\",\"session_id\":\"outsider\"}");
    block = json_string_value(json_object_get(r, "block"));
    ASSERT(!strstr(block, "[episode:") && !strstr(block, "[entity:"));
    ASSERT_CONTAINS(block, "[note: flaky]");
    json_decref(r);
    m_free(&m);
    mg_memory_close_all();
}

static void plant(const char *home, const char *sql)
{
    char db[4200];
    snprintf(db, sizeof(db), "%s/memory/local.db", home);
    sqlite3 *h;
    ASSERT_EQ_INT(sqlite3_open(db, &h), SQLITE_OK);
    ASSERT_EQ_INT(mg_tokenizer_register(h), 0);
    char *msg = NULL;
    if (sqlite3_exec(h, sql, NULL, NULL, &msg) != SQLITE_OK) FAIL("plant: %s", msg);
    sqlite3_close(h);
}

TEST(memory_guardrail_drops_and_counts_planted_rows)
{
    char *home = one_repo("alpha", "int upload(void) { return 0; }\n");
    struct m m;
    m_init(&m, home, "local");
    okv(&m, "set_note", "{\"key\":\"real\",\"value\":\"canary_real_note\"}");
    okv(&m, "create_project", "{\"name\":\"p\"}");
    okv(&m, "join_project", "{\"project\":\"p\",\"session_id\":\"s\"}");
    okv(&m, "remember", "{\"summary\":\"canary_real_episode upload\",\"session_id\":\"s\"}");
    okv(&m, "add_entities", "{\"session_id\":\"s\",\"entities\":[{\"name\":\"upload\",\"notes\":\"canary_real_entity\"}]}");
    mg_memory_close_all();
    /* rows that the queries select (same repo id, same session or project)
     * but that belong to another tenant or another repo fingerprint */
    plant(home,
          "INSERT INTO notes(tenant, repo, repo_fp, key, value, source, trust, created_at, updated_at)"
          " VALUES('evil', 'alpha', (SELECT repo_fp FROM notes LIMIT 1), 'planted1', 'canary_planted', 'inferred', 0, 1, 1);"
          "INSERT INTO notes(tenant, repo, repo_fp, key, value, source, trust, created_at, updated_at)"
          " VALUES('local', 'alpha', '00000000000000000000000000000000', 'planted2', 'canary_planted', 'inferred', 0, 1, 1);"
          "INSERT INTO notes_fts(rowid, body) SELECT id, 'canary_planted upload' FROM notes WHERE key LIKE 'planted%';"
          "INSERT INTO episodes(tenant, repo, repo_fp, session_id, summary, tags, created_at)"
          " SELECT 'local', 'alpha', 'ffffffffffffffffffffffffffffffff', id, 'canary_planted upload', '', 1 FROM sessions"
          " WHERE external_id = 's';"
          "INSERT INTO episodes_fts(rowid, body) SELECT max(id), 'canary_planted upload' FROM episodes;"
          "INSERT INTO entities(tenant, repo, repo_fp, project_id, session_id, name, type, notes, created_at)"
          " SELECT 'evil', 'alpha', repo_fp, project_id, id, 'upload', '', 'canary_planted', 1 FROM sessions"
          " WHERE external_id = 's';"
          "INSERT INTO entities_fts(rowid, body) SELECT max(id), 'upload canary_planted' FROM entities;"
          "INSERT INTO profiles(tenant, agent_id, key, value, updated_at) VALUES('evil', 'a1', 'k', 'canary_planted', 1);");
    uint64_t before = mg_metrics_isolation_drops();
    char code[64];
    json_t *r = ok(&m, "list_notes", "{}");
    ASSERT(holds(r, "canary_real_note") && !holds(r, "canary_planted"));
    json_decref(r);
    ASSERT(!mc(&m, code, "get_note", "{\"key\":\"planted1\"}"));
    ASSERT_EQ_STR(code, "note_not_found");
    r = ok(&m, "search_notes", "{\"query\":\"upload canary_planted\"}");
    ASSERT(!holds(r, "canary_planted"));
    json_decref(r);
    r = ok(&m, "recall", "{\"query\":\"upload\",\"session_id\":\"s\"}");
    ASSERT(holds(r, "canary_real_episode") && !holds(r, "canary_planted"));
    json_decref(r);
    r = ok(&m, "search_entities", "{\"query\":\"upload\",\"session_id\":\"s\"}");
    ASSERT(holds(r, "canary_real_entity") && !holds(r, "canary_planted"));
    json_decref(r);
    r = ok(&m, "get_profile", "{\"agent_id\":\"a1\"}");
    ASSERT(!holds(r, "canary_planted"));
    json_decref(r);
    r = ok(&m, "get_context", "{\"prompt\":\"upload canary_planted\",\"session_id\":\"s\"}");
    ASSERT(!holds(r, "canary_planted"));
    json_decref(r);
    uint64_t dropped = mg_metrics_isolation_drops() - before;
    /* list 2 + get 1 + search 2 + recall 1 + entities 1 + profile 1 + context (notes 2, episode 1, entity 1) */
    ASSERT(dropped >= 9);
    struct mg_buf b;
    mg_buf_init(&b, 1 << 20);
    ASSERT_EQ_INT(mg_metrics_render(&b, NULL), 0);
    ASSERT_CONTAINS(b.p, "memgate_isolation_drops_total{kind=\"note\"}");
    ASSERT_CONTAINS(b.p, "memgate_isolation_drops_total{kind=\"episode\"}");
    ASSERT_CONTAINS(b.p, "memgate_isolation_drops_total{kind=\"entity\"}");
    mg_buf_release(&b);
    m_free(&m);
    mg_memory_close_all();
}

TEST(memory_tenants_are_separate_files)
{
    char *home = one_repo("alpha", "int upload(void) { return 0; }\n");
    struct m a, b;
    m_init(&a, home, "local");
    m_init(&b, home, "acme");
    okv(&a, "set_note", "{\"key\":\"k\",\"value\":\"canary_local\"}");
    char code[64];
    /* acme cannot even see repo alpha (owned by local) */
    ASSERT(!mc(&b, code, "get_note", "{\"key\":\"k\",\"repo\":\"alpha\"}"));
    ASSERT_EQ_STR(code, "repo_not_found");
    char p1[4200], p2[4200];
    snprintf(p1, sizeof(p1), "%s/memory/local.db", home);
    snprintf(p2, sizeof(p2), "%s/memory/acme.db", home);
    okv(&b, "save_preference", "{\"agent_id\":\"x\",\"key\":\"k\",\"value\":\"v\"}");
    ASSERT(access(p1, F_OK) == 0 && access(p2, F_OK) == 0);
    json_t *r = ok(&a, "get_profile", "{\"agent_id\":\"x\"}");
    ASSERT_EQ_INT(json_object_size(json_object_get(r, "preferences")), 0);
    json_decref(r);
    m_free(&a);
    m_free(&b);
    mg_memory_close_all();
}
