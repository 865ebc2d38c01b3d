#!/usr/bin/env node
/**
 * Replays the Dockerfile outside a container, for machines (CI) with a Docker client but no
 * daemon: each stage gets its own directory standing in for the image's filesystem; COPY,
 * WORKDIR, ENV and RUN are carried out in order (a clean install and the build included);
 * then the runtime stage's CMD starts as its USER (never root) and its HEALTHCHECK is run
 * until it passes. Ends with a JSON report in vitest's shape (.ci/sum.mjs adds it up).
 *
 *   node ops/dockerfile-steps.mjs [report.json]
 *
 * Reading the Dockerfile itself, rather than a copy of its steps, is the point: a step that
 * breaks the image breaks this run. Instructions are one line each (see the Dockerfile).
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const reportFile = process.argv[2];
const results = [];
const check = (name, ok, detail = '') => {
  results.push({ name, ok });
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${detail ? ` (${detail})` : ''}`);
};
const IGNORED = new Set(['node_modules', 'dist', '.git', 'data', 'test-results', 'artifacts']);

const work = mkdtempSync(join(tmpdir(), 'masivo-image-'));
// The unprivileged user must be able to walk down to the image's files.
chmodSync(work, 0o755);
let createdUser = null;
let child = null;

try {
  const stages = parseDockerfile(readFileSync(join(repo, 'Dockerfile'), 'utf8'));
  for (const [i, stage] of stages.entries()) stage.root = join(work, `stage${i}`);
  for (const stage of stages) replayStage(stage, stages);
  await runtimeChecks(stages.at(-1));
} catch (err) {
  check('the Dockerfile replays', false, String(err?.message ?? err).slice(0, 500));
} finally {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
  if (createdUser) spawnSync('userdel', [createdUser]);
}

const failed = results.filter((r) => !r.ok).length;
const report = { numPassedTests: results.length - failed, numFailedTests: failed, success: failed === 0 && results.length > 0 };
if (reportFile) writeFileSync(reportFile, JSON.stringify(report));
console.log(`${report.numPassedTests} passed, ${report.numFailedTests} failed`);
process.exit(report.success ? 0 : 1);

function parseDockerfile(text) {
  const stages = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const [, op, rest] = /^(\w+)\s+(.*)$/.exec(line) ?? [];
    if (!op) throw new Error(`unreadable Dockerfile line: ${line}`);
    if (op.toUpperCase() === 'FROM') {
      const [, base, name] = /^(\S+)(?:\s+AS\s+(\S+))?/i.exec(rest);
      stages.push({ base, name, steps: [] });
    } else stages.at(-1).steps.push({ op: op.toUpperCase(), args: rest });
  }
  return stages;
}

/** An absolute path of the image, inside the stage's directory. */
function inStage(stage, p) {
  return join(stage.root, p);
}

function replayStage(stage, stages) {
  stage.env = {};
  stage.workdir = '/';
  stage.user = 'root';
  mkdirSync(stage.root, { recursive: true });
  for (const { op, args } of stage.steps) {
    switch (op) {
      case 'WORKDIR':
        stage.workdir = resolve(stage.workdir, args);
        mkdirSync(inStage(stage, stage.workdir), { recursive: true });
        break;
      case 'ENV':
        for (const [, k, v] of args.matchAll(/(\w+)=(\S+)/g)) stage.env[k] = v;
        break;
      case 'COPY': {
        const parts = args.split(/\s+/);
        const from = parts[0].startsWith('--from=') ? parts.shift().slice(7) : null;
        const dest = parts.pop();
        const source = from ? stages.find((s) => s.name === from) : null;
        for (const src of parts) {
          const srcPath = source ? inStage(source, src) : join(repo, src);
          const destPath = inStage(stage, resolve(stage.workdir, dest));
          const target = dest.endsWith('/') ? join(destPath, src.split('/').filter(Boolean).pop()) : destPath;
          mkdirSync(dirname(target), { recursive: true });
          cpSync(srcPath, target, {
            recursive: true,
            verbatimSymlinks: true,
            // .dockerignore: what the build must produce itself never comes from the work tree.
            filter: (p) => !!source || !IGNORED.has(p.split('/').pop()),
          });
        }
        break;
      }
      case 'RUN': {
        const command = args.replace(/(^|\s)\/data\b/g, `$1${inStage(stage, '/data')}`);
        // Ownership is the image's business; outside it the replay's user owns its files.
        const asRoot = process.getuid?.() === 0;
        const cmd = asRoot ? command.replace(/chown node:node/g, `chown ${runtimeUser()}:${runtimeUser()}`) : command.replace(/&& chown [^&]*/g, '');
        const started = Date.now();
        const r = spawnSync('bash', ['-c', cmd], {
          cwd: inStage(stage, stage.workdir),
          env: { ...process.env, ...stage.env, NODE_ENV: stage.env.NODE_ENV ?? '' },
          stdio: ['ignore', 'inherit', 'inherit'],
        });
        check(`RUN ${args.slice(0, 60)}`, r.status === 0, `${((Date.now() - started) / 1000).toFixed(1)} s`);
        if (r.status !== 0) throw new Error(`step failed: RUN ${args}`);
        break;
      }
      case 'USER':
        stage.user = args.trim();
        break;
      case 'HEALTHCHECK':
        stage.healthcheck = /CMD\s+(.*)$/.exec(args)[1];
        break;
      case 'CMD':
        stage.cmd = JSON.parse(args);
        break;
      default:
        break; // VOLUME, EXPOSE, STOPSIGNAL: nothing to replay
    }
  }
}

