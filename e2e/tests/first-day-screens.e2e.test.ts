import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DESKTOP, launch, PHONE } from '../src/a11y';
import { connectAccounts, waitFor } from '../src/seed';
import { apiAs, startOneNumberStack, type Stack } from '../src/stack';

/**
 * What a new operator sees on the first day, at 1280×800 and at 390×844: the way into a
 * campaign, the recipients' key columns, toasts clear of the buttons, a completed campaign in
 * words, the pending count with the deferred, the country of each cost line, the zone of
 * every time, and the follow-up dialog's buttons, fill time and recent-message warning.
 */

const SUBDOMAIN = 'primerdia';
const KOMMO_TOKEN = 'kommo-first-day-token';
const PHONE_NUMBER_ID = '5301';
const WABA_ID = '6301';
const WA_TOKEN = 'wa-first-day-token';
const TEMPLATE = 'oferta_primer_dia';
const BUTTONS = ['Me interesa', 'Más tarde'];
const TAG = 'Primer día';
const DEFERRED_TAG = 'Diferidos';
const ZONE = 'America/Argentina/Buenos_Aires';
const ZONE_LABEL = 'GMT-3';
const SHOTS = '/tmp/shots-h28-screens';

/** Six Argentine mobiles and two numbers that are not phones (skipped at the freeze). */
const SENDABLE = [1, 2, 3, 4, 5, 6];
const INVALID = [7, 8];
const DEFERRED = [9, 10, 11];
const phoneOf = (id: number) => `+54 9 11 5703-33${String(id).padStart(2, '0')}`;
const CAMPAIGN = 'Bienvenida del primer día con un nombre largo';

let stack: Stack;
let browser: Browser;
let api: ReturnType<typeof apiAs>;
let desk: Page;
let phone: Page;
let campaignId: number;

