#!/usr/bin/env python3
"""nav_ts_bench.py — code navigation in TypeScript against the TypeScript
compiler (run by bench/run.sh after nav_bench.py, or alone after `make` and
`scripts/setup.sh --bench`, which installs the compiler into bench/nav-ts).

    bench/nav_ts_bench.py [--queries 300] [--seed 1] [--dump FILE]

Corpus: the sources the npm package zod ships (src/, .ts), fetched once with
`npm pack zod@VERSION` into the benchmark cache ($MEMGATE_BENCH_CACHE/ts,
default ~/.cache/memgate-bench/ts), outside the repo. memgate indexes src/
afresh each run (a few seconds), in its own data directory.

--queries functions and methods are drawn at random (seeded) among the names
memgate's index defines exactly once (one symbol of any kind) as a function
or a method. For each:

  - the compiler's references: bench/nav-ts/refs.mjs, one LanguageService
    (TypeScript, pinned in bench/nav-ts/package-lock.json) over every .ts file
    of src/, `findReferences` at the declaration's name; every entry that is
    not a definition, not in a string, and spelled as the name (an import
    renamed with `as` is counted apart), kept as (path, line);
  - memgate's: GET /v1/references?symbol=NAME, all pages, as (path, line);
  - call edges: the compiler's call hierarchy (prepareCallHierarchy, then
    provideCallHierarchyIncomingCalls), each call site as (path, line),
    against memgate's GET /v1/callers (depth 1, all pages), each call;

micro-averaged recall and precision against the compiler, and a sample of
each kind of disagreement (--dump writes them all, with the line's text).
Call sites whose callee the compiler finds under another spelling (an
export renamed with `as`, called as `checks.gte(...)` for `_gte`) are left
out of the call edges as they are of the references, and counted apart.
Latency: find_references' first page (the default 50) and callers (depth 1)
over HTTP keep-alive to `memgate serve`, p50 and p99, beside the compiler's
findReferences for the same queries (in process, the program already built;
the time to build it is printed apart). Prints a Markdown report;
docs/benchmarks.md keeps the figures.
"""
import argparse
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tarfile
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("MEMGATE_BIN", os.path.join(HERE, "build", "memgate"))
NODE = os.environ.get("MEMGATE_BENCH_NODE", "node")
CACHE = os.environ.get("MEMGATE_BENCH_CACHE", os.path.expanduser("~/.cache/memgate-bench"))
PACKAGE, VERSION = "zod", "4.6.7"
WORK = os.path.join(CACHE, "ts")
PKG = os.path.join(WORK, f"{PACKAGE}-{VERSION}")
SRC = os.path.join(PKG, "src")
HOME = os.path.join(WORK, "home")
PEER = os.path.join(HERE, "bench", "nav-ts")

sys.path.insert(0, os.path.join(HERE, "bench"))
from nav_bench import Api, env, log, pct  # noqa: E402  (the C part's helpers)
from nav_lsp_bench import pages, why  # noqa: E402  (all pages of an answer; what a disagreeing line is)


