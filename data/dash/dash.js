// dash.js — memgate's dashboard (docs/http.md "Dashboard"). Served by
// memgate itself with a strict Content-Security-Policy: no inline code, no
// other origin. Everything it shows comes from the index, the audit log and
// the clients, so every string is hostile: the DOM is built with
// createElement and textContent only (never innerHTML), control and bidi
// characters are shown as visible escapes (⟨U+202E⟩), and no data becomes a
// link, a URL or an attribute an event could hide in.
'use strict';

(function () {
  const TOKEN_KEY = 'memgate.token';
  const POLL_MS = 2000;       // the overview: repos, indexing, sessions, counters
  const AUDIT_POLL_MS = 10000; // the audit tail (each read is an audit event itself)

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
    select.appendChild(el('option', 'default repo'));
    select.lastChild.value = '';
    for (const r of d.repos) {
      const tr = el('tr');
      cell(tr, r.id, 'path');
      cell(tr, r.root, 'path');
      cell(tr, num(r.files), 'num');
      cell(tr, num(r.chunks), 'num');
      cell(tr, bytes(r.bytes), 'num');
      const last = Math.max(r.full_index_at || 0, r.incr_index_at || 0, r.indexed_at || 0);
      cell(tr, ago(last, d.now_ms));
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
    select.value = chosen;
    if (select.selectedIndex < 0) select.selectedIndex = 0;
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
    const rows = [
      ['isolation drops', c.isolation_drops, c.isolation_drops > 0],
      ['secrets redacted', c.redactions, false],
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
      if (outcome === 'ok') events = events.filter((e) => e.status === 'ok');
      else if (outcome === 'error') events = events.filter((e) => e.status !== 'ok');
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
        const failed = e.status && e.status !== 'ok';
        cell(tr, failed ? `${e.status}${e.code ? ` ${e.code}` : ''}` : e.status || '', failed ? 'bad' : 'ok');
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
    $('audit-form').addEventListener('submit', (ev) => {
      ev.preventDefault();
      refreshAudit();
    });
    $('f-outcome').addEventListener('change', refreshAudit);
    refreshOverview();
    refreshAudit();
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
