// webhook_cli.test.mjs — `memgate webhook secret set|rotate|list|remove`
// (issue 38's webhook leftovers): the per-tenant secret written into the
// config file (atomically, mode 0600, its other lines kept), printed once,
// listed by tenant only, and taken by a real `memgate serve`: a GitHub
// delivery signed with the tenant's current secret passes the signature
// check (then 404 repo_not_found: no repo has that remote), one signed with
// a rotated or removed secret is 401 bad_signature.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { freePort, makeWorld, MEMGATE_BIN, shutdown, startServe } from './lib/harness.mjs';

let world;
let serve;
let port;

function mg(args) {
  return spawnSync(MEMGATE_BIN, args, { env: world.env, cwd: world.cwd, encoding: 'utf8' });
}

async function deliver(secret) {
  const body = JSON.stringify({ ref: 'refs/heads/main', after: crypto.randomBytes(20).toString('hex'), repository: { clone_url: 'https://github.com/nobody/none.git' } });
  const sig = `sha256=${crypto.createHmac('sha256', secret).update(body).digest('hex')}`;
  const r = await fetch(`${serve.url}/v1/hooks/git`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-hub-signature-256': sig }, body });
  const text = await r.text();
  return { status: r.status, code: JSON.parse(text)?.error?.code, text };
}

async function restart() {
  if (serve) await serve.stop();
  serve = await startServe(world, ['--listen', `127.0.0.1:${port}`], {});
}

before(async () => {
  world = makeWorld('webhook-cli');
  port = await freePort();
  fs.writeFileSync(path.join(world.home, 'config'), '# kept as written\nwebhook_secret = server-wide-secret-0123456789  # for local\n', { mode: 0o644 });
});

after(async () => {
  await shutdown([], serve);
  world?.cleanup();
});

test('set, rotate, list and remove a tenant\'s webhook secret; the server takes each', async () => {
  const cfg = path.join(world.home, 'config');
  const set = mg(['webhook', 'secret', 'set', '--tenant', 'acme', '--json']);
  assert.equal(set.status, 0, set.stderr);
  const s1 = JSON.parse(set.stdout);
  assert.equal(s1.tenant, 'acme');
  assert.equal(s1.config, cfg);
  assert.match(s1.secret, /^[A-Za-z0-9_-]{43}$/);
  assert.equal(fs.statSync(cfg).mode & 0o777, 0o600, 'the config file holding secrets is 0600');
  const text = fs.readFileSync(cfg, 'utf8');
  assert.match(text, /^# kept as written\nwebhook_secret = server-wide-secret-0123456789  # for local\n/, 'other lines kept');
  assert.match(text, new RegExp(`^webhook_secrets = acme:${s1.secret}$`, 'm'));
  assert.equal(mg(['webhook', 'secret', 'set', '--tenant', 'globex']).status, 0);
  const list = mg(['webhook', 'secret', 'list', '--json']);
  assert.equal(list.status, 0, list.stderr);
  assert.deepEqual(JSON.parse(list.stdout).tenants, ['acme', 'globex']);
  assert.ok(!list.stdout.includes(s1.secret), 'list never shows a secret');
  await restart();
  assert.equal((await deliver(s1.secret)).code, 'repo_not_found', 'acme\'s secret passes the signature check');
  assert.equal((await deliver('not-the-secret-0123456789')).code, 'bad_signature');
  const rot = mg(['webhook', 'secret', 'rotate', '--tenant', 'acme', '--json']);
  assert.equal(rot.status, 0, rot.stderr);
  const s2 = JSON.parse(rot.stdout).secret;
  assert.notEqual(s2, s1.secret);
  await restart();
  assert.equal((await deliver(s1.secret)).code, 'bad_signature', 'the rotated secret is refused');
  assert.equal((await deliver(s2)).code, 'repo_not_found');
  const rm = mg(['webhook', 'secret', 'remove', '--tenant', 'acme', '--json']);
  assert.equal(rm.status, 0, rm.stderr);
  assert.equal(JSON.parse(rm.stdout).removed, true);
  assert.deepEqual(JSON.parse(mg(['webhook', 'secret', 'list', '--json']).stdout).tenants, ['globex']);
  await restart();
  assert.equal((await deliver(s2)).code, 'bad_signature', 'a removed secret is refused');
});

test('errors: rotate or remove a tenant without a secret, a bad tenant, no subcommand; --help', async () => {
  const r = mg(['webhook', 'secret', 'rotate', '--tenant', 'nobody', '--json']);
  assert.equal(r.status, 2);
  assert.match(r.stdout + r.stderr, /no webhook secret/);
  assert.equal(mg(['webhook', 'secret', 'set', '--tenant', 'Bad Name']).status, 2);
  assert.equal(mg(['webhook', 'secret', 'set']).status, 2);
  assert.equal(mg(['webhook']).status, 2);
  const h = mg(['webhook', '--help']);
  assert.equal(h.status, 0);
  assert.match(h.stdout, /memgate webhook secret rotate --tenant T/);
});
