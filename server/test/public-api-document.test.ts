import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app';

/**
 * The public API's document (/api/v1/docs/json) lints with 0 errors under Redocly's recommended
 * rules and Spectral's OWASP ruleset, and the typed client generated from it (used by the e2e
 * test) is the one committed. `npm run generate:api-client` rewrites it after a change.
 */
const ROOT = resolve(__dirname, '../..');
const CLIENT = join(ROOT, 'e2e/src/generated/public-api.ts');
let t: TestApp;
let doc: Record<string, unknown>;
let file: string;

beforeAll(async () => {
  t = await createTestApp();
  const res = await t.app.inject({ method: 'GET', url: '/api/v1/docs/json' });
  expect(res.statusCode).toBe(200);
  doc = res.json();
  file = join(mkdtempSync(join(tmpdir(), 'masivo-v1-')), 'openapi.json');
  writeFileSync(file, JSON.stringify(doc, null, 2));
});
afterAll(() => t?.close());

const run = (bin: string, args: string[]) => {
  const res = spawnSync(join(ROOT, 'node_modules/.bin', bin), args, { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  return { status: res.status, out: `${res.stdout}\n${res.stderr}` };
};

describe('the public API document', () => {
  it('documents every /api/v1 route, and the console document none of them', async () => {
    const routes = t.app.routePermissions.filter((r) => r.url.startsWith('/api/v1/'));
    const paths = doc.paths as Record<string, Record<string, unknown>>;
    for (const r of routes) {
      const path = r.url.slice('/api/v1'.length).replace(/:([A-Za-z]+)/g, '{$1}');
      expect(paths[path]?.[r.method.toLowerCase()], `${r.method} ${r.url}`).toBeTruthy();
    }
    const consoleDoc = (await t.app.inject({ method: 'GET', url: '/api/docs/json' })).json() as { paths: Record<string, unknown> };
    expect(Object.keys(consoleDoc.paths).filter((p) => p.startsWith('/api/v1'))).toEqual([]);
  });

  it('lints with 0 errors under Redocly CLI recommended', () => {
    const res = run('redocly', ['lint', file, '--extends', 'recommended']);
    expect(res.out).not.toMatch(/failed with \d+ error/);
    expect(res.status, res.out).toBe(0);
  }, 120_000);

  it('lints with 0 errors under the Spectral OWASP ruleset', () => {
    const res = run('spectral', ['lint', file, '--ruleset', join(ROOT, '.spectral.yaml'), '--fail-severity', 'error', '-D']);
    expect(res.status, res.out).toBe(0);
  }, 120_000);

  it('matches the committed typed client (npm run generate:api-client rewrites it)', async () => {
    const header = '// Generated from /api/v1/docs/json by `npm run generate:api-client`. Do not edit.\n\n';
    const generated = header + astToString(await openapiTS(doc as unknown as Parameters<typeof openapiTS>[0]));
    if (process.env.UPDATE_API_CLIENT === '1') writeFileSync(CLIENT, generated);
    expect(readFileSync(CLIENT, 'utf8')).toBe(generated);
  });
});
