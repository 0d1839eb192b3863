// http.test.mjs — the SDK's StreamableHTTPClientTransport against
// `memgate serve`: repo binding over HTTP (roots/list asked on the POST's SSE
// stream, repo_required without it), the X-Memgate-Repo header, session
// DELETE, and the transport's own rules (session id required, DNS rebinding).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

import { call, httpClient, indexRepo, makeRepo, makeWorld, metrics, metricSum, shutdown, startServe } from './lib/harness.mjs';

let world;
let serve;
let A;
let B;
const open = [];

async function connect(opts) {
  const c = await httpClient(serve, opts);
  open.push(c);
  return c;
}

function assertOnly(data, repo, other) {
  const s = JSON.stringify(data);
  assert.ok(!s.includes(other.canary), `result of ${repo.name} holds ${other.name}'s canary: ${s.slice(0, 500)}`);
  for (const r of data.results ?? data.files ?? []) assert.equal(r.repo, repo.name, JSON.stringify(r));
}

/** A raw JSON-RPC POST to /mcp; returns { status, headers, body (parsed JSON or SSE messages) }. */
async function post(msg, headers = {}) {
  const res = await fetch(serve.mcpUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...headers,
    },
    body: JSON.stringify(msg),
  });
  const text = await res.text();
  let body = null;
  if ((res.headers.get('content-type') || '').includes('text/event-stream')) {
    body = text
      .split('\n')
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).trim())
      .filter(Boolean)
      .map((d) => JSON.parse(d));
  } else if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  return { status: res.status, headers: res.headers, body };
}

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

before(async () => {
  world = makeWorld('http');
  A = makeRepo(world, 'alpha');
  B = makeRepo(world, 'bravo');
  indexRepo(world, A);
  indexRepo(world, B);
  serve = await startServe(world);
});

after(async () => {
  for (const c of open) await c.close().catch(() => {});
  if (serve) await serve.stop();
  world.cleanup();
});

test('initialize over HTTP issues a session id; tools/list has the tools', async () => {
  const { client, transport } = await connect();
  assert.match(transport.sessionId, /^[0-9a-f]{32}$/);
  assert.equal(client.getServerVersion().name, 'memgate');
  const { tools } = await client.listTools();
  assert.ok(tools.find((t) => t.name === 'search_code'));
  for (const t of tools) assert.ok(t.inputSchema && t.outputSchema, t.name);
});

test('tools enables a group on this session only: notifications/tools/list_changed over HTTP', async () => {
  const { client } = await connect();
  let changed = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => { changed++; });
  const r = await call(client, 'tools', { enable: 'memory' });
  assert.deepEqual(r.data.enabled, ['memory'], r.text);
  for (let i = 0; i < 50 && !changed; i++) await new Promise((ok) => setTimeout(ok, 20));
  assert.equal(changed, 1, 'no notifications/tools/list_changed');
  assert.ok((await client.listTools()).tools.some((t) => t.name === 'set_note'));
  const other = await connect(); // another Mcp-Session-Id: its own list
  assert.ok(!(await other.client.listTools()).tools.some((t) => t.name === 'set_note'));
});

test('no binding with two repos: repo_required listing both ids', async () => {
  const { client } = await connect();
  const r = await call(client, 'search_code', { query: A.canary });
  assert.equal(r.ok, false, JSON.stringify(r.data));
  assert.equal(r.code, 'repo_required', r.text);
  for (const id of [A.name, B.name]) {
    assert.ok(r.text.includes(id), r.text);
    assert.ok(r.error.repos.includes(id), JSON.stringify(r.error));
  }
});

for (const which of ['alpha', 'bravo']) {
  test(`roots over HTTP: a client with root ${which} is bound to it`, async () => {
    const [me, other] = which === 'alpha' ? [A, B] : [B, A];
    const { client } = await connect({ roots: [me.root] });
    const r = await call(client, 'search_code', { query: 'canary' });
    assert.ok(r.ok, r.text);
    assert.ok(r.data.results.length > 0);
    assertOnly(r.data, me, other);
    const f = await call(client, 'list_files', {});
    assert.deepEqual(f.data.files.map((x) => x.path).sort(), [...me.files].sort());
    assert.equal((await call(client, 'list_repos', {})).data.bound, me.name);
  });
}

test('two HTTP sessions bound to different repos at once stay apart', async () => {
  const a = (await connect({ roots: [A.root] })).client;
  const b = (await connect({ roots: [B.root] })).client;
  const [ra, rb] = await Promise.all([
    call(a, 'search_code', { query: 'canary' }),
    call(b, 'search_code', { query: 'canary' }),
  ]);
  assertOnly(ra.data, A, B);
  assertOnly(rb.data, B, A);
});

