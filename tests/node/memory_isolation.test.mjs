// memory_isolation.test.mjs — randomized isolation of agent memory over the
// HTTP API, with tokens (docs/memory.md, "Where it lives, and who sees what").
//
// 3 tenants, 2 repos each, 3 projects per repo with the same names in every
// repo, 6 sessions per repo. Each session is a sequential actor; all 36 run
// at once over keep-alive connections, doing random writes (set_note,
// delete_note, remember, add_entities, join/leave a project) and reads
// (get_note, list_notes, search_notes, recall, search_entities, get_context),
// plus attacks (another tenant's repo or session id). Every string written
// carries a canary that encodes who wrote it: zq<kind>t<tenant>r<repo>s<session>n<seq>.
// A model says what each read may see:
//   - notes: only its own tenant and repo (get_note: only that key);
//   - episodes: those of sessions whose project, at some moment of the read,
//     was the reader's project (null = the shared pool) — membership changes
//     are recorded with the interval their request was in flight (from
//     before it is sent: a read racing a join may see either side of it);
//   - entities: only those tagged, when added, with the reader's project;
//     none outside a project;
//   - code in get_context: only the repo's own fixture canary.
// Any other canary in an answer is an out-of-scope read; the test asserts
// zero of them, plus read-your-writes checks so an empty answer cannot pass.
// At the end /metrics must show memgate_isolation_drops_total 0.
//
// MEMGATE_MEMISO_OPS sets the number of operations (default 20000 in
// `make test`; `make soak` runs 100000 on each backend: SQLite, PostgreSQL,
// three daemons); MEMGATE_MEMISO_SEED the random seed (printed).
//
// memory_isolation_mem0.test.mjs runs the same with episodes in Mem0
// (sessions_provider = mem0, the loopback fake of lib/fake-mem0.mjs), by
// setting globalThis.MEMGATE_SESSIONS_BACKEND = 'mem0' before importing this file;
// memory_isolation_pg.test.mjs with memory in PostgreSQL (a fresh database,
// MEMGATE_STORAGE), by setting globalThis.MEMGATE_STORAGE = 'pg';
// memory_isolation_multi.test.mjs across three daemons on one PostgreSQL
// behind HAProxy (lib/cluster.mjs, docs/deploy.md), by setting
// globalThis.MEMGATE_MEMISO_CLUSTER = 3: consecutive requests of one session
// reach different daemons, the repos are indexed through one daemon and
// learnt by the others from the shared catalog, and every daemon's
// memgate_isolation_drops_total stays 0.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { after, before, test } from 'node:test';

import { startCluster } from './lib/cluster.mjs';
import { makeRepo, makeWorld, MEMGATE_BIN, metricSum, pgDatabase, pgSql, shutdown, sleep, startServe } from './lib/harness.mjs';
import { keepAlivePool } from './lib/keepalive.mjs';
import { startFakeMem0 } from './lib/fake-mem0.mjs';

const MEM0 = globalThis.MEMGATE_SESSIONS_BACKEND === 'mem0';
const CLUSTER = Number(globalThis.MEMGATE_MEMISO_CLUSTER || 0); // daemons behind HAProxy, 0: one memgate serve
const PG = globalThis.MEMGATE_STORAGE === 'pg' || CLUSTER > 0;
let cluster;
let pgUrl; // the PostgreSQL database when PG
let fake;

const OPS = Number(process.env.MEMGATE_MEMISO_OPS || 20000);
const SEED = Number(process.env.MEMGATE_MEMISO_SEED || Math.floor(Math.random() * 2 ** 31));
const TENANTS = ['acme', 'globex', 'initech'];
const REPOS_PER_TENANT = 2;
const PROJECTS = ['p0', 'p1', 'p2'];
const SESSIONS_PER_REPO = 6;
const NOTE_KEYS = 8;
const WORD = 'widget';

