/* test_context.c — get_context's pieces on a fixture repo: whole
 * definitions with name, signature and lines; hits of one definition as one
 * piece; a window of a long one; the reason of each; the token budget over
 * the whole result; memory placed by relevance among the code. */
#include <stdlib.h>
#include <string.h>

#include "inproc.h"
#include "memory/memory.h"
#include "test.h"
#include "util/tokens.h"

#define ROTATE_SRC                                                                                                   \
    "/* the audit log's state */\n"                                     /* 1 */                                    \
    "struct audit_state { int fd; long size; };\n"                      /* 2 */                                    \
    "\n"                                                                /* 3 */                                    \
    "/* Rotate the audit log: audit.log becomes audit.log.1 */\n"       /* 4 */                                    \
    "static int rotate(struct audit_state *a)\n"                        /* 5 */                                    \
    "{\n"                                                               /* 6 */                                    \
    "    a->size = 0;\n"                                                /* 7 */                                    \
    "    return rename_log(a->fd);\n"                                   /* 8 */                                    \
    "}\n"                                                               /* 9 */                                    \
    "\n"                                                                /* 10 */                                   \
    "static int unrelated_helper(int x)\n"                              /* 11 */                                   \
    "{\n"                                                               /* 12 */                                   \
    "    return x * 2;\n"                                               /* 13 */                                   \
    "}\n"                                                               /* 14 */

/* big_function: lines 16..217, frobnicate_widget on lines 157 and 167 (two chunks of 150 lines) */
static char *big_source(void)
{
    struct mg_buf b;
    mg_buf_init(&b, 1 << 20);
    mg_buf_adds(&b, ROTATE_SRC "\nint big_function(int k)\n{\n"); /* 15 blank, 16 head, 17 { */
    for (int line = 18; line <= 216; line++) {
        if (line == 157 || line == 167) mg_buf_adds(&b, "    frobnicate_widget(k);\n");
        else mg_buf_addf(&b, "    k = k + %d;\n", line);
    }
    mg_buf_adds(&b, "}\n"); /* 217 */
    return mg_buf_detach(&b, NULL);
}

struct cx {
    struct mg_t_srv t;
    char *home;
};

static void cx_open(struct cx *c)
{
    setenv("MEMGATE_EMBEDDER", "none", 1);
    c->home = mg_t_tmpdir();
    char *repo = mg_t_tmpdir(), *src = big_source();
    mg_t_write_str(repo, "src/audit.c", src);
    free(src);
    struct mg_t_out o = MG_RUN(repo, c->home, "index", repo, "--name", "ctx", "--quiet");
    ASSERT_EQ_INT(o.status, 0);
    mg_t_out_free(&o);
    mg_t_srv_open(&c->t, c->home, "local", MG_LEVEL_ADMIN);
}

static void cx_close(struct cx *c)
{
    mg_t_srv_close(&c->t);
    mg_memory_close_all();
    unsetenv("MEMGATE_EMBEDDER");
}

static json_t *ctx_call(struct cx *c, const char *args)
{
    char code[64];
    json_t *r = mg_t_call(&c->t, "get_context", args, code);
    if (!r) FAIL("get_context %s failed: %s", args, code);
    return r;
}

static const char *pstr(json_t *part, const char *k) { return json_string_value(json_object_get(part, k)); }

/* The parts whose source holds needle. */
static int count_parts(json_t *r, const char *needle)
{
    int n = 0;
    json_t *parts = json_object_get(r, "parts");
    for (size_t i = 0; i < json_array_size(parts); i++) n += strstr(pstr(json_array_get(parts, i), "source"), needle) != NULL;
    return n;
}

static long find_part(json_t *r, const char *needle)
{
    json_t *parts = json_object_get(r, "parts");
    for (size_t i = 0; i < json_array_size(parts); i++)
        if (strstr(pstr(json_array_get(parts, i), "source"), needle)) return (long)i;
    return -1;
}

/* The one part whose source names needle (it is there exactly once). */
static json_t *the_part(json_t *r, const char *needle)
{
    ASSERT_EQ_INT(count_parts(r, needle), 1);
    return json_array_get(json_object_get(r, "parts"), (size_t)find_part(r, needle));
}

