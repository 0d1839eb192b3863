// repo_settings.test.mjs — a repo's settings and stats over HTTP
// (GET/PATCH /v1/repos/{id}, GET /v1/repos/{id}/stats, the per-repo gauges of
// /metrics) with tokens: reading needs read, changing needs admin, /metrics
// admin; another tenant's repo does not exist for the caller; every change
// and refusal is audited.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, test } from 'node:test';

import { makeRepo, makeWorld, MEMGATE_BIN, pgDatabase, shutdown, startServe, v1 } from './lib/harness.mjs';

let world;
let serve;
const tok = {};

function mg(args) {
  return execFileSync(MEMGATE_BIN, args, { env: world.env, cwd: world.cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function token(tenant, scope) {
  return JSON.parse(mg(['token', 'create', '--tenant', tenant, '--scope', scope, '--rate', '0', '--json'])).token;
}

before(async () => {
  world = makeWorld('reposettings');
  // the same tests on the shared catalog (storage = PostgreSQL): repo_settings_pg.test.mjs sets it
  if (globalThis.MEMGATE_STORAGE === 'pg') world.env.MEMGATE_DATABASE_URL = pgDatabase('reposettings');
  // config watch = off for every memgate here: this file is about settings, stats and metrics as
  // such (tests/node/watch.test.mjs has the watcher)
  world.env.MEMGATE_WATCH = 'off';
  world.env.MEMGATE_INDEX_ROOTS = `acme:${world.dir},beta:${world.dir}`;
  const alpha = makeRepo(world, 'alpha');
  const bravo = makeRepo(world, 'bravo');
  mg(['index', alpha.root, '--name', 'alpha', '--tenant', 'acme', '--quiet']);
  mg(['index', bravo.root, '--name', 'bravo', '--tenant', 'beta', '--quiet']);
  for (const s of ['read', 'write', 'admin']) tok[`acme_${s}`] = token('acme', s);
  tok.beta_admin = token('beta', 'admin');
  serve = await startServe(world);
});

after(async () => {
  try {
    await shutdown([], serve); // exit 0 after SIGTERM (under the sanitizers: no leak)
  } finally {
    world.cleanup();
  }
});

test('read a repo\'s settings with read; change them with admin only', async () => {
  let r = await v1(serve, '/v1/repos/alpha', { token: tok.acme_read });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.json, { repo: 'alpha', settings: { watch: 'default', watch_effective: 'off', reindex_interval: 0, pull_on_push: 'off' } });
  for (const who of ['acme_read', 'acme_write']) {
    r = await v1(serve, '/v1/repos/alpha', { token: tok[who], method: 'PATCH', body: { watch: 'off' } });
    assert.equal(r.status, 403, `${who}: ${r.text}`);
    assert.equal(r.json.error.code, 'scope_forbidden');
  }
  r = await v1(serve, '/v1/repos/alpha', { token: tok.acme_admin, method: 'PATCH', body: { watch: 'off', reindex_interval: 600 } });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.json.settings, { watch: 'off', watch_effective: 'off', reindex_interval: 600, pull_on_push: 'off' });
  // a partial change keeps the others; null is default
  r = await v1(serve, '/v1/repos/alpha', { token: tok.acme_admin, method: 'PATCH', body: { pull_on_push: 'on', watch: null } });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.json.settings, { watch: 'default', watch_effective: 'off', reindex_interval: 600, pull_on_push: 'on' });
  r = await v1(serve, '/v1/repos/alpha', { token: tok.acme_read });
  assert.equal(r.json.settings.reindex_interval, 600);
  // the command line reads the same rows
  const cli = JSON.parse(mg(['repos', 'show', 'alpha', '--tenant', 'acme', '--json']));
  assert.deepEqual(cli.settings, r.json.settings);
});

