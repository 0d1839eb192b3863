// multi.test.mjs — three `memgate serve` behind HAProxy on one PostgreSQL
// (docs/deploy.md), each daemon with a data directory of its own, the
// cluster and HAProxy's configuration of lib/cluster.mjs. PostgreSQL here is
// a cluster of this file's own (scripts/pg.sh), so that stopping it does
// not disturb the other test files:
//   - a daemon killed (SIGKILL) during a stream of writes through the load
//     balancer: every acknowledged write is there afterwards, the only
//     failures are the load balancer's, and the audit chain verifies;
//   - PostgreSQL stopped and started again during a stream of writes: every
//     answer is a success or a documented 503 (memgate's storage_unavailable,
//     or the load balancer's service_unavailable, each with Retry-After),
//     nothing acknowledged is lost, the writes succeed again with no daemon
//     restarted, and the audit chain verifies;
//   - rate limits and revocation: one token's budget is shared by the three
//     daemons, and a revocation made with the CLI holds on every daemon
//     within one second;
//   - a push webhook delivered to one daemon brings the others' indexes up
//     to date.
// (The randomized isolation test across the three daemons is
// memory_isolation_multi.test.mjs.)
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { after, before, test } from 'node:test';

import { startCluster } from './lib/cluster.mjs';
import { MEMGATE_BIN, sleep, until } from './lib/harness.mjs';
import { keepAlivePool } from './lib/keepalive.mjs';

const PG_SH = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..', 'scripts', 'pg.sh');
const SECRET = 'multi-test-secret-0123456789abcdef';

let pgDir;
let c; // the cluster
let remote; // the bare origin of the working copy
let W; // the working copy (one machine: the same path for every daemon)
let other; // a clone to push from
let acme; // an unlimited write token of tenant acme

function git(cwd, ...args) {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'init.defaultBranch=main', ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function commit(cwd, file, text) {
  fs.mkdirSync(path.dirname(path.join(cwd, file)), { recursive: true });
  fs.writeFileSync(path.join(cwd, file), text);
  git(cwd, 'add', '.');
  git(cwd, 'commit', '-qm', file);
}

/** memgate with daemon i's data directory (the CLI sees the shared database). */
function mg(i, args, { ok = true } = {}) {
  const r = spawnSync(MEMGATE_BIN, args, { env: c.env(i), cwd: c.world.cwd, encoding: 'utf8' });
  if (ok) assert.equal(r.status, 0, `memgate ${args.join(' ')}: ${r.stdout}${r.stderr}`);
  return r;
}

async function req(base, method, p, { token = acme, body, headers = {} } = {}) {
  const h = { authorization: `Bearer ${token}`, 'x-memgate-repo': 'alpha', ...headers };
  if (body) h['content-type'] = 'application/json';
  const res = await fetch(`${base}${p}`, { method, headers: h, body: body ? JSON.stringify(body) : undefined });
  const text = await res.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, headers: res.headers, text, json };
}

/**
 * Writers through the load balancer until stop(): each POSTs notes with keys
 * of its own. Resolves to { acked: Map key -> value, failures: [{status, code,
 * retryAfter, at}] }, `at` in ms since the start.
 */
function writers(n, tag) {
  const pool = keepAlivePool(c.url, { maxSockets: n * 2 });
  const acked = new Map();
  const failures = [];
  let stopped = false;
  const t0 = performance.now();
  const run = async (w) => {
    for (let k = 0; !stopped; k++) {
      const key = `${tag}-${w}-${k}`;
      const value = `value of ${key} ${crypto.randomBytes(4).toString('hex')}`;
      let r;
      try {
        r = await pool.request('POST', '/v1/notes', {
          headers: { authorization: `Bearer ${acme}`, 'x-memgate-repo': 'alpha' },
          body: { key, value },
        });
      } catch (e) {
        failures.push({ status: 0, code: e.code || String(e), at: performance.now() - t0 });
        await sleep(20);
        continue;
      }
      if (r.status === 200 || r.status === 201) acked.set(key, value);
      else {
        failures.push({ status: r.status, code: r.json?.error?.code, retryAfter: r.headers['retry-after'], at: performance.now() - t0 });
        await sleep(20);
      }
    }
  };
  const all = Promise.all(Array.from({ length: n }, (_, w) => run(w)));
  return {
    t0,
    async stop() {
      stopped = true;
      await all;
      pool.close();
      return { acked, failures };
    },
  };
}

