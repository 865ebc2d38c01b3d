import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * SIGTERM on a real process (main.ts through tsx): a request still arriving finishes, an idle
 * keep-alive connection does not hold the process up, leases are given back, and the process
 * is gone within 10 s. On PostgreSQL (TEST_DATABASE_URL) it runs against a database of its own.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const dataDir = mkdtempSync(join(tmpdir(), 'masivo-shutdown-'));
const pgUrl = process.env.TEST_DATABASE_URL;
const dbName = `shutdown_${process.pid}_${Date.now().toString(36)}`;
let admin: pg.Client | undefined;
let child: ChildProcess | undefined;

afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
  if (admin) {
    await admin.query(`drop database if exists ${dbName} with (force)`);
    await admin.end();
  }
});

async function databaseUrl(): Promise<string | undefined> {
  if (!pgUrl) return undefined;
  admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  await admin.query(`create database ${dbName}`);
  const url = new URL(pgUrl);
  url.pathname = `/${dbName}`;
  const db = new pg.Client({ connectionString: url.toString() });
  await db.connect();
  await db.query('create extension if not exists pg_trgm');
  await db.end();
  return url.toString();
}

function startServer(env: Record<string, string>): Promise<{ proc: ChildProcess; url: string }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], {
    cwd: root,
    env: { PATH: process.env.PATH, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 60_000);
    const read = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /Consola disponible en (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ proc, url: m[1] });
      }
    };
    proc.stdout!.on('data', read);
    proc.stderr!.on('data', read);
    proc.once('exit', (code) => reject(new Error(`server exited (${code}): ${out}`)));
  });
}

const bodyOf = (res: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let b = '';
    res.on('data', (c) => (b += c));
    res.on('end', () => resolve(b));
  });

describe('graceful shutdown', () => {
  it('finishes the request in flight, drops idle keep-alive connections, releases leases and exits within 10 s', async () => {
    const DATABASE_URL = await databaseUrl();
    const { proc, url } = await startServer({
      APP_SECRET: 'shutdown-test-secret-0123456789',
      ...(DATABASE_URL ? { DATABASE_URL } : {}),
    });
    child = proc;
    const exited = new Promise<{ code: number | null; at: number }>((resolve) => proc.once('exit', (code) => resolve({ code, at: Date.now() })));

    // A finished request on a keep-alive connection, left open.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const first = await new Promise<IncomingMessage>((resolve, reject) =>
      request(`${url}/api/health`, { agent }, resolve).on('error', reject).end(),
    );
    expect(first.statusCode).toBe(200);
    await bodyOf(first);

    // A request in flight on that same connection: its body is still arriving when SIGTERM
    // comes. Once answered, the connection is idle again and must not hold the process up.
    const body = JSON.stringify({ email: 'nadie@example.com', password: 'secreto123' });
    const slow = request(`${url}/api/auth/login`, {
      agent,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    const slowAnswer = new Promise<IncomingMessage>((resolve, reject) => slow.on('response', resolve).on('error', reject));
    slow.write(body.slice(0, 10));
    await new Promise((r) => setTimeout(r, 200));

    const sentAt = Date.now();
    proc.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 1_000));
    slow.end(body.slice(10));

    const answer = await slowAnswer;
    expect(answer.statusCode).toBe(401); // answered in full, not cut off
    expect(JSON.parse(await bodyOf(answer)).error).toBeTruthy();

    const { code, at } = await exited;
    expect(code).toBe(0);
    expect(at - sentAt).toBeLessThan(10_000);
    agent.destroy();

    if (DATABASE_URL) {
      // Nothing this process held may outlive it by more than the handover window.
      const db = new pg.Client({ connectionString: DATABASE_URL });
      await db.connect();
      const { rows } = await db.query(
        `select count(*)::int as n from sender_leases where expires_at > now() + interval '2 seconds'`,
      );
      const { rows: syncRows } = await db.query(`select count(*)::int as n from kommo_accounts where sync_lease_owner is not null`);
      await db.end();
      expect(rows[0].n).toBe(0);
      expect(syncRows[0].n).toBe(0);
    }
  }, 90_000);
});
