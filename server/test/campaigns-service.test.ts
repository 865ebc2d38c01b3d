import { countersFromRows as rowCounters } from './helpers/campaign-fixtures';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listMessages } from '../src/services/campaigns/campaign-messages';
import { getCampaign, listCampaigns } from '../src/services/campaigns/campaign-queries';
import { createCampaign } from '../src/services/campaigns/create-campaign';
import { deleteCampaign } from '../src/services/campaigns/delete-campaign';
import { pauseCampaign } from '../src/services/campaigns/pause-campaign';
import { retryFailed, retryUnknown } from '../src/services/campaigns/retry-failed';
import { startCampaign } from '../src/services/campaigns/start-campaign';
import { updateCampaign } from '../src/services/campaigns/update-campaign';
import { applyClaimOutcomes, applyDeliveryFacts, markStaleInFlightUnknown } from '../src/services/campaigns/recipient-transitions';
import { rowsOf } from '../src/db/sql';
import { createTestApp, type TestApp } from './helpers/app';
import {
  insertContact,
  insertContacts,
  insertKommoAccount,
  insertMappings,
  insertTemplate,
  seedCampaignWorld,
  type CampaignWorld,
} from './helpers/campaign-fixtures';

let t: TestApp;
let userId: number;
let world: CampaignWorld;

beforeAll(async () => {
  t = await createTestApp();
  ({ userId } = await t.signUp());
  world = await seedCampaignWorld(t.ctx.db, t.ctx.secrets, userId, {
    number: { phoneNumberId: '1001', wabaId: '2001', token: 'tok' },
    contacts: 30,
  });
});
afterAll(() => t.close());

const payload = (overrides: Record<string, unknown> = {}) => ({
  name: 'Promo de marzo',
  description: 'Clientes vip',
  kommo_account_id: world.kommoAccountId,
  whatsapp_account_id: world.whatsappAccountId,
  template_id: world.templateId,
  ...overrides,
});

async function expectError(work: Promise<unknown>, status: number, message: string | RegExp) {
  await expect(work).rejects.toMatchObject({ statusCode: status, message: expect.stringMatching(message) });
}

async function recipients(campaignId: number) {
  return rowsOf<{ id: number; status: string; phone: string | null; error_message: string | null; attempts: number }>(
    t.ctx.db,
    sql`select id::int as id, status, phone, error_message, attempts from campaign_recipients where campaign_id = ${campaignId} order by id`,
  );
}

const countersFromRows = (campaignId: number) => rowCounters(t.ctx.db, campaignId);

async function expectExactCounters(campaignId: number) {
  const c = await getCampaign(t.ctx.db, userId, campaignId);
  const rows = await countersFromRows(campaignId);
  for (const [k, v] of Object.entries(rows)) expect(c[k as keyof typeof c], k).toBe(v);
}

