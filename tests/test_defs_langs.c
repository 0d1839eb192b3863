/* test_defs_langs.c — the definitions of every language with a grammar
 * beyond the first eight (src/index/defs_gen.c, defs_langs.c): one small,
 * realistic file per language, found by its path as the indexer finds it,
 * and the exact definitions expected (kind, name, container, lines).
 *
 * Sections:
 *   1. Fixtures   per language: a path, its source, what it defines
 *   2. Helpers    parse by path, describe the definitions
 *   3. Tests      each fixture exactly; every grammar language has one;
 *                 through the indexer: outline and symbol search; hostile
 *                 input through every new grammar
 */
#include "test.h"

#include <jansson.h>
#include <tree_sitter/api.h>

#include "fixtures.h"

#include "index/chunker.h"
#include "index/defs.h"
#include "index/lang.h"

/* ---- 1. Fixtures --------------------------------------------------------- */

struct fixture {
    const char *lang, *path, *src;
    const char *want; /* one line a definition: "kind name [in container] first-last" */
};

static const struct fixture fixtures[] = {
    {"csharp", "a.cs",
     "namespace Shop {\n"
     "  public interface IStore { void Put(int x); }\n"
     "  public class Cart : IStore {\n"
     "    private int count;\n"
     "    public Cart() { count = 0; }\n"
     "    public void Put(int x) { count += x; }\n"
     "    public int Total => count;\n"
     "  }\n"
     "  public enum Color { Red, Green }\n"
     "  public struct Point { public int X; }\n"
     "}\n",
     "module Shop 1-11\n"
     "interface IStore in Shop 2-2\n"
     "method Put in IStore 2-2\n"
     "class Cart in Shop 3-8\n"
     "field count in Cart 4-4\n"
     "constructor Cart in Cart 5-5\n"
     "method Put in Cart 6-6\n"
     "field Total in Cart 7-7\n"
     "enum Color in Shop 9-9\n"
     "enumerator Red in Color 9-9\n"
     "enumerator Green in Color 9-9\n"
     "struct Point in Shop 10-10\n"
     "field X in Point 10-10\n"},
    {"ruby", "a.rb",
     "module Shop\n"
     "  class Cart < Base\n"
     "    def initialize\n"
     "      @n = 0\n"
     "    end\n"
     "    def put(x)\n"
     "      @n += x\n"
     "    end\n"
     "    def self.create\n"
     "      new\n"
     "    end\n"
     "  end\n"
     "end\n"
     "def helper(a)\n"
     "  a\n"
     "end\n",
     "module Shop 1-13\n"
     "class Cart in Shop 2-12\n"
     "method initialize in Cart 3-5\n"
     "method put in Cart 6-8\n"
     "method create in Cart 9-11\n"
     "function helper 14-16\n"},
    {"php", "a.php",
     "<?php\n"
     "namespace Shop;\n"
     "interface Store { public function put($x); }\n"
     "class Cart implements Store {\n"
     "  private $count = 0;\n"
     "  public function put($x) { $this->count += $x; }\n"
     "}\n"
     "function helper($a) { return $a; }\n"
     "trait Loggable { function log() {} }\n",
     "module Shop 2-2\n"
     "interface Store 3-3\n"
     "method put in Store 3-3\n"
     "class Cart 4-7\n"
     "field count in Cart 5-5\n"
     "method put in Cart 6-6\n"
     "function helper 8-8\n"
     "trait Loggable 9-9\n"
     "method log in Loggable 9-9\n"},
    {"kotlin", "a.kt",
     "package shop\n"
     "\n"
     "interface Store {\n"
     "    fun put(x: Int)\n"
     "}\n"
     "\n"
     "class Cart : Store {\n"
     "    val count = 0\n"
     "    override fun put(x: Int) { }\n"
     "}\n"
     "\n"
     "object Registry {\n"
     "    fun get(): Int = 1\n"
     "}\n"
     "\n"
     "fun helper(a: Int): Int = a\n"
     "\n"
     "enum class Color { RED, GREEN }\n",
     "interface Store 3-5\n"
     "method put in Store 4-4\n"
     "class Cart 7-10\n"
     "field count in Cart 8-8\n"
     "method put in Cart 9-9\n"
     "class Registry 12-14\n"
     "method get in Registry 13-13\n"
     "function helper 16-16\n"
     "enum Color 18-18\n"
     "enumerator RED in Color 18-18\n"
     "enumerator GREEN in Color 18-18\n"},
    /* one-line declarations the grammar gives up on (an ERROR over the whole file): the line rules */
    {"kotlin", "oneline.kt",
     "package shop\n"
     "class Point(val x: Int, val y: Int) { fun norm() = x * x + y * y }\n"
     "data class Box(val w: Int)\n"
     "fun top(p: Point) = p.norm()\n"
     "object Reg { fun get() = 1 }\n"
     "interface Shape { fun area(): Double }\n"
     "internal fun <T> List<T>.second(): T = this[1]\n",
     "class Point 2-2\n"
     "class Box 3-3\n"
     "function top 4-4\n"
     "class Reg 5-5\n"
     "interface Shape 6-6\n"
     "function second 7-7\n"},
    {"swift", "a.swift",
     "protocol Store { func put(_ x: Int) }\n"
     "class Cart: Store {\n"
     "    var count = 0\n"
     "    func put(_ x: Int) { count += x }\n"
     "}\n"
     "struct Point { var x: Int }\n"
     "enum Color { case red, green }\n"
     "func helper(a: Int) -> Int { return a }\n"
     "extension Cart { func clear() {} }\n",
     "interface Store 1-1\n"
     "method put in Store 1-1\n"
     "class Cart 2-5\n"
     "field count in Cart 3-3\n"
     "method put in Cart 4-4\n"
     "struct Point 6-6\n"
     "field x in Point 6-6\n"
     "enum Color 7-7\n"
     "enumerator red in Color 7-7\n"
     "enumerator green in Color 7-7\n"
     "function helper 8-8\n"
     "impl Cart 9-9\n"
     "method clear in Cart 9-9\n"},
    {"scala", "a.scala",
     "package shop\n"
     "trait Store { def put(x: Int): Unit }\n"
     "class Cart extends Store {\n"
     "  val count = 0\n"
     "  def put(x: Int): Unit = {}\n"
     "}\n"
     "object Registry { def get(): Int = 1 }\n"
     "case class Point(x: Int)\n",
     "trait Store 2-2\n"
     "method put in Store 2-2\n"
     "class Cart 3-6\n"
     "field count in Cart 4-4\n"
     "method put in Cart 5-5\n"
     "class Registry 7-7\n"
     "method get in Registry 7-7\n"
     "class Point 8-8\n"},
    {"shell", "a.sh",
     "#!/bin/bash\n"
     "build() {\n"
     "  make all\n"
     "}\n"
     "function clean {\n"
     "  rm -rf out\n"
     "}\n"
     "NAME=demo\n"
     "build\n",
     "function build 2-4\n"
     "function clean 5-7\n"
     "variable NAME 8-8\n"},
    {"lua", "a.lua",
     "local M = {}\n"
     "function M.put(x) return x end\n"
     "function M:get() return 1 end\n"
     "local function helper(a) return a end\n"
     "function global_fn() end\n"
     "return M\n",
     "function put 2-2\n"
     "function get 3-3\n"
     "function helper 4-4\n"
     "function global_fn 5-5\n"},
    {"haskell", "a.hs",
     "module Shop where\n"
     "data Color = Red | Green\n"
     "type Name = String\n"
     "class Store a where\n"
     "  put :: a -> Int -> a\n"
     "helper :: Int -> Int\n"
     "helper a = a\n",
     "type Color 2-2\n"
     "type Name 3-3\n"
     "trait Store 4-5\n"
     "method put in Store 5-5\n"
     "function helper 7-7\n"},
    {"ocaml", "a.ml",
     "type color = Red | Green\n"
     "let helper a = a\n"
     "let rec loop n = if n = 0 then 0 else loop (n - 1)\n"
     "module Cart = struct\n"
     "  let put x = x\n"
     "end\n",
     "type color 1-1\n"
     "function helper 2-2\n"
     "function loop 3-3\n"
     "module Cart 4-6\n"
     "function put in Cart 5-5\n"},
    {"elixir", "a.ex",
     "defmodule Shop.Cart do\n"
     "  def put(x), do: x\n"
     "  defp helper(a) do\n"
     "    a\n"
     "  end\n"
     "  defmacro m(x), do: x\n"
     "end\n",
     "module Shop.Cart 1-7\n"
     "function put in Shop.Cart 2-2\n"
     "function helper in Shop.Cart 3-5\n"
     "macro m in Shop.Cart 6-6\n"},
    {"dart", "a.dart",
     "abstract class Store { void put(int x); }\n"
     "class Cart implements Store {\n"
     "  int count = 0;\n"
     "  void put(int x) { count += x; }\n"
     "}\n"
     "int helper(int a) => a;\n"
     "enum Color { red, green }\n",
     "class Store 1-1\n"
     "method put in Store 1-1\n"
     "class Cart 2-5\n"
     "field count in Cart 3-3\n"
     "method put in Cart 4-4\n"
     "function helper 6-6\n"
     "enum Color 7-7\n"
     "enumerator red in Color 7-7\n"
     "enumerator green in Color 7-7\n"},
    {"zig", "a.zig",
     "const std = @import(\"std\");\n"
     "const Point = struct {\n"
     "    x: i32,\n"
     "    fn len(self: Point) i32 { return self.x; }\n"
     "};\n"
     "pub fn helper(a: i32) i32 { return a; }\n",
     "variable std 1-1\n"
     "struct Point 2-5\n"
     "field x in Point 3-3\n"
     "method len in Point 4-4\n"
     "function helper 6-6\n"},
    {"julia", "a.jl",
     "module Shop\n"
     "struct Point\n"
     "    x::Int\n"
     "end\n"
     "function helper(a)\n"
     "    a\n"
     "end\n"
     "sq(x) = x * x\n"
     "macro m(x) end\n"
     "end\n",
     "module Shop 1-10\n"
     "struct Point in Shop 2-4\n"
     "function helper in Shop 5-7\n"
     "macro m in Shop 9-9\n"},
    {"objc", "a.m",
     "@interface Cart : NSObject\n"
     "- (void)put:(int)x;\n"
     "@end\n"
     "@implementation Cart\n"
     "- (void)put:(int)x { }\n"
     "@end\n"
     "int helper(int a) { return a; }\n",
     "class Cart 1-3\n"
     "method put in Cart 2-2\n"
     "impl Cart 4-6\n"
     "method put in Cart 5-5\n"
     "function helper 7-7\n"},
    {"powershell", "a.ps1",
     "function Get-Thing {\n"
     "  param($a)\n"
     "  $a\n"
     "}\n"
     "class Cart {\n"
     "  [int]$Count\n"
     "  [void] Put([int]$x) { $this.Count += $x }\n"
     "}\n",
     "function Get-Thing 1-4\n"
     "class Cart 5-8\n"
     "method Put in Cart 7-7\n"},
    {"perl", "a.pl",
     "package Shop::Cart;\n"
     "sub new { my $c = shift; return bless {}, $c; }\n"
     "sub put { my ($s, $x) = @_; }\n"
     "1;\n",
     "module Shop::Cart 1-1\n"
     "function new 2-2\n"
     "function put 3-3\n"},
    {"r", "a.R",
     "helper <- function(a) {\n"
     "  a\n"
     "}\n"
     "put = function(x) x\n"
     "count <- 0\n",
     "function helper 1-3\n"
     "function put 4-4\n"
     "variable count 5-5\n"},
    {"sql", "a.sql",
     "CREATE TABLE items (id INT, name TEXT);\n"
     "CREATE VIEW cheap AS SELECT * FROM items;\n"
     "CREATE FUNCTION total() RETURNS INT AS $$ SELECT 1 $$ LANGUAGE sql;\n"
     "CREATE INDEX items_name ON items (name);\n",
     "struct items 1-1\n"
     "type cheap 2-2\n"
     "function total 3-4\n"},
    {"elisp", "a.el",
     "(defun shop-put (x) x)\n"
     "(defvar shop-count 0)\n"
     "(defmacro shop-m (x) x)\n"
     "(defcustom shop-opt nil \"doc\")\n",
     "function shop-put 1-1\n"
     "variable shop-count 2-2\n"
     "macro shop-m 3-3\n"
     "variable shop-opt 4-4\n"},
    {"groovy", "a.groovy",
     "class Cart {\n"
     "  int count = 0\n"
     "  def put(int x) { count += x }\n"
     "}\n"
     "def helper(a) { a }\n",
     "class Cart 1-4\n"
     "field count in Cart 2-2\n"
     "method put in Cart 3-3\n"
     "function helper 5-5\n"},
    {"fsharp", "a.fs",
     "module Shop\n"
     "type Color = Red | Green\n"
     "let helper a = a\n"
     "type Cart() =\n"
     "    member this.Put(x: int) = x\n",
     "module Shop 1-5\n"
     "type Color in Shop 2-2\n"
     "enumerator Red in Color 2-2\n"
     "enumerator Green in Color 2-2\n"
     "function helper in Shop 3-3\n"
     "class Cart in Shop 4-5\n"
     "method Put in Cart 5-5\n"},
    {"solidity", "a.sol",
     "pragma solidity ^0.8.0;\n"
     "interface IStore { function put(uint x) external; }\n"
     "contract Cart is IStore {\n"
     "  uint count;\n"
     "  event Added(uint x);\n"
     "  function put(uint x) external { count += x; }\n"
     "  modifier only() { _; }\n"
     "}\n",
     "interface IStore 2-2\n"
     "method put in IStore 2-2\n"
     "class Cart 3-8\n"
     "field count in Cart 4-4\n"
     "type Added in Cart 5-5\n"
     "method put in Cart 6-6\n"
     "method only in Cart 7-7\n"},
    {"hcl", "a.tf",
     "resource \"aws_instance\" \"web\" {\n"
     "  ami = \"x\"\n"
     "}\n"
     "variable \"region\" {\n"
     "  default = \"eu\"\n"
     "}\n"
     "module \"vpc\" {\n"
     "  source = \"./vpc\"\n"
     "}\n",
     "struct aws_instance.web 1-3\n"
     "variable region 4-6\n"
     "module vpc 7-9\n"},
    {"make", "sub/Makefile",
     "CC := cc\n"
     "all: build\n"
     "build: main.o\n"
     "	$(CC) -o out main.o\n"
     "define helper\n"
     "echo hi\n"
     "endef\n",
     "variable CC 1-1\n"
     "function all 2-2\n"
     "function build 3-4\n"
     "macro helper 5-7\n"},
    {"css", "a.css",
     ".card { color: red; }\n"
     "#main > .title, h1 { margin: 0; }\n"
     "@media (max-width: 600px) { .card { color: blue; } }\n",
     "type .card 1-1\n"
     "type #main > .title 2-2\n"
     "type h1 2-2\n"
     "type .card 3-3\n"},
    /* no usable grammar: definitions line by line (defs_lines.c) */
    {"erlang", "src/shop.erl",
     "-module(shop).\n"
     "-export([put/2]).\n"
     "-record(cart, {items = []}).\n"
     "-define(LIMIT, 10).\n"
     "\n"
     "put(Cart, X) when X > 0 ->\n"
     "    Cart#cart{items = [X]};\n"
     "put(Cart, _) ->\n"
     "    Cart.\n"
     "\n"
     "total(Cart) -> length(Cart#cart.items).\n",
     "module shop 1-2\n"
     "struct cart 3-3\n"
     "macro LIMIT 4-5\n"
     "function put 6-10\n"
     "function total 11-11\n"},
    {"nim", "shop.nim",
     "type\n"
     "  Cart* = object\n"
     "    count: int\n"
     "  Color = enum\n"
     "    red, green\n"
     "\n"
     "proc put*(c: var Cart, x: int) =\n"
     "  c.count += x\n"
     "\n"
     "template twice(x: untyped): untyped = x * 2\n",
     "struct Cart 2-3\n"
     "enum Color 4-6\n"
     "function put 7-9\n"
     "macro twice 10-10\n"},
    {"protobuf", "api/shop.proto",
     "syntax = \"proto3\";\n"
     "message Cart {\n"
     "  repeated Item items = 1;\n"
     "  enum State { OPEN = 0; }\n"
     "}\n"
     "service Shop {\n"
     "  rpc Put(Cart) returns (Cart);\n"
     "}\n",
     "struct Cart 2-5\n"
     "enum State in Cart 4-5\n"
     "interface Shop 6-8\n"
     "method Put in Shop 7-8\n"},
    /* single-file components: the script, parsed as TypeScript or JavaScript */
    {"vue", "web/Cart.vue",
     "<template><div>{{ total() }}</div></template>\n"
     "<script lang=\"ts\">\n"
     "export function total(): number { return 1; }\n"
     "const limit = 10;\n"
     "</script>\n",
     "function total 3-3\n"
     "variable limit 4-4\n"},
    {"svelte", "web/Cart.svelte",
     "<script>\n"
     "  export let count = 0;\n"
     "  function add() { count += 1; }\n"
     "</script>\n"
     "<button on:click={add}>{count}</button>\n",
     "variable count 2-2\n"
     "function add 3-3\n"},
};
#define NFIX (sizeof(fixtures) / sizeof(fixtures[0]))

