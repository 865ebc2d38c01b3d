/**
 * Write-back to Kommo: the results of a 100,000-recipient campaign written to the
 * Kommo simulator at the default cap (KOMMO_RPS 7): a note per contact (250 per request), the
 * reply and opt-out tags, and repliers' open leads moved to a stage. Targets: at least 95 % of
 * the cap in requests per second while writing, zero 429s, every contact written once.
 *
 *   npx tsx bench/kommo-writeback.bench.ts [--size 100000] [--pglite]
 *
 * The simulator runs in a child process. About 600 requests: some 90 s at 7 per second.
 */
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import { rowsOf } from '../server/src/db/sql';
import { forkBench, nextMessage } from './lib/child';
import { openBenchDatabase } from './lib/database';

const { values: args } = parseArgs({
  options: {
    size: { type: 'string', default: '100000' },
    pglite: { type: 'boolean', default: false },
    'sim-child': { type: 'boolean', default: false },
  },
});
const SIZE = Number(args.size);
const RPS = 7;

if (args['sim-child']) {
  const { startKommoSim } = await import('../simulators/src/kommo/index');
  const sim = await startKommoSim({ rps: RPS, accounts: [{ subdomain: 'bench', token: 'bench-token', contacts: SIZE, seed: 9 }] });
  process.send!({ url: sim.url, baseUrlTemplate: sim.baseUrlTemplate });
  process.on('disconnect', () => void sim.close().then(() => process.exit(0)));
} else {
  await main();
}

type Stats = { count429: number; count403: number; perSecondMax: number; requests: number; by_status: Record<string, number> };

