/* test_pages.c — cursors of the list tools (tools/args.h mg_arg_page) and
 * the response's cap (max_response_bytes): page 1 then page 2 of limit k
 * are the first 2k hits of one search of limit 2k, in every search mode;
 * a cursor of another call, or not one at all, is refused; a result past
 * the cap loses whole trailing items and says where to go on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "inproc.h"
#include "test.h"
#include "util/buf.h"
#include "util/json.h"

/* A repo where ranking ties, the lexical parts pass and the hybrid fusion
 * all have something to do: files of the same text (tied scores), names
 * holding the query's word whole and as a part, and prose. */
static char *corpus(void)
{
    char *d = mg_t_tmpdir();
    char name[64], body[1024];
    for (int i = 0; i < 24; i++) {
        snprintf(name, sizeof(name), "same/s%02d.c", i);
        mg_t_write_str(d, name, "int shared_item_count(void) { return item_total; } /* the same in every file */\n");
    }
    for (int i = 0; i < 30; i++) {
        snprintf(name, sizeof(name), "src/f%02d.c", i);
        snprintf(body, sizeof(body),
                 "/* item %d: parse the header of a request and render the item list */\n"
                 "int render_item_%02d(struct item *item)\n{\n    return parse_header(item, %d)%s;\n}\n\n"
                 "int %s_%02d(void) { return %d; }\n",
                 i, i, i, i % 3 == 0 ? " + item_total" : "", i % 2 ? "renderItem" : "mg_item", i, i);
        mg_t_write_str(d, name, body);
    }
    /* a word whole in five files, and a part of names many times over in ten more: a search for the word
     * finds the five by whole words, and needs the parts pass for more */
    for (int i = 0; i < 5; i++) {
        snprintf(name, sizeof(name), "w/w%d.c", i);
        /* (long: the whole word weighs little in it, against the short dense files below) */
        int n = snprintf(body, sizeof(body), "int use_%d(void) { return lone_word + %d; }\n", i, i);
        for (int k = 0; k < 12 && n < (int)sizeof(body) - 80; k++)
            n += snprintf(body + n, sizeof(body) - (size_t)n, "/* filler text about unrelated matters %d %d */\n", i, k);
        mg_t_write_str(d, name, body);
    }
    for (int i = 0; i < 10; i++) {
        snprintf(name, sizeof(name), "p/p%d.c", i);
        snprintf(body, sizeof(body), "int lone_word_%d(void) { return lone_word_a + lone_word_b + lone_word_c + "
                 "lone_word_d + lone_word_e + %d; }\n", i, i);
        mg_t_write_str(d, name, body);
    }
    for (int i = 0; i < 12; i++) {
        snprintf(name, sizeof(name), "docs/n%02d.md", i);
        snprintf(body, sizeof(body),
                 "# Note %d\n\nHow the server renders a list of items for the client, page by page, and why the "
                 "header is parsed first (%d).\n",
                 i, i * 7);
        mg_t_write_str(d, name, body);
    }
    return d;
}

static void index_dir(const char *home, const char *dir, const char *name)
{
    struct mg_t_out o = MG_RUN(dir, home, "index", dir, "--name", name, "--quiet");
    if (o.status != 0) FAIL("index %s: %s", name, o.err);
    mg_t_out_free(&o);
}

/* tool with the JSON object args plus limit and cursor (NULL: none) */
static json_t *call(struct mg_t_srv *t, const char *tool, json_t *args, int limit, const char *cursor, char *code)
{
    json_t *a = json_deep_copy(args);
    json_object_set_new(a, "limit", json_integer(limit));
    if (cursor) json_object_set_new(a, "cursor", json_string(cursor));
    char *s = json_dumps(a, JSON_COMPACT);
    json_t *r = mg_t_call(t, tool, s, code);
    free(s);
    json_decref(a);
    return r;
}

