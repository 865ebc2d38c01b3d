#!/usr/bin/env node
/**
 * `npm start` runs this first: it builds the web app only when `web/dist` is missing or older
 * than any file it is built from, so a start with a current build takes seconds.
 * `npm run build` always builds.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const builtAt = (() => {
  const index = join(root, 'web', 'dist', 'index.html');
  return existsSync(index) ? statSync(index).mtimeMs : 0;
})();

/** The newest modification time under the web app's and the contract's sources and configs. */
function newest(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = 0;
  for (const entry of readdirSync(path)) {
    if (entry === 'node_modules' || entry === 'dist') continue;
    latest = Math.max(latest, newest(join(path, entry)));
  }
  return latest;
}

const sources = ['web/src', 'web/index.html', 'web/vite.config.ts', 'web/package.json', 'web/tsconfig.json', 'contract/src', 'package-lock.json'];
const sourcesAt = Math.max(...sources.map((p) => newest(join(root, p))));

if (builtAt > sourcesAt) {
  console.log('web app build is current: not rebuilding');
} else {
  console.log(builtAt ? 'web app sources changed: rebuilding' : 'no web app build yet: building');
  const res = spawnSync('npm', ['run', 'build', '-w', 'web'], { cwd: root, stdio: 'inherit' });
  process.exit(res.status ?? 1);
}
