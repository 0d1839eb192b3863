/* test_defs.c — the definition extractor (src/index/defs.c).
 *
 * Sections:
 *   1. Helpers    parse, line numbers, invariants every result must keep,
 *                 comparison with an expected list, the outline helper
 *   2. Fixtures   one realistic file per language and its exact definitions
 *   3. Tests      per language; outline == full; hostile input (empty, braces,
 *                 random bytes, deep nesting); long names; wrong grammar;
 *                 threads; the 1,000,000-definition cap
 */
#include "test.h"

#include <pthread.h>
#include <tree_sitter/api.h>

#include "index/defs.h"
#include "index/lang.h"

/* ---- 1. Helpers ---------------------------------------------------------- */

struct want {
    const char *name, *kind, *container; /* container NULL: none */
    int first, last;                     /* 1-based lines of start and end - 1 */
    int parent;
    int is_container;
};

static TSTree *parse(const struct mg_lang *l, const char *src, size_t len)
{
    TSParser *p = ts_parser_new();
    ASSERT(p != NULL);
    ASSERT(ts_parser_set_language(p, l->grammar()));
    TSTree *t = ts_parser_parse_string(p, NULL, src, (uint32_t)len);
    ts_parser_delete(p);
    if (!t) FAIL("tree-sitter returned no tree (%s)", l->name);
    return t;
}

static int line_at(const char *src, uint32_t off)
{
    int line = 1;
    for (uint32_t i = 0; i < off; i++) line += src[i] == '\n';
    return line;
}

static int last_line(const char *src, const struct mg_def *d)
{
    return line_at(src, d->end > d->start ? d->end - 1 : d->start);
}

static bool known_kind(const char *k)
{
    static const char *const kinds[] = {
        MG_KIND_FUNCTION, MG_KIND_METHOD, MG_KIND_CONSTRUCTOR, MG_KIND_CLASS, MG_KIND_STRUCT,
        MG_KIND_UNION,    MG_KIND_ENUM,   MG_KIND_INTERFACE,   MG_KIND_TRAIT, MG_KIND_IMPL,
        MG_KIND_TYPE,     MG_KIND_MODULE, MG_KIND_MACRO,       MG_KIND_PROTOTYPE, MG_KIND_VARIABLE,
        MG_KIND_FIELD,    MG_KIND_ENUMERATOR,
    };
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
        if (k && strcmp(k, kinds[i]) == 0) return true;
    return false;
}

/* What every result must keep, whatever the input. */
static void check_invariants(const struct mg_defs *d, size_t len)
{
    for (size_t i = 0; i < d->n; i++) {
        const struct mg_def *v = &d->v[i];
        if (!v->name || !v->name[0] || strlen(v->name) > 256) FAIL("def %zu: bad name", i);
        if (!known_kind(v->kind)) FAIL("def %zu (%s): unknown kind", i, v->name);
        if (v->start > v->end || v->end > len)
            FAIL("def %zu (%s): range %u..%u of %zu", i, v->name, v->start, v->end, len);
        if (i > 0 && v->start < d->v[i - 1].start) FAIL("def %zu (%s): out of order", i, v->name);
        if (v->parent < -1 || v->parent >= (int)i) FAIL("def %zu (%s): parent %d", i, v->name, v->parent);
        if (v->parent >= 0) {
            const struct mg_def *p = &d->v[v->parent];
            if (!v->container) FAIL("def %zu (%s): parent but no container", i, v->name);
            if (v->start < p->start || v->end > p->end)
                FAIL("def %zu (%s): %u..%u outside its parent %u..%u", i, v->name, v->start, v->end,
                     p->start, p->end);
        }
        if (v->container && strlen(v->container) > 256) FAIL("def %zu: container too long", i);
    }
}

static int extract(const struct mg_lang *l, TSTree *t, const char *src, size_t len,
                   struct mg_defs *d)
{
    memset(d, 0, sizeof(*d));
    int rc = mg_defs_extract(l, ts_tree_root_node(t), src, len, d);
    ASSERT_EQ_INT(rc, 0);
    check_invariants(d, len);
    return rc;
}

/* The result as C initialisers, for failure messages (and for updating a
 * fixture's expected list after a deliberate change). */
static char *describe(const struct mg_defs *d, const char *src)
{
    size_t cap = 256 + d->n * 640, n = 0;
    char *s = malloc(cap);
    ASSERT(s != NULL);
    s[0] = 0;
    for (size_t i = 0; i < d->n && n + 600 < cap; i++) {
        const struct mg_def *v = &d->v[i];
        n += (size_t)snprintf(s + n, cap - n, "\n    {\"%.256s\", \"%s\", %s%.256s%s, %d, %d, %d, %d},",
                              v->name, v->kind, v->container ? "\"" : "",
                              v->container ? v->container : "NULL", v->container ? "\"" : "",
                              line_at(src, v->start), last_line(src, v), v->parent,
                              v->is_container ? 1 : 0);
    }
    return s;
}

static void expect_defs(int lang_id, const char *src, const struct want *want, size_t nwant)
{
    const struct mg_lang *l = mg_lang_by_id(lang_id);
    size_t len = strlen(src);
    TSTree *t = parse(l, src, len);
    struct mg_defs d;
    extract(l, t, src, len, &d);
    bool ok = d.n == nwant;
    for (size_t i = 0; ok && i < nwant; i++) {
        const struct mg_def *v = &d.v[i];
        const struct want *w = &want[i];
        ok = strcmp(v->name, w->name) == 0 && strcmp(v->kind, w->kind) == 0 &&
             (w->container ? v->container && strcmp(v->container, w->container) == 0
                           : v->container == NULL) &&
             line_at(src, v->start) == w->first && last_line(src, v) == w->last &&
             v->parent == w->parent && v->is_container == (w->is_container != 0);
        if (!ok) fprintf(stderr, "first difference at def %zu (expected %s)\n", i, w->name);
    }
    if (!ok) FAIL("%s: %zu definitions, expected %zu; got:%s", l->name, d.n, nwant, describe(&d, src));
    mg_defs_release(&d);
    ASSERT(d.v == NULL && d.n == 0 && d.arena == NULL);
    ts_tree_delete(t);
}

#define EXPECT_DEFS(id, src, want) expect_defs((id), (src), (want), sizeof(want) / sizeof((want)[0]))

/* An outline as the indexer makes for C-family files: the bytes strictly
 * between the `{` and `}` of every function body are deleted (found with the
 * full tree). Bodies inside bodies go with their outer one. The cuts are
 * recorded so that outline offsets map back to the original. */
struct cuts {
    size_t n;
    uint32_t at[64];   /* outline offset right after the `{` */
    uint32_t gone[64]; /* bytes deleted there */
};

static uint32_t unoutline(const struct cuts *cuts, uint32_t off)
{
    uint32_t orig = off;
    for (size_t i = 0; i < cuts->n; i++)
        if (cuts->at[i] <= off) orig += cuts->gone[i];
    return orig;
}

static char *outline_of(const struct mg_lang *l, const char *src, size_t len, size_t *out_len,
                        struct cuts *cuts)
{
    static const char *const funcs[] = {"function_definition", "method_declaration",
                                        "constructor_declaration",
                                        "compact_constructor_declaration"};
    TSTree *t = parse(l, src, len);
    TSTreeCursor c = ts_tree_cursor_new(ts_tree_root_node(t));
    char *out = malloc(len + 1);
    size_t n = 0, copied = 0;
    ASSERT(out != NULL);
    cuts->n = 0;
    for (;;) {
        TSNode node = ts_tree_cursor_current_node(&c);
        bool is_func = false;
        for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++)
            is_func |= strcmp(ts_node_type(node), funcs[i]) == 0;
        TSNode body = is_func ? ts_node_child_by_field_name(node, "body", 4) : node;
        if (is_func && !ts_node_is_null(body)) {
            uint32_t s = ts_node_start_byte(body), e = ts_node_end_byte(body);
            if (e - s >= 2 && src[s] == '{' && src[e - 1] == '}' && s >= copied && cuts->n < 64) {
                memcpy(out + n, src + copied, s + 1 - copied);
                n += s + 1 - copied;
                copied = e - 1;
                cuts->at[cuts->n] = (uint32_t)n;
                cuts->gone[cuts->n++] = e - 2 - s;
            }
        }
        if (!is_func && ts_tree_cursor_goto_first_child(&c)) continue;
        while (!ts_tree_cursor_goto_next_sibling(&c))
            if (!ts_tree_cursor_goto_parent(&c)) goto done;
    }
done:
    memcpy(out + n, src + copied, len - copied);
    n += len - copied;
    out[n] = 0;
    ts_tree_cursor_delete(&c);
    ts_tree_delete(t);
    ASSERT_GE_INT(cuts->n, 3);
    *out_len = n;
    return out;
}

/* A fixed-seed generator, the same on every libc. */
static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Parse and extract; the result must keep the invariants. Returns the count. */
static size_t extract_count(int lang_id, const char *src, size_t len)
{
    const struct mg_lang *l = mg_lang_by_id(lang_id);
    TSTree *t = parse(l, src, len);
    struct mg_defs d;
    extract(l, t, src, len, &d);
    size_t n = d.n;
    mg_defs_release(&d);
    ts_tree_delete(t);
    return n;
}

/* ---- 2. Fixtures --------------------------------------------------------- */

/* C: macros, a typedef of an anonymous struct (its fields belong to the
 * typedef), a typedef whose struct has its own name (both count), struct and
 * union fields, enumerators, a function returning a pointer, #ifdef/#else
 * twins, a prototype, a function defined through a macro, a function
 * returning a function pointer. */
