// durability.test.mjs — kill -9 during a stream of memory writes
// (docs/memory.md, "Durability"): a write is acknowledged only after its
// transaction commits, so every acknowledged write survives SIGKILL.
//
// `memgate serve` on a fresh data directory; 8 concurrent writers POST
// /v1/notes (a new key each time, plus one key each overwritten with a
// sequence number) and POST /v1/episodes, recording every 2xx. At a random
// moment the server gets SIGKILL. Then: `PRAGMA integrity_check` on
// <home>/memory/local.db (sqlite3 CLI, else node:sqlite) must say ok; the
// server restarts on the same directory and every acknowledged note and
// episode must be there (and each overwritten key must hold its last
// acknowledged value or the one in flight). Three kill points, cumulative.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { indexRepo, makeRepo, makeWorld, shutdown, sleep, startServe } from './lib/harness.mjs';
import { keepAlivePool } from './lib/keepalive.mjs';

const WRITERS = 8;
const KILLS = [
  [0, 100], // early: right after the first acknowledged write
  [600, 1500],
  [1500, 3000],
];

let world;
let repo;
let serve;
const ackedNotes = new Map(); // key -> value
const ackedEpisodes = new Set(); // canary
const latest = new Map(); // writer -> { acked: seq, sent: seq }

before(async () => {
  world = makeWorld('durability');
  repo = makeRepo(world, 'dura');
  indexRepo(world, repo);
});

after(async () => {
  pool?.close();
  if (serve) await serve.stop();
  world.cleanup();
});

