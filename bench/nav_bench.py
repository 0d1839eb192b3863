#!/usr/bin/env python3
"""nav_bench.py — code navigation against GNU Global on linux-6.1 (run by
bench/run.sh, or alone after `make bench` built build/memgate and fetched the
kernel; `scripts/setup.sh --bench` installs Global).

    bench/nav_bench.py [--queries 300] [--seed 1]

The kernel source in the benchmark cache is indexed once by memgate (its own
data directory) and by gtags (its own tag directory). --queries functions are
drawn at random (seeded) among the C functions memgate's index defines exactly
once and `global -x` also finds defined exactly once. For each:

  - Global's references: `global -rx NAME` (every line that uses a defined
    name and is not its definition);
  - memgate's: GET /v1/references?symbol=NAME, all pages;

compared as sets of (path, line) over .c and .h files: micro-averaged recall
and precision against Global, with a sample of each kind of disagreement
printed for inspection. Latency: find_references' first page (the default 50),
callers and callees (depth 1) and outline (of the file defining each function) over HTTP
keep-alive to `memgate serve`, p50 and p99, beside the time `global -rx` takes
for the same queries (each a process, as an agent's shell would run it); and
impact (POST /v1/impact) of --diffs unified diffs, each changing one line in
one function of 20 files drawn at random, at depth 1 and 2. Prints a Markdown
report; docs/benchmarks.md keeps the figures.

    bench/nav_bench.py --repo-map [--home DIR] [--budget 1024]

times repo_map instead (see repo_map() below) on the index in DIR.
"""
import argparse
import http.client
import json
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import time
import urllib.parse

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("MEMGATE_BIN", os.path.join(HERE, "build", "memgate"))
CACHE = os.environ.get("MEMGATE_BENCH_CACHE", os.path.expanduser("~/.cache/memgate-bench"))
SRC = os.path.join(CACHE, "linux-source-6.1")
WORK = os.path.join(CACHE, "nav")
HOME = os.path.join(WORK, "home")
GTAGS = os.path.join(WORK, "gtags")


def log(msg):
    print(f"bench: {msg}", file=sys.stderr, flush=True)


def env(home=HOME):
    """The environment of a memgate run on the data directory home (no
    MEMGATE_* of the caller's, no embedder, no watcher)."""
    e = {k: v for k, v in os.environ.items() if not k.startswith("MEMGATE_")}
    e["MEMGATE_HOME"] = home
    e["MEMGATE_EMBEDDER"] = "none"
    e["MEMGATE_WATCH"] = "off"
    return e


def tsv_queries(path, limit=None):
    """The queries of a TSV whose second column is the query (bench/queries.tsv,
    a bench/bugloc set): comment and blank lines skipped, each cut at 1,500
    bytes, at most limit of them (None or 0: all)."""
    with open(path) as f:
        qs = [line.rstrip("\n").split("\t")[1][:1500] for line in f
              if not line.startswith("#") and line.count("\t") >= 1]
    return qs[:limit] if limit else qs


def served_env(home):
    """env(home) with the embedder its index was made with: the default, or
    the caller's MEMGATE_EMBEDDER when it names one."""
    e = env(home)
    e.pop("MEMGATE_EMBEDDER")
    if os.environ.get("MEMGATE_EMBEDDER"):
        e["MEMGATE_EMBEDDER"] = os.environ["MEMGATE_EMBEDDER"]
    return e


