/* test_memory.c — agent memory through the gate: notes, projects and the
 * episode pools (seed 001's verified behaviours), entities and their tags,
 * profiles, get_context, secrets in what is stored, and the guardrail on rows
 * planted directly in the database.
 *
 * Each test runs twice: on the tenant's SQLite file (the default), and, as
 * its "_pg" variant, on a fresh PostgreSQL database (storage = postgres://,
 * schema step 0002_memory). memory_pg_rls_* proves the row-level security
 * of the PostgreSQL tables through the connection path the memory code uses. */
#include <sqlite3.h>
#include <string.h>
#include <unistd.h>

#include "inproc.h"
#include "memory/memory.h"
#include "store/pg.h"
#include "store/tokenize.h"
#include "test.h"
#include "util/metrics.h"

/* The variant: NULL on SQLite, else the PostgreSQL database's URL. */
static const char *pg_url;

static void use_pg(void)
{
    pg_url = mg_t_pg_url();
    mg_t_srv_storage(pg_url);
}

/* Run sql on the test's PostgreSQL database as the superuser (helpers.c). */
static char *pg_su(const char *sql)
{
    ASSERT(pg_url);
    return mg_t_pg_su(pg_url, sql);
}

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

/* The memory went where the variant says: the tenant's file, or the
 * PostgreSQL tables (and then no file). */
static void stored_in_backend(const char *home)
{
    char db[4200];
    snprintf(db, sizeof(db), "%s/memory/local.db", home);
    if (!pg_url) {
        ASSERT(access(db, F_OK) == 0);
        return;
    }
    ASSERT(access(db, F_OK) != 0);
    char *n = pg_su("SELECT (SELECT count(*) FROM sessions) + (SELECT count(*) FROM notes) + (SELECT count(*) FROM "
                    "profiles) > 0;");
    ASSERT_EQ_STR(n, "t\n");
    free(n);
}

static char *one_repo(const char *name, const char *body)
{
    char *home = mg_t_tmpdir(), *repo = mg_t_tmpdir();
    mg_t_write_str(repo, "src/upload.c", body);
    struct mg_t_out o = MG_RUN(repo, home, "index", repo, "--name", name, "--quiet");
    if (o.status != 0) FAIL("index %s: %s", name, o.err);
    mg_t_out_free(&o);
    return home;
}

static void notes_crud_sources_and_secrets(void)
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
    ASSERT_EQ_STR(json_string_value(json_object_get(n, "session")), mg_session_id(m.t.s));
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
    if (pg_url) { /* memory lives in the database: no file, and no row or search vector holds the secret */
        ASSERT(access(db, F_OK) != 0);
        char *cnt = pg_su("SELECT count(*) FROM notes WHERE tenant = 'local';"
                          "SELECT count(*) FROM notes WHERE value LIKE '%ghp_iK2ZWeq%' OR body::text LIKE '%ghp_ik2zweq%';");
        ASSERT_EQ_STR(cnt, "2\n0\n");
        free(cnt);
        return;
    }
    FILE *f = fopen(db, "rb");
    ASSERT(f);
    char buf[1 << 16];
    size_t got;
    while ((got = fread(buf, 1, sizeof(buf), f)) > 0) ASSERT(!memmem(buf, got, "ghp_iK2ZWeq", 10));
    fclose(f);
}

TEST(memory_notes_crud_sources_and_secrets) { notes_crud_sources_and_secrets(); }
TEST(memory_notes_crud_sources_and_secrets_pg)
{
    use_pg();
    notes_crud_sources_and_secrets();
}

/* seed 001, "Verified Behaviours", one session object per conversation */
static void project_pools_follow_membership(void)
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
    stored_in_backend(home);
    m_free(&m);
    mg_memory_close_all();
}

TEST(memory_project_pools_follow_membership) { project_pools_follow_membership(); }
TEST(memory_project_pools_follow_membership_pg)
{
    use_pg();
    project_pools_follow_membership();
}

static void entities_tagged_with_the_project_at_the_time(void)
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
    stored_in_backend(home);
    m_free(&m);
    mg_memory_close_all();
}

TEST(memory_entities_tagged_with_the_project_at_the_time) { entities_tagged_with_the_project_at_the_time(); }
TEST(memory_entities_tagged_with_the_project_at_the_time_pg)
{
    use_pg();
    entities_tagged_with_the_project_at_the_time();
}

static void profiles_are_global_and_context_is_one_block(void)
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
    stored_in_backend(home);
    m_free(&m);
    mg_memory_close_all();
}

