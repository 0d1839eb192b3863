/* test_nav_type.c — calls resolved by the receiver's declared type
 * (search/nav_type.c): a Go method of the receiver's type, not the first of
 * its name in the file; Python self. and a local made by a constructor;
 * Java, TypeScript and Rust locals; confidence "type". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "search/nav.h"
#include "store/catalog.h"
#include "util/config.h"

static const char *const FILES[][2] = {
    {"go/closer/closer.go", "package closer\n"                                          /* 1 */
                            "\n"                                                        /* 2 */
                            "type B struct{}\n"                                         /* 3 */
                            "func (b *B) Close() error { return nil }\n"                /* 4 */
                            "type A struct{}\n"                                         /* 5 */
                            "func (a *A) Close() error { return nil }\n"                /* 6 */
                            "func use(x int, a *A) error { return a.Close() }\n"        /* 7 */
                            "func use2() error {\n"                                     /* 8 */
                            "\tb := &B{}\n"                                             /* 9 */
                            "\treturn b.Close()\n"                                      /* 10 */
                            "}\n"},                                                     /* 11 */
    {"py/two.py", "class P:\n"                  /* 1 */
                  "    def run(self):\n"        /* 2 */
                  "        return 1\n"          /* 3 */
                  "class Q:\n"                  /* 4 */
                  "    def run(self):\n"        /* 5 */
                  "        return 2\n"          /* 6 */
                  "    def go(self):\n"         /* 7 */
                  "        return self.run()\n" /* 8 */
                  "def top():\n"                /* 9 */
                  "    q = Q()\n"               /* 10 */
                  "    return q.run()\n"},      /* 11 */
    {"java/J.java", "class Box2 { int size() { return 1; } }\n"                       /* 1 */
                    "class Crate { int size() { return 9; } }\n"                      /* 2 */
                    "class App2 {\n"                                                  /* 3 */
                    "    int useCrate(int k) { Crate c = new Crate(); return c.size(); }\n" /* 4 */
                    "}\n"},                                                           /* 5 */
    {"ts/v.ts", "class V1 { render(): string { return \"1\"; } }\n"                    /* 1 */
                "class V2 { render(): string { return \"2\"; } }\n"                    /* 2 */
                "export function show(v: V2): string { return v.render(); }\n"},       /* 3 */
    {"rs/src/lib.rs", "pub struct Sq { pub s: u32 }\n"                                /* 1 */
                      "pub struct Ci { pub r: u32 }\n"                                /* 2 */
                      "impl Ci { pub fn area(&self) -> u32 { self.r } }\n"            /* 3 */
                      "impl Sq { pub fn area(&self) -> u32 { self.s } }\n"            /* 4 */
                      "pub fn run() -> u32 { let q = Sq { s: 2 }; q.area() }\n"},     /* 5 */
    /* bare calls: no method in Go, Python, TypeScript; one of this class's in C++ */
    {"go/bare/bare.go", "package bare\n"                                 /* 1 */
                        "type T struct{}\n"                              /* 2 */
                        "func (t T) Shut() error { return nil }\n"       /* 3 */
                        "func Shut() error { return nil }\n"             /* 4 */
                        "func stop(t T) {\n"                             /* 5 */
                        "\tShut()\n"                                     /* 6 */
                        "\tt.Shut()\n"                                   /* 7 */
                        "}\n"},                                          /* 8 */
    {"py/bare.py", "class Store:\n"                         /* 1 */
                   "    def put(self, k):\n"                /* 2 */
                   "        return k\n"                     /* 3 */
                   "def put_all(xs):\n"                     /* 4 */
                   "    return [put(x) for x in xs]\n"      /* 5 */
                   "class Shelf:\n"                         /* 6 */
                   "    def take(self):\n"                  /* 7 */
                   "        return 1\n"                     /* 8 */
                   "    grab = take\n"},                    /* 9 */
    {"ts/bare.ts", "class W { draw(): number { return 1; } }\n"          /* 1 */
                   "export function paint(): number { return draw(); }\n"}, /* 2 */
    {"cpp/k.cpp", "struct K { int a() { return 1; } int b() { return a(); } };\n"}, /* 1 */
    /* calls into the standard library through an imported module or package */
    {"py/std.py", "import shutil\n"             /* 1 */
                  "import os.path as osp\n"     /* 2 */
                  "from json import (\n"        /* 3 */
                  "    decoder,\n"              /* 4 */
                  ")\n"                         /* 5 */
                  "def copy(a, b):\n"           /* 6 */
                  "    return a\n"              /* 7 */
                  "def join(a):\n"              /* 8 */
                  "    return a\n"              /* 9 */
                  "def decode(a):\n"            /* 10 */
                  "    return a\n"              /* 11 */
                  "def backup(a, store):\n"     /* 12 */
                  "    shutil.copy(a, a)\n"     /* 13 */
                  "    osp.join(a)\n"           /* 14 */
                  "    decoder.decode(a)\n"     /* 15 */
                  "    store.copy(a, a)\n"      /* 16 */
                  "    return copy(a, a)\n"     /* 17 */
                  "def walk(a):\n"              /* 18 */
                  "    shutil.os.path.join(a)\n" /* 19 */
                  "    m = {a: put(a)}\n"       /* 20 */
                  "    return m\n"},            /* 21 */
    {"go/std/std.go", "package std\n"                            /* 1 */
                      "import (\n"                               /* 2 */
                      "\t\"bufio\"\n"                            /* 3 */
                      "\tstr \"strings\"\n"                      /* 4 */
                      "\t\"example.com/lib/bufx\"\n"             /* 5 */
                      ")\n"                                      /* 6 */
                      "func NewWriter() int { return 1 }\n"      /* 7 */
                      "func Split() int { return 2 }\n"          /* 8 */
                      "func Flush() int { return 3 }\n"          /* 9 */
                      "func pump() {\n"                          /* 10 */
                      "\tbufio.NewWriter(nil)\n"                 /* 11 */
                      "\tstr.Split(\"\", \"\")\n"                 /* 12 */
                      "\tbufx.Flush()\n"                         /* 13 */
                      "\tNewWriter()\n"                          /* 14 */
                      "}\n"                                      /* 15 */
                      "type Buf struct{}\n"                      /* 16 */
                      "func (b *Buf) Bytes() []byte { return nil }\n" /* 17 */
                      "func drain(t *testing.T, mine *Buf) {\n"  /* 18 */
                      "\tvar out bufio.Reader\n"                 /* 19 */
                      "\tt.Errorf(\"x\")\n"                       /* 20 */
                      "\tout.Bytes()\n"                          /* 21 */
                      "\tmine.Bytes()\n"                         /* 22 */
                      "}\n"                                      /* 23 */
                      "func keep(w *Buf) {\n"                    /* 24 */
                      "\tb := bufio.NewReader(nil)\n"            /* 25 */
                      "\tb.Bytes()\n"                            /* 26 */
                      "}\n"},                                    /* 27 */
    /* Python's bare names: a definition the line sees, or an import, else a local or a builtin */
    {"py/scope/helpers.py", "def fmt(x):\n"           /* 1 */
                            "    return x\n"          /* 2 */
                            "def wrap(f):\n"          /* 3 */
                            "    return f\n"          /* 4 */
                            "def outer(a):\n"         /* 5 */
                            "    def inner(b):\n"     /* 6 */
                            "        return b\n"      /* 7 */
                            "    return inner(a)\n"   /* 8 */
                            "def later(a):\n"         /* 9 */
                            "    return fmt(a)\n"},   /* 10 */
    {"py/scope/use_import.py", "from .helpers import (\n" /* 1 */
                               "    fmt,\n"               /* 2 */
                               ")\n"                      /* 3 */
                               "def show_i(a):\n"         /* 4 */
                               "    return fmt(a)\n"},    /* 5 */
    {"py/scope/use_star.py", "from .helpers import *\n" /* 1 */
                             "def show_s(a):\n"         /* 2 */
                             "    return wrap(a)\n"},   /* 3 */
    {"py/scope/no_import.py", "import os\n"             /* 1 */
                              "def show_n(fmt, a):\n"   /* 2 */
                              "    inner(a)\n"          /* 3 */
                              "    return fmt(a)\n"     /* 4 */
                              "def wrap_n(a):\n"        /* 5 */
                              "    wrap = a\n"          /* 6 */
                              "    return wrap\n"},     /* 7 */
    /* Python attributes: the value's type where it is known */
    {"py/attr.py", "class Keys:\n"                      /* 1 */
                   "    def update(self, k):\n"         /* 2 */
                   "        return k\n"                 /* 3 */
                   "class Node:\n"                      /* 4 */
                   "    def __init__(self):\n"          /* 5 */
                   "        self.keys = Keys()\n"       /* 6 */
                   "        self.names = {}\n"          /* 7 */
                   "    def refresh(self, other):\n"    /* 8 */
                   "        self.keys.update(1)\n"      /* 9 */
                   "        self.names.update(2)\n"     /* 10 */
                   "        self.__dict__.update(3)\n"  /* 11 */
                   "        seen = set()\n"             /* 12 */
                   "        seen.update(4)\n"           /* 13 */
                   "        other.update(5)\n"          /* 14 */
                   "class Other:\n"                     /* 15 */
                   "    def elsewhere(self):\n"         /* 16 */
                   "        return self.update(6)\n"    /* 17 */
                   "class SubKeys(Keys):\n"             /* 18 */
                   "    def go2(self):\n"               /* 19 */
                   "        return self.update(7)\n"    /* 20 */
                   "import pkg.update as update\n"},    /* 21 */
    {"py/attr2.py", "from io import StringIO\n"          /* 1 */
                    "from typing import Optional\n"      /* 2 */
                    "class Pool:\n"                      /* 3 */
                    "    def siphon(self):\n"             /* 4 */
                    "        return 1\n"                 /* 5 */
                    "class Tank:\n"                      /* 6 */
                    "    cache: dict = {}\n"             /* 7 */
                    "    pool: Optional[Pool] = None\n"  /* 8 */
                    "    def __init__(self):\n"          /* 9 */
                    "        self.io = StringIO()\n"     /* 10 */
                    "    def empty(self):\n"             /* 11 */
                    "        self.io.siphon()\n"          /* 12 */
                    "        self.cache.siphon()\n"       /* 13 */
                    "        self.pool.siphon()\n"        /* 14 */
                    "class DeepPool(Pool):\n"            /* 15 */
                    "    def siphon(self):\n"             /* 16 */
                    "        return super().siphon()\n"   /* 17 */
                    "class Lone:\n"                      /* 18 */
                    "    def flush(self):\n"             /* 19 */
                    "        return super().siphon()\n"}, /* 20 */
    {"py/attr3.py", "from io import StringIO\n"                         /* 1 */
                    "class Box:\n"                                      /* 2 */
                    "    def fetch(self):\n"                            /* 3 */
                    "        return 1\n"                                /* 4 */
                    "class Base:\n"                                     /* 5 */
                    "    def __init__(self, box: Box, buf: StringIO):\n" /* 6 */
                    "        self.box = box\n"                          /* 7 */
                    "        self.buf = buf\n"                          /* 8 */
                    "        self.raw = {}\n"                           /* 9 */
                    "class Child(Base):\n"                              /* 10 */
                    "    def go_child(self):\n"                         /* 11 */
                    "        self.box.fetch()\n"                        /* 12 */
                    "        self.buf.fetch()\n"                        /* 13 */
                    "        self.raw.fetch()\n"                        /* 14 */
                    "class Mixed:\n"                                    /* 15 */
                    "    def __init__(self, src: StringIO):\n"          /* 16 */
                    "        if not src:\n"                             /* 17 */
                    "            src = Box()\n"                         /* 18 */
                    "        self.src = src\n"                          /* 19 */
                    "    def use_src(self):\n"                          /* 20 */
                    "        self.src.fetch()\n"},                      /* 21 */
    /* Python values typed by what made them: a function's `-> T`, a property's, a module's name,
     * the standard library's and built-in functions, `assert isinstance`, a call's result, a chain */
    {"py/attr4.py", "import re\n"                            /* 1 */
                    "import copy\n"                          /* 2 */
                    "from pathlib import Path\n"             /* 3 */
                    "class Crate:\n"                         /* 4 */
                    "    def pack(self):\n"                  /* 5 */
                    "        return 1\n"                     /* 6 */
                    "class Sack:\n"                          /* 7 */
                    "    def pack(self):\n"                  /* 8 */
                    "        return 2\n"                     /* 9 */
                    "    @property\n"                        /* 10 */
                    "    def heft(self) -> int:\n"           /* 11 */
                    "        return 3\n"                     /* 12 */
                    "def make() -> \"Crate\":\n"             /* 13 */
                    "    return Crate()\n"                   /* 14 */
                    "class Holder:\n"                        /* 15 */
                    "    def __init__(self):\n"              /* 16 */
                    "        self.sack = Sack()\n"           /* 17 */
                    "    @property\n"                        /* 18 */
                    "    def crate(self) -> Crate:\n"        /* 19 */
                    "        return make()\n"                /* 20 */
                    "TABLE = {}\n"                           /* 21 */
                    "TABLE.pack()\n"                         /* 22 */
                    "def use_made(h: Holder, any_value):\n"  /* 23 */
                    "    c = make()\n"                       /* 24 */
                    "    c.pack()\n"                         /* 25 */
                    "    h.crate.pack()\n"                   /* 26 */
                    "    h.sack.pack()\n"                    /* 27 */
                    "    TABLE.pack()\n"                     /* 28 */
                    "    pat = re.compile(\"x\")\n"          /* 29 */
                    "    pat.pack()\n"                       /* 30 */
                    "    dup = copy.copy(any_value)\n"       /* 31 */
                    "    dup.pack()\n"                       /* 32 */
                    "    f = open(\"x\")\n"                  /* 33 */
                    "    f.pack()\n"                         /* 34 */
                    "    \", \".pack()\n"                    /* 35 */
                    "    Crate().pack()\n"                   /* 36 */
                    "    Path(\"x\").pack()\n"               /* 37 */
                    "    return h.sack.heft\n"               /* 38 */
                    "def narrow(x):\n"                       /* 39 */
                    "    assert isinstance(x, Sack)\n"       /* 40 */
                    "    return x.pack()\n"},                /* 41 */
    {"py/attr5.py", "import make\n"                /* 1 */
                    "def other():\n"               /* 2 */
                    "    return make.version\n"},  /* 3 */
    {"py/attr6.py", "class Bag:\n"                          /* 1 */
                    "    def pop(self):\n"                  /* 2 */
                    "        return 1\n"                    /* 3 */
                    "    def note(self):\n"                 /* 4 */
                    "        return self.pop()\n"           /* 5 */
                    "def take(*args, **kw):\n"              /* 6 */
                    "    kw.pop(\"a\")\n"                   /* 7 */
                    "    args.pop()\n"                      /* 8 */
                    "    name = Bag.__name__\n"             /* 9 */
                    "    name.pop()\n"                      /* 10 */
                    "def note(bag: Bag):\n"                 /* 11 */
                    "    bag.pop()\n"                       /* 12 */
                    "def shadow(note):\n"                   /* 13 */
                    "    return note()\n"                   /* 14 */
                    "class Keeper:\n"                       /* 15 */
                    "    def __init__(self, bag: Bag):\n"   /* 16 */
                    "        self.bag = bag\n"              /* 17 */
                    "    def run_bag(self):\n"              /* 18 */
                    "        b = self.bag\n"                /* 19 */
                    "        return b.pop()\n"},            /* 20 */
    /* a call's value followed by more is not the called class's */
    {"py/chain.py", "class Sack2:\n"                 /* 1 */
                    "    def stow(self):\n"          /* 2 */
                    "        return 1\n"             /* 3 */
                    "class Chest:\n"                 /* 4 */
                    "    def lid(self) -> Sack2:\n"  /* 5 */
                    "        return Sack2()\n"       /* 6 */
                    "def unpack():\n"                /* 7 */
                    "    x = Chest().lid()\n"        /* 8 */
                    "    return x.stow()\n"},        /* 9 */
    /* a class of the standard library's as the file that declares the attribute imports it */
    {"py/opts.py", "import argparse\n"                         /* 1 */
                   "class Conf:\n"                             /* 2 */
                   "    def __init__(self):\n"                 /* 3 */
                   "        self.opts = argparse.Namespace()\n" /* 4 */
                   "def knob():\n"                             /* 5 */
                   "    return 1\n"},                          /* 6 */
    {"py/opts_use.py", "def use_conf(conf: \"Conf\"):\n" /* 1 */
                       "    return conf.opts.knob\n"},   /* 2 */
    /* Python elements: a generic annotation's (`List[str]`, `Dict[str, Reel]`, `Optional[List[Reel]]`),
     * by index, by a loop or a comprehension, through a dict's items() and values(); a class attribute
     * typed by its value (`sep = os.sep`); a method's `-> T` through its receiver's class; what an unknown
     * value's str method gives; a lambda's parameter and a parameter assigned again: not known */
    /* operators: of values none of whose attributes are the repo's, such a value (a Path's `/`, a str's
     * `+`, `and`, `if … else`); with a value of the repo's (its reflected operator), not known */
    {"py/ops.py", "from pathlib import Path\n"                              /* 1 */
                  "class Tag:\n"                                            /* 2 */
                  "    def mark(self):\n"                                   /* 3 */
                  "        return 1\n"                                      /* 4 */
                  "def ops(base: Path, name: str, sep: bool, t: Tag):\n"    /* 5 */
                  "    (base / name).mark()\n"                              /* 6 */
                  "    p = base / \"x\"\n"                                  /* 7 */
                  "    p.mark()\n"                                          /* 8 */
                  "    (\" or \" if sep else \" and \").mark()\n"           /* 9 */
                  "    (\"a\" + name).mark()\n"                             /* 10 */
                  "    (t).mark()\n"                                        /* 11 */
                  "    (name + t).mark()\n"},                               /* 12 */
    /* `if isinstance(x, T):` narrows x in its block, `isinstance(x, T) and` after it; a Union is no
     * class of the standard library's */
    {"py/narrow.py", "from typing import Optional, List, Union\n"                                   /* 1 */
                     "class Plain:\n"                                                               /* 2 */
                     "    pass\n"                                                                   /* 3 */
                     "class Case(Plain):\n"                                                         /* 4 */
                     "    def __init__(self):\n"                                                    /* 5 */
                     "        self.notes: Optional[List[str]] = None\n"                             /* 6 */
                     "    def tick(self):\n"                                                        /* 7 */
                     "        return 1\n"                                                           /* 8 */
                     "class Other2:\n"                                                              /* 9 */
                     "    def tick(self):\n"                                                        /* 10 */
                     "        return 2\n"                                                           /* 11 */
                     "class Holder2:\n"                                                             /* 12 */
                     "    def __init__(self):\n"                                                    /* 13 */
                     "        self.case = Case()\n"                                                 /* 14 */
                     "def check(item: Plain, u: Union[Case, Other2], h: Union[Holder2, Plain]):\n"  /* 15 */
                     "    if isinstance(item, Case):\n"                                             /* 16 */
                     "        if item.notes:\n"                                                     /* 17 */
                     "            item.notes.tick()\n"                                              /* 18 */
                     "        item.tick()\n"                                                        /* 19 */
                     "    item.tick()\n"                                                            /* 20 */
                     "    u.tick()\n"                                                               /* 21 */
                     "    h.case.tick()\n"                                                          /* 22 */
                     "    return isinstance(u, Other2) and u.tick()\n"},                            /* 23 */
    {"py/elems.py", "import os\n"                                                               /* 1 */
                    "import argparse\n"                                                         /* 2 */
                    "from typing import Dict, List, Optional\n"                                 /* 3 */
                    "class Reel:\n"                                                             /* 4 */
                    "    def wind(self):\n"                                                     /* 5 */
                    "        return 1\n"                                                        /* 6 */
                    "class Spool:\n"                                                            /* 7 */
                    "    def wind(self):\n"                                                     /* 8 */
                    "        return 2\n"                                                        /* 9 */
                    "class Maker:\n"                                                            /* 10 */
                    "    def mint(self) -> Reel:\n"                                             /* 11 */
                    "        return Reel()\n"                                                   /* 12 */
                    "class Other:\n"                                                            /* 13 */
                    "    def mint(self) -> \"Spool\":\n"                                        /* 14 */
                    "        return Spool()\n"                                                  /* 15 */
                    "class Loom:\n"                                                             /* 16 */
                    "    sep = os.sep\n"                                                        /* 17 */
                    "    def __init__(self, lines: List[str],\n"                                /* 18 */
                    "                 reels: Optional[List[Reel]], table: Dict[str, Reel]):\n"  /* 19 */
                    "        self.lines = lines\n"                                              /* 20 */
                    "        self.reels = reels\n"                                              /* 21 */
                    "        self.table = table\n"                                              /* 22 */
                    "        self.opts = argparse.Namespace()\n"                                /* 23 */
                    "    def weave(self, m: Maker):\n"                                          /* 24 */
                    "        self.lines[0].wind()\n"                                            /* 25 */
                    "        self.reels[-1].wind()\n"                                           /* 26 */
                    "        for line in self.lines:\n"                                         /* 27 */
                    "            line.wind()\n"                                                 /* 28 */
                    "        for key in self.table:\n"                                          /* 29 */
                    "            key.wind()\n"                                                  /* 30 */
                    "        for key, reel in self.table.items():\n"                            /* 31 */
                    "            reel.wind()\n"                                                 /* 32 */
                    "        [r.wind() for r in self.table.values()]\n"                         /* 33 */
                    "        self.sep.wind()\n"                                                 /* 34 */
                    "        parts = self.cfg.get(\"x\").split(\",\")\n"                        /* 35 */
                    "        parts[0].wind()\n"                                                 /* 36 */
                    "        (w.wind() for w in parts)\n"                                       /* 37 */
                    "        m.mint().wind()\n"                                                 /* 38 */
                    "        return lambda x: x.wind()\n"                                       /* 39 */
                    "def spin(src: List[str] = None):\n"                                        /* 40 */
                    "    if not src:\n"                                                         /* 41 */
                    "        src = [Reel()]\n"                                                  /* 42 */
                    "    for s in src:\n"                                                       /* 43 */
                    "        s.wind()\n"},                                                      /* 44 */
};

