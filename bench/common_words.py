#!/usr/bin/env python3
"""common_words.py HOME BIN[:rank_off=X] [...] [--rg ROOT] — queries of very
common words on a Linux index with vectors in the data directory HOME
(docs/benchmarks.md, "Queries of very common words"): for each build (or the
same build with a ranking signal off, `BIN:rank_off=tiers`), one `memgate
serve`, its vectors loaded first, then each query RUNS (10) times in lexical,
hybrid and symbol mode (limit 10) over HTTP; prints p50 / max per build, side by
side, and whether every build's hits (paths, lines, scores) are the first's.
--rg ROOT: `rg -F -l` of each query over ROOT beside them (the peer: the
files holding it, no ranking). Set MEMGATE_HYBRID_WEIGHTS to pass fusion
weights to the servers, MEMGATE_EMBEDDER to serve an index made with another
embedder than the default."""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nav_bench as nb  # noqa: E402

QUERIES = ["the", "return the value", "if it is not set", "int", "static int", "struct", "for each of the",
           "this is a", "error", "return error if not found", "get the data", "void", "include", "define",
           "unsigned long", "check if the pointer is null", "free the memory", "lock the mutex", "it is the",
           "to be or not to be", "a an the of to in", "return 0", "if (", "NULL", "const char *"]


RUNS = 10
MODES = ("lexical", "hybrid", "symbol")  # (symbol: a common word is a prefix of thousands of names)


def run(home, spec):
    binary, _, off = spec.partition(":rank_off=")
    e = nb.served_env(home)
    if off:
        e["MEMGATE_RANK_OFF"] = off
    if os.environ.get("MEMGATE_HYBRID_WEIGHTS"):
        e["MEMGATE_HYBRID_WEIGHTS"] = os.environ["MEMGATE_HYBRID_WEIGHTS"]
    p = subprocess.Popen([binary, "serve", "--listen", "127.0.0.1:0", "--json"], env=e, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    try:
        api = nb.Api(json.loads(p.stdout.readline())["port"])
        t0 = time.monotonic()
        while api.get("/v1/search", q="x", mode="hybrid", repo="linux", limit=10).get("mode") != "hybrid":
            if time.monotonic() - t0 > 300:
                raise SystemExit("the vectors did not load within 300 s")
            time.sleep(0.5)
        best = {}
        for mode in MODES:
            for q in QUERIES:
                ts = []
                for _ in range(RUNS):
                    t = time.monotonic()
                    r = api.get("/v1/search", q=q, mode=mode, repo="linux", limit=10)
                    ts.append((time.monotonic() - t) * 1000)
                ts.sort()
                hits = [(h.get("path"), h.get("start_line"), h.get("score")) for h in r.get("results", [])]
                best[(mode, q)] = (ts[len(ts) // 2], ts[-1], hits)
        return best
    finally:
        p.terminate()
        p.wait()


def rg_ms(root, q):
    t = time.monotonic()
    subprocess.run(["rg", "-F", "-l", "--", q, root], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.monotonic() - t) * 1000


def main():
    args = sys.argv[1:]
    root = None
    if "--rg" in args:
        i = args.index("--rg")
        root = args[i + 1]
        del args[i:i + 2]
    if len(args) < 2:
        raise SystemExit(__doc__)
    home, bins = args[0], args[1:]
    res = [run(home, b) for b in bins]
    names = [os.path.basename(b.partition(":")[0]) + (" " + b.partition(":")[2] if ":" in b else "") for b in bins]
    rg = {q: rg_ms(root, q) for q in QUERIES} if root else {}
    print(f"p50 / max of {RUNS} queries over HTTP, limit 10; `rg -F -l` once" if root else
          f"p50 / max of {RUNS} queries over HTTP, limit 10")
    print()
    same = len(res) > 1
    print("| mode | query | " + " | ".join(names) + (" | rg -F -l |" if root else " |") +
          (" same hits |" if same else ""))
    print("| --- | --- |" + " ---: |" * (len(bins) + (1 if root else 0)) + (" --- |" if same else ""))
    for mode in MODES:
        for q in QUERIES:
            cells = [f"{r[(mode, q)][0]:.1f} / {r[(mode, q)][1]:.1f} ms" for r in res]
            if root:
                cells.append(f"{rg[q]:.0f} ms" if mode == "lexical" else "")
            if same:  # (the builds' hits, paths, lines and scores, against the first's)
                cells.append("yes" if all(r[(mode, q)][2] == res[0][(mode, q)][2] for r in res) else "**no**")
            print(f"| {mode} | `{q}` | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
