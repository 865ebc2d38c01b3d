/**
 * Automatic campaigns under load, on the real console (API, engine, job runner) on PostgreSQL:
 * 10,000 Kommo leads moved into a stage in 60 s (Kommo's webhooks in bursts of 50 leads a POST)
 * while a full sync of the same account runs, an automatic campaign on that stage (delay 0,
 * re-entry 0) sending through a WhatsApp number at 1,000 msg/s. Both simulators run in processes
 * of their own (the Kommo one forked from this file, the WhatsApp one from the test helper), so
 * their clocks and their rate windows are not the console's event loop.
 *
 * Per lead moved: its due time (the event's, as the console stored it) against the time the
 * WhatsApp simulator received the send, sends per lead (duplicates), leads never sent (missing),
 * leads skipped with their reason; for Kommo: the most requests in any 1-s window and the 429s
 * while moving and resolving; and whether the second full sync completed.
 *
 *   npx tsx bench/automations.bench.ts [--moves 10000] [--seconds 60] [--contacts 100000]
 *
 * Targets (the issue's): every lead sent once, each within 5 s of its due time, Kommo never sent
 * more than 7 requests in any 1-s window (0 429s), the sync completes. About 5 minutes: two
 * syncs of the account at 7 requests/s are most of it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { forkBench, nextMessage } from './lib/child';
import { scratchPostgres } from './lib/database';
import { fmt, percentile, printTable } from './lib/stats';

const { values: args } = parseArgs({
  options: {
    moves: { type: 'string', default: '10000' },
    seconds: { type: 'string', default: '60' },
    contacts: { type: 'string', default: '100000' },
    'sim-child': { type: 'boolean', default: false },
  },
});
const MOVES = Number(args.moves);
const SECONDS = Number(args.seconds);
const CONTACTS = Number(args.contacts);
const PER_POST = 50;
const RPS = 7;
const WA_RATE = 1000;
const LATE_TARGET_MS = 5000;
const SUB = 'bench';
const KOMMO_TOKEN = 'bench-kommo-token';
const PHONE_NUMBER_ID = '930001';
const WABA_ID = '830001';
const WA_TOKEN = 'bench-wa-token';
const APP_SECRET = 'bench-automations-app-secret';
const TEMPLATE = 'aviso_etapa';

type KommoStats = { requests: number; by_status: Record<string, number>; count429: number; count403: number; perSecondMax: number };

async function control<T>(base: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${base}/__control${path}`, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${path} → ${res.status} ${await res.text()}`);
  return res.json() as Promise<T>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, timeoutMs: number, check: () => Promise<boolean>, everyMs = 250) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await sleep(everyMs);
  }
}

async function main() {
  const child = forkBench(import.meta.filename, ['--sim-child', '--contacts', String(CONTACTS)]);
  const kommo = await nextMessage<{ url: string; baseUrlTemplate: string }>(child, undefined, 'Kommo simulator');
  const { startWhatsAppSimProcess } = await import('../server/test/helpers/whatsapp-sim-process');
  const wa = await startWhatsAppSimProcess({
    appSecret: APP_SECRET,
    numbers: [{ phoneNumberId: PHONE_NUMBER_ID, wabaId: WABA_ID, token: WA_TOKEN, displayPhoneNumber: '5491100009999', throughput: WA_RATE }],
    templates: [
      {
        wabaId: WABA_ID,
        name: TEMPLATE,
        language: 'es',
        category: 'UTILITY',
        components: [{ type: 'BODY', text: 'Hola {{1}}, tu solicitud pasó a negociación.', example: { body_text: [['Ana']] } }],
      },
    ],
    deliveryRate: 1,
    readRate: 0,
    statusDelayMs: 200,
    webhookBatchMax: 200,
  });
  const scratch = await scratchPostgres('bench_automations');
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-automations-'));
  const { loadConfig } = await import('../server/src/config');
  const { startServer } = await import('../server/src/server');
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  let failed = false;
  try {
    server = await startServer(
      loadConfig({
        PORT: '0',
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        DATABASE_URL: scratch.url,
        LOG_LEVEL: 'warn',
        APP_SECRET: 'bench-app-secret-bench-app-secret',
        KOMMO_BASE_URL: kommo.baseUrlTemplate,
        KOMMO_RPS: String(RPS),
        WHATSAPP_GRAPH_URL: wa.graphUrl,
        WHATSAPP_APP_SECRET: APP_SECRET,
      }),
    );
    const base = server.url!;
    // Kommo's webhooks are subscribed to PUBLIC_URL: this server.
    server.ctx.config.PUBLIC_URL = base;
    await wa.control('POST', '/configure', { webhookUrl: `${base}/api/webhooks/whatsapp` });

    const reg = await fetch(`${base}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ first_name: 'Bench', last_name: 'Automático', email: 'bench-automations@example.com', password: 'secreto123' }),
    });
    if (!reg.ok) throw new Error(`register → ${reg.status} ${await reg.text()}`);
    const token = ((await reg.json()) as { token: string }).token;
    const api = async <T = any>(method: string, path: string, body?: unknown): Promise<T> => {
      const res = await fetch(`${base}/api${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${text.slice(0, 500)}`);
      return (text ? JSON.parse(text) : undefined) as T;
    };
    const syncStatus = async (id: number) => api<{ sync_status: string; sync_progress_contacts: number | null; sync_error_message: string | null }>('GET', `/kommo/accounts/${id}/sync-status`);

    // 1. Accounts connected through the API, the first sync to its end.
    const { phoneFieldId } = await control<{ phoneFieldId: number }>(kommo.url, `/fields?subdomain=${SUB}`);
    const account = await api<{ id: number }>('POST', '/kommo/accounts', { subdomain: SUB, access_token: KOMMO_TOKEN, phone_field_id: phoneFieldId });
    const t0 = performance.now();
    await api('POST', '/kommo/sync-contacts', { account_id: account.id });
    await until('first sync', 900_000, async () => (await syncStatus(account.id)).sync_status === 'synced', 500);
    const firstSyncS = (performance.now() - t0) / 1000;
    const number = await api<{ id: number }>('POST', '/whatsapp-accounts', {
      name: 'Ventas',
      phone_number: '+5491100009999',
      phone_number_id: PHONE_NUMBER_ID,
      access_token: WA_TOKEN,
      business_account_id: WABA_ID,
      kommo_account_id: account.id,
      rate_per_second: WA_RATE,
    });
    await api('POST', '/templates/sync', { whatsapp_account_id: number.id });
    const template = (await api<Array<{ id: number; name: string }>>('GET', `/templates/account/${number.id}`)).find((t) => t.name === TEMPLATE)!;
    await api('POST', `/variables/template/${template.id}/mappings`, {
      mappings: [{ templateVariable: 'variable_1', sourceType: 'contact', sourceField: 'name', defaultValue: 'cliente' }],
    });
    const pipelines = await api<Array<{ id: number; is_main: boolean; statuses: Array<{ id: number; name: string }> }>>('GET', `/kommo/accounts/${account.id}/pipelines`);
    const main = pipelines.find((p) => p.is_main)!;
    const stage = main.statuses.find((s) => s.name === 'Negociación')!;

    // 2. The automatic campaign, switched on; Kommo subscribed to the lead moves.
    const campaign = await api<{ id: number }>('POST', '/campaigns', {
      kind: 'automatic',
      name: 'Pasó a negociación',
      kommo_account_id: account.id,
      whatsapp_account_id: number.id,
      template_id: template.id,
      message_type: 'template',
      sending_hours: null,
      trigger: { pipeline_id: main.id, status_id: stage.id, on: 'enter', delay_seconds: 0, reentry_days: 0 },
    });
    await api('POST', `/campaigns/${campaign.id}/start`);
    await until('lead webhooks subscribed', 30_000, async () => {
      const { webhooks } = await control<{ webhooks: Array<{ settings: string[]; disabled: boolean }> }>(kommo.url, `/webhooks?subdomain=${SUB}`);
      return webhooks.some((w) => !w.disabled && w.settings.includes('status_lead'));
    });

    // The leads to move: open lead 10n+1 of contact n (n not a multiple of 4), whose contact the
    // console holds with a valid phone, one per phone (two contacts sharing a phone would be one
    // message by design, not a miss).
    const { sql } = await import('drizzle-orm');
    const { rowsOf } = await import('../server/src/db/sql');
    const db = server.ctx.db;
    const picked = await rowsOf<{ kommo_id: number }>(
      db,
      sql`select kommo_id::float8 as kommo_id from (
            select distinct on (phone_key) kommo_id from contacts
            where account_id = ${account.id} and phone_key is not null and kommo_id % 4 <> 0
            order by phone_key, kommo_id) p
          order by kommo_id limit ${MOVES}`,
    );
    if (picked.length < MOVES) throw new Error(`only ${picked.length} contacts with a phone and a lead; raise --contacts`);
    const leads = picked.map((r) => 10 * Number(r.kommo_id) + 1);

    // 3. Measured: a second full sync, and the moves, 50 a call (one webhook POST each), spread evenly.
    await control(kommo.url, '/reset', {});
    const measuredFrom = Date.now();
    const syncStarted = performance.now();
    await api('POST', '/kommo/sync-contacts', { account_id: account.id, full: true });
    let syncDoneS: number | null = null;
    let syncError: string | null = null;
    const watchSync = (async () => {
      for (;;) {
        const s = await syncStatus(account.id).catch(() => null);
        if (s && (s.sync_status === 'synced' || s.sync_status === 'error')) {
          syncDoneS = (performance.now() - syncStarted) / 1000;
          syncError = s.sync_status === 'synced' ? null : `${s.sync_status}: ${s.sync_error_message ?? ''}`;
          return;
        }
        if (performance.now() - syncStarted > 900_000) return;
        await sleep(500);
      }
    })();
    const movedAt = new Map<number, number>();
    const posts = Math.ceil(MOVES / PER_POST);
    const gapMs = (SECONDS * 1000) / posts;
    const movesStarted = Date.now();
    for (let i = 0; i < posts; i++) {
      const wait = movesStarted + i * gapMs - Date.now();
      if (wait > 0) await sleep(wait);
      const batch = leads.slice(i * PER_POST, (i + 1) * PER_POST);
      await control(kommo.url, '/leads/move', { subdomain: SUB, moves: batch.map((id) => ({ id, status_id: stage.id, pipeline_id: main.id })), per_post: PER_POST });
      const at = Date.now();
      for (const id of batch) movedAt.set(id, at);
    }
    const movesS = (Date.now() - movesStarted) / 1000;

    // 4. Until every event is settled (sent or skipped) and the sync is over, or 3 minutes pass.
    const settledBy = Date.now() + 180_000;
    let settledS: number | null = null;
    for (;;) {
      const [c] = await rowsOf<{ events: number; open: number }>(
        db,
        sql`select (select count(*) from automation_events where campaign_id = ${campaign.id})::int as events,
                   (select count(*) from campaign_recipients where campaign_id = ${campaign.id} and status in ('waiting', 'pending', 'sending'))::int as open`,
      );
      if (settledS === null && c!.events >= MOVES && c!.open === 0) settledS = (Date.now() - movesStarted) / 1000;
      if ((settledS !== null && syncDoneS !== null) || Date.now() > settledBy) break;
      if (process.stdout.isTTY) process.stdout.write(`  events ${fmt(c!.events)} / ${fmt(MOVES)}, open ${fmt(c!.open)}, sync ${syncDoneS === null ? 'running' : 'done'}   \r`);
      await sleep(500);
    }
    await Promise.race([watchSync, sleep(1000)]);
    const kStats = await control<KommoStats>(kommo.url, '/stats');
    const hooks = await control<{ delivered: number; failed: number; attempts: number; pending: number }>(kommo.url, '/webhooks/stats');
    await sleep(1500); // the last sends' answers and results

    // 5. Per lead: due time, arrival at WhatsApp, sends.
    const rows = await rowsOf<{ lead_id: number; recipient_id: number; due_ms: number; received_ms: number; resolved_ms: number | null; source: string; status: string; error_message: string | null }>(
      db,
      sql`select e.lead_id::float8 as lead_id, e.recipient_id::int as recipient_id, extract(epoch from e.due_at)::float8 * 1000 as due_ms,
                 extract(epoch from e.received_at)::float8 * 1000 as received_ms, extract(epoch from e.resolved_at)::float8 * 1000 as resolved_ms,
                 e.source, r.status, r.error_message
          from automation_events e left join campaign_recipients r on r.id = e.recipient_id
          where e.campaign_id = ${campaign.id}`,
    );
    const { messages } = await wa.control<{ messages: Array<{ bizOpaque: string | null; at: number; to: string }> }>('GET', `/messages?limit=${MOVES * 3 + 1000}&phoneNumberId=${PHONE_NUMBER_ID}`);
    const sendsOf = new Map<number, number[]>();
    for (const m of messages) {
      const recipientId = Number((m.bizOpaque ?? '').split(':')[2]);
      if (!Number.isFinite(recipientId)) continue;
      sendsOf.set(recipientId, [...(sendsOf.get(recipientId) ?? []), m.at]);
    }
    const eventsOf = new Map<number, typeof rows>();
    for (const r of rows) eventsOf.set(Number(r.lead_id), [...(eventsOf.get(Number(r.lead_id)) ?? []), r]);
    const lateness: number[] = [];
    const sinceMove: number[] = [];
    // Where the time goes: due → recorded (webhook, inbox, worker), recorded → resolved (the
    // periodic resolver and its Kommo look-ups), resolved → at WhatsApp (the sender).
    const toRecorded: number[] = [];
    const toResolved: number[] = [];
    const toSent: number[] = [];
    const bySource = new Map<string, number>();
    let sent = 0;
    let duplicated = 0;
    let missing = 0;
    let noEvent = 0;
    const skipped = new Map<string, number>();
    for (const lead of leads) {
      const events = eventsOf.get(lead) ?? [];
      if (!events.length) noEvent++;
      const times = events.flatMap((e) => sendsOf.get(Number(e.recipient_id)) ?? []).sort((a, b) => a - b);
      if (times.length > 1) duplicated++;
      if (times.length >= 1) {
        sent++;
        const e = events[0]!;
        lateness.push(times[0]! - Number(e.due_ms));
        toRecorded.push(Number(e.received_ms) - Number(e.due_ms));
        if (e.resolved_ms !== null) {
          toResolved.push(Number(e.resolved_ms) - Number(e.received_ms));
          toSent.push(times[0]! - Number(e.resolved_ms));
        }
        bySource.set(e.source, (bySource.get(e.source) ?? 0) + 1);
        sinceMove.push(times[0]! - movedAt.get(lead)!);
        continue;
      }
      const skip = events.find((e) => e.status === 'skipped');
      if (skip) skipped.set(skip.error_message ?? '?', (skipped.get(skip.error_message ?? '?') ?? 0) + 1);
      else missing++;
    }
    const late = lateness.filter((v) => v > LATE_TARGET_MS).length;
    const maxLate = lateness.length ? Math.max(...lateness) : 0;
    const skippedN = [...skipped.values()].reduce((a, b) => a + b, 0);
    const s = (v: number) => `${(v / 1000).toFixed(2)} s`;
    const ok = {
      once: sent === MOVES && duplicated === 0 && missing === 0,
      late: sent > 0 && maxLate <= LATE_TARGET_MS,
      kommo: kStats.perSecondMax <= RPS && kStats.count429 === 0,
      sync: syncDoneS !== null && syncError === null,
    };
    console.log('');
    printTable(
      [
        ['stage moves (Kommo webhooks)', `${fmt(MOVES)} leads in ${fmt(movesS, 1)} s, ${fmt(posts)} moves of ${PER_POST}; webhook POSTs delivered ${fmt(hooks.delivered)}, failed ${fmt(hooks.failed)}`, '', ''],
        ['sent / skipped / missing / duplicated', `${fmt(sent)} / ${fmt(skippedN)} / ${fmt(missing)} / ${fmt(duplicated)} (no event recorded: ${fmt(noEvent)})`, `${fmt(MOVES)} / 0 / 0 / 0`, ok.once ? 'ok' : 'MISS'],
        ['lateness after the due time p50 / p95 / max', `${s(percentile(lateness, 0.5))} / ${s(percentile(lateness, 0.95))} / ${s(maxLate)} (${fmt(late)} over 5 s)`, 'max ≤ 5 s', ok.late ? 'ok' : 'MISS'],
        ['after the move (bench clock) p50 / p95 / max', `${s(percentile(sinceMove, 0.5))} / ${s(percentile(sinceMove, 0.95))} / ${s(sinceMove.length ? Math.max(...sinceMove) : 0)}`, '', ''],
        ['  due → recorded p50 / p95 / max', `${s(percentile(toRecorded, 0.5))} / ${s(percentile(toRecorded, 0.95))} / ${s(Math.max(0, ...toRecorded))} (by ${[...bySource].map(([k, n]) => `${k} ${fmt(n)}`).join(', ')})`, '', ''],
        ['  recorded → resolved (look-up) p50 / p95 / max', `${s(percentile(toResolved, 0.5))} / ${s(percentile(toResolved, 0.95))} / ${s(Math.max(0, ...toResolved))}`, '', ''],
        ['  resolved → at WhatsApp p50 / p95 / max', `${s(percentile(toSent, 0.5))} / ${s(percentile(toSent, 0.95))} / ${s(Math.max(0, ...toSent))}`, '', ''],
        ['every event settled', settledS === null ? 'not within 3 min of the last move' : `${fmt(settledS, 1)} s after the first move`, '', ''],
        ['Kommo: max requests in 1 s / 429s / 403s', `${kStats.perSecondMax} / ${kStats.count429} / ${kStats.count403} (${fmt(kStats.requests)} requests in ${fmt((Date.now() - measuredFrom) / 1000, 0)} s)`, `≤ ${RPS} / 0`, ok.kommo ? 'ok' : 'MISS'],
        ['full sync of the account meanwhile', syncDoneS === null ? 'not finished' : `${syncError ?? 'completed'} in ${fmt(syncDoneS, 1)} s (first sync: ${fmt(firstSyncS, 1)} s, ${fmt(CONTACTS)} contacts)`, 'completes', ok.sync ? 'ok' : 'MISS'],
      ],
      ['measure', 'figure', 'target', ''],
    );
    if (skipped.size) console.log(`skipped: ${[...skipped].map(([m, n]) => `${m} × ${n}`).join(', ')}`);
    failed = !Object.values(ok).every(Boolean);
    console.log(`targets: ${failed ? 'NOT all met' : 'all met'}`);
  } finally {
    await server?.stop();
    await wa.close();
    child.disconnect();
    await scratch.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  process.exit(failed ? 1 : 0);
}

if (args['sim-child']) {
  const { startKommoSim } = await import('../simulators/src/kommo/index');
  const sim = await startKommoSim({ rps: RPS, accounts: [{ subdomain: SUB, token: KOMMO_TOKEN, contacts: CONTACTS, seed: 11 }] });
  process.send!({ url: sim.url, baseUrlTemplate: sim.baseUrlTemplate });
  process.on('disconnect', () => void sim.close().then(() => process.exit(0)));
} else {
  await main();
}
