struct ops { int (*open)(int); int (*read)(int); };
static int f(int x);
static const struct ops a __initconst = { f, &f };
struct ops tab[] = { { f, 0 }, { .read = f } };
static const struct { const char *n; int (*fn)(int); } cmds[] = { {"a, b", f}, };
void set(struct ops *o) { o->read = f; o->open = g(1); }
#define X(p) (o->p)
