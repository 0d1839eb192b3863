// tokens_pg_daemons.test.mjs — two `memgate serve` daemons, each with its own
// data directory (MEMGATE_HOME), on one PostgreSQL database (storage =
// postgres://..., docs/security.md "Tokens on PostgreSQL"), as behind a load
// balancer: a token made with the CLI on daemon A's machine works on B (once
// token.pepper is copied, the deploy step); revoked there, B refuses it at
// once; a rate-limited token's budget is one for both daemons, not one each;
// a webhook delivery id seen by A is a replay on B; and a daemon with another
// pepper refuses to start, saying what to copy.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { makeWorld, MEMGATE_BIN, pgDatabase, shutdown, sleep, startServe, v1 } from './lib/harness.mjs';

const SECRET = 'tokens-daemons-webhook-secret-0123456789';

let A; // daemon A's machine: its world (data directory) and its server
let B;
let url;
let serveA;
let serveB;

function mg(world, args) {
  const r = spawnSync(MEMGATE_BIN, args, { env: world.env, cwd: world.cwd, encoding: 'utf8' });
  assert.equal(r.status, 0, `memgate ${args.join(' ')}: ${r.stdout}${r.stderr}`);
  return r.stdout;
}

const token = (world, extra = []) => JSON.parse(mg(world, ['token', 'create', '--tenant', 'acme', '--json', ...extra]));

/** Copy token.pepper from one data directory to another, as a deployer does (mode 0600). */
function copyPepper(from, to) {
  fs.copyFileSync(path.join(from.home, 'token.pepper'), path.join(to.home, 'token.pepper'));
  fs.chmodSync(path.join(to.home, 'token.pepper'), 0o600);
}

before(async () => {
  url = pgDatabase('tokdaemons');
  A = makeWorld('tokdaemons-a');
  B = makeWorld('tokdaemons-b');
  for (const w of [A, B]) {
    w.env.MEMGATE_DATABASE_URL = url;
    w.env.MEMGATE_WEBHOOK_SECRET = SECRET;
  }
  token(A); // the first token makes A's pepper and records its fingerprint in the database
  copyPepper(A, B);
  serveA = await startServe(A);
  serveB = await startServe(B);
});

after(async () => {
  await shutdown([], serveA);
  await shutdown([], serveB);
  A.cleanup();
  B.cleanup();
});

test('a token made with the CLI on A works on B; revoked on A, B refuses it at the next request', async () => {
  const t = token(A, ['--name', 'ci']);
  assert.equal((await v1(serveB, '/v1/repos', { token: t.token })).status, 200);
  assert.equal((await v1(serveA, '/v1/repos', { token: t.token })).status, 200);
  // B's data directory lists it too: one store
  assert.ok(mg(B, ['token', 'list', '--json']).includes(t.id));
  mg(A, ['token', 'revoke', t.id]);
  const t0 = Date.now();
  const r = await v1(serveB, '/v1/repos', { token: t.token });
  assert.equal(r.status, 401, r.text);
  assert.equal(r.json.error.code, 'token_revoked');
  assert.ok(Date.now() - t0 < 1000);
  assert.equal((await v1(serveA, '/v1/repos', { token: t.token })).json.error.code, 'token_revoked');
});

test('an expiry holds on every daemon', async () => {
  const t = token(B, ['--expires', '5s']);
  assert.equal((await v1(serveA, '/v1/repos', { token: t.token })).status, 200);
  await sleep(Math.max(0, t.expires * 1000 - Date.now()) + 100);
  for (const s of [serveA, serveB]) assert.equal((await v1(s, '/v1/repos', { token: t.token })).json.error.code, 'token_expired');
});

test("a rate-limited token's budget is shared: A and B together allow about the burst, not twice it", async () => {
  // 6/min: burst 10, then one every 10 s; each daemon alone would allow 10
  const t = token(A, ['--rate', '6']);
  let allowed = 0;
  let limited = null;
  const t0 = Date.now();
  for (let i = 0; i < 30; i++) {
    const r = await v1(i % 2 ? serveB : serveA, '/v1/repos', { token: t.token });
    if (r.status === 200) allowed++;
    else {
      assert.equal(r.status, 429, r.text);
      limited = r;
    }
  }
  const extra = Math.floor((Date.now() - t0) / 10000); // what came back meanwhile
  assert.ok(allowed >= 10 && allowed <= 10 + extra, `${allowed} requests allowed by two daemons at 6/min (burst 10)`);
  assert.equal(limited.json.error.code, 'rate_limited');
  assert.ok(Number(limited.headers.get('retry-after')) >= 1);
  // other tokens keep their own budget
  const other = token(B);
  assert.equal((await v1(serveB, '/v1/repos', { token: other.token })).status, 200);
});

test('a webhook delivery id seen by A is a replay on B (409 webhook_replayed)', async () => {
  const id = `tokdaemons-${process.pid}-${crypto.randomUUID()}`;
  const body = JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 1 });
  const headers = {
    'content-type': 'application/json',
    'x-github-event': 'ping', // ignored (202), and its id remembered like an accepted push's
    'x-github-delivery': id,
    'x-hub-signature-256': `sha256=${crypto.createHmac('sha256', SECRET).update(body).digest('hex')}`,
  };
  const send = (s) => fetch(`${s.url}/v1/hooks/git`, { method: 'POST', headers, body }).then(async (r) => ({ status: r.status, json: await r.json() }));
  const a = await send(serveA);
  assert.equal(a.status, 202, JSON.stringify(a.json));
  const b = await send(serveB);
  assert.equal(b.status, 409, JSON.stringify(b.json));
  assert.equal(b.json.error.code, 'webhook_replayed');
});

test('a daemon whose token.pepper differs refuses to start, and says what to copy', async () => {
  const C = makeWorld('tokdaemons-c');
  try {
    C.env.MEMGATE_DATABASE_URL = url;
    fs.writeFileSync(path.join(C.home, 'token.pepper'), crypto.randomBytes(32), { mode: 0o600 });
    const r = spawnSync(MEMGATE_BIN, ['serve', '--listen', '127.0.0.1:0'], { env: C.env, cwd: C.cwd, encoding: 'utf8', timeout: 15000 });
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /error\[invalid_config\]/);
    assert.match(r.stderr, /token\.pepper .*differs from the one the shared database's tokens were made with; copy token\.pepper from a daemon that works/);
    // without one, none is made: the database's tokens have theirs
    fs.rmSync(path.join(C.home, 'token.pepper'));
    const l = spawnSync(MEMGATE_BIN, ['token', 'list'], { env: C.env, cwd: C.cwd, encoding: 'utf8' });
    assert.equal(l.status, 1);
    assert.match(l.stderr, /token\.pepper' is missing/);
    assert.ok(!fs.existsSync(path.join(C.home, 'token.pepper')));
    // copied, it starts
    copyPepper(A, C);
    const s = await startServe(C);
    try {
      const t = token(A);
      assert.equal((await v1(s, '/v1/repos', { token: t.token })).status, 200);
    } finally {
      await s.stop();
    }
  } finally {
    C.cleanup();
  }
});
