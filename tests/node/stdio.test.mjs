// stdio.test.mjs — the official MCP TypeScript SDK (Client +
// StdioClientTransport) against `memgate mcp`: the lifecycle, the tool list,
// search and read_file, repo binding (roots, --repo, single repo,
// repo_required), the session scope, progress and first-use indexing.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { execFileSync } from 'node:child_process';

import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

import { call, indexRepo, makeRepo, makeWorld, MEMGATE_BIN, REPO_ROOT, shutdown, stdioClient } from './lib/harness.mjs';

// listed by default (the rest come in groups: the tool `tools`)
const CORE_TOOLS = ['search_code', 'search_symbols', 'read_file', 'outline', 'list_files', 'find_references', 'callers',
  'callees', 'trace_path', 'impact', 'repo_map', 'list_repos', 'get_context', 'tools'];
const MEMGATE_TOOLS = [
  'search_code',
  'search_symbols',
  'read_file',
  'outline',
  'list_files',
  'find_references',
  'callers',
  'callees',
  'trace_path',
  'impact',
  'repo_map',
  'list_repos',
  'index_repo',
  'index_status',
  'set_scope',
  'get_scope',
  'clear_scope',
];

let world;
let A; // indexed first: the only repo for the single-repo tests
let B; // indexed second: from then on two repos
let C; // never indexed by the test: a client's root, indexed on first use
const open = [];
let serve = null; // no serve here; shutdown() takes none

async function connect(opts) {
  const c = await stdioClient(world, opts);
  open.push(c);
  return c;
}

/** Every result's repo is `repo` and no text of it holds another repo's canary. */
function assertOnly(data, repo, others) {
  const s = JSON.stringify(data);
  for (const o of others) assert.ok(!s.includes(o.canary), `result of ${repo.name} holds ${o.name}'s canary: ${s.slice(0, 500)}`);
  for (const r of data.results ?? data.files ?? []) assert.equal(r.repo, repo.name, JSON.stringify(r));
}

before(() => {
  world = makeWorld('stdio');
  A = makeRepo(world, 'alpha');
  B = makeRepo(world, 'bravo');
  C = makeRepo(world, 'charlie');
  indexRepo(world, A);
});

after(async () => {
  for (const c of open) await c.close().catch(() => {});
  world.cleanup();
});