/* "repo path start_line line symbol" of each hit of r's list, appended to out */
static void keys(json_t *r, const char *list, json_t *out)
{
    size_t i;
    json_t *h;
    json_array_foreach(json_object_get(r, list), i, h)
    {
        char k[1024];
        snprintf(k, sizeof(k), "%s %s %lld %lld %s", json_string_value(json_object_get(h, "repo")),
                 json_string_value(json_object_get(h, "path")),
                 (long long)json_integer_value(json_object_get(h, "start_line")),
                 (long long)json_integer_value(json_object_get(h, "line")),
                 json_string_value(json_object_get(h, "symbol")) ? json_string_value(json_object_get(h, "symbol"))
                                                                 : json_string_value(json_object_get(h, "key")));
        json_array_append_new(out, json_string(k));
    }
}

/* page 1 + page 2 of limit k == the first 2k of one call of limit 2k */
static void check_pages(struct mg_t_srv *t, const char *tool, const char *args_text, const char *list)
{
    char code[64];
    json_t *args = mg_t_json(args_text);
    static const int ks[] = {1, 3, 10, 15};
    for (size_t ki = 0; ki < sizeof(ks) / sizeof(ks[0]); ki++) {
        int k = ks[ki];
        json_t *whole = call(t, tool, args, 2 * k, NULL, code);
        if (!whole) FAIL("%s %s limit %d: %s", tool, args_text, 2 * k, code);
        json_t *p1 = call(t, tool, args, k, NULL, code);
        if (!p1) FAIL("%s %s limit %d: %s", tool, args_text, k, code);
        json_t *want = json_array(), *got = json_array();
        keys(whole, list, want);
        keys(p1, list, got);
        const char *next = json_string_value(json_object_get(p1, "next_cursor"));
        ASSERT(json_object_get(p1, "next_cursor")); /* always there: null at the end */
        if (json_array_size(want) > json_array_size(got)) ASSERT(next);
        if (next) {
            json_t *p2 = call(t, tool, args, k, next, code);
            if (!p2) FAIL("%s %s page 2 of %d: %s", tool, args_text, k, code);
            keys(p2, list, got);
            json_decref(p2);
        }
        if (!json_equal(want, got)) {
            char *w = json_dumps(want, 0), *g = json_dumps(got, 0);
            FAIL("%s %s: pages of %d are not the first %d of one call\nwant %s\ngot  %s", tool, args_text, k, 2 * k,
                 w, g);
        }
        json_decref(want);
        json_decref(got);
        json_decref(p1);
        json_decref(whole);
    }
    json_decref(args);
}

TEST(pages_are_prefix_stable_in_every_mode)
{
    char *home = mg_t_tmpdir(), *d = corpus();
    index_dir(home, d, "pages");
    struct mg_t_srv t;
    mg_t_srv_open(&t, home, "local", MG_LEVEL_ADMIN);
    static const char *const searches[] = {
        "{\"query\":\"item\",\"mode\":\"lexical\"}",
        "{\"query\":\"mg_item\",\"mode\":\"lexical\"}",
        "{\"query\":\"lone_word\",\"mode\":\"lexical\"}",
        "{\"query\":\"renderItem\",\"mode\":\"lexical\"}",
        "{\"query\":\"shared_item_count\",\"mode\":\"lexical\"}",
        "{\"query\":\"item_total\",\"mode\":\"lexical\"}",
        "{\"query\":\"item_\\\\d+\",\"mode\":\"regex\"}",
        "{\"query\":\"return\",\"mode\":\"regex\",\"fixed\":true}",
        "{\"query\":\"render\",\"mode\":\"symbol\"}",
        "{\"query\":\"item\",\"mode\":\"symbol\"}",
        "{\"query\":\"how does the server render the item list for a client\",\"mode\":\"hybrid\"}",
        "{\"query\":\"parse header item\",\"mode\":\"hybrid\"}",
        "{\"query\":\"render the items page by page\",\"mode\":\"semantic\"}",
        "{\"query\":\"item\",\"globs\":[\"src/**\"]}",
    };
    for (size_t i = 0; i < sizeof(searches) / sizeof(searches[0]); i++) check_pages(&t, "search_code", searches[i], "results");
    check_pages(&t, "search_symbols", "{\"query\":\"render_item\"}", "results");
    check_pages(&t, "search_symbols", "{\"query\":\"mg\"}", "results");
    check_pages(&t, "list_files", "{}", "files");
    check_pages(&t, "list_files", "{\"globs\":[\"src/**\"]}", "files");
    /* notes: list and search */
    char code[64];
    for (int i = 0; i < 9; i++) {
        char a[256];
        snprintf(a, sizeof(a), "{\"key\":\"page/note%d\",\"value\":\"a note about paging number %d\"}", i, i);
        json_t *r = mg_t_call(&t, "set_note", a, code);
        if (!r) FAIL("set_note: %s", code);
        json_decref(r);
    }
    check_pages(&t, "list_notes", "{}", "notes");
    check_pages(&t, "search_notes", "{\"query\":\"paging\"}", "notes");
    mg_t_srv_close(&t);
}

