// confine.test.mjs — a tenant's working copy reaches nothing outside it
// (docs/security.md, "Working copies"): issue 38's V1 and V2, through a real
// `memgate serve` with tokens of two tenants and real files.
//
// V1: a `.git` *file* in acme's working copy says `gitdir: <globex's
// repo>/.git`. memgate must not read globex's history through it: `impact`
// with revisions is refused and names nothing of globex's, and the walk
// lists acme's own files only (as a plain directory). The same for a
// commondir file and for objects borrowed through objects/info/alternates.
//
// V2: a hard link in acme's working copy to a file of globex's, made before
// indexing or while the server watches, is never indexed nor served:
// search, read_file and get_context know nothing of it, and the walk counts
// it with the links.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { call, makeWorld, MEMGATE_BIN, shutdown, sleep, startServe } from './lib/harness.mjs';

let world;
let serve;
let acme; // acme's MCP client (admin token)
let globexRoot;
let acmeRoot;
let hardlinkStats; // `memgate index --json` of the copy holding a hard link
const SECRET_FN = 'globex_private_ledger_total';
const SECRET_TEXT = 'GLOBEX_ONLY_MARKER_kq82';

function mg(args) {
  const r = spawnSync(MEMGATE_BIN, args, { env: world.env, cwd: world.cwd, encoding: 'utf8' });
  return r;
}