let world;
let serve;
let pool; // keep-alive connections to serve
let adminToken;
const repos = []; // { t, r, name, canary, token, sessions[] }
const problems = [];
const stats = {};
const bump = (k, n = 1) => (stats[k] = (stats[k] || 0) + n);

/** mulberry32: a small seeded PRNG, so a failure can be replayed with its seed. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const problemKinds = {};
function problem(msg) {
  bump('problems');
  const kind = msg.split(' ')[0];
  problemKinds[kind] = (problemKinds[kind] || 0) + 1;
  if (problems.length < 40) problems.push(msg);
}

// ---- the model -----------------------------------------------------------------------------

// canary -> what it is
const written = new Map(); // canary -> { kind, repo, session, key?, project? }
const CANARY = /zq([nek])t(\d+)r(\d+)s(\d+)n(\d+)/g;
const CODE_CANARY = /canary_([a-z0-9]+)_[a-z0-9]+/g;

/** The projects session S may have been in at some moment of [c, d]. */
function projectsDuring(S, c, d) {
  let state = null;
  const out = new Set();
  for (const e of S.events) {
    if (e.b < c) state = e.to;
    else if (e.a <= d) {
      out.add(e.from);
      out.add(e.to);
    }
  }
  out.add(state);
  return out;
}

/**
 * Check every canary in an answer against the reader's scope. kinds: which
 * kinds of memory the read may return at all. Returns how many in-scope
 * canaries were seen.
 */
function checkCanaries(text, me, kinds, c, d, what, { key } = {}) {
  let seen = 0;
  for (const m of text.matchAll(CANARY)) {
    const [canary, kind, t, r, s] = m;
    const w = written.get(canary);
    const where = `${what} by ${me.id} (tenant ${me.repo.t} repo ${me.repo.name} project ${me.project})`;
    if (!w) {
      problem(`${where}: unknown canary ${canary}`);
      continue;
    }
    if (Number(t) !== me.repo.t || Number(r) !== me.repo.r) {
      problem(`${where}: OUT OF SCOPE ${kind} ${canary} of tenant ${TENANTS[t]} repo ${w.repo.name}`);
      bump('out_of_scope');
      continue;
    }
    if (!kinds.includes(kind)) {
      problem(`${where}: a ${kind} canary ${canary} in a read of ${kinds}`);
      continue;
    }
    if (kind === 'n' && key !== undefined && w.key !== key) problem(`${where}: note ${canary} of key ${w.key} for key ${key}`);
    if (kind === 'e') {
      const S = w.repo.sessions[Number(s)];
      const allowed = projectsDuring(S, c, d);
      if (!allowed.has(me.project)) {
        problem(`${where}: OUT OF SCOPE episode ${canary} of ${S.id} (in ${[...allowed]} during the read)`);
        bump('out_of_scope');
        continue;
      }
    }
    if (kind === 'k' && (me.project === null || w.project !== me.project)) {
      problem(`${where}: OUT OF SCOPE entity ${canary} tagged ${w.project}`);
      bump('out_of_scope');
      continue;
    }
    seen++;
  }
  for (const m of text.matchAll(CODE_CANARY)) {
    if (m[0] !== me.repo.canary) {
      problem(`${what} by ${me.id}: OUT OF SCOPE code canary ${m[0]} in repo ${me.repo.name}`);
      bump('out_of_scope');
    }
  }
  return seen;
}

// ---- HTTP ---------------------------------------------------------------------------------

async function req(S, method, p, body, { repoName, sessionId, token } = {}) {
  const headers = {
    authorization: `Bearer ${token || S.repo.token}`,
    'x-memgate-repo': repoName || S.repo.name,
    'x-session-id': sessionId || S.id,
  };
  const r = await pool.request(method, p, { headers, body });
  // the server knows S's session once S's own request has been answered; an operation that
  // returned before sending anything has not started it, and another tenant naming that id
  // first would own it (attack_session only tries ids the server already holds)
  if (!sessionId && !token && r.status >= 200 && r.status < 300) S.started = true;
  return r;
}

