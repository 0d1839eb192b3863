// packaging.test.mjs — what `make man`, `make install`, `make deb` and the
// completions give, checked against the binary's own --help: a man page per
// command that renders without a warning and lists every flag --help shows;
// bash, zsh and fish completions offering commands, flags and the ids of the
// indexed repos; the installed file list; the systemd user unit; the Debian
// package's Depends, contents and an extracted binary that runs. make is run
// with BIN=MEMGATE_BIN, so nothing is rebuilt.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { MEMGATE_BIN, cleanEnv, indexRepo, makeRepo, makeWorld } from './lib/harness.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = path.resolve(MEMGATE_BIN);

let world;
let A;
let B;

/** make in the checkout, outside the make test that runs us (no jobserver of its) */
function make(args, extraEnv = {}, { fail = false } = {}) {
  const env = { ...cleanEnv(), ...extraEnv };
  for (const k of ['MAKEFLAGS', 'MFLAGS', 'MAKELEVEL', 'MAKEOVERRIDES']) delete env[k];
  const r = spawnSync('make', ['-C', ROOT, '--no-print-directory', `BIN=${BIN}`, ...args], { env, encoding: 'utf8' });
  if (fail) return r;
  assert.equal(r.status, 0, `make ${args.join(' ')} failed:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

// the package's maintainer (scripts/mkdeb.sh refuses a placeholder)
const MAINTAINER = { DEBFULLNAME: 'Ada Packager', DEBEMAIL: 'ada@packages.memgate.dev' };

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', env: world.env, ...opts });
  return { status: r.status, out: r.stdout || '', err: r.stderr || '', error: r.error };
}

function have(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
}

function help(args) {
  return execFileSync(BIN, args, { env: cleanEnv(), encoding: 'utf8' });
}

const mainHelp = () => help(['--help']);

/** the commands memgate --help lists */
function commands() {
  const h = mainHelp();
  const block = h.slice(h.indexOf('\ncommands:\n') + 11).split('\n\n')[0];
  return block.split('\n').map((l) => l.trim().split(' ')[0]).filter(Boolean);
}

/** every flag a --help shows: each --long anywhere, each -x that starts an option */
function helpFlags(text) {
  const flags = new Set(text.match(/(?<![\w-])--[a-z][a-z0-9-]*(?![\w-])/g) || []);
  for (const m of text.matchAll(/^\s+(-[A-Za-z])[, ]/gm)) flags.add(m[1]);
  return flags;
}

/** a man page rendered as text, and groff's warnings */
function render(file) {
  const r = spawnSync('groff', ['-man', '-Tutf8', '-ww', '-rLL=80n'], {
    input: fs.readFileSync(file),
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, `groff ${file}: ${r.stderr}`);
  // no overstriking (bold, underline) in the text we compare
  return { text: r.stdout.replace(/.\x08/g, '').replace(/\x1b\[[0-9;]*m/g, ''), warnings: r.stderr };
}

function section(text, name) {
  const lines = text.split('\n');
  const i = lines.findIndex((l) => l === name);
  if (i < 0) return null;
  let j = i + 1;
  while (j < lines.length && !/^[A-Z][A-Z -]+$/.test(lines[j])) j++;
  return lines.slice(i + 1, j).join('\n');
}

before(() => {
  world = makeWorld('packaging');
  A = makeRepo(world, 'alpha-pkg');
  B = makeRepo(world, 'bravo-pkg');
  indexRepo(world, A);
  indexRepo(world, B);
  // the completions call `memgate repos --json`: the binary under test first on PATH
  world.env.PATH = `${path.dirname(BIN)}:${process.env.PATH}`;
  make(['man']);
});

after(() => world.cleanup());

describe('man pages', () => {
  test('memgate.1 and one page per command, rendered without warnings', () => {
    const cmds = commands();
    assert.ok(cmds.length >= 15, `commands: ${cmds}`);
    const pages = fs.readdirSync(path.join(ROOT, 'build/man')).filter((f) => f.endsWith('.1')).sort();
    const want = ['memgate.1', ...cmds.map((c) => `memgate-${c}.1`)].sort();
    assert.deepEqual(pages, want);
    for (const p of pages) {
      const { text, warnings } = render(path.join(ROOT, 'build/man', p));
      assert.equal(warnings, '', `${p}: groff warns`);
      assert.match(text, /^NAME\n/m, p);
      assert.match(text, /^SYNOPSIS\n/m, p);
    }
    if (have('man')) {
      const r = run('man', ['--warnings', '-l', path.join(ROOT, 'build/man/memgate-search.1')], {
        env: { ...world.env, MANWIDTH: '80', MANPAGER: 'cat', PAGER: 'cat' },
      });
      assert.equal(r.status, 0);
      assert.equal(r.err, '');
      assert.match(r.out, /--fixed-strings/);
    }
  });

  test("each page's OPTIONS holds every flag its --help shows", () => {
    const pages = [['memgate', mainHelp().replace(/\ncommands:\n( {2}.*\n)*/, '\n')]];
    for (const c of commands()) pages.push([`memgate-${c}`, help([c, '--help'])]);
    for (const [name, h] of pages) {
      const { text } = render(path.join(ROOT, 'build/man', `${name}.1`));
      const opts = section(text, 'OPTIONS');
      assert.ok(opts, `${name}: no OPTIONS section`);
      const flags = helpFlags(h);
      assert.ok(flags.has('--help'), `${name}: --help shows no --help?`);
      for (const f of flags) assert.match(opts, new RegExp(`(?<![\\w-])${f}(?![\\w-])`), `${name}: ${f} not in OPTIONS`);
    }
  });

  test('a command page says what its --help says', () => {
    const { text } = render(path.join(ROOT, 'build/man/memgate-index.1'));
    const squash = (s) => s.replace(/\s+/g, ' ');
    // a sentence of the description, and an option's text, whatever the line breaks
    assert.ok(squash(text).includes(squash('Running it again is incremental: only files whose content changed')));
    assert.ok(squash(text).includes('parser threads (default: CPUs; config index_threads)'));
    assert.match(text, /^NAME\n\s+memgate-index - index a repository \(incremental\)/m);
  });
});

describe('completions', () => {
  const comp = (f) => path.join(ROOT, 'build/completions', f);

  /** COMPREPLY for the words typed so far (the last one being completed) */
  function bash(...words) {
    const script = `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _memgate; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const r = run('bash', ['-c', script, 'bash', comp('memgate.bash'), ...words]);
    assert.equal(r.status, 0, r.err);
    assert.equal(r.err, '');
    return r.out.split('\n').filter(Boolean).sort();
  }

  test('bash: commands, flags, values and repo ids', () => {
    assert.deepEqual(bash('memgate', ''), [...commands(), ...helpFlags(mainHelp().replace(/\ncommands:\n( {2}.*\n)*/, '\n'))].sort());
    assert.deepEqual(bash('memgate', 'se'), ['search', 'serve', 'setup']);
    assert.deepEqual(bash('memgate', 'search', '--'), [...helpFlags(help(['search', '--help']))].filter((f) => f.startsWith('--')).sort());
    assert.deepEqual(bash('memgate', 'search', '--mode', 'h'), ['hybrid']);
    assert.deepEqual(bash('memgate', 'search', '--repo', ''), ['alpha-pkg', 'bravo-pkg']);
    assert.deepEqual(bash('memgate', 'outline', 'x', '--repo', 'b'), ['bravo-pkg']);
    assert.deepEqual(bash('memgate', 'repos', ''), ['rm', 'set', 'show']);
    assert.deepEqual(bash('memgate', 'repos', 'rm', ''), ['alpha-pkg', 'bravo-pkg']);
    assert.deepEqual(bash('memgate', 'token', 'create', '--scope', ''), ['admin', 'read', 'write']);
    assert.deepEqual(bash('memgate', 'scan', '.', '--min'), ['--min-severity']);
  });

  test('zsh: parses and completes commands, flags, values and repo ids', { skip: !have('zsh') && 'zsh is not installed' }, () => {
    const r = run('zsh', ['-n', comp('_memgate')]);
    assert.equal(r.status, 0, r.err);
    assert.match(fs.readFileSync(comp('_memgate'), 'utf8'), /^#compdef memgate\n/);
    const zcomplete = (line) => {
      const x = run('zsh', ['-f', path.join(ROOT, 'tests/node/lib/zsh-complete.zsh'), path.join(ROOT, 'build/completions'), line], {
        timeout: 20000,
      });
      assert.equal(x.status, 0, x.err);
      return x.out.split('\n').filter(Boolean).sort();
    };
    assert.deepEqual(zcomplete('memgate se'), ['search', 'serve', 'setup']);
    assert.deepEqual(zcomplete('memgate search --repo '), ['alpha-pkg', 'bravo-pkg']);
    assert.deepEqual(zcomplete('memgate search --fix'), ['--fixed-strings']);
    assert.deepEqual(zcomplete('memgate repos '), ['rm', 'set', 'show']);
    assert.deepEqual(zcomplete('memgate token create --scope '), ['admin', 'read', 'write']);
  });

  test('fish: parses and completes commands, flags and repo ids', { skip: !have('fish') && 'fish is not installed' }, () => {
    const f = comp('memgate.fish');
    let r = run('fish', ['-n', f]);
    assert.equal(r.status, 0, r.err);
    const complete = (line) => {
      const x = run('fish', ['--no-config', '-c', `source ${f}; complete -C "${line}"`]);
      assert.equal(x.status, 0, x.err);
      return x.out.split('\n').filter(Boolean).map((l) => l.split('\t')[0]).sort();
    };
    assert.deepEqual(complete('memgate se'), ['search', 'serve', 'setup']);
    assert.deepEqual(complete('memgate search --repo '), ['alpha-pkg', 'bravo-pkg']);
    assert.deepEqual(complete('memgate search --fix'), ['--fixed-strings']);
    assert.deepEqual(complete('memgate repos '), ['rm', 'set', 'show']);
    assert.deepEqual(complete('memgate repos show '), ['alpha-pkg', 'bravo-pkg']);
  });
});

