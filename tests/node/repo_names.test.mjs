// repo_names.test.mjs — issue 38 V9: repo ids reveal nothing across tenants.
// A tenant's token names its repos in its own namespace (TENANT~NAME,
// docs/security.md "Repo ids"), so naming a new repo after another tenant's
// answers exactly as a free name does (on main: 409 repo_exists "taken by
// another tenant"), over the HTTP API (POST /v1/index) and MCP index_repo;
// each tenant then reaches its own `foo` by that name, never the other's.
// repo_names_pg.test.mjs runs it again on the shared catalog in PostgreSQL
// (storage = postgres://..., globalThis.MEMGATE_STORAGE = 'pg').
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, test } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { call, makeRepo, makeWorld, MEMGATE_BIN, pgDatabase, shutdown, startServe, v1 } from './lib/harness.mjs';

const PG = globalThis.MEMGATE_STORAGE === 'pg';
let world;
let serve;
const tok = {};
const R = {};

function mg(args) {
  const r = spawnSync(MEMGATE_BIN, args, { env: world.env, cwd: world.cwd, encoding: 'utf8' });
  assert.equal(r.status, 0, `memgate ${args.join(' ')}: ${r.stdout}${r.stderr}`);
  return r.stdout;
}

async function mcp(t) {
  const client = new Client({ name: 'repo-names-test', version: '1.0.0' }, { capabilities: {} });
  await client.connect(new StreamableHTTPClientTransport(new URL(serve.mcpUrl), {
    requestInit: { headers: { authorization: `Bearer ${t}` } },
  }));
  return client;
}

const ids = async (t) => (await v1(serve, '/v1/repos', { token: t })).json.repos.map((r) => r.id).sort();

before(async () => {
  world = makeWorld('reponames');
  if (PG) world.env.MEMGATE_STORAGE = pgDatabase('reponames');
  world.env.MEMGATE_WATCH = 'off';
  world.env.MEMGATE_INDEX_ROOTS = `acme:${world.dir}, globex:${world.dir}`;
  for (const n of ['gfoo', 'gbaz', 'afoo', 'abar', 'abaz']) R[n] = makeRepo(world, n);
  tok.acme = JSON.parse(mg(['token', 'create', '--tenant', 'acme', '--scope', 'admin', '--rate', '0', '--json'])).token;
  tok.globex = JSON.parse(mg(['token', 'create', '--tenant', 'globex', '--scope', 'admin', '--rate', '0', '--json'])).token;
  serve = await startServe(world);
});

after(async () => {
  try {
    await shutdown([], serve);
  } finally {
    world.cleanup();
  }
});

test('V9: a name another tenant holds is as free as any other, over /v1/index and MCP index_repo', async () => {
  // globex takes `foo` over HTTP and `baz` over MCP first
  let r = await v1(serve, '/v1/index', { token: tok.globex, method: 'POST', body: { path: R.gfoo.root, name: 'foo' } });
  assert.equal(r.status, 200, r.text);
  const g = await mcp(tok.globex);
  try {
    const ix = await call(g, 'index_repo', { path: R.gbaz.root, name: 'baz' });
    assert.ok(ix.ok, ix.text);
  } finally {
    await g.close();
  }
  // acme names its repos the same, and a free name: the same answer every time
  const taken = await v1(serve, '/v1/index', { token: tok.acme, method: 'POST', body: { path: R.afoo.root, name: 'foo' } });
  const free = await v1(serve, '/v1/index', { token: tok.acme, method: 'POST', body: { path: R.abar.root, name: 'bar' } });
  assert.equal(taken.status, 200, taken.text);
  assert.equal(free.status, 200, free.text);
  assert.deepEqual(Object.keys(taken.json).sort(), Object.keys(free.json).sort());
  assert.ok(!taken.text.includes('globex') && !taken.text.includes(R.gfoo.root), taken.text);
  const a = await mcp(tok.acme);
  try {
    const ix = await call(a, 'index_repo', { path: R.abaz.root, name: 'baz' });
    assert.ok(ix.ok, `index_repo of a name globex holds: ${ix.text}`);
    // each tenant's `foo` is its own, by that name
    const s = await call(a, 'search_code', { query: R.afoo.canary, repo: 'foo' });
    assert.ok(s.ok && s.data.results.length > 0, JSON.stringify(s.data ?? s.text));
    const other = await call(a, 'search_code', { query: R.gfoo.canary, repo: 'foo' });
    assert.ok(!JSON.stringify(other.data ?? other.text).includes(R.gfoo.canary));
  } finally {
    await a.close();
  }
  assert.deepEqual(await ids(tok.acme), ['acme~bar', 'acme~baz', 'acme~foo']);
  assert.deepEqual(await ids(tok.globex), ['globex~baz', 'globex~foo']);
  r = await v1(serve, `/v1/search?q=${R.gfoo.canary}&repo=foo`, { token: tok.globex });
  assert.equal(r.status, 200, r.text);
  assert.ok(r.text.includes(R.gfoo.canary) && !r.text.includes(R.afoo.canary), r.text);
  // another tenant's id, even spelt out, is answered like an id nobody has
  const spelt = await v1(serve, '/v1/search?q=x&repo=globex~foo', { token: tok.acme });
  const none = await v1(serve, '/v1/search?q=x&repo=globex~nothing', { token: tok.acme });
  assert.equal(spelt.status, 404, spelt.text);
  assert.equal(spelt.json.error.code, 'repo_not_found');
  assert.equal(spelt.json.error.message.replace('globex~foo', 'X'), none.json.error.message.replace('globex~nothing', 'X'));
  // nothing was refused as taken
  const audit = mg(['audit', '--json', '--limit', '0']).split('\n').filter(Boolean).map((l) => JSON.parse(l));
  assert.ok(!audit.some((e) => e.code === 'repo_exists'), 'a repo_exists refusal was audited');
});
