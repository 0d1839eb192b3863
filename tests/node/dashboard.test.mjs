// dashboard.test.mjs — the dashboard at / in a real browser: Debian's
// chromium driven by playwright-core, against `memgate serve` with a repo
// whose file contents, file names, root path and a note are hostile (HTML,
// script, javascript: links, bidi controls). It checks the page renders the
// repos, sessions, counters, audit tail and search hits as text, that no
// planted script runs, no data becomes a link, bidi characters show escaped,
// the Content-Security-Policy holds (no violation, no console error), and
// that with tokens the data needs an admin token while the page does not.
// Screenshots go to build/test-artifacts/dashboard*.png.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { chromium } from 'playwright-core';

import { makeWorld, MEMGATE_BIN, REPO_ROOT, shutdown, sleep, startServe, v1 } from './lib/harness.mjs';

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

// Files whose contents and names are payloads: each would set
// window.__pwned or open a dialog if the page ever took data as markup.
const HOSTILE = {
  'src/app.js': `// ${MARK} <script>window.__pwned = 1; alert(1)</script>\nfunction ${MARK}_app() { return '<a href="javascript:window.__pwned=4">x</a>'; }\n`,
  'src/<img src=x onerror=window.__pwned=2>.txt': `${MARK} image payload in the name\n`,
  'src/"><svg onload=window.__pwned=5>.md': `${MARK} quote-breaking name\n`,
  [`src/evil${RLO}gnp.js`]: `${MARK} bidi ${RLO}override${LRI} in content\n`,
  'docs/link.md': `[click](javascript:window.__pwned=6) ${MARK} <iframe src="javascript:alert(2)"></iframe>\n`,
};

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
  execFileSync(MEMGATE_BIN, ['index', root, '--name', 'hostile', '--quiet'], { env: world.env, cwd: world.cwd });
  repo = { root };
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'], timeout: 20000 });
});

after(async () => {
  await browser?.close();
  world?.cleanup();
});

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
      planted: document.querySelectorAll('main img, main svg, main iframe, main script').length,
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
  const serve = await startServe(world);
  try {
    // a note with bidi controls and markup in its key and value
    const note = await v1(serve, '/v1/notes', {
      method: 'POST',
      body: { repo: 'hostile', key: `evil${RLO}note<script>`, value: `${MARK} note <img src=x onerror=window.__pwned=3> javascript:alert(3) ${LRI}` },
    });
    assert.ok(note.status === 200 || note.status === 201, note.text);
    // a search from outside, so the counters and the audit tail have something
    assert.equal((await v1(serve, `/v1/search?q=${MARK}`)).status, 200);

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
    assert.match(counters, /prompt-injection flags\s+[1-9]/, counters); // the note and the search were flagged
    await page.waitForFunction(() => /set_note/.test(document.getElementById('audit').innerText));
    const audit = await page.locator('#audit').innerText();
    assert.ok(audit.includes('evil⟨U+202E⟩note<script>'), `the note's key shows escaped, as text: ${audit}`);
    assert.match(audit, /search_code/);

    // audit filters: an op, and refusals only
    await page.fill('#f-op', 'set_note');
    await page.click('#audit-form button');
    await page.waitForFunction(() => !/search_code/.test(document.getElementById('audit').innerText));
    assert.match(await page.locator('#audit').innerText(), /set_note/);
    await page.fill('#f-op', '');
    await page.selectOption('#f-outcome', 'error');
    await page.waitForFunction(() => /no event matches|error/.test(document.getElementById('audit').innerText) &&
      !/set_note/.test(document.getElementById('audit').innerText));
    await page.selectOption('#f-outcome', '');

    // the search box: hits, the hostile names among them, as text
    await page.fill('#q', MARK);
    await page.click('#search-form button');
    await page.waitForFunction(() => document.querySelectorAll('#results li').length >= 4);
    const results = await page.locator('#results').innerText();
    assert.ok(results.includes('src/<img src=x onerror=window.__pwned=2>.txt'), results);
    assert.ok(results.includes('src/"><svg onload=window.__pwned=5>.md'), results);
    assert.ok(results.includes('<script>window.__pwned = 1; alert(1)</script>'), results);
    assert.ok(results.includes('note evil⟨U+202E⟩note<script>') || results.includes('note evilnote<script>'), results);
    assert.match(results, /<img src=x onerror=window.__pwned=3>/);

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
  const serve = await startServe(world, ['--listen', '0.0.0.0:0']); // off loopback: tokens required
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
