#!/usr/bin/env python3
"""bugloc.py — bug localisation on real history (issue 19): given the message
of a bug-fix commit, does a search find the file the fix changed? Run by
bench/run.sh, or alone after `make` built build/memgate.

    bench/bugloc.py [--project redis] [--rebuild] [--limit 50] [--queries N] [--modes lexical,hybrid]

Data: each project's public git repository as a bare mirror, read only
(`git clone --mirror https://github.com/redis/redis` and so on; the paths are
taken from --git-dir NAME=DIR or $BUGLOC_GIT_<NAME>, see PROJECTS below).

The set (bench/bugloc/<project>.tsv, committed; --rebuild makes it again
from the mirror, the same bytes for the same history):

  - the main branch's first-parent history up to the project's END date;
  - a candidate is a commit whose subject says it fixes something (fix,
    fixes, fixed, bug, ... or a body line "fixes #N"), not a merge (pytest
    lands pull requests as merge commits: there the merge of a pull request
    is the candidate, its message the pull request's title and body, its
    diff the one against the first parent), a revert, a release or version
    bump, a typo or lint fix, or a docs/CI/test-only change;
  - its answers: the source files (the project's languages; no tests,
    benches, examples, docs) it changed — 1 to 3 of them — that exist in the
    snapshot; commits changing more than 3 source files are left out;
  - the cut-off: the latest first day of a month such that at least MIN
    (160) candidates, committed after it and before END, have answers in the
    snapshot (the last first-parent commit before the cut-off);
  - the query: subject and body, cleaned — no area prefix (`http2:`,
    `[core]`), trailers (Signed-off-by, Co-authored-by, ...), URLs, issue and
    PR numbers, commit hashes, file names or paths, the changed files' own
    module names (`t_stream`, `_pytest.capture`), markdown marks — and cut
    to 500 bytes at a word.

The run: the snapshot is unpacked (git archive) into the cache
($MEMGATE_BENCH_CACHE/bugloc, default ~/.cache/memgate-bench/bugloc) and
indexed once by memgate with the builtin embedder; one `memgate serve` per
project answers every query over HTTP keep-alive: GET /v1/search in
lexical, semantic and hybrid mode (limit 50 chunks, folded to files: a
file's rank is its best chunk's) and POST /v1/context (get_context: the
files its code pieces come from, in order). The rg baseline: the query's
words (3+ letters, no stop words) as `rg -c -i -w -F -e W ...` over the same
tree, files ranked by matching lines (whole process, as an agent's shell
runs it). The plain whole-file BM25 baseline (bm25): every text file a
document, identifiers split, k1 1.2, b 0.75, written here. The ablations:
lexical, semantic and hybrid again with each ranking signal switched off
alone (config rank_off: roles, files, whole, counts, words; --no-ablations skips them,
--signals picks some). Prints
success@1/5/10, MRR and p50/p99 latency per mode in Markdown, then what
the lists hold beyond their first ten files beside issue 36's target (1.15x
the plain BM25's success@10): lexical search's success within 20 and 30
files, and lexical's and semantic's first ten (and first five) together;
docs/benchmarks.md keeps the figures.
"""
import argparse
import http.client
import json
import math
import os
import re
import subprocess
import sys
import time
import urllib.parse

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("MEMGATE_BIN", os.path.join(HERE, "build", "memgate"))
CACHE = os.path.join(os.environ.get("MEMGATE_BENCH_CACHE", os.path.expanduser("~/.cache/memgate-bench")), "bugloc")
SETDIR = os.path.join(HERE, "bench", "bugloc")
MIN_QUERIES = 160
MAX_QUERY = 500

# name: (default git dir, clone URL, main branch, END date, source extensions)
PROJECTS = {
    "redis": ("/work/.mirror/redis+redis/repo", "https://github.com/redis/redis", "unstable", "2024-10-01",
              (".c", ".h")),
    "pytest": ("/work/.mirror/pytest-dev+pytest/repo", "https://github.com/pytest-dev/pytest", "main", "2026-08-01",
               (".py",)),
    "tokio": ("/work/.mirror/tokio-rs+tokio/repo", "https://github.com/tokio-rs/tokio", "master", "2026-08-01",
              (".rs",)),
    "nginx": ("/work/.mirror/nginx+nginx/repo", "https://github.com/nginx/nginx", "master", "2026-08-01",
              (".c", ".h")),
    "vue": ("/work/.mirror/vuejs+core/repo", "https://github.com/vuejs/core", "main", "2026-08-01", (".ts",)),
    "netty": ("/work/.mirror/netty+netty/repo", "https://github.com/netty/netty", "4.2", "2026-08-01", (".java",)),
    "prometheus": ("/work/.mirror/prometheus+prometheus/repo", "https://github.com/prometheus/prometheus", "main",
                   "2026-08-01", (".go",)),
}
DEFAULT = ("redis", "pytest", "tokio", "nginx", "vue", "netty", "prometheus")
# projects that land pull requests as merge commits: there the merge is the candidate
MERGES = ("pytest", "prometheus")

