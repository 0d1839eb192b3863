// tasks.test.mjs — the MCP tasks extension (io.modelcontextprotocol/tasks,
// docs/mcp.md "Tasks") on memgate's own long tools, through a real
// `memgate serve` and raw 2026-07-28 requests (no SDK speaks the extension
// yet; the conformance suite checks the wire in conformance2026.test.mjs):
//
// - index_repo and impact run as tasks when the client declares the
//   extension (CreateTaskResult, then tasks/get until completed, the result
//   inlined), and at once when it does not;
// - a task belongs to its caller: another tenant's token, and another token
//   of the same tenant, hear that it does not exist (-32602) from tasks/get,
//   tasks/update and tasks/cancel, and cannot cancel it;
// - the store is bounded: a caller's 33rd task not fetched is refused
//   (rate_limited), and fetching one makes room.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { createToken, makeWorld, runMemgate, shutdown, sleep, startServe } from './lib/harness.mjs';

const EXT = 'io.modelcontextprotocol/tasks';
const PER_CALLER = 32; // MG_MCP_TASKS_PER_CALLER (src/mcp/tasks.h)
let world;
let serve;
const roots = {};
const tok = {};

const mg = (args) => runMemgate(world, args);

const token = (...args) => createToken(world, ...args);

let nextId = 1;
// One 2026-07-28 request; ext: declare the tasks extension. Returns the JSON-RPC response.
async function rpc(who, method, params = {}, { ext = true } = {}) {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': ext ? { extensions: { [EXT]: {} } } : {},
  };
  const name = method === 'tools/call' ? params.name : params.taskId;
  const res = await fetch(serve.mcpUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${tok[who]}`,
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(name ? { 'mcp-name': name } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: { ...meta, ...params._meta } } }),
  });
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    assert.fail(`not JSON (HTTP ${res.status}): ${text.slice(0, 500)}`);
  }
}

async function terminal(who, taskId) {
  const deadline = Date.now() + 60000;
  for (;;) {
    const r = await rpc(who, 'tasks/get', { taskId });
    assert.ok(r.result, JSON.stringify(r));
    if (['completed', 'failed', 'cancelled'].includes(r.result.status)) return r.result;
    assert.ok(Date.now() < deadline, `task ${taskId} still ${r.result.status}`);
    await sleep(100);
  }
}

before(async () => {
  world = makeWorld('tasks');
  world.env.MEMGATE_INDEX_ROOTS = `acme:${path.join(world.dir, 'acme')}, globex:${path.join(world.dir, 'globex')}`;
  for (const [tenant, name] of [['acme', 'alpha'], ['globex', 'gamma']]) {
    roots[name] = path.join(world.dir, tenant, name);
    fs.mkdirSync(roots[name], { recursive: true });
    fs.writeFileSync(path.join(roots[name], 'main.c'), `int ${name}_helper(int x) { return x + 1; }\nint ${name}_main(void) { return ${name}_helper(1); }\n`);
    const r = mg(['index', roots[name], '--name', name, '--tenant', tenant, '--json']);
    assert.equal(r.status, 0, r.stderr);
  }
  tok.acme = token('--tenant', 'acme', '--scope', 'admin');
  tok.acme2 = token('--tenant', 'acme', '--scope', 'admin');
  tok.globex = token('--tenant', 'globex', '--scope', 'admin');
  serve = await startServe(world);
});

after(async () => {
  await shutdown([], serve);
  world.cleanup();
});

test('server/discover advertises the extension; tools/list marks the long tools taskSupport optional', async () => {
  const d = await rpc('acme', 'server/discover');
  assert.deepEqual(d.result.capabilities.extensions?.[EXT], {}, JSON.stringify(d));
  const l = await rpc('acme', 'tools/list', { _meta: { 'memgate/tools': 'all' } });
  const support = Object.fromEntries(l.result.tools.map((t) => [t.name, t.execution?.taskSupport]));
  for (const name of ['index_repo', 'impact', 'extract_knowledge']) assert.equal(support[name], 'optional', name);
  assert.equal(support.search_code, undefined);
});

test('index_repo runs as a task when the client declares the extension, at once when it does not', async () => {
  fs.writeFileSync(path.join(roots.alpha, 'more.c'), 'int alpha_more(void) { return 2; }\n');
  const created = await rpc('acme', 'tools/call', { name: 'index_repo', arguments: { path: roots.alpha, name: 'alpha' } });
  const c = created.result;
  assert.equal(c?.resultType, 'task', JSON.stringify(created));
  assert.match(c.taskId, /^[0-9a-f]{32}$/);
  assert.ok(['working', 'completed'].includes(c.status), c.status);
  assert.ok(Number.isInteger(c.ttlMs) && c.ttlMs > 0 && Number.isInteger(c.pollIntervalMs));
  const done = await terminal('acme', c.taskId);
  assert.equal(done.status, 'completed', JSON.stringify(done));
  assert.equal(done.result.isError, undefined, JSON.stringify(done.result));
  assert.equal(done.result.structuredContent.repo, 'alpha');
  assert.ok(done.result.structuredContent.files >= 2);
  assert.match(done.result.content[0].text, /alpha/);

  const sync = await rpc('acme', 'tools/call', { name: 'index_repo', arguments: { path: roots.alpha, name: 'alpha' } }, { ext: false });
  assert.equal(sync.result?.resultType, 'complete', JSON.stringify(sync));
  assert.equal(sync.result.taskId, undefined);
  assert.equal(sync.result.structuredContent.repo, 'alpha');
});

test('impact runs as a task; its result is the one a direct call gives', async () => {
  const args = { paths: ['main.c'], repo: 'alpha' };
  const created = await rpc('acme', 'tools/call', { name: 'impact', arguments: args });
  assert.equal(created.result?.resultType, 'task', JSON.stringify(created));
  const done = await terminal('acme', created.result.taskId);
  assert.equal(done.status, 'completed', JSON.stringify(done));
  const direct = await rpc('acme', 'tools/call', { name: 'impact', arguments: args }, { ext: false });
  assert.deepEqual(done.result.structuredContent, direct.result.structuredContent);
  assert.ok(done.result.structuredContent.changed.length > 0, JSON.stringify(done.result.structuredContent));
});

test('a task id is reachable from its caller only: not another tenant, not another token of the tenant', async () => {
  const created = await rpc('acme', 'tools/call', { name: 'impact', arguments: { paths: ['main.c'], repo: 'alpha' } });
  const id = created.result?.taskId;
  assert.ok(id, JSON.stringify(created));
  for (const who of ['globex', 'acme2']) {
    for (const [method, params] of [
      ['tasks/get', { taskId: id }],
      ['tasks/update', { taskId: id, inputResponses: { roots: { roots: [] } } }],
      ['tasks/cancel', { taskId: id }],
    ]) {
      const r = await rpc(who, method, params);
      assert.equal(r.error?.code, -32602, `${who} ${method}: ${JSON.stringify(r)}`);
      assert.equal(r.result, undefined);
      assert.doesNotMatch(JSON.stringify(r), /alpha|main\.c/);
    }
  }
  const mine = await terminal('acme', id); // the others' cancel did not reach it
  assert.equal(mine.status, 'completed', JSON.stringify(mine));
});

test('tasks/* without the extension declared: -32021 naming it', async () => {
  const r = await rpc('acme', 'tasks/get', { taskId: 'x' }, { ext: false });
  assert.equal(r.error?.code, -32021, JSON.stringify(r));
  assert.deepEqual(r.error.data?.requiredCapabilities?.extensions?.[EXT], {});
});

test(`the store is bounded: a caller's task ${PER_CALLER + 1} not fetched is refused; fetching one makes room`, async () => {
  // globex has no task yet
  const ids = [];
  for (let i = 0; i < PER_CALLER; i++) {
    const r = await rpc('globex', 'tools/call', { name: 'impact', arguments: { paths: ['main.c'], repo: 'gamma' } });
    assert.equal(r.result?.resultType, 'task', `task ${i}: ${JSON.stringify(r)}`);
    ids.push(r.result.taskId);
  }
  const over = await rpc('globex', 'tools/call', { name: 'impact', arguments: { paths: ['main.c'], repo: 'gamma' } });
  assert.equal(over.result?.isError, true, JSON.stringify(over));
  assert.match(over.result.content[0].text, /^error\[rate_limited\]: .*tasks\/get/);
  // another caller is not affected
  const other = await rpc('acme2', 'tools/call', { name: 'impact', arguments: { paths: ['main.c'], repo: 'alpha' } });
  assert.equal(other.result?.resultType, 'task', JSON.stringify(other));
  const first = await terminal('globex', ids[0]); // fetched: it may make room now
  assert.equal(first.status, 'completed');
  const again = await rpc('globex', 'tools/call', { name: 'impact', arguments: { paths: ['main.c'], repo: 'gamma' } });
  assert.equal(again.result?.resultType, 'task', JSON.stringify(again));
  const gone = await rpc('globex', 'tasks/get', { taskId: ids[0] });
  assert.equal(gone.error?.code, -32602, 'the fetched task made room');
  for (const id of ids.slice(1)) assert.equal((await terminal('globex', id)).status, 'completed');
});

test('every memgate process exits cleanly (status 0, no sanitizer report)', async () => {
  const s = serve;
  serve = null;
  await shutdown([], s);
});
