// qdrant_fake.mjs — a loopback stand-in for Qdrant's REST API, for tests only
// (no Qdrant server can be installed on these machines). It implements exactly
// the subset memgate calls (src/vector/qdrant.c), following Qdrant's documented
// shapes (https://api.qdrant.tech/api-reference), and validates request bodies
// strictly: an unknown key, a wrong type or a missing field is a 400 with
// Qdrant's error shape {"status": {"error": "..."}, "time": 0}, so a request
// memgate builds wrongly fails the tests instead of passing silently.
//
//   PUT  /collections/{c}                           {"vectors": {"size", "distance"}}  (409 when it exists)
//   PUT  /collections/{c}/points?wait=true          {"points": [{"id", "vector", "payload"}]}
//   POST /collections/{c}/points/delete?wait=true   {"filter": F}
//   POST /collections/{c}/points/search             {"vector", "limit", "filter"?, "with_payload"?, "params"?}
// F: {"must"?: [C], "should"?: [C]}; C: {"key", "match": {"value"} | {"any": [...]}},
// {"key", "range": {"gte"?, "lte"?}}, {"has_id": [ids]}. Search is exact cosine.
// With apiKey set, every request needs the header api-key.
import http from 'node:http';

const ok = (result) => ({ result, status: 'ok', time: 0.0001 });

function fail(res, code, msg) {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ status: { error: msg }, time: 0 }));
}

