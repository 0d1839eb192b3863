#!/usr/bin/env python3
"""watch_bench.py — how fast the index follows the code (run by bench/run.sh,
or alone after `make bench` built build/memgate and fetched the kernel).

    bench/watch_bench.py [--edits 50] [--clients 32] [--files 1000]

On a git repository made once from the Linux 6.1 source in the benchmark
cache (tag v1; tag v2 appends a marker line to --files .c files), indexed
into its own data directory, `memgate serve` with the watcher on:

  - save-to-search latency: a line with a fresh token appended to each of
    --edits different .c files, one at a time; the time from the write to
    the first GET /v1/search that returns the token (polled every 10 ms),
    p50 and p95, idle and while --clients threads search without pause;
  - the watcher at rest: serve's RSS with the watcher on minus a serve with
    watch = off on the same data, the directories watched, and serve's CPU
    seconds over 30 idle seconds;
  - `git checkout v2` and back (--files files change): the time until every
    marker is searchable (and then gone again). Some changed files are not
    indexable (memgate's rules exclude them), so "every" is the count once the
    watcher has nothing pending and the count has stood still for a second.

The comparison is the same work without the watcher: the changes are
visible only after `memgate index` of the repo, whose time is printed.
Prints a Markdown report; docs/benchmarks.md keeps the figures.
"""
import argparse
import hashlib
import http.client
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("MEMGATE_BIN", os.path.join(HERE, "build", "memgate"))
CACHE = os.environ.get("MEMGATE_BENCH_CACHE", os.path.expanduser("~/.cache/memgate-bench"))
SRC = os.path.join(CACHE, "linux-source-6.1")
WORK = os.path.join(CACHE, "watch")
REPO = os.path.join(WORK, "linux")
HOME = os.path.join(WORK, "home")
MARK = "watchbench_tag_v2_marker"


def log(msg):
    print(f"bench: {msg}", file=sys.stderr, flush=True)