/* ---- 2. Helpers ---------------------------------------------------------- */

static int line_at(const char *src, uint32_t off)
{
    int line = 1;
    for (uint32_t i = 0; i < off; i++) line += src[i] == '\n';
    return line;
}

/* The definitions of src as the fixture's `want` writes them, found by the
 * language's chunker as the indexer finds them; NULL when it has none. */
static char *defs_of(const struct mg_lang *l, const char *src, size_t len)
{
    const struct mg_chunker *c = mg_chunker_for(l);
    if (!c) return NULL;
    TSParser *p = ts_parser_new();
    ASSERT(p != NULL);
    struct mg_chunk_opts o = {.max_lines = 60, .max_bytes = 4096, .parse_timeout_us = 2000000};
    struct mg_defs d;
    memset(&d, 0, sizeof(d));
    int rc = c->ops->definitions(c, l, src, len, &o, p, &d);
    ASSERT(rc == 0 || rc == 1);
    size_t cap = 256 + d.n * 600, n = 0;
    char *s = malloc(cap);
    ASSERT(s != NULL);
    s[0] = 0;
    for (size_t i = 0; i < d.n && n + 580 < cap; i++) {
        const struct mg_def *v = &d.v[i];
        if (v->start > v->end || v->end > len) FAIL("%s: %s: bad range", l->name, v->name);
        n += (size_t)snprintf(s + n, cap - n, "%s %.256s%s%.256s %d-%d\n", v->kind, v->name,
                              v->container ? " in " : "", v->container ? v->container : "", line_at(src, v->start),
                              line_at(src, v->end > v->start ? v->end - 1 : v->start));
    }
    mg_defs_release(&d);
    ts_parser_delete(p);
    return s;
}

