// release.test.mjs — what `make release` gives (scripts/release.sh): a tarball
// whose binary finds every shared library it needs, glibc's aside, in the
// tarball's lib/ (linked ones and the ones src/util/dynlib.c loads on first
// use) and works from wherever it is unpacked; an MCP bundle that `mcpb
// validate` accepts and whose command answers an MCP client; a server.json for
// the MCP registry naming that bundle by URL and SHA-256. The release URL and
// registry name are required and placeholders refused. make is run with
// BIN=MEMGATE_BIN (man pages from it); the release binary is relinked from
// the build's objects with the rpath $ORIGIN/../lib.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

import { MEMGATE_BIN, NODE22, cleanEnv, makeRepo, makeWorld, startServe } from './lib/harness.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = path.resolve(MEMGATE_BIN);
const MCPB = path.join(ROOT, 'packaging/mcpb/node_modules/@anthropic-ai/mcpb/dist/cli/cli.js');
const URL_BASE = 'https://github.com/memgate-dev/memgate/releases/download/v-test';
const REG_NAME = 'io.github.memgate-dev/memgate';
// glibc's own libraries: the host's, never bundled
const GLIBC = /^(libc|libm|libdl|libpthread|librt|libresolv|libutil|libanl|libnss_[a-z]+|libBrokenLocale|libmvec|ld-linux[-a-z0-9_]*|linux-vdso|linux-gate)\.so/;

let world;
let files; // { tarball, bundle, serverJson }
let x; // the unpacked tarball's top directory

function make(args, extraEnv = {}) {
  const env = { ...cleanEnv(), ...extraEnv };
  for (const k of ['MAKEFLAGS', 'MFLAGS', 'MAKELEVEL', 'MAKEOVERRIDES']) delete env[k];
  return spawnSync('make', ['-C', ROOT, '--no-print-directory', `BIN=${BIN}`, ...args], { env, encoding: 'utf8' });
}

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', env: world.env, cwd: world.cwd, ...opts });
  return { status: r.status, out: r.stdout || '', err: r.stderr || '' };
}

/** `ldd FILE` as { soname: path } (path null when not found) */
function ldd(file, env = world.env) {
  const r = run('ldd', [file], { env });
  assert.equal(r.status, 0, r.err);
  const libs = {};
  for (const l of r.out.split('\n')) {
    const m = l.trim().match(/^(\S+) => (\S+|not found)/);
    if (m) libs[m[1]] = m[2] === 'not found' ? null : path.resolve(m[2]);
  }
  return libs;
}

/** the shared objects a process has mapped, by file name: { name: path } */
function mapped(pid) {
  const maps = fs.readFileSync(`/proc/${pid}/maps`, 'utf8');
  const libs = {};
  for (const l of maps.split('\n')) {
    const p = l.split(/\s+/).slice(5).join(' ');
    if (/\.so(\.|$)/.test(p)) libs[path.basename(p)] = p;
  }
  return libs;
}

/** an MCP client (the official SDK) over stdio of COMMAND ARGS: initialize, tools/list */
async function toolsOverStdio(command, args, env) {
  const client = new Client({ name: 'release-test', version: '1.0.0' }, { capabilities: {} });
  const transport = new StdioClientTransport({ command, args, env, cwd: world.cwd, stderr: 'pipe' });
  let err = '';
  transport.stderr?.on('data', (d) => (err += d));
  await client.connect(transport);
  const pid = transport._process?.pid;
  try {
    const { tools } = await client.listTools();
    return { tools, server: client.getServerVersion(), maps: pid ? mapped(pid) : {}, err };
  } finally {
    await client.close();
  }
}

before(() => {
  world = makeWorld('release');
  const r = make(['release'], { MEMGATE_RELEASE_URL: URL_BASE, MEMGATE_REGISTRY_NAME: REG_NAME });
  assert.equal(r.status, 0, `make release failed:\n${r.stdout}\n${r.stderr}`);
  const out = r.stdout.trim().split('\n').slice(-3).map((f) => path.resolve(ROOT, f));
  files = { tarball: out[0], bundle: out[1], serverJson: out[2] };
  const dir = path.join(world.dir, 'unpacked');
  fs.mkdirSync(dir);
  assert.equal(run('tar', ['-xzf', files.tarball, '-C', dir]).status, 0);
  x = path.join(dir, path.basename(files.tarball, '.tar.gz'));
});