def git(*args):
    subprocess.run(["git", "-C", REPO, "-c", "user.email=b@example.com", "-c", "user.name=bench", *args],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def make_repo(nfiles):
    """The kernel as a git repo with tags v1 and v2 (v2: a marker in nfiles .c files). Made once."""
    stamp = os.path.join(WORK, f"repo-{nfiles}.done")
    if os.path.exists(stamp):
        return
    log(f"making a git repo of linux-6.1 in {REPO} (once)")
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    shutil.copytree(SRC, REPO, symlinks=True)
    gi = os.path.join(REPO, ".gitignore")  # Debian's package ignores "/*" at the top: the kernel's own rules only
    with open(gi) as f:
        text = f.read()
    cut = text.find("# Debian packaging")
    if cut >= 0:
        with open(gi, "w") as f:
            f.write(text[:cut])
    subprocess.run(["git", "init", "-q", "-b", "main", REPO], check=True)
    git("add", "-A")
    git("commit", "-qm", "v1")
    git("tag", "v1")
    cs = sorted(p for p in subprocess.run(["git", "-C", REPO, "ls-files", "*.c"], check=True, capture_output=True,
                                          text=True).stdout.split("\n") if p)
    random.Random(7).shuffle(cs)
    for p in cs[:nfiles]:
        with open(os.path.join(REPO, p), "a") as f:
            f.write(f"/* {MARK} */\n")
    git("commit", "-qam", "v2")
    git("tag", "v2")
    git("checkout", "-q", "v1")
    open(stamp, "w").close()


def env(**kw):
    e = {k: v for k, v in os.environ.items() if not k.startswith("MEMGATE_")}
    e["MEMGATE_HOME"] = HOME
    e.update(kw)
    return e


def start_serve(**kw):
    p = subprocess.Popen([BIN, "serve", "--listen", "127.0.0.1:0", "--json"], env=env(**kw), stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    info = json.loads(p.stdout.readline())
    return p, f"http://127.0.0.1:{info['port']}"


def stop(p):
    p.terminate()
    p.wait(timeout=60)


_conn = threading.local()


def search_all(url, q, limit=5):
    """GET /v1/search over this thread's keep-alive connection (no port per request): the
    results and how many the response cap left out."""
    port = int(url.rsplit(":", 1)[1])
    for attempt in range(2):
        c = getattr(_conn, "c", None)
        if c is None or _conn.port != port:
            c = _conn.c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            _conn.port = port
        try:
            c.request("GET", f"/v1/search?q={urllib.request.quote(q)}&mode=lexical&limit={limit}")
            j = json.loads(c.getresponse().read())
            if "results" not in j:
                raise SystemExit(f"bench: search {q!r} failed: {json.dumps(j)[:400]}")
            return j["results"], j.get("gate", {}).get("omitted", 0)
        except (http.client.HTTPException, OSError):
            c.close()
            _conn.c = None
            if attempt:
                raise
    return [], 0


def search(url, q, limit=5):
    return search_all(url, q, limit)[0]


def count(url, q, need):
    """How many files hold q, paging with next_cursor until need are seen or the pages end (one
    page is cut by the response cap, and its "omitted" counts only what that page left out)."""
    port = int(url.rsplit(":", 1)[1])
    seen, cursor = set(), None
    while True:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        try:
            qs = f"/v1/search?q={urllib.request.quote(q)}&mode=lexical&limit=100"
            if cursor:
                qs += f"&cursor={urllib.request.quote(cursor)}"
            c.request("GET", qs)
            j = json.loads(c.getresponse().read())
        finally:
            c.close()
        if j.get("error"):  # shown, not counted as "no file holds q"
            log(f"search {q!r} failed: {j['error'].get('code')}: {j['error'].get('message')}")
        seen.update(h["path"] for h in j.get("results", []))
        cursor = j.get("next_cursor")
        if len(seen) >= need or not cursor:
            return len(seen)


def meta(key):
    out = subprocess.run(["sqlite3", "-cmd", ".timeout 10000", os.path.join(HOME, "repos", "linux.db"), f"SELECT value FROM meta WHERE key='{key}'"],
                         capture_output=True, text=True).stdout.strip()
    return out


def wait(pred, timeout=600, step=0.01):
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if pred():
            return time.monotonic() - t0
        time.sleep(step)
    raise SystemExit(f"bench: timed out after {timeout} s")


def settle(url, q, most, since, quiet=3.0, timeout=900):
    """After a checkout begun at `since` (time.time()): the seconds until the last change in how many
    files hold q, and that number. Not every changed file is indexable (memgate's rules exclude some),
    so the count to wait for is not known in advance: it is final once the watcher has run since the
    checkout (meta index.incr_at), some files hold q, and the count has not moved for `quiet` seconds.
    (watch.pending is published every few seconds, not live: it read 0 while the checkout's batch was
    still being indexed, and a count of 0 that stood still ended the wait: "0 of them indexable".)"""
    t0 = time.monotonic()
    last, at = -1, 0.0
    while time.monotonic() - t0 < timeout:
        n = count(url, q, most)
        now = time.monotonic() - t0
        if n != last:
            last, at = n, now
        elif last > 0 and now - at >= quiet and int(meta("index.incr_at") or 0) >= int(since):
            return at, last
        time.sleep(0.05)
    raise SystemExit(f"bench: timed out after {timeout} s")


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def cpu_s(pid):
    with open(f"/proc/{pid}/stat") as f:
        parts = f.read().rsplit(")", 1)[1].split()
    return (int(parts[11]) + int(parts[12])) / os.sysconf("SC_CLK_TCK")


def latencies(url, files, tag):
    out = []
    for i, p in enumerate(files):
        tok = f"wb{tag}{i}x{random.randrange(1 << 30):x}"
        with open(os.path.join(REPO, p), "a") as f:
            t0 = time.monotonic()
            f.write(f"int {tok};\n")
        wait(lambda: search(url, tok, 1), timeout=120, step=0.01)
        out.append(time.monotonic() - t0)
    return out


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(round(q * (len(v) - 1))))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--edits", type=int, default=50)
    ap.add_argument("--clients", type=int, default=32)
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--embedder", default="none",
                    help="the embedder of the index and the server (default none; another gets its own data directory)")
    a = ap.parse_args()
    global HOME
    if a.embedder != "none":
        HOME = os.path.join(WORK, "home-" + a.embedder)
    if not os.path.exists(os.path.join(SRC, "MAINTAINERS")):
        raise SystemExit("bench: the kernel source is missing; run `make bench` (bench/run.sh fetches it)")
    ref = hashlib.sha256()
    t0 = time.monotonic()
    ref.update(b"\0" * (256 << 20))
    sha_mbps = 268.435456 / (time.monotonic() - t0)

    make_repo(a.files)
    git("checkout", "-q", "-f", "v1")
    git("clean", "-qfd")
    if not os.path.exists(os.path.join(HOME, "repos", "linux.db")):
        log("indexing the repo (once)")
        os.makedirs(HOME, exist_ok=True)
        subprocess.run([BIN, "index", REPO, "--name", "linux"], env=env(MEMGATE_EMBEDDER=a.embedder), check=True,
                       stdout=subprocess.DEVNULL)
    log("the comparison: memgate index with nothing changed")
    t0 = time.monotonic()
    subprocess.run([BIN, "index", REPO, "--name", "linux"], env=env(MEMGATE_EMBEDDER=a.embedder), check=True,
                   stdout=subprocess.DEVNULL)
    noop_index_s = time.monotonic() - t0
    dirs = int(subprocess.run(["bash", "-c", f"cd {REPO} && git ls-files | sed -n 's|/[^/]*$||p' | sort -u | wc -l"],
                              capture_output=True, text=True).stdout) + 1

    # at rest: RSS without and with the watcher, idle CPU
    p, url = start_serve(MEMGATE_WATCH="off", MEMGATE_EMBEDDER=a.embedder)
    time.sleep(3)
    search(url, "spin_lock", 1)
    rss_off = rss_kb(p.pid)
    stop(p)
    p, url = start_serve(MEMGATE_EMBEDDER=a.embedder)
    t_watch = wait(lambda: meta("watch.state") == "watching" and meta("watch.pending") == "0", timeout=900, step=0.2)
    search(url, "spin_lock", 1)
    time.sleep(3)
    rss_on = rss_kb(p.pid)
    watches = meta("watch.count")
    c0 = cpu_s(p.pid)
    time.sleep(30)
    idle_cpu = cpu_s(p.pid) - c0

    cs = [x for x in subprocess.run(["git", "-C", REPO, "ls-files", "drivers/*.c", "fs/*.c", "net/*.c"],
                                    capture_output=True, text=True).stdout.split("\n") if x]
    random.Random(11).shuffle(cs)
    log(f"{a.edits} edits, idle")
    idle = latencies(url, cs[:a.edits], "i")

    stop_flag = threading.Event()
    words = ["mutex_lock", "kmalloc", "spin_unlock_irqrestore", "copy_from_user", "struct file_operations",
             "dma_map_single", "list_for_each_entry", "rcu_read_lock", "netif_rx", "schedule_timeout"]
    counts = [0] * a.clients
    took = [[] for _ in range(a.clients)]

    def client(k):
        r = random.Random(k)
        while not stop_flag.is_set():
            t = time.monotonic()
            try:
                search(url, r.choice(words), 10)
                counts[k] += 1
                took[k].append(time.monotonic() - t)
            except Exception:
                pass

    th = [threading.Thread(target=client, args=(k,), daemon=True) for k in range(a.clients)]
    for t in th:
        t.start()
    log(f"{a.edits} edits, {a.clients} clients searching")
    t_load = time.monotonic()
    busy = latencies(url, cs[a.edits:2 * a.edits], "b")
    load_s = time.monotonic() - t_load
    stop_flag.set()
    for t in th:
        t.join()
    qps = sum(counts) / load_s
    took = [x for v in took for x in v]  # a search's own round trip under the load: part of every save-to-search

    log(f"git checkout v2 ({a.files} files change) and back")
    t0, since = time.monotonic(), time.time()
    git("checkout", "-q", "-f", "v2")
    co_git = time.monotonic() - t0
    co_to, co_n = settle(url, MARK, a.files, since)
    co_to += co_git
    t0 = time.monotonic()
    git("checkout", "-q", "-f", "v1")
    co_back = wait(lambda: count(url, MARK, 1) == 0, timeout=900, step=0.05) + (time.monotonic() - t0)
    stop(p)

    log("the comparison: the same checkout, then memgate index")
    git("checkout", "-q", "-f", "v2")
    t0 = time.monotonic()
    subprocess.run([BIN, "index", REPO, "--name", "linux"], env=env(MEMGATE_EMBEDDER=a.embedder), check=True,
                   stdout=subprocess.DEVNULL)
    manual = time.monotonic() - t0
    git("checkout", "-q", "-f", "v1")
    subprocess.run([BIN, "index", REPO, "--name", "linux"], env=env(MEMGATE_EMBEDDER=a.embedder), check=True,
                   stdout=subprocess.DEVNULL)
    for x in cs[:2 * a.edits]:
        git("checkout", "-q", "--", x)

    ms = lambda v: f"{v * 1000:.0f} ms"
    print(f"""
## Live index (watcher) — {time.strftime('%Y-%m-%d', time.gmtime())}, {os.cpu_count()} cores

Machine reference (same run): sha256 on one core {sha_mbps:.0f} MB/s.
linux-6.1 as a git repo ({dirs} directories with files), `memgate serve` with the watcher on, searches over
GET /v1/search (lexical), embedder {a.embedder}. `bench/watch_bench.py --edits {a.edits} --clients {a.clients} --files {a.files}`.

| measure | with the watcher | without (re-index by hand) |
| --- | --- | --- |
| save → first search that finds it, idle, {a.edits} edits | p50 {ms(pct(idle, .5))}, p95 {ms(pct(idle, .95))}, max {ms(max(idle))} ({sum(x > .25 for x in idle)} over 250 ms) | `memgate index` with nothing changed: about {noop_index_s:.1f} s |
| the same while {a.clients} clients search ({qps:.0f} searches/s; one search takes p50 {ms(pct(took, .5))}, p95 {ms(pct(took, .95))}) | p50 {ms(pct(busy, .5))}, p95 {ms(pct(busy, .95))}, max {ms(max(busy))} ({sum(x > .25 for x in busy)} over 250 ms) | — |
| `git checkout` changing {a.files} files ({co_n} of them indexable) → all searchable | {co_to:.1f} s (git itself {co_git:.1f} s); back again {co_back:.1f} s | `memgate index` after the checkout: {manual:.1f} s |
| serve RSS | {rss_on / 1024:.0f} MB with {watches} directories watched | {rss_off / 1024:.0f} MB (watch = off): the watcher adds {(rss_on - rss_off) / 1024:.0f} MB |
| serve CPU over 30 idle seconds | {idle_cpu:.2f} s | — |
| from start to watching (catching up: walk + stat) | {t_watch:.1f} s | — |

Target (issue 17): p95 ≤ 1 s; RSS growth ≤ 64 MB; idle CPU ≈ 0.
""")


if __name__ == "__main__":
    main()
