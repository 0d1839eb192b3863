#!/usr/bin/env python3
"""nav_lsp_bench.py — references and call edges against the languages' own
servers, over LSP (run by bench/run.sh after nav_ts_bench.py, or alone after
`make` and `scripts/setup.sh --bench`, which installs gopls and pyright).

    bench/nav_lsp_bench.py [--lang c,python,go] [--queries 300] [--seed 1]
                           [--timeout 60] [--dump DIR]

Each language: one real repository at a fixed commit, unpacked (git archive)
from its git mirror into the benchmark cache ($MEMGATE_BENCH_CACHE/nav-lsp,
default ~/.cache/memgate-bench/nav-lsp; the bug-localisation bench's copy of
the same commit is used when present), and its language server:

  c       redis src/ at ed4c432ec55a, clangd (Debian; a compile_commands.json
          this script writes for src/*.c beside its own cache, background index)
  python  pytest src/ at 6bec880283cd, pyright-langserver (npm, pinned in
          bench/nav-py/package-lock.json)
  go      goldmark v1.7.0 (the module, tests included), gopls (Debian), with
          the Go toolchain from Debian and GOPROXY=off (goldmark has no
          dependencies)

memgate ($MEMGATE_BIN, default build/memgate; a sanitizer build works too,
with $NAV_SERVE_LOG naming a file for its server's stderr) indexes the same
tree afresh in its own data directory. --queries
functions and methods are drawn at random (seeded) among the names memgate's
index defines exactly once as a function or a method; the server places each
(textDocument/prepareCallHierarchy at the name in its definition must give an
item of that name, else the name is skipped and counted). For each:

  - references: the server's textDocument/references (no declaration; only
    locations spelled as the name), memgate's GET /v1/references (all
    pages), as (path, line);
  - call edges: the server's callHierarchy/incomingCalls, each call site
    (fromRanges) as (path, line); memgate's GET /v1/callers (depth 1, all
    pages), each call as (path, line);

micro-averaged precision and recall against the server, per language, with
a sample of each kind of disagreement (--dump DIR writes them all, with the
line's text and a guess at why: macro, comment, string, import,
declaration...). A request that times out (--timeout seconds) or a server
that dies is counted and reported, and the server is started again (at most
3 times a language). Latency: memgate's find_references first page and
callers over HTTP keep-alive to `memgate serve`, p50 and p99, beside the
server's references and incomingCalls for the same queries. Prints a
Markdown report per language; docs/benchmarks.md keeps the figures.
"""
import argparse
import json
import os
import queue
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.parse

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("MEMGATE_BIN", os.path.join(HERE, "build", "memgate"))
NODE = os.environ.get("MEMGATE_BENCH_NODE", "node")
CACHE = os.environ.get("MEMGATE_BENCH_CACHE", os.path.expanduser("~/.cache/memgate-bench"))
WORK = os.path.join(CACHE, "nav-lsp")
PYRIGHT = os.path.join(HERE, "bench", "nav-py", "node_modules", "pyright", "langserver.index.js")

sys.path.insert(0, os.path.join(HERE, "bench"))
from nav_bench import Api, env, log, pct  # noqa: E402  (the C part's helpers)

# lang: project, git mirror (default; $NAV_GIT_<PROJECT> overrides), clone URL,
# commit, the subdirectory both sides see, file extensions, LSP languageId
LANGS = {
    "c": dict(project="redis", git="/work/.mirror/redis+redis/repo", url="https://github.com/redis/redis",
              commit="ed4c432ec55a292044e1c7e2a7ff093784e07bb5", sub="src", exts=(".c", ".h"), lang_id="c",
              server="clangd"),
    "python": dict(project="pytest", git="/work/.mirror/pytest-dev+pytest/repo",
                   url="https://github.com/pytest-dev/pytest", commit="6bec880283cd9f6c37a73c522271e8eb5d0ffab7",
                   sub="src", exts=(".py",), lang_id="python", server="pyright"),
    "go": dict(project="goldmark", git="/work/.mirror/yuin+goldmark/repo", url="https://github.com/yuin/goldmark",
               commit="b8d6d3a9b75bb083e85bdc70d9f4fa41fe29345e", sub="", exts=(".go",), lang_id="go",
               server="gopls"),
}
MAX_RESTARTS = 3


