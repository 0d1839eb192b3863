// catalog_pg.test.mjs — the shared repo catalog (docs/index.md "Several
// daemons: the shared catalog"): three `memgate serve`, A, B and C, each
// with a data directory of its own, on one PostgreSQL database and one
// working copy (one machine: the same path everywhere). A repo indexed
// through A is learnt by B and C (LISTEN/NOTIFY), which index their own
// copies; an explicit re-index on A brings them up to the new generation,
// B answering `"index_stale": true` meanwhile (its catch-up is slowed by the test
// seam MEMGATE_TEST_CATCHUP_DELAY_MS) while C (storage_stale = wait) waits
// and answers fresh; a push webhook delivered to A is pulled and indexed by
// every daemon; settings changed on one apply on all; `repos rm` on A drops
// the repo everywhere; a repo of tenant acme is never served to globex on any
// daemon.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { makeWorld, MEMGATE_BIN, pgDatabase, pgSql, shutdown, startServe, until, v1 } from './lib/harness.mjs';

const SECRET = 'catalog-test-secret-0123456789abcdef';
const DELAY_B = 5000; // B's catch-up runs start this late: B is seen behind
const DELAY_C = 3000; // C's too, and C waits for them (storage_stale = wait)

let world;
let url;
let remote; // a bare repository, the working copy's origin
let W; // the working copy every daemon indexes (one machine, one path)
let other; // a clone to push from
const d = {}; // name -> { home, serve, acme, globex } (tokens of its own data directory)

