#!/usr/bin/env python3
"""pairs.py — (doc comment -> function) and (summary -> prose) pairs from the code of the corpus.

Reads each repository of model/corpus.tsv at its commit (`git archive` of a
bare mirror: --mirrors DIR holds OWNER+NAME/repo, as the `fetch` tool lays
them out, or a clone at OWNER+NAME) and writes one JSON line per pair:

  {"q": the doc comment's first paragraph, "d": "path\\n" + the function
   without its doc comment, "lang": ..., "repo": ...}

Only code, comments and docs are read: never a commit message, an issue or
a report. A function's doc comment is
  - Python: the docstring of a `def`;
  - Go, Rust, C, Java, JavaScript, TypeScript: the comment block right above
    the declaration (`//`, `///`, `/** */`, `/* */`), the body being what
    its braces hold.
A pair needs 3+ words of doc and 2+ lines of body; the doc is cut to 400
bytes, the function to 3,000.

Prose pairs (kind "nl"), so that words that mean alike land near each
other (memory is recalled by meaning: docs/memory.md): a doc comment's first
sentence -> the rest of it (5+ words), and a Markdown heading -> the
paragraph under it (8+ words), cut to 600 bytes.

Deterministic: files in path order.

usage: model/pairs.py [--mirrors DIR] [--corpus model/corpus.tsv] OUT.jsonl
"""
import argparse
import json
import os
import re
import subprocess
import sys

DOCS = (".md", ".rst", ".markdown")
EXT = {".py": "python", ".go": "go", ".rs": "rust", ".c": "c", ".h": "c", ".java": "java",
       ".js": "javascript", ".ts": "typescript", ".mjs": "javascript"}
SKIP_DIR = re.compile(r"(^|/)(vendor|third_party|node_modules|dist|build|fixtures?|testdata)/")
MAX_FILE = 512 << 10
DOC_MAX, BODY_MAX, BODY_LINES = 400, 3000, 120


def bench_projects(root):
    """The repos of bench/bugloc.py: never trained on."""
    try:
        text = open(os.path.join(root, "bench", "bugloc.py"), encoding="utf-8").read()
    except OSError:
        return set()
    return {m.lower() for m in re.findall(r"https://github\.com/([\w.-]+/[\w.-]+)", text)}


def strip_marks(lines):
    """A comment's lines without comment markers, blank lines kept ("")."""
    out = []
    for ln in lines:
        s = re.sub(r"^(/\*\*?|\*/|\*|///?|//!|#)\s?", "", ln.strip()).strip()
        out.append(re.sub(r"\*/$", "", s).strip())
    return out


def prose(text, cap=600):
    text = re.sub(r"\{@\w+\s+([^}]*)\}", r"\1", text)
    text = re.sub(r"<[^>]{1,20}>|`|\*\*|:\w+:", "", text)
    text = re.sub(r"\s+", " ", text).strip()
    if len(text) > cap:
        text = text[:cap].rsplit(" ", 1)[0]
    return text


def doc_split(lines):
    """A doc comment as (first sentence, the rest of its text), tag lines left out."""
    body = []
    for s in strip_marks(lines):
        if re.match(r"^(@\w+|:param|:return|:raises|:type|>>>|\.\. )", s):
            continue
        body.append(s)
    text = prose(" ".join(body), 1000)
    m = re.match(r"^(.{12,200}?[.!?])\s+(.*)$", text)
    if not m:
        return "", ""
    return m.group(1), prose(m.group(2))


def md_pairs(src):
    """(heading, the paragraph under it) of a Markdown or reST file."""
    lines = src.split("\n")
    for i, ln in enumerate(lines):
        h = None
        m = re.match(r"^#{1,6}\s+(.+?)\s*#*$", ln)
        if m:
            h = m.group(1)
        elif i + 1 < len(lines) and ln.strip() and re.match(r"^(=+|-+|~+)$", lines[i + 1].strip()) \
                and len(lines[i + 1].strip()) >= len(ln.strip()) - 1:
            h = ln.strip()
        if not h:
            continue
        j = i + 1
        while j < len(lines) and (not lines[j].strip() or re.match(r"^(=+|-+|~+)$", lines[j].strip())):
            j += 1
        para = []
        while j < len(lines) and lines[j].strip() and not lines[j].startswith(("#", "```", "    ", "\t", "|", "..")):
            para.append(lines[j].strip())
            j += 1
        h, text = prose(h, 200), prose(" ".join(para))
        if len(re.findall(r"[A-Za-z]{2,}", h)) >= 2 and len(re.findall(r"[A-Za-z]{2,}", text)) >= 8:
            yield h, text