/* More hits tied than a ranked list reads past its limit (64): the index's
 * order (chunk id) breaks the ties, as the ranked query cuts them, so paging
 * through 300 equal files sees each once (with ties by path the deeper page
 * took a file the shallower one never saw, and one file was never served). */
TEST(pages_many_ties_each_hit_once)
{
    char *home = mg_t_tmpdir(), *d = mg_t_tmpdir();
    char name[64];
    /* two index runs, the later names first by path: the index's order is not the paths' */
    for (int run = 0; run < 2; run++) {
        for (int i = run ? 1 : 151; i <= (run ? 150 : 300); i++) {
            snprintf(name, sizeof(name), "f%d.c", i);
            mg_t_write_str(d, name, "int equal_everywhere(void) { return 0; } /* tiedmarker */\n");
        }
        index_dir(home, d, "ties");
    }
    struct mg_t_srv t;
    mg_t_srv_open(&t, home, "local", MG_LEVEL_ADMIN);
    static const int ks[] = {7, 100};
    char code[64];
    for (size_t ki = 0; ki < 2; ki++) {
        json_t *args = mg_t_json("{\"query\":\"tiedmarker\",\"mode\":\"lexical\"}");
        json_t *seen = json_object();
        char *cursor = NULL;
        int n = 0;
        do {
            json_t *r = call(&t, "search_code", args, ks[ki], cursor, code);
            if (!r) FAIL("search_code limit %d: %s", ks[ki], code);
            free(cursor);
            const char *next = json_string_value(json_object_get(r, "next_cursor"));
            cursor = next ? strdup(next) : NULL;
            size_t i;
            json_t *h;
            json_array_foreach(json_object_get(r, "results"), i, h) {
                const char *path = json_string_value(json_object_get(h, "path"));
                if (json_object_get(seen, path)) FAIL("limit %d: %s served twice", ks[ki], path);
                json_object_set_new(seen, path, json_true());
                n++;
            }
            json_decref(r);
        } while (cursor);
        ASSERT_EQ_INT(n, 300);
        json_decref(seen);
        json_decref(args);
    }
    mg_t_srv_close(&t);
}

