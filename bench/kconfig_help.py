#!/usr/bin/env python3
"""kconfig_help.py — long prose queries on Linux, made from the kernel's own docs.

    bench/kconfig_help.py HOME [--tree DIR] [--repo linux] [--modes lexical,hybrid] [--n 150]

Each Kconfig entry with a help text of at least 150 characters whose option
builds a `.c` file of the same directory (`obj-$(CONFIG_X) += name.o` in its
Makefile) is a query: the help text (first 500 characters) asked of the
index, the option's `.c` files the answer. A sample of --n (seeded, the same
every run). For each mode, one `memgate serve` on HOME (an index of --tree,
named --repo; its vectors loaded first), limit 50 chunks folded to files as
bench/bugloc.py does; prints success@1/10, MRR and the p50 of a search.

Code and docs only (no history, no report): a measurement of how a long
description finds its code on a tree of Linux's size, not a set to tune on.
BIN: $MEMGATE_BIN or build/memgate.
"""
import argparse
import json
import os
import random
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bugloc  # noqa: E402  (Api, search, Score: the same measurement)


def entries(tree):
    out = []
    for d, dirs, fs in os.walk(tree):
        dirs.sort()
        if "Kconfig" not in fs or "Makefile" not in fs:
            continue
        with open(os.path.join(d, "Makefile"), errors="replace") as f:
            mk = f.read().replace("\\\n", " ")
        objs = {}
        for m in re.finditer(r"obj-\$\(CONFIG_(\w+)\)\s*[+:]?=\s*([^\n]+)", mk):
            for o in m.group(2).split():
                if o.endswith(".o") and os.path.exists(os.path.join(d, o[:-2] + ".c")):
                    objs.setdefault(m.group(1), []).append(os.path.relpath(os.path.join(d, o[:-2] + ".c"), tree))
        with open(os.path.join(d, "Kconfig"), errors="replace") as f:
            kc = f.read()
        for m in re.finditer(r"^(?:menu)?config (\w+)\n(.*?)(?=^\S)", kc, re.M | re.S):
            h = re.search(r"^\s+(?:---)?help(?:---)?\s*\n(.*)", m.group(2), re.M | re.S)
            text = " ".join(h.group(1).split()) if h else ""
            if m.group(1) in objs and len(text) >= 150:
                out.append((text[:500], objs[m.group(1)]))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("home", help="a data directory holding an index of the tree")
    ap.add_argument("--tree", default=os.path.expanduser("~/.cache/memgate-bench/linux-source-6.1"))
    ap.add_argument("--repo", default="linux")
    ap.add_argument("--modes", default="lexical,hybrid")
    ap.add_argument("--n", type=int, default=150)
    a = ap.parse_args()
    qs = entries(a.tree)
    random.Random(7).shuffle(qs)
    qs = qs[:a.n]
    e = {k: v for k, v in os.environ.items() if k != "MEMGATE_HOME"}
    e.update(MEMGATE_HOME=a.home, MEMGATE_WATCH="off")
    p = subprocess.Popen([bugloc.BIN, "serve", "--listen", "127.0.0.1:0", "--json"], env=e,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        api = bugloc.Api(json.loads(p.stdout.readline())["port"])
        probe = {"q": "connection timeout handling", "mode": "hybrid", "limit": 10, "repo_id": a.repo}
        t0 = time.monotonic()
        while api.call("GET", "/v1/search", probe)[0].get("mode") != "hybrid" and time.monotonic() - t0 < 300:
            time.sleep(1)
        print(f"{len(qs)} Kconfig help texts as queries, {bugloc.BIN}\n")
        print("| mode | success@1 | success@10 | MRR | p50 ms |\n| --- | ---: | ---: | ---: | ---: |")
        for mode in a.modes.split(","):
            s = bugloc.Score()
            for text, ans in qs:
                files, ms = bugloc.search(api, a.repo, mode, text, 50)
                s.add(files, set(ans), ms)
            n = max(s.n, 1)
            print(f"| {mode} | {s.s1 / n:.3f} | {s.s10 / n:.3f} | {s.rr / n:.3f} | {sorted(s.ms)[len(s.ms) // 2]:.1f} |")
    finally:
        p.terminate()
        p.wait()


if __name__ == "__main__":
    main()