NOT_SOURCE_DIRS = {"test", "tests", "testing", "__tests__", "testdata", "test-dts", "dts-test", "tests-integration", "tests-build", "test-util", "benches", "bench",
                   "benchmarks", "examples", "example", "fuzz", "doc", "docs", "stress-test", "ci", ".github",
                   "changelog", "scripts", "utils", "contrib", "misc"}
FIX = re.compile(r"\b(fix|fixes|fixed|fixing|bugfix|hotfix|bug|bugs|crash|crashes|segfault|regression|leak|"
                 r"deadlock|overflow|panic|panics|race|incorrect|wrong)\b", re.I)
FIX_REF = re.compile(r"^\s*(fix|fixes|fixed|close|closes|closed|resolve|resolves|resolved)\s*:?\s*#\d+", re.I | re.M)
SKIP_SUBJECT = re.compile(r"^(revert|merge branch|merge remote|release|prepare release|bump|version bump)\b|"
                          r"\b(typo|typos|spelling|clippy|rustfmt|lint|linter|flake8|mypy|pre-commit|changelog|"
                          r"release notes|version bump|bump version|-RELEASE)\b|^nginx-\d", re.I)
SKIP_AREA = {"doc", "docs", "ci", "test", "tests", "testing", "chore", "build", "deps", "release", "changelog",
             "readme", "style", "fmt"}
TRAILER = re.compile(r"^\s*([A-Za-z][A-Za-z-]*-by|Co-authored-by|Cc|Fixes|Closes|Resolves|Refs?|See|See-also|"
                     r"Related|Link|Issue|PR-URL|Change-Id|Bug|Reported|Backport)\s*:", re.I)
STOP = set("""a about above after again against all also am an and any are as at be because been before being
below between both but by can cannot could did do does doing down during each few for from further had has have
having he her here hers him his how i if in into is it its itself just let me more most my no nor not now of off
on once only or other our out over own same she should so some such than that the their theirs them then there
these they this those through to too under until up upon us very was we were what when where which while who whom
why will with would you your yet via per one two use used using make makes made get gets got should must may might
fix fixes fixed fixing bug bugs issue issues case cases when add adds added change changes changed now instead
""".split())
DOC_EXT = ("c", "h", "cc", "cpp", "hpp", "py", "pyi", "rs", "toml", "md", "rst", "txt", "tcl", "yml", "yaml",
           "json", "cfg", "ini", "sh", "conf", "in", "lock", "go", "js", "ts", "html", "xml", "lua")
FILENAME = re.compile(r"\b[\w+-]+(?:\.[\w+-]+)*\.(?:" + "|".join(DOC_EXT) + r")(?::\d+)?\b")
SLASHED = re.compile(r"(?<![\w/.])[\w.+-]*(?:/[\w.+-]+)+/?")


def log(msg):
    print(f"bench: {msg}", file=sys.stderr, flush=True)


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(round(q * (len(v) - 1))))] if v else 0.0


def git(gd, *args):
    return subprocess.run(["git", "--git-dir", gd, *args], capture_output=True, check=True).stdout.decode(
        "utf-8", "replace")


def machine():
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            model = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), model)
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores"


# ---- the set ----------------------------------------------------------------


def is_source(path, exts):
    if not path.endswith(exts):
        return False
    parts = path.split("/")
    if any(p in NOT_SOURCE_DIRS for p in parts[:-1]):
        return False
    base = parts[-1]
    return not (base.startswith("test_") or base.endswith(("_test.py", "_test.rs", "_tests.rs", "_test.c", "_test.go",
                                                            ".spec.ts", ".test.ts", ".d.ts"))
                or base in ("conftest.py", "setup.py", "noxfile.py"))


def history(gd, branch, end):
    """The first-parent commits before end, newest first: (hash, parents,
    date, message, changed paths against the first parent)."""
    out = git(gd, "log", "--first-parent", "--diff-merges=first-parent", "--no-renames", "--name-only",
              f"--before={end}T00:00:00Z", "--since=2012-01-01", "--format=%x00%H%x01%P%x01%cI%x01%B%x02",
              f"refs/heads/{branch}")
    rows = []
    for rec in out.split("\x00")[1:]:
        head, _, files = rec.partition("\x02")
        h, parents, date, msg = head.split("\x01", 3)
        rows.append((h, parents.split(), date, msg.strip(), [f for f in files.split("\n") if f.strip()]))
    return rows


def message_of(project, parents, msg):
    """The message to judge and clean, or None for a commit that is no
    candidate (merges, except pytest's pull requests)."""
    if len(parents) > 1:
        m = re.match(r"Merge pull request #\d+ from (\S+)\s*\n(.*)", msg, re.S)
        if project not in MERGES or not m or not m.group(2).strip():
            return None
        if re.search(r"release|backport|merge|update-|bump", m.group(1), re.I):
            return None
        return m.group(2).strip()
    return msg