async function control<T>(url: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${url}/__control${path}`, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return res.json() as Promise<T>;
}

async function main() {
  const child = forkBench(import.meta.filename, ['--sim-child', '--size', String(SIZE)]);
  const sim = await nextMessage<{ url: string; baseUrlTemplate: string }>(child, undefined, 'simulator');

  const { loadConfig } = await import('../server/src/config');
  const { createContext } = await import('../server/src/context');
  const { startKommoWritebackRunner } = await import('../server/src/engine/kommo-writeback/writeback-runner');
  const { createKommoClient } = await import('../server/src/integrations/kommo/client');
  const { createKommoWriteApi } = await import('../server/src/integrations/kommo/write-api');

  const bench = await openBenchDatabase(args.pglite ? 'pglite' : 'postgres', 'masivo_bench_wb', { onDisk: true });
  const { database, dataDir, url } = bench;
  const config = loadConfig({ APP_SECRET: 'bench-secret-bench-secret-bench', DATA_DIR: dataDir, LOG_LEVEL: 'silent', KOMMO_BASE_URL: sim.baseUrlTemplate, KOMMO_RPS: String(RPS) });
  const ctx = createContext(config, database);
  const db = ctx.db;
  let runner: { stop(): Promise<void> } | undefined;
  try {
    // Pipelines as the settings screen reads them (these requests happen before the measured run).
    const [main] = await ctx.kommo.interactiveWrite.pipelines({ subdomain: 'bench', accessToken: 'bench-token' });
    const stage = main.statuses.find((s) => s.name === 'Respondió campaña')!;
    const [{ id: userId }] = await rowsOf<{ id: number }>(db, sql`insert into users (email, password_hash) values ('bench@example.com', 'x') returning id`);
    const [{ id: accountId }] = await rowsOf<{ id: number }>(db, sql`
      insert into kommo_accounts (user_id, subdomain, access_token_enc, phone_field_id, country, writeback_enabled, writeback_enabled_at,
                                  writeback_opt_out_tag, writeback_reply_tag, writeback_pipeline_id, writeback_status_id)
      values (${userId}, 'bench', ${ctx.secrets.seal('bench-token')}, 1, 'AR', true, now() - interval '1 hour',
              'Baja WhatsApp', 'Respondió WhatsApp', ${main.id}, ${stage.id}) returning id`);
    await db.execute(sql`insert into contacts (user_id, account_id, kommo_id, name, phone, phone_raw)
      select ${userId}, ${accountId}, i, 'Cliente ' || i, '+54911' || lpad(i::text, 8, '0'), '11 ' || lpad(i::text, 8, '0')
      from generate_series(1, ${SIZE}::int) as i`);
    const [{ id: campaignId }] = await rowsOf<{ id: number }>(db, sql`
      insert into campaigns (user_id, name, status, kommo_account_id, filters, total_recipients)
      values (${userId}, 'Bench', 'sending', ${accountId}, '{}'::jsonb, ${SIZE}) returning id`);
    // Outcomes: 5 % replied, 1 in 10 failed, the rest delivered or read; 1 % opted out.
    await db.execute(sql`insert into campaign_recipients (campaign_id, user_id, contact_id, phone, phone_key, status, error_message, replied_at, sent_at)
      select ${campaignId}, ${userId}, c.id, c.phone, c.phone_key,
             case when c.kommo_id % 10 = 0 then 'failed' when c.kommo_id % 2 = 0 then 'read' else 'delivered' end,
             case when c.kommo_id % 10 = 0 then 'Número inválido' end,
             case when c.kommo_id % 20 = 1 then now() end, now()
      from contacts c where c.account_id = ${accountId}`);
    await db.execute(sql`insert into opt_outs (user_id, phone_key, phone, word)
      select ${userId}, phone_key, phone, 'BAJA' from contacts where account_id = ${accountId} and kommo_id % 100 = 3`);

    await control(sim.url, '/reset', {});
    await db.execute(sql`update campaigns set status = 'completed', completed_at = now() where id = ${campaignId}`);
    const started = performance.now();
    // The worker's own client (the one the console builds for write-back), counting calls by kind.
    const client = createKommoClient({ baseUrlTemplate: sim.baseUrlTemplate, rps: RPS });
    const byCall: Record<string, number> = {};
    const api = createKommoWriteApi({
      call: (creds, path, o) => {
        const key = `${o.method ?? 'GET'} ${path}`;
        byCall[key] = (byCall[key] ?? 0) + 1;
        return client.call(creds, path, o);
      },
    });
    runner = startKommoWritebackRunner(ctx, { pollMs: 200, api });
    let firstRequestAt = 0;
    let lastDone = -1;
    for (;;) {
      await new Promise((r) => setTimeout(r, 100));
      if (!firstRequestAt && (await control<Stats>(sim.url, '/stats')).requests > 0) firstRequestAt = performance.now();
      const [p] = await rowsOf<{ pending: number; done: number; failed: number; total: number }>(db, sql`
        select count(*) filter (where stage not in ('done', 'failed'))::int pending, count(*) filter (where kind = 'result' and stage = 'done')::int done,
               count(*) filter (where stage = 'failed')::int failed, count(*) filter (where kind = 'result')::int total
        from kommo_writeback_items where campaign_id = ${campaignId}`);
      if (process.stdout.isTTY && p.done !== lastDone) process.stdout.write(`  written: ${p.done.toLocaleString('en')} / ${p.total.toLocaleString('en')}   \r`);
      lastDone = p.done;
      if (p.total > 0 && p.pending === 0) {
        const finished = performance.now();
        const stats = await control<Stats>(sim.url, '/stats');
        const writing = (finished - firstRequestAt) / 1000;
        const total = (finished - started) / 1000;
        // The first window's requests leave at once (nothing to wait for): counted out, so the
        // figure is the steady rate the limiter holds, never flattered by the opening burst.
        const rate = (stats.requests - RPS) / writing;
        const allIn = stats.requests / total;
        const [check] = await rowsOf<{ notes: number; distinct_notes: number }>(db, sql`
          select count(note_id)::int notes, count(distinct note_id)::int distinct_notes from kommo_writeback_items where campaign_id = ${campaignId}`);
        const simNotes = (await control<{ notes: unknown[] }>(sim.url, '/notes?subdomain=bench')).notes.length;
        console.log('\n');
        console.table([
          {
            'write-back': `${SIZE.toLocaleString('en')} results`,
            'seconds writing': +writing.toFixed(1),
            'seconds in all (queue + write)': +total.toFixed(1),
            requests: stats.requests,
            'requests/s': +rate.toFixed(2),
            '% of 7/s cap (target ≥ 95)': +((rate / RPS) * 100).toFixed(1),
            '% of cap, queueing included': +((allIn / RPS) * 100).toFixed(1),
            '429s (target 0)': stats.count429,
            '403s': stats.count403,
            'max req in 1 s (≤ 7)': stats.perSecondMax,
            'results/s': Math.round(SIZE / writing),
          },
        ]);
        console.log('calls made:', Object.entries(byCall).map(([k, n]) => `${k} × ${n}`).join(', '));
        console.log(`contacts written: ${p.done.toLocaleString('en')} / ${p.total.toLocaleString('en')}, failed ${p.failed}; notes in Kommo ${simNotes.toLocaleString('en')} (one per contact: ${simNotes === p.total && check.distinct_notes === check.notes ? 'yes' : 'NO'}) (database: ${url ? 'PostgreSQL' : 'PGlite, in process'})`);
        const ok = rate >= 0.95 * RPS && stats.count429 === 0 && p.done === SIZE && simNotes === SIZE;
        console.log(`targets: ≥ ${(0.95 * RPS).toFixed(2)} requests/s (95 % of ${RPS}), zero 429s, every contact written once → ${ok ? 'all met' : 'NOT all met'}`);
        if (!ok) process.exitCode = 1;
        break;
      }
    }
  } finally {
    await runner?.stop();
    await bench.close();
    child.disconnect();
  }
}
