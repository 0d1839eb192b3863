// expiry.test.mjs — session expiry: `memgate serve` with session_ttl=1 and
// session_prune_interval=1 (as MEMGATE_* variables). A session idle for 3 s
// is pruned (memgate_sessions_pruned_total counts it) and its id then gets
// 404, so the client starts a new session; a session in use does not expire.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { call, httpClient, indexRepo, makeRepo, makeWorld, metrics, metricSum, shutdown, sleep, startServe } from './lib/harness.mjs';

let world;
let serve;
let A;
const open = [];

async function post(msg, sid) {
  const res = await fetch(serve.mcpUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...(sid ? { 'mcp-session-id': sid } : {}),
    },
    body: JSON.stringify(msg),
  });
  return { status: res.status, sid: res.headers.get('mcp-session-id'), text: await res.text() };
}

async function rawSession() {
  const init = await post({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'expiry', version: '1' } },
  });
  assert.equal(init.status, 200, init.text);
  assert.ok(init.sid);
  assert.equal((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, init.sid)).status, 202);
  return init.sid;
}

before(async () => {
  world = makeWorld('expiry');
  A = makeRepo(world, 'alpha');
  indexRepo(world, A);
  serve = await startServe(world, [], { MEMGATE_SESSION_TTL: '1', MEMGATE_SESSION_PRUNE_INTERVAL: '1' });
});

after(async () => {
  for (const c of open) await c.close().catch(() => {});
  if (serve) await serve.stop();
  world.cleanup();
});

test('an idle session is pruned after the ttl and then gets 404', async () => {
  const before0 = metricSum((await metrics(serve)).values, 'memgate_sessions_pruned_total') ?? 0;
  const sid = await rawSession();
  const ok = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, sid);
  assert.equal(ok.status, 200, ok.text);
  await sleep(3000);
  // the pruner has run (every second) and freed it, before any lookup of it
  const m = await metrics(serve);
  const pruned = metricSum(m.values, 'memgate_sessions_pruned_total');
  assert.ok(pruned >= before0 + 1, `memgate_sessions_pruned_total ${pruned}\n${m.text}`);
  assert.equal(metricSum(m.values, 'memgate_sessions_active'), 0, m.text);
  const gone = await post({ jsonrpc: '2.0', id: 3, method: 'tools/list' }, sid);
  assert.equal(gone.status, 404, gone.text);
});

test('a session in use does not expire', async () => {
  const sid = await rawSession();
  for (let i = 0; i < 6; i++) {
    await sleep(500);
    const r = await post({ jsonrpc: '2.0', id: 10 + i, method: 'ping' }, sid);
    assert.equal(r.status, 200, `after ${(i + 1) * 0.5} s: ${r.status} ${r.text}`);
  }
});

test('the SDK client sees its expired session fail and a new one works', async () => {
  const c = await httpClient(serve, { roots: [A.root] });
  assert.ok((await call(c.client, 'list_files', {})).ok);
  const sid = c.transport.sessionId;
  await sleep(3000);
  await assert.rejects(c.client.callTool({ name: 'list_files', arguments: {} }), /404|not found|expired|session/i);
  await c.close().catch(() => {});
  const d = await httpClient(serve, { roots: [A.root] });
  assert.notEqual(d.transport.sessionId, sid);
  const r = await call(d.client, 'list_files', {});
  assert.ok(r.ok, r.text);
  await d.close();
});

test('every memgate process exits cleanly (status 0, no sanitizer report)', async () => {
  const clients = open.splice(0);
  const s = serve;
  serve = null;
  await shutdown(clients, s);
});
