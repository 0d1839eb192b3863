// oauth_as.test.mjs — memgate's built-in authorization server (issue 40,
// point 1: oauth_server = on). The official SDK's OAuth client
// (OAuthClientProvider + StreamableHTTPClientTransport) discovers it from
// memgate's 401, registers itself (RFC 7591), is sent to the consent page,
// which this test answers as the operator would (pasting a memgate token),
// exchanges the code with PKCE and calls tools as the approver's tenant and
// repos. Then: refresh (rotated), revocation (RFC 7009), a restart after
// kill -9 (the refresh token and the access token still work), Client ID
// Metadata Documents (served here on loopback; oauth_client_metadata_http =
// on), and the refusals — bad PKCE verifier, reused code, wrong
// redirect_uri, revoked refresh token, expired code, a bad metadata
// document, a bad approver token — each with its error code and an audit
// event.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import dns from 'node:dns';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { call, freePort, makeRepo, makeWorld, MEMGATE_BIN, shutdown, sleep, startServe } from './lib/harness.mjs';

let world;
let serve;
let port;
let resource;
let issuer;
let approver; // a memgate token of tenant acme, scope write, repo alpha only
let cimd; // a loopback server of client metadata documents
const REDIRECT = 'http://127.0.0.1:1/callback'; // never fetched: the test reads the Location header

function mg(args) {
  return spawnSync(MEMGATE_BIN, args, { env: world.env, cwd: world.cwd, encoding: 'utf8' });
}

function auditEvents() {
  const r = mg(['audit', '--json', '--limit', '0']);
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
}


const ENV = () => ({
  MEMGATE_OAUTH_SERVER: 'on',
  MEMGATE_OAUTH_RESOURCE: resource,
  MEMGATE_OAUTH_CLIENT_METADATA_HTTP: 'on',
  MEMGATE_OAUTH_CLOCK_SKEW: '0',
  MEMGATE_OAUTH_RATE_LIMIT: '0', // the limits have a test of their own
  MEMGATE_OAUTH_REGISTER_RATE: '0',
  MEMGATE_OAUTH_FETCH_PRIVATE: 'on', // the metadata documents are served on loopback here (SSRF test: off)
});

const b64u = (b) => Buffer.from(b).toString('base64url');
const parts = (t) => t.split('.').slice(0, 2).map((s) => JSON.parse(Buffer.from(s, 'base64url')));

function pkce() {
  const verifier = b64u(crypto.randomBytes(32));
  return { verifier, challenge: b64u(crypto.createHash('sha256').update(verifier).digest()) };
}

/** The consent page of an authorize URL: its HTML, status and consent id. */
async function consentPage(url) {
  const r = await fetch(url, { redirect: 'manual' });
  const html = await r.text();
  const m = /name="consent" value="([^"]+)"/.exec(html);
  return { r, html, consent: m && m[1] };
}

/** Answer a consent page as the operator: approve with a memgate token, or deny. */
async function answer(consent, { token = approver, action = 'approve' } = {}) {
  return fetch(`${issuer}/oauth/authorize`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: issuer },
    body: new URLSearchParams({ consent, action, ...(token ? { approver_token: token } : {}) }),
  });
}

async function register(meta) {
  const r = await fetch(`${issuer}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(meta) });
  return { status: r.status, body: await r.json() };
}

/** A code for client_id through the consent page (approved). */
async function getCode(clientId, { redirect = REDIRECT, scope = 'memgate:read memgate:write' } = {}) {
  const p = pkce();
  const q = new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: redirect, code_challenge: p.challenge, code_challenge_method: 'S256', state: 'st-1', scope, resource });
  const page = await consentPage(`${issuer}/oauth/authorize?${q}`);
  assert.equal(page.r.status, 200, page.html);
  const a = await answer(page.consent);
  assert.equal(a.status, 302, await a.text());
  const loc = new URL(a.headers.get('location'));
  assert.equal(loc.searchParams.get('state'), 'st-1');
  assert.equal(loc.searchParams.get('iss'), issuer);
  return { code: loc.searchParams.get('code'), ...p };
}

async function tokenReq(form) {
  const r = await fetch(`${issuer}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) });
  return { status: r.status, body: await r.json() };
}

