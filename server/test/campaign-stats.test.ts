import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { META_ERROR_DESCRIPTIONS, NO_CODE_DESCRIPTION } from '@masivo/contract/meta-errors';
import { STATS_MAX_POINTS, type CampaignStats, type DashboardActivity } from '@masivo/contract/stats';
import { rowsOf } from '../src/db/sql';
import { chooseBucketMinutes } from '../src/services/campaigns/campaign-stats';
import { DELETED_NUMBER } from '../src/services/dashboard/activity';
import { startCampaignEngine, type CampaignEngine } from '../src/engine/campaigns/index';
import { createCampaign } from '../src/services/campaigns/create-campaign';
import { startCampaign } from '../src/services/campaigns/start-campaign';
import { createTestApp, type TestApp } from './helpers/app';
import { insertKommoAccount, insertWhatsAppAccount, seedCampaignWorld } from './helpers/campaign-fixtures';
import { APP_SECRET, waitFor } from './helpers/engine-bed';
import { postWebhook } from './helpers/webhook';
import * as meta from './fixtures/meta-webhooks';

/**
 * Charts: GET /api/campaigns/:id/stats (timeline buckets, funnel, failures by Meta
 * code) and GET /api/dashboard/activity (per number and day). Recipient rows are written
 * directly with the times and statuses each case needs; replied_at is set by hand (the inbound
 * webhook that fills it is another part of the issue).
 */

let t: TestApp;
let owner: { headers: { authorization: string }; userId: number };
let other: { headers: { authorization: string }; userId: number };
let ventas: number;
let soporte: number;
let foreignNumber: number;

interface Row {
  status?: string;
  attempts?: number;
  sent?: string | null;
  delivered?: string | null;
  read?: string | null;
  failed?: string | null;
  replied?: string | null;
  code?: number | null;
  message?: string | null;
}

let phoneSeq = 0;

async function insertCampaign(userId: number, whatsappAccountId: number | null, name = 'Promo'): Promise<number> {
  const [row] = await rowsOf<{ id: number }>(
    t.ctx.db,
    sql`insert into campaigns (user_id, name, status, filters, whatsapp_account_id, started_at)
        values (${userId}, ${name}, 'completed', '{}'::jsonb, ${whatsappAccountId}, now()) returning id`,
  );
  return Number(row!.id);
}

async function insertRecipients(campaignId: number, userId: number, rows: Row[]): Promise<void> {
  for (const r of rows) {
    const key = `5491100${String(++phoneSeq).padStart(6, '0')}`;
    await t.ctx.db.execute(sql`insert into campaign_recipients (campaign_id, user_id, phone, phone_key, status, attempts,
        sent_at, delivered_at, read_at, failed_at, replied_at, error_code, error_message)
      values (${campaignId}, ${userId}, ${'+' + key}, ${key}, ${r.status ?? 'sent'}, ${r.attempts ?? 1},
        ${r.sent ?? null}::timestamptz, ${r.delivered ?? null}::timestamptz, ${r.read ?? null}::timestamptz,
        ${r.failed ?? null}::timestamptz, ${r.replied ?? null}::timestamptz, ${r.code ?? null}, ${r.message ?? null})`);
  }
}

const stats = async (id: number, query = '', headers = owner.headers) => {
  const res = await t.app.inject({ method: 'GET', url: `/api/campaigns/${id}/stats${query}`, headers });
  return { status: res.statusCode, body: res.json() as CampaignStats & { error?: string } };
};

const activity = async (query = '', headers = owner.headers) => {
  const res = await t.app.inject({ method: 'GET', url: `/api/dashboard/activity${query}`, headers });
  return { status: res.statusCode, body: res.json() as DashboardActivity & { error?: string } };
};

