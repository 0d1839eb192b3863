// bench/tools_tokens.mjs — what memgate's MCP tools/list costs an agent:
// the tool count, the bytes of the tools/list result as JSON, and its tokens
// (js-tiktoken, the cl100k_base and o200k_base encodings), for this build
// and, with --base PATH, for another memgate binary in the same run.
//
// Usage (Node 22, js-tiktoken from tests/node):
//   node bench/tools_tokens.mjs [--bin build/memgate] [--base /path/to/old/memgate] [--json]
// Each binary runs as `memgate mcp` over stdio with a fresh, empty
// MEMGATE_HOME (tools/list does not depend on what is indexed); the script
// sends initialize, notifications/initialized and tools/list as JSON-RPC
// lines (protocol 2025-06-18), and a stateless tools/list (2026-07-28, its
// version and capabilities in _meta), and measures each result, serialised
// compactly (JSON.stringify, no spaces) as a client receives it: the list a
// client gets by default (the core tools and `tools`, which enables the
// groups of the others), and for reference every tool listed
// (_meta["memgate/tools"]: "all"). The default list's budget: 14,000 bytes
// and 3,500 tokens (cl100k_base and o200k_base) in both eras, which the
// stdio test holds it to.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..');
const require = createRequire(join(root, 'tests/node/package.json'));
const { getEncoding } = require('js-tiktoken');

function parseArgs(argv) {
  const o = { bin: resolve(process.env.MEMGATE_BIN || join(root, 'build/memgate')), base: null, json: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--bin') o.bin = resolve(argv[++i]);
    else if (a === '--base') o.base = resolve(argv[++i]);
    else if (a === '--json') o.json = true;
    else {
      console.error(`tools_tokens: unknown argument ${a}\nusage: tools_tokens.mjs [--bin PATH] [--base PATH] [--json]`);
      process.exit(2);
    }
  }
  return o;
}

// tools/list's result from `bin mcp`: { tools: [...] }. era: '2025-06-18'
// (after initialize) or '2026-07-28' (stateless); groups: what
// _meta["memgate/tools"] asks for beside the core tools, or undefined.
function toolsList(bin, era, groups) {
  const home = mkdtempSync(join(tmpdir(), 'memgate-tools-tokens-'));
  return new Promise((ok, fail) => {
    const p = spawn(bin, ['mcp'], { env: { ...process.env, MEMGATE_HOME: home }, stdio: ['pipe', 'pipe', 'pipe'], cwd: home });
    let buf = '', err = '', done = false;
    const finish = (e, v) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      p.kill();
      rmSync(home, { recursive: true, force: true });
      e ? fail(e) : ok(v);
    };
    const timer = setTimeout(() => finish(new Error(`${bin}: no tools/list answer in 20 s; stderr: ${err}`)), 20000);
    p.stderr.on('data', (d) => { err += d; });
    p.on('error', (e) => finish(e));
    p.on('exit', (code) => finish(new Error(`${bin} mcp exited (${code}) before answering; stderr: ${err}`)));
    const send = (m) => p.stdin.write(JSON.stringify(m) + '\n');
    const modern = era === '2026-07-28';
    const meta = {
      ...(modern ? { 'io.modelcontextprotocol/protocolVersion': era, 'io.modelcontextprotocol/clientCapabilities': {} } : {}),
      ...(groups ? { 'memgate/tools': groups } : {}),
    };
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list', ...(Object.keys(meta).length ? { params: { _meta: meta } } : {}) };
    p.stdout.on('data', (d) => {
      buf += d;
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (!line.trim()) continue;
        const m = JSON.parse(line);
        if (m.id === 1) {
          if (m.error) return finish(new Error(`${bin}: initialize failed: ${JSON.stringify(m.error)}`));
          send({ jsonrpc: '2.0', method: 'notifications/initialized' });
          send(list);
        } else if (m.id === 2) {
          if (m.error) return finish(new Error(`${bin}: tools/list failed: ${JSON.stringify(m.error)}`));
          finish(null, m.result);
        }
      }
    });
    if (modern) send(list);
    else send({
      jsonrpc: '2.0', id: 1, method: 'initialize',
      params: { protocolVersion: era, capabilities: {}, clientInfo: { name: 'tools_tokens', version: '1' } },
    });
  });
}

const encodings = ['cl100k_base', 'o200k_base'].map((name) => ({ name, enc: getEncoding(name) }));

// One list's figures.
async function measure(bin, era = '2025-06-18', groups = undefined) {
  const result = await toolsList(bin, era, groups);
  const text = JSON.stringify(result);
  const m = { bin, era, groups: groups || 'core', tools: result.tools.length, bytes: Buffer.byteLength(text), tokens: {} };
  for (const { name, enc } of encodings) m.tokens[name] = enc.encode(text).length;
  m.per_tool = result.tools.map((t) => ({ name: t.name, bytes: Buffer.byteLength(JSON.stringify(t)) }));
  return m;
}

const opt = parseArgs(process.argv.slice(2));
const LIMIT = { bytes: 14000, tokens: 3500 };
let cur, modern, full, base = null;
try {
  cur = await measure(opt.bin);
  modern = await measure(opt.bin, '2026-07-28');
  full = await measure(opt.bin, '2025-06-18', 'all');
  if (opt.base) base = await measure(opt.base);
} catch (e) {
  console.error(`tools_tokens: ${e.message}`);
  process.exit(1);
}
const within = (m) => m.bytes <= LIMIT.bytes && m.tokens.cl100k_base <= LIMIT.tokens && m.tokens.o200k_base <= LIMIT.tokens;
if (opt.json) {
  console.log(JSON.stringify({ current: cur, modern, all: full, base, limit: LIMIT }, null, 2));
} else {
  const pct = (a, b) => `${a < b ? '−' : '+'}${(Math.abs(a - b) / b * 100).toFixed(1)}%`;
  const row = (label, m, b) =>
    `| ${label} | ${m.tools} | ${m.bytes} | ${m.tokens.cl100k_base} | ${m.tokens.o200k_base} |` +
    (b ? ` ${pct(m.bytes, b.bytes)} bytes, ${pct(m.tokens.cl100k_base, b.tokens.cl100k_base)} cl100k, ` +
         `${pct(m.tokens.o200k_base, b.tokens.o200k_base)} o200k |` : (base ? ' |' : ''));
  console.log('');
  console.log('### MCP tools/list: what the tool list costs an agent (bench/tools_tokens.mjs)');
  console.log('');
  console.log(`| build | tools | bytes | tokens (cl100k_base) | tokens (o200k_base) |${base ? ' against the baseline |' : ''}`);
  console.log(`| --- | --- | --- | --- | --- |${base ? ' --- |' : ''}`);
  if (base) console.log(row(`baseline (${opt.base}), 2025-06-18`, base, null));
  console.log(row(`this build (${opt.bin}), 2025-06-18, default list`, cur, base));
  console.log(row(`this build, 2026-07-28, default list`, modern, base));
  console.log(row(`this build, every group enabled (_meta["memgate/tools"]: "all")`, full, base));
  console.log('');
  console.log(`default list within ${LIMIT.bytes} bytes and ${LIMIT.tokens} tokens in both eras: ${within(cur) && within(modern) ? 'yes' : 'NO'}`);
}