# ---- 1. the corpus ---------------------------------------------------------------

def tree(spec):
    """The unpacked tree of spec's commit (its root), fetched once."""
    short = spec["commit"][:12]
    reuse = os.path.join(CACHE, "bugloc", spec["project"], f"src-{short}")
    if os.path.isdir(reuse):
        return reuse
    root = os.path.join(WORK, f"{spec['project']}-{short}")
    if os.path.isdir(root) and os.listdir(root):
        return root
    gd = os.environ.get(f"NAV_GIT_{spec['project'].upper()}", spec["git"])
    if not os.path.isdir(gd):
        return None
    log(f"unpacking {spec['project']} {short} from {gd} into {root} (once)")
    os.makedirs(root + ".part", exist_ok=True)
    a = subprocess.Popen(["git", "--git-dir", gd, "archive", spec["commit"]], stdout=subprocess.PIPE)
    subprocess.run(["tar", "x", "-C", root + ".part"], stdin=a.stdout, check=True)
    if a.wait() != 0:
        raise SystemExit(f"bench: git archive {spec['commit']} failed in {gd}")
    os.rename(root + ".part", root)
    return root


def compile_commands(src, out_dir):
    """A compile_commands.json for redis's src/*.c (the flags its Makefile
    gives, the dependencies' headers), in out_dir, outside the tree."""
    deps = os.path.join(os.path.dirname(src), "deps")
    incs = [src] + [os.path.join(deps, d) for d in ("hiredis", "linenoise", "hdr_histogram", "fpconv")] + \
        [os.path.join(deps, "lua", "src")]
    rows = []
    for f in sorted(os.listdir(src)):
        if f.endswith(".c"):
            rows.append({"directory": src, "file": os.path.join(src, f),
                         "arguments": ["cc", "-std=gnu11", "-pedantic", "-DREDIS_STATIC=", "-D_GNU_SOURCE"] +
                         [f"-I{i}" for i in incs] + ["-c", f, "-o", f[:-2] + ".o"]})
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "compile_commands.json"), "w") as f:
        json.dump(rows, f, indent=1)


# ---- 2. an LSP client (JSON-RPC over stdio) ---------------------------------------

class ServerDied(Exception):
    pass