function git(cwd, ...args) {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'init.defaultBranch=main', ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

const envOf = (home) => ({ ...world.env, MEMGATE_HOME: home });

function mg(home, args) {
  const r = spawnSync(MEMGATE_BIN, args, { env: envOf(home), cwd: world.cwd, encoding: 'utf8' });
  assert.equal(r.status, 0, `memgate ${args.join(' ')} (${home}): ${r.stdout}${r.stderr}`);
  return r.stdout;
}

function commit(cwd, file, text) {
  fs.mkdirSync(path.dirname(path.join(cwd, file)), { recursive: true });
  fs.writeFileSync(path.join(cwd, file), text);
  git(cwd, 'add', '.');
  git(cwd, 'commit', '-qm', file);
}

const search = (name, q, token = d[name].acme, repo = 'alpha') =>
  v1(d[name].serve, `/v1/search?q=${encodeURIComponent(q)}&repo_id=${repo}`, { token });

async function hits(name, q, repo = 'alpha') {
  const r = await search(name, q, d[name].acme, repo);
  assert.equal(r.status, 200, `${name}: ${r.text}`);
  return r.json.results.length;
}

async function listed(name, token = d[name].acme) {
  const r = await v1(d[name].serve, '/v1/repos', { token });
  assert.equal(r.status, 200, `${name}: ${r.text}`);
  return r.json.repos;
}

const stateOf = async (name, id) => (await listed(name)).find((r) => r.id === id)?.index_state;

const auditOf = (name) =>
  mg(d[name].home, ['audit', '--json', '--limit', '0']).split('\n').filter(Boolean).map((l) => JSON.parse(l));

before(async () => {
  world = makeWorld('catalogpg');
  // the watchers off: a change reaches an index only through the runs under test
  world.env.MEMGATE_WATCH = 'off';
  world.env.MEMGATE_INDEX_ROOTS = `acme:${world.dir}, globex:${world.dir}`;
  url = pgDatabase('catalog');
  world.env.MEMGATE_STORAGE = url;

  remote = path.join(world.dir, 'remote.git');
  git(world.dir, 'init', '-q', '--bare', remote);
  W = path.join(world.dir, 'wc');
  git(world.dir, 'clone', '-q', remote, W);
  commit(W, 'src/main.c', 'int alpha_first_marker(void) { return 1; }\n');
  git(W, 'push', '-q', 'origin', 'main');
  other = path.join(world.dir, 'other');
  git(world.dir, 'clone', '-q', remote, other);

  for (const name of ['a', 'b', 'c']) {
    const home = path.join(world.dir, `home-${name}`);
    fs.mkdirSync(home, { mode: 0o700 });
    // every daemon of one database has the same token pepper (docs/deploy.md, "Tokens"): A's
    if (name !== 'a') {
      fs.copyFileSync(path.join(d.a.home, 'token.pepper'), path.join(home, 'token.pepper'));
      fs.chmodSync(path.join(home, 'token.pepper'), 0o600);
    }
    const token = (tenant) =>
      JSON.parse(mg(home, ['token', 'create', '--tenant', tenant, '--scope', 'admin', '--rate', '0', '--json'])).token;
    d[name] = { home, acme: token('acme'), globex: token('globex') };
  }
  const extra = {
    a: { MEMGATE_WEBHOOK_SECRET: SECRET },
    b: { MEMGATE_TEST_CATCHUP_DELAY_MS: String(DELAY_B) },
    c: { MEMGATE_TEST_CATCHUP_DELAY_MS: String(DELAY_C), MEMGATE_STORAGE_STALE: 'wait', MEMGATE_STORAGE_STALE_WAIT: '30' },
  };
  for (const name of ['a', 'b', 'c']) d[name].serve = await startServe(world, [], { MEMGATE_HOME: d[name].home, ...extra[name] });
});

after(async () => {
  try {
    for (const name of ['a', 'b', 'c']) if (d[name]?.serve) await shutdown([], d[name].serve);
  } finally {
    world.cleanup();
  }
});

test('a repo indexed through daemon A is learnt by B and C, which index their own copies', async () => {
  mg(d.a.home, ['index', W, '--name', 'alpha', '--tenant', 'acme', '--quiet']);
  assert.equal(pgSql(url, "SELECT tenant, root, generation FROM memgate_repos WHERE id = 'alpha'").trim(), `acme|${W}|1`);
  for (const name of ['b', 'c']) {
    await until(`${name} indexed alpha`, async () => (await stateOf(name, 'alpha')) === 'current');
    assert.ok(fs.existsSync(path.join(d[name].home, 'repos', 'alpha.db')), `${name} has an index of its own`);
    assert.equal(await hits(name, 'alpha_first_marker'), 1);
  }
  const a = (await listed('a')).find((r) => r.id === 'alpha');
  assert.equal(a.index_state, 'current');
  assert.equal(a.generation, 1);
  assert.equal(a.catalog_generation, 1);
  // B's and C's catch-ups ran index_repo through their gates, as the repo's tenant, audited in the
  // shared chain (one chain for every daemon of the database) beside A's command line run
  const runs = await until('two catch-up runs audited', () => {
    const v = auditOf('b').filter((e) => e.op === 'index_repo' && e.repo === 'alpha');
    return v.filter((e) => e.instance === 'catalog').length >= 2 && v;
  });
  assert.equal(runs.filter((e) => e.instance === 'cli').length, 1, JSON.stringify(runs));
  for (const run of runs.filter((e) => e.instance === 'catalog')) {
    assert.equal(run.tenant, 'acme');
    assert.equal(run.status, 'ok');
  }
});

test('a re-index on A: B answers stale until it caught up, C waits for its catch-up and answers fresh', async () => {
  fs.writeFileSync(path.join(W, 'src', 'second.c'), 'int alpha_second_marker(void) { return 2; }\n');
  const r = await v1(d.a.serve, '/v1/index', { token: d.a.acme, method: 'POST', headers: { 'x-memgate-repo': 'alpha' }, body: {} });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.generation, 2);
  assert.equal(r.json.added, 1);
  assert.equal(await hits('a', 'alpha_second_marker'), 1);

  // B and C heard of generation 2 (B's catch-up starts DELAY_B after that, C's DELAY_C)
  for (const name of ['b', 'c']) {
    await until(`${name} behind`, async () => {
      const x = (await listed(name)).find((y) => y.id === 'alpha');
      return x.catalog_generation === 2 && x;
    });
  }
  // B answers from its index of generation 1, and says so
  let s = await search('b', 'alpha_second_marker');
  assert.equal(s.status, 200, s.text);
  assert.equal(s.json.index_stale, true, s.text);
  assert.deepEqual(s.json.index_stale_repos, [{ repo: 'alpha', generation: 1, catalog_generation: 2 }]);
  assert.equal(s.json.results.length, 0);
  assert.equal((await listed('b')).find((x) => x.id === 'alpha').index_state, 'behind');
  // a hit's own `stale` (its file changed on disk) is another thing: none here
  s = await search('b', 'alpha_first_marker');
  assert.equal(s.json.index_stale, true);
  assert.equal(s.json.results[0].stale, undefined);

  // C waits for its catch-up (DELAY_C and the run) and answers fresh
  const t0 = Date.now();
  const c = await search('c', 'alpha_second_marker');
  const took = Date.now() - t0;
  assert.equal(c.status, 200, c.text);
  assert.equal(c.json.index_stale, undefined, c.text);
  assert.equal(c.json.results.length, 1);
  assert.ok(took >= 1000, `C answered in ${took} ms: it did not wait for its catch-up`);

  await until('B caught up', async () => {
    const x = await search('b', 'alpha_second_marker');
    return x.json.index_stale === undefined && x.json.results.length === 1;
  });
  const b = (await listed('b')).find((x) => x.id === 'alpha');
  assert.equal(b.index_state, 'current');
  assert.equal(b.generation, 2);
});

