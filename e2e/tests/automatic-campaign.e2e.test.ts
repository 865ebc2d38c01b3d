import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSignedIn, shot } from '../src/browser';
import { startOneNumberStack, type ConsoleApi, type Stack } from '../src/stack';

/**
 * «Campaña automática» in the browser: created on the stage «Cotización enviada» with a 1-minute
 * delay; two leads enter it in the Kommo simulator (Kommo's webhooks reach the console), one
 * leaves again before its minute is up. One message is sent, the other is skipped with its
 * reason, both on the campaign's screen, and the write-back leaves its note in Kommo.
 */
const SUB = 'automatica';
const KOMMO_TOKEN = 'kommo-auto-token';
const NUMBER = { phoneNumberId: '3101', wabaId: '3201', token: 'wa-auto-token', displayPhoneNumber: '5491100000000' };
const CONTACT_SENT = 1;
const CONTACT_LEFT = 2;
const leadOf = (contact: number) => contact * 10 + 1;

let stack: Stack;
let page: Page;
let closeBrowser: () => Promise<void>;
let api: ConsoleApi;
let kommoAccountId: number;
let whatsappAccountId: number;
let templateId: number;

async function waitFor(check: () => Promise<boolean> | boolean, timeoutMs = 30_000) {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 250));
  }
}

beforeAll(async () => {
  stack = await startOneNumberStack({
    kommo: { subdomain: SUB, token: KOMMO_TOKEN, contacts: 40, seed: 21 },
    number: NUMBER,
    templates: [
      { name: 'cotizacion_recordatorio', category: 'UTILITY', components: [{ type: 'BODY', text: 'Hola {{1}}, te enviamos la cotización. ¿Tienes dudas?', example: { body_text: [['Ana']] } }] },
    ],
    audience: [
      { id: CONTACT_SENT, phone: '+5491155510001' },
      { id: CONTACT_LEFT, phone: '+5491155510002' },
    ],
    publicUrlIsServer: true,
  });
  ({ page, close: closeBrowser, api } = await openSignedIn(stack.baseUrl));
  const kommo = await api.post('/kommo/accounts', { subdomain: SUB, access_token: KOMMO_TOKEN, phone_field_id: stack.kommo.fields(SUB).phoneFieldId });
  kommoAccountId = kommo.id;
  await api.post('/kommo/sync-contacts', { account_id: kommoAccountId });
  await waitFor(async () => (await api.get(`/kommo/accounts/${kommoAccountId}/sync-status`)).sync_status === 'synced', 60_000);
  await api.put(`/kommo/accounts/${kommoAccountId}/writeback`, { enabled: true, notes: true, opt_out_tag: null, reply_tag: null, pipeline_id: null, status_id: null });
  const wa = await api.post('/whatsapp-accounts', {
    name: 'Cotizaciones',
    phone_number: '+5491100000000',
    phone_number_id: NUMBER.phoneNumberId,
    access_token: NUMBER.token,
    business_account_id: NUMBER.wabaId,
    kommo_account_id: kommoAccountId,
    rate_per_second: 20,
  });
  whatsappAccountId = wa.id;
  await api.post('/templates/sync', { whatsapp_account_id: whatsappAccountId });
  const templates: { id: number; name: string }[] = await api.get(`/templates/account/${whatsappAccountId}`);
  templateId = templates.find((t) => t.name === 'cotizacion_recordatorio')!.id;
  await api.post(`/variables/template/${templateId}/mappings`, {
    mappings: [{ templateVariable: 'variable_1', sourceType: 'contact', sourceField: 'name', defaultValue: 'cliente' }],
  });
}, 120_000);
afterAll(async () => {
  await closeBrowser?.();
  await stack?.stop();
});

describe('an automatic campaign on a Kommo stage', () => {
  it('sends to the lead that stayed, skips the one that left with its reason, and notes it in Kommo', async () => {
    await page.goto(`${stack.baseUrl}/campaigns/new`);
    await page.getByLabel('Tipo de campaña').selectOption('automatic');
    await page.getByLabel('Nombre de la Campaña *').fill('Recordatorio de cotización');
    await page.getByLabel('Cuenta Kommo *').selectOption({ label: SUB });
    await page.getByLabel('Cuenta WhatsApp *').selectOption(String(whatsappAccountId));
    await page.getByLabel('Template *').selectOption(String(templateId));
    await page.getByLabel('Embudo de Kommo *').selectOption({ label: 'Embudo de ventas' });
    await page.getByLabel('Etapa *').selectOption({ label: 'Cotización enviada' });
    await page.getByLabel('Demora').fill('1');
    await page.getByLabel('Unidad').selectOption({ label: 'minutos' });
    await shot(page, 'automatic-campaign-form');
    await page.getByRole('button', { name: 'Crear Campaña' }).click();
    await page.waitForURL(/\/campaigns\/\d+$/);
    const campaignId = Number(/\/campaigns\/(\d+)$/.exec(page.url())![1]);

    await page.getByRole('button', { name: 'Iniciar' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await shot(page, 'automatic-campaign-start');
    await dialog.getByText(/Entra en la etapa «Cotización enviada» \(Embudo de ventas\), 1 minuto\(s\) después/).waitFor();
    await dialog.getByRole('button', { name: 'Activar campaña automática' }).click();
    await waitFor(async () => (await api.get(`/campaigns/${campaignId}`)).status === 'sending');

    const main = stack.kommo.pipelines(SUB).find((p) => p.isMain)!;
    const quote = main.statuses.find((s) => s.name === 'Cotización enviada')!;
    const negotiation = main.statuses.find((s) => s.name === 'Negociación')!;
    stack.kommo.moveLeads(SUB, [{ id: leadOf(CONTACT_SENT), statusId: quote.id }, { id: leadOf(CONTACT_LEFT), statusId: quote.id }], { perPost: 2 });
    // Both recorded at once, each «Programado» for its minute.
    await waitFor(async () => (await api.get(`/campaigns/${campaignId}`)).automation?.events_received === 2, 15_000);
    await page.reload();
    await page.getByText(/Programado para/).first().waitFor();
    await shot(page, 'automatic-campaign-waiting');
    // One lead goes back before its minute is up.
    stack.kommo.moveLead(SUB, leadOf(CONTACT_LEFT), negotiation.id);

    await waitFor(() => stack.whatsapp.messages().some((m) => m.to === '5491155510001'), 90_000);
    const statuses = async () => {
      const list = await api.get(`/campaigns/${campaignId}/messages?limit=50`);
      return list.messages as Array<{ phone: string | null; status: string; error_message: string | null }>;
    };
    await waitFor(async () => (await statuses()).every((r) => !['waiting', 'pending', 'sending'].includes(r.status)), 30_000);
    const rows = await statuses();
    expect(rows).toHaveLength(2);
    expect(rows.filter((r) => r.status === 'skipped').map((r) => r.error_message)).toEqual([expect.stringMatching(/ya no está en la etapa/)]);
    expect(stack.whatsapp.messages().filter((m) => m.to === '5491155510002')).toHaveLength(0);

    await page.reload();
    await page.getByText(/ya no está en la etapa/).first().waitFor();
    await shot(page, 'automatic-campaign-after');
    // The write-back's note on the person who got the message.
    await waitFor(() => stack.kommo.notes(SUB, CONTACT_SENT).some((n) => n.text.startsWith('Campaña Recordatorio de cotización:')), 60_000);
    expect(stack.kommo.notes(SUB, CONTACT_LEFT)).toHaveLength(0);
  }, 240_000);
});
