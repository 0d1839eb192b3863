#!/usr/bin/env python3
"""nav_compare.py — callers and callees on linux-6.1 from two memgate builds,
side by side in one run: the edges each lists (they must be the same for a
change that only makes navigation faster) and the latency of each.

    bench/nav_compare.py --old-bin OLD/build/memgate --old-home DIR [--seed 1] [--queries 300]

The functions are bench/nav_bench.py's sample (C functions defined once, by
memgate and by Global), drawn from the index in nav_bench.py's data
directory, which the new build (build/memgate, or --new-bin) serves. The old
build serves --old-home: an index it can read (a copy of the same index with
an older schema number set is enough when the change only added a table).
Each build answers GET /v1/callers and /v1/callees (limit 1000) over HTTP
keep-alive to its own `memgate serve`, one query at a time, alternating.
Prints the p50 and p99 of each and every function whose edges differ
(path, line, confidence, target).
"""
import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nav_bench as nb  # noqa: E402


def serve(binary, home):
    p = subprocess.Popen([binary, "serve", "--listen", "127.0.0.1:0", "--json"], env=nb.env(home),
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return p, nb.Api(json.loads(p.stdout.readline())["port"])


def edges(api, route, name, ms):
    t0 = time.monotonic()
    r = api.get(route, symbol=name, limit=1000)
    ms.append((time.monotonic() - t0) * 1000)
    if "error" in r:
        raise SystemExit(f"bench: {route} {name}: {r['error']}")
    return {(c["path"], c["line"], c["confidence"], c.get("to_path"), c.get("to_line"), c.get("from_name"))
            for c in r.get("calls", [])}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--old-bin", required=True)
    ap.add_argument("--old-home", required=True)
    ap.add_argument("--new-bin", default=nb.BIN)
    ap.add_argument("--new-home", default=nb.HOME)
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    names = nb.sample(a.queries, a.seed)
    po, old = serve(a.old_bin, a.old_home)
    pn, new = serve(a.new_bin, a.new_home)
    ms = {(b, r): [] for b in ("old", "new") for r in ("/v1/callers", "/v1/callees")}
    differ = 0
    try:
        for api in (old, new):
            api.get("/v1/callers", symbol=names[0])  # warm
        for name in names:
            for route in ("/v1/callers", "/v1/callees"):
                e_old = edges(old, route, name, ms[("old", route)])
                e_new = edges(new, route, name, ms[("new", route)])
                if e_old != e_new:
                    differ += 1
                    print(f"{route} {name}: only old {sorted(e_old - e_new)[:3]} only new {sorted(e_new - e_old)[:3]}")
    finally:
        for p in (po, pn):
            p.terminate()
            p.wait(timeout=60)
    print(f"\n{len(names)} functions (seed {a.seed}); answers that differ: {differ}\n")
    print("| query | old p50 | old p99 | new p50 | new p99 |\n| --- | ---: | ---: | ---: | ---: |")
    for route in ("/v1/callers", "/v1/callees"):
        o, n = ms[("old", route)], ms[("new", route)]
        print(f"| {route} | {nb.pct(o, .5):.1f} ms | {nb.pct(o, .99):.1f} ms | {nb.pct(n, .5):.1f} ms | "
              f"{nb.pct(n, .99):.1f} ms |")


if __name__ == "__main__":
    main()