def area_split(subject):
    """(area prefix or "", the rest): `http2: x`, `sync, rt: x`, `[core] x`,
    and a conventional commit's type and scope, `fix(runtime-core): x`
    (area `fix,runtime-core`)."""
    m = re.match(r"^\s*\[([\w ./-]{1,30})\]\s*(.*)", subject)
    if m:
        return m.group(1), m.group(2)
    m = re.match(r"^\s*([a-z]+)\(([^()]{1,60})\)!?:\s+(.*)", subject)
    if m:
        return m.group(1) + "," + m.group(2), m.group(3)
    m = re.match(r"^\s*([\w./*-]{1,30}(?:\s*,\s*[\w./*-]{1,30})*)\s*:\s+(.*)", subject)
    if m:
        return m.group(1), m.group(2)
    return "", subject


def candidate(subject, body):
    area, rest = area_split(subject)
    if area and any(a.strip().lower() in SKIP_AREA for a in re.split(r"[,/ ]", area)):
        return False
    if SKIP_SUBJECT.search(subject) or SKIP_SUBJECT.search(rest):
        return False
    conventional_fix = re.match(r"^\s*fix(?:\([^()]{1,60}\))?!?:\s", subject)  # `fix(scope): x`, `fix: x`
    return bool(conventional_fix or FIX.search(rest) or FIX_REF.search(body))


def modules(paths):
    """Names that give a changed file away: `t_stream` for src/t_stream.c,
    `_pytest.capture` / `_pytest/capture` for src/_pytest/capture.py."""
    out = set()
    for p in paths:
        stem = os.path.splitext(p)[0]
        base = os.path.basename(stem)
        if re.search(r"[_\d]", base) and len(base) >= 4:
            out.add(base)
        parts = stem.split("/")
        if parts[-1] in ("__init__", "mod"):
            parts = parts[:-1]
        for i in range(len(parts) - 1):
            out.add(".".join(parts[i:]))
            out.add("/".join(parts[i:]))
    return out


def clean(subject, body, answers, tops):
    _, subject = area_split(subject)
    text = subject + "\n" + body
    lines = []
    fence = False
    for line in text.split("\n"):
        if line.strip().startswith("```"):
            fence = not fence
            continue
        if TRAILER.match(line) or re.match(r"^\s*(\(?cherry picked from|This reverts commit)", line, re.I):
            continue
        if re.match(r"^\s*<!--.*-->\s*$", line):
            continue
        lines.append(line)
    text = "\n".join(lines)
    text = re.sub(r"<!--.*?-->", " ", text, flags=re.S)
    text = re.sub(r"\bhttps?://\S+|\bwww\.\S+", " ", text)
    text = re.sub(r"(?:[\w.-]+/[\w.-]+)?(?:#|\bgh-|\bGH-)\d+\b", " ", text)  # #123, gh-123, owner/repo#123
    text = re.sub(r"\b(?:PR|pull request|issue)\s*\d+\b", " ", text, flags=re.I)
    text = re.sub(r"\b(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b", " ", text)
    # paths: a slashed word with 2+ slashes or starting with a top-level
    # directory of the tree (`src/`, `tokio/`); `I/O`, `and/or` stay
    text = SLASHED.sub(lambda m: " " if m.group(0).count("/") >= 2 or m.group(0).split("/")[0] in tops
                       or m.group(0).startswith(("./", "../")) else m.group(0), text)
    text = FILENAME.sub(" ", text)
    for name in sorted(modules(answers), key=len, reverse=True):
        text = re.sub(r"(?<![\w.])" + re.escape(name) + r"(?![\w])", " ", text)
    text = re.sub(r"[`*#>|]+", " ", text)                  # markdown marks
    text = re.sub(r"\(\s*[,;]?\s*\)|\[\s*\]", " ", text)    # what the removals left empty
    text = re.sub(r"\s+", " ", text).strip()
    if len(text.encode()) > MAX_QUERY:
        cut = text.encode()[:MAX_QUERY].decode("utf-8", "ignore")
        text = cut.rsplit(" ", 1)[0] if " " in cut else cut
    return text


