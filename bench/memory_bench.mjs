#!/usr/bin/env node
// bench/memory_bench.mjs — agent memory against the reference MCP memory
// server (@modelcontextprotocol/server-memory, pinned in bench/memory-peer/),
// the same workload through the same client (the official MCP SDK, stdio):
//
//   1. create BENCH_MEM_ENTITIES entities (default 10,000) in calls of
//      BENCH_MEM_BATCH (default 100), each with one observation/note
//      (reference: create_entities; memgate: add_entities, in a session that
//      joined a project so its entities are visible to it);
//   2. BENCH_MEM_SEARCHES searches (default 1,000), each for a word only one
//      entity has, checked to hit (reference: search_nodes; memgate:
//      search_entities); p50/p99 per operation kind and the ratio;
//   3. BENCH_MEM_WRITERS (default 20) separate client processes on one store,
//      each creating BENCH_MEM_PER_WRITER entities (default 50) in one call,
//      all at once; then everything is read back and the lost writes counted.
//
// memgate: `memgate mcp --repo bench-TAG` with a fresh MEMGATE_HOME and one
// small indexed repo. Reference: `node dist/index.js` with MEMORY_FILE_PATH in
// a temp dir. Prints a Markdown report (docs/benchmarks.md, "Memory").
//
// BENCH_MEM_STORAGE=postgres://...: memgate's memory in that PostgreSQL
// database (a fresh one, e.g. `scripts/pg.sh start DIR`'s) instead of SQLite.
// BENCH_MEM_SECOND_WORD=W: memgate's searches are `kwNNNNN W` (two words,
// so ranked by meaning too; a one-word search is a lookup by words) — the
// reference's stay one word (its search is a substring match), so the
// ratio then compares a question with a lookup.
//
// usage: node bench/memory_bench.mjs     (after `make` and `scripts/setup.sh --bench`)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const peer = path.join(here, 'memory-peer', 'node_modules');
const BIN = path.resolve(root, process.env.MEMGATE_BIN || 'build/memgate');
const REF = path.join(peer, '@modelcontextprotocol', 'server-memory', 'dist', 'index.js');
const N = Number(process.env.BENCH_MEM_ENTITIES || 10000);
const BATCH = Number(process.env.BENCH_MEM_BATCH || 100);
const SEARCHES = Number(process.env.BENCH_MEM_SEARCHES || 1000);
const WRITERS = Number(process.env.BENCH_MEM_WRITERS || 20);
const PER_WRITER = Number(process.env.BENCH_MEM_PER_WRITER || 50);
const STORAGE = process.env.BENCH_MEM_STORAGE || '';
const SECOND = process.env.BENCH_MEM_SECOND_WORD || '';

for (const [f, hint] of [[BIN, "run 'make'"], [REF, "run 'scripts/setup.sh --bench'"]]) {
  if (!fs.existsSync(f)) {
    console.error(`memory_bench: ${f} is missing; ${hint}`);
    process.exit(1);
  }
}
const sdk = (p) => import(pathToFileURL(path.join(peer, '@modelcontextprotocol', 'sdk', 'dist', 'esm', p)).href);
const { Client } = await sdk('client/index.js');
const { StdioClientTransport } = await sdk('client/stdio.js');
const sdkVersion = JSON.parse(fs.readFileSync(path.join(peer, '@modelcontextprotocol', 'sdk', 'package.json'))).version;
const refVersion = JSON.parse(fs.readFileSync(path.join(peer, '@modelcontextprotocol', 'server-memory', 'package.json'))).version;

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'memgate-membench-'));
process.on('exit', () => fs.rmSync(work, { recursive: true, force: true }));
const log = (m) => process.stderr.write(`memory_bench: ${m}\n`);
const pad = (i) => String(i).padStart(5, '0');

// ---- the two servers behind one interface ---------------------------------------------------------

function envWithout(prefix) {
  const e = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith(prefix)) e[k] = v;
  return e;
}

