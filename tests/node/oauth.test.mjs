// oauth.test.mjs — memgate as an OAuth 2.1 resource server (issue 40, point
// 1) with a real external OpenID provider: `oidc-provider` (npm) started here
// on loopback, issuing JWT access tokens (ES256, resource indicators) by the
// client credentials grant. The official SDK's ClientCredentialsProvider
// finds the provider through memgate's 401 (WWW-Authenticate:
// resource_metadata) and RFC 9728 metadata, gets a token for memgate's
// resource and calls tools over Streamable HTTP; the tenant and repos come
// from the token's claims. Refused tokens (wrong audience, expired, wrong
// issuer, alg none, unknown key, no memgate scope) each get their error code
// and an auth_fail audit event; no token is ever written to the audit log.
// memgate's own tokens keep working beside them.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import Provider, { errors } from 'oidc-provider';

import { call, freePort, makeRepo, makeWorld, MEMGATE_BIN, shutdown, sleep, startServe } from './lib/harness.mjs';

let world;
let serve;
let A; // tenant acme, in the token's repos
let B; // tenant acme, not in them
let G; // tenant globex
let op; // the OpenID provider memgate trusts
let rogue; // another issuer signing with the same keys
let resource; // memgate's resource identifier: its /mcp URL
const servers = [];

function mg(args) {
  return spawnSync(MEMGATE_BIN, args, { env: world.env, cwd: world.cwd, encoding: 'utf8' });
}

function auditEvents() {
  const r = mg(['audit', '--json', '--limit', '0']);
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
}


/** Start an oidc-provider on a free loopback port: JWT access tokens for memgate's resource (and one other). */
async function startProvider(keys) {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const p = new Provider(issuer, {
    jwks: { keys },
    clients: [
      // the agent: memgate's three scopes; the "short" one gets 1-second tokens; "nomemgate" none of memgate's scopes
      { client_id: 'agent', client_secret: 'agent-secret-0123456789', grant_types: ['client_credentials'], redirect_uris: [], response_types: [], id_token_signed_response_alg: 'ES256', scope: 'memgate:read memgate:write memgate:admin' },
      { client_id: 'short', client_secret: 'short-secret-0123456789', grant_types: ['client_credentials'], redirect_uris: [], response_types: [], id_token_signed_response_alg: 'ES256', scope: 'memgate:read' },
      { client_id: 'nomemgate', client_secret: 'nomem-secret-0123456789', grant_types: ['client_credentials'], redirect_uris: [], response_types: [], id_token_signed_response_alg: 'ES256', scope: 'other:thing' },
    ],
    scopes: ['memgate:read', 'memgate:write', 'memgate:admin', 'other:thing'],
    features: {
      clientCredentials: { enabled: true },
      devInteractions: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (ctx, indicator, client) => {
          if (indicator !== resource && indicator !== 'https://other.example.com/mcp') throw new errors.InvalidTarget();
          return {
            scope: 'memgate:read memgate:write memgate:admin other:thing',
            audience: indicator,
            accessTokenTTL: client.clientId === 'short' ? 1 : 300,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'ES256' } },
          };
        },
      },
    },
    extraTokenClaims: () => ({ memgate_tenant: 'acme', memgate_repos: ['alpha'] }),
  });
  p.proxy = false;
  const server = p.listen(port);
  await new Promise((r) => server.once('listening', r));
  servers.push(server);
  return { issuer, port, provider: p };
}

/** A client-credentials token straight from the token endpoint (RFC 8707 resource). */
async function tokenFrom(o, { client = 'agent', secret = 'agent-secret-0123456789', scope = 'memgate:write', res = resource } = {}) {
  const r = await fetch(`${o.issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${client}:${secret}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope, resource: res }),
  });
  const j = await r.json();
  assert.equal(r.status, 200, JSON.stringify(j));
  assert.equal(j.access_token.split('.').length, 3, 'a JWT access token');
  return j.access_token;
}

const b64u = (x) => Buffer.from(typeof x === 'string' ? x : JSON.stringify(x)).toString('base64url');
const parts = (t) => t.split('.').map((s, i) => (i < 2 ? JSON.parse(Buffer.from(s, 'base64url')) : s));

async function postMcp(t) {
  return fetch(`${serve.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', ...(t ? { authorization: `Bearer ${t}` } : {}) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
  });
}