beforeAll(async () => {
  t = await createTestApp({ WHATSAPP_APP_SECRET: APP_SECRET });
  owner = await t.signUp();
  other = await t.signUp();
  const kommo = await insertKommoAccount(t.ctx.db, t.ctx.secrets, owner.userId, 'estadisticas');
  ventas = await insertWhatsAppAccount(t.ctx.db, t.ctx.secrets, owner.userId, { phoneNumberId: 'pn-ventas', wabaId: 'w1', token: 'x', kommoAccountId: kommo });
  soporte = await insertWhatsAppAccount(t.ctx.db, t.ctx.secrets, owner.userId, { phoneNumberId: 'pn-soporte', wabaId: 'w1', token: 'x', kommoAccountId: kommo });
  const otherKommo = await insertKommoAccount(t.ctx.db, t.ctx.secrets, other.userId, 'ajena');
  foreignNumber = await insertWhatsAppAccount(t.ctx.db, t.ctx.secrets, other.userId, { phoneNumberId: 'pn-ajeno', wabaId: 'w2', token: 'x', kommoAccountId: otherKommo });
});
afterAll(() => t.close());

describe('bucket width', () => {
  it('is one minute up to 299 minutes, then the first width that keeps 300 points at most', () => {
    expect(chooseBucketMinutes(0)).toBe(1);
    expect(chooseBucketMinutes(299 * 60_000)).toBe(1);
    expect(chooseBucketMinutes(300 * 60_000)).toBe(2);
    expect(chooseBucketMinutes(24 * 3_600_000)).toBe(5);
    expect(chooseBucketMinutes(30 * 24 * 3_600_000)).toBe(180);
    expect(chooseBucketMinutes(200 * 24 * 3_600_000)).toBe(1440);
    expect(chooseBucketMinutes(400 * 24 * 3_600_000)).toBe(2880);
    for (const days of [1, 3, 7, 45, 120, 299, 700]) {
      const span = days * 24 * 3_600_000 + 12_345;
      const b = chooseBucketMinutes(span);
      expect(Math.ceil(span / 60_000 / b) + 1).toBeLessThanOrEqual(STATS_MAX_POINTS);
    }
  });
});