function send(res, body) {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

class Bad extends Error {}
const check = (cond, msg) => {
  if (!cond) throw new Bad(msg);
};
const onlyKeys = (o, keys, where) => {
  check(o && typeof o === 'object' && !Array.isArray(o), `${where}: expected an object`);
  for (const k of Object.keys(o)) check(keys.includes(k), `${where}: unknown field "${k}"`);
};
const isId = (v) => Number.isSafeInteger(v) && v >= 0;

function checkCondition(c, where) {
  check(c && typeof c === 'object', `${where}: expected a condition`);
  if ('has_id' in c) {
    onlyKeys(c, ['has_id'], where);
    check(Array.isArray(c.has_id) && c.has_id.every(isId), `${where}.has_id: expected point ids`);
    return;
  }
  onlyKeys(c, ['key', 'match', 'range'], where);
  check(typeof c.key === 'string', `${where}.key: expected a string`);
  check(('match' in c) !== ('range' in c), `${where}: expected one of match, range`);
  if (c.match) {
    onlyKeys(c.match, ['value', 'any'], `${where}.match`);
    check(('value' in c.match) !== ('any' in c.match), `${where}.match: expected one of value, any`);
    if ('any' in c.match) check(Array.isArray(c.match.any), `${where}.match.any: expected an array`);
  } else {
    onlyKeys(c.range, ['gte', 'lte', 'gt', 'lt'], `${where}.range`);
    for (const v of Object.values(c.range)) check(typeof v === 'number', `${where}.range: expected numbers`);
  }
}

function checkFilter(f, where) {
  onlyKeys(f, ['must', 'should', 'must_not'], where);
  for (const k of ['must', 'should', 'must_not'])
    if (k in f) {
      check(Array.isArray(f[k]), `${where}.${k}: expected an array`);
      f[k].forEach((c, i) => checkCondition(c, `${where}.${k}[${i}]`));
    }
}

function matches(p, c) {
  if (c.has_id) return c.has_id.includes(p.id);
  const v = p.payload[c.key];
  if (c.match) return 'value' in c.match ? v === c.match.value : c.match.any.includes(v);
  const r = c.range;
  if (typeof v !== 'number') return false;
  return (r.gte === undefined || v >= r.gte) && (r.lte === undefined || v <= r.lte) && (r.gt === undefined || v > r.gt) && (r.lt === undefined || v < r.lt);
}

const knobs = { ignoreFilters: false }; // a broken or hostile store: answers without applying the filter

function passes(p, f) {
  if (!f) return true;
  if (f.must && !f.must.every((c) => matches(p, c))) return false;
  if (f.must_not && f.must_not.some((c) => matches(p, c))) return false;
  if (f.should && f.should.length && !f.should.some((c) => matches(p, c))) return false;
  return true;
}

const norm = (v) => Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;

/** Start the fake on 127.0.0.1 (a free port); returns { url, port, collections, requests, ignoreFilters
 * (settable: search then ignores the filter, as a broken store would), close() }. */
export async function startQdrantFake({ apiKey } = {}) {
  const collections = new Map(); // name -> { size, points: Map(id -> {id, vector, payload}) }
  const requests = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => {
      const url = new URL(req.url, 'http://x');
      requests.push({ method: req.method, path: url.pathname, apiKey: req.headers['api-key'] });
      if (apiKey && req.headers['api-key'] !== apiKey) return fail(res, 401, 'Invalid api-key');
      let j = null;
      if (body) {
        try {
          j = JSON.parse(body);
        } catch {
          return fail(res, 400, 'Format error in JSON body');
        }
      }
      const m = /^\/collections\/([A-Za-z0-9_-]+)(\/points(\/search|\/delete)?)?$/.exec(url.pathname);
      if (!m) return fail(res, 404, `Not found: ${url.pathname}`);
      const name = m[1];
      const coll = collections.get(name);
      try {
        if (!m[2] && req.method === 'PUT') {
          onlyKeys(j, ['vectors'], 'body');
          onlyKeys(j.vectors, ['size', 'distance'], 'vectors');
          check(Number.isInteger(j.vectors.size) && j.vectors.size > 0, 'vectors.size: expected a positive integer');
          check(['Cosine', 'Dot', 'Euclid', 'Manhattan'].includes(j.vectors.distance), 'vectors.distance: unknown');
          if (coll) return fail(res, 409, `Wrong input: Collection \`${name}\` already exists!`);
          collections.set(name, { size: j.vectors.size, points: new Map() });
          return send(res, ok(true));
        }
        if (!coll) return fail(res, 404, `Not found: Collection \`${name}\` doesn't exist!`);
        if (m[2] === '/points' && req.method === 'PUT') {
          check(url.searchParams.get('wait') === 'true', 'expected ?wait=true');
          onlyKeys(j, ['points'], 'body');
          check(Array.isArray(j.points), 'points: expected an array');
          for (const [i, p] of j.points.entries()) {
            onlyKeys(p, ['id', 'vector', 'payload'], `points[${i}]`);
            check(isId(p.id), `points[${i}].id: expected an unsigned integer`);
            check(Array.isArray(p.vector) && p.vector.every((x) => typeof x === 'number'), `points[${i}].vector: expected numbers`);
            if (p.vector.length !== coll.size) return fail(res, 400, `Wrong input: Vector dimension error: expected dim: ${coll.size}, got ${p.vector.length}`);
          }
          for (const p of j.points) coll.points.set(p.id, { id: p.id, vector: p.vector, payload: p.payload || {} });
          return send(res, ok({ operation_id: 1, status: 'completed' }));
        }
        if (m[3] === '/delete' && req.method === 'POST') {
          check(url.searchParams.get('wait') === 'true', 'expected ?wait=true');
          onlyKeys(j, ['filter'], 'body');
          checkFilter(j.filter, 'filter');
          for (const [id, p] of coll.points) if (passes(p, j.filter)) coll.points.delete(id);
          return send(res, ok({ operation_id: 2, status: 'completed' }));
        }
        if (m[3] === '/search' && req.method === 'POST') {
          onlyKeys(j, ['vector', 'limit', 'filter', 'with_payload', 'params', 'offset', 'score_threshold'], 'body');
          check(Array.isArray(j.vector) && j.vector.every((x) => typeof x === 'number'), 'vector: expected numbers');
          check(Number.isInteger(j.limit) && j.limit > 0, 'limit: expected a positive integer');
          if (j.filter) checkFilter(j.filter, 'filter');
          if (j.params) onlyKeys(j.params, ['exact', 'hnsw_ef'], 'params');
          if (j.vector.length !== coll.size) return fail(res, 400, `Wrong input: Vector dimension error: expected dim: ${coll.size}, got ${j.vector.length}`);
          const qn = norm(j.vector);
          const hits = [];
          for (const p of coll.points.values()) {
            if (!knobs.ignoreFilters && !passes(p, j.filter)) continue;
            const dot = p.vector.reduce((s, x, i) => s + x * j.vector[i], 0);
            hits.push({ id: p.id, version: 0, score: dot / (qn * norm(p.vector)), payload: j.with_payload ? p.payload : undefined });
          }
          hits.sort((a, b) => b.score - a.score || a.id - b.id);
          return send(res, ok(hits.slice(0, j.limit)));
        }
        return fail(res, 404, `Not found: ${req.method} ${url.pathname}`);
      } catch (e) {
        if (e instanceof Bad) return fail(res, 400, `Format error in JSON body: ${e.message}`);
        throw e;
      }
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const port = server.address().port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    collections,
    requests,
    set ignoreFilters(v) {
      knobs.ignoreFilters = v;
    },
    close: () =>
      new Promise((r) => {
        server.closeAllConnections?.();
        server.close(() => r());
      }),
  };
}
