#!/usr/bin/env python3
"""same_answers.py HOME REPO BIN BIN2 [--queries TSV] [--limit N] — do two
memgate builds give the same answers, and what does each cost? For each
build, one `memgate serve` on the data directory HOME (its embedder, the
default unless MEMGATE_EMBEDDER is set; vectors loaded first), then every
query (bench/queries.tsv's second column, or the second column of TSV, e.g.
a bench/bugloc set; at most --limit, default all, each cut at 1,500 bytes)
in search_code's default mode and in hybrid, symbol and lexical mode
(limit 20) over GET /v1/search, in turn, after one untimed pass of them
all. Prints, per mode, how many answers
are byte-for-byte the same (took_ms left out) with the first query that
differs, and each build's server CPU per request (/proc, user + system, over
all its requests) beside its wall p50. A speed-up that is meant to change
nothing shows 0 differing here (docs/benchmarks.md)."""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nav_bench as nb  # noqa: E402

MODES = (None, "hybrid", "symbol", "lexical")


def run(home, repo, binary, queries):
    p = subprocess.Popen([binary, "serve", "--listen", "127.0.0.1:0", "--json"], env=nb.served_env(home),
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        api = nb.Api(json.loads(p.stdout.readline())["port"])
        t0 = time.monotonic()
        while api.get("/v1/search", q="x", mode="hybrid", repo=repo, limit=1).get("semantic", {}).get("state") == \
                "loading":
            if time.monotonic() - t0 > 300:
                raise SystemExit("the vectors did not load within 300 s")
            time.sleep(0.5)
        answers, walls = {}, {m: [] for m in MODES}
        for q in queries:  # once untimed first: the index's pages in the page cache for every build alike
            for mode in MODES:
                api.get("/v1/search", q=q, repo=repo, limit=20, **({"mode": mode} if mode else {}))
        c0 = nb.cpu_s(p.pid)
        for q in queries:
            for mode in MODES:
                args = {"q": q, "repo": repo, "limit": 20}
                if mode:
                    args["mode"] = mode
                t = time.monotonic()
                r = api.get("/v1/search", **args)
                walls[mode].append((time.monotonic() - t) * 1000)
                r.pop("took_ms", None)
                answers[(mode, q)] = json.dumps(r, sort_keys=True)
        cpu = (nb.cpu_s(p.pid) - c0) * 1000 / (len(queries) * len(MODES))
        return answers, walls, cpu
    finally:
        p.terminate()
        p.wait()


def main():
    args = sys.argv[1:]
    tsv, limit = os.path.join(os.path.dirname(os.path.abspath(__file__)), "queries.tsv"), None
    for flag in ("--queries", "--limit"):
        if flag in args:
            i = args.index(flag)
            if flag == "--queries":
                tsv = args[i + 1]
            else:
                limit = int(args[i + 1])
            del args[i:i + 2]
    if len(args) != 4 or not os.path.isdir(args[0]):
        raise SystemExit(__doc__)
    home, repo, bins = args[0], args[1], args[2:]
    queries = nb.tsv_queries(tsv, limit)
    res = [run(home, repo, b, queries) for b in bins]
    print(f"{len(queries)} queries of {os.path.basename(tsv)}, repo {repo}, limit 20")
    print()
    print("| mode | same answers | first that differs | " + " | ".join(f"{os.path.basename(b)} p50" for b in bins) + " |")
    print("| --- | --- | --- |" + " ---: |" * len(bins))
    for mode in MODES:
        diff = [q for q in queries if res[0][0][(mode, q)] != res[1][0][(mode, q)]]
        p50s = [f"{nb.pct(r[1][mode], .5):.1f} ms" for r in res]
        first = f"`{diff[0][:60]}`" if diff else "-"
        print(f"| {mode or 'default'} | {len(queries) - len(diff)} of {len(queries)} | {first} | " + " | ".join(p50s) +
              " |")
    print()
    for b, r in zip(bins, res):
        print(f"{b}: server CPU {r[2]:.2f} ms a request")
    if any(res[0][0][k] != res[1][0][k] for k in res[0][0]):
        sys.exit(1)


if __name__ == "__main__":
    main()
