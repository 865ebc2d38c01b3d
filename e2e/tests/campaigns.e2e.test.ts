import { filterToSearchParams } from '@masivo/contract/contact-filter';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSignedIn, shot } from '../src/browser';
import { startOneNumberStack, type ConsoleApi, type Stack } from '../src/stack';

/**
 * The campaign journey in the browser: create a campaign from contact filters, start and
 * pause it from the list, resume it from its screen, watch it complete with delivered and
 * read counts, find it on the dashboard, delete it. Accounts, sync, templates and variable
 * mapping are set up through the API (their screens have their own e2e tests).
 */

const SUBDOMAIN = 'campanas';
const KOMMO_TOKEN = 'kommo-e2e-token';
const PHONE_NUMBER_ID = '1001';
const WABA_ID = '2001';
const WA_TOKEN = 'wa-e2e-token';

let stack: Stack;
let page: Page;
let closeBrowser: () => Promise<void>;
let api: ConsoleApi;
let kommoAccountId: number;
let whatsappAccountId: number;
let templateId: number;

beforeAll(async () => {
  stack = await startOneNumberStack({
    kommo: { subdomain: SUBDOMAIN, token: KOMMO_TOKEN, contacts: 300, seed: 11 },
    number: { phoneNumberId: PHONE_NUMBER_ID, wabaId: WABA_ID, token: WA_TOKEN, displayPhoneNumber: '5491100000000' },
    templates: [
      {
        name: 'promo_e2e',
        category: 'MARKETING',
        components: [{ type: 'BODY', text: 'Hola {{1}}, tenemos una oferta para ti.', example: { body_text: [['Ana']] } }],
      },
    ],
    statusDelayMs: 50,
  });
  ({ page, close: closeBrowser, api } = await openSignedIn(stack.baseUrl));
  await setUpAccounts();
});
afterAll(async () => {
  await closeBrowser?.();
  await stack?.stop();
});

async function setUpAccounts() {
  const { phoneFieldId } = stack.kommo.fields(SUBDOMAIN);
  const kommo = await api.post('/kommo/accounts', { subdomain: SUBDOMAIN, access_token: KOMMO_TOKEN, phone_field_id: phoneFieldId });
  kommoAccountId = kommo.id;
  await api.post('/kommo/sync-contacts', { account_id: kommoAccountId });
  await waitFor(async () => (await api.get(`/kommo/accounts/${kommoAccountId}/sync-status`)).sync_status === 'synced', 60_000);

  // A slow sender (2 msg/s) leaves time to pause from the list.
  const wa = await api.post('/whatsapp-accounts', {
    name: 'Ventas E2E',
    phone_number: '+5491100000000',
    phone_number_id: PHONE_NUMBER_ID,
    access_token: WA_TOKEN,
    business_account_id: WABA_ID,
    kommo_account_id: kommoAccountId,
    rate_per_second: 2,
  });
  whatsappAccountId = wa.id;
  await api.post('/templates/sync', { whatsapp_account_id: whatsappAccountId });
  const templates: { id: number; name: string }[] = await api.get(`/templates/account/${whatsappAccountId}`);
  templateId = templates.find((t) => t.name === 'promo_e2e')!.id;
  await api.post(`/variables/template/${templateId}/mappings`, {
    mappings: [{ templateVariable: 'variable_1', sourceType: 'contact', sourceField: 'name', defaultValue: 'cliente' }],
  });
}

async function waitFor(check: () => Promise<boolean>, timeoutMs = 30_000) {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 250));
  }
}

const nav = (label: string) => page.getByRole('navigation', { name: 'Navegación principal' }).getByRole('link', { name: label });
/** Toasts sit top-right, over the list's action column, until they time out (not while hovered). */
async function toastsGone() {
  await page.mouse.move(10, 400);
  await page.waitForFunction(() => !document.querySelector('[data-rht-toaster] [role="status"]'));
}
const text = (t: string) => page.getByText(t, { exact: true }).first().waitFor();

