import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config';
import { rowsOf } from '../src/db/sql';
import { dataRetention, RETENTION_KINDS, retentionWindows, sweepRetention, type RetentionKind } from '../src/engine/data-retention';
import { createTestApp, type TestApp } from './helpers/app';
import { insertKommoAccount, insertWhatsAppAccount } from './helpers/campaign-fixtures';

/**
 * Retention of Meta's events, inbound messages, the webhook inboxes' set-aside rows and
 * finished write-back items: old rows go, young ones stay, and nothing a campaign that may
 * still send, an inbox or the write-back still reads is touched, whatever its age. The same
 * result in one statement per table as in many small batches; /metrics counts exactly what went.
 */
let t: TestApp;
let org: number;
let other: number;
let wa: number;
let otherWa: number;
let kommo: number;
const campaign: Record<string, number> = {};

const CAMPAIGNS: Array<[name: string, status: string, automatic: boolean]> = [
  ['completada', 'completed', false],
  ['completada-joven', 'completed', false],
  ['completada-a-medias', 'completed', false],
  ['cancelada', 'cancelled', false],
  ['enviando', 'sending', false],
  ['pausada', 'paused', false],
  ['automatica', 'sending', true],
  ['automatica-pausada', 'paused', true],
  ['automatica-completada', 'completed', true],
  ['automatica-cancelada', 'cancelled', true],
];

beforeAll(async () => {
  t = await createTestApp();
  org = (await t.signUp()).userId;
  other = (await t.signUp()).userId;
  kommo = await insertKommoAccount(t.ctx.db, t.ctx.secrets, org, 'retencion');
  wa = await insertWhatsAppAccount(t.ctx.db, t.ctx.secrets, org, { phoneNumberId: '9001', wabaId: 'waba-1', token: 'tok' });
  otherWa = await insertWhatsAppAccount(t.ctx.db, t.ctx.secrets, other, { phoneNumberId: '9002', wabaId: 'waba-2', token: 'tok' });
  for (const [name, status, automatic] of CAMPAIGNS) {
    const [row] = await rowsOf<{ id: number }>(
      t.ctx.db,
      sql`insert into campaigns (user_id, name, status, filters, whatsapp_account_id, kommo_account_id, audience_kind, automation_trigger)
          values (${org}, ${name}, ${status}, '{}'::jsonb, ${wa}, ${kommo}, ${automatic ? 'automatic' : 'filter'},
                  ${automatic ? JSON.stringify({ pipeline_id: 1, status_id: 2, on: 'enter', delay_seconds: 0, reentry_days: 0 }) : null}::jsonb)
          returning id`,
    );
    campaign[name] = Number(row!.id);
  }
});

afterAll(async () => {
  await t?.close();
});

const ago = (days: number) => sql`now() - make_interval(days => ${days})`;