static const char c_src[] =
    "/* list.c - a small intrusive list */\n"
    "#include <stdlib.h>\n"
    "\n"
    "#define LIST_MAX 64\n"
    "#define list_entry(ptr, type) ((type *)(ptr))\n"
    "\n"
    "struct foo {\n"
    "\tint value;\n"
    "\tstruct foo *next;\n"
    "};\n"
    "\n"
    "typedef struct {\n"
    "\tint x, y;\n"
    "} point_t;\n"
    "\n"
    "typedef struct node {\n"
    "\tstruct node *next;\n"
    "} node_t;\n"
    "\n"
    "typedef int (*cmp_fn)(const void *, const void *);\n"
    "\n"
    "enum color { RED, GREEN, BLUE };\n"
    "\n"
    "union number {\n"
    "\tint i;\n"
    "\tdouble d;\n"
    "};\n"
    "\n"
    "int count_items(struct foo *head);\n"
    "\n"
    "static struct foo *bar(void)\n"
    "{\n"
    "\tstruct foo *local = malloc(sizeof(*local));\n"
    "\treturn local;\n"
    "}\n"
    "\n"
    "#ifdef CONFIG_DEBUG\n"
    "static void dump(const struct foo *f)\n"
    "{\n"
    "\t(void)f;\n"
    "}\n"
    "#else\n"
    "static inline void dump(const struct foo *f) { (void)f; }\n"
    "#endif\n"
    "\n"
    "#if defined(__GNUC__)\n"
    "__attribute__((noinline)) int count_items(struct foo *head)\n"
    "{\n"
    "\tint n = 0;\n"
    "\tfor (; head; head = head->next)\n"
    "\t\tn++;\n"
    "\treturn n;\n"
    "}\n"
    "#endif\n"
    "\n"
    "SYSCALL_DEFINE1(close, unsigned int, fd)\n"
    "{\n"
    "\treturn 0;\n"
    "}\n"
    "\n"
    "int (*pick(int k))(int)\n"
    "{\n"
    "\treturn 0;\n"
    "}\n";

static const struct want c_want[] = {
    /* name, kind, container, first line, last line, parent, is_container */
    {"LIST_MAX", "macro", NULL, 4, 4, -1, 0},
    {"list_entry", "macro", NULL, 5, 5, -1, 0},
    {"foo", "struct", NULL, 7, 10, -1, 0},
    {"value", "field", "foo", 8, 8, 2, 0},
    {"next", "field", "foo", 9, 9, 2, 0},
    {"point_t", "type", NULL, 12, 14, -1, 0},
    {"x", "field", "point_t", 13, 13, 5, 0},
    {"y", "field", "point_t", 13, 13, 5, 0},
    {"node_t", "type", NULL, 16, 18, -1, 0},
    {"node", "struct", NULL, 16, 18, -1, 0},
    {"next", "field", "node", 17, 17, 9, 0},
    {"cmp_fn", "type", NULL, 20, 20, -1, 0},
    {"color", "enum", NULL, 22, 22, -1, 0},
    {"RED", "enumerator", "color", 22, 22, 12, 0},
    {"GREEN", "enumerator", "color", 22, 22, 12, 0},
    {"BLUE", "enumerator", "color", 22, 22, 12, 0},
    {"number", "union", NULL, 24, 27, -1, 0},
    {"i", "field", "number", 25, 25, 16, 0},
    {"d", "field", "number", 26, 26, 16, 0},
    {"count_items", "prototype", NULL, 29, 29, -1, 0},
    {"bar", "function", NULL, 31, 35, -1, 0},
    {"dump", "function", NULL, 38, 41, -1, 0},
    {"dump", "function", NULL, 43, 43, -1, 0},
    {"count_items", "function", NULL, 47, 53, -1, 0},
    {"close", "function", NULL, 56, 59, -1, 0},
    {"pick", "function", NULL, 61, 64, -1, 0},
};

/* C declarations, as in a header: prototypes (returning a pointer, with an
 * attribute macro before them, extern, variadic, returning a function
 * pointer), variables (extern, array, a function pointer, several
 * declarators, one defined through a macro), a macro call standing alone (no
 * definition); fields of a struct with a bit field, a function pointer, an
 * anonymous union (its members belong to the field declared with it), a
 * nested named struct and an array; an anonymous struct's fields belong to
 * its typedef;
 * enumerators of a named, an anonymous and a typedef'd anonymous enum;
 * locals of a function are none. */
static const char c_decl_src[] =
    "/* ssl.h */\n"
    "#define SSL_F(x) ((x) + 1)\n"
    "#define SSL_MAX 16\n"
    "\n"
    "SSL_CTX *SSL_CTX_new(const SSL_METHOD *meth);\n"
    "int EVP_DigestInit(EVP_MD_CTX *ctx, const EVP_MD *type);\n"
    "__owur int SSL_check(void);\n"
    "OSSL_DEPRECATEDIN_3_0 int SSL_old(SSL *s, int n);\n"
    "extern int ssl_debug;\n"
    "extern void ssl_log(const char *fmt, ...);\n"
    "static const char *const names[] = {\"a\", \"b\"};\n"
    "int (*ssl_hook)(SSL *s);\n"
    "int (*pick(int k))(int);\n"
    "int a, *b, c(void);\n"
    "EXPORT_SYMBOL(ssl_log);\n"
    "static DEFINE_MUTEX(ssl_lock);\n"
    "\n"
    "struct ssl_st {\n"
    "\tint version;\n"
    "\tunsigned flags : 3, mode : 2;\n"
    "\tint (*callback)(struct ssl_st *s, int where);\n"
    "\tunion {\n"
    "\t\tlong l;\n"
    "\t\tvoid *p;\n"
    "\t} u;\n"
    "\tstruct ssl_sub {\n"
    "\t\tint depth;\n"
    "\t} sub;\n"
    "\tchar name[32];\n"
    "};\n"
    "\n"
    "typedef struct {\n"
    "\tint x, y;\n"
    "} point_t;\n"
    "\n"
    "enum ssl_state { SSL_ST_INIT, SSL_ST_OK = 3 };\n"
    "enum { SSL_ANON_A, SSL_ANON_B };\n"
    "typedef enum { TLS1, TLS2 } tls_version;\n"
    "\n"
    "int SSL_free(SSL *s)\n"
    "{\n"
    "\tint local = 0;\n"
    "\treturn local;\n"
    "}\n";

static const struct want c_decl_want[] = {
    /* name, kind, container, first line, last line, parent, is_container */
    {"SSL_F", "macro", NULL, 2, 2, -1, 0},
    {"SSL_MAX", "macro", NULL, 3, 3, -1, 0},
    {"SSL_CTX_new", "prototype", NULL, 5, 5, -1, 0},
    {"EVP_DigestInit", "prototype", NULL, 6, 6, -1, 0},
    {"SSL_check", "prototype", NULL, 7, 7, -1, 0},
    {"SSL_old", "prototype", NULL, 8, 8, -1, 0},
    {"ssl_debug", "variable", NULL, 9, 9, -1, 0},
    {"ssl_log", "prototype", NULL, 10, 10, -1, 0},
    {"names", "variable", NULL, 11, 11, -1, 0},
    {"ssl_hook", "variable", NULL, 12, 12, -1, 0},
    {"pick", "prototype", NULL, 13, 13, -1, 0},
    {"a", "variable", NULL, 14, 14, -1, 0},
    {"b", "variable", NULL, 14, 14, -1, 0},
    {"c", "prototype", NULL, 14, 14, -1, 0},
    {"ssl_lock", "variable", NULL, 16, 16, -1, 0},
    {"ssl_st", "struct", NULL, 18, 30, -1, 0},
    {"version", "field", "ssl_st", 19, 19, 15, 0},
    {"flags", "field", "ssl_st", 20, 20, 15, 0},
    {"mode", "field", "ssl_st", 20, 20, 15, 0},
    {"callback", "field", "ssl_st", 21, 21, 15, 0},
    {"u", "field", "ssl_st", 22, 25, 15, 0},
    {"l", "field", "u", 23, 23, 20, 0},
    {"p", "field", "u", 24, 24, 20, 0},
    {"sub", "field", "ssl_st", 26, 28, 15, 0},
    {"ssl_sub", "struct", "ssl_st", 26, 28, 15, 0},
    {"depth", "field", "ssl_sub", 27, 27, 24, 0},
    {"name", "field", "ssl_st", 29, 29, 15, 0},
    {"point_t", "type", NULL, 32, 34, -1, 0},
    {"x", "field", "point_t", 33, 33, 27, 0},
    {"y", "field", "point_t", 33, 33, 27, 0},
    {"ssl_state", "enum", NULL, 36, 36, -1, 0},
    {"SSL_ST_INIT", "enumerator", "ssl_state", 36, 36, 30, 0},
    {"SSL_ST_OK", "enumerator", "ssl_state", 36, 36, 30, 0},
    {"SSL_ANON_A", "enumerator", NULL, 37, 37, -1, 0},
    {"SSL_ANON_B", "enumerator", NULL, 37, 37, -1, 0},
    {"tls_version", "type", NULL, 38, 38, -1, 0},
    {"TLS1", "enumerator", "tls_version", 38, 38, 35, 0},
    {"TLS2", "enumerator", "tls_version", 38, 38, 35, 0},
    {"SSL_free", "function", NULL, 40, 44, -1, 0},
};

/* C declarations as the kernel writes them: attribute macros where the
 * parser wants a name (after it: `x __read_mostly`; before it: `__read_mostly
 * u64 x`; after a struct body: `} __packed;`, `} __aligned(8);`, `}
 * BPMP_ABI_PACKED;`) give the real name or nothing; a declaration the parser
 * cut short (`int __must_check` and a MISSING `;` on the last line) gives
 * nothing, not `__must_check`, and two macros in a row (`a[] __initdata
 * __maybe_unused`) leave the name before them; names starting with
 * `__` stay when they are names; members of an anonymous struct declared
 * with a name belong to that name. */
static const char c_kernel_src[] =
    "struct sk {\n"
    "\tspinlock_t lock ____cacheline_aligned_in_smp;\n"
    "\tstruct queue *rx ____cacheline_aligned_in_smp;\n"
    "\tint arr[4] __aligned(8);\n"
    "\tstruct { int a; } __packed inner;\n"
    "} __packed;\n"
    "struct hw { u64 addr; } __aligned(8);\n"
    "enum trace { T_A } __mode(byte);\n"
    "struct fw { u32 flags; } BPMP_ABI_PACKED;\n"
    "unsigned long tick_active __read_mostly;\n"
    "static int __read_mostly nr_pages = 1;\n"
    "int __must_check rose_add(int n);\n"
    "extern asmlinkage void __init start_kernel(void);\n"
    "void notrace __tramp_enter(struct tr *tr);\n"
    "__read_mostly u64 __clock_offset;\n"
    "extern int __boot_cpu_id;\n"
    "static struct { int depth; } state;\n"
    "EXPORT_SYMBOL(start_kernel);\n"
    "int __must_check rose_del(const rose_address *);\n"
    "static unsigned long pin_config[] __initdata __maybe_unused = {\n"
    "\t1, 2 };\n"
    "static pgd_t pgd_table[4] __initdata __aligned(PGD_SIZE);\n";

