// isolation.test.mjs — many clients at once, each bound by its roots to its
// own repo: two `memgate mcp` processes and three HTTP sessions on one
// `memgate serve`, thousands of interleaved search_code / search_symbols /
// list_files / read_file calls. Every answer must come from the caller's repo
// and hold no other repo's canary; afterwards /metrics must show no
// isolation drop.
//
// MEMGATE_ISOLATION_CALLS sets the calls per client (default 600).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import {
  call,
  httpClient,
  indexRepo,
  makeRepo,
  makeWorld,
  metrics,
  metricSum,
  shutdown,
  startServe,
  stdioClient,
} from './lib/harness.mjs';

const CALLS = Number(process.env.MEMGATE_ISOLATION_CALLS || 600);
const INFLIGHT = 4; // concurrent requests per client

let world;
let serve;
let repos;
const open = [];

before(async () => {
  world = makeWorld('isolation');
  repos = ['alpha', 'bravo', 'charlie', 'delta', 'echo'].map((n) => makeRepo(world, n));
  for (const r of repos) indexRepo(world, r);
  serve = await startServe(world);
});

after(async () => {
  for (const c of open) await c.close().catch(() => {});
  if (serve) await serve.stop();
  world.cleanup();
});

/** One call of a random kind; returns a list of problems (empty when fine). */
async function oneCall(client, me, others, i) {
  const problems = [];
  const kind = i % 4;
  let r;
  if (kind === 0) {
    // half the time the own canary, half another repo's (must find nothing of it)
    const q = i % 8 === 0 ? others[i % others.length].canary : me.canary;
    r = await call(client, 'search_code', { query: q, limit: 10 });
  } else if (kind === 1) {
    r = await call(client, 'search_symbols', { query: i % 8 === 1 ? 'canary' : `${me.canary}_`, limit: 10 });
  } else if (kind === 2) {
    r = await call(client, 'list_files', {});
  } else {
    r = await call(client, 'read_file', { path: me.files[i % me.files.length] });
  }
  if (!r.ok) return [`call ${i} (${['search_code', 'search_symbols', 'list_files', 'read_file'][kind]}): ${r.text}`];
  const s = JSON.stringify(r.data);
  for (const o of others) if (s.includes(o.canary)) problems.push(`call ${i}: ${o.name}'s canary in ${me.name}'s answer`);
  const rows = r.data.results ?? r.data.files ?? [r.data];
  for (const row of rows) {
    if (row.repo !== me.name) problems.push(`call ${i}: repo ${row.repo} in ${me.name}'s answer`);
    if (!me.files.includes(row.path)) problems.push(`call ${i}: path ${row.path} is not a file of ${me.name}`);
  }
  if (kind === 0 && i % 8 !== 0 && r.data.results.length === 0) problems.push(`call ${i}: own canary not found`);
  if (kind === 2 && r.data.files.length !== me.files.length) problems.push(`call ${i}: ${r.data.files.length} files`);
  if (kind === 3 && !r.data.text.includes(me.canary) && r.data.path !== 'docs/notes.txt')
    problems.push(`call ${i}: read_file text lacks the canary`);
  if (r.data.scope && JSON.stringify(r.data.scope.repos) !== JSON.stringify([me.name]))
    problems.push(`call ${i}: scope.repos ${JSON.stringify(r.data.scope.repos)}`);
  return problems;
}

async function drive(client, me) {
  const others = repos.filter((r) => r !== me);
  const problems = [];
  let next = 0;
  const worker = async () => {
    while (next < CALLS) {
      const i = next++;
      problems.push(...(await oneCall(client, me, others, i)));
    }
  };
  await Promise.all(Array.from({ length: INFLIGHT }, worker));
  return problems;
}

test(`5 clients (2 stdio, 3 HTTP), each bound to its own repo, ${CALLS} calls each, interleaved`, async () => {
  const clients = [
    { c: await stdioClient(world, { roots: [repos[0].root], name: 'stdio-0' }), repo: repos[0] },
    { c: await stdioClient(world, { roots: [repos[1].root], name: 'stdio-1' }), repo: repos[1] },
    { c: await httpClient(serve, { roots: [repos[2].root], name: 'http-2' }), repo: repos[2] },
    { c: await httpClient(serve, { roots: [repos[3].root], name: 'http-3' }), repo: repos[3] },
    { c: await httpClient(serve, { roots: [repos[4].root], name: 'http-4' }), repo: repos[4] },
  ];
  open.push(...clients.map((x) => x.c));
  const t0 = Date.now();
  const results = await Promise.all(clients.map(({ c, repo }) => drive(c.client, repo)));
  const secs = (Date.now() - t0) / 1000;
  const total = CALLS * clients.length;
  console.log(`# isolation: ${total} calls in ${secs.toFixed(1)} s (${(total / secs).toFixed(0)}/s)`);
  const problems = results.flat();
  assert.deepEqual(problems.slice(0, 20), [], `${problems.length} problems`);
});

test('after the storm: /metrics shows memgate_isolation_drops_total 0 and the calls', async () => {
  const m = await metrics(serve);
  assert.equal(m.status, 200);
  assert.equal(metricSum(m.values, 'memgate_isolation_drops_total'), 0, m.text);
  const calls = metricSum(m.values, 'memgate_tool_calls_total');
  assert.ok(calls >= CALLS * 3, `memgate_tool_calls_total ${calls}`);
  const errors = Object.entries(m.values)
    .filter(([k]) => k.startsWith('memgate_tool_calls_total') && k.includes('result="error"'))
    .reduce((a, [, v]) => a + v, 0);
  assert.equal(errors, 0, m.text);
});

test('every memgate process exits cleanly (status 0, no sanitizer report)', async () => {
  const clients = open.splice(0);
  const s = serve;
  serve = null;
  await shutdown(clients, s);
});
