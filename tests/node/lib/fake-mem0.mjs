// fake-mem0.mjs — a loopback stand-in for the self-hosted Mem0 REST server
// (mem0ai/mem0 server/main.py), for the tests of sessions_provider = mem0.
// Mem0 cannot run here (it needs an LLM and an embedder); this implements
// exactly the subset memgate calls, as that server documents it, and
// checks the requests strictly:
//
//   POST   /memories   {messages:[{role,content}], user_id?, agent_id?, run_id?, metadata?, infer?}
//                      -> {"results":[{id, memory, event:"ADD", actor_id, role}]}   (infer:false: verbatim)
//   POST   /search     {query, filters:{user_id|agent_id|run_id, KEY: v | {in:[...]} | {eq|ne|nin: ...}}, top_k?, threshold?}
//                      -> {"results":[{id, memory, hash, metadata, score, created_at, updated_at, user_id, run_id, role}]}
//   GET    /memories?user_id=&run_id=&agent_id=&top_k=   (top_k 0..1000, default 20) -> {"results":[...]}
//   DELETE /memories/{id}  -> {"message": "Memory deleted successfully"}; 404 {"detail": "Memory not found"}
//
// Authentication: X-API-Key must equal the key (401 {"detail": ...}
// otherwise), as with ADMIN_API_KEY or a per-user key. Errors are FastAPI's
// {"detail": "..."}. Search scores are word overlap (the share of the
// query's words in the memory), standing in for vector similarity; rows
// under the threshold (default 0.1) are left out, like Mem0's.
//
// The server runs in a worker thread, so it answers while the test blocks
// in spawnSync (the CLI). The test drives it (memgate never does) through
// the async methods of the object startFakeMem0 returns, which use
// /__fake/* routes: setMode('ok' | 'down' (500) | 'slow' (answers after
// slowMs) | 'malformed' (not JSON) | 'flood' (a 20 MiB answer) | 'reset'
// (closes the connection) | 'ignore_filters' (search and list answer
// every row, like a Mem0 that lost the filter)); plant(payload) adds a raw
// row; rows() and requests() (method, path, query, headers, body) for
// assertions; clear().
import crypto from 'node:crypto';
import http from 'node:http';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

const RESERVED = new Set(['data', 'user_id', 'agent_id', 'run_id', 'hash', 'created_at', 'updated_at', 'expiration_date']);
const PROMOTED = ['user_id', 'agent_id', 'run_id', 'actor_id', 'role'];
const ADD_KEYS = new Set(['messages', 'user_id', 'agent_id', 'run_id', 'metadata', 'expiration_date', 'infer', 'memory_type', 'prompt']);
const SEARCH_KEYS = new Set(['query', 'user_id', 'run_id', 'agent_id', 'filters', 'top_k', 'threshold', 'explain', 'show_expired']);

const words = (s) => (String(s).toLowerCase().match(/[a-z0-9]+/g) || []);

function serialize(row, score) {
  const p = row.payload;
  const out = { id: row.id, memory: p.data, hash: p.hash, created_at: p.created_at, updated_at: p.updated_at ?? null };
  if (score !== undefined) out.score = score;
  for (const k of PROMOTED) if (p[k] !== undefined) out[k] = p[k];
  const md = {};
  for (const [k, v] of Object.entries(p)) if (!RESERVED.has(k) && !PROMOTED.includes(k)) md[k] = v;
  out.metadata = md;
  return out;
}

/** One condition of a filter on payload p (the operators Mem0 documents that memgate uses, and a few more). */
function matches(p, key, cond) {
  const v = p[key];
  if (cond === '*') return v !== undefined;
  if (cond === null || typeof cond !== 'object' || Array.isArray(cond)) return v === cond;
  const ops = Object.keys(cond);
  if (ops.length !== 1) throw new Error(`filter on '${key}' must have one operator`);
  const [op] = ops;
  const arg = cond[op];
  switch (op) {
    case 'eq': return v === arg;
    case 'ne': return v !== arg;
    case 'in': if (!Array.isArray(arg)) throw new Error(`'in' on '${key}' needs a list`); return arg.includes(v);
    case 'nin': if (!Array.isArray(arg)) throw new Error(`'nin' on '${key}' needs a list`); return !arg.includes(v);
    default: throw new Error(`unsupported operator '${op}' on '${key}'`);
  }
}

