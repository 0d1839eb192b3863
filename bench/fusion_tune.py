#!/usr/bin/env python3
"""fusion_tune.py — choose hybrid search's fusion weights (config
hybrid_weights) on code alone: docstring -> function retrieval.

    bench/fusion_tune.py [--repo owner/name ...] [--queries 120] [--grid coarse|none] [--weights W ...]
                         [--rank-off SIGNAL ...]

The rule (docs/semantic.md, "Weights and k"): ranking is tuned only on code,
comments and docs, never on commit messages, issue texts or report -> file
pairs; the bug-localisation benchmark (bench/bugloc.py) only measures the
result. So the task here is the one the code model trains on
(model/pairs.py): a function's doc comment is the query, the file that holds
the function the answer.

Data: repositories of model/corpus.tsv at their commits (public code, several
languages; none is a project of bench/bugloc.py: the script refuses one),
read from bare mirrors (--mirrors, default /work/.mirror, laid out as the
`fetch` tool does: OWNER+NAME/repo). Per repository:

  - the (doc comment -> function) pairs of model/pairs.py, code pairs only;
  - a sample of --queries of them (seeded, the same every run), at most two
    per file;
  - the tree unpacked (git archive) with the sampled functions' doc comments
    blanked out (lines kept, so nothing else moves): a query must find the
    function by its code, not by the comment it was cut from;
  - indexed once by memgate (builtin embedder, the default) into the cache
    ($MEMGATE_BENCH_CACHE/fusion, default ~/.cache/memgate-bench/fusion).

Then hybrid search (limit 50 chunks, folded to files as bench/bugloc.py
does) with each weight setting, one `memgate serve` per setting and repo;
success@1/10 and MRR of the answer file. --grid coarse walks the weights one
list at a time from all 1 (lexical stays 1: scaling every weight by one
factor changes no ranking), twice over, and keeps a change only when the
macro-average success@10 over the repositories rises by more than 0.005
over the best so far (values tried from 0 up: the best so far wins a tie);
--weights runs given settings too. Prints Markdown; docs/semantic.md keeps the figures.
"""
import argparse
import hashlib
import json
import os
import random
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(HERE, "bench"))
sys.path.insert(0, os.path.join(HERE, "model"))
import bugloc  # noqa: E402  (serve, search, Score: the same measurement)
import pairs  # noqa: E402  (the pairs the code model trains on)

# The hashed embedder unless BUGLOC_EMBEDDER says otherwise: these repositories are in the code
# model's training corpus, so the model has seen these very pairs and would be measured on them.
bugloc.EMBEDDER = os.environ.get("BUGLOC_EMBEDDER", "builtin")

CACHE = os.path.join(os.environ.get("MEMGATE_BENCH_CACHE", os.path.expanduser("~/.cache/memgate-bench")), "fusion")
# one repository per language, small enough to index in seconds
DEFAULT_REPOS = ("libuv/libuv", "gin-gonic/gin", "pallets/click", "hyperium/hyper", "apache/commons-io",
                 "typeorm/typeorm")
VALUES = (0, 0.25, 0.5, 1, 2)
LISTS = ("lexical", "semantic", "symbol", "path", "graph", "files")


def log(msg):
    print(f"fusion: {msg}", file=sys.stderr, flush=True)


CORPUS = os.path.join(HERE, "model", "corpus.tsv")  # --corpus


def corpus(path=None):
    out = {}
    for line in open(path or CORPUS, encoding="utf-8"):
        if line.startswith("#") or not line.strip():
            continue
        repo, commit, langs = line.rstrip("\n").split("\t")
        out[repo] = (commit, langs)
    return out


def doc_spans(src, lang):
    """(first doc line, last doc line, query) of the file's code pairs, as
    model/pairs.py finds them (its generators give the lines, not where they
    are: found here again, in order)."""
    lines = src.split("\n")
    gen = pairs.py_pairs(src) if lang == "python" else pairs.brace_pairs(src, lang)
    pos = 0
    for doc, body in gen:
        q = pairs.clean_doc(doc)
        m = re.match(r"^(\w+)\s+(.*)", q)
        if m and re.search(r"\b" + re.escape(m.group(1)) + r"\s*[(<]", body[0] if body else ""):
            q = m.group(2)
        if len(re.findall(r"[A-Za-z]{2,}", q)) < 3 or len(body) < 2:
            continue
        if lang == "python":
            start = next((i for i in range(pos, len(lines)) if lines[i] == body[0]), None)
            if start is None:
                continue
            j = start
            while j < len(lines) and not lines[j].rstrip().endswith(":") and j - start < 20:
                j += 1
            first, last = j + 1, j + len(doc)
        else:
            first = next((i for i in range(pos, len(lines) - len(doc) + 1) if lines[i:i + len(doc)] == doc), None)
            if first is None:
                continue
            last = first + len(doc) - 1
        pos = last + 1
        yield first, last, q