describe('creating campaigns', () => {
  it('creates a draft without schedule and counts its audience from the filters', async () => {
    const c = await createCampaign(t.ctx, userId, payload({ filters: { tags: ['vip'] } }));
    expect(c).toMatchObject({
      status: 'draft',
      name: 'Promo de marzo',
      message_type: 'template',
      template_name: 'promo',
      template_language: 'es',
      total_recipients: 3,
      messages_sent: 0,
      scheduled_at: null,
    });
    expect(c.filters.tags).toEqual(['vip']);
  });

  it('creates a scheduled campaign with a future time and refuses a past one', async () => {
    const at = new Date(Date.now() + 3600_000).toISOString();
    const c = await createCampaign(t.ctx, userId, payload({ scheduled_at: at }));
    expect(c.status).toBe('scheduled');
    expect(c.scheduled_at).toBe(at);
    await expectError(
      createCampaign(t.ctx, userId, payload({ scheduled_at: new Date(Date.now() - 60_000).toISOString() })),
      400,
      'La fecha de programación debe ser futura',
    );
    const empty = await createCampaign(t.ctx, userId, payload({ scheduled_at: '' }));
    expect(empty.status).toBe('draft');
  });

  it('requires an approved, fully mapped template of the chosen WhatsApp account', async () => {
    const pending = await insertTemplate(t.ctx.db, userId, world.whatsappAccountId, { name: 'pendiente', status: 'pending' });
    await expectError(createCampaign(t.ctx, userId, payload({ template_id: pending })), 400, 'La plantilla no está aprobada');

    const unmapped = await insertTemplate(t.ctx.db, userId, world.whatsappAccountId, { name: 'sin_mapear' });
    await insertMappings(t.ctx.db, userId, unmapped, [{ templateVariable: 'variable_1', sourceField: 'name' }]);
    await expectError(createCampaign(t.ctx, userId, payload({ template_id: unmapped })), 400, /variables sin configurar/);

    const other = await seedCampaignWorld(t.ctx.db, t.ctx.secrets, userId, {
      number: { phoneNumberId: '1002', wabaId: '2002', token: 'tok2' },
    });
    await expectError(
      createCampaign(t.ctx, userId, payload({ template_id: other.templateId })),
      400,
      'La plantilla no pertenece a la cuenta de WhatsApp seleccionada',
    );
  });

  it("refuses another user's accounts and templates with 404", async () => {
    const stranger = await t.signUp();
    const theirKommo = await insertKommoAccount(t.ctx.db, t.ctx.secrets, stranger.userId, 'ajena');
    await expectError(createCampaign(t.ctx, userId, payload({ kommo_account_id: theirKommo })), 404, 'Cuenta Kommo no encontrada');
    await expectError(createCampaign(t.ctx, stranger.userId, payload({ kommo_account_id: theirKommo })), 404, /WhatsApp no encontrada/);
  });

  it('validates the payload when called directly', async () => {
    await expectError(createCampaign(t.ctx, userId, payload({ name: '  ' })), 400, 'El nombre es requerido');
    await expectError(createCampaign(t.ctx, userId, { ...payload(), extra: 1 } as never), 400, /extra|reconocid/i);
  });
});

describe('reading campaigns', () => {
  it('lists only the user’s campaigns, newest first, and hides foreign ones behind 404', async () => {
    const first = await createCampaign(t.ctx, userId, payload({ name: 'Primera' }));
    const second = await createCampaign(t.ctx, userId, payload({ name: 'Segunda' }));
    const list = await listCampaigns(t.ctx.db, userId);
    expect(list.findIndex((c) => c.id === second.id)).toBeLessThan(list.findIndex((c) => c.id === first.id));
    const stranger = await t.signUp();
    expect(await listCampaigns(t.ctx.db, stranger.userId)).toEqual([]);
    await expectError(getCampaign(t.ctx.db, stranger.userId, first.id), 404, 'Campaña no encontrada');
    await expectError(startCampaign(t.ctx, stranger.userId, first.id), 404, 'Campaña no encontrada');
    await expectError(deleteCampaign(t.ctx, stranger.userId, first.id), 404, 'Campaña no encontrada');
  });
});

describe('updating campaigns', () => {
  it('keeps fields that are left out and recounts the audience when filters change', async () => {
    const c = await createCampaign(t.ctx, userId, payload());
    expect(c.total_recipients).toBe(30);
    const renamed = await updateCampaign(t.ctx, userId, c.id, { name: 'Nuevo nombre' });
    expect(renamed).toMatchObject({ name: 'Nuevo nombre', description: 'Clientes vip', total_recipients: 30 });
    const narrowed = await updateCampaign(t.ctx, userId, c.id, { filters: { tags: ['vip'] } });
    expect(narrowed.total_recipients).toBe(3);
    const scheduled = await updateCampaign(t.ctx, userId, c.id, { scheduled_at: new Date(Date.now() + 60_000).toISOString() });
    expect(scheduled.status).toBe('scheduled');
    const draft = await updateCampaign(t.ctx, userId, c.id, { scheduled_at: null });
    expect(draft).toMatchObject({ status: 'draft', scheduled_at: null });
  });

  it('refuses audience changes once the audience is frozen and edits while sending', async () => {
    const c = await createCampaign(t.ctx, userId, payload());
    await startCampaign(t.ctx, userId, c.id);
    await expectError(updateCampaign(t.ctx, userId, c.id, { name: 'x' }), 409, 'No se puede editar una campaña en estado Enviando');
    await pauseCampaign(t.ctx, userId, c.id);
    await expectError(updateCampaign(t.ctx, userId, c.id, { filters: { tags: ['vip'] } }), 409, /audiencia ya se congeló/);
    expect((await updateCampaign(t.ctx, userId, c.id, { name: 'Pausada' })).name).toBe('Pausada');
  });
});

