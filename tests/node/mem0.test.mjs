// mem0.test.mjs — session memory in Mem0 (sessions_provider = mem0,
// docs/providers.md "Session memory in Mem0") against the loopback fake of
// lib/fake-mem0.mjs, which implements the self-hosted Mem0 REST server's
// endpoints memgate calls and checks them strictly (Mem0 itself needs an
// LLM and an embedder, so it cannot run here).
//
//   - the contract: the requests memgate sends (X-API-Key, infer:false,
//     user_id hashed per tenant and repo, the pool pushed down in search);
//   - what reaches Mem0 has passed the gate (a secret redacted or refused);
//   - isolation when Mem0 misbehaves: rows of another tenant, another
//     project or a planted owner that a filter-ignoring Mem0 returns are
//     dropped and counted, never served;
//   - failure: down, slow, malformed, flooding, connection reset: recall and
//     get_context answer without episodes and say so (an entry of "providers"), remember
//     is refused with provider_unavailable (503) and not acknowledged, each
//     failure counted in memgate_provider_errors_total{provider="mem0"};
//   - delete_project and `memgate repos rm` delete the episodes in Mem0 (and
//     keep the project when Mem0 is down);
//   - the key never in a message, the server's log or the audit log;
//   - configuration errors stop the server with invalid_config.
// The memory behaviours of seed 001 with Mem0 as the backend are
// memory_mem0.test.mjs and memory_isolation_mem0.test.mjs (the built-in's
// tests, run again).
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { makeRepo, makeWorld, MEMGATE_BIN, metricSum, startServe, v1 } from './lib/harness.mjs';
import { startFakeMem0 } from './lib/fake-mem0.mjs';

let world;
let fake;
let serve;
const tokens = {};
const rnd = () => crypto.randomBytes(5).toString('hex');
const sid = (tag) => `sess-${tag}-${rnd()}`;

