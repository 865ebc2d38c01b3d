import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DESKTOP, focused, launch, settled, signedInContext, tabUntil } from '../src/a11y';
import { seed, seededStackOptions, SEED } from '../src/seed';
import { startStack, type Stack } from '../src/stack';

/**
 * Keyboard only: the login, the shell (skip link, titles, focus after navigation), the campaign
 * form (the tag filter is one Tab stop) and every dialog, each opened from its trigger, kept
 * inside while tabbing, completed, and closed with focus back on the trigger.
 */

const SECOND = { subdomain: 'segunda', token: 'kommo-second-token', phoneNumberId: '3002', wabaId: '4002', waToken: 'wa-second-token' };

let stack: Stack;
let browser: Browser;
let ids: Awaited<ReturnType<typeof seed>>;
let context: BrowserContext;
let page: Page;
let email: string;

beforeAll(async () => {
  const base = seededStackOptions();
  stack = await startStack({
    kommo: { ...base.kommo, accounts: [...base.kommo!.accounts!, { subdomain: SECOND.subdomain, token: SECOND.token, contacts: 5, seed: 3 }] },
    whatsapp: {
      ...base.whatsapp,
      numbers: [...base.whatsapp.numbers!, { phoneNumberId: SECOND.phoneNumberId, wabaId: SECOND.wabaId, token: SECOND.waToken, displayPhoneNumber: '5491155550001', throughput: 80 }],
    },
  });
  [ids, browser] = await Promise.all([seed(stack), launch()]);
  email = ((ids.session.user as { email: string }).email);
  context = await signedInContext(browser, DESKTOP);
  page = await context.newPage();
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

const title = () => page.title();
const dialogGone = () => page.waitForFunction(() => !document.querySelector('[role="dialog"]'));

/** Opens a dialog with Enter on its trigger, checks focus is inside and cannot leave, and returns the trigger's name. */
async function openWithKeyboard(trigger: string) {
  const button = page.getByRole('button', { name: trigger, exact: true }).first();
  await button.focus();
  expect((await focused(page)).name).toContain(trigger);
  await page.keyboard.press('Enter');
  await page.getByRole('dialog').waitFor();
  await page.waitForTimeout(50);
  const inside = await focused(page);
  expect(inside.inDialog, `focus moved into the dialog (${JSON.stringify(inside)})`).toBe(true);
  // The page behind is out of reach: hidden from assistive technology and not clickable.
  expect(await page.evaluate(() => document.querySelector('#root')?.getAttribute('aria-hidden'))).toBe('true');
  expect(await page.evaluate(() => getComputedStyle(document.body).pointerEvents)).toBe('none');
  expect(await page.evaluate(() => getComputedStyle(document.body).overflow)).toBe('hidden');
  return inside;
}

/** 25 Tabs and 25 Shift+Tabs never leave the dialog. */
async function assertTrapped() {
  for (const key of ['Tab', 'Shift+Tab']) {
    for (let i = 0; i < 25; i++) {
      await page.keyboard.press(key);
      const f = await focused(page);
      expect(f.inDialog, `${key} #${i + 1} left the dialog: ${JSON.stringify(f)}`).toBe(true);
    }
  }
}

async function closedBackOn(trigger: string) {
  await dialogGone();
  // Focus returns once the dialog has finished closing; on a busy machine that takes a moment.
  await expect.poll(async () => (await focused(page)).name).toContain(trigger);
  expect((await focused(page)).inDialog).toBe(false);
}

describe('keyboard only', () => {
  it('signs in with Tab, typing and Enter', async () => {
    await page.goto(`${stack.baseUrl}/login`);
    await settled(page);
    expect(await title()).toBe('Iniciar Sesión · Mensajes Masivos');
    await page.keyboard.press('Tab');
    expect(await focused(page)).toMatchObject({ tag: 'a', name: 'crear una cuenta nueva' });
    await page.keyboard.press('Tab');
    expect(await focused(page)).toMatchObject({ tag: 'input', name: 'Email' });
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-required'))).toBe('true');
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    expect(await focused(page)).toMatchObject({ tag: 'input', name: 'Contraseña' });
    await page.keyboard.type('secreto123');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${stack.baseUrl}/dashboard`);
    await settled(page);
    expect(await title()).toBe('Dashboard · Mensajes Masivos');
  });

  it('ties errors to their fields', async () => {
    const other = await signedInContext(browser, DESKTOP);
    const fresh = await other.newPage();
    await fresh.goto(`${stack.baseUrl}/register`);
    await fresh.getByRole('button', { name: 'Crear Cuenta' }).click();
    await fresh.getByText('Email es requerido').waitFor();
    const field = fresh.getByLabel('Email');
    const describedBy = await field.getAttribute('aria-describedby');
    expect(describedBy).toBeTruthy();
    expect(await fresh.locator(`[id="${describedBy}"]`).textContent()).toBe('Email es requerido');
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    expect(await field.getAttribute('aria-required')).toBe('true');
    await other.close();
  });

  it('offers a skip link first, titles each page and focuses its heading after navigating', async () => {
    await page.goto(`${stack.baseUrl}/dashboard`);
    await settled(page);
    await page.keyboard.press('Tab');
    expect(await focused(page)).toMatchObject({ tag: 'a', name: 'Saltar al contenido' });
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('contenido');

    const contactos = page.getByRole('navigation', { name: 'Navegación principal' }).getByRole('link', { name: 'Contactos' });
    await contactos.focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/contacts/);
    await page.waitForFunction(() => document.activeElement?.tagName === 'H1');
    expect(await focused(page)).toMatchObject({ tag: 'h1', name: 'Contactos' });
    expect(await title()).toBe('Contactos · Mensajes Masivos');
  });

  it('completes the campaign form, and the tag filter is a single Tab stop', async () => {
    await page.goto(`${stack.baseUrl}/campaigns/new`);
    await settled(page);
    await page.keyboard.press('Tab'); // skip link
    await page.keyboard.press('Enter');
    await tabUntil(page, (f) => f.name === 'Nombre de la Campaña *');
    await page.keyboard.type('Campaña con teclado');
    await page.keyboard.press('Tab');
    expect((await focused(page)).name).toBe('Descripción');
    await page.keyboard.press('Tab');
    expect((await focused(page)).name).toBe('Cuenta Kommo *');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Tab');
    expect((await focused(page)).name).toBe('Cuenta WhatsApp *');
    await page.keyboard.press('ArrowDown');
    // The template list loads for the chosen number before the next Tab.
    await page.getByRole('option', { name: new RegExp(SEED.template) }).waitFor({ state: 'attached' });
    await tabUntil(page, (f) => f.name === 'Template *', { max: 3 });
    await page.keyboard.press('ArrowDown');
    expect(await page.getByLabel('Template *').inputValue()).toBe(String(ids.templateId));

    // Into the tag chips: one stop; the arrows move inside, Space toggles, the next Tab leaves.
    await tabUntil(page, (f) => !!f.name && (f.tag === 'button') && f.name !== 'Y (Todas)' && f.name !== 'O (Alguna)' && f.name !== 'Filtros de Contactos', { max: 6 });
    const firstChip = (await focused(page)).name;
    const chipCount = await page.getByRole('group', { name: 'Etiquetas', exact: true }).getByRole('button').count();
    expect(chipCount).toBeGreaterThan(3);
    await page.keyboard.press('ArrowRight');
    const second = (await focused(page)).name;
    expect(second).not.toBe(firstChip);
    await page.keyboard.press('Space');
    expect(await page.getByRole('button', { name: second, exact: true }).getAttribute('aria-pressed')).toBe('true');
    await page.keyboard.press('Tab');
    const after = await page.evaluate(() => !!document.activeElement?.closest('[role="group"][aria-label="Etiquetas"]'));
    expect(after, 'one Tab leaves the chips').toBe(false);

    const count = page.getByTestId('recipient-count');
    await count.waitFor();
    expect(await page.getByTestId('recipients-box').locator('[aria-live="polite"]').count()).toBe(1);

    await tabUntil(page, (f) => f.name === 'Crear Campaña', { max: 30 });
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/campaigns\/\d+$/);
    await page.waitForFunction(() => document.activeElement?.tagName === 'H1');
    expect(await focused(page)).toMatchObject({ tag: 'h1', name: 'Campaña con teclado' });
  });

  it('Nueva Cuenta Kommo: focus in, trapped, completed, back on the trigger; Escape closes', async () => {
    await page.goto(`${stack.baseUrl}/accounts`);
    await settled(page);
    expect((await openWithKeyboard('Nueva Cuenta')).name).toBe('Subdominio');
    await assertTrapped();
    await page.keyboard.press('Escape');
    await closedBackOn('Nueva Cuenta');

    await openWithKeyboard('Nueva Cuenta');
    await page.keyboard.type(SECOND.subdomain);
    await page.keyboard.press('Tab');
    await page.keyboard.type(SECOND.token);
    await tabUntil(page, (f) => f.name === 'ID del Campo de Teléfono', { inDialog: true, max: 3 });
    await page.keyboard.type(String(stack.kommo.fields(SECOND.subdomain).phoneFieldId));
    await tabUntil(page, (f) => f.name === 'Crear Cuenta', { inDialog: true, max: 3 });
    await page.keyboard.press('Enter');
    await closedBackOn('Nueva Cuenta');
    await page.getByRole('heading', { name: SECOND.subdomain }).waitFor();
  });

  it('Agregar Cuenta de WhatsApp: focus in, trapped, completed, back on the trigger', async () => {
    await page.goto(`${stack.baseUrl}/whatsapp-accounts`);
    await settled(page);
    expect((await openWithKeyboard('Agregar Cuenta')).name).toBe('Nombre de la cuenta *');
    await assertTrapped();
    await page.keyboard.press('Escape');
    await closedBackOn('Agregar Cuenta');

    await openWithKeyboard('Agregar Cuenta');
    await page.keyboard.type('Soporte');
    for (const [label, value] of [
      ['Número de teléfono *', '+5491155550001'],
      ['Phone Number ID *', SECOND.phoneNumberId],
      ['Business Account ID *', SECOND.wabaId],
      ['Access Token *', SECOND.waToken],
    ]) {
      await tabUntil(page, (f) => f.name === label, { inDialog: true, max: 3 });
      await page.keyboard.type(value);
    }
    await tabUntil(page, (f) => f.name === 'Crear Cuenta', { inDialog: true, max: 12 });
    await page.keyboard.press('Enter');
    await closedBackOn('Agregar Cuenta');
    await page.getByRole('heading', { name: 'Soporte' }).waitFor();
  });

  it('Crear y Enviar Plantilla: focus in, trapped, completed, back on the trigger', async () => {
    await page.goto(`${stack.baseUrl}/templates`);
    await settled(page);
    expect((await openWithKeyboard('Nueva Plantilla')).name).toBe('Nombre *');
    await assertTrapped();
    await page.keyboard.press('Escape');
    await closedBackOn('Nueva Plantilla');

    await openWithKeyboard('Nueva Plantilla');
    await page.keyboard.type('aviso_teclado');
    await tabUntil(page, (f) => f.name === 'Cuerpo del mensaje *', { inDialog: true, max: 25 });
    await page.keyboard.type('Hola, este es un aviso.');
    await tabUntil(page, (f) => f.name === 'Crear y Enviar', { inDialog: true, max: 6 });
    await page.keyboard.press('Enter');
    await closedBackOn('Nueva Plantilla');
    await page.getByRole('heading', { name: 'aviso_teclado' }).waitFor();
  });

  it('Configurar Variables: focus in, trapped, completed, back on the trigger', async () => {
    await page.goto(`${stack.baseUrl}/templates`);
    await settled(page);
    const inside = await openWithKeyboard('Configurar Variables');
    expect(inside.dialog).toContain('Configurar Variables');
    await assertTrapped();
    await page.keyboard.press('Escape');
    await closedBackOn('Configurar Variables');

    await openWithKeyboard('Configurar Variables');
    await page.keyboard.press('Shift+Tab');
    await tabUntil(page, (f) => f.tag === 'select', { inDialog: true, max: 4 });
    await page.keyboard.press('ArrowDown');
    await tabUntil(page, (f) => f.name === 'Guardar Configuración', { inDialog: true, max: 6 });
    await page.keyboard.press('Enter');
    await closedBackOn('Configurar Variables');
  });

  it('Agregar Número a Blacklist: focus in, trapped, completed, back on the trigger', async () => {
    await page.goto(`${stack.baseUrl}/blacklist?account=${ids.kommoAccountId}`);
    await settled(page);
    expect((await openWithKeyboard('Agregar Número')).name).toBe('Teléfono');
    await assertTrapped();
    await page.keyboard.press('Escape');
    await closedBackOn('Agregar Número');

    await openWithKeyboard('Agregar Número');
    await page.keyboard.type('+54 9 11 5555-0199');
    await page.keyboard.press('Enter');
    await closedBackOn('Agregar Número');
    await page.getByText('+5491155550199').first().waitFor();
  });
});