TEST(memory_profiles_are_global_and_context_is_one_block) { profiles_are_global_and_context_is_one_block(); }
TEST(memory_profiles_are_global_and_context_is_one_block_pg)
{
    use_pg();
    profiles_are_global_and_context_is_one_block();
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

/* Rows that the queries select (same repo id, same session or project) but
 * that belong to another tenant or another repo fingerprint. On PostgreSQL
 * they are planted by the superuser; the other tenant's are then hidden by
 * row-level security (never even reach the guardrail), the other
 * fingerprint's are dropped by it. */
#define PLANTED_ROWS(NOTES_BODY, BODY)                                                                               \
    "INSERT INTO notes(tenant, repo, repo_fp, key, value, source, trust, created_at, updated_at" NOTES_BODY ")"       \
    " VALUES('evil', 'alpha', (SELECT repo_fp FROM notes LIMIT 1), 'planted1', 'canary_planted', 'inferred', 0, 1, 1" \
    BODY ");"                                                                                                        \
    "INSERT INTO notes(tenant, repo, repo_fp, key, value, source, trust, created_at, updated_at" NOTES_BODY ")"       \
    " VALUES('local', 'alpha', '00000000000000000000000000000000', 'planted2', 'canary_planted', 'inferred', 0, 1, 1" \
    BODY ");"                                                                                                        \
    "INSERT INTO episodes(tenant, repo, repo_fp, session_id, summary, tags, created_at" NOTES_BODY ")"                \
    " SELECT 'local', 'alpha', 'ffffffffffffffffffffffffffffffff', id, 'canary_planted upload', '', 1" BODY          \
    " FROM sessions WHERE external_id = 's';"                                                                        \
    "INSERT INTO entities(tenant, repo, repo_fp, project_id, session_id, name, type, notes, created_at" NOTES_BODY ")" \
    " SELECT 'evil', 'alpha', repo_fp, project_id, id, 'upload', '', 'canary_planted', 1" BODY " FROM sessions"       \
    " WHERE external_id = 's';"                                                                                      \
    "INSERT INTO entities(tenant, repo, repo_fp, project_id, session_id, name, type, notes, created_at" NOTES_BODY ")" \
    " SELECT 'local', 'alpha', 'ffffffffffffffffffffffffffffffff', project_id, id, 'upload', '', 'canary_planted', 1" \
    BODY " FROM sessions WHERE external_id = 's';"                                                                   \
    "INSERT INTO profiles(tenant, agent_id, key, value, updated_at) VALUES('evil', 'a1', 'k', 'canary_planted', 1);"

static void guardrail_drops_and_counts_planted_rows(void)
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
    if (pg_url) {
        free(pg_su(PLANTED_ROWS(", body", ", 'canary_planted upload'")));
    } else {
        plant(home, PLANTED_ROWS("", "")
              "INSERT INTO notes_fts(rowid, body) SELECT id, 'canary_planted upload' FROM notes WHERE key LIKE 'planted%';"
              "INSERT INTO episodes_fts(rowid, body) SELECT max(id), 'canary_planted upload' FROM episodes;"
              "INSERT INTO entities_fts(rowid, body) SELECT id, 'upload canary_planted' FROM entities"
              " WHERE notes = 'canary_planted';");
    }
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
    if (pg_url) {
        /* list 1 + search 1 + recall 1 + entities 1 + context (note, episode, entity): the other fingerprint's */
        ASSERT_GE_INT(dropped, 6);
        char *n = pg_su("SELECT count(*) FROM notes WHERE tenant = 'evil';"
                        "SELECT count(*) FROM entities WHERE tenant = 'evil';"
                        "SELECT count(*) FROM profiles WHERE tenant = 'evil';");
        ASSERT_EQ_STR(n, "1\n1\n1\n"); /* there, and never served */
        free(n);
    } else {
        /* list 2 + get 1 + search 2 + recall 1 + entities 2 + profile 1 + context (notes 2, episode 1, entities 2) */
        ASSERT_GE_INT(dropped, 9);
    }
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

TEST(memory_guardrail_drops_and_counts_planted_rows) { guardrail_drops_and_counts_planted_rows(); }
TEST(memory_guardrail_drops_and_counts_planted_rows_pg)
{
    use_pg();
    guardrail_drops_and_counts_planted_rows();
}

static void tenants_are_separate(void)
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
    if (pg_url) ASSERT(access(p1, F_OK) != 0 && access(p2, F_OK) != 0); /* one database, no files */
    else ASSERT(access(p1, F_OK) == 0 && access(p2, F_OK) == 0);
    json_t *r = ok(&a, "get_profile", "{\"agent_id\":\"x\"}");
    ASSERT_EQ_INT(json_object_size(json_object_get(r, "preferences")), 0);
    json_decref(r);
    m_free(&a);
    m_free(&b);
    mg_memory_close_all();
}