/* ---- 3. Tests ------------------------------------------------------------ */

TEST(defs_langs_fixtures)
{
    int bad = 0;
    for (size_t i = 0; i < NFIX; i++) {
        const struct fixture *f = &fixtures[i];
        const struct mg_lang *l = mg_lang_for_path(f->path);
        if (strcmp(l->name, f->lang) != 0) FAIL("%s: language %s, want %s", f->path, l->name, f->lang);
        char *got = defs_of(l, f->src, strlen(f->src));
        if (!got) FAIL("%s: no chunker", f->lang);
        if (strcmp(got, f->want) != 0) {
            fprintf(stderr, "# %s (%s): got\n%s# want\n%s", f->lang, f->path, got, f->want);
            bad++;
        }
        free(got);
    }
    ASSERT_EQ_INT(bad, 0);
}

/* Every language with a grammar has a fixture here or in test_defs.c; with
 * the fallbacks (defs_lines.c, Vue, Svelte) 39 languages find definitions. */
TEST(defs_langs_every_grammar)
{
    static const char *const first[] = {"c", "cpp", "go", "java", "javascript", "python", "rust", "typescript"};
    size_t n, langs = 0;
    const struct mg_lang *all = mg_lang_all(&n);
    for (size_t k = 0; k < n; k++) {
        if (!all[k].grammar || (k > 0 && strcmp(all[k].name, all[k - 1].name) == 0)) continue;
        bool found = false;
        for (size_t i = 0; i < sizeof(first) / sizeof(first[0]); i++) found |= strcmp(first[i], all[k].name) == 0;
        for (size_t i = 0; i < NFIX; i++) found |= strcmp(fixtures[i].lang, all[k].name) == 0;
        if (!found) FAIL("language %s has a grammar and no fixture", all[k].name);
        langs++;
    }
    /* and the languages whose definitions come without a grammar of their own */
    for (size_t i = 0; i < NFIX; i++)
        if (!mg_lang_for_path(fixtures[i].path)->grammar) langs++;
    ASSERT_GE_INT((int)langs, 39);
}

