import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAN_START } from '@masivo/contract/campaigns';
import { createCallbackData } from '../src/engine/campaigns/callback-data';
import { createAccountSender, startCampaignEngine, type CampaignEngine } from '../src/engine/campaigns/index';
import { isOptOut } from '../src/services/blacklist/opt-out';
import { resolveEngineOptions } from '../src/engine/campaigns/options';
import { ResultWriter } from '../src/engine/campaigns/result-writer';
import { schedulerTick, START_FAILED } from '../src/engine/campaigns/scheduler';
import { TOKEN_UNREADABLE_REASON } from '../src/engine/campaigns/sender';
import { responseOutcome } from '../src/integrations/whatsapp/messenger';
import { createSecretBox } from '../src/lib/secret-box';
import { getCampaign } from '../src/services/campaigns/campaign-queries';
import { createCampaign } from '../src/services/campaigns/create-campaign';
import { startCampaign } from '../src/services/campaigns/start-campaign';
import { loadCampaignRow } from '../src/services/campaigns/campaign-queries';
import { markStaleInFlightUnknown } from '../src/services/campaigns/recipient-transitions';
import { rowsOf } from '../src/db/sql';
import { activate as activateCampaign } from '../src/services/campaigns/campaign-transitions';
import { applyTemplateStatusUpdate } from '../src/services/templates/status-update';
import { contactFieldValue } from '../src/services/variables/render';
import { createTestApp, type TestApp } from './helpers/app';
import { postWebhook } from './helpers/webhook';
import { seedCampaignWorld, type CampaignWorld } from './helpers/campaign-fixtures';
import { APP_SECRET, waitFor } from './helpers/engine-bed';

let t: TestApp;
let engine: CampaignEngine;
let victim: { userId: number; headers: { authorization: string } };
let attacker: { userId: number };
let vw: CampaignWorld;
let aw: CampaignWorld;

beforeAll(async () => {
  t = await createTestApp({ WHATSAPP_APP_SECRET: APP_SECRET });
  victim = await t.signUp();
  attacker = await t.signUp();
  vw = await seedCampaignWorld(t.ctx.db, t.ctx.secrets, victim.userId, {
    number: { phoneNumberId: '1001', wabaId: '2001', token: 'tok-v' },
    contacts: 8,
  });
  aw = await seedCampaignWorld(t.ctx.db, t.ctx.secrets, attacker.userId, {
    number: { phoneNumberId: '1009', wabaId: '2009', token: 'tok-a' },
    contacts: 3,
  });
  // Only the inbox: these tests play Meta's part by hand.
  engine = startCampaignEngine(t.ctx, { runSenders: false, runScheduler: false, inboxPollMs: 20 });
});
afterAll(async () => {
  await engine?.stop();
  await t?.close();
});

const post = (payload: unknown) => postWebhook(t.app, APP_SECRET, payload);
/** A status envelope as Meta posts it for a message sent from `phoneNumberId`. */
const statusFrom = (phoneNumberId: string, s: { id: string; status: string; ts: number; opaque?: string; errors?: unknown[] }) => ({
  object: 'whatsapp_business_account',
  entry: [
    {
      id: phoneNumberId === '1001' ? '2001' : '2009',
      changes: [
        {
          field: 'messages',
          value: {
            messaging_product: 'whatsapp',
            metadata: { display_phone_number: '5491100000000', phone_number_id: phoneNumberId },
            statuses: [
              {
                id: s.id,
                status: s.status,
                timestamp: String(s.ts),
                recipient_id: '5491100000001',
                ...(s.opaque ? { biz_opaque_callback_data: s.opaque } : {}),
                ...(s.errors ? { errors: s.errors } : {}),
              },
            ],
          },
        },
      ],
    },
  ],
});
const drained = () =>
  waitFor(
    () => rowsOf<{ n: number }>(t.ctx.db, sql`select count(*)::int as n from webhook_events`),
    ([r]) => Number(r.n) === 0,
    5_000,
    'inbox drained',
  );
const signed = (campaignId: number, recipientId: number) => createCallbackData(t.ctx.config.APP_SECRET).sign({ campaignId, recipientId });

async function launch(userId: number, w: CampaignWorld, name: string) {
  const c = await createCampaign(t.ctx, userId, {
    name,
    kommo_account_id: w.kommoAccountId,
    whatsapp_account_id: w.whatsappAccountId,
    template_id: w.templateId,
  });
  await startCampaign(t.ctx, userId, c.id);
  const ids = (
    await rowsOf<{ id: number }>(t.ctx.db, sql`select id::int as id from campaign_recipients where campaign_id = ${c.id} order by id`)
  ).map((r) => Number(r.id));
  return { id: c.id, ids };
}

