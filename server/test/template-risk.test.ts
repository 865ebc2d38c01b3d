import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { responseOutcome } from '../src/integrations/whatsapp/messenger';
import { rowsOf } from '../src/db/sql';
import { readCategoryChange } from '../src/services/templates/template-risk';
import { APP_SECRET, startEngineBed, waitFor, type EngineBed } from './helpers/engine-bed';
import { postWebhook } from './helpers/webhook';
import {
  templateCategoryImpending,
  templateCategoryCompleted,
  templateDisabled,
  templateFlagged,
  templatePausedFirst,
  templatePausedSecond,
  templateQualityRed,
  templateReinstated,
  templateUnpaused,
  heldSendAnswer,
} from './fixtures/meta-template-risk';

/**
 * Template risk: Meta's template pause ladder, flags and category changes reach
 * the console as webhooks (payloads as Meta's reference pages publish them); campaigns on a
 * paused or disabled template pause at once and come back by themselves when Meta unpauses
 * or reinstates it, unless the operator paused them. 132015/132016 on a send do the same.
 */
const NUMBER = { phoneNumberId: '880001', wabaId: '990001', token: 'tok-risk', rate: 4 };
let bed: EngineBed;

beforeAll(async () => {
  bed = await startEngineBed({ numbers: [NUMBER], contacts: 400 });
});
afterAll(async () => bed?.close());

const post = async (payload: unknown) => {
  const res = await postWebhook(bed.t.app, APP_SECRET, payload);
  expect(res.statusCode).toBe(200);
};

const templateRow = async () =>
  (
    await rowsOf<{ status: string; status_detail: string | null; category: string; category_change: unknown; quality_score: string | null }>(
      bed.t.ctx.db,
      sql`select status, status_detail, category, category_change, quality_score from templates where id = ${bed.worlds[0].templateId}`,
    )
  )[0];

const waitStatus = (id: number, status: string, label: string) =>
  waitFor(() => bed.campaign(id), (c) => c.status === status, 10_000, label);

async function resetTemplate() {
  await bed.t.ctx.db.execute(sql`update templates set status = 'approved', status_detail = null, status_event_at = null, meta_id = null,
    category = 'marketing', category_change = null where id = ${bed.worlds[0].templateId}`);
}

/** Meta's webhook time must grow, or the older-event guard would ignore the later event. */
let clock = Math.floor(Date.now() / 1000);
const at = <T extends { entry: Array<{ time?: number }> }>(payload: T): T => {
  clock += 5;
  return { ...payload, entry: payload.entry.map((e) => ({ ...e, time: clock })) };
};

