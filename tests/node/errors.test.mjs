// errors.test.mjs — tool errors as an agent sees them through the official
// TypeScript SDK. The client lists the tools first, as agents do, so the SDK
// checks every result against the tool's outputSchema: an error must still
// reach the agent as isError with "error[CODE]: sentence" in its text (and
// the same as data in _meta["memgate/error"]), never as a protocol error.
// Over stdio and Streamable HTTP, for every tool in tools/list.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { httpClient, indexRepo, makeRepo, makeWorld, shutdown, startServe, stdioClient } from './lib/harness.mjs';

let world;
let A;
let B;
let serve;
const open = [];

before(async () => {
  world = makeWorld('errors');
  A = makeRepo(world, 'alpha');
  B = makeRepo(world, 'bravo');
  indexRepo(world, A);
  indexRepo(world, B); // two repos: nothing is chosen for a caller that names none
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

/** Call through the SDK (which validates structured results) and return what the agent gets. */
async function callRaw(client, name, args) {
  let raw;
  try {
    raw = await client.callTool({ name, arguments: args }, undefined, { timeout: 60000 });
  } catch (e) {
    assert.fail(`${name} ${JSON.stringify(args)}: the SDK threw instead of returning the tool error: ${e.message}`);
  }
  return raw;
}

/** The error as the agent reads it: isError, one text block "error[CODE]: sentence", _meta with the same. */
function agentError(raw, what) {
  assert.equal(raw.isError, true, `${what}: not isError: ${JSON.stringify(raw).slice(0, 500)}`);
  assert.equal(raw.structuredContent, undefined, `${what}: structuredContent on an error: ${JSON.stringify(raw.structuredContent)}`);
  const text = (raw.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
  const m = /^error\[([a-z_]+)\]: (.{10,})$/s.exec(text);
  assert.ok(m, `${what}: the text is not "error[CODE]: sentence": ${text}`);
  const meta = raw._meta?.['memgate/error'];
  assert.ok(meta, `${what}: no _meta["memgate/error"]: ${JSON.stringify(raw._meta)}`);
  assert.equal(meta.code, m[1], `${what}: _meta code`);
  assert.equal(meta.message, m[2], `${what}: _meta message`);
  return { code: m[1], sentence: m[2], meta };
}

for (const transport of ['stdio', 'http']) {
  describe(`over ${transport}`, () => {
    let client;
    let tools;
    before(async () => {
      const c = transport === 'stdio' ? await stdioClient(world) : await httpClient(serve);
      open.push(c);
      client = c.client;
      ({ tools } = await client.listTools({ _meta: { 'memgate/tools': 'all' } })); // every group; caches the output schemas the SDK checks results with
      assert.ok(tools.length >= 20, `only ${tools.length} tools`);
    });

    test('every tool: an unknown argument is invalid_argument with a sentence naming it', async () => {
      for (const t of tools) {
        const raw = await callRaw(client, t.name, { repo: A.name, no_such_argument_q9: 1 });
        const e = agentError(raw, t.name);
        assert.equal(e.code, 'invalid_argument', `${t.name}: ${e.sentence}`);
        assert.ok(e.sentence.includes('no_such_argument_q9') || e.sentence.includes("'repo'"), `${t.name}: ${e.sentence}`);
      }
    });

    test('every tool: an argument of the wrong type is invalid_argument', async () => {
      for (const t of tools) {
        const props = Object.keys(t.inputSchema?.properties || {});
        if (!props.length) continue;
        const bad = { repo: A.name };
        // an object where the schema wants a string, a string where it wants a number or a
        // boolean, a number where it wants an array or an object
        const p = props.find((k) => k !== 'repo') || props[0];
        const want = [t.inputSchema.properties[p]?.type].flat();
        if (want.includes('string')) bad[p] = { not: 'a string' };
        else if (want.includes('array') || want.includes('object')) bad[p] = 42;
        else bad[p] = 'not-what-you-want';
        const raw = await callRaw(client, t.name, bad);
        const e = agentError(raw, `${t.name}.${p}`);
        assert.ok(['invalid_argument', 'invalid_language', 'invalid_glob'].includes(e.code), `${t.name}.${p}: ${e.code}: ${e.sentence}`);
      }
    });

    test('search_code with no repo bound: repo_required, the sentence and the data list the ids', async () => {
      const e = agentError(await callRaw(client, 'search_code', { query: 'x' }), 'search_code');
      assert.equal(e.code, 'repo_required', e.sentence);
      for (const id of [A.name, B.name]) {
        assert.ok(e.sentence.includes(id), `${id} missing from: ${e.sentence}`);
        assert.ok(e.meta.repos?.includes(id), `${id} missing from _meta repos: ${JSON.stringify(e.meta)}`);
      }
    });

    test('read_file and outline of ../etc/passwd: path_outside_repo; of a file not indexed: file_not_found', async () => {
      for (const tool of ['read_file', 'outline']) {
        const e = agentError(await callRaw(client, tool, { repo: A.name, path: '../etc/passwd' }), tool);
        assert.equal(e.code, 'path_outside_repo', e.sentence);
        assert.ok(!e.sentence.includes('root:'), e.sentence);
        const nf = agentError(await callRaw(client, tool, { repo: A.name, path: 'no/such/file.c' }), tool);
        assert.equal(nf.code, 'file_not_found', nf.sentence);
      }
    });

    test('outline: a successful call validates against its outputSchema, bad cursors are invalid_argument', async () => {
      const raw = await callRaw(client, 'outline', { repo: A.name, path: 'src/util.py', limit: 1 });
      assert.ok(!raw.isError, JSON.stringify(raw).slice(0, 500));
      assert.equal(raw.structuredContent.symbols.length, 1);
      // outline's own cursor (the definitions served) with the MAC every cursor carries (issue 38, V11)
      assert.match(raw.structuredContent.next_cursor, /^1\.[0-9a-f]{32}$/);
      const made = agentError(await callRaw(client, 'outline', { repo: A.name, path: 'src/util.py', cursor: String(raw.structuredContent.total - 1) }), 'cursor');
      assert.equal(made.code, 'invalid_argument', made.sentence);
      let cursor = raw.structuredContent.next_cursor;
      let last;
      for (let i = 0; cursor && i < 20; i++) {
        last = await callRaw(client, 'outline', { repo: A.name, path: 'src/util.py', cursor });
        assert.ok(!last.isError, JSON.stringify(last).slice(0, 500));
        cursor = last.structuredContent.next_cursor;
      }
      assert.ok(last && last.structuredContent.next_cursor === null, JSON.stringify(last).slice(0, 500));
      const e = agentError(await callRaw(client, 'outline', { repo: A.name, path: 'src/util.py', cursor: 'abc' }), 'cursor');
      assert.equal(e.code, 'invalid_argument', e.sentence);
    });

    test('extract_knowledge without llm_url, from a client that did not declare sampling: llm_not_configured', async () => {
      // a session without episodes asks no model: remember one first
      const r = await callRaw(client, 'remember', { repo: A.name, session_id: 'errs-extract', summary: 'something to extract' });
      assert.ok(!r.isError, JSON.stringify(r).slice(0, 300));
      const e2 = agentError(await callRaw(client, 'extract_knowledge', { repo: A.name, session_id: 'errs-extract' }), 'extract');
      assert.equal(e2.code, 'llm_not_configured', e2.sentence);
      assert.match(e2.sentence, /llm_url/);
    });

    test('a bad regex: invalid_regex', async () => {
      const e = agentError(await callRaw(client, 'search_code', { repo: A.name, query: 'a(b', mode: 'regex' }), 'regex');
      assert.equal(e.code, 'invalid_regex', e.sentence);
    });

    test('an unknown repo: repo_not_found', async () => {
      const e = agentError(await callRaw(client, 'search_code', { repo: 'no-such-repo', query: 'x' }), 'unknown repo');
      assert.equal(e.code, 'repo_not_found', e.sentence);
      assert.ok(e.meta.repos?.includes(A.name), JSON.stringify(e.meta));
    });

    test('a repo setting with a bad value or name: invalid_argument saying what is allowed', async () => {
      let e = agentError(await callRaw(client, 'set_repo_settings', { repo: A.name, reindex_interval: 5 }), 'interval');
      assert.equal(e.code, 'invalid_argument', e.sentence);
      assert.match(e.sentence, /0 for none or 60 to/);
      e = agentError(await callRaw(client, 'set_repo_settings', { repo: A.name, watch: 'sometimes' }), 'watch');
      assert.match(e.sentence, /use on, off or default/);
      e = agentError(await callRaw(client, 'set_repo_settings', { repo: A.name }), 'nothing');
      assert.match(e.sentence, /give at least one setting/);
    });

    test('index_status and the settings tools validate against their outputSchemas', async () => {
      for (const [name, args] of [['index_status', { repo: A.name }], ['index_status', { all: true }],
        ['get_repo_settings', { repo: A.name }], ['set_repo_settings', { repo: A.name, pull_on_push: null }]]) {
        const raw = await callRaw(client, name, args);
        assert.ok(!raw.isError, `${name}: ${JSON.stringify(raw).slice(0, 500)}`);
      }
    });

    test('a successful call still validates against its outputSchema', async () => {
      const raw = await callRaw(client, 'search_code', { repo: A.name, query: A.canary });
      assert.ok(!raw.isError, JSON.stringify(raw).slice(0, 500));
      assert.ok(raw.structuredContent.results.length > 0);
    });
  });
}
