import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_HEADER_PNG } from '@masivo/simulators/demo-templates';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSignedIn, shot } from '../src/browser';
import { waitFor } from '../src/seed';
import { startStack, type ConsoleApi, type Stack } from '../src/stack';

/**
 * Rich templates in the browser: an image-header template with a URL button is created in the
 * dialog (its PNG sample uploaded through the Resumable Upload API), approved by Meta, mapped
 * to a link served over https, and sent by a campaign whose messages are delivered.
 */
const NUMBER = { phoneNumberId: '310000000000001', wabaId: '410000000000001', token: 'wa-rich-token', displayPhoneNumber: '5491155551111' };
const KOMMO = { subdomain: 'rica', token: 'kommo-rich-token' };
const CONTACTS = 4;

/** A real 1×1 PNG: the console checks the file's first bytes, Meta its type. */
const PNG = DEMO_HEADER_PNG;

let stack: Stack;
let page: Page;
let closeBrowser: () => Promise<void>;
let api: ConsoleApi;
let media: Server;
let mediaUrl = '';
let certDir = '';

/** The tenant's file host: https with a self-signed certificate, on this machine. */
async function startMediaServer() {
  certDir = mkdtempSync(join(tmpdir(), 'rich-e2e-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(certDir, 'k.pem'), '-out', join(certDir, 'c.pem'), '-days', '1', '-subj', '/CN=127.0.0.1'], { stdio: 'ignore' });
  media = createServer({ key: readFileSync(join(certDir, 'k.pem')), cert: readFileSync(join(certDir, 'c.pem')) }, (req, res) => {
    if (req.url === '/promo.png') res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(PNG.length) }).end(PNG);
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => media.listen(0, '127.0.0.1', r));
  mediaUrl = `https://127.0.0.1:${(media.address() as { port: number }).port}/promo.png`;
}

beforeAll(async () => {
  await startMediaServer();
  stack = await startStack({
    kommo: { accounts: [{ subdomain: KOMMO.subdomain, token: KOMMO.token, contacts: CONTACTS, seed: 11 }], rps: 100 },
    whatsapp: { numbers: [{ ...NUMBER, throughput: 80 }], approvalDelayMs: 300, deliveryRate: 1, readRate: 0, statusDelayMs: 20 },
    env: { MEDIA_ALLOW_PRIVATE_HOSTS: '1' },
  });
  ({ page, close: closeBrowser, api } = await openSignedIn(stack.baseUrl));
  // Accounts and contacts are other screens' business (their e2e files cover them).
  const { phoneFieldId } = stack.kommo.fields(KOMMO.subdomain);
  const kommo = await api.post('/kommo/accounts', { subdomain: KOMMO.subdomain, access_token: KOMMO.token, phone_field_id: phoneFieldId });
  await api.post('/kommo/sync-contacts', { account_id: kommo.id });
  await waitFor(async () => (await api.get(`/kommo/accounts/${kommo.id}/sync-status`)).sync_status === 'synced', 30_000);
  await api.post('/whatsapp-accounts', {
    name: 'Promos',
    phone_number: `+${NUMBER.displayPhoneNumber}`,
    phone_number_id: NUMBER.phoneNumberId,
    access_token: NUMBER.token,
    business_account_id: NUMBER.wabaId,
    kommo_account_id: kommo.id,
    rate_per_second: 80,
  });
}, 60_000);

afterAll(async () => {
  await closeBrowser?.();
  await stack?.stop();
  await new Promise((r) => (media ? media.close(r) : r(undefined)));
  if (certDir) rmSync(certDir, { recursive: true, force: true });
});

describe('rich templates, end to end', () => {
  it('creates an image-header template with a URL button, uploading its sample', async () => {
    await page.goto(`${stack.baseUrl}/templates`);
    await page.getByRole('button', { name: 'Nueva Plantilla' }).click();
    const dialog = page.getByRole('dialog', { name: 'Crear y Enviar Plantilla a Facebook' });
    await dialog.getByLabel(/^Nombre/).fill('promo_imagen');
    await dialog.getByLabel('Categoría').selectOption('marketing');
    await dialog.getByLabel('Incluir encabezado').check();
    await dialog.getByLabel('Tipo de encabezado').selectOption('IMAGE');
    await dialog.getByLabel('Archivo de ejemplo').setInputFiles({ name: 'muestra.png', mimeType: 'image/png', buffer: PNG });
    await dialog.getByText('Archivo subido: muestra.png').waitFor();
    await dialog.getByLabel(/Cuerpo del mensaje/).fill('Llegó la temporada: mira la oferta que elegimos para ti.');
    await dialog.getByLabel('Incluir botones').check();
    await dialog.getByLabel('Tipo de botón nuevo').selectOption('URL');
    await dialog.getByRole('button', { name: 'Agregar botón' }).click();
    await dialog.getByLabel('Texto del botón 1').fill('Ver oferta');
    await dialog.getByLabel('URL del botón 1').fill('https://tienda.example/oferta/{{1}}');
    await dialog.getByLabel('Ejemplo del final de la URL del botón 1').fill('verano');
    const preview = dialog.getByTestId('template-preview');
    await preview.getByText('https://tienda.example/oferta/verano').waitFor();
    await preview.getByTestId('preview-media').getByText('muestra.png').waitFor();
    await dialog.getByRole('button', { name: 'Crear y Enviar' }).click();
    await page.getByText('Plantilla creada y enviada a Facebook para aprobación exitosamente').first().waitFor();
    await dialog.waitFor({ state: 'detached' });

    const atMeta = stack.whatsapp.templatesOf(NUMBER.wabaId).find((t: { name: string }) => t.name === 'promo_imagen');
    expect(atMeta.components[0]).toMatchObject({ type: 'HEADER', format: 'IMAGE', example: { header_handle: [expect.stringMatching(/^4::/)] } });
    expect(atMeta.components.at(-1)).toEqual({
      type: 'BUTTONS',
      buttons: [{ type: 'URL', text: 'Ver oferta', url: 'https://tienda.example/oferta/{{1}}', example: ['https://tienda.example/oferta/verano'] }],
    });
  });

  it('sees it approved, with the header kind and the button on the card', async () => {
    const item = page.getByTestId('template-item').filter({ hasText: 'promo_imagen' });
    // The list polls while a template is pending; the approval webhook settles it.
    await item.getByText('Aprobada', { exact: true }).waitFor({ timeout: 20_000 });
    await item.getByTestId('header-format').getByText('Imagen').waitFor();
    await item.getByTestId('template-button-chip').getByText('Ver oferta').waitFor();
    await shot(page, 'rich-templates-list');
  });

  it('maps the image to an https link and the URL suffix, previewed as WhatsApp shows it', async () => {
    const item = page.getByTestId('template-item').filter({ hasText: 'promo_imagen' });
    await item.getByRole('button', { name: 'Configurar Variables' }).click();
    const dialog = page.getByRole('dialog', { name: 'Configurar Variables - promo_imagen' });
    await dialog.getByLabel('Campo para Imagen del encabezado').selectOption('__static__');
    // A link that is not https is refused by the server, in Spanish, inside the dialog.
    await dialog.getByLabel('Valor fijo para Imagen del encabezado').fill(mediaUrl.replace('https:', 'http:'));
    await dialog.getByLabel('Campo para Botón 1 (final de la URL)').selectOption('__static__');
    await dialog.getByLabel('Valor fijo para Botón 1 (final de la URL)').fill('temporada');
    await dialog.getByRole('button', { name: 'Guardar Configuración' }).click();
    await dialog.getByTestId('mapping-errors').getByText(/https/).waitFor();

    await dialog.getByLabel('Valor fijo para Imagen del encabezado').fill(mediaUrl);
    const preview = dialog.getByTestId('template-preview');
    await preview.getByText(mediaUrl).waitFor();
    await preview.getByText('https://tienda.example/oferta/temporada').waitFor();
    await dialog.getByRole('button', { name: 'Guardar Configuración' }).click();
    await page.getByText('Configuración de variables guardada exitosamente').first().waitFor();
    await dialog.waitFor({ state: 'detached' });
  });

  it('sends a campaign and sees every message delivered with the image and the button', async () => {
    const [wa] = await api.get('/whatsapp-accounts');
    const templates = await api.get(`/templates/account/${wa.id}`);
    const template = templates.find((t: { name: string }) => t.name === 'promo_imagen');
    const campaign = await api.post('/campaigns', {
      name: 'Temporada',
      kommo_account_id: wa.kommo_account_id,
      whatsapp_account_id: wa.id,
      template_id: template.id,
      message_type: 'template',
      filters: { searchQuery: '', tags: [], tagOperator: 'OR', customFieldFilters: {} },
    });
    await api.post(`/campaigns/${campaign.id}/start`);
    await page.goto(`${stack.baseUrl}/campaigns/${campaign.id}`);
    // Contacts without a usable phone are skipped; every message sent must be delivered.
    await waitFor(async () => {
      const c = await api.get(`/campaigns/${campaign.id}`);
      return c.status === 'completed' && c.messages_sent > 0 && c.delivered_count === c.messages_sent;
    }, 30_000);
    const settled = await api.get(`/campaigns/${campaign.id}`);
    expect(settled.failed_count).toBe(0);
    await page.getByTestId('count-Entregados').getByText(String(settled.delivered_count), { exact: true }).waitFor();

    const sent = stack.whatsapp.messages().filter((m) => m.phoneNumberId === NUMBER.phoneNumberId);
    expect(sent.length).toBe(settled.messages_sent);
    // The image went to Meta once for the whole campaign, and every message carries its id.
    expect(stack.whatsapp.mediaUploads()).toHaveLength(1);
    const [upload] = stack.whatsapp.mediaUploads();
    expect(upload).toMatchObject({ mime: 'image/png', size: PNG.length });
    for (const m of sent) {
      expect(m.components).toEqual([
        { type: 'header', parameters: [{ type: 'image', image: { id: upload!.id } }] },
        { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: 'temporada' }] },
      ]);
    }
  });
});
