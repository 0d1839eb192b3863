#!/usr/bin/env python3
"""memory_recall.py — is memory recalled by meaning? recall@1/5 and MRR on paraphrases.

The set (bench/memrecall/set.tsv) is 50 memories a coding agent might keep
and, for each, a question asked later in other words. Each memory is stored
twice in a fresh data directory, as an episode (`remember`) and as a note
(`set_note`), then each question is asked with `recall` and `search_notes`
(limit 10): does its memory come back among the first k?

Run twice in one process: words only (MEMGATE_EMBEDDER=none: FTS5 alone)
and hybrid (embedder = model: words and the code model's vectors, fused by rank;
docs/memory.md). Also the time per call, client side, as a p50.

Talks MCP over stdio to `memgate mcp` (newline-delimited JSON-RPC), the way an
agent does. usage: bench/memory_recall.py [--bin build/memgate] [--json]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def load_set():
    rows = []
    for line in open(os.path.join(HERE, "memrecall", "set.tsv"), encoding="utf-8"):
        if line.startswith("#") or not line.strip():
            continue
        mid, memory, query = line.rstrip("\n").split("\t")
        rows.append((mid, memory, query))
    return rows


class Mcp:
    def __init__(self, binary, home, repo):
        env = {k: v for k, v in os.environ.items() if not k.startswith("MEMGATE_")}
        env.update(home)
        self.p = subprocess.Popen([binary, "mcp", "--repo", repo], env=env, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)
        self.n = 0
        self.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                 "clientInfo": {"name": "memory_recall", "version": "1"}})
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
        self.p.stdin.flush()

    def call(self, method, params):
        self.n += 1
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.n, "method": method, "params": params}) + "\n")
        self.p.stdin.flush()
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise SystemExit("memory_recall: memgate mcp exited")
            m = json.loads(line)
            if m.get("id") == self.n:
                if "error" in m:
                    raise SystemExit(f"memory_recall: {method}: {m['error']}")
                return m["result"]

    def tool(self, name, args):
        r = self.call("tools/call", {"name": name, "arguments": args})
        if r.get("isError"):
            raise SystemExit(f"memory_recall: {name}: {r['content'][0]['text']}")
        return r.get("structuredContent") or json.loads(r["content"][0]["text"])

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def run(binary, embedder, rows):
    with tempfile.TemporaryDirectory() as d:
        repo, home = os.path.join(d, "repo"), os.path.join(d, "home")
        os.makedirs(repo)
        with open(os.path.join(repo, "main.c"), "w") as f:
            f.write("int main(void) { return 0; }\n")
        env = {"MEMGATE_HOME": home, "MEMGATE_EMBEDDER": embedder, "MEMGATE_WATCH": "off"}
        subprocess.run([binary, "index", repo, "--name", "bench"], env={**os.environ, **env}, check=True,
                       capture_output=True)
        m = Mcp(binary, env, "bench")
        for mid, memory, _ in rows:
            m.tool("remember", {"summary": memory, "session_id": "s1", "tags": [mid]})
            m.tool("set_note", {"key": mid, "value": memory})
        out = {}
        for tool, listkey, ident in (("recall", "episodes", lambda it: (it.get("tags") or [""])[0]),
                                     ("search_notes", "notes", lambda it: it["key"])):
            ranks, times = [], []
            for mid, _, query in rows:
                args = {"query": query, "limit": 10}
                if tool == "recall":
                    args["session_id"] = "s1"
                t = time.perf_counter()
                res = m.tool(tool, args)
                times.append((time.perf_counter() - t) * 1000)
                got = [ident(it) for it in res[listkey]]
                ranks.append(got.index(mid) + 1 if mid in got else 0)
            n = len(ranks)
            out[tool] = {"recall@1": sum(1 for r in ranks if r == 1) / n,
                         "recall@5": sum(1 for r in ranks if 0 < r <= 5) / n,
                         "recall@10": sum(1 for r in ranks if r > 0) / n,
                         "mrr": sum(1 / r for r in ranks if r) / n,
                         "p50_ms": statistics.median(times)}
        m.close()
        return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default=os.environ.get("MEMGATE_BIN", os.path.join(HERE, "..", "build", "memgate")))
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    rows = load_set()
    res = {"words only": run(a.bin, "none", rows), "hybrid": run(a.bin, "model", rows)}
    if a.json:
        print(json.dumps(res, indent=1))
        return
    print(f"memory recalled by meaning: {len(rows)} paraphrased questions (bench/memrecall/set.tsv)")
    print("| tool | search | recall@1 | recall@5 | recall@10 | MRR | p50 ms |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for tool in ("recall", "search_notes"):
        for mode in res:
            r = res[mode][tool]
            print(f"| {tool} | {mode} | {r['recall@1']:.2f} | {r['recall@5']:.2f} | {r['recall@10']:.2f} | "
                  f"{r['mrr']:.3f} | {r['p50_ms']:.1f} |")


if __name__ == "__main__":
    main()
