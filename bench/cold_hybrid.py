#!/usr/bin/env python3
"""cold_hybrid.py — the first hybrid search of a cold `memgate serve`, and a
CLI hybrid search as a whole process, on a data directory that already holds
an index with vectors (docs/semantic.md, "Cold start").

    bench/cold_hybrid.py --home DIR --repo ID [--bin build/memgate] [--runs 3]
                         [--query "how are dirty pages written back under memory pressure"]
                         [--cli-queries 20] [--no-columns]

Per run: start `memgate serve --listen 127.0.0.1:0 --json` on --home, wait
for the port, send GET /v1/search?mode=hybrid at once (the time of that
request is "first"), then one every 0.25 s until the answer's mode is
hybrid ("full at": seconds from the port to the first full answer; the
server's CPU seconds until then). Then the same query as `memgate search
--mode hybrid --json`, a process each run: wall time and CPU (user + sys).
The index is wherever the page cache leaves it (run it twice for a warm
cache). Prints a Markdown table.

Then the CLI alone over --cli-queries queries of bench/quality.tsv (seed 1;
short and long ones): each as `memgate search --mode hybrid` and, for
reference in the same run, `--mode lexical`, a process each; p50 and max of
wall and CPU. A CLI hybrid search reads only the query's columns of the
vectors' column file (docs/semantic.md); without that file (or with
--no-columns, which hides it for the run) it loads every vector.
"""
import argparse
import json
import os
import random
import resource
import subprocess
import time
import urllib.parse
import urllib.request


def cpu_of(pid):
    with open(f'/proc/{pid}/stat') as f:
        fields = f.read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


def get(port, repo, query):
    q = urllib.parse.urlencode({'q': query, 'mode': 'hybrid', 'limit': 10, 'repo_id': repo})
    t = time.monotonic()
    with urllib.request.urlopen(f'http://127.0.0.1:{port}/v1/search?{q}', timeout=120) as r:
        body = json.load(r)
    return time.monotonic() - t, body


def serve_run(a, env):
    p = subprocess.Popen([a.bin, 'serve', '--listen', '127.0.0.1:0', '--json'], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    try:
        port = json.loads(p.stdout.readline())['port']
        t0 = time.monotonic()
        first, body = get(port, a.repo, a.query)
        first_mode = body['mode'] + (' (loading)' if 'semantic' in body else '')
        while body['mode'] != 'hybrid':
            if time.monotonic() - t0 > 600:
                raise SystemExit('no hybrid answer within 600 s')
            time.sleep(0.25)
            _, body = get(port, a.repo, a.query)
        return first, first_mode, time.monotonic() - t0, cpu_of(p.pid)
    finally:
        p.terminate()
        p.wait()


def cli_run(a, env, query=None, mode='hybrid'):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.monotonic()
    out = subprocess.run([a.bin, 'search', query or a.query, '--mode', mode, '--repo', a.repo, '--json'], env=env,
                         capture_output=True, text=True, check=True).stdout
    wall = time.monotonic() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, json.loads(out)['mode']


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--home', required=True)
    ap.add_argument('--repo', required=True)
    ap.add_argument('--bin', default='build/memgate')
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--query', default='how are dirty pages written back under memory pressure')
    ap.add_argument('--cli-queries', type=int, default=20)
    ap.add_argument('--no-columns', action='store_true', help='hide the column file for the run (the old load)')
    a = ap.parse_args()
    vec = os.path.join(a.home, 'repos', a.repo + '.db.vec')
    if a.no_columns and os.path.exists(vec):
        os.rename(vec, vec + '.hidden')
    try:
        run(a)
    finally:
        if a.no_columns and os.path.exists(vec + '.hidden'):
            os.replace(vec + '.hidden', vec)


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p * len(v)))]


def run(a):
    env = {k: v for k, v in os.environ.items() if not k.startswith('MEMGATE_')}
    env['MEMGATE_HOME'] = a.home
    env['MEMGATE_WATCH'] = 'off'
    print('| run | serve: first hybrid request | its answer | full hybrid at | serve CPU until then | '
          'CLI hybrid wall | CLI CPU |')
    print('| --- | --- | --- | --- | --- | --- | --- |')
    for i in range(a.runs):
        first, mode, full, cpu = serve_run(a, env)
        wall, ccpu, cmode = cli_run(a, env)
        assert cmode == 'hybrid', cmode
        print(f'| {i + 1} | {first * 1000:.0f} ms | {mode} | {full:.1f} s | {cpu:.1f} s | {wall:.2f} s | {ccpu:.2f} s |')
        if a.no_columns and os.path.exists(os.path.join(a.home, 'repos', a.repo + '.db.vec')):
            os.replace(os.path.join(a.home, 'repos', a.repo + '.db.vec'),
                       os.path.join(a.home, 'repos', a.repo + '.db.vec.hidden'))  # (the load wrote it again)
    here = os.path.dirname(os.path.abspath(__file__))
    qs = [l.rstrip('\n').split('\t')[1] for l in open(os.path.join(here, 'quality.tsv')) if not l.startswith('#')]
    random.seed(1)
    qs = random.sample(qs, min(a.cli_queries, len(qs)))
    print()
    print(f'CLI, a process per query, {len(qs)} queries of bench/quality.tsv'
          f'{" (column file hidden)" if a.no_columns else ""}:')
    print()
    print('| mode | wall p50 | wall max | CPU p50 | CPU max |')
    print('| --- | --- | --- | --- | --- |')
    for mode in ('hybrid', 'lexical'):
        walls, cpus = [], []
        for q in qs:
            wall, ccpu, got = cli_run(a, env, q, mode)
            assert got == mode, got
            walls.append(wall * 1000)
            cpus.append(ccpu * 1000)
            if a.no_columns and os.path.exists(os.path.join(a.home, 'repos', a.repo + '.db.vec')):
                os.replace(os.path.join(a.home, 'repos', a.repo + '.db.vec'),
                           os.path.join(a.home, 'repos', a.repo + '.db.vec.hidden'))
        print(f'| {mode} | {pct(walls, .5):.0f} ms | {max(walls):.0f} ms | {pct(cpus, .5):.0f} ms | {max(cpus):.0f} ms |')


if __name__ == '__main__':
    main()
