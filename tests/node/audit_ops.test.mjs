// audit_ops.test.mjs — the audit ops docs/security.md lists ("Ops") are the
// names memgate writes: every one is taken by `memgate audit --op` and found
// on the event it names, after running what writes it (every tool over MCP,
// the commands, HTTP refusals, /v1/audit, a planted row, a torn line); and no
// event carries an op the docs do not list. audit_ops_pg.test.mjs runs it
// again with the chain in PostgreSQL (globalThis.MEMGATE_AUDIT_STORAGE: a
// storage URL).
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { MEMGATE_BIN, REPO_ROOT, call, freePort, makeRepo, makeWorld, pgSql, runMemgate, shutdown, startServe, stdioClient } from './lib/harness.mjs';

let world;
let A;
const STORAGE = globalThis.MEMGATE_AUDIT_STORAGE; // a postgres:// URL, or undefined: the files

const mg = (args) => runMemgate(world, args);

function mustMg(args) {
  const r = mg(args);
  assert.equal(r.status, 0, `memgate ${args.join(' ')}: ${r.stdout}${r.stderr}`);
  return r;
}

/** The ops of the table after "**Ops.**" in docs/security.md. */
function docOps() {
  const text = fs.readFileSync(path.join(REPO_ROOT, 'docs', 'security.md'), 'utf8');
  const at = text.indexOf('**Ops.**');
  assert.ok(at >= 0, 'docs/security.md has no **Ops.** paragraph');
  const ops = [];
  let inTable = false;
  for (const line of text.slice(at).split('\n')) {
    const m = /^\| `([a-z0-9_.-]+)` \|/.exec(line);
    if (m) {
      ops.push(m[1]);
      inTable = true;
    } else if (inTable && !line.startsWith('|')) {
      break;
    }
  }
  assert.ok(ops.length > 20, `too few ops parsed from docs/security.md: ${ops}`);
  return ops;
}

function events(args = []) {
  const r = mustMg(['audit', '--json', '--limit', '0', ...args]);
  return { list: r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l)), stderr: r.stderr };
}

before(() => {
  world = makeWorld(STORAGE ? 'auditopspg' : 'auditops');
  if (STORAGE) world.env.MEMGATE_STORAGE = STORAGE;
  A = makeRepo(world, 'alpha');
});

after(() => world.cleanup());

