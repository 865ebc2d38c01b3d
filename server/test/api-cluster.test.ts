import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config';

/**
 * ROLE=api with API_PROCESSES=2 on a real process tree (main.ts through tsx, Node's cluster):
 * both processes answer on one port, /metrics sums them, a killed process comes back, SIGTERM
 * stops everything. PostgreSQL only (TEST_DATABASE_URL): the embedded database is one process.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const pgUrl = process.env.TEST_DATABASE_URL;
const dataDir = mkdtempSync(join(tmpdir(), 'masivo-cluster-'));
const dbName = `cluster_${process.pid}_${Date.now().toString(36)}`;
let admin: pg.Client | undefined;
let primary: ChildProcess | undefined;

afterAll(async () => {
  if (primary && primary.exitCode === null) primary.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
  if (admin) {
    await admin.query(`drop database if exists ${dbName} with (force)`);
    await admin.end();
  }
});

describe('API_PROCESSES refusals', () => {
  const base = { APP_SECRET: 'cluster-test-secret-0123456789', DATA_DIR: dataDir };
  it('takes 1 to 64 processes, in Spanish otherwise', () => {
    expect(loadConfig({ ...base }).API_PROCESSES).toBe(1);
    expect(loadConfig({ ...base, ROLE: 'api', API_PROCESSES: '4', DATABASE_URL: 'postgres://x@127.0.0.1/db' }).API_PROCESSES).toBe(4);
    for (const bad of ['0', '65', '1.5', 'dos']) {
      expect(() => loadConfig({ ...base, ROLE: 'api', API_PROCESSES: bad, DATABASE_URL: 'postgres://x@127.0.0.1/db' })).toThrow(
        /API_PROCESSES: un número entero de procesos entre 1 y 64/,
      );
    }
  });
  it('refuses more than one process outside ROLE=api or without PostgreSQL', () => {
    const url = { DATABASE_URL: 'postgres://x@127.0.0.1/db' };
    expect(() => loadConfig({ ...base, ...url, API_PROCESSES: '2' })).toThrow(/solo con ROLE=api .*ROLE=all/);
    expect(() => loadConfig({ ...base, ...url, ROLE: 'worker', API_PROCESSES: '2' })).toThrow(/solo con ROLE=api .*ROLE=worker/);
    expect(() => loadConfig({ ...base, ROLE: 'api', API_PROCESSES: '2' })).toThrow(/necesita DATABASE_URL/);
    // One process stays as it was with every role.
    expect(loadConfig({ ...base, ...url, ROLE: 'worker', API_PROCESSES: '1' }).API_PROCESSES).toBe(1);
  });
});

/** GET requests on fresh connections (no keep-alive), so the primary hands each to a process. */
async function get(url: string): Promise<{ status: number; text: string }> {
  const res = await fetch(url, { headers: { connection: 'close' } });
  return { status: res.status, text: await res.text() };
}

/** The cluster's count of answered health checks, from /metrics. */
function healthCount(metrics: string): number {
  let n = 0;
  for (const m of metrics.matchAll(/^masivo_http_request_duration_seconds_count\{[^}]*route="\/api\/health\/?"[^}]*status_code="200"[^}]*\} (\d+)/gm)) n += Number(m[1]);
  return n;
}

describe.skipIf(!pgUrl)('ROLE=api with API_PROCESSES=2', () => {
  it('serves from both processes, sums their metrics, restarts a killed one and stops on SIGTERM', async () => {
    admin = new pg.Client({ connectionString: pgUrl });
    await admin.connect();
    await admin.query(`create database ${dbName}`);
    const url = new URL(pgUrl!);
    url.pathname = `/${dbName}`;
    const db = new pg.Client({ connectionString: url.toString() });
    await db.connect();
    await db.query('create extension if not exists pg_trgm');
    await db.end();

    const proc = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        ROLE: 'api',
        API_PROCESSES: '2',
        DATABASE_URL: url.toString(),
        APP_SECRET: 'cluster-test-secret-0123456789',
        WHATSAPP_APP_SECRET: 'cluster-test-whatsapp',
        PORT: '0',
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        LOG_LEVEL: 'silent',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    primary = proc;
    let out = '';
    proc.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    proc.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<{ code: number | null; at: number }>((resolve) => proc.once('exit', (code) => resolve({ code, at: Date.now() })));
    const waitFor = async (re: RegExp, what: string) => {
      const until = Date.now() + 60_000;
      while (!re.test(out)) {
        if (proc.exitCode !== null || Date.now() > until) throw new Error(`${what}: ${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return re.exec(out)!;
    };
    const base = (await waitFor(/Consola disponible en (http:\/\/\S+)/, 'the cluster did not start'))[1];
    const pids = [...out.matchAll(/Proceso de API \d\/2 escuchando \(pid (\d+)\)/g)].map((m) => Number(m[1]));
    expect(new Set(pids).size).toBe(2);
    expect(pids).not.toContain(proc.pid);

    // Twenty health checks spread over the two processes; the scrape, wherever it lands, counts all.
    const N = 20;
    for (let i = 0; i < N; i++) expect((await get(`${base}/api/health`)).status).toBe(200);
    const before = await get(`${base}/metrics`);
    expect(before.status).toBe(200);
    expect(healthCount(before.text)).toBe(N);
    // Figures read from the database are one reading, not one per process.
    expect(before.text).toMatch(/^masivo_database_up 1$/m);

    // One process killed: the primary starts another, and the port keeps answering meanwhile.
    const [victim, survivor] = pids;
    process.kill(victim, 'SIGKILL');
    await waitFor(new RegExp(`pid ${victim}\\) terminó inesperadamente \\(SIGKILL\\); se reinicia`), 'the death was not logged');
    const restarted = Number((await waitFor(new RegExp(`escuchando \\(pid (?!${victim}\\b|${survivor}\\b)(\\d+)\\)`), 'no restart'))[1]);
    for (let i = 0; i < 5; i++) expect((await get(`${base}/api/health`)).status).toBe(200);
    expect([victim, survivor]).not.toContain(restarted);
    expect(() => process.kill(survivor, 0)).not.toThrow();

    // The killed process's count went with it: what is left is the survivor's share (plus the
    // five checks after the kill, all answered by the survivor or the new process). Both shares
    // were above zero, so both processes had answered.
    const after = await get(`${base}/metrics`);
    expect(after.status).toBe(200);
    const left = healthCount(after.text) - 5;
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThan(N);

    // SIGTERM to the primary: every process stops, exit 0 within 10 s.
    const sentAt = Date.now();
    proc.kill('SIGTERM');
    const { code, at } = await exited;
    expect(code).toBe(0);
    expect(at - sentAt).toBeLessThan(10_000);
    for (const pid of [survivor, restarted]) expect(() => process.kill(pid, 0)).toThrow();
  }, 120_000);
});