/** A refusal: its status, OAuth error, memgate code and an audit event of op with that code. */
async function refused(what, fn, { op, status = 400, error, code }) {
  const n = auditEvents().length;
  const r = await fn();
  assert.equal(r.status, status, `${what}: ${JSON.stringify(r.body)}`);
  if (error) assert.equal(r.body.error, error, `${what}: ${JSON.stringify(r.body)}`);
  if (r.body && r.body.memgate_code) assert.equal(r.body.memgate_code, code, what);
  const ev = auditEvents().slice(n);
  assert.ok(ev.some((e) => e.op === op && e.code === code), `${what}: no ${op} event with ${code}: ${JSON.stringify(ev)}`);
  return r;
}

async function mcpStatus(t) {
  const r = await fetch(`${serve.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${t}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
  });
  await r.text();
  return r.status;
}

/** An OAuthClientProvider kept in memory; redirectToAuthorization records the URL for the test to follow. */
class MemoryProvider {
  constructor() {
    this.saved = {};
    this.authUrl = null;
  }
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata() {
    return { client_name: 'SDK test client', redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  state() {
    return 'sdk-state';
  }
  clientInformation() {
    return this.saved.client;
  }
  saveClientInformation(c) {
    this.saved.client = c;
  }
  tokens() {
    return this.saved.tokens;
  }
  saveTokens(t) {
    this.saved.tokens = t;
  }
  redirectToAuthorization(url) {
    this.authUrl = url;
  }
  saveCodeVerifier(v) {
    this.saved.verifier = v;
  }
  codeVerifier() {
    return this.saved.verifier;
  }
}

before(async () => {
  world = makeWorld('oauth-as');
  world.env.MEMGATE_INDEX_ROOTS = `acme:${world.dir}, globex:${world.dir}`;
  for (const [name, tenant] of [['alpha', 'acme'], ['bravo', 'acme'], ['globexrepo', 'globex']]) {
    const r = makeRepo(world, name);
    const x = mg(['index', r.root, '--name', name, '--tenant', tenant, '--quiet']);
    assert.equal(x.status, 0, x.stderr);
  }
  const t = mg(['token', 'create', '--tenant', 'acme', '--scope', 'write', '--repos', 'alpha', '--json']);
  assert.equal(t.status, 0, t.stderr);
  approver = JSON.parse(t.stdout).token;
  port = await freePort();
  issuer = `http://127.0.0.1:${port}`;
  resource = `${issuer}/mcp`;
  serve = await startServe(world, ['--listen', `127.0.0.1:${port}`], ENV());
  // client metadata documents: /good.json names itself, /liar.json names another client_id
  const cport = await freePort();
  const base = `http://127.0.0.1:${cport}`;
  cimd = http.createServer((req, res) => {
    const doc = req.url === '/good.json' ? { client_id: `${base}/good.json`, client_name: 'CIMD client', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }
      : req.url === '/liar.json' ? { client_id: `${base}/good.json`, redirect_uris: [REDIRECT] }
      : null;
    res.writeHead(doc ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(doc || {}));
  });
  await new Promise((r) => cimd.listen(cport, '127.0.0.1', r));
  cimd.base = base;
});

after(async () => {
  cimd?.close();
  await shutdown([], serve);
  world?.cleanup();
});

test('metadata: the protected resource names memgate itself; RFC 8414 lists the endpoints, S256 only, CIMD', async () => {
  const pr = await (await fetch(`${issuer}/.well-known/oauth-protected-resource/mcp`)).json();
  assert.deepEqual(pr.authorization_servers, [issuer]);
  const md = await (await fetch(`${issuer}/.well-known/oauth-authorization-server`)).json();
  assert.equal(md.issuer, issuer);
  assert.equal(md.authorization_endpoint, `${issuer}/oauth/authorize`);
  assert.equal(md.token_endpoint, `${issuer}/oauth/token`);
  assert.equal(md.registration_endpoint, `${issuer}/oauth/register`);
  assert.equal(md.revocation_endpoint, `${issuer}/oauth/revoke`);
  assert.deepEqual(md.code_challenge_methods_supported, ['S256']);
  assert.equal(md.client_id_metadata_document_supported, true);
  const jwks = await (await fetch(md.jwks_uri)).json();
  assert.equal(jwks.keys[0].kty, 'OKP');
  assert.ok(!('d' in jwks.keys[0]), 'the private key is published');
  const st = fs.statSync(path.join(world.home, 'oauth-signing.key'));
  assert.equal(st.mode & 0o777, 0o600);
});

