// storage_down_pg.test.mjs — PostgreSQL goes away under a running `memgate
// serve` and comes back (issue 22, part sessions): the calls that need it
// answer 503 storage_unavailable with Retry-After (a token, which lives in
// the database, cannot be checked: MCP and /metrics too), /readyz answers 503
// while /healthz stays 200, `memgate status` exits 1; once the
// database is back everything answers again without restarting memgate, and
// nothing acknowledged before the outage is lost. The cluster is this file's
// own (scripts/pg.sh in a temporary directory), so stopping it disturbs no
// other test.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { MEMGATE_BIN, REPO_ROOT, call2026, makeRepo, makeWorld, runMemgate, sleep, startServe, v1 } from './lib/harness.mjs';

const PG_SH = path.join(REPO_ROOT, 'scripts', 'pg.sh');
let dir;
let url;
let world;
let serve;
let repo;
const tok = {};
const SID = `pg-outage-${process.pid}`;
let handle;

const pg = (what) => execFileSync(PG_SH, [what, dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });

const mg = (args) => runMemgate(world, args);

const mcp = (name, args) => call2026(serve, name, args, { token: tok.acme });

const withSession = (opts = {}) => ({ token: tok.acme, ...opts, headers: { 'x-session-id': SID, ...(opts.headers || {}) } });

async function scrape() {
  const res = await fetch(`${serve.url}/metrics`, { headers: { authorization: `Bearer ${tok.admin}` } });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  const value = (name) => Number((new RegExp(`^${name.replace(/[{}"]/g, '\\$&')} (\\S+)$`, 'm').exec(text) || [])[1]);
  return { text, value };
}

/** Poll /readyz until it answers status (or the time runs out): the last answer. */
async function readyz(status, ms) {
  let r;
  for (const t0 = Date.now(); Date.now() - t0 < ms; await sleep(100)) {
    r = await v1(serve, '/readyz');
    if (r.status === status) break;
  }
  return r;
}

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'memgate-pgdown-'));
  url = pg('start').trim();
  world = makeWorld('pgdown');
  world.env.MEMGATE_STORAGE = url;
  world.env.MEMGATE_INDEX_ROOTS = 'acme:/tmp';
  repo = makeRepo(world, 'alpha');
  execFileSync(MEMGATE_BIN, ['index', repo.root, '--name', 'alpha', '--tenant', 'acme', '--quiet'], { env: world.env, cwd: world.cwd });
  tok.acme = JSON.parse(mg(['token', 'create', '--tenant', 'acme', '--scope', 'write', '--json']).stdout).token;
  tok.admin = JSON.parse(mg(['token', 'create', '--tenant', 'acme', '--scope', 'admin', '--json']).stdout).token;
  serve = await startServe(world);
});

after(async () => {
  if (serve) {
    const st = await serve.stop();
    assert.equal(st.code, 0, serve.stderr());
  }
  world?.cleanup();
  if (dir) execFileSync(PG_SH, ['rm', dir], { stdio: 'ignore' });
});

test('before: what is acknowledged is stored, and the daemon is ready', async () => {
  let r = await v1(serve, '/v1/scope', withSession({ method: 'PUT', body: { globs: ['src/**'] } }));
  assert.equal(r.status, 200, r.text);
  r = await v1(serve, '/v1/notes', withSession({ method: 'POST', body: { key: 'outage-note', value: 'kept through the outage' } }));
  assert.ok(r.status === 201 || r.status === 200, r.text);
  const opened = await mcp('open_handle', { repo: 'alpha' });
  assert.ok(!opened.result.isError, JSON.stringify(opened));
  handle = opened.result.structuredContent.handle;
  const set = await mcp('set_scope', { handle, globs: ['web/**'] });
  assert.ok(!set.result.isError, JSON.stringify(set));
  assert.equal((await readyz(200, 3000)).status, 200);
  assert.equal((await scrape()).value('memgate_storage_up'), 1);
});