def clean_doc(lines):
    """The first paragraph of a comment's text, without markers and tags."""
    out = []
    for ln in lines:
        s = ln.strip()
        s = re.sub(r"^(/\*\*?|\*/|\*|///?|//!|#)\s?", "", s).strip()
        s = re.sub(r"\*/$", "", s).strip()
        if not s:
            if out:
                break
            continue
        if re.match(r"^(@\w+|:param|:return|:raises|Args:|Returns:|Parameters|Example|Examples|# )", s):
            break
        out.append(s)
    text = re.sub(r"\s+", " ", " ".join(out)).strip()
    text = re.sub(r"\{@\w+\s+([^}]*)\}", r"\1", text)  # {@link Foo} -> Foo
    text = re.sub(r"<[^>]{1,20}>", "", text)            # <p>, <code>
    if len(text) > DOC_MAX:
        text = text[:DOC_MAX].rsplit(" ", 1)[0]
    return text if len(re.findall(r"[A-Za-z]{2,}", text)) >= 3 else ""


def py_pairs(src):
    lines = src.split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^(\s*)(async\s+)?def\s+\w+", lines[i])
        if not m:
            i += 1
            continue
        indent = len(m.group(1))
        start = i
        j = i
        while j < len(lines) and not lines[j].rstrip().endswith(":") and j - i < 20:
            j += 1
        k = j + 1
        if k >= len(lines):
            break
        dm = re.match(r'^\s*[rRbBuU]?("""|\'\'\')(.*)', lines[k])
        if not dm:
            i += 1
            continue
        q = dm.group(1)
        doc, d_end = [], k
        rest = dm.group(2)
        if q in rest:
            doc.append(rest.split(q)[0])
        else:
            doc.append(rest)
            d_end = k + 1
            while d_end < len(lines) and q not in lines[d_end]:
                doc.append(lines[d_end])
                d_end += 1
            if d_end < len(lines):
                doc.append(lines[d_end].split(q)[0])
        e = d_end + 1
        while e < len(lines) and (not lines[e].strip() or len(lines[e]) - len(lines[e].lstrip()) > indent):
            e += 1
        body = lines[start:k] + lines[d_end + 1:e]
        yield doc, body
        i = k + 1


DECL = {
    "go": re.compile(r"^func\b"),
    "rust": re.compile(r"^\s*(pub(\([\w:]+\))?\s+)?(const\s+)?(async\s+)?(unsafe\s+)?(extern\s+\"C\"\s+)?fn\s+\w+"),
    "c": re.compile(r"^[A-Za-z_][\w \t\*]*\b\w+\s*\([^;]*$"),
    "java": re.compile(r"^\s*(public|protected|private|static|final|abstract|synchronized|default|<)[\w\s<>,\[\]\?\.@]*\b\w+\s*\("),
    "javascript": re.compile(r"^\s*(export\s+)?(default\s+)?(async\s+)?(function\b|\w+\s*\(|(const|let|var)\s+\w+\s*=\s*(async\s+)?(function|\())"),
    "typescript": re.compile(r"^\s*(export\s+)?(default\s+)?(public\s+|private\s+|protected\s+|static\s+|readonly\s+|abstract\s+)*(async\s+)?(function\b|\w+\s*[<(]|(const|let|var)\s+\w+\s*=\s*(async\s+)?(function|\())"),
}


def brace_pairs(src, lang):
    lines = src.split("\n")
    decl = DECL[lang]
    i = 0
    while i < len(lines):
        s = lines[i].strip()
        if not (s.startswith("//") or s.startswith("/*")):
            i += 1
            continue
        # a comment block: consecutive // lines, or one /* ... */
        doc = []
        if s.startswith("/*"):
            while i < len(lines):
                doc.append(lines[i])
                if "*/" in lines[i]:
                    break
                i += 1
            i += 1
        else:
            while i < len(lines) and lines[i].strip().startswith("//"):
                doc.append(lines[i])
                i += 1
        # attributes / annotations between the comment and the declaration
        while i < len(lines) and re.match(r"^\s*(#\[|@\w)", lines[i]):
            i += 1
        if i >= len(lines) or not decl.match(lines[i]) or re.match(r"^\s*(if|for|while|switch|return|else)\b", lines[i]):
            continue
        start, depth, seen, j = i, 0, False, i
        while j < len(lines) and j - start < BODY_LINES:
            t = re.sub(r'"(\\.|[^"\\])*"|\'(\\.|[^\'\\])*\'|//.*$', "", lines[j])
            if ";" in t and not seen and "{" not in t and "(" not in lines[start]:
                break
            depth += t.count("{") - t.count("}")
            seen = seen or "{" in t
            j += 1
            if seen and depth <= 0:
                break
        if not seen or depth > 0 or j - start < 2:
            continue
        yield doc, lines[start:j]
        i = j


