/**
 * The short benches CI runs. Each figure of the product (how fast the sender goes when its numbers
 * allow more than the machine gives it, how fast an audience freezes) is divided by a reference workload timed in the same run,
 * on the same database engine: statements and hashing of the same kind as the sender's, but none
 * of the product's code. A slower machine slows both and leaves the ratio where it was; a slower
 * product lowers it. The test fails when a ratio falls more than 20 % below the one committed in
 * ratios.json beside this file.
 *
 *   npm run bench:short                       (as CI runs it)
 *   RATIOS_WRITE=1 npm run bench:short        (measures and rewrites ratios.json)
 *
 * The reference is the best of four rounds after a warm-up, and the ratio the better of two
 * (reference, figure) pairs run one after the other: one noisy second on a shared machine should
 * not decide it.
 */
import { createHmac } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonParam } from '../../server/src/db/sql';
import { insertContacts } from '../../server/test/helpers/campaign-fixtures';
import { addNumber, launch, rateOf, startStack, startTimed, waitCompleted } from '../lib/campaign-stack';
import { openBenchDatabase } from '../lib/database';

type Kind = 'pglite' | 'postgres';
const FILE = join(import.meta.dirname, 'ratios.json');
const TOLERANCE = 0.2;
const committed = JSON.parse(readFileSync(FILE, 'utf8')) as Record<string, number>;
const measured: Record<string, { figure: number; reference: number; ratio: number }> = {};

/**
 * Rows per second through a fixed mix: batches of 200 rows inserted into a table with five
 * indexes, each row then updated three times (an indexed column changes, as a recipient's
 * status does), one transaction per batch; and per row an HMAC and a JSON round trip.
 */
async function reference(kind: Kind): Promise<number> {
  const bench = await openBenchDatabase(kind, 'bench_reference', { migrate: false });
  const db = bench.database.db;
  try {
    await db.execute(sql`create table ref_rows (id bigint primary key, grp int not null, k text not null,
      state text not null, at timestamptz, note text)`);
    await db.execute(sql`create unique index on ref_rows (grp, k)`);
    await db.execute(sql`create index on ref_rows (grp, state, id)`);
    await db.execute(sql`create index on ref_rows (at) where at is not null`);
    await db.execute(sql`create index on ref_rows (k, at) where state <> 'new'`);
    const rows = 4_000;
    const body = JSON.stringify({ to: '5491100000000', template: { name: 'promo', components: [{ type: 'body', parameters: Array(8).fill({ type: 'text', text: 'Hola mundo' }) }] } });
    let best = 0;
    // Round 0 warms up (caches, the engine's compiled code) and does not count.
    for (let round = 0; round < 5; round++) {
      await db.execute(sql`truncate ref_rows`);
      const started = performance.now();
      for (let from = 0; from < rows; from += 200) {
        const batch = Array.from({ length: 200 }, (_, i) => ({ id: from + i, grp: round, k: `k${from + i}` }));
        let digest = '';
        for (const row of batch) digest = createHmac('sha256', 'reference').update(JSON.stringify(JSON.parse(body)) + row.k).digest('hex');
        await db.transaction(async (tx) => {
          await tx.execute(sql`insert into ref_rows (id, grp, k, state, note)
            select id, grp, k, 'new', ${digest} from jsonb_to_recordset(${jsonParam(batch)}) as v(id bigint, grp int, k text)`);
        });
        for (const state of ['sent', 'delivered', 'read']) {
          await db.transaction(async (tx) => {
            await tx.execute(sql`update ref_rows r set state = ${state}, at = now()
              from jsonb_to_recordset(${jsonParam(batch)}) as v(id bigint) where r.id = v.id`);
          });
        }
      }
      if (round > 0) best = Math.max(best, rows / ((performance.now() - started) / 1000));
    }
    return best;
  } finally {
    await bench.close();
  }
}

