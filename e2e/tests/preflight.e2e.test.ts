import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSignedIn, shot } from '../src/browser';
import { settle, wallClock } from '../src/clock';
import { connectAccounts } from '../src/seed';
import { startOneNumberStack, type ConsoleApi, type Stack } from '../src/stack';

/**
 * The pre-flight in the browser: build a campaign from filters and read the pre-flight ("Antes de
 * enviar"), whose attempted count is what the freeze then makes pending; start it outside its
 * "Horario de envío" and see it wait without sending; widen the hours on its screen and see it
 * resume and complete. Accounts, sync and variable mapping are set up through the API.
 */

const SUBDOMAIN = 'prevuelo';
const KOMMO_TOKEN = 'kommo-preflight-token';
const PHONE_NUMBER_ID = '5001';
const WABA_ID = '6001';
const WA_TOKEN = 'wa-preflight-token';
const TEMPLATE = 'promo_prevuelo';
/** Every phone below is a Buenos Aires mobile: the recipients' zone. */
const ZONE = 'America/Argentina/Buenos_Aires';
const TAG = 'Prevuelo';
const TAG_VIP = 'Prevuelo VIP';
const BLACKLISTED = '+54 9 11 5601-2399';

/**
 * The audience (Kommo contact id → phone and tags). Filter: TAG or TAG_VIP.
 * 8 attempted; excluded: 2 without a valid phone, 2 duplicates (one in another format), 1 blacklisted.
 */
const AUDIENCE: Array<{ id: number; phone: string | null; tags: string[] }> = [
  { id: 1, phone: '+54 9 11 5601-2301', tags: [TAG] },
  { id: 2, phone: '+54 9 11 5601-2302', tags: [TAG, TAG_VIP] },
  { id: 3, phone: '+54 9 11 5601-2303', tags: [TAG] },
  { id: 4, phone: '+54 9 11 5601-2304', tags: [TAG] },
  { id: 5, phone: '+54 9 11 5601-2305', tags: [TAG] },
  { id: 6, phone: '+54 9 11 5601-2306', tags: [TAG_VIP] },
  { id: 7, phone: '+54 9 11 5601-2307', tags: [TAG_VIP] },
  { id: 8, phone: '+54 9 11 5601-2308', tags: [TAG_VIP] },
  { id: 9, phone: null, tags: [TAG] },
  { id: 10, phone: '12345', tags: [TAG_VIP] },
  { id: 11, phone: '+54 11 5601-2301', tags: [TAG] },
  { id: 12, phone: '5491156012306', tags: [TAG_VIP] },
  { id: 13, phone: BLACKLISTED, tags: [TAG] },
];
const EXPECTED = { matched: 13, attempted: 8, excluded: { 'Sin teléfono válido': 2, Duplicado: 2, 'En lista negra': 1 } };
const ATTEMPTED_DIGITS = AUDIENCE.slice(0, 8).map((c) => c.phone!.replace(/\D/g, ''));

let stack: Stack;
let page: Page;
let closeBrowser: () => Promise<void>;
let api: ConsoleApi;
let kommoAccountId: number;
let whatsappAccountId: number;
let templateId: number;

beforeAll(async () => {
  stack = await startOneNumberStack({
    kommo: { subdomain: SUBDOMAIN, token: KOMMO_TOKEN, contacts: 40, seed: 13 },
    number: { phoneNumberId: PHONE_NUMBER_ID, wabaId: WABA_ID, token: WA_TOKEN, displayPhoneNumber: '5491100005001' },
    templates: [
      {
        name: TEMPLATE,
        category: 'MARKETING',
        components: [{ type: 'BODY', text: 'Hola {{1}}, tenemos novedades para ti.', example: { body_text: [['Ana']] } }],
      },
    ],
    audience: AUDIENCE,
  });
  ({ page, close: closeBrowser, api } = await openSignedIn(stack.baseUrl));

  ({ kommoAccountId, whatsappAccountId, templateId } = await connectAccounts(stack, api, {
    subdomain: SUBDOMAIN,
    kommoToken: KOMMO_TOKEN,
    phoneNumberId: PHONE_NUMBER_ID,
    wabaId: WABA_ID,
    waToken: WA_TOKEN,
    template: TEMPLATE,
    name: 'Ventas Prevuelo',
    phone: '+5491100005001',
    ratePerSecond: 20,
  }));
  await api.post(`/blacklist/${kommoAccountId}`, { phone: BLACKLISTED, reason: 'Pidió no recibir mensajes' });
});
afterAll(async () => {
  await closeBrowser?.();
  await stack?.stop();
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 30_000) {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 250));
  }
}

