#!/usr/bin/env python3
"""scale_bench.py — many repos inside one daemon (issue 39, point 5): what a
data directory of --repos repositories (--kernels copies of linux-6.1, the
rest copies of the kernel's largest driver directories) costs to index and
to serve, beside the same daemon holding only the first kernel.

    bench/scale_bench.py [--kernels 4] [--repos 50] [--rounds 3] [--fresh]

The trees are copies (not hard links: the walk refuses a file with a second
name, docs/security.md) under $MEMGATE_BENCH_CACHE/scale/trees, made once;
each is indexed by `memgate index TREE --name NAME` into one data directory
(MEMGATE_EMBEDDER=none), one after another, and the runs' wall and CPU time
(user + sys of the children) and peak RSS are printed and kept in
scale/index.json (a later run without --fresh reuses the indexes and prints
those figures again, marked as kept). Then, for each of two data
directories — all the repos, and one holding only the first kernel's index
(its files linked, not copied) — a fresh `memgate serve` (watch off):

  - start-up: from exec to the listening line, and its RSS, threads and open
    files then;
  - --rounds rounds of bench/queries.tsv (50 queries, each in its own mode)
    over GET /v1/search on the first kernel (limit 10), one at a time over
    keep-alive: p50 and p99, and RSS, threads and files after;
  - with all the repos, the same queries each on a repo drawn at random
    (seeded): p50, p99 and RSS after (this touches every repo).

Nothing a request to one repo does should grow with the repos it does not
touch: the first kernel's columns of the two data directories should agree.
Prints a Markdown report; docs/benchmarks.md keeps the figures.
"""
import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nav_bench as nb  # noqa: E402

WORK = os.path.join(nb.CACHE, "scale")
TREES = os.path.join(WORK, "trees")
HOME = os.path.join(WORK, "home")
ONE = os.path.join(WORK, "one")
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def log(msg):
    print(f"scale: {msg}", file=sys.stderr, flush=True)


def count_files(d):
    return sum(len(f) for _, _, f in os.walk(d))


def plan(kernels, repos):
    """[(name, source dir)]: the kernels, then the largest driver directories."""
    out = [(f"k{i + 1}", nb.SRC) for i in range(kernels)]
    drivers = os.path.join(nb.SRC, "drivers")
    sizes = sorted(((count_files(os.path.join(drivers, d)), d) for d in os.listdir(drivers)
                    if os.path.isdir(os.path.join(drivers, d))), reverse=True)
    for _, d in sizes[:max(0, repos - kernels)]:
        out.append((f"d-{d}", os.path.join(drivers, d)))
    return out


def copy_trees(trees):
    os.makedirs(TREES, exist_ok=True)
    for name, src in trees:
        dst = os.path.join(TREES, name)
        if not os.path.isdir(dst):
            log(f"copying {src} to {dst} (once)")
            shutil.copytree(src, dst + ".part", symlinks=True)
            os.rename(dst + ".part", dst)


def index_all(trees, fresh):
    kept = os.path.join(WORK, "index.json")
    if not fresh and os.path.exists(kept):
        with open(kept) as f:
            r = json.load(f)
        if r.get("repos") == [n for n, _ in trees]:
            r["kept"] = True
            return r
    shutil.rmtree(HOME, ignore_errors=True)
    os.makedirs(HOME)
    runs = []
    for name, _ in trees:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.monotonic()
        subprocess.run([nb.BIN, "index", os.path.join(TREES, name), "--name", name, "--quiet"], env=nb.env(HOME),
                       check=True, stdout=subprocess.DEVNULL)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        runs.append({"name": name, "wall": time.monotonic() - t0,
                     "cpu": after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime})
        log(f"  {name}: {runs[-1]['wall']:.1f} s wall, {runs[-1]['cpu']:.1f} CPU-s")
    repos_dir = os.path.join(HOME, "repos")
    chunks = 0
    for f in os.listdir(repos_dir):
        if f.endswith(".db"):
            chunks += int(subprocess.run(["sqlite3", os.path.join(repos_dir, f), "SELECT count(*) FROM chunks"],
                                         capture_output=True, text=True, check=True).stdout)
    r = {"repos": [n for n, _ in trees], "runs": runs, "chunks": chunks,
         "peak_rss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
         "bytes": sum(os.path.getsize(os.path.join(repos_dir, f)) for f in os.listdir(repos_dir)),
         "when": time.strftime("%Y-%m-%d %H:%M")}
    with open(kept, "w") as f:
        json.dump(r, f)
    r["kept"] = False
    return r


def one_home():
    """A data directory holding only k1's index (its files linked)."""
    shutil.rmtree(ONE, ignore_errors=True)
    os.makedirs(os.path.join(ONE, "repos"))
    linked = 0
    for f in os.listdir(os.path.join(HOME, "repos")):  # repos/<id>.db and what beside it; the id is the name
        if f.startswith("k1.") and not f.endswith(("-wal", "-shm", ".lock")):
            os.link(os.path.join(HOME, "repos", f), os.path.join(ONE, "repos", f))
            linked += f == "k1.db"
    if not linked:
        raise SystemExit(f"scale: no index k1 in {HOME}/repos")