static const struct want c_kernel_want[] = {
    /* name, kind, container, first line, last line, parent, is_container */
    {"sk", "struct", NULL, 1, 6, -1, 0},
    {"lock", "field", "sk", 2, 2, 0, 0},
    {"rx", "field", "sk", 3, 3, 0, 0},
    {"arr", "field", "sk", 4, 4, 0, 0},
    {"inner", "field", "sk", 5, 5, 0, 0},
    {"a", "field", "inner", 5, 5, 4, 0},
    {"hw", "struct", NULL, 7, 7, -1, 0},
    {"addr", "field", "hw", 7, 7, 6, 0},
    {"trace", "enum", NULL, 8, 8, -1, 0},
    {"T_A", "enumerator", "trace", 8, 8, 8, 0},
    {"fw", "struct", NULL, 9, 9, -1, 0},
    {"flags", "field", "fw", 9, 9, 10, 0},
    {"tick_active", "variable", NULL, 10, 10, -1, 0},
    {"nr_pages", "variable", NULL, 11, 11, -1, 0},
    {"rose_add", "prototype", NULL, 12, 12, -1, 0},
    {"start_kernel", "prototype", NULL, 13, 13, -1, 0},
    {"__tramp_enter", "prototype", NULL, 14, 14, -1, 0},
    {"__clock_offset", "variable", NULL, 15, 15, -1, 0},
    {"__boot_cpu_id", "variable", NULL, 16, 16, -1, 0},
    {"state", "variable", NULL, 17, 17, -1, 0},
    {"depth", "field", "state", 17, 17, 19, 0},
    {"pin_config", "variable", NULL, 20, 20, -1, 0},
    {"pgd_table", "variable", NULL, 22, 22, -1, 0},
};

/* C++ declarations: in a namespace (variable, prototype: container the
 * namespace); in a class, a constructor and a destructor declared, a pure
 * virtual (prototypes), a method defined inline, a static member and data
 * members with an initializer (fields), a conversion operator declared, a
 * friend (none), a nested enum (enumerators: container the enum), a member
 * template declared (range from `template`); a static member defined out of
 * class (variable, container the class); a struct on one line; a method
 * defined out of class returning a reference. */
static const char cpp_decl_src[] =
    "namespace gfx {\n"
    "extern int frame_count;\n"
    "int draw(int x);\n"
    "class Shape {\n"
    "public:\n"
    "    Shape(int n);\n"
    "    virtual ~Shape();\n"
    "    virtual double area() const = 0;\n"
    "    int sides() const { return n_; }\n"
    "    static int count;\n"
    "    operator bool() const;\n"
    "    friend bool operator==(const Shape &a, const Shape &b);\n"
    "    enum Kind { Round, Square };\n"
    "private:\n"
    "    int n_ = 0, *p_;\n"
    "    template <typename T>\n"
    "    T as() const;\n"
    "};\n"
    "int Shape::count = 0;\n"
    "}\n"
    "struct Vec { float x, y; Vec &operator+=(const Vec &o); };\n"
    "const int kMax = 4;\n"
    "Vec &Vec::operator+=(const Vec &o)\n"
    "{\n"
    "    return *this;\n"
    "}\n";

static const struct want cpp_decl_want[] = {
    /* name, kind, container, first line, last line, parent, is_container */
    {"gfx", "module", NULL, 1, 20, -1, 1},
    {"frame_count", "variable", "gfx", 2, 2, 0, 0},
    {"draw", "prototype", "gfx", 3, 3, 0, 0},
    {"Shape", "class", "gfx", 4, 18, 0, 1},
    {"Shape", "prototype", "Shape", 6, 6, 3, 0},
    {"~Shape", "prototype", "Shape", 7, 7, 3, 0},
    {"area", "prototype", "Shape", 8, 8, 3, 0},
    {"sides", "method", "Shape", 9, 9, 3, 0},
    {"count", "field", "Shape", 10, 10, 3, 0},
    {"operator bool", "prototype", "Shape", 11, 11, 3, 0},
    {"Kind", "enum", "Shape", 13, 13, 3, 0},
    {"Round", "enumerator", "Kind", 13, 13, 10, 0},
    {"Square", "enumerator", "Kind", 13, 13, 10, 0},
    {"n_", "field", "Shape", 15, 15, 3, 0},
    {"p_", "field", "Shape", 15, 15, 3, 0},
    {"as", "prototype", "Shape", 16, 17, 3, 0},
    {"count", "variable", "Shape", 19, 19, 0, 0},
    {"Vec", "struct", NULL, 21, 21, -1, 1},
    {"x", "field", "Vec", 21, 21, 17, 0},
    {"y", "field", "Vec", 21, 21, 17, 0},
    {"operator+=", "prototype", "Vec", 21, 21, 17, 0},
    {"kMax", "variable", NULL, 22, 22, -1, 0},
    {"operator+=", "method", "Vec", 23, 26, -1, 0},
};

/* C++: nested namespaces, a class with constructor, a destructor declared
 * (prototype), inline methods, an operator, a nested struct and a member
 * template, data members (fields); out-of-class destructor
 * and method (container = qualifier), a fully qualified a::b::C::m, template
 * function and class (range from `template`), anonymous namespace. */
static const char cpp_src[] =
    "#include <string>\n"
    "#include <vector>\n"
    "\n"
    "#define CHECK(x) do { if (!(x)) abort(); } while (0)\n"
    "\n"
    "namespace app {\n"
    "namespace net {\n"
    "\n"
    "class Socket : public Base {\n"
    "public:\n"
    "    Socket(int fd) : fd_(fd) {}\n"
    "    ~Socket();\n"
    "    int fd() const { return fd_; }\n"
    "    bool operator==(const Socket &o) const { return fd_ == o.fd_; }\n"
    "    struct Stats {\n"
    "        long bytes;\n"
    "        void reset() { bytes = 0; }\n"
    "    };\n"
    "    template <typename T> T as() const { return T(fd_); }\n"
    "private:\n"
    "    int fd_;\n"
    "};\n"
    "\n"
    "Socket::~Socket() {}\n"
    "\n"
    "void Socket::send(const std::string &data)\n"
    "{\n"
    "    write(fd_, data.data(), data.size());\n"
    "}\n"
    "\n"
    "} // namespace net\n"
    "} // namespace app\n"
    "\n"
    "void app::net::Socket::close() { fd_ = -1; }\n"
    "\n"
    "template <typename T>\n"
    "T max_of(T a, T b)\n"
    "{\n"
    "    return a > b ? a : b;\n"
    "}\n"
    "\n"
    "template <typename T>\n"
    "class Box {\n"
    "    T value;\n"
    "};\n"
    "\n"
    "struct Point {\n"
    "    int x, y;\n"
    "    Point operator+(const Point &o) const { return {x + o.x, y + o.y}; }\n"
    "};\n"
    "\n"
    "enum class Mode { Read, Write };\n"
    "using Bytes = std::vector<unsigned char>;\n"
    "typedef unsigned long ulong_t;\n"
    "\n"
    "namespace {\n"
    "int helper() { return 1; }\n"
    "}\n"
    "\n"
    "int main()\n"
    "{\n"
    "    return max_of(1, 2);\n"
    "}\n";

static const struct want cpp_want[] = {
    /* name, kind, container, first line, last line, parent, is_container */
    {"CHECK", "macro", NULL, 4, 4, -1, 0},
    {"app", "module", NULL, 6, 32, -1, 1},
    {"net", "module", "app", 7, 31, 1, 1},
    {"Socket", "class", "net", 9, 22, 2, 1},
    {"Socket", "constructor", "Socket", 11, 11, 3, 0},
    {"~Socket", "prototype", "Socket", 12, 12, 3, 0},
    {"fd", "method", "Socket", 13, 13, 3, 0},
    {"operator==", "method", "Socket", 14, 14, 3, 0},
    {"Stats", "struct", "Socket", 15, 18, 3, 1},
    {"bytes", "field", "Stats", 16, 16, 8, 0},
    {"reset", "method", "Stats", 17, 17, 8, 0},
    {"as", "method", "Socket", 19, 19, 3, 0},
    {"fd_", "field", "Socket", 21, 21, 3, 0},
    {"~Socket", "method", "Socket", 24, 24, 2, 0},
    {"send", "method", "Socket", 26, 29, 2, 0},
    {"close", "method", "app::net::Socket", 34, 34, -1, 0},
    {"max_of", "function", NULL, 36, 40, -1, 0},
    {"Box", "class", NULL, 42, 45, -1, 1},
    {"value", "field", "Box", 44, 44, 17, 0},
    {"Point", "struct", NULL, 47, 50, -1, 1},
    {"x", "field", "Point", 48, 48, 19, 0},
    {"y", "field", "Point", 48, 48, 19, 0},
    {"operator+", "method", "Point", 49, 49, 19, 0},
    {"Mode", "enum", NULL, 52, 52, -1, 0},
    {"Read", "enumerator", "Mode", 52, 52, 23, 0},
    {"Write", "enumerator", "Mode", 52, 52, 23, 0},
    {"Bytes", "type", NULL, 53, 53, -1, 0},
    {"ulong_t", "type", NULL, 54, 54, -1, 0},
    {"helper", "function", NULL, 57, 57, -1, 0},
    {"main", "function", NULL, 60, 63, -1, 0},
};

/* Go: struct/interface/type specs (grouped specs get their own range),
 * pointer and generic receivers, a generic function. */