async function contextFor(options: typeof DESKTOP | typeof PHONE, session: { token: string; user: unknown }): Promise<BrowserContext> {
  const context = await browser.newContext({ ...options, locale: 'es-ES', timezoneId: ZONE, reducedMotion: 'reduce' });
  await context.addInitScript(([token, user]) => {
    localStorage.setItem('token', token as string);
    localStorage.setItem('user', user as string);
  }, [session.token, JSON.stringify(session.user)] as const);
  context.setDefaultTimeout(15_000);
  return context;
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  stack = await startOneNumberStack({
    kommo: { subdomain: SUBDOMAIN, token: KOMMO_TOKEN, contacts: 14, seed: 28 },
    number: { phoneNumberId: PHONE_NUMBER_ID, wabaId: WABA_ID, token: WA_TOKEN, displayPhoneNumber: '5491100005301' },
    templates: [
      {
        name: TEMPLATE,
        category: 'MARKETING',
        components: [
          { type: 'BODY', text: 'Hola {{1}}, hoy tenemos algo para ti.', example: { body_text: [['Ana']] } },
          { type: 'BUTTONS', buttons: BUTTONS.map((text) => ({ type: 'QUICK_REPLY', text })) },
        ],
      },
    ],
    // Nobody reads: "No leyeron tras 24 h" stays empty until a day after the send.
    readRate: 0,
    statusDelayMs: 20,
  });
  for (const id of SENDABLE) stack.kommo.updateContact(SUBDOMAIN, id, { phone: phoneOf(id), tags: [TAG] });
  for (const id of INVALID) stack.kommo.updateContact(SUBDOMAIN, id, { phone: '12345', tags: [TAG] });
  for (const id of DEFERRED) stack.kommo.updateContact(SUBDOMAIN, id, { phone: phoneOf(id), tags: [DEFERRED_TAG] });

  const email = `primerdia${Date.now()}@example.com`;
  const res = await fetch(`${stack.baseUrl}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ first_name: 'Laura', last_name: 'Gómez', email, password: 'secreto123' }),
  });
  const session = (await res.json()) as { token: string; user: unknown };
  api = apiAs(stack.baseUrl, session.token);
  const ids = await connectAccounts(stack, api, {
    subdomain: SUBDOMAIN,
    kommoToken: KOMMO_TOKEN,
    phoneNumberId: PHONE_NUMBER_ID,
    wabaId: WABA_ID,
    waToken: WA_TOKEN,
    template: TEMPLATE,
    name: 'Ventas Primer Día',
    phone: '+5491100005301',
    // Slow enough that "Pausar" is on screen for a few seconds after "Iniciar".
    ratePerSecond: 1,
  });
  const created = await api.post('/campaigns', {
    name: CAMPAIGN,
    description: 'Todos los contactos nuevos de la semana, con una descripción que ocupa su columna',
    kommo_account_id: ids.kommoAccountId,
    whatsapp_account_id: ids.whatsappAccountId,
    template_id: ids.templateId,
    message_type: 'template',
    filters: { searchQuery: '', tags: [TAG], tagOperator: 'OR', customFieldFilters: {} },
  });
  campaignId = created.id;
  // Another campaign whose three people Meta's marketing limit defers (131049).
  const deferred = await api.post('/campaigns', {
    name: 'Recordatorio diferido',
    kommo_account_id: ids.kommoAccountId,
    whatsapp_account_id: ids.whatsappAccountId,
    template_id: ids.templateId,
    message_type: 'template',
    filters: { searchQuery: '', tags: [DEFERRED_TAG], tagOperator: 'OR', customFieldFilters: {} },
  });
  deferredId = deferred.id;

  browser = await launch();
  desk = await (await contextFor(DESKTOP, session)).newPage();
  phone = await (await contextFor(PHONE, session)).newPage();
});
let deferredId: number;
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

type Box = { x: number; y: number; width: number; height: number };
const intersects = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** Inside the viewport: wholly visible without scrolling sideways. */
async function inViewport(page: Page, locator: Locator) {
  const box = (await locator.boundingBox())!;
  const { width } = page.viewportSize()!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(width);
}

/**
 * Waits for the toast that says `text` (and, when named, for the button `button` too) and, in
 * the same frame, returns the toast's box (the whole bar), the button's, and the visible
 * controls (buttons, links, fields) the toast overlaps, by name. Start it before the click:
 * a success toast lasts 2 s.
 */
async function controlsUnderToast(page: Page, text: string, button?: string, shotName?: string): Promise<{ toast: Box; button: Box | null; hits: string[] }> {
  // The pointer on the toast keeps it (react-hot-toast pauses while hovered), however slow the machine.
  const message = page.locator('[role="status"]', { hasText: text }).first();
  await message.waitFor({ timeout: 30_000 });
  await message.hover({ timeout: 2_000 }).catch(() => undefined);
  const handle = await page.waitForFunction(
    ([t, b]) => {
      const message = Array.from(document.querySelectorAll('[role="status"]')).find((el) => el.textContent?.includes(t!));
      const bar = message?.parentElement;
      if (!bar) return null;
      const box = bar.getBoundingClientRect();
      // Seen, not merely laid out: a toast that never becomes opaque is no toast to a person.
      if (!box.width || !box.height || Number(getComputedStyle(bar).opacity) < 0.9) return null;
      const controls = Array.from(document.querySelectorAll<HTMLElement>('button, a[href], input, select, textarea, [role="button"]')).filter(
        (el) => !bar.contains(el) && !el.closest('[aria-hidden="true"]') && el.getBoundingClientRect().width > 0,
      );
      const named = b ? controls.find((el) => el.tagName === 'BUTTON' && el.textContent?.trim() === b) : null;
      if (b && !named) return null;
      const rect = (r: DOMRect) => ({ x: r.x, y: r.y, width: r.width, height: r.height });
      const hits = controls
        .filter((el) => {
          const r = el.getBoundingClientRect();
          return r.height > 0 && r.left < box.right && box.left < r.right && r.top < box.bottom && box.top < r.bottom;
        })
        .map((el) => el.getAttribute('aria-label') || el.textContent?.trim() || el.tagName);
      return { toast: rect(box), button: named ? rect(named.getBoundingClientRect()) : null, hits };
    },
    [text, button ?? null] as const,
    { timeout: 30_000 },
  );
  // The picture right away, while the toast still shows.
  if (shotName) await shoot(page, shotName);
  return (await handle.jsonValue())!;
}

/** Accepts a confirmation the console may ask for before sending (a dialog or the browser's own). */
async function startFromDetail(page: Page) {
  page.once('dialog', (d) => void d.accept());
  await page.getByRole('button', { name: 'Iniciar', exact: true }).click();
  const dialog = page.getByRole('dialog').or(page.getByRole('alertdialog'));
  try {
    await dialog.first().waitFor({ timeout: 1500 });
  } catch {
    return;
  }
  await dialog.first().getByRole('button').filter({ hasNotText: /Cancelar|Cerrar/ }).last().click();
}

async function shoot(page: Page, name: string) {
  await page.screenshot({ path: `${SHOTS}/${name}-${page.viewportSize()!.width}.png` });
}

describe('campaign list at 1280 and 390', () => {
  it('the name is a link inside the viewport that opens the campaign', async () => {
    for (const page of [desk, phone]) {
      await page.goto(`${stack.baseUrl}/campaigns`);
      const link = page.getByRole('link', { name: CAMPAIGN });
      await link.waitFor();
      await inViewport(page, link);
      // "Ver" is in view too, and nothing pans sideways.
      await inViewport(page, page.getByRole('link', { name: 'Ver', exact: true }).first());
      expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
      await shoot(page, 'campaign-list');
      await link.click();
      await page.waitForURL(`${stack.baseUrl}/campaigns/${campaignId}`);
      await page.getByRole('heading', { name: CAMPAIGN }).waitFor();
    }
  });
});

describe('toasts at 1280 and 390', () => {
  it('a toast on the campaign list covers neither "Nueva Campaña" nor any other control', async () => {
    for (const page of [desk, phone]) {
      await page.goto(`${stack.baseUrl}/campaigns`);
      await page.getByRole('button', { name: 'Guardar' }).click();
      const { toast, hits } = await controlsUnderToast(page, 'Tope de frecuencia desactivado', undefined, 'toast-list');
      expect(hits).toEqual([]);
      expect(intersects(toast, (await page.getByRole('link', { name: 'Nueva Campaña' }).boundingBox())!)).toBe(false);
      // Still top-right: its right edge is 16 px from the viewport's.
      expect(Math.round(toast.x + toast.width)).toBe(page.viewportSize()!.width - 16);
    }
  });

  it('"Campaña iniciada exitosamente" does not sit on "Pausar", nor "Campaña pausada exitosamente" on "Iniciar"', async () => {
    await desk.goto(`${stack.baseUrl}/campaigns/${campaignId}`);
    await desk.getByRole('heading', { name: CAMPAIGN }).waitFor();
    // Scrolled a little, as after reading the pre-flight: the header's buttons are near the top.
    await desk.evaluate(() => window.scrollTo(0, 40));
    const started = controlsUnderToast(desk, 'Campaña iniciada exitosamente', 'Pausar', 'toast-started');
    await startFromDetail(desk);
    const onStart = await started;
    expect(intersects(onStart.toast, onStart.button!)).toBe(false);
    expect(onStart.hits).toEqual([]);

    await phone.goto(`${stack.baseUrl}/campaigns/${campaignId}`);
    await phone.getByRole('heading', { name: CAMPAIGN }).waitFor();
    const paused = controlsUnderToast(phone, 'Campaña pausada exitosamente', 'Iniciar', 'toast-paused');
    await phone.getByRole('button', { name: 'Pausar' }).click();
    const onPause = await paused;
    expect(intersects(onPause.toast, onPause.button!)).toBe(false);
    expect(onPause.hits).toEqual([]);
    const resumed = controlsUnderToast(phone, 'Campaña iniciada exitosamente');
    await startFromDetail(phone);
    expect((await resumed).hits).toEqual([]);
    await waitFor(async () => (await api.get(`/campaigns/${campaignId}`)).status === 'completed', 60_000);
    await waitFor(async () => (await api.get(`/campaigns/${campaignId}`)).delivered_count === SENDABLE.length, 30_000);
  });
});

describe('figures at 1280 and 390', () => {
  it('a completed campaign says so in words beside its percentage', async () => {
    const done = await api.get(`/campaigns/${campaignId}`);
    expect(done).toMatchObject({ status: 'completed', total_recipients: 8, messages_sent: 6, skipped_count: 2 });
    for (const page of [desk, phone]) {
      await page.goto(`${stack.baseUrl}/campaigns/${campaignId}`);
      const card = page.getByTestId('campaign-progress-card');
      await expect.poll(() => card.innerText()).toContain('Completada · 6 enviados de 8 (2 omitidos)');
      expect(await card.innerText()).toContain('75%');
      await card.scrollIntoViewIfNeeded();
      await shoot(page, 'completed-figures');
      await page.goto(`${stack.baseUrl}/campaigns`);
      await page.getByText('Completada · 6 enviados de 8 (2 omitidos)').first().waitFor();
    }
  });

  it('the real cost names the country of each line, and times say their zone', async () => {
    for (const page of [desk, phone]) {
      await page.goto(`${stack.baseUrl}/campaigns/${campaignId}`);
      const cost = page.getByTestId('campaign-cost');
      await cost.waitFor();
      const lines = cost.getByRole('list', { name: 'Costo por categoría, país y tipo' });
      await expect.poll(() => lines.innerText()).toMatch(/Marketing · AR · con cargo · 6/);
      await cost.scrollIntoViewIfNeeded();
      await shoot(page, 'cost-country');
      // The details card: every moment with the browser's zone.
      const created = page.locator('dt', { hasText: 'Fecha de creación' }).locator('xpath=following-sibling::dd[1]');
      expect(await created.innerText()).toMatch(new RegExp(`\\d{1,2}:\\d{2}:\\d{2} \\(${ZONE_LABEL}\\)$`));
      const finished = page.locator('dt', { hasText: 'Fecha de finalización' }).locator('xpath=following-sibling::dd[1]');
      expect(await finished.innerText()).toContain(`(${ZONE_LABEL})`);
    }
  });

  it('the recipients table shows status, delivered, read and charge without scrolling sideways at 1280', async () => {
    await desk.goto(`${stack.baseUrl}/campaigns/${campaignId}`);
    const region = desk.getByRole('region', { name: 'Destinatarios' });
    await region.locator('tbody tr').first().waitFor();
    await region.scrollIntoViewIfNeeded();
    const visible = (await region.boundingBox())!;
    expect(await region.evaluate((el) => el.scrollLeft)).toBe(0);
    for (const name of ['Estado', `Entregado (${ZONE_LABEL})`, `Leído (${ZONE_LABEL})`, 'Cobro']) {
      const header = (await region.getByRole('columnheader', { name, exact: true }).boundingBox())!;
      expect(header.x + header.width, name).toBeLessThanOrEqual(Math.min(visible.x + visible.width, 1280));
    }
    // A delivered row: its state, delivery time and charge are those cells, in view.
    const row = region.locator('tbody tr', { hasText: 'Entregado' }).first();
    expect(await row.innerText()).toMatch(/Entregado\s+\d{2}\/\d{2} \d{2}:\d{2}\s+-\s+Marketing/);
    await shoot(desk, 'recipients');

    await phone.goto(`${stack.baseUrl}/campaigns/${campaignId}`);
    const list = phone.getByRole('list', { name: 'Destinatarios' });
    const item = list.getByRole('listitem').filter({ hasText: 'Entregado' }).first();
    await item.waitFor();
    await item.scrollIntoViewIfNeeded();
    for (const label of ['Entregado', 'Cobro']) await inViewport(phone, item.locator('dt', { hasText: label }).first());
    expect(await item.innerText()).toContain(`(${ZONE_LABEL})`);
    await shoot(phone, 'recipients');
  });

  it('"Mensajes Pendientes" counts the deferred recipients waiting for their retry', async () => {
    stack.whatsapp.configure({ rules: { marketingLimitShare: 1 } });
    await api.post(`/campaigns/${deferredId}/start`);
    await waitFor(async () => {
      const c = await api.get(`/campaigns/${deferredId}`);
      return c.status === 'completed' && c.deferred_count === DEFERRED.length;
    }, 60_000);
    expect(await api.get('/dashboard/pending')).toEqual({ pending_messages: 3, deferred: 3 });
    for (const page of [desk, phone]) {
      await page.goto(`${stack.baseUrl}/dashboard`);
      const card = page.getByTestId('dashboard-pending');
      await expect.poll(() => card.innerText()).toMatch(/Mensajes Pendientes\s+3\s+incluye 3 diferidos que esperan su reintento/);
      await shoot(page, 'dashboard-pending');
    }
  });
});

describe('follow-ups at 1280 and 390', () => {
  it('offers the template’s buttons, says when an empty group fills, and warns about people messaged in the last 24 h', async () => {
    const detail = await api.get(`/campaigns/${campaignId}`);
    const count = await api.get(`/campaigns/${campaignId}/follow-up/count?group=unread&hours=24`);
    expect(count).toMatchObject({ count: 0, frequency_cap: null });
    const fills = new Date(count.available_from);
    expect(fills.getTime()).toBeGreaterThan(Date.parse(detail.started_at) + 23 * 3_600_000);
    const day = new Intl.DateTimeFormat('es-ES', { timeZone: ZONE, day: '2-digit', month: '2-digit' }).format(fills);
    const time = new Intl.DateTimeFormat('es-ES', { timeZone: ZONE, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(fills);

    for (const page of [desk, phone]) {
      await page.goto(`${stack.baseUrl}/campaigns/${campaignId}`);
      await page.getByRole('button', { name: 'Nueva campaña para…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Nueva campaña para…' });
      const counted = dialog.getByTestId('follow-up-count');
      await expect
        .poll(async () => (await counted.innerText()).replace(/\s+/g, ' '))
        .toContain(`No leyeron tras 24 h: disponible desde el ${day} ${time} (${ZONE_LABEL})`);
      await shoot(page, 'follow-up-fills');

      await dialog.getByLabel('Tocaron un botón').check();
      const buttons = dialog.getByTestId('follow-up-buttons');
      for (const b of BUTTONS) await buttons.getByRole('radio', { name: `«${b}»` }).waitFor();
      expect(await buttons.getByRole('radio', { name: `«${BUTTONS[0]}»` }).isChecked()).toBe(true);
      await buttons.getByRole('radio', { name: `«${BUTTONS[1]}»` }).check();
      await expect.poll(async () => (await counted.innerText()).replace(/\s+/g, ' ')).toMatch(/^0 contactos en este grupo/);
      await shoot(page, 'follow-up-buttons');

      await dialog.getByLabel('No respondieron', { exact: true }).check();
      await expect.poll(async () => (await counted.innerText()).replace(/\s+/g, ' ')).toMatch(/^6 contactos en este grupo/);
      const recent = dialog.getByTestId('follow-up-recent');
      await expect.poll(() => recent.innerText()).toMatch(/El tope de frecuencia está desactivado\. Las 6 personas recibieron un mensaje en las últimas 24\sh/);
      await recent.scrollIntoViewIfNeeded();
      await inViewport(page, recent);
      await shoot(page, 'follow-up-recent');
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
    }
  });
});
