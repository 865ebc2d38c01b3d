import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSignedIn, shot } from '../src/browser';
import { connectAccounts, waitFor } from '../src/seed';
import { startOneNumberStack, type ConsoleApi, type Stack } from '../src/stack';

/**
 * After the send, in the browser: a campaign runs; people reply and tap a quick-reply button in the
 * simulator; the detail screen shows the charts, the replies and the real cost; a follow-up draft
 * for "No respondieron" holds exactly the others; and Kommo (its simulator) holds a note per
 * contact and the reply tag. Accounts, sync, mapping and write-back settings go through the API.
 */

const SUBDOMAIN = 'despues';
const KOMMO_TOKEN = 'kommo-after-send-token';
const PHONE_NUMBER_ID = '5101';
const WABA_ID = '6101';
const WA_TOKEN = 'wa-after-send-token';
const TEMPLATE = 'oferta_con_botones';
const TAG = 'Resultados';
const REPLY_TAG = 'Respondió WhatsApp';
const BUTTON = 'Me interesa';

/** Six Argentine mobiles (Kommo contact id → phone). */
const AUDIENCE = [1, 2, 3, 4, 5, 6].map((id) => ({ id, phone: `+54 9 11 5702-23${String(id).padStart(2, '0')}` }));
const digits = (p: string) => p.replace(/\D/g, '');

let stack: Stack;
let page: Page;
let closeBrowser: () => Promise<void>;
let api: ConsoleApi;
let kommoAccountId: number;
let whatsappAccountId: number;
let templateId: number;

beforeAll(async () => {
  stack = await startOneNumberStack({
    kommo: { subdomain: SUBDOMAIN, token: KOMMO_TOKEN, contacts: 20, seed: 21 },
    number: { phoneNumberId: PHONE_NUMBER_ID, wabaId: WABA_ID, token: WA_TOKEN, displayPhoneNumber: '5491100005101' },
    templates: [
      {
        name: TEMPLATE,
        category: 'MARKETING',
        components: [
          { type: 'BODY', text: 'Hola {{1}}, esta semana tenemos una oferta para ti.', example: { body_text: [['Ana']] } },
          { type: 'BUTTONS', buttons: [{ type: 'QUICK_REPLY', text: BUTTON }, { type: 'QUICK_REPLY', text: 'Más tarde' }] },
        ],
      },
    ],
    audience: AUDIENCE.map((c) => ({ ...c, tags: [TAG] })),
    statusDelayMs: 20,
  });
  ({ page, close: closeBrowser, api } = await openSignedIn(stack.baseUrl));

  ({ kommoAccountId, whatsappAccountId, templateId } = await connectAccounts(stack, api, {
    subdomain: SUBDOMAIN,
    kommoToken: KOMMO_TOKEN,
    phoneNumberId: PHONE_NUMBER_ID,
    wabaId: WABA_ID,
    waToken: WA_TOKEN,
    template: TEMPLATE,
    name: 'Ventas Después',
    phone: '+5491100005101',
    ratePerSecond: 20,
  }));
  await api.put(`/kommo/accounts/${kommoAccountId}/writeback`, {
    enabled: true,
    notes: true,
    opt_out_tag: 'Baja WhatsApp',
    reply_tag: REPLY_TAG,
    pipeline_id: null,
    status_id: null,
  });
});
afterAll(async () => {
  await closeBrowser?.();
  await stack?.stop();
});

/** Full-page shots at 1400 px and 390 px, from the top. */
async function shots(name: string) {
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot(page, name);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot(page, `${name}-phone`);
  await page.setViewportSize({ width: 1400, height: 900 });
}