test('PostgreSQL down: 503 storage_unavailable with Retry-After, /readyz 503, /healthz 200', async () => {
  pg('stop');
  const t0 = Date.now();
  for (const [p, opts] of [
    ['/v1/scope', withSession()],
    [`/v1/search?q=${repo.canary}`, withSession()],
    ['/v1/notes', withSession({ method: 'POST', body: { key: 'during', value: 'not acknowledged' } })],
    ['/v1/scope', { token: tok.acme, method: 'PUT', headers: { 'x-session-id': `${SID}-new` }, body: { globs: ['x/**'] } }],
  ]) {
    const r = await v1(serve, p, opts);
    assert.equal(r.status, 503, `${p}: ${r.text}`);
    assert.equal(r.json.error.code, 'storage_unavailable', r.text);
    assert.equal(r.headers.get('retry-after'), '1');
    assert.doesNotMatch(r.text, /password/);
  }
  // an MCP call: its token cannot be checked (the tokens are in the database), so the transport
  // answers 503 with a JSON-RPC error carrying the code
  const c = await mcp('search_code', { handle, query: repo.canary });
  assert.equal(c.status, 503, c.text);
  assert.equal(JSON.parse(c.text).error.data.code, 'storage_unavailable', c.text);
  // refusals are still answered (and audited) at once
  const bad = await v1(serve, '/v1/scope', { token: 'mgt_not_a_token', headers: { 'x-session-id': SID } });
  assert.equal(bad.status, 401, bad.text);
  assert.ok(Date.now() - t0 < 10000, `the failing calls took ${Date.now() - t0} ms`);

  const ready = await readyz(503, 3000);
  assert.equal(ready.status, 503, ready.text);
  assert.equal(ready.json.ready, false);
  assert.equal(ready.json.reason, 'storage_unavailable');
  assert.equal(ready.headers.get('retry-after'), '1');
  assert.doesNotMatch(ready.text, new RegExp(dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))); // no URL on an open route
  const health = await v1(serve, '/healthz');
  assert.equal(health.status, 200, health.text);
  // /metrics takes the admin token, which cannot be checked now: the scrape fails visibly (503), and
  // the errors are counted for the scrape after (next test)
  const m = await fetch(`${serve.url}/metrics`, { headers: { authorization: `Bearer ${tok.admin}` } });
  assert.equal(m.status, 503, await m.text());
  assert.equal(m.headers.get('retry-after'), '1');
  // the command line: error[storage_unavailable], exit 1
  const st = mg(['status']);
  assert.equal(st.status, 1, st.stdout + st.stderr);
  assert.match(st.stderr, /^error\[storage_unavailable\]: /m);
});

test('PostgreSQL back: ready again without a restart, and nothing acknowledged was lost', async () => {
  pg('restart');
  const ready = await readyz(200, 15000);
  assert.equal(ready.status, 200, ready.text);
  assert.equal(ready.json.ready, true);
  const m = await scrape();
  assert.equal(m.value('memgate_storage_up'), 1);
  assert.ok(m.value('memgate_storage_errors_total{code="storage_unavailable"}') > 0, m.text);
  let r = await v1(serve, '/v1/scope', withSession());
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.json.scope.globs, ['src/**']);
  r = await v1(serve, '/v1/notes/outage-note', withSession());
  assert.equal(r.status, 200, r.text);
  assert.match(r.text, /kept through the outage/);
  const c = await mcp('search_code', { handle, query: repo.canary });
  assert.ok(!c.result.isError, JSON.stringify(c.result));
  assert.deepEqual(c.result.structuredContent.scope.globs, ['web/**']);
  r = await v1(serve, `/v1/search?q=${repo.canary}`, withSession());
  assert.equal(r.status, 200, r.text);
  for (const hit of r.json.results) assert.match(hit.path, /^src\//);
  assert.equal(mg(['status']).status, 0);
});
