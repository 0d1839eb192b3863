#!/usr/bin/env python3
"""linux_latency.py HOME [BIN] — search and get_context latency on a Linux
index with vectors in the data directory HOME: one `memgate serve`, its
first hybrid query (answered by words while vectors load), the seconds
until the vectors are in, then 60 queries of bench/quality.tsv (seed 1) in
hybrid and lexical mode (limit 10) and through POST /v1/context: p50/p99.
BIN: another memgate to time the same way (compare builds in one run).
MEMGATE_HYBRID_WEIGHTS, when set, is passed to the server (fusion weights)."""
import sys, time, json, subprocess, os, random
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nav_bench as nb
if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help") or not os.path.isdir(sys.argv[1]):
    raise SystemExit(__doc__)  # (a missing HOME, or --help taken for one, would make a data directory of it)
if len(sys.argv) > 2: nb.BIN = sys.argv[2]
home = sys.argv[1]
qs = [l.rstrip("\n").split("\t")[1] for l in open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "quality.tsv")) if not l.startswith("#")]
random.seed(1); qs = random.sample(qs, 60)
e = nb.env(); e["MEMGATE_HOME"] = home; e.pop("MEMGATE_EMBEDDER", None)
if os.environ.get("MEMGATE_HYBRID_WEIGHTS"): e["MEMGATE_HYBRID_WEIGHTS"] = os.environ["MEMGATE_HYBRID_WEIGHTS"]
p = subprocess.Popen([nb.BIN, "serve", "--listen", "127.0.0.1:0", "--json"], env=e, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
api = nb.Api(json.loads(p.stdout.readline())["port"])
t0 = time.monotonic()
r = api.get("/v1/search", q="connection timeout handling", mode="hybrid", repo="linux", limit=10)
print("first hybrid ms", round((time.monotonic()-t0)*1000), r.get("mode"), r.get("semantic"))
while True:
    r = api.get("/v1/search", q="connection timeout handling", mode="hybrid", repo="linux", limit=10)
    if r.get("mode") == "hybrid": break
    time.sleep(1)
print("vectors loaded after s", round(time.monotonic()-t0, 1))
for q in qs[:5]: api.get("/v1/search", q=q, mode="hybrid", repo="linux", limit=10)
res = {"hybrid": [], "lexical": [], "get_context": []}
for q in qs:
    for m in ("hybrid", "lexical"):
        t = time.monotonic(); api.get("/v1/search", q=q, mode=m, repo="linux", limit=10); res[m].append((time.monotonic()-t)*1000)
    t = time.monotonic(); api.post("/v1/context", {"prompt": q, "repo_id": "linux"}); res["get_context"].append((time.monotonic()-t)*1000)
for k, v in res.items():
    print(k, "p50", round(nb.pct(v, .5), 1), "p99", round(nb.pct(v, .99), 1), "n", len(v))
p.terminate()