/* Through the indexer: `memgate outline` lists each file's definitions and
 * symbol search finds the first of them, in its language. */
TEST_T(defs_langs_indexed, 300)
{
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir();
    for (size_t i = 0; i < NFIX; i++) mg_t_write_str(repo, fixtures[i].path, fixtures[i].src);
    json_decref(mg_fx_run_json(NULL, home, (const char *const[]){"index", repo, "--name", "langs", "--json", NULL}));
    for (size_t i = 0; i < NFIX; i++) {
        const struct fixture *f = &fixtures[i];
        json_t *o = mg_fx_run_json(NULL, home,
                                   (const char *const[]){"outline", f->path, "--repo", "langs", "--json", NULL});
        json_t *syms = json_object_get(o, "symbols");
        size_t want = 0;
        for (const char *p = f->want; *p; p++) want += *p == '\n';
        if (json_array_size(syms) != want)
            FAIL("%s: outline lists %zu definitions, want %zu", f->path, json_array_size(syms), want);
        if (strcmp(json_string_value(json_object_get(o, "language")), f->lang) != 0)
            FAIL("%s: outline says %s", f->path, json_string_value(json_object_get(o, "language")));
        char name[300];
        snprintf(name, sizeof(name), "%s", json_string_value(json_object_get(json_array_get(syms, 0), "name")));
        json_decref(o);
        json_t *r = mg_fx_run_json(NULL, home,
                                   (const char *const[]){"search", name, "--mode", "symbol", "--repo", "langs",
                                                         "--lang", f->lang, "--json", NULL});
        json_t *res = json_object_get(r, "results");
        bool found = false;
        for (size_t k = 0; k < json_array_size(res); k++) {
            const char *path = json_string_value(json_object_get(json_array_get(res, k), "path"));
            found |= path && strcmp(path, f->path) == 0;
        }
        if (!found) FAIL("%s: symbol search for '%s' does not find it: %s", f->path, name, json_dumps(r, 0));
        json_decref(r);
    }
}

