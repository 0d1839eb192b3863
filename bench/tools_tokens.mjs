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
// lines and measures the result of tools/list, serialised compactly
// (JSON.stringify, no spaces) as a client receives it.
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

// tools/list's result from `bin mcp`: { tools: [...] }
function toolsList(bin) {
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
          send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
        } else if (m.id === 2) {
          if (m.error) return finish(new Error(`${bin}: tools/list failed: ${JSON.stringify(m.error)}`));
          finish(null, m.result);
        }
      }
    });
    send({
      jsonrpc: '2.0', id: 1, method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'tools_tokens', version: '1' } },
    });
  });
}

const encodings = ['cl100k_base', 'o200k_base'].map((name) => ({ name, enc: getEncoding(name) }));

async function measure(bin) {
  const result = await toolsList(bin);
  const text = JSON.stringify(result);
  const m = { bin, tools: result.tools.length, bytes: Buffer.byteLength(text), tokens: {} };
  for (const { name, enc } of encodings) m.tokens[name] = enc.encode(text).length;
  m.per_tool = result.tools.map((t) => ({ name: t.name, bytes: Buffer.byteLength(JSON.stringify(t)) }));
  return m;
}

const opt = parseArgs(process.argv.slice(2));
let cur, base = null;
try {
  cur = await measure(opt.bin);
  if (opt.base) base = await measure(opt.base);
} catch (e) {
  console.error(`tools_tokens: ${e.message}`);
  process.exit(1);
}
if (opt.json) {
  console.log(JSON.stringify({ current: cur, base }, null, 2));
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
  if (base) console.log(row(`baseline (${opt.base})`, base, null));
  console.log(row(`this build (${opt.bin})`, cur, base));
}