TEST(pages_refuse_a_foreign_or_forged_cursor)
{
    char *home = mg_t_tmpdir(), *d = corpus();
    index_dir(home, d, "pages");
    struct mg_t_srv t;
    mg_t_srv_open(&t, home, "local", MG_LEVEL_READ);
    char code[64], msg[1024];
    json_t *r = mg_t_call(&t, "search_code", "{\"query\":\"item\",\"limit\":2}", code);
    ASSERT(r);
    const char *next = json_string_value(json_object_get(r, "next_cursor"));
    ASSERT(next);
    char a[512];
    /* another query, another mode, other filters: refused, saying what to do */
    static const char *const others[] = {"\"query\":\"header\"", "\"query\":\"item\",\"mode\":\"regex\"",
                                         "\"query\":\"item\",\"globs\":[\"docs/**\"]"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(a, sizeof(a), "{%s,\"limit\":2,\"cursor\":\"%s\"}", others[i], next);
        ASSERT(!mg_t_call_msg(&t, "search_code", a, code, msg));
        ASSERT_EQ_STR(code, "invalid_argument");
        ASSERT_CONTAINS(msg, "without 'cursor'");
    }
    /* another tool */
    snprintf(a, sizeof(a), "{\"query\":\"item\",\"limit\":2,\"cursor\":\"%s\"}", next);
    ASSERT(!mg_t_call_msg(&t, "search_symbols", a, code, msg));
    ASSERT_EQ_STR(code, "invalid_argument");
    /* the same call with another limit goes on from the same place */
    snprintf(a, sizeof(a), "{\"query\":\"item\",\"limit\":5,\"cursor\":\"%s\"}", next);
    json_t *r2 = mg_t_call(&t, "search_code", a, code);
    ASSERT(r2);
    json_decref(r2);
    /* not a cursor at all */
    static const char *const forged[] = {"abc", "12", "-1.0000000000000000", "3.zz00000000000000", "",
                                         "3.00000000000000001"};
    for (size_t i = 0; i < sizeof(forged) / sizeof(forged[0]); i++) {
        snprintf(a, sizeof(a), "{\"query\":\"item\",\"cursor\":\"%s\"}", forged[i]);
        ASSERT(!mg_t_call_msg(&t, "search_code", a, code, msg));
        ASSERT_EQ_STR(code, "invalid_argument");
        ASSERT_CONTAINS(msg, "next_cursor of an earlier search_code call");
    }
    /* list_files: a cursor and an offset are one too many */
    json_t *f = mg_t_call(&t, "list_files", "{\"limit\":2}", code);
    ASSERT(f);
    snprintf(a, sizeof(a), "{\"limit\":2,\"offset\":2,\"cursor\":\"%s\"}",
             json_string_value(json_object_get(f, "next_cursor")));
    ASSERT(!mg_t_call(&t, "list_files", a, code));
    ASSERT_EQ_STR(code, "invalid_argument");
    json_decref(f);
    json_decref(r);
    mg_t_srv_close(&t);
}

/* Cursors carry a keyed MAC (issue 38, V11): one edited by a client (its
 * offset moved, find_references' "path:line" or outline's count changed),
 * one whose MAC part was made up, and one of another tenant are refused;
 * before, an edited offset was taken as asked. */
TEST(pages_refuse_an_edited_cursor)
{
    char *home = mg_t_tmpdir(), *d = corpus();
    index_dir(home, d, "pages");
    struct mg_t_srv t;
    mg_t_srv_open(&t, home, "local", MG_LEVEL_READ);
    char code[64], msg[1024], a[1024];
    json_t *r = mg_t_call(&t, "search_code", "{\"query\":\"item\",\"limit\":2}", code);
    ASSERT(r);
    const char *next = json_string_value(json_object_get(r, "next_cursor"));
    ASSERT(next && strlen(next) > 33);
    /* the offset moved: "2.<fp>.<mac>" -> "9.<fp>.<mac>" */
    char edited[512];
    snprintf(edited, sizeof(edited), "%s", next);
    ASSERT(edited[0] >= '0' && edited[0] <= '9');
    edited[0] = edited[0] == '9' ? '1' : '9';
    snprintf(a, sizeof(a), "{\"query\":\"item\",\"limit\":2,\"cursor\":\"%s\"}", edited);
    ASSERT(!mg_t_call_msg(&t, "search_code", a, code, msg));
    ASSERT_EQ_STR(code, "invalid_argument");
    ASSERT_CONTAINS(msg, "changed or made up");
    /* the same cursor with its MAC cut off (the form a client could compute itself) */
    snprintf(edited, sizeof(edited), "%s", next);
    *strrchr(edited, '.') = 0;
    snprintf(a, sizeof(a), "{\"query\":\"item\",\"limit\":2,\"cursor\":\"%s\"}", edited);
    ASSERT(!mg_t_call_msg(&t, "search_code", a, code, msg));
    ASSERT_EQ_STR(code, "invalid_argument");
    /* a real one still works, with another limit */
    snprintf(a, sizeof(a), "{\"query\":\"item\",\"limit\":3,\"cursor\":\"%s\"}", next);
    json_t *r2 = mg_t_call(&t, "search_code", a, code);
    ASSERT(r2);
    json_decref(r2);
    /* outline's cursor is a count: edited, refused */
    json_t *o = mg_t_call(&t, "outline", "{\"path\":\"src/f00.c\",\"limit\":1}", code);
    if (o && json_string_value(json_object_get(o, "next_cursor"))) {
        snprintf(edited, sizeof(edited), "%s", json_string_value(json_object_get(o, "next_cursor")));
        edited[0] = edited[0] == '9' ? '1' : '9';
        snprintf(a, sizeof(a), "{\"path\":\"src/f00.c\",\"limit\":1,\"cursor\":\"%s\"}", edited);
        ASSERT(!mg_t_call_msg(&t, "outline", a, code, msg));
        ASSERT_EQ_STR(code, "invalid_argument");
    }
    json_decref(o);
    mg_t_srv_close(&t);
    /* another tenant's cursor: refused before anything is looked up */
    mg_t_srv_open(&t, home, "other", MG_LEVEL_READ);
    snprintf(a, sizeof(a), "{\"query\":\"item\",\"limit\":2,\"cursor\":\"%s\"}", next);
    ASSERT(!mg_t_call_msg(&t, "search_code", a, code, msg));
    ASSERT_EQ_STR(code, "invalid_argument");
    mg_t_srv_close(&t);
    json_decref(r);
}

