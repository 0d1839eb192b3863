// dash.js — memgate's dashboard (docs/http.md "Dashboard"). Served by
// memgate itself with a strict Content-Security-Policy: no inline code, no
// other origin. Everything it shows comes from the index, the audit log and
// the clients, so every string is hostile: the DOM is built with
// createElement and textContent only (never innerHTML), control and bidi
// characters are shown as visible escapes (⟨U+202E⟩), and no data becomes a
// link, a URL or an attribute an event could hide in.
//
// Sections:
//   1. helpers: escaping, elements, the API
//   2. the overview: repos and the search form's repo picker, runs, sessions, counters
//   3. the audit tail
//   4. search
//   5. charts: calls, latency and index size over time (/v1/dashboard/history)
//   6. start
'use strict';

(function () {
  const TOKEN_KEY = 'memgate.token';
  const POLL_MS = 2000;       // the overview: repos, indexing, sessions, counters
  const AUDIT_POLL_MS = 10000; // the audit tail (each read is an audit event itself)
  const HISTORY_POLL_MS = 10000; // the charts (at most as often as the server samples)
  // Audit codes that are a normal step of a call, not a failure: a
  // 2026-07-28 client is asked for its roots (or a completion) and calls again.
  const STEPS = new Map([['input_required', 'asked the client for input']]);

  // A session id of this tab for the /v1 calls that run in one (audit,
  // search), so polling does not open a new API session each time.
  // (A new one with each token: a session belongs to one tenant.)
  function newSid() {
    const b = new Uint8Array(16);
    crypto.getRandomValues(b);
    return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  }
  let sid = newSid();

  const $ = (id) => document.getElementById(id);

  // Control characters (but tab and newline), C1 controls, bidi embeddings,
  // overrides, isolates and marks, zero-width characters and the BOM: shown
  // as ⟨U+XXXX⟩ rather than passed to the page, where they would reorder or
  // hide what is around them.
  const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u115f\u1160\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2069\u206a-\u206f\ufeff\ufff9-\ufffb]/g;

  function visible(s) {
    if (s === null || s === undefined) return '';
    return String(s).replace(HIDDEN, (c) => `⟨U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}⟩`);
  }

  // An element with text (escaped as above) and an optional class.
  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = visible(text);
    if (cls) e.className = cls;
    return e;
  }

  function cell(tr, text, cls) {
    tr.appendChild(el('td', text, cls));
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }

  function num(n) {
    return n === null || n === undefined ? '–' : Number(n).toLocaleString('en');
  }

  function bytes(n) {
    if (n === null || n === undefined) return '–';
    const u = ['B', 'KB', 'MB', 'GB', 'TB'];
    let v = Number(n);
    let i = 0;
    while (v >= 1000 && i < u.length - 1) {
      v /= 1000;
      i++;
    }
    return `${i ? v.toFixed(1) : v} ${u[i]}`;
  }

  // "3 min ago" from unix seconds, against the server's clock.
  function ago(sec, nowMs) {
    if (!sec) return 'never';
    const s = Math.max(0, Math.round(nowMs / 1000 - sec));
    if (s < 60) return `${s} s ago`;
    if (s < 3600) return `${Math.round(s / 60)} min ago`;
    if (s < 86400) return `${Math.round(s / 3600)} h ago`;
    return `${Math.round(s / 86400)} d ago`;
  }

  function token() {
    try {
      return sessionStorage.getItem(TOKEN_KEY) || '';
    } catch {
      return '';
    }
  }

  function status(text, bad) {
    const s = $('status');
    s.textContent = visible(text);
    s.className = bad ? 'bad' : 'muted';
  }

  // The token form shows when the server wants a token we do not have (or
  // the one we have is refused).
  function askToken(why) {
    $('token-form').classList.remove('hidden');
    status(why, true);
  }

  class HttpError extends Error {
    constructor(status, code, message) {
      super(message);
      this.status = status;
      this.code = code;
    }
  }

  async function api(path, { session = false } = {}) {
    const headers = { accept: 'application/json' };
    const t = token();
    if (t) headers.authorization = `Bearer ${t}`;
    if (session) headers['x-session-id'] = sid;
    const res = await fetch(path, { headers, cache: 'no-store', credentials: 'omit', referrerPolicy: 'no-referrer' });
    let body = null;
    try {
      body = await res.json();
    } catch {
      body = null;
    }
    if (!res.ok) {
      const e = body && body.error ? body.error : {};
      const err = new HttpError(res.status, e.code || String(res.status), e.message || res.statusText);
      if (res.status === 401 || (res.status === 403 && e.code === 'scope_forbidden')) {
        askToken(res.status === 401
          ? `this server needs an admin token (${err.code})`
          : 'this token is not an admin token: the dashboard needs one');
      }
      throw err;
    }
    return body;
  }

  // ---- the overview ----------------------------------------------------------------

  function renderRepos(d) {
    const tb = $('repos');
    clear(tb);
    if (!d.repos.length) {
      const tr = el('tr');
      const td = el('td', 'no repo indexed yet (memgate index PATH)', 'muted');
      td.colSpan = 8;
      tr.appendChild(td);
      tb.appendChild(tr);
    }
    const select = $('search-repo');
    const chosen = select.value;
    clear(select);
    for (const r of d.repos) {
      const tr = el('tr');
      cell(tr, r.id, 'path');
      cell(tr, r.root, 'path');
      cell(tr, num(r.files), 'num');
      cell(tr, num(r.chunks), 'num');
      cell(tr, bytes(r.bytes), 'num');
      cell(tr, ago(lastIndexed(r), d.now_ms));
      cell(tr, r.watch || '–');
      if (r.last_error) cell(tr, `error: ${r.last_error}`, 'bad');
      else if (r.index_busy) cell(tr, 'indexing', 'ok');
      else if (r.pending_changes) cell(tr, `${num(r.pending_changes)} changes pending`);
      else cell(tr, 'fresh', 'ok');
      tb.appendChild(tr);
      const o = el('option', r.id);
      o.value = r.id; // a property of a form control, never markup
      select.appendChild(o);
    }
    // the user's pick while it exists, else the repo added last: a search
    // always names its repo, so several repos never make it repo_required
    select.value = picked && d.repos.some((r) => r.id === chosen) ? chosen : newest(d.repos);
    if (select.selectedIndex < 0) select.selectedIndex = 0;
  }

  let picked = false; // the user chose a repo in the search form

  function lastIndexed(r) {
    return Math.max(r.full_index_at || 0, r.incr_index_at || 0, r.indexed_at || 0);
  }

  // The id of the repo first indexed last (a server's catch-up runs at start
  // re-index them all, so not the last run; on a tie the one indexed last,
  // then the first of the list), '' for none.
  function newest(repos) {
    const key = (r) => [r.created_at || 0, lastIndexed(r)];
    let best = null;
    for (const r of repos) {
      const [c, l] = key(r);
      if (!best || c > key(best)[0] || (c === key(best)[0] && l > key(best)[1])) best = r;
    }
    return best ? best.id : '';
  }

  function renderIndexing(d) {
    const ul = $('indexing');
    clear(ul);
    if (!d.indexing.length) {
      ul.appendChild(el('li', 'no index run under way in this server', 'muted'));
      return;
    }
    for (const run of d.indexing) {
      const li = el('li');
      li.appendChild(el('span', `${run.repo} (${run.tenant}) ${run.phase}: `, 'path'));
      const p = document.createElement('progress');
      p.max = Math.max(1, Number(run.total) || 1);
      p.value = Math.min(p.max, Number(run.done) || 0);
      li.appendChild(p);
      let text = ` ${num(run.done)}/${num(run.total)} files`;
      if (run.total_bytes) text += `, ${bytes(run.bytes)} of ${bytes(run.total_bytes)}`;
      text += `, ${Number(run.seconds).toFixed(1)} s`;
      li.appendChild(el('span', text));
      ul.appendChild(li);
    }
  }

  function renderSessions(d) {
    const tb = $('sessions');
    clear(tb);
    if (!d.sessions.tenants.length) {
      const tr = el('tr');
      const td = el('td', 'no live session', 'muted');
      td.colSpan = 5;
      tr.appendChild(td);
      tb.appendChild(tr);
    }
    for (const t of d.sessions.tenants) {
      const tr = el('tr');
      cell(tr, t.tenant);
      cell(tr, num(t.sessions), 'num');
      cell(tr, num(t.mcp), 'num');
      cell(tr, num(t.api), 'num');
      cell(tr, num(t.instances), 'num');
      tb.appendChild(tr);
    }
    const dl = $('counters');
    clear(dl);
    const c = d.counters;
    const ix = d.repos.reduce((a, r) => ({
      secrets: a.secrets + (Number(r.secrets_redacted) || 0),
      failing: a.failing + (r.last_error ? 1 : 0),
      pending: a.pending + (Number(r.pending_changes) || 0),
    }), { secrets: 0, failing: 0, pending: 0 });
    const rows = [
      ['isolation drops', c.isolation_drops, c.isolation_drops > 0],
      // the indexes' own counts (kept in each repo's index), then this process's
      ['secrets redacted in the indexes', ix.secrets, false],
      ['repos whose last index run failed', ix.failing, ix.failing > 0],
      ['changes waiting to be indexed', ix.pending, false],
      ['secrets redacted in answers', c.redactions, false],
      ['prompt-injection flags', c.injection_flags, false],
      ['sessions created', c.sessions_created, false],
      ['sessions expired', c.sessions_pruned, false],
    ];
    for (const [name, v, bad] of rows) {
      dl.appendChild(el('dt', name));
      dl.appendChild(el('dd', num(v), bad ? 'bad' : undefined));
    }
  }

  let overviewTimer = null;
  async function refreshOverview() {
    clearTimeout(overviewTimer);
    try {
      const d = await api('/v1/dashboard');
      $('version').textContent = visible(`v${d.version} · tenant ${d.tenant}`);
      renderRepos(d);
      renderIndexing(d);
      renderSessions(d);
      $('token-form').classList.add('hidden');
      if (token()) $('forget').classList.remove('hidden');
      status(`updated ${new Date(d.now_ms).toLocaleTimeString('en-GB')}`);
    } catch (e) {
      if (!(e instanceof HttpError && (e.status === 401 || e.status === 403))) status(`cannot read the overview: ${e.message}`, true);
    }
    overviewTimer = setTimeout(tick, document.hidden ? POLL_MS * 5 : POLL_MS);
  }

  function tick() {
    refreshOverview();
  }

  // ---- the audit tail ------------------------------------------------------------

  let auditTimer = null;
  async function refreshAudit() {
    clearTimeout(auditTimer);
    const q = new URLSearchParams();
    const tenant = $('f-tenant').value.trim();
    const op = $('f-op').value.trim();
    const outcome = $('f-outcome').value;
    let limit = parseInt($('f-limit').value, 10);
    if (!(limit >= 1 && limit <= 1000)) limit = 50;
    if (tenant) q.set('tenant', tenant);
    if (op) q.set('op', op);
    // outcome is filtered here: read more so a rare refusal is not crowded out
    q.set('limit', String(outcome ? Math.min(10000, limit * 10) : limit));
    const tb = $('audit');
    try {
      const d = await api(`/v1/audit?${q}`, { session: true });
      // (this tab's own reads of the log, one per poll, are left out)
      let events = (d.events || []).filter((e) => !(e.op === 'audit_read' && e.session === sid));
      if (outcome === 'ok') events = events.filter((e) => e.status === 'ok' || STEPS.get(e.code));
      else if (outcome === 'error') events = events.filter((e) => e.status !== 'ok' && !STEPS.get(e.code));
      events = events.slice(-limit).reverse(); // newest first
      clear(tb);
      if (!events.length) {
        const tr = el('tr');
        const td = el('td', 'no event matches', 'muted');
        td.colSpan = 7;
        tr.appendChild(td);
        tb.appendChild(tr);
      }
      for (const e of events) {
        const tr = el('tr');
        cell(tr, (e.time || '').replace('T', ' ').replace('Z', ''));
        cell(tr, e.tenant || '–');
        cell(tr, e.op);
        const step = STEPS.get(e.code);
        const failed = e.status && e.status !== 'ok' && !step;
        if (step) cell(tr, `${step} (${e.code})`, 'step');
        else cell(tr, failed ? `${e.status}${e.code ? ` ${e.code}` : ''}` : e.status || '', failed ? 'bad' : 'ok');
        cell(tr, e.repo || '', 'path');
        cell(tr, e.query || e.what || '', 'path');
        const flags = Array.isArray(e.flags) ? e.flags.slice() : [];
        if (e.redactions) flags.push(`${e.redactions} redacted`);
        if (e.count) flags.push(`×${e.count}`);
        cell(tr, flags.join(' '));
        tb.appendChild(tr);
      }
    } catch (e) {
      clear(tb);
      const tr = el('tr');
      const td = el('td', `cannot read the audit log: ${e.code || ''} ${e.message}`, 'bad');
      td.colSpan = 7;
      tr.appendChild(td);
      tb.appendChild(tr);
    }
    auditTimer = setTimeout(refreshAudit, AUDIT_POLL_MS);
  }

  // ---- search ----------------------------------------------------------------------

  function hit(r) {
    const li = el('li');
    const head = el('div');
    head.appendChild(el('span', `${r.repo}: ${r.path}:${r.line || r.start_line || ''}`, 'path'));
    if (r.symbol) head.appendChild(el('span', `  ${r.kind || ''} ${r.symbol}`, 'muted'));
    if (Array.isArray(r.flags) && r.flags.length) head.appendChild(el('span', `  [${r.flags.join(', ')}]`, 'bad'));
    li.appendChild(head);
    li.appendChild(el('pre', r.snippet || ''));
    return li;
  }

  function noteHit(n) {
    const li = el('li');
    const head = el('div');
    head.appendChild(el('span', `note ${n.key}`, 'path'));
    if (n.repo) head.appendChild(el('span', `  (${n.repo})`, 'muted'));
    if (Array.isArray(n.flags) && n.flags.length) head.appendChild(el('span', `  [${n.flags.join(', ')}]`, 'bad'));
    li.appendChild(head);
    li.appendChild(el('pre', n.value || ''));
    return li;
  }

  async function search(ev) {
    ev.preventDefault();
    const query = $('q').value;
    const ol = $('results');
    clear(ol);
    if (!query.trim()) {
      $('search-status').textContent = '';
      return;
    }
    const q = new URLSearchParams({ q: query, limit: '20' });
    const repo = $('search-repo').value;
    if (repo) q.set('repo', repo);
    $('search-status').textContent = 'searching…';
    const [code, notes] = await Promise.allSettled([
      api(`/v1/search?${q}`, { session: true }),
      api(`/v1/notes?${q}`, { session: true }),
    ]);
    const parts = [];
    if (code.status === 'fulfilled') {
      const rs = code.value.results || [];
      for (const r of rs) ol.appendChild(hit(r));
      parts.push(`${rs.length} code hit${rs.length === 1 ? '' : 's'} (${code.value.mode || 'search'}, ${code.value.took_ms} ms)`);
    } else {
      parts.push(`code search failed: ${code.reason.code || ''} ${code.reason.message}`);
    }
    if (notes.status === 'fulfilled') {
      const ns = notes.value.notes || [];
      for (const n of ns) ol.appendChild(noteHit(n));
      parts.push(`${ns.length} note${ns.length === 1 ? '' : 's'}`);
    }
    $('search-status').textContent = visible(parts.join('; '));
  }

  // ---- charts ----------------------------------------------------------------------
  // From /v1/dashboard/history: the server samples the tool calls (by tool:
  // calls, errors, seconds, counted since it started) and each repo's index
  // size every few seconds into a ring; the page draws the differences
  // between samples as lines, in SVG built element by element.

  const SVG = 'http://www.w3.org/2000/svg';
  const COLORS = ['#2f5bd3', '#d9822b', '#1e7b34', '#b3261e', '#7a3fb8', '#0f8b8d', '#6b7385'];
  const TOP = 6; // lines per chart; the rest of the tools are summed as "other"
  const W = 560;
  const H = 150;
  const PAD = { l: 48, r: 8, t: 8, b: 20 };

  function svgEl(tag, attrs) {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
    return e;
  }

  function short(v) {
    if (v >= 1e6) return `${(v / 1e6).toFixed(1)}M`;
    if (v >= 1e4) return `${Math.round(v / 1e3)}k`;
    if (v >= 100) return String(Math.round(v));
    return String(Math.round(v * 10) / 10);
  }

  // One chart: series is [{name, points: [[t, v|null], ...]}], drawn into the
  // element of id, with a legend of names (as text) below it.
  function drawChart(id, series) {
    const box = $(id);
    clear(box);
    const pts = series.flatMap((s) => s.points.filter((p) => p[1] !== null));
    if (!pts.length) {
      box.appendChild(el('p', 'no data yet: the server samples every few seconds', 'muted'));
      return;
    }
    const t0 = Math.min(...pts.map((p) => p[0]));
    const t1 = Math.max(t0 + 1, ...pts.map((p) => p[0]));
    const vmax = Math.max(1e-9, ...pts.map((p) => p[1])) * 1.1;
    const x = (t) => PAD.l + ((t - t0) / (t1 - t0)) * (W - PAD.l - PAD.r);
    const y = (v) => H - PAD.b - (v / vmax) * (H - PAD.t - PAD.b);
    const svg = svgEl('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', class: 'chart' });
    svg.appendChild(svgEl('line', { x1: PAD.l, y1: H - PAD.b, x2: W - PAD.r, y2: H - PAD.b, stroke: '#dde1e8' }));
    svg.appendChild(svgEl('line', { x1: PAD.l, y1: PAD.t, x2: PAD.l, y2: H - PAD.b, stroke: '#dde1e8' }));
    const label = (text, attrs) => {
      const t = svgEl('text', { 'font-size': 10, fill: '#6b7385', ...attrs });
      t.textContent = text;
      svg.appendChild(t);
    };
    label(short(vmax / 1.1), { x: PAD.l - 4, y: y(vmax / 1.1) + 3, 'text-anchor': 'end' });
    label('0', { x: PAD.l - 4, y: H - PAD.b + 3, 'text-anchor': 'end' });
    const clock = (t) => new Date(t).toLocaleTimeString('en-GB');
    label(clock(t0), { x: PAD.l, y: H - 4 });
    label(clock(t1), { x: W - PAD.r, y: H - 4, 'text-anchor': 'end' });
    const legend = el('ul', undefined, 'legend');
    series.forEach((s, i) => {
      const color = COLORS[i % COLORS.length];
      // a line per run of known values (a gap where a value is unknown)
      let run = [];
      const flush = () => {
        if (run.length === 1) svg.appendChild(svgEl('circle', { cx: run[0][0], cy: run[0][1], r: 2, fill: color }));
        else if (run.length > 1)
          svg.appendChild(svgEl('polyline', { points: run.map((p) => p.join(',')).join(' '), fill: 'none', stroke: color, 'stroke-width': 1.5 }));
        run = [];
      };
      for (const [t, v] of s.points) {
        if (v === null) flush();
        else run.push([x(t).toFixed(1), y(v).toFixed(1)]);
      }
      flush();
      const li = el('li');
      li.appendChild(svgSwatch(color));
      li.appendChild(el('span', s.name, 'path'));
      legend.appendChild(li);
    });
    box.appendChild(svg);
    box.appendChild(legend);
  }

  function svgSwatch(color) {
    const s = svgEl('svg', { width: 10, height: 10, viewBox: '0 0 10 10', class: 'swatch' });
    s.appendChild(svgEl('rect', { width: 10, height: 10, fill: color }));
    return s;
  }

  // The tools to draw: the TOP most called in the window, the rest as "other".
  function toolSeries(samples, value) {
    const total = new Map();
    const first = samples[0].counters;
    const last = samples[samples.length - 1].counters;
    for (const [name, c] of Object.entries(last)) total.set(name, c[0] - ((first[name] || [0])[0]));
    const names = [...total.entries()].filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1]).map(([n]) => n);
    const top = names.slice(0, TOP);
    const rest = names.slice(TOP);
    const groups = top.map((n) => ({ name: n, members: [n] }));
    if (rest.length) groups.push({ name: `other (${rest.length} tools)`, members: rest });
    return groups.map((g) => ({
      name: g.name,
      points: samples.slice(1).map((s, i) => {
        const prev = samples[i];
        const d = [0, 1, 2].map((k) => g.members.reduce((a, n) => a + ((s.counters[n] || [0, 0, 0])[k] - (prev.counters[n] || [0, 0, 0])[k]), 0));
        return [s.t, value(d, s.t - prev.t)];
      }),
    }));
  }

  function drawHistory(h) {
    const samples = h.samples || [];
    if (samples.length < 2) {
      for (const id of ['chart-calls', 'chart-latency']) drawChart(id, []);
    } else {
      // calls per minute; mean latency in ms (unknown where there was no call)
      drawChart('chart-calls', toolSeries(samples, (d, dt) => (d[0] * 60000) / Math.max(1, dt)));
      drawChart('chart-latency', toolSeries(samples, (d) => (d[0] > 0 ? (d[2] * 1000) / d[0] : null)));
    }
    const repos = new Set(samples.flatMap((s) => Object.keys(s.gauges)));
    const growth = [...repos].slice(0, TOP + 1).map((id) => ({
      name: id,
      points: samples.map((s) => [s.t, s.gauges[id] ? s.gauges[id][0] : null]),
    }));
    drawChart('chart-repos', growth);
    const every = h.interval_ms >= 1000 ? `${Math.round(h.interval_ms / 1000)} s` : `${h.interval_ms} ms`;
    $('history-status').textContent = visible(
      `${samples.length} samples, one every ${every} (the last ${h.capacity} are kept, in the server's memory)`);
  }

  let historyTimer = null;
  async function refreshHistory() {
    clearTimeout(historyTimer);
    let every = HISTORY_POLL_MS;
    try {
      const h = await api('/v1/dashboard/history');
      drawHistory(h);
      if (h.interval_ms) every = Math.max(1000, Math.min(HISTORY_POLL_MS, h.interval_ms));
    } catch (e) {
      if (!(e instanceof HttpError && (e.status === 401 || e.status === 403)))
        $('history-status').textContent = visible(`cannot read the history: ${e.code || ''} ${e.message}`);
    }
    historyTimer = setTimeout(refreshHistory, document.hidden ? every * 5 : every);
  }

  // ---- start -----------------------------------------------------------------------

  function start() {
    $('token-form').addEventListener('submit', (ev) => {
      ev.preventDefault();
      const t = $('token').value.trim();
      $('token').value = '';
      sid = newSid();
      try {
        if (t) sessionStorage.setItem(TOKEN_KEY, t);
      } catch {
        /* storage refused: the token lives until the tab closes anyway */
      }
      refreshOverview();
      refreshAudit();
      refreshHistory();
    });
    $('forget').addEventListener('click', () => {
      try {
        sessionStorage.removeItem(TOKEN_KEY);
      } catch {
        /* nothing kept */
      }
      $('forget').classList.add('hidden');
      askToken('token forgotten');
    });
    $('search-form').addEventListener('submit', search);
    $('search-repo').addEventListener('change', () => {
      picked = true;
    });
    $('audit-form').addEventListener('submit', (ev) => {
      ev.preventDefault();
      refreshAudit();
    });
    $('f-outcome').addEventListener('change', refreshAudit);
    refreshOverview();
    refreshAudit();
    refreshHistory();
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