before(async () => {
  world = makeWorld('oauth');
  world.env.MEMGATE_INDEX_ROOTS = `acme:${world.dir}, globex:${world.dir}`;
  A = makeRepo(world, 'alpha');
  B = makeRepo(world, 'bravo');
  G = makeRepo(world, 'globexrepo');
  for (const [r, name, tenant] of [[A, 'alpha', 'acme'], [B, 'bravo', 'acme'], [G, 'globexrepo', 'globex']]) {
    const x = mg(['index', r.root, '--name', name, '--tenant', tenant, '--quiet']);
    assert.equal(x.status, 0, x.stderr);
  }
  const { privateKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const keys = [{ ...privateKey.export({ format: 'jwk' }), kid: 'op-es256', use: 'sig', alg: 'ES256' }];
  const port = await freePort();
  resource = `http://127.0.0.1:${port}/mcp`;
  op = await startProvider(keys);
  rogue = await startProvider(keys); // same keys, another issuer
  serve = await startServe(world, ['--listen', `127.0.0.1:${port}`], {
    MEMGATE_OAUTH_ISSUER: op.issuer,
    MEMGATE_OAUTH_RESOURCE: resource,
    MEMGATE_OAUTH_CLOCK_SKEW: '0',
    MEMGATE_OAUTH_FETCH_PRIVATE: 'on', // the provider listens on loopback
  });
});

after(async () => {
  await shutdown([], serve);
  for (const s of servers) s.close();
  world?.cleanup();
});

test('401 points to the protected resource metadata (RFC 9728), which names the provider', async () => {
  const r = await postMcp(null);
  assert.equal(r.status, 401);
  const wa = r.headers.get('www-authenticate');
  const m = /resource_metadata="([^"]+)"/.exec(wa);
  assert.ok(m, wa);
  assert.equal(m[1], `${serve.url}/.well-known/oauth-protected-resource/mcp`);
  const md = await (await fetch(m[1])).json();
  assert.equal(md.resource, resource);
  assert.deepEqual(md.authorization_servers, [op.issuer]);
  assert.deepEqual(md.scopes_supported, ['memgate:read', 'memgate:write', 'memgate:admin']);
  // the root form too; and the HTTP API answers the same challenge
  assert.equal((await (await fetch(`${serve.url}/.well-known/oauth-protected-resource`)).json()).resource, resource);
  const v = await fetch(`${serve.url}/v1/repos`);
  assert.equal(v.status, 401);
  assert.match(v.headers.get('www-authenticate'), /resource_metadata=/);
});

test("the SDK's OAuth client signs in with the provider and calls tools as the token's tenant and repos", async () => {
  const provider = new ClientCredentialsProvider({ clientId: 'agent', clientSecret: 'agent-secret-0123456789', scope: 'memgate:write', expectedIssuer: op.issuer });
  const client = new Client({ name: 'oauth-test', version: '1.0.0' }, { capabilities: {} });
  const transport = new StreamableHTTPClientTransport(new URL(serve.mcpUrl), { authProvider: provider });
  await client.connect(transport);
  try {
    const tok = provider.tokens()?.access_token;
    assert.ok(tok, 'the SDK obtained a token');
    const [h, c] = parts(tok);
    assert.equal(h.alg, 'ES256');
    assert.equal(c.aud, resource, 'RFC 8707: the token is for memgate');
    // tenant acme, repos [alpha]: alpha is seen, bravo (same tenant, not listed) forbidden, globex's repo unknown
    const repos = await call(client, 'list_repos', {});
    const names = JSON.stringify(repos);
    assert.ok(names.includes('alpha'), names);
    assert.ok(!names.includes('bravo') && !names.includes('globexrepo'), names);
    const s = await call(client, 'search_code', { query: 'canary_alpha', repo: 'alpha' });
    assert.ok(s.ok, s.text);
    assert.match(JSON.stringify(s.data), /canary_alpha/);
    const f = await call(client, 'search_code', { query: 'canary_bravo', repo: 'bravo' });
    assert.equal(f.code, 'repo_forbidden', f.text);
    const g = await call(client, 'search_code', { query: 'x', repo: 'globexrepo' });
    assert.equal(g.code, 'repo_not_found', g.text);
    // the audit log has the calls under the token's tenant, and never the token
    const log = fs.readFileSync(path.join(world.home, 'audit', 'audit.log'), 'utf8');
    assert.ok(!log.includes(tok.split('.')[1]) && !log.includes(tok.split('.')[2]), 'the token is in the audit log');
    assert.ok(auditEvents().some((e) => e.op === 'search_code' && e.tenant === 'acme' && e.repo === 'alpha' && e.status === 'ok'));
  } finally {
    await client.close();
  }
});