function git(root, ...args) {
  return execFileSync('git', ['-C', root, '-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function write(root, rel, text) {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
}

async function client(token) {
  const c = new Client({ name: 'confine-test', version: '1.0.0' }, { capabilities: {} });
  const t = new StreamableHTTPClientTransport(new URL(serve.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  await c.connect(t);
  return c;
}

/** Every text of a tool's answer, error or not. */
async function answer(name, args) {
  const r = await call(acme, name, args);
  return { ...r, all: JSON.stringify(r.raw) };
}

/** An acme working copy with its own files, indexed under acme. */
function acmeCopy(name, files) {
  const root = path.join(world.dir, 'acme', name);
  for (const [rel, text] of Object.entries(files)) write(root, rel, text);
  return root;
}

function index(root, name, tenant) {
  const r = mg(['index', root, '--name', name, '--tenant', tenant, '--json']);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

before(async () => {
  world = makeWorld('confine');
  world.env.MEMGATE_INDEX_ROOTS = `acme:${path.join(world.dir, 'acme')}, globex:${path.join(world.dir, 'globex')}`;
  // globex's repository: two commits to a private ledger
  globexRoot = path.join(world.dir, 'globex', 'ledger');
  write(globexRoot, 'ledger_private.c', `/* ${SECRET_TEXT} */\nint ${SECRET_FN}(int a)\n{\n    return a + 1;\n}\n`);
  write(globexRoot, 'notes.txt', `globex private notes ${SECRET_TEXT}\n`);
  execFileSync('git', ['init', '-q', '-b', 'main', globexRoot]);
  git(globexRoot, 'add', '-A');
  git(globexRoot, 'commit', '-qm', 'one');
  write(globexRoot, 'ledger_private.c', `/* ${SECRET_TEXT} */\nint ${SECRET_FN}(int a)\n{\n    return a + 2;\n}\n`);
  git(globexRoot, 'commit', '-qam', 'two');
  index(globexRoot, 'ledger', 'globex');

  // V1: acme's copy whose .git is a file naming globex's git directory
  acmeRoot = acmeCopy('gitlink', { 'ledger.c': 'int acme_own_function(void) { return 0; }\n' });
  fs.writeFileSync(path.join(acmeRoot, '.git'), `gitdir: ${path.join(globexRoot, '.git')}\n`);
  index(acmeRoot, 'gitlink', 'acme');
  // a commondir file: a .git directory that takes its objects and refs from globex's
  const cd = acmeCopy('commondir', { 'ledger.c': 'int acme_second(void) { return 0; }\n' });
  fs.mkdirSync(path.join(cd, '.git'));
  fs.writeFileSync(path.join(cd, '.git', 'commondir'), `${path.join(globexRoot, '.git')}\n`);
  fs.writeFileSync(path.join(cd, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  index(cd, 'commondir', 'acme');
  // alternates: acme's own repository borrowing globex's objects
  const alt = acmeCopy('alternates', { 'a.c': 'int acme_third(void) { return 0; }\n' });
  execFileSync('git', ['init', '-q', '-b', 'main', alt]);
  git(alt, 'add', '-A');
  git(alt, 'commit', '-qm', 'acme');
  fs.writeFileSync(path.join(alt, '.git', 'objects', 'info', 'alternates'), `${path.join(globexRoot, '.git', 'objects')}\n`);
  const globexHead = git(globexRoot, 'rev-parse', 'HEAD').trim();
  git(alt, 'update-ref', 'refs/heads/borrowed', globexHead);
  index(alt, 'alternates', 'acme');

  // V2: a hard link to globex's file, there before indexing
  const hl = acmeCopy('hardlink', { 'own.txt': 'acme own text\n' });
  fs.linkSync(path.join(globexRoot, 'notes.txt'), path.join(hl, 'borrowed.txt'));
  hardlinkStats = index(hl, 'hardlink', 'acme');

  const t = mg(['token', 'create', '--tenant', 'acme', '--scope', 'admin', '--json']);
  assert.equal(t.status, 0, t.stderr);
  serve = await startServe(world);
  acme = await client(JSON.parse(t.stdout).token);
});

after(async () => {
  await acme?.close();
  await shutdown([], serve);
  world.cleanup();
});

for (const [repo, revisions] of [
  ['gitlink', 'HEAD~1..HEAD'],
  ['commondir', 'HEAD~1..HEAD'],
  ['alternates', 'borrowed~1..borrowed'],
]) {
  test(`V1 ${repo}: impact with revisions reads no other repository's history`, async () => {
    const r = await answer('impact', { repo, revisions });
    assert.equal(r.ok, false, `impact answered from another repository's history: ${r.all.slice(0, 600)}`);
    assert.equal(r.code, 'invalid_revision', r.text);
    assert.ok(!r.all.includes(SECRET_FN) && !r.all.includes('ledger_private') && !r.all.includes(globexRoot), r.all);
  });
}

test('V1: the gitlink copy is walked as a plain directory: its own files, not the index of the repository the link names', async () => {
  const files = await answer('list_files', { repo: 'gitlink' });
  assert.equal(files.ok, true, files.text);
  const paths = files.data.files.map((f) => f.path);
  assert.deepEqual(paths, ['ledger.c'], JSON.stringify(paths));
  const s = await answer('search_code', { repo: 'gitlink', query: SECRET_FN });
  assert.ok(!s.all.includes(SECRET_TEXT), s.all);
});

test('V2: a hard link to another tenant\'s file is never indexed nor served', async () => {
  for (const [tool, args] of [
    ['search_code', { repo: 'hardlink', query: SECRET_TEXT }],
    ['search_code', { repo: 'hardlink', query: 'globex private notes' }],
    ['read_file', { repo: 'hardlink', path: 'borrowed.txt' }],
    ['get_context', { repo: 'hardlink', query: 'globex private notes' }],
    ['list_files', { repo: 'hardlink' }],
  ]) {
    const r = await answer(tool, args);
    assert.ok(!r.all.includes(SECRET_TEXT), `${tool}: ${r.all.slice(0, 600)}`);
    if (tool !== 'read_file') assert.ok(!r.all.includes('borrowed.txt'), `${tool}: ${r.all.slice(0, 600)}`);
  }
  assert.ok(hardlinkStats.skipped.symlink >= 1, `the hard link is counted with the links: ${JSON.stringify(hardlinkStats.skipped)}`);
});

test('V2: a hard link made while the server watches is not picked up, and one that replaces an indexed file is not served', async () => {
  const hl = path.join(world.dir, 'acme', 'hardlink');
  // the watcher sees a new file (a marker proves it ran) and a new hard link
  write(hl, 'fresh.txt', 'acme fresh marker zq41\n');
  fs.linkSync(path.join(globexRoot, 'ledger_private.c'), path.join(hl, 'late.c'));
  const deadline = Date.now() + 20000;
  for (;;) {
    const s = await answer('search_code', { repo: 'hardlink', query: 'zq41' });
    if (s.ok && s.data.results.length) break;
    assert.ok(Date.now() < deadline, 'the watcher did not index fresh.txt within 20 s');
    await sleep(200);
  }
  await sleep(1500); // one more batch of the watcher
  for (const q of [SECRET_FN, SECRET_TEXT]) {
    const s = await answer('search_code', { repo: 'hardlink', query: q });
    assert.ok(!s.all.includes(SECRET_TEXT) && !s.all.includes('late.c'), s.all.slice(0, 600));
  }
  const rf = await answer('read_file', { repo: 'hardlink', path: 'late.c' });
  assert.equal(rf.ok, false);
  assert.ok(!rf.all.includes(SECRET_TEXT), rf.all);
  // an indexed file of acme's own replaced by a hard link: read_file reads the disk, and refuses
  fs.unlinkSync(path.join(hl, 'own.txt'));
  fs.linkSync(path.join(globexRoot, 'notes.txt'), path.join(hl, 'own.txt'));
  const own = await answer('read_file', { repo: 'hardlink', path: 'own.txt' });
  assert.ok(!own.all.includes(SECRET_TEXT), own.all.slice(0, 600));
});