static const char go_src[] =
    "// Package store keeps items in memory.\n"
    "package store\n"
    "\n"
    "import (\n"
    "\t\"fmt\"\n"
    "\t\"sync\"\n"
    ")\n"
    "\n"
    "// Store keeps items.\n"
    "type Store struct {\n"
    "\tmu    sync.Mutex\n"
    "\titems map[string]int\n"
    "}\n"
    "\n"
    "type Getter interface {\n"
    "\tGet(key string) (int, bool)\n"
    "}\n"
    "\n"
    "type (\n"
    "\tID    int\n"
    "\tAlias = string\n"
    ")\n"
    "\n"
    "type List[T any] struct {\n"
    "\titems []T\n"
    "}\n"
    "\n"
    "func New() *Store {\n"
    "\treturn &Store{items: map[string]int{}}\n"
    "}\n"
    "\n"
    "func (s *Store) Get(key string) (int, bool) {\n"
    "\ts.mu.Lock()\n"
    "\tdefer s.mu.Unlock()\n"
    "\tv, ok := s.items[key]\n"
    "\treturn v, ok\n"
    "}\n"
    "\n"
    "func (s Store) String() string {\n"
    "\treturn fmt.Sprint(len(s.items))\n"
    "}\n"
    "\n"
    "func (l *List[T]) Push(v T) {\n"
    "\tl.items = append(l.items, v)\n"
    "}\n"
    "\n"
    "func Map[T, U any](xs []T, f func(T) U) []U {\n"
    "\tout := make([]U, 0, len(xs))\n"
    "\tfor _, x := range xs {\n"
    "\t\tout = append(out, f(x))\n"
    "\t}\n"
    "\treturn out\n"
    "}\n"
    "\n"
    "var handler = func() {}\n";

static const struct want go_want[] = {
    /* name, kind, container, first line, last line, parent, is_container */
    {"Store", "struct", NULL, 10, 13, -1, 0},
    {"mu", "field", "Store", 11, 11, 0, 0},
    {"items", "field", "Store", 12, 12, 0, 0},
    {"Getter", "interface", NULL, 15, 17, -1, 0},
    {"Get", "method", "Getter", 16, 16, 3, 0},
    {"ID", "type", NULL, 20, 20, -1, 0},
    {"Alias", "type", NULL, 21, 21, -1, 0},
    {"List", "struct", NULL, 24, 26, -1, 0},
    {"items", "field", "List", 25, 25, 7, 0},
    {"New", "function", NULL, 28, 30, -1, 0},
    {"Get", "method", "Store", 32, 37, -1, 0},
    {"String", "method", "Store", 39, 41, -1, 0},
    {"Push", "method", "List", 43, 45, -1, 0},
    {"Map", "function", NULL, 47, 53, -1, 0},
    {"handler", "variable", NULL, 55, 55, -1, 0},
};

/* Java: annotated class, constructor, nested class and enum, interface with
 * abstract and default methods, record with compact constructor, annotation
 * type; an anonymous class body holds no definitions. */
static const char java_src[] =
    "package com.example.shop;\n"
    "\n"
    "import java.util.List;\n"
    "\n"
    "/** An order. */\n"
    "@Entity\n"
    "public class Order implements Comparable<Order> {\n"
    "    private final List<Item> items;\n"
    "\n"
    "    public Order(List<Item> items) {\n"
    "        this.items = items;\n"
    "    }\n"
    "\n"
    "    @Override\n"
    "    public int compareTo(Order other) {\n"
    "        return Integer.compare(total(), other.total());\n"
    "    }\n"
    "\n"
    "    int total() {\n"
    "        int t = 0;\n"
    "        for (Item i : items) {\n"
    "            t += i.price();\n"
    "        }\n"
    "        return t;\n"
    "    }\n"
    "\n"
    "    static class Item {\n"
    "        int price() { return 1; }\n"
    "    }\n"
    "\n"
    "    enum Status {\n"
    "        OPEN, CLOSED;\n"
    "\n"
    "        boolean done() { return this == CLOSED; }\n"
    "    }\n"
    "}\n"
    "\n"
    "interface Repo<T> {\n"
    "    T find(long id);\n"
    "\n"
    "    default void save(T t) {\n"
    "    }\n"
    "}\n"
    "\n"
    "record Pair(String a, String b) {\n"
    "    Pair {\n"
    "        java.util.Objects.requireNonNull(a);\n"
    "    }\n"
    "\n"
    "    String joined() { return a + b; }\n"
    "}\n"
    "\n"
    "@interface Audit {\n"
    "    String value();\n"
    "}\n"
    "\n"
    "class Anon {\n"
    "    Runnable r = new Runnable() {\n"
    "        public void run() {\n"
    "        }\n"
    "    };\n"
    "}\n";

static const struct want java_want[] = {
    /* name, kind, container, first line, last line, parent, is_container */
    {"Order", "class", NULL, 6, 36, -1, 1},
    {"items", "field", "Order", 8, 8, 0, 0},
    {"Order", "constructor", "Order", 10, 12, 0, 0},
    {"compareTo", "method", "Order", 14, 17, 0, 0},
    {"total", "method", "Order", 19, 25, 0, 0},
    {"Item", "class", "Order", 27, 29, 0, 1},
    {"price", "method", "Item", 28, 28, 5, 0},
    {"Status", "enum", "Order", 31, 35, 0, 1},
    {"OPEN", "enumerator", "Status", 32, 32, 7, 0},
    {"CLOSED", "enumerator", "Status", 32, 32, 7, 0},
    {"done", "method", "Status", 34, 34, 7, 0},
    {"Repo", "interface", NULL, 38, 43, -1, 1},
    {"find", "method", "Repo", 39, 39, 11, 0},
    {"save", "method", "Repo", 41, 42, 11, 0},
    {"Pair", "class", NULL, 45, 51, -1, 1},
    {"a", "field", "Pair", 45, 45, 14, 0},
    {"b", "field", "Pair", 45, 45, 14, 0},
    {"Pair", "constructor", "Pair", 46, 48, 14, 0},
    {"joined", "method", "Pair", 50, 50, 14, 0},
    {"Audit", "interface", NULL, 53, 55, -1, 1},
    {"Anon", "class", NULL, 57, 62, -1, 1},
    {"r", "field", "Anon", 58, 61, 20, 0},
};

/* JavaScript: nested function, generator, arrow and function-expression
 * variables, class with constructor/getter/static/arrow field, exports,
 * anonymous default class (members only), a function inside an IIFE; locals
 * inside functions are not definitions. */
static const char javascript_src[] =
    "'use strict';\n"
    "const path = require('path');\n"
    "\n"
    "function greet(name) {\n"
    "  function shout(s) {\n"
    "    return s.toUpperCase();\n"
    "  }\n"
    "  return shout('hi ' + name);\n"
    "}\n"
    "\n"
    "function* ids() {\n"
    "  yield 1;\n"
    "}\n"
    "\n"
    "async function load(url) {\n"
    "  return fetch(url);\n"
    "}\n"
    "\n"
    "const add = (a, b) => a + b;\n"
    "let mul = function (a, b) {\n"
    "  return a * b;\n"
    "};\n"
    "const config = { debug: true };\n"
    "\n"
    "class Animal extends Base {\n"
    "  static count = 0;\n"
    "  constructor(name) {\n"
    "    super();\n"
    "    this.name = name;\n"
    "  }\n"
    "  speak() {\n"
    "    return this.name;\n"
    "  }\n"
    "  get label() { return this.name; }\n"
    "  static create() { return new Animal('x'); }\n"
    "  handle = () => this.speak();\n"
    "}\n"
    "\n"
    "export function exported(x) {\n"
    "  return x;\n"
    "}\n"
    "\n"
    "export const arrow = async (x) => {\n"
    "  const inner = () => x;\n"
    "  return inner();\n"
    "};\n"
    "\n"
    "export default class {\n"
    "  run() {}\n"
    "}\n"
    "\n"
    "(function () {\n"
    "  function hidden() {}\n"
    "})();\n"
    "\n"
    "module.exports = { greet };\n";

static const struct want javascript_want[] = {
    /* name, kind, container, first line, last line, parent, is_container */
    {"path", "variable", NULL, 2, 2, -1, 0},
    {"greet", "function", NULL, 4, 9, -1, 0},
    {"shout", "function", "greet", 5, 7, 1, 0},
    {"ids", "function", NULL, 11, 13, -1, 0},
    {"load", "function", NULL, 15, 17, -1, 0},
    {"add", "function", NULL, 19, 19, -1, 0},
    {"mul", "function", NULL, 20, 22, -1, 0},
    {"config", "variable", NULL, 23, 23, -1, 0},
    {"Animal", "class", NULL, 25, 37, -1, 1},
    {"count", "field", "Animal", 26, 26, 8, 0},
    {"constructor", "constructor", "Animal", 27, 30, 8, 0},
    {"speak", "method", "Animal", 31, 33, 8, 0},
    {"label", "method", "Animal", 34, 34, 8, 0},
    {"create", "method", "Animal", 35, 35, 8, 0},
    {"handle", "method", "Animal", 36, 36, 8, 0},
    {"exported", "function", NULL, 39, 41, -1, 0},
    {"arrow", "function", NULL, 43, 46, -1, 0},
    {"run", "method", NULL, 49, 49, -1, 0},
    {"hidden", "function", NULL, 53, 53, -1, 0},
};

/* Python: nested function, class with decorated methods (range includes the
 * decorators), nested class, decorated class, defs under if/try. */
static const char python_src[] =
    "\"\"\"Inventory helpers.\"\"\"\n"
    "import functools\n"
    "\n"
    "\n"
    "def top(a, b=1):\n"
    "    def inner(x):\n"
    "        return x * 2\n"
    "    return inner(a) + b\n"
    "\n"
    "\n"
    "class Base(object):\n"
    "    \"\"\"A base.\"\"\"\n"
    "\n"
    "    attr = 3\n"
    "\n"
    "    def __init__(self, v):\n"
    "        self.v = v\n"
    "\n"
    "    @property\n"
    "    def value(self):\n"
    "        return self.v\n"
    "\n"
    "    @staticmethod\n"
    "    @functools.lru_cache(maxsize=None)\n"
    "    def cached(k):\n"
    "        return k\n"
    "\n"
    "    class Meta:\n"
    "        ordering = [\"v\"]\n"
    "\n"
    "    async def fetch(self):\n"
    "        return await self.v\n"
    "\n"
    "\n"
    "@functools.total_ordering\n"
    "class Derived(Base):\n"
    "    def __lt__(self, other):\n"
    "        return self.v < other.v\n"
    "\n"
    "\n"
    "if True:\n"
    "    def conditional():\n"
    "        pass\n"
    "\n"
    "try:\n"
    "    import fast\n"
    "except ImportError:\n"
    "    def fast():\n"
    "        return None\n"
    "\n"
    "handler = lambda x: x\n";

