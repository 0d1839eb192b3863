// cluster.mjs — several `memgate serve` daemons on one shared PostgreSQL
// database behind HAProxy (Debian's haproxy), as docs/deploy.md describes:
// each daemon has its own data directory (its local indexes), all share the
// database (storage), the token pepper, and the working copies' paths.
//
//   const c = await startCluster({ n: 3 });
//   await fetch(`${c.url}/v1/...`)        // through HAProxy
//   c.daemons[1].kill()                    // SIGKILL one daemon
//   await c.restart(1)                     // start it again (same home, same port)
//   await c.stop()
//
// HAProxy's configuration is the one docs/deploy.md shows (deployConfig):
// round robin, a health check on /readyz every 500 ms, MCP sessions (2025
// protocol versions) stuck to their daemon by Mcp-Session-Id, retries only
// when a connection could not be made, and a JSON 503 with Retry-After when
// no daemon is ready.
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

import { makeWorld, pgDatabase, sleep, startServe } from './harness.mjs';

export async function freePort() {
  const s = net.createServer();
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

/** HAProxy's configuration for daemons on 127.0.0.1 ports, fronted on port (docs/deploy.md). */
export function deployConfig(port, daemonPorts, errorfile) {
  return `global
    maxconn 4096

defaults
    mode http
    timeout connect 2s
    timeout client 120s
    timeout server 120s
    timeout http-keep-alive 10s
    # a request is sent again only when no connection could be made: a write
    # that reached a daemon is never repeated behind the client's back
    retries 2
    retry-on conn-failure
    option redispatch
    errorfile 503 ${errorfile}

frontend memgate
    bind 127.0.0.1:${port}
    default_backend memgate

backend memgate
    balance roundrobin
    option httpchk GET /readyz
    http-check expect status 200
    default-server inter 500ms fall 2 rise 1
    # MCP Streamable HTTP on the 2025 protocol versions keeps a session (and
    # its streams) in one daemon: stick it there by its Mcp-Session-Id
    stick-table type string len 64 size 1m expire 1h
    stick on req.hdr(mcp-session-id)
    stick store-response res.hdr(mcp-session-id)
${daemonPorts.map((p, i) => `    server d${i} 127.0.0.1:${p} check`).join('\n')}
`;
}

export const HAPROXY_503 =
  'HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 1\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n' +
  '{"error":{"code":"service_unavailable","message":"no memgate daemon is ready (the load balancer answered); retry shortly"}}\n';

async function waitHttp(url, ms = 20000) {
  const t0 = Date.now();
  for (;;) {
    try {
      const r = await fetch(url);
      if (r.status === 200) return;
    } catch {
      /* not yet */
    }
    if (Date.now() - t0 > ms) throw new Error(`${url} did not answer 200 in ${ms} ms`);
    await sleep(100);
  }
}

/**
 * n daemons on one fresh PostgreSQL database (or storage: a URL), behind
 * HAProxy. env: more variables for every daemon. Returns { url, storage,
 * world, daemons: [{ home, port, url, serve, env, kill() }], env(i),
 * restart(i), haproxyLog(), haproxyPid, stop() }.
 */
export async function startCluster({ n = 3, tag = 'cluster', storage, env = {} } = {}) {
  const world = makeWorld(tag);
  const url = storage || pgDatabase(tag);
  const pepper = crypto.randomBytes(32); // every daemon must have the same token.pepper (docs/deploy.md)
  const daemons = [];
  for (let i = 0; i < n; i++) {
    const home = path.join(world.dir, `home${i}`);
    fs.mkdirSync(home, { mode: 0o700 });
    fs.writeFileSync(path.join(home, 'token.pepper'), pepper, { mode: 0o600 });
    const denv = { ...world.env, MEMGATE_HOME: home, MEMGATE_STORAGE: url, MEMGATE_INSTANCE_ID: `daemon${i}`, ...env };
    daemons.push({ i, home, env: denv, port: 0, serve: null });
  }
  const start = async (d, port) => {
    const listen = port ? ['--listen', `127.0.0.1:${port}`] : [];
    // startServe passes --listen 127.0.0.1:0 first; a later --listen wins
    d.serve = await startServe({ ...world, env: d.env }, listen);
    d.port = d.serve.port;
    d.url = d.serve.url;
    d.kill = () => {
      d.serve.child.kill('SIGKILL');
      return new Promise((r) => (d.serve.child.exitCode !== null || d.serve.child.signalCode !== null ? r() : d.serve.child.once('exit', r)));
    };
  };
  for (const d of daemons) await start(d);
  const port = await freePort();
  const errorfile = path.join(world.dir, 'haproxy-503.http');
  fs.writeFileSync(errorfile, HAPROXY_503);
  const cfg = path.join(world.dir, 'haproxy.cfg');
  fs.writeFileSync(cfg, deployConfig(port, daemons.map((d) => d.port), errorfile));
  const hp = spawn('haproxy', ['-f', cfg, '-db'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let hlog = '';
  hp.stdout.on('data', (x) => (hlog += x));
  hp.stderr.on('data', (x) => (hlog += x));
  const front = `http://127.0.0.1:${port}`;
  try {
    await waitHttp(`${front}/healthz`);
  } catch (e) {
    throw new Error(`${e.message}; haproxy said:\n${hlog}`);
  }
  return {
    url: front,
    storage: url,
    world,
    daemons,
    env: (i) => daemons[i].env,
    haproxyLog: () => hlog,
    haproxyPid: hp.pid,
    /** Start daemon i again after kill (same home and port). */
    async restart(i) {
      await start(daemons[i], daemons[i].port);
    },
    async stop() {
      hp.kill('SIGTERM');
      await Promise.all(daemons.map((d) => (d.serve ? d.serve.stop() : null)));
      if (hp.exitCode === null && hp.signalCode === null) await new Promise((r) => hp.once('exit', r));
      world.cleanup();
    },
  };
}
