import { mkdirSync } from 'node:fs';
import { DEMO_HEADER_PNG } from '@masivo/simulators/demo-templates';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSignedIn } from '../src/browser';
import { connectAccounts, waitFor } from '../src/seed';
import { startOneNumberStack, type ConsoleApi, type Stack } from '../src/stack';

/**
 * A new operator's first day, in the browser at 1280×800 and at 390×844:
 * - a template whose image header and coupon button are fixed values («Valor fijo») is chosen
 *   in «Nueva Campaña», created and sent through the form;
 * - «Iniciar» (detail) and ▷ (list) ask first, with the pre-flight in short and a button that
 *   says how many people it sends to; «Cancelar» sends nothing;
 * - a draft is edited in its form (name, description, template, filters, sending hours), then
 *   scheduled, moved to another time and taken back to draft.
 * Accounts, sync and the other templates' mappings are set up through the API.
 */

const SUBDOMAIN = 'primerdia';
const KOMMO_TOKEN = 'kommo-first-day-token';
const NUMBER = { phoneNumberId: '7101', wabaId: '8101', token: 'wa-first-day-token', displayPhoneNumber: '5491100007101' };
const WELCOME = 'bienvenida_dia';
const REMINDER = 'recordatorio_dia';
const TAG = 'Primer Día';
const TAG_VIP = 'Primer Día VIP';
const BLACKLISTED = '+54 9 11 5701-3307';
/** Tagged TAG: 6 valid phones and one blacklisted (7 matched, 6 attempted); 3 of them are VIP too. */
const AUDIENCE = [
  { id: 1, phone: '+54 9 11 5701-3301', tags: [TAG, TAG_VIP] },
  { id: 2, phone: '+54 9 11 5701-3302', tags: [TAG, TAG_VIP] },
  { id: 3, phone: '+54 9 11 5701-3303', tags: [TAG, TAG_VIP] },
  { id: 4, phone: '+54 9 11 5701-3304', tags: [TAG] },
  { id: 5, phone: '+54 9 11 5701-3305', tags: [TAG] },
  { id: 6, phone: '+54 9 11 5701-3306', tags: [TAG] },
  { id: 7, phone: BLACKLISTED, tags: [TAG] },
];
const MATCHED = 7;
const ATTEMPTED = 6;
const COUPON = 'MASIVO15';

const VIEWPORTS = [
  { key: 'desktop', width: 1280, height: 800 },
  { key: 'phone', width: 390, height: 844 },
] as const;
const SHOTS = '/tmp/shots-h28-forms';

/** An image header, a body placeholder, a quick reply and a coupon button (Botón 2). */
const couponTemplate = (name: string) => ({
  wabaId: NUMBER.wabaId,
  name,
  language: 'es',
  category: 'MARKETING' as const,
  components: [
    { type: 'HEADER', format: 'IMAGE', example: { header_handle: ['4::aW1hZ2UvcG5n:demo'] } },
    { type: 'BODY', text: 'Hola {{1}}, usa tu cupón para obtener 15% de descuento.', example: { body_text: [['Ana']] } },
    { type: 'BUTTONS', buttons: [{ type: 'QUICK_REPLY', text: 'No me interesa' }, { type: 'COPY_CODE', example: COUPON }] },
  ],
});
/** Never mapped: the select still says why it cannot be chosen. */
const UNMAPPED = 'cupon_sin_configurar';
const couponName = (vp: string) => `cupon_imagen_${vp === 'desktop' ? 'escritorio' : 'movil'}`;