static const struct want python_want[] = {
    /* name, kind, container, first line, last line, parent, is_container */
    {"top", "function", NULL, 5, 8, -1, 0},
    {"inner", "function", "top", 6, 7, 0, 0},
    {"Base", "class", NULL, 11, 32, -1, 1},
    {"attr", "field", "Base", 14, 14, 2, 0},
    {"__init__", "method", "Base", 16, 17, 2, 0},
    {"value", "method", "Base", 19, 21, 2, 0},
    {"cached", "method", "Base", 23, 26, 2, 0},
    {"Meta", "class", "Base", 28, 29, 2, 1},
    {"ordering", "field", "Meta", 29, 29, 7, 0},
    {"fetch", "method", "Base", 31, 32, 2, 0},
    {"Derived", "class", NULL, 35, 38, -1, 1},
    {"__lt__", "method", "Derived", 37, 38, 10, 0},
    {"conditional", "function", NULL, 42, 43, -1, 0},
    {"fast", "function", NULL, 48, 49, -1, 0},
    {"handler", "function", NULL, 51, 51, -1, 0},
};

/* Rust: attributes are part of an item, trait with a signature and a
 * default method, inherent impl, `impl Trait for Type`, generic impl
 * (generics stripped), mod with a body (not `mod x;`), macro_rules!, a nested
 * fn; extern block signatures are not definitions. */
static const char rust_src[] =
    "use std::fmt;\n"
    "\n"
    "/// A point.\n"
    "#[derive(Debug, Clone)]\n"
    "pub struct Point {\n"
    "    x: i32,\n"
    "    y: i32,\n"
    "}\n"
    "\n"
    "pub enum Shape {\n"
    "    Circle(f64),\n"
    "    Square(f64),\n"
    "}\n"
    "\n"
    "union Bits {\n"
    "    i: u32,\n"
    "    f: f32,\n"
    "}\n"
    "\n"
    "pub trait Area {\n"
    "    fn area(&self) -> f64;\n"
    "    fn describe(&self) -> String {\n"
    "        format!(\"{}\", self.area())\n"
    "    }\n"
    "}\n"
    "\n"
    "impl Point {\n"
    "    pub fn new(x: i32, y: i32) -> Self {\n"
    "        Point { x, y }\n"
    "    }\n"
    "}\n"
    "\n"
    "impl fmt::Display for Point {\n"
    "    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {\n"
    "        write!(f, \"({}, {})\", self.x, self.y)\n"
    "    }\n"
    "}\n"
    "\n"
    "impl<T: Clone> Area for Wrapper<T> {\n"
    "    fn area(&self) -> f64 {\n"
    "        0.0\n"
    "    }\n"
    "}\n"
    "\n"
    "type Result2<T> = std::result::Result<T, String>;\n"
    "\n"
    "#[cfg(test)]\n"
    "mod tests {\n"
    "    #[test]\n"
    "    fn it_works() {}\n"
    "}\n"
    "\n"
    "mod external;\n"
    "\n"
    "macro_rules! square {\n"
    "    ($x:expr) => {\n"
    "        $x * $x\n"
    "    };\n"
    "}\n"
    "\n"
    "fn main() {\n"
    "    fn nested() {}\n"
    "    let p = Point::new(1, 2);\n"
    "}\n"
    "\n"
    "const MAX: usize = 10;\n"
    "extern \"C\" {\n"
    "    fn abs(x: i32) -> i32;\n"
    "}\n";

static const struct want rust_want[] = {
    /* name, kind, container, first line, last line, parent, is_container */
    {"Point", "struct", NULL, 4, 8, -1, 0},
    {"x", "field", "Point", 6, 6, 0, 0},
    {"y", "field", "Point", 7, 7, 0, 0},
    {"Shape", "enum", NULL, 10, 13, -1, 0},
    {"Circle", "enumerator", "Shape", 11, 11, 3, 0},
    {"Square", "enumerator", "Shape", 12, 12, 3, 0},
    {"Bits", "union", NULL, 15, 18, -1, 0},
    {"i", "field", "Bits", 16, 16, 6, 0},
    {"f", "field", "Bits", 17, 17, 6, 0},
    {"Area", "trait", NULL, 20, 25, -1, 1},
    {"area", "method", "Area", 21, 21, 9, 0},
    {"describe", "method", "Area", 22, 24, 9, 0},
    {"Point", "impl", NULL, 27, 31, -1, 1},
    {"new", "method", "Point", 28, 30, 12, 0},
    {"Point", "impl", NULL, 33, 37, -1, 1},
    {"fmt", "method", "Point", 34, 36, 14, 0},
    {"Wrapper", "impl", NULL, 39, 43, -1, 1},
    {"area", "method", "Wrapper", 40, 42, 16, 0},
    {"Result2", "type", NULL, 45, 45, -1, 0},
    {"tests", "module", NULL, 47, 51, -1, 1},
    {"it_works", "function", "tests", 49, 50, 19, 0},
    {"square", "macro", NULL, 55, 59, -1, 0},
    {"main", "function", NULL, 61, 64, -1, 0},
    {"nested", "function", "main", 62, 62, 22, 0},
    {"MAX", "variable", NULL, 66, 66, -1, 0},
};

/* TypeScript: exported interface/arrow function, type alias, enum,
 * decorated exported class with constructor, decorated method and arrow field,
 * abstract class (abstract signature skipped), namespace, ambient module,
 * overload signatures (skipped). */
static const char typescript_src[] =
    "import { Injectable } from './di';\n"
    "\n"
    "export interface User {\n"
    "  id: number;\n"
    "  name: string;\n"
    "}\n"
    "\n"
    "type ID = string | number;\n"
    "\n"
    "enum Role {\n"
    "  Admin,\n"
    "  Guest,\n"
    "}\n"
    "\n"
    "export const fetchUser = async (id: ID): Promise<User> => {\n"
    "  return api.get(id);\n"
    "};\n"
    "\n"
    "export function isAdmin(u: User): boolean {\n"
    "  return u.id === 0;\n"
    "}\n"
    "\n"
    "@Injectable()\n"
    "export class UserService<T> implements Service {\n"
    "  private cache = new Map<ID, User>();\n"
    "\n"
    "  constructor(private readonly http: Http) {}\n"
    "\n"
    "  @Memo()\n"
    "  async get(id: ID): Promise<User> {\n"
    "    return this.http.get(id);\n"
    "  }\n"
    "\n"
    "  onChange = (u: User): void => {\n"
    "    this.cache.set(u.id, u);\n"
    "  };\n"
    "}\n"
    "\n"
    "export abstract class Shape {\n"
    "  abstract area(): number;\n"
    "  describe(): string {\n"
    "    return `${this.area()}`;\n"
    "  }\n"
    "}\n"
    "\n"
    "namespace Geometry {\n"
    "  export function dist(): number {\n"
    "    return 0;\n"
    "  }\n"
    "}\n"
    "\n"
    "declare module 'ext' {\n"
    "  export function ext(): void;\n"
    "}\n"
    "\n"
    "export type Handler = (u: User) => void;\n"
    "function overload(a: string): void;\n"
    "function overload(a: any) {}\n";

static const struct want typescript_want[] = {
    /* name, kind, container, first line, last line, parent, is_container */
    {"User", "interface", NULL, 3, 6, -1, 0},
    {"id", "field", "User", 4, 4, 0, 0},
    {"name", "field", "User", 5, 5, 0, 0},
    {"ID", "type", NULL, 8, 8, -1, 0},
    {"Role", "enum", NULL, 10, 13, -1, 0},
    {"Admin", "enumerator", "Role", 11, 11, 4, 0},
    {"Guest", "enumerator", "Role", 12, 12, 4, 0},
    {"fetchUser", "function", NULL, 15, 17, -1, 0},
    {"isAdmin", "function", NULL, 19, 21, -1, 0},
    {"UserService", "class", NULL, 23, 37, -1, 1},
    {"cache", "field", "UserService", 25, 25, 9, 0},
    {"constructor", "constructor", "UserService", 27, 27, 9, 0},
    {"http", "field", "UserService", 27, 27, 9, 0},
    {"get", "method", "UserService", 29, 32, 9, 0},
    {"onChange", "method", "UserService", 34, 36, 9, 0},
    {"Shape", "class", NULL, 39, 44, -1, 1},
    {"describe", "method", "Shape", 41, 43, 15, 0},
    {"Geometry", "module", NULL, 46, 50, -1, 1},
    {"dist", "function", "Geometry", 47, 49, 17, 0},
    {"ext", "module", NULL, 52, 54, -1, 1},
    {"Handler", "type", NULL, 56, 56, -1, 0},
    {"overload", "function", NULL, 58, 58, -1, 0},
};

/* TSX: a React file — props interface, arrow and function components with
 * JSX, a default-exported class component. */
static const char tsx_src[] =
    "import React, { useState } from 'react';\n"
    "\n"
    "interface Props {\n"
    "  title: string;\n"
    "  onClose?: () => void;\n"
    "}\n"
    "\n"
    "export const Dialog = ({ title, onClose }: Props) => {\n"
    "  const [open, setOpen] = useState(true);\n"
    "  return (\n"
    "    <div className=\"dialog\">\n"
    "      <h1>{title}</h1>\n"
    "      <button onClick={() => setOpen(!open)}>x</button>\n"
    "    </div>\n"
    "  );\n"
    "};\n"
    "\n"
    "export function Button(props: { label: string }) {\n"
    "  return <button>{props.label}</button>;\n"
    "}\n"
    "\n"
    "export default class Panel extends React.Component<Props> {\n"
    "  state = { expanded: false };\n"
    "\n"
    "  toggle = () => {\n"
    "    this.setState({ expanded: !this.state.expanded });\n"
    "  };\n"
    "\n"
    "  render() {\n"
    "    return <section onClick={this.toggle}>{this.props.title}</section>;\n"
    "  }\n"
    "}\n"
    "\n"
    "type Theme = 'light' | 'dark';\n";

