// listen_scope.test.mjs — subscriptions/listen hears only of the repos its
// caller may see (docs/security.md, "Tokens"): issue 38's V10, through a
// real `memgate serve`, the official 2.x SDK and index_repo calls.
//
// Tenant acme has two repos, alpha and bravo. A token limited to alpha and
// an unlimited token of acme both listen for memgate/indexChanged; a token
// of globex listens too. An admin of acme re-indexes both repos (index_repo):
// the unlimited listener hears of both runs (so they happened), the limited
// one of alpha's only, globex's of neither.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { createToken, makeWorld, runMemgate, shutdown, sleep, startServe } from './lib/harness.mjs';
import { call2, httpClient2 } from './lib/sdk2.mjs';

const EVENT = 'notifications/memgate/index_changed';
let world;
let serve;
const roots = {};
const clients = [];

const mg = (args) => runMemgate(world, args);

const token = (...args) => createToken(world, ...args);

async function listener(tok) {
  const c = await httpClient2(serve, { headers: { authorization: `Bearer ${tok}` }, name: 'listen-scope' });
  clients.push(c);
  await c.client.listen({ 'memgate/indexChanged': true }, { timeout: 10000 });
  const ack = c.seen.find((m) => m.method === 'notifications/subscriptions/acknowledged');
  assert.equal(ack?.params?.notifications?.['memgate/indexChanged'], true, JSON.stringify(ack));
  return c;
}

const heard = (c) => c.seen.filter((m) => m.method === EVENT).map((m) => m.params.repo);

before(async () => {
  world = makeWorld('listenscope');
  world.env.MEMGATE_INDEX_ROOTS = `acme:${path.join(world.dir, 'acme')}, globex:${path.join(world.dir, 'globex')}`;
  for (const name of ['alpha', 'bravo']) {
    roots[name] = path.join(world.dir, 'acme', name);
    fs.mkdirSync(roots[name], { recursive: true });
    fs.writeFileSync(path.join(roots[name], 'main.c'), `int ${name}_main(void) { return 0; }\n`);
    const r = mg(['index', roots[name], '--name', name, '--tenant', 'acme', '--json']);
    assert.equal(r.status, 0, r.stderr);
  }
  const g = path.join(world.dir, 'globex', 'gamma');
  fs.mkdirSync(g, { recursive: true });
  fs.writeFileSync(path.join(g, 'g.c'), 'int gamma(void) { return 0; }\n');
  assert.equal(mg(['index', g, '--name', 'gamma', '--tenant', 'globex']).status, 0);
  serve = await startServe(world);
});

after(async () => {
  for (const c of clients) await c.close().catch(() => {});
  await shutdown([], serve);
  world.cleanup();
});

test('V10: a token limited to one repo hears no index run of its tenant\'s other repos', async () => {
  const full = await listener(token('--tenant', 'acme', '--scope', 'read'));
  const limited = await listener(token('--tenant', 'acme', '--scope', 'read', '--repos', 'alpha'));
  const other = await listener(token('--tenant', 'globex', '--scope', 'read'));
  const admin = await httpClient2(serve, { headers: { authorization: `Bearer ${token('--tenant', 'acme', '--scope', 'admin')}` }, name: 'listen-admin' });
  clients.push(admin);
  for (const repo of ['bravo', 'alpha']) {
    fs.writeFileSync(path.join(roots[repo], 'more.c'), `int ${repo}_more(void) { return 1; }\n`);
    const r = await call2(admin.client, 'index_repo', { path: roots[repo], name: repo });
    assert.equal(r.ok, true, r.text);
  }
  const deadline = Date.now() + 30000;
  while (!(heard(full).includes('alpha') && heard(full).includes('bravo'))) {
    assert.ok(Date.now() < deadline, `the index runs were not heard within 30 s: ${JSON.stringify(heard(full))}`);
    await sleep(200);
  }
  await sleep(500); // anything else on its way
  assert.ok(heard(limited).includes('alpha'), `the limited listener missed its own repo: ${JSON.stringify(heard(limited))}`);
  assert.ok(!heard(limited).includes('bravo'), `the limited listener heard of bravo: ${JSON.stringify(heard(limited))}`);
  assert.deepEqual(heard(other), [], 'another tenant heard of acme\'s repos');
});

test('the watcher\'s index runs are heard too, by the listeners that may see the repo', async () => {
  const full = await listener(token('--tenant', 'acme', '--scope', 'read'));
  const other = await listener(token('--tenant', 'globex', '--scope', 'read'));
  // a file written again with the same bytes: the watcher's run finds nothing new and tells no one
  fs.writeFileSync(path.join(roots.alpha, 'main.c'), fs.readFileSync(path.join(roots.alpha, 'main.c')));
  await sleep(1500);
  assert.deepEqual(heard(full), [], 'a watcher run that changed nothing was announced');
  // no index tool called: an edit on disk, which the server's watcher indexes
  fs.writeFileSync(path.join(roots.alpha, 'edited.c'), 'int alpha_edited(void) { return 2; }\n');
  const deadline = Date.now() + 30000;
  while (!heard(full).includes('alpha')) {
    assert.ok(Date.now() < deadline, `the watcher's run was not heard within 30 s: ${JSON.stringify(heard(full))}`);
    await sleep(200);
  }
  const ev = full.seen.find((m) => m.method === EVENT && m.params.repo === 'alpha');
  assert.ok(ev.params.changed >= 1, JSON.stringify(ev.params));
  await sleep(500);
  assert.deepEqual(heard(other), [], 'another tenant heard of acme\'s watcher run');
});