describe('one repo indexed', () => {
  test('initialize: server info, protocol version, capabilities', async () => {
    const { client } = await connect();
    const info = client.getServerVersion();
    assert.equal(info.name, 'memgate');
    assert.ok(info.version);
    const caps = client.getServerCapabilities();
    assert.ok(caps.tools, JSON.stringify(caps));
    assert.ok(caps.logging, JSON.stringify(caps));
    assert.ok(!caps.resources && !caps.prompts, 'no conformance fixtures in the shipped binary');
    assert.deepEqual(await client.ping(), {});
  });

  test('tools/list: every tool has a description, an inputSchema and an outputSchema', async () => {
    const { client } = await connect();
    const { tools } = await client.listTools({ _meta: { 'memgate/tools': 'all' } }); // every group
    const names = tools.map((t) => t.name);
    for (const n of MEMGATE_TOOLS) assert.ok(names.includes(n), `missing tool ${n} in ${names}`);
    assert.ok(!names.includes('test_simple_text'), 'fixture tools are off by default');
    for (const t of tools) {
      assert.ok(t.description, `${t.name}: description`);
      assert.equal(t.inputSchema?.type, 'object', `${t.name}: inputSchema`);
      assert.equal(t.outputSchema?.type, 'object', `${t.name}: outputSchema`);
      // annotations on every tool: a client needs them to tell a read from a write
      assert.equal(t.annotations?.openWorldHint, false, `${t.name}: annotations`);
      const a = t.annotations;
      assert.ok(a.readOnlyHint === true || 'destructiveHint' in a || 'idempotentHint' in a, `${t.name}: write hints`);
    }
  });

  test('the default tool list: the core tools, within 14,000 bytes and 3,500 tokens in both eras (bench/tools_tokens.mjs)', async () => {
    const { client } = await connect();
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const n of CORE_TOOLS) assert.ok(names.includes(n), `missing core tool ${n} in ${names}`);
    for (const n of ['set_note', 'index_repo', 'set_scope', 'create_project']) assert.ok(!names.includes(n), `${n} listed by default`);
    // counted as make bench counts them: js-tiktoken, cl100k_base and o200k_base, 2025-06-18 and 2026-07-28
    // (every tool listed: 27,048 bytes, 6,161 cl100k tokens)
    const out = execFileSync(process.execPath, [path.join(REPO_ROOT, 'bench', 'tools_tokens.mjs'), '--bin', MEMGATE_BIN, '--json'],
      { encoding: 'utf8', timeout: 60000 });
    const m = JSON.parse(out);
    for (const l of [m.current, m.modern]) {
      assert.equal(l.tools, CORE_TOOLS.length, `${l.era}: ${l.tools} tools`);
      assert.ok(l.bytes <= 14000, `${l.era}: tools/list is ${l.bytes} bytes, over its budget of 14000`);
      for (const enc of ['cl100k_base', 'o200k_base'])
        assert.ok(l.tokens[enc] <= 3500, `${l.era}: tools/list is ${l.tokens[enc]} ${enc} tokens, over its budget of 3500`);
    }
    assert.ok(m.all.tools > CORE_TOOLS.length + 20, `every group: ${m.all.tools} tools`);
  });

  test('tools enables a group: notifications/tools/list_changed, then the list has its tools; disable takes them off', async () => {
    const { client } = await connect();
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => { changed++; });
    // callable by name before it is listed
    const scope = await call(client, 'get_scope', {});
    assert.equal(scope.ok, true, scope.text);
    const r = await call(client, 'tools', { enable: ['memory', 'session'] });
    assert.equal(r.ok, true, r.text);
    assert.deepEqual(r.data.enabled, ['memory', 'session']);
    assert.equal(r.data.listed, true);
    for (let i = 0; i < 50 && !changed; i++) await new Promise((ok) => setTimeout(ok, 20));
    assert.equal(changed, 1, 'no notifications/tools/list_changed');
    let names = (await client.listTools()).tools.map((t) => t.name);
    for (const n of ['set_note', 'remember', 'recall', 'extract_knowledge', 'set_scope', 'open_handle', 'search_code'])
      assert.ok(names.includes(n), `${n} not listed after enable: ${names}`);
    assert.ok(!names.includes('create_project') && !names.includes('index_repo'), names.join(' '));
    const again = await call(client, 'tools', { enable: 'memory' }); // no change: no notification
    assert.equal(again.ok, true, again.text);
    const off = await call(client, 'tools', { disable: 'all' });
    assert.deepEqual(off.data.enabled, []);
    for (let i = 0; i < 50 && changed < 2; i++) await new Promise((ok) => setTimeout(ok, 20));
    assert.equal(changed, 2);
    names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(!names.includes('set_note'), names.join(' '));
    const bad = await call(client, 'tools', { enable: 'everything' });
    assert.equal(bad.code, 'invalid_argument', bad.text);
  });

  test('search_code finds the canary in the only repo without any binding', async () => {
    const { client } = await connect();
    const r = await call(client, 'search_code', { query: A.canary });
    assert.ok(r.ok, r.text);
    assert.ok(r.data.results.length >= 3, JSON.stringify(r.data));
    assertOnly(r.data, A, [B, C]);
    assert.ok(r.data.results.some((h) => h.snippet.includes(A.canary)));
    const paths = new Set(r.data.results.map((h) => h.path));
    for (const p of paths) assert.ok(A.files.includes(p), p);
    assert.ok(!paths.has('.env'), 'a secret file is never indexed');
    // the text block is for the agent: not JSON, each hit as path:line, its snippet below
    const text = r.raw.content[0].text;
    assert.throws(() => JSON.parse(text));
    const h = r.data.results[0];
    assert.ok(text.includes(`\n  ${h.path}:${h.line}`), text);
    assert.ok(text.includes(A.canary), text);
    assert.ok(!/\d\.\d{7,}/.test(text), `float noise in the text: ${text}`);
  });

  test('search_code pages: next_cursor continues where the last page ended', async () => {
    const { client } = await connect();
    const whole = await call(client, 'search_code', { query: A.canary, limit: 4 });
    assert.ok(whole.ok, whole.text);
    const p1 = await call(client, 'search_code', { query: A.canary, limit: 2 });
    assert.ok(p1.ok && typeof p1.data.next_cursor === 'string', JSON.stringify(p1.data));
    const p2 = await call(client, 'search_code', { query: A.canary, limit: 2, cursor: p1.data.next_cursor });
    assert.ok(p2.ok, p2.text);
    const key = (h) => `${h.path}:${h.start_line}`;
    assert.deepEqual([...p1.data.results, ...p2.data.results].map(key), whole.data.results.map(key));
    const other = await call(client, 'search_code', { query: `${A.canary}_lookup`, cursor: p1.data.next_cursor });
    assert.equal(other.code, 'invalid_argument');
  });

  test('search_symbols finds a definition by name', async () => {
    const { client } = await connect();
    const r = await call(client, 'search_symbols', { query: `${A.canary}_lookup` });
    assert.ok(r.ok, r.text);
    const hit = r.data.results.find((h) => h.path === 'src/util.py');
    assert.ok(hit, JSON.stringify(r.data));
    assert.equal(hit.symbol, `${A.canary}_lookup`);
  });

  test('read_file returns lines of an indexed file', async () => {
    const { client } = await connect();
    const r = await call(client, 'read_file', { path: 'src/main.c', start_line: 3, end_line: 4 });
    assert.ok(r.ok, r.text);
    assert.equal(r.data.repo, A.name);
    assert.equal(r.data.path, 'src/main.c');
    assert.equal(r.data.start_line, 3);
    assert.equal(r.data.end_line, 4);
    assert.equal(r.data.text, `/* ${A.canary}: the C entry point */\nint ${A.canary}_main(int argc)\n`);
    const whole = await call(client, 'read_file', { path: './src/main.c' });
    assert.ok(whole.ok, whole.text);
    assert.equal(whole.data.text, fs.readFileSync(path.join(A.root, 'src/main.c'), 'utf8'));
  });

  const refusals = [
    ['..', '../bravo/src/main.c', ['path_outside_repo']],
    ['.. in the middle', 'src/../../bravo/README.md', ['path_outside_repo']],
    ['an absolute path', '/etc/passwd', ['path_outside_repo']],
    ['an absolute path into the repo', null, ['path_outside_repo']],
    ['a symlink out of the root', 'escape-link.txt', ['path_outside_repo', 'file_not_found']],
    ['a secret file (.env)', '.env', ['secret_file']],
    ['a secret file in a subdirectory', 'src/.env', ['secret_file']],
  ];
  for (const [what, p, codes] of refusals) {
    test(`read_file refuses ${what} with isError and a stable code`, async () => {
      const { client } = await connect();
      const r = await call(client, 'read_file', { path: p ?? path.join(A.root, 'src/main.c') });
      assert.equal(r.ok, false, `served ${p}: ${JSON.stringify(r.data)}`);
      assert.ok(codes.includes(r.code), `code ${r.code} not in ${codes}: ${r.text}`);
      assert.equal(r.error?.code, r.code, '_meta["memgate/error"].code');
      assert.ok(r.text.startsWith(`error[${r.code}]`), r.text);
      assert.ok(!r.text.includes('OUTSIDE_MARKER') && !r.text.includes('SECRET_do_not_serve'), r.text);
    });
  }

  test('read_file refuses an indexed file that became a symlink out of the root', async () => {
    const D = makeRepo(world, 'delta');
    indexRepo(world, D);
    const victim = path.join(D.root, 'docs/notes.txt');
    fs.rmSync(victim);
    fs.symlinkSync(path.join(world.dir, 'outside-secret.txt'), victim);
    const { client } = await connect({ args: ['--repo', D.root] });
    const r = await call(client, 'read_file', { path: 'docs/notes.txt' });
    assert.equal(r.ok, false, JSON.stringify(r.data));
    // path_outside_repo; or file_not_found when a watcher (of a process still
    // open) has re-indexed the link away first: never the target's text
    assert.ok(['path_outside_repo', 'file_not_found'].includes(r.code), r.text);
    assert.ok(!JSON.stringify(r.raw).includes('OUTSIDE_MARKER'));
  });

  test('a tool error for a bad argument is isError invalid_argument, not a protocol error', async () => {
    const { client } = await connect({ args: ['--repo', A.root] });
    const r = await call(client, 'search_code', { query: 'x', bogus: 1 });
    assert.equal(r.ok, false);
    assert.equal(r.code, 'invalid_argument', r.text);
  });
});

