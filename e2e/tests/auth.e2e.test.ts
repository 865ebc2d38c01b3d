import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBrowser, shot, signUp } from '../src/browser';
import { startStack, type Stack } from '../src/stack';

let stack: Stack;
let page: Page;
let browser: Browser;
let closeBrowser: () => Promise<void>;

beforeAll(async () => {
  stack = await startStack();
  const b = await openBrowser();
  page = b.page;
  browser = b.browser;
  closeBrowser = b.close;
});
afterAll(async () => {
  await closeBrowser?.();
  await stack?.stop();
});

describe('sign-in flow', () => {
  it('shows every validation message of login and register', async () => {
    await page.goto(`${stack.baseUrl}/login`);
    await page.getByRole('button', { name: 'Iniciar Sesión' }).click();
    await expectText('Email es requerido');
    await expectText('Contraseña es requerida');
    await page.getByLabel('Email').fill('no-es-email');
    await page.getByLabel('Contraseña').fill('123');
    await page.getByRole('button', { name: 'Iniciar Sesión' }).click();
    await expectText('Email inválido');
    await expectText('La contraseña debe tener al menos 6 caracteres');
    await shot(page, 'login-validation');

    await page.getByRole('link', { name: 'crear una cuenta nueva' }).click();
    await page.waitForURL(/\/register$/);
    await page.getByRole('button', { name: 'Crear Cuenta' }).click();
    await expectText('Confirma tu contraseña');
    await page.getByLabel('Contraseña', { exact: true }).fill('secreto1');
    await page.getByLabel('Confirmar Contraseña').fill('secreto2');
    await page.getByRole('button', { name: 'Crear Cuenta' }).click();
    await expectText('Las contraseñas no coinciden');
    await shot(page, 'register-validation');
  });

  it('registers, lands on the dashboard, survives a reload and signs out', async () => {
    const { email, password } = await signUp(page, stack.baseUrl);
    await expectText('Cuenta creada exitosamente');
    expect(await page.getByTestId('sidebar-user-name').textContent()).toBe('Laura');
    await expectText('v1.0.0 - Sistema de Mensajes Masivos');
    await shot(page, 'dashboard-after-register');

    await page.reload();
    await page.waitForURL(`${stack.baseUrl}/dashboard`);
    await expectText(email);

    await page.getByRole('button', { name: 'Cerrar Sesión', exact: true }).click();
    await page.waitForURL(/\/login$/);
    expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull();

    // A protected URL sends us to /login and, after signing in, back to where we were going.
    await page.goto(`${stack.baseUrl}/blacklist`);
    await page.waitForURL(/\/login$/);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Contraseña').fill(password);
    await page.getByRole('button', { name: 'Iniciar Sesión' }).click();
    await page.waitForURL(`${stack.baseUrl}/blacklist`);
    await expectText('Login exitoso');

    // Signed in, /login sends us on.
    await page.goto(`${stack.baseUrl}/login`);
    await page.waitForURL(`${stack.baseUrl}/dashboard`);
  });

  it('refuses wrong credentials with the server message', async () => {
    await page.getByRole('button', { name: 'Cerrar Sesión', exact: true }).click();
    await page.waitForURL(/\/login$/);
    await page.getByLabel('Email').fill('nadie@example.com');
    await page.getByLabel('Contraseña').fill('secreto123');
    await page.getByRole('button', { name: 'Iniciar Sesión' }).click();
    await expectText('Email o contraseña incorrectos');
  });
});

describe('sessions on several devices', () => {
  it('«Cerrar Sesión» ends this browser only; «Cerrar sesión en todos los dispositivos» ends the others too', async () => {
    const { email, password } = await signUp(page, stack.baseUrl);
    const other = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'es-ES' });
    try {
      const signIn = async () => {
        const p = await other.newPage();
        await p.goto(`${stack.baseUrl}/login`);
        await p.getByLabel('Email').fill(email);
        await p.getByLabel('Contraseña').fill(password);
        await p.getByRole('button', { name: 'Iniciar Sesión' }).click();
        await p.waitForURL(`${stack.baseUrl}/dashboard`);
        return p;
      };
      const phone = await signIn();
      await page.getByRole('button', { name: 'Cerrar Sesión', exact: true }).click();
      await page.waitForURL(/\/login$/);
      await phone.goto(`${stack.baseUrl}/campaigns`);
      await phone.getByRole('heading', { name: 'Campañas', exact: true }).waitFor();
      expect(new URL(phone.url()).pathname).toBe('/campaigns');

      // Back on the desktop, sign out everywhere after the confirmation.
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Contraseña').fill(password);
      await page.getByRole('button', { name: 'Iniciar Sesión' }).click();
      await page.waitForURL(`${stack.baseUrl}/dashboard`);
      await page.getByRole('button', { name: 'Cerrar sesión en todos los dispositivos' }).click();
      const dialog = page.getByRole('dialog', { name: '¿Cerrar sesión en todos los dispositivos?' });
      await dialog.waitFor();
      await shot(page, 'logout-all-dialog');
      await dialog.getByRole('button', { name: 'Cerrar sesión en todos', exact: true }).click();
      await page.waitForURL(/\/login$/);
      await phone.goto(`${stack.baseUrl}/campaigns`);
      await phone.waitForURL(/\/login$/);
      expect(await phone.evaluate(() => localStorage.getItem('token'))).toBeNull();
    } finally {
      await other.close();
    }
  });
});

async function expectText(text: string) {
  await page.getByText(text, { exact: false }).first().waitFor({ state: 'visible' });
}
