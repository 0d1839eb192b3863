// sessions_pg.test.mjs — sessions and handles across daemons (issue 22, part
// sessions): two `memgate serve`, each on its own data directory, one
// PostgreSQL database (storage). Consecutive calls of one client land on
// either daemon, as behind a load balancer: an X-Session-Id's scope set on
// one applies on the other, a clear on the other is seen by the first, a
// handle opened on one works on the other (MCP 2026-07-28, stateless), a
// session of tenant acme is refused to a globex token, idle expiry holds
// across daemons, and an Mcp-Session-Id stays with the daemon that issued it
// (404 elsewhere: the client re-initialises; HAProxy routes it by the header).
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { call2026, makeRepo, makeWorld, MEMGATE_BIN, pgDatabase, pgSql, sleep, startServe, v1 } from './lib/harness.mjs';

let url;
let wa, wb; // the two data directories
let A, B; // the daemons
let repo;
const tok = { a: {}, b: {} }; // tokens by daemon, then tenant

function mg(world, args) {
  const r = spawnSync(MEMGATE_BIN, args, { env: world.env, cwd: world.cwd, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

/** A token of tenant made with the data directory of world (the token store is the shared database's). */
const token = (world, tenant) => JSON.parse(mg(world, ['token', 'create', '--tenant', tenant, '--scope', 'write', '--json'])).token;

function world(tag) {
  const w = makeWorld(tag);
  w.env.MEMGATE_STORAGE = url;
  w.env.MEMGATE_INDEX_ROOTS = `acme:/tmp, globex:/tmp`;
  // every daemon of one database has the same token pepper (docs/deploy.md, "Tokens"): the first's
  const first = wa && path.join(wa.home, 'token.pepper');
  if (first && fs.existsSync(first)) {
    fs.copyFileSync(first, path.join(w.home, 'token.pepper'));
    fs.chmodSync(path.join(w.home, 'token.pepper'), 0o600);
  }
  return w;
}

const sid = (tag) => `pg-${tag}-${Math.random().toString(36).slice(2, 10)}`;

/** A stateless MCP 2026-07-28 tools/call: the result. */
async function mcp2026(serve, tkn, name, args) {
  const r = await call2026(serve, name, args, { token: tkn });
  assert.equal(r.status, 200, r.text);
  return r.result;
}

const errCode = (result) => result._meta?.['memgate/error']?.code;

before(async () => {
  url = pgDatabase('sessions');
  wa = world('sess-a');
  wb = world('sess-b');
  repo = makeRepo(wa, 'alpha');
  // the same repo in both homes: each daemon keeps its own index of it
  for (const w of [wa, wb]) execFileSync(MEMGATE_BIN, ['index', repo.root, '--name', 'alpha', '--tenant', 'acme', '--quiet'], { env: w.env, cwd: w.cwd });
  tok.a.acme = token(wa, 'acme');
  fs.copyFileSync(path.join(wa.home, 'token.pepper'), path.join(wb.home, 'token.pepper')); // (wb was made before A's pepper)
  fs.chmodSync(path.join(wb.home, 'token.pepper'), 0o600);
  tok.b.acme = token(wb, 'acme');
  tok.b.globex = token(wb, 'globex');
  [A, B] = await Promise.all([startServe(wa), startServe(wb)]);
});

after(async () => {
  for (const s of [A, B]) if (s) await s.stop();
  wa?.cleanup();
  wb?.cleanup();
});

test('a scope set through one daemon applies on the other; cleared there, the first sees it cleared', async () => {
  const id = sid('scope');
  const h = (t) => ({ token: t, headers: { 'x-session-id': id } });
  let r = await v1(A, '/v1/scope', { ...h(tok.a.acme), method: 'PUT', body: { globs: ['src/**'], languages: ['c'] } });
  assert.equal(r.status, 200, r.text);
  r = await v1(B, `/v1/search?q=${repo.canary}`, h(tok.b.acme));
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.json.scope.globs, ['src/**']);
  assert.ok(r.json.results.length > 0, r.text);
  for (const hit of r.json.results) assert.equal(hit.path, 'src/main.c', r.text);
  r = await v1(B, '/v1/scope', { ...h(tok.b.acme), method: 'DELETE' });
  assert.equal(r.status, 200, r.text);
  r = await v1(A, '/v1/scope', h(tok.a.acme));
  assert.deepEqual(r.json.scope, { globs: [], exclude_globs: [], languages: [], repos: [] });
  r = await v1(A, `/v1/search?q=${repo.canary}`, h(tok.a.acme));
  assert.ok(r.json.results.some((x) => x.path !== 'src/main.c'), r.text);
  // the row is in the database, under its tenant
  assert.equal(pgSql(url, `SELECT tenant FROM memgate_sessions WHERE id = '${id}'`).trim(), 'acme');
});

test('a handle opened on one daemon works on the other (stateless 2026-07-28)', async () => {
  const opened = await mcp2026(A, tok.a.acme, 'open_handle', { repo: 'alpha' });
  assert.ok(!opened.isError, JSON.stringify(opened));
  const handle = opened.structuredContent.handle;
  let r = await mcp2026(B, tok.b.acme, 'set_scope', { handle, globs: ['web/**'] });
  assert.ok(!r.isError, JSON.stringify(r));
  r = await mcp2026(A, tok.a.acme, 'search_code', { handle, query: repo.canary });
  assert.ok(!r.isError, JSON.stringify(r));
  assert.deepEqual(r.structuredContent.scope.globs, ['web/**']);
  assert.ok(r.structuredContent.results.length > 0);
  for (const hit of r.structuredContent.results) assert.equal(hit.path, 'web/app.js');
  // another tenant's token: the handle does not exist for it, on either daemon
  r = await mcp2026(B, tok.b.globex, 'search_code', { handle, query: repo.canary });
  assert.ok(r.isError);
  assert.equal(errCode(r), 'handle_invalid');
});

test("a session id is its tenant's own on every daemon: globex naming acme's id gets a session of its own, acme's stays acme's", async () => {
  const id = sid('tenant');
  // globex names the id first on daemon B (squatting it, on a shared table keyed by id alone)
  let r = await v1(B, '/v1/scope', { token: tok.b.globex, method: 'PUT', headers: { 'x-session-id': id }, body: { globs: ['web/**'] } });
  assert.equal(r.status, 200, r.text);
  r = await v1(A, '/v1/scope', { token: tok.a.acme, method: 'PUT', headers: { 'x-session-id': id }, body: { globs: ['lib/**'] } });
  assert.equal(r.status, 200, r.text);
  r = await v1(B, '/v1/scope', { token: tok.b.globex, headers: { 'x-session-id': id } });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.json.scope.globs, ['web/**'], "globex sees its own scope, none of acme's");
  r = await v1(B, '/v1/scope', { token: tok.b.globex, method: 'DELETE', headers: { 'x-session-id': id } });
  assert.equal(r.status, 200, r.text);
  r = await v1(B, '/v1/scope', { token: tok.b.acme, headers: { 'x-session-id': id } });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.json.scope.globs, ['lib/**']);
});

