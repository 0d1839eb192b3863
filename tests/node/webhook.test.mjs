// webhook.test.mjs — push webhooks (POST /v1/hooks/git, docs/webhooks.md)
// against a real `memgate serve` with webhook_secret set: GitHub signatures
// and GitLab tokens, replays, unknown repos, other events, the body cap,
// malformed JSON, the route turned off, no way around tokens through it; the
// background re-index through the index_repo tool (the new text becomes
// searchable), a run held up by another (index_busy) followed by one
// coalesced run, and pull_on_push with a bare remote over a file path,
// fast-forward and refused. Every refusal has its audit event (op webhook);
// every run its webhook_run event.
//
// webhook_pg.test.mjs runs the same tests with delivery ids (and tokens) in
// a fresh PostgreSQL database (globalThis.MEMGATE_STORAGE = 'pg').
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { indexRepo, makeRepo, makeWorld, MEMGATE_BIN, pgDatabase, pgSql, shutdown, sleep, startServe, until, v1 } from './lib/harness.mjs';

const PG = globalThis.MEMGATE_STORAGE === 'pg';

const SECRET = 'webhook-test-secret-0123456789abcdef';
const GITHUB_URL = 'https://github.com/acme/alpha.git';
const GITLAB_SSH = 'git@gitlab.example:group/beta.git';

let world;
let serve;
let A; // remote https://github.com/acme/alpha.git
let B; // remote git@gitlab.example:group/beta.git

function mg(args) {
  const r = spawnSync(MEMGATE_BIN, args, { env: world.env, cwd: world.cwd, encoding: 'utf8' });
  assert.equal(r.status, 0, `memgate ${args.join(' ')}: ${r.stdout}${r.stderr}`);
  return r.stdout;
}