def prepare(repo, mirrors, nq):
    """The repo's tree with the sampled doc comments blanked, its index, and
    the queries [(query, path)]."""
    commit, _ = corpus()[repo]
    gd = os.path.join(mirrors, repo.replace("/", "+"), "repo")
    if not os.path.isdir(gd):
        raise SystemExit(f"fusion: no mirror of {repo} at {gd} (the fetch tool, or git clone --mirror)")
    banned = pairs.bench_projects(HERE)
    if repo.lower() in banned:
        raise SystemExit(f"fusion: {repo} is a project of bench/bugloc.py: never tuned on")
    trained = {r.lower() for r in corpus(os.path.join(HERE, "model", "corpus.tsv"))}
    if bugloc.EMBEDDER == "model" and repo.lower() in trained:
        raise SystemExit(f"fusion: {repo} is in the code model's corpus (model/corpus.tsv): the model would be "
                         "measured on its own training pairs; use repositories it never saw (--corpus "
                         "bench/fusion_heldout.tsv)")
    base = os.path.join(CACHE, repo.replace("/", "+") + "-" + commit[:12] + f"-q{nq}" + (f"-long{LONG}" if LONG else "")
                        + ("" if bugloc.EMBEDDER == "builtin" else "-" + bugloc.EMBEDDER))
    src, home, qfile = os.path.join(base, "src"), os.path.join(base, "home"), os.path.join(base, "queries.json")
    if os.path.exists(qfile) and os.path.exists(os.path.join(home, "fusion-index.json")):
        return home, json.load(open(qfile)), src
    subprocess.run(["rm", "-rf", base], check=True)
    os.makedirs(src)
    cands = []  # (path, first, last, query)
    texts = {}
    for path, lang, text in pairs.repo_files(gd, commit):
        if lang == "docs":
            continue
        if lang == "javascript" and path.endswith(".ts"):
            lang = "typescript"
        spans = list(doc_spans(text, lang))
        rnd = random.Random(hashlib.sha256(path.encode()).hexdigest())
        if LONG and len(spans) >= LONG_MIN:
            # --long: one query per file, several of its doc comments in file order (a long description)
            texts[path] = text
            got = sorted(rnd.sample(spans, min(LONG, len(spans))))
            cands.append((path, [(f, l) for f, l, _ in got], " ".join(q for _, _, q in got)))
        elif spans and not LONG:
            texts[path] = text
            # at most two per file, so that one big file does not make the sample
            for first, last, q in rnd.sample(spans, min(2, len(spans))):
                cands.append((path, [(first, last)], q))
    rnd = random.Random(1)
    cands.sort()
    sample = sorted(rnd.sample(cands, min(nq, len(cands))))
    a = subprocess.Popen(["git", "--git-dir", gd, "archive", commit], stdout=subprocess.PIPE)
    subprocess.run(["tar", "-x", "-C", src], stdin=a.stdout, check=True)
    if a.wait() != 0:
        raise SystemExit(f"fusion: git archive {commit} failed in {gd}")
    blank = {}
    for path, spans, _ in sample:
        blank.setdefault(path, []).extend(spans)
    for path, spans in blank.items():
        lines = texts[path].split("\n")
        for first, last in spans:
            for i in range(first, last + 1):
                lines[i] = ""
        with open(os.path.join(src, path), "w", encoding="utf-8") as f:
            f.write("\n".join(lines))
    log(f"{repo}: {len(cands)} pairs, {len(sample)} queries; indexing")
    name = repo.split("/")[1]
    out = subprocess.run([bugloc.BIN, "index", src, "--name", name, "--json"], env=bugloc.env(home), check=True,
                         capture_output=True, text=True).stdout
    with open(os.path.join(home, "fusion-index.json"), "w") as f:
        f.write(out)
    qs = [(q, path) for path, _, q in sample]
    with open(qfile, "w") as f:
        json.dump(qs, f)
    return home, qs, src


MODE = "hybrid"  # --mode
LONG = 0  # --long
LONG_MIN = 3  # a file needs this many documented functions for a --long query


def run(repo, home, qs, weights, off=None, src=None):
    if MODE == "bm25":  # the plain whole-file baseline of bench/bugloc.py on the same task
        s = bugloc.Score()
        b = bugloc.Bm25(src)
        for q, p in qs:
            files, ms = b.rank(q)
            s.add(files, {p}, ms)
    else:
        s = bugloc.run_variant(repo.split("/")[1], home, [(None, q, [p]) for q, p in qs], 50, (MODE,),
                           weights=weights, off=off)[MODE]
    n = max(s.n, 1)
    return {"s1": s.s1 / n, "s10": s.s10 / n, "mrr": s.rr / n}