def build_set(name, gd):
    _, url, branch, end, exts = PROJECTS[name]
    log(f"{name}: reading the history of {branch} before {end}")
    rows = history(gd, branch, end)
    cands = []
    for h, parents, date, msg, files in rows:
        m = message_of(name, parents, msg)
        if m is None or len(parents) == 0:
            continue
        subject, _, body = m.partition("\n")
        if not candidate(subject, body):
            continue
        src = sorted(f for f in files if is_source(f, exts))
        if not 1 <= len(src) <= 3:
            continue
        cands.append((h, date, subject, body, src))
    # the cut-off: the latest first of a month with MIN candidates answerable after it
    # (the snapshot: the newest first-parent commit that, with all its
    # first-parent ancestors, is dated before the cut-off — dates on that
    # line are not always in order, nginx's converted history least — and the
    # queries are the candidates above it on the line)
    months = sorted({d[:7] for _, _, d, _, _ in rows}, reverse=True)
    smax = [""] * (len(rows) + 1)
    for i in range(len(rows) - 1, -1, -1):
        smax[i] = max(smax[i + 1], rows[i][2][:10])
    for month in months:
        cutoff = month + "-01"
        k = next((i for i in range(len(rows)) if smax[i] < cutoff), None)
        if k is None:  # no history before this month: too few candidates in all
            raise SystemExit(f"bench: {name}: fewer than {MIN_QUERIES} bug-fix queries in its history")
        snap = rows[k][0]
        tree = set(git(gd, "ls-tree", "-r", "--name-only", snap).split("\n"))
        tops = {p.split("/")[0] for p in tree if "/" in p}
        after = {r[0] for r in rows[:k]}
        qs = []
        for h, date, subject, body, src in cands:
            if h not in after:
                continue
            ans = [f for f in src if f in tree]
            if not ans:
                continue
            q = clean(subject, body, src, tops)
            if len(q.split()) < 3:
                continue
            qs.append((h, date, q, ans))
        if len(qs) >= MIN_QUERIES:
            break
    else:
        raise SystemExit(f"bench: {name}: fewer than {MIN_QUERIES} bug-fix queries in its history")
    qs.sort(key=lambda r: r[1])
    os.makedirs(SETDIR, exist_ok=True)
    path = os.path.join(SETDIR, f"{name}.tsv")
    with open(path, "w") as f:
        f.write(f"# bug localisation set for {name} ({url}), built by bench/bugloc.py --rebuild\n")
        f.write(f"# branch {branch} (first parent), cutoff {cutoff}, snapshot {snap}, end {end}\n")
        f.write("# commit\tquery\tanswers (space-separated paths in the snapshot)\n")
        for h, _, q, ans in qs:
            f.write(f"{h}\t{q}\t{' '.join(ans)}\n")
    log(f"{name}: cutoff {cutoff}, snapshot {snap[:12]}, {len(qs)} queries -> {os.path.relpath(path, HERE)}")


def load_set(name):
    path = os.path.join(SETDIR, f"{name}.tsv")
    snap, qs = None, []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#"):
                m = re.search(r"snapshot ([0-9a-f]{40})", line)
                snap = m.group(1) if m else snap
                continue
            h, q, ans = line.split("\t")
            qs.append((h, q, ans.split()))
    return snap, qs


# ---- the run ----------------------------------------------------------------


# the embedder of the run (BUGLOC_EMBEDDER: model, what `auto` picks, or builtin, ...); each has its own index
EMBEDDER = os.environ.get("BUGLOC_EMBEDDER", "model")


def env(home, weights=None, off=None):
    e = {k: v for k, v in os.environ.items() if not k.startswith("MEMGATE_")}
    e["MEMGATE_HOME"] = home
    e["MEMGATE_EMBEDDER"] = EMBEDDER
    e["MEMGATE_WATCH"] = "off"
    if weights:  # "L,S,Y,P" or "L,S,Y,P:K" (config hybrid_weights, hybrid_rrf_k)
        w, _, k = weights.partition(":")
        e["MEMGATE_HYBRID_WEIGHTS"] = w
        if k:
            e["MEMGATE_HYBRID_RRF_K"] = k
    if off:  # a ranking signal switched off (config rank_off): an ablation
        e["MEMGATE_RANK_OFF"] = off
    return e


def prepare(name, gd, snap):
    """The snapshot's tree and memgate's index of it, made once."""
    base = os.path.join(CACHE, name)
    src, home = os.path.join(base, "src-" + snap[:12]), os.path.join(base, "home-" + snap[:12] + ("" if EMBEDDER == "builtin" else "-" + EMBEDDER))
    if not os.path.exists(os.path.join(src, ".bugloc-done")):
        log(f"{name}: unpacking {snap[:12]} into {src}")
        subprocess.run(["rm", "-rf", src], check=True)
        os.makedirs(src)
        # a fetched mirror may lack its largest blobs: those files are left out (for every mode alike)
        listing = git(gd, "ls-tree", "-r", "-z", snap).split("\0")
        objs = [(e.split()[2], e.split("\t", 1)[1]) for e in listing if e and e.split()[1] == "blob"]
        chk = subprocess.run(["git", "--git-dir", gd, "cat-file", "--batch-check"], capture_output=True, text=True,
                             input="".join(o + "\n" for o, _ in objs)).stdout.split("\n")
        absent = [path for (o, path), line in zip(objs, chk) if line.endswith(" missing")]
        if absent:
            log(f"{name}: {len(absent)} blobs absent from the mirror, left out: {', '.join(absent[:5])}"
                + (" ..." if len(absent) > 5 else ""))
        a = subprocess.Popen(["git", "--git-dir", gd, "archive", snap, "--", "."] +
                             [f":(exclude,literal){path}" for path in absent], stdout=subprocess.PIPE)
        subprocess.run(["tar", "-x", "-C", src], stdin=a.stdout, check=True)
        if a.wait() != 0:
            raise SystemExit(f"bench: git archive {snap} failed in {gd}")
        open(os.path.join(src, ".bugloc-done"), "w").close()
    info = os.path.join(home, "bugloc-index.json")
    if not os.path.exists(info):
        log(f"{name}: memgate index ({EMBEDDER} embedder)")
        subprocess.run(["rm", "-rf", home], check=True)
        out = subprocess.run([BIN, "index", src, "--name", name, "--json"], env=env(home), check=True,
                             capture_output=True, text=True).stdout
        with open(info, "w") as f:
            f.write(out)
    with open(info) as f:
        idx = json.loads(f.read().strip().split("\n")[-1])
    return src, home, idx


