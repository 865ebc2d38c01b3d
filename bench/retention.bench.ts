/**
 * Retention on PostgreSQL, or PGlite with --db pglite (engine/data-retention.ts): tables of `--rows` Meta events and inbound
 * messages written in time order over 180 and 800 days (so about half past their window; a third
 * of the messages answer a campaign still sending, kept, spread among the others), a tenth as many webhook inbox rows (half given up long ago, half waiting) and
 * 100 finished write-backs of 1,000 items, then one run of the daily job in batches of 5,000
 * while another connection keeps inserting webhook rows and inbound messages, as the inbox does.
 * Printed: the time to build 0045's index, each kind's rows deleted, statements, slowest
 * statement and rate, and the concurrent inserts' latency during the run.
 *
 *   npx tsx bench/retention.bench.ts [--rows 1000000] [--db postgres|pglite]
 *
 * Target: no statement over 1 s (the statement timeout is 10 s), and the inserts beside the run
 * never wait for it (no lock is shared: their slowest stays under the run's slowest statement).
 */
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import { loadConfig } from '../server/src/config';
import { createContext } from '../server/src/context';
import { openDatabase } from '../server/src/db/client';
import { rowsOf } from '../server/src/db/sql';
import { RETENTION_KINDS, retentionWindows, sweepRetention, type RetentionKind } from '../server/src/engine/data-retention';
import { insertWhatsAppAccount } from '../server/test/helpers/campaign-fixtures';
import { openBenchDatabase } from './lib/database';
import { fmt, percentile, printTable } from './lib/stats';

const { values: args } = parseArgs({ options: { rows: { type: 'string', default: '1000000' }, db: { type: 'string', default: 'postgres' } } });
const N = Number(args.rows);
const kind = args.db === 'pglite' ? 'pglite' : 'postgres';
const ORGS = 20;