function mg(args, env = {}) {
  return execFileSync(MEMGATE_BIN, args, { env: { ...world.env, ...env }, cwd: world.cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

before(async () => {
  world = makeWorld('mem0');
  fake = await startFakeMem0();
  Object.assign(world.env, fake.env, { MEMGATE_MEM0_TIMEOUT: '1' });
  world.env.MEMGATE_INDEX_ROOTS = `acme:${world.dir},globex:${world.dir}`;
  for (const t of ['acme', 'globex']) tokens[t] = JSON.parse(mg(['token', 'create', '--tenant', t, '--scope', 'admin', '--rate', '0', '--json'])).token;
  for (const [name, t] of [['acme0', 'acme'], ['acme1', 'acme'], ['globex0', 'globex']]) {
    const fx = makeRepo(world, name);
    mg(['index', fx.root, '--name', name, '--tenant', t, '--quiet']);
  }
  serve = await startServe(world);
});

after(async () => {
  if (serve) await serve.stop();
  await fake?.close();
  world.cleanup();
});

/** A /v1 call as tenant t on repo, in session s. */
const api = (t, repo, s, p, opt = {}) =>
  v1(serve, p, { token: tokens[t], ...opt, headers: { 'x-memgate-repo': repo, 'x-session-id': s, ...(opt.headers || {}) } });
const remember = (t, repo, s, summary) => api(t, repo, s, '/v1/episodes', { method: 'POST', body: { summary } });
const recall = (t, repo, s, q) => api(t, repo, s, `/v1/episodes?limit=100${q ? `&q=${encodeURIComponent(q)}` : ''}`);
/** /metrics as { 'name{labels}': value } (an admin token: tokens are on). */
async function metricValues() {
  const r = await v1(serve, '/metrics', { token: tokens.acme });
  assert.equal(r.status, 200, r.text);
  const out = {};
  for (const line of r.text.split('\n')) {
    const m = /^([^#\s]\S*)\s+(\S+)/.exec(line);
    if (m) out[m[1]] = Number(m[2]);
  }
  return out;
}
const drops = async () => metricSum(await metricValues(), 'memgate_isolation_drops_total') ?? 0;
const providerErrors = async () => (await metricValues())['memgate_provider_errors_total{provider="mem0"}'] ?? 0;

test('the contract: X-API-Key, infer:false, a hashed user per tenant and repo, the pool pushed down into search', async () => {
  await fake.clear();
  const w = `contract${rnd()}`;
  const s = sid('c');
  let r = await remember('acme', 'acme0', s, `${w} the first episode`);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.episode.summary, `${w} the first episode`);
  assert.ok(Number.isSafeInteger(r.json.episode.id), r.text);
  assert.equal((await remember('acme', 'acme1', `${s}.r1`, `${w} in the other repo`)).status, 200);
  assert.equal((await remember('globex', 'globex0', `${s}.g`, `${w} another tenant`)).status, 200);
  assert.equal((await recall('acme', 'acme0', s, w)).status, 200);
  r = await recall('acme', 'acme0', s);
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.json.episodes.map((e) => e.summary), [`${w} the first episode`]);
  const reqs = await fake.requests();
  for (const q of reqs) assert.equal(q.headers['x-api-key'], fake.key, `${q.method} ${q.path} without the key`);
  const adds = reqs.filter((q) => q.method === 'POST' && q.path === '/memories').map((q) => JSON.parse(q.body));
  assert.equal(adds.length, 3);
  const users = new Set();
  for (const b of adds) {
    assert.deepEqual(Object.keys(b).sort(), ['infer', 'messages', 'metadata', 'run_id', 'user_id']);
    assert.equal(b.infer, false);
    assert.ok(b.run_id.startsWith(s), b.run_id);
    assert.match(b.user_id, /^mg-[0-9a-f]{32}$/); // hashed: no tenant or repo name in it
    assert.deepEqual(b.messages.length, 1);
    assert.equal(b.metadata.mg_session, b.run_id);
    assert.match(b.metadata.mg_fp, /^[0-9a-f]{32}$/);
    users.add(b.user_id);
  }
  assert.equal(users.size, 3, 'two repos of a tenant, or two tenants, share a Mem0 user');
  const search = reqs.find((q) => q.path === '/search');
  const sb = JSON.parse(search.body);
  assert.equal(sb.query, w);
  assert.equal(sb.filters.user_id, adds[0].user_id);
  assert.deepEqual(sb.filters.mg_session, { in: [s] });
  const list = reqs.find((q) => q.method === 'GET' && q.path === '/memories');
  assert.deepEqual(list.query, { user_id: adds[0].user_id, top_k: '1000' });
});

test('what reaches Mem0 has passed the gate: a secret in a summary is stored redacted, one in a tag is refused before Mem0', async () => {
  const ghp = `ghp_${crypto.randomBytes(27).toString('base64').replace(/[^A-Za-z0-9]/g, 'a').slice(0, 36)}`;
  const s = sid('sec');
  const w = `sec${rnd()}`;
  const r = await remember('acme', 'acme0', s, `${w} deployed with token ${ghp} today`);
  assert.equal(r.status, 200, r.text);
  assert.ok(!r.text.includes(ghp), r.text);
  const row = (await fake.rows()).find((x) => x.payload.data.startsWith(w));
  assert.ok(row, 'the episode is not in Mem0');
  assert.ok(!JSON.stringify(row).includes(ghp) && row.payload.data.includes('[REDACTED'), JSON.stringify(row));
  const n0 = (await fake.rows()).length;
  const t = await api('acme', 'acme0', s, '/v1/episodes', { method: 'POST', body: { summary: `${w} tagged`, tags: [ghp] } });
  assert.equal(t.status, 400, t.text);
  assert.equal(t.json.error.code, 'secret_in_identifier');
  assert.equal((await fake.rows()).length, n0, 'a refused episode reached Mem0');
});

test('a Mem0 that ignores the filters: rows of another tenant, another project and a planted owner are dropped and counted, never served', async () => {
  await fake.clear();
  const w = `leak${rnd()}`;
  const mine = sid('mine');
  const member = sid('member');
  const proj = `p${rnd()}`;
  assert.equal((await remember('acme', 'acme0', mine, `${w} MINE`)).status, 200);
  assert.equal((await remember('globex', 'globex0', sid('g'), `${w} OTHER_TENANT`)).status, 200);
  assert.equal((await remember('acme', 'acme1', sid('r'), `${w} OTHER_REPO`)).status, 200);
  assert.equal((await api('acme', 'acme0', member, '/v1/projects', { method: 'POST', body: { name: proj } })).status < 300, true);
  assert.equal((await api('acme', 'acme0', member, `/v1/projects/${proj}/join`, { method: 'POST', body: {} })).status, 200);
  assert.equal((await remember('acme', 'acme0', member, `${w} OTHER_PROJECT`)).status, 200);
  // planted under acme0's own Mem0 user, claiming another tenant
  const real = (await fake.rows()).find((x) => x.payload.data === `${w} MINE`);
  await fake.plant({ ...real.payload, data: `${w} PLANTED`, mg_tenant: 'globex' });
  const before0 = await drops();
  await fake.setMode('ignore_filters');
  try {
    for (const q of [w, undefined]) {
      const r = await recall('acme', 'acme0', mine, q);
      assert.equal(r.status, 200, r.text);
      assert.ok(r.text.includes(`${w} MINE`), r.text);
      for (const bad of ['OTHER_TENANT', 'OTHER_REPO', 'OTHER_PROJECT', 'PLANTED']) assert.ok(!r.text.includes(bad), `${bad} served: ${r.text}`);
      assert.equal(r.json.providers, undefined);
    }
    const c = await api('acme', 'acme0', mine, `/v1/context?prompt=${w}`);
    assert.equal(c.status, 200, c.text);
    for (const bad of ['OTHER_TENANT', 'OTHER_REPO', 'OTHER_PROJECT', 'PLANTED']) assert.ok(!c.text.includes(bad), `${bad} in get_context`);
  } finally {
    await fake.setMode('ok');
  }
  // search: 4 foreign rows (tenant, repo, planted, and the project's row outside the pool);
  // listing: 3 (the project's row is another pool's, skipped); get_context's search: 4
  const counted = (await drops()) - before0;
  console.log(`# isolation drops counted: ${counted}`);
  assert.ok(counted >= 11, `only ${counted} drops counted`);
  assert.ok(serve.stderr().includes('memories from outside the request\'s scope'), 'no drop logged');
});

test('Mem0 down, slow, malformed, flooding or resetting: recall and get_context degrade and say so; remember is refused, not acknowledged; each failure counted', async () => {
  const s = sid('fail');
  const w = `fail${rnd()}`;
  assert.equal((await remember('acme', 'acme0', s, `${w} stored before`)).status, 200);
  for (const mode of ['down', 'slow', 'malformed', 'flood', 'reset']) {
    await fake.setMode(mode, 3000);
    const e0 = await providerErrors();
    try {
      const t0 = Date.now();
      const r = await recall('acme', 'acme0', s, w);
      const ms = Date.now() - t0;
      assert.equal(r.status, 200, `${mode}: ${r.text}`);
      assert.deepEqual(r.json.episodes, [], `${mode}: ${r.text}`);
      assert.deepEqual(r.json.providers?.map((p) => [p.name, p.status]), [['mem0', 'unavailable']], `${mode}: ${r.text}`);
      assert.ok(ms < 2900, `${mode}: recall took ${ms} ms with mem0_timeout 1 s`);
      const c = await api('acme', 'acme0', s, `/v1/context?prompt=${w}`);
      assert.equal(c.status, 200, `${mode}: ${c.text}`);
      assert.equal(c.json.providers?.[0]?.name, 'mem0', `${mode}: ${c.text.slice(0, 300)}`);
      const m = await remember('acme', 'acme0', s, `${w} refused ${mode}`);
      assert.equal(m.status, 503, `${mode}: ${m.text}`);
      assert.equal(m.json.error.code, 'provider_unavailable', m.text);
      assert.match(m.json.error.message, /not stored|may not be stored/, m.text);
      assert.ok(!m.text.includes(fake.key));
      assert.ok((await providerErrors()) >= e0 + 3, `${mode}: the failures were not counted`);
    } finally {
      await fake.setMode('ok');
    }
    if (mode !== 'slow') { // a slow Mem0 may store what came too late: the error says it may be stored
      const rows = await fake.rows();
      assert.ok(!rows.some((x) => x.payload.data === `${w} refused ${mode}`), `${mode}: a refused episode is in Mem0`);
    }
  }
  // back: the earlier episode is there again
  const r = await recall('acme', 'acme0', s, w);
  assert.ok(r.text.includes(`${w} stored before`) && r.json.providers === undefined, r.text);
  assert.ok(serve.stderr().includes("memgate: warning: mem0 at '"), 'no failure logged');
});

test('delete_project deletes its episodes in Mem0 first; with Mem0 down the project stays; nothing is released into the pool', async () => {
  const proj = `d${rnd()}`;
  const s = sid('del');
  const other = sid('pool');
  const w = `del${rnd()}`;
  assert.equal((await api('acme', 'acme0', s, '/v1/projects', { method: 'POST', body: { name: proj } })).status < 300, true);
  assert.equal((await api('acme', 'acme0', s, `/v1/projects/${proj}/join`, { method: 'POST', body: {} })).status, 200);
  assert.equal((await remember('acme', 'acme0', s, `${w} project secret plan`)).status, 200);
  await fake.setMode('down');
  let d;
  try {
    d = await api('acme', 'acme0', s, `/v1/projects/${proj}`, { method: 'DELETE' });
  } finally {
    await fake.setMode('ok');
  }
  assert.equal(d.status, 503, d.text);
  assert.equal(d.json.error.code, 'provider_unavailable');
  const l = await api('acme', 'acme0', s, '/v1/projects');
  assert.ok(l.json.projects.some((p) => p.name === proj), 'the project went although Mem0 was down');
  d = await api('acme', 'acme0', s, `/v1/projects/${proj}`, { method: 'DELETE' });
  assert.equal(d.status, 200, d.text);
  assert.equal(d.json.episodes, 1, d.text);
  assert.ok(!(await fake.rows()).some((x) => x.payload.data.includes(w)), 'the project episode is still in Mem0');
  for (const who of [s, other]) {
    const r = await recall('acme', 'acme0', who, w);
    assert.ok(!r.text.includes(w), `released into the pool: ${r.text}`);
  }
});

test('`memgate repos rm` forgets the repo\'s episodes in Mem0, and only that repo\'s', async () => {
  const w = `rm${rnd()}`;
  assert.equal((await remember('acme', 'acme1', sid('rm'), `${w} acme1 episode`)).status, 200);
  assert.equal((await remember('acme', 'acme0', sid('rm'), `${w} acme0 episode`)).status, 200);
  mg(['repos', 'rm', 'acme1', '--tenant', 'acme']);
  const left = (await fake.rows()).map((x) => x.payload.data).filter((d) => d.startsWith(w));
  assert.deepEqual(left, [`${w} acme0 episode`]);
});

test('the key is never in a message, the server log or the audit log; a wrong key is refused without being repeated', async () => {
  const wrong = `wrong-key-${rnd()}${rnd()}`;
  const s2 = await startServe(world, [], { MEMGATE_MEM0_API_KEY: wrong });
  try {
    const r = await v1(s2, '/v1/episodes', { token: tokens.acme, method: 'POST', headers: { 'x-memgate-repo': 'acme0', 'x-session-id': sid('k') }, body: { summary: 'with a wrong key' } });
    assert.equal(r.status, 503, r.text);
    assert.match(r.json.error.message, /HTTP 401/);
    assert.ok(!r.text.includes(wrong));
    const q = await v1(s2, '/v1/episodes?q=wrong', { token: tokens.acme, headers: { 'x-memgate-repo': 'acme0', 'x-session-id': sid('k') } });
    assert.equal(q.json.providers?.[0]?.status, 'unavailable', q.text);
  } finally {
    await s2.stop();
  }
  assert.ok(!s2.stderr().includes(wrong), s2.stderr());
  assert.ok(!serve.stderr().includes(fake.key));
  const audit = fs.readFileSync(path.join(world.home, 'audit', 'audit.log'), 'utf8');
  assert.ok(audit.includes('provider_unavailable'), 'the failures are not audited');
  assert.ok(!audit.includes(fake.key) && !audit.includes(wrong), 'a Mem0 key is in the audit log');
});

test('configuration: mem0 without mem0_url, credentials in it, or an unknown sessions_provider stop the server with invalid_config', () => {
  for (const env of [
    { MEMGATE_SESSIONS_PROVIDER: 'mem0', MEMGATE_MEM0_URL: '' },
    { MEMGATE_SESSIONS_PROVIDER: 'mem0', MEMGATE_MEM0_URL: 'http://user:pw@127.0.0.1:1' },
    { MEMGATE_SESSIONS_PROVIDER: 'mem0', MEMGATE_MEM0_URL: 'ftp://127.0.0.1:1' },
    { MEMGATE_SESSIONS_PROVIDER: 'zep' },
    { MEMGATE_SESSIONS_PROVIDER: 'mem0', MEMGATE_MEM0_API_KEY: 'abc\r\nX-Injected: 1' },
  ]) {
    const e = { ...world.env, ...env };
    for (const [k, v] of Object.entries(env)) if (v === '') delete e[k];
    const r = spawnSync(MEMGATE_BIN, ['serve', '--listen', '127.0.0.1:0'], { env: e, cwd: world.cwd, encoding: 'utf8', timeout: 10000 });
    assert.notEqual(r.status, 0, `${JSON.stringify(env)} started: ${r.stderr}`);
    assert.match(r.stderr, /invalid_config/, JSON.stringify(env));
    assert.ok(!r.stderr.includes('pw@'), r.stderr);
  }
});
