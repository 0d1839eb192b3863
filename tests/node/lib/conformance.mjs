// conformance.mjs — what both conformance suites (conformance.test.mjs for
// the 2025 versions, conformance2026.test.mjs for 2026-07-28) share: running
// the conformance CLI, reading its scenario lists, and one node:test test per
// scenario against `memgate-conformance serve` (tests/conformance/).
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { NODE22, NODE_DIR } from './harness.mjs';

// Run the CLI at cli (a dist/index.js) under Node 22.
export function runCli(cli, args, timeout = 120000) {
  return new Promise((resolve) => {
    execFile(NODE22, [cli, ...args], { cwd: NODE_DIR, timeout, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr, err });
    });
  });
}

// The server scenarios a `conformance list` output names (before the client section).
export function listedServerScenarios(stdout) {
  const section = stdout.split(/Client scenarios/)[0];
  return [...section.matchAll(/^\s*-\s+(\S+)/gm)].map((m) => m[1]);
}

// One test per scenario: it passes when the CLI exits 0 with the baseline
// (a WARNING check counts as a failure) and at least one check succeeded.
// o: {cli, baseline, scenarios, spec (or undefined), label, url(), outDir()}.
export function scenarioTests(o) {
  for (const scenario of o.scenarios) {
    test(`${o.label}: ${scenario}`, async (t) => {
      const outDir = o.outDir();
      const { code, stdout, stderr } = await runCli(o.cli, [
        'server', '--url', o.url(), '--scenario', scenario,
        ...(o.spec ? ['--spec-version', o.spec] : []),
        '--expected-failures', o.baseline, '-o', outDir,
      ]);
      // The checks the run saved, for a readable failure.
      let checks = [];
      const prefix = `server-${scenario}-`;
      const dir = fs.existsSync(outDir)
        ? fs.readdirSync(outDir).filter((d) => d.startsWith(prefix) && /^\d{4}-/.test(d.slice(prefix.length))).sort().pop()
        : undefined;
      if (dir && fs.existsSync(path.join(outDir, dir, 'checks.json')))
        checks = JSON.parse(fs.readFileSync(path.join(outDir, dir, 'checks.json'), 'utf8'));
      const bad = checks
        .filter((c) => c.status === 'FAILURE' || c.status === 'WARNING')
        .map((c) => `${c.status} ${c.id}: ${c.errorMessage ?? ''} ${c.details ? JSON.stringify(c.details).slice(0, 600) : ''}`);
      if (bad.length) t.diagnostic(bad.join('\n'));
      assert.ok(
        checks.some((c) => c.status === 'SUCCESS'),
        `conformance ${scenario}: no SUCCESS check (ran at all?)\n${stdout.slice(-3000)}\n${stderr.slice(-2000)}`,
      );
      assert.equal(
        code,
        0,
        `conformance ${scenario} exited ${code}\n${bad.join('\n')}\n--- stdout tail ---\n${stdout.slice(-3000)}\n${stderr.slice(-2000)}`,
      );
    });
  }
}