const text = (t: string) => page.getByText(t, { exact: true }).first().waitFor();
const sentToAudience = () => stack.whatsapp.messages().filter((m) => m.phoneNumberId === PHONE_NUMBER_ID).length;

/** The panel's figures as the operator reads them. */
async function readPanel() {
  const panel = page.getByTestId('preflight-panel');
  const attempted = (await panel.getByTestId('preflight-attempted').textContent({ timeout: 1000 }).catch(() => null)) ?? '';
  const excluded: Record<string, number> = {};
  for (const li of await panel.getByTestId('preflight-excluded').locator('li').all()) {
    // The reason (a download button, or plain text without one) and then its count.
    const label = ((await li.locator(':scope > :first-child').textContent()) ?? '').trim();
    const count = (await li.locator(':scope > :last-child').textContent()) ?? '';
    excluded[label] = Number(count.replace(/\D/g, ''));
  }
  return { attempted: Number(attempted.replace(/\D/g, '')), excluded, updating: await panel.getByText('actualizando...').isVisible() };
}

async function setWindow(start: string, end: string) {
  for (const d of ['Lun', 'Mar', 'Mié', 'Jue', 'Vie', 'Sáb', 'Dom']) await page.getByLabel(d, { exact: true }).check();
  await page.getByLabel('Desde', { exact: true }).fill(start);
  await page.getByLabel('Hasta', { exact: true }).fill(end);
}

/** Toasts sit top-right over the header's actions until they time out (not while hovered). */
async function toastsGone() {
  await page.mouse.move(10, 400);
  await page.waitForFunction(() => !document.querySelector('[data-rht-toaster] [role="status"]'));
}

/** Full-page shots at 1400 px and 390 px, from the top (a scrolled page draws its sticky bars mid-page). */
async function shots(name: string) {
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot(page, name);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot(page, `${name}-phone`);
  await page.setViewportSize({ width: 1400, height: 900 });
}