def cpu_s(pid):
    """The CPU seconds (user + system) process pid has used so far (/proc)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def genv():
    e = dict(os.environ)
    e["GTAGSROOT"] = SRC
    e["GTAGSDBPATH"] = GTAGS
    return e


def prepare():
    os.makedirs(WORK, exist_ok=True)
    # every run: a few seconds when nothing changed, and an index of an older schema is migrated and
    # refilled (read as it is, it would lack what this build records)
    log("memgate index of linux-6.1" + ("" if os.path.exists(os.path.join(HOME, "repos", "linux.db")) else " (first)"))
    t0 = time.monotonic()
    subprocess.run([BIN, "index", SRC, "--name", "linux", "--quiet"], env=env(), check=True)
    log(f"  {time.monotonic() - t0:.0f} s")
    if not os.path.exists(os.path.join(GTAGS, "GRTAGS")):
        log("gtags of linux-6.1 (once)")
        os.makedirs(GTAGS, exist_ok=True)
        t0 = time.monotonic()
        subprocess.run(["gtags", GTAGS], cwd=SRC, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        log(f"  {time.monotonic() - t0:.0f} s")


def c_file(p):
    return p.endswith(".c") or p.endswith(".h")


def global_x(args):
    out = subprocess.run(["global", *args], cwd=SRC, env=genv(), capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        parts = line.split(None, 3)
        if len(parts) >= 3 and parts[1].isdigit():
            rows.append((parts[2], int(parts[1])))
    return rows


def sample(n, seed):
    db = sqlite3.connect(f"file:{os.path.join(HOME, 'repos', 'linux.db')}?mode=ro", uri=True)
    names = sorted(r[0] for r in db.execute(
        "SELECT s.name FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.kind = 'function' AND f.lang = 'c' "
        "GROUP BY s.name HAVING count(*) = 1"))
    rnd = random.Random(seed)
    rnd.shuffle(names)
    out = []
    for name in names:
        if len(out) == n:
            break
        if len(global_x(["-x", name])) == 1:  # Global too sees one definition
            out.append(name)
    return out


class Api:
    def __init__(self, port):
        self.c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)

    def get(self, route, **q):
        self.c.request("GET", route + "?" + urllib.parse.urlencode(q))
        r = self.c.getresponse()
        return json.loads(r.read())

    def post(self, path, body):
        self.c.request("POST", path, body=json.dumps(body), headers={"Content-Type": "application/json"})
        r = self.c.getresponse()
        return json.loads(r.read())


def diffs(n, files, seed):
    """n unified diffs of `files` files each: one line of one function per
    file, whose old text differed (the new side is the tree, as indexed)."""
    db = sqlite3.connect(f"file:{os.path.join(HOME, 'repos', 'linux.db')}?mode=ro", uri=True)
    rows = db.execute(
        "SELECT f.path, s.start_line, s.end_line FROM symbols s JOIN files f ON f.id = s.file_id "
        "WHERE s.kind = 'function' AND f.lang = 'c' AND s.end_line - s.start_line >= 4").fetchall()
    rnd = random.Random(seed)
    out = []
    while len(out) < n:
        picked, text = set(), []
        while len(picked) < files:
            path, lo, hi = rnd.choice(rows)
            if path in picked:
                continue
            try:
                with open(os.path.join(SRC, path), errors="strict") as f:
                    lines = f.read().split("\n")
            except (OSError, UnicodeDecodeError):
                continue
            ln = lo + 2
            if ln > len(lines):
                continue
            picked.add(path)
            cur = lines[ln - 1]
            text.append(f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n@@ -{ln} +{ln} @@\n"
                        f"-{cur} /* old */\n+{cur}\n")
        out.append("".join(text))
    return out


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(round(q * (len(v) - 1))))] if v else 0.0


def repo_map(home, budget):
    """repo_map on the kernel's index in `home` over HTTP. A fresh server:
    its first call (the graph the last full index run saved beside the
    index, read), the same call again (the cached graph and ranks), a
    focused call and a scoped one (the cached graph, ranked again). Then a
    second fresh server after the saved graph is removed: its first call
    builds the graph from table refs (and saves it again). The servers'
    peak RSS."""
    saved = os.path.join(home, "repos", "linux.db.map")
    if not os.path.exists(saved):
        raise SystemExit(f"bench: no saved graph {saved}: run `memgate index` on the kernel once (a full run saves it)")
    rows, rss = [], []

    def server(calls):
        e = env()
        e["MEMGATE_HOME"] = home
        p = subprocess.Popen([BIN, "serve", "--listen", "127.0.0.1:0", "--json"], env=e, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True)
        try:
            api = Api(json.loads(p.stdout.readline())["port"])
            for label, q in calls:
                t0 = time.monotonic()
                r = api.get("/v1/repo_map", repo="linux", budget_tokens=budget, **q)
                ms = (time.monotonic() - t0) * 1000
                if "error" in r:
                    raise SystemExit(f"bench: repo_map: {r['error']}")
                rows.append((label, ms, len(r["files"]), r["tokens"], r["files"][0]["path"] if r["files"] else "-"))
            with open(f"/proc/{p.pid}/status") as f:
                rss.append(next(int(l.split()[1]) for l in f if l.startswith("VmHWM:")))
        finally:
            p.terminate()
            p.wait(timeout=60)

    server([("first (the saved graph read)", {}), ("again (cached)", {}), ("again (cached)", {}),
            ("focus_file=fs/ext4/inode.c", {"focus_file": "fs/ext4/inode.c"}),
            ("glob=mm/**", {"glob": "mm/**"})])
    os.unlink(saved)
    server([("first, no saved graph (built from table refs, saved)", {}), ("again (cached)", {})])
    if not os.path.exists(saved):
        raise SystemExit("bench: the server did not save the graph it built")
    print(f"## repo_map on linux-6.1 (budget {budget} tokens)\n")
    print("| call | ms | files | tokens | first file |")
    print("| --- | ---: | ---: | ---: | --- |")
    for label, ms, nf, tok, first in rows:
        print(f"| {label} | {ms:.0f} | {nf} | {tok} | {first} |")
    print(f"\nservers' peak RSS: {rss[0] / 1024:.0f} MiB (saved graph), {rss[1] / 1024:.0f} MiB (built)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--diffs", type=int, default=20)
    ap.add_argument("--repo-map", action="store_true",
                    help="time repo_map instead (on the index in --home, made by `memgate index`)")
    ap.add_argument("--home", default=HOME, help="the data directory for --repo-map")
    ap.add_argument("--budget", type=int, default=1024)
    a = ap.parse_args()
    if a.repo_map:
        repo_map(a.home, a.budget)
        return
    if not os.path.exists(os.path.join(SRC, "MAINTAINERS")):
        raise SystemExit("bench: the kernel source is missing; run `make bench` (bench/run.sh fetches it)")
    prepare()
    names = sample(a.queries, a.seed)
    log(f"{len(names)} functions")

    # Global: every query as a process
    g_refs, g_ms = {}, []
    for name in names:
        t0 = time.monotonic()
        rows = global_x(["-rx", name])
        g_ms.append((time.monotonic() - t0) * 1000)
        g_refs[name] = {r for r in rows if c_file(r[0])}

    p = subprocess.Popen([BIN, "serve", "--listen", "127.0.0.1:0", "--json"], env=env(), stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    try:
        api = Api(json.loads(p.stdout.readline())["port"])
        api.get("/v1/references", symbol=names[0])  # warm
        m_refs, first_ms, callers_ms, callees_ms, outline_ms = {}, [], [], [], []
        for name in names:
            t0 = time.monotonic()
            r = api.get("/v1/references", symbol=name)
            first_ms.append((time.monotonic() - t0) * 1000)
            t0 = time.monotonic()
            api.get("/v1/callers", symbol=name)
            callers_ms.append((time.monotonic() - t0) * 1000)
            t0 = time.monotonic()
            api.get("/v1/callees", symbol=name)
            callees_ms.append((time.monotonic() - t0) * 1000)
            got = set()
            while True:
                for f in r.get("files", []):
                    for ref in f["references"]:
                        if c_file(f["path"]):
                            got.add((f["path"], ref["line"]))
                if not r.get("next_cursor"):
                    break
                r = api.get("/v1/references", symbol=name, cursor=r["next_cursor"], limit=1000)
            m_refs[name] = got
            defs = r.get("definitions") or []
            if defs:
                t0 = time.monotonic()
                api.get("/v1/outline", path=defs[0]["path"])
                outline_ms.append((time.monotonic() - t0) * 1000)
        impact_ms = {1: [], 2: []}
        impact_n = {1: [], 2: []}
        for text in diffs(a.diffs, 20, a.seed):
            for depth in (1, 2):
                t0 = time.monotonic()
                r = api.post("/v1/impact", {"diff": text, "depth": depth, "limit": 1000})
                impact_ms[depth].append((time.monotonic() - t0) * 1000)
                if "error" in r:
                    raise SystemExit(f"bench: impact failed: {r['error']}")
                if r.get("skipped"):
                    log(f"impact skipped {r['skipped'][:3]}")
                impact_n[depth].append((len(r["changed"]), r["total"]))
    finally:
        p.terminate()
        p.wait(timeout=60)

    both = sum(len(m_refs[n] & g_refs[n]) for n in names)
    g_total = sum(len(g_refs[n]) for n in names)
    m_total = sum(len(m_refs[n]) for n in names)
    recall = both / g_total if g_total else 1.0
    precision = both / m_total if m_total else 1.0
    only_g = [(n, x) for n in names for x in sorted(g_refs[n] - m_refs[n])]
    only_m = [(n, x) for n in names for x in sorted(m_refs[n] - g_refs[n])]

    def line_of(path, line):
        try:
            with open(os.path.join(SRC, path), errors="replace") as f:
                for i, t in enumerate(f, 1):
                    if i == line:
                        return t.strip()[:120]
        except OSError:
            pass
        return ""

    print(f"""