static const struct want tsx_want[] = {
    /* name, kind, container, first line, last line, parent, is_container */
    {"Props", "interface", NULL, 3, 6, -1, 0},
    {"title", "field", "Props", 4, 4, 0, 0},
    {"onClose", "field", "Props", 5, 5, 0, 0},
    {"Dialog", "function", NULL, 8, 16, -1, 0},
    {"Button", "function", NULL, 18, 20, -1, 0},
    {"Panel", "class", NULL, 22, 32, -1, 1},
    {"state", "field", "Panel", 23, 23, 5, 0},
    {"toggle", "method", "Panel", 25, 27, 5, 0},
    {"render", "method", "Panel", 29, 31, 5, 0},
    {"Theme", "type", NULL, 34, 34, -1, 0},
};

/* Go members: fields (several names, a tag, `_` padding skipped, embedded
 * types by their name: qualified, pointer, generic; an anonymous struct's
 * fields are not the outer one's), interface methods (embedded interfaces and
 * type sets name nothing), top-level const (iota, several names per spec) and
 * var (grouped; `var _ I = ...` names nothing); locals are none. */
static const char go_members_src[] =
    "package shapes\n"
    "\n"
    "import \"io\"\n"
    "\n"
    "// Shape is drawn.\n"
    "type Shape struct {\n"
    "\tX, Y   int\n"
    "\tName   string `json:\"name\"`\n"
    "\t_      [4]byte\n"
    "\tio.Reader\n"
    "\t*Base\n"
    "\tList[int]\n"
    "\tinner  struct {\n"
    "\t\thidden int\n"
    "\t}\n"
    "}\n"
    "\n"
    "type Drawer interface {\n"
    "\tio.Closer\n"
    "\tDraw(w io.Writer) error\n"
    "\tArea() float64\n"
    "}\n"
    "\n"
    "type Number interface {\n"
    "\t~int | ~float64\n"
    "}\n"
    "\n"
    "const (\n"
    "\tRed = iota\n"
    "\tGreen\n"
    "\tLo, Hi = 0, 9\n"
    ")\n"
    "\n"
    "const Pi = 3.14\n"
    "\n"
    "var (\n"
    "\tDefault = Shape{}\n"
    "\tcount   int\n"
    ")\n"
    "\n"
    "var _ Drawer = (*Shape)(nil)\n"
    "\n"
    "func (s *Shape) Draw(w io.Writer) error {\n"
    "\tconst local = 1\n"
    "\tvar tmp = 2\n"
    "\treturn nil\n"
    "}\n";

static const struct want go_members_want[] = {
    /* name, kind, container, first line, last line, parent, is_container */
    {"Shape", "struct", NULL, 6, 16, -1, 0},
    {"X", "field", "Shape", 7, 7, 0, 0},
    {"Y", "field", "Shape", 7, 7, 0, 0},
    {"Name", "field", "Shape", 8, 8, 0, 0},
    {"Reader", "field", "Shape", 10, 10, 0, 0},
    {"Base", "field", "Shape", 11, 11, 0, 0},
    {"List", "field", "Shape", 12, 12, 0, 0},
    {"inner", "field", "Shape", 13, 15, 0, 0},
    {"Drawer", "interface", NULL, 18, 22, -1, 0},
    {"Draw", "method", "Drawer", 20, 20, 8, 0},
    {"Area", "method", "Drawer", 21, 21, 8, 0},
    {"Number", "interface", NULL, 24, 26, -1, 0},
    {"Red", "variable", NULL, 29, 29, -1, 0},
    {"Green", "variable", NULL, 30, 30, -1, 0},
    {"Lo", "variable", NULL, 31, 31, -1, 0},
    {"Hi", "variable", NULL, 31, 31, -1, 0},
    {"Pi", "variable", NULL, 34, 34, -1, 0},
    {"Default", "variable", NULL, 37, 37, -1, 0},
    {"count", "variable", NULL, 38, 38, -1, 0},
    {"Draw", "method", "Shape", 43, 47, -1, 0},
};

/* Java members: fields (several declarators, an annotated one, a C-style
 * array), enum constants (with arguments and a body: its methods are not
 * members) and an enum's field, interface and annotation constants, record
 * components and a record's static field, a field initialised with an
 * anonymous class (whose members are not the class's); locals are none. */
static const char java_members_src[] =
    "package shapes;\n"
    "\n"
    "public class Shape {\n"
    "    private int x, y = 2;\n"
    "    @Deprecated\n"
    "    static final String[] NAMES = {};\n"
    "    int grid[];\n"
    "\n"
    "    enum Color {\n"
    "        RED,\n"
    "        GREEN(2) {\n"
    "            int shade() { return 1; }\n"
    "        };\n"
    "\n"
    "        private final int code;\n"
    "    }\n"
    "\n"
    "    interface Limits {\n"
    "        int MAX = 10, MIN = 0;\n"
    "        void check();\n"
    "    }\n"
    "\n"
    "    record Point(int px, int py) {\n"
    "        static Point ORIGIN = new Point(0, 0);\n"
    "    }\n"
    "\n"
    "    @interface Tag {\n"
    "        String DEFAULT = \"x\";\n"
    "        String value() default DEFAULT;\n"
    "    }\n"
    "\n"
    "    Runnable task = new Runnable() {\n"
    "        int ticks;\n"
    "        public void run() {}\n"
    "    };\n"
    "\n"
    "    void draw() {\n"
    "        int local = 0;\n"
    "    }\n"
    "}\n";

static const struct want java_members_want[] = {
    /* name, kind, container, first line, last line, parent, is_container */
    {"Shape", "class", NULL, 3, 40, -1, 1},
    {"x", "field", "Shape", 4, 4, 0, 0},
    {"y", "field", "Shape", 4, 4, 0, 0},
    {"NAMES", "field", "Shape", 5, 6, 0, 0},
    {"grid", "field", "Shape", 7, 7, 0, 0},
    {"Color", "enum", "Shape", 9, 16, 0, 1},
    {"RED", "enumerator", "Color", 10, 10, 5, 0},
    {"GREEN", "enumerator", "Color", 11, 13, 5, 0},
    {"code", "field", "Color", 15, 15, 5, 0},
    {"Limits", "interface", "Shape", 18, 21, 0, 1},
    {"MAX", "field", "Limits", 19, 19, 9, 0},
    {"MIN", "field", "Limits", 19, 19, 9, 0},
    {"check", "method", "Limits", 20, 20, 9, 0},
    {"Point", "class", "Shape", 23, 25, 0, 1},
    {"px", "field", "Point", 23, 23, 13, 0},
    {"py", "field", "Point", 23, 23, 13, 0},
    {"ORIGIN", "field", "Point", 24, 24, 13, 0},
    {"Tag", "interface", "Shape", 27, 30, 0, 1},
    {"DEFAULT", "field", "Tag", 28, 28, 17, 0},
    {"task", "field", "Shape", 32, 35, 0, 0},
    {"draw", "method", "Shape", 37, 39, 0, 0},
};

/* TypeScript members: interface properties and method signatures (call,
 * construct and index signatures name nothing), enum members (a quoted name
 * loses its quotes), class fields (#private, static, declare, typed without a
 * value; a computed name is skipped; an arrow value stays a method; a
 * constructor's parameter properties, not its plain parameters; a method's
 * overload signature is no definition of its own), program
 * and namespace variables (destructuring names nothing); variables of a
 * function, an IIFE or a callback are none (bundles wrap everything in one). */
static const char typescript_members_src[] =
    "export interface Shape extends Base {\n"
    "  readonly id: number;\n"
    "  label?: string;\n"
    "  draw(ctx: Context): void;\n"
    "  (scale: number): Shape;\n"
    "  new (id: number): Shape;\n"
    "  [key: string]: unknown;\n"
    "  onDraw: () => void;\n"
    "}\n"
    "\n"
    "enum Color { Red, Green = 'g', 'Deep Blue' = 3 }\n"
    "export const enum Flag { On = 1 }\n"
    "\n"
    "class Canvas {\n"
    "  #ctx = null;\n"
    "  static count: number = 0;\n"
    "  width: number;\n"
    "  declare height: number;\n"
    "  [Symbol.iterator] = 1;\n"
    "  redraw = () => this.draw();\n"
    "  constructor(private readonly ctx: Context, @Inject() public size = 1, plain: number) {}\n"
    "  draw(full: boolean): void;\n"
    "  draw(full?: boolean): void {}\n"
    "}\n"
    "\n"
    "export const VERSION = '1.0', BUILD = 7;\n"
    "let current: Canvas | undefined, previous;\n"
    "var { left, right } = sides;\n"
    "declare const DEBUG: boolean;\n"
    "export default VERSION;\n"
    "\n"
    "namespace Units {\n"
    "  export const PX = 'px';\n"
    "}\n"
    "\n"
    "function render() {\n"
    "  const local = 1;\n"
    "}\n"
    "\n"
    "(function () {\n"
    "  var hidden = 1;\n"
    "  function helper() {}\n"
    "})();\n"
    "\n"
    "define(['dep'], function (dep) {\n"
    "  var mod = dep;\n"
    "});\n";

static const struct want typescript_members_want[] = {
    /* name, kind, container, first line, last line, parent, is_container */
    {"Shape", "interface", NULL, 1, 9, -1, 0},
    {"id", "field", "Shape", 2, 2, 0, 0},
    {"label", "field", "Shape", 3, 3, 0, 0},
    {"draw", "method", "Shape", 4, 4, 0, 0},
    {"onDraw", "field", "Shape", 8, 8, 0, 0},
    {"Color", "enum", NULL, 11, 11, -1, 0},
    {"Red", "enumerator", "Color", 11, 11, 5, 0},
    {"Green", "enumerator", "Color", 11, 11, 5, 0},
    {"Deep Blue", "enumerator", "Color", 11, 11, 5, 0},
    {"Flag", "enum", NULL, 12, 12, -1, 0},
    {"On", "enumerator", "Flag", 12, 12, 9, 0},
    {"Canvas", "class", NULL, 14, 24, -1, 1},
    {"#ctx", "field", "Canvas", 15, 15, 11, 0},
    {"count", "field", "Canvas", 16, 16, 11, 0},
    {"width", "field", "Canvas", 17, 17, 11, 0},
    {"height", "field", "Canvas", 18, 18, 11, 0},
    {"redraw", "method", "Canvas", 20, 20, 11, 0},
    {"constructor", "constructor", "Canvas", 21, 21, 11, 0},
    {"ctx", "field", "Canvas", 21, 21, 11, 0},
    {"size", "field", "Canvas", 21, 21, 11, 0},
    {"draw", "method", "Canvas", 23, 23, 11, 0},
    {"VERSION", "variable", NULL, 26, 26, -1, 0},
    {"BUILD", "variable", NULL, 26, 26, -1, 0},
    {"current", "variable", NULL, 27, 27, -1, 0},
    {"previous", "variable", NULL, 27, 27, -1, 0},
    {"DEBUG", "variable", NULL, 29, 29, -1, 0},
    {"Units", "module", NULL, 32, 34, -1, 1},
    {"PX", "variable", "Units", 33, 33, 26, 0},
    {"render", "function", NULL, 36, 38, -1, 0},
    {"helper", "function", NULL, 42, 42, -1, 0},
};

