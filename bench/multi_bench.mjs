// multi_bench.mjs — memory operations per second, and their latency, through
// one daemon on SQLite, one daemon on PostgreSQL, and three daemons on
// PostgreSQL behind HAProxy (issue 22; docs/deploy.md, docs/benchmarks.md),
// on this machine, in one run, beside what PostgreSQL alone does here
// (pgbench) and a machine reference line.
//
// Each configuration gets a fresh data directory (and a fresh database on
// the tests' throw-away cluster, scripts/pg.sh), one small indexed repo, a
// write token (rate limit off: the limiter is not what is measured), and C
// concurrent clients over keep-alive connections, each its own session
// (X-Session-Id) doing a fixed mix for the given seconds after a warm-up:
//   35% set_note (POST /v1/notes)      25% get_note (GET /v1/notes/KEY)
//   10% search_notes (GET /v1/notes?q) 15% remember (POST /v1/episodes)
//   15% recall (GET /v1/episodes?q)
// Every answer must be 2xx (a failure aborts the run: a fast error is not a
// result). Prints a Markdown table: ops/s, p50 and p99 of all calls, of the
// writes and of the reads, and the CPU seconds per 1,000 calls of memgate
// (the daemons), of PostgreSQL (postmaster and backends) and of HAProxy
// and of this process, the clients (user+sys from /proc: everything shares
// the machine's cores, so a noisy machine shows in wall time, not in CPU),
// and pgbench's select-only and TPC-B-like TPS on the same cluster.
//
// usage: node bench/multi_bench.mjs [--seconds S] [--clients C] [--only sqlite|pg|pg3]
// (run from the repo root with tests/node's packages installed; make bench runs it)
import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(here, '..');
const lib = (f) => path.join(ROOT, 'tests', 'node', 'lib', f);
const { makeRepo, makeWorld, MEMGATE_BIN, pgCluster, pgDatabase, startServe } = await import(lib('harness.mjs'));
const { startCluster } = await import(lib('cluster.mjs'));
const { keepAlivePool } = await import(lib('keepalive.mjs'));

const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : def;
};
const SECONDS = Number(opt('seconds', 20));
const CLIENTS = Number(opt('clients', 16));
const ONLY = opt('only', '');
const log = (m) => process.stderr.write(`bench: ${m}\n`);

function machine() {
  const cpu = (fs.readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/) || [])[1] || 'unknown CPU';
  const t0 = performance.now();
  const h = crypto.createHash('sha256');
  const block = Buffer.alloc(1 << 20);
  for (let i = 0; i < 256; i++) h.update(block);
  h.digest();
  const mbs = 268.435456 / ((performance.now() - t0) / 1000);
  return `${cpu.trim()}, ${os.cpus().length} cores, sha256 ${mbs.toFixed(0)} MB/s, load ${os.loadavg()[0].toFixed(1)}`;
}

/** The fields of /proc/PID/stat after the command name (f[1] the parent, f[11] and f[12] user and sys ticks), or null when gone. */
function procStat(pid) {
  try {
    const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return s.slice(s.lastIndexOf(') ') + 2).split(' ');
  } catch {
    return null;
  }
}

/** user+sys CPU seconds of a process so far, from its procStat fields. */
const cpuOf = (f) => (f ? (Number(f[11]) + Number(f[12])) / 100 : 0);
const cpuSeconds = (pid) => cpuOf(procStat(pid));

