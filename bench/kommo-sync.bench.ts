/**
 * Contact sync speed: a full sync from the Kommo simulator at the default rate
 * cap (KOMMO_RPS 7 × 250 contacts = 1,750 contacts/s). Targets: at least 95 % of the cap,
 * zero 429s, resident memory under 300 MB for 1,000,000 contacts. Then an incremental sync
 * after 100 changes.
 *
 *   npx tsx bench/kommo-sync.bench.ts [--size 1000000] [--pglite]
 *
 * The simulator runs in a child process so the memory figure is the console's alone.
 * A full-size run takes about 10 minutes (1,000,000 / 1,750 per second).
 */
import { parseArgs } from 'node:util';
import { eq, sql } from 'drizzle-orm';
import { rowsOf } from '../server/src/db/sql';
import { forkBench, nextMessage } from './lib/child';
import { openBenchDatabase } from './lib/database';

const { values: args } = parseArgs({
  options: {
    size: { type: 'string', default: '1000000' },
    pglite: { type: 'boolean', default: false },
    'sim-child': { type: 'boolean', default: false },
  },
});
const SIZE = Number(args.size);
const RPS = 7;
const CAP = RPS * 250;

if (args['sim-child']) {
  // Child: only the simulator, reporting its URL to the parent.
  const { startKommoSim } = await import('../simulators/src/kommo/index');
  const sim = await startKommoSim({ rps: RPS, accounts: [{ subdomain: 'bench', token: 'bench-token', contacts: SIZE, seed: 9 }] });
  process.send!({ url: sim.url, baseUrlTemplate: sim.baseUrlTemplate, phoneFieldId: sim.fields('bench').phoneFieldId });
  process.on('disconnect', () => void sim.close().then(() => process.exit(0)));
} else {
  await main();
}

async function control(url: string, path: string, body?: unknown) {
  const res = await fetch(`${url}/__control${path}`, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return res.json() as Promise<Record<string, unknown> & { count429: number; count403: number; perSecondMax: number; requests: number }>;
}

async function main() {
  const child = forkBench(import.meta.filename, ['--sim-child', '--size', String(SIZE)]);
  const sim = await nextMessage<{ url: string; baseUrlTemplate: string; phoneFieldId: number }>(child, undefined, 'simulator');

  const { loadConfig } = await import('../server/src/config');
  const { createContext } = await import('../server/src/context');
  const { kommoAccounts } = await import('../server/src/db/schema/kommo');
  const { startKommoSyncRunner } = await import('../server/src/engine/kommo-sync/sync-runner');
  const { createKommoAccountsService } = await import('../server/src/services/kommo-accounts/kommo-accounts-service');

  const bench = await openBenchDatabase(args.pglite ? 'pglite' : 'postgres', 'masivo_bench_sync', { onDisk: true });
  const { database, dataDir, url } = bench;
  const config = loadConfig({
    APP_SECRET: 'bench-secret-bench-secret-bench',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    KOMMO_BASE_URL: sim.baseUrlTemplate,
    KOMMO_RPS: String(RPS),
  });
  const ctx = createContext(config, database);
  const runner = startKommoSyncRunner(ctx);
  const accounts = createKommoAccountsService(ctx);

  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 200);
  try {
    const [{ id: userId }] = await rowsOf<{ id: number }>(database.db, sql`insert into users (email, password_hash) values ('bench@example.com', 'x') returning id`);
    const account = await accounts.create(userId, { subdomain: 'bench', access_token: 'bench-token', phone_field_id: sim.phoneFieldId });

    const run = async (label: string) => {
      await control(sim.url, '/reset', {});
      const started = performance.now();
      await accounts.startSync(userId, account.id);
      let updates = 0;
      let last = -1;
      for (;;) {
        await new Promise((r) => setTimeout(r, 250));
        const [row] = await ctx.db.select().from(kommoAccounts).where(eq(kommoAccounts.id, account.id));
        if (row.syncProgressContacts !== last) {
          updates++;
          last = row.syncProgressContacts;
          if (process.stdout.isTTY && SIZE >= 50_000) process.stdout.write(`  ${label}: ${row.syncProgressContacts.toLocaleString('en')} / ${row.syncTotalContacts.toLocaleString('en')}   \r`);
        }
        if (row.syncStatus !== 'syncing') {
          const seconds = (performance.now() - started) / 1000;
          const stats = await control(sim.url, '/stats');
          if (row.syncStatus !== 'synced') throw new Error(`sync ended in ${row.syncStatus}: ${row.syncErrorMessage}`);
          return { row, seconds, stats, updates };
        }
      }
    };

    const full = await run('full sync');
    await Promise.all(Array.from({ length: 100 }, (_, i) => control(sim.url, '/contacts/update', { subdomain: 'bench', id: 1 + i * 7, patch: { name: `Cambio ${i}` } })));
    const incremental = await run('incremental sync');
    const rate = SIZE / full.seconds;
    console.log('\n');
    console.table([
      {
        sync: `full, ${SIZE.toLocaleString('en')} contacts`,
        'seconds': +full.seconds.toFixed(1),
        'contacts/s': Math.round(rate),
        '% of 1,750/s cap': +((rate / CAP) * 100).toFixed(1),
        requests: full.stats.requests,
        '429s': full.stats.count429,
        '403s': full.stats.count403,
        'max req in 1 s': full.stats.perSecondMax,
        'progress updates seen': full.updates,
        stored: full.row.syncTotalContacts,
      },
      {
        sync: 'incremental, 100 changed',
        'seconds': +incremental.seconds.toFixed(1),
        'contacts/s': '-',
        '% of 1,750/s cap': '-',
        requests: incremental.stats.requests,
        '429s': incremental.stats.count429,
        '403s': incremental.stats.count403,
        'max req in 1 s': incremental.stats.perSecondMax,
        'progress updates seen': incremental.updates,
        stored: incremental.row.syncTotalContacts,
      },
    ]);
    const rssMb = peakRss / 1024 / 1024;
    console.log(`peak resident memory of the console process: ${rssMb.toFixed(0)} MB (database: ${url ? 'PostgreSQL' : 'PGlite, in process'})`);
    const ok = rate >= 0.95 * CAP && full.stats.count429 === 0 && incremental.stats.count429 === 0 && rssMb < 300 && full.row.syncTotalContacts === SIZE;
    console.log(`targets: ≥ ${Math.round(0.95 * CAP)} contacts/s, zero 429s, RSS < 300 MB, every contact stored → ${ok ? 'all met' : 'NOT all met'}`);
  } finally {
    clearInterval(sampler);
    await runner.stop();
    await bench.close();
    child.disconnect();
  }
}
