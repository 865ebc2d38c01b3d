import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { focused, horizontalOverflow, launch, PHONE, screenshot, settled, signedInContext } from '../src/a11y';
import { seed, seededStackOptions, waitFor } from '../src/seed';
import { startStack, type Stack } from '../src/stack';

/** A 390×844 phone: the sidebar is a drawer, nothing pans sideways, and a campaign is created and started. */

let stack: Stack;
let browser: Browser;
let ids: Awaited<ReturnType<typeof seed>>;
let page: Page;

beforeAll(async () => {
  stack = await startStack(seededStackOptions());
  [ids, browser] = await Promise.all([seed(stack), launch()]);
  page = await (await signedInContext(browser, PHONE)).newPage();
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

async function noSidewaysPan(where: string) {
  await settled(page);
  expect(await horizontalOverflow(page), `${where} pans sideways`).toBeLessThanOrEqual(0);
}

/** Opens the drawer from the header and follows one of its links. */
async function goTo(label: string) {
  await page.getByRole('button', { name: 'Abrir menú' }).tap();
  const drawer = page.getByRole('dialog');
  await drawer.getByRole('link', { name: label }).tap();
  await page.waitForFunction(() => !document.querySelector('[role="dialog"]'));
}

describe('on a phone', () => {
  it('signs in and shows the sidebar only as a drawer', async () => {
    await page.goto(`${stack.baseUrl}/login`);
    await noSidewaysPan('/login');
    await page.getByLabel('Email').fill((ids.session.user as { email: string }).email);
    await page.getByLabel('Contraseña').fill('secreto123');
    await page.getByRole('button', { name: 'Iniciar Sesión' }).tap();
    await page.waitForURL(`${stack.baseUrl}/dashboard`);
    await noSidewaysPan('/dashboard');
    expect(await page.getByRole('navigation', { name: 'Navegación principal' }).count()).toBe(0);

    const menu = page.getByRole('button', { name: 'Abrir menú' });
    expect((await menu.boundingBox())!.height).toBeGreaterThanOrEqual(44);
    await menu.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').getByRole('navigation', { name: 'Navegación principal' }).waitFor();
    expect((await focused(page)).inDialog).toBe(true);
    await screenshot(page, 'phone-drawer-open');
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => !document.querySelector('[role="dialog"]'));
    // Focus comes back once the drawer has closed (after its exit transition).
    await expect.poll(async () => (await focused(page)).name).toBe('Abrir menú');
  });

  it('reaches every screen from the drawer without sideways panning', async () => {
    for (const [label, path] of [
      ['Cuentas Kommo', '/accounts'],
      ['Cuentas WhatsApp', '/whatsapp-accounts'],
      ['Contactos', '/contacts'],
      ['Campañas', '/campaigns'],
      ['Templates', '/templates'],
      ['Blacklist', '/blacklist'],
      ['Tarifas', '/pricing'],
      ['Dashboard', '/dashboard'],
    ] as const) {
      await goTo(label);
      await page.waitForURL((url) => url.pathname === path);
      await noSidewaysPan(path);
    }
    await page.goto(`${stack.baseUrl}/contacts?account=${ids.kommoAccountId}`);
    await page.getByRole('list', { name: 'Contactos' }).waitFor();
    await noSidewaysPan('/contacts with an account');
    await page.goto(`${stack.baseUrl}/blacklist?account=${ids.kommoAccountId}`);
    await page.getByRole('list', { name: 'Blacklist' }).waitFor();
    await noSidewaysPan('/blacklist with an account');
  });

  it('creates and starts a campaign', async () => {
    await goTo('Campañas');
    await page.getByRole('link', { name: 'Nueva Campaña' }).tap();
    await page.waitForURL(/\/campaigns\/new$/);
    await noSidewaysPan('/campaigns/new');
    await page.getByLabel('Nombre de la Campaña *').fill('Campaña desde el teléfono');
    await page.getByLabel('Cuenta Kommo *').selectOption(String(ids.kommoAccountId));
    await page.getByLabel('Cuenta WhatsApp *').selectOption(String(ids.whatsappAccountId));
    await page.getByLabel('Template *').selectOption(String(ids.templateId));
    await page.getByTestId('recipient-count').waitFor();
    // The chosen value is visible in the select, not cut to an arrow.
    expect((await page.getByLabel('Template *').boundingBox())!.width).toBeGreaterThan(250);
    await noSidewaysPan('/campaigns/new filled');
    await screenshot(page, 'phone-journey-campaign-new');
    await page.getByRole('button', { name: 'Crear Campaña' }).tap();
    await page.waitForURL(/\/campaigns\/\d+$/);
    const id = Number(new URL(page.url()).pathname.split('/').pop());
    await noSidewaysPan('/campaigns/:id');

    await page.getByRole('button', { name: 'Iniciar' }).tap();
    await page.getByRole('dialog').getByRole('button', { name: /^Enviar a [\d.]+ personas?$/ }).tap();
    await waitFor(async () => ['sending', 'completed'].includes((await ids.api.get(`/campaigns/${id}`)).status));
    await page.getByText('Completada', { exact: true }).first().waitFor({ timeout: 30_000 });
    await page.getByRole('list', { name: 'Destinatarios' }).waitFor();
    await noSidewaysPan('/campaigns/:id completed');
    await screenshot(page, 'phone-journey-campaign-started');
  });
});