static struct mg_db *open_repo(void)
{
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir();
    for (size_t i = 0; i < sizeof(FILES) / sizeof(FILES[0]); i++) mg_t_write_str(repo, FILES[i][0], FILES[i][1]);
    setenv("MEMGATE_HOME", home, 1);
    setenv("MEMGATE_EMBEDDER", "none", 1);
    json_decref(mg_fx_run_json(NULL, home, (const char *const[]){"index", repo, "--name", "typed", "--json", NULL}));
    struct mg_err err = {0};
    struct mg_config cfg;
    if (mg_config_load(&cfg, &err) != 0) FAIL("config: %s", err.msg);
    struct mg_repo *rv;
    size_t nr;
    const char *ids[1] = {"typed"};
    if (mg_catalog_resolve(&cfg, ids, 1, NULL, &rv, &nr, &err) != 0) FAIL("resolve: %s", err.msg);
    struct mg_db *d;
    if (mg_db_open(rv[0].dbpath, MG_DB_READONLY, &d, &err) != 0) FAIL("open: %s", err.msg);
    free(rv);
    return d;
}

/* "line->to_path:to_line:callee(confidence)" for each callee of name. */
static const char *callees(struct mg_db *d, const char *name)
{
    static char b[2048];
    struct mg_err err = {0};
    struct mg_nav_graph g;
    if (mg_nav_callees(d, NULL, name, 1, 100, 0, &g, &err) != 0) FAIL("callees %s: %s", name, err.msg);
    size_t o = 0;
    b[0] = 0;
    for (size_t i = 0; i < g.n; i++) {
        const struct mg_nav_edge *x = &g.v[i];
        if (strcmp(x->confidence, "external") == 0) continue;
        o += (size_t)snprintf(b + o, sizeof(b) - o, "%s%d->%s:%d:%s(%s)", o ? " " : "", x->line,
                              x->to ? x->to->path : "?", x->to ? x->to->start_line : 0, x->callee, x->confidence);
    }
    mg_nav_graph_release(&g);
    return b;
}

