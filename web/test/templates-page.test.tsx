import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { TemplatesPage } from '../src/features/templates/components/templates-page';
import { renderAt, stubApi, type ApiStub } from './utils';

let api: ApiStub;
beforeEach(() => {
  api = stubApi();
});
const urls = () => api.requests.map((r) => r.url);

const waAccount = { id: 7, name: 'Ventas', phone_number: '+5491100000000', display_phone_number: null, kommo_account_id: null };

describe('TemplatesPage (spec §5 / §8 sync messages)', () => {
  it('asks for an account before syncing when there is none', async () => {
    api.routes = { 'GET /api/whatsapp-accounts': () => ({ body: [] }) };
    renderAt('/templates', <TemplatesPage />);
    expect(await screen.findByText('Templates Disponibles (0)')).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: /Sincronizar Templates/ }));
    expect(await screen.findByText('Selecciona una cuenta primero')).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: /Sincronizar Todas/ }));
    expect(await screen.findByText('No hay cuentas de WhatsApp disponibles')).toBeTruthy();
    expect(urls().some((u) => u.pathname.startsWith('/api/templates/sync'))).toBe(false);
  });

  it("shows each item error as 'Error: {text}' and a failed account as 'Error en cuenta: {text}'", async () => {
    api.routes = {
      'GET /api/whatsapp-accounts': () => ({ body: [waAccount] }),
      'GET /api/templates/account/7': () => ({ body: [] }),
      'POST /api/templates/sync': () => ({ body: { success: true, synced: 2, updated: 1, deleted: 0, errors: ['plantilla rara'] } }),
      'POST /api/templates/sync-all': () => ({
        body: {
          success: false,
          results: [{ whatsapp_account_id: 7, account_name: 'Ventas', success: false, synced: 0, updated: 0, deleted: 0, errors: [], error: 'Token vencido' }],
        },
      }),
    };
    renderAt('/templates', <TemplatesPage />);
    expect(await screen.findByText('No hay templates')).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: /Sincronizar Templates/ }));
    expect(await screen.findByText('Sincronización exitosa: 2 nuevos, 1 actualizados')).toBeTruthy();
    expect(await screen.findByText('Error: plantilla rara')).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: /Sincronizar Todas/ }));
    expect(await screen.findByText('Error en cuenta: Token vencido')).toBeTruthy();
    // Success is claimed only when every account synced.
    expect(screen.queryByText('Sincronización completa exitosa')).toBeNull();
  });
});

const template = (over: Record<string, unknown>) => ({
  id: 1,
  whatsapp_account_id: 7,
  kommo_account_id: null,
  meta_id: null,
  name: 'promo',
  language: 'es',
  category: 'marketing',
  status: 'approved',
  components: [{ type: 'BODY', text: 'Hola {{1}}' }],
  rejection_reason: null,
  submission_error: null,
  has_variables: true,
  created_at: '2025-01-01T00:00:00Z',
  updated_at: '2025-01-01T00:00:00Z',
  ...over,
});

describe('TemplatesPage: sync outcome and status labels', () => {
  it("says 'Sincronización completa exitosa' when every account synced", async () => {
    api.routes = {
      'GET /api/whatsapp-accounts': () => ({ body: [waAccount] }),
      'GET /api/templates/account/7': () => ({ body: [] }),
      'POST /api/templates/sync-all': () => ({
        body: { success: true, results: [{ whatsapp_account_id: 7, account_name: 'Ventas', success: true, synced: 1, updated: 0, deleted: 0, errors: [] }] },
      }),
    };
    renderAt('/templates', <TemplatesPage />);
    await screen.findByText('No hay templates');
    await userEvent.click(screen.getByRole('button', { name: /Sincronizar Todas/ }));
    expect(await screen.findByText('Sincronización completa exitosa')).toBeTruthy();
  });

  it('labels every status in Spanish, Portuguese by its name, and a refused template with its reason', async () => {
    api.routes = {
      'GET /api/whatsapp-accounts': () => ({ body: [waAccount] }),
      'GET /api/templates/account/7': () => ({
        body: [
          template({ id: 1, name: 'aprobada', language: 'pt_BR' }),
          template({ id: 2, name: 'rechazada', status: 'rejected', rejection_reason: 'Meta rechazó la plantilla. (Meta #100: formato)' }),
          template({ id: 3, name: 'pausada', status: 'paused' }),
          template({ id: 4, name: 'apelada', status: 'in_appeal' }),
        ],
      }),
    };
    renderAt('/templates', <TemplatesPage />);
    const items = await screen.findAllByTestId('template-item');
    const text = items.map((i) => i.textContent ?? '');
    expect(text[0]).toContain('Aprobada');
    expect(text[0]).toContain('Idioma: Portugués');
    expect(text[0]).not.toContain('pt_BR');
    expect(text[1]).toContain('Rechazada');
    expect(text[1]).toContain('Motivo de rechazo: Meta rechazó la plantilla. (Meta #100: formato)');
    expect(text[2]).toContain('Pausada');
    expect(text[3]).toContain('En apelación');
    for (const t of text) expect(t).not.toMatch(/approved|rejected|paused|in_appeal/);
  });
});

describe('create-template dialog: nothing is offered that Meta then refuses', () => {
  beforeEach(() => {
    api.routes = {
      'GET /api/whatsapp-accounts': () => ({ body: [waAccount] }),
      'GET /api/templates/account/7': () => ({ body: [] }),
      'GET /api/kommo/accounts': () => ({ body: [] }),
    };
  });

  it('offers no example inputs for the footer, and chips never write into it', async () => {
    const user = userEvent.setup();
    renderAt('/templates', <TemplatesPage />);
    await user.click(await screen.findByRole('button', { name: /Nueva Plantilla/ }));
    const dialog = await screen.findByRole('dialog');
    await user.click(screen.getByLabelText('Incluir pie de página'));
    const footer = screen.getByLabelText('Pie de página') as HTMLInputElement;
    await user.type(footer, 'Responde {{{{1}}'); // '{{' types one literal brace
    expect(screen.queryByText('Ejemplos del pie de página')).toBeNull();
    expect(dialog.querySelectorAll('input[aria-label^="Ejemplos del pie"]')).toHaveLength(0);
    await user.click(footer);
    const chip = screen.getByTestId('variable-chips').querySelector('button')!;
    await user.click(chip);
    expect(footer.value).toBe('Responde {{1}}');
    expect((screen.getByLabelText('Cuerpo del mensaje *') as HTMLTextAreaElement).value).toBe('{{1}}');
  });

  it('shows the lowercased name before submitting', async () => {
    const user = userEvent.setup();
    renderAt('/templates', <TemplatesPage />);
    await user.click(await screen.findByRole('button', { name: /Nueva Plantilla/ }));
    await user.type(await screen.findByLabelText('Nombre *'), 'Aviso_Envio');
    expect(screen.getByText('Se enviará como: aviso_envio')).toBeTruthy();
    expect(screen.getByRole('option', { name: 'Portugués' })).toBeTruthy();
  });
});
