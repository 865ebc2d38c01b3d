/**
 * The audience freeze: how long a campaign's start takes to turn its whole audience into
 * recipient rows (services/campaigns/freeze-audience.ts), every rule on (duplicates,
 * blacklist and opt-outs, recorded BSUIDs). The engine is stopped, so nothing is sent.
 *   - 1,000,000 contacts on PostgreSQL (target < 5 s);
 *   - 200,000 contacts on the embedded PGlite (target < 60 s).
 * Each size is started twice over the same contacts (two campaigns); both starts are printed and
 * the faster one is held to the target, so one pause of the machine does not decide it.
 *
 *   npm run bench -- freeze [--postgres-size 1000000] [--pglite-size 200000]
 */
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import { insertContacts } from '../server/test/helpers/campaign-fixtures';
import { addNumber, startStack, startTimed } from './lib/campaign-stack';
import { fmt, printTable } from './lib/stats';

const { values: args } = parseArgs({
  options: {
    'postgres-size': { type: 'string', default: '1000000' },
    'pglite-size': { type: 'string', default: '200000' },
  },
});
const rows: Array<[string, string, string, string]> = [];

async function freeze(kind: 'postgres' | 'pglite', size: number, targetSeconds: number) {
  const stack = await startStack(kind);
  const label = kind === 'postgres' ? 'PostgreSQL' : 'PGlite';
  try {
    const { world } = await addNumber(stack, 80, 0);
    const load = Date.now();
    for (let from = 1; from <= size; from += 250_000) {
      await insertContacts(stack.database.db, stack.userId, world.kommoAccountId, Math.min(250_000, size - from + 1), from);
    }
    // One contact in 50 shares its phone with the next one, and one in 997 is blacklisted: the
    // rules have work to do.
    await stack.database.db.execute(sql`update contacts set phone = '+54911' || lpad((kommo_id + 1)::text, 8, '0')
      where user_id = ${stack.userId} and kommo_id % 50 = 0 and kommo_id < ${size}`);
    await stack.database.db.execute(sql`insert into blacklist (user_id, account_id, phone, phone_key, reason)
      select user_id, account_id, phone, phone_key, 'bench' from contacts
      where user_id = ${stack.userId} and kommo_id % 997 = 0 on conflict do nothing`);
    await stack.database.db.execute(sql`analyze`);
    const loaded = (Date.now() - load) / 1000;
    await stack.engine.stop();
    const runs = [];
    for (const name of ['Congelar 1', 'Congelar 2']) runs.push(await startTimed(stack, world, name));
    const best = Math.min(...runs.map((r) => r.seconds));
    const first = runs[0]!.started;
    report(
      `freeze ${fmt(size)} contacts into recipients (${label})`,
      `${fmt(best, 2)} s (starts: ${runs.map((r) => fmt(r.seconds, 2)).join(' s, ')} s)`,
      `< ${targetSeconds} s`,
      best < targetSeconds && runs.every((r) => r.started.total_recipients === size),
    );
    report(`  recipients: pending / skipped`, `${fmt(first.pending_count)} / ${fmt(first.skipped_count)}`, `${fmt(size)} in all`, first.pending_count + first.skipped_count === size);
    report(`  (contacts loaded in ${fmt(loaded, 1)} s)`, '', '', null);
  } finally {
    await stack.close();
  }
}

function report(what: string, value: string, target: string, ok: boolean | null) {
  rows.push([what, value, target, ok === null ? '' : ok ? 'ok' : 'FAIL']);
}

const started = Date.now();
await freeze('postgres', Number(args['postgres-size']), 5);
await freeze('pglite', Number(args['pglite-size']), 60);
printTable(rows, ['measure', 'result', 'target', '']);
console.log(`\n(${fmt((Date.now() - started) / 1000, 0)} s, ${(await import('node:os')).cpus().length} cores)`);
process.exit(0);