def proc(pid):
    st = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            st[k] = v.strip()
    return {"rss_mb": int(st["VmRSS"].split()[0]) / 1024, "threads": int(st["Threads"]),
            "files": len(os.listdir(f"/proc/{pid}/fd"))}


def queries():
    out = []
    with open(os.path.join(HERE, "bench", "queries.tsv")) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                mode, q = line.rstrip("\n").split("\t")[:2]
                out.append((mode, q))
    return out


def timed(api, qs, repos, rnd):
    ms = []
    for mode, q in qs:
        repo = rnd.choice(repos) if rnd else repos[0]
        t0 = time.monotonic()
        r = api.get("/v1/search", q=q, mode=mode, repo=repo, limit=10)
        ms.append((time.monotonic() - t0) * 1000)
        if "error" in r:
            raise SystemExit(f"scale: {q!r} on {repo}: {r['error']}")
    return ms


def serve(home, names, rounds, seed):
    t0 = time.monotonic()
    p = subprocess.Popen([nb.BIN, "serve", "--listen", "127.0.0.1:0", "--json"], env=nb.env(home),
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        port = json.loads(p.stdout.readline())["port"]
        r = {"startup_ms": (time.monotonic() - t0) * 1000, "start": proc(p.pid)}
        api = nb.Api(port)
        qs = queries()
        ms = []
        for _ in range(rounds):
            ms += timed(api, qs, ["k1"], None)
        r["k1"] = ms
        r["after_k1"] = proc(p.pid)
        if len(names) > 1:
            rnd = random.Random(seed)
            ms = []
            for _ in range(rounds):
                ms += timed(api, qs, names, rnd)
            r["all"] = ms
            r["after_all"] = proc(p.pid)
        return r
    finally:
        p.terminate()
        p.wait(timeout=120)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kernels", type=int, default=4)
    ap.add_argument("--repos", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--fresh", action="store_true", help="index again even when the kept indexes match")
    a = ap.parse_args()
    if not os.path.exists(os.path.join(nb.SRC, "MAINTAINERS")):
        raise SystemExit("scale: the kernel source is missing; run `make bench` (bench/run.sh fetches it)")
    trees = plan(a.kernels, a.repos)
    copy_trees(trees)
    ix = index_all(trees, a.fresh)
    one_home()
    names = [n for n, _ in trees]
    log("serving all the repos")
    many = serve(HOME, names, a.rounds, a.seed)
    log("serving k1 alone")
    one = serve(ONE, ["k1"], a.rounds, a.seed)
    pct = nb.pct
    wall = sum(x["wall"] for x in ix["runs"])
    cpu = sum(x["cpu"] for x in ix["runs"])
    kern = [x for x in ix["runs"] if x["name"].startswith("k")]
    print(f"""## Many repos in one daemon — {time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores

{len(names)} repos ({a.kernels} copies of linux-6.1, {len(names) - a.kernels} of its largest driver directories),
{ix['chunks']:,} chunks, {ix['bytes'] / 2**30:.1f} GiB of indexes; `bench/scale_bench.py --kernels {a.kernels}
--repos {a.repos} --rounds {a.rounds}`; MEMGATE_EMBEDDER=none, watch off.

Index all{' (kept from ' + ix['when'] + ')' if ix['kept'] else ''}: {wall:.0f} s wall, {cpu:.0f} CPU-s, peak RSS
{ix['peak_rss_mb']:.0f} MB (one `memgate index` after another; a kernel copy {statistics.median(x['wall'] for x in kern):.0f} s
wall, {statistics.median(x['cpu'] for x in kern):.0f} CPU-s, median).

| measure | all {len(names)} repos | k1 alone |
| --- | --- | --- |
| start-up to listening | {many['startup_ms']:.0f} ms | {one['startup_ms']:.0f} ms |
| RSS, threads, open files at start | {many['start']['rss_mb']:.0f} MB, {many['start']['threads']}, {many['start']['files']} | {one['start']['rss_mb']:.0f} MB, {one['start']['threads']}, {one['start']['files']} |
| search on k1 ({len(many['k1'])} queries): p50, p99 | {pct(many['k1'], .5):.1f} ms, {pct(many['k1'], .99):.1f} ms | {pct(one['k1'], .5):.1f} ms, {pct(one['k1'], .99):.1f} ms |
| RSS, threads, open files after | {many['after_k1']['rss_mb']:.0f} MB, {many['after_k1']['threads']}, {many['after_k1']['files']} | {one['after_k1']['rss_mb']:.0f} MB, {one['after_k1']['threads']}, {one['after_k1']['files']} |
| search on a repo drawn at random ({len(many['all'])} queries): p50, p99 | {pct(many['all'], .5):.1f} ms, {pct(many['all'], .99):.1f} ms | — |
| RSS, threads, open files after | {many['after_all']['rss_mb']:.0f} MB, {many['after_all']['threads']}, {many['after_all']['files']} | — |
""")


if __name__ == "__main__":
    main()