// ---- operations -------------------------------------------------------------------------------

function mint(S, kind, extra = {}) {
  const canary = `zq${kind}t${S.repo.t}r${S.repo.r}s${S.idx}n${S.seq++}`;
  written.set(canary, { kind, repo: S.repo, session: S, ...extra });
  return canary;
}

const expectOk = (S, what, r) => {
  if (r.status < 200 || r.status > 299) {
    problem(`${what} by ${S.id}: HTTP ${r.status} ${r.text.slice(0, 300)}`);
    return false;
  }
  if (!r.json) {
    problem(`${what} by ${S.id}: not JSON: ${r.text.slice(0, 200)}`);
    return false;
  }
  return true;
};

const OPS_TABLE = [
  // [weight, name, fn(S, rnd)]
  [12, 'set_note', async (S, rnd) => {
    const key = `k${Math.floor(rnd() * NOTE_KEYS)}`;
    const canary = mint(S, 'n', { key });
    expectOk(S, 'set_note', await req(S, 'POST', '/v1/notes', { key, value: `${WORD} note ${canary}` }));
  }],
  [4, 'set_own_note', async (S) => {
    const key = `own-${S.id}`;
    const canary = mint(S, 'n', { key });
    if (expectOk(S, 'set_own_note', await req(S, 'POST', '/v1/notes', { key, value: `${WORD} own ${canary}` }))) S.ownNote = canary;
  }],
  [3, 'delete_note', async (S, rnd) => {
    const r = await req(S, 'DELETE', `/v1/notes/k${Math.floor(rnd() * NOTE_KEYS)}`);
    expectOk(S, 'delete_note', r);
  }],
  [12, 'remember', async (S) => {
    const canary = mint(S, 'e');
    const r = await req(S, 'POST', '/v1/episodes', { summary: `${WORD} story ${canary}`, tags: ['t'] });
    if (!expectOk(S, 'remember', r)) return;
    S.lastEpisode = canary;
    if (r.json.episode?.session !== S.id || (r.json.scope?.project ?? null) !== S.project) problem(`remember by ${S.id} in ${S.project}: answered ${r.text.slice(0, 300)}`);
  }],
  [7, 'add_entities', async (S, rnd) => {
    const n = 1 + Math.floor(rnd() * 3);
    const ents = [];
    for (let i = 0; i < n; i++) {
      const canary = mint(S, 'k', { project: S.project });
      ents.push({ name: `ent-${canary}`, type: 'component', notes: `${WORD} thing ${canary}` });
    }
    const r = await req(S, 'POST', '/v1/entities', { entities: ents });
    if (!expectOk(S, 'add_entities', r)) return;
    for (const e of r.json.entities || []) {
      if ((e.project ?? null) !== S.project) problem(`add_entities by ${S.id} in ${S.project}: tagged ${e.project}`);
    }
    if ((r.json.entities || []).length !== n) problem(`add_entities by ${S.id}: ${n} sent, ${r.json.entities?.length} back`);
    S.lastEntity = { canary: ents[ents.length - 1].name.slice(4), project: S.project };
  }],
  [4, 'join_leave', async (S, rnd) => {
    const from = S.project;
    const to = from === null ? PROJECTS[Math.floor(rnd() * PROJECTS.length)] : null;
    // recorded before it is sent: a read that runs while it is in flight
    // (b = Infinity) may see either side of it
    const ev = { a: performance.now(), b: Infinity, from, to };
    S.events.push(ev);
    const r = to === null ? await req(S, 'POST', '/v1/projects/leave', {}) : await req(S, 'POST', `/v1/projects/${to}/join`, {});
    ev.b = performance.now();
    if (expectOk(S, to === null ? 'leave_project' : 'join_project', r)) {
      S.project = to;
      if (r.json.session !== S.id || (r.json.project ?? null) !== to) problem(`join_leave by ${S.id} to ${to}: answered ${r.text.slice(0, 300)}`);
    } else {
      ev.to = from; // refused: nothing changed
    }
  }],
  [10, 'get_note', async (S, rnd) => {
    const key = `k${Math.floor(rnd() * NOTE_KEYS)}`;
    const c = performance.now();
    const r = await req(S, 'GET', `/v1/notes/${key}`);
    const d = performance.now();
    if (r.status === 404 && r.json?.error?.code === 'note_not_found') return bump('read_empty');
    if (!expectOk(S, 'get_note', r)) return;
    if (checkCanaries(r.text, S, ['n'], c, d, 'get_note', { key }) !== 1) problem(`get_note ${key} by ${S.id}: ${r.text.slice(0, 300)}`);
    else bump('read_hits');
  }],
  [4, 'get_own_note', async (S) => {
    if (!S.ownNote) return;
    const r = await req(S, 'GET', `/v1/notes/own-${S.id}`);
    if (!expectOk(S, 'get_own_note', r)) return;
    if (!r.json.note || !r.json.note.value.includes(S.ownNote)) problem(`get_own_note by ${S.id}: wanted ${S.ownNote}, got ${r.text.slice(0, 300)}`);
    else bump('read_hits');
  }],
  [8, 'search_notes', async (S) => {
    const c = performance.now();
    const r = await req(S, 'GET', `/v1/notes?q=${WORD}&limit=50`);
    const d = performance.now();
    if (!expectOk(S, 'search_notes', r)) return;
    for (const n of r.json.notes || []) if (n.repo !== undefined && n.repo !== S.repo.name) problem(`search_notes by ${S.id}: note of repo ${n.repo}`);
    bump(checkCanaries(r.text, S, ['n'], c, d, 'search_notes') ? 'read_hits' : 'read_empty');
  }],
  [3, 'list_notes', async (S) => {
    const c = performance.now();
    const r = await req(S, 'GET', '/v1/notes?limit=50');
    const d = performance.now();
    if (!expectOk(S, 'list_notes', r)) return;
    bump(checkCanaries(r.text, S, ['n'], c, d, 'list_notes') ? 'read_hits' : 'read_empty');
  }],
  [12, 'recall', async (S) => {
    const c = performance.now();
    const r = await req(S, 'GET', `/v1/episodes?q=${WORD}&limit=50`);
    const d = performance.now();
    if (!expectOk(S, 'recall', r)) return;
    if ((r.json.scope?.project ?? null) !== S.project || r.json.scope?.session !== S.id) problem(`recall by ${S.id} in ${S.project}: scope ${JSON.stringify(r.json.scope)}`);
    bump(checkCanaries(r.text, S, ['e'], c, d, 'recall') ? 'read_hits' : 'read_empty');
  }],
  [4, 'recall_own', async (S) => {
    if (!S.lastEpisode) return;
    const c = performance.now();
    const r = await req(S, 'GET', `/v1/episodes?q=${S.lastEpisode}&limit=10`);
    const d = performance.now();
    if (!expectOk(S, 'recall_own', r)) return;
    checkCanaries(r.text, S, ['e'], c, d, 'recall_own');
    // a session's own episodes are always in its scope, project or pool
    if (!r.text.includes(S.lastEpisode)) problem(`recall_own by ${S.id} (project ${S.project}): ${S.lastEpisode} missing: ${r.text.slice(0, 300)}`);
    else bump('read_hits');
  }],
  [9, 'search_entities', async (S) => {
    const c = performance.now();
    const r = await req(S, 'GET', `/v1/entities?q=${WORD}&limit=50`);
    const d = performance.now();
    if (!expectOk(S, 'search_entities', r)) return;
    if (S.project === null && (r.json.entities || []).length) problem(`search_entities by ${S.id} outside a project: ${r.text.slice(0, 300)}`);
    bump(checkCanaries(r.text, S, ['k'], c, d, 'search_entities') ? 'read_hits' : 'read_empty');
  }],
  [3, 'search_own_entity', async (S) => {
    const e = S.lastEntity;
    if (!e || e.project === null || e.project !== S.project) return;
    const c = performance.now();
    const r = await req(S, 'GET', `/v1/entities?q=${e.canary}&limit=10`);
    const d = performance.now();
    if (!expectOk(S, 'search_own_entity', r)) return;
    checkCanaries(r.text, S, ['k'], c, d, 'search_own_entity');
    if (!r.text.includes(e.canary)) problem(`search_own_entity by ${S.id} in ${S.project}: ${e.canary} missing: ${r.text.slice(0, 300)}`);
    else bump('read_hits');
  }],
  [3, 'get_context', async (S) => {
    const c = performance.now();
    const r = await req(S, 'GET', `/v1/context?prompt=${WORD}%20story%20note%20thing&limit=8`);
    const d = performance.now();
    if (!expectOk(S, 'get_context', r)) return;
    const kinds = S.project === null ? ['n', 'e'] : ['n', 'e', 'k'];
    bump(checkCanaries(r.text, S, kinds, c, d, 'get_context') ? 'read_hits' : 'read_empty');
  }],
  [3, 'attack_repo', async (S, rnd) => {
    // another tenant's repo, named in the header: 404, nothing of it
    const others = repos.filter((x) => x.t !== S.repo.t);
    const o = others[Math.floor(rnd() * others.length)];
    const paths = ['/v1/notes?limit=50', `/v1/episodes?q=${WORD}`, `/v1/entities?q=${WORD}`, `/v1/notes/k0`, `/v1/context?prompt=${WORD}`];
    const r = await req(S, 'GET', paths[Math.floor(rnd() * paths.length)], undefined, { repoName: o.name });
    if (r.status !== 404 || r.json?.error?.code !== 'repo_not_found') problem(`attack_repo by ${S.id} on ${o.name}: HTTP ${r.status} ${r.text.slice(0, 200)}`);
    checkCanaries(r.text, S, [], 0, 0, 'attack_repo');
  }],
  [2, 'attack_session', async (S, rnd) => {
    // another tenant's session id, in its own repo: an X-Session-Id is its tenant's own (issue 38), so
    // this names a session of the attacker's tenant, with no project: nothing of the victim's, only what
    // any session of the attacker's without a project may read
    const others = repos.filter((x) => x.t !== S.repo.t);
    const o = others[Math.floor(rnd() * others.length)];
    const victim = o.sessions[Math.floor(rnd() * o.sessions.length)];
    if (!victim.started) return;
    const c = performance.now();
    const r = await req(S, 'GET', `/v1/episodes?q=${WORD}`, undefined, { sessionId: victim.id });
    const d = performance.now();
    if (r.status !== 200 || r.json?.scope?.session !== victim.id || (r.json?.scope?.project ?? null) !== null)
      problem(`attack_session by ${S.id} as ${victim.id}: HTTP ${r.status} ${r.text.slice(0, 200)}`);
    checkCanaries(r.text, { ...S, project: null }, ['e'], c, d, 'attack_session');
  }],
];
const TOTAL_WEIGHT = OPS_TABLE.reduce((a, [w]) => a + w, 0);

