// dashboard.test.mjs — the dashboard at / in a real browser: Debian's
// chromium driven by playwright-core, against `memgate serve` with a repo
// whose file contents, file names, root path and a note are hostile (HTML,
// script, javascript: links, bidi controls). It checks the page renders the
// repos, sessions, counters, audit tail and search hits as text, that no
// planted script runs, no data becomes a link, bidi characters show escaped,
// the Content-Security-Policy holds (no violation, no console error), and
// that with tokens the data needs an admin token while the page does not.
// With two repos the search form picks the repo indexed last (no
// repo_required), a 2026 client's roots exchange shows as a step, not an
// error, the counters include the indexes' own (secrets redacted at index
// time), and the charts are drawn from /v1/dashboard/history, tenant-scoped.
// Screenshots go to build/test-artifacts/dashboard*.png.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { chromium } from 'playwright-core';

import { makeWorld, MEMGATE_BIN, REPO_ROOT, shutdown, sleep, startServe, v1 } from './lib/harness.mjs';
import { MODERN } from './lib/sdk2.mjs';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = path.join(REPO_ROOT, 'build', 'test-artifacts');
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
const RLO = '\u202e'; // right-to-left override
const LRI = '\u2066'; // left-to-right isolate
// bidi controls and marks, as the page must never pass them through
const RAW_BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

let world;
let repo;
let browser;
const MARK = 'dashcanary';
// the server samples its history this often here (10 s by default)
const FAST_HISTORY = { MEMGATE_TEST_HISTORY_MS: '250' };
// a token-shaped secret the index redacts (not a real one: random letters)
const SECRET = `ghp_${'Zq7xWm2Kp9Lr4Tn8Vb3Hc6Jd1Fg5Ys0Qe7Ua'.slice(0, 36)}`;

// Files whose contents and names are payloads: each would set
// window.__pwned or open a dialog if the page ever took data as markup.
const HOSTILE = {
  'src/app.js': `// ${MARK} <script>window.__pwned = 1; alert(1)</script>\nfunction ${MARK}_app() { return '<a href="javascript:window.__pwned=4">x</a>'; }\n`,
  'src/<img src=x onerror=window.__pwned=2>.txt': `${MARK} image payload in the name\n`,
  'src/"><svg onload=window.__pwned=5>.md': `${MARK} quote-breaking name\n`,
  [`src/evil${RLO}gnp.js`]: `${MARK} bidi ${RLO}override${LRI} in content\n`,
  'docs/link.md': `[click](javascript:window.__pwned=6) ${MARK} <iframe src="javascript:alert(2)"></iframe>\n`,
  'src/settings.js': `// ${MARK} settings\nconst githubToken = "${SECRET}";\n`,
};

/** One 2026-07-28 tools/call to /mcp (no session), from a client that declares roots. */
async function modernCall(serve, name, args) {
  const res = await fetch(serve.mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': name },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args, _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': { roots: {} } } } }),
  });
  const text = await res.text();
  const line = text.startsWith('{') ? text : text.split('\n').find((l) => l.startsWith('data:'))?.slice(5);
  return JSON.parse(line);
}