TEST(nav_type_receivers_resolve_to_their_types_method)
{
    struct mg_db *d = open_repo();
    /* Go: a of type *A calls A's Close, b := &B{} B's, not the first Close of the file */
    ASSERT_EQ_STR(callees(d, "use"), "7->go/closer/closer.go:6:Close(type)");
    ASSERT_EQ_STR(callees(d, "use2"), "10->go/closer/closer.go:4:Close(type)");
    /* Python: self. in Q's method, q = Q() */
    ASSERT_EQ_STR(callees(d, "go"), "8->py/two.py:5:run(type)");
    ASSERT_EQ_STR(callees(d, "top"), "11->py/two.py:5:run(type)");
    /* Java, TypeScript, Rust */
    struct mg_err err = {0};
    struct mg_nav_graph g;
    ASSERT_EQ_INT(mg_nav_callers(d, NULL, "size", 1, 100, 0, &g, &err), 0);
    ASSERT_EQ_INT(g.n, 1);
    ASSERT_EQ_INT(g.v[0].to->start_line, 2);
    ASSERT_EQ_STR(g.v[0].confidence, "type");
    mg_nav_graph_release(&g);
    ASSERT_EQ_STR(callees(d, "show"), "3->ts/v.ts:2:render(type)");
    ASSERT_EQ_STR(callees(d, "run"), "5->rs/src/lib.rs:4:area(type)");
    mg_db_close(&d);
}