test("the SDK's OAuth client registers, is approved on the consent page and calls tools as the approver's tenant and repos", async () => {
  const provider = new MemoryProvider();
  const first = new StreamableHTTPClientTransport(new URL(serve.mcpUrl), { authProvider: provider });
  const c0 = new Client({ name: 'oauth-as-test', version: '1.0.0' }, { capabilities: {} });
  await assert.rejects(c0.connect(first), UnauthorizedError);
  assert.ok(provider.saved.client?.client_id?.startsWith('mgc_'), JSON.stringify(provider.saved.client));
  assert.ok(provider.authUrl, 'the SDK was sent to the authorization endpoint');
  assert.equal(provider.authUrl.searchParams.get('code_challenge_method'), 'S256');
  const page = await consentPage(provider.authUrl);
  assert.equal(page.r.status, 200);
  assert.match(page.r.headers.get('content-security-policy'), /frame-ancestors 'none'/);
  assert.match(page.html, /SDK test client/);
  const a = await answer(page.consent);
  assert.equal(a.status, 302);
  const loc = new URL(a.headers.get('location'));
  assert.equal(`${loc.origin}${loc.pathname}`, REDIRECT);
  assert.equal(loc.searchParams.get('state'), 'sdk-state');
  await first.finishAuth(loc.searchParams.get('code'));
  const tok = provider.tokens();
  assert.ok(tok.access_token && tok.refresh_token, JSON.stringify(tok));
  const [h, c] = parts(tok.access_token);
  assert.equal(h.alg, 'EdDSA');
  assert.equal(c.aud, resource, 'RFC 8707: the token is for memgate');
  assert.equal(c.iss, issuer);
  assert.equal(c.scope, 'memgate:write', 'capped at the approver token (write), though admin was asked');
  assert.equal(c.memgate_tenant, 'acme');
  assert.deepEqual(c.memgate_repos, ['alpha']);
  const client = new Client({ name: 'oauth-as-test', version: '1.0.0' }, { capabilities: {} });
  await client.connect(new StreamableHTTPClientTransport(new URL(serve.mcpUrl), { authProvider: provider }));
  try {
    const repos = JSON.stringify(await call(client, 'list_repos', {}));
    assert.ok(repos.includes('alpha') && !repos.includes('bravo') && !repos.includes('globexrepo'), repos);
    const s = await call(client, 'search_code', { query: 'canary_alpha', repo: 'alpha' });
    assert.ok(s.ok, s.text);
    assert.equal((await call(client, 'search_code', { query: 'x', repo: 'bravo' })).code, 'repo_forbidden');
  } finally {
    await client.close();
  }
  const ev = auditEvents();
  for (const op of ['oauth_register', 'oauth_authorize', 'oauth_token']) assert.ok(ev.some((e) => e.op === op && !e.code), `no ${op} event`);
  assert.ok(ev.some((e) => e.op === 'search_code' && e.tenant === 'acme' && e.repo === 'alpha'));
  // nothing secret at rest: neither the refresh token nor the code is in oauth.db's bytes
  const db = fs.readFileSync(path.join(world.home, 'oauth.db')).toString('latin1') + (fs.existsSync(path.join(world.home, 'oauth.db-wal')) ? fs.readFileSync(path.join(world.home, 'oauth.db-wal')).toString('latin1') : '');
  assert.ok(!db.includes(tok.refresh_token), 'the refresh token is stored in the clear');
  assert.ok(!db.includes(loc.searchParams.get('code')), 'the code is stored in the clear');
});