function mg(args) {
  const r = spawnSync(MEMGATE_BIN, args, { env: world.env, cwd: world.cwd, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

before(async () => {
  if (!fs.existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: the dashboard test drives Debian's chromium; run 'make deps' (scripts/setup.sh installs it)`);
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  world = makeWorld('dash');
  // the root's own name carries a bidi override too
  const root = path.join(world.dir, `repo-${RLO}live`);
  for (const [rel, text] of Object.entries(HOSTILE)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  execFileSync('git', ['init', '-q', root]);
  // a second repo indexed first: the search form must pick 'hostile', added last
  const older = path.join(world.dir, 'older');
  fs.mkdirSync(older);
  fs.writeFileSync(path.join(older, 'old.py'), 'def older():\n    return 1\n');
  execFileSync(MEMGATE_BIN, ['index', older, '--name', 'older', '--quiet'], { env: world.env, cwd: world.cwd });
  await sleep(1100); // (index times are in seconds)
  execFileSync(MEMGATE_BIN, ['index', root, '--name', 'hostile', '--quiet'], { env: world.env, cwd: world.cwd });
  repo = { root };
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  world?.cleanup();
});

/** Chromium, started again once if it does not come up: on a loaded machine (the sanitizer
 * phase of CI runs two test files at once beside ASan builds) its start took over 20 s. */
async function launchBrowser() {
  for (let attempt = 1; ; attempt++) {
    try {
      return await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'], timeout: 60000 });
    } catch (e) {
      if (attempt >= 2) throw e;
      console.log(`# chromium did not start (${String(e).split('\n')[0]}); starting it again`);
    }
  }
}

/** A page that records console messages, page errors, dialogs and CSP violations. */
async function openPage(url) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  page.setDefaultTimeout(15000);
  const seen = { console: [], errors: [], dialogs: [], csp: [] };
  page.on('console', (m) => seen.console.push({ type: m.type(), text: m.text() }));
  page.on('pageerror', (e) => seen.errors.push(String(e)));
  page.on('dialog', (d) => {
    seen.dialogs.push(d.message());
    d.dismiss().catch(() => {});
  });
  // (evaluated by the browser before the page's own script, not subject to its CSP)
  await page.addInitScript(() => {
    window.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  const res = await page.goto(url);
  return { page, res, seen };
}

/** What no hostile string may have done to the page. */
async function assertUnharmed(page, seen) {
  const state = await page.evaluate(() => {
    const attrs = [];
    for (const e of document.querySelectorAll('*'))
      for (const a of e.attributes)
        if (/^on/i.test(a.name) || /javascript:/i.test(a.value) || (a.name === 'href' && !/^\/dash\.css$/.test(a.value)))
          attrs.push(`${e.tagName} ${a.name}=${a.value}`);
    return {
      pwned: window.__pwned,
      csp: window.__csp,
      attrs,
      links: document.querySelectorAll('a').length,
      // (the charts' own SVG has its classes; planted markup would have none, nor pass the checks above)
      planted: document.querySelectorAll('main img, main svg:not(.chart):not(.swatch), main iframe, main script').length,
      scripts: Array.from(document.scripts, (s) => s.getAttribute('src')),
      text: document.body.innerText,
    };
  });
  assert.equal(state.pwned, undefined, 'a planted script ran');
  assert.deepEqual(seen.dialogs, [], 'a planted script opened a dialog');
  assert.deepEqual(state.attrs, [], 'an event handler, a javascript: URL or a data link reached the DOM');
  assert.equal(state.links, 0, 'no data may become a link');
  assert.equal(state.planted, 0, 'planted markup became elements');
  assert.deepEqual(state.scripts, ['/dash.js']);
  assert.deepEqual(state.csp, [], 'the page violated its Content-Security-Policy');
  assert.deepEqual(seen.errors, [], 'the page threw');
  assert.doesNotMatch(state.text, RAW_BIDI, 'a raw bidi control reached the page');
  return state;
}

test('the dashboard on loopback renders hostile data as text, under its CSP', async () => {
  const serve = await startServe(world, [], FAST_HISTORY);
  try {
    // a note with bidi controls and markup in its key and value
    const note = await v1(serve, '/v1/notes', {
      method: 'POST',
      body: { repo: 'hostile', key: `evil${RLO}note<script>`, value: `${MARK} note <img src=x onerror=window.__pwned=3> javascript:alert(3) ${LRI}` },
    });
    assert.ok(note.status === 200 || note.status === 201, note.text);
    // a search from outside, so the counters and the audit tail have something
    assert.equal((await v1(serve, `/v1/search?q=${MARK}&repo=hostile`)).status, 200);
    // a 2026-07-28 client that declares roots, with two repos and none named: asked for its roots
    const asked = await modernCall(serve, 'search_code', { query: MARK });
    assert.equal(asked.result?.resultType, 'input_required', JSON.stringify(asked));

    const { page, res, seen } = await openPage(`${serve.url}/`);
    const h = res.headers();
    assert.equal(res.status(), 200);
    assert.equal(h['content-security-policy'], CSP);
    assert.equal(h['x-content-type-options'], 'nosniff');
    assert.equal(h['referrer-policy'], 'no-referrer');
    assert.match(h['content-type'], /^text\/html/);
    const js = await fetch(`${serve.url}/dash.js`);
    assert.equal(js.headers.get('content-security-policy'), CSP);
    assert.match(js.headers.get('content-type'), /^text\/javascript/);

    // repos, sessions, counters, audit tail
    await page.waitForSelector('#repos tr td.path');
    const repos = await page.locator('#repos').innerText();
    assert.match(repos, /hostile/);
    // (the gate strips the root's bidi override before the page sees it; either way none shows raw)
    assert.ok(repos.includes('repo-⟨U+202E⟩live') || repos.includes('repo-live'), repos);
    assert.match(repos, /fresh|changes pending/);
    const sessions = await page.locator('#sessions').innerText();
    assert.match(sessions, /local\s+\d+/);
    const counters = await page.locator('#counters').innerText();
    assert.match(counters, /isolation drops\s+0/);
    // the indexes' own count: the token in src/settings.js was redacted at index time
    assert.match(counters, /secrets redacted in the indexes\s+[1-9]/, counters);
    assert.match(counters, /secrets redacted in answers\s+\d/, counters);
    assert.match(counters, /prompt-injection flags\s+[1-9]/, counters); // the note and the search were flagged
    await page.waitForFunction(() => /set_note/.test(document.getElementById('audit').innerText));
    const audit = await page.locator('#audit').innerText();
    assert.ok(audit.includes('evil⟨U+202E⟩note<script>'), `the note's key shows escaped, as text: ${audit}`);
    assert.match(audit, /search_code/);
    // the roots exchange is a step of the call, not a red error row
    await page.waitForFunction(() => /asked the client for input/.test(document.getElementById('audit').innerText));
    const steps = await page.$$eval('#audit td', (tds) => tds.filter((td) => /input_required/.test(td.textContent)).map((td) => td.className));
    assert.ok(steps.length >= 1 && steps.every((c) => c === 'step'), JSON.stringify(steps));

    // audit filters: an op, and refusals only
    await page.fill('#f-op', 'set_note');
    await page.click('#audit-form button');
    await page.waitForFunction(() => !/search_code/.test(document.getElementById('audit').innerText));
    assert.match(await page.locator('#audit').innerText(), /set_note/);
    await page.fill('#f-op', '');
    await page.selectOption('#f-outcome', 'error');
    await page.waitForFunction(() => /no event matches|error/.test(document.getElementById('audit').innerText) &&
      !/set_note/.test(document.getElementById('audit').innerText));
    assert.doesNotMatch(await page.locator('#audit').innerText(), /input_required/, 'a roots exchange listed among the errors');
    await page.selectOption('#f-outcome', '');

    // the search box: two repos, and the default is the one indexed last (no repo_required)
    const picker = await page.$$eval('#search-repo option', (os) => os.map((o) => o.value));
    assert.deepEqual(picker.slice().sort(), ['hostile', 'older'], JSON.stringify(picker));
    assert.equal(await page.inputValue('#search-repo'), 'hostile');
    await page.fill('#q', MARK);
    await page.click('#search-form button');
    await page.waitForFunction(() => document.querySelectorAll('#results li').length >= 4);
    const results = await page.locator('#results').innerText();
    assert.ok(results.includes('src/<img src=x onerror=window.__pwned=2>.txt'), results);
    assert.ok(results.includes('src/"><svg onload=window.__pwned=5>.md'), results);
    assert.ok(results.includes('<script>window.__pwned = 1; alert(1)</script>'), results);
    assert.ok(results.includes('note evil⟨U+202E⟩note<script>') || results.includes('note evilnote<script>'), results);
    assert.match(results, /<img src=x onerror=window.__pwned=3>/);

    assert.doesNotMatch(await page.locator('#search-status').innerText(), /failed|repo_required/);
    // the other repo, chosen by hand, stays chosen across the overview's polls
    await page.selectOption('#search-repo', 'older');
    await page.fill('#q', 'older');
    await page.click('#search-form button');
    await page.waitForFunction(() => /older\.py|old\.py/.test(document.getElementById('results').innerText));
    await sleep(2500);
    assert.equal(await page.inputValue('#search-repo'), 'older');

    // the charts: calls and latency per tool, index size per repo, drawn as SVG from the server's history
    await page.waitForFunction(() => document.querySelectorAll('#chart-calls svg.chart polyline, #chart-calls svg.chart circle').length > 0 &&
      /search_code/.test(document.getElementById('chart-calls').innerText), null, { timeout: 20000 });
    assert.match(await page.locator('#chart-latency').innerText(), /search_code/);
    assert.ok(await page.locator('#chart-latency svg.chart').count() === 1);
    const growth = await page.locator('#chart-repos').innerText();
    assert.match(growth, /hostile/);
    assert.match(growth, /older/);
    assert.ok(await page.locator('#chart-repos svg.chart polyline').count() >= 2);

    await sleep(2500); // one more poll of the overview, under the same eyes
    await page.screenshot({ path: path.join(ARTIFACTS, 'dashboard.png'), fullPage: true });
    await assertUnharmed(page, seen);
    const own = seen.console.filter((m) => m.type === 'error' || m.type === 'warning');
    assert.deepEqual(own, [], 'the page logged errors');
    await page.close();
  } finally {
    await shutdown([], serve);
  }
});

test('/v1/dashboard reports an index run while it runs', async () => {
  // enough files that the run reports progress (every 0.2 s) before it ends
  const big = path.join(world.dir, 'big');
  for (let d = 0; d < 40; d++) {
    fs.mkdirSync(path.join(big, `d${d}`), { recursive: true });
    for (let f = 0; f < 100; f++)
      fs.writeFileSync(path.join(big, `d${d}`, `f${f}.py`), `def f_${d}_${f}(x):\n    return x + ${f}  # ${'word '.repeat(60)}\n`);
  }
  const serve = await startServe(world, [], { MEMGATE_INDEX_ROOTS: `local:${world.dir}` });
  try {
    const run = v1(serve, '/v1/index', { method: 'POST', body: { path: big, name: 'big' } });
    let seen = null;
    let done = false;
    run.then(() => (done = true), () => (done = true));
    while (!done) {
      const d = await v1(serve, '/v1/dashboard');
      assert.equal(d.status, 200, d.text);
      const r = d.json.indexing.find((x) => x.repo === 'big');
      if (r && r.phase === 'index' && r.total > 0) seen = r;
      await sleep(30);
    }
    const res = await run;
    assert.equal(res.status, 200, res.text);
    assert.ok(seen, 'no progress of the run was seen in /v1/dashboard while it ran');
    assert.equal(seen.tenant, 'local');
    assert.ok(seen.done <= seen.total && seen.total === 4000, JSON.stringify(seen));
    const after = await v1(serve, '/v1/dashboard');
    assert.deepEqual(after.json.indexing, [], 'the run is gone from the table once it ended');
    assert.ok(after.json.repos.some((r) => r.id === 'big' && r.files === 4000), after.text);
  } finally {
    await shutdown([], serve);
  }
});

test('with tokens the page is served without one, its data only with an admin token', async () => {
  const admin = JSON.parse(mg(['token', 'create', '--tenant', 'local', '--scope', 'admin', '--json'])).token;
  const read = JSON.parse(mg(['token', 'create', '--tenant', 'local', '--json'])).token;
  const stranger = JSON.parse(mg(['token', 'create', '--tenant', 'elsewhere', '--scope', 'admin', '--json'])).token;
  const serve = await startServe(world, ['--listen', '0.0.0.0:0'], FAST_HISTORY); // off loopback: tokens required
  try {
    const page0 = await fetch(`${serve.url}/`);
    assert.equal(page0.status, 200);
    assert.equal(page0.headers.get('content-security-policy'), CSP);
    const none = await v1(serve, '/v1/dashboard');
    assert.equal(none.status, 401, none.text);
    assert.equal(none.json.error.code, 'unauthorized');
    const ro = await v1(serve, '/v1/dashboard', { token: read });
    assert.equal(ro.status, 403, ro.text);
    assert.equal(ro.json.error.code, 'scope_forbidden');
    assert.equal((await v1(serve, '/v1/audit', { token: read })).status, 403);
    const ok = await v1(serve, '/v1/dashboard', { token: admin });
    assert.equal(ok.status, 200, ok.text);
    assert.ok(ok.json.repos.some((r) => r.id === 'hostile'), ok.text);
    assert.equal((await v1(serve, '/v1/dashboard?x=1', { token: admin })).status, 400);

    // the history: admin only, and each tenant sees its own calls and repos
    assert.equal((await v1(serve, '/v1/dashboard/history')).status, 401);
    assert.equal((await v1(serve, '/v1/dashboard/history', { token: read })).status, 403);
    assert.equal((await v1(serve, '/v1/dashboard/history?x=1', { token: admin })).status, 400);
    assert.equal((await v1(serve, '/v1/search?q=older&repo=older', { token: read })).status, 200);
    await sleep(800); // a few samples
    const mine = await v1(serve, '/v1/dashboard/history', { token: admin });
    assert.equal(mine.status, 200, mine.text);
    const last = mine.json.samples.at(-1);
    assert.ok(last && last.counters.search_code && last.counters.search_code[0] >= 1, mine.text.slice(-800));
    assert.ok(last.gauges.hostile && last.gauges.older, JSON.stringify(last));
    assert.ok(mine.json.interval_ms === 250 && mine.json.capacity >= 360, mine.text.slice(0, 200));
    const theirs = await v1(serve, '/v1/dashboard/history', { token: stranger });
    assert.equal(theirs.status, 200, theirs.text);
    assert.ok(theirs.json.samples.length >= 1);
    for (const smp of theirs.json.samples) {
      assert.deepEqual(smp.counters, {}, 'another tenant\'s calls reached this tenant');
      assert.deepEqual(smp.gauges, {}, 'another tenant\'s repos reached this tenant');
    }

    // the browser: asked for a token; a read token is refused; the admin token shows the data
    const { page, seen } = await openPage(`${serve.url}/`);
    await page.waitForSelector('#token-form:not(.hidden)');
    assert.match(await page.locator('#status').innerText(), /admin token/);
    assert.equal(await page.locator('#repos tr').count(), 0);
    await page.fill('#token', read);
    await page.click('#token-form button');
    await page.waitForFunction(() => /not an admin token/.test(document.getElementById('status').innerText));
    await page.fill('#token', admin);
    await page.click('#token-form button');
    await page.waitForSelector('#repos tr td.path');
    assert.match(await page.locator('#repos').innerText(), /hostile/);
    await page.waitForSelector('#token-form.hidden', { state: 'attached' });
    assert.equal(await page.evaluate(() => sessionStorage.getItem('memgate.token')), admin);
    await page.waitForFunction(() => /audit_read|search_code|set_note/.test(document.getElementById('audit').innerText));
    await page.screenshot({ path: path.join(ARTIFACTS, 'dashboard-token.png'), fullPage: true });
    await assertUnharmed(page, seen);
    // the refused calls before the token are the only errors the page logged
    const own = seen.console.filter((m) => (m.type === 'error' || m.type === 'warning') && !/status of 40[13]/.test(m.text));
    assert.deepEqual(own, [], 'the page logged errors');
    await page.close();
  } finally {
    await shutdown([], serve);
  }
});