/** Every retained table emptied and filled again with rows old and young, each named by a label. */
async function seed() {
  const { db } = t.ctx;
  for (const table of ['meta_events', 'inbound_messages', 'webhook_events', 'kommo_inbox', 'kommo_writeback_items', 'kommo_writebacks', 'link_click_events']) {
    await db.execute(sql`delete from ${sql.identifier(table)}`);
  }

  // Meta's events: 90 days by default.
  for (const [label, days] of [['viejo-1', 100], ['viejo-2', 91], ['viejo-3', 400], ['joven', 80], ['reciente', 0]] as const) {
    await db.execute(sql`insert into meta_events (waba_id, field, value, received_at) values ('waba-1', ${label}, '{}'::jsonb, ${ago(days)})`);
  }

  // Inbound messages: 400 days by default, by Meta's time of the message.
  let wamid = 0;
  const inbound = async (label: string, days: number, campaignName: string | null, owner = org, account = wa) => {
    await db.execute(sql`insert into inbound_messages (user_id, whatsapp_account_id, wamid, from_phone_key, type, body, sent_at, campaign_id, recipient_id)
      values (${owner}, ${account}, ${`wamid.${++wamid}`}, '5491100000001', 'text', ${label}, ${ago(days)},
              ${campaignName ? campaign[campaignName]! : null}, ${campaignName ? wamid : null})`);
  };
  await inbound('suelto-viejo-1', 401, null);
  await inbound('suelto-viejo-2', 500, null);
  await inbound('suelto-viejo-3', 900, null);
  await inbound('ajeno-viejo', 450, null, other, otherWa);
  await inbound('suelto-joven', 399, null);
  await inbound('ajeno-joven', 10, null, other, otherWa);
  await inbound('completada-vieja', 500, 'completada');
  await inbound('cancelada-vieja', 500, 'cancelada');
  await inbound('completada-joven', 30, 'completada');
  await inbound('enviando-vieja', 500, 'enviando');
  await inbound('pausada-vieja', 500, 'pausada');
  await inbound('automatica-vieja', 700, 'automatica');
  await inbound('automatica-pausada-vieja', 700, 'automatica-pausada');

  // Meta's webhook inbox: applied rows are already gone; given up (8 failed attempts) go after 7 days.
  const hook = async (label: string, days: number, processAfter: ReturnType<typeof sql>, attempts: number) => {
    await db.execute(sql`insert into webhook_events (payload, received_at, process_after, attempts)
      values (${JSON.stringify({ label })}::jsonb, ${ago(days)}, ${processAfter}, ${attempts})`);
  };
  await hook('abandonado-viejo-1', 8, sql`'infinity'::timestamptz`, 8);
  await hook('abandonado-viejo-2', 60, sql`'infinity'::timestamptz`, 8);
  await hook('abandonado-joven', 6, sql`'infinity'::timestamptz`, 8);
  await hook('pendiente-viejo', 60, sql`now()`, 0);
  await hook('reintento-viejo', 60, sql`now() + interval '1 hour'`, 5);

  // The keys of applied link clicks: they only need to outlive Meta's retries (the inbox's 7 days).
  for (const [label, days] of [['clic-viejo-1', 8], ['clic-viejo-2', 30], ['clic-joven', 6]] as const) {
    await db.execute(sql`insert into link_click_events (recipient_id, event_key, received_at) values (1, ${label}, ${ago(days)})`);
  }

  // Kommo's inbox: rows set aside with an error go after 7 days; waiting rows never.
  const kommoRow = async (label: string, receivedDays: number, failedDays: number | null) => {
    await db.execute(sql`insert into kommo_inbox (account_id, source, body, received_at, failed_at, error)
      values (${kommo}, 'webhook', ${JSON.stringify({ label })}::jsonb, ${ago(receivedDays)},
              ${failedDays === null ? null : ago(failedDays)}, ${failedDays === null ? null : 'fallo'})`);
  };
  await kommoRow('fallida-vieja-1', 9, 8);
  await kommoRow('fallida-vieja-2', 40, 39);
  await kommoRow('fallida-joven', 9, 6);
  await kommoRow('pendiente-vieja', 90, null);

  // Write-backs: items of write-backs finished more than 30 days ago, late window over, campaign done.
  let recipient = 0;
  const writeback = async (campaignName: string, finishedDays: number | null, lateUntil: ReturnType<typeof sql>, items: Array<[string, string, number]>) => {
    const id = campaign[campaignName]!;
    await db.execute(sql`insert into kommo_writebacks (campaign_id, user_id, kommo_account_id, late_until, finished_at, created_at)
      values (${id}, ${org}, ${kommo}, ${lateUntil}, ${finishedDays === null ? null : ago(finishedDays)}, ${ago(60)})`);
    for (const [label, stage, days] of items) {
      await db.execute(sql`insert into kommo_writeback_items (campaign_id, user_id, recipient_id, kommo_contact_id, kind, note_text, stage, updated_at)
        values (${id}, ${org}, ${++recipient}, ${recipient}, 'result', ${label}, ${stage}, ${ago(days)})`);
    }
  };
  const over = ago(35);
  await writeback('completada', 40, over, [
    ['completada-hecho-1', 'done', 41],
    ['completada-hecho-2', 'done', 40],
    ['completada-hecho-3', 'done', 40],
    ['completada-fallido', 'failed', 40],
  ]);
  await writeback('cancelada', 31, over, [['cancelada-hecho', 'done', 31]]);
  await writeback('completada-joven', 10, ago(7), [['joven-hecho', 'done', 10]]);
  // Not finished: one item still waits (a paused account), so none of its items go.
  await writeback('completada-a-medias', null, over, [
    ['a-medias-hecho', 'done', 50],
    ['a-medias-pendiente', 'note', 50],
  ]);
  // A campaign sending again (a retry) keeps its items while it sends.
  await writeback('enviando', 40, over, [['enviando-hecho', 'done', 40]]);
  // Automatic campaigns: on (its late window keeps moving), completed (could be switched on again): kept.
  await writeback('automatica', 40, sql`now() + interval '72 hours'`, [['automatica-hecho', 'done', 40]]);
  await writeback('automatica-completada', 40, over, [['automatica-completada-hecho', 'done', 40]]);
  await writeback('automatica-cancelada', 40, over, [['automatica-cancelada-hecho', 'done', 40]]);
}

