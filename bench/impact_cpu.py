#!/usr/bin/env python3
"""impact_cpu.py — the server CPU seconds `impact` costs on linux-6.1, for
one or more memgate binaries on the same index, one server each.

    bench/impact_cpu.py BIN [BIN ...] [--diffs 8] [--seed 1]

The diffs are bench/nav_bench.py's (each changes one line in 20 files of
the kernel; the index is nav_bench.py's, in ~/.cache/memgate-bench/nav/home,
made by a first `bench/nav_bench.py` run). For each binary: a server on that
index, then POST /v1/impact of every diff at depth 1 and 2 (limit 1000); the
server's user + system CPU read from /proc/PID/stat around each request, so
the machine's load moves the figures less than wall time would. Prints, per
binary and depth, the CPU seconds and the callers found (`total`), each diff
and their sums (docs/benchmarks.md, "Macros, function values and field
places on linux-6.1").
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nav_bench as nb  # noqa: E402  (the index, the diffs, the HTTP client)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bins", nargs="+", metavar="BIN", help="memgate binaries to compare")
    ap.add_argument("--diffs", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if not os.path.exists(os.path.join(nb.HOME, "repos", "linux.db")):
        raise SystemExit(f"impact_cpu: no index in {nb.HOME}: run bench/nav_bench.py once")
    ds = nb.diffs(a.diffs, 20, a.seed)
    print("| binary | depth | CPU s, each diff | CPU s in all | callers, each diff | callers in all |")
    print("| --- | ---: | --- | ---: | --- | ---: |")
    for b in a.bins:
        p = subprocess.Popen([b, "serve", "--listen", "127.0.0.1:0", "--json"], env=nb.env(), stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True)
        try:
            api = nb.Api(json.loads(p.stdout.readline())["port"])
            api.get("/v1/callers", symbol="kobject_put")  # warm
            got = {1: [], 2: []}
            for d in ds:
                for depth in (1, 2):
                    c0 = nb.cpu_s(p.pid)
                    r = api.post("/v1/impact", {"diff": d, "depth": depth, "limit": 1000})
                    if "error" in r:
                        raise SystemExit(f"impact_cpu: {b}: {r['error']}")
                    got[depth].append((nb.cpu_s(p.pid) - c0, r.get("total", 0)))
        finally:
            p.terminate()
            p.wait(timeout=60)
        for depth in (1, 2):
            v = got[depth]
            print(f"| {b} | {depth} | {' '.join(f'{c:.2f}' for c, _ in v)} | {sum(c for c, _ in v):.2f} | "
                  f"{' '.join(str(t) for _, t in v)} | {sum(t for _, t in v)} |")


if __name__ == "__main__":
    main()
