#!/usr/bin/python3
"""train.py — train memgate's code model and write it as a checksummed int8 file.

Input: the pairs of model/pairs.py (a doc comment and its function, a
summary and its prose, from the code and docs of model/corpus.tsv), tokenized by model/tokens.c exactly as memgate
tokenizes what it embeds. The model (UNIF-shaped, see src/embed/model.c):
one vector per token bucket; a text's vector is the attention-weighted sum
of its tokens' vectors, with one attention vector for code and one for
queries. Trained so that each doc comment's vector is nearest its own
function among the batch (in-batch softmax, both directions). Pairs whose
doc comment is held out (2%, by a hash of its text) measure it: MRR of the
right function among the held-out ones, in float and after int8
quantisation.

Deterministic for a given torch build and corpus: fixed seed, one thread,
pairs in file order, batches from a seeded permutation.

usage: /usr/bin/python3 model/train.py --pairs PAIRS.jsonl --tokens build/model/tokens
                                       --out model/memgate-code.mgm --provenance model/PROVENANCE.md
"""
import argparse
import hashlib
import json
import os
import struct
import subprocess
import sys
import time

import numpy as np
import torch

NAME = "unif-v1"


def tokenize(helper, bits, cap, texts):
    data = b"".join(t.encode("utf-8", "replace").replace(b"\0", b" ") + b"\0" for t in texts)
    out = subprocess.run([helper, str(bits), str(cap)], input=data, stdout=subprocess.PIPE, check=True).stdout
    rows = out.decode().split("\n")[:-1]
    assert len(rows) == len(texts), (len(rows), len(texts))
    return [np.array([int(x) for x in r.split()], dtype=np.int64) if r else np.zeros(0, dtype=np.int64)
            for r in rows]


def pad(seqs, idx, cap):
    n = max(1, max(min(len(seqs[i]), cap) for i in idx))
    ids = np.zeros((len(idx), n), dtype=np.int64)
    mask = np.zeros((len(idx), n), dtype=bool)
    for r, i in enumerate(idx):
        s = seqs[i][:cap]
        ids[r, :len(s)] = s
        mask[r, :len(s)] = True
    return torch.from_numpy(ids), torch.from_numpy(mask)


class Unif(torch.nn.Module):
    def __init__(self, buckets, dim):
        super().__init__()
        self.emb = torch.nn.Embedding(buckets, dim, sparse=True)
        torch.nn.init.normal_(self.emb.weight, std=0.1)
        self.attn = torch.nn.Parameter(torch.zeros(2, dim))  # 0: code, 1: query

    def forward(self, ids, mask, side):
        e = self.emb(ids)                                   # b, n, d
        logit = (e * self.attn[side]).sum(-1).masked_fill(~mask, -1e9)
        w = torch.softmax(logit, dim=-1) * mask
        v = (w.unsqueeze(-1) * e).sum(1)
        return torch.nn.functional.normalize(v, dim=-1)


def mrr(qv, dv):
    s = qv @ dv.T
    right = np.diag(s)
    rank = (s > right[:, None]).sum(1) + 1
    return float(np.mean(1.0 / rank)), float(np.mean(rank <= 10))


