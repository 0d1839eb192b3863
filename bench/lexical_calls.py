#!/usr/bin/env python3
"""lexical_calls.py HOME [BIN] — what each of bench/queries.tsv's 50 queries costs in lexical mode on
the index in the data directory HOME (repo `linux`): one `memgate serve` (embedder none, no watcher),
each query 4 times over GET /v1/search (limit 10), the best of the last 3; prints the sum over the 50
and the 15 slowest (docs/benchmarks.md, "What a lexical call costs beyond the ranking").
MEMGATE_RANK_OFF, when set, is passed to the server (ablations)."""
import http.client
import json
import os
import subprocess
import sys
import time
import urllib.parse

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help") or not os.path.isdir(sys.argv[1]):
        raise SystemExit(__doc__)
    home = sys.argv[1]
    binary = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "build", "memgate")
    e = {k: v for k, v in os.environ.items() if not k.startswith("MEMGATE_")}
    e.update(MEMGATE_HOME=home, MEMGATE_EMBEDDER="none", MEMGATE_WATCH="off")
    if os.environ.get("MEMGATE_RANK_OFF"):
        e["MEMGATE_RANK_OFF"] = os.environ["MEMGATE_RANK_OFF"]
    p = subprocess.Popen([binary, "serve", "--listen", "127.0.0.1:0", "--json"], env=e, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    try:
        port = json.loads(p.stdout.readline())["port"]
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        rows = []
        for line in open(os.path.join(HERE, "bench", "queries.tsv")):
            if line.startswith("#") or not line.strip():
                continue
            q = line.rstrip("\n").split("\t")[1]
            ts = []
            for _ in range(4):
                t0 = time.monotonic()
                c.request("GET", "/v1/search?" + urllib.parse.urlencode({"q": q, "mode": "lexical", "repo": "linux",
                                                                         "limit": 10}))
                c.getresponse().read()
                ts.append((time.monotonic() - t0) * 1000)
            rows.append((min(ts[1:]), q))
    finally:
        p.terminate()
        p.wait()
    rows.sort(reverse=True)
    print(f"{len(rows)} queries, lexical, best of 3: {sum(r[0] for r in rows):.0f} ms in all")
    for ms, q in rows[:15]:
        print(f"  {ms:6.1f} ms  {q}")


if __name__ == "__main__":
    main()
