// Every refusal of the HTTP server leaves an audit event (docs/http.md
// "Protection"), whichever layer refuses: DNS-rebinding checks, body and
// header caps (libmicrohttpd's own past 128 KiB too), bodies that are not
// JSON objects (invalid UTF-8, NUL, nesting), unknown and repeated
// parameters, MCP parse errors and unknown sessions. A flood of refusals is
// folded: a few events each, then one with "repeated": N.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import net from 'node:net';
import { after, before, test } from 'node:test';

import { MEMGATE_BIN, indexRepo, makeRepo, makeWorld, runMemgate, shutdown, startServe } from './lib/harness.mjs';

let world;
let serve;

const mg = (args) => runMemgate(world, args);

function events() {
  const r = mg(['audit', '--json', '--limit', '0']);
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

/** Raw bytes to the server; resolves with the response's status code. */
function raw(bytes) {
  return new Promise((resolve, reject) => {
    const s = net.connect(serve.port, '127.0.0.1');
    let got = '';
    s.on('data', (d) => {
      got += d;
    });
    s.on('error', (e) => (got ? resolve(Number(got.split(' ')[1])) : reject(e)));
    s.on('close', () => resolve(Number(got.split(' ')[1])));
    s.write(bytes);
    setTimeout(() => s.end(), 500);
  });
}

async function http(method, p, { headers = {}, body } = {}) {
  const res = await fetch(`${serve.url}${p}`, { method, headers, body });
  await res.arrayBuffer();
  return res.status;
}

const JSONH = { 'content-type': 'application/json' };
const MCPH = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };

before(async () => {
  world = makeWorld('refusals');
  indexRepo(world, makeRepo(world, 'alpha'));
  serve = await startServe(world);
});

after(async () => {
  await shutdown([], serve);
  world.cleanup();
});

// [what, request, status, code]; each is sent once, on its own route and code
const CASES = [
  ['Host not loopback', () => raw('GET /v1/repos HTTP/1.1\r\nHost: evil.example\r\n\r\n'), 403, 'host_forbidden'],
  ['Origin not allowed', () => http('GET', '/healthz', { headers: { origin: 'http://evil.example' } }), 403, 'origin_forbidden'],
  ["the dashboard's page: Origin not allowed (CSRF)", () => http('GET', '/dash.js', { headers: { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' } }), 403, 'origin_forbidden'],
  ["the dashboard's data: Origin not allowed (CSRF)", () => http('GET', '/v1/dashboard', { headers: { origin: 'http://evil.example' } }), 403, 'origin_forbidden'],
  ['body over the cap (Content-Length)', () => raw('POST /v1/notes HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 99999999\r\n\r\n'), 413, 'body_too_large'],
  ['headers over 128 KiB (libmicrohttpd refuses)', () => raw(`GET /v1/scope HTTP/1.1\r\nHost: localhost\r\n${Array.from({ length: 40 }, (_, i) => `X-P${i}: ${'a'.repeat(4000)}\r\n`).join('')}\r\n`), 431, 'request_malformed'],
  ['invalid UTF-8', () => http('POST', '/v1/notes', { headers: JSONH, body: Buffer.from('{"key":"a\xff","value":"b"}', 'latin1') }), 400, 'invalid_argument'],
  ['a NUL in JSON', () => http('POST', '/v1/episodes', { headers: JSONH, body: '{"summary":"a\\u0000"}' }), 400, 'invalid_argument'],
  ['JSON nested too deep', () => http('POST', '/v1/entities', { headers: JSONH, body: '['.repeat(5000) + ']'.repeat(5000) }), 400, 'invalid_argument'],
  ['an unknown parameter', () => http('GET', '/v1/search?q=a&bogus=1'), 400, 'invalid_argument'],
  ['a repeated parameter', () => http('GET', '/v1/symbols?q=a&q=b'), 400, 'invalid_argument'],
  ['an unknown route', () => http('GET', '/v1/nothing'), 404, 'route_not_found'],
  ['MCP: not JSON', () => http('POST', '/mcp', { headers: MCPH, body: '{bad' }), 400, 'rpc_parse_error'],
  ['MCP: an unknown session', () => http('POST', '/mcp', { headers: { ...MCPH, 'mcp-session-id': 'nosuchsession000' }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' }), 404, 'session_not_found'],
  ['MCP: DELETE of an unknown session', () => http('DELETE', '/mcp', { headers: { 'mcp-session-id': 'nosuchsession001' } }), 404, 'session_not_found'],
];

for (const [what, send, status, code] of CASES) {
  test(`audited: ${what} (${status} ${code})`, async () => {
    const n = events().length;
    assert.equal(await send(), status, what);
    const ev = events().slice(n);
    assert.ok(ev.some((e) => e.op === 'request_refused' && e.code === code && e.status === 'error'),
      `no request_refused/${code} event among ${JSON.stringify(ev.map((e) => [e.op, e.code, e.query]))}`);
  });
}

test('a flood of refusals is folded: five events, then one with the count, and the chain verifies', async () => {
  const n = events().length;
  const N = 60;
  // a route no earlier test was refused on: the fold is per (tenant, op, route, address, code), and a
  // slot an earlier test opened would end its interval in the middle of the flood
  for (let i = 0; i < N; i++) assert.equal(await http('GET', '/readyz', { headers: { origin: 'http://flood.example' } }), 403);
  const during = events().slice(n).filter((e) => e.code === 'origin_forbidden');
  assert.ok(during.length <= 5, `${during.length} events for ${N} refusals`);
  await shutdown([], serve); // the count is written when the server closes (or the interval ends)
  const all = events().slice(n).filter((e) => e.code === 'origin_forbidden');
  const total = all.reduce((s, e) => s + (e.repeated || 1), 0); // an event with "repeated" stands for that many
  assert.equal(total, N, JSON.stringify(all));
  assert.ok(all.some((e) => e.repeated > 0));
  const v = mg(['audit', '--verify']);
  assert.equal(v.status, 0, v.stdout + v.stderr);
  serve = await startServe(world);
});

// ---- issue 38, V4: refusals answered inside MCP (HTTP 200, or stdio) are audited too, folded ----

const META26 = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

/** A 2026-07-28 tools/call over HTTP; resolves with { status, body }. */
async function call26(name, args, meta = {}) {
  const res = await fetch(`${serve.url}/mcp`, {
    method: 'POST',
    headers: { ...MCPH, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args, _meta: { ...META26, ...meta } } }),
  });
  return { status: res.status, body: await res.json() };
}

const errorOf = (body) => body.result?._meta?.['memgate/error']?.code;

test('V4: a bad _meta workspace root is refused with HTTP 200 and audited', async () => {
  const n = events().length;
  const r = await call26('search_code', { query: 'x' }, { 'memgate/root': 'ftp://evil.example/x' });
  assert.equal(r.status, 200);
  assert.equal(r.body.result?.isError, true, JSON.stringify(r.body));
  const code = errorOf(r.body);
  assert.ok(code, JSON.stringify(r.body));
  const ev = events().slice(n);
  assert.ok(ev.some((e) => e.op === 'request_refused' && e.code === code), `no request_refused/${code} among ${JSON.stringify(ev)}`);
});

test('V4: a JSON-RPC error answered with HTTP 200 (inside a session) is audited', async () => {
  const init = await fetch(`${serve.url}/mcp`, {
    method: 'POST',
    headers: MCPH,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'refusals', version: '1' } } }),
  });
  assert.equal(init.status, 200);
  await init.arrayBuffer();
  const sid = init.headers.get('mcp-session-id');
  assert.ok(sid);
  const n = events().length;
  const res = await fetch(`${serve.url}/mcp`, {
    method: 'POST',
    headers: { ...MCPH, accept: 'application/json', 'mcp-session-id': sid },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } }),
  });
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.equal(body.error?.code, -32602, JSON.stringify(body));
  const ev = events().slice(n);
  assert.ok(ev.some((e) => e.op === 'request_refused' && e.code === 'rpc_invalid_params'), JSON.stringify(ev));
  await fetch(`${serve.url}/mcp`, { method: 'DELETE', headers: { 'mcp-session-id': sid } });
});

