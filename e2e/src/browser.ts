import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { apiAs, type ConsoleApi } from './stack';

export const ARTIFACTS = join(dirname(fileURLToPath(import.meta.url)), '..', 'artifacts');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export async function openBrowser(): Promise<{ browser: Browser; page: Page; close(): Promise<void> }> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  });
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, locale: 'es-ES' });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  return { browser, page, close: () => browser.close() };
}

export async function shot(page: Page, name: string) {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

let counter = 0;
/** Registers a new user through the Register screen; leaves the browser on /dashboard. */
export async function signUp(page: Page, baseUrl: string, email = `e2e${Date.now()}${++counter}@example.com`, password = 'secreto123') {
  await page.goto(`${baseUrl}/register`);
  await page.getByLabel('Nombre').fill('Laura');
  await page.getByLabel('Apellido').fill('Gómez');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Contraseña', { exact: true }).fill(password);
  await page.getByLabel('Confirmar Contraseña').fill(password);
  await page.getByRole('button', { name: 'Crear Cuenta' }).click();
  await page.waitForURL(`${baseUrl}/dashboard`);
  const token = await page.evaluate(() => localStorage.getItem('token'));
  return { email, password, token: token! };
}

/** A browser with a new user signed in through the Register screen, and that user's API. */
export async function openSignedIn(baseUrl: string): Promise<{ page: Page; close(): Promise<void>; token: string; api: ConsoleApi }> {
  const b = await openBrowser();
  const { token } = await signUp(b.page, baseUrl);
  return { page: b.page, close: b.close, token, api: apiAs(baseUrl, token) };
}