/** A fresh memgate data directory with one small indexed repo named "bench". */
function memgateHome(tag) {
  const home = path.join(work, `home-${tag}`);
  const repo = path.join(work, `repo-${tag}`);
  fs.mkdirSync(home, { mode: 0o700 });
  fs.mkdirSync(path.join(repo, 'src'), { recursive: true });
  fs.writeFileSync(path.join(repo, 'src', 'main.c'), 'int main(void) { return 0; }\n');
  execFileSync('git', ['init', '-q', repo]);
  // each run its own repo name: on PostgreSQL the two runs' homes share one catalog
  const env = { ...envWithout('MEMGATE_'), MEMGATE_HOME: home, BENCH_REPO: `bench-${tag}`, ...(STORAGE ? { MEMGATE_STORAGE: STORAGE } : {}) };
  execFileSync(BIN, ['index', repo, '--name', env.BENCH_REPO, '--quiet'], { env, cwd: work });
  return env;
}

async function connect(command, args, env, name) {
  const client = new Client({ name, version: '1.0.0' }, { capabilities: {} });
  const transport = new StdioClientTransport({ command, args, env, cwd: work, stderr: 'ignore' });
  await client.connect(transport);
  return client;
}

async function tool(client, name, args) {
  const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 600000 });
  if (r.isError) throw new Error(`${name}: ${(r.content || []).map((c) => c.text).join(' ')}`);
  return r;
}

const memgate = {
  name: 'memgate',
  async open(env, name) {
    const c = await connect(BIN, ['mcp', '--repo', env.BENCH_REPO], env, name);
    await tool(c, 'join_project', { project: 'bench' });
    return c;
  },
  async prepare(env) {
    const c = await connect(BIN, ['mcp', '--repo', env.BENCH_REPO], env, 'setup');
    await tool(c, 'create_project', { name: 'bench' });
    await c.close();
  },
  create: (c, ents) => tool(c, 'add_entities', { entities: ents.map((e) => ({ name: e.name, type: e.type, notes: e.text })) }),
  search: async (c, q) => JSON.stringify((await tool(c, 'search_entities', { query: q, limit: 10 })).structuredContent),
  async names(c, want) {
    // read back: one search per name
    const found = new Set();
    for (const n of want) if ((await this.search(c, n)).includes(`"${n}"`)) found.add(n);
    return found;
  },
};

const reference = {
  name: 'server-memory',
  open: (env, name) => connect(process.execPath, [REF], env, name),
  async prepare() {},
  create: (c, ents) => tool(c, 'create_entities', { entities: ents.map((e) => ({ name: e.name, entityType: e.type, observations: [e.text] })) }),
  search: async (c, q) => (await tool(c, 'search_nodes', { query: q })).content.map((x) => x.text).join(''),
  async names(c) {
    const r = await tool(c, 'read_graph', {});
    const g = r.structuredContent ?? JSON.parse(r.content[0].text);
    return new Set(g.entities.map((e) => e.name));
  },
};

function refEnv(tag) {
  return { ...envWithout('MEMORY_'), MEMORY_FILE_PATH: path.join(work, `memory-${tag}.jsonl`) };
}

// ---- measurements -----------------------------------------------------------------------------------