def np_embed(emb, attn, seqs, cap):
    out = np.zeros((len(seqs), emb.shape[1]), dtype=np.float32)
    for i, s in enumerate(seqs):
        s = s[:cap]
        if len(s) == 0:
            continue
        e = emb[s]
        lg = e @ attn
        w = np.exp(lg - lg.max())
        v = (w[:, None] * e).sum(0) / w.sum()
        out[i] = v / (np.linalg.norm(v) or 1)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", required=True)
    ap.add_argument("--tokens", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--provenance")
    ap.add_argument("--corpus", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus.tsv"))
    ap.add_argument("--dim", type=int, default=64)
    ap.add_argument("--bits", type=int, default=15)
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--temp", type=float, default=0.05)
    ap.add_argument("--doc-tokens", type=int, default=256)
    ap.add_argument("--query-tokens", type=int, default=48)
    ap.add_argument("--max-tokens", type=int, default=1024, help="tokens memgate reads per text")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    torch.manual_seed(a.seed)
    torch.set_num_threads(1)
    rng = np.random.default_rng(a.seed)
    t0 = time.time()

    pairs = [json.loads(l) for l in open(a.pairs, encoding="utf-8")]
    # a doc comment seen twice ("Constructs a new instance.") names no one function: left out
    count = {}
    for p in pairs:
        count[p["q"]] = count.get(p["q"], 0) + 1
    pairs = [p for p in pairs if count[p["q"]] == 1]
    held = [int(hashlib.blake2b(p["q"].encode(), digest_size=8).hexdigest(), 16) % 50 == 0 for p in pairs]
    q = tokenize(a.tokens, a.bits, a.query_tokens, [p["q"] for p in pairs])
    d = tokenize(a.tokens, a.bits, a.doc_tokens, [p["d"] for p in pairs])
    train = [i for i in range(len(pairs)) if not held[i] and len(q[i]) and len(d[i])]
    valid = [i for i in range(len(pairs)) if held[i] and len(q[i]) and len(d[i])]
    print(f"{len(pairs)} pairs ({len(train)} to train, {len(valid)} held out), tokenized in {time.time() - t0:.0f} s",
          file=sys.stderr)

    model = Unif(1 << a.bits, a.dim)
    # sparse gradients for the token vectors: a batch touches a few thousand of the buckets
    opts = [torch.optim.SparseAdam([model.emb.weight], lr=a.lr), torch.optim.Adam([model.attn], lr=a.lr)]
    steps = a.epochs * ((len(train) + a.batch - 1) // a.batch)
    scheds = [torch.optim.lr_scheduler.LambdaLR(o, lambda s: max(0.05, 1 - s / steps)) for o in opts]
    log = []
    for ep in range(a.epochs):
        order = rng.permutation(len(train))
        # batches of similar code lengths (less padding): sorted within windows of 32 batches, then shuffled
        win = 32 * a.batch
        order = np.concatenate([sorted(order[w:w + win], key=lambda j: len(d[train[j]]))
                                for w in range(0, len(order), win)])
        starts = rng.permutation(list(range(0, len(order), a.batch)))
        model.train()
        tot = 0.0
        for b in starts:
            idx = [train[j] for j in order[b:b + a.batch]]
            if len(idx) < 2:
                continue
            qi, qm = pad(q, idx, a.query_tokens)
            di, dm = pad(d, idx, a.doc_tokens)
            qv = model(qi, qm, 1)
            dv = model(di, dm, 0)
            s = qv @ dv.T / a.temp
            lab = torch.arange(len(idx))
            loss = (torch.nn.functional.cross_entropy(s, lab) + torch.nn.functional.cross_entropy(s.T, lab)) / 2
            for o in opts:
                o.zero_grad()
            loss.backward()
            for o, s in zip(opts, scheds):
                o.step()
                s.step()
            tot += loss.item() * len(idx)
        model.eval()
        with torch.no_grad():
            qv = torch.cat([model(*pad(q, valid[k:k + 512], a.query_tokens), 1) for k in range(0, len(valid), 512)])
            dv = torch.cat([model(*pad(d, valid[k:k + 512], a.doc_tokens), 0) for k in range(0, len(valid), 512)])
        m, r10 = mrr(qv.numpy(), dv.numpy())
        line = f"epoch {ep + 1}: loss {tot / len(train):.3f}, held-out MRR {m:.3f}, recall@10 {r10:.3f} ({time.time() - t0:.0f} s)"
        log.append(line)
        print(line, file=sys.stderr)

    # int8, one scale per bucket
    w = model.emb.weight.detach().numpy().astype(np.float32)
    attn = model.attn.detach().numpy().astype(np.float32)
    scale = (np.abs(w).max(1) / 127.0).astype(np.float32)
    q8 = np.round(w / np.where(scale > 0, scale, 1)[:, None]).clip(-127, 127).astype(np.int8)
    deq = q8.astype(np.float32) * scale[:, None]
    qv = np_embed(deq, attn[1], [q[i] for i in valid], a.query_tokens)
    dv = np_embed(deq, attn[0], [d[i] for i in valid], a.max_tokens)
    m8, r8 = mrr(qv, dv)
    line = f"int8: held-out MRR {m8:.3f}, recall@10 {r8:.3f}"
    log.append(line)
    print(line, file=sys.stderr)

    head = b"MGMODEL\0" + struct.pack("<IIII", 1, a.dim, a.bits, a.max_tokens) + NAME.encode().ljust(32, b"\0")
    body = head + attn[0].tobytes() + attn[1].tobytes() + scale.tobytes() + q8.tobytes()
    total = body + hashlib.blake2b(body, digest_size=32).digest()
    with open(a.out + ".tmp", "wb") as f:
        f.write(total)
    os.replace(a.out + ".tmp", a.out)
    digest = hashlib.blake2b(body, digest_size=32).hexdigest()
    print(f"wrote {a.out}: {len(total)} bytes, BLAKE2b-256 {digest}", file=sys.stderr)

    if a.provenance:
        per = {}
        for p in pairs:
            per[p["repo"]] = per.get(p["repo"], 0) + 1
        corpus = [l.rstrip("\n").split("\t") for l in open(a.corpus, encoding="utf-8")
                  if l.strip() and not l.startswith("#")]
        with open(a.provenance, "w", encoding="utf-8") as f:
            f.write("# The code model's provenance\n\n")
            f.write("Written by `make model` (model/make.sh -> model/pairs.py, model/train.py); do not edit.\n\n")
            f.write(f"- file: `{os.path.basename(a.out)}`, {len(total)} bytes, BLAKE2b-256 `{digest}`\n")
            f.write(f"- model: {NAME} (UNIF-shaped: attention-weighted sum of token-bucket vectors), "
                    f"{a.dim} dimensions, 2^{a.bits} buckets, int8 with a scale per bucket, "
                    f"{a.max_tokens} tokens read per text\n")
            kinds = {}
            for p in pairs:
                kinds[p.get("kind", "code")] = kinds.get(p.get("kind", "code"), 0) + 1
            f.write(f"- training: {len(train)} pairs ({kinds.get('code', 0)} doc comment -> function, "
                    f"{kinds.get('nl', 0)} summary -> prose), {len(valid)} held out; "
                    f"{a.epochs} epochs, batch {a.batch}, Adam lr {a.lr} decaying linearly, temperature {a.temp}, "
                    f"query tokens {a.query_tokens}, code tokens {a.doc_tokens}, seed {a.seed}, one thread; "
                    f"torch {torch.__version__}, numpy {np.__version__}\n")
            f.write("- data: code, comments and docs only (model/pairs.py): no commit message, issue text or "
                    "report -> file pair of any project; no project of bench/bugloc.py\n\n")
            f.write("## Held-out quality\n\n")
            for l in log:
                f.write(f"    {l}\n")
            f.write("\n## Corpus\n\n| repository | commit | languages | unique pairs |\n| --- | --- | --- | ---: |\n")
            for repo, commit, langs in corpus:
                f.write(f"| {repo} | `{commit}` | {langs} | {per.get(repo, 0)} |\n")


if __name__ == "__main__":
    main()
