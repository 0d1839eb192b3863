#!/usr/bin/env python3
"""benign.py - the benign side of the injection corpus, from this machine's text.

    python3 tests/injection/benign.py OUTDIR [LINUX_SOURCE_DIR]

Extracts paragraphs that nobody here wrote and that mention what the
injection patterns look for (ignore, disregard, instruction, system, prompt,
previous, override, forget, rules, execute, assistant, role, admin, password,
secret, base64, decode, curl, token, "you are", "from now on"):

  man.tsv      /usr/share/man/man[1-8] (English pages; roff macros stripped)
  doc.tsv      /usr/share/doc: README*, NEWS*, changelog*, CHANGES*, *.txt,
               *.md, plain or gzipped
  include.tsv  comments in /usr/include (*.h)
  repos.tsv    the public repositories mirrored on this machine
               (/work/.mirror/*/repo or $MEMGATE_MIRROR, bare git; skipped when
               absent): READMEs, contributing and security guides, AI policies,
               issue and pull-request templates, docs (*.md, *.rst, *.txt), and
               comments in code (C, C++, Go, Rust, Java, JavaScript, TypeScript,
               Python, Ruby, shell); besides the words above, paragraphs that
               tell the reader what to do or speak to AI agents (you should,
               must, never, do not, please, agent, AI, LLM, send, upload,
               delete...)
  i18n.tsv     man pages in other languages (/usr/share/man/LANG/man[1-8]: de
               fr es it pt pt_BR nl pl ru cs ja ko zh_CN tr sv...), any paragraph
  linux.tsv    LINUX_SOURCE_DIR (default ~/.cache/memgate-bench/linux-source-6.1,
               or $MEMGATE_BENCH_CACHE/linux-source-6.1; skipped when absent):
               paragraphs of Documentation (*.rst, *.txt) and comments in *.c
               and *.h under kernel, mm, fs, lib, security, net/core, block

Each text is 40..600 bytes of UTF-8. Deterministic: files in sorted order,
every k-th file when a tree holds more than a source's file budget, at most
PER_FILE texts a file (evenly spread over the file's matches), at most
PER_FAMILY man pages from files whose names share a first word (gcloud-*,
llvm-*...), at most CAP texts a source (evenly spread), duplicates dropped. Columns as in
attacks.tsv: id, source (where the text came from), text, with backslash,
tab, newline and CR escaped. Prints a count per source.
"""
import gzip
import os
import re
import subprocess
import sys

MIN_BYTES, MAX_BYTES = 40, 600
PER_FILE = 3
PER_FAMILY = 30
WORDS = re.compile(
    r"\b(ignor\w*|disregard\w*|instructions?|system\w*|prompt\w*|previous\w*|overrid\w*|forg[eo]t\w*|rules?"
    r"|execut\w*|assistants?|roles?|admin\w*|passwords?|secrets?|base64|decod\w*|curl|tokens?|you are"
    r"|from now on)\b", re.I)
IMPERATIVE = re.compile(
    r"\b(you should|you must|you can|you may|must not|do not|don'?t|never|always|please|make sure|agents?|AI|LLMs?"
    r"|copilot|assistants?|models?|send|upload|post|delete|remove|paste|email|instead|no longer)\b", re.I)
CTRL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def esc(s):
    return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def read_text(path, limit=4 << 20):
    try:
        if path.endswith(".gz"):
            with gzip.open(path, "rb") as f:
                b = f.read(limit)
        else:
            if os.path.getsize(path) > limit:
                return None
            with open(path, "rb") as f:
                b = f.read()
    except (OSError, EOFError, gzip.BadGzipFile):
        return None
    if b"\0" in b[:4096]:
        return None
    return b.decode("utf-8", "replace")


def files_under(root, accept, dirs=None):
    out = []
    tops = [os.path.join(root, d) for d in dirs] if dirs else [root]
    for top in tops:
        for dp, dn, fn in os.walk(top):
            dn.sort()
            for n in sorted(fn):
                p = os.path.join(dp, n)
                if not os.path.islink(p) and accept(p):
                    out.append(p)
    return out