class Api:
    def __init__(self, port):
        self.c = http.client.HTTPConnection("127.0.0.1", port, timeout=300)

    def call(self, method, route, q=None, body=None):
        t0 = time.monotonic()
        if method == "GET":
            self.c.request("GET", route + "?" + urllib.parse.urlencode(q or {}))
        else:
            self.c.request("POST", route, body=json.dumps(body), headers={"Content-Type": "application/json"})
        r = json.loads(self.c.getresponse().read())
        return r, (time.monotonic() - t0) * 1000


def files_of(paths):
    seen, out = set(), []
    for p in paths:
        if p not in seen:
            seen.add(p)
            out.append(p)
    return out


def search(api, repo, mode, q, limit):
    r, ms = api.call("GET", "/v1/search", {"q": q, "mode": mode, "limit": limit, "repo_id": repo})
    if "error" in r:
        raise SystemExit(f"bench: search {mode} {q[:60]!r}: {r['error']}")
    return files_of(h["path"] for h in r["results"]), ms


BUDGET_TOKENS = 8000
CONTEXT_LIMIT = 50  # get_context's largest limit: what its budget alone cuts
CONTEXT_NOTE = []


def get_context(api, repo, q, limit=None):
    """get_context for q: (its code files in order, ms, the block's bytes).
    Asks for an 8,000-token budget; a server that takes no budget argument
    is asked without one (its own cap, max_context_bytes, applies), and the
    report says so. limit: get_context's own (None: its default)."""
    body = {"prompt": q, "repo_id": repo}
    if limit:
        body["limit"] = limit
    if not CONTEXT_NOTE:
        body["budget_tokens"] = BUDGET_TOKENS
    r, ms = api.call("POST", "/v1/context", body=body)
    if "error" in r and not CONTEXT_NOTE and "budget_tokens" in json.dumps(r["error"]):
        CONTEXT_NOTE.append("get_context takes no token budget here: its own cap, max_context_bytes "
                            "(32 KiB by default, about 8,000 tokens), applied")
        del body["budget_tokens"]
        r, ms = api.call("POST", "/v1/context", body=body)
    if "error" in r:
        raise SystemExit(f"bench: get_context {q[:60]!r}: {r['error']}")
    paths = []
    for part in r.get("parts", []):
        if part.get("kind") != "code":
            continue
        if part.get("path"):  # get_context names a code piece's file
            paths.append(part["path"])
            continue
        m = re.match(r"\[source: (.*?):\d+(?:-\d+)?[\] ]", part.get("source", ""))  # older servers: the heading
        if m:
            paths.append(m.group(1))
    return files_of(paths), ms, len(r.get("block", "").encode())


def words(q):
    out, seen = [], set()
    for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", q):
        lw = w.lower()
        if len(lw) >= 3 and lw not in STOP and lw not in seen:
            seen.add(lw)
            out.append(lw)
    return out


def rg_rank(src, q):
    ws = words(q)
    t0 = time.monotonic()
    if not ws:
        return [], (time.monotonic() - t0) * 1000
    args = ["rg", "-c", "-i", "-w", "-F", "--no-messages"]
    for w in ws:
        args += ["-e", w]
    out = subprocess.run(args + ["."], cwd=src, capture_output=True, text=True).stdout
    ms = (time.monotonic() - t0) * 1000
    counts = []
    for line in out.splitlines():
        p, _, n = line.rpartition(":")
        if n.isdigit():
            counts.append((-int(n), p[2:] if p.startswith("./") else p))
    counts.sort()
    return [p for _, p in counts], ms


# ---- the plain whole-file BM25 baseline ---------------------------------------
#
# No index, no model: every text file of the tree is a document (not over
# 1 MiB, no NUL byte in its first 8 KiB), its words and their identifier parts
# (parseHttpHeader, parse_http_header -> parse, http, header, as well as the
# whole word) lowercased; BM25 with k1 1.2, b 0.75 and the non-negative IDF
# log(1 + (N - df + 0.5) / (df + 0.5)); each distinct query token counts once.

