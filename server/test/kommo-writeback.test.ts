import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { startKommoSim, type KommoSim } from '@masivo/simulators/kommo';
import { writebackNoteText, writebackProgressLabel } from '@masivo/contract/kommo-writeback';
import { rowsOf } from '../src/db/sql';
import { createKommoClient } from '../src/integrations/kommo/client';
import { createKommoWriteApi } from '../src/integrations/kommo/write-api';
import { startKommoWritebackRunner, type WritebackRunnerOptions } from '../src/engine/kommo-writeback/writeback-runner';
import { startKommoSyncRunner } from '../src/engine/kommo-sync/sync-runner';
import type { BackgroundWork } from '../src/engine/background-work';
import { createTestApp, type TestApp } from './helpers/app';
import { insertContacts, insertKommoAccount } from './helpers/campaign-fixtures';

/**
 * Write-back of campaign results to Kommo: notes, tags and the lead move land in the
 * Kommo simulator; opt-in; resumable without duplicates; Kommo failures shown, campaign untouched;
 * the rate shared with a concurrent sync; tenant scoping.
 */

const RPS = 40;
let sim: KommoSim;
let t: TestApp;
let headers: { authorization: string };
let userId: number;
const runners: BackgroundWork[] = [];

beforeAll(async () => {
  sim = await startKommoSim({ rps: RPS, accounts: [] });
  t = await createTestApp({ KOMMO_BASE_URL: sim.baseUrlTemplate, KOMMO_RPS: String(RPS) });
  ({ headers, userId } = await t.signUp());
});
afterAll(async () => {
  for (const r of runners) await r.stop();
  await t.close();
  await sim.close();
});

/** Kommo calls the runners made, by "METHOD path". */
const calls: Record<string, number> = {};

function startRunner(o: WritebackRunnerOptions & { rps?: number } = {}) {
  const client = createKommoClient({ baseUrlTemplate: sim.baseUrlTemplate, rps: o.rps ?? RPS, timeoutMs: 2000, retries: 2, backoffMs: 20 });
  const api = createKommoWriteApi({
    call: (creds, path, opts) => {
      const key = `${opts.method ?? 'GET'} ${path}`;
      calls[key] = (calls[key] ?? 0) + 1;
      return client.call(creds, path, opts);
    },
  });
  const runner = startKommoWritebackRunner(t.ctx, { api, pollMs: 40, retryBaseMs: 100, lateEveryMs: 100, ...o });
  runners.push(runner);
  return runner;
}

async function stopRunner(r: BackgroundWork) {
  await r.stop();
  runners.splice(runners.indexOf(r), 1);
}

const api = (method: 'GET' | 'PUT', url: string, payload?: unknown, h = headers) => t.app.inject({ method, url, headers: h, payload: payload as never });

/** A Kommo account on the simulator (token 'kommo-token'), with `contacts` synced rows (kommo_id = 1..n). */
async function account(subdomain: string, contacts: number, uid = userId) {
  sim.addAccount({ subdomain, token: 'kommo-token', contacts: Math.max(contacts, 10), seed: 3 });
  const id = await insertKommoAccount(t.ctx.db, t.ctx.secrets, uid, subdomain);
  await insertContacts(t.ctx.db, uid, id, contacts);
  return id;
}

async function enable(accountId: number, extra: Record<string, unknown> = {}) {
  const pipelines = (await api('GET', `/api/kommo/accounts/${accountId}/pipelines`)).json();
  const main = pipelines.find((p: { is_main: boolean }) => p.is_main);
  const stage = main.statuses.find((s: { name: string }) => s.name === 'Respondió campaña');
  const res = await api('PUT', `/api/kommo/accounts/${accountId}/writeback`, {
    enabled: true,
    notes: true,
    opt_out_tag: 'Baja WhatsApp',
    reply_tag: 'Respondió WhatsApp',
    pipeline_id: main.id,
    status_id: stage.id,
    ...extra,
  });
  expect(res.statusCode, res.body).toBe(200);
  return { pipelineId: main.id as number, statusId: stage.id as number };
}