describe('campaigns', () => {
  let campaignId: number;
  let audience: number;
  const name = 'Campaña E2E Verano';

  it('shows the empty list and creates a campaign from filters', async () => {
    await page.goto(`${stack.baseUrl}/campaigns`);
    await text('No tienes campañas creadas');
    await page.getByRole('link', { name: 'Nueva Campaña' }).click();
    await page.waitForURL(/\/campaigns\/new$/);
    await page.getByRole('heading', { name: 'Nueva Campaña' }).waitFor();

    await page.getByLabel('Nombre de la Campaña *').fill(name);
    await page.getByLabel('Descripción').fill('Clientes de la etiqueta elegida');
    await page.getByLabel('Cuenta Kommo *').selectOption({ label: SUBDOMAIN });
    await page.getByLabel('Cuenta WhatsApp *').selectOption(String(whatsappAccountId));
    await page.getByLabel('Template *').selectOption(String(templateId));
    await expect(page.getByTestId('template-preview').textContent()).resolves.toContain('Hola {{1}}, tenemos una oferta para ti.');

    // Two tags with OR: the box shows exactly what the API counts for that filter.
    const tags: string[] = await api.get(`/contacts/${kommoAccountId}/tags`);
    const chosen = tags.slice(0, 2);
    for (const tag of chosen) await page.getByRole('button', { name: tag, exact: true }).click();
    audience = (await api.get(`/contacts/recipient-count?${filterToSearchParams({ tags: chosen, tagOperator: 'OR' }, { account_id: kommoAccountId })}`)).count;
    expect(audience).toBeGreaterThan(3);
    await waitFor(async () => (await page.getByTestId('recipient-count').textContent()) === audience.toLocaleString('es-ES'));
    await shot(page, 'campaign-new');

    await page.getByRole('button', { name: 'Crear Campaña' }).click();
    await page.waitForURL(/\/campaigns\/\d+$/);
    await text('Campaña creada exitosamente');
    campaignId = Number(page.url().split('/').pop());
    await page.getByRole('heading', { name }).waitFor();
    await text('Borrador');
    const created = await api.get(`/campaigns/${campaignId}`);
    expect(created).toMatchObject({ status: 'draft', total_recipients: audience, filters: { tags: chosen, tagOperator: 'OR' } });
  });

  it('starts and pauses the campaign from the list', async () => {
    await nav('Campañas').click();
    await page.waitForURL(/\/campaigns$/);
    const row = page.getByTestId(`campaign-row-${campaignId}`);
    await row.getByText('Borrador').waitFor();
    await row.getByRole('button', { name: /Iniciar campaña/ }).click();
    await page.getByRole('dialog').getByRole('button', { name: /^Enviar a [\d.]+ personas?$/ }).click();
    await text('Campaña iniciada exitosamente');
    await row.getByText('Enviando').waitFor();
    await row.getByRole('button', { name: /Pausar campaña/ }).click();
    await text('Campaña pausada exitosamente');
    await row.getByText('Pausada').waitFor();
    await shot(page, 'campaigns-list');
    const paused = await api.get(`/campaigns/${campaignId}`);
    expect(paused.status).toBe('paused');
    expect(paused.messages_sent).toBeLessThan(audience);
  });

  it('resumes from the detail screen and watches it complete, progress being sent over recipients, with delivered and read counts', async () => {
    // Faster now, so the rest of the audience goes out in a few seconds.
    await api.put(`/whatsapp-accounts/${whatsappAccountId}`, { name: 'Ventas E2E', rate_per_second: 50 });
    await toastsGone();
    await page.getByTestId(`campaign-row-${campaignId}`).getByRole('link', { name: 'Ver', exact: true }).click();
    await page.waitForURL(new RegExp(`/campaigns/${campaignId}$`));
    await page.getByRole('button', { name: 'Iniciar' }).click();
    await page.getByRole('dialog').getByRole('button', { name: /^Enviar a [\d.]+ personas?$/ }).click();
    await text('Campaña iniciada exitosamente');

    await waitFor(async () => (await api.get(`/campaigns/${campaignId}`)).status === 'completed', 60_000);
    await text('Completada');
    const done = await api.get(`/campaigns/${campaignId}`);
    expect(done.messages_sent + done.failed_count + done.skipped_count + done.unknown_count).toBe(done.total_recipients);
    expect(done.messages_sent).toBeGreaterThan(0);
    // Spec: the bar is messages_sent / total_recipients; recipients that got nothing are not progress.
    const percent = String(Math.floor((done.messages_sent / done.total_recipients) * 100));
    await page.locator(`[role="progressbar"][aria-label="Progreso de la campaña"][aria-valuenow="${percent}"]`).waitFor();

    // Receipts arrive by webhook after the sends; the screen keeps following them.
    await stack.whatsapp.flushWebhooks();
    await waitFor(async () => {
      const c = await api.get(`/campaigns/${campaignId}`);
      return c.read_count === c.messages_sent && c.delivered_count >= c.read_count;
    }, 30_000);
    const settled = await api.get(`/campaigns/${campaignId}`);
    await waitFor(async () => (await page.getByTestId('count-Leídos').textContent()) === settled.read_count.toLocaleString('es-ES'), 20_000);
    expect(await page.getByTestId('count-Entregados').textContent()).toBe(settled.delivered_count.toLocaleString('es-ES'));
    expect(settled.read_count).toBeGreaterThan(0);
    await page.getByRole('cell', { name: 'Leído' }).first().waitFor();
    expect(stack.whatsapp.duplicates()).toHaveLength(0);
    await shot(page, 'campaign-detail');
  });

  it('finds the campaign on the dashboard', async () => {
    await nav('Dashboard').click();
    await page.waitForURL(/\/dashboard$/);
    const recent = page.locator('tr', { hasText: name });
    await recent.getByText('Completada', { exact: true }).waitFor();
    const done = await api.get(`/campaigns/${campaignId}`);
    await recent.getByText(`${done.messages_sent.toLocaleString('es-ES')}/${done.total_recipients.toLocaleString('es-ES')}`).waitFor();
    const account = await api.get(`/kommo/accounts/${kommoAccountId}`);
    const card = (title: string) => page.locator('p', { hasText: title }).locator('xpath=following-sibling::p[1]');
    expect(await card('Total Contactos').textContent()).toBe(account.sync_total_contacts.toLocaleString('es-ES'));
    expect(await card('Campañas Completadas').textContent()).toBe('1');
    expect(await card('Campañas Activas').textContent()).toBe('0');
    expect(await card('Mensajes Pendientes').textContent()).toBe('0');
    await shot(page, 'dashboard');
  });

  it('deletes the completed campaign after confirmation', async () => {
    await page.goto(`${stack.baseUrl}/campaigns/${campaignId}`);
    page.once('dialog', (d) => {
      expect(d.message()).toBe('¿Estás seguro de que quieres eliminar esta campaña?');
      void d.accept();
    });
    await page.getByRole('button', { name: 'Eliminar' }).click();
    await page.waitForURL(/\/campaigns$/);
    await text('Campaña eliminada exitosamente');
    await text('No tienes campañas creadas');
    await page.goto(`${stack.baseUrl}/campaigns/${campaignId}`);
    await text('Campaña no encontrada');
  });
});
