// sdk2.test.mjs — memgate through the official TypeScript SDK 2.x
// (@modelcontextprotocol/client 2.4.0, protocol revision 2026-07-28) beside
// the 1.x SDK (2025-11-25): the era both transports negotiate, the repo
// binding by every route (docs/binding.md), handles (open_handle and the
// `handle` argument: binding, scope, memory session; another tenant's or an
// expired one is handle_invalid), isolation of 2.x and 1.x clients at once,
// tool errors as the agent sees them under both SDK majors, and the raw
// HTTP answers the SDK never shows (status codes, -32602/-32020/-32022/-32601,
// resultType and serverInfo), with a 2025 session on the same endpoint at
// the same time.
//
// Three worlds: the main one (7 repos, tenant local, loopback serve without
// tokens), a two-tenant one (acme and globex, one repo each, bearer tokens)
// and a short session_ttl one (handle expiry).
//
// MEMGATE_SDK2_CALLS: search calls per client in the isolation test (default 150).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';

import {
  call,
  httpClient,
  indexRepo,
  makeRepo,
  makeWorld,
  MEMGATE_BIN,
  metrics,
  metricSum,
  shutdown,
  sleep,
  startServe,
  stdioClient,
} from './lib/harness.mjs';
import { call2, httpClient2, MODERN, stdioClient2 } from './lib/sdk2.mjs';

const CALLS = Number(process.env.MEMGATE_SDK2_CALLS || 150);
const LEGACY = '2025-11-25';
const V = 'io.modelcontextprotocol/protocolVersion';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
const SUB_ID = 'io.modelcontextprotocol/subscriptionId';

let world; // main: tenant local, 7 repos
let serve;
let R; // { alpha: repo, ... }
let repos;
const open = []; // clients to close at the end (those with stderr are memgate mcp processes)

before(async () => {
  world = makeWorld('sdk2');
  repos = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf'].map((n) => makeRepo(world, n));
  R = Object.fromEntries(repos.map((r) => [r.name, r]));
  for (const r of repos) indexRepo(world, r);
  serve = await startServe(world);
});

after(async () => {
  try {
    await shutdown(open.filter((c) => c.stderr), serve);
  } finally {
    for (const c of open) await c.close().catch(() => {});
    world.cleanup();
  }
});

const keep = (c) => {
  open.push(c);
  return c;
};

/** Every row of a search or listing comes from repo `me` and holds no other repo's canary. */
function onlyFrom(r, me, what) {
  assert.ok(r.ok, `${what}: ${r.text}`);
  const rows = r.data.results ?? r.data.files;
  assert.ok(Array.isArray(rows) && rows.length > 0, `${what}: no rows: ${JSON.stringify(r.data).slice(0, 300)}`);
  for (const row of rows) assert.equal(row.repo, me.name, `${what}: a row of ${row.repo}: ${JSON.stringify(row).slice(0, 200)}`);
  const s = JSON.stringify(r.data);
  for (const o of repos) if (o !== me) assert.ok(!s.includes(o.canary), `${what}: ${o.name}'s canary in the answer`);
  assert.deepEqual(r.data.scope?.repos, [me.name], `${what}: scope.repos`);
}

/** The last raw response with a result among the messages a client received. */
function lastResult(seen) {
  for (let i = seen.length - 1; i >= 0; i--) if (seen[i].result) return seen[i];
  return undefined;
}

// ---- 1. the era ------------------------------------------------------------------------------------------

describe('SDK 2.x speaks 2026-07-28', () => {
  for (const transport of ['stdio', 'http']) {
    test(`over ${transport}: the era, server/discover, tools/list with annotations, search_code's structuredContent`, async () => {
      const c = keep(transport === 'stdio' ? await stdioClient2(world) : await httpClient2(serve));
      const { client } = c;
      assert.equal(client.getProtocolEra(), 'modern');
      assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
      assert.equal(client.getServerVersion()?.name, 'memgate');
      const d = client.getDiscoverResult();
      assert.ok(d, 'no DiscoverResult after a pinned connect');
      assert.ok(d.supportedVersions.includes(MODERN), JSON.stringify(d.supportedVersions));
      assert.ok(d.supportedVersions.includes(LEGACY), JSON.stringify(d.supportedVersions));
      assert.ok(d.capabilities?.tools, JSON.stringify(d.capabilities));

      const core = (await client.listTools()).tools.map((t) => t.name); // the core tools (docs/mcp.md "Tool groups")
      for (const n of ['search_code', 'get_context', 'tools']) assert.ok(core.includes(n), `${n} missing from ${core}`);
      assert.ok(!core.includes('remember'), `remember listed by default: ${core}`);
      // every group: _meta["memgate/tools"], which a stateless client sends with its tools/list
      const { tools } = await client.listTools({ _meta: { 'memgate/tools': 'all' } }, { cacheMode: 'refresh' });
      assert.ok(tools.length >= 40, `only ${tools.length} tools`);
      const names = tools.map((t) => t.name);
      for (const n of ['search_code', 'read_file', 'open_handle', 'set_scope', 'remember', 'recall']) assert.ok(names.includes(n), `${n} missing`);
      for (const t of tools) {
        assert.equal(typeof t.annotations, 'object', `${t.name}: no annotations`);
        assert.ok(Object.entries(t.annotations).some(([k, v]) => k.endsWith('Hint') && typeof v === 'boolean'),
          `${t.name}: no hint in ${JSON.stringify(t.annotations)}`);
        if (t.name !== 'open_handle')
          assert.ok(t.inputSchema?.properties?.handle, `${t.name}: no handle argument in ${JSON.stringify(t.inputSchema)}`);
      }
      const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
      for (const n of ['search_code', 'read_file', 'list_files', 'get_scope', 'recall'])
        assert.equal(byName[n].annotations.readOnlyHint, true, `${n}: ${JSON.stringify(byName[n].annotations)}`);
      for (const n of ['set_scope', 'remember', 'index_repo'])
        assert.notEqual(byName[n].annotations.readOnlyHint, true, `${n}: ${JSON.stringify(byName[n].annotations)}`);
      assert.notEqual(byName.remember.annotations.idempotentHint, true, JSON.stringify(byName.remember.annotations));
      assert.equal(byName.set_scope.annotations.idempotentHint, true, JSON.stringify(byName.set_scope.annotations));
      const sc = byName.search_code;
      assert.ok(sc.outputSchema, 'search_code has no outputSchema');

      const r = await call2(client, 'search_code', { repo: 'alpha', query: R.alpha.canary });
      onlyFrom(r, R.alpha, 'search_code');
      assert.ok(r.data.results.some((x) => x.path === 'src/main.c'), JSON.stringify(r.data.results.map((x) => x.path)));
      assert.equal(typeof r.data.took_ms, 'number');
      // what the SDK strips: the raw result has resultType and the server's name in _meta
      const raw = lastResult(c.seen);
      assert.ok(raw, `no raw result seen: ${JSON.stringify(c.seen).slice(0, 500)}`);
      assert.equal(raw.result.resultType, 'complete', JSON.stringify(raw).slice(0, 300));
      assert.equal(raw.result._meta?.[SERVER_INFO]?.name, 'memgate', JSON.stringify(raw.result._meta));
      assert.ok(raw.result.structuredContent.results.length > 0);
    });
  }

  test("mode 'auto' probes with server/discover and picks 2026-07-28 on both transports", async () => {
    const s = keep(await stdioClient2(world, { mode: 'auto', name: 'sdk2-auto-stdio' }));
    const h = keep(await httpClient2(serve, { mode: 'auto', name: 'sdk2-auto-http' }));
    for (const c of [s, h]) {
      assert.equal(c.client.getProtocolEra(), 'modern');
      assert.equal(c.client.getNegotiatedProtocolVersion(), MODERN);
      onlyFrom(await call2(c.client, 'list_files', { repo: 'bravo' }), R.bravo, 'auto list_files');
    }
  });

  for (const transport of ['http', 'stdio']) {
    test(`subscriptions/listen over ${transport}: acknowledged with what was asked; calls go on beside it`, async () => {
      const c = keep(transport === 'http' ? await httpClient2(serve, { name: 'sdk2-listen' }) : await stdioClient2(world, { name: 'sdk2-listen' }));
      const sub = await c.client.listen({ toolsListChanged: true, promptsListChanged: true }, { timeout: 10000 });
      assert.equal(sub.honoredFilter.toolsListChanged, true, JSON.stringify(sub.honoredFilter));
      assert.ok(!sub.honoredFilter.promptsListChanged, `memgate has no prompts: ${JSON.stringify(sub.honoredFilter)}`);
      const ack = c.seen.find((m) => m.method === 'notifications/subscriptions/acknowledged');
      assert.ok(ack, `no acknowledgement seen: ${JSON.stringify(c.seen).slice(0, 500)}`);
      assert.ok(ack.params._meta?.[SUB_ID] !== undefined, JSON.stringify(ack));
      assert.equal(ack.params.notifications?.toolsListChanged, true, JSON.stringify(ack));
      onlyFrom(await call2(c.client, 'list_files', { repo: 'charlie' }), R.charlie, 'a call while listening');
      await sub.close();
      assert.equal(await sub.closed, 'local');
      onlyFrom(await call2(c.client, 'list_files', { repo: 'delta' }), R.delta, 'a call after the listen ended');
    });
  }
});

