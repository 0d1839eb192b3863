#!/usr/bin/env python3
"""hybrid_rss.py HOME EMBEDDER [BIN] — what a server answering hybrid searches
holds: `memgate serve` on HOME's Linux index (repo id "linux", watcher off)
with MEMGATE_EMBEDDER=EMBEDDER (the one the index's vectors were made with),
waited for until its vectors are loaded (a hybrid answer says "hybrid"), then
the 50 queries of bench/queries.tsv and five questions in words, three times
each in hybrid mode over /v1/search (limit 10). Prints the load time, the
p50 / p99 latency and the server's VmRSS and VmHWM (docs/benchmarks.md, "The
default embedder"). Run it twice: the first round pays a cold page cache."""
import json
import os
import subprocess
import sys
import time
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
QUESTIONS = ["how are dirty pages written back under memory pressure", "where is the scheduler tick handled",
             "free the memory of a network buffer", "check if the pointer is null", "lock the mutex before the list"]


def main():
    if len(sys.argv) < 3 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0 if len(sys.argv) > 1 else 2)
    home, emb = sys.argv[1], sys.argv[2]
    binary = sys.argv[3] if len(sys.argv) > 3 else os.path.join(HERE, "..", "build", "memgate")
    e = {k: v for k, v in os.environ.items() if not k.startswith("MEMGATE_")}
    e.update(MEMGATE_HOME=home, MEMGATE_EMBEDDER=emb, MEMGATE_WATCH="off")
    p = subprocess.Popen([binary, "serve", "--listen", "127.0.0.1:0", "--json"], env=e, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    try:
        port = json.loads(p.stdout.readline())["port"]

        def get(q):
            u = f"http://127.0.0.1:{port}/v1/search?" + urllib.parse.urlencode(
                dict(q=q, mode="hybrid", repo="linux", limit=10))
            t = time.perf_counter()
            j = json.load(urllib.request.urlopen(u))
            return j, (time.perf_counter() - t) * 1000

        t0 = time.time()
        while get("x")[0].get("mode") != "hybrid":
            if time.time() - t0 > 300:
                raise SystemExit("hybrid_rss: the vectors did not load within 300 s")
            time.sleep(0.5)
        load = time.time() - t0
        qs = [ln.split("\t")[1] for ln in open(os.path.join(HERE, "queries.tsv"))
              if ln.strip() and not ln.startswith("#")] + QUESTIONS
        ts = sorted(get(q)[1] for _ in range(3) for q in qs)
        st = dict(ln.split(":", 1) for ln in open(f"/proc/{p.pid}/status").read().split("\n") if ":" in ln)
        print(f"{emb}: vectors loaded in {load:.1f} s; hybrid p50 {ts[len(ts) // 2]:.1f} ms, p99 "
              f"{ts[int(len(ts) * .99)]:.1f} ms ({len(ts)} calls); VmRSS {st['VmRSS'].strip()}, "
              f"VmHWM {st['VmHWM'].strip()}")
    finally:
        p.terminate()
        p.wait()


if __name__ == "__main__":
    main()