## Code navigation against GNU Global — {time.strftime('%Y-%m-%d', time.gmtime())}, {os.cpu_count()} cores

linux-6.1, {len(names)} C functions defined once (seed {a.seed}), `bench/nav_bench.py --queries {a.queries}`;
GNU Global {subprocess.run(['global', '--version'], capture_output=True, text=True).stdout.split(chr(10))[0].split()[-1]}
(`global -rx`), memgate over `GET /v1/references` (all pages). References as (path, line) over .c and .h files.

| measure | memgate | GNU Global |
| --- | --- | --- |
| references found | {m_total} | {g_total} |
| recall against Global | {recall:.3f} | — |
| precision against Global | {precision:.3f} | — |
| find_references, first page (50), per query | p50 {pct(first_ms, .5):.1f} ms, p99 {pct(first_ms, .99):.1f} ms | `global -rx` p50 {pct(g_ms, .5):.1f} ms, p99 {pct(g_ms, .99):.1f} ms (a process each) |
| callers (depth 1), per query | p50 {pct(callers_ms, .5):.1f} ms, p99 {pct(callers_ms, .99):.1f} ms | — |
| callees (depth 1), per query | p50 {pct(callees_ms, .5):.1f} ms, p99 {pct(callees_ms, .99):.1f} ms | — |
| outline of the defining file, per query | p50 {pct(outline_ms, .5):.1f} ms, p99 {pct(outline_ms, .99):.1f} ms | — |
| impact of a 20-file diff, depth 1 ({a.diffs} diffs) | p50 {pct(impact_ms[1], .5):.0f} ms, p99 {pct(impact_ms[1], .99):.0f} ms; {statistics.median(c for c, _ in impact_n[1]):.0f} definitions changed, {statistics.median(t for _, t in impact_n[1]):.0f} callers (medians) | — |
| impact of a 20-file diff, depth 2 | p50 {pct(impact_ms[2], .5):.0f} ms, p99 {pct(impact_ms[2], .99):.0f} ms; {statistics.median(t for _, t in impact_n[2]):.0f} callers (median) | — |
| the {len(names)} queries | {sum(first_ms) / 1000:.2f} s | {sum(g_ms) / 1000:.2f} s (ratio {sum(g_ms) / max(sum(first_ms), 1e-9):.1f}x) |

Disagreements: {len(only_g)} lines only Global lists, {len(only_m)} only memgate lists. A sample of each:
""")
    rnd = random.Random(a.seed)
    for title, rows in (("only Global", only_g), ("only memgate", only_m)):
        print(f"{title}:")
        for n, (path, line) in rnd.sample(rows, min(12, len(rows))):
            print(f"    {n}  {path}:{line}  {line_of(path, line)}")
        print()


if __name__ == "__main__":
    main()