test('another tenant\'s token: its repo does not exist, nothing changes', async () => {
  for (const [method, p, body] of [['GET', '/v1/repos/alpha'], ['PATCH', '/v1/repos/alpha', { watch: 'on' }], ['GET', '/v1/repos/alpha/stats']]) {
    const r = await v1(serve, p, { token: tok.beta_admin, method, body });
    assert.equal(r.status, 404, `${method} ${p}: ${r.text}`);
    assert.equal(r.json.error.code, 'repo_not_found');
    assert.ok(!JSON.stringify(r.json).includes('alpha"') || !r.json.error.repos?.includes('alpha'), r.text);
    assert.deepEqual(r.json.error.repos, ['bravo']);
  }
  const r = await v1(serve, '/v1/repos/alpha', { token: tok.acme_read });
  assert.notEqual(r.json.settings.watch, 'on');
  // and its own repo is its own
  const own = await v1(serve, '/v1/repos/bravo/stats', { token: tok.beta_admin });
  assert.equal(own.status, 200, own.text);
  assert.equal(own.json.repos[0].id, 'bravo');
});

test('bad settings: 400 invalid_argument saying what is allowed; other methods 405', async () => {
  const cases = [
    [{ watch: 'sometimes' }, /use on, off or default/],
    [{ reindex_interval: 59 }, /0 for none or 60 to/],
    [{ reindex_interval: '1h' }, /0 for none or 60 to/],
    [{ colour: 'red' }, /unknown setting 'colour'; the settings are watch \(on, off, default\), reindex_interval/],
    [{}, /give at least one setting/],
    [{ watch: 'off', pull_on_push: 'maybe' }, /pull_on_push/],
  ];
  for (const [body, says] of cases) {
    const r = await v1(serve, '/v1/repos/alpha', { token: tok.acme_admin, method: 'PATCH', body });
    assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
    assert.equal(r.json.error.code, 'invalid_argument');
    assert.match(r.json.error.message, says);
  }
  // all or none: watch=off above was not kept
  const now = await v1(serve, '/v1/repos/alpha', { token: tok.acme_read });
  assert.equal(now.json.settings.watch, 'default');
  const put = await v1(serve, '/v1/repos/alpha', { token: tok.acme_admin, method: 'PUT', body: { watch: 'on' } });
  assert.equal(put.status, 405);
  assert.equal(put.headers.get('allow'), 'GET, PATCH');
  const post = await v1(serve, '/v1/repos/alpha/stats', { token: tok.acme_admin, method: 'POST', body: {} });
  assert.equal(post.status, 405);
});

test('stats of a repo over HTTP: what index_status says, read scope enough', async () => {
  const r = await v1(serve, '/v1/repos/alpha/stats', { token: tok.acme_read });
  assert.equal(r.status, 200, r.text);
  const s = r.json.repos[0];
  const listed = JSON.parse(mg(['repos', '--tenant', 'acme', '--json']))[0];
  for (const k of ['id', 'files', 'chunks', 'symbols', 'bytes', 'indexed_at']) assert.equal(s[k], listed[k], k);
  assert.equal(s.full_index_at, listed.indexed_at);
  assert.ok(Number.isInteger(s.full_index_ms), r.text);
  assert.ok(s.vectors > 0, r.text);
  assert.equal(s.watch_state, 'off');
  assert.equal(s.incr_index_at, null);
  assert.equal(s.last_error, null);
  assert.equal(s.index_busy, false);
  assert.equal(s.settings.reindex_interval, 600);
  // all: the caller's repos only
  const all = await v1(serve, '/v1/index/status?all=true', { token: tok.acme_read });
  assert.equal(all.status, 200, all.text);
  assert.deepEqual(all.json.repos.map((x) => x.id), ['alpha']);
});