/* Python members: module-level assignments (annotated, tuple, chained, a
 * lambda is a function; attributes, subscripts and `+=` define nothing; under
 * if/else each one counts), class attributes (annotated without a value too;
 * a lambda is a method); `self.x = ...` and locals are none. */
static const char python_members_src[] =
    "\"\"\"Shapes.\"\"\"\n"
    "import math\n"
    "\n"
    "PI = 3.14\n"
    "TAU: float = 2 * PI\n"
    "WIDTH, HEIGHT = 640, 480\n"
    "lo = hi = 0\n"
    "square = lambda x: x * x\n"
    "math.tau = TAU\n"
    "lo += 1\n"
    "table[\"x\"] = 1\n"
    "\n"
    "if DEBUG:\n"
    "    LEVEL = 2\n"
    "else:\n"
    "    LEVEL = 0\n"
    "\n"
    "\n"
    "class Color:\n"
    "    RED = 1\n"
    "    GREEN: int = 2\n"
    "    alpha: float\n"
    "    brighten = lambda self: self\n"
    "\n"
    "    def __init__(self):\n"
    "        self.value = 0\n"
    "        local = 1\n"
    "\n"
    "    class Meta:\n"
    "        ordering = [\"RED\"]\n"
    "\n"
    "\n"
    "def draw():\n"
    "    size = 10\n"
    "    return size\n";

static const struct want python_members_want[] = {
    /* name, kind, container, first line, last line, parent, is_container */
    {"PI", "variable", NULL, 4, 4, -1, 0},
    {"TAU", "variable", NULL, 5, 5, -1, 0},
    {"WIDTH", "variable", NULL, 6, 6, -1, 0},
    {"HEIGHT", "variable", NULL, 6, 6, -1, 0},
    {"lo", "variable", NULL, 7, 7, -1, 0},
    {"hi", "variable", NULL, 7, 7, -1, 0},
    {"square", "function", NULL, 8, 8, -1, 0},
    {"LEVEL", "variable", NULL, 14, 14, -1, 0},
    {"LEVEL", "variable", NULL, 16, 16, -1, 0},
    {"Color", "class", NULL, 19, 30, -1, 1},
    {"RED", "field", "Color", 20, 20, 9, 0},
    {"GREEN", "field", "Color", 21, 21, 9, 0},
    {"alpha", "field", "Color", 22, 22, 9, 0},
    {"brighten", "method", "Color", 23, 23, 9, 0},
    {"__init__", "method", "Color", 25, 27, 9, 0},
    {"Meta", "class", "Color", 29, 30, 9, 1},
    {"ordering", "field", "Meta", 30, 30, 15, 0},
    {"draw", "function", NULL, 33, 35, -1, 0},
};

/* Rust members: struct fields (attributes belong to them; a tuple struct's
 * have no names), enum variants (a struct variant's fields are not the
 * enum's), trait and impl associated types (type) and consts (field),
 * const/static at top level and in a mod (variable; `const _` names nothing);
 * a function's are none. */
static const char rust_members_src[] =
    "pub struct Shape<T> {\n"
    "    /// The origin.\n"
    "    #[serde(default)]\n"
    "    pub origin: (i32, i32),\n"
    "    data: T,\n"
    "}\n"
    "\n"
    "pub struct Pair(i32, i32);\n"
    "\n"
    "pub enum Color {\n"
    "    Red,\n"
    "    #[default]\n"
    "    Green(u8),\n"
    "    Blue { shade: u8 } = 3,\n"
    "}\n"
    "\n"
    "pub trait Draw {\n"
    "    type Output;\n"
    "    const SIDES: usize;\n"
    "    fn draw(&self) -> Self::Output;\n"
    "}\n"
    "\n"
    "impl Draw for Shape<u8> {\n"
    "    type Output = ();\n"
    "    const SIDES: usize = 4;\n"
    "    fn draw(&self) {}\n"
    "}\n"
    "\n"
    "pub const MAX: usize = 10;\n"
    "static mut COUNT: u32 = 0;\n"
    "const _: () = ();\n"
    "\n"
    "mod inner {\n"
    "    pub static NAME: &str = \"x\";\n"
    "}\n"
    "\n"
    "fn main() {\n"
    "    const LOCAL: u8 = 1;\n"
    "    static SEEN: u8 = 2;\n"
    "}\n";

static const struct want rust_members_want[] = {
    /* name, kind, container, first line, last line, parent, is_container */
    {"Shape", "struct", NULL, 1, 6, -1, 0},
    {"origin", "field", "Shape", 3, 4, 0, 0},
    {"data", "field", "Shape", 5, 5, 0, 0},
    {"Pair", "struct", NULL, 8, 8, -1, 0},
    {"Color", "enum", NULL, 10, 15, -1, 0},
    {"Red", "enumerator", "Color", 11, 11, 4, 0},
    {"Green", "enumerator", "Color", 12, 13, 4, 0},
    {"Blue", "enumerator", "Color", 14, 14, 4, 0},
    {"Draw", "trait", NULL, 17, 21, -1, 1},
    {"Output", "type", "Draw", 18, 18, 8, 0},
    {"SIDES", "field", "Draw", 19, 19, 8, 0},
    {"draw", "method", "Draw", 20, 20, 8, 0},
    {"Shape", "impl", NULL, 23, 27, -1, 1},
    {"Output", "type", "Shape", 24, 24, 12, 0},
    {"SIDES", "field", "Shape", 25, 25, 12, 0},
    {"draw", "method", "Shape", 26, 26, 12, 0},
    {"MAX", "variable", NULL, 29, 29, -1, 0},
    {"COUNT", "variable", NULL, 30, 30, -1, 0},
    {"inner", "module", NULL, 33, 35, -1, 1},
    {"NAME", "variable", "inner", 34, 34, 18, 0},
    {"main", "function", NULL, 37, 40, -1, 0},
};

/* ---- 3. Tests ------------------------------------------------------------ */

TEST(defs_c) { EXPECT_DEFS(MG_LANG_C, c_src, c_want); }
TEST(defs_c_declarations) { EXPECT_DEFS(MG_LANG_C, c_decl_src, c_decl_want); }
TEST(defs_c_kernel_declarations) { EXPECT_DEFS(MG_LANG_C, c_kernel_src, c_kernel_want); }
TEST(defs_cpp) { EXPECT_DEFS(MG_LANG_CPP, cpp_src, cpp_want); }
TEST(defs_cpp_declarations) { EXPECT_DEFS(MG_LANG_CPP, cpp_decl_src, cpp_decl_want); }
TEST(defs_go) { EXPECT_DEFS(MG_LANG_GO, go_src, go_want); }
TEST(defs_java) { EXPECT_DEFS(MG_LANG_JAVA, java_src, java_want); }
TEST(defs_javascript) { EXPECT_DEFS(MG_LANG_JAVASCRIPT, javascript_src, javascript_want); }
TEST(defs_python) { EXPECT_DEFS(MG_LANG_PYTHON, python_src, python_want); }
TEST(defs_rust) { EXPECT_DEFS(MG_LANG_RUST, rust_src, rust_want); }
TEST(defs_typescript) { EXPECT_DEFS(MG_LANG_TYPESCRIPT, typescript_src, typescript_want); }
TEST(defs_tsx) { EXPECT_DEFS(MG_LANG_TSX, tsx_src, tsx_want); }
TEST(defs_go_members) { EXPECT_DEFS(MG_LANG_GO, go_members_src, go_members_want); }
TEST(defs_java_members) { EXPECT_DEFS(MG_LANG_JAVA, java_members_src, java_members_want); }
TEST(defs_typescript_members)
{
    EXPECT_DEFS(MG_LANG_TYPESCRIPT, typescript_members_src, typescript_members_want);
}
TEST(defs_python_members) { EXPECT_DEFS(MG_LANG_PYTHON, python_members_src, python_members_want); }
TEST(defs_rust_members) { EXPECT_DEFS(MG_LANG_RUST, rust_members_src, rust_members_want); }

/* The indexer parses C-family files with bodies elided; the definitions must
 * come out the same, and their ranges the same once mapped back. */
TEST(defs_outline_same_as_full)
{
    static const struct { int id; const char *src; } cases[] = {
        {MG_LANG_C, c_src}, {MG_LANG_CPP, cpp_src}, {MG_LANG_JAVA, java_src},
        {MG_LANG_JAVA, java_members_src},
    };
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        const struct mg_lang *l = mg_lang_by_id(cases[k].id);
        size_t len = strlen(cases[k].src), olen;
        struct cuts cuts;
        char *out = outline_of(l, cases[k].src, len, &olen, &cuts);
        ASSERT(olen < len);
        TSTree *full = parse(l, cases[k].src, len), *outl = parse(l, out, olen);
        struct mg_defs a, b;
        extract(l, full, cases[k].src, len, &a);
        extract(l, outl, out, olen, &b);
        if (a.n != b.n)
            FAIL("%s: %zu defs in full, %zu in outline:%s", l->name, a.n, b.n, describe(&b, out));
        for (size_t i = 0; i < a.n; i++) {
            const struct mg_def *x = &a.v[i], *y = &b.v[i];
            ASSERT_EQ_STR(y->name, x->name);
            ASSERT_EQ_STR(y->kind, x->kind);
            ASSERT_EQ_STR(y->container ? y->container : "(none)", x->container ? x->container : "(none)");
            ASSERT_EQ_INT(y->parent, x->parent);
            ASSERT_EQ_INT(y->is_container, x->is_container);
            /* mapped back, the ranges are the same bytes */
            ASSERT_EQ_INT(unoutline(&cuts, y->start), x->start);
            ASSERT_EQ_INT(unoutline(&cuts, y->end), x->end);
        }
        mg_defs_release(&a);
        mg_defs_release(&b);
        ts_tree_delete(full);
        ts_tree_delete(outl);
        free(out);
    }
}