/** Messages per second the sender reaches when its numbers' rates (1,000 msg/s each) are above what it can do. */
async function sender(kind: Kind, numbers: number, perNumber: number): Promise<number> {
  const stack = await startStack(kind);
  try {
    const made = [];
    for (let i = 0; i < numbers; i++) made.push(await addNumber(stack, 1_000, perNumber));
    const campaigns = [];
    for (const m of made) campaigns.push(await launch(stack, m.world));
    await waitCompleted(stack, campaigns.map((c) => c.id), 120_000);
    const times = (await Promise.all(made.map((m) => stack.sim.timestamps(m.phoneNumberId)))).flat().sort((a, b) => a - b);
    expect(times.length).toBe(numbers * perNumber);
    return rateOf(times);
  } finally {
    await stack.close();
  }
}

/**
 * Recipients per second a campaign's start freezes: the fastest of three campaigns started one
 * after another over the same contacts (the engine is stopped, so none of them sends). A freeze
 * lasts about a second, and one pause of the embedded engine's garbage collector inside it moved
 * a single measurement by half.
 */
async function freeze(kind: Kind, size: number): Promise<number> {
  const stack = await startStack(kind);
  try {
    const { world } = await addNumber(stack, 80, 0);
    await insertContacts(stack.database.db, stack.userId, world.kommoAccountId, size, 1);
    await stack.engine.stop();
    let best = Infinity;
    for (let i = 0; i < 3; i++) {
      const { started, seconds } = await startTimed(stack, world, `Congelar ${i + 1}`);
      expect(started.total_recipients).toBe(size);
      best = Math.min(best, seconds);
    }
    return size / best;
  } finally {
    await stack.close();
  }
}

/**
 * The reference and the figure, twice, interleaved (the machine's speed drifts over a minute):
 * the ratio of each pair, and the better of the two pairs.
 */
async function check(name: string, kind: Kind, figure: () => Promise<number>) {
  let best = { figure: 0, reference: 0, ratio: 0 };
  for (let pair = 0; pair < 2; pair++) {
    const ref = await reference(kind);
    const value = await figure();
    if (value / ref > best.ratio) best = { figure: value, reference: ref, ratio: value / ref };
  }
  const { figure: value, reference: ref, ratio } = best;
  measured[name] = { figure: Math.round(value), reference: Math.round(ref), ratio: +ratio.toFixed(4) };
  console.log(`${name}: ${Math.round(value)} per s against a reference of ${Math.round(ref)} rows/s: ratio ${ratio.toFixed(3)}, committed ${committed[name] ?? '—'}`);
  if (process.env.RATIOS_WRITE) return;
  expect(committed[name], `no committed ratio for ${name}`).toBeTypeOf('number');
  expect(ratio, `${name} fell more than ${TOLERANCE * 100} % below its committed ratio`).toBeGreaterThanOrEqual(committed[name] * (1 - TOLERANCE));
}

describe('short benches, as ratios to a reference workload', () => {
  it('the sender on the embedded database, two numbers at 1,000 msg/s each (more than it can)', async () => {
    await check('sender_pglite', 'pglite', () => sender('pglite', 2, 2_500));
  });
  it('the sender on PostgreSQL, four numbers at 1,000 msg/s each (more than the machine gives it)', async () => {
    await check('sender_postgres', 'postgres', () => sender('postgres', 4, 2_500));
  });
  it('freezing 40,000 recipients on the embedded database', async () => {
    await check('freeze_pglite', 'pglite', () => freeze('pglite', 40_000));
  });
  it('freezing 100,000 recipients on PostgreSQL', async () => {
    await check('freeze_postgres', 'postgres', () => freeze('postgres', 100_000));
  });
});

afterAll(() => {
  if (!process.env.RATIOS_WRITE) return;
  const out = Object.fromEntries(Object.entries(measured).map(([k, v]) => [k, v.ratio]));
  writeFileSync(FILE, `${JSON.stringify({ ...committed, ...out }, null, 2)}\n`);
});