class Lsp:
    """One language server: requests with a timeout, the server's own
    requests answered (configuration: empty; the rest: null), $/progress
    followed so the caller can wait for an index."""

    def __init__(self, argv, cwd, extra_env=None):
        e = dict(os.environ)
        e.update(extra_env or {})
        self.p = subprocess.Popen(argv, cwd=cwd, env=e, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL)
        self.lock = threading.Lock()
        self.next_id = 0
        self.waiting = {}
        self.progress = {}           # token -> last kind (begin, report, end)
        self.progress_at = time.monotonic()
        self.dead = False
        threading.Thread(target=self._read, daemon=True).start()

    def _send(self, msg):
        body = json.dumps(msg).encode()
        with self.lock:
            try:
                self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
                self.p.stdin.flush()
            except (BrokenPipeError, OSError, ValueError):
                self.dead = True
                raise ServerDied("the server closed its input")

    def _read(self):
        f = self.p.stdout
        try:
            while True:
                n = None
                while True:
                    line = f.readline()
                    if not line:
                        raise EOFError
                    line = line.strip()
                    if not line:
                        break
                    k, _, v = line.partition(b":")
                    if k.strip().lower() == b"content-length":
                        n = int(v)
                if n is None or n > (256 << 20):
                    raise EOFError
                msg = json.loads(f.read(n))
                if "method" in msg and "id" in msg:      # the server asks
                    res = None
                    if msg["method"] == "workspace/configuration":
                        res = [None for _ in msg.get("params", {}).get("items", [])]
                    self._send({"jsonrpc": "2.0", "id": msg["id"], "result": res})
                elif "method" in msg:
                    if msg["method"] == "$/progress":
                        pr = msg["params"]
                        self.progress[str(pr.get("token"))] = pr.get("value", {}).get("kind")
                        self.progress_at = time.monotonic()
                elif "id" in msg:
                    q = self.waiting.get(msg["id"])
                    if q:
                        q.put(msg)
        except (EOFError, ValueError, OSError, ServerDied):
            pass
        self.dead = True
        for q in list(self.waiting.values()):
            q.put(None)

    def request(self, method, params, timeout):
        if self.dead:
            raise ServerDied("the server is not running")
        self.next_id += 1
        i = self.next_id
        q = queue.Queue()
        self.waiting[i] = q
        self._send({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
        try:
            msg = q.get(timeout=timeout)
        except queue.Empty:
            self._send({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": i}})
            raise TimeoutError(f"{method}: no answer in {timeout} s")
        finally:
            self.waiting.pop(i, None)
        if msg is None:
            raise ServerDied(f"{method}: the server died (exit {self.p.poll()})")
        if "error" in msg:
            raise RuntimeError(f"{method}: {msg['error'].get('message')}")
        return msg.get("result")

    def notify(self, method, params):
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def stop(self):
        try:
            if not self.dead:
                self.request("shutdown", None, 10)
                self.notify("exit", None)
            self.p.wait(timeout=10)
        except Exception:
            self.p.kill()
            self.p.wait()


def uri(path):
    return "file://" + urllib.parse.quote(path)


def unuri(u):
    return urllib.parse.unquote(urllib.parse.urlparse(u).path)


# ---- 3. the servers ---------------------------------------------------------------

def server_argv(lang, root, src):
    """argv, cwd, extra environment of lang's server, or a sentence saying
    what is missing."""
    if lang == "c":
        if not shutil.which("clangd"):
            return "clangd is missing; run 'scripts/setup.sh --bench' (Debian package clangd)"
        ccdb = os.path.join(WORK, "clangd-redis")
        compile_commands(src, ccdb)
        return ["clangd", "--background-index", f"--compile-commands-dir={ccdb}", "-j=2", "--log=error",
                "--pch-storage=memory", "--header-insertion=never", "--clang-tidy=0"], src, {}
    if lang == "python":
        if not os.path.exists(PYRIGHT):
            return "pyright is missing from bench/nav-py; run 'scripts/setup.sh --bench'"
        return [NODE, PYRIGHT, "--stdio"], src, {}
    if lang == "go":
        for t in ("gopls", "go"):
            if not shutil.which(t):
                return f"{t} is missing; run 'scripts/setup.sh --bench' (Debian packages gopls and golang-go)"
        gc = os.path.join(WORK, "go")
        return ["gopls"], src, {"GOPROXY": "off", "GOFLAGS": "-mod=mod", "GOPATH": os.path.join(gc, "path"),
                                "GOCACHE": os.path.join(gc, "cache"), "GO111MODULE": "on"}
    raise ValueError(lang)


def start(lang, root, src, timeout):
    argv, cwd, extra = server_argv(lang, root, src)
    s = Lsp(argv, cwd, extra)
    s.request("initialize", {
        "processId": os.getpid(), "rootUri": uri(src), "rootPath": src,
        "workspaceFolders": [{"uri": uri(src), "name": os.path.basename(src)}],
        "capabilities": {"window": {"workDoneProgress": True},
                         "textDocument": {"references": {}, "callHierarchy": {},
                                          "synchronization": {"didSave": False}},
                         "workspace": {"configuration": True, "workspaceFolders": True}},
        "initializationOptions": {}}, max(timeout, 120))
    s.notify("initialized", {})
    return s


def wait_index(s, lang, first_file, limit):
    """clangd: open one file and wait for the background index to end (its
    $/progress), at most limit seconds; quiet 20 s after start means a
    cached index."""
    if lang != "c":
        return
    t0 = time.monotonic()
    s.notify("textDocument/didOpen", {"textDocument": {"uri": uri(first_file), "languageId": "c", "version": 1,
                                                       "text": open(first_file, errors="replace").read()}})
    while time.monotonic() - t0 < limit and not s.dead:
        kinds = list(s.progress.values())
        if kinds and all(k == "end" for k in kinds) and time.monotonic() - s.progress_at > 3:
            return
        if not kinds and time.monotonic() - t0 > 20:
            return
        time.sleep(0.5)
    log(f"clangd's background index did not end in {limit} s; going on")


# ---- 4. the comparison ------------------------------------------------------------

def sample(db_path, lang, seed):
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    langs = {"c": ("c",), "python": ("python",), "go": ("go",), "typescript": ("typescript", "tsx")}[lang]
    rows = db.execute(
        "SELECT s.name, min(s.kind), min(f.path), min(s.start_line), min(f.lang) FROM symbols s "
        "JOIN files f ON f.id = s.file_id GROUP BY s.name HAVING count(*) = 1").fetchall()
    rows = sorted(r[:4] for r in rows if r[1] in ("function", "method") and r[4] in langs)
    random.Random(seed).shuffle(rows)
    return rows


class Lines:
    def __init__(self, src):
        self.src, self.cache = src, {}

    def get(self, path):
        if path not in self.cache:
            try:
                with open(os.path.join(self.src, path), errors="replace") as f:
                    self.cache[path] = f.read().split("\n")
            except OSError:
                self.cache[path] = []
        return self.cache[path]

    def line(self, path, n):
        t = self.get(path)
        return t[n - 1] if 0 < n <= len(t) else ""


def name_pos(lines, path, name, line):
    """(line0, col) of name in its definition: the first whole-word match on
    the definition's first lines."""
    t = lines.get(path)
    w = re.compile(r"(?<![\w$])" + re.escape(name) + r"(?![\w$])")
    for i in range(max(line - 1, 0), min(line + 12, len(t))):
        m = w.search(t[i])
        if m:
            return i, m.start()
    return None


def why(lang, text, name):
    """A guess at what a disagreeing line is (for the reader; the report
    says which kinds it counts)."""
    s = text.strip()
    if not re.search(r"(?<![\w$])" + re.escape(name) + r"(?![\w$])", s):
        return "spelled otherwise"
    if lang in ("c",):
        if s.startswith("#") or s.endswith("\\"):
            return "macro"
        if s.startswith(("/*", "*", "//")):
            return "comment"
        head = s.split(name)[0]
        if re.search(re.escape(name) + r"\s*\(.*\)\s*;$", s) and head.strip() and re.fullmatch(r"[\w\s*]*", head) and \
                not head.strip().startswith("return"):
            return "declaration"
    if lang == "python":
        if s.startswith("#"):
            return "comment"
        if s.startswith(("import ", "from ")):
            return "import"
        if s.startswith("def ") or s.startswith("async def "):
            return "definition line"
    if lang == "go":
        if s.startswith("//"):
            return "comment"
        if s.startswith("func "):
            return "definition line"
    if re.search(r"[\"'`][^\"'`]*\b" + re.escape(name) + r"\b[^\"'`]*[\"'`]", s):
        return "string"
    if not re.search(r"\b" + re.escape(name) + r"\s*\(", s):
        return "not a call (value)"
    return "call"


def pages(api, route, name, first):
    """Every (path, line) of memgate's answer `first` to route, following
    next_cursor: each reference of /v1/references, each call at depth 1 of
    /v1/callers."""
    out, r = set(), first
    while True:
        if "error" in r:
            raise SystemExit(f"bench: {route} {name}: {r['error']}")
        if route == "/v1/references":
            out.update((f["path"], x["line"]) for f in r.get("files", []) for x in f["references"])
        else:
            out.update((c["path"], c["line"]) for c in r.get("calls", []) if c.get("depth", 1) == 1)
        if not r.get("next_cursor"):
            return out
        r = api.get(route, symbol=name, cursor=r["next_cursor"], limit=1000)


def rel(src, path):
    path = os.path.realpath(path)
    r = os.path.relpath(path, os.path.realpath(src))
    return None if r.startswith("..") else r


def run_lang(lang, a):
    spec = LANGS[lang]
    root = tree(spec)
    if root is None:
        print(f"\n### {lang}: skipped: no git mirror of {spec['project']}; get one with `git clone --mirror "
              f"{spec['url']} DIR` and NAV_GIT_{spec['project'].upper()}=DIR\n")
        return None
    src = os.path.join(root, spec["sub"]) if spec["sub"] else root
    missing = server_argv(lang, root, src)
    if isinstance(missing, str):
        print(f"\n### {lang}: skipped: {missing}\n")
        return None
    t_lang = time.monotonic()
    home = os.path.join(WORK, f"home-{lang}")
    shutil.rmtree(home, ignore_errors=True)
    t0 = time.monotonic()
    subprocess.run([BIN, "index", src, "--name", spec["project"], "--quiet"], env=env(home), check=True)
    index_s = time.monotonic() - t0
    cands = sample(os.path.join(home, "repos", spec["project"] + ".db"), lang, a.seed)
    lines = Lines(src)
    log(f"{lang}: {spec['project']} indexed in {index_s:.1f} s; {len(cands)} candidates; starting {spec['server']}")

    failures = {"timeout": 0, "died": 0, "error": 0}
    fail_samples = []
    restarts = 0
    t0 = time.monotonic()
    s = start(lang, root, src, a.timeout)
    first = next((os.path.join(src, p) for _, _, p, _ in cands), None)
    wait_index(s, lang, first, a.index_timeout)
    start_s = time.monotonic() - t0
    log(f"{lang}: server ready in {start_s:.0f} s")

    def ask(method, params):
        nonlocal s, restarts
        try:
            return s.request(method, params, a.timeout)
        except TimeoutError as e:
            failures["timeout"] += 1
            fail_samples.append(str(e))
        except ServerDied as e:
            failures["died"] += 1
            fail_samples.append(str(e))
            if restarts < MAX_RESTARTS:
                restarts += 1
                log(f"{lang}: {e}; starting it again ({restarts}/{MAX_RESTARTS})")
                s.stop()
                s = start(lang, root, src, a.timeout)
                wait_index(s, lang, first, a.index_timeout)
        except RuntimeError as e:
            failures["error"] += 1
            fail_samples.append(str(e))
        return False

    picked, unplaced = [], []
    srv_refs, srv_calls, srv_ref_ms, srv_call_ms = {}, {}, {}, {}
    renamed = 0
    for name, kind, path, line in cands:
        if len(picked) >= a.queries or s.dead and restarts >= MAX_RESTARTS:
            break
        pos = name_pos(lines, path, name, line)
        if not pos:
            unplaced.append(name)
            continue
        full = os.path.join(src, path)
        doc = {"uri": uri(full)}
        s.notify("textDocument/didOpen", {"textDocument": {"uri": doc["uri"], "languageId": spec["lang_id"],
                                                           "version": 1, "text": "\n".join(lines.get(path))}})
        at = {"textDocument": doc, "position": {"line": pos[0], "character": pos[1]}}
        items = ask("textDocument/prepareCallHierarchy", at)
        item = next((i for i in items or [] if re.sub(r".*[.)]", "", i.get("name", "")).strip() == name), None) \
            if items is not False else None
        if item is None:
            if items is not False:
                unplaced.append(name)
            s.notify("textDocument/didClose", {"textDocument": doc})
            continue
        t0 = time.monotonic()
        refs = ask("textDocument/references", dict(at, context={"includeDeclaration": False}))
        srv_ref_ms[name] = (time.monotonic() - t0) * 1000
        t0 = time.monotonic()
        calls = ask("callHierarchy/incomingCalls", {"item": item})
        srv_call_ms[name] = (time.monotonic() - t0) * 1000
        s.notify("textDocument/didClose", {"textDocument": doc})
        if refs is False or calls is False:
            continue
        got = set()
        for r in refs or []:
            p = rel(src, unuri(r["uri"]))
            if p is None or not p.endswith(spec["exts"]):
                continue
            st, en = r["range"]["start"], r["range"]["end"]
            t = lines.line(p, st["line"] + 1)
            if st["line"] == en["line"] and t[st["character"]:en["character"]] != name:
                renamed += 1
                continue
            got.add((p, st["line"] + 1))
        # the definition itself is no reference (a server may list it)
        got.discard((path, pos[0] + 1))
        sites = set()
        for c in calls or []:
            p = rel(src, unuri(c["from"]["uri"]))
            if p is None or not p.endswith(spec["exts"]):
                continue
            for fr in c.get("fromRanges") or [c["from"]["selectionRange"]]:
                sites.add((p, fr["start"]["line"] + 1))
        picked.append((name, kind, path, pos[0] + 1))
        srv_refs[name], srv_calls[name] = got, sites
    s.stop()
    server_s = time.monotonic() - t_lang - index_s
    if not picked:
        print(f"\n### {lang}: no symbol placed by {spec['server']} ({len(unplaced)} tried; failures {failures}: "
              f"{'; '.join(fail_samples[:3])})\n")
        return None

    # memgate over HTTP
    names = [p[0] for p in picked]
    m_refs, m_calls, m_ref_ms, m_call_ms = {}, {}, {}, {}
    p = subprocess.Popen([BIN, "serve", "--listen", "127.0.0.1:0", "--json"], env=env(home), stdout=subprocess.PIPE,
                         stderr=open(os.environ.get("NAV_SERVE_LOG", os.devnull), "w"), text=True)
    try:
        api = Api(json.loads(p.stdout.readline())["port"])
        api.get("/v1/references", symbol=names[0])  # warm
        for name in names:
            t0 = time.monotonic()
            r = api.get("/v1/references", symbol=name)
            m_ref_ms[name] = (time.monotonic() - t0) * 1000
            m_refs[name] = {x for x in pages(api, "/v1/references", name, r) if x[0].endswith(spec["exts"])}
            t0 = time.monotonic()
            r = api.get("/v1/callers", symbol=name)
            m_call_ms[name] = (time.monotonic() - t0) * 1000
            m_calls[name] = {x for x in pages(api, "/v1/callers", name, r) if x[0].endswith(spec["exts"])}
    finally:
        p.terminate()
        p.wait(timeout=60)
    total_s = time.monotonic() - t_lang

    def compare(mine, theirs):
        both = sum(len(mine[n] & theirs[n]) for n in names)
        mt, st = sum(len(mine[n]) for n in names), sum(len(theirs[n]) for n in names)
        only_s = [(n, x) for n in names for x in sorted(theirs[n] - mine[n])]
        only_m = [(n, x) for n in names for x in sorted(mine[n] - theirs[n])]
        return dict(m=mt, s=st, recall=both / st if st else 1.0, precision=both / mt if mt else 1.0,
                    only_s=only_s, only_m=only_m)

    refs_cmp, calls_cmp = compare(m_refs, srv_refs), compare(m_calls, srv_calls)
    return dict(lang=lang, spec=spec, src=src, lines=lines, picked=picked, unplaced=len(unplaced), index_s=index_s,
                start_s=start_s, server_s=server_s, total_s=total_s, failures=failures, fail_samples=fail_samples,
                restarts=restarts, refs=refs_cmp, calls=calls_cmp, renamed=renamed, m_ref_ms=m_ref_ms,
                m_call_ms=m_call_ms, srv_ref_ms=srv_ref_ms, srv_call_ms=srv_call_ms)


# ---- 5. the report ------------------------------------------------------------------

def version(lang):
    try:
        if lang == "c":
            return subprocess.run(["clangd", "--version"], capture_output=True, text=True).stdout.split("\n")[0]
        if lang == "python":
            with open(os.path.join(os.path.dirname(PYRIGHT), "package.json")) as f:
                return "pyright " + json.load(f)["version"]
        if lang == "go":
            v = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "gopls"], capture_output=True, text=True).stdout
            g = subprocess.run(["go", "version"], capture_output=True, text=True).stdout.split()[2]
            return f"gopls {v} (Debian), {g}"
    except (OSError, IndexError, ValueError):
        pass
    return "?"


def report(r, a, dump):
    lang, spec, lines = r["lang"], r["spec"], r["lines"]
    kinds = {n: k for n, k, _, _ in r["picked"]}
    names = [p[0] for p in r["picked"]]
    fl = r["failures"]
    print(f"""
### {lang}: {spec['project']} {spec['commit'][:12]} against {version(lang)}

`bench/nav_lsp_bench.py --lang {lang} --queries {a.queries} --seed {a.seed}`: {len(names)} functions and methods
memgate's index defines once and the server places ({sum(kinds[n] == 'method' for n in names)} methods;
{r['unplaced']} more drawn that the server gave no call-hierarchy item of that name); {spec['project']}'s
{spec['sub'] or 'module'}, {', '.join(spec['exts'])} files. {r['renamed']} server references spelled otherwise left out.
Server: {sum(fl.values())} failed requests (timeout {fl['timeout']}, died {fl['died']}, error {fl['error']}),
{r['restarts']} restarts{(': ' + '; '.join(dict.fromkeys(r['fail_samples']))[:300]) if r['fail_samples'] else ''}.

| measure | memgate | {spec['server']} |
| --- | --- | --- |
| references found | {r['refs']['m']} | {r['refs']['s']} |
| references: precision / recall | **{r['refs']['precision']:.3f} / {r['refs']['recall']:.3f}** | — |
| call edges (call sites of callers, depth 1) | {r['calls']['m']} | {r['calls']['s']} |
| call edges: precision / recall | **{r['calls']['precision']:.3f} / {r['calls']['recall']:.3f}** | — |
| references, per query | first page p50 {pct(list(r['m_ref_ms'].values()), .5):.1f} ms, p99 {pct(list(r['m_ref_ms'].values()), .99):.1f} ms | p50 {pct(list(r['srv_ref_ms'].values()), .5):.1f} ms, p99 {pct(list(r['srv_ref_ms'].values()), .99):.1f} ms |
| callers / incomingCalls, per query | p50 {pct(list(r['m_call_ms'].values()), .5):.1f} ms, p99 {pct(list(r['m_call_ms'].values()), .99):.1f} ms | p50 {pct(list(r['srv_call_ms'].values()), .5):.1f} ms, p99 {pct(list(r['srv_call_ms'].values()), .99):.1f} ms |
| set-up | index {r['index_s']:.1f} s | start{' and background index' if lang == 'c' else ''} {r['start_s']:.0f} s |
| the whole language | {r['total_s']:.0f} s wall ({r['server_s']:.0f} s of it the server's) | |
""")
    rnd = random.Random(a.seed)
    for what in ("refs", "calls"):
        c = r[what]
        for side, rows in ((spec["server"], c["only_s"]), ("memgate", c["only_m"])):
            tally = {}
            for n, (p, l) in rows:
                k = why(lang, lines.line(p, l), n)
                tally[k] = tally.get(k, 0) + 1
            label = "references" if what == "refs" else "call edges"
            print(f"{label} only {side} lists: {len(rows)}" +
                  (" (" + ", ".join(f"{k} {v}" for k, v in sorted(tally.items(), key=lambda x: -x[1])) + ")" if rows else ""))
            for n, (p, l) in sorted(rnd.sample(rows, min(6, len(rows)))):
                print(f"    {n}  {p}:{l}  [{why(lang, lines.line(p, l), n)}] {lines.line(p, l).strip()[:100]}")
    print()
    if dump:
        os.makedirs(dump, exist_ok=True)
        with open(os.path.join(dump, f"{lang}.tsv"), "w") as f:
            for what in ("refs", "calls"):
                for side, rows in ((spec["server"], r[what]["only_s"]), ("memgate", r[what]["only_m"])):
                    for n, (p, l) in rows:
                        t = lines.line(p, l)
                        f.write(f"{what}\t{side}\t{n}\t{p}\t{l}\t{why(lang, t, n)}\t{t.strip()[:160]}\n")
        with open(os.path.join(dump, f"{lang}-slowest.tsv"), "w") as f:  # memgate's 20 slowest queries
            for what, ms in (("refs", r["m_ref_ms"]), ("callers", r["m_call_ms"])):
                for n, v in sorted(ms.items(), key=lambda x: -x[1])[:20]:
                    f.write(f"{what}\t{n}\t{v:.1f}\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lang", default="c,python,go", help="comma-separated: c, python, go")
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=60, help="seconds per LSP request")
    ap.add_argument("--index-timeout", type=float, default=1200, help="seconds to wait for clangd's index")
    ap.add_argument("--dump", help="write every disagreement into DIR/LANG.tsv, memgate's slowest queries into DIR/LANG-slowest.tsv")
    a = ap.parse_args()
    os.makedirs(WORK, exist_ok=True)
    print(f"\n## Code navigation against the language servers — {time.strftime('%Y-%m-%d', time.gmtime())}, "
          f"{os.cpu_count()} cores\n")
    for lang in a.lang.split(","):
        if lang not in LANGS:
            raise SystemExit(f"bench: --lang {lang}: one of {', '.join(LANGS)}")
        r = run_lang(lang, a)
        if r:
            report(r, a, a.dump)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
