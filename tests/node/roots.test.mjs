// roots.test.mjs — the index-root policy (docs/security.md, "Index roots")
// over the real HTTP server: an admin token of tenant acme may index only
// under acme's `index_roots`, never a directory that holds, or lies inside,
// another tenant's repo, nor the data or cache directory; every refusal is
// `root_forbidden` (403) and leaves an audit event.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { call, httpClient, makeRepo, makeWorld, MEMGATE_BIN, shutdown, startServe, v1 } from './lib/harness.mjs';

let world;
let serve;
let A; // acme's repo, <dir>/acme/alpha
let B; // globex's repo, <dir>/globex/globexrepo
let outside; // a directory outside every allowed root
const tok = {};

/** makeRepo's world argument for a repo under <dir>/name. */
const sub = (name) => ({ dir: path.join(world.dir, name) });

function mg(args, env = {}) {
  return spawnSync(MEMGATE_BIN, args, { env: { ...world.env, ...env }, cwd: world.cwd, encoding: 'utf8' });
}

function token(tenant, extra = []) {
  const r = mg(['token', 'create', '--tenant', tenant, '--json', ...extra]);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout).token;
}

function auditEvents() {
  const r = mg(['audit', '--json']);
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
}
const count = () => auditEvents().length;

function assertAudited(n, op, code, what, tenant = 'acme') {
  const ev = auditEvents().slice(n);
  assert.ok(ev.some((e) => e.op === op && e.code === code && e.tenant === tenant),
    `${what}: no audit event op=${op} code=${code} among ${JSON.stringify(ev.map((e) => [e.op, e.code, e.tenant]))}`);
}

const api = (p, opts) => v1(serve, p, opts);

/** POST /v1/index with acme's admin token must be refused with root_forbidden, audited. */
async function refused(what, body, { t = tok.acmeAdmin, tenant = 'acme' } = {}) {
  const n = count();
  const r = await api('/v1/index', { token: t, method: 'POST', body });
  assert.equal(r.status, 403, `${what}: ${r.text}`);
  assert.equal(r.json?.error?.code, 'root_forbidden', `${what}: ${r.text}`);
  assert.ok(!r.text.includes(B.canary), `${what}: ${r.text}`);
  assertAudited(n, 'index_repo', 'root_forbidden', what, tenant);
  return r;
}

before(async () => {
  world = makeWorld('roots');
  fs.mkdirSync(path.join(world.dir, 'acme'));
  fs.mkdirSync(path.join(world.dir, 'globex'));
  A = makeRepo(sub('acme'), 'alpha');
  B = makeRepo(sub('globex'), 'globexrepo');
  outside = fs.mkdtempSync(path.join(os.tmpdir(), 'memgate-roots-outside-'));
  fs.writeFileSync(path.join(outside, 'x.c'), 'int outside_x;\n');
  // acme may index anywhere under the whole test directory (which also holds
  // the data directory and globex's repo); globex under its own directory
  world.env.MEMGATE_INDEX_ROOTS = `acme:${world.dir}, globex:${path.join(world.dir, 'globex')}`;
  let r = mg(['index', A.root, '--name', 'alpha', '--tenant', 'acme', '--quiet']);
  assert.equal(r.status, 0, r.stderr);
  r = mg(['index', B.root, '--name', 'globexrepo', '--tenant', 'globex', '--quiet']);
  assert.equal(r.status, 0, r.stderr);
  tok.acmeAdmin = token('acme', ['--scope', 'admin']);
  tok.globexAdmin = token('globex', ['--scope', 'admin']);
  tok.localAdmin = token('local', ['--scope', 'admin']);
  serve = await startServe(world);
});

after(async () => {
  await shutdown([], serve);
  fs.rmSync(outside, { recursive: true, force: true });
  world.cleanup();
});

test("another tenant's repo: the root itself, a parent, a child, a symlink into it, a `..` path", async () => {
  await refused("B's root", { path: B.root });
  await refused("B's parent", { path: path.dirname(B.root) });
  await refused("a child of B's root", { path: path.join(B.root, 'src') });
  const link = path.join(world.dir, 'acme', 'sneaky');
  fs.symlinkSync(path.join(B.root, 'src'), link);
  await refused('a sibling symlink into B', { path: link });
  await refused('A/../B', { path: `${A.root}/../../globex/globexrepo` });
  await refused('A/../B/src/..', { path: `${A.root}/../../globex/globexrepo/src/..` });
});

test('the data directory, a parent of it, a directory inside it', async () => {
  await refused('the data directory', { path: world.home });
  await refused('a parent of the data directory', { path: world.dir });
  await refused('inside the data directory', { path: path.join(world.home, 'audit') });
  await refused('the data directory through ..', { path: `${A.root}/../../home` });
});