describe('after the send', () => {
  const name = 'Campaña Después E2E';
  let campaignId: number;

  it('runs the campaign; people reply and tap; the detail screen shows charts, replies and the real cost', async () => {
    const created = await api.post('/campaigns', {
      name,
      kommo_account_id: kommoAccountId,
      whatsapp_account_id: whatsappAccountId,
      template_id: templateId,
      message_type: 'template',
      filters: { searchQuery: '', tags: [TAG], tagOperator: 'OR', customFieldFilters: {} },
    });
    campaignId = created.id;
    await page.goto(`${stack.baseUrl}/campaigns/${campaignId}`);
    await page.getByRole('heading', { name }).waitFor();
    await page.getByRole('button', { name: 'Iniciar' }).click();
    await page.getByRole('dialog').getByRole('button', { name: /^Enviar a [\d.]+ personas?$/ }).click();
    await waitFor(async () => (await api.get(`/campaigns/${campaignId}`)).status === 'completed', 60_000);
    await waitFor(async () => (await api.get(`/campaigns/${campaignId}`)).read_count === AUDIENCE.length, 30_000);

    // One person writes back; another taps the quick-reply button.
    await stack.whatsapp.replyTo({ phone: digits(AUDIENCE[0].phone), phoneNumberId: PHONE_NUMBER_ID, text: '¿Hasta cuándo vale?' });
    await stack.whatsapp.replyTo({ phone: digits(AUDIENCE[1].phone), phoneNumberId: PHONE_NUMBER_ID, button: BUTTON });
    await waitFor(async () => (await api.get(`/campaigns/${campaignId}`)).replies?.replied === 2, 30_000);

    const detail = await api.get(`/campaigns/${campaignId}`);
    expect(detail.replies).toMatchObject({ replied: 2, accepted: AUDIENCE.length });
    expect(detail.replies.taps).toEqual([expect.objectContaining({ button: BUTTON, taps: 1 })]);
    // Six delivered Argentine marketing messages, priced with the shipped card's AR rate.
    expect(detail.actual_cost.total).toBeGreaterThan(0);
    expect(detail.actual_cost.total).toBeCloseTo(AUDIENCE.length * 0.0618, 6);

    await page.reload();
    await page.getByRole('heading', { name }).waitFor();
    // The charts: the timeline, the funnel (attempted → … → replied) and failures by code.
    await page.getByTestId('chart-timeline').waitFor();
    const funnel = page.getByTestId('chart-funnel');
    await funnel.waitFor();
    await funnel.getByText('Ver datos').click();
    const funnelTable = (await funnel.locator('table').innerText()).replace(/\s+/g, ' ');
    expect(funnelTable).toMatch(/Respondieron 2\b/);
    await page.getByTestId('chart-failures').waitFor();
    // The replies and the taps per button.
    await expect.poll(() => page.getByTestId('replies-count').innerText()).toBe('Respondieron 2');
    await page.getByTestId('campaign-replies').getByText(BUTTON, { exact: true }).waitFor();
    // The real cost beside the estimate.
    const cost = await page.getByTestId('cost-actual').innerText();
    expect(cost).toMatch(/0[.,]37/);
    // The recipients table, filtered by who replied, shows each reply.
    await page.getByLabel('Filtrar por respuesta').selectOption({ label: 'Respondieron' });
    await page.getByText('¿Hasta cuándo vale?').first().waitFor();
    await shots('after-send-detail');
  });

  it('creates a follow-up draft for those who did not reply, over exactly them', async () => {
    await page.getByRole('button', { name: 'Nueva campaña para…' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('No respondieron', { exact: true }).check();
    await expect.poll(async () => (await dialog.getByTestId('follow-up-count').innerText()).replace(/\s+/g, ' ')).toMatch(/^4 contactos en este grupo/);
    await dialog.getByRole('button', { name: 'Crear borrador' }).click();
    await page.waitForURL((url) => /\/campaigns\/\d+$/.test(url.pathname) && !url.pathname.endsWith(`/${campaignId}`));
    const followUpId = Number(page.url().split('/').pop());
    const draft = await api.get(`/campaigns/${followUpId}`);
    expect(draft.status).toBe('draft');
    const preflight = await api.get(`/campaigns/${followUpId}/preflight`);
    expect(preflight).toMatchObject({ matched: 4, attempted: 4 });
    await page.getByText(/lista fija de 4 contactos/i).first().waitFor();
    await shots('after-send-follow-up');
  });

  it('writes the results back to Kommo: a note per contact and the reply tag', async () => {
    await waitFor(async () => stack.kommo.notes(SUBDOMAIN).length >= AUDIENCE.length, 60_000);
    await waitFor(async () => AUDIENCE.slice(0, 2).every((c) => stack.kommo.tagsOf(SUBDOMAIN, c.id).includes(REPLY_TAG)), 60_000);
    for (const c of AUDIENCE) {
      const texts = stack.kommo.notes(SUBDOMAIN, c.id).map((n) => JSON.stringify(n));
      expect(texts.some((t) => t.includes(`Campaña ${name}`)), `note of contact ${c.id}`).toBe(true);
    }
    for (const c of AUDIENCE.slice(2)) expect(stack.kommo.tagsOf(SUBDOMAIN, c.id)).not.toContain(REPLY_TAG);
    await page.goto(`${stack.baseUrl}/campaigns/${campaignId}`);
    await page.getByText(/Kommo: 6 \/ 6 contactos actualizados/).first().waitFor({ timeout: 30_000 });
  });
});