const recipient = async (id: number) =>
  (
    await rowsOf<{ status: string; wamid: string | null; error_code: number | null }>(
      t.ctx.db,
      sql`select status, wamid, error_code from campaign_recipients where id = ${id}`,
    )
  )[0];

describe('H1: delivery statuses are authenticated and tied to the campaign’s number', () => {
  let c: { id: number; ids: number[] };
  beforeAll(async () => {
    c = await launch(victim.userId, vw, 'Víctima');
    await t.ctx.db.execute(sql`update campaign_recipients set status = 'sending', attempts = 1, claimed_at = now(), claim_owner = 'x'
      where campaign_id = ${c.id}`);
    await t.ctx.db.execute(sql`update campaign_recipients set wamid = 'wamid.V6' where id = ${c.ids[6]}`);
  });

  it('ignores forged, unsigned or foreign-number statuses, and leaves the counters alone', async () => {
    const before = await getCampaign(t.ctx.db, victim.userId, c.id);
    const probes = [
      // The review's probe: another tenant's send carrying the victim's ids, unsigned.
      statusFrom('1009', { id: 'wamid.att1', status: 'read', ts: 1_750_000_001, opaque: `masivo:${c.id}:${c.ids[0]}` }),
      statusFrom('1001', { id: 'wamid.att2', status: 'delivered', ts: 1_750_000_001, opaque: `masivo:${c.id}:${c.ids[1]}` }),
      // A tag that does not verify.
      statusFrom('1001', { id: 'wamid.att3', status: 'read', ts: 1_750_000_001, opaque: `masivo:${c.id}:${c.ids[2]}:${'0'.repeat(20)}` }),
      // A correct tag, but the status comes from another number than the campaign's.
      statusFrom('1009', { id: 'wamid.att4', status: 'failed', ts: 1_750_000_001, opaque: signed(c.id, c.ids[3]) }),
      // Matched by wamid, from another number.
      statusFrom('1009', { id: 'wamid.V6', status: 'failed', ts: 1_750_000_001 }),
    ];
    for (const p of probes) expect((await post(p)).statusCode).toBe(200);
    await drained();
    for (const i of [0, 1, 2, 3]) expect((await recipient(c.ids[i])).status).toBe('sending');
    expect(await recipient(c.ids[6])).toMatchObject({ status: 'sending', wamid: 'wamid.V6' });
    const after = await getCampaign(t.ctx.db, victim.userId, c.id);
    expect(after).toMatchObject({
      messages_sent: before.messages_sent,
      delivered_count: before.delivered_count,
      read_count: before.read_count,
      failed_count: before.failed_count,
    });
  });

  it('applies a signed status from the campaign’s own number, and the wamid path from that number', async () => {
    await post(statusFrom('1001', { id: 'wamid.V4', status: 'delivered', ts: 1_750_000_002, opaque: signed(c.id, c.ids[4]) }));
    await post(statusFrom('1001', { id: 'wamid.V6', status: 'read', ts: 1_750_000_002 }));
    await drained();
    expect(await recipient(c.ids[4])).toMatchObject({ status: 'delivered', wamid: 'wamid.V4' });
    expect((await recipient(c.ids[6])).status).toBe('read');
  });

  it('signs with a tag only this server can produce', () => {
    const mine = createCallbackData(t.ctx.config.APP_SECRET);
    const other = createCallbackData('another-app-secret-0123456789');
    const opaque = mine.sign({ campaignId: 7, recipientId: 42 });
    expect(opaque).toMatch(/^masivo:7:42:[0-9a-f]{20}$/);
    expect(mine.verify(opaque)).toEqual({ campaignId: 7, recipientId: 42 });
    expect(other.verify(opaque)).toBeNull();
    expect(mine.verify(opaque.replace(':42:', ':43:'))).toBeNull();
    expect(mine.verify('masivo:7:42')).toBeNull();
  });
});

