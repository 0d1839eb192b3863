// ops.test.mjs — `memgate serve` operations: the access log (JSON lines,
// tool and repo, error codes, no secrets, rotation), SIGHUP (reload: a new
// log file; a broken config keeps the old one), /metrics' latency histograms
// and process gauges, and the SIGTERM drain (/readyz 503 on an open
// connection, the request under way finishes, exit 0; a second SIGTERM exits
// at once).
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { MEMGATE_BIN, call, httpClient, indexRepo, makeRepo, makeWorld, metrics, sleep, startServe } from './lib/harness.mjs';

const worlds = [];
after(() => {
  for (const w of worlds) w.cleanup();
});

function world(tag, config) {
  const w = makeWorld(tag);
  worlds.push(w);
  fs.writeFileSync(path.join(w.home, 'config'), config);
  return w;
}

function logLines(file) {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l)); // every line must parse
}

/* A request's line is written once its response is sent: the client may read the log first. */
async function waitLine(file, pred, what) {
  return waitFor(what, () => logLines(file).find(pred), 5000);
}

async function get(serve, p, headers = {}) {
  const res = await fetch(`${serve.url}${p}`, { headers });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

async function waitFor(what, fn, ms = 10000) {
  const t0 = Date.now();
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** A raw keep-alive connection: send(path) writes one GET and resolves with { status, body }. */
function rawConn(port) {
  const sock = net.connect(port, '127.0.0.1');
  let buf = '';
  let waiter = null;
  sock.setEncoding('utf8');
  const tryParse = () => {
    const end = buf.indexOf('\r\n\r\n');
    if (end < 0 || !waiter) return;
    const head = buf.slice(0, end);
    const len = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
    if (buf.length < end + 4 + len) return;
    const body = buf.slice(end + 4, end + 4 + len);
    buf = buf.slice(end + 4 + len);
    const w = waiter;
    waiter = null;
    w.resolve({ status: Number(head.split(' ')[1]), body });
  };
  sock.on('data', (d) => {
    buf += d;
    tryParse();
  });
  sock.on('error', (e) => waiter?.reject(e));
  return {
    ready: new Promise((r) => sock.once('connect', r)),
    send(p) {
      return new Promise((resolve, reject) => {
        waiter = { resolve, reject };
        sock.write(`GET ${p} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: keep-alive\r\n\r\n`);
      });
    },
    close: () => sock.destroy(),
  };
}

function exited(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((r) => child.once('exit', (code, signal) => r({ code, signal })));
}

let W;
let A;
before(() => {
  W = world('ops', '');
  A = makeRepo(W, 'alpha');
  indexRepo(W, A);
});

test('access log: one JSON line per request, tool and repo, error codes, rotation', async () => {
  const log = path.join(W.home, 'access.log');
  fs.writeFileSync(path.join(W.home, 'config'), `access_log = ${log}\naccess_log_max_bytes = 4096\naccess_log_keep = 2\n`);
  const serve = await startServe(W);
  try {
    const c = await httpClient(serve);
    const r = await call(c.client, 'search_code', { query: A.canary, repo: 'alpha' });
    assert.ok(r.ok, JSON.stringify(r));
    await c.close();
    const bad = await get(serve, '/v1/search?q=x&repo=no_such_repo&access_token=QSECRET_abc123', { 'x-request-id': 'err-line-1' });
    assert.equal(bad.status, 400, bad.text); // a token in the query string is refused before the route runs
    const nf = await get(serve, '/v1/search?q=x&repo=no_such_repo', { 'x-request-id': 'err-line-2' });
    assert.equal(nf.status, 404, nf.text);

    await waitLine(log, (l) => l.request_id === 'err-line-2', 'the line of err-line-2');
    const lines = logLines(log);
    for (const l of lines) {
      for (const k of ['time', 'request_id', 'method', 'route', 'status', 'duration_ms', 'bytes']) assert.ok(k in l, `${k} missing: ${JSON.stringify(l)}`);
      assert.match(l.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.equal(typeof l.duration_ms, 'number');
    }
    const tool = lines.find((l) => l.route === '/mcp' && l.tool === 'search_code');
    assert.ok(tool, `no /mcp line names search_code: ${JSON.stringify(lines)}`);
    assert.equal(tool.repo, 'alpha');
    assert.equal(tool.status, 200);
    assert.equal(tool.tenant, 'local');
    assert.ok(tool.bytes > 0, JSON.stringify(tool));
    assert.equal(tool.error, undefined, JSON.stringify(tool));
    const e2 = lines.find((l) => l.request_id === 'err-line-2');
    assert.ok(e2, 'no line for err-line-2');
    assert.deepEqual([e2.route, e2.tool, e2.repo, e2.status, e2.error], ['/v1/search', 'search_code', 'no_such_repo', 404, 'repo_not_found']);
    const e1 = lines.find((l) => l.request_id === 'err-line-1');
    assert.ok(e1 && e1.status === 400 && e1.error, JSON.stringify(e1));
    assert.ok(!fs.readFileSync(log, 'utf8').includes('QSECRET'), 'the query string (a token) reached the log');

    // rotation: past 4096 bytes the file becomes .1 (then .2); no .3 with keep 2
    for (let i = 0; i < 80; i++) assert.equal((await get(serve, '/healthz', { 'x-request-id': `hz-${i}` })).status, 200);
    await waitLine(log, (l) => l.request_id === 'hz-79', 'the last /healthz line');
    assert.ok(fs.existsSync(`${log}.1`) && fs.existsSync(`${log}.2`), 'the access log was not rotated twice');
    assert.ok(!fs.existsSync(`${log}.3`), 'more rotated files than access_log_keep');
    assert.ok(fs.statSync(`${log}.1`).size >= 4096, 'rotated before the size limit');
    assert.ok(fs.statSync(log).size < 4096 + 1024);
    for (const f of [log, `${log}.1`, `${log}.2`]) logLines(f); // whole lines only
  } finally {
    const st = await serve.stop();
    assert.equal(st.code, 0, serve.stderr());
  }
});

test('access log: a bearer token never reaches the log; the tenant does; SIGHUP applies token_rate_limit', async () => {
  const w = world('opstok', '');
  const log = path.join(w.home, 'access.log');
  fs.writeFileSync(path.join(w.home, 'config'), `access_log = ${log}\ntoken_rate_limit = 6\n`);
  const tok = JSON.parse(execFileSync(MEMGATE_BIN, ['token', 'create', '--tenant', 'acme', '--json'], { env: w.env, encoding: 'utf8' })).token;
  const serve = await startServe(w);
  try {
    const ok = await get(serve, '/v1/repos', { authorization: `Bearer ${tok}` });
    assert.equal(ok.status, 200, ok.text);
    const no = await get(serve, '/v1/repos', { authorization: `Bearer ${tok}x` });
    assert.equal(no.status, 401, no.text);
    await waitLine(log, (l) => l.status === 401, 'the line of the 401');
    const text = fs.readFileSync(log, 'utf8');
    assert.ok(!text.includes(tok), 'the token is in the access log');
    assert.ok(!text.toLowerCase().includes('bearer'), 'a header is in the access log');
    const lines = logLines(log);
    assert.ok(lines.some((l) => l.tenant === 'acme' && l.route === '/v1/repos' && l.status === 200 && l.tool === 'list_repos'), text);
    assert.ok(lines.some((l) => l.status === 401 && l.error), text);

    // SIGHUP applies token_rate_limit: 6/min (burst 10) refuses, 0 (unlimited) does not
    const burst = async () => {
      let limited = 0;
      for (let i = 0; i < 15; i++) if ((await get(serve, '/v1/repos', { authorization: `Bearer ${tok}` })).status === 429) limited++;
      return limited;
    };
    assert.ok((await burst()) > 0, 'token_rate_limit = 6 let 15 requests through');
    fs.writeFileSync(path.join(w.home, 'config'), `access_log = ${log}\ntoken_rate_limit = 0\n`);
    serve.child.kill('SIGHUP');
    await waitFor('the reload line', () => /SIGHUP: config reloaded; applied: token_rate_limit;/.test(serve.stderr()));
    assert.equal(await burst(), 0, 'token_rate_limit = 0 after SIGHUP still limits');
  } finally {
    await serve.stop();
  }
});

test('SIGHUP: a new access_log path moves the log; a broken config keeps serving', async () => {
  const first = path.join(W.home, 'hup-a.log');
  const second = path.join(W.home, 'hup-b.log');
  const cfg = path.join(W.home, 'config');
  fs.writeFileSync(cfg, `access_log = ${first}\n`);
  const serve = await startServe(W);
  try {
    await get(serve, '/healthz', { 'x-request-id': 'before-hup' });
    await waitLine(first, (l) => l.request_id === 'before-hup', 'the line of before-hup');
    fs.writeFileSync(cfg, `access_log = ${second}\nsearch_limit = 7\n`);
    serve.child.kill('SIGHUP');
    await waitFor('the reload line', () => /SIGHUP: config reloaded; applied: access_log; changed but need a restart: search_limit/.test(serve.stderr()));
    await get(serve, '/healthz', { 'x-request-id': 'after-hup' });
    await waitLine(second, (l) => l.request_id === 'after-hup', 'after-hup in the new file');
    assert.ok(!logLines(first).some((l) => l.request_id === 'after-hup'), 'still logging to the old file');

    fs.writeFileSync(cfg, `access_log = ${first}\nno such line\n`);
    serve.child.kill('SIGHUP');
    await waitFor('the refusal line', () => /SIGHUP: error\[invalid_config\]: config not reloaded/.test(serve.stderr()));
    const h = await get(serve, '/healthz', { 'x-request-id': 'after-bad-hup' });
    assert.equal(h.status, 200);
    await waitLine(second, (l) => l.request_id === 'after-bad-hup', 'after-bad-hup in the file in use');
  } finally {
    const st = await serve.stop();
    assert.equal(st.code, 0, serve.stderr());
    fs.writeFileSync(cfg, '');
  }
  // (memgate audit reads the config too: after it is whole again)
  const audit = execFileSync(MEMGATE_BIN, ['audit', '--json', '--op', 'config_reload'], { env: W.env, encoding: 'utf8' });
  const ev = audit.split('\n').filter(Boolean).map((l) => JSON.parse(l));
  assert.equal(ev.length, 2, audit);
  assert.ok(ev.some((e) => e.code === 'invalid_config'), audit);
});

test('/metrics: latency histograms count calls; process gauges are sane', async () => {
  const serve = await startServe(W);
  try {
    const v0 = (await metrics(serve)).values;
    for (let i = 0; i < 3; i++) await get(serve, '/healthz');
    const c = await httpClient(serve);
    assert.ok((await call(c.client, 'search_code', { query: A.canary, repo: 'alpha' })).ok);
    await c.close();
    const hc = 'memgate_http_request_duration_seconds_count{route="/healthz"}';
    // (a request is observed once its response is sent: the client may ask first)
    const m = await waitFor('the /healthz count', async () => {
      const mm = await metrics(serve);
      return (mm.values[hc] ?? 0) - (v0[hc] ?? 0) >= 3 ? mm : null;
    });
    const v = m.values;
    assert.equal((v[hc] ?? 0) - (v0[hc] ?? 0), 3, m.text);
    const tc = 'memgate_tool_duration_seconds_count{tool="search_code"}';
    assert.equal((v[tc] ?? 0) - (v0[tc] ?? 0), 1, m.text);
    // buckets are cumulative and end at +Inf = _count
    const buckets = Object.entries(v).filter(([k]) => k.startsWith('memgate_http_request_duration_seconds_bucket{route="/healthz"'));
    assert.equal(buckets.length, 15);
    for (let i = 1; i < buckets.length; i++) assert.ok(buckets[i][1] >= buckets[i - 1][1], m.text);
    assert.equal(v['memgate_http_request_duration_seconds_bucket{route="/healthz",le="+Inf"}'], v[hc]);
    assert.ok(v['memgate_http_request_duration_seconds_sum{route="/healthz"}'] > 0);
    assert.match(m.text, /# TYPE memgate_tool_duration_seconds histogram/);

    assert.ok(v.process_resident_memory_bytes > 1 << 20, m.text);
    assert.ok(v.process_virtual_memory_bytes >= v.process_resident_memory_bytes);
    assert.ok(v.process_open_fds >= 3 && v.process_open_fds <= v.process_max_fds, m.text);
    assert.ok(v.process_threads >= 2, m.text);
    assert.ok(v.process_cpu_seconds_total >= 0);
    const age = Date.now() / 1000 - v.process_start_time_seconds;
    assert.ok(age >= 0 && age < 600, `process_start_time_seconds is ${age} s ago`);
    assert.ok(Object.keys(v).some((k) => /^memgate_build_info\{version="[^"]+",commit="[^"]+"\}$/.test(k) && v[k] === 1), m.text);
  } finally {
    await serve.stop();
  }
});

test('SIGTERM drains: /readyz 503 on an open connection, the slow request finishes, exit 0', async () => {
  const serve = await startServe(W, [], { MEMGATE_TEST_V1_DELAY_MS: '1500' });
  const conn = rawConn(serve.port);
  try {
    await conn.ready;
    assert.equal((await conn.send('/readyz')).status, 200);
    const slow = fetch(`${serve.url}/v1/repos`).then(async (r) => ({ status: r.status, json: await r.json() }));
    await sleep(400); // the request is in its delay
    const done = exited(serve.child);
    serve.child.kill('SIGTERM');
    await waitFor('the drain line', () => /SIGTERM received, draining/.test(serve.stderr()));
    const rz = await conn.send('/readyz');
    assert.equal(rz.status, 503, rz.body);
    assert.deepEqual(JSON.parse(rz.body), { ready: false, reason: 'stopping' });
    await assert.rejects(fetch(`${serve.url}/healthz`), 'a new connection was accepted while draining');
    const s = await slow;
    assert.equal(s.status, 200, JSON.stringify(s.json));
    assert.ok(Array.isArray(s.json.repos), JSON.stringify(s.json));
    const st = await done;
    assert.equal(st.code, 0, serve.stderr());
    assert.match(serve.stderr(), /stopping: 1 request drained, 0 cut off/);
  } finally {
    conn.close();
    await serve.stop();
  }
});

test('SIGTERM does not wait for a subscriptions/listen stream: it gets its end', async () => {
  const serve = await startServe(W);
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
  const res = await fetch(serve.mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: meta } }),
  });
  assert.match(res.headers.get('content-type') || '', /text\/event-stream/);
  const reader = res.body.getReader();
  let text = '';
  while (!text.includes('acknowledged')) {
    const { value, done } = await reader.read();
    if (done) break;
    text += Buffer.from(value).toString();
  }
  assert.match(text, /acknowledged/);
  const done = exited(serve.child);
  const t0 = Date.now();
  serve.child.kill('SIGTERM');
  const st = await done;
  assert.equal(st.code, 0, serve.stderr());
  assert.ok(Date.now() - t0 < 5000, `the drain waited ${Date.now() - t0} ms for a listen stream`);
  assert.match(serve.stderr(), /draining 0 requests/);
  for (;;) if ((await reader.read()).done) break; // the stream ended
});

test('a second SIGTERM during the drain exits at once', async () => {
  const serve = await startServe(W, [], { MEMGATE_TEST_V1_DELAY_MS: '8000' });
  try {
    const slow = fetch(`${serve.url}/v1/repos`).catch((e) => e);
    await sleep(400);
    const done = exited(serve.child);
    const t0 = Date.now();
    serve.child.kill('SIGTERM');
    await waitFor('the drain line', () => /draining/.test(serve.stderr()));
    serve.child.kill('SIGTERM');
    const st = await done;
    assert.ok(Date.now() - t0 < 4000, `took ${Date.now() - t0} ms`);
    assert.equal(st.code, 1, serve.stderr());
    assert.match(serve.stderr(), /second SIGTERM: exiting at once/);
    await slow;
  } finally {
    await serve.stop();
  }
});

test('config: access_log must be off, stderr or an absolute path', () => {
  const w = world('opscfg', 'access_log = relative.log\n');
  const r = spawnSync(MEMGATE_BIN, ['serve', '--listen', '127.0.0.1:0'], { env: w.env, encoding: 'utf8', timeout: 10000 });
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /invalid_config.*access_log is not off, stderr or an absolute file path/);
});