// ---- 2. binding routes ------------------------------------------------------------------------------------

describe('repo binding under 2026-07-28, route by route', () => {
  let plain; // HTTP, no roots capability
  before(async () => {
    plain = keep(await httpClient2(serve, { name: 'sdk2-plain' }));
  });

  test('(1) explicit repo argument, and the X-Memgate-Repo header', async () => {
    onlyFrom(await call2(plain.client, 'search_code', { repo: 'bravo', query: 'canary' }), R.bravo, 'repo bravo');
    const h = keep(await httpClient2(serve, { headers: { 'x-memgate-repo': 'delta' }, name: 'sdk2-header' }));
    onlyFrom(await call2(h.client, 'search_code', { query: 'canary' }), R.delta, 'X-Memgate-Repo delta');
    // the argument wins over the header
    onlyFrom(await call2(h.client, 'search_code', { repo: 'echo', query: 'canary' }), R.echo, 'repo echo over the header');
  });

  test('(3) _meta["memgate/root"]: an absolute path, a file:// URI, a subdirectory, a file; explicit repo still wins', async () => {
    onlyFrom(await call2(plain.client, 'search_code', { query: 'canary' }, { meta: { 'memgate/root': R.charlie.root } }), R.charlie, 'root path');
    onlyFrom(await call2(plain.client, 'search_code', { query: 'canary' }, { meta: { 'memgate/root': pathToFileURL(R.echo.root).href } }), R.echo, 'root URI');
    onlyFrom(await call2(plain.client, 'list_files', {}, { meta: { 'memgate/root': path.join(R.foxtrot.root, 'src') } }), R.foxtrot, 'root subdir');
    onlyFrom(await call2(plain.client, 'list_files', {}, { meta: { 'memgate/root': pathToFileURL(path.join(R.golf.root, 'web', 'app.js')).href } }), R.golf, 'root file URI');
    onlyFrom(await call2(plain.client, 'search_code', { repo: 'alpha', query: 'canary' }, { meta: { 'memgate/root': R.bravo.root } }), R.alpha, 'repo over root');
    const bad = await call2(plain.client, 'search_code', { query: 'canary' }, { meta: { 'memgate/root': 'relative/dir' } });
    assert.equal(bad.ok, false);
    assert.equal(bad.code, 'invalid_argument', bad.text);
    assert.match(bad.text, /memgate\/root/);
    // the binding is the request's own: the next call without it is unbound again
    const none = await call2(plain.client, 'search_code', { query: 'canary' });
    assert.equal(none.code, 'repo_required', none.text);
  });

  for (const transport of ['http', 'stdio']) {
    test(`(4) roots as an InputRequiredResult over ${transport}: the SDK answers roots/list and retries; results only from that repo`, async () => {
      const roots = [path.join(R.bravo.root, 'src')];
      const c = keep(transport === 'http'
        ? await httpClient2(serve, { roots, name: 'sdk2-roots-http' })
        : await stdioClient2(world, { roots, name: 'sdk2-roots-stdio' }));
      onlyFrom(await call2(c.client, 'search_code', { query: 'canary' }), R.bravo, 'roots bravo');
      assert.ok(c.state.rootsAsked >= 1, `roots/list asked ${c.state.rootsAsked} times`);
      const asked = c.state.rootsAsked;
      onlyFrom(await call2(c.client, 'list_files', {}), R.bravo, 'roots bravo list_files');
      assert.equal(c.state.rootsAsked, asked + 1, 'each stateless call asks again');
      // an explicit repo needs no roots: not asked
      onlyFrom(await call2(c.client, 'search_code', { repo: 'charlie', query: 'canary' }), R.charlie, 'explicit over roots');
      assert.equal(c.state.rootsAsked, asked + 1, 'asked for roots although repo was given');
    });
  }

  test('(4) without the roots capability: repo_required, the sentence and _meta list every id', async () => {
    for (const c of [plain, keep(await stdioClient2(world, { name: 'sdk2-noroots-stdio' }))]) {
      const r = await call2(c.client, 'search_code', { query: 'canary' });
      assert.equal(r.ok, false);
      assert.equal(r.code, 'repo_required', r.text);
      for (const x of repos) {
        assert.ok(r.text.includes(x.name), `${x.name} missing from: ${r.text}`);
        assert.ok(r.error?.repos?.includes(x.name), `${x.name} missing from _meta: ${JSON.stringify(r.error)}`);
      }
      assert.ok(!repos.some((x) => r.text.includes(x.canary)), r.text);
    }
  });

  test('(5) stdio: the directory memgate mcp runs in (a subdirectory of a repo); --repo wins over it', async () => {
    const c = keep(await stdioClient2(world, { cwd: path.join(R.delta.root, 'web'), name: 'sdk2-cwd' }));
    onlyFrom(await call2(c.client, 'search_code', { query: 'canary' }), R.delta, 'cwd delta');
    onlyFrom(await call2(c.client, 'list_files', {}), R.delta, 'cwd delta list_files');
    onlyFrom(await call2(c.client, 'search_code', { repo: 'alpha', query: 'canary' }), R.alpha, 'explicit over cwd');
    const d = keep(await stdioClient2(world, { cwd: R.delta.root, args: ['--repo', 'echo'], name: 'sdk2-cwd-repo' }));
    onlyFrom(await call2(d.client, 'search_code', { query: 'canary' }), R.echo, '--repo echo over cwd delta');
  });

  test('(2) a handle binds: open_handle {repo} then calls with only the handle', async () => {
    const h = await call2(plain.client, 'open_handle', { repo: 'foxtrot' });
    assert.ok(h.ok, h.text);
    assert.equal(h.data.repo, 'foxtrot');
    onlyFrom(await call2(plain.client, 'search_code', { handle: h.data.handle, query: 'canary' }), R.foxtrot, 'handle foxtrot');
    // open_handle resolves like any call: the root in _meta binds it
    const g = await call2(plain.client, 'open_handle', {}, { meta: { 'memgate/root': R.golf.root } });
    assert.equal(g.data.repo, 'golf', JSON.stringify(g.data));
    onlyFrom(await call2(plain.client, 'list_files', { handle: g.data.handle }), R.golf, 'handle golf');
    // unbound (several repos, no root): a handle with no repo, and a call through it is repo_required
    const u = await call2(plain.client, 'open_handle', {});
    assert.ok(u.ok, u.text);
    assert.equal(u.data.repo, null, JSON.stringify(u.data));
    assert.equal((await call2(plain.client, 'search_code', { handle: u.data.handle, query: 'x' })).code, 'repo_required');
  });
});