def pairs_of(path, src, lang):
    """(kind, query, document) of a file: "code" pairs, and "nl" pairs of its prose."""
    if lang == "docs":
        for h, text in md_pairs(src):
            yield "nl", h, text
        return
    gen = py_pairs(src) if lang == "python" else brace_pairs(src, lang)
    for doc, body in gen:
        first, rest = doc_split(doc)
        if len(re.findall(r"[A-Za-z]{2,}", rest)) >= 5:
            yield "nl", first, rest
        q = clean_doc(doc)
        # "Name returns ..." (Go, and many others): the doc's own subject is the
        # function's name; drop it, so the pair teaches meaning, not spelling
        m = re.match(r"^(\w+)\s+(.*)", q)
        if m and re.search(r"\b" + re.escape(m.group(1)) + r"\s*[(<]", body[0] if body else ""):
            q = m.group(2)
        if len(re.findall(r"[A-Za-z]{2,}", q)) < 3:
            continue
        d = "\n".join(body).strip("\n")
        if d.count("\n") < 1:
            continue
        yield "code", q, path + "\n" + d[:BODY_MAX]


def repo_files(gitdir, commit):
    """(path, language, text) of the commit's source files, in path order; a
    blob the mirror lacks (snapshots leave out files of 4 MiB and more) is
    skipped."""
    tree = subprocess.run(["git", "-C", gitdir, "ls-tree", "-r", "-l", "-z", commit], check=True,
                          stdout=subprocess.PIPE).stdout.decode("utf-8", "replace")
    want = []
    for ent in tree.split("\0"):
        if not ent:
            continue
        meta, path = ent.split("\t", 1)
        mode, kind, sha, size = meta.split()
        ext = os.path.splitext(path)[1]
        if kind != "blob" or (ext not in EXT and ext not in DOCS) or size == "-" or int(size) > MAX_FILE or SKIP_DIR.search(path):
            continue
        if path.endswith(".min.js") or path.endswith(".d.ts"):
            continue
        want.append((path, sha))
    want.sort()
    cat = subprocess.Popen(["git", "-C", gitdir, "cat-file", "--batch"], stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE)
    for path, sha in want:
        cat.stdin.write(sha.encode() + b"\n")
        cat.stdin.flush()
        head = cat.stdout.readline().split()
        if len(head) < 3 or head[1] != b"blob":
            continue
        data = cat.stdout.read(int(head[2]) + 1)[:-1]
        yield path, EXT.get(os.path.splitext(path)[1], "docs"), data.decode("utf-8", "replace")
    cat.stdin.close()
    cat.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mirrors", default=os.environ.get("MODEL_MIRRORS", "/work/.mirror"))
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--corpus", default=os.path.join(here, "corpus.tsv"))
    ap.add_argument("out")
    a = ap.parse_args()
    banned = bench_projects(os.path.dirname(here))
    total = 0
    with open(a.out, "w", encoding="utf-8") as out:
        for line in open(a.corpus, encoding="utf-8"):
            if line.startswith("#") or not line.strip():
                continue
            repo, commit, _ = line.rstrip("\n").split("\t")
            if repo.lower() in banned:
                sys.exit(f"pairs.py: {repo} is a project of bench/bugloc.py; it is never trained on")
            owner_name = repo.replace("/", "+")
            gitdir = next((p for p in (os.path.join(a.mirrors, owner_name, "repo"), os.path.join(a.mirrors, owner_name))
                           if os.path.isdir(p)), None)
            if not gitdir:
                sys.exit(f"pairs.py: no mirror of {repo} under {a.mirrors}: git clone --mirror "
                         f"https://github.com/{repo} {a.mirrors}/{owner_name}/repo (commit {commit})")
            n = 0
            for path, lang, src in repo_files(gitdir, commit):
                if lang in ("javascript",) and path.endswith(".ts"):
                    lang = "typescript"
                for kind, q, d in pairs_of(path, src, lang):
                    out.write(json.dumps({"q": q, "d": d, "kind": kind, "lang": lang, "repo": repo}) + "\n")
                    n += 1
            print(f"{repo}: {n} pairs", file=sys.stderr)
            total += n
    print(f"{total} pairs", file=sys.stderr)


if __name__ == "__main__":
    main()