test('settings changed on one daemon apply on all', async () => {
  const r = await v1(d.b.serve, '/v1/repos/alpha', { token: d.b.acme, method: 'PATCH', body: { pull_on_push: 'on' } });
  assert.equal(r.status, 200, r.text);
  assert.equal(pgSql(url, "SELECT setting_pull_on_push FROM memgate_repos WHERE id = 'alpha'").trim(), 'on');
  for (const name of ['a', 'c']) {
    const g = await v1(d[name].serve, '/v1/repos/alpha', { token: d[name].acme });
    assert.equal(g.status, 200, g.text);
    assert.equal(g.json.settings.pull_on_push, 'on', name);
  }
  // and the command line of a data directory shows the catalog's
  const shown = JSON.parse(mg(d.c.home, ['repos', 'show', 'alpha', '--tenant', 'acme', '--json']));
  assert.equal(shown.settings.pull_on_push, 'on');
});

test('a push webhook delivered to A: every daemon pulls and re-indexes', async () => {
  const marker = `pushed_marker_${process.pid}`;
  git(other, 'pull', '-q', '--ff-only');
  commit(other, 'src/pushed.c', `int ${marker}(void) { return 3; }\n`);
  git(other, 'push', '-q', 'origin', 'main');
  const before = pgSql(url, "SELECT generation FROM memgate_repos WHERE id = 'alpha'").trim();
  const id = `d-${process.pid}-catalog`;
  const body = JSON.stringify({ ref: 'refs/heads/main', repository: { clone_url: remote } });
  const sig = `sha256=${crypto.createHmac('sha256', SECRET).update(body).digest('hex')}`;
  const res = await fetch(`${d.a.serve.url}/v1/hooks/git`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': id, 'x-hub-signature-256': sig },
    body,
  });
  assert.equal(res.status, 202, await res.text());
  for (const name of ['a', 'b', 'c']) await until(`${marker} searchable on ${name}`, async () => (await hits(name, marker)) === 1);
  assert.equal(Number(pgSql(url, "SELECT generation FROM memgate_repos WHERE id = 'alpha'").trim()), Number(before) + 1);
  // A pulled (fast-forward); B and C ran the same pull (up to date by then: one working copy) and index,
  // each with a webhook_run event naming the push's delivery id
  // (one audit chain for every daemon: three webhook_run events of this delivery, A's and the catch-ups')
  const runs = await until('three runs of the push', () => {
    const v = auditOf('a').filter((e) => e.op === 'webhook_run' && e.query === id);
    return v.length >= 3 && v;
  });
  assert.equal(runs.length, 3, JSON.stringify(runs));
  assert.equal(runs.filter((e) => /fast-forwarded main/.test(e.status)).length >= 1, true, JSON.stringify(runs));
  for (const run of runs) {
    assert.equal(run.code, undefined, JSON.stringify(run));
    assert.match(run.status, /(already up to date|fast-forwarded)/);
    assert.equal(run.tenant, 'acme');
  }
  await until('every copy current', async () => {
    for (const name of ['a', 'b', 'c']) if ((await stateOf(name, 'alpha')) !== 'current') return false;
    return true;
  });
});

