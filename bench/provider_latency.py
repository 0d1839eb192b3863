#!/usr/bin/env python3
"""Latency overhead of an external MCP provider on search_code and get_context.

memgate can fuse the hits of external MCP servers into search_code and
get_context (docs/providers.md, "External MCP servers as code providers").
This measures what one costs: the same `memgate mcp` (stdio, one client,
the same data directory and index) without a provider, and with a second
memgate as its provider (`memgate mcp` over stdio, its own data directory
holding its own index of the same tree: a fair peer, as fast as memgate
itself). For each tool it prints p50 and p99 wall time per call (the
client's: request written to answer read), side by side, after a machine
reference line. Rounds interleave the two servers, so a busy machine slows
both alike.

The tree is memgate's own src/ (about 200 files of C), indexed here in a
temporary directory; --repo indexes another directory instead.
"""
import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from bugloc import machine as cpu_model  # "CPU model, N cores"
from nav_ts_bench import machine_ref  # sha256 of 256 MiB, MB/s

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("MEMGATE_BIN", os.path.join(HERE, "build", "memgate"))

QUERIES = """provider error metrics gate redact secret scope glob parse config json sqlite index chunk
session token audit search hybrid semantic vector embed tools render context budget watch webhook
http mcp stdio rpc initialize cursor page limit repo resolve tenant""".split()
PROMPTS = [
    "how does the gate redact secrets in search results",
    "where is the config file parsed and validated",
    "what happens when a session expires",
    "how are search results paged with a cursor",
    "where are audit events written to disk",
    "how does hybrid search fuse its ranked lists",
]


def log(msg):
    print(f"bench: {msg}", file=sys.stderr, flush=True)


class Mcp:
    """One `memgate mcp` over stdio, spoken to line by line."""

    def __init__(self, env):
        self.p = subprocess.Popen([BIN, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, env=env, text=True, bufsize=1)
        self.id = 0
        self.call_raw("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                     "clientInfo": {"name": "provider-bench", "version": "1"}})
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")

    def call_raw(self, method, params):
        self.id += 1
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.id, "method": method, "params": params}) + "\n")
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("memgate mcp ended")
            m = json.loads(line)
            if m.get("id") == self.id and "method" not in m:
                return m
            if "method" in m and "id" in m:  # a request of the server (roots/list): no roots
                self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": {"roots": []}}) + "\n")

    def tool(self, name, args):
        t0 = time.perf_counter()
        m = self.call_raw("tools/call", {"name": name, "arguments": args})
        ms = (time.perf_counter() - t0) * 1000
        r = m.get("result") or {}
        if r.get("isError"):
            raise RuntimeError(f"{name}: {r}")
        return ms, r.get("structuredContent") or {}

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=30)


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", default=os.path.join(HERE, "src"), help="the tree to index (default: memgate's src/)")
    ap.add_argument("--rounds", type=int, default=5, help="rounds over every query and prompt (default 5)")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="memgate-provbench-")
    try:
        run(a, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run(a, tmp):
    base = {k: v for k, v in os.environ.items() if not k.startswith("MEMGATE_")}
    cache = os.path.join(tmp, "cache")
    homes = {}
    for side in ("own", "peer"):
        homes[side] = os.path.join(tmp, side)
        os.makedirs(homes[side], mode=0o700)
        env = dict(base, MEMGATE_HOME=homes[side], MEMGATE_CACHE_DIR=cache)
        subprocess.run([BIN, "index", a.repo, "--name", "bench", "--quiet"], env=env, check=True,
                       stdout=subprocess.DEVNULL)
    with_cfg = os.path.join(tmp, "with.config")
    without_cfg = os.path.join(tmp, "without.config")
    peer_args = [f"MEMGATE_HOME={homes['peer']}", f"MEMGATE_CACHE_DIR={cache}", BIN, "mcp"]
    with open(without_cfg, "w") as f:
        f.write("watch = off\n")
    with open(with_cfg, "w") as f:
        f.write("watch = off\n"
                "mcp_provider.peer.command = /usr/bin/env\n"
                f"mcp_provider.peer.args = {json.dumps(peer_args)}\n"
                "mcp_provider.peer.tool = search_code\n"
                'mcp_provider.peer.arguments = {"query": "{query}", "limit": "{limit}", "repo": "bench"}\n'
                "mcp_provider.peer.result = json:/results\n"
                "mcp_provider.peer.repos = bench\n")
    servers = {}
    for name, cfg in (("without", without_cfg), ("with", with_cfg)):
        servers[name] = Mcp(dict(base, MEMGATE_HOME=homes["own"], MEMGATE_CACHE_DIR=cache, MEMGATE_CONFIG=cfg))
    # warm up both (the provider starts on first use; vectors load)
    for s in servers.values():
        for q in QUERIES[:3]:
            s.tool("search_code", {"query": q, "repo": "bench"})
        s.tool("get_context", {"prompt": PROMPTS[0], "repo": "bench"})
    _, d = servers["with"].tool("search_code", {"query": "provider", "repo": "bench"})
    st = (d.get("providers") or [{}])[0]
    if st.get("status") != "ok":
        raise SystemExit(f"bench: the provider does not answer: {st}")
    times = {(t, s): [] for t in ("search_code", "get_context") for s in servers}
    rnd = random.Random(a.seed)
    log(f"provider latency: {a.rounds} rounds of {len(QUERIES)} searches and {len(PROMPTS)} contexts per server")
    for _ in range(a.rounds):
        work = [("search_code", {"query": q, "repo": "bench"}) for q in QUERIES] + \
               [("get_context", {"prompt": p, "repo": "bench"}) for p in PROMPTS]
        rnd.shuffle(work)
        for tool, args in work:
            order = list(servers)
            rnd.shuffle(order)
            for s in order:
                ms, _ = servers[s].tool(tool, args)
                times[(tool, s)].append(ms)
    for s in servers.values():
        s.close()
    print()
    print("### External MCP provider: latency overhead (a second memgate over stdio)")
    print()
    print(f"Machine reference (same run): {cpu_model()}, sha256 {machine_ref():.0f} MB/s, "
          f"load {os.getloadavg()[0]:.1f}. Tree: {os.path.basename(os.path.abspath(a.repo))}/, "
          f"{a.rounds} rounds, calls interleaved.")
    print()
    print("| tool | calls | p50 without | p50 with | p99 without | p99 with | p50 overhead |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for tool in ("search_code", "get_context"):
        wo, wi = times[(tool, "without")], times[(tool, "with")]
        print(f"| {tool} | {len(wo)} | {statistics.median(wo):.2f} ms | {statistics.median(wi):.2f} ms | "
              f"{pct(wo, 99):.2f} ms | {pct(wi, 99):.2f} ms | "
              f"{statistics.median(wi) - statistics.median(wo):+.2f} ms |")


if __name__ == "__main__":
    main()