const KEPT = {
  meta_events: ['joven', 'reciente'],
  inbound_messages: [
    'ajeno-joven',
    'automatica-pausada-vieja',
    'automatica-vieja',
    'completada-joven',
    'enviando-vieja',
    'pausada-vieja',
    'suelto-joven',
  ],
  webhook_events: ['abandonado-joven', 'pendiente-viejo', 'reintento-viejo'],
  kommo_inbox: ['fallida-joven', 'pendiente-vieja'],
  link_click_events: ['clic-joven'],
  kommo_writeback_items: [
    'a-medias-hecho',
    'a-medias-pendiente',
    'automatica-completada-hecho',
    'automatica-hecho',
    'enviando-hecho',
    'joven-hecho',
  ],
};

/** The labels left in each table, sorted. */
async function left() {
  const labels = async (q: ReturnType<typeof sql>) => (await rowsOf<{ l: string }>(t.ctx.db, q)).map((r) => r.l).sort();
  return {
    meta_events: await labels(sql`select field as l from meta_events`),
    inbound_messages: await labels(sql`select body as l from inbound_messages`),
    webhook_events: await labels(sql`select payload ->> 'label' as l from webhook_events`),
    kommo_inbox: await labels(sql`select body ->> 'label' as l from kommo_inbox`),
    link_click_events: await labels(sql`select event_key as l from link_click_events`),
    kommo_writeback_items: await labels(sql`select note_text as l from kommo_writeback_items`),
  };
}

async function counter(): Promise<Record<string, number>> {
  const metric = t.ctx.metrics.registry.getSingleMetric('masivo_retention_deleted_rows_total');
  const values = (await metric!.get()).values;
  return Object.fromEntries(values.map((v) => [String(v.labels.kind), v.value]));
}

