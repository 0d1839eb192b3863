// coldvec.test.mjs — `memgate serve` never makes a hybrid search wait for
// vectors to load (docs/semantic.md, "Cold start"): over HTTP, the first
// hybrid search of a repo whose vectors are not in memory yet is answered at
// once by words, exactly as mode=lexical answers it, with
// "semantic":{"state":"loading",...}; once they are in, the answer is a full
// hybrid one, the CLI's exactly, without the field. A restarted server loads
// them from its start.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, test } from 'node:test';

import { makeRepo, makeWorld, MEMGATE_BIN, shutdown, sleep, startServe, v1 } from './lib/harness.mjs';

const ENV = { MEMGATE_WATCH: 'off' }; // the test indexes; a watcher would too
const Q = 'where are the fixture store items looked up';
let world;
let alpha;
let serve;

function mg(args) {
  return execFileSync(MEMGATE_BIN, args, { env: { ...world.env, ...ENV }, cwd: world.cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

const hits = (j) => j.results.map((h) => `${h.path}:${h.start_line}-${h.end_line} ${h.score}`).join(' ');

async function search(mode) {
  const r = await v1(serve, `/v1/search?q=${encodeURIComponent(Q)}&mode=${mode}&repo_id=alpha`);
  assert.equal(r.status, 200, r.text);
  return r.json;
}

async function untilHybrid() {
  const t0 = Date.now();
  for (;;) {
    const j = await search('hybrid');
    if (j.mode === 'hybrid') return j;
    assert.equal(j.mode, 'lexical');
    assert.equal(j.semantic.state, 'loading');
    if (Date.now() - t0 > 30000) assert.fail(`vectors never loaded; serve's stderr:\n${serve.stderr()}`);
    await sleep(50);
  }
}

before(() => {
  world = makeWorld('coldvec');
  alpha = makeRepo(world, 'alpha');
});

after(async () => {
  await shutdown([], serve);
  world.cleanup();
});

test('a hybrid search is answered by words while the vectors load, then fully', async () => {
  serve = await startServe(world, [], ENV);
  mg(['index', alpha.root, '--name', 'alpha', '--quiet']); // after the start: nothing was loaded for it
  const first = await search('hybrid');
  assert.equal(first.mode, 'lexical');
  assert.equal(first.semantic.state, 'loading');
  assert.equal(typeof first.semantic.vectors_loaded, 'number');
  assert.equal(typeof first.semantic.vectors_total, 'number');
  const lex = await search('lexical');
  assert.equal(lex.semantic, undefined);
  assert.equal(hits(first), hits(lex));
  assert.ok(first.results.length > 0);

  const full = await untilHybrid();
  assert.equal(full.semantic, undefined);
  const cli = JSON.parse(mg(['search', Q, '--mode', 'hybrid', '--repo', 'alpha', '--json']));
  assert.equal(cli.mode, 'hybrid');
  assert.equal(hits(full), hits(cli));
  await shutdown([], serve);
  serve = null;
});

test('a restarted server loads the vectors from its start', async () => {
  serve = await startServe(world, [], ENV);
  // no search asks: within 2 s the vectors of a small repo are in, so the search after is a full one
  await sleep(2000);
  const j = await search('hybrid');
  assert.equal(j.mode, 'hybrid', JSON.stringify(j.semantic));
  assert.equal(j.semantic, undefined);
});
