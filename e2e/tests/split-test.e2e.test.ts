import { sql } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../server/src/db/sql';
import { ARTIFACTS, openSignedIn, shot } from '../src/browser';
import { connectAccounts, waitFor } from '../src/seed';
import { startOneNumberStack, type ConsoleApi, type Stack } from '../src/stack';

/**
 * "Prueba A/B" in the browser: a campaign with two variants is created with the form's section,
 * started, and on the simulator B's recipients read their message while A's do not. After the
 * wait (made short here by moving the decision time), B wins, the rest of the audience gets B,
 * nobody gets two messages, and the detail screen shows the arms and "Ganó B (…, p = …)".
 */

const SUBDOMAIN = 'prueba-ab';
const KOMMO_TOKEN = 'kommo-split-token';
const PHONE_NUMBER_ID = '5301';
const WABA_ID = '6301';
const WA_TOKEN = 'wa-split-token';
const BODY = (text: string) => [{ type: 'BODY', text, example: { body_text: [['Ana']] } }];

let stack: Stack;
let page: Page;
let closeBrowser: () => Promise<void>;
let api: ConsoleApi;
let whatsappAccountId: number;
let templateA: number;
let templateB: number;

beforeAll(async () => {
  stack = await startOneNumberStack({
    // 80 people: the test slice (60 %) gives each arm enough sends for the z-test's minimum sample.
    kommo: { subdomain: SUBDOMAIN, token: KOMMO_TOKEN, contacts: 80, seed: 31 },
    number: { phoneNumberId: PHONE_NUMBER_ID, wabaId: WABA_ID, token: WA_TOKEN, displayPhoneNumber: '5491100005301' },
    templates: [
      { name: 'oferta_a', category: 'MARKETING', components: BODY('Hola {{1}}, tenemos una oferta para ti.') },
      { name: 'oferta_b', category: 'MARKETING', components: BODY('{{1}}, solo hoy: 20 % de descuento.') },
    ],
    statusDelayMs: 20,
  });
  // The people who get B read it; those who get A do not.
  stack.whatsapp.configure({ templateReadRates: { oferta_a: 0, oferta_b: 1 } });
  ({ page, close: closeBrowser, api } = await openSignedIn(stack.baseUrl));
  ({ whatsappAccountId, templateId: templateA } = await connectAccounts(stack, api, {
    subdomain: SUBDOMAIN,
    kommoToken: KOMMO_TOKEN,
    phoneNumberId: PHONE_NUMBER_ID,
    wabaId: WABA_ID,
    waToken: WA_TOKEN,
    template: 'oferta_a',
    name: 'Ventas A/B',
    phone: '+5491100005301',
    ratePerSecond: 20,
  }));
  const templates: { id: number; name: string }[] = await api.get(`/templates/account/${whatsappAccountId}`);
  templateB = templates.find((t) => t.name === 'oferta_b')!.id;
  await api.post(`/variables/template/${templateB}/mappings`, {
    mappings: [{ templateVariable: 'variable_1', sourceType: 'contact', sourceField: 'name', defaultValue: 'cliente' }],
  });
}, 120_000);
afterAll(async () => {
  await closeBrowser?.();
  await stack?.stop();
});

async function shots(name: string) {
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot(page, name);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot(page, `${name}-phone`);
  await page.setViewportSize({ width: 1400, height: 900 });
}

/** The split test's card alone, at 1400 px and 390 px. */
async function cardShot(name: string) {
  const card = page.getByTestId('split-test-card');
  await card.screenshot({ path: `${ARTIFACTS}/${name}.png` });
  await page.setViewportSize({ width: 390, height: 844 });
  await card.screenshot({ path: `${ARTIFACTS}/${name}-phone.png` });
  await page.setViewportSize({ width: 1400, height: 900 });
}