test('an MCP session stays with its daemon: another answers 404, so the client initialises again', async () => {
  const init = await fetch(A.mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${tok.a.acme}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'sessions-pg', version: '1' } } }),
  });
  assert.equal(init.status, 200, await init.text());
  const mcpSid = init.headers.get('mcp-session-id');
  assert.ok(mcpSid);
  const other = await fetch(B.mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${tok.b.acme}`, 'mcp-session-id': mcpSid, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
  });
  assert.equal(other.status, 404, await other.text());
});

test('idle expiry holds across daemons', async () => {
  // a pair of daemons with session_ttl 3 s on the same database
  const wc = world('sess-c'), wd = world('sess-d');
  const tc = token(wc, 'acme'), td = token(wd, 'acme');
  const env = { MEMGATE_SESSION_TTL: '3', MEMGATE_SESSION_PRUNE_INTERVAL: '1' };
  const [C, D] = await Promise.all([startServe(wc, [], env), startServe(wd, [], env)]);
  try {
    const id = sid('idle');
    const on = (s, t, opts = {}) => v1(s, '/v1/scope', { token: t, headers: { 'x-session-id': id }, ...opts });
    let r = await on(C, tc, { method: 'PUT', body: { globs: ['docs/**'] } });
    assert.equal(r.status, 200, r.text);
    // used every 1.5 s, alternately on D and C: each use keeps it alive for the other daemon too
    for (let i = 0; i < 4; i++) {
      await sleep(1500);
      r = await on(i % 2 ? C : D, i % 2 ? tc : td);
      assert.equal(r.status, 200, `use ${i}: ${r.text}`);
      assert.deepEqual(r.json.scope.globs, ['docs/**']);
    }
    // idle 4 s (past the ttl, before the purge of its tombstone at twice the ttl): expired on both
    await sleep(4000);
    for (const [s, t] of [[D, td], [C, tc]]) {
      r = await on(s, t);
      assert.equal(r.status, 404, r.text);
      assert.equal(r.json.error.code, 'session_expired');
    }
  } finally {
    await Promise.all([C.stop(), D.stop()]);
    wc.cleanup();
    wd.cleanup();
  }
});
