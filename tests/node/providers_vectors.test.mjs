// providers_vectors.test.mjs — external vector stores (docs/providers.md,
// "Vector stores: Chroma and Qdrant"), end to end through the memgate binary:
//
//   chroma  the real Chroma server (npm chromadb's `chroma run`), started on
//           loopback in a temporary directory;
//   qdrant  a loopback fake of Qdrant's REST subset (lib/qdrant_fake.mjs): no
//           Qdrant server can be installed here. It validates bodies strictly
//           and checks the api-key header.
//
// For each: an external store is refused without allow_external_vectors = on;
// two repos index into it and semantic and hybrid search find the right file,
// only in their own repo; a point planted in a repo's collection with another
// repo's metadata is never served, and one the store returns though it is not
// the repo's is dropped and counted (memgate_isolation_drops_total); the use
// is audited; with the store gone, hybrid search answers by words and says
// so, semantic search fails with vector_store_unavailable, the provider error
// metric rises, and index runs keep the lexical index with a warning.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { makeRepo, makeWorld, MEMGATE_BIN, metrics, NODE22, NODE_DIR, shutdown, sleep, startServe, v1 } from './lib/harness.mjs';
import { startQdrantFake } from './lib/qdrant_fake.mjs';

const KEY = 'vs-key-Zq81xx-never-printed';
const CHROMA_CLI = path.join(NODE_DIR, 'node_modules', '.bin', 'chroma');
const CB = '/api/v2/tenants/default_tenant/databases/default_database';