TEST(memory_tenants_are_separate_files) { tenants_are_separate(); }
TEST(memory_tenants_are_separate_pg)
{
    use_pg();
    tenants_are_separate();
}

/* ---- PostgreSQL: row-level security ------------------------------------------------------------- */

/* Memory of every kind for the caller's tenant in repo `repo`. */
static void fill(struct m *m, const char *repo, const char *canary)
{
    char a[512];
    snprintf(a, sizeof(a), "{\"repo\":\"%s\",\"key\":\"k\",\"value\":\"%s\"}", repo, canary);
    okv(m, "set_note", a);
    snprintf(a, sizeof(a), "{\"repo\":\"%s\",\"name\":\"p\"}", repo);
    okv(m, "create_project", a);
    snprintf(a, sizeof(a), "{\"repo\":\"%s\",\"project\":\"p\",\"session_id\":\"s\"}", repo);
    okv(m, "join_project", a);
    snprintf(a, sizeof(a), "{\"repo\":\"%s\",\"summary\":\"%s upload\",\"session_id\":\"s\"}", repo, canary);
    okv(m, "remember", a);
    snprintf(a, sizeof(a), "{\"repo\":\"%s\",\"session_id\":\"s\",\"entities\":[{\"name\":\"upload\",\"notes\":\"%s\"}]}",
             repo, canary);
    okv(m, "add_entities", a);
    snprintf(a, sizeof(a), "{\"agent_id\":\"a1\",\"key\":\"k\",\"value\":\"%s\"}", canary);
    okv(m, "save_preference", a);
}

static const struct {
    const char *table;
    const char *insert; /* a row of tenant ?1 */
} mem_tables[] = {
    {"sessions", "INSERT INTO sessions(tenant, repo, repo_fp, external_id, created_at) VALUES(?1, 'x', 'x', 'x', 1)"},
    {"projects", "INSERT INTO projects(tenant, repo, repo_fp, name, created_at) VALUES(?1, 'x', 'x', 'x', 1)"},
    {"notes", "INSERT INTO notes(tenant, repo, repo_fp, key, value, source, trust, created_at, updated_at)"
              " VALUES(?1, 'x', 'x', 'x', 'x', 'inferred', 0, 1, 1)"},
    {"episodes", "INSERT INTO episodes(tenant, repo, repo_fp, session_id, summary, tags, created_at)"
                 " VALUES(?1, 'x', 'x', 1, 'x', '', 1)"},
    {"entities", "INSERT INTO entities(tenant, repo, repo_fp, name, type, notes, created_at)"
                 " VALUES(?1, 'x', 'x', 'x', '', '', 1)"},
    {"profiles", "INSERT INTO profiles(tenant, agent_id, key, value, updated_at) VALUES(?1, 'x', 'x', 'x', 1)"},
};

/* The rows of table that connection c sees with no filter at all; each must be tenant's. */
static int64_t unfiltered_rows(struct mg_sql *c, const char *table, const char *tenant)
{
    char sql[128];
    snprintf(sql, sizeof(sql), "SELECT tenant FROM %s", table);
    struct mg_sql_st *st;
    struct mg_err err = {0};
    if (mg_sql_prepare(c, sql, &st, &err) != 0) FAIL("%s", err.msg);
    int64_t n = 0;
    int r;
    while ((r = mg_sql_step(st, &err)) == 1) {
        if (strcmp(mg_sql_text(st, 0), tenant) != 0)
            FAIL("%s: the connection of tenant %s sees a row of tenant %s", table, tenant, mg_sql_text(st, 0));
        n++;
    }
    if (r < 0) FAIL("%s", err.msg);
    mg_sql_finalize(&st);
    return n;
}

/* Through the connection path of the memory code (mg_pg_get for the
 * request's tenant): statements with no tenant filter read, change and
 * delete only that tenant's rows, and a row of another tenant cannot be
 * written; then, with the policy of one table switched off, the same read
 * sees the other tenant's rows (the check has teeth). */