TEST(nav_type_bare_calls_never_reach_methods)
{
    struct mg_db *d = open_repo();
    /* Go: Shut() is the function, t.Shut() T's method */
    ASSERT_EQ_STR(callees(d, "stop"), "6->go/bare/bare.go:4:Shut(exact) 7->go/bare/bare.go:3:Shut(type)");
    /* Python and TypeScript: a bare put()/draw() is no method (a builtin or a global: external) */
    ASSERT_EQ_STR(callees(d, "put_all"), "");
    ASSERT_EQ_STR(callees(d, "paint"), "");
    struct mg_err err = {0};
    struct mg_nav_graph g;
    /* nor is it listed among the callers of the method put */
    ASSERT_EQ_INT(mg_nav_callers(d, NULL, "put", 1, 100, 0, &g, &err), 0);
    ASSERT_EQ_INT(g.n, 0);
    mg_nav_graph_release(&g);
    /* C++: a bare call in a member function is one of the class's */
    ASSERT_EQ_STR(callees(d, "b"), "1->cpp/k.cpp:1:a(exact)");
    mg_db_close(&d);
}

TEST(nav_type_calls_into_the_standard_library_are_not_the_repos)
{
    struct mg_db *d = open_repo();
    /* Python: shutil.copy, osp.join (import … as), decoder.decode (from json import (…)) are the
     * library's; store.copy and the bare copy stay the repo's */
    ASSERT_EQ_STR(callees(d, "backup"), "16->py/std.py:6:copy(exact) 17->py/std.py:6:copy(exact)");
    /* a chain of names from a standard module is the library's; a bare call after `:` stays bare */
    ASSERT_EQ_STR(callees(d, "walk"), ""); /* put is only Store's method (py/bare.py) */
    /* Go: bufio.NewWriter and str.Split (an alias) are the standard library's; bufx, a module's, is not */
    ASSERT_EQ_STR(callees(d, "pump"), "13->go/std/std.go:9:Flush(exact) 14->go/std/std.go:7:NewWriter(exact)");
    /* and through a receiver declared of a standard type (bufio.Reader); testing is not imported here, so
     * t.Errorf is no library call by this rule (there is no Errorf in the repo either) */
    ASSERT_EQ_STR(callees(d, "drain"), "22->go/std/std.go:17:Bytes(type)");
    /* a value a library function returns (b := bufio.NewReader(…)) may be of the repo's type: by name */
    ASSERT_EQ_STR(callees(d, "keep"), "26->go/std/std.go:17:Bytes(exact)");
    /* and no caller of the repo's join or Split is the library's */
    struct mg_err err = {0};
    struct mg_nav_graph g;
    ASSERT_EQ_INT(mg_nav_callers(d, NULL, "join", 1, 100, 0, &g, &err), 0);
    ASSERT_EQ_INT(g.n, 0);
    mg_nav_graph_release(&g);
    ASSERT_EQ_INT(mg_nav_callers(d, NULL, "Split", 1, 100, 0, &g, &err), 0);
    ASSERT_EQ_INT(g.n, 0);
    mg_nav_graph_release(&g);
    mg_db_close(&d);
}