test('refresh tokens rotate; a reused one revokes its grant; revocation (RFC 7009); both survive kill -9', async () => {
  const { body: cl } = await register({ redirect_uris: [REDIRECT], client_name: 'refresher' });
  const g = await getCode(cl.client_id);
  const t1 = (await tokenReq({ grant_type: 'authorization_code', code: g.code, code_verifier: g.verifier, redirect_uri: REDIRECT, client_id: cl.client_id, resource })).body;
  assert.ok(t1.refresh_token, JSON.stringify(t1));
  const t2 = await tokenReq({ grant_type: 'refresh_token', refresh_token: t1.refresh_token, client_id: cl.client_id });
  assert.equal(t2.status, 200, JSON.stringify(t2.body));
  assert.notEqual(t2.body.refresh_token, t1.refresh_token, 'rotated');
  assert.equal(await mcpStatus(t2.body.access_token), 200);
  // kill -9 and start again on the same port: the acknowledged refresh token and the access token still work
  serve.child.kill('SIGKILL');
  await new Promise((r) => serve.child.once('exit', r));
  serve = await startServe(world, ['--listen', `127.0.0.1:${port}`], ENV());
  assert.equal(await mcpStatus(t2.body.access_token), 200, 'the access token after a restart');
  const t3 = await tokenReq({ grant_type: 'refresh_token', refresh_token: t2.body.refresh_token, client_id: cl.client_id });
  assert.equal(t3.status, 200, `the refresh token after kill -9: ${JSON.stringify(t3.body)}`);
  // replaying a used refresh token: refused, and the grant is revoked (t3's refresh token with it)
  await refused('reused refresh token', () => tokenReq({ grant_type: 'refresh_token', refresh_token: t1.refresh_token, client_id: cl.client_id }), { op: 'oauth_token', error: 'invalid_grant', code: 'oauth_refresh_revoked' });
  await refused('refresh token of a revoked grant', () => tokenReq({ grant_type: 'refresh_token', refresh_token: t3.body.refresh_token, client_id: cl.client_id }), { op: 'oauth_token', error: 'invalid_grant', code: 'oauth_refresh_revoked' });
  // RFC 7009: revoke a fresh grant's refresh token, then it is refused
  const g2 = await getCode(cl.client_id);
  const u1 = (await tokenReq({ grant_type: 'authorization_code', code: g2.code, code_verifier: g2.verifier, redirect_uri: REDIRECT, client_id: cl.client_id })).body;
  const n = auditEvents().length;
  const rv = await fetch(`${issuer}/oauth/revoke`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token: u1.refresh_token, token_type_hint: 'refresh_token' }) });
  assert.equal(rv.status, 200);
  assert.ok(auditEvents().slice(n).some((e) => e.op === 'oauth_revoke' && e.status === 'revoked' && e.tenant === 'acme'));
  await refused('revoked refresh token', () => tokenReq({ grant_type: 'refresh_token', refresh_token: u1.refresh_token, client_id: cl.client_id }), { op: 'oauth_token', error: 'invalid_grant', code: 'oauth_refresh_revoked' });
  // revoking an access token revokes its grant: its refresh token is refused
  const g3 = await getCode(cl.client_id);
  const v1 = (await tokenReq({ grant_type: 'authorization_code', code: g3.code, code_verifier: g3.verifier, redirect_uri: REDIRECT, client_id: cl.client_id })).body;
  assert.equal((await fetch(`${issuer}/oauth/revoke`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token: v1.access_token }) })).status, 200);
  await refused('refresh token of a grant revoked by its access token', () => tokenReq({ grant_type: 'refresh_token', refresh_token: v1.refresh_token, client_id: cl.client_id }), { op: 'oauth_token', error: 'invalid_grant', code: 'oauth_refresh_revoked' });
  // an unknown token is no error (RFC 7009 2.2)
  assert.equal((await fetch(`${issuer}/oauth/revoke`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'token=nothing' })).status, 200);
});