describe('two repos indexed', () => {
  let ids;
  before(() => {
    indexRepo(world, B);
    ids = [A.name, B.name, 'delta'];
  });

  test('no binding: search_code fails with repo_required listing every repo id', async () => {
    const { client } = await connect();
    const r = await call(client, 'search_code', { query: A.canary });
    assert.equal(r.ok, false, JSON.stringify(r.data));
    assert.equal(r.code, 'repo_required', r.text);
    for (const id of ids) {
      assert.ok(r.text.includes(id), `${id} missing from: ${r.text}`);
      assert.ok(r.error.repos?.includes(id), `${id} missing from error.repos: ${JSON.stringify(r.error)}`);
    }
    // the same for the other repo-scoped tools
    for (const [tool, args] of [
      ['search_symbols', { query: 'x' }],
      ['list_files', {}],
      ['read_file', { path: 'README.md' }],
    ]) {
      const e = await call(client, tool, args);
      assert.equal(e.code, 'repo_required', `${tool}: ${e.text}`);
    }
  });

  test('no binding: an explicit repo argument works', async () => {
    const { client } = await connect();
    const r = await call(client, 'search_code', { query: B.canary, repo: B.name });
    assert.ok(r.ok, r.text);
    assert.ok(r.data.results.length > 0);
    assertOnly(r.data, B, [A, C]);
    const bad = await call(client, 'search_code', { query: 'x', repo: 'no-such-repo' });
    assert.equal(bad.code, 'repo_not_found', bad.text);
  });

  for (const which of ['alpha', 'bravo']) {
    test(`a client whose roots/list answers file://<${which}> is bound to ${which}`, async () => {
      const [me, other] = which === 'alpha' ? [A, B] : [B, A];
      const { client } = await connect({ roots: [me.root] });
      const r = await call(client, 'search_code', { query: 'canary' });
      assert.ok(r.ok, r.text);
      assert.ok(r.data.results.length > 0);
      assertOnly(r.data, me, [other, C]);
      // the other repo's canary is not found through this session
      const x = await call(client, 'search_code', { query: other.canary });
      assert.ok(x.ok, x.text);
      assertOnly(x.data, me, [other, C]);
      assert.equal(x.data.results.filter((h) => h.snippet.includes(other.canary)).length, 0);
      const files = await call(client, 'list_files', {});
      assert.ok(files.ok, files.text);
      assert.deepEqual(files.data.files.map((f) => f.path).sort(), [...me.files].sort());
      assertOnly(files.data, me, [other, C]);
      const repos = await call(client, 'list_repos', {});
      assert.equal(repos.data.bound, me.name);
      const rf = await call(client, 'read_file', { path: 'README.md' });
      assert.ok(rf.ok, rf.text);
      assert.ok(rf.data.text.includes(me.canary));
    });
  }

  test('a root given as a subdirectory binds to the repo that contains it', async () => {
    const { client } = await connect({ roots: [path.join(B.root, 'src')] });
    const r = await call(client, 'list_files', {});
    assert.ok(r.ok, r.text);
    assertOnly(r.data, B, [A, C]);
  });

  test('memgate mcp --repo PATH binds the process to that repo', async () => {
    const { client } = await connect({ args: ['--repo', B.root] });
    const r = await call(client, 'search_code', { query: 'canary' });
    assert.ok(r.ok, r.text);
    assertOnly(r.data, B, [A, C]);
    assert.equal((await call(client, 'list_repos', {})).data.bound, B.name);
  });

  test('--repo wins over the client roots', async () => {
    const { client } = await connect({ args: ['--repo', A.root], roots: [B.root] });
    const r = await call(client, 'list_files', {});
    assert.ok(r.ok, r.text);
    assertOnly(r.data, A, [B, C]);
  });

  test('an explicit repo argument wins over the binding', async () => {
    const { client } = await connect({ roots: [A.root] });
    const r = await call(client, 'search_code', { query: B.canary, repo: B.name });
    assert.ok(r.ok, r.text);
    assertOnly(r.data, B, [A, C]);
    const rf = await call(client, 'read_file', { path: 'README.md', repo: B.name });
    assert.ok(rf.data.text.includes(B.canary));
    // and the binding is unchanged afterwards
    const again = await call(client, 'read_file', { path: 'README.md' });
    assert.ok(again.data.text.includes(A.canary));
  });

  test('set_scope / get_scope / clear_scope, the scope echoed, explicit arguments win per field', async () => {
    const { client } = await connect({ roots: [A.root] });
    const empty = await call(client, 'get_scope', {});
    assert.ok(empty.ok, empty.text);
    assert.deepEqual(empty.data.scope, { globs: [], exclude_globs: [], languages: [], repos: [] });

    const set = await call(client, 'set_scope', { globs: ['src/**'], languages: ['python'] });
    assert.ok(set.ok, set.text);
    assert.deepEqual(set.data.scope.globs, ['src/**']);
    assert.deepEqual(set.data.scope.languages, ['python']);
    assert.deepEqual((await call(client, 'get_scope', {})).data.scope, set.data.scope);

    const scoped = await call(client, 'search_code', { query: A.canary });
    assert.ok(scoped.ok, scoped.text);
    assert.ok(scoped.data.results.length > 0);
    for (const h of scoped.data.results) assert.equal(h.path, 'src/util.py');
    assert.deepEqual(scoped.data.scope.globs, ['src/**']);
    assert.deepEqual(scoped.data.scope.languages, ['python']);
    assert.deepEqual(scoped.data.scope.repos, [A.name]);

    const listed = await call(client, 'list_files', {});
    assert.deepEqual(listed.data.files.map((f) => f.path), ['src/util.py']);
    assert.deepEqual(listed.data.scope.languages, ['python']);

    // explicit languages win over the scope's; the scope's globs still apply
    const c = await call(client, 'search_code', { query: A.canary, languages: ['c'] });
    assert.ok(c.ok, c.text);
    assert.ok(c.data.results.length > 0);
    for (const h of c.data.results) assert.equal(h.path, 'src/main.c');
    assert.deepEqual(c.data.scope.languages, ['c']);
    assert.deepEqual(c.data.scope.globs, ['src/**']);
    // explicit globs win: web/ is outside the scope's src/** but asked for
    const js = await call(client, 'list_files', { globs: ['web/**'], languages: [] });
    assert.deepEqual(js.data.files.map((f) => f.path), ['web/app.js']);
    assert.deepEqual(js.data.scope.globs, ['web/**']);
    // and the stored scope is unchanged by explicit arguments
    assert.deepEqual((await call(client, 'get_scope', {})).data.scope, set.data.scope);

    const cleared = await call(client, 'clear_scope', {});
    assert.ok(cleared.ok, cleared.text);
    assert.deepEqual(cleared.data.scope, { globs: [], exclude_globs: [], languages: [], repos: [] });
    const all = await call(client, 'list_files', {});
    assert.deepEqual(all.data.files.map((f) => f.path).sort(), [...A.files].sort());
  });

  test('set_scope with exclude_globs and repos; a bad scope is invalid_argument', async () => {
    const { client } = await connect();
    const s = await call(client, 'set_scope', { repos: [B.name], exclude_globs: ['src/**', 'lib/**'] });
    assert.ok(s.ok, s.text);
    const r = await call(client, 'list_files', {});
    assert.ok(r.ok, r.text);
    assert.deepEqual(r.data.files.map((f) => f.path).sort(), ['README.md', 'docs/notes.txt', 'web/app.js']);
    assertOnly(r.data, B, [A, C]);
    assert.deepEqual(r.data.scope.repos, [B.name]);
    const bad = await call(client, 'set_scope', { languages: ['klingon'] });
    assert.equal(bad.ok, false);
    assert.ok(['invalid_argument', 'invalid_language'].includes(bad.code), bad.text);
    const unknown = await call(client, 'set_scope', { repos: ['no-such-repo'] });
    assert.equal(unknown.code, 'repo_not_found', unknown.text);
  });

  test('two sessions never share a scope', async () => {
    const one = (await connect({ roots: [A.root] })).client;
    const two = (await connect({ roots: [A.root] })).client;
    await call(one, 'set_scope', { languages: ['go'] });
    const r = await call(two, 'get_scope', {});
    assert.deepEqual(r.data.scope.languages, []);
  });

  test('index_repo with a progressToken sends progress notifications', async () => {
    const E = makeRepo(world, 'echo');
    const { client } = await connect();
    const progress = [];
    const r = await call(client, 'index_repo', { path: E.root, name: E.name }, { onprogress: (p) => progress.push(p) });
    assert.ok(r.ok, r.text);
    assert.equal(r.data.repo, E.name);
    assert.equal(r.data.files, E.files.length);
    assert.ok(progress.length >= 1, 'no progress notification');
    for (let i = 1; i < progress.length; i++) assert.ok(progress[i].progress >= progress[i - 1].progress, JSON.stringify(progress));
    const found = await call(client, 'search_code', { query: E.canary, repo: E.name });
    assert.ok(found.data.results.length > 0);
  });

  test('a root not indexed yet is indexed on first use', async () => {
    const { client } = await connect({ roots: [C.root] });
    const progress = [];
    const r = await call(client, 'search_code', { query: C.canary }, { onprogress: (p) => progress.push(p) });
    assert.ok(r.ok, r.text);
    assert.ok(r.data.results.length > 0, JSON.stringify(r.data));
    const repo = r.data.results[0].repo;
    for (const h of r.data.results) assert.equal(h.repo, repo);
    const all = JSON.stringify(r.data);
    for (const o of [A, B]) assert.ok(!all.includes(o.canary));
    const repos = await call(client, 'list_repos', {});
    const mine = repos.data.repos.find((x) => x.id === repo);
    assert.equal(fs.realpathSync(mine.root), fs.realpathSync(C.root));
    assert.equal(repos.data.bound, repo);
  });
});

test('every memgate process exits cleanly (status 0, no sanitizer report)', async () => {
  const clients = open.splice(0);
  const s = serve;
  serve = null;
  await shutdown(clients, s);
});