TEST(context_code_piece_is_the_whole_definition_once)
{
    struct cx c;
    cx_open(&c);
    json_t *r = ctx_call(&c, "{\"prompt\":\"how does audit log rotation work\"}");
    /* the lexical hit (its chunk with the comment above) and the symbol probe of 'rotation' (the
     * definition alone) are one piece: the definition whole, named, with its signature */
    json_t *p = the_part(r, "rotate()");
    ASSERT_EQ_STR(pstr(p, "source"),
                  "[source: src/audit.c:4-9 rotate() — function: static int rotate(struct audit_state *a)]");
    ASSERT_EQ_STR(pstr(p, "name"), "rotate");
    ASSERT_EQ_STR(pstr(p, "symbol_kind"), "function");
    ASSERT_EQ_STR(pstr(p, "signature"), "static int rotate(struct audit_state *a)");
    ASSERT_EQ_INT(json_integer_value(json_object_get(p, "start_line")), 4);
    ASSERT_EQ_INT(json_integer_value(json_object_get(p, "end_line")), 9);
    ASSERT_CONTAINS(pstr(p, "reason"), "symbol #1 of 'rotation*'");
    ASSERT_CONTAINS(pstr(p, "reason"), "lexical #");
    ASSERT_CONTAINS(pstr(p, "reason"), "name matches 'rotation'");
    const char *block = json_string_value(json_object_get(r, "block"));
    ASSERT_CONTAINS(block, "[source: src/audit.c:4-9 rotate() — function: static int rotate(struct audit_state *a)] (");
    ASSERT_CONTAINS(block, "/* Rotate the audit log: audit.log becomes audit.log.1 */\nstatic int rotate(struct "
                           "audit_state *a)\n{\n    a->size = 0;\n    return rename_log(a->fd);\n}\n");
    /* the rotation function comes first: it holds every word of the prompt, and the symbol probe ranks it #1 */
    ASSERT_EQ_INT(find_part(r, "rotate()"), 0);
    ASSERT_EQ_INT(json_integer_value(json_object_get(r, "budget_tokens")), 8000);
    json_decref(r);
    cx_close(&c);
}

TEST(context_long_definition_gives_a_window_around_the_hits)
{
    struct cx c;
    cx_open(&c);
    json_t *r = ctx_call(&c, "{\"prompt\":\"frobnicate widget\"}");
    /* two hits (one in each of the function's two chunks), windows of 80 lines around lines 157
     * and 167, overlapping: one piece, lines 117-206 */
    json_t *p = the_part(r, "big_function()");
    ASSERT_EQ_STR(pstr(p, "source"), "[source: src/audit.c:117-206 big_function() — function 16-217, a window: "
                                     "int big_function(int k)]");
    const char *block = json_string_value(json_object_get(r, "block"));
    ASSERT_CONTAINS(block, "    k = k + 117;\n");
    ASSERT_CONTAINS(block, "    frobnicate_widget(k);\n    k = k + 158;");
    ASSERT_CONTAINS(block, "    k = k + 206;\n");
    ASSERT_NOT_CONTAINS(block, "k = k + 116;");
    ASSERT_NOT_CONTAINS(block, "k = k + 207;");
    ASSERT_NOT_CONTAINS(block, "int big_function(int k)\n{");
    json_decref(r);
    cx_close(&c);
}

TEST(context_budget_holds_over_the_whole_result)
{
    struct cx c;
    cx_open(&c);
    char code[64];
    json_decref(mg_t_call(&c.t, "set_note", "{\"key\":\"rotation\",\"value\":\"audit log rotation keeps the hash chain\"}", code));
    const long long budgets[] = {256, 300, 400, 600, 1000, 8000};
    long long prev_parts = -1;
    for (size_t i = 0; i < sizeof(budgets) / sizeof(budgets[0]); i++) {
        char args[256];
        snprintf(args, sizeof(args), "{\"prompt\":\"audit log rotation frobnicate widget\",\"budget_tokens\":%lld}",
                 budgets[i]);
        json_t *r = ctx_call(&c, args);
        char *all = json_dumps(r, JSON_COMPACT);
        size_t len = strlen(all);
        free(all);
        ASSERT(len <= (size_t)budgets[i] * 4);
        /* and as the text the agent reads: the block once, its tokens counted from above */
        char *text = mg_tools_text(mg_tool_find("get_context"), r);
        size_t cost = mg_tokens_str(text);
        if (cost > (size_t)budgets[i]) FAIL("budget %lld: the text costs %zu tokens", budgets[i], cost);
        ASSERT_EQ_INT(json_integer_value(json_object_get(r, "tokens")), (long long)cost);
        json_t *p0 = json_array_get(json_object_get(r, "parts"), 0);
        const char *reason = json_string_value(json_object_get(p0, "reason"));
        if (reason) { /* each piece's reason once: in the block, not again in a list of parts */
            const char *at = strstr(text, reason);
            if (!at || strstr(at + 1, reason)) FAIL("budget %lld: reason '%s' not once in\n%s", budgets[i], reason, text);
        }
        free(text);
        ASSERT_EQ_INT(json_integer_value(json_object_get(r, "budget_tokens")), budgets[i]);
        long long nparts = (long long)json_array_size(json_object_get(r, "parts"));
        long long omitted = json_integer_value(json_object_get(r, "omitted"));
        if (budgets[i] >= 400) ASSERT(nparts >= 1);
        if (budgets[i] == 256) ASSERT(omitted > 0);
        if (budgets[i] == 8000) ASSERT_EQ_INT(omitted, 0);
        prev_parts = nparts;
        json_decref(r);
    }
    ASSERT(prev_parts >= 4); /* rotate, big_function, the struct, the note */
    json_t *none = mg_t_call(&c.t, "get_context", "{\"prompt\":\"x y z\",\"budget_tokens\":10}", code);
    ASSERT(!none);
    ASSERT_EQ_STR(code, "invalid_argument");
    cx_close(&c);
}