test('repos rm on A: the repo is gone on every daemon, and so are their indexes of it', async () => {
  const beta = path.join(world.dir, 'beta');
  fs.mkdirSync(path.join(beta, 'src'), { recursive: true });
  fs.writeFileSync(path.join(beta, 'src', 'b.c'), 'int beta_only_marker(void) { return 4; }\n');
  mg(d.a.home, ['index', beta, '--name', 'beta', '--tenant', 'acme', '--quiet']);
  for (const name of ['b', 'c']) await until(`${name} indexed beta`, async () => (await stateOf(name, 'beta')) === 'current');
  mg(d.a.home, ['repos', 'rm', 'beta', '--tenant', 'acme']);
  assert.equal(pgSql(url, "SELECT count(*) FROM memgate_repos WHERE id = 'beta'").trim(), '0');
  for (const name of ['a', 'b', 'c']) {
    await until(`beta gone on ${name}`, async () => !(await listed(name)).some((r) => r.id === 'beta'));
    await until(`${name}'s index of beta dropped`, () => !fs.existsSync(path.join(d[name].home, 'repos', 'beta.db')));
    const s = await search(name, 'beta_only_marker', d[name].acme, 'beta');
    assert.equal(s.status, 404, s.text);
    assert.equal(s.json.error.code, 'repo_not_found');
  }
  assert.ok((await listed('b')).some((r) => r.id === 'alpha'), 'the other repo stays');
});

test('tenant isolation: a repo of acme is never served to globex, on any daemon', async () => {
  for (const name of ['a', 'b', 'c']) {
    assert.deepEqual((await listed(name, d[name].globex)).map((r) => r.id), [], name);
    const s = await search(name, 'alpha_first_marker', d[name].globex);
    assert.ok(s.status === 404 || s.status === 403, `${name}: ${s.text}`);
    assert.doesNotMatch(s.text, /alpha_first_marker\(void\)/);
    const st = await v1(d[name].serve, '/v1/repos/alpha/stats', { token: d[name].globex });
    assert.ok(st.status === 404 || st.status === 403, `${name}: ${st.text}`);
  }
  // globex may not take acme's working copy on another daemon: the catalog's root is acme's
  const r = await v1(d.c.serve, '/v1/index', { token: d.c.globex, method: 'POST', body: { path: W, name: 'stolen' } });
  assert.equal(r.status, 403, r.text);
  assert.equal(r.json.error.code, 'root_forbidden');
  // a repo of globex, indexed through C, is globex's on A and B, and not acme's
  const g = path.join(world.dir, 'gamma');
  fs.mkdirSync(g);
  fs.writeFileSync(path.join(g, 'g.c'), 'int gamma_globex_marker(void) { return 5; }\n');
  const ix = await v1(d.c.serve, '/v1/index', { token: d.c.globex, method: 'POST', body: { path: g, name: 'gamma' } }); // stored as globex~gamma, reached as gamma (docs/security.md, Repo ids)
  assert.equal(ix.status, 200, ix.text);
  for (const name of ['a', 'b']) {
    await until(`${name} indexed gamma`, async () => {
      const v = await listed(name, d[name].globex);
      return v.some((x) => x.id === 'globex~gamma' && x.index_state === 'current');
    });
    const s = await search(name, 'gamma_globex_marker', d[name].globex, 'gamma');
    assert.equal(s.json.results.length, 1);
    assert.deepEqual((await listed(name)).map((x) => x.id), ['alpha'], `${name}: acme sees only its own`);
    const theirs = await search(name, 'gamma_globex_marker', d[name].acme, 'gamma');
    assert.ok(theirs.status === 404 || theirs.status === 403, `${name}: ${theirs.text}`);
  }
});