describe('template pause ladder', () => {
  it('a PAUSED webhook pauses the sending campaign with the reason; UNPAUSED resumes it by itself', async () => {
    await resetTemplate();
    const c = await bed.launch(0, {}, 'Pausa 1');
    await waitFor(() => bed.campaign(c.id), (x) => x.messages_sent > 0, 10_000, 'first sends');

    await post(at(templatePausedFirst(NUMBER.wabaId)));
    const paused = await waitStatus(c.id, 'paused', 'paused by the template');
    expect(paused.pause_origin).toBe('template');
    expect(paused.pause_reason).toMatch(/Meta pausó la plantilla.*1\.ª pausa: 3 horas.*reanudará sola/);
    expect(await templateRow()).toMatchObject({ status: 'paused', status_detail: 'FIRST_PAUSE' });
    const sentWhilePaused = (await bed.campaign(c.id)).messages_sent;

    await post(at(templateUnpaused(NUMBER.wabaId)));
    const resumed = await waitStatus(c.id, 'sending', 'resumed by UNPAUSED');
    expect(resumed.pause_reason).toBeNull();
    expect(resumed.pause_origin).toBeNull();
    expect(await templateRow()).toMatchObject({ status: 'approved', status_detail: null });
    await waitFor(() => bed.campaign(c.id), (x) => x.messages_sent > sentWhilePaused, 10_000, 'sending again');
    await bed.t.app.inject({ method: 'POST', url: `/api/campaigns/${c.id}/pause`, headers: await headers() });
  });

  it('a campaign the operator paused stays paused when Meta unpauses the template', async () => {
    await resetTemplate();
    const c = await bed.launch(0, {}, 'Pausa del operador');
    const res = await bed.t.app.inject({ method: 'POST', url: `/api/campaigns/${c.id}/pause`, headers: await headers() });
    expect(res.statusCode).toBe(200);
    expect((await bed.campaign(c.id)).pause_origin).toBe('operator');

    await post(at(templatePausedSecond(NUMBER.wabaId)));
    await post(at(templateUnpaused(NUMBER.wabaId)));
    await waitFor(templateRow, (t) => t.status === 'approved', 5_000, 'template approved again');
    // The inbox applied both events; the operator's pause is untouched.
    const after = await bed.campaign(c.id);
    expect(after).toMatchObject({ status: 'paused', pause_origin: 'operator', pause_reason: null });
  });

  it('DISABLED pauses, REINSTATED resumes; the second pause names its 6 hours', async () => {
    await resetTemplate();
    const c = await bed.launch(0, {}, 'Deshabilitada');
    await post(at(templatePausedSecond(NUMBER.wabaId)));
    const second = await waitStatus(c.id, 'paused', 'second pause');
    expect(second.pause_reason).toMatch(/2\.ª pausa: 6 horas/);
    await post(at(templateDisabled(NUMBER.wabaId)));
    await waitFor(templateRow, (t) => t.status === 'disabled', 5_000, 'template disabled');
    expect((await bed.campaign(c.id)).status).toBe('paused');

    await post(at(templateReinstated(NUMBER.wabaId)));
    await waitStatus(c.id, 'sending', 'resumed by REINSTATED');
    await bed.t.app.inject({ method: 'POST', url: `/api/campaigns/${c.id}/pause`, headers: await headers() });
  });

  it('FLAGGED keeps the template usable and records the flag', async () => {
    await resetTemplate();
    await post(at(templateFlagged(NUMBER.wabaId)));
    await waitFor(templateRow, (t) => t.status_detail === 'FLAGGED', 5_000, 'flag recorded');
    expect((await templateRow()).status).toBe('approved');
    const list = await bed.t.app.inject({ method: 'GET', url: `/api/templates/${bed.worlds[0].templateId}`, headers: await headers() });
    expect(list.json()).toMatchObject({ status: 'approved', status_detail: 'FLAGGED' });
  });

  it('a send refused with 132015 pauses every campaign on the template; UNPAUSED brings them back', async () => {
    await resetTemplate();
    const c = await bed.launch(0, {}, 'Error 132015');
    await waitFor(() => bed.campaign(c.id), (x) => x.messages_sent > 0, 10_000, 'first sends');
    bed.sim.injectFault({ kind: 'code', code: 132015, count: 1 });
    const paused = await waitStatus(c.id, 'paused', 'paused by 132015');
    expect(paused.pause_origin).toBe('template');
    expect(paused.pause_reason).toMatch(/código 132015/);
    expect((await templateRow()).status).toBe('paused');
    // The refused recipient goes back to pending: it is sent after the template returns.
    expect((await bed.statuses(c.id)).failed ?? 0).toBe(0);

    await post(at(templateUnpaused(NUMBER.wabaId)));
    await waitStatus(c.id, 'sending', 'resumed after 132015');
    await bed.t.app.inject({ method: 'POST', url: `/api/campaigns/${c.id}/pause`, headers: await headers() });
  });
});

describe('the simulator’s pause ladder end to end', () => {
  it('RED quality pauses the template (FIRST_PAUSE), the campaign waits, Meta unpauses it and the campaign finishes', async () => {
    await resetTemplate();
    bed.sim.configure({ rules: { pauseDurationsMs: [1_500, 3_000] } });
    const c = await bed.launch(0, { tags: ['vip'] }, 'Escalera');
    await waitFor(() => bed.campaign(c.id), (x) => x.messages_sent > 0, 10_000, 'first sends');
    bed.sim.setTemplateQuality({ wabaId: NUMBER.wabaId, name: 'promo', language: 'es', score: 'RED' });
    // Sends may meet 132015 before the webhook arrives; either way the webhook's reason wins.
    const paused = await waitFor(
      () => bed.campaign(c.id),
      (x) => x.status === 'paused' && /1\.ª pausa/.test(x.pause_reason ?? ''),
      10_000,
      'paused by the simulator’s FIRST_PAUSE',
    );
    expect(paused).toMatchObject({ pause_origin: 'template' });
    expect((await templateRow()).status_detail).toBe('FIRST_PAUSE');
    // After the pause the simulator unpauses the template by itself; the campaign follows.
    const done = await waitFor(() => bed.campaign(c.id), (x) => x.status === 'completed', 20_000, 'completed after UNPAUSED');
    expect(done.failed_count).toBe(0);
    expect(done.messages_sent).toBe(done.total_recipients);
  });
});