TEST(pages_response_cap_cuts_whole_items_and_gives_the_cursor)
{
    char *home = mg_t_tmpdir(), *d = corpus();
    index_dir(home, d, "pages");
    struct mg_t_srv t;
    mg_t_srv_open(&t, home, "local", MG_LEVEL_READ);
    char code[64];
    json_t *whole = mg_t_call(&t, "search_code", "{\"query\":\"item\",\"limit\":60}", code);
    ASSERT(whole);
    size_t all = json_array_size(json_object_get(whole, "results"));
    ASSERT(json_dumpb(whole, NULL, 0, MG_JSON_DUMP) > 8192);
    ASSERT(!json_object_get(whole, "omitted"));
    t.srv.cfg.max_response_bytes = 8192;
    json_t *r = mg_t_call(&t, "search_code", "{\"query\":\"item\",\"limit\":60}", code);
    ASSERT(r);
    size_t n = json_array_size(json_object_get(r, "results"));
    ASSERT(json_dumpb(r, NULL, 0, MG_JSON_DUMP) <= 8192);
    ASSERT(n > 0 && n < all);
    ASSERT(json_is_true(json_object_get(r, "truncated")));
    ASSERT_EQ_INT(json_integer_value(json_object_get(r, "omitted")), (long long)(all - n));
    /* whole items: each kept one is the uncapped call's */
    for (size_t i = 0; i < n; i++)
        ASSERT(json_equal(json_array_get(json_object_get(r, "results"), i),
                          json_array_get(json_object_get(whole, "results"), i)));
    /* the text says so too */
    char *text = mg_tools_text(mg_tool_find("search_code"), r);
    ASSERT_CONTAINS(text, "truncated: true");
    ASSERT_CONTAINS(text, "omitted: ");
    ASSERT_CONTAINS(text, "next_cursor: ");
    free(text);
    /* next_cursor goes on at the first item left out */
    const char *next = json_string_value(json_object_get(r, "next_cursor"));
    ASSERT(next);
    char a[256];
    snprintf(a, sizeof(a), "{\"query\":\"item\",\"limit\":60,\"cursor\":\"%s\"}", next);
    json_t *r2 = mg_t_call(&t, "search_code", a, code);
    ASSERT(r2);
    ASSERT(json_equal(json_object_get(json_array_get(json_object_get(r2, "results"), 0), "path"),
                      json_object_get(json_array_get(json_object_get(whole, "results"), n), "path")));
    ASSERT(json_equal(json_object_get(json_array_get(json_object_get(r2, "results"), 0), "start_line"),
                      json_object_get(json_array_get(json_object_get(whole, "results"), n), "start_line")));
    json_decref(r2);
    json_decref(r);
    /* list_files under the cap: the same */
    t.srv.cfg.max_response_bytes = 4096;
    r = mg_t_call(&t, "list_files", "{\"limit\":1000}", code);
    ASSERT(r);
    ASSERT(json_dumpb(r, NULL, 0, MG_JSON_DUMP) <= 4096);
    ASSERT(json_is_true(json_object_get(r, "truncated")));
    ASSERT(json_integer_value(json_object_get(r, "omitted")) > 0);
    ASSERT(json_is_string(json_object_get(r, "next_cursor")));
    json_decref(r);
    json_decref(whole);
    mg_t_srv_close(&t);
}

