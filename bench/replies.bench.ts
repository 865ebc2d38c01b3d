/**
 * Replies on PostgreSQL: a campaign of 100,000 recipients Meta delivered, then
 * 20,000 inbound messages (half replies with `context`, half without, a third of them
 * quick-reply taps on three buttons) plus 1,000 duplicate deliveries, stored as webhook POSTs
 * of 25 messages and applied by the inbox. Printed: the rate at which replies are recorded and
 * attributed, that every count is exact, and how long the campaign detail (replies, taps, real
 * cost and estimate) and the "Respondieron" page of the recipients take at that size.
 *
 *   npx tsx bench/replies.bench.ts [--recipients 100000] [--replies 20000] [--runs 10]
 *
 * The targets are ours: replies arrive at people's pace. A campaign sent at Meta's top rate
 * (1,000 msg/s) with a fifth of the people answering within the minute makes about 200 replies
 * a second, so the inbox must record at least 300 a second; the detail screen polls every few
 * seconds while sending, so it should answer well under a second.
 */
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import { loadConfig } from '../server/src/config';
import { createContext } from '../server/src/context';
import { jsonParam, rowsOf } from '../server/src/db/sql';
import { resolveEngineOptions } from '../server/src/engine/campaigns/options';
import { WebhookInbox } from '../server/src/engine/campaigns/webhook-inbox';
import { getCampaign } from '../server/src/services/campaigns/campaign-queries';
import { listMessages } from '../server/src/services/campaigns/campaign-messages';
import { createCampaign } from '../server/src/services/campaigns/create-campaign';
import { seedCampaignWorld } from '../server/test/helpers/campaign-fixtures';
import { openBenchDatabase } from './lib/database';
import { fmt, percentile, printTable, timeRuns } from './lib/stats';

const PHONE_NUMBER_ID = '910001';
const WABA_ID = '810001';
const BUTTONS = ['Me interesa', 'Más información', 'Ahora no'];
const PER_POST = 25;

const { values: args } = parseArgs({
  options: {
    recipients: { type: 'string', default: '100000' },
    replies: { type: 'string', default: '20000' },
    runs: { type: 'string', default: '10' },
  },
});
const N = Number(args.recipients);
const REPLIES = Number(args.replies);
const RUNS = Number(args.runs);

const digitsOf = (i: number) => `549110${String(i).padStart(7, '0')}`;

/** One inbound message as Meta posts it: reply i answers recipient i (1-based). */
function message(i: number, sentAtSec: number) {
  const from = digitsOf(i);
  const withContext = i % 2 === 0;
  const tap = i % 3 === 0;
  const base = { from, id: `wamid.in.${i}`, timestamp: String(sentAtSec + 60 + (i % 600)), ...(withContext || tap ? { context: { from: '5491100000000', id: `wamid.r.${i}` } } : {}) };
  return tap
    ? { ...base, type: 'button', button: { payload: `qr-${Math.floor(i / 3) % 3}`, text: BUTTONS[Math.floor(i / 3) % BUTTONS.length] } }
    : { ...base, type: 'text', text: { body: `Respuesta ${i}` } };
}

function post(messages: object[]) {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: WABA_ID,
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '5491100000000', phone_number_id: PHONE_NUMBER_ID },
              contacts: messages.map((m) => ({ profile: { name: 'Cliente' }, wa_id: (m as { from: string }).from })),
              messages,
            },
          },
        ],
      },
    ],
  };
}

