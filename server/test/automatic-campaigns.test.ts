import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { startKommoSim, type KommoSim } from '@masivo/simulators/kommo';
import { LEFT_STAGE, NO_MAIN_CONTACT, REENTRY, STALE_EVENT } from '@masivo/contract/automation-trigger';
import type { CreateAutomaticCampaignInput } from '@masivo/contract/automations';
import { createKommoClient } from '../src/integrations/kommo/client';
import { createKommoLeadLookup, type KommoLeadLookup } from '../src/integrations/kommo/lead-lookup';
import { createKommoWriteApi } from '../src/integrations/kommo/write-api';
import { startKommoWritebackRunner } from '../src/engine/kommo-writeback/writeback-runner';
import { rowsOf } from '../src/db/sql';
import { phoneKey } from '../src/lib/phone';
import { createAutomaticCampaign } from '../src/services/automations/create-automatic';
import { automationsNeedLeadEvents, recordLeadEvents, type LeadStageEvent } from '../src/services/automations/lead-events';
import { setAutomationSwitchedHook } from '../src/services/automations/automation-hooks';
import { startCampaign } from '../src/services/campaigns/start-campaign';
import { pauseCampaign } from '../src/services/campaigns/pause-campaign';
import { deleteCampaign } from '../src/services/campaigns/delete-campaign';
import { getCampaign } from '../src/services/campaigns/campaign-queries';
import { NO_VALID_PHONE } from '../src/services/campaigns/audience-classifier';
import { digitsOf, phoneOf } from './helpers/campaign-fixtures';
import { startEngineBed, waitFor, type EngineBed } from './helpers/engine-bed';

const NUMBER = { phoneNumberId: '7101', wabaId: 'waba-7101', token: 'tok-7101', rate: 20 };
const SUBDOMAIN = `demo${NUMBER.phoneNumberId}`;
const KOMMO_TOKEN = 'kommo-token';
const now = () => Math.floor(Date.now() / 1000);
/** Contact n's open lead in the simulator (none when n is a multiple of 4). */
const leadOf = (n: number) => n * 10 + 1;

let kommo: KommoSim;
let bed: EngineBed;
let stage: { pipelineId: number; statusId: number; otherStatusId: number };
let account: { organizationId: number; accountId: number };
const switched: number[] = [];

/**
 * The real look-up on the Kommo simulator. The simulator's leads carry no `_embedded.contacts`;
 * only here, the main contact is derived as the simulator does (lead 10n+1 → contact n).
 */
function simLookup(sim: KommoSim): KommoLeadLookup {
  const client = createKommoClient({ baseUrlTemplate: sim.baseUrlTemplate, rps: 50, timeoutMs: 2_000, retries: 2, backoffMs: 20 });
  const real = createKommoLeadLookup(client, (creds, ids, signal) => client.contactsByIds(creds, ids, signal));
  return {
    async leadsWithContacts(creds, ids, signal) {
      const leads = await real.leadsWithContacts(creds, ids, signal);
      return leads.map((l) => ({ ...l, mainContactId: l.mainContactId ?? (l.id % 10 === 1 ? (l.id - 1) / 10 : null) }));
    },
    contactsByIds: real.contactsByIds,
  };
}

async function moveLead(leadId: number, statusId: number) {
  const client = createKommoClient({ baseUrlTemplate: kommo.baseUrlTemplate, rps: 50 });
  await createKommoWriteApi(client).moveLeads({ subdomain: SUBDOMAIN, accessToken: KOMMO_TOKEN }, [{ id: leadId, pipelineId: stage.pipelineId, statusId }]);
}

function enter(n: number, at = now(), source: LeadStageEvent['source'] = 'webhook'): LeadStageEvent {
  return { leadId: leadOf(n), pipelineId: stage.pipelineId, statusId: stage.statusId, oldStatusId: null, on: 'enter', at, source };
}