describe('retention sweep', () => {
  let seeded: Awaited<ReturnType<typeof left>>;
  let firstRun: Record<RetentionKind, number>;

  it('deletes what is past its window and keeps the young, the waiting and what campaigns still read', async () => {
    await seed();
    seeded = await left();
    const before = await counter();
    // The daily job itself, with the settings' defaults (90, 400, 7 and 30 days).
    const job = dataRetention(t.ctx);
    expect(job).toMatchObject({ name: 'data-retention', everyMs: 86_400_000 });
    await job.run(new AbortController().signal);
    const after = await left();
    expect(after).toEqual(KEPT);

    const gone = (table: keyof typeof KEPT) => seeded[table].length - after[table].length;
    firstRun = {
      meta_events: gone('meta_events'),
      inbound_messages: gone('inbound_messages'),
      webhook_inbox: gone('webhook_events') + gone('kommo_inbox') + gone('link_click_events'),
      writeback_items: gone('kommo_writeback_items'),
    };
    for (const kind of RETENTION_KINDS) expect(firstRun[kind]).toBeGreaterThan(0);
    // The counter rose by exactly what went, per kind.
    const counted = await counter();
    for (const kind of RETENTION_KINDS) expect((counted[kind] ?? 0) - (before[kind] ?? 0)).toBe(firstRun[kind]);

    // The write-back rows themselves stay (without them a completed campaign would be written back again).
    const [wb] = await rowsOf<{ n: number }>(t.ctx.db, sql`select count(*)::int as n from kommo_writebacks`);
    expect(wb!.n).toBe(8);

    // /metrics shows it.
    const res = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.body).toContain(`masivo_retention_deleted_rows_total{kind="meta_events"} ${counted.meta_events}`);
    expect(res.body).toContain(`masivo_retention_deleted_rows_total{kind="writeback_items"} ${counted.writeback_items}`);

    // A second run finds nothing more.
    const again = await sweepRetention(t.ctx.db, retentionWindows(t.ctx.config));
    expect(again).toEqual({ meta_events: 0, inbound_messages: 0, webhook_inbox: 0, writeback_items: 0 });
  });

  it('gives the same result in batches of 2, moving on when a statement reads fewer', async () => {
    await seed();
    const before = await counter();
    // The job with batches of 2, each statement heard on its way to the counter.
    const statements: Array<[RetentionKind, number]> = [];
    const count = t.ctx.metrics.retentionDeleted.bind(t.ctx.metrics);
    t.ctx.metrics.retentionDeleted = (kind, n) => {
      statements.push([kind as RetentionKind, n]);
      count(kind, n);
    };
    try {
      await dataRetention(t.ctx, { batch: 2 }).run(new AbortController().signal);
    } finally {
      t.ctx.metrics.retentionDeleted = count;
    }
    expect(await left()).toEqual(KEPT);
    const counted = await counter();
    for (const kind of RETENTION_KINDS) expect((counted[kind] ?? 0) - (before[kind] ?? 0)).toBe(firstRun[kind]);
    // Every statement deleted at most 2; each table's walk ends with one that read fewer than 2.
    expect(statements.every(([, n]) => n <= 2)).toBe(true);
    const perKind = (kind: RetentionKind) => statements.filter(([k]) => k === kind).map(([, n]) => n);
    expect(perKind('meta_events')).toEqual([2, 1]);
    expect(perKind('inbound_messages').length).toBeGreaterThanOrEqual(3);
    // Three tables make up the webhook inbox (Meta's, the clicks' keys, Kommo's): each ends with a short statement.
    expect(perKind('webhook_inbox').filter((n) => n < 2)).toHaveLength(3);
    for (const kind of RETENTION_KINDS) expect(perKind(kind).reduce((a, b) => a + b, 0)).toBe(firstRun[kind]);
  });

  it('stops between batches when asked to, and the next run finishes the job', async () => {
    await seed();
    const stop = new AbortController();
    const statements: number[] = [];
    const deleted = await sweepRetention(t.ctx.db, retentionWindows(t.ctx.config), {
      batch: 1,
      signal: stop.signal,
      onDeleted: (_kind, n) => {
        statements.push(n);
        stop.abort();
      },
    });
    expect(statements).toEqual([1]);
    expect(Object.values(deleted).reduce((a, b) => a + b, 0)).toBe(1);
    // A run stopped before its first statement deletes nothing.
    expect(await sweepRetention(t.ctx.db, retentionWindows(t.ctx.config), { signal: AbortSignal.abort() })).toEqual({
      meta_events: 0,
      inbound_messages: 0,
      webhook_inbox: 0,
      writeback_items: 0,
    });
    await sweepRetention(t.ctx.db, retentionWindows(t.ctx.config), { batch: 3 });
    expect(await left()).toEqual(KEPT);
  });

  it('walks past kept rows sharing one microsecond, deleting the others beside and after them', async () => {
    await seed();
    const { db } = t.ctx;
    await db.execute(sql`delete from inbound_messages`);
    const at = '2020-03-01T10:00:00.123456Z';
    const insert = (label: string, sentAt: string, campaignName: string | null, i: number) =>
      db.execute(sql`insert into inbound_messages (user_id, whatsapp_account_id, wamid, type, body, sent_at, campaign_id, recipient_id)
        values (${org}, ${wa}, ${`wamid.tie.${i}`}, 'text', ${label}, ${sentAt}::timestamptz,
                ${campaignName ? campaign[campaignName]! : null}, ${campaignName ? i : null})`);
    let i = 0;
    for (let k = 0; k < 5; k++) await insert('enviando', at, 'enviando', ++i);
    for (let k = 0; k < 2; k++) await insert('suelto', at, null, ++i);
    await insert('suelto-despues', '2020-03-01T10:00:00.123457Z', null, ++i);
    const statements: number[] = [];
    const deleted = await sweepRetention(db, retentionWindows(t.ctx.config), {
      batch: 2,
      onDeleted: (kind, n) => kind === 'inbound_messages' && statements.push(n),
    });
    expect(deleted.inbound_messages).toBe(3);
    expect((await left()).inbound_messages).toEqual(['enviando', 'enviando', 'enviando', 'enviando', 'enviando']);
    // 8 rows read 2 at a time: 5 statements for our organisation, 1 for the other.
    expect(statements.length).toBe(6);
  });

  it('follows the settings: shorter windows delete more, never a waiting row', async () => {
    await seed();
    await sweepRetention(t.ctx.db, { meta_events: 1, inbound_messages: 1, webhook_inbox: 1, writeback_items: 1 });
    const after = await left();
    expect(after.meta_events).toEqual(['reciente']);
    expect(after.inbound_messages).toEqual(['automatica-pausada-vieja', 'automatica-vieja', 'enviando-vieja', 'pausada-vieja']);
    expect(after.webhook_events).toEqual(['pendiente-viejo', 'reintento-viejo']);
    expect(after.kommo_inbox).toEqual(['pendiente-vieja']);
    expect(after.kommo_writeback_items).toEqual([
      'a-medias-hecho',
      'a-medias-pendiente',
      'automatica-completada-hecho',
      'automatica-hecho',
      'enviando-hecho',
    ]);
  });
});