/** user+sys CPU seconds so far of the cluster's postmaster and every backend it forked. */
function pgCpuSeconds(dir) {
  let pm;
  try {
    pm = Number(fs.readFileSync(path.join(dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return 0;
  }
  let sum = cpuSeconds(pm);
  for (const e of fs.readdirSync('/proc')) {
    const f = /^\d+$/.test(e) ? procStat(e) : null;
    if (f && Number(f[1]) === pm) sum += cpuOf(f);
  }
  return sum;
}

const pct = (v, p) => (v.length ? v[Math.min(v.length - 1, Math.round((p / 100) * (v.length - 1)))] : NaN);

async function drive(url, token, repo) {
  const pool = keepAlivePool(url, { maxSockets: CLIENTS * 2 });
  const lat = { all: [], write: [], read: [] };
  let calls = 0;
  const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'];
  const run = async (ci, until, record) => {
    const sid = `bench-${ci}-${crypto.randomBytes(4).toString('hex')}`;
    const headers = { authorization: `Bearer ${token}`, 'x-memgate-repo': repo, 'x-session-id': sid };
    let n = 0;
    while (performance.now() < until) {
      const x = (n * 7 + ci * 13) % 100;
      const w = words[(n + ci) % words.length];
      const key = `k${ci}-${n % 50}`;
      let method = 'GET';
      let p;
      let body;
      let kind = 'read';
      if (x < 35) [method, p, body, kind] = ['POST', '/v1/notes', { key, value: `note ${w} ${n} of client ${ci}` }, 'write'];
      else if (x < 60) p = `/v1/notes/${key}`;
      else if (x < 70) p = `/v1/notes?q=${w}&limit=10`;
      else if (x < 85) [method, p, body, kind] = ['POST', '/v1/episodes', { summary: `episode ${w} ${n} of client ${ci}` }, 'write'];
      else p = `/v1/episodes?q=${w}&limit=10`;
      const t0 = performance.now();
      const r = await pool.request(method, p, { headers, body });
      const ms = performance.now() - t0;
      const ok = r.status >= 200 && r.status < 300;
      // a get of a key not written yet is a fair 404
      if (!ok && !(r.status === 404 && p.startsWith('/v1/notes/'))) throw new Error(`${method} ${p}: HTTP ${r.status} ${r.text.slice(0, 300)}`);
      if (record) {
        lat.all.push(ms);
        lat[kind].push(ms);
        calls++;
      }
      n++;
    }
  };
  const warm = performance.now() + 2000;
  await Promise.all(Array.from({ length: CLIENTS }, (_, i) => run(i, warm, false)));
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const until = t0 + SECONDS * 1000;
  await Promise.all(Array.from({ length: CLIENTS }, (_, i) => run(i, until, true)));
  const secs = (performance.now() - t0) / 1000;
  const c1 = process.cpuUsage(c0);
  pool.close();
  for (const k of Object.keys(lat)) lat[k].sort((a, b) => a - b);
  return { calls, secs, lat, client: (c1.user + c1.system) / 1e6 };
}

function mgIn(env, cwd, argv) {
  return execFileSync(MEMGATE_BIN, argv, { env, cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

async function oneDaemon(label, storage) {
  const world = makeWorld(`bench-${label}`);
  if (storage) world.env.MEMGATE_STORAGE = storage;
  world.env.MEMGATE_WATCH = 'off';
  const fx = makeRepo(world, 'bench');
  mgIn(world.env, world.cwd, ['index', fx.root, '--name', 'bench', '--quiet']);
  const token = JSON.parse(mgIn(world.env, world.cwd, ['token', 'create', '--tenant', 'local', '--scope', 'write', '--rate', '0', '--json'])).token;
  const serve = await startServe(world);
  const cpu0 = cpuSeconds(serve.child.pid);
  const pg0 = pgCpuSeconds(PGDIR);
  const res = await drive(serve.url, token, 'bench');
  res.cpu = cpuSeconds(serve.child.pid) - cpu0;
  res.pgcpu = storage ? pgCpuSeconds(PGDIR) - pg0 : 0;
  await serve.stop();
  world.cleanup();
  return res;
}

async function threeDaemons() {
  const c = await startCluster({ n: 3, tag: 'bench3', env: { MEMGATE_WATCH: 'off' } });
  const fx = makeRepo(c.world, 'bench');
  // every daemon indexes the repo (the shared catalog tells the others; index on each to be ready at once)
  for (const d of c.daemons) mgIn(d.env, c.world.cwd, ['index', fx.root, '--name', 'bench', '--quiet']);
  const token = JSON.parse(mgIn(c.daemons[0].env, c.world.cwd, ['token', 'create', '--tenant', 'local', '--scope', 'write', '--rate', '0', '--json'])).token;
  const cpu0 = c.daemons.reduce((a, d) => a + cpuSeconds(d.serve.child.pid), 0);
  const pg0 = pgCpuSeconds(PGDIR);
  const lb0 = cpuSeconds(c.haproxyPid);
  const res = await drive(c.url, token, 'bench');
  res.cpu = c.daemons.reduce((a, d) => a + cpuSeconds(d.serve.child.pid), 0) - cpu0;
  res.pgcpu = pgCpuSeconds(PGDIR) - pg0;
  res.lbcpu = cpuSeconds(c.haproxyPid) - lb0;
  await c.stop();
  return res;
}

function pgbench(dir) {
  const bin = '/usr/lib/postgresql/15/bin/pgbench';
  const db = pgDatabase('pgbench').match(/\/\/\/([^?]+)/)[1];
  const base = ['-h', dir, '-U', 'memgate', db];
  const run = (extra) => {
    const r = spawnSync(bin, [...extra, ...base], { encoding: 'utf8' });
    const m = /tps = ([\d.]+)/.exec(r.stdout);
    if (!m) throw new Error(`pgbench: ${r.stdout}${r.stderr}`);
    return Number(m[1]);
  };
  spawnSync(bin, ['-i', '-q', '-s', '2', ...base], { encoding: 'utf8' });
  const t = Math.max(5, Math.round(SECONDS / 2));
  return { select: run(['-c', String(CLIENTS), '-j', '2', '-T', String(t), '-S', '-n']), tpcb: run(['-c', String(CLIENTS), '-j', '2', '-T', String(t), '-n']) };
}

const f = (x) => (Number.isFinite(x) ? x.toFixed(1) : '—');
const rows = [];
const { dir } = pgCluster();
const PGDIR = dir;
log(`memory ops: ${CLIENTS} clients, ${SECONDS} s per configuration`);
if (!ONLY || ONLY === 'sqlite') {
  log('one daemon on SQLite');
  rows.push(['1 daemon, SQLite', await oneDaemon('sqlite', null)]);
}
if (!ONLY || ONLY === 'pg') {
  log('one daemon on PostgreSQL');
  rows.push(['1 daemon, PostgreSQL', await oneDaemon('pg', pgDatabase('bench1'))]);
}
if (!ONLY || ONLY === 'pg3') {
  log('three daemons on PostgreSQL behind HAProxy');
  rows.push(['3 daemons, PostgreSQL, HAProxy', await threeDaemons()]);
}
log('pgbench on the same cluster');
const pb = pgbench(dir);

console.log('\n### Memory operations: one daemon on SQLite, one on PostgreSQL, three behind HAProxy\n');
console.log(`Machine reference (same run): ${machine()}. ${CLIENTS} clients, ${SECONDS} s each after a 2 s warm-up; mix: 35% set_note, 25% get_note, 10% search_notes, 15% remember, 15% recall; PostgreSQL 15 on a Unix socket (scripts/pg.sh: fsync off).\n`);
console.log('| configuration | calls | ops/s | p50 ms | p99 ms | writes p50 / p99 | reads p50 / p99 | CPU s per 1k calls: memgate / PostgreSQL / HAProxy / the clients |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
const k = (x, r) => ((x / r.calls) * 1000).toFixed(2);
for (const [name, r] of rows) {
  console.log(`| ${name} | ${r.calls} | ${(r.calls / r.secs).toFixed(0)} | ${f(pct(r.lat.all, 50))} | ${f(pct(r.lat.all, 99))} | ${f(pct(r.lat.write, 50))} / ${f(pct(r.lat.write, 99))} | ${f(pct(r.lat.read, 50))} / ${f(pct(r.lat.read, 99))} | ${k(r.cpu, r)} / ${r.pgcpu ? k(r.pgcpu, r) : '—'} / ${r.lbcpu ? k(r.lbcpu, r) : '—'} / ${k(r.client, r)} |`);
}
console.log(`\nPostgreSQL alone on this machine (pgbench, ${CLIENTS} clients, scale 2): select-only ${pb.select.toFixed(0)} TPS, TPC-B-like ${pb.tpcb.toFixed(0)} TPS.`);