/** `PRAGMA integrity_check` on a database file: the sqlite3 CLI if installed, else node:sqlite. */
function integrityCheck(db) {
  const cli = spawnSync('sqlite3', [db, 'PRAGMA integrity_check;'], { encoding: 'utf8' });
  if (!cli.error) {
    assert.equal(cli.status, 0, cli.stderr);
    return cli.stdout.trim();
  }
  const r = spawnSync(process.execPath, ['--experimental-sqlite', '--no-warnings', '-e',
    `const { DatabaseSync } = require('node:sqlite'); const d = new DatabaseSync(process.argv[1]);
     console.log(d.prepare('PRAGMA integrity_check').all().map((x) => Object.values(x)[0]).join('\\n'));`, db], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim();
}

let pool;

async function post(p, body, sessionId) {
  const r = await pool.request('POST', p, { headers: { 'x-memgate-repo': 'dura', 'x-session-id': sessionId }, body });
  return r.status;
}

/** One writer until the server dies: returns how many writes were acknowledged. */
async function writer(w, round, stop) {
  const ack = () => {
    if (stop.firstAck) stop.firstAck();
  };
  const sessionId = `durability-writer-${w}`;
  let acked = 0;
  for (let i = 0; !stop.dead; i++) {
    try {
      if (i % 3 === 2) {
        const canary = `dep${round}x${w}x${i}`;
        const st = await post('/v1/episodes', { summary: `durable episode ${canary}` }, sessionId);
        if (st >= 200 && st < 300) {
          ackedEpisodes.add(canary);
          acked++;
          ack();
        }
      } else if (i % 3 === 1) {
        const l = latest.get(w) || { acked: -1, sent: -1 };
        const seq = l.sent + 1;
        l.sent = seq;
        latest.set(w, l);
        const st = await post('/v1/notes', { key: `latest-${w}`, value: `seq ${seq}` }, sessionId);
        if (st === 200 || st === 201) {
          l.acked = seq;
          acked++;
          ack();
        }
      } else {
        const key = `dn-${round}-${w}-${i}`;
        const value = `durable note ${round} ${w} ${i} ${'x'.repeat(i % 200)}`;
        const st = await post('/v1/notes', { key, value }, sessionId);
        if (st === 201) {
          ackedNotes.set(key, value);
          acked++;
          ack();
        } else stop.refused.push(st);
      }
    } catch (e) {
      // connection refused or reset: the server is gone
      if (stop.dead) break;
      stop.errors.push(String(e));
      await sleep(5);
    }
  }
  return acked;
}

async function verify(label) {
  const db = path.join(world.home, 'memory', 'local.db');
  assert.ok(fs.existsSync(db), `${label}: no ${db}`);
  assert.equal(integrityCheck(db), 'ok', `${label}: integrity_check`);
  serve = await startServe(world);
  pool = keepAlivePool(serve.url);
  const get = (p) => pool.request('GET', p, { headers: { 'x-memgate-repo': 'dura', 'x-session-id': 'durability-checker' } });
  const missing = [];
  const keys = [...ackedNotes.keys()];
  // in parallel batches over keep-alive connections
  for (let i = 0; i < keys.length; i += 32) {
    await Promise.all(keys.slice(i, i + 32).map(async (k) => {
      const r = await get(`/v1/notes/${encodeURIComponent(k)}`);
      if (r.status !== 200 || r.json?.note?.value !== ackedNotes.get(k)) missing.push(`note ${k}: ${r.status} ${JSON.stringify(r.json)?.slice(0, 200)}`);
    }));
  }
  const eps = [...ackedEpisodes];
  for (let i = 0; i < eps.length; i += 32) {
    await Promise.all(eps.slice(i, i + 32).map(async (canary) => {
      const r = await get(`/v1/episodes?q=${canary}&limit=5`);
      if (r.status !== 200 || !JSON.stringify(r.json).includes(canary)) missing.push(`episode ${canary}: ${r.status}`);
    }));
  }
  for (const [w, l] of latest) {
    if (l.acked < 0) continue;
    const r = await get(`/v1/notes/latest-${w}`);
    const seq = Number(/^seq (\d+)$/.exec(r.json?.note?.value || '')?.[1]);
    // the last acknowledged value or a later one that was sent: the one in flight when the server died, or
    // one whose request failed on the client's side (a reset connection) after the server had stored it
    if (!(seq >= l.acked && seq <= l.sent)) missing.push(`latest-${w}: ${r.json?.note?.value} (acked ${l.acked}, sent ${l.sent})`);
    l.acked = seq; // what is there now is the base for the next round
    l.sent = seq;
  }
  assert.deepEqual(missing.slice(0, 20), [], `${label}: ${missing.length} acknowledged writes lost of ${ackedNotes.size} notes, ${ackedEpisodes.size} episodes`);
}

for (const [k, [lo, hi]] of KILLS.entries()) {
  test(`kill -9 at point ${k + 1} (${lo}-${hi} ms after the first acknowledged write): every acknowledged write is there, integrity_check ok`, async () => {
    if (!serve) serve = await startServe(world);
    pool?.close();
    pool = keepAlivePool(serve.url);
    const stop = { dead: false, refused: [], errors: [] };
    const firstAck = new Promise((r) => (stop.firstAck = r));
    const before = ackedNotes.size + ackedEpisodes.size;
    const running = Array.from({ length: WRITERS }, (_, w) => writer(w, k, stop));
    // the kill point is counted from the first acknowledged write of the round
    const none = setTimeout(() => stop.firstAck('timeout'), 30000);
    assert.notEqual(await firstAck, 'timeout', `no write acknowledged in 30 s: ${JSON.stringify(stop.refused.slice(0, 5))} ${stop.errors.slice(0, 5)}`);
    clearTimeout(none);
    stop.firstAck = null;
    const at = lo + Math.floor(Math.random() * (hi - lo));
    await sleep(at);
    const exited = new Promise((r) => serve.child.once('exit', (code, signal) => r({ code, signal })));
    serve.child.kill('SIGKILL');
    const st = await exited;
    stop.dead = true;
    assert.equal(st.signal, 'SIGKILL');
    const acked = (await Promise.all(running)).reduce((a, b) => a + b, 0);
    console.log(`# kill point ${k + 1}: SIGKILL after ${at} ms, ${acked} writes acknowledged this round (${ackedNotes.size} notes, ${ackedEpisodes.size} episodes in all)`);
    assert.ok(ackedNotes.size + ackedEpisodes.size > before, 'no write was acknowledged before the kill');
    // the writers wrote nothing but new keys: a refusal is a bug, not a kill effect
    assert.deepEqual(stop.refused, [], 'writes refused before the kill');
    serve = null;
    pool.close();
    await verify(`kill point ${k + 1}`);
  });
}

test('the data directory after the kills: the memory database is 0600 and the server stops cleanly', async () => {
  const db = path.join(world.home, 'memory', 'local.db');
  assert.equal(fs.statSync(db).mode & 0o077, 0);
  pool.close();
  const s = serve;
  serve = null;
  await shutdown([], s);
  assert.equal(integrityCheck(db), 'ok');
});