WORD = re.compile(r"[A-Za-z0-9_\x80-\U0010ffff]+")
PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def bm25_tokens(text):
    out = []
    for w in WORD.findall(text):
        out.append(w.lower())
        parts = [p.lower() for chunk in w.split("_") for p in PART.findall(chunk)]
        if len(parts) > 1:
            out.extend(parts)
    return out


class Bm25:
    K1, B = 1.2, 0.75

    def __init__(self, src):
        self.paths, self.lens, self.post = [], [], {}
        for d, dirs, fs in os.walk(src):
            dirs[:] = sorted(x for x in dirs if x != ".git")
            for f in sorted(fs):
                full = os.path.join(d, f)
                try:
                    if os.path.islink(full) or os.path.getsize(full) > (1 << 20):
                        continue
                    with open(full, "rb") as fh:
                        raw = fh.read()
                except OSError:
                    continue
                if b"\0" in raw[:8192]:
                    continue
                toks = bm25_tokens(raw.decode("utf-8", "replace"))
                doc = len(self.paths)
                self.paths.append(os.path.relpath(full, src))
                self.lens.append(len(toks))
                tf = {}
                for t in toks:
                    tf[t] = tf.get(t, 0) + 1
                for t, n in tf.items():
                    self.post.setdefault(t, []).append((doc, n))
        self.avgdl = sum(self.lens) / max(len(self.lens), 1)

    def rank(self, q):
        t0 = time.monotonic()
        n, score = len(self.paths), {}
        for t in dict.fromkeys(bm25_tokens(q)):
            post = self.post.get(t)
            if not post:
                continue
            idf = math.log(1 + (n - len(post) + 0.5) / (len(post) + 0.5))
            for doc, tf in post:
                norm = self.K1 * (1 - self.B + self.B * self.lens[doc] / self.avgdl)
                score[doc] = score.get(doc, 0.0) + idf * tf * (self.K1 + 1) / (tf + norm)
        order = sorted(score, key=lambda d: (-score[d], self.paths[d]))
        return [self.paths[d] for d in order], (time.monotonic() - t0) * 1000


class Score:
    def __init__(self):
        self.n = self.s1 = self.s5 = self.s10 = self.any = 0
        self.rr = 0.0
        self.ms = []

    def add(self, files, answers, ms):
        self.n += 1
        self.ms.append(ms)
        rank = next((i + 1 for i, f in enumerate(files) if f in answers), 0)
        if rank:
            self.any += 1
            self.rr += 1.0 / rank
            self.s1 += rank == 1
            self.s5 += rank <= 5
            self.s10 += rank <= 10


ALL_MODES = ("lexical", "semantic", "hybrid", "get_context", "rg", "bm25")


