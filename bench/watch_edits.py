#!/usr/bin/env python3
"""watch_edits.py — each edit's save -> searchable time, on the repo and index of
bench/watch_bench.py (run that once first), to see the occasional slow edit a
p95 hides.

    MEMGATE_BIN=build/memgate bench/watch_edits.py HOME N SEED [PAUSE_S]

HOME is a data directory holding watch_bench's index (a copy of its `home`:
the runs change it, so two builds compare on two copies of one state). N
different .c files, chosen by SEED, get a line appended one at a time, the
next once the last is searchable, PAUSE_S seconds later (0: at once, a stream
of edits; 1.2: a person's saves). Prints p50, p95, max, how many took over
250 ms, tri_recent's segments before and after (docs/index.md), and the six
slowest edits by number. The files are restored at the end.
"""
import os
import random
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import watch_bench as wb  # noqa: E402

if len(sys.argv) < 4 or sys.argv[1] in ("-h", "--help"):
    raise SystemExit(__doc__)
home, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
pause = float(sys.argv[4]) if len(sys.argv) > 4 else 0
wb.HOME = home
p, url = wb.start_serve(MEMGATE_EMBEDDER='none')
wb.wait(lambda: wb.meta("watch.state") == "watching" and wb.meta("watch.pending") == "0", timeout=900, step=0.2)
time.sleep(2)
segs0 = wb.meta("tri_recent_segs")
cs = [x for x in subprocess.run(["git", "-C", wb.REPO, "ls-files", "drivers/*.c", "fs/*.c", "net/*.c", "sound/*.c"],
                                capture_output=True, text=True).stdout.split("\n") if x]
random.Random(seed).shuffle(cs)
out = []
try:
    for i, f in enumerate(cs[:n]):
        out += wb.latencies(url, [f], f"s{seed}n{i}")
        if pause: time.sleep(pause)
finally:
    segs1 = wb.meta("tri_recent_segs")
    wb.stop(p)
    subprocess.run(["git", "-C", wb.REPO, "checkout", "-q", "--", *cs[:n]])
ms = sorted(x * 1000 for x in out)
pct = lambda q: ms[min(len(ms) - 1, int(round(q * (len(ms) - 1))))]
print(f"{wb.BIN} n={len(ms)} p50={pct(.5):.0f} p95={pct(.95):.0f} max={ms[-1]:.0f} "
      f"over250={sum(x > 250 for x in ms)} segs {segs0}->{segs1}")
print("slowest:", [f"{i}:{x*1000:.0f}" for i, x in sorted(enumerate(out), key=lambda t: -t[1])[:6]])