describe('make run installs only what building and running need', () => {
  const list = (...args) => {
    const r = spawnSync(path.join(ROOT, 'scripts/setup.sh'), [...args, '--list'], { encoding: 'utf8', env: cleanEnv() });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout.split('\n').filter(Boolean);
  };

  test('setup.sh --run: the compiler, the headers and node; the tests\' packages only without it', () => {
    const run = list('--run'), all = list();
    for (const p of ['build-essential', 'pkg-config', 'libsqlite3-dev', 'libvectorscan-dev', 'libpq-dev', 'nodejs', 'npm'])
      assert.ok(run.includes(p), `make run needs ${p}: ${run.join(' ')}`);
    for (const p of ['chromium', 'postgresql-15', 'haproxy', 'clang', 'zsh', 'fish', 'groff-base', 'dpkg-dev']) {
      assert.ok(!run.includes(p), `make run installs ${p}, which only the tests need`);
      assert.ok(all.includes(p), `make test does not install ${p}`);
    }
    for (const p of run) assert.ok(all.includes(p), `make test does not install ${p}`);
  });

  test('the Makefile: make run asks setup.sh --run and builds on every core', () => {
    const mk = fs.readFileSync(path.join(ROOT, 'Makefile'), 'utf8');
    const rule = mk.slice(mk.indexOf('\nrun:')).split('\n\n')[0];
    assert.match(rule, /^run:\s*$/m, `make run depends on deps (the tests' packages): ${rule}`);
    assert.match(rule, /scripts\/setup\.sh --run/, rule);
    assert.match(rule, /\$\(MAKE\)[^\n]*-j\$\$\(nproc\)[^\n]*\$\(OUT\)\/memgate/, rule);
  });
});