const bench = await openBenchDatabase('postgres', 'bench_replies');
const { database } = bench;
try {
  const ctx = createContext(loadConfig({ APP_SECRET: 'bench-app-secret-bench-app-secret', DATA_DIR: '/tmp/masivo-bench', LOG_LEVEL: 'silent' }), database);
  const { db } = database;
  const [user] = await rowsOf<{ id: number }>(db, sql`insert into users (email, password_hash) values ('bench@example.com', 'x') returning id`);
  const userId = Number(user!.id);
  const world = await seedCampaignWorld(db, ctx.secrets, userId, { number: { phoneNumberId: PHONE_NUMBER_ID, wabaId: WABA_ID, token: 'tok' } });
  const c = await createCampaign(ctx, userId, {
    name: 'Bench respuestas', kommo_account_id: world.kommoAccountId, whatsapp_account_id: world.whatsappAccountId, template_id: world.templateId,
  });
  const sentAtSec = Math.floor(Date.now() / 1000) - 3600;
  await db.execute(sql`insert into campaign_recipients (campaign_id, user_id, phone, phone_key, status, wamid, sent_at, delivered_at, read_at,
                         country, pricing_category, pricing_type, pricing_model)
      select ${c.id}, ${userId}, '+549110' || lpad(i::text, 7, '0'), '54110' || lpad(i::text, 7, '0'), 'read', 'wamid.r.' || i,
             to_timestamp(${sentAtSec}), to_timestamp(${sentAtSec} + 2), to_timestamp(${sentAtSec} + 5), 'AR', 'marketing',
             case when i % 10 = 0 then 'free_entry_point' else 'regular' end, 'PMP'
        from generate_series(1, ${N}) i`);
  await db.execute(sql`update campaigns set status = 'completed', started_at = to_timestamp(${sentAtSec}), audience_frozen_at = to_timestamp(${sentAtSec}),
      total_recipients = ${N}, messages_sent = ${N}, delivered_count = ${N}, read_count = ${N}, pending_count = 0 where id = ${c.id}`);
  await db.execute(sql`analyze`);

  // Recipient ids are 1..N in insert order; reply i answers recipient i (replies spread over the campaign).
  const step = Math.max(1, Math.floor(N / REPLIES));
  const targets = Array.from({ length: REPLIES }, (_, k) => 1 + k * step);
  const posts: object[] = [];
  for (let k = 0; k < targets.length; k += PER_POST) posts.push(post(targets.slice(k, k + PER_POST).map((i) => message(i, sentAtSec))));
  const duplicates = posts.filter((_, k) => k % 20 === 0);
  const all = [...posts, ...duplicates];
  for (let k = 0; k < all.length; k += 500) {
    await db.execute(sql`insert into webhook_events (payload) select value from jsonb_array_elements(${jsonParam(all.slice(k, k + 500))})`);
  }

  const inbox = new WebhookInbox(ctx, resolveEngineOptions({}), (msg, err) => console.error(msg, err));
  const started = performance.now();
  while ((await inbox.drainOnce()) > 0) {
    /* until every stored POST is applied */
  }
  const seconds = (performance.now() - started) / 1000;
  const [check] = await rowsOf<{ stored: number; attributed: number; replied: number; counted: number; replies: number; tappers: number }>(
    db,
    sql`select (select count(*)::int from inbound_messages) as stored,
               (select count(*)::int from inbound_messages where recipient_id is not null) as attributed,
               (select count(*)::int from campaign_recipients where campaign_id = ${c.id} and replied_at is not null) as replied,
               (select replied_count from campaigns where id = ${c.id}) as counted,
               (select coalesce(sum(reply_count), 0)::int from campaign_recipients where campaign_id = ${c.id}) as replies,
               (select count(*)::int from campaign_recipients where campaign_id = ${c.id} and button_tapped is not null) as tappers`,
  );

  /** p95 of RUNS timed calls (no warm-up). */
  const time = async (fn: () => Promise<unknown>) => percentile(await timeRuns(fn, { runs: RUNS, warmups: 0 }), 0.95);
  const detailP95 = await time(() => getCampaign(db, userId, c.id));
  const repliedP95 = await time(() => listMessages(db, userId, c.id, { group: 'replied', page: 1, limit: 50 }));
  const tappedP95 = await time(() => listMessages(db, userId, c.id, { group: 'tapped', button: 'Ahora no', page: 1, limit: 50 }));
  const detail = await getCampaign(db, userId, c.id);

  const rate = REPLIES / seconds;
  const expectedTappers = targets.filter((i) => i % 3 === 0).length;
  const rows: Array<[string, string, string, string]> = [
    ['inbound messages posted', `${fmt(REPLIES)} + ${fmt(duplicates.length * PER_POST)} duplicates in ${fmt(all.length)} POSTs`, '', ''],
    ['recorded and attributed', `${fmt(rate)} messages/s (${fmt(seconds, 1)} s)`, '≥ 300/s', rate >= 300 ? 'ok' : 'FAIL'],
    ['stored / attributed', `${fmt(check!.stored)} / ${fmt(check!.attributed)}`, `${fmt(REPLIES)} / ${fmt(REPLIES)}`, check!.stored === REPLIES && check!.attributed === REPLIES ? 'ok' : 'FAIL'],
    ['replied recipients (rows / counter / replies)', `${fmt(check!.replied)} / ${fmt(check!.counted)} / ${fmt(check!.replies)}`, `${fmt(REPLIES)} each`, check!.replied === REPLIES && check!.counted === REPLIES && check!.replies === REPLIES ? 'ok' : 'FAIL'],
    ['recipients who tapped', fmt(check!.tappers), fmt(expectedTappers), check!.tappers === expectedTappers ? 'ok' : 'FAIL'],
    [`campaign detail at ${fmt(N)} recipients, p95`, `${fmt(detailP95)} ms`, '< 500 ms', detailP95 < 500 ? 'ok' : 'FAIL'],
    ['recipients "Respondieron", page 1, p95', `${fmt(repliedP95)} ms`, '< 300 ms', repliedP95 < 300 ? 'ok' : 'FAIL'],
    ['recipients "Tocaron «Ahora no»", page 1, p95', `${fmt(tappedP95)} ms`, '< 300 ms', tappedP95 < 300 ? 'ok' : 'FAIL'],
    ['real cost / estimate (USD, shipped card)', `${detail.actual_cost?.total ?? '-'} / ${detail.actual_cost?.estimate?.total ?? '-'}`, '', ''],
  ];
  printTable(rows);
  if (rows.some((r) => r[3] === 'FAIL')) process.exitCode = 1;
} finally {
  await bench.close();
}