test('V4: 2,000 invalid handle guesses over HTTP leave a trace, folded into a few events', async () => {
  const n = events().length;
  const N = 2000;
  const t0 = Date.now();
  for (let i = 0; i < N; i += 8) {
    const rs = await Promise.all(Array.from({ length: 8 }, (_, j) => call26('search_code', { handle: `guess${String(i + j).padStart(28, '0')}`, query: 'x' })));
    for (const r of rs) {
      assert.equal(r.status, 200);
      assert.equal(errorOf(r.body), 'handle_invalid', JSON.stringify(r.body));
    }
  }
  // folded: at most five events and one count per interval of 10 s (request/gate.h MG_REFUSAL_*)
  const intervals = Math.ceil((Date.now() - t0) / 10000) + 1;
  const during = events().slice(n).filter((e) => e.code === 'handle_invalid');
  assert.ok(during.length >= 1 && during.length <= 6 * intervals, `${during.length} events for ${N} guesses in ${intervals} intervals`);
  await shutdown([], serve); // the folded count is written when the server closes
  const all = events().slice(n).filter((e) => e.code === 'handle_invalid');
  assert.equal(all.reduce((s, e) => s + (e.repeated || 1), 0), N, JSON.stringify(all));
  assert.ok(all.every((e) => e.op === 'request_refused' && /\/mcp from 127\.0\.0\.1/.test(e.query || '')), JSON.stringify(all));
  const v = mg(['audit', '--verify']);
  assert.equal(v.status, 0, v.stdout + v.stderr);
  serve = await startServe(world);
});

test('V4: over stdio, invalid handles and JSON-RPC errors are audited too', async () => {
  const n = events().length;
  const lines = [
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'refusals-stdio', version: '1' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    ...Array.from({ length: 50 }, (_, i) => ({ jsonrpc: '2.0', id: 10 + i, method: 'tools/call', params: { name: 'search_code', arguments: { handle: `stdioguess${String(i).padStart(22, '0')}`, query: 'x' } } })),
    { jsonrpc: '2.0', id: 100, method: 'no/such/method' },
  ];
  const r = spawnSync(MEMGATE_BIN, ['mcp'], { env: world.env, cwd: world.cwd, encoding: 'utf8', input: lines.map((l) => JSON.stringify(l)).join('\n') + '\n', timeout: 60000 });
  const answers = r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
  assert.equal(answers.filter((a) => a.result?.isError).length, 50, r.stdout.slice(0, 2000) + r.stderr);
  assert.ok(answers.some((a) => a.id === 100 && a.error?.code === -32601));
  const ev = events().slice(n);
  const handles = ev.filter((e) => e.op === 'request_refused' && e.code === 'handle_invalid');
  assert.equal(handles.reduce((s, e) => s + (e.repeated || 1), 0), 50, JSON.stringify(ev));
  assert.ok(handles.every((e) => e.query === 'stdio'), JSON.stringify(handles));
  assert.ok(ev.some((e) => e.op === 'request_refused' && e.code === 'rpc_method_not_found'), JSON.stringify(ev));
});