// ---- 3. handles ---------------------------------------------------------------------------------------------

describe('handles', () => {
  let c;
  before(async () => {
    c = keep(await httpClient2(serve, { name: 'sdk2-handles' }));
  });

  test('open_handle: 32 hex digits, the repo, the idle ttl', async () => {
    const h = await call2(c.client, 'open_handle', { repo: 'alpha' });
    assert.ok(h.ok, h.text);
    assert.match(h.data.handle, /^[0-9a-f]{32}$/);
    assert.equal(h.data.repo, 'alpha');
    assert.ok(Number.isInteger(h.data.idle_ttl_s) && h.data.idle_ttl_s > 0, JSON.stringify(h.data));
    const h2 = await call2(c.client, 'open_handle', { repo: 'alpha' });
    assert.notEqual(h2.data.handle, h.data.handle);
    const bad = await call2(c.client, 'open_handle', { repo: 'no-such-repo' });
    assert.equal(bad.code, 'repo_not_found', bad.text);
  });

  test('session state without a handle: session_required saying to call open_handle, never a forgotten success', async () => {
    for (const [name, args] of [
      ['set_scope', { globs: ['src/**'] }],
      ['clear_scope', {}],
      ['join_project', { repo: 'alpha', project: 'sdk2-nohandle' }],
      ['leave_project', { repo: 'alpha' }],
    ]) {
      const r = await call2(c.client, name, args);
      assert.equal(r.code, 'session_required', `${name}: ${r.text}`);
      assert.match(r.text, /call open_handle/, `${name}: ${r.text}`);
    }
    // a durable session_id keeps the membership without a handle
    const j = await call2(c.client, 'join_project', { repo: 'alpha', project: 'sdk2-nohandle', session_id: 'sdk2-ext' });
    assert.notEqual(j.code, 'session_required', j.text);
  });

  test("set_scope through a handle: that handle's searches honour it, nobody else's", async () => {
    const h = (await call2(c.client, 'open_handle', { repo: 'alpha' })).data.handle;
    const other = (await call2(c.client, 'open_handle', { repo: 'alpha' })).data.handle;
    const set = await call2(c.client, 'set_scope', { handle: h, globs: ['src/**'], languages: ['c', 'python'] });
    assert.ok(set.ok, set.text);
    assert.deepEqual(set.data.scope.globs, ['src/**']);

    const r = await call2(c.client, 'search_code', { handle: h, query: 'canary', limit: 50 });
    onlyFrom(r, R.alpha, 'scoped search');
    assert.deepEqual(r.data.scope.globs, ['src/**'], JSON.stringify(r.data.scope));
    assert.deepEqual(r.data.scope.languages.slice().sort(), ['c', 'python']);
    const paths = new Set(r.data.results.map((x) => x.path));
    for (const p of paths) assert.match(p, /^src\/(main\.c|util\.py)$/, `a result outside the scope: ${p}`);
    assert.ok(paths.has('src/main.c'), JSON.stringify([...paths]));
    const lf = await call2(c.client, 'list_files', { handle: h });
    assert.deepEqual(lf.data.files.map((f) => f.path).sort(), ['src/main.c', 'src/util.py']);

    // another handle, and a call without one, see the whole repo
    for (const [what, args] of [['another handle', { handle: other }], ['no handle', { repo: 'alpha' }]]) {
      const all = await call2(c.client, 'search_code', { ...args, query: 'canary', limit: 50 });
      onlyFrom(all, R.alpha, what);
      assert.deepEqual(all.data.scope.globs, [], `${what}: ${JSON.stringify(all.data.scope)}`);
      assert.ok(all.data.results.some((x) => !x.path.startsWith('src/')), `${what}: only src/ results`);
    }
    assert.deepEqual((await call2(c.client, 'get_scope', { handle: h })).data.scope.globs, ['src/**']);
    assert.deepEqual((await call2(c.client, 'get_scope', { handle: other })).data.scope.globs, []);
    // an explicit argument wins for that call only
    const js = await call2(c.client, 'search_code', { handle: h, query: 'canary', globs: ['web/**'], languages: [] });
    assert.ok(js.data.results.length > 0 && js.data.results.every((x) => x.path === 'web/app.js'), JSON.stringify(js.data.results.map((x) => x.path)));
    assert.deepEqual((await call2(c.client, 'get_scope', { handle: h })).data.scope.globs, ['src/**']);

    assert.ok((await call2(c.client, 'clear_scope', { handle: h })).ok);
    const after = await call2(c.client, 'search_code', { handle: h, query: 'canary', limit: 50 });
    assert.ok(after.data.results.some((x) => !x.path.startsWith('src/')), 'clear_scope did not clear');
  });

  test("remember/recall through a handle: the handle's memory session and its project", async () => {
    const h = (await call2(c.client, 'open_handle', { repo: 'bravo' })).data.handle;
    const marker = `sdk2handlemarker${Date.now().toString(36)}`;
    let r = await call2(c.client, 'create_project', { handle: h, name: 'sdk2-proj' });
    assert.ok(r.ok, r.text);
    r = await call2(c.client, 'join_project', { handle: h, project: 'sdk2-proj' });
    assert.ok(r.ok, r.text);
    r = await call2(c.client, 'remember', { handle: h, summary: `found the parser bug ${marker}`, tags: ['sdk2'] });
    assert.ok(r.ok, r.text);
    const episodeSession = r.data.episode.session;

    const got = await call2(c.client, 'recall', { handle: h, query: marker });
    assert.ok(got.ok, got.text);
    assert.equal(got.data.episodes.length, 1, JSON.stringify(got.data));
    assert.ok(got.data.episodes[0].summary.includes(marker));
    assert.equal(got.data.episodes[0].session, episodeSession);
    assert.equal(got.data.scope.project, 'sdk2-proj', JSON.stringify(got.data.scope));

    // the project's pool is the handle's: a request of its own (no project) does not see it
    const alone = await call2(c.client, 'recall', { repo: 'bravo', query: marker });
    assert.ok(alone.ok, alone.text);
    assert.equal(alone.data.episodes.length, 0, JSON.stringify(alone.data));
    assert.ok(!alone.data.scope.project, JSON.stringify(alone.data.scope));
    // a second handle joining the project sees the first one's episode
    const h2 = (await call2(c.client, 'open_handle', { repo: 'bravo' })).data.handle;
    assert.equal((await call2(c.client, 'recall', { handle: h2, query: marker })).data.episodes.length, 0);
    assert.ok((await call2(c.client, 'join_project', { handle: h2, project: 'sdk2-proj' })).ok);
    assert.equal((await call2(c.client, 'recall', { handle: h2, query: marker })).data.episodes.length, 1);
  });

  test("precedence: an explicit repo beats the handle's binding, which beats _meta's root and the client's roots", async () => {
    const h = (await call2(c.client, 'open_handle', { repo: 'alpha' })).data.handle;
    onlyFrom(await call2(c.client, 'list_files', { handle: h, repo: 'bravo' }), R.bravo, 'repo over handle');
    onlyFrom(await call2(c.client, 'list_files', { handle: h }, { meta: { 'memgate/root': R.charlie.root } }), R.alpha, 'handle over root');
    const rc = keep(await httpClient2(serve, { roots: [R.delta.root], name: 'sdk2-handle-roots' }));
    onlyFrom(await call2(rc.client, 'list_files', { handle: h }), R.alpha, 'handle over roots');
    assert.equal(rc.state.rootsAsked, 0, 'roots asked although the handle is bound');
  });

  test('an unbound handle still takes the binding of _meta["memgate/root"]', async () => {
    const u = (await call2(c.client, 'open_handle', {})).data.handle;
    onlyFrom(await call2(c.client, 'list_files', { handle: u }, { meta: { 'memgate/root': R.charlie.root } }), R.charlie, 'unbound handle + root');
  });

  test('an unbound handle of a client with roots: asked through an InputRequiredResult', async () => {
    // opened by a client without roots: unbound (the roots client's own open_handle would be bound by its roots)
    const u = (await call2(c.client, 'open_handle', {})).data.handle;
    const rc = keep(await httpClient2(serve, { roots: [R.delta.root], name: 'sdk2-unbound-roots' }));
    onlyFrom(await call2(rc.client, 'list_files', { handle: u }), R.delta, 'unbound handle + roots');
    assert.ok(rc.state.rootsAsked >= 1);
  });

  test("open_handle by a client with roots is bound through the InputRequiredResult", async () => {
    const rc = keep(await httpClient2(serve, { roots: [path.join(R.delta.root, 'lib')], name: 'sdk2-open-roots' }));
    const h = await call2(rc.client, 'open_handle', {});
    assert.equal(h.data.repo, 'delta', h.text ?? JSON.stringify(h.data));
    assert.equal(rc.state.rootsAsked, 1);
    onlyFrom(await call2(c.client, 'list_files', { handle: h.data.handle }), R.delta, 'the handle, used by another client');
  });

  test('handles across eras: a 1.x (2025) session may use a handle; a session id is not a handle', async () => {
    const h = (await call2(c.client, 'open_handle', { repo: 'alpha' })).data.handle;
    assert.ok((await call2(c.client, 'set_scope', { handle: h, globs: ['web/**'] })).ok);
    const one = keep(await httpClient(serve, { name: 'sdk1-handle' }));
    const lf = await call(one.client, 'list_files', { handle: h });
    assert.ok(lf.ok, lf.text);
    assert.deepEqual(lf.data.files.map((f) => `${f.repo}:${f.path}`), ['alpha:web/app.js']);
    // the 1.x session's own scope is untouched
    assert.deepEqual((await call(one.client, 'get_scope', {})).data.scope.globs, []);
    // its Mcp-Session-Id (32 hex digits, like a handle) does not open its session to a stateless call
    const sid = one.transport.sessionId;
    assert.ok((await call(one.client, 'set_scope', { globs: ['lib/**'] })).ok);
    const r = await call2(c.client, 'get_scope', { handle: sid });
    assert.equal(r.code, 'handle_invalid', r.text);
    assert.ok(!r.text.includes('lib/**'), r.text);
  });

  test('a handle over stdio: open_handle, set_scope and a scoped search in one memgate mcp', async () => {
    const s = keep(await stdioClient2(world, { name: 'sdk2-stdio-handle' }));
    const h = await call2(s.client, 'open_handle', { repo: 'echo' });
    assert.ok(h.ok, h.text);
    assert.ok((await call2(s.client, 'set_scope', { handle: h.data.handle, languages: ['rust'] })).ok);
    const r = await call2(s.client, 'search_code', { handle: h.data.handle, query: 'canary' });
    onlyFrom(r, R.echo, 'stdio handle');
    assert.ok(r.data.results.every((x) => x.path === 'lib/core.rs'), JSON.stringify(r.data.results.map((x) => x.path)));
  });

  test('an unknown handle, a handle of the wrong type: handle_invalid, invalid_argument', async () => {
    const r = await call2(c.client, 'search_code', { handle: '0123456789abcdef0123456789abcdef', query: 'canary' });
    assert.equal(r.ok, false);
    assert.equal(r.code, 'handle_invalid', r.text);
    assert.equal(r.error?.code, 'handle_invalid');
    assert.ok(!repos.some((x) => r.text.includes(x.canary)), r.text);
    const t = await call2(c.client, 'search_code', { handle: 42, query: 'canary', repo: 'alpha' });
    assert.equal(t.code, 'invalid_argument', t.text);
  });

  test("another tenant's handle is handle_invalid (two bearer tokens over HTTP); a single visible repo binds", async () => {
    const tw = makeWorld('sdk2-tenants');
    let ts;
    const mine = [];
    try {
      for (const d of ['acme', 'globex']) fs.mkdirSync(path.join(tw.dir, d));
      tw.env.MEMGATE_INDEX_ROOTS = `acme:${path.join(tw.dir, 'acme')}, globex:${path.join(tw.dir, 'globex')}`;
      const mg = (args) => {
        const p = spawnSync(MEMGATE_BIN, args, { env: tw.env, cwd: tw.cwd, encoding: 'utf8' });
        assert.equal(p.status, 0, `${args.join(' ')}: ${p.stderr}`);
        return p.stdout;
      };
      const A = makeRepo({ dir: path.join(tw.dir, 'acme') }, 'acmerepo');
      const G = makeRepo({ dir: path.join(tw.dir, 'globex') }, 'globexrepo');
      mg(['index', A.root, '--name', A.name, '--tenant', 'acme', '--quiet']);
      mg(['index', G.root, '--name', G.name, '--tenant', 'globex', '--quiet']);
      const tok = {};
      for (const t of ['acme', 'globex']) tok[t] = JSON.parse(mg(['token', 'create', '--tenant', t, '--scope', 'write', '--rate', '0', '--json'])).token;
      ts = await startServe(tw);
      const auth = (t) => ({ authorization: `Bearer ${tok[t]}` });
      const acme = await httpClient2(ts, { headers: auth('acme'), name: 'sdk2-acme' });
      mine.push(acme);
      const globex = await httpClient2(ts, { headers: auth('globex'), name: 'sdk2-globex' });
      mine.push(globex);

      // (6) the single visible repo: each tenant sees one, and is bound to it with nothing said
      const a0 = await call2(acme.client, 'search_code', { query: 'canary' });
      assert.ok(a0.ok, a0.text);
      assert.ok(a0.data.results.length > 0 && a0.data.results.every((x) => x.repo === A.name), JSON.stringify(a0.data).slice(0, 300));
      assert.ok(!JSON.stringify(a0.data).includes(G.canary));
      const g0 = await call2(globex.client, 'list_files', {});
      assert.ok(g0.ok && g0.data.files.every((x) => x.repo === G.name), JSON.stringify(g0.data).slice(0, 300));

      // acme's handle, with a scope stored under it
      const h = await call2(acme.client, 'open_handle', {});
      assert.ok(h.ok, h.text);
      assert.equal(h.data.repo, A.name);
      assert.ok((await call2(acme.client, 'set_scope', { handle: h.data.handle, globs: ['src/**'] })).ok);
      // globex presents it: handle_invalid, nothing of acme's
      for (const [tool, args] of [['search_code', { query: A.canary }], ['list_files', {}], ['get_scope', {}],
        ['recall', { query: 'x' }], ['read_file', { path: 'src/main.c' }]]) {
        const r = await call2(globex.client, tool, { ...args, handle: h.data.handle });
        assert.equal(r.ok, false, `${tool}: ${JSON.stringify(r.data)?.slice(0, 300)}`);
        assert.equal(r.code, 'handle_invalid', `${tool}: ${r.text}`);
        assert.ok(!r.text.includes(A.canary) && !r.text.includes(A.name), `${tool}: ${r.text}`);
      }
      // the same through a raw request with globex's token (no SDK in between)
      const raw = await postModern(ts, 'tools/call', { name: 'get_scope', arguments: { handle: h.data.handle } }, auth('globex'));
      assert.equal(raw.status, 200, raw.text);
      assert.equal(raw.json.result.isError, true, raw.text);
      assert.equal(raw.json.result._meta['memgate/error'].code, 'handle_invalid', raw.text);
      assert.ok(!raw.text.includes('src/**'), raw.text);
      // and it still works for acme, scope intact
      const mineNow = await call2(acme.client, 'get_scope', { handle: h.data.handle });
      assert.deepEqual(mineNow.data.scope.globs, ['src/**'], mineNow.text);
      // globex naming acme's repo: not found, not a fallback
      assert.equal((await call2(globex.client, 'search_code', { repo: A.name, query: 'canary' })).code, 'repo_not_found');
    } finally {
      for (const x of mine) await x.close().catch(() => {});
      if (ts) await shutdown([], ts);
      tw.cleanup();
    }
  });

  test('an expired handle (session_ttl 1 s, idle 3 s) is handle_invalid; a handle in use stays alive', async () => {
    const ew = makeWorld('sdk2-expiry');
    let es;
    let x;
    try {
      const E = makeRepo(ew, 'expiryrepo');
      indexRepo(ew, E);
      es = await startServe(ew, [], { MEMGATE_SESSION_TTL: '1', MEMGATE_SESSION_PRUNE_INTERVAL: '1' });
      x = await httpClient2(es, { name: 'sdk2-expiry' });
      const idle = await call2(x.client, 'open_handle', {});
      const busy = await call2(x.client, 'open_handle', {});
      assert.equal(idle.data.repo, E.name, idle.text);
      assert.equal(idle.data.idle_ttl_s, 1);
      assert.ok((await call2(x.client, 'list_files', { handle: idle.data.handle })).ok);
      for (let i = 0; i < 6; i++) {
        await sleep(500);
        const r = await call2(x.client, 'get_scope', { handle: busy.data.handle });
        assert.ok(r.ok, `busy handle after ${(i + 1) * 0.5} s: ${r.text}`);
      }
      const r = await call2(x.client, 'search_code', { handle: idle.data.handle, query: 'canary' });
      assert.equal(r.ok, false);
      assert.equal(r.code, 'handle_invalid', r.text);
      assert.match(r.text, /open_handle/);
    } finally {
      await x?.close().catch(() => {});
      if (es) await shutdown([], es);
      ew.cleanup();
    }
  });
});