describe('pre-flight and sending hours', () => {
  let campaignId: number;
  let closed: { start: string; end: string };
  const name = 'Campaña Prevuelo E2E';

  it('shows the pre-flight of a campaign built from filters: attempted and each exclusion with its count', async () => {
    await page.goto(`${stack.baseUrl}/campaigns/new`);
    await page.getByRole('heading', { name: 'Nueva Campaña' }).waitFor();
    await page.getByLabel('Nombre de la Campaña *').fill(name);
    await page.getByLabel('Cuenta Kommo *').selectOption({ label: SUBDOMAIN });
    await page.getByLabel('Cuenta WhatsApp *').selectOption(String(whatsappAccountId));
    await page.getByLabel('Template *').selectOption(String(templateId));
    await page.getByRole('button', { name: 'O (Alguna)' }).click();
    await page.getByRole('button', { name: TAG, exact: true }).click();
    await page.getByRole('button', { name: TAG_VIP, exact: true }).click();

    // A one-hour window starting in three hours, every day, in the recipients' zone: closed now.
    closed = { start: wallClock(ZONE, 180), end: wallClock(ZONE, 240) };
    await page.getByLabel('Enviar solo dentro de un horario').check();
    await setWindow(closed.start, closed.end);

    const panel = await settle(readPanel, (p) => p.attempted === EXPECTED.attempted && !p.updating && Object.keys(p.excluded).length === 3, 45_000);
    expect(panel.attempted).toBe(EXPECTED.attempted);
    expect(panel.excluded).toEqual(EXPECTED.excluded);
    await page.getByTestId('preflight-panel').getByText(`de ${EXPECTED.matched} contactos que coinciden con los filtros`).waitFor();
    // The API answers the same for the same payload, and its ETA waits for the window.
    const same = await api.post('/campaigns/preflight', {
      kommo_account_id: kommoAccountId,
      whatsapp_account_id: whatsappAccountId,
      template_id: templateId,
      message_type: 'template',
      filters: { searchQuery: '', tags: [TAG, TAG_VIP], tagOperator: 'OR', customFieldFilters: {} },
      sending_hours: { days: [1, 2, 3, 4, 5, 6, 7], start: closed.start, end: closed.end },
    });
    expect(same).toMatchObject({ matched: EXPECTED.matched, attempted: EXPECTED.attempted });
    expect(same.eta.waiting_seconds).toBeGreaterThan(2 * 3600);
    await shots('preflight-new');

    await page.getByRole('button', { name: 'Crear Campaña' }).click();
    await page.waitForURL(/\/campaigns\/\d+$/);
    campaignId = Number(page.url().split('/').pop());
    await page.getByRole('heading', { name }).waitFor();
    const created = await api.get(`/campaigns/${campaignId}`);
    expect(created).toMatchObject({ status: 'draft', total_recipients: EXPECTED.matched });
    expect(created.sending_hours).toMatchObject({ start: closed.start, end: closed.end, days: [1, 2, 3, 4, 5, 6, 7] });
    // The detail screen shows the same pre-flight before the start.
    const detail = await settle(readPanel, (p) => p.attempted === EXPECTED.attempted && Object.keys(p.excluded).length === 3);
    expect(detail.attempted).toBe(EXPECTED.attempted);
    expect(detail.excluded).toEqual(EXPECTED.excluded);
  });

  it('starts outside its sending hours: the freeze matches the pre-flight, and it waits without sending', async () => {
    await page.getByRole('button', { name: 'Iniciar' }).click();
    await page.getByRole('dialog').getByRole('button', { name: `Enviar a ${EXPECTED.attempted} personas` }).click();
    await text('Campaña iniciada exitosamente');
    const note = page.getByTestId('campaign-hours-note');
    await note.waitFor({ timeout: 45_000 });
    expect(await note.textContent()).toMatch(/^Fuera del horario de envío · reanuda .+, \d\d:\d\d \([^)]+\)$/);

    const waiting = await api.get(`/campaigns/${campaignId}`);
    expect(waiting.status).toBe('sending');
    // The freeze: what the panel said would be attempted is what is pending (nothing sent yet).
    expect(waiting.pending_count + waiting.messages_sent).toBe(EXPECTED.attempted);
    expect(waiting.messages_sent).toBe(0);
    expect(waiting.total_recipients).toBe(EXPECTED.matched);
    expect(waiting.skipped_count).toBe(EXPECTED.matched - EXPECTED.attempted);
    // It resumes when the window opens in the recipients' zone, shown in the browser's time.
    expect(wallClock(ZONE, 0, Date.parse(waiting.hours_wait_until))).toBe(closed.start);
    expect(Date.parse(waiting.hours_wait_until)).toBeGreaterThan(Date.now() + 2 * 3600_000);
    expect(await note.textContent()).toContain(wallClock(Intl.DateTimeFormat().resolvedOptions().timeZone, 0, Date.parse(waiting.hours_wait_until)));
    // The claim ran and took nothing (that is what records the wait): the simulator got nothing.
    expect(sentToAudience()).toBe(0);
    await text('Enviando');
    await page.getByTestId('campaign-progress-waiting').getByText('En espera: fuera del horario de envío').waitFor();
    expect(await page.getByText('Enviando...').count()).toBe(0);
    expect(await page.getByTestId('count-Entregados').textContent()).toBe('0');
    await toastsGone();
    await shots('preflight-waiting');
    expect(sentToAudience()).toBe(0);
  });

  it('resumes by itself when the hours on its screen open the window now, and completes', async () => {
    await page.getByRole('button', { name: 'Editar horario' }).click();
    await setWindow(wallClock(ZONE, -60), wallClock(ZONE, 120));
    await page.getByRole('button', { name: 'Guardar horario' }).click();
    await text('Horario de envío actualizado');

    await waitFor(async () => (await api.get(`/campaigns/${campaignId}`)).status === 'completed', 60_000);
    await text('Completada');
    await stack.whatsapp.flushWebhooks();
    await waitFor(async () => (await api.get(`/campaigns/${campaignId}`)).delivered_count === EXPECTED.attempted, 30_000);
    await waitFor(async () => (await page.getByTestId('count-Entregados').textContent()) === String(EXPECTED.attempted), 30_000);
    expect(await page.getByTestId('campaign-hours-note').count()).toBe(0);
    expect(await page.getByTestId('campaign-progress-waiting').count()).toBe(0);

    const done = await api.get(`/campaigns/${campaignId}`);
    expect(done).toMatchObject({ messages_sent: EXPECTED.attempted, pending_count: 0, hours_wait_until: null });
    expect(done.skipped_count).toBe(EXPECTED.matched - EXPECTED.attempted);
    // Exactly the attempted phones got it, once each (the duplicate's other format included).
    const to = stack.whatsapp.messages().filter((m) => m.phoneNumberId === PHONE_NUMBER_ID).map((m) => m.to);
    expect(to).toHaveLength(EXPECTED.attempted);
    expect(new Set(to.map((d) => d.replace(/^549/, '54'))).size).toBe(EXPECTED.attempted);
    for (const digits of ATTEMPTED_DIGITS) expect(to.map((d) => d.replace(/^549/, '54'))).toContain(digits.replace(/^549/, '54'));
    expect(stack.whatsapp.duplicates()).toHaveLength(0);
  });
});