def fetch():
    if os.path.exists(os.path.join(SRC, "index.ts")):
        return
    log(f"fetching {PACKAGE}@{VERSION} from the npm registry into {WORK} (once)")
    os.makedirs(WORK, exist_ok=True)
    tgz = os.path.join(WORK, f"{PACKAGE}-{VERSION}.tgz")
    if not os.path.exists(tgz):
        subprocess.run(["npm", "pack", f"{PACKAGE}@{VERSION}", "--pack-destination", WORK, "--silent"], check=True,
                       stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    shutil.rmtree(PKG, ignore_errors=True)
    os.makedirs(PKG)
    with tarfile.open(tgz) as t:
        for m in t.getmembers():
            if not m.name.startswith("package/") or ".." in m.name.split("/") or not (m.isfile() or m.isdir()):
                continue
            m.name = m.name[len("package/"):]
            t.extract(m, PKG, filter="data") if hasattr(tarfile, "data_filter") else t.extract(m, PKG)


def sample(seed):
    db = sqlite3.connect(f"file:{os.path.join(HOME, 'repos', PACKAGE + '.db')}?mode=ro", uri=True)
    rows = db.execute(
        "SELECT s.name, min(s.kind), min(f.path), min(s.start_line) FROM symbols s JOIN files f ON f.id = s.file_id "
        "GROUP BY s.name HAVING count(*) = 1").fetchall()
    rows = sorted(r for r in rows if r[1] in ("function", "method"))
    rnd = random.Random(seed)
    rnd.shuffle(rows)
    return rows


def machine_ref():
    t0 = time.monotonic()
    subprocess.run("head -c 268435456 /dev/zero | sha256sum > /dev/null", shell=True, check=True)
    return 268.435456 / (time.monotonic() - t0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--dump", help="write every disagreement here (TSV: side, name, path, line, text)")
    a = ap.parse_args()
    if not os.path.exists(os.path.join(PEER, "node_modules", "typescript", "package.json")):
        raise SystemExit("bench: the TypeScript compiler is missing from bench/nav-ts; run 'scripts/setup.sh --bench'")
    fetch()
    sha = machine_ref()

    shutil.rmtree(HOME, ignore_errors=True)
    log(f"memgate index of {PACKAGE} {VERSION} src/")
    t0 = time.monotonic()
    subprocess.run([BIN, "index", SRC, "--name", PACKAGE, "--quiet"], env=env(HOME), check=True)
    index_s = time.monotonic() - t0
    candidates = sample(a.seed)

    # the compiler: one process, the program built once, then every query
    log(f"TypeScript findReferences over {len(candidates)} candidates, the first {a.queries} located")
    req = {"root": SRC, "package": os.path.join(PKG, "package.json"), "limit": a.queries,
           "queries": [{"name": n, "path": p, "line": l} for n, _, p, l in candidates]}
    t0 = time.monotonic()
    out = subprocess.run([NODE, os.path.join(PEER, "refs.mjs")], input=json.dumps(req), capture_output=True,
                         text=True, check=True).stdout
    ts_wall = time.monotonic() - t0
    ts = json.loads(out)
    res = {r["name"]: r for r in ts["results"] if r["located"]}
    unlocated = [r["name"] for r in ts["results"] if not r["located"]]
    located = [r["name"] for r in ts["results"] if r["located"]]
    drawn = located[:a.queries]                                       # as memgate's index sees them
    names = [n for n in located if res[n]["declared"] == 1][:a.queries]  # ... and the compiler, once too
    kind = {n: k for n, k, _, _ in candidates}
    c_refs = {n: {(p, l) for p, l in r["refs"]} for n, r in res.items()}
    c_calls = {n: {(p, l) for p, l in r["calls"]} for n, r in res.items()}
    c_calls_all = {n: c_calls[n] | {(p, l) for p, l in r["calls_renamed"]} for n, r in res.items()}
    log(f"{len(names)} functions and methods the compiler too declares once ({sum(kind[n] == 'method' for n in names)} "
        f"methods); {len(drawn)} drawn from memgate's index alone"
        + (f"; {len(unlocated)} the compiler could not place: {' '.join(unlocated[:5])}" if unlocated else ""))

    p = subprocess.Popen([BIN, "serve", "--listen", "127.0.0.1:0", "--json"], env=env(HOME), stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    try:
        api = Api(json.loads(p.stdout.readline())["port"])
        api.get("/v1/references", symbol=names[0])  # warm
        m_refs, m_calls, first_ms, callers_ms = {}, {}, {}, {}
        for name in dict.fromkeys(names + drawn):
            t0 = time.monotonic()
            r = api.get("/v1/references", symbol=name)
            first_ms[name] = (time.monotonic() - t0) * 1000
            t0 = time.monotonic()
            k = api.get("/v1/callers", symbol=name)
            callers_ms[name] = (time.monotonic() - t0) * 1000
            m_calls[name] = pages(api, "/v1/callers", name, k)
            m_refs[name] = pages(api, "/v1/references", name, r)
    finally:
        p.terminate()
        p.wait(timeout=60)

    def compare(ns, mine=m_refs, theirs=c_refs):
        both = sum(len(mine[n] & theirs[n]) for n in ns)
        c_total = sum(len(theirs[n]) for n in ns)
        m_total = sum(len(mine[n]) for n in ns)
        only_c = [(n, x) for n in ns for x in sorted(theirs[n] - mine[n])]
        only_m = [(n, x) for n in ns for x in sorted(mine[n] - theirs[n])]
        return (m_total, c_total, both / c_total if c_total else 1.0, both / m_total if m_total else 1.0,
                only_c, only_m)

    m_total, c_total, recall, precision, only_c, only_m = compare(names)
    d_m, d_c, d_recall, d_precision, d_only_c, d_only_m = compare(drawn)
    k_m, k_c, k_recall, k_precision, k_only_c, k_only_m = compare(names, m_calls, c_calls)
    ka_m, ka_c, ka_recall, ka_precision, ka_only_c, ka_only_m = compare(names, m_calls, c_calls_all)
    k_c_ms = [res[n]["calls_ms"] for n in names]
    renamed = sum(res[n]["renamed"] for n in names)
    most_renamed = ", ".join(f"`{n}` as `{'`, `'.join(dict.fromkeys(res[n]['renamed_as']))}` ({res[n]['renamed']})"
                             for n in sorted(names, key=lambda n: -res[n]["renamed"])[:3] if res[n]["renamed"])
    c_ms = [res[n]["ms"] for n in names]
    f_ms = [first_ms[n] for n in names]
    k_ms = [callers_ms[n] for n in names]
    worst = sorted(drawn, key=lambda n: -(len(c_refs[n] ^ m_refs[n])))[:8]

    lines_cache = {}

    def line_of(path, line):
        if path not in lines_cache:
            try:
                with open(os.path.join(SRC, path), errors="replace") as f:
                    lines_cache[path] = f.read().split("\n")
            except OSError:
                lines_cache[path] = []
        t = lines_cache[path]
        return t[line - 1].strip()[:120] if 0 < line <= len(t) else ""

    if a.dump:
        with open(a.dump, "w") as f:
            for group, oc, om in (("once", only_c, only_m), ("drawn", d_only_c, d_only_m), ("calls", k_only_c, k_only_m)):
                for side, rows in (("compiler", oc), ("memgate", om)):
                    for n, (path, line) in rows:
                        f.write(f"{group}\t{side}\t{n}\t{path}\t{line}\t{line_of(path, line)}\n")

    nfiles = sum(1 for _, _, fs in os.walk(SRC) for x in fs if x.endswith(".ts"))
    print(f"""
## Code navigation in TypeScript against the TypeScript compiler — {time.strftime('%Y-%m-%d', time.gmtime())}, {os.cpu_count()} cores

Machine reference (same run): sha256 on one core {sha:.0f} MB/s.

{PACKAGE} {VERSION} from the npm registry, its src/ ({nfiles} .ts files; memgate's index {index_s:.1f} s),
`bench/nav_ts_bench.py --queries {a.queries} --seed {a.seed}`; TypeScript {ts['typescript']} LanguageService
`findReferences` (bench/nav-ts/refs.mjs; {ts['files']} files, the package's {ts['paths']} exports mapped to
their sources), memgate over `GET /v1/references` (all pages). References as (path, line).

{len(names)} functions and methods memgate's index defines once and the compiler declares once (one
declaration of the name in the whole program, lib files included; {sum(kind[n] == 'method' for n in names)} methods);
{renamed} compiler entries spelled otherwise (renamed imports, `as`) left out (the most: {most_renamed}):

| measure | memgate | TypeScript compiler |
| --- | --- | --- |
| references found | {m_total} | {c_total} |
| recall against the compiler | {recall:.3f} | — |
| precision against the compiler | {precision:.3f} | — |
| find_references, first page (50), per query | p50 {pct(f_ms, .5):.1f} ms, p99 {pct(f_ms, .99):.1f} ms | `findReferences` p50 {pct(c_ms, .5):.1f} ms, p99 {pct(c_ms, .99):.1f} ms (in process, program built) |
| call edges (call sites of callers, depth 1) | {k_m} | {k_c} |
| call edges: precision / recall | **{k_precision:.3f} / {k_recall:.3f}** | — |
| call edges with the {ka_c - k_c} sites that spell the callee otherwise (renamed exports) | precision {ka_precision:.3f}, recall {ka_recall:.3f} | {ka_c} |
| callers (depth 1), per query | p50 {pct(k_ms, .5):.1f} ms, p99 {pct(k_ms, .99):.1f} ms | incoming calls p50 {pct(k_c_ms, .5):.1f} ms, p99 {pct(k_c_ms, .99):.1f} ms |
| the {len(names)} queries | {sum(f_ms) / 1000:.2f} s | {sum(c_ms) / 1000:.2f} s, + {ts['program_ms'] / 1000:.1f} s to build the program ({ts_wall:.1f} s the whole process) |

Disagreements: {len(only_c)} lines only the compiler lists, {len(only_m)} only memgate lists.

The first {len(drawn)} drawn by memgate's index alone (defined once there; {sum(kind[n] == 'method' for n in drawn)} methods), whatever
else the program declares under the name (interface members, object literal methods, lib methods such as
`get` or `catch`): memgate {d_m} references, the compiler {d_c}; recall {d_recall:.3f}, precision {d_precision:.3f};
{len(d_only_c)} lines only the compiler lists, {len(d_only_m)} only memgate. The names with the most:
""")
    for n in worst:
        print(f"    {n} ({kind[n]}, declared {res[n]['declared']}x): compiler {len(c_refs[n])}, memgate {len(m_refs[n])}, "
              f"only compiler {len(c_refs[n] - m_refs[n])}, only memgate {len(m_refs[n] - c_refs[n])}")
    print()
    rnd = random.Random(a.seed)
    for title, rows in (("only the compiler", only_c), ("only memgate", only_m),
                        ("call edges only the compiler", k_only_c), ("call edges only memgate", k_only_m),
                        ("call edges only the compiler, renamed sites included", ka_only_c)):
        tally = {}
        for n, (path, line) in rows:
            k = why("typescript", line_of(path, line), n)
            tally[k] = tally.get(k, 0) + 1
        print(f"{title}, names declared once: {len(rows)}" +
              (" (" + ", ".join(f"{k} {v}" for k, v in sorted(tally.items(), key=lambda x: -x[1])) + "); a sample:"
               if rows else ""))
        for n, (path, line) in rnd.sample(rows, min(12, len(rows))):
            print(f"    {n}  {path}:{line}  [{why('typescript', line_of(path, line), n)}] {line_of(path, line)}")
        print()


if __name__ == "__main__":
    main()
