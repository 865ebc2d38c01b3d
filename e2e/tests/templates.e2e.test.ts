import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBrowser, shot, signUp } from '../src/browser';
import { apiAs, startStack, type Stack } from '../src/stack';

const NUMBER = { phoneNumberId: '100000000000001', wabaId: '200000000000001', token: 'wa-demo-token', displayPhoneNumber: '5491100000000', verifiedName: 'Masivo Demo' };

let stack: Stack;
let page: Page;
let closeBrowser: () => Promise<void>;
let token: string;

beforeAll(async () => {
  stack = await startStack({
    whatsapp: {
      numbers: [NUMBER],
      approvalDelayMs: 300,
      templates: [
        { wabaId: NUMBER.wabaId, name: 'bienvenida', language: 'es', category: 'UTILITY', components: [{ type: 'BODY', text: 'Hola {{1}}, gracias por elegirnos.', example: { body_text: [['Ana']] } }] },
        { wabaId: NUMBER.wabaId, name: 'recordatorio_pago', language: 'es', category: 'UTILITY', components: [{ type: 'BODY', text: 'Tu pago vence pronto.' }] },
        { wabaId: NUMBER.wabaId, name: 'vieja_promo', language: 'es', category: 'MARKETING', status: 'REJECTED', components: [{ type: 'BODY', text: 'Promo vieja' }] },
      ],
    },
  });
  const b = await openBrowser();
  page = b.page;
  closeBrowser = b.close;
  token = (await signUp(page, stack.baseUrl)).token;
});
afterAll(async () => {
  await closeBrowser?.();
  await stack?.stop();
});

const text = (t: string | RegExp) => page.getByText(t).first().waitFor();
/** Dialogs are taller than the viewport (and fixed): a tall window shows all of them. */
async function dialogShot(name: string) {
  await page.setViewportSize({ width: 1400, height: 1500 });
  await shot(page, name);
  await page.setViewportSize({ width: 1400, height: 900 });
}

/**
 * Clicks and returns the message of the browser alert it opens. The alert is accepted by
 * the handler itself: an open alert blocks the page, and a click still finishing its
 * post-action wait would otherwise never return.
 */
async function alertAfter(click: () => Promise<void>): Promise<string> {
  const message = new Promise<string>((resolve) =>
    page.once('dialog', (d) => {
      resolve(d.message());
      void d.accept();
    }),
  );
  await click();
  return message;
}

