import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axe, blocking, DESKTOP, horizontalOverflow, launch, PHONE, screenshot, settled, signedInContext, smallTargets } from '../src/a11y';
import { seed, seededStackOptions } from '../src/seed';
import { startStack, type Stack } from '../src/stack';

/**
 * Every screen and every dialog of the console, at 1280×800 and as a 390×844 phone: axe-core
 * (WCAG 2.1 A/AA and best practice) finds nothing critical or serious, and on the phone nothing
 * pans sideways and every control is a 44 px tap target. A screenshot of each state is saved
 * for review.
 */

interface State {
  name: string;
  path: (ids: Ids) => string;
  signedOut?: boolean;
  phoneOnly?: boolean;
  /** Brings the page into the state (opens a dialog, fills a form); the page is settled before. */
  prepare?: (page: Page, ids: Ids) => Promise<void>;
}
type Ids = Awaited<ReturnType<typeof seed>>;

const click = (name: string) => async (page: Page) => {
  await page.getByRole('button', { name, exact: true }).first().click();
  await page.getByRole('dialog').waitFor();
};

const STATES: State[] = [
  { name: 'login', path: () => '/login', signedOut: true },
  { name: 'register', path: () => '/register', signedOut: true },
  { name: 'dashboard', path: () => '/dashboard' },
  { name: 'nav-drawer', path: () => '/dashboard', phoneOnly: true, prepare: click('Abrir menú') },
  { name: 'kommo-accounts', path: () => '/accounts' },
  { name: 'kommo-accounts-modal', path: () => '/accounts', prepare: click('Nueva Cuenta') },
  { name: 'whatsapp-accounts', path: () => '/whatsapp-accounts' },
  { name: 'whatsapp-account-modal', path: () => '/whatsapp-accounts', prepare: click('Agregar Cuenta') },
  { name: 'contacts', path: (ids) => `/contacts?account=${ids.kommoAccountId}` },
  { name: 'campaigns', path: () => '/campaigns' },
  {
    name: 'campaign-new',
    path: () => '/campaigns/new',
    prepare: async (page, ids) => {
      await page.getByLabel('Nombre de la Campaña *').fill('Prueba de accesibilidad');
      await page.getByLabel('Cuenta Kommo *').selectOption(String(ids.kommoAccountId));
      await page.getByLabel('Cuenta WhatsApp *').selectOption(String(ids.whatsappAccountId));
      await page.getByLabel('Template *').selectOption(String(ids.templateId));
      await page.getByTestId('recipient-count').waitFor();
    },
  },
  { name: 'campaign-detail', path: (ids) => `/campaigns/${ids.campaignId}` },
  { name: 'templates', path: () => '/templates' },
  { name: 'templates-create-dialog', path: () => '/templates', prepare: click('Nueva Plantilla') },
  {
    name: 'templates-create-dialog-filled',
    path: () => '/templates',
    prepare: async (page) => {
      await click('Nueva Plantilla')(page);
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Nombre *').fill('Nombre Inválido');
      await dialog.getByLabel('Incluir encabezado').check();
      await dialog.getByLabel('Incluir pie de página').check();
      await dialog.getByLabel('Cuerpo del mensaje *').fill('Hola {{1}}, tu pedido {{2}} está en camino.');
      await dialog.getByRole('button', { name: 'Crear y Enviar' }).click();
      await dialog.locator('[aria-invalid="true"]').first().waitFor();
    },
  },
  { name: 'templates-variable-mapping', path: () => '/templates', prepare: click('Configurar Variables') },
  { name: 'blacklist', path: (ids) => `/blacklist?account=${ids.kommoAccountId}` },
  { name: 'blacklist-add-modal', path: (ids) => `/blacklist?account=${ids.kommoAccountId}`, prepare: click('Agregar Número') },
  { name: 'pricing', path: () => '/pricing' },
  { name: 'organization', path: () => '/organization' },
  { name: 'organization-invite-dialog', path: () => '/organization', prepare: click('Invitar miembro') },
  { name: 'activity', path: () => '/activity' },
  { name: 'api-keys', path: () => '/api-keys' },
  { name: 'api-keys-create-dialog', path: () => '/api-keys', prepare: click('Nueva clave') },
  { name: 'webhooks', path: () => '/webhooks' },
  { name: 'webhooks-create-dialog', path: () => '/webhooks', prepare: click('Nuevo webhook') },
];

let stack: Stack;
let browser: Browser;
let ids: Ids;

beforeAll(async () => {
  stack = await startStack(seededStackOptions());
  [ids, browser] = await Promise.all([seed(stack, { completedCampaign: true }), launch()]);
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe.each([
  ['desktop', DESKTOP],
  ['phone', PHONE],
] as const)('at %s width', (width, options) => {
  const contexts: { in?: BrowserContext; out?: BrowserContext } = {};
  let signedIn: Page;
  let signedOut: Page;
  beforeAll(async () => {
    contexts.in = await signedInContext(browser, options, ids.session);
    contexts.out = await signedInContext(browser, options);
    signedIn = await contexts.in.newPage();
    signedOut = await contexts.out.newPage();
  });
  afterAll(async () => {
    await contexts.in?.close();
    await contexts.out?.close();
  });

  const states = STATES.filter((s) => width === 'phone' || !s.phoneOnly);
  it.each(states.map((s) => [s.name, s] as const))('%s: no critical or serious axe violation', async (_, state) => {
    const page = state.signedOut ? signedOut : signedIn;
    await page.goto(`${stack.baseUrl}${state.path(ids)}`);
    await settled(page);
    await state.prepare?.(page, ids);
    await page.waitForTimeout(200);
    await screenshot(page, `${width}-${state.name}`);

    expect(blocking(await axe(page))).toEqual([]);
    if (width === 'phone') {
      expect(await horizontalOverflow(page), 'the page pans sideways').toBeLessThanOrEqual(0);
      expect(await smallTargets(page)).toEqual([]);
    }
  });
});