function pick(rnd) {
  let x = rnd() * TOTAL_WEIGHT;
  for (const row of OPS_TABLE) {
    x -= row[0];
    if (x < 0) return row;
  }
  return OPS_TABLE[OPS_TABLE.length - 1];
}

// ---- set-up ------------------------------------------------------------------------------------

function mg(args) {
  return execFileSync(MEMGATE_BIN, args, { env: world.env, cwd: world.cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

before(async () => {
  world = makeWorld('memiso');
  if (PG) {
    pgUrl = pgDatabase('memiso');
    world.env.MEMGATE_STORAGE = pgUrl;
  }
  if (CLUSTER) {
    // the daemons first; the repos indexed below through daemon 0 reach the others by the catalog
    world.cleanup();
    cluster = await startCluster({
      n: CLUSTER,
      tag: 'memiso',
      storage: pgUrl,
      env: { MEMGATE_WATCH: 'off', MEMGATE_INDEX_ROOTS: TENANTS.map((t) => `${t}:/tmp`).join(',') },
    });
    world = { ...cluster.world, env: cluster.env(0) };
  }
  if (MEM0) {
    fake = await startFakeMem0();
    Object.assign(world.env, fake.env);
  }
  // each tenant may index under the test directory (docs/config.md, index_roots)
  world.env.MEMGATE_INDEX_ROOTS = TENANTS.map((t) => `${t}:${world.dir}`).join(',');
  const tokens = TENANTS.map((t) => JSON.parse(mg(['token', 'create', '--tenant', t, '--scope', 'write', '--rate', '0', '--json'])).token);
  adminToken = JSON.parse(mg(['token', 'create', '--tenant', TENANTS[0], '--scope', 'admin', '--rate', '0', '--json'])).token;
  TENANTS.forEach((t, ti) => {
    for (let ri = 0; ri < REPOS_PER_TENANT; ri++) {
      const name = `${t}${ri}`;
      const fx = makeRepo(world, name);
      mg(['index', fx.root, '--name', name, '--tenant', t, '--quiet']);
      const repo = { t: ti, r: repos.filter((x) => x.t === ti).length, name, canary: fx.canary, token: tokens[ti], sessions: [] };
      for (let si = 0; si < SESSIONS_PER_REPO; si++) {
        repo.sessions.push({ id: `${name}.s${si}.${SEED.toString(36)}`, idx: si, repo, project: null, events: [], seq: 0, started: false });
      }
      repos.push(repo);
    }
  });
  if (CLUSTER) {
    // every daemon has caught up with every repo before the storm
    for (const d of cluster.daemons)
      for (const repo of repos) {
        const t0 = Date.now();
        for (;;) {
          const r = await fetch(`${d.url}/v1/repos`, { headers: { authorization: `Bearer ${repo.token}` } });
          const j = r.status === 200 ? await r.json() : null;
          if (j?.repos?.find((x) => x.id === repo.name)?.index_state === 'current') break;
          assert.ok(Date.now() - t0 < 60000, `daemon ${d.i} never caught up with ${repo.name}: ${JSON.stringify(j)}`);
          await sleep(100);
        }
      }
    serve = { url: cluster.url };
  } else {
    serve = await startServe(world);
  }
  pool = keepAlivePool(serve.url);
  for (const repo of repos) {
    for (const p of PROJECTS) {
      const S = repo.sessions[0];
      const r = await req(S, 'POST', '/v1/projects', { name: p });
      assert.ok(r.status === 200 || r.status === 201, `create_project ${p} in ${repo.name}: ${r.status} ${r.text}`);
    }
  }
});

after(async () => {
  pool?.close();
  if (cluster) await cluster.stop();
  else if (serve) await serve.stop();
  await fake?.close();
  world.cleanup();
});

test(`${OPS} random memory operations by ${TENANTS.length * REPOS_PER_TENANT * SESSIONS_PER_REPO} sessions of ${TENANTS.length} tenants: zero out-of-scope reads`, async () => {
  console.log(`# memory isolation: seed ${SEED} (MEMGATE_MEMISO_SEED), ${OPS} operations`);
  const actors = repos.flatMap((r) => r.sessions);
  let next = 0;
  const counts = {};
  const t0 = performance.now();
  await Promise.all(
    actors.map(async (S, i) => {
      const rnd = prng(SEED + i * 7919);
      while (next < OPS) {
        next++;
        const [, name, fn] = pick(rnd);
        counts[name] = (counts[name] || 0) + 1;
        try {
          await fn(S, rnd);
        } catch (e) {
          problem(`${name} by ${S.id}: ${e.stack || e}`);
        }
      }
    }),
  );
  const secs = (performance.now() - t0) / 1000;
  console.log(`# memory isolation: ${next} operations in ${secs.toFixed(1)} s (${(next / secs).toFixed(0)} ops/s)`);
  console.log(`# per kind: ${JSON.stringify(counts)}`);
  console.log(`# reads: ${stats.read_hits || 0} with in-scope results, ${stats.read_empty || 0} empty; out-of-scope: ${stats.out_of_scope || 0}; problems: ${stats.problems || 0}`);
  assert.equal(stats.out_of_scope || 0, 0, problems.join('\n'));
  assert.deepEqual(problems, [], `${stats.problems} problems, by operation: ${JSON.stringify(problemKinds)}`);
  // the reads were not vacuous: most found something
  assert.ok((stats.read_hits || 0) > (stats.read_empty || 0), JSON.stringify(stats));
  // every kind of operation ran
  for (const [, name] of OPS_TABLE) assert.ok(counts[name] > 0 || OPS < 1000, `${name} never ran`);
});

test('the projects were used: every repo has sessions in projects, entities tagged, the membership counts match the model', async () => {
  for (const repo of repos) {
    const S = repo.sessions[0];
    const r = await req(S, 'GET', '/v1/projects');
    assert.equal(r.status, 200, r.text);
    const want = {};
    for (const p of PROJECTS) want[p] = repo.sessions.filter((x) => x.project === p).length;
    const got = {};
    for (const p of r.json.projects) got[p.name] = p.sessions;
    assert.deepEqual(got, want, `${repo.name}: ${r.text}`);
  }
});

test('/metrics after the storm: memgate_isolation_drops_total 0', async () => {
  // (every daemon's, in a cluster)
  for (const url of CLUSTER ? cluster.daemons.map((d) => d.url) : [serve.url]) {
    const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${adminToken}` } });
    assert.equal(res.status, 200);
    const text = await res.text();
    const values = {};
    for (const line of text.split('\n')) {
      const m = /^([^#\s]\S*)\s+(\S+)/.exec(line);
      if (m) values[m[1]] = Number(m[2]);
    }
    assert.equal(metricSum(values, 'memgate_isolation_drops_total'), 0, `${url}: ${text}`);
    if (MEM0) {
      // the episodes were Mem0's, and Mem0 never failed
      assert.ok((await fake.rows()).length > 0, 'no episode in the fake Mem0');
      assert.equal(metricSum(values, 'memgate_provider_errors_total') ?? 0, 0, text);
    }
  }
  pool.close();
  if (CLUSTER) {
    // the calls were spread over every daemon
    for (const d of cluster.daemons) {
      const text = await (await fetch(`${d.url}/metrics`, { headers: { authorization: `Bearer ${adminToken}` } })).text();
      const calls = [...text.matchAll(/^memgate_tool_calls_total\{[^}]*\} (\d+)/gm)].reduce((a, m) => a + Number(m[1]), 0);
      assert.ok(calls > OPS / (4 * CLUSTER), `daemon ${d.i} answered ${calls} tool calls of ${OPS}`);
    }
    await cluster.stop();
    cluster = null;
    serve = null;
  } else {
    const s = serve;
    serve = null;
    await shutdown([], s);
  }
  if (PG) {
    // every tenant's memory is in the one database, each row under its tenant
    const got = pgSql(pgUrl, 'SELECT DISTINCT tenant FROM notes ORDER BY 1').trim().split('\n');
    assert.deepEqual(got, [...TENANTS].sort());
    return;
  }
  // each tenant's memory is its own file
  const ls = spawnSync('ls', [`${world.home}/memory`], { encoding: 'utf8' });
  for (const t of TENANTS) assert.ok(ls.stdout.split('\n').includes(`${t}.db`), ls.stdout);
});
