// audit_pg_daemons.test.mjs — two `memgate serve` with their own data
// directories and one storage URL (PostgreSQL) write one audit chain:
// requests to both, taken in turn, are events of one chain in the order
// they were answered, and `memgate audit --verify` passes; the events are
// not in either data directory.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { makeWorld, MEMGATE_BIN, pgDatabase, shutdown, startServe } from './lib/harness.mjs';

let one;
let two;
let url;

before(() => {
  url = pgDatabase('auditdaemons');
  one = makeWorld('auditd1');
  two = makeWorld('auditd2');
  for (const w of [one, two]) w.env.MEMGATE_STORAGE = url;
});

after(() => {
  one.cleanup();
  two.cleanup();
});

function audit(world, args) {
  return spawnSync(MEMGATE_BIN, ['audit', ...args], { env: world.env, cwd: world.cwd, encoding: 'utf8' });
}

test('two daemons, one chain: events interleaved by seq, --verify passes', async () => {
  const a = await startServe(one);
  // every daemon of one database has the same token pepper (docs/deploy.md, "Tokens")
  fs.copyFileSync(path.join(one.home, 'token.pepper'), path.join(two.home, 'token.pepper'));
  fs.chmodSync(path.join(two.home, 'token.pepper'), 0o600);
  const b = await startServe(two);
  const sent = [];
  try {
    // in turn, each answered before the next is sent: their events follow in that order
    for (let i = 0; i < 20; i++) {
      for (const [name, s] of [['d1', a], ['d2', b]]) {
        const id = `${name}-${i}`;
        const r = await fetch(`${s.url}/v1/repos`, { headers: { 'x-request-id': id } });
        assert.equal(r.status, 200, await r.text());
        sent.push(id);
      }
    }
    // and at once, on both: still one chain
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        fetch(`${(i % 2 ? a : b).url}/v1/repos`, { headers: { 'x-request-id': `burst-${i}` } }).then((r) => r.text()),
      ),
    );
  } finally {
    await shutdown([], a);
    await shutdown([], b);
  }
  const v = audit(one, ['--verify', '--json']);
  assert.equal(v.status, 0, v.stdout + v.stderr);
  const rep = JSON.parse(v.stdout);
  assert.equal(rep.ok, true);
  assert.equal(rep.storage, 'postgresql');
  assert.equal(rep.first_seq, 1);
  assert.equal(rep.last_seq, rep.events);
  assert.equal(rep.anchor_seq, rep.last_seq);
  // the other daemon's data directory reads the same chain
  const v2 = audit(two, ['--verify', '--json']);
  assert.equal(v2.status, 0, v2.stdout + v2.stderr);
  assert.equal(JSON.parse(v2.stdout).last_seq, rep.last_seq);

  const list = audit(one, ['--json', '--limit', '0', '--op', 'list_repos']);
  assert.equal(list.status, 0, list.stderr);
  const events = list.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const turns = events.filter((e) => /^d[12]-/.test(e.request_id || ''));
  assert.deepEqual(turns.map((e) => e.request_id), sent, 'the turns, in the order they were answered');
  for (let i = 1; i < turns.length; i++) assert.ok(turns[i].seq > turns[i - 1].seq);
  assert.equal(events.filter((e) => /^burst-/.test(e.request_id || '')).length, 40);
  // the two daemons' sessions are both there, and each wrote none of it to its files
  assert.ok(new Set(turns.map((e) => e.session)).size >= 2);
  for (const w of [one, two]) assert.equal(fs.existsSync(path.join(w.home, 'audit', 'audit.log')), false);
});
