import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ContactsPage } from '../src/features/contacts/components/contacts-page';
import { DashboardPage } from '../src/features/dashboard/components/dashboard-page';
import { TemplatesPage } from '../src/features/templates/components/templates-page';
import { WhatsAppAccountsPage } from '../src/features/whatsapp-accounts/components/whatsapp-accounts-page';
import { renderAt, stubApi, type ApiStub } from './utils';

/** Failed loads: the error toast with the server's message, never "nothing here". */
const down = (error: string) => () => ({ status: 503, body: { error } });
/** The text inside a react-hot-toast toast (role="status"), not elsewhere on the page. */
const toast = (text: string) =>
  vi.waitFor(() => {
    const el = screen.getAllByText(text).find((e) => e.closest('[role="status"][aria-live]'));
    if (!el) throw new Error(`no toast «${text}»`);
    return el;
  });

let api: ApiStub;
beforeEach(() => {
  api = stubApi();
});

const waAccount = { id: 7, name: 'Ventas', phone_number: '+5491100000000', display_phone_number: null, kommo_account_id: null, is_active: true };

describe('a failed load is an error toast with the server message', () => {
  it('dashboard', async () => {
    api.routes = { 'GET /api/campaigns': down('Base de datos no disponible'), 'GET /api/kommo/accounts': () => ({ body: [] }) };
    renderAt('/', <DashboardPage />);
    expect(await toast('Base de datos no disponible')).toBeTruthy();
    expect(screen.queryByText('No hay campañas creadas aún')).toBeNull();
  });

  it('templates list', async () => {
    api.routes = { 'GET /api/whatsapp-accounts': () => ({ body: [waAccount] }), 'GET /api/templates/account/7': down('Meta no responde') };
    renderAt('/templates', <TemplatesPage />);
    expect(await toast('Meta no responde')).toBeTruthy();
    expect(screen.queryByText('No hay templates')).toBeNull();
  });

  it('variable-mapping dialog', async () => {
    api.routes = {
      'GET /api/whatsapp-accounts': () => ({ body: [waAccount] }),
      'GET /api/templates/account/7': () => ({
        body: [
          {
            id: 3, whatsapp_account_id: 7, kommo_account_id: null, meta_id: 'm', name: 'promo', language: 'es', category: 'marketing', status: 'approved',
            components: [{ type: 'BODY', text: 'Hola {{1}}' }], rejection_reason: null, submission_error: null, has_variables: true,
            created_at: '2025-01-01T00:00:00Z', updated_at: '2025-01-01T00:00:00Z',
          },
        ],
      }),
      'GET /api/variables/template/3': down('Plantilla bloqueada'),
    };
    renderAt('/templates', <TemplatesPage />);
    await userEvent.click(await screen.findByRole('button', { name: /Configurar Variables/ }));
    expect(await toast('Plantilla bloqueada')).toBeTruthy();
    expect(within(screen.getByRole('dialog')).queryByRole('button', { name: /Guardar/ })).toBeNull();
  });

  it('WhatsApp stats', async () => {
    api.routes = { 'GET /api/whatsapp-accounts': () => ({ body: [] }), 'GET /api/whatsapp-accounts/stats': down('Estadísticas no disponibles') };
    renderAt('/whatsapp-accounts', <WhatsAppAccountsPage />);
    expect(await toast('Estadísticas no disponibles')).toBeTruthy();
  });

  it("custom fields of the filter: 'Error al cargar campos personalizados' is a toast", async () => {
    api.routes = {
      'GET /api/kommo/accounts': () => ({ body: [{ id: 1, subdomain: 'uno', sync_total_contacts: 5 }] }),
      'GET /api/contacts/1/tags': () => ({ body: [] }),
      'POST /api/contacts/custom-fields': () => ({ status: 500, body: {} }),
      'GET /api/contacts/1/filtered': () => ({ body: { contacts: [], total: 0, limit: 20, offset: 0 } }),
    };
    renderAt('/contacts?account=1', <ContactsPage />);
    expect(await toast('Error al cargar campos personalizados')).toBeTruthy();
    expect(screen.getAllByText('Error al cargar campos personalizados')).toHaveLength(1);
  });
});

describe('WhatsApp account failures read with the spec prefixes', () => {
  const account = { ...waAccount, is_verified: false, verified_name: null, quality_rating: null, daily_message_count: 0, last_message_sent_at: null, rate_per_second: 10, messaging_limit: null, notes: null, webhook_url: 'http://x/api/webhooks/whatsapp', webhook_verify_token: 'v' };
  let alerts: string[];
  beforeEach(() => {
    alerts = [];
    vi.spyOn(window, 'alert').mockImplementation((m?: unknown) => void alerts.push(String(m)));
    vi.spyOn(window, 'confirm').mockReturnValue(true);
    api.routes = { 'GET /api/whatsapp-accounts': () => ({ body: [{ ...account, is_active: false }] }), 'GET /api/whatsapp-accounts/stats': () => ({ body: {} }) };
  });

  it('test: the reason, "Error desconocido" without one, for HTTP failures too', async () => {
    renderAt('/whatsapp-accounts', <WhatsAppAccountsPage />);
    const probar = await screen.findByRole('button', { name: /Probar/ });
    api.routes['POST /api/whatsapp-accounts/7/test'] = () => ({ body: { success: false, error: 'Token vencido' } });
    await userEvent.click(probar);
    api.routes['POST /api/whatsapp-accounts/7/test'] = () => ({ status: 502, body: { error: 'Meta no responde' } });
    await userEvent.click(probar);
    api.routes['POST /api/whatsapp-accounts/7/test'] = () => ({ status: 500, body: {} });
    await userEvent.click(probar);
    await vi.waitFor(() => expect(alerts).toHaveLength(3));
    expect(alerts).toEqual(['Error al probar la cuenta: Token vencido', 'Error al probar la cuenta: Meta no responde', 'Error al probar la cuenta: Error desconocido']);
  });

  it('delete and activate', async () => {
    api.routes['DELETE /api/whatsapp-accounts/7'] = () => ({ status: 409, body: { error: 'La usan campañas' } });
    api.routes['PUT /api/whatsapp-accounts/7'] = () => ({ status: 500, body: {} });
    renderAt('/whatsapp-accounts', <WhatsAppAccountsPage />);
    await userEvent.click(await screen.findByRole('button', { name: /Eliminar/ }));
    await userEvent.click(screen.getByRole('button', { name: /Activar/ }));
    await vi.waitFor(() => expect(alerts).toHaveLength(2));
    expect(alerts).toEqual(['Error al eliminar la cuenta: La usan campañas', 'Error al activar la cuenta: Error desconocido']);
  });
});