const bench = await openBenchDatabase(kind, 'bench_retention', { poolSize: 4 });
const { database } = bench;
try {
  const ctx = createContext(loadConfig({ APP_SECRET: 'bench-app-secret-bench-app-secret', DATA_DIR: '/tmp/masivo-bench', LOG_LEVEL: 'silent' }), database);
  const { db } = database;
  const orgs: number[] = [];
  const accounts: number[] = [];
  const completed: number[] = [];
  const sending: number[] = [];
  for (let o = 0; o < ORGS; o++) {
    const [u] = await rowsOf<{ id: number }>(db, sql`insert into users (email, password_hash) values (${`bench${o}@example.com`}, 'x') returning id`);
    const id = Number(u!.id);
    await db.execute(sql`insert into organizations (id, name) values (${id}, ${`Org ${o}`})`);
    orgs.push(id);
    accounts.push(await insertWhatsAppAccount(db, ctx.secrets, id, { phoneNumberId: String(700000 + o), wabaId: String(800000 + o), token: 't' }));
    for (const [status, list] of [['completed', completed], ['sending', sending]] as const) {
      const [c] = await rowsOf<{ id: number }>(db, sql`insert into campaigns (user_id, name, status, filters, whatsapp_account_id)
        values (${id}, ${status}, ${status}, '{}'::jsonb, ${accounts[o]}) returning id`);
      list.push(Number(c!.id));
    }
  }
  const arr = (xs: number[]) => sql.raw(`array[${xs.join(',')}]::int[]`);
  const seedStarted = performance.now();
  await db.execute(sql`insert into meta_events (waba_id, field, value, received_at)
    select '800000', 'account_update', '{"event":"x"}'::jsonb, now() - make_interval(secs => (${N} - i) * (180.0 * 86400 / ${N}))
    from generate_series(1, ${N}) i`);
  await db.execute(sql`insert into inbound_messages (user_id, whatsapp_account_id, wamid, from_phone_key, type, body, sent_at, campaign_id, recipient_id)
    select (${arr(orgs)})[1 + i % ${ORGS}], (${arr(accounts)})[1 + i % ${ORGS}], 'wamid.' || i, '54911' || lpad((i % 100000)::text, 8, '0'), 'text', 'Hola',
           now() - make_interval(secs => (${N} - i) * (800.0 * 86400 / ${N})),
           case i % 3 when 0 then (${arr(completed)})[1 + i % ${ORGS}] when 1 then (${arr(sending)})[1 + i % ${ORGS}] end,
           case when i % 3 < 2 then i end
    from generate_series(1, ${N}) i`);
  await db.execute(sql`insert into webhook_events (payload, received_at, process_after, attempts)
    select '{"object":"whatsapp_business_account"}'::jsonb, now() - make_interval(days => 30),
           case when i % 2 = 0 then 'infinity'::timestamptz else now() + interval '1 day' end, case when i % 2 = 0 then 8 else 0 end
    from generate_series(1, ${Math.round(N / 10)}) i`);
  const [k] = await rowsOf<{ id: number }>(db, sql`insert into kommo_accounts (user_id, subdomain, access_token_enc, phone_field_id, country)
    values (${orgs[0]!}, 'bench', ${ctx.secrets.seal('t')}, 1, 'AR') returning id`);
  for (let w = 0; w < 100; w++) {
    const [c] = await rowsOf<{ id: number }>(db, sql`insert into campaigns (user_id, name, status, filters, kommo_account_id)
      values (${orgs[0]!}, 'wb', 'completed', '{}'::jsonb, ${k!.id}) returning id`);
    await db.execute(sql`insert into kommo_writebacks (campaign_id, user_id, kommo_account_id, late_until, finished_at)
      values (${c!.id}, ${orgs[0]!}, ${k!.id}, now() - interval '37 days', now() - interval '40 days')`);
    await db.execute(sql`insert into kommo_writeback_items (campaign_id, user_id, recipient_id, kommo_contact_id, kind, stage, updated_at)
      select ${c!.id}, ${orgs[0]!}, i, i, 'result', 'done', now() - interval '40 days' from generate_series(1, 1000) i`);
  }
  await db.execute(sql`analyze`);
  const seedSeconds = (performance.now() - seedStarted) / 1000;

  // 0045's index, built again on the full table.
  await db.execute(sql`drop index meta_events_received_idx`);
  const indexStarted = performance.now();
  await db.execute(sql`create index if not exists meta_events_received_idx on meta_events (received_at, id)`);
  const indexSeconds = (performance.now() - indexStarted) / 1000;

  // Another connection writes as the inboxes do, one autocommit row at a time, during the run.
  // On PGlite the one connection is shared: the inserts queue behind each statement, as the sender would.
  const writer = kind === 'postgres' ? await openDatabase({ url: bench.url, poolSize: 1 }) : database;
  const latencies: number[] = [];
  let writing = true;
  let n = 0;
  const writes = (async () => {
    while (writing) {
      const t0 = performance.now();
      await writer.db.execute(sql`insert into webhook_events (payload) values ('{}'::jsonb)`);
      await writer.db.execute(sql`insert into inbound_messages (user_id, whatsapp_account_id, wamid, type, sent_at)
        values (${orgs[0]!}, ${accounts[0]!}, ${`wamid.live.${++n}`}, 'text', now())`);
      latencies.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 5));
    }
  })();

  const perKind = new Map<RetentionKind, { rows: number; statements: number; slowest: number; seconds: number }>();
  for (const kind of RETENTION_KINDS) perKind.set(kind, { rows: 0, statements: 0, slowest: 0, seconds: 0 });
  let last = performance.now();
  const started = performance.now();
  await sweepRetention(db, retentionWindows(ctx.config), {
    onDeleted: (kind, rows) => {
      const now = performance.now();
      const s = perKind.get(kind)!;
      s.rows += rows;
      s.statements++;
      s.slowest = Math.max(s.slowest, now - last);
      s.seconds += (now - last) / 1000;
      last = now;
    },
  });
  const runSeconds = (performance.now() - started) / 1000;
  writing = false;
  await writes;
  if (writer !== database) await writer.close();

  console.log(`Seeded ${fmt(N)} Meta events, ${fmt(N)} inbound messages, ${fmt(N / 10)} webhook rows, 100,000 write-back items in ${fmt(seedSeconds, 1)} s.`);
  console.log(`0045's index on ${fmt(N)} meta_events: ${fmt(indexSeconds, 2)} s.\n`);
  printTable(
    RETENTION_KINDS.map((kind) => {
      const s = perKind.get(kind)!;
      return [kind, fmt(s.rows), fmt(s.statements), fmt(s.slowest), fmt(s.rows / Math.max(s.seconds, 0.001))];
    }),
    ['kind', 'rows deleted', 'statements', 'slowest statement (ms)', 'rows/s'],
  );
  console.log(`\nWhole run: ${fmt(runSeconds, 1)} s.`);
  console.log(
    `Concurrent inserts (webhook row + inbound message) during the run: ${fmt(latencies.length)}, ` +
      `p50 ${fmt(percentile(latencies, 0.5), 1)} ms, p99 ${fmt(percentile(latencies, 0.99), 1)} ms, max ${fmt(Math.max(...latencies), 1)} ms.`,
  );
} finally {
  await bench.close();
}
