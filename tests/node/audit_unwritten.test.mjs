// audit_unwritten.test.mjs — a call whose audit event cannot be written is
// not answered as if audited (docs/security.md, "When an event cannot be
// written"): the server's audit.log replaced by a directory, so the next
// append fails, a tool call over HTTP and over MCP answers the audit's error
// instead of its result; once the log can be written again, calls are
// answered again.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { call, httpClient, makeWorld, shutdown, startServe } from './lib/harness.mjs';

let world;

before(() => {
  world = makeWorld('auditunwritten');
});

after(() => world.cleanup());

test('an event that cannot be written withholds the answer', async () => {
  const serve = await startServe(world);
  const c = await httpClient(serve);
  try {
    let r = await fetch(`${serve.url}/v1/repos`);
    assert.equal(r.status, 200, await r.text());
    // the log becomes a directory: the writer finds it replaced, and cannot open it
    const log = path.join(world.home, 'audit', 'audit.log');
    fs.renameSync(log, `${log}.away`);
    fs.mkdirSync(log);
    r = await fetch(`${serve.url}/v1/repos`);
    const body = await r.text();
    assert.ok(r.status >= 500, `${r.status} ${body}`);
    assert.match(body, /withheld/);
    assert.doesNotMatch(body, /"repos"/);
    const mcp = await call(c.client, 'list_repos', {});
    assert.equal(mcp.ok, false, JSON.stringify(mcp));
    assert.match(JSON.stringify(mcp), /audit event could not be written/);
    assert.match(serve.stderr(), /audit event 'list_repos' not written/);
    // writable again: answered again
    fs.rmdirSync(log);
    r = await fetch(`${serve.url}/v1/repos`);
    assert.equal(r.status, 200, await r.text());
  } finally {
    await shutdown([c], serve);
  }
});