async function automatic(name: string, trigger: Partial<CreateAutomaticCampaignInput['trigger']> = {}, extra: Partial<CreateAutomaticCampaignInput> = {}) {
  const w = bed.worlds[0]!;
  const c = await createAutomaticCampaign(bed.t.ctx, bed.userId, {
    kind: 'automatic',
    name,
    kommo_account_id: w.kommoAccountId,
    whatsapp_account_id: w.whatsappAccountId,
    template_id: w.templateId,
    sending_hours: null,
    trigger: { pipeline_id: stage.pipelineId, status_id: stage.statusId, on: 'enter', delay_seconds: 0, reentry_days: 30, ...trigger },
    ...extra,
  });
  return startCampaign(bed.t.ctx, bed.userId, c.id);
}

const recipients = (campaignId: number) =>
  rowsOf<{ lead_id: number; status: string; error_message: string | null; phone: string | null }>(
    bed.t.ctx.db,
    sql`select lead_id::float8 as lead_id, status, error_message, phone from campaign_recipients where campaign_id = ${campaignId} order by id`,
  );
const sentTo = (n: number) => bed.sim.messages().filter((m) => m.to === digitsOf(n)).length;
const settled = (rows: Array<{ status: string }>) => rows.length > 0 && rows.every((r) => !['waiting', 'pending', 'sending'].includes(r.status));

beforeAll(async () => {
  kommo = await startKommoSim({ rps: 50, accounts: [{ subdomain: SUBDOMAIN, token: KOMMO_TOKEN, contacts: 60 }] });
  bed = await startEngineBed({ numbers: [NUMBER], contacts: 60, engine: { leadLookup: simLookup(kommo), automationPollMs: 100 } });
  const main = kommo.pipelines(SUBDOMAIN).find((p) => p.isMain)!;
  stage = { pipelineId: main.id, statusId: main.statuses[1]!.id, otherStatusId: main.statuses[2]!.id };
  account = { organizationId: bed.userId, accountId: bed.worlds[0]!.kommoAccountId };
  setAutomationSwitchedHook((_ctx, orgId, accountId) => void switched.push(orgId * 1000 + accountId));
}, 60_000);

afterAll(async () => {
  setAutomationSwitchedHook(null);
  await bed?.close();
  await kommo?.close();
});