describe('M3: an earlier attempt never overrides a newer outcome', () => {
  it('ignores a late failed of an old wamid once the row follows a newer message', async () => {
    const c = await launch(victim.userId, vw, 'Intentos');
    const r = c.ids[0];
    await t.ctx.db.execute(sql`update campaign_recipients set status = 'sending', attempts = 2, claimed_at = now(), claim_owner = 'x'
      where id = ${r}`);
    await post(statusFrom('1001', { id: 'wamid.w2', status: 'sent', ts: 1_750_000_010, opaque: signed(c.id, r) }));
    await drained();
    const lateFailure = statusFrom('1001', {
      id: 'wamid.w1',
      status: 'failed',
      ts: 1_750_000_005,
      opaque: signed(c.id, r),
      errors: [{ code: 131026, title: 'Message undeliverable' }],
    });
    await post(lateFailure);
    await drained();
    expect(await recipient(r)).toMatchObject({ status: 'sent', wamid: 'wamid.w2', error_code: null });
    expect(await getCampaign(t.ctx.db, victim.userId, c.id)).toMatchObject({ failed_count: 0 });
  });

  it('treats a 5xx without a Graph error body as ambiguous, never as a retry', () => {
    expect(responseOutcome(502, '').kind).toBe('ambiguous');
    expect(responseOutcome(504, '<html>Gateway Timeout</html>').kind).toBe('ambiguous');
    // Meta's own transient errors, with their body, are still retried; so is a bare 429.
    expect(responseOutcome(503, JSON.stringify({ error: { code: 131000, message: 'Something went wrong' } })).kind).toBe('retry');
    expect(responseOutcome(429, '').kind).toBe('retry');
  });
});

describe('H2: one campaign’s failure never stops the scheduler', () => {
  it('pauses the broken campaign with a reason and still starts and completes everyone else’s', async () => {
    const opts = resolveEngineOptions({});
    const make = async (userId: number, w: CampaignWorld, name: string, at: string) =>
      createCampaign(t.ctx, userId, {
        name,
        kommo_account_id: w.kommoAccountId,
        whatsapp_account_id: w.whatsappAccountId,
        template_id: w.templateId,
        scheduled_at: at,
      });
    const soon = new Date(Date.now() + 60_000).toISOString();
    const poison = await make(attacker.userId, aw, 'Veneno', soon);
    const healthy = await make(victim.userId, vw, 'Sana', soon);
    // Due now, the poison first; its filter makes the freeze throw a plain TypeError.
    await t.ctx.db.execute(sql`update campaigns set scheduled_at = now() - interval '2 minutes',
        filters = '{"searchQuery": 5, "tags": [], "tagsMode": "and", "customFieldFilters": {}}'::jsonb where id = ${poison.id}`);
    await t.ctx.db.execute(sql`update campaigns set scheduled_at = now() - interval '1 minute' where id = ${healthy.id}`);
    // A sending campaign with nothing left: must complete in the same tick.
    const finished = await launch(victim.userId, vw, 'Terminada');
    await t.ctx.db.execute(sql`update campaign_recipients set status = 'read', sent_at = now(), delivered_at = now(), read_at = now()
      where campaign_id = ${finished.id}`);
    await t.ctx.db.execute(sql`update campaigns set pending_count = 0, status = 'sending' where id = ${finished.id}`);

    const changed = await schedulerTick(t.ctx, opts);
    expect(changed).toEqual(expect.arrayContaining([poison.id, healthy.id, finished.id]));
    expect(await getCampaign(t.ctx.db, attacker.userId, poison.id)).toMatchObject({ status: 'paused', pause_reason: START_FAILED });
    expect((await getCampaign(t.ctx.db, victim.userId, healthy.id)).status).toBe('sending');
    expect((await getCampaign(t.ctx.db, victim.userId, finished.id)).status).toBe('completed');
    // And the next tick does not trip on it again.
    await expect(schedulerTick(t.ctx, opts)).resolves.toBeDefined();
  });
});