/* "path:line" of each reference of name, in order. */
static const char *refs(struct mg_db *d, const char *name)
{
    static char b[2048];
    struct mg_err err = {0};
    struct mg_nav_refs r;
    if (mg_nav_references(d, NULL, name, NULL, 100, 0, &r, &err) != 0) FAIL("references %s: %s", name, err.msg);
    size_t o = 0;
    b[0] = 0;
    for (size_t i = 0; i < r.n; i++)
        o += (size_t)snprintf(b + o, sizeof(b) - o, "%s%s:%d", o ? " " : "", r.v[i].path, r.v[i].line);
    mg_nav_refs_release(&r);
    return b;
}

TEST(nav_type_references_leave_out_what_cannot_be_the_repos)
{
    struct mg_db *d = open_repo();
    /* put is only a method (Store.put): its bare uses are a builtin's or a global's */
    ASSERT_EQ_STR(refs(d, "put"), "");
    /* but a Python class body names its own methods bare */
    ASSERT_EQ_STR(refs(d, "take"), "py/bare.py:9");
    /* copy is a function: shutil.copy is the library's, store.copy and copy stay */
    ASSERT_EQ_STR(refs(d, "copy"), "py/std.py:16 py/std.py:17");
    /* Bytes: out is a bufio.Reader (the library's); mine a *Buf, b unknown */
    ASSERT_EQ_STR(refs(d, "Bytes"), "go/std/std.go:22 go/std/std.go:26");
    mg_db_close(&d);
}

