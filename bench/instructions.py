#!/usr/bin/env python3
"""instructions.py HOME REPO BIN [BIN2 ...] [--function F] [--mode M] [--queries TSV] [--limit N] [--serve S [--calls C] [--steady]] [--json]

Instructions executed, not time: on a shared machine the CPU time of a call
varies by 10-20% from run to run, more than most changes to one step of a
search. This runs `memgate search QUERY --mode M --repo REPO` on the index in
the data directory HOME once per query (the second column of TSV, default
bench/queries.tsv; at most --limit) under valgrind's callgrind, counting only
the instructions inside F and what it calls (--toggle-collect; default
mg_search, the whole search), for each binary in turn, and prints each one's
total and its ratio to the first. The count is the same on every run of the
same binary, so a difference of 0.5% is a difference.

It measures a one-shot CLI search: what a server keeps between calls (the
file map, files' texts, prepared statements) is read again every time, so
name the step a change touches (--function mg__whole_files, lexical_read, ...)
rather than the whole search when comparing builds for a server.

--serve S: a server instead. `memgate serve` runs under callgrind, counting
what its worker threads execute (worker_main: an MCP call's tool, its gate
and its reply), while build/memgate-mcpload calls search_code (mode M; `auto`
is its default) from one session: C calls (--calls, default 100: the
queries in turn, the same on every run), or as many as fit in S seconds if
that comes first; prints instructions per call (the first call's one-time
set-up spread over the others). With the same calls the count is the same
within about 0.1% from run to run, whatever the machine's load; a run that
S seconds cut short (it says so) counts another mix of queries.

--steady (with --serve): what a call costs once the server has seen the
queries — the files unpacked, the patterns compiled, what it keeps between
calls filled: the count of 4C calls less that of C, over the 3C between
(two servers a binary).

Needs valgrind (`scripts/setup.sh --bench` installs it). Exit 1 if a search fails.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nav_bench as nb  # noqa: E402


def count(binary, home, repo, mode, function, q):
    env = nb.env(home)
    with tempfile.NamedTemporaryFile(prefix="memgate-cg.") as out:
        p = subprocess.run(["valgrind", "--tool=callgrind", f"--toggle-collect={function}",
                            f"--callgrind-out-file={out.name}", binary, "search", q, "--mode", mode, "--repo", repo],
                           env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise SystemExit(f"instructions: {binary} search {q[:60]!r} failed: {p.stderr.strip().splitlines()[-1:]}")
    m = re.search(r"Collected : (\d+)", p.stderr)
    if not m:
        raise SystemExit("instructions: no count from callgrind (is valgrind installed?)")
    return int(m.group(1))


def serve_count(binary, home, repo, mode, seconds, qpath, ncalls):
    env = nb.env(home)
    load = os.path.join(HERE, "build", "memgate-mcpload")
    if not os.access(load, os.X_OK):
        raise SystemExit(f"instructions: {load} is missing; run `make build/memgate-mcpload`")
    with tempfile.NamedTemporaryFile(prefix="memgate-cg.") as out, tempfile.TemporaryFile("w+") as err:
        p = subprocess.Popen(["valgrind", "--tool=callgrind", "--toggle-collect=worker_main",
                              f"--callgrind-out-file={out.name}", binary, "serve", "--listen", "127.0.0.1:0", "--json"],
                             env=env, stdout=subprocess.PIPE, stderr=err, text=True)
        try:
            port = json.loads(p.stdout.readline())["port"]
            r = subprocess.run([load, f"http://127.0.0.1:{port}/mcp", qpath, "--sessions", "1", "--seconds",
                                str(seconds), "--warmup", "0", "--calls", str(ncalls), "--repo", repo] + (["--mode", mode] if mode != "auto" else []),
                               capture_output=True, text=True)
        finally:
            p.terminate()
            p.wait(timeout=120)
        err.seek(0)
        m = re.search(r"Collected : (\d+)", err.read())
    calls = re.search(r"^requests (\d+)", r.stdout, re.M)
    bad = re.search(r"^errors (\d+)", r.stdout, re.M)
    if not m or not calls or int(calls.group(1)) == 0 or (bad and int(bad.group(1))):
        raise SystemExit(f"instructions: {binary}: no count (callgrind or the load failed): {r.stdout.strip()[-200:]}")
    return int(m.group(1)) / int(calls.group(1)), int(calls.group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("home")
    ap.add_argument("repo")
    ap.add_argument("bins", nargs="+", metavar="BIN")
    ap.add_argument("--function", default="mg_search", help="count inside this function (default %(default)s)")
    ap.add_argument("--mode", default="lexical", help="search mode (default %(default)s)")
    ap.add_argument("--queries", default=os.path.join(HERE, "bench", "queries.tsv"), help="TSV, queries in column 2")
    ap.add_argument("--limit", type=int, default=0, help="at most N queries (default all)")
    ap.add_argument("--serve", type=int, default=0, metavar="S",
                    help="count a server's worker threads over MCP search_code calls instead, for at most S seconds")
    ap.add_argument("--calls", type=int, default=100, metavar="C", help="with --serve: C calls (default %(default)s)")
    ap.add_argument("--steady", action="store_true",
                    help="with --serve: the calls past the first C (4C calls counted less C, over 3C)")
    ap.add_argument("--json", action="store_true", help="one JSON object instead of text")
    a = ap.parse_args()
    if not os.path.isdir(a.home):
        raise SystemExit(f"instructions: {a.home} is not a directory")
    if a.serve and a.steady:
        per = {}
        for b in a.bins:
            one, n1 = serve_count(b, a.home, a.repo, a.mode, a.serve, a.queries, a.calls)
            four, n4 = serve_count(b, a.home, a.repo, a.mode, a.serve, a.queries, 4 * a.calls)
            if n4 <= n1:
                raise SystemExit(f"instructions: {b}: {4 * a.calls} calls did not fit in {a.serve} s")
            per[b] = ((four * n4 - one * n1) / (n4 - n1), n4 - n1)
        first = per[a.bins[0]][0]
        if a.json:
            print(json.dumps({"serve_seconds": a.serve, "mode": a.mode, "steady": True,
                              "per_call": {b: v[0] for b, v in per.items()}, "calls": {b: v[1] for b, v in per.items()}}))
            return
        print(f"MCP search_code, {a.mode} mode, one session, calls {a.calls + 1} to {4 * a.calls}: instructions a call "
              "(worker threads)")
        for b in a.bins:
            print(f"  {per[b][0]:>14,.0f}  {per[b][0] / first:.4f}  {b} ({per[b][1]} calls)")
        return
    if a.serve:
        per = {b: serve_count(b, a.home, a.repo, a.mode, a.serve, a.queries, a.calls) for b in a.bins}
        first = per[a.bins[0]][0]
        if a.json:
            print(json.dumps({"serve_seconds": a.serve, "mode": a.mode, "per_call": {b: v[0] for b, v in per.items()},
                              "calls": {b: v[1] for b, v in per.items()}}))
            return
        print(f"MCP search_code, {a.mode} mode, one session, {a.calls} calls: instructions a call (worker threads)")
        for b in a.bins:
            cut = "" if per[b][1] == a.calls else f", cut short by the {a.serve} s: another mix of queries"
            print(f"  {per[b][0]:>14,.0f}  {per[b][0] / first:.4f}  {b} ({per[b][1]} calls{cut})")
        return
    qs = nb.tsv_queries(a.queries, a.limit)
    if not qs:
        raise SystemExit(f"instructions: no queries in {a.queries}")
    totals = {}
    for b in a.bins:
        totals[b] = sum(count(b, a.home, a.repo, a.mode, a.function, q) for q in qs)
        print(f"instructions: {b} done", file=sys.stderr)
    first = totals[a.bins[0]]
    if a.json:
        print(json.dumps({"function": a.function, "mode": a.mode, "queries": len(qs),
                          "instructions": totals, "ratio": {b: totals[b] / first for b in a.bins}}))
        return
    print(f"{len(qs)} queries, {a.mode} mode, instructions inside {a.function}:")
    for b in a.bins:
        print(f"  {totals[b]:>16,}  {totals[b] / first:.4f}  {b}")


if __name__ == "__main__":
    main()