function git(cwd, ...args) {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'init.defaultBranch=main', ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

const auditEvents = () => mg(['audit', '--json', '--limit', '0']).split('\n').filter(Boolean).map((l) => JSON.parse(l));
const count = () => auditEvents().length;

/** The events written since n events. */
const since = (n) => auditEvents().slice(n);

function assertAudited(n, code, status) {
  const ev = since(n);
  assert.ok(ev.some((e) => e.op === 'webhook' && e.code === code && (status === undefined || e.status === status)),
    `no webhook audit event with code ${code} among ${JSON.stringify(ev.map((e) => [e.op, e.code, e.status]))}`);
}

let nextId = 0;
const deliveryId = () => `d-${process.pid}-${++nextId}`;
const sign = (body, secret = SECRET) => `sha256=${crypto.createHmac('sha256', secret).update(body).digest('hex')}`;

/** A GitHub delivery: the body is signed unless sig is given (null: no header). */
async function github(payload, { event = 'push', id = deliveryId(), sig, headers = {}, on = serve } = {}) {
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  const h = { 'content-type': 'application/json', 'x-github-event': event, ...headers };
  if (id) h['x-github-delivery'] = id;
  const s = sig === undefined ? sign(body) : sig;
  if (s !== null) h['x-hub-signature-256'] = s;
  return send(on, h, body);
}

async function gitlab(payload, { event = 'Push Hook', id = crypto.randomUUID(), token = SECRET, on = serve } = {}) {
  const body = JSON.stringify(payload);
  const h = { 'content-type': 'application/json', 'x-gitlab-event': event, 'x-gitlab-token': token };
  if (id) h['x-gitlab-event-uuid'] = id;
  return send(on, h, body);
}

/** Refusals the main server gave on the webhook route, by code: each must be in the audit log. */
const refused = {};

async function send(on, headers, body, p = '/v1/hooks/git', method = 'POST') {
  const res = await fetch(`${on.url}${p}`, { method, headers, body });
  const text = await res.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  if (on === serve && p === '/v1/hooks/git' && res.status >= 400) {
    const code = json?.error?.code;
    refused[code] = (refused[code] || 0) + 1;
  }
  return { status: res.status, json, text };
}

// each push its own body, as a forge's are (the commit it names, the time): a delivery is known by its body
let nextPush = 0;
const commitId = () => crypto.createHash('sha1').update(`${process.pid} ${++nextPush}`).digest('hex');
const pushOf = (url) => ({ ref: 'refs/heads/main', after: commitId(), repository: { clone_url: url, html_url: url.replace(/\.git$/, '') } });
const gitlabPushOf = (ssh) => ({
  object_kind: 'push',
  checkout_sha: commitId(),
  project: { git_ssh_url: ssh, git_http_url: 'https://gitlab.example/group/beta.git', web_url: 'https://gitlab.example/group/beta' },
  repository: { url: ssh },
});

async function hits(q, repo) {
  const r = await v1(serve, `/v1/search?q=${encodeURIComponent(q)}&repo_id=${repo}`);
  assert.equal(r.status, 200, r.text);
  return r.json.results.length;
}

/** The webhook_run event of a delivery id, once written. */
const runOf = (id) => until(`the webhook_run event of ${id}`, () => auditEvents().find((e) => e.op === 'webhook_run' && e.query === id));

/** Every run of alpha started so far has ended: one more push's run is over. */
async function settled() {
  const id = deliveryId();
  assert.equal((await github(pushOf(GITHUB_URL), { id })).status, 202);
  await runOf(id);
  await sleep(300);
}

before(async () => {
  world = makeWorld('webhook');
  // the same tests on the shared database (tokens, delivery ids, the catalog): webhook_pg.test.mjs sets it
  if (PG) world.env.MEMGATE_DATABASE_URL = pgDatabase('webhook');
  // watch = off: these tests count what a push's run indexes, and a watcher would index the
  // change first (tests/node/watch.test.mjs has the watcher)
  world.env.MEMGATE_WATCH = 'off';
  A = makeRepo(world, 'alpha');
  git(A.root, 'remote', 'add', 'origin', GITHUB_URL);
  B = makeRepo(world, 'beta');
  git(B.root, 'remote', 'add', 'origin', GITLAB_SSH);
  indexRepo(world, A);
  indexRepo(world, B);
  serve = await startServe(world, [], { MEMGATE_WEBHOOK_SECRET: SECRET, MEMGATE_HTTP_MAX_BODY: '4M' });
});

after(async () => {
  await shutdown([], serve);
  world.cleanup();
});

test('GitHub: a signed push is accepted at once (202) and the new text becomes searchable', async () => {
  const marker = `pushed_marker_${process.pid}_gh`;
  fs.writeFileSync(path.join(A.root, 'src', 'pushed.c'), `int ${marker}(void) { return 1; }\n`);
  assert.equal(await hits(marker, 'alpha'), 0);
  const n = count();
  const id = deliveryId();
  const r = await github(pushOf(GITHUB_URL), { id });
  assert.equal(r.status, 202, r.text);
  // issue 38 V6: the reply counts the runs and names no repo (they may be several tenants'); the audit log names them
  assert.deepEqual(r.json, { accepted: true, runs: 1, coalesced: 0 });
  assert.ok(!r.text.includes('alpha'), r.text);
  await until(`${marker} searchable`, async () => (await hits(marker, 'alpha')) > 0);
  const accepted = since(n).find((e) => e.op === 'webhook' && e.status === 'accepted');
  assert.ok(accepted, JSON.stringify(since(n)));
  assert.equal(accepted.repo, 'alpha');
  assert.equal(accepted.tenant, 'local');
  assert.match(accepted.query, new RegExp(`^github push ${id} from 127\\.0\\.0\\.1$`));
  const run = await runOf(id);
  assert.equal(run.repo, 'alpha');
  assert.equal(run.code, undefined, JSON.stringify(run));
  assert.match(run.status, /^indexed: 1 added, 0 changed, 0 removed$/);
  // the index ran as POST /v1/index runs it: the index_repo tool, through the gate, as the repo's owner
  const tool = since(n).find((e) => e.op === 'index_repo');
  assert.ok(tool, `no index_repo event: ${JSON.stringify(since(n).map((e) => e.op))}`);
  assert.equal(tool.instance, 'webhook');
  assert.equal(tool.tenant, 'local');
  assert.equal(tool.repo, 'alpha');
  assert.equal(tool.status, 'ok');
});

test('the payload may name the repository in any URL form its clone uses', async () => {
  for (const url of ['git@github.com:acme/alpha.git', 'ssh://git@GitHub.com/acme/alpha', 'https://github.com/acme/alpha/']) {
    const r = await github({ repository: { ssh_url: url } });
    assert.equal(r.status, 202, `${url}: ${r.text}`);
    assert.equal(r.json.runs, 1, r.text); // alpha's: beta's remote is another
  }
});

test('GitHub: a wrong or missing signature is 401 bad_signature, audited, and starts nothing', async () => {
  const payload = JSON.stringify(pushOf(GITHUB_URL));
  const cases = [
    ['wrong secret', sign(payload, 'another-secret-0123456789')],
    ['another body', sign(`${payload} `)],
    ['not hex', `sha256=${'z'.repeat(64)}`],
    ['sha1', `sha1=${crypto.createHmac('sha1', SECRET).update(payload).digest('hex')}`],
    ['missing', null],
  ];
  const ids = [];
  for (const [what, sig] of cases) {
    const n = count();
    const id = deliveryId();
    ids.push(id);
    const r = await github(payload, { sig, id });
    assert.equal(r.status, 401, `${what}: ${r.text}`);
    assert.equal(r.json.error.code, 'bad_signature', what);
    assert.match(r.json.error.message, /webhook_secret/);
    assertAudited(n, 'bad_signature', 'error');
  }
  await settled();
  assert.ok(!auditEvents().some((e) => ids.includes(e.query)), 'a refused delivery started a run, or was remembered');
  // the refused ids were not remembered: signed properly now, they are accepted
  assert.equal((await github(payload, { id: ids[0] })).status, 202);
});

test('a delivery is acted on once: the same body again is 409 webhook_replayed, audited, with the same id, another or none', async () => {
  const id = deliveryId();
  const push = pushOf(GITHUB_URL);
  assert.equal((await github(push, { id })).status, 202);
  // issue 38 V6: a captured delivery replayed with the same id, a new one, or none
  for (const again of [id, deliveryId(), null]) {
    const n = count();
    const r = await github(push, { id: again });
    assert.equal(r.status, 409, `delivery id ${again}: ${r.text}`);
    assert.equal(r.json.error.code, 'webhook_replayed');
    assertAudited(n, 'webhook_replayed');
    assert.ok(!since(n).some((e) => e.op === 'webhook' && e.status === 'accepted'));
  }
  // a new push without an id is accepted, once
  const bare = pushOf(GITHUB_URL);
  assert.equal((await github(bare, { id: null })).status, 202);
  assert.equal((await github(bare, { id: null })).status, 409);
  // issue 38 V8: a token used as a delivery id is not kept at rest
  const tokenId = `ghp_${crypto.randomBytes(18).toString('hex').slice(0, 36)}`;
  assert.equal((await github(pushOf(GITHUB_URL), { id: tokenId })).status, 202);
  if (PG) {
    // deliveries are kept in the shared database, for every daemon (webhook_pg.test.mjs): digests, no ids
    const url = world.env.MEMGATE_DATABASE_URL;
    assert.ok(Number(pgSql(url, 'SELECT count(*) FROM webhook_deliveries').trim()) >= 3);
    assert.equal(pgSql(url, `SELECT count(*) FROM webhook_deliveries WHERE id IN ('${id}', '${tokenId}') OR id !~ '^[0-9a-f]{64}$'`).trim(), '0');
    assert.ok(!fs.existsSync(path.join(world.home, 'hooks.db')));
  } else {
    // deliveries are kept in <home>/hooks.db (and its WAL): digests, no ids
    const files = ['hooks.db', 'hooks.db-wal'].map((f) => path.join(world.home, f)).filter((f) => fs.existsSync(f));
    assert.ok(files.length >= 1);
    for (const f of files) {
      const bytes = fs.readFileSync(f).toString('latin1');
      assert.ok(!bytes.includes(tokenId) && !bytes.includes(id), `${f} keeps a delivery id`);
    }
  }
});

test('GitLab: the right X-Gitlab-Token is accepted, a wrong one is 401, the same push again (any event id) 409', async () => {
  const marker = `pushed_marker_${process.pid}_gl`;
  fs.writeFileSync(path.join(B.root, 'src', 'gl.py'), `def ${marker}():\n    return 2\n`);
  const id = crypto.randomUUID();
  const push = gitlabPushOf(GITLAB_SSH);
  const ok = await gitlab(push, { id });
  assert.equal(ok.status, 202, ok.text);
  assert.equal(ok.json.runs, 1, ok.text);
  await until(`${marker} searchable`, async () => (await hits(marker, 'beta')) > 0);
  // (more than 5 like refusals in 10 s are folded into one event's "repeated"
  // count: the last test checks that each of these is counted)
  for (const token of [`${SECRET}x`, SECRET.slice(0, -1), 'short', '']) {
    const r = await gitlab(gitlabPushOf(GITLAB_SSH), { token });
    assert.equal(r.status, 401, `${token}: ${r.text}`);
    assert.equal(r.json.error.code, 'bad_signature');
  }
  const n = count();
  const again = await gitlab(push, { id: crypto.randomUUID() }); // the same body under a new event id
  assert.equal(again.status, 409, again.text);
  assertAudited(n, 'webhook_replayed');
});

test('a push for a repository no indexed repo has as a remote: 404 repo_not_found, audited', async () => {
  const n = count();
  const r = await github(pushOf('https://github.com/acme/other.git'));
  assert.equal(r.status, 404, r.text);
  assert.equal(r.json.error.code, 'repo_not_found');
  assert.match(r.json.error.message, /github\.com\/acme\/other.*memgate index/);
  assertAudited(n, 'repo_not_found');
  // a payload naming no repository URL at all
  const m = count();
  const none = await github({ ref: 'refs/heads/main', repository: { name: 'alpha' } });
  assert.equal(none.status, 400, none.text);
  assertAudited(m, 'invalid_argument');
});

test('ping and other events: 202 {"ignored":true,"event":...}, audited, nothing indexed', async () => {
  const ids = [];
  for (const [send1, event] of [[github, 'ping'], [github, 'pull_request'], [gitlab, 'Tag Push Hook']]) {
    const n = count();
    const payload = send1 === github ? { zen: 'Keep it logically awesome.', hook_id: commitId(), repository: { clone_url: GITHUB_URL } } : gitlabPushOf(GITLAB_SSH);
    const id = send1 === github ? deliveryId() : crypto.randomUUID();
    ids.push(id);
    const r = await send1(payload, { event, id });
    assert.equal(r.status, 202, r.text);
    assert.deepEqual(r.json, { ignored: true, event });
    const ev = since(n);
    assert.ok(ev.some((e) => e.op === 'webhook' && e.status === 'ignored' && e.query.includes(`${event} ${id}`)), JSON.stringify(ev));
    // an ignored delivery is remembered too
    const again = await send1(payload, { event, id });
    assert.equal(again.status, 409, again.text);
  }
  await settled();
  assert.ok(!auditEvents().some((e) => e.op === 'webhook_run' && ids.includes(e.query)), 'an ignored event started a run');
});

test('a body over the webhook cap (1 MiB, below http_max_body here) is 413 body_too_large, audited', async () => {
  const big = JSON.stringify({ ...pushOf(GITHUB_URL), pad: 'x'.repeat(1 << 20) });
  const n = count();
  const r = await github(big);
  assert.equal(r.status, 413, r.text);
  assert.equal(r.json.error.code, 'body_too_large');
  assert.match(r.json.error.message, /webhook body too large: the limit is 1048576 bytes/);
  assertAudited(n, 'body_too_large');
});

test('malformed JSON, a JSON array and another content type are refused (400, 415), audited', async () => {
  for (const [body, code] of [['{"repository": {', 'invalid_argument'], ['[1,2]', 'invalid_argument'],
    ['{"a":1,"a":2}', 'invalid_argument']]) {
    const n = count();
    const r = await github(body);
    assert.equal(r.status, 400, `${body}: ${r.text}`);
    assert.equal(r.json.error.code, code);
    assert.match(r.json.error.message, /JSON object/);
    assertAudited(n, code);
  }
  const n = count();
  const body = `payload=${encodeURIComponent(JSON.stringify(pushOf(GITHUB_URL)))}`;
  const r = await github(body, { headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  assert.equal(r.status, 415, r.text);
  assert.match(r.json.error.message, /application\/json/);
  assertAudited(n, 'unsupported_media_type');
  // a bad delivery id (only checked once signed)
  const m = count();
  const bad = await github(pushOf(GITHUB_URL), { id: 'has spaces in it' });
  assert.equal(bad.status, 400, bad.text);
  assertAudited(m, 'invalid_argument');
});

test('a push during another run of the repo (index_busy) waits for it, and pushes meanwhile cost one more run', async () => {
  await settled(); // runs the earlier tests started are over
  const marker = `busy_marker_${process.pid}`;
  fs.writeFileSync(path.join(A.root, 'src', 'busy.c'), `int ${marker}(void) { return 3; }\n`);
  // another index run holds the repo: its lock, for 4 s
  const lock = path.join(world.home, 'repos', 'alpha.db.lock');
  const holder = spawn('flock', ['-x', lock, '-c', 'echo held; sleep 4'], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve) => holder.stdout.once('data', resolve));
  const held = new Promise((resolve) => holder.once('exit', resolve));
  const ids = [deliveryId(), deliveryId(), deliveryId()];
  const first = await github(pushOf(GITHUB_URL), { id: ids[0] });
  assert.deepEqual(first.json, { accepted: true, runs: 1, coalesced: 0 });
  await sleep(300); // the run has met the lock
  for (const id of ids.slice(1)) {
    const r = await github(pushOf(GITHUB_URL), { id });
    assert.equal(r.status, 202, r.text);
    assert.equal(r.json.coalesced, 1, 'a run is under way: this push is one more run after it');
  }
  assert.equal(await hits(marker, 'alpha'), 0, 'indexed while another run held the repo');
  await held;
  await until(`${marker} searchable`, async () => (await hits(marker, 'alpha')) > 0);
  const firstRun = await runOf(ids[0]);
  assert.equal(firstRun.code, undefined, JSON.stringify(firstRun));
  await runOf(ids[2]); // the one more run, with the latest delivery's id
  await sleep(500);
  assert.equal(auditEvents().filter((e) => e.op === 'webhook_run' && ids.includes(e.query)).length, 2,
    'three pushes during a held run: that run and one more');
});

// ---- pull_on_push, with a bare remote over a file path ----

let remote; // the bare repo
let W; // the working copy, pull_on_push=on
let W2; // another clone of the same remote, pull_on_push off
let other; // a clone to push from

function pushFromOther(file, text) {
  git(other, 'pull', '-q', '--ff-only');
  fs.writeFileSync(path.join(other, file), text);
  git(other, 'add', '.');
  git(other, 'commit', '-qm', file);
  git(other, 'push', '-q', 'origin', 'main');
}

test('pull_on_push: a commit pushed to the remote is pulled (fast-forward) and becomes searchable', async () => {
  remote = path.join(world.dir, 'remote.git');
  git(world.dir, 'init', '-q', '--bare', remote);
  W = path.join(world.dir, 'wc');
  git(world.dir, 'clone', '-q', remote, W);
  fs.writeFileSync(path.join(W, 'first.c'), 'int first_pulled_fn(void) { return 0; }\n');
  git(W, 'add', '.');
  git(W, 'commit', '-qm', 'first');
  git(W, 'push', '-q', 'origin', 'main');
  W2 = path.join(world.dir, 'wc2');
  git(world.dir, 'clone', '-q', remote, W2);
  other = path.join(world.dir, 'other');
  git(world.dir, 'clone', '-q', remote, other);
  mg(['index', W, '--name', 'pulled', '--quiet']);
  mg(['index', W2, '--name', 'pulled2', '--quiet']);
  mg(['repos', 'set', 'pulled', 'pull_on_push=on']);

  const marker = `pulled_marker_${process.pid}`;
  pushFromOther('pushed.c', `int ${marker}(void) { return 4; }\n`);
  const before = git(W, 'rev-parse', 'HEAD').trim();
  const id = deliveryId();
  const r = await github(pushOf(remote), { id });
  assert.equal(r.status, 202, r.text);
  assert.equal(r.json.runs, 2, 'both clones of the remote are re-indexed');
  await until(`${marker} searchable in the pulled clone`, async () => (await hits(marker, 'pulled')) > 0);
  const runs = await until('both runs', () => {
    const ev = auditEvents().filter((e) => e.op === 'webhook_run' && e.query === id);
    return ev.length === 2 && ev;
  });
  const run = runs.find((e) => e.repo === 'pulled');
  assert.equal(run.code, undefined, JSON.stringify(run));
  assert.match(run.status, new RegExp(`fast-forwarded main ${before.slice(0, 7)}\\.\\.[0-9a-f]{7}$`));
  assert.equal(git(W, 'rev-parse', 'HEAD').trim(), git(remote, 'rev-parse', 'main').trim());
  assert.equal(git(W, 'status', '--porcelain'), '');
  // the clone without the setting was re-indexed as it is: not pulled
  assert.equal(await hits(marker, 'pulled2'), 0);
  assert.equal(git(W2, 'rev-parse', 'HEAD').trim(), before);
});

test('pull_on_push: a diverged branch or local changes are refused, audited, and nothing is indexed', async () => {
  // the working copy has a commit of its own, the remote another
  const local = `local_only_marker_${process.pid}`;
  const pushed = `nonff_marker_${process.pid}`;
  fs.writeFileSync(path.join(W, 'local.c'), `int ${local}(void) { return 5; }\n`);
  git(W, 'add', '.');
  git(W, 'commit', '-qm', 'local');
  const head = git(W, 'rev-parse', 'HEAD').trim();
  pushFromOther('nonff.c', `int ${pushed}(void) { return 6; }\n`);
  const id = deliveryId();
  const r = await github(pushOf(remote), { id });
  assert.equal(r.status, 202, r.text); // the refusal comes from the run, after the answer
  const run = await until('the refused run', () => auditEvents().find((e) => e.op === 'webhook_run' && e.query === id && e.repo === 'pulled'));
  assert.equal(run.code, 'pull_refused', JSON.stringify(run));
  assert.match(run.status, /^pull refused: not a fast-forward/);
  assert.equal(git(W, 'rev-parse', 'HEAD').trim(), head, 'the working copy was not moved');
  assert.equal(await hits(pushed, 'pulled'), 0, 'nothing of the remote was indexed');
  assert.equal(await hits(local, 'pulled'), 0, 'nor was the working copy re-indexed');

  // local changes to a tracked file
  git(W, 'reset', '-q', '--hard', 'origin/main');
  fs.appendFileSync(path.join(W, 'first.c'), `int dirty_marker_${process.pid};\n`);
  const id2 = deliveryId();
  assert.equal((await github(pushOf(remote), { id: id2 })).status, 202);
  const run2 = await until('the refused run', () => auditEvents().find((e) => e.op === 'webhook_run' && e.query === id2 && e.repo === 'pulled'));
  assert.equal(run2.code, 'pull_refused');
  assert.match(run2.status, /local changes to 1 tracked file \(first: first\.c\)/);
  assert.equal(await hits(`dirty_marker_${process.pid}`, 'pulled'), 0);
});

test('the webhook route is no way around tokens', async () => {
  // once a token exists, every other route needs it
  mg(['token', 'create', '--tenant', 'acme', '--json']);
  if (PG) await sleep(1100); // a daemon on PostgreSQL re-counts "any token?" once a second (docs/security.md)
  const repos = await v1(serve, '/v1/repos');
  assert.equal(repos.status, 401, repos.text);
  // the webhook still works by its signature alone
  assert.equal((await github(pushOf(GITHUB_URL))).status, 202);
  // but only at exactly its path, and only with POST
  const body = JSON.stringify(pushOf(GITHUB_URL));
  const h = { 'content-type': 'application/json', 'x-github-event': 'push', 'x-hub-signature-256': sign(body) };
  for (const p of ['/v1/hooks/git/', '/v1/hooks/git/../../repos', '/v1/hooks', '/v1/hooks/gitx', '/v1//hooks/git']) {
    const r = await send(serve, h, body, p);
    assert.equal(r.status, 401, `${p}: ${r.text}`);
  }
  const get = await send(serve, h, undefined, '/v1/hooks/git', 'GET');
  assert.equal(get.status, 405, get.text);
});

test('without webhook_secret the route answers 404 webhooks_disabled, audited', async () => {
  const off = makeWorld('webhook-off');
  const plain = await startServe(off);
  try {
    const r = await github(pushOf(GITHUB_URL), { on: plain });
    assert.equal(r.status, 404, r.text);
    assert.equal(r.json.error.code, 'webhooks_disabled');
    assert.match(r.json.error.message, /set webhook_secret/);
    const ev = spawnSync(MEMGATE_BIN, ['audit', '--json', '--limit', '0'], { env: off.env, cwd: off.cwd, encoding: 'utf8' });
    const list = ev.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
    assert.ok(list.some((e) => e.op === 'webhook' && e.code === 'webhooks_disabled'), ev.stdout);
    assert.ok(!fs.existsSync(path.join(off.home, 'hooks.db')));
  } finally {
    await shutdown([], plain);
    off.cleanup();
  }
  // a secret too short to be safe is refused at start
  const r = spawnSync(MEMGATE_BIN, ['serve', '--listen', '127.0.0.1:0'], { env: { ...world.env, MEMGATE_WEBHOOK_SECRET: 'tiny-s3cr3t' }, encoding: 'utf8', timeout: 10000 });
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /error\[invalid_config\]: MEMGATE_WEBHOOK_SECRET: webhook_secret must be at least 16 characters/);
  assert.ok(!r.stderr.includes('tiny-s3cr3t'), 'the secret is never printed');
});

test("issue 38 V6: a tenant's webhook secret re-indexes its own repos only; the server-wide one those of tenants without one", async () => {
  const w = makeWorld('webhook-tenants');
  const SHARED = 'https://github.com/shared/lib.git';
  const ONLY_ACME = 'https://github.com/acme/private.git';
  const SA = 'acme-webhook-secret-0123456789abcdef';
  const SG = 'globex-webhook-secret-0123456789abcd';
  const repos = [['acme-lib', 'acme', SHARED], ['globex-lib', 'globex', SHARED], ['local-lib', 'local', SHARED], ['acme-priv', 'acme', ONLY_ACME]];
  const roots = [];
  for (const [name, tenant, url] of repos) {
    const r = makeRepo(w, name);
    git(r.root, 'remote', 'add', 'origin', url);
    roots.push(`${tenant}:${r.root}`);
    execFileSync(MEMGATE_BIN, ['index', r.root, '--name', name, '--tenant', tenant, '--quiet'], { env: { ...w.env, MEMGATE_INDEX_ROOTS: roots.join(',') }, cwd: w.cwd });
  }
  const env = { MEMGATE_WATCH: 'off', MEMGATE_INDEX_ROOTS: roots.join(','), MEMGATE_WEBHOOK_SECRET: SECRET, MEMGATE_WEBHOOK_SECRETS: `acme:${SA}, globex:${SG}` };
  const s = await startServe(w, [], env);
  const events = () => spawnSync(MEMGATE_BIN, ['audit', '--json', '--limit', '0'], { env: w.env, cwd: w.cwd, encoding: 'utf8' })
    .stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
  /** The repos a delivery signed with secret started runs for (its accepted events). */
  const runsFor = async (payload, secret) => {
    const n = events().length;
    const r = await github(JSON.stringify(payload), { sig: sign(JSON.stringify(payload), secret), on: s });
    const repoIds = events().slice(n).filter((e) => e.op === 'webhook' && /^accepted/.test(e.status || '')).map((e) => e.repo).sort();
    return { r, repoIds };
  };
  try {
    const push = pushOf(SHARED);
    let { r, repoIds } = await runsFor(push, SA);
    assert.equal(r.status, 202, r.text);
    assert.deepEqual(r.json, { accepted: true, runs: 1, coalesced: 0 });
    assert.deepEqual(repoIds, ['acme-lib'], 'acme\'s secret re-indexes acme\'s clone of the remote, no other tenant\'s');
    // the same body signed by globex's secret is globex's own delivery (two tenants' webhooks on one remote)
    ({ r, repoIds } = await runsFor(push, SG));
    assert.equal(r.status, 202, r.text);
    assert.deepEqual(repoIds, ['globex-lib']);
    // the server-wide secret: the tenants without a secret of their own (here local) only
    ({ r, repoIds } = await runsFor(pushOf(SHARED), SECRET));
    assert.equal(r.status, 202, r.text);
    assert.deepEqual(repoIds, ['local-lib']);
    // globex's secret on a remote only acme has: the same answer as a remote nobody has, naming nothing of acme's
    ({ r, repoIds } = await runsFor(pushOf(ONLY_ACME), SG));
    assert.equal(r.status, 404, r.text);
    assert.equal(r.json.error.code, 'repo_not_found');
    assert.ok(!r.text.includes('acme-priv'), r.text);
    assert.deepEqual(repoIds, []);
    ({ r } = await runsFor(pushOf(ONLY_ACME), SA));
    assert.equal(r.status, 202, r.text);
    // a secret of no one: 401
    ({ r } = await runsFor(pushOf(SHARED), 'nobodys-secret-0123456789abcdef'));
    assert.equal(r.status, 401, r.text);
  } finally {
    await shutdown([], s);
    w.cleanup();
  }
  // malformed entries are refused at start, naming the tenant, never the secret
  for (const [value, why] of [['acme:short-s3cr3t', /webhook_secrets entry of tenant acme is not TENANT:SECRET/], [`Acme:${SA}`, /not TENANT:SECRET/], [`acme:${SA},acme:${SG}`, /names tenant 'acme' twice/]]) {
    const bad = spawnSync(MEMGATE_BIN, ['serve', '--listen', '127.0.0.1:0'], { env: { ...world.env, MEMGATE_WEBHOOK_SECRETS: value }, encoding: 'utf8', timeout: 10000 });
    assert.equal(bad.status, 1, bad.stderr);
    assert.match(bad.stderr, why);
    for (const secret of ['short-s3cr3t', SA, SG]) assert.ok(!bad.stderr.includes(secret), `a secret printed: ${bad.stderr}`);
  }
});

test('every refusal is in the audit log (floods folded into counts), and the chain verifies', async () => {
  // stopping the server writes the counts of folded refusals
  const st = await serve.stop();
  assert.ok(st.code === 0 || st.signal === 'SIGTERM', JSON.stringify(st));
  const logged = {};
  for (const e of auditEvents())
    if (e.op === 'webhook' && e.code) logged[e.code] = (logged[e.code] || 0) + (e.repeated || 1); // a folded event stands for `repeated`
  assert.deepEqual(logged, refused);
  for (const code of ['bad_signature', 'webhook_replayed', 'repo_not_found', 'body_too_large', 'invalid_argument',
    'unsupported_media_type', 'method_not_allowed'])
    assert.ok(refused[code] > 0, `no ${code} refusal was tested`);
  const r = spawnSync(MEMGATE_BIN, ['audit', '--verify'], { env: world.env, cwd: world.cwd, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr);
});