test('refused tokens: each with its code, a 401 challenge and an auth_fail audit event', async () => {
  const good = await tokenFrom(op);
  const [h, c] = parts(good);
  const { privateKey: strangerKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const signed = (hdr, claims, key) => {
    const input = `${b64u(hdr)}.${b64u(claims)}`;
    return `${input}.${crypto.sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
  };
  // the classic confusion: HMAC-SHA256 with the provider's public key (its JWK as published) as the secret
  const pub = (await (await fetch(`${op.issuer}/jwks`)).json()).keys[0];
  const hs256 = (hdr, claims) => {
    const input = `${b64u({ ...hdr, alg: 'HS256' })}.${b64u(claims)}`;
    return `${input}.${crypto.createHmac('sha256', JSON.stringify(pub)).update(input).digest('base64url')}`;
  };
  const shortTok = await tokenFrom(op, { client: 'short', secret: 'short-secret-0123456789', scope: 'memgate:read' });
  const cases = [
    ['wrong audience', await tokenFrom(op, { res: 'https://other.example.com/mcp' }), 'token_wrong_audience'],
    ['wrong issuer', await tokenFrom(rogue), 'token_wrong_issuer'],
    ['alg none', `${b64u({ ...h, alg: 'none' })}.${b64u(c)}.`, 'token_alg_refused'],
    ['HS256 keyed with the public key', hs256(h, c), 'token_alg_refused'],
    ['unknown key', signed({ alg: 'ES256', kid: 'stranger', typ: 'at+jwt' }, c, strangerKey), 'token_key_unknown'],
    ['forged signature', signed(h, { ...c, memgate_tenant: 'globex' }, strangerKey), 'token_bad_signature'],
  ];
  await sleep(2100); // the short token (1 s) is past its exp now (oauth_clock_skew = 0)
  cases.push(['expired', shortTok, 'token_expired']);
  for (const [what, t, code] of cases) {
    const n = auditEvents().length;
    const r = await postMcp(t);
    const body = await r.json();
    assert.equal(r.status, 401, `${what}: ${JSON.stringify(body)}`);
    assert.equal(body.error.data.code, code, `${what}: ${JSON.stringify(body)}`);
    assert.match(r.headers.get('www-authenticate'), /error="invalid_token"/);
    assert.match(r.headers.get('www-authenticate'), /resource_metadata=/);
    const ev = auditEvents().slice(n);
    assert.ok(ev.some((e) => e.op === 'auth_fail' && e.code === code), `${what}: ${JSON.stringify(ev)}`);
    assert.ok(!JSON.stringify(ev).includes(t.split('.')[1]), `${what}: the token is in the audit event`);
  }
  // the good one still passes
  assert.equal((await postMcp(good)).status, 200);
});

test('a token without memgate scopes is 403 insufficient_scope; a read token cannot write', async () => {
  const none = await tokenFrom(op, { client: 'nomemgate', secret: 'nomem-secret-0123456789', scope: 'other:thing' });
  const r = await postMcp(none);
  assert.equal(r.status, 403);
  assert.match(r.headers.get('www-authenticate'), /error="insufficient_scope"/);
  const read = await tokenFrom(op, { scope: 'memgate:read' });
  const w = await fetch(`${serve.url}/v1/notes`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${read}` },
    body: JSON.stringify({ repo: 'alpha', key: 'k', value: 'v' }),
  });
  assert.equal(w.status, 403, await w.text());
});

test("memgate's own tokens keep working beside OAuth", async () => {
  const t = mg(['token', 'create', '--tenant', 'globex', '--json']);
  assert.equal(t.status, 0, t.stderr);
  const r = await fetch(`${serve.url}/v1/repos`, { headers: { authorization: `Bearer ${JSON.parse(t.stdout).token}` } });
  assert.equal(r.status, 200);
  const j = await r.json();
  assert.match(JSON.stringify(j), /globexrepo/);
  assert.doesNotMatch(JSON.stringify(j), /alpha/);
});

test('SSRF: without oauth_fetch_private the provider on loopback is not fetched (503 oauth_unavailable naming the switch)', async () => {
  const good = await tokenFrom(op);
  const { port } = new URL(serve.url);
  await serve.stop();
  serve = await startServe(world, ['--listen', `127.0.0.1:${port}`], { MEMGATE_OAUTH_ISSUER: op.issuer, MEMGATE_OAUTH_RESOURCE: resource, MEMGATE_OAUTH_CLOCK_SKEW: '0' });
  try {
    const r = await postMcp(good);
    const text = await r.text();
    assert.equal(r.status, 503, text);
    assert.match(text, /oauth_unavailable/);
    assert.match(text, /loopback address/);
    assert.match(text, /oauth_fetch_private/);
  } finally {
    await serve.stop();
    serve = await startServe(world, ['--listen', `127.0.0.1:${port}`], { MEMGATE_OAUTH_ISSUER: op.issuer, MEMGATE_OAUTH_RESOURCE: resource, MEMGATE_OAUTH_CLOCK_SKEW: '0', MEMGATE_OAUTH_FETCH_PRIVATE: 'on' });
  }
});