TEST(context_memory_is_placed_by_relevance_among_code)
{
    struct cx c;
    cx_open(&c);
    char code[64];
    json_decref(mg_t_call(&c.t, "set_note",
                          "{\"key\":\"rotation\",\"value\":\"audit log rotation renames audit.log to audit.log.1\"}",
                          code));
    json_decref(mg_t_call(&c.t, "set_note", "{\"key\":\"hosts\",\"value\":\"the log host is flaky\"}", code));
    json_t *r = ctx_call(&c, "{\"prompt\":\"how does audit log rotation work\"}");
    long strong = find_part(r, "[note: rotation]"), weak = find_part(r, "[note: hosts]");
    ASSERT(strong >= 0 && weak >= 0);
    ASSERT(strong < weak);
    /* a code piece between them: the notes are among the code, not appended after it */
    bool between = false;
    json_t *parts = json_object_get(r, "parts");
    for (long i = strong + 1; i < weak; i++) between |= strcmp(pstr(json_array_get(parts, (size_t)i), "kind"), "code") == 0;
    ASSERT(between);
    ASSERT(strong < find_part(r, "big_function()") || find_part(r, "big_function()") < 0);
    json_t *sp = json_array_get(parts, (size_t)strong);
    ASSERT_EQ_STR(pstr(sp, "reason"), "notes #1; key matches 'rotation'; text matches 'audit', 'log'");
    ASSERT_EQ_STR(pstr(json_array_get(parts, (size_t)weak), "reason"), "notes #2; text matches 'log'");
    json_decref(r);
    cx_close(&c);
}

/* The budget takes a glimpse of each file first (its best piece's best
 * lines), then the pieces whole by relevance, and a piece that no longer
 * fits whole as its glimpse: a file whose one weaker function fits comes
 * before a third function of the file that matches best, which comes cut
 * to its best lines; the parts stay in the order of relevance. */
TEST(context_takes_one_piece_per_file_first)
{
    setenv("MEMGATE_EMBEDDER", "none", 1);
    char *home = mg_t_tmpdir(), *repo = mg_t_tmpdir();
    struct mg_buf b;
    mg_buf_init(&b, 1 << 16);
    for (int f = 0; f < 3; f++) { /* three long functions, each about the queue flush many times */
        mg_buf_addf(&b, "int queue_flush_step%d(int n)\n{\n", f);
        for (int k = 0; k < 12; k++) mg_buf_addf(&b, "    n = queue_flush_drain(n, %d); /* flush the queue */\n", k);
        mg_buf_adds(&b, "    return n;\n}\n\n");
    }
    mg_t_write_str(repo, "src/queue.c", b.p);
    mg_buf_release(&b);
    mg_t_write_str(repo, "src/worker.c", "int worker_wake(int n) { return n; /* after a queue flush */ }\n");
    struct mg_t_out o = MG_RUN(repo, home, "index", repo, "--name", "ctx", "--quiet");
    ASSERT_EQ_INT(o.status, 0);
    mg_t_out_free(&o);
    struct cx c = {.home = home};
    mg_t_srv_open(&c.t, home, "local", MG_LEVEL_ADMIN);
    json_t *all = ctx_call(&c, "{\"prompt\":\"queue flush\"}");
    ASSERT_EQ_INT(count_parts(all, "src/queue.c"), 3);
    ASSERT_EQ_INT(count_parts(all, "src/worker.c"), 1);
    long long full = json_integer_value(json_object_get(all, "tokens"));
    json_decref(all);
    /* room for all but one of the queue's functions */
    char args[128];
    snprintf(args, sizeof(args), "{\"prompt\":\"queue flush\",\"budget_tokens\":%lld}", full - 60);
    json_t *r = ctx_call(&c, args);
    ASSERT_EQ_INT(count_parts(r, "src/worker.c"), 1);
    ASSERT_EQ_INT(count_parts(r, "src/queue.c"), 3);
    ASSERT_EQ_INT(json_integer_value(json_object_get(r, "omitted")), 0);
    json_t *parts = json_object_get(r, "parts");
    double prev = 1e9;
    int windows = 0;
    for (size_t i = 0; i < json_array_size(parts); i++) { /* by relevance */
        json_t *p = json_array_get(parts, i);
        double sc = json_real_value(json_object_get(p, "score"));
        ASSERT(sc <= prev);
        prev = sc;
        if (strstr(pstr(p, "source"), ", a window")) { /* the glimpse: its best line, 2 before and 3 after */
            windows++;
            ASSERT_EQ_INT(json_integer_value(json_object_get(p, "end_line")) -
                              json_integer_value(json_object_get(p, "start_line")), 5);
        }
    }
    ASSERT_EQ_INT(windows, 1);
    json_decref(r);
    cx_close(&c);
}

