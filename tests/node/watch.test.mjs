// watch.test.mjs — the index follows the code (src/index/watch.c): a real
// `memgate serve` (and `memgate mcp` processes) on a git repo, edits made
// with the file system and git, and what search and read_file say after.
//
// Each check waits for the index with a deadline well above the 1 s the
// watcher aims at (CI machines are shared); bench/watch.sh measures it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { MEMGATE_BIN, call, makeWorld, shutdown, startServe, stdioClient } from './lib/harness.mjs';

const DEADLINE_MS = 15000;
let world;

function mg(args, env = {}) {
  try {
    return execFileSync(MEMGATE_BIN, args, { env: { ...world.env, ...env }, cwd: world.cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) { // say what memgate said, not only that it failed
    throw new Error(`memgate ${args.join(' ')}: exit ${e.status}\nstdout: ${e.stdout}\nstderr: ${e.stderr}`);
  }
}

function search(q, repo, mode = 'lexical') {
  return JSON.parse(mg(['search', q, '--repo', repo, '--mode', mode, '--json'])).results;
}

function git(root, ...args) {
  return execFileSync('git', ['-C', root, '-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function meta(id, key) {
  const db = path.join(world.home, 'repos', `${id}.db`);
  return execFileSync('sqlite3', ['-cmd', '.timeout 10000', db, `SELECT value FROM meta WHERE key = '${key}'`], { encoding: 'utf8' }).trim();
}

async function until(what, fn, ms = DEADLINE_MS) {
  const t0 = Date.now();
  let last;
  while (Date.now() - t0 < ms) {
    last = fn();
    if (last) return last;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`${what}: not within ${ms} ms (last: ${JSON.stringify(last)})`);
}

const hits = (q, repo, mode) => search(q, repo, mode);
const found = (q, repo) => hits(q, repo).length > 0;

function makeGitRepo(name, files) {
  const root = path.join(world.dir, name);
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  execFileSync('git', ['init', '-q', '-b', 'main', root]);
  git(root, 'add', '-A');
  git(root, 'commit', '-qm', 'first');
  mg(['index', root, '--name', name]);
  return root;
}

describe('one serve watching a git repo', () => {
  let serve, root;
  const id = 'watched';

  before(async () => {
    world = makeWorld('watch');
    fs.writeFileSync(path.join(world.dir, 'outside.txt'), 'OUTSIDE_WATCH_MARKER_k2\n');
    root = makeGitRepo(id, {
      'src/a.c': 'int apple_one(void) { return 1; }\n',
      'src/b.c': 'int banana_two(void) { return 2; }\n',
      'docs/readme.md': '# watched\n',
      '.gitignore': 'build/\n',
    });
    serve = await startServe(world, [], { MEMGATE_MAX_FILE_SIZE: '8k' });
    await until('the watcher starts', () => meta(id, 'watch.state') === 'watching');
  });

  after(async () => {
    await shutdown([], serve);
    world.cleanup();
  });

  test('an appended function is found, at its line', async () => {
    fs.appendFileSync(path.join(root, 'src/a.c'), 'int apple_added_later(void) { return 3; }\n');
    const h = await until('appended function', () => hits('apple_added_later', id)[0]);
    assert.equal(h.path, 'src/a.c');
    assert.equal(h.line, 2);
    // regex search narrows by trigrams: the run's small segment (tri_recent) is read too
    const rx = hits('apple_added_l[a-z]+er', id, 'regex');
    assert.equal(rx.length, 1, JSON.stringify(rx));
    assert.equal(rx[0].line, 2);
  });

  test('30 lines inserted at the top move the hits; read_file agrees with search', async () => {
    const p = path.join(root, 'src/b.c');
    fs.writeFileSync(p, '/* pad */\n'.repeat(30) + fs.readFileSync(p, 'utf8'));
    const h = await until('shifted line', () => hits('banana_two', id).find((x) => x.line === 31));
    assert.equal(h.stale, undefined);
    const { client } = await stdioClient(world, { args: ['--repo', root] });
    try {
      const r = await call(client, 'read_file', { path: 'src/b.c', start_line: 31, end_line: 31 });
      assert.ok(r.ok, r.text);
      const item = r.data.results?.[0] ?? r.data;
      assert.match(JSON.stringify(item), /banana_two/);
      assert.equal(item.changed_since_index, false);
    } finally {
      await client.close();
    }
  });

  test('created, deleted and renamed files', async () => {
    fs.writeFileSync(path.join(root, 'src/c.c'), 'int cherry_three(void) { return 3; }\n');
    await until('created file', () => found('cherry_three', id));
    fs.rmSync(path.join(root, 'src/c.c'));
    await until('deleted file', () => !found('cherry_three', id));
    fs.renameSync(path.join(root, 'src/a.c'), path.join(root, 'src/a2.c'));
    await until('renamed file', () => hits('apple_one', id).some((x) => x.path === 'src/a2.c') && !hits('apple_one', id).some((x) => x.path === 'src/a.c'));
  });

  test('a new directory with files, then the directory removed', async () => {
    fs.mkdirSync(path.join(root, 'lib/deep/er'), { recursive: true });
    fs.writeFileSync(path.join(root, 'lib/deep/er/d.c'), 'int durian_four(void) { return 4; }\n');
    await until('file in a new directory', () => found('durian_four', id));
    fs.writeFileSync(path.join(root, 'lib/deep/er/e.c'), 'int elder_five(void) { return 5; }\n');
    await until('second file in the new directory', () => found('elder_five', id));
    fs.rmSync(path.join(root, 'lib'), { recursive: true });
    await until('removed directory', () => !found('durian_four', id) && !found('elder_five', id));
  });

  test('.gitignore: ignored files leave the index and come back when un-ignored', async () => {
    fs.writeFileSync(path.join(root, 'docs/notes.txt'), 'fig_six notes\n');
    await until('untracked file', () => found('fig_six', id));
    fs.writeFileSync(path.join(root, '.gitignore'), 'build/\ndocs/notes.txt\n');
    await until('ignored file', () => !found('fig_six', id));
    fs.mkdirSync(path.join(root, 'build'), { recursive: true });
    fs.writeFileSync(path.join(root, 'build/out.c'), 'int grape_seven(void) { return 7; }\n');
    fs.writeFileSync(path.join(root, 'docs/marker.md'), 'honeydew_eight\n');
    await until('a later file', () => found('honeydew_eight', id));
    assert.equal(found('grape_seven', id), false, 'a file in an ignored directory is indexed');
    fs.writeFileSync(path.join(root, '.gitignore'), 'build/\n');
    await until('un-ignored file', () => found('fig_six', id));
  });

  test('a branch switch', async () => {
    git(root, 'add', '-A');
    git(root, 'commit', '-qm', 'before branch');
    git(root, 'checkout', '-q', '-b', 'other');
    fs.writeFileSync(path.join(root, 'src/branch.c'), 'int kiwi_nine(void) { return 9; }\n');
    git(root, 'add', '-A');
    git(root, 'commit', '-qm', 'on other');
    await until('the branch file', () => found('kiwi_nine', id));
    git(root, 'checkout', '-q', 'main');
    await until('back on main', () => !found('kiwi_nine', id));
  });

  test('a file that becomes binary or too large leaves the index', async () => {
    fs.writeFileSync(path.join(root, 'src/l.c'), 'int lemon_ten(void) { return 10; }\n');
    fs.writeFileSync(path.join(root, 'src/m.c'), 'int mango_eleven(void) { return 11; }\n');
    await until('both files', () => found('lemon_ten', id) && found('mango_eleven', id));
    fs.writeFileSync(path.join(root, 'src/l.c'), Buffer.from([0x6c, 0x65, 0x6d, 0, 1, 2, 0x0a]));
    fs.writeFileSync(path.join(root, 'src/m.c'), 'int mango_eleven(void) { return 11; }\n' + '// pad\n'.repeat(2000));
    await until('binary and oversize gone', () => !found('lemon_ten', id) && !found('mango_eleven', id));
  });

  test('a symlink pointing out of the root is never followed', async () => {
    fs.symlinkSync(path.join(world.dir, 'outside.txt'), path.join(root, 'docs/escape.txt'));
    fs.writeFileSync(path.join(root, 'docs/after-link.md'), 'nectarine_twelve\n');
    await until('the file written after the link', () => found('nectarine_twelve', id));
    assert.equal(found('OUTSIDE_WATCH_MARKER_k2', id), false);
  });

  test('a secret pasted into a watched file is redacted before it is searchable', async () => {
    const token = 'ghp_' + 'Zq8Xw2Lk9Vb4Nm7Pc1Rt6Ys3Ud5Fg0Hj2Ka9';
    fs.writeFileSync(path.join(root, 'src/conf.c'), `const char *orange_thirteen = "${token}";\n`);
    const h = await until('the edited file', () => hits('orange_thirteen', id)[0]);
    assert.ok(!JSON.stringify(h).includes(token), JSON.stringify(h));
    assert.match(h.snippet, /\[REDACTED:/);
    assert.equal(hits(token, id, 'regex').length, 0);
  });
});

describe('freshness without a watcher', () => {
  test('a hit whose file changed says stale; read_file says changed_since_index', async () => {
    world = makeWorld('watch-off');
    const root = makeGitRepo('still', { 'a.c': 'int papaya_fourteen(void) { return 14; }\n' });
    const env = { MEMGATE_WATCH: 'off' };
    const serve = await startServe(world, [], env);
    try {
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(hits('papaya_fourteen', 'still')[0].stale, undefined);
      fs.writeFileSync(path.join(root, 'a.c'), '\n\nint papaya_fourteen(void) { return 14; }\n');
      await new Promise((r) => setTimeout(r, 1500)); // a watcher would have re-indexed it by now
      const h = hits('papaya_fourteen', 'still')[0];
      assert.equal(h.stale, true, JSON.stringify(h));
      assert.equal(h.line, 1); // the indexed line, which the file no longer has
      const { client } = await stdioClient(world, { args: ['--repo', root], env });
      try {
        const r = await call(client, 'read_file', { path: 'a.c' });
        assert.ok(r.ok, r.text);
        assert.equal((r.data.results?.[0] ?? r.data).changed_since_index, true);
      } finally {
        await client.close();
      }
    } finally {
      await shutdown([], serve);
      world.cleanup();
    }
  });
});

describe('the watch limit', () => {
  test('past the kernel limit the repo is polled, and says so', async () => {
    world = makeWorld('watch-limit');
    const root = makeGitRepo('limited', { 'a/x.c': 'int quince_fifteen;\n', 'b/y.c': 'int y;\n', 'c/z.c': 'int z;\n' });
    const serve = await startServe(world, [], { MEMGATE_TEST_WATCH_LIMIT: '2', MEMGATE_WATCH_POLL_INTERVAL: '5' });
    try {
      await until('polling state', () => meta('limited', 'watch.state') === 'polling');
      await until('the log line', () => /limited: the kernel's inotify watch limit is reached .*every 5 s/.test(serve.stderr()));
      fs.writeFileSync(path.join(root, 'c/z.c'), 'int raspberry_sixteen;\n');
      await until('the change, by polling', () => found('raspberry_sixteen', 'limited'), 20000);
    } finally {
      await shutdown([], serve);
      world.cleanup();
    }
  });
});

describe('four processes, one writer', () => {
  test('a serve and three mcp processes: one lease, every edit seen by all, nothing corrupted', async () => {
    world = makeWorld('watch-four');
    const root = makeGitRepo('shared', { 'a.c': 'int start;\n' });
    const serve = await startServe(world);
    const clients = [];
    try {
      for (let i = 0; i < 3; i++) clients.push(await stdioClient(world, { args: ['--repo', root] }));
      await until('a lease holder', () => meta('shared', 'watch.state') === 'watching');
      const holder = Number(meta('shared', 'watch.pid'));
      const pids = [serve.child.pid, ...clients.map((c) => c.transport._process?.pid)].filter(Boolean);
      if (pids.length === 4) assert.ok(pids.includes(holder), `lease holder ${holder} is none of ${pids}`);
      for (let k = 0; k < 12; k++) {
        fs.writeFileSync(path.join(root, `f${k}.c`), `int stream_edit_${k}_sym;\n`);
        if (k % 3 === 2) await new Promise((r) => setTimeout(r, 120));
      }
      for (let k = 0; k < 12; k++) await until(`edit ${k}`, () => found(`stream_edit_${k}_sym`, 'shared'));
      for (const { client } of clients) {
        const r = await call(client, 'search_code', { query: 'stream_edit_11_sym', mode: 'lexical' });
        assert.ok(r.ok && r.data.results.length === 1, JSON.stringify(r.data ?? r.text));
      }
      const db = path.join(world.home, 'repos', 'shared.db');
      assert.equal(execFileSync('sqlite3', ['-cmd', '.timeout 10000', db, 'PRAGMA integrity_check'], { encoding: 'utf8' }).trim(), 'ok');
      // the holder goes; another takes the lease and keeps the index current
      if (holder === serve.child.pid) await serve.stop();
      else {
        const c = clients.find((x) => x.transport._process?.pid === holder);
        if (c) {
          await c.close();
          clients.splice(clients.indexOf(c), 1);
        }
      }
      fs.writeFileSync(path.join(root, 'late.c'), 'int strawberry_seventeen;\n');
      await until('the edit after the holder left', () => found('strawberry_seventeen', 'shared'), 30000);
      assert.notEqual(Number(meta('shared', 'watch.pid')), holder);
    } finally {
      await shutdown(clients, serve.child.exitCode === null ? serve : null);
      world.cleanup();
    }
  });
});
