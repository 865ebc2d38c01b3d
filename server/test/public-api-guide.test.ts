import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/db/sql';
import { startEngineBed, waitFor, type EngineBed } from './helpers/engine-bed';

/**
 * docs/api-publica.md: its `bash` examples run as written, in order, in one shell, with curl
 * against a listening server and the WhatsApp simulator; the campaign they create is sent with
 * each recipient's own parameters.
 */
const GUIDE = resolve(__dirname, '../../docs/api-publica.md');
const NUMBER = { phoneNumberId: '772001', wabaId: '662001', token: 'tok-guide', rate: 50 };
let bed: EngineBed;
let key: string;
let url: string;

beforeAll(async () => {
  bed = await startEngineBed({ numbers: [NUMBER], contacts: 3 });
  const address = bed.t.app.server.address();
  url = typeof address === 'object' && address ? `http://127.0.0.1:${address.port}` : '';
  const res = await bed.t.app.inject({
    method: 'POST',
    url: '/api/api-keys',
    headers: bed.headers,
    payload: { name: 'Guía', scopes: ['campaigns:read', 'campaigns:write', 'campaigns:send', 'contacts:read', 'templates:read'] },
  });
  key = res.json().key;
});
afterAll(async () => bed?.close());

describe('the public API guide', () => {
  it('runs every bash example as written, and the campaign reaches the simulator with each recipient’s parameters', async () => {
    const blocks = [...readFileSync(GUIDE, 'utf8').matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks.length).toBeGreaterThanOrEqual(6);
    const w = bed.worlds[0]!;
    const script = ['set -euo pipefail', ...blocks.map((b, i) => `echo "### ejemplo ${i + 1}"\n${b}`), 'echo "CAMPANA=$CAMPANA_ID"'].join('\n');
    // Asynchronously: the server answering curl runs in this process.
    const run = await new Promise<{ status: number; stdout: string; stderr: string }>((done) => {
      execFile(
        'bash',
        ['-c', script],
        {
          encoding: 'utf8',
          timeout: 60_000,
          env: { ...process.env, MASIVO_URL: url, MASIVO_KEY: key, NUMERO_ID: String(w.whatsappAccountId), PLANTILLA_ID: String(w.templateId), KOMMO_ID: String(w.kommoAccountId) },
        },
        (err, stdout, stderr) => done({ status: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    const id = Number(/CAMPANA=(\d+)/.exec(run.stdout)?.[1]);
    expect(id).toBeGreaterThan(0);
    await waitFor(() => bed.campaign(id), (c) => c.status === 'completed' && c.read_count === 3, 20_000, 'guide campaign read');
    const bodies = bed.sim.messages().map((m) => JSON.stringify(m));
    for (const [name, city] of [['Ana', 'Rosario'], ['Luis', 'Córdoba'], ['Eva', 'Salta']]) {
      expect(bodies.some((b) => b.includes(name!) && b.includes(city!)), `${name} ${city}`).toBe(true);
    }
    const [entry] = await rowsOf<{ n: number }>(bed.t.ctx.db, sql`select count(*)::int as n from activity_log where actor_name = 'clave «Guía»'`);
    expect(Number(entry!.n)).toBeGreaterThanOrEqual(3);
  }, 90_000);
});