describe('make install', () => {
  let dest;
  before(() => {
    dest = fs.mkdtempSync(path.join(os.tmpdir(), 'memgate-install-'));
  });
  after(() => fs.rmSync(dest, { recursive: true, force: true }));

  const listFiles = (dir) =>
    fs
      .readdirSync(dir, { recursive: true })
      .filter((f) => !fs.statSync(path.join(dir, f)).isDirectory())
      .sort();

  test('installs exactly the binary, man pages, completions and user unit; uninstall removes them', () => {
    make(['install', `DESTDIR=${dest}`, 'PREFIX=/usr']);
    const want = [
      'usr/bin/memgate',
      'usr/lib/systemd/user/memgate.service',
      'usr/share/bash-completion/completions/memgate',
      'usr/share/fish/vendor_completions.d/memgate.fish',
      'usr/share/zsh/site-functions/_memgate',
      'usr/share/man/man1/memgate.1',
      ...commands().map((c) => `usr/share/man/man1/memgate-${c}.1`),
    ].sort();
    assert.deepEqual(listFiles(dest), want);
    const v = run(path.join(dest, 'usr/bin/memgate'), ['--version']);
    assert.equal(v.status, 0, v.err);
    assert.match(v.out, /^memgate \d+\.\d+\.\d+ \(commit /);
    const unit = fs.readFileSync(path.join(dest, 'usr/lib/systemd/user/memgate.service'), 'utf8');
    assert.match(unit, /^ExecStart=\/usr\/bin\/memgate serve$/m);
    assert.equal(fs.statSync(path.join(dest, 'usr/bin/memgate')).mode & 0o777, 0o755);
    make(['uninstall', `DESTDIR=${dest}`, 'PREFIX=/usr']);
    assert.deepEqual(listFiles(dest), []);
  });

  test('the systemd user unit: serve, restart on failure, reload by SIGHUP, hardened, and systemd accepts it', () => {
    make(['install', `DESTDIR=${dest}`, 'PREFIX=/usr/local']);
    const file = path.join(dest, 'usr/local/lib/systemd/user/memgate.service');
    const unit = fs.readFileSync(file, 'utf8');
    const keys = {};
    for (const l of unit.split('\n')) {
      const m = l.match(/^([A-Za-z]+)=(.*)$/);
      if (m) keys[m[1]] = m[2];
    }
    assert.equal(keys.ExecStart, '/usr/local/bin/memgate serve');
    assert.equal(keys.ExecReload, 'kill -HUP $MAINPID');
    assert.equal(keys.Restart, 'on-failure');
    assert.ok(keys.RestartSec);
    for (const k of ['NoNewPrivileges', 'PrivateTmp', 'ProtectKernelTunables', 'ProtectControlGroups', 'LockPersonality',
      'RestrictNamespaces', 'MemoryDenyWriteExecute'])
      assert.equal(keys[k], 'yes', k);
    assert.equal(keys.ProtectSystem, 'strict');
    assert.match(keys.ReadWritePaths, /%h\/\.local\/share\/memgate/);
    assert.equal(keys.RestrictAddressFamilies, 'AF_UNIX AF_INET AF_INET6');
    assert.equal(keys.SystemCallArchitectures, 'native');
    assert.equal(keys.WantedBy, 'default.target');
    if (have('systemd-analyze')) {
      // verify resolves ExecStart: point it at the binary under test
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'memgate-unit-'));
      try {
        fs.writeFileSync(path.join(dir, 'memgate.service'), unit.replace(/^ExecStart=\S+/m, `ExecStart=${BIN}`));
        const rt = path.join(dir, 'run');
        fs.mkdirSync(rt, { mode: 0o700 });
        const r = run('systemd-analyze', ['--user', '--man=no', 'verify', path.join(dir, 'memgate.service')], {
          env: { ...world.env, XDG_RUNTIME_DIR: rt },
        });
        assert.equal(r.status, 0, r.err);
        assert.equal(r.err, '', 'systemd-analyze verify warns');
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }
  });
});