/** The image's `node` user; on a machine without one (CI runs as root), a throwaway one. */
function runtimeUser() {
  if (process.getuid?.() !== 0) return execFileSync('id', ['-un']).toString().trim();
  if (spawnSync('id', ['-u', 'node']).status !== 0 && !createdUser) {
    execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', 'node']);
    createdUser = 'node';
  }
  return 'node';
}

function freePort() {
  return new Promise((res) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });
}

async function runtimeChecks(stage) {
  // The replay runs on this machine's `node`: it stands for the image only when it is the
  // image's major (CI puts Node 24 first on PATH for this step).
  const wanted = /^node:(\d+)/.exec(stage.base)?.[1];
  const running = process.versions.node.split('.')[0];
  check('the replay runs on the Node major the image is built FROM', !!wanted && wanted === running, `image ${wanted ?? '?'}, here ${running}`);
  check('the runtime stage runs as a non-root user', !!stage.user && !['root', '0'].includes(stage.user), stage.user);
  const port = await freePort();
  const env = {
    PATH: process.env.PATH,
    HOME: stage.root,
    ...stage.env,
    DATA_DIR: inStage(stage, stage.env.DATA_DIR ?? '/data'),
    HOST: '127.0.0.1',
    PORT: String(port),
    LOG_LEVEL: 'warn',
  };
  const user = runtimeUser();
  const ids = (flag) => Number(execFileSync('id', [flag, user]).toString());
  const asUser = process.getuid?.() === 0 ? { uid: ids('-u'), gid: ids('-g') } : {};
  const cwd = inStage(stage, stage.workdir);
  const [cmd, ...cmdArgs] = stage.cmd;
  child = spawn(cmd, cmdArgs, { cwd, env, ...asUser, stdio: ['ignore', 'inherit', 'inherit'] });
  const exited = new Promise((res) => child.once('exit', (code, signal) => res({ code, signal })));

  const uid = await new Promise((res) => setTimeout(() => res(processUid(child.pid)), 500));
  check('the server process is not root', uid !== null && uid !== 0, `uid ${uid}`);

  let healthy = false;
  const deadline = Date.now() + 60_000;
  while (!healthy && Date.now() < deadline && child.exitCode === null) {
    healthy = spawnSync('bash', ['-c', stage.healthcheck], { cwd, env, ...asUser, timeout: 5_000 }).status === 0;
    if (!healthy) await new Promise((r) => setTimeout(r, 1_000));
  }
  check('the HEALTHCHECK passes', healthy);

  const page = await fetch(`http://127.0.0.1:${port}/`).then((r) => r.text(), () => '');
  check('the built web app is served', page.includes('<div id="root"'), page ? '' : 'no answer');
  check('the data directory is private to the user', existsSync(join(env.DATA_DIR, 'app-secret')));

  const stopAt = Date.now();
  child.kill('SIGTERM');
  const end = await Promise.race([exited, new Promise((r) => setTimeout(() => r(null), 10_000))]);
  check('SIGTERM stops it within 10 s', end?.code === 0, end ? `${Date.now() - stopAt} ms, code ${end.code}` : 'still running');
}

function processUid(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/^Uid:\s+(\d+)/m.exec(status)[1]);
  } catch {
    return null;
  }
}