test("a directory outside the tenant's index roots", async () => {
  await refused('outside', { path: outside });
  await refused('/', { path: '/' });
  // a token of tenant `local` is restricted like any other tenant's: local has no index roots here
  await refused("outside, with a token of tenant 'local'", { path: outside }, { t: tok.localAdmin, tenant: 'local' });
});

test('an allowed root is indexed; a prefix that is not a path component is not an overlap', async () => {
  const C = makeRepo(sub('acme'), 'charlie');
  let r = await api('/v1/index', { token: tok.acmeAdmin, method: 'POST', body: { path: C.root, name: 'charlie' } });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.repo, 'acme~charlie'); // a token's repo: its tenant's namespace (docs/security.md, Repo ids)
  // <dir>/globex/globexrepo2 is not inside <dir>/globex/globexrepo
  const D = makeRepo(sub('globex'), 'globexrepo2');
  r = await api('/v1/index', { token: tok.globexAdmin, method: 'POST', body: { path: D.root, name: 'globex2' } });
  assert.equal(r.status, 200, r.text);
});

test('a root swapped for a symlink after indexing: re-indexing it is refused', async () => {
  const S = makeRepo(sub('acme'), 'swap');
  let r = await api('/v1/index', { token: tok.acmeAdmin, method: 'POST', body: { path: S.root, name: 'swap' } });
  assert.equal(r.status, 200, r.text);
  fs.renameSync(S.root, `${S.root}.old`);
  fs.symlinkSync(B.root, S.root);
  // by path: the check applies to the new real path, B's repo
  await refused('the swapped root by path', { path: S.root });
  // the repo's re-index (no path: the stored root, which now resolves elsewhere)
  const n = count();
  r = await api('/v1/index', { token: tok.acmeAdmin, method: 'POST', body: {}, headers: { 'x-memgate-repo': 'swap' } });
  assert.equal(r.status, 403, r.text);
  assert.equal(r.json.error.code, 'root_forbidden');
  assert.ok(!r.text.includes(B.canary), r.text);
  assertAudited(n, 'index_repo', 'root_forbidden', 'swapped root re-indexed');
  // the CLI re-index of the repo by its old path is refused the same way
  const cli = mg(['index', S.root, '--name', 'swap', '--tenant', 'acme', '--quiet']);
  assert.equal(cli.status, 1, cli.stderr);
  assert.match(cli.stderr, /error\[root_forbidden\]/);
});

test('the MCP index_repo tool and first-use indexing of a client root are refused too', async () => {
  let n = count();
  const c = await httpClient(serve, { headers: { authorization: `Bearer ${tok.acmeAdmin}` } });
  try {
    const r = await call(c.client, 'index_repo', { path: path.join(B.root, 'src') });
    assert.equal(r.ok, false);
    assert.equal(r.code, 'root_forbidden', r.text);
  } finally {
    await c.close();
  }
  assertAudited(n, 'index_repo', 'root_forbidden', 'MCP index_repo');
  n = count();
  const d = await httpClient(serve, { roots: [path.join(B.root, 'src')], headers: { authorization: `Bearer ${tok.acmeAdmin}` } });
  try {
    const r = await call(d.client, 'search_code', { query: B.canary });
    assert.equal(r.ok, false);
    assert.equal(r.code, 'root_forbidden', r.text);
    assert.ok(!r.text.includes(`${B.canary}_main`), r.text);
  } finally {
    await d.close();
  }
  assertAudited(n, 'search_code', 'root_forbidden', 'client root');
});

test('the command line: the data directory and another tenant\'s repo are refused', async () => {
  for (const [args, what] of [
    [['index', world.home, '--quiet'], 'data dir (local)'],
    [['index', path.dirname(world.home), '--quiet'], 'parent of the data dir (local)'],
    [['index', path.join(B.root, 'src'), '--quiet'], "inside globex's repo (local)"],
    [['index', outside, '--tenant', 'acme', '--quiet'], "outside acme's roots"],
  ]) {
    const r = mg(args);
    assert.equal(r.status, 1, `${what}: ${r.stderr}`);
    assert.match(r.stderr, /error\[root_forbidden\]/, what);
  }
  // the local tenant may still index elsewhere (today's behaviour)
  const r = mg(['index', outside, '--quiet']);
  assert.equal(r.status, 0, r.stderr);
});

test('the audit chain verifies', () => {
  const r = mg(['audit', '--verify']);
  assert.equal(r.status, 0, r.stdout + r.stderr);
});