describe('H4: unknown means "the request left", and retrying it is a separate, confirmed action', () => {
  it('never marks a row queued behind a live sender as unknown; marks dispatched or orphaned rows', async () => {
    const c = await launch(victim.userId, vw, 'Recuperación');
    const [queued, dispatched, orphan] = c.ids;
    await t.ctx.db.execute(sql`insert into sender_leases (whatsapp_account_id, owner, expires_at)
        values (${vw.whatsappAccountId}, 'live-worker', now() + interval '1 hour')
        on conflict (whatsapp_account_id) do update set owner = 'live-worker', expires_at = now() + interval '1 hour'`);
    await t.ctx.db.execute(sql`update campaign_recipients set status = 'sending', attempts = 1,
        claimed_at = now() - interval '1 hour', claim_owner = 'live-worker', dispatched_at = null where id = ${queued}`);
    await t.ctx.db.execute(sql`update campaign_recipients set status = 'sending', attempts = 1,
        claimed_at = now() - interval '1 hour', claim_owner = 'live-worker', dispatched_at = now() - interval '1 hour' where id = ${dispatched}`);
    await t.ctx.db.execute(sql`update campaign_recipients set status = 'sending', attempts = 1,
        claimed_at = now() - interval '1 hour', claim_owner = 'dead-worker', dispatched_at = null where id = ${orphan}`);
    expect(await markStaleInFlightUnknown(t.ctx.db, 30_000)).toBe(2);
    expect((await recipient(queued)).status).toBe('sending');
    expect((await recipient(dispatched)).status).toBe('unknown');
    expect((await recipient(orphan)).status).toBe('unknown');
    await t.ctx.db.execute(sql`delete from sender_leases where whatsapp_account_id = ${vw.whatsappAccountId}`);
  });

  it('retries failed and unknown apart; unknown only with an explicit confirmation', async () => {
    const c = await launch(victim.userId, vw, 'Reintentos');
    await t.ctx.db.execute(sql`update campaign_recipients set status = 'unknown', attempts = 1 where id = ${c.ids[0]}`);
    await t.ctx.db.execute(sql`update campaign_recipients set status = 'failed', attempts = 1, error_code = 131026 where id = ${c.ids[1]}`);
    await t.ctx.db.execute(sql`update campaigns set unknown_count = 1, failed_count = 1, pending_count = pending_count - 2 where id = ${c.id}`);
    const url = (what: string) => `/api/campaigns/${c.id}/${what}`;

    const failed = await t.app.inject({ method: 'POST', url: url('retry-failed'), headers: victim.headers });
    expect(failed.statusCode).toBe(200);
    expect((await recipient(c.ids[0])).status).toBe('unknown');
    expect((await recipient(c.ids[1])).status).toBe('pending');

    for (const payload of [{}, { confirm: false }, { confirm: 'si' }]) {
      const res = await t.app.inject({ method: 'POST', url: url('retry-unknown'), headers: victim.headers, payload });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatch(/^confirm: /);
    }
    expect((await recipient(c.ids[0])).status).toBe('unknown');

    const other = await t.signUp();
    const foreign = await t.app.inject({ method: 'POST', url: url('retry-unknown'), headers: other.headers, payload: { confirm: true } });
    expect(foreign.statusCode).toBe(404);
    expect((await recipient(c.ids[0])).status).toBe('unknown');

    const ok = await t.app.inject({ method: 'POST', url: url('retry-unknown'), headers: victim.headers, payload: { confirm: true } });
    expect(ok.statusCode).toBe(200);
    expect((await recipient(c.ids[0])).status).toBe('pending');
    expect(ok.json()).toMatchObject({ unknown_count: 0 });
  });

  it('refuses to retry unknown recipients while webhooks are not configured', async () => {
    const bare = await createTestApp({ WHATSAPP_APP_SECRET: undefined as unknown as string });
    try {
      const u = await bare.signUp();
      const w = await seedCampaignWorld(bare.ctx.db, bare.ctx.secrets, u.userId, {
        number: { phoneNumberId: '3001', wabaId: '4001', token: 'tok' },
        contacts: 2,
      });
      const c = await createCampaign(bare.ctx, u.userId, {
        name: 'Sin webhooks',
        kommo_account_id: w.kommoAccountId,
        whatsapp_account_id: w.whatsappAccountId,
        template_id: w.templateId,
      });
      await startCampaign(bare.ctx, u.userId, c.id);
      await bare.ctx.db.execute(sql`update campaign_recipients set status = 'unknown' where campaign_id = ${c.id}`);
      const res = await bare.app.inject({
        method: 'POST',
        url: `/api/campaigns/${c.id}/retry-unknown`,
        headers: u.headers,
        payload: { confirm: true },
      });
      expect(res.statusCode).toBe(409);
      expect(res.json().error).toMatch(/webhooks/);
      const [n] = await rowsOf<{ n: number }>(
        bare.ctx.db,
        sql`select count(*)::int as n from campaign_recipients where campaign_id = ${c.id} and status = 'unknown'`,
      );
      expect(Number(n.n)).toBe(2);
    } finally {
      await bare.close();
    }
  });
});