describe('Prueba A/B', () => {
  it('tests two variants, picks B after the wait, sends it to the rest and shows the result', async () => {
    const name = 'Campaña Prueba A/B E2E';
    await page.goto(`${stack.baseUrl}/campaigns/new`);
    await page.getByLabel('Nombre de la Campaña *').fill(name);
    await page.getByLabel('Cuenta Kommo *').selectOption({ label: SUBDOMAIN });
    await page.getByLabel('Cuenta WhatsApp *').selectOption(String(whatsappAccountId));
    await page.getByLabel('Template *').selectOption(String(templateA));
    await page.getByLabel('Hacer una prueba A/B').check();
    await page.getByLabel('Plantilla de la variante B *').selectOption(String(templateB));
    await page.getByLabel('Porción de prueba (%) *').fill('60');
    await page.getByLabel('Métrica *').selectOption('read');
    await page.getByLabel('Espera antes de decidir *').fill('30');
    await page.getByLabel('Unidad').selectOption('minutes');
    await page.getByLabel('Sin ganador significativo *').selectOption('stop');
    // Keyboard: the section's "add a variant" is a button that offers C.
    await expect(page.getByRole('button', { name: 'Agregar variante C' }).isVisible()).resolves.toBe(true);
    // The pre-flight runs with both variants (each template is checked).
    await page.getByTestId('preflight-attempted').waitFor();
    await page.setViewportSize({ width: 1400, height: 900 });
    await shots('split-test-form');
    await page.getByRole('button', { name: 'Crear Campaña' }).click();
    await page.getByRole('heading', { name }).waitFor();
    const id = Number(new URL(page.url()).pathname.split('/').pop());
    const created = await api.get(`/campaigns/${id}`);
    expect(created.split_test.ab_test).toEqual({ share: 0.6, metric: 'read', wait_seconds: 1800, no_winner: 'stop' });
    await page.getByTestId('split-test-card').waitFor();

    await page.getByRole('button', { name: 'Iniciar' }).click();
    await page.getByRole('dialog').getByRole('button', { name: /^Enviar a [\d.]+ personas?$/ }).click();
    // The test slice goes out; the rest waits for the winner.
    await waitFor(async () => {
      const c = await api.get(`/campaigns/${id}`);
      // The whole slice: a B message sent after this point would make B's reads overtake the count taken below.
      return c.split_test.waiting > 0 && c.split_test.arms.every((a: { sent: number; recipients: number }) => a.sent > 0 && a.sent === a.recipients) && c.messages_sent === c.split_test.arms.reduce((n: number, a: { sent: number }) => n + a.sent, 0);
    }, 60_000);
    await page.reload();
    await page.getByText(/destinatarios esperan a la variante ganadora/).waitFor();
    await cardShot('split-test-testing');
    const inTest = await api.get(`/campaigns/${id}`);
    await waitFor(async () => (await api.get(`/campaigns/${id}`)).split_test.arms[1].read >= inTest.split_test.arms[1].sent, 30_000);

    // The wait, made short: the decision is due now.
    await stack.ctx.db.execute(sql`update campaigns set split_decide_at = now() where id = ${id}`);
    await waitFor(async () => (await api.get(`/campaigns/${id}`)).status === 'completed', 60_000);
    const done = await api.get(`/campaigns/${id}`);
    expect(done.split_test.result).toMatchObject({ outcome: 'winner', winner: 'B', significant: true });
    expect(done.split_test.result.summary).toMatch(/^Ganó B \(\+100,0 pts, p [=<] 0,0\d\d\)$/);

    // Every person got one message: the test slice its arm's template, the rest B's.
    const rows = await rowsOf<{ phone: string; variant: number | null; status: string }>(
      stack.ctx.db,
      sql`select phone, variant, status from campaign_recipients where campaign_id = ${id} and status <> 'skipped'`,
    );
    expect(rows.every((r) => r.variant === 0 || r.variant === 1)).toBe(true);
    const sent = stack.whatsapp.messages();
    expect(stack.whatsapp.duplicates()).toEqual([]);
    expect(sent).toHaveLength(rows.length);
    const byPhone = new Map(sent.map((m) => [m.to, m.template]));
    for (const r of rows) expect(byPhone.get(r.phone.replace(/\D/g, ''))).toBe(r.variant === 0 ? 'oferta_a' : 'oferta_b');
    expect(done.split_test.arms[1].recipients).toBeGreaterThan(inTest.split_test.arms[1].recipients);

    // The screen: the result with its p-value, and each arm's counts, rate and interval.
    await page.reload();
    const result = page.getByTestId('split-test-result');
    await result.getByText(/^Ganó B \(\+100,0 pts, p [=<] 0,0\d\d\)$/).waitFor();
    await expect(result.textContent()).resolves.toContain('El resto del público recibe la variante B.');
    const table = page.getByRole('region', { name: 'Variantes de la prueba A/B' });
    await expect(table.getByRole('rowheader').allTextContents()).resolves.toEqual(['Aoferta_a', 'Bganadoraoferta_b']);
    await expect(table.textContent()).resolves.toContain('0,0 %');
    await cardShot('split-test-result');
  }, 240_000);
});