test('every op the docs list is written under that name and found by audit --op', async () => {
  const ops = docOps();
  // the commands
  mustMg(['index', A.root, '--name', 'alpha', '--quiet']);
  mustMg(['repos']);
  mustMg(['notes', 'set', '--repo', 'alpha', 'cli-key', 'cli value']);
  const admin = JSON.parse(mustMg(['token', 'create', '--tenant', 'acme', '--scope', 'admin', '--json']).stdout);
  const slow = JSON.parse(mustMg(['token', 'create', '--tenant', 'acme', '--rate', '6', '--json']).stdout);
  const gone = JSON.parse(mustMg(['token', 'create', '--tenant', 'acme', '--json']).stdout);
  mustMg(['token', 'revoke', gone.id]);

  // every tool over MCP (stdio, tenant local); a call that fails is audited too
  const args = {
    search_code: { query: 'main', repo: 'alpha' },
    search_symbols: { query: 'main', repo: 'alpha' },
    read_file: { path: 'src/main.c', repo: 'alpha' },
    outline: { path: 'src/main.c', repo: 'alpha' },
    find_references: { symbol: 'main', repo: 'alpha' },
    callers: { symbol: 'main', repo: 'alpha' },
    callees: { symbol: 'main', repo: 'alpha' },
    trace_path: { symbol: 'main', to: 'main', repo: 'alpha' },
    impact: { paths: ['src/main.c'], repo: 'alpha' },
    repo_map: { budget_tokens: 256, repo: 'alpha' },
    list_files: { repo: 'alpha' },
    get_context: { query: 'main', repo: 'alpha' },
    index_repo: { path: A.root, name: 'alpha' },
    set_note: { key: 'k1', value: 'a note', repo: 'alpha' },
    get_note: { key: 'k1', repo: 'alpha' },
    search_notes: { query: 'note', repo: 'alpha' },
    delete_note: { key: 'k1', repo: 'alpha' },
    create_project: { name: 'p1', repo: 'alpha' },
    join_project: { project: 'p1', session_id: 's1', repo: 'alpha' },
    remember: { summary: 'we met', session_id: 's1', repo: 'alpha' },
    recall: { query: 'met', session_id: 's1', repo: 'alpha' },
    add_entities: { entities: [{ name: 'main', type: 'function', notes: 'entry' }], session_id: 's1', repo: 'alpha' },
    search_entities: { query: 'main', session_id: 's1', repo: 'alpha' },
    leave_project: { session_id: 's1', repo: 'alpha' },
    delete_project: { project: 'p1', repo: 'alpha' },
    save_preference: { agent_id: 'a1', key: 'style', value: 'terse' },
    get_profile: { agent_id: 'a1' },
    set_scope: { repos: ['alpha'] },
    tools: { enable: 'all' },
    set_repo_settings: { repo: 'alpha', watch: 'off' },
  };
  const c = await stdioClient(world);
  const tools = (await c.client.listTools({ _meta: { 'memgate/tools': 'all' } })).tools.map((t) => t.name); // every group
  for (const t of tools) {
    assert.ok(ops.includes(t), `the tool ${t} is not in the docs' ops`);
    await call(c.client, t, args[t] || { repo: 'alpha' });
  }
  // a row planted from another repo fingerprint: the gate drops it (isolation_drop)
  await call(c.client, 'set_note', { key: 'real', value: 'real note', repo: 'alpha' });
  const plant = "INSERT INTO notes(tenant, repo, repo_fp, key, value, source, trust, created_at, updated_at) SELECT tenant, repo, '00000000000000000000000000000000', 'planted', 'planted value', 'inferred', 0, 1, 1 FROM notes LIMIT 1;";
  const db = path.join(world.home, 'memory', 'local.db');
  if (fs.existsSync(db)) execFileSync('sqlite3', [db, plant]);
  else pgSql(STORAGE, plant); // memory in PostgreSQL too (as the superuser: no tenant policy stops it)
  const listed = await call(c.client, 'list_notes', { repo: 'alpha' });
  assert.ok(listed.ok && !JSON.stringify(listed.data).includes('planted value'));
  await shutdown([c]);

  // HTTP: refusals, /v1/audit, a push webhook (webhook) and its background run (webhook_run)
  const secret = 'audit-ops-webhook-secret-0123';
  execFileSync('git', ['remote', 'add', 'origin', 'https://github.com/acme/alpha.git'], { cwd: A.root });
  const serve = await startServe(world, [], { MEMGATE_WEBHOOK_SECRET: secret });
  try {
    const push = JSON.stringify({ repository: { clone_url: 'https://github.com/acme/alpha.git' } });
    const hook = await fetch(`${serve.url}/v1/hooks/git`, {
      method: 'POST',
      body: push,
      headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': 'audit-ops-1',
        'x-hub-signature-256': `sha256=${crypto.createHmac('sha256', secret).update(push).digest('hex')}` },
    });
    assert.equal(hook.status, 202, await hook.text());
    for (let i = 0; i < 600 && !events(['--op', 'webhook_run']).list.length; i++) await new Promise((r) => setTimeout(r, 100));
    const get = (p, headers = {}) => fetch(`${serve.url}${p}`, { headers });
    assert.equal((await get('/v1/repos', { authorization: 'Bearer mgt_0000000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' })).status, 401);
    let limited = false;
    for (let i = 0; i < 30 && !limited; i++) limited = (await get('/v1/repos', { authorization: `Bearer ${slow.token}` })).status === 429;
    assert.ok(limited, 'no 429');
    assert.equal((await get('/v1/repos', { authorization: `Bearer ${admin.token}`, 'x-memgate-repo': 'a'.repeat(20000) })).status, 431);
    assert.equal((await get('/v1/audit', { authorization: `Bearer ${admin.token}` })).status, 200);
    // SIGHUP: the config read again (config_reload)
    serve.child.kill('SIGHUP');
    for (let i = 0; i < 100 && !/SIGHUP: config reloaded/.test(serve.stderr()); i++) await new Promise((r) => setTimeout(r, 50));
    assert.match(serve.stderr(), /SIGHUP: config reloaded/);
  } finally {
    await shutdown([], serve);
  }

  // the built-in authorization server (oauth_server = on): a client registered (oauth_register), an
  // authorize request for a client nobody registered (oauth_authorize), a code nobody issued
  // (oauth_token), a token nobody holds (oauth_revoke)
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const as = await startServe(world, ['--listen', `127.0.0.1:${port}`], { MEMGATE_OAUTH_SERVER: 'on', MEMGATE_OAUTH_RESOURCE: `${issuer}/mcp` });
  try {
    const form = (p, f) => fetch(`${issuer}${p}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(f) });
    const reg = await fetch(`${issuer}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:1/cb'], token_endpoint_auth_method: 'none', client_name: 'audit ops' }) });
    assert.equal(reg.status, 201, await reg.text());
    const q = new URLSearchParams({ response_type: 'code', client_id: 'no-such-client', redirect_uri: 'http://127.0.0.1:1/cb', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' });
    assert.notEqual((await fetch(`${issuer}/oauth/authorize?${q}`, { redirect: 'manual' })).status, 302);
    assert.equal((await form('/oauth/token', { grant_type: 'authorization_code', code: 'no-such-code', code_verifier: 'v'.repeat(43), client_id: 'no-such-client', redirect_uri: 'http://127.0.0.1:1/cb' })).status >= 400, true);
    await form('/oauth/revoke', { token: 'no-such-token', client_id: 'no-such-client' });
  } finally {
    await shutdown([], as);
  }

  // an external vector store in use (external_vectors): written when the store is opened, so one that is
  // not there does (the index run keeps its lexical index and warns)
  const ext = spawnSync(MEMGATE_BIN, ['index', A.root, '--quiet'], {
    env: { ...world.env, MEMGATE_VECTOR_STORE: 'qdrant', MEMGATE_VECTOR_URL: 'http://127.0.0.1:9', MEMGATE_ALLOW_EXTERNAL_VECTORS: 'on', MEMGATE_VECTOR_TIMEOUT: '1' },
    cwd: world.cwd,
    encoding: 'utf8',
  });
  assert.equal(ext.status, 0, ext.stderr);

  if (!STORAGE) {
    // a torn last line: the next writer closes it and records audit_recovered
    fs.appendFileSync(path.join(world.home, 'audit', 'audit.log'), '{"seq":999999,"time":"2025-');
    mustMg(['repos', 'rm', 'alpha']);
  } else {
    // no torn line in PostgreSQL: a last row that does not verify (edited, the append-only trigger off), which
    // the next writer records (audit_recovered, bad_tail) before its own event; the row put back, the chain verifies
    const last = 'SELECT max(seq) FROM audit_events';
    pgSql(STORAGE, `SET session_replication_role = replica; UPDATE audit_events SET line = line || ' ' WHERE seq = (${last})`);
    mustMg(['repos', 'rm', 'alpha']);
    pgSql(STORAGE, "SET session_replication_role = replica; UPDATE audit_events SET line = rtrim(line) WHERE line LIKE '% '");
    assert.equal(fs.existsSync(path.join(world.home, 'audit')), false, 'the files are not written when PostgreSQL holds the chain');
  }

  // each documented op: accepted, and found on its events only
  const seen = new Set();
  for (const op of ops) {
    const { list, stderr } = events(['--op', op]);
    assert.ok(list.length > 0, `no event with op ${op}`);
    for (const e of list) assert.equal(e.op, op);
    assert.doesNotMatch(stderr, /writes no op/, `audit --op ${op}: ${stderr}`);
    seen.add(op);
  }
  // and no event carries an op the docs do not list
  for (const e of events().list) assert.ok(ops.includes(e.op), `event op ${e.op} is not in docs/security.md: ${JSON.stringify(e)}`);
  assert.equal(seen.size, ops.length);
  // the commands' ops are the tools' names
  assert.ok(events(['--op', 'index_repo']).list.some((e) => e.instance === 'cli'), 'memgate index writes index_repo');
  assert.ok(events(['--op', 'set_note']).list.some((e) => e.instance === 'cli'), 'memgate notes set writes set_note');
  // a name memgate does not write gets a note (and a hint for the old doc names)
  const old = mg(['audit', '--op', 'note_write']);
  assert.equal(old.status, 0, old.stderr);
  assert.match(old.stderr, /writes no op 'note_write'.*did you mean 'set_note'/);
  assert.equal(mg(['audit', '--op', 'Not An Op']).status, 2);
  const v = mg(['audit', '--verify']);
  assert.equal(v.status, 0, v.stdout + v.stderr);
});