/* outline and find_references have cursors of their own: under the cap they go on at the first item left out */
TEST(pages_response_cap_outline_and_references_lose_nothing)
{
    char *home = mg_t_tmpdir(), *d = mg_t_tmpdir();
    struct mg_buf b;
    for (int f = 0; f < 8; f++) {
        mg_buf_init(&b, 1 << 20);
        for (int i = 0; i < 60; i++)
            mg_buf_addf(&b, "int function_number_%d_%03d(int argument)\n{\n    return helper_call(argument + %d);\n}\n\n",
                        f, i, i);
        char name[32];
        snprintf(name, sizeof(name), "src/big%d.c", f);
        mg_t_write_str(d, name, b.p);
        mg_buf_release(&b);
    }
    mg_t_write_str(d, "src/helper.c", "int helper_call(int x) { return x; }\n");
    index_dir(home, d, "big");
    struct mg_t_srv t;
    mg_t_srv_open(&t, home, "local", MG_LEVEL_READ);
    t.srv.cfg.max_response_bytes = 4096;
    char code[64], a[256];
    /* outline: every definition once, over several capped pages */
    json_t *seen = json_object();
    const char *cursor = NULL;
    json_t *r = NULL;
    int pages = 0;
    do {
        snprintf(a, sizeof(a), cursor ? "{\"path\":\"src/big0.c\",\"limit\":2000,\"cursor\":\"%s\"}"
                                      : "{\"path\":\"src/big0.c\",\"limit\":2000}", cursor);
        json_t *next = mg_t_call(&t, "outline", a, code);
        if (!next) FAIL("outline %s: %s", a, code);
        json_decref(r);
        r = next;
        ASSERT(json_dumpb(r, NULL, 0, MG_JSON_DUMP) <= 4096);
        size_t i;
        json_t *s;
        json_array_foreach(json_object_get(r, "symbols"), i, s)
        {
            const char *n = json_string_value(json_object_get(s, "name"));
            ASSERT(!json_object_get(seen, n));
            json_object_set_new(seen, n, json_true());
        }
        cursor = json_string_value(json_object_get(r, "next_cursor"));
        pages++;
    } while (cursor && pages < 100);
    ASSERT(pages > 1);
    ASSERT_EQ_INT(json_object_size(seen), 60);
    json_decref(r);
    json_decref(seen);
    /* find_references: every reference once, whole files per page */
    seen = json_object();
    cursor = NULL;
    r = NULL;
    pages = 0;
    do {
        snprintf(a, sizeof(a), cursor ? "{\"symbol\":\"helper_call\",\"limit\":1000,\"cursor\":\"%s\"}"
                                      : "{\"symbol\":\"helper_call\",\"limit\":1000}", cursor);
        json_t *next = mg_t_call(&t, "find_references", a, code);
        if (!next) FAIL("find_references %s: %s", a, code);
        json_decref(r);
        r = next;
        size_t i, k;
        json_t *f, *ref;
        json_array_foreach(json_object_get(r, "files"), i, f)
        {
            json_array_foreach(json_object_get(f, "references"), k, ref)
            {
                char key[128];
                snprintf(key, sizeof(key), "%s:%lld", json_string_value(json_object_get(f, "path")),
                         (long long)json_integer_value(json_object_get(ref, "line")));
                ASSERT(!json_object_get(seen, key));
                json_object_set_new(seen, key, json_true());
            }
        }
        cursor = json_string_value(json_object_get(r, "next_cursor"));
        pages++;
    } while (cursor && pages < 100);
    ASSERT(pages > 1);
    ASSERT_EQ_INT(json_object_size(seen), 8 * 60);
    json_decref(r);
    json_decref(seen);
    mg_t_srv_close(&t);
}