describe('automatic campaigns: a Kommo stage event sends the template', () => {
  it('a stage move sends once, with the same event repeated by the webhook, a retry and the catch-up', async () => {
    const c = await automatic('Bienvenida');
    expect(c.status).toBe('sending');
    expect(c.audience_kind).toBe('automatic');
    const at = now();
    await recordLeadEvents(bed.t.ctx.db, account, [enter(1, at)]);
    await recordLeadEvents(bed.t.ctx.db, account, [enter(1, at), enter(1, at, 'catchup')]);
    const rows = await waitFor(() => recipients(c.id), settled, 15_000, 'the event settled');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ lead_id: leadOf(1), phone: phoneOf(1) });
    await waitFor(async () => sentTo(1), (n) => n === 1, 10_000, 'one message');
    await recordLeadEvents(bed.t.ctx.db, account, [enter(1, at, 'catchup')]);
    await new Promise((r) => setTimeout(r, 600));
    expect(sentTo(1)).toBe(1);
    const view = await getCampaign(bed.t.ctx.db, bed.userId, c.id);
    // Stays switched on with nobody pending: it never completes while on.
    expect(view.status).toBe('sending');
    expect(view.automation).toMatchObject({ events_received: 1, waiting: 0 });
    expect(view.total_recipients).toBe(1);
    await pauseCampaign(bed.t.ctx, bed.userId, c.id);
  });

  it('a lead that left the stage, a lead without a main contact, a contact without phone, a blacklisted one: skipped with the reason', async () => {
    const c = await automatic('Motivos');
    await moveLead(leadOf(2), stage.otherStatusId);
    await bed.t.ctx.db.execute(sql`update contacts set phone = null where user_id = ${bed.userId} and kommo_id = 3`);
    await bed.t.ctx.db.execute(sql`insert into blacklist (user_id, account_id, phone, phone_key)
        values (${bed.userId}, ${account.accountId}, ${phoneOf(5)}, ${phoneKey(phoneOf(5))})`);
    // Lead 102 is contact 10's won lead (the simulator gives multiples of 5 a second, won lead).
    const won = { ...enter(10), leadId: 102 };
    await recordLeadEvents(bed.t.ctx.db, account, [enter(2), enter(3), enter(5), enter(6), won]);
    const rows = await waitFor(() => recipients(c.id), (r) => r.length === 5 && settled(r), 15_000, 'five settled');
    const byLead = new Map(rows.map((r) => [Number(r.lead_id), r]));
    expect(byLead.get(leadOf(2))).toMatchObject({ status: 'skipped', error_message: LEFT_STAGE });
    expect(byLead.get(leadOf(3))).toMatchObject({ status: 'skipped', error_message: NO_VALID_PHONE });
    expect(byLead.get(leadOf(5))?.status).toBe('skipped');
    expect(byLead.get(leadOf(5))?.error_message).toMatch(/lista negra/);
    // The won lead is in another stage: it left «Contacto inicial» (the simulator's won leads sit in 142).
    expect(byLead.get(102)).toMatchObject({ status: 'skipped', error_message: LEFT_STAGE });
    expect(['sent', 'delivered', 'read']).toContain(byLead.get(leadOf(6))?.status);
    expect(sentTo(2) + sentTo(3) + sentTo(5)).toBe(0);
    const view = await getCampaign(bed.t.ctx.db, bed.userId, c.id);
    expect(view.automation?.skipped_by_reason.map((s) => s.count).reduce((a, b) => a + b, 0)).toBe(4);
    expect(NO_MAIN_CONTACT).toMatch(/contacto principal/);
    await pauseCampaign(bed.t.ctx, bed.userId, c.id);
  });

  it('re-entry within the days does not send again', async () => {
    const c = await automatic('Reingreso', { reentry_days: 7 });
    const at = now() - 600;
    await recordLeadEvents(bed.t.ctx.db, account, [enter(7, at)]);
    await waitFor(() => recipients(c.id), settled, 15_000, 'first entry');
    await recordLeadEvents(bed.t.ctx.db, account, [enter(7, at + 300)]);
    const rows = await waitFor(() => recipients(c.id), (r) => r.length === 2 && settled(r), 15_000, 'second entry');
    expect(rows[1]).toMatchObject({ status: 'skipped', error_message: REENTRY });
    await waitFor(async () => sentTo(7), (n) => n === 1, 10_000, 'one message');
    await pauseCampaign(bed.t.ctx, bed.userId, c.id);
  });

  it('the same person again, past the re-entry days: a second message (one row per event, not one per phone)', async () => {
    const c = await automatic('Cada vez', { reentry_days: 0 });
    const at = now() - 600;
    await recordLeadEvents(bed.t.ctx.db, account, [enter(17, at)]);
    await waitFor(() => recipients(c.id), settled, 15_000, 'first entry');
    await recordLeadEvents(bed.t.ctx.db, account, [enter(17, at + 300)]);
    const rows = await waitFor(() => recipients(c.id), (r) => r.length === 2 && settled(r), 15_000, 'second entry');
    expect(rows.map((r) => r.phone)).toEqual([phoneOf(17), phoneOf(17)]);
    await waitFor(async () => sentTo(17), (n) => n === 2, 10_000, 'two messages');
    await pauseCampaign(bed.t.ctx, bed.userId, c.id);
  });

  it('writes back to Kommo: a note on the person per message, as campaigns do when they complete', async () => {
    await bed.t.ctx.db.execute(sql`update kommo_accounts set writeback_enabled = true, writeback_enabled_at = now() - interval '1 minute', writeback_notes = true
        where id = ${account.accountId}`);
    const client = createKommoClient({ baseUrlTemplate: kommo.baseUrlTemplate, rps: 50, timeoutMs: 2_000, retries: 2, backoffMs: 20 });
    const writeback = startKommoWritebackRunner(bed.t.ctx, { api: createKommoWriteApi(client), pollMs: 50, lateEveryMs: 100 });
    try {
      const c = await automatic('Con nota');
      await recordLeadEvents(bed.t.ctx.db, account, [enter(18)]);
      const notes = await waitFor(async () => kommo.notes(SUBDOMAIN, 18).filter((n) => n.text.startsWith('Campaña Con nota:')), (n) => n.length === 1, 15_000, 'the note');
      expect(notes[0]!.text).toMatch(/Campaña Con nota: (entregado|leído)/);
      // Later visits write nothing more for the same message.
      await new Promise((r) => setTimeout(r, 500));
      expect(kommo.notes(SUBDOMAIN, 18).filter((n) => n.text.startsWith('Campaña Con nota:'))).toHaveLength(1);
      await pauseCampaign(bed.t.ctx, bed.userId, c.id);
    } finally {
      await writeback.stop();
      await bed.t.ctx.db.execute(sql`update kommo_accounts set writeback_enabled = false where id = ${account.accountId}`);
    }
  });

  it('paused: keeps recording; on resume sends those due, and skips «vencido» those more than 24 h late', async () => {
    const c = await automatic('Pausada');
    await pauseCampaign(bed.t.ctx, bed.userId, c.id);
    expect(await automationsNeedLeadEvents(bed.t.ctx.db, bed.userId, account.accountId)).toBe(true);
    await recordLeadEvents(bed.t.ctx.db, account, [enter(9, now() - 25 * 3600), enter(11)]);
    await new Promise((r) => setTimeout(r, 500));
    expect((await recipients(c.id)).map((r) => r.status)).toEqual(['waiting', 'waiting']);
    expect(sentTo(11)).toBe(0);
    await startCampaign(bed.t.ctx, bed.userId, c.id);
    const rows = await waitFor(() => recipients(c.id), settled, 15_000, 'resumed');
    expect(rows[0]).toMatchObject({ lead_id: leadOf(9), status: 'skipped', error_message: STALE_EVENT });
    await waitFor(async () => sentTo(11), (n) => n === 1, 10_000, 'sent on resume');
    expect(sentTo(9)).toBe(0);
    await pauseCampaign(bed.t.ctx, bed.userId, c.id);
  });

  it('a delay that ends outside the sending hours waits for the window', async () => {
    // A window of one hour, twelve hours from now, every day: the due event is outside it.
    const opens = new Date(Date.now() + 12 * 3600_000);
    const hh = (d: Date) => `${String(d.getUTCHours()).padStart(2, '0')}:00`;
    const c = await automatic('Horario', { delay_seconds: 1 }, {
      sending_hours: { days: [1, 2, 3, 4, 5, 6, 7], start: hh(opens), end: hh(new Date(opens.getTime() + 3600_000)), skip_holidays: false },
    });
    await bed.t.ctx.db.execute(sql`update kommo_accounts set time_zone = 'UTC' where id = ${account.accountId}`);
    await recordLeadEvents(bed.t.ctx.db, account, [enter(13)]);
    const rows = await waitFor(() => recipients(c.id), (r) => r.length === 1 && r[0]!.status === 'pending', 15_000, 'pending');
    expect(rows[0]!.phone).toBe(phoneOf(13));
    await waitFor(() => getCampaign(bed.t.ctx.db, bed.userId, c.id), (v) => v.hours_wait_until !== null, 10_000, 'waiting for the window');
    expect(sentTo(13)).toBe(0);
    await pauseCampaign(bed.t.ctx, bed.userId, c.id);
  });

  it('a crash between claim and send: the claimed row is never sent again, nor re-created by the event repeated', async () => {
    const c = await automatic('Caída', { delay_seconds: 3600 });
    const at = now() - 3600;
    // Recorded and resolved while the campaign is paused, so the sender cannot take it first.
    await pauseCampaign(bed.t.ctx, bed.userId, c.id);
    await recordLeadEvents(bed.t.ctx.db, account, [enter(14, at)]);
    // A worker claimed it (the intent committed) and died before the request left.
    await bed.t.ctx.db.execute(sql`update campaign_recipients set status = 'sending', attempts = 1, claimed_at = now() - interval '1 hour',
        claim_owner = 'dead-worker', phone = ${phoneOf(14)}, phone_key = ${phoneKey(phoneOf(14))} where campaign_id = ${c.id}`);
    await bed.t.ctx.db.execute(sql`update automation_events set resolved_at = now() where campaign_id = ${c.id}`);
    await bed.t.ctx.db.execute(sql`update campaigns set pending_count = 1 where id = ${c.id}`);
    await startCampaign(bed.t.ctx, bed.userId, c.id);
    await recordLeadEvents(bed.t.ctx.db, account, [enter(14, at, 'catchup')]);
    const rows = await waitFor(() => recipients(c.id), (r) => r[0]?.status === 'unknown', 15_000, 'unknown after the grace period');
    expect(rows).toHaveLength(1);
    expect(sentTo(14)).toBe(0);
    await pauseCampaign(bed.t.ctx, bed.userId, c.id);
  });

  it('deleted: records nothing more and calls the switch hook', async () => {
    const c = await automatic('Borrada');
    await pauseCampaign(bed.t.ctx, bed.userId, c.id);
    switched.length = 0;
    await deleteCampaign(bed.t.ctx, bed.userId, c.id);
    expect(switched).toEqual([bed.userId * 1000 + account.accountId]);
    await recordLeadEvents(bed.t.ctx.db, account, [enter(17)]);
    const [n] = await rowsOf<{ n: number }>(bed.t.ctx.db, sql`select count(*)::int as n from automation_events where campaign_id = ${c.id}`);
    expect(Number(n!.n)).toBe(0);
  });
});