describe('M10: an unreadable token pauses the number’s campaigns with the reason', () => {
  it('instead of leaving them in "Enviando"', async () => {
    const u = await t.signUp();
    const w = await seedCampaignWorld(t.ctx.db, t.ctx.secrets, u.userId, {
      number: { phoneNumberId: '5001', wabaId: '6001', token: 'tok' },
      contacts: 2,
    });
    const c = await createCampaign(t.ctx, u.userId, {
      name: 'Token ilegible',
      kommo_account_id: w.kommoAccountId,
      whatsapp_account_id: w.whatsappAccountId,
      template_id: w.templateId,
    });
    await startCampaign(t.ctx, u.userId, c.id);
    // Sealed under another APP_SECRET, as after the secret changed.
    const foreign = createSecretBox('a-different-app-secret-0123456789').seal('tok');
    await t.ctx.db.execute(sql`update whatsapp_accounts set access_token_enc = ${foreign} where id = ${w.whatsappAccountId}`);
    const opts = resolveEngineOptions({});
    const writer = new ResultWriter(t.ctx.db, t.ctx.instanceId, () => undefined);
    const sender = createAccountSender(t.ctx, w.whatsappAccountId, opts, writer, () => undefined);
    await expect(sender.start(performance.now() + 10_000)).rejects.toThrow();
    expect(await getCampaign(t.ctx.db, u.userId, c.id)).toMatchObject({ status: 'paused', pause_reason: TOKEN_UNREADABLE_REASON });
  });
});

describe('L4: start freezes the audience from the row as it is when locked', () => {
  it('uses filters saved after the caller read the campaign', async () => {
    const c = await createCampaign(t.ctx, victim.userId, {
      name: 'Filtro editado',
      kommo_account_id: vw.kommoAccountId,
      whatsapp_account_id: vw.whatsappAccountId,
      template_id: vw.templateId,
      filters: { searchQuery: 'no-coincide-con-nadie' },
    });
    const stale = await loadCampaignRow(t.ctx.db, victim.userId, c.id);
    await t.ctx.db.execute(sql`update campaigns set filters = '{"searchQuery": "", "tags": [], "tagsMode": "and", "customFieldFilters": {}}'::jsonb
      where id = ${c.id}`);
    await activateCampaign(t.ctx.db, stale, CAN_START);
    expect((await getCampaign(t.ctx.db, victim.userId, c.id)).total_recipients).toBe(8);
  });
});

describe('L5: template status webhooks are monotonic', () => {
  it('an older APPROVED does not bring back a paused template; a newer one does', async () => {
    await t.ctx.db.execute(sql`update templates set meta_id = 'tpl-1' where id = ${vw.templateId}`);
    const update = (event: string, at: number) =>
      applyTemplateStatusUpdate(
        t.ctx.db,
        '2001',
        { event, message_template_id: 'tpl-1', message_template_name: 'promo', message_template_language: 'es', reason: null },
        new Date(at * 1000),
      );
    const status = async () =>
      (await rowsOf<{ status: string }>(t.ctx.db, sql`select status from templates where id = ${vw.templateId}`))[0].status;
    await update('PAUSED', 1_750_000_100);
    expect(await status()).toBe('paused');
    await update('APPROVED', 1_750_000_050); // replayed or out of order
    expect(await status()).toBe('paused');
    await update('APPROVED', 1_750_000_100); // same second: a restriction wins
    expect(await status()).toBe('paused');
    await update('APPROVED', 1_750_000_200);
    expect(await status()).toBe('approved');
  });
});

describe('L7 and L8: small inputs that must stay cheap and literal', () => {
  it('a custom field named like an Object member renders empty', () => {
    const contact = { name: 'Ana', first_name: 'Ana', last_name: '', phone: '+5491100000001', email: null, custom_fields: { Plan: 'Pro' } };
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      expect(contactFieldValue(contact, `custom_fields.${name}`)).toBe('');
      expect(contactFieldValue(contact, name)).toBe('');
    }
    expect(contactFieldValue(contact, 'custom_fields.Plan')).toBe('Pro');
  });

  it('long inbound texts are not opt-outs and cost no quadratic trimming', () => {
    expect(isOptOut('  ¡Baja!  ')).toBe(true);
    const hostile = 'a' + ' '.repeat(4_000) + 'a';
    const started = performance.now();
    for (let i = 0; i < 50; i++) isOptOut(hostile);
    expect(performance.now() - started).toBeLessThan(50);
    expect(isOptOut('BAJA' + ' '.repeat(40))).toBe(true);
    expect(isOptOut('BAJA' + '.'.repeat(40))).toBe(false);
  });
});