describe('the audience freeze', () => {
  it('freezes one row per contact: invalid and repeated phones are skipped with a reason', async () => {
    const kommo = await insertKommoAccount(t.ctx.db, t.ctx.secrets, userId, 'freeze');
    await insertContact(t.ctx.db, userId, kommo, { kommoId: 1, phone: '+5491155550001', tags: ['x'] });
    await insertContact(t.ctx.db, userId, kommo, { kommoId: 2, phone: null, phoneRaw: 'n/a', tags: ['x'] });
    // The same person written with and without the mobile 9: one message only.
    await insertContact(t.ctx.db, userId, kommo, { kommoId: 3, phone: '+541155550001', tags: ['x'] });
    await insertContact(t.ctx.db, userId, kommo, { kommoId: 4, phone: '+5491155550002', tags: ['x'] });
    await insertContact(t.ctx.db, userId, kommo, { kommoId: 5, phone: '+5491155550003', tags: ['otro'] });
    const c = await createCampaign(t.ctx, userId, payload({ kommo_account_id: kommo, filters: { tags: ['x'] } }));
    expect(c.total_recipients).toBe(4);

    const started = await startCampaign(t.ctx, userId, c.id);
    expect(started).toMatchObject({ status: 'sending', total_recipients: 4, pending_count: 2, skipped_count: 2 });
    expect(started.started_at).not.toBeNull();
    const rows = await recipients(c.id);
    expect(rows.map((r) => [r.phone, r.status])).toEqual(
      expect.arrayContaining([
        ['+5491155550001', 'pending'],
        [null, 'skipped'],
        ['+541155550001', 'skipped'],
        ['+5491155550002', 'pending'],
      ]),
    );
    expect(rows.find((r) => r.phone === null)?.error_message).toBe('Sin número de teléfono válido');
    expect(rows.find((r) => r.phone === '+541155550001')?.error_message).toMatch(/repetido/);

    // A contact added later does not join a frozen audience, even after pause and resume.
    await insertContact(t.ctx.db, userId, kommo, { kommoId: 6, phone: '+5491155550009', tags: ['x'] });
    await pauseCampaign(t.ctx, userId, c.id);
    const resumed = await startCampaign(t.ctx, userId, c.id);
    expect(resumed.total_recipients).toBe(4);
    expect(await recipients(c.id)).toHaveLength(4);
    await expectExactCounters(c.id);
  });

  it('counts a phone as repeated only among the matched contacts, whoever else shares it', async () => {
    const kommo = await insertKommoAccount(t.ctx.db, t.ctx.secrets, userId, 'compartido');
    // Two contacts share a phone but only the second matches the filter: it is attempted.
    await insertContact(t.ctx.db, userId, kommo, { kommoId: 1, phone: '+5491166660001', tags: ['otro'] });
    await insertContact(t.ctx.db, userId, kommo, { kommoId: 2, phone: '+5491166660001', tags: ['x'] });
    // Three matched contacts share another: the first is attempted, the other two are skipped.
    for (const kommoId of [3, 4, 5]) await insertContact(t.ctx.db, userId, kommo, { kommoId, phone: '+5491166660002', tags: ['x'] });
    const c = await createCampaign(t.ctx, userId, payload({ kommo_account_id: kommo, filters: { tags: ['x'] } }));
    const started = await startCampaign(t.ctx, userId, c.id);
    expect(started).toMatchObject({ total_recipients: 4, pending_count: 2, skipped_count: 2 });
    const rows = await recipients(c.id);
    expect(rows.map((r) => [r.phone, r.status])).toEqual([
      ['+5491166660001', 'pending'],
      ['+5491166660002', 'pending'],
      ['+5491166660002', 'skipped'],
      ['+5491166660002', 'skipped'],
    ]);
  });

  it('deletes campaigns with their recipients, one or several in a statement', async () => {
    const kommo = await insertKommoAccount(t.ctx.db, t.ctx.secrets, userId, 'borrar');
    await insertContacts(t.ctx.db, userId, kommo, 5);
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) {
      const c = await createCampaign(t.ctx, userId, payload({ kommo_account_id: kommo, name: `Borrar ${i}` }));
      await startCampaign(t.ctx, userId, c.id);
      await pauseCampaign(t.ctx, userId, c.id).catch(() => undefined);
      ids.push(c.id);
    }
    const count = async () =>
      Number((await rowsOf<{ n: number }>(t.ctx.db, sql`select count(*)::int as n from campaign_recipients where campaign_id = any(${sql.raw(`array[${ids.join(',')}]`)})`))[0]!.n);
    expect(await count()).toBe(15);
    await t.ctx.db.execute(sql`delete from campaigns where id = ${ids[0]!}`);
    expect(await count()).toBe(10);
    await t.ctx.db.execute(sql`delete from campaigns where id in (${ids[1]!}, ${ids[2]!})`);
    expect(await count()).toBe(0);
  });

  it('completes at once when nobody can be sent to', async () => {
    const kommo = await insertKommoAccount(t.ctx.db, t.ctx.secrets, userId, 'vacia');
    await insertContact(t.ctx.db, userId, kommo, { kommoId: 1, phone: null });
    const c = await createCampaign(t.ctx, userId, payload({ kommo_account_id: kommo }));
    const started = await startCampaign(t.ctx, userId, c.id);
    expect(started).toMatchObject({ status: 'completed', skipped_count: 1, pending_count: 0 });
    expect(started.completed_at).not.toBeNull();
  });
});