describe('creating an automatic campaign', () => {
  it('POST /api/campaigns with kind automatic; validation errors in Spanish', async () => {
    const w = bed.worlds[0]!;
    const base = { kind: 'automatic', name: 'API', kommo_account_id: w.kommoAccountId, whatsapp_account_id: w.whatsappAccountId, template_id: w.templateId };
    const post = (payload: unknown) => bed.t.app.inject({ method: 'POST', url: '/api/campaigns', headers: bed.headers, payload: payload as object });
    const missing = await post(base);
    expect(missing.statusCode).toBe(400);
    expect(missing.body).toContain('El disparador es requerido');
    const badOn = await post({ ...base, trigger: { pipeline_id: stage.pipelineId, status_id: stage.statusId, on: 'sale' } });
    expect(badOn.statusCode).toBe(400);
    expect(badOn.body).toContain('Entra en la etapa');
    const badDelay = await post({ ...base, trigger: { pipeline_id: stage.pipelineId, status_id: stage.statusId, on: 'enter', delay_seconds: -5 } });
    expect(badDelay.body).toContain('La demora no puede ser negativa');
    const filters = await post({ ...base, trigger: { pipeline_id: 1, status_id: 2, on: 'enter' }, filters: {} });
    expect(filters.statusCode).toBe(400);
    const ok = await post({ ...base, trigger: { pipeline_id: stage.pipelineId, status_id: stage.statusId, on: 'created_in', delay_seconds: 3600, reentry_days: 3 } });
    expect(ok.statusCode).toBe(201);
    expect(ok.json()).toMatchObject({ status: 'draft', audience_kind: 'automatic', automation: { trigger: { on: 'created_in', delay_seconds: 3600, reentry_days: 3 }, events_received: 0 } });
    // A draft records nothing; a «Creado en la etapa» trigger ignores moves.
    expect(await automationsNeedLeadEvents(bed.t.ctx.db, bed.userId, w.kommoAccountId)).toBe(true); // paused ones above still record
    // An ordinary campaign's payload is unchanged.
    const ordinary = await post({ name: 'Normal', kommo_account_id: w.kommoAccountId, whatsapp_account_id: w.whatsappAccountId, template_id: w.templateId });
    expect(ordinary.statusCode).toBe(201);
    expect(ordinary.json().audience_kind).toBe('filter');
  });
});