function pct(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

async function single(server, env) {
  await server.prepare(env);
  const c = await server.open(env, 'bench');
  const create = [];
  for (let i = 0; i < N; i += BATCH) {
    const ents = [];
    for (let j = i; j < Math.min(N, i + BATCH); j++) {
      ents.push({ name: `ent${pad(j)}`, type: ['service', 'module', 'person', 'decision'][j % 4], text: `observation about kw${pad(j)} and the shared widget layer` });
    }
    const t0 = performance.now();
    await server.create(c, ents);
    create.push(performance.now() - t0);
  }
  log(`${server.name}: ${N} entities created`);
  const search = [];
  let seed = 12345;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  let misses = 0;
  for (let i = 0; i < SEARCHES; i++) {
    const j = Math.floor(rnd() * N);
    const t0 = performance.now();
    const text = await server.search(c, server === memgate && SECOND ? `kw${pad(j)} ${SECOND}` : `kw${pad(j)}`);
    search.push(performance.now() - t0);
    if (!text.includes(`ent${pad(j)}`)) misses++;
  }
  await c.close();
  log(`${server.name}: ${SEARCHES} searches (${misses} missed)`);
  return { create, search, misses };
}

async function concurrent(server, env) {
  await server.prepare(env);
  const clients = [];
  for (let w = 0; w < WRITERS; w++) clients.push(await server.open(env, `writer-${w}`));
  const want = [];
  const batches = clients.map((_, w) => {
    const ents = [];
    for (let k = 0; k < PER_WRITER; k++) {
      const name = `cw${String(w).padStart(2, '0')}x${String(k).padStart(3, '0')}`;
      want.push(name);
      ents.push({ name, type: 'thing', text: `written by writer ${w}` });
    }
    return ents;
  });
  const t0 = performance.now();
  const results = await Promise.allSettled(clients.map((c, w) => server.create(c, batches[w])));
  const secs = (performance.now() - t0) / 1000;
  const failed = results.filter((r) => r.status === 'rejected').length;
  for (const c of clients) await c.close();
  const reader = await server.open(env, 'reader');
  const found = await server.names(reader, want);
  await reader.close();
  const lost = want.filter((n) => !found.has(n)).length;
  const keptWriters = batches.filter((b) => b.every((e) => found.has(e.name))).length;
  log(`${server.name}: ${WRITERS} writers, ${lost} of ${want.length} writes lost`);
  return { lost, total: want.length, keptWriters, failed, secs };
}

const f1 = (x) => x.toFixed(1);
const f2 = (x) => (x < 10 ? x.toFixed(2) : x.toFixed(1));

log(`single client: ${N} entities in calls of ${BATCH}, ${SEARCHES} searches`);
const mg = await single(memgate, memgateHome('single'));
const ref = await single(reference, refEnv('single'));
log(`${WRITERS} concurrent writers x ${PER_WRITER} entities`);
const mgc = await concurrent(memgate, memgateHome('conc'));
const refc = await concurrent(reference, refEnv('conc'));

const row = (label, a, b) => `| ${label} | ${f2(pct(a, 50))} ms | ${f2(pct(a, 99))} ms | ${f2(pct(b, 50))} ms | ${f2(pct(b, 99))} ms | ${f1(pct(b, 50) / pct(a, 50))}x / ${f1(pct(b, 99) / pct(a, 99))}x |`;
console.log(`
### Memory: memgate vs @modelcontextprotocol/server-memory ${refVersion} — ${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores

Same client (@modelcontextprotocol/sdk ${sdkVersion}, stdio) and workload against \`memgate mcp\`
(fresh MEMGATE_HOME, one indexed repo, the session in a project) and the reference server
(MEMORY_FILE_PATH in a temp dir): ${N.toLocaleString('en')} entities with one observation each, created in calls of ${BATCH};
then ${SEARCHES.toLocaleString('en')} searches for a word only one entity has (misses: memgate ${mg.misses}, reference ${ref.misses})${SECOND ? `; memgate's with the second word \`${SECOND}\`` : ''}${STORAGE ? '; memgate on PostgreSQL' : ''}.

| operation | memgate p50 | memgate p99 | reference p50 | reference p99 | reference / memgate (p50 / p99) |
| --- | --- | --- | --- | --- | --- |
${row(`create ${BATCH} entities (one call)`, mg.create, ref.create)}
${row('search (one call)', mg.search, ref.search)}

${WRITERS} client processes on one store, each creating ${PER_WRITER} entities in one call, all at once, then read back:

| server | writes lost | writers whose every entity survived | failed calls | wall time |
| --- | --- | --- | --- | --- |
| memgate | ${mgc.lost} of ${mgc.total} | ${mgc.keptWriters} of ${WRITERS} | ${mgc.failed} | ${mgc.secs.toFixed(2)} s |
| server-memory | ${refc.lost} of ${refc.total} | ${refc.keptWriters} of ${WRITERS} | ${refc.failed} | ${refc.secs.toFixed(2)} s |
`);