TEST(defs_empty_input)
{
    static const char *const texts[] = {"", "\n\n", "   ", "/* nothing */\n", "\xef\xbb\xbf"};
    for (int id = MG_LANG_C; id < MG_LANG_FIRST_PLAIN; id++)
        for (size_t k = 0; k < sizeof(texts) / sizeof(texts[0]); k++)
            ASSERT_EQ_INT(extract_count(id, texts[k], strlen(texts[k])), 0);
}

/* libtree-sitter 0.20.7 corrupts the tree when error recovery makes one ERROR
 * node with 65,535 or more children (1 MB of `{` does): ts_tree_delete then
 * frees an interior pointer, and the Java and Rust grammars abort inside
 * ts_parser_parse. So every grammar gets 60,000 braces, and the full 1 MB
 * runs for C, whose parse returns; that tree is kept (reachable, not leaked)
 * instead of deleted. The extractor must survive walking it. */
static TSTree *kept_corrupt_tree;

TEST_T(defs_hostile_braces, 300)
{
    size_t len = 1 << 20;
    char *src = malloc(len);
    ASSERT(src != NULL);
    memset(src, '{', len);
    for (int id = MG_LANG_C; id < MG_LANG_FIRST_PLAIN; id++)
        ASSERT_EQ_INT(extract_count(id, src, 60000), 0);

    const struct mg_lang *c = mg_lang_by_id(MG_LANG_C);
    kept_corrupt_tree = parse(c, src, len);
    struct mg_defs d;
    extract(c, kept_corrupt_tree, src, len, &d);
    ASSERT_EQ_INT(d.n, 0);
    mg_defs_release(&d);
    free(src);
}

TEST_T(defs_hostile_random, 600)
{
    size_t len = 1 << 20;
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    unsigned char *src = malloc(len);
    ASSERT(src != NULL);
    for (size_t i = 0; i < len; i++) src[i] = (unsigned char)rng_next(&seed);
    /* 1 MB through the C grammar (the kernel's language; other grammars
     * take up to 25 s on it), 16 KB through every grammar */
    extract_count(MG_LANG_C, (const char *)src, len);
    for (int id = MG_LANG_C; id < MG_LANG_FIRST_PLAIN; id++)
        extract_count(id, (const char *)src + 4096 * id, 16 * 1024);
    /* random text made of the brackets and quotes parsers nest on */
    static const char alphabet[] = "{}()[]<>\"'/*#\n ;:=,.afn";
    for (size_t i = 0; i < len; i++) src[i] = (unsigned char)alphabet[rng_next(&seed) % (sizeof(alphabet) - 1)];
    for (int id = MG_LANG_C; id < MG_LANG_FIRST_PLAIN; id++)
        extract_count(id, (const char *)src, 32 * 1024);
    free(src);
}

TEST_T(defs_deep_parens, 300)
{
    size_t len = 50000;
    char *src = malloc(len);
    ASSERT(src != NULL);
    memset(src, '(', len);
    for (int id = MG_LANG_C; id < MG_LANG_FIRST_PLAIN; id++)
        ASSERT_EQ_INT(extract_count(id, src, len), 0);
    free(src);
}

/* Deep nesting the walk does descend into: its own stack must grow. */
TEST_T(defs_deep_nesting, 300)
{
    enum { DEPTH = 20000 };
    size_t cap = (size_t)DEPTH * 24 + 64, n = 0;
    char *src = malloc(cap);
    ASSERT(src != NULL);

    for (int i = 0; i < DEPTH; i++) n += (size_t)sprintf(src + n, "namespace n%d {\n", i % 10);
    n += (size_t)sprintf(src + n, "int leaf() { return 0; }\n");
    for (int i = 0; i < DEPTH; i++) n += (size_t)sprintf(src + n, "}\n");
    const struct mg_lang *l = mg_lang_by_id(MG_LANG_CPP);
    TSTree *t = parse(l, src, n);
    struct mg_defs d;
    extract(l, t, src, n, &d);
    ASSERT_EQ_INT(d.n, DEPTH + 1);
    for (int i = 0; i <= DEPTH; i++) ASSERT_EQ_INT(d.v[i].parent, i - 1);
    ASSERT_EQ_STR(d.v[DEPTH].name, "leaf");
    ASSERT_EQ_STR(d.v[DEPTH].container, "n9");
    mg_defs_release(&d);
    ts_tree_delete(t);

    n = 0;
    for (int i = 0; i < DEPTH; i++) n += (size_t)sprintf(src + n, "#ifdef X%d\n", i % 10);
    n += (size_t)sprintf(src + n, "static int leaf(void) { return 0; }\n");
    for (int i = 0; i < DEPTH; i++) n += (size_t)sprintf(src + n, "#endif\n");
    ASSERT_EQ_INT(extract_count(MG_LANG_C, src, n), 1);

    /* Python: 200 nested functions (the grammar's indent stack is the limit) */
    n = 0;
    for (int i = 0; i < 200; i++) n += (size_t)sprintf(src + n, "%*sdef f%d():\n", i, "", i);
    n += (size_t)sprintf(src + n, "%*spass\n", 200, "");
    ASSERT_EQ_INT(extract_count(MG_LANG_PYTHON, src, n), 200);
    free(src);
}

/* Names are cut to 256 bytes, never inside a UTF-8 sequence. */
TEST(defs_long_name_utf8)
{
    char src[1024];
    size_t n = (size_t)sprintf(src, "function a");
    for (int i = 0; i < 200; i++) n += (size_t)sprintf(src + n, "\xc3\xa9"); /* é */
    n += (size_t)sprintf(src + n, "() {}\nfunction short_one() {}\n");
    const struct mg_lang *l = mg_lang_by_id(MG_LANG_JAVASCRIPT);
    TSTree *t = parse(l, src, n);
    struct mg_defs d;
    extract(l, t, src, n, &d);
    ASSERT_EQ_INT(d.n, 2);
    ASSERT_EQ_INT(strlen(d.v[0].name), 255); /* "a" + 127 × é; byte 256 is mid-é */
    ASSERT(strncmp(d.v[0].name, src + 9, 255) == 0);
    ASSERT_EQ_STR(d.v[1].name, "short_one");
    mg_defs_release(&d);
    ts_tree_delete(t);
}

/* A tree of another grammar, or a language without one: no definitions. */
TEST(defs_wrong_grammar_or_plain_language)
{
    const struct mg_lang *c = mg_lang_by_id(MG_LANG_C);
    size_t len = strlen(c_src);
    TSTree *t = parse(c, c_src, len);
    struct mg_defs d = {0};
    ASSERT_EQ_INT(mg_defs_extract(mg_lang_by_id(MG_LANG_PYTHON), ts_tree_root_node(t), c_src, len, &d), 0);
    ASSERT_EQ_INT(d.n, 0);
    ASSERT_EQ_INT(mg_defs_extract(mg_lang_by_name("markdown"), ts_tree_root_node(t), c_src, len, &d), 0);
    ASSERT_EQ_INT(d.n, 0);
    ASSERT_EQ_INT(mg_defs_extract(c, ts_tree_root_node(t), c_src, len, &d), 0);
    ASSERT_EQ_INT(d.n, sizeof(c_want) / sizeof(c_want[0]));
    mg_defs_release(&d);
    mg_defs_release(&d); /* releasing twice is harmless */
    ts_tree_delete(t);
}

/* Several threads at once, from the very first call (the per-language tables
 * are built on first use). */
struct thread_job {
    int id;
    const char *src;
    size_t want;
    int failures;
};

static void *thread_main(void *arg)
{
    struct thread_job *job = arg;
    const struct mg_lang *l = mg_lang_by_id(job->id);
    size_t len = strlen(job->src);
    for (int r = 0; r < 20; r++) {
        TSParser *p = ts_parser_new();
        ts_parser_set_language(p, l->grammar());
        TSTree *t = ts_parser_parse_string(p, NULL, job->src, (uint32_t)len);
        struct mg_defs d = {0};
        if (mg_defs_extract(l, ts_tree_root_node(t), job->src, len, &d) != 0 || d.n != job->want)
            job->failures++;
        mg_defs_release(&d);
        ts_tree_delete(t);
        ts_parser_delete(p);
    }
    return NULL;
}

TEST(defs_threads)
{
#define JOB(id, name) {id, name##_src, sizeof(name##_want) / sizeof(name##_want[0]), 0}
    struct thread_job jobs[] = {
        JOB(MG_LANG_C, c), JOB(MG_LANG_CPP, cpp), JOB(MG_LANG_GO, go),
        JOB(MG_LANG_JAVA, java), JOB(MG_LANG_JAVASCRIPT, javascript), JOB(MG_LANG_PYTHON, python),
        JOB(MG_LANG_RUST, rust), JOB(MG_LANG_TYPESCRIPT, typescript), JOB(MG_LANG_TSX, tsx),
        JOB(MG_LANG_C, c), JOB(MG_LANG_CPP, cpp), JOB(MG_LANG_TYPESCRIPT, typescript),
    };
#undef JOB
    enum { N = sizeof(jobs) / sizeof(jobs[0]) };
    pthread_t th[N];
    for (int i = 0; i < N; i++) ASSERT_EQ_INT(pthread_create(&th[i], NULL, thread_main, &jobs[i]), 0);
    for (int i = 0; i < N; i++) pthread_join(th[i], NULL);
    for (int i = 0; i < N; i++) ASSERT_EQ_INT(jobs[i].failures, 0);
}

/* At most 1,000,000 definitions. */
TEST_T(defs_cap, 600)
{
    enum { LINES = 1000005 };
    static const char line[] = "#define a\n";
    size_t len = LINES * (sizeof(line) - 1);
    char *src = malloc(len);
    ASSERT(src != NULL);
    for (size_t i = 0; i < LINES; i++) memcpy(src + i * (sizeof(line) - 1), line, sizeof(line) - 1);
    ASSERT_EQ_INT(extract_count(MG_LANG_C, src, len), 1000000);
    free(src);
}