def fmt(w):
    return ",".join(f"{x:g}" for x in w)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", action="append", help="owner/name of the corpus (repeatable; default: "
                    + ", ".join(DEFAULT_REPOS) + ", or every repository of --corpus when it is given)")
    ap.add_argument("--corpus", help="the repositories and their commits, as model/corpus.tsv (default: that "
                    "file; bench/fusion_heldout.tsv lists repositories the code model never saw, for "
                    "BUGLOC_EMBEDDER=model)")
    ap.add_argument("--mirrors", default=os.environ.get("MODEL_MIRRORS", "/work/.mirror"),
                    help="bare mirrors as OWNER+NAME/repo (default: $MODEL_MIRRORS or %(default)s)")
    ap.add_argument("--queries", type=int, default=120, help="queries per repository")
    ap.add_argument("--grid", choices=("coarse", "none"), default="coarse",
                    help="coarse: walk each list's weight over " + ", ".join(map(str, VALUES)) + "; none: only --weights")
    ap.add_argument("--weights", action="append", default=[], metavar="L,S,Y,P,G[,F]",
                    help="also run these settings (repeatable)")
    ap.add_argument("--rank-off", action="append", default=[], metavar="SIGNAL",
                    help="also run the chosen weights (--grid none: the first --weights, or the default) with this ranking signal switched off (config rank_off: "
                         + ", ".join(bugloc.SIGNALS) + "; repeatable): its ablation on the code task")
    ap.add_argument("--mode", choices=("hybrid", "lexical", "bm25"), default="hybrid",
                    help="the search mode measured (lexical: only the file lists' weight, the sixth, matters; "
                         "bm25: bench/bugloc.py's plain whole-file baseline, weights ignored)")
    ap.add_argument("--long", type=int, default=0, metavar="N",
                    help="the long-query task: one query per file of at least 3 documented functions, up to N of "
                         "their doc comments joined (all blanked), the file the answer; a long description "
                         "of a file, as a report is long")
    a = ap.parse_args()
    global MODE, LONG
    MODE = a.mode
    LONG = a.long
    if bugloc.EMBEDDER != "builtin":
        log(f"embedder {bugloc.EMBEDDER} (BUGLOC_EMBEDDER)")
    global CORPUS
    if a.corpus:
        CORPUS = a.corpus
    repos = a.repo or (list(corpus()) if a.corpus else list(DEFAULT_REPOS))
    data = {r: prepare(r, a.mirrors, a.queries) for r in repos}
    seen = {}

    def measure(w):
        key = fmt(w)
        if key not in seen:
            seen[key] = {r: run(r, h, qs, key, src=src) for r, (h, qs, src) in data.items()}
            avg = sum(v["s10"] for v in seen[key].values()) / len(repos)
            log(f"{key}: success@10 {avg:.3f} " + " ".join(f"{v['s10']:.3f}" for v in seen[key].values()))
        return seen[key]

    def avg(w, k="s10"):
        return sum(v[k] for v in measure(w).values()) / len(repos)

    best = [1.0] * len(LISTS)
    if a.grid == "coarse":
        for _ in range(2):
            for i in range(1, len(LISTS)):
                for v in VALUES:
                    w = best[:i] + [v] + best[i + 1:]
                    if avg(w) > avg(best) + 0.005:
                        best = w
    for w in a.weights:
        measure([float(x) for x in w.split(",")])
    task = f"{LONG} doc comments -> file" if LONG else "docstring -> function"
    print(f"\n## Fusion weights on {task} retrieval ({bugloc.EMBEDDER} embedder)\n")
    print(f"Machine: {bugloc.machine()}. {a.queries} queries per repository, {MODE}, 50 chunks folded to files.\n")
    print("| repository | commit | queries |")
    print("| --- | --- | ---: |")
    for r, (_, qs, _) in data.items():
        print(f"| {r} | {corpus()[r][0][:12]} | {len(qs)} |")
    print("\n| " + ", ".join(LISTS) + " | success@10 mean | success@1 mean | MRR mean | success@10 "
          + " / ".join(r.split("/")[1] for r in repos) + " |")
    print("| --- | ---: | ---: | ---: | --- |")
    for key, res in seen.items():
        mark = "**" if key == fmt(best) else ""
        w = [float(x) for x in key.split(",")]
        print(f"| {mark}{key}{mark} | {avg(w):.3f} | {avg(w, 's1'):.3f} | {avg(w, 'mrr'):.3f} | "
              + " / ".join(f"{res[r]['s10']:.3f}" for r in repos) + " |")
    if a.grid == "coarse":
        print(f"\nchosen: {fmt(best)}")
    # the ablations: on the chosen weights, or the first --weights (--grid none), or the config's
    base = fmt(best) if a.grid == "coarse" else (a.weights[0] if a.weights else None)

    def line(what, res):
        n = len(repos)
        print(f"\n{base or 'default weights'} {what}: success@10 mean {sum(v['s10'] for v in res.values()) / n:.3f}, "
              f"success@1 mean {sum(v['s1'] for v in res.values()) / n:.3f}, MRR mean "
              f"{sum(v['mrr'] for v in res.values()) / n:.3f}; success@10 "
              + " / ".join(f"{res[r]['s10']:.3f}" for r in repos))
    if a.rank_off and base is None:  # the config's weights were not in the table: with every signal, for the ablations
        line("with every signal", {r: run(r, h, qs, None, None, src) for r, (h, qs, src) in data.items()})
    for sig in a.rank_off:
        line(f"without {sig}", {r: run(r, h, qs, base, sig, src) for r, (h, qs, src) in data.items()})


if __name__ == "__main__":
    main()