TEST(memory_pg_rls_hides_other_tenants_rows)
{
    use_pg();
    char *home = mg_t_tmpdir(), *ra = mg_t_tmpdir(), *rb = mg_t_tmpdir();
    mg_t_write_str(ra, "a.c", "int upload(void) { return 0; }\n");
    mg_t_write_str(rb, "b.c", "int upload(void) { return 1; }\n");
    mg_t_write_str(home, "config", "index_roots = acme:/tmp\n");
    struct mg_t_out o = MG_RUN(ra, home, "index", ra, "--name", "alpha", "--quiet");
    ASSERT_EQ_INT(o.status, 0);
    mg_t_out_free(&o);
    o = MG_RUN(rb, home, "index", rb, "--name", "bravo", "--tenant", "acme", "--quiet");
    if (o.status != 0) FAIL("index bravo: %s", o.err);
    mg_t_out_free(&o);
    struct m a, b;
    m_init(&a, home, "local");
    m_init(&b, home, "acme");
    snprintf(b.t.srv.cfg.index_roots, sizeof(b.t.srv.cfg.index_roots), "acme:/tmp");
    fill(&a, "alpha", "canary_local");
    fill(&b, "bravo", "canary_acme");
    m_free(&a);
    m_free(&b);
    mg_memory_close_all();
    const size_t ntables = sizeof(mem_tables) / sizeof(mem_tables[0]);
    /* both tenants have rows in every table (the superuser sees them all) */
    for (size_t i = 0; i < ntables; i++) {
        char q[256];
        snprintf(q, sizeof(q), "SELECT count(DISTINCT tenant) FROM %s WHERE tenant IN ('local', 'acme');",
                 mem_tables[i].table);
        char *n = pg_su(q);
        if (strcmp(n, "2\n") != 0) FAIL("%s: rows of %s tenants, not 2", mem_tables[i].table, n);
        free(n);
    }
    struct mg_config cfg;
    mg_t_config_defaults(&cfg);
    snprintf(cfg.storage, sizeof(cfg.storage), "%s", pg_url);
    const char *tenants[] = {"local", "acme"};
    struct mg_err err = {0};
    for (int t = 0; t < 2; t++) {
        const char *me = tenants[t], *other = tenants[1 - t];
        struct mg_pg *pool;
        struct mg_sql *c;
        if (mg_pg_get(&cfg, me, &pool, &c, &err) != 0) FAIL("%s: %s", err.code, err.msg);
        for (size_t i = 0; i < ntables; i++) {
            const char *tb = mem_tables[i].table;
            int64_t mine = unfiltered_rows(c, tb, me);
            ASSERT_GE_INT(mine, 1);
            /* writing a row of the other tenant is refused */
            ASSERT_EQ_INT(mg_sql_runf(c, NULL, &err, mem_tables[i].insert, "s", other), -1);
            ASSERT_EQ_STR(err.code, MG_E_DB);
            ASSERT_CONTAINS(err.msg, "row-level security");
            /* so is giving one of its own rows to the other tenant */
            char sql[160];
            snprintf(sql, sizeof(sql), "UPDATE %s SET tenant = ?", tb);
            ASSERT_EQ_INT(mg_sql_runf(c, NULL, &err, sql, "s", other), -1);
            ASSERT_CONTAINS(err.msg, "row-level security");
            /* an unfiltered UPDATE and DELETE touch its own rows only */
            int64_t n = -1;
            snprintf(sql, sizeof(sql), "UPDATE %s SET tenant = tenant", tb);
            if (mg_sql_runf(c, &n, &err, sql, "") != 0) FAIL("%s", err.msg);
            ASSERT_EQ_INT(n, mine);
            ASSERT_EQ_INT(mg_sql_begin(c, true, &err), 0);
            snprintf(sql, sizeof(sql), "DELETE FROM %s", tb);
            if (mg_sql_runf(c, &n, &err, sql, "") != 0) FAIL("%s", err.msg);
            ASSERT_EQ_INT(n, mine);
            mg_sql_rollback(c);
        }
        /* the canaries: its own, never the other's, whatever the query */
        struct mg_sql_st *st;
        if (mg_sql_prepare(c, "SELECT string_agg(value, ',') FROM notes WHERE value LIKE 'canary_%'", &st, &err) != 0)
            FAIL("%s", err.msg);
        ASSERT_EQ_INT(mg_sql_step(st, &err), 1);
        char want[64];
        snprintf(want, sizeof(want), "canary_%s", me);
        ASSERT_EQ_STR(mg_sql_text(st, 0), want);
        mg_sql_finalize(&st);
        mg_pg_put(pool, &c);
    }
    /* without the policy (the superuser switches it off on notes) the same
     * read through the same path sees the other tenant's row */
    free(pg_su("ALTER TABLE notes DISABLE ROW LEVEL SECURITY;"));
    struct mg_pg *pool;
    struct mg_sql *c;
    if (mg_pg_get(&cfg, "local", &pool, &c, &err) != 0) FAIL("%s", err.msg);
    struct mg_sql_st *st;
    if (mg_sql_prepare(c, "SELECT count(*) FROM notes WHERE tenant = 'acme'", &st, &err) != 0) FAIL("%s", err.msg);
    ASSERT_EQ_INT(mg_sql_step(st, &err), 1);
    ASSERT_EQ_INT(mg_sql_int(st, 0), 1);
    mg_sql_finalize(&st);
    mg_pg_put(pool, &c);
    free(pg_su("ALTER TABLE notes ENABLE ROW LEVEL SECURITY;"));
    mg_pg_close_all();
}