TEST(nav_type_python_bare_names_bind_only_what_the_file_sees)
{
    struct mg_db *d = open_repo();
    /* a module-level function in its own file, through `from … import (…)`, through a star import;
     * not a parameter of the same name in a file that never imports it */
    ASSERT_EQ_STR(refs(d, "fmt"), "py/scope/helpers.py:10 py/scope/use_import.py:2 py/scope/use_import.py:5");
    ASSERT_EQ_STR(refs(d, "wrap"), "py/scope/use_star.py:3");
    /* a nested function is seen inside the function around it only */
    ASSERT_EQ_STR(refs(d, "inner"), "py/scope/helpers.py:8");
    ASSERT_EQ_STR(callees(d, "later"), "10->py/scope/helpers.py:1:fmt(exact)");
    ASSERT_EQ_STR(callees(d, "show_i"), "5->py/scope/helpers.py:1:fmt(import)");
    ASSERT_EQ_STR(callees(d, "show_n"), "");
    struct mg_err err = {0};
    struct mg_nav_graph g;
    ASSERT_EQ_INT(mg_nav_callers(d, NULL, "inner", 1, 100, 0, &g, &err), 0);
    ASSERT_EQ_INT(g.n, 1);
    ASSERT_EQ_STR(g.v[0].from->name, "outer");
    mg_nav_graph_release(&g);
    mg_db_close(&d);
}