test('the X-Memgate-Repo header selects the repo', async () => {
  const { client } = await connect({ headers: { 'X-Memgate-Repo': B.name } });
  const r = await call(client, 'search_code', { query: 'canary' });
  assert.ok(r.ok, r.text);
  assert.ok(r.data.results.length > 0);
  assertOnly(r.data, B, A);
  // an explicit argument wins over the header
  const x = await call(client, 'read_file', { path: 'README.md', repo: A.name });
  assert.ok(x.ok, x.text);
  assert.ok(x.data.text.includes(A.canary));
  // an unknown id in the header is repo_not_found, not a fallback
  const bad = (await connect({ headers: { 'X-Memgate-Repo': 'no-such-repo' } })).client;
  const e = await call(bad, 'list_files', {});
  assert.equal(e.code, 'repo_not_found', e.text);
});

test('the header wins over the roots binding', async () => {
  const { client } = await connect({ roots: [A.root], headers: { 'X-Memgate-Repo': B.name } });
  const r = await call(client, 'list_files', {});
  assert.ok(r.ok, r.text);
  assertOnly(r.data, B, A);
});

test('the session scope over HTTP', async () => {
  const { client } = await connect({ roots: [A.root] });
  await call(client, 'set_scope', { languages: ['rust'] });
  const r = await call(client, 'search_code', { query: A.canary });
  assert.ok(r.ok, r.text);
  for (const h of r.data.results) assert.equal(h.path, 'lib/core.rs');
  assert.deepEqual(r.data.scope.languages, ['rust']);
});

test('session DELETE (terminateSession): the session is gone', async () => {
  const { client, transport } = await connect({ roots: [A.root] });
  assert.ok((await call(client, 'list_files', {})).ok);
  const sid = transport.sessionId;
  await transport.terminateSession();
  assert.equal(transport.sessionId, undefined);
  // the SDK now has no session id: its next call fails
  await assert.rejects(client.callTool({ name: 'list_files', arguments: {} }));
  // and the old id is unknown to the server: 404
  const r = await post({ jsonrpc: '2.0', id: 7, method: 'tools/list' }, { 'mcp-session-id': sid });
  assert.equal(r.status, 404, JSON.stringify(r.body));
});

test('transport rules: session id required after initialize, unknown id 404, bad protocol version 400', async () => {
  const init = await post(INIT);
  assert.equal(init.status, 200, JSON.stringify(init.body));
  const sid = init.headers.get('mcp-session-id');
  assert.match(sid, /^[0-9a-f]{32}$/);
  const ack = await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': sid });
  assert.equal(ack.status, 202);
  const list = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-session-id': sid });
  assert.equal(list.status, 200);
  const msgs = Array.isArray(list.body) ? list.body : [list.body];
  assert.ok(msgs.find((m) => m.id === 2)?.result?.tools?.length > 0, JSON.stringify(list.body));
  const missing = await post({ jsonrpc: '2.0', id: 3, method: 'tools/list' });
  assert.equal(missing.status, 400);
  const unknown = await post({ jsonrpc: '2.0', id: 4, method: 'tools/list' }, { 'mcp-session-id': 'f'.repeat(32) });
  assert.equal(unknown.status, 404);
  const badver = await post(
    { jsonrpc: '2.0', id: 5, method: 'tools/list' },
    { 'mcp-session-id': sid, 'mcp-protocol-version': '1999-01-01' },
  );
  assert.equal(badver.status, 400);
});

test('DNS rebinding: a foreign Host or Origin is 403', async () => {
  const evil = await post(INIT, { origin: 'http://evil.example.com' });
  assert.equal(evil.status, 403);
  const ok = await post(INIT, { origin: `http://127.0.0.1:${serve.port}` });
  assert.equal(ok.status, 200);
});

test('/healthz and /metrics answer; no isolation drop', async () => {
  const h = await fetch(`${serve.url}/healthz`);
  assert.equal(h.status, 200);
  const m = await metrics(serve);
  assert.equal(m.status, 200);
  assert.equal(metricSum(m.values, 'memgate_isolation_drops_total'), 0, m.text);
  assert.ok(metricSum(m.values, 'memgate_sessions_created_total') >= 5, m.text);
  assert.ok(metricSum(m.values, 'memgate_tool_calls_total') > 0, m.text);
});

test('every memgate process exits cleanly (status 0, no sanitizer report)', async () => {
  const clients = open.splice(0);
  const s = serve;
  serve = null;
  await shutdown(clients, s);
});
