import { readFileSync } from 'node:fs';
import { filterToSearchParams } from '@masivo/contract/contact-filter';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBrowser, shot, signUp } from '../src/browser';
import { apiAs, startStack, type Stack } from '../src/stack';

/**
 * CRM accounts, contacts and blacklist in the browser: connect a simulated Kommo account,
 * sync it while the card shows live progress, filter by tags and custom fields, page,
 * export, and blacklist a number.
 */
const CONTACTS = 4000;
let stack: Stack;
let page: Page;
let closeBrowser: () => Promise<void>;
let api: ReturnType<typeof apiAs>;
let accountId: number;

beforeAll(async () => {
  stack = await startStack({ kommo: { accounts: [{ subdomain: 'demo', token: 'kommo-demo-token', contacts: CONTACTS, seed: 5 }] } });
  const b = await openBrowser();
  page = b.page;
  closeBrowser = b.close;
  page.on('dialog', (d) => void d.accept());
  const { token } = await signUp(page, stack.baseUrl);
  api = apiAs(stack.baseUrl, token);
});
afterAll(async () => {
  await closeBrowser?.();
  await stack?.stop();
});

const text = (t: string | RegExp) => page.getByText(t).first().waitFor();
const summary = () => page.getByTestId('contacts-summary').textContent();
const es = (n: number) => n.toLocaleString('es-ES');

async function summaryTotal(): Promise<number> {
  const m = /de ([\d.]+) resultados/.exec((await summary()) ?? '');
  return Number(m![1].replace(/\./g, ''));
}