describe('make deb', { skip: !have('dpkg-deb') && 'dpkg-deb is not installed' }, () => {
  let deb;
  before(() => {
    const out = make(['deb'], MAINTAINER).trim().split('\n');
    deb = path.resolve(ROOT, out[out.length - 1]);
  });

  test('Depends names the shared libraries the binary links', () => {
    assert.match(path.basename(deb), /^memgate_\d+\.\d+\.\d+_[a-z0-9]+\.deb$/);
    const info = run('dpkg-deb', ['-I', deb]).out;
    const depends = info.match(/^ Depends: (.*)$/m)?.[1] || '';
    for (const p of ['libgit2-1.5', 'libvectorscan5', 'libmicrohttpd12', 'libsqlite3-0', 'libsodium23', 'libjansson4',
      'libpcre2-8-0', 'libzstd1', 'libxxhash0', 'libcurl4', 'libpq5', 'libc6'])
      assert.match(depends, new RegExp(`(^|, )${p}( \\(>= |,|$)`), `${p} not in Depends: ${depends}`); // (libpq5 has no symbols file: no version)
    for (const f of ['Section', 'Priority', 'Maintainer', 'Description', 'Version', 'Architecture'])
      assert.match(info, new RegExp(`^ ${f}: \\S`, 'm'), f);
    assert.match(info, /^ Maintainer: Ada Packager <ada@packages\.memgate\.dev>$/m);
  });

  test('a placeholder maintainer is refused, with what to set', () => {
    const r = make(['deb'], { DEBFULLNAME: 'memgate maintainers', DEBEMAIL: 'maintainers@users.noreply.example' }, { fail: true });
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /error\[usage\]: .*placeholder; set DEBFULLNAME and DEBEMAIL/);
  });

  test('its copyright file names memgate and every library compiled in, with its license', () => {
    const x = fs.mkdtempSync(path.join(os.tmpdir(), 'memgate-deb-'));
    try {
      assert.equal(run('dpkg', ['-x', deb, x]).status, 0);
      const c = fs.readFileSync(path.join(x, 'usr/share/doc/memgate/copyright'), 'utf8');
      assert.match(c, /^Format: https:\/\/www\.debian\.org\/doc\/packaging-manuals\/copyright-format\/1\.0\/$/m);
      assert.match(c, /^Upstream-Name: memgate$/m);
      const g = path.join(ROOT, 'third_party/grammars/node_modules');
      // what is compiled in: the runtime and the packages of the Makefile's GRAMMAR_TABLE (scoped ones too)
      const mk = fs.readFileSync(path.join(ROOT, 'Makefile'), 'utf8');
      const table = /^GRAMMAR_TABLE *:= *\\\n((?:.*\\\n)*.*)$/m.exec(mk)[1];
      const compiled = ['tree-sitter-runtime', ...new Set(table.split('\n').map((l) => l.trim().split(/\s+/)[1]).filter(Boolean))];
      assert.ok(compiled.length > 30 && compiled.some((d) => d.startsWith('@')), compiled.join(' '));
      assert.ok(compiled.includes('tree-sitter-runtime') && compiled.includes('tree-sitter-c'));
      for (const d of compiled) {
        const lic = JSON.parse(fs.readFileSync(path.join(g, d, 'package.json'), 'utf8')).license;
        assert.match(c, new RegExp(`^Files: third_party/grammars/node_modules/${d}/\\*\n(?:.*\n)*?License: ${lic}$`, 'm'), d);
      }
    } finally {
      fs.rmSync(x, { recursive: true, force: true });
    }
  });

  test('holds the binary, man pages, completions and user unit', () => {
    const list = run('dpkg-deb', ['-c', deb])
      .out.split('\n')
      .map((l) => l.split(/\s+/).slice(5).join(' '))
      .filter((f) => f && !f.endsWith('/'))
      .sort();
    const want = [
      './usr/bin/memgate',
      './usr/lib/systemd/user/memgate.service',
      './usr/share/bash-completion/completions/memgate',
      './usr/share/doc/memgate/README',
      './usr/share/doc/memgate/copyright',
      './usr/share/fish/vendor_completions.d/memgate.fish',
      './usr/share/zsh/vendor-completions/_memgate',
      './usr/share/man/man1/memgate.1.gz',
      ...commands().map((c) => `./usr/share/man/man1/memgate-${c}.1.gz`),
    ].sort();
    assert.deepEqual(list, want);
  });

  test('apt resolves it (simulated) and the extracted binary runs', () => {
    if (have('apt-get')) {
      const r = run('apt-get', ['install', '-s', deb]);
      assert.equal(r.status, 0, r.err);
      assert.match(r.out, /^Inst memgate /m);
    }
    const x = fs.mkdtempSync(path.join(os.tmpdir(), 'memgate-deb-'));
    try {
      assert.equal(run('dpkg', ['-x', deb, x]).status, 0);
      const v = run(path.join(x, 'usr/bin/memgate'), ['--version']);
      assert.equal(v.status, 0, v.err);
      assert.match(v.out, /^memgate \d+\.\d+\.\d+ \(commit /);
      const unit = fs.readFileSync(path.join(x, 'usr/lib/systemd/user/memgate.service'), 'utf8');
      assert.match(unit, /^ExecStart=\/usr\/bin\/memgate serve$/m);
    } finally {
      fs.rmSync(x, { recursive: true, force: true });
    }
  });
});