async function freePort() {
  const s = net.createServer();
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

async function post(url, body, headers = {}) {
  const res = await fetch(url, { method: body === undefined ? 'GET' : 'POST', headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  assert.ok(res.ok, `${url}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** The real Chroma, on loopback, in dir. */
async function startChroma(dir) {
  const port = await freePort();
  const child = spawn(NODE22, [CHROMA_CLI, 'run', '--path', path.join(dir, 'chroma'), '--host', '127.0.0.1', '--port', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  const url = `http://127.0.0.1:${port}`;
  const t0 = Date.now();
  for (;;) {
    try {
      const r = await fetch(`${url}/api/v2/heartbeat`);
      if (r.ok) break;
    } catch {
      /* not up yet */
    }
    if (child.exitCode !== null || Date.now() - t0 > 60000) throw new Error(`chroma did not start:\n${log}`);
    await sleep(200);
  }
  return {
    url,
    log: () => log,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const done = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL'); // dies, as a crashed store would
      await done;
    },
  };
}

/** The store-specific parts of a test: start, stop, and reaching into the store directly. */
const STORES = {
  chroma: {
    async start(world) {
      const c = await startChroma(world.dir);
      return {
        url: c.url,
        stop: () => c.stop(),
        log: c.log,
        /** the collection holding repo's points, and one of its points (with its vector) */
        async pointOf(repo) {
          const cols = await post(`${c.url}${CB}/collections`);
          for (const col of cols) {
            const g = await post(`${c.url}${CB}/collections/${col.id}/get`, { where: { repo }, limit: 1, include: ['metadatas', 'embeddings'] });
            if (g.ids.length) return { col, id: g.ids[0], meta: g.metadatas[0], vector: g.embeddings[0], names: cols.map((x) => x.name) };
          }
          throw new Error(`no collection holds repo ${repo}`);
        },
        async plant(p, id, meta) {
          await post(`${c.url}${CB}/collections/${p.col.id}/upsert`, { ids: [String(id)], embeddings: [p.vector], metadatas: [meta] });
        },
        async unplant(p, id) {
          await post(`${c.url}${CB}/collections/${p.col.id}/delete`, { ids: [String(id)] });
        },
      };
    },
  },
  qdrant: {
    async start() {
      const f = await startQdrantFake({ apiKey: KEY });
      const h = { 'api-key': KEY };
      return {
        url: f.url,
        fake: f,
        stop: () => f.close(),
        log: () => JSON.stringify(f.requests.slice(-20)),
        async pointOf(repo) {
          for (const [name, col] of f.collections)
            for (const p of col.points.values()) if (p.payload.repo === repo) return { col: { name }, id: p.id, meta: p.payload, vector: p.vector, names: [...f.collections.keys()] };
          throw new Error(`no collection holds repo ${repo}`);
        },
        async plant(p, id, meta) {
          const res = await fetch(`${f.url}/collections/${p.col.name}/points?wait=true`, { method: 'PUT', headers: { 'content-type': 'application/json', ...h }, body: JSON.stringify({ points: [{ id, vector: p.vector, payload: meta }] }) });
          assert.equal(res.status, 200, await res.text());
        },
        async unplant(p, id) {
          const res = await fetch(`${f.url}/collections/${p.col.name}/points/delete?wait=true`, { method: 'POST', headers: { 'content-type': 'application/json', ...h }, body: JSON.stringify({ filter: { must: [{ has_id: [id] }] } }) });
          assert.equal(res.status, 200, await res.text());
        },
      };
    },
  },
};

for (const kind of Object.keys(STORES)) {
  describe(`vector_store = ${kind}`, () => {
    let world, alpha, beta, store, serve;
    let env;
    // (asynchronous: the Qdrant fake answers from this process's event loop)
    const mg = (args) =>
      new Promise((resolve) => {
        const c = spawn(MEMGATE_BIN, args, { env: { ...world.env, ...env }, cwd: world.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        c.stdout.on('data', (d) => (stdout += d));
        c.stderr.on('data', (d) => (stderr += d));
        c.on('close', (status) => resolve({ status, stdout, stderr }));
      });

    before(async () => {
      world = makeWorld(`vstore-${kind}`);
      alpha = makeRepo(world, 'alpha');
      beta = makeRepo(world, 'beta');
      store = await STORES[kind].start(world);
      env = { MEMGATE_WATCH: 'off', MEMGATE_VECTOR_STORE: kind, MEMGATE_VECTOR_URL: store.url, MEMGATE_VECTOR_API_KEY: KEY, MEMGATE_VECTOR_TIMEOUT: '5' };
    });

    after(async () => {
      await shutdown([], serve);
      await store.stop();
      world.cleanup();
    });

    test('an external store is refused without allow_external_vectors = on, saying what it means', async () => {
      const r = await mg(['index', alpha.root, '--name', 'alpha', '--quiet']);
      assert.notEqual(r.status, 0, r.stdout);
      assert.match(r.stderr, /invalid_config/);
      assert.match(r.stderr, /allow_external_vectors = on/);
      assert.match(r.stderr, /encryption at rest/);
      assert.ok(!r.stderr.includes(KEY));
      env.MEMGATE_ALLOW_EXTERNAL_VECTORS = 'on';
    });

    test('two repos index into the store; semantic and hybrid search find the right file, in their own repo only', async () => {
      for (const [repo, name] of [[alpha, 'alpha'], [beta, 'beta']]) {
        const r = await mg(['index', repo.root, '--name', name, '--json']);
        assert.equal(r.status, 0, r.stderr);
        const j = JSON.parse(r.stdout);
        assert.ok(j.vectors.chunks > 0, r.stdout);
        assert.ok(!j.vectors.warning, j.vectors.warning);
      }
      // the store holds them, one collection per repo, named by a hash (never the repo's name)
      const pa = await store.pointOf('alpha');
      const pb = await store.pointOf('beta');
      assert.notEqual(pa.col.name, pb.col.name);
      for (const n of [pa.col.name, pb.col.name]) assert.match(n, /^memgate-[0-9a-f]{24}$/);
      assert.deepEqual(Object.keys(pa.meta).sort(), ['chunk', 'file', 'fp', 'repo', 'tenant']);
      assert.equal(pa.meta.tenant, 'local');
      if (kind === 'qdrant') assert.ok(store.fake.requests.every((q) => q.apiKey === KEY), 'every request carries the api-key');

      serve = await startServe(world, [], env);
      for (const repo of [alpha, beta]) {
        for (const mode of ['semantic', 'hybrid']) {
          const r = await v1(serve, `/v1/search?q=${encodeURIComponent('the C entry point')}&mode=${mode}&repo_id=${repo.name}`);
          assert.equal(r.status, 200, r.text);
          assert.equal(r.json.mode, mode, r.text);
          assert.equal(r.json.semantic, undefined);
          assert.equal(r.json.results[0].path, 'src/main.c', r.text);
          const other = repo === alpha ? beta : alpha;
          assert.ok(!r.text.includes(other.canary), `${repo.name} served ${other.name}'s text`);
          assert.ok(r.text.includes(repo.canary));
        }
      }
      // the scope goes down as chunk ranges: only the files it allows come back, best first
      for (const [scope, want] of [['glob=src/*.py', /^src\/util\.py$/], ['lang=go&lang=rust', /^(src\/server\.go|lib\/core\.rs)$/], ['exclude=src/**', /^(?!src\/)/]]) {
        const r = await v1(serve, `/v1/search?q=${encodeURIComponent('the C entry point')}&mode=semantic&repo_id=alpha&${scope}`);
        assert.equal(r.status, 200, r.text);
        assert.ok(r.json.results.length > 0, `${scope}: ${r.text}`);
        for (const h of r.json.results) assert.match(h.path, want, scope);
      }
      const st = JSON.parse((await mg(['status', '--json'])).stdout);
      assert.deepEqual({ kind: st.vector_store.kind, external: st.vector_store.external, url: st.vector_store.url }, { kind, external: true, url: store.url });
      assert.ok(!JSON.stringify(st).includes(KEY));
      // audited: the external store's use, never the key
      const audit = (await mg(['audit', '--json'])).stdout;
      assert.match(audit, /"op":"external_vectors"/);
      assert.match(audit, /unencrypted_vectors/);
      assert.ok(!audit.includes(KEY));
    });

    test("a point planted with another repo's metadata is never served; one the store returns anyway is dropped and counted", async () => {
      const pa = await store.pointOf('alpha');
      const pb = await store.pointOf('beta');
      const q = `/v1/search?q=${encodeURIComponent('the C entry point')}&mode=semantic&repo_id=alpha&limit=50`;
      const before = (await v1(serve, q)).json;
      const drops0 = (await metrics(serve)).values['memgate_isolation_drops_total{kind="vector"}'] ?? 0;
      // beta's metadata (its repo, fingerprint and a chunk id of its own), alpha's best vector, in alpha's collection
      await store.plant(pa, 900001, { ...pb.meta, chunk: 900001 });
      const r1 = await v1(serve, q);
      assert.equal(r1.status, 200, r1.text);
      assert.deepEqual(r1.json.results, before.results); // Qdrant's filter kept it out; Chroma returned it and memgate dropped it
      let drops = (await metrics(serve)).values['memgate_isolation_drops_total{kind="vector"}'] ?? 0;
      if (kind === 'chroma') assert.ok(drops > drops0, `isolation drops ${drops0} -> ${drops}`);
      if (kind === 'qdrant') {
        // a store that does not apply the filter returns it: memgate's own check drops it and counts it
        store.fake.ignoreFilters = true;
        const r2 = await v1(serve, q);
        store.fake.ignoreFilters = false;
        assert.equal(r2.status, 200, r2.text);
        assert.deepEqual(r2.json.results, before.results);
        assert.ok(!r2.text.includes(beta.canary));
      } else {
        // Chroma applies the filter; a point whose metadata passes it but whose id is another chunk's is not trusted
        await store.plant(pa, 900002, { ...pa.meta, chunk: Number(pa.id) });
        const r2 = await v1(serve, q);
        assert.equal(r2.status, 200, r2.text);
        assert.deepEqual(r2.json.results.map((h) => h.path), before.results.map((h) => h.path));
        await store.unplant(pa, 900002);
      }
      drops = (await metrics(serve)).values['memgate_isolation_drops_total{kind="vector"}'] ?? 0;
      assert.ok(drops > drops0, `isolation drops ${drops0} -> ${drops}: ${serve.stderr().slice(-2000)}`);
      assert.match(serve.stderr(), /dropped \d+ points from the \w+ vector store/);
      await store.unplant(pa, 900001);
    });

    test('the store gone: hybrid answers by words and says so, semantic fails with a code, the metric rises, index warns', async () => {
      const m0 = (await metrics(serve)).values[`memgate_provider_errors_total{provider="${kind}"}`] ?? 0;
      await store.stop();
      const h = await v1(serve, `/v1/search?q=${encodeURIComponent('the C entry point')}&mode=hybrid&repo_id=alpha`);
      assert.equal(h.status, 200, h.text);
      assert.deepEqual(h.json.semantic, { state: 'unavailable', source: kind, error: 'vector_store_unavailable', repos: 1 });
      assert.equal(h.json.mode, 'lexical');
      assert.ok(h.json.results.length > 0);
      assert.ok(!h.text.includes(beta.canary));
      const s = await v1(serve, `/v1/search?q=${encodeURIComponent('the C entry point')}&mode=semantic&repo_id=alpha`);
      assert.ok(s.status >= 400, s.text);
      assert.match(s.text, /vector_store_unavailable/);
      assert.ok(!s.text.includes(KEY));
      const m1 = (await metrics(serve)).values[`memgate_provider_errors_total{provider="${kind}"}`] ?? 0;
      assert.ok(m1 >= m0 + 2, `provider errors ${m0} -> ${m1}`);
      assert.ok(!serve.stderr().includes(KEY));
      // an index run with the store down: the lexical index is made, the vectors' failure is a warning
      fs.writeFileSync(path.join(alpha.root, 'src/extra.c'), 'int parse_the_extra_widget(void) { return 7; }\n');
      const r = await mg(['index', alpha.root, '--name', 'alpha', '--json']);
      assert.equal(r.status, 0, r.stderr);
      const j = JSON.parse(r.stdout);
      assert.match(j.vectors.warning, /vector_store_unavailable/);
      assert.ok(!r.stdout.includes(KEY) && !r.stderr.includes(KEY));
      const lex = JSON.parse((await mg(['search', 'parse_the_extra_widget', '--mode', 'lexical', '--repo', 'alpha', '--json'])).stdout);
      assert.equal(lex.results[0].path, 'src/extra.c');
    });
  });
}