test('a revoked grant\'s access tokens are refused at once (token_revoked, audited), also after kill -9', async () => {
  const { body: cl } = await register({ redirect_uris: [REDIRECT], client_name: 'revoker' });
  const grant = async () => {
    const g = await getCode(cl.client_id);
    const t = await tokenReq({ grant_type: 'authorization_code', code: g.code, code_verifier: g.verifier, redirect_uri: REDIRECT, client_id: cl.client_id });
    assert.equal(t.status, 200, JSON.stringify(t.body));
    assert.equal(await mcpStatus(t.body.access_token), 200);
    return t.body;
  };
  const revoke = async (token) => assert.equal((await fetch(`${issuer}/oauth/revoke`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token }) })).status, 200);
  const refusedNow = async (what, at) => {
    const n = auditEvents().length;
    const r = await fetch(`${serve.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${at}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
    });
    const text = await r.text();
    assert.equal(r.status, 401, `${what}: ${text}`);
    assert.match(text, /token_revoked/, what);
    assert.match(r.headers.get('www-authenticate') || '', /invalid_token/, what);
    assert.ok(auditEvents().slice(n).some((e) => e.op === 'auth_fail' && e.code === 'token_revoked'), `${what}: no auth_fail token_revoked event`);
  };
  // revoking the access token itself, its refresh token, or replaying its refresh token: each stops the access token at once
  const a = await grant();
  await revoke(a.access_token);
  await refusedNow('revoked by its access token', a.access_token);
  const b = await grant();
  await revoke(b.refresh_token);
  await refusedNow('revoked by its refresh token', b.access_token);
  const c = await grant();
  const c2 = (await tokenReq({ grant_type: 'refresh_token', refresh_token: c.refresh_token, client_id: cl.client_id })).body;
  assert.equal((await tokenReq({ grant_type: 'refresh_token', refresh_token: c.refresh_token, client_id: cl.client_id })).body.memgate_code, 'oauth_refresh_revoked');
  await refusedNow('revoked by a replayed refresh token (the first access token)', c.access_token);
  await refusedNow('revoked by a replayed refresh token (the rotated one)', c2.access_token);
  // another grant of the same client is untouched
  const d = await grant();
  // the list survives kill -9
  serve.child.kill('SIGKILL');
  await new Promise((r) => serve.child.once('exit', r));
  serve = await startServe(world, ['--listen', `127.0.0.1:${port}`], ENV());
  await refusedNow('revoked, after a restart', a.access_token);
  assert.equal(await mcpStatus(d.access_token), 200, 'an unrevoked grant after the restart');
});

test('refused: bad PKCE verifier, reused code, wrong redirect_uri, no PKCE, bad approver token, denial', async () => {
  const { body: cl } = await register({ redirect_uris: [REDIRECT, 'http://127.0.0.1:2/other'] });
  const g = await getCode(cl.client_id);
  await refused('bad PKCE verifier', () => tokenReq({ grant_type: 'authorization_code', code: g.code, code_verifier: pkce().verifier, redirect_uri: REDIRECT, client_id: cl.client_id }), { op: 'oauth_token', error: 'invalid_grant', code: 'oauth_pkce_failed' });
  const g2 = await getCode(cl.client_id);
  const ok = await tokenReq({ grant_type: 'authorization_code', code: g2.code, code_verifier: g2.verifier, redirect_uri: REDIRECT, client_id: cl.client_id });
  assert.equal(ok.status, 200);
  await refused('reused code', () => tokenReq({ grant_type: 'authorization_code', code: g2.code, code_verifier: g2.verifier, redirect_uri: REDIRECT, client_id: cl.client_id }), { op: 'oauth_token', error: 'invalid_grant', code: 'oauth_code_reused' });
  // the reuse revoked what the code gave
  const again = await tokenReq({ grant_type: 'refresh_token', refresh_token: ok.body.refresh_token, client_id: cl.client_id });
  assert.equal(again.body.memgate_code, 'oauth_refresh_revoked');
  const g3 = await getCode(cl.client_id);
  await refused('wrong redirect_uri at the token endpoint', () => tokenReq({ grant_type: 'authorization_code', code: g3.code, code_verifier: g3.verifier, redirect_uri: 'http://127.0.0.1:2/other', client_id: cl.client_id }), { op: 'oauth_token', error: 'invalid_grant', code: 'oauth_redirect_mismatch' });
  // an unregistered redirect_uri at the authorize endpoint: an error page, never a redirect
  const p = pkce();
  await refused('unregistered redirect_uri', async () => {
    const q = new URLSearchParams({ response_type: 'code', client_id: cl.client_id, redirect_uri: 'https://evil.example/cb', code_challenge: p.challenge, code_challenge_method: 'S256' });
    const page = await consentPage(`${issuer}/oauth/authorize?${q}`);
    assert.equal(page.r.headers.get('location'), null);
    return { status: page.r.status };
  }, { op: 'oauth_authorize', code: 'oauth_redirect_mismatch' });
  // no PKCE (plain is refused): an error back at the client's redirect_uri
  await refused('plain PKCE', async () => {
    const q = new URLSearchParams({ response_type: 'code', client_id: cl.client_id, redirect_uri: REDIRECT, code_challenge: p.verifier, code_challenge_method: 'plain', state: 'x' });
    const r = await fetch(`${issuer}/oauth/authorize?${q}`, { redirect: 'manual' });
    const loc = new URL(r.headers.get('location'));
    assert.equal(loc.searchParams.get('error'), 'invalid_request');
    assert.equal(loc.searchParams.get('state'), 'x');
    return { status: r.status };
  }, { op: 'oauth_authorize', status: 302, code: 'oauth_pkce_failed' });
  // a wrong approver token: refused, the page can be answered again; a denial redirects with access_denied
  const q = new URLSearchParams({ response_type: 'code', client_id: cl.client_id, redirect_uri: REDIRECT, code_challenge: p.challenge, code_challenge_method: 'S256', state: 's' });
  const page = await consentPage(`${issuer}/oauth/authorize?${q}`);
  await refused('bad approver token', async () => ({ status: (await answer(page.consent, { token: 'mgt_0000000000000000_wrong' })).status }), { op: 'oauth_authorize', status: 401, code: 'oauth_consent_invalid' });
  const d = await answer(page.consent, { action: 'deny', token: null });
  assert.equal(d.status, 302);
  assert.equal(new URL(d.headers.get('location')).searchParams.get('error'), 'access_denied');
  assert.equal((await answer(page.consent)).status, 400, 'a consent answered once cannot be answered again');
});

test('registration and the consent page refuse or escape hostile metadata', async () => {
  await refused('javascript: redirect', () => register({ redirect_uris: ['javascript:alert(1)'] }), { op: 'oauth_register', error: 'invalid_client_metadata', code: 'oauth_client_metadata_invalid' });
  await refused('no redirect_uris', () => register({ client_name: 'x' }), { op: 'oauth_register', error: 'invalid_client_metadata', code: 'oauth_client_metadata_invalid' });
  const { status, body } = await register({ redirect_uris: [REDIRECT], client_name: '<script>alert(1)</script>' });
  assert.equal(status, 201);
  assert.equal(body.token_endpoint_auth_method, 'none');
  const p = pkce();
  const q = new URLSearchParams({ response_type: 'code', client_id: body.client_id, redirect_uri: REDIRECT, code_challenge: p.challenge, code_challenge_method: 'S256' });
  const page = await consentPage(`${issuer}/oauth/authorize?${q}`);
  assert.ok(!page.html.includes('<script>'), 'the client name is not escaped');
  assert.match(page.html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
});

test('Client ID Metadata Documents: a fetched document is a client; one that names another client_id is refused', async () => {
  const id = `${cimd.base}/good.json`;
  const g = await getCode(id);
  const t = await tokenReq({ grant_type: 'authorization_code', code: g.code, code_verifier: g.verifier, redirect_uri: REDIRECT, client_id: id });
  assert.equal(t.status, 200, JSON.stringify(t.body));
  assert.equal(parts(t.body.access_token)[1].client_id, id);
  assert.equal(await mcpStatus(t.body.access_token), 200);
  const p = pkce();
  await refused('a metadata document naming another client', async () => {
    const q = new URLSearchParams({ response_type: 'code', client_id: `${cimd.base}/liar.json`, redirect_uri: REDIRECT, code_challenge: p.challenge, code_challenge_method: 'S256' });
    return { status: (await consentPage(`${issuer}/oauth/authorize?${q}`)).r.status };
  }, { op: 'oauth_authorize', code: 'oauth_client_metadata_invalid' });
  await refused('a metadata document that is not there', async () => {
    const q = new URLSearchParams({ response_type: 'code', client_id: `${cimd.base}/missing.json`, redirect_uri: REDIRECT, code_challenge: p.challenge, code_challenge_method: 'S256' });
    return { status: (await consentPage(`${issuer}/oauth/authorize?${q}`)).r.status };
  }, { op: 'oauth_authorize', code: 'oauth_invalid_client' });
});

test('CORS: the token, registration, revocation and metadata endpoints answer a browser client\'s exact origin, never with credentials; authorize does not', async () => {
  const app = 'https://app.example';
  const cors = (r) => ({ status: r.status, acao: r.headers.get('access-control-allow-origin'), creds: r.headers.get('access-control-allow-credentials'), vary: r.headers.get('vary') });
  const form = { 'content-type': 'application/x-www-form-urlencoded', origin: app };
  const tok = cors(await fetch(`${issuer}/oauth/token`, { method: 'POST', headers: form, body: 'grant_type=refresh_token&refresh_token=mgr_x' }));
  assert.equal(tok.status, 400, 'the OAuth error itself, not origin_forbidden');
  assert.equal(tok.acao, app);
  assert.equal(tok.creds, null);
  assert.match(tok.vary || '', /Origin/);
  const reg = cors(await fetch(`${issuer}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json', origin: app }, body: JSON.stringify({ redirect_uris: [REDIRECT] }) }));
  assert.equal(reg.status, 201);
  assert.equal(reg.acao, app);
  const pre = await fetch(`${issuer}/oauth/register`, { method: 'OPTIONS', headers: { origin: app, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } });
  assert.equal(pre.status, 204);
  assert.equal(pre.headers.get('access-control-allow-origin'), app);
  assert.match(pre.headers.get('access-control-allow-methods'), /POST/);
  assert.match(pre.headers.get('access-control-allow-headers'), /Content-Type/i);
  assert.equal(pre.headers.get('access-control-allow-credentials'), null);
  for (const u of ['/.well-known/oauth-authorization-server', '/.well-known/oauth-protected-resource/mcp', '/oauth/jwks']) {
    const m = cors(await fetch(`${issuer}${u}`, { headers: { origin: app } }));
    assert.equal(m.status, 200, u);
    assert.equal(m.acao, app, u);
  }
  assert.equal((await fetch(`${issuer}/oauth/revoke`, { method: 'POST', headers: form, body: 'token=x' })).headers.get('access-control-allow-origin'), app);
  // the consent page and its form are not an API: a foreign origin is refused there as before, and never allowed
  const az = await fetch(`${issuer}/oauth/authorize`, { method: 'POST', headers: form, body: 'consent=x&action=deny' });
  assert.equal(az.status, 403);
  assert.equal(az.headers.get('access-control-allow-origin'), null);
  assert.equal((await fetch(`${issuer}/oauth/authorize`, { method: 'OPTIONS', headers: { origin: app } })).status, 403);
  // the rest of memgate is no CORS endpoint
  assert.equal((await fetch(`${serve.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', origin: app, authorization: `Bearer ${approver}` }, body: '{}' })).headers.get('access-control-allow-origin'), null);
  // oauth_cors_origins narrows it to exact origins
  await serve.stop();
  serve = await startServe(world, ['--listen', `127.0.0.1:${port}`], { ...ENV(), MEMGATE_OAUTH_CORS_ORIGINS: 'https://only.example' });
  const other = await fetch(`${issuer}/oauth/token`, { method: 'POST', headers: form, body: 'grant_type=refresh_token&refresh_token=mgr_x' });
  assert.equal(other.status, 403);
  assert.equal(other.headers.get('access-control-allow-origin'), null);
  const only = await fetch(`${issuer}/oauth/token`, { method: 'POST', headers: { ...form, origin: 'https://only.example' }, body: 'grant_type=refresh_token&refresh_token=mgr_x' });
  assert.equal(only.status, 400);
  assert.equal(only.headers.get('access-control-allow-origin'), 'https://only.example');
  await serve.stop();
  serve = await startServe(world, ['--listen', `127.0.0.1:${port}`], ENV());
});

test('limits: registrations and requests per address, consent requests per client, registered clients: 429 with Retry-After, audited and folded', async () => {
  await serve.stop();
  serve = await startServe(world, ['--listen', `127.0.0.1:${port}`], { ...ENV(), MEMGATE_OAUTH_RATE_LIMIT: '60', MEMGATE_OAUTH_REGISTER_RATE: '1' });
  // registrations: a burst of 10 per address, then 429 rate_limited with Retry-After
  let n = auditEvents().length;
  const regs = [];
  for (let i = 0; i < 20; i++) {
    const r = await fetch(`${issuer}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris: [REDIRECT] }) });
    regs.push({ status: r.status, retry: r.headers.get('retry-after'), body: await r.json() });
  }
  assert.equal(regs.filter((r) => r.status === 201).length, 10, JSON.stringify(regs.map((r) => r.status)));
  const lim = regs.find((r) => r.status === 429);
  assert.equal(lim.body.memgate_code, 'rate_limited');
  assert.equal(lim.body.error, 'temporarily_unavailable');
  assert.ok(Number(lim.retry) >= 1, `Retry-After ${lim.retry}`);
  let ev = auditEvents().slice(n).filter((e) => e.op === 'oauth_register' && e.code === 'rate_limited');
  assert.ok(ev.length >= 1 && ev.length <= 5, `10 refusals from one address are folded (5 written a window): ${JSON.stringify(ev)}`);
  // consent requests waiting: at most 16 per client, the 17th is 429 (no row stored, no redirect)
  const cl = regs.find((r) => r.status === 201).body;
  const p = pkce();
  const q = new URLSearchParams({ response_type: 'code', client_id: cl.client_id, redirect_uri: REDIRECT, code_challenge: p.challenge, code_challenge_method: 'S256' });
  const codes = [];
  for (let i = 0; i < 17; i++) {
    if (i === 9) await sleep(8000); // the address's burst (10) refills at 1 a second
    const r = await fetch(`${issuer}/oauth/authorize?${q}`, { redirect: 'manual' });
    codes.push({ status: r.status, retry: r.headers.get('retry-after'), loc: r.headers.get('location') });
    await r.text();
  }
  assert.deepEqual(codes.slice(0, 16).map((c) => c.status), Array(16).fill(200));
  assert.equal(codes[16].status, 429);
  assert.equal(codes[16].loc, null, 'a flood is not redirected to the client');
  assert.ok(Number(codes[16].retry) > 500, `Retry-After is when the oldest waits out: ${codes[16].retry}`);
  // the address's own limit on authorize and token: 60 a minute, burst 10
  n = auditEvents().length;
  const st = [];
  for (let i = 0; i < 24; i++) st.push((await tokenReq({ grant_type: 'refresh_token', refresh_token: 'mgr_nothing', client_id: cl.client_id })).status);
  assert.ok(st.filter((x) => x === 429).length > 5, JSON.stringify(st));
  ev = auditEvents().slice(n).filter((e) => e.op === 'oauth_token' && e.code === 'rate_limited');
  assert.ok(ev.length >= 1 && ev.length <= 5, `folded: ${JSON.stringify(ev)}`);
  // the cap on registered clients (oauth_clients_max): past it, registration is refused while none is idle a day
  await serve.stop();
  serve = await startServe(world, ['--listen', `127.0.0.1:${port}`], { ...ENV(), MEMGATE_OAUTH_CLIENTS_MAX: '3' });
  const full = await register({ redirect_uris: [REDIRECT] });
  assert.equal(full.status, 429, JSON.stringify(full.body));
  assert.equal(full.body.memgate_code, 'rate_limited');
  assert.match(full.body.error_description, /oauth_clients_max/);
  await serve.stop();
  serve = await startServe(world, ['--listen', `127.0.0.1:${port}`], ENV());
});