/* Coverage: forty files each hold a long function about the prompt, more
 * than the budget holds whole. Each file comes by its best lines (a glimpse
 * of at most six lines), the best file's function whole, and
 * the whole result stays within the budget. Before, the budget went to
 * whole functions of the first dozen files and the rest were left out. */
TEST(context_covers_many_files_by_their_best_lines)
{
    setenv("MEMGATE_EMBEDDER", "none", 1);
    char *home = mg_t_tmpdir(), *repo = mg_t_tmpdir();
    enum { FILES = 40, LINES = 60 };
    for (int f = 0; f < FILES; f++) {
        struct mg_buf b;
        mg_buf_init(&b, 1 << 16);
        mg_buf_addf(&b, "int spool_drain_%02d(int n)\n{\n", f);
        for (int k = 0; k < LINES; k++)
            mg_buf_addf(&b, "    n = step_%d_%d(n, %d); /* counter %d */\n", f, k, k * 7, k);
        /* the words of the prompt: twice in the first file, once in the others */
        mg_buf_addf(&b, "    n = spool_drain_widget(n); /* spool drain widget */\n%s    return n;\n}\n",
                    f == 0 ? "    n = spool_drain_widget(n); /* spool drain widget again */\n" : "");
        char path[64];
        snprintf(path, sizeof(path), "src/spool%02d.c", f);
        mg_t_write_str(repo, path, b.p);
        mg_buf_release(&b);
    }
    struct mg_t_out o = MG_RUN(repo, home, "index", repo, "--name", "ctx", "--quiet");
    ASSERT_EQ_INT(o.status, 0);
    mg_t_out_free(&o);
    struct cx c = {.home = home};
    mg_t_srv_open(&c.t, home, "local", MG_LEVEL_ADMIN);
    json_t *r = ctx_call(&c, "{\"prompt\":\"spool drain widget\",\"budget_tokens\":8000}");
    char *text = mg_tools_text(mg_tool_find("get_context"), r);
    size_t cost = mg_tokens_str(text);
    free(text);
    if (cost > 8000) FAIL("the text costs %zu tokens", cost);
    int whole = 0;
    for (int f = 0; f < FILES; f++) {
        char path[64];
        snprintf(path, sizeof(path), "src/spool%02d.c:", f);
        if (count_parts(r, path) < 1) FAIL("file %d of %d is not in the context", f, FILES);
    }
    json_t *parts = json_object_get(r, "parts");
    for (size_t i = 0; i < json_array_size(parts); i++) {
        json_t *p = json_array_get(parts, i);
        long long n = json_integer_value(json_object_get(p, "end_line")) - json_integer_value(json_object_get(p, "start_line"));
        if (n >= LINES) whole++; /* a function whole */
        else ASSERT(n <= 5);     /* else its glimpse: its best line, 2 before and 3 after at most */
        ASSERT_CONTAINS(json_string_value(json_object_get(r, "block")), pstr(p, "source"));
    }
    ASSERT(whole >= 1);
    ASSERT_CONTAINS(pstr(json_array_get(parts, 0), "source"), "src/spool00.c:1-");
    json_decref(r);
    cx_close(&c);
}