describe('GET /api/campaigns/:id/stats', () => {
  it('counts sends, deliveries and reads per minute, with every minute in between', async () => {
    const id = await insertCampaign(owner.userId, ventas);
    await insertRecipients(id, owner.userId, [
      { sent: '2026-03-02T10:00:10Z', delivered: '2026-03-02T10:01:05Z', read: '2026-03-02T10:03:59Z', status: 'read' },
      { sent: '2026-03-02T10:00:50Z', status: 'sent' },
      { sent: '2026-03-02T10:02:30Z', delivered: '2026-03-02T10:02:31Z', status: 'delivered' },
    ]);
    const { status, body } = await stats(id);
    expect(status).toBe(200);
    expect(body.bucket_minutes).toBe(1);
    expect(body.time_zone).toBe('UTC');
    expect(body.timeline).toEqual([
      { at: '2026-03-02T10:00:00.000Z', sent: 2, delivered: 0, read: 0 },
      { at: '2026-03-02T10:01:00.000Z', sent: 0, delivered: 1, read: 0 },
      { at: '2026-03-02T10:02:00.000Z', sent: 1, delivered: 1, read: 0 },
      { at: '2026-03-02T10:03:00.000Z', sent: 0, delivered: 0, read: 1 },
    ]);
  });

  it('uses a coarser bucket for a long campaign, never more than 300 points, losing no event', async () => {
    const id = await insertCampaign(owner.userId, ventas);
    const rows: Row[] = [];
    // 400 sends spread over 2 days and a read 3 days after the first send.
    const start = Date.parse('2026-03-05T00:00:00Z');
    for (let i = 0; i < 400; i++) rows.push({ sent: new Date(start + i * 432_000).toISOString(), status: 'sent' });
    rows.push({ sent: new Date(start).toISOString(), read: new Date(start + 3 * 86_400_000).toISOString(), status: 'read' });
    await insertRecipients(id, owner.userId, rows);
    const { body } = await stats(id);
    expect(body.bucket_minutes).toBe(15);
    expect(body.timeline.length).toBeLessThanOrEqual(STATS_MAX_POINTS);
    expect(body.timeline.length).toBe(3 * 96 + 1);
    expect(body.timeline.reduce((s, p) => s + p.sent, 0)).toBe(401);
    expect(body.timeline.reduce((s, p) => s + p.read, 0)).toBe(1);
    expect(body.timeline[0]!.at).toBe('2026-03-05T00:00:00.000Z');
    expect(Date.parse(body.timeline[1]!.at) - Date.parse(body.timeline[0]!.at)).toBe(15 * 60_000);
  });

  it("aligns buckets on the browser's zone", async () => {
    const id = await insertCampaign(owner.userId, ventas);
    // Five hours of sends: 1-minute buckets would be 301 points, so 2-minute ones.
    await insertRecipients(id, owner.userId, [
      { sent: '2026-03-06T10:07:00Z', status: 'sent' },
      { sent: '2026-03-06T15:07:00Z', status: 'sent' },
    ]);
    const utc = await stats(id);
    expect(utc.body.bucket_minutes).toBe(2);
    // A span over 150 h picks 60-minute buckets: in Kolkata (UTC+5:30) they start at :30 UTC.
    const long = await insertCampaign(owner.userId, ventas);
    await insertRecipients(long, owner.userId, [
      { sent: '2026-03-06T10:07:00Z', status: 'sent' },
      { sent: '2026-03-13T10:07:00Z', status: 'sent' },
    ]);
    const kolkata = await stats(long, '?tz=Asia/Kolkata');
    expect(kolkata.status).toBe(200);
    expect(kolkata.body.bucket_minutes).toBe(60);
    expect(kolkata.body.time_zone).toBe('Asia/Kolkata');
    expect(kolkata.body.timeline[0]!.at).toBe('2026-03-06T09:30:00.000Z');
    const plain = await stats(long);
    expect(plain.body.timeline[0]!.at).toBe('2026-03-06T10:00:00.000Z');
  });

  it('counts the funnel attempted → sent → delivered → read → replied', async () => {
    const id = await insertCampaign(owner.userId, ventas);
    const at = '2026-03-07T12:00:00Z';
    await insertRecipients(id, owner.userId, [
      // Skipped by the freeze (never claimed): not attempted.
      { status: 'skipped', attempts: 0, message: 'Sin número de teléfono válido' },
      { status: 'skipped', attempts: 0, message: 'Número repetido' },
      // Skipped by the sender after a claim (blacklisted since the freeze): attempted.
      { status: 'skipped', attempts: 1, message: 'Número en la lista negra' },
      { status: 'pending', attempts: 0 },
      { status: 'failed', failed: at, code: 131026 },
      { status: 'sent', sent: at },
      { status: 'delivered', sent: at, delivered: at },
      { status: 'read', sent: at, delivered: at, read: at, replied: at },
      // A read receipt without the delivered one still counts as delivered.
      { status: 'read', sent: at, read: at },
    ]);
    const { body } = await stats(id);
    expect(body.funnel).toEqual({ attempted: 7, sent: 4, delivered: 3, read: 2, replied: 1 });
  });

  it('groups failures by Meta code with Spanish descriptions', async () => {
    const id = await insertCampaign(owner.userId, ventas);
    const at = '2026-03-08T12:00:00Z';
    await insertRecipients(id, owner.userId, [
      { status: 'failed', failed: at, code: 131026, message: 'Message undeliverable' },
      { status: 'failed', failed: at, code: 131026, message: 'Message undeliverable' },
      { status: 'failed', failed: at, code: 131026, message: 'Message undeliverable' },
      { status: 'failed', failed: at, code: 131049, message: 'healthy ecosystem' },
      { status: 'failed', failed: at, code: 131049, message: 'healthy ecosystem' },
      { status: 'failed', failed: at, code: null, message: 'fetch failed' },
      { status: 'failed', failed: at, code: 123456, message: 'Something new' },
      // Not failed: not in the chart.
      { status: 'sent', sent: at },
      { status: 'skipped', attempts: 0 },
    ]);
    const { body } = await stats(id);
    expect(body.failures).toEqual([
      { code: 131026, description: META_ERROR_DESCRIPTIONS[131026], count: 3 },
      { code: 131049, description: META_ERROR_DESCRIPTIONS[131049], count: 2 },
      { code: 123456, description: 'Error 123456 de Meta: Something new', count: 1 },
      { code: null, description: NO_CODE_DESCRIPTION, count: 1 },
    ]);
    expect(body.failures[0]!.description).toMatch(/no tiene WhatsApp/);
  });

  it('answers an empty campaign with zeros and no points', async () => {
    const id = await insertCampaign(owner.userId, ventas, 'Vacía');
    const { status, body } = await stats(id);
    expect(status).toBe(200);
    expect(body).toEqual({
      bucket_minutes: 1,
      time_zone: 'UTC',
      timeline: [],
      funnel: { attempted: 0, sent: 0, delivered: 0, read: 0, replied: 0 },
      failures: [],
      folded_at: expect.any(String),
    });
    // Folded on demand a moment ago: the screen's "Datos actualizados hace …".
    expect(Date.now() - Date.parse(body.folded_at!)).toBeLessThan(60_000);
  });

  it("answers 404 for another tenant's campaign and for a missing one", async () => {
    const foreign = await insertCampaign(other.userId, foreignNumber, 'Ajena');
    await insertRecipients(foreign, other.userId, [{ status: 'sent', sent: '2026-03-09T10:00:00Z' }]);
    const res = await stats(foreign);
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('Campaña no encontrada');
    expect((await stats(99_999_999)).status).toBe(404);
    // Its owner sees it.
    expect((await stats(foreign, '', other.headers)).body.funnel.sent).toBe(1);
  });

  it('refuses an unknown time zone with a Spanish message', async () => {
    const id = await insertCampaign(owner.userId, ventas);
    const res = await stats(id, '?tz=Marte/Olympus');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/Zona horaria inválida/);
    expect((await stats(id, "?tz=UTC';drop table users;--")).status).toBe(400);
  });
});