let stack: Stack;
let page: Page;
let closeBrowser: () => Promise<void>;
let api: ConsoleApi;
let kommoAccountId: number;
let whatsappAccountId: number;
let welcomeId: number;
let reminderId: number;
let mediaId: string;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  stack = await startOneNumberStack({
    kommo: { subdomain: SUBDOMAIN, token: KOMMO_TOKEN, contacts: 20, seed: 28, rps: 100 },
    number: NUMBER,
    templates: [
      { name: WELCOME, category: 'MARKETING', components: [{ type: 'BODY', text: 'Hola {{1}}, bienvenido.', example: { body_text: [['Ana']] } }] },
      { name: REMINDER, category: 'UTILITY', components: [{ type: 'BODY', text: 'Te esperamos mañana.' }] },
      couponTemplate(couponName('desktop')),
      couponTemplate(couponName('phone')),
      couponTemplate(UNMAPPED),
    ],
    audience: AUDIENCE,
    readRate: 0,
    statusDelayMs: 20,
  });
  ({ page, close: closeBrowser, api } = await openSignedIn(stack.baseUrl));
  ({ kommoAccountId, whatsappAccountId, templateId: welcomeId } = await connectAccounts(stack, api, {
    subdomain: SUBDOMAIN,
    kommoToken: KOMMO_TOKEN,
    phoneNumberId: NUMBER.phoneNumberId,
    wabaId: NUMBER.wabaId,
    waToken: NUMBER.token,
    template: WELCOME,
    name: 'Ventas Primer Día',
    phone: `+${NUMBER.displayPhoneNumber}`,
    ratePerSecond: 40,
  }));
  const templates: Array<{ id: number; name: string }> = await api.get(`/templates/account/${whatsappAccountId}`);
  reminderId = templates.find((t) => t.name === REMINDER)!.id;
  await api.post(`/blacklist/${kommoAccountId}`, { phone: BLACKLISTED, reason: 'Pidió no recibir mensajes' });

  // The image the operator already has at Meta: its media id is the header's fixed value.
  const form = new FormData();
  form.append('messaging_product', 'whatsapp');
  form.append('type', 'image/png');
  form.append('file', new Blob([DEMO_HEADER_PNG], { type: 'image/png' }), 'cupon.png');
  const upload = await fetch(`${stack.whatsapp.graphUrl}/${NUMBER.phoneNumberId}/media`, {
    method: 'POST',
    headers: { authorization: `Bearer ${NUMBER.token}` },
    body: form,
  });
  expect(upload.status).toBe(200);
  mediaId = ((await upload.json()) as { id: string }).id;
  expect(mediaId).toMatch(/^\d+$/);
}, 120_000);

afterAll(async () => {
  await closeBrowser?.();
  await stack?.stop();
});

const draftBody = (name: string, over: Record<string, unknown> = {}) => ({
  name,
  description: 'Creada para la prueba',
  kommo_account_id: kommoAccountId,
  whatsapp_account_id: whatsappAccountId,
  template_id: welcomeId,
  message_type: 'template',
  filters: { searchQuery: '', tags: [TAG], tagOperator: 'OR', customFieldFilters: {} },
  ...over,
});

/** What the operator sees, saved at the viewport's size (the dialog included). */
async function snap(name: string) {
  await page.screenshot({ path: `${SHOTS}/${name}.png` });
}

/** Toasts sit over the header's actions until they time out (not while hovered). */
async function toastsGone() {
  await page.mouse.move(5, 300);
  await page.waitForFunction(() => !document.querySelector('[data-rht-toaster] [role="status"]'), undefined, { timeout: 15_000 });
}

/** A datetime-local value `days` from now at 10:30 in the browser's time, and the instant it means. */
async function futureLocal(days: number): Promise<{ local: string; iso: string }> {
  return page.evaluate((d) => {
    const at = new Date(Date.now() + d * 86_400_000);
    at.setHours(10, 30, 0, 0);
    const pad = (n: number) => String(n).padStart(2, '0');
    return { local: `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T10:30`, iso: at.toISOString() };
  }, days);
}

/** The send confirmation's figures, by what each row says. */
async function readConfirmation() {
  const dialog = page.getByRole('dialog');
  const text = async (id: string) => ((await dialog.getByTestId(id).textContent()) ?? '').trim();
  return {
    attempted: await text('confirm-attempted'),
    excluded: await text('confirm-excluded'),
    cost: await text('confirm-cost'),
    eta: await text('confirm-eta'),
    hours: await text('confirm-hours'),
    budget: await text('confirm-budget'),
  };
}

