/**
 * The re-check of the stored phones after a new default country: how long it takes, how long one
 * batch holds its locks, and how long a read of the same account waits meanwhile (the app stays
 * usable), on PostgreSQL and on the embedded PGlite.
 *
 *   npx tsx bench/phone-recheck.bench.ts [--pg-size 1000000] [--pglite-size 100000] [--skip-pg] [--skip-pglite]
 *
 * Contacts: half typed as Colombian national numbers ("31x xxx xxxx", invalid while the account
 * is Argentine), a quarter Argentine international, a quarter without a phone. The account then
 * switches to CO: every national number becomes valid.
 */
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import type { Database } from '../server/src/db/client';
import { rowsOf } from '../server/src/db/sql';
import { runPhoneRecheck } from '../server/src/engine/kommo-sync/phone-recheck';
import { kommoAccounts } from '../server/src/db/schema/kommo';
import { queueRecheckSet } from '../server/src/services/kommo-accounts/phone-recheck-state';
import { eq } from 'drizzle-orm';
import { openBenchDatabase } from './lib/database';
import { percentile } from './lib/stats';

const { values: args } = parseArgs({
  options: {
    'pg-size': { type: 'string', default: '1000000' },
    'pglite-size': { type: 'string', default: '100000' },
    'skip-pg': { type: 'boolean', default: false },
    'skip-pglite': { type: 'boolean', default: false },
  },
});

async function seed(database: Database, size: number): Promise<number> {
  const { db } = database;
  const [user] = await rowsOf<{ id: number }>(db, sql`insert into users (email, password_hash, first_name, last_name)
    values ('bench@masivo.local', 'x', 'B', 'B') returning id`);
  const [account] = await rowsOf<{ id: number }>(db, sql`insert into kommo_accounts (user_id, subdomain, access_token_enc, phone_field_id, country)
    values (${user.id}, 'bench', 'x', 1, 'AR') returning id`);
  const chunk = 100_000;
  for (let from = 1; from <= size; from += chunk) {
    const to = Math.min(size, from + chunk - 1);
    await db.execute(sql`insert into contacts (user_id, account_id, kommo_id, name, phone, phone_raw, tags)
      select ${user.id}, ${account.id}, i, 'Cliente ' || i,
        case when i % 4 = 1 then '+54911' || lpad(i::text, 8, '0') end,
        case when i % 2 = 0 then '31' || (i % 10)::text || ' ' || lpad((i % 10000000)::text, 7, '0')
             when i % 4 = 1 then '+54 9 11 ' || lpad(i::text, 8, '0') end,
        array['general']
      from generate_series(${from}::int, ${to}::int) as i`);
  }
  return Number(account.id);
}

async function run(label: string, database: Database, size: number) {
  const { db } = database;
  let t0 = performance.now();
  const accountId = await seed(database, size);
  const seedMs = performance.now() - t0;
  await db.execute(sql`analyze`);
  const invalid = async () =>
    Number((await rowsOf<{ n: number }>(db, sql`select count(*)::int as n from contacts where account_id = ${accountId} and phone_key is null`))[0].n);
  const before = await invalid();
  await db.update(kommoAccounts).set({ ...queueRecheckSet('CO'), defaultCountry: 'CO', syncLeaseOwner: 'bench' }).where(eq(kommoAccounts.id, accountId));
  const [account] = await db.select().from(kommoAccounts).where(eq(kommoAccounts.id, accountId));

  // A read the account card and the pre-flight make, every 20 ms while the re-check runs.
  let probing = true;
  const waits: number[] = [];
  const probe = (async () => {
    while (probing) {
      const s = performance.now();
      await rowsOf(db, sql`select people, contacts from contact_people_prefixes where account_id = ${accountId} and prefix = '5731'`);
      waits.push(performance.now() - s);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  t0 = performance.now();
  await runPhoneRecheck({ db, owner: 'bench', leaseMs: 60_000 }, account, new AbortController().signal);
  const recheckMs = performance.now() - t0;
  probing = false;
  await probe;
  const after = await invalid();
  const [done] = await db.select({ r: kommoAccounts.phoneRecheck }).from(kommoAccounts).where(eq(kommoAccounts.id, accountId));
  const p = (q: number) => percentile(waits, q).toFixed(1);
  const worst = waits.reduce((a, b) => Math.max(a, b), 0);
  console.log(
    `| ${label} | ${size.toLocaleString('en')} | ${(seedMs / 1000).toFixed(1)} s | ${(recheckMs / 1000).toFixed(1)} s | ` +
      `${((recheckMs / size) * 1000).toFixed(0)} µs | ${p(0.5)} / ${p(0.99)} / ${worst.toFixed(1)} ms | ${before} → ${after} | ${JSON.stringify(done.r)} |`,
  );
}

console.log('| database | contacts | seed | re-check | per contact | concurrent read p50 / p99 / max | without valid phone | result |');
console.log('|---|---|---|---|---|---|---|---|');
if (!args['skip-pg']) {
  const bench = await openBenchDatabase('postgres', 'masivo_bench_recheck');
  try {
    await run('PostgreSQL', bench.database, Number(args['pg-size']));
  } finally {
    await bench.close();
  }
}
if (!args['skip-pglite']) {
  const bench = await openBenchDatabase('pglite', 'masivo-bench-recheck');
  try {
    await run('PGlite', bench.database, Number(args['pglite-size']));
  } finally {
    await bench.close();
  }
}
