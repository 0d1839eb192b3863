/* test_outline.c — eliding C-family bodies (index/outline.h). */
#include "test.h"
#include "index/outline.h"

static char *outline(const char *src)
{
    struct mg_outline o;
    if (mg_outline_build(src, strlen(src), 0, &o) != 0) FAIL("outline failed");
    /* every outline byte maps back to the same byte of the source */
    for (size_t i = 0; i < o.len; i++) {
        uint32_t s = mg_outline_to_src(&o, (uint32_t)i);
        if (src[s] != o.text[i]) FAIL("outline byte %zu maps to source %u: '%c' != '%c'", i, s, o.text[i], src[s]);
    }
    char *r = strdup(o.text);
    mg_outline_release(&o);
    return r;
}

#define OUTLINE(src, want)                                                  \
    do {                                                                    \
        char *got_ = outline(src);                                          \
        ASSERT_EQ_STR(got_, want);                                          \
        free(got_);                                                         \
    } while (0)

TEST(outline_elides_bodies_and_initializers)
{
    OUTLINE("int f(int a) { return a + 1; }\nstruct s { int x; };\n",
            "int f(int a) {}\nstruct s { int x; };\n");
    OUTLINE("static const struct ops o = { .open = f, .close = g };\n",
            "static const struct ops o = {};\n");
    /* short bodies stay: not worth a segment */
    OUTLINE("void g(void) { }\n", "void g(void) { }\n");
    /* braces inside strings, chars and comments do not count */
    OUTLINE("int f(void) { puts(\"}}\"); char c = '}'; /* } */ // }\n return 0; }\nint z;\n",
            "int f(void) {}\nint z;\n");
}

TEST(outline_cpp_and_java_members)
{
    OUTLINE("class A {\n public:\n  int get() const override { return x_; }\n  int x_;\n};\n",
            "class A {\n public:\n  int get() const override {}\n  int x_;\n};\n");
    OUTLINE("A::A(int x) : x_(x), y_(2) { init(); more(); }\n", "A::A(int x) : x_(x), y_(2) {}\n");
    OUTLINE("class B { void run() throws IOException, Foo { work(); work(); } }\n",
            "class B { void run() throws IOException, Foo {} }\n");
    OUTLINE("namespace n { void f() { long body(); } }\n", "namespace n { void f() {} }\n");
    /* final on a class is not a function qualifier */
    OUTLINE("class C final { int a; int b; int c; };\n", "class C final { int a; int b; int c; };\n");
    /* raw strings and digit separators */
    OUTLINE("auto s = R\"x( } )\" )x\"; int f() { int n = 1'000'000; return n; }\n",
            "auto s = R\"x( } )\" )x\"; int f() {}\n");
}

TEST(outline_attributes_are_not_bodies)
{
    OUTLINE("struct __attribute__((packed)) { int a; int b; } v;\n",
            "struct __attribute__((packed)) { int a; int b; } v;\n");
}

TEST(outline_preprocessor_else_branches)
{
    const char *src = "#ifdef X\nint f(void) {\n#else\nint g(void) {\n#endif\n  return 1;\n}\nint after;\n";
    OUTLINE(src, "#ifdef X\nint f(void) {}\nint after;\n");
    /* braces in a #define do not count */
    OUTLINE("#define OPEN {\nint f(void) { return 2; }\n", "#define OPEN {\nint f(void) {}\n");
}

TEST(outline_unbalanced_keeps_everything)
{
    const char *src = "int f(void) { if (x) { return 1;\n";
    OUTLINE(src, src);
    OUTLINE("", "");
    OUTLINE("}}}}}", "}}}}}");
}

TEST(outline_end_mapping)
{
    const char *src = "int f(void) { return 12345; }\nint g;\n";
    struct mg_outline o;
    ASSERT_EQ_INT(mg_outline_build(src, strlen(src), 0, &o), 0);
    /* "int f(void) {}" ends at outline offset 14; in the source at 29 */
    ASSERT_EQ_INT(mg_outline_end_to_src(&o, 14), 29);
    ASSERT_EQ_INT(mg_outline_to_src(&o, 15), 30); /* "int g" */
    mg_outline_release(&o);
}