after(() => world.cleanup());

describe('make release: the tarball', () => {
  test('named by version and architecture; bin/memgate with the rpath $ORIGIN/../lib and the same version', () => {
    const v = run(BIN, ['--version']).out.match(/^memgate (\S+)/)[1];
    assert.equal(path.basename(files.tarball), `memgate-${v}-linux-${os.machine()}.tar.gz`);
    const d = run('readelf', ['-d', path.join(x, 'bin/memgate')]).out;
    assert.match(d, /\((?:RPATH|RUNPATH)\)\s+Library r(?:un)?path: \[\$ORIGIN\/\.\.\/lib\]/);
    const r = run(path.join(x, 'bin/memgate'), ['--version']);
    assert.equal(r.status, 0, r.err);
    assert.equal(r.out.match(/^memgate (\S+)/)[1], v);
  });

  test('lib/ holds what it links and what it loads on first use, with their dependencies, and no glibc library', () => {
    const lib = fs.readdirSync(path.join(x, 'lib')).filter((f) => !fs.statSync(path.join(x, 'lib', f)).isDirectory());
    for (const want of [/^libsqlite3\.so\./, /^libhs\.so\./, /^libjansson\.so\./, /^libsodium\.so\./, /^libzstd\.so\./,
      /^libgit2\.so\./, /^libmicrohttpd\.so\.12$/, /^libcurl\.so\.4$/, /^libpq\.so\.5$/,
      /^libssh2\.so\./, /^libssl\.so\./, /^libnghttp2\.so\./, /^libgnutls\.so\./])
      assert.ok(lib.some((f) => want.test(f)), `lib/ has no ${want}: ${lib.join(' ')}`);
    for (const f of lib) assert.doesNotMatch(f, GLIBC, `lib/ bundles glibc's ${f}`);
    // recursively complete: every library a bundled one needs is bundled or glibc's
    for (const f of lib) {
      const need = run('readelf', ['-d', path.join(x, 'lib', f)]).out.matchAll(/\(NEEDED\)\s+Shared library: \[(.+)\]/g);
      for (const [, so] of need) assert.ok(lib.includes(so) || GLIBC.test(so), `${f} needs ${so}, not bundled`);
    }
  });

  test('ldd resolves every bundled soname into the tarball\'s lib/, and nothing else outside glibc', () => {
    const libs = ldd(path.join(x, 'bin/memgate'));
    const lib = new Set(fs.readdirSync(path.join(x, 'lib')));
    for (const [so, p] of Object.entries(libs)) {
      assert.ok(p, `ldd: ${so} not found`);
      if (lib.has(so)) assert.equal(p, path.join(x, 'lib', so), `${so} resolves to ${p}`);
      else assert.match(so, GLIBC, `${so} resolves outside the tarball (${p}) and is not glibc's`);
    }
    assert.ok(Object.keys(libs).some((so) => so.startsWith('libsqlite3')), 'ldd lists no libsqlite3');
  });

  test('man pages, completions, memgate\'s copyright and each bundled library\'s Debian copyright', () => {
    for (const f of ['share/man/man1/memgate.1', 'share/man/man1/memgate-search.1', 'share/bash-completion/completions/memgate',
      'share/zsh/site-functions/_memgate', 'share/fish/vendor_completions.d/memgate.fish'])
      assert.ok(fs.existsSync(path.join(x, f)), `no ${f}`);
    const c = fs.readFileSync(path.join(x, 'share/doc/memgate/copyright'), 'utf8');
    assert.match(c, /^Upstream-Name: memgate$/m);
    assert.match(c, /^Files: third_party\/grammars\/node_modules\/tree-sitter-c\/\*$/m);
    const host = ldd(BIN);
    for (const so of fs.readdirSync(path.join(x, 'lib'))) {
      // the package the host's copy comes from (the binary under test links it, or the loader finds it)
      const where = host[so] || run('sh', ['-c', `ldconfig -p | awk '$1 == "${so}" { print $NF; exit }'`]).out.trim();
      assert.ok(where, `${so}: not on the host`);
      const q = run('dpkg-query', ['-S', fs.realpathSync(where)]);
      const q2 = q.status === 0 ? q : run('dpkg-query', ['-S', where.replace(/^\/usr/, '')]);
      assert.equal(q2.status, 0, `${so}: dpkg -S ${where}: ${q2.err}`);
      const pkg = q2.out.split(':')[0];
      const want = fs.readFileSync(`/usr/share/doc/${pkg}/copyright`, 'utf8');
      assert.equal(fs.readFileSync(path.join(x, 'share/doc', pkg, 'copyright'), 'utf8'), want, `${so}: copyright of ${pkg}`);
    }
  });

  test('the unpacked binary indexes a repo, searches it and serves MCP, its libraries (loaded ones too) from lib/', async () => {
    const bin = path.join(x, 'bin/memgate');
    const repo = makeRepo(world, 'rel-repo');
    let r = run(bin, ['index', repo.root, '--name', repo.name]);
    assert.equal(r.status, 0, r.err);
    r = run(bin, ['search', `${repo.canary}_lookup`, '--repo', repo.name]);
    assert.equal(r.status, 0, r.err);
    assert.match(r.out, /src\/util\.py/);
    const { tools, server, maps } = await toolsOverStdio(bin, ['mcp'], world.env);
    assert.equal(server.name, 'memgate');
    assert.ok(tools.some((t) => t.name === 'search_code'), tools.map((t) => t.name).join(' '));
    const bundled = new Set(fs.readdirSync(path.join(x, 'lib')));
    const check = (m, what) => {
      for (const [name, p] of Object.entries(m)) {
        if (bundled.has(name)) assert.equal(p, path.join(x, 'lib', name), `${what}: ${name} mapped from ${p}`);
        else assert.match(name, GLIBC, `${what}: ${name} mapped from ${p}, outside the tarball`);
      }
    };
    check(maps, 'memgate mcp');
    // serve dlopen()s libmicrohttpd (src/util/dynlib.c): from lib/ too, with its dependencies
    const serve = await startServe(world, [], {}, bin);
    try {
      const m = mapped(serve.child.pid);
      assert.equal(m['libmicrohttpd.so.12'], path.join(x, 'lib/libmicrohttpd.so.12'), JSON.stringify(m));
      check(m, 'memgate serve');
    } finally {
      await serve.stop();
    }
  });
});