/**
 * A completed campaign over contacts 1..n. Outcome by i % 5: 0 failed ("Número inválido"),
 * 1 delivered, 2 read, 3 sent, 4 read and replied.
 */
async function completedCampaign(accountId: number, name: string, n: number, uid = userId) {
  const [{ id }] = await rowsOf<{ id: number }>(t.ctx.db, sql`
    insert into campaigns (user_id, name, status, kommo_account_id, filters, completed_at, total_recipients)
    values (${uid}, ${name}, 'completed', ${accountId}, '{}'::jsonb, now(), ${n}) returning id`);
  await t.ctx.db.execute(sql`
    insert into campaign_recipients (campaign_id, user_id, contact_id, phone, phone_key, status, error_message, replied_at, sent_at)
    select ${id}, ${uid}, c.id, c.phone, c.phone_key,
           case c.kommo_id % 5 when 0 then 'failed' when 1 then 'delivered' when 2 then 'read' when 3 then 'sent' else 'read' end,
           case when c.kommo_id % 5 = 0 then 'Número inválido' end,
           case when c.kommo_id % 5 = 4 then now() end,
           now()
    from contacts c where c.account_id = ${accountId} and c.kommo_id <= ${n}`);
  return Number(id);
}

async function progress(campaignId: number, h = headers) {
  const res = await api('GET', `/api/campaigns/${campaignId}/kommo-writeback`, undefined, h);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function waitFor<T>(what: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await what();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const expectedOutcome = (i: number) => ['falló (Número inválido)', 'entregado', 'leído', 'enviado', 'respondió'][i % 5];

async function campaignRow(id: number) {
  const [row] = await rowsOf(t.ctx.db, sql`select status, total_recipients, failed_count, updated_at, pause_reason from campaigns where id = ${id}`);
  return row;
}

describe('write-back of a finished campaign', () => {
  let accountId: number;
  let campaignId: number;
  let stage: { pipelineId: number; statusId: number };
  let runner: BackgroundWork;

  beforeAll(async () => {
    accountId = await account('wbuno', 40);
    stage = await enable(accountId);
    // Contact 8 opted out by keyword; contact 9 is on the blacklist by the operator (not an opt-out).
    await t.ctx.db.execute(sql`insert into opt_outs (user_id, phone_key, phone, word) select ${userId}, phone_key, phone, 'BAJA' from contacts where account_id = ${accountId} and kommo_id = 8`);
    await t.ctx.db.execute(sql`insert into blacklist (user_id, account_id, phone, phone_key, origin) select ${userId}, ${accountId}, phone, phone_key, 'manual' from contacts where account_id = ${accountId} and kommo_id = 9`);
    campaignId = await completedCampaign(accountId, 'Promo Marzo', 40);
    runner = startRunner({ batchSize: 15 });
  });
  afterAll(() => stopRunner(runner));

  it('writes one note per contact with the outcome, the tags and the lead move, and shows the progress', async () => {
    const before = await campaignRow(campaignId);
    const done = await waitFor(() => progress(campaignId), (p) => p.state === 'done');
    expect(done).toMatchObject({ state: 'done', total: 40, done: 40, failed: 0, last_error: null, failures: [] });
    expect(writebackProgressLabel(done.done, done.total)).toBe('Kommo: 40 / 40 contactos actualizados');
    for (let i = 1; i <= 40; i++) {
      const notes = sim.notes('wbuno', i);
      expect(notes.map((n) => n.text), `contact ${i}`).toEqual([`Campaña Promo Marzo: ${expectedOutcome(i)}`]);
      expect(notes[0].noteType).toBe('common');
      const outcome = (['failed', 'delivered', 'read', 'sent', 'replied'] as const)[i % 5];
      expect(notes[0].text).toBe(writebackNoteText('Promo Marzo', outcome, 'Número inválido'));
      const tags = sim.tagsOf('wbuno', i);
      expect(tags.includes('Respondió WhatsApp'), `reply tag on ${i}`).toBe(i % 5 === 4);
      expect(tags.includes('Baja WhatsApp'), `opt-out tag on ${i}`).toBe(i === 8);
      // A replier's open lead moves to the chosen stage; a won lead never moves; others stay.
      for (const lead of sim.leadsOf('wbuno', i)) {
        if (lead.id % 10 === 2) expect(lead.statusId).toBe(142);
        else if (i % 5 === 4) expect(lead).toMatchObject({ pipelineId: stage.pipelineId, statusId: stage.statusId });
        else expect(lead.statusId).not.toBe(stage.statusId);
      }
    }
    // Nothing went wrong, so nothing was read back: 40 notes in batches of 15 are 3 requests.
    expect(calls['POST /api/v4/contacts/notes']).toBe(3);
    expect(calls['GET /api/v4/contacts/notes']).toBeUndefined();
    // Contacts keep the tags they had: tags are added, never replaced.
    const sample = sim.tagsOf('wbuno', 4);
    expect(sample.length).toBeGreaterThanOrEqual(1);
    // The campaign itself is untouched.
    expect(await campaignRow(campaignId)).toEqual(before);
  });

  it('writes a reply that arrives after the campaign once: a "respondió" note, the tag, the lead', async () => {
    await t.ctx.db.execute(sql`update campaign_recipients r set replied_at = now() from contacts c
      where r.contact_id = c.id and r.campaign_id = ${campaignId} and c.kommo_id = 2`);
    await waitFor(() => progress(campaignId), (p) => p.state === 'done' && p.late_done === 1, 10_000);
    expect(sim.notes('wbuno', 2).map((n) => n.text)).toEqual(['Campaña Promo Marzo: leído', 'Campaña Promo Marzo: respondió']);
    expect(sim.tagsOf('wbuno', 2)).toContain('Respondió WhatsApp');
    expect(sim.leadsOf('wbuno', 2)[0]).toMatchObject({ statusId: stage.statusId });
    // Later sweeps add nothing more.
    await new Promise((r) => setTimeout(r, 400));
    expect(sim.notes('wbuno', 2)).toHaveLength(2);
    expect((await progress(campaignId)).late_done).toBe(1);
  });

  it('adds the opt-out tag for an opt-out after the campaign, without a note', async () => {
    await t.ctx.db.execute(sql`insert into opt_outs (user_id, phone_key, phone, word) select ${userId}, phone_key, phone, 'STOP' from contacts where account_id = ${accountId} and kommo_id = 11`);
    await waitFor(() => progress(campaignId), (p) => p.state === 'done' && p.late_done === 2, 10_000);
    expect(sim.tagsOf('wbuno', 11)).toContain('Baja WhatsApp');
    expect(sim.notes('wbuno', 11)).toHaveLength(1);
  });
});

describe('opt-in', () => {
  it('writes nothing for an account with write-back off, and says so', async () => {
    const accountId = await account('wbapagado', 10);
    const campaignId = await completedCampaign(accountId, 'Sin escritura', 10);
    const runner = startRunner();
    await new Promise((r) => setTimeout(r, 500));
    await stopRunner(runner);
    expect(sim.notes('wbapagado')).toEqual([]);
    expect((await progress(campaignId)).state).toBe('off');
    const [{ n }] = await rowsOf<{ n: number }>(t.ctx.db, sql`select count(*)::int n from kommo_writebacks where campaign_id = ${campaignId}`);
    expect(n).toBe(0);
  });

  it('switched off with contacts still to write: paused, then resumed when switched on again', async () => {
    const accountId = await account('wbpausa', 30);
    await enable(accountId);
    const campaignId = await completedCampaign(accountId, 'Pausa', 30);
    const settings = (await api('GET', `/api/kommo/accounts/${accountId}/writeback`)).json();
    // Queued while on (the sweep of a runner that is stopped before it writes anything).
    const { enqueueCompleted } = await import('../src/engine/kommo-writeback/enqueue');
    await enqueueCompleted(t.ctx.db);
    await api('PUT', `/api/kommo/accounts/${accountId}/writeback`, { ...settings, enabled: false, enabled_at: undefined });
    const runner = startRunner();
    await new Promise((r) => setTimeout(r, 400));
    expect(sim.notes('wbpausa')).toEqual([]);
    expect(await progress(campaignId)).toMatchObject({ state: 'paused', total: 30, done: 0 });
    await api('PUT', `/api/kommo/accounts/${accountId}/writeback`, { ...settings, enabled: true, enabled_at: undefined });
    await waitFor(() => progress(campaignId), (p) => p.state === 'done');
    await stopRunner(runner);
    expect(sim.notes('wbpausa')).toHaveLength(30);
  });

  it('does not write back campaigns completed before write-back was switched on', async () => {
    const accountId = await account('wbantes', 10);
    const campaignId = await completedCampaign(accountId, 'Vieja', 10);
    await t.ctx.db.execute(sql`update campaigns set completed_at = now() - interval '1 hour' where id = ${campaignId}`);
    await enable(accountId);
    const runner = startRunner();
    await new Promise((r) => setTimeout(r, 500));
    await stopRunner(runner);
    expect(sim.notes('wbantes')).toEqual([]);
    expect((await progress(campaignId)).state).toBe('waiting');
  });
});

describe('durable and resumable', () => {
  it('a crash between Kommo’s answer and the commit, then a restart, writes every note once', async () => {
    const accountId = await account('wbcrash', 60);
    await enable(accountId);
    const campaignId = await completedCampaign(accountId, 'Caída', 60);
    let answered = 0;
    const crashing = startRunner({
      batchSize: 10,
      afterAnswered: (_id, stage) => {
        if (stage === 'note' && ++answered === 2) throw new Error('process killed');
      },
    });
    await waitFor(async () => answered, (n) => n >= 2);
    await stopRunner(crashing);
    // The crashed batch waits as 'note_unsure': its notes are in Kommo, our commit is not.
    const [{ unsure }] = await rowsOf<{ unsure: number }>(t.ctx.db, sql`select count(*)::int unsure from kommo_writeback_items where campaign_id = ${campaignId} and stage = 'note_unsure'`);
    expect(unsure).toBe(10);
    expect(sim.notes('wbcrash')).toHaveLength(20);
    const restarted = startRunner({ batchSize: 10 });
    await waitFor(() => progress(campaignId), (p) => p.state === 'done');
    await stopRunner(restarted);
    for (let i = 1; i <= 60; i++) expect(sim.notes('wbcrash', i), `contact ${i}`).toHaveLength(1);
    const [{ linked }] = await rowsOf<{ linked: number }>(t.ctx.db, sql`select count(distinct note_id)::int linked from kommo_writeback_items where campaign_id = ${campaignId}`);
    expect(linked).toBe(60);
  });

  it('tags and lead moves are at-least-once: a crash after Kommo’s answer sends the batch once more, with no visible effect', async () => {
    const accountId = await account('wbtwice', 40);
    const stage = await enable(accountId);
    const campaignId = await completedCampaign(accountId, 'Dos veces', 40);
    const crashed = new Set<string>();
    const before = { ...calls };
    const runner = startRunner({
      afterAnswered: (_id, s) => {
        if (s !== 'note' && !crashed.has(s)) {
          crashed.add(s);
          throw new Error('process killed');
        }
      },
    });
    await waitFor(() => progress(campaignId), (p) => p.state === 'done');
    await stopRunner(runner);
    expect([...crashed].sort()).toEqual(['lead', 'tags']);
    // The bound: tags go once more per crashed batch (one batch here); a lead move is read again
    // and, its lead being in the stage already, not sent again. Kommo holds each tag once and
    // each lead in the stage, as after a single write.
    const sent = (k: string) => (calls[k] ?? 0) - (before[k] ?? 0);
    expect(sent('PATCH /api/v4/contacts'), 'tag batches').toBe(2);
    expect(sent('GET /api/v4/leads'), 'lead reads').toBe(2);
    expect(sent('PATCH /api/v4/leads'), 'lead moves').toBe(1);
    expect(sent('POST /api/v4/contacts/notes')).toBe(1);
    for (let i = 4; i <= 40; i += 5) {
      expect(sim.tagsOf('wbtwice', i).filter((t) => t === 'Respondió WhatsApp'), `contact ${i}`).toHaveLength(1);
      const open = sim.leadsOf('wbtwice', i).filter((l) => l.id % 10 === 1);
      for (const lead of open) expect(lead).toMatchObject({ pipelineId: stage.pipelineId, statusId: stage.statusId });
    }
    for (let i = 1; i <= 40; i++) expect(sim.notes('wbtwice', i)).toHaveLength(1);
  });

  it('a lost answer (the notes were written, Kommo answered 500) is read back, not written again', async () => {
    const accountId = await account('wblost', 30);
    await enable(accountId);
    sim.injectFault({ kind: 'lostAnswer', subdomain: 'wblost', count: 2 });
    const campaignId = await completedCampaign(accountId, 'Respuesta perdida', 30);
    const runner = startRunner({ batchSize: 10 });
    const done = await waitFor(() => progress(campaignId), (p) => p.state === 'done');
    await stopRunner(runner);
    expect(done).toMatchObject({ total: 30, done: 30, failed: 0 });
    for (let i = 1; i <= 30; i++) expect(sim.notes('wblost', i), `contact ${i}`).toHaveLength(1);
  });

  it('a 5xx before Kommo wrote anything sends the notes again, once', async () => {
    const accountId = await account('wb5xx', 20);
    await enable(accountId);
    sim.injectFault({ kind: '5xx', subdomain: 'wb5xx', count: 1, skip: 2, status: 503 });
    const campaignId = await completedCampaign(accountId, 'Error 503', 20);
    const runner = startRunner({ batchSize: 10 });
    await waitFor(() => progress(campaignId), (p) => p.state === 'done');
    await stopRunner(runner);
    for (let i = 1; i <= 20; i++) expect(sim.notes('wb5xx', i), `contact ${i}`).toHaveLength(1);
  });
});

describe('Kommo failures', () => {
  it('401: shown with the reason while retried, then the contacts fail with it; the campaign is untouched', async () => {
    const accountId = await account('wb401', 12);
    await enable(accountId);
    sim.injectFault({ kind: 'unauthorized', subdomain: 'wb401', count: 1000 });
    const campaignId = await completedCampaign(accountId, 'Token vencido', 12);
    const before = await campaignRow(campaignId);
    const runner = startRunner({ retryBaseMs: 300, maxErrorStreak: 3 });
    const retrying = await waitFor(() => progress(campaignId), (p) => p.state === 'retrying');
    expect(retrying.last_error).toMatch(/Kommo rechazó el token de acceso \(401\)/);
    expect(retrying.retry_at).toBeTruthy();
    const done = await waitFor(() => progress(campaignId), (p) => p.state === 'done');
    await stopRunner(runner);
    sim.reset();
    expect(done).toMatchObject({ total: 12, done: 0, failed: 12 });
    expect(done.failures).toEqual([{ reason: expect.stringMatching(/401/), count: 12 }]);
    expect(sim.notes('wb401')).toEqual([]);
    expect(await campaignRow(campaignId)).toEqual(before);
  });

  it('429: waits as Kommo says and carries on; 5xx on reads are retried', async () => {
    const accountId = await account('wb429', 20);
    await enable(accountId);
    sim.injectFault({ kind: 'rateLimited', subdomain: 'wb429', count: 1 });
    sim.injectFault({ kind: '5xx', subdomain: 'wb429', count: 1, skip: 3 });
    const campaignId = await completedCampaign(accountId, 'Con 429', 20);
    const runner = startRunner({ batchSize: 10 });
    const done = await waitFor(() => progress(campaignId), (p) => p.state === 'done');
    await stopRunner(runner);
    expect(done).toMatchObject({ total: 20, done: 20, failed: 0 });
    for (let i = 1; i <= 20; i++) expect(sim.notes('wb429', i)).toHaveLength(1);
  });

  it('a contact deleted in Kommo fails alone with Kommo’s reason; the rest of its batch is written', async () => {
    const accountId = await account('wbborrado', 15);
    await enable(accountId);
    sim.deleteContact('wbborrado', 3);
    const campaignId = await completedCampaign(accountId, 'Borrado', 15);
    const runner = startRunner();
    const done = await waitFor(() => progress(campaignId), (p) => p.state === 'done');
    await stopRunner(runner);
    expect(done).toMatchObject({ total: 15, done: 14, failed: 1 });
    expect(done.failures).toEqual([{ reason: 'Kommo rechazó la nota: Entity not found', count: 1 }]);
    expect(sim.notes('wbborrado')).toHaveLength(14);
  });
});

describe('rate shared with a sync of the same account', () => {
  it('a write-back during a full sync never passes 7 requests per second (0 × 429), and the two take turns', async () => {
    const slowSim = await startKommoSim({ rps: 7, accounts: [{ subdomain: 'wbrate', token: 'kommo-token', contacts: 6000, seed: 5 }] });
    const other = await createTestApp({ KOMMO_BASE_URL: slowSim.baseUrlTemplate, KOMMO_RPS: '7' });
    try {
      const { userId: uid } = await other.signUp();
      const accountId = await insertKommoAccount(other.ctx.db, other.ctx.secrets, uid, 'wbrate');
      await insertContacts(other.ctx.db, uid, accountId, 300);
      await other.ctx.db.execute(sql`update kommo_accounts set phone_field_id = ${slowSim.fields('wbrate').phoneFieldId},
        writeback_enabled = true, writeback_enabled_at = now() - interval '1 minute', writeback_reply_tag = 'Respondió' where id = ${accountId}`);
      const [{ id: campaignId }] = await rowsOf<{ id: number }>(other.ctx.db, sql`
        insert into campaigns (user_id, name, status, kommo_account_id, filters, completed_at) values (${uid}, 'Compartida', 'completed', ${accountId}, '{}'::jsonb, now()) returning id`);
      await other.ctx.db.execute(sql`insert into campaign_recipients (campaign_id, user_id, contact_id, phone, phone_key, status, replied_at)
        select ${campaignId}, ${uid}, id, phone, phone_key, 'read', case when kommo_id % 3 = 0 then now() end from contacts where account_id = ${accountId}`);
      slowSim.reset();
      await other.ctx.db.execute(sql`update kommo_accounts set sync_status = 'syncing' where id = ${accountId}`);
      const client = createKommoClient({ baseUrlTemplate: slowSim.baseUrlTemplate, rps: 7, timeoutMs: 3000, retries: 2, backoffMs: 20 });
      const sync = startKommoSyncRunner(other.ctx, { client, pollMs: 50 });
      const wbClient = createKommoClient({ baseUrlTemplate: slowSim.baseUrlTemplate, rps: 7, timeoutMs: 3000, retries: 2, backoffMs: 20 });
      const wb = startKommoWritebackRunner(other.ctx, {
        api: createKommoWriteApi(wbClient),
        pollMs: 50,
        batchSize: 10,
      });
      let syncProgressWhileWriting = false;
      const overlap: { first?: { sync: number; wb: number }; last?: { sync: number; wb: number } } = {};
      const deadline = Date.now() + 30_000;
      for (;;) {
        const [s] = await rowsOf<{ sync_status: string; sync_progress_contacts: number }>(other.ctx.db, sql`select sync_status, sync_progress_contacts from kommo_accounts where id = ${accountId}`);
        const [w] = await rowsOf<{ pending: number; done: number }>(other.ctx.db, sql`select count(*) filter (where stage not in ('done','failed'))::int pending, count(*) filter (where stage = 'done')::int done from kommo_writeback_items where campaign_id = ${campaignId}`);
        const both = s.sync_status === 'syncing' && s.sync_progress_contacts > 0 && w && w.done > 0 && w.pending > 0;
        if (both) {
          syncProgressWhileWriting = true;
          // Requests each made while both were running: the first and the last moment seen.
          const now = { sync: client.stats().requests, wb: wbClient.stats().requests };
          overlap.first ??= now;
          overlap.last = now;
        }
        if (s.sync_status !== 'syncing' && w && w.pending === 0 && w.done > 0) break;
        if (Date.now() > deadline) throw new Error(`not finished: ${JSON.stringify({ s, w })}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      await wb.stop();
      await sync.stop();
      const stats = slowSim.stats();
      expect(stats.count429).toBe(0);
      expect(stats.count403).toBe(0);
      expect(stats.perSecondMax).toBeLessThanOrEqual(7);
      expect(syncProgressWhileWriting).toBe(true);
      // Turns: while both ran, neither took the account's requests for itself.
      const syncShare = overlap.last!.sync - overlap.first!.sync;
      const wbShare = overlap.last!.wb - overlap.first!.wb;
      expect(syncShare + wbShare).toBeGreaterThanOrEqual(8);
      expect(Math.min(syncShare, wbShare) / (syncShare + wbShare)).toBeGreaterThanOrEqual(0.25);
      expect(slowSim.notes('wbrate')).toHaveLength(300);
    } finally {
      await other.close();
      await slowSim.close();
    }
  }, 60_000);
});

describe('settings and tenant scoping', () => {
  it('validates the settings in Spanish and checks the stage against Kommo', async () => {
    const accountId = await account('wbform', 5);
    const half = await api('PUT', `/api/kommo/accounts/${accountId}/writeback`, { enabled: true, notes: true, opt_out_tag: null, reply_tag: null, pipeline_id: 5, status_id: null });
    expect(half.statusCode).toBe(400);
    expect(half.json().error).toMatch(/Elige el embudo y la etapa/);
    const wrong = await api('PUT', `/api/kommo/accounts/${accountId}/writeback`, { enabled: true, notes: true, opt_out_tag: null, reply_tag: null, pipeline_id: 5, status_id: 6 });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().error).toMatch(/La etapa elegida no existe/);
    const comma = await api('PUT', `/api/kommo/accounts/${accountId}/writeback`, { enabled: true, notes: true, opt_out_tag: 'a,b', reply_tag: null, pipeline_id: null, status_id: null });
    expect(comma.statusCode).toBe(400);
    const ok = await api('PUT', `/api/kommo/accounts/${accountId}/writeback`, { enabled: true, notes: false, opt_out_tag: '  Baja ', reply_tag: '', pipeline_id: null, status_id: null });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ enabled: true, notes: false, opt_out_tag: 'Baja', reply_tag: null, pipeline_id: null, status_id: null, enabled_at: expect.any(String) });
    const read = await api('GET', `/api/kommo/accounts/${accountId}/writeback`);
    expect(read.json()).toEqual(ok.json());
  });

  it('another user sees none of it', async () => {
    const accountId = await account('wbajeno', 5);
    await enable(accountId);
    const campaignId = await completedCampaign(accountId, 'Ajena', 5);
    const intruder = await t.signUp();
    for (const [method, url] of [
      ['GET', `/api/kommo/accounts/${accountId}/writeback`],
      ['GET', `/api/kommo/accounts/${accountId}/pipelines`],
      ['GET', `/api/campaigns/${campaignId}/kommo-writeback`],
    ] as const) {
      const res = await api(method, url, undefined, intruder.headers);
      expect(res.statusCode, url).toBe(404);
    }
    const put = await api('PUT', `/api/kommo/accounts/${accountId}/writeback`, { enabled: false, notes: true, opt_out_tag: null, reply_tag: null, pipeline_id: null, status_id: null }, intruder.headers);
    expect(put.statusCode).toBe(404);
    expect((await api('GET', `/api/kommo/accounts/${accountId}/writeback`)).json().enabled).toBe(true);
  });
});