describe('WhatsApp accounts screen', () => {
  it('adds an account with spec §5 validation and tests it against Meta', async () => {
    await page.getByRole('link', { name: 'Cuentas WhatsApp' }).click();
    await text('No tienes cuentas de WhatsApp configuradas');
    await shot(page, 'whatsapp-accounts-empty');

    await page.getByRole('button', { name: 'Agregar primera cuenta' }).click();
    const modal = page.getByRole('dialog', { name: 'Agregar Cuenta de WhatsApp' });
    await modal.getByRole('button', { name: 'Crear Cuenta' }).click();
    await text('El nombre es requerido');
    await text('El token de acceso es requerido');
    await modal.getByLabel(/Nombre de la cuenta/).fill('Ventas');
    await modal.getByLabel(/Número de teléfono/).fill('1234567890');
    await modal.getByRole('button', { name: 'Crear Cuenta' }).click();
    await text('El número debe estar en formato internacional (ej: +1234567890)');
    await modal.getByLabel(/Número de teléfono/).fill('+54 9 11 0000-0000');
    await modal.getByLabel(/Phone Number ID/).fill(NUMBER.phoneNumberId);
    await modal.getByLabel(/Business Account ID/).fill(NUMBER.wabaId);
    await modal.getByLabel(/Access Token/).fill(NUMBER.token);
    await modal.getByLabel(/Velocidad de envío/).fill('120');
    await modal.getByLabel(/Notas/).fill('Número principal de ventas');
    await shot(page, 'whatsapp-account-modal');
    await modal.getByRole('button', { name: 'Crear Cuenta' }).click();
    await modal.waitFor({ state: 'detached' });

    const card = page.getByTestId('whatsapp-account-card');
    await card.getByRole('heading', { name: 'Ventas' }).waitFor();
    await card.getByText('120 msg/s').waitFor();
    await card.getByText('http://127.0.0.1:3000/api/webhooks/whatsapp').waitFor();
    expect(await card.getByText('UNKNOWN').count()).toBe(1);

    const ok = await alertAfter(() => card.getByRole('button', { name: 'Probar' }).click());
    expect(ok).toBe('Conexión exitosa con WhatsApp Business API');
    await card.getByText('GREEN').waitFor();
    await card.getByText('+5491100000000').waitFor();
    await card.getByLabel('Verificada').waitFor();
    await page.getByText('Total Cuentas').waitFor();
    await shot(page, 'whatsapp-accounts');
  });

  it('refuses a token Meta does not confirm, shows Meta’s reason when a saved token is revoked, and keeps the token on a blank edit', async () => {
    const card = page.getByTestId('whatsapp-account-card');
    await card.getByRole('button', { name: 'Editar' }).click();
    const modal = page.getByRole('dialog', { name: 'Editar Cuenta de WhatsApp' });
    await modal.getByLabel(/Access Token/).fill('token-vencido');
    const refused = await alertAfter(() => modal.getByRole('button', { name: 'Guardar Cambios' }).click());
    expect(refused).toMatch(/No se pudo verificar el número con Meta: Token de acceso inválido o expirado/);
    await page.keyboard.press('Escape');
    await modal.waitFor({ state: 'detached' });

    // Meta revokes the saved token (the number now answers only to another one).
    stack.whatsapp.addNumber({ ...NUMBER, token: 'token-rotado' });
    const failed = await alertAfter(() => card.getByRole('button', { name: 'Probar' }).click());
    expect(failed).toMatch(/^Error al probar la cuenta: Token de acceso inválido o expirado\. \(Meta #190/);
    stack.whatsapp.addNumber(NUMBER);

    await card.getByRole('button', { name: 'Editar' }).click();
    await modal.getByLabel(/Nombre de la cuenta/).fill('Ventas AR');
    await modal.getByRole('button', { name: 'Guardar Cambios' }).click(); // token left blank: kept
    await modal.waitFor({ state: 'detached' });
    const again = await alertAfter(() => card.getByRole('button', { name: 'Probar' }).click());
    expect(again).toBe('Conexión exitosa con WhatsApp Business API');
  });
});

describe('templates screen', () => {
  it('syncs the account’s templates from Meta', async () => {
    await page.getByRole('link', { name: 'Templates' }).click();
    await text('Templates Disponibles (0)');
    await text('No hay templates');
    await page.getByRole('button', { name: 'Sincronizar Templates' }).click();
    await text('Sincronización exitosa: 3 nuevos, 0 actualizados');
    await text('Templates Disponibles (3)');
    const items = page.getByTestId('template-item');
    const bienvenida = items.filter({ hasText: 'bienvenida' });
    await bienvenida.getByText('Aprobada', { exact: true }).waitFor();
    expect(await bienvenida.getByRole('button', { name: 'Configurar Variables' }).count()).toBe(1);
    expect(await items.filter({ hasText: 'recordatorio_pago' }).getByRole('button', { name: 'Configurar Variables' }).count()).toBe(0);
    await items.filter({ hasText: 'vieja_promo' }).getByText('Rechazada', { exact: true }).waitFor();
  });

  it('creates a template with header, body and footer, sees it sent and approved', async () => {
    await page.getByRole('button', { name: 'Nueva Plantilla' }).click();
    const dialog = page.getByRole('dialog', { name: 'Crear y Enviar Plantilla a Facebook' });
    await dialog.getByRole('button', { name: 'Crear y Enviar' }).click();
    await dialog.getByText('El texto del cuerpo es requerido').waitFor();
    await dialog.getByLabel(/^Nombre/).fill('aviso pedido');
    await dialog.getByRole('button', { name: 'Crear y Enviar' }).click();
    await dialog.getByText('Solo letras, números y guiones bajos').first().waitFor();
    await dialog.getByLabel(/^Nombre/).fill('aviso_pedido');
    await dialog.getByLabel('Categoría').selectOption('marketing');

    await dialog.getByLabel('Incluir encabezado').check();
    const header = dialog.getByLabel('Encabezado', { exact: true });
    await header.fill('Pedido de ');
    await header.press('End');
    await dialog.getByRole('button', { name: '+ Nombre', exact: true }).click();
    expect(await header.inputValue()).toBe('Pedido de {{1}}');

    const body = dialog.getByLabel(/Cuerpo del mensaje/);
    await body.fill('Hola ');
    await body.press('End');
    await dialog.getByRole('button', { name: '+ Nombre', exact: true }).click();
    await body.pressSequentially(', tu pedido para ');
    await dialog.getByRole('button', { name: '+ Teléfono' }).click();
    await body.pressSequentially(' sale hoy.');
    expect(await body.inputValue()).toBe('Hola {{1}}, tu pedido para {{2}} sale hoy.');

    // Example inputs appear per placeholder, prefilled from the chip's field.
    expect(await dialog.getByLabel('Ejemplos del encabezado {{1}}').inputValue()).toBe('Juan');
    expect(await dialog.getByLabel('Ejemplos del cuerpo {{2}}').inputValue()).toBe('+5491112345678');
    await dialog.getByLabel('Ejemplos del cuerpo {{1}}').fill('Ana');

    await dialog.getByLabel('Incluir pie de página').check();
    const footer = dialog.getByLabel('Pie de página', { exact: true });
    // Meta forbids footer variables: no example inputs are offered, and one typed by hand is refused before sending.
    await footer.fill('Gracias {{1}}');
    expect(await dialog.getByLabel(/^Ejemplos del pie de página/).count()).toBe(0);
    await dialog.getByRole('button', { name: 'Crear y Enviar' }).click();
    await dialog.getByText('El pie de página no admite variables').waitFor();
    await footer.fill('Gracias por tu compra');

    const preview = dialog.getByTestId('template-preview');
    await preview.getByText('Pedido de Juan').waitFor();
    await preview.getByText('Hola Ana, tu pedido para +5491112345678 sale hoy.').waitFor();
    await preview.getByText('Gracias por tu compra').waitFor();
    await dialogShot('template-create-dialog');

    await dialog.getByRole('button', { name: 'Crear y Enviar' }).click();
    await text('Plantilla creada y enviada a Facebook para aprobación exitosamente');
    await dialog.waitFor({ state: 'detached' });
    const item = page.getByTestId('template-item').filter({ hasText: 'aviso_pedido' });
    await item.getByText('marketing', { exact: true }).waitFor();
    // Meta approves after review; the webhook reaches the list (it polls while pending).
    await item.getByText('Aprobada', { exact: true }).waitFor({ timeout: 30_000 });
    const atMeta = stack.whatsapp.templatesOf(NUMBER.wabaId).find((t) => t.name === 'aviso_pedido');
    expect(atMeta.components.map((c: { type: string }) => c.type)).toEqual(['HEADER', 'BODY', 'FOOTER']);
    expect(atMeta.components[1].example).toEqual({ body_text: [['Ana', '+5491112345678']] });
  });

  it('shows Meta’s refusal when a template cannot be submitted', async () => {
    await page.getByRole('button', { name: 'Nueva Plantilla' }).click();
    const dialog = page.getByRole('dialog', { name: 'Crear y Enviar Plantilla a Facebook' });
    await dialog.getByLabel(/^Nombre/).fill('empieza_variable');
    const body = dialog.getByLabel(/Cuerpo del mensaje/);
    await body.focus();
    await dialog.getByRole('button', { name: '+ Nombre', exact: true }).click();
    await body.pressSequentially(' tu pedido sale hoy');
    await dialog.getByRole('button', { name: 'Crear y Enviar' }).click();
    await text(/^Plantilla creada, pero no se pudo enviar a Facebook: Meta rechazó la plantilla\. \(Meta #100\/2388299/);
    // A refusal reads `rejected` with Meta's reason, not `draft`.
    const refused = page.getByTestId('template-item').filter({ hasText: 'empieza_variable' });
    await refused.getByText('Rechazada', { exact: true }).waitFor();
    await refused.getByText(/Motivo de rechazo:/).waitFor();
  });

  it('maps the variables with a live preview and saves them', async () => {
    const item = page.getByTestId('template-item').filter({ hasText: 'aviso_pedido' });
    await item.getByRole('button', { name: 'Configurar Variables' }).click();
    const dialog = page.getByRole('dialog', { name: 'Configurar Variables - aviso_pedido' });
    const preview = dialog.getByTestId('template-preview');
    await preview.getByText('Hola {{1}}, tu pedido para {{2}} sale hoy.').waitFor();
    await dialog.getByLabel('Campo para {{1}} (encabezado)').selectOption('first_name');
    await dialog.getByLabel('Campo para {{1}}', { exact: true }).selectOption('name');
    await dialog.getByLabel('Campo para {{2}}', { exact: true }).selectOption('phone');
    await dialog.getByLabel('Valor por defecto para {{1}}', { exact: true }).fill('cliente');
    await preview.getByText('Pedido de Juan').waitFor();
    await preview.getByText('Hola Juan Pérez, tu pedido para +5491112345678 sale hoy.').waitFor();
    await dialogShot('template-variable-mapping-dialog');
    await dialog.getByRole('button', { name: 'Guardar Configuración' }).click();
    await text('Configuración de variables guardada exitosamente');
    await dialog.waitFor({ state: 'detached' });

    const api = apiAs(stack.baseUrl, token);
    const templates = await api.get(`/templates/account/${(await api.get('/whatsapp-accounts'))[0].id}`);
    const id = templates.find((t: { name: string }) => t.name === 'aviso_pedido').id;
    expect(await api.get(`/variables/template/${id}/mappings`)).toEqual([
      { templateVariable: 'header_variable_1', sourceType: 'contact', sourceField: 'first_name', defaultValue: '' },
      { templateVariable: 'variable_1', sourceType: 'contact', sourceField: 'name', defaultValue: 'cliente' },
      { templateVariable: 'variable_2', sourceType: 'contact', sourceField: 'phone', defaultValue: '' },
    ]);
    const preview2 = await api.post(`/variables/template/${id}/preview`, { sampleData: { name: 'Sofía Ruiz', first_name: 'Sofía', phone: '+5491155550000' } });
    expect(preview2.processedText).toBe('Pedido de Sofía\n\nHola Sofía Ruiz, tu pedido para +5491155550000 sale hoy.\n\nGracias por tu compra');

    // Reopening shows what was saved.
    await item.getByRole('button', { name: 'Configurar Variables' }).click();
    expect(await dialog.getByLabel('Campo para {{2}}', { exact: true }).inputValue()).toBe('phone');
    await dialog.getByRole('button', { name: 'Cancelar' }).click();
    await shot(page, 'templates');
  });
});