for (const vp of VIEWPORTS) {
  describe(`first day at ${vp.width}×${vp.height}`, () => {
    const suffix = vp.key === 'desktop' ? 'escritorio' : 'móvil';
    const coupon = couponName(vp.key);

    beforeAll(async () => {
      await page.setViewportSize({ width: vp.width, height: vp.height });
    });

    it('maps the image header and the coupon button to fixed values in «Configurar Variables»', async () => {
      await page.goto(`${stack.baseUrl}/templates`);
      const item = page.getByTestId('template-item').filter({ hasText: coupon });
      await item.getByRole('button', { name: 'Configurar Variables' }).click();
      const dialog = page.getByRole('dialog', { name: `Configurar Variables - ${coupon}` });
      await dialog.getByLabel('Campo para Imagen del encabezado').selectOption({ label: 'Valor fijo' });
      await dialog.getByLabel('Valor fijo para Imagen del encabezado').fill(mediaId);
      await dialog.getByLabel('Campo para {{1}}').selectOption({ label: 'Nombre' });
      await dialog.getByLabel('Campo para Botón 2 (código de cupón)').selectOption({ label: 'Valor fijo' });
      await dialog.getByLabel('Valor fijo para Botón 2 (código de cupón)').fill(COUPON);
      await snap(`item1-mapping-${vp.key}`);
      await dialog.getByRole('button', { name: 'Guardar Configuración' }).click();
      await page.getByText('Configuración de variables guardada exitosamente').first().waitFor();
      await dialog.waitFor({ state: 'detached' });

      // Opened again, it shows what was saved: «Valor fijo» and the code.
      await item.getByRole('button', { name: 'Configurar Variables' }).click();
      expect(await dialog.getByLabel('Campo para Botón 2 (código de cupón)').inputValue()).toBe('__static__');
      expect(await dialog.getByLabel('Valor fijo para Botón 2 (código de cupón)').inputValue()).toBe(COUPON);
      expect(await dialog.getByLabel('Valor fijo para Imagen del encabezado').inputValue()).toBe(mediaId);
      await dialog.getByRole('button', { name: 'Cancelar' }).click();
      await dialog.waitFor({ state: 'detached' });
    });

    it('chooses that template in «Nueva Campaña», creates the campaign and sends it through the form', async () => {
      const name = `Cupón de bienvenida (${suffix})`;
      await page.goto(`${stack.baseUrl}/campaigns/new`);
      await page.getByRole('heading', { name: 'Nueva Campaña' }).waitFor();
      await page.getByLabel('Nombre de la Campaña *').fill(name);
      await page.getByLabel('Cuenta Kommo *').selectOption({ label: SUBDOMAIN });
      const templates: Array<{ id: number; name: string }> = await api.get(`/templates/account/${whatsappAccountId}`);
      const couponId = templates.find((t) => t.name === coupon)!.id;
      // The select knows a template's mappings once its variables are loaded.
      const loaded = page.waitForResponse((r) => r.url().endsWith(`/api/variables/template/${couponId}`) && r.ok());
      await page.getByLabel('Cuenta WhatsApp *').selectOption(String(whatsappAccountId));
      await loaded;
      const select = page.getByLabel('Template *');
      const unmapped = select.locator('option', { hasText: UNMAPPED });
      await waitFor(async () => (await unmapped.textContent())!.includes('sin configurar'), 15_000);
      expect(await unmapped.textContent()).toMatch(/ · variables sin configurar: Imagen del encabezado, \{\{1\}\}, Botón 2 \(código de cupón\)$/);
      expect(await unmapped.isDisabled()).toBe(true);
      const option = select.locator('option', { hasText: coupon });
      expect(await option.textContent()).toMatch(new RegExp(`^${coupon} \\(es\\) - marketing$`, 'i'));
      expect(await option.isDisabled()).toBe(false);
      await select.selectOption(String(couponId));
      await page.getByRole('button', { name: TAG, exact: true }).click();
      await page.getByTestId('preflight-attempted').getByText(String(ATTEMPTED), { exact: true }).waitFor({ timeout: 30_000 });
      await snap(`item1-new-campaign-${vp.key}`);
      await page.getByRole('button', { name: 'Crear Campaña' }).click();
      await page.waitForURL(/\/campaigns\/\d+$/);
      const id = Number(new URL(page.url()).pathname.split('/').pop());
      await page.getByRole('heading', { name }).waitFor();
      expect(await api.get(`/campaigns/${id}`)).toMatchObject({ status: 'draft', template_name: coupon, total_recipients: MATCHED });

      await toastsGone();
      await page.getByRole('button', { name: 'Iniciar', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: `¿Enviar «${name}»?` });
      await dialog.getByRole('button', { name: `Enviar a ${ATTEMPTED} personas` }).click();
      await page.getByText('Campaña iniciada exitosamente').first().waitFor();
      await waitFor(async () => (await api.get(`/campaigns/${id}`)).status === 'completed', 60_000);
      await page.getByText('Completada', { exact: true }).first().waitFor({ timeout: 30_000 });
      await snap(`item1-sent-${vp.key}`);

      const done = await api.get(`/campaigns/${id}`);
      expect(done).toMatchObject({ messages_sent: ATTEMPTED, failed_count: 0 });
      // Each message carries the image's id and the coupon code, as the dialog mapped them.
      const sent = stack.whatsapp.messages().filter((m) => m.template === coupon);
      expect(sent).toHaveLength(ATTEMPTED);
      for (const m of sent) {
        expect(m.components[0]).toEqual({ type: 'header', parameters: [{ type: 'image', image: { id: mediaId } }] });
        expect(m.components).toContainEqual({ type: 'button', sub_type: 'copy_code', index: '1', parameters: [{ type: 'coupon_code', coupon_code: COUPON }] });
      }
    });

    it('asks before ▷ on the list sends a draft: the pre-flight in short, «Cancelar» sends nothing', async () => {
      const name = `Lista ${suffix}`;
      const draft = await api.post('/campaigns', draftBody(name, { sending_hours: { days: [1, 2, 3, 4, 5, 6, 7], start: '00:00', end: '23:59' } }));
      const preflight = await api.get(`/campaigns/${draft.id}/preflight`);
      expect(preflight).toMatchObject({ matched: MATCHED, attempted: ATTEMPTED });
      const sentBefore = stack.whatsapp.messages().length;

      await page.goto(`${stack.baseUrl}/campaigns`);
      const play = page.getByRole('button', { name: `Iniciar campaña ${name}` });
      await play.click();
      const dialog = page.getByRole('dialog', { name: `¿Enviar «${name}»?` });
      await dialog.getByText('Un mensaje enviado no se puede retirar.').waitFor();
      const send = dialog.getByRole('button', { name: `Enviar a ${ATTEMPTED} personas` });
      await send.waitFor();
      const seen = await readConfirmation();
      expect(seen.attempted).toBe(`${ATTEMPTED} de ${MATCHED}`);
      expect(seen.excluded).toBe('En lista negra: 1');
      expect(seen.cost).toMatch(/\d/);
      expect(seen.eta).toMatch(/\d{1,2}\/\d{1,2}\/\d{4}/);
      expect(seen.hours).toMatch(/^Todos los días · 00:00–23:59/);
      expect(seen.budget).toMatch(/Límite diario de Meta|Quedan/);
      // Focus starts on «Cancelar», so a second tap or Enter does not send.
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Cancelar');
      await snap(`item2-list-confirm-${vp.key}`);

      await dialog.getByRole('button', { name: 'Cancelar' }).click();
      await dialog.waitFor({ state: 'detached' });
      await page.waitForTimeout(1000);
      expect((await api.get(`/campaigns/${draft.id}`)).status).toBe('draft');
      expect(stack.whatsapp.messages().length).toBe(sentBefore);

      await play.click();
      await send.click();
      await page.getByText('Campaña iniciada exitosamente').first().waitFor();
      await waitFor(async () => (await api.get(`/campaigns/${draft.id}`)).status === 'completed', 60_000);
      const row = vp.key === 'desktop' ? page.getByTestId(`campaign-row-${draft.id}`) : page.getByTestId(`campaign-item-${draft.id}`);
      await row.getByText('Completada', { exact: true }).waitFor({ timeout: 30_000 });
      expect(stack.whatsapp.messages().filter((m) => m.template === WELCOME).length).toBeGreaterThanOrEqual(ATTEMPTED);
    });

    it('asks before «Iniciar» sends a scheduled campaign now, saying it was scheduled', async () => {
      const name = `Programada ${suffix}`;
      const when = await futureLocal(3);
      const scheduled = await api.post('/campaigns', draftBody(name, { scheduled_at: when.iso }));
      await page.goto(`${stack.baseUrl}/campaigns/${scheduled.id}`);
      await page.getByRole('heading', { name }).waitFor();
      await page.getByRole('button', { name: 'Iniciar', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: `¿Enviar «${name}»?` });
      await dialog.getByText(/^Estaba programada para el .+: se envía ahora\./).waitFor();
      await dialog.getByRole('button', { name: `Enviar a ${ATTEMPTED} personas` }).waitFor();
      // It goes now, so the estimated end is today, not at the scheduled date.
      const [today, scheduledDay] = await page.evaluate((iso) => [new Date().toLocaleDateString('es-ES'), new Date(iso).toLocaleDateString('es-ES')], when.iso);
      expect((await readConfirmation()).eta).toContain(today);
      expect((await readConfirmation()).eta).not.toContain(scheduledDay);
      await snap(`item2-detail-confirm-${vp.key}`);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      expect((await api.get(`/campaigns/${scheduled.id}`)).status).toBe('scheduled');

      await page.getByRole('button', { name: 'Iniciar', exact: true }).click();
      await dialog.getByRole('button', { name: `Enviar a ${ATTEMPTED} personas` }).click();
      await page.getByText('Campaña iniciada exitosamente').first().waitFor();
      await waitFor(async () => (await api.get(`/campaigns/${scheduled.id}`)).status === 'completed', 60_000);
      await page.getByText('Completada', { exact: true }).first().waitFor({ timeout: 30_000 });
    });

    it('edits a draft in its form: name, description, template, filters and sending hours', async () => {
      const draft = await api.post('/campaigns', draftBody(`Borrador ${suffix}`));
      await page.goto(`${stack.baseUrl}/campaigns/${draft.id}`);
      await page.getByRole('heading', { name: `Borrador ${suffix}` }).waitFor();
      await page.getByRole('link', { name: 'Editar' }).click();
      await page.waitForURL(new RegExp(`/campaigns/${draft.id}/edit$`));
      await page.getByRole('heading', { name: 'Editar Campaña' }).waitFor();
      // The form opens on what was saved.
      expect(await page.getByLabel('Nombre de la Campaña *').inputValue()).toBe(`Borrador ${suffix}`);
      expect(await page.getByLabel('Cuenta Kommo *').inputValue()).toBe(String(kommoAccountId));
      expect(await page.getByLabel('Cuenta WhatsApp *').inputValue()).toBe(String(whatsappAccountId));
      expect(await page.getByLabel('Template *').inputValue()).toBe(String(welcomeId));
      expect(await page.getByRole('button', { name: TAG, exact: true }).getAttribute('aria-pressed')).toBe('true');

      const name = `Recordatorio VIP ${suffix}`;
      await page.getByLabel('Nombre de la Campaña *').fill(name);
      await page.getByLabel('Descripción').fill('Solo clientes VIP');
      await page.getByLabel('Template *').selectOption(String(reminderId));
      await page.getByRole('button', { name: TAG, exact: true }).click();
      await page.getByRole('button', { name: TAG_VIP, exact: true }).click();
      await page.getByLabel('Enviar solo dentro de un horario').check();
      await page.getByLabel('Desde', { exact: true }).fill('08:00');
      await page.getByLabel('Hasta', { exact: true }).fill('21:00');
      await page.getByTestId('preflight-attempted').getByText('3', { exact: true }).waitFor({ timeout: 30_000 });
      await snap(`item3-edit-form-${vp.key}`);
      await page.getByRole('button', { name: 'Guardar Cambios' }).click();
      await page.getByText('Campaña actualizada exitosamente').first().waitFor();
      await page.waitForURL(new RegExp(`/campaigns/${draft.id}$`));
      await page.getByRole('heading', { name }).waitFor();
      await page.getByText('Solo clientes VIP').first().waitFor();
      await page.getByText(REMINDER, { exact: true }).waitFor();

      const saved = await api.get(`/campaigns/${draft.id}`);
      expect(saved).toMatchObject({
        status: 'draft',
        name,
        description: 'Solo clientes VIP',
        template_id: reminderId,
        template_name: REMINDER,
        total_recipients: 3,
        filters: { tags: [TAG_VIP] },
        sending_hours: { days: [1, 2, 3, 4, 5], start: '08:00', end: '21:00' },
      });
    });

    it('schedules the draft, moves it to another time, and takes it back to draft', async () => {
      const draft = await api.post('/campaigns', draftBody(`Fecha ${suffix}`));
      await page.goto(`${stack.baseUrl}/campaigns/${draft.id}`);
      await page.getByRole('heading', { name: `Fecha ${suffix}` }).waitFor();

      const first = await futureLocal(2);
      await page.getByRole('button', { name: 'Programar' }).click();
      let dialog = page.getByRole('dialog', { name: 'Programar envío' });
      await dialog.getByLabel('Fecha y hora de envío').fill(first.local);
      await dialog.getByRole('button', { name: 'Programar' }).click();
      await page.getByText('Campaña programada').first().waitFor();
      await page.getByText('Programada', { exact: true }).first().waitFor();
      expect(await api.get(`/campaigns/${draft.id}`)).toMatchObject({ status: 'scheduled', scheduled_at: first.iso });

      // Scheduled, it offers a new date and the way back to draft (and no «Eliminar»).
      const later = await futureLocal(5);
      await toastsGone();
      await page.getByRole('button', { name: 'Cambiar fecha' }).click();
      dialog = page.getByRole('dialog', { name: 'Cambiar fecha de envío' });
      expect(await dialog.getByLabel('Fecha y hora de envío').inputValue()).toBe(first.local);
      await dialog.getByLabel('Fecha y hora de envío').fill(later.local);
      await snap(`item3-reschedule-${vp.key}`);
      await dialog.getByRole('button', { name: 'Guardar fecha' }).click();
      await page.getByText('Fecha de envío actualizada').first().waitFor();
      expect(await api.get(`/campaigns/${draft.id}`)).toMatchObject({ status: 'scheduled', scheduled_at: later.iso });
      // The moment as the detail shows it: the browser's local time, then its zone ("(GMT-3)").
      const shown = await page.evaluate((iso) => new Date(iso).toLocaleString('es-ES'), later.iso);
      await page.getByText(new RegExp(`^${shown.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} \\([^)]+\\)$`)).waitFor();
      await snap(`item3-scheduled-${vp.key}`);

      await toastsGone();
      await page.getByRole('button', { name: 'Volver a borrador' }).click();
      await page.getByText('La campaña volvió a borrador').first().waitFor();
      await page.getByText('Borrador', { exact: true }).first().waitFor();
      expect(await api.get(`/campaigns/${draft.id}`)).toMatchObject({ status: 'draft', scheduled_at: null });
      await page.getByRole('button', { name: 'Programar' }).waitFor();
      expect(await page.getByRole('button', { name: 'Volver a borrador' }).count()).toBe(0);
      await snap(`item3-back-to-draft-${vp.key}`);
    });
  });
}