// ---- 4. isolation --------------------------------------------------------------------------------------------

test(`isolation: 2.x and 1.x clients at once (4 HTTP, 2 stdio, 4 by handle), ${CALLS} searches each, zero foreign rows`, async () => {
  const h = await call2((await httpClient2(serve, { name: 'sdk2-opener' }).then(keep)).client, 'open_handle', { repo: 'golf' });
  const clients = [
    { c: await httpClient2(serve, { roots: [R.alpha.root], name: 'iso-2x-roots' }), me: R.alpha, v: 2 },
    { c: await httpClient2(serve, { name: 'iso-2x-meta' }), me: R.bravo, v: 2, meta: { 'memgate/root': R.bravo.root } },
    { c: await httpClient(serve, { roots: [R.charlie.root], name: 'iso-1x-c' }), me: R.charlie, v: 1 },
    { c: await httpClient(serve, { roots: [R.delta.root], name: 'iso-1x-d' }), me: R.delta, v: 1 },
    { c: await stdioClient2(world, { cwd: R.echo.root, name: 'iso-2x-stdio' }), me: R.echo, v: 2 },
    { c: await stdioClient(world, { roots: [R.foxtrot.root], name: 'iso-1x-stdio' }), me: R.foxtrot, v: 1 },
    { c: await httpClient2(serve, { name: 'iso-2x-handle' }), me: R.golf, v: 2, args: { handle: h.data.handle } },
  ];
  // three handles on one repo, each with its own scope, used at once through one client
  const scoped = keep(await httpClient2(serve, { name: 'iso-2x-scoped' }));
  for (const [glob, re] of [['src/**', /^src\//], ['web/**', /^web\//], ['lib/**', /^lib\//]]) {
    const sh = (await call2(scoped.client, 'open_handle', { repo: 'alpha' })).data.handle;
    assert.ok((await call2(scoped.client, 'set_scope', { handle: sh, globs: [glob] })).ok);
    clients.push({ c: scoped, me: R.alpha, v: 2, args: { handle: sh }, re, shared: true });
  }
  for (const x of clients) if (!x.shared) keep(x.c);
  // the eras: 2.x clients on 2026-07-28, 1.x HTTP clients in a 2025-11-25 session
  for (const x of clients) {
    if (x.v === 2) assert.equal(x.c.client.getNegotiatedProtocolVersion(), MODERN, x.me.name);
    else if (x.c.transport.protocolVersion !== undefined) assert.equal(x.c.transport.protocolVersion, LEGACY, x.me.name);
  }
  const drive = async ({ c, me, v, meta, args = {}, re }) => {
    const problems = [];
    let next = 0;
    const worker = async () => {
      while (next < CALLS) {
        const i = next++;
        const a = { ...args, query: 'canary', limit: 20 };
        const r = v === 2 ? await call2(c.client, 'search_code', a, { meta }) : await call(c.client, 'search_code', a);
        if (!r.ok) {
          problems.push(`${me.name} call ${i}: ${r.text}`);
          continue;
        }
        if (r.data.results.length === 0) problems.push(`${me.name} call ${i}: no results`);
        for (const row of r.data.results) {
          if (row.repo !== me.name) problems.push(`${me.name} call ${i}: a row of ${row.repo}`);
          if (re && !re.test(row.path)) problems.push(`${me.name} handle ${re} call ${i}: ${row.path} outside its scope`);
        }
        const s = JSON.stringify(r.data);
        for (const o of repos) if (o !== me && s.includes(o.canary)) problems.push(`${me.name} call ${i}: ${o.name}'s canary`);
      }
    };
    await Promise.all([worker(), worker(), worker()]);
    return problems;
  };
  const t0 = Date.now();
  const problems = (await Promise.all(clients.map(drive))).flat();
  const secs = (Date.now() - t0) / 1000;
  console.log(`# sdk2 isolation: ${CALLS * clients.length} calls in ${secs.toFixed(1)} s`);
  assert.deepEqual(problems.slice(0, 20), [], `${problems.length} problems`);
  const m = await metrics(serve);
  assert.equal(metricSum(m.values, 'memgate_isolation_drops_total'), 0, m.text);
});

// ---- 5. tool errors under both SDK majors ---------------------------------------------------------------------

/** The error as the agent reads it (as errors.test.mjs): isError, "error[CODE]: sentence", _meta with the same. */
function agentError(raw, what) {
  assert.equal(raw.isError, true, `${what}: not isError: ${JSON.stringify(raw).slice(0, 500)}`);
  assert.equal(raw.structuredContent, undefined, `${what}: structuredContent on an error`);
  const text = (raw.content || []).filter((x) => x.type === 'text').map((x) => x.text).join('\n');
  const m = /^error\[([a-z_]+)\]: (.{10,})$/s.exec(text);
  assert.ok(m, `${what}: the text is not "error[CODE]: sentence": ${text}`);
  const meta = raw._meta?.['memgate/error'];
  assert.ok(meta, `${what}: no _meta["memgate/error"]: ${JSON.stringify(raw._meta)}`);
  assert.equal(meta.code, m[1], `${what}: _meta code`);
  assert.equal(meta.message, m[2], `${what}: _meta message`);
  return { code: m[1], sentence: m[2], meta };
}

describe('a failing tool call is an isError result under SDK 1.x and 2.x alike', () => {
  const cases = [
    ['read_file', { repo: 'alpha', path: 'no/such/file.c' }, 'file_not_found'],
    ['read_file', { repo: 'alpha', path: '../etc/passwd' }, 'path_outside_repo'],
    ['search_code', { repo: 'alpha', query: 'x', limit: 'many' }, 'invalid_argument'],
    ['search_code', { repo: 'alpha', query: 'a(b', mode: 'regex' }, 'invalid_regex'],
    ['search_code', { repo: 'no-such-repo', query: 'x' }, 'repo_not_found'],
    ['outline', { repo: 'alpha', path: 'src/util.py', cursor: 'abc' }, 'invalid_argument'],
  ];
  for (const transport of ['stdio', 'http']) {
    test(`over ${transport}: the same codes and sentences from both SDKs`, async () => {
      const one = keep(transport === 'stdio' ? await stdioClient(world, { name: 'err-1x' }) : await httpClient(serve, { name: 'err-1x' }));
      const two = keep(transport === 'stdio' ? await stdioClient2(world, { name: 'err-2x' }) : await httpClient2(serve, { name: 'err-2x' }));
      // list first, as agents do: the SDKs then check results against the output schemas
      assert.ok((await one.client.listTools()).tools.some((t) => t.name === 'outline'));
      assert.ok((await two.client.listTools()).tools.some((t) => t.name === 'outline'));
      for (const [tool, args, want] of cases) {
        const what = `${tool} ${JSON.stringify(args)}`;
        let r1;
        let r2;
        try {
          r1 = await one.client.callTool({ name: tool, arguments: args }, undefined, { timeout: 60000 });
        } catch (e) {
          assert.fail(`SDK 1.x threw on ${what}: ${e.message}`);
        }
        try {
          r2 = await two.client.callTool({ name: tool, arguments: args }, { timeout: 60000 });
        } catch (e) {
          assert.fail(`SDK 2.x threw on ${what}: ${e.message}`);
        }
        const e1 = agentError(r1, `1.x ${what}`);
        const e2 = agentError(r2, `2.x ${what}`);
        assert.equal(e1.code, want, `1.x ${what}: ${e1.sentence}`);
        assert.equal(e2.code, want, `2.x ${what}: ${e2.sentence}`);
        assert.equal(e2.sentence, e1.sentence, `${what}: the sentences differ between the SDK majors`);
        assert.ok(!e2.sentence.includes('root:'), e2.sentence);
      }
      // a success after the errors still validates against its outputSchema under 2.x
      const ok = await two.client.callTool({ name: 'outline', arguments: { repo: 'alpha', path: 'src/util.py', limit: 1 } }, { timeout: 60000 });
      assert.ok(!ok.isError, JSON.stringify(ok).slice(0, 300));
      assert.equal(ok.structuredContent.symbols.length, 1);
    });
  }
});

// ---- 6. raw HTTP -------------------------------------------------------------------------------------------------

const META = { [V]: MODERN, [CAPS]: {} };

/** POST one JSON-RPC request to /mcp with the 2026-07-28 headers derived from it (override with headers). */
async function postModern(s, method, params = {}, headers = {}, { meta = META, id = 1 } = {}) {
  const body = { jsonrpc: '2.0', id, method, params: meta ? { ...params, _meta: { ...meta, ...(params._meta || {}) } } : params };
  const h = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': meta?.[V] ?? MODERN,
    'mcp-method': method,
  };
  if (params.name) h['mcp-name'] = params.name;
  return postRaw(s, body, { ...h, ...headers });
}

async function postRaw(s, body, headers) {
  for (const [k, v] of Object.entries(headers)) if (v === undefined) delete headers[k];
  const res = await fetch(s.mcpUrl, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await res.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {
    // an SSE body: the response is the data line that answers the request
    for (const line of text.split('\n')) {
      if (!line.startsWith('data:')) continue;
      try {
        const m = JSON.parse(line.slice(5));
        if (m.id === body.id && (m.result || m.error)) json = m;
      } catch {
        /* a priming event */
      }
    }
  }
  const sse = (res.headers.get('content-type') || '').startsWith('text/event-stream');
  return { status: res.status, sid: res.headers.get('mcp-session-id'), json, text, sse };
}

describe('raw HTTP: what the SDK does not show', () => {
  const err = (r, status, code, what) => {
    assert.equal(r.status, status, `${what}: ${r.status} ${r.text}`);
    assert.equal(r.json?.error?.code, code, `${what}: ${r.text}`);
    assert.equal(r.json?.result, undefined, what);
  };

  test('every 2026-07-28 result has resultType and the serverInfo _meta; server/discover lists both eras', async () => {
    const d = await postModern(serve, 'server/discover');
    assert.equal(d.status, 200, d.text);
    assert.equal(d.json.result.resultType, 'complete');
    assert.equal(d.json.result._meta[SERVER_INFO].name, 'memgate');
    assert.deepEqual(d.json.result.supportedVersions, [MODERN, LEGACY, '2025-06-18', '2025-03-26']);
    const l = await postModern(serve, 'tools/list');
    assert.equal(l.status, 200, l.text);
    assert.equal(l.json.result.resultType, 'complete');
    assert.equal(l.json.result._meta[SERVER_INFO].name, 'memgate');
    assert.equal(l.json.result.tools.length, 14); // the core tools (docs/mcp.md "Tool groups")
    const all = await postModern(serve, 'tools/list', { _meta: { 'memgate/tools': 'all' } });
    assert.equal(all.status, 200, all.text);
    assert.ok(all.json.result.tools.length >= 40, `${all.json.result.tools.length} tools with every group`);
    const bad = await postModern(serve, 'tools/list', { _meta: { 'memgate/tools': ['memory', 'nope'] } });
    assert.equal(bad.json?.error?.code, -32602, bad.text);
    const c = await postModern(serve, 'tools/call', { name: 'list_files', arguments: { repo: 'alpha' } });
    assert.equal(c.status, 200, c.text);
    assert.equal(c.json.result.resultType, 'complete');
    assert.equal(c.json.result._meta[SERVER_INFO].name, 'memgate');
    assert.ok(c.json.result.structuredContent.files.every((f) => f.repo === 'alpha'));
    const e = await postModern(serve, 'tools/call', { name: 'read_file', arguments: { repo: 'alpha', path: 'nope.c' } });
    assert.equal(e.status, 200, e.text);
    assert.equal(e.json.result.resultType, 'complete', 'a tool error is a complete result');
    assert.equal(e.json.result.isError, true);
    assert.equal(e.json.result._meta[SERVER_INFO].name, 'memgate');
    assert.equal(e.json.result._meta['memgate/error'].code, 'file_not_found');
  });

  test('_meta missing or incomplete: 400 and -32602', async () => {
    err(await postModern(serve, 'server/discover', {}, {}, { meta: null }), 400, -32602, 'server/discover without _meta');
    err(await postModern(serve, 'tools/list', {}, {}, { meta: { [V]: MODERN } }), 400, -32602, 'no clientCapabilities');
    err(await postModern(serve, 'tools/list', {}, {}, { meta: { [CAPS]: {} } }), 400, -32602, 'no protocolVersion');
    err(await postModern(serve, 'tools/list', {}, {}, { meta: { [V]: MODERN, [CAPS]: 'roots' } }), 400, -32602, 'clientCapabilities not an object');
    // a valid logLevel makes the answer a stream when the client accepts one; an invalid one is refused
    // before anything is streamed: 400, whatever the Accept header allows
    const loud = { meta: { [V]: MODERN, [CAPS]: {}, 'io.modelcontextprotocol/logLevel': 'loud' } };
    const args = { name: 'search_code', arguments: { repo: 'alpha', query: 'x' } };
    err(await postModern(serve, 'tools/call', args, { accept: 'application/json' }, loud), 400, -32602, 'a bad logLevel, JSON');
    err(await postModern(serve, 'tools/call', args, {}, loud), 400, -32602, 'a bad logLevel, SSE accepted');
  });

  test('_meta missing on a sessionless tools/list that carries MCP-Protocol-Version 2026-07-28: 400 and -32602', async () => {
    const r = await postModern(serve, 'tools/list', {}, {}, { meta: null });
    err(r, 400, -32602, 'tools/list without _meta');
    assert.match(r.json.error.message, /_meta/);
  });

  test('header mismatches: 400 and -32020', async () => {
    const call = { name: 'search_code', arguments: { repo: 'alpha', query: 'canary' } };
    err(await postModern(serve, 'tools/list', {}, { 'mcp-protocol-version': LEGACY }), 400, -32020, 'MCP-Protocol-Version 2025-11-25');
    err(await postModern(serve, 'tools/list', {}, { 'mcp-protocol-version': '2026-07-29' }), 400, -32020, 'MCP-Protocol-Version 2026-07-29');
    err(await postModern(serve, 'tools/list', {}, { 'mcp-protocol-version': undefined }), 400, -32020, 'no MCP-Protocol-Version');
    err(await postModern(serve, 'tools/list', {}, { 'mcp-method': 'tools/call' }), 400, -32020, 'Mcp-Method');
    err(await postModern(serve, 'tools/list', {}, { 'mcp-method': undefined }), 400, -32020, 'no Mcp-Method');
    err(await postModern(serve, 'tools/call', call, { 'mcp-name': 'read_file' }), 400, -32020, 'Mcp-Name');
    err(await postModern(serve, 'tools/call', call, { 'mcp-name': undefined }), 400, -32020, 'no Mcp-Name');
    // the base64 form of Mcp-Name is accepted
    const ok = await postModern(serve, 'tools/call', call, { 'mcp-name': `=?base64?${Buffer.from('search_code').toString('base64')}?=` });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.json.result.structuredContent.results[0].repo, 'alpha');
  });

  test('an unsupported version in _meta: 400 and -32022 with the supported ones', async () => {
    const r = await postModern(serve, 'tools/list', {}, {}, { meta: { [V]: '2024-01-01', [CAPS]: {} } });
    err(r, 400, -32022, '2024-01-01');
    assert.ok(r.json.error.data.supported.includes(MODERN), r.text);
    assert.equal(r.json.error.data.requested, '2024-01-01');
  });

  test('a stateless request is stateless whatever Mcp-Session-Id says; a notification is 202', async () => {
    const r = await postModern(serve, 'tools/call', { name: 'get_scope', arguments: {} }, { 'mcp-session-id': 'no-such-session' });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.result.resultType, 'complete');
    assert.deepEqual(r.json.result.structuredContent.scope.globs, []);
    const n = await postRaw(serve, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5, _meta: META } },
      { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, 'mcp-method': 'notifications/cancelled' });
    assert.equal(n.status, 202, n.text);
  });

  test('a batch of 2026-07-28 requests: 400 and -32600 saying batches are not part of 2026-07-28', async () => {
    const body = [{ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META } }];
    const r = await postRaw(serve, body, { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' });
    assert.equal(r.status, 400, r.text);
    assert.equal(r.json?.error?.code, -32600, r.text);
    assert.match(r.json.error.message, /batch/, r.text);
  });

  test('roots answers that bind nothing: repo_required or path_not_found, never another round', async () => {
    const meta = { [V]: MODERN, [CAPS]: { roots: {} } };
    const ask = (roots, id) => postModern(serve, 'tools/call', { name: 'list_files', arguments: {}, inputResponses: { roots: { roots } } }, {}, { meta, id });
    let r = await ask([], 1);
    assert.equal(r.json.result.resultType, 'complete', r.text);
    assert.equal(r.json.result._meta['memgate/error'].code, 'repo_required', r.text);
    r = await ask([{ uri: 'https://example.com/repo' }], 2);
    assert.equal(r.json.result._meta['memgate/error'].code, 'repo_required', r.text);
    r = await ask([{ uri: 'file:///nonexistent/memgate-sdk2' }], 3);
    assert.equal(r.json.result._meta['memgate/error'].code, 'path_not_found', r.text);
    r = await postModern(serve, 'tools/call', { name: 'list_files', arguments: {} }, {}, { meta: { ...META, 'memgate/root': '/nonexistent/memgate-sdk2' } });
    assert.equal(r.json.result._meta['memgate/error'].code, 'path_not_found', r.text);
  });

  test('unknown and removed methods: 404 and -32601', async () => {
    err(await postModern(serve, 'no/such/method'), 404, -32601, 'no/such/method');
    err(await postModern(serve, 'initialize', { protocolVersion: MODERN, capabilities: {}, clientInfo: { name: 'x', version: '1' } }), 404, -32601, 'initialize in 2026-07-28');
    err(await postModern(serve, 'resources/subscribe', { uri: 'file:///x' }), 404, -32601, 'resources/subscribe');
  });

  test('the InputRequiredResult, and the retry with inputResponses', async () => {
    const params = { name: 'search_code', arguments: { query: 'canary' } };
    const meta = { [V]: MODERN, [CAPS]: { roots: {} } };
    const r = await postModern(serve, 'tools/call', params, {}, { meta });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.result.inputRequests, { roots: { method: 'roots/list', params: {} } }, r.text);
    assert.equal(r.json.result.resultType, 'input_required');
    assert.equal(r.json.result.content, undefined);
    const again = await postModern(serve, 'tools/call', { ...params, inputResponses: { roots: { roots: [{ uri: pathToFileURL(R.charlie.root).href }] } } }, {}, { meta, id: 2 });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.json.result.resultType, 'complete');
    const rows = again.json.result.structuredContent.results;
    assert.ok(rows.length > 0 && rows.every((x) => x.repo === 'charlie'), again.text.slice(0, 500));
  });

  test('a 2025 session on the same endpoint at the same time: unchanged, and never mixed with stateless requests', async () => {
    const post = (body, sid) => postRaw(serve, body, {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': LEGACY,
      ...(sid ? { 'mcp-session-id': sid } : {}),
    });
    const init = await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'raw-2025', version: '1' } } });
    assert.equal(init.status, 200, init.text);
    assert.equal(init.json.result.protocolVersion, LEGACY);
    assert.ok(init.sid, 'no Mcp-Session-Id');
    assert.equal((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, init.sid)).status, 202);
    // the session stores a scope
    const sc = await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'set_scope', arguments: { globs: ['lib/**'] } } }, init.sid);
    assert.equal(sc.status, 200, sc.text);
    assert.equal(sc.json.result.isError, undefined, sc.text);
    // interleaved: legacy calls in the session, stateless calls (some carrying the session's id)
    const jobs = [];
    for (let i = 0; i < 24; i++) {
      if (i % 2 === 0) {
        jobs.push(post({ jsonrpc: '2.0', id: 100 + i, method: 'tools/call', params: { name: 'list_files', arguments: { repo: 'bravo' } } }, init.sid)
          .then((r) => ['legacy', r]));
      } else {
        const extra = i % 4 === 1 ? { 'mcp-session-id': init.sid } : {};
        jobs.push(postModern(serve, 'tools/call', { name: 'list_files', arguments: { repo: 'charlie' } }, extra, { id: 100 + i }).then((r) => ['modern', r]));
      }
    }
    for (const [kind, r] of await Promise.all(jobs)) {
      assert.equal(r.status, 200, `${kind}: ${r.text}`);
      const res = r.json.result;
      const files = res.structuredContent.files.map((f) => `${f.repo}:${f.path}`);
      if (kind === 'legacy') {
        assert.equal(res.resultType, undefined, `a 2025 result with resultType: ${r.text.slice(0, 300)}`);
        assert.deepEqual(files, ['bravo:lib/core.rs'], 'the session scope (lib/**) applies to its own calls');
      } else {
        assert.equal(res.resultType, 'complete');
        assert.ok(files.length === R.charlie.files.length && files.every((f) => f.startsWith('charlie:')),
          `a stateless call saw the session's scope or another repo: ${files}`);
      }
    }
    const list = await post({ jsonrpc: '2.0', id: 3, method: 'tools/list' }, init.sid);
    assert.equal(list.status, 200, list.text);
    assert.equal(list.json.result.resultType, undefined);
    assert.ok(list.json.result.tools.some((t) => t.name === 'search_code'));
    // a 2026-07-28-only method inside the 2025 session's POST is served statelessly, not refused
    const disc = await postModern(serve, 'server/discover', {}, { 'mcp-session-id': init.sid });
    assert.equal(disc.status, 200, disc.text);
    assert.equal(disc.json.result.resultType, 'complete');
  });
});