describe('make release: the MCP bundle', () => {
  let unpacked;
  before(() => {
    unpacked = path.join(world.dir, 'bundle');
    const r = run(NODE22, [MCPB, 'unpack', files.bundle, unpacked]);
    assert.equal(r.status, 0, r.out + r.err);
    assert.ok(fs.existsSync(path.join(unpacked, 'manifest.json')), `mcpb unpack wrote no manifest.json: ${r.out}${r.err}`);
  });

  test('a zip holding manifest.json and the binary, which mcpb validate accepts', () => {
    const z = run('unzip', ['-Z1', files.bundle]);
    assert.equal(z.status, 0, z.err);
    const names = z.out.split('\n');
    for (const f of ['manifest.json', 'bin/memgate', 'lib/libmicrohttpd.so.12', 'share/doc/memgate/copyright'])
      assert.ok(names.includes(f), `.mcpb lacks ${f}`);
    const v = run(NODE22, [MCPB, 'validate', path.join(unpacked, 'manifest.json')]);
    assert.equal(v.status, 0, v.out + v.err);
    assert.match(v.out, /validation passes/, v.out + v.err);
    const m = JSON.parse(fs.readFileSync(path.join(unpacked, 'manifest.json'), 'utf8'));
    const schema = JSON.parse(fs.readFileSync(path.join(path.dirname(MCPB), '..', `mcpb-manifest-v${m.manifest_version}.schema.json`), 'utf8'));
    assert.ok(schema.properties.server, `manifest_version ${m.manifest_version} is not one the installed mcpb knows`);
    assert.equal(m.server.type, 'binary');
    assert.equal(m.server.entry_point, 'bin/memgate');
    assert.deepEqual(m.server.mcp_config, { command: '${__dirname}/bin/memgate', args: ['mcp'] });
    assert.deepEqual(m.compatibility.platforms, ['linux']);
    assert.equal(m.version, run(BIN, ['--version']).out.match(/^memgate (\S+)/)[1]);
  });

  test('its command, as a client starts it, answers initialize and tools/list on stdio', async () => {
    const m = JSON.parse(fs.readFileSync(path.join(unpacked, 'manifest.json'), 'utf8'));
    const command = m.server.mcp_config.command.replace('${__dirname}', unpacked);
    assert.equal(fs.statSync(command).mode & 0o111, 0o111, 'the bundled binary is not executable');
    const { tools, server, maps } = await toolsOverStdio(command, m.server.mcp_config.args, world.env);
    assert.equal(server.name, 'memgate');
    assert.equal(server.version, m.version);
    assert.ok(tools.length > 5, tools.map((t) => t.name).join(' '));
    assert.equal(maps['libsqlite3.so.0'], path.join(unpacked, 'lib/libsqlite3.so.0'));
  });
});