TEST(nav_type_python_attributes_of_a_known_type_reach_only_its_methods)
{
    struct mg_db *d = open_repo();
    /* self.keys is a Keys (self.keys = Keys() in __init__), other unknown, SubKeys derives from Keys;
     * not a dict (a literal, __dict__), a set, nor self of a class unrelated to Keys; an import's
     * module path or alias is no use of the method */
    ASSERT_EQ_STR(refs(d, "update"), "py/attr.py:9 py/attr.py:14 py/attr.py:20");
    ASSERT_EQ_STR(callees(d, "refresh"), "9->py/attr.py:2:update(type) 14->py/attr.py:2:update(exact)");
    ASSERT_EQ_STR(callees(d, "elsewhere"), "");
    struct mg_err err = {0};
    struct mg_nav_graph g;
    ASSERT_EQ_INT(mg_nav_callers(d, NULL, "update", 1, 100, 0, &g, &err), 0);
    ASSERT_EQ_INT(g.n, 3);
    mg_nav_graph_release(&g);
    /* a class of the standard library's (StringIO), a class body's `cache: dict`, `Optional[Pool]`;
     * super() reaches the bases' methods only */
    ASSERT_EQ_STR(refs(d, "siphon"), "py/attr2.py:14 py/attr2.py:17");
    ASSERT_EQ_STR(callees(d, "empty"), "14->py/attr2.py:4:siphon(type) 14->py/attr2.py:16:siphon(dispatch)");
    ASSERT_EQ_STR(callees(d, "flush"), "");
    /* self.a declared by a base class, from a parameter's annotation there; a parameter assigned
     * again (src = Box()) may be either: kept */
    ASSERT_EQ_STR(refs(d, "fetch"), "py/attr3.py:12 py/attr3.py:21");
    ASSERT_EQ_STR(callees(d, "go_child"), "12->py/attr3.py:3:fetch(type)"); /* (the base's self.box: a Box) */
    mg_db_close(&d);
}

