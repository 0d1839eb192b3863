#!/usr/bin/env python3
"""Whole-process latency of the command line on linux-6.1, beside GNU Global.

Agents shell out to `memgate search`; what they wait for is the whole
process: exec, dynamic linking, loading the rules, opening the index, the
search, the gate, printing. This runs, for the same identifiers, each as a
fresh process:
  - `memgate search --mode symbol NAME --limit 10` (a definition lookup),
  - `memgate search NAME --limit 10` (lexical, the default for one word),
  - `global -d NAME` (GNU Global's definition lookup, its own tag files),
  - `memgate --help` (the floor: start-up alone),
and prints p50 and p90 wall time and the CPU seconds each process used
(user + system, from wait4), one interleaved round at a time so that a busy
machine slows every side alike. The figures to compare are the ratios and
the CPU times: this machine is shared. A machine reference line (sha256 of
256 MiB) comes first.

Needs the kernel source (bench/run.sh unpacks it), a memgate index of it
and gtags of it (both made here once, in MEMGATE_BENCH_CACHE/nav, shared
with bench/nav_bench.py; --home uses an existing data directory instead).
"""
import argparse
import os
import random
import statistics
import subprocess
import sys
import time

from bugloc import machine as cpu_model  # "CPU model, N cores"
from nav_ts_bench import machine_ref  # sha256 of 256 MiB, MB/s

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("MEMGATE_BIN", os.path.join(HERE, "build", "memgate"))
CACHE = os.environ.get("MEMGATE_BENCH_CACHE", os.path.expanduser("~/.cache/memgate-bench"))
SRC = os.path.join(CACHE, "linux-source-6.1")
WORK = os.path.join(CACHE, "nav")
GTAGS = os.path.join(WORK, "gtags")

# Identifiers an agent looks up in the kernel: functions, macros, types.
NAMES = """kmalloc_array kfree schedule mutex_lock spin_lock_irqsave copy_from_user memcpy
list_add_tail container_of alloc_pages free_pages vmalloc ioremap request_irq
platform_driver_register of_property_read_u32 dev_err devm_kzalloc netif_rx
skb_put dma_map_single pci_enable_device wake_up_process wait_event_interruptible
queue_work init_timer_key mod_timer kthread_create_on_node rcu_read_lock
synchronize_rcu atomic_inc refcount_inc kref_put sysfs_create_group
debugfs_create_file seq_printf filp_open vfs_read generic_file_read_iter
submit_bio blk_mq_start_request ext4_map_blocks btrfs_search_slot tcp_sendmsg
ip_rcv udp_sendmsg sock_create inet_bind do_sys_open do_fork copy_process
task_struct mm_struct file_operations""".split()


def log(msg):
    print(f"bench: {msg}", file=sys.stderr, flush=True)


def machine():
    sha = machine_ref()
    return f"{cpu_model()}, sha256 {sha:.0f} MB/s, load {os.getloadavg()[0]:.1f}"


def env(home):
    e = {k: v for k, v in os.environ.items() if not k.startswith("MEMGATE_")}
    e["MEMGATE_HOME"] = home
    e["MEMGATE_EMBEDDER"] = "none"
    e["MEMGATE_WATCH"] = "off"
    e["GTAGSROOT"] = SRC
    e["GTAGSDBPATH"] = GTAGS
    return e


def prepare(home):
    if not os.path.isdir(SRC):
        raise SystemExit(f"bench: {SRC} is missing; bench/run.sh unpacks the kernel source")
    os.makedirs(WORK, exist_ok=True)
    if not os.path.exists(os.path.join(home, "repos", "linux.db")):
        log("memgate index of linux-6.1 (once)")
        subprocess.run([BIN, "index", SRC, "--name", "linux", "--quiet"], env=env(home), check=True)
    if not os.path.exists(os.path.join(GTAGS, "GRTAGS")):
        log("gtags of linux-6.1 (once)")
        os.makedirs(GTAGS, exist_ok=True)
        subprocess.run(["gtags", GTAGS], cwd=SRC, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def run(argv, e):
    """Wall ms and CPU ms (user + system) of one process; its stdout."""
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, cwd=SRC, env=e, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = (time.perf_counter() - t0) * 1000
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise SystemExit(f"bench: {' '.join(argv)} exited {p.returncode}")
    return wall, (ru.ru_utime + ru.ru_stime) * 1000, out


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--home", help="an existing data directory holding an index named linux (default: "
                    "MEMGATE_BENCH_CACHE/nav/home, made once)")
    ap.add_argument("--rounds", type=int, default=3, help="rounds over the identifiers (default 3)")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    home = a.home or os.path.join(WORK, "home")
    prepare(home)
    e = env(home)
    ref = machine()
    sides = {
        "memgate search --mode symbol": lambda n: [BIN, "search", "--repo", "linux", "--mode", "symbol", n, "--limit", "10"],
        "memgate search (lexical)": lambda n: [BIN, "search", "--repo", "linux", n, "--limit", "10"],
        "global -d": lambda n: ["global", "-d", n],
        "memgate --help": lambda n: [BIN, "--help"],
    }
    wall = {k: [] for k in sides}
    cpu = {k: [] for k in sides}
    empty = {k: 0 for k in sides}
    for k, f in sides.items():  # warm the page cache once
        run(f(NAMES[0]), e)
    rnd = random.Random(a.seed)
    for r in range(a.rounds):
        names = NAMES[:]
        rnd.shuffle(names)
        for n in names:
            for k, f in sides.items():
                w, c, out = run(f(n), e)
                wall[k].append(w)
                cpu[k].append(c)
                empty[k] += not out.strip()
    print("### The command line as a whole process (linux-6.1)")
    print()
    print(f"Machine: {ref}. {len(NAMES)} identifiers x {a.rounds} rounds, every side a fresh process, interleaved.")
    print()
    print("| command | wall p50 ms | wall p90 ms | CPU p50 ms | empty answers |")
    print("| --- | --- | --- | --- | --- |")
    for k in sides:
        print(f"| `{k}` | {statistics.median(wall[k]):.1f} | {pct(wall[k], .9):.1f} | "
              f"{statistics.median(cpu[k]):.1f} | {empty[k] if k != 'memgate --help' else '-'} |")
    g = statistics.median(wall["global -d"])
    s = statistics.median(wall["memgate search --mode symbol"])
    print()
    print(f"memgate symbol search / global -d, wall p50: {s / g:.1f}x. Target (issue 23): memgate search p50 <= 10 ms.")


if __name__ == "__main__":
    main()