describe('GET /api/dashboard/activity', () => {
  const dayIn = (iso: string, zone: string) =>
    new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(iso));

  let twoDaysAgo: string;
  let lateNight: string;

  beforeAll(async () => {
    const now = Date.now();
    twoDaysAgo = new Date(now - 2 * 86_400_000).toISOString();
    // 02:30 UTC four days ago: the previous day in Bogotá (UTC-5).
    const d = new Date(now - 4 * 86_400_000);
    d.setUTCHours(2, 30, 0, 0);
    lateNight = d.toISOString();
    const old = new Date(now - 40 * 86_400_000).toISOString();

    const a = await insertCampaign(owner.userId, ventas, 'Ventas 1');
    await insertRecipients(a, owner.userId, [
      { status: 'read', sent: twoDaysAgo, delivered: twoDaysAgo, read: twoDaysAgo },
      { status: 'read', sent: twoDaysAgo, read: twoDaysAgo },
      { status: 'delivered', sent: twoDaysAgo, delivered: twoDaysAgo },
      { status: 'sent', sent: twoDaysAgo },
      { status: 'failed', failed: twoDaysAgo, code: 131026 },
      { status: 'sent', sent: lateNight },
      // Outside the window: not counted.
      { status: 'read', sent: old, delivered: old, read: old },
      { status: 'failed', failed: old, code: 131026 },
    ]);
    const b = await insertCampaign(owner.userId, soporte, 'Soporte 1');
    await insertRecipients(b, owner.userId, [{ status: 'delivered', sent: twoDaysAgo, delivered: twoDaysAgo }]);
    // A campaign whose number was deleted.
    const orphan = await insertCampaign(owner.userId, null, 'Sin número');
    await insertRecipients(orphan, owner.userId, [{ status: 'sent', sent: twoDaysAgo }]);
    // Another tenant's sends never show.
    const foreign = await insertCampaign(other.userId, foreignNumber, 'Ajena');
    await insertRecipients(foreign, other.userId, [{ status: 'read', sent: twoDaysAgo, delivered: twoDaysAgo, read: twoDaysAgo }]);
  });

  it('lists every number of the user with its 30 days, volumes per day', async () => {
    const { status, body } = await activity();
    expect(status).toBe(200);
    expect(body.days).toBe(30);
    expect(body.time_zone).toBe('UTC');
    expect(body.to).toBe(dayIn(new Date().toISOString(), 'UTC'));
    const names = body.numbers.map((n) => n.name);
    expect(names).toContain('Cuenta pn-ventas');
    expect(names).toContain('Cuenta pn-soporte');
    expect(names).toContain(DELETED_NUMBER);
    expect(names.some((n) => n.includes('ajeno'))).toBe(false);
    for (const n of body.numbers) {
      expect(n.days).toHaveLength(30);
      expect(n.days[0]!.day).toBe(body.from);
      expect(n.days[29]!.day).toBe(body.to);
    }
    const v = body.numbers.find((n) => n.whatsapp_account_id === ventas)!;
    const day = v.days.find((d) => d.day === dayIn(twoDaysAgo, 'UTC'))!;
    expect(day).toEqual({ day: dayIn(twoDaysAgo, 'UTC'), sent: 4, delivered: 3, read: 2, failed: 1 });
    const totalSent = v.days.reduce((s, d) => s + d.sent, 0);
    expect(totalSent).toBe(5);
    expect(v.days.reduce((s, d) => s + d.failed, 0)).toBe(1);
    const s = body.numbers.find((n) => n.whatsapp_account_id === soporte)!;
    expect(s.days.reduce((sum, d) => sum + d.delivered, 0)).toBe(1);
    const orphan = body.numbers.find((n) => n.whatsapp_account_id === null)!;
    expect(orphan.days.reduce((sum, d) => sum + d.sent, 0)).toBe(1);
  });

  it("buckets days in the browser's zone", async () => {
    const { body } = await activity('?tz=America/Bogota&days=30');
    expect(body.time_zone).toBe('America/Bogota');
    const v = body.numbers.find((n) => n.whatsapp_account_id === ventas)!;
    const localDay = dayIn(lateNight, 'America/Bogota');
    expect(localDay).not.toBe(dayIn(lateNight, 'UTC'));
    expect(v.days.find((d) => d.day === localDay)!.sent).toBe(1);
    expect(v.days.find((d) => d.day === dayIn(lateNight, 'UTC'))?.sent ?? 0).toBe(0);
  });

  it('takes a shorter window and refuses bad parameters in Spanish', async () => {
    const short = await activity('?days=3');
    expect(short.body.numbers[0]!.days).toHaveLength(3);
    const v = short.body.numbers.find((n) => n.whatsapp_account_id === ventas)!;
    expect(v.days.reduce((s, d) => s + d.sent, 0)).toBe(4);
    for (const q of ['?days=0', '?days=91', '?days=abc', '?days=2.5', '?tz=Nowhere/City']) {
      const res = await activity(q);
      expect(res.status, q).toBe(400);
      expect(res.body.error, q).toMatch(/días|Zona horaria/);
    }
  });

  it("shows another tenant only its own numbers", async () => {
    const { body } = await activity('', other.headers);
    expect(body.numbers.map((n) => n.whatsapp_account_id)).toEqual([foreignNumber]);
    expect(body.numbers[0]!.days.reduce((s, d) => s + d.read, 0)).toBe(1);
  });
});

