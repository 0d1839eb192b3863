// conformance.test.mjs — the MCP conformance suite
// (@modelcontextprotocol/conformance, pinned in package-lock.json) against
// `memgate-conformance serve` (memgate with the suite's fixtures, tests/conformance/): one node:test test per server
// scenario, so the TAP counts say which scenario passed.
//
// Every scenario of the pinned suite runs, the "pending" ones included
// (json-schema-2020-12, server-sse-polling). A scenario passes when the
// conformance CLI exits 0 with conformance-expected-failures.yml as its
// baseline — which counts a WARNING check as a failure, so "passes" means
// every check is SUCCESS or INFO. The baseline lists only scenarios that
// cannot apply to memgate, each with its reason.
//
// Run alone: node --test tests/node/conformance.test.mjs (MEMGATE_BIN=...).
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { listedServerScenarios, runCli, scenarioTests } from './lib/conformance.mjs';
import { CONFORMANCE_BIN, NODE_DIR, makeWorld, shutdown, startServe } from './lib/harness.mjs';

const CLI = path.join(NODE_DIR, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const BASELINE = path.join(NODE_DIR, 'conformance-expected-failures.yml');

// The server scenarios of conformance@0.1.16 (`conformance list`).
const SCENARIOS = [
  'server-initialize',
  'logging-set-level',
  'ping',
  'completion-complete',
  'tools-list',
  'tools-call-simple-text',
  'tools-call-image',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-mixed-content',
  'tools-call-with-logging',
  'tools-call-error',
  'tools-call-with-progress',
  'tools-call-sampling',
  'tools-call-elicitation',
  'json-schema-2020-12',
  'elicitation-sep1034-defaults',
  'server-sse-polling',
  'server-sse-multiple-streams',
  'elicitation-sep1330-enums',
  'resources-list',
  'resources-read-text',
  'resources-read-binary',
  'resources-templates-read',
  'resources-subscribe',
  'resources-unsubscribe',
  'prompts-list',
  'prompts-get-simple',
  'prompts-get-with-args',
  'prompts-get-embedded-resource',
  'prompts-get-with-image',
  'dns-rebinding-protection',
];

const run = (args, timeout) => runCli(CLI, args, timeout);

let world;
let serve;
let outDir;
const open = []; // no clients of our own; shutdown() checks serve

before(async () => {
  world = makeWorld('conformance');
  outDir = path.join(world.dir, 'results');
  serve = await startServe(world, [], {}, CONFORMANCE_BIN);
});

after(async () => {
  if (serve) await serve.stop();
  world?.cleanup();
});

test('the pinned suite has exactly the server scenarios listed here', async () => {
  const { code, stdout, stderr } = await run(['list'], 30000);
  assert.equal(code, 0, stderr);
  assert.deepEqual([...listedServerScenarios(stdout)].sort(), [...SCENARIOS].sort());
});

scenarioTests({ cli: CLI, baseline: BASELINE, scenarios: SCENARIOS, spec: undefined, label: 'conformance', url: () => serve.mcpUrl, outDir: () => outDir });

test('serve is still healthy after the whole suite', async () => {
  const res = await fetch(`${serve.url}/healthz`);
  assert.equal(res.status, 200);
  assert.equal(serve.child.exitCode, null, serve.stderr());
});

test('every memgate process exits cleanly (status 0, no sanitizer report)', async () => {
  const clients = open.splice(0);
  const s = serve;
  serve = null;
  await shutdown(clients, s);
});