def serve(home, weights=None, off=None):
    """A server on home, once its vectors are in memory (a server answers
    hybrid queries by words while they load, which would count as hybrid's);
    and how long its first hybrid query took."""
    p = subprocess.Popen([BIN, "serve", "--listen", "127.0.0.1:0", "--json"], env=env(home, weights, off),
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    api = Api(json.loads(p.stdout.readline())["port"])
    q = {"q": "connection timeout handling", "mode": "hybrid", "limit": 10}
    r, cold = api.call("GET", "/v1/search", q)
    t0 = time.monotonic()
    while r.get("mode") != "hybrid" and time.monotonic() - t0 < 120:
        time.sleep(0.1)
        r, _ = api.call("GET", "/v1/search", q)
    return p, api, cold


# Ranking signals the ablations switch off one at a time (config rank_off;
# search/filerank.c, search/lexical.c): the file roles, the file-level sum,
# the whole-file score, that score's second pass over the best files' text
# (counts), and the any-word pass ranked by every word that fits (words).
SIGNALS = ("roles", "files", "whole", "counts", "words")


def run_variant(name, home, qs, limit, modes, weights=None, off=None):
    """Searches in `modes` again on a server whose fusion weights are
    `weights` (config hybrid_weights: lexical,semantic,symbol,path) or with
    the ranking signal `off` switched off."""
    s = {m: Score() for m in modes}
    p, api, _ = serve(home, weights, off)
    try:
        for _, q, ans in qs:
            for m in modes:
                files, ms = search(api, name, m, q, limit)
                s[m].add(files, set(ans), ms)
    finally:
        p.terminate()
        p.wait(timeout=60)
    return s


def run_project(name, gd, limit, nq, only=ALL_MODES, weights=(), ablate=SIGNALS):
    snap, qs = load_set(name)
    if nq:
        qs = qs[:nq]
    src, home, idx = prepare(name, gd, snap)
    modes = tuple(m for m in ("lexical", "semantic", "hybrid") if m in only)
    ctxs = (("get_context", None), (f"get_context limit {CONTEXT_LIMIT}", CONTEXT_LIMIT)) \
        if "get_context" in only else ()
    scores = {m: Score() for m in modes + tuple(c for c, _ in ctxs) + (("rg",) if "rg" in only else ())
              + (("bm25",) if "bm25" in only else ())}
    bm25 = Bm25(src) if "bm25" in only else None
    ctx_bytes = {c: [] for c, _ in ctxs}
    ranks = {m: [] for m in ("lexical", "semantic") if m in modes}  # each query's first changed file (0: none)
    p, api, cold = serve(home)
    try:
        log(f"{name}: {len(qs)} queries (first hybrid query of the server: {cold:.0f} ms)")
        for i, (h, q, ans) in enumerate(qs):
            ans = set(ans)
            for m in modes:
                files, ms = search(api, name, m, q, limit)
                scores[m].add(files, ans, ms)
                if m in ranks:
                    ranks[m].append(next((i + 1 for i, f in enumerate(files) if f in ans), 0))
            for c, lim in ctxs:
                files, ms, nb = get_context(api, name, q, lim)
                scores[c].add(files, ans, ms)
                ctx_bytes[c].append(nb)
            if "rg" in only:
                files, ms = rg_rank(src, q)
                scores["rg"].add(files, ans, ms)
            if bm25:
                files, ms = bm25.rank(q)
                scores["bm25"].add(files, ans, ms)
            if (i + 1) % 50 == 0:
                log(f"{name}:   {i + 1}")
    finally:
        p.terminate()
        p.wait(timeout=60)
    for w in weights:
        log(f"{name}: hybrid with hybrid_weights={w}")
        scores[f"hybrid, weights {w}"] = run_variant(name, home, qs, limit, ("hybrid",), weights=w)["hybrid"]
    for sig in ablate:
        log(f"{name}: {', '.join(modes)} without {sig}")
        for m, s in run_variant(name, home, qs, limit, modes, off=sig).items():
            scores[f"{m}, no {sig}"] = s
    return {"snap": snap, "n": len(qs), "idx": idx, "cold": cold, "scores": scores, "ctx_bytes": ctx_bytes,
            "ranks": ranks, "tree_mb": sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(src) for f in fs) / 1e6}