test('SSRF: without oauth_fetch_private a metadata document on a loopback, private or link-local address is never fetched, by literal or by name', async () => {
  await serve.stop();
  serve = await startServe(world, ['--listen', `127.0.0.1:${port}`], { ...ENV(), MEMGATE_OAUTH_FETCH_PRIVATE: 'off' });
  let hits = 0;
  const seen = http.createServer((req, res) => { hits++; res.writeHead(404); res.end(); });
  await new Promise((r) => seen.listen(0, '127.0.0.1', r));
  // a name (not "localhost") that resolves to loopback: this host's name in /etc/hosts, else localhost.
  let byName = null;
  for (const n of [os.hostname(), 'localhost.']) {
    try {
      const { address } = await dns.promises.lookup(n, { family: 4 });
      if (address.startsWith('127.')) { byName = n; break; }
    } catch { /* next */ }
  }
  const sport = seen.address().port;
  // (five: a sixth refusal of the same kind from one address within 10 s is folded into a count)
  const urls = [`${cimd.base}/good.json`, ...(byName ? [`https://${byName}:${sport}/c.json`] : []), `https://127.0.0.2:${sport}/c.json`, `https://169.254.169.254/latest/meta-data.json`, `https://[::ffff:127.0.0.1]:${sport}/c.json`];
  try {
    for (const id of urls) {
      const p = pkce();
      const q = new URLSearchParams({ response_type: 'code', client_id: id, redirect_uri: REDIRECT, code_challenge: p.challenge, code_challenge_method: 'S256' });
      await refused(`metadata document at ${id}`, async () => {
        const page = await consentPage(`${issuer}/oauth/authorize?${q}`);
        assert.equal(page.r.headers.get('location'), null);
        assert.match(page.html, /(loopback|private|link-local) address, not a public one/, `${id}: ${page.html}`);
        assert.match(page.html, /oauth_fetch_private/);
        return { status: page.r.status };
      }, { op: 'oauth_authorize', code: 'oauth_invalid_client' });
    }
    assert.equal(hits, 0, 'no connection reached the loopback server');
  } finally {
    seen.close();
    await serve.stop();
    serve = await startServe(world, ['--listen', `127.0.0.1:${port}`], ENV());
  }
});

test('an expired code is refused (oauth_code_ttl = 1)', async () => {
  await serve.stop();
  serve = await startServe(world, ['--listen', `127.0.0.1:${port}`], { ...ENV(), MEMGATE_OAUTH_CODE_TTL: '1' });
  const { body: cl } = await register({ redirect_uris: [REDIRECT] });
  const g = await getCode(cl.client_id);
  await sleep(2100);
  await refused('expired code', () => tokenReq({ grant_type: 'authorization_code', code: g.code, code_verifier: g.verifier, redirect_uri: REDIRECT, client_id: cl.client_id }), { op: 'oauth_token', error: 'invalid_grant', code: 'oauth_code_expired' });
});
