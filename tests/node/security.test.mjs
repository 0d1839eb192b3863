// security.test.mjs — adversarial inputs through MCP (stdio and Streamable
// HTTP, the official SDK) and the HTTP API, against `memgate serve` with
// tokens: every refusal has its status and error code, and leaves an audit
// event; the audit chain verifies at the end.
//
// The same tests run with the shared PostgreSQL store: security_pg.test.mjs
// sets globalThis.MEMGATE_STORAGE = 'pg' and imports this file, so tokens,
// revocation, expiry and rate limits come from a fresh database (storage =
// postgres://..., docs/security.md "Tokens on PostgreSQL").
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { call, makeRepo, makeWorld, MEMGATE_BIN, pgDatabase, shutdown, sleep, startServe, stdioClient, v1 } from './lib/harness.mjs';

const PG = globalThis.MEMGATE_STORAGE === 'pg';

let world;
let serve;
let A; // tenant acme
let B; // tenant globex
const tok = {};

function mg(args, opts = {}) {
  return spawnSync(MEMGATE_BIN, args, { env: world.env, cwd: world.cwd, encoding: 'utf8', ...opts });
}

function token(tenant, extra = []) {
  const r = mg(['token', 'create', '--tenant', tenant, '--json', ...extra]);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

/** The audit events (JSON lines) written after `since` events. */
function auditEvents() {
  const r = mg(['audit', '--json', '--limit', '0']);
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

/** Assert a new audit event with this op and code appeared since n events. */
function assertAudited(n, op, code) {
  const ev = auditEvents().slice(n);
  assert.ok(ev.some((e) => e.op === op && (code === undefined || e.code === code)),
    `no audit event op=${op} code=${code} among ${JSON.stringify(ev.map((e) => [e.op, e.code]))}`);
}

const count = () => auditEvents().length;

const api = (p, opts) => v1(serve, p, opts);

async function mcpClient(t, name = 'security-test') {
  const client = new Client({ name, version: '1.0.0' }, { capabilities: {} });
  const transport = new StreamableHTTPClientTransport(new URL(serve.mcpUrl), {
    requestInit: { headers: { authorization: `Bearer ${t}` } },
  });
  await client.connect(transport);
  return { client, transport, close: () => client.close() };
}

before(async () => {
  world = makeWorld('security');
  if (PG) world.env.MEMGATE_DATABASE_URL = pgDatabase('security');
  world.env.MEMGATE_INDEX_ROOTS = `acme:${world.dir}, globex:${world.dir}`;
  A = makeRepo(world, 'alpha');
  B = makeRepo(world, 'globexrepo');
  execFileSync(MEMGATE_BIN, ['index', A.root, '--name', 'alpha', '--tenant', 'acme', '--quiet'], { env: world.env, cwd: world.cwd });
  execFileSync(MEMGATE_BIN, ['index', B.root, '--name', 'globexrepo', '--tenant', 'globex', '--quiet'], { env: world.env, cwd: world.cwd });
  tok.acmeRead = token('acme').token;
  tok.acmeAdmin = token('acme', ['--scope', 'admin']).token;
  tok.acmeOnlyOther = token('acme', ['--repos', 'nothere']).token;
  tok.globex = token('globex').token;
  tok.slow = token('acme', ['--rate', '6']).token;
  const revoked = token('acme');
  assert.equal(mg(['token', 'revoke', revoked.id]).status, 0);
  tok.revoked = revoked.token;
  tok.expired = token('acme', ['--expires', '1s']).token;
  serve = await startServe(world);
  await sleep(1100); // let the 1 s token expire
});

after(async () => {
  await shutdown([], serve);
  world.cleanup();
});

test('no token, a bad scheme, garbage, revoked and expired tokens: 401 with WWW-Authenticate, audited', async () => {
  const cases = [
    [{}, 'unauthorized'],
    [{ headers: { authorization: 'Basic dXNlcjpwYXNz' } }, 'unauthorized'],
    [{ token: 'mgt_0000000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }, 'token_invalid'],
    [{ token: tok.acmeRead.slice(0, -1) + (tok.acmeRead.endsWith('A') ? 'B' : 'A') }, 'token_invalid'],
    [{ token: tok.revoked }, 'token_revoked'],
    [{ token: tok.expired }, 'token_expired'],
  ];
  for (const [opts, code] of cases) {
    const n = count();
    const r = await api('/v1/repos', opts);
    assert.equal(r.status, 401, `${code}: ${r.text}`);
    assert.match(r.headers.get('www-authenticate') || '', /^Bearer realm="memgate"/);
    assert.equal(r.json.error.code, code);
    assertAudited(n, 'auth_fail', code);
  }
  // the same on /mcp
  const r = await fetch(serve.mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
  assert.equal(r.status, 401);
  assert.match(r.headers.get('www-authenticate') || '', /^Bearer/);
});

test('a token in the query string is refused (400), even a valid one', async () => {
  for (const q of [`access_token=${tok.acmeRead}`, `token=${tok.acmeRead}`, `q=x&x=${tok.acmeRead}`]) {
    const n = count();
    const r = await api(`/v1/search?${q}`, { token: tok.acmeRead });
    assert.equal(r.status, 400, r.text);
    assert.equal(r.json.error.code, 'token_in_query');
    assertAudited(n, 'auth_fail', 'token_in_query');
  }
});

test('huge headers: 431, audited; the server keeps serving', async () => {
  const n = count();
  const r = await api('/v1/repos', { token: tok.acmeRead, headers: { 'x-memgate-repo': 'a'.repeat(20000) } });
  assert.equal(r.status, 431, r.text);
  assert.equal(r.json.error.code, 'header_too_large');
  assertAudited(n, 'request_refused', 'header_too_large');
  const many = {};
  for (let i = 0; i < 40; i++) many[`x-pad-${i}`] = 'p'.repeat(2000);
  assert.equal((await api('/v1/repos', { token: tok.acmeRead, headers: many })).status, 431);
  assert.equal((await api('/v1/repos', { token: tok.acmeRead })).status, 200);
});

test("another tenant's repo id: not found, in every argument and header, over HTTP and MCP", async () => {
  const ok = await api('/v1/repos', { token: tok.acmeRead });
  assert.deepEqual(ok.json.repos.map((r) => r.id), ['alpha']);
  const routes = [['/v1/search?q=canary&repo=globexrepo', 'search_code'], ['/v1/files?repo_id=globexrepo', 'list_files'],
    ['/v1/file?path=README.md&repo=globexrepo', 'read_file'], ['/v1/outline?path=src/main.c&repo=globexrepo', 'outline'],
    ['/v1/references?symbol=main&repo=globexrepo', 'find_references'], ['/v1/callers?symbol=main&repo=globexrepo', 'callers'],
    ['/v1/callees?symbol=main&repo=globexrepo', 'callees'], ['/v1/trace?from=main&to=main&repo=globexrepo', 'trace_path'],
    ['/v1/impact?path=src/main.c&repo=globexrepo', 'impact'],
    ['/v1/repo_map?budget_tokens=256&repo=globexrepo', 'repo_map'],
    ['/v1/index/status?repo=globexrepo', 'index_status']];
  for (const [p, op] of routes) {
    const n = count();
    const r = await api(p, { token: tok.acmeRead });
    assert.equal(r.status, 404, `${p}: ${r.text}`);
    assert.equal(r.json.error.code, 'repo_not_found');
    assert.ok(!r.text.includes('globexrepo",') && !JSON.stringify(r.json.error.repos || []).includes('globexrepo'), r.text);
    assertAudited(n, op, 'repo_not_found');
  }
  const own = await api('/v1/outline?path=src/main.c', { token: tok.acmeRead });
  assert.equal(own.status, 200, own.text);
  assert.deepEqual(own.json.symbols.map((s) => s.name), [`${A.canary}_main`, `${A.canary}_helper`]);
  assert.ok(!own.text.includes(B.canary), own.text);
  const h = await api('/v1/search?q=canary', { token: tok.acmeRead, headers: { 'x-memgate-repo': 'globexrepo' } });
  assert.equal(h.json.error.code, 'repo_not_found');
  const c = await mcpClient(tok.acmeRead);
  try {
    const r = await call(c.client, 'search_code', { query: B.canary, repo: 'globexrepo' });
    assert.equal(r.code, 'repo_not_found');
    const s = await call(c.client, 'set_scope', { repos: ['globexrepo'] });
    assert.equal(s.code, 'repo_not_found');
    const mine = await call(c.client, 'search_code', { query: A.canary });
    assert.ok(mine.ok && mine.data.results.length > 0);
    assert.ok(!JSON.stringify(mine.data).includes(B.canary));
  } finally {
    await c.close();
  }
});

test('token repo allowlist and scopes: 403 repo_forbidden, scope_forbidden', async () => {
  let n = count();
  let r = await api('/v1/search?q=canary&repo=alpha', { token: tok.acmeOnlyOther });
  assert.equal(r.status, 403, r.text);
  assert.equal(r.json.error.code, 'repo_forbidden');
  assertAudited(n, 'search_code', 'repo_forbidden');
  n = count();
  r = await api('/v1/outline?path=src/main.c&repo=alpha', { token: tok.acmeOnlyOther });
  assert.equal(r.status, 403, r.text);
  assert.equal(r.json.error.code, 'repo_forbidden');
  assertAudited(n, 'outline', 'repo_forbidden');
  n = count();
  r = await api('/v1/index', { token: tok.acmeRead, method: 'POST', body: { path: A.root } });
  assert.equal(r.status, 403, r.text);
  assert.equal(r.json.error.code, 'scope_forbidden');
  assertAudited(n, 'index_repo', 'scope_forbidden');
  r = await api('/v1/audit', { token: tok.acmeRead });
  assert.equal(r.status, 403);
  r = await api('/metrics', { token: tok.acmeRead });
  assert.equal(r.status, 403);
  // an admin of acme may not index a directory that another tenant owns (more in roots.test.mjs)
  n = count();
  r = await api('/v1/index', { token: tok.acmeAdmin, method: 'POST', body: { path: B.root } });
  assert.equal(r.status, 403, r.text);
  assert.equal(r.json.error.code, 'root_forbidden');
  assertAudited(n, 'index_repo', 'root_forbidden');
});

test("a session is its tenant's: another tenant's token cannot use its id", async () => {
  const c = await mcpClient(tok.acmeRead);
  try {
    const sid = c.transport.sessionId;
    assert.ok(sid);
    let n = count();
    const r = await fetch(serve.mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${tok.globex}`, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'list_repos', arguments: {} } }),
    });
    assert.equal(r.status, 404);
    assertAudited(n, 'request_refused', 'session_not_found');
    n = count();
    const del = await fetch(serve.mcpUrl, { method: 'DELETE', headers: { authorization: `Bearer ${tok.globex}`, 'mcp-session-id': sid } });
    assert.equal(del.status, 404);
    assertAudited(n, 'request_refused', 'session_not_found');
    // X-Session-Id names the caller's tenant's own session: another tenant naming the same id gets a
    // session of its own, neither sees the other's scope, and neither can take an id before the other
    const api1 = await api('/v1/scope', { token: tok.acmeRead, method: 'PUT', headers: { 'x-session-id': 'shared-session-id-1' }, body: { globs: ['src/**'] } });
    assert.equal(api1.status, 200, api1.text);
    const api2 = await api('/v1/scope', { token: tok.globex, headers: { 'x-session-id': 'shared-session-id-1' } });
    assert.equal(api2.status, 200, api2.text);
    assert.deepEqual(api2.json.scope.globs || [], [], 'globex sees none of acme\'s scope');
    const api3 = await api('/v1/scope', { token: tok.acmeRead, headers: { 'x-session-id': 'shared-session-id-1' } });
    assert.deepEqual(api3.json.scope.globs, ['src/**'], 'acme\'s session is still acme\'s');
  } finally {
    await c.close();
  }
});

test('session-id squatting: an X-Session-Id another tenant named first is still the caller\'s own', async () => {
  // globex guesses the id acme's agent will choose and names it first, with a scope of its own
  const id = 'acme-agent-7.task-42';
  const squat = await api('/v1/scope', { token: tok.globex, method: 'PUT', headers: { 'x-session-id': id }, body: { globs: ['docs/**'] } });
  assert.equal(squat.status, 200, squat.text);
  // acme's agent then uses its id as usual: its own session, not a 404, and not globex's scope
  const mine = await api('/v1/scope', { token: tok.acmeRead, method: 'PUT', headers: { 'x-session-id': id }, body: { globs: ['src/**'] } });
  assert.equal(mine.status, 200, mine.text);
  const again = await api('/v1/scope', { token: tok.acmeRead, headers: { 'x-session-id': id } });
  assert.equal(again.status, 200, again.text);
  assert.deepEqual(again.json.scope.globs, ['src/**']);
  const theirs = await api('/v1/scope', { token: tok.globex, headers: { 'x-session-id': id } });
  assert.deepEqual(theirs.json.scope.globs, ['docs/**'], 'each tenant keeps its own session of the id');
});

test('path traversal, absolute paths, secret files and symlink escapes in every path argument', async () => {
  const bad = [
    ['../outside-secret.txt', 'path_outside_repo'],
    ['src/../../outside-secret.txt', 'path_outside_repo'],
    ['/etc/passwd', 'path_outside_repo'],
    ['~/.ssh/id_rsa', 'path_outside_repo'],
    ['.env', 'secret_file'],
    ['src/../.env', 'path_outside_repo'],
    ['escape-link.txt', 'file_not_found'],
  ];
  for (const [route, op] of [['/v1/file', 'read_file'], ['/v1/outline', 'outline']]) {
    for (const [p, code] of bad) {
      const n = count();
      const r = await api(`${route}?path=${encodeURIComponent(p)}`, { token: tok.acmeRead });
      assert.equal(r.json?.error?.code, code, `${route} ${p}: ${r.text}`);
      assert.ok(!r.text.includes('OUTSIDE_MARKER') && !r.text.includes('SECRET_do_not_serve'), r.text);
      assertAudited(n, op, code);
    }
  }
  const c = await mcpClient(tok.acmeRead);
  try {
    for (const [p, code] of bad) {
      for (const tool of ['read_file', 'outline']) {
        const r = await call(c.client, tool, { path: p });
        assert.equal(r.code, code, `${tool} ${p}`);
      }
    }
    const ix = await call(c.client, 'index_repo', { path: '/etc' });
    assert.equal(ix.code, 'scope_forbidden');
  } finally {
    await c.close();
  }
});

test('globs aimed outside the root are refused; FTS and regex syntax is inert or refused', async () => {
  for (const g of ['../**', '**/../../etc/*', 'src/../../*']) {
    const n = count();
    const r = await api(`/v1/search?q=canary&glob=${encodeURIComponent(g)}`, { token: tok.acmeRead });
    assert.equal(r.json?.error?.code, 'invalid_glob', `${g}: ${r.text}`);
    assertAudited(n, 'search_code', 'invalid_glob');
  }
  for (const q of ['"unbalanced', 'NEAR(a b', 'a OR', '*', 'body:canary', '^x', 'a AND NOT', '{}', "'; DROP TABLE files; --"]) {
    const r = await api(`/v1/search?q=${encodeURIComponent(q)}`, { token: tok.acmeRead });
    assert.ok(r.status === 200 || (r.status === 400 && r.json.error.code.startsWith('query_')), `${q}: ${r.text}`);
  }
  const n = count();
  const bad = await api(`/v1/search?q=${encodeURIComponent('(unclosed')}&mode=regex`, { token: tok.acmeRead });
  assert.equal(bad.json.error.code, 'invalid_regex');
  assertAudited(n, 'search_code', 'invalid_regex');
  const evil = await api(`/v1/search?q=${encodeURIComponent('(a+)+$')}&mode=regex`, { token: tok.acmeRead });
  assert.equal(evil.status, 200, evil.text);
});

test('per-token rate limit: 429 with Retry-After, audited', async () => {
  let limited = null;
  for (let i = 0; i < 30 && !limited; i++) {
    const r = await api('/v1/repos', { token: tok.slow });
    if (r.status === 429) limited = r;
    else assert.equal(r.status, 200);
  }
  assert.ok(limited, 'no 429 within 30 requests at 6/min');
  assert.equal(limited.json.error.code, 'rate_limited');
  assert.ok(Number(limited.headers.get('retry-after')) >= 1);
  assertAudited(0, 'rate_limited', 'rate_limited');
  // other tokens are not affected
  assert.equal((await api('/v1/repos', { token: tok.acmeRead })).status, 200);
});

test('/v1/audit for admins: their tenant only; the chain verifies', async () => {
  const r = await api('/v1/audit?limit=1000', { token: tok.acmeAdmin });
  assert.equal(r.status, 200, r.text);
  assert.ok(r.json.events.length > 10);
  for (const e of r.json.events) assert.equal(e.tenant, 'acme', JSON.stringify(e));
  const v = mg(['audit', '--verify']);
  assert.equal(v.status, 0, v.stdout + v.stderr);
});

test('stdio MCP is audited as the local tenant and sees only local repos', async () => {
  const c = await stdioClient(world, {});
  try {
    const n = count();
    const r = await call(c.client, 'list_repos', {});
    assert.ok(r.ok);
    assert.equal(r.data.repos.length, 0); // alpha and globexrepo belong to other tenants
    const s = await call(c.client, 'search_code', { query: 'x', repo: 'alpha' });
    assert.equal(s.code, 'repo_not_found');
    assertAudited(n, 'search_code', 'repo_not_found');
  } finally {
    await shutdown([c]);
  }
});

test('serve refuses to listen off loopback without tokens, and listens with them', async () => {
  const empty = makeWorld('security-offloop');
  try {
    const r = spawnSync(MEMGATE_BIN, ['serve', '--listen', '0.0.0.0:0'], { env: empty.env, cwd: empty.cwd, encoding: 'utf8', timeout: 10000 });
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /error\[listen_refused\]/);
    const s = await startServe(world, ['--listen', '0.0.0.0:0']); // tokens exist: allowed, and required
    try {
      const base = `http://127.0.0.1:${s.port}`;
      assert.equal((await fetch(`${base}/v1/repos`)).status, 401);
      assert.equal((await fetch(`${base}/v1/repos`, { headers: { authorization: `Bearer ${tok.acmeRead}` } })).status, 200);
      assert.equal((await fetch(`${base}/healthz`)).status, 200);
    } finally {
      await s.stop();
    }
    fs.writeFileSync(path.join(world.home, 'config'), 'require_tokens = never\n');
    const never = spawnSync(MEMGATE_BIN, ['serve', '--listen', '0.0.0.0:0'], { env: world.env, cwd: world.cwd, encoding: 'utf8', timeout: 10000 });
    assert.equal(never.status, 1);
    assert.match(never.stderr, /error\[listen_refused\]/);
    fs.rmSync(path.join(world.home, 'config'));
  } finally {
    empty.cleanup();
  }
});