/** Every acknowledged note can be read back through the load balancer, with its value. */
async function allThere(acked) {
  const pool = keepAlivePool(c.url, { maxSockets: 8 });
  const keys = [...acked.keys()];
  const missing = [];
  for (let i = 0; i < keys.length; i += 8) {
    await Promise.all(
      keys.slice(i, i + 8).map(async (key) => {
        const r = await pool.request('GET', `/v1/notes/${encodeURIComponent(key)}`, {
          headers: { authorization: `Bearer ${acme}`, 'x-memgate-repo': 'alpha' },
        });
        const v = r.json?.note?.value;
        if (r.status !== 200 || v !== acked.get(key)) missing.push(`${key}: HTTP ${r.status} ${r.text.slice(0, 120)}`);
      }),
    );
  }
  pool.close();
  assert.deepEqual(missing.slice(0, 10), [], `${missing.length} of ${keys.length} acknowledged notes not read back`);
}

function verifyAudit() {
  const r = mg(0, ['audit', '--verify', '--json'], { ok: false });
  assert.equal(r.status, 0, `audit --verify: ${r.stdout}${r.stderr}`);
  return JSON.parse(r.stdout);
}

before(async () => {
  // PostgreSQL of this file's own (stopped and started by a test)
  pgDir = fs.mkdtempSync('/tmp/memgate-multi-pg-');
  const url = execFileSync(PG_SH, ['start', pgDir], { encoding: 'utf8' }).trim();
  c = await startCluster({
    n: 3,
    tag: 'multi',
    storage: url,
    env: { MEMGATE_WATCH: 'off', MEMGATE_WEBHOOK_SECRET: SECRET, MEMGATE_STORAGE_TIMEOUT: '2', MEMGATE_INDEX_ROOTS: 'acme:/tmp' },
  });
  remote = path.join(c.world.dir, 'remote.git');
  git(c.world.dir, 'init', '-q', '--bare', remote);
  W = path.join(c.world.dir, 'wc');
  git(c.world.dir, 'clone', '-q', remote, W);
  commit(W, 'src/main.c', 'int multi_first_marker(void) { return 1; }\n');
  git(W, 'push', '-q', 'origin', 'main');
  other = path.join(c.world.dir, 'other');
  git(c.world.dir, 'clone', '-q', remote, other);
  // indexed once, with daemon 0's data directory: the catalog tells the others, which index their copies
  mg(0, ['index', W, '--name', 'alpha', '--tenant', 'acme', '--quiet']);
  mg(0, ['repos', 'set', 'alpha', 'pull_on_push=on', '--tenant', 'acme']);
  acme = JSON.parse(mg(0, ['token', 'create', '--tenant', 'acme', '--scope', 'write', '--rate', '0', '--json']).stdout).token;
  for (const d of c.daemons)
    await until(`alpha current on daemon ${d.i}`, async () => {
      const r = await req(d.url, 'GET', '/v1/repos');
      return r.status === 200 && r.json.repos.find((x) => x.id === 'alpha')?.index_state === 'current';
    });
});

after(async () => {
  await c?.stop();
  if (pgDir) spawnSync(PG_SH, ['rm', pgDir]);
});

test('a daemon killed during a stream of writes: every acknowledged write is there, the chain verifies', async () => {
  const w = writers(8, 'kill');
  await sleep(1500);
  const killedAt = performance.now() - w.t0;
  await c.daemons[1].kill();
  await sleep(2500);
  const { acked, failures } = await w.stop();
  const after = [...acked.keys()].length;
  assert.ok(after > 50, `only ${after} writes acknowledged`);
  // the writes went on after the kill (the load balancer took the daemon out)
  const late = failures.filter((f) => f.at > killedAt + 1500);
  assert.ok(late.length < 5, `writes still failing 1.5 s after the kill: ${JSON.stringify(late.slice(0, 5))}`);
  // the only failures are those of the requests in flight on the killed daemon: the load balancer's 502
  // or 503, or the connection to it closed (docs/deploy.md, "When something fails")
  for (const f of failures)
    assert.ok([502, 503].includes(f.status) || (f.status === 0 && ['ECONNRESET', 'EPIPE'].includes(f.code)), `unexpected answer during the kill: ${JSON.stringify(f)}`);
  await allThere(acked);
  verifyAudit();
  await c.restart(1);
  await until('daemon 1 ready again', async () => (await fetch(`${c.daemons[1].url}/readyz`)).status === 200);
});

