import { spawnSync } from 'node:child_process';
import { utimesSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const ensure = () => {
  const started = performance.now();
  const res = spawnSync(process.execPath, [join(root, 'scripts', 'ensure-web-build.mjs')], { cwd: root, encoding: 'utf8' });
  return { status: res.status, out: `${res.stdout}${res.stderr}`, ms: performance.now() - started };
};

// `npm start` = ensure-web-build + the server. The browser tests run after `npm run build`.
describe('npm start', () => {
  it('does not rebuild a current web app, and rebuilds one older than its sources', () => {
    const current = ensure();
    expect(current.status).toBe(0);
    expect(current.out).toMatch(/build is current: not rebuilding/);
    expect(current.ms).toBeLessThan(3_000);

    // The build now looks older than every source file: it must be rebuilt, then be current again.
    const index = join(root, 'web', 'dist', 'index.html');
    utimesSync(index, new Date('2000-01-01'), new Date('2000-01-01'));
    const stale = ensure();
    expect(stale.status).toBe(0);
    expect(stale.out).toMatch(/sources changed: rebuilding/);
    expect(ensure().out).toMatch(/build is current/);
  });
});