/* Random bytes, unbalanced brackets, keywords and pieces of the fixture
 * through every new grammar: the walk stays bounded and every range valid. */
TEST_T(defs_langs_hostile, 300)
{
    static const char *const shapes[] = {"(((((((((((", "{{{{{{{{{{", "class class class", "def def(def", "\"\"\"'''"};
    uint64_t seed = 42;
    char buf[4096];
    for (size_t i = 0; i < NFIX; i++) {
        const struct mg_lang *l = mg_lang_for_path(fixtures[i].path);
        for (int round = 0; round < 20; round++) {
            size_t len = 0;
            while (len < sizeof(buf) - 64) {
                seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
                uint32_t r = (uint32_t)(seed >> 33);
                if (r % 7 == 0) {
                    const char *s = shapes[r % 5];
                    memcpy(buf + len, s, strlen(s));
                    len += strlen(s);
                } else if (r % 7 < 4) {
                    size_t fl = strlen(fixtures[i].src), at = r % fl, k = (r >> 8) % 48;
                    if (at + k > fl) k = fl - at;
                    memcpy(buf + len, fixtures[i].src + at, k);
                    len += k;
                } else {
                    buf[len++] = (char)(r >> 16);
                }
            }
            free(defs_of(l, buf, len));
        }
    }
}