def report(results, limit):
    print(f"\n## Bug localisation on real history — {time.strftime('%Y-%m-%d', time.gmtime())}, {EMBEDDER} embedder\n")
    print(f"Machine: {machine()}. memgate over HTTP (`memgate serve`, keep-alive), {limit} chunks per search "
          f"folded to files; rg: whole process.\n")
    print("| project | snapshot | queries | files indexed | chunks | vectors | index s |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for name, r in results.items():
        ix = r["idx"]
        vec = ix.get("vectors") or {}
        emb = vec.get("embedder", "?")
        print(f"| {name} | {r['snap'][:12]} | {r['n']} | {ix.get('total_files', '?')} | {ix.get('chunks', '?')} | "
              f"{vec.get('chunks', '?')} ({emb}) | "
              f"{ix.get('seconds', 0):.1f} |")
    print()
    print("| project | mode | success@1 | success@5 | success@10 | MRR | found (any rank) | p50 ms | p99 ms |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, r in results.items():
        for m, s in r["scores"].items():
            n = max(s.n, 1)
            print(f"| {name} | {m} | {s.s1 / n:.3f} | {s.s5 / n:.3f} | {s.s10 / n:.3f} | {s.rr / n:.3f} | {s.any / n:.3f} | "
                  f"{pct(s.ms, .5):.1f} | {pct(s.ms, .99):.1f} |")
    print()
    for name, r in results.items():
        for c, b in r["ctx_bytes"].items():
            print(f"- {name}: {c} includes a changed file in {r['scores'][c].any / max(r['n'], 1):.1%} of queries; "
                  f"block median {pct(b, .5) / 1024:.1f} KiB (~{pct(b, .5) / 4:.0f} tokens at 4 bytes a token), max "
                  f"{max(b or [0]) / 1024:.1f} KiB")
        print(f"- {name}: the server's first hybrid query (vectors loaded) {r['cold']:.0f} ms")
    if CONTEXT_NOTE:
        print(f"- {CONTEXT_NOTE[0]}.")
    print("\nfound: a changed file anywhere in the list (search: the files of the first "
          f"{limit} chunks; get_context: its code pieces; rg: every matching file).")
    ceilings(results)


def ceilings(results):
    """What the lists hold beyond their first ten files, beside issue 36's target (hybrid success@10 at least
    1.15x the plain BM25's): how far a re-ranking of lexical search's own list could go (a changed file among
    its first 20 or 30 files), and what lexical and semantic search hold together -- their first ten files
    each (20 files), or their first five each (10 files) -- as if an oracle picked the changed file out of
    them. A fusion of the two lists that shows ten files is below the last."""
    rows = [(n, r) for n, r in results.items() if "lexical" in r["ranks"] and "bm25" in r["scores"]]
    if not rows:
        return
    both = all("semantic" in r["ranks"] for _, r in rows)
    print("\n### What the lists hold (success within the first N files)\n")
    print("| project | 1.15x plain BM25 | hybrid @10 | lexical @10 | lexical @20 | lexical @30 |"
          + (" lexical @10 + semantic @10 | lexical @5 + semantic @5 |" if both else ""))
    print("| --- | ---: | ---: | ---: | ---: | ---: |" + (" ---: | ---: |" if both else ""))
    for name, r in rows:
        n = max(r["n"], 1)
        lex = r["ranks"]["lexical"]
        sem = r["ranks"].get("semantic") or [0] * len(lex)
        at = lambda rk, k: 0 < rk <= k
        hyb = r["scores"].get("hybrid")
        line = (f"| {name} | {1.15 * r['scores']['bm25'].s10 / n:.3f} | "
                f"{(hyb.s10 / n if hyb else float('nan')):.3f} | "
                + " | ".join(f"{sum(at(x, k) for x in lex) / n:.3f}" for k in (10, 20, 30)) + " |")
        if both:
            line += (f" {sum(at(a, 10) or at(b, 10) for a, b in zip(lex, sem)) / n:.3f} |"
                     f" {sum(at(a, 5) or at(b, 5) for a, b in zip(lex, sem)) / n:.3f} |")
        print(line)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--project", action="append", help="one of " + ", ".join(PROJECTS) + " (repeatable; default: "
                    "each whose set is in bench/bugloc and whose mirror is present)")
    ap.add_argument("--git-dir", action="append", default=[], metavar="NAME=DIR",
                    help="a project's bare mirror (also $BUGLOC_GIT_<NAME>)")
    ap.add_argument("--rebuild", action="store_true", help="build bench/bugloc/<project>.tsv again from the mirror")
    ap.add_argument("--limit", type=int, default=50, help="chunks per search")
    ap.add_argument("--queries", type=int, default=0, help="only the first N queries of each set (a quick look)")
    ap.add_argument("--modes", default=",".join(ALL_MODES),
                    help="what to run, comma-separated (default: %(default)s; tuning one mode is quicker alone)")
    ap.add_argument("--weights", action="append", default=None, metavar="L,S,Y,P[,G][:K]",
                    help="also run hybrid with these fusion weights (config hybrid_weights: lexical, semantic, "
                         "symbol, path[, graph]; :K sets hybrid_rrf_k too; repeatable; default: 1,0,1,0.5,0, "
                         "hybrid without "
                         "the semantic list, "
                         "which says what the embedder adds; --weights none: no extra run)")
    ap.add_argument("--no-ablations", action="store_true",
                    help="skip the runs with each ranking signal (" + ", ".join(SIGNALS) + ") switched off")
    ap.add_argument("--signals", default=",".join(SIGNALS),
                    help="the ranking signals the ablations switch off, one at a time (default: all)")
    a = ap.parse_args()
    if any(x not in SIGNALS for x in a.signals.split(",")):
        raise SystemExit(f"bench: --signals: each one of {', '.join(SIGNALS)}")
    weights = tuple(w for w in (a.weights if a.weights is not None else ["1,0,1,0.5,0"]) if w != "none")
    if "hybrid" not in a.modes.split(","):
        weights = ()
    only = tuple(m for m in a.modes.split(",") if m)
    bad = [m for m in only if m not in ALL_MODES]
    if bad:
        raise SystemExit(f"bench: --modes: unknown {', '.join(bad)} (one of {', '.join(ALL_MODES)})")
    gds = {n: os.environ.get(f"BUGLOC_GIT_{n.upper()}", PROJECTS[n][0]) for n in PROJECTS}
    for kv in a.git_dir:
        n, _, d = kv.partition("=")
        if n not in PROJECTS:
            raise SystemExit(f"bench: --git-dir {kv}: unknown project (one of {', '.join(PROJECTS)})")
        gds[n] = d
    names = a.project or [n for n in DEFAULT if os.path.exists(os.path.join(SETDIR, f"{n}.tsv"))]
    missing = [n for n in names if not os.path.isfile(os.path.join(gds[n], "HEAD"))]
    if missing:
        print("bench: bugloc skipped: no git mirror of " + ", ".join(missing) + "; get one with " +
              "; ".join(f"git clone --mirror {PROJECTS[n][1]} DIR and BUGLOC_GIT_{n.upper()}=DIR" for n in missing))
        names = [n for n in names if n not in missing]
        if not names:
            return
    if a.rebuild:
        for n in names:
            build_set(n, gds[n])
        return
    if not os.path.exists(BIN):
        raise SystemExit(f"bench: {BIN} is missing; run `make`")
    results = {n: run_project(n, gds[n], a.limit, a.queries, only, weights, () if a.no_ablations else a.signals.split(",")) for n in names}
    report(results, a.limit)


if __name__ == "__main__":
    main()