def spread(items, k):
    """k items evenly spread over the list (all of them when it is short)."""
    if len(items) <= k:
        return list(items)
    return [items[i * len(items) // k] for i in range(k)]


def keep(t, words=WORDS):
    t = t.strip()
    n = len(t.encode("utf-8"))
    return MIN_BYTES <= n <= MAX_BYTES and not CTRL.search(t) and "\ufffd" not in t and \
        (words is None or words.search(t) or (words is IMPERATIVE and WORDS.search(t)))


# ---- man pages --------------------------------------------------------------

ROFF_ESC = [
    (re.compile(r"\\f(\[[^\]]*\]|\(..|.)"), ""),
    (re.compile(r"\\s[-+]?\d+"), ""),
    (re.compile(r"\\\*(\[[^\]]*\]|\(..|.)"), ""),
    (re.compile(r"\\\((em|en)"), "-"),
    (re.compile(r"\\\((aq|cq|oq)"), "'"),
    (re.compile(r"\\\((dq|lq|rq)"), '"'),
    (re.compile(r"\\\(bu"), "*"),
    (re.compile(r"\\\(co"), "(c)"),
    (re.compile(r"\\\(.."), ""),
    (re.compile(r"\\\[[^\]]*\]"), ""),
    (re.compile(r"\\[-e]"), lambda m: "-" if m.group(0) == "\\-" else "\\"),
    (re.compile(r"\\[&|^,/:c%]"), ""),
    (re.compile(r"\\ "), " "),
    (re.compile(r"\\."), ""),
]
BREAKS = {"PP", "P", "LP", "SH", "SS", "TP", "IP", "HP", "sp", "TH", "RS", "RE", "nf", "fi", "EX", "EE", "TQ", "ne", "bp", "in"}
FONTS = {"B", "I", "BR", "IR", "RB", "BI", "IB", "RI", "SM", "SB"}


def roff_text(line):
    for rx, rep in ROFF_ESC:
        line = rx.sub(rep, line)
    return line


def man_paragraphs(src):
    paras, cur = [], []

    def flush():
        if cur:
            paras.append(" ".join(cur))
            cur.clear()
    for line in src.split("\n"):
        if line.startswith(".") or line.startswith("'"):
            m = re.match(r"[.'](\S+)\s*(.*)", line)
            if not m:
                flush()
                continue
            mac, arg = m.group(1), m.group(2)
            if mac in FONTS:
                t = roff_text(arg.replace('"', ""))
                if t.strip():
                    cur.append(t.strip())
            elif mac in BREAKS or mac.startswith("\\\""):
                flush()
            continue
        if not line.strip():
            flush()
            continue
        t = roff_text(line).strip()
        if t:
            cur.append(t)
    flush()
    return [re.sub(r"\s+", " ", p).strip() for p in paras]


# ---- plain docs -------------------------------------------------------------

def doc_paragraphs(src):
    out = []
    for p in re.split(r"\n\s*\n", src.replace("\r\n", "\n")):
        p = p.strip("\n")
        if len(p.encode("utf-8")) > MAX_BYTES:
            out += [l.strip() for l in p.split("\n")]
        else:
            out.append(p.strip())
    return out


# ---- code comments ----------------------------------------------------------

COMMENT = re.compile(r"/\*(.*?)\*/|((?://[^\n]*\n?)+)", re.S)


def comment_paragraphs(src):
    out = []
    for m in COMMENT.finditer(src):
        if m.group(1) is not None:
            lines = [re.sub(r"^\s*\*+ ?", "", l).rstrip() for l in m.group(1).split("\n")]
        else:
            lines = [re.sub(r"^\s*//+ ?", "", l).rstrip() for l in m.group(2).rstrip("\n").split("\n")]
        block = "\n".join(lines).strip()
        for p in re.split(r"\n\s*\n", block):
            p = p.strip()
            if len(p.encode("utf-8")) > MAX_BYTES:
                out += [l.strip() for l in p.split("\n")]
            else:
                out.append(p)
    return out


HASH_COMMENT = re.compile(r"((?:^[ \t]*#(?!!)[^\n]*\n?)+)|\"\"\"(.*?)\"\"\"", re.M | re.S)


def hash_comment_paragraphs(src):
    """# comments and docstrings (Python, Ruby, shell)"""
    out = []
    for m in HASH_COMMENT.finditer(src):
        if m.group(1) is not None:
            block = "\n".join(re.sub(r"^\s*#+ ?", "", l).rstrip() for l in m.group(1).rstrip("\n").split("\n"))
        else:
            block = m.group(2)
        for p in re.split(r"\n\s*\n", block.strip()):
            p = p.strip()
            out += [l.strip() for l in p.split("\n")] if len(p.encode("utf-8")) > MAX_BYTES else [p]
    return out


# ---- mirrored repositories (bare git) ----------------------------------------

REPO_DOC = re.compile(r"(^|/)(readme|contributing|security|ai_policy|agents|claude|code_of_conduct|support"
                      r"|pull_request_template|issue_template)[^/]*$|(^|/)\.github/.*\.(md|ya?ml)$|\.(md|rst|txt)$", re.I)
REPO_CODE = {".c": "c", ".h": "c", ".cc": "c", ".cpp": "c", ".go": "c", ".rs": "c", ".java": "c", ".js": "c",
             ".mjs": "c", ".ts": "c", ".tsx": "c", ".py": "#", ".rb": "#", ".sh": "#"}


def repo_files(mirror):
    """(repo, path, kind) of every doc and code file at HEAD of each bare repository"""
    out = []
    if not os.path.isdir(mirror):
        return out
    for name in sorted(os.listdir(mirror)):
        git = os.path.join(mirror, name, "repo")
        if not os.path.isfile(os.path.join(git, "HEAD")):
            continue
        try:
            ls = subprocess.run(["git", "--git-dir", git, "ls-tree", "-r", "--name-only", "HEAD"],
                                capture_output=True, timeout=60).stdout.decode("utf-8", "replace")
        except (OSError, subprocess.TimeoutExpired):
            continue
        for path in ls.split("\n"):
            ext = os.path.splitext(path)[1].lower()
            if REPO_DOC.search(path):
                out.append((git, path, "doc"))
            elif ext in REPO_CODE and "vendor/" not in path and "third_party/" not in path:
                out.append((git, path, REPO_CODE[ext]))
    return out


def git_read(git, path, limit=1 << 20):
    try:
        b = subprocess.run(["git", "--git-dir", git, "cat-file", "blob", "HEAD:" + path],
                           capture_output=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    if len(b) > limit or b"\0" in b[:4096]:
        return None
    return b.decode("utf-8", "replace")


def collect_repos(files, cap, budget, seen):
    """at most budget files spread over all repositories; PER_FILE texts a file"""
    files = spread(files, budget)
    rows = []
    for git, path, kind in files:
        src = git_read(git, path)
        if not src:
            continue
        parse = doc_paragraphs if kind == "doc" else comment_paragraphs if kind == "c" else hash_comment_paragraphs
        got = []
        for p in parse(src):
            p = p.strip()
            if keep(p, IMPERATIVE) and p not in seen:
                seen[p] = 1
                got.append(p)
        repo = os.path.basename(os.path.dirname(git))
        rows += [(repo + "/" + path, p) for p in spread(got, PER_FILE)]
    return spread(rows, cap)


def family(path):
    """gcloud-compute-instances-create.1.gz -> gcloud: a family of generated
    pages that would otherwise crowd out the rest"""
    return re.split(r"[-_.]", os.path.basename(path), 1)[0].lower()


def collect(files, parse, cap, file_budget, seen, per_family=None, words=WORDS):
    if len(files) > file_budget:
        files = spread(files, file_budget)
    rows, fam = [], {}
    for path in files:
        src = read_text(path)
        if not src:
            continue
        got = []
        for p in parse(src):
            p = p.strip()
            if keep(p, words) and p not in seen:
                seen[p] = 1
                got.append(p)
        f = family(path)
        for p in spread(got, PER_FILE):
            if per_family is None or fam.get(f, 0) < per_family:
                fam[f] = fam.get(f, 0) + 1
                rows.append((path, p))
    return spread(rows, cap)


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: benign.py OUTDIR [LINUX_SOURCE_DIR]")
    outdir = sys.argv[1]
    cache = os.environ.get("MEMGATE_BENCH_CACHE", os.path.expanduser("~/.cache/memgate-bench"))
    linux = sys.argv[2] if len(sys.argv) > 2 else os.path.join(cache, "linux-source-6.1")
    os.makedirs(outdir, exist_ok=True)

    man = "/usr/share/man"
    man_files = files_under(man, lambda p: True, [d for d in sorted(os.listdir(man)) if re.fullmatch(r"man[1-8]", d)]) \
        if os.path.isdir(man) else []
    doc_name = re.compile(r"(readme|news|changelog|changes)[^/]*$|\.(txt|md)(\.gz)?$", re.I)
    doc_files = files_under("/usr/share/doc", lambda p: bool(doc_name.search(os.path.basename(p)))) \
        if os.path.isdir("/usr/share/doc") else []
    inc_files = files_under("/usr/include", lambda p: p.endswith(".h")) if os.path.isdir("/usr/include") else []

    sources = [
        ("man", man_files, man_paragraphs, 1500, 12000),
        ("doc", doc_files, doc_paragraphs, 1000, 1500),
        ("include", inc_files, comment_paragraphs, 1000, 2500),
    ]
    if os.path.isdir(linux):
        ldoc = files_under(os.path.join(linux, "Documentation"), lambda p: p.endswith((".rst", ".txt")))
        lsrc = files_under(linux, lambda p: p.endswith((".c", ".h")),
                           ["kernel", "mm", "fs", "lib", "security", "net/core", "block"])
        sources.append(("linux", [(0, p) for p in ldoc] + [(1, p) for p in lsrc], None, 1000, 3000))

    mirror = os.environ.get("MEMGATE_MIRROR", "/work/.mirror")
    rfiles = repo_files(mirror)
    if rfiles:
        docs = [f for f in rfiles if f[2] == "doc"]
        code = [f for f in rfiles if f[2] != "doc"]
        sources.append(("repos", (docs, code), None, 2000, 5000))
    langs = [d for d in sorted(os.listdir(man)) if not d.startswith("man") and
             os.path.isdir(os.path.join(man, d))] if os.path.isdir(man) else []
    i18n_files = [p for d in langs for p in files_under(os.path.join(man, d), lambda p: True,
                  [m for m in sorted(os.listdir(os.path.join(man, d))) if re.fullmatch(r"man[1-8]", m)])]
    if i18n_files:
        sources.append(("i18n", i18n_files, man_paragraphs, 800, 1600))

    seen = {}
    total = 0
    for name, files, parse, cap, budget in sources:
        if name == "repos":
            rows = collect_repos(files[0], cap // 2, budget // 2, seen) + \
                collect_repos(files[1], cap // 2, budget // 2, seen)
        elif name == "i18n":
            rows = collect(files, parse, cap, budget, seen, PER_FAMILY, words=None)
        elif name == "linux":
            a = collect([p for k, p in files if k == 0], doc_paragraphs, cap // 2, budget // 2, seen)
            b = collect([p for k, p in files if k == 1], comment_paragraphs, cap // 2, budget // 2, seen)
            rows = a + b
        else:
            rows = collect(files, parse, cap, budget, seen, PER_FAMILY if name == "man" else None)
        n = 0
        with open(os.path.join(outdir, name + ".tsv"), "w", encoding="utf-8", newline="\n") as f:
            f.write("# id\tsource\ttext  (extracted by tests/injection/benign.py)\n")
            for path, t in rows:
                n += 1
                f.write("%s-%05d\t%s\t%s\n" % (name, n, esc(name + ":" + path), esc(t)))
        print("%s %d" % (name, n))
        total += n
    print("total %d" % total)


if __name__ == "__main__":
    main()
