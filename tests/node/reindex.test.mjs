// reindex.test.mjs — the re-index scheduler of `memgate serve` (setting
// reindex_interval): it re-indexes a repo every interval and so picks up a
// file change, reads setting changes without a restart, skips (never
// fails, never runs beside) a run another process holds, records its runs
// like any index run (audit, stats, metrics), and stops promptly with the
// server. MEMGATE_TEST_MIN_REINDEX_INTERVAL=2 (docs/config.md) allows a 2 s
// interval and a 1 s tick.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { makeRepo, makeWorld, MEMGATE_BIN, sleep, startServe, v1 } from './lib/harness.mjs';

const SEAM = { MEMGATE_TEST_MIN_REINDEX_INTERVAL: '2', MEMGATE_WATCH: 'off' }; // the scheduler alone: a watcher would index the change first
let world;
let alpha;
let serve;

function mg(args) {
  return execFileSync(MEMGATE_BIN, args, { env: { ...world.env, ...SEAM }, cwd: world.cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

async function stats(repo) {
  const r = await v1(serve, `/v1/repos/${repo}/stats`);
  assert.equal(r.status, 200, r.text);
  return r.json.repos[0];
}

async function scheduled() {
  const text = (await v1(serve, '/metrics')).text;
  const out = {};
  for (const m of text.matchAll(/^memgate_scheduled_index_runs_total\{result="(\w+)"\} (\d+)$/gm)) out[m[1]] = Number(m[2]);
  return out;
}

/** The scheduler's index_repo events in the audit log. */
function runsOf(repo) {
  return mg(['audit', '--op', 'index_repo', '--json', '--limit', '0']).split('\n').filter(Boolean).map((l) => JSON.parse(l))
    .filter((e) => e.instance === 'scheduler' && e.repo === repo);
}

async function until(what, fn, ms = 30000) {
  const t0 = Date.now();
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() - t0 > ms) assert.fail(`${what}: not within ${ms / 1000} s; serve's stderr:\n${serve.stderr()}`);
    await sleep(250);
  }
}

before(async () => {
  world = makeWorld('reindex');
  alpha = makeRepo(world, 'alpha');
  makeRepo(world, 'bravo');
  mg(['index', alpha.root, '--name', 'alpha', '--quiet']);
  mg(['index', path.join(world.dir, 'bravo'), '--name', 'bravo', '--quiet']);
  mg(['repos', 'set', 'alpha', 'reindex_interval=2']);
  serve = await startServe(world, [], SEAM);
});

after(async () => {
  if (serve) await serve.stop();
  world.cleanup();
});

test('a repo with an interval is re-indexed and picks up a file change; one without is left alone', async () => {
  const before0 = await stats('alpha');
  const bravo0 = await stats('bravo');
  const marker = `scheduled_marker_${Date.now()}`;
  fs.writeFileSync(path.join(alpha.root, 'src', 'late.c'), `int ${marker}(void) { return 7; }\n`);
  await until('the new file is searchable', async () => {
    const r = await v1(serve, `/v1/search?q=${marker}&repo_id=alpha`);
    return r.status === 200 && r.json.results.length > 0;
  });
  const s = await stats('alpha');
  assert.equal(s.files, before0.files + 1);
  assert.ok(s.full_index_at >= before0.full_index_at, JSON.stringify(s));
  assert.equal(s.last_error, null);
  // recorded like any index run: audited as index_repo by the scheduler, for the repo's tenant
  const runs = runsOf('alpha');
  assert.ok(runs.length >= 1, 'no scheduled index_repo event');
  for (const e of runs) {
    assert.equal(e.tenant, 'local');
    assert.equal(e.status, 'ok', JSON.stringify(e));
  }
  // (the scheduler prints its line after the run's audit event: wait for it)
  await until('the scheduler says so on stderr', async () => /scheduled re-index of alpha: \d+ files \(1 added/.test(serve.stderr()));
  assert.ok((await scheduled()).ok >= 1);
  // bravo has no interval
  assert.equal((await stats('bravo')).full_index_at, bravo0.full_index_at);
  assert.equal(runsOf('bravo').length, 0);
});

test('a run held by another process is skipped, not failed, and retried', async () => {
  const lock = path.join(world.home, 'repos', 'alpha.db.lock');
  const okBefore = (await scheduled()).ok;
  // what `memgate index` takes, held by another process for 5 s (once a
  // scheduled run under way has let it go, and written its event)
  const holder = spawn('flock', ['-x', lock, 'sh', '-c', 'echo held; sleep 5'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const released = new Promise((r) => holder.once('exit', r));
  await new Promise((r) => holder.stdout.once('data', r));
  await sleep(500);
  const runsHeld = runsOf('alpha').length;
  await until('a skip', async () => (await scheduled()).skipped >= 2);
  assert.equal((await stats('alpha')).index_busy, true);
  assert.equal(runsOf('alpha').length, runsHeld, 'a scheduled run started beside the other one');
  assert.match(serve.stderr(), /scheduled re-index of alpha skipped: another index run holds it/);
  await released;
  await until('a run after the lock went', async () => (await scheduled()).ok > okBefore && runsOf('alpha').length > runsHeld);
  const m = await scheduled();
  assert.equal(m.error, 0, 'a scheduled run failed (two at once would fail with index_busy)');
  assert.equal((await stats('alpha')).last_error, null);
});

test('a setting change is picked up without a restart', async () => {
  // off: no more runs
  let r = await v1(serve, '/v1/repos/alpha', { method: 'PATCH', body: { reindex_interval: 0 } });
  assert.equal(r.status, 200, r.text);
  await sleep(1500); // a run already under way may end
  const n = runsOf('alpha').length;
  await sleep(5000);
  assert.equal(runsOf('alpha').length, n, 'runs went on with reindex_interval 0');
  // bravo on: it starts
  r = await v1(serve, '/v1/repos/bravo', { method: 'PATCH', body: { reindex_interval: 2 } });
  assert.equal(r.status, 200, r.text);
  await until('bravo runs', async () => runsOf('bravo').length >= 1);
});

test('SIGTERM during a scheduled run: the server stops promptly and cleanly', async () => {
  // a repo big enough that a run is under way when the signal comes
  const big = path.join(world.dir, 'big');
  for (let i = 0; i < 3000; i++) {
    const d = path.join(big, `d${i % 30}`);
    fs.mkdirSync(d, { recursive: true });
    fs.writeFileSync(path.join(d, `f${i}.c`), `int big_${i}(int x) { return x + ${i}; }\n`.repeat(20));
  }
  mg(['index', big, '--name', 'big', '--quiet']);
  // every file changes, so the scheduled run has work to do
  for (let i = 0; i < 3000; i++) fs.appendFileSync(path.join(big, `d${i % 30}`, `f${i}.c`), `int more_${i};\n`);
  const r = await v1(serve, '/v1/repos/big', { method: 'PATCH', body: { reindex_interval: 2 } });
  assert.equal(r.status, 200, r.text);
  await until('a scheduled run of big under way', async () => (await stats('big')).index_busy, 60000);
  const t0 = Date.now();
  const res = await serve.stop();
  const took = Date.now() - t0;
  assert.deepEqual(res, { code: 0, signal: null }, serve.stderr());
  assert.ok(took < 8000, `stopping took ${took} ms`);
  serve = null;
  // the run stopped at a file and said so; the index is usable and a later run finishes it
  const st = JSON.parse(mg(['status', '--json'])).repos.find((x) => x.id === 'big');
  assert.equal(st.index_busy, false);
  assert.match(String(st.last_error), /^interrupted: interrupted after \d+ of \d+ files/);
});