describe('template category and quality', () => {
  it('stores an impending category change and shows it on the campaign', async () => {
    await resetTemplate();
    await post(at(templateCategoryImpending(NUMBER.wabaId)));
    const t = await waitFor(templateRow, (r) => r.category_change !== null, 5_000, 'category change stored');
    expect(t.category).toBe('marketing');
    expect(t.category_change).toEqual({ kind: 'impending', from: 'UTILITY', to: 'MARKETING', at: new Date(1760711433 * 1000).toISOString() });
    const c = await bed.launch(0, { tags: ['nadie-tiene-esta-etiqueta'] }, 'Con aviso');
    const view = await bed.t.app.inject({ method: 'GET', url: `/api/campaigns/${c.id}`, headers: await headers() });
    expect(view.json().template_risk).toMatchObject({ status: 'approved', category_change: { kind: 'impending', to: 'MARKETING' } });
  });

  it('a completed category change changes the category', async () => {
    await resetTemplate();
    await bed.t.ctx.db.execute(sql`update templates set category = 'utility' where id = ${bed.worlds[0].templateId}`);
    await post(at(templateCategoryCompleted(NUMBER.wabaId)));
    const t = await waitFor(templateRow, (r) => r.category === 'marketing', 5_000, 'category changed');
    expect(t.category_change).toMatchObject({ kind: 'completed', from: 'UTILITY', to: 'MARKETING' });
  });

  it('a quality update sets the quality score', async () => {
    await post(at(templateQualityRed(NUMBER.wabaId)));
    await waitFor(templateRow, (r) => r.quality_score === 'RED', 5_000, 'quality score');
  });

  it('reads both category shapes and ignores one that names no category', () => {
    expect(readCategoryChange({ correct_category: 'MARKETING', new_category: 'UTILITY', category_update_timestamp: 1760711433 })).toMatchObject({
      kind: 'impending',
      from: 'UTILITY',
      to: 'MARKETING',
    });
    expect(readCategoryChange({ previous_category: 'UTILITY', new_category: 'MARKETING' })).toMatchObject({ kind: 'completed', to: 'MARKETING' });
    expect(readCategoryChange({ message_template_name: 'x' })).toBeNull();
  });

  it('an event for a template nobody has, or a WABA nobody verified, changes nothing and is answered 200', async () => {
    const before = await templateRow();
    const foreign = templatePausedFirst('123456789');
    await post(at(foreign));
    const unknown = templatePausedFirst(NUMBER.wabaId);
    unknown.entry[0].changes[0].value.message_template_name = 'no_existe';
    unknown.entry[0].changes[0].value.message_template_id = 42;
    await post(at(unknown));
    await new Promise((r) => setTimeout(r, 300));
    expect(await templateRow()).toEqual(before);
  });
});

describe('held for quality assessment', () => {
  it('an accepted send Meta holds is ok, flagged held, never a failure', () => {
    expect(responseOutcome(200, JSON.stringify(heldSendAnswer))).toEqual({ kind: 'ok', wamid: heldSendAnswer.messages[0].id, held: true });
    const accepted = { ...heldSendAnswer, messages: [{ id: 'wamid.X', message_status: 'accepted' }] };
    expect(responseOutcome(200, JSON.stringify(accepted))).toEqual({ kind: 'ok', wamid: 'wamid.X' });
  });

  it('held recipients are counted on the campaign and labelled in the recipients list', async () => {
    await resetTemplate();
    const c = await bed.launch(0, { tags: ['vip'] }, 'Retenidos');
    await bed.t.app.inject({ method: 'POST', url: `/api/campaigns/${c.id}/pause`, headers: await headers() });
    // Two rows as the writer leaves them after Meta answered held_for_quality_assessment.
    await bed.t.ctx.db.execute(sql`update campaign_recipients set status = 'sent', sent_at = now(), held_at = now()
      where id in (select id from campaign_recipients where campaign_id = ${c.id} order by id limit 2)`);
    const view = (await bed.t.app.inject({ method: 'GET', url: `/api/campaigns/${c.id}`, headers: await headers() })).json();
    expect(view.held_count).toBe(2);
    const page = (await bed.t.app.inject({ method: 'GET', url: `/api/campaigns/${c.id}/messages?status=sent`, headers: await headers() })).json();
    expect(page.messages.filter((m: { held: boolean }) => m.held)).toHaveLength(2);
  });
});

async function headers() {
  return bed.headers;
}