describe('CRM accounts, contacts and blacklist', () => {
  it('connects a Kommo account with the phone field picked from its fields', async () => {
    await page.goto(`${stack.baseUrl}/accounts`);
    await text('No tienes cuentas Kommo configuradas');
    await shot(page, 'accounts-empty');
    await page.getByRole('button', { name: 'Crear Primera Cuenta' }).click();
    const fetchFields = page.getByRole('button', { name: 'Obtener Campos' });
    expect(await fetchFields.isDisabled()).toBe(true);
    await page.getByLabel('Subdominio').fill('demo');
    await page.getByLabel('Token de Acceso').fill('kommo-demo-token');
    await fetchFields.click();
    const picker = page.getByLabel('Campo de Teléfono');
    await picker.waitFor();
    expect(await picker.inputValue()).toBe(String(stack.kommo.fields('demo').phoneFieldId));
    expect(await picker.locator('option').allTextContents()).toContain(`Teléfono (ID: ${stack.kommo.fields('demo').phoneFieldId})`);
    await shot(page, 'accounts-new-modal');
    await page.getByRole('dialog').getByRole('button', { name: 'Crear Cuenta' }).click();
    await text('Cuenta Kommo creada exitosamente');
    await page.getByRole('heading', { name: 'demo' }).waitFor();
    await text('Inactivo');
    [{ id: accountId }] = await api.get('/kommo/accounts');
  });

  it('syncs with live progress on the card', async () => {
    await page.getByRole('button', { name: 'Sincronizar' }).click();
    await text('Sincronización iniciada');
    const button = page.getByRole('button', { name: 'Sincronizando...' });
    await button.waitFor();
    expect(await button.isDisabled()).toBe(true);
    // Progress moves while the sync runs (4,000 contacts take a few seconds at 7 requests/s).
    await page.waitForFunction(() => {
      const t = document.querySelector('[data-testid="sync-progress"]')?.textContent ?? '';
      return /^[1-9][\d.]* \//.test(t.trim());
    });
    await shot(page, 'accounts-syncing');
    await page.getByText('Sincronizado', { exact: true }).waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('sync-progress').textContent()).toBe(`${es(CONTACTS)} / ${es(CONTACTS)}`);
    expect(await page.getByRole('button', { name: 'Sincronizar' }).isEnabled()).toBe(true);
    await shot(page, 'accounts');
  });

  it('lists the contacts of the account, pages and changes page size', async () => {
    await page.getByRole('button', { name: 'Ver Contactos' }).click();
    await page.waitForURL(/\/contacts\?account=\d+/);
    await page.getByRole('columnheader', { name: 'Etiquetas' }).waitFor();
    await page.waitForFunction((n) => document.querySelector('[data-testid="contacts-summary"]')?.textContent === `Mostrando 1 al 20 de ${n} resultados`, es(CONTACTS));
    expect(await page.locator('tbody tr').count()).toBe(20);
    const pageButtons = page.getByRole('navigation', { name: 'Paginación' }).getByRole('button', { name: /^\d+$/ });
    expect(await pageButtons.allTextContents()).toEqual(['1', '2', '3', '4', '5']);
    await page.getByRole('button', { name: '3', exact: true }).click();
    await page.waitForFunction((n) => document.querySelector('[data-testid="contacts-summary"]')?.textContent === `Mostrando 41 al 60 de ${n} resultados`, es(CONTACTS));
    expect(await pageButtons.allTextContents()).toEqual(['1', '2', '3', '4', '5']);
    await page.getByRole('button', { name: 'Siguiente' }).click();
    await page.waitForFunction(() => document.querySelector('[data-testid="contacts-summary"]')?.textContent?.startsWith('Mostrando 61 al 80'));
    expect(await pageButtons.allTextContents()).toEqual(['2', '3', '4', '5', '6']);
    await page.getByLabel('Contactos por página').selectOption('50');
    await page.waitForFunction((n) => document.querySelector('[data-testid="contacts-summary"]')?.textContent === `Mostrando 1 al 50 de ${n} resultados`, es(CONTACTS));
    expect(await page.locator('tbody tr').count()).toBe(50);
    await shot(page, 'contacts');
  });

  it('filters by tags with AND / OR and by custom fields, as the API counts', async () => {
    const tags: string[] = await api.get(`/contacts/${accountId}/tags`);
    const [a, b] = tags;
    await page.getByRole('button', { name: '2', exact: true }).click();
    await page.getByRole('button', { name: a, exact: true }).click();
    await page.getByRole('button', { name: b, exact: true }).click();
    await text('Activos');
    const orCount = (await api.get(`/contacts/${accountId}/count?${filterToSearchParams({ tags: [a, b], tagOperator: 'OR' })}`)).count;
    await page.waitForFunction((n) => document.querySelector('[data-testid="contacts-summary"]')?.textContent?.endsWith(`de ${n} resultados`), es(orCount));
    // A filter change goes back to the first page.
    expect(await summary()).toMatch(/^Mostrando 1 al /);
    await page.getByRole('button', { name: 'Y (Todas)' }).click();
    const andCount = (await api.get(`/contacts/${accountId}/count?${filterToSearchParams({ tags: [a, b], tagOperator: 'AND' })}`)).count;
    expect(andCount).toBeLessThan(orCount);
    await page.waitForFunction((n) => document.querySelector('[data-testid="contacts-summary"]')?.textContent?.endsWith(`de ${n} resultados`), es(andCount));

    await page.getByRole('button', { name: 'O (Alguna)' }).click();
    const plan = page.getByLabel('Plan', { exact: true });
    expect(await plan.locator('option').allTextContents()).toEqual(['Sin filtro', 'Texto Contiene', 'Está Lleno (No Vacío)', 'Está Vacío o No Existe']);
    await plan.selectOption('manual');
    await page.getByLabel('Texto que contiene Plan').fill('pro');
    await page.getByLabel('Ciudad', { exact: true }).selectOption('exists');
    const filters = { Plan: { mode: 'manual', manualValue: 'pro' }, Ciudad: { mode: 'exists' } } as const;
    const combined = (
      await api.get(`/contacts/${accountId}/count?${filterToSearchParams({ tags: [a, b], tagOperator: 'OR', customFieldFilters: filters })}`)
    ).count;
    expect(combined).toBeGreaterThan(0);
    await page.waitForFunction((n) => document.querySelector('[data-testid="contacts-summary"]')?.textContent?.endsWith(`de ${n} resultados`), es(combined));
    const rowTags = await page.locator('tbody tr td:nth-child(4)').allTextContents();
    for (const t of rowTags) expect(t.includes(a) || t.includes(b)).toBe(true);
    await shot(page, 'contacts-filtered');

    // Export: exactly the filtered contacts, UTF-8 with BOM.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Exportar CSV' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^contactos-demo-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = readFileSync((await download.path())!);
    expect([...csv.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = csv.toString('utf8').trim().split('\r\n');
    expect(lines[0]).toContain('Teléfono');
    expect(lines.length - 1).toBe(combined);

    await page.getByPlaceholder('Buscar por nombre, teléfono o email...').fill('zzzz-nadie');
    await text('No hay contactos que coincidan con los filtros aplicados');
    await page.getByRole('button', { name: 'Limpiar todos los filtros' }).click();
    await page.waitForFunction((n) => document.querySelector('[data-testid="contacts-summary"]')?.textContent?.endsWith(`de ${n} resultados`), es(CONTACTS));
    expect(await page.getByText('Activos').count()).toBe(0);
    expect(await summaryTotal()).toBe(CONTACTS);
  });

  it('blacklists a number once, whatever its format, and removes it', async () => {
    await page.goto(`${stack.baseUrl}/blacklist`);
    await page.getByLabel('Cuenta Kommo').selectOption(String(accountId));
    await text('No hay números en la blacklist');
    await page.getByRole('button', { name: 'Agregar Número' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Agregar' }).click();
    await text('El teléfono es requerido');
    await page.getByLabel('Teléfono').fill('+54 9 11 1234-5678');
    await page.getByLabel('Motivo (opcional)').fill('Pidió la baja');
    await page.getByRole('dialog').getByRole('button', { name: 'Agregar' }).click();
    await text('Número agregado a blacklist exitosamente');
    await page.getByRole('cell', { name: '+5491112345678', exact: true }).waitFor();
    await page.getByRole('cell', { name: 'Pidió la baja' }).waitFor();

    await page.getByRole('button', { name: 'Agregar Número' }).click();
    await page.getByLabel('Teléfono').fill('5491112345678');
    await page.getByRole('dialog').getByRole('button', { name: 'Agregar' }).click();
    await text('El número +5491112345678 ya está en la blacklist de esta cuenta');
    await page.getByRole('dialog').getByRole('button', { name: 'Cancelar' }).click();
    expect(await page.locator('tbody tr').count()).toBe(1);
    await shot(page, 'blacklist');
    expect((await api.get(`/blacklist/${accountId}/check?phone=%2B5491112345678`)).blacklisted).toBe(true);

    await page.getByRole('button', { name: 'Remover +5491112345678' }).click();
    await text('Número removido de blacklist exitosamente');
    await text('No hay números en la blacklist');
  });
});
