import createClient from 'openapi-fetch';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { paths } from '../src/generated/public-api';
import { openBrowser, shot, signUp } from '../src/browser';
import { connectAccounts, SEED, seededStackOptions, waitFor } from '../src/seed';
import { apiAs, startStack, type Stack } from '../src/stack';

/**
 * Another system on the public API: the owner creates a key on «Claves de API» and copies it
 * from the show-once panel; a typed client generated from /api/v1/docs/json (openapi-fetch)
 * creates a campaign with explicit recipients, adds more, starts it and follows it; the console
 * shows the campaign sent, with each recipient's own parameters at the simulator, and the
 * activity log names the key.
 */
let stack: Stack;
let page: Page;
let closeBrowser: () => Promise<void>;
let ids: { whatsappAccountId: number; templateId: number };

beforeAll(async () => {
  stack = await startStack(seededStackOptions());
  ({ page, close: closeBrowser } = await openBrowser());
  const { token } = await signUp(page, stack.baseUrl);
  ids = await connectAccounts(stack, apiAs(stack.baseUrl, token), {
    subdomain: SEED.subdomain,
    kommoToken: SEED.kommoToken,
    phoneNumberId: SEED.phoneNumberId,
    wabaId: SEED.wabaId,
    waToken: SEED.waToken,
    template: SEED.template,
    name: 'Ventas',
    phone: '+5491155550000',
    ratePerSecond: 80,
  });
}, 120_000);
afterAll(async () => {
  await closeBrowser?.();
  await stack?.stop();
});

describe('the public API with a typed client', () => {
  it('a key made on «Claves de API» creates, fills and starts a campaign the console shows sent', async () => {
    await page.goto(`${stack.baseUrl}/api-keys`);
    await page.getByRole('button', { name: 'Nueva clave' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Nombre').fill('Tienda online');
    for (const label of ['Leer campañas y resultados', 'Crear y editar campañas, agregar destinatarios', 'Iniciar, programar, pausar, reanudar y cancelar campañas']) {
      await dialog.getByLabel(label).check();
    }
    await dialog.getByRole('button', { name: /Crear clave/ }).click();
    await expect.poll(async () => (await dialog.textContent()) ?? '').toContain('msv_live_');
    const key = /msv_live_[0-9A-Za-z]{43}/.exec((await dialog.textContent()) ?? '')![0];
    await shot(page, 'public-api-key-created');
    await dialog.getByRole('button', { name: /Listo/ }).click();

    const api = createClient<paths>({ baseUrl: `${stack.baseUrl}/api/v1`, headers: { Authorization: `Bearer ${key}` } });
    const created = await api.POST('/campaigns', {
      params: { header: { 'Idempotency-Key': 'e2e-crear' } },
      body: {
        name: 'Pedidos enviados (API)',
        whatsapp_account_id: ids.whatsappAccountId,
        template_id: ids.templateId,
        recipients: [
          { phone: '+5491166660001', params: { variable_1: 'Ana' } },
          { phone: '+5491166660002', params: { variable_1: 'Luis' } },
        ],
      },
    });
    expect(created.response.status, JSON.stringify(created.error)).toBe(201);
    const id = created.data!.id;
    const added = await api.POST('/campaigns/{id}/recipients', {
      params: { path: { id: String(id) }, header: { 'Idempotency-Key': 'e2e-lote-2' } },
      body: { recipients: [{ phone: '+5491166660003', params: { variable_1: 'Eva' } }] },
    });
    expect(added.data).toEqual({ added: 1, total: 3 });
    const started = await api.POST('/campaigns/{id}/start', { params: { path: { id: String(id) }, header: { 'Idempotency-Key': 'e2e-inicio' } } });
    expect(started.data?.status).toBe('sending');
    await waitFor(async () => (await api.GET('/campaigns/{id}', { params: { path: { id: String(id) } } })).data?.status === 'completed', 60_000);
    const recipients = await api.GET('/campaigns/{id}/recipients', { params: { path: { id: String(id) }, query: { limit: 10 } } });
    expect(recipients.data?.data.map((r) => r.status)).toEqual(['read', 'read', 'read']);

    const bodies = stack.whatsapp.messages().map((m) => JSON.stringify(m.components));
    for (const name of ['Ana', 'Luis', 'Eva']) expect(bodies.some((b) => b.includes(name))).toBe(true);

    await page.goto(`${stack.baseUrl}/campaigns/${id}`);
    await expect.poll(async () => (await page.textContent('main')) ?? '', { timeout: 15_000 }).toContain('Pedidos enviados (API)');
    await expect.poll(async () => (await page.textContent('main')) ?? '').toContain('Completada');
    await shot(page, 'public-api-campaign');
    await page.goto(`${stack.baseUrl}/activity`);
    await expect.poll(async () => (await page.textContent('main')) ?? '', { timeout: 15_000 }).toContain('clave «Tienda online»');
  }, 120_000);
});
