// providers_mcp.test.mjs — external MCP servers as code providers
// (docs/providers.md, "External MCP servers as code providers"): memgate
// configured with real servers from npm (@modelcontextprotocol/server-filesystem
// over stdio, @modelcontextprotocol/server-everything over stdio and over its
// Streamable HTTP mode), a second memgate (`memgate mcp` over stdio, `memgate
// serve` over HTTP with a token), and a hostile server (lib/hostile_mcp.mjs)
// that times out, dies mid-call, answers malformed JSON, floods, returns a
// secret, an injection line and paths outside the root. The real ones answer
// for repo charlie, the hostile one for alpha, none for bravo.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import {
  MEMGATE_BIN,
  NODE22,
  NODE_DIR,
  call,
  httpClient,
  indexRepo,
  makeRepo,
  makeWorld,
  metrics,
  shutdown,
  sleep,
  startServe,
  stdioClient,
  v1,
} from './lib/harness.mjs';

const FS_JS = path.join(NODE_DIR, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');
const EVERY_JS = path.join(NODE_DIR, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const HOSTILE_JS = path.join(NODE_DIR, 'lib', 'hostile_mcp.mjs');
const SECRET = 'ghp_' + 'Zq8Xw2Lk9Vb4Nm7Pc1Rt6Ys3Ud5Fg0Hj2Ka9';

const HOSTILE_TOKEN = 'hostile-bearer-Qm9vYmFy-do-not-log';
let world, peer, A, B, C, serve, peerServe, everyHttp, hostileHttp, client, hostileLog;

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

async function waitHttp(url, ms = 15000) {
  const end = Date.now() + ms;
  for (;;) {
    try {
      await fetch(url, { method: 'GET' });
      return;
    } catch (e) {
      if (Date.now() > end) throw e;
      await sleep(100);
    }
  }
}

function providerErrors(values, name) {
  return values[`memgate_provider_errors_total{provider="${name}"}`] ?? 0;
}

function status(data, name) {
  return (data.providers || []).find((p) => p.name === name);
}

before(async () => {
  world = makeWorld('provmcp');
  peer = makeWorld('provmcp-peer');
  A = makeRepo(world, 'alpha');
  B = makeRepo(world, 'bravo');
  C = makeRepo(world, 'charlie');
  indexRepo(world, A);
  indexRepo(world, B);
  indexRepo(world, C);
  // a file memgate's own index has not seen (watch is off), the peer's has
  fs.writeFileSync(path.join(C.root, 'src', 'late.c'), 'int latecomer_zq(void)\n{\n    return 7;\n}\n');
  indexRepo(peer, C);
  hostileLog = path.join(world.dir, 'hostile.log');

  // the peer memgate over HTTP, with a token
  const tok = JSON.parse(
    execFileSync(MEMGATE_BIN, ['token', 'create', '--tenant', 'local', '--json'], { env: peer.env, encoding: 'utf8' }),
  );
  const tokenFile = path.join(world.dir, 'peer.token');
  fs.writeFileSync(tokenFile, tok.token + '\n', { mode: 0o600 });
  peerServe = await startServe(peer);

  // server-everything in its Streamable HTTP mode
  const port = await freePort();
  everyHttp = spawn(NODE22, [EVERY_JS, 'streamableHttp'], { env: { ...world.env, PORT: String(port) }, stdio: 'ignore' });
  await waitHttp(`http://127.0.0.1:${port}/mcp`);

  // the hostile server over Streamable HTTP, with a token
  const hport = await freePort();
  hostileHttp = spawn(NODE22, [HOSTILE_JS, path.join(B.root, 'src', 'main.c'), String(hport)], {
    env: { ...world.env, HOSTILE_TOKEN },
    stdio: 'ignore',
  });
  await waitHttp(`http://127.0.0.1:${hport}/mcp`);
  const hostileTokenFile = path.join(world.dir, 'hostile.token');
  fs.writeFileSync(hostileTokenFile, HOSTILE_TOKEN + '\n', { mode: 0o600 });

  const peerEnv = Object.entries(peer.env)
    .filter(([k]) => k.startsWith('MEMGATE_'))
    .map(([k, v]) => `${k}=${v}`);
  const lines = [
    'watch = off',
    // real servers, for charlie
    `mcp_provider.fs.command = ${NODE22}`,
    `mcp_provider.fs.args = ${JSON.stringify([FS_JS, C.root])}`,
    'mcp_provider.fs.tool = search_files',
    'mcp_provider.fs.arguments = {"path": "{root}", "pattern": "**/*{query}*"}',
    'mcp_provider.fs.result = text:lines',
    'mcp_provider.fs.repos = charlie',
    'mcp_provider.fs.timeout_ms = 10000',
    `mcp_provider.every.command = ${NODE22}`,
    `mcp_provider.every.args = ${JSON.stringify([EVERY_JS, 'stdio'])}`,
    'mcp_provider.every.tool = echo',
    'mcp_provider.every.arguments = {"message": "docs/notes.txt:1:{query}"}',
    'mcp_provider.every.result = text:grep;strip=Echo:',
    'mcp_provider.every.repos = charlie',
    'mcp_provider.every.timeout_ms = 10000',
    `mcp_provider.everyhttp.url = http://127.0.0.1:${port}/mcp`,
    'mcp_provider.everyhttp.tool = echo',
    'mcp_provider.everyhttp.arguments = {"message": "web/app.js:2:{query}"}',
    'mcp_provider.everyhttp.result = text:grep;strip=Echo:',
    'mcp_provider.everyhttp.repos = charlie',
    'mcp_provider.everyhttp.timeout_ms = 10000',
    'mcp_provider.peer.command = /usr/bin/env',
    `mcp_provider.peer.args = ${JSON.stringify([...peerEnv, MEMGATE_BIN, 'mcp'])}`,
    'mcp_provider.peer.tool = search_code',
    'mcp_provider.peer.arguments = {"query": "{query}", "limit": "{limit}", "repo": "charlie"}',
    'mcp_provider.peer.result = json:/results',
    'mcp_provider.peer.repos = charlie',
    'mcp_provider.peer.timeout_ms = 10000',
    `mcp_provider.peerhttp.url = ${peerServe.mcpUrl}`,
    `mcp_provider.peerhttp.token_file = ${tokenFile}`,
    'mcp_provider.peerhttp.tool = search_code',
    'mcp_provider.peerhttp.arguments = {"query": "{query}", "limit": "{limit}", "repo": "charlie", "mode": "regex"}',
    'mcp_provider.peerhttp.result = json:/results',
    'mcp_provider.peerhttp.repos = charlie',
    'mcp_provider.peerhttp.timeout_ms = 10000',
    // the hostile one, for alpha
    `mcp_provider.hostile.command = ${NODE22}`,
    `mcp_provider.hostile.args = ${JSON.stringify([HOSTILE_JS, path.join(B.root, 'src', 'main.c')])}`,
    'mcp_provider.hostile.tool = find',
    'mcp_provider.hostile.result = json:/hits;text=text',
    'mcp_provider.hostile.repos = alpha',
    'mcp_provider.hostile.timeout_ms = 1500',
    'mcp_provider.hostile.max_bytes = 1M',
    `mcp_provider.hostilehttp.url = http://127.0.0.1:${hport}/mcp`,
    `mcp_provider.hostilehttp.token_file = ${hostileTokenFile}`,
    'mcp_provider.hostilehttp.tool = find',
    'mcp_provider.hostilehttp.result = json:/hits;text=text',
    'mcp_provider.hostilehttp.repos = alpha',
    'mcp_provider.hostilehttp.timeout_ms = 1500',
    'mcp_provider.hostilehttp.max_bytes = 1M',
  ];
  fs.writeFileSync(path.join(world.home, 'config'), lines.join('\n') + '\n');
  serve = await startServe(world, [], { HOSTILE_LOG: hostileLog });
  client = await httpClient(serve);
});

after(async () => {
  await client?.close().catch(() => {});
  everyHttp?.kill('SIGKILL');
  hostileHttp?.kill('SIGKILL');
  try {
    await shutdown([], serve);
  } finally {
    await peerServe?.stop();
    world?.cleanup();
    peer?.cleanup();
  }
});

describe('real servers, fused with memgate’s own results', () => {
  test('the peer memgate (stdio and HTTP) finds what memgate’s own index has not: attributed, fused', async () => {
    const r = await call(client.client, 'search_code', { query: 'latecomer_zq', repo: 'charlie' });
    assert.ok(r.ok, r.text);
    const d = r.data;
    for (const name of ['peer', 'peerhttp']) {
      const s = status(d, name);
      assert.equal(s?.status, 'ok', JSON.stringify(d.providers));
      assert.ok(s.results >= 1, JSON.stringify(d.providers));
    }
    const late = d.results.filter((h) => h.path === 'src/late.c');
    assert.equal(late.length, 1, JSON.stringify(d.results)); // both peers' hits on the same lines are one
    assert.ok(['peer', 'peerhttp'].includes(late[0].provider), JSON.stringify(late[0]));
    assert.equal(late[0].source, `${late[0].provider}:src/late.c:${late[0].line}`);
    assert.equal(late[0].repo, 'charlie');
    assert.match(late[0].snippet, /latecomer_zq/);
  });

  test('server-filesystem (stdio): file hits, made relative to the root', async () => {
    // a file name memgate's own index does not hold (src/late.c came after it, watch is off)
    const r = await call(client.client, 'search_code', { query: 'late', repo: 'charlie' });
    assert.ok(r.ok, r.text);
    const s = status(r.data, 'fs');
    assert.equal(s?.status, 'ok', JSON.stringify(r.data.providers));
    const hit = r.data.results.find((h) => h.provider === 'fs');
    assert.ok(hit, JSON.stringify(r.data));
    assert.equal(hit.path, 'src/late.c');
    assert.equal(hit.source, 'fs:src/late.c:1');
    assert.ok(s.dropped >= 0);
  });

  test('server-everything over stdio and over Streamable HTTP', async () => {
    const r = await call(client.client, 'search_code', { query: 'qqzxv', repo: 'charlie' });
    assert.ok(r.ok, r.text);
    assert.equal(status(r.data, 'every')?.status, 'ok', JSON.stringify(r.data.providers));
    assert.equal(status(r.data, 'everyhttp')?.status, 'ok', JSON.stringify(r.data.providers));
    const a = r.data.results.find((h) => h.provider === 'every');
    const b = r.data.results.find((h) => h.provider === 'everyhttp');
    assert.deepEqual([a?.path, a?.line, a?.snippet], ['docs/notes.txt', 1, 'qqzxv'], JSON.stringify(r.data.results));
    assert.deepEqual([b?.path, b?.line, b?.snippet], ['web/app.js', 2, 'qqzxv'], JSON.stringify(r.data.results));
  });

  test('get_context fuses them too: the piece names its provider', async () => {
    const r = await call(client.client, 'get_context', { prompt: 'latecomer_zq', repo: 'charlie' });
    assert.ok(r.ok, r.text);
    assert.equal(status(r.data, 'peer')?.status, 'ok', JSON.stringify(r.data.providers));
    const late = r.data.parts.find((p) => p.kind === 'code' && /src\/late\.c/.test(p.source));
    assert.ok(late, JSON.stringify(r.data.parts));
    assert.match(late.source, /^\[source: (peer|peerhttp|fs):src\/late\.c:1-/);
    assert.match(r.data.block, /latecomer_zq/);
  });

  test('the /v1 API says the same', async () => {
    const r = await v1(serve, '/v1/search?q=latecomer_zq&repo=charlie');
    assert.equal(r.status, 200, r.text);
    assert.ok(Array.isArray(r.json.providers), r.text);
    assert.ok(r.json.results.some((h) => h.path === 'src/late.c' && h.provider), r.text);
  });
});

describe('a hostile server', () => {
  test('never asked about a repo it is not configured for', async () => {
    fs.rmSync(hostileLog, { force: true });
    const r = await call(client.client, 'search_code', { query: 'neverasked', repo: 'bravo' });
    assert.ok(r.ok, r.text);
    assert.equal(r.data.providers, undefined, JSON.stringify(r.data));
    assert.ok(!fs.existsSync(hostileLog) || !fs.readFileSync(hostileLog, 'utf8').includes('neverasked'));
  });

  test('a good answer is fused and attributed', async () => {
    const r = await call(client.client, 'search_code', { query: 'zzgood', repo: 'alpha' });
    assert.ok(r.ok, r.text);
    assert.equal(status(r.data, 'hostile')?.status, 'ok');
    assert.equal(status(r.data, 'hostilehttp')?.status, 'ok', JSON.stringify(r.data.providers));
    const h = r.data.results.find((x) => x.provider === 'hostile');
    assert.equal(h?.snippet, 'hostile hit zzgood', JSON.stringify(r.data.results));
    assert.equal(h.source, 'hostile:src/util.py:1');
  });

  for (const [query, want] of [
    ['slow', 'timeout'],
    ['malformed', 'bad_response'],
    ['toolerror', 'bad_response'],
    ['flood', 'too_large'],
    ['die', 'unavailable'],
  ]) {
    test(`${query}: the search degrades to memgate’s own results and says so (${want})`, async () => {
      const m0 = (await metrics(serve)).values;
      const before = providerErrors(m0, 'hostile');
      const beforeHttp = providerErrors(m0, 'hostilehttp');
      const t0 = Date.now();
      const bad = await call(client.client, 'search_code', { query, repo: 'alpha' });
      assert.ok(bad.ok, bad.text);
      const s = status(bad.data, 'hostile');
      assert.equal(s?.status, want, JSON.stringify(bad.data.providers));
      assert.match(s.message, /memgate's own/);
      // over HTTP the same; a dropped connection is "unavailable" too
      assert.equal(status(bad.data, 'hostilehttp')?.status, want, JSON.stringify(bad.data.providers));
      assert.ok(!bad.data.results.some((h) => h.provider), JSON.stringify(bad.data.results));
      assert.ok(Date.now() - t0 < 8000, 'bounded by the timeout');
      assert.ok(!JSON.stringify(bad.data).includes(SECRET));
      const m1 = (await metrics(serve)).values;
      const afterV = providerErrors(m1, 'hostile');
      assert.equal(afterV, before + 1, `memgate_provider_errors_total{provider="hostile"} ${before} -> ${afterV}`);
      assert.equal(providerErrors(m1, 'hostilehttp'), beforeHttp + 1);
      if (query === 'die') await sleep(1200); // the restart backoff
      else await sleep(50);
      // and it answers again afterwards (restarted when it had to be)
      const again = await call(client.client, 'search_code', { query: 'zzagain', repo: 'alpha' });
      assert.equal(status(again.data, 'hostile')?.status, 'ok', JSON.stringify(again.data.providers));
      assert.equal(status(again.data, 'hostilehttp')?.status, 'ok', JSON.stringify(again.data.providers));
    });
  }

  test('over HTTP, a server that lost the session gets a new one and the call again', async () => {
    const r = await call(client.client, 'search_code', { query: 'forget', repo: 'alpha' });
    assert.ok(r.ok, r.text);
    assert.equal(status(r.data, 'hostilehttp')?.status, 'ok', JSON.stringify(r.data.providers));
    assert.equal(status(r.data, 'hostilehttp')?.results, 1, JSON.stringify(r.data.providers));
  });

  test('a secret in its answer is redacted in what memgate serves', async () => {
    const r = await call(client.client, 'search_code', { query: 'secret', repo: 'alpha' });
    assert.ok(r.ok, r.text);
    const h = r.data.results.find((x) => x.provider === 'hostile');
    assert.ok(h, JSON.stringify(r.data));
    assert.ok(!JSON.stringify(r.data).includes(SECRET), JSON.stringify(h));
    assert.ok(r.data.gate.redactions >= 1, JSON.stringify(r.data.gate));
  });

  test('an injection line is flagged', async () => {
    const r = await call(client.client, 'search_code', { query: 'inject', repo: 'alpha' });
    assert.ok(r.ok, r.text);
    assert.ok(r.data.results.some((x) => x.provider === 'hostile'), JSON.stringify(r.data));
    assert.ok(r.data.gate.flags.includes('prompt_injection'), JSON.stringify(r.data.gate));
  });

  test('paths outside the root, to nothing, or of another repo are dropped and counted', async () => {
    const r = await call(client.client, 'search_code', { query: 'escape', repo: 'alpha' });
    assert.ok(r.ok, r.text);
    const s = status(r.data, 'hostile');
    assert.equal(s.status, 'ok');
    assert.equal(s.dropped, 4, JSON.stringify(s));
    assert.equal(s.answered, 5, JSON.stringify(s));
    const mine = r.data.results.filter((x) => x.provider === 'hostile');
    assert.deepEqual(mine.map((x) => x.path), ['src/util.py'], JSON.stringify(mine));
    const text = JSON.stringify(r.data);
    assert.ok(!text.includes('root:x:0:0') && !text.includes('another repo') && !text.includes('symlink out'), text);
  });

  test('scope globs apply to its hits', async () => {
    const r = await call(client.client, 'search_code', { query: 'zzscope', repo: 'alpha', globs: ['web/**'] });
    assert.ok(r.ok, r.text);
    assert.equal(status(r.data, 'hostile')?.dropped, 1, JSON.stringify(r.data.providers));
    assert.ok(!r.data.results.some((x) => x.provider), JSON.stringify(r.data.results));
  });

  test('its call is a part of the request’s audit event', async () => {
    const out = execFileSync(MEMGATE_BIN, ['audit', '--json', '--limit', '0'], { env: world.env, encoding: 'utf8' });
    const ev = out
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .filter((e) => e.op === 'search_code' && e.parts?.['mcp.hostile'] !== undefined);
    assert.ok(ev.length > 0, out.slice(-2000));
    // a failed call too (the slow one): its part is there, with no results
    assert.ok(ev.some((e) => e.subject === 'slow' || e.query === 'slow' ? e.parts['mcp.hostile'] === 0 : false),
      JSON.stringify(ev.slice(0, 3)));
    assert.ok(!out.includes(SECRET));
  });

  test('the bearer token is never in the audit log, the logs or an answer', async () => {
    const audit = execFileSync(MEMGATE_BIN, ['audit', '--json', '--limit', '0'], { env: world.env, encoding: 'utf8' });
    assert.ok(!audit.includes(HOSTILE_TOKEN));
    assert.ok(!serve.stderr().includes(HOSTILE_TOKEN), serve.stderr().slice(-2000));
    const logs = path.join(world.home, 'logs');
    for (const f of fs.existsSync(logs) ? fs.readdirSync(logs) : [])
      assert.ok(!fs.readFileSync(path.join(logs, f), 'utf8').includes(HOSTILE_TOKEN), f);
    assert.match(serve.stderr(), /provider hostilehttp: error\[provider_timeout\]/);
  });
});
