/**
 * `npm run bench`: runs every bench/*.bench.ts in its own process, one after another, so
 * each measures on a quiet machine. Pass names to run a subset: `npm run bench -- contacts`; flags
 * after the names go to each bench run (`npm run bench -- campaigns --only multi`).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
// Names pick the benches; everything from the first `--flag` on is passed to each of them
// (`npm run bench -- campaigns --only aggregate`).
const argv = process.argv.slice(2);
const firstFlag = argv.findIndex((a) => a.startsWith('--'));
const wanted = firstFlag === -1 ? argv : argv.slice(0, firstFlag);
const passed = firstFlag === -1 ? [] : argv.slice(firstFlag);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.includes(w)))
  .sort();

let failures = 0;
for (const file of files) {
  console.log(`\n### ${file}\n`);
  const started = Date.now();
  const res = spawnSync(process.execPath, ['--import', 'tsx', join(here, file), ...passed], { stdio: 'inherit', cwd: join(here, '..') });
  console.log(`\n(${file}: ${((Date.now() - started) / 1000).toFixed(1)} s, exit ${res.status})`);
  if (res.status !== 0) failures++;
}
process.exit(failures ? 1 : 0);