TEST(nav_type_python_values_are_typed_by_what_made_them)
{
    struct mg_db *d = open_repo();
    /* kept: a Crate (`-> "Crate"`, a property's `-> Crate` down a chain, `Crate()`), a Sack (an
     * attribute down a chain, `assert isinstance`), copy.copy's result (anything); left out: a module's
     * dict, a compiled pattern, a file, a str, a Path */
    ASSERT_EQ_STR(refs(d, "pack"), "py/attr4.py:25 py/attr4.py:26 py/attr4.py:27 py/attr4.py:32 py/attr4.py:36 "
                                   "py/attr4.py:41");
    /* and a call resolves by that type (once per name and type; dup's by name); a property read
     * (h.crate, h.sack.heft) is a call of it */
    ASSERT_EQ_STR(callees(d, "use_made"), "24->py/attr4.py:13:make(exact) 25->py/attr4.py:5:pack(type) "
                                          "26->py/attr4.py:18:crate(type) 27->py/attr4.py:8:pack(type) "
                                          "32->py/attr4.py:5:pack(exact) 38->py/attr4.py:10:heft(type)");
    ASSERT_EQ_STR(callees(d, "narrow"), "41->py/attr4.py:8:pack(type)");
    /* `import make` binds a module, not the function make */
    ASSERT_EQ_STR(refs(d, "make"), "py/attr4.py:20 py/attr4.py:24");
    /* reading a property calls it */
    struct mg_err err = {0};
    struct mg_nav_graph g;
    ASSERT_EQ_INT(mg_nav_callers(d, NULL, "heft", 1, 100, 0, &g, &err), 0);
    ASSERT_EQ_INT(g.n, 1);
    ASSERT_EQ_STR(g.v[0].from->name, "use_made");
    ASSERT_EQ_INT(g.v[0].line, 38);
    mg_nav_graph_release(&g);
    /* `*args` a tuple, `**kw` a dict, `x.__name__` a str; `b = self.bag` a Bag; a parameter hides
     * the module's function of its name */
    ASSERT_EQ_STR(refs(d, "pop"), "py/attr6.py:5 py/attr6.py:12 py/attr6.py:20");
    ASSERT_EQ_STR(callees(d, "run_bag"), "20->py/attr6.py:2:pop(type)");
    ASSERT_EQ_STR(refs(d, "note"), "");
    /* x = Chest().lid(): not a Chest (which has no stow) */
    ASSERT_EQ_STR(refs(d, "stow"), "py/chain.py:9");
    /* conf.opts is an argparse.Namespace where Conf is declared, not where it is used: the library's */
    ASSERT_EQ_STR(refs(d, "knob"), "");
    mg_db_close(&d);
}

TEST(nav_type_python_elements_and_bindings_are_typed)
{
    struct mg_db *d = open_repo();
    /* kept: a Reel by index (Optional[List[Reel]]), through items() and values(), a method's `-> Reel`
     * through its receiver's class, a lambda's parameter, a parameter assigned again; left out: a str by
     * index, by a loop, a dict's key, os.sep, an unknown value's split(), a comprehension's str */
    ASSERT_EQ_STR(refs(d, "wind"), "py/elems.py:26 py/elems.py:32 py/elems.py:33 py/elems.py:38 py/elems.py:39 "
                                   "py/elems.py:44");
    /* and the Reels resolve to Reel's wind by type (once per type), the lambda's by name; x = Chest().lid()
     * is a Sack2 */
    ASSERT_EQ_STR(callees(d, "weave"),
                  "26->py/elems.py:5:wind(type) 38->py/elems.py:11:mint(type) 39->py/elems.py:5:wind(exact)");
    ASSERT_EQ_STR(callees(d, "unpack"), "8->py/chain.py:5:lid(type) 9->py/chain.py:2:stow(type)");
    ASSERT_EQ_STR(refs(d, "mark"), "py/ops.py:11 py/ops.py:12");
    ASSERT_EQ_STR(callees(d, "ops"), "11->py/ops.py:3:mark(type) 12->py/ops.py:3:mark(exact)");
    /* item.notes in the block is a list; item.tick() there Case's, after it Plain's (Case's by dispatch);
     * u.tick() either's; h.case (through a Union) not known */
    ASSERT_EQ_STR(refs(d, "tick"), "py/narrow.py:19 py/narrow.py:20 py/narrow.py:21 py/narrow.py:22 "
                                   "py/narrow.py:23");
    ASSERT_EQ_STR(callees(d, "check"), "19->py/narrow.py:7:tick(type) 20->py/narrow.py:7:tick(dispatch) "
                                       "21->py/narrow.py:7:tick(exact) 22->py/narrow.py:7:tick(exact) "
                                       "23->py/narrow.py:10:tick(type)");
    mg_db_close(&d);
}
