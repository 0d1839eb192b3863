#!/usr/bin/env python3
"""common_words.py HOME BIN [BIN...] — queries of very common words on a
Linux index with vectors in the data directory HOME (docs/benchmarks.md,
"Queries of very common words"): for each build, one `memgate serve`, its
vectors loaded first, then each query 3 times in lexical and hybrid mode
(limit 10) over HTTP; prints the best of the 3, per build, side by side.
Set MEMGATE_HYBRID_WEIGHTS to pass fusion weights to the servers."""
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


def run(home, binary):
    e = nb.env(home)
    e.pop("MEMGATE_EMBEDDER", None)
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
        for mode in ("lexical", "hybrid"):
            for q in QUERIES:
                ts = []
                for _ in range(3):
                    t = time.monotonic()
                    api.get("/v1/search", q=q, mode=mode, repo="linux", limit=10)
                    ts.append((time.monotonic() - t) * 1000)
                best[(mode, q)] = min(ts)
        return best
    finally:
        p.terminate()
        p.wait()


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    home, bins = sys.argv[1], sys.argv[2:]
    res = [run(home, b) for b in bins]
    print("| mode | query | " + " | ".join(bins) + " |")
    print("| --- | --- |" + " ---: |" * len(bins))
    for mode in ("lexical", "hybrid"):
        for q in QUERIES:
            print(f"| {mode} | `{q}` | " + " | ".join(f"{r[(mode, q)]:.1f} ms" for r in res) + " |")


if __name__ == "__main__":
    main()