describe('fed by status webhooks in Meta\'s shapes', () => {
  const ROUTE = { wabaId: '2001', phoneNumberId: '1001' };
  let engine: CampaignEngine;
  beforeAll(() => {
    engine = startCampaignEngine(t.ctx, { runSenders: false, runScheduler: false, inboxPollMs: 20 });
  });
  afterAll(() => engine?.stop());

  async function post(payload: unknown) {
    const res = await postWebhook(t.app, APP_SECRET, payload);
    expect(res.statusCode).toBe(200);
    await waitFor(() => rowsOf<{ n: number }>(t.ctx.db, sql`select count(*)::int as n from webhook_events`), ([r]) => Number(r.n) === 0, 5_000, 'inbox drained');
  }

  it('counts the sent, read and failed statuses Meta reports, failures by code in Spanish', async () => {
    const { userId, headers } = await t.signUp();
    const world = await seedCampaignWorld(t.ctx.db, t.ctx.secrets, userId, { number: { ...ROUTE, token: 'tok' }, contacts: 4 });
    const c = await createCampaign(t.ctx, userId, {
      name: 'Webhooks', kommo_account_id: world.kommoAccountId, whatsapp_account_id: world.whatsappAccountId, template_id: world.templateId,
    });
    await startCampaign(t.ctx, userId, c.id);
    // As the sender leaves them: claimed, sent to Meta, each with its wamid.
    await t.ctx.db.execute(sql`update campaign_recipients set status = 'sending', attempts = 1, claimed_at = now(), claim_owner = 'x',
        wamid = 'wamid.' || campaign_id || '.' || id where campaign_id = ${c.id}`);
    const ids = (await rowsOf<{ id: number }>(t.ctx.db, sql`select id::int as id from campaign_recipients where campaign_id = ${c.id} order by id`)).map((r) => Number(r.id));
    const wamid = (i: number) => `wamid.${c.id}.${ids[i]}`;
    // 2026-03-02 10:00:05Z and 10:03:20Z, as Meta's unix-seconds timestamps.
    const at = (iso: string) => String(Date.parse(iso) / 1000);
    await post(meta.statusWebhook(ROUTE, { wamid: wamid(0), status: 'sent', timestamp: at('2026-03-02T10:00:05Z') }));
    await post(meta.statusWebhook(ROUTE, { wamid: wamid(0), status: 'read', timestamp: at('2026-03-02T10:03:20Z') }));
    await post(meta.statusWebhook(ROUTE, { wamid: wamid(1), status: 'sent', timestamp: at('2026-03-02T10:00:06Z') }));
    await post(
      meta.statusWebhook(ROUTE, {
        wamid: wamid(2),
        status: 'failed',
        timestamp: at('2026-03-02T10:00:07Z'),
        pricing: null,
        errors: [{ code: 131026, title: 'Message undeliverable' }],
      }),
    );
    await post(meta.statusWebhook(ROUTE, { wamid: wamid(3), status: 'failed', timestamp: at('2026-03-02T10:00:08Z'), pricing: null, errors: [meta.ERROR_131050] }));

    const res = await t.app.inject({ method: 'GET', url: `/api/campaigns/${c.id}/stats`, headers });
    expect(res.statusCode).toBe(200);
    const body = res.json() as CampaignStats;
    expect(body.funnel).toEqual({ attempted: 4, sent: 2, delivered: 1, read: 1, replied: 0 });
    expect(body.timeline).toEqual([
      { at: '2026-03-02T10:00:00.000Z', sent: 2, delivered: 0, read: 0 },
      { at: '2026-03-02T10:01:00.000Z', sent: 0, delivered: 0, read: 0 },
      { at: '2026-03-02T10:02:00.000Z', sent: 0, delivered: 0, read: 0 },
      { at: '2026-03-02T10:03:00.000Z', sent: 0, delivered: 1, read: 1 },
    ]);
    expect(body.failures.map((f) => [f.code, f.description, f.count])).toEqual([
      [131026, META_ERROR_DESCRIPTIONS[131026], 1],
      [131050, 'La persona dejó de recibir mensajes de marketing de esta empresa', 1],
    ]);
  });
});