/* A tenant's file of schema 1 (before the unique keys with the tenant) is
 * brought to 2 on open, keeps its memory, and takes writes. */
TEST(memory_sqlite_schema_1_file_migrates)
{
    char *home = one_repo("alpha", "int upload(void) { return 0; }\n");
    struct m m;
    m_init(&m, home, "local");
    okv(&m, "set_note", "{\"key\":\"k\",\"value\":\"canary_v1\"}");
    okv(&m, "remember", "{\"summary\":\"canary_v1_episode upload\",\"session_id\":\"s\"}");
    okv(&m, "save_preference", "{\"agent_id\":\"a\",\"key\":\"k\",\"value\":\"v1\"}");
    m_free(&m);
    mg_memory_close_all();
    /* back to schema 1: the same tables, without the indexes of 2 and the vectors of 3 */
    plant(home, "DROP INDEX sessions_tenant_key; DROP INDEX projects_tenant_key; DROP INDEX notes_tenant_key;"
                "DROP INDEX profiles_tenant_key; ALTER TABLE notes DROP COLUMN vec; ALTER TABLE episodes DROP COLUMN vec;"
                "ALTER TABLE entities DROP COLUMN vec; PRAGMA user_version = 1;");
    m_init(&m, home, "local");
    json_t *r = ok(&m, "get_note", "{\"key\":\"k\"}");
    ASSERT(holds(r, "canary_v1"));
    json_decref(r);
    r = ok(&m, "set_note", "{\"key\":\"k\",\"value\":\"canary_v2\"}");
    ASSERT(json_is_false(json_object_get(r, "created")));
    json_decref(r);
    okv(&m, "save_preference", "{\"agent_id\":\"a\",\"key\":\"k\",\"value\":\"v2\"}");
    okv(&m, "create_project", "{\"name\":\"p\"}");
    okv(&m, "join_project", "{\"project\":\"p\",\"session_id\":\"s\"}");
    r = ok(&m, "recall", "{\"query\":\"upload\",\"session_id\":\"s\"}");
    ASSERT(holds(r, "canary_v1_episode"));
    json_decref(r);
    r = ok(&m, "get_profile", "{\"agent_id\":\"a\"}");
    ASSERT_EQ_STR(json_string_value(json_object_get(json_object_get(r, "preferences"), "k")), "v2");
    json_decref(r);
    m_free(&m);
    mg_memory_close_all();
    char db[4200];
    snprintf(db, sizeof(db), "%s/memory/local.db", home);
    sqlite3 *h;
    ASSERT_EQ_INT(sqlite3_open(db, &h), SQLITE_OK);
    sqlite3_stmt *st;
    ASSERT_EQ_INT(sqlite3_prepare_v2(h, "SELECT (SELECT user_version FROM pragma_user_version), (SELECT count(*) FROM"
                                        " sqlite_master WHERE name LIKE '%_tenant_key'), (SELECT count(*) FROM notes),"
                                        " (SELECT count(*) FROM pragma_table_info('notes') WHERE name = 'vec')", -1, &st,
                                     NULL), SQLITE_OK);
    ASSERT_EQ_INT(sqlite3_step(st), SQLITE_ROW);
    ASSERT_EQ_INT(sqlite3_column_int(st, 0), 3);
    ASSERT_EQ_INT(sqlite3_column_int(st, 1), 4);
    ASSERT_EQ_INT(sqlite3_column_int(st, 2), 1);
    ASSERT_EQ_INT(sqlite3_column_int(st, 3), 1); /* schema 3: notes have their vector column (memvec.c) */
    sqlite3_finalize(st);
    sqlite3_close(h);
}