function filterFn(filters) {
  if (!filters || typeof filters !== 'object' || Array.isArray(filters)) throw new Error('filters must be an object');
  if (!['user_id', 'agent_id', 'run_id'].some((k) => k in filters))
    throw new Error("filters must contain at least one of: user_id, agent_id, run_id. Example: filters={'user_id': 'u1'}");
  for (const k of ['AND', 'OR', 'NOT']) if (k in filters) throw new Error(`logical operator ${k} is not implemented by this fake`);
  return (p) => Object.entries(filters).every(([k, c]) => matches(p, k, c));
}

async function serveFake(key) {
  const rows = new Map(); // id -> { id, payload }
  const fake = {
    key,
    mode: 'ok',
    slowMs: 3000,
    requests: [],
    rows,
    plant(payload, id = crypto.randomUUID()) {
      rows.set(id, { id, payload: { created_at: new Date().toISOString(), hash: 'planted', ...payload } });
      return id;
    },
    clear() {
      rows.clear();
      fake.requests.length = 0;
    },
  };
  const send = (res, status, obj) => {
    const body = JSON.stringify(obj);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };
  const handle = (req, res, raw) => {
    const url = new URL(req.url, 'http://x');
    if (url.pathname.startsWith('/__fake/')) return control(url.pathname.slice(8), raw ? JSON.parse(raw) : {}, res);
    fake.requests.push({ method: req.method, path: url.pathname, query: Object.fromEntries(url.searchParams), headers: req.headers, body: raw });
    if (fake.mode === 'reset') return req.socket.destroy();
    if (fake.mode === 'down') return send(res, 500, { detail: 'upstream failure (fake)' });
    if (fake.mode === 'malformed') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end('{"results": [ {"id": "x", "memory": ');
    }
    if (fake.mode === 'flood') {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(1 << 20, 0x20);
      res.write('{"results": [');
      for (let i = 0; i < 20; i++) res.write(chunk);
      return res.end(']}');
    }
    if (req.headers['x-api-key'] !== key) return send(res, 401, { detail: 'Authentication required. Provide a Bearer token or X-API-Key header.' });
    let body = null;
    if (raw.length) {
      if (!/^application\/json/.test(req.headers['content-type'] || '')) return send(res, 415, { detail: 'expected application/json' });
      try {
        body = JSON.parse(raw);
      } catch {
        return send(res, 422, { detail: 'body is not JSON' });
      }
    }
    try {
      if (req.method === 'POST' && url.pathname === '/memories') return send(res, 200, add(body));
      if (req.method === 'POST' && url.pathname === '/search') return send(res, 200, search(body));
      if (req.method === 'GET' && url.pathname === '/memories') return send(res, 200, list(url.searchParams));
      const m = /^\/memories\/([^/]+)$/.exec(url.pathname);
      if (req.method === 'DELETE' && m) {
        if (!rows.delete(decodeURIComponent(m[1]))) return send(res, 404, { detail: 'Memory not found' });
        return send(res, 200, { message: 'Memory deleted successfully' });
      }
      return send(res, 404, { detail: 'Not Found' });
    } catch (e) {
      return send(res, e.status || 400, { detail: e.message });
    }
  };
  const control = (op, b, res) => {
    if (op === 'mode') Object.assign(fake, { mode: b.mode, slowMs: b.slowMs ?? fake.slowMs });
    else if (op === 'plant') return send(res, 200, { id: fake.plant(b.payload) });
    else if (op === 'rows') return send(res, 200, [...rows.values()]);
    else if (op === 'requests') return send(res, 200, fake.requests);
    else if (op === 'clear') fake.clear();
    return send(res, 200, {});
  };
    const bad = (msg, status = 422) => Object.assign(new Error(msg), { status });
  function add(b) {
    if (!b || typeof b !== 'object') throw bad('body required');
    for (const k of Object.keys(b)) if (!ADD_KEYS.has(k)) throw bad(`unknown field '${k}'`);
    if (!Array.isArray(b.messages) || !b.messages.every((m) => m && typeof m.role === 'string' && typeof m.content === 'string'))
      throw bad('messages must be a list of {role, content}');
    if (!b.user_id && !b.agent_id && !b.run_id) throw bad('At least one identifier (user_id, agent_id, run_id) is required.', 400);
    if (b.metadata !== undefined && (typeof b.metadata !== 'object' || Array.isArray(b.metadata))) throw bad('metadata must be an object');
    if (b.infer !== false) throw bad('this fake stores verbatim only: memgate must send infer:false', 400);
    const results = [];
    for (const m of b.messages) {
      if (m.role === 'system') continue;
      const id = crypto.randomUUID();
      const payload = { ...(b.metadata || {}), data: m.content, hash: crypto.createHash('md5').update(m.content).digest('hex'), created_at: new Date().toISOString(), role: m.role };
      for (const k of ['user_id', 'agent_id', 'run_id']) if (b[k]) payload[k] = b[k];
      rows.set(id, { id, payload });
      results.push({ id, memory: m.content, event: 'ADD', actor_id: null, role: m.role });
    }
    return { results };
  }
  function search(b) {
    if (!b || typeof b !== 'object') throw bad('body required');
    for (const k of Object.keys(b)) if (!SEARCH_KEYS.has(k)) throw bad(`unknown field '${k}'`);
    if (typeof b.query !== 'string' || !b.query.trim()) throw bad('query must be a non-empty string', 400);
    const topK = b.top_k ?? 20;
    if (!Number.isInteger(topK) || topK < 1) throw bad('top_k must be a positive integer', 400);
    const threshold = b.threshold ?? 0.1;
    const keep = fake.mode === 'ignore_filters' ? () => true : filterFn(b.filters);
    const q = [...new Set(words(b.query))];
    const scored = [];
    for (const r of rows.values()) {
      if (!keep(r.payload)) continue;
      const w = new Set(words(r.payload.data));
      const score = q.length ? q.filter((x) => w.has(x)).length / q.length : 0;
      if (score >= threshold) scored.push([score, r]);
    }
    scored.sort((a, b2) => b2[0] - a[0]);
    return { results: scored.slice(0, topK).map(([s, r]) => serialize(r, s)) };
  }
  function list(params) {
    const f = {};
    for (const k of ['user_id', 'run_id', 'agent_id']) if (params.get(k)) f[k] = params.get(k);
    if (!Object.keys(f).length) throw bad('Admin role required to list all memories.', 403);
    const topK = params.has('top_k') ? Number(params.get('top_k')) : 20;
    if (!Number.isInteger(topK) || topK < 0 || topK > 1000) throw bad('top_k must be 0..1000');
    const keep = fake.mode === 'ignore_filters' ? () => true : filterFn(f);
    return { results: [...rows.values()].filter((r) => keep(r.payload)).slice(0, topK).map((r) => serialize(r)) };
  }
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      if (fake.mode === 'slow') setTimeout(() => handle(req, res, raw), fake.slowMs);
      else handle(req, res, raw);
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${server.address().port}`;
}

if (!isMainThread && workerData?.fakeMem0) serveFake(workerData.key).then((url) => parentPort.postMessage({ url }));

/** Start the fake in a worker; returns { url, key, env, setMode, plant, rows, requests, clear, close }. */
export async function startFakeMem0({ key = 'test-mem0-key-0123456789abcdef' } = {}) {
  const worker = new Worker(new URL(import.meta.url), { workerData: { fakeMem0: true, key } });
  const url = await new Promise((resolve, reject) => {
    worker.once('message', (m) => resolve(m.url));
    worker.once('error', reject);
  });
  const ctl = async (op, body = {}) => {
    const r = await fetch(`${url}/__fake/${op}`, { method: 'POST', body: JSON.stringify(body) });
    return r.json();
  };
  return {
    url,
    key,
    env: { MEMGATE_SESSIONS_PROVIDER: 'mem0', MEMGATE_MEM0_URL: url, MEMGATE_MEM0_API_KEY: key },
    setMode: (mode, slowMs) => ctl('mode', { mode, slowMs }),
    plant: async (payload) => (await ctl('plant', { payload })).id,
    rows: () => ctl('rows'),
    requests: () => ctl('requests'),
    clear: () => ctl('clear'),
    close: () => worker.terminate(),
  };
}