describe('make release: server.json for the MCP registry', () => {
  test('version, the bundle by URL and SHA-256, stdio', () => {
    const s = JSON.parse(fs.readFileSync(files.serverJson, 'utf8'));
    const v = run(BIN, ['--version']).out.match(/^memgate (\S+)/)[1];
    assert.match(s.$schema, /^https:\/\/static\.modelcontextprotocol\.io\/schemas\/\d{4}-\d{2}-\d{2}\/server\.schema\.json$/);
    assert.equal(s.name, REG_NAME);
    assert.match(s.name, /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/);
    assert.ok(s.description.length >= 1 && s.description.length <= 100, s.description);
    assert.equal(s.version, v);
    assert.equal(s.packages.length, 1);
    const p = s.packages[0];
    assert.equal(p.registryType, 'mcpb');
    assert.equal(p.identifier, `${URL_BASE}/${path.basename(files.bundle)}`);
    assert.equal(p.version, v);
    assert.equal(p.fileSha256, createHash('sha256').update(fs.readFileSync(files.bundle)).digest('hex'));
    assert.deepEqual(p.transport, { type: 'stdio' });
  });

  test('refused without a release URL or registry name, or with a placeholder', () => {
    const rel = path.join(ROOT, 'build/release/memgate');
    const cases = [
      [{}, /error\[usage\]: set MEMGATE_RELEASE_URL/],
      [{ MEMGATE_RELEASE_URL: 'https://example.com/memgate' }, /error\[usage\]: .*placeholder/],
      [{ MEMGATE_RELEASE_URL: 'https://github.com/OWNER/memgate/releases/download/v1' }, /error\[usage\]: .*placeholder/],
      [{ MEMGATE_RELEASE_URL: 'http://github.com/memgate-dev/x' }, /error\[usage\]: .*not an https:\/\/ URL/],
      [{ MEMGATE_RELEASE_URL: URL_BASE }, /error\[usage\]: MEMGATE_REGISTRY_NAME '' is not io\.github\.OWNER\/NAME/],
      [{ MEMGATE_RELEASE_URL: URL_BASE, MEMGATE_REGISTRY_NAME: 'io.github.OWNER/memgate' }, /error\[usage\]: .*placeholder/],
    ];
    const out = fs.mkdtempSync(path.join(world.dir, 'refused-'));
    for (const [env, want] of cases) {
      const r = spawnSync(path.join(ROOT, 'scripts/release.sh'), [rel, out], { env: { ...cleanEnv(), ...env }, encoding: 'utf8' });
      assert.notEqual(r.status, 0, JSON.stringify(env));
      assert.match(r.stderr, want, JSON.stringify(env));
    }
    assert.deepEqual(fs.readdirSync(out), [], 'a refused release wrote files');
    const h = spawnSync(path.join(ROOT, 'scripts/release.sh'), ['--help'], { encoding: 'utf8' });
    assert.equal(h.status, 0);
    assert.match(h.stdout, /^usage: MEMGATE_RELEASE_URL=URL MEMGATE_REGISTRY_NAME=NAME scripts\/release\.sh/m);
  });
});