test('PostgreSQL stopped and started during a stream of writes: documented errors only, nothing lost, service resumes', async () => {
  const w = writers(6, 'pgdown');
  await sleep(1500);
  execFileSync(PG_SH, ['stop', pgDir]);
  const stoppedAt = performance.now() - w.t0;
  await sleep(2500);
  execFileSync(PG_SH, ['restart', pgDir]);
  const restartedAt = performance.now() - w.t0;
  // service resumes by itself: writes are acknowledged again (no daemon restarted)
  await sleep(6000);
  const { acked, failures } = await w.stop();
  assert.ok(failures.length > 0, 'no request failed while PostgreSQL was down (was it?)');
  for (const f of failures) {
    const ok =
      (f.status === 503 && f.code === 'storage_unavailable' && f.retryAfter) ||
      (f.status === 503 && f.code === 'service_unavailable' && f.retryAfter);
    assert.ok(ok, `an undocumented answer while PostgreSQL was down: ${JSON.stringify(f)}`);
  }
  const lastFailure = Math.max(...failures.map((f) => f.at));
  assert.ok(lastFailure < restartedAt + 5000, `still failing ${((lastFailure - restartedAt) / 1000).toFixed(1)} s after PostgreSQL came back`);
  assert.ok(failures.every((f) => f.at > stoppedAt - 1000), 'failures before PostgreSQL was stopped');
  await allThere(acked);
  // every daemon is ready again, without a restart
  for (const d of c.daemons) await until(`daemon ${d.i} ready`, async () => (await fetch(`${d.url}/readyz`)).status === 200, 10000);
  verifyAudit();
});

test('one rate-limit budget for a token across the daemons, and a revocation holds on every daemon within 1 s', async () => {
  // --rate 6: a burst of 10, then one request every 10 s; asked of the three daemons in turn
  const slow = JSON.parse(mg(2, ['token', 'create', '--tenant', 'acme', '--scope', 'read', '--rate', '6', '--json']).stdout).token;
  let allowed = 0;
  let limited = 0;
  for (let k = 0; k < 30; k++) {
    const r = await req(c.daemons[k % 3].url, 'GET', '/v1/notes?limit=1', { token: slow });
    if (r.status === 200) allowed++;
    else if (r.status === 429) {
      limited++;
      assert.ok(Number(r.headers.get('retry-after')) >= 1, r.text);
    } else assert.fail(`HTTP ${r.status}: ${r.text}`);
  }
  assert.ok(allowed >= 10 && allowed <= 11, `${allowed} allowed of 30 (one budget: 10, plus a refill at most)`);
  assert.equal(allowed + limited, 30);

  const gone = JSON.parse(mg(1, ['token', 'create', '--tenant', 'acme', '--scope', 'read', '--rate', '0', '--json']).stdout);
  for (const d of c.daemons) assert.equal((await req(d.url, 'GET', '/v1/notes?limit=1', { token: gone.token })).status, 200);
  mg(2, ['token', 'revoke', gone.id]);
  const t0 = performance.now();
  const refusedAfter = await Promise.all(
    c.daemons.map(async (d) => {
      for (;;) {
        const r = await req(d.url, 'GET', '/v1/notes?limit=1', { token: gone.token });
        if (r.status === 401) {
          assert.equal(r.json?.error?.code, 'token_revoked', r.text);
          return performance.now() - t0;
        }
        if (performance.now() - t0 > 5000) return Infinity;
        await sleep(20);
      }
    }),
  );
  for (const [i, ms] of refusedAfter.entries()) assert.ok(ms <= 1000, `daemon ${i} still accepted the revoked token after ${ms} ms`);
});

test('a push webhook delivered to one daemon brings the other daemons\' indexes up to date', async () => {
  const marker = `multi_pushed_${process.pid}`;
  git(other, 'pull', '-q', '--ff-only');
  commit(other, 'src/pushed.c', `int ${marker}(void) { return 3; }\n`);
  git(other, 'push', '-q', 'origin', 'main');
  const id = `multi-${process.pid}-${Date.now()}`;
  const body = JSON.stringify({ ref: 'refs/heads/main', repository: { clone_url: remote } });
  const sig = `sha256=${crypto.createHmac('sha256', SECRET).update(body).digest('hex')}`;
  const res = await fetch(`${c.daemons[0].url}/v1/hooks/git`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': id, 'x-hub-signature-256': sig },
    body,
  });
  assert.equal(res.status, 202, await res.text());
  for (const d of c.daemons)
    await until(`${marker} searchable on daemon ${d.i}`, async () => {
      const r = await req(d.url, 'GET', `/v1/search?q=${marker}`);
      return r.status === 200 && r.json.results.length === 1 && !r.json.index_stale;
    });
  // the same delivery to another daemon is a replay
  const again = await fetch(`${c.daemons[2].url}/v1/hooks/git`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': id, 'x-hub-signature-256': sig },
    body,
  });
  assert.equal(again.status, 409, await again.text());
});
