// sdk2.mjs — clients of the official TypeScript SDK 2.x
// (@modelcontextprotocol/client), which speaks protocol revision 2026-07-28:
// no initialize, every request carries _meta (version, client capabilities),
// roots asked through an InputRequiredResult. Same shape as harness.mjs's
// 1.x clients ({ client, transport, close() }), plus `seen`: every message
// the client received, raw, so a test can look at what the SDK strips
// (resultType, the serverInfo _meta).
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

import { MEMGATE_BIN, outcome } from './harness.mjs';

export const MODERN = '2026-07-28';

/**
 * A 2.x client. mode: { pin: '2026-07-28' } (default) or 'auto'. roots:
 * directories answered to roots/list (the client then declares the roots
 * capability); rootsAsked counts the requests.
 */
function makeClient2(name, { roots, mode = { pin: MODERN } } = {}) {
  const client = new Client(
    { name, version: '2.0.0' },
    { versionNegotiation: { mode }, capabilities: roots ? { roots: {} } : {} },
  );
  const state = { rootsAsked: 0 };
  if (roots) {
    client.setRequestHandler('roots/list', async () => {
      state.rootsAsked++;
      return { roots: roots.map((r) => ({ uri: pathToFileURL(r).href, name: path.basename(r) })) };
    });
  }
  return { client, state };
}

/** Record every inbound message before the client sees it. */
function tap(transport) {
  const seen = [];
  const orig = transport.onmessage;
  transport.onmessage = (m, extra) => {
    seen.push(m);
    if (seen.length > 2000) seen.splice(0, 1000);
    orig?.(m, extra);
  };
  return seen;
}

/** A 2.x client over `memgate mcp [args]` run in cwd (default the world's neutral directory). */
export async function stdioClient2(world, { args = [], roots, env = {}, cwd, mode, name = 'sdk2-stdio' } = {}) {
  const { client, state } = makeClient2(name, { roots, mode });
  const transport = new StdioClientTransport({
    command: MEMGATE_BIN,
    args: ['mcp', ...args],
    env: { ...world.env, ...env },
    cwd: cwd || world.cwd,
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (d) => {
    err += d;
    if (err.length > 1 << 20) err = err.slice(-(1 << 19));
  });
  await client.connect(transport);
  const seen = tap(transport);
  const proc = transport._process;
  const exited = proc
    ? new Promise((r) => (proc.exitCode !== null || proc.signalCode !== null
      ? r({ code: proc.exitCode, signal: proc.signalCode })
      : proc.once('exit', (code, signal) => r({ code, signal }))))
    : Promise.resolve(null);
  return {
    client,
    transport,
    seen,
    state,
    stderr: () => err,
    async close() {
      await client.close();
      return exited;
    },
  };
}

/** A 2.x client over Streamable HTTP to a running serve; headers on every request (a bearer token, X-Memgate-Repo). */
export async function httpClient2(serve, { roots, headers, mode, name = 'sdk2-http' } = {}) {
  const { client, state } = makeClient2(name, { roots, mode });
  const transport = new StreamableHTTPClientTransport(new URL(serve.mcpUrl), {
    requestInit: headers ? { headers } : undefined,
  });
  await client.connect(transport);
  const seen = tap(transport);
  return { client, transport, seen, state, close: () => client.close() };
}

/**
 * Call a tool through the 2.x client and flatten the answer like harness.mjs's
 * call(): { ok, data, code, error, text, raw }. meta: extra params._meta (the
 * SDK adds its own keys beside them).
 */
export async function call2(client, name, args = {}, { meta, timeout = 60000 } = {}) {
  const params = { name, arguments: args };
  if (meta) params._meta = meta;
  const raw = await client.callTool(params, { timeout });
  return outcome(name, raw);
}