describe('state rules (spec §4)', () => {
  it('starts from draft, scheduled and paused only; pauses from sending only', async () => {
    const c = await createCampaign(t.ctx, userId, payload());
    await expectError(pauseCampaign(t.ctx, userId, c.id), 409, 'No se puede pausar una campaña en estado Borrador');
    expect((await startCampaign(t.ctx, userId, c.id)).status).toBe('sending');
    await expectError(startCampaign(t.ctx, userId, c.id), 409, 'No se puede iniciar una campaña en estado Enviando');
    await expectError(deleteCampaign(t.ctx, userId, c.id), 409, 'No se puede eliminar una campaña en estado Enviando');
    expect((await pauseCampaign(t.ctx, userId, c.id)).status).toBe('paused');
    expect((await startCampaign(t.ctx, userId, c.id)).status).toBe('sending');
    await pauseCampaign(t.ctx, userId, c.id);
    await deleteCampaign(t.ctx, userId, c.id);
    await expectError(getCampaign(t.ctx.db, userId, c.id), 404, 'Campaña no encontrada');
    expect(await recipients(c.id)).toEqual([]);

    const scheduled = await createCampaign(t.ctx, userId, payload({ scheduled_at: new Date(Date.now() + 60_000).toISOString() }));
    await expectError(deleteCampaign(t.ctx, userId, scheduled.id), 409, 'No se puede eliminar una campaña en estado Programada');
    expect((await startCampaign(t.ctx, userId, scheduled.id)).status).toBe('sending');
    const draft = await createCampaign(t.ctx, userId, payload());
    await deleteCampaign(t.ctx, userId, draft.id);
  });

  it('refuses to start when the WhatsApp account is inactive or the template lost its approval', async () => {
    const c = await createCampaign(t.ctx, userId, payload());
    await t.ctx.db.execute(sql`update whatsapp_accounts set is_active = false where id = ${world.whatsappAccountId}`);
    await expectError(startCampaign(t.ctx, userId, c.id), 409, 'La cuenta de WhatsApp está desactivada');
    await t.ctx.db.execute(sql`update whatsapp_accounts set is_active = true where id = ${world.whatsappAccountId}`);
    await t.ctx.db.execute(sql`update templates set status = 'paused' where id = ${world.templateId}`);
    await expectError(startCampaign(t.ctx, userId, c.id), 400, 'La plantilla no está aprobada');
    await t.ctx.db.execute(sql`update templates set status = 'approved' where id = ${world.templateId}`);
    expect((await getCampaign(t.ctx.db, userId, c.id)).status).toBe('draft');
  });
});