test('changes and refusals are audited as set_repo_settings', () => {
  const events = mg(['audit', '--op', 'set_repo_settings', '--json', '--limit', '0']).split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const ok = events.filter((e) => e.status === 'ok');
  assert.ok(ok.some((e) => e.tenant === 'acme' && e.repo === 'alpha' && e.query === 'watch=off reindex_interval=600'), JSON.stringify(ok));
  assert.ok(events.some((e) => e.tenant === 'acme' && e.code === 'scope_forbidden'), JSON.stringify(events));
  assert.ok(events.some((e) => e.tenant === 'beta' && e.code === 'repo_not_found'), JSON.stringify(events));
});

/** /metrics as { 'name{labels}': value } for a token. */
async function scrape(token) {
  const r = await v1(serve, '/metrics', { token });
  const values = {};
  for (const line of r.text.split('\n')) {
    const m = /^(memgate_\S+)\s+(\S+)$/.exec(line);
    if (m) values[m[1]] = Number(m[2]);
  }
  return { status: r.status, text: r.text, values };
}

test('/metrics: per-repo gauges of the caller\'s tenant only, admin only', async () => {
  const acme = await scrape(tok.acme_admin);
  assert.equal(acme.status, 200, acme.text);
  const stats = (await v1(serve, '/v1/repos/alpha/stats', { token: tok.acme_read })).json.repos[0];
  const v = acme.values;
  assert.equal(v['memgate_repo_files{repo="alpha"}'], stats.files);
  assert.equal(v['memgate_repo_chunks{repo="alpha"}'], stats.chunks);
  assert.equal(v['memgate_repo_symbols{repo="alpha"}'], stats.symbols);
  assert.equal(v['memgate_repo_vectors{repo="alpha"}'], stats.vectors);
  assert.equal(v['memgate_repo_bytes{repo="alpha"}'], stats.bytes);
  assert.equal(v['memgate_repo_last_index_timestamp_seconds{repo="alpha",kind="full"}'], stats.full_index_at);
  assert.equal(v['memgate_repo_last_index_duration_seconds{repo="alpha",kind="full"}'], stats.full_index_ms / 1000);
  // no incremental run yet: no sample rather than a made-up one
  assert.equal(v['memgate_repo_last_index_timestamp_seconds{repo="alpha",kind="incremental"}'], undefined);
  assert.equal(v['memgate_repo_pending_changes{repo="alpha"}'], 0);
  assert.equal(v['memgate_repo_watch_state{repo="alpha",state="off"}'], 1);
  assert.equal(v['memgate_repo_watch_state{repo="alpha",state="watching"}'], 0);
  assert.equal(v['memgate_repo_watch_state{repo="alpha",state="polling"}'], 0);
  assert.equal(v['memgate_repo_watch_count{repo="alpha"}'], 0);
  assert.equal(v['memgate_repo_redactions_total{repo="alpha"}'], stats.secrets_redacted);
  assert.equal(v['memgate_repo_index_errors{repo="alpha"}'], 0);
  assert.equal(v['memgate_repo_index_busy{repo="alpha"}'], 0);
  assert.match(acme.text, /# TYPE memgate_repo_files gauge\n/);
  assert.match(acme.text, /# TYPE memgate_repo_redactions_total counter\n/);
  // another tenant's repo is not there, and the other way round
  assert.ok(!acme.text.includes('repo="bravo"'), acme.text);
  const beta = await scrape(tok.beta_admin);
  assert.equal(beta.status, 200);
  assert.ok(beta.values['memgate_repo_files{repo="bravo"}'] > 0, beta.text);
  assert.ok(!beta.text.includes('repo="alpha"'), beta.text);
  // below admin: refused, as before
  for (const who of ['acme_read', 'acme_write']) assert.equal((await scrape(tok[who])).status, 403, who);
  // scrapes are no sessions and no tool calls
  const once = await scrape(tok.acme_admin);
  const twice = await scrape(tok.acme_admin);
  assert.equal(twice.values.memgate_sessions_created_total, once.values.memgate_sessions_created_total);
  assert.equal(twice.values.memgate_sessions_active, once.values.memgate_sessions_active);
});