describe('retention settings', () => {
  const base = { APP_SECRET: 'x'.repeat(40), DATA_DIR: '/tmp/masivo-test-data' };

  it('defaults to 90, 400, 7 and 30 days, each configurable', () => {
    expect(retentionWindows(loadConfig(base))).toEqual({ meta_events: 90, inbound_messages: 400, webhook_inbox: 7, writeback_items: 30 });
    const cfg = loadConfig({
      ...base,
      RETENTION_META_EVENTS_DAYS: '30',
      RETENTION_INBOUND_MESSAGES_DAYS: '3650',
      RETENTION_WEBHOOK_INBOX_DAYS: '1',
      RETENTION_WRITEBACK_DAYS: '90',
    });
    expect(retentionWindows(cfg)).toEqual({ meta_events: 30, inbound_messages: 3650, webhook_inbox: 1, writeback_items: 90 });
  });

  it('refuses what is not a whole number of days from 1 to 3650, in Spanish, naming the variable', () => {
    for (const name of ['RETENTION_META_EVENTS_DAYS', 'RETENTION_INBOUND_MESSAGES_DAYS', 'RETENTION_WEBHOOK_INBOX_DAYS', 'RETENTION_WRITEBACK_DAYS']) {
      for (const bad of ['0', '-5', '1.5', 'siempre', '3651']) {
        expect(() => loadConfig({ ...base, [name]: bad }), `${name}=${bad}`).toThrow(
          new RegExp(`${name}: un número entero de días entre 1 y 3650`),
        );
      }
    }
  });
});