describe('recipient transitions keep counters exact', () => {
  async function startedCampaign(n: number) {
    const kommo = await insertKommoAccount(t.ctx.db, t.ctx.secrets, userId, `tr${Math.random().toString(36).slice(2, 8)}`);
    await insertContacts(t.ctx.db, userId, kommo, n);
    const c = await createCampaign(t.ctx, userId, payload({ kommo_account_id: kommo }));
    await startCampaign(t.ctx, userId, c.id);
    const ids = (await recipients(c.id)).map((r) => r.id);
    const claim = (subset: number[]) =>
      t.ctx.db.execute(sql`update campaign_recipients set status = 'sending', attempts = attempts + 1, claimed_at = now(),
        claim_owner = 'me' where id in (select (jsonb_array_elements_text(${JSON.stringify(subset)}::jsonb))::bigint)`);
    return { c, ids, claim };
  }
  const at = (s: number) => new Date(1_750_000_000_000 + s * 1000).toISOString();

  it('moves statuses forward only, whatever the order and however often facts arrive', async () => {
    const { c, ids, claim } = await startedCampaign(4);
    await claim(ids);
    const [a, b, d, e] = ids;
    // read before delivered before the sender's own acceptance; a duplicate; a failure.
    await applyDeliveryFacts(t.ctx.db, [{ recipientId: a, wamid: 'wamid.a', readAt: at(3) }]);
    await applyDeliveryFacts(t.ctx.db, [
      { recipientId: a, wamid: 'wamid.a', deliveredAt: at(2) },
      { recipientId: b, wamid: 'wamid.b', deliveredAt: at(2) },
      { recipientId: d, wamid: 'wamid.d', failed: { at: at(2), code: 131026, message: 'Message undeliverable' } },
    ]);
    await applyDeliveryFacts(t.ctx.db, [
      { recipientId: a, wamid: 'wamid.a', sentAt: at(1), fromSender: true },
      { recipientId: b, wamid: 'wamid.b', sentAt: at(1), fromSender: true },
      { recipientId: d, wamid: 'wamid.d', sentAt: at(1), fromSender: true },
    ]);
    await applyDeliveryFacts(t.ctx.db, [{ recipientId: b, wamid: 'wamid.b', deliveredAt: at(2) }]);
    await applyDeliveryFacts(t.ctx.db, [{ recipientId: b, wamid: 'wamid.b', failed: { at: at(4), code: 131049, message: 'x' } }]);
    const rows = await rowsOf<Record<string, unknown>>(
      t.ctx.db,
      sql`select id::int as id, status, wamid, error_code from campaign_recipients where campaign_id = ${c.id} order by id`,
    );
    expect(rows.map((r) => r.status)).toEqual(['read', 'delivered', 'failed', 'sending']);
    expect(rows[2]).toMatchObject({ error_code: 131026, wamid: 'wamid.d' });
    const campaign = await getCampaign(t.ctx.db, userId, c.id);
    expect(campaign).toMatchObject({ messages_sent: 3, delivered_count: 2, read_count: 1, failed_count: 1, pending_count: 1 });
    await expectExactCounters(c.id);
    void e;
  });

  it('settles only its own claims; stale rows become unknown; retry never resends a delivered one', async () => {
    const { c, ids, claim } = await startedCampaign(6);
    await claim(ids);
    const [a, b, d, e, f, g] = ids;
    await applyClaimOutcomes(t.ctx.db, 'someone-else', [{ recipientId: a, kind: 'failed', code: 100, message: 'x' }]);
    expect((await recipients(c.id))[0].status).toBe('sending');
    await applyClaimOutcomes(t.ctx.db, 'me', [
      { recipientId: a, kind: 'failed', code: 131026, message: 'No está en WhatsApp' },
      { recipientId: b, kind: 'retry', delayMs: 60_000, code: 131056, message: 'pair limit' },
      { recipientId: d, kind: 'released' },
      { recipientId: e, kind: 'skipped', message: 'En la lista negra' },
    ]);
    await applyDeliveryFacts(t.ctx.db, [{ recipientId: f, wamid: 'wamid.f', deliveredAt: at(1) }]);
    await t.ctx.db.execute(sql`update campaign_recipients set claimed_at = now() - interval '1 hour' where id = ${g}`);
    expect(await markStaleInFlightUnknown(t.ctx.db, 30_000)).toBe(1);
    let rows = await recipients(c.id);
    expect(rows.map((r) => r.status)).toEqual(['failed', 'pending', 'pending', 'skipped', 'delivered', 'unknown']);
    expect(rows.map((r) => r.attempts)).toEqual([1, 1, 0, 1, 1, 1]);
    await expectExactCounters(c.id);

    await pauseCampaign(t.ctx, userId, c.id);
    const retried = await retryFailed(t.ctx, userId, c.id);
    expect(retried).toMatchObject({ status: 'paused', failed_count: 0, unknown_count: 1, pending_count: 3 });
    rows = await recipients(c.id);
    expect(rows.map((r) => r.status)).toEqual(['pending', 'pending', 'pending', 'skipped', 'delivered', 'unknown']);
    await expectExactCounters(c.id);
    const unknown = await retryUnknown(t.ctx, userId, c.id);
    expect(unknown).toMatchObject({ status: 'paused', failed_count: 0, unknown_count: 0, pending_count: 4 });
    rows = await recipients(c.id);
    expect(rows.map((r) => r.status)).toEqual(['pending', 'pending', 'pending', 'skipped', 'delivered', 'pending']);
    await expectExactCounters(c.id);
  });

  it('lists recipients by page and status with their errors', async () => {
    const { c, ids, claim } = await startedCampaign(5);
    await claim(ids.slice(0, 2));
    await applyClaimOutcomes(t.ctx.db, 'me', [{ recipientId: ids[0], kind: 'failed', code: 131026, message: 'No está en WhatsApp' }]);
    const all = await listMessages(t.ctx.db, userId, c.id, { page: 2, limit: 2 });
    expect(all).toMatchObject({ total: 5, page: 2, limit: 2 });
    expect(all.messages.map((m) => m.id)).toEqual(ids.slice(2, 4));
    const failed = await listMessages(t.ctx.db, userId, c.id, { status: 'failed', page: 1, limit: 50 });
    expect(failed.total).toBe(1);
    expect(failed.messages[0]).toMatchObject({
      status: 'failed',
      error_code: 131026,
      error_message: 'No está en WhatsApp',
      contact_name: 'Cliente 1',
      phone: '+5491100000001',
      attempts: 1,
    });
    expect(failed.messages[0].failed_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    const stranger = await t.signUp();
    await expectError(listMessages(t.ctx.db, stranger.userId, c.id, { page: 1, limit: 50 }), 404, 'Campaña no encontrada');
  });
});
